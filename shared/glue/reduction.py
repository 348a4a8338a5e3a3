"""The one path from counts to a result that every module shares: a metric is a ``MetricSpec``.

A module declares what only it knows - how its value (with its interval and per-class
outputs) comes from one system's counts, the influence of a counted sample on that value,
and its paired difference from joint counts - and this path does the rest: the paired
comparison of two systems on one golden set (``baseline_predictions``), cluster-robust when
samples are clustered (``stats.design_effect``), with the same outputs in every module.
"""

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import numpy as np

from ..counting.inputs import to_python
from ..counting.paired import PairedCounts
from ..counting.confusion import ConfusionCounts
from ..stats.delta import delta_difference
from ..stats.delta import delta_interval
from ..stats.delta import numeric_gradient
from ..stats.delta import stratified_variance
from ..stats.binomial import Interval
from ..stats.design_effect import DesignEffect
from ..stats.design_effect import design_effect
from ..stats.paired_tests import cluster_swap_p_value

# A comparison asked for its p-value alone computes an interval too, at this level, and drops it.
P_VALUE_ONLY_LEVEL = 0.95


@dataclass(frozen=True)
class MetricSpec:
    """What a module adds to the shared reduction: the contract every path honours.

    A metric provides, from its counts (the counts object of its kind of input):

    - ``name``: the result key of the value (``"balanced_accuracy"``).
    - ``value(counts, options)`` (required): the result of one system's counts, a dict with
      ``name`` (NaN with a ``"reason"`` when it is undefined) and, with ``confidence_level``,
      ``<name>_ci`` from ``clustered_interval`` (so clusters, their design effect and the refusals
      come from the path, not the metric), and per-class outputs.
    - ``influence(counts, options)``: how one counted sample moves the value, in the form the
      counts' ``cluster_sums`` takes (a ``RecallInfluence``, a K x K gradient ``[r, a]``). Used by the
      cluster-robust comparison, the cluster swap test and the judges' covariances.
    - ``difference(joint, joint_w2, options, method, design_factor=1.0)``: the paired comparison of
      two systems from their joint counts ``joint[..., r, a, b]`` (``joint_w2``: squared weights,
      None unweighted), ``{"difference_ci": [..., 2], "p_value": [...]}``; ``method`` "bootstrap" or
      None (the module's default); ``design_factor``: clustered samples' design effect, which
      divides each row's effective size (``stats.design_effect.clustered_squares``). It takes leading axes: several pairs stacked (``judges=`` ranks J judges
      with their J - 1 comparisons in one call), each computed as it is alone.

    What a spec provides decides the paths its module offers: every spec gets the value, the
    default interval and the other ``ci_method``s, ``clusters``, ``sample_weight``, ``add_batch``
    streaming and distributed mode; a spec with ``influence`` and ``difference`` also gets
    ``baseline_predictions`` and ``judges=`` (a difference without an influence is refused here).
    ``tests/unit/test_spec_contract.py`` runs a toy spec (``rate_spec``) and the four modules'
    through every path they offer. Optional beside them:

    - ``own_only``: options that describe the system's own result alone, off for the baseline.
    - ``check_options(options)``: checks across options, before any data is read (None: none).
    - ``cluster_feature``: what clusters are counted with besides the reference - the prediction,
      or ``"correct"`` (whether it is right: all a mean of recalls' variance needs, K cells per cluster).
    - ``intervals(systems, options)``: several systems' interval outputs (``<name>_ci`` and what
      ``value`` gives beside it), the same numbers as ``value``'s, computed in one vectorised call;
      None in the list for a system left to ``value`` (None: no batching, ``value`` for each).
    """

    name: str
    value: Callable[[Any, Mapping[str, Any]], Dict[str, Any]]
    influence: Optional[Callable[[Any, Mapping[str, Any]], Any]] = None
    difference: Optional[Callable[[np.ndarray, Optional[np.ndarray], Mapping[str, Any], Optional[str]], Dict[str, Any]]] = None
    own_only: Tuple[str, ...] = ("confidence_level", "return_per_class", "return_confusion_matrix")
    check_options: Optional[Callable[[Mapping[str, Any]], None]] = None
    cluster_feature: str = "predictions"
    intervals: Optional[Callable[[List[Any], Mapping[str, Any]], List[Optional[Dict[str, Any]]]]] = None

    def __post_init__(self):
        if self.difference is not None and self.influence is None:
            raise TypeError(f"MetricSpec {self.name!r}: a difference needs the value's influence too (clustered comparisons "
                            "and the judges' covariances are made from it); found difference without influence.")


