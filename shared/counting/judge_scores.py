"""Judges as people bring them: score-giving judges turned into labels, and labels that cannot be right refused.

``judges={name: values}`` takes, per judge, labels or scores (1-D numbers of the positive
class, on a binary golden set: a Likert 1-5 or 1-10 grade, a probability). ``threshold``
says how scores become labels: a number (every judge that gives scores), ``"auto"``, or a
mapping from a judge's name to a number or ``"auto"``.

``"auto"`` is cross-fitted (``CROSS_FIT_FOLDS`` stratified folds, the clusters kept whole):
each item is labelled by the Youden-optimal cut (``thresholds.youden_thresholds``) tuned on
the other folds, never on itself, so the judge's value, interval and p-values are those of
labels no item tuned, and a judge of pure noise is at chance whatever the number of its
distinct scores (a cut tuned in-sample makes it look better, the more so the more distinct
scores it gives). The cut reported (``optimal_threshold``, the one to deploy) is tuned on the
whole golden set; the cross-fitted value estimates the population balanced accuracy of a cut
tuned this way (studies/score_judges measures the coverage at the reported cut).

A batch with judges that give scores (or with a ``threshold`` known when it is counted) is
kept per item (``JUDGE_ROWS``: the references, each judge's values, weights, clusters); at
``compute`` each judge's labels are counted as ``judges.count_judges`` counts labels, so
the ranking path is the one of judges that give labels.

``check_vocabulary`` refuses labels that cannot mean what the value would compute, naming the
argument (``predictions`` or ``judges['a']``), a few of its values, the classes expected, and
what to pass (map the labels, ``labels=[...]``, ``threshold=`` for scores), unless ``labels``
or ``num_classes`` declares the classes: labels that share no class with the references;
a judge ranked with others that gives any value that is no class of the golden set (its
value would be a mean of recalls over the golden classes, its extra class only warned);
single predictions of strings beside a two-class golden set with a value outside it (another
vocabulary, "I" for "incorrect"; ``task`` declared: not refused); integer predictions beside a
0/1 golden set with two or more values outside it (grades given as labels; ``task`` declared:
not refused). Integer predictions of one class a multi-class golden set lacks stay a warning,
as in scikit-learn: a golden set may miss a class.
"""

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .clusters import CLUSTERS_FROM_LEADING_AXIS
from .clusters import CLUSTERS_NOT_COUNTED
from .clusters import ClusterSpec
from .clusters import raw_with_clusters
from .confusion import ConfusionCounts
from .confusion import are_labels
from .inputs import as_array
from .inputs import as_labels
from .inputs import check_sample_weight
from .inputs import is_string_array
from .inputs import to_python_scalar
from .judges import JUDGES_SETTING
from .judges import JudgesCounts
from .judges import check_judges
from .judges import count_judges
from .judges import count_judges_batch
from .judges import judge_names
from .judges import judges_counts
from .labels import distinct_values
from .labels import encode_task
from .labels import typo_note
from .paired import BASELINE_SETTING
from .paired import GIVEN
from .store import Store
from .thresholds import youden_thresholds

# How a batch with judges was stored (every batch alike: Store.merge refuses a mix, naming both).
JUDGE_ROWS = "judge_rows"
ROWS_KEPT = "kept per item (a judge gave scores, or threshold was given when counted)"
ROWS_COUNTED = "counted as labels (no judge gave scores and no threshold was given when counted)"
# Cross-fitting of threshold="auto": folds (fewer when the golden set has fewer units), seed without `seed`.
CROSS_FIT_FOLDS = 10
CROSS_FIT_SEED = 0
CROSS_FIT_METHOD = (f"threshold='auto': each judge's labels cross-fitted ({CROSS_FIT_FOLDS} folds stratified by reference "
                    "class, clusters kept whole; each item labelled by the Youden-optimal cut tuned on the other folds), "
                    "so its value, interval and p-values are honest for a tuned cut; optimal_threshold is tuned on the "
                    "whole golden set")
SHOWN = 5  # values shown in a message
JUDGE_COLUMN = "judge/{}"  # judge i's raw column (kept per item)


