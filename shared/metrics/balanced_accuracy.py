"""Balanced accuracy as a spec: its value from confusion counts, its influence and paired difference.

What ``balanced_accuracy/balanced_accuracy.py`` names in its ``SPEC``; the options reach
these functions resolved and checked (``glue/options.py``).

The paired difference (``balanced_accuracy_difference``, from the joint counts of two systems;
what ``stats/comparison.py`` says of every paired difference applies):

Per class r the items split into (A right & B right, A only, B only, neither), a
paired 2 x 2 table, and the class's recall difference gets **Newcombe's (1998)
method 10** interval as published: the Wilson interval of each recall, squared and
added with the correction for their correlation (phi, the sample correlation of the
two "right" indicators with Newcombe's n/2 continuity correction of its numerator,
as in R's ``contingencytables`` and ``biostatUZH``; ``newcombe_paired_interval``).
Until issue 22 phi was taken without that correction ("Newcombe's method 10 with
uncorrected phi": [-0.1174, -0.0059] instead of the published [-0.1186, -0.0046] on
Fagerland et al.'s table (59, 6, 16, 80)); it was narrower but under-covered where a
class has few items and few disagreements (phi near 1), down to 0.55 with a class of
2 items and 0.82-0.93 with 10 (``studies/paired_comparison/results.md``). The classes are
independent given their sizes, so their intervals are combined into the mean by
**MOVER** (Zou & Donner 2008), as ``binomial.rate_sum_interval`` combines Wilson
intervals. ``method="bootstrap"``: the percentile interval of a *smoothed*
stratified bootstrap of the joint counts: each row is resampled as Multinomial(row
size, row shares) over its K x K cells, the shares taken with one pseudo-item of
disagreement (``paired_joint.smoothed_shares``), without which a class whose few
items all agree cannot move (coverage down to 0.08 with a class of 2 items).

Its interval (``recall_mean_interval``; also balanced top-k accuracy's, a mean of per-class
recalls of top-k hits) works on counts: given the class sizes each recall is binomial, so its
cost does not grow with the number of samples. ``"score"`` (``DEFAULT_CI_METHOD``) is the
score interval of a weighted sum of rates with Fay & Feuer's gamma bound
(``stats/score_sum.py``). The others:

* ``"agresti_coull"`` and ``"wilson"``: each recall gets an Agresti-Coull (resp. Wilson score)
  interval and the intervals are combined with MOVER (Zou & Donner 2008; with Wilson this is
  Newcombe's method 10 for a difference of proportions). They stay inside the metric's range
  and are finite for rates of 0 or 1 and for tiny classes.
* ``"bootstrap"``: the stratified bootstrap done on counts: each class is redrawn (binomial)
  with its size kept, ``n_resamples`` times, and the value recomputed on each resample. The
  interval is the **percentile** interval. Not BCa: on counts the bootstrap distribution is
  discrete, with large atoms (a class with all examples correct never moves), which makes
  BCa's bias-correction ``Phi^-1(share below the estimate)`` jump with the tie convention and
  its jackknife acceleration unstable for tiny classes; the percentile interval is
  transformation-respecting and stays in range.

Coverage on golden sets of 50-1,000 (``studies/golden_set_coverage``, 10,000 sets per
setting): the default ``"score"`` (chosen on the long-tail grid of
``studies/long_tail_modules``) covered 0.943-0.987 in all 21 settings, conservatively (above
0.97) in 11; Agresti-Coull/MOVER kept 93-97% in 19 of 21 (0.928 with a class of about 2
examples), Wilson/MOVER in 16 (down to 0.919 for a recall near 1), the percentile bootstrap
in 9 (down to 0.854: it hardly moves a small class with all or none correct).

Sample weights: counts become weighted sums, and a weighted rate's sampling variance is that
of an unweighted rate on Kish's effective sample size ``n_eff = (sum w)^2 / sum w^2`` (per
class). This treats weights as importance weights unrelated to correctness within a class;
frequency weights (a weight of 3 = three identical samples) are *not* counts here (repeat the
samples instead). With equal weights ``n_eff = n`` and the interval equals the unweighted one.
The reduction is the module's own: ``Averaging`` (``stats/averaging.py``) defines which
classes count, what ``zero_division``, ``class_mask`` and ``adjusted`` do and why a value is
undefined, and the interval is that same linear form of the recalls, centred on the value.
"""

