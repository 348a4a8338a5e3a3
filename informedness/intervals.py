# GENERATED FILE: do not edit. Vendored copy of shared/intervals.py.
# Edit the source in shared/ and run `python shared/vendor.py` to refresh every module folder.
"""Confidence intervals computed from confusion counts, for every metric of this project.

Every metric here is a function of per-class confusion counts, and a golden set fixes how
many examples each reference class has. So the sampling variability that matters is that
of each reference-class *row* of the confusion matrix, given the class sizes: a row is
multinomial, and a per-class recall is binomial. Every method works on counts, so its
cost does not grow with the number of samples:

* ``"agresti_coull"`` and ``"wilson"``: analytic intervals for a weighted sum of
  independent binomial rates (balanced accuracy = mean of per-class recalls; balanced
  top-k accuracy; binary informedness J = TPR + TNR - 1 = 2 BA - 1; an average of
  per-label balanced accuracies). Each rate gets an Agresti-Coull (resp. Wilson score)
  interval and the intervals are combined with MOVER (Zou & Donner 2008; with Wilson
  this is Newcombe's method 10 for a difference of proportions). They stay inside the
  metric's range and are finite for rates of 0 or 1 and for tiny classes.
* ``"bootstrap"``: the stratified bootstrap done on counts: each class row is resampled
  (binomial for a recall, multinomial for a full confusion row) with the class size kept,
  ``n_resamples`` times, and the metric recomputed on each resample. The interval is the
  **percentile** interval. Not BCa: on counts the bootstrap distribution is discrete, with
  large atoms (a class with all examples correct never moves), which makes BCa's
  bias-correction ``Phi^-1(share below the estimate)`` jump with the tie convention and
  its jackknife acceleration unstable for tiny classes; the percentile interval is
  transformation-respecting and stays in range.

Coverage was measured by simulation (``examples/coverage_study.py``, 10,000 golden sets
per setting): for balanced accuracy Agresti-Coull/MOVER kept 93-97% coverage in 19 of 21
settings (0.927 with a class of about 2 examples), Wilson/MOVER in 17 (down to 0.917 for a
recall near 1), the percentile bootstrap in 8 (it cannot move a small class with all or
none correct). So ``"agresti_coull"`` is the default (``DEFAULT_CI_METHOD``) wherever an
analytic interval exists. Multi-class informedness (Powers' bookmaker informedness) is
not a sum of independent rates: bootstrap only (0.92 with a class of about 5 examples,
0.94-0.95 from 20).

Sample weights: counts become weighted sums, and a weighted rate's sampling variance is
that of an unweighted rate on Kish's effective sample size ``n_eff = (sum w)^2 / sum w^2``
(per class). This treats weights as importance weights unrelated to correctness within a
class; frequency weights (a weight of 3 = three identical samples) are *not* counts here
(repeat the samples instead). With equal weights ``n_eff = n`` and the interval equals the
unweighted one.

This file depends on NumPy and the standard library only, so it works both vendored next
to a metric script (``from .intervals import ...``) and imported on its own.
"""

import math
import numbers
import warnings
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Optional, Tuple

import numpy as np

CI_METHODS = ("agresti_coull", "wilson", "bootstrap")
DEFAULT_CI_METHOD = "agresti_coull"

# Resampled values kept in memory at once (resamples x rates); larger jobs run in chunks.
_BOOTSTRAP_CHUNK_VALUES = 1 << 22

CI_KWARGS_DOC = """confidence_level (float in (0, 1), optional): e.g. 0.95 adds a confidence
        interval `<metric>_ci: [low, high]` for the point value. Default None: no interval.
    ci_method ("agresti_coull", "wilson", "bootstrap" or None): the first two are
        analytic (an Agresti-Coull or Wilson interval per class, combined with MOVER);
        "bootstrap" resamples each reference class's confusion counts with the class size
        kept (stratified, on counts, so its cost does not grow with the number of samples)
        and returns the percentile interval. None: "agresti_coull", the best measured
        coverage.
    n_resamples (int, defaults to 10000): bootstrap resamples.
    seed (int, optional): seed of the bootstrap's random generator, for reproducible
        intervals (None: a fresh one each call)."""


@dataclass
class Interval:
    """A confidence interval: ``low``/``high`` (floats or arrays), and a ``reason`` when NaN."""

    low: Any
    high: Any
    reason: Optional[str] = None

    def as_list(self):
        """``[low, high]`` as plain Python floats (NaN when undefined)."""
        return [float(self.low), float(self.high)]


