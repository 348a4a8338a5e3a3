"""Labels: from the label values seen to class indices ``0..K-1``, and the task.

Counting happens on label *values* (see ``counts.py``); this file maps the distinct values
a count table holds to classes once, at compute time, when ``labels``, ``num_classes``,
``pos_label`` and ``task`` are known. Its inputs are the key columns of a count table
(one entry per distinct pair), not per-sample arrays, so nothing here grows with the
number of samples.
"""

import contextlib
import os
import re
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Collection, Iterator, List, Optional, Sequence

import numpy as np

from .inputs import describe_values
from .inputs import is_string_array

TASKS = ("binary", "multiclass")

# A declared ``num_classes`` above this is not materialised: the classes are then the
# observed ones, and the others (which have no samples) are counted in ``unobserved``.
MAX_MATERIALISED_CLASSES = 1 << 20


# Reference values that usually mark padding, not a class, and why.
PADDING_VALUES = {
    -100: "the ignore index of PyTorch's cross-entropy and of transformers' data collators",
    255: "void pixels in uint8 segmentation maps",
}


def padding_values(references: np.ndarray, reference_dtypes: Collection[str], ignore_index: Any = None) -> List[int]:
    """The reference values that look like padding, when no ``ignore_index`` is given: -100,
    and 255 if references came as uint8 (``reference_dtypes``: the dtypes the batches' references had).

    ``references`` are the stored reference values (the distinct values of a count table,
    or raw rows), so the check costs nothing per sample for counted labels.

    Examples
    --------
    >>> padding_values(np.array([-100, 0, 1]), {"int64"}), padding_values(np.array([0, 255]), {"uint8"})
    ([-100], [255])
    >>> padding_values(np.array([0, 255]), {"int64"}), padding_values(np.array([-100, 0]), {"int64"}, ignore_index=-1)
    ([], [])
    """
    if ignore_index is not None or not references.size or references.dtype.kind not in "iu":
        return []
    candidates = [-100] + ([255] if "uint8" in reference_dtypes else [])
    return [value for value in candidates if (references == value).any()]


def padding_note(values: Sequence[int]) -> str:
    """Why ``values`` look like padding, and what to pass: one sentence per value."""
    return " ".join(f"{value} looks like padding ({PADDING_VALUES[value]}): pass ignore_index={value} to drop those samples."
                    for value in values)


@contextlib.contextmanager
def padding_hint(padding: Sequence[int]) -> Iterator[None]:
    """A ``ValueError`` about label values that names one of ``padding`` says how to drop it."""
    try:
        yield
    except ValueError as error:
        message = str(error)
        named = [value for value in padding if re.search(rf"(?<![\w.-]){value}(?![\w.])", message)]
        if not named:
            raise
        raise ValueError(f"{message} {padding_note(named)}") from None


def warn_padding(padding: Sequence[int], encoded: "EncodedLabels", labels: Optional[list]) -> None:
    """Warn (once per call: once per compute) that a padding-like reference value is counted as a
    class. Not when ``labels`` is given: the classes are then the user's own list."""
    counted = [value for value in padding if labels is None and value in encoded.classes.tolist()]
    if counted:
        warnings.warn(f"references: {padding_note(counted)} Without ignore_index it is counted as a class "
                      f"(classes {describe_values(encoded.classes)}).", UserWarning, stacklevel=user_stacklevel())


def user_stacklevel() -> int:
    """The ``stacklevel`` (for a warning issued by our caller) of the first frame outside this
    file's folder: the user's ``compute``, not the helper that found the problem (vendored, the
    folder is the module's, which holds all of its code; a warning repeated by several steps of
    one call then points at one line, and Python shows it once)."""
    here = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == here:
        frame, level = frame.f_back, level + 1
    return level


@dataclass
class EncodedLabels:
    """Class indices of reference (and prediction) values, the class values, and the task.

    ``unobserved``: classes declared by a ``num_classes`` too large to materialise that
    occur in neither references nor predictions; they are not in ``classes`` (which then
    holds the sorted observed class values) and have no samples.
    """

    reference_indices: np.ndarray
    prediction_indices: Optional[np.ndarray]
    classes: np.ndarray
    binary: bool
    positive_index: Optional[int] = None
    unobserved: int = 0

    @property
    def num_classes(self) -> int:
        return len(self.classes)


def label_kind(values: np.ndarray) -> str:
    return "string" if is_string_array(values) else "integer"


