"""The spec contract (``shared/glue/reduction.py`` ``MetricSpec``), run as one test for every metric:
a toy metric defined by nothing but a spec (``rate_spec``: mean specificity of a confusion matrix)
and every module of the registry goes through every path their spec offers - the value, the default
interval, the bootstrap, ``clusters=``, ``sample_weight``, ``baseline_predictions``, ``judges=``,
``add_batch`` streaming and evaluate's distributed mode - and each path's result is checked
against what the contract says it must equal (the value without the option, the values of
single computes, the one-call result). A spec without a paired difference (top-k, multilabel)
offers no paired path: those inputs are refused, naming the argument.

A capability added later is added to the shared path once, and gets a line here."""

import json
import math
import shutil

import numpy as np
import pytest

from conftest import MODULE_NAMES, REPO_ROOT, load_module, module_tests
from shared.tooling.modules import MODULES
from processes import run_distributed

LEVEL = 0.95
TOY_SCRIPT = '''"""Mean specificity: a toy metric declared by its spec alone (tests/unit/test_spec_contract.py)."""
import datasets
import evaluate
import numpy as np

from shared.glue.metric import LabelsMetric
from shared.glue.reduction import rate_spec


def mean_specificity(matrix):
    total, rows, columns, diagonal = matrix.sum(), matrix.sum(axis=1), matrix.sum(axis=0), np.diagonal(matrix)
    return float(np.mean((total - rows - columns + diagonal) / (total - rows)))


class ToySpecificity(LabelsMetric):
    SPEC = rate_spec("mean_specificity", mean_specificity)

    def _info(self):
        return evaluate.MetricInfo(description="toy", citation="", inputs_description="",
                                   features=datasets.Features({"predictions": datasets.Value("int64"),
                                                               "references": datasets.Value("int64")}))
'''


# The toy in this process is the same script a distributed worker loads from its folder.
TOY = {}
exec(compile(TOY_SCRIPT, "toy_specificity.py", "exec"), TOY)
ToySpecificity = TOY["ToySpecificity"]


def labels_data(seed, n=240, k=3):
    rng = np.random.default_rng(seed)
    references = rng.integers(0, k, n)
    noisy = (lambda share: np.where(rng.random(n) < share, references, rng.integers(0, k, n)))
    return {"references": references, "predictions": noisy(0.75), "baseline": noisy(0.6),
            "judges": {"a": noisy(0.8), "b": noisy(0.7), "c": noisy(0.55)}}


def multilabel_data(seed, n=240, labels=4):
    rng = np.random.default_rng(seed)
    references = (rng.random((n, labels)) < 0.3).astype(int)
    return {"references": references, "predictions": np.where(rng.random((n, labels)) < 0.85, references, 1 - references)}


def topk_data(seed, n=240, k=5):
    rng = np.random.default_rng(seed)
    references = rng.integers(0, k, n)
    scores = rng.random((n, k))
    scores[np.arange(n), references] += rng.random(n) * 0.8
    return {"references": references, "predictions": scores}


# The data of each kind of input (the registry's ``inputs``).
KIND_DATA = {"labels": labels_data, "indicators": multilabel_data, "scores": topk_data}
# Each metric: how it is made, its result key, its data, and the options that give one number (a
# module's test file's VALUE_OPTIONS; top-k: k=2).
METRICS = {
    "toy": (ToySpecificity, "mean_specificity", labels_data, {}),
    **{entry.name: (entry.name, entry.value_key, KIND_DATA[entry.inputs], getattr(module_tests(entry.name), "VALUE_OPTIONS", {}))
       for entry in MODULES if entry.name in MODULE_NAMES},
}


def make(metric, **load_options):
    source = METRICS[metric][0]
    return source(**load_options) if isinstance(source, type) else load_module(source, **load_options)


def compute(metric, data, **kwargs):
    options = METRICS[metric][3]
    return make(metric).compute(predictions=data["predictions"], references=data["references"], **options, **kwargs)


@pytest.fixture(params=list(METRICS))
def metric(request):
    return request.param


def test_value_and_default_interval(metric):
    key, data = METRICS[metric][1], METRICS[metric][2](0)
    plain = compute(metric, data)
    assert type(plain[key]) is float and math.isfinite(plain[key])
    result = compute(metric, data, confidence_level=LEVEL)
    low, high = result[f"{key}_ci"]
    assert result[key] == plain[key] and type(low) is float and low <= result[key] <= high


