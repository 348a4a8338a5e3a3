"""Property-based fuzzing of every module's compute (issue 9).

Hypothesis generates calls over shapes (empty, one sample, ragged, N-d, mismatched),
dtypes (bool, uint8, int8..int64, uint64, float16/32/64, object, str, bytes, None, NaN,
pandas NA, torch tensors, pandas and pyarrow containers), values (negative, huge,
non-finite) and option combinations (valid and invalid values of every argument, sample
weights). About half of the calls start from well-formed data for the module, so the
reductions themselves are exercised, not only validation.

Every call must keep the contract of ``robustness.check_call``: a plain-Python,
JSON-serialisable result inside the metric's range (NaN only with a reason), or a
ValueError/TypeError naming the argument - no other exception, no warning but the
documented ones (``robustness.DOCUMENTED_WARNINGS``), no hang.
The calls go through ``evaluate.load`` objects' ``compute``. Example counts: see the
profiles in tests/support/robustness.py (2,000 per module by default).
"""

import inspect
import math
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import torch
from hypothesis import event, given, settings
from hypothesis import strategies as st

from conftest import MODULE_NAMES, load_module, module_tests
from shared.tooling.modules import module
import robustness
from robustness import adjusted_flag, check_call, scaled

ABSENT = object()

# ----------------------------------------------------------------------------------------
# Array-like inputs of every container, dtype and shape
# ----------------------------------------------------------------------------------------

WILD_SCALARS = [
    None, math.nan, math.inf, -math.inf, pd.NA, 2**62, -(2**62), 2**63 - 1, 2**64 - 1, 2**70, -1, -100, 255,
    0.5, -0.0, 1e300, 5e-324, "", "a", "b", "x" * 300, b"a", True, False, 1.0, 1 + 2j, [], (), {}, object(),
]
NUMPY_DTYPES = [
    "bool", "uint8", "int8", "int16", "int32", "int64", "uint64", "float16", "float32", "float64", "object", "str", "bytes",
    "complex128", "datetime64[s]",
]
TORCH_DTYPES = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
    "int64": torch.int64, "float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
    "float64": torch.float64,
}
CONTAINERS = ["list", "tuple", "numpy", "numpy", "torch", "torch_grad", "pandas", "pandas_nullable", "pyarrow"]

# Strategies are made once, here, and drawn from many times: a strategy made inside a draw is
# made (and validated by hypothesis) again for every element of every example, which cost
# more than the compute calls themselves. The draws, and so the examples, are the same.
CONTAINER = st.sampled_from(CONTAINERS)
NUMPY_DTYPE = st.sampled_from(NUMPY_DTYPES)
TORCH_DTYPE = st.sampled_from(sorted(TORCH_DTYPES))
NULLABLE_DTYPE = st.sampled_from(["Int64", "Float64", "boolean", "string"])