import math
from statistics import NormalDist
from typing import Any, Dict, List, Mapping, Optional

import numpy as np

from ..stats.averaging import apply_zero_division
from ..stats.averaging import Averaging
from ..stats.averaging import warn_classes_without_references
from ..stats.design_effect import clustered_squares
from ..stats.vocabulary import check_confidence_level
from ..stats.vocabulary import check_n_resamples
from ..stats.vocabulary import check_seed
from ..stats.paired_joint import bootstrap_joint
from ..stats.paired_joint import canonical
from ..stats.paired_joint import check_difference_zero_division
from ..stats.paired_joint import check_joint
from ..stats.paired_joint import finish_difference
from ..stats.paired_joint import marginals
from ..stats.paired_joint import percentile_interval
from ..stats.paired_joint import row_sizes
from ..stats.paired_joint import selected_classes
from ..stats.paired_tests import newcombe_paired_interval
from ..stats.paired_tests import EXACT_TEST_MAX_OUTCOMES
from ..stats.paired_tests import score_p_value
from ..stats.paired_tests import stratified_mcnemar_mid_p
from ..stats.paired_tests import variance_terms
from ..glue.outputs import class_outputs
from ..counting.confusion import ConfusionCounts
from ..stats.binomial import DEFAULT_CI_METHOD
from ..glue.reduction import class_order_key
from ..glue.reduction import clustered_intervals
from ..stats.binomial import Interval
from ..glue.reduction import P_VALUE_ONLY_LEVEL
from ..stats.averaging import class_indices
from ..stats.binomial import finish_interval
from ..stats.binomial import rate_sum_interval
from ..counting.clusters import RecallInfluence
from ..counting.counts import safe_ratio
from ..counting.inputs import to_python


# ----------------------------------------------------------------------------------------
# The mean of recalls: its weights, value, gradient and paired p-value
# ----------------------------------------------------------------------------------------


def recall_reduction(support, selected, zero_division):
    """Per-class weights of the mean of recalls, the fixed part, and the classes averaged."""
    has, skip = support > 0, zero_division == "skip"
    averaged = selected & has if skip else np.broadcast_to(selected, support.shape)
    fixed = 0.0 if skip else zero_division  # a float already (check_difference_zero_division)
    count = averaged.sum(axis=-1)
    safe = np.maximum(count, 1)
    weights = np.where(averaged & has, 1.0 / safe[..., None], 0.0)
    offset = (averaged & ~has).sum(axis=-1) * fixed / safe
    return weights, offset, count


def mean_recall(confusion, weights, offset):
    support = confusion.sum(axis=-1)  # non-negative counts: an empty class's diagonal is 0 too
    recall = np.diagonal(confusion, axis1=-2, axis2=-1) / np.where(support > 0, support, 1.0)
    return offset + (weights * recall).sum(axis=-1)


def adjust_for_chance(value, count, adjusted):
    if not adjusted:
        return value
    chance = 1.0 / np.maximum(count, 2)
    return (value - chance) / (1.0 - chance)


def recall_gradient(confusion, weights):
    """d(mean recall)/dC[r, a] = w_r (1[a = r] - recall_r) / n_r."""
    support = confusion.sum(axis=-1)
    safe = np.where(support > 0, support, 1.0)  # a class without references weighs 0 (recall_reduction): its rows are 0
    recall = np.diagonal(confusion, axis1=-2, axis2=-1) / safe
    return (weights / safe)[..., None] * (np.eye(confusion.shape[-1]) - recall[..., None])


