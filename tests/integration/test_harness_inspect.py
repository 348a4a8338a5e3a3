"""examples/inspect_ai_judges.py against the real inspect_ai: its scorer and metric through Inspect's own
results step, logs written by Inspect's writer and read back with read_eval_log / samples_df, and the
score.value ("C"/"I") refused where a label is needed. Numbers are checked against direct computes."""

import sys

import pytest

from conftest import REPO_ROOT, load_module

sys.path.insert(0, str(REPO_ROOT / "examples"))
import harness_logs as logs  # noqa: E402
import inspect_ai_judges as recipe  # noqa: E402

REFERENCES = [row["label"] for row in logs.GOLDEN_SET]
CLUSTERS = [row["conversation"] for row in logs.GOLDEN_SET]


def metric_values(results, name="judge_label"):
    (score,) = [score for score in results.scores if score.name == name]
    return {key: metric.value for key, metric in score.metrics.items()}


def test_the_metric_in_inspects_results_equals_a_direct_compute():
    labels = logs.judge_labels(0.8, seed=3)
    scorer = recipe.judge_label(list(logs.LABELS))
    # The scorer reads the label out of the model's words ("... unsafe ...").
    outputs = [f"I would say {label}, because of the tone." for label in labels]
    values = metric_values(logs.inspect_results(logs.inspect_sample_scores(labels, scorer, outputs), scorer))
    direct = load_module("balanced_accuracy").compute(references=REFERENCES, predictions=labels, confidence_level=0.95)
    assert values["balanced_accuracy"] == pytest.approx(direct["balanced_accuracy"], abs=1e-12)
    assert [values["balanced_accuracy_ci_low"], values["balanced_accuracy_ci_high"]] == pytest.approx(
        direct["balanced_accuracy_ci"], abs=1e-12)
    assert values["accuracy"] == pytest.approx(sum(a == b for a, b in zip(labels, REFERENCES)) / len(labels))


def test_the_metric_takes_clusters_from_sample_metadata_and_informedness():
    labels = logs.judge_labels(0.75, seed=4)
    scorer = recipe.judge_label(list(logs.LABELS), cluster_key="conversation", metric="informedness")
    values = metric_values(logs.inspect_results(logs.inspect_sample_scores(labels, scorer), scorer))
    direct = load_module("informedness").compute(references=REFERENCES, predictions=labels, clusters=CLUSTERS,
                                                 confidence_level=0.95)
    unclustered = load_module("informedness").compute(references=REFERENCES, predictions=labels, confidence_level=0.95)
    assert values["informedness"] == pytest.approx(direct["informedness"], abs=1e-12)
    assert [values["informedness_ci_low"], values["informedness_ci_high"]] == pytest.approx(direct["informedness_ci"], abs=1e-12)
    assert direct["informedness_ci"] != unclustered["informedness_ci"]  # the clusters were used


def test_logs_written_by_inspect_are_read_back_into_judges(tmp_path):
    scorer = recipe.judge_label(list(logs.LABELS))
    labels = {"scripted/judge-a": logs.judge_labels(0.9, 5), "scripted/judge-b": logs.judge_labels(0.7, 6),
              "scripted/judge-c": logs.judge_labels(0.6, 7)}
    paths = [logs.write_inspect_log(tmp_path / f"{i}.eval", model, {"judge_label": (scorer, found)})
             for i, (model, found) in enumerate(labels.items())]
    found = recipe.read_judges(paths, cluster_key="conversation")
    order = sorted(range(len(REFERENCES)), key=lambda i: str(logs.GOLDEN_SET[i]["id"]))  # matched by id
    assert found["references"] == [REFERENCES[i] for i in order]
    assert found["judges"] == {model: [column[i] for i in order] for model, column in labels.items()}
    assert found["clusters"] == [CLUSTERS[i] for i in order]
    metric = load_module("balanced_accuracy")
    ranked = metric.compute(references=found["references"], judges=found["judges"], clusters=found["clusters"],
                            confidence_level=0.95)
    for entry in ranked["judge_ranking"]:  # each judge's value as computed alone
        alone = metric.compute(references=REFERENCES, predictions=labels[entry["name"]])
        assert entry["balanced_accuracy"] == pytest.approx(alone["balanced_accuracy"], abs=1e-12)
    # Two scorers in one log: one judge each.
    both = logs.write_inspect_log(tmp_path / "both.eval", "scripted/judge-a",
                                  {"strict": (scorer, labels["scripted/judge-a"]), "lenient": (scorer, labels["scripted/judge-b"])})
    assert set(recipe.read_judges([both])["judges"]) == {"strict", "lenient"}


def test_samples_df_answer_columns_give_the_same_judges(tmp_path):
    from inspect_ai.analysis import SampleScores, SampleSummary, samples_df

    scorer = recipe.judge_label(list(logs.LABELS))
    labels = logs.judge_labels(0.8, 8)
    path = logs.write_inspect_log(tmp_path / "a.eval", "scripted/judge-a", {"judge_label": (scorer, labels)})
    frame = samples_df(str(path), columns=SampleSummary + SampleScores, quiet=True)
    found = recipe.judges_from_samples_df(frame)
    by_id = dict(zip(frame["id"].astype(str), found["judges"]["judge_label"]))
    assert by_id == {str(row["id"]): label for row, label in zip(logs.GOLDEN_SET, labels)}
    # The default columns hold score.value only ("C"/"I"): refused, saying where the labels are.
    with pytest.raises(ValueError, match=r"correctness values \['C', 'I'\].*score\.answer"):
        recipe.judges_from_samples_df(samples_df(str(path), quiet=True))


def test_score_value_instead_of_answer_is_refused():
    from inspect_ai.scorer import Score, SampleScore

    # A scorer that kept only value (C/I) and put it in answer's place, and one that set no answer.
    as_values = [SampleScore(score=Score(value="C" if i % 2 else "I", answer="C" if i % 2 else "I",
                                         metadata={"reference": label}), sample_id=i)
                 for i, label in enumerate(REFERENCES)]
    with pytest.raises(ValueError, match=r"score\.answer.*correctness values \['C', 'I'\].*never score\.value"):
        recipe.labels_from_scores(as_values)
    no_answer = [SampleScore(score=Score(value="C", metadata={"reference": label}), sample_id=i)
                 for i, label in enumerate(REFERENCES)]
    with pytest.raises(ValueError, match=r"score\.answer None on 48 of 48 samples"):
        recipe.labels_from_scores(no_answer)
    # Labels that are really "C"/"I" (the references share them) are labels.
    assert recipe.labels_from_scores([
        SampleScore(score=Score(value="C", answer="C", metadata={"reference": "C"}), sample_id=0),
        SampleScore(score=Score(value="I", answer="I", metadata={"reference": "I"}), sample_id=1)])[1] == ["C", "I"]
