"""Informedness as a spec: its value (with markedness and per-class outputs) from confusion counts,
its influence and paired difference; and the evaluate glue of a judge metric (corrected
prevalence and per-group diagnostics beside the value).

What ``informedness/informedness.py`` names in its ``SPEC``; the options reach these functions
resolved and checked (``glue/options.py``).

The paired difference (``informedness_difference``, from the joint counts of two systems;
what ``stats/comparison.py`` says of every paired difference applies):

Binary: J = TPR + TNR - 1 = 2 BA - 1 for every average, so the Newcombe/MOVER
interval of the balanced-accuracy difference, doubled (``"newcombe"``), or the
bootstrap's, doubled. Multi-class: a delta-method (Wald) interval with the analytic
gradient of the average (``"delta"``), its variance taken at the shares smoothed by
one pseudo-item of disagreement per class as in the bootstrap (on the observed shares
a class without a disagreement adds no variance: coverage down to 0.46 at 98%
agreement), or the smoothed stratified bootstrap.
"""

import abc
import math
from dataclasses import replace
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..stats.averaging import Averaging
from ..stats.averaging import warn_classes_without_references
from ..glue.outputs import class_outputs
from ..counting.confusion import ConfusionCounts
from ..stats.binomial import DEFAULT_CI_METHOD
from ..stats.binomial import DEFAULT_RESAMPLES
from ..stats.rates import informedness
from .balanced_accuracy import balanced_accuracy_difference
from ..stats.vocabulary import check_confidence_level
from ..stats.vocabulary import check_n_resamples
from ..stats.vocabulary import check_seed
from ..stats.distributions import z_value
from ..stats.rates import INFORMEDNESS_AVERAGES
from ..stats.intervals import informedness_average
from ..stats.paired_joint import bootstrap_joint
from ..stats.paired_joint import canonical
from ..stats.paired_joint import check_difference_zero_division
from ..stats.paired_joint import check_joint
from ..stats.paired_joint import finish_difference
from ..stats.paired_joint import marginals
from ..stats.paired_joint import percentile_interval
from ..stats.paired_joint import row_sizes
from ..stats.paired_joint import selected_classes
from ..stats.paired_joint import smoothed_shares
from ..stats.paired_tests import score_p_value
from ..stats.paired_tests import variance_terms
from ..stats.design_effect import clustered_squares
from ..stats.intervals import informedness_gradient
from ..glue.outputs import informedness_interval_outputs
from ..stats.averaging import apply_zero_division
from ..stats.binomial import MAX_BOOTSTRAP_CELLS
from ..stats.binomial import auto_resamples
from ..stats.rates import informedness_weights
from ..stats.rates import one_vs_rest_difference
from ..counting.counts import NO_SAMPLES
from ..glue.reduction import P_VALUE_ONLY_LEVEL
from ..stats.intervals import recall_influence
from ..counting.inputs import to_python
from ..counting.confusion import confusion_counts
from ..counting.confusion import count_labels
from ..counting.judges import count_judges_batch
from ..counting.judges import judges_counts
from ..counting.paired import has_baseline
from ..counting.paired import paired_counts
from ..counting.store import Store
from ..glue.metric import LabelsMetric
from ..glue.metric import one_judge_name
from ..glue.metric import several_judges
from ..glue.scored_ranking import THRESHOLD_FIX
from ..counting.judge_scores import ScoredJudges
from ..counting.judge_scores import check_vocabulary
from ..counting.judge_scores import count_judge_rows
from ..counting.judge_scores import judges_or_scores
from ..judges.unlabeled import JUDGE_INPUTS
from ..judges.unlabeled import JudgedCounts
from ..judges.unlabeled import UNALIGNED_INPUTS
from ..judges.unlabeled import count_groups
from ..judges.unlabeled import count_unlabeled
from ..judges.unlabeled import judged_counts
from ..judges.unlabeled import judged_results


# Scores become labels with `threshold` only for judges ranked together (judges=).
THRESHOLD_NEEDS_JUDGES = ("threshold: informedness turns scores into labels only for two or more judges ranked with "
                          "judges={name: scores}; for one system's scores pass labels (score >= a cut), or use "
                          "balanced_accuracy, whose threshold applies to predictions.")
LABELS_FIX = "turn them into labels first (informedness compares labels; score-giving judges are ranked with judges= and threshold=)"

