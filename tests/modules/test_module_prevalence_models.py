"""Several models through one judge: ``unlabeled_predictions`` as a mapping of models.

Checked against today's one-model calls (a one-model mapping is ``unlabeled_predictions``
itself; two models' difference is ``unlabeled_baseline_predictions``' difference), against
the Rogan-Gladen formula by hand, SciPy's chi-square test of homogeneity and Holm's
adjustment written out here, and for streaming and two processes against one call.
"""

import json
import math

import numpy as np
import pytest
from scipy.stats import chi2_contingency
from sklearn.metrics import confusion_matrix

from shared.judges import prevalence
from shared.judges import prevalence_models
from conftest import REPO_ROOT
from processes import run_distributed


@pytest.fixture(scope="module")
def metric():
    from conftest import load_module

    return load_module("informedness")


def judge_data(rng, size, prevalence_gold, tpr, fpr):
    references = (rng.random(size) < prevalence_gold).astype(int)
    predictions = np.where(references == 1, rng.random(size) < tpr, rng.random(size) < fpr).astype(int)
    return references, predictions


def judged(rng, size, prevalence_true, tpr, fpr):
    truth = (rng.random(size) < prevalence_true).astype(int)
    return np.where(truth == 1, rng.random(size) < tpr, rng.random(size) < fpr).astype(int)


def golden_and_models(seed=1, gold_size=600, sizes=(1500, 1200, 900), truths=(0.3, 0.15, 0.05), tpr=0.85, fpr=0.1):
    rng = np.random.default_rng(seed)
    references, predictions = judge_data(rng, gold_size, 0.3, tpr, fpr)
    models = {f"model_{i}": judged(rng, size, truth, tpr, fpr) for i, (size, truth) in enumerate(zip(sizes, truths))}
    return references, predictions, models


SINGLE_KEYS = ("corrected_prevalence", "corrected_prevalence_ci", "corrected_prevalence_ci_reason", "corrected_prevalence_reason",
               "corrected_prevalence_clipped", "measured_prevalence")


@pytest.mark.parametrize("options", [
    {"confidence_level": 0.95, "seed": 3, "n_resamples": 2000},
    {"confidence_level": 0.9, "seed": 1, "n_resamples": 1000, "ci_method": "bootstrap"},
    {},
])
def test_one_model_mapping_is_todays_single_call_exactly(metric, options):
    references, predictions, models = golden_and_models(gold_size=120)
    labels = models["model_0"]
    today = metric.compute(references=references, predictions=predictions, unlabeled_predictions=labels, **options)
    mapped = metric.compute(references=references, predictions=predictions, unlabeled_predictions={"only": labels}, **options)
    (entry,) = mapped["model_prevalences"]
    assert entry["name"] == "only" and mapped["prevalence_differences"] == []
    for key in SINGLE_KEYS:
        assert entry.get(key, "absent") == today.get(key, "absent"), key
    for key in ("corrected_prevalence_ci_method", "corrected_prevalence_class", "informedness", "informedness_ci"):
        assert mapped.get(key, "absent") == today.get(key, "absent"), key
    if options.get("confidence_level"):
        assert mapped["prevalence_marginal_level"] == options["confidence_level"]


def test_one_model_mapping_is_todays_call_with_three_classes(metric):
    rng = np.random.default_rng(5)
    references = rng.choice(3, 400, p=[0.5, 0.3, 0.2])
    predictions = np.where(rng.random(400) < 0.8, references, rng.integers(0, 3, 400))
    labels = rng.choice(3, 1000, p=[0.4, 0.4, 0.2])
    options = {"confidence_level": 0.95, "seed": 0, "n_resamples": 1000}
    today = metric.compute(references=references, predictions=predictions, unlabeled_predictions=labels, **options)
    (entry,) = metric.compute(references=references, predictions=predictions, unlabeled_predictions={"m": labels},
                              **options)["model_prevalences"]
    for key in SINGLE_KEYS:
        assert entry.get(key, "absent") == today.get(key, "absent"), key


