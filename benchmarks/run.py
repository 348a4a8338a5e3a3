"""Benchmark the metric modules against their peers: every target of issues 6 and 14, in one process.

Each case is timed several times (after one warm-up run unless a run takes longer than
``--slow-seconds``); the table reports medians and the ratio of medians measured in this
one run. Nothing here is a pass/fail test of speed: the table says which targets this
machine met in this run. Peers that are not installed are reported as missing, and the
targets of modules not (yet) in the checkout as "module missing"; no row is dropped.

Usage::

    python benchmarks/run.py                        # full run; writes benchmarks/results/results.{md,png}
    python benchmarks/run.py --quick --output DIR   # small sizes (seconds): checks the script, not the speed
    python benchmarks/run.py --case judge_ranking --output DIR   # one case (repeatable)

The "stock evaluate path" is the same reduction (balanced_accuracy's one-call ``compute``) behind
a plain ``evaluate.Metric`` with ``datasets.Value("int64")`` features and the NumPy
format, so inputs go through evaluate's own ``add_batch``/``encode_batch`` and come back
through the NumPy formatter: what a metric without the fast path pays.
"""

import argparse
import contextlib
import gc
import importlib
import io
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Dict, List, Optional

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
# evaluate's Evaluator imports transformers' pipelines (and torch) when transformers is installed:
# seconds of CPU in the benchmark's process and in every fresh process a memory case runs in
# (FRESH_PROCESS_PRELUDE), for nothing measured here (no case uses the Evaluator; the torch
# peers import torch themselves). transformers is hidden while evaluate is imported, then
# forgotten (datasets' pickler imports it if it is in sys.modules). Only as a script: a
# process that imports this file keeps its transformers.
FRESH_PROCESS_PRELUDE = "import sys; sys.modules['transformers'] = None; import evaluate; del sys.modules['transformers']; "
WITHOUT_TRANSFORMERS = __name__ == "__main__" and "transformers" not in sys.modules
if WITHOUT_TRANSFORMERS:
    sys.modules["transformers"] = None

import datasets  # noqa: E402
import evaluate  # noqa: E402
import numpy as np  # noqa: E402

if WITHOUT_TRANSFORMERS:
    del sys.modules["transformers"]

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
from shared.counting.inputs import available_cores  # noqa: E402  (what the modules' threads may use)

DEFAULT_OUTPUT = REPO_ROOT / "benchmarks" / "results"

FULL = dict(
    num_samples=10_000_000,  # balanced_accuracy, int64 labels
    num_classes=10,
    stream_batches=100,  # 100 add_batch calls of 100k
    auto_samples=5_000_000,  # binary scores, threshold="auto"
    multilabel_shape=(1_000_000, 50),
    multilabel_interval_shape=(1_000_000, 100),  # issue 25: the interval within 3x of the run without it
    topk_shape=(200_000, 1000),
    topk_k=(1, 5),
    segmentation_batches=10,
    segmentation_shape=(40, 512, 512),
    segmentation_classes=150,
    # issue 14: 1,000 add_batch calls of one 512x512 map each, cycling through a pool of
    # distinct maps (1,000 distinct pairs of maps would be 500 MB of inputs).
    stream_segmentation_batches=1000,
    stream_segmentation_shape=(512, 512),
    stream_segmentation_classes=150,
    stream_segmentation_pool=16,
    stream_segmentation_checkpoint=100,  # held memory after this many batches and after all
    topk_stream_shape=(200_000, 1000),
    topk_stream_batches=20,
    sweep=(10**4, 10**5, 10**6, 10**7),
    informedness_samples=1_000_000,  # issue 25: multi-class informedness with an interval
    informedness_classes=150,
    judges_samples=1_000_000,  # issue 32: 10 judges ranked, K = 3
    judges_count=10,
    judges_classes=3,
    many_judges=(200, 500),  # issue 40: J judges on N items, against a loop of J single computes
    most_judges=(1000, 30),  # issue 40: J judges on N items, under a minute
    repeats=5,
    slow_seconds=5.0,
)
QUICK = dict(
    num_samples=20_000,
    num_classes=10,
    stream_batches=10,
    auto_samples=20_000,
    multilabel_shape=(2_000, 5),
    multilabel_interval_shape=(2_000, 10),
    topk_shape=(1_000, 20),
    topk_k=(1, 5),
    segmentation_batches=3,
    segmentation_shape=(2, 32, 32),
    segmentation_classes=21,
    stream_segmentation_batches=20,
    stream_segmentation_shape=(32, 32),
    stream_segmentation_classes=21,
    stream_segmentation_pool=4,
    stream_segmentation_checkpoint=5,
    topk_stream_shape=(2_000, 50),
    topk_stream_batches=5,
    sweep=(10**3, 10**4),
    informedness_samples=20_000,
    informedness_classes=21,
    judges_samples=20_000,
    judges_count=10,
    judges_classes=3,
    many_judges=(20, 100),
    most_judges=(60, 30),
    repeats=1,
    slow_seconds=0.0,  # every run is "slow": one run per case, no warm-up
)

SEGMENTATION_MEMORY_ALLOWANCE = 64 * 2**20  # issue 14: growth <= 64 MB, whatever the number of batches
SEGMENTATION_VOID = 255
TOPK_BYTES_PER_SAMPLE = 16.0  # issue 14: cache files plus held memory, per streamed sample

# ------------------------------------------------------------------------------- helpers


@dataclass
class Timing:
    """Wall-clock seconds of the measured runs (the warm-up run is not among them)."""

    runs: List[float]
    note: str = ""  # how the peer was run, e.g. "1 torch thread"

    @property
    def median(self) -> float:
        return statistics.median(self.runs)


def timed(function: Callable[[], object], repeats: int, slow_seconds: float) -> Timing:
    """Median-ready timings of ``function``: one warm-up run, then ``repeats`` runs.

    A run slower than ``slow_seconds`` is kept as the first measurement (no warm-up) and
    the repeats are capped at 2, so that a slow peer does not take the whole budget.
    """
    gc.collect()
    start = time.perf_counter()
    function()
    first = time.perf_counter() - start
    runs = []
    if first > slow_seconds:
        runs.append(first)
        repeats = min(repeats, 2) - 1
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        function()
        runs.append(time.perf_counter() - start)
    return Timing(runs)


def _proc_status(key: str) -> Optional[int]:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def peak_memory(function: Callable[[], object]) -> Optional[int]:
    """Bytes by which the peak resident set size exceeded the RSS before ``function``.

    Linux only: writing 5 to /proc/self/clear_refs resets the peak (VmHWM). Returns None
    where that is not possible.
    """
    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return None
    before = _proc_status("VmRSS")
    function()
    peak = _proc_status("VmHWM")
    if before is None or peak is None:
        return None
    return max(0, peak - before)


def memory_case(mode: str, size: int, num_classes: int, batches: int, cache_dir: str) -> Optional[int]:
    """Peak RSS above start of one balanced-accuracy case, in this (fresh) process.

    The module is loaded and the inputs made before the start: what is measured is the
    compute (``mode="compute"``) or the ``batches`` add_batch calls plus compute, on disk
    (``"disk"``) or in memory (``"memory"``), first use included.
    """
    metric = load_module("balanced_accuracy", cache_dir, keep_in_memory=mode == "memory")
    references, predictions = labels_with_errors(np.random.default_rng(0), size, num_classes)
    batch = math.ceil(size / batches)

    def run() -> None:
        if mode == "compute":
            metric.compute(predictions=predictions, references=references)
            return
        for start in range(0, size, batch):
            metric.add_batch(predictions=predictions[start : start + batch], references=references[start : start + batch])
        metric.compute()

    return peak_memory(run)


