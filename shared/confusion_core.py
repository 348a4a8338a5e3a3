"""Shared core of the imbalance-robust metrics: coerce, validate, map labels, count, reduce.

Every metric module in this project is a reduction of confusion counts. This file holds
everything they share, so that a module file is mostly documentation plus a few lines of
reduction:

* ``as_array``: coerce list / tuple / NumPy / torch (CUDA, ``requires_grad``) / pandas /
  pyarrow inputs to NumPy once, with clear errors for ragged, missing or mixed-type values;
* ``encode_labels``: map arbitrary hashable label values (ints, strings) to ``0..K-1``
  without allocating anything in proportion to a label's value;
* ``class_counts``: weighted one-vs-rest counts per class (the "stat scores");
* ``youden_thresholds``: the threshold maximising TPR + TNR, one sort per column;
* ``ConfusionMetric``: an ``evaluate.Metric`` base that stores whole columns (no
  per-element encoding) and hands ``_reduce`` NumPy arrays.

The source lives in ``shared/``; each module folder holds a vendored copy (see
``shared/vendor.py``), so a module folder is self-contained on the Hugging Face Hub.
"""

import abc
import inspect
import math
import numbers
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import datasets
import evaluate
import numpy as np
import pyarrow as pa
from datasets.utils.py_utils import temp_seed

# ----------------------------------------------------------------------------------------
# Coercion
# ----------------------------------------------------------------------------------------

_MISSING_HINT = "no missing values (None, NaN, pandas.NA)"


def _describe(values: np.ndarray, limit: int = 5) -> str:
    """A short, readable listing of (unique) offending values for error messages."""
    shown = [repr(_to_python_scalar(v)) for v in values[:limit]]
    more = f" and {len(values) - limit} more" if len(values) > limit else ""
    return "[" + ", ".join(shown) + "]" + more


def _from_object_array(array: np.ndarray, name: str) -> np.ndarray:
    """Give an object array (from pandas, pyarrow, lists of mixed values) a concrete dtype."""
    flat = array.ravel()
    if flat.size == 0:
        return np.zeros(array.shape, dtype=np.int64)
    kinds = set()
    for value in flat:
        if value is None:
            kinds.add("missing")
        elif isinstance(value, (bool, np.bool_)):
            kinds.add("int")
        elif isinstance(value, (numbers.Integral, np.integer)):
            kinds.add("int")
        elif isinstance(value, (numbers.Real, np.floating)):
            kinds.add("missing" if math.isnan(value) else "float")
        elif isinstance(value, (str, np.str_)):
            kinds.add("str")
        elif isinstance(value, (bytes, np.bytes_)):
            kinds.add("str")
        elif type(value).__name__ in ("NAType", "NaTType"):
            kinds.add("missing")
        elif isinstance(value, (list, tuple, np.ndarray)):
            raise ValueError(
                f"{name}: expected a rectangular array (every row the same length), "
                f"found ragged rows (an element is a {type(value).__name__} of varying length)."
            )
        else:
            raise TypeError(
                f"{name}: expected numbers or strings, found an element of type {type(value).__name__!r}: {value!r}."
            )
    if "missing" in kinds:
        raise ValueError(f"{name}: expected {_MISSING_HINT}, found at least one missing value.")
    if "str" in kinds and len(kinds) > 1:
        raise TypeError(
            f"{name}: expected one label type, found a mix of strings and numbers "
            f"(e.g. 0 and '1'); make all labels the same type."
        )
    if kinds == {"str"}:
        if any(isinstance(v, bytes) for v in flat):
            flat = _object_vector([v.decode() if isinstance(v, bytes) else str(v) for v in flat])
        return _strings_from_objects(flat).reshape(array.shape)
    if kinds == {"int"}:
        try:
            return array.astype(np.int64)
        except OverflowError:
            raise ValueError(f"{name}: expected integers that fit in 64 bits, found a larger one.") from None
    return array.astype(np.float64)


def _is_arrow_string(arrow_type: pa.DataType) -> bool:
    return pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type)


# A fixed-width unicode array takes 4 bytes per character of its LONGEST label for every
# element: one 10^5-character label among 10^5 short ones would take 40 GB. Above these
# sizes string labels are an object array of the distinct Python strings instead (one
# pointer per element; each distinct label stored once).
_MAX_FIXED_WIDTH_BYTES = 8 << 20
_WIDE_LABEL_CHARS = 256


def is_string_array(array: np.ndarray) -> bool:
    """Whether an array holds string labels: fixed-width unicode, or (long labels) Python strings."""
    return array.dtype.kind in "US" or array.dtype == object


def _needs_objects(longest: int, size: int) -> bool:
    """Whether ``size`` labels, the longest of ``longest`` characters, are too wide for a fixed-width array."""
    return longest > _WIDE_LABEL_CHARS and 4 * longest * size > _MAX_FIXED_WIDTH_BYTES


def _string_labels(distinct: Sequence[str], codes: np.ndarray) -> np.ndarray:
    """The labels ``distinct[codes]``: fixed-width unicode, or shared Python strings if one is long."""
    if _needs_objects(max(map(len, distinct), default=0), codes.size):
        table = np.empty(len(distinct), dtype=object)
        table[:] = list(distinct)
    else:
        table = np.array(list(distinct), dtype=str)
    return table[codes] if len(table) else np.zeros(codes.shape, dtype=str)


def _strings_from_arrow(column: Any) -> np.ndarray:
    """An Arrow string array (no nulls) as a NumPy label array, decoding each distinct value once."""
    if isinstance(column, pa.ChunkedArray):
        # Not combined first: more than 2 GB of text would overflow a string array's offsets.
        encoded = column.dictionary_encode()  # one dictionary, shared by every chunk
        if encoded.num_chunks == 0:
            return np.zeros(0, dtype=str)
        indices = [chunk.indices.to_numpy(zero_copy_only=False) for chunk in encoded.chunks]
        return _string_labels(encoded.chunk(encoded.num_chunks - 1).dictionary.to_pylist(), np.concatenate(indices))
    encoded = column.dictionary_encode()
    return _string_labels(encoded.dictionary.to_pylist(), encoded.indices.to_numpy(zero_copy_only=False))


def _strings_from_objects(objects: np.ndarray) -> np.ndarray:
    """An object array holding only Python strings as a label array.

    Short labels become a fixed-width unicode array; with a long one, each distinct string
    is kept once (a dict interns them: a repeated string object's hash is cached, so the
    cost does not grow with its length) and the array holds references to them.
    """
    flat = objects.ravel()
    if not _needs_objects(max(map(len, flat), default=0), flat.size):
        return flat.astype(str).reshape(objects.shape)
    interned: Dict[str, int] = {}
    codes = np.fromiter((interned.setdefault(value, len(interned)) for value in flat), dtype=np.intp, count=flat.size)
    return _string_labels(list(interned), codes).reshape(objects.shape)


def _all_strings_pandas(array: np.ndarray) -> bool:
    """Whether a 1-D object array holds only strings (pandas' C-level type inference)."""
    import pandas  # a dependency of datasets, so of evaluate

    return pandas.api.types.infer_dtype(array, skipna=False) == "string"


def _object_vector(values: Sequence[Any]) -> np.ndarray:
    """A list as a 1-D object array of its elements (nested lists stay elements)."""
    objects = np.empty(len(values), dtype=object)
    objects[:] = values
    return objects


def _python_strings(values: Sequence[Any]) -> Optional[np.ndarray]:
    """A flat list of Python strings as a label array; None if it holds anything else."""
    try:
        objects = _object_vector(values)
    except ValueError:
        return None
    return _strings_from_objects(objects) if _all_strings_pandas(objects) else None


def as_array(values: Any, name: str) -> np.ndarray:
    """Coerce one input to a NumPy array, once.

    Accepts lists and tuples (nested for N-d), NumPy arrays, torch tensors (any device,
    with or without ``requires_grad``), pandas Series/DataFrames and pyarrow arrays.
    Booleans become ``int8`` 0/1, ``float16``/``bfloat16`` become ``float32``; strings stay
    strings. Raises ``TypeError``/``ValueError`` naming ``name`` for anything else.

    Examples
    --------
    >>> as_array([0, 1, 1], "references")
    array([0, 1, 1])
    >>> as_array([0, "1"], "references")
    Traceback (most recent call last):
    ...
    TypeError: references: expected one label type, found a mix of strings and numbers (e.g. 0 and '1'); make all labels the same type.
    """
    if values is None:
        raise TypeError(f"{name}: expected an array-like of values, found None.")
    if isinstance(values, (str, bytes)) or np.isscalar(values):
        raise TypeError(f"{name}: expected an array-like (list, NumPy array, tensor), found a scalar {values!r}.")
    if isinstance(values, dict):
        raise TypeError(f"{name}: expected an array-like (list, NumPy array, tensor), found a dict.")
    module = type(values).__module__ or ""
    from_python = isinstance(values, (list, tuple))
    if module.startswith("torch") and hasattr(values, "detach"):
        tensor = values.detach().cpu()
        if str(tensor.dtype) in ("torch.bfloat16", "torch.float16"):
            tensor = tensor.float()
        array = tensor.numpy()
    elif isinstance(values, (pa.Array, pa.ChunkedArray)):
        if values.null_count:
            raise ValueError(f"{name}: expected {_MISSING_HINT}, found {values.null_count} null value(s).")
        if _is_arrow_string(values.type):
            array = _strings_from_arrow(values)  # no Python object per element
        else:
            array = values.to_numpy(zero_copy_only=False)
        if array.dtype == object and len(array) and isinstance(array[0], np.ndarray):
            array = np.stack(array)
    elif module.startswith("pandas") and hasattr(values, "to_numpy"):
        if hasattr(values, "isna") and np.asarray(values.isna()).any():
            raise ValueError(f"{name}: expected {_MISSING_HINT}, found {int(np.asarray(values.isna()).sum())} missing value(s).")
        if getattr(values, "ndim", 0) == 1 and str(values.dtype) in ("str", "string"):
            array = _strings_from_arrow(pa.chunked_array([pa.array(values)]))  # Arrow-backed text: no Python string per element
        else:
            array = values.to_numpy()
        if array.dtype == object and array.ndim == 1 and _all_strings_pandas(array):
            array = _strings_from_objects(array)  # C loops; the per-element kind check below is not needed
    elif from_python and len(values) and isinstance(values[0], str) and (strings := _python_strings(values)) is not None:
        array = strings  # no fixed-width copy as wide as the longest label
    else:
        try:
            array = np.asarray(values)
        except ValueError as error:
            raise ValueError(
                f"{name}: expected a rectangular array (every row the same length), found ragged rows ({error})."
            ) from None
    if array.dtype == object:
        array = _from_object_array(array, name)
    elif is_string_array(array):
        if from_python and not (array.ndim == 1 and all(isinstance(kind, type) and issubclass(kind, str) for kind in set(map(type, values)))):
            # np.asarray([0, "1"]) silently turns numbers into strings: check the source.
            _from_object_array(np.asarray(values, dtype=object), name)
        if array.dtype.kind == "S":
            array = array.astype(str)
    elif array.dtype.kind == "b":
        array = array.astype(np.int8)
    elif array.dtype.kind == "f" and array.dtype.itemsize < 4:
        array = array.astype(np.float32)
    elif array.dtype.kind not in "iuf":
        raise TypeError(f"{name}: expected numbers or strings, found an array of dtype {array.dtype}.")
    return array