@pytest.mark.parametrize("options", [{}, {"confidence_level": 0.95}, {"confidence_level": 0.9, "clusters": np.arange(60) // 3}])
def test_one_model_mapping_with_ppi_is_todays_single_ppi_call_exactly(metric, options):
    """One model: a golden set can be a random sample of its outputs, so PPI++ is today's call (60 golden items: the
    point estimate, its interval refused as too few; with clusters refused as PPI++ takes golden items as independent)."""
    rng = np.random.default_rng(0)
    references = rng.integers(0, 2, 60)
    predictions = np.where(rng.random(60) < 0.8, references, 1 - references)
    labels = rng.integers(0, 2, 300)
    today = metric.compute(references=references, predictions=predictions, unlabeled_predictions=labels,
                           prevalence_method="ppi", **options)
    mapped = metric.compute(references=references, predictions=predictions, unlabeled_predictions={"m": labels},
                            prevalence_method="ppi", **options)
    (entry,) = mapped["model_prevalences"]
    assert entry["name"] == "m" and mapped["prevalence_differences"] == []
    for key in SINGLE_KEYS:  # repr: exactly the same floats, NaN equal to NaN
        assert repr(entry.get(key, "absent")) == repr(today.get(key, "absent")), key
    for key in ("corrected_prevalence_ci_method", "corrected_prevalence_class", "informedness", "num_clusters"):
        assert repr(mapped.get(key, "absent")) == repr(today.get(key, "absent")), key
    from ppi_py import ppi_mean_pointestimate

    y, yhat, new = references.astype(float), predictions.astype(float), labels.astype(float)
    expected = float(np.squeeze(ppi_mean_pointestimate(y, yhat, new)))
    assert entry["corrected_prevalence"] == pytest.approx(expected, abs=1e-9)
    if options.get("confidence_level"):
        assert mapped["prevalence_marginal_level"] == options["confidence_level"]


def test_one_model_mapping_with_ppi_gives_ppi_pythons_interval(metric):
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

    rng = np.random.default_rng(4)
    truth = rng.random(3400) < 0.3  # the golden set a random sample of the model's outputs
    judge = np.where(truth, rng.random(truth.size) < 0.75, rng.random(truth.size) < 0.15).astype(int)
    references, predictions, labels = truth[:400].astype(int), judge[:400], judge[400:]
    mapped = metric.compute(references=references, predictions=predictions, unlabeled_predictions={"m": labels},
                            prevalence_method="ppi", confidence_level=0.9)
    (entry,) = mapped["model_prevalences"]
    y, yhat, new = references.astype(float), predictions.astype(float), labels.astype(float)
    assert entry["corrected_prevalence"] == pytest.approx(float(np.squeeze(ppi_mean_pointestimate(y, yhat, new))), abs=1e-9)
    low, high = ppi_mean_ci(y, yhat, new, alpha=0.1)
    assert entry["corrected_prevalence_ci"] == pytest.approx([float(np.squeeze(low)), float(np.squeeze(high))], abs=1e-9)
    assert mapped["corrected_prevalence_ci_method"] == "ppi"


def test_two_models_difference_is_todays_baseline_difference(metric):
    references, predictions, models = golden_and_models()
    first, second = models["model_0"], models["model_1"]
    options = {"confidence_level": 0.95, "seed": 7, "n_resamples": 2000}
    today = metric.compute(references=references, predictions=predictions, unlabeled_predictions=first,
                           unlabeled_baseline_predictions=second, **options)
    mapped = metric.compute(references=references, predictions=predictions, unlabeled_predictions={"a": first, "b": second},
                            **options)
    (pair,) = mapped["prevalence_differences"]
    assert pair["models"] == ["a", "b"]
    for key in ("corrected_prevalence_difference", "corrected_prevalence_difference_ci", "corrected_prevalence_difference_clipped"):
        assert pair[key] == today[key], key
    tpr, fpr = predictions[references == 1].mean(), predictions[references == 0].mean()
    assert pair["corrected_prevalence_difference"] == pytest.approx((first.mean() - second.mean()) / (tpr - fpr), abs=1e-12)
    # The baseline's own corrected prevalence (today's call now returns it): Rogan-Gladen by hand.
    assert today["baseline_corrected_prevalence"] == pytest.approx((second.mean() - fpr) / (tpr - fpr), abs=1e-12)
    assert today["baseline_measured_prevalence"] == pytest.approx(second.mean(), abs=1e-15)
    alone = metric.compute(references=references, predictions=predictions, unlabeled_predictions=second, **options)
    assert today["baseline_corrected_prevalence_ci"] == alone["corrected_prevalence_ci"]


def test_each_model_is_rogan_gladen_by_hand_and_the_p_values_are_scipys_chi_square_adjusted_by_holm(metric):
    references, predictions, models = golden_and_models(truths=(0.3, 0.28, 0.05))
    result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=models)
    tpr, fpr = predictions[references == 1].mean(), predictions[references == 0].mean()
    for entry, labels in zip(result["model_prevalences"], models.values()):
        assert entry["corrected_prevalence"] == pytest.approx(min(max((labels.mean() - fpr) / (tpr - fpr), 0.0), 1.0), abs=1e-12)
        assert entry["measured_prevalence"] == pytest.approx(labels.mean(), abs=1e-15)
    names = list(models)
    assert [pair["models"] for pair in result["prevalence_differences"]] == [[names[0], names[1]], [names[0], names[2]],
                                                                            [names[1], names[2]]]
    raw = []
    for first, second in ([0, 1], [0, 2], [1, 2]):
        table = [np.bincount(models[names[first]], minlength=2), np.bincount(models[names[second]], minlength=2)]
        raw.append(chi2_contingency(table, correction=False)[1])
    order = np.argsort(raw)
    holm, running = [0.0] * 3, 0.0
    for rank, index in enumerate(order):  # Holm's step-down, written out
        running = max(running, min(1.0, (3 - rank) * raw[index]))
        holm[index] = running
    assert [pair["p_value"] for pair in result["prevalence_differences"]] == pytest.approx(holm, rel=1e-9)
    assert result["prevalence_differences"][0]["p_value"] > 0.05 > result["prevalence_differences"][1]["p_value"]


def test_reference_model_compares_each_other_model_with_it(metric):
    references, predictions, models = golden_and_models()
    result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=models,
                            reference_model="model_1", confidence_level=0.95, seed=0, n_resamples=1000)
    assert [pair["models"] for pair in result["prevalence_differences"]] == [["model_0", "model_1"], ["model_2", "model_1"]]
    values = {entry["name"]: entry["corrected_prevalence"] for entry in result["model_prevalences"]}
    assert result["prevalence_differences"][1]["corrected_prevalence_difference"] == pytest.approx(
        values["model_2"] - values["model_1"], abs=1e-12)


def test_simultaneous_intervals_hold_the_marginal_ones_and_are_wider(metric):
    """Lee's interval (a golden set that pins J down) is deterministic: each model's simultaneous
    interval is its one-model interval at the family's marginal level, above the nominal one."""
    references, predictions, models = golden_and_models(gold_size=2000)
    options = {"confidence_level": 0.95, "seed": 0, "n_resamples": 2000}
    result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=models, **options)
    assert result["corrected_prevalence_ci_method"] == "lee"
    level = result["prevalence_marginal_level"]
    assert 0.95 < level <= 1 - 0.05 / 3 + 1e-12
    gold = confusion_matrix(references, predictions)
    for entry, labels in zip(result["model_prevalences"], models.values()):
        counts = np.bincount(labels, minlength=2)
        marginal = prevalence.corrected_prevalence(gold, counts, confidence_level=0.95)["interval"]
        at_level = prevalence.corrected_prevalence(gold, counts, confidence_level=level)["interval"]
        low, high = entry["corrected_prevalence_ci"]
        assert (low, high) == pytest.approx(tuple(at_level), abs=1e-12)
        assert low < marginal[0] and high > marginal[1]
    assert 0.95 < result["prevalence_difference_marginal_level"] <= 1 - 0.05 / 3 + 1e-12


