"""Result cases: prove that a refactor left every module's results unchanged.

The metric modules (those of the registry, ``shared/tooling/modules.py``) are about to be
restructured internally. This tool
runs each module, as a user would, on a fixed grid of thousands of input/option cases and
writes every outcome to JSON; running it on the folders before and after the change and
comparing the two files shows that the outputs are identical, bit for bit.

Usage::

    HF_HUB_OFFLINE=1 python tests/support/result_cases.py run --root <dir> --out before.json [--modules a,b]
    HF_HUB_OFFLINE=1 python tests/support/result_cases.py run --root <other dir> --out after.json
    python tests/support/result_cases.py compare before.json after.json
    python tests/support/result_cases.py cases [--modules a,b]     # list the grid (ids and calls)

``run`` loads ``<root>/<name>`` with ``evaluate.load`` (offline, a private temporary
``cache_dir`` per module and a private modules cache, so no stale copy of a module is ever
imported) and uses only the public API: ``evaluate.load(..., **options)``, ``add_batch``,
``add`` and ``compute``. Of ``shared/`` only the registry of modules is imported (which
modules there are, and their kind of input): the tool works on any version of the folders,
old or new layout. Each module runs its own grid (``<module>_cases``) if it has one, else the
grid of its kind (class labels, indicator rows, score rows).

Each case has an id that says what it computes, e.g.
``ci/str_bin/confidence_level=0.95,ci_method='bootstrap',n_resamples=200,seed=0``
(family / named input data / options), and records either the result or the error:

* ``{"result": {...}}``: the returned dict, JSON-encoded exactly: NaN is ``"nan"``
  (infinities ``"inf"``/``"-inf"``), dict keys that are not strings become
  ``"<type>:<repr>"`` (e.g. top-k's ``{1: ...}`` is ``{"int:1": ...}``), and the keys keep
  their order. A value that is not plain Python (a NumPy scalar or array, a tuple) is
  stored as its plain equivalent and listed under ``"non_plain"`` with its type.
* ``{"error": "<ExceptionType>: <message>"}``.
* ``"warnings"``: the warnings the call raised, in order (``"<Category>: <message>"``).
* ``"steps"``: for streamed cases, the outcome of every call before the final
  ``compute`` (``"ok"`` or the error), so a refused batch is compared too.

``compare`` prints the number of cases per module and every case that differs, key by
key. Floats must be bit-identical (compared by ``float.hex``), types must match (1 is not
1.0), and a result's key order must match. It exits 1 if any case differs or if the two
files do not hold the same case ids. The ``meta`` section (root, versions, findings) is
informational and not compared; run times are printed only, so two runs on the same
folders give byte-identical files.

The grid (``cases`` lists it) crosses named inputs - binary, multi-class, string labels,
a class without references, -100/255 padding, scores and logits with thresholds,
weights with zeros, empty-after-ignore, top-k score matrices with ties, multilabel
indicators and probabilities, pseudo-random larger sets that take the asymptotic code
paths, NumPy/torch/pandas containers - with every option of each module's card and
``_KWARGS_DESCRIPTION``; invalid combinations are kept, since their messages must not
change either. Streamed cases split inputs into ``add_batch`` calls; ``confusion_matrix``
cases pass counts; ``load`` cases give options to ``evaluate.load``.

It is deterministic: fixed data (the larger sets come from a fixed LCG, not NumPy's
generator), every bootstrap with a fixed ``seed`` and ``n_resamples=200`` (so the whole
run takes well under a minute), one BLAS thread, no timing in the output. ``run`` ends
with a summary per module: cases, errors by exception type, and findings (an exception
other than ValueError/TypeError, with where it was raised; a result with non-plain
values; an input modified by the call).
"""

import argparse
import copy
import itertools
import json
import math
import os
import sys
import tempfile
import time
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

# One thread for every numerical library (set before they are imported): the run is meant
# for one core, and a threaded reduction could sum in another order from run to run.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402 - after the thread settings above

# Of shared/ only the registry of modules (plain data): which modules there are, and their kind.
_REPO_ROOT = Path(__file__).resolve().parents[2]
if str(_REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(_REPO_ROOT))
from shared.tooling.modules import MODULES as REGISTERED  # noqa: E402

FORMAT = 1
# Exceptions a module is meant to raise for bad input; anything else is reported as a finding.
CLEAN_ERRORS = ("ValueError", "TypeError")

try:  # optional: modules accept torch tensors and pandas objects; the grid uses them if present
    import torch

    torch.set_num_threads(1)
except ImportError:  # pragma: no cover - torch is installed in the project's environment
    torch = None
try:
    import pandas as pd
except ImportError:  # pragma: no cover
    pd = None


# =========================================================================================
# The grid: named input data crossed with option axes
# =========================================================================================


@dataclass
class Data:
    """One named set of inputs for a module.

    ``classes`` (the natural class values, sorted, padding excluded) and ``pad`` (the
    padding value present in the references) let option values such as "the labels
    reversed" be written once (as symbols, see ``SYMBOLS``) and resolved per data set.
    ``options`` are defaults every case on this data gets unless the family sets them
    (e.g. ``from_probas=True`` for probabilities), ``axes`` extra option axes crossed into
    every family (e.g. ``ignore_index`` in [None, -100] for padded references).
    """

    name: str
    predictions: Any
    references: Any
    inputs: Dict[str, Any] = field(default_factory=dict)
    classes: Tuple = ()
    pad: Any = None
    options: Dict[str, Any] = field(default_factory=dict)
    axes: Dict[str, list] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(np.asarray(_plain_array(self.references), dtype=object).size)

    def call(self) -> Dict[str, Any]:
        if self.predictions is None and self.references is None:  # e.g. counts: confusion_matrix=...
            return dict(self.inputs)
        return {"predictions": self.predictions, "references": self.references, **self.inputs}


def _plain_array(value):
    if torch is not None and isinstance(value, torch.Tensor):
        return value.numpy()
    if pd is not None and isinstance(value, (pd.Series, pd.DataFrame)):
        return value.to_numpy()
    return value


class Skip(Exception):
    """A symbolic option value that does not apply to this data (the case is left out)."""


def _unseen(data: Data):
    """A class value that occurs nowhere in the data (same type as its classes)."""
    if not data.classes:
        raise Skip
    if all(isinstance(c, str) for c in data.classes):
        return "zzz"
    if all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in data.classes):
        return int(max(data.classes)) + 1
    raise Skip


def _need(data: Data, count: int = 1) -> tuple:
    if len(data.classes) < count:
        raise Skip
    return data.classes


def _judged(data: Data, shares: Sequence[int]) -> list:
    """A judge's labels on unlabeled data: class i repeated shares[i] times (1 for classes past the list)."""
    classes = _need(data, 1)
    return [c for i, c in enumerate(classes) for _ in range(shares[i] if i < len(shares) else 1)]


