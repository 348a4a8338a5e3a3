"""What a user pays in ``evaluate.load("<namespace>/<module>")`` from the Hub: requests and time.

The script starts the loopback fake Hub of the tests (``tests/support/fake_hub.py``),
uploads each module folder as it is on disk (the files ``shared/release.py`` would
release, through ``HfApi.upload_folder`` as the release does, without its validation),
then measures, per module:

* **cold load**: ``evaluate.load("<ns>/<module>")`` with empty caches (a fresh temporary
  ``HF_HOME`` and, inside it, every cache evaluate 0.4.6, datasets and huggingface_hub
  read: ``HF_EVALUATE_CACHE`` for downloads, ``HF_MODULES_CACHE`` for the importable copy
  of the script, ``HF_METRICS_CACHE``, ``HF_DATASETS_CACHE``, ``HF_HUB_CACHE``), then one
  ``compute`` on a tiny input whose value is checked, to prove the load works;
* **warm load**: the same ``evaluate.load`` again in a new process with the caches the
  cold load filled, still online to the fake Hub (so evaluate re-validates what it cached).

Every load runs in a fresh subprocess, because evaluate keeps imported modules in-process.
Each child times only the ``evaluate.load`` call (not Python start-up, not ``import
evaluate``, not the ``compute``) and reports the wall-clock window of that call; the fake
Hub logs the arrival time of every request, so the requests counted are exactly those
inside the window. Loads are timed with an injected delay before every reply of the fake
Hub (``--latency-ms``, default 50 ms, standing in for the round trip to the real Hub) and
with none; each (module, delay) pair is repeated ``--repeats`` times, each repetition with
new empty caches, and the table reports the median times. Request counts do not depend on
the delay; if they ever differ between repetitions the table shows the range.

Children load ``tests/support/loopback_only/sitecustomize.py``, which refuses any
connection off 127.0.0.1; evaluate's download counter (a HEAD to S3, off the Hub) is
switched off with ``HF_UPDATE_DOWNLOAD_COUNTS=0``, so it is neither refused nor counted.

Usage::

    python benchmarks/hub_load.py            # all modules, 3 repetitions; writes benchmarks/results/hub_load.md
    python benchmarks/hub_load.py --quick --output /tmp/hub_load.md   # one module, one repetition
"""

import argparse
import json
import math
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SUPPORT_DIR = REPO_ROOT / "tests" / "support"
sys.path.insert(0, str(SUPPORT_DIR))
sys.path.insert(0, str(REPO_ROOT))
from fake_hub import FakeHub, client_env  # noqa: E402
from shared.tooling.release import files_to_upload  # noqa: E402  (what a release uploads from a folder)
from shared.tooling.vendor import vendor  # noqa: E402
from shared.tooling.modules import MODULE_NAMES  # noqa: E402
from shared.tooling.modules import MODULES as REGISTRY  # noqa: E402

DEFAULT_OUTPUT = REPO_ROOT / "benchmarks" / "results" / "hub_load.md"
NAMESPACE = "hub-load-bench"
TOKEN = "hf_benchmark_token_for_the_loopback_hub"
MODULES = MODULE_NAMES  # the registry, shared/tooling/modules.py

# What the module layout with one generated helper file per script aims for.
TARGET_COLD_REQUESTS = 6
TARGET_WARM_REQUESTS = 3
TARGET_COLD_SECONDS = 0.6  # at the default 50 ms per request
TARGET_TEXT = f"≤ {TARGET_COLD_REQUESTS} req cold, ≤ {TARGET_WARM_REQUESTS} req warm, ≤ {TARGET_COLD_SECONDS} s cold @50 ms"

# One tiny input per module and the values its card documents (the registry's): the cold load must compute them.
EXAMPLES = {entry.name: entry.example for entry in REGISTRY}

