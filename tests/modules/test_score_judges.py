"""Judges as people bring them (judges= with scores): thresholds per judge, cross-fitted "auto",
and the refusals of labels that cannot mean what the value would compute.

Expected values come from scikit-learn's balanced_accuracy_score on labels made here (score >=
cut), or from the single-judge call with threshold="auto" for the cut a user deploys."""

import math
import warnings

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score

NAMES = ("balanced_accuracy", "informedness")


@pytest.fixture(scope="module")
def modules():
    from conftest import load_module

    return {name: load_module(name) for name in NAMES}


def golden_set(seed=0, size=80, prevalence=0.3):
    rng = np.random.default_rng(seed)
    references = (rng.random(size) < prevalence).astype(np.int64)
    labels = np.where(rng.random(size) < 0.85, references, 1 - references)
    likert = np.clip(np.round(2 + 1.5 * references + rng.normal(0, 1, size)), 1, 5).astype(np.int64)
    probability = 1 / (1 + np.exp(-(2 * references - 1 + rng.normal(0, 1.2, size))))
    return references, {"labels": labels, "likert": likert, "probability": probability}


def value(name, references, labels):
    ba = balanced_accuracy_score(references, labels)
    return ba if name == "balanced_accuracy" else 2 * ba - 1


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize("name", NAMES)
def test_a_likert_judge_without_threshold_is_refused_naming_it(modules, name):
    references, judges = golden_set()
    with pytest.raises(ValueError) as caught:
        modules[name].compute(references=references, judges={"labels": judges["labels"], "likert": judges["likert"]})
    message = str(caught.value)
    assert message.startswith("judges['likert']: expected labels of the golden set's 2 classes [0, 1], found 5 distinct values [1, 2, 3, 4, 5]")
    assert "threshold=" in message and "labels=" in message


@pytest.mark.parametrize("name", NAMES)
def test_scores_without_threshold_are_refused_naming_the_judge(modules, name):
    references, judges = golden_set()
    with pytest.raises(ValueError, match=r"^judges\['probability'\]: expected labels of the golden set's classes \[0, 1\], "
                                         r"found scores \[0\.\d+, .* \(80 distinct\); for scores, pass threshold="):
        modules[name].compute(references=references, judges=judges)


@pytest.mark.parametrize("name", NAMES)
def test_labels_of_another_vocabulary_are_refused_not_scored_zero(modules, name):
    references = ["correct", "incorrect", "correct", "correct", "incorrect", "correct"]
    predictions = ["C", "I", "C", "I", "I", "C"]
    with pytest.raises(ValueError, match=r"^predictions: expected labels among the references' classes \['correct', "
                                         r"'incorrect'\], found \['C', 'I'\], none of them a reference class; .*labels="):
        modules[name].compute(references=references, predictions=predictions)
    with pytest.raises(ValueError, match=r"^judges\['short'\]: expected labels among the references' classes"):
        modules[name].compute(references=references, judges={"long": references, "short": predictions})


@pytest.mark.parametrize("name", NAMES)
def test_likert_predictions_on_a_binary_golden_set_are_refused(modules, name):
    references, judges = golden_set()
    with pytest.raises(ValueError, match=r"^predictions: expected labels of the golden set's 2 classes \[0, 1\], found 5 distinct "
                                         r"values \[1, 2, 3, 4, 5\], 4 of them no reference class \(\[2, 3, 4, 5\]\); map the labels to the "
                                         r"references' values, or pass labels=\[\.\.\.\] .*; for scores, "):
        modules[name].compute(references=references, predictions=judges["likert"])


def test_one_class_absent_from_the_golden_set_still_warns_as_before(modules):
    # A single predicted value outside the golden set (a typo, a class it lacks) is warned, as scikit-learn does.
    with pytest.warns(UserWarning, match=r"^Recall is undefined for class 2"):
        modules["balanced_accuracy"].compute(references=[0, 0, 1, 1], predictions=[0, 2, 1, 1])
    # Declared classes are the user's: labels= makes a judge's classes the golden set lacks legitimate.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = modules["balanced_accuracy"].compute(references=[0, 0, 1, 1], predictions=[0, 2, 3, 1], labels=[0, 1, 2, 3])
    assert result["balanced_accuracy"] == 0.5


@pytest.mark.parametrize("name", NAMES)
def test_a_one_class_golden_set_ranks_nothing(modules, name):
    with pytest.warns(UserWarning, match=r"^judges: the golden set's references are all of one class \(1\); no judge is ranked"):
        result = modules[name].compute(references=[1] * 10, judges={"yes": [1] * 10, "mixed": [0, 1] * 5}, confidence_level=0.95)
    assert result["best_judges"] == [] and result["reason"] == "one_reference_class"
    assert math.isnan(result[name]) and all(math.isnan(end) for end in result[f"{name}_ci"])
    for entry in result["judge_ranking"]:
        assert math.isnan(entry[name]) and all(math.isnan(end) for end in entry[f"{name}_ci"]) and not entry["in_best_set"]
    assert [entry["name"] for entry in result["judge_ranking"]] == ["yes", "mixed"]  # no order claimed: as given


