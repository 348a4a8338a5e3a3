"""Nothing lost (issue 9): rejected batches, cache files, parallel instances, the Space apps.

* Any sequence of valid and invalid ``add_batch`` calls (generated) computes what one call
  on the valid batches computes: a rejected batch leaves the earlier ones intact and the
  later ones count, in memory and in cache files, across storage-type widenings.
* No cache (.arrow) file is left behind after ``compute``, after a failed ``compute``
  (bad option values after ``add_batch``), or when an instance holding batches is
  garbage-collected. A misspelled compute argument fails before anything is consumed.
  (The 0-byte ``.lock`` files stay, as evaluate leaves them: deleting a lock file that
  another process may be waiting on is not safe.)
* Instances in parallel processes with different ``experiment_id``s (and, single-process,
  the same one) do not interfere; two distributed jobs sharing one ``experiment_id`` get
  a clear error naming it, and the job that was there first still computes correctly.
* The Space apps (through ``space_app.run_metric`` and the page handler
  ``space_app.compute_page``) answer oversized, malformed and random input with a message
  and compute the next request.
"""

import gc
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.space import app as space_app
from shared.space import parsing as space_parsing
from conftest import app_controls, space_helper, MODULE_NAMES, REPO_ROOT, load_module, module_tests, run_app
from shared.tooling.modules import LABEL_MODULES, MODULES
from shared.tooling.modules import module
from robustness import check_error, scaled

_CACHE_ROOT = Path(tempfile.mkdtemp(prefix="nothing-lost-"))


def arrow_files(directory):
    return sorted(str(p.relative_to(directory)) for p in Path(directory).rglob("*.arrow"))


def close(a, b, tolerance=1e-12):
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return a == b or (a != a and b != b) or abs(a - b) <= tolerance
    return a == b


# ----------------------------------------------------------------------------------------
# Rejected batches
# ----------------------------------------------------------------------------------------


def _good_batch(name, draw, width):
    # (Not empty: an empty first batch fixes no storage type, so a later "wrong" width would fit.)
    n = draw.draw(st.integers(1, 6))
    rng = np.random.default_rng(draw.draw(st.integers(0, 2**32 - 1)))
    if name in LABEL_MODULES:
        high = draw.draw(st.sampled_from([4, 4, 300, 70_000]))  # wider labels make the store widen
        references = rng.integers(0, 4, n)
        references[: draw.draw(st.integers(0, 1))] = high - 1 if n else 0
        predictions = np.where(rng.random(n) < 0.6, references, rng.integers(0, 4, n))
        dtype = draw.draw(st.sampled_from(["int64", "uint16", "int32"])) if high <= 300 else "int64"
        return predictions.astype(dtype), references.astype(dtype)
    if module(name).inputs == "indicators":
        references = (rng.random((n, width)) < 0.4).astype(np.int64)
        scores = np.round(rng.random((n, width)), 2).astype(draw.draw(st.sampled_from(["float64", "float32"])))
        return scores, references
    references = rng.integers(0, width, n)
    return rng.normal(size=(n, width)).astype(draw.draw(st.sampled_from(["float64", "float32"]))), references


def _bad_batch(name, draw, width):
    """A batch validation must reject (what it breaks is drawn)."""
    label_modules = LABEL_MODULES
    score_rows = module(name).inputs == "scores"  # else rows of indicators, or labels
    kind = draw.draw(st.sampled_from(["lengths", "missing", "strings", "non_finite", "ragged", "width", "fractional"]))
    if kind == "lengths":
        if name in label_modules:
            return [0, 1, 1], [0, 1]
        return np.zeros((3, width)), np.zeros(2, dtype=int) if score_rows else np.zeros((2, width), dtype=int)
    if kind == "missing":
        if name in label_modules:
            return [0, None], [0, 1]
        return np.zeros((2, width)), [0, None] if score_rows else [[0] * width, [None] * width]
    if kind == "strings":
        if name in label_modules:
            return ["a", "b"], ["a", "b"]  # strings after integer labels
        return [["x"] * width], [0] if score_rows else [[0] * width]
    if kind == "non_finite":
        if name in label_modules:
            return [0.0, float("inf")], [0, 1]
        return np.full((1, width), np.nan), [0] if score_rows else [[0] * width]
    if kind == "ragged":
        return [[0, 1], [1]], [[0, 1], [1, 0]]
    if kind == "width":
        if name in label_modules:
            return [[0, 1]], [0, 1]  # 2-D predictions, 1-D references: shapes differ
        return np.zeros((1, width + 1)), [0] if score_rows else np.zeros((1, width + 1), dtype=int)
    if getattr(module_tests(name), "TAKES_SCORES", False):
        # Scores in predictions may wait for a compute-time threshold; references are labels.
        return [0, 1], [0.5, 1.0]
    if name in label_modules:
        return [0.5, 1.0], [0, 1]  # scores where labels were stored
    return np.zeros((1, width)), [0.5] if score_rows else [[0.5] * width]