# Run in each child: one timed evaluate.load, then (cold only) one checked compute.
CHILD = r"""
import json, sys, time
# evaluate's Evaluator imports transformers when it is installed: seconds of start-up per
# child, and not part of the load (it happens at `import evaluate`, which is not timed).
sys.modules.setdefault("transformers", None)
import evaluate

repo_id, kwargs = sys.argv[1], json.loads(sys.argv[2])
window_start = time.time()
started = time.perf_counter()
metric = evaluate.load(repo_id)
seconds = time.perf_counter() - started
window_end = time.time()
result = metric.compute(**kwargs) if kwargs is not None else None
script = sys.modules[type(metric).__module__].__file__
print(json.dumps({"seconds": seconds, "window": [window_start, window_end], "result": result, "script": script}))
"""


# ---------------------------------------------------------------------------- the fake Hub


def upload_modules(hub: FakeHub, names) -> dict:
    """Upload each module folder to its Space on ``hub``; returns {name: number of files}."""
    # huggingface_hub reads HF_HUB_OFFLINE once, at import: the test setup and `make test`
    # set it to 1, which would make the upload refuse to run.
    os.environ["HF_HUB_OFFLINE"] = "0"
    from huggingface_hub import HfApi

    api = HfApi(endpoint=hub.endpoint, token=TOKEN)
    uploaded = {}
    for name in names:
        folder = REPO_ROOT / name
        files = files_to_upload(folder)
        repo_id = f"{NAMESPACE}/{name}"
        api.create_repo(repo_id, repo_type="space", space_sdk="gradio", exist_ok=True)
        api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="space", allow_patterns=files, commit_message=f"Release {name}")
        stored = sorted(hub.spaces[repo_id]["files"])
        if stored != files:
            raise RuntimeError(f"{name}: the fake Hub holds {stored}, expected {files}")
        uploaded[name] = len(files)
    return uploaded


# ---------------------------------------------------------------------------- one load, in a child


def close(found, value) -> bool:
    """``found`` is ``value`` to 1e-12 (a number, or a list of them)."""
    if isinstance(value, list):
        return isinstance(found, list) and len(found) == len(value) and all(close(a, b) for a, b in zip(found, value))
    return math.isclose(found, value, abs_tol=1e-12)


