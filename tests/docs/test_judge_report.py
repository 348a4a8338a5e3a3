"""examples/judge_report.py on a small generated file: the ranking table equals the module's ranking
computed directly, the forest plot is a PNG, and the corrected prevalences and their pairwise
differences equal informedness's unlabeled_predictions given every model in one mapping; judges
giving scores with --threshold, a one-class golden set, --cluster-key and a refused judge, each
against a direct compute; and the same report from Inspect logs."""

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
    # Corrected prevalences: per judge, informedness's unlabeled_predictions with both models in one mapping.
    informedness = load_module("informedness")
    lines = text.splitlines()
    for judge in JUDGES:
        by_model = {model: [label for name, label in zip(unlabeled["model"], unlabeled[judge]) if name == model]
                    for model in ("model-a", "model-b")}
        expected = informedness.compute(references=references, predictions=judges[judge], clusters=clusters,
                                        unlabeled_predictions=by_model, pos_label="unsafe", confidence_level=0.95, seed=0)
        for entry in expected["model_prevalences"]:
            low, high = entry["corrected_prevalence_ci"]
            shown = f"{entry['measured_prevalence']:.4f} → {entry['corrected_prevalence']:.4f} [{low:.4f}, {high:.4f}]"
            line = next(line for line in lines if line.startswith(f"| {entry['name']} |"))
            assert shown in line, (judge, entry["name"])
        (pair,) = expected["prevalence_differences"]
        low, high = pair["corrected_prevalence_difference_ci"]
        shown = (f"{pair['corrected_prevalence_difference']:.4f} [{low:.4f}, {high:.4f}]")
        line = next(line for line in lines if line.startswith("| model-a − model-b |"))
        assert shown in line and f"p = {pair['p_value']:.4g}" in line, judge
    assert "Judges left out" not in text


def ranking_rows(text, cut=False):
    pattern = r"^\| (\d) \| ([\w-]+) \| ([\d.]+) \| \[([\d.]+), ([\d.]+)\] \| (\S+) \| (yes|) \|" + (r" (.+) \|$" if cut else "$")
    return re.findall(pattern, text, re.M)


def assert_same_ranking(rows, direct, name="balanced_accuracy"):
    assert [row[1] for row in rows] == [entry["name"] for entry in direct["judge_ranking"]]
    for row, entry in zip(rows, direct["judge_ranking"]):
        assert float(row[2]) == pytest.approx(entry[name], abs=5e-5)
        assert [float(row[3]), float(row[4])] == pytest.approx(entry[f"{name}_ci"], abs=5e-5)
        assert (row[6] == "yes") == entry["in_best_set"]


