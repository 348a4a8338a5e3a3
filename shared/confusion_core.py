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
import math
import numbers
from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Tuple

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
        return np.array([v.decode() if isinstance(v, bytes) else str(v) for v in flat]).reshape(array.shape)
    if kinds == {"int"}:
        try:
            return array.astype(np.int64)
        except OverflowError:
            raise ValueError(f"{name}: expected integers that fit in 64 bits, found a larger one.") from None
    return array.astype(np.float64)


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
        array = values.to_numpy(zero_copy_only=False)
        if array.dtype == object and len(array) and isinstance(array[0], np.ndarray):
            array = np.stack(array)
    elif module.startswith("pandas") and hasattr(values, "to_numpy"):
        if hasattr(values, "isna") and np.asarray(values.isna()).any():
            raise ValueError(f"{name}: expected {_MISSING_HINT}, found {int(np.asarray(values.isna()).sum())} missing value(s).")
        array = values.to_numpy()
    else:
        try:
            array = np.asarray(values)
        except ValueError as error:
            raise ValueError(
                f"{name}: expected a rectangular array (every row the same length), found ragged rows ({error})."
            ) from None
    if array.dtype == object:
        array = _from_object_array(array, name)
    elif array.dtype.kind in "US":
        if from_python:
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


def check_finite(array: np.ndarray, name: str) -> None:
    """Raise ``ValueError`` if a float array holds NaN or ±Inf."""
    if array.dtype.kind == "f" and array.size and not np.isfinite(array).all():
        bad = array[~np.isfinite(array)]
        raise ValueError(f"{name}: expected finite values, found {bad.size} non-finite value(s) such as {bad[0]}.")


def as_labels(array: np.ndarray, name: str) -> np.ndarray:
    """Class labels: integers or strings. Integral floats (0.0, 1.0) become integers.

    Non-integral floats are scores, not labels: the error says to pass a threshold.
    """
    if array.dtype.kind == "f":
        check_finite(array, name)
        rounded = np.rint(array)
        if not np.array_equal(rounded, array):
            example = array[rounded != array][0]
            raise ValueError(
                f"{name}: expected class labels (integers or strings), found non-integer values such as "
                f"{_to_python_scalar(example)!r}. For scores or probabilities of the positive class pass threshold=0.5 "
                f"(or another number) or threshold='auto'."
            )
        if array.size and np.abs(array).max() >= 2.0**63:
            raise ValueError(f"{name}: expected integers that fit in 64 bits, found {np.abs(array).max()}.")
        return array.astype(np.int64)
    return array


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
    return weights


def check_same_shape(predictions: np.ndarray, references: np.ndarray) -> None:
    if predictions.shape != references.shape:
        raise ValueError(
            f"predictions and references: expected the same shape, found {predictions.shape} and {references.shape}."
        )


# ----------------------------------------------------------------------------------------
# Label mapping
# ----------------------------------------------------------------------------------------


def _label_kind(array: np.ndarray) -> str:
    return "string" if array.dtype.kind in "US" else "integer"


def _check_same_kind(arrays: Dict[str, np.ndarray]) -> None:
    kinds = {name: _label_kind(array) for name, array in arrays.items() if array.size}
    if len(set(kinds.values())) > 1:
        found = ", ".join(f"{name} are {kind}s" for name, kind in kinds.items())
        raise TypeError(f"predictions and references: expected labels of one type, found {found}.")


def _map_to_classes(values: np.ndarray, classes: np.ndarray, name: str, source: str) -> np.ndarray:
    """Index of each value in ``classes`` (any order); unknown values are an error."""
    order = np.argsort(classes, kind="stable")
    sorted_classes = classes[order]
    position = np.searchsorted(sorted_classes, values)
    position_clipped = np.minimum(position, len(sorted_classes) - 1)
    known = sorted_classes[position_clipped] == values
    if not known.all():
        unknown = np.unique(values[~known])
        raise ValueError(f"{name}: expected values among {source}, found unknown value(s) {_describe(unknown)}.")
    return order[position_clipped]


