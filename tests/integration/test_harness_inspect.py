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
    # Two entries per scorer: accuracy() on the epoch-reduced scores, our metric on every epoch's.
    return {key: metric.value for score in results.scores if score.name == name for key, metric in score.metrics.items()}


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


def two_disagreeing_epochs():
    """A judge run twice (epochs=2) on the golden set: the second run flips 12 of the first's labels."""
    first = logs.judge_labels(0.8, seed=9)
    second = [logs.LABELS[1 - logs.LABELS.index(label)] if i % 4 == 0 else label for i, label in enumerate(first)]
    return first, second


def test_epochs_that_disagree_are_every_epochs_labels_clustered_by_sample():
    from inspect_ai._eval.task.results import eval_results
    from inspect_ai.scorer import SampleScore

    first, second = two_disagreeing_epochs()
    scorer = recipe.judge_label(list(logs.LABELS))
    scores = logs.inspect_epoch_scores([first, second], scorer)
    results, reductions = eval_results(48, [{"judge_label": score} for score in scores], None, [scorer], None)
    # What Inspect's default reducer ("mean") leaves: no answer where the epochs disagree (12 samples).
    (reduction,) = reductions
    assert reduction.reducer == "mean" and sum(score.answer is None for score in reduction.samples) == 12
    reduced = [SampleScore(score=score, sample_id=score.sample_id) for score in reduction.samples]
    values = metric_values(results)
    ids = [row["id"] for row in logs.GOLDEN_SET]
    metric = load_module("balanced_accuracy")
    direct = metric.compute(references=REFERENCES * 2, predictions=first + second, clusters=ids * 2, confidence_level=0.95)
    assert direct["num_clusters"] == 48
    assert values["balanced_accuracy"] == pytest.approx(direct["balanced_accuracy"], abs=1e-12)
    assert [values["balanced_accuracy_ci_low"], values["balanced_accuracy_ci_high"]] == pytest.approx(
        direct["balanced_accuracy_ci"], abs=1e-12)
    # Hand count: the value is the mean over the two epochs' recalls of each class.
    recall = {label: sum(p == r for p, r in zip(first + second, REFERENCES * 2) if r == label)
              / (2 * REFERENCES.count(label)) for label in logs.LABELS}
    assert values["balanced_accuracy"] == pytest.approx(sum(recall.values()) / 2, abs=1e-12)
    # Reduced scores handed to the reader directly: refused, saying why and what to use.
    with pytest.raises(ValueError, match=r"score\.answer None on 12 of 48 samples.*epochs disagree.*unreduced"):
        recipe.labels_from_scores(reduced)


def test_read_judges_with_epochs_passes_the_sample_ids_as_clusters(tmp_path):
    first, second = two_disagreeing_epochs()
    scorer = recipe.judge_label(list(logs.LABELS))
    path = logs.write_inspect_log(tmp_path / "epochs.eval", "scripted/judge-a", {"judge_label": (scorer, [first, second])},
                                  epochs=2)
    other = logs.write_inspect_log(tmp_path / "b.eval", "scripted/judge-b",
                                   {"judge_label": (scorer, [logs.judge_labels(0.7, 10), logs.judge_labels(0.7, 11)])},
                                   epochs=2)
    found = recipe.read_judges([path, other])
    order = sorted(((str(row["id"]), epoch, i) for epoch in (1, 2) for i, row in enumerate(logs.GOLDEN_SET)))
    by_epoch = {1: first, 2: second}
    assert found["clusters"] == [logs.GOLDEN_SET[i]["id"] for _, _, i in order]
    assert found["references"] == [REFERENCES[i] for _, _, i in order]
    assert found["judges"]["scripted/judge-a"] == [by_epoch[epoch][i] for _, epoch, i in order]
    metric = load_module("balanced_accuracy")
    ids = [row["id"] for row in logs.GOLDEN_SET]
    alone = recipe.read_judges([path])
    result = metric.compute(references=alone["references"], predictions=alone["judges"]["scripted/judge-a"],
                            clusters=alone["clusters"], confidence_level=0.95)
    direct = metric.compute(references=REFERENCES * 2, predictions=first + second, clusters=ids * 2, confidence_level=0.95)
    assert result["balanced_accuracy"] == pytest.approx(direct["balanced_accuracy"], abs=1e-12)
    assert result["balanced_accuracy_ci"] == pytest.approx(direct["balanced_accuracy_ci"], abs=1e-12)
    assert result["num_clusters"] == 48
    ranked = metric.compute(references=found["references"], judges=found["judges"], clusters=found["clusters"])
    assert {entry["name"] for entry in ranked["judge_ranking"]} == {"scripted/judge-a", "scripted/judge-b"}
    # cluster_key's groups hold their samples' epochs: they are the clusters then.
    assert recipe.read_judges([path], cluster_key="conversation")["clusters"] == [
        logs.GOLDEN_SET[i]["conversation"] for _, _, i in order]
    # The same from samples_df: one row per sample and epoch, the ids as clusters.
    from inspect_ai.analysis import SampleScores, SampleSummary, samples_df

    frame = samples_df(str(path), columns=SampleSummary + SampleScores, quiet=True)
    from_frame = recipe.judges_from_samples_df(frame)
    assert sorted(zip(map(str, from_frame["clusters"]), from_frame["judges"]["judge_label"])) == sorted(
        zip(map(str, found["clusters"]), found["judges"]["scripted/judge-a"]))
    conversation = {str(row["id"]): row["conversation"] for row in logs.GOLDEN_SET}
    assert recipe.judges_from_samples_df(frame, cluster_key="conversation")["clusters"] == [
        conversation[str(i)] for i in frame["id"]]


