"""The metric modules of this repository, one line each: tests, benchmarks and tools iterate this.

A module is a folder ``<name>/`` (``<name>.py``, ``README.md``, ``app.py``,
``requirements.txt``) whose script names its spec from ``shared/metrics/<metric_file>.py``.
Adding a fifth is its folder, its ``shared/metrics/`` file, its test file
``tests/modules/test_<name>.py`` (with its ``peer_value``) and one line in ``MODULES``;
``docs/layout.md`` lists every file such a change touches. ``tests/unit/test_modules_registry.py`` checks that the registry,
the folders and the metric files agree. Like all of ``tooling/``, never vendored.

Examples
--------
>>> [module.name for module in MODULES if module.inputs == "labels"]
['balanced_accuracy', 'informedness']
>>> module("balanced_topk_accuracy").ci_key
'balanced_topk_accuracy_ci'
"""

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

# What a module's predictions are (``Module.inputs``).
INPUT_KINDS = (
    "labels",  # one class label per sample: baseline_predictions, judges= and confusion_matrix apply
    "scores",  # one row of class scores per sample; references one class label each
    "indicators",  # one row of 0/1 values (or scores) per sample, one per label; references likewise
)


@dataclass(frozen=True)
class Module:
    """One metric module: ``name`` (its folder, script and Hub name), ``value_key`` (the result's key of
    its value; its interval is ``<value_key>_ci``), ``inputs`` (one of ``INPUT_KINDS``),
    ``metric_file`` (its spec's file, ``shared/metrics/<metric_file>.py``), ``value_range`` (the
    range of its values), ``example``: one documented call, ``(compute's arguments, result keys
    with the values the card states)``, which a release and the Hub-load benchmark compute, and
    ``ranged_keys``: a regular expression of the result keys whose values lie in ``value_range``
    (besides its value and interval, e.g. per-class lists; None: those two only), which the
    result contract checks (``tests/support/robustness.py``).

    What a test needs of a module beyond its kind (``inputs``) - its peer, the options that
    switch on outputs of its own - is in its test file (``tests/conftest.py`` ``module_tests``)."""

    name: str
    value_key: str
    inputs: str
    metric_file: str
    value_range: Tuple[float, float]
    example: Tuple[Dict[str, Any], Dict[str, Any]]
    ranged_keys: Optional[str] = None

    @property
    def ci_key(self) -> str:
        return f"{self.value_key}_ci"

    @property
    def one_class_per_sample(self) -> bool:
        """Whether each sample's reference is one class label (not a row of labels)."""
        return self.inputs != "indicators"


MODULES: Tuple[Module, ...] = (
    Module("balanced_accuracy", "balanced_accuracy", "labels", "balanced_accuracy", (0.0, 1.0), (
        {"references": [0, 1, 1, 0], "predictions": [0, 1, 0, 0], "task": "binary"}, {"balanced_accuracy": 0.75}),
        r"^(balanced_accuracy(_ci)?|per_class_recall)$"),
    Module("balanced_accuracy_multilabel", "balanced_accuracy", "indicators", "multilabel", (0.0, 1.0), (
        {"references": [[1, 0, 1], [0, 1, 0]], "predictions": [[1, 0, 0], [0, 1, 1]], "return_per_label": True},
        {"balanced_accuracy": 2 / 3, "per_label_ba": [1.0, 1.0, 0.0], "support_per_label": [1, 1, 1]}),
        r"^(balanced_accuracy(_ci)?|per_label_ba)$"),
    Module("balanced_topk_accuracy", "balanced_topk_accuracy", "scores", "topk", (0.0, 1.0), (
        {"predictions": [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.05, 0.05, 0.9], [0.05, 0.9, 0.05]], "references": [0, 1, 2, 1],
         "k_list": [1, 2]},
        {"balanced_top1_accuracy": (1 + 0.5 + 1) / 3, "balanced_top2_accuracy": 1.0}),
        r"^(balanced_top(k|\d+)_accuracy(_ci)?|per_class_recall)$"),
    Module("informedness", "informedness", "labels", "informedness", (-1.0, 1.0), (
        {"references": [0] * 10 + [1] * 5, "predictions": [0] * 8 + [1] * 2 + [0] + [1] * 4},
        {"informedness": 0.8 + 0.8 - 1}),  # TPR 4/5, TNR 8/10
        r"^((informedness|markedness)(_ci)?|per_class_(informedness|markedness))$"),
)

MODULE_NAMES: Tuple[str, ...] = tuple(entry.name for entry in MODULES)
# The modules of class labels (baseline_predictions, judges=, confusion_matrix).
LABEL_MODULES: Tuple[str, ...] = tuple(entry.name for entry in MODULES if entry.inputs == "labels")
# The modules whose references are one class label per sample (labels or score rows).
CLASS_MODULES: Tuple[str, ...] = tuple(entry.name for entry in MODULES if entry.one_class_per_sample)


def module(name: str) -> Module:
    """The registry's entry for ``name``; a ``KeyError`` naming the modules for any other name."""
    for entry in MODULES:
        if entry.name == name:
            return entry
    raise KeyError(f"{name!r}: expected one of the modules {', '.join(MODULE_NAMES)}.")