def encode_labels(
    references: np.ndarray,
    predictions: Optional[np.ndarray] = None,
    labels: Optional[Sequence] = None,
    num_classes: Optional[int] = None,
) -> Tuple[np.ndarray, Optional[np.ndarray], np.ndarray]:
    """Map label values to class indices ``0..K-1``.

    The classes are, in this order of precedence: ``labels`` (in the order given);
    ``0..num_classes-1`` for integer labels; otherwise the sorted distinct values seen in
    references and predictions. Memory never grows with a label's value: integer labels
    in a small non-negative range are counted directly, others are sorted.

    Returns ``(reference_indices, prediction_indices, classes)``; indices are ``intp``.

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
            raise TypeError("num_classes: applies to integer labels 0..K-1; for string labels pass `labels` instead.")
        for name, array in arrays.items():
            if array.size and (array.min() < 0 or array.max() >= num_classes):
                bad = np.unique(array[(array < 0) | (array >= num_classes)])
                raise ValueError(f"{name}: expected labels in [0, {num_classes - 1}], found {_describe(bad)}.")
        indices = {name: array.astype(np.intp, copy=False) for name, array in arrays.items()}
        return indices["references"], indices.get("predictions"), np.arange(int(num_classes))

    non_empty = [array.ravel() for array in arrays.values() if array.size]
    if not non_empty:
        return tuple(np.zeros(0, np.intp) for _ in arrays.values()) + (np.zeros(0, np.int64),)  # type: ignore
    if kind == "integer":
        low = min(int(array.min()) for array in non_empty)
        high = max(int(array.max()) for array in non_empty)
        total = sum(array.size for array in non_empty)
        if low >= 0 and high < max(4 * total, 1 << 16):
            # Small non-negative range: count presence instead of sorting (O(n)).
            present = np.zeros(high + 1, dtype=bool)
            for array in non_empty:
                present |= np.bincount(array, minlength=high + 1).astype(bool)
            classes = np.flatnonzero(present)
            if len(classes) == high + 1:
                indices = {name: array.astype(np.intp, copy=False) for name, array in arrays.items()}
            else:
                lookup = np.full(high + 1, -1, dtype=np.intp)
                lookup[classes] = np.arange(len(classes))
                indices = {name: lookup[array] for name, array in arrays.items()}
            return indices["references"], indices.get("predictions"), classes.astype(np.int64)
    classes, inverse = np.unique(np.concatenate(non_empty), return_inverse=True)
    split = np.cumsum([array.size for array in arrays.values()])[:-1]
    pieces = np.split(inverse.astype(np.intp), split)
    indices = {name: piece.reshape(array.shape) for (name, array), piece in zip(arrays.items(), pieces)}
    return indices["references"], indices.get("predictions"), classes


TASKS = ("binary", "multiclass")


@dataclass
class EncodedLabels:
    """Class indices of references (and predictions), the class values, and the task."""

    reference_indices: np.ndarray
    prediction_indices: Optional[np.ndarray]
    classes: np.ndarray
    binary: bool
    positive_index: Optional[int]


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
        ref, pred, classes = encode_labels(references, predictions, labels, num_classes)
        return EncodedLabels(ref, pred, classes, False, None)

    if num_classes is not None and num_classes != 2:
        raise ValueError(f"num_classes: a binary task has 2 classes, found num_classes={num_classes!r}.")
    if labels is not None:
        if len(labels) != 2:
            raise ValueError(f"labels: a binary task needs exactly 2 labels, found {len(labels)}.")
        class_values = list(labels)
    elif pos_label is not None:
        observed = [a for a in (references, predictions) if a is not None and a.size]
        distinct = np.unique(np.concatenate([a.ravel() for a in observed])) if observed else np.array([])
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
                    f"labels: cannot tell the negative class, only pos_label={pos_label!r} occurs; pass the two `labels`."
                )
        class_values = sorted([others[0], pos_label], key=lambda v: (str(type(v)), v))
    else:
        seen = [a for a in (references, predictions) if a is not None and a.size]
        if any(_label_kind(a) != "integer" or a.min() < 0 or a.max() > 1 for a in seen):
            found = np.unique(np.concatenate([a.ravel() for a in seen]))
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
    ``predicted[c]``: predictions c; ``total``: all samples.
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
    codes = reference_indices.astype(np.intp, copy=False) * num_classes + prediction_indices
    matrix = np.bincount(codes.ravel(), weights=sample_weight, minlength=num_classes * num_classes)
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


def masked_mean(per_class: np.ndarray, class_mask: Optional[np.ndarray]) -> Tuple[float, int]:
    """Mean over the defined (non-NaN) classes of the mask; returns (mean, how many)."""
    selected = per_class if class_mask is None else per_class[class_mask]
    defined = selected[~np.isnan(selected)]
    if defined.size == 0:
        return math.nan, 0
    return float(defined.mean()), int(defined.size)


# ----------------------------------------------------------------------------------------
# Thresholds
# ----------------------------------------------------------------------------------------

THRESHOLD_TIE_RULE = (
    "Candidate thresholds are +inf (nothing positive), the midpoints between adjacent distinct "
    "scores, and the lowest score (everything positive); a sample is positive iff score >= threshold. "
    "The threshold with the highest TPR + TNR wins; among equally good ones the highest threshold "
    "(fewest predicted positives) wins."
)


def youden_thresholds(
    scores: np.ndarray, positives: np.ndarray, weights: Optional[np.ndarray] = None
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column, the threshold maximising TPR + TNR (Youden's J), in one sort per column.

    ``scores``, ``positives`` (0/1) and ``weights`` are ``(N, L)``; columns are searched
    independently and at once (no Python loop over samples or columns). Ties follow
    ``THRESHOLD_TIE_RULE``. Returns ``(thresholds, tpr, tnr)``, each of length L; TPR
    (TNR) is NaN for a column with no positive (negative) weight.

    Examples
    --------
    >>> thresholds, tpr, tnr = youden_thresholds(np.array([[0.2], [0.9], [0.1], [0.3]]), np.array([[0], [1], [1], [0]]))
    >>> thresholds.tolist(), tpr.tolist(), tnr.tolist()
    ([0.6], [0.5], [1.0])
    """
    num_samples, num_columns = scores.shape
    if weights is None:
        weights = np.ones(scores.shape)
    positives = positives.astype(bool)
    order = np.argsort(-scores, axis=0, kind="stable")
    sorted_scores = np.take_along_axis(scores, order, axis=0)
    sorted_weights = np.take_along_axis(weights, order, axis=0)
    sorted_positive = np.take_along_axis(positives, order, axis=0)
    cumulative_tp = np.cumsum(np.where(sorted_positive, sorted_weights, 0.0), axis=0)
    cumulative_fp = np.cumsum(np.where(sorted_positive, 0.0, sorted_weights), axis=0)
    total_positive, total_negative = cumulative_tp[-1], cumulative_fp[-1]
    # A cut after row i (rows 0..i positive) is valid only where the next score differs.
    is_cut = np.ones(scores.shape, dtype=bool)
    is_cut[:-1] = sorted_scores[:-1] != sorted_scores[1:]
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
    midpoint = (upper + lower) / 2
    # Rounding can put the midpoint on the lower score, which would then count as positive.
    midpoint = np.where(midpoint > lower, midpoint, upper)
    thresholds = np.where(row + 1 < num_samples, midpoint, upper)
    thresholds = np.where(best == 0, np.inf, thresholds)
    best_tpr = np.where(best == 0, safe_ratio(np.zeros(num_columns), total_positive), tpr[row, columns])
    best_tnr = np.where(best == 0, safe_ratio(total_negative, total_negative), tnr[row, columns])
    return thresholds, best_tpr, best_tnr


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


