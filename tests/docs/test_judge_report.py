"""examples/judge_report.py on a small generated file: the ranking table equals the module's ranking
computed directly, the forest plot is a PNG, and the corrected prevalences equal informedness's
unlabeled_predictions computed per model; and the same report from Inspect logs."""

import csv
import re
import sys

import numpy as np
import pytest

from conftest import REPO_ROOT, load_module

sys.path.insert(0, str(REPO_ROOT / "examples"))
import judge_report  # noqa: E402

JUDGES = {"strict": 0.9, "lenient": 0.75, "coin": 0.5}


def write_csv(path, columns):
    names = list(columns)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(names)
        writer.writerows(zip(*(columns[name] for name in names)))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    rng = np.random.default_rng(21)
    references = np.where(rng.random(150) < 0.3, "unsafe", "safe")
    other = {"safe": "unsafe", "unsafe": "safe"}

    def judged(truth, accuracy):
        return [label if rng.random() < accuracy else other[label] for label in truth]

    judges = {name: judged(references, accuracy) for name, accuracy in JUDGES.items()}
    write_csv(folder / "golden.csv", {"references": list(references), **judges,
                                      "clusters": [i // 3 for i in range(150)]})
    outputs = {"model-a": np.where(rng.random(200) < 0.1, "unsafe", "safe"),
               "model-b": np.where(rng.random(200) < 0.4, "unsafe", "safe")}
    unlabeled = {"model": [], **{name: [] for name in JUDGES}}
    for model, truth in outputs.items():
        unlabeled["model"] += [model] * len(truth)
        for name, accuracy in JUDGES.items():
            unlabeled[name] += judged(truth, accuracy)
    write_csv(folder / "outputs.csv", unlabeled)
    return folder, list(references), judges, unlabeled


def test_the_report_ranks_as_the_module_does(files):
    folder, references, judges, unlabeled = files
    out = judge_report.main([str(folder / "golden.csv"), "--unlabeled", str(folder / "outputs.csv"),
                             "--positive", "unsafe", "--out", str(folder / "report.md")])
    text = out.read_text()
    clusters = [str(i // 3) for i in range(150)]  # read back from the CSV as text, as the Space reads an upload
    direct = load_module("balanced_accuracy").compute(references=references, judges=judges, clusters=clusters,
                                                      confidence_level=0.95)
    rows = re.findall(r"^\| (\d) \| (\w+) \| ([\d.]+) \| \[([\d.]+), ([\d.]+)\] \| (\S+) \| (yes|) \|$", text, re.M)
    assert [row[1] for row in rows] == [entry["name"] for entry in direct["judge_ranking"]]
    for row, entry in zip(rows, direct["judge_ranking"]):
        assert float(row[2]) == pytest.approx(entry["balanced_accuracy"], abs=5e-5)
        assert [float(row[3]), float(row[4])] == pytest.approx(entry["balanced_accuracy_ci"], abs=5e-5)
        assert (row[6] == "yes") == entry["in_best_set"]
    assert rows[0][1] == "strict" and rows[-1][1] == "coin" and "50 clusters" in text
    assert (folder / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Corrected prevalences: informedness's unlabeled_predictions, one model per call.
    informedness = load_module("informedness")
    for model in ("model-a", "model-b"):
        rows_of_model = [i for i, name in enumerate(unlabeled["model"]) if name == model]
        for judge in JUDGES:
            expected = informedness.compute(references=references, predictions=judges[judge], clusters=clusters,
                                            unlabeled_predictions=[unlabeled[judge][i] for i in rows_of_model],
                                            pos_label="unsafe", confidence_level=0.95, seed=0)
            if "corrected_prevalence_reason" in expected:
                shown = f"→ undefined ({expected['corrected_prevalence_reason']})"
            else:
                low, high = expected["corrected_prevalence_ci"]
                shown = f"→ {expected['corrected_prevalence']:.4f} [{low:.4f}, {high:.4f}]"
            line = next(line for line in text.splitlines() if line.startswith(f"| {model} |"))
            assert shown in line


def test_the_report_reads_inspect_logs(tmp_path):
    import harness_logs as logs
    import inspect_ai_judges

    scorer = inspect_ai_judges.judge_label(list(logs.LABELS))
    paths = [str(logs.write_inspect_log(tmp_path / f"{name}.eval", f"scripted/{name}",
                                        {"judge_label": (scorer, logs.judge_labels(accuracy, seed))}))
             for seed, (name, accuracy) in enumerate([("a", 0.9), ("b", 0.6)])]
    text = judge_report.main([*paths, "--metric", "informedness", "--out", str(tmp_path / "r.md")]).read_text()
    assert "# Judges ranked by informedness" in text and "| 1 | scripted/a |" in text