# ----------------------------------------------------------------------------------------
# Argument checks
# ----------------------------------------------------------------------------------------


def check_confidence_level(confidence_level: Any) -> Optional[float]:
    """None, or a number strictly between 0 and 1."""
    if confidence_level is None:
        return None
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, numbers.Real):
        raise TypeError(f"confidence_level: expected a number in (0, 1) such as 0.95, found {type(confidence_level).__name__}.")
    if not 0.0 < float(confidence_level) < 1.0:
        raise ValueError(f"confidence_level: expected a number in (0, 1) such as 0.95, found {confidence_level!r}.")
    return float(confidence_level)


def check_ci_method(ci_method: Any, default: str = DEFAULT_CI_METHOD) -> str:
    """One of ``CI_METHODS``; None means ``default``."""
    if ci_method is None:
        return default
    if not isinstance(ci_method, str) or ci_method not in CI_METHODS:
        raise ValueError(f"ci_method: expected one of {CI_METHODS} or None, found {ci_method!r}.")
    return ci_method


# More resamples than this change no percentile visibly and only cost memory and time.
MAX_RESAMPLES = 1_000_000


def check_n_resamples(n_resamples: Any) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (numbers.Integral, np.integer)):
        raise TypeError(f"n_resamples: expected a positive integer, found {type(n_resamples).__name__}.")
    if not 1 <= n_resamples <= MAX_RESAMPLES:
        raise ValueError(f"n_resamples: expected an integer in [1, {MAX_RESAMPLES:,}], found {n_resamples!r}.")
    return int(n_resamples)


def check_seed(seed: Any) -> Optional[int]:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, np.integer)) or seed < 0:
        raise TypeError(f"seed: expected a non-negative integer or None, found {seed!r}.")
    return int(seed)


def z_value(confidence_level: float) -> float:
    """The two-sided standard-normal quantile, e.g. 1.95996... for 0.95."""
    return NormalDist().inv_cdf(0.5 + confidence_level / 2.0)


# ----------------------------------------------------------------------------------------
# Building blocks (vectorised: any leading batch shape)
# ----------------------------------------------------------------------------------------


def effective_sizes(sum_weights: Any, sum_squared_weights: Any) -> np.ndarray:
    """Kish's effective sample size ``(sum w)^2 / sum w^2`` per class (0 where no weight).

    Pass it as ``effective_support`` with weighted counts (see the module doc).

    Examples
    --------
    >>> effective_sizes([4.0, 3.0, 0.0], [4.0, 5.0, 0.0]).tolist()  # weights 1,1,1,1 | 1,2 | none
    [4.0, 1.8, 0.0]
    """
    sum_weights = np.asarray(sum_weights, dtype=np.float64)
    sum_squared_weights = np.asarray(sum_squared_weights, dtype=np.float64)
    sizes = np.zeros(np.broadcast(sum_weights, sum_squared_weights).shape)
    np.divide(sum_weights**2, sum_squared_weights, out=sizes, where=sum_squared_weights > 0)
    return sizes


def class_effective_sizes(class_indices: Any, weights: Any, num_classes: int) -> np.ndarray:
    """Kish's effective size of the weighted samples of each class ``0..num_classes-1``.

    Kish's size does not change when every weight is multiplied by one factor, so weights
    far from 1 (up to float64's limits) are first divided by the largest: their squares
    then neither overflow nor all underflow to 0.

    Examples
    --------
    >>> class_effective_sizes(np.array([0, 0, 1]), np.array([1e300, 1e300, 3e300]), 2).tolist()
    [2.0, 1.0]
    """
    class_indices = np.asarray(class_indices).ravel()
    weights = np.asarray(weights, dtype=np.float64).ravel()
    largest = float(weights.max()) if weights.size else 0.0
    if largest > 0 and not 1e-100 <= largest <= 1e100:
        weights = weights / largest
    sums = np.bincount(class_indices, weights=weights, minlength=num_classes)
    squared = np.bincount(class_indices, weights=weights**2, minlength=num_classes)
    return effective_sizes(sums, squared)


