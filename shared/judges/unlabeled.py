"""A judge's labels on unlabeled data, and its golden-set labels per group: counted, then corrected.

The informedness module evaluates a judge (a classifier, e.g. an LLM grader) on a golden
set of (reference, prediction) pairs. Two more inputs say what the judge is *for*:

* ``unlabeled_predictions`` (and ``unlabeled_baseline_predictions``, a second evaluated
  model's judged labels): the judge's labels on data without references, any length,
  not aligned with the golden set. Each is counted into a table of its own (label ->
  count), so streaming and distributed merging work as for the pairs.
* ``groups``: one id per golden-set sample (aligned with the references), counted as
  (group, reference, prediction) triples.

At compute time ``judged_counts`` reads those tables under the options (``ignore_index``,
the classes of the golden set) and ``judged_results`` turns them into the corrected
prevalence, its difference between two models and the per-group diagnostics, with the
statistics of ``prevalence.py``: ``prevalence_method`` chooses the estimator
(``"rogan_gladen"``, or ``"ppi"`` for a golden set that is a random sample of the new
data) and ``ci_method`` the Rogan-Gladen interval (Lee et al.'s for two classes unless
``"bootstrap"``). With two classes the corrected class is the positive one:
``pos_label``, which labels other than 0/1 need (a ValueError says so; 0/1 labels: class 1);
the binary outputs name it (``corrected_prevalence_class``), and the per-group TPR and FPR
are its rates. Table names start with "_" so that ``len(store)`` keeps counting golden-set
samples only.

``JudgeMetric`` is the informedness module's evaluate glue for these inputs: it counts them
beside the golden set's labels and adds ``judged_results`` to informedness's outputs.
"""

import abc
import math
from dataclasses import dataclass
from dataclasses import replace
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from ..stats.design_effect import NO_CLUSTERS
from ..stats.design_effect import DesignEffect
from ..stats.design_effect import design_effect
from ..counting.confusion import ConfusionCounts
from ..counting.counts import CountTable
from ..counting.counts import JointCounts
from ..counting.counts import kept_rows
from ..counting.inputs import describe_values
from ..counting.inputs import as_array
from ..counting.inputs import as_labels
from ..counting.inputs import to_python
from .judge_groups import group_diagnostics
from ..counting.labels import distinct_values
from ..counting.labels import positions
from .prevalence_arrays import DEFAULT_MIN_INFORMEDNESS
from .prevalence import corrected_prevalence
from .prevalence import corrected_prevalence_difference
from .prevalence import nan_interval
from .prevalence import ppi_prevalence
from .prevalence_models import check_model_names
from .prevalence_models import corrected_prevalences
from ..counting.store import Store
from ..counting.confusion import confusion_counts
from ..counting.confusion import count_labels
from ..counting.judges import count_judges_batch
from ..counting.paired import has_baseline
from ..counting.paired import paired_counts
from ..counting.judge_scores import ScoredJudges
from ..counting.judge_scores import check_vocabulary
from ..counting.judge_scores import count_judge_rows
from ..counting.judge_scores import judges_or_scores
from ..glue.metric import LabelsMetric
from ..glue.metric import one_judge_name
from ..glue.metric import several_judges
from ..glue.scored_ranking import THRESHOLD_FIX

UNLABELED_TABLES = {"unlabeled_predictions": "_unlabeled", "unlabeled_baseline_predictions": "_unlabeled_baseline"}
# unlabeled_predictions as a mapping (several models through one judge): a table per model, in the order first seen.
MODEL_TABLE_PREFIX = "_unlabeled_model:"
GROUPS = "_groups"
# A mapping's per-model entry (model_prevalences); the other corrected-prevalence outputs are the result's own.
MODEL_ENTRY_KEYS = ("corrected_prevalence", "corrected_prevalence_ci", "corrected_prevalence_ci_reason",
                    "corrected_prevalence_reason", "corrected_prevalence_clipped", "measured_prevalence")