def available_cores() -> int:
    """CPU cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # macOS and Windows have no affinity mask
        return max(1, os.cpu_count() or 1)


# Below this many elements per thread, starting threads costs more than it saves.
_MIN_ELEMENTS_PER_THREAD = 1 << 22
_MAX_THREADS = 8


def map_row_blocks(function: Any, array: np.ndarray) -> List[Any]:
    """``function(start, stop)`` over consecutive row ranges of ``array``, in threads.

    NumPy releases the GIL inside its loops, so row blocks of a large array are processed
    on several cores (up to ``available_cores()``, at most 8, and only when each thread
    gets at least 2^22 elements); a small array is one call on this thread. Returns the
    results in row order; ``function`` must write only to its own rows.
    """
    rows = array.shape[0] if array.ndim else 1
    workers = min(available_cores(), _MAX_THREADS, max(1, array.size // _MIN_ELEMENTS_PER_THREAD), max(1, rows))
    if workers == 1:
        return [function(0, rows)]
    # A few ranges per thread: a thread slowed by other work on a shared core then leaves
    # its remaining ranges to the others instead of holding up the result.
    tasks = min(rows, 4 * workers)
    bounds = [rows * task // tasks for task in range(tasks + 1)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(function, bounds[:-1], bounds[1:]))


def check_finite(array: np.ndarray, name: str) -> None:
    """Raise ``ValueError`` if a float array holds NaN or ±Inf."""
    if array.dtype.kind != "f" or not array.size:
        return
    # A finite sum means every value is finite (NaN and ±Inf propagate), in one pass and no
    # temporary; only a non-finite sum (or an overflowing one) needs the element-wise look.
    def block_sum(start: int, stop: int) -> Any:
        # (errstate is per thread: set where the sum runs) huge finite values may overflow
        with np.errstate(over="ignore", invalid="ignore"):
            return np.add.reduce(array[start:stop] if array.ndim else array, axis=None)

    if all(np.isfinite(total) for total in map_row_blocks(block_sum, array)):
        return
    finite = np.isfinite(array)
    if not finite.all():
        bad = array[~finite]
        raise ValueError(f"{name}: expected finite values, found {bad.size} non-finite value(s) such as {bad[0]}.")


SCORES_HINT = (
    "For scores or probabilities of the positive class pass threshold=0.5 (or another number) or threshold='auto'."
)


def as_labels(array: np.ndarray, name: str, scores_hint: str = SCORES_HINT) -> np.ndarray:
    """Class labels: integers or strings. Integral floats (0.0, 1.0) become integers.

    Non-integral floats are scores, not labels: the error ends with ``scores_hint``, which
    says what to do with scores (by default: pass a threshold). A metric without a
    ``threshold`` argument passes its own hint.
    """
    if array.dtype.kind == "f":
        check_finite(array, name)
        rounded = np.rint(array)
        if not np.array_equal(rounded, array):
            example = array[rounded != array][0]
            raise ValueError(
                f"{name}: expected class labels (integers or strings), found non-integer values such as "
                f"{_to_python_scalar(example)!r}. {scores_hint}"
            )
        if array.size and np.abs(array).max() >= 2.0**63:
            raise ValueError(f"{name}: expected integers that fit in 64 bits, found {np.abs(array).max()}.")
        return array.astype(np.int64)
    return array


def as_indicators(array: np.ndarray, name: str, ignore_index: Any = None, hint: str = "") -> np.ndarray:
    """0/1 indicators (e.g. a multilabel matrix) as ``int64``; ``ignore_index`` values are kept.

    Integers, booleans and integral floats (0.0, 1.0) are accepted; anything else raises,
    naming ``name`` and what was found. ``hint`` is appended to the message for non-integer
    values (e.g. how to pass probabilities instead).

    Examples
    --------
    >>> as_indicators(np.array([[1.0, 0.0], [0.0, -100.0]]), "references", ignore_index=-100).tolist()
    [[1, 0], [0, -100]]
    >>> as_indicators(np.array([[1, 2]]), "references")
    Traceback (most recent call last):
    ...
    ValueError: references: expected 0/1 values, found [2].
    """
    if is_string_array(array):
        example = f" such as {str(array.flat[0])!r}" if array.size else ""
        raise TypeError(f"{name}: expected 0/1 values (numbers or booleans), found strings{example} (dtype {array.dtype}).")
    if array.dtype.kind == "f":
        check_finite(array, name)
        integral = np.rint(array) == array
        if not integral.all():
            example = _to_python_scalar(array[~integral][0])
            raise ValueError(f"{name}: expected 0/1 values, found non-integer values such as {example!r}." + (f" {hint}" if hint else ""))
    allowed = (array == 0) | (array == 1)
    if ignore_index is not None:
        allowed |= array == ignore_index
    if not allowed.all():
        expected = "0/1 values" if ignore_index is None else f"0/1 values (or ignore_index={ignore_index!r})"
        raise ValueError(f"{name}: expected {expected}, found {_describe(np.unique(array[~allowed]))}.")
    return array.astype(np.int64)


def check_sample_weight(sample_weight: Any, num_samples: int, shape: Tuple[int, ...]) -> Optional[np.ndarray]:
    """Validate sample weights: one non-negative finite number per sample (flattened)."""
    if sample_weight is None:
        return None
    weights = as_array(sample_weight, "sample_weight")
    if weights.dtype.kind not in "iuf":
        raise TypeError(f"sample_weight: expected numbers, found values of dtype {weights.dtype}.")
    if weights.size != num_samples or weights.ndim not in (1, len(shape)):
        raise ValueError(
            f"sample_weight: expected one weight per sample ({num_samples} values or shape {tuple(shape)}), "
            f"found shape {weights.shape}."
        )
    weights = weights.reshape(-1).astype(np.float64)
    check_finite(weights, "sample_weight")
    if weights.size and weights.min() < 0:
        raise ValueError(f"sample_weight: expected non-negative weights, found {weights.min()}.")
    with np.errstate(over="ignore"):
        total = weights.sum()
    if not np.isfinite(total):
        # Counts are weighted sums: an infinite sum would make every rate NaN.
        raise ValueError(
            f"sample_weight: expected weights whose sum is a finite float64, found a sum that overflows "
            f"(largest weight {weights.max()})."
        )
    return weights


def check_flag(value: Any, name: str) -> bool:
    """A yes/no option: ``True``/``False`` (NumPy booleans and the integers 0 and 1 too)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (numbers.Integral, np.integer)) and value in (0, 1):
        return bool(value)
    raise TypeError(f"{name}: expected True or False, found {value!r}.")


def check_label_value(value: Any, name: str, example: str, allow_bool: bool = False) -> Any:
    """One class label for an option (``pos_label``, ``ignore_index``): an integer or a string.

    Integral floats (-100.0) become integers; ``allow_bool`` lets True/False stand for 1/0.
    Anything else raises, naming ``name``; ``example`` shows what fits, e.g. "such as -100".
    """
    expected = f"{name}: expected one label value (an integer {example}, or a string)"
    if isinstance(value, (str, np.str_)):
        return str(value)
    if isinstance(value, (bool, np.bool_)):
        if allow_bool:
            return int(value)
        raise TypeError(f"{expected}, found {value!r}.")
    if isinstance(value, (numbers.Integral, np.integer)):
        return int(value)
    if not isinstance(value, (numbers.Real, np.floating)):
        raise TypeError(f"{expected}, found {value!r}.")
    if not (math.isfinite(value) and float(value).is_integer()):
        # Labels are integers or strings: such a value could match no label.
        raise ValueError(f"{expected}, found {value!r}.")
    return int(value)


def check_ignore_label(ignore_index: Any) -> Any:
    """``None``, or the one label value (an integer or a string) whose samples are dropped.

    Examples
    --------
    >>> check_ignore_label(-100.0), check_ignore_label("pad")
    (-100, 'pad')
    >>> check_ignore_label([-100])
    Traceback (most recent call last):
    ...
    TypeError: ignore_index: expected one label value (an integer such as -100, or a string), found [-100].
    """
    if ignore_index is None:
        return None
    return check_label_value(ignore_index, "ignore_index", "such as -100")


def check_same_shape(predictions: np.ndarray, references: np.ndarray) -> None:
    if predictions.shape != references.shape:
        raise ValueError(
            f"predictions and references: expected the same shape, found {predictions.shape} and {references.shape}."
        )


# ----------------------------------------------------------------------------------------
# Label mapping
# ----------------------------------------------------------------------------------------


def _label_kind(array: np.ndarray) -> str:
    return "string" if is_string_array(array) else "integer"


def _check_same_kind(arrays: Dict[str, np.ndarray]) -> None:
    kinds = {name: _label_kind(array) for name, array in arrays.items() if array.size}
    if len(set(kinds.values())) > 1:
        found = ", ".join(f"{name} are {kind}s" for name, kind in kinds.items())
        raise TypeError(f"predictions and references: expected labels of one type, found {found}.")


