"""Thresholds: the Youden-optimal threshold of scores.

``youden_thresholds`` finds, per column of an ``(N, L)`` score matrix, the threshold that
maximises TPR + TNR (Youden's J, equivalently balanced accuracy), in one sort per column
(the Space draws the ROC curve of these same cut points). Scores that a threshold search needs
are the one input that cannot be reduced to counts before ``compute`` (the threshold is a
compute-time option), so they reach this file as arrays: per-sample scores, or the scores
of counted rows with their counts as weights (an integer weight is the same as repeating
a row).
"""

from typing import Optional, Tuple

import numpy as np

from .counts import safe_ratio
from .inputs import to_python_scalar
from .inputs import check_finite
from .inputs import map_row_blocks

THRESHOLD_TIE_RULE = (
    "Candidate thresholds are +inf (nothing positive), the midpoints between adjacent distinct "
    "scores, and the lowest score (everything positive); a sample is positive iff score >= threshold. "
    "Samples of weight 0 are left out, as scikit-learn's roc_curve leaves them out. "
    "The threshold with the highest TPR + TNR wins; among equally good ones the highest threshold "
    "(fewest predicted positives) wins."
)


def youden_thresholds(
    scores: np.ndarray,
    positives: np.ndarray,
    weights: Optional[np.ndarray] = None,
    mask: Optional[np.ndarray] = None,
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column, the threshold maximising TPR + TNR (Youden's J), in one sort per column.

    ``scores``, ``positives`` (0/1) and ``weights`` are ``(N, L)``; columns are searched
    independently and at once (no Python loop over samples or columns). ``mask``
    (``(N, L)``, True = counts) drops individual entries: they influence neither the counts
    nor the candidate cut points. Ties follow ``THRESHOLD_TIE_RULE``. Returns
    ``(thresholds, tpr, tnr)``, each of length L; TPR (TNR) is NaN for a column with no
    positive (negative) weight; a column with nothing counted gets threshold +inf.

    Examples
    --------
    >>> thresholds, tpr, tnr = youden_thresholds(np.array([[0.2], [0.9], [0.1], [0.3]]), np.array([[0], [1], [1], [0]]))
    >>> thresholds.tolist(), tpr.tolist(), tnr.tolist()
    ([0.6], [0.5], [1.0])
    >>> mask = np.array([[True], [True], [False], [True]])  # without the positive scored 0.1
    >>> youden_thresholds(np.array([[0.2], [0.9], [0.1], [0.3]]), np.array([[0], [1], [1], [0]]), mask=mask)[0].tolist()
    [0.6]
    """
    num_samples, num_columns = scores.shape
    if num_samples == 0:
        return np.full(num_columns, np.inf), np.full(num_columns, np.nan), np.full(num_columns, np.nan)
    if weights is not None and not weights.all():
        # A weight-0 sample counts for nothing, so it must not place a cut point either.
        counted = np.broadcast_to(weights != 0, scores.shape)
        mask = counted if mask is None else (mask.astype(bool) & counted)
    with np.errstate(over="ignore", invalid="ignore"):  # huge finite scores may overflow the sum
        all_finite = scores.dtype.kind == "f" and np.isfinite(np.add.reduce(scores, axis=None))
    if weights is None and all_finite:
        return _youden_unweighted(scores, positives, mask)
    if weights is None:
        weights = np.ones(scores.shape)
    positives = positives.astype(bool)
    if mask is None:
        order = np.argsort(-scores, axis=0, kind="stable")
        num_counted = np.full(num_columns, num_samples)
    else:
        mask = mask.astype(bool)
        # Masked entries sort after every counted one (still one sort per column) and weigh nothing.
        order = np.lexsort((-scores, ~mask), axis=0)
        num_counted = mask.sum(axis=0)
        weights = np.where(mask, weights, 0.0)
    sorted_scores = np.take_along_axis(scores, order, axis=0)
    sorted_weights = np.take_along_axis(weights, order, axis=0)
    sorted_positive = np.take_along_axis(positives, order, axis=0)
    cumulative_tp = np.cumsum(np.where(sorted_positive, sorted_weights, 0.0), axis=0)
    cumulative_fp = np.cumsum(np.where(sorted_positive, 0.0, sorted_weights), axis=0)
    total_positive, total_negative = cumulative_tp[-1], cumulative_fp[-1]
    # A cut after row i (rows 0..i positive) is valid only where the next score differs, and
    # after the last counted row (everything positive); the rows after it are masked entries.
    rows = np.arange(num_samples)[:, None]
    is_cut = np.ones(scores.shape, dtype=bool)
    is_cut[:-1] = sorted_scores[:-1] != sorted_scores[1:]
    is_cut = (is_cut & (rows < num_counted)) | (rows == num_counted - 1)
    tpr = safe_ratio(cumulative_tp, total_positive)
    tnr = safe_ratio(total_negative - cumulative_fp, total_negative)
    youden = np.nan_to_num(tpr, nan=0.0) + np.nan_to_num(tnr, nan=1.0)
    youden = np.where(is_cut, youden, -np.inf)
    # Candidate 0 is "nothing positive" (threshold +inf, J = 0); then cuts in descending order.
    nothing_positive = np.nan_to_num(safe_ratio(np.zeros(num_columns), total_positive), nan=0.0) + np.nan_to_num(
        safe_ratio(total_negative, total_negative), nan=1.0
    )
    candidates = np.vstack([nothing_positive[None, :], youden])
    best = np.argmax(candidates, axis=0)  # first maximum = highest threshold among ties
    columns = np.arange(num_columns)
    row = np.maximum(best - 1, 0)
    upper = sorted_scores[row, columns]
    lower = sorted_scores[np.minimum(row + 1, num_samples - 1), columns]
    midpoint = _midpoints(upper, lower)
    # Rounding can put the midpoint on the lower score, which would then count as positive.
    midpoint = np.where(midpoint > lower, midpoint, upper)
    thresholds = np.where(row + 1 < num_counted, midpoint, upper)
    thresholds = np.where(best == 0, np.inf, thresholds)
    best_tpr = np.where(best == 0, safe_ratio(np.zeros(num_columns), total_positive), tpr[row, columns])
    best_tnr = np.where(best == 0, safe_ratio(total_negative, total_negative), tnr[row, columns])
    return thresholds, best_tpr, best_tnr


def _midpoints(upper: np.ndarray, lower: np.ndarray) -> np.ndarray:
    """``(upper + lower) / 2``; where that overflows (finite scores near the float maximum),
    ``upper / 2 + lower / 2`` instead (equal wherever the first does not overflow)."""
    with np.errstate(over="ignore"):
        midpoint = (upper + lower) / 2
    overflowed = np.isinf(midpoint) & np.isfinite(upper) & np.isfinite(lower)
    if overflowed.any():
        midpoint = np.where(overflowed, upper / 2 + lower / 2, midpoint)
    return midpoint


# Entries per block of columns searched at once by the unweighted path (memory stays bounded).
_YOUDEN_BLOCK = 1 << 21


def _youden_unweighted(scores: np.ndarray, positives: np.ndarray, mask: Optional[np.ndarray]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``youden_thresholds`` without weights, for finite scores: the same results, faster.

    Unweighted counts are exact integers, so the order of tied scores cannot change them:
    the fast (unstable) sort serves, and true/false positives are one integer cumsum. The
    columns go in blocks, each transposed so that every column is sorted as a contiguous row.
    """
    num_samples, num_columns = scores.shape
    thresholds = np.empty(num_columns, dtype=scores.dtype)  # as the general path: thresholds in the scores' type
    best_tpr, best_tnr = np.empty(num_columns), np.empty(num_columns)
    width = max(1, _YOUDEN_BLOCK // num_samples)

    def search(first: int, last: int) -> None:
        for start in range(first, last, width):
            block = slice(start, min(start + width, last))
            found = _youden_rows(scores[:, block].T, positives[:, block].T, None if mask is None else mask[:, block].T)
            thresholds[block], best_tpr[block], best_tnr[block] = found

    # Columns are searched independently: ranges of them run on several cores (NumPy sorts
    # without holding the GIL), each range in blocks of at most _YOUDEN_BLOCK entries.
    map_row_blocks(search, scores.T)
    return thresholds, best_tpr, best_tnr


def _youden_rows(scores: np.ndarray, positives: np.ndarray, mask: Optional[np.ndarray]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unweighted search on ``(C, N)`` rows, one row per column of the caller."""
    num_rows, num_samples = scores.shape
    key = np.negative(scores, order="C")  # ascending key = descending scores (same float type)
    positive = np.array(positives, dtype=bool, order="C")
    if mask is None:
        num_counted = np.full(num_rows, num_samples)
    else:
        counted = np.array(mask, dtype=bool, order="C")
        key[~counted] = np.inf  # masked entries sort after every counted one and count nothing
        positive &= counted
        num_counted = counted.sum(axis=1)
    order = np.argsort(key, axis=1)
    key = np.take_along_axis(key, order, axis=1)
    true_positives = np.cumsum(np.take_along_axis(positive, order, axis=1), axis=1)
    del order, positive
    total_positive = true_positives[:, -1]
    total_negative = num_counted - total_positive
    false_positives = np.arange(1, num_samples + 1) - true_positives  # valid on counted rows
    # J = TPR + TNR with an undefined rate counting as 0 (TPR) or 1 (TNR), as in youden_thresholds.
    youden = true_positives / np.maximum(total_positive, 1)[:, None]
    negative_part = (total_negative[:, None] - false_positives) / np.maximum(total_negative, 1)[:, None]
    negative_part[total_negative == 0] = 1.0
    youden += negative_part
    del negative_part
    ranks = np.arange(num_samples)
    is_cut = np.ones(key.shape, dtype=bool)
    is_cut[:, :-1] = key[:, :-1] != key[:, 1:]
    is_cut = (is_cut & (ranks < num_counted[:, None])) | (ranks == num_counted[:, None] - 1)
    youden[~is_cut] = -np.inf
    # "Nothing positive" has J = 1 (TPR 0, TNR 1) and wins ties: a cut must do strictly better.
    best_cut = np.argmax(youden, axis=1)
    rows = np.arange(num_rows)
    improves = youden[rows, best_cut] > 1.0
    row = np.where(improves, best_cut, 0)
    upper = -key[rows, row]
    lower = -key[rows, np.minimum(row + 1, num_samples - 1)]
    midpoint = _midpoints(upper, lower)
    # Rounding can put the midpoint on the lower score, which would then count as positive.
    midpoint = np.where(midpoint > lower, midpoint, upper)
    thresholds = np.where(row + 1 < num_counted, midpoint, upper)
    thresholds = np.where(improves, thresholds, np.inf)
    zeros = np.zeros(num_rows)
    best_tpr = np.where(improves, safe_ratio(true_positives[rows, row], total_positive), safe_ratio(zeros, total_positive))
    best_tnr = np.where(
        improves,
        safe_ratio(total_negative - false_positives[rows, row], total_negative),
        safe_ratio(total_negative, total_negative),
    )
    return thresholds, best_tpr, best_tnr


def check_threshold_scale(scores, threshold, name: str = "predictions") -> None:
    """Scores for a numeric threshold (one, or one per column): numeric and finite, and on the
    threshold's scale. ``scores``: an array, or a tuple of arrays checked as one (e.g. the
    counted and the raw scores of a store).

    Any finite threshold applies to any finite scores (positive iff score >= threshold, the
    rule ``"auto"`` tunes with): probabilities, logits, a judge's 1-10 scores. The one
    combination refused is surely a mistake: a finite threshold outside [0, 1] with scores
    that all lie in [0, 1], i.e. probabilities (or 0/1 labels) cut where every one of them
    falls on the same side.

    Examples
    --------
    >>> check_threshold_scale(np.array([-2.3, 0.4, 1.7]), 0.466)  # logits, a threshold tuned on logits
    >>> check_threshold_scale(np.array([3, 8, 10]), 6.5)  # a judge's 1-10 scores
    >>> check_threshold_scale(np.array([0.1, 0.7]), 6.5)
    Traceback (most recent call last):
    ...
    ValueError: threshold: expected a threshold on the scale of predictions, found 6.5 with all of predictions in [0.1, 0.7] (probabilities or 0/1 labels): above 1, nothing is positive. A threshold tuned on logits or other scores applies to those scores; pass the same kind of scores it was tuned on.
    """
    arrays = [array for array in (scores if isinstance(scores, tuple) else (scores,)) if array.size]
    for array in arrays:
        check_scores(array, name)
    cuts = np.atleast_1d(np.asarray(threshold, dtype=np.float64))
    outside = cuts[np.isfinite(cuts) & ((cuts < 0) | (cuts > 1))]
    if not (outside.size and arrays):
        return
    low, high = min(array.min() for array in arrays), max(array.max() for array in arrays)
    if low >= 0 and high <= 1:
        found = outside[0]
        side = "above 1, nothing is positive" if found > 1 else "below 0, everything is positive"
        shown = f"{to_python_scalar(found)!r}" if cuts.size == 1 else f"{to_python_scalar(found)!r} among the per-label thresholds"
        raise ValueError(
            f"threshold: expected a threshold on the scale of {name}, found {shown} with all of {name} in "
            f"[{to_python_scalar(low)!r}, {to_python_scalar(high)!r}] (probabilities or 0/1 labels): {side}. A threshold "
            "tuned on logits or other scores applies to those scores; pass the same kind of scores it was tuned on."
        )


def check_scores(scores: np.ndarray, name: str = "predictions") -> None:
    if scores.dtype.kind not in "iuf":
        raise TypeError(f"{name}: expected numeric scores, found values of dtype {scores.dtype}.")
    check_finite(scores, name)


def threshold_labels(scores: np.ndarray, threshold: float, positive_index: int) -> np.ndarray:
    """Class indices from scores of the positive class: positive where ``score >= threshold``."""
    return np.where(scores >= threshold, positive_index, 1 - positive_index)