# Option values written as "@symbol" are resolved per data set; "@none" passes an explicit None
# (an omitted option and None can differ, e.g. top-k's k/k_list).
SYMBOLS: Dict[str, Callable[[Data], Any]] = {
    "@none": lambda d: None,
    "@labels": lambda d: list(_need(d)),
    "@labels_reversed": lambda d: list(_need(d, 2))[::-1],
    "@labels_plus_unseen": lambda d: list(_need(d)) + [_unseen(d)],
    "@labels_missing": lambda d: list(_need(d, 2))[:-1],
    "@K": lambda d: len(_need(d)),
    "@K+1": lambda d: len(_need(d)) + 1,
    "@first": lambda d: _need(d)[0],
    "@last": lambda d: _need(d)[-1],
    "@unseen": _unseen,
    "@judged": lambda d: _judged(d, [7, 3, 2]),
    "@judged_skewed": lambda d: _judged(d, [1, 9, 4]),
    "@judged_b": lambda d: _judged(d, [4, 6, 1]),
    "@judged_pad": lambda d: _judged(d, [5, 3, 2]) + [-100 if d.pad is None else d.pad] * 2,
    "@judged_unknown": lambda d: _judged(d, [5, 3, 2]) + [_unseen(d)],
    "@judged_one_class": lambda d: [_need(d)[0]] * 6,
    "@empty": lambda d: [],
    "@groups2": lambda d: [i % 2 for i in range(d.n)],
    "@groups3_str": lambda d: ["g" + str(i % 3) for i in range(d.n)],
    "@groups1": lambda d: ["all"] * d.n,
    "@groups_short": lambda d: [0] * (d.n - 1),
    "@groups_by_half": lambda d: [0] * (d.n // 2) + [1] * (d.n - d.n // 2),
    "@names": lambda d: [f"label{i}" for i in range(_need(d)[-1] + 1)],
    "@names_short": lambda d: [f"label{i}" for i in range(_need(d)[-1])],
    "@names_dup": lambda d: ["same"] * (_need(d)[-1] + 1),
}


def resolve(value: Any, data: Data) -> Any:
    if isinstance(value, str) and value.startswith("@"):
        return SYMBOLS[value](data)
    return value


def render(value: Any, symbol: Any) -> str:
    """A short readable form of an option value for a case id."""
    text = repr(value)
    if isinstance(symbol, str) and symbol.startswith("@") and len(text) > 48:
        return symbol  # e.g. a long judged-label list: its symbol says what it is
    return text


@dataclass
class Case:
    """One call sequence: load the module (with ``load`` options), run ``steps``, keep the last outcome."""

    id: str
    steps: List[Tuple[str, Dict[str, Any]]]
    load: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Family:
    """Cases: every data set of ``data`` crossed with the product of ``axes``.

    ``axes`` is a list of (option name, values); a value None leaves the option out (the
    data's default, if it has one, stays). An axis whose name starts with "+" holds dicts
    of options merged in together (e.g. a confidence level with its method, seed and
    resamples).
    """

    name: str
    data: List[Data]
    axes: List[Tuple[str, list]]

    def cases(self) -> Iterator[Case]:
        for data in self.data:
            axes = self.axes + [(name, values) for name, values in data.axes.items() if name not in dict(self.axes)]
            for combo in itertools.product(*(values for _, values in axes)):
                kwargs, shown = dict(data.options), []
                try:
                    for (name, _), value in zip(axes, combo):
                        if value is None:
                            continue
                        items = value.items() if name.startswith("+") else [(name, value)]
                        for key, symbol in items:
                            kwargs[key] = resolve(symbol, data)
                            shown.append(f"{key}={render(kwargs[key], symbol)}")
                except Skip:
                    continue
                yield Case(f"{self.name}/{data.name}/{','.join(shown) or 'defaults'}", [("compute", {**data.call(), **kwargs})])


def stream_case(family: str, data: Data, sizes: Sequence[int], options: Dict[str, Any], *, final_in_compute: bool = False,
                load: Optional[Dict[str, Any]] = None, extra_steps: Sequence[Tuple[str, Dict[str, Any]]] = (),
                label: str = "") -> Case:
    """``data`` split into batches of ``sizes`` rows (aligned inputs split alike) and added with
    ``add_batch``, then ``compute(**options)``; with ``final_in_compute`` the last batch goes
    to ``compute`` instead. ``extra_steps`` run after the batches, before the compute."""
    assert sum(sizes) == len(data.references), (data.name, sizes)
    aligned = {"predictions": data.predictions, "references": data.references,
               **{k: v for k, v in data.inputs.items() if k not in ("unlabeled_predictions", "unlabeled_baseline_predictions")}}
    batches, start = [], 0
    for size in sizes:
        batches.append({k: v[start:start + size] for k, v in aligned.items()})
        start += size
    unaligned = {k: v for k, v in data.inputs.items() if k in ("unlabeled_predictions", "unlabeled_baseline_predictions")}
    if unaligned:
        batches[0] = {**batches[0], **unaligned}
    steps = [("add_batch", batch) for batch in batches]
    options = {**data.options, **options}
    if final_in_compute:
        _, last = steps.pop()
        options = {**last, **options}
    steps += list(extra_steps) + [("compute", options)]
    shown = ",".join(f"{k}={render(v, None)}" for k, v in options.items() if k not in aligned and k not in unaligned)
    how = "+".join(map(str, sizes)) + ("(last in compute)" if final_in_compute else "")
    loaded = f"load={render(load, None)}," if load else ""
    return Case(f"{family}/{data.name}/{label}batches={how},{loaded}{shown}".rstrip(","), steps, dict(load or {}))


def matrix_cases(family: str, matrices: Dict[str, Any], axes: List[Tuple[str, list]]) -> Iterator[Case]:
    """``compute(confusion_matrix=...)`` for every matrix crossed with ``axes``."""
    data = [Data(name, None, None, {"confusion_matrix": matrix}) for name, matrix in matrices.items()]
    return Family(family, data, axes).cases()


# ----------------------------------------------------------------------------- shared axes
def ci(level=0.95, method=None, seed=0, n_resamples=200) -> Dict[str, Any]:
    """A confidence interval request; always seeded with few resamples (deterministic, fast)."""
    options = {"confidence_level": level}
    if method is not None:
        options["ci_method"] = method
    return {**options, "n_resamples": n_resamples, "seed": seed}


CI_VARIANTS = [None, ci(), ci(method="agresti_coull"), ci(0.9, "wilson"), ci(method="bootstrap"), ci(0.8, "bootstrap", seed=7)]
CI_PAIRED = [None, ci(), ci(0.9, "wilson"), ci(method="bootstrap"), ci(0.8, "bootstrap", seed=3)]
RETURNS = [None, {"return_per_class": True}, {"return_per_class": True, "return_confusion_matrix": True}]
CLASS_MASKS = [None, [0], [1], [0, 2], [9]]
# balanced_accuracy refuses adjusted with class_mask: that pair is one entry, not a whole axis.
MASK_OR_ADJUSTED = [None, {"adjusted": True}, {"class_mask": [0]}, {"class_mask": [1]}, {"class_mask": [0, 2]},
                    {"class_mask": [9]}, {"adjusted": True, "class_mask": [1]}]

# "+classes": how the classes are named, one at a time (labels and num_classes together is
# one more combination the modules must refuse or accept consistently).
CLASS_SPECS = [None, {"labels": "@labels"}, {"labels": "@labels_reversed"}, {"labels": "@labels_plus_unseen"},
               {"labels": "@labels_missing"}, {"num_classes": "@K"}, {"num_classes": "@K+1"},
               {"labels": "@labels", "num_classes": "@K"}]


def uniforms(seed: int, count: int) -> List[float]:
    """Pseudo-random numbers in [0, 1) from a fixed 64-bit LCG: the same on every platform and
    NumPy version, so the larger data sets below never change."""
    state, out = seed * 2862933555777941757 + 3037000493, []
    for _ in range(count):
        state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
        out.append((state >> 11) / 2**53)
    return out


def draw(u: float, shares: Sequence[float]) -> int:
    """The index of the class that ``u`` falls into, for class shares summing to 1."""
    total = 0.0
    for index, share in enumerate(shares):
        total += share
        if u < total:
            return index
    return len(shares) - 1


def noisy_labels(seed: int, n: int, shares: Sequence[float], right: float) -> Tuple[List[int], List[int]]:
    """References drawn from ``shares``; each prediction right with probability ``right``, else uniform."""
    u = uniforms(seed, 3 * n)
    refs = [draw(u[i], shares) for i in range(n)]
    k = len(shares)
    preds = [r if u[n + i] < right else int(u[2 * n + i] * k) for i, r in enumerate(refs)]
    return preds, refs


def second_judge(seed: int, refs: Sequence[int], first: Sequence[int], agree: float, right: float, k: int) -> List[int]:
    """A second judge that copies ``first`` with probability ``agree``, else is right with probability ``right``."""
    u = uniforms(seed, 3 * len(refs))
    n = len(refs)
    return [a if u[i] < agree else (r if u[n + i] < right else int(u[2 * n + i] * k))
            for i, (r, a) in enumerate(zip(refs, first))]


# ----------------------------------------------------------------------------- label data
def label_data() -> List[Data]:
    """Predicted labels vs true labels: binary, multi-class, strings, padding, weights, array types."""
    bin_refs, bin_preds = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 0, 0, 1, 1, 1, 1, 1, 0]
    m_refs = [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2]
    m_preds = [0, 0, 1, 2, 1, 1, 0, 2, 2, 1, 2]
    pad = -100
    large_preds, large_refs = noisy_labels(1, 400, [0.55, 0.25, 0.15, 0.05], 0.7)
    rare_preds, rare_refs = noisy_labels(2, 500, [0.95, 0.05], 0.8)
    data = [
        Data("bin", bin_preds, bin_refs, classes=(0, 1)),
        Data("bin_rare", [0] * 15 + [1, 1] + [1, 0, 1], [0] * 17 + [1] * 3, classes=(0, 1)),
        Data("bin_perfect", [0, 1, 0, 1, 1, 0], [0, 1, 0, 1, 1, 0], classes=(0, 1)),
        Data("bin_constant_prediction", [0] * 7, [0, 0, 1, 1, 1, 0, 1], classes=(0, 1)),
        Data("bin_no_positive_reference", [0, 0, 1, 0, 1, 0], [0] * 6, classes=(0, 1)),
        Data("bin_inverted", [1, 1, 0, 0, 1], [0, 0, 1, 1, 0], classes=(0, 1)),
        Data("multi3", m_preds, m_refs, classes=(0, 1, 2)),
        Data("multi_class_without_reference", [0, 3, 1, 3, 2, 1], [0, 0, 1, 1, 2, 2], classes=(0, 1, 2, 3)),
        Data("multi_sparse_ints", [1, 3, 3, 7, 1, 7], [1, 3, 7, 3, 1, 7], classes=(1, 3, 7)),
        Data("single_reference_class", [2, 2, 0, 2], [2, 2, 2, 2], classes=(0, 2)),
        Data("str_bin", ["safe", "unsafe", "unsafe", "safe", "safe", "unsafe", "safe"],
             ["safe", "unsafe", "safe", "safe", "safe", "unsafe", "unsafe"], classes=("safe", "unsafe")),
        Data("str_multi", ["cat", "dog", "emu", "emu", "cat", "dog"], ["cat", "dog", "dog", "emu", "emu", "dog"],
             classes=("cat", "dog", "emu")),
        Data("pad", [0, 1, 2, 2, 0, 1, 0, 1], [0, 1, pad, 2, 1, pad, 0, 2], classes=(0, 1, 2), pad=pad,
             axes={"ignore_index": [None, pad]}),
        Data("pad_everything", [0, 1, 0, 1], [pad] * 4, classes=(0, 1), pad=pad, axes={"ignore_index": [None, pad]}),
        Data("weighted", bin_preds, bin_refs, {"sample_weight": [1, 2, 0, 1, 0.5, 1, 0, 3, 1, 1]}, classes=(0, 1)),
        Data("weighted_zero_class", m_preds, m_refs, {"sample_weight": [1, 1, 2, 1, 1, 1, 1, 0, 0, 0, 0]},
             classes=(0, 1, 2)),
        Data("weights_all_zero", bin_preds, bin_refs, {"sample_weight": [0] * 10}, classes=(0, 1)),
        Data("weights_equal", m_preds, m_refs, {"sample_weight": [2.5] * 11}, classes=(0, 1, 2)),
        Data("seg_numpy_255", np.array([[0, 1, 1, 2], [2, 2, 0, 1], [1, 0, 0, 255]]),
             np.array([[0, 1, 2, 2], [2, 255, 0, 1], [1, 1, 0, 255]]), classes=(0, 1, 2), pad=255,
             axes={"ignore_index": [None, 255]}),
        Data("bool_labels", [True, True, False, False, True], [True, False, False, True, True], classes=(False, True)),
        Data("float_integral_labels", [0.0, 1.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0], classes=(0, 1)),
        Data("one_sample", [1], [1], classes=(1,)),
        Data("empty", [], [], classes=()),
        Data("large_multi4", large_preds, large_refs, classes=(0, 1, 2, 3)),
        Data("large_bin_rare", rare_preds, rare_refs, classes=(0, 1)),
        Data("large_weighted", large_preds[:200], large_refs[:200],
             {"sample_weight": [round(0.25 + 2 * u, 3) for u in uniforms(3, 200)]}, classes=(0, 1, 2, 3)),
    ]
    if torch is not None:
        data.append(Data("torch_multi", torch.tensor(m_preds), torch.tensor(m_refs), classes=(0, 1, 2)))
    if pd is not None:
        data.append(Data("pandas_str", pd.Series(["safe", "unsafe", "unsafe", "safe"]),
                         pd.Series(["safe", "unsafe", "safe", "safe"]), classes=("safe", "unsafe")))
    return data


def bad_label_data() -> List[Data]:
    """Inputs refused whatever the options: crossed with a few options only (which check comes first)."""
    return [
        Data("length_mismatch", [0, 1, 1], [0, 1, 1, 0], classes=(0, 1)),
        Data("mixed_types", [0, "a", 1, 0], [0, "a", 1, 1], classes=()),
        Data("string_vs_int", ["0", "1", "1"], [0, 1, 1], classes=()),
        Data("nested_ragged", [[0, 1], [1]], [[0, 1], [1]], classes=(0, 1)),
        Data("none_label", [0, None, 1], [0, 1, 1], classes=(0, 1)),
        Data("non_integer_labels", [0.5, 1.0, 0.0], [0, 1, 0], classes=(0, 1)),
        Data("dict_input", {"a": 1}, {"a": 1}, classes=()),
        # Validation vs dropping weight-0 samples: is a bad value refused when its weight is 0?
        Data("zero_weight_on_unknown_reference", [0, 1, 1, 0], [0, 1, 2, 0], {"sample_weight": [1, 1, 0, 1]}, classes=(0, 1)),
        Data("zero_weight_on_mixed_type", [0, 1, 1, 0], [0, 1, "a", 0], {"sample_weight": [1, 1, 0, 1]}, classes=(0, 1)),
    ]