# Inputs not aligned with a batch's samples (CountsMetric.UNALIGNED_INPUTS).
UNALIGNED_INPUTS = tuple(UNLABELED_TABLES)
JUDGE_INPUTS = ("groups",) + UNALIGNED_INPUTS
_HINT = "The judge's labels are class labels (integers or strings), as its predictions on the golden set."

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


def count_unlabeled(store: Store, inputs: Dict[str, Any]) -> Store:
    """Count the unlabeled inputs of one batch into ``store`` (a table per input, label -> count)."""
    models = inputs.get("unlabeled_predictions")
    if isinstance(models, Mapping):
        if inputs.get("unlabeled_baseline_predictions") is not None:
            raise ValueError("unlabeled_baseline_predictions: expected it with one model's unlabeled_predictions, found "
                             "unlabeled_predictions as a mapping of models too; put the baseline in the mapping (e.g. "
                             "{'model': ..., 'baseline': ...}) and name it with reference_model='baseline'.")
        labelled = {MODEL_TABLE_PREFIX + model: (f"unlabeled_predictions[{model!r}]", models[model])
                    for model in check_model_names(list(models))}
    else:
        labelled = {table: (name, inputs[name]) for name, table in UNLABELED_TABLES.items()
                    if inputs.get(name) is not None}
    for table_name, (name, values) in labelled.items():
        table = CountTable([name])  # keyed by the input's name: errors between batches name it
        table.add([as_labels(as_array(values, name).reshape(-1), name, _HINT)])
        store.tables[table_name] = table  # created even when empty: the input was given
    return store


def count_groups(store: Store, predictions: Any, references: Any, groups: Any) -> Store:
    """Count one batch's (group, reference, prediction) triples into ``store``."""
    if groups is None:
        return store
    if predictions is None or references is None:
        raise ValueError("groups: expected one group id per golden-set sample, found no predictions and references "
                         "in this batch; pass groups with the batch of predictions and references it belongs to.")
    references = as_array(references, "references").reshape(-1)
    groups = as_labels(as_array(groups, "groups").reshape(-1), "groups", "Group ids are integers or strings.")
    if groups.size != references.size:
        raise ValueError(f"groups: expected one group id per sample ({references.size:,}), found {groups.size:,}.")
    table = CountTable(["groups", "references", "predictions"])
    table.add([groups, as_labels(references, "references"), as_labels(as_array(predictions, "predictions").reshape(-1), "predictions")])
    store.tables[GROUPS] = table
    return store


@dataclass
class JudgedCounts:
    """The golden set's confusion counts plus what was counted for the judge's use (see the module doc).

    ``unlabeled``: per unlabeled input given, its label counts (``JointCounts`` keyed by the
    input's name); ``groups``: the (group, reference, prediction) counts, or None.
    """

    confusion: ConfusionCounts
    unlabeled: Dict[str, JointCounts]
    groups: Optional[JointCounts] = None
    paired: Any = None  # with baseline_predictions: both systems' counts (paired.PairedCounts)
    models: Optional[Dict[str, JointCounts]] = None  # unlabeled_predictions as a mapping: per model, its label counts


