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


def test_hf_evaluate_true_calls_the_module_per_document_and_it_warns():
    from lm_eval.api.task import ConfigurableTask

    sys.path.insert(0, str(REPO_ROOT / "examples" / "lm_eval_judge"))
    import judge_utils

    task = ConfigurableTask(config={
        "task": "judge_labels_per_document", "custom_dataset": judge_utils.golden_set, "test_split": "test",
        "output_type": "generate_until", "doc_to_text": "{{response}}", "doc_to_target": "label",
        "metric_list": [{"metric": str(REPO_ROOT / "balanced_accuracy"), "hf_evaluate": True, "aggregation": "mean",
                         "higher_is_better": True}]})
    labels = JUDGES["judge-b"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        per_document = [task.process_results(doc, [label]) for doc, label in zip(task.test_docs(), labels)]
    assert sum("computed on a single item" in str(w.message) and "docs/harnesses.md" in str(w.message)
               for w in caught) == len(labels)
    # What lm-eval then reports (the mean of per-document values) is accuracy, not balanced accuracy.
    averaged = task.aggregation()["balanced_accuracy"]([values["balanced_accuracy"] for values in per_document])
    accuracy = sum(a == b for a, b in zip(labels, REFERENCES)) / len(labels)
    assert averaged == pytest.approx(accuracy)
    assert averaged != pytest.approx(load_module("balanced_accuracy").compute(
        references=REFERENCES, predictions=labels)["balanced_accuracy"])


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
