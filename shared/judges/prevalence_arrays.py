"""The vectorised building blocks of the prevalence correction (``prevalence.py``).

Everything works on counts, over any leading axes (the coverage study in
``studies/prevalence_prior_shift`` passes thousands of problems at once): the golden-set
row rates and their conditioning (the signed smallest singular value on the sum-zero
subspace, J for two classes), the corrected prevalence with its projection onto the
simplex (``corrected_prevalence_arrays``), Lee et al.'s adjusted interval for two classes
(``lee_interval_arrays``), the smoothed bootstrap over both samples
(``bootstrap_prevalence_arrays``) and the delta-method covariance and interval. The
argument checks shared by ``prevalence.py`` and ``judge_groups.py`` live here too.

NumPy and the standard library only (plus ``binomial.py`` beside it).
"""

import numbers
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from ..stats.distributions import z_value

DEFAULT_MIN_INFORMEDNESS = 0.05
# How the interval of the Rogan-Gladen / adjusted-classify-and-count estimate is made:
# Lee et al.'s adjusted plug-in interval (two classes only), the smoothed bootstrap, the
# delta method. None: for one binary prevalence Lee's interval where it holds, the bootstrap
# where it does not and a blend of the two between (LEE_MIN_INFORMEDNESS_SE,
# LEE_FULL_WEIGHT_SE); the bootstrap for more classes and differences.
PREVALENCE_INTERVAL_METHODS = ("lee", "bootstrap", "delta")

# Lee's interval linearises 1 / J. Where the golden set pins J down poorly - its smoothed
# J is within this many of its own standard errors of 0 - the linearisation fails: with a
# weak judge (J = 0.2) and a golden set of 3-5% positives scored on new data at 30-50%, it
# covered 0.88-0.93 of 95%. Refusing those golden sets is worse (the ones left overestimate
# J: 0.61-0.90); the smoothed bootstrap there instead holds. Measured over the 36 binary
# settings of studies/prevalence_prior_shift (3,000 sets each, a pilot): the lowest coverage
# was 0.910 / 0.927 / 0.932 / 0.940 / 0.941 with a hard switch at 2.5 / 3 / 3.5 / 4 / 4.5 s.e.,
# and at 4 the weak-judge corner read 0.935-0.940 in two runs, at 4.5 0.956. Below this
# the default is the bootstrap alone.
LEE_MIN_INFORMEDNESS_SE = 4.5
# A hard switch at 4.5 s.e. made the interval jump as one golden item moved J~ across it
# (36 golden negatives and 4 positives, all caught, 235 of 5,000 new items flagged: [0,
# 0.034] with 3 false positives, [0, 0.0034] with 4; with the restricted bound alone, Lee's
# [0, 0.073] and the bootstrap's [0, 0.047]). Between LEE_MIN_INFORMEDNESS_SE and this the
# default blends the two intervals' ends, Lee's weight rising linearly from 0 to 1 (J~
# moves by about 0.2 s.e. per golden item there): that example's upper end now moves by at
# most 1.32 times per false positive over 0-12 of them (1.03 across 4.5), no more than the
# bootstrap alone moves there (1.35). The band starts at 4.5 so that the bootstrap stays
# alone where Lee's interval was measured short. studies/prevalence_intervals/results.md:
# lowest coverage 0.943 over its 150 cells (bands 3.5-5.5 and 3-6: 0.942; a hard switch
# 0.942), mean width 0.412 (the bootstrap alone 0.414).
LEE_FULL_WEIGHT_SE = 6.5

# The smoothed bootstrap draws each golden row's rates from Dirichlet(row counts + this)
# and the unlabeled shares from Dirichlet(counts + this): Laplace's add-one, the pseudo-
# counts Lee et al. put on the judge's rates ((x + 1) / (m + 2) is the Beta(x + 1, m - x + 1)
# mean). A rate estimated at 0 or 1 then still varies. Jeffreys' 1/2 was tried first: in a
# pilot run (not kept) it covered about 0.93 where 1 covered 0.956 (a judge with FPR 0.05 on
# 50 golden negatives, new-data prevalence 2-5%); studies/prevalence_prior_shift measures 1.
PSEUDO_COUNT = 1.0

# The delta method's variance of a golden row or unlabeled vector with every item in one
# class: its counts plus this many pseudo-items spread over the classes (the 0.5 the
# branch's other intervals add to a rate at 0 or 1), so that it is not 0.
STUCK_PSEUDO_ITEMS = 0.5