def memory_in_fresh_process(mode: str, size: int, num_classes: int, batches: int, cache_dir: str) -> Optional[int]:
    """``memory_case`` run by a new Python process (None if it could not measure)."""
    code = (
        FRESH_PROCESS_PRELUDE + f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); import run; "
        f"print(run.memory_case({mode!r}, {size}, {num_classes}, {batches}, {cache_dir!r}))"
    )
    finished = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    last_line = finished.stdout.strip().splitlines()[-1]
    return None if last_line == "None" else int(last_line)


def in_fresh_process(function: str, *args):
    """``run.<function>(*args)`` in a new Python process; its JSON result (memory is measured there)."""
    code = (
        FRESH_PROCESS_PRELUDE + f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); import json, run; "
        f"print(json.dumps(run.{function}(*{args!r})))"
    )
    finished = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if finished.returncode:
        raise RuntimeError(f"{function}{args} failed in its process:\n{finished.stderr[-3000:]}")
    return json.loads(finished.stdout.strip().splitlines()[-1])


def segmentation_maps(rng, count: int, shape: tuple, num_classes: int):
    """``count`` (references, predictions) pairs of uint8 label maps: 10% void, 80% of pixels right."""
    maps = []
    for _ in range(count):
        references = rng.integers(0, num_classes, shape, dtype=np.uint8)
        references[rng.random(shape) < 0.1] = SEGMENTATION_VOID
        predictions = np.where(rng.random(shape) < 0.8, references, rng.integers(0, num_classes, shape, dtype=np.uint8)).astype(np.uint8)
        predictions[predictions == SEGMENTATION_VOID] = 0  # a model predicts classes, not void
        maps.append((references, predictions))
    return maps


def stream_segmentation(metric, maps, batches: int, num_classes: int, images: bool = False):
    """``batches`` add_batch calls (one map each, cycling through ``maps``), then the compute of issue 14.
    ``images``: each map as a (1, H, W) batch of one image, which an interval takes as one cluster (issue 25)."""
    for index in range(batches):
        references, predictions = maps[index % len(maps)]
        if images:
            references, predictions = references[None], predictions[None]
        metric.add_batch(predictions=predictions, references=references)
    return metric.compute(ignore_index=SEGMENTATION_VOID, num_classes=num_classes)


def numpy_segmentation(maps, batches: int, num_classes: int) -> float:
    """The NumPy accumulator: one np.bincount of (reference, prediction) codes per batch, summed;
    then the mean recall of the classes with support (the void row is dropped)."""
    counts = np.zeros(1 << 16, dtype=np.int64)
    for index in range(batches):
        references, predictions = maps[index % len(maps)]
        counts += np.bincount((references.astype(np.intp) << 8 | predictions).ravel(), minlength=1 << 16)
    matrix = counts.reshape(256, 256)[:num_classes, :num_classes]
    support = matrix.sum(axis=1)
    return float(np.mean(np.diag(matrix)[support > 0] / support[support > 0]))


def segmentation_memory_case(batches: int, shape: tuple, num_classes: int, pool: int, checkpoint: int, cache_dir: str,
                             traced: bool, confidence_level: Optional[float] = None) -> dict:
    """Memory of the streamed segmentation case, in this (fresh) process; the module is loaded
    and the maps made before the start.

    ``traced=False``: the peak RSS above start over every add_batch call and the compute.
    ``traced=True``: what tracemalloc (which sees NumPy's arrays) finds held after
    ``checkpoint`` batches and after all of them - what the stored counts cost - and its peak.
    ``confidence_level``: given to evaluate.load, with each map a (1, H, W) image, so that
    add_batch counts images as the interval's clusters (issue 25; traced=False only).
    """
    if confidence_level is not None:
        metric = load_module("balanced_accuracy", cache_dir, confidence_level=confidence_level)
        maps = segmentation_maps(np.random.default_rng(14), pool, shape, num_classes)
        return {"peak": peak_memory(lambda: stream_segmentation(metric, maps, batches, num_classes, images=True))}
    metric = load_module("balanced_accuracy", cache_dir)
    maps = segmentation_maps(np.random.default_rng(14), pool, shape, num_classes)
    if not traced:
        return {"peak": peak_memory(lambda: stream_segmentation(metric, maps, batches, num_classes))}
    import tracemalloc

    held = {}

    def measure(name):
        gc.collect()
        held[name] = tracemalloc.get_traced_memory()[0] - base

    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for index in range(batches):
        references, predictions = maps[index % len(maps)]
        metric.add_batch(predictions=predictions, references=references)
        if index + 1 == checkpoint:
            measure("checkpoint")
    measure("all")
    metric.compute(ignore_index=SEGMENTATION_VOID, num_classes=num_classes)
    held["peak"] = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return held


def auto_scores(kind: str, shape: tuple):
    """The inputs of the threshold="auto" cases: binary scores of 10% positives, or multilabel
    probabilities with per-label prevalences from 2% to 50% (the same draws as the timed cases)."""
    if kind == "binary":
        rng = np.random.default_rng(1)
        references = (rng.random(shape[0]) < 0.1).astype(np.int64)
    else:
        rng = np.random.default_rng(2)
        references = (rng.random(shape) < rng.uniform(0.02, 0.5, shape[1])).astype(np.int64)
    return references, np.clip(rng.normal(0.3 + 0.3 * references, 0.2), 0, 1)


def auto_memory_case(kind: str, shape: tuple, cache_dir: str) -> dict:
    """Peak RSS above start of one threshold="auto" compute, in this (fresh) process; the module
    is loaded and the inputs made before the start. Also the inputs' bytes."""
    name = "balanced_accuracy" if kind == "binary" else "balanced_accuracy_multilabel"
    metric = load_module(name, cache_dir)
    references, scores = auto_scores(kind, tuple(shape))
    options = {"threshold": "auto"} if kind == "binary" else {"threshold": "auto", "from_probas": True}
    peak = peak_memory(lambda: metric.compute(predictions=scores, references=references, **options))
    return {"peak": peak, "input_bytes": int(scores.nbytes + references.nbytes)}


def topk_stream_case(num_samples: int, num_classes: int, batches: int, cache_dir: str) -> dict:
    """Top-k streaming in this (fresh) process: bytes held after ``batches`` add_batch calls
    (tracemalloc; each batch is made, added and dropped), bytes of the files in the cache
    folder, and bytes of the file a process hands to process 0 in distributed mode (its
    store, written as ``compute`` writes it). Also the result against a brute-force count
    of hits under the documented tie rule (g classes higher, t tied: a hit worth
    min(1, max(0, (k - g) / (t + 1)))), made batch by batch from the same scores."""
    import tracemalloc

    metric = load_module("balanced_topk_accuracy", cache_dir)
    rng = np.random.default_rng(5)
    k_values = (1, 5)
    hits = {k: np.zeros(num_classes) for k in k_values}
    support = np.zeros(num_classes)
    batch = math.ceil(num_samples / batches)
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for start in range(0, num_samples, batch):
        size = min(batch, num_samples - start)
        references = rng.integers(0, num_classes, size)
        scores = rng.random((size, num_classes), dtype=np.float32)
        scores[np.arange(size), references] += rng.random(size, dtype=np.float32) * 0.5
        metric.add_batch(predictions=scores, references=references)
        true_scores = scores[np.arange(size), references][:, None]
        higher, tied = (scores > true_scores).sum(axis=1), (scores == true_scores).sum(axis=1) - 1
        for k in k_values:
            hits[k] += np.bincount(references, weights=np.clip((k - higher) / (tied + 1), 0, 1), minlength=num_classes)
        support += np.bincount(references, minlength=num_classes)
        del references, scores, true_scores, higher, tied
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    files = sum(os.path.getsize(os.path.join(folder, name)) for folder, _, names in os.walk(cache_dir) for name in names)
    with tempfile.TemporaryDirectory() as folder:
        handover = os.path.join(folder, "store.npz")
        metric.writer.save(handover)  # what _gather writes for a process > 0
        handover_bytes = os.path.getsize(handover)
    result = metric.compute(k_list=list(k_values))["balanced_topk_accuracy"]
    present = support > 0
    brute = {k: float(np.mean(hits[k][present] / support[present])) for k in k_values}
    return {"samples": num_samples, "held": held, "files": files, "handover": handover_bytes,
            "ours": {str(k): result[k] for k in k_values}, "brute": {str(k): brute[k] for k in k_values}}