def test_bootstrap_interval(metric):
    key, data = METRICS[metric][1], METRICS[metric][2](1)
    result = compute(metric, data, confidence_level=LEVEL, ci_method="bootstrap", n_resamples=200, seed=3)
    low, high = result[f"{key}_ci"]
    assert low < high and low <= result[key] + 0.05 and result[key] - 0.05 <= high
    assert result == compute(metric, data, confidence_level=LEVEL, ci_method="bootstrap", n_resamples=200, seed=3)


def test_clusters_widen_the_interval_and_leave_the_value(metric):
    key, data = METRICS[metric][1], METRICS[metric][2](2)
    independent = compute(metric, data, confidence_level=LEVEL)
    clustered = compute(metric, data, confidence_level=LEVEL, clusters=np.arange(240) // 8)
    assert clustered[key] == independent[key] and clustered["num_clusters"] == 30 and clustered["design_effect"] > 0
    alone = compute(metric, data, confidence_level=LEVEL, clusters=np.arange(240))  # every item its own cluster
    assert alone[f"{key}_ci"] == pytest.approx(independent[f"{key}_ci"], abs=1e-12)


def test_sample_weight_of_ones_is_no_weight_and_others_move_the_value(metric):
    key, data = METRICS[metric][1], METRICS[metric][2](3)
    unweighted = compute(metric, data, confidence_level=LEVEL)
    ones = compute(metric, data, confidence_level=LEVEL, sample_weight=np.ones(240))
    assert ones[key] == pytest.approx(unweighted[key], abs=1e-15)
    assert ones[f"{key}_ci"] == pytest.approx(unweighted[f"{key}_ci"], abs=1e-12)
    weights = np.random.default_rng(4).uniform(0.2, 3.0, 240)
    weighted = compute(metric, data, confidence_level=LEVEL, sample_weight=weights)
    doubled = compute(metric, data, confidence_level=LEVEL, sample_weight=2 * weights)  # scale-free
    assert weighted[key] != unweighted[key] and doubled[key] == pytest.approx(weighted[key], abs=1e-15)


def test_baseline_predictions(metric):
    key, data = METRICS[metric][1], METRICS[metric][2](5)
    if "baseline" not in data:
        with pytest.raises((TypeError, ValueError), match="^baseline_predictions: "):
            compute(metric, data, baseline_predictions=data["predictions"])
        return
    result = compute(metric, data, baseline_predictions=data["baseline"], confidence_level=LEVEL)
    system = compute(metric, data)[key]
    baseline = compute(metric, {**data, "predictions": data["baseline"]})[key]
    assert result[key] == system and result[f"baseline_{key}"] == baseline
    assert result[f"{key}_difference"] == system - baseline
    low, high = result[f"{key}_difference_ci"]
    assert low <= system - baseline <= high and 0 <= result[f"{key}_difference_p_value"] <= 1
    clustered = compute(metric, data, baseline_predictions=data["baseline"], confidence_level=LEVEL, clusters=np.arange(240) // 8)
    assert clustered[f"{key}_difference"] == system - baseline and clustered["num_clusters"] == 30
    assert 0 <= clustered[f"{key}_difference_p_value"] <= 1


def test_judges(metric):
    key, data = METRICS[metric][1], METRICS[metric][2](6)
    if "judges" not in data:
        with pytest.raises((TypeError, ValueError), match="^judges: "):
            make(metric).compute(references=data["references"], judges={"a": data["predictions"], "b": data["predictions"]})
        return
    result = make(metric).compute(references=data["references"], judges=data["judges"], confidence_level=LEVEL)
    singles = {name: make(metric).compute(references=data["references"], predictions=labels)[key] for name, labels in data["judges"].items()}
    ranking = result["judge_ranking"]
    assert [entry["name"] for entry in ranking] == sorted(singles, key=lambda name: -singles[name])
    assert all(entry[key] == singles[entry["name"]] for entry in ranking)
    assert ranking[0]["p_value"] is None and all(0 <= entry["p_value"] <= 1 for entry in ranking[1:])
    assert all(entry[f"{key}_ci"][0] <= entry[key] <= entry[f"{key}_ci"][1] for entry in ranking)
    assert result["best_judges"][0] == ranking[0]["name"]
    # Two judges: the p-value is the paired comparison's.
    two = make(metric).compute(references=data["references"], judges={"a": data["judges"]["a"], "c": data["judges"]["c"]})
    paired = make(metric).compute(references=data["references"], predictions=data["judges"]["a"],
                                  baseline_predictions=data["judges"]["c"])
    assert two["judge_ranking"][1]["p_value"] == pytest.approx(paired[f"{key}_difference_p_value"], rel=1e-13, abs=0)


def test_add_batch_streaming_equals_one_call(metric):
    key, data = METRICS[metric][1], METRICS[metric][2](7)
    options = METRICS[metric][3]
    once = compute(metric, data, confidence_level=LEVEL)
    # Loaded with the level, as the docs say: N-d batches (multilabel rows) then count their clusters.
    streamed = make(metric, confidence_level=LEVEL)
    for start in range(0, 240, 80):
        streamed.add_batch(predictions=data["predictions"][start:start + 80], references=data["references"][start:start + 80])
    assert streamed.compute(confidence_level=LEVEL, **options) == once
    if "judges" in data:
        ranked = make(metric)
        for start in range(0, 240, 80):
            ranked.add_batch(references=data["references"][start:start + 80],
                             judges={name: labels[start:start + 80] for name, labels in data["judges"].items()})
        assert ranked.compute(confidence_level=LEVEL) == make(metric).compute(references=data["references"], judges=data["judges"],
                                                                                confidence_level=LEVEL)


def flat(result, prefix=""):
    """A result's numbers and strings by path (``judge_ranking/0/name``), for one comparison."""
    if isinstance(result, dict):
        return {path: value for key, member in result.items() for path, value in flat(member, f"{prefix}{key}/").items()}
    if isinstance(result, list):
        return {path: value for index, member in enumerate(result) for path, value in flat(member, f"{prefix}{index}/").items()}
    return {prefix: result}


def test_distributed_mode_gives_process_0_the_one_process_result(tmp_path, monkeypatch):
    """Every metric in evaluate's multi-process mode, two real processes: process 0's result is the
    one-process result (values, intervals, clusters, the baseline's comparison and the judges' ranking)."""
    toy = tmp_path / "toy_specificity"
    toy.mkdir()
    (toy / "toy_specificity.py").write_text(TOY_SCRIPT, encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))  # the toy imports shared/ as a package
    cases, expected = [], {}
    for metric, (source, key, make_data, options) in METRICS.items():
        data = make_data(8)
        folder = str(toy) if metric == "toy" else str(REPO_ROOT / source)
        clusters = (np.arange(240) // 8).tolist()
        asked = [("plain", {}, {"clusters": clusters})]
        if "baseline" in data:
            asked.append(("baseline", {}, {"baseline_predictions": data["baseline"].tolist()}))
        for name, extra, inputs in asked:
            case = {"id": f"{metric}-{name}", "folder": folder, "predictions": data["predictions"].tolist(),
                    "references": data["references"].tolist(), "inputs": inputs,
                    "kwargs": {"confidence_level": LEVEL, **options, **extra}}
            cases.append(case)
            expected[case["id"]] = compute(metric, data, confidence_level=LEVEL, **extra,
                                           **{name: np.asarray(values) for name, values in inputs.items()})
        if "judges" in data:
            case = {"id": f"{metric}-judges", "folder": folder, "predictions": None, "references": data["references"].tolist(),
                    "inputs": {"judges": {name: labels.tolist() for name, labels in data["judges"].items()}},
                    "kwargs": {"confidence_level": LEVEL}}
            cases.append(case)
            expected[case["id"]] = make(metric).compute(references=data["references"], judges=data["judges"], confidence_level=LEVEL)
    results = run_distributed(cases, 2, tmp_path)
    assert results[1] == {case["id"]: None for case in cases}
    for case in cases:
        # The same numbers, up to the order floats are summed in when the processes' counts merge.
        found, wanted = flat(results[0][case["id"]]), flat(json.loads(json.dumps(expected[case["id"]])))
        assert found.keys() == wanted.keys(), case["id"]
        numbers = [path for path, value in wanted.items() if isinstance(value, float)]
        assert {path: found[path] for path in wanted if path not in numbers} == {path: wanted[path] for path in wanted if path not in numbers}
        assert [found[path] for path in numbers] == pytest.approx([wanted[path] for path in numbers], rel=1e-12, abs=1e-15, nan_ok=True)
    shutil.rmtree(tmp_path / "shared-cache", ignore_errors=True)