# Each module's options beyond its defaults: its test file's NOTHING_LOST_OPTIONS (a module without
# them is checked at its defaults).
OPTIONS = {name: getattr(module_tests(name), "NOTHING_LOST_OPTIONS", {}) for name in MODULE_NAMES}


@pytest.mark.parametrize("name", MODULE_NAMES)
@settings(max_examples=scaled(25))
@given(draw=st.data())
def test_rejected_batches_lose_nothing_and_later_batches_count(name, draw):
    width = draw.draw(st.integers(2, 4))
    keep_in_memory = draw.draw(st.booleans())
    cache_dir = _CACHE_ROOT / uuid.uuid4().hex
    metric = load_module(name, keep_in_memory=keep_in_memory, cache_dir=str(cache_dir))
    accepted = []
    for good in draw.draw(st.lists(st.booleans(), min_size=1, max_size=6)):
        if good or not accepted:
            predictions, references = _good_batch(name, draw, width)
            metric.add_batch(predictions=predictions, references=references)
            accepted.append((predictions, references))
        else:
            predictions, references = _bad_batch(name, draw, width)
            with pytest.raises((ValueError, TypeError)) as raised:
                metric.add_batch(predictions=predictions, references=references)
            check_error(raised.value, {"predictions", "references"})
    all_predictions = np.concatenate([np.asarray(p, dtype=np.int64 if name in LABEL_MODULES else np.float64) for p, _ in accepted])
    all_references = np.concatenate([np.asarray(r, dtype=np.int64) for _, r in accepted])
    expected = load_module(name).compute(predictions=all_predictions, references=all_references, **OPTIONS.get(name, {}))
    assert close(metric.compute(**OPTIONS.get(name, {})), expected)
    assert arrow_files(cache_dir) == []


# ----------------------------------------------------------------------------------------
# Cache files
# ----------------------------------------------------------------------------------------

# By the kind of the module's inputs (the registry's ``inputs``).
DATA_OF_KIND = {
    "labels": dict(predictions=[0, 1, 1, 0], references=[0, 1, 0, 0]),
    "indicators": dict(predictions=[[0, 1], [1, 1]], references=[[0, 1], [1, 0]]),
    "scores": dict(predictions=[[0.1, 0.9], [0.8, 0.2]], references=[1, 1]),
}
DATA = {entry.name: DATA_OF_KIND[entry.inputs] for entry in MODULES}


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_one_process_writes_no_cache_file_and_a_failed_compute_loses_nothing(name, tmp_path):
    """One process holds its counts in memory: no cache file at any point. A compute that
    fails on an option (a bad value or a misspelled name) is refused before the counts are
    read, so they stay for the corrected call."""
    expected = load_module(name).compute(**DATA[name])
    metric = load_module(name, cache_dir=str(tmp_path))
    metric.add_batch(**DATA[name])
    assert arrow_files(tmp_path) == []
    assert metric.compute() == expected

    metric.add_batch(**DATA[name])
    with pytest.raises(ValueError, match="^zero_division: expected"):
        metric.compute(zero_division="warn")
    with pytest.raises(TypeError, match="^zero_divison: expected an argument of"):
        metric.compute(zero_divison=0.0)
    assert metric.compute() == expected  # the batch added before the failed calls, once
    assert metric.compute(**DATA[name]) == expected  # the instance works on

    metric.add_batch(**DATA[name])
    del metric
    gc.collect()
    assert arrow_files(tmp_path) == []


# ----------------------------------------------------------------------------------------
# Parallel processes
# ----------------------------------------------------------------------------------------