def wilson_interval(successes: Any, trials: Any, confidence_level: float) -> Tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a binomial rate; NaN where ``trials`` is 0.

    Examples
    --------
    >>> low, high = wilson_interval([0, 5], [5, 5], 0.95)
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.0, 0.5655], [0.4345, 1.0])
    """
    successes = np.asarray(successes, dtype=np.float64)
    trials = np.asarray(trials, dtype=np.float64)
    z = z_value(confidence_level)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = successes / trials
        denominator = 1.0 + z * z / trials
        center = (rate + z * z / (2.0 * trials)) / denominator
        half_width = z / denominator * np.sqrt(np.maximum(rate * (1.0 - rate), 0.0) / trials + z * z / (4.0 * trials * trials))
    low = np.where(trials > 0, np.clip(center - half_width, 0.0, 1.0), np.nan)
    high = np.where(trials > 0, np.clip(center + half_width, 0.0, 1.0), np.nan)
    return low, high


def agresti_coull_interval(successes: Any, trials: Any, confidence_level: float) -> Tuple[np.ndarray, np.ndarray]:
    """Agresti-Coull interval: the Wald interval after adding z^2/2 successes and failures.

    Clipped to [0, 1]; NaN where ``trials`` is 0.

    Examples
    --------
    >>> low, high = agresti_coull_interval([0, 8], [10, 10], 0.95)
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.0, 0.4794], [0.3209, 0.9541])
    """
    successes = np.asarray(successes, dtype=np.float64)
    trials = np.asarray(trials, dtype=np.float64)
    z = z_value(confidence_level)
    augmented = trials + z * z
    center = (successes + z * z / 2.0) / augmented
    half_width = z * np.sqrt(center * (1.0 - center) / augmented)
    low = np.where(trials > 0, np.clip(center - half_width, 0.0, 1.0), np.nan)
    high = np.where(trials > 0, np.clip(center + half_width, 0.0, 1.0), np.nan)
    return low, high


def mover_sum(estimates: Any, lows: Any, highs: Any, weights: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """MOVER interval of ``sum_i w_i theta_i`` for independent ``theta_i`` with given intervals.

    Works on the last axis; a component with weight 0 is ignored (it may be NaN). Returns
    ``(estimate, low, high)``.
    """
    estimates, lows, highs, weights = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (estimates, lows, highs, weights)))
    used = weights != 0
    # Both per-rate intervals used here contain their estimate; max(0, .) guards rounding.
    below = np.where(used, np.maximum(np.where(weights > 0, estimates - lows, highs - estimates), 0.0) * np.abs(weights), 0.0)
    above = np.where(used, np.maximum(np.where(weights > 0, highs - estimates, estimates - lows), 0.0) * np.abs(weights), 0.0)
    estimate = np.where(used, weights * estimates, 0.0).sum(axis=-1)
    return estimate, estimate - np.sqrt((below**2).sum(axis=-1)), estimate + np.sqrt((above**2).sum(axis=-1))


def rate_sum_interval(
    successes: Any,
    trials: Any,
    weights: Any,
    *,
    offset: Any = 0.0,
    bounds: Tuple[float, float] = (0.0, 1.0),
    confidence_level: float = 0.95,
    method: str = DEFAULT_CI_METHOD,
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
) -> Interval:
    """Interval for ``offset + sum_i weights_i * successes_i / trials_i`` (independent rates).

    The last axis indexes the rates; leading axes are independent problems (the coverage
    study passes thousands at once). A rate with weight 0 is left out, so classes without
    samples can be masked by a zero weight. ``bounds`` is the metric's range (the interval
    is clipped to it). ``trials`` may be non-integer (effective sizes of weighted counts);
    the bootstrap then rounds them to the nearest integer >= 1.

    Examples
    --------
    Balanced accuracy of a binary judge, TPR = 40/50, TNR = 900/950:

    >>> interval = rate_sum_interval([40, 900], [50, 950], [0.5, 0.5], method="wilson")
    >>> [round(x, 4) for x in interval.as_list()]
    [0.808, 0.9179]
    >>> interval = rate_sum_interval([40, 900], [50, 950], [0.5, 0.5], method="bootstrap", seed=0)
    >>> [round(x, 2) for x in interval.as_list()]
    [0.82, 0.93]
    """
    successes = np.asarray(successes, dtype=np.float64)
    trials = np.asarray(trials, dtype=np.float64)
    successes, trials, weights = np.broadcast_arrays(successes, trials, np.asarray(weights, dtype=np.float64))
    weights = np.where(trials > 0, weights, 0.0)  # an empty class carries no rate
    offset = np.asarray(offset, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = np.where(trials > 0, successes / trials, 0.0)
    if method in ("agresti_coull", "wilson"):
        per_rate = agresti_coull_interval if method == "agresti_coull" else wilson_interval
        lows, highs = per_rate(successes, trials, confidence_level)
        _, low, high = mover_sum(rates, lows, highs, weights)
    elif method == "bootstrap":
        low, high = _bootstrap_rate_sum(rates, trials, weights, confidence_level, n_resamples, seed)
    else:
        raise ValueError(f"ci_method: expected one of {CI_METHODS}, found {method!r}.")
    low, high = np.clip(offset + low, *bounds), np.clip(offset + high, *bounds)
    if low.ndim == 0:
        return Interval(float(low), float(high))
    return Interval(low, high)


def _percentile(replicates: np.ndarray, confidence_level: float) -> Tuple[np.ndarray, np.ndarray]:
    alpha = 1.0 - confidence_level
    low, high = np.quantile(replicates, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return low, high


def _bootstrap_rate_sum(rates, trials, weights, confidence_level, n_resamples, seed):
    """Percentile interval of ``sum w * Binomial(n, rate) / n``, resampled in chunks."""
    rng = np.random.default_rng(seed)
    sizes = np.where(trials > 0, np.maximum(np.rint(trials), 1), 1).astype(np.int64)
    rates = np.clip(rates, 0.0, 1.0)
    per_resample = max(1, rates.size)
    chunk = max(1, _BOOTSTRAP_CHUNK_VALUES // per_resample)
    replicates = np.empty((n_resamples,) + rates.shape[:-1])
    for start in range(0, n_resamples, chunk):
        count = min(chunk, n_resamples - start)
        draws = rng.binomial(sizes, rates, size=(count,) + rates.shape)
        replicates[start : start + count] = (weights * draws / sizes).sum(axis=-1)
    return _percentile(replicates, confidence_level)


# ----------------------------------------------------------------------------------------
# Metric-level helpers: what the modules call
# ----------------------------------------------------------------------------------------


def _finish(low: np.ndarray, high: np.ndarray, undefined: np.ndarray, reason: Optional[str]) -> Interval:
    """NaN where undefined; floats and a reason for a single problem, arrays for a batch."""
    low = np.where(undefined, np.nan, low)
    high = np.where(undefined, np.nan, high)
    if np.ndim(low) == 0:
        return Interval(float(low), float(high), reason if bool(undefined) else None)
    return Interval(low, high)


def recall_mean_interval(
    correct: Any,
    support: Any,
    *,
    confidence_level: float,
    method: str = DEFAULT_CI_METHOD,
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
    class_mask: Optional[np.ndarray] = None,
    zero_division: Any = "skip",
    adjusted: bool = False,
    effective_support: Any = None,
    unobserved: int = 0,
) -> Interval:
    """Interval for a mean of per-class recalls ``correct_c / support_c``, reduced as the modules do.

    This is balanced accuracy (``correct`` = TP per class) and balanced top-k accuracy
    (``correct`` = samples of class c with c among the top k). ``zero_division``,
    ``class_mask`` and ``adjusted`` mean what they mean in ``balanced_accuracy``: a class
    with no support is skipped or takes the fixed value ``zero_division`` (a convention,
    with no sampling error); ``adjusted`` maps to ``(mean - 1/K) / (1 - 1/K)``.
    ``effective_support`` (weighted counts): Kish's effective size per class (see
    ``effective_sizes``); ``correct``/``support`` are then the weighted sums.
    ``unobserved``: selected classes with no support that are not in the arrays (declared
    by a ``num_classes`` too large to materialise); like the others without support they
    are skipped or take the value ``zero_division``.

    The last axis indexes classes; leading axes are independent problems (arrays out).
    NaN with a ``reason`` (for a single problem) when the point value is undefined, with
    the reasons of ``balanced_accuracy``.

    Examples
    --------
    >>> interval = recall_mean_interval([8, 45, 0], [10, 50, 0], confidence_level=0.95, method="wilson")
    >>> [round(x, 4) for x in interval.as_list()], interval.reason
    ([0.685, 0.927], None)
    """
    correct = np.asarray(correct, dtype=np.float64)
    support = np.asarray(support, dtype=np.float64)
    num_classes = support.shape[-1]
    selected = np.zeros(num_classes, dtype=bool)
    selected[np.arange(num_classes) if class_mask is None else np.asarray(class_mask, dtype=np.intp)] = True
    has_support = support > 0
    if zero_division == "skip":
        averaged, fixed_value = selected & has_support, 0.0
    else:
        averaged, fixed_value = np.broadcast_to(selected, support.shape), float(zero_division)
    extra = 0 if zero_division == "skip" else int(unobserved)
    count = averaged.sum(axis=-1) + extra
    safe_count = np.maximum(count, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = np.where(has_support, correct / np.where(has_support, support, 1.0), 0.0)
    trials = support if effective_support is None else np.asarray(effective_support, dtype=np.float64)
    weights = np.where(averaged & has_support, 1.0 / safe_count[..., None], 0.0)
    offset = ((averaged & ~has_support).sum(axis=-1) + extra) * fixed_value / safe_count
    interval = rate_sum_interval(
        rates * trials, trials, weights, offset=offset, confidence_level=confidence_level,
        method=method, n_resamples=n_resamples, seed=seed,
    )
    low, high = np.asarray(interval.low), np.asarray(interval.high)
    if adjusted:
        chance = 1.0 / np.maximum(count, 2)
        low, high = (low - chance) / (1.0 - chance), (high - chance) / (1.0 - chance)
    if np.ndim(count) == 0:
        reason = "empty_class_mask_after_filtering" if class_mask is not None else "no_reference_classes"
        if count == 1 and adjusted:
            reason = "adjusted_needs_two_classes"
    else:
        reason = None
    return _finish(low, high, (count == 0) | ((count == 1) & adjusted), reason)


def binary_columns_interval(
    tp: Any,
    positives: Any,
    tn: Any,
    negatives: Any,
    *,
    confidence_level: float,
    average: str = "macro",
    method: str = "wilson",
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
    class_mask: Optional[np.ndarray] = None,
    zero_division: Any = "skip",
    effective_positives: Any = None,
    effective_negatives: Any = None,
) -> Interval:
    """Interval for an average of per-column binary balanced accuracies (multi-label).

    Column l (a label) has ``TPR_l = tp_l / positives_l`` and ``TNR_l = tn_l / negatives_l``;
    its balanced accuracy is their mean, or with ``zero_division="skip"`` the defined one
    alone (NaN when neither is). ``average``: "macro" (mean over the defined labels of
    ``class_mask``), "weighted" (weights = positives), "micro" (one balanced accuracy of
    the pooled counts). Labels are treated as independent, which they are not when they
    share samples (see the card's limitations); ``effective_*`` are Kish sizes for
    weighted counts.

    Examples
    --------
    >>> interval = binary_columns_interval([40, 5], [50, 10], [900, 80], [950, 90], confidence_level=0.95, method="wilson")
    >>> [round(x, 4) for x in interval.as_list()]
    [0.7077, 0.8546]
    """
    if average not in ("macro", "weighted", "micro"):
        raise ValueError(f"average: expected 'macro', 'weighted' or 'micro', found {average!r}.")
    tp, positives, tn, negatives = (np.asarray(a, dtype=np.float64) for a in (tp, positives, tn, negatives))
    num_columns = tp.shape[-1]
    selected = np.zeros(num_columns, dtype=bool)
    selected[np.arange(num_columns) if class_mask is None else np.asarray(class_mask, dtype=np.intp)] = True
    size_positive = positives if effective_positives is None else np.asarray(effective_positives, dtype=np.float64)
    size_negative = negatives if effective_negatives is None else np.asarray(effective_negatives, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr = np.where(positives > 0, tp / np.where(positives > 0, positives, 1.0), 0.0)
        tnr = np.where(negatives > 0, tn / np.where(negatives > 0, negatives, 1.0), 0.0)
    if average == "micro":
        counts = [np.where(selected, a, 0.0) for a in (tp, positives, tn, negatives)]
        with np.errstate(over="ignore"):
            pooled = [a.sum(axis=-1, keepdims=True) for a in counts]
        if any(np.isinf(a).any() for a in pooled):
            # Weighted counts near float64's limit: pool them as shares of the largest (same rates).
            largest = np.maximum(counts[1].max(axis=-1, keepdims=True), counts[3].max(axis=-1, keepdims=True))
            pooled = [(a / np.where(largest > 0, largest, 1.0)).sum(axis=-1, keepdims=True) for a in counts]
        sizes = [np.where(selected, a, 0.0).sum(axis=-1, keepdims=True) for a in (size_positive, size_negative)]
        interval = binary_columns_interval(
            pooled[0], pooled[1], pooled[2], pooled[3], confidence_level=confidence_level, average="macro",
            method=method, n_resamples=n_resamples, seed=seed, zero_division=zero_division,
            effective_positives=sizes[0], effective_negatives=sizes[1],
        )
        if interval.reason is not None and class_mask is not None:
            interval.reason = "empty_class_mask_after_filtering"
        return interval
    has_positive, has_negative = positives > 0, negatives > 0
    defined = selected & (has_positive | has_negative)
    if zero_division == "skip":
        # Per label: (TPR + TNR) / 2, or the one defined rate alone.
        both = has_positive & has_negative
        weight_tpr = np.where(has_positive, np.where(both, 0.5, 1.0), 0.0)
        weight_tnr = np.where(has_negative, np.where(both, 0.5, 1.0), 0.0)
        label_offset = np.zeros(tp.shape)
    else:
        weight_tpr = np.where(has_positive, 0.5, 0.0)
        weight_tnr = np.where(has_negative, 0.5, 0.0)
        label_offset = 0.5 * float(zero_division) * ((~has_positive).astype(float) + (~has_negative).astype(float))
    label_weights = np.where(defined, 1.0 if average == "macro" else positives, 0.0)
    largest = label_weights.max(axis=-1, keepdims=True) if label_weights.size else 1.0
    # Shares of the largest (the same weights once normalised): weighted positives near
    # float64's limit would overflow their sum.
    label_weights = label_weights / np.where(largest > 0, largest, 1.0)
    total = label_weights.sum(axis=-1, keepdims=True)
    label_weights = label_weights / np.where(total > 0, total, 1.0)
    successes = np.concatenate([tpr * size_positive, tnr * size_negative], axis=-1)
    trials = np.concatenate([size_positive, size_negative], axis=-1)
    weights = np.concatenate([label_weights * weight_tpr, label_weights * weight_tnr], axis=-1)
    offset = (label_weights * label_offset).sum(axis=-1)
    interval = rate_sum_interval(
        successes, trials, weights, offset=offset, confidence_level=confidence_level,
        method=method, n_resamples=n_resamples, seed=seed,
    )
    undefined = total[..., 0] <= 0
    if class_mask is not None:
        reason = "empty_class_mask_after_filtering"
    else:
        reason = "no_positive_support" if average == "weighted" and defined.any() else "no_defined_labels"
    return _finish(np.asarray(interval.low), np.asarray(interval.high), undefined, reason)


# ----------------------------------------------------------------------------------------
# Full confusion matrices: informedness and any other reduction (bootstrap)
# ----------------------------------------------------------------------------------------


def confusion_counts(confusion: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(tp, support, predicted, total)`` per class of confusion matrices ``(..., K, K)``.

    The batched analogue of the core's ``ClassCounts``, for writing a vectorised
    ``statistic`` for ``confusion_interval``.
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    return (
        np.diagonal(confusion, axis1=-2, axis2=-1),
        confusion.sum(axis=-1),
        confusion.sum(axis=-2),
        confusion.sum(axis=(-2, -1))[..., None],
    )


INFORMEDNESS_AVERAGES = ("bookmaker", "macro", "weighted")


def informedness_average(confusion: Any, average: str = "bookmaker", class_mask: Any = None, zero_division: Any = "skip") -> np.ndarray:
    """Informedness of confusion matrices ``(..., K, K)`` (rows = references), vectorised.

    Per class ``J_c = TPR_c - FPR_c`` (NaN when class c has no references or only
    references; ``zero_division`` other than "skip" replaces that NaN), averaged over the
    defined classes of ``class_mask`` with weights renormalised over them: "bookmaker"
    (Powers' bookmaker informedness; weights = share of predictions that are c),
    "macro" (equal) or "weighted" (share of references that are c). NaN when no class is
    defined or their weights sum to 0. Binary: Youden's J for every average.

    Examples
    --------
    >>> float(informedness_average([[45, 5], [10, 40]]))  # TNR 0.9, TPR 0.8
    0.7
    >>> round(float(informedness_average([[8, 2, 0], [1, 6, 3], [0, 0, 5]], average="macro")), 4)
    0.6833
    """
    if average not in INFORMEDNESS_AVERAGES:
        raise ValueError(f"average: expected one of {INFORMEDNESS_AVERAGES}, found {average!r}.")
    tp, support, predicted, total = confusion_counts(confusion)
    others = total - support
    with np.errstate(invalid="ignore", divide="ignore"):
        # One division (as the informedness module does): exact for integer counts.
        per_class = (tp * others - (predicted - tp) * support) / (support * others)
    per_class = np.where((support > 0) & (others > 0), per_class, np.nan)
    if zero_division != "skip":
        per_class = np.where(np.isnan(per_class), float(zero_division), per_class)
    weights = {"bookmaker": predicted, "macro": np.ones_like(support), "weighted": support}[average]
    if class_mask is not None:
        selected = np.zeros(per_class.shape[-1], dtype=bool)
        selected[np.asarray(class_mask, dtype=np.intp)] = True
        per_class = np.where(selected, per_class, np.nan)
    defined = ~np.isnan(per_class)
    weights = np.where(defined, weights, 0.0)
    weight_sum = weights.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(defined, weights * per_class, 0.0).sum(axis=-1) / weight_sum
    return np.where(weight_sum > 0, value, np.nan)


def informedness_from_confusion(confusion: Any) -> np.ndarray:
    """Bookmaker informedness ``sum_c beta_c (TPR_c - FPR_c)`` of confusion matrices ``(..., K, K)``.

    ``beta_c`` is the share of predictions that are c, renormalised over the classes whose
    J_c is defined (all of them when every class has references). Binary: Youden's J.

    Examples
    --------
    >>> round(float(informedness_from_confusion([[45, 5], [10, 40]])), 12)  # TNR 0.9, TPR 0.8
    0.7
    """
    return informedness_average(confusion, "bookmaker")


# Above this many multinomial cells (resamples x K x K) the bootstrap would run for minutes.
MAX_BOOTSTRAP_CELLS = 2_000_000_000


def confusion_interval(
    confusion: Any,
    statistic,
    *,
    confidence_level: float,
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
    bounds: Tuple[float, float] = (-math.inf, math.inf),
    effective_support: Any = None,
) -> Interval:
    """Stratified-bootstrap percentile interval of any ``statistic`` of confusion matrices.

    ``confusion`` is ``(..., K, K)`` (rows = references). Each row is resampled as
    Multinomial(row size, row shares) with its size kept, and ``statistic`` (vectorised:
    ``(R, ..., K, K) -> (R, ...)``, e.g. built on ``confusion_counts``) is applied to the
    resamples. Replicates where the statistic is NaN are left out of the percentiles.
    ``effective_support`` (weighted counts): rows are drawn on Kish's effective sizes and
    rescaled to their weighted totals. ``bounds``: the statistic's range.

    Examples
    --------
    >>> interval = confusion_interval([[45, 5], [10, 40]], informedness_from_confusion, confidence_level=0.95, seed=0)
    >>> [round(x, 2) for x in interval.as_list()]
    [0.56, 0.84]
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    num_classes = confusion.shape[-1]
    cells = n_resamples * confusion.size
    if cells > MAX_BOOTSTRAP_CELLS:
        raise ValueError(
            f"n_resamples: the bootstrap of a {num_classes} x {num_classes} confusion matrix draws n_resamples x "
            f"{confusion.size:,} cells; {n_resamples:,} resamples exceed the limit of {MAX_BOOTSTRAP_CELLS:,} cells. "
            f"Pass n_resamples <= {MAX_BOOTSTRAP_CELLS // confusion.size:,}."
        )
    support = confusion.sum(axis=-1)
    rates = confusion / np.where(support > 0, support, 1.0)[..., None]
    sizes = support if effective_support is None else np.asarray(effective_support, dtype=np.float64)
    replicates = bootstrap_confusion(rates, sizes, statistic, n_resamples, seed, row_totals=support)
    undefined = np.isnan(replicates).all(axis=0)
    if np.isnan(replicates).any():
        alpha = 1.0 - confidence_level
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN problems: masked by _finish
            low, high = np.nanquantile(replicates, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    else:
        low, high = _percentile(replicates, confidence_level)
    return _finish(np.clip(low, *bounds), np.clip(high, *bounds), undefined, "undefined_in_every_resample")


def informedness_interval(
    confusion: Any,
    *,
    confidence_level: float,
    method: str = "bootstrap",
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
    average: str = "bookmaker",
    class_mask: Any = None,
    zero_division: Any = "skip",
    effective_support: Any = None,
) -> Interval:
    """Interval for informedness (``informedness_average``) from ``K x K`` confusion matrices.

    Binary (K = 2, both classes with references): informedness is Youden's J = TPR + TNR
    - 1 for every average, and every method applies (analytic: MOVER on TPR and TNR).
    Multi-class: the bootstrap only (``confusion_interval`` on ``informedness_average``);
    an analytic ``method`` is a ValueError. Leading axes of ``confusion`` are independent
    problems (arrays out). NaN with reason ``"fewer_than_two_reference_classes"`` when
    fewer than two classes have references.

    Examples
    --------
    >>> interval = informedness_interval([[45, 5], [10, 40]], confidence_level=0.95, method="wilson")
    >>> [round(x, 4) for x in interval.as_list()]
    [0.5271, 0.8042]
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    support = confusion.sum(axis=-1)
    undefined = (support > 0).sum(axis=-1) < 2
    reason = "fewer_than_two_reference_classes"
    sizes = support if effective_support is None else np.asarray(effective_support, dtype=np.float64)
    if confusion.shape[-1] == 2:
        with np.errstate(invalid="ignore", divide="ignore"):
            rates = np.diagonal(confusion, axis1=-2, axis2=-1) / np.where(support > 0, support, 1.0)
        interval = rate_sum_interval(
            rates * sizes, sizes, [1.0, 1.0], offset=-1.0, bounds=(-1.0, 1.0),
            confidence_level=confidence_level, method=method, n_resamples=n_resamples, seed=seed,
        )
        return _finish(np.asarray(interval.low), np.asarray(interval.high), undefined, reason)
    if method in ("agresti_coull", "wilson"):
        raise ValueError(
            f"ci_method: {method!r} has no analytic form for multi-class informedness (it is not a sum of "
            "independent rates); use ci_method='bootstrap'."
        )
    if method != "bootstrap":
        raise ValueError(f"ci_method: expected one of {CI_METHODS}, found {method!r}.")

    def statistic(matrices):
        return informedness_average(matrices, average, class_mask, zero_division)

    interval = confusion_interval(
        confusion, statistic, confidence_level=confidence_level, n_resamples=n_resamples,
        seed=seed, bounds=(-1.0, 1.0), effective_support=effective_support,
    )
    return _finish(np.asarray(interval.low), np.asarray(interval.high), undefined | np.isnan(np.asarray(interval.low)), reason)


def bootstrap_confusion(
    row_rates: Any, row_sizes: Any, statistic, n_resamples: int, seed: Optional[int], row_totals: Any = None
) -> np.ndarray:
    """Stratified bootstrap replicates of ``statistic(confusion)``: each row ~ Multinomial(size, rates).

    ``row_rates`` is ``(..., K, K)`` (each row sums to 1, or 0 for an empty row) and
    ``row_sizes`` ``(..., K)``. Each resampled row is rescaled to ``row_totals`` (default:
    the sizes), so with weighted counts the rows are drawn on their effective sizes but
    keep their weighted totals. The resampled matrices ``(chunk, ..., K, K)`` go to
    ``statistic``, which reduces the last two axes. Returns ``(n_resamples, ...)``.
    """
    rng = np.random.default_rng(seed)
    row_rates = np.asarray(row_rates, dtype=np.float64)
    row_sizes = np.asarray(row_sizes, dtype=np.float64)
    sizes = np.where(row_sizes > 0, np.maximum(np.rint(row_sizes), 1), 0).astype(np.int64)
    totals = sizes if row_totals is None else np.asarray(row_totals, dtype=np.float64)
    scale = (totals / np.maximum(sizes, 1))[..., None]
    # Guard against rows summing to 1 + epsilon, which multinomial rejects.
    row_rates = row_rates / np.maximum(row_rates.sum(axis=-1, keepdims=True), 1.0)
    chunk = max(1, _BOOTSTRAP_CHUNK_VALUES // max(1, row_rates.size))
    replicates = np.empty((n_resamples,) + row_rates.shape[:-2])
    for start in range(0, n_resamples, chunk):
        count = min(chunk, n_resamples - start)
        draws = rng.multinomial(sizes, row_rates, size=(count,) + sizes.shape)
        with np.errstate(invalid="ignore", divide="ignore"):
            replicates[start : start + count] = statistic(draws * scale)
    return replicates
