"""Bounded resources (issue 9), measured in fresh subprocesses with tracemalloc.

* Label values up to +-2^62, ``num_classes`` up to 10^9 and label strings of 10^5
  characters cost no memory in proportion to the value: the peak of a call stays within
  a small margin of the same call with ordinary values (NumPy reports its array
  allocations to tracemalloc, so every array counts).
* 10^8 labels streamed through ``add_batch`` in batches of 10^6: while streaming the peak
  is that of one batch (the store keeps counts, so it does not grow with the number of
  batches); ``compute`` reduces those counts, far below what per-element Python objects
  would take (>= 36 bytes per value and column).

The full 10^8 run takes about 30 s and 2.5 GB on 2 cores; ``ROBUSTNESS_STREAM_LABELS``
sets another size (e.g. 1e7 on a small machine).
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO_ROOT
from shared.tooling.modules import CLASS_MODULES, LABEL_MODULES
from shared.tooling.modules import module as registry_entry


def value_key(name):
    """The result key of the module's value (the registry's ``value_key``; a module's name need not be it)."""
    return registry_entry(name).value_key


STREAM_LABELS = int(float(os.environ.get("ROBUSTNESS_STREAM_LABELS", "1e8")))
STREAM_BATCH = 1_000_000

# The child loads the module folders as conftest.load_module does, without importing conftest
# (the parent has generated the helpers already) and with transformers hidden while evaluate
# is imported (its Evaluator would import transformers' pipelines and torch: seconds of CPU, unused).
_PRELUDE = f"""
import json, sys, time, tracemalloc, tempfile
import numpy as np
sys.modules["transformers"] = None
import evaluate
del sys.modules["transformers"]

def load_module(name, **kwargs):
    return evaluate.load({str(REPO_ROOT)!r} + "/" + name, **kwargs)

LABEL_MODULES = {tuple(LABEL_MODULES)!r}

def peak(call):
    tracemalloc.start()
    tracemalloc.reset_peak()
    result = call()
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top, result
"""


def run_measurements(body: str, timeout: int = 600) -> dict:
    """Run ``body`` after the prelude in a fresh interpreter; it prints one JSON object."""
    script = _PRELUDE + textwrap.dedent(body)
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_EVALUATE_OFFLINE="1")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout, env=env)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------------------
# Values that must not be allocated in proportion
# ----------------------------------------------------------------------------------------

MB = 1 << 20


@pytest.fixture(scope="module")
def value_peaks():
    """Peak bytes of calls with extreme values next to the same calls with ordinary ones."""
    return run_measurements(
        """
        n = 100_000
        rng = np.random.default_rng(0)
        small_refs = rng.integers(0, 4, n)
        small_preds = np.where(rng.random(n) < 0.7, small_refs, rng.integers(0, 4, n))
        huge_values = np.array([-(2**62), 2**62, 2**62 - 1, -5])
        huge_refs, huge_preds = huge_values[small_refs], huge_values[small_preds]
        moderate_values = np.array([-(10**6), 10**6, 10**6 - 1, -5])  # also beyond the counting range: sorted
        moderate_refs, moderate_preds = moderate_values[small_refs], moderate_values[small_preds]
        names = ["safe", "unsafe", "maybe", "unsure"]
        long_names = ["safe", "unsafe", "maybe", "x" * 100_000]  # one label of 10^5 characters
        short_refs, short_preds = [names[i] for i in small_refs], [names[i] for i in small_preds]
        long_refs, long_preds = [long_names[i] for i in small_refs], [long_names[i] for i in small_preds]
        every_long = ["y" * 100_000 + str(i % 3) for i in range(200)]  # every label 10^5 characters
        scores = rng.random((n, 4))
        out = {}
        for name in LABEL_MODULES:
            metric = load_module(name)
            metric.compute(predictions=small_preds[:10], references=small_refs[:10])  # warm up
            calls = {
                "small": lambda: metric.compute(predictions=small_preds, references=small_refs),
                "huge_values": lambda: metric.compute(predictions=huge_preds, references=huge_refs),
                "moderate_values": lambda: metric.compute(predictions=moderate_preds, references=moderate_refs),
                "num_classes_4": lambda: metric.compute(predictions=small_preds, references=small_refs, num_classes=4, zero_division=0.0,
                                                        class_mask=[0, 3]),
                "num_classes_1e9": lambda: metric.compute(predictions=small_preds, references=small_refs, num_classes=10**9,
                                                          zero_division=0.0, class_mask=[0, 3, 999_999_999]),
                "short_strings": lambda: metric.compute(predictions=short_preds, references=short_refs),
                "long_strings": lambda: metric.compute(predictions=long_preds, references=long_refs),
                "every_long": lambda: metric.compute(predictions=every_long[::-1], references=every_long),
            }
            out[name] = {key: peak(call)[0] for key, call in calls.items()}
            out[name]["values"] = {key: peak(call)[1] for key, call in calls.items() if key in ("small", "huge_values", "num_classes_1e9")}
        topk = load_module("balanced_topk_accuracy")
        out["balanced_topk_accuracy"] = {
            "short_strings": peak(lambda: topk.compute(predictions=scores, references=short_refs, labels=names))[0],
            "long_strings": peak(lambda: topk.compute(predictions=scores, references=long_refs, labels=long_names))[0],
        }
        print(json.dumps(out))
        """
    )


