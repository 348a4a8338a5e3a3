"""studies/cluster_coverage/study.py --quick: it runs, writes its tables, and the clustered interval of
case A (20 segmentation maps, each image a cluster) covers the population value.

A loose but real check of the cluster-robust interval where it matters most: treating the
20,480 pixels as independent covers the truth in about 0.16-0.22 of the sets (the "as i.i.d.
items" column); with images as clusters a 95% interval must cover it in at least 0.8 of SETS sets
(the full study, 1,000 sets, holds it to 0.93). SETS is as few as keeps that check meaningful: at a true
coverage of 0.936-0.946, 40 sets fall below 0.8 with probability below 0.001 (binomial); every quick case still runs.
"""

import os
import re
import subprocess
import sys

from conftest import REPO_ROOT


SETS = 40
RESAMPLES = 100


def case_rows(text, case):
    """The rows of case ``case``'s table as dicts keyed by the header's cells."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"## {case}."))
    header_at = next(i for i in range(start, len(lines)) if lines[i].startswith("| setting |"))
    header = [cell.strip() for cell in lines[header_at].strip("|").split("|")]
    rows = []
    for line in lines[header_at + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(header, (cell.strip() for cell in line.strip("|").split("|")))))
    return rows


def coverage_of(cell):
    match = re.match(r"\**([\d.]+) ± ([\d.]+)", cell)
    assert match, f"expected a coverage 'c ± s.e.' in the cell, found {cell!r}"
    return float(match.group(1))


def test_quick_run_writes_the_tables_and_case_a_covers_with_clusters(tmp_path):
    output = tmp_path / "results.md"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1"}
    result = subprocess.run([sys.executable, "studies/cluster_coverage/study.py", "--quick", "--sets", str(SETS),
                             "--resamples", str(RESAMPLES), "--output", str(output)],
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, f"the quick study failed (exit {result.returncode}):\n{result.stderr[-3000:]}"
    text = output.read_text(encoding="utf-8")
    assert "balanced_accuracy yes" in text, f"balanced_accuracy should take clusters= on this commit:\n{text[:2000]}"
    for case in ("A", "B", "C", "E"):
        assert case_rows(text, case), f"case {case}: no table rows in the output"

    rows = case_rows(text, "A")
    assert {row["ci_method"] for row in rows} == {"score", "agresti_coull", "wilson", "bootstrap"}
    for row in rows:
        assert row["sets"] == str(SETS), row
        clustered = coverage_of(row["coverage with clusters"])
        independent = coverage_of(row["coverage as i.i.d. items"])
        assert clustered >= 0.8, f"case A, {row['ci_method']}: clustered coverage {clustered} on {SETS} sets, expected >= 0.8"
        # Pixels as independent items: the interval is far too narrow (the full study: below 0.2).
        assert independent <= 0.5, f"case A, {row['ci_method']}: i.i.d. coverage {independent}, expected the pixels-as-items failure (<= 0.5)"
        assert float(row["width with clusters"]) > 2 * float(row["width as i.i.d. items"]), row
