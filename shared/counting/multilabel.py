"""Multilabel counts: (N, L) indicator batches in, per-label 2 x 2 tables out.

A multilabel task is L binary tasks, one per label column, and every metric of it is a
function of the L tables ``[[tn, fp], [fn, tp]]`` (scikit-learn's
``multilabel_confusion_matrix`` layout). ``count_indicators`` turns one batch into a
``Store`` of its own:

* 0/1 (or any integer) predictions become counts of distinct (label, reference,
  prediction) entries, with weight sums and squared-weight sums when weighted: a few
  cells per label, whatever the number of rows;
* scores (non-integral floats), which a compute-time threshold still has to turn into
  labels, are kept as raw (N, L) columns.

References are counted as the integers they are, so that ``ignore_index`` (a compute-time
option) can still drop its entries; they are checked to be 0/1 (or ``ignore_index``) at
compute time. ``multilabel_counts`` turns what was stored (one batch, many, or many
processes' merged) into ``MultilabelCounts`` under the options; ``MultilabelCounts.from_matrix``
builds the same object from an (L, 2, 2) array counted anywhere else.
"""

from dataclasses import dataclass
from typing import Any, Optional, Tuple, Union

import numpy as np

from .clusters import UNCLUSTERED
from .clusters import ClusterSums
from .clusters import Clusters
from .clusters import cluster_ids
from .counts import CountTable
from .counts import JointCounts
from .counts import NO_SAMPLES
from .counts import squared_weights
from .inputs import EXACT_INTEGERS
from .inputs import to_python_scalar
from .inputs import as_array
from .inputs import as_indicators
from .inputs import check_finite
from .inputs import check_sample_weight
from .inputs import is_string_array
from .labels import padding_hint
from .multilabel_clusters import MultilabelClusters
from .multilabel_clusters import count_entry_clusters
from .multilabel_clusters import gather_clusters
from .multilabel_clusters import note_rows
from .multilabel_clusters import row_cluster_ids
from .labels import padding_values
from .store import Store
from .thresholds import check_scores
from .thresholds import check_threshold_scale
from .thresholds import youden_thresholds

TABLE = "entries"  # the count table of (label, reference, prediction) entries
WIDTH = "num_labels"  # the store setting holding the number of label columns
MULTILABEL_KEYS = ("label", "reference", "prediction")
# Entries per block of the whole-number check.
_BLOCK = 1 << 16


def _as_rows(array: np.ndarray, name: str) -> np.ndarray:
    if array.dtype.kind == "f":
        check_finite(array, name)
    if array.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D array (samples x columns), found shape {array.shape}.")
    return array


