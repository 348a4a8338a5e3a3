"""Multilabel clusters: the labels of one sample share it, so a sample is (at least) one cluster.

The L labels of a sample are judged on the same input: a hard sample tends to get several
of its labels wrong at once, so the (N, L) entries are not N L independent draws, and an
interval that treats them as such is too narrow by the design effect (``clusters.py``).
By default each sample (row) is one cluster; ``clusters=`` (one id per sample: a
conversation, a document) groups samples further.

The value's influence is linear in each entry's cell (label l, reference y, prediction q),
so a cluster's summed influence is ``u_g = psi . z_g`` with ``z_g`` its weighted counts of
the cells. Written relative to the dense cell (y, q) = (0, 0) of each label, ``z_g`` is
``(n_g, x_g)``: the cluster's weighted number of samples and, per label, its weighted
counts of the three other cells (FP, FN, TP) and of entries whose reference is not 0/1
(ignored, or an error at compute) - ``F = 1 + 4 L`` features, sparse as errors and
positives are. What the design effect needs is ``sum_g u_g^2 = psi^T S psi`` with the
cross-sums ``S = sum_g z_g z_g^T``, ``sum_g u_g = psi . t`` with ``t = sum_g z_g``, and G.

Three ways of keeping them, each merged by addition across ``add_batch`` and processes:

* cross-sums (``Store.moments``): with the default clusters a batch's rows are clusters of
  their own, complete once counted, so each batch adds its ``S`` (``F x F`` float64), ``t``
  and G: memory O(L^2) whatever the number of samples. Up to ``MAX_CROSS_SUM_LABELS``
  labels (``S`` is then at most 128 MB); 0/1 predictions only (a compute-time threshold maps
  0/1 to 0/1 linearly: to themselves, or all to 0 or 1).
* per-cluster rows (two ``CountTable``s: the clusters' weighted sizes, and their entries
  other than (0, 0) as (cluster, label, reference, prediction)): for ``clusters=`` (a cluster
  may span batches), for more labels than the cross-sums take, and for integer scores.
  Memory follows the entries that are not true negatives.
* raw score rows (``from_probas`` with scores): the threshold is applied at compute, so
  each row's cluster id is kept beside it as a raw column.

Each batch's entries are counted per block of rows; a block's ``S`` is its one-hot
feature matrix's ``Z^T Z``, a float32 BLAS product (exact: every sum is an integer below
2^24) or, where the rows hold few non-(0, 0) entries, a bincount of the pairs of each row's
entries, whichever costs less.
"""

from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np

from .clusters import CLUSTERS_NOT_COUNTED
from .clusters import NO_CLUSTERS
from .clusters import DesignEffect
from .clusters import cluster_ids
from .clusters import design_effect_from_sums
from .counts import CountTable
from .counts import JointCounts

# Store.moments names: the cross-sums S, the sums t, the number of clusters G, and how many
# samples came with given ids or default ones (mixing the two is refused at compute).
CROSS, SUMS, COUNT = "clusters/cross", "clusters/sums", "clusters/count"
GIVEN_ROWS, DEFAULT_ROWS = "clusters/given_rows", "clusters/default_rows"
# The count tables of per-cluster rows ("_": not samples, out of len(store)).
SIZES, ENTRIES = "_cluster_sizes", "_cluster_entries"
ENTRY_KEYS = ("clusters", "label", "reference", "prediction")
# Cross-sums are kept up to this many labels: S is (1 + 4 L)^2 float64, 128 MB at 1,000 labels
# (measured: benchmarks/run.py, "multilabel interval"); beyond, per-cluster rows.
MAX_CROSS_SUM_LABELS = 1000
# Rows per block of the cross-sums: a block's features (float32) stay a few MB.
BLOCK_ROWS = 4096
# Relative costs (seconds) of one pair in the sparse path and one multiply-add in the dense one.
_PAIR_COST, _MULTIPLY_ADD_COST = 1.5e-8, 4e-11
FP, FN, TP, IGNORED = range(4)  # the feature blocks after n: state s of label l is 1 + s L + l


def row_cluster_ids(spec: Any, store: Any, num_rows: int, num_labels: int) -> Optional[np.ndarray]:
    """One cluster id per row of an (N, L) batch as ``spec`` (a ``clusters.ClusterSpec``) says, or
    None when clusters are not counted (noted in ``store``: an interval asked for later is NaN)."""
    if spec is None:
        return None
    if spec.given is not None:
        return cluster_ids(spec.given, (num_rows,))
    ids = spec.leading_ids((num_rows, num_labels))
    if ids is None:
        store.settings[CLUSTERS_NOT_COUNTED] = True
        return None
    return ids.reshape(-1)


