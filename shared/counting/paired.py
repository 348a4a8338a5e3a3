"""Two systems on one golden set: counting ``baseline_predictions`` beside ``predictions``.

A paired comparison (``comparison.py``) needs the *joint* counts
``joint[r, a, b]`` of (reference, system's prediction, baseline's prediction): each
system's confusion matrix alone does not say on which items the two agree. So a batch
given with ``baseline_predictions`` is counted as triples in a count table of its own
(``PAIRED``) - the same sufficient statistics as the pairs of ``confusion.py``, merged
by streaming and by distributed processes alike - or, for scores a compute-time
threshold still has to turn into labels, kept as raw columns.

``paired_counts`` turns what was stored into ``PairedCounts``: both systems' confusion
counts (``ConfusionCounts``, by marginalising the triples, so every option of the
module applies to the two systems identically) over one common class order, and the
dense joint counts for ``comparison.py``.
"""

import dataclasses
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

import numpy as np

from .confusion import ConfusionCounts
from .clusters import UNCLUSTERED
from .clusters import ClusterSums
from .clusters import Clusters
from .clusters import cluster_positions
from .clusters import every_cluster_single
from .clusters import midpoint_influence
from .clusters import count_clusters
from .clusters import raw_with_clusters
from .clusters import row_cluster_sums
from .clusters import stored_clusters
from .confusion import are_labels
from .confusion import row_influence
from .counts import CountTable
from .counts import JointCounts
from .counts import equal_weight_counts
from .counts import kept_rows
from .inputs import SCORES_HINT
from .inputs import describe_values
from .inputs import as_array
from .inputs import as_labels
from .inputs import check_sample_weight
from .inputs import is_string_array
from .labels import EncodedLabels
from .labels import encode_task
from .labels import label_kind
from .labels import padding_hint
from .labels import padding_values
from .labels import warn_padding
from .store import Store
from .store import stored_rows
from .thresholds import check_threshold_scale
from .thresholds import threshold_labels

PAIRED = "paired"
PAIRED_KEYS = ("references", "predictions", "baseline_predictions")
# Whether batches carried baseline_predictions: every batch must agree (Store.merge checks settings).
BASELINE_SETTING = "baseline_predictions"
GIVEN, NOT_GIVEN = "given with every batch", "not given"
# The joint counts are K^3 cells and comparison.py's gradients as many: a bound on K.
MAX_COMPARISON_CLASSES = 128

AUTO_THRESHOLD_COMPARISON = (
    "threshold: no comparison with threshold='auto'. The threshold would be fitted to these same data "
    "(for which system?), and the interval and p-value would not hold; tune the threshold on a separate "
    "split and pass it as a number, which then applies to both systems' scores."
)


def mark_baseline(store: Store, given: bool) -> Store:
    """Record whether a batch had baseline_predictions, so that mixing batches fails at add_batch."""
    store.settings[BASELINE_SETTING] = GIVEN if given else NOT_GIVEN
    return store