# Informedness takes labels only; scores must become labels first.
SCORES_HINT_LABELS_ONLY = (
    "Informedness compares labels: turn scores into labels first (e.g. argmax, or score >= a threshold: 0.5 for "
    "probabilities, or one tuned on another split, where balanced_accuracy with threshold='auto' finds the best)."
)


def informedness_from_counts(counts: ConfusionCounts, options) -> dict:
    """Informedness (and its interval, markedness, per-class values, confusion matrix) from confusion counts.

    ``options``: every option of ``compute``, resolved and checked; ``counts`` is what
    ``compute`` counted from samples, or a confusion matrix given to it.
    """
    average, class_mask, zero_division, confidence_level, return_markedness, return_per_class = (options[name] for name in (
        "average", "class_mask", "zero_division", "confidence_level", "return_markedness", "return_per_class"))
    encoded = counts.encoded
    if counts.reason is not None and not (encoded.num_classes or encoded.unobserved):
        return undefined_informedness(counts.reason, confidence_level, return_markedness)  # no class to check class_mask against
    averaging = Averaging.over(  # checks class_mask against the classes, as the other modules do
        encoded.num_classes, class_mask, zero_division,
        observed=encoded.classes if encoded.unobserved else None, unobserved=encoded.unobserved,
    )
    if counts.reason is not None:
        return undefined_informedness(counts.reason, confidence_level, return_markedness)
    if return_per_class:
        counts.check_materialised("return_per_class")
    if confidence_level is not None:
        check_informedness_interval(encoded, average, zero_division, options["ci_method"], options["n_resamples"])
    class_counts = counts.class_counts()
    if not class_counts.total > 0:
        return undefined_informedness(NO_SAMPLES, confidence_level, return_markedness)
    value, averaged, per_class_informedness = informedness(
        class_counts.tp, class_counts.support, class_counts.predicted, average, averaging)
    result = {"informedness": float(value)}
    reason = averaging.reason(int(averaged), "fewer_than_two_reference_classes", float(value))
    if zero_division == "skip" and reason is None:
        # A predicted class without references (often a label typo: 'Safe' for 'safe') is left
        # out; balanced accuracy warns of it by the same rule.
        warn_classes_without_references(
            "Informedness", class_counts.support, class_counts.predicted, encoded.classes, averaging, False,
            "which then averages the other classes")
    if reason:
        result["reason"] = reason
        if confidence_level is not None:
            result["informedness_ci"] = [math.nan, math.nan]
    elif confidence_level is not None:
        result.update(informedness_interval_outputs(
            [(counts, class_counts, value, averaging)], average=average, confidence_level=confidence_level,
            ci_method=options["ci_method"], n_resamples=options["n_resamples"], seed=options["seed"])[0])
    per_class = {"per_class_informedness": per_class_informedness}
    if return_markedness:
        markedness, per_class["per_class_markedness"] = markedness_outputs(class_counts, average, averaging, zero_division)
        result.update(markedness)
    result.update(class_outputs(counts, class_counts, per_class, return_per_class=return_per_class,
                                return_confusion_matrix=options["return_confusion_matrix"], predicted_per_class=True))
    return to_python(result)


def informedness_intervals(systems, options) -> List[Optional[Dict[str, Any]]]:
    """Each system's ``informedness_ci`` outputs as ``informedness_from_counts`` gives them
    (``MetricSpec.intervals``: the judges ranked by ``glue.ranking``), all of them in one call of
    ``informedness_interval_outputs``. None for a system left to ``informedness_from_counts``: an
    undefined value."""
    average, class_mask, zero_division, confidence_level = (options[name] for name in (
        "average", "class_mask", "zero_division", "confidence_level"))
    found: List[Optional[Dict[str, Any]]] = [None] * len(systems)
    if confidence_level is None:
        return found
    positions, batch = [], []
    for index, counts in enumerate(systems):
        encoded = counts.encoded
        if counts.reason is not None:
            continue
        averaging = Averaging.over(encoded.num_classes, class_mask, zero_division,
                                   observed=encoded.classes if encoded.unobserved else None, unobserved=encoded.unobserved)
        check_informedness_interval(encoded, average, zero_division, options["ci_method"], options["n_resamples"])
        class_counts = counts.class_counts()
        if not class_counts.total > 0:
            continue
        value, averaged, _ = informedness(class_counts.tp, class_counts.support, class_counts.predicted, average, averaging)
        if averaging.reason(int(averaged), "fewer_than_two_reference_classes", float(value)):
            continue
        positions.append(index)
        batch.append((counts, class_counts, value, averaging))
    for index, outputs in zip(positions, informedness_interval_outputs(
            batch, average=average, confidence_level=confidence_level, ci_method=options["ci_method"],
            n_resamples=options["n_resamples"], seed=options["seed"])):
        found[index] = outputs
    return found