def judged_counts(stored: Store, confusion: ConfusionCounts, options: Dict[str, Any]) -> JudgedCounts:
    """The stored unlabeled and group tables next to the golden set's counts, ``ignore_index`` applied."""
    ignore_index = options.get("ignore_index")
    # Padding among the judge's labels dropped, per input (and per model of a mapping).
    unlabeled = {name: stored.tables[table].result().drop_matching(name, ignore_index)
                 for name, table in UNLABELED_TABLES.items() if table in stored.tables}
    names = [table[len(MODEL_TABLE_PREFIX):] for table in stored.tables if table.startswith(MODEL_TABLE_PREFIX)]
    models = {model: stored.tables[MODEL_TABLE_PREFIX + model].result().drop_matching(
        f"unlabeled_predictions[{model!r}]", ignore_index) for model in names}
    if models and unlabeled:
        found = " and ".join(unlabeled)
        raise ValueError(f"unlabeled_predictions: expected one form in every batch, found a mapping of models in some and "
                         f"{found} as one model's labels in others; pass a mapping (model name -> labels) with every batch.")
    if models:
        check_model_names(list(models))  # names from different batches that differ only by case or spaces
    if "unlabeled_baseline_predictions" in unlabeled and "unlabeled_predictions" not in unlabeled:
        raise ValueError("unlabeled_baseline_predictions: expected unlabeled_predictions too (the evaluated model compared "
                         "with this baseline), found only the baseline's labels.")
    groups = None
    if GROUPS in stored.tables:
        samples = len(stored)  # the golden samples: pairs, or (with a baseline) triples
        if len(stored.tables[GROUPS]) != samples:
            raise ValueError(f"groups: expected one group id per golden-set sample, with every batch or with none; found "
                             f"{len(stored.tables[GROUPS]):,} group ids for {samples:,} samples (given with some batches and "
                             "not others).")
        if confusion.w is not None:
            raise ValueError("groups: the per-group rates and the heterogeneity test count samples, found sample_weight "
                             "too; pass groups without sample_weight.")
        groups = stored.tables[GROUPS].result()
        groups, _ = kept_rows(groups, ignore_index)  # the golden set's rule: references at ignore_index dropped
    return JudgedCounts(confusion, unlabeled, groups, models=models or None)


def _class_counts(counts: JointCounts, classes: np.ndarray, name: str) -> np.ndarray:
    """Label counts per class (class order); a label outside the classes is an error naming ``name``."""
    source = (f"the classes {describe_values(classes)} (from `labels`, `num_classes`, or the golden set's references and "
              "predictions: the correction needs the judge's rates for every label it gives)")
    index = positions(counts.keys[name], classes, name, source)
    return np.bincount(index, weights=counts.n, minlength=len(classes)).astype(np.int64)


def _golden(judged: JudgedCounts, unlabeled: List[np.ndarray], order: np.ndarray, level: Optional[float],
            ppi: bool = False) -> Tuple[np.ndarray, bool, DesignEffect]:
    """``(gold, weighted_gold, effect)``: the golden matrix for the correction, in ``order`` (counts, or,
    weighted, each row's weighted shares times its Kish effective size: what the interval treats as
    the row's sample size), and the golden set's design effect with ``level`` over the corrections
    of ``unlabeled`` (class-order counts; the largest over them: every model's correction rests on
    the same golden set). Each row's size is shrunk by that effect."""
    confusion = judged.confusion
    gold = confusion.matrix("unlabeled_predictions").astype(np.float64)
    if confusion.w is not None:
        rows = gold.sum(axis=1, keepdims=True)
        gold = np.divide(gold, rows, out=np.zeros_like(gold), where=rows > 0) * confusion.effective_sizes()[:, None]
    weighted_gold = confusion.w is not None
    effect = NO_CLUSTERS
    if level is not None:
        # Golden items of one conversation are worth fewer independent ones.
        effect = design_effect(
            confusion, lambda: [part for vector in unlabeled for part in golden_influence(gold, vector)], level)
        if ppi and effect.num_clusters is not None:  # PPI++'s tuning and variance take the golden items as independent
            effect = DesignEffect.refused("ppi_needs_independent_golden_items", effect.num_clusters)
        if effect.num_clusters is not None and effect.reason is None:
            gold, weighted_gold = gold / effect.factor, True
    if order[0] != 0:  # binary with the first class positive
        gold = np.ascontiguousarray(gold[::-1, ::-1])
    return gold, weighted_gold, effect