def recall_difference_p_value(first_only, second_only, totals, weights, raw_difference, score_variance, deflate):
    """The balanced-accuracy p-value: exact mid-p for small integer discordant counts, else normal.

    ``deflate`` None: the normal test alone (weighted counts). Else the counts are integers
    (Kish sizes equal the counts) and the exact test is used where the enumeration has at most
    ``EXACT_TEST_MAX_OUTCOMES`` outcomes; that is where the normal approximation is too discrete
    (few discordant items in a small class) and made the test conservative (type-I error down
    to 1-2% at alpha 0.05). The averaged classes (``weights > 0``) weigh the same in a mean of
    recalls, so the exact statistic needs only their sizes. ``deflate`` is then the design
    factor of clustered items, 1.0 without (``score_variance`` already carries it): the exact
    mid-p's normal score is divided by its square root, ``2 (1 - Phi(Phi^-1(1 - p / 2) / sqrt(deflate)))``,
    as the normal test's is.
    """
    p_value = np.array(score_p_value(raw_difference, score_variance), dtype=np.float64)
    if deflate is None:
        return p_value
    averaged = weights > 0
    discordant = np.where(averaged, first_only + second_only, 0.0)
    outcomes = np.prod(discordant + 1.0, axis=-1)
    class_sizes = np.where(averaged, totals, 0.0)
    small = (outcomes <= EXACT_TEST_MAX_OUTCOMES) & ~np.isnan(raw_difference)
    flat_p = p_value.reshape(-1)
    normal = NormalDist()
    for index in np.flatnonzero(small.reshape(-1)):
        position = np.unravel_index(index, small.shape)
        mid_p = stratified_mcnemar_mid_p(class_sizes[position], first_only[position], second_only[position])
        if deflate != 1.0 and 0.0 < mid_p < 1.0:
            # Below mid-p ~ 1e-16, 1 - mid_p / 2 rounds to 1, which inv_cdf refuses: z from the lower tail there.
            upper = 1.0 - mid_p / 2.0
            z = normal.inv_cdf(upper) if upper < 1.0 else -normal.inv_cdf(mid_p / 2.0)
            mid_p = 2.0 * (1.0 - normal.cdf(z / math.sqrt(deflate)))
        flat_p[index] = mid_p
    return flat_p.reshape(p_value.shape)


# ----------------------------------------------------------------------------------------
# The interval of a mean of independent recalls: balanced accuracy, balanced top-k accuracy (multilabel's
# per-label form, binary_columns_interval, is in metrics/multilabel.py)
# ----------------------------------------------------------------------------------------


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
    averaging: Optional[Averaging] = None,
) -> Interval:
    """Interval for a mean of per-class recalls ``correct_c / support_c``, reduced as the modules do.

    This is balanced accuracy (``correct`` = TP per class) and balanced top-k accuracy
    (``correct`` = samples of class c with c among the top k). ``averaging`` is the
    module's ``Averaging``; without it one is built from ``class_mask``, ``zero_division``,
    ``adjusted`` and ``unobserved`` (selected classes beyond the arrays, declared by a
    ``num_classes`` too large to materialise). A class without support is skipped or takes
    the fixed value ``zero_division`` (a convention, with no sampling error); ``adjusted``
    is the linear map ``(mean - 1/K) / (1 - 1/K)``. ``effective_support`` (weighted
    counts): Kish's effective size per class (see ``effective_sizes``); ``correct`` and
    ``support`` are then the weighted sums.

    The last axis indexes classes; leading axes are independent problems (arrays out).
    NaN with ``Averaging.reason`` (for a single problem) where the point value is undefined.

    Examples
    --------
    >>> interval = recall_mean_interval([8, 45, 0], [10, 50, 0], confidence_level=0.95, method="wilson")
    >>> [round(x, 4) for x in interval.as_list()], interval.reason
    ([0.685, 0.927], None)
    """
    correct, support = (np.asarray(values, dtype=np.float64) for values in (correct, support))
    if averaging is None:
        averaging = Averaging(support.shape[-1], class_indices(class_mask), int(unobserved), zero_division, adjusted)
    recall = safe_ratio(correct, support)
    value, count = averaging.combine(recall)  # the module's value, to the last digit
    coefficients, offset, _, _ = averaging.coefficients(support > 0)
    trials = support if effective_support is None else np.asarray(effective_support, dtype=np.float64)
    # The metric's range: that of the linear form for rates in [0, 1].
    bounds = offset + np.minimum(coefficients, 0.0).sum(axis=-1), offset + np.maximum(coefficients, 0.0).sum(axis=-1)
    interval = rate_sum_interval(
        np.nan_to_num(recall) * trials, trials, coefficients, offset=offset, bounds=bounds,
        confidence_level=confidence_level, method=method, n_resamples=n_resamples, seed=seed, estimate=value,
    )
    reason = averaging.reason(int(count), "no_reference_classes", float(value)) if np.ndim(value) == 0 else None
    return finish_interval(np.asarray(interval.low), np.asarray(interval.high), np.isnan(value), reason)