def test_simultaneous_level_between_the_level_and_bonferroni():
    rng = np.random.default_rng(0)
    independent = rng.standard_normal((40000, 4))
    level = float(prevalence_models.simultaneous_level(independent, np.zeros(40000, bool), 0.9))
    assert level == pytest.approx(0.9 ** 0.25, abs=0.003)  # Sidak for independent components
    shared = np.repeat(rng.standard_normal((40000, 1)), 4, axis=1) + 1e-9 * rng.standard_normal((40000, 4))
    assert float(prevalence_models.simultaneous_level(shared, np.zeros(40000, bool), 0.9)) == pytest.approx(0.9, abs=0.003)


def test_streamed_mapping_equals_one_call(load):
    references, predictions, models = golden_and_models(sizes=(700, 500, 300))
    options = {"confidence_level": 0.95, "n_resamples": 500, "seed": 2, "reference_model": "model_2"}
    one = load("informedness").compute(references=references, predictions=predictions, unlabeled_predictions=models, **options)
    streamed = load("informedness")
    streamed.add_batch(unlabeled_predictions={"model_0": models["model_0"][:300]})  # one model's labels alone
    streamed.add_batch(references=references[:250], predictions=predictions[:250],
                       unlabeled_predictions={"model_1": models["model_1"], "model_0": models["model_0"][300:600]})
    streamed.add_batch(references=references[250:], predictions=predictions[250:])
    result = streamed.compute(unlabeled_predictions={"model_0": models["model_0"][600:], "model_2": models["model_2"]}, **options)
    assert result == one