def test_an_output_naming_no_label_is_a_miss_of_its_class_never_a_class(tmp_path):
    labels = logs.judge_labels(0.85, seed=12)
    silent = [None if i % 6 == 0 else label for i, label in enumerate(labels)]  # 8 outputs name no label
    scorer = recipe.judge_label(list(logs.LABELS))
    scores = logs.inspect_sample_scores(silent, scorer)
    assert [score.score.answer for score in scores].count("no label") == 8
    assert all(score.score.value == "I" for score, label in zip(scores, silent) if label is None)
    values = metric_values(logs.inspect_results(scores, scorer))
    # Hand count: per class, the share of its items the judge labelled right (no label: wrong).
    recall = [sum(p == r for p, r in zip(silent, REFERENCES) if r == label) / REFERENCES.count(label)
              for label in logs.LABELS]
    assert values["balanced_accuracy"] == pytest.approx(sum(recall) / 2, abs=1e-12)
    direct = load_module("balanced_accuracy").compute(
        references=REFERENCES, predictions=["no label" if p is None else p for p in silent], confidence_level=0.95,
        labels=[*logs.LABELS, "no label"])  # declared, as the recipe does: undeclared, another vocabulary is refused
    assert [values["balanced_accuracy_ci_low"], values["balanced_accuracy_ci_high"]] == pytest.approx(
        direct["balanced_accuracy_ci"], abs=1e-12)
    path = logs.write_inspect_log(tmp_path / "silent.eval", "scripted/judge-a", {"judge_label": (scorer, silent)})
    assert recipe.read_judges([path])["judges"]["scripted/judge-a"].count("no label") == 8
    with pytest.raises(ValueError, match=r"labels: 'no label' is the answer of an output that names no label"):
        recipe.judge_label(["safe", "no label"])
    # Informedness: a declared third class would give the Bookmaker of three classes (not J): refused.
    scorer = recipe.judge_label(list(logs.LABELS), metric="informedness")
    with pytest.raises(ValueError, match=r"8 of 48 outputs name no label.*informedness needs one of the golden classes"):
        logs.inspect_results(logs.inspect_sample_scores(silent, scorer), scorer)


def test_read_models_gives_informedness_the_models_labels(tmp_path):
    scorer = recipe.judge_label(list(logs.LABELS))
    golden = logs.judge_labels(0.85, seed=13)  # the judge on the golden set
    # The same judge on three models' outputs (their share of "unsafe" differs).
    rng = __import__("random").Random(14)
    outputs = {f"scripted/model-{name}": [("unsafe" if rng.random() < share else "safe") for _ in logs.GOLDEN_SET]
               for name, share in (("a", 0.2), ("b", 0.4), ("c", 0.6))}
    outputs["scripted/model-c"][5] = None  # one output the judge left unlabelled
    paths = [logs.write_inspect_log(tmp_path / f"{i}.eval", model, {"judge_label": (scorer, labels)})
             for i, (model, labels) in enumerate(outputs.items())]
    models = recipe.read_models(paths, labels=logs.LABELS)
    order = sorted(range(len(logs.GOLDEN_SET)), key=lambda i: str(logs.GOLDEN_SET[i]["id"]))
    expected = {model: [("no label" if labels[i] is None else labels[i]) for i in order] for model, labels in outputs.items()}
    assert models == expected
    metric = load_module("informedness")
    clean = {model: labels for model, labels in models.items() if "no label" not in labels}
    result = metric.compute(references=REFERENCES, predictions=golden, unlabeled_predictions=clean, pos_label="unsafe",
                            confidence_level=0.95)
    for entry in result["model_prevalences"]:
        alone = metric.compute(references=REFERENCES, predictions=golden, unlabeled_predictions=outputs[entry["name"]],
                               pos_label="unsafe", confidence_level=0.95)
        assert entry["corrected_prevalence"] == pytest.approx(alone["corrected_prevalence"], abs=1e-12)
        assert entry["measured_prevalence"] == pytest.approx(outputs[entry["name"]].count("unsafe") / 48)
    # Rogan-Gladen by hand: (measured + specificity - 1) / informedness.
    tpr = sum(g == "unsafe" for g, r in zip(golden, REFERENCES) if r == "unsafe") / REFERENCES.count("unsafe")
    fpr = sum(g == "unsafe" for g, r in zip(golden, REFERENCES) if r == "safe") / REFERENCES.count("safe")
    (a,) = [entry for entry in result["model_prevalences"] if entry["name"] == "scripted/model-a"]
    assert a["corrected_prevalence"] == pytest.approx(
        min(max((outputs["scripted/model-a"].count("unsafe") / 48 - fpr) / (tpr - fpr), 0), 1), abs=1e-12)
    # An output the judge left unlabelled has no measured error rate on the golden set: refused, not a class.
    with pytest.raises(ValueError, match=r"unlabeled_predictions\['scripted/model-c'\].*found unknown value\(s\) \['no label'\]"):
        metric.compute(references=REFERENCES, predictions=golden, unlabeled_predictions=models, pos_label="unsafe")
    with pytest.raises(ValueError, match=r"expected labels among \['safe'\], found \['unsafe'\]"):
        recipe.read_models(paths[:1], labels=["safe"])
    two = logs.write_inspect_log(tmp_path / "two.eval", "scripted/model-d", {"judge_label": (scorer, [golden, golden])},
                                 epochs=2)
    with pytest.raises(ValueError, match=r"epoch: .* holds epochs \[1, 2\].*pass epoch="):
        recipe.read_models([two])
    assert recipe.read_models([two], epoch=2)["scripted/model-d"] == [golden[i] for i in order]