def check_informedness_interval(encoded, average: str, zero_division: Any, ci_method: Optional[str], n_resamples: Optional[int]) -> None:
    """Refuse, before any dense matrix is built, an informedness interval that cannot be had."""
    num_classes = encoded.num_classes
    if encoded.unobserved and zero_division != "skip" and average == "macro":
        raise ValueError(
            f"confidence_level: no interval for average='macro' with zero_division={zero_division!r} over "
            f"num_classes={num_classes + encoded.unobserved:,} classes, found too many to materialise; "
            "pass `labels` with the classes to average, or zero_division='skip'."
        )
    if num_classes > 2:
        check_multiclass_interval(ci_method, num_classes, n_resamples)


def check_multiclass_interval(ci_method: Optional[str], num_classes: int, n_resamples: Optional[int]) -> None:
    """Refuse an interval that multi-class informedness cannot have (before the dense matrix is built)."""
    if ci_method in ("agresti_coull", "wilson"):
        raise ValueError(
            f"ci_method: {ci_method!r} has no analytic form for multi-class informedness ({num_classes} classes: "
            "J is then not a sum of independent rates); expected ci_method='score', 'delta', 'bootstrap' or None."
        )
    if ci_method != "bootstrap":
        return
    if n_resamples is None:
        n_resamples = auto_resamples(num_classes * num_classes)
    # The bootstrap draws n_resamples K x K matrices.
    cells = num_classes * num_classes
    if n_resamples * cells > MAX_BOOTSTRAP_CELLS:
        fits = MAX_BOOTSTRAP_CELLS // cells
        hint = f"Pass n_resamples <= {fits:,}." if fits else "No bootstrap fits: pass confidence_level=None."
        raise ValueError(
            f"n_resamples: the bootstrap of a {num_classes} x {num_classes} confusion matrix draws n_resamples x "
            f"{cells:,} cells; {n_resamples:,} resamples exceed the limit of {MAX_BOOTSTRAP_CELLS:,} cells. {hint}"
        )


def markedness_outputs(class_counts, average: str, averaging: Averaging, zero_division: Any) -> Tuple[Dict[str, Any], np.ndarray]:
    """``({"markedness": ..., "markedness_reason" if undefined}, per-class markedness)``.

    Markedness is informedness with the roles of references and predictions exchanged:
    per class ``MK_c = PPV_c + NPV_c - 1``, averaged with the markedness weights of
    ``rates.informedness_weights``.
    """
    per_class = apply_zero_division(
        one_vs_rest_difference(class_counts.tp, class_counts.predicted, class_counts.support), zero_division)
    _, weights = informedness_weights(average, class_counts.support, class_counts.predicted)
    markedness, averaged = averaging.combine(per_class, weights)
    outputs = {"markedness": float(markedness)}
    reason = averaging.reason(int(averaged), "fewer_than_two_predicted_classes", float(markedness))
    if reason:
        outputs["markedness_reason"] = reason
    return outputs, per_class


def undefined_informedness(reason, confidence_level, return_markedness):
    """The result when informedness is undefined: NaN, the reason, a NaN interval and markedness if asked."""
    result = {"informedness": math.nan, "reason": reason}
    if confidence_level is not None:
        result["informedness_ci"] = [math.nan, math.nan]
    if return_markedness:
        result.update(markedness=math.nan, markedness_reason=reason)
    return result


def informedness_influence(counts: ConfusionCounts, options):
    """How one counted sample moves informedness (the design effect's influence): binary, J = 2 BA - 1,
    a mean of recalls' (D does not see scale); else the gradient of J in the confusion counts."""
    if counts.num_classes == 2:
        class_counts = counts.class_counts()
        return recall_influence(class_counts.tp, class_counts.support, Averaging(2))
    averaging = Averaging.over(counts.num_classes, options["class_mask"], options["zero_division"])
    return informedness_gradient(counts.matrix(), options["average"], averaging)