def count_entry_clusters(store: Any, ids: np.ndarray, given: bool, references: np.ndarray, predictions: np.ndarray,
                         weights: Optional[np.ndarray]) -> None:
    """Count one batch of (N, L) integer rows by cluster into ``store`` (see the module doc)."""
    num_rows, num_labels = references.shape
    note_rows(store, given, num_rows)
    binary = predictions.dtype == bool or not predictions.size or (predictions.min() >= 0 and predictions.max() <= 1)
    if not given and binary and num_labels <= MAX_CROSS_SUM_LABELS:
        add_cross_sums(store, references, predictions, weights)
    else:
        add_cluster_rows(store, ids, references, predictions, weights)


def note_rows(store: Any, given: bool, num_rows: int) -> None:
    """Count a batch's rows as having given cluster ids or default ones (they must not mix)."""
    store.moments[GIVEN_ROWS if given else DEFAULT_ROWS] = np.array([float(num_rows)])


def _cells(references: np.ndarray, predictions: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``(state, kept)``: per entry 0 for (0, 0), 1 + FP/FN/TP for the others, 1 + IGNORED for a
    reference that is not 0/1 (int8); and whether the entry's reference is 0/1."""
    kept = (references == 0) | (references == 1)
    state = references.astype(np.int8) * 2 + predictions.astype(np.int8)
    state[~kept] = 1 + IGNORED
    return state, kept


def add_cross_sums(store: Any, references: np.ndarray, predictions: np.ndarray, weights: Optional[np.ndarray]) -> None:
    """Add the cross-sums of one batch whose rows are clusters of their own (0/1 predictions)."""
    num_rows, num_labels = references.shape
    size = 1 + 4 * num_labels
    cross, sums, count = np.zeros((size, size)), np.zeros(size), 0
    for start in range(0, num_rows, BLOCK_ROWS):
        state, kept = _cells(references[start : start + BLOCK_ROWS], predictions[start : start + BLOCK_ROWS])
        rows = kept.any(axis=1)  # a row counts where it has a 0/1 reference and weight
        row_weight = None if weights is None else weights[start : start + BLOCK_ROWS]
        if row_weight is not None:
            rows &= row_weight > 0
        row, label = np.nonzero(state)
        keep = rows[row]
        row, feature = row[keep], 1 + (state[row[keep], label[keep]].astype(np.intp) - 1) * num_labels + label[keep]
        count += int(rows.sum())
        weight = np.ones(len(rows)) if row_weight is None else row_weight.astype(np.float64)
        weight = np.where(rows, weight, 0.0)
        sums[0] += weight.sum()
        sums += np.bincount(feature, weights=weight[row], minlength=size)
        squared = weight**2
        cross[0, 0] += squared.sum()
        edge = np.bincount(feature, weights=squared[row], minlength=size)
        cross[0] += edge
        cross[1:, 0] += edge[1:]
        _add_block(cross, row, feature, squared, len(rows), num_labels, row_weight is None)
    store.moments[CROSS], store.moments[SUMS], store.moments[COUNT] = cross, sums, np.array([float(count)])


def _add_block(cross: np.ndarray, row: np.ndarray, feature: np.ndarray, squared: np.ndarray, num_rows: int, num_labels: int,
               unweighted: bool) -> None:
    """Add sum_rows w^2 x x^T over the block's entries (``row``, ``feature``; feature 0, n, is added
    by the caller) to ``cross``: a bincount of each row's pairs, or a BLAS product of the one-hot
    block, whichever costs less."""
    if not row.size:
        return
    per_row = np.bincount(row, minlength=num_rows)
    pairs = int((per_row * (per_row + 1) // 2).sum())
    width = 1 + (4 if feature.max() > 3 * num_labels else 3) * num_labels  # the ignored block only when present
    if pairs * _PAIR_COST < num_rows * width * width / 2 * _MULTIPLY_ADD_COST:
        ends = np.cumsum(per_row)[row]
        partners = ends - np.arange(row.size)  # the entries from this one to its row's end
        first = np.repeat(np.arange(row.size), partners)
        second = first + (np.arange(first.size) - np.repeat(np.cumsum(partners) - partners, partners))
        size = cross.shape[0]
        codes = feature[first] * size + feature[second]
        block = np.bincount(codes, weights=None if unweighted else squared[row[first]], minlength=size * size).reshape(size, size)
        diagonal = np.diagonal(block).copy()  # an entry with itself: counted once
        cross += block
        cross += block.T
        cross[np.diag_indices(size)] -= diagonal
        return
    # One-hot rows: float32 is exact for 0/1 products summed over fewer than 2^24 rows.
    features = np.zeros((num_rows, width - 1), dtype=np.float32 if unweighted else np.float64)
    features[row, feature - 1] = 1.0 if unweighted else np.sqrt(squared[row])
    cross[1:width, 1:width] += features.T @ features


def add_cluster_rows(store: Any, ids: np.ndarray, references: np.ndarray, predictions: np.ndarray,
                     weights: Optional[np.ndarray]) -> None:
    """Count one batch as per-cluster rows: the clusters' sizes, and their entries other than (0, 0)."""
    sizes = CountTable(["clusters"])
    sizes.add([ids], weights)
    entries = CountTable(list(ENTRY_KEYS))
    row, label = np.nonzero((references != 0) | (predictions != 0))
    entries.add([ids[row], label, references[row, label], predictions[row, label]], None if weights is None else weights[row])
    store.tables[SIZES], store.tables[ENTRIES] = sizes, entries


@dataclass
class MultilabelClusters:
    """What an interval needs of the clusters, gathered at compute from a store (see the module
    doc): the cross-sums (or None), the per-cluster rows (or None), the raw rows' cluster ids and
    their cells (or None), how compute's threshold maps a counted 0/1 prediction (``predicted``:
    per label, the prediction 0 and 1 become; None: themselves), and ``ignore_index``."""

    moments: Optional[dict] = None
    sizes: Optional[JointCounts] = None
    entries: Optional[JointCounts] = None
    raw_ids: Optional[np.ndarray] = None
    raw_cells: Optional[np.ndarray] = None  # (N, L): reference * 2 + predicted, -1 where not counted
    raw_weights: Optional[np.ndarray] = None
    cut: Optional[np.ndarray] = None  # per-label thresholds of from_probas (None: predictions are labels)
    ignore_index: Optional[int] = None
    reason: Optional[str] = None

    def design_effect(self, influence: np.ndarray, independent: float, confidence_level: float) -> DesignEffect:
        """The design effect of a value whose influence per entry is ``influence`` ((L, 2, 2), cells
        ``[[tn, fp], [fn, tp]]``); ``independent``: its variance with independent entries."""
        if self.reason is not None:
            return DesignEffect(float("nan"), None, self.reason, float("nan"))
        num_labels = influence.shape[0]
        squares, total, count = 0.0, 0.0, 0
        if self.moments is not None:
            psi = self._feature_influence(influence)
            squares += float(psi @ self.moments[CROSS] @ psi)
            total += float(psi @ self.moments[SUMS])
            count += int(round(float(self.moments[COUNT][0])))
        keys, sums = [], []
        if self.sizes is not None:
            keys_rows, sums_rows = self._row_sums(influence, num_labels)
            keys.append(keys_rows)
            sums.append(sums_rows)
        if self.raw_ids is not None:
            kept = self.raw_cells >= 0
            rows = kept.any(axis=1) if self.raw_weights is None else kept.any(axis=1) & (self.raw_weights > 0)
            table = influence.reshape(num_labels, 4)
            values = np.where(kept, table[np.arange(num_labels), np.maximum(self.raw_cells, 0)], 0.0).sum(axis=1)
            if self.raw_weights is not None:
                values = values * self.raw_weights
            keys.append(self.raw_ids[rows])
            sums.append(values[rows])
        if keys:
            all_keys = np.concatenate(keys) if len(keys) > 1 else keys[0]
            distinct, position = np.unique(all_keys, return_inverse=True)
            per_cluster = np.bincount(position.reshape(-1), weights=np.concatenate(sums), minlength=distinct.size)
            squares += float(np.sum(per_cluster**2))
            total += float(per_cluster.sum())
            count += int(distinct.size)
        return design_effect_from_sums(squares, total, count, independent, confidence_level, stacklevel=5)

    def _mapped(self, influence: np.ndarray, prediction: int) -> np.ndarray:
        """Per label, the influence of an entry counted with the 0/1 ``prediction`` (an (L, 2) array
        over the reference), once compute's threshold has turned it into a label."""
        if self.cut is None:
            return influence[:, :, prediction]
        predicted = (prediction >= self.cut).astype(np.intp)
        return influence[np.arange(influence.shape[0]), :, predicted]

    def _feature_influence(self, influence: np.ndarray) -> np.ndarray:
        """psi over the cross-sums' features: n, then FP, FN, TP and ignored per label, each
        relative to the label's (0, 0) cell."""
        zero, one = self._mapped(influence, 0), self._mapped(influence, 1)
        base = zero[:, 0]  # the (reference 0, prediction 0) cell
        return np.concatenate([[base.sum()], one[:, 0] - base, zero[:, 1] - base, one[:, 1] - base, -base])

    def _row_sums(self, influence: np.ndarray, num_labels: int) -> Tuple[np.ndarray, np.ndarray]:
        """Per cluster of the per-cluster rows: its id and summed influence (clusters without a kept
        entry or weight left out)."""
        sizes, entries = self.sizes, self.entries
        label = entries.keys["label"].astype(np.intp)
        reference = entries.keys["reference"].astype(np.int64)
        prediction = entries.keys["prediction"]
        if self.cut is None:
            predicted = prediction.astype(np.intp)
            base = influence[:, 0, 0]
        else:
            predicted = (prediction >= self.cut[label]).astype(np.intp)
            base = influence[np.arange(num_labels), 0, (0 >= self.cut).astype(np.intp)]
        kept = (reference == 0) | (reference == 1)
        entry_influence = np.where(kept, influence[label, np.clip(reference, 0, 1), np.clip(predicted, 0, 1)], 0.0) - base[label]
        distinct, position = np.unique(sizes.keys["clusters"], return_inverse=True)
        position = position.reshape(-1)
        size_weight = np.bincount(position, weights=sizes.weight.astype(np.float64), minlength=distinct.size)
        size_count = np.bincount(position, weights=sizes.n.astype(np.float64), minlength=distinct.size)
        entry_position = np.searchsorted(distinct, entries.keys["clusters"])
        per_cluster = size_weight * base.sum() + np.bincount(entry_position, weights=entries.weight * entry_influence,
                                                             minlength=distinct.size)
        ignored = np.bincount(entry_position, weights=np.where(kept, 0.0, entries.n.astype(np.float64)), minlength=distinct.size)
        counted = (size_weight > 0) & (size_count * num_labels > ignored)
        return distinct[counted], per_cluster[counted]


def gather_clusters(stored: Any, raw: Optional[dict], raw_positive: np.ndarray, raw_predicted: np.ndarray,
                    counted: Optional[np.ndarray], cut: Optional[np.ndarray], ignore_index: Optional[int]) -> Optional[MultilabelClusters]:
    """The ``MultilabelClusters`` of a store (None when nothing of clusters was counted)."""
    given_rows = float(stored.moments.get(GIVEN_ROWS, [0.0])[0])
    default_rows = float(stored.moments.get(DEFAULT_ROWS, [0.0])[0])
    raw_ids = None if not raw or raw.get("clusters") is None else raw["clusters"]
    not_counted = bool(stored.settings.get(CLUSTERS_NOT_COUNTED))
    if given_rows > 0 and (default_rows > 0 or not_counted):
        total = len(stored) // max(1, int(stored.settings.get("num_labels") or 1)) if not raw else int(given_rows + default_rows)
        raise ValueError(f"clusters: expected cluster ids for every sample, with every batch or with none; found them for "
                         f"{int(given_rows):,} of {total:,} samples (some batches were added without clusters=).")
    if not_counted:
        return MultilabelClusters(reason=CLUSTERS_NOT_COUNTED)
    if given_rows == 0 and default_rows == 0 and raw_ids is None:
        return None
    clusters = MultilabelClusters(cut=cut, ignore_index=ignore_index)
    if CROSS in stored.moments:
        clusters.moments = stored.moments
    if SIZES in stored.tables:
        # Entries whose reference is not 0/1 (ignore_index: compute has checked them) count as not kept.
        clusters.sizes, clusters.entries = stored.tables[SIZES].result(), stored.tables[ENTRIES].result()
    if raw_ids is not None and raw_positive.size:
        cells = raw_positive.astype(np.int8) * 2 + np.asarray(raw_predicted, dtype=np.int8)
        if counted is not None:
            cells[~counted] = -1
        clusters.raw_ids, clusters.raw_cells, clusters.raw_weights = raw_ids, cells, raw.get("sample_weight")
    return clusters