def test_two_processes_equal_one_process(tmp_path):
    from conftest import load_module

    references, predictions, models = golden_and_models(gold_size=301, sizes=(503, 207, 120))
    unaligned = {"unlabeled_predictions": {name: labels.tolist() for name, labels in models.items()}}
    kwargs = {"confidence_level": 0.95, "n_resamples": 500, "seed": 4}
    case = {"id": "models", "folder": str(REPO_ROOT / "informedness"), "references": references.tolist(),
            "predictions": predictions.tolist(), "unaligned": unaligned, "kwargs": kwargs}
    single = load_module("informedness", cache_dir=str(tmp_path / "single")).compute(
        references=case["references"], predictions=case["predictions"], **unaligned, **kwargs)
    process_0, process_1 = run_distributed([case], 2, tmp_path)
    assert json.dumps(process_0["models"], sort_keys=True) == json.dumps(single, sort_keys=True)
    assert process_1["models"] is None and len(single["prevalence_differences"]) == 3


def test_a_golden_set_that_cannot_tell_the_judge_from_chance_says_so(metric):
    """J = 0.1 on 40 golden items: the interval spans [0, 1] and says why, for one model and several."""
    references = [0] * 20 + [1] * 20
    predictions = [0] * 12 + [1] * 8 + [0] * 10 + [1] * 10  # TPR 0.5, FPR 0.4
    labels = [0] * 550 + [1] * 450
    one = metric.compute(references=references, predictions=predictions, unlabeled_predictions=labels,
                         confidence_level=0.95, seed=0, n_resamples=2000)
    assert one["corrected_prevalence_ci"] == [0.0, 1.0]
    assert one["corrected_prevalence_ci_reason"] == "judge_not_told_from_chance"
    several = metric.compute(references=references, predictions=predictions, confidence_level=0.95, seed=0, n_resamples=2000,
                             unlabeled_predictions={"a": labels, "b": [0] * 600 + [1] * 400})
    for entry in several["model_prevalences"]:
        assert entry["corrected_prevalence_ci"] == [0.0, 1.0]
        assert entry["corrected_prevalence_ci_reason"] == "judge_not_told_from_chance"
    (pair,) = several["prevalence_differences"]
    assert pair["corrected_prevalence_difference_ci"] == [-1.0, 1.0]
    assert pair["corrected_prevalence_difference_ci_reason"] == "judge_not_told_from_chance"
    # The card names that reason and the keys it is under (the top level, or each model's entry).
    card = (REPO_ROOT / "informedness" / "README.md").read_text(encoding="utf-8").split("### Corrected prevalence", 1)[1]
    sentence = card[card.index("A [0, 1] interval"):].split(".", 1)[0]
    for words in ('"judge_not_told_from_chance"', "`corrected_prevalence_ci_reason`", "`model_prevalences`"):
        assert words in sentence, words


def test_a_refused_judge_refuses_every_model_and_pair(metric):
    result = metric.compute(references=[0, 0, 1, 1], predictions=[0, 1, 0, 1], confidence_level=0.95,
                            unlabeled_predictions={"a": [0, 1, 1], "b": [0, 0, 1]})
    assert all(math.isnan(entry["corrected_prevalence"]) and entry["corrected_prevalence_reason"] == "informedness_too_small"
               for entry in result["model_prevalences"])
    (pair,) = result["prevalence_differences"]
    assert pair["corrected_prevalence_difference_reason"] == "informedness_too_small" and math.isnan(pair["p_value"])