def count_paired_labels(predictions: Any, references: Any, baseline_predictions: Any, sample_weight: Any = None,
                        scores: bool = True, scores_hint: str = SCORES_HINT, clusters: Any = None) -> Store:
    """One batch with a baseline as a ``Store`` of its own (see the module doc); ``clusters``: a
    ``clusters.ClusterSpec``, the (cluster, reference, prediction, baseline) counts beside them."""
    predictions, references = as_array(predictions, "predictions"), as_array(references, "references")
    baseline = as_array(baseline_predictions, "baseline_predictions")
    if predictions.shape != references.shape or baseline.shape != references.shape:
        raise ValueError(
            f"baseline_predictions: expected predictions, references and baseline_predictions of one shape, found "
            f"{predictions.shape}, {references.shape} and {baseline.shape}."
        )
    weights = check_sample_weight(sample_weight, references.size, references.shape)
    store = mark_baseline(Store(), True)
    store.note_references(references)
    references = as_labels(references.reshape(-1), "references", "References are class labels; scores belong in `predictions`.")
    shape = predictions.shape
    predictions, baseline = predictions.reshape(-1), baseline.reshape(-1)
    if not scores or (are_labels(predictions) and are_labels(baseline, "baseline_predictions")):
        table = CountTable(list(PAIRED_KEYS))  # without scores, as_labels refuses non-integral values with the hint
        predictions = as_labels(predictions, "predictions", scores_hint)
        baseline = as_labels(baseline, "baseline_predictions", scores_hint)
        table.add([references, predictions, baseline], weights)
        store.tables[PAIRED] = table
        count_clusters(store, clusters, shape, dict(zip(PAIRED_KEYS, (references, predictions, baseline))), weights)
    else:
        for name, values in (("predictions", predictions), ("baseline_predictions", baseline)):
            if values.dtype.kind not in "iuf":  # strings too
                raise TypeError(f"{name}: expected numeric scores like the other system's, found values of dtype {values.dtype}.")
        store.keep_raw(raw_with_clusters(store, clusters, shape, {
            "references": references, "predictions": predictions.astype(np.float64),
            "baseline_predictions": baseline.astype(np.float64), "sample_weight": weights}))
    return store


@dataclass(frozen=True)
class PairedCounts:
    """Both systems' confusion counts (one class order) and their joint counts.

    ``joint[r, a, b]``: weight sums (scaled by a power of two when weighted, which changes
    no rate) of reference class r, system prediction a, baseline prediction b;
    ``joint_w2``: the sums of squared weights on the same scale (None unweighted)."""

    system: ConfusionCounts
    baseline: ConfusionCounts
    joint: np.ndarray
    joint_w2: Optional[np.ndarray] = None

    @property
    def reason(self) -> Optional[str]:
        return self.system.reason

    @property
    def clusters(self) -> Clusters:
        """The samples' clusters (counted with both systems' predictions)."""
        return self.system.clusters

    def effective_sizes(self) -> Optional[np.ndarray]:
        """Kish's effective size of each reference class (the golden set's); None unweighted."""
        return self.system.effective_sizes()

    def cluster_sums(self, influence: Tuple[Any, Any]) -> ClusterSums:
        """The clusters' sums of the difference system - baseline, whose influences are
        ``influence`` = (system's, baseline's), each as ``ConfusionCounts.cluster_sums`` takes it."""
        classes = self.system.encoded.classes
        rows, system = row_influence(self.clusters.rows, classes, "predictions", influence[0])
        _, baseline = row_influence(self.clusters.rows, classes, "baseline_predictions", influence[1])
        return row_cluster_sums(system - baseline, rows)

    def swap_sums(self, influence: Tuple[Any, Any]) -> Optional[np.ndarray]:
        """Each cluster's contribution to the difference system - baseline that changes sign when the
        two systems' predictions are swapped within the cluster (``stats.paired_tests.cluster_swap_p_value``):
        the weighted sum over its samples of ``g[r, a] - g[r, b]`` (reference r, the system's prediction a,
        the baseline's b), with g the midpoint of the two ``influence``s. One gradient for both systems,
        so each reference row's centring cancels and the contributions add up to the difference (exactly
        for a mean of recalls, to first order otherwise). None when no cluster holds two samples: the
        independent test is then the same test."""
        if self.clusters.rows is None:
            return None
        classes, midpoint = self.system.encoded.classes, midpoint_influence(*influence)
        rows, system = row_influence(self.clusters.rows, classes, "predictions", midpoint)
        _, baseline = row_influence(self.clusters.rows, classes, "baseline_predictions", midpoint)
        positions = cluster_positions(rows)
        if positions.size and not every_cluster_single(positions, rows):
            return np.bincount(positions, weights=rows.weight.astype(np.float64) * (system - baseline))
        return None


