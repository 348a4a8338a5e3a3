# GENERATED FILE: do not edit. Vendored copy of shared/comparison.py.
# Edit the source in shared/ and run `python shared/vendor.py` to refresh every module folder.
"""Paired comparison of two systems scored on the same golden set, from joint counts.

Two judges A and B labelled the same items, so their errors are correlated: comparing
their two separate intervals ignores the pairing (too wide, and not a test of the
difference). Everything here works on the *joint* counts

    joint[r, a, b] = number (or weight sum) of items with reference class r,
                     A's prediction a and B's prediction b        shape (K, K, K)

so, like ``intervals.py``, its cost does not grow with the number of items. A golden
set fixes the size of each reference class, so the sampling model is: each reference
row ``joint[r]`` is multinomial over its K x K cells, rows independent. Leading axes of
``joint`` are independent problems (the simulation in ``examples/comparison_study.py``
passes thousands at once); a single problem gives Python floats.

Balanced accuracy (``balanced_accuracy_difference``)
    Per class r the items split into (A right & B right, A only, B only, neither), a
    paired 2 x 2 table, and the class's recall difference gets **Newcombe's (1998)
    method 10** interval: the Wilson interval of each recall, squared and added with
    the correction for their correlation (phi, the sample correlation of the two
    "right" indicators, without the n/2 continuity correction of its numerator that
    some implementations add: that over-covered, 97-100%, at high agreement in our
    simulation). The classes are independent given their sizes, so their
    intervals are combined into the mean by **MOVER** (Zou & Donner 2008), as
    ``intervals.rate_sum_interval`` combines Wilson intervals. ``method="bootstrap"``:
    the percentile interval of a stratified bootstrap of the joint counts (each row
    resampled as Multinomial(row size, row shares) over its K x K cells).
Informedness (``informedness_difference``)
    Binary: J = TPR + TNR - 1 = 2 BA - 1 for every average, so the Newcombe/MOVER
    interval of the balanced-accuracy difference, doubled. Multi-class: a delta-method
    (Wald) interval with the analytic gradient of the average (``"delta"``), or the
    stratified bootstrap.
P-value (both functions, every method)
    Two-sided, from the **stratified McNemar score test**: the difference is linearised
    in the items, and under H0 "A's and B's labels are exchangeable on every item" each
    item's contribution flips sign when A and B are swapped, so its variance is the sum
    of the squared antisymmetric contributions (no estimate of the mean is subtracted,
    as in McNemar's test). For balanced accuracy this is exactly the stratified McNemar
    statistic ``sum_r (b_r - c_r) / n_r`` over ``sqrt(sum_r (b_r + c_r) / n_r^2)`` (b, c =
    the discordant counts of class r, both divided by the number of classes averaged),
    referred to the standard normal, without continuity correction (which Fagerland,
    Lydersen & Laake 2013 found close to nominal for McNemar's test). Where that
    normal approximation is too discrete (unweighted counts whose discordant items
    allow at most ``EXACT_TEST_MAX_OUTCOMES`` outcomes, e.g. a few disagreements in a
    small class) the exact conditional distribution is enumerated and the **mid-p**
    is reported (``stratified_mcnemar_mid_p``; for one class, the mid-p McNemar test
    that Fagerland et al. also recommend). Multi-class informedness: the normal
    version only. It tests the
    per-class null (equal recalls in every class), which implies the stated null of
    equal balanced accuracy; where recalls differ in opposite directions it is
    conservative (the score variance is at least the true one). Measured type-I error
    at alpha 0.05: ``examples/comparison_study.md``. The p-value is not the dual of the
    interval: in a near-boundary case one can exclude 0 while the other is above 0.05.

Exact symmetry: swapping A and B (``joint.swapaxes(-1, -2)``) flips the sign of the
difference and of its interval bit for bit, and leaves the p-value unchanged, for every
method and seed: each problem is first put in a canonical orientation (the smaller of
``joint`` and its transpose, compared lexicographically), computed there, and flipped
back. A problem equal to its transpose (e.g. identical systems) has difference 0 and an
interval symmetric about 0; identical systems get p-value 1 (no discordant item). Their
Newcombe interval is not exactly [0, 0] but close (phi = 1 cancels all but the asymmetry
of the Wilson limits: a small difference in the population cannot be excluded); their
bootstrap and delta-method intervals are [0, 0] (every resample agrees; no variance).

Sample weights: ``joint`` holds weight sums and ``joint_w2`` the sums of squared weights
per cell; each reference row then has Kish's effective size ``(sum w)^2 / sum w^2``
(``intervals.effective_sizes``), used as the Wilson trials, the delta-method and score
variances' sample size and the bootstrap's draw size, with the same caveats as in
``intervals.py`` (importance weights, not frequency weights).

NumPy and the standard library only (plus ``intervals.py`` beside it), so it works
vendored next to a metric script and imported on its own.
"""

