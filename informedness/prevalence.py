# GENERATED FILE: do not edit. Vendored copy of shared/prevalence.py.
# Edit the source in shared/ and run `python shared/vendor.py` to refresh every module folder.
"""Corrected prevalence from a judge's labels, judge diagnostics per group, golden-set planning.

A judge (a classifier, e.g. an LLM grader) labels new, unlabeled data; the share of items
it puts in each class is *not* the true class prevalence, because it errs. Its golden-set
confusion matrix tells how: with ``C[i, j] = P(judge says j | truth is i)`` (the
row-normalised confusion), the judge's expected predicted shares are ``q = C^T p`` for
true prevalences ``p``. Everything here works on COUNTS:

* ``gold_confusion``: ``K x K`` counts of the judge on the golden set (rows = references,
  columns = the judge's labels);
* ``unlabeled_predicted``: the ``K`` counts of the judge's labels on the unlabeled data.

**Binary** (K = 2, positive class index 1): ``q = FPR + J p`` with ``J = TPR - FPR``
(Youden's J, informedness), so ``p = (q - FPR) / J``: the Rogan-Gladen estimator.
**Multi-class**: adjusted classify and count (QuaPy's ACC): the exact solution of
``C^T p = q`` (``numpy.linalg.solve``; it sums to 1 by itself, since ``C`` 1 = 1), then
the **Euclidean projection onto the probability simplex** (the sort-based algorithm of
Held et al. 1974 / Duchi et al. 2008) when a component is negative. For K = 2 that
projection is clipping ``p`` into [0, 1], so both cases are one estimator. A clipped
estimate is reported (``clipped: True``): the point lies on the boundary because the
noisy rates put it outside.

**When the correction is refused (NaN with a reason).** The correction divides by J
(binary): an error ``e`` in ``q`` becomes ``e / J`` in ``p``. In general the amplification
is ``1 / sigma``, with ``sigma`` the smallest singular value of ``C^T`` on the sum-zero
subspace (the directions in which prevalences can change); ``sigma = |J|`` for K = 2.
``min_informedness`` (default 0.05) is the smallest ``J`` (binary, which must also be
positive) or ``sigma`` (multi-class) accepted. Why 0.05: below it each point of error in
the judge's measured prevalence is amplified at least 20 times, and telling a judge with
J = 0.05 from a guessing one (J = 0) at two standard errors already takes about 800
golden positives and 800 negatives (TPR and FPR near 0.5); a judge that weak measures
nothing useful. Reasons: ``"judge_not_informed"`` (binary J <= 0),
``"informedness_too_small"`` (0 < J <= min_informedness, or sigma <= min_informedness),
``"class_without_golden_references"``, ``"no_unlabeled_predictions"``.

**Intervals** carry both sources of error:

* ``method="bootstrap"`` (default): a parametric bootstrap over both samples. Each golden
  reference row is redrawn as Multinomial(row size, row shares) (class sizes kept, as in
  ``intervals.py``), the unlabeled counts as Multinomial(N, observed shares); the estimate
  (with its projection) is recomputed on each of ``n_resamples`` replicates and the
  **percentile** interval returned. A replicate whose J (or sigma) is at most
  ``min_informedness`` has no estimate; it is counted as "could be anything": at the
  bound's floor for the lower percentile and at its ceiling for the upper one. So a golden
  set that cannot tell the judge from a guesser widens the interval towards [0, 1] instead
  of silently dropping the worst replicates. Their share is returned
  (``undefined_resample_share``).
* ``method="delta"``: the first-order (delta-method) normal interval,
  ``Var(p) = C^-T [Cov(q) + sum_i p_i^2 Cov(C_i.)] C^-1`` (binary:
  ``[q(1-q)/N + p^2 TPR(1-TPR)/n_1 + (1-p)^2 FPR(1-FPR)/n_0] / J^2``), clipped to [0, 1].
  Fast and deterministic, but symmetric: poor near p = 0 with small sets.

Coverage is measured by ``examples/prevalence_study.py`` (see ``examples/prevalence_study.md``).

The core functions are vectorised over leading axes (``corrected_prevalence_arrays``):
the coverage study passes thousands of problems at once. This file depends on NumPy, the
standard library and ``intervals.py`` (the Wilson / Agresti-Coull / MOVER intervals the
modules return, used by the planning functions).
"""

import math
import numbers
from statistics import NormalDist
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

try:  # vendored next to a metric script
    from . import intervals
except ImportError:  # imported on its own (shared/ on sys.path)
    import intervals

DEFAULT_MIN_INFORMEDNESS = 0.05
PREVALENCE_METHODS = ("bootstrap", "delta")
HETEROGENEITY_METHODS = ("chi2", "monte_carlo")

_THRESHOLD_MARGIN = 1e-12

# Values drawn per bootstrap chunk (resamples x problems x K x K).
_CHUNK_VALUES = 1 << 22


# ----------------------------------------------------------------------------------------
# Argument checks
# ----------------------------------------------------------------------------------------


def _as_counts(name: str, value: Any, ndim_tail: int, whole: bool = True) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if array.ndim < ndim_tail:
        raise ValueError(f"{name}: expected at least {ndim_tail} dimension(s), found shape {array.shape}.")
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError(f"{name}: counts must be finite and non-negative.")
    if whole and np.any(array != np.round(array)):
        raise ValueError(f"{name}: counts must be whole numbers (the bootstrap draws integer counts).")
    return array