def recall_influence(correct: Any, support: Any, averaging: Averaging, k: Optional[int] = None) -> RecallInfluence:
    """``RecallInfluence(right, wrong)``: per class, how one more sample of class c, predicted right or wrong, moves
    the mean of recalls that ``averaging`` forms: ``a_c (1 - r_c) / n_c`` and ``-a_c r_c / n_c``
    (``a_c`` its coefficient, ``r_c`` the recall, ``n_c`` the class's count). What a
    cluster-robust variance weighs each counted sample by (``stats.design_effect``); ``k``: the top-k
    whose recalls they are, if any.

    Examples
    --------
    >>> influence = recall_influence([8, 45], [10, 50], Averaging(2))
    >>> np.round(influence.right, 6).tolist(), np.round(influence.wrong, 6).tolist()  # 0.5 (1 - 0.8) / 10, -0.5 x 0.8 / 10, ...
    ([0.01, 0.001], [-0.04, -0.009])
    """
    correct, support = (np.asarray(values, dtype=np.float64) for values in (correct, support))
    recall = np.nan_to_num(safe_ratio(correct, support))
    coefficients = averaging.coefficients(support > 0)[0]
    per_sample = np.divide(coefficients, support, out=np.zeros_like(support), where=support > 0)
    return RecallInfluence(per_sample * (1.0 - recall), -per_sample * recall, k)


AUTO_THRESHOLD_INTERVAL = (
    "confidence_level: no interval with threshold='auto'. The threshold is fitted to these same data, and "
    "re-searching it in every bootstrap resample covered the best balanced accuracy in only 71-87% of "
    "simulated golden sets (studies/golden_set_coverage). Tune the threshold on a separate split and pass "
    "it as a number: threshold=tuned['optimal_threshold']."
)


# Why adjusted and class_mask do not go together (checked before any data is read).
ADJUSTED_WITH_CLASS_MASK = (
    "adjusted: no chance correction for an average over class_mask; expected adjusted=True without class_mask, "
    "or class_mask without adjusted. A guesser's recall of class c is its share of predictions of c, so over all "
    "K classes its mean recall is 1/K whatever its prior, but over a subset it is the mean of its shares there: "
    "no chance level makes every guesser score 0."
)


