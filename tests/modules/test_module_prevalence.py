"""The informedness module's corrected prevalence, its difference and the per-group diagnostics.

The statistics themselves are tested in test_prevalence.py. Here the module's results are
compared with ``shared/prevalence.py`` called on counts built independently (NumPy's
``bincount``/``add.at`` and scikit-learn's ``confusion_matrix``), with the Rogan-Gladen
formula by hand, with scikit-learn's recall per group and SciPy's chi-square test.
"""

import json
import math
import re

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix
from sklearn.metrics import recall_score

from shared.judges import prevalence
from shared.metrics import informedness as informedness_metric
from conftest import app_controls, space_helper, REPO_ROOT
from processes import run_distributed



@pytest.fixture(scope="module")
def metric():
    from conftest import load_module

    return load_module("informedness")


def judge_data(rng, size, prevalence_gold, tpr, fpr):
    references = (rng.random(size) < prevalence_gold).astype(int)
    predictions = np.where(references == 1, rng.random(size) < tpr, rng.random(size) < fpr).astype(int)
    return references, predictions


def unlabeled_data(rng, size, prevalence_true, tpr, fpr):
    truth = (rng.random(size) < prevalence_true).astype(int)
    return np.where(truth == 1, rng.random(size) < tpr, rng.random(size) < fpr).astype(int)


# ---------------------------------------------------------------- binary: Rogan-Gladen by hand


def test_binary_rogan_gladen_by_hand_and_equal_to_prevalence_on_sklearn_counts(metric):
    rng = np.random.default_rng(1)
    references, predictions = judge_data(rng, 2000, 0.3, 0.85, 0.1)
    judged = unlabeled_data(rng, 5000, 0.2, 0.85, 0.1)
    result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged,
                            confidence_level=0.9, n_resamples=2000, seed=3)
    tpr = predictions[references == 1].mean()
    fpr = predictions[references == 0].mean()
    q = judged.mean()
    assert result["corrected_prevalence"] == pytest.approx((q - fpr) / (tpr - fpr), abs=1e-12)
    assert result["measured_prevalence"] == pytest.approx(q, abs=1e-15)
    assert result["corrected_prevalence_clipped"] is False and "corrected_prevalence_reason" not in result
    expected = prevalence.corrected_prevalence(confusion_matrix(references, predictions), np.bincount(judged, minlength=2),
                                               confidence_level=0.9, n_resamples=2000, seed=3)
    assert result["corrected_prevalence"] == expected["estimate"]
    assert result["corrected_prevalence_ci"] == expected["interval"]
    low, high = result["corrected_prevalence_ci"]
    assert 0 <= low < result["corrected_prevalence"] < high <= 1


def test_binary_difference_is_delta_q_over_j(metric):
    rng = np.random.default_rng(2)
    references, predictions = judge_data(rng, 1500, 0.4, 0.8, 0.15)
    first = unlabeled_data(rng, 3000, 0.3, 0.8, 0.15)
    second = unlabeled_data(rng, 2000, 0.2, 0.8, 0.15)
    result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=first,
                            unlabeled_baseline_predictions=second, confidence_level=0.95, n_resamples=1000, seed=0)
    j = predictions[references == 1].mean() - predictions[references == 0].mean()
    assert result["corrected_prevalence_difference"] == pytest.approx((first.mean() - second.mean()) / j, abs=1e-12)
    expected = prevalence.corrected_prevalence_difference(
        confusion_matrix(references, predictions), np.bincount(first, minlength=2), np.bincount(second, minlength=2),
        confidence_level=0.95, n_resamples=1000, seed=0)
    assert result["corrected_prevalence_difference_ci"] == expected["interval"]
    assert result["corrected_prevalence_difference_clipped"] is False


# ---------------------------------------------------------------- multi-class, options


def three_class_data(rng, gold_size=1200, unlabeled_size=4000):
    rates = np.array([[0.85, 0.10, 0.05], [0.15, 0.75, 0.10], [0.10, 0.20, 0.70]])
    references = rng.choice(3, size=gold_size, p=[0.5, 0.3, 0.2])
    predictions = np.array([rng.choice(3, p=rates[r]) for r in references])
    truth = rng.choice(3, size=unlabeled_size, p=[0.6, 0.25, 0.15])
    judged = np.array([rng.choice(3, p=rates[t]) for t in truth])
    return references, predictions, judged


def test_multiclass_equals_prevalence_on_independent_counts_and_solves_the_system(metric):
    rng = np.random.default_rng(4)
    references, predictions, judged = three_class_data(rng)
    result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged,
                            confidence_level=0.95, n_resamples=500, seed=1)
    gold = np.zeros((3, 3), dtype=np.int64)
    np.add.at(gold, (references, predictions), 1)
    expected = prevalence.corrected_prevalence(gold, np.bincount(judged, minlength=3), confidence_level=0.95,
                                               n_resamples=500, seed=1)
    assert result["corrected_prevalence"] == expected["estimate"]
    assert result["corrected_prevalence_ci"] == expected["interval"]
    # Adjusted classify and count: C^T p = q, C the row-normalised confusion (inside the simplex here).
    rates = gold / gold.sum(axis=1, keepdims=True)
    solved = np.linalg.solve(rates.T, np.bincount(judged, minlength=3) / judged.size)
    assert (solved > 0).all()
    assert result["corrected_prevalence"] == pytest.approx(solved.tolist(), abs=1e-12)
    assert sum(result["corrected_prevalence"]) == pytest.approx(1.0)
    assert len(result["corrected_prevalence_ci"]) == 3 and all(len(pair) == 2 for pair in result["corrected_prevalence_ci"])


def test_confusion_matrix_with_unlabeled_predictions_equals_prevalence_on_it(metric):
    gold = [[300, 20, 10], [30, 150, 20], [5, 15, 80]]
    judged = ["a"] * 400 + ["b"] * 350 + ["c"] * 250
    result = metric.compute(confusion_matrix=gold, labels=["a", "b", "c"], unlabeled_predictions=judged,
                            unlabeled_baseline_predictions=["a"] * 600 + ["b"] * 300 + ["c"] * 100,
                            confidence_level=0.9, n_resamples=500, seed=5)
    expected = prevalence.corrected_prevalence(gold, [400, 350, 250], confidence_level=0.9, n_resamples=500, seed=5)
    assert result["corrected_prevalence"] == expected["estimate"]
    assert result["corrected_prevalence_ci"] == expected["interval"]
    difference = prevalence.corrected_prevalence_difference(gold, [400, 350, 250], [600, 300, 100], confidence_level=0.9,
                                                            n_resamples=500, seed=5)
    assert result["corrected_prevalence_difference"] == difference["estimate"]
    assert result["corrected_prevalence_difference_ci"] == difference["interval"]
    with pytest.raises(ValueError, match="confusion_matrix: expected counts instead of samples"):
        metric.compute(confusion_matrix=gold, groups=[0, 1])


