"""The optional parts of a label module's result, assembled from its ``ConfusionCounts``.

A module's ``<metric>_from_counts`` computes its value and then adds what was asked for:
an interval, per-class lists, the confusion matrix (informedness's markedness and interval
checks are in ``metrics/informedness.py``). Those pieces are built
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
from ..stats.binomial import DEFAULT_CI_METHOD
from .reduction import clustered_interval
from ..stats.design_effect import design_effect
from ..stats.intervals import informedness_gradient
from ..stats.intervals import informedness_interval
from ..stats.intervals import recall_influence


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

def informedness_interval_inputs(counts, class_counts, average: str, averaging: Averaging):
    """What an informedness interval is computed from, for one system as for several
    (``informedness_interval_outputs``, ``informedness_score_interval_outputs``): the confusion
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


def informedness_interval_outputs(counts, class_counts, value: float, averaging: Averaging, *, average: str,
                                  confidence_level: float, ci_method: Optional[str], n_resamples: Optional[int],
                                  seed: Optional[int]) -> Dict[str, Any]:
    """``informedness_ci`` (and ``informedness_ci_reason`` when it is undefined) of a defined value."""
    if np.count_nonzero(class_counts.support) < 2:
        # Only a numeric zero_division defines the value here: a fixed convention, not an estimate.
        return {"informedness_ci": [np.nan, np.nan], "informedness_ci_reason": "fewer_than_two_reference_classes"}
    matrix, squared_weights, influence, support = informedness_interval_inputs(counts, class_counts, average, averaging)
    outputs, interval = clustered_interval("informedness_ci", counts, influence, confidence_level, lambda effect: informedness_interval(
        matrix, confidence_level=confidence_level,
        method=ci_method or DEFAULT_CI_METHOD,
        n_resamples=n_resamples, seed=seed, average=average, averaging=averaging, estimate=value,
        effective_support=effect.scale(support) if effect.num_clusters else counts.effective_sizes(),
        squared_weights=squared_weights, variance_scale=effect.factor,
    ))
    if interval is not None and interval.reason is not None:
        outputs["informedness_ci_reason"] = interval.reason
    return outputs


def informedness_score_interval_outputs(systems: List[Tuple[Any, Any, float, Averaging, Any]], *, average: str,
                                        confidence_level: float) -> List[Optional[Dict[str, Any]]]:
    """``informedness_interval_outputs`` of several systems with the default ``ci_method`` (score), the
    intervals of all of them in one vectorised call: ``systems`` are ``(counts, class_counts, value,
    averaging, same)`` as that function takes them, ``same`` equal for systems with equal averaging
    (one batch each). Each problem on the leading axis is computed as it is alone: the same numbers.
    None for a system whose interval is NaN (its reason is ``informedness_interval_outputs``')."""
    key = "informedness_ci"
    found: List[Optional[Dict[str, Any]]] = [None] * len(systems)
    batches: Dict[Any, Any] = {}
    for position, (counts, class_counts, value, averaging, same) in enumerate(systems):
        if np.count_nonzero(class_counts.support) < 2:
            continue
        matrix, _, influence, support = informedness_interval_inputs(counts, class_counts, average, averaging)
        effect = design_effect(counts, influence, confidence_level)
        if effect.reason is not None:
            found[position] = effect.outputs(key)
            continue
        effective = effect.scale(support) if effect.num_clusters else counts.effective_sizes()
        batches.setdefault((same, effective is None), (averaging, []))[1].append((position, matrix, value, effective, effect))
    for (_, no_sizes), (averaging, members) in batches.items():
        interval = informedness_interval(
            np.stack([member[1] for member in members]), confidence_level=confidence_level, method=DEFAULT_CI_METHOD,
            average=average, averaging=averaging, estimate=np.array([member[2] for member in members], dtype=np.float64),
            effective_support=None if no_sizes else np.stack([member[3] for member in members]))
        for row, (position, *_, effect) in enumerate(members):
            low, high = float(interval.low[row]), float(interval.high[row])
            if not (math.isnan(low) or math.isnan(high)):
                found[position] = {key: [low, high], **effect.outputs(key)}
    return found