def golden_influence(gold: np.ndarray, unlabeled: np.ndarray) -> List[np.ndarray]:
    """How one golden item moves each corrected prevalence (a list: one K x K influence
    ``[reference, label]`` per class, as ``ConfusionCounts.cluster_sums`` takes it): what
    ``stats.design_effect`` turns into the golden set's design effect, the largest over the
    classes. No components when there is no correction to vary (no unlabeled labels, or a golden
    matrix that cannot be inverted: the estimate itself is refused).

    With ``C[a, r]`` the judge's share of label a among golden items of class r and the
    prevalences ``theta = C^-1 q`` (q the judge's shares on the new data), one more golden item
    of class r labelled a moves ``theta_j`` by ``-theta_r (C^-1[j, a] - [j = r]) / n_r``.
    """
    sizes = gold.sum(axis=1)
    shares = np.divide(gold, sizes[:, None], out=np.zeros_like(gold), where=sizes[:, None] > 0).T  # C[a, r]
    total = unlabeled.sum()
    if not total or np.linalg.matrix_rank(shares) < len(sizes):
        return []
    inverse = np.linalg.inv(shares)
    theta = inverse @ (unlabeled / total)
    return [-(theta / np.where(sizes > 0, sizes, 1.0))[:, None] * (inverse[j][None, :] - np.eye(len(sizes))[j][:, None])
            for j in range(len(sizes))]


def judged_results(judged: JudgedCounts, options: Dict[str, Any]) -> Dict[str, Any]:
    """Corrected prevalence (and difference, per-group diagnostics) as plain Python; {} if none was asked for."""
    result: Dict[str, Any] = {}
    if options.get("reference_model") is not None and not judged.models:
        raise ValueError(f"reference_model: expected it with unlabeled_predictions as a mapping of models (name -> the judge's "
                         f"labels on that model's outputs), found reference_model={options['reference_model']!r} without one.")
    if not judged.unlabeled and not judged.models and judged.groups is None:
        return result
    confusion = judged.confusion
    classes = confusion.encoded.classes
    if confusion.encoded.unobserved:
        confusion.check_materialised("unlabeled_predictions")
    level = options.get("confidence_level")
    interval = {"confidence_level": level, "n_resamples": options.get("n_resamples") or 10_000, "seed": options.get("seed")}
    if len(classes) == 2 and options.get("pos_label") is None:
        check_positive_class(classes, bool(judged.unlabeled or judged.models), judged.groups is not None)
    # Two classes: the corrected class is the positive one; matrices are put in the order
    # (other, positive) so that the statistics' class 1 is it.
    order = np.arange(len(classes))
    if len(classes) == 2 and confusion.encoded.positive_index == 0:
        order = order[::-1]
    if judged.unlabeled:
        result.update(_prevalence_results(judged, classes, order, interval, options))
    if judged.models:
        result.update(_models_results(judged, classes, order, interval, options))
    if judged.groups is not None:
        result.update(_group_results(judged.groups, classes, order, interval, options.get("ci_method")))
    return result


def check_positive_class(classes: np.ndarray, prevalence: bool, groups: bool) -> None:
    """Refuse to guess which of two classes a class-specific output is of (scikit-learn's rule for
    ``pos_label``): the second class is it only for the labels 0/1, in that order. Informedness
    itself is the same for either class and needs no pos_label."""
    values = [to_python(value) for value in classes.tolist()]
    if values == [0, 1]:
        return
    what = " and ".join(part for part, wanted in (("the corrected prevalence", prevalence),
                                                    ("the per-group TPR and FPR", groups)) if wanted)
    verb = "are" if groups else "is"
    labels = "the labels 0/1 in another order" if sorted(values, key=repr) == [0, 1] else "labels other than 0/1"
    raise ValueError(f"pos_label: expected it with {labels} to say which class {what} {verb} of; found classes {values!r} "
                     f"and pos_label=None. Pass pos_label={values[0]!r} (or {values[1]!r}).")