def test_string_labels_with_pos_label_match_the_0_1_labels(metric):
    """Issue 33: two string labels name their positive class with pos_label (it was the second
    class, "unsafe" sorting after "safe", or labels[1]; test_first_hour.py has the error without it)."""
    rng = np.random.default_rng(5)
    references, predictions = judge_data(rng, 800, 0.3, 0.9, 0.1)
    judged = unlabeled_data(rng, 1000, 0.25, 0.9, 0.1)
    words = np.array(["safe", "unsafe"])
    numeric = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged)
    named = metric.compute(references=words[references], predictions=words[predictions], unlabeled_predictions=words[judged],
                           pos_label="unsafe")
    assert named["corrected_prevalence"] == numeric["corrected_prevalence"]  # "unsafe" is 1
    reordered = metric.compute(references=words[references], predictions=words[predictions],
                               unlabeled_predictions=words[judged], labels=["unsafe", "safe"], pos_label="safe")
    assert reordered["corrected_prevalence"] == pytest.approx(1.0 - numeric["corrected_prevalence"], abs=1e-12)


def test_ignore_index_drops_gold_pairs_and_unlabeled_labels(metric):
    rng = np.random.default_rng(6)
    references, predictions = judge_data(rng, 600, 0.3, 0.85, 0.1)
    judged = unlabeled_data(rng, 900, 0.2, 0.85, 0.1)
    padded_references = np.concatenate([references, [-100] * 7])
    padded_predictions = np.concatenate([predictions, [1] * 7])
    padded_judged = np.concatenate([judged, [-100] * 11])
    padded = metric.compute(references=padded_references, predictions=padded_predictions, unlabeled_predictions=padded_judged,
                            ignore_index=-100, confidence_level=0.95, n_resamples=300, seed=0)
    plain = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged,
                           confidence_level=0.95, n_resamples=300, seed=0)
    assert padded == plain


def test_sample_weight_weighs_the_golden_set_only(metric):
    rng = np.random.default_rng(7)
    references, predictions = judge_data(rng, 700, 0.3, 0.85, 0.1)
    judged = unlabeled_data(rng, 900, 0.2, 0.85, 0.1)
    weights = rng.uniform(0.5, 2.0, references.size)
    result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged,
                            sample_weight=weights, confidence_level=0.95, n_resamples=300, seed=0)
    positive, negative = references == 1, references == 0
    tpr = np.sum(weights[positive] * predictions[positive]) / weights[positive].sum()
    fpr = np.sum(weights[negative] * predictions[negative]) / weights[negative].sum()
    assert result["corrected_prevalence"] == pytest.approx((judged.mean() - fpr) / (tpr - fpr), abs=1e-12)
    low, high = result["corrected_prevalence_ci"]
    assert low < result["corrected_prevalence"] < high
    # Equal weights: Kish's effective size is the count, so the interval is the unweighted one.
    equal = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged,
                           sample_weight=np.full(references.size, 2.5), confidence_level=0.95, n_resamples=300, seed=0)
    unweighted = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged,
                                confidence_level=0.95, n_resamples=300, seed=0)
    assert equal["corrected_prevalence"] == pytest.approx(unweighted["corrected_prevalence"], abs=1e-12)
    assert equal["corrected_prevalence_ci"] == pytest.approx(unweighted["corrected_prevalence_ci"], abs=1e-9)


def test_labels_with_a_class_absent_from_the_golden_set(metric):
    result = metric.compute(references=[0, 0, 1, 1], predictions=[0, 0, 1, 1], unlabeled_predictions=[0, 1, 2],
                            labels=[0, 1, 2], confidence_level=0.95)
    assert all(math.isnan(value) for value in result["corrected_prevalence"])
    assert result["corrected_prevalence_reason"] == "class_without_golden_references"
    assert all(math.isnan(x) for pair in result["corrected_prevalence_ci"] for x in pair)


# ---------------------------------------------------------------- which class is corrected (issue 26)


def test_pass_fail_labels_name_the_corrected_class_and_pos_label_chooses_it(metric):
    """Issue 26: with "pass"/"fail" the output was the prevalence of "pass" (the second sorted
    class) without saying so, and pos_label was refused."""
    rng = np.random.default_rng(14)
    references, predictions = judge_data(rng, 900, 0.35, 0.85, 0.1)
    judged = unlabeled_data(rng, 1500, 0.25, 0.85, 0.1)
    words = np.array(["fail", "pass"])  # 1 = "pass"
    options = {"unlabeled_predictions": words[judged], "confidence_level": 0.95}
    # Issue 33: two labels other than 0/1 need pos_label (the old default, the second sorted class, is now explicit).
    default = metric.compute(references=words[references], predictions=words[predictions], pos_label="pass", **options)
    assert default["corrected_prevalence_class"] == "pass"
    tpr, fpr = predictions[references == 1].mean(), predictions[references == 0].mean()
    assert default["corrected_prevalence"] == pytest.approx((judged.mean() - fpr) / (tpr - fpr), abs=1e-12)
    chosen = metric.compute(references=words[references], predictions=words[predictions], pos_label="fail", **options)
    assert chosen["corrected_prevalence_class"] == "fail"
    # The prevalence of "fail" by hand: its TPR is "pass"'s TNR, and so on.
    tpr_fail, fpr_fail = 1 - fpr, 1 - tpr
    assert chosen["corrected_prevalence"] == pytest.approx((1 - judged.mean() - fpr_fail) / (tpr_fail - fpr_fail), abs=1e-12)
    assert chosen["corrected_prevalence"] == pytest.approx(1 - default["corrected_prevalence"], abs=1e-12)
    low, high = default["corrected_prevalence_ci"]
    assert chosen["corrected_prevalence_ci"] == pytest.approx([1 - high, 1 - low], abs=1e-12)  # Lee's interval mirrors
    assert chosen["informedness"] == default["informedness"] and chosen["informedness_ci"] == default["informedness_ci"]
    assert chosen["measured_prevalence"] == pytest.approx(1 - default["measured_prevalence"], abs=1e-15)
    # At load time too, and with labels in another order.
    loaded = load_module_with(pos_label="fail").compute(references=words[references], predictions=words[predictions], **options)
    assert loaded == chosen
    ordered = metric.compute(references=words[references], predictions=words[predictions], labels=["pass", "fail"],
                             pos_label="fail", **options)
    assert ordered["corrected_prevalence"] == chosen["corrected_prevalence"]


def load_module_with(**options):
    from conftest import load_module

    return load_module("informedness", **options)


def test_pos_label_gives_the_per_group_rates_of_that_class(metric):
    rng = np.random.default_rng(15)
    references, predictions = judge_data(rng, 600, 0.4, 0.8, 0.15)
    groups = rng.choice(["a", "b"], size=references.size)
    words = np.array(["fail", "pass"])
    result = metric.compute(references=words[references], predictions=words[predictions], groups=groups, pos_label="fail")
    for name in ("a", "b"):
        mine = groups == name
        found = result["per_group"][name]
        assert found["tpr"] == pytest.approx(recall_score(words[references[mine]], words[predictions[mine]], pos_label="fail"))
        assert found["fpr"] == pytest.approx(1 - recall_score(words[references[mine]], words[predictions[mine]], pos_label="pass"))
        assert found["support"] == [int((references[mine] == 0).sum()), int((references[mine] == 1).sum())]  # class order


