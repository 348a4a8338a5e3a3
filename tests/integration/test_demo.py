"""The README's demo runs offline and shows what it claims: constant and guessing baselines
get accuracy credit under imbalance but not balanced-accuracy or informedness credit."""

import subprocess
import sys

from conftest import REPO_ROOT


def test_demo_prints_the_table():
    result = subprocess.run(
        [sys.executable, "examples/demo.py"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    rows = {}
    for line in result.stdout.splitlines()[2:]:
        case, data, accuracy, metric, value, interval = (cell.strip() for cell in line.strip("|").split("|"))
        rows[case, metric] = (float(accuracy), float(value))
        if interval:
            low, high = (float(v) for v in interval.strip("[]").split(","))
            lowest = -1.0 if metric.startswith("informedness") else 0.0
            assert lowest <= low <= float(value) <= high <= 1.0, line
    # A constant predictor: 1/K balanced accuracy and 0 informedness, whatever its accuracy.
    accuracy, value = rows["breast cancer, always 'benign'", "balanced_accuracy"]
    assert accuracy > 0.9 and value == 0.5
    assert rows["digits, always the majority class", "balanced_accuracy"][1] == 0.1
    assert rows["breast cancer, always 'benign'", "informedness"][1] == 0.0
    assert rows["digits multilabel, always 'no'", "balanced_accuracy_multilabel (macro)"][1] == 0.5
    assert rows["digits, classes ranked by training frequency, top-3", "balanced_top3_accuracy"][1] == 0.3
    for metric in ("balanced_accuracy", "informedness"):
        assert any(metric == m for _, m in rows)