def _estimate_entry(found: Dict[str, Any], key: str, level: Optional[float], effect: DesignEffect, num_classes: int,
                    measured: Optional[str] = None, with_method: bool = False) -> Dict[str, Any]:
    """One corrected prevalence (or difference) as the result gives it, under ``key``: the estimate,
    with ``level`` its interval (NaN when the golden set's clusters refuse one; ``with_method``: its
    method and design effect too) and the reasons, whether it was clipped and, under ``measured``,
    the judge's measured shares."""
    entry = {key: found["estimate"]}
    if level is not None:
        entry[f"{key}_ci"] = found["interval"] if effect.reason is None else nan_interval(num_classes)
        if with_method:
            entry[f"{key}_ci_method"] = found["method"]
        reason = effect.reason or found["interval_reason"]
        if reason is not None:
            entry[f"{key}_ci_reason"] = reason
        if with_method and effect.reason is None and effect.num_clusters is not None:
            entry[f"{key}_design_effect"] = float(effect.measured)
    if found["reason"] is not None:
        entry[f"{key}_reason"] = found["reason"]
    entry[f"{key}_clipped"] = found["clipped"]
    if measured is not None:  # no unlabeled labels measure nothing (prevalence.py reports shares of 0)
        empty = found["reason"] == "no_unlabeled_predictions"
        nan = math.nan if num_classes == 2 else [math.nan] * num_classes
        entry[measured] = nan if empty else found["measured_prevalence"]
    return entry


def _prevalence_results(judged: JudgedCounts, classes: np.ndarray, order: np.ndarray, interval: Dict[str, Any],
                        options: Dict[str, Any]) -> Dict[str, Any]:
    num_classes = len(classes)
    binary = num_classes == 2
    ppi = options["prevalence_method"] == "ppi"
    # PPI needs a golden set that is a random sample of the data corrected: refuse where it cannot be.
    if ppi and "unlabeled_baseline_predictions" in judged.unlabeled:
        raise ValueError(
            "prevalence_method: 'ppi' takes the golden set to be a random sample of the data it corrects, found "
            "unlabeled_baseline_predictions too: one golden set cannot be a random sample of two models' different "
            "outputs. Use prevalence_method='rogan_gladen' for corrected_prevalence_difference (it needs only the "
            "judge's rates to transfer), or one compute per model with a golden set sampled from that model's outputs.")
    if ppi and judged.confusion.w is not None:
        raise ValueError(
            "prevalence_method: 'ppi' takes the golden set to be an unweighted random sample of the data it corrects, "
            "found sample_weight; pass the golden set without weights, or use prevalence_method='rogan_gladen' (whose "
            "rates accept weights).")
    result: Dict[str, Any] = {}
    outputs = {"corrected_prevalence": ["unlabeled_predictions"]}
    if "unlabeled_baseline_predictions" in judged.unlabeled:
        outputs["corrected_prevalence_difference"] = ["unlabeled_predictions", "unlabeled_baseline_predictions"]
        outputs["baseline_corrected_prevalence"] = ["unlabeled_baseline_predictions"]  # the baseline's own, marginal
    level = interval["confidence_level"]
    if num_classes < 2:
        for key in outputs:
            result.update({key: math.nan, f"{key}_reason": "fewer_than_two_classes"})
            if level is not None:
                result[f"{key}_ci"] = [math.nan, math.nan]
        return result
    counts = {name: _class_counts(found, classes, name) for name, found in judged.unlabeled.items()}
    # The baseline's correction rests on the same golden set: the largest design effect over both models'
    # influences, as for a mapping of models (_models_results), so that {A, B} and A with baseline B give one interval.
    gold, weighted_gold, effect = _golden(judged, [counts[name] for name in UNLABELED_TABLES if name in counts], order,
                                          level, ppi)
    vectors = {name: vector[order] for name, vector in counts.items()}
    names = [to_python(classes[index]) for index in order]
    # Rogan-Gladen's interval: the bootstrap if asked for; else prevalence.py's default (Lee et al.'s
    # for one binary prevalence where it holds, the smoothed bootstrap elsewhere).
    method = "bootstrap" if options.get("ci_method") == "bootstrap" or not binary else None
    arguments = {**interval, "min_informedness": DEFAULT_MIN_INFORMEDNESS, "weighted_gold": weighted_gold}
    measured = {"corrected_prevalence": "measured_prevalence",
                "baseline_corrected_prevalence": "baseline_measured_prevalence"}
    for key, inputs in outputs.items():
        if ppi:
            found = ppi_prevalence(gold, vectors[inputs[0]], confidence_level=level, classes=names)
        elif key in measured:
            found = corrected_prevalence(gold, vectors[inputs[0]], method=method, classes=names, **arguments)
        else:
            found = corrected_prevalence_difference(gold, vectors[inputs[0]], vectors[inputs[1]], **arguments)
        result.update(_estimate_entry(found, key, level, effect, num_classes, measured.get(key), with_method=True))
    if binary:
        result["corrected_prevalence_class"] = to_python(classes[order[1]])
    return result