def test_threshold_mapping_without_judges_is_refused(modules):
    with pytest.raises(ValueError, match=r"^threshold: a mapping from judges' names to thresholds applies to judges="):
        modules["balanced_accuracy"].compute(references=[0, 1, 1, 0], predictions=[0.1, 0.8, 0.7, 0.4], threshold={"a": 0.5})
    with pytest.raises(ValueError, match=r"^threshold: informedness turns scores into labels only for two or more judges"):
        modules["informedness"].compute(references=[0, 1, 1, 0], predictions=[0, 1, 1, 0], threshold=0.5)
    with pytest.raises(ValueError, match=r"^threshold: informedness .* Found threshold=\{'a': 0\.5\} without judges\.$"):
        modules["informedness"].compute(references=[0, 1, 1, 0], predictions=[0.1, 0.8, 0.7, 0.4], threshold={"a": 0.5})


@pytest.mark.parametrize("name", NAMES)
def test_threshold_names_that_are_not_judges_are_refused_naming_them(modules, name):
    references, judges = golden_set()
    with pytest.raises(ValueError, match=r"^threshold: expected judges' names as its keys \(\['labels', 'likert', 'probability'\]\), "
                                         r"found \['likret'\]"):
        modules[name].compute(references=references, judges=judges, threshold={"likret": 3.5, "probability": "auto"})


@pytest.mark.parametrize("name", NAMES)
def test_string_labels_beside_score_judges_are_refused_saying_what_to_pass(modules, name):
    """threshold="auto" for all reaches a judge's labels only when they are outside the golden
    classes: the fix is to map them (was: "leave this judge out of the threshold mapping", with no mapping)."""
    references, judges = golden_set()
    judges["words"] = np.where(judges["labels"] == 1, "yes", "no")
    with pytest.raises(TypeError, match=r"^judges\['words'\]: expected numeric scores with threshold='auto', found labels "
                                        r"such as \['no', 'yes'\]; labels must be the golden set's classes \[0, 1\]: map them"):
        modules[name].compute(references=references, judges=judges, threshold="auto")
    with pytest.raises(TypeError, match=r"found labels such as \['no', 'yes'\]; leave this judge out of the threshold mapping"):
        modules[name].compute(references=references, judges=judges, threshold={"likert": "auto", "probability": "auto", "words": 0.5})


@pytest.mark.parametrize("name", NAMES)
def test_nan_in_a_judges_scores_is_refused_naming_it(modules, name):
    references, judges = golden_set()
    judges["probability"] = judges["probability"].copy()
    judges["probability"][3] = np.nan
    with pytest.raises(ValueError, match=r"^judges\['probability'\]: .*(NaN|nan)"):
        modules[name].compute(references=references, judges=judges, threshold="auto")


@pytest.mark.parametrize("name", NAMES)
def test_scores_on_a_multiclass_golden_set_are_refused(modules, name):
    rng = np.random.default_rng(1)
    references = rng.integers(0, 3, 60)
    with pytest.raises(ValueError, match=r"^judges\['score'\]: scores \(values .*\) need a binary golden set, found references of 3 classes"):
        modules[name].compute(references=references, judges={"labels": references, "score": rng.random(60)}, threshold="auto")


# ---------------------------------------------------------------- thresholds


@pytest.mark.parametrize("name", NAMES)
def test_a_number_for_all_thresholds_every_score_judge_and_keeps_labels(modules, name):
    references, judges = golden_set(2)
    result = modules[name].compute(references=references, judges={"labels": judges["labels"], "likert": judges["likert"]}, threshold=3.5)
    entries = {entry["name"]: entry for entry in result["judge_ranking"]}
    assert entries["likert"][name] == pytest.approx(value(name, references, judges["likert"] >= 3.5), abs=1e-12)
    assert entries["labels"][name] == pytest.approx(value(name, references, judges["labels"]), abs=1e-12)
    assert entries["likert"]["threshold"] == 3.5 and "threshold" not in entries["labels"]


@pytest.mark.parametrize("name", NAMES)
def test_a_mapping_gives_each_judge_its_threshold(modules, name):
    references, judges = golden_set(3)
    result = modules[name].compute(references=references, judges=judges, threshold={"likert": 2.5, "probability": 0.6})
    entries = {entry["name"]: entry for entry in result["judge_ranking"]}
    assert entries["likert"][name] == pytest.approx(value(name, references, judges["likert"] >= 2.5), abs=1e-12)
    assert entries["probability"][name] == pytest.approx(value(name, references, judges["probability"] >= 0.6), abs=1e-12)