def _check_baseline_labels(references: np.ndarray, baseline: np.ndarray, options: Dict[str, Any]) -> None:
    """Errors about the baseline's labels name baseline_predictions (the shared encoding would say predictions)."""
    if not baseline.size:
        return
    if references.size and label_kind(references) != label_kind(baseline):
        raise TypeError(f"baseline_predictions: expected {label_kind(references)} labels like the references, found {label_kind(baseline)}s.")
    labels, num_classes = options.get("labels"), options.get("num_classes")
    binary = options.get("task") == "binary" and options.get("pos_label") is None
    if labels is not None:
        known = set(labels)
        unknown = np.array([value for value in np.unique(baseline).tolist() if value not in known])
        if unknown.size:
            raise ValueError(f"baseline_predictions: expected values among `labels`, found unknown value(s) {describe_values(unknown)}.")
    elif label_kind(baseline) == "integer" and (binary or num_classes is not None):
        high = 1 if binary else num_classes - 1
        outside = np.unique(baseline[(baseline < 0) | (baseline > high)])
        if outside.size:
            expected = "labels 0/1 with task='binary'" if binary else f"labels in [0, {high}]"
            raise ValueError(f"baseline_predictions: expected {expected}, found {describe_values(outside)}.")


def paired_counts(stored: Store, options: Dict[str, Any], scores_hint: str = SCORES_HINT) -> PairedCounts:
    """What was stored with baseline_predictions, as ``PairedCounts`` under the options.

    As ``confusion.confusion_counts`` for one system: ``ignore_index`` drops triples,
    weight-0 samples are dropped, a numeric ``threshold`` turns both systems' scores into
    labels the same way. The classes are one order for both systems (``labels``,
    ``0..num_classes-1``, or the values seen in references and either system's predictions).
    """
    if options.get("threshold") == "auto":
        raise ValueError(f"{AUTO_THRESHOLD_COMPARISON} Found threshold='auto' with baseline_predictions.")
    # The single-system rules (store.stored_rows, counts.kept_rows): raw rows with the counted ones, ignore_index, weight 0.
    beside = ("clusters",) if "clusters" in (stored.raw_columns() or {}) and PAIRED not in stored.tables else ()
    rows, reason = kept_rows(stored_rows(stored, PAIRED, PAIRED_KEYS + beside), options.get("ignore_index"))
    clusters = stored_clusters(stored, options.get("ignore_index"))
    keys = rows.keys
    threshold = options.get("threshold")
    references = keys["references"]
    padding = padding_values(references, stored.reference_dtypes, options.get("ignore_index"))  # as confusion_counts
    if threshold is None:
        for name in ("predictions", "baseline_predictions"):
            keys[name] = as_labels(keys[name], name, scores_hint)  # raises, naming a non-integer value
        _check_baseline_labels(references, keys["baseline_predictions"], options)
        both = np.concatenate([keys["predictions"], keys["baseline_predictions"]])
        with padding_hint(padding):
            encoded = encode_task(references, both, options.get("task"), options.get("labels"), options.get("num_classes"),
                                  options.get("pos_label"))
        system_index, baseline_index = np.split(encoded.prediction_indices, 2)
    else:
        for name in ("predictions", "baseline_predictions"):
            if is_string_array(keys[name]) and keys[name].size:
                raise TypeError(f"{name}: expected numeric scores with a threshold, found strings such as {keys[name][0]!r}.")
            check_threshold_scale(keys[name].astype(np.float64), threshold, name)
        with padding_hint(padding):
            encoded = encode_task(references, None, "binary", options.get("labels"), options.get("num_classes"), options.get("pos_label"))
        system_index, baseline_index = (threshold_labels(keys[name].astype(np.float64), threshold, encoded.positive_index)
                                        for name in ("predictions", "baseline_predictions"))
    warn_padding(padding, encoded, options.get("labels"))
    num_classes = encoded.num_classes
    if encoded.unobserved or num_classes > MAX_COMPARISON_CLASSES:
        raise ValueError(
            f"baseline_predictions: a comparison counts K^3 (reference, prediction, baseline) cells; expected at most "
            f"{MAX_COMPARISON_CLASSES} classes, found {num_classes + encoded.unobserved:,}."
        )
    reference_index = encoded.reference_indices
    joint, joint_w2 = joint_counts((reference_index * num_classes + system_index) * num_classes + baseline_index,
                                   (num_classes,) * 3, rows)
    if beside:  # thresholded scores: each sample's labels beside its cluster
        clusters = Clusters(dataclasses.replace(rows, keys={"clusters": keys["clusters"], "references": references,
                                                            "predictions": encoded.classes[system_index],
                                                            "baseline_predictions": encoded.classes[baseline_index]}),
                            from_leading_axis=clusters.from_leading_axis)
    # Each system's confusion counts: the triples summed over the other system.
    return PairedCounts(system_counts(encoded, reference_index, system_index, rows, reason, clusters),
                        system_counts(encoded, reference_index, baseline_index, rows, reason), joint, joint_w2)


