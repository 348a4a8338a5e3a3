"""examples/lm_eval_judge (a task YAML with !function aggregations) and examples/lm_eval_judges.py
(the --log_samples reader) against the real lm-evaluation-harness: its evaluator runs the task with a
scripted judge (no model, no download), its tracker writes the samples files, and the numbers equal
direct computes. Also the trap: hf_evaluate: true calls the module per document, which now warns."""

import sys
import warnings

import pytest

from conftest import REPO_ROOT, load_module

sys.path.insert(0, str(REPO_ROOT / "examples"))
import harness_logs as logs  # noqa: E402
import lm_eval_judges as reader  # noqa: E402

REFERENCES = [row["label"] for row in logs.GOLDEN_SET]
CLUSTERS = [row["conversation"] for row in logs.GOLDEN_SET]
JUDGES = {"judge-a": logs.judge_labels(0.9, 11), "judge-b": logs.judge_labels(0.75, 12)}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lm_eval")
    return {name: logs.lm_eval_run(labels, folder, name) for name, labels in JUDGES.items()}


def test_the_corpus_aggregation_equals_a_direct_compute(runs):
    metric = load_module("balanced_accuracy")
    for name, (results, _) in runs.items():
        found = results["results"]["judge_labels"]
        direct = metric.compute(references=REFERENCES, predictions=JUDGES[name], clusters=CLUSTERS, confidence_level=0.95)
        assert found["balanced_accuracy,none"] == pytest.approx(direct["balanced_accuracy"], abs=1e-12)
        assert [found["balanced_accuracy_ci_low,none"], found["balanced_accuracy_ci_high,none"]] == pytest.approx(
            direct["balanced_accuracy_ci"], abs=1e-12)
        assert found["sample_len"] == len(REFERENCES)


def test_the_samples_files_are_read_into_judges(runs):
    found = reader.read_samples([path for _, path in runs.values()])
    order = sorted(range(len(REFERENCES)), key=lambda i: logs.GOLDEN_SET[i]["id"])  # doc_id order
    assert list(found["judges"]) == list(JUDGES)  # named by lm-eval's model folder
    assert found["references"] == [REFERENCES[i] for i in order]
    assert found["judges"] == {name: [labels[i] for i in order] for name, labels in JUDGES.items()}
    assert found["clusters"] == [CLUSTERS[i] for i in order]
    ranked = load_module("balanced_accuracy").compute(references=found["references"], judges=found["judges"],
                                                      clusters=found["clusters"], confidence_level=0.95)
    assert ranked["judge_ranking"][0]["name"] == "judge-a"


def test_a_log_without_the_pair_uses_target_and_filtered_resps(runs, tmp_path):
    import json

    (_, path), = [runs["judge-b"]]
    lines = [json.loads(line) for line in path.read_text().splitlines()]

    def write(name, rows):
        written = tmp_path / name / path.name
        written.parent.mkdir()
        written.write_text("\n".join(json.dumps(row) for row in rows))
        return written

    bare = [{k: v for k, v in line.items() if not k.startswith("balanced_accuracy")} for line in lines]
    # filtered_resps as a task's regex filter leaves it: the label alone.
    filtered = write("filtered", [{**row, "filtered_resps": [line["balanced_accuracy"][1]]} for line, row in zip(lines, bare)])
    found = reader.read_samples([filtered])
    order = sorted(range(len(REFERENCES)), key=lambda i: logs.GOLDEN_SET[i]["id"])
    assert found["references"] == [REFERENCES[i] for i in order]
    assert found["judges"]["filtered"] == [JUDGES["judge-b"][i] for i in order]
    # The raw response ("unsafe, I think.") is not a label, nor a per-document score (exact_match 1/0).
    with pytest.raises(ValueError, match=r"share no class with the references.*raw response is not a label"):
        reader.read_samples([write("raw", bare)])
    with pytest.raises(ValueError, match=r"exact_match: found a per-document score \(1\.0\).*\(gold, pred\)"):
        reader.read_samples([write("scored", [{**line, "exact_match": 1.0} for line in bare])], metric="exact_match")