BAD_INPUT_OPTIONS = [None, {"labels": [0, 1]}, {"num_classes": 2}, {"ignore_index": -100}, {"class_mask": [9]},
                     ci(method="bootstrap"), {"return_per_class": True, "return_confusion_matrix": True},
                     {"zero_division": 7}]


def baseline_data() -> List[Data]:
    """Two systems' labels on the same references (paired comparison)."""
    refs = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0]
    a = [0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 1, 0]
    b = [0, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0]
    m_refs = [0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 1, 2]
    m_a = [0, 0, 1, 1, 1, 2, 2, 2, 0, 0, 1, 2]
    m_b = [0, 1, 1, 1, 0, 2, 2, 1, 0, 0, 1, 1]
    s = ["safe", "unsafe"]
    # Larger pairs: many discordant items (the normal approximation) and few (the exact mid-p).
    la, lr = noisy_labels(4, 300, [0.7, 0.3], 0.8)
    lb_far = second_judge(5, lr, la, 0.6, 0.75, 2)
    lb_near = second_judge(6, lr, la, 0.97, 0.75, 2)
    ma, mr = noisy_labels(7, 240, [0.5, 0.3, 0.2], 0.75)
    mb = second_judge(8, mr, ma, 0.7, 0.7, 3)
    return [
        Data("base_bin", a, refs, {"baseline_predictions": b}, classes=(0, 1)),
        Data("base_same", a, refs, {"baseline_predictions": list(a)}, classes=(0, 1)),
        Data("base_multi", m_a, m_refs, {"baseline_predictions": m_b}, classes=(0, 1, 2)),
        Data("base_str", [s[v] for v in a], [s[v] for v in refs], {"baseline_predictions": [s[v] for v in b]},
             classes=("safe", "unsafe")),
        Data("base_pad", a, refs[:3] + [-100] + refs[4:10] + [-100, 0], {"baseline_predictions": b},
             classes=(0, 1), pad=-100, axes={"ignore_index": [None, -100]}),
        Data("base_weighted", a, refs, {"baseline_predictions": b,
                                        "sample_weight": [1, 0, 2, 1, 1, 0.5, 1, 1, 0, 2, 1, 1]}, classes=(0, 1)),
        Data("base_weights_equal", a, refs, {"baseline_predictions": b, "sample_weight": [3] * 12}, classes=(0, 1)),
        Data("base_baseline_new_class", a, refs, {"baseline_predictions": b[:-1] + [2]}, classes=(0, 1)),
        Data("base_all_ignored", a[:4], [-100] * 4, {"baseline_predictions": b[:4]}, classes=(0, 1), pad=-100,
             options={"ignore_index": -100}),
        Data("base_large_far", la, lr, {"baseline_predictions": lb_far}, classes=(0, 1)),
        Data("base_large_near", la, lr, {"baseline_predictions": lb_near}, classes=(0, 1)),
        Data("base_large_multi", ma, mr, {"baseline_predictions": mb}, classes=(0, 1, 2)),
        Data("base_large_weighted", la[:150], lr[:150], {"baseline_predictions": lb_far[:150],
                                                           "sample_weight": [round(0.5 + u, 2) for u in uniforms(9, 150)]},
             classes=(0, 1)),
    ]


def score_data() -> List[Data]:
    """Binary scores of the positive class with 0/1 (or string) references, for thresholds."""
    refs = [0, 0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 0]
    probs = [0.1, 0.4, 0.35, 0.8, 0.65, 0.3, 0.7, 0.9, 0.05, 0.5, 0.5, 0.2]
    u = uniforms(10, 600)
    large_refs = [int(x < 0.2) for x in u[:300]]
    large_scores = [round(min(1.0, max(0.0, 0.35 * r + 0.65 * x)), 3) for r, x in zip(large_refs, u[300:])]
    data = [
        Data("scores", probs, refs, classes=(0, 1)),
        Data("scores_ties", [0.5, 0.5, 0.2, 0.5, 0.8, 0.2, 0.8, 0.5], [0, 1, 0, 1, 1, 1, 0, 0], classes=(0, 1)),
        Data("logits", [-2.0, 0.3, -0.5, 1.7, 0.9, -1.2, 0.4, 2.5, -3.0, 0.0, 0.1, -0.1], refs, classes=(0, 1)),
        Data("scores_str", probs[:7], ["safe", "safe", "safe", "unsafe", "unsafe", "unsafe", "safe"],
             classes=("safe", "unsafe")),
        Data("scores_weighted", probs, refs, {"sample_weight": [1, 0, 2, 1, 1, 0.5, 1, 1, 0, 2, 1, 1]}, classes=(0, 1)),
        Data("scores_pad", probs[:8], refs[:2] + [-100] + refs[3:7] + [-100], classes=(0, 1), pad=-100,
             axes={"ignore_index": [None, -100]}),
        Data("scores_one_class", [0.2, 0.7, 0.4], [0, 0, 0], classes=(0, 1)),
        Data("scores_large", large_scores, large_refs, classes=(0, 1)),
    ]
    if torch is not None:
        data.append(Data("scores_torch", torch.tensor(probs, dtype=torch.float32), torch.tensor(refs), classes=(0, 1)))
    return data


def by_name(data: List[Data], *names: str) -> List[Data]:
    found = {d.name: d for d in data}
    return [found[name] for name in names]


def invalid_option_cases(family: str, data: List[Data], options: Dict[str, list]) -> Iterator[Case]:
    """Each bad value of each option on its own: the error messages are compared too."""
    for name, values in options.items():
        yield from Family(family, data, [(name, values)]).cases()


def bad_input_cases(data: List[Data], options: list) -> Iterator[Case]:
    return Family("bad_input", data, [("+options", options)]).cases()


# ----------------------------------------------------------------------------- balanced_accuracy
def balanced_accuracy_cases() -> Iterator[Case]:
    labels, base, scores = label_data(), baseline_data(), score_data()
    yield from Family("classes", labels + scores[:2], [
        ("task", [None, "binary", "multiclass"]), ("+classes", CLASS_SPECS),
        ("pos_label", [None, "@first", "@last", "@unseen"])]).cases()
    yield from Family("average", labels, [
        ("zero_division", [None, 0.0, 1.0]), ("+mask", MASK_OR_ADJUSTED), ("+returns", RETURNS)]).cases()
    yield from Family("ci", labels, [
        ("+ci", CI_VARIANTS), ("+mask", MASK_OR_ADJUSTED[:4]), ("zero_division", [None, 0.0]),
        ("labels", [None, "@labels_plus_unseen"])]).cases()
    yield from Family("threshold", scores, [
        ("threshold", [None, 0.0, 0.35, 0.5, 1.0, "auto"]), ("task", [None, "binary"]),
        ("pos_label", [None, "@first", "@last"]), ("+ci", [None, ci(method="wilson"), ci(method="bootstrap")]),
        ("adjusted", [None, True])]).cases()
    yield from Family("threshold_outputs", by_name(scores, "scores", "logits", "scores_str", "scores_weighted",
                                                   "scores_large"), [
        ("threshold", [0.5, "auto"]), ("+returns", RETURNS), ("labels", [None, "@labels_reversed"]),
        ("+mask", [None, {"class_mask": [1]}, {"zero_division": 1.0}])]).cases()
    yield from Family("baseline", base, [
        ("+ci", CI_PAIRED), ("+mask", MASK_OR_ADJUSTED[:4]), ("zero_division", [None, 1.0]),
        ("return_confusion_matrix", [None, True])]).cases()
    yield from Family("baseline_classes", by_name(base, "base_bin", "base_multi", "base_str", "base_weights_equal",
                                                  "base_weighted"), [
        ("+classes", CLASS_SPECS), ("task", [None, "binary"]), ("return_per_class", [None, True])]).cases()
    scored_pair = Data("base_scores", scores[0].predictions, scores[0].references,
                       {"baseline_predictions": [0.2, 0.5, 0.1, 0.6, 0.7, 0.2, 0.4, 0.95, 0.3, 0.45, 0.55, 0.1]},
                       classes=(0, 1))
    yield from Family("baseline_threshold", [scored_pair], [
        ("threshold", [None, 0.5, 0.4, "auto"]), ("+ci", [None, ci(), ci(method="bootstrap")]),
        ("pos_label", [None, 0])]).cases()
    yield from bad_input_cases(bad_label_data() + [
        Data("scores_nan", [0.2, float("nan"), 0.4, 0.9], [0, 1, 0, 1], classes=(0, 1)),
        Data("baseline_length_mismatch", [0, 1, 1], [0, 1, 0], {"baseline_predictions": [0, 1]}, classes=(0, 1))],
        BAD_INPUT_OPTIONS + [{"threshold": 0.5}, {"threshold": "auto"}])
    yield from invalid_option_cases("invalid", by_name(labels, "bin", "str_multi"), {
        "task": ["ternary", 1], "num_classes": [0, -1, 2.5, True, "3"], "labels": [[], [0, 0], [0, "a"], "01", [0.5, 1]],
        "pos_label": [1.5, [1]], "adjusted": ["yes", 2], "zero_division": [0.5, "warn", "@none"],
        "threshold": [-0.1, 1.5, "best", True], "ignore_index": [[-100], 1.5, "@none"],
        "class_mask": [[True], "0", [-1], 1, [2**63]], "confidence_level": [0, 1, 1.5, "high", True],
        "ci_method": ["exact", "bca"], "n_resamples": [0, 2.5, 10**7], "seed": [-1, 1.5, "x"],
        "return_per_class": ["yes", 2], "return_confusion_matrix": ["@none", 1], "ajusted": [True],
        "sample_weight": [[1, 1, 1], [-1] * 10, [float("nan")] * 10, ["a"] * 10, [float("inf")] + [1] * 9],
        "references": ["@none"], "predictions": ["@none", [0.5] * 10],
        "+pair": [{"threshold": 0.5, "task": "multiclass"}, {"threshold": "auto", **ci()}],
    })
    yield from _label_streams(labels, base, scores, adjusted=True)
    good, bad = _label_matrices()
    yield from matrix_cases("matrix", good, [
        ("+classes", [None, {"labels": [0, 1, 2]}, {"labels": ["safe", "unsafe"]}, {"labels": [2, 1, 0]}]),
        ("task", [None, "binary"]), ("pos_label", [None, 0]), ("+ci", [None, ci(), ci(method="bootstrap")]),
        ("+returns", [None, RETURNS[2]])])
    yield from matrix_cases("matrix_options", good, [
        ("+mask", MASK_OR_ADJUSTED), ("zero_division", [None, 0.0, 1.0])])
    yield from matrix_cases("bad_matrix", bad, [("+options", [None, {"labels": [0, 1]}, ci(), {"threshold": 0.5}])])
    yield from matrix_cases("matrix_with_samples", {"m2": good["m2"]}, [
        ("+samples", [{"predictions": [0, 1], "references": [0, 1]}, {"sample_weight": [1, 1]},
                      {"baseline_predictions": [0, 1]}])])
    yield from _load_cases(labels + scores, [
        {"ignore_index": -100}, {"adjusted": True}, {"zero_division": 0.0}, {"threshold": "auto"}, {"task": "multiclass"},
        LOAD_CI, {"seed": 3}, {"ajusted": True}, {"zero_division": 2}, {"threshold": 0.5, "ignore_index": -100}])