@pytest.mark.parametrize("name", LABEL_MODULES)
def test_label_values_up_to_2_to_the_62_cost_what_small_labels_cost(value_peaks, name):
    """Labels beyond the counting range are sorted: the peak grows with N (here 10^5 labels,
    under 100 bytes per label), not with the values - +-2^62 costs what +-10^6 costs."""
    peaks = value_peaks[name]
    assert peaks["huge_values"] <= 1.1 * peaks["moderate_values"] + 1 * MB, peaks
    assert peaks["huge_values"] <= 100 * 100_000, peaks
    # A one-to-one renaming of the four classes (order kept): the same value.
    values = value_peaks[name]["values"]
    assert values["huge_values"][value_key(name)] == pytest.approx(values["small"][value_key(name)], abs=1e-12)


@pytest.mark.parametrize("name", LABEL_MODULES)
def test_num_classes_of_a_billion_costs_what_four_classes_cost(value_peaks, name):
    peaks = value_peaks[name]
    assert peaks["num_classes_1e9"] <= 2 * peaks["num_classes_4"] + 4 * MB, peaks
    result = value_peaks[name]["values"]["num_classes_1e9"]
    assert isinstance(result[value_key(name)], float) and -1.0 <= result[value_key(name)] <= 1.0


@pytest.mark.parametrize("name", CLASS_MODULES)
def test_one_label_of_100_000_characters_costs_no_more_than_short_labels(value_peaks, name):
    """One long label among 10^5 short ones: a fixed-width array as wide as the longest
    label would take 4 x 10^5 bytes per element (40 GB); the peak stays near the
    short-label call's."""
    peaks = value_peaks[name]
    assert peaks["long_strings"] <= 2 * peaks["short_strings"] + 8 * MB, peaks


@pytest.mark.parametrize("name", LABEL_MODULES)
def test_labels_of_100_000_characters_cost_in_proportion_to_the_data(value_peaks, name):
    """200 references and 200 predictions of 10^5 characters: 40 MB of text."""
    text_bytes = 2 * 200 * 100_000
    assert value_peaks[name]["every_long"] <= 8 * text_bytes, value_peaks[name]


# ----------------------------------------------------------------------------------------
# Streaming 10^8 labels
# ----------------------------------------------------------------------------------------


def stream(name: str, total: int, keep_in_memory: bool) -> dict:
    return run_measurements(
        f"""
        metric = load_module({name!r}, cache_dir=tempfile.mkdtemp(), keep_in_memory={keep_in_memory})
        rng = np.random.default_rng(0)
        batches = []
        for seed in range(4):  # four different batches, cycled
            references = rng.integers(0, 10, {STREAM_BATCH})
            predictions = np.where(rng.random({STREAM_BATCH}) < 0.7, references, rng.integers(0, 10, {STREAM_BATCH}))
            batches.append((predictions, references))
        num_batches = {total} // {STREAM_BATCH}
        uses = [len(range(seed, num_batches, 4)) for seed in range(4)]
        expected_support = sum(use * np.bincount(r, minlength=10) for use, (p, r) in zip(uses, batches))
        tracemalloc.start()
        started = time.perf_counter()
        peaks = []
        for index in range({total} // {STREAM_BATCH}):
            predictions, references = batches[index % 4]
            metric.add_batch(predictions=predictions, references=references)
            if index in (1, {total} // {STREAM_BATCH} - 1):
                peaks.append(tracemalloc.get_traced_memory()[1])
        streamed = time.perf_counter()
        tracemalloc.reset_peak()
        result = metric.compute(return_per_class=True{', average="macro"' if name == "informedness" else ''})
        finished = time.perf_counter()
        compute_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(json.dumps(dict(stream_peaks=peaks, compute_peak=compute_peak, stream_seconds=streamed - started,
                              compute_seconds=finished - streamed, result=result,
                              expected_support=expected_support.tolist())))
        """,
        timeout=900,
    )


@pytest.mark.parametrize(
    "name, total, keep_in_memory",
    [
        ("balanced_accuracy", STREAM_LABELS, False),
        ("informedness", 10_000_000, True),
    ],
)
def test_streamed_labels_use_memory_bounded_by_a_batch_then_a_few_bytes_per_label(name, total, keep_in_memory, record_property):
    measured = stream(name, total, keep_in_memory)
    record_property("measured", {k: v for k, v in measured.items() if k != "result"})
    first, last = measured["stream_peaks"]
    # Streaming: add_batch keeps counts (a 10 x 10 table here), so the peak after the last
    # batch is the peak after the second (one batch's worth): it does not grow with batches.
    assert last <= first + 1 * MB, measured
    assert first <= 4 * 8 * STREAM_BATCH, measured  # a few copies of one int64 batch at most
    # compute: bytes per label, no per-element Python objects (those take >= 36 bytes each).
    per_label = measured["compute_peak"] / total
    assert per_label <= 20, measured
    assert measured["result"]["support_per_class"] == measured["expected_support"]
    print(f"\n{name}: {total:,} labels streamed in {measured['stream_seconds']:.1f} s, computed in "
          f"{measured['compute_seconds']:.1f} s; peak {first / MB:.0f} MB while streaming, "
          f"{measured['compute_peak'] / MB:.0f} MB ({per_label:.1f} B/label) in compute")