def _arrow_type(array: np.ndarray) -> str:
    if array.dtype.kind in "US":
        return "string"
    if array.dtype.kind == "f":
        return "float64"
    return "int64"


class ConfusionMetric(evaluate.Metric, metaclass=abc.ABCMeta):
    """Base for metrics that reduce confusion counts.

    Inputs are coerced and validated once per batch and written to evaluate's storage as
    whole Arrow columns, so ``add``/``add_batch``/``compute`` keep evaluate's behaviour
    (cache files, ``keep_in_memory``, distributed ``num_process``/``process_id``) without
    per-element encoding. Subclasses implement ``_reduce`` on NumPy arrays and may set
    ``_ROW_NDIM``: ``None`` to flatten inputs of any shape to 1-D, or ``1`` to keep rows
    of a fixed length (stored as fixed-size lists, returned as ``(N, L)`` arrays).
    """

    _ROW_NDIM: Dict[str, Optional[int]] = {"predictions": None, "references": None}

    @abc.abstractmethod
    def _reduce(self, *, predictions: np.ndarray, references: np.ndarray, **kwargs) -> Dict[str, Any]:
        """Reduce NumPy predictions/references to a plain-Python result dict."""

    def _prepare_batch(self, predictions: Any, references: Any) -> Dict[str, np.ndarray]:
        """Coerce and validate one batch; returns the columns to store (flat or 2-D)."""
        columns = {"predictions": as_array(predictions, "predictions"), "references": as_array(references, "references")}
        if self._ROW_NDIM["predictions"] is None and self._ROW_NDIM["references"] is None:
            check_same_shape(columns["predictions"], columns["references"])
        for name, array in columns.items():
            if array.dtype.kind == "f":
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
        return columns

    def _stored_features(self, columns: Dict[str, np.ndarray]) -> datasets.Features:
        features = {}
        for name, array in columns.items():
            value = datasets.Value(_arrow_type(array))
            features[name] = value if array.ndim == 1 else datasets.Sequence(value, length=array.shape[1])
        return datasets.Features(features)

    def _to_arrow(self, columns: Dict[str, np.ndarray]) -> pa.Table:
        arrays = {}
        for name, array in columns.items():
            feature = self.selected_feature_format[name]
            value_type = (feature if isinstance(feature, datasets.Value) else feature.feature).dtype
            stored = pa.array(np.ascontiguousarray(array).reshape(-1), type=pa.string() if value_type == "string" else None)
            if value_type == "string" and array.dtype.kind not in "US":
                raise TypeError(f"{name}: expected string labels like the earlier batches, found dtype {array.dtype}.")
            if value_type != "string":
                expected = np.dtype(value_type)
                if array.dtype.kind == "f" and expected.kind == "i":
                    array = as_labels(array, name)  # integral floats are labels like the earlier batches
                if array.dtype.kind not in "iuf":
                    raise TypeError(
                        f"{name}: expected {value_type} values like the earlier batches, found dtype {array.dtype}."
                    )
                stored = pa.array(np.ascontiguousarray(array, dtype=expected).reshape(-1))
            if array.ndim == 2:
                if array.shape[1] != feature.length:
                    raise ValueError(
                        f"{name}: expected rows of length {feature.length} like the earlier batches, found {array.shape[1]}."
                    )
                stored = pa.FixedSizeListArray.from_arrays(stored, array.shape[1])
            arrays[name] = stored
        return pa.table(arrays)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of predictions and references to the metric's store.

        The batch is validated as a whole and stored as columns; an invalid batch raises
        and leaves the earlier batches untouched.
        """
        if kwargs:
            raise ValueError(f"Bad inputs for evaluation module: {list(kwargs)}. All required inputs are {self._feature_names()}")
        columns = self._prepare_batch(predictions, references)
        if self.writer is None:
            self.selected_feature_format = self._stored_features(columns)
            self._init_writer()
        table = self._to_arrow(columns)
        self.writer.write_table(table, writer_batch_size=max(1, table.num_rows))

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one prediction and reference to the metric's store."""
        if kwargs:
            raise ValueError(f"Bad inputs for evaluation module: {list(kwargs)}. All required inputs are {self._feature_names()}")
        self.add_batch(predictions=_one_row(prediction, "prediction"), references=_one_row(reference, "reference"))

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Compute the metric on the stored batches plus the given predictions/references.

        With a single process and nothing stored yet, the inputs are reduced directly
        (the result is the same as storing and reading them back, minus the copy).
        """
        if self.writer is None and self.num_process == 1 and predictions is not None and references is not None:
            columns = self._prepare_batch(predictions, references)
            with temp_seed(self.seed):
                return self._reduce(**columns, **kwargs)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(self, *, predictions=None, references=None, **kwargs):
        columns = {"predictions": predictions, "references": references}
        return self._reduce(**{name: _from_arrow(column) for name, column in columns.items()}, **kwargs)


def _one_row(value: Any, name: str) -> Any:
    if value is None:
        raise TypeError(f"{name}: expected a value, found None.")
    array = as_array([value], name) if np.isscalar(value) or isinstance(value, str) else as_array(value, name)[None]
    return array


def _from_arrow(column: Any) -> np.ndarray:
    """A stored column back to NumPy: flat labels/scores, or ``(N, L)`` rows."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if pa.types.is_fixed_size_list(column.type):
        width = column.type.list_size
        return column.flatten().to_numpy(zero_copy_only=False).reshape(-1, width)
    array = column.to_numpy(zero_copy_only=False)
    if array.dtype == object:
        array = array.astype(str)
    return array