INFORMEDNESS_METHODS = ("newcombe", "delta", "bootstrap")


def _gradient(confusion, average, mask, zero_division):
    """``intervals.informedness_gradient`` with the comparison's class mask; 0 where the value is undefined."""
    averaging = Averaging(confusion.shape[-1], mask, zero_division=zero_division)
    return np.nan_to_num(informedness_gradient(confusion, average, averaging))


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
    design_factor: float = 1.0,
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
        stratified multinomial covariance of the joint rows, taken at the shares smoothed
        by one pseudo-item of disagreement per class (``smoothed_shares``). "bootstrap":
        percentile interval of the smoothed stratified bootstrap of the joint counts.
        None: "newcombe" for K = 2, else "delta".
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
    zero_division = check_difference_zero_division(zero_division)
    joint, joint_w2 = check_joint(joint, joint_w2)
    num_classes = joint.shape[-1]
    if method is None:
        method = "newcombe" if num_classes == 2 else "delta"
    if method not in INFORMEDNESS_METHODS:
        raise ValueError(f"method: expected one of {INFORMEDNESS_METHODS} or None, found {method!r}.")
    if method == "newcombe" and num_classes != 2:
        raise ValueError(f"method: 'newcombe' needs a binary task (J = 2 BA - 1), found {num_classes} classes; use 'delta' or 'bootstrap'.")
    mask = None if class_mask is None else np.flatnonzero(selected_classes(class_mask, num_classes))
    joint, joint_w2, orientation = canonical(joint, joint_w2)

    confusion_a, confusion_b = marginals(joint)
    totals, sizes = row_sizes(joint, clustered_squares(joint, joint_w2, design_factor))
    value = informedness_average(confusion_a, average, mask, zero_division)
    baseline = informedness_average(confusion_b, average, mask, zero_division)
    difference = value - baseline
    fewer_than_two = (totals > 0).sum(axis=-1) < 2

    if num_classes == 2:
        # J = 2 BA - 1 for every average (both classes have references): the balanced-
        # accuracy score test, and for "newcombe" its interval, doubled.
        paired = balanced_accuracy_difference(
            joint, confidence_level=confidence_level, method="bootstrap" if method == "bootstrap" else "newcombe",
            n_resamples=n_resamples, seed=seed, joint_w2=joint_w2, design_factor=design_factor,
        )
        p_value = np.asarray(paired["p_value"], dtype=np.float64)
        if method != "delta":
            # `joint` is canonical already, so `paired` comes back unflipped.
            low, high = (2.0 * np.asarray(x) for x in paired["difference_ci"])
        else:
            gradient_a = _gradient(confusion_a, average, mask, zero_division)
            gradient_b = _gradient(confusion_b, average, mask, zero_division)
            delta_variance, _ = variance_terms(joint, totals, sizes, gradient_a, gradient_b, smoothed_shares(joint, totals, sizes))
            half = z_value(confidence_level) * np.sqrt(delta_variance)
            low, high = difference - half, difference + half
    else:
        gradient_a = _gradient(confusion_a, average, mask, zero_division)
        gradient_b = _gradient(confusion_b, average, mask, zero_division)
        delta_variance, score_variance = variance_terms(
            joint, totals, sizes, gradient_a, gradient_b, smoothed_shares(joint, totals, sizes)
        )
        p_value = score_p_value(difference, score_variance)
        if method == "delta":
            half = z_value(confidence_level) * np.sqrt(delta_variance)
            low, high = difference - half, difference + half
        else:

            def statistic(resampled):
                a, b = marginals(resampled)
                return informedness_average(a, average, mask, zero_division) - informedness_average(b, average, mask, zero_division)

            replicates = bootstrap_joint(joint, totals, sizes, statistic, n_resamples, seed)
            low, high = percentile_interval(replicates, confidence_level, orientation == 0)
    low, high = np.clip(low, -2.0, 2.0), np.clip(high, -2.0, 2.0)
    undefined_ci = fewer_than_two | np.isnan(difference)
    low, high, p_value = (np.where(undefined_ci, np.nan, x) for x in (low, high, p_value))
    reason = "fewer_than_two_reference_classes" if (np.ndim(fewer_than_two) == 0 and fewer_than_two) else (
        "empty_class_mask_after_filtering" if class_mask is not None else "no_defined_classes"
    )
    return finish_difference((value, baseline, difference, low, high, p_value), orientation, reason)