def _label_matrices() -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """Confusion matrices (rows = references): counted ones, and refused ones."""
    good = {
        "m2": [[5, 1], [2, 4]],
        "m2_numpy": np.array([[7, 3], [0, 2]]),
        "m3": [[3, 1, 0], [1, 4, 2], [0, 1, 5]],
        "m3_zero_row": [[3, 0, 1], [1, 2, 0], [0, 0, 0]],
        "m2_weighted": [[2.5, 0.5], [1.0, 3.25]],
        "m2_empty": [[0, 0], [0, 0]],
        "m1": [[5]],
        "m4_large": [[180, 20, 9, 1], [15, 60, 4, 1], [6, 3, 40, 11], [0, 2, 3, 15]],
    }
    if torch is not None:
        good["m2_torch"] = torch.tensor([[4, 1], [1, 4]])
    bad = {
        "non_square": [[1, 2, 3], [4, 5, 6]],
        "negative": [[1, -1], [0, 2]],
        "nan_entry": [[1, float("nan")], [0, 2]],
        "not_numbers": [["a", "b"], ["c", "d"]],
        "flat": [1, 2, 3, 4],
        "three_d": [[[1, 2], [3, 4]]],
        "empty_list": [],
    }
    return good, bad


def _label_streams(labels: List[Data], base: List[Data], scores: List[Data], adjusted: bool) -> Iterator[Case]:
    """Streamed cases shared by balanced_accuracy and informedness (labels, baselines, weights)."""
    named = {d.name: d for d in labels + base + scores + bad_label_data()}
    option_sets = [{}, {"return_per_class": True, "return_confusion_matrix": True}, ci(method="bootstrap"),
                   {"class_mask": [1], "zero_division": 0.0}]
    if adjusted:
        option_sets.append({"adjusted": True, **ci()})
    plans = {"bin": [(10,), (4, 3, 3), (1,) * 10], "multi3": [(6, 5), (2, 2, 2, 5)], "str_bin": [(3, 4)],
             "pad": [(3, 5)], "weighted": [(5, 5), (2, 3, 5)], "base_bin": [(6, 6), (3, 3, 3, 3)],
             "base_weighted": [(7, 5)], "seg_numpy_255": [(1, 2)], "mixed_types": [(2, 2)],
             "large_multi4": [(100, 300), (150, 150, 100)], "base_large_near": [(120, 180)]}
    if "torch_multi" in named:
        plans["torch_multi"] = [(5, 6)]
    for name, splits in plans.items():
        data = named[name]
        for sizes in splits:
            for options in option_sets:
                if name in ("pad", "seg_numpy_255"):
                    options = {**options, "ignore_index": data.pad}
                yield stream_case("stream", data, sizes, options)
            if len(sizes) > 1:
                yield stream_case("stream", data, sizes, {}, final_in_compute=True)
    bin_data = named["bin"]
    bad = {"predictions": [0, 1], "references": [0, 1, 1]}
    # A refused batch leaves what was added before; a failed compute keeps the batches.
    yield stream_case("stream_refused", bin_data, (5, 5), {}, extra_steps=[("add_batch", bad)], label="bad_batch_then_")
    yield stream_case("stream_refused", bin_data, (5, 5), {}, extra_steps=[("compute", {"zero_division": 7})],
                      label="bad_compute_then_")
    yield stream_case("stream_refused", bin_data, (5, 5), {"sample_weight": [1] * 10}, label="weights_at_compute_")
    yield stream_case("stream_refused", named["base_bin"], (6, 6), {"baseline_predictions": [0] * 12},
                      label="baseline_at_compute_")
    yield Case("stream_refused/base_bin/baseline_in_one_batch_only", [
        ("add_batch", {"predictions": [0, 1], "references": [0, 1], "baseline_predictions": [1, 1]}),
        ("add_batch", {"predictions": [0, 1], "references": [1, 1]}), ("compute", {})])
    yield Case("stream_refused/str_bin/strings_then_integers", [
        ("add_batch", {"predictions": ["safe", "unsafe"], "references": ["safe", "safe"]}),
        ("add_batch", {"predictions": [0, 1], "references": [1, 1]}), ("compute", {})])
    yield Case("stream_refused/bin/compute_with_nothing_added", [("compute", {})])
    yield Case("stream_add/bin/add_one_by_one", [("add", {"prediction": p, "reference": r})
                                                 for p, r in zip(bin_data.predictions, bin_data.references)] + [("compute", {})])
    yield Case("stream_add/str_bin/add_keywords_plural", [
        ("add", {"predictions": "safe", "references": "unsafe"}), ("add", {"predictions": "safe", "references": "safe"}),
        ("compute", {"return_per_class": True})])
    yield Case("stream_add/bin/add_with_weight", [
        ("add", {"prediction": 1, "reference": 1, "sample_weight": 2.0}), ("add", {"prediction": 0, "reference": 1}),
        ("add", {"prediction": 0, "reference": 0, "sample_weight": 0.5}), ("compute", {"return_confusion_matrix": True})])
    if "scores" in named:
        for options in ({"threshold": 0.5}, {"threshold": "auto"}, {}, {"threshold": 0.5, **ci()}):
            yield stream_case("stream", named["scores"], (4, 4, 4), options)
            yield stream_case("stream", named["scores_large"], (100, 200), options)


def _load_cases(data: List[Data], loads: Sequence[Dict[str, Any]],
                computes: Sequence[Dict[str, Any]] = ({}, {"ignore_index": None}, {"zero_division": "skip"})) -> Iterator[Case]:
    """Options given to ``evaluate.load`` (defaults for compute, some refused there), then
    overridden or not at compute."""
    pool = {d.name: d for d in data}
    chosen = [pool[name] for name in ("bin", "pad", "str_multi", "scores", "ml", "ml_probs", "ml_pad", "top3",
                                      "top_names", "top_pad", "weighted", "multi3") if name in pool]
    for load in loads:
        for each in chosen:
            for overrides in computes:
                shown = ",".join(f"{k}={v!r}" for k, v in overrides.items())
                yield Case(f"load/{each.name}/load={render(load, None)}{',' if shown else ''}{shown}",
                           [("compute", {**each.call(), **each.options, **overrides})], dict(load))


# Load-time interval options always come with a seed: an unseeded bootstrap is not reproducible.
LOAD_CI = {"confidence_level": 0.9, "seed": 3, "n_resamples": 200}


# ----------------------------------------------------------------------------- informedness
def informedness_cases() -> Iterator[Case]:
    labels, base = label_data(), baseline_data()
    averages = ("average", [None, "macro", "weighted"])
    yield from Family("classes", labels, [("+classes", CLASS_SPECS), averages]).cases()
    yield from Family("average", labels, [
        averages, ("zero_division", [None, 0.0]), ("class_mask", CLASS_MASKS), ("return_markedness", [None, True]),
        ("+returns", [None, RETURNS[2]])]).cases()
    yield from Family("ci", labels, [
        ("+ci", CI_VARIANTS), averages, ("zero_division", [None, 0.0]), ("class_mask", [None, [0]]),
        ("return_markedness", [None, True])]).cases()
    yield from Family("baseline", base, [
        ("+ci", CI_PAIRED), averages, ("class_mask", [None, [1]]), ("zero_division", [None, 0.0]),
        ("return_confusion_matrix", [None, True])]).cases()
    yield from Family("baseline_classes", by_name(base, "base_bin", "base_multi", "base_str", "base_weights_equal",
                                                  "base_weighted"), [
        ("+classes", CLASS_SPECS), ("return_per_class", [None, True]), ("return_markedness", [None, True])]).cases()
    golden = by_name(labels, "bin", "bin_rare", "bin_constant_prediction", "bin_inverted", "multi3",
                     "multi_class_without_reference", "str_bin", "str_multi", "pad", "weighted", "single_reference_class",
                     "pad_everything", "large_multi4", "large_bin_rare", "large_weighted") + by_name(base, "base_bin")
    yield from Family("unlabeled", golden, [
        ("unlabeled_predictions", [None, "@judged", "@judged_skewed", "@judged_pad", "@judged_unknown", "@empty",
                                   "@judged_one_class"]),
        ("unlabeled_baseline_predictions", [None, "@judged_b"]), ("+ci", [None, ci(method="bootstrap"), ci(0.9, seed=5)]),
        ("labels", [None, "@labels_reversed"])]).cases()
    yield from Family("unlabeled_options", by_name(labels, "bin", "multi3", "str_multi", "weighted", "large_multi4"), [
        ("unlabeled_predictions", ["@judged"]), ("unlabeled_baseline_predictions", [None, "@judged_b"]), averages,
        ("class_mask", [None, [0]]), ("zero_division", [None, 0.0]), ("return_per_class", [None, True])]).cases()
    grouped = by_name(labels, "bin", "bin_rare", "multi3", "str_bin", "weighted", "pad", "str_multi", "bin_perfect",
                      "large_multi4", "large_bin_rare", "weights_equal") + by_name(base, "base_bin")
    yield from Family("groups", grouped, [
        ("groups", ["@groups2", "@groups3_str", "@groups1", "@groups_short", "@groups_by_half"]),
        ("+ci", [None, ci(), ci(method="bootstrap")]), ("average", [None, "macro"]),
        ("unlabeled_predictions", [None, "@judged"])]).cases()
    yield from bad_input_cases(bad_label_data() + [
        Data("scores", [0.2, 0.7, 0.4, 0.9], [0, 1, 0, 1], classes=(0, 1)),
        Data("baseline_length_mismatch", [0, 1, 1], [0, 1, 0], {"baseline_predictions": [0, 1]}, classes=(0, 1))],
        BAD_INPUT_OPTIONS + [{"unlabeled_predictions": [0, 1]}, {"groups": [0, 1, 0]}])
    yield from invalid_option_cases("invalid", by_name(labels, "bin", "str_multi"), {
        "average": ["micro", "binary", 1], "num_classes": [0, 2.5, True], "labels": [[], [0, 0], [0, "a"], "01"],
        "zero_division": [1.0, 0.5, "warn", "@none"], "ignore_index": [[-100], 1.5], "class_mask": [[True], "0", [-1]],
        "confidence_level": [0, 1.5, "high"], "ci_method": ["exact"], "n_resamples": [0, 2.5], "seed": [-1, "x"],
        "return_markedness": ["yes"], "return_per_class": [2], "task": ["binary"], "pos_label": [1], "threshold": [0.5],
        "adjusted": [True], "sample_weight": [[1, 1, 1], [-1] * 10, ["a"] * 10],
        "groups": [[[0, 1]] * 10, [0.5] * 10, [None] * 10], "unlabeled_predictions": [[[0, 1]], "01", [0.5, 1.0]],
        "unlabeled_baseline_predictions": [[0, 1]], "predictions": [[0.5] * 10, "@none"], "references": ["@none"],
    })
    yield from invalid_option_cases("invalid", by_name(labels, "weighted"), {"groups": ["@groups2"]})
    yield from invalid_option_cases("invalid", by_name(labels, "multi3"), {
        "+ci": [ci(method="agresti_coull"), ci(method="wilson"), ci(seed=None, method="agresti_coull")]})
    yield from _label_streams(labels, base, [], adjusted=False)
    bin_data, multi = by_name(labels, "bin", "multi3")
    judged = {"unlabeled_predictions": [0] * 6 + [1] * 4}
    yield Case("stream_unlabeled/bin/unlabeled_batch_alone_first", [
        ("add_batch", judged), ("add_batch", {"predictions": bin_data.predictions, "references": bin_data.references}),
        ("compute", ci(method="bootstrap"))])
    yield Case("stream_unlabeled/bin/unlabeled_at_compute_after_batches", [
        ("add_batch", {"predictions": bin_data.predictions[:5], "references": bin_data.references[:5]}),
        ("add_batch", {"predictions": bin_data.predictions[5:], "references": bin_data.references[5:]}),
        ("compute", {**judged, "unlabeled_baseline_predictions": [1] * 5 + [0] * 5})])
    yield Case("stream_unlabeled/bin/unlabeled_split_over_batches", [
        ("add_batch", {"predictions": bin_data.predictions[:5], "references": bin_data.references[:5],
                       "unlabeled_predictions": [0, 0, 1]}),
        ("add_batch", {"unlabeled_predictions": [1, 1, 0, 0]}),
        ("add_batch", {"predictions": bin_data.predictions[5:], "references": bin_data.references[5:],
                       "unlabeled_predictions": [1]}), ("compute", {})])
    yield Case("stream_unlabeled/bin/only_unlabeled", [("add_batch", judged), ("compute", {})])
    yield Case("stream_unlabeled/bin/unlabeled_baseline_alone", [
        ("add_batch", {"predictions": bin_data.predictions, "references": bin_data.references,
                       "unlabeled_baseline_predictions": [0, 1, 1]}), ("compute", {})])
    yield Case("stream_unlabeled/multi3/groups_per_batch", [
        ("add_batch", {"predictions": multi.predictions[:6], "references": multi.references[:6], "groups": ["a"] * 6}),
        ("add_batch", {"predictions": multi.predictions[6:], "references": multi.references[6:], "groups": ["b"] * 5}),
        ("compute", {**ci(), "unlabeled_predictions": [0, 1, 2, 2, 1, 0, 0]})])
    yield Case("stream_unlabeled/multi3/groups_in_one_batch_only", [
        ("add_batch", {"predictions": multi.predictions[:6], "references": multi.references[:6], "groups": ["a"] * 6}),
        ("add_batch", {"predictions": multi.predictions[6:], "references": multi.references[6:]}), ("compute", {})])
    good, bad = _label_matrices()
    yield from matrix_cases("matrix", good, [
        ("labels", [None, [0, 1, 2], ["safe", "unsafe"], [2, 1, 0]]), averages,
        ("+ci", [None, ci(), ci(method="bootstrap")]), ("+returns", [None, {**RETURNS[2], "return_markedness": True}])])
    yield from matrix_cases("matrix_unlabeled", {name: good[name] for name in ("m2", "m3", "m2_weighted", "m3_zero_row",
                                                                                "m4_large")}, [
        ("unlabeled_predictions", [[0, 0, 1, 1, 1], [0, 1, 2, 2], [5]]),
        ("unlabeled_baseline_predictions", [None, [1, 1, 0]]), ("+ci", [None, ci(method="bootstrap")])])
    yield from matrix_cases("matrix_options", good, [("class_mask", [None, [0], [5]]), ("zero_division", [None, 0.0])])
    yield from matrix_cases("bad_matrix", bad, [("+options", [None, {"labels": [0, 1]}, ci(),
                                                              {"unlabeled_predictions": [0, 1]}])])
    yield from matrix_cases("matrix_with_samples", {"m2": good["m2"]}, [
        ("+samples", [{"predictions": [0, 1], "references": [0, 1]}, {"sample_weight": [1, 1]},
                      {"baseline_predictions": [0, 1]}, {"groups": [0, 1]}])])
    yield from _load_cases(labels, [
        {"ignore_index": -100}, {"average": "macro"}, {"zero_division": 0.0}, {"return_markedness": True}, LOAD_CI,
        {"average": "micro"}, {"pos_label": 1}], computes=({}, {"ignore_index": None}, {"average": "weighted"}))


