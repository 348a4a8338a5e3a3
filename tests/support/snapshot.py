"""A snapshot of the modules' results, to show that a move inside ``shared/`` changed no number.

``calls()`` is a fixed list of a few hundred ``compute`` calls across the modules and their
options (values, each module's default interval and the other methods, the bootstrap with a
seed, clusters, sample weights, ``baseline_predictions``, ``judges``, per-class outputs,
thresholds, multilabel averages, top-k ``k_list``, informedness's averages, markedness and
corrected prevalence, and a few refused calls). The calls of each kind of input (class labels,
indicator rows, score rows) are made for every module of the registry of that kind
(``shared/tooling/modules.py``), a module's own options for that module. Each call's outcome (the result dict, or the
error's type and message) is stored in ``tests/support/snapshot_results.json``;
``tests/unit/test_snapshot.py`` runs every call again and compares: every value exactly
(ints, strings, keys, the order of keys, NaN as NaN), except the floats of an interval
(a key with ``_ci``, ``interval`` or ``p_value`` in its path), which may move by 1e-12.

Usage (from the repository's root, after ``make vendor``)::

    HF_HUB_OFFLINE=1 python tests/support/snapshot.py write      # a fresh snapshot from this checkout's code
    HF_HUB_OFFLINE=1 python tests/support/snapshot.py compare    # every call against the stored snapshot
    HF_HUB_OFFLINE=1 python -m pytest tests/unit/test_snapshot.py -q   # the same, as a test

To check a change against another checkout's code: ``write --out /tmp/before.json`` there,
then ``compare --snapshot /tmp/before.json`` here. The modules are loaded with
``evaluate.load`` of their folders, as a user loads them, so the generated helpers must be
current (``make vendor``). Of ``shared/`` only the registry of modules is imported.

A module with no stored results (a new one) fails ``compare`` with a message saying so: its
results are new numbers, stored by ``write`` in a commit of their own.
"""

import argparse
import json
import math
import os
import sys
import warnings
from pathlib import Path
from typing import Any, Dict, List, Tuple

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402 - after the thread settings

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))  # run as a script: the registry of modules

from shared.tooling.modules import MODULES  # noqa: E402

# The modules of the registry whose folder is here, by kind of input.
_PRESENT = [entry for entry in MODULES if (REPO_ROOT / entry.name / f"{entry.name}.py").exists()]
LABEL_MODULES = [entry.name for entry in _PRESENT if entry.inputs == "labels"]
INDICATOR_MODULES = [entry.name for entry in _PRESENT if entry.inputs == "indicators"]
SCORE_MODULES = [entry.name for entry in _PRESENT if entry.inputs == "scores"]
SNAPSHOT = Path(__file__).with_name("snapshot_results.json")
TOLERANCE = 1e-12
# A float whose path names one of these may move by TOLERANCE; every other value is exact.
INTERVAL_KEYS = ("_ci", "interval", "p_value", "critical", "design_effect", "standard_error")

# -----------------------------------------------------------------------------------------
# Fixed data: NumPy's generator with fixed seeds (a call's id names its data, not its values)
# -----------------------------------------------------------------------------------------


def _labels(seed: int, n: int, k: int, right: float, shares=None) -> Tuple[list, list]:
    rng = np.random.default_rng(seed)
    references = rng.choice(k, size=n, p=shares)
    wrong = rng.integers(0, k, size=n)
    predictions = np.where(rng.random(n) < right, references, wrong)
    return references.tolist(), predictions.tolist()