@pytest.mark.parametrize("threshold", ["auto", "0.5"])
def test_judges_giving_scores_take_the_threshold_and_show_their_cut(files, tmp_path, threshold):
    _, references, judges, unlabeled = files
    rng = np.random.default_rng(8)
    positive = np.array(references) == "unsafe"
    scores = [f"{value:.4f}" for value in np.clip(np.where(positive, 0.65, 0.35) + rng.normal(0, 0.2, positive.size), 0, 1)]
    clusters = [str(i // 3) for i in range(150)]
    write_csv(tmp_path / "golden.csv", {"references": references, "strict": judges["strict"], "coin": judges["coin"],
                                        "prob": scores, "clusters": clusters})
    write_csv(tmp_path / "outputs.csv", {"model": unlabeled["model"], "strict": unlabeled["strict"],
                                         "prob": ["0.5"] * len(unlabeled["model"])})
    text = judge_report.main([str(tmp_path / "golden.csv"), "--threshold", threshold, "--positive", "unsafe",
                              "--unlabeled", str(tmp_path / "outputs.csv"), "--out", str(tmp_path / "r.md")]).read_text()
    cut = threshold if threshold == "auto" else float(threshold)
    direct = load_module("balanced_accuracy").compute(
        references=references, judges={"strict": judges["strict"], "coin": judges["coin"], "prob": [float(v) for v in scores]},
        threshold=cut, pos_label="unsafe", clusters=clusters, confidence_level=0.95)
    rows = ranking_rows(text, cut=True)
    assert_same_ranking(rows, direct)
    for row, entry in zip(rows, direct["judge_ranking"]):
        if entry["name"] != "prob":
            assert row[7] == "labels"
        elif threshold == "auto":
            assert row[7] == f"{entry['optimal_threshold']:.4g} (auto)"
        else:
            assert row[7] == "0.5" and entry["threshold"] == 0.5
    # The correction needs labels: the scores' judge is listed, the labels' judge corrected.
    assert re.search(r"^\| prob \| corrected prevalence \| gives scores", text, re.M)
    assert "strict: measured → corrected" in text and "prob: measured" not in text


def test_a_golden_set_of_one_class_ranks_nothing_and_says_why(tmp_path):
    rng = np.random.default_rng(2)
    columns = {"references": ["safe"] * 40, "a": ["safe"] * 38 + ["unsafe"] * 2,
               "b": list(np.where(rng.random(40) < 0.5, "unsafe", "safe"))}
    write_csv(tmp_path / "golden.csv", columns)
    text = judge_report.main([str(tmp_path / "golden.csv"), "--out", str(tmp_path / "r.md")]).read_text()
    with pytest.warns(UserWarning, match="all of one class"):
        direct = load_module("balanced_accuracy").compute(references=columns["references"],
                                                          judges={"a": columns["a"], "b": columns["b"]}, confidence_level=0.95)
    assert direct["reason"] == "one_reference_class" and direct["best_judges"] == []
    assert f"**No ranking is possible** (`{direct['reason']}`)" in text and "all of one class ('safe')" in text
    assert "| rank |" not in text and not ranking_rows(text) and not (tmp_path / "r.png").exists()


def test_cluster_key_names_the_column_of_clusters(files, tmp_path):
    _, references, judges, _ = files
    conversation = [f"c{i // 5}" for i in range(150)]
    write_csv(tmp_path / "golden.csv", {"references": references, **judges, "conversation": conversation})
    text = judge_report.main([str(tmp_path / "golden.csv"), "--cluster-key", "conversation",
                              "--out", str(tmp_path / "r.md")]).read_text()
    direct = load_module("balanced_accuracy").compute(references=references, judges=judges, clusters=conversation,
                                                      confidence_level=0.95)
    assert direct["num_clusters"] == 30 and "30 clusters" in text
    assert_same_ranking(ranking_rows(text), direct)
    with pytest.raises(ValueError, match=r"--cluster-key: expected a column 'turn' in .*golden.csv, found the columns"):
        judge_report.main([str(tmp_path / "golden.csv"), "--cluster-key", "turn", "--out", str(tmp_path / "r.md")])


def test_a_refused_judge_is_listed_and_the_others_ranked(files, tmp_path):
    _, references, judges, unlabeled = files
    other = ["yes" if label == "unsafe" else "no" for label in judges["strict"]]  # another vocabulary
    clusters = [str(i // 3) for i in range(150)]
    write_csv(tmp_path / "golden.csv", {"references": references, **judges, "yesno": other, "clusters": clusters})
    text = judge_report.main([str(tmp_path / "golden.csv"), "--out", str(tmp_path / "r.md")]).read_text()
    metric = load_module("balanced_accuracy")
    with pytest.raises(ValueError) as refused:
        metric.compute(references=references, judges={**judges, "yesno": other}, clusters=clusters, confidence_level=0.95)
    assert str(refused.value).startswith("judges['yesno']")
    direct = metric.compute(references=references, judges=judges, clusters=clusters, confidence_level=0.95)
    assert_same_ranking(ranking_rows(text), direct)
    line = next(line for line in text.splitlines() if line.startswith("| yesno |"))
    assert line == f"| yesno | ranking | {' '.join(str(refused.value).split())} |"


def test_the_report_reads_inspect_logs(tmp_path):
    import harness_logs as logs
    import inspect_ai_judges

    scorer = inspect_ai_judges.judge_label(list(logs.LABELS))
    paths = [str(logs.write_inspect_log(tmp_path / f"{name}.eval", f"scripted/{name}",
                                        {"judge_label": (scorer, logs.judge_labels(accuracy, seed))}))
             for seed, (name, accuracy) in enumerate([("a", 0.9), ("b", 0.6)])]
    text = judge_report.main([*paths, "--metric", "informedness", "--out", str(tmp_path / "r.md")]).read_text()
    assert "# Judges ranked by informedness" in text and "| 1 | scripted/a |" in text