# ----------------------------------------------------------------------------- multilabel
def multilabel_data() -> List[Data]:
    refs = [[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1], [0, 0, 1]]
    preds = [[1, 0, 0], [0, 1, 1], [1, 0, 0], [0, 0, 0], [1, 1, 1], [0, 1, 0], [0, 1, 1], [0, 0, 1]]
    probs = [[0.9, 0.2, 0.4], [0.1, 0.8, 0.7], [0.7, 0.45, 0.3], [0.2, 0.1, 0.5], [0.8, 0.6, 0.9],
             [0.3, 0.9, 0.45], [0.5, 0.55, 0.8], [0.35, 0.2, 0.6]]
    logits = [[2.1, -1.0, -0.3], [-2.0, 1.5, 0.9], [0.8, -0.2, -1.1], [-1.4, -2.2, 0.0], [1.3, 0.4, 2.2],
              [-0.8, 2.0, -0.2], [0.0, 0.2, 1.4], [-0.6, -1.3, 0.5]]
    pad_refs = [row[:] for row in refs]
    pad_refs[0][1] = pad_refs[3][2] = pad_refs[5][0] = pad_refs[6][1] = -100
    # 200 rows x 5 labels of prevalence 0.05-0.5, probabilities that lean towards the truth.
    u = uniforms(11, 2000)
    prevalence = [0.05, 0.15, 0.3, 0.5, 0.4]
    large_refs = [[int(u[5 * i + j] < prevalence[j]) for j in range(5)] for i in range(200)]
    large_probs = [[round(min(1.0, max(0.0, 0.4 * r + 0.6 * u[1000 + 5 * i + j])), 3) for j, r in enumerate(row)]
                   for i, row in enumerate(large_refs)]
    probs_kw = {"from_probas": True}
    # classes=(0, 1, 2): the label indices, for the "@names" symbols and class masks.
    labels3 = (0, 1, 2)
    data = [
        Data("ml", preds, refs, classes=labels3),
        Data("ml_probs", probs, refs, classes=labels3, options=probs_kw),
        Data("ml_logits", logits, refs, classes=labels3, options=probs_kw),
        Data("ml_pad", preds, pad_refs, classes=labels3, pad=-100, axes={"ignore_index": [None, -100]}),
        Data("ml_probs_pad", probs, pad_refs, classes=labels3, pad=-100, options=probs_kw,
             axes={"ignore_index": [None, -100]}),
        Data("ml_all_pad", preds[:3], [[-100] * 3] * 3, classes=labels3, pad=-100, options={"ignore_index": -100}),
        Data("ml_label_without_positives_or_negatives", [[1, 0, 1], [0, 1, 1], [1, 0, 0], [0, 0, 1]],
             [[1, 0, 1], [0, 0, 1], [1, 0, 1], [0, 0, 1]], classes=labels3),
        Data("ml_weighted", preds, refs, {"sample_weight": [1, 0, 2, 1, 0.5, 1, 0, 3]}, classes=labels3),
        Data("ml_weights_all_zero", preds, refs, {"sample_weight": [0] * 8}, classes=labels3),
        Data("ml_bool_numpy", np.array(preds, dtype=bool), np.array(refs, dtype=bool), classes=labels3),
        Data("ml_one_label", [[1], [0], [1], [1]], [[1], [0], [0], [1]], classes=(0,)),
        Data("ml_large_probs", large_probs, large_refs, classes=(0, 1, 2, 3, 4), options=probs_kw),
        Data("ml_large", [[int(p >= 0.5) for p in row] for row in large_probs], large_refs, classes=(0, 1, 2, 3, 4)),
    ]
    if torch is not None:
        data.append(Data("ml_torch_probs", torch.tensor(probs), torch.tensor(refs), classes=labels3, options=probs_kw))
    return data


def bad_multilabel_data() -> List[Data]:
    preds = [[1, 0, 0], [0, 1, 1], [1, 0, 0], [0, 0, 0]]
    refs = [[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0]]
    return [
        Data("ml_1d", [1, 0, 1, 1], [1, 0, 0, 1], classes=(0,)),
        Data("ml_shape_mismatch", [row[:2] for row in preds], refs, classes=(0, 1, 2)),
        Data("ml_not_binary", preds, [[2, 0, 1]] + refs[1:], classes=(0, 1, 2)),
        Data("ml_empty", [], [], classes=()),
        Data("ml_ragged", [[1, 0], [1]], [[1, 0], [0]], classes=(0, 1)),
        Data("ml_probabilities_without_from_probas", [[0.2, 0.9, 0.5]] * 4, refs, classes=(0, 1, 2)),
        Data("ml_nan_probability", [[0.2, float("nan"), 0.5]] * 4, refs, classes=(0, 1, 2), options={"from_probas": True}),
        Data("ml_3d", [[[1, 0]]] * 4, [[[1, 0]]] * 4, classes=(0, 1)),
        Data("ml_zero_weight_on_non_binary_row", preds, [[2, 0, 1]] + refs[1:], {"sample_weight": [0, 1, 1, 1]},
             classes=(0, 1, 2)),
    ]


