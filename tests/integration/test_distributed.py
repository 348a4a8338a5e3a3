"""Distributed evaluation with real OS processes, for every module.

1. evaluate's own multi-process mode: 2 and 4 worker processes (``distributed_worker.py``)
   load each module with ``num_process``, ``process_id``, ``experiment_id`` and one shared
   ``cache_dir``, add their shard of the data and call ``compute``. Process 0 must get
   exactly (bit for bit) what one process computes on all the data; the others get None.
2. The alternative: an accelerate job (2 ranks, gloo on loopback) gathers predictions with
   ``gather_for_metrics`` and computes; the result equals the single-process one although
   the sharded loader padded the last batch with repeated samples.
"""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import MODULE_NAMES, REPO_ROOT
from processes import run_distributed

SUPPORT_DIR = Path(__file__).resolve().parents[1] / "support"
NUM_SAMPLES = 103  # not a multiple of 2 or 4: the shards have different sizes


def generated_cases():
    """Cases per module on generated data: labels, strings, scores, token maps, logits, multi-label."""
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

    cases = {
        "balanced_accuracy": [
            (noisy, skewed, {"return_per_class": True}),
            (noisy, skewed, {"adjusted": True}),
            (noisy, skewed, {"class_mask": [1, 2, 3], "zero_division": 0.0}),
            (judge[(scores > 0.5).astype(int)], judge[binary], {"pos_label": "unsafe", "return_per_class": True}),
            (scores, binary, {"threshold": "auto"}),
            (token_predictions, tokens, {"ignore_index": -100, "return_per_class": True}),
        ],
        "informedness": [
            (noisy, skewed, {"return_per_class": True, "return_markedness": True}),
            (noisy, skewed, {"average": "macro"}),
            (token_predictions, tokens, {"ignore_index": -100, "average": "weighted"}),
        ],
        "balanced_topk_accuracy": [
            (logits, skewed, {"k_list": [1, 3], "return_per_class": True}),
            (logits, skewed, {"k": 2}),
        ],
        "balanced_accuracy_multilabel": [
            (tag_scores, tags, {"from_probas": True, "threshold": "auto", "return_per_label": True}),
            ((tag_scores >= 0.5).astype(int), tags, {"average": "micro"}),
            ((tag_scores >= 0.5).astype(int), tags, {"average": "weighted", "return_per_label": True}),
        ],
    }
    return [
        {
            "id": f"{name}-{index}",
            "name": name,
            "folder": str(REPO_ROOT / name),
            "predictions": predictions.tolist(),
            "references": references.tolist(),
            "kwargs": kwargs,
        }
        for name in MODULE_NAMES
        for index, (predictions, references, kwargs) in enumerate(cases[name])
    ]


def as_json(result):
    """Exact comparison that also holds for NaN/inf and the int keys of a k_list dict."""
    return json.dumps(result, sort_keys=True)


@pytest.fixture(scope="module")
def single_process_results(tmp_path_factory):
    from conftest import load_module

    cache = tmp_path_factory.mktemp("single")
    results = {}
    for case in generated_cases():
        metric = load_module(case["name"], cache_dir=str(cache))
        results[case["id"]] = as_json(metric.compute(predictions=case["predictions"], references=case["references"], **case["kwargs"]))
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