def test_pos_label_is_validated_and_applies_to_two_classes(metric):
    with pytest.raises(TypeError, match="pos_label: expected one label value"):
        metric.compute(references=[0, 1], predictions=[0, 1], pos_label=[1])
    with pytest.raises(ValueError, match=r"pos_label: expected one of the labels \['fail', 'pass'\], found 'maybe'"):
        metric.compute(references=["fail", "pass"], predictions=["fail", "pass"], labels=["fail", "pass"], pos_label="maybe")
    with pytest.raises(ValueError, match="pos_label: applies to two classes, found 3"):
        metric.compute(references=[0, 1, 2], predictions=[0, 1, 2], pos_label=2)
    # Informedness itself does not depend on it.
    references, predictions = [0, 0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 1, 2, 0]
    two = ([r % 2 for r in references], [p % 2 for p in predictions])
    assert metric.compute(references=two[0], predictions=two[1], pos_label=0) == metric.compute(references=two[0], predictions=two[1])


# ---------------------------------------------------------------- PPI++ (prevalence_method="ppi")


def ppi_python(references, predictions, unlabeled, classes, level):
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

    found = []
    for value in classes:
        y, yhat, new = (np.asarray(a) == value for a in (references, predictions, unlabeled))
        estimate = float(np.squeeze(ppi_mean_pointestimate(y.astype(float), yhat.astype(float), new.astype(float))))
        low, high = ppi_mean_ci(y.astype(float), yhat.astype(float), new.astype(float), alpha=1 - level)
        found.append((estimate, [float(np.squeeze(low)), float(np.squeeze(high))]))
    return found


def test_ppi_equals_ppi_python_on_the_modules_labels(metric):
    rng = np.random.default_rng(16)
    # Binary, string labels, the golden set a random sample of the new data (prevalence 0.3).
    truth = rng.random(4200) < 0.3
    judge = np.where(truth, rng.random(truth.size) < 0.7, rng.random(truth.size) < 0.2)
    words = np.array(["safe", "unsafe"])
    references, predictions, judged = words[truth[:200].astype(int)], words[judge[:200].astype(int)], words[judge[200:].astype(int)]
    result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged,
                            prevalence_method="ppi", confidence_level=0.9, pos_label="unsafe")  # issue 33: named, not the default
    ((estimate, interval),) = ppi_python(references, predictions, judged, ["unsafe"], 0.9)
    assert result["corrected_prevalence"] == pytest.approx(estimate, abs=1e-9)
    assert result["corrected_prevalence_ci"] == pytest.approx(interval, abs=1e-9)
    assert result["corrected_prevalence_class"] == "unsafe" and "corrected_prevalence_reason" not in result
    flipped = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged,
                             prevalence_method="ppi", confidence_level=0.9, pos_label="safe")
    ((estimate, interval),) = ppi_python(references, predictions, judged, ["safe"], 0.9)
    assert flipped["corrected_prevalence"] == pytest.approx(estimate, abs=1e-9)
    assert flipped["corrected_prevalence_ci"] == pytest.approx(interval, abs=1e-9)
    # Three classes: one-vs-rest per class.
    references, predictions, judged = three_class_data(rng, 300, 3000)
    truth = rng.choice(3, size=3000, p=[0.5, 0.3, 0.2])  # the golden set's prior: i.i.d. with the new data
    rates = np.array([[0.85, 0.10, 0.05], [0.15, 0.75, 0.10], [0.10, 0.20, 0.70]])
    judged = np.array([rng.choice(3, p=rates[t]) for t in truth])
    result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged,
                            prevalence_method="ppi", confidence_level=0.95)
    expected = ppi_python(references, predictions, judged, [0, 1, 2], 0.95)
    assert result["corrected_prevalence"] == pytest.approx([e for e, _ in expected], abs=1e-9)
    for found, (_, interval) in zip(result["corrected_prevalence_ci"], expected):
        assert found == pytest.approx(interval, abs=1e-9)


def test_ppi_refuses_combinations_where_its_assumption_cannot_hold(metric):
    references, predictions = [0] * 60 + [1] * 40, [0] * 55 + [1] * 5 + [0] * 8 + [1] * 32
    with pytest.raises(ValueError, match="prevalence_method: 'ppi' .* unlabeled_baseline_predictions"):
        metric.compute(references=references, predictions=predictions, unlabeled_predictions=[0, 1] * 50,
                       unlabeled_baseline_predictions=[0, 1] * 50, prevalence_method="ppi")
    with pytest.raises(ValueError, match="prevalence_method: 'ppi' .* sample_weight"):
        metric.compute(references=references, predictions=predictions, unlabeled_predictions=[0, 1] * 50,
                       sample_weight=[1.0] * 100, prevalence_method="ppi")
    # Prior shift: the judge flags 37% of the golden set and 90% of the new data.
    result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=[1] * 900 + [0] * 100,
                            prevalence_method="ppi", confidence_level=0.95)
    assert result["corrected_prevalence_reason"] == "golden_set_unlike_unlabeled_data"
    assert math.isnan(result["corrected_prevalence"]) and all(math.isnan(x) for x in result["corrected_prevalence_ci"])


def test_the_interval_given_is_named_and_follows_the_default_rule(metric):
    """``corrected_prevalence_ci_method``: Lee's interval where the golden set pins J down
    (Lee's README shares: smoothed J 0.59, 15 standard errors), the smoothed bootstrap where
    it does not (a weak judge on 5 golden positives), each equal to that method asked for."""
    from shared.judges import prevalence

    cases = (([0] * 200 + [1] * 200, [0] * 140 + [1] * 60 + [0] * 20 + [1] * 180, [0] * 600 + [1] * 400, "lee"),
             ([0] * 95 + [1] * 5, [0] * 66 + [1] * 29 + [0] * 2 + [1] * 3, [0] * 600 + [1] * 400, "bootstrap"))
    for references, predictions, judged, method in cases:
        result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged,
                                confidence_level=0.95, seed=3)
        assert result["corrected_prevalence_ci_method"] == method
        confusion = np.zeros((2, 2))
        np.add.at(confusion, (references, predictions), 1)
        expected = prevalence.corrected_prevalence(confusion, np.bincount(judged), confidence_level=0.95, seed=3, method=method)
        assert result["corrected_prevalence_ci"] == pytest.approx(expected["interval"], abs=1e-12)
    asked = metric.compute(references=cases[1][0], predictions=cases[1][1], unlabeled_predictions=cases[1][2],
                           confidence_level=0.95, seed=3, ci_method="bootstrap")
    assert asked["corrected_prevalence_ci_method"] == "bootstrap"
    ppi = metric.compute(references=cases[0][0], predictions=cases[0][1], unlabeled_predictions=[0] * 650 + [1] * 350,
                         confidence_level=0.95, prevalence_method="ppi")
    assert ppi["corrected_prevalence_ci_method"] == "ppi"


def test_prevalence_method_is_validated_first_naming_the_allowed_values(metric):
    with pytest.raises(ValueError, match=r"prevalence_method: expected one of \('rogan_gladen', 'ppi'\), found 'bayes'"):
        metric.compute(references=[0, 1, 2], predictions=[0.5], prevalence_method="bayes")  # bad data too: the option first
    with pytest.raises(ValueError, match="prevalence_method: expected one of"):
        load_module_with(prevalence_method="PPI")


# ---------------------------------------------------------------- the key assumption (issue 26)


