"""Top-k counts: the rank of each sample's true class among its scores, counted per class.

A top-k hit depends on a sample only through its true class and two numbers: ``g``, the
classes scored strictly higher than the true class, and ``t``, the other classes scored
exactly the same (``TOPK_TIE_RULE``). So ``add_batch`` ranks each sample once, as its
batch arrives, and keeps counts of distinct (reference value, g, t) tuples in a
``CountTable`` (with weight sums and squared-weight sums when weighted): never the
(N, K) score matrix. Every k is then a reduction of these counts (``TopkCounts.hits``).

``g`` is clipped at the largest k when that k is known while counting (a one-call
``compute``, or ``k``/``k_list`` given to ``evaluate.load``): every ``g >= k`` is a miss
for that k, so those samples collapse onto one tuple per class. Otherwise g is kept.

Ranking needs the true class's *column*, so references must map to score columns while
counting: integers are column indices 0..K-1, names go through ``labels`` (the score
columns' names). A reference that maps to no column (``ignore_index``, or an invalid
value that ``compute`` will reject, naming it) is counted with g = -1 by its value, so
that ``ignore_index`` and the error still apply at compute. Names streamed without
``labels`` at count time cannot be ranked yet: their batches are kept raw (scores
included) until ``compute`` brings ``labels`` (see ``count_scores``).
"""

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .clusters import CLUSTERS
from .clusters import UNCLUSTERED
from .clusters import ClusterSpec
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
from .counts import kish_sizes
from .counts import kept_rows
from .inputs import as_array
from .inputs import as_labels
from .inputs import check_finite
from .inputs import check_sample_weight
from .inputs import is_string_array
from .inputs import map_row_blocks
from .labels import encode_labels
from .labels import padding_hint
from .labels import padding_values
from .store import Store

RANKS = "ranks"
TOPK_KEYS = ("references", "higher", "tied")

TOPK_TIE_RULE = """Ties are shared, not broken by class order. For a sample, let g be the
        number of classes scored strictly higher than its true class and t the number of
        other classes scored exactly the same. The true class counts as a hit worth
        min(1, max(0, (k - g) / (t + 1))): 1 when g + t < k (it is in the top k however the
        tie is broken), 0 when g >= k, otherwise the share of the tied places that fall
        inside the top k, which is the expected hit under a uniformly random tie break.
        Without ties (t = 0) the hit is 1 iff g < k, the same as torch.topk (torchmetrics)
        and scikit-learn's top_k_accuracy_score. A row of equal scores earns k/K (chance),
        never a perfect score."""

_NAMES_HINT = "pass `labels` naming the K score columns"

# ----------------------------------------------------------------------------------------
# Options that depend on the number of score columns
# ----------------------------------------------------------------------------------------


def _range(num_columns: Optional[int]) -> str:
    return f"an integer in [1, {num_columns}]" if num_columns else "a positive integer"


