"""Thresholds: the Youden-optimal threshold of scores.

``youden_thresholds`` finds, per column of an ``(N, L)`` score matrix, the threshold that
maximises TPR + TNR (Youden's J, equivalently balanced accuracy): from about 16,000 rows
without sorting whole columns (scores binned, only the bins that can hold the best cut
looked into: expected linear time, the same cut as the sort), below that by one sort per
column (the Space draws the ROC curve of these same cut points). Scores that a threshold search needs
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
    """Per column, the threshold maximising TPR + TNR (Youden's J): binned (``_youden_binned``)
    from ``_MIN_BINNED`` rows of finite float scores, else one sort per column; the same cut either way.

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
    if num_samples == 0 or num_columns == 0:
        return np.full(num_columns, np.inf), np.full(num_columns, np.nan), np.full(num_columns, np.nan)
    if weights is not None and not weights.all():
        # A weight-0 sample counts for nothing, so it must not place a cut point either.
        counted = np.broadcast_to(weights != 0, scores.shape)
        mask = counted if mask is None else (mask.astype(bool) & counted)
    with np.errstate(over="ignore", invalid="ignore"):  # huge finite scores may overflow the sum
        all_finite = scores.dtype.kind == "f" and np.isfinite(np.add.reduce(scores, axis=None))
    if all_finite and num_samples >= _MIN_BINNED:
        return _youden_binned(scores, positives, weights, mask)
    return _youden_sorted(scores, positives, weights, mask)


def _youden_sorted(
    scores: np.ndarray, positives: np.ndarray, weights: Optional[np.ndarray], mask: Optional[np.ndarray]
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``youden_thresholds`` by one sort per column: below ``_MIN_BINNED`` rows, for non-float
    scores or scores whose sum overflows, and for the columns the binned search hands back.

    The columns go in blocks of at most ``_YOUDEN_BLOCK`` entries, each transposed so that
    every column is sorted as a contiguous row (``_youden_rows``); ranges of them run on
    several cores (NumPy sorts without holding the GIL).
    """
    num_samples, num_columns = scores.shape
    weights = None if weights is None else np.broadcast_to(weights, scores.shape)
    width = max(1, _YOUDEN_BLOCK // num_samples)

    def search(first: int, last: int) -> list:
        return [_youden_rows(*(None if array is None else array[:, start:min(start + width, last)].T
                               for array in (scores, positives, weights, mask)))
                for start in range(first, last, width)]

    found = [part for parts in map_row_blocks(search, scores.T) for part in parts]
    return tuple(np.concatenate(results) for results in zip(*found))


# Entries per block of columns searched at once by the sort (memory stays bounded).
_YOUDEN_BLOCK = 1 << 21


def _youden_rows(
    scores: np.ndarray, positives: np.ndarray, weights: Optional[np.ndarray], mask: Optional[np.ndarray]
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sort on ``(C, N)`` rows, one row per column of the caller.

    Unweighted counts are exact integers, so the order of tied scores cannot change them:
    the fast (unstable) sort serves, and true/false positives are one integer cumsum.
    Weight sums are rounded in the order of a stable sort (descending scores, ties in row
    order; masked entries after every counted one, weighing nothing).
    """
    num_rows, num_samples = scores.shape
    key = np.negative(scores, order="C")  # ascending key = descending scores (same type)
    positive = np.array(positives, dtype=bool, order="C")
    if mask is None:
        num_counted = np.full(num_rows, num_samples)
        order = np.argsort(key, axis=1, kind=None if weights is None else "stable")
    else:
        counted = np.array(mask, dtype=bool, order="C")
        positive &= counted
        num_counted = counted.sum(axis=1)
        if weights is None and key.dtype.kind == "f":
            key[~counted] = np.inf  # masked entries sort after every counted one and count nothing
            order = np.argsort(key, axis=1)
        else:
            order = np.lexsort((key, ~counted), axis=1)
            if weights is not None:
                weights = np.where(counted, weights, 0.0)
    key = np.take_along_axis(key, order, axis=1)
    positive = np.take_along_axis(positive, order, axis=1)
    if weights is None:
        true_positives = np.cumsum(positive, axis=1)
        false_positives = np.arange(1, num_samples + 1) - true_positives  # valid on counted rows
        total_positive = true_positives[:, -1]
        total_negative = num_counted - total_positive
    else:
        weights = np.take_along_axis(weights, order, axis=1)
        true_positives = np.cumsum(np.where(positive, weights, 0.0), axis=1)
        false_positives = np.cumsum(np.where(positive, 0.0, weights), axis=1)
        total_positive, total_negative = true_positives[:, -1], false_positives[:, -1]
    del positive, weights
    youden = _youden_of(true_positives, false_positives, total_positive[:, None], total_negative[:, None])
    ranks = np.arange(num_samples)
    is_cut = np.ones(key.shape, dtype=bool)
    is_cut[:, :-1] = key[:, :-1] != key[:, 1:]
    is_cut = (is_cut & (ranks < num_counted[:, None])) | (ranks == num_counted[:, None] - 1)
    youden[~is_cut] = -np.inf
    # "Nothing positive" has J = 1 (TPR 0, TNR 1) and wins ties: a cut must do strictly better.
    rows = np.arange(num_rows)
    best = np.argmax(youden, axis=1)
    improves = youden[rows, best] > 1.0
    row = np.where(improves, best, 0)
    upper = scores[rows, order[rows, row]]
    lower = scores[rows, order[rows, np.minimum(row + 1, num_samples - 1)]]
    return _chosen(improves, upper, lower, row + 1 < num_counted, true_positives[rows, row], false_positives[rows, row],
                   total_positive, total_negative)


def _chosen(improves, upper, lower, has_lower, tp, fp, total_positive, total_negative) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column, the threshold and rates of its best cut: +inf (nothing positive) where no cut
    ``improves`` on J = 1; else the midpoint of the cut's lowest positive score ``upper`` and the
    next lower counted score ``lower`` (where ``has_lower``), or ``upper`` itself (the lowest
    score: everything positive). ``tp``, ``fp``: the weight counted positive at the cut."""
    with np.errstate(invalid="ignore"):
        midpoint = _midpoints(upper, np.where(has_lower, lower, upper))
        # Rounding can put the midpoint on the lower score, which would then count as positive.
        midpoint = np.where(midpoint > lower, midpoint, upper)
    thresholds = np.where(improves, np.where(has_lower, midpoint, upper), np.inf)
    # Nothing positive (no cut improves): TP = FP = 0.
    return (thresholds, safe_ratio(np.where(improves, tp, 0.0), total_positive),
            safe_ratio(total_negative - np.where(improves, fp, 0.0), total_negative))


def _midpoints(upper: np.ndarray, lower: np.ndarray) -> np.ndarray:
    """``(upper + lower) / 2``; where that overflows (finite scores near the float maximum),
    ``upper / 2 + lower / 2`` instead (equal wherever the first does not overflow)."""
    with np.errstate(over="ignore"):
        midpoint = (upper + lower) / 2
    overflowed = np.isinf(midpoint) & np.isfinite(upper) & np.isfinite(lower)
    if overflowed.any():
        midpoint = np.where(overflowed, upper / 2 + lower / 2, midpoint)
    return midpoint


# ------------------------------------------------------------------ the search without a full sort
#
# J = TP/P + (N - FP)/N only changes where the cumulative weights of the two classes move, so
# the scores are first binned (per column, equal-width bins between its lowest and highest
# counted score: one pass). The cut at the lowest score of a bin ("its edge") has a J known
# from the cumulative bin sums; any cut inside a bin has J at most that of the bin's
# positives counted and none of its negatives. Only the bins whose bound reaches the best J
# found are looked into (their items sorted, or binned again when many), with the best
# edge's bin and the bin below each (for the next lower score, which the midpoint needs).
#
# Exactness. Without weights, or with weights that are whole multiples of 2^-10 (counts,
# integer weights, halves...) whose total stays below 2^53, every sum is exact whatever its
# order, and J is computed by the same two divisions and one addition as the sort: the same
# floats, hence the same cut. With other weights both searches round their sums (in
# different orders); each J is then within ``slack / 4`` of its exact value, so a cut that
# beats every other by more than ``slack`` here is the sort's cut too; a column with a
# closer second is searched again by the sort, which decides it as it always did.

_MIN_BINNED = 1 << 14  # rows below which one sort per column is as fast
_LEAF = 1 << 14  # items of the bins looked into that are sorted rather than binned again
_MAX_DEPTH = 6  # bins binned again at most this deep (then sorted)
_MAX_BINS = 1 << 16
_HISTOGRAM_CELLS = 1 << 18  # bins of all columns together, per level
_CHUNK = 1 << 17  # entries per block of the histogram and gather passes
_EXACT_UNIT = 2.0**10  # weights that are whole multiples of 1/_EXACT_UNIT sum exactly


def _youden_binned(
    scores: np.ndarray, positives: np.ndarray, weights: Optional[np.ndarray], mask: Optional[np.ndarray]
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``youden_thresholds`` for finite float scores, without sorting whole columns."""
    num_samples, num_columns = scores.shape
    positive = positives if positives.dtype == bool else positives.astype(bool)
    counted = None if mask is None else (mask if mask.dtype == bool else mask.astype(bool))
    if weights is not None:
        weights = np.asarray(weights, dtype=np.float64)
    exact = weights is None or _sums_are_exact(weights)
    slack = 0.0 if exact else 64.0 * (num_samples + 2 * _MAX_BINS * (_MAX_DEPTH + 1) + (1 << 20)) * 2.0**-53
    zeros = np.zeros(num_columns)
    found = _cut_level(scores, positive, weights, counted, zeros, zeros, None, None, np.ones(num_columns), slack, exact, 0)
    total_positive, total_negative = found.total_positive, found.total_negative
    # "Nothing positive" (threshold +inf, J = 1) comes first: a cut must do strictly better.
    improves = found.best > 1.0
    second = np.where(improves, np.maximum(found.second, 1.0), found.best)
    redo = found.redo | (~exact & (second >= np.maximum(found.best, 1.0) - slack))
    thresholds, best_tpr, best_tnr = _chosen(improves, found.value.astype(scores.dtype), found.lower.astype(scores.dtype),
                                             ~np.isnan(found.lower), found.tp, found.fp, total_positive, total_negative)
    thresholds = thresholds.astype(scores.dtype)
    if redo.any():
        columns = np.flatnonzero(redo)
        again = _youden_sorted(
            scores[:, columns], positive[:, columns], None if weights is None else np.broadcast_to(weights, scores.shape)[:, columns],
            None if counted is None else counted[:, columns],
        )
        thresholds[columns], best_tpr[columns], best_tnr[columns] = again
    return thresholds, best_tpr, best_tnr


def _sums_are_exact(weights: np.ndarray) -> bool:
    """Whether every partial sum of a column's weights is exact in float64, in any order."""
    if weights.ndim == 2 and weights.strides[1] == 0:  # one weight per row, broadcast to the columns
        weights = weights[:, 0]

    def check(rows):
        units = weights[rows] * _EXACT_UNIT
        return bool(np.array_equal(units, np.floor(units))), float(units.sum())

    with np.errstate(over="ignore", invalid="ignore"):
        parts = _column_blocks(check, weights if weights.ndim == 2 else weights[:, None])
    return all(whole for whole, _ in parts) and sum(total for _, total in parts) < 2.0**53


class _Found:
    """Per column: the best cut found (J, its score, the next lower score or NaN, its sums),
    the best J of every other cut looked at, and whether the column must be searched again
    by the sort (``redo``)."""

    def __init__(self, columns: int):
        self.best = np.full(columns, -np.inf)
        self.value = np.full(columns, np.nan)
        self.lower = np.full(columns, np.nan)
        self.tp = np.zeros(columns)
        self.fp = np.zeros(columns)
        self.second = np.full(columns, -np.inf)
        self.redo = np.zeros(columns, dtype=bool)
        self.total_positive = self.total_negative = None

    def offer(self, column: int, best: float, value: float, lower: float, tp: float, fp: float, second: float = -np.inf) -> None:
        """One more candidate (with the best J of the cuts it was chosen among); the higher J
        wins, and among equal ones the higher score (``value`` NaN: a J without a cut, only
        ever a second)."""
        current, current_value = self.best[column], self.value[column]
        wins = best > current or (best == current and not np.isnan(value) and (np.isnan(current_value) or value > current_value))
        if wins:
            self.second[column] = max(self.second[column], current, second)
            self.best[column], self.value[column], self.lower[column] = best, value, lower
            self.tp[column], self.fp[column] = tp, fp
        else:
            self.second[column] = max(self.second[column], best, second)


def _youden_of(tp, fp, total_positive, total_negative) -> np.ndarray:
    """J = TPR (0 without positive weight) + TNR (1 without negative weight), as both searches compute it."""
    with np.errstate(invalid="ignore", divide="ignore"):
        positive_part = np.where(total_positive > 0, tp / np.where(total_positive > 0, total_positive, 1.0), 0.0)
        negative_part = np.where(
            total_negative > 0, (total_negative - fp) / np.where(total_negative > 0, total_negative, 1.0), 1.0
        )
    return positive_part + negative_part


def _bin_index(values: np.ndarray, shift: np.ndarray, scale: np.ndarray, halve: bool) -> np.ndarray:
    """Bin of each score: ``floor((x - lowest) * scale)`` (halved first when the range would
    overflow). The same operations everywhere, so bins are monotone in the score."""
    if halve:
        t = np.multiply(values, 0.5, dtype=np.float64)
        t -= shift
    else:
        t = np.subtract(values, shift, dtype=np.float64)
    t *= scale
    return t.astype(np.intp)


def _order_keys(values: np.ndarray) -> np.ndarray:
    """float64 -> int64 keys in the same order (-0.0 and 0.0 both 0)."""
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.int64)
    return np.where(bits >= 0, bits, -(bits & np.int64(0x7FFFFFFFFFFFFFFF)))


def _from_order_keys(keys: np.ndarray) -> np.ndarray:
    bits = np.where(keys >= 0, keys, (-keys) | np.int64(-(2**63)))
    return bits.astype(np.int64).view(np.float64)


def _bin_starts(low, high, shift, scale, halve: bool, target) -> np.ndarray:
    """Per query, the lowest float64 ``x`` in ``(low, high]`` with ``_bin_index(x) >= target``
    (+inf if none): bisection on the floats' order keys."""
    below, above = _order_keys(low), _order_keys(high)
    reaches = _bin_index(high, shift, scale, halve) >= target
    for _ in range(66):
        middle = (below >> 1) + (above >> 1) + (below & above & 1)
        inside = _bin_index(_from_order_keys(middle), shift, scale, halve) >= target
        above = np.where(inside, middle, above)
        below = np.where(inside, below, middle)
    return np.where(reaches, _from_order_keys(above), np.inf)


def _column_blocks(function, scores: np.ndarray, entries: int = _CHUNK) -> list:
    """``function(rows)`` over row blocks of about ``entries`` entries, on up to all cores."""
    step = max(1, entries // max(1, scores.shape[1]))

    def blocks(start: int, stop: int) -> list:
        return [function(slice(first, min(first + step, stop))) for first in range(start, stop, step)]

    return [result for part in map_row_blocks(blocks, scores) for result in part]


def _summed_blocks(function, scores: np.ndarray, entries: int) -> np.ndarray:
    """The sum of ``function(rows)`` (arrays of one shape) over row blocks of about
    ``entries`` entries, each thread adding up its own blocks."""
    step = max(1, entries // max(1, scores.shape[1]))

    def blocks(start: int, stop: int) -> np.ndarray:
        total = None
        for first in range(start, stop, step):
            part = function(slice(first, min(first + step, stop)))
            total = part.astype(np.float64) if total is None else np.add(total, part, out=total)
        return total

    parts = map_row_blocks(blocks, scores)
    return sum(parts[1:], parts[0])


def _cut_level(scores, positive, weights, counted, tp_above, fp_above, total_positive, total_negative, floor, slack, exact, depth):
    """The best cut of each column of ``scores`` (rows: the entries of this level), given the
    positive and negative weight above them (``tp_above``, ``fp_above``) and a J that the
    best cut elsewhere already reaches (``floor``): see the comment above ``_MIN_BINNED``."""
    num_rows, num_columns = scores.shape
    found = _Found(num_columns)
    # Per column, the range of the counted scores.
    def extremes(rows):
        block = scores[rows]
        if counted is None:
            return block.min(axis=0), block.max(axis=0)
        keep = counted[rows]
        return np.where(keep, block, np.inf).min(axis=0), np.where(keep, block, -np.inf).max(axis=0)

    parts = _column_blocks(extremes, scores)
    lowest = np.min([part[0] for part in parts], axis=0).astype(np.float64)
    highest = np.max([part[1] for part in parts], axis=0).astype(np.float64)
    empty = lowest > highest
    bins = int(max(16, min(num_rows // 16, _HISTOGRAM_CELLS // num_columns, _MAX_BINS)))
    with np.errstate(over="ignore", invalid="ignore"):
        halve = bool(np.isinf(highest - lowest)[~empty].any())
        shift = np.where(empty, 0.0, lowest * 0.5 if halve else lowest)
        span = np.where(empty, 0.0, highest * 0.5 - shift if halve else highest - lowest)
        scale = np.where(span > 0, (bins - 0.5) / np.where(span > 0, span, 1.0), 0.0)
    found.redo = ~np.isfinite(scale)  # a range too narrow to scale: the sort
    scale = np.where(found.redo, 0.0, scale)
    single = span == 0  # one distinct score (or none): no cut inside a bin

    # The histogram: per column and bin, the negative and positive weight (one pass).
    cells = 2 * num_columns * bins
    offsets = np.arange(num_columns, dtype=np.intp) * (2 * bins)

    def histogram(rows):
        with np.errstate(over="ignore", invalid="ignore"):  # masked entries may lie far outside the range
            key = _bin_index(scores[rows], shift, scale, halve)
        key <<= 1
        key += positive[rows]
        key += offsets
        if counted is not None:
            key[~counted[rows]] = cells
        block_weights = None if weights is None else np.broadcast_to(weights[rows], key.shape).ravel()
        return np.bincount(key.ravel(), block_weights, minlength=cells + 1)

    sums = _summed_blocks(histogram, scores, max(_CHUNK, cells))[:cells].reshape(num_columns, bins, 2)
    negative, positive_sum = sums[..., 0], sums[..., 1]
    if total_positive is None:
        total_positive, total_negative = positive_sum.sum(axis=1), negative.sum(axis=1)
    found.total_positive, found.total_negative = total_positive, total_negative
    tp_to = tp_above[:, None] + np.cumsum(positive_sum[:, ::-1], axis=1)[:, ::-1]  # bins >= b positive
    fp_to = fp_above[:, None] + np.cumsum(negative[:, ::-1], axis=1)[:, ::-1]
    occupied = (positive_sum + negative) > 0
    P, N = total_positive[:, None], total_negative[:, None]
    edge = np.where(occupied, _youden_of(tp_to, fp_to, P, N), -np.inf)
    bound = np.where(occupied, _youden_of(tp_to, fp_to - negative, P, N), -np.inf)
    best_edge = edge.max(axis=1)
    reach = np.maximum(floor, best_edge) - slack
    # Bins to look into: a bound reaching the best J (exact sums: only bins with negatives can
    # hold a cut better than their edge); and the best edge's bin (the highest, among ties).
    inside = occupied & (bound >= reach[:, None]) & ~single[:, None] & ~found.redo[:, None]
    if exact:
        inside &= negative > 0
    edge_bin = bins - 1 - np.argmax(edge[:, ::-1] == best_edge[:, None], axis=1)
    wanted = inside.copy()
    has_edge = (best_edge >= floor - slack) & ~found.redo
    wanted[has_edge, edge_bin[has_edge]] = True
    # The bin below each wanted one (its highest score is the next lower score).
    marks = np.where(occupied, np.arange(bins), -1)
    below = np.full((num_columns, bins), -1)
    below[:, 1:] = np.maximum.accumulate(marks, axis=1)[:, :-1]
    gathered = wanted.copy()
    rows_, bins_ = np.nonzero(wanted & (below >= 0))
    gathered[rows_, below[rows_, bins_]] = True
    # Edges of bins not looked into: J values only, without a cut (for the exactness check; a NaN J counts for none).
    others = np.where(occupied & ~wanted, edge, -np.inf).max(axis=1)
    found.best = np.where(np.isnan(others), -np.inf, others)
    # A column whose only bin to open is its lowest, for its edge: that cut is its lowest score.
    only_lowest = has_edge & (gathered.sum(axis=1) == 1) & ~inside.any(axis=1) & (edge_bin == np.argmax(occupied, axis=1))
    for column in np.flatnonzero(only_lowest):
        b = edge_bin[column]
        found.offer(column, float(edge[column, b]), float(lowest[column]), np.nan, float(tp_to[column, b]), float(fp_to[column, b]))
        gathered[column] = False
    if not gathered.any():
        return found

    # The gather: the counted entries of the gathered bins (one pass, then exact bin checks).
    ranged = np.flatnonzero(gathered.any(axis=1))
    first_bin = np.argmax(gathered[ranged], axis=1)
    last_bin = bins - 1 - np.argmax(gathered[ranged, ::-1], axis=1)
    low, high = np.full(num_columns, np.inf), np.full(num_columns, -np.inf)
    limits = (lowest[ranged], highest[ranged], shift[ranged], scale[ranged], halve)
    low[ranged] = np.where(first_bin == 0, -np.inf, _bin_starts(*limits, first_bin))
    high[ranged] = np.where(last_bin == bins - 1, np.inf, _bin_starts(*limits, last_bin + 1))

    def gather(rows):
        block = scores[rows]
        selected = (block >= low) & (block < high)
        if counted is not None:
            selected &= counted[rows]
        row, column = np.nonzero(selected)
        return row + rows.start, column

    picked = _column_blocks(gather, scores)
    row, column = (np.concatenate(parts) for parts in zip(*picked))
    order = np.argsort(column, kind="stable")
    row, column = row[order], column[order]
    item_scores = scores[row, column]
    item_bin = _bin_index(item_scores, shift[column], scale[column], halve)
    keep = gathered[column, item_bin]
    row, column, item_scores, item_bin = row[keep], column[keep], item_scores[keep], item_bin[keep]
    item_positive = positive[row, column]
    item_weights = None if weights is None else np.broadcast_to(weights, scores.shape)[row, column]
    starts = np.searchsorted(column, np.arange(num_columns + 1))
    for c in ranged:
        part = slice(starts[c], starts[c + 1])
        _open_bins(
            found, c, item_scores[part], item_positive[part], None if item_weights is None else item_weights[part], item_bin[part],
            inside[c], edge[c], edge_bin[c] if has_edge[c] else -1, below[c], tp_to[c], fp_to[c], positive_sum[c], negative[c],
            total_positive[c], total_negative[c], float(np.maximum(floor[c], best_edge[c])), slack, exact, depth,
        )
    return found


def _open_bins(found, column, scores, positive, weights, bins, inside, edge, edge_bin, below, tp_to, fp_to, positive_sum, negative,
               total_positive, total_negative, floor, slack, exact, depth):
    """Look into one column's gathered bins: sort the items of the bins to look into, or bin
    again those with many items; the best edge's bin gives its edge."""
    counts = np.bincount(bins, minlength=inside.size)
    highest_of = {}

    def lower_than(b):  # the highest score of the occupied bin below b (NaN: none)
        under = below[b]
        if under < 0:
            return np.nan
        if under not in highest_of:
            highest_of[under] = float(scores[bins == under].max())
        return highest_of[under]

    opened = np.flatnonzero(inside)
    deep = opened[(counts[opened] > _LEAF) & (depth < _MAX_DEPTH)]
    for b in deep:
        members = bins == b
        sub = _cut_level(
            scores[members][:, None], positive[members][:, None], None if weights is None else weights[members][:, None], None,
            np.array([tp_to[b] - positive_sum[b]]), np.array([fp_to[b] - negative[b]]), np.array([total_positive]),
            np.array([total_negative]), np.array([floor]), slack, exact, depth + 1,
        )
        if sub.redo[0]:
            found.redo[column] = True
        lower = sub.lower[0] if not np.isnan(sub.lower[0]) or np.isnan(sub.value[0]) else lower_than(b)
        found.offer(column, sub.best[0], sub.value[0], lower, sub.tp[0], sub.fp[0], sub.second[0])
    sorted_bins = np.setdiff1d(opened, deep)
    if sorted_bins.size:
        members = np.flatnonzero(np.isin(bins, sorted_bins))
        order = members[np.argsort(-scores[members])]  # ties in any order: equal scores are one cut
        leaf_weights = np.ones(order.size) if weights is None else weights[order]
        leaf_scores, leaf_bins, leaf_positive = scores[order], bins[order], positive[order]
        # Items of one bin are consecutive; sums within the bin, on top of what lies above it.
        tp_sum = np.cumsum(np.where(leaf_positive, leaf_weights, 0.0))
        fp_sum = np.cumsum(np.where(leaf_positive, 0.0, leaf_weights))
        size = leaf_scores.size
        first = np.ones(size, dtype=bool)
        first[1:] = leaf_bins[1:] != leaf_bins[:-1]
        start = np.maximum.accumulate(np.where(first, np.arange(size), 0))
        tp_base = np.where(start > 0, tp_sum[start - 1], 0.0)
        fp_base = np.where(start > 0, fp_sum[start - 1], 0.0)
        tp = (tp_to[leaf_bins] - positive_sum[leaf_bins]) + (tp_sum - tp_base)
        fp = (fp_to[leaf_bins] - negative[leaf_bins]) + (fp_sum - fp_base)
        last = np.ones(size, dtype=bool)
        last[:-1] = first[1:]
        is_cut = last.copy()
        is_cut[:-1] |= leaf_scores[:-1] != leaf_scores[1:]
        youden = np.where(is_cut, _youden_of(tp, fp, total_positive, total_negative), -np.inf)
        best = int(np.argmax(youden))
        second = np.max(youden, initial=-np.inf, where=np.arange(size) != best)
        lower = float(leaf_scores[best + 1]) if not last[best] else lower_than(leaf_bins[best])
        found.offer(column, float(youden[best]), float(leaf_scores[best]), lower, float(tp[best]), float(fp[best]), float(second))
    if edge_bin >= 0 and not inside[edge_bin]:
        value = float(scores[bins == edge_bin].min())
        found.offer(column, float(edge[edge_bin]), value, lower_than(edge_bin), float(tp_to[edge_bin]), float(fp_to[edge_bin]))


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
