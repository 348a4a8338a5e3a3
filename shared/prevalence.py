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

# Values drawn per bootstrap chunk (resamples x problems x K x K).
_CHUNK_VALUES = 1 << 22


# ----------------------------------------------------------------------------------------
# Argument checks
# ----------------------------------------------------------------------------------------


def _as_counts(name: str, value: Any, ndim_tail: int) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if array.ndim < ndim_tail:
        raise ValueError(f"{name}: expected at least {ndim_tail} dimension(s), found shape {array.shape}.")
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError(f"{name}: counts must be finite and non-negative.")
    if np.any(array != np.round(array)):
        raise ValueError(f"{name}: counts must be whole numbers (the bootstrap draws integer counts).")
    return array


def _check_confusion(gold_confusion: Any) -> np.ndarray:
    confusion = _as_counts("gold_confusion", gold_confusion, 2)
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
    defined = (support > 0).all(axis=-1) & (strength > min_informedness)
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
    sizes = support.astype(np.int64)
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
    if strength <= min_informedness:
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
) -> Dict[str, Any]:
    """The true class prevalence of unlabeled data, corrected for the judge's errors.

    ``gold_confusion``: ``K x K`` counts of the judge on the golden set (rows = references,
    columns = the judge's labels). ``unlabeled_predicted``: the judge's ``K`` label counts
    on the unlabeled data. Binary (K = 2): the prevalence of class 1, Rogan-Gladen
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
    confusion = _check_confusion(gold_confusion)
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
) -> Dict[str, Any]:
    """Corrected prevalence of model A's outputs minus model B's, judged by one judge.

    Binary: ``Delta p = Delta q / J`` (the FPR cancels); multi-class:
    ``C^-T (q_a - q_b)`` per class. The difference of the *unconstrained* estimates (so it
    is exactly ``Delta q / J``), clipped to [-1, 1] (``clipped`` reports it). The two
    unlabeled samples are taken as independent; the golden set is shared, so each
    bootstrap replicate redraws it once for both (which is why the FPR's noise cancels and
    the TPR's scales with the difference). ``method="delta"``:
    ``Var = C^-T [Cov(q_a) + Cov(q_b) + sum_i d_i^2 Cov(C_i.)] C^-1``. Keys as in
    ``corrected_prevalence`` (``measured_difference`` is ``q_a - q_b``).

    Examples
    --------
    >>> result = corrected_prevalence_difference([[855, 95], [10, 40]], [760, 240], [830, 170])
    >>> round(result["estimate"], 12)  # (0.24 - 0.17) / 0.7
    0.1
    """
    confusion = _check_confusion(gold_confusion)
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