def optional_import(module: str):
    """The module, or None if it is not installed (reported as a missing peer)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def load_module(name: str, cache_dir: str, **kwargs):
    """One of this repository's metric modules, as ``evaluate.load`` gives it; None if absent."""
    if not (REPO_ROOT / name / f"{name}.py").exists():
        return None
    return evaluate.load(str(REPO_ROOT / name), cache_dir=cache_dir, **kwargs)


def make_stock_metric(reduce_with, cache_dir: str):
    """The same reduction behind evaluate's stock storage: Value features, NumPy format."""

    class StockBalancedAccuracy(evaluate.Metric):
        def _info(self):
            return evaluate.MetricInfo(
                description="balanced accuracy through evaluate's stock add_batch/encode path",
                citation="",
                inputs_description="",
                features=datasets.Features({"predictions": datasets.Value("int64"), "references": datasets.Value("int64")}),
                format="numpy",
            )

        def _compute(self, predictions, references, **kwargs):
            # The module's one-call compute counts these arrays: only the storage path differs.
            return reduce_with.compute(predictions=np.asarray(predictions), references=np.asarray(references), **kwargs)

    return StockBalancedAccuracy(cache_dir=cache_dir)


def labels_with_errors(rng, num_samples: int, num_classes: int, dtype=np.int64):
    references = rng.integers(0, num_classes, num_samples).astype(dtype)
    predictions = np.where(rng.random(num_samples) < 0.7, references, rng.integers(0, num_classes, num_samples)).astype(dtype)
    return references, predictions


# ------------------------------------------------------------------------------- the table


@dataclass
class Row:
    """One target: ours against one peer, as ``ours / peer`` (lower is better for us)."""

    target: str
    case: str
    ours: Optional[float] = None
    peer_name: str = ""
    peer: Optional[float] = None
    limit: Optional[float] = None  # met iff ours / peer <= limit
    wording: str = ""
    status: str = ""
    runs: str = ""
    notes: List[str] = field(default_factory=list)
    unit: str = ""  # "s", "bytes", "B/sample" or "cells"; by default bytes for memory targets, else seconds

    @property
    def shown_unit(self) -> str:
        return self.unit or ("bytes" if self.target.startswith("memory") else "s")

    @property
    def ratio(self) -> Optional[float]:
        if self.ours is None or self.peer is None or self.peer == 0:
            return None
        return self.ours / self.peer

    def finish(self) -> "Row":
        if not self.status:
            ratio = self.ratio
            self.status = "met" if ratio is not None and ratio <= self.limit else "NOT met"
        return self


def seconds(value: Optional[float]) -> str:
    if value is None:
        return "-"
    if value >= 1:
        return f"{value:.2f} s"
    return f"{value * 1e3:.1f} ms"


def megabytes(value: Optional[float]) -> str:
    if value is None:
        return "-"
    return f"{value / 2**20:.1f} MB" if value < 10 * 2**20 else f"{value / 2**20:.0f} MB"


def shown(value: Optional[float], unit: str) -> str:
    if unit == "bytes":
        return megabytes(value)
    if unit == "B/sample":
        return "-" if value is None else f"{value:.1f} B/sample"
    if unit == "cells":
        return "-" if value is None else f"{value:,.0f} cells"
    return seconds(value)