def count_judge_rows(count_single: Any, predictions: Any, references: Any, inputs: Mapping[str, Any],
                     options: Mapping[str, Any], **count_options: Any) -> Store:
    """One batch, as ``judges.count_judges_batch`` counts it, except that two or more judges of
    which one gives scores (non-integral numbers), or any judges counted with a ``threshold``
    option, are kept per item (see the module doc)."""
    judges = inputs.get("judges")
    if judges is None or references is None or inputs.get("baseline_predictions") is not None:
        return count_judges_batch(count_single, predictions, references, inputs, **count_options)
    array = as_array(references, "references")
    checked = check_judges(judges, array, predictions)
    scores = any([not are_labels(values.reshape(-1), f"judges[{name!r}]") for name, values in checked])  # non-integral
    if len(checked) < 2 or (options.get("threshold") is None and not scores):
        store = count_judges_batch(count_single, predictions, references, inputs, **count_options)
        if len(checked) > 1:
            store.settings[JUDGE_ROWS] = ROWS_COUNTED
        return store
    weights = check_sample_weight(inputs.get("sample_weight"), array.size, array.shape)
    store = Store()
    store.settings.update({JUDGES_SETTING: json.dumps([name for name, _ in checked]), BASELINE_SETTING: GIVEN,
                           JUDGE_ROWS: ROWS_KEPT})
    store.note_references(array)
    columns = {"references": as_labels(array.reshape(-1), "references", "References are class labels; scores belong in `judges`."),
               "sample_weight": weights}
    columns.update({JUDGE_COLUMN.format(index): values.reshape(-1) for index, (_, values) in enumerate(checked)})
    store.keep_raw(raw_with_clusters(store, inputs.get("clusters"), array.shape, columns))
    return store


@dataclass(frozen=True)
class ScoredJudges:
    """``JudgesCounts`` of labels (score-giving judges' labels made by their thresholds) and, per
    judge, what was done to its scores: ``thresholds[name]`` = {"threshold": given number} or
    {"optimal_threshold": cut on the whole set, "threshold_method": ...}; ``one_class``: the
    golden set's one reference class, when it has only one (nothing can be ranked)."""

    counts: JudgesCounts
    thresholds: Dict[str, Dict[str, Any]]
    one_class: Optional[Any] = None


def judge_thresholds(threshold: Any, names: Sequence[str]) -> Dict[str, Any]:
    """Each judge's threshold (None: its values are labels): ``threshold`` for all, or a mapping's entries;
    a mapping naming no judge is refused, naming what it named."""
    if not isinstance(threshold, Mapping):
        return {name: threshold for name in names}
    unknown = [name for name in threshold if name not in names]
    if unknown:
        raise ValueError(f"threshold: expected judges' names as its keys ({list(names)}), found {unknown}, which no judge has; "
                         "pass a threshold for judges that give scores, under their names.")
    return {name: threshold.get(name) for name in names}


def few(values: np.ndarray) -> str:
    """A few distinct values for a message (how many there are when not all are shown)."""
    shown = [to_python_scalar(value) for value in values[:SHOWN]]
    return f"{shown}" if len(values) <= SHOWN else f"{shown[:-1]} ... ({len(values)} distinct)"