def _data() -> Dict[str, Dict[str, Any]]:
    rng = np.random.default_rng(20261128)
    data = {}
    refs, preds = _labels(1, 120, 2, 0.8, [0.7, 0.3])
    data["bin"] = {"references": refs, "predictions": preds}
    _, base = _labels(2, 120, 2, 0.7, [0.7, 0.3])
    data["bin"]["baseline"] = np.where(rng.random(120) < 0.5, preds, base).tolist()
    refs3, preds3 = _labels(3, 150, 3, 0.7, [0.5, 0.35, 0.15])
    data["multi"] = {"references": refs3, "predictions": preds3}
    _, base3 = _labels(4, 150, 3, 0.6, [0.5, 0.35, 0.15])
    data["multi"]["baseline"] = base3
    refs4, preds4 = _labels(5, 60, 4, 0.75, [0.4, 0.3, 0.25, 0.05])
    data["small"] = {"references": refs4, "predictions": preds4}
    data["perfect"] = {"references": [0, 0, 0, 1, 1, 2, 2, 2, 2], "predictions": [0, 0, 0, 1, 1, 2, 2, 2, 2]}
    data["absent"] = {"references": [0, 0, 1, 1, 1, 0], "predictions": [0, 2, 1, 1, 0, 0]}
    data["weights"] = (rng.integers(0, 4, size=150) + rng.random(150)).round(3).tolist()
    data["clusters"] = np.sort(rng.integers(0, 30, size=150)).tolist()
    data["clusters_bin"] = np.sort(rng.integers(0, 25, size=120)).tolist()
    judges = {}
    for index, right in enumerate((0.85, 0.8, 0.6)):
        judges[f"j{index}"] = np.where(rng.random(150) < right, refs3, rng.integers(0, 3, size=150)).tolist()
    data["judges"] = judges
    scores = np.clip(np.asarray(refs, dtype=float) * 0.35 + rng.random(120) * 0.65, 0.0, 1.0).round(4)
    data["scores"] = scores.tolist()
    unlabeled = np.where(rng.random(400) < 0.8, rng.choice(2, size=400, p=[0.6, 0.4]), rng.integers(0, 2, size=400))
    data["unlabeled"] = unlabeled.tolist()
    data["unlabeled_baseline"] = np.where(rng.random(400) < 0.7, unlabeled, 1 - unlabeled).tolist()
    data["unlabeled3"] = rng.choice(3, size=500, p=[0.3, 0.4, 0.3]).tolist()
    data["groups"] = rng.integers(0, 3, size=150).tolist()
    # multilabel: 100 rows, 4 labels
    truth = (rng.random((100, 4)) < np.array([0.5, 0.3, 0.1, 0.6])).astype(int)
    probas = np.clip(truth * 0.4 + rng.random((100, 4)) * 0.6, 0, 1).round(4)
    data["ml"] = {"references": truth.tolist(), "probas": probas.tolist(), "predictions": (probas >= 0.5).astype(int).tolist()}
    data["ml_clusters"] = np.sort(rng.integers(0, 20, size=100)).tolist()
    data["ml_weights"] = (rng.random(100) * 3).round(3).tolist()
    # top-k: 5 classes, 150 rows, some ties
    topk_refs = rng.choice(5, size=150, p=[0.35, 0.25, 0.2, 0.15, 0.05])
    topk_scores = rng.random((150, 5)).round(1)
    topk_scores[np.arange(150), topk_refs] += rng.random(150) * 0.6
    data["topk"] = {"references": topk_refs.tolist(), "predictions": topk_scores.round(2).tolist(),
                    "names": np.array(list("abcde"))[topk_refs].tolist()}
    data["topk_clusters"] = np.sort(rng.integers(0, 30, size=150)).tolist()
    return data


def _ci(level=0.95, method=None, seed=0, n_resamples=200) -> Dict[str, Any]:
    options = {"confidence_level": level}
    if method is not None:
        options["ci_method"] = method
    if method == "bootstrap":
        options.update(seed=seed, n_resamples=n_resamples)
    return options


RATE_CIS = [{}, _ci(), _ci(0.9, "wilson"), _ci(method="agresti_coull"), _ci(0.8, "bootstrap", seed=3)]
# Multi-class informedness refuses "wilson" and "agresti_coull" (two calls check the message).
INFORMEDNESS_CIS = [{}, _ci(), _ci(0.8, "bootstrap", seed=3), _ci(0.9, "delta")]


