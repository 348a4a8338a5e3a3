"""Distributed evaluation with real OS processes, for every module.

1. evaluate's own multi-process mode: 2 and 4 worker processes (``distributed_worker.py``)
   load each module with ``num_process``, ``process_id``, ``experiment_id`` and one shared
   ``cache_dir``, add their shard of the data and call ``compute``. Process 0 must get
   exactly (bit for bit) what one process computes on all the data; the others get None.
2. The alternative: an accelerate job (2 ranks, gloo on loopback) gathers predictions with
   ``gather_for_metrics`` and computes; the result equals the single-process one although
   the sharded loader padded the last batch with repeated samples.
3. The fast path across processes: each process's shard has its own dtypes and ranges, so
   its stored counts have other storage types; process 0 reads them all back.
"""

import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import evaluate
import numpy as np
import pytest

from conftest import MODULE_NAMES, REPO_ROOT, module_tests
from shared.tooling.modules import module
from fast_path_data import COMPUTE_OPTIONS, MODULES, arrow_files, concatenated, make_data, same
from processes import run_distributed

SUPPORT_DIR = Path(__file__).resolve().parents[1] / "support"
NUM_SAMPLES = 103  # not a multiple of 2 or 4: the shards have different sizes


def generated_cases():
    """Cases per module (its test file's ``DISTRIBUTED_CASES``) on generated data: labels, strings,
    scores, token maps, logits, multi-label."""
    rng = np.random.default_rng(20250101)
    n = NUM_SAMPLES
    skewed = rng.choice(5, size=n, p=[0.55, 0.2, 0.15, 0.07, 0.03])
    noisy = np.where(rng.random(n) < 0.6, skewed, rng.integers(0, 5, n))
    binary = (rng.random(n) < 0.2).astype(int)
    scores = np.round(np.clip(binary * 0.3 + rng.random(n) * 0.7, 0, 1), 3)  # with ties
    tokens = rng.integers(0, 3, size=(n, 7))
    token_predictions = np.where(rng.random((n, 7)) < 0.7, tokens, rng.integers(0, 3, (n, 7)))
    tokens[:, 5:] = -100  # padding
    logits = rng.normal(size=(n, 6)) + np.eye(6)[skewed] * 1.5
    tags = (rng.random((n, 4)) < [0.5, 0.2, 0.1, 0.05]).astype(int)
    tags[:2] = [[0, 0, 0, 0], [1, 1, 1, 1]]
    tag_scores = np.round(np.clip(tags * 0.35 + rng.random((n, 4)) * 0.65, 0, 1), 4)
    judge = np.array(["safe", "unsafe"])

    # Named data (a module's DISTRIBUTED_CASES name theirs); per-sample inputs name theirs too.
    data = {
        "noisy": noisy, "skewed": skewed, "binary": binary, "scores": scores,
        "judge_predictions": judge[(scores > 0.5).astype(int)], "judge_references": judge[binary],
        "tokens": tokens, "token_predictions": token_predictions, "logits": logits,
        "tags": tags, "tag_scores": tag_scores, "tag_labels": (tag_scores >= 0.5).astype(int),
        "triples": np.arange(n) // 3,
    }
    return [
        {
            "id": f"{name}-{index}",
            "name": name,
            "folder": str(REPO_ROOT / name),
            "predictions": data[case[0]].tolist(),
            "references": data[case[1]].tolist(),
            "kwargs": case[2],
            **named_extras(case[3] if len(case) > 3 else {}, data),  # "load": load-time options; "inputs": per-sample inputs
        }
        for name in MODULE_NAMES
        for index, case in enumerate(distributed_cases(name))
    ]


# A module's cases where its test file names none: its kind's data at its defaults.
DEFAULT_CASES = {
    "labels": [("noisy", "skewed", {}), ("token_predictions", "tokens", {"ignore_index": -100})],
    "scores": [("logits", "skewed", {})],
    "indicators": [("tag_labels", "tags", {})],
}


def distributed_cases(name):
    """``DISTRIBUTED_CASES`` of the module's test file: (predictions, references, options[, extras]),
    the data by name; its kind's defaults if it names none."""
    return getattr(module_tests(name), "DISTRIBUTED_CASES", DEFAULT_CASES[module(name).inputs])


def named_extras(extras, data):
    """A case's extras with the per-sample inputs' data names replaced by the data."""
    if "inputs" not in extras:
        return extras
    return {**extras, "inputs": {key: data[value].tolist() for key, value in extras["inputs"].items()}}