def judges_from_rows(stored: Store, options: Mapping[str, Any], scores_hint: str, hint: str) -> ScoredJudges:
    """Judges kept per item: each judge's labels (scores cut by its threshold, cross-fitted under "auto"),
    counted as ``count_judges`` counts labels and reduced by ``judges_counts`` under the options."""
    names = judge_names(stored)
    raw = stored.raw_columns()
    references, weights, clusters = raw["references"], raw["sample_weight"], raw.get("clusters")
    thresholds = judge_thresholds(options.get("threshold"), names)
    counted = np.ones(references.size, dtype=bool)
    if options.get("ignore_index") is not None:
        counted &= references != options["ignore_index"]
    if weights is not None:
        counted &= weights > 0
    golden = distinct_values([references[counted]])
    declared = options.get("labels")
    classes = distinct_values([golden, np.asarray(declared)]) if declared is not None else golden
    encoded = None
    labelled: List[Tuple[str, np.ndarray]] = []
    done: Dict[str, Dict[str, Any]] = {}
    for index, name in enumerate(names):
        values = raw[JUDGE_COLUMN.format(index)]
        explicit = isinstance(options.get("threshold"), Mapping) and thresholds[name] is not None
        as_scores = thresholds[name] is not None and (explicit or not within(values[counted], classes))
        if not as_scores:
            if values.dtype.kind == "f" and not are_labels(values):
                raise ValueError(f"judges[{name!r}]: expected labels of the golden set's classes {few(golden)}, found "
                                 f"scores {few(distinct_values([values[counted]]))}; for scores, {hint}.")
            labelled.append((name, as_labels(values, f"judges[{name!r}]", scores_hint)))
            continue
        if values.dtype.kind not in "iuf":  # strings too
            # A mapping named this judge; a number or "auto" for all reaches labels only outside the golden classes.
            fix = ("leave this judge out of the threshold mapping" if explicit else
                   f"labels must be the golden set's classes {few(classes)}: map them to the references' values")
            raise TypeError(f"judges[{name!r}]: expected numeric scores with threshold={thresholds[name]!r}, found labels such as "
                            f"{few(distinct_values([values[counted]]))}; {fix}.")
        if encoded is None:
            if len(classes) > 2:  # the golden classes and any declared
                raise ValueError(f"judges[{name!r}]: scores (values {few(distinct_values([values[counted]]))}) need a binary golden "
                                 f"set, found references of {len(classes)} classes {few(classes)}; a multi-class golden set "
                                 "ranks judges that give labels: turn each judge's scores into class labels first.")
            try:
                encoded = encode_task(references[counted] if counted.any() else references, None, "binary", declared,
                                      options.get("num_classes"), options.get("pos_label"))
            except ValueError as error:
                raise ValueError(f"judges[{name!r}]: scores are of the positive class, which references {few(golden)} do not "
                                 f"name; pass pos_label (or two labels). ({error})") from None
        scores = values.astype(np.float64)
        positive = references == encoded.classes[encoded.positive_index]
        negative_value, positive_value = encoded.classes[1 - encoded.positive_index], encoded.classes[encoded.positive_index]
        if thresholds[name] == "auto":
            cut, cut_of_item = cross_fitted_cuts(scores, positive, weights, counted, clusters, options.get("seed"))
            done[name] = {"optimal_threshold": cut}
        else:
            cut = cut_of_item = float(thresholds[name])
            done[name] = {"threshold": cut}
        labels = np.where(scores >= cut_of_item, positive_value, negative_value)
        labelled.append((name, labels.astype(references.dtype) if references.dtype.kind != "O" else labels))
    one_class = golden[0] if len(golden) == 1 else None
    spec = None if clusters is None else ClusterSpec(clusters, True)
    batch = count_judges(labelled, references, weights, spec, scores_hint)
    batch.settings.update({key: value for key, value in stored.settings.items()
                           if key in (CLUSTERS_FROM_LEADING_AXIS, CLUSTERS_NOT_COUNTED)})
    batch.reference_dtypes = set(stored.reference_dtypes)
    return ScoredJudges(judges_counts(batch, {**options, "threshold": None}), done, one_class)


def within(values: np.ndarray, classes: np.ndarray) -> bool:
    """Whether every value is one of ``classes`` (a judge's labels, not scores)."""
    found = distinct_values([values])
    return (is_string_array(found) == is_string_array(classes)
            and (not found.size or bool(np.isin(found, classes).all())))


def cross_fitted_cuts(scores: np.ndarray, positive: np.ndarray, weights: Optional[np.ndarray], counted: np.ndarray,
                      clusters: Optional[np.ndarray], seed: Optional[int]) -> Tuple[float, np.ndarray]:
    """The Youden-optimal cut on every counted item, and each item's cut tuned on the folds it is not in.

    Folds: units (items, or clusters kept whole) ordered by their share of positive items, at
    random within equal shares (``seed``, else ``CROSS_FIT_SEED``), dealt round-robin into
    ``min(CROSS_FIT_FOLDS, units)`` folds: each fold gets its share of the positives and the
    negatives, to within one unit.

    Examples
    --------
    >>> scores = np.array([1, 2, 3, 4, 5, 1, 2, 3, 4, 5], dtype=float)
    >>> positive = np.array([0, 0, 0, 1, 1, 0, 0, 1, 1, 1], dtype=bool)
    >>> cut, per_item = cross_fitted_cuts(scores, positive, None, np.ones(10, dtype=bool), None, 0)
    >>> cut, per_item.tolist()  # tuned on all: TPR 4/5, TNR 5/5; each item's cut tuned without its fold
    (3.5, [3.5, 3.5, 2.5, 2.5, 2.5, 3.5, 3.5, 3.5, 2.5, 2.5])
    >>> clusters = np.repeat(np.arange(5), 2)  # pairs of items: each pair in one fold, so one cut
    >>> cross_fitted_cuts(scores, positive, None, np.ones(10, dtype=bool), clusters, 0)[1].reshape(5, 2).tolist()
    [[3.5, 3.5], [2.5, 2.5], [3.5, 3.5], [3.5, 3.5], [2.5, 2.5]]
    """
    size = scores.size
    whole, _, _ = youden_thresholds(scores[:, None], positive[:, None], None if weights is None else weights[:, None], counted[:, None])
    units = np.arange(size) if clusters is None else np.unique(clusters, return_inverse=True)[1].reshape(-1)
    num_units = int(units.max()) + 1 if size else 0
    folds = min(CROSS_FIT_FOLDS, num_units)
    if folds < 2:
        return float(whole[0]), np.full(size, np.inf)
    share = np.bincount(units, weights=(positive & counted).astype(float), minlength=num_units) / np.maximum(
        np.bincount(units, weights=counted.astype(float), minlength=num_units), 1)
    order = np.lexsort((np.random.default_rng(CROSS_FIT_SEED if seed is None else seed).random(num_units), -share))
    fold = (np.argsort(order) % folds)[units]  # the k-th unit in that order goes to fold k % folds
    tuned = counted[:, None] & (fold[:, None] != np.arange(folds)[None, :])
    columns = (lambda values: None if values is None else np.repeat(values[:, None], folds, axis=1))  # one per fold
    cuts, _, _ = youden_thresholds(columns(scores), columns(positive), columns(weights), tuned)
    return float(whole[0]), cuts[fold]


