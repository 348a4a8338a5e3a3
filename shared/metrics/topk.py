"""Balanced top-k accuracy as a spec: its values (one k, or several) from rank counts, their
intervals, and the evaluate glue of a metric of score rows.

What ``balanced_topk_accuracy/balanced_topk_accuracy.py`` names in its ``SPEC``; the options
reach these functions resolved and checked (``glue/options.py``; k against the number of
score columns once they are known).
"""

import abc
import math

import numpy as np



from ..stats.averaging import apply_zero_division
from ..stats.averaging import Averaging
from ..counting.topk import check_k_values
from ..glue.options import check_labels
from ..stats.binomial import DEFAULT_CI_METHOD
from ..counting.counts import NO_SAMPLES
from .balanced_accuracy import recall_influence
from .balanced_accuracy import recall_mean_interval
from ..counting.counts import safe_ratio
from ..counting.inputs import to_python
from ..counting.topk import TopkCounts
from ..counting.topk import check_topk_options
from ..counting.topk import count_scores
from ..counting.topk import rank_counts
from ..glue.metric import CountsMetric
from ..glue.reduction import MetricSpec
from ..glue.reduction import clustered_interval


# The interval key of one k (with k_list, the per-k keys are named from it).
TOPK_CI = "balanced_topk_accuracy_ci"


def balanced_topk_accuracy_from_counts(counts: TopkCounts, options) -> dict:
    """Balanced top-k accuracy (and its intervals, per-class recalls) from rank counts.

    ``options``: every option of ``compute``, resolved and checked; ``counts`` is what
    ``compute`` counted from scores (``topk.rank_counts``).
    """
    k, k_list, class_mask, zero_division, confidence_level = (options[name] for name in (
        "k", "k_list", "class_mask", "zero_division", "confidence_level"))
    num_classes = counts.num_classes
    k_values, several = check_k_values(k, k_list, num_classes)
    with_ci = confidence_level is not None
    if num_classes == 0:  # only empty lists and no `labels`: no classes to check class_mask against
        return undefined_topk(k_values, several, counts.reason or NO_SAMPLES, with_ci)
    averaging = Averaging.over(num_classes, class_mask, zero_division)  # checks the mask's range first
    if counts.reason is not None:
        return undefined_topk(k_values, several, counts.reason, with_ci)
    hits, support = counts.hits(k_values), counts.support()
    recall = safe_ratio(hits, support[:, None])
    balanced = {}
    for column, k_value in enumerate(k_values):
        value, averaged = averaging.combine(recall[:, column])  # the same classes for every k
        balanced[k_value] = float(value)
    reason = averaging.reason(int(averaged), "no_reference_classes", balanced[k_values[0]])
    if reason is not None:
        return undefined_topk(k_values, several, reason, with_ci)
    interval_per_k, cluster_outputs = None, {}
    if with_ci:
        # Weighted: each class varies as on Kish's size; clustered (tokens of one sequence): on fewer still.
        sizes = counts.effective_sizes() if counts.w is not None else support
        interval_per_k = {}
        for column, k_value in enumerate(k_values):
            outputs, _ = clustered_interval(
                TOPK_CI, counts, lambda: recall_influence(hits[:, column], support, averaging, k=k_value), confidence_level,
                lambda effect: recall_mean_interval(
                    hits[:, column], support, confidence_level=confidence_level, method=options["ci_method"] or DEFAULT_CI_METHOD,
                    n_resamples=options["n_resamples"], seed=options["seed"], averaging=averaging, effective_support=effect.scale(sizes)))
            interval_per_k[k_value] = outputs.pop(TOPK_CI)  # NaN when refused
            for key, value in topk_cluster_outputs(outputs, k_value, several).items():
                cluster_outputs[key] = {**cluster_outputs.get(key, {}), **value} if isinstance(value, dict) else value
    result = {**topk_named_outputs(balanced, several, interval_per_k), **cluster_outputs}
    if options["return_per_class"]:
        per_class = {k_value: apply_zero_division(recall[:, column], zero_division) for column, k_value in enumerate(k_values)}
        result["per_class_recall"] = per_class if several else per_class[k_values[0]]
        result["support_per_class"] = support
        result["classes"] = counts.classes
    return to_python(result)