def multilabel_cases() -> Iterator[Case]:
    data = multilabel_data()
    averages = ("average", [None, "weighted", "micro"])
    returns = [None, {"return_per_label": True, "return_confusion_matrix": True}]
    yield from Family("average", data, [
        averages, ("zero_division", [None, 0.0, 1.0]), ("class_mask", [None, [0], [1, 2], [5]]), ("+returns", returns)]).cases()
    yield from Family("threshold", data, [
        ("from_probas", [None, False, True]),
        ("threshold", [None, 0.3, 0.0, 1.0, "auto", [0.2, 0.5, 0.8], [0.5, float("inf"), 0.1], [0.5, 0.5]]),
        averages, ("return_per_label", [None, True])]).cases()
    yield from Family("ci", data, [
        ("+ci", CI_VARIANTS), averages, ("zero_division", [None, 1.0]), ("class_mask", [None, [0, 2]]),
        ("threshold", [None, [0.4, 0.6, 0.5]])]).cases()
    yield from Family("names", by_name(data, "ml", "ml_probs", "ml_pad", "ml_one_label", "ml_weighted"), [
        ("label_names", [None, "@names", "@names_short", "@names_dup", [1, 2, 3]]), ("return_per_label", [None, True]),
        ("ignore_index", [None, -100, 1, 2.5, "pad"])]).cases()
    yield from bad_input_cases(bad_multilabel_data(), [
        None, {"from_probas": True}, {"threshold": "auto", "from_probas": True}, {"ignore_index": -100},
        {"class_mask": [9]}, ci(method="bootstrap"), {"label_names": ["a", "b", "c"]}, {"zero_division": 7}])
    yield from invalid_option_cases("invalid", by_name(data, "ml", "ml_probs"), {
        "average": ["samples", "binary"], "from_probas": ["yes", 2],
        "threshold": [-0.1, "best", [[0.5]], ["a", "b", "c"], [float("nan")] * 3, True, "@none"],
        "zero_division": [0.5, "@none"], "class_mask": [[True], "0"], "confidence_level": [0, 1.2],
        "ci_method": ["exact"], "n_resamples": [0], "seed": [-1], "return_per_label": ["yes"], "labels": [[0, 1, 2]],
        "num_classes": [3], "sample_weight": [[1, 1], [-1] * 8, ["a"] * 8], "baseline_predictions": [[[0, 1, 0]] * 8],
        "predictions": ["@none"], "references": ["@none"], "+pair": [{"threshold": "auto", **ci()}],
    })
    named = {d.name: d for d in data}
    option_sets = [{}, {"average": "micro", "return_per_label": True}, ci(method="bootstrap"),
                   {"return_confusion_matrix": True, "class_mask": [1]}]
    for name, splits in {"ml": [(8,), (3, 5), (1,) * 8], "ml_probs": [(4, 4), (2, 3, 3)], "ml_pad": [(5, 3)],
                         "ml_weighted": [(4, 4)], "ml_bool_numpy": [(2, 6)], "ml_logits": [(6, 2)],
                         "ml_large_probs": [(50, 150), (100, 60, 40)]}.items():
        for sizes in splits:
            sets = option_sets + ([{"threshold": "auto"}, {"threshold": [0.3, 0.5, 0.7], **ci()}]
                                  if named[name].options.get("from_probas") else [])
            for options in sets:
                if name == "ml_pad":
                    options = {**options, "ignore_index": -100}
                yield stream_case("stream", named[name], sizes, options)
            if len(sizes) > 1:
                yield stream_case("stream", named[name], sizes, {}, final_in_compute=True)
    ml, probs = named["ml"], named["ml_probs"]
    yield Case("stream_mixed/ml/labels_then_probabilities", [
        ("add_batch", {"predictions": ml.predictions[:4], "references": ml.references[:4]}),
        ("add_batch", {"predictions": probs.predictions[4:], "references": probs.references[4:]}),
        ("compute", {"from_probas": True})])
    yield Case("stream_mixed/ml/batches_of_different_widths", [
        ("add_batch", {"predictions": ml.predictions[:4], "references": ml.references[:4]}),
        ("add_batch", {"predictions": [[0, 1]], "references": [[1, 1]]}), ("compute", {})])
    yield Case("stream_mixed/ml/compute_fails_then_succeeds", [
        ("add_batch", {"predictions": ml.predictions, "references": ml.references}),
        ("compute", {"average": "samples"}), ("compute", {"return_per_label": True})])
    yield Case("stream_add/ml/add_rows", [("add", {"prediction": p, "reference": r})
                                          for p, r in zip(ml.predictions, ml.references)] + [("compute", {})])
    yield Case("stream_refused/ml/compute_with_nothing_added", [("compute", {})])
    tables = {
        "t2": [[[171, 9], [4, 16]], [[135, 15], [5, 45]]],
        "t1_numpy": np.array([[[3, 1], [2, 4]]]),
        "t3_no_positives": [[[5, 1], [0, 0]], [[2, 2], [1, 3]], [[0, 0], [1, 6]]],
        "t_weighted": [[[2.5, 0.5], [1.0, 3.0]], [[1.5, 0.0], [0.5, 2.0]]],
        "t_empty": [[[0, 0], [0, 0]]],
    }
    bad_tables = {"t_2d": [[5, 1], [2, 4]], "t_wrong_shape": [[[1, 2, 3], [4, 5, 6]]], "t_negative": [[[1, -1], [2, 3]]],
                  "t_nan": [[[1, float("nan")], [2, 3]]], "t_strings": [[["a", "b"], ["c", "d"]]]}
    yield from matrix_cases("matrix", tables, [
        averages, ("zero_division", [None, 1.0]), ("+ci", [None, ci(), ci(method="bootstrap")]),
        ("+returns", returns), ("label_names", [None, ["a", "b"]])])
    yield from matrix_cases("matrix_options", {name: tables[name] for name in ("t2", "t3_no_positives")}, [
        ("class_mask", [None, [1], [4]]), ("from_probas", [None, True]), ("threshold", [None, "auto", 0.3])])
    yield from matrix_cases("bad_matrix", bad_tables, [("+options", [None, ci(), {"average": "micro"}])])
    yield from _load_cases(data, [
        {"from_probas": True}, {"from_probas": True, "threshold": "auto"}, {"average": "micro"}, {"ignore_index": -100},
        LOAD_CI, {"threshold": [0.4, 0.5, 0.6]}, {"average": "samples"}],
        computes=({}, {"threshold": 0.5}, {"average": "macro"}))


# ----------------------------------------------------------------------------- top-k
def topk_data() -> List[Data]:
    scores3 = [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.05, 0.05, 0.9], [0.05, 0.9, 0.05], [0.4, 0.35, 0.25],
               [0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.6, 0.1, 0.3]]
    refs3 = [0, 1, 2, 1, 2, 0, 0, 1]
    ties5 = [[0.2, 0.2, 0.2, 0.2, 0.2], [0.5, 0.1, 0.1, 0.2, 0.1], [0.1, 0.3, 0.3, 0.2, 0.1], [0.0, 0.0, 0.5, 0.5, 0.0],
             [0.3, 0.1, 0.3, 0.1, 0.2], [0.1, 0.1, 0.1, 0.1, 0.6], [0.25, 0.25, 0.25, 0.25, 0.0],
             [0.4, 0.3, 0.2, 0.1, 0.0], [0.1, 0.2, 0.3, 0.4, 0.0], [0.2, 0.2, 0.1, 0.1, 0.4]]
    refs5 = [0, 0, 2, 3, 4, 4, 1, 2, 3, 1]
    logits4 = [[2.0, -1.0, 0.5, -0.2], [-0.3, 1.2, 1.2, -2.0], [0.1, 0.0, -0.1, 3.0], [-1.0, -2.0, -0.5, -0.7],
               [1.5, 1.4, 1.6, 1.3], [0.0, 0.0, 0.0, 0.0], [-5.0, 2.0, 1.0, 0.0]]
    refs4 = [0, 2, 3, 2, 1, 3, 0]
    names = ["A", "B", "C", "D"]
    # 300 samples, 6 classes with a long tail; scores favour the true class, rounded so ties occur.
    u = uniforms(12, 300 + 1800)
    large_refs = [draw(x, [0.4, 0.25, 0.15, 0.1, 0.06, 0.04]) for x in u[:300]]
    large_scores = [[round(u[300 + 6 * i + j] + (0.6 if j == r else 0.0), 1) for j in range(6)]
                    for i, r in enumerate(large_refs)]
    data = [
        Data("top3", scores3, refs3, classes=(0, 1, 2)),
        Data("top5_ties", ties5, refs5, classes=(0, 1, 2, 3, 4)),
        Data("top4_logits", logits4, refs4, classes=(0, 1, 2, 3)),
        Data("top_names", logits4, [names[r] for r in refs4], classes=tuple(names), options={"labels": names}),
        Data("top_pad", scores3, [0, -100, 2, 1, -100, 0, 0, 1], classes=(0, 1, 2), pad=-100,
             axes={"ignore_index": [None, -100]}),
        Data("top_pad_everything", scores3[:3], [-100] * 3, classes=(0, 1, 2), pad=-100, options={"ignore_index": -100}),
        Data("top_class_without_reference", logits4, [0, 2, 2, 2, 1, 0, 0], classes=(0, 1, 2, 3)),
        Data("top_weighted", scores3, refs3, {"sample_weight": [1, 0, 2, 1, 0.5, 1, 0, 3]}, classes=(0, 1, 2)),
        Data("top_weights_all_zero", scores3, refs3, {"sample_weight": [0] * 8}, classes=(0, 1, 2)),
        Data("top_numpy_float32", np.array(scores3, dtype=np.float32), np.array(refs3), classes=(0, 1, 2)),
        Data("top_one_column", [[0.3], [0.9]], [0, 0], classes=(0,)),
        Data("top_large", large_scores, large_refs, classes=tuple(range(6))),
    ]
    if torch is not None:
        data.append(Data("top_torch", torch.tensor(scores3), torch.tensor(refs3), classes=(0, 1, 2)))
    if pd is not None:
        data.append(Data("top_dataframe", pd.DataFrame(scores3, columns=["x", "y", "z"]), pd.Series(refs3),
                         classes=(0, 1, 2)))
    return data


def bad_topk_data() -> List[Data]:
    scores3 = [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.05, 0.05, 0.9]]
    return [
        Data("top_names_without_labels", scores3, ["A", "B", "C"], classes=("A", "B", "C")),
        Data("top_empty", [], [], classes=()),
        Data("top_1d_scores", [0.3, 0.9, 0.1], [0, 1, 1], classes=(0, 1)),
        Data("top_reference_out_of_range", scores3, [0, 3, 1], classes=(0, 1, 2)),
        Data("top_nan_score", [[0.2, float("nan"), 0.8], [0.5, 0.3, 0.2]], [0, 1], classes=(0, 1, 2)),
        Data("top_length_mismatch", scores3, [0, 1], classes=(0, 1, 2)),
        Data("top_ragged", [[0.2, 0.8], [0.5, 0.3, 0.2]], [0, 1], classes=(0, 1, 2)),
        Data("top_float_references", scores3, [0.0, 1.5, 2.0], classes=(0, 1, 2)),
        Data("top_zero_weight_on_out_of_range_reference", scores3, [0, 7, 1], {"sample_weight": [1, 0, 1]},
             classes=(0, 1, 2)),
        Data("top_zero_weight_on_name_reference", scores3, [0, "B", 1], {"sample_weight": [1, 0, 1]}, classes=(0, 1, 2)),
    ]


# k and k_list are one option: every pairing that matters, each once.
K_SPECS = [None, {"k": 1}, {"k": 2}, {"k": 3}, {"k": 4}, {"k": 0}, {"k": "@none"}, {"k": 2.0}, {"k": "2"},
           {"k_list": [1, 2]}, {"k_list": [3, 1]}, {"k_list": [1, 1]}, {"k_list": []}, {"k_list": [0, 1]},
           {"k_list": [2]}, {"k_list": "@none"}, {"k": "@none", "k_list": "@none"}, {"k": 1, "k_list": [1, 2]},
           {"k": "@none", "k_list": [1, 2]}, {"k": 2, "k_list": "@none"}, {"k_list": (1, 2)}, {"k_list": np.array([1, 2])}]


