"""Counts: how many samples (and what weight) fall on each distinct tuple of key values.

Every metric here is a function of such counts: a confusion matrix counts (reference,
prediction) pairs; a multilabel batch counts (label, reference, prediction) entries;
top-k counts (class, classes scored higher, classes tied). A ``CountTable`` accumulates
them batch by batch - this is what ``add_batch`` stores and what distributed processes
merge - and ``JointCounts`` is its result: the distinct tuples (as label *values*, so
that ``labels``, ``num_classes`` and ``ignore_index`` can still apply at compute time),
with per tuple the number of samples ``n`` and, once weights were given, their sum ``w``
and the sum of their squares ``w2`` (for Kish's effective sizes).

Integer keys in a moderate range are counted in a dense box, chunk by chunk through a
buffer that stays in cache (``np.bincount`` of combined codes): about the cost of one
bare ``bincount``. Strings get integer ids in order of first appearance; keys whose box
would be too large are kept as sorted distinct rows instead, so memory follows the
number of distinct tuples, never a label's value or the number of samples.
"""

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .inputs import is_string_array

# A dense box holds at most this many cells (2 MB of counts); larger ones are kept sparse.
DENSE_CELLS = 1 << 18
# Elements per chunk: a chunk of codes and its bincount stay in cache.
CHUNK = 1 << 17
# Above this many cells a sparse batch is sorted instead of counted into a temporary box.
_BATCH_BOX_CELLS = 1 << 22


class Axis:
    """How the values of one key become integer ids: integers are their own ids; strings get
    ids in order of first appearance (one dict lookup per distinct value, not per sample)."""

    def __init__(self, name: str):
        self.name = name
        self.kind: Optional[str] = None
        self.vocabulary: Dict[Any, int] = {}

    def check(self, values: np.ndarray) -> None:
        """Raise ``TypeError`` if ``values`` are of another kind than the earlier batches'."""
        kind = "string" if is_string_array(values) else "integer"
        if self.kind is not None and kind != self.kind and values.size:
            raise TypeError(f"{self.name}: expected {self.kind} labels like the earlier batches, found {kind}s (dtype {values.dtype}).")

    def ids(self, values: np.ndarray) -> np.ndarray:
        kind = "string" if is_string_array(values) else "integer"
        if values.size:
            self.kind = kind
        if kind == "integer":
            return values
        if values.dtype == object:  # long labels as Python strings: hashed, never sorted by length
            distinct: Dict[Any, int] = {}
            inverse = np.fromiter((distinct.setdefault(v, len(distinct)) for v in values.ravel().tolist()), np.int64, values.size)
            distinct_values = list(distinct)
        else:
            distinct_array, inverse = np.unique(values.ravel(), return_inverse=True)
            distinct_values = distinct_array.tolist()
        codes = np.array([self.vocabulary.setdefault(value, len(self.vocabulary)) for value in distinct_values], dtype=np.int64)
        return codes[inverse].reshape(values.shape)

    def values(self, ids: np.ndarray) -> np.ndarray:
        if self.kind != "string":
            return ids.astype(np.int64)
        words = list(self.vocabulary)
        table = np.empty(len(words), dtype=object)
        table[:] = words
        if max(map(len, words), default=0) <= 256:
            table = table.astype(str)
        return table[ids] if ids.size else np.zeros(0, dtype=str)


@dataclass
class JointCounts:
    """Distinct key tuples and their counts: ``keys[name][i]`` is the value of key ``name`` in
    tuple i, ``n[i]`` its number of samples, ``w[i]``/``w2[i]`` the sum of their weights and of
    their squared weights (None when no weights were given). ``w2`` is kept as a mantissa:
    the sums of squares are ``w2 * 4**w2_exponent`` (see ``squared_weights``)."""

    keys: Dict[str, np.ndarray]
    n: np.ndarray
    w: Optional[np.ndarray] = None
    w2: Optional[np.ndarray] = None
    w2_exponent: int = 0

    @property
    def weight(self) -> np.ndarray:
        """The weight of each tuple: ``w`` if weighted, else the count ``n``."""
        return self.n if self.w is None else self.w

    def select(self, keep: np.ndarray) -> "JointCounts":
        pick = (lambda field: None if field is None else field[keep])
        return JointCounts({name: values[keep] for name, values in self.keys.items()}, self.n[keep], pick(self.w), pick(self.w2),
                           self.w2_exponent)

    def drop_matching(self, key: str, value: Any) -> "JointCounts":
        """These counts without the tuples whose ``key`` is ``value`` (never across kinds: "0"
        is not 0); how ``ignore_index`` drops samples, whatever was counted."""
        values = self.keys[key]
        if value is None or isinstance(value, str) != is_string_array(values):
            return self  # nothing of that kind to drop
        return self.select(values != value)

    @property
    def num_samples(self) -> int:
        return int(self.n.sum())