def _integral(array: np.ndarray) -> bool:
    """Whether every value is a whole number (integers are): row blocks, stopping at the first
    block with a fraction, so that scores are told apart after one block."""
    if array.dtype.kind != "f":
        return True
    step = max(1, _BLOCK // max(1, array.shape[1]))
    for start in range(0, len(array), step):
        block = array[start : start + step]
        if block.size and not (np.array_equal(np.rint(block), block) and np.abs(block).max() < EXACT_INTEGERS):
            return False
    return True


def count_indicators(predictions: Any, references: Any, sample_weight: Any = None, like: Optional[Store] = None,
                     clusters: Any = None) -> Store:
    """One batch of (N, L) rows as a ``Store`` of its own (see the module doc).

    ``sample_weight``: one weight per row. ``like``: the store kept so far; a batch whose
    rows have another width is rejected before anything is counted. ``clusters``: a
    ``clusters.ClusterSpec`` (each row one cluster by default; ``multilabel_clusters.py``).

    Examples
    --------
    >>> store = count_indicators([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 0], [1, 1]])
    >>> counts = multilabel_counts(store)
    >>> counts.matrix().tolist()  # label 0: [[tn, fp], [fn, tp]], then label 1
    [[[1, 0], [0, 2]], [[1, 1], [0, 1]]]
    """
    predictions, references = as_array(predictions, "predictions"), as_array(references, "references")
    if predictions.shape == references.shape == (0,):
        # An empty list has no rows and says nothing of their width: no samples, whatever the width.
        check_sample_weight(sample_weight, 0, (0,))
        if clusters is not None and clusters.given is not None:
            cluster_ids(clusters.given, (0,))
        return Store()
    predictions, references = _as_rows(predictions, "predictions"), _as_rows(references, "references")
    if len(predictions) != len(references):
        raise ValueError(f"predictions and references: expected the same number of samples, found {len(predictions)} and "
                         f"{len(references)}.")
    if predictions.shape != references.shape:
        raise ValueError(f"predictions and references: expected the same shape, found {predictions.shape} and {references.shape}.")
    num_rows, num_labels = references.shape
    width = None if like is None else like.settings.get(WIDTH)
    if width is not None and width != num_labels:
        raise ValueError(f"predictions: expected rows of length {width} like the earlier batches, found rows of length {num_labels}.")
    weights = check_sample_weight(sample_weight, num_rows, (num_rows,))
    store = Store()
    ids = row_cluster_ids(clusters, store, num_rows, num_labels)
    for name, array in (("references", references), ("predictions", predictions)):
        if is_string_array(array):
            example = f" such as {str(array.flat[0])!r}" if array.size else ""
            raise TypeError(f"{name}: expected 0/1 values (numbers or booleans), found strings{example} (dtype {array.dtype}).")
    if not _integral(references):
        example = to_python_scalar(references[np.rint(references) != references][0])
        raise ValueError(f"references: expected 0/1 values, found non-integer values such as {example!r}.")
    store.settings[WIDTH] = int(num_labels)
    store.note_references(references)
    references = references.astype(np.int64) if references.dtype.kind == "f" else references
    if _integral(predictions):
        table = CountTable(list(MULTILABEL_KEYS))
        predictions = predictions.astype(np.int64) if predictions.dtype.kind == "f" else predictions
        counted = None if ids is None else count_entry_clusters(store, ids, clusters.given is not None, references, predictions, weights)
        if counted is not None:  # counted by the clusters' pass over the batch
            table.add(counted[:3], counts=counted[3])
        else:
            table.add([np.arange(num_labels)[None, :], references, predictions], None if weights is None else weights[:, None])
        store.tables[TABLE] = table
    else:
        raw = {"references": references, "predictions": predictions, "sample_weight": weights}
        if clusters is not None:  # each row's cluster beside it (zeros when not counted: the columns always match)
            raw["clusters"] = ids if ids is not None else np.zeros(num_rows, np.int8)
            if ids is not None:
                note_rows(store, clusters.given is not None, num_rows)
        store.keep_raw(raw)
    return store


@dataclass
class MultilabelCounts:
    """Per-label 2 x 2 tables: ``cells[l]`` is ``[[tn, fp], [fn, tp]]`` of label l (counts, or
    weighted sums). Weighted: ``squares`` holds the sums of squared weights of each cell as
    mantissas of ``4**w2_exponent`` (for Kish's effective sizes); None unweighted.
    ``reason``: why nothing can be computed; ``thresholds``: the per-label thresholds
    chosen by ``"auto"``."""

    cells: np.ndarray
    squares: Optional[np.ndarray] = None
    w2_exponent: int = 0
    reason: Optional[str] = None
    thresholds: Optional[np.ndarray] = None
    entries: Optional[np.ndarray] = None  # weighted: the number of entries of each cell
    # What an interval needs of the clusters (UNCLUSTERED: entries independent).
    clusters: Union[MultilabelClusters, Clusters] = UNCLUSTERED

    def cluster_sums(self, influence: np.ndarray) -> ClusterSums:
        """The clusters' sums of an ``influence`` per cell ((L, 2, 2)), from the cross-sums over clusters."""
        return self.clusters.cluster_sums(influence, self.independent_variance(influence))

    def independent_variance(self, influence: np.ndarray) -> float:
        """sum over entries of w^2 psi^2, for an ``influence`` psi per cell ((L, 2, 2)): the variance
        of a value were every entry independent (squared weights as mantissas times psi scaled the
        other way, so that weights near float64's limits neither overflow nor vanish)."""
        if self.squares is None:
            return float(np.sum(self.cells * influence**2))
        mantissa, exponent = np.frexp(influence)  # psi^2 w^2 = (m^2 squares) 4^(e + w2_exponent)
        # Weights more than ~1e150 apart lose the smaller ones' squares (as for Kish's sizes): the sum
        # is then approximate, possibly inf or 0, and the design effect taken as 1 (clusters.py).
        with np.errstate(over="ignore", under="ignore"):
            return float(np.sum(np.ldexp(self.squares * mantissa**2, 2 * (exponent + self.w2_exponent))))

    @property
    def num_labels(self) -> int:
        return self.cells.shape[0]

    @property
    def tn(self) -> np.ndarray:
        return self.cells[:, 0, 0]

    @property
    def fp(self) -> np.ndarray:
        return self.cells[:, 0, 1]

    @property
    def fn(self) -> np.ndarray:
        return self.cells[:, 1, 0]

    @property
    def tp(self) -> np.ndarray:
        return self.cells[:, 1, 1]

    @property
    def positives(self) -> np.ndarray:
        return self.fn + self.tp

    @property
    def negatives(self) -> np.ndarray:
        return self.tn + self.fp

    def effective_sizes(self) -> Tuple[Optional[np.ndarray], Optional[np.ndarray]]:
        """Kish's effective size (sum w)^2 / sum w^2 of each label's positives and negatives; (None, None) unweighted."""
        if self.squares is None:
            return None, None
        # Sums scaled like the squares' mantissas: exact (a power of two), and finite for any weights.
        sums = np.ldexp(self.cells.astype(np.float64).sum(axis=2), -self.w2_exponent)
        squares = self.squares.sum(axis=2)
        exact = squares >= np.finfo(np.float64).tiny
        sizes = np.divide(sums**2, squares, out=np.zeros(sums.shape), where=exact)
        if self.entries is not None:
            # The squares of weights far below the largest one (a ratio beyond ~1e150) underflow
            # as mantissas of one common exponent: there Kish's size takes its bound, the count.
            lost = ~exact & (sums > 0)
            sizes[lost] = self.entries.sum(axis=2)[lost]
        return sizes[:, 1], sizes[:, 0]

    def matrix(self) -> np.ndarray:
        """The (L, 2, 2) array, as ``sklearn.metrics.multilabel_confusion_matrix``."""
        return self.cells

    @classmethod
    def from_matrix(cls, matrix: Any) -> "MultilabelCounts":
        """An (L, 2, 2) array counted elsewhere, laid out as scikit-learn's
        ``multilabel_confusion_matrix`` (``[[tn, fp], [fn, tp]]`` per label). Integer entries
        are counts; other entries are weighted sums (each treated, for intervals, as a count).

        Examples
        --------
        >>> counts = MultilabelCounts.from_matrix([[[1, 0], [0, 2]], [[1, 1], [0, 1]]])
        >>> counts.tp.tolist(), counts.positives.tolist(), counts.negatives.tolist()
        ([2, 1], [2, 1], [1, 2])
        """
        cells = as_array(matrix, "confusion_matrix")
        if is_string_array(cells) or cells.ndim != 3 or cells.shape[1:] != (2, 2) or cells.shape[0] < 1:
            raise ValueError(f"confusion_matrix: expected an (L, 2, 2) array of counts ([[tn, fp], [fn, tp]] per label, as "
                             f"multilabel_confusion_matrix), found shape {cells.shape}" + (" of strings." if is_string_array(cells) else "."))
        check_finite(cells, "confusion_matrix")
        if cells.min() < 0:
            raise ValueError(f"confusion_matrix: expected non-negative counts, found {to_python_scalar(cells.min())}.")
        if cells.dtype.kind != "f" or np.array_equal(np.rint(cells), cells):
            return cls(np.rint(cells).astype(np.int64))
        cells = cells.astype(np.float64)
        _, exponent = squared_weights(cells)
        # A weighted sum stands for that many samples: its "squared weights" are the sum itself.
        return cls(cells, np.ldexp(cells, -2 * exponent), exponent, entries=cells)


def _empty_rows() -> JointCounts:
    return JointCounts({key: np.zeros(0, np.int64) for key in MULTILABEL_KEYS}, np.zeros(0, np.int64))


def check_num_labels(num_labels: int, threshold: Any = None, label_names: Any = None) -> None:
    """Options whose form depends on the number of labels: per-label thresholds and names."""
    if isinstance(threshold, np.ndarray) and threshold.shape != (num_labels,):
        raise ValueError(f"threshold: expected one threshold per label ({num_labels} values), found shape {threshold.shape}.")
    if label_names is not None and len(label_names) != num_labels:
        raise ValueError(f"label_names: expected one name per label ({num_labels}), found {len(label_names)}.")


def multilabel_counts(stored: Store, from_probas: bool = False, threshold: Any = 0.5, ignore_index: Optional[int] = None,
                      hint: str = "") -> MultilabelCounts:
    """What was stored, as ``MultilabelCounts`` under the options.

    References must be 0/1 (or ``ignore_index``, whose entries are dropped). Without
    ``from_probas`` predictions must be 0/1 (``hint`` says what to do with scores); with
    it they are scores turned into labels by ``threshold`` (a number, one per label, or
    ``"auto"``: per label the Youden-optimal one, searched over counted entries - their
    counts as weights - and raw scores together).
    """
    if stored.settings.get(WIDTH) is None:  # only empty lists were given: no rows, no width
        return MultilabelCounts(np.zeros((0, 2, 2), np.int64), reason=NO_SAMPLES,
                                thresholds=np.zeros(0) if from_probas and isinstance(threshold, str) else None)
    num_labels = int(stored.settings[WIDTH])
    table = stored.tables.get(TABLE)
    rows = table.result() if table is not None else _empty_rows()
    raw = stored.raw_columns()
    label, reference, prediction = (rows.keys[key] for key in MULTILABEL_KEYS)
    raw_references = raw["references"] if raw else np.zeros((0, num_labels), np.int64)
    raw_scores = raw["predictions"] if raw else np.zeros((0, num_labels))
    raw_weights = raw.get("sample_weight") if raw else None

    # References: 0/1 or ignore_index (counted rows: their distinct values; raw rows: compared, not sorted).
    # A -100 (or a uint8 255) among them without ignore_index is probably padding: the error says so.
    distinct_references = np.unique(reference)
    raw_outside = bool(raw_references.size) and (raw_references.min() < 0 or raw_references.max() > 1)
    padding = [] if ignore_index is not None else padding_values(
        np.concatenate([distinct_references, np.unique(raw_references)]) if raw_outside else distinct_references,
        stored.reference_dtypes)
    with padding_hint(padding):
        as_indicators(distinct_references, "references", ignore_index)
        if raw_outside:
            as_indicators(raw_references, "references", ignore_index)
    if not from_probas:
        as_indicators(np.unique(prediction), "predictions", hint=hint)
        if raw_scores.size:
            as_indicators(raw_scores, "predictions", hint=hint)  # raises, naming a non-integer value
    elif isinstance(threshold, str):
        check_scores(prediction)  # raw scores were checked finite when counted
    else:
        check_threshold_scale((raw_scores, prediction), threshold)

    reason = None
    counted = None  # raw entries that count (None: all)
    if ignore_index is not None:
        before = rows.num_samples + raw_references.size
        rows = rows.select(rows.keys["reference"] != ignore_index)
        counted = raw_references != ignore_index
        if before and not rows.num_samples and not counted.any():
            reason = "empty_after_ignore_index"
    label, reference, prediction = (rows.keys[key] for key in MULTILABEL_KEYS)
    raw_positive = raw_references == 1

    thresholds = None
    cut = None
    if not from_probas:
        predicted, raw_predicted = prediction, raw_scores  # raw_scores is empty here
    else:
        if isinstance(threshold, str):
            threshold = thresholds = _auto_thresholds(num_labels, rows, raw_scores, raw_positive, raw_weights, counted)
        cut = np.broadcast_to(np.asarray(threshold, dtype=np.float64), (num_labels,))
        predicted = prediction >= cut[label]
        raw_predicted = raw_scores >= cut
    clusters = gather_clusters(stored, raw, raw_positive, raw_predicted, counted, cut)

    # Cells of counted rows: label * 4 + reference * 2 + prediction.
    shape, size = (num_labels, 2, 2), 4 * num_labels
    codes = label.astype(np.int64) * 4 + reference.astype(np.int64) * 2 + predicted.astype(np.int64)
    raw_cells = _raw_cells(raw_positive, np.asarray(raw_predicted, dtype=bool), counted)
    weighted = rows.w is not None or raw_weights is not None
    if not weighted:
        n = np.rint(np.bincount(codes, weights=rows.n, minlength=size)).astype(np.int64).reshape(shape) + raw_cells(None)
        return MultilabelCounts(n, reason=reason, thresholds=thresholds, clusters=clusters)
    entries = np.rint(np.bincount(codes, weights=rows.n, minlength=size)).astype(np.int64).reshape(shape) + raw_cells(None)
    w = np.bincount(codes, weights=rows.weight.astype(np.float64), minlength=size).reshape(shape)
    row_squares, row_exponent = (rows.w2, rows.w2_exponent) if rows.w2 is not None else (rows.n.astype(np.float64), 0)
    raw_squares, raw_exponent = squared_weights(np.ones(len(raw_references)) if raw_weights is None else raw_weights)
    if raw_references.size:
        w = w + raw_cells(np.ones(len(raw_references)) if raw_weights is None else raw_weights)
    exponent = max(row_exponent if row_squares.size else raw_exponent, raw_exponent if raw_references.size else row_exponent)
    w2 = np.bincount(codes, weights=np.ldexp(row_squares, 2 * (row_exponent - exponent)), minlength=size).reshape(shape)
    if raw_references.size:
        w2 = w2 + raw_cells(np.ldexp(raw_squares, 2 * (raw_exponent - exponent)))
    return MultilabelCounts(w, w2, exponent, reason, thresholds, entries, clusters)


def _raw_cells(positive: np.ndarray, predicted: np.ndarray, counted: Optional[np.ndarray]):
    """``cells(row_values)``: the (L, 2, 2) sums of ``row_values`` (one per row; None: counts) over
    the entries of each cell of raw (N, L) rows. Counts come from three column counts (positives,
    predicted positives, both) and the counted entries per column, the other cells by difference
    (exact integers); sums of row values from the four cells' indicators, built once on first use."""
    num_labels = positive.shape[1]
    if counted is not None:
        positive, predicted = positive & counted, predicted & counted
    indicators = []

    def cells(row_values: Optional[np.ndarray]) -> np.ndarray:
        if not positive.size:
            return np.zeros((num_labels, 2, 2), np.int64)
        if row_values is None:
            entries = np.full(num_labels, positive.shape[0], np.int64) if counted is None else column_counts(counted)
            both, positives, predictions = (column_counts(values) for values in (positive & predicted, positive, predicted))
            sums = [entries - positives - predictions + both, predictions - both, positives - both, both]
        else:
            if not indicators:
                negative = ~positive if counted is None else counted & ~positive
                indicators.extend([negative & ~predicted, negative & predicted, positive & ~predicted, positive & predicted])
            sums = [row_values @ indicator.astype(np.float64) for indicator in indicators]
        return np.stack(sums, axis=-1).reshape(-1, 2, 2)

    return cells


def column_counts(indicators: np.ndarray) -> np.ndarray:
    """The True entries of each column of a boolean (N, L) array, as int64: byte sums of blocks of
    255 rows (no carry), then their total.

    Examples
    --------
    >>> column_counts(np.array([[True, False], [True, True], [False, False]])).tolist()
    [2, 1]
    """
    rows, columns = indicators.shape
    data = np.ascontiguousarray(indicators).view(np.uint8)
    whole = rows - rows % 255
    total = np.add.reduce(data[whole:], axis=0, dtype=np.int64)
    if whole:
        total += np.add.reduce(np.add.reduce(data[:whole].reshape(-1, 255, columns), axis=1, dtype=np.uint8), axis=0, dtype=np.int64)
    return total


def _auto_thresholds(num_labels: int, rows: JointCounts, raw_scores: np.ndarray, raw_positive: np.ndarray,
                     raw_weights: Optional[np.ndarray], mask: Optional[np.ndarray]) -> np.ndarray:
    """Per label, the Youden-optimal threshold over counted rows (their counts, or weight
    sums, as weights) and raw entries together: one (M, L) search, each label a column."""
    row_weights = None if raw_weights is None else np.broadcast_to(raw_weights[:, None], raw_scores.shape)
    if not rows.n.size:  # raw scores only: the search on the samples themselves
        thresholds, _, _ = youden_thresholds(raw_scores.astype(np.float64, copy=False), raw_positive, row_weights, mask)
        return thresholds
    label = rows.keys["label"].astype(np.intp)
    order = np.argsort(label, kind="stable")
    label = label[order]
    per_label = np.bincount(label, minlength=num_labels)
    starts = np.concatenate([[0], np.cumsum(per_label)[:-1]])
    rank = np.arange(label.size) - starts[label]
    depth = int(per_label.max())
    scores = np.zeros((depth, num_labels))
    positive = np.zeros((depth, num_labels), dtype=bool)
    weights = np.zeros((depth, num_labels))
    counted = np.zeros((depth, num_labels), dtype=bool)
    scores[rank, label] = rows.keys["prediction"][order]
    positive[rank, label] = rows.keys["reference"][order] == 1
    weights[rank, label] = rows.weight[order]
    counted[rank, label] = True
    if raw_scores.size:
        scores = np.concatenate([scores, raw_scores.astype(np.float64)])
        positive = np.concatenate([positive, raw_positive])
        weights = np.concatenate([weights, np.ones(raw_scores.shape) if row_weights is None else row_weights])
        counted = np.concatenate([counted, np.ones(raw_scores.shape, dtype=bool) if mask is None else mask])
    thresholds, _, _ = youden_thresholds(scores, positive, weights, counted)
    return thresholds
