"""Corrected prevalence from a judge's labels, with intervals carrying both samples' errors.

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

The vectorised building blocks (``corrected_prevalence_arrays``, the bootstrap, the delta
method) live in ``prevalence_arrays.py`` and are importable from here too; judge
diagnostics per group are in ``judge_groups.py``, golden-set planning in ``planning.py``.
NumPy and the standard library only (plus those files, ``binomial.py`` and ``intervals.py``).
"""

from typing import Any, Dict, Optional

import numpy as np

from .options import check_confidence_level
from .options import check_n_resamples
from .options import check_seed
from .intervals import informedness_from_confusion
from .prevalence_arrays import DEFAULT_MIN_INFORMEDNESS
from .prevalence_arrays import THRESHOLD_MARGIN
from .prevalence_arrays import bootstrap_prevalence_arrays
from .prevalence_arrays import check_confusion
from .prevalence_arrays import check_min_informedness
from .prevalence_arrays import check_prevalence_method
from .prevalence_arrays import check_unlabeled
from .prevalence_arrays import corrected_prevalence_arrays
from .prevalence_arrays import delta_covariance
from .prevalence_arrays import delta_interval_arrays



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
    if strength <= min_informedness + THRESHOLD_MARGIN:
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
        "informedness": float(informedness_from_confusion(confusion)),
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
    confusion = check_confusion(gold_confusion, whole=not weighted_gold)
    if confusion.ndim != 2:
        raise ValueError("gold_confusion: expected one K x K matrix (use corrected_prevalence_arrays for batches).")
    num_classes = confusion.shape[-1]
    unlabeled = check_unlabeled("unlabeled_predicted", unlabeled_predicted, num_classes)
    if unlabeled.ndim != 1:
        raise ValueError("unlabeled_predicted: expected one vector of K counts.")
    level = check_confidence_level(confidence_level)
    method = check_prevalence_method(method)
    n_resamples = check_n_resamples(n_resamples)
    seed = check_seed(seed)
    min_informedness = check_min_informedness(min_informedness)
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
    confusion = check_confusion(gold_confusion, whole=not weighted_gold)
    if confusion.ndim != 2:
        raise ValueError("gold_confusion: expected one K x K matrix.")
    num_classes = confusion.shape[-1]
    first = check_unlabeled("unlabeled_a", unlabeled_a, num_classes)
    second = check_unlabeled("unlabeled_b", unlabeled_b, num_classes)
    if first.ndim != 1 or second.ndim != 1:
        raise ValueError("unlabeled_a, unlabeled_b: expected one vector of K counts each.")
    level = check_confidence_level(confidence_level)
    method = check_prevalence_method(method)
    n_resamples = check_n_resamples(n_resamples)
    seed = check_seed(seed)
    min_informedness = check_min_informedness(min_informedness)
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