def test_hf_evaluate_true_calls_the_module_per_document_and_it_warns(tmp_path):
    sys.path.insert(0, str(REPO_ROOT / "examples" / "lm_eval_judge"))
    import judge_utils

    # The trap as a user writes it: the module by name with hf_evaluate: true (no process_results),
    # a regex filter taking the label out of the answer, lm-eval's default "mean" aggregation.
    config = {"task": "judge_labels_per_document", "custom_dataset": judge_utils.golden_set, "test_split": "test",
              "output_type": "generate_until", "doc_to_text": "{{response}}", "doc_to_target": "label",
              "filter_list": [{"name": "label", "filter": [{"function": "regex", "regex_pattern": r"\b(safe|unsafe)\b"},
                                                           {"function": "take_first"}]}],
              "metric_list": [{"metric": str(REPO_ROOT / "balanced_accuracy"), "hf_evaluate": True, "aggregation": "mean",
                               "higher_is_better": True}]}
    labels = JUDGES["judge-b"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results, _ = logs.lm_eval_run(labels, tmp_path, "per-document", task=config)
    # lm-eval's evaluator called the module once per document (each call warned) ...
    assert sum("computed on a single item" in str(w.message) and "docs/harnesses.md" in str(w.message)
               for w in caught) == len(labels)
    logged = results["samples"]["judge_labels_per_document"]
    assert sorted(sample["filtered_resps"][0] for sample in logged) == sorted(labels)
    assert {sample["balanced_accuracy"] for sample in logged} == {0.0, 1.0}  # one class per call: 0 or 1
    # ... and reported their mean, which is accuracy (33 of 48), not balanced accuracy.
    reported = results["results"]["judge_labels_per_document"]["balanced_accuracy,label"]
    accuracy = sum(a == b for a, b in zip(labels, REFERENCES)) / len(labels)
    assert accuracy == 33 / 48 and reported == pytest.approx(accuracy, abs=1e-12)
    corpus = load_module("balanced_accuracy").compute(references=REFERENCES, predictions=labels)["balanced_accuracy"]
    assert abs(reported - corpus) > 0.01


def test_an_answer_naming_no_label_is_a_miss_of_its_class(tmp_path):
    labels = [None if i % 8 == 0 else label for i, label in enumerate(JUDGES["judge-a"])]  # 6 answers name none
    results, path = logs.lm_eval_run(labels, tmp_path, "silent")
    found = results["results"]["judge_labels"]["balanced_accuracy,none"]
    # Hand count: per class, the share of its documents labelled right (no label: wrong).
    recall = [sum(p == r for p, r in zip(labels, REFERENCES) if r == label) / REFERENCES.count(label)
              for label in logs.LABELS]
    assert found == pytest.approx(sum(recall) / 2, abs=1e-12)
    assert reader.read_samples([path])["judges"]["silent"].count("no label") == 6


@pytest.mark.parametrize("name", ["balanced_accuracy", "informedness"])
def test_a_single_counted_item_warns_and_two_do_not(name):
    metric = load_module(name)
    single = r"computed on a single item.*a per-document call: aggregate over the corpus; see docs/harnesses\.md"
    with pytest.warns(UserWarning, match=single):
        metric.compute(references=["unsafe"], predictions=["safe"])
    metric.add_batch(references=["unsafe"], predictions=["unsafe"])
    with pytest.warns(UserWarning, match=single):
        metric.compute()
    with pytest.warns(UserWarning, match=single):
        metric.compute(references=["unsafe"], judges={"a": ["safe"], "b": ["unsafe"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metric.compute(references=["unsafe", "safe"], predictions=["safe", "safe"])
        metric.compute(references=["unsafe", "safe"], judges={"a": ["safe", "safe"], "b": ["unsafe", "safe"]})