def as_json(result):
    """Exact comparison that also holds for NaN/inf and the int keys of a k_list dict."""
    return json.dumps(result, sort_keys=True)


@pytest.fixture(scope="module")
def single_process_results(tmp_path_factory):
    from conftest import load_module

    cache = tmp_path_factory.mktemp("single")
    results = {}
    for case in generated_cases():
        metric = load_module(case["name"], cache_dir=str(cache), **case.get("load", {}))
        results[case["id"]] = as_json(metric.compute(predictions=case["predictions"], references=case["references"],
                                                     **case.get("inputs", {}), **case["kwargs"]))
    return results


@pytest.mark.parametrize("num_process", [2, 4])
def test_evaluate_multi_process_mode_gives_process_0_the_single_process_result(num_process, tmp_path, single_process_results):
    cases = generated_cases()
    assert {case["name"] for case in cases} == set(MODULE_NAMES)
    results = run_distributed(cases, num_process, tmp_path)

    for case in cases:
        assert as_json(results[0][case["id"]]) == single_process_results[case["id"]], case["id"]
        for rank in range(1, num_process):
            assert results[rank][case["id"]] is None
    # Process 0 cleaned up the shards of every process (run_distributed's shared cache folder).
    assert not list((tmp_path / "shared-cache").rglob("*.arrow"))