def system_counts(encoded: EncodedLabels, reference_index: np.ndarray, prediction_index: np.ndarray, rows: JointCounts,
                  reason: Optional[str], clusters: Clusters = UNCLUSTERED) -> ConfusionCounts:
    """One system's confusion counts from counted rows (a comparison's triples, a judge's own rows) and
    their class indices: the rows' ``n``, ``w``, ``w2`` summed per (reference, prediction) cell."""
    k = encoded.num_classes
    present, inverse = np.unique(reference_index * k + prediction_index, return_inverse=True)
    total = (lambda values: None if values is None else np.bincount(inverse, weights=values, minlength=present.size))
    return ConfusionCounts(dataclasses.replace(encoded, prediction_indices=None), present // k, present % k,
                           np.rint(total(rows.n)).astype(np.int64), total(rows.w), total(rows.w2), reason,
                           w2_exponent=rows.w2_exponent, clusters=clusters)


def joint_counts(cell: np.ndarray, shape: Tuple[int, ...], rows: JointCounts) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """The joint counts of counted rows (each in its ``cell`` of an array of ``shape``) and their
    squared weights (None when unweighted). Weights are scaled by a power of two (no rate changes).
    Equal weights change no rate and no effective size: the statistics then see the counts of
    samples of positive weight, so all-ones (or any constant) weights give exactly the unweighted
    p-value and interval; ``system_counts`` keeps the weight sums."""
    w, w2, exponent = rows.w, rows.w2, rows.w2_exponent
    equal_counts = None if w is None else equal_weight_counts(w, w2, exponent)
    weighted = w is not None and equal_counts is None
    weight = np.ldexp(w, -exponent) if weighted else (rows.n if w is None else equal_counts).astype(np.float64)
    size = int(np.prod(shape))
    return (np.bincount(cell, weights=weight, minlength=size).reshape(shape),
            np.bincount(cell, weights=w2, minlength=size).reshape(shape) if weighted else None)


def has_baseline(stored: Store) -> bool:
    """Whether the stored batches were given with baseline_predictions."""
    return stored.settings.get(BASELINE_SETTING) == GIVEN


def count_batch(count_single: Any, predictions: Any, references: Any, inputs: Dict[str, Any], **count_options: Any) -> Store:
    """One batch, with its baseline when given (``count_paired_labels``), else by ``count_single``
    (the module's own counting); either way marked, so that mixing the two kinds of batches fails."""
    baseline = inputs.get("baseline_predictions")
    if baseline is not None:
        count_options.pop("cluster_feature", None)
        return count_paired_labels(predictions, references, baseline, inputs.get("sample_weight"), clusters=inputs.get("clusters"),
                                   **count_options)
    return mark_baseline(count_single(predictions, references, inputs.get("sample_weight"), clusters=inputs.get("clusters"),
                                      **count_options), False)
