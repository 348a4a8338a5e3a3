"""Balanced accuracy as a spec: its value from confusion counts, its influence and paired difference.

What ``balanced_accuracy/balanced_accuracy.py`` names in its ``SPEC``; the options reach
these functions resolved and checked (``glue/options.py``).
"""

import math
from typing import Any, Dict, List, Mapping, Optional

import numpy as np

from ..stats.averaging import apply_zero_division
from ..stats.averaging import Averaging
from ..stats.averaging import warn_classes_without_references
from ..stats.comparison import balanced_accuracy_difference
from ..glue.outputs import class_outputs
from ..counting.confusion import ConfusionCounts
from ..stats.binomial import DEFAULT_CI_METHOD
from ..glue.reduction import class_order_key
from ..glue.reduction import clustered_interval
from ..stats.design_effect import design_effect
from ..glue.reduction import P_VALUE_ONLY_LEVEL
from ..stats.intervals import recall_influence
from ..stats.intervals import recall_mean_interval
from ..counting.clusters import RecallInfluence
from ..stats.distributions import safe_ratio
from ..counting.inputs import to_python


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
    if zero_division == "skip":
        warn_undefined_recall(class_counts, encoded, averaging)
    value, averaged = averaging.combine(per_class_recall)
    reason = averaging.reason(int(averaged), "no_reference_classes", float(value))
    if reason is not None:
        return {**result, "reason": reason}
    result["balanced_accuracy"] = float(value)
    if confidence_level is not None:
        # Clustered samples (images, sequences, conversations) are worth fewer independent ones.
        sizes = counts.effective_sizes() if counts.w is not None else class_counts.support
        outputs, _ = clustered_interval(
            "balanced_accuracy_ci", counts, lambda: recall_influence(class_counts.tp, class_counts.support, averaging), confidence_level,
            lambda effect: recall_mean_interval(
                class_counts.tp, class_counts.support, confidence_level=confidence_level, method=options["ci_method"] or DEFAULT_CI_METHOD,
                n_resamples=options["n_resamples"], seed=options["seed"], averaging=averaging, effective_support=effect.scale(sizes)))
        result.update(outputs)
    per_class = {}
    if options["return_per_class"]:
        counts.check_materialised("return_per_class")
        per_class["per_class_recall"] = apply_zero_division(per_class_recall, zero_division)
    result.update(class_outputs(counts, class_counts, per_class, return_per_class=options["return_per_class"],
                                return_confusion_matrix=options["return_confusion_matrix"]))
    return to_python(result)


def balanced_accuracy_intervals(systems, options) -> List[Optional[Dict[str, Any]]]:
    """Each system's ``balanced_accuracy_ci`` outputs as ``balanced_accuracy_from_counts`` gives them,
    the default score intervals of all of them in one vectorised call (the judges ranked by
    ``glue.ranking``: J intervals for about the cost of one; the same numbers, as each problem on
    a leading axis is computed alone). None for a system left to ``balanced_accuracy_from_counts``:
    an undefined value, another ``ci_method``."""
    key, confidence_level = "balanced_accuracy_ci", options["confidence_level"]
    found: List[Optional[Dict[str, Any]]] = [None] * len(systems)
    if confidence_level is None or (options["ci_method"] or DEFAULT_CI_METHOD) != "score":
        return found
    batches: Dict[Any, Any] = {}
    for index, counts in enumerate(systems):
        encoded = counts.encoded
        if counts.reason is not None or counts.optimal_threshold is not None:
            continue
        averaging = Averaging.over(encoded.num_classes, options["class_mask"], options["zero_division"], options["adjusted"],
                                   observed=encoded.classes if encoded.unobserved else None, unobserved=encoded.unobserved)
        class_counts = counts.class_counts()
        value, averaged = averaging.combine(safe_ratio(class_counts.tp, class_counts.support))
        if averaging.reason(int(averaged), "no_reference_classes", float(value)) is not None:
            continue
        sizes = counts.effective_sizes() if counts.w is not None else class_counts.support
        effect = design_effect(counts, lambda: recall_influence(class_counts.tp, class_counts.support, averaging), confidence_level)
        if effect.reason is not None:
            found[index] = effect.outputs(key)
            continue
        batches.setdefault(class_order_key(encoded), (averaging, []))[1].append((index, class_counts.tp, class_counts.support, effect.scale(sizes), effect))
    for averaging, members in batches.values():
        correct, support, effective = (np.stack([member[part] for member in members]) for part in (1, 2, 3))
        interval = recall_mean_interval(correct, support, confidence_level=confidence_level, method="score",
                                        n_resamples=options["n_resamples"], seed=options["seed"], averaging=averaging,
                                        effective_support=effective)
        for row, (index, *_, effect) in enumerate(members):
            found[index] = {key: [float(interval.low[row]), float(interval.high[row])], **effect.outputs(key)}
    return found


def warn_undefined_recall(class_counts, encoded, averaging):
    """Warn, as scikit-learn does, when an averaged class has predictions (or is a binary
    task's class) but no references: its recall is undefined and left out, so the value is
    the mean recall of the other classes (binary: specificity or sensitivity alone)."""
    warn_classes_without_references(
        "Recall", class_counts.support, class_counts.predicted, encoded.classes, averaging, encoded.binary,
        "which is then the mean recall of the other classes (in a binary task, the recall of the other class alone)")


def balanced_accuracy_influence(counts: ConfusionCounts, options) -> RecallInfluence:
    """How one counted sample moves the mean of recalls (the design effect's influence)."""
    class_counts = counts.class_counts()
    averaging = Averaging.over(counts.num_classes, options["class_mask"], options["zero_division"], options["adjusted"])
    return recall_influence(class_counts.tp, class_counts.support, averaging)


def balanced_accuracy_paired_difference(joint, joint_w2, options, method):
    """The paired difference of two systems' balanced accuracies (Newcombe's interval by default)."""
    return balanced_accuracy_difference(
        joint, joint_w2=joint_w2, confidence_level=options["confidence_level"] or P_VALUE_ONLY_LEVEL, method=method or "newcombe",
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