def balanced_accuracy_from_counts(counts: ConfusionCounts, options) -> dict:
    """Balanced accuracy (and its interval, per-class recalls, confusion matrix) from confusion counts.

    ``options``: every option of ``compute``, resolved and checked; ``counts`` is what
    ``compute`` counted from samples, or a confusion matrix given to it.
    """
    adjusted, zero_division, class_mask, confidence_level = (options[name] for name in (
        "adjusted", "zero_division", "class_mask", "confidence_level"))
    result = {"balanced_accuracy": math.nan}
    if confidence_level is not None:  # an undefined value gets an undefined interval too
        result["balanced_accuracy_ci"] = [math.nan, math.nan]
    if counts.optimal_threshold is not None:
        result["optimal_threshold"] = counts.optimal_threshold
    encoded = counts.encoded
    if counts.reason is not None and not (encoded.num_classes or encoded.unobserved):
        return {**result, "reason": counts.reason}  # no class known to check class_mask against
    averaging = Averaging.over(  # checks class_mask against the classes, as the other modules do
        encoded.num_classes, class_mask, zero_division, adjusted,
        observed=encoded.classes if encoded.unobserved else None, unobserved=encoded.unobserved,
    )
    if counts.reason is not None:
        return {**result, "reason": counts.reason}
    class_counts = counts.class_counts()
    per_class_recall = safe_ratio(class_counts.tp, class_counts.support)
    if zero_division == "skip":  # an averaged class with predictions (or a binary task's) but no references
        warn_classes_without_references(
            "Recall", class_counts.support, class_counts.predicted, encoded.classes, averaging, encoded.binary,
            "which is then the mean recall of the other classes (in a binary task, the recall of the other "
            "class alone)")
    value, averaged = averaging.combine(per_class_recall)
    reason = averaging.reason(int(averaged), "no_reference_classes", float(value))
    if reason is not None:
        return {**result, "reason": reason}
    result["balanced_accuracy"] = float(value)
    if confidence_level is not None:
        result.update(balanced_accuracy_interval_outputs([(counts, class_counts, averaging)], options)[0])
    per_class = {}
    if options["return_per_class"]:
        counts.check_materialised("return_per_class")
        per_class["per_class_recall"] = apply_zero_division(per_class_recall, zero_division)
    result.update(class_outputs(counts, class_counts, per_class, return_per_class=options["return_per_class"],
                                return_confusion_matrix=options["return_confusion_matrix"]))
    return to_python(result)


def balanced_accuracy_interval_outputs(systems, options) -> List[Dict[str, Any]]:
    """``balanced_accuracy_ci`` (with the clusters' outputs) of each system, ``(counts, class_counts,
    averaging)`` of a defined value, through the one interval step (``reduction.clustered_intervals``):
    the default score intervals of systems with one class order in one vectorised call (the judges
    ranked by ``glue.ranking``: J intervals for about the cost of one; each problem on the leading
    axis computed as it is alone), any other method one system at a time."""
    confidence_level, method = options["confidence_level"], options["ci_method"] or DEFAULT_CI_METHOD

    def intervals(ready):
        groups: Dict[Any, Any] = {}
        for position, (index, effect) in enumerate(ready):
            counts, class_counts, averaging = systems[index]
            # Clustered samples (images, sequences, conversations) are worth fewer independent ones.
            sizes = effect.scale(counts.effective_sizes() if counts.w is not None else class_counts.support)
            together = class_order_key(counts.encoded) if method == "score" else position
            groups.setdefault(together, (averaging, []))[1].append((position, class_counts.tp, class_counts.support, sizes))
        found: List[Any] = [None] * len(ready)
        for averaging, members in groups.values():
            correct, support, sizes = members[0][1:] if len(members) == 1 else (
                np.stack([member[part] for member in members]) for part in (1, 2, 3))
            interval = recall_mean_interval(correct, support, confidence_level=confidence_level, method=method,
                                            n_resamples=options["n_resamples"], seed=options["seed"],
                                            averaging=averaging, effective_support=sizes)
            for row, (position, *_) in enumerate(members):
                found[position] = interval if len(members) == 1 else Interval(interval.low[row], interval.high[row])
        return found

    influences = [(counts, lambda class_counts=class_counts, averaging=averaging: recall_influence(class_counts.tp, class_counts.support, averaging))
                  for counts, class_counts, averaging in systems]
    return [outputs for outputs, _ in clustered_intervals("balanced_accuracy_ci", influences, confidence_level, intervals)]


