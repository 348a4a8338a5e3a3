"""Confusion counts: label batches in, a confusion matrix (as counted cells) out.

``count_labels`` turns one batch of labels into counts of distinct (reference,
prediction) pairs - or, for scores that a compute-time threshold will turn into labels,
keeps them as raw columns. ``confusion_counts`` turns what was stored (one batch, many
batches, many processes) into ``ConfusionCounts``: the options that act on pairs
(``ignore_index``, ``task``, ``labels``, ``num_classes``, ``pos_label``, ``threshold``)
are applied to the distinct pairs, never to samples. ``ConfusionCounts.from_matrix``
builds the same object from a confusion matrix counted anywhere else.
"""

import dataclasses
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

import numpy as np

from .clusters import UNCLUSTERED
from .clusters import ClusterSums
from .clusters import Clusters
from .clusters import RecallInfluence
from .clusters import count_clusters
from .clusters import index_rows
from .clusters import raw_with_clusters
from .clusters import row_cluster_sums
from .clusters import stored_clusters
from .counts import CountTable
from .counts import JointCounts
from .counts import dense_box
from .counts import regrouped
from .counts import kish_sizes
from .counts import NO_SAMPLES
from .counts import kept_rows
from .inputs import EXACT_INTEGERS
from .inputs import SCORES_HINT
from .inputs import as_array
from .inputs import as_labels
from .inputs import check_finite
from .inputs import check_same_shape
from .inputs import check_sample_weight
from .inputs import is_string_array
from .labels import EncodedLabels
from .labels import MAX_MATERIALISED_CLASSES
from .labels import encode_task
from .labels import padding_hint
from .labels import padding_values
from .labels import warn_padding
from .store import Store
from .store import stored_rows
from .thresholds import check_scores
from .thresholds import check_threshold_scale
from .thresholds import threshold_labels
from .thresholds import youden_thresholds

PAIRS = "pairs"


def are_labels(values: np.ndarray, name: str = "predictions") -> bool:
    """Whether values can be counted as labels: integers, strings, or floats that are whole numbers
    (below 2^53, where a float still tells integers apart). Non-finite values raise, naming ``name``."""
    if values.dtype.kind != "f":
        return True
    check_finite(values, name)
    return bool(np.array_equal(np.rint(values), values) and (not values.size or np.abs(values).max() < EXACT_INTEGERS))


def count_labels(predictions: Any, references: Any, sample_weight: Any = None, scores: bool = True,
                 scores_hint: str = SCORES_HINT, clusters: Any = None, cluster_feature: str = "predictions") -> Store:
    """One batch of labels (any shape, flattened) as a ``Store`` of its own.

    Label predictions become counts of distinct (reference, prediction) pairs; with
    ``scores`` (balanced accuracy's ``threshold``), non-integral predictions are kept as raw
    columns, as a threshold set at compute time needs them. Without ``scores`` every prediction
    is a label: non-integral ones raise with ``scores_hint``, and whole-number floats too large
    to tell from scores (2^53 and up) count as the integers they are, not as nothing. ``clusters`` (a ``clusters.ClusterSpec``): the (cluster, reference,
    ``cluster_feature``) counts beside them, the feature being the prediction, or whether it
    is right (``"correct"``: all a recall's variance needs, K cells per cluster, not K^2).
    """
    predictions, references = as_array(predictions, "predictions"), as_array(references, "references")
    check_same_shape(predictions, references)
    weights = check_sample_weight(sample_weight, references.size, references.shape)
    store = Store()
    store.note_references(references)
    references = as_labels(references.reshape(-1), "references", "References are class labels; scores belong in `predictions`.")
    shape = predictions.shape
    predictions = predictions.reshape(-1)
    if not scores or are_labels(predictions):
        table = CountTable(["references", "predictions"])
        predictions = as_labels(predictions, "predictions", scores_hint)
        table.add([references, predictions], weights)
        store.tables[PAIRS] = table

        def by_feature(values: Dict[str, np.ndarray]) -> np.ndarray:
            return (values["references"] == values["predictions"]).astype(np.int8) if cluster_feature == "correct" else values["predictions"]

        def batch_counts() -> JointCounts:
            if cluster_feature == "correct" and dense_box(table) is not None:
                return _correct_counts(*dense_box(table), table.w2_exponent)
            pairs = table.result()
            return regrouped(pairs, {"references": pairs.keys["references"], cluster_feature: by_feature(pairs.keys)})

        def features() -> Dict[str, np.ndarray]:  # per sample: only when clusters are counted
            return {"references": references, cluster_feature: by_feature({"references": references, "predictions": predictions})}

        count_clusters(store, clusters, shape, features, weights, batch_counts)
    else:
        check_scores(predictions)
        store.keep_raw(raw_with_clusters(store, clusters, shape, {"references": references, "predictions": predictions,
                                                                  "sample_weight": weights}))
    return store