def calls() -> List[Tuple[str, str, Dict[str, Any]]]:
    """``(module, id, kwargs)`` of every call; the kwargs name data by ``"@name"`` or ``"@name.part"``."""
    made = []

    def add(module: str, **kwargs):
        call_id = f"{module}/" + ",".join(f"{key}={value!r}" for key, value in kwargs.items())
        made.append((module, call_id, kwargs))

    for module in LABEL_MODULES:
        # Informedness's own: its averages, and the intervals it gives for every number of classes.
        cis = INFORMEDNESS_CIS if module == "informedness" else RATE_CIS
        averages = [{}, {"average": "macro"}, {"average": "weighted"}] if module == "informedness" else [{}]
        for name in ("bin", "multi", "small", "perfect", "absent"):
            for average in averages:
                for ci in cis:
                    add(module, predictions=f"@{name}.predictions", references=f"@{name}.references", **average, **ci)
            add(module, predictions=f"@{name}.predictions", references=f"@{name}.references", return_per_class=True,
                return_confusion_matrix=True, confidence_level=0.95)
            add(module, predictions=f"@{name}.predictions", references=f"@{name}.references", zero_division=0.0,
                confidence_level=0.95)
            add(module, predictions=f"@{name}.predictions", references=f"@{name}.references", class_mask=[0, 1],
                confidence_level=0.9)
        for average in averages:
            for ci in cis:
                add(module, predictions="@multi.predictions", references="@multi.references", sample_weight="@weights", **average, **ci)
                add(module, predictions="@multi.predictions", references="@multi.references", clusters="@clusters", **average, **ci)
                add(module, predictions="@multi.predictions", references="@multi.references", clusters="@clusters",
                    sample_weight="@weights", **average, **ci)
            for ci in ([{}] + cis[1:3]):
                add(module, predictions="@multi.predictions", references="@multi.references",
                    baseline_predictions="@multi.baseline", **average, **ci)
                add(module, predictions="@multi.predictions", references="@multi.references",
                    baseline_predictions="@multi.baseline", clusters="@clusters", **average, **ci)
                add(module, predictions="@bin.predictions", references="@bin.references",
                    baseline_predictions="@bin.baseline", clusters="@clusters_bin", **average, **ci)
                add(module, references="@multi.references", judges="@judges", **average, **ci)
                add(module, references="@multi.references", judges="@judges", clusters="@clusters",
                    return_judge_p_values=True, **average, **ci)
            add(module, predictions="@bin.predictions", references="@bin.references", baseline_predictions="@bin.baseline",
                sample_weight="@weights120", **average, confidence_level=0.95)
        add(module, predictions="@bin.predictions", references="@bin.references", labels=[1, 0], confidence_level=0.95)
        add(module, predictions="@bin.predictions", references="@bin.references", pos_label=0, confidence_level=0.95)
        add(module, predictions="@multi.predictions", references="@multi.references", num_classes=5, confidence_level=0.95)
        add(module, predictions="@multi.predictions", references="@multi.references", labels=[0, 1, 2, 7],
            return_per_class=True, confidence_level=0.95)
        add(module, predictions="@multi.predictions", references="@multi.references", ci_method="bogus", confidence_level=0.95)
        add(module, predictions="@multi.predictions", references="@multi.references", confidence_level=1.5)
        add(module, predictions="@multi.predictions", references="@multi.references", n_resamples=0, confidence_level=0.9)
        add(module, predictions="@multi.predictions", references="@multi.references", seed=-1)
        for ci in RATE_CIS[2:4]:
            add(module, predictions="@bin.predictions", references="@bin.references", clusters="@clusters_bin", **ci)
            add(module, predictions="@multi.predictions", references="@multi.references", **ci)
    for adjusted in (False, True):
        add("balanced_accuracy", predictions="@multi.predictions", references="@multi.references", adjusted=adjusted,
            confidence_level=0.95, clusters="@clusters")
    for threshold in (0.5, 0.3, "auto"):
        for ci in RATE_CIS[:3]:
            add("balanced_accuracy", predictions="@scores", references="@bin.references", threshold=threshold, **ci)
    add("balanced_accuracy", predictions="@multi.predictions", references="@multi.references", ci_method="delta",
        confidence_level=0.95)
    # informedness's own outputs
    for average in ("bookmaker", "macro", "weighted"):
        for name in ("bin", "multi", "small"):
            add("informedness", predictions=f"@{name}.predictions", references=f"@{name}.references", average=average,
                return_markedness=True, return_per_class=True, confidence_level=0.95)
    for method in ("rogan_gladen", "ppi"):
        # The corrected prevalence's interval may be a smoothed bootstrap: every call has a seed.
        for ci in ({"seed": 1}, {"confidence_level": 0.95, "seed": 1, "n_resamples": 300}, _ci(0.9, "bootstrap", seed=5), {**_ci(method="delta"), "seed": 1}):
            add("informedness", predictions="@bin.predictions", references="@bin.references",
                unlabeled_predictions="@unlabeled", prevalence_method=method, **ci)
            add("informedness", predictions="@bin.predictions", references="@bin.references",
                unlabeled_predictions="@unlabeled", unlabeled_baseline_predictions="@unlabeled_baseline",
                prevalence_method=method, **ci)
            add("informedness", predictions="@multi.predictions", references="@multi.references",
                unlabeled_predictions="@unlabeled3", prevalence_method=method, **ci)
        add("informedness", predictions="@multi.predictions", references="@multi.references", groups="@groups",
            unlabeled_predictions="@unlabeled3", prevalence_method=method, confidence_level=0.95, seed=2, n_resamples=300)
        add("informedness", predictions="@bin.predictions", references="@bin.references", clusters="@clusters_bin",
            unlabeled_predictions="@unlabeled", prevalence_method=method, confidence_level=0.95, seed=2, n_resamples=300)
    # multilabel (rows of indicators)
    for ml in INDICATOR_MODULES:
        for average in ("macro", "weighted", "micro"):
            for ci in RATE_CIS:
                add(ml, predictions="@ml.predictions", references="@ml.references", average=average, **ci)
                add(ml, predictions="@ml.predictions", references="@ml.references", average=average,
                    clusters="@ml_clusters", **ci)
            for threshold in (0.5, 0.3, [0.2, 0.4, 0.5, 0.6], "auto"):
                add(ml, predictions="@ml.probas", references="@ml.references", from_probas=True,
                    threshold=threshold, average=average, confidence_level=0.95)
            add(ml, predictions="@ml.predictions", references="@ml.references", average=average,
                sample_weight="@ml_weights", clusters="@ml_clusters", confidence_level=0.95)
            add(ml, predictions="@ml.predictions", references="@ml.references", average=average,
                return_per_label=True, return_confusion_matrix=True, label_names=["a", "b", "c", "d"], confidence_level=0.9)
            add(ml, predictions="@ml.predictions", references="@ml.references", average=average,
                class_mask=[0, 2], zero_division=1.0, confidence_level=0.9)
        add(ml, predictions="@ml.predictions", references="@ml.references", ci_method="delta",
            confidence_level=0.9)
    # top-k (rows of scores)
    for topk in SCORE_MODULES:
        for k in ({}, {"k": 1}, {"k": 2}, {"k": 4}, {"k_list": [1, 2, 3]}, {"k_list": [2, 5]}):
            for ci in RATE_CIS:
                add(topk, predictions="@topk.predictions", references="@topk.references", **k, **ci)
            add(topk, predictions="@topk.predictions", references="@topk.references", clusters="@topk_clusters",
                confidence_level=0.95, **k)
            add(topk, predictions="@topk.predictions", references="@topk.references", sample_weight="@weights",
                clusters="@topk_clusters", return_per_class=True, confidence_level=0.95, **k)
            add(topk, predictions="@topk.predictions", references="@topk.references", class_mask=[0, 4],
                zero_division=0.0, confidence_level=0.95, **k)
            add(topk, predictions="@topk.predictions", references="@topk.names",
                labels=["a", "b", "c", "d", "e"], return_per_class=True, **k)
        add(topk, predictions="@topk.predictions", references="@topk.references", k=6)
        add(topk, predictions="@topk.predictions", references="@topk.references", k=2, k_list=[1])
    return made


