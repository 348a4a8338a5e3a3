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

import threading
from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple

import numpy as np

from .clusters import CLUSTERS_NOT_COUNTED
from .clusters import UNCLUSTERED
from .clusters import ClusterSums
from .clusters import cluster_ids
from .counts import CountTable
from .counts import JointCounts
from .inputs import map_row_blocks

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
# Entries per block of the cross-sums (16,384 rows of 128 labels): a block's pairs of entries
# stay a few tens of MB (int32 codes) even when rows hold dozens of entries other than (0, 0).
BLOCK_ENTRIES = 1 << 21
# Relative costs (seconds) of one pair in the sparse path and one multiply-add in the dense one.
_PAIR_COST, _MULTIPLY_ADD_COST = 7e-9, 4e-11
# Cross-sums up to this many cells (16 MB) are counted in each thread; larger ones one block at a time.
_SMALL_CELLS = 1 << 21
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
                         weights: Optional[np.ndarray]) -> Optional[Tuple[np.ndarray, ...]]:
    """Count one batch of (N, L) integer rows by cluster into ``store`` (see the module doc). Returns
    the batch's counts of (label, reference, prediction) entries ``(label, reference, prediction,
    count)`` when the same pass gave them (unweighted cross-sums), else None."""
    num_rows, num_labels = references.shape
    note_rows(store, given, num_rows)
    ignored_entries = None
    if not given and num_labels <= MAX_CROSS_SUM_LABELS and _moderate(weights):
        ignored_entries = add_cross_sums(store, references, predictions, weights)
    if ignored_entries is None:
        add_cluster_rows(store, ids, references, predictions, weights)
        return None
    if weights is not None:
        return None
    # Unweighted: the batch's per-label counts follow from the same pass (exact integers).
    return entry_counts(store.moments[SUMS], ignored_entries, num_rows, num_labels)


# Weights whose squares the cross-sums hold in float64 without overflow or loss (2^-200..2^200);
# a batch with weights beyond them is counted as per-cluster rows (sums of w psi: scale-free).
_WEIGHT_RANGE = (2.0**-200, 2.0**200)


def _moderate(weights: Optional[np.ndarray]) -> bool:
    if weights is None or not weights.size:
        return True
    positive = weights[weights > 0]
    return not positive.size or (positive.min() >= _WEIGHT_RANGE[0] and positive.max() <= _WEIGHT_RANGE[1])


def note_rows(store: Any, given: bool, num_rows: int) -> None:
    """Count a batch's rows as having given cluster ids or default ones (they must not mix)."""
    store.moments[GIVEN_ROWS if given else DEFAULT_ROWS] = np.array([float(num_rows)])


@dataclass
class _Entries:
    """A block's entries other than (0, 0), in row order: their row and feature (label l's state s
    is feature ``1 + s L + l``: FP, FN, TP, or IGNORED for a reference that is not 0/1), the
    ignored entries per row (None: none), and the ignored entries' (label, reference, prediction)."""

    row: np.ndarray
    feature: np.ndarray
    ignored_per_row: Optional[np.ndarray]
    ignored: Tuple[np.ndarray, ...]


def _block_entries(references: np.ndarray, predictions: np.ndarray, num_labels: int) -> Optional[_Entries]:
    """The block's ``_Entries``, or None when a prediction is not 0/1. Found from the entries where
    the reference or the prediction is nonzero (the sparse ones), as booleans: the dense true
    negatives are read once and never converted."""
    nonzero = references != 0
    nonzero |= predictions != 0
    flat = np.flatnonzero(nonzero)
    reference, prediction = references.ravel()[flat], predictions.ravel()[flat].astype(np.intp)
    if prediction.size and (prediction.min() < 0 or prediction.max() > 1):
        return None  # not 0/1: the caller counts per-cluster rows instead
    row, label = np.divmod(flat, num_labels)
    ignored = (reference != 0) & (reference != 1)
    state = np.where(ignored, IGNORED, reference.astype(np.intp) * 2 + prediction - 1)
    feature = (1 + state * num_labels + label).astype(np.int32)  # codes of pairs fit int32: (1 + 4 L)^2 < 2^31
    if not ignored.any():
        return _Entries(row, feature, None, ())
    return _Entries(row, feature, np.bincount(row[ignored], minlength=len(references)),
                    (label[ignored], reference[ignored], prediction[ignored]))


