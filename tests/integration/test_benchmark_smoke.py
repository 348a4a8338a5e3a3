"""benchmarks/run.py on small sizes: it runs every target and writes the table and the plot.

This checks that the script works and reports honestly (every target has a row, missing
peers and modules are reported, not dropped); it checks no speed.
"""

import importlib.util
import os
import subprocess
import sys

from conftest import MODULE_NAMES, REPO_ROOT

TARGETS = [
    ("BA one compute", 4),
    ("BA streaming", 2),
    ("memory: peak RSS above start", 5),  # balanced accuracy: 3; threshold="auto": binary and multilabel
    ("threshold='auto' binary", 1),
    ("multilabel threshold='auto'", 1),
    ("multilabel interval", 2),
    ("top-k", 2),
    ("segmentation", 1),
    ("segmentation streaming", 2),
    ("memory: segmentation streaming", 2),
    ("memory: top-k streaming", 1),
    ("informedness interval", 2),
]
MODULE_OF_TARGET = {
    "multilabel threshold='auto'": "balanced_accuracy_multilabel",
    "multilabel interval": "balanced_accuracy_multilabel",
    "top-k": "balanced_topk_accuracy",
    "memory: top-k streaming": "balanced_topk_accuracy",
    "informedness interval": "informedness",
}


def load_benchmark():
    spec = importlib.util.spec_from_file_location("benchmark_run", REPO_ROOT / "benchmarks" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def table_rows(text):
    """The cells of the results table's rows (the first table in the file)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| target |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_quick_run_writes_every_target_table_and_plot(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1"}
    result = subprocess.run(
        [sys.executable, "benchmarks/run.py", "--quick", "--output", str(tmp_path)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    text = (tmp_path / "results.md").read_text()
    assert "Machine:" in text and "CPU:" in text and "quick run" in text
    rows = table_rows(text)
    table = text[text.index("| target |") :].split("\n\n")[0]
    assert table in result.stdout  # the same table is printed
    for target, count in TARGETS:
        assert sum(row[0] == target for row in rows) == count, target
    for row in rows:
        target, status, ratio = row[0], row[7], row[5]
        module = MODULE_OF_TARGET.get(target, "balanced_accuracy")
        if module in MODULE_NAMES:
            assert status.split(" (")[0] in ("met", "NOT met"), row  # measured; peers are installed here
            assert float(ratio) >= 0
        else:
            assert status.startswith("module missing"), row
    assert (tmp_path / "results.png").stat().st_size > 1000
    assert "## Time against N" in text and "N=10,000" in text


def test_missing_peers_and_modules_are_reported_not_dropped(tmp_path, monkeypatch):
    run = load_benchmark()
    real_import = run.optional_import
    monkeypatch.setattr(run, "optional_import", lambda name: None if name.startswith(("sklearn", "torchmetrics")) else real_import(name))
    real_load = run.load_module
    monkeypatch.setattr(run, "load_module", lambda name, *a, **k: None if name == "balanced_accuracy_multilabel" else real_load(name, *a, **k))
    config = dict(run.QUICK, auto_samples=500, topk_shape=(200, 8), multilabel_shape=(100, 3))
    # One run per case, no warm-up, as --quick times them: the rows, not the speed, are checked.
    bench = run.Benchmark(config, repeats=1, slow_seconds=run.QUICK["slow_seconds"], cache_dir=str(tmp_path), log=lambda text: None)
    bench.auto_threshold()
    bench.multilabel()
    bench.topk()
    bench.segmentation_stream()
    statuses = {(row.target, row.peer_name): row.status for row in bench.rows}
    assert statuses[("threshold='auto' binary", "sklearn roc_curve")] == "peer missing (scikit-learn is not installed)"
    assert statuses[("multilabel threshold='auto'", "one np.argsort(axis=0)")].startswith("module missing (balanced_accuracy_multilabel/")
    topk = [row for row in bench.rows if row.target == "top-k"]
    assert len(topk) == 2
    for row in topk:
        if "balanced_topk_accuracy" in MODULE_NAMES:
            assert row.status == "peer missing (torchmetrics is not installed)" and row.ours > 0
        else:
            assert row.status.startswith("module missing (balanced_topk_accuracy/")
    streaming = [row for row in bench.rows if row.target == "segmentation streaming"]
    assert [row.status for row in streaming] == ["met" if streaming[0].ratio <= 2 else "NOT met", "peer missing (torchmetrics is not installed)"]
    assert streaming[0].peer > 0 and streaming[1].ours > 0
    table = run.markdown_table(bench.rows)
    assert table.count("\n") == len(bench.rows) + 1