def free_loopback_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_accelerate_gather_for_metrics_then_compute_equals_single_process(tmp_path, load):
    rng = np.random.default_rng(7)
    references = rng.choice(4, size=NUM_SAMPLES, p=[0.6, 0.25, 0.1, 0.05])
    scores = rng.normal(size=(NUM_SAMPLES, 4)) + np.eye(4)[references]
    data_path = tmp_path / "data.npz"
    np.savez(data_path, scores=scores, references=references)
    port = free_loopback_port()
    world_size = 2
    ranks = []
    for rank in range(world_size):
        env = {
            **os.environ,
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": str(port),
            "WORLD_SIZE": str(world_size),
            "RANK": str(rank),
            "LOCAL_RANK": str(rank),
            "LOCAL_WORLD_SIZE": str(world_size),
            "GLOO_SOCKET_IFNAME": "lo",  # keep the ranks' traffic on loopback
            "OMP_NUM_THREADS": "1",
            "HF_HOME": str(tmp_path / "hf-home"),
        }
        ranks.append(
            subprocess.Popen(
                [sys.executable, str(SUPPORT_DIR / "accelerate_worker.py"), str(REPO_ROOT / "balanced_accuracy"),
                 str(data_path), str(tmp_path / "result.json")],
                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
        )
    outputs = [process.communicate(timeout=300) for process in ranks]
    for rank, (process, (_, stderr)) in enumerate(zip(ranks, outputs)):
        assert process.returncode == 0, f"rank {rank} failed:\n{stderr}"
    output = json.loads((tmp_path / "result.json").read_text())
    assert output["num_processes"] == world_size
    gathered = output["result"]
    single = load("balanced_accuracy").compute(predictions=scores.argmax(-1), references=references, return_per_class=True)
    assert gathered == single
    assert sum(gathered["support_per_class"]) == NUM_SAMPLES  # the loader's padding was dropped again


# ---------------------------------------------------------------- the fast path across real processes

WORKER = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    sys.modules["transformers"] = None  # evaluate's Evaluator would import transformers' pipelines: seconds, unused
    import evaluate
    del sys.modules["transformers"]

    repo, cache_dir, data_path, num_process, process_id, names = sys.argv[1:7]
    num_process, process_id = int(num_process), int(process_id)
    data = np.load(data_path)
    results = {}
    for name in names.split(","):
        metric = evaluate.load(f"{repo}/{name}", cache_dir=cache_dir, num_process=num_process,
                               process_id=process_id, experiment_id=f"{sys.argv[7]}-{name}", timeout=120)
        predictions, references = data[f"{name}-predictions-{process_id}"], data[f"{name}-references-{process_id}"]
        half = len(references) // 2
        metric.add_batch(predictions=predictions[:half], references=references[:half])
        metric.add_batch(predictions=predictions[half:], references=references[half:])
        results[name] = metric.compute(**json.loads(sys.argv[8])[name])
    print(json.dumps(results))
    """
)


def test_distributed_mode_across_real_processes(tmp_path):
    """num_process=3 in three OS processes: process 0 returns the single-process result, the others None.

    Each process's shard has another dtype and range, so each stores other column types
    (uint8, int8, int16; float32 and float64 scores); process 0 reads them all back.
    """
    num_process = 3
    shards = {name: make_data(name, variants=(0, 1, 2), n=80, seed=7) for name in MODULES}
    arrays = {}
    for name, parts in shards.items():
        for process_id, (predictions, references) in enumerate(parts):
            arrays[f"{name}-predictions-{process_id}"] = predictions
            arrays[f"{name}-references-{process_id}"] = references
    data_path = tmp_path / "shards.npz"
    np.savez(data_path, **arrays)
    cache_dir = tmp_path / "cache"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1"}
    arguments = [str(REPO_ROOT), str(cache_dir), str(data_path), str(num_process)]
    experiment_id = uuid.uuid4().hex
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, *arguments, str(process_id), ",".join(MODULES), experiment_id, json.dumps(COMPUTE_OPTIONS)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for process_id in range(num_process)
    ]
    outputs = [worker.communicate(timeout=300) for worker in workers]
    for worker, (stdout, stderr) in zip(workers, outputs):
        assert worker.returncode == 0, stderr[-3000:]
    results = [json.loads(stdout.strip().splitlines()[-1]) for stdout, _ in outputs]
    for name in MODULES:
        predictions, references = concatenated(shards[name])
        expected = evaluate.load(str(REPO_ROOT / name), cache_dir=str(tmp_path / "single")).compute(
            predictions=predictions, references=references, **COMPUTE_OPTIONS[name]
        )
        assert same(results[0][name], expected), name
        assert all(result[name] is None for result in results[1:])
    assert arrow_files(cache_dir) == []


def cluster_cases():
    """Cases with clusters= (issue 25; a module's test file's ``DISTRIBUTED_CLUSTER_CASES``):
    conversations of 1-D golden items, sequences of a token batch, a paired comparison; each process
    adds its shard, so a cluster may span two processes' batches."""
    rng = np.random.default_rng(20251125)
    n = NUM_SAMPLES
    conversation = np.sort(rng.integers(0, 25, n))
    hard = rng.random(25)[conversation]
    references = rng.choice(3, n, p=[0.6, 0.3, 0.1])
    predictions = np.where(rng.random(n) < 0.95 - 0.5 * hard, references, rng.integers(0, 3, n))
    baseline = np.where(rng.random(n) < 0.85 - 0.5 * hard, references, rng.integers(0, 3, n))
    tokens = rng.integers(0, 3, size=(n, 7))
    token_predictions = np.where(rng.random((n, 7)) < 0.7, tokens, rng.integers(0, 3, (n, 7)))
    logits = rng.normal(size=(n, 4)) + np.eye(4)[references] * 2 * (1 - hard)[:, None]
    data = {"predictions": predictions, "references": references, "baseline": baseline, "tokens": tokens,
            "token_predictions": token_predictions, "logits": logits, "conversation": conversation, "quads": np.arange(n) // 4}
    return [
        {"id": f"{name}-clusters-{index}", "name": name, "folder": str(REPO_ROOT / name), "predictions": data[case[0]].tolist(),
         "references": data[case[1]].tolist(), "inputs": {key: data[value].tolist() for key, value in case[2].items()},
         "kwargs": case[3]}
        for name in MODULE_NAMES
        for index, case in enumerate(getattr(module_tests(name), "DISTRIBUTED_CLUSTER_CASES", ()))
    ]


def test_clusters_across_processes_give_process_0_the_single_process_interval(tmp_path):
    from conftest import load_module

    cases = cluster_cases()
    results = run_distributed(cases, 3, tmp_path)
    for case in cases:
        metric = load_module(case["name"], cache_dir=str(tmp_path / "single"))
        inputs = {key: np.asarray(value) for key, value in case["inputs"].items()}
        single = metric.compute(predictions=case["predictions"], references=case["references"], **inputs, **case["kwargs"])
        assert "num_clusters" in single, case["id"]
        if module(case["name"]).inputs == "scores":
            # A one-call compute clips ranks at the largest k, add_batch without k at load keeps them:
            # other rows, so the design effect's float sums may differ in their last bits.
            def numbers(result):
                return np.array(re.findall(r"-?\d+\.\d+(?:e-?\d+)?", as_json(result)), dtype=float)

            assert numbers(results[0][case["id"]]) == pytest.approx(numbers(single), rel=1e-12), case["id"]
        else:
            assert as_json(results[0][case["id"]]) == as_json(single), case["id"]