def check_k(value: Any, num_columns: Optional[int], name: str) -> int:
    """An integer in [1, K] (K = ``num_columns``; None: not known yet, any positive integer)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: expected {_range(num_columns)}, found {value!r}.")
    if value < 1 or (num_columns and value > num_columns):
        where = " (the number of score columns)" if num_columns else ""
        raise ValueError(f"{name}: expected {_range(num_columns)}{where}, found {value}.")
    return int(value)


def check_k_values(k: Any, k_list: Any, num_columns: Optional[int]) -> Tuple[List[int], bool]:
    """The k to compute, in order, without duplicates; whether a ``k_list`` was given.

    Examples
    --------
    >>> check_k_values(None, [5, 1, 5], 10), check_k_values(None, None, 10)
    (([5, 1], True), ([1], False))
    """
    if k_list is None:
        return [1 if k is None else check_k(k, num_columns, "k")], False
    if k is not None:
        raise ValueError(f"k and k_list: expected one of them, found k={k!r} and k_list={k_list!r}.")
    if not isinstance(k_list, (list, tuple, np.ndarray)):
        raise TypeError(f"k_list: expected a list of integers, found {type(k_list).__name__}.")
    if len(k_list) == 0:
        raise ValueError("k_list: expected at least one k, found an empty list.")
    return list(dict.fromkeys(check_k(value, num_columns, "k_list") for value in k_list)), True


def check_column_labels(labels: Optional[list], num_columns: Optional[int]) -> None:
    """``labels`` (already a checked list) names every score column."""
    if labels is not None and num_columns and len(labels) != num_columns:
        raise ValueError(f"labels: expected one class name per score column ({num_columns}), found {len(labels)}.")


def score_columns(predictions: Any) -> Optional[int]:
    """The number of score columns of ``predictions`` from its shape alone (no copy), or None.

    For error messages that name the range of ``k`` before any data is read.
    """
    try:
        shape = getattr(predictions, "shape", None)
        if shape is not None:
            return int(shape[1]) if len(shape) == 2 and int(shape[1]) > 0 else None
        if isinstance(predictions, (list, tuple)) and predictions and isinstance(predictions[0], (list, tuple, np.ndarray)):
            return len(predictions[0]) or None
    except Exception:  # noqa: BLE001 - only a hint; the data checks raise what is wrong
        return None
    return None


# ----------------------------------------------------------------------------------------
# Ranking: g and t of each sample, block by block
# ----------------------------------------------------------------------------------------

# Rows per block: a block of scores (4 MB of float32) and its comparison buffer stay in the
# CPU's last-level cache between the passes over them; larger blocks also mean fewer NumPy
# calls, whose fixed cost (a few microseconds each, partly under the GIL, so threads wait
# for each other) adds up over small blocks. Of 2^18..2^21 elements, 2^20 was the fastest
# for 200,000 x 1000 float32 on two threads (1 MB L2 per core, 32 MB shared L3).
_BLOCK_ELEMENTS = 1 << 20
# NumPy's ufuncs buffer a broadcast operand when a row is shorter than half their buffer
# (np.getbufsize(), 8,192 elements): comparing each row with its true score then first
# copies that score along the row, which made the comparison ~1.7x slower at K = 1000 (and
# ~2.3x at K = 3000) than NumPy's row-by-row loop. A buffer no longer than a row keeps the
# row-by-row loop; under ~400 columns the per-row cost outweighs the copy, so short rows
# keep the default buffer.
_ROW_BY_ROW_COLUMNS = 512
_BYTE_LANES = np.uint64(0x00FF00FF00FF00FF)
_SUM_LANES = np.uint64(0x0001000100010001)


def _row_counter(num_rows: int, num_classes: int):
    """A buffer for comparisons of ``num_rows`` x ``num_classes`` and a function counting
    the True values of each row of it.

    Summing booleans along a row is slow element by element; read as 64-bit words each
    holding 8 booleans (the row padded to a multiple of 8 with False), a row's words sum
    byte-wise without carries between bytes while a row has at most 255 words (2,040
    columns), and the 8 byte sums of the total are the row's count: added pairwise into four
    16-bit lanes (each at most 510), whose sum (at most 2,040) a multiplication gathers in
    the top 16 bits.
    """
    words = -(-num_classes // 8)
    if words > 255:
        buffer = np.empty((num_rows, num_classes), dtype=bool)
        return buffer, lambda rows, out: np.add.reduce(buffer[:rows], axis=1, dtype=np.int32, out=out)
    padded = np.zeros((num_rows, words * 8), dtype=bool)
    buffer = padded[:, :num_classes]  # the padding columns stay False

    def count(rows, out):
        word_sums = padded[:rows].view(np.uint64).sum(axis=1)
        lanes = (word_sums & _BYTE_LANES) + ((word_sums >> np.uint64(8)) & _BYTE_LANES)
        lanes *= _SUM_LANES
        lanes >>= np.uint64(48)
        out[...] = lanes

    return buffer, count


def rank_statistics(scores: np.ndarray, columns: np.ndarray, largest_k: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray, bool]:
    """``(g, t, finite)``: per sample, the classes scored above its true class ``columns[i]``
    and the other classes tied with it; whether every score is finite.

    Counts comparisons, O(N * K), no sort, in blocks that fit in cache, on several cores for
    large inputs. With ``largest_k``, ties are counted only in rows where fewer than
    ``largest_k`` classes score higher, and g is clipped at ``largest_k`` (with t = 0): every
    k up to ``largest_k`` misses there whatever the ties. Finiteness is checked block by
    block in one pass, the block's first read from memory, and the true scores are read from
    the block once it is in cache (the caller raises).

    Examples
    --------
    >>> scores = np.array([[0.5, 0.2, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]])
    >>> g, t, finite = rank_statistics(scores, np.array([1, 0]))
    >>> g.tolist(), t.tolist(), finite
    ([1, 3], [1, 0], True)
    >>> rank_statistics(scores, np.array([1, 0]), largest_k=2)[:2]
    (array([1, 2], dtype=int32), array([1, 0], dtype=int32))
    """
    num_samples, num_classes = scores.shape
    higher = np.empty(num_samples, dtype=np.int32)
    tied = np.ones(num_samples, dtype=np.int32)  # the true class itself (t + 1)
    cut = num_classes if largest_k is None else largest_k  # ties matter where g < cut
    block_rows = max(1, _BLOCK_ELEMENTS // max(1, num_classes))
    row_buffer = 16 * (num_classes // 16) if num_classes >= _ROW_BY_ROW_COLUMNS else None

    def count_block_rows(start, stop):
        compared, count = _row_counter(min(block_rows, stop - start), num_classes)
        tied_rows = np.empty(min(block_rows, stop - start), dtype=np.int32)
        rows = np.arange(min(block_rows, stop - start))
        zeros = np.zeros(min(block_rows, stop - start), dtype=scores.dtype)
        finite = True
        for first in range(start, stop, block_rows):
            last = min(first + block_rows, stop)
            block, out = scores[first:last], compared[: last - first]
            if block.dtype.kind == "f":
                # One pass (np.einsum, no BLAS): the sum over rows of 0 x the row's scores is 0
                # when every score is finite and NaN when a row holds NaN or +-inf (0 x inf is
                # NaN); also NaN if a finite row's sum overflows, and then the caller's exact
                # check finds nothing to refuse.
                finite = finite and bool(np.isfinite(np.einsum("ij,i->", block, zeros[: last - first])))
            true_block = block[rows[: last - first], columns[first:last]][:, None]
            np.greater(block, true_block, out=out)
            count(last - first, higher[first:last])
            contested = np.flatnonzero(higher[first:last] < cut)
            if contested.size == last - first:
                np.equal(block, true_block, out=out)
                count(last - first, tied[first:last])
            elif contested.size:  # the contested rows gathered, compared and counted as a block
                np.equal(block[contested], true_block[contested], out=compared[: contested.size])
                count(contested.size, tied_rows[: contested.size])
                tied[first + contested] = tied_rows[: contested.size]
        return finite

    def count_rows(start, stop):
        if row_buffer is None:
            return count_block_rows(start, stop)
        default = np.setbufsize(row_buffer)  # this thread's setting, restored below
        try:
            return count_block_rows(start, stop)
        finally:
            np.setbufsize(default)

    finite = all(map_row_blocks(count_rows, scores)) if num_samples else True
    tied -= 1
    if largest_k is not None:
        np.minimum(higher, largest_k, out=higher)
    return higher, tied, finite


def hit_worth(k_values: Sequence[int], higher: np.ndarray, tied: np.ndarray) -> np.ndarray:
    """The hit of a true class with ``higher`` = g and ``tied`` = t, for each k: shape (rows, len(k)).

    ``clip(k - g, 0, t + 1) / (t + 1)``, the rule of ``TOPK_TIE_RULE``.

    Examples
    --------
    >>> hit_worth([1, 2, 3], np.array([1]), np.array([1])).tolist()
    [[0.0, 0.5, 1.0]]
    """
    places = np.asarray(k_values, dtype=np.float64)[None, :] - higher[:, None]
    share = tied[:, None] + 1.0
    return np.clip(places, 0.0, share) / share


# ----------------------------------------------------------------------------------------
# One batch to counts
# ----------------------------------------------------------------------------------------


def check_topk_options(options, predictions: Any = None, stored: Any = None) -> None:
    """``k`` / ``k_list`` and ``labels`` checked against the number of score columns, before any data
    is read (so a bad ``k`` is named with its range): the columns are read from ``predictions``'
    shape alone (``score_columns``), else from the batches ``stored`` (a ``Store`` or None), else
    unknown (at ``evaluate.load``: any positive ``k``).

    Examples
    --------
    >>> check_topk_options({"k": 3, "k_list": None, "labels": None}, [[0.1, 0.9], [0.8, 0.2]])
    Traceback (most recent call last):
    ...
    ValueError: k: expected an integer in [1, 2] (the number of score columns), found 3.
    """
    columns = score_columns(predictions) if predictions is not None else (
        stored.settings.get("score_columns") if stored is not None else None)
    check_k_values(options["k"], options["k_list"], columns)
    check_column_labels(options["labels"], columns)


def reference_columns(references: np.ndarray, labels: Optional[list], num_columns: int) -> np.ndarray:
    """The score column of each reference (-1: none, left for ``compute`` to drop or reject).

    Integers are columns 0..K-1; with ``labels``, a reference is the column of its name.
    Each distinct value is looked up once.
    """
    if labels is None:
        columns = references.astype(np.int64, copy=False)
        return np.where((columns >= 0) & (columns < num_columns), columns, -1)
    distinct, inverse = np.unique(references, return_inverse=True)
    lookup = {value: column for column, value in enumerate(labels)}
    same_kind = is_string_array(references) == isinstance(labels[0], str)
    found = np.array([lookup.get(value, -1) if same_kind else -1 for value in distinct.tolist()], dtype=np.int64)
    return found[inverse.reshape(-1)] if found.size else np.zeros(0, dtype=np.int64)


def coerce_batch(predictions: Any, references: Any, sample_weight: Any = None):
    """One batch checked: ``(scores (N, K), references (N,), weights or None)``; ``(N, ..., K)``
    scores with ``(N, ...)`` references are flattened to one row per element (``sample_weight``
    then has one weight per element). The scores' finiteness is not checked here (ranking
    checks it, reading them once)."""
    scores, references = as_array(predictions, "predictions"), as_array(references, "references")
    if scores.ndim > 2 and references.shape == scores.shape[:-1]:
        # (N, ..., K) scores of (N, ...) references (a token's or a pixel's classes): one row per element.
        scores, references = scores.reshape(-1, scores.shape[-1]), references.reshape(-1)
    if references.ndim > 1 and references.size != len(references):
        raise ValueError(
            f"references: expected one class per sample, shape (N,): an index 0..K-1 into the score columns (or a name "
            f"from `labels`), found shape {references.shape}; for one-hot rows pass their argmax (references.argmax(-1))."
        )
    references = references.reshape(-1)
    if scores.ndim != 2:
        raise ValueError(f"predictions: expected a 2-D array (samples x columns), found shape {scores.shape}.")
    if len(scores) != len(references):
        raise ValueError(f"predictions and references: expected the same number of samples, found {len(scores)} and {len(references)}.")
    if scores.dtype.kind not in "iuf":
        raise TypeError(f"predictions: expected numeric scores, found values of dtype {scores.dtype}.")
    if scores.shape[1] == 0:
        raise ValueError(f"predictions: expected at least one score column, found shape {scores.shape}.")
    weights = check_sample_weight(sample_weight, references.size, references.shape)
    if references.dtype.kind == "f":
        check_finite(references, "references")
        if not np.array_equal(np.rint(references), references):
            example = references[np.rint(references) != references][0]
            raise ValueError(
                f"references: expected one class per sample (an index 0..K-1 or a name from `labels`), found "
                f"non-integer values such as {float(example)!r}; scores belong in `predictions`."
            )
    return scores, as_labels(references, "references"), weights


def _empty_lists(predictions: Any, references: Any) -> bool:
    """Whether both inputs are empty 1-D array-likes (``[]``): no samples, and no score rows to read a width from."""

    def empty(value: Any) -> bool:
        if isinstance(value, (list, tuple)):
            return len(value) == 0
        shape = getattr(value, "shape", None)
        return shape is not None and tuple(shape) == (0,)

    return empty(predictions) and empty(references)


def count_scores(predictions: Any, references: Any, sample_weight: Any = None, labels: Optional[list] = None,
                 k: Any = None, k_list: Any = None, clip: bool = False, previous: Optional[Store] = None,
                 clusters: Optional[ClusterSpec] = None) -> Store:
    """One batch of scores as a ``Store`` of its own: counts of (reference, g, t).

    ``labels``: the score columns' names, if known while counting. ``clip``: ``k``/``k_list``
    are the k that will be computed (a one-call compute, or given to ``evaluate.load``):
    g is clipped at the largest. ``previous``: what earlier batches stored, to reject a
    batch that does not fit it with a clear message.
    Names without ``labels`` cannot be ranked yet: the batch is kept raw, scores
    included, and counted by ``rank_counts`` once ``compute`` gives ``labels``.
    ``clusters`` (``clusters.ClusterSpec``): the (cluster, reference, g, t) counts beside them.
    """
    if _empty_lists(predictions, references):
        # Empty lists: no samples, and no score columns to rank against (the width stays unknown).
        check_sample_weight(sample_weight, 0, (0,))
        return Store()
    shape = np.shape(references) if isinstance(references, np.ndarray) else as_array(references, "references").shape
    scores, references, weights = coerce_batch(predictions, references, sample_weight)
    num_columns = scores.shape[1]
    if len(shape) < 2 or math.prod(shape) != references.size:
        shape = references.shape  # one class per sample (or one-hot rows, which coerce_batch refuses)
    kind = "string" if is_string_array(references) else "integer"
    if previous is not None and previous.settings:
        if previous.settings["score_columns"] != num_columns:
            raise ValueError(f"predictions: expected rows of length {previous.settings['score_columns']} like the earlier batches, "
                             f"found {num_columns}.")
        if references.size and previous.settings.get("reference_kind") not in (None, kind):
            raise TypeError(f"references: expected {previous.settings['reference_kind']} labels like the earlier batches, "
                            f"found {kind}s (dtype {references.dtype}).")
    largest_k = max(check_k_values(k, k_list, num_columns)[0]) if clip else None
    check_column_labels(labels, num_columns)
    store = Store()
    store.settings = {"score_columns": num_columns, "labels": labels, "largest_k": largest_k}
    store.note_references(references)
    if references.size:
        store.settings["reference_kind"] = kind
    if kind == "string" and labels is None:
        check_finite(scores, "predictions")
        store.keep_raw(raw_with_clusters(store, clusters, shape, {"predictions": scores, "references": references,
                                                                  "sample_weight": weights}))
        return store
    columns = reference_columns(references, labels, num_columns)
    unmapped = columns < 0
    higher, tied, finite = rank_statistics(scores, np.maximum(columns, 0) if unmapped.any() else columns, largest_k)
    if not finite:
        check_finite(scores, "predictions")  # raises, counting every non-finite value
    if unmapped.any():
        higher[unmapped], tied[unmapped] = -1, 0
    table = CountTable(TOPK_KEYS)
    table.add([references, higher, tied], weights)
    store.tables[RANKS] = table
    count_clusters(store, clusters, shape, dict(zip(TOPK_KEYS, (references, higher, tied))), weights, table.result)
    return store


# ----------------------------------------------------------------------------------------
# Stored counts to TopkCounts
# ----------------------------------------------------------------------------------------


@dataclass
class TopkCounts:
    """Rank counts per class: row i is ``n[i]`` samples of class ``column[i]`` (an index into
    ``classes``, the score columns) with ``higher[i]`` classes scored above and ``tied[i]``
    tied; ``w[i]``/``w2[i]`` their weight sums (None unweighted; ``w2`` as mantissas of
    ``4**w2_exponent``). ``reason``: why nothing can be computed (every sample ignored)."""

    classes: np.ndarray
    column: np.ndarray
    higher: np.ndarray
    tied: np.ndarray
    n: np.ndarray
    w: Optional[np.ndarray] = None
    w2: Optional[np.ndarray] = None
    w2_exponent: int = 0
    reason: Optional[str] = None
    clusters: Clusters = UNCLUSTERED  # the kept samples' (cluster, reference, g, t) counts (clusters.py)

    @property
    def num_classes(self) -> int:
        return len(self.classes)

    @property
    def weight(self) -> np.ndarray:
        return self.n if self.w is None else self.w

    def support(self) -> np.ndarray:
        """Reference samples per class: integers, or weighted sums."""
        support = np.bincount(self.column, weights=self.weight.astype(np.float64), minlength=self.num_classes)
        return np.rint(support).astype(np.int64) if self.w is None else support

    def hits(self, k_values: Sequence[int]) -> np.ndarray:
        """Top-k hits per class and k, shape (K, len(k_values)): sums of the tie-rule worth."""
        worth = hit_worth(k_values, self.higher, self.tied) * self.weight[:, None]
        # One bincount for every k: bin (class, j) holds the hits of class `class` at k_values[j].
        bins = (self.column.astype(np.intp)[:, None] * len(k_values) + np.arange(len(k_values))).ravel()
        return np.bincount(bins, weights=worth.ravel(), minlength=self.num_classes * len(k_values)).reshape(self.num_classes, -1)

    def effective_sizes(self) -> Optional[np.ndarray]:
        """Kish's effective size (sum w)^2 / sum w^2 of each class: what an interval counts; None unweighted."""
        return None if self.w is None else kish_sizes(self.column, self.w, self.w2, self.w2_exponent, self.num_classes)

    def cluster_sums(self, influence: RecallInfluence) -> ClusterSums:
        """The clusters' sums of the top-``influence.k`` mean of recalls' ``influence``
        (``metrics/balanced_accuracy.py`` ``recall_influence``); a tie's share of a hit moves it in proportion."""
        rows = self.clusters.rows
        column = index_rows(rows, "references", self.classes)
        rows, column = rows.select(column >= 0), column[column >= 0]
        worth = hit_worth([influence.k], rows.keys["higher"].astype(np.int64), rows.keys["tied"].astype(np.int64))[:, 0]
        right, wrong = influence.right, influence.wrong
        return row_cluster_sums(wrong[column] + worth * (right[column] - wrong[column]), rows)