def _check_confusion(gold_confusion: Any, whole: bool = True) -> np.ndarray:
    # ``whole=False``: a weighted golden set's rows scaled to their effective sizes (the
    # bootstrap then draws each row with its size rounded).
    confusion = _as_counts("gold_confusion", gold_confusion, 2, whole=whole)
    if confusion.shape[-1] != confusion.shape[-2] or confusion.shape[-1] < 2:
        raise ValueError(f"gold_confusion: expected a K x K matrix with K >= 2, found shape {confusion.shape}.")
    return confusion


def _check_unlabeled(name: str, unlabeled: Any, num_classes: int) -> np.ndarray:
    counts = _as_counts(name, unlabeled, 1)
    if counts.shape[-1] != num_classes:
        raise ValueError(f"{name}: expected {num_classes} class counts (one per column of gold_confusion), found shape {counts.shape}.")
    return counts


def _check_min_informedness(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= float(value) < 1.0:
        raise ValueError(f"min_informedness: expected a number in [0, 1), found {value!r}.")
    return float(value)


def _check_method(method: Any) -> str:
    if method not in PREVALENCE_METHODS:
        raise ValueError(f"method: expected one of {PREVALENCE_METHODS}, found {method!r}.")
    return method


def _check_rate(name: str, value: Any, low_open: bool = False, high_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ValueError(f"{name}: expected a number, found {value!r}.")
    value = float(value)
    if (value <= 0.0 if low_open else value < 0.0) or (value >= 1.0 if high_open else value > 1.0):
        raise ValueError(f"{name}: expected a number in {'(' if low_open else '['}0, 1{')' if high_open else ']'}, found {value!r}.")
    return value


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


def _sum_zero_basis(num_classes: int) -> np.ndarray:
    """Orthonormal basis ``(K, K-1)`` of the vectors summing to 0."""
    spanning = np.eye(num_classes)[:, :-1] - 1.0 / num_classes
    basis, _ = np.linalg.qr(spanning)
    return basis


def row_rates(confusion: Any) -> Tuple[np.ndarray, np.ndarray]:
    """``(C, support)``: row-normalised confusion (0 rows where a class has no reference)."""
    confusion = np.asarray(confusion, dtype=np.float64)
    support = confusion.sum(axis=-1)
    rates = confusion / np.where(support > 0, support, 1.0)[..., None]
    return rates, support


def invertibility(rates: Any) -> np.ndarray:
    """Smallest singular value of ``C^T`` on the sum-zero subspace (``|J|`` when K = 2).

    ``1 / invertibility`` is the worst-case factor by which the correction amplifies an
    error in the measured shares ``q``.

    Examples
    --------
    >>> round(float(invertibility([[0.9, 0.1], [0.2, 0.8]])), 12)  # TPR 0.8, FPR 0.1
    0.7
    """
    rates = np.asarray(rates, dtype=np.float64)
    basis = _sum_zero_basis(rates.shape[-1])
    reduced = basis.T @ np.swapaxes(rates, -1, -2) @ basis
    return np.linalg.svd(reduced, compute_uv=False)[..., -1]


def _informed(rates: np.ndarray, support: np.ndarray, min_informedness: float) -> Tuple[np.ndarray, np.ndarray]:
    """``(defined, strength)``: where the correction is allowed, and J (binary) or sigma."""
    if rates.shape[-1] == 2:
        strength = rates[..., 1, 1] - rates[..., 0, 1]
    else:
        strength = invertibility(rates)
    # A rounding margin: J = 0.55 - 0.5 computes as 0.05000000000000004, and is at the threshold.
    defined = (support > 0).all(axis=-1) & (strength > min_informedness + _THRESHOLD_MARGIN)
    return defined, strength


def _solve(rates: np.ndarray, shares: np.ndarray, defined: np.ndarray) -> np.ndarray:
    """Unconstrained solution of ``C^T p = q`` (NaN where not ``defined``)."""
    num_classes = rates.shape[-1]
    safe = np.where(defined[..., None, None], np.swapaxes(rates, -1, -2), np.eye(num_classes))
    solution = np.linalg.solve(safe, shares[..., None])[..., 0]
    return np.where(defined[..., None], solution, np.nan)


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
    defined, strength = _informed(rates, support, min_informedness)
    defined = defined & (total > 0)
    raw = _solve(rates, measured, defined)
    estimate = np.where(defined[..., None], project_to_simplex(np.where(defined[..., None], raw, 0.5)), np.nan)
    clipped = defined & (np.abs(estimate - raw).max(axis=-1, initial=0.0) > 1e-12)
    return {"raw": raw, "estimate": estimate, "clipped": clipped, "measured": measured, "strength": strength, "defined": defined}


def _conservative_percentiles(replicates: np.ndarray, undefined: np.ndarray, level: float, floor: float, ceiling: float):
    """Percentile interval with undefined replicates at ``floor`` (for low) and ``ceiling`` (for high)."""
    alpha = 1.0 - level
    low = np.quantile(np.where(undefined, floor, replicates), alpha / 2.0, axis=0)
    high = np.quantile(np.where(undefined, ceiling, replicates), 1.0 - alpha / 2.0, axis=0)
    return low, high


def _draw(rng, rates, support, unlabeled_list, count):
    """One chunk of parametric-bootstrap draws: golden matrices and each unlabeled vector."""
    sizes = np.rint(support).astype(np.int64)
    gold = rng.multinomial(sizes, rates / np.maximum(rates.sum(axis=-1, keepdims=True), 1.0), size=(count,) + sizes.shape)
    draws = []
    for unlabeled in unlabeled_list:
        total = unlabeled.sum(axis=-1)
        shares = unlabeled / np.where(total > 0, total, 1.0)[..., None]
        shares = shares / np.maximum(shares.sum(axis=-1, keepdims=True), 1.0)
        draws.append(rng.multinomial(total.astype(np.int64), shares, size=(count,) + total.shape))
    return gold, draws


def bootstrap_prevalence_arrays(
    gold_confusion: Any,
    unlabeled_list: Sequence[Any],
    *,
    confidence_level: float,
    n_resamples: int,
    seed: Optional[int],
    min_informedness: float,
    difference: bool = False,
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile bootstrap of the (projected) prevalence, or of the difference of two.

    ``unlabeled_list``: one ``(..., K)`` array (prevalence) or two (``difference``: the
    first minus the second, unconstrained, clipped to [-1, 1]). Each replicate redraws the
    golden rows once and every unlabeled vector. Returns ``(low, high, undefined_share)``
    with shapes ``(..., K)``, ``(..., K)``, ``(...)``.
    """
    rng = np.random.default_rng(seed)
    confusion = np.asarray(gold_confusion, dtype=np.float64)
    rates, support = row_rates(confusion)
    unlabeled_list = [np.asarray(u, dtype=np.float64) for u in unlabeled_list]
    per_resample = max(1, confusion.size)
    chunk = max(1, _CHUNK_VALUES // per_resample)
    batch = confusion.shape[:-2]
    num_classes = confusion.shape[-1]
    replicates = np.empty((n_resamples,) + batch + (num_classes,))
    undefined = np.empty((n_resamples,) + batch, dtype=bool)
    for start in range(0, n_resamples, chunk):
        count = min(chunk, n_resamples - start)
        gold, draws = _draw(rng, rates, support, unlabeled_list, count)
        if difference:
            first = corrected_prevalence_arrays(gold, draws[0], min_informedness)
            second = corrected_prevalence_arrays(gold, draws[1], min_informedness)
            values = np.clip(first["raw"] - second["raw"], -1.0, 1.0)
            bad = ~(first["defined"] & second["defined"])
        else:
            result = corrected_prevalence_arrays(gold, draws[0], min_informedness)
            values, bad = result["estimate"], ~result["defined"]
        replicates[start : start + count] = np.where(bad[..., None], 0.0, values)
        undefined[start : start + count] = bad
    floor = -1.0 if difference else 0.0
    low, high = _conservative_percentiles(replicates, undefined[..., None], confidence_level, floor, 1.0)
    return low, high, undefined.mean(axis=0)


def delta_covariance(gold_confusion: Any, unlabeled_list: Sequence[Any], weights: np.ndarray) -> np.ndarray:
    """Delta-method covariance of ``C^-T (q_1 - q_2 ...)`` style estimators, vectorised.

    ``weights`` ``(..., K)`` multiplies the golden rows' noise: the prevalence itself for
    ``p = C^-T q`` (one unlabeled vector), the difference for ``C^-T (q_a - q_b)`` (two).
    Returns ``(..., K, K)``; NaN where ``C`` is singular.
    """
    rates, support = row_rates(gold_confusion)
    num_classes = rates.shape[-1]
    middle = np.zeros(rates.shape)
    for unlabeled in unlabeled_list:
        unlabeled = np.asarray(unlabeled, dtype=np.float64)
        total = unlabeled.sum(axis=-1)
        shares = unlabeled / np.where(total > 0, total, 1.0)[..., None]
        multinomial = _multinomial_covariance(shares)
        middle = middle + multinomial / np.where(total > 0, total, np.nan)[..., None, None]
    row_cov = _multinomial_covariance(rates)  # (..., K rows, K, K)
    scaled = (weights**2 / np.where(support > 0, support, np.nan))[..., None, None] * row_cov
    middle = middle + scaled.sum(axis=-3)
    # Singular C (no inverse): solved on the identity, then NaN.
    singular = np.abs(np.linalg.det(rates)) < 1e-12
    safe = np.where(singular[..., None, None], np.eye(num_classes), np.swapaxes(rates, -1, -2))
    inverse_t = np.where(singular[..., None, None], np.nan, np.linalg.inv(safe))
    return inverse_t @ middle @ np.swapaxes(inverse_t, -1, -2)


def _multinomial_covariance(shares: np.ndarray) -> np.ndarray:
    """``diag(s) - s s^T`` (per observation) for shares ``(..., K)``."""
    return shares[..., :, None] * np.eye(shares.shape[-1]) - shares[..., :, None] * shares[..., None, :]


def delta_interval_arrays(center: np.ndarray, covariance: np.ndarray, confidence_level: float, bounds: Tuple[float, float]):
    z = intervals.z_value(confidence_level)
    se = np.sqrt(np.maximum(np.diagonal(covariance, axis1=-2, axis2=-1), 0.0))
    return np.clip(center - z * se, *bounds), np.clip(center + z * se, *bounds)


# ----------------------------------------------------------------------------------------
# Public API
# ----------------------------------------------------------------------------------------


def _reason(confusion: np.ndarray, unlabeled_list, strength: float, min_informedness: float) -> Optional[str]:
    if (confusion.sum(axis=-1) <= 0).any():
        return "class_without_golden_references"
    if any(u.sum() <= 0 for u in unlabeled_list):
        return "no_unlabeled_predictions"
    if confusion.shape[-1] == 2 and strength <= 0:
        return "judge_not_informed"
    if strength <= min_informedness + _THRESHOLD_MARGIN:
        return "informedness_too_small"
    return None


def _plain(values: np.ndarray, binary: bool):
    """Binary: the positive class's float; multi-class: a list per class."""
    values = np.asarray(values, dtype=np.float64)
    return float(values[1]) if binary else [float(v) for v in values]


def _plain_interval(low: np.ndarray, high: np.ndarray, binary: bool):
    if binary:
        return [float(low[1]), float(high[1])]
    return [[float(a), float(b)] for a, b in zip(low, high)]


def _summary(confusion: np.ndarray, strength: float) -> Dict[str, Any]:
    return {
        "informedness": float(intervals.informedness_from_confusion(confusion)),
        "min_singular_value": float(abs(strength)) if confusion.shape[-1] == 2 else float(strength),
    }


def corrected_prevalence(
    gold_confusion: Any,
    unlabeled_predicted: Any,
    *,
    confidence_level: Optional[float] = None,
    method: str = "bootstrap",
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
    min_informedness: float = DEFAULT_MIN_INFORMEDNESS,
    weighted_gold: bool = False,
) -> Dict[str, Any]:
    """The true class prevalence of unlabeled data, corrected for the judge's errors.

    ``gold_confusion``: ``K x K`` counts of the judge on the golden set (rows = references,
    columns = the judge's labels; non-integral counts, e.g. a weighted golden set's rows
    scaled to their Kish effective sizes, are accepted with ``weighted_gold=True``: the
    bootstrap draws each row with its size rounded). ``unlabeled_predicted``: the judge's ``K`` label counts on the
    unlabeled data (whole numbers). Binary (K = 2): the prevalence of class 1, Rogan-Gladen
    ``(q - FPR) / J``; multi-class: adjusted classify and count, one value per class (see
    the module doc for the method, the projection, the interval and the threshold).

    Returns a dict of plain Python values: ``estimate`` (float, or list per class; NaN when
    refused), ``reason`` (None, or why NaN), ``clipped`` (the unconstrained solution was
    outside [0, 1] / the simplex and was projected), ``measured_prevalence`` (the judge's
    raw shares q), ``informedness`` (Youden's J; Powers' bookmaker informedness when
    K > 2), ``min_singular_value`` (``|J|`` for K = 2) and, with ``confidence_level``,
    ``interval`` ([low, high], or a list of them per class) and ``method`` (and
    ``undefined_resample_share`` for the bootstrap).

    Examples
    --------
    TPR = 40/50 = 0.8, FPR = 95/950 = 0.1 (J = 0.7); the judge flags 240 of 1,000 new items:

    >>> result = corrected_prevalence([[855, 95], [10, 40]], [760, 240])
    >>> round(result["estimate"], 12), result["clipped"], result["reason"]
    (0.2, False, None)
    >>> corrected_prevalence([[50, 50], [48, 52]], [500, 500])["reason"]  # J = 0.02
    'informedness_too_small'
    """
    confusion = _check_confusion(gold_confusion, whole=not weighted_gold)
    if confusion.ndim != 2:
        raise ValueError("gold_confusion: expected one K x K matrix (use corrected_prevalence_arrays for batches).")
    num_classes = confusion.shape[-1]
    unlabeled = _check_unlabeled("unlabeled_predicted", unlabeled_predicted, num_classes)
    if unlabeled.ndim != 1:
        raise ValueError("unlabeled_predicted: expected one vector of K counts.")
    level = intervals.check_confidence_level(confidence_level)
    method = _check_method(method)
    n_resamples = intervals.check_n_resamples(n_resamples)
    seed = intervals.check_seed(seed)
    min_informedness = _check_min_informedness(min_informedness)
    binary = num_classes == 2

    point = corrected_prevalence_arrays(confusion, unlabeled, min_informedness)
    strength = float(point["strength"])
    reason = _reason(confusion, [unlabeled], strength, min_informedness)
    result = {
        "estimate": _plain(point["estimate"], binary),
        "reason": reason,
        "clipped": bool(point["clipped"]),
        "measured_prevalence": _plain(point["measured"], binary),
        **_summary(confusion, strength),
    }
    if level is None:
        return result
    result["method"] = method
    nan = np.full(num_classes, np.nan)
    if reason is not None:
        result["interval"] = _plain_interval(nan, nan, binary)
        return result
    if method == "bootstrap":
        low, high, share = bootstrap_prevalence_arrays(
            confusion, [unlabeled], confidence_level=level, n_resamples=n_resamples, seed=seed, min_informedness=min_informedness
        )
        result["undefined_resample_share"] = float(share)
    else:
        covariance = delta_covariance(confusion, [unlabeled], point["estimate"])
        low, high = delta_interval_arrays(point["estimate"], covariance, level, (0.0, 1.0))
    result["interval"] = _plain_interval(low, high, binary)
    return result


def corrected_prevalence_difference(
    gold_confusion: Any,
    unlabeled_a: Any,
    unlabeled_b: Any,
    *,
    confidence_level: Optional[float] = None,
    method: str = "bootstrap",
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
    min_informedness: float = DEFAULT_MIN_INFORMEDNESS,
    weighted_gold: bool = False,
) -> Dict[str, Any]:
    """Corrected prevalence of model A's outputs minus model B's, judged by one judge.

    Binary: ``Delta p = Delta q / J`` (the FPR cancels); multi-class:
    ``C^-T (q_a - q_b)`` per class. The difference of the *unconstrained* estimates (so it
    is exactly ``Delta q / J``), clipped to [-1, 1] (``clipped`` reports it). The two
    unlabeled samples are taken as independent; the golden set is shared, so each
    bootstrap replicate redraws it once for both (which is why the FPR's noise cancels and
    the TPR's scales with the difference). ``method="delta"``:
    ``Var = C^-T [Cov(q_a) + Cov(q_b) + sum_i d_i^2 Cov(C_i.)] C^-1``. Keys as in
    ``corrected_prevalence`` (``measured_difference`` is ``q_a - q_b``; ``weighted_gold`` as there).

    Examples
    --------
    >>> result = corrected_prevalence_difference([[855, 95], [10, 40]], [760, 240], [830, 170])
    >>> round(result["estimate"], 12)  # (0.24 - 0.17) / 0.7
    0.1
    """
    confusion = _check_confusion(gold_confusion, whole=not weighted_gold)
    if confusion.ndim != 2:
        raise ValueError("gold_confusion: expected one K x K matrix.")
    num_classes = confusion.shape[-1]
    first = _check_unlabeled("unlabeled_a", unlabeled_a, num_classes)
    second = _check_unlabeled("unlabeled_b", unlabeled_b, num_classes)
    if first.ndim != 1 or second.ndim != 1:
        raise ValueError("unlabeled_a, unlabeled_b: expected one vector of K counts each.")
    level = intervals.check_confidence_level(confidence_level)
    method = _check_method(method)
    n_resamples = intervals.check_n_resamples(n_resamples)
    seed = intervals.check_seed(seed)
    min_informedness = _check_min_informedness(min_informedness)
    binary = num_classes == 2

    point_a = corrected_prevalence_arrays(confusion, first, min_informedness)
    point_b = corrected_prevalence_arrays(confusion, second, min_informedness)
    strength = float(point_a["strength"])
    reason = _reason(confusion, [first, second], strength, min_informedness)
    raw = point_a["raw"] - point_b["raw"]
    estimate = np.clip(raw, -1.0, 1.0)
    result = {
        "estimate": _plain(estimate, binary),
        "reason": reason,
        "clipped": bool(reason is None and np.abs(estimate - raw).max() > 1e-12),
        "measured_difference": _plain(point_a["measured"] - point_b["measured"], binary),
        **_summary(confusion, strength),
    }
    if level is None:
        return result
    result["method"] = method
    nan = np.full(num_classes, np.nan)
    if reason is not None:
        result["interval"] = _plain_interval(nan, nan, binary)
        return result
    if method == "bootstrap":
        low, high, share = bootstrap_prevalence_arrays(
            confusion, [first, second], confidence_level=level, n_resamples=n_resamples, seed=seed,
            min_informedness=min_informedness, difference=True,
        )
        result["undefined_resample_share"] = float(share)
    else:
        covariance = delta_covariance(confusion, [first, second], raw)
        low, high = delta_interval_arrays(estimate, covariance, level, (-1.0, 1.0))
    result["interval"] = _plain_interval(low, high, binary)
    return result


# ----------------------------------------------------------------------------------------
# Judge diagnostics per group
# ----------------------------------------------------------------------------------------


def chi2_sf(statistic: float, degrees_of_freedom: float) -> float:
    """Upper tail ``P(X >= statistic)`` of a chi-square distribution (no SciPy).

    The regularised upper incomplete gamma ``Q(df/2, x/2)``: its series for
    ``x < a + 1``, else its continued fraction (modified Lentz), as in Numerical Recipes.

    Examples
    --------
    >>> round(chi2_sf(3.841458820694124, 1), 6)
    0.05
    """
    if degrees_of_freedom <= 0:
        return math.nan
    if statistic <= 0:
        return 1.0
    a, x = degrees_of_freedom / 2.0, statistic / 2.0
    log_prefactor = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        denominator = a
        for _ in range(10_000):
            denominator += 1.0
            term *= x / denominator
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefactor))
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return min(1.0, math.exp(log_prefactor) * h)


def homogeneity_statistic(group_confusions: Any) -> Tuple[np.ndarray, np.ndarray]:
    """Pearson chi-square of "every group has the same confusion rows", vectorised.

    ``group_confusions`` ``(..., G, K, K)``. For each reference class c, the ``G x K``
    table (groups x the judge's labels) of the items of class c is tested for homogeneity;
    the statistics of the K tables are summed (the tables hold disjoint items). Groups
    without items of class c and labels never given to class c leave that table (its
    degrees of freedom are ``(G_c - 1)(K_c - 1)``). Returns ``(statistic, dof)``.
    Binary: the sum of the chi-square tests of equal TPR and of equal FPR across groups.
    """
    counts = np.asarray(group_confusions, dtype=np.float64)
    group_rows = counts.sum(axis=-1)  # (..., G, K): items of class c in group g
    label_totals = counts.sum(axis=-3)  # (..., K, K): class c, judge label j, all groups
    class_totals = label_totals.sum(axis=-1)  # (..., K)
    expected = group_rows[..., :, :, None] * label_totals[..., None, :, :] / np.where(class_totals > 0, class_totals, 1.0)[..., None, :, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        cells = np.where(expected > 0, (counts - expected) ** 2 / np.where(expected > 0, expected, 1.0), 0.0)
    statistic = cells.sum(axis=(-3, -2, -1))
    groups_used = (group_rows > 0).sum(axis=-2)  # (..., K)
    labels_used = (label_totals > 0).sum(axis=-1)  # (..., K)
    dof = (np.maximum(groups_used - 1, 0) * np.maximum(labels_used - 1, 0)).sum(axis=-1)
    return statistic, dof


def group_diagnostics(
    group_confusions: Any,
    *,
    method: str = "chi2",
    n_resamples: int = 2_000,
    seed: Optional[int] = None,
    confidence_level: Optional[float] = None,
) -> Dict[str, Any]:
    """How the judge does on each group of golden-set items, and whether that differs.

    ``group_confusions``: ``G x K x K`` counts, one confusion matrix (rows = references)
    per group (e.g. the evaluated model that wrote each response). Per group: ``support``
    (items per reference class), binary ``tpr`` / ``fpr`` (positive class 1), multi-class
    ``recall`` (per class), and ``informedness`` (Youden's J; Powers' bookmaker
    informedness for K > 2, as the informedness module). With ``confidence_level``, an
    ``informedness_ci`` per group (``intervals.informedness_interval``: Agresti-Coull /
    MOVER for K = 2, the stratified bootstrap otherwise).

    ``heterogeneity_p_value`` tests H0: *the judge errs alike on every group* -- the same
    confusion rows (binary: the same TPR and the same FPR) in every group. It is the
    Pearson chi-square test of homogeneity of each reference class's row across groups,
    summed over classes (binary: the TPR test plus the FPR test, ``2 (G - 1)`` degrees of
    freedom; see ``homogeneity_statistic``). Equal error rates imply equal informedness,
    and they are what the prevalence correction needs: a judge with the same J but a
    higher FPR on one model's outputs still biases that model's corrected prevalence. So
    a rejection means "the judge's rates differ across groups", not only "J differs".
    ``method="chi2"``: the asymptotic chi-square tail (fine when expected cell counts are
    about 5 or more); ``"monte_carlo"``: the statistic's null distribution simulated by
    drawing every group's rows from the pooled rows (parametric bootstrap under H0,
    ``n_resamples`` draws, p = (1 + #{T* >= T}) / (1 + n_resamples)), for small groups.
    NaN (``heterogeneity_reason``) with fewer than two groups having items of a class.

    Examples
    --------
    >>> same = [[[90, 10], [20, 80]], [[45, 5], [10, 40]]]  # TPR 0.8, FPR 0.1 in both groups
    >>> result = group_diagnostics(same)
    >>> result["tpr"], result["fpr"], result["heterogeneity_p_value"]
    ([0.8, 0.8], [0.1, 0.1], 1.0)
    """
    counts = _as_counts("group_confusions", group_confusions, 3)
    if counts.ndim != 3 or counts.shape[-1] != counts.shape[-2] or counts.shape[-1] < 2:
        raise ValueError(f"group_confusions: expected G x K x K counts with K >= 2, found shape {counts.shape}.")
    if method not in HETEROGENEITY_METHODS:
        raise ValueError(f"method: expected one of {HETEROGENEITY_METHODS}, found {method!r}.")
    n_resamples = intervals.check_n_resamples(n_resamples)
    seed = intervals.check_seed(seed)
    level = intervals.check_confidence_level(confidence_level)
    num_classes = counts.shape[-1]
    rates, support = row_rates(counts)
    rates = np.where(support[..., None] > 0, rates, np.nan)
    result: Dict[str, Any] = {"support": support.astype(int).tolist()}
    if num_classes == 2:
        result["tpr"] = [float(v) for v in rates[:, 1, 1]]
        result["fpr"] = [float(v) for v in rates[:, 0, 1]]
    else:
        result["recall"] = np.diagonal(rates, axis1=-2, axis2=-1).tolist()
    result["informedness"] = [float(v) for v in intervals.informedness_from_confusion(counts)]
    if level is not None:
        interval = intervals.informedness_interval(
            counts, confidence_level=level, method="agresti_coull" if num_classes == 2 else "bootstrap",
            n_resamples=n_resamples, seed=seed,
        )
        result["informedness_ci"] = [[float(a), float(b)] for a, b in zip(np.atleast_1d(interval.low), np.atleast_1d(interval.high))]
    statistic, dof = homogeneity_statistic(counts)
    statistic, dof = float(statistic), int(dof)
    result.update(heterogeneity_statistic=statistic, heterogeneity_dof=dof, heterogeneity_method=method)
    if dof == 0:
        result.update(heterogeneity_p_value=math.nan, heterogeneity_reason="fewer_than_two_groups_with_items_of_a_class")
        return result
    if method == "chi2":
        p_value = chi2_sf(statistic, dof)
    else:
        rng = np.random.default_rng(seed)
        pooled_rates, _ = row_rates(counts.sum(axis=0))
        sizes = support.astype(np.int64)  # (G, K)
        exceed = 0
        chunk = max(1, _CHUNK_VALUES // max(1, counts.size))
        for start in range(0, n_resamples, chunk):
            count = min(chunk, n_resamples - start)
            draws = rng.multinomial(sizes, np.broadcast_to(pooled_rates, counts.shape), size=(count,) + sizes.shape)
            simulated, _ = homogeneity_statistic(draws)
            exceed += int((simulated >= statistic - 1e-9 * max(1.0, statistic)).sum())
        p_value = (1 + exceed) / (1 + n_resamples)
    result["heterogeneity_p_value"] = float(p_value)
    return result


# ----------------------------------------------------------------------------------------
# Planning a golden set
# ----------------------------------------------------------------------------------------


def _expected_half_width(size: float, tpr: float, tnr: float, prevalence: float, level: float, metric: str, ci_method: str) -> float:
    """Half-width of the module's analytic interval at the expected counts of a set of ``size``."""
    positives, negatives = prevalence * size, (1.0 - prevalence) * size
    interval = intervals.recall_mean_interval(
        [tnr * negatives, tpr * positives], [negatives, positives], confidence_level=level, method=ci_method
    )
    half = (interval.high - interval.low) / 2.0
    return 2.0 * half if metric == "informedness" else half


def plan_golden_set(
    target_half_width: float,
    *,
    tpr: float,
    tnr: float,
    prevalence: float,
    confidence_level: float = 0.95,
    metric: str = "balanced_accuracy",
    ci_method: str = intervals.DEFAULT_CI_METHOD,
) -> Dict[str, Any]:
    """Golden-set size for a target interval half-width on balanced accuracy or binary J.

    The golden set holds positives and negatives in the ratio ``prevalence``; the judge is
    expected to have true positive rate ``tpr`` and true negative rate ``tnr``. The plan is
    the smallest size at which the interval the modules return (``ci_method``, default
    Agresti-Coull / MOVER; "wilson" for Wilson / MOVER) has half-width ``(high - low) / 2``
    at most ``target_half_width`` when the counts equal their expectations. Binary
    J = 2 BA - 1, so ``metric="informedness"`` needs the half-width of BA's interval to be
    half the target. Unlike the Wald formula ``z^2 [TPR(1-TPR)/n_1 + TNR(1-TNR)/n_0] / 4``
    it stays sensible for rates near 1 (Wald would promise a zero-width interval at
    TPR = 1). About half of the realised golden sets of that size come out wider, half
    narrower; ask for a smaller target for more assurance.

    Returns ``positives``, ``negatives``, ``total`` (each class size rounded up),
    ``expected_half_width`` (at those sizes), and ``wald_total`` (the Wald formula's size,
    for comparison).

    Examples
    --------
    >>> plan = plan_golden_set(0.05, tpr=0.8, tnr=0.9, prevalence=0.5)
    >>> plan["total"] > 0 and plan["expected_half_width"] <= 0.05
    True
    """
    if metric not in ("balanced_accuracy", "informedness"):
        raise ValueError(f"metric: expected 'balanced_accuracy' or 'informedness', found {metric!r}.")
    limit = 0.5 if metric == "balanced_accuracy" else 1.0
    if isinstance(target_half_width, bool) or not isinstance(target_half_width, numbers.Real) or not 0.0 < target_half_width < limit:
        raise ValueError(f"target_half_width: expected a number in (0, {limit}) for {metric}, found {target_half_width!r}.")
    tpr, tnr = _check_rate("tpr", tpr), _check_rate("tnr", tnr)
    prevalence = _check_rate("prevalence", prevalence, low_open=True, high_open=True)
    level = intervals.check_confidence_level(confidence_level)
    ci_method = intervals.check_ci_method(ci_method)
    if ci_method == "bootstrap":
        raise ValueError("ci_method: the plan uses an analytic interval ('agresti_coull' or 'wilson').")
    z = intervals.z_value(level)
    scale = 1.0 if metric == "balanced_accuracy" else 2.0
    wald = (z * scale / 2.0) ** 2 * (tpr * (1 - tpr) / prevalence + tnr * (1 - tnr) / (1 - prevalence)) / target_half_width**2

    def width(size):
        return _expected_half_width(size, tpr, tnr, prevalence, level, metric, ci_method)

    low, high = 1.0, max(2.0, wald)
    while width(high) > target_half_width:
        low, high = high, high * 2.0
        if high > 1e12:
            raise ValueError("target_half_width: not reachable with fewer than 10^12 items.")
    for _ in range(200):  # bisection on the (continuous) size
        middle = 0.5 * (low + high)
        if width(middle) > target_half_width:
            low = middle
        else:
            high = middle
        if high - low < 1e-3:
            break
    positives = int(math.ceil(prevalence * high - 1e-9))
    negatives = int(math.ceil((1.0 - prevalence) * high - 1e-9))
    achieved = intervals.recall_mean_interval(
        [tnr * negatives, tpr * positives], [negatives, positives], confidence_level=level, method=ci_method
    )
    return {
        "positives": positives,
        "negatives": negatives,
        "total": positives + negatives,
        "expected_half_width": float(scale * (achieved.high - achieved.low) / 2.0),
        "wald_total": int(math.ceil(wald)),
        "metric": metric,
        "ci_method": ci_method,
        "confidence_level": level,
    }


def _pair(name: str, value: Any) -> Tuple[float, float]:
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"{name}: expected a number or a pair (judge A, judge B), found {value!r}.")
        return _check_rate(name, value[0]), _check_rate(name, value[1])
    rate = _check_rate(name, value)
    return rate, rate


def plan_judge_comparison(
    delta_j: float,
    *,
    tpr: Union[float, Tuple[float, float]],
    tnr: Union[float, Tuple[float, float]],
    prevalence: float,
    agreement: Union[None, float, Tuple[float, float]] = None,
    power: float = 0.8,
    alpha: float = 0.05,
) -> Dict[str, Any]:
    """Golden items (each labelled by both judges) needed to detect ``J_B - J_A = delta_j``.

    ``tpr`` / ``tnr``: judge A's rates, judge B's being ``delta_j / 2`` higher on each; or
    pairs ``(A, B)`` (then ``delta_j`` must equal their difference in J). ``agreement``:
    the share of items on which the two judges give the same label, among positives and
    among negatives (one number for both, or a pair ``(positives, negatives)``), e.g. from
    a pilot; None: the judges err independently given the true class. Paired proportions
    (McNemar): with discordance ``d = 1 - agreement`` among a class's n items,
    ``Var(rate_B - rate_A) = (d - (rate_B - rate_A)^2) / n``; independent errors give
    ``d = a(1-b) + b(1-a)``. The size is that of the two-sided level-``alpha`` z test of
    ``Delta J = 0`` reaching ``power``:
    ``n = (z_{1-alpha/2} + z_power)^2 [V_1 / pi + V_0 / (1 - pi)] / delta_j^2``.
    Judges that agree more need fewer items (their errors cancel in the difference).

    Returns ``positives``, ``negatives``, ``total`` (rounded up), ``judge_a`` and ``judge_b``
    (their TPR, TNR, J).

    Examples
    --------
    >>> plan = plan_judge_comparison(0.1, tpr=0.8, tnr=0.9, prevalence=0.3)
    >>> plan["judge_b"]["j"]
    0.8
    """
    if isinstance(delta_j, bool) or not isinstance(delta_j, numbers.Real) or not 0.0 < abs(float(delta_j)) < 2.0:
        raise ValueError(f"delta_j: expected a non-zero number in (-2, 2), found {delta_j!r}.")
    delta_j = float(delta_j)
    prevalence = _check_rate("prevalence", prevalence, low_open=True, high_open=True)
    power = _check_rate("power", power, low_open=True, high_open=True)
    alpha = _check_rate("alpha", alpha, low_open=True, high_open=True)
    if isinstance(tpr, (tuple, list)) or isinstance(tnr, (tuple, list)):
        tpr_a, tpr_b = _pair("tpr", tpr)
        tnr_a, tnr_b = _pair("tnr", tnr)
        if abs((tpr_b + tnr_b) - (tpr_a + tnr_a) - delta_j) > 1e-9:
            raise ValueError("delta_j: must equal judge B's J minus judge A's when tpr/tnr are given as pairs.")
    else:
        tpr_a, tnr_a = _check_rate("tpr", tpr), _check_rate("tnr", tnr)
        tpr_b, tnr_b = tpr_a + delta_j / 2.0, tnr_a + delta_j / 2.0
        if not (0.0 <= tpr_b <= 1.0 and 0.0 <= tnr_b <= 1.0):
            raise ValueError(
                f"delta_j: judge B's rates {tpr_b:.3g}, {tnr_b:.3g} (judge A's + delta_j / 2) leave [0, 1]; pass tpr and tnr as pairs (A, B)."
            )
    variances = []
    agreements = (None, None) if agreement is None else _pair("agreement", agreement)
    for name, a, b, agree in (("positives", tpr_a, tpr_b, agreements[0]), ("negatives", tnr_a, tnr_b, agreements[1])):
        if agree is None:
            variances.append(a * (1 - a) + b * (1 - b))
            continue
        discordance = 1.0 - agree
        if not abs(b - a) - 1e-12 <= discordance <= min(a + b, 2.0 - a - b) + 1e-12:
            raise ValueError(
                f"agreement: among {name} the judges' rates {a:.3g} and {b:.3g} allow a disagreement between "
                f"{abs(b - a):.3g} and {min(a + b, 2 - a - b):.3g}, found {discordance:.3g}."
            )
        variances.append(max(discordance - (b - a) ** 2, 0.0))
    z_alpha = NormalDist().inv_cdf(1.0 - alpha / 2.0)
    z_power = NormalDist().inv_cdf(power)
    size = (z_alpha + z_power) ** 2 * (variances[0] / prevalence + variances[1] / (1.0 - prevalence)) / delta_j**2
    positives = max(1, int(math.ceil(prevalence * size - 1e-9)))
    negatives = max(1, int(math.ceil((1.0 - prevalence) * size - 1e-9)))
    return {
        "positives": positives,
        "negatives": negatives,
        "total": positives + negatives,
        "judge_a": {"tpr": tpr_a, "tnr": tnr_a, "j": round(tpr_a + tnr_a - 1.0, 12)},
        "judge_b": {"tpr": tpr_b, "tnr": tnr_b, "j": round(tpr_b + tnr_b - 1.0, 12)},
        "power": power,
        "alpha": alpha,
        "agreement": agreement,
    }