def add_cross_sums(store: Any, references: np.ndarray, predictions: np.ndarray, weights: Optional[np.ndarray]) -> Optional[list]:
    """Add the cross-sums of one batch whose rows are clusters of their own. None (nothing added)
    when a prediction is not 0/1 (integer scores: a threshold would not map them linearly); else
    the (label, reference, prediction) arrays of the entries whose reference is not 0/1, one
    triple per block (with the sums, what an unweighted batch's per-label counts need: see
    ``entry_counts``). Row blocks run in threads (``inputs.map_row_blocks``), each adding its
    sums under a lock."""
    num_rows, num_labels = references.shape
    size = 1 + 4 * num_labels
    cross, sums, count = np.zeros((size, size)), np.zeros(size), np.zeros(1)
    if predictions.dtype == bool:
        predictions = predictions.view(np.uint8)
    lock = threading.Lock()
    ignored_entries: list = []

    block_rows = max(64, BLOCK_ENTRIES // max(1, num_labels))

    def add_rows(first: int, last: int) -> bool:
        for start in range(first, last, block_rows):
            block = slice(start, min(start + block_rows, last))
            entries = _block_entries(references[block], predictions[block], num_labels)
            if entries is None:
                return False
            row, feature = entries.row, entries.feature
            rows = np.ones(block.stop - block.start, dtype=bool) if weights is None else weights[block] > 0
            if entries.ignored_per_row is not None:  # a row counts where it has a 0/1 reference (and weight)
                rows &= entries.ignored_per_row < num_labels
            if not rows.all():
                keep = rows[row]
                row, feature = row[keep], feature[keep]
            weight = rows.astype(np.float64) if weights is None else np.where(rows, weights[block], 0.0)
            squared = weight if weights is None else weight**2
            block_sums = np.bincount(feature, weights=weight[row], minlength=size)
            block_sums[0] = weight.sum()
            edge = np.bincount(feature, weights=squared[row], minlength=size)
            edge[0] = squared.sum()
            pairs = _block_pairs(row, feature, squared, len(rows), num_labels, size, weights is None)
            with lock:  # the threads' sums go straight into the batch's: no (1 + 4 L)^2 copy per thread
                count[0] += int(rows.sum())
                sums.__iadd__(block_sums)
                cross[0] += edge
                cross[1:, 0] += edge[1:]
                pairs(cross)
                if entries.ignored_per_row is not None:
                    ignored_entries.append(entries.ignored)
        return True

    # One block of rows per thread at a time: a thread's sums are (1 + 4 L)^2 floats.
    if not all(map_row_blocks(add_rows, references)):
        return None
    store.moments[CROSS], store.moments[SUMS], store.moments[COUNT] = cross, sums, count
    return ignored_entries


def entry_counts(sums: np.ndarray, ignored_entries: list, num_rows: int, num_labels: int) -> Tuple[np.ndarray, ...]:
    """An unweighted batch's counts of (label, reference, prediction) entries, from the cross-sums'
    feature sums (FP, FN, TP per label), the ignored entries, and the rest: the (0, 0) entries.

    Examples
    --------
    Three rows of two labels: label 0 has one FP and one TP, label 1 one FN and one TP, so
    each has one (0, 0) entry.

    >>> sums = np.array([3.0, 1, 0, 0, 1, 1, 1, 0, 0])  # n; then FP, FN, TP, ignored of labels 0 and 1
    >>> label, reference, prediction, count = entry_counts(sums, [], 3, 2)
    >>> list(zip(label.tolist(), reference.tolist(), prediction.tolist(), count.tolist()))
    [(0, 0, 0, 1), (1, 0, 0, 1), (0, 0, 1, 1), (1, 1, 0, 1), (0, 1, 1, 1), (1, 1, 1, 1)]
    """
    # Per label: FP (0, 1), FN (1, 0), TP (1, 1) from the sums (integers, exact in float64).
    states = np.rint(sums[1 : 1 + 3 * num_labels]).astype(np.int64).reshape(3, num_labels)
    ignored = [np.concatenate(parts) for parts in zip(*ignored_entries)] if ignored_entries else [np.zeros(0, np.intp)] * 3
    ignored_per_label = np.bincount(ignored[0], minlength=num_labels)
    negatives = num_rows - states.sum(axis=0) - ignored_per_label  # (0, 0) entries
    label = np.concatenate([np.tile(np.arange(num_labels), 4), ignored[0]])
    reference = np.concatenate([np.repeat([0, 0, 1, 1], num_labels), ignored[1]])
    prediction = np.concatenate([np.repeat([0, 1, 0, 1], num_labels), ignored[2]])
    counts = np.concatenate([negatives, states.ravel(), np.ones(ignored[0].size, np.int64)])
    present = counts > 0
    return label[present], reference[present], prediction[present], counts[present]


def _block_pairs(row: np.ndarray, feature: np.ndarray, squared: np.ndarray, num_rows: int, num_labels: int, size: int,
                 unweighted: bool) -> Callable[[np.ndarray], None]:
    """The block's sum_rows w^2 x x^T over its entries (``row``, ``feature``; feature 0, n, is added
    by the caller), as a function adding it to the cross-sums: counted from each row's pairs of
    entries (rows grouped by their number of entries, each group one gather) or, where rows hold
    many entries, as the BLAS product of the one-hot block, whichever costs less."""
    if not row.size:
        return lambda cross: None
    per_row = np.bincount(row, minlength=num_rows)
    pairs = int((per_row * (per_row + 1) // 2).sum())
    width = 1 + (4 if feature.max() > 3 * num_labels else 3) * num_labels  # the ignored block only when present
    if pairs * _PAIR_COST >= num_rows * width * width / 2 * _MULTIPLY_ADD_COST:
        # One-hot rows: float32 is exact for 0/1 products summed over fewer than 2^24 rows; sub-blocks
        # keep the one-hot matrix near 16 MB.
        product = np.zeros((width - 1, width - 1))
        step = max(1, (1 << 22) // width)
        for first in range(0, num_rows, step):
            part = (row >= first) & (row < first + step)
            features = np.zeros((min(step, num_rows - first), width - 1), dtype=np.float32 if unweighted else np.float64)
            features[row[part] - first, feature[part] - 1] = 1.0 if unweighted else np.sqrt(squared[row[part]])
            product += features.T @ features

        def add_product(cross: np.ndarray) -> None:
            cross[1:width, 1:width] += product

        return add_product
    starts = np.cumsum(per_row) - per_row
    order = np.argsort(per_row, kind="stable")
    counts = per_row[order]
    codes, code_weights = [], []
    for rows in np.split(order, np.flatnonzero(np.diff(counts)) + 1):
        entries = int(per_row[rows[0]])
        if not entries:
            continue
        first, second = _upper_pairs(entries)
        block = feature[starts[rows][:, None] + np.arange(entries)]
        pair_codes = np.take(block * size, first, axis=1)
        pair_codes += np.take(block, second, axis=1)
        codes.append(pair_codes.ravel())
        if not unweighted:
            code_weights.append(np.repeat(squared[rows], first.size))
    codes = np.concatenate(codes)
    code_weights = None if unweighted else np.concatenate(code_weights)
    if codes.size >= size * size // 8:  # dense enough for a bincount over every cell
        # A large temporary (many labels) is made under the caller's lock: one at a time, not one per thread.
        early = size * size <= _SMALL_CELLS
        counted_early = np.bincount(codes, weights=code_weights, minlength=size * size).reshape(size, size) if early else None

        def add_counted(cross: np.ndarray) -> None:
            counted = counted_early if early else np.bincount(codes, weights=code_weights, minlength=size * size).reshape(size, size)
            diagonal = np.diagonal(counted).copy()  # an entry with itself: counted once
            cross += counted
            cross += counted.T
            cross[np.diag_indices(size)] -= diagonal

        return add_counted
    # Few pairs for many cells (many labels): the distinct cells only, not a (1 + 4 L)^2 temporary.
    cells, position = np.unique(codes, return_inverse=True)
    total = np.bincount(position.reshape(-1), weights=code_weights, minlength=cells.size)
    first, second = np.divmod(cells, size)

    def add_cells(cross: np.ndarray) -> None:
        cross[first, second] += total  # each (first, second) once: no repeated index within one assignment
        off = first != second
        cross[second[off], first[off]] += total[off]

    return add_cells


_UPPER_PAIRS: dict = {}


def _upper_pairs(entries: int) -> Tuple[np.ndarray, np.ndarray]:
    """The pairs (i <= j) of ``entries`` positions (cached: rows have few entries)."""
    if entries not in _UPPER_PAIRS:
        _UPPER_PAIRS[entries] = np.triu_indices(entries)
    return _UPPER_PAIRS[entries]


def add_cluster_rows(store: Any, ids: np.ndarray, references: np.ndarray, predictions: np.ndarray,
                     weights: Optional[np.ndarray]) -> None:
    """Count one batch as per-cluster rows: the clusters' sizes, and their entries other than (0, 0)."""
    sizes = CountTable(["clusters"])
    sizes.add([ids], weights)
    entries = CountTable(list(ENTRY_KEYS))
    row, label = np.nonzero((references != 0) | (predictions != 0))
    entries.add([ids[row], label, references[row, label], predictions[row, label]], None if weights is None else weights[row])
    store.tables[SIZES], store.tables[ENTRIES] = sizes, entries


@dataclass(frozen=True)
class MultilabelClusters:
    """What an interval needs of the clusters, gathered at compute from a store (see the module
    doc): the cross-sums (or None), the per-cluster rows (or None), the raw rows' cluster ids and
    their cells (or None), and compute's per-label thresholds (``cut``; None: predictions are
    labels). Entries whose reference is not 0/1 are ignored ones (compute has checked them
    against ``ignore_index``)."""

    moments: Optional[dict] = None
    sizes: Optional[JointCounts] = None
    entries: Optional[JointCounts] = None
    raw_ids: Optional[np.ndarray] = None
    raw_cells: Optional[np.ndarray] = None  # (N, L): reference * 2 + predicted, -1 where not counted
    raw_weights: Optional[np.ndarray] = None
    cut: Optional[np.ndarray] = None  # per-label thresholds of from_probas (None: predictions are labels)
    reason: Optional[str] = None
    # The default clusters are the samples (rows) themselves, not a leading axis over samples.
    from_leading_axis: bool = False

    @property
    def counted(self) -> bool:
        return True

    def cluster_sums(self, influence: np.ndarray, independent: float) -> ClusterSums:
        """The clusters' sums of a value whose influence per entry is ``influence`` ((L, 2, 2), cells
        ``[[tn, fp], [fn, tp]]``); ``independent``: its variance with independent entries. Only
        sum_g u_g^2 and sum_g u_g are known from the cross-sums: the clusters are taken as alike."""
        num_labels = influence.shape[0]
        squares, total, count = 0.0, 0.0, 0
        if self.moments is not None:
            psi = self._feature_influence(influence)
            squares += float(psi @ self.moments[CROSS] @ psi)
            total += float(psi @ self.moments[SUMS])
            count += int(round(float(self.moments[COUNT][0])))
        keys, sums = [], []
        if self.sizes is not None:
            with np.errstate(over="ignore", invalid="ignore"):
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
        if keys:  # (weights near float64's limits may overflow here: the design effect is then taken as 1)
            all_keys = np.concatenate(keys) if len(keys) > 1 else keys[0]
            distinct, position = np.unique(all_keys, return_inverse=True)
            per_cluster = np.bincount(position.reshape(-1), weights=np.concatenate(sums), minlength=distinct.size)
            with np.errstate(over="ignore", invalid="ignore"):
                squares += float(np.sum(per_cluster**2))
                total += float(per_cluster.sum())
            count += int(distinct.size)
        # One label and each sample its own cluster: no cluster holds two entries, so there is no
        # excess over independence to estimate (no t widening; stats.design_effect).
        alone = num_labels == 1 and self.sizes is None and self.raw_ids is None
        return ClusterSums(count, independent, singletons=alone, squares=squares, total=total)

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
                    counted: Optional[np.ndarray], cut: Optional[np.ndarray]) -> Any:
    """The ``MultilabelClusters`` of a store (``UNCLUSTERED`` when nothing of clusters was counted): ``raw`` its
    raw columns, ``raw_positive`` / ``raw_predicted`` their cells, ``counted`` the raw entries that
    count (None: all), ``cut`` compute's per-label thresholds."""
    given_rows = float(stored.moments.get(GIVEN_ROWS, [0.0])[0])
    default_rows = float(stored.moments.get(DEFAULT_ROWS, [0.0])[0])
    raw_ids = None if not raw or raw.get("clusters") is None else raw["clusters"]
    not_counted = bool(stored.settings.get(CLUSTERS_NOT_COUNTED))
    if given_rows > 0 and (default_rows > 0 or not_counted):
        counted_entries = sum(len(table) for name, table in stored.tables.items() if not name.startswith("_"))
        total = counted_entries // max(1, int(stored.settings.get("num_labels") or 1)) + (len(raw["references"]) if raw else 0)
        raise ValueError(f"clusters: expected cluster ids for every sample, with every batch or with none; found them for "
                         f"{int(given_rows):,} of {total:,} samples (some batches were added without clusters=).")
    if not_counted:
        return MultilabelClusters(reason=CLUSTERS_NOT_COUNTED)
    if given_rows == 0 and default_rows == 0 and raw_ids is None:
        return UNCLUSTERED
    found = {"moments": stored.moments} if CROSS in stored.moments else {}
    if SIZES in stored.tables:
        # Entries whose reference is not 0/1 (ignore_index: compute has checked them) count as not kept.
        found.update(sizes=stored.tables[SIZES].result(), entries=stored.tables[ENTRIES].result())
    if raw_ids is not None and raw_positive.size:
        cells = raw_positive.astype(np.int8) * 2 + np.asarray(raw_predicted, dtype=np.int8)
        if counted is not None:
            cells[~counted] = -1
        found.update(raw_ids=raw_ids, raw_cells=cells, raw_weights=raw.get("sample_weight"))
    return MultilabelClusters(cut=cut, **found)