def balanced_accuracy_intervals(systems, options) -> List[Optional[Dict[str, Any]]]:
    """Each system's ``balanced_accuracy_ci`` outputs as ``balanced_accuracy_from_counts`` gives them
    (``MetricSpec.intervals``: the judges ranked by ``glue.ranking``), all of them in one call of
    ``balanced_accuracy_interval_outputs``. None for a system left to ``balanced_accuracy_from_counts``:
    an undefined value, a threshold chosen by 'auto'."""
    if options["confidence_level"] is None:
        return [None] * len(systems)
    defined = []
    for index, counts in enumerate(systems):
        encoded = counts.encoded
        if counts.reason is not None or counts.optimal_threshold is not None:
            continue
        averaging = Averaging.over(encoded.num_classes, options["class_mask"], options["zero_division"], options["adjusted"],
                                   observed=encoded.classes if encoded.unobserved else None, unobserved=encoded.unobserved)
        class_counts = counts.class_counts()
        value, averaged = averaging.combine(safe_ratio(class_counts.tp, class_counts.support))
        if averaging.reason(int(averaged), "no_reference_classes", float(value)) is None:
            defined.append((index, (counts, class_counts, averaging)))
    found = dict(zip([index for index, _ in defined], balanced_accuracy_interval_outputs([system for _, system in defined], options)))
    return [found.get(index) for index in range(len(systems))]


def balanced_accuracy_influence(counts: ConfusionCounts, options) -> RecallInfluence:
    """How one counted sample moves the mean of recalls (the design effect's influence)."""
    class_counts = counts.class_counts()
    averaging = Averaging.over(counts.num_classes, options["class_mask"], options["zero_division"], options["adjusted"])
    return recall_influence(class_counts.tp, class_counts.support, averaging)