def test_the_key_assumption_is_stated_where_the_feature_is_introduced_and_groups_check_it(metric):
    """Issue 26: the judge errs more on the new data (FPR 2% on the golden set, 12% on the new
    responses) and the correction is wrong with a narrow interval. The README says so with
    this case and points to `groups`, whose test flags it."""
    references = [0] * 900 + [1] * 100
    predictions = [0] * 882 + [1] * 18 + [0] * 15 + [1] * 85  # TPR 0.85, FPR 0.02
    # 2,000 new responses, 106 unsafe (0.053): 90 of them flagged and 227 of the 1,894 safe (FPR 0.12).
    judged = [1] * (90 + 227) + [0] * (2000 - 317)
    result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged, confidence_level=0.95)
    low, high = result["corrected_prevalence_ci"]
    assert result["corrected_prevalence"] == pytest.approx((317 / 2000 - 0.02) / 0.83, abs=1e-12)
    assert low > 0.053 * 2  # far from the truth, and sure of it
    readme = (REPO_ROOT / "docs" / "choosing-a-judge.md").read_text(encoding="utf-8")  # the README's judge page
    assert f"gives {result['corrected_prevalence']:.3f}\n[{low:.3f}, {high:.3f}] for a true 0.053" in readme
    assert "**Its key assumption: the judge errs on the new responses as it did on the golden set**" in readme
    # The check the README points to: 200 new responses labelled too, as a group of their own.
    checked = metric.compute(references=references + [0] * 189 + [1] * 11,
                             predictions=predictions + [0] * 166 + [1] * 23 + [0] * 2 + [1] * 9,
                             groups=["golden"] * 1000 + ["new"] * 200)
    assert checked["per_group"]["golden"]["fpr"] == pytest.approx(0.02)
    assert checked["per_group"]["new"]["fpr"] == pytest.approx(23 / 189)
    assert checked["group_heterogeneity_p_value"] < 1e-8 and "p = 2·10⁻¹⁰" in readme
    card = card_section("informedness", "## Corrected prevalence from a judge's labels")
    assert "class-conditional rates" in card and "random sample of the new data" in card


# ---------------------------------------------------------------- refusals


def test_uninformed_judge_gives_nan_with_a_reason(metric):
    # TPR = FPR = 0.5: J = 0.
    result = metric.compute(references=[0, 0, 1, 1], predictions=[0, 1, 0, 1], unlabeled_predictions=[0, 1, 1],
                            confidence_level=0.95)
    assert math.isnan(result["corrected_prevalence"])
    assert result["corrected_prevalence_reason"] == "informedness_too_small"
    assert all(math.isnan(x) for x in result["corrected_prevalence_ci"])


def test_one_rule_a_label_swapped_judge_is_corrected_with_a_warning_binary_and_multiclass(metric):
    """Issue 24: binary J = -0.75 was refused (judge_not_informed) while a 3-class judge with two
    labels swapped was corrected. Now both are corrected, both warn, and each equals the judge
    with its labels swapped back."""
    rng = np.random.default_rng(13)
    references, predictions = judge_data(rng, 800, 0.3, 0.85, 0.1)
    judged = unlabeled_data(rng, 2000, 0.25, 0.85, 0.1)
    with pytest.warns(UserWarning, match="looks label-swapped"):
        swapped = metric.compute(references=references, predictions=1 - predictions, unlabeled_predictions=1 - judged,
                                 confidence_level=0.95)
    straight = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged,
                              confidence_level=0.95)
    assert swapped["informedness"] == pytest.approx(-straight["informedness"], abs=1e-12)
    assert swapped["corrected_prevalence"] == pytest.approx(straight["corrected_prevalence"], abs=1e-12)
    assert swapped["corrected_prevalence_ci"] == pytest.approx(straight["corrected_prevalence_ci"], abs=1e-12)
    references, predictions, judged = three_class_data(rng, 900, 3000)
    swap = np.array([0, 2, 1])
    with pytest.warns(UserWarning, match="looks label-swapped"):
        swapped = metric.compute(references=references, predictions=swap[predictions], unlabeled_predictions=swap[judged])
    straight = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged)
    assert swapped["corrected_prevalence"] == pytest.approx(straight["corrected_prevalence"], abs=1e-12)


def test_tiny_informedness_is_refused_not_blown_up(metric):
    # TPR 52/100, FPR 50/100: J = 0.02 <= 0.05; q = 0.9 would give (0.9 - 0.5) / 0.02 = 20.
    references = [0] * 100 + [1] * 100
    predictions = [0] * 50 + [1] * 50 + [0] * 48 + [1] * 52
    result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=[1] * 9 + [0])
    assert math.isnan(result["corrected_prevalence"]) and result["corrected_prevalence_reason"] == "informedness_too_small"


def test_unknown_unlabeled_label_is_a_value_error_naming_it(metric):
    with pytest.raises(ValueError, match=r"unlabeled_predictions: expected values among the classes \[0, 1\].*found unknown value\(s\) \[2\]"):
        metric.compute(references=[0, 1, 1, 0], predictions=[0, 1, 0, 0], unlabeled_predictions=[0, 1, 2])
    # pos_label: two string labels need it (issue 33), before their unknown labels are looked up.
    with pytest.raises(ValueError, match="unlabeled_baseline_predictions: expected values among"):
        metric.compute(references=["a", "b"], predictions=["a", "b"], unlabeled_predictions=["a"],
                       unlabeled_baseline_predictions=["c"], pos_label="b")
    with pytest.raises(ValueError, match="unlabeled_predictions: expected values among"):
        metric.compute(references=["a", "b"], predictions=["a", "b"], unlabeled_predictions=[0, 1], pos_label="b")
    with pytest.raises(ValueError, match="unlabeled_predictions: expected class labels"):
        metric.compute(references=[0, 1], predictions=[0, 1], unlabeled_predictions=[0.3, 0.7])


def test_no_unlabeled_labels_left_measure_nothing(metric):
    result = metric.compute(references=[0, 1, 1, 0], predictions=[0, 1, 1, 0], unlabeled_predictions=[-100, -100],
                            ignore_index=-100)
    assert result["corrected_prevalence_reason"] == "no_unlabeled_predictions"
    assert math.isnan(result["corrected_prevalence"]) and math.isnan(result["measured_prevalence"])


def test_baseline_without_unlabeled_predictions_is_refused(metric):
    with pytest.raises(ValueError, match="unlabeled_baseline_predictions: expected unlabeled_predictions too"):
        metric.compute(references=[0, 1], predictions=[0, 1], unlabeled_baseline_predictions=[0, 1])


# ---------------------------------------------------------------- streaming


def test_streamed_batches_equal_one_call(load):
    rng = np.random.default_rng(8)
    references, predictions = judge_data(rng, 900, 0.3, 0.85, 0.1)
    judged = unlabeled_data(rng, 1300, 0.2, 0.85, 0.1)
    baseline = unlabeled_data(rng, 700, 0.1, 0.85, 0.1)
    groups = rng.choice(["m1", "m2", "m3"], size=references.size)
    options = {"confidence_level": 0.95, "n_resamples": 400, "seed": 2}
    one = load("informedness").compute(references=references, predictions=predictions, unlabeled_predictions=judged,
                                       unlabeled_baseline_predictions=baseline, groups=groups, **options)
    streamed = load("informedness")
    streamed.add_batch(unlabeled_predictions=judged[:500])  # unlabeled labels alone
    streamed.add_batch(references=references[:400], predictions=predictions[:400], groups=groups[:400])  # gold alone
    streamed.add_batch(references=references[400:], predictions=predictions[400:], groups=groups[400:],
                       unlabeled_predictions=judged[500:1000], unlabeled_baseline_predictions=baseline[:300])  # both
    streamed.add_batch(unlabeled_baseline_predictions=baseline[300:])
    # The last unlabeled labels given to compute, after the batches.
    assert streamed.compute(unlabeled_predictions=judged[1000:], **options) == one
    assert one["corrected_prevalence_difference"] == pytest.approx(
        (judged.mean() - baseline.mean()) / (predictions[references == 1].mean() - predictions[references == 0].mean()), abs=1e-12)