def _correct_counts(values, fields: Dict[str, np.ndarray], w2_exponent: int) -> JointCounts:
    """Per reference value, the samples predicted right and wrong, from a dense box of (reference,
    prediction) counts: a batch that is one cluster, counted without a second pass over it."""
    references, predictions = values
    right = np.equal.outer(references, predictions)
    summed = {key: (box.sum(axis=1), (box * right).sum(axis=1)) for key, box in fields.items()}
    n = np.concatenate([summed["n"][1], summed["n"][0] - summed["n"][1]])
    keep = n > 0
    keys = {"references": np.concatenate([references, references])[keep],
            "correct": np.repeat(np.array([1, 0], dtype=np.int8), references.size)[keep]}
    weighted = {key: np.concatenate([right_sum, total - right_sum])[keep] for key, (total, right_sum) in summed.items() if key != "n"}
    return JointCounts(keys, n[keep].astype(np.int64), weighted.get("w"), weighted.get("w2"), w2_exponent)


@dataclass
class ClassCounts:
    """One-vs-rest counts per class (weighted sums when weighted); ``total`` counts every sample."""

    tp: np.ndarray
    support: np.ndarray
    predicted: np.ndarray
    total: Any


@dataclass(frozen=True)
class ConfusionCounts:
    """A confusion matrix as its non-empty cells: ``reference[i]``/``prediction[i]`` are the
    class indices of cell i (in ``encoded.classes`` order), ``n[i]`` its samples, ``w[i]``/``w2[i]``
    their weight sums (None unweighted). ``reason``: why nothing can be computed (e.g.
    every sample ignored); ``optimal_threshold``: the threshold chosen by ``"auto"``."""

    encoded: EncodedLabels
    reference: np.ndarray
    prediction: np.ndarray
    n: np.ndarray
    w: Optional[np.ndarray] = None
    w2: Optional[np.ndarray] = None
    reason: Optional[str] = None
    optimal_threshold: Optional[float] = None
    w2_exponent: int = 0  # w2 holds mantissas of 4**w2_exponent (see counts.squared_weights)
    clusters: Clusters = UNCLUSTERED  # the kept samples' (cluster, reference, feature) counts (clusters.py)

    @property
    def num_classes(self) -> int:
        return self.encoded.num_classes

    @property
    def weight(self) -> np.ndarray:
        return self.n if self.w is None else self.w

    def class_counts(self) -> ClassCounts:
        """TP, support and predicted per class: integers, or weighted sums."""
        k, weight = self.num_classes, self.weight
        count = (lambda index, picked=None: np.bincount(index if picked is None else index[picked],
                                                        weights=weight if picked is None else weight[picked], minlength=k))
        tp, support, predicted = count(self.reference, self.reference == self.prediction), count(self.reference), count(self.prediction)
        if self.w is None:  # counts are integers: keep them exact
            tp, support, predicted = (x.astype(np.int64) for x in (tp, support, predicted))
            return ClassCounts(tp, support, predicted, int(self.n.sum()))
        return ClassCounts(tp, support, predicted, float(weight.sum()))

    def effective_sizes(self) -> Optional[np.ndarray]:
        """Kish's effective size (sum w)^2 / sum w^2 of each reference class: what an interval counts; None unweighted."""
        return None if self.w is None else kish_sizes(self.reference, self.w, self.w2, self.w2_exponent, self.num_classes)

    def cluster_sums(self, influence: Any) -> ClusterSums:
        """The clusters' sums of ``influence``: a ``RecallInfluence``, or a gradient ``[c, d]``
        (the value's derivative with respect to the count of cell (reference c, prediction d))."""
        return row_cluster_sums(*reversed(row_influence(self.clusters.rows, self.encoded.classes, "predictions", influence)))

    def check_materialised(self, name: str) -> None:
        """Per-class lists need every class materialised: refuse them for unobserved classes."""
        if self.encoded.unobserved:
            total = self.num_classes + self.encoded.unobserved
            raise ValueError(f"{name}: per-class lists need at most {MAX_MATERIALISED_CLASSES:,} classes, found "
                             f"num_classes={total:,}; pass `labels` with the classes to report instead.")

    def matrix(self, name: str = "return_confusion_matrix") -> np.ndarray:
        """The dense K x K matrix (rows = references, columns = predictions, class order)."""
        if self.encoded.unobserved or self.num_classes > 4096:
            total = self.num_classes + self.encoded.unobserved
            raise ValueError(f"{name}: a dense confusion matrix needs at most 4,096 classes, found {total:,}; pass `labels` "
                             "with the classes to report instead.")
        dense = np.zeros((self.num_classes, self.num_classes), dtype=np.int64 if self.w is None else np.float64)
        np.add.at(dense, (self.reference, self.prediction), self.weight)
        return dense

    @classmethod
    def from_matrix(cls, matrix: Any, labels: Optional[list] = None, task: Optional[str] = None,
                    pos_label: Any = None) -> "ConfusionCounts":
        """A confusion matrix counted elsewhere (rows = references, columns = predictions, in the order
        of ``labels``, or classes 0..K-1). Integer entries are counts; other entries are weighted
        sums (each treated, for intervals, as a count)."""
        cells = as_array(matrix, "confusion_matrix")
        if cells.ndim != 2 or cells.shape[0] != cells.shape[1] or cells.shape[0] < 1 or is_string_array(cells):
            raise ValueError(f"confusion_matrix: expected a square K x K array of counts, found shape {cells.shape}"
                             + (" of strings." if is_string_array(cells) else "."))
        check_finite(cells, "confusion_matrix")
        if cells.size and cells.min() < 0:
            raise ValueError(f"confusion_matrix: expected non-negative counts, found {cells.min()}.")
        num_classes = cells.shape[0]
        if labels is not None and len(labels) != num_classes:
            raise ValueError(f"labels: expected one class per row of confusion_matrix ({num_classes}), found {len(labels)}.")
        classes = np.asarray(labels if labels is not None else range(num_classes))
        if is_string_array(classes):
            classes = classes.astype(str)
        rows, columns = np.nonzero(cells)
        counts = JointCounts({"references": classes[rows], "predictions": classes[columns]}, np.rint(cells[rows, columns]).astype(np.int64))
        if cells.dtype.kind == "f" and not np.array_equal(np.rint(cells), cells):
            weight = cells[rows, columns].astype(np.float64)
            counts = JointCounts(counts.keys, np.ones(weight.size, dtype=np.int64), weight, weight.copy())
        labels = list(classes.tolist()) if labels is None else labels
        return _encode_pairs(counts, task, labels, None, pos_label)