import functools
import math
import numbers
import warnings
from typing import Any, Optional

import numpy as np

try:  # vendored next to a metric script
    from .intervals import INFORMEDNESS_AVERAGES
    from .intervals import bootstrap_confusion
    from .intervals import check_confidence_level
    from .intervals import check_n_resamples
    from .intervals import check_seed
    from .intervals import effective_sizes
    from .intervals import informedness_average
    from .intervals import wilson_interval
    from .intervals import z_value
except ImportError:  # shared/ on the import path
    from intervals import INFORMEDNESS_AVERAGES
    from intervals import bootstrap_confusion
    from intervals import check_confidence_level
    from intervals import check_n_resamples
    from intervals import check_seed
    from intervals import effective_sizes
    from intervals import informedness_average
    from intervals import wilson_interval
    from intervals import z_value

BALANCED_ACCURACY_METHODS = ("newcombe", "bootstrap")
INFORMEDNESS_METHODS = ("newcombe", "delta", "bootstrap")

# Bootstrap: resampled joint cells (resamples x problems x K^3) kept in memory at once is
# bounded by intervals.bootstrap_confusion's chunking; this caps the total work.
MAX_BOOTSTRAP_JOINT_CELLS = 2_000_000_000

# The exact (mid-p) stratified McNemar test enumerates at most this many outcomes of the
# discordant counts; above it the normal approximation is used (it is then accurate).
EXACT_TEST_MAX_OUTCOMES = 5_000


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


def _check_zero_division(zero_division: Any) -> Any:
    if isinstance(zero_division, str) and zero_division == "skip":
        return zero_division
    if isinstance(zero_division, numbers.Real) and not isinstance(zero_division, bool) and np.isfinite(zero_division):
        return float(zero_division)
    raise ValueError(f"zero_division: expected 'skip' or a number, found {zero_division!r}.")


def _selected(class_mask: Any, num_classes: int) -> np.ndarray:
    selected = np.zeros(num_classes, dtype=bool)
    if class_mask is None:
        selected[:] = True
        return selected
    mask = np.asarray(class_mask).ravel()
    if mask.size and (mask.dtype.kind not in "iu" or mask.min() < 0 or mask.max() >= num_classes):
        raise ValueError(f"class_mask: expected class indices in [0, {num_classes - 1}], found {mask.tolist()!r}.")
    selected[mask.astype(np.intp)] = True
    return selected


# ----------------------------------------------------------------------------------------
# Orientation: exact antisymmetry under swapping A and B
# ----------------------------------------------------------------------------------------


def swapped(joint: np.ndarray) -> np.ndarray:
    """The joint counts with the two systems exchanged (a contiguous copy)."""
    return np.ascontiguousarray(np.swapaxes(joint, -1, -2))


def _orientation(joint: np.ndarray):
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


def _canonical(joint, joint_w2):
    orientation = _orientation(joint)
    flip = (orientation < 0)[..., None, None, None]
    joint = np.where(flip, swapped(joint), joint)
    if joint_w2 is not None:
        joint_w2 = np.where(flip, swapped(joint_w2), joint_w2)
    return joint, joint_w2, orientation


def _marginals(joint: np.ndarray):
    """Confusion matrices ``(..., K, K)`` of A and of B, computed by one code path.

    The same path for both keeps a symmetric problem's two values bit-identical.
    """
    return joint.sum(axis=-1), swapped(joint).sum(axis=-1)


def _row_sizes(joint, joint_w2):
    """Row totals (weight sums) and the sizes that carry their sampling error (Kish)."""
    totals = joint.sum(axis=(-2, -1))
    if joint_w2 is None:
        return totals, totals
    return totals, effective_sizes(totals, joint_w2.sum(axis=(-2, -1)))


# ----------------------------------------------------------------------------------------
# Newcombe's method 10 for a difference of paired proportions
# ----------------------------------------------------------------------------------------


def _square_and_add(x, y, phi):
    # Written so that swapping x and y gives the same bits (a symmetric problem then has
    # an interval exactly symmetric about 0).
    return np.sqrt(np.maximum(x * x + y * y - 2.0 * phi * (x * y), 0.0))