def _models_results(judged: JudgedCounts, classes: np.ndarray, order: np.ndarray, interval: Dict[str, Any],
                    options: Dict[str, Any]) -> Dict[str, Any]:
    """Several models through one judge (``prevalence_models.corrected_prevalences``): ``model_prevalences``
    and ``prevalence_differences``, the intervals simultaneous per family."""
    names = list(judged.models)
    ppi = options["prevalence_method"] == "ppi"
    if ppi and len(names) > 1:
        raise ValueError(
            "prevalence_method: 'ppi' takes the golden set to be a random sample of the data it corrects, found "
            f"unlabeled_predictions as a mapping of {len(names)} models: one golden set cannot be a random sample of "
            "several models' different outputs. Use prevalence_method='rogan_gladen' (it needs only the judge's rates "
            "to transfer), or one compute per model with a golden set sampled from that model's outputs.")
    reference = options.get("reference_model")
    if reference is not None and reference not in names:
        raise ValueError(f"reference_model: expected one of the models in unlabeled_predictions {names}, found {reference!r}.")
    if ppi:
        return _one_model_ppi(judged, names[0], classes, order, interval, options)
    num_classes = len(classes)
    level = interval["confidence_level"]
    if num_classes < 2:
        entries = [{"name": name, "corrected_prevalence": math.nan, "corrected_prevalence_reason": "fewer_than_two_classes"}
                   for name in names]
        return {"model_prevalences": entries, "prevalence_differences": []}
    counts = [_class_counts(judged.models[name], classes, f"unlabeled_predictions[{name!r}]") for name in names]
    gold, weighted_gold, effect = _golden(judged, counts, order, level)
    method = "bootstrap" if options.get("ci_method") == "bootstrap" else None
    by_model = {name: vector[order] for name, vector in zip(names, counts)}
    found = corrected_prevalences(gold, by_model, reference=reference, method=method,
                                  classes=[to_python(classes[index]) for index in order],
                                  min_informedness=DEFAULT_MIN_INFORMEDNESS, weighted_gold=weighted_gold, **interval)
    entries = [{"name": model["name"], **_estimate_entry(model, "corrected_prevalence", level, effect, num_classes,
                                                         "measured_prevalence")} for model in found["models"]]
    differences = [{"models": pair["models"],
                    **_estimate_entry(pair, "corrected_prevalence_difference", level, effect, num_classes),
                    "p_value": pair["p_value"]} for pair in found["differences"]]
    result: Dict[str, Any] = {"model_prevalences": entries, "prevalence_differences": differences}
    if level is not None:
        result["corrected_prevalence_ci_method"] = found["method"]
        result["prevalence_marginal_level"] = found["marginal_level"]
        if differences:
            result["prevalence_difference_marginal_level"] = found["difference_marginal_level"]
        if effect.num_clusters is not None and effect.reason is None:
            result["corrected_prevalence_design_effect"] = float(effect.measured)
    if num_classes == 2:
        result["corrected_prevalence_class"] = to_python(classes[order[1]])
    return result