def rank_counts(stored: Store, options: Dict[str, Any]) -> TopkCounts:
    """What was stored, as ``TopkCounts`` under the compute-time options.

    ``ignore_index`` drops tuples by reference value; references map to classes (the score
    columns, named by ``labels``) here, raising for a value that names none; batches kept
    raw (names without ``labels``) are counted now.
    """
    settings = stored.settings
    num_columns = settings.get("score_columns")  # None: only empty lists were given
    labels = options.get("labels")
    check_column_labels(labels, num_columns)
    k_values, _ = check_k_values(options.get("k"), options.get("k_list"), num_columns)
    counted_for = settings.get("largest_k")
    if counted_for is not None and max(k_values) > counted_for:
        raise ValueError(f"k: the batches were counted for k up to {counted_for} (the k given to evaluate.load), found "
                         f"k={max(k_values)}; pass the largest k to compute to evaluate.load (k_list=[...]).")
    table = stored.tables.get(RANKS)
    if table is not None and table.num_samples and settings.get("labels") != labels:
        if not (settings.get("labels") is None and labels == list(range(num_columns))):
            raise ValueError(f"labels: expected the labels the batches were ranked with ({settings.get('labels')!r}: scores are "
                             f"ranked when added), found {labels!r}; pass `labels` to evaluate.load instead.")
    raw = stored.raw_columns()
    cluster_table = stored.tables.get(CLUSTERS)
    if raw is not None and raw["references"].size:
        if labels is None:
            raise TypeError(f"references: expected class indices 0..K-1, found strings; {_NAMES_HINT}.")
        given = raw.get("clusters")
        batch = count_scores(raw["predictions"], raw["references"], raw["sample_weight"], labels, None, k_values, clip=True,
                             clusters=None if given is None else ClusterSpec(given, True))
        table = _merged(table, batch.tables[RANKS])
        if given is not None:
            cluster_table = _merged(cluster_table, batch.tables[CLUSTERS])
    ranks = table.result() if table is not None else JointCounts({key: np.zeros(0, np.int64) for key in TOPK_KEYS}, np.zeros(0, np.int64))
    ranks, reason = kept_rows(ranks, options.get("ignore_index"), drop_zero_weights=False)
    values = ranks.keys["references"]
    if labels is None and is_string_array(values) and values.size:
        raise TypeError(f"references: expected class indices 0..K-1, found strings; {_NAMES_HINT}.")
    # A -100 (or a uint8 255) reference without ignore_index names no score column: probably padding.
    with padding_hint(padding_values(values, stored.reference_dtypes, options.get("ignore_index"))):
        encoded = encode_labels(values, None, labels, None if labels is not None else num_columns)
    higher, tied = ranks.keys["higher"].astype(np.int64), ranks.keys["tied"].astype(np.int64)
    if (higher < 0).any():  # a value mapped to no column while counting maps to one now: never, unless labels changed
        raise ValueError("labels: expected the labels the batches were ranked with; pass `labels` to evaluate.load.")
    clusters = stored_clusters(stored, options.get("ignore_index"), cluster_table)
    return TopkCounts(encoded.classes, encoded.reference_indices, higher, tied, ranks.n,
                      ranks.w, ranks.w2, ranks.w2_exponent, reason, clusters)


def _merged(table: Optional[CountTable], other: CountTable) -> CountTable:
    if table is None:
        return other
    merged = CountTable(other.names)
    merged.absorb(table)
    merged.absorb(other)
    return merged
