"""benchmarks/hub_load.py --quick: it loads one module from the loopback fake Hub, cold and
warm, and writes the table of requests and times.

This checks that the script works and counts what it should; it asserts no target (the
layout with many vendored helper files misses them, which is what the benchmark shows).
"""

import os
import re
import subprocess
import sys

from conftest import REPO_ROOT

COLUMNS = [
    "module", "files uploaded", "cold requests", "warm requests", "cold load @50 ms",
    "warm load @50 ms", "cold load @0 ms", "warm load @0 ms", "target", "status",
]


def table_rows(text):
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| module |"))
    header = [cell.strip() for cell in lines[start].strip("|").split("|")]
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return header, rows


def test_quick_run_writes_the_table_with_request_counts(tmp_path):
    output = tmp_path / "hub_load.md"
    # The test session runs with HF_HUB_OFFLINE=1; the script must cope (it goes online to loopback only).
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1"}
    result = subprocess.run(
        [sys.executable, "benchmarks/hub_load.py", "--quick", "--output", str(output)],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    text = output.read_text(encoding="utf-8")
    header, rows = table_rows(text)
    assert header == COLUMNS
    assert len(rows) == 1  # --quick: one module
    table = text[text.index("| module |") :].split("\n\n")[0]
    assert table in result.stdout  # the same table is printed
    assert "quick run" in text and "at commit " in text
    assert "Produced by `python benchmarks/hub_load.py --quick --output" in text
    row = dict(zip(header, rows[0]))
    assert (REPO_ROOT / row["module"] / f"{row['module']}.py").exists()
    for column in ("cold requests", "warm requests"):
        match = re.fullmatch(r"(\d+) \((.+)\)", row[column])
        assert match, row[column]
        total = int(match[1])
        by_method = dict(part.split(" ") for part in match[2].split(", "))
        assert total > 0 and sum(int(count) for count in by_method.values()) == total
    assert "GET" in row["cold requests"]  # a cold load downloads the script
    for column in COLUMNS[4:8]:
        assert re.fullmatch(r"\d+\.\d{3} s", row[column]) and float(row[column].split()[0]) > 0, row[column]
    assert row["status"] == "met" or row["status"].startswith("not met (")