def class_order_key(encoded: Any) -> Tuple[Any, ...]:
    """Systems whose encoded labels give the same key average alike (one class order, the same
    unobserved classes): ``MetricSpec.intervals`` batches them together, one ``Averaging`` each."""
    return (encoded.num_classes, encoded.unobserved, tuple(encoded.classes.tolist()) if encoded.unobserved else None)


def clustered_intervals(key: str, systems: List[Tuple[Any, Any]], confidence_level: float,
                        intervals: Callable[[List[Tuple[int, DesignEffect]]], List[Interval]]) -> List[Tuple[Dict[str, Any], Optional[Interval]]]:
    """The one interval step of every metric, for one system or several at once (the judges ranked
    by ``judges=``): ``systems`` are (counts, influence) pairs; each one's design effect is computed
    once (``stats.design_effect`` of its ``influence``, or of what a function gives, called only with
    clusters), and ``intervals(ready)`` gives, in one call, the interval of each system that can have
    one (``ready``: its index and effect, whose factor scales the sizes the interval sees). Returns,
    per system, ``({key: [low, high]}`` with, for clusters, ``num_clusters`` and ``design_effect``
    (and ``clusters_from`` when they are the inputs' leading axis), and the interval; refused (one
    cluster, clusters not counted): the NaN interval, ``<key>_reason`` and None."""
    effects = [design_effect(counts, influence, confidence_level) for counts, influence in systems]
    found: List[Tuple[Dict[str, Any], Optional[Interval]]] = [(effect.outputs(key), None) for effect in effects]
    ready = [(index, effect) for index, effect in enumerate(effects) if effect.reason is None]
    for (index, effect), interval in zip(ready, intervals(ready) if ready else []):
        found[index] = ({key: interval.as_list(), **effect.outputs(key)}, interval)
    return found


def clustered_interval(key: str, counts: Any, influence: Any, confidence_level: float,
                       interval: Callable[[DesignEffect], Interval]) -> Tuple[Dict[str, Any], Optional[Interval]]:
    """``clustered_intervals`` of one system: ``interval(effect)`` its interval at its design effect."""
    return clustered_intervals(key, [(counts, influence)], confidence_level, lambda ready: [interval(ready[0][1])])[0]


def comparison_from_counts(spec: MetricSpec, paired: PairedCounts, options: Mapping[str, Any]) -> Dict[str, Any]:
    """The value of ``predictions`` (as ``spec.value``) and its paired comparison with
    ``baseline_predictions``: ``baseline_<name>``, ``<name>_difference`` with its p-value and,
    with ``confidence_level``, its interval (see ``difference_outputs``)."""
    result = spec.value(paired.system, options)
    baseline = spec.value(paired.baseline, {**options, **{name: None if name == "confidence_level" else False
                                                          for name in spec.own_only}})
    compared = None
    if not math.isnan(result[spec.name] - baseline[spec.name]):
        # The p-value does not depend on the interval's method: without an interval, the cheap one.
        bootstrap = options["ci_method"] == "bootstrap" and options["confidence_level"] is not None
        compared = clustered_comparison(
            paired, options["confidence_level"],
            lambda: tuple(spec.influence(counts, options) for counts in (paired.system, paired.baseline)),
            lambda factor: spec.difference(paired.joint, paired.joint_w2, options, "bootstrap" if bootstrap else None, factor))
    result.update(difference_outputs(spec.name, result, baseline, compared, options["confidence_level"]))
    if options["return_confusion_matrix"] and paired.reason is None:
        result["baseline_confusion_matrix"] = paired.baseline.matrix()
    return to_python(result)


def clustered_comparison(paired: PairedCounts, confidence_level: Optional[float], influences: Callable[[], Tuple[dict, dict]],
                         compare: Callable[[float], Dict[str, Any]]) -> Dict[str, Any]:
    """``compare(design_factor)`` (the spec's difference of the joint counts, at a design factor),
    with clustered samples worth what their clusters are: the design effect of the difference
    (``influences()``: the system's and the baseline's, as ``PairedCounts.cluster_sums`` takes
    them) gives the factor, so the interval and p-value are cluster-robust; reported
    as ``design_effect`` and ``num_clusters`` (and ``clusters_from`` for clusters taken from the
    leading axis). One cluster, or N-d inputs added without their clusters while an interval is
    asked for: NaN, with the reason."""
    clusters = paired.clusters
    if not clusters.counted and (clusters.reason is None or confidence_level is None):
        return compare(1.0)
    influence = influences()
    effect = design_effect(paired, influence, confidence_level or P_VALUE_ONLY_LEVEL)
    if effect.reason is not None:
        return {"difference_ci": [float("nan")] * 2, "p_value": float("nan"), "reason": effect.reason}
    compared = compare(1.0 if effect.num_clusters is None else effect.factor)
    # The p-value swaps the systems within clusters (exact under H0 with few clusters, where the design
    # effect's widened normal test rejects 1% of the time at 5%); every item alone: the independent test.
    contributions = paired.swap_sums(influence)
    if contributions is not None and compared["p_value"] == compared["p_value"]:
        compared["p_value"] = cluster_swap_p_value(contributions)
    return {**compared, "num_clusters": effect.num_clusters, "design_effect": effect.measured, **effect.source()}