@pytest.mark.parametrize("inputs, error, match", [
    ({"unlabeled_predictions": {}}, ValueError, r"unlabeled_predictions: expected a mapping .* found an empty mapping"),
    ({"unlabeled_predictions": {1: [0, 1]}}, TypeError, r"unlabeled_predictions: expected model names that are non-empty strings, found 1"),
    ({"unlabeled_predictions": {"gpt": [0, 1], "GPT ": [1, 1]}}, ValueError,
     r"unlabeled_predictions: expected distinct model names, found 'gpt' and 'GPT '"),
    ({"unlabeled_predictions": {"a": [0, 1]}, "unlabeled_baseline_predictions": [0, 1]}, ValueError,
     r"unlabeled_baseline_predictions: expected it with one model's unlabeled_predictions, found unlabeled_predictions as a mapping"),
    ({"unlabeled_predictions": {"a": [0, 1]}, "reference_model": "b"}, ValueError,
     r"reference_model: expected one of the models in unlabeled_predictions \['a'\], found 'b'"),
    ({"unlabeled_predictions": [0, 1], "reference_model": "b"}, ValueError,
     r"reference_model: expected it with unlabeled_predictions as a mapping of models"),
    ({"unlabeled_predictions": {"a": [0, 1]}, "reference_model": 3}, TypeError, r"reference_model: expected the name"),
    ({"unlabeled_predictions": {"a": [0, 1], "b": [1, 1]}, "prevalence_method": "ppi"}, ValueError,
     r"prevalence_method: 'ppi' .* found unlabeled_predictions as a mapping of 2 models"),
    ({"unlabeled_predictions": {"a": [0, 7]}, "prevalence_method": "ppi"}, ValueError, r"unlabeled_predictions\['a'\]"),
    ({"unlabeled_predictions": {"a": [0, 1]}, "prevalence_method": "ppi", "reference_model": "b"}, ValueError,
     r"reference_model: expected one of the models in unlabeled_predictions \['a'\], found 'b'"),
    ({"unlabeled_predictions": {"a": [0, 7]}}, ValueError, r"unlabeled_predictions\['a'\]"),
])
def test_bad_mapping_input_names_the_argument(metric, inputs, error, match):
    with pytest.raises(error, match=match):
        metric.compute(references=[0, 0, 1, 1], predictions=[0, 1, 1, 1], **inputs)


def test_a_mapping_in_one_batch_and_one_models_labels_in_another_is_refused(load):
    streamed = load("informedness")
    streamed.add_batch(references=[0, 1, 1], predictions=[0, 1, 0], unlabeled_predictions={"a": [0, 1]})
    streamed.add_batch(unlabeled_predictions=[1, 1])
    with pytest.raises(ValueError, match="unlabeled_predictions: expected one form in every batch"):
        streamed.compute()


@pytest.mark.parametrize("name", ["unlabeled_predictions", "unlabeled_baseline_predictions", "prevalence_method", "groups"])
def test_balanced_accuracy_names_the_informedness_module_for_a_prevalence_argument(load, name):
    metric = load("balanced_accuracy")
    with pytest.raises(TypeError, match=rf"{name}: expected an argument of balanced_accuracy .* `{name}` is an argument of the "
                                        r"informedness module \(evaluate.load\(\"informedness\"\)\)"):
        metric.compute(predictions=[0, 1], references=[0, 1], **{name: [0, 1]})
    with pytest.raises(ValueError, match=rf"`{name}` is an argument of the informedness module"):
        metric.add_batch(predictions=[0, 1], references=[0, 1], **{name: [0, 1]})


def test_balanced_accuracy_card_lists_no_prevalence_input():
    card = (REPO_ROOT / "balanced_accuracy" / "README.md").read_text(encoding="utf-8")
    inputs = card.split("### Inputs", 1)[1].split("### Output Values", 1)[0]
    for name in ("unlabeled_predictions", "unlabeled_baseline_predictions", "prevalence_method", "groups"):
        assert f"`{name}`" not in inputs, name
    assert "`informedness` module" in inputs


