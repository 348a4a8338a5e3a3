"""Informedness as a spec: its value (with markedness and per-class outputs) from confusion counts,
its influence and paired difference; and the evaluate glue of a judge metric (corrected
prevalence and per-group diagnostics beside the value).

What ``informedness/informedness.py`` names in its ``SPEC``; the options reach these functions
resolved and checked (``glue/options.py``).
"""

import abc
import math
from dataclasses import replace
from typing import Any, Dict, List, Optional


from ..stats.averaging import Averaging
from ..stats.averaging import warn_classes_without_references
from ..glue.outputs import check_informedness_interval
from ..glue.outputs import class_outputs
from ..counting.confusion import ConfusionCounts
from ..stats.binomial import DEFAULT_CI_METHOD
from ..stats.binomial import DEFAULT_RESAMPLES
from ..stats.rates import informedness
from ..stats.comparison import informedness_difference
from ..stats.intervals import informedness_gradient
from ..glue.outputs import informedness_interval_outputs
from ..glue.outputs import informedness_score_interval_outputs
from ..glue.outputs import markedness_outputs
from ..counting.counts import NO_SAMPLES
from ..glue.reduction import class_order_key
from ..glue.reduction import P_VALUE_ONLY_LEVEL
from ..stats.intervals import recall_influence
from ..counting.inputs import to_python
from ..counting.confusion import confusion_counts
from ..counting.confusion import count_labels
from ..counting.judges import JudgesCounts
from ..counting.judges import count_judges_batch
from ..counting.judges import judges_counts
from ..counting.paired import has_baseline
from ..counting.paired import paired_counts
from ..counting.store import Store
from ..glue.metric import LabelsMetric
from ..glue.metric import one_judge_name
from ..glue.metric import several_judges
from ..glue.ranking import ranking_from_counts
from ..glue.scored_ranking import THRESHOLD_FIX
from ..glue.scored_ranking import rank_scored_judges
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
            counts, class_counts, value, averaging, average=average, confidence_level=confidence_level,
            ci_method=options["ci_method"], n_resamples=options["n_resamples"], seed=options["seed"]))
    per_class = {"per_class_informedness": per_class_informedness}
    if return_markedness:
        markedness, per_class["per_class_markedness"] = markedness_outputs(class_counts, average, averaging, zero_division)
        result.update(markedness)
    result.update(class_outputs(counts, class_counts, per_class, return_per_class=return_per_class,
                                return_confusion_matrix=options["return_confusion_matrix"], predicted_per_class=True))
    return to_python(result)


def informedness_intervals(systems, options) -> List[Optional[Dict[str, Any]]]:
    """Each system's ``informedness_ci`` outputs as ``informedness_from_counts`` gives them, the default
    score intervals of all of them in one vectorised call (the judges ranked by ``glue.ranking``: J
    intervals for about the cost of one; the same numbers). None for a system left to
    ``informedness_from_counts``: an undefined value or interval, another ``ci_method``."""
    average, class_mask, zero_division, confidence_level = (options[name] for name in (
        "average", "class_mask", "zero_division", "confidence_level"))
    found: List[Optional[Dict[str, Any]]] = [None] * len(systems)
    if confidence_level is None or (options["ci_method"] or DEFAULT_CI_METHOD) != "score":
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
        batch.append((counts, class_counts, value, averaging, class_order_key(encoded)))
    for index, outputs in zip(positions, informedness_score_interval_outputs(batch, average=average, confidence_level=confidence_level)):
        found[index] = outputs
    return found


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


def informedness_paired_difference(joint, joint_w2, options, method):
    """The paired difference of two systems' informedness (method None: Newcombe/MOVER when binary,
    the delta method otherwise)."""
    return informedness_difference(
        joint, joint_w2=joint_w2, average=options["average"], confidence_level=options["confidence_level"] or P_VALUE_ONLY_LEVEL,
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
        if isinstance(counts, ScoredJudges):
            return rank_scored_judges(self.SPEC, counts, options)
        if isinstance(counts, JudgesCounts):
            return ranking_from_counts(self.SPEC, counts, options)
        # The judge's uses (corrected prevalence, per-group diagnostics) follow informedness's outputs.
        own = super()._from_counts(counts.paired if counts.paired is not None else counts.confusion, options)
        return {**own, **judged_results(counts, options)}
