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

**When the correction is refused (NaN with a reason): one rule for any K.** The
correction divides by J (binary): an error ``e`` in ``q`` becomes ``e / J`` in ``p``. In
general the amplification is ``1 / sigma``, with ``sigma`` the smallest singular value of
``C^T`` on the sum-zero subspace (the directions in which prevalences can change). Its
signed version (``conditioning``: negative when the inversion flips orientation) is
exactly J for K = 2. The estimate is refused when ``|J|`` (K = 2) or ``sigma`` (K > 2) is
at most ``min_informedness`` (default 0.05): ``"informedness_too_small"``. Why 0.05: below
it each point of error in the judge's measured prevalence is amplified at least 20 times,
and telling a judge with J = 0.05 from a guessing one (J = 0) at two standard errors
already takes about 800 golden positives and 800 negatives (TPR and FPR near 0.5); a
judge that weak measures nothing useful. A judge with negative J (binary) or a negative
per-class J_c (a class it gives *less* often when it is the truth: two labels swapped)
is inverted like any other and a ``UserWarning`` says that its labels look swapped.
Other reasons: ``"class_without_golden_references"``, ``"no_unlabeled_predictions"``.
Refusing the *interval* when J's interval includes 0 was measured and not adopted: it
keeps exactly the golden sets that overestimate a weak judge's J, and the intervals still
given then covered 0.61-0.90 instead of 0.88-0.93 (``studies/prevalence_prior_shift/results.md``,
column ``lee_if_J_excludes_0``). Instead the default interval switches method there (below).

**Intervals** carry both sources of error (``method``; the one used is returned):

* The default for one binary prevalence (``method=None``): Lee et al.'s interval where it
  holds, the smoothed bootstrap where it does not, and a blend of the two between
  (``lee_weight``: Lee's smoothed J at most ``LEE_MIN_INFORMEDNESS_SE`` = 4.5 of its
  standard errors from 0, the bootstrap alone; from ``LEE_FULL_WEIGHT_SE`` = 6.5 on, Lee's
  alone; between, each end of the interval is ``w * Lee's + (1 - w) * the bootstrap's``
  with ``w`` rising linearly, ``method`` ``"lee_bootstrap"``). With a weak judge and a
  golden set of few positives scored on new data with many, Lee's linearisation of 1/J
  covered 0.88-0.93; the blend moves continuously as golden items are added, where a hard
  switch made the interval jump (``studies/prevalence_intervals/results.md``: every cell
  0.93 or more).