def _one_model_ppi(judged: JudgedCounts, name: str, classes: np.ndarray, order: np.ndarray, interval: Dict[str, Any],
                   options: Dict[str, Any]) -> Dict[str, Any]:
    """One model in the mapping with PPI: the single-model call's numbers exactly, in the mapping's form."""
    argument = f"unlabeled_predictions[{name!r}]"
    counts = judged.models[name]
    if len(classes) >= 2:
        _class_counts(counts, classes, argument)  # a label outside the classes names the model's argument
    single = JointCounts({"unlabeled_predictions": counts.keys[argument]}, counts.n)
    found = _prevalence_results(replace(judged, unlabeled={"unlabeled_predictions": single}, models=None), classes, order,
                                interval, options)
    entry = {"name": name, **{key: value for key, value in found.items() if key in MODEL_ENTRY_KEYS}}
    result = {"model_prevalences": [entry], "prevalence_differences": [],
              **{key: value for key, value in found.items() if key not in MODEL_ENTRY_KEYS}}
    if interval["confidence_level"] is not None and len(classes) >= 2:
        result["prevalence_marginal_level"] = interval["confidence_level"]  # one model: the level itself
    return result


def _group_results(groups: JointCounts, classes: np.ndarray, order: np.ndarray, interval: Dict[str, Any],
                   ci_method: Optional[str]) -> Dict[str, Any]:
    num_classes = len(classes)
    ids = distinct_values([groups.keys["groups"]])
    if num_classes < 2 or not ids.size:
        return {"per_group": {}, "group_heterogeneity_p_value": math.nan,
                "group_heterogeneity_reason": "fewer_than_two_classes" if num_classes < 2 else "no_samples"}
    group = positions(groups.keys["groups"], ids, "groups", "the group ids")
    reference = positions(groups.keys["references"], classes, "references", "the classes")
    prediction = positions(groups.keys["predictions"], classes, "predictions", "the classes")
    matrices = np.zeros((ids.size, num_classes, num_classes), dtype=np.int64)
    np.add.at(matrices, (group, reference, prediction), groups.n)
    if order[0] != 0:  # binary with the first class positive: its TPR and FPR
        matrices = np.ascontiguousarray(matrices[:, ::-1, ::-1])
    found = group_diagnostics(matrices, confidence_level=interval["confidence_level"],
                              n_resamples=interval["n_resamples"], seed=interval["seed"], ci_method=ci_method)
    kept = [key for key in ("tpr", "fpr", "recall", "informedness", "informedness_ci") if key in found]
    per_group = {group_id: {"support": [found["support"][index][position] for position in np.argsort(order)],
                            **{key: found[key][index] for key in kept}}  # support in class order
                 for index, group_id in enumerate(ids.tolist())}
    result = {"per_group": per_group, "group_heterogeneity_p_value": found["heterogeneity_p_value"]}
    if "heterogeneity_reason" in found:
        result["group_heterogeneity_reason"] = found["heterogeneity_reason"]
    return result


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
        # No predictions and references: a batch of the judge's labels on unlabeled data only.
        store = Store() if predictions is None and references is None else count_judges_batch(
            count_labels, predictions, references, inputs, scores=False, scores_hint=SCORES_HINT_LABELS_ONLY)
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

    def _check_options(self, options, judges_given):
        if options.get("threshold") is not None and not judges_given:
            raise ValueError(THRESHOLD_NEEDS_JUDGES + f" Found threshold={options['threshold']!r} without judges.")
        super()._check_options(options, judges_given)

    def _from_counts(self, counts, options):
        if isinstance(counts, ScoredJudges):  # two or more judges: ranked as by every label metric
            return super()._from_counts(counts, options)
        # The judge's uses (corrected prevalence, per-group diagnostics) follow informedness's outputs.
        own = super()._from_counts(counts.paired if counts.paired is not None else counts.confusion, options)
        return {**own, **judged_results(counts, options)}