def run_load(hub: FakeHub, name: str, cache_root: Path, compute: bool) -> dict:
    """One ``evaluate.load`` in a fresh process; its time and the requests the Hub got meanwhile."""
    kwargs, expected = EXAMPLES[name]
    first = len(hub.timed_requests)
    # cwd is the (empty but for caches) cache_root, so "<ns>/<module>" cannot resolve to a local folder.
    child = subprocess.run(
        [sys.executable, "-c", CHILD, f"{NAMESPACE}/{name}", json.dumps(kwargs if compute else None)],
        cwd=cache_root,
        env=client_env(cache_root, hub),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if child.returncode != 0:
        raise RuntimeError(f"evaluate.load of {name} failed:\n{child.stderr[-3000:]}")
    report = json.loads(child.stdout.strip().splitlines()[-1])
    start, end = report["window"]
    timed = hub.timed_requests[first:]
    during = [(method, path) for arrival, method, path in timed if start <= arrival <= end]
    outside = [(method, path) for arrival, method, path in timed if not start <= arrival <= end]
    if outside:  # compute, or start-up, asked the Hub for something: worth knowing, not hiding
        raise RuntimeError(f"{name}: requests outside evaluate.load: {outside}")
    refused = cache_root / "refused-connections.log"
    if refused.exists() and refused.read_text().strip():
        raise RuntimeError(f"{name}: the child tried to leave the loopback interface:\n{refused.read_text()}")
    # The script must have been imported from this run's module cache, i.e. it came from the Hub.
    if not Path(report["script"]).is_relative_to(cache_root / "hf-home" / "modules"):
        raise RuntimeError(f"{name}: the metric was imported from {report['script']}, not from the fresh module cache")
    if compute:
        for key, value in expected.items():
            if not close(report["result"][key], value):
                raise RuntimeError(f"{name}: compute gave {key}={report['result'][key]}, expected {value}")
    return {"seconds": report["seconds"], "requests": during}


def measure(hub: FakeHub, name: str, latencies, repeats: int) -> dict:
    """{latency: {"cold": [runs], "warm": [runs]}}; a cold run and its warm run share fresh caches."""
    runs = {latency: {"cold": [], "warm": []} for latency in latencies}
    for _ in range(repeats):
        for latency in latencies:  # interleaved, so drifting machine load hits both delays alike
            hub.latency = latency
            with tempfile.TemporaryDirectory(prefix=f"hub-load-{name}-") as tmp:
                runs[latency]["cold"].append(run_load(hub, name, Path(tmp), compute=True))
                runs[latency]["warm"].append(run_load(hub, name, Path(tmp), compute=False))
    hub.latency = 0.0
    return runs


# ---------------------------------------------------------------------------- the report


def count_text(runs) -> tuple:
    """('23 (GET 11, HEAD 12)', 23) from the runs' request logs; a range if runs differ."""
    totals = sorted({len(run["requests"]) for run in runs})
    methods = Counter(method for method, _ in runs[0]["requests"])
    detail = ", ".join(f"{method} {count}" for method, count in sorted(methods.items()))
    total = str(totals[0]) if len(totals) == 1 else f"{totals[0]}–{totals[-1]}"
    return f"{total} ({detail})", totals[-1]


def seconds_text(seconds: float) -> str:
    return f"{seconds:.3f} s"


def summarise(name: str, files: int, runs: dict, latency: float) -> dict:
    at_latency, at_zero = runs[latency], runs[0.0]
    cold_requests, cold_max = count_text(at_latency["cold"] + at_zero["cold"])
    warm_requests, warm_max = count_text(at_latency["warm"] + at_zero["warm"])
    cold_time = statistics.median(run["seconds"] for run in at_latency["cold"])
    warm_time = statistics.median(run["seconds"] for run in at_latency["warm"])
    misses = []
    if cold_max > TARGET_COLD_REQUESTS:
        misses.append(f"cold {cold_max} req")
    if warm_max > TARGET_WARM_REQUESTS:
        misses.append(f"warm {warm_max} req")
    if cold_time > TARGET_COLD_SECONDS:
        misses.append(f"cold {cold_time:.2f} s")
    return {
        "module": name,
        "files": files,
        "cold_requests": cold_requests,
        "warm_requests": warm_requests,
        "cold_time": cold_time,
        "warm_time": warm_time,
        "cold_time_zero": statistics.median(run["seconds"] for run in at_zero["cold"]),
        "warm_time_zero": statistics.median(run["seconds"] for run in at_zero["warm"]),
        "status": "met" if not misses else "not met (" + "; ".join(misses) + ")",
    }


def markdown_table(rows, latency_ms: float) -> str:
    ms = f"{latency_ms:g} ms"
    lines = [
        f"| module | files uploaded | cold requests | warm requests | cold load @{ms} | warm load @{ms} | cold load @0 ms | warm load @0 ms | target | status |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['module']} | {row['files']} | {row['cold_requests']} | {row['warm_requests']} | {seconds_text(row['cold_time'])} "
            f"| {seconds_text(row['warm_time'])} | {seconds_text(row['cold_time_zero'])} | {seconds_text(row['warm_time_zero'])} "
            f"| {TARGET_TEXT} | {row['status']} |"
        )
    return "\n".join(lines)


def request_listing(name: str, runs: dict, latency: float) -> str:
    """The requests of the first cold and warm load of one module, in order, as paths in its Space."""
    prefix = f"/spaces/{NAMESPACE}/{name}/"
    blocks = []
    for kind in ("cold", "warm"):
        requests = runs[latency][kind][0]["requests"]
        listed = ", ".join(f"`{method} {path.removeprefix(prefix)}`" for method, path in requests)
        blocks.append(f"- {kind} ({len(requests)}): {listed}")
    return "\n".join(blocks)


def git_description() -> str:
    def git(*args):
        return subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True).stdout.strip()

    commit = git("rev-parse", "--short=12", "HEAD") or "unknown"
    # Uncommitted changes in what is uploaded make the commit alone an incomplete description.
    dirty = git("status", "--porcelain", "--", *MODULES, "shared")
    return commit + (" (with uncommitted changes in the module folders or shared/)" if dirty else "")