def test_add_one_sample_takes_unlabeled_labels_as_a_list(load):
    references, predictions = [0, 0, 1, 1, 0, 1], [0, 1, 1, 1, 0, 0]
    one_by_one = load("informedness")
    for index, (reference, prediction) in enumerate(zip(references, predictions)):
        extra = {"unlabeled_predictions": [1, 0, 0, 0, 1]} if index == 2 else {}
        one_by_one.add(reference=reference, prediction=prediction, groups="g" + str(index % 2), **extra)
    at_once = load("informedness").compute(references=references, predictions=predictions, unlabeled_predictions=[1, 0, 0, 0, 1],
                                           groups=["g0", "g1"] * 3)
    assert one_by_one.compute() == at_once
    assert at_once["corrected_prevalence"] == pytest.approx((0.4 - 1 / 3) / (2 / 3 - 1 / 3), abs=1e-12)


def test_aligned_inputs_alone_at_compute_and_groups_missing_from_a_batch_are_refused(load):
    metric = load("informedness")
    metric.add_batch(references=[0, 1, 1], predictions=[0, 1, 0])
    with pytest.raises(ValueError, match="groups: pass it with its batch"):
        metric.compute(groups=["a", "b", "a"])
    metric.add_batch(references=[0, 1], predictions=[0, 1], groups=["a", "b"])
    with pytest.raises(ValueError, match="groups: expected one group id per golden-set sample, with every batch or with none; found 2 group ids for 5"):
        metric.compute()
    with pytest.raises(ValueError, match="groups: expected one group id per sample"):
        load("informedness").compute(references=[0, 1], predictions=[0, 1], groups=["a"])
    with pytest.raises(ValueError, match="groups: .*sample_weight"):
        load("informedness").compute(references=[0, 1], predictions=[0, 1], groups=["a", "b"], sample_weight=[1, 2])


def test_results_are_plain_python(metric):
    rng = np.random.default_rng(9)
    references, predictions, judged = three_class_data(rng, 300, 400)
    result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged,
                            unlabeled_baseline_predictions=judged[:200], groups=references % 2, confidence_level=0.9,
                            n_resamples=200, seed=0)

    def plain(value):
        if isinstance(value, dict):
            return all(isinstance(key, (str, int)) and plain(item) for key, item in value.items())
        if isinstance(value, list):
            return all(plain(item) for item in value)
        return type(value) in (int, float, str, bool, type(None))

    assert plain(result)
    json.dumps(result)


# ---------------------------------------------------------------- groups


def test_per_group_rates_equal_sklearn_recall_per_group_and_the_chi_square_test_scipy(metric):
    from scipy.stats import chi2
    from scipy.stats import chi2_contingency

    rng = np.random.default_rng(10)
    references, predictions = judge_data(rng, 1200, 0.35, 0.85, 0.1)
    groups = rng.choice(["alpha", "beta", "gamma"], size=references.size)
    # The judge prefers "gamma": it misses more of its positives.
    gamma_positive = (groups == "gamma") & (references == 1)
    predictions = np.where(gamma_positive & (rng.random(references.size) < 0.3), 0, predictions)
    result = metric.compute(references=references, predictions=predictions, groups=groups)
    assert list(result["per_group"]) == ["alpha", "beta", "gamma"]
    statistic, dof = 0.0, 0
    for name in ("alpha", "beta", "gamma"):
        mine = groups == name
        found = result["per_group"][name]
        assert found["support"] == np.bincount(references[mine], minlength=2).tolist()
        tpr = recall_score(references[mine], predictions[mine], pos_label=1)
        tnr = recall_score(references[mine], predictions[mine], pos_label=0)
        assert found["tpr"] == pytest.approx(tpr, abs=1e-12)
        assert found["fpr"] == pytest.approx(1 - tnr, abs=1e-12)
        assert found["informedness"] == pytest.approx(tpr + tnr - 1, abs=1e-12)
    for reference_class in (0, 1):
        rows = [np.bincount(predictions[(groups == name) & (references == reference_class)], minlength=2)
                for name in ("alpha", "beta", "gamma")]
        found_statistic, _, found_dof, _ = chi2_contingency(np.array(rows), correction=False)
        statistic += found_statistic
        dof += found_dof
    assert result["group_heterogeneity_p_value"] == pytest.approx(chi2.sf(statistic, dof), rel=1e-9)
    assert result["group_heterogeneity_p_value"] < 0.01


def test_per_group_multiclass_recall_equals_sklearn(metric):
    rng = np.random.default_rng(11)
    references, predictions, _ = three_class_data(rng, 900, 10)
    groups = rng.integers(0, 2, references.size)
    result = metric.compute(references=references, predictions=predictions, groups=groups, confidence_level=0.95,
                            n_resamples=200, seed=0)
    for group in (0, 1):
        mine = groups == group
        expected = recall_score(references[mine], predictions[mine], average=None, labels=[0, 1, 2])
        assert result["per_group"][group]["recall"] == pytest.approx(expected.tolist(), abs=1e-12)
        low, high = result["per_group"][group]["informedness_ci"]
        assert low <= result["per_group"][group]["informedness"] <= high
    assert 0.0 <= result["group_heterogeneity_p_value"] <= 1.0