def row_influence(rows: JointCounts, classes: np.ndarray, prediction_key: str, influence: Any) -> Tuple[JointCounts, np.ndarray]:
    """The counted (cluster, reference, ...) rows whose reference is a class, and the influence of
    each row's samples on a value: ``influence[c, d]``, its derivative with respect to the count
    of cell (reference c, prediction d), or, for a mean of recalls, a ``RecallInfluence``: one
    value per class for a right and one for a wrong prediction (``metrics/balanced_accuracy.py`` ``recall_influence``).
    Rows counted with whether the prediction is right (key ``correct``) need the latter."""
    reference = index_rows(rows, "references", classes)
    kept = reference >= 0
    if not kept.all():  # references outside the classes (dropped by labels=) count nowhere
        rows, reference = rows.select(kept), reference[kept]
    if "correct" in rows.keys:
        correct, prediction = rows.keys["correct"] > 0, None
    else:
        prediction = index_rows(rows, prediction_key, classes)
        correct = prediction == reference
    if isinstance(influence, RecallInfluence):
        right, wrong = (np.asarray(values, dtype=np.float64) for values in (influence.right, influence.wrong))
        return rows, np.where(correct, right[reference], wrong[reference])
    gradient = np.asarray(influence, dtype=np.float64)
    # A prediction outside the classes (labels= without it) counts for no class: as a wrong prediction
    # of its row into the cell whose column no selected class reads; rare, so the next class stands in.
    outside = gradient[reference, (reference + 1) % len(classes)] if len(classes) > 1 else np.zeros(reference.size)
    return rows, np.where(prediction >= 0, gradient[reference, np.maximum(prediction, 0)], outside)


def _encode_pairs(pairs: JointCounts, task, labels, num_classes, pos_label, reason=None, padding=()) -> ConfusionCounts:
    with padding_hint(padding):
        encoded = encode_task(pairs.keys["references"], pairs.keys["predictions"], task, labels, num_classes, pos_label)
    warn_padding(padding, encoded, labels)
    if reason is None and not pairs.n.size:  # a confusion matrix of zeros (samples pass through kept_rows)
        reason = NO_SAMPLES
    return ConfusionCounts(encoded, encoded.reference_indices, encoded.prediction_indices, pairs.n, pairs.w, pairs.w2, reason,
                           w2_exponent=pairs.w2_exponent)


