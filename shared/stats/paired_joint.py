"""The joint counts of two systems on one golden set, and the reductions ``comparison.py`` applies to them.

``joint[..., r, a, b]`` counts (or sums the weights of) the items with reference class
r, A's prediction a and B's prediction b. Here: checking it (``check_joint``), the
canonical orientation that makes every comparison exactly antisymmetric under swapping
A and B (``canonical``, ``finish_difference``), the two systems' confusion matrices
(``marginals``), the reference rows' sizes (Kish's effective size under weights), the
mean of recalls and its gradient, the analytic gradient of averaged informedness, and
the stratified bootstrap of the joint counts with its percentile interval.

NumPy and the standard library only (plus ``binomial.py`` beside it).
"""

import numbers
import warnings
from typing import Any

import numpy as np

from .binomial import bootstrap_confusion
from .binomial import effective_sizes

# Items of disagreement added to every reference class (split evenly over its K (K - 1)
# cells where A's and B's labels differ) before the delta-method variance and the
# bootstrap see its shares. Without them a class whose few items all agree has no
# variance: on the grid of studies/paired_comparison the 3-class delta interval covered
# down to 0.46 and the bootstrap down to 0.08 (a class of 2-10 items, 98% agreement); with
# one item every setting held 0.938 or more (studies/paired_comparison/results.md).
DISAGREEMENT_PSEUDO_ITEMS = 1.0

# Bootstrap: resampled joint cells (resamples x problems x K^3) kept in memory at once is
# bounded by binomial.bootstrap_confusion's chunking; this caps the total work.
MAX_BOOTSTRAP_JOINT_CELLS = 2_000_000_000


# ----------------------------------------------------------------------------------------
# Arguments
# ----------------------------------------------------------------------------------------


def check_joint(joint: Any, joint_w2: Any = None):
    """``joint`` as float64 ``(..., K, K, K)`` with finite non-negative cells (and ``joint_w2`` alike).

    Examples
    --------
    >>> check_joint([[[1, 0], [0, 0]], [[0, 0], [0, 2]]])[0].shape
    (2, 2, 2)
    """
    array = np.asarray(joint, dtype=np.float64)
    if array.ndim < 3 or not array.shape[-1] == array.shape[-2] == array.shape[-3] or array.shape[-1] < 1:
        raise ValueError(
            f"joint: expected counts of shape (..., K, K, K) (reference, predictions, baseline_predictions), found shape {array.shape}."
        )
    if not np.isfinite(array).all() or (array < 0).any():
        raise ValueError("joint: expected finite, non-negative counts or weight sums.")
    squared = None
    if joint_w2 is not None:
        squared = np.asarray(joint_w2, dtype=np.float64)
        if squared.shape != array.shape:
            raise ValueError(f"joint_w2: expected the shape of joint {array.shape}, found {squared.shape}.")
        if not np.isfinite(squared).all() or (squared < 0).any():
            raise ValueError("joint_w2: expected finite, non-negative sums of squared weights.")
    return array, squared


def check_difference_zero_division(zero_division: Any) -> Any:
    if isinstance(zero_division, str) and zero_division == "skip":
        return zero_division
    if isinstance(zero_division, numbers.Real) and not isinstance(zero_division, bool) and np.isfinite(zero_division):
        return float(zero_division)
    raise ValueError(f"zero_division: expected 'skip' or a number, found {zero_division!r}.")


def selected_classes(class_mask: Any, num_classes: int) -> np.ndarray:
    if class_mask is None:
        return np.ones(num_classes, dtype=bool)
    mask = np.asarray(class_mask).ravel()
    if mask.size and (mask.dtype.kind not in "iu" or mask.min() < 0 or mask.max() >= num_classes):
        raise ValueError(f"class_mask: expected class indices in [0, {num_classes - 1}], found {mask.tolist()!r}.")
    return np.isin(np.arange(num_classes), mask.astype(np.intp))


# ----------------------------------------------------------------------------------------
# Orientation: exact antisymmetry under swapping A and B
# ----------------------------------------------------------------------------------------


def swapped(joint: np.ndarray) -> np.ndarray:
    """The joint counts with the two systems exchanged (a contiguous copy)."""
    return np.ascontiguousarray(np.swapaxes(joint, -1, -2))


def swap_orientation(joint: np.ndarray):
    """Per problem: +1 (canonical as given), -1 (its transpose is canonical), 0 (symmetric).

    Canonical = lexicographically smaller flattened array. Computing on the canonical
    orientation and flipping back makes every method exactly antisymmetric.
    """
    flat = joint.reshape(joint.shape[:-3] + (-1,))
    flat_swapped = swapped(joint).reshape(flat.shape)
    differs = flat != flat_swapped
    first = np.argmax(differs, axis=-1)[..., None]
    larger = np.take_along_axis(flat, first, axis=-1)[..., 0] > np.take_along_axis(flat_swapped, first, axis=-1)[..., 0]
    return np.where(differs.any(axis=-1), np.where(larger, -1, 1), 0)


def canonical(joint, joint_w2):
    orientation = swap_orientation(joint)
    flip = (orientation < 0)[..., None, None, None]
    oriented = (lambda array: None if array is None else np.where(flip, swapped(array), array))
    return oriented(joint), oriented(joint_w2), orientation