BALANCED_ACCURACY_METHODS = ("newcombe", "bootstrap")


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
    design_factor: float = 1.0,
) -> dict:
    """Balanced accuracy of A and of B on the same items, their difference, its interval and p-value.

    Parameters
    ----------
    joint : array (..., K, K, K)
        ``joint[r, a, b]``: items (or weight sums) with reference r, A's prediction a and
        B's (the baseline's) prediction b. Leading axes are independent problems.
    confidence_level : float in (0, 1)
    method : {"newcombe", "bootstrap"}
        "newcombe": per class Newcombe's method 10 interval (as published, phi with its
        n/2 correction) for the paired difference of recalls, combined over the averaged
        classes by MOVER. "bootstrap": percentile interval of the smoothed stratified
        bootstrap of the joint counts (one pseudo-item of disagreement per class).
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
    design_factor : float, default 1.0
        With clustered samples, the design effect's factor (``stats.design_effect``): each row's
        effective size is divided by it, and the exact test's evidence deflated by it.

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
    zero_division = check_difference_zero_division(zero_division)
    joint, joint_w2 = check_joint(joint, joint_w2)
    unweighted = joint_w2 is None or np.array_equal(joint_w2, joint)
    joint, joint_w2, orientation = canonical(joint, clustered_squares(joint, joint_w2, design_factor))
    num_classes = joint.shape[-1]
    selected = selected_classes(class_mask, num_classes)

    confusion_a, confusion_b = marginals(joint)
    totals, sizes = row_sizes(joint, joint_w2)
    weights, offset, count = recall_reduction(totals, selected, zero_division)
    raw_value = mean_recall(confusion_a, weights, offset)
    raw_baseline = mean_recall(confusion_b, weights, offset)
    raw_difference = raw_value - raw_baseline
    undefined = (count == 0) | ((count == 1) & bool(adjusted))
    value = adjust_for_chance(raw_value, count, adjusted)
    baseline = adjust_for_chance(raw_baseline, count, adjusted)
    difference = value - baseline

    # Score test from the per-cell gradients of the (unadjusted) difference; adjusting
    # scales the difference and its standard error alike.
    _, score_variance = variance_terms(
        joint, totals, sizes, recall_gradient(confusion_a, weights), recall_gradient(confusion_b, weights)
    )
    diagonal = np.arange(num_classes)
    both = joint[..., diagonal, diagonal, diagonal]
    a_right, b_right = (np.diagonal(confusion, axis1=-2, axis2=-1) for confusion in (confusion_a, confusion_b))
    # Unweighted counts: the exact test where the normal one is too discrete; with clustered samples
    # its evidence is deflated by the design factor.
    exact = unweighted and bool((joint == np.rint(joint)).all())
    p_value = recall_difference_p_value(a_right - both, b_right - both, totals, weights, raw_difference, score_variance,
                                        design_factor if exact else None)

    if method == "newcombe":
        d, low_r, high_r = newcombe_paired_interval(
            both, a_right - both, b_right - both, totals - a_right - b_right + both,
            confidence_level=confidence_level, effective_size=sizes,
        )
        # MOVER: each side's weighted distances from the averaged classes' differences, squared and added.
        used = weights > 0
        below = np.where(used, weights * (d - low_r), 0.0)
        above = np.where(used, weights * (high_r - d), 0.0)
        low = raw_difference - np.sqrt((below**2).sum(axis=-1))
        high = raw_difference + np.sqrt((above**2).sum(axis=-1))
    else:

        def statistic(resampled):
            a, b = marginals(resampled)
            return mean_recall(a, weights, offset) - mean_recall(b, weights, offset)

        replicates = bootstrap_joint(joint, totals, sizes, statistic, n_resamples, seed)
        low, high = percentile_interval(replicates, confidence_level, orientation == 0)
    low, high = np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)
    if adjusted:
        scale = 1.0 / (1.0 - 1.0 / np.maximum(count, 2))
        low, high = low * scale, high * scale
    value, baseline, difference, low, high, p_value = (
        np.where(undefined, np.nan, x) for x in (value, baseline, difference, low, high, p_value)
    )
    reason = ("adjusted_needs_two_classes" if adjusted and np.ndim(count) == 0 and count == 1
              else "no_reference_classes" if class_mask is None else "empty_class_mask_after_filtering")
    return finish_difference((value, baseline, difference, low, high, p_value), orientation, reason)


def balanced_accuracy_paired_difference(joint, joint_w2, options, method, design_factor=1.0):
    """The paired difference of two systems' balanced accuracies (Newcombe's interval by default)."""
    return balanced_accuracy_difference(
        joint, joint_w2=joint_w2, design_factor=design_factor, confidence_level=options["confidence_level"] or P_VALUE_ONLY_LEVEL, method=method or "newcombe",
        n_resamples=options["n_resamples"], seed=options["seed"], class_mask=options["class_mask"], adjusted=options["adjusted"],
        zero_division=options["zero_division"])


def check_balanced_accuracy_options(options) -> None:
    """Checks across balanced accuracy's options, before any data is read."""
    if isinstance(options["threshold"], Mapping):  # with judges, LabelsMetric checks it against them
        raise ValueError(f"threshold: a mapping from judges' names to thresholds applies to judges=, found "
                         f"{options['threshold']!r} without judges; pass judges={{name: scores}} or one threshold.")
    if options["threshold"] is not None and options["task"] == "multiclass":
        raise ValueError("threshold: applies to binary tasks only, found task='multiclass'.")
    if options["adjusted"] and options["class_mask"] is not None:
        raise ValueError(ADJUSTED_WITH_CLASS_MASK + f" Found adjusted=True and class_mask={options['class_mask'].tolist()!r}.")
    if options["confidence_level"] is not None and options["threshold"] == "auto":
        raise ValueError(f"{AUTO_THRESHOLD_INTERVAL} Found confidence_level={options['confidence_level']!r} with threshold='auto'.")