def distinct_values(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """Sorted distinct values (Python strings are hashed, then only the distinct ones sorted)."""
    arrays = [array.ravel() for array in arrays if array is not None and array.size]
    if not arrays:
        return np.zeros(0, dtype=np.int64)
    if not any(array.dtype == object for array in arrays):
        return np.unique(np.concatenate(arrays))
    distinct = set().union(*(array.tolist() for array in arrays))
    classes = np.empty(len(distinct), dtype=object)
    classes[:] = sorted(distinct)
    return classes


def positions(values: np.ndarray, classes: np.ndarray, name: Optional[str] = None, source: str = "") -> np.ndarray:
    """Index of each value in ``classes`` (distinct, any order); a value outside them is an error
    naming ``name`` and ``source``, or, without ``name``, -1."""
    integers = values.dtype.kind in "iu" and classes.dtype.kind in "iu" and np.result_type(values, classes).kind in "iu"
    if integers and classes.size and classes[0] == 0 and np.array_equal(classes, np.arange(classes.size)):
        # Classes 0..K-1 in order: a value is its own index (no search, no temporary copies).
        found = values.astype(np.intp)
        found[(values < 0) | (values >= classes.size)] = -1
    elif (integers or values.dtype.kind == classes.dtype.kind == "U") and classes.size:
        # Sorted search in C (one Python lookup per distinct pair is slow for thousands of pairs).
        order = np.argsort(classes, kind="stable")
        slot = np.minimum(np.searchsorted(classes[order], values), classes.size - 1)
        found = np.where(classes[order][slot] == values, order[slot], -1).astype(np.intp)
    else:
        lookup = {value: index for index, value in enumerate(classes.tolist())}
        found = np.fromiter((lookup.get(value, -1) for value in values.tolist()), dtype=np.intp, count=values.size)
    if name is not None and (found < 0).any():
        raise ValueError(f"{name}: expected values among {source}, found unknown value(s) {describe_values(distinct_values([values[found < 0]]))}.")
    return found


def encode_labels(
    references: np.ndarray,
    predictions: Optional[np.ndarray] = None,
    labels: Optional[list] = None,
    num_classes: Optional[int] = None,
) -> EncodedLabels:
    """Map label values to class indices ``0..K-1`` (multi-class; see ``encode_task``).

    The classes are, in this order of precedence: ``labels`` (in the order given);
    ``0..num_classes-1`` for integer labels (only the observed ones, with the rest counted
    in ``unobserved``, above ``MAX_MATERIALISED_CLASSES``); otherwise the sorted distinct
    values seen in references and predictions.

    Examples
    --------
    >>> encoded = encode_labels(np.array(["safe", "unsafe"]), np.array(["safe", "safe"]))
    >>> encoded.reference_indices.tolist(), encoded.prediction_indices.tolist(), encoded.classes.tolist()
    ([0, 1], [0, 0], ['safe', 'unsafe'])
    """
    given = (("references", references), ("predictions", predictions))
    arrays = {name: array for name, array in given if array is not None}
    kinds = {name: label_kind(array) for name, array in arrays.items() if array.size}
    if len(set(kinds.values())) > 1:
        found = ", ".join(f"{name} are {kind}s" for name, kind in kinds.items())
        raise TypeError(f"predictions and references: expected labels of one type, found {found}.")
    unobserved = 0
    if labels is not None:
        if num_classes is not None and num_classes != len(labels):
            raise ValueError(f"num_classes: expected len(labels) = {len(labels)}, found {num_classes}.")
        classes = np.array(labels, dtype=object if isinstance(labels[0], str) else np.int64)
        if isinstance(labels[0], str):
            classes = classes.astype(str) if max(map(len, labels)) <= 256 else classes
        for name, kind in kinds.items():
            if kind != label_kind(classes):
                raise TypeError(f"{name}: expected {label_kind(classes)} labels like `labels`, found {kind}s.")
        source = "`labels`"
    elif num_classes is not None:
        if "string" in kinds.values():
            raise TypeError("num_classes: applies to integer labels 0..K-1, found string labels; for string labels pass `labels` instead.")
        for name, array in arrays.items():
            if array.size and (int(array.min()) < 0 or int(array.max()) >= num_classes):
                bad = np.unique(array[(array < 0) | (array >= min(num_classes, np.iinfo(np.int64).max))])
                raise ValueError(f"{name}: expected labels in [0, {num_classes - 1}], found {describe_values(bad)}.")
        if num_classes <= MAX_MATERIALISED_CLASSES:
            classes = np.arange(num_classes, dtype=np.int64)
        else:
            classes = distinct_values(list(arrays.values())).astype(np.int64)
            unobserved = num_classes - len(classes)
        source = f"[0, {num_classes - 1}]"
    else:
        classes = distinct_values(list(arrays.values()))
        source = "the observed classes"
    indices = {name: positions(array, classes, name, source) for name, array in arrays.items()}
    return EncodedLabels(indices["references"], indices.get("predictions"), classes, False, None, unobserved)


def encode_task(
    references: np.ndarray,
    predictions: Optional[np.ndarray] = None,
    task: Optional[str] = None,
    labels: Optional[list] = None,
    num_classes: Optional[int] = None,
    pos_label: Any = None,
) -> EncodedLabels:
    """Resolve the task (binary or multi-class) and map label values to class indices.

    ``task=None`` means binary when the labels are 0/1 integers, when two ``labels`` are
    given, or when ``pos_label`` is given; multi-class otherwise. A binary task needs its
    two classes to be known: 0/1 integers, two ``labels``, or ``pos_label`` plus at most one
    other observed class. ``predictions=None`` encodes references only (scores mode).

    Examples
    --------
    >>> encoded = encode_task(np.array(["no", "yes"]), np.array(["yes", "yes"]), pos_label="yes")
    >>> encoded.binary, encoded.positive_index, encoded.classes.tolist(), encoded.prediction_indices.tolist()
    (True, 1, ['no', 'yes'], [1, 1])
    """
    if task == "multiclass" and pos_label is not None:
        raise ValueError("pos_label: applies to task='binary' only, found task='multiclass'.")
    seen = [array for array in (references, predictions) if array is not None and array.size]
    wants_binary = task == "binary" or (task is None and (pos_label is not None or (labels is not None and len(labels) == 2)))
    if not wants_binary and task is None and labels is None and num_classes in (None, 2):
        # 0/1 integer labels make a binary task.
        wants_binary = bool(seen) and all(label_kind(a) == "integer" and a.min() >= 0 and a.max() <= 1 for a in seen)
    if not wants_binary:
        return encode_labels(references, predictions, labels, num_classes)

    if num_classes is not None and num_classes != 2:
        raise ValueError(f"num_classes: a binary task has 2 classes, found num_classes={num_classes!r}.")
    if labels is not None:
        if len(labels) != 2:
            raise ValueError(f"labels: a binary task needs exactly 2 labels, found {len(labels)}.")
        class_values = list(labels)
    elif pos_label is not None:
        if seen and label_kind(seen[0]) != ("string" if isinstance(pos_label, str) else "integer"):
            raise TypeError(f"pos_label: expected a {label_kind(seen[0])} label like the references, "
                            f"found {pos_label!r}.")
        others = [value for value in distinct_values(seen).tolist() if value != pos_label]
        if len(others) > 1 and task is None:
            # The task was inferred from pos_label (informedness has no `task`): name pos_label.
            raise ValueError(
                f"pos_label: applies to two classes, found {len(others) + 1}: {others[:5]} besides "
                f"pos_label={pos_label!r}; pass the two `labels`, or no pos_label for a multi-class task."
            )
        if len(others) > 1:
            raise ValueError(
                f"task: binary with pos_label={pos_label!r} expects one other class, found "
                f"{len(others)} others {others[:5]}; pass task='multiclass' or the two `labels`."
            )
        if not others:
            if not isinstance(pos_label, int) or pos_label not in (0, 1):
                raise ValueError(
                    f"labels: cannot tell the negative class, found only pos_label={pos_label!r} and expected a second "
                    f"class; pass the two `labels`."
                )
            others = [1 - pos_label]
        class_values = sorted([others[0], pos_label], key=lambda value: (str(type(value)), value))
    else:
        if any(label_kind(a) != "integer" or a.min() < 0 or a.max() > 1 for a in seen):
            raise ValueError(
                f"task: binary expects labels 0/1, found {describe_values(distinct_values(seen))}; pass `labels` (two classes) "
                f"or `pos_label`, or use task='multiclass'."
            )
        class_values = [0, 1]
    encoded = encode_labels(references, predictions, class_values)
    if pos_label is not None and pos_label not in class_values:
        raise ValueError(f"pos_label: expected one of the labels {class_values}, found {pos_label!r}.")
    encoded.binary, encoded.positive_index = True, 1 if pos_label is None else class_values.index(pos_label)
    return encoded


def typo_note(absent: list, referenced: np.ndarray) -> str:
    """Predicted labels that are a reference class but for case, spaces, "-" or "_" ('Safe' for 'safe')."""
    def key(value: Any) -> Any:
        return "".join(value.split()).replace("-", "").replace("_", "").casefold() if isinstance(value, str) else None

    known = {key(value): value for value in referenced.tolist() if key(value)}
    pairs = [(value, known[key(value)]) for value in absent if key(value) in known]
    if not pairs:
        return ""
    found = ", ".join(f"{value!r} for {meant!r}" for value, meant in pairs[:5])
    return f" Probably a typo in the labels ({found}): fix the predicted labels, or map them before computing."