def marginals(joint: np.ndarray):
    """Confusion matrices ``(..., K, K)`` of A and of B, computed by one code path.

    The same path for both keeps a symmetric problem's two values bit-identical.
    """
    return joint.sum(axis=-1), swapped(joint).sum(axis=-1)


def row_sizes(joint, joint_w2):
    """Row totals (weight sums) and the sizes that carry their sampling error (Kish)."""
    totals = joint.sum(axis=(-2, -1))
    return totals, totals if joint_w2 is None else effective_sizes(totals, joint_w2.sum(axis=(-2, -1)))


def smoothed_shares(joint, totals, sizes, pseudo_items=DISAGREEMENT_PSEUDO_ITEMS):
    """Each reference row's cell shares with ``pseudo_items`` items of disagreement added.

    Row r has ``n_r`` (effective) items (``sizes``) and shares ``s_r = joint_r / total_r``;
    the pseudo-items are split evenly over its K (K - 1) cells with a != b:

        (n_r s_r[a, b] + pseudo_items 1[a != b] / (K (K - 1))) / (n_r + pseudo_items).

    Symmetric in a and b, so swapping the systems transposes the result. An empty row
    (or K = 1, where labels cannot differ) keeps its shares (0 for an empty row).

    Examples
    --------
    Five items, all labelled alike by both systems; one pseudo-item split over the two
    cells where the binary labels differ:

    >>> joint = np.array([[[5.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 4.0]]])
    >>> totals = joint.sum(axis=(-2, -1))
    >>> smoothed_shares(joint, totals, totals)[0].tolist()
    [[0.8333333333333334, 0.08333333333333333], [0.08333333333333333, 0.0]]
    """
    num_classes = joint.shape[-1]
    shares = np.where(totals[..., None, None] > 0, joint / np.where(totals > 0, totals, 1.0)[..., None, None], 0.0)
    if num_classes < 2 or pseudo_items == 0:
        return shares
    spread = pseudo_items / (num_classes * (num_classes - 1)) * (1.0 - np.eye(num_classes))
    safe = np.where(sizes > 0, sizes, 1.0)[..., None, None]
    return np.where((sizes > 0)[..., None, None], (safe * shares + spread) / (safe + pseudo_items), shares)


# ----------------------------------------------------------------------------------------
# The stratified bootstrap and the results
# ----------------------------------------------------------------------------------------


def percentile_interval(replicates, confidence_level, symmetric):
    """Percentile interval of bootstrap replicates (NaN ones left out).

    ``symmetric``: problems equal to their transpose, whose replicate distribution is
    symmetric about 0 (a resample and its transpose are equally likely); their interval
    is ``[-h, h]`` with h the ``confidence_level`` quantile of ``|replicate|``, the same
    interval estimated from both halves, and exactly antisymmetric under the swap.
    """
    alpha = 1.0 - confidence_level
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN problems: NaN out
        low, high = np.nanquantile(replicates, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
        half = np.nanquantile(np.abs(replicates), confidence_level, axis=0)
    return np.where(symmetric, -half, low), np.where(symmetric, half, high)


def bootstrap_joint(joint, totals, sizes, statistic, n_resamples, seed, pseudo_items=DISAGREEMENT_PSEUDO_ITEMS):
    """Smoothed stratified bootstrap replicates of ``statistic(joint)``: each reference row
    of the joint counts ~ Multinomial(n_eff_r, smoothed row shares) over its K x K cells
    (``smoothed_shares``: ``pseudo_items`` items of disagreement, so that a class whose
    items all agree can still move), rescaled to the row's (weight) total. Returns
    ``(n_resamples, ...)``."""
    num_classes = joint.shape[-1]
    cells = n_resamples * joint.size
    if cells > MAX_BOOTSTRAP_JOINT_CELLS:
        raise ValueError(
            f"n_resamples: the bootstrap of {num_classes}^3 joint counts draws n_resamples x {joint.size:,} cells; "
            f"{n_resamples:,} resamples exceed the limit of {MAX_BOOTSTRAP_JOINT_CELLS:,}. "
            f"Pass n_resamples <= {max(1, MAX_BOOTSTRAP_JOINT_CELLS // joint.size):,}."
        )
    rates = smoothed_shares(joint, totals, sizes, pseudo_items).reshape(joint.shape[:-2] + (num_classes * num_classes,))
    on_rows = (lambda draws: statistic(draws.reshape(draws.shape[:-1] + (num_classes, num_classes))))
    return bootstrap_confusion(rates, sizes, on_rows, n_resamples, seed, row_totals=totals)


def finish_difference(values, orientation, reason):
    """Flip results computed in the canonical orientation back; floats for one problem."""
    value, baseline, difference, low, high, p_value = values
    flip = orientation < 0
    value, baseline = np.where(flip, baseline, value), np.where(flip, value, baseline)
    difference = np.where(flip, -difference, difference)
    low, high = np.where(flip, -high, low), np.where(flip, -low, high)
    result = {
        "value": value,
        "baseline_value": baseline,
        "difference": difference,
        "difference_ci": [low, high],
        "p_value": p_value,
    }
    if np.ndim(value) == 0:
        result = {key: ([float(x) for x in item] if key == "difference_ci" else float(item)) for key, item in result.items()}
        result["reason"] = reason if (reason is not None and np.isnan(result["difference_ci"][0])) else None
    return result