def topk_cases() -> Iterator[Case]:
    data = topk_data()
    ks = ("+k", [{"k": 1}, {"k": 2}, {"k_list": [1, 2, 3]}])
    yield from Family("k", data, [("+k", K_SPECS), ("return_per_class", [None, True])]).cases()
    yield from Family("average", data, [
        ks, ("zero_division", [None, 0.0, 1.0]), ("class_mask", [None, [0], [1, 2], [9]]),
        ("return_per_class", [None, True])]).cases()
    yield from Family("classes", data + bad_topk_data()[:1], [
        ("labels", [None, "@labels", "@labels_reversed", "@labels_plus_unseen", "@labels_missing", ["x", "y", "z"]]),
        ("ignore_index", [None, -100, "A", "@none"]), ("+k", [{"k": 1}, {"k_list": [1, 2]}])]).cases()
    yield from Family("ci", data, [
        ("+ci", CI_VARIANTS), ks, ("zero_division", [None, 0.0]), ("class_mask", [None, [1]])]).cases()
    yield from bad_input_cases(bad_topk_data(), [
        None, {"k": 2}, {"k_list": [1, 2]}, {"labels": ["A", "B", "C"]}, {"ignore_index": -100}, {"class_mask": [9]},
        ci(method="bootstrap"), {"zero_division": 7}, {"k": 9}])
    yield from invalid_option_cases("invalid", by_name(data, "top3", "top_names"), {
        "k": [-1, True, [1, 2]], "k_list": [5, "12", [1.5], [True]], "labels": [[], ["A", "A", "B"], "ABC", [0, "a", 1]],
        "zero_division": [0.5, "@none"], "class_mask": [[True], "0", [-1]], "confidence_level": [0, 1.2],
        "ci_method": ["exact"], "n_resamples": [0], "seed": [-1], "return_per_class": ["yes"],
        "adjusted": [True], "threshold": [0.5], "num_classes": [3], "average": ["macro"],
        "sample_weight": [[1, 1], ["a"] * 8, [-1] * 8], "baseline_predictions": [[0] * 8], "references": ["@none"],
        "predictions": ["@none"], "confusion_matrix": [[[3, 1], [1, 3]]],
    })
    named = {d.name: d for d in data + bad_topk_data()}
    option_sets = [{}, {"k": 2, "return_per_class": True}, {"k_list": [1, 3], **ci(method="bootstrap")},
                   {"k": 1, "class_mask": [0, 1], "zero_division": 0.0}]
    for name, splits in {"top3": [(8,), (3, 5), (1,) * 8], "top5_ties": [(5, 5), (2, 3, 5)], "top_pad": [(4, 4)],
                         "top_weighted": [(4, 4)], "top_names": [(3, 4)], "top4_logits": [(2, 5)],
                         "top_large": [(100, 200), (120, 100, 80)]}.items():
        for sizes in splits:
            for options in option_sets:
                if name == "top_pad":
                    options = {**options, "ignore_index": -100}
                yield stream_case("stream", named[name], sizes, options)
            if len(sizes) > 1:
                yield stream_case("stream", named[name], sizes, {}, final_in_compute=True)
    # k given to evaluate.load: add_batch merges ranks below it; compute may ask for any k up to it.
    for load in ({"k": 2}, {"k_list": [1, 3]}, {"k": 1, "labels": ["A", "B", "C", "D"]}, {"k": 5}):
        for name in ("top3", "top5_ties", "top_names", "top_large"):
            for options in ({}, {"k": 1}, {"k": 3}, {"k_list": [1, 2]}, {"k": None, "k_list": [2]},
                            {"labels": ["A", "B", "C", "D"]}):
                data_k = named[name]
                yield stream_case("stream_load_k", data_k, (3, len(data_k.references) - 3), options, load=load)
    names = named["top_names"]
    yield Case("stream_names/top_names/labels_only_at_compute", [
        ("add_batch", {"predictions": names.predictions[:4], "references": names.references[:4]}),
        ("add_batch", {"predictions": names.predictions[4:], "references": names.references[4:]}),
        ("compute", {"labels": ["A", "B", "C", "D"], "k_list": [1, 2], "return_per_class": True})])
    yield Case("stream_names/top_names/labels_never_given", [
        ("add_batch", {"predictions": names.predictions, "references": names.references}), ("compute", {"k": 2})])
    top3 = named["top3"]
    yield Case("stream_mixed/top3/batches_of_different_widths", [
        ("add_batch", {"predictions": top3.predictions[:4], "references": top3.references[:4]}),
        ("add_batch", {"predictions": [[0.5, 0.5]], "references": [1]}), ("compute", {})])
    yield Case("stream_mixed/top3/compute_k_too_large_then_fine", [
        ("add_batch", {"predictions": top3.predictions, "references": top3.references}),
        ("compute", {"k": 4}), ("compute", {"k": 3})])
    yield Case("stream_add/top3/add_rows", [("add", {"prediction": p, "reference": r})
                                           for p, r in zip(top3.predictions, top3.references)] + [("compute", {"k": 2})])
    yield Case("stream_refused/top3/compute_with_nothing_added", [("compute", {})])
    yield from _load_cases(data, [
        {"k": 2}, {"k_list": [1, 2]}, {"labels": ["A", "B", "C", "D"]}, {"ignore_index": -100}, LOAD_CI, {"k": 9},
        {"k": 1, "k_list": [1, 2]}], computes=({}, {"k": 1}, {"k_list": [1, 3]}))


# ----------------------------------------------------------------------------- a module of labels without a grid of its own
def label_cases() -> Iterator[Case]:
    """The options every module of class labels takes (the label options, intervals, a second
    judge, per-class outputs, confusion matrices, streams, load options), on the label data."""
    labels, base = label_data(), baseline_data()
    yield from Family("classes", labels, [("+classes", CLASS_SPECS), ("+returns", RETURNS)]).cases()
    yield from Family("options", labels, [
        ("zero_division", [None, 0.0]), ("class_mask", CLASS_MASKS), ("+returns", [None, RETURNS[2]])]).cases()
    yield from Family("ci", labels, [("+ci", CI_VARIANTS), ("zero_division", [None, 0.0]), ("class_mask", [None, [0]])]).cases()
    yield from Family("baseline", base, [("+ci", CI_PAIRED), ("class_mask", [None, [1]]), ("return_confusion_matrix", [None, True])]).cases()
    yield from bad_input_cases(bad_label_data(), BAD_INPUT_OPTIONS)
    yield from _label_streams(labels, base, [], adjusted=False)
    good, bad = _label_matrices()
    yield from matrix_cases("matrix", good, [
        ("labels", [None, [0, 1, 2], ["safe", "unsafe"], [2, 1, 0]]), ("+ci", [None, ci(), ci(method="bootstrap")]),
        ("+returns", [None, RETURNS[2]])])
    yield from matrix_cases("bad_matrix", bad, [("+options", [None, {"labels": [0, 1]}, ci()])])
    yield from _load_cases(labels, [{"ignore_index": -100}, {"zero_division": 0.0}, LOAD_CI],
                           computes=({}, {"ignore_index": None}))


# The grid of each kind of input (the registry's ``inputs``); a module with a grid of its own
# (a function ``<module>_cases`` above) runs that instead.
KIND_GRIDS: Dict[str, Callable[[], Iterator[Case]]] = {"labels": label_cases, "indicators": multilabel_cases,
                                                        "scores": topk_cases}
# The modules of the registry (shared/tooling/modules.py), in its order.
REGISTRY = {entry.name: entry.inputs for entry in REGISTERED}
MODULES = tuple(REGISTRY)


def module_grid(module: str) -> Callable[[], Iterator[Case]]:
    """The module's own grid, ``<module>_cases``, or else its kind's."""
    return globals().get(f"{module}_cases") or KIND_GRIDS[REGISTRY[module]]


def grid(module: str) -> List[Case]:
    """The module's cases, each id once. Two axes can produce the same call (e.g. labels
    reversed and labels as given for one class), which keeps its first case; the same id
    for two different calls would hide one of them, so it is refused."""
    cases: Dict[str, Case] = {}
    for case in module_grid(module)():
        first = cases.setdefault(case.id, case)
        if first is not case and (repr(first.steps), first.load) != (repr(case.steps), case.load):
            raise RuntimeError(f"grid of {module}: two different calls share the id {case.id!r}")
    return list(cases.values())


# =========================================================================================
# Running the cases
# =========================================================================================


def encode(value: Any, path: str, non_plain: List[str]) -> Any:
    """``value`` as exact JSON: NaN/inf as strings, non-string keys as "<type>:<repr>";
    a value that is not plain Python is converted and its path and type noted."""
    kind = type(value)
    if value is None or kind in (bool, str, int):
        return value
    if kind is float:
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if kind is list:
        return [encode(item, f"{path}[{i}]", non_plain) for i, item in enumerate(value)]
    if kind is dict:
        encoded = {}
        for key, item in value.items():
            if type(key) is str:
                name = key
            else:
                name = f"{type(key).__name__}:{key!r}"
                if type(key) is not int:
                    non_plain.append(f"{path}{{{name}}} key: {type(key).__module__}.{type(key).__name__}")
            encoded[name] = encode(item, f"{path}.{name}" if path else name, non_plain)
        return encoded
    # Not plain Python: note it, then store its plain equivalent so values still compare.
    non_plain.append(f"{path or '<result>'}: {kind.__module__}.{kind.__name__}")
    if isinstance(value, (np.generic, np.ndarray)):
        return encode(value.tolist(), path, [])
    if isinstance(value, tuple):
        return [encode(item, f"{path}[{i}]", non_plain) for i, item in enumerate(value)]
    if isinstance(value, (int, float, str)):  # subclasses, e.g. an IntEnum
        return encode(kind.__mro__[1](value), path, [])
    return repr(value)


def snapshot(value: Any) -> str:
    """A fingerprint of an input, to notice a call that modifies the caller's data."""
    if torch is not None and isinstance(value, torch.Tensor):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        return f"ndarray:{value.dtype}:{value.shape}:{value.tobytes().hex()}"
    if pd is not None and isinstance(value, (pd.Series, pd.DataFrame)):
        return f"{type(value).__name__}:{value.to_json()}"
    return repr(value)