# Informedness (or the smallest singular value) must exceed min_informedness by this much.
THRESHOLD_MARGIN = 1e-12

# Values drawn per bootstrap chunk (resamples x problems x K x K).
CHUNK_VALUES = 1 << 22


# ----------------------------------------------------------------------------------------
# Argument checks
# ----------------------------------------------------------------------------------------


def as_counts(name: str, value: Any, ndim_tail: int, whole: bool = True) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if array.ndim < ndim_tail:
        raise ValueError(f"{name}: expected at least {ndim_tail} dimension(s), found shape {array.shape}.")
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError(f"{name}: counts must be finite and non-negative.")
    if whole and np.any(array != np.round(array)):
        raise ValueError(f"{name}: counts must be whole numbers (the bootstrap draws integer counts).")
    return array


def check_unlabeled(name: str, unlabeled: Any, num_classes: int) -> np.ndarray:
    counts = as_counts(name, unlabeled, 1)
    if counts.shape[-1] != num_classes:
        raise ValueError(f"{name}: expected {num_classes} class counts (one per column of gold_confusion), found shape {counts.shape}.")
    if counts.ndim != 1:
        raise ValueError(f"{name}: expected one vector of K counts.")
    return counts


def check_min_informedness(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= float(value) < 1.0:
        raise ValueError(f"min_informedness: expected a number in [0, 1), found {value!r}.")
    return float(value)


def check_prevalence_interval_method(method: Any, num_classes: int, difference: bool = False) -> Optional[str]:
    """None (the default: for one binary prevalence Lee's interval, the bootstrap or a blend
    of the two, weighted on the data by ``lee_weight``; ``"bootstrap"`` otherwise) or one
    of ``PREVALENCE_INTERVAL_METHODS``; Lee's interval is for one binary prevalence."""
    if method is None:
        return None if num_classes == 2 and not difference else "bootstrap"
    if method not in PREVALENCE_INTERVAL_METHODS:
        raise ValueError(f"method: expected one of {PREVALENCE_INTERVAL_METHODS} or None, found {method!r}.")
    if method == "lee" and (num_classes != 2 or difference):
        what = "a difference of two prevalences" if difference else f"{num_classes} classes"
        raise ValueError(f"method: 'lee' is the interval of one binary prevalence, found {what}; "
                         "expected 'bootstrap' or 'delta'.")
    return method


# ----------------------------------------------------------------------------------------
# Building blocks (vectorised over leading axes)
# ----------------------------------------------------------------------------------------


def project_to_simplex(values: Any) -> np.ndarray:
    """Euclidean projection of each vector (last axis) onto the probability simplex.

    The sort-based algorithm (Held, Wolfe & Crowder 1974; Duchi et al. 2008): the closest
    point ``max(v - theta, 0)`` with ``theta`` chosen so that it sums to 1. For a vector
    that already sums to 1 in two dimensions this is clipping into [0, 1].

    Examples
    --------
    >>> project_to_simplex([0.5, 0.7, -0.2]).round(6).tolist()
    [0.4, 0.6, 0.0]
    >>> project_to_simplex([-0.1, 1.1]).tolist()
    [0.0, 1.0]
    """
    values = np.asarray(values, dtype=np.float64)
    num = values.shape[-1]
    ordered = -np.sort(-values, axis=-1)
    cumulative = np.cumsum(ordered, axis=-1) - 1.0
    index = np.arange(1, num + 1)
    positive = ordered - cumulative / index > 0
    rho = num - 1 - np.argmax(positive[..., ::-1], axis=-1)  # last index where positive
    theta = np.take_along_axis(cumulative, rho[..., None], axis=-1) / (rho[..., None] + 1.0)
    return np.maximum(values - theta, 0.0)


def row_rates(confusion: Any) -> Tuple[np.ndarray, np.ndarray]:
    """``(C, support)``: row-normalised confusion (0 rows where a class has no reference)."""
    confusion = np.asarray(confusion, dtype=np.float64)
    support = confusion.sum(axis=-1)
    return confusion / np.where(support > 0, support, 1.0)[..., None], support


def invertibility(rates: Any) -> np.ndarray:
    """Smallest singular value of ``C^T`` on the sum-zero subspace (``|J|`` when K = 2).

    ``1 / invertibility`` is the worst-case factor by which the correction amplifies an
    error in the measured shares ``q``.

    Examples
    --------
    >>> round(float(invertibility([[0.9, 0.1], [0.2, 0.8]])), 12)  # TPR 0.8, FPR 0.1
    0.7
    """
    return np.abs(conditioning(rates))


def conditioning(rates: Any) -> np.ndarray:
    """The signed smallest singular value of ``C^T`` on the sum-zero subspace: J when K = 2.

    Its size is ``invertibility``; its sign is that of the determinant of ``C^T`` restricted
    to the sum-zero directions (the same in any orthonormal basis of them), so it changes
    sign only by passing through a judge that cannot be inverted. For two classes it is
    Youden's J = TPR - FPR exactly (computed as such). A judge with two classes' labels
    swapped has a negative value and is inverted like any other (the correction only
    needs the inversion to be well conditioned).

    Examples
    --------
    >>> round(float(conditioning([[0.9, 0.1], [0.2, 0.8]])), 12)  # TPR 0.8, FPR 0.1: J
    0.7
    >>> swapped = [[0.9, 0.05, 0.05], [0.1, 0.1, 0.8], [0.1, 0.8, 0.1]]  # classes 1 and 2 swapped
    >>> round(float(conditioning(swapped)), 4)
    -0.7
    """
    rates = np.asarray(rates, dtype=np.float64)
    if rates.shape[-1] == 2:
        return rates[..., 1, 1] - rates[..., 0, 1]
    # An orthonormal basis of the vectors summing to 0.
    basis, _ = np.linalg.qr(np.eye(rates.shape[-1])[:, :-1] - 1.0 / rates.shape[-1])
    reduced = basis.T @ np.swapaxes(rates, -1, -2) @ basis
    smallest = np.linalg.svd(reduced, compute_uv=False)[..., -1]
    return np.where(np.linalg.det(reduced) < 0, -smallest, smallest)


def corrected_prevalence_arrays(
    gold_confusion: Any, unlabeled_predicted: Any, min_informedness: float = DEFAULT_MIN_INFORMEDNESS
) -> Dict[str, np.ndarray]:
    """Vectorised point estimate: arrays over the leading axes of ``(..., K, K)`` and ``(..., K)``.

    Returns ``raw`` (the unconstrained solution, ``(..., K)``), ``estimate`` (projected onto
    the simplex), ``clipped`` (bool), ``measured`` (q), ``strength`` (J or sigma) and
    ``defined`` (bool). NaN where not defined.
    """
    rates, support = row_rates(gold_confusion)
    unlabeled = np.asarray(unlabeled_predicted, dtype=np.float64)
    total = unlabeled.sum(axis=-1)
    measured = unlabeled / np.where(total > 0, total, 1.0)[..., None]
    strength = conditioning(rates)  # signed: J for two classes
    # The one rule for any K, |strength| > min_informedness, with a rounding margin: J = 0.55 - 0.5
    # computes as 0.05000000000000004, and is at the threshold.
    defined = (support > 0).all(axis=-1) & (np.abs(strength) > min_informedness + THRESHOLD_MARGIN) & (total > 0)
    # The unconstrained solution of C^T p = q (solved on the identity where not defined, then NaN).
    safe = np.where(defined[..., None, None], np.swapaxes(rates, -1, -2), np.eye(rates.shape[-1]))
    raw = np.where(defined[..., None], np.linalg.solve(safe, measured[..., None])[..., 0], np.nan)
    estimate = np.where(defined[..., None], project_to_simplex(np.where(defined[..., None], raw, 0.5)), np.nan)
    clipped = defined & (np.abs(estimate - raw).max(axis=-1, initial=0.0) > 1e-12)
    return {"raw": raw, "estimate": estimate, "clipped": clipped, "measured": measured, "strength": strength, "defined": defined}


def bounded_interval_arrays(estimate: Any, low: Any, high: Any, floor: float, ceiling: float):
    """An interval of a parameter restricted to ``[floor, ceiling]`` from an unrestricted
    estimate and interval (Lee's or the bootstrap's, before clipping), vectorised.

    Where the unrestricted ``estimate`` lies inside the bounds the interval is ``[low,
    high]`` clipped to them. Where it lies below ``floor`` clipping is not enough: the
    whole interval can fall below the bound and clip to ``[floor, floor]``, a certainty the
    data do not give (the estimate is clipped to the bound because the noise put it
    outside, not because the parameter is known). There the interval is that of the
    likelihood ratio of a normal mean restricted to the bounds, with the restricted
    estimate ``floor`` (the ordering of Feldman & Cousins 1998, with the fixed chi-square
    cut-off): the values ``m >= floor`` with ``(m - x)^2 - (floor - x)^2 <= d^2``, ``d =
    high - x`` the interval's upper half-width, i.e. ``[floor, x + sqrt((floor - x)^2 +
    d^2)]``. Its upper end is above ``floor`` whenever ``d > 0``, at least ``high``, falls
    as ``x`` moves away from the bound, and equals ``high`` at ``x = floor`` (so the
    interval moves continuously with the data). Above ``ceiling`` the mirror image.

    Examples
    --------
    An estimate of -0.1 with the unrestricted interval [-0.3, 0.1]: [0, 0.1] would be the
    clipped one; the restricted one reaches sqrt(0.1^2 + 0.2^2) - 0.1:

    >>> low, high = bounded_interval_arrays(-0.1, -0.3, 0.1, 0.0, 1.0)
    >>> float(low), round(float(high), 6)
    (0.0, 0.123607)

    The whole unrestricted interval below 0: clipped it would be [0, 0].

    >>> low, high = bounded_interval_arrays(-0.2, -0.3, -0.1, 0.0, 1.0)
    >>> float(low), round(float(high), 6)
    (0.0, 0.023607)
    """
    estimate, low, high = (np.asarray(value, dtype=np.float64) for value in (estimate, low, high))
    below, above = estimate < floor, estimate > ceiling
    reach_up = estimate + np.hypot(floor - estimate, np.maximum(high - estimate, 0.0))
    reach_down = estimate - np.hypot(estimate - ceiling, np.maximum(estimate - low, 0.0))
    new_high = np.where(below, np.maximum(high, reach_up), np.where(above, ceiling, high))
    new_low = np.where(above, np.minimum(low, reach_down), np.where(below, floor, low))
    return np.clip(new_low, floor, ceiling), np.clip(new_high, floor, ceiling)


def lee_interval_arrays(gold_confusion: Any, unlabeled_predicted: Any, confidence_level: float, restricted: bool = True):
    """Lee et al.'s (2025) adjusted interval of a binary prevalence (class 1), vectorised.

    Lee, Zeng, Jeong, Sohn & Lee, "How to Correctly Report LLM-as-a-Judge Evaluations"
    (arXiv 2511.21140), as their reference code ``confidence_interval(p, q0, q1, n, m0, m1,
    alpha)`` (package ``llm_judge_reporting``) computes it, in this module's terms: the
    judged share ``p`` = q of the ``n`` = N unlabeled items, specificity ``q0`` = TNR on the
    ``m0`` golden negatives, sensitivity ``q1`` = TPR on the ``m1`` golden positives.

    1. Smoothing: the share gets z^2/2 pseudo-successes out of z^2 (Agresti-Coull), each
       rate one success and one failure: ``p~ = (N q + z^2/2) / (N + z^2)``,
       ``q0~ = (m0 q0 + 1) / (m0 + 2)``, ``q1~ = (m1 q1 + 1) / (m1 + 2)``, with the sizes
       ``N + z^2``, ``m0 + 2``, ``m1 + 2``.
    2. The plug-in estimate ``t = (p~ + q0~ - 1) / (q0~ + q1~ - 1)`` and the shift
       ``d = 2 z^2 [t q1~(1 - q1~) / (m1 + 2) - (1 - t) q0~(1 - q0~) / (m0 + 2)]``.
    3. The delta-method standard error over both samples,
       ``se = sqrt(p~(1-p~)/(N+z^2) + (1-t)^2 q0~(1-q0~)/(m0+2) + t^2 q1~(1-q1~)/(m1+2)) / |q0~ + q1~ - 1|``,
       and the interval ``[t + d - z se, t + d + z se]`` clipped to [0, 1] - except where
       its middle ``t + d`` lies outside [0, 1], where the reference code's clipping can give
       [0, 0]: there the bound of the restricted parameter (``bounded_interval_arrays``).

    The reference code divides by ``q0~ + q1~ - 1`` and requires it positive; here its
    size is used, so a label-swapped judge (J < 0) gets the same interval as the judge
    with its labels swapped back. ``restricted=False``: the reference code's clipping
    everywhere (the former interval, kept for the study). Returns ``(low, high, flipped)`` over the leading axes:
    the interval of class 1's prevalence, and where the smoothing changed the sign of J
    (too few golden items of a class for the pseudo-counts: no interval there).

    Examples
    --------
    Their README's example (p = 0.4, q0 = 0.7, q1 = 0.9, n = 1000, m0 = m1 = 200, 95%):

    >>> low, high, _ = lee_interval_arrays([[140, 60], [20, 180]], [600, 400], 0.95)
    >>> round(float(low), 4), round(float(high), 4)
    (0.0564, 0.2627)
    """
    confusion = np.asarray(gold_confusion, dtype=np.float64)
    unlabeled = np.asarray(unlabeled_predicted, dtype=np.float64)
    level = confidence_level  # one level, or one per problem (broadcast to the leading axes)
    z = np.vectorize(z_value, otypes=[np.float64])(level) if np.ndim(level) else z_value(level)
    total = unlabeled.sum(axis=-1)
    share = (unlabeled[..., 1] + z * z / 2.0) / (total + z * z)
    negatives, positives, specificity, sensitivity, spec_term, sens_term = _lee_rates(confusion)
    informedness = specificity + sensitivity - 1.0
    raw = confusion[..., 1, 1] / np.maximum(positives, 1e-300) - confusion[..., 0, 1] / np.maximum(negatives, 1e-300)
    flipped = (np.sign(informedness) != np.sign(raw)) | (informedness == 0)
    safe = np.where(flipped, 1.0, informedness)
    centre = (share + specificity - 1.0) / safe
    shift = 2.0 * z * z * (centre * sens_term - (1.0 - centre) * spec_term)
    se = np.sqrt(share * (1.0 - share) / (total + z * z) + (1.0 - centre) ** 2 * spec_term + centre**2 * sens_term) / np.abs(safe)
    middle = centre + shift
    if restricted:
        low, high = bounded_interval_arrays(middle, middle - z * se, middle + z * se, 0.0, 1.0)
    else:
        low, high = np.clip(middle - z * se, 0.0, 1.0), np.clip(middle + z * se, 0.0, 1.0)
    return np.where(flipped, np.nan, low), np.where(flipped, np.nan, high), flipped


def lee_holds(gold_confusion: Any) -> np.ndarray:
    """Where Lee et al.'s interval enters the default (``lee_weight`` rises from 0 there): the golden set's smoothed informedness
    ``J~ = q0~ + q1~ - 1`` (``lee_interval_arrays``' pseudo-counts) is at least
    ``LEE_MIN_INFORMEDNESS_SE`` of its standard errors from 0,
    ``se(J~) = sqrt(q0~(1 - q0~) / (m0 + 2) + q1~(1 - q1~) / (m1 + 2))``. Vectorised.

    >>> bool(lee_holds([[140, 60], [20, 180]]))  # Lee's README example: J~ = 0.59, 15 s.e.
    True
    >>> bool(lee_holds([[66, 29], [3, 2]]))  # 5 golden positives, a weak judge: J~ = 0.12
    False
    """
    return smoothed_informedness_in_se(gold_confusion) >= LEE_MIN_INFORMEDNESS_SE


def lee_weight(gold_confusion: Any) -> np.ndarray:
    """Lee's weight in the default binary interval: 0 where its smoothed J is less than
    ``LEE_MIN_INFORMEDNESS_SE`` of its standard errors from 0 (the bootstrap alone), 1 from
    ``LEE_FULL_WEIGHT_SE`` on (Lee's alone), linear in between. Vectorised.

    >>> [round(float(lee_weight(c)), 3) for c in ([[140, 60], [20, 180]], [[33, 3], [0, 4]], [[32, 4], [0, 4]])]
    [1.0, 0.024, 0.0]
    """
    strength = smoothed_informedness_in_se(gold_confusion)
    return np.clip((strength - LEE_MIN_INFORMEDNESS_SE) / (LEE_FULL_WEIGHT_SE - LEE_MIN_INFORMEDNESS_SE), 0.0, 1.0)


def smoothed_informedness_in_se(gold_confusion: Any) -> np.ndarray:
    """``|J~| / se(J~)`` with Lee's pseudo-counts (``lee_holds``' statistic), vectorised.

    >>> round(float(smoothed_informedness_in_se([[140, 60], [20, 180]])), 2)  # J~ = 0.59
    15.31
    """
    _, _, specificity, sensitivity, spec_term, sens_term = _lee_rates(np.asarray(gold_confusion, dtype=np.float64))
    return np.abs(specificity + sensitivity - 1.0) / np.sqrt(spec_term + sens_term)


def _lee_rates(confusion: np.ndarray):
    """Lee's smoothed rates: ``(negatives, positives, q0~, q1~, q0~(1 - q0~) / (m0 + 2), q1~(1 - q1~) / (m1 + 2))``."""
    negatives, positives = confusion[..., 0, :].sum(axis=-1), confusion[..., 1, :].sum(axis=-1)
    specificity = (confusion[..., 0, 0] + 1.0) / (negatives + 2.0)
    sensitivity = (confusion[..., 1, 1] + 1.0) / (positives + 2.0)
    return (negatives, positives, specificity, sensitivity, specificity * (1.0 - specificity) / (negatives + 2.0),
            sensitivity * (1.0 - sensitivity) / (positives + 2.0))


def quantiles(values: np.ndarray, probability: Any) -> np.ndarray:
    """The ``probability`` quantile over the first axis (linear interpolation, NumPy's default):
    one probability for all (``np.quantile``), or one per element of ``values.shape[1:]``
    (broadcast to it: each set of a study at its own level)."""
    if np.ndim(probability) == 0:
        return np.quantile(values, probability, axis=0)
    ordered = np.sort(values, axis=0)
    position = np.broadcast_to((values.shape[0] - 1) * np.asarray(probability, dtype=np.float64), values.shape[1:])
    below = np.floor(position).astype(np.int64)
    above = np.minimum(below + 1, values.shape[0] - 1)
    low, high = (np.take_along_axis(ordered, index[None], axis=0)[0] for index in (below, above))
    return low + (high - low) * (position - below)


def _conservative_percentiles(replicates: np.ndarray, undefined: np.ndarray, level: Any, floor: float, ceiling: float):
    """Percentile interval with undefined replicates at ``floor`` (for low) and ``ceiling`` (for high)."""
    alpha = 1.0 - np.asarray(level, dtype=np.float64) if np.ndim(level) else 1.0 - level
    return (quantiles(np.where(undefined, floor, replicates), alpha / 2.0),
            quantiles(np.where(undefined, ceiling, replicates), 1.0 - alpha / 2.0))


def _dirichlet(rng, counts: np.ndarray, count: int) -> np.ndarray:
    """``count`` draws of shares from Dirichlet(counts + PSEUDO_COUNT) along the last axis."""
    draws = rng.standard_gamma(counts + PSEUDO_COUNT, size=(count,) + counts.shape)
    return draws / draws.sum(axis=-1, keepdims=True)


def joint_replicates(gold_confusion: Any, unlabeled: Any, *, n_resamples: int, seed: Optional[int],
                     min_informedness: float) -> Dict[str, np.ndarray]:
    """The joint smoothed bootstrap: ``raw`` ``(R, ..., M, K)`` (unconstrained estimates, 0 where
    undefined), ``estimate`` (projected), ``undefined`` ``(R, ...)``. ``gold_confusion`` ``(..., K, K)``,
    ``unlabeled`` ``(..., M, K)``. Each chunk draws the golden rows, then each model's shares, in order
    (so one model's replicates, or two models' difference, are ``bootstrap_prevalence_arrays``')."""
    rng = np.random.default_rng(seed)
    confusion = np.asarray(gold_confusion, dtype=np.float64)
    unlabeled = np.asarray(unlabeled, dtype=np.float64)
    chunk = max(1, CHUNK_VALUES // max(1, confusion.size))
    raw = np.empty((n_resamples,) + confusion.shape[:-2] + unlabeled.shape[-2:])
    estimate = np.empty_like(raw)
    undefined = np.empty((n_resamples,) + confusion.shape[:-2], dtype=bool)
    for start in range(0, n_resamples, chunk):
        count = min(chunk, n_resamples - start)
        gold = _dirichlet(rng, confusion, count)
        shares = np.stack([_dirichlet(rng, unlabeled[..., m, :], count) for m in range(unlabeled.shape[-2])], axis=-2)
        found = corrected_prevalence_arrays(gold[..., None, :, :], shares, min_informedness)
        bad = ~found["defined"].all(axis=-1)
        raw[start:start + count] = np.where(bad[..., None, None], 0.0, found["raw"])
        estimate[start:start + count] = np.where(bad[..., None, None], 0.0, found["estimate"])
        undefined[start:start + count] = bad
    return {"raw": raw, "estimate": estimate, "undefined": undefined}


def bootstrap_prevalence_arrays(
    gold_confusion: Any,
    unlabeled_list: Sequence[Any],
    *,
    confidence_level: float,
    n_resamples: int,
    seed: Optional[int],
    min_informedness: float,
    difference: bool = False,
    restricted: bool = True,
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Smoothed percentile bootstrap of the (projected) prevalence, or of the difference of two.

    Each replicate draws every golden row's rates from Dirichlet(row counts + 1) (two
    classes: TPR from Beta(TP + 1, FN + 1), FPR from Beta(FP + 1, TN + 1)) and every
    unlabeled vector's shares from Dirichlet(counts + 1), then recomputes the estimate. A
    multinomial resample of the counts cannot move a rate estimated at 0 or 1 (a golden set
    where the judge caught every positive keeps TPR = 1 in every resample, and the interval
    misses whenever the truth needs a lower TPR); the smoothed draws can. The golden rows
    are drawn once per replicate for every unlabeled vector (the golden set is shared).

    ``unlabeled_list``: one ``(..., K)`` array (prevalence) or two (``difference``: the
    first minus the second, unconstrained, clipped to [-1, 1]). A replicate whose
    conditioning is at most ``min_informedness`` in size has no estimate; it counts at the
    floor for the lower percentile and at the ceiling for the upper. Where the unrestricted
    replicates' median lies outside the bounds (an estimate clipped or projected, or at the
    bound with the replicates beyond it; a difference beyond [-1, 1]) the interval is
    bounded by ``bounded_interval_arrays`` from their median and percentiles: its far end
    stays off the bound, never ``[0, 0]``
    (``restricted=False``: the clipped replicates' percentiles alone, the former interval
    kept for the study). Returns
    ``(low, high, undefined_share)`` with shapes ``(..., K)``, ``(..., K)``, ``(...)``.
    """
    unlabeled = np.stack([np.asarray(u, dtype=np.float64) for u in unlabeled_list], axis=-2)
    drawn = joint_replicates(gold_confusion, unlabeled, n_resamples=n_resamples, seed=seed,
                             min_informedness=min_informedness)
    undefined, share = drawn["undefined"][..., None], drawn["undefined"].mean(axis=0)
    floor = -1.0 if difference else 0.0
    if difference:
        unrestricted = drawn["raw"][..., 0, :] - drawn["raw"][..., 1, :]
        replicates = np.clip(unrestricted, -1.0, 1.0)
    else:
        unrestricted, replicates = drawn["raw"][..., 0, :], drawn["estimate"][..., 0, :]
    if not restricted:
        return (*_conservative_percentiles(replicates, undefined, confidence_level, floor, 1.0), share)
    points = corrected_prevalence_arrays(np.asarray(gold_confusion, dtype=np.float64)[..., None, :, :], unlabeled,
                                         min_informedness)["raw"]
    estimate = points[..., 0, :] - points[..., 1, :] if difference else points[..., 0, :]
    if difference:
        replicates, unrestricted = centred_differences(unrestricted, undefined, estimate)
    return (*replicates_interval(replicates, unrestricted, undefined, estimate, confidence_level, floor), share)


def centred_differences(unrestricted: np.ndarray, undefined: np.ndarray, estimate: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """A difference's replicates moved so that their median is the estimate: ``(clipped, unrestricted)``
    (0 where ``undefined``). The smoothing (Beta(x + 1, n - x + 1) rates) pulls a near-perfect judge's
    replicated J down and so every replicated difference away from 0, by about ``d (1 - J~ / J)``: 0.6 of
    a standard error for a difference of 0.75 with J = 0.95 on 300 golden items; studies/prevalence_models
    measures the centred interval. Undefined replicates are left where they are (counted at the bounds)."""
    middle = np.quantile(np.where(undefined, estimate, unrestricted), 0.5, axis=0)
    moved = np.where(undefined, 0.0, unrestricted - (middle - estimate))
    return np.where(undefined, 0.0, np.clip(moved, -1.0, 1.0)), moved


def replicates_interval(replicates: np.ndarray, unrestricted: np.ndarray, undefined: np.ndarray, estimate: np.ndarray,
                        confidence_level: Any, floor: float) -> Tuple[np.ndarray, np.ndarray]:
    """The smoothed bootstrap's restricted percentile interval from its replicates (``bootstrap_prevalence_arrays``):
    ``replicates`` the bounded values (0 where undefined), ``unrestricted`` the raw ones, ``undefined``
    broadcastable to them, ``estimate`` the raw point estimate; ``confidence_level`` one level, or one per
    element of the leading axes after the first (broadcast)."""
    low, high = _conservative_percentiles(replicates, undefined, confidence_level, floor, 1.0)
    # Replicates centred outside the bounds bound the interval by the restricted rule, from the
    # unrestricted replicates' percentiles: the clipped replicates' would be [0, 0] once nearly
    # all of them fall below 0. The centre is the replicates' median (undefined ones at the
    # estimate), as the percentile interval is centred: the smoothing shifts the replicates
    # (0 of 1,000 flagged with no golden false positive: the estimate is 0, the replicates'
    # FPR averages 1 / (n0 + 2) and their median is below 0).
    raw_low, raw_high = _conservative_percentiles(unrestricted, undefined, confidence_level, floor, 1.0)
    centre = np.quantile(np.where(undefined, estimate, unrestricted), 0.5, axis=0)
    reached_low, reached_high = bounded_interval_arrays(centre, raw_low, raw_high, floor, 1.0)
    low = np.where((estimate < floor) | (centre < floor), floor, np.where(centre > 1.0, np.minimum(low, reached_low), low))
    high = np.where((estimate > 1.0) | (centre > 1.0), 1.0, np.where(centre < floor, np.maximum(high, reached_high), high))
    return low, high


def delta_covariance(gold_confusion: Any, unlabeled_list: Sequence[Any], weights: np.ndarray) -> np.ndarray:
    """Delta-method covariance of ``C^-T (q_1 - q_2 ...)`` style estimators, vectorised.

    ``weights`` ``(..., K)`` multiplies the golden rows' noise: the prevalence itself for
    ``p = C^-T q`` (one unlabeled vector), the difference for ``C^-T (q_a - q_b)`` (two).
    A golden row or an unlabeled vector with every item in one class (a rate or share of 0
    or 1, whose plug-in variance is 0) has its variance taken at its counts plus
    ``STUCK_PSEUDO_ITEMS`` spread evenly over its classes: nothing flagged on the new data
    and no golden false positive would otherwise give [0, 0]. Returns ``(..., K, K)``; NaN
    where ``C`` is singular.
    """
    confusion = np.asarray(gold_confusion, dtype=np.float64)
    rates, support = row_rates(confusion)
    num_classes = rates.shape[-1]
    middle = np.zeros(rates.shape)
    for unlabeled in unlabeled_list:
        unlabeled = np.asarray(unlabeled, dtype=np.float64)
        total = unlabeled.sum(axis=-1)
        middle = middle + _unstuck_covariance(unlabeled, total) / np.where(total > 0, total, np.nan)[..., None, None]
    row_cov = _unstuck_covariance(confusion, support)  # (..., K rows, K, K)
    scaled = (weights**2 / np.where(support > 0, support, np.nan))[..., None, None] * row_cov
    middle = middle + scaled.sum(axis=-3)
    # Singular C (no inverse): solved on the identity, then NaN.
    singular = np.abs(np.linalg.det(rates)) < 1e-12
    safe = np.where(singular[..., None, None], np.eye(num_classes), np.swapaxes(rates, -1, -2))
    inverse_t = np.where(singular[..., None, None], np.nan, np.linalg.inv(safe))
    return inverse_t @ middle @ np.swapaxes(inverse_t, -1, -2)


def _unstuck_covariance(counts: np.ndarray, total: np.ndarray) -> np.ndarray:
    """``diag(s) - s s^T`` (per observation) for the shares ``s`` of ``counts`` (last axis), those of a
    vector with every item in one class taken at its counts plus ``STUCK_PSEUDO_ITEMS`` spread evenly."""
    safe = np.where(total > 0, total, 1.0)[..., None]
    shares = counts / safe
    stuck = (total > 0) & (shares.max(axis=-1) >= 1.0)
    shares = np.where(stuck[..., None], (counts + STUCK_PSEUDO_ITEMS / counts.shape[-1]) / (safe + STUCK_PSEUDO_ITEMS), shares)
    return shares[..., :, None] * np.eye(shares.shape[-1]) - shares[..., :, None] * shares[..., None, :]


def delta_interval_arrays(center: np.ndarray, covariance: np.ndarray, confidence_level: float, bounds: Tuple[float, float]):
    z = z_value(confidence_level)
    se = np.sqrt(np.maximum(np.diagonal(covariance, axis1=-2, axis2=-1), 0.0))
    return np.clip(center - z * se, *bounds), np.clip(center + z * se, *bounds)