def check_vocabulary(counts: ConfusionCounts, name: str, options: Mapping[str, Any], hint: str, judge: bool = True) -> None:
    """Refuse labels that cannot mean what the value would compute (the rule: the module doc):
    ``name`` is the argument the ``ValueError`` names (``"predictions"``, ``"judges['a']"``),
    ``hint`` what to pass for scores, ``judge`` whether the labels are a judge's ranked with
    others (any value outside the golden classes refused, else only another vocabulary or grades)."""
    encoded = counts.encoded
    if (options.get("labels") is not None or options.get("num_classes") is not None or counts.reason is not None
            or encoded.unobserved or not encoded.num_classes):
        return
    class_counts = counts.class_counts()
    referenced = np.asarray(class_counts.support) > 0
    predicted = np.asarray(class_counts.predicted) > 0
    golden, given = encoded.classes[referenced], encoded.classes[predicted]
    outside = encoded.classes[predicted & ~referenced]
    if not golden.size or not given.size:
        return
    if not (predicted & referenced).any() and (golden.size >= 2 or given.size >= 2):
        raise ValueError(f"{name}: expected labels among the references' classes {few(golden)}, found {few(given)}, none of them "
                         f"a reference class; map the labels to the references' values, pass labels=[...] naming every class, "
                         f"or, for scores, {hint}.")
    if not outside.size:
        return
    undeclared = options.get("task") is None
    # Single predictions: integer values beside a 0/1 golden set (Likert grades given as labels),
    # or strings of another vocabulary beside a two-class golden set ("I" for "incorrect").
    plain_scores = (undeclared and given.dtype.kind in "iu" and golden.dtype.kind in "iu" and golden.tolist() == [0, 1]
                    and given.size > golden.size and outside.size >= 2)
    vocabulary = undeclared and golden.size == 2 and (is_string_array(given) or is_string_array(golden))
    if judge or plain_scores or vocabulary:
        raise ValueError(f"{name}: expected labels of the golden set's {golden.size} classes {few(golden)}, found {given.size} "
                         f"distinct values {few(given)}, {outside.size} of them no reference class ({few(outside)}); map the "
                         "labels to the references' values, or pass labels=[...] (or num_classes) listing every class, the "
                         f"ones the golden set lacks too{'' if is_string_array(given) else f'; for scores, {hint}'}."
                         f"{typo_note(outside.tolist(), golden)}")


def judges_or_scores(stored: Store, options: Mapping[str, Any], scores_hint: str, hint: str) -> Any:
    """What was stored with two or more judges: ``ScoredJudges`` (kept per item, or labels with their
    checks). A threshold after batches counted as labels is refused, saying when to pass it."""
    if stored.settings.get(JUDGE_ROWS) == ROWS_KEPT:  # kept per item by count_judge_rows
        scored = judges_from_rows(stored, options, scores_hint, hint)
    else:
        if options.get("threshold") is not None:
            raise ValueError(f"threshold: the judges' batches were counted as labels (no judge gave non-integral scores and "
                             f"no threshold was known at add_batch), found threshold={options['threshold']!r} at compute; pass "
                             "threshold at evaluate.load(..., threshold=...) so that add_batch keeps the judges' scores, or pass "
                             "the judges to compute(...) in one call.")
        counts = judges_counts(stored, options)
        support = np.asarray(counts.judges[0].class_counts().support) if counts.reason is None else np.zeros(0)
        referenced = counts.judges[0].encoded.classes[support > 0] if support.size else np.zeros(0)
        scored = ScoredJudges(counts, {}, referenced[0] if len(referenced) == 1 else None)
    if scored.counts.reason is None and scored.one_class is None:
        for index, name in enumerate(scored.counts.names):
            if name not in scored.thresholds:
                check_vocabulary(scored.counts.judges[index], f"judges[{name!r}]", options, hint)
    return scored
