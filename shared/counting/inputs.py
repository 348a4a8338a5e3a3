"""Inputs: coerce what users pass (lists, NumPy, torch, pandas, pyarrow) to NumPy, once.

Every module reads its inputs through this file, so every input accepts the same types
and fails with the same kind of message ("<argument>: expected ..., found ...").

* ``as_array``: one input to a NumPy array, with clear errors for ragged, missing or
  mixed-type values; strings stay strings (long labels as shared Python strings);
* ``as_labels`` / ``as_indicators``: class labels / 0-1 indicators, integral floats
  accepted;
* ``check_sample_weight``: one non-negative finite weight per sample;
* ``check_finite`` and ``map_row_blocks``: the finite-value check of large arrays, in
  row blocks on all cores;
* ``to_python``: results as plain Python (JSON and Trainer checkpoints need it).
"""

import math
import numbers
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa

_MISSING_HINT = "no missing values (None, NaN, pandas.NA)"


def describe_values(values: np.ndarray, limit: int = 5) -> str:
    """A short, readable listing of (unique) offending values for error messages."""
    shown = [repr(to_python_scalar(v)) for v in values[:limit]]
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
        elif isinstance(value, (numbers.Integral, np.integer, np.bool_)):  # bool is an Integral
            kinds.add("int")
        elif isinstance(value, (numbers.Real, np.floating)):
            kinds.add("missing" if math.isnan(value) else "float")
        elif isinstance(value, (str, bytes)):  # np.str_ and np.bytes_ too
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
    # Chunks are not combined first: more than 2 GB of text would overflow a string array's offsets.
    encoded = (pa.chunked_array([column]) if isinstance(column, pa.Array) else column).dictionary_encode()
    if encoded.num_chunks == 0:
        return np.zeros(0, dtype=str)
    indices = [chunk.indices.to_numpy(zero_copy_only=False) for chunk in encoded.chunks]
    # One dictionary, shared by every chunk: the last one's.
    return _string_labels(encoded.chunk(encoded.num_chunks - 1).dictionary.to_pylist(), np.concatenate(indices))


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


def _batches_hint(values: Sequence[Any]) -> str:
    """For a list of arrays that differ only in their first axis: they are batches (a Trainer with
    eval_do_concat_batches=False passes them so, the last one shorter), to be joined end to end."""
    shapes = [tuple(getattr(item, "shape", ())) for item in values]
    if len(shapes) < 2 or not all(shapes) or len({shape[1:] for shape in shapes}) != 1:
        return ""
    return (f" The items are arrays of shapes {shapes[0]}, ..., {shapes[-1]}, alike but for their first axis: per-batch "
            "arrays (e.g. from Trainer with eval_do_concat_batches=False); pass np.concatenate(..., axis=0) to join them.")


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
        if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
            array = _strings_from_arrow(values)  # no Python object per element
        else:
            array = values.to_numpy(zero_copy_only=False)
        if array.dtype == object and len(array) and isinstance(array[0], np.ndarray):
            array = np.stack(array)
    elif module.startswith("pandas") and hasattr(values, "to_numpy"):
        if hasattr(values, "isna") and np.asarray(values.isna()).any():
            raise ValueError(f"{name}: expected {_MISSING_HINT}, found {int(np.asarray(values.isna()).sum())} missing value(s).")
        if getattr(values, "ndim", 0) == 1 and str(values.dtype) in ("str", "string"):
            array = _strings_from_arrow(pa.array(values))  # Arrow-backed text: no Python string per element
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
                f"{_batches_hint(values) if from_python else ''}"
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


# Integral floats below this magnitude can be labels (counted); beyond it they can only be scores.
EXACT_INTEGERS = 2.0**53


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
    "For scores of the positive class pass a threshold: 0.5 for probabilities, or a number tuned on another split "
    "(threshold='auto' there returns it as optimal_threshold)."
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
                f"{to_python_scalar(example)!r}. {scores_hint}"
            )
        if array.size and np.abs(array).max() >= 2.0**63:
            raise ValueError(f"{name}: expected integers that fit in 64 bits, found {np.abs(array).max()}.")
        return array.astype(np.int64)
    if array.dtype == np.uint64 and array.size and array.max() > np.iinfo(np.int64).max:
        # Labels are counted as int64: 2^64 - 1 would wrap around to -1, another label.
        raise ValueError(f"{name}: expected integers that fit in 64 bits (signed), found {int(array.max())}.")
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
            example = to_python_scalar(array[~integral][0])
            raise ValueError(f"{name}: expected 0/1 values, found non-integer values such as {example!r}." + (f" {hint}" if hint else ""))
    allowed = (array == 0) | (array == 1)
    if ignore_index is not None:
        allowed |= array == ignore_index
    if not allowed.all():
        expected = "0/1 values" if ignore_index is None else f"0/1 values (or ignore_index={ignore_index!r})"
        raise ValueError(f"{name}: expected {expected}, found {describe_values(np.unique(array[~allowed]))}.")
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


def check_same_shape(predictions: np.ndarray, references: np.ndarray) -> None:
    """One label per sample in both; predictions with one more trailing axis are probably class
    scores (an (N, K) head's output for (N,) labels), and the error says what to do with them."""
    if predictions.shape != references.shape:
        hint = ""
        if predictions.ndim == references.ndim + 1 and predictions.shape[:-1] == references.shape:
            hint = (f" Predictions of shape {predictions.shape} look like class scores (one column per class): pass their "
                    "argmax over the last axis (np.argmax(predictions, axis=-1)) as labels, or use the balanced_topk_accuracy "
                    "module, which takes the scores themselves.")
        raise ValueError(
            f"predictions and references: expected the same shape, found {predictions.shape} and {references.shape}.{hint}"
        )


def to_python_scalar(value: Any) -> Any:
    """A NumPy scalar as the Python one (other values as they are)."""
    return value.item() if isinstance(value, np.generic) else value


def to_python(value: Any) -> Any:
    """Plain Python (float/int/str/list/dict) for JSON and Trainer checkpoints."""
    if isinstance(value, dict):
        return {to_python(key): to_python(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_python(item) for item in value]
    if isinstance(value, np.ndarray):
        return [to_python(item) for item in value.tolist()]
    return to_python_scalar(value)