def test_three_classes_each_model_is_its_own_call_and_each_class_at_the_models_bonferroni_level(metric):
    rng = np.random.default_rng(5)
    references = rng.choice(3, 400, p=[0.5, 0.3, 0.2])
    predictions = np.where(rng.random(400) < 0.8, references, rng.integers(0, 3, 400))
    models = {"a": rng.choice(3, 1000, p=[0.4, 0.4, 0.2]), "b": rng.choice(3, 800, p=[0.6, 0.2, 0.2])}
    result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=models,
                            confidence_level=0.9, seed=0, n_resamples=1000)
    assert result["prevalence_marginal_level"] == pytest.approx(1 - 0.1 / 2) and result["corrected_prevalence_ci_method"] == "bootstrap"
    for entry, labels in zip(result["model_prevalences"], models.values()):
        alone = metric.compute(references=references, predictions=predictions, unlabeled_predictions=labels)
        assert entry["corrected_prevalence"] == alone["corrected_prevalence"]
        assert all(low <= value <= high for value, (low, high) in zip(entry["corrected_prevalence"], entry["corrected_prevalence_ci"]))
    (pair,) = result["prevalence_differences"]
    assert pair["corrected_prevalence_difference"] == pytest.approx(
        np.subtract(result["model_prevalences"][0]["corrected_prevalence"], result["model_prevalences"][1]["corrected_prevalence"]),
        abs=1e-12)


def test_the_prevalence_page_quotes_the_several_models_study():
    """docs/prevalence.md's figures are studies/prevalence_models/results.md's, written by its named
    command; the default covers 0.93 in every cell, family-wise, for the prevalences and the differences."""
    import re

    text = (REPO_ROOT / "studies" / "prevalence_models" / "results.md").read_text(encoding="utf-8")
    command = text.split("```", 2)[1].strip()
    assert command.startswith("OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/prevalence_models/study.py")
    summary = text.split("## Summary", 1)[1].split("## Every cell", 1)[0]
    rows = {(cells[0], cells[1]): cells for cells in ([cell.strip() for cell in line.strip().strip("|").split("|")]
                                                      for line in summary.splitlines() if line.startswith("| prevalences")
                                                      or line.startswith("| differences"))}
    fwer = re.search(r"was at most ([\d.]+) over the (\d+) cells", summary).group(1)
    page = " ".join((REPO_ROOT / "docs" / "prevalence.md").read_text(encoding="utf-8").split())
    assert command in page
    prevalences, differences = rows[("prevalences", "bonferroni")], rows[("differences", "bonferroni")]
    assert float(prevalences[3]) >= 0.93 and float(differences[3]) >= 0.93 and prevalences[4] == differences[4] == "0"
    assert (f"the default's family-wise coverage was {prevalences[3]} or more for the prevalences and {differences[3]} or "
            f"more for the differences, in every one of the {prevalences[2]} cells") in page
    low_p, low_d = rows[("prevalences", "min_p")], rows[("differences", "min_p")]
    below = int(low_p[4]) + int(low_d[4])
    assert (f"the min-P level's fell to {low_p[3]} (prevalences) and {low_d[3]} (differences), "
            f"{below} cell{'' if below == 1 else 's'} below 0.93, at mean widths {low_p[6]} and {low_d[6]} against the "
            f"default's {prevalences[6]} and {differences[6]}") in page
    assert f"at most {fwer} with every difference 0" in page


@pytest.fixture(scope="module")
def informedness_app():
    from conftest import run_app

    return run_app("informedness")


def test_space_takes_a_mapping_of_models_and_says_each_ones_corrected_prevalence(informedness_app, metric):
    from conftest import app_controls, space_helper

    references, predictions = [0] * 20 + [1] * 10, [0] * 18 + [1] * 2 + [0] * 2 + [1] * 8  # TPR 0.8, FPR 0.1
    options = {"unlabeled_predictions": {"a": [1] * 7 + [0] * 13, "b": [1] * 3 + [0] * 17}, "reference_model": "b",
               "confidence_level": 0.95, "seed": 0}
    space_app = space_helper(informedness_app)
    controls = app_controls(informedness_app, metric)
    (shown,) = space_app.example_rows(controls, [[json.dumps(predictions), json.dumps(references), json.dumps(options)]])
    page = space_app.compute_page(metric, controls, informedness_app["PLOTS"], "paste", shown[0], shown[1],
                                  None, shown[2:])
    assert page.ok, page.message
    expected = metric.compute(predictions=predictions, references=references, **options)
    assert json.loads(page.result_json) == json.loads(json.dumps(expected))
    first, second = expected["model_prevalences"]
    assert first["corrected_prevalence"] == pytest.approx((0.35 - 0.1) / 0.7, abs=1e-12)
    low, high = first["corrected_prevalence_ci"]
    assert (f"Corrected prevalence per model (the intervals hold together): a {first['corrected_prevalence']:.4f} "
            f"[{low:.4f}, {high:.4f}]; b {second['corrected_prevalence']:.4f}") in page.message