def test_auto_reports_the_cut_a_single_call_finds_and_a_cross_fitted_value(modules):
    references, judges = golden_set(4)
    metric = modules["balanced_accuracy"]
    result = metric.compute(references=references, judges=judges, threshold={"likert": "auto", "probability": "auto"},
                            confidence_level=0.95)
    entries = {entry["name"]: entry for entry in result["judge_ranking"]}
    for judge in ("likert", "probability"):
        alone = metric.compute(references=references, predictions=judges[judge].astype(float), threshold="auto")
        assert entries[judge]["optimal_threshold"] == alone["optimal_threshold"]
        # Cross-fitted: no item tuned its own label, so no better than the in-sample optimum.
        assert entries[judge]["balanced_accuracy"] <= alone["balanced_accuracy"] + 1e-12
        low, high = entries[judge]["balanced_accuracy_ci"]
        assert low < entries[judge]["balanced_accuracy"] < high
    assert "cross-fitted" in result["judge_ranking_method"]


def test_a_noise_judge_with_many_scores_is_at_chance_not_above(modules):
    """Cut in-sample, a judge of pure noise with 80 distinct scores looks better than chance (about 0.57
    on golden sets of 80); cross-fitted, its mean over 200 golden sets is at most 0.52."""
    metric = modules["balanced_accuracy"]
    rng = np.random.default_rng(7)
    cross_fitted, in_sample = [], []
    for _ in range(200):
        references = (rng.random(80) < 0.3).astype(np.int64)
        references[:2] = [0, 1]
        noise = rng.random(80)
        result = metric.compute(references=references, judges={"labels": references, "noise": noise}, threshold="auto")
        cross_fitted.append(result["judge_ranking"][1]["balanced_accuracy"])
        in_sample.append(metric.compute(references=references, predictions=noise, threshold="auto")["balanced_accuracy"])
    assert np.mean(cross_fitted) <= 0.52 < np.mean(in_sample)


def test_adding_batches_of_score_judges_gives_the_one_call_result(modules):
    references, judges = golden_set(5)
    metric = modules["balanced_accuracy"]
    once = metric.compute(references=references, judges=judges, threshold="auto", confidence_level=0.95)
    for half in (slice(0, 37), slice(37, None)):
        metric.add_batch(references=references[half], judges={judge: values[half] for judge, values in judges.items()})
    assert metric.compute(threshold="auto", confidence_level=0.95) == once


def test_a_threshold_after_batches_of_integer_labels_says_when_to_pass_it(modules):
    from conftest import load_module

    references, judges = golden_set(6)
    integers = {"labels": judges["labels"], "likert": judges["likert"]}
    metric = modules["balanced_accuracy"]
    metric.add_batch(references=references, judges=integers)
    with pytest.raises(ValueError, match=r"^threshold: the judges' batches were counted as labels .* pass threshold at "
                                         r"evaluate\.load\(\.\.\., threshold=\.\.\.\)"):
        metric.compute(threshold=3.5)
    with pytest.warns(UserWarning, match=r"^judges\['likert'\]: Recall is undefined for class 2, 3, 4, 5"):
        metric.compute(threshold=None, labels=[0, 1, 2, 3, 4, 5])  # declared classes: legitimate; empties the stored batches
    loaded = load_module("balanced_accuracy", threshold=3.5)
    loaded.add_batch(references=references, judges=integers)
    assert loaded.compute() == metric.compute(references=references, judges=integers, threshold=3.5)


def test_auto_folds_keep_clusters_whole_and_give_intervals(modules):
    references, judges = golden_set(8, size=120)
    clusters = np.repeat(np.arange(30), 4)
    result = modules["balanced_accuracy"].compute(references=references, judges=judges, threshold="auto", clusters=clusters,
                                                  confidence_level=0.95)
    assert result["num_clusters"] == 30
    assert all(len(entry["balanced_accuracy_ci"]) == 2 for entry in result["judge_ranking"])


def test_scores_against_string_references_need_the_positive_class(modules):
    references, judges = golden_set(9)
    words = np.where(references == 1, "bad", "good")
    labels = np.where(judges["labels"] == 1, "bad", "good")
    metric = modules["balanced_accuracy"]
    with pytest.raises(ValueError, match=r"^judges\['likert'\]: scores are of the positive class, which references \['bad', 'good'\] "
                                         r"do not name; pass pos_label"):
        metric.compute(references=words, judges={"labels": labels, "likert": judges["likert"]}, threshold=3.5)
    result = metric.compute(references=words, judges={"labels": labels, "likert": judges["likert"]}, threshold=3.5, pos_label="bad")
    entries = {entry["name"]: entry for entry in result["judge_ranking"]}
    assert entries["likert"]["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(references, judges["likert"] >= 3.5), abs=1e-12)