_WORKER = """
import json, sys, time
sys.modules.setdefault("transformers", None)  # evaluate's Evaluator is not used here
import evaluate
import numpy as np
folder, cache_dir, experiment_id, seed, num_process, process_id, hold = sys.argv[1:8]
num_process, process_id, hold = int(num_process), int(process_id), float(hold)
rng = np.random.default_rng(int(seed))
references = rng.integers(0, 4, 4000)
predictions = np.where(rng.random(4000) < 0.3 + 0.1 * int(seed), references, rng.integers(0, 4, 4000))
try:
    metric = evaluate.load(folder, cache_dir=cache_dir, experiment_id=experiment_id, num_process=num_process, process_id=process_id)
    shard = slice(process_id, None, num_process)
    for start in range(0, 4000, 200):  # many small batches, interleaved with the other processes
        part = slice(start, start + 200)
        metric.add_batch(predictions=predictions[shard][part], references=references[shard][part])
        time.sleep(hold / 20)
    result = metric.compute(return_per_class=True)
    print(json.dumps({"result": result}))
except Exception as error:
    print(json.dumps({"error": type(error).__name__, "message": str(error)}))
"""


def _spawn(*arguments):
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_EVALUATE_OFFLINE="1")
    return subprocess.Popen([sys.executable, "-c", _WORKER, *map(str, arguments)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


def _answer(process, timeout=300):
    stdout, stderr = process.communicate(timeout=timeout)
    assert process.returncode == 0, stderr[-3000:]
    return json.loads(stdout.strip().splitlines()[-1])


def _expected(seed):
    rng = np.random.default_rng(seed)
    references = rng.integers(0, 4, 4000)
    predictions = np.where(rng.random(4000) < 0.3 + 0.1 * seed, references, rng.integers(0, 4, 4000))
    return load_module("balanced_accuracy").compute(predictions=predictions, references=references, return_per_class=True)


@pytest.mark.parametrize("same_id", [False, True], ids=["different_experiment_ids", "same_experiment_id"])
def test_parallel_single_process_instances_do_not_interfere(tmp_path, same_id):
    """Four processes stream into one cache_dir at once; each computes its own data.
    With one shared experiment_id evaluate gives each its own file (single-process mode)."""
    folder = REPO_ROOT / "balanced_accuracy"
    processes = [_spawn(folder, tmp_path, "shared" if same_id else f"run-{seed}", seed, 1, 0, 1.0) for seed in range(4)]
    answers = [_answer(process) for process in processes]
    for seed, answer in enumerate(answers):
        assert "result" in answer, answer
        assert close(answer["result"], _expected(seed))
    assert arrow_files(tmp_path) == []


def test_two_distributed_jobs_sharing_an_experiment_id_get_a_clear_error(tmp_path):
    """Job A (2 processes) runs; a second job's process 1 with A's experiment_id finds A's
    cache file locked: ValueError naming experiment_id. A still computes its own result."""
    folder = REPO_ROOT / "balanced_accuracy"
    job_a = [_spawn(folder, tmp_path, "nightly", 0, 2, process_id, 12.0) for process_id in (0, 1)]
    time.sleep(5)  # A's processes take a few seconds to start, then hold their cache files for 12 s
    intruder = _spawn(folder, tmp_path, "nightly", 1, 2, 1, 0.0)
    refused = _answer(intruder)
    assert refused.get("error") == "ValueError", refused
    assert "experiment_id" in refused["message"] and "nightly" in refused["message"]
    process_0, process_1 = (_answer(process) for process in job_a)
    assert process_1 == {"result": None}  # only process 0 gets the result
    assert close(process_0["result"], _expected(0))
    assert arrow_files(tmp_path) == []


# ----------------------------------------------------------------------------------------
# The Space apps stay up
# ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spaces():
    """{name: (metric, options, plots)} as each app.py builds its page."""
    built = {}
    for name in MODULE_NAMES:
        namespace = run_app(name)
        metric = load_module(name)
        options = app_controls(namespace, metric)
        built[name] = (metric, namespace, options, namespace["PLOTS"])
    return built


# The same data as pasted into a Space.
GOOD = {name: (json.dumps(data["predictions"]), json.dumps(data["references"])) for name, data in DATA.items()}

BAD_REQUESTS = [
    ("x" * (space_parsing.MAX_INPUT_CHARS + 1), "[0]", "", "input too large"),
    ("\n".join(["1"] * (space_app.MAX_VALUES + 1)), "[0]", "", "too many values"),
    ("[" * 100_000 + "]" * 100_000, "[0]", "", "nested too deeply"),
    ("[0, 1", "[0, 1]", "", "not valid JSON"),
    ("\x00\x01\x02", "[0]", "", "predictions"),
    ("[0, 1]", "[0, 1]", '{"zero_division": ', "options"),
    ("[0, 1]", "[0, 1]", "[1, 2]", "options"),
    ("[0, 1]", "[0, 1]", '{"num_class": 3}', "num_class: expected an argument"),
    ("[0, 1]", "[0, 1]", '{"sample_weight": [1e308, 1e308]}', "sample_weight"),
    ("[0, 1]", "[0, 1]", '{"ignore_index": [0]}', "ignore_index"),
    ("[1e999, 0]", "[0, 1]", "", "finite"),
]


@pytest.mark.parametrize("name", MODULE_NAMES)
@pytest.mark.parametrize("predictions, references, options, words", BAD_REQUESTS)
def test_run_metric_refuses_bad_input_with_a_message_and_serves_the_next_request(spaces, name, predictions, references, options, words):
    metric = spaces[name][0]
    answer = json.loads(space_app.run_metric(metric, predictions, references, options))
    assert set(answer) == {"error"} and answer["error"]
    if name in LABEL_MODULES or words not in ("finite", "sample_weight", "ignore_index"):
        assert words in answer["error"], answer
    good = json.loads(space_app.run_metric(metric, *GOOD[name], ""))
    assert "error" not in good and good == metric.compute(predictions=json.loads(GOOD[name][0]), references=json.loads(GOOD[name][1]))


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_the_page_handler_refuses_bad_input_and_serves_the_next_request(spaces, name, tmp_path):
    metric, namespace, options, plots = spaces[name]
    space_app = space_helper(namespace)  # the app's own helper: its controls and page functions
    (shown,) = space_app.example_rows(options, [[*GOOD[name], "{}"]])  # the page's controls at their defaults
    defaults = shown[2:]
    too_big = tmp_path / "big.csv"
    too_big.write_text("predictions,references\n" + "0,1\n" * (space_app.MAX_UPLOAD_BYTES // 4 + 1))
    garbage = tmp_path / "garbage.csv"
    garbage.write_bytes(b"\xff\xfe\x00garbage\x00")
    bad_pages = [
        space_app.compute_page(metric, options, plots, "paste", "x" * (space_parsing.MAX_INPUT_CHARS + 1), "[0]", None, defaults),
        space_app.compute_page(metric, options, plots, "paste", "[[[", "[0]", None, defaults),
        space_app.compute_page(metric, options, plots, "csv", "", "", str(too_big), defaults),
        space_app.compute_page(metric, options, plots, "csv", "", "", str(garbage), defaults),
        space_app.compute_page(metric, options, plots, "csv", "", "", None, defaults),
    ]
    for page in bad_pages:
        assert not page.ok and page.message and "error" in json.loads(page.result_json)
    good = space_app.compute_page(metric, options, plots, "paste", *GOOD[name], None, defaults)
    assert good.ok, good.message


@pytest.mark.parametrize("name", MODULE_NAMES)
@settings(max_examples=scaled(100))
@given(
    predictions=st.one_of(st.text(max_size=60), st.sampled_from(["[0, 1]", "[[0.1, 0.9]]", "0,1\n1,0", "[1e999]", "[null]", '["a", 1]'])),
    references=st.one_of(st.text(max_size=60), st.sampled_from(["[0, 1]", "[1]", "0\n1", "[[0, 1]]", "[true, false]"])),
    options=st.one_of(st.text(max_size=40), st.sampled_from(['{"k": 99}', '{"labels": "ab"}', '{"threshold": "auto"}', '{"average": null}'])),
)
def test_run_metric_answers_any_text_with_json(spaces, name, predictions, references, options):
    """Random text in every box: always a JSON answer (a result or an error), never a crash."""
    answer = json.loads(space_app.run_metric(spaces[name][0], predictions, references, options))
    assert isinstance(answer, dict)