@pytest.mark.parametrize("num_classes", [2, 3, 4])
@pytest.mark.parametrize("ci_method", [None, "delta", "bootstrap"])
def test_per_group_interval_is_the_whole_set_interval_of_the_groups_items(metric, num_classes, ci_method):
    # Each group's informedness_ci is what the module gives that group's items alone with the same
    # options (bookmaker, the default average): the score interval by default for any K, no bootstrap
    # unless asked for. Groups of 30-100 items, one class of 3 items in each.
    rng = np.random.default_rng(40 + num_classes)
    references, predictions, groups = [], [], []
    for group, size in enumerate((30, 55, 100)):
        classes = np.concatenate([np.arange(num_classes - 1).repeat((size - 3) // (num_classes - 1) + 1)[: size - 3],
                                  np.full(3, num_classes - 1)])
        judged = np.where(rng.random(size) < 0.93, classes, rng.integers(0, num_classes, size))
        references.append(classes), predictions.append(judged), groups.append(np.full(size, f"g{group}"))
    references, predictions, groups = (np.concatenate(parts) for parts in (references, predictions, groups))
    options = dict(confidence_level=0.95, n_resamples=300, seed=4)
    if ci_method is not None:
        options["ci_method"] = ci_method
    if num_classes == 2:
        options["pos_label"] = 1
    result = metric.compute(references=references, predictions=predictions, groups=groups, **options)
    for group in ("g0", "g1", "g2"):
        mine = groups == group
        alone = metric.compute(references=references[mine], predictions=predictions[mine], labels=list(range(num_classes)),
                               **options)
        assert result["per_group"][group]["informedness"] == pytest.approx(alone["informedness"], abs=1e-12)
        if ci_method == "bootstrap":  # the module's seed goes to each group's bootstrap alike
            low, high = result["per_group"][group]["informedness_ci"]
            assert low <= alone["informedness"] <= high
            continue
        assert result["per_group"][group]["informedness_ci"] == pytest.approx(alone["informedness_ci"], abs=1e-12)
        if ci_method is None:
            matrix = confusion_matrix(references[mine], predictions[mine], labels=list(range(num_classes)))
            assert alone["informedness_ci"] == pytest.approx(
                informedness_metric.informedness_score_interval(matrix, confidence_level=0.95).as_list(), abs=1e-12)


def test_one_group_has_no_heterogeneity_test(metric):
    result = metric.compute(references=[0, 1, 1, 0], predictions=[0, 1, 0, 0], groups=["a"] * 4)
    assert math.isnan(result["group_heterogeneity_p_value"])
    assert result["group_heterogeneity_reason"] == "fewer_than_two_groups_with_items_of_a_class"


# ---------------------------------------------------------------- distributed


def test_two_processes_equal_one_process(tmp_path):
    from conftest import load_module

    rng = np.random.default_rng(12)
    references, predictions = judge_data(rng, 301, 0.3, 0.85, 0.1)
    groups = rng.choice(["m1", "m2"], size=references.size).tolist()
    unlabeled = {"unlabeled_predictions": unlabeled_data(rng, 503, 0.2, 0.85, 0.1).tolist(),
                 "unlabeled_baseline_predictions": unlabeled_data(rng, 207, 0.1, 0.85, 0.1).tolist()}
    kwargs = {"confidence_level": 0.95, "n_resamples": 500, "seed": 4}
    case = {"id": "prevalence", "folder": str(REPO_ROOT / "informedness"), "references": references.tolist(),
            "predictions": predictions.tolist(), "inputs": {"groups": groups}, "unaligned": unlabeled, "kwargs": kwargs}
    single = load_module("informedness", cache_dir=str(tmp_path / "single")).compute(
        references=case["references"], predictions=case["predictions"], groups=groups, **unlabeled, **kwargs)
    process_0, process_1 = run_distributed([case], 2, tmp_path)
    assert json.dumps(process_0["prevalence"], sort_keys=True) == json.dumps(single, sort_keys=True)
    assert process_1["prevalence"] is None
    assert "corrected_prevalence_difference_ci" in single and set(single["per_group"]) == {"m1", "m2"}


# ---------------------------------------------------------------- the cards


def card_section(name, heading):
    """The section under ``heading`` (its subsections included) in the card or a docs/ page it links to
    (docs/prevalence.md for the informedness card)."""
    from conftest import card_and_linked_pages

    text = card_and_linked_pages(name)
    start = text.index(heading)
    level = len(heading) - len(heading.lstrip("#"))
    following = re.search(rf"\n#{{2,{level}}} ", text[start + len(heading):])  # the next heading of its level or above (not "# " comments)
    return text[start:start + len(heading) + following.start() if following else None]


@pytest.mark.parametrize("heading", ["## Corrected prevalence from a judge's labels", "## Judge diagnostics per group"])
def test_informedness_card_examples_are_exact_doctests(metric, heading):
    import doctest

    section = card_section("informedness", heading)
    blocks = "\n".join(block.split("```", 1)[0] for block in section.split("```python")[1:])
    test = doctest.DocTestParser().get_doctest(blocks, {"metric": metric, "nan": math.nan}, heading, None, 0)
    assert len(test.examples) >= 5
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def study_rows():
    """The study's full table as {(judge, J, golden -> new, golden n): {method: (coverage, width, refused)}}."""
    study = (REPO_ROOT / "studies" / "prevalence_prior_shift" / "results.md").read_text(encoding="utf-8")
    table = study.split("## Full table", 1)[1]
    lines = [line for line in table.splitlines() if line.startswith("| ")]
    methods = [cell.strip() for cell in lines[0].strip("|").split("|")][5:]
    rows = {}
    for line in lines[1:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        found = {}
        for method, cell in zip(methods, cells[5:]):
            if cell == "–":
                continue
            coverage, width, refused = (part.strip() for part in cell.split("/"))
            found[method] = (None if coverage == "–" else float(coverage.split("±")[0]),
                             None if width == "–" else float(width), float(refused))
        rows[(cells[0], cells[1], cells[2], int(cells[4].replace(",", "")))] = found
    return rows


def test_informedness_card_states_the_rule_and_the_studys_figures():
    section = card_section("informedness", "## Corrected prevalence from a judge's labels")
    assert f"|J| ≤ {prevalence.DEFAULT_MIN_INFORMEDNESS}" in section
    study = (REPO_ROOT / "studies" / "prevalence_prior_shift" / "results.md").read_text(encoding="utf-8")
    command = "OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/prevalence_prior_shift/study.py"
    assert f"Written by `{command}` on " in study and "studies/prevalence_prior_shift/study.py" in section
    minutes = re.search(r"Written by `[^`]+` on [\d-]+ \(([\d.]+) min\)", study).group(1)
    assert f"({minutes} min of wall time" in section  # the run time the card quotes is the results file's
    rows = study_rows()
    assert len(rows) == 63

    def coverages(method, keep=lambda key: True):
        return [found[method][0] for key, found in rows.items() if method in found and found[method][0] is not None and keep(key)]

    default = coverages("default")
    assert len(default) == 54 and f"all 54 binary settings ({min(default):.3f}–{max(default):.3f})" in section
    assert min(default) >= 0.93  # issue 24: the binary default covers across the prior-shift grid
    ppi_iid = coverages("ppi", lambda key: key[0] == "binary" and key[2] in ("0.05 → 0.05", "0.3 → 0.3"))
    assert f"covered {min(ppi_iid):.3f}–{max(ppi_iid):.3f} on i.i.d. data wherever it gave an interval" in section
    assert min(ppi_iid) >= 0.93
    boot = coverages("bootstrap")
    assert len(boot) == 63 and f"all 63 settings ({min(boot):.3f}–{max(boot):.3f})" in section
    shift_up = lambda key: key[0] == "binary" and key[2] in ("0.05 → 0.5", "0.03 → 0.3")  # noqa: E731
    weak = coverages("lee", lambda key: shift_up(key) and key[1] == "0.2")
    assert f"{min(weak):.3f}–{max(weak):.3f} for J = 0.2" in section
    others = coverages("lee", lambda key: key[0] == "binary" and not shift_up(key))
    assert f"setting ({min(others):.3f}–{max(others):.3f})" in section
    strong = coverages("lee", lambda key: shift_up(key) and key[1] != "0.2")
    assert f"J ≥ 0.5 ({min(strong):.3f}–{max(strong):.3f})" in section
    refused_rule = coverages("lee_if_J_excludes_0", lambda key: shift_up(key) and key[1] == "0.2")
    assert f"covered {min(refused_rule):.3f}–{max(refused_rule):.3f}, worse" in section
    multinomial = [coverages("multinomial", lambda key, kind=kind: key[0] == kind) for kind in ("binary", "3-class")]
    assert f"fell to {min(multinomial[0]):.3f} (binary) and {min(multinomial[1]):.3f} (3 classes)" in section
    # The card's table: the study's golden sets of 300, cell for cell.
    table = section.split("| J | golden → new prevalence |", 1)[1].split("\n\n", 1)[0]
    checked = 0
    for line in table.splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        priors = cells[1].split(": ", 1)[1]
        full = [line for line in study.split("## Full table", 1)[1].splitlines()
                if line.startswith(f"| binary | {cells[0]} | {priors} |") and "| 300 |" in line]
        assert len(full) == 1 and all(f"| {cell} |" in full[0] for cell in cells[2:]), line
        checked += 1
    assert checked == 12


def test_card_shows_lee_et_als_readme_example_beside_the_published_interval(metric):
    section = card_section("informedness", "## Corrected prevalence from a judge's labels")
    golden = [0] * 200 + [1] * 200
    verdicts = [0] * 140 + [1] * 60 + [0] * 20 + [1] * 180
    result = metric.compute(references=golden, predictions=verdicts, unlabeled_predictions=[0] * 600 + [1] * 400,
                            confidence_level=0.95)
    low, high = result["corrected_prevalence_ci"]
    assert f"| this module, on the labels above | 0.1666667 | [{low!r}, {high!r}] |" in section
    # The published interval (the reference's README example; see test_prevalence.LEE_PUBLISHED).
    assert "| 0.1666667 | [0.05635072484160894, 0.2627330257859588] |" in section
    assert [low, high] == pytest.approx([0.05635072484160894, 0.2627330257859588], abs=1e-15)
    assert result["corrected_prevalence"] == pytest.approx(1 / 6, abs=1e-15)


def test_card_worked_allocation_and_ppi_plan_are_the_planners_output():
    from shared.tooling import planning

    section = card_section("informedness", "## Corrected prevalence from a judge's labels")
    plan = planning.allocate_golden_budget(200, measured_prevalence=0.4, tnr=0.7, tpr=0.9, pilot=10, unlabeled_size=1000)
    assert (plan["negatives"], plan["positives"]) == (136, 64)
    assert f"{plan['expected_half_width']:.4f}, against {plan['equal_split_half_width']:.4f}" in section
    ppi = planning.plan_ppi_golden_set(0.02, tpr=0.8, tnr=0.9, prevalence=0.2, unlabeled_size=100_000)
    assert f"{ppi['golden']} items, where the golden set alone\nwould need {ppi['classical_size']:,}" in section


def test_balanced_accuracy_card_points_to_the_informedness_output(metric):
    import evaluate

    section = card_section("balanced_accuracy", "### Correcting a judge-measured prevalence")
    code = section.split("```python", 1)[1].split("```", 1)[0]
    namespace = {"evaluate": evaluate}
    exec(code.replace('evaluate.load("informedness")', "metric"), {**namespace, "metric": metric}, namespace)
    point = namespace["result"]["corrected_prevalence"]
    low, high = namespace["result"]["corrected_prevalence_ci"]
    assert f"# {point:.4f}, [{low:.4f}, {high:.4f}] (rounded)" in code
    assert point == pytest.approx((400 / 2000 - 133 / 917) / (63 / 83 - 133 / 917), abs=1e-12)


# ---------------------------------------------------------------- the Space


@pytest.fixture(scope="module")
def informedness_app():
    from conftest import run_app

    return run_app("informedness")


def space_page(namespace, metric, predictions, references, options, source="paste", csv_path=None):
    space_app = space_helper(namespace)  # the app's own helper: its controls and page functions
    controls = app_controls(namespace, metric)
    (shown,) = space_app.example_rows(controls, [[json.dumps(predictions), json.dumps(references), json.dumps(options)]])
    return space_app.compute_page(metric, controls, namespace["PLOTS"], source, shown[0], shown[1],
                                  csv_path, shown[2:])


GOLD_REFERENCES = [0] * 20 + [1] * 10
GOLD_PREDICTIONS = [0] * 18 + [1] * 2 + [0] * 2 + [1] * 8  # TPR 0.8, FPR 0.1
JUDGED = [1] * 7 + [0] * 13  # q = 0.35


def test_space_unlabeled_box_shows_the_corrected_prevalence_with_its_interval(informedness_app, metric):
    options = {"unlabeled_predictions": JUDGED, "confidence_level": 0.95, "seed": 0}
    page = space_page(informedness_app, metric, GOLD_PREDICTIONS, GOLD_REFERENCES, options)
    assert page.ok, page.message
    expected = metric.compute(predictions=GOLD_PREDICTIONS, references=GOLD_REFERENCES, **options)
    assert json.loads(page.result_json) == json.loads(json.dumps(expected))
    assert expected["corrected_prevalence"] == pytest.approx((0.35 - 0.1) / 0.7, abs=1e-12)
    low, high = expected["corrected_prevalence_ci"]
    assert f"Corrected prevalence {expected['corrected_prevalence']:.4f} [{low:.4f}, {high:.4f}]" in page.message
    prevalence_axes = page.figure.axes[-1]
    assert prevalence_axes.get_title() == "Corrected prevalence"
    heights = [bar.get_height() for bar in prevalence_axes.patches]
    assert heights == pytest.approx([0.35, expected["corrected_prevalence"]])
    # The app offers this case as an example.
    row = [json.dumps(GOLD_PREDICTIONS), json.dumps(GOLD_REFERENCES), json.dumps(options)]
    assert any(json.loads(r[0]) == GOLD_PREDICTIONS and json.loads(r[2]) == options for r in informedness_app["EXAMPLES"]), row


def test_space_refused_correction_is_said_in_words(informedness_app, metric):
    page = space_page(informedness_app, metric, [0, 1, 0, 1], [0, 0, 1, 1], {"unlabeled_predictions": [1, 0, 0]})
    assert page.ok, page.message
    assert "Corrected prevalence: undefined (informedness_too_small)" in page.message
    assert "undefined: informedness_too_small" in page.figure.axes[-1].get_title()


def test_space_multiclass_summary_lists_each_class(informedness_app, metric):
    references = [0] * 60 + [1] * 30 + [2] * 10
    predictions = [0] * 50 + [1] * 6 + [2] * 4 + [0] * 4 + [1] * 24 + [2] * 2 + [0] + [1] * 2 + [2] * 7
    options = {"unlabeled_predictions": [0] * 5 + [1] * 3 + [2] * 2}
    page = space_page(informedness_app, metric, predictions, references, options)
    expected = metric.compute(predictions=predictions, references=references, **options)["corrected_prevalence"]
    assert "Corrected prevalence per class: " + ", ".join(f"{value:.4f}" for value in expected) in page.message
    assert len(page.figure.axes[-1].patches) == 6  # measured and corrected, per class


def test_space_csv_unlabeled_column_of_another_length(informedness_app, metric, tmp_path):
    from shared.space import app as space_app

    lines = ["references,predictions,unlabeled_predictions,group"]
    groups = ["a", "b"] * 15
    for index, (reference, prediction) in enumerate(zip(GOLD_REFERENCES, GOLD_PREDICTIONS)):
        unlabeled = JUDGED[index] if index < len(JUDGED) else ""
        lines.append(f"{reference},{prediction},{unlabeled},{groups[index]}")
    path = tmp_path / "judge.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    columns = space_app.read_csv(path)
    assert columns == {"predictions": GOLD_PREDICTIONS, "references": GOLD_REFERENCES, "groups": groups,
                       "unlabeled_predictions": JUDGED}
    # Longer than the golden set: rows holding only an unlabeled label.
    longer = JUDGED + [0] * 15
    lines = ["predictions;references;unlabeled"] + [
        f"{GOLD_PREDICTIONS[i] if i < 30 else ''};{GOLD_REFERENCES[i] if i < 30 else ''};{longer[i]}" for i in range(35)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert space_app.read_csv(path) == {"predictions": GOLD_PREDICTIONS, "references": GOLD_REFERENCES,
                                        "unlabeled_predictions": JUDGED + [0] * 15}
    page = space_page(informedness_app, metric, [], [], {"confidence_level": 0.95, "seed": 0}, source="csv", csv_path=str(path))
    assert page.ok, page.message
    expected = metric.compute(predictions=GOLD_PREDICTIONS, references=GOLD_REFERENCES, unlabeled_predictions=JUDGED + [0] * 15,
                              confidence_level=0.95, seed=0)
    assert json.loads(page.result_json) == json.loads(json.dumps(expected))
    both = space_page(informedness_app, metric, [], [], {"unlabeled_predictions": [0, 1]}, source="csv", csv_path=str(path))
    assert not both.ok and "unlabeled_predictions: given both in the CSV and in the option box" in both.message


def test_space_csv_judge_columns_are_left_to_modules_that_take_them(tmp_path):
    from shared.space import app as space_app
    from conftest import load_module

    path = tmp_path / "judge.csv"
    path.write_text("predictions,references,unlabeled_predictions\n1,1,0\n0,1,1\n,,1\n", encoding="utf-8")
    balanced_accuracy = load_module("balanced_accuracy")
    controls = space_app.default_options(balanced_accuracy)
    page = space_app.compute_page(balanced_accuracy, controls, (), "csv", "", "", str(path),
                                  [option.default_shown() for option in controls])
    assert page.ok, page.message
    assert json.loads(page.result_json) == balanced_accuracy.compute(predictions=[1, 0], references=[1, 1])
    assert space_app.optional_csv_columns(balanced_accuracy) == ["sample_weight", "clusters", "baseline_predictions"]
    assert space_app.optional_csv_columns(load_module("informedness")) == [
        "sample_weight", "clusters", "baseline_predictions", "groups", "unlabeled_predictions", "unlabeled_baseline_predictions"]


def test_space_offers_the_method_and_says_the_key_assumption(informedness_app, metric):
    controls = {option.name: option for option in app_controls(informedness_app, metric)}
    assert list(controls["prevalence_method"].choices.values()) == ["rogan_gladen", "ppi"]
    assert "pos_label" in controls
    options = {"unlabeled_predictions": JUDGED, "confidence_level": 0.95}
    page = space_page(informedness_app, metric, GOLD_PREDICTIONS, GOLD_REFERENCES, options)
    assert "Assumes the judge errs on the new data as on the golden set" in page.message
    assert "groups" in page.message and "(class 1)" in page.message
    axes = page.figure.axes[-1]
    assert "Assumes the judge errs on the new data" in axes.get_xlabel().replace("\n", " ")
    assert [tick.get_text() for tick in axes.get_xticklabels()] == ["1"]
    ppi = {**options, "prevalence_method": "ppi", "pos_label": 0}
    page = space_page(informedness_app, metric, GOLD_PREDICTIONS, GOLD_REFERENCES, ppi)
    assert page.ok, page.message
    expected = metric.compute(predictions=GOLD_PREDICTIONS, references=GOLD_REFERENCES, **ppi)
    assert json.loads(page.result_json) == json.loads(json.dumps(expected))
    assert "random sample of the new data" in page.message and "(class 0)" in page.message
    assert [tick.get_text() for tick in page.figure.axes[-1].get_xticklabels()] == ["0"]


def test_review_reproducers_no_zero_width_and_no_jump_across_lees_threshold(metric):
    """Issue 31 (part 5), the review's two reproducers through the module. 1: q = 0.15 below the
    golden FPR 38/180: the estimate clips at 0 and the bootstrap's interval was [0.0, 0.0]; now
    [0, U] with U > 0 (test_prevalence.py checks U against the unclipped upper percentile by
    hand). 2: 36 golden negatives and 4 positives (all caught), 235 of 5,000 flagged: 3 false
    positives (Lee's smoothed J at 4.55 s.e.) and 4 (4.34) were [0, 0.034] and [0, 0.0034]; now
    within 1.2 times of each other."""
    result = metric.compute(references=[0] * 180 + [1] * 20, predictions=[0] * 142 + [1] * 38 + [0] * 7 + [1] * 13,
                            unlabeled_predictions=[0] * 1700 + [1] * 300, confidence_level=0.95, seed=0)
    low, high = result["corrected_prevalence_ci"]
    assert result["corrected_prevalence"] == 0.0 and result["corrected_prevalence_clipped"]
    assert result["corrected_prevalence_ci_method"] == "bootstrap" and low == 0.0 and high > 0.03
    expected = prevalence.corrected_prevalence([[142, 38], [7, 13]], [1700, 300], confidence_level=0.95, seed=0)
    assert [low, high] == pytest.approx(expected["interval"], abs=1e-12)
    highs = []
    for fp in (3, 4):
        found = metric.compute(references=[0] * 36 + [1] * 4, predictions=[0] * (36 - fp) + [1] * fp + [1] * 4,
                               unlabeled_predictions=[0] * 4765 + [1] * 235, confidence_level=0.95, seed=0)
        assert found["corrected_prevalence_ci"][0] == 0.0
        highs.append(found["corrected_prevalence_ci"][1])
        assert found["corrected_prevalence_ci_method"] == ("lee_bootstrap" if fp == 3 else "bootstrap")
    assert max(highs) / min(highs) < 1.2 and min(highs) > 0.02


def worst_cells():
    """studies/prevalence_intervals/results.md's worst-cell table: {method: [cells]}."""
    text = (REPO_ROOT / "studies" / "prevalence_intervals" / "results.md").read_text(encoding="utf-8")
    table = text.split("## Worst cell per method", 1)[1].split("## Every cell", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ")][1:]
    return text, {cells[0]: cells for cells in ([cell.strip() for cell in line.strip("|").split("|")] for line in rows)
                  if cells[0] != "---"}


def test_informedness_card_quotes_the_prevalence_intervals_study():
    """The card's figures for the default are studies/prevalence_intervals/results.md's, and that
    study's default covers 0.93 in every cell with no zero-width interval."""
    text, rows = worst_cells()
    section = card_section("informedness", "## Corrected prevalence from a judge's labels")
    command = text.split("```", 2)[1].strip()
    assert command.startswith("OMP_NUM_THREADS=1 nice -n 19 python studies/prevalence_intervals/study.py")
    assert command in section
    new, old = rows["new_default"], rows["old_default"]
    assert float(new[1].split("±")[0]) >= 0.93 and new[3] == "0" and new[5] == "0.00"
    for cells in (new, old):
        assert cells[1] in section and cells[2] in section and cells[4] in section and cells[5] in section
    assert float(old[5]) > 0  # the former default gave zero-width intervals