def informedness_paired_difference(joint, joint_w2, options, method, design_factor=1.0):
    """The paired difference of two systems' informedness (method None: Newcombe/MOVER when binary,
    the delta method otherwise)."""
    return informedness_difference(
        joint, joint_w2=joint_w2, design_factor=design_factor, average=options["average"], confidence_level=options["confidence_level"] or P_VALUE_ONLY_LEVEL,
        method=method, n_resamples=options["n_resamples"] or DEFAULT_RESAMPLES, seed=options["seed"],
        class_mask=options["class_mask"], zero_division=options["zero_division"])


class JudgeMetric(LabelsMetric, metaclass=abc.ABCMeta):
    """A metric of a judge's labels (``LabelsMetric``): labels only (scores raise, naming the fix),
    and beside its value the judge's uses - the prevalence of its labels on unlabeled data,
    corrected for its errors, and its diagnostics per group of golden items (``judges/``)."""

    INPUTS = ("sample_weight", "baseline_predictions", "clusters", "judges") + JUDGE_INPUTS
    UNALIGNED_INPUTS = UNALIGNED_INPUTS

    def _count(self, predictions, references, inputs, options):
        if inputs.get("judges") is not None:
            other = next((name for name in JUDGE_INPUTS if inputs.get(name) is not None), None)
            if other is not None:
                raise ValueError(f"{other}: expected it with one judge's predictions, found judges= too; rank the judges first, "
                                 "then pass the chosen judge's labels as predictions.")
            return count_judge_rows(count_labels, predictions, references, inputs, options, scores=False,
                                    scores_hint=SCORES_HINT_LABELS_ONLY)
        if predictions is None and references is None:
            store = Store()  # a batch of the judge's labels on unlabeled data only
        else:
            store = count_judges_batch(count_labels, predictions, references, inputs, scores=False,
                                       scores_hint=SCORES_HINT_LABELS_ONLY)
        count_groups(store, predictions, references, inputs.get("groups"))
        return count_unlabeled(store, inputs)

    def _counts(self, stored, options):
        # J is the same for either class of a binary task: pos_label only says which class the
        # corrected prevalence (and the per-group TPR/FPR) is of, and labels other than 0/1 need it
        # for those outputs (judged_results refuses to guess). With a baseline, the golden
        # set's counts are those of `predictions` (the judge corrected for).
        if several_judges(stored):
            return judges_or_scores(stored, options, SCORES_HINT_LABELS_ONLY, THRESHOLD_FIX)
        if options.get("threshold") is not None:
            raise ValueError(THRESHOLD_NEEDS_JUDGES + f" Found threshold={options['threshold']!r} with one system.")
        paired = paired_counts(stored, options, SCORES_HINT_LABELS_ONLY) if has_baseline(stored) else None
        gold = confusion_counts(stored, options, SCORES_HINT_LABELS_ONLY) if paired is None else paired.system
        if paired is None:
            check_vocabulary(gold, one_judge_name(stored), options, LABELS_FIX, judge=False)
        return replace(judged_counts(stored, gold, options), paired=paired)

    def _counts_from_matrix(self, matrix, options, stored=None):
        confusion = ConfusionCounts.from_matrix(matrix, options["labels"], pos_label=options["pos_label"])
        return JudgedCounts(confusion, {}) if stored is None else judged_counts(stored, confusion, options)

    def _check_options(self, options):
        if options.get("threshold") is not None and not getattr(self, "judges_given", False):
            raise ValueError(THRESHOLD_NEEDS_JUDGES + f" Found threshold={options['threshold']!r} without judges.")
        super()._check_options(options)

    def _from_counts(self, counts, options):
        if isinstance(counts, ScoredJudges):  # two or more judges: ranked as by every label metric
            return super()._from_counts(counts, options)
        # The judge's uses (corrected prevalence, per-group diagnostics) follow informedness's outputs.
        own = super()._from_counts(counts.paired if counts.paired is not None else counts.confusion, options)
        return {**own, **judged_results(counts, options)}