def newcombe_paired_interval(both, first_only, second_only, neither, *, confidence_level=0.95, effective_size=None):
    """Newcombe's (1998) method 10 interval for ``p1 - p2`` from a paired 2 x 2 table.

    ``p1 = (both + first_only) / n``, ``p2 = (both + second_only) / n``. Each margin gets a
    Wilson interval ``[l_i, u_i]``; with the sample correlation ``phi`` of the two
    indicators (``(both * neither - first_only * second_only) / sqrt(product of the four
    margins)``, 0 when a margin is empty),

        low  = d - sqrt((p1 - l1)^2 - 2 phi (p1 - l1)(u2 - p2) + (u2 - p2)^2)
        high = d + sqrt((p2 - l2)^2 - 2 phi (p2 - l2)(u1 - p1) + (u1 - p1)^2).

    Vectorised over any shape. Counts may be weight sums; ``effective_size`` (Kish) is
    then the n of the Wilson intervals. NaN where n is 0.
    Returns ``(difference, low, high)``.

    Examples
    --------
    A table (59, 6 / 16, 80): d = (6 - 16) / 161. With positively correlated margins the
    interval is narrower than the unpaired square-and-add of the same two Wilson intervals:

    >>> d, low, high = newcombe_paired_interval(59, 6, 16, 80)
    >>> bool(np.isclose(d, (6 - 16) / 161)), bool(low < d < high)
    (True, True)
    >>> l1, u1 = wilson_interval(65, 161, 0.95); l2, u2 = wilson_interval(75, 161, 0.95)
    >>> bool(high - low < np.hypot(65 / 161 - l1, u2 - 75 / 161) + np.hypot(75 / 161 - l2, u1 - 65 / 161))
    True
    """
    both, first_only, second_only, neither = (np.asarray(a, dtype=np.float64) for a in (both, first_only, second_only, neither))
    total = both + first_only + second_only + neither
    size = total if effective_size is None else np.asarray(effective_size, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p1 = (both + first_only) / total
        p2 = (both + second_only) / total
        # The sample correlation of the two margins, from shares (weighted counts mix
        # with their effective size). No continuity correction of its numerator: the
        # n/2 correction of some implementations pushed the coverage to 97-100% when the
        # judges agree on 85-95% of the items (examples/comparison_study.py).
        s11, s10, s01, s00 = (a / total for a in (both, first_only, second_only, neither))
        numerator = s11 * s00 - s10 * s01
        margins = p1 * (1.0 - p1) * p2 * (1.0 - p2)
        phi = np.where(margins > 0, numerator / np.sqrt(np.where(margins > 0, margins, 1.0)), 0.0)
    l1, u1 = wilson_interval(p1 * size, size, confidence_level)
    l2, u2 = wilson_interval(p2 * size, size, confidence_level)
    difference = p1 - p2
    below = _square_and_add(p1 - l1, u2 - p2, phi)
    above = _square_and_add(p2 - l2, u1 - p1, phi)
    return difference, difference - below, difference + above


# ----------------------------------------------------------------------------------------
# The score (McNemar-type) test and the delta method, from per-cell gradients
# ----------------------------------------------------------------------------------------


def _cell_gradient(grad_a, grad_b):
    """d(difference)/d joint[r, a, b] = dA/dC_A[r, a] - dB/dC_B[r, b]."""
    return grad_a[..., :, :, None] - grad_b[..., :, None, :]


def _variance_terms(joint, totals, sizes, grad_a, grad_b):
    """(delta-method variance, score variance under exchangeability) of the difference.

    Row r's cell shares ``p`` have covariance ``(diag p - p p^T) / n_eff_r``, and a change
    of share moves the counts by ``total_r`` times it: the delta variance is
    ``sum_r total_r^2 / n_eff_r * Var_p(G)``. Under H0 (A and B exchangeable on each item)
    an item's linearised contribution is the antisymmetric part of G, with mean 0: the
    score variance is ``sum_r total_r^2 / n_eff_r * E_p(G_anti^2)``.
    """
    gradient = _cell_gradient(grad_a, grad_b)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = np.where(totals[..., None, None] > 0, joint / np.where(totals > 0, totals, 1.0)[..., None, None], 0.0)
        scale = np.where(sizes > 0, totals**2 / np.where(sizes > 0, sizes, 1.0), 0.0)
    mean = (shares * gradient).sum(axis=(-2, -1))
    delta = (scale * np.maximum((shares * gradient**2).sum(axis=(-2, -1)) - mean**2, 0.0)).sum(axis=-1)
    antisymmetric = 0.5 * (gradient - np.swapaxes(gradient, -1, -2))
    score = (scale * (shares * antisymmetric**2).sum(axis=(-2, -1))).sum(axis=-1)
    return delta, score


def _score_p_value(difference, variance):
    """Two-sided normal p-value of ``difference / sqrt(variance)``; 1 when nothing varies."""
    difference = np.asarray(difference, dtype=np.float64)
    variance = np.asarray(variance, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.abs(difference) / np.sqrt(np.where(variance > 0, variance, 1.0))
    # 2 * (1 - Phi(|z|)) = erfc(|z| / sqrt 2), accurate in the far tail (no scipy here).
    p_value = np.minimum(_erfc(z / math.sqrt(2.0)), 1.0)
    # No discordant item: the difference is 0 exactly and no data speak against H0.
    p_value = np.where(variance > 0, p_value, np.where(difference == 0, 1.0, 0.0))
    return np.where(np.isnan(difference), np.nan, p_value)


_erfc = np.vectorize(lambda value: math.erfc(value) if math.isfinite(value) else math.nan, otypes=[float])


def _binomial_half_pmf(trials: int) -> np.ndarray:
    """P(Binomial(trials, 1/2) = k), k = 0..trials (log-gamma: no overflow)."""
    k = np.arange(trials + 1)
    log_choose = math.lgamma(trials + 1) - np.array([math.lgamma(x + 1) + math.lgamma(trials - x + 1) for x in k])
    return np.exp(log_choose - trials * math.log(2.0))


def stratified_mcnemar_mid_p(coefficients, first_only, second_only) -> float:
    """Exact two-sided mid-p of the stratified McNemar statistic ``sum_r c_r (b_r - d_r)``.

    Conditionally on each stratum's discordant count ``m_r = b_r + d_r`` (integers), under
    H0 ``b_r ~ Binomial(m_r, 1/2)`` independently; the statistic's exact distribution is
    enumerated (values merged at 1e-9 of their scale) and the two-sided mid-p is
    ``2 (P(T > |t|) + P(T = |t|) / 2)`` (capped at 1). With no discordant item it is 1 (the conditional
    distribution is a point mass: no evidence either way).

    Examples
    --------
    One stratum, 9 items where only A is right and 1 where only B is: the mid-p McNemar
    test, ``2 * (P(X >= 9) - P(X = 9) / 2)`` for X ~ Binomial(10, 1/2) = 2 * (11 - 5) / 1024.

    >>> bool(np.isclose(stratified_mcnemar_mid_p([1.0], [9], [1]), 2 * (11 - 5) / 1024))
    True
    """
    coefficients = np.asarray(coefficients, dtype=np.float64).ravel()
    first_only = np.asarray(first_only).ravel().astype(np.int64)
    second_only = np.asarray(second_only).ravel().astype(np.int64)
    # Cached: in a simulation or a sweep the same small tables come back again and again.
    return _mid_p_cached(tuple(coefficients.tolist()), tuple(first_only.tolist()), tuple(second_only.tolist()))


@functools.lru_cache(maxsize=65_536)
def _mid_p_cached(coefficients, first_only, second_only):
    coefficients, first_only, second_only = np.array(coefficients), np.array(first_only), np.array(second_only)
    discordant = first_only + second_only
    used = (coefficients != 0) & (discordant > 0)
    if not used.any():
        return 1.0
    scale = float((np.abs(coefficients[used]) * discordant[used]).sum())
    values, probabilities = np.zeros(1), np.ones(1)
    for coefficient, trials in zip(coefficients[used], discordant[used]):
        steps = coefficient * (2.0 * np.arange(trials + 1) - trials)
        values = (values[:, None] + steps[None, :]).ravel()
        probabilities = (probabilities[:, None] * _binomial_half_pmf(int(trials))[None, :]).ravel()
        # Merge equal values (e.g. symmetric outcomes) so the support stays small.
        keys = np.rint(values / scale * 1e9).astype(np.int64)
        keys, inverse = np.unique(keys, return_inverse=True)
        probabilities = np.bincount(inverse.ravel(), weights=probabilities)
        values = keys * (scale / 1e9)
    observed = float((coefficients[used] * (first_only[used] - second_only[used])).sum())
    observed_key = abs(int(np.rint(observed / scale * 1e9)))
    # The null distribution is symmetric about 0: twice the one-sided mid-p, the usual
    # mid-p McNemar 2 P(X <= min(b, c)) - P(X = min(b, c)) for one stratum (1 when b = c).
    one_sided = probabilities[keys > observed_key].sum() + 0.5 * probabilities[keys == observed_key].sum()
    return float(min(1.0, 2.0 * one_sided))


def _recall_difference_p_value(first_only, second_only, totals, weights, raw_difference, score_variance, exact):
    """The balanced-accuracy p-value: exact mid-p for small integer discordant counts, else normal.

    ``exact``: unweighted integer counts (Kish sizes equal the counts). The exact test is
    used where the enumeration has at most ``EXACT_TEST_MAX_OUTCOMES`` outcomes; that is
    where the normal approximation is too discrete (few discordant items in a small
    class) and made the test conservative (type-I error down to 1-2% at alpha 0.05).
    """
    p_value = np.array(_score_p_value(raw_difference, score_variance), dtype=np.float64)
    if not exact:
        return p_value
    discordant = np.where(weights > 0, first_only + second_only, 0.0)
    outcomes = np.prod(discordant + 1.0, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        coefficients = np.where(totals > 0, weights / np.where(totals > 0, totals, 1.0), 0.0)
    small = (outcomes <= EXACT_TEST_MAX_OUTCOMES) & ~np.isnan(raw_difference)
    flat_p = p_value.reshape(-1)
    for index in np.flatnonzero(small.reshape(-1)):
        position = np.unravel_index(index, small.shape)
        flat_p[index] = stratified_mcnemar_mid_p(coefficients[position], first_only[position], second_only[position])
    return flat_p.reshape(p_value.shape)


# ----------------------------------------------------------------------------------------
# Balanced accuracy
# ----------------------------------------------------------------------------------------


def _recall_reduction(support, selected, zero_division):
    """Per-class weights of the mean of recalls, the fixed part, and the classes averaged."""
    has = support > 0
    if zero_division == "skip":
        averaged = selected & has
        fixed = 0.0
    else:
        averaged = np.broadcast_to(selected, support.shape)
        fixed = float(zero_division)
    count = averaged.sum(axis=-1)
    safe = np.maximum(count, 1)
    weights = np.where(averaged & has, 1.0 / safe[..., None], 0.0)
    offset = (averaged & ~has).sum(axis=-1) * fixed / safe
    return weights, offset, count


def _mean_recall(confusion, weights, offset):
    support = confusion.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = np.where(support > 0, np.diagonal(confusion, axis1=-2, axis2=-1) / np.where(support > 0, support, 1.0), 0.0)
    return offset + (weights * recall).sum(axis=-1)


def _adjust(value, count, adjusted):
    if not adjusted:
        return value
    chance = 1.0 / np.maximum(count, 2)
    return (value - chance) / (1.0 - chance)


def _recall_gradient(confusion, weights):
    """d(mean recall)/dC[r, a] = w_r (1[a = r] - recall_r) / n_r."""
    support = confusion.sum(axis=-1)
    num_classes = confusion.shape[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        safe = np.where(support > 0, support, 1.0)
        recall = np.diagonal(confusion, axis1=-2, axis2=-1) / safe
        gradient = (weights / safe)[..., None] * (np.eye(num_classes) - recall[..., None])
    return np.where(support[..., None] > 0, gradient, 0.0)


def _percentile(replicates, confidence_level, symmetric):
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


def _bootstrap_joint(joint, totals, sizes, statistic, n_resamples, seed):
    """Stratified bootstrap replicates of ``statistic(joint)``: each reference row of the
    joint counts ~ Multinomial(n_eff_r, row shares) over its K x K cells, rescaled to
    the row's (weight) total. Returns ``(n_resamples, ...)``."""
    num_classes = joint.shape[-1]
    cells = n_resamples * joint.size
    if cells > MAX_BOOTSTRAP_JOINT_CELLS:
        raise ValueError(
            f"n_resamples: the bootstrap of {num_classes}^3 joint counts draws n_resamples x {joint.size:,} cells; "
            f"{n_resamples:,} resamples exceed the limit of {MAX_BOOTSTRAP_JOINT_CELLS:,}. "
            f"Pass n_resamples <= {max(1, MAX_BOOTSTRAP_JOINT_CELLS // joint.size):,}."
        )
    rows = joint.reshape(joint.shape[:-2] + (num_classes * num_classes,))
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = rows / np.where(totals > 0, totals, 1.0)[..., None]

    def on_rows(draws):
        return statistic(draws.reshape(draws.shape[:-1] + (num_classes, num_classes)))

    return bootstrap_confusion(rates, sizes, on_rows, n_resamples, seed, row_totals=totals)


def _finish(values, orientation, reason):
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


def balanced_accuracy_difference(
    joint: Any,
    *,
    confidence_level: float = 0.95,
    method: str = "newcombe",
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
    class_mask: Any = None,
    adjusted: bool = False,
    zero_division: Any = "skip",
    joint_w2: Any = None,
) -> dict:
    """Balanced accuracy of A and of B on the same items, their difference, its interval and p-value.

    Parameters
    ----------
    joint : array (..., K, K, K)
        ``joint[r, a, b]``: items (or weight sums) with reference r, A's prediction a and
        B's (the baseline's) prediction b. Leading axes are independent problems.
    confidence_level : float in (0, 1)
    method : {"newcombe", "bootstrap"}
        "newcombe": per class Newcombe's method 10 interval for the paired difference of
        recalls, combined over the averaged classes by MOVER. "bootstrap": percentile
        interval of the stratified bootstrap of the joint counts.
    n_resamples, seed : bootstrap resamples and the seed of its generator.
    class_mask : class indices to average over (default all).
    adjusted : bool
        Report ``(BA - 1/m) / (1 - 1/m)`` (m = classes averaged); the difference and its
        interval are scaled by ``1 / (1 - 1/m)``.
    zero_division : "skip" or a number
        A selected class without references is left out ("skip") or takes this value for
        both systems (a convention with no sampling error: it adds 0 to the difference).
    joint_w2 : array like ``joint``, optional
        Sums of squared sample weights per cell (Kish effective sizes per reference row).

    Returns
    -------
    dict
        ``value`` (A), ``baseline_value`` (B), ``difference`` (value - baseline),
        ``difference_ci`` ([low, high]), ``p_value`` (two-sided stratified McNemar score
        test, see the module doc), and for a single problem ``reason`` (why the interval
        is NaN, else None).

    Examples
    --------
    Binary, 100 positives and 900 negatives; A finds 80 positives, B 70 (60 in common);
    both are right on 810 negatives, A alone on 40 and B alone on 20:

    >>> joint = np.zeros((2, 2, 2))
    >>> joint[1] = [[10, 10], [20, 60]]            # positives: [A's prediction, B's prediction]
    >>> joint[0] = [[810, 40], [20, 30]]           # negatives
    >>> result = balanced_accuracy_difference(joint)
    >>> bool(np.isclose(result["difference"], (80 / 100 + 850 / 900) / 2 - (70 / 100 + 830 / 900) / 2))
    True
    >>> low, high = result["difference_ci"]
    >>> bool(0 < low < result["difference"] < high), bool(result["p_value"] < 0.05)
    (True, True)
    """
    confidence_level = check_confidence_level(confidence_level)
    if confidence_level is None:
        raise ValueError("confidence_level: expected a number in (0, 1) such as 0.95, found None.")
    if method not in BALANCED_ACCURACY_METHODS:
        raise ValueError(f"method: expected one of {BALANCED_ACCURACY_METHODS}, found {method!r}.")
    n_resamples = check_n_resamples(n_resamples)
    seed = check_seed(seed)
    zero_division = _check_zero_division(zero_division)
    joint, joint_w2 = check_joint(joint, joint_w2)
    joint, joint_w2, orientation = _canonical(joint, joint_w2)
    num_classes = joint.shape[-1]
    selected = _selected(class_mask, num_classes)

    confusion_a, confusion_b = _marginals(joint)
    totals, sizes = _row_sizes(joint, joint_w2)
    weights, offset, count = _recall_reduction(totals, selected, zero_division)
    raw_value = _mean_recall(confusion_a, weights, offset)
    raw_baseline = _mean_recall(confusion_b, weights, offset)
    undefined = (count == 0) | ((count == 1) & bool(adjusted))
    value = _adjust(raw_value, count, adjusted)
    baseline = _adjust(raw_baseline, count, adjusted)
    difference = value - baseline

    # Score test from the per-cell gradients of the (unadjusted) difference; adjusting
    # scales the difference and its standard error alike.
    _, score_variance = _variance_terms(
        joint, totals, sizes, _recall_gradient(confusion_a, weights), _recall_gradient(confusion_b, weights)
    )
    diagonal = np.arange(num_classes)
    both = joint[..., diagonal, diagonal, diagonal]
    a_right = np.diagonal(confusion_a, axis1=-2, axis2=-1)
    b_right = np.diagonal(confusion_b, axis1=-2, axis2=-1)
    exact = (joint_w2 is None or np.array_equal(joint_w2, joint)) and bool((joint == np.rint(joint)).all())
    p_value = _recall_difference_p_value(
        a_right - both, b_right - both, totals, weights, raw_value - raw_baseline, score_variance, exact
    )

    if method == "newcombe":
        d, low_r, high_r = newcombe_paired_interval(
            both, a_right - both, b_right - both, totals - a_right - b_right + both,
            confidence_level=confidence_level, effective_size=sizes,
        )
        used = weights > 0
        below = np.where(used, weights * (d - low_r), 0.0)
        above = np.where(used, weights * (high_r - d), 0.0)
        raw_difference = raw_value - raw_baseline
        low = raw_difference - np.sqrt((below**2).sum(axis=-1))
        high = raw_difference + np.sqrt((above**2).sum(axis=-1))
    else:

        def statistic(resampled):
            a, b = _marginals(resampled)
            return _mean_recall(a, weights, offset) - _mean_recall(b, weights, offset)

        replicates = _bootstrap_joint(joint, totals, sizes, statistic, n_resamples, seed)
        low, high = _percentile(replicates, confidence_level, orientation == 0)
    low, high = np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)
    if adjusted:
        scale = 1.0 / (1.0 - 1.0 / np.maximum(count, 2))
        low, high = low * scale, high * scale
    nan = np.nan
    value, baseline, difference, low, high, p_value = (
        np.where(undefined, nan, x) for x in (value, baseline, difference, low, high, p_value)
    )
    if class_mask is not None:
        reason = "empty_class_mask_after_filtering"
    else:
        reason = "no_reference_classes"
    if adjusted and np.ndim(count) == 0 and count == 1:
        reason = "adjusted_needs_two_classes"
    return _finish((value, baseline, difference, low, high, p_value), orientation, reason)


# ----------------------------------------------------------------------------------------
# Informedness
# ----------------------------------------------------------------------------------------


def informedness_gradient(confusion: Any, average: str = "bookmaker", class_mask: Any = None, zero_division: Any = "skip") -> np.ndarray:
    """Analytic gradient ``dI/dC[r, a]`` of ``intervals.informedness_average`` (vectorised).

    With ``TPR_c = C[c, c] / s_c``, ``FPR_c = (P_c - C[c, c]) / (N - s_c)`` (s = row sums,
    P = column sums, N = total) and weights ``w_c`` (P_c, 1 or s_c) over the averaged
    classes, ``I = sum_c w_c J_c / W``:

        dI/dC[r, a] = sum_c [w_c dJ_c/dC[r, a] + (J_c - I) dw_c/dC[r, a]] / W,
        dTPR_c/dC[r, a] = 1[r = c] (1[a = c] - TPR_c) / s_c,
        dFPR_c/dC[r, a] = 1[r != c] (1[a = c] - FPR_c) / (N - s_c).

    A class whose J_c is undefined has a fixed value (``zero_division``) or is left out.

    Examples
    --------
    >>> confusion = np.array([[8.0, 2, 0], [1, 6, 3], [0, 0, 5]])
    >>> step = np.zeros((3, 3)); step[1, 2] = 1e-6
    >>> numeric = (informedness_average(confusion + step) - informedness_average(confusion - step)) / 2e-6
    >>> bool(abs(informedness_gradient(confusion)[1, 2] - numeric) < 1e-8)
    True
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    num_classes = confusion.shape[-1]
    eye = np.eye(num_classes)
    diagonal = np.diagonal(confusion, axis1=-2, axis2=-1)
    support = confusion.sum(axis=-1)
    predicted = confusion.sum(axis=-2)
    total = support.sum(axis=-1, keepdims=True)
    others = total - support
    defined_j = (support > 0) & (others > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        safe_support = np.where(support > 0, support, 1.0)
        safe_others = np.where(others > 0, others, 1.0)
        tpr = diagonal / safe_support
        fpr = (predicted - diagonal) / safe_others
    j = np.where(defined_j, tpr - fpr, np.nan)
    if zero_division != "skip":
        j = np.where(np.isnan(j), float(zero_division), j)
    selected = _selected(class_mask, num_classes)
    averaged = selected & ~np.isnan(j)
    weights = {"bookmaker": predicted, "macro": np.ones_like(support), "weighted": support}[average]
    weights = np.where(averaged, weights, 0.0)
    weight_sum = weights.sum(axis=-1)
    safe_sum = np.where(weight_sum > 0, weight_sum, 1.0)
    value = np.where(averaged, weights * np.where(averaged, j, 0.0), 0.0).sum(axis=-1) / safe_sum
    # Axes (..., c, r, a).
    same_row = eye[:, :, None]  # 1[r = c]
    predicted_c = eye[:, None, :]  # 1[a = c]
    d_tpr = same_row * (predicted_c - tpr[..., :, None, None]) / safe_support[..., :, None, None]
    d_fpr = (1.0 - same_row) * (predicted_c - fpr[..., :, None, None]) / safe_others[..., :, None, None]
    d_j = np.where(defined_j[..., :, None, None], d_tpr - d_fpr, 0.0)
    if average == "bookmaker":
        d_weight = np.broadcast_to(predicted_c, d_j.shape)
    elif average == "weighted":
        d_weight = np.broadcast_to(same_row, d_j.shape)
    else:
        d_weight = np.zeros_like(d_j)
    residual = np.where(averaged, np.where(averaged, j, 0.0) - value[..., None], 0.0)
    terms = weights[..., :, None, None] * d_j + np.where(averaged[..., :, None, None], residual[..., :, None, None] * d_weight, 0.0)
    gradient = terms.sum(axis=-3) / safe_sum[..., None, None]
    return np.where((weight_sum > 0)[..., None, None], gradient, 0.0)


def informedness_difference(
    joint: Any,
    *,
    average: str = "bookmaker",
    confidence_level: float = 0.95,
    method: Optional[str] = None,
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
    class_mask: Any = None,
    zero_division: Any = "skip",
    joint_w2: Any = None,
) -> dict:
    """Informedness of A and of B on the same items, their difference, its interval and p-value.

    Parameters
    ----------
    joint : array (..., K, K, K)
        As in ``balanced_accuracy_difference``.
    average : {"bookmaker", "macro", "weighted"}
        As in the informedness module (``intervals.informedness_average``); binary: Youden's
        J for every average.
    method : {"newcombe", "delta", "bootstrap"} or None
        "newcombe" (binary only): J = 2 BA - 1, so twice the Newcombe/MOVER interval of
        the balanced-accuracy difference. "delta": Wald interval with the delta-method
        standard error from the analytic gradient (``informedness_gradient``) and the
        stratified multinomial covariance of the joint rows. "bootstrap": percentile
        interval of the stratified bootstrap of the joint counts. None: "newcombe" for
        K = 2, else "delta".
    confidence_level, n_resamples, seed, class_mask, zero_division, joint_w2
        As in ``balanced_accuracy_difference``; ``zero_division`` is the value of an
        undefined J_c.

    Returns
    -------
    dict
        As ``balanced_accuracy_difference``. The p-value is the stratified McNemar score
        test on the linearised difference (for K = 2, the balanced-accuracy one). NaN
        interval and p-value, reason ``"fewer_than_two_reference_classes"``, when fewer
        than two classes have references.

    Examples
    --------
    >>> joint = np.zeros((2, 2, 2))
    >>> joint[1] = [[10, 10], [20, 60]]
    >>> joint[0] = [[810, 40], [20, 30]]
    >>> result = informedness_difference(joint)  # binary: J = 2 BA - 1
    >>> paired = balanced_accuracy_difference(joint)
    >>> bool(np.allclose(result["difference_ci"], np.multiply(2, paired["difference_ci"])))
    True
    """
    if average not in INFORMEDNESS_AVERAGES:
        raise ValueError(f"average: expected one of {INFORMEDNESS_AVERAGES}, found {average!r}.")
    confidence_level = check_confidence_level(confidence_level)
    if confidence_level is None:
        raise ValueError("confidence_level: expected a number in (0, 1) such as 0.95, found None.")
    n_resamples = check_n_resamples(n_resamples)
    seed = check_seed(seed)
    zero_division = _check_zero_division(zero_division)
    joint, joint_w2 = check_joint(joint, joint_w2)
    num_classes = joint.shape[-1]
    if method is None:
        method = "newcombe" if num_classes == 2 else "delta"
    if method not in INFORMEDNESS_METHODS:
        raise ValueError(f"method: expected one of {INFORMEDNESS_METHODS} or None, found {method!r}.")
    if method == "newcombe" and num_classes != 2:
        raise ValueError(f"method: 'newcombe' needs a binary task (J = 2 BA - 1), found {num_classes} classes; use 'delta' or 'bootstrap'.")
    mask = None if class_mask is None else np.flatnonzero(_selected(class_mask, num_classes))
    joint, joint_w2, orientation = _canonical(joint, joint_w2)

    confusion_a, confusion_b = _marginals(joint)
    totals, sizes = _row_sizes(joint, joint_w2)
    value = informedness_average(confusion_a, average, mask, zero_division)
    baseline = informedness_average(confusion_b, average, mask, zero_division)
    difference = value - baseline
    fewer_than_two = (totals > 0).sum(axis=-1) < 2

    if num_classes == 2:
        # J = 2 BA - 1 for every average (both classes have references): the balanced-
        # accuracy score test, and for "newcombe" its interval, doubled.
        paired = balanced_accuracy_difference(
            joint, confidence_level=confidence_level, method="bootstrap" if method == "bootstrap" else "newcombe",
            n_resamples=n_resamples, seed=seed, joint_w2=joint_w2,
        )
        p_value = np.asarray(paired["p_value"], dtype=np.float64)
        if method != "delta":
            # `joint` is canonical already, so `paired` comes back unflipped.
            low, high = (2.0 * np.asarray(x) for x in paired["difference_ci"])
        else:
            gradient_a = informedness_gradient(confusion_a, average, mask, zero_division)
            gradient_b = informedness_gradient(confusion_b, average, mask, zero_division)
            delta_variance, _ = _variance_terms(joint, totals, sizes, gradient_a, gradient_b)
            half = z_value(confidence_level) * np.sqrt(delta_variance)
            low, high = difference - half, difference + half
    else:
        gradient_a = informedness_gradient(confusion_a, average, mask, zero_division)
        gradient_b = informedness_gradient(confusion_b, average, mask, zero_division)
        delta_variance, score_variance = _variance_terms(joint, totals, sizes, gradient_a, gradient_b)
        p_value = _score_p_value(difference, score_variance)
        if method == "delta":
            half = z_value(confidence_level) * np.sqrt(delta_variance)
            low, high = difference - half, difference + half
        else:

            def statistic(resampled):
                a, b = _marginals(resampled)
                return informedness_average(a, average, mask, zero_division) - informedness_average(b, average, mask, zero_division)

            replicates = _bootstrap_joint(joint, totals, sizes, statistic, n_resamples, seed)
            low, high = _percentile(replicates, confidence_level, orientation == 0)
    low, high = np.clip(low, -2.0, 2.0), np.clip(high, -2.0, 2.0)
    undefined_ci = fewer_than_two | np.isnan(difference)
    low, high, p_value = (np.where(undefined_ci, np.nan, x) for x in (low, high, p_value))
    reason = "fewer_than_two_reference_classes" if (np.ndim(fewer_than_two) == 0 and fewer_than_two) else (
        "empty_class_mask_after_filtering" if class_mask is not None else "no_defined_classes"
    )
    return _finish((value, baseline, difference, low, high, p_value), orientation, reason)