def _object_positions(values: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Position of each value in ``classes`` (distinct), -1 if absent, by hashing.

    For string labels held as Python strings (long ones): sorting or binary search would
    compare whole strings, at a cost growing with their length; a dict compares a string
    with itself by identity, and each string's hash is computed once and cached.
    """
    lookup = {value: index for index, value in enumerate(classes.tolist())}
    return np.fromiter((lookup.get(value, -1) for value in values.ravel().tolist()), dtype=np.intp, count=values.size).reshape(values.shape)


def _map_to_classes(values: np.ndarray, classes: np.ndarray, name: str, source: str) -> np.ndarray:
    """Index of each value in ``classes`` (any order); unknown values are an error."""
    if values.dtype == object or classes.dtype == object:
        position = _object_positions(values, classes)
        if (position < 0).any():
            unknown = _sorted_distinct([values[position < 0]])
            raise ValueError(f"{name}: expected values among {source}, found unknown value(s) {_describe(unknown)}.")
        return position
    order = np.argsort(classes, kind="stable")
    sorted_classes = classes[order]
    position = np.searchsorted(sorted_classes, values)
    position_clipped = np.minimum(position, len(sorted_classes) - 1)
    known = sorted_classes[position_clipped] == values
    if not known.all():
        unknown = np.unique(values[~known])
        raise ValueError(f"{name}: expected values among {source}, found unknown value(s) {_describe(unknown)}.")
    return order[position_clipped]


def _sorted_distinct(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """The sorted distinct values of ``arrays``; Python strings are hashed, not sorted, until distinct."""
    if not any(array.dtype == object for array in arrays):
        return np.unique(np.concatenate([np.unique(array) for array in arrays]))
    distinct: Dict[Any, None] = {}
    for array in arrays:
        distinct.update(dict.fromkeys(array.ravel().tolist()))
    classes = np.empty(len(distinct), dtype=object)
    classes[:] = sorted(distinct)
    return classes


# Elements per chunk when counting through a reused intp buffer (it stays in cache).
_CHUNK = 1 << 17


def _present_values(arrays: Sequence[np.ndarray], num_values: int) -> np.ndarray:
    """Which of ``0..num_values-1`` occur in the flat, non-negative integer ``arrays``.

    Reads growing prefixes and stops once every value has been seen: when every class
    occurs (the usual case) that is after a few thousand elements, not after N.
    """
    present = np.zeros(num_values, dtype=bool)
    for array in arrays:
        start, step = 0, 1 << 12
        while start < array.size:
            present[array[start : start + step]] = True
            start += step
            step = min(2 * step, _CHUNK * 8)
            if num_values <= step and present.all():  # (checking costs O(num_values): only when cheap)
                return present
    return present


def _as_indices(array: np.ndarray) -> np.ndarray:
    """Integer labels that are already class indices: as they are if NumPy indexes and
    counts with them (any integer type that converts to ``intp`` safely), else as ``intp``."""
    return array if array.dtype.kind in "iu" and np.can_cast(array.dtype, np.intp) else array.astype(np.intp)


# A declared `num_classes` above this (and above 4 classes per sample) is not materialised
# when the caller asks for the observed classes only (see `encode_labels`).
MAX_MATERIALISED_CLASSES = 1 << 20


def encode_labels(
    references: np.ndarray,
    predictions: Optional[np.ndarray] = None,
    labels: Optional[Sequence] = None,
    num_classes: Optional[int] = None,
    observed_only: bool = False,
) -> Tuple[np.ndarray, Optional[np.ndarray], np.ndarray]:
    """Map label values to class indices ``0..K-1``.

    The classes are, in this order of precedence: ``labels`` (in the order given);
    ``0..num_classes-1`` for integer labels; otherwise the sorted distinct values seen in
    references and predictions. Memory never grows with a label's value: integer labels
    in a small non-negative range are counted directly, others are sorted.

    ``observed_only``: when ``num_classes`` is too large to materialise (above
    ``MAX_MATERIALISED_CLASSES`` and above 4 per sample, e.g. 10^9), the labels are still
    checked against it but ``classes`` holds only the observed ones (sorted); the caller
    accounts for the others, which have no samples (``encode_task`` counts them in
    ``EncodedLabels.unobserved``).

    Returns ``(reference_indices, prediction_indices, classes)``. Indices are ``intp``,
    except that integer labels which already are the indices ``0..K-1`` come back as they
    are, in their own integer type (no widening copy: stored labels are int8 or int16 and
    widening 10M of them costs as much as counting them); convert to ``intp`` before
    arithmetic that could overflow that type.

    Examples
    --------
    >>> ref, pred, classes = encode_labels(np.array(["safe", "unsafe"]), np.array(["safe", "safe"]))
    >>> ref.tolist(), pred.tolist(), classes.tolist()
    ([0, 1], [0, 0], ['safe', 'unsafe'])
    """
    arrays = {"references": references}
    if predictions is not None:
        arrays["predictions"] = predictions
    _check_same_kind(arrays)
    if labels is not None:
        if num_classes is not None and num_classes != len(labels):
            raise ValueError(f"num_classes: expected len(labels) = {len(labels)}, found {num_classes}.")
        classes = as_array(list(labels), "labels")
        if classes.ndim != 1 or classes.size == 0:
            raise ValueError(f"labels: expected a non-empty list of class values, found shape {classes.shape}.")
        if classes.dtype.kind == "f":
            classes = as_labels(classes, "labels")
        if len(np.unique(classes)) != len(classes):
            raise ValueError(f"labels: expected distinct values, found duplicates in {_describe(classes)}.")
        for name, array in arrays.items():
            if array.size and _label_kind(array) != _label_kind(classes):
                raise TypeError(f"{name}: expected {_label_kind(classes)} labels like `labels`, found {_label_kind(array)}s.")
        indices = {name: _map_to_classes(array, classes, name, "`labels`") for name, array in arrays.items()}
        return indices["references"], indices.get("predictions"), classes

    kind = _label_kind(references)
    if num_classes is not None:
        if not isinstance(num_classes, (int, np.integer)) or isinstance(num_classes, bool) or num_classes < 1:
            raise ValueError(f"num_classes: expected a positive integer, found {num_classes!r}.")
        if kind == "string":
            raise TypeError("num_classes: applies to integer labels 0..K-1, found string labels; for string labels pass `labels` instead.")
        for name, array in arrays.items():
            if array.size and (array.min() < 0 or array.max() >= num_classes):
                bad = np.unique(array[(array < 0) | (array >= num_classes)])
                raise ValueError(f"{name}: expected labels in [0, {num_classes - 1}], found {_describe(bad)}.")
        total = sum(array.size for array in arrays.values())
        if not observed_only or num_classes <= max(MAX_MATERIALISED_CLASSES, 4 * total):
            indices = {name: _as_indices(array) for name, array in arrays.items()}
            return indices["references"], indices.get("predictions"), np.arange(int(num_classes))
        # Too many classes to materialise: map to the observed ones, as without num_classes.

    non_empty = [array.ravel() for array in arrays.values() if array.size]
    if not non_empty:
        return tuple(np.zeros(0, np.intp) for _ in arrays.values()) + (np.zeros(0, np.int64),)  # type: ignore
    if kind == "integer":
        low = min(int(array.min()) for array in non_empty)
        high = max(int(array.max()) for array in non_empty)
        total = sum(array.size for array in non_empty)
        if low >= 0 and high < max(4 * total, 1 << 16):
            # Small non-negative range: count presence instead of sorting (O(n)).
            classes = np.flatnonzero(_present_values(non_empty, high + 1))
            if len(classes) == high + 1:
                indices = {name: _as_indices(array) for name, array in arrays.items()}
            else:
                lookup = np.full(high + 1, -1, dtype=np.intp)
                lookup[classes] = np.arange(len(classes))
                indices = {name: lookup[array] for name, array in arrays.items()}
            return indices["references"], indices.get("predictions"), classes.astype(np.int64)
    if any(array.dtype == object for array in non_empty):
        # Long string labels (Python strings): hashed, and only the distinct ones sorted.
        classes = _sorted_distinct(non_empty)
        indices = {name: _object_positions(array, classes) for name, array in arrays.items()}
        return indices["references"], indices.get("predictions"), classes
    # Sorted distinct values, one array at a time (a sorted copy of one array at most), then
    # each value's position among them: no concatenation and no argsort of all values.
    classes = np.unique(np.concatenate([np.unique(array) for array in non_empty]))
    indices = {name: np.searchsorted(classes, array).astype(np.intp, copy=False) for name, array in arrays.items()}
    return indices["references"], indices.get("predictions"), classes


TASKS = ("binary", "multiclass")


@dataclass
class EncodedLabels:
    """Class indices of references (and predictions), the class values, and the task.

    ``unobserved``: classes declared by a ``num_classes`` too large to materialise that
    occur in neither references nor predictions; they are not in ``classes`` (which then
    holds the sorted observed class indices) and have no samples. See ``select_classes``.
    """

    reference_indices: np.ndarray
    prediction_indices: Optional[np.ndarray]
    classes: np.ndarray
    binary: bool
    positive_index: Optional[int]
    unobserved: int = 0


def encode_task(
    references: np.ndarray,
    predictions: Optional[np.ndarray] = None,
    task: Optional[str] = None,
    labels: Optional[Sequence] = None,
    num_classes: Optional[int] = None,
    pos_label: Any = None,
) -> EncodedLabels:
    """Resolve the task (binary or multi-class) and map labels to class indices.

    ``task=None`` means binary when the labels are 0/1 integers, when two ``labels`` are
    given, or when ``pos_label`` is given; multi-class otherwise. A binary task needs its
    two classes to be known: 0/1 integers, two ``labels``, or ``pos_label`` plus at most one
    other observed class. ``predictions=None`` encodes references only (scores mode).
    """
    if task is not None and task not in TASKS:
        raise ValueError(f"task: expected one of {TASKS} or None, found {task!r}.")
    if task == "multiclass" and pos_label is not None:
        raise ValueError("pos_label: applies to task='binary' only, found task='multiclass'.")
    if pos_label is not None:
        pos_label = check_label_value(pos_label, "pos_label", "such as 1", allow_bool=True)
    if labels is not None and not isinstance(labels, (list, tuple, np.ndarray)):
        raise TypeError(f"labels: expected a list of class values, found {type(labels).__name__}.")
    wants_binary = task == "binary" or (task is None and (pos_label is not None or (labels is not None and len(labels) == 2)))
    if not wants_binary and task is None and labels is None and num_classes in (None, 2):
        # 0/1 integer labels make a binary task.
        seen = [a for a in (references, predictions) if a is not None and a.size]
        wants_binary = bool(seen) and all(
            _label_kind(a) == "integer" and a.min() >= 0 and a.max() <= 1 for a in seen
        )
    if not wants_binary:
        ref, pred, classes = encode_labels(references, predictions, labels, num_classes, observed_only=True)
        unobserved = 0 if num_classes is None or labels is not None else int(num_classes) - len(classes)
        return EncodedLabels(ref, pred, classes, False, None, unobserved)

    if num_classes is not None and num_classes != 2:
        raise ValueError(f"num_classes: a binary task has 2 classes, found num_classes={num_classes!r}.")
    if labels is not None:
        if len(labels) != 2:
            raise ValueError(f"labels: a binary task needs exactly 2 labels, found {len(labels)}.")
        class_values = list(labels)
    elif pos_label is not None:
        observed = [a for a in (references, predictions) if a is not None and a.size]
        distinct = _sorted_distinct([a.ravel() for a in observed]) if observed else np.array([])
        others = [to_python(v) for v in distinct if v != pos_label]
        if len(others) > 1:
            raise ValueError(
                f"task: binary with pos_label={pos_label!r} expects one other class, found "
                f"{len(others)} others {others[:5]}; pass task='multiclass' or the two `labels`."
            )
        if not others:
            if isinstance(pos_label, (int, np.integer)) and pos_label in (0, 1):
                others = [1 - int(pos_label)]
            else:
                raise ValueError(
                    f"labels: cannot tell the negative class, found only pos_label={pos_label!r} and expected a second "
                    f"class; pass the two `labels`."
                )
        class_values = sorted([others[0], pos_label], key=lambda v: (str(type(v)), v))
    else:
        seen = [a for a in (references, predictions) if a is not None and a.size]
        if any(_label_kind(a) != "integer" or a.min() < 0 or a.max() > 1 for a in seen):
            found = _sorted_distinct([a.ravel() for a in seen])
            raise ValueError(
                f"task: binary expects labels 0/1, found {_describe(found)}; pass `labels` (two classes) "
                f"or `pos_label`, or use task='multiclass'."
            )
        class_values = [0, 1]
    ref, pred, classes = encode_labels(references, predictions, class_values, None)
    if pos_label is None:
        positive_index = 1
    else:
        matches = [i for i, v in enumerate(class_values) if v == pos_label]
        if not matches:
            raise ValueError(f"pos_label: expected one of the labels {class_values}, found {pos_label!r}.")
        positive_index = matches[0]
    return EncodedLabels(ref, pred, classes, True, positive_index)


# ----------------------------------------------------------------------------------------
# Counting
# ----------------------------------------------------------------------------------------

# Above this many cells a dense K x K matrix is not worth it: count per class instead.
_DENSE_CONFUSION_CELLS = 1 << 20


@dataclass
class ClassCounts:
    """One-vs-rest counts per class (weighted sums when weights are given).

    ``tp[c]``: references c predicted c; ``support[c]``: references c;
    ``predicted[c]``: predictions c; ``total``: all samples (an array, per column, from
    ``column_counts``).
    """

    tp: np.ndarray
    support: np.ndarray
    predicted: np.ndarray
    total: float

    @property
    def fn(self) -> np.ndarray:
        return self.support - self.tp

    @property
    def fp(self) -> np.ndarray:
        return self.predicted - self.tp

    @property
    def tn(self) -> np.ndarray:
        return self.total - self.support - self.predicted + self.tp


def confusion_matrix(
    reference_indices: np.ndarray,
    prediction_indices: np.ndarray,
    num_classes: int,
    sample_weight: Optional[np.ndarray] = None,
) -> np.ndarray:
    """Dense ``K x K`` confusion matrix, rows = references, columns = predictions."""
    cells = num_classes * num_classes
    references, predictions = reference_indices.ravel(), prediction_indices.ravel()
    if sample_weight is not None:
        codes = references.astype(np.intp, copy=False) * num_classes + predictions
        return np.bincount(codes, weights=sample_weight, minlength=cells).reshape(num_classes, num_classes)
    # Unweighted counts are exact in any order: count chunk by chunk through one reused
    # buffer instead of materialising N codes (faster, and no O(N) temporaries). Codes of
    # narrow indices (labels read back from storage) are formed in int16 when they fit:
    # fewer bytes to write than intp, and bincount widens them chunk by chunk in cache.
    narrow = cells <= np.iinfo(np.int16).max and references.itemsize <= 2 and predictions.itemsize <= 2
    matrix = np.zeros(cells, dtype=np.int64)
    buffer = np.empty(min(references.size, _CHUNK), dtype=np.int16 if narrow else np.intp)
    for start in range(0, references.size, _CHUNK):
        codes = buffer[: min(_CHUNK, references.size - start)]
        codes[...] = references[start : start + _CHUNK]  # widened before multiplying: no overflow
        codes *= num_classes
        codes += predictions[start : start + _CHUNK]
        matrix += np.bincount(codes, minlength=cells)
    return matrix.reshape(num_classes, num_classes)


def class_counts(
    reference_indices: np.ndarray,
    prediction_indices: np.ndarray,
    num_classes: int,
    sample_weight: Optional[np.ndarray] = None,
) -> ClassCounts:
    """Per-class one-vs-rest counts in O(n + K) memory (dense matrix only when K is small).

    Examples
    --------
    >>> counts = class_counts(np.array([0, 1, 1, 2]), np.array([0, 1, 2, 2]), 3)
    >>> counts.tp.tolist(), counts.support.tolist(), counts.predicted.tolist(), counts.total
    ([1, 1, 1], [1, 2, 1], [1, 1, 2], 4)
    """
    reference_indices = reference_indices.ravel()
    prediction_indices = prediction_indices.ravel()
    if num_classes * num_classes <= _DENSE_CONFUSION_CELLS:
        matrix = confusion_matrix(reference_indices, prediction_indices, num_classes, sample_weight)
        tp, support, predicted = np.diagonal(matrix).copy(), matrix.sum(axis=1), matrix.sum(axis=0)
    else:
        correct = reference_indices == prediction_indices
        support = np.bincount(reference_indices, weights=sample_weight, minlength=num_classes)
        predicted = np.bincount(prediction_indices, weights=sample_weight, minlength=num_classes)
        tp = np.bincount(
            reference_indices[correct],
            weights=None if sample_weight is None else sample_weight[correct],
            minlength=num_classes,
        )
    if sample_weight is None:
        tp, support, predicted = (x.astype(np.int64) for x in (tp, support, predicted))
        total: float = int(reference_indices.size)
    else:
        total = float(sample_weight.sum())
    return ClassCounts(tp=tp, support=support, predicted=predicted, total=total)


def column_counts(
    reference_positive: np.ndarray,
    predicted_positive: np.ndarray,
    sample_weight: Optional[np.ndarray] = None,
    mask: Optional[np.ndarray] = None,
) -> ClassCounts:
    """Per-column binary counts of ``(N, L)`` 0/1 arrays: each column is its own positive-vs-rest task.

    ``sample_weight`` holds one weight per row; ``mask`` (``(N, L)``, True = counts) drops
    individual entries. Every field is per column, ``total`` included (the counted
    entries); ``support`` counts positives and ``predicted`` predicted positives. Counts
    are ``int64`` without weights and weighted sums with them.

    Examples
    --------
    >>> counts = column_counts(np.array([[1, 0], [0, 1], [1, 1]]), np.array([[1, 1], [0, 1], [0, 1]]))
    >>> counts.tp.tolist(), counts.support.tolist(), counts.predicted.tolist(), counts.total.tolist()
    ([1, 2], [2, 2], [1, 3], [3, 3])
    >>> column_counts(np.array([[1, 0], [0, 1]]), np.array([[1, 0], [1, 1]]), mask=np.array([[True, True], [False, True]])).fp.tolist()
    [0, 0]
    """
    counted = np.ones(reference_positive.shape, dtype=bool) if mask is None else mask.astype(bool)
    positive = reference_positive.astype(bool) & counted
    predicted = predicted_positive.astype(bool) & counted
    indicators = (positive & predicted, positive, predicted, counted)
    if sample_weight is None:
        tp, support, predicted_count, total = (np.count_nonzero(x, axis=0).astype(np.int64) for x in indicators)
    else:
        # One weight per row: weighted column sums are one vector-matrix product each.
        weights = sample_weight.astype(np.float64)
        tp, support, predicted_count, total = (weights @ x.astype(np.float64) for x in indicators)
    return ClassCounts(tp=tp, support=support, predicted=predicted_count, total=total)


def safe_ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` with NaN where the denominator is 0 (undefined rate)."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.full(np.broadcast(numerator, denominator).shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


# ----------------------------------------------------------------------------------------
# Reduction helpers
# ----------------------------------------------------------------------------------------

ZERO_DIVISION_DOC = """zero_division ("skip", 0.0 or 1.0, defaults to "skip"): a class with no
        reference samples has no recall. "skip" leaves it out of the average (as
        scikit-learn does) and reports NaN for it in per-class outputs; a number is used as
        its value and it is averaged like the others."""


def check_zero_division(zero_division: Any) -> Any:
    if isinstance(zero_division, str) and zero_division == "skip":
        return zero_division
    if isinstance(zero_division, (int, float, np.number)) and not isinstance(zero_division, bool):
        if zero_division in (0, 1):
            return float(zero_division)
    raise ValueError(f"zero_division: expected 'skip', 0.0 or 1.0, found {zero_division!r}.")


def check_class_mask(class_mask: Any, num_classes: int) -> Optional[np.ndarray]:
    """Class indices to average over (a subset of ``0..K-1``), or None for all classes."""
    if class_mask is None:
        return None
    mask = as_array(class_mask, "class_mask").ravel()
    if mask.size and mask.dtype.kind not in "iu":
        raise TypeError(f"class_mask: expected class indices (integers), found values of dtype {mask.dtype}.")
    mask = mask.astype(np.int64)
    if mask.size and (mask.min() < 0 or mask.max() >= num_classes):
        bad = mask[(mask < 0) | (mask >= num_classes)]
        raise ValueError(f"class_mask: expected indices in [0, {num_classes - 1}], found {_describe(bad)}.")
    return np.unique(mask)


def apply_zero_division(per_class: np.ndarray, zero_division: Any) -> np.ndarray:
    """Replace undefined (NaN) per-class values by ``zero_division`` unless it is "skip"."""
    if zero_division == "skip":
        return per_class
    return np.where(np.isnan(per_class), zero_division, per_class)


def masked_mean(
    per_class: np.ndarray,
    class_mask: Optional[np.ndarray],
    class_weights: Optional[np.ndarray] = None,
    unobserved: int = 0,
    zero_division: Any = "skip",
) -> Tuple[float, int]:
    """Mean over the defined (non-NaN) classes of the mask; returns (mean, how many).

    With ``class_weights`` (one non-negative weight per class) it is the weighted mean over
    those same classes, the weights renormalised to sum to 1 over them; NaN (with the
    count) when their weights sum to 0.

    ``unobserved`` more classes, not in ``per_class`` (see ``select_classes``), have no
    samples: they are left out with ``zero_division="skip"``, otherwise each has the value
    ``zero_division`` and weight 0.

    Examples
    --------
    >>> masked_mean(np.array([0.5, np.nan, 1.0]), None)
    (0.75, 2)
    >>> masked_mean(np.array([0.5, np.nan, 1.0]), None, class_weights=np.array([1.0, 5.0, 3.0]))
    (0.875, 2)
    """
    selected = per_class if class_mask is None else per_class[class_mask]
    is_defined = ~np.isnan(selected)
    defined = selected[is_defined]
    extra = 0 if zero_division == "skip" else int(unobserved)
    count = int(defined.size) + extra
    if count == 0:
        return math.nan, 0
    if class_weights is None:
        if extra:
            return float((defined.sum() + extra * float(zero_division)) / count), count
        return float(defined.mean()), count
    weights = (class_weights if class_mask is None else class_weights[class_mask])[is_defined]
    with np.errstate(over="ignore"):
        total = float(weights.sum())
    if math.isinf(total):
        # Weighted supports near float64's limit: their shares of the largest stay finite.
        weights = weights / weights.max()
        total = float(weights.sum())
    if total <= 0:
        return math.nan, count
    return float(np.dot(weights, defined) / total), count


def select_classes(class_mask: Any, encoded: EncodedLabels) -> Tuple[Optional[np.ndarray], int]:
    """``check_class_mask`` over every class of ``encoded``, unobserved ones included.

    Returns the selected positions in ``encoded.classes`` (None: all) and how many
    unobserved classes are selected, for ``masked_mean``.

    Examples
    --------
    >>> encoded = encode_task(np.array([3, 7]), np.array([3, 3]), num_classes=10**9)
    >>> encoded.classes.tolist(), encoded.unobserved
    ([3, 7], 999999998)
    >>> mask, unobserved = select_classes([0, 7], encoded)
    >>> mask.tolist(), unobserved
    ([1], 1)
    """
    mask = check_class_mask(class_mask, len(encoded.classes) + encoded.unobserved)
    if not encoded.unobserved:
        return mask, 0
    if mask is None:
        return None, encoded.unobserved
    # With unobserved classes, `classes` are the sorted observed class indices themselves.
    position = np.searchsorted(encoded.classes, mask)
    observed = position < len(encoded.classes)
    observed[observed] = encoded.classes[position[observed]] == mask[observed]
    return position[observed], int(mask.size - observed.sum())


def check_per_class_output(encoded: EncodedLabels, name: str) -> None:
    """Per-class lists need every class materialised: refuse them for unobserved classes."""
    if encoded.unobserved:
        total = len(encoded.classes) + encoded.unobserved
        raise ValueError(
            f"{name}: per-class lists need at most {MAX_MATERIALISED_CLASSES:,} classes (or 4 per sample), "
            f"found num_classes={total:,}; pass `labels` with the classes to report instead."
        )


# ----------------------------------------------------------------------------------------
# Thresholds
# ----------------------------------------------------------------------------------------

THRESHOLD_TIE_RULE = (
    "Candidate thresholds are +inf (nothing positive), the midpoints between adjacent distinct "
    "scores, and the lowest score (everything positive); a sample is positive iff score >= threshold. "
    "Samples of weight 0 are left out, as scikit-learn's roc_curve leaves them out. "
    "The threshold with the highest TPR + TNR wins; among equally good ones the highest threshold "
    "(fewest predicted positives) wins."
)


def youden_thresholds(
    scores: np.ndarray,
    positives: np.ndarray,
    weights: Optional[np.ndarray] = None,
    mask: Optional[np.ndarray] = None,
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column, the threshold maximising TPR + TNR (Youden's J), in one sort per column.

    ``scores``, ``positives`` (0/1) and ``weights`` are ``(N, L)``; columns are searched
    independently and at once (no Python loop over samples or columns). ``mask``
    (``(N, L)``, True = counts) drops individual entries: they influence neither the counts
    nor the candidate cut points. Ties follow ``THRESHOLD_TIE_RULE``. Returns
    ``(thresholds, tpr, tnr)``, each of length L; TPR (TNR) is NaN for a column with no
    positive (negative) weight; a column with nothing counted gets threshold +inf.

    Examples
    --------
    >>> thresholds, tpr, tnr = youden_thresholds(np.array([[0.2], [0.9], [0.1], [0.3]]), np.array([[0], [1], [1], [0]]))
    >>> thresholds.tolist(), tpr.tolist(), tnr.tolist()
    ([0.6], [0.5], [1.0])
    >>> mask = np.array([[True], [True], [False], [True]])  # without the positive scored 0.1
    >>> youden_thresholds(np.array([[0.2], [0.9], [0.1], [0.3]]), np.array([[0], [1], [1], [0]]), mask=mask)[0].tolist()
    [0.6]
    """
    num_samples, num_columns = scores.shape
    if num_samples == 0:
        return np.full(num_columns, np.inf), np.full(num_columns, np.nan), np.full(num_columns, np.nan)
    if weights is not None and not weights.all():
        # A weight-0 sample counts for nothing, so it must not place a cut point either.
        counted = np.broadcast_to(weights != 0, scores.shape)
        mask = counted if mask is None else (mask.astype(bool) & counted)
    with np.errstate(over="ignore", invalid="ignore"):  # huge finite scores may overflow the sum
        all_finite = scores.dtype.kind == "f" and np.isfinite(np.add.reduce(scores, axis=None))
    if weights is None and all_finite:
        return _youden_unweighted(scores, positives, mask)
    if weights is None:
        weights = np.ones(scores.shape)
    positives = positives.astype(bool)
    if mask is None:
        order = np.argsort(-scores, axis=0, kind="stable")
        num_counted = np.full(num_columns, num_samples)
    else:
        mask = mask.astype(bool)
        # Masked entries sort after every counted one (still one sort per column) and weigh nothing.
        order = np.lexsort((-scores, ~mask), axis=0)
        num_counted = mask.sum(axis=0)
        weights = np.where(mask, weights, 0.0)
    sorted_scores = np.take_along_axis(scores, order, axis=0)
    sorted_weights = np.take_along_axis(weights, order, axis=0)
    sorted_positive = np.take_along_axis(positives, order, axis=0)
    cumulative_tp = np.cumsum(np.where(sorted_positive, sorted_weights, 0.0), axis=0)
    cumulative_fp = np.cumsum(np.where(sorted_positive, 0.0, sorted_weights), axis=0)
    total_positive, total_negative = cumulative_tp[-1], cumulative_fp[-1]
    # A cut after row i (rows 0..i positive) is valid only where the next score differs, and
    # after the last counted row (everything positive); the rows after it are masked entries.
    rows = np.arange(num_samples)[:, None]
    is_cut = np.ones(scores.shape, dtype=bool)
    is_cut[:-1] = sorted_scores[:-1] != sorted_scores[1:]
    is_cut = (is_cut & (rows < num_counted)) | (rows == num_counted - 1)
    tpr = safe_ratio(cumulative_tp, total_positive)
    tnr = safe_ratio(total_negative - cumulative_fp, total_negative)
    youden = np.nan_to_num(tpr, nan=0.0) + np.nan_to_num(tnr, nan=1.0)
    youden = np.where(is_cut, youden, -np.inf)
    # Candidate 0 is "nothing positive" (threshold +inf, J = 0); then cuts in descending order.
    nothing_positive = np.nan_to_num(safe_ratio(np.zeros(num_columns), total_positive), nan=0.0) + np.nan_to_num(
        safe_ratio(total_negative, total_negative), nan=1.0
    )
    candidates = np.vstack([nothing_positive[None, :], youden])
    best = np.argmax(candidates, axis=0)  # first maximum = highest threshold among ties
    columns = np.arange(num_columns)
    row = np.maximum(best - 1, 0)
    upper = sorted_scores[row, columns]
    lower = sorted_scores[np.minimum(row + 1, num_samples - 1), columns]
    midpoint = _midpoints(upper, lower)
    # Rounding can put the midpoint on the lower score, which would then count as positive.
    midpoint = np.where(midpoint > lower, midpoint, upper)
    thresholds = np.where(row + 1 < num_counted, midpoint, upper)
    thresholds = np.where(best == 0, np.inf, thresholds)
    best_tpr = np.where(best == 0, safe_ratio(np.zeros(num_columns), total_positive), tpr[row, columns])
    best_tnr = np.where(best == 0, safe_ratio(total_negative, total_negative), tnr[row, columns])
    return thresholds, best_tpr, best_tnr


def _midpoints(upper: np.ndarray, lower: np.ndarray) -> np.ndarray:
    """``(upper + lower) / 2``; where that overflows (finite scores near the float maximum),
    ``upper / 2 + lower / 2`` instead (equal wherever the first does not overflow)."""
    with np.errstate(over="ignore"):
        midpoint = (upper + lower) / 2
    overflowed = np.isinf(midpoint) & np.isfinite(upper) & np.isfinite(lower)
    if overflowed.any():
        midpoint = np.where(overflowed, upper / 2 + lower / 2, midpoint)
    return midpoint


# Entries per block of columns searched at once by the unweighted path (memory stays bounded).
_YOUDEN_BLOCK = 1 << 21


def _youden_unweighted(scores: np.ndarray, positives: np.ndarray, mask: Optional[np.ndarray]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``youden_thresholds`` without weights, for finite scores: the same results, faster.

    Unweighted counts are exact integers, so the order of tied scores cannot change them:
    the fast (unstable) sort serves, and true/false positives are one integer cumsum. The
    columns go in blocks, each transposed so that every column is sorted as a contiguous row.
    """
    num_samples, num_columns = scores.shape
    thresholds = np.empty(num_columns, dtype=scores.dtype)  # as the general path: thresholds in the scores' type
    best_tpr, best_tnr = np.empty(num_columns), np.empty(num_columns)
    width = max(1, _YOUDEN_BLOCK // num_samples)

    def search(first: int, last: int) -> None:
        for start in range(first, last, width):
            block = slice(start, min(start + width, last))
            found = _youden_rows(scores[:, block].T, positives[:, block].T, None if mask is None else mask[:, block].T)
            thresholds[block], best_tpr[block], best_tnr[block] = found

    # Columns are searched independently: ranges of them run on several cores (NumPy sorts
    # without holding the GIL), each range in blocks of at most _YOUDEN_BLOCK entries.
    map_row_blocks(search, scores.T)
    return thresholds, best_tpr, best_tnr


def _youden_rows(scores: np.ndarray, positives: np.ndarray, mask: Optional[np.ndarray]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unweighted search on ``(C, N)`` rows, one row per column of the caller."""
    num_rows, num_samples = scores.shape
    key = np.negative(scores, order="C")  # ascending key = descending scores (same float type)
    positive = np.array(positives, dtype=bool, order="C")
    if mask is None:
        num_counted = np.full(num_rows, num_samples)
    else:
        counted = np.array(mask, dtype=bool, order="C")
        key[~counted] = np.inf  # masked entries sort after every counted one and count nothing
        positive &= counted
        num_counted = counted.sum(axis=1)
    order = np.argsort(key, axis=1)
    key = np.take_along_axis(key, order, axis=1)
    true_positives = np.cumsum(np.take_along_axis(positive, order, axis=1), axis=1)
    del order, positive
    total_positive = true_positives[:, -1]
    total_negative = num_counted - total_positive
    false_positives = np.arange(1, num_samples + 1) - true_positives  # valid on counted rows
    # J = TPR + TNR with an undefined rate counting as 0 (TPR) or 1 (TNR), as in youden_thresholds.
    youden = true_positives / np.maximum(total_positive, 1)[:, None]
    negative_part = (total_negative[:, None] - false_positives) / np.maximum(total_negative, 1)[:, None]
    negative_part[total_negative == 0] = 1.0
    youden += negative_part
    del negative_part
    ranks = np.arange(num_samples)
    is_cut = np.ones(key.shape, dtype=bool)
    is_cut[:, :-1] = key[:, :-1] != key[:, 1:]
    is_cut = (is_cut & (ranks < num_counted[:, None])) | (ranks == num_counted[:, None] - 1)
    youden[~is_cut] = -np.inf
    # "Nothing positive" has J = 1 (TPR 0, TNR 1) and wins ties: a cut must do strictly better.
    best_cut = np.argmax(youden, axis=1)
    rows = np.arange(num_rows)
    improves = youden[rows, best_cut] > 1.0
    row = np.where(improves, best_cut, 0)
    upper = -key[rows, row]
    lower = -key[rows, np.minimum(row + 1, num_samples - 1)]
    midpoint = _midpoints(upper, lower)
    # Rounding can put the midpoint on the lower score, which would then count as positive.
    midpoint = np.where(midpoint > lower, midpoint, upper)
    thresholds = np.where(row + 1 < num_counted, midpoint, upper)
    thresholds = np.where(improves, thresholds, np.inf)
    zeros = np.zeros(num_rows)
    best_tpr = np.where(improves, safe_ratio(true_positives[rows, row], total_positive), safe_ratio(zeros, total_positive))
    best_tnr = np.where(
        improves,
        safe_ratio(total_negative - false_positives[rows, row], total_negative),
        safe_ratio(total_negative, total_negative),
    )
    return thresholds, best_tpr, best_tnr


def roc_curve(
    scores: np.ndarray, positives: np.ndarray, weights: Optional[np.ndarray] = None
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ROC curve of one score column: ``(thresholds, fpr, tpr)``, thresholds descending.

    A sample is positive iff score >= threshold. The points are +inf (nothing positive)
    and each distinct score: the cut points ``youden_thresholds`` chooses among (it
    returns the midpoint below the best of them). ``weights`` make the rates weighted;
    FPR (TPR) is NaN when there is no negative (positive) weight.

    Examples
    --------
    >>> thresholds, fpr, tpr = roc_curve(np.array([0.2, 0.9, 0.1, 0.3]), np.array([0, 1, 1, 0]))
    >>> thresholds.tolist(), fpr.tolist(), tpr.tolist()
    ([inf, 0.9, 0.3, 0.2, 0.1], [0.0, 0.0, 0.5, 1.0, 1.0], [0.0, 0.5, 0.5, 0.5, 1.0])
    """
    scores = np.asarray(scores, dtype=np.float64).ravel()
    positives = np.asarray(positives).astype(bool).ravel()
    weights = np.ones(scores.shape) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    order = np.argsort(-scores, kind="stable")
    sorted_scores, sorted_positive, sorted_weights = scores[order], positives[order], weights[order]
    cumulative_tp = np.concatenate([[0.0], np.cumsum(np.where(sorted_positive, sorted_weights, 0.0))])
    cumulative_fp = np.concatenate([[0.0], np.cumsum(np.where(sorted_positive, 0.0, sorted_weights))])
    # A point after the last sample of each run of equal scores (and the empty cut first).
    is_point = np.ones(scores.size + 1, dtype=bool)
    is_point[1:-1] = sorted_scores[:-1] != sorted_scores[1:]
    thresholds = np.concatenate([[np.inf], sorted_scores])[is_point]
    tp, fp = cumulative_tp[is_point], cumulative_fp[is_point]
    return thresholds, safe_ratio(fp, cumulative_fp[-1]), safe_ratio(tp, cumulative_tp[-1])


def check_threshold(threshold: Any, allow_auto: bool = True) -> Any:
    """``None``, ``"auto"`` or a number in [0, 1]."""
    if threshold is None:
        return None
    if isinstance(threshold, str):
        if threshold == "auto" and allow_auto:
            return threshold
        raise ValueError(f"threshold: expected a number in [0, 1] or 'auto', found {threshold!r}.")
    if isinstance(threshold, bool) or not isinstance(threshold, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"threshold: expected a number in [0, 1] or 'auto', found {type(threshold).__name__}.")
    if not 0.0 <= float(threshold) <= 1.0:
        raise ValueError(f"threshold: expected a number in [0, 1], found {threshold!r}.")
    return float(threshold)


def check_probabilities(scores: np.ndarray, name: str = "predictions") -> None:
    if scores.dtype.kind not in "iuf":
        raise TypeError(f"{name}: expected numeric probabilities, found values of dtype {scores.dtype}.")
    check_finite(scores, name)
    if scores.size and (scores.min() < 0 or scores.max() > 1):
        raise ValueError(
            f"{name}: expected probabilities in [0, 1] with a numeric threshold, found values in "
            f"[{scores.min()}, {scores.max()}]; use threshold='auto' for logits or other scores."
        )


def check_scores(scores: np.ndarray, name: str = "predictions") -> None:
    if scores.dtype.kind not in "iuf":
        raise TypeError(f"{name}: expected numeric scores, found values of dtype {scores.dtype}.")
    check_finite(scores, name)


# ----------------------------------------------------------------------------------------
# Results
# ----------------------------------------------------------------------------------------


def _to_python_scalar(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return value


def to_python(value: Any) -> Any:
    """Plain Python (float/int/str/list/dict) for JSON and Trainer checkpoints."""
    if isinstance(value, dict):
        return {to_python(key): to_python(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_python(item) for item in value]
    if isinstance(value, np.ndarray):
        return [to_python(item) for item in value.tolist()]
    return _to_python_scalar(value)


def undefined_result(metric_name: str, reason: str) -> Dict[str, Any]:
    return {metric_name: math.nan, "reason": reason}


# ----------------------------------------------------------------------------------------
# The evaluate.Metric base
# ----------------------------------------------------------------------------------------

STRING_STORAGE = "string"


_INTEGER_LIMITS = {
    np.dtype(f"{sign}int{bits}"): (int(np.iinfo(f"{sign}int{bits}").min), int(np.iinfo(f"{sign}int{bits}").max))
    for bits in (8, 16, 32, 64)
    for sign in ("", "u")
}


def narrowest_integer_dtype(low: int, high: int, prefer_unsigned: bool = False) -> np.dtype:
    """The narrowest NumPy integer dtype holding every value in ``[low, high]``.

    At equal width a signed type is chosen (a later -100 padding value then still fits)
    unless ``prefer_unsigned`` (the values came as an unsigned array, e.g. uint8 masks) or
    only the unsigned type fits (0..255 is ``uint8``). Raises ``ValueError`` when no 64-bit
    type holds the range.

    Examples
    --------
    >>> [str(narrowest_integer_dtype(*r)) for r in [(0, 9), (-100, 9), (0, 255), (-1, 255), (0, 70000), (0, 2**40)]]
    ['int8', 'int8', 'uint8', 'int16', 'int32', 'int64']
    >>> str(narrowest_integer_dtype(0, 9, prefer_unsigned=True))
    'uint8'
    """
    for bits in (8, 16, 32, 64):
        signed, unsigned = np.dtype(f"int{bits}"), np.dtype(f"uint{bits}")
        fits_signed = _INTEGER_LIMITS[signed][0] <= low and high <= _INTEGER_LIMITS[signed][1]
        fits_unsigned = low >= 0 and high <= _INTEGER_LIMITS[unsigned][1]
        if fits_unsigned and (prefer_unsigned or not fits_signed):
            return unsigned
        if fits_signed:
            return signed
    raise ValueError(f"expected integers that fit in 64 bits (signed or unsigned), found values in [{low}, {high}].")


@dataclass(frozen=True)
class StoredColumn:
    """How one input column is stored: its value type, row width and the integer range seen.

    ``dtype`` is a NumPy dtype, or ``STRING_STORAGE`` for string labels; ``width`` is the
    row length of a 2-D column (None for a flat one); ``low``/``high`` is the range of the
    integer values stored so far (None when nothing non-empty was stored yet).
    """

    dtype: Any
    width: Optional[int]
    low: Optional[int] = None
    high: Optional[int] = None

    @property
    def feature_key(self) -> Tuple[Any, Optional[int]]:
        """What fixes the Arrow type: value type and row width (not the range seen)."""
        return self.dtype, self.width

    @property
    def feature(self):
        value = datasets.Value(STRING_STORAGE if self.dtype == STRING_STORAGE else self.dtype.name)
        return value if self.width is None else datasets.Sequence(value, length=self.width)


def plan_storage(array: np.ndarray, name: str, stored: Optional[StoredColumn], scores_hint: str = SCORES_HINT) -> Tuple[StoredColumn, np.ndarray]:
    """Decide how a validated batch column is stored, given how the earlier batches are.

    Integer labels get the narrowest integer type that holds every value stored so far
    (one min and one max over the batch); floats keep float32 or float64; strings stay
    strings. A batch that needs a wider type than the earlier ones returns the wider
    ``StoredColumn`` (the caller then rewrites what is stored, once, in the wider type); a
    batch of another kind (strings after numbers, non-integral floats after integer labels,
    rows of another width) raises, naming ``name``. Returns ``(storage, array to store)``.

    Examples
    --------
    >>> first, _ = plan_storage(np.array([0, 3, 9]), "references", None)
    >>> first
    StoredColumn(dtype=dtype('int8'), width=None, low=0, high=9)
    >>> plan_storage(np.array([-100, 300]), "references", first)[0]
    StoredColumn(dtype=dtype('int16'), width=None, low=-100, high=300)
    >>> plan_storage(np.array(["a"]), "references", first)
    Traceback (most recent call last):
    ...
    TypeError: references: expected int8 values like the earlier batches, found strings (dtype <U1).
    """
    width = array.shape[1] if array.ndim == 2 else None
    if stored is not None and stored.width != width:
        raise ValueError(f"{name}: expected rows of length {stored.width} like the earlier batches, found {width}.")
    if is_string_array(array):
        if stored is not None and stored.dtype != STRING_STORAGE:
            raise TypeError(f"{name}: expected {stored.dtype} values like the earlier batches, found strings (dtype {array.dtype}).")
        return StoredColumn(STRING_STORAGE, width), array
    if stored is not None and stored.dtype == STRING_STORAGE:
        raise TypeError(f"{name}: expected string labels like the earlier batches, found dtype {array.dtype}.")
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{name}: expected numbers or strings, found dtype {array.dtype}.")
    if array.dtype.kind == "f" and (stored is None or stored.dtype.kind == "f"):
        dtype = array.dtype if stored is None else np.promote_types(stored.dtype, array.dtype)
        return StoredColumn(dtype, width), array
    if array.dtype.kind == "f":
        array = as_labels(array, name, scores_hint)  # integral floats are labels like the earlier batches
    if array.size == 0:
        return (stored or StoredColumn(np.dtype(np.int8), width)), array
    low, high = int(array.min()), int(array.max())
    if stored is not None and stored.dtype.kind == "f":
        # Integers after scores are stored as scores (exactly: float32 only for small integers).
        return StoredColumn(np.promote_types(stored.dtype, narrowest_integer_dtype(low, high)), width), array
    if stored is not None and stored.low is not None:
        low, high = min(low, stored.low), max(high, stored.high)
        if _INTEGER_LIMITS[stored.dtype][0] <= low and high <= _INTEGER_LIMITS[stored.dtype][1]:
            return StoredColumn(stored.dtype, width, low, high), array
    prefer_unsigned = (stored.dtype if stored is not None else array.dtype).kind == "u"
    try:
        dtype = narrowest_integer_dtype(low, high, prefer_unsigned)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None
    return StoredColumn(dtype, width, low, high), array


def _declared_storage(feature: Any) -> StoredColumn:
    """The ``StoredColumn`` a feature declares (no values seen yet)."""
    width = None
    if not isinstance(feature, datasets.Value):
        feature, width = feature.feature, feature.length
    return StoredColumn(STRING_STORAGE if feature.dtype == STRING_STORAGE else np.dtype(feature.dtype), width)


def _stored_nbytes(array: np.ndarray, storage: StoredColumn) -> int:
    """Bytes of a numeric batch column in its storage type (strings: a lower bound)."""
    return array.size * (1 if storage.dtype == STRING_STORAGE else storage.dtype.itemsize)


def _arrow_column(array: np.ndarray, storage: StoredColumn, copy: bool) -> pa.Array:
    """One batch column as an Arrow array of the storage type, without per-element Python.

    ``copy=False`` lets the Arrow array share the batch's memory when it already has the
    storage type (uint8 masks, say): only for a batch written at once, never for one the
    store holds in memory, where the caller could change it before it is written.
    """
    if storage.dtype == STRING_STORAGE:
        flat = pa.array(array.reshape(-1), type=pa.string())
    else:
        # astype(copy=True) is one conversion when the type changes, a copy when it does not.
        flat = pa.array(np.ascontiguousarray(array.astype(storage.dtype, copy=copy)).reshape(-1))
    return flat if storage.width is None else pa.FixedSizeListArray.from_arrays(flat, storage.width)


def _read_arrow_stream(source: Any) -> pa.Table:
    """A table written by ``_StoreWriter`` (an Arrow IPC stream), zero-copy from ``source``."""
    return pa.ipc.open_stream(source).read_all()


def _value_dtype(arrow_type: pa.DataType) -> Any:
    if pa.types.is_fixed_size_list(arrow_type):
        arrow_type = arrow_type.value_type
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return STRING_STORAGE
    return np.dtype(arrow_type.to_pandas_dtype())


def _concat_stored(tables: Sequence[pa.Table], names: Sequence[str]) -> pa.Table:
    """One table from the stores of several processes, each column in a type that holds all.

    Each process chose its storage types from its own batches (e.g. int8 in one, int16 in
    another): the common type is the NumPy promotion of theirs.
    """
    tables = [table.select(list(names)).replace_schema_metadata(None) for table in tables]
    if len(tables) == 1:
        return tables[0]
    fields = []
    for name in names:
        types = [table.schema.field(name).type for table in tables]
        widths = {t.list_size if pa.types.is_fixed_size_list(t) else None for t in types}
        if len(widths) > 1:
            raise ValueError(f"{name}: expected rows of one length in every process, found lengths {sorted(widths, key=str)}.")
        dtypes = [_value_dtype(t) for t in types]
        if STRING_STORAGE in dtypes:
            if any(d != STRING_STORAGE for d in dtypes):
                raise TypeError(f"{name}: expected labels of one type in every process, found strings and numbers.")
            common = pa.string()
        else:
            promoted = dtypes[0]
            for dtype in dtypes[1:]:
                promoted = np.promote_types(promoted, dtype)
            if promoted.kind == "f" and all(d.kind in "iu" for d in dtypes):
                raise ValueError(f"{name}: the processes stored integers with no common 64-bit type ({sorted(map(str, set(dtypes)))}).")
            common = pa.from_numpy_dtype(promoted)
        width = widths.pop()
        fields.append(pa.field(name, common if width is None else pa.list_(common, width)))
    schema = pa.schema(fields)
    return pa.concat_tables([table.cast(schema) for table in tables])


# Batches smaller than this are gathered in memory before they are written to the store.
STORE_BUFFER_BYTES = 1 << 25


class _StoreWriter:
    """Writes batch tables to one store (a cache file or a buffer) as an Arrow IPC stream.

    The stream format is what datasets' ``ArrowWriter`` writes (read back by
    ``_read_arrow_stream``), without its per-call work for per-example writing and type
    inference. Small batches are gathered and written as one record batch before they
    would exceed ``buffer_bytes`` (and on ``finalize``), as ``ArrowWriter`` gathers
    examples: writing 100 batches of 100k labels then costs one write, not 100, and the
    store is read back as one contiguous chunk. At most ``buffer_bytes`` are held in memory
    (and copied once into the record batch when written).
    """

    def __init__(self, stream: Any, features: datasets.Features, buffer_bytes: int = STORE_BUFFER_BYTES):
        self.stream = stream
        self.schema = features.arrow_schema
        self.buffer_bytes = buffer_bytes
        self._writer = pa.ipc.new_stream(stream, self.schema)
        self._pending: List[pa.Table] = []
        self._pending_bytes = 0
        self._written = False  # whether any batch has reached the stream
        self.num_rows = 0

    def holds(self, nbytes: int) -> bool:
        """Whether a batch of about ``nbytes`` would be held in memory (not written at once)."""
        return nbytes < self.buffer_bytes

    def write_table(self, table: pa.Table) -> None:
        # Batch tables carry no schema metadata; their types are already the store's.
        table = table if table.schema.equals(self.schema) else table.cast(self.schema)
        self.num_rows += table.num_rows
        if not self.holds(table.nbytes):
            self.flush()  # keeps the batches in order
            self._writer.write_table(table)
            self._written = True
            return
        if self._pending_bytes + table.nbytes > self.buffer_bytes:
            self.flush()
        self._pending.append(table)
        self._pending_bytes += table.nbytes

    def flush(self) -> None:
        if self._pending:
            table = self._pending[0] if len(self._pending) == 1 else pa.concat_tables(self._pending).combine_chunks()
            self._writer.write_table(table)
            self._written = True
        self._pending, self._pending_bytes = [], 0

    def take_unwritten(self) -> Optional[pa.Table]:
        """Every batch, as one table, if none has reached the stream yet (all are held here);
        else None. The writer then holds nothing: what ``finalize`` writes is an empty store."""
        if self._written or not self._pending:
            return None
        table = pa.concat_tables(self._pending)
        self._pending, self._pending_bytes = [], 0
        return table

    def __len__(self) -> int:
        return self.num_rows

    def finalize(self) -> None:
        self.flush()
        self._writer.close()
        self.stream.close()


class ConfusionMetric(evaluate.Metric, metaclass=abc.ABCMeta):
    """Base for metrics that reduce confusion counts.

    Inputs are coerced and validated once per batch and written to evaluate's storage (its
    cache file or in-memory buffer) as whole Arrow columns of the narrowest type that holds
    them, so ``add``/``add_batch``/``compute`` keep evaluate's behaviour (cache files,
    ``keep_in_memory``, distributed ``num_process``/``process_id``) without per-element
    encoding; ``compute`` reads the columns back as NumPy arrays. Batches smaller than
    ``STORE_BUFFER_BYTES`` (32 MB) are gathered in memory, as copies, and written together
    before they would exceed it (see ``_StoreWriter``); a single process whose batches are
    all still held at ``compute`` reads them from memory (its cache file stays empty).
    Subclasses implement ``_reduce`` on NumPy arrays and may set ``_ROW_NDIM``: ``None`` to
    flatten inputs of any shape to 1-D, or ``1`` to keep rows of a fixed length (stored as
    fixed-size lists, returned as ``(N, L)`` arrays).

    The storage type of a column is fixed by the batches written so far. A later batch
    whose values need a wider type (a label 300 after labels 0..9 stored as int8, say)
    makes the store be rewritten once in the wider type; as a column only widens (8 -> 16
    -> 32 -> 64 bits), this happens at most three times per column. Each process of a
    distributed run chooses its own types; process 0 reads every store in a common type.
    """

    _ROW_NDIM: Dict[str, Optional[int]] = {"predictions": None, "references": None}
    # Columns whose values ``_reduce`` checks for finiteness itself while it reads them
    # anyway: a one-call compute then reads them once, not twice (add_batch still checks
    # them before they are stored, and ``_reduce`` raises the same error).
    _FINITE_CHECKED_BY_REDUCE: Tuple[str, ...] = ()
    # What the "found non-integer values" error tells users to do with scores.
    _SCORES_HINT: str = SCORES_HINT
    _stored_columns: Optional[Dict[str, StoredColumn]] = None

    @abc.abstractmethod
    def _reduce(self, *, predictions: np.ndarray, references: np.ndarray, **kwargs) -> Dict[str, Any]:
        """Reduce NumPy predictions/references to a plain-Python result dict."""

    def _prepare_batch(self, predictions: Any, references: Any, stored: bool = True) -> Dict[str, np.ndarray]:
        """Coerce and validate one batch; returns the columns to store (flat or 2-D).

        ``stored=False`` (a one-call compute, reduced at once): the columns named in
        ``_FINITE_CHECKED_BY_REDUCE`` are left for ``_reduce`` to check.
        """
        columns = {"predictions": as_array(predictions, "predictions"), "references": as_array(references, "references")}
        if self._ROW_NDIM["predictions"] is None and self._ROW_NDIM["references"] is None:
            check_same_shape(columns["predictions"], columns["references"])
        for name, array in columns.items():
            if array.dtype.kind == "f" and (stored or name not in self._FINITE_CHECKED_BY_REDUCE):
                check_finite(array, name)
            if self._ROW_NDIM[name] is None:
                columns[name] = array.reshape(-1)
            elif array.ndim != 2:
                raise ValueError(f"{name}: expected a 2-D array (samples x columns), found shape {array.shape}.")
        lengths = {name: len(array) for name, array in columns.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(
                f"predictions and references: expected the same number of samples, found "
                f"{lengths['predictions']} and {lengths['references']}."
            )
        if self._ROW_NDIM["predictions"] == self._ROW_NDIM["references"] == 1:
            check_same_shape(columns["predictions"], columns["references"])  # rows of the same width
        return columns

    def _stored_features(self, columns: Dict[str, np.ndarray]) -> datasets.Features:
        """Storage features for a first batch: the narrowest types that hold it.

        A subclass may override this to declare a float type for a column whose first batch
        holds integers (scores given as exact 0/1), so that later float batches fit.
        """
        return datasets.Features(
            {name: plan_storage(array, name, None, self._SCORES_HINT)[0].feature for name, array in columns.items()}
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of predictions and references to the metric's store.

        The batch is validated as a whole and stored as columns; an invalid batch raises
        and leaves the earlier batches untouched.
        """
        if kwargs:
            raise ValueError(f"Bad inputs for evaluation module: {list(kwargs)}. All required inputs are {self._feature_names()}")
        columns = self._prepare_batch(predictions, references)
        previous = self._stored_columns if self.writer is not None and len(self.writer) else None
        if previous is None:
            # Nothing stored yet (or only empty batches): this batch decides the storage types.
            declared = self._stored_features(columns)
            basis = {name: _declared_storage(declared[name]) for name in columns}
        else:
            basis = previous
        plans = {name: plan_storage(array, name, basis[name], self._SCORES_HINT) for name, array in columns.items()}
        # Everything is checked: from here on the store changes.
        storage = {name: plan[0] for name, plan in plans.items()}
        if previous is None or any(storage[name].feature_key != previous[name].feature_key for name in storage):
            features = datasets.Features({name: column.feature for name, column in storage.items()})
            if self.writer is None:
                self.selected_feature_format = features
                self._init_writer()
            elif features != self.selected_feature_format:
                self._rewrite_store(features)
        self._stored_columns = storage
        # A batch the writer holds in memory must not share the caller's arrays (see _arrow_column).
        copy = self.writer.holds(sum(_stored_nbytes(array, storage[name]) for name, (_, array) in plans.items()))
        table = pa.table({name: _arrow_column(array, storage[name], copy) for name, (_, array) in plans.items()})
        self.writer.write_table(table)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one prediction and reference to the metric's store."""
        if kwargs:
            raise ValueError(f"Bad inputs for evaluation module: {list(kwargs)}. All required inputs are {self._feature_names()}")
        self.add_batch(predictions=_one_row(prediction, "prediction"), references=_one_row(reference, "reference"))

    def _open_writer(self) -> None:
        """A fresh writer for the store (the buffer, or this process's cache file)."""
        if self.keep_in_memory:
            self.buf_writer = pa.BufferOutputStream()
            self.writer = _StoreWriter(self.buf_writer, self.selected_feature_format)
        else:
            self.writer = _StoreWriter(open(self.cache_file_name, "wb"), self.selected_feature_format)

    def _init_writer(self, timeout=1):
        # evaluate's own set-up (the cache file, its lock, the distributed rendez-vous); then
        # our writer in place of the ArrowWriter it opened, which has written nothing yet.
        super()._init_writer(timeout=timeout)
        self.writer.stream.close()
        self._open_writer()

    def _rewrite_store(self, features: datasets.Features) -> None:
        """Rewrite what is stored in wider types (see the class docstring)."""
        self.writer.finalize()
        if self.keep_in_memory:
            stored = _read_arrow_stream(self.buf_writer.getvalue())
        else:
            with pa.OSFile(self.cache_file_name, "rb") as source:  # into memory: the file is rewritten below
                stored = _read_arrow_stream(source)
        self.selected_feature_format = features
        self._open_writer()
        widened = stored.replace_schema_metadata(None).cast(pa.schema(features.type))
        self.writer.write_table(widened)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Compute the metric on the stored batches plus the given predictions/references.

        With a single process and nothing stored yet, the inputs are reduced directly
        (the result is the same as storing and reading them back, minus the copy).
        Otherwise this is evaluate's ``compute``: the batches of every process are read
        back (process 0 gathers them and returns the result, the others return None) and
        the cache files are removed.
        """
        self._check_compute_arguments(kwargs)  # a typo fails here, before the store is read and removed
        if self.writer is None and self.num_process == 1 and predictions is not None and references is not None:
            columns = self._prepare_batch(predictions, references, stored=False)
            with temp_seed(self.seed):
                return self._reduce(**columns, **kwargs)
        if predictions is not None or references is not None:
            self.add_batch(predictions=predictions, references=references)
        if self.writer is None:
            raise ValueError(
                "compute: nothing to compute on; call `add` or `add_batch` first, or pass predictions and references "
                "(found nothing stored, predictions=None and references=None)."
            )
        try:
            self._finalize()
            self.cache_file_name = None
            self.filelock = None
            self.selected_feature_format = None
            self._stored_columns = None
            if self.process_id != 0:
                return None
            columns = {name: _from_arrow(self.data.column(name)) for name in ("predictions", "references")}
            with temp_seed(self.seed):
                return self._reduce(**columns, **kwargs)
        finally:
            self._release_store()

    def _check_compute_arguments(self, kwargs: Dict[str, Any]) -> None:
        """Raise ``TypeError`` naming an argument ``_reduce`` does not take (e.g. a typo)."""
        parameters = inspect.signature(self._reduce).parameters
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
            return
        unknown = [name for name in kwargs if name not in parameters]
        if unknown:
            known = [name for name in parameters if name not in ("predictions", "references")]
            raise TypeError(f"{unknown[0]}: expected an argument of {self.name} ({', '.join(known)}), found an unknown argument.")

    def _finalize(self):
        """Close the store and, on process 0, read every process's batches back as one table.

        evaluate's own ``_finalize`` wraps the store in a ``datasets.Dataset`` (hashing an
        in-memory store to fingerprint it) and reads every process's file with process 0's
        types; this reads the Arrow streams directly and gives each column a type that
        holds every process's values.
        """
        held = None
        if self.writer is not None:
            if self.num_process == 1:
                # A single process whose batches are all still held in memory (under 32 MB):
                # reading them from there spares writing them out only to read them back.
                held = self.writer.take_unwritten()
            self.writer.finalize()
        self.writer = None
        if self.filelock is not None and self.process_id > 0:
            self.filelock.release()  # process 0 may now read (and then delete) our file
        names = self._feature_names()
        if held is not None:
            if not self.keep_in_memory:
                self.file_paths, self.filelocks = self._get_all_cache_files()  # removed by _release_store
            self.data = _concat_stored([held], names)
        elif self.keep_in_memory:
            self.data = _concat_stored([_read_arrow_stream(self.buf_writer.getvalue())], names)
        elif self.process_id == 0:
            self.file_paths, self.filelocks = self._get_all_cache_files()
            try:
                tables = [_read_arrow_stream(pa.memory_map(path)) for path in self.file_paths]
            except FileNotFoundError:
                raise ValueError(
                    "Error in finalize: another evaluation module instance is already using the local cache file. "
                    "Please specify an experiment_id to avoid collision between distributed evaluation module instances."
                ) from None
            self.data = _concat_stored(tables, names)

    def _release_store(self) -> None:
        """Drop what was read back; process 0 deletes every process's cache file and lock."""
        self.data = None
        self.buf_writer = None
        if self.file_paths is not None:
            for filelock, path in reversed(list(zip(self.filelocks, self.file_paths))):
                if os.path.exists(path):
                    os.remove(path)
                if filelock is not None:
                    filelock.release()
            self.file_paths = self.filelocks = None

    def __del__(self):
        """An instance dropped with batches stored but never computed removes its cache file.

        (evaluate's ``__del__`` only releases the lock and leaves the batches on disk.) Only
        in single-process mode: in distributed mode process 0 reads the other files.
        """
        try:
            path = getattr(self, "cache_file_name", None)
            if getattr(self, "writer", None) is not None and path and getattr(self, "num_process", 1) == 1:
                self.writer = None  # closes the stream before the file goes
                if os.path.exists(path):
                    os.remove(path)
        except Exception:  # noqa: BLE001 - never raise from __del__ (e.g. at interpreter exit)
            pass
        super().__del__()

    def _compute(self, *, predictions=None, references=None, **kwargs):
        columns = {"predictions": predictions, "references": references}
        return self._reduce(**{name: _from_arrow(column) for name, column in columns.items()}, **kwargs)


def _one_row(value: Any, name: str) -> Any:
    if value is None:
        raise TypeError(f"{name}: expected a value, found None.")
    array = as_array([value], name) if np.isscalar(value) or isinstance(value, str) else as_array(value, name)[None]
    return array


def _from_arrow(column: Any) -> np.ndarray:
    """A stored column back to NumPy: flat labels/scores, or ``(N, L)`` rows.

    Numbers come back zero-copy (one copy if several batches were stored); strings are
    decoded once per distinct value, not per element.
    """
    if isinstance(column, pa.ChunkedArray) and _is_arrow_string(column.type):
        return _strings_from_arrow(column)  # chunk by chunk: no 2 GB limit on the text
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    width = None
    if pa.types.is_fixed_size_list(column.type):
        width = column.type.list_size
        column = column.flatten()
    if _is_arrow_string(column.type):
        array = _strings_from_arrow(column)
    else:
        array = column.to_numpy(zero_copy_only=False)
    return array if width is None else array.reshape(-1, width)
