"""Data for every module's fast-path tests (tests/unit/test_fast_path.py, and the real
processes of tests/integration/test_distributed.py): variants whose dtypes and value ranges
make their narrowest storage types differ, and what compares their results."""

import json
from pathlib import Path

import numpy as np

from conftest import MODULE_NAMES, module_tests
from shared.tooling.modules import MODULES as REGISTRY

# Each case returns (predictions, references) for a variant; the variants differ in
# dtype and value range so that their narrowest storage types differ (int8, uint8, int16,
# float32, float64), and COMPUTE_OPTIONS reduces them in the same way.


def _labels(rng, n, variant, num_classes=5):
    references = rng.integers(0, num_classes, n)
    predictions = np.where(rng.random(n) < 0.7, references, rng.integers(0, num_classes, n))
    if variant == 0:
        return predictions.astype(np.uint8), references.astype(np.uint8)
    if variant == 1:
        references[rng.random(n) < 0.2] = -100  # padding, dropped by ignore_index
        return predictions, references
    references[:3], predictions[1:4] = 300, 300  # a class that needs 16 bits
    return predictions, references


def _multilabel(rng, n, variant, num_labels=4):
    references = (rng.random((n, num_labels)) < [0.5, 0.2, 0.1, 0.6]).astype(np.int64)
    scores = np.clip(references * 0.4 + rng.random((n, num_labels)) * 0.6, 0, 1)
    if variant == 0:
        return scores.astype(np.float32), references.astype(np.int8)
    if variant == 1:
        references[rng.random((n, num_labels)) < 0.1] = -100
    return scores, references


def _topk(rng, n, variant, num_classes=6):
    references = rng.integers(0, num_classes, n)
    scores = rng.random((n, num_classes))
    scores[np.arange(n), references] += 0.3
    if variant == 0:
        return scores.astype(np.float32), references.astype(np.uint8)
    if variant == 1:
        references[rng.random(n) < 0.2] = -100
    return scores, references


# The data of each kind of input (the registry's ``inputs``).
DATA = {"labels": _labels, "indicators": _multilabel, "scores": _topk}
CASES = {entry.name: DATA[entry.inputs] for entry in REGISTRY if entry.name in MODULE_NAMES}
# The options each module reduces them with: its test file's FAST_PATH_OPTIONS (every output of its
# own on), else only the padding dropped.
COMPUTE_OPTIONS = {name: getattr(module_tests(name), "FAST_PATH_OPTIONS", {"ignore_index": -100}) for name in CASES}
MODULES = list(CASES)


def make_data(name, variants=(0, 1, 2), n=120, seed=0):
    rng = np.random.default_rng(seed)
    return [CASES[name](rng, n, variant) for variant in variants]


def concatenated(parts):
    return np.concatenate([p for p, _ in parts]), np.concatenate([r for _, r in parts])


def same(result, expected):
    """Equal results, NaN included (as JSON, the way results are logged and checkpointed)."""
    return json.dumps(result, sort_keys=True) == json.dumps(json.loads(json.dumps(expected)), sort_keys=True)


def counts_module(metric):
    """Whether the module stores counts (the counts core) rather than samples (the Arrow store)."""
    return bool(getattr(metric, "OPTIONS", None))


def arrow_files(folder):
    return sorted(str(path) for path in Path(folder).rglob("*.arrow"))