def regrouped(counts: JointCounts, keys: Dict[str, np.ndarray]) -> JointCounts:
    """``counts`` summed over new ``keys`` (one value per tuple): the distinct tuples of
    ``keys`` with the ``n``, ``w`` and ``w2`` of the tuples that map to each."""
    if not counts.n.size:
        return JointCounts({name: values[:0] for name, values in keys.items()}, counts.n, counts.w, counts.w2, counts.w2_exponent)
    distinct = {name: np.unique(column, return_inverse=True) for name, column in keys.items()}
    fields = {"n": counts.n, **({} if counts.w is None else {"w": counts.w, "w2": counts.w2})}
    rows = _distinct_rows({name: inverse.reshape(-1) for name, (_, inverse) in distinct.items()}, fields)
    return JointCounts({name: values[rows[name]] for name, (values, _) in distinct.items()}, rows["n"].astype(np.int64),
                       rows.get("w"), rows.get("w2"), counts.w2_exponent)


def safe_ratio(numerator: Any, denominator: Any) -> np.ndarray:
    """``numerator / denominator`` with NaN where the denominator is 0: a rate of counts where
    nothing was counted is undefined."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.full(np.broadcast(numerator, denominator).shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def kish_sizes(index: np.ndarray, w: np.ndarray, w2: np.ndarray, w2_exponent: int, size: int) -> np.ndarray:
    """Kish's effective size (sum w)^2 / sum w^2 of each of ``size`` groups (``index`` per counted
    row), from weight sums and squared-weight mantissas of ``4**w2_exponent``: the sums are
    scaled like the mantissas (exactly, by a power of two), so any weights give finite sizes."""
    sums = np.bincount(index, weights=np.ldexp(w, -w2_exponent), minlength=size)
    squares = np.bincount(index, weights=w2, minlength=size)
    return np.divide(sums**2, squares, out=np.zeros(size), where=squares > 0)


def equal_weight_counts(w: np.ndarray, w2: np.ndarray, w2_exponent: int = 0) -> Optional[np.ndarray]:
    """The number of samples behind each tuple if every sample of positive weight had the
    same weight, else None.

    Each tuple's Kish size ``w^2 / w2`` is at most its number of samples of positive weight,
    with equality exactly when their weights are equal; if moreover ``w / size`` is one
    constant c for all tuples, every weight is c. Such weights change no rate and no
    effective size: the counts are then the whole story, so all ones (or any constant)
    give exactly the unweighted statistics, exact tests included. Rounding of the sums is
    allowed for (1e-9 on the sizes, 1e-12 on c). ``w2`` holds mantissas of ``4**w2_exponent``.

    >>> equal_weight_counts(np.array([0.3, 0.1]), np.array([0.03, 0.01])).tolist()  # 3 and 1 samples of 0.1
    [3, 1]
    >>> equal_weight_counts(np.array([3.0, 2.0]), np.array([5.0, 4.0])) is None  # 1 + 2 / 2: not equal
    True
    """
    w, w2 = np.asarray(w, dtype=np.float64), np.asarray(w2, dtype=np.float64)
    if not w.size:
        return np.zeros(0, dtype=np.int64)
    scaled = np.ldexp(w, -w2_exponent)
    with np.errstate(invalid="ignore", divide="ignore"):
        sizes = np.where(w2 > 0, scaled**2 / np.where(w2 > 0, w2, 1.0), 0.0)
    counts = np.rint(sizes)
    if (counts < 1).any() or (np.abs(sizes - counts) > 1e-9 * counts).any():
        return None
    per_sample = w / counts
    if np.abs(per_sample - per_sample[0]).max() > 1e-12 * abs(per_sample[0]):
        return None
    return counts.astype(np.int64)


# The reason of every module's NaN when nothing was counted: no samples, or only samples of weight 0.
NO_SAMPLES = "no_samples"


def kept_rows(rows: JointCounts, ignore_index: Any, drop_zero_weights: bool = True) -> Tuple[JointCounts, Optional[str]]:
    """The rows a metric counts, and why none are left: ``ignore_index`` drops rows whose
    reference is that value (reason ``"empty_after_ignore_index"`` when it drops all), and
    samples of weight 0 are dropped as if never added (``drop_zero_weights``; top-k keeps
    them until its classes are checked, so that their labels are validated too). With no
    sample, or none of positive weight, the reason is ``NO_SAMPLES``."""
    before = rows.num_samples
    rows = rows.drop_matching("references", ignore_index)
    reason = "empty_after_ignore_index" if before and not rows.num_samples else None
    if reason is None and not (rows.n.size and (rows.w is None or (rows.w > 0).any())):
        reason = NO_SAMPLES
    if rows.w is not None and drop_zero_weights:
        rows = rows.select(rows.w > 0)
    return rows, reason


def squared_weights(weights: np.ndarray) -> "tuple[np.ndarray, int]":
    """``(squares, exponent)`` with ``weights**2 == squares * 4**exponent``.

    Weights are scaled by a power of two (exactly) so that the largest is in [0.5, 1) before
    squaring: the squares of weights such as 1e-200 or 1e200 would underflow to 0 or
    overflow to inf, and Kish's effective size (sum w)^2 / sum w^2 with them.

    Examples
    --------
    >>> weights = np.array([1e-200, 3e-200])
    >>> squares, exponent = squared_weights(weights)
    >>> float(weights.sum() ** 2 / (weights**2).sum())  # squares underflow: no effective size
    nan
    >>> round(float(np.ldexp(weights.sum(), -exponent) ** 2 / squares.sum()), 12)  # Kish: 4^2 / 10
    1.6
    """
    weights = np.asarray(weights, dtype=np.float64)
    largest = float(weights.max()) if weights.size else 0.0
    exponent = int(np.frexp(largest)[1]) if 0 < largest < np.inf else 0
    scaled = np.ldexp(weights, -exponent)
    return scaled * scaled, exponent


class CountTable:
    """Accumulates ``JointCounts`` over the keys ``names``, batch by batch (see the module doc).

    Examples
    --------
    >>> table = CountTable(["references", "predictions"])
    >>> table.add([np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0])])
    >>> table.add([np.array([1]), np.array([1])])
    >>> counts = table.result()
    >>> counts.keys["references"].tolist(), counts.keys["predictions"].tolist(), counts.n.tolist()
    ([0, 1, 1], [0, 0, 1], [2, 1, 2])
    """

    def __init__(self, names: Sequence[str]):
        self.names = list(names)
        self.axes = [Axis(name) for name in self.names]
        self.weighted = False
        self.w2_exponent = 0  # squared weights are held as mantissas (see squared_weights)
        self.num_samples = 0
        self.low: Optional[List[int]] = None  # the dense box: lowest id and size per axis
        self.shape: Optional[List[int]] = None
        self.box: Dict[str, np.ndarray] = {}
        self.rows: List[Dict[str, np.ndarray]] = []  # sparse: blocks of distinct rows
        self.sparse = False

    def __len__(self) -> int:
        return self.num_samples

    # ---------------------------------------------------------------- adding
    def add(self, keys: Sequence[np.ndarray], weights: Optional[np.ndarray] = None, counts: Optional[np.ndarray] = None,
            weights_squared: Optional[np.ndarray] = None, w2_exponent: int = 0) -> None:
        """Count the tuples of ``keys`` (arrays broadcastable to one shape, chunked along the
        first axis). ``weights``: one weight per tuple (broadcastable); ``counts``: how many
        samples each tuple stands for (merging counted rows; then ``weights_squared`` too,
        as mantissas of ``4**w2_exponent``)."""
        keys = [np.asarray(values) for values in keys]
        for axis, values in zip(self.axes, keys):
            axis.check(values)  # every key before anything changes
        ids = [axis.ids(values) for axis, values in zip(self.axes, keys)]
        shape = np.broadcast_shapes(*(array.shape for array in ids))
        if not math.prod(shape):
            return
        if weights is not None and not self.weighted:
            self._become_weighted()
        fields = {"n": counts}
        if self.weighted:
            if weights is None:  # weight 1 per sample (every caller passes weights_squared with weights)
                weights = np.ones(shape) if counts is None else counts.astype(np.float64)
                weights_squared, w2_exponent = weights, 0
            elif weights_squared is None:
                weights_squared, w2_exponent = squared_weights(weights)
            fields.update(w=weights, w2=self._align_squares(weights_squared, w2_exponent))
        self.num_samples += math.prod(shape) if counts is None else int(counts.sum())
        if not self.sparse:
            self._add_dense(ids, shape, fields)
        else:
            self._add_sparse(ids, shape, fields)

    def _align_squares(self, squares: np.ndarray, exponent: int) -> np.ndarray:
        """``squares`` (mantissas of ``4**exponent``) on the table's exponent, the larger of the two."""
        if not self.num_samples:
            self.w2_exponent = exponent
            return squares
        target = max(self.w2_exponent, exponent)
        if self.w2_exponent < target:  # what is held gets the larger exponent (tiny squares may underflow: negligible)
            for block in self._held():
                block["w2"] = np.ldexp(block["w2"], 2 * (self.w2_exponent - target))
            self.w2_exponent = target
        return squares if exponent == target else np.ldexp(squares, 2 * (exponent - target))

    def absorb(self, other: "CountTable") -> None:
        """Add everything ``other`` counted (a batch counted on its own, say).

        Two dense boxes of integer keys are added cell by cell (no rows are extracted);
        otherwise ``other``'s rows are merged.
        """
        if not other.num_samples:
            return
        same_kind = all(mine.kind in (None, "integer") and theirs.kind == "integer" for mine, theirs in zip(self.axes, other.axes))
        if other.box and not other.sparse and not self.sparse and same_kind:
            bounds = [(low, low + size - 1) for low, size in zip(other.low, other.shape)]
            if self._fits(bounds) or self._grow(bounds):
                for axis in self.axes:
                    axis.kind = "integer"
                if other.weighted and not self.weighted:
                    self._become_weighted()
                box_slice = tuple(slice(low - mine, low - mine + size) for low, mine, size in zip(other.low, self.low, other.shape))
                for key in self._field_names():
                    theirs = other.box.get(key, other.box["n"])  # an unweighted batch: weight 1 per sample
                    if key == "w2":
                        theirs = self._align_squares(theirs, other.w2_exponent if other.weighted else 0)
                    self.box[key].reshape(self.shape)[box_slice] += theirs.reshape(other.shape)
                self.num_samples += other.num_samples
                return
        self.merge(other.result())

    def merge(self, counts: JointCounts) -> None:
        """Add counted rows (another process's table, say)."""
        if not counts.n.size:
            return
        keys = [counts.keys[name] for name in self.names]
        self.add(keys, counts.w, counts.n, counts.w2, counts.w2_exponent)

    def _become_weighted(self) -> None:
        # Earlier samples had weight 1: their weight sums are their counts (and w2_exponent is still 0).
        self.weighted = True
        for block in self._held():
            block["w"] = block["n"].astype(np.float64)
            block["w2"] = block["w"].copy()

    def _held(self) -> List[Dict[str, np.ndarray]]:
        """The dense box (if any) and the blocks of sparse rows: what holds the counts."""
        return ([self.box] if self.box else []) + self.rows

    def _add_dense(self, ids: List[np.ndarray], shape: tuple, fields: Dict[str, Optional[np.ndarray]]) -> None:
        rows = shape[0]
        step = max(1, CHUNK // max(1, math.prod(shape[1:])))
        for start in range(0, rows, step):
            stop = min(rows, start + step)
            chunk = [_rows(array, start, stop, shape) for array in ids]
            bounds = [(int(array.min()), int(array.max())) for array in chunk]
            if not self._fits(bounds) and not self._grow(bounds):
                # Too many cells for a box: the rest of this batch goes the sparse way.
                self._to_sparse()
                rest = [_rows(array, start, rows, shape) for array in ids]
                rest_fields = {key: None if value is None else _rows(value, start, rows, shape) for key, value in fields.items()}
                self._add_sparse(rest, (rows - start,) + tuple(shape[1:]), rest_fields)
                return
            codes = _codes(chunk, self.low, self.shape)
            cells = codes.size and math.prod(self.shape)
            chunk_shape = (stop - start,) + tuple(shape[1:])
            for key, value in fields.items():
                if value is None:  # key "n": one sample per tuple
                    self.box["n"] += np.bincount(codes, minlength=cells)
                    continue
                data = np.broadcast_to(_rows(value, start, stop, shape), chunk_shape).ravel()
                summed = np.bincount(codes, weights=data, minlength=cells)
                self.box[key] += np.rint(summed).astype(np.int64) if key == "n" else summed

    def _fits(self, bounds) -> bool:
        return self.low is not None and all(low <= lo and hi < low + size for (lo, hi), low, size in zip(bounds, self.low, self.shape))

    def _grow(self, bounds) -> bool:
        """Extend the box to hold ``bounds`` (moving what it counted); False if it would be too large."""
        held = bounds if self.low is None else [(old, old + size - 1) for old, size in zip(self.low, self.shape)]
        low = [min(lo, old) for (lo, _), (old, _) in zip(bounds, held)]
        high = [max(hi, old) for (_, hi), (_, old) in zip(bounds, held)]
        shape = [hi - lo + 1 for lo, hi in zip(low, high)]
        if math.prod(shape) > DENSE_CELLS:
            return False
        grown = {key: np.zeros(math.prod(shape), dtype=np.int64 if key == "n" else np.float64) for key in self._field_names()}
        if self.low is not None:
            offset = tuple(slice(old - new, old - new + size) for old, new, size in zip(self.low, low, self.shape))
            for key, box in self.box.items():
                grown[key].reshape(shape)[offset] = box.reshape(self.shape)
        self.low, self.shape, self.box = low, shape, grown
        return True

    def _field_names(self) -> List[str]:
        return ["n", "w", "w2"] if self.weighted else ["n"]

    def _to_sparse(self) -> None:
        if self.box:
            self.rows.append(self._box_rows())
        self.box, self.low, self.shape, self.sparse = {}, None, None, True

    def _box_rows(self) -> Dict[str, np.ndarray]:
        cells = np.flatnonzero(self.box["n"])
        block = {name: index + low for name, index, low in zip(self.names, np.unravel_index(cells, self.shape), self.low)}
        block.update({key: self.box[key][cells] for key in self._field_names()})
        return block

    def _add_sparse(self, ids: List[np.ndarray], shape: tuple, fields: Dict[str, Optional[np.ndarray]]) -> None:
        flat = [np.broadcast_to(array, shape).ravel() for array in ids]
        values = {key: None if value is None else np.broadcast_to(np.asarray(value), shape).ravel() for key, value in fields.items()}
        if values["n"] is None:
            values["n"] = np.ones(flat[0].size, dtype=np.uint8)
        self.rows.append(_distinct_rows(dict(zip(self.names, flat)), values))
        held = sum(block["n"].size for block in self.rows)
        if len(self.rows) > 1 and held > 2 * self.rows[0]["n"].size + (1 << 16):
            self.rows = [_distinct_rows(*_concat(self.rows, self.names, self._field_names()))]

    # ---------------------------------------------------------------- result
    def result(self) -> JointCounts:
        blocks = list(self.rows) + ([self._box_rows()] if self.box else [])
        fields = self._field_names()
        if not blocks:  # nothing counted, so unweighted
            blocks = [{key: np.zeros(0, np.int64) for key in self.names + fields}]
        block = blocks[0] if len(blocks) == 1 else _distinct_rows(*_concat(blocks, self.names, fields))
        keep = block["n"] > 0
        keys = {name: axis.values(block[name][keep]) for name, axis in zip(self.names, self.axes)}
        return JointCounts(keys, block["n"][keep].astype(np.int64), *(block[key][keep] for key in fields[1:]),
                           w2_exponent=self.w2_exponent)


def dense_box(table: CountTable) -> Optional[Tuple[List[np.ndarray], Dict[str, np.ndarray]]]:
    """``(values of each key, {field: counts over the box})``: what ``table`` counted as one dense box of
    integer keys (no rows extracted), or None when it is held otherwise."""
    if table.sparse or not table.box or any(axis.kind == "string" for axis in table.axes):
        return None
    values = [np.arange(low, low + size) for low, size in zip(table.low, table.shape)]
    return values, {key: box.reshape(table.shape) for key, box in table.box.items()}


def _rows(array: np.ndarray, start: int, stop: int, shape: tuple) -> np.ndarray:
    """Rows ``start:stop`` of an array broadcastable to ``shape`` (an axis it broadcasts along stays)."""
    array = np.asarray(array)
    return array[start:stop] if array.ndim == len(shape) and array.shape[0] == shape[0] else array


def _codes(chunk: Sequence[np.ndarray], low: Sequence[int], shape: Sequence[int]) -> np.ndarray:
    """The cell of each tuple in the box (row-major): sum of ``id * stride`` minus the box
    corner's code, in two passes for two keys (no temporary when a stride is 1).

    Computed in uint16 when every cell fits (fewer bytes to write; bincount widens them in
    cache), else int64. Both wrap around: ids cast into the type, products and sums are exact
    modulo 2**bits, and so is the result, which lies in [0, cells) and so is the true cell.
    """
    cells = math.prod(shape)
    dtype = np.uint16 if cells <= 1 << 16 else np.int64
    bits = 16 if dtype is np.uint16 else 64
    wrap = (lambda value: dtype(value % (1 << bits)) if dtype is np.uint16 else np.int64((value + (1 << 63)) % (1 << 64) - (1 << 63)))
    codes = np.empty(np.broadcast_shapes(*(array.shape for array in chunk)), dtype=dtype)
    stride, corner = cells, 0
    for axis, (array, lowest, size) in enumerate(zip(chunk, low, shape)):
        stride //= size
        corner += lowest * stride
        if axis == 0:
            np.multiply(array, wrap(stride), out=codes, dtype=dtype, casting="unsafe")
        elif stride == 1:
            np.add(codes, array, out=codes, dtype=dtype, casting="unsafe")
        else:
            codes += np.multiply(array, wrap(stride), dtype=dtype, casting="unsafe")
    if corner:
        codes -= wrap(corner)
    return codes.ravel()


def _concat(blocks: Sequence[Dict[str, np.ndarray]], names: Sequence[str], fields: Sequence[str]):
    keys = {name: np.concatenate([block[name] for block in blocks]) for name in names}
    return keys, {key: np.concatenate([block[key] for block in blocks]) for key in fields}


def _distinct_rows(keys: Dict[str, np.ndarray], fields: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
    """The distinct rows of ``keys`` (integer ids), their ``fields`` summed, ids in narrow types."""
    columns = list(keys.values())
    lows = [int(column.min()) for column in columns]
    sizes = [int(column.max()) - low + 1 for column, low in zip(columns, lows)]
    cells = float(np.prod([float(size) for size in sizes]))
    if cells < 2.0**62:
        code = np.zeros(columns[0].size, dtype=np.int64)
        for column, low, size in zip(columns, lows, sizes):
            code *= size
            code += column.astype(np.int64) - low
        if cells <= max(_BATCH_BOX_CELLS, 4 * code.size):  # counting beats sorting
            present = np.bincount(code) > 0
            distinct = np.flatnonzero(present)
            positions = (np.cumsum(present) - 1)[code]
        else:
            distinct, positions = np.unique(code, return_inverse=True)
        index = np.unravel_index(distinct, sizes)
        rows = {name: narrowest(part + low) for name, part, low in zip(keys, index, lows)}
    else:  # ids too far apart to combine (values near +-2^62): sort the rows themselves
        order = np.lexsort(columns[::-1])
        sorted_columns = [column[order] for column in columns]
        starts = np.ones(order.size, dtype=bool)
        starts[1:] = np.any([column[1:] != column[:-1] for column in sorted_columns], axis=0)
        positions = np.empty(order.size, dtype=np.intp)
        positions[order] = np.cumsum(starts) - 1
        rows = {name: column[starts] for name, column in zip(keys, sorted_columns)}
        distinct = np.flatnonzero(starts)
    for key, value in fields.items():
        summed = np.bincount(positions, weights=value, minlength=distinct.size)
        rows[key] = narrowest(np.rint(summed).astype(np.int64)) if key == "n" else summed
    return rows


_INTEGER_TYPES = [np.dtype(name) for name in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64")]


def narrowest(array: np.ndarray) -> np.ndarray:
    """A copy of an integer array in the narrowest integer type holding its values (others: a copy):
    held rows and saved stores cost less (sparse rows are mostly counts of 1, top-k's distinct ranks).

    Examples
    --------
    >>> [str(narrowest(np.array(values)).dtype) for values in ([0, 9], [-100, 9], [0, 255], [0, 70000])]
    ['int8', 'int8', 'uint8', 'int32']
    """
    if array.dtype.kind not in "iu" or not array.size:
        return np.array(array, copy=True)
    low, high = int(array.min()), int(array.max())
    dtype = next((t for t in _INTEGER_TYPES if np.iinfo(t).min <= low and high <= np.iinfo(t).max), array.dtype)
    return array.astype(dtype)  # astype copies: the caller may refill its buffer