def topk_cluster_outputs(outputs, k_value, several):
    """What the result says of the clusters behind the top-``k_value`` interval (``clustered_interval``'s
    outputs but the interval): ``num_clusters``, ``design_effect`` (per k with `k_list`: ``{k: value}``),
    or the interval's reason."""
    if several and "design_effect" in outputs:
        outputs["design_effect"] = {k_value: outputs["design_effect"]}
    return outputs


def topk_named_outputs(balanced, several, interval_per_k=None):
    """The result keys: one value for `k`; for `k_list` the {k: value} dict plus a flat key per k.

    With intervals, each value's `_ci` key follows it.
    """
    with_ci = interval_per_k is not None
    if not several:
        (k_value,) = balanced
        result = {"balanced_topk_accuracy": balanced[k_value]}
        if with_ci:
            result["balanced_topk_accuracy_ci"] = interval_per_k[k_value]
        return result
    result = {"balanced_topk_accuracy": dict(balanced)}
    if with_ci:
        result["balanced_topk_accuracy_ci"] = {k_value: list(interval) for k_value, interval in interval_per_k.items()}
    for k_value, value in balanced.items():
        result[f"balanced_top{k_value}_accuracy"] = value
        if with_ci:
            result[f"balanced_top{k_value}_accuracy_ci"] = list(interval_per_k[k_value])
    return result


def undefined_topk(k_values, several, reason, with_ci):
    nan_values = {k_value: math.nan for k_value in k_values}
    nan_intervals = {k_value: [math.nan, math.nan] for k_value in k_values} if with_ci else None
    return to_python({**topk_named_outputs(nan_values, several, nan_intervals), "reason": reason})


def accept_k(value, name):
    """k and k_list are checked by ``_check_data_options``, against the number of score columns once known."""
    return value


def check_column_names(value, name):
    """None or the class names of the score columns, in column order."""
    if value is not None and (isinstance(value, (str, bytes, dict)) or not isinstance(value, (list, tuple, np.ndarray))):
        raise TypeError(f"{name}: expected a list with one class name per score column, found {type(value).__name__}.")
    return check_labels(value, name)


class TopkMetric(CountsMetric, metaclass=abc.ABCMeta):
    """A metric of score rows (one column per class) and labels, declared by its ``SPEC``: rows
    are counted as, per class, how many classes score above and tie with the reference
    (``counting/topk.py``), which the spec reduces. ``k`` / ``k_list`` are checked against the
    number of score columns once they are known (at ``evaluate.load`` when given there)."""

    SPEC: MetricSpec

    # k and k_list are one option: one given to compute replaces both given to evaluate.load.
    ALTERNATIVE_OPTIONS = (("k", "k_list"),)

    @abc.abstractmethod
    def _info(self):
        """The module's docs (abstract here: ``evaluate.load`` takes the module's own class)."""
        raise NotImplementedError

    def _check_data_options(self, options, predictions, stored):
        # k's range is the number of score columns: read from the scores' shape (or the added
        # batches) so that a bad k is named with its range before any data is read.
        check_topk_options(options, predictions, stored)

    INPUTS = ("sample_weight", "clusters")

    def _count_options(self):
        # add_batch ranks for a k given to evaluate.load; otherwise it keeps every rank.
        return super()._count_options().replace(clip="k" in self.load_options or "k_list" in self.load_options)

    def _count(self, predictions, references, inputs, options):
        return count_scores(predictions, references, inputs.get("sample_weight"), options["labels"], options["k"],
                            options["k_list"], options.get("clip", True), previous=self.writer, clusters=inputs.get("clusters"))

    def _counts(self, stored, options):
        return rank_counts(stored, options)

    def _from_counts(self, counts, options):
        return self.SPEC.value(counts, options)