def difference_outputs(name: str, system: Dict[str, Any], baseline: Dict[str, Any], compared: Optional[Dict[str, Any]],
                       confidence_level: Optional[float]) -> Dict[str, Any]:
    """The comparison's outputs: ``baseline_<name>``, ``<name>_difference`` (exactly system - baseline),
    ``<name>_difference_p_value``, with ``confidence_level`` ``<name>_difference_ci``, and
    ``<name>_difference_reason`` whenever the difference, interval or p-value is NaN.

    ``compared`` is what ``comparison.py`` returned (None: not computed, as the difference is undefined).
    """
    result = {f"baseline_{name}": baseline[name]}
    if "reason" in baseline:
        result[f"baseline_{name}_reason"] = baseline["reason"]
    difference = system[name] - baseline[name]
    result[f"{name}_difference"] = difference
    low = high = p_value = math.nan
    reason = system.get("reason") or baseline.get("reason")
    if compared is not None:  # computed only for a defined difference (comparison_from_counts)
        low, high = compared["difference_ci"]
        p_value = compared["p_value"]
        if p_value != p_value or low != low:
            reason = compared.get("reason") or "undefined"
    if confidence_level is not None:
        result[f"{name}_difference_ci"] = [float(low), float(high)]
    result[f"{name}_difference_p_value"] = float(p_value)
    if reason is not None and (difference != difference or p_value != p_value or low != low):
        result[f"{name}_difference_reason"] = reason
    if compared is not None and "design_effect" in compared:
        result[f"{name}_difference_design_effect"] = float(compared["design_effect"])
        result["num_clusters"] = int(compared["num_clusters"])
        if "clusters_from" in compared:
            result["clusters_from"] = compared["clusters_from"]
    return result


def rate_spec(name: str, value: Callable[[np.ndarray], float],
              gradient: Optional[Callable[[np.ndarray], np.ndarray]] = None) -> MetricSpec:
    """The spec of a metric declared by its value alone: ``value(matrix)`` of a K x K confusion
    matrix (rows references, columns predictions), and optionally its ``gradient(matrix)``
    (numeric otherwise). It gets the delta method's interval (cluster-robust with clusters) and
    paired comparison (``stats.delta``), through the same path as the modules' own metrics.

    Examples
    --------
    >>> spec = rate_spec("recall_of_1", lambda m: m[1, 1] / m[1].sum())
    >>> spec.name, spec.own_only
    ('recall_of_1', ('confidence_level', 'return_per_class', 'return_confusion_matrix'))
    """
    gradient_of = gradient or (lambda matrix: numeric_gradient(value, matrix))

    def from_counts(counts: ConfusionCounts, options: Mapping[str, Any]) -> Dict[str, Any]:
        level = options["confidence_level"]
        result: Dict[str, Any] = {name: math.nan, **({} if level is None else {f"{name}_ci": [math.nan, math.nan]})}
        if counts.reason is not None:
            return {**result, "reason": counts.reason}
        matrix = counts.matrix().astype(np.float64)
        result[name] = float(value(matrix))
        if math.isnan(result[name]):
            return {**result, "reason": "undefined"}
        if level is not None:
            influence = gradient_of(matrix)
            outputs, _ = clustered_interval(f"{name}_ci", counts, influence, level, lambda effect: delta_interval(
                result[name], stratified_variance(matrix, cell_squared_weights(counts), influence) * effect.factor, level))
            result.update(outputs)
        if options["return_confusion_matrix"]:
            result["confusion_matrix"] = counts.matrix()
        return to_python(result)

    def difference(joint, joint_w2, options, method, design_factor=1.0):
        return delta_difference(joint, joint_w2, value, gradient_of, options["confidence_level"] or P_VALUE_ONLY_LEVEL, design_factor)

    return MetricSpec(name, from_counts, lambda counts, options: gradient_of(counts.matrix().astype(np.float64)), difference)


def cell_squared_weights(counts: ConfusionCounts) -> Optional[np.ndarray]:
    """Each cell's sum of squared weights (None unweighted: the counts themselves)."""
    if counts.w is None:
        return None
    squares = np.zeros((counts.num_classes, counts.num_classes))
    np.add.at(squares, (counts.reference, counts.prediction), np.ldexp(counts.w2, 2 * counts.w2_exponent))
    return squares