* ``"lee"``: Lee, Zeng, Jeong, Sohn & Lee (2025), the adjusted plug-in interval of their
  reference code (``lee_interval_arrays``): pseudo-counts on the measured share and on
  both rates, a shift for the bias of the ratio, and a delta-method standard error over
  the golden and the unlabeled sample. Asked for by name, it is given whatever J (with a
  ``UserWarning`` when J's interval includes 0).
* ``"bootstrap"`` (the default for K > 2 and for differences): a smoothed bootstrap over
  both samples. Each replicate draws each golden reference row's rates from
  Dirichlet(row counts + 1) (Beta(x + 1, n - x + 1) for a binary rate) and the unlabeled
  shares from Dirichlet(counts + 1); the estimate (with its projection) is recomputed on
  each of ``n_resamples`` replicates and the **percentile** interval returned. Unlike a
  multinomial resample, the draws move a rate estimated at 0 or 1. A replicate whose
  conditioning is at most ``min_informedness`` in size has no estimate; it is counted as
  "could be anything": at the bound's floor for the lower percentile and at its ceiling
  for the upper one. So a golden set that cannot tell the judge from a guesser widens the
  interval towards [0, 1] instead of silently dropping the worst replicates. Their share
  is returned (``undefined_resample_share``).
* **An estimate clipped to a bound is not a known value.** Where the unconstrained
  estimate lies outside [0, 1] (the noise put ``q`` below the FPR), clipping Lee's interval
  or the bootstrap's replicates could give ``[0, 0]``: certainty from a handful of golden
  items. Where the unclipped interval's centre ``x`` (Lee's bias-shifted middle, the
  bootstrap replicates' median) is below 0, both give the interval of a parameter
  restricted to [0, 1] (``bounded_interval_arrays``: the likelihood-ratio interval of a
  normal mean with the restricted estimate on the bound), ``[0, x + sqrt(x^2 + d^2)]`` with
  ``d`` the unclipped interval's upper half-width: above 0, at least the unclipped upper
  end, and equal to it at ``x = 0``. The same at 1, and at -1 and 1 for a difference. The
  delta method takes the variance of a golden row or unlabeled vector with every item in
  one class at its counts plus 0.5 pseudo-items (``STUCK_PSEUDO_ITEMS``), whose plug-in
  variance would be 0.
* ``"delta"``: the first-order (delta-method) normal interval,
  ``Var(p) = C^-T [Cov(q) + sum_i p_i^2 Cov(C_i.)] C^-1`` (binary:
  ``[q(1-q)/N + p^2 TPR(1-TPR)/n_1 + (1-p)^2 FPR(1-FPR)/n_0] / J^2``), clipped to [0, 1].
  Fast and deterministic, but symmetric: poor near p = 0 with small sets.

``ppi_prevalence`` is the other estimator: prediction-powered inference (PPI++), valid
when the golden set is a random sample of the new data (``prevalence_ppi.py``).

Coverage is measured by ``studies/prevalence_prior_shift/study.py`` and ``studies/prevalence_intervals/study.py``
(each writes its ``results.md``).

The vectorised building blocks (``corrected_prevalence_arrays``, the bootstrap, Lee's
interval, the delta method) live in ``prevalence_arrays.py`` and are importable from here
too; judge diagnostics per group are in ``judge_groups.py``, golden-set planning in
``planning.py``. NumPy and the standard library only (plus those files, ``binomial.py``
and ``metrics/informedness.py``).
"""

import math
import warnings
from dataclasses import dataclass
from dataclasses import fields
from dataclasses import replace
from typing import Any, Dict, Optional, Sequence

import numpy as np

from ..stats.vocabulary import check_confidence_level
from ..stats.vocabulary import check_n_resamples
from ..stats.vocabulary import check_seed
from ..metrics.informedness import informedness_average
from ..metrics.informedness import informedness_interval
from ..metrics.informedness import one_vs_rest_difference
from .prevalence_arrays import DEFAULT_MIN_INFORMEDNESS
from .prevalence_arrays import THRESHOLD_MARGIN
from .prevalence_arrays import as_counts
from .prevalence_arrays import bootstrap_prevalence_arrays
from .prevalence_arrays import check_min_informedness
from .prevalence_arrays import check_prevalence_interval_method
from .prevalence_arrays import check_unlabeled
from .prevalence_arrays import corrected_prevalence_arrays
from .prevalence_arrays import delta_covariance
from .prevalence_arrays import delta_interval_arrays
from .prevalence_arrays import lee_interval_arrays
from .prevalence_arrays import lee_weight
from .prevalence_ppi import MIN_GOLDEN_ITEMS_PER_CLASS
from .prevalence_ppi import SAMPLE_TEST_LEVEL
from .prevalence_ppi import ppi_prevalence_arrays


def refusal_reason(confusion: np.ndarray, unlabeled_list, strength: float, min_informedness: float) -> Optional[str]:
    """The one refusal rule (see the module doc): None, or why the estimate is NaN."""
    if (confusion.sum(axis=-1) <= 0).any():
        return "class_without_golden_references"
    if any(u.sum() <= 0 for u in unlabeled_list):
        return "no_unlabeled_predictions"
    if abs(strength) <= min_informedness + THRESHOLD_MARGIN:
        return "informedness_too_small"
    return None


def plain_value(values: np.ndarray, binary: bool):
    """Binary: the positive class's float; multi-class: a list per class."""
    values = np.asarray(values, dtype=np.float64)
    return float(values[1]) if binary else [float(v) for v in values]


def plain_interval(low: np.ndarray, high: np.ndarray, binary: bool):
    """Binary: the positive class's ``[low, high]``; multi-class: one per class."""
    return [float(low[1]), float(high[1])] if binary else [[float(a), float(b)] for a, b in zip(low, high)]


def nan_interval(num_classes: int):
    """The interval of a refused estimate: ``[nan, nan]``, or one per class."""
    return [math.nan, math.nan] if num_classes == 2 else [[math.nan, math.nan] for _ in range(num_classes)]


def strength_summary(confusion: np.ndarray, strength: float) -> Dict[str, Any]:
    """The judge's ``informedness`` and ``min_singular_value`` (``|strength|``), as every result gives them."""
    return {"informedness": float(informedness_average(confusion)), "min_singular_value": float(abs(strength))}


def _name(classes: Optional[Sequence[Any]], index: int) -> str:
    return repr(classes[index]) if classes is not None else f"class {index}"


def warn_if_labels_look_swapped(confusion: np.ndarray, classes: Optional[Sequence[Any]] = None,
                                stacklevel: int = 3) -> None:
    """A ``UserWarning`` when the judge gives some class less often when it is the truth than
    when it is not (per-class J_c = TPR_c - FPR_c < 0): two labels look swapped.

    The correction inverts such a judge all the same (J = -0.75 is as informative as 0.75);
    the warning is for the label order, which is more often wrong than a judge is perverse.
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    per_class = one_vs_rest_difference(np.diagonal(confusion), confusion.sum(axis=-1), confusion.sum(axis=-2))
    swapped = np.flatnonzero(per_class < -THRESHOLD_MARGIN)  # NaN (a class without items, or with all) is not
    if not swapped.size:
        return
    if confusion.shape[-1] == 2:
        described = f"J = {per_class[1]:.3f} < 0: it says {_name(classes, 1)} more often when the truth is {_name(classes, 0)}"
    else:
        described = "per-class J < 0 for " + ", ".join(f"{_name(classes, i)} ({per_class[i]:.3f})" for i in swapped) + \
            ": it gives those labels less often when they are the truth than when they are not"
    warnings.warn(f"corrected_prevalence: the judge looks label-swapped on its golden set ({described}). The correction "
                  "inverts it all the same; check that the judge's labels and the references use the same label order.",
                  UserWarning, stacklevel=stacklevel)


# An interval within this of both bounds spans every value: it carries a reason (``spanning_reason``).
SPANS_ALL = 1e-9


def spans_all(interval: Any, floor: float) -> bool:
    """Whether an interval (binary ``[low, high]`` or one per class) spans every value from ``floor`` to 1."""
    pairs = interval if interval and isinstance(interval[0], list) else [interval]
    return all(low <= floor + SPANS_ALL and high >= 1.0 - SPANS_ALL for low, high in pairs)


def spanning_reason(undefined_share: Optional[float], level: float) -> str:
    """Why an interval spans every value: the golden set cannot tell the judge from a guesser
    (its replicates that cannot be inverted reach the tails), or the samples are too small."""
    if undefined_share is not None and undefined_share >= (1.0 - level) / 2.0:
        return "judge_not_told_from_chance"
    return "interval_spans_all_values"


@dataclass(frozen=True)
class PrevalenceSettings:
    """The keywords ``corrected_prevalence`` and ``corrected_prevalence_difference`` both
    take, with their defaults (each function's doc says what they mean there)."""

    confidence_level: Optional[float] = None
    method: Optional[str] = None
    n_resamples: int = 10_000
    seed: Optional[int] = None
    min_informedness: float = DEFAULT_MIN_INFORMEDNESS
    weighted_gold: bool = False

    @classmethod
    def given(cls, owner: str, keywords: Dict[str, Any]) -> "PrevalenceSettings":
        """The settings ``owner`` was called with; an unknown keyword is refused as Python refuses it."""
        unknown = [name for name in keywords if name not in {field.name for field in fields(cls)}]
        if unknown:
            raise TypeError(f"{owner}() got an unexpected keyword argument {unknown[0]!r}")
        return cls(**keywords)

    def golden_confusion(self, gold_confusion: Any, batches_hint: str = "") -> np.ndarray:
        """The one ``K x K`` golden confusion matrix, checked (whole counts unless ``weighted_gold``)."""
        # Weighted: the rows scaled to their effective sizes (the bootstrap draws each with its size rounded).
        confusion = as_counts("gold_confusion", gold_confusion, 2, whole=not self.weighted_gold)
        if confusion.shape[-1] != confusion.shape[-2] or confusion.shape[-1] < 2:
            raise ValueError(f"gold_confusion: expected a K x K matrix with K >= 2, found shape {confusion.shape}.")
        if confusion.ndim != 2:
            raise ValueError(f"gold_confusion: expected one K x K matrix{batches_hint}.")
        return confusion

    def checked(self, num_classes: int, difference: bool = False) -> "PrevalenceSettings":
        """Every setting checked, in this order (after the golden matrix and the unlabeled counts)."""
        return replace(
            self,
            confidence_level=check_confidence_level(self.confidence_level),
            method=check_prevalence_interval_method(self.method, num_classes, difference=difference),
            n_resamples=check_n_resamples(self.n_resamples),
            seed=check_seed(self.seed),
            min_informedness=check_min_informedness(self.min_informedness),
        )


def corrected_prevalence(
    gold_confusion: Any,
    unlabeled_predicted: Any,
    *,
    classes: Optional[Sequence[Any]] = None,
    **settings: Any,
) -> Dict[str, Any]:
    """The true class prevalence of unlabeled data, corrected for the judge's errors.

    ``gold_confusion``: ``K x K`` counts of the judge on the golden set (rows = references,
    columns = the judge's labels; non-integral counts, e.g. a weighted golden set's rows
    scaled to their Kish effective sizes, are accepted with ``weighted_gold=True``: the
    bootstrap then draws each row with those sizes). ``unlabeled_predicted``: the judge's
    ``K`` label counts on the unlabeled data (whole numbers). Binary (K = 2): the
    prevalence of class 1, Rogan-Gladen ``(q - FPR) / J``; multi-class: adjusted classify
    and count, one value per class (see the module doc for the method, the projection, the
    intervals and the refusal rule). ``method``: the interval, None for the default (two
    classes: Lee's, the bootstrap's or a blend of the two, by ``lee_weight``; ``"bootstrap"``
    for more).
    ``classes``: names for warnings. The other keywords are ``PrevalenceSettings``:
    ``confidence_level``, ``method``, ``n_resamples``, ``seed``, ``min_informedness`` (the
    refusal rule's bound) and ``weighted_gold``.

    Returns a dict of plain Python values: ``estimate`` (float, or list per class; NaN when
    refused), ``reason`` (None, or why NaN), ``clipped`` (the unconstrained solution was
    outside [0, 1] / the simplex and was projected), ``measured_prevalence`` (the judge's
    raw shares q), ``informedness`` (Youden's J; Powers' bookmaker informedness when
    K > 2), ``min_singular_value`` (``|J|`` for K = 2) and, with ``confidence_level``,
    ``interval`` ([low, high], or a list of them per class), ``method`` (the one used:
    ``"lee"``, ``"bootstrap"``, ``"lee_bootstrap"`` for the default's blend, ``"delta"``),
    ``interval_reason`` (None, or why the interval alone is NaN), for the bootstrap
    ``undefined_resample_share`` and, for the binary default, ``lee_weight``.

    Examples
    --------
    TPR = 40/50 = 0.8, FPR = 95/950 = 0.1 (J = 0.7); the judge flags 240 of 1,000 new items:

    >>> result = corrected_prevalence([[855, 95], [10, 40]], [760, 240])
    >>> round(result["estimate"], 12), result["clipped"], result["reason"]
    (0.2, False, None)
    >>> corrected_prevalence([[50, 50], [48, 52]], [500, 500])["reason"]  # J = 0.02
    'informedness_too_small'

    Lee et al.'s README example (q = 0.4 of 1,000; specificity 0.7 and sensitivity 0.9 on
    200 golden items each):

    >>> result = corrected_prevalence([[140, 60], [20, 180]], [600, 400], confidence_level=0.95)
    >>> round(result["estimate"], 4), [round(x, 4) for x in result["interval"]], result["method"]
    (0.1667, [0.0564, 0.2627], 'lee')

    The judge flags fewer new items (15%) than its golden FPR (38 of 180): the estimate clips
    at 0, and the interval still has the width the golden set leaves:

    >>> result = corrected_prevalence([[142, 38], [7, 13]], [1700, 300], confidence_level=0.95, seed=0)
    >>> result["estimate"], result["clipped"], [round(x, 3) for x in result["interval"]], result["method"]
    (0.0, True, [0.0, 0.054], 'bootstrap')
    """
    return _corrected("corrected_prevalence", gold_confusion, {"unlabeled_predicted": unlabeled_predicted}, classes,
                      settings)


def _corrected(owner: str, gold_confusion: Any, unlabeled: Dict[str, Any], classes: Optional[Sequence[Any]],
               settings: Dict[str, Any]) -> Dict[str, Any]:
    """``corrected_prevalence`` (one unlabeled vector) and ``corrected_prevalence_difference`` (two:
    the first's minus the second's, unconstrained, clipped to [-1, 1])."""
    given = PrevalenceSettings.given(owner, settings)
    difference = len(unlabeled) == 2
    batches_hint = "" if difference else " (use corrected_prevalence_arrays for batches)"
    confusion = given.golden_confusion(gold_confusion, batches_hint)
    num_classes = confusion.shape[-1]
    vectors = [check_unlabeled(name, value, num_classes) for name, value in unlabeled.items()]
    checked = given.checked(num_classes, difference=difference)
    level, method, min_informedness = checked.confidence_level, checked.method, checked.min_informedness
    binary, floor = num_classes == 2, -1.0 if difference else 0.0

    points = [corrected_prevalence_arrays(confusion, vector, min_informedness) for vector in vectors]
    strength = float(points[0]["strength"])
    reason = refusal_reason(confusion, vectors, strength, min_informedness)
    # weights: what the delta method multiplies the golden rows' noise by (a difference: unclipped).
    if difference:
        weights = points[0]["raw"] - points[1]["raw"]
        estimate = np.clip(weights, -1.0, 1.0)
        clipped = reason is None and np.abs(estimate - weights).max() > 1e-12
        measured = {"measured_difference": plain_value(points[0]["measured"] - points[1]["measured"], binary)}
    else:
        if reason is None:
            warn_if_labels_look_swapped(confusion, classes, stacklevel=4)
        weights = estimate = points[0]["estimate"]
        clipped = points[0]["clipped"]
        measured = {"measured_prevalence": plain_value(points[0]["measured"], binary)}
    result = {"estimate": plain_value(estimate, binary), "reason": reason, "clipped": bool(clipped), **measured,
              **strength_summary(confusion, strength)}
    if level is None:
        return result
    weight, lee = None, None
    if method is None:  # the default for one binary prevalence: Lee's, the bootstrap's, or a blend of the two
        lee = lee_interval_arrays(confusion, vectors[0], level)
        weight = 0.0 if bool(lee[2]) else float(lee_weight(confusion))
        method = "lee" if weight == 1.0 else "bootstrap" if weight == 0.0 else "lee_bootstrap"
        result["lee_weight"] = weight
    result.update(method=method, interval_reason=None)
    if reason is not None:
        result["interval"] = nan_interval(num_classes)
        return result
    if method in ("lee", "lee_bootstrap"):
        # Lee's is a delta-method interval of a ratio with J in the denominator: warn when the golden set
        # cannot tell the judge from a guesser (J's Agresti-Coull / MOVER interval includes 0).
        found = informedness_interval(confusion, confidence_level=level, method="agresti_coull")
        if found.low <= 0.0 <= found.high:
            warnings.warn(f"corrected_prevalence_ci: the golden set does not tell this judge from a guesser (J's {level:.0%} "
                          f"interval [{found.low:.3f}, {found.high:.3f}] includes 0). Lee et al.'s delta-method interval can "
                          "then fall short of its level (studies/prevalence_prior_shift/results.md); the smoothed bootstrap "
                          "(method='bootstrap'; ci_method='bootstrap' in the informedness module) widens instead, and more "
                          "golden items of each class narrow both.", UserWarning, stacklevel=3)
        lee_low, lee_high, flipped = lee if lee is not None else lee_interval_arrays(confusion, vectors[0], level)
        low, high = np.array([1.0 - lee_high, lee_low]), np.array([1.0 - lee_low, lee_high])
        if bool(flipped):
            result["interval_reason"] = "too_few_golden_items"
    if method in ("bootstrap", "lee_bootstrap"):
        boot_low, boot_high, share = bootstrap_prevalence_arrays(
            confusion, vectors, confidence_level=level, n_resamples=checked.n_resamples, seed=checked.seed,
            min_informedness=min_informedness, difference=difference,
        )
        result["undefined_resample_share"] = float(share)
        if method == "bootstrap":
            low, high = boot_low, boot_high
        else:  # each end moves continuously from the bootstrap's to Lee's as the golden set pins J down
            low, high = weight * low + (1.0 - weight) * boot_low, weight * high + (1.0 - weight) * boot_high
    elif method == "delta":
        low, high = delta_interval_arrays(estimate, delta_covariance(confusion, vectors, weights), level, (floor, 1.0))
    result["interval"] = plain_interval(low, high, binary)
    if result["interval_reason"] is None and spans_all(result["interval"], floor):
        result["interval_reason"] = spanning_reason(result.get("undefined_resample_share"), level)
    return result


def ppi_prevalence(
    gold_confusion: Any,
    unlabeled_predicted: Any,
    *,
    confidence_level: Optional[float] = None,
    classes: Optional[Sequence[Any]] = None,
) -> Dict[str, Any]:
    """Prediction-powered (PPI++) prevalence: the golden set taken as a random sample of the new data.

    The mean of ``[truth is c]`` estimated from the golden set's references, the judge's
    labels on it and its labels on the new data, with the power-tuned weight (see
    ``prevalence_ppi.py``): equal to ppi-python's ``ppi_mean_pointestimate`` and
    ``ppi_mean_ci`` (``lam=None``) on the one-vs-rest indicators, then clipped to [0, 1]
    (``clipped`` says when the estimate was). Valid for any judge, even one no better than
    chance, **if** the golden set is a uniformly random sample of the data corrected; under
    prior shift (a golden set enriched in a class, or drawn from other data) it is biased
    and its interval covers nothing. Refused (NaN with a ``reason``):
    ``"golden_set_unlike_unlabeled_data"`` when the judge's labels are distributed
    differently on the two sets (chi-square test, p < 0.001: then they cannot be one
    population), ``"too_few_golden_items"`` (fewer than 2), ``"no_unlabeled_predictions"``;
    the interval alone (``interval_reason``) with ``"too_few_golden_items_for_ppi"`` for a
    class with fewer than ``MIN_GOLDEN_ITEMS_PER_CLASS`` (30) golden items in it or outside
    it, where PPI's normal interval falls short of its level.

    Returns ``estimate``, ``reason``, ``clipped``, ``measured_prevalence``,
    ``informedness``, ``min_singular_value`` (as ``corrected_prevalence``), ``lam`` (the
    weight, a float or a list per class), ``sampling_p_value`` and, with
    ``confidence_level``, ``interval``, ``interval_reason`` and ``method`` (``"ppi"``).

    Examples
    --------
    >>> result = ppi_prevalence([[144, 16], [8, 32]], [700, 300], confidence_level=0.95)
    >>> round(result["estimate"], 4), [round(x, 4) for x in result["interval"]]
    (0.2272, [0.1824, 0.272])

    With fewer than 30 golden items of the class (or outside it) PPI's normal interval falls
    short of its level: no interval.

    >>> result = ppi_prevalence([[72, 8], [4, 16]], [700, 300], confidence_level=0.95)
    >>> round(result["estimate"], 4), result["interval"], result["interval_reason"]
    (0.2294, [nan, nan], 'too_few_golden_items_for_ppi')
    """
    confusion = PrevalenceSettings().golden_confusion(gold_confusion)
    num_classes = confusion.shape[-1]
    unlabeled = check_unlabeled("unlabeled_predicted", unlabeled_predicted, num_classes)
    level = check_confidence_level(confidence_level)
    binary = num_classes == 2
    found = ppi_prevalence_arrays(confusion, unlabeled, level)
    total = unlabeled.sum()
    p_value = float(found["sampling_p_value"])
    reason = ("too_few_golden_items" if confusion.sum() < 2 else "no_unlabeled_predictions" if total <= 0
              else "golden_set_unlike_unlabeled_data" if p_value < SAMPLE_TEST_LEVEL else None)
    if reason is None:
        warn_if_labels_look_swapped(confusion, classes)
    estimate = found["estimate"] if reason is None else np.full(num_classes, np.nan)
    clipped_estimate = np.clip(estimate, 0.0, 1.0)
    point, support = corrected_prevalence_arrays(confusion, unlabeled), confusion.sum(axis=-1)
    strength = float(np.nan) if (support <= 0).any() else float(point["strength"])
    result = {
        "estimate": plain_value(clipped_estimate, binary),
        "reason": reason,
        "clipped": bool(reason is None and np.abs(clipped_estimate - estimate).max() > 0),
        "measured_prevalence": plain_value(point["measured"], binary),
        **strength_summary(confusion, strength),
        "lam": plain_value(found["lam"], binary),
        "sampling_p_value": p_value,
    }
    if level is None:
        return result
    result.update(method="ppi", interval_reason=None)
    if reason is not None:
        result["interval"] = nan_interval(num_classes)
        return result
    # Too few golden items in a class (or outside it): PPI's normal interval falls short there.
    few = np.minimum(support, confusion.sum() - support) < MIN_GOLDEN_ITEMS_PER_CLASS
    if few[1] if binary else few.any():
        result["interval_reason"] = "too_few_golden_items_for_ppi"
    low, high = (np.where(few, np.nan, np.clip(bound, 0.0, 1.0)) for bound in (found["low"], found["high"]))
    result["interval"] = plain_interval(low, high, binary)
    return result


def corrected_prevalence_difference(gold_confusion: Any, unlabeled_a: Any, unlabeled_b: Any, **settings: Any) -> Dict[str, Any]:
    """Corrected prevalence of model A's outputs minus model B's, judged by one judge.

    Binary: ``Delta p = Delta q / J`` (the FPR cancels); multi-class:
    ``C^-T (q_a - q_b)`` per class. The difference of the *unconstrained* estimates (so it
    is exactly ``Delta q / J``), clipped to [-1, 1] (``clipped`` reports it). The two
    unlabeled samples are taken as independent; the golden set is shared, so each
    bootstrap replicate draws its rates once for both (which is why the FPR's noise cancels
    and the TPR's scales with the difference). ``method``: ``"bootstrap"`` (the default;
    Lee's interval is for one prevalence) or ``"delta"``:
    ``Var = C^-T [Cov(q_a) + Cov(q_b) + sum_i d_i^2 Cov(C_i.)] C^-1``. Keys as in
    ``corrected_prevalence`` (``measured_difference`` is ``q_a - q_b``), and so are the keywords
    (``PrevalenceSettings``).

    Examples
    --------
    >>> result = corrected_prevalence_difference([[855, 95], [10, 40]], [760, 240], [830, 170])
    >>> round(result["estimate"], 12)  # (0.24 - 0.17) / 0.7
    0.1
    """
    return _corrected("corrected_prevalence_difference", gold_confusion,
                      {"unlabeled_a": unlabeled_a, "unlabeled_b": unlabeled_b}, None, settings)