def _nested(flat, shape):
    """A flat list as nested lists of ``shape`` (``shape == ()``: the scalar itself)."""
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = int(np.prod(shape[1:])) if shape[1:] else 1
    return [_nested(flat[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


@st.composite
def containers(draw, nested):
    """``nested`` (nested lists) in a container drawn at random: list, tuple, NumPy of any
    dtype, torch (with requires_grad), pandas (nullable too) or pyarrow."""
    container = draw(CONTAINER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # conversions of wild values while generating
        try:
            if container == "list":
                return nested
            if container == "tuple":
                return tuple(tuple(row) if isinstance(row, list) else row for row in nested) if isinstance(nested, list) else nested
            if container == "numpy":
                return np.array(nested, dtype=draw(NUMPY_DTYPE))
            if container in ("torch", "torch_grad"):
                dtype = draw(TORCH_DTYPE)
                tensor = torch.tensor(nested, dtype=TORCH_DTYPES[dtype])
                if container == "torch_grad" and tensor.is_floating_point():
                    tensor.requires_grad_(True)
                return tensor
            array = np.asarray(nested, dtype=object)
            if container == "pyarrow":
                return pa.array(array.tolist()) if array.ndim == 1 else pa.array(array.tolist())
            if array.ndim == 2:
                return pd.DataFrame(array.tolist())
            if array.ndim != 1:
                return nested
            if container == "pandas_nullable":
                return pd.Series(array.tolist(), dtype=draw(NULLABLE_DTYPE))
            return pd.Series(array.tolist())
        except Exception:  # noqa: BLE001 - the container cannot hold these values: keep the list
            return nested


WILD_SCALAR = st.one_of(
    st.sampled_from(WILD_SCALARS),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3),
)


NDIM = st.sampled_from([1, 1, 2, 2, 0, 3])
DIMENSION = st.integers(0, 5)


@st.composite
def shapes(draw, rows=None):
    """A shape: mostly 1-D or 2-D, sometimes 0-D or 3-D, dimensions 0..5."""
    ndim = draw(NDIM)
    shape = tuple(draw(DIMENSION) for _ in range(ndim))
    if rows is not None and ndim:
        shape = (rows,) + shape[1:]
    return shape


ARRAY_KIND = st.sampled_from(["regular"] * 6 + ["ragged", "scalar", "none", "dict", "string", "generator"])
ARRAY_ELEMENT = st.one_of(st.integers(0, 3), WILD_SCALAR)
RAGGED_LENGTHS = st.lists(st.integers(0, 4), min_size=2, max_size=5)


@st.composite
def wild_arrays(draw, element=None, rows=None):
    """Any array-like: a drawn shape (or ragged rows, or a non-array) of drawn elements."""
    kind = draw(ARRAY_KIND)
    if kind == "scalar":
        return draw(WILD_SCALAR)
    if kind == "none":
        return None
    if kind == "dict":
        return {"a": [0, 1]}
    if kind == "string":
        return "0101"
    if kind == "generator":
        return (value for value in [0, 1])
    element = element if element is not None else ARRAY_ELEMENT
    if kind == "ragged":
        lengths = draw(RAGGED_LENGTHS)
        return [[draw(element) for _ in range(length)] for length in lengths]
    shape = draw(shapes(rows))
    flat = [draw(element) for _ in range(int(np.prod(shape)) if shape else 1)]
    return draw(containers(_nested(flat, shape)))


WEIGHT_KIND = {True: st.sampled_from(["valid", "valid", "integers", "zeros"]),
               False: st.sampled_from(["valid", "valid", "integers", "wild", "zeros", "huge", "shaped"])}
WILD_WEIGHT = st.one_of(st.floats(0, 10), WILD_SCALAR)


@st.composite
def weights_for(draw, n, shape=None, wellformed=False):
    """Sample weights: mostly one valid weight per sample, sometimes anything."""
    kind = draw(WEIGHT_KIND[wellformed])
    if kind == "valid":
        values = draw(st.lists(st.floats(0, 10), min_size=n, max_size=n))
    elif kind == "integers":
        values = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    elif kind == "zeros":
        values = [0.0] * n
    elif kind == "huge":
        values = draw(st.lists(st.sampled_from([0.0, 1.0, 1e300, 1.7e308, 1e-300, 5e-324]), min_size=n, max_size=n))
    elif kind == "shaped" and shape is not None and len(shape) > 1:
        return np.ones(shape)
    else:
        return draw(wild_arrays(WILD_WEIGHT))
    return draw(containers(values))


# ----------------------------------------------------------------------------------------
# Options: each argument absent (mostly), valid or invalid
# ----------------------------------------------------------------------------------------

WILD_OPTION_VALUES = [None, -1, 0, 1, 2.5, math.nan, math.inf, "x", True, [], [0], {"a": 1}, np.int64(1), np.float64(0.5)]


CHOSEN = st.sampled_from([False, False, True])
INVALID_COUNT = st.sampled_from([0, 0, 0, 1, 1, 2])
TYPO = st.sampled_from([False] * 49 + [True])
TYPO_NAME = st.sampled_from(["averge", "num_class", "treshold"])


@st.composite
def options(draw, valid, invalid, wellformed=False):
    """A dict of options: each absent, valid or invalid (invalid includes generic junk).

    ``wellformed``: valid values only (they may still contradict each other or the data)."""
    chosen = {}
    for name in valid:
        if draw(CHOSEN):
            chosen[name] = draw(st.sampled_from(valid[name]))
    # Most calls have no invalid option; the others one or two (validation order matters).
    for _ in range(0 if wellformed else draw(INVALID_COUNT)):
        name = draw(st.sampled_from(sorted(valid)))
        chosen[name] = draw(st.sampled_from(invalid.get(name, []) + WILD_OPTION_VALUES))
    if not wellformed and draw(TYPO):
        chosen[draw(TYPO_NAME)] = 1  # a typo
    return chosen


LABELS_N = st.sampled_from([1, 2, 3, 5, 8, 13, 21, 30, 0])
LABELS_VALUES = st.sampled_from(["small", "small", "offset", "negative", "huge"])


def _labels_data(draw, strings):
    n = draw(LABELS_N)
    num_classes = draw(st.integers(1, 4))
    values = draw(LABELS_VALUES)
    if strings:
        alphabet = ["safe", "unsafe", "maybe", "x" * 200][:num_classes]
        element = st.sampled_from(alphabet)
    else:
        base = {"small": 0, "offset": 10**12, "negative": -5, "huge": 2**62 - 4}[values]
        element = st.integers(base, base + num_classes - 1)
    references = [draw(element) for _ in range(n)]
    predictions = [draw(element) for _ in range(n)]
    if not strings and n and draw(st.integers(0, 5)) == 0:
        references[draw(st.integers(0, n - 1))] = -100  # padding, with or without ignore_index (issue 26)
    classes = alphabet if strings else list(range(base, base + num_classes))
    return n, references, predictions, classes


# Interval options, shared by every module.
CI_VALID = dict(
    confidence_level=[None, 0.95, 0.5, 0.999],
    ci_method=[None, "agresti_coull", "wilson", "bootstrap"],
    n_resamples=[1, 50, 200],
    seed=[None, 0, 12345, 2**70],
)
CI_INVALID = dict(
    confidence_level=[0, 1, 1.5, "0.95", math.nan],
    ci_method=["exact", 3],
    n_resamples=[0, -1, 2.5, True, 10**15],
    seed=[-1, 1.5, "x"],
)


def label_options_valid(classes):
    """Valid label options, most of them fitting the data's classes."""
    small = isinstance(classes[0], int) and classes[0] == 0
    return {
        "num_classes": [None, 2, 3, 4, 10**9] + ([len(classes), len(classes) + 1] * 2 if small else []),
        "labels": [None, classes, classes[::-1], [0, 1], ["safe", "unsafe"], np.array([0, 1, 2])],
        "ignore_index": [None, -100, classes[0], "maybe"],
        "class_mask": [None, [0], [1], [0, 1], [], [2, 0]],
        "zero_division": ["skip", 0, 1, 0.0, 1.0],
        "return_per_class": [False, True],
    }


LABEL_OPTIONS_INVALID = {
    "num_classes": [0, -1, 2.0, "3", 10**30],
    "labels": [[], [0, 0], "ab", 3, [0, "a"], [0.5, 1], [[0], [1]], [None, 1]],
    "ignore_index": [[0], {"a": 1}, 2**70],
    "class_mask": [[5], [-1], [0.5], ["a"], 0, [[0]], [2**63]],
    "zero_division": ["warn", 0.5, None, math.nan, True],
    "return_per_class": ["yes"],
}


UNIT_FLOAT = st.floats(0, 1)


@st.composite
def label_calls(draw, name, wellformed=False):
    """A call on class labels: the label options, the module's own (its test file's ``fuzz_options``)
    and the interval's; a module whose test file sets ``TAKES_SCORES`` also gets scores as
    predictions (with a threshold)."""
    own = module_tests(name)
    scores = getattr(own, "TAKES_SCORES", False) and draw(st.booleans()) and draw(st.booleans())
    n, references, predictions, classes = _labels_data(draw, strings=draw(st.integers(0, 3)) == 0)
    if scores:
        predictions = [draw(UNIT_FLOAT) for _ in range(n)]
    own_valid, own_invalid = own_options(name, classes=classes, scores=scores)
    valid = dict(label_options_valid(classes), **own_valid, sample_weight=[None], **CI_VALID)
    invalid = dict(LABEL_OPTIONS_INVALID, **own_invalid, **CI_INVALID)
    chosen = draw(options(valid, invalid, wellformed))
    if scores and "threshold" not in chosen:
        chosen["threshold"] = draw(SCORE_THRESHOLD)
    return n, references, predictions, chosen


SCORE_THRESHOLD = st.sampled_from([0.5, "auto"])


def own_options(name, **context):
    """(valid, invalid) values of the module's own options: ``fuzz_options(**context)`` of its test
    file (``context``: what was drawn, e.g. the classes or the number of labels); none if it has none."""
    hook = getattr(module_tests(name), "fuzz_options", None)
    return hook(**context) if hook is not None else ({}, {})


SIZE = st.sampled_from([1, 2, 3, 5, 8, 13, 20, 0])
NUM_LABELS = st.sampled_from([1, 2, 3, 4, 5, 0])
ENTRY = {True: st.sampled_from([0, 1, 1, 0, -100]), False: st.sampled_from([0, 1])}  # padded or not
MULTILABEL_KIND = st.sampled_from(["labels", "probas", "logits"])
MULTILABEL_ELEMENT = {"labels": st.sampled_from([0, 1]), "probas": st.floats(0, 1),
                      "logits": st.one_of(st.floats(-50, 50), st.sampled_from([1e308, -1e308, 5e-324, 0.0]))}


@st.composite
def indicator_calls(draw, name, wellformed=False):
    """A call on rows of 0/1 indicators (or their probabilities or logits), one per label; padded with -100 or not."""
    n = draw(SIZE)
    num_labels = draw(NUM_LABELS)
    padded = draw(st.booleans())
    entry = ENTRY[padded]
    references = [[draw(entry) for _ in range(num_labels)] for _ in range(n)]
    kind = draw(MULTILABEL_KIND)
    element = MULTILABEL_ELEMENT[kind]
    predictions = [[draw(element) for _ in range(num_labels)] for _ in range(n)]
    names = [f"label{i}" for i in range(num_labels)]
    own_valid, own_invalid = own_options(name, num_labels=num_labels, names=names)
    valid = {**own_valid, "sample_weight": [None], **CI_VALID}
    invalid = {**own_invalid, **CI_INVALID}
    chosen = draw(options(valid, invalid, wellformed))
    if padded:
        chosen.setdefault("ignore_index", -100)
    if kind != "labels":
        chosen.setdefault("from_probas", True)
        if kind == "logits":
            chosen.setdefault("threshold", "auto")
    return n, references, predictions, chosen


NUM_CLASSES = st.sampled_from([1, 2, 3, 4, 5, 6, 0])
TOPK_SCORE = st.one_of(st.floats(-1e6, 1e6), st.sampled_from([0.0, 1.0, -1.0, 1e308, -1e308, 5e-324]))


@st.composite
def score_calls(draw, name, wellformed=False):
    """A call on rows of class scores; references as column indices or, with ``labels``, as names."""
    n = draw(SIZE)
    num_classes = draw(NUM_CLASSES)
    predictions = [[draw(TOPK_SCORE) for _ in range(num_classes)] for _ in range(n)]
    names = ["A", "B", "C", "D", "E", "F"][:num_classes]
    by_name = num_classes and draw(st.booleans())
    upper = max(num_classes - 1, 0)
    reference = st.sampled_from(names) if by_name else st.integers(0, upper)
    references = [draw(reference) for _ in range(n)]
    own_valid, own_invalid = own_options(name, num_classes=num_classes, names=names)
    valid = {**own_valid, "sample_weight": [None], **CI_VALID}
    invalid = {**own_invalid, **CI_INVALID}
    chosen = draw(options(valid, invalid, wellformed))
    if by_name:
        chosen.setdefault("labels", names)
    return n, references, predictions, chosen


# The calls of each kind of input (the registry's ``inputs``).
KIND_CALLS = {"labels": label_calls, "indicators": indicator_calls, "scores": score_calls}


MUTATION = {True: st.sampled_from(["none", "none", "containers"]),
            False: st.sampled_from(["none"] * 12 + ["predictions", "references", "both", "containers", "length"])}
ONE_IN_FIVE = st.integers(0, 4)


@st.composite
def fuzzed_calls(draw, name, wellformed=False):
    """(kwargs of a compute call); half well-formed for the module, the rest mutated."""
    n, references, predictions, kwargs = draw(KIND_CALLS[module(name).inputs](name, wellformed))
    mutation = draw(MUTATION[wellformed])
    if mutation in ("predictions", "both"):
        predictions = draw(wild_arrays(rows=draw(st.sampled_from([None, n]))))
    if mutation in ("references", "both"):
        references = draw(wild_arrays(rows=draw(st.sampled_from([None, n]))))
    if mutation == "length" and references:
        references = references[:-1]
    if mutation in ("none", "containers", "length"):
        predictions, references = draw(containers(predictions)), draw(containers(references))
    if "sample_weight" in kwargs or draw(ONE_IN_FIVE) == 0:
        shape = references.shape if isinstance(references, np.ndarray) else None
        kwargs["sample_weight"] = draw(weights_for(n, shape, wellformed))
    return dict(predictions=predictions, references=references, **kwargs)


# ----------------------------------------------------------------------------------------
# The properties
# ----------------------------------------------------------------------------------------

_METRICS = {}


def metric_for(name):
    """One loaded module per name for the whole file: the per-example cost is the call only."""
    if name not in _METRICS:
        _METRICS[name] = load_module(name)
    return _METRICS[name]


def argument_names(metric):
    return robustness.argument_names(metric)


def fuzz_one(name, call_kwargs):
    metric = metric_for(name)
    adjusted = adjusted_flag(call_kwargs)
    names = argument_names(metric) | set(call_kwargs) | {"compute"}  # "compute: nothing to compute on"
    outcome, error = check_call(name, lambda: metric.compute(**call_kwargs), names, adjusted=adjusted)
    event(outcome if error is None else f"error {type(error).__name__}")
    return outcome


def test_every_module_is_fuzzed():
    """Each module's calls come from its kind (its own options from its test file's ``fuzz_options``)."""
    assert all(module(name).inputs in KIND_CALLS for name in MODULE_NAMES)


@pytest.mark.parametrize("name", MODULE_NAMES)
@given(data=st.data())
def test_compute_keeps_the_contract_on_generated_calls(name, data):
    fuzz_one(name, data.draw(fuzzed_calls(name), label="call"))


@pytest.mark.parametrize("name", MODULE_NAMES)
@settings(max_examples=scaled(500))
@given(data=st.data())
def test_compute_keeps_the_contract_on_well_formed_calls(name, data):
    """Well-formed data and valid option values only: the reductions, not the validation,
    get most of these calls (options may still contradict each other or the data)."""
    fuzz_one(name, data.draw(fuzzed_calls(name, wellformed=True), label="call"))


def test_the_contract_allows_the_documented_warnings_and_no_other():
    """Padding counted as a class warns (documented, issue 26): the contract lets that warning
    through, and still turns any other warning into a failure."""
    metric = metric_for("balanced_accuracy")
    names = argument_names(metric) | {"compute"}
    outcome, _ = check_call("balanced_accuracy", lambda: metric.compute(references=[0, 1, -100, 1], predictions=[0, 1, 1, 1]), names)
    assert outcome == "ok"

    def other_warning():
        warnings.warn("references: something else", UserWarning)
        return {"balanced_accuracy": 0.5}

    with pytest.raises(UserWarning, match="something else"):
        check_call("balanced_accuracy", other_warning, names)