class Runner:
    """Runs one module's cases in this process, each on a freshly loaded (or an unused) metric."""

    def __init__(self, evaluate_module, folder: Path, cache_dir: str):
        self.evaluate = evaluate_module
        self.folder = folder
        self.cache_dir = cache_dir
        self.idle: Dict[str, Any] = {}  # load options -> a loaded metric holding no batches
        self.findings: List[Dict[str, str]] = []

    def load(self, options: Dict[str, Any]):
        return self.evaluate.load(str(self.folder), cache_dir=self.cache_dir, **copy.deepcopy(options))

    def metric_for(self, case: Case):
        # A case that only calls compute leaves no state behind, so its metric is reused;
        # a streamed case gets a new one (a failed compute keeps the batches on purpose).
        if len(case.steps) > 1 or case.steps[0][0] != "compute":
            return self.load(case.load)
        key = repr(sorted(case.load.items()))
        if key not in self.idle:
            self.idle[key] = self.load(case.load)
        return self.idle[key]

    def message(self, error: BaseException) -> str:
        text = f"{type(error).__name__}: {error}"
        # Paths of the folder or of the caches would differ between two trees: not a difference.
        for path, placeholder in ((str(self.folder), "<module folder>"), (self.cache_dir, "<cache dir>")):
            text = text.replace(path, placeholder)
        return text

    def run(self, case: Case) -> Dict[str, Any]:
        record: Dict[str, Any] = {}
        try:
            metric = self.metric_for(case)
        except Exception as error:  # noqa: BLE001 - a refused load option is an outcome to compare
            self.note_unclean(case, error)
            return {"error": self.message(error)}
        outcomes, caught_all = [], []
        for index, (method, kwargs) in enumerate(case.steps):
            last = index == len(case.steps) - 1
            given = copy.deepcopy(kwargs)
            before = {name: snapshot(value) for name, value in given.items()}
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    result = getattr(metric, method)(**given)
                    outcome = None
                except Exception as error:  # noqa: BLE001 - errors are outcomes too
                    self.note_unclean(case, error)
                    outcome = self.message(error)
            caught_all += [f"{w.category.__name__}: {w.message}" for w in caught]
            changed = [name for name, value in given.items() if snapshot(value) != before[name]]
            if changed:
                self.findings.append({"id": case.id, "kind": "input modified", "detail": f"{method} changed {changed}"})
            if not last:
                outcomes.append("ok" if outcome is None else outcome)
            elif outcome is not None:
                record["error"] = outcome
            else:
                non_plain: List[str] = []
                record["result"] = encode(result, "", non_plain)
                if non_plain:
                    record["non_plain"] = non_plain
                    self.findings.append({"id": case.id, "kind": "non-plain output", "detail": "; ".join(non_plain)})
        if outcomes:
            record["steps"] = outcomes
        if caught_all:
            record["warnings"] = caught_all
        self.check_idle(case, metric)
        return record

    def check_idle(self, case: Case, metric) -> None:
        """A reused metric must hold nothing after a compute-only case; if it does (a finding),
        it is dropped so that the next case starts clean."""
        key = repr(sorted(case.load.items()))
        if self.idle.get(key) is not metric:
            return
        try:
            left = len(metric)
        except Exception as error:  # noqa: BLE001
            left = f"len() failed: {self.message(error)}"
        if left:
            self.findings.append({"id": case.id, "kind": "state left after compute", "detail": f"len(metric) = {left}"})
            del self.idle[key]

    def note_unclean(self, case: Case, error: BaseException) -> None:
        if type(error).__name__ in CLEAN_ERRORS:
            return
        frames = traceback.extract_tb(error.__traceback__)
        where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name}" if frames else "?"
        self.findings.append({"id": case.id, "kind": f"unclean {type(error).__name__}",
                              "detail": f"{self.message(error)[:300]} (raised at {where})"})


def command_run(args) -> int:
    root = Path(args.root).resolve()
    modules = _modules(args.modules)
    missing = [name for name in modules if not (root / name / f"{name}.py").is_file()]
    if missing:
        print(f"--root: expected module folders {missing} under {root}, found none.", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="result-cases-") as scratch:
        # Offline, and a private modules cache: evaluate copies each module there by hash, and a
        # shared cache could hand back another tree's copy (or collide with another process).
        for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "HF_EVALUATE_OFFLINE"):
            os.environ.setdefault(name, "1")
        os.environ["HF_MODULES_CACHE"] = str(Path(scratch) / "modules")
        import evaluate

        evaluate.logging.set_verbosity_error()
        output = {"format": FORMAT, "meta": {"root": str(root), "versions": _versions(), "findings": {}}, "modules": {}}
        started = time.perf_counter()
        summary = []
        for name in modules:
            module_started = time.perf_counter()
            cases = grid(name)
            cache_dir = tempfile.mkdtemp(prefix=f"{name}-", dir=scratch)  # fresh per module
            runner = Runner(evaluate, root / name, cache_dir)
            records = {case.id: runner.run(case) for case in cases}
            seconds = time.perf_counter() - module_started
            output["modules"][name] = records
            output["meta"]["findings"][name] = runner.findings
            summary.append((name, records, runner.findings, seconds))
            print(f"{name}: {len(records):,} cases in {seconds:.1f} s", file=sys.stderr, flush=True)
        total = time.perf_counter() - started
    _write(Path(args.out), output)
    for name, records, findings, seconds in summary:
        _print_summary(name, records, findings, seconds)
    print(f"total: {sum(len(r) for _, r, _, _ in summary):,} cases in {total:.1f} s; written to {args.out}")
    return 0


def _modules(text: Optional[str]) -> List[str]:
    if not text:
        return list(MODULES)
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in MODULES]
    if unknown:
        raise SystemExit(f"--modules: expected names among {', '.join(MODULES)}, found {unknown}.")
    return names


def _versions() -> Dict[str, str]:
    import evaluate

    versions = {"python": sys.version.split()[0], "numpy": np.__version__, "evaluate": evaluate.__version__}
    if torch is not None:
        versions["torch"] = torch.__version__
    if pd is not None:
        versions["pandas"] = pd.__version__
    return versions


def _write(path: Path, output: Dict[str, Any]) -> None:
    """JSON with one case per line (diffable, greppable), keys in grid order."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["{", f'"format": {FORMAT},', f'"meta": {json.dumps(output["meta"], sort_keys=True)},', '"modules": {']
    modules = list(output["modules"].items())
    for m, (name, records) in enumerate(modules):
        lines.append(f"{json.dumps(name)}: {{")
        items = list(records.items())
        for i, (case_id, record) in enumerate(items):
            comma = "," if i < len(items) - 1 else ""
            lines.append(f"{json.dumps(case_id)}: {json.dumps(record, allow_nan=False)}{comma}")
        lines.append("}" + ("," if m < len(modules) - 1 else ""))
    lines += ["}", "}"]
    path.write_text("\n".join(lines) + "\n")


def _print_summary(name: str, records: Dict[str, Dict], findings: List[Dict[str, str]], seconds: float) -> None:
    errors = Counter(record["error"].split(":")[0] for record in records.values() if "error" in record)
    warned = sum("warnings" in record for record in records.values())
    ok = sum("result" in record for record in records.values())
    shown = ", ".join(f"{kind} {count}" for kind, count in sorted(errors.items()))
    print(f"\n{name}: {len(records):,} cases ({ok:,} results, {sum(errors.values()):,} errors: {shown or 'none'}; "
          f"{warned:,} with warnings) in {seconds:.1f} s")
    by_kind: Dict[str, List[Dict[str, str]]] = {}
    for finding in findings:
        by_kind.setdefault(finding["kind"], []).append(finding)
    for kind, items in sorted(by_kind.items()):
        distinct = Counter(item["detail"] for item in items)
        print(f"  finding: {kind} in {len(items)} cases, {len(distinct)} distinct:")
        for detail, count in distinct.most_common(8):
            example = next(item["id"] for item in items if item["detail"] == detail)
            print(f"    {count} x {detail}\n        e.g. {example}")


# =========================================================================================
# Comparing two runs
# =========================================================================================


def same(a: Any, b: Any) -> bool:
    """Exact equality: same types, floats bit for bit, dict keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a.hex() == b.hex()
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return a == b


def differences(a: Dict[str, Any], b: Dict[str, Any]) -> List[str]:
    """Key-by-key differences of two case records (inside ``result``, one line per result key)."""
    lines = []
    for key in list(a) + [k for k in b if k not in a]:
        if key == "result" and isinstance(a.get(key), dict) and isinstance(b.get(key), dict):
            ra, rb = a[key], b[key]
            for name in list(ra) + [k for k in rb if k not in ra]:
                if name not in rb or name not in ra or not same(ra[name], rb[name]):
                    lines.append(f"result.{name}: {_show(ra, name)} != {_show(rb, name)}")
            if not lines and list(ra) != list(rb):
                lines.append(f"result key order: {list(ra)} != {list(rb)}")
        elif key not in a or key not in b or not same(a[key], b[key]):
            lines.append(f"{key}: {_show(a, key)} != {_show(b, key)}")
    return lines


def _show(record: Dict[str, Any], key: str) -> str:
    if key not in record:
        return "(absent)"
    value = record[key]
    if isinstance(value, float):
        return f"{value!r} ({value.hex()})"
    text = json.dumps(value)
    return text if len(text) <= 300 else text[:300] + "..."


def command_compare(args) -> int:
    a, b = (json.loads(Path(path).read_text()) for path in (args.a, args.b))
    failed = False
    for data, path in ((a, args.a), (b, args.b)):
        if data.get("format") != FORMAT:
            print(f"{path}: expected a result-cases file of format {FORMAT}, found {data.get('format')!r}.")
            return 2
    if a["meta"].get("versions") != b["meta"].get("versions"):
        print(f"note: different environments: {a['meta'].get('versions')} vs {b['meta'].get('versions')}")
    total = 0
    for name in list(a["modules"]) + [m for m in b["modules"] if m not in a["modules"]]:
        ca, cb = a["modules"].get(name), b["modules"].get(name)
        if ca is None or cb is None:
            print(f"{name}: only in {args.a if cb is None else args.b}")
            failed = True
            continue
        only_a = [case for case in ca if case not in cb]
        only_b = [case for case in cb if case not in ca]
        differing = [(case, differences(ca[case], cb[case])) for case in ca if case in cb]
        differing = [(case, lines) for case, lines in differing if lines]
        total += len(ca)
        print(f"{name}: {len(ca):,} cases in {args.a}, {len(cb):,} in {args.b}; {len(differing):,} differ, "
              f"{len(only_a):,} only in the first, {len(only_b):,} only in the second")
        for case in only_a:
            print(f"  only in {args.a}: {case}")
        for case in only_b:
            print(f"  only in {args.b}: {case}")
        for case, lines in differing:
            print(f"  differs: {case}")
            for line in lines:
                print(f"    {line}")
        failed = failed or bool(only_a or only_b or differing)
    print(f"{'DIFFERENT' if failed else 'identical'}: {total:,} cases compared")
    return 1 if failed else 0


def command_cases(args) -> int:
    for name in _modules(args.modules):
        cases = grid(name)
        print(f"# {name}: {len(cases):,} cases")
        if args.count:
            continue
        for case in cases:
            load = f" load={case.load!r}" if case.load else ""
            steps = "; ".join(f"{method}({', '.join(f'{k}={_short(v)}' for k, v in kwargs.items())})"
                              for method, kwargs in case.steps)
            print(f"{case.id}\n    {steps}{load}")
    return 0


def _short(value: Any) -> str:
    text = repr(value).replace("\n", " ")
    return text if len(text) <= 80 else text[:77] + "..."


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="compute every case on the module folders under --root")
    run.add_argument("--root", required=True, help="the folder holding <module>/<module>.py")
    run.add_argument("--out", required=True, help="the JSON file to write")
    run.add_argument("--modules", help=f"comma-separated subset of {','.join(MODULES)} (default: all)")
    compare = commands.add_parser("compare", help="compare two run outputs; exit 1 if any case differs")
    compare.add_argument("a")
    compare.add_argument("b")
    listing = commands.add_parser("cases", help="list the grid's case ids and calls (nothing is run)")
    listing.add_argument("--modules")
    listing.add_argument("--count", action="store_true", help="only the number of cases per module")
    args = parser.parse_args(argv)
    return {"run": command_run, "compare": command_compare, "cases": command_cases}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