def _resolve(value: Any, data: Dict[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith("@"):
        name = value[1:]
        if name == "weights120":
            return data["weights"][:120]
        if "." in name:
            outer, inner = name.split(".")
            return data[outer][inner]
        return data[name]
    return value


def _plain(value: Any) -> Any:
    """The result as JSON: NaN and infinities as strings, non-string keys as ``"<type>:<repr>"``."""
    if isinstance(value, dict):
        return {(key if isinstance(key, str) else f"{type(key).__name__}:{key!r}"): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, (np.generic, np.ndarray)):
        return {"non_plain": type(value).__name__, "value": _plain(value.tolist())}
    return value


def run(modules=None) -> Dict[str, Any]:
    """Every call's outcome, by id."""
    import evaluate

    data = _data()
    loaded = {}
    outcomes = {}
    for module, call_id, kwargs in calls():
        if modules and module not in modules:
            continue
        if module not in loaded:
            loaded[module] = evaluate.load(str(REPO_ROOT / module))
        arguments = {key: _resolve(value, data) for key, value in kwargs.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                outcomes[call_id] = {"result": _plain(loaded[module].compute(**arguments))}
            except (ValueError, TypeError) as error:
                outcomes[call_id] = {"error": f"{type(error).__name__}: {error}"}
    return outcomes


def _loose(path: str) -> bool:
    return any(key in path for key in INTERVAL_KEYS)


def differences(expected: Any, found: Any, path: str = "") -> List[str]:
    """Where ``found`` differs from ``expected``: exact, except floats under an interval's key (1e-12)."""
    if isinstance(expected, dict) and isinstance(found, dict):
        if list(expected) != list(found):
            return [f"{path}: keys {list(expected)} != {list(found)}"]
        return [line for key in expected for line in differences(expected[key], found[key], f"{path}/{key}")]
    if isinstance(expected, list) and isinstance(found, list):
        if len(expected) != len(found):
            return [f"{path}: length {len(expected)} != {len(found)}"]
        return [line for index, (a, b) in enumerate(zip(expected, found)) for line in differences(a, b, f"{path}[{index}]")]
    if type(expected) is not type(found):
        return [f"{path}: {expected!r} != {found!r}"]
    if isinstance(expected, float) and _loose(path):
        return [] if abs(expected - found) <= TOLERANCE else [f"{path}: {expected!r} != {found!r}"]
    return [] if expected == found else [f"{path}: {expected!r} != {found!r}"]


def compare(snapshot: Path = SNAPSHOT, modules=None) -> List[str]:
    """Every difference between the stored snapshot and this checkout's results (empty: the same)."""
    stored = json.loads(Path(snapshot).read_text(encoding="utf-8"))["calls"]
    found = run(modules)
    lines = []
    wanted = [call_id for call_id in stored if not modules or call_id.split("/", 1)[0] in modules]
    unstored = sorted({call_id.split("/", 1)[0] for call_id in found} - {call_id.split("/", 1)[0] for call_id in stored})
    if unstored:
        lines.append(f"no stored results for {', '.join(unstored)} (a new module?): its results are new numbers; "
                     f"store them with `python tests/support/snapshot.py write`, in a commit of their own")
    if sorted(wanted) != sorted(found):
        lines.append(f"call ids differ: {sorted(set(wanted) ^ set(found))[:5]}")
    for call_id in wanted:
        if call_id in found:
            lines.extend(f"{call_id}: {line}" for line in differences(stored[call_id], found[call_id]))
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("write", "compare"))
    parser.add_argument("--out", type=Path, default=SNAPSHOT, help="write: where the snapshot goes")
    parser.add_argument("--snapshot", type=Path, default=SNAPSHOT, help="compare: the snapshot to compare with")
    args = parser.parse_args(argv)
    if args.command == "write":
        outcomes = run()
        args.out.write_text(json.dumps({"calls": outcomes}, indent=0, sort_keys=False) + "\n", encoding="utf-8")
        errors = sum("error" in outcome for outcome in outcomes.values())
        print(f"{len(outcomes)} calls ({errors} refused) written to {args.out}")
        return 0
    lines = compare(args.snapshot)
    print("\n".join(lines) if lines else "every call as in the snapshot")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