def confusion_counts(stored: Store, options: Dict[str, Any], scores_hint: str = SCORES_HINT) -> ConfusionCounts:
    """What was stored, as ``ConfusionCounts`` under the options (see the module doc).

    ``ignore_index`` drops pairs; samples of weight 0 are dropped as if never added; with a
    ``threshold`` (binary), the predictions are scores of the positive class, turned into
    labels (``"auto"``: the Youden-optimal threshold, over all of them).
    """
    ignore_index = options.get("ignore_index")
    # Scores kept raw with each sample's cluster beside them: the clusters are a key of the rows.
    beside = ("clusters",) if "clusters" in (stored.raw_columns() or {}) and PAIRS not in stored.tables else ()
    rows, reason = kept_rows(stored_rows(stored, PAIRS, ("references", "predictions", *beside)), ignore_index)
    clusters = stored_clusters(stored, ignore_index)
    # -100 or a uint8 255 among the references, without ignore_index: probably padding (warned, or named in an error).
    padding = padding_values(rows.keys["references"], stored.reference_dtypes, ignore_index)
    threshold = options.get("threshold")
    if threshold is None:
        rows.keys["predictions"] = as_labels(rows.keys["predictions"], "predictions", scores_hint)  # raises, naming a score
        counts = _encode_pairs(rows, options.get("task"), options.get("labels"), options.get("num_classes"), options.get("pos_label"),
                               reason, padding)
    else:
        counts = _thresholded(rows, threshold, options, reason, padding)
        if "clusters" in rows.keys:
            correct = (counts.encoded.reference_indices == threshold_labels(rows.keys["predictions"].astype(np.float64),
                       counts.optimal_threshold if threshold == "auto" else threshold, counts.encoded.positive_index))
            clusters = Clusters(JointCounts({"clusters": rows.keys["clusters"], "references": rows.keys["references"],
                                             "correct": correct.astype(np.int8)}, rows.n, rows.w, rows.w2, rows.w2_exponent),
                                from_leading_axis=clusters.from_leading_axis)
    return dataclasses.replace(counts, clusters=clusters)  # fixed once counted


def _thresholded(rows: JointCounts, threshold: Any, options: Dict[str, Any], reason: Optional[str], padding=()) -> ConfusionCounts:
    """Binary scores of the positive class turned into labels."""
    if is_string_array(rows.keys["predictions"]) and rows.n.size:
        raise TypeError(f"predictions: expected numeric scores with a threshold, found strings such as {rows.keys['predictions'][0]!r}.")
    scores = rows.keys["predictions"].astype(np.float64, copy=False)  # kept scores: float64 already, no copy
    with padding_hint(padding):
        encoded = encode_task(rows.keys["references"], None, "binary", options.get("labels"), options.get("num_classes"),
                              options.get("pos_label"))
    warn_padding(padding, encoded, options.get("labels"))
    positive = encoded.reference_indices == encoded.positive_index
    optimal = None
    if threshold == "auto":
        check_scores(scores)
        # A counted row stands for n samples: its count is its weight in the search.
        search_weight = None if rows.w is None and (rows.n == 1).all() else rows.weight.astype(np.float64)[:, None]
        best, _, _ = youden_thresholds(scores[:, None], positive[:, None], search_weight)
        threshold = optimal = float(best[0])
    else:
        check_threshold_scale(scores, threshold)
    # Cell reference * 2 + predicted class index (that of threshold_labels).
    label_one = (scores >= threshold) if encoded.positive_index == 1 else (scores < threshold)
    if rows.w is None and not (rows.n != 1).any():
        # One sample per row, unweighted: the four cells from three counts (no array of cell codes).
        reference_one = encoded.reference_indices == 1
        both, references_one, labels_one = (int(np.count_nonzero(values)) for values in (reference_one & label_one, reference_one, label_one))
        n = np.array([rows.n.size - references_one - labels_one + both, labels_one - both, references_one - both, both], dtype=np.float64)
        cell = None
    else:
        cell = encoded.reference_indices.astype(np.intp) * 2 + label_one
        n = np.bincount(cell, weights=rows.n, minlength=4)
    present = np.flatnonzero(n)
    w, w2 = (None, None) if rows.w is None else (np.bincount(cell, weights=values, minlength=4)[present]
                                                 for values in (rows.w, rows.w2))
    return ConfusionCounts(encoded, present // 2, present % 2, np.rint(n[present]).astype(np.int64), w, w2, reason, optimal,
                           rows.w2_exponent)