def versions() -> str:
    import importlib.metadata

    names = ("evaluate", "huggingface_hub", "datasets", "requests")
    found = []
    for name in names:
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} missing")
    return ", ".join(found)


def write_report(rows, details, args, command, started, elapsed) -> tuple:
    """The whole Markdown report, and its table alone."""
    table = markdown_table(rows, args.latency_ms)
    met = sum(row["status"] == "met" for row in rows)
    text = "\n".join(
        [
            "# evaluate.load from the Hub: requests and time",
            "",
            f"Produced by `{command}` on {started:%Y-%m-%d %H:%M} UTC in {elapsed:.0f} s, at commit {git_description()}"
            + (" (quick run: one module, one repetition)." if args.quick else "."),
            "",
            f"Machine: {os.cpu_count()} logical cores, {platform.system()} {platform.release()}, Python {platform.python_version()}; {versions()}.",
            "",
            f"{met} of {len(rows)} modules meet the target ({TARGET_TEXT}).",
            "",
            table,
            "",
            f"Loads from the loopback fake Hub (`tests/support/fake_hub.py`), each in a fresh process. Times are the median "
            f"of {args.repeats} run(s) of the `evaluate.load` call alone (not Python start-up, `import evaluate` or `compute`), "
            f"with {args.latency_ms:g} ms added before every reply of the Hub, and with none. 'cold': empty caches (a new "
            f"HF_HOME, HF_EVALUATE_CACHE, HF_MODULES_CACHE, HF_METRICS_CACHE, HF_DATASETS_CACHE, HF_HUB_CACHE), followed by one "
            f"checked `compute`; 'warm': a new process with the caches the cold load filled, still online. Requests are those the "
            f"Hub received during the load (by method); the download counter evaluate would HEAD on S3 is switched off.",
            "",
            "Requests of the first run, in order (paths inside the Space):",
            "",
            *details,
            "",
        ]
    )
    return text, table


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="one module, one repetition: checks the script, in well under a minute")
    parser.add_argument("--repeats", type=int, default=None, help="runs per module and delay (default 3; 1 with --quick)")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="delay added before every reply of the fake Hub (default 50)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help=f"Markdown file to write (default {DEFAULT_OUTPUT.relative_to(REPO_ROOT)})")
    parser.add_argument("modules", nargs="*", help="modules to measure (default: all; with --quick: the first)")
    args = parser.parse_args(argv)

    names = args.modules or [name for name in MODULES if (REPO_ROOT / name / f"{name}.py").exists()]
    unknown = [name for name in names if name not in EXAMPLES]
    if unknown:
        parser.error(f"unknown module(s) {', '.join(unknown)}; the modules are {', '.join(MODULES)}")
    if args.quick:
        names = names[:1]
    args.repeats = args.repeats or (1 if args.quick else 3)
    latency = args.latency_ms / 1000
    latencies = (latency, 0.0) if latency else (0.0,)
    command = "python " + " ".join(shlex.quote(part) for part in [os.path.relpath(__file__, REPO_ROOT), *(argv if argv is not None else sys.argv[1:])])

    vendor(check=False)  # the folders as a release uploads them: the generated helpers included
    started, clock = datetime.now(timezone.utc), time.perf_counter()
    rows, details = [], []
    with FakeHub(token=TOKEN) as hub:
        files = upload_modules(hub, names)
        if not args.quick:
            # One unrecorded load first, so the first measured one does not also pay for
            # reading evaluate, numpy and friends from disk into the page cache.
            with tempfile.TemporaryDirectory(prefix="hub-load-warmup-") as tmp:
                run_load(hub, names[0], Path(tmp), compute=True)
        for name in names:
            print(f"measuring {name} ...", file=sys.stderr, flush=True)
            runs = measure(hub, name, latencies, args.repeats)
            rows.append(summarise(name, files[name], runs, latency))
            details.append(f"**{name}**\n\n" + request_listing(name, runs, latency) + "\n")
        if hub.unhandled:
            raise RuntimeError(f"the fake Hub got requests it does not answer: {hub.unhandled}")
    text, table = write_report(rows, details, args, command, started, time.perf_counter() - clock)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