def markdown_table(rows: List[Row]) -> str:
    lines = [
        "| target | case | ours | peer | peer time | ours ÷ peer | target | status | runs |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        ratio = row.ratio
        shown_ratio = "-" if ratio is None else f"{ratio:.3f}"
        ours, peer = shown(row.ours, row.shown_unit), shown(row.peer, row.shown_unit)
        status = row.status + ("" if not row.notes else " (" + "; ".join(row.notes) + ")")
        lines.append(
            f"| {row.target} | {row.case} | {ours} | {row.peer_name} | {peer} | {shown_ratio} | {row.wording} | {status} | {row.runs} |"
        )
    return "\n".join(lines)


# ------------------------------------------------------------------------------- cases


class Benchmark:
    def __init__(self, config: dict, repeats: int, slow_seconds: float, cache_dir: str, log=print):
        self.config = config
        self.repeats = repeats
        self.slow_seconds = slow_seconds
        self.cache_dir = cache_dir
        self.log = log
        self.rows: List[Row] = []
        self.modules: Dict[tuple, object] = {}
        self.sweep: Dict[str, Dict[int, float]] = {}
        self.sklearn_metrics = optional_import("sklearn.metrics")
        self.torch = optional_import("torch")
        self.torchmetrics_classification = optional_import("torchmetrics.classification")

    def module(self, name: str, keep_in_memory: bool = False, **options):
        """A metric module of this repository, loaded once (users load once and compute often);
        ``options``: load-time options (a module loaded with them is another module)."""
        key = (name, keep_in_memory, tuple(sorted(options.items())))
        if key not in self.modules:
            self.modules[key] = load_module(name, self.fresh_cache(), keep_in_memory=keep_in_memory, **options)
        return self.modules[key]

    def time(self, function) -> Timing:
        return timed(function, self.repeats, self.slow_seconds)

    def time_torch(self, function) -> Timing:
        """The better of torch's default thread count and one thread, for the peer's benefit.

        On a busy machine torch's OpenMP threads can be far slower than one thread, and a
        peer slowed by that would flatter us. (Our code uses the same cores: the top-k
        counting, the unweighted threshold search and the finite-value check of large score
        arrays run in blocks on up to all available cores; everything else runs on one.)
        """
        default = self.torch.get_num_threads()
        best = None
        try:
            for threads in sorted({default, 1}, reverse=True):
                self.torch.set_num_threads(threads)
                timing = self.time(function)
                timing.note = f"{threads} torch thread{'s' if threads > 1 else ''}"
                if best is None or timing.median < best.median:
                    best = timing
        finally:
            self.torch.set_num_threads(default)
        return best

    def add(self, row: Row) -> None:
        self.rows.append(row.finish())
        unit = row.shown_unit
        self.log(f"  {row.target} | {row.case} | ours {shown(row.ours, unit)} | {row.peer_name} {shown(row.peer, unit)} | {row.status}")

    def fresh_cache(self) -> str:
        return tempfile.mkdtemp(dir=self.cache_dir)

    def missing_module_rows(self, targets, module: str):
        for target, case, peer_name, limit, wording in targets:
            self.add(Row(target, case, peer_name=peer_name, limit=limit, wording=wording, status=f"module missing ({module}/ is not in this checkout)"))

    # -- balanced_accuracy: one compute, streaming, the peers, and the sweep over N

    def balanced_accuracy(self) -> None:
        config = self.config
        num_classes = config["num_classes"]
        # Loaded once, as users do: loading is not part of computing.
        metric = self.module("balanced_accuracy")
        in_memory = self.module("balanced_accuracy", keep_in_memory=True)
        stock_metric = None if metric is None else make_stock_metric(metric, self.fresh_cache())
        sizes = sorted(set(config["sweep"]) | {config["num_samples"]})
        big = config["num_samples"]
        targets = [
            ("BA one compute", f"N={big:,}, K={num_classes}", "bare np.bincount(ref*K+pred)", 1.5, "≤ 1.5"),
            ("BA one compute", f"N={big:,}, K={num_classes}", "sklearn balanced_accuracy_score", 0.5, "≤ 0.5 (≥ 2× faster)"),
            ("BA one compute", f"N={big:,}, K={num_classes}", "torchmetrics MulticlassAccuracy(average='macro')", 1 / 1.5, "≤ 0.667 (≥ 1.5× faster)"),
            ("BA one compute", f"N={big:,}, K={num_classes}", "stock evaluate path", 1 / 30, "≤ 0.0333 (≥ 30× faster)"),
            ("BA streaming", f"{config['stream_batches']} × add_batch + compute, on-disk cache", "ours: one compute", 1.5, "≤ 1.5"),
            ("BA streaming", f"{config['stream_batches']} × add_batch + compute, keep_in_memory", "ours: one compute", 1.5, "≤ 1.5"),
        ]
        if metric is None:
            self.missing_module_rows(targets, "balanced_accuracy")
            return
        rng = np.random.default_rng(0)
        methods = {
            "ours: compute": None,
            f"ours: {config['stream_batches']} × add_batch + compute": None,
            "bare np.bincount(ref*K+pred)": None,
            "sklearn balanced_accuracy_score": None,
            "torchmetrics MulticlassAccuracy": None,
            "stock evaluate path": None,
        }
        results: Dict[str, Dict[int, Timing]] = {name: {} for name in methods}
        stream_in_memory: Dict[int, Timing] = {}
        values: Dict[str, float] = {}
        for size in sizes:
            self.log(f"balanced_accuracy sweep: N={size:,}")
            references, predictions = labels_with_errors(rng, size, num_classes)
            batch = math.ceil(size / config["stream_batches"])

            def ours():
                return metric.compute(predictions=predictions, references=references)

            def streamed(keep_in_memory=False):
                module = in_memory if keep_in_memory else metric  # compute() empties the store: reusable
                for start in range(0, size, batch):
                    module.add_batch(predictions=predictions[start : start + batch], references=references[start : start + batch])
                return module.compute()

            values["ours"] = ours()["balanced_accuracy"]
            results["ours: compute"][size] = self.time(ours)
            results[f"ours: {config['stream_batches']} × add_batch + compute"][size] = self.time(streamed)
            if size == big:
                stream_in_memory[size] = self.time(lambda: streamed(keep_in_memory=True))
            results["bare np.bincount(ref*K+pred)"][size] = self.time(lambda: np.bincount(references * num_classes + predictions, minlength=num_classes**2))
            if self.sklearn_metrics is not None:
                values["sklearn"] = self.sklearn_metrics.balanced_accuracy_score(references, predictions)
                results["sklearn balanced_accuracy_score"][size] = self.time(
                    lambda: self.sklearn_metrics.balanced_accuracy_score(references, predictions)
                )
            if self.torchmetrics_classification is not None:
                target, preds = self.torch.from_numpy(references), self.torch.from_numpy(predictions)

                def torchmetrics_ba():
                    accuracy = self.torchmetrics_classification.MulticlassAccuracy(num_classes=num_classes, average="macro")
                    accuracy.update(preds, target)
                    return float(accuracy.compute())

                values["torchmetrics"] = torchmetrics_ba()
                results["torchmetrics MulticlassAccuracy"][size] = self.time_torch(torchmetrics_ba)
            stock = lambda: stock_metric.compute(predictions=predictions, references=references)  # noqa: E731
            values["stock"] = stock()["balanced_accuracy"]
            results["stock evaluate path"][size] = self.time(stock)
            for peer, value in values.items():
                if not math.isclose(value, values["ours"], rel_tol=1e-5, abs_tol=1e-6):
                    raise AssertionError(f"N={size}: {peer} gives {value}, ours {values['ours']}")
        self.sweep = {name: {size: timing.median for size, timing in by_size.items()} for name, by_size in results.items() if by_size}

        ours_big = results["ours: compute"][big]
        peers = [
            ("bare np.bincount(ref*K+pred)", results["bare np.bincount(ref*K+pred)"].get(big), None),
            ("sklearn balanced_accuracy_score", results["sklearn balanced_accuracy_score"].get(big), self.sklearn_metrics is None and "scikit-learn"),
            ("torchmetrics MulticlassAccuracy(average='macro')", results["torchmetrics MulticlassAccuracy"].get(big), self.torchmetrics_classification is None and "torchmetrics"),
            ("stock evaluate path", results["stock evaluate path"].get(big), None),
        ]
        for (target, case, peer_name, limit, wording), (_, peer, missing) in zip(targets[:4], peers):
            if missing:
                self.add(Row(target, case, ours_big.median, peer_name, None, limit, wording, status=f"peer missing ({missing} is not installed)"))
            else:
                shown = peer_name + (f" [{peer.note}]" if peer.note else "")
                self.add(Row(target, case, ours_big.median, shown, peer.median, limit, wording, runs=f"{len(ours_big.runs)} / {len(peer.runs)}"))
        stream = results[f"ours: {config['stream_batches']} × add_batch + compute"][big]
        for (target, case, peer_name, limit, wording), timing in zip(targets[4:], (stream, stream_in_memory[big])):
            self.add(Row(target, case, timing.median, peer_name, ours_big.median, limit, wording, runs=f"{len(timing.runs)} / {len(ours_big.runs)}"))

        # Peak memory of the big case: one compute, and the two streaming paths, each in a
        # fresh process (in this one, memory freed by the earlier cases and kept by the
        # allocators would hide what a case needs).
        input_bytes = 2 * big * np.dtype(np.int64).itemsize
        allowed = 2.5 * input_bytes + 200 * 2**20
        cases = [
            ("one compute", "compute"),
            (f"{config['stream_batches']} × add_batch + compute, on-disk", "disk"),
            (f"{config['stream_batches']} × add_batch + compute, keep_in_memory", "memory"),
        ]
        for case, mode in cases:
            peak = memory_in_fresh_process(mode, big, num_classes, config["stream_batches"], self.fresh_cache())
            # The two inputs exist before the case starts, so they are not in the peak above start.
            case_text = f"N={big:,} int64, {case}; inputs ({input_bytes / 2**20:.0f} MB) not counted"
            row = Row("memory: peak RSS above start", case_text, peak, "2.5 × input bytes + 200 MB", allowed, 1.0, "≤ 1")
            if peak is None:
                row.status = "not measured (needs Linux /proc/self/clear_refs)"
            self.add(row)

    # -- threshold="auto" on binary scores

    def auto_memory(self, kind: str, shape: tuple, module: str) -> None:
        """Peak RSS above start of a threshold="auto" compute, within 2x the inputs' bytes (in a fresh process)."""
        case = f"{' × '.join(f'{size:,}' for size in shape)} float64 scores + int64 references, threshold='auto', one compute"
        row = Row("memory: peak RSS above start", case, peer_name="2 × the inputs' bytes", limit=1.0, wording="≤ 1")
        if self.module(module) is None:
            row.status = f"module missing ({module}/ is not in this checkout)"
            return self.add(row)
        found = in_fresh_process("auto_memory_case", kind, list(shape), self.fresh_cache())
        row.ours, row.peer = found["peak"], 2 * found["input_bytes"]
        row.case += f"; inputs ({megabytes(found['input_bytes'])}) not counted"
        if row.ours is None:
            row.status = "not measured (needs Linux /proc/self/clear_refs)"
        self.add(row)

    def auto_threshold(self) -> None:
        size = self.config["auto_samples"]
        target = ("threshold='auto' binary", f"N={size:,} float64 scores", "sklearn roc_curve", 0.25, "≤ 0.25")
        metric = self.module("balanced_accuracy")
        if metric is None:
            self.missing_module_rows([target], "balanced_accuracy")
            return self.auto_memory("binary", (size,), "balanced_accuracy")
        self.log(f"threshold='auto': N={size:,}")
        references, scores = auto_scores("binary", (size,))
        ours = self.time(lambda: metric.compute(predictions=scores, references=references, threshold="auto"))
        if self.sklearn_metrics is None:
            self.add(Row(*target[:2], ours.median, target[2], None, *target[3:], status="peer missing (scikit-learn is not installed)"))
            return self.auto_memory("binary", (size,), "balanced_accuracy")
        peer = self.time(lambda: self.sklearn_metrics.roc_curve(references, scores))
        result = metric.compute(predictions=scores, references=references, threshold="auto", adjusted=True)
        false_positive_rate, true_positive_rate, _ = self.sklearn_metrics.roc_curve(references, scores)
        row = Row(*target[:2], ours.median, target[2], peer.median, *target[3:], runs=f"{len(ours.runs)} / {len(peer.runs)}")
        if not math.isclose(result["balanced_accuracy"], float(np.max(true_positive_rate - false_positive_rate)), abs_tol=1e-9):
            row.notes.append("J differs from the ROC optimum")
        self.add(row)
        del references, scores
        self.auto_memory("binary", (size,), "balanced_accuracy")

    # -- multilabel threshold="auto"

    def multilabel(self) -> None:
        rows_, labels = self.config["multilabel_shape"]
        target = ("multilabel threshold='auto'", f"{rows_:,} × {labels} float64 probabilities", "one np.argsort(axis=0)", 0.5, "≤ 0.5")
        metric = self.module("balanced_accuracy_multilabel")
        if metric is None:
            self.missing_module_rows([target], "balanced_accuracy_multilabel")
            return self.auto_memory("multilabel", (rows_, labels), "balanced_accuracy_multilabel")
        self.log(f"multilabel threshold='auto': {rows_:,} x {labels}")
        references, scores = auto_scores("multilabel", (rows_, labels))
        ours = self.time(lambda: metric.compute(predictions=scores, references=references, from_probas=True, threshold="auto"))
        peer = self.time(lambda: np.argsort(scores, axis=0))
        self.add(Row(*target[:2], ours.median, target[2], peer.median, *target[3:], runs=f"{len(ours.runs)} / {len(peer.runs)}"))
        del references, scores
        self.auto_memory("multilabel", (rows_, labels), "balanced_accuracy_multilabel")

    # -- multilabel interval with each sample a cluster (issue 25)

    def multilabel_interval(self) -> None:
        rows_, labels = self.config["multilabel_interval_shape"]
        # Label cardinality as in common multilabel sets (a few positives per sample), and a denser one.
        settings = [("prevalence 20%..0.2%", (0.2, 0.002)), ("prevalence 40%..1%", (0.4, 0.01))]
        targets = [("multilabel interval", f"{rows_:,} × {labels} int64 0/1, {name}, FN 20%, FP 3%, confidence_level=0.95",
                    "the same compute without confidence_level", 3.0, "≤ 3") for name, _ in settings]
        metric = self.module("balanced_accuracy_multilabel")
        if metric is None:
            return self.missing_module_rows(targets, "balanced_accuracy_multilabel")
        for (name, (highest, lowest)), target in zip(settings, targets):
            self.log(f"multilabel interval: {rows_:,} x {labels}, {name}")
            rng = np.random.default_rng(5)
            references = (rng.random((rows_, labels)) < np.geomspace(highest, lowest, labels)).astype(np.int64)
            flipped = rng.random((rows_, labels)) < np.where(references == 1, 0.2, 0.03)
            predictions = np.where(flipped, 1 - references, references)
            entries = float(((references != 0) | (predictions != 0)).sum(axis=1).mean())
            del flipped
            ours = self.time(lambda: metric.compute(predictions=predictions, references=references, confidence_level=0.95))
            peer = self.time(lambda: metric.compute(predictions=predictions, references=references))
            row = Row(*target[:2], ours.median, target[2], peer.median, *target[3:], runs=f"{len(ours.runs)} / {len(peer.runs)}")
            row.notes.append(f"{entries:.1f} entries per row other than (0, 0)")
            self.add(row)

    # -- balanced_topk_accuracy

    def topk(self) -> None:
        num_samples, num_classes = self.config["topk_shape"]
        k_values = list(self.config["topk_k"])
        # Both k at once within the time of torchmetrics' top-1 alone (≤ 1); against its top-5: ≤ 1.5.
        targets = [
            ("top-k", f"{num_samples:,} × {num_classes} float32, k_list={k_values}", f"torchmetrics MulticlassAccuracy(top_k={k}, average='macro')",
             1.0 if k == 1 else 1.5, "≤ 1" if k == 1 else "≤ 1.5")
            for k in k_values
        ]
        metric = self.module("balanced_topk_accuracy")
        if metric is None:
            return self.missing_module_rows(targets, "balanced_topk_accuracy")
        self.log(f"top-k: {num_samples:,} x {num_classes}")
        rng = np.random.default_rng(3)
        references = rng.integers(0, num_classes, num_samples)
        scores = rng.random((num_samples, num_classes), dtype=np.float32)
        scores[np.arange(num_samples), references] += rng.random(num_samples, dtype=np.float32) * 0.5
        ours = self.time(lambda: metric.compute(predictions=scores, references=references, k_list=k_values))
        result = metric.compute(predictions=scores, references=references, k_list=k_values)
        for k, (target, case, peer_name, limit, wording) in zip(k_values, targets):
            if self.torchmetrics_classification is None:
                self.add(Row(target, case, ours.median, peer_name, None, limit, wording, status="peer missing (torchmetrics is not installed)"))
                continue
            preds, target_tensor = self.torch.from_numpy(scores), self.torch.from_numpy(references)

            def torchmetrics_topk(k=k):
                accuracy = self.torchmetrics_classification.MulticlassAccuracy(num_classes=num_classes, top_k=k, average="macro")
                accuracy.update(preds, target_tensor)
                return float(accuracy.compute())

            peer = self.time_torch(torchmetrics_topk)
            row = Row(target, case, ours.median, f"{peer_name} [{peer.note}]", peer.median, limit, wording, runs=f"{len(ours.runs)} / {len(peer.runs)}")
            if not math.isclose(result["balanced_topk_accuracy"][k], torchmetrics_topk(), abs_tol=1e-5):
                row.notes.append("value differs from torchmetrics")
            self.add(row)

    # -- segmentation maps with a void label

    def segmentation(self) -> None:
        batches, shape, num_classes = (self.config[key] for key in ("segmentation_batches", "segmentation_shape", "segmentation_classes"))
        target = (
            "segmentation",
            f"{batches} × add_batch of {shape} uint8, K={num_classes}, ignore_index=255",
            "torchmetrics MulticlassAccuracy(average='macro', ignore_index=255), same batches",
            0.5,
            "≤ 0.5 (≥ 2× faster)",
        )
        metric = self.module("balanced_accuracy")
        if metric is None:
            return self.missing_module_rows([target], "balanced_accuracy")
        self.log(f"segmentation: {batches} x {shape}")
        maps = segmentation_maps(np.random.default_rng(4), batches, shape, num_classes)

        def ours():
            for references, predictions in maps:
                metric.add_batch(predictions=predictions, references=references)
            return metric.compute(ignore_index=255, num_classes=num_classes)

        timing = self.time(ours)
        if self.torchmetrics_classification is None:
            return self.add(Row(*target[:2], timing.median, target[2], None, *target[3:], status="peer missing (torchmetrics is not installed)"))
        tensors = [(self.torch.from_numpy(p), self.torch.from_numpy(r)) for r, p in maps]

        def torchmetrics_segmentation():
            accuracy = self.torchmetrics_classification.MulticlassAccuracy(num_classes=num_classes, average="macro", ignore_index=255)
            for preds, target_tensor in tensors:
                accuracy.update(preds, target_tensor)
            return float(accuracy.compute())

        peer = self.time_torch(torchmetrics_segmentation)
        row = Row(*target[:2], timing.median, f"{target[2]} [{peer.note}]", peer.median, *target[3:], runs=f"{len(timing.runs)} / {len(peer.runs)}")
        if not math.isclose(ours()["balanced_accuracy"], torchmetrics_segmentation(), abs_tol=1e-5):
            row.notes.append("value differs from torchmetrics")
        self.add(row)


    # -- issue 25: multi-class informedness with an interval

    def informedness_interval(self) -> None:
        size, num_classes = self.config["informedness_samples"], self.config["informedness_classes"]
        case = f"N={size:,} int64 labels, K={num_classes}, 70% right; compute(confidence_level=0.95)"
        targets = [
            ("informedness interval", f"{case}, default ci_method ('score')", "allowance 0.5 s", 1.0, "≤ 1 (≤ 0.5 s)"),
            ("informedness interval", f"{case}, ci_method='bootstrap', n_resamples=None (auto)",
             "before issue 25: ci_method='bootstrap', n_resamples=10,000 (the same draws)", 0.2, "≤ 0.2 (≥ 5× faster)"),
        ]
        metric = self.module("informedness")
        if metric is None:
            return self.missing_module_rows(targets, "informedness")
        self.log(f"informedness interval: N={size:,}, K={num_classes}")
        references, predictions = labels_with_errors(np.random.default_rng(25), size, num_classes)
        data = dict(predictions=predictions, references=references, confidence_level=0.95, seed=0)
        delta = self.time(lambda: metric.compute(**data))
        self.add(Row(*targets[0][:2], delta.median, targets[0][2], 0.5, *targets[0][3:], runs=f"{len(delta.runs)}"))
        auto = self.time(lambda: metric.compute(**data, ci_method="bootstrap"))
        before = self.time(lambda: metric.compute(**data, ci_method="bootstrap", n_resamples=10_000))
        self.add(Row(*targets[1][:2], auto.median, targets[1][2], before.median, *targets[1][3:],
                     runs=f"{len(auto.runs)} / {len(before.runs)}"))

    # -- issue 32: several judges ranked on one golden set

    def judge_ranking(self) -> None:
        size, count, num_classes = (self.config[f"judges_{key}"] for key in ("samples", "count", "classes"))
        case = f"N={size:,} int64 labels, K={num_classes}, {count} judges (70% right); compute(judges=..., confidence_level=0.95)"
        plain = "one plain single-judge compute(references=..., predictions=judges['judge_0']) (no interval) on the same data"
        targets = [("judge ranking", f"{case}, balanced_accuracy", plain, 25.0, "≤ 25"),
                   ("judge ranking", f"{case}, informedness", plain, 25.0, "≤ 25"),
                   ("judge ranking", f"{case}, held counts: distinct cells stored", f"J (J - 1) / 2 x K^3 + J x K^2 = "
                    f"{count * (count - 1) // 2 * num_classes**3 + count * num_classes**2:,} cells (independent of N)", 1.0, "≤ 1")]
        rng = np.random.default_rng(32)
        references = rng.integers(0, num_classes, size)
        judges = {f"judge_{index}": np.where(rng.random(size) < 0.7, references, rng.integers(0, num_classes, size))
                  for index in range(count)}
        for target, name in zip(targets, ("balanced_accuracy", "informedness")):
            metric = self.module(name)
            if metric is None:
                self.missing_module_rows([target], name)
                continue
            self.log(f"judge ranking ({name}): N={size:,}, {count} judges, K={num_classes}")
            ranked = self.time(lambda: metric.compute(references=references, judges=judges, confidence_level=0.95))
            single = self.time(lambda: metric.compute(references=references, predictions=judges["judge_0"]))
            self.add(Row(*target[:2], ranked.median, target[2], single.median, *target[3:], runs=f"{len(ranked.runs)} / {len(single.runs)}"))
        metric = self.module("balanced_accuracy")
        if metric is None:
            return self.missing_module_rows(targets[2:], "balanced_accuracy")
        metric.add_batch(references=references, judges=judges)
        held = sum(len(table.result().n) for table in metric.writer.tables.values())
        metric.compute()
        bound = count * (count - 1) // 2 * num_classes**3 + count * num_classes**2
        self.add(Row(*targets[2][:2], held, targets[2][2], bound, *targets[2][3:], unit="cells"))

    # -- many candidate judges on a small golden set (LLM-judge screening)

    def many_judges(self) -> None:
        (count, size), (most, few) = self.config["many_judges"], self.config["most_judges"]
        rng = np.random.default_rng(40)

        def golden(judges: int, items: int):
            references = (rng.random(items) < 0.3).astype(np.int64)
            accuracy = rng.uniform(0.55, 0.9, judges)
            return references, {f"judge_{index}": np.where(rng.random(items) < accuracy[index], references, 1 - references)
                                for index in range(judges)}

        metric = self.module("balanced_accuracy")
        targets = [("many judges", f"{count} binary judges on {size} items (30% positive); compute(judges=..., confidence_level=0.95)",
                    f"a loop of {count} single-judge computes with confidence_level=0.95", 2.0, "≤ 2"),
                   ("many judges", f"{most:,} binary judges on {few} items; compute(judges=..., confidence_level=0.95)",
                    "one minute", 1.0, "≤ 1 (under a minute)")]
        if metric is None:
            return self.missing_module_rows(targets, "balanced_accuracy")
        references, judges = golden(count, size)
        self.log(f"many judges: {count} on {size} items, {most} on {few}")
        ranked = self.time(lambda: metric.compute(references=references, judges=judges, confidence_level=0.95))
        loop = self.time(lambda: [metric.compute(references=references, predictions=labels, confidence_level=0.95) for labels in judges.values()])
        self.add(Row(*targets[0][:2], ranked.median, targets[0][2], loop.median, *targets[0][3:], runs=f"{len(ranked.runs)} / {len(loop.runs)}"))
        references, judges = golden(most, few)
        ranked = timed(lambda: metric.compute(references=references, judges=judges, confidence_level=0.95), 1, 0.0)
        self.add(Row(*targets[1][:2], ranked.median, targets[1][2], 60.0, *targets[1][3:], runs="1"))

    # -- issue 14: segmentation maps streamed one by one, with memory that does not grow

    def segmentation_stream(self) -> None:
        config = self.config
        batches, shape, num_classes, pool, checkpoint = (config[f"stream_segmentation_{key}"] for key in
                                                         ("batches", "shape", "classes", "pool", "checkpoint"))
        case = (f"{batches:,} × add_batch of one {shape[0]}×{shape[1]} uint8 map ({pool} distinct, cycled), K={num_classes}, "
                f"void={SEGMENTATION_VOID}; compute(ignore_index={SEGMENTATION_VOID}, num_classes={num_classes})")
        targets = [
            ("segmentation streaming", case, "NumPy accumulator (np.bincount of pair codes per batch, summed)", 2.0, "≤ 2"),
            ("segmentation streaming", case, f"torchmetrics MulticlassAccuracy(average='macro', ignore_index={SEGMENTATION_VOID}), "
             "update per batch", 0.2, "≤ 0.2 (≥ 5× faster)"),
            ("memory: segmentation streaming", f"{case}; peak RSS above start (fresh process)",
             f"allowance {SEGMENTATION_MEMORY_ALLOWANCE // 2**20} MB", 1.0, "≤ 1"),
            ("memory: segmentation streaming", f"{case}; held after {batches:,} batches ÷ held after {checkpoint:,} "
             "(tracemalloc, fresh process)", f"held after {checkpoint:,} batches", 1.05, "≤ 1.05 (not growing)"),
        ]
        metric = self.module("balanced_accuracy")
        if metric is None:
            return self.missing_module_rows(targets, "balanced_accuracy")
        self.log(f"segmentation streaming: {batches} x {shape}")
        maps = segmentation_maps(np.random.default_rng(14), pool, shape, num_classes)
        ours = lambda: stream_segmentation(metric, maps, batches, num_classes)  # noqa: E731
        value = ours()["balanced_accuracy"]
        timing = self.time(ours)
        # Equal results, or the comparison means nothing: the NumPy accumulator's matrix and
        # scikit-learn on the pool's pixels weighted by how often each map was added.
        numpy_value = numpy_segmentation(maps, batches, num_classes)
        if not math.isclose(value, numpy_value, rel_tol=1e-12, abs_tol=1e-12):
            raise AssertionError(f"segmentation streaming: the NumPy accumulator gives {numpy_value}, ours {value}")
        if self.sklearn_metrics is not None:
            references = np.concatenate([r.ravel() for r, _ in maps])
            predictions = np.concatenate([p.ravel() for _, p in maps])
            uses = [batches // pool + (index < batches % pool) for index in range(pool)]
            weights = np.repeat(np.array(uses, dtype=np.float64), maps[0][0].size)
            keep = references != SEGMENTATION_VOID
            sklearn_value = self.sklearn_metrics.balanced_accuracy_score(references[keep], predictions[keep], sample_weight=weights[keep])
            if not math.isclose(value, sklearn_value, rel_tol=1e-9, abs_tol=1e-12):
                raise AssertionError(f"segmentation streaming: scikit-learn gives {sklearn_value}, ours {value}")
        accumulator = self.time(lambda: numpy_segmentation(maps, batches, num_classes))
        self.add(Row(*targets[0][:2], timing.median, targets[0][2], accumulator.median, *targets[0][3:],
                     runs=f"{len(timing.runs)} / {len(accumulator.runs)}"))
        if self.torchmetrics_classification is None:
            self.add(Row(*targets[1][:2], timing.median, targets[1][2], None, *targets[1][3:], status="peer missing (torchmetrics is not installed)"))
        else:
            tensors = [(self.torch.from_numpy(p), self.torch.from_numpy(r)) for r, p in maps]

            def torchmetrics_stream():
                accuracy = self.torchmetrics_classification.MulticlassAccuracy(num_classes=num_classes, average="macro",
                                                                               ignore_index=SEGMENTATION_VOID)
                for index in range(batches):
                    accuracy.update(*tensors[index % pool])
                return float(accuracy.compute())

            peer = self.time_torch(torchmetrics_stream)
            row = Row(*targets[1][:2], timing.median, f"{targets[1][2]} [{peer.note}]", peer.median, *targets[1][3:],
                      runs=f"{len(timing.runs)} / {len(peer.runs)}")
            if not math.isclose(value, torchmetrics_stream(), abs_tol=1e-5):
                row.notes.append("value differs from torchmetrics")
            self.add(row)
        arguments = (batches, tuple(shape), num_classes, pool, checkpoint)
        peak = in_fresh_process("segmentation_memory_case", *arguments, self.fresh_cache(), False)["peak"]
        row = Row(*targets[2][:2], peak, targets[2][2], SEGMENTATION_MEMORY_ALLOWANCE, *targets[2][3:])
        if peak is None:
            row.status = "not measured (needs Linux /proc/self/clear_refs)"
        self.add(row)
        held = in_fresh_process("segmentation_memory_case", *arguments, self.fresh_cache(), True)
        row = Row(*targets[3][:2], held["all"], targets[3][2], held["checkpoint"], *targets[3][3:])
        row.notes.append(f"tracemalloc peak {megabytes(held['peak'])}")
        self.add(row)

    # -- issue 25: the same stream with a cluster-robust interval (each map one image, one cluster)

    def segmentation_stream_interval(self) -> None:
        config = self.config
        batches, shape, num_classes, pool = (config[f"stream_segmentation_{key}"] for key in ("batches", "shape", "classes", "pool"))
        case = (f"{batches:,} × add_batch of one 1×{shape[0]}×{shape[1]} uint8 image ({pool} distinct, cycled), K={num_classes}, "
                f"void={SEGMENTATION_VOID}; evaluate.load(confidence_level=0.95): images counted as clusters")
        targets = [
            ("segmentation streaming with an interval", case, "the same stream without an interval", 2.0, "≤ 2"),
            ("memory: segmentation streaming with an interval", f"{case}; peak RSS above start (fresh process)",
             f"allowance {SEGMENTATION_MEMORY_ALLOWANCE // 2**20} MB", 1.0, "≤ 1"),
        ]
        with_interval = self.module("balanced_accuracy", confidence_level=0.95)
        without = self.module("balanced_accuracy")
        if with_interval is None:
            return self.missing_module_rows(targets, "balanced_accuracy")
        self.log(f"segmentation streaming with an interval: {batches} x {shape}")
        maps = segmentation_maps(np.random.default_rng(14), pool, shape, num_classes)
        ours = lambda: stream_segmentation(with_interval, maps, batches, num_classes, images=True)  # noqa: E731
        plain = lambda: stream_segmentation(without, maps, batches, num_classes, images=True)  # noqa: E731
        result = ours()
        if result["num_clusters"] != batches or result["balanced_accuracy"] != plain()["balanced_accuracy"]:
            raise AssertionError(f"segmentation streaming with an interval: {result} (expected {batches} clusters, the same value)")
        timing, reference = self.time(ours), self.time(plain)
        self.add(Row(*targets[0][:2], timing.median, targets[0][2], reference.median, *targets[0][3:],
                     runs=f"{len(timing.runs)} / {len(reference.runs)}"))
        arguments = (batches, tuple(shape), num_classes, pool, 0)
        peak = in_fresh_process("segmentation_memory_case", *arguments, self.fresh_cache(), False, 0.95)["peak"]
        row = Row(*targets[1][:2], peak, targets[1][2], SEGMENTATION_MEMORY_ALLOWANCE, *targets[1][3:])
        if peak is None:
            row.status = "not measured (needs Linux /proc/self/clear_refs)"
        self.add(row)

    # -- issue 14: top-k scores streamed; what is kept per sample

    def topk_stream(self) -> None:
        num_samples, num_classes = self.config["topk_stream_shape"]
        batches = self.config["topk_stream_batches"]
        target = ("memory: top-k streaming",
                  f"{num_samples:,} × {num_classes} float32 in {batches} add_batch calls; held (tracemalloc) + cache files "
                  "+ the file a process hands over in distributed mode, per sample (fresh process)",
                  f"{TOPK_BYTES_PER_SAMPLE:g} bytes per sample", 1.0, "≤ 1")
        if self.module("balanced_topk_accuracy") is None:
            return self.missing_module_rows([target], "balanced_topk_accuracy")
        self.log(f"top-k streaming: {num_samples:,} x {num_classes} in {batches} batches")
        found = in_fresh_process("topk_stream_case", num_samples, num_classes, batches, self.fresh_cache())
        per_sample = (found["held"] + found["files"] + found["handover"]) / found["samples"]
        row = Row(*target[:2], per_sample, target[2], TOPK_BYTES_PER_SAMPLE, *target[3:], unit="B/sample")
        row.notes.append(f"held {found['held'] / found['samples']:.1f}, cache files {found['files'] / found['samples']:.1f}, "
                         f"hand-over file {found['handover'] / found['samples']:.1f} B/sample")
        for k, value in found["ours"].items():
            if not math.isclose(value, found["brute"][k], rel_tol=1e-9, abs_tol=1e-12):
                row.notes.append(f"top-{k} value differs from the brute-force count ({value} against {found['brute'][k]})")
        self.add(row)


# ------------------------------------------------------------------------------- report


def machine_description() -> List[str]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            names = [line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")]
        if names:
            cpu = names[0]
    except OSError:
        pass
    memory = None
    try:
        with open("/proc/meminfo") as meminfo:
            memory = int(next(line for line in meminfo if line.startswith("MemTotal")).split()[1]) * 1024
    except (OSError, StopIteration):
        pass
    versions = []
    for package in ("numpy", "pyarrow", "datasets", "evaluate", "sklearn", "torch", "torchmetrics"):
        module = optional_import(package)
        versions.append(f"{package} {getattr(module, '__version__', '?') if module else 'not installed'}")
    torch = optional_import("torch")
    return [
        f"- CPU: {cpu}, {os.cpu_count()} logical cores" + (f", {memory / 2**30:.0f} GB RAM" if memory else ""),
        f"- {platform.system()} {platform.release()}, Python {platform.python_version()}",
        "- " + ", ".join(versions),
        f"- torch threads: {torch.get_num_threads() if torch else '-'} by default; each torchmetrics case is timed with "
        "the default and with 1 thread and the faster is reported; our top-k counting, unweighted threshold search and "
        f"finite-value check of large score arrays use up to {available_cores()} threads, everything else of ours one",
    ]


def write_plot(sweep: Dict[str, Dict[int, float]], path: Path, num_classes: int) -> bool:
    matplotlib = optional_import("matplotlib")
    if matplotlib is None or not sweep:
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7.5, 5))
    for name, by_size in sweep.items():
        sizes = sorted(by_size)
        axes.plot(sizes, [by_size[size] for size in sizes], marker="o", label=name)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("N (labels)")
    axes.set_ylabel("seconds (median)")
    axes.set_title(f"balanced accuracy, K={num_classes}: time against N")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return True


def sweep_table(sweep: Dict[str, Dict[int, float]]) -> str:
    sizes = sorted({size for by_size in sweep.values() for size in by_size})
    lines = ["| method | " + " | ".join(f"N={size:,}" for size in sizes) + " |", "|---|" + "---|" * len(sizes)]
    for name, by_size in sweep.items():
        lines.append(f"| {name} | " + " | ".join(seconds(by_size.get(size)) for size in sizes) + " |")
    return "\n".join(lines)


# The cases in the order a full run measures them (Benchmark methods; --case picks some).
CASES = ("balanced_accuracy", "auto_threshold", "multilabel", "multilabel_interval", "topk", "segmentation", "segmentation_stream",
         "segmentation_stream_interval", "topk_stream", "informedness_interval", "judge_ranking", "many_judges")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: checks that everything runs (seconds), not the speed")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="folder for results.md and results.png")
    parser.add_argument("--repeats", type=int, default=None, help="timed runs per case after the warm-up (default 5; 1 with --quick)")
    parser.add_argument("--slow-seconds", type=float, default=None,
                        help="a run slower than this is not warmed up and is repeated at most twice (default 5; 0 with --quick: "
                             "one run per case, no warm-up, as --quick measures no speed)")
    parser.add_argument("--case", action="append", choices=CASES, metavar="CASE",
                        help=f"run only this case (repeatable; default all): {', '.join(CASES)}")
    args = parser.parse_args(argv)
    config = dict(QUICK if args.quick else FULL)
    repeats = args.repeats or config["repeats"]
    slow_seconds = args.slow_seconds if args.slow_seconds is not None else config["slow_seconds"]
    args.output.mkdir(parents=True, exist_ok=True)
    warnings.filterwarnings("ignore", message=".*y_pred contains classes not in y_true.*")
    evaluate.logging.set_verbosity_error()
    datasets.logging.set_verbosity_error()
    datasets.disable_progress_bars()

    started = datetime.now(timezone.utc)
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    with tempfile.TemporaryDirectory() as cache_dir:
        bench = Benchmark(config, repeats, slow_seconds, cache_dir, log=lambda text: print(text, flush=True))
        if args.quick:
            # Each timing starts with gc.collect(), which walks every object the imports made
            # (torch, torchmetrics: ~0.3 s a time); frozen, they are skipped. Only --quick:
            # the full run's timings stay as they were measured.
            gc.freeze()
        for case in args.case or CASES:
            with contextlib.redirect_stderr(io.StringIO()):
                getattr(bench, case)()
    load_after = os.getloadavg() if hasattr(os, "getloadavg") else None
    elapsed = (datetime.now(timezone.utc) - started).total_seconds()

    table = markdown_table(bench.rows)
    plot_path = args.output / "results.png"
    plotted = write_plot(bench.sweep, plot_path, config["num_classes"])
    command = ("python benchmarks/run.py" + (" --quick" if args.quick else "") + (f" --repeats {args.repeats}" if args.repeats else "")
               + "".join(f" --case {case}" for case in args.case or ()))
    met = sum(row.status == "met" for row in bench.rows)
    measured = sum(row.status in ("met", "NOT met") for row in bench.rows)
    report = [
        "# Benchmark results" + (" (quick run: small sizes, not a speed measurement)" if args.quick else ""),
        "",
        f"Produced by `{command}` on {started:%Y-%m-%d %H:%M} UTC in {elapsed:.0f} s.",
        "",
        "Machine:",
        "",
        *machine_description(),
        "- load average (1 min) before / after the run: "
        + (f"{load_before[0]:.1f} / {load_after[0]:.1f}" if load_before else "not available"),
        "",
        f"{met} of {measured} measured targets met in this run. Times are medians of `runs` "
        f"(ours / peer) wall-clock runs after a warm-up run (runs slower than {slow_seconds:g} s: no "
        "warm-up, at most 2 runs); ratios are ours ÷ peer, measured in this one run, so lower is "
        "better for us. A 'memory: peak RSS above start' row compares the peak resident set size above the start of "
        "the case with the issue's allowance (2.5 × the bytes of the two input arrays + 200 MB); the threshold='auto' "
        "memory rows compare it with 2 × the bytes of the scores and references given to compute (measured in a fresh "
        "process, the inputs made before the start).",
        "",
        "Streaming (issue 14): the 'segmentation streaming' rows add one 512×512 map per add_batch call, cycling "
        "through a pool of distinct maps that exists before the case starts (so inputs are not counted), and "
        "compute with ignore_index and num_classes. The NumPy accumulator is one np.bincount of (reference, "
        "prediction) codes per batch, summed, then the mean recall of the classes with support; torchmetrics "
        "updates once per batch. Our value must equal the accumulator's and scikit-learn's "
        "balanced_accuracy_score on the pool's pixels weighted by how often each map was added (else the run "
        "stops). Its memory rows are measured in fresh processes: the peak RSS above start over all the batches "
        "and the compute, against a 64 MB allowance; and what tracemalloc finds held after all the batches "
        "against after the first ones (a ratio near 1: the stored counts do not grow with the number of "
        "batches). The 'top-k streaming' row adds each batch of scores and drops it; per streamed sample it "
        "counts the bytes held afterwards (tracemalloc), the files in the module's cache folder (none in one "
        "process) and the file the process would hand to process 0 in distributed mode (its store, written as "
        "compute writes it), and checks the result against a brute-force count of hits.",
        "",
        table,
        "",
        "Every value is checked against the peer's (balanced accuracy against scikit-learn, "
        "torchmetrics and the stock path; top-k and segmentation against torchmetrics; the "
        "auto threshold's J against the ROC optimum); a difference is noted in the status.",
        "",
        "The 'on-disk cache' and 'keep_in_memory' rows load the module with keep_in_memory=False "
        "(evaluate's default) and True. add_batch stores counts, and a single process keeps them in "
        "memory either way (a cache file is written only in distributed mode, by each process at "
        "compute): the two rows run the same code, so their difference is this machine's noise.",
        "",
        "## Time against N (balanced accuracy, one compute unless stated)",
        "",
        sweep_table(bench.sweep) if bench.sweep else "balanced_accuracy is not in this checkout.",
        "",
        "![time against N](results.png)" if plotted else "(matplotlib is not installed: no plot)",
        "",
    ]
    text = "\n".join(report)
    (args.output / "results.md").write_text(text, encoding="utf-8")
    print()
    print(table)
    print()
    print(f"wrote {args.output / 'results.md'}" + (f" and {plot_path}" if plotted else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
