"""The optional parts of a label module's result, assembled from its ``ConfusionCounts``.

A module's ``<metric>_from_counts`` computes its value and then adds what was asked for:
an interval, markedness, per-class lists, the confusion matrix. Those pieces are built
here, each returning the keys it adds (in the order the result shows them), so the
reductions stay short and the modules spell the same keys the same way.

Example: the per-class lists and the confusion matrix of a two-class problem.

>>> from types import SimpleNamespace
>>> encoded = SimpleNamespace(classes=["no", "yes"])
>>> counts = SimpleNamespace(encoded=encoded, matrix=lambda: np.array([[3, 1], [0, 2]]))
>>> class_counts = SimpleNamespace(support=np.array([4, 2]), predicted=np.array([3, 3]))
>>> outputs = class_outputs(counts, class_counts, {"per_class_recall": [0.75, 1.0]},
...                         return_per_class=True, return_confusion_matrix=True)
>>> list(outputs)
['per_class_recall', 'support_per_class', 'classes', 'confusion_matrix']
"""

import math
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..stats.averaging import Averaging
from ..stats.averaging import apply_zero_division
from ..stats.binomial import DEFAULT_CI_METHOD
from ..stats.binomial import MAX_BOOTSTRAP_CELLS
from ..stats.binomial import auto_resamples
from ..stats.binomial import Interval
from .reduction import class_order_key
from .reduction import clustered_intervals
from ..stats.intervals import informedness_gradient
from ..stats.intervals import informedness_interval
from ..stats.intervals import recall_influence
from ..stats.rates import informedness_weights
from ..stats.rates import one_vs_rest_difference


def class_outputs(counts, class_counts, per_class: Dict[str, Any], *, return_per_class: bool,
                  return_confusion_matrix: bool, predicted_per_class: bool = False) -> Dict[str, Any]:
    """Per-class lists (``per_class``, then the support, the predicted counts if asked, the
    classes) and the confusion matrix, as far as they were asked for."""
    outputs: Dict[str, Any] = {}
    if return_per_class:
        outputs.update(per_class)
        outputs["support_per_class"] = class_counts.support
        if predicted_per_class:
            outputs["predicted_per_class"] = class_counts.predicted
        outputs["classes"] = counts.encoded.classes
    if return_confusion_matrix:
        outputs["confusion_matrix"] = counts.matrix()
        outputs["classes"] = counts.encoded.classes
    return outputs


# ---------------------------------------------------------------- informedness

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


def informedness_interval_inputs(counts, class_counts, average: str, averaging: Averaging):
    """What an informedness interval is computed from, for one system as for several
    (``informedness_interval_outputs``): the confusion
    matrix, the cells' squared weights (None unweighted), the value's influence (a function, called
    only with clusters) and each class's size (Kish's effective size with weights)."""
    matrix = counts.matrix("confidence_level")
    squared_weights = None
    if counts.w is not None:
        # Informedness does not depend on the weights' scale: with the largest weight 1,
        # the bootstrap's products of weighted counts stay finite near float64's limits.
        scale = counts.w.max()
        matrix = matrix / scale
        # Each cell's sum of squared weights on that scale (w2 holds mantissas of 4**w2_exponent).
        squared_weights = np.zeros(matrix.shape)
        np.add.at(squared_weights, (counts.reference, counts.prediction), counts.w2 * np.ldexp(1.0 / scale, counts.w2_exponent) ** 2)
    # Clustered samples (sequences, images, conversations) are worth fewer independent ones.
    if counts.encoded.num_classes == 2:  # J = 2 BA - 1: a mean of recalls' influence, scaled (D does not see scale)
        influence = (lambda: recall_influence(class_counts.tp, class_counts.support, Averaging(2)))
    else:
        influence = (lambda: informedness_gradient(matrix, average, averaging))
    support = counts.effective_sizes() if counts.w is not None else class_counts.support
    return matrix, squared_weights, influence, support


def informedness_interval_outputs(systems: List[Tuple[Any, Any, float, Averaging]], *, average: str, confidence_level: float,
                                  ci_method: Optional[str], n_resamples: Optional[int], seed: Optional[int]) -> List[Dict[str, Any]]:
    """``informedness_ci`` (and ``informedness_ci_reason`` when it is undefined, the clusters' outputs)
    of each system ``(counts, class_counts, value, averaging)`` of a defined value, through the one
    interval step (``reduction.clustered_intervals``): the default score intervals of systems of one
    class order in one vectorised call (the judges ranked by ``glue.ranking``: J intervals for about
    the cost of one; each problem on the leading axis computed as it is alone), any other method,
    and a system whose batched interval is NaN (for its reason), one system at a time."""
    key, method = "informedness_ci", ci_method or DEFAULT_CI_METHOD
    found: List[Dict[str, Any]] = [{}] * len(systems)
    inputs: Dict[int, Any] = {}
    for index, (counts, class_counts, _, averaging) in enumerate(systems):
        if np.count_nonzero(class_counts.support) < 2:
            # Only a numeric zero_division defines the value here: a fixed convention, not an estimate.
            found[index] = {key: [np.nan, np.nan], f"{key}_reason": "fewer_than_two_reference_classes"}
        else:
            inputs[index] = informedness_interval_inputs(counts, class_counts, average, averaging)
    measured = list(inputs)

    def alone(index, effect):
        counts, _, value, averaging = systems[index]
        matrix, squared_weights, _, support = inputs[index]
        return informedness_interval(
            matrix, confidence_level=confidence_level, method=method, n_resamples=n_resamples, seed=seed, average=average,
            averaging=averaging, estimate=value, effective_support=effect.scale(support) if effect.num_clusters else counts.effective_sizes(),
            squared_weights=squared_weights, variance_scale=effect.factor)

    def intervals(ready):
        groups: Dict[Any, List[Tuple[int, int, Any]]] = {}
        for position, (row, effect) in enumerate(ready):
            index = measured[row]
            counts = systems[index][0]
            effective = effect.scale(inputs[index][3]) if effect.num_clusters else counts.effective_sizes()
            together = (class_order_key(counts.encoded), effective is None) if method == "score" else position
            groups.setdefault(together, []).append((position, index, effective))
        results: List[Any] = [None] * len(ready)
        for members in groups.values():
            if len(members) == 1:
                position, index, _ = members[0]
                results[position] = alone(index, ready[position][1])
                continue
            averaging = systems[members[0][1]][3]
            interval = informedness_interval(
                np.stack([inputs[index][0] for _, index, _ in members]), confidence_level=confidence_level, method=method,
                average=average, averaging=averaging, estimate=np.array([systems[index][2] for _, index, _ in members], dtype=np.float64),
                effective_support=None if members[0][2] is None else np.stack([effective for *_, effective in members]))
            for row, (position, index, _) in enumerate(members):
                low, high = interval.low[row], interval.high[row]
                results[position] = alone(index, ready[position][1]) if math.isnan(low) or math.isnan(high) else Interval(low, high)
        return results

    pairs = [(systems[index][0], inputs[index][2]) for index in measured]
    for index, (outputs, interval) in zip(measured, clustered_intervals(key, pairs, confidence_level, intervals)):
        if interval is not None and interval.reason is not None:
            outputs[f"{key}_reason"] = interval.reason
        found[index] = outputs
    return found


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
