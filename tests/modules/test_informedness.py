"""informedness: the paper's law, parity with scikit-learn and pycm, the averagings, class masks, errors, intervals."""

import json
import math
import warnings
from statistics import NormalDist

import numpy as np
import pandas as pd
import pyarrow as pa
import pycm
import pytest
import torch
from sklearn.metrics import accuracy_score, balanced_accuracy_score, confusion_matrix, matthews_corrcoef

from shared.metrics import informedness as informedness_metric
from shared.stats import vocabulary
from conftest import load_module, load_study
from robustness import assert_plain

# ---------------------------------------------------------------- what the registry's tests need of this module
# (tests/conftest.py module_tests): its value by a peer, and the options it is run with where
# its kind's defaults would leave outputs of its own unchecked.


def peer_value(predictions, references, weights=None):
    """Powers' bookmaker informedness sum_c bias_c (TPR_c - FPR_c), from scikit-learn's confusion matrix
    (tests/integration/test_peer_behaviour.py)."""
    classes = np.unique(np.concatenate([np.asarray(references), np.asarray(predictions)]))
    matrix = confusion_matrix(references, predictions, labels=classes, sample_weight=weights)
    total = matrix.sum()
    positives, predicted, hits = matrix.sum(axis=1), matrix.sum(axis=0), np.diag(matrix)
    informedness_per_class = hits / positives - (predicted - hits) / (total - positives)
    return float(np.sum(predicted / total * informedness_per_class))


# tests/integration/test_distributed.py: (predictions, references, options[, extras]) on its named data.
DISTRIBUTED_CASES = [
    ("noisy", "skewed", {"return_per_class": True, "return_markedness": True}),
    ("noisy", "skewed", {"average": "macro"}),
    ("token_predictions", "tokens", {"ignore_index": -100, "average": "weighted"}),
]
# ... and with clusters= across processes: (predictions, references, per-sample inputs, options).
DISTRIBUTED_CLUSTER_CASES = [
    ("predictions", "references", {"clusters": "conversation"}, {"confidence_level": 0.95, "average": "macro"}),
    ("token_predictions", "tokens", {"clusters": "quads"}, {"confidence_level": 0.95}),
]
LAW_OPTIONS = dict(return_per_class=True, return_markedness=True)  # tests/properties/test_metamorphic.py
NOTHING_LOST_OPTIONS = dict(return_per_class=True, return_markedness=True, labels=[0, 1, 2, 3, 299, 69_999])  # test_nothing_lost.py
FAST_PATH_OPTIONS = dict(ignore_index=-100, return_per_class=True, return_markedness=True)  # tests/support/fast_path_data.py
HELPER_MAX_LINES = 9_100  # tests/unit/test_vendor.py: the most lines its generated shared_core.py may have


def fuzz_options(classes, scores):
    """tests/properties/test_fuzz.py: (valid, invalid) values of its own options, beyond the label options."""
    return dict(average=["bookmaker", "macro", "weighted"], return_markedness=[False, True]), \
        dict(average=["micro", None, 1], return_markedness=["yes"])


coverage_study = load_study("golden_set_coverage")

AVERAGES = ("bookmaker", "macro", "weighted")
LEVEL = 0.95

# The example: TP = 4, FN = 1, FP = 2, TN = 8 (class 1 positive).
EXAMPLE_REFERENCES = [0] * 10 + [1] * 5
EXAMPLE_PREDICTIONS = [0] * 8 + [1] * 2 + [0] + [1] * 4


@pytest.fixture(scope="module")
def informedness():
    return load_module("informedness")


def sklearn_ba(references, predictions, sample_weight=None, adjusted=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "y_pred contains classes not in y_true"
        return balanced_accuracy_score(references, predictions, sample_weight=sample_weight, adjusted=adjusted)


def expected_from_confusion_matrix(references, predictions, num_classes, weights=None, average="bookmaker",
                                   class_mask=None, zero_division="skip", markedness=False):
    """The issue's formulas on scikit-learn's confusion matrix, written out independently.

    J_c = TP/(TP+FN) - FP/(FP+TN), MK_c = TP/(TP+FP) + TN/(TN+FN) - 1; bookmaker weighs J by
    prediction shares and MK by reference shares, weighted the other way round; undefined
    classes are skipped (weights renormalised) or take the zero_division value; a class
    mask restricts the classes and the weights are renormalised over it.
    """
    matrix = confusion_matrix(references, predictions, labels=list(range(num_classes)), sample_weight=weights).astype(float)
    reference_totals, prediction_totals = matrix.sum(axis=1), matrix.sum(axis=0)
    values, shares = [], []
    for c in range(num_classes):
        tp = matrix[c, c]
        fn = reference_totals[c] - tp
        fp = prediction_totals[c] - tp
        tn = np.delete(np.delete(matrix, c, axis=0), c, axis=1).sum()
        if markedness:
            defined = tp + fp > 0 and tn + fn > 0
            value = tp / (tp + fp) + tn / (tn + fn) - 1 if defined else math.nan
        else:
            defined = tp + fn > 0 and fp + tn > 0
            value = tp / (tp + fn) - fp / (fp + tn) if defined else math.nan
        if not defined and zero_division != "skip":
            value = float(zero_division)
        prevalence, bias = reference_totals[c] / matrix.sum(), prediction_totals[c] / matrix.sum()
        if markedness:
            share = {"bookmaker": prevalence, "macro": 1.0, "weighted": bias}[average]
        else:
            share = {"bookmaker": bias, "macro": 1.0, "weighted": prevalence}[average]
        if (class_mask is None or c in class_mask) and not math.isnan(value):
            values.append(value)
            shares.append(share)
    if not values or sum(shares) == 0:
        return math.nan
    return sum(v * s for v, s in zip(values, shares)) / sum(shares)


def generated_cases(count, seed):
    rng = np.random.default_rng(seed)
    for case in range(count):
        num_classes = int(rng.integers(2, 8))
        size = int(rng.integers(1, 300))
        prior = rng.dirichlet(np.full(num_classes, 0.5))  # skewed class priors
        references = rng.choice(num_classes, size=size, p=prior)
        accuracy = rng.random()
        predictions = np.where(rng.random(size) < accuracy, references, rng.integers(0, num_classes, size))
        weights = None
        if case % 3 == 1:
            weights = rng.random(size) * 3
        elif case % 3 == 2:
            weights = rng.integers(0, 4, size).astype(float)
            weights[0] = 1.0
        class_mask = None
        if case % 4 == 3:
            class_mask = sorted(rng.choice(num_classes, size=int(rng.integers(1, num_classes + 1)), replace=False).tolist())
        zero_division = ("skip", 0.0)[case % 5 % 2]
        yield references, predictions, num_classes, weights, class_mask, zero_division


def same(value, expected, tolerance=1e-12):
    if math.isnan(expected):
        return math.isnan(value)
    return value == pytest.approx(expected, abs=tolerance)


# ---------------------------------------------------------------- the paper's law and guessing


PRIORS = [
    (0.9, 0.1),
    (0.7, 0.2, 0.1),
    (0.6, 0.2, 0.1, 0.06, 0.04),
    (0.1,) * 10,
]


@pytest.mark.parametrize("skill", [0.0, 0.25, 0.5])
def test_right_with_probability_x_else_guessing_from_the_prior_scores_x(informedness, skill):
    """Informedness reads x for every averaging and prior; accuracy and BA carry a guessing bonus."""
    rng = np.random.default_rng(int(skill * 100))
    size = 200_000
    accuracies = []
    for prior in PRIORS:
        num_classes = len(prior)
        references = rng.choice(num_classes, size=size, p=prior)
        guesses = rng.choice(num_classes, size=size, p=prior)
        predictions = np.where(rng.random(size) < skill, references, guesses)
        for average in AVERAGES:
            result = informedness.compute(references=references, predictions=predictions, average=average,
                                          num_classes=num_classes, return_markedness=True)
            assert abs(result["informedness"] - skill) < 0.01, (prior, average, result)
            assert abs(result["markedness"] - skill) < 0.01, (prior, average, result)
        accuracy = accuracy_score(references, predictions)
        balanced = sklearn_ba(references, predictions)
        # Expected values: accuracy x + (1 - x) * sum(prior^2), balanced accuracy x + (1 - x) / K.
        assert accuracy == pytest.approx(skill + (1 - skill) * sum(p * p for p in prior), abs=0.01)
        assert balanced == pytest.approx(skill + (1 - skill) / num_classes, abs=0.01)
        assert accuracy - skill > 0.04 and balanced - skill > 0.04
        accuracies.append(accuracy)
    assert max(accuracies) - min(accuracies) > 0.25  # accuracy drifts with the prior


def test_uninformed_model_on_balanced_binary_data_scores_zero(informedness):
    references, predictions = [0, 0, 1, 1] * 25, [0, 1, 0, 1] * 25
    for average in AVERAGES:
        assert informedness.compute(references=references, predictions=predictions, average=average) == {"informedness": 0.0}
    assert accuracy_score(references, predictions) == 0.5 and sklearn_ba(references, predictions) == 0.5

    rng = np.random.default_rng(10)
    references, predictions = rng.integers(0, 2, 200_000), rng.integers(0, 2, 200_000)
    for average in AVERAGES:
        assert abs(informedness.compute(references=references, predictions=predictions, average=average)["informedness"]) < 0.01
    assert accuracy_score(references, predictions) == pytest.approx(0.5, abs=0.01)
    assert sklearn_ba(references, predictions) == pytest.approx(0.5, abs=0.01)


def test_constant_predictor_scores_exactly_zero_and_has_no_markedness(informedness):
    references = [0] * 7 + [1] * 2 + [2]
    predictions = [0] * 10
    for average in AVERAGES:
        result = informedness.compute(references=references, predictions=predictions, average=average, return_markedness=True)
        assert result["informedness"] == 0.0
        assert math.isnan(result["markedness"]) and result["markedness_reason"] == "fewer_than_two_predicted_classes"
    assert accuracy_score(references, predictions) == 0.7


# ---------------------------------------------------------------- the and the card's examples


def test_reference_code_example_returns_j_and_markedness(informedness):
    for average in AVERAGES:
        result = informedness.compute(references=EXAMPLE_REFERENCES, predictions=EXAMPLE_PREDICTIONS, average=average,
                                      return_markedness=True, return_per_class=True)
        assert result["informedness"] == 0.6  # TPR 4/5 + TNR 8/10 - 1
        assert result["markedness"] == pytest.approx(4 / 6 + 8 / 9 - 1, abs=1e-15)
        assert round(result["markedness"], 4) == 0.5556
        assert result["per_class_informedness"] == [0.6, 0.6]
        assert result["support_per_class"] == [10, 5] and result["predicted_per_class"] == [9, 6]


def test_swapped_axes_turn_informedness_into_markedness(informedness):
    """What the paper's reference code computes: the informedness of the transposed problem."""
    swapped = informedness.compute(references=EXAMPLE_PREDICTIONS, predictions=EXAMPLE_REFERENCES, return_markedness=True)
    assert swapped["informedness"] == pytest.approx(4 / 6 + 8 / 9 - 1, abs=1e-15)
    assert swapped["markedness"] == pytest.approx(0.6, abs=1e-15)


@pytest.mark.parametrize("case", range(40))
def test_markedness_is_the_mirror_image_of_informedness(informedness, case):
    references, predictions, num_classes, weights, class_mask, zero_division = list(generated_cases(40, seed=11))[case]
    for average in AVERAGES:
        options = dict(num_classes=num_classes, sample_weight=weights, class_mask=class_mask, zero_division=zero_division, average=average)
        forward = informedness.compute(references=references, predictions=predictions, return_markedness=True, **options)
        backward = informedness.compute(references=predictions, predictions=references, return_markedness=True, **options)
        assert same(forward["markedness"], backward["informedness"]) and same(forward["informedness"], backward["markedness"])


def test_card_example_same_balanced_accuracy_different_informedness(informedness):
    references = [0, 0, 0, 0, 1, 2]
    first, second = [0, 0, 0, 0, 1, 1], [1, 1, 1, 1, 1, 2]
    assert sklearn_ba(references, first) == sklearn_ba(references, second) == pytest.approx(2 / 3)
    # first: J = (1, 1 - 1/5, 0), bias (4, 2, 0)/6; second: J = (0, 1 - 4/5, 1), bias (0, 5, 1)/6.
    macro = [informedness.compute(references=references, predictions=p, average="macro")["informedness"] for p in (first, second)]
    bookmaker = [informedness.compute(references=references, predictions=p)["informedness"] for p in (first, second)]
    assert macro == [pytest.approx(0.6), pytest.approx(0.4)]
    assert bookmaker == [pytest.approx(14 / 15), pytest.approx(1 / 3)]


def test_equal_prevalences_macro_and_weighted_equal_adjusted_balanced_accuracy(informedness):
    rng = np.random.default_rng(12)
    for num_classes in (2, 3, 5):
        references = np.repeat(np.arange(num_classes), 60)
        predictions = np.where(rng.random(references.size) < 0.5, references, rng.integers(0, num_classes, references.size))
        adjusted = sklearn_ba(references, predictions, adjusted=True)
        for average in ("macro", "weighted"):
            result = informedness.compute(references=references, predictions=predictions, average=average)
            assert result["informedness"] == pytest.approx(adjusted, abs=1e-12)


def test_documented_multiclass_and_mask_examples(informedness):
    references, predictions = [0, 0, 0, 0, 1, 1, 2, 2], [0, 0, 0, 1, 1, 2, 2, 2]
    # J = (3/4 - 0, 1/2 - 1/6, 1 - 1/6); bias (3, 2, 3)/8; prevalence (4, 2, 2)/8.
    per_class = [3 / 4, 1 / 2 - 1 / 6, 1 - 1 / 6]
    result = informedness.compute(references=references, predictions=predictions, return_per_class=True)
    assert result["per_class_informedness"] == pytest.approx(per_class, abs=1e-15)
    assert result["informedness"] == pytest.approx((3 * per_class[0] + 2 * per_class[1] + 3 * per_class[2]) / 8, abs=1e-15)
    macro = informedness.compute(references=references, predictions=predictions, average="macro")["informedness"]
    assert macro == pytest.approx(sum(per_class) / 3, abs=1e-15)
    weighted = informedness.compute(references=references, predictions=predictions, average="weighted")["informedness"]
    assert weighted == pytest.approx((4 * per_class[0] + 2 * per_class[1] + 2 * per_class[2]) / 8, abs=1e-15)
    masked = informedness.compute(references=references, predictions=predictions, class_mask=[1, 2])["informedness"]
    assert masked == pytest.approx((2 * per_class[1] + 3 * per_class[2]) / 5, abs=1e-15)


# ---------------------------------------------------------------- parity with peers


def test_binary_equals_sklearn_adjusted_balanced_accuracy(informedness):
    rng = np.random.default_rng(13)
    for case in range(60):
        size = int(rng.integers(4, 400))
        references = (rng.random(size) < rng.uniform(0.02, 0.5)).astype(int)
        references[:2] = [0, 1]
        predictions = np.where(rng.random(size) < rng.random(), references, rng.integers(0, 2, size))
        weights = rng.random(size) * 2 if case % 2 else None
        expected = sklearn_ba(references, predictions, weights, adjusted=True)
        for average in AVERAGES:
            result = informedness.compute(references=references, predictions=predictions, sample_weight=weights, average=average)
            assert result["informedness"] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("case", range(40))
def test_per_class_values_equal_pycm_bm_and_mk(informedness, case):
    references, predictions, _, weights, _, _ = list(generated_cases(40, seed=14))[case]
    matrix = pycm.ConfusionMatrix(actual_vector=references.tolist(), predict_vector=predictions.tolist(),
                                  sample_weight=None if weights is None else weights.tolist())
    result = informedness.compute(references=references, predictions=predictions, sample_weight=weights,
                                  return_per_class=True, return_markedness=True)
    assert result["classes"] == [int(c) for c in matrix.classes]
    for c, j, mk in zip(result["classes"], result["per_class_informedness"], result["per_class_markedness"]):
        for ours, theirs in ((j, matrix.BM[c]), (mk, matrix.MK[c])):
            if theirs == "None":
                assert math.isnan(ours)
            else:
                assert ours == pytest.approx(theirs, abs=1e-9)


@pytest.mark.parametrize("case", range(150))
def test_each_average_equals_its_formula_on_the_confusion_matrix(informedness, case):
    references, predictions, num_classes, weights, class_mask, zero_division = list(generated_cases(150, seed=15))[case]
    for average in AVERAGES:
        result = informedness.compute(references=references, predictions=predictions, num_classes=num_classes, average=average,
                                      sample_weight=weights, class_mask=class_mask, zero_division=zero_division,
                                      return_markedness=True)
        for markedness, key in ((False, "informedness"), (True, "markedness")):
            expected = expected_from_confusion_matrix(references, predictions, num_classes, weights, average, class_mask,
                                                      zero_division, markedness)
            assert same(result[key], expected), (average, key, result, expected)
        assert ("reason" in result) == math.isnan(result["informedness"])


def test_binary_mcc_squared_equals_informedness_times_markedness(informedness):
    rng = np.random.default_rng(16)
    for case in range(40):
        size = int(rng.integers(10, 500))
        references = (rng.random(size) < rng.uniform(0.05, 0.5)).astype(int)
        predictions = np.where(rng.random(size) < rng.random(), references, rng.integers(0, 2, size))
        references[:2], predictions[:2] = [0, 1], [0, 1]
        weights = rng.random(size) + 0.1 if case % 2 else None
        result = informedness.compute(references=references, predictions=predictions, sample_weight=weights, return_markedness=True)
        mcc = matthews_corrcoef(references, predictions, sample_weight=weights)
        assert mcc**2 == pytest.approx(result["informedness"] * result["markedness"], abs=1e-12)
        assert math.copysign(1, mcc) == math.copysign(1, result["informedness"]) or mcc == 0


# ---------------------------------------------------------------- class_mask and zero_division


def test_class_mask_renormalises_the_averaging_weights(informedness):
    rng = np.random.default_rng(17)
    references = rng.choice(4, 500, p=[0.55, 0.25, 0.15, 0.05])
    predictions = np.where(rng.random(500) < 0.6, references, rng.integers(0, 4, 500))
    per_class = informedness.compute(references=references, predictions=predictions, return_per_class=True)["per_class_informedness"]
    for average in AVERAGES:
        everything = informedness.compute(references=references, predictions=predictions, average=average)
        assert informedness.compute(references=references, predictions=predictions, average=average, class_mask=[0, 1, 2, 3]) == everything
        for c in range(4):  # one class: its own J_c under every averaging
            single = informedness.compute(references=references, predictions=predictions, average=average, class_mask=[c])
            assert single["informedness"] == pytest.approx(per_class[c], abs=1e-12)


def test_class_mask_on_classes_never_predicted(informedness):
    references, predictions = [0, 1, 2, 2], [0, 0, 0, 0]
    # Classes 1 and 2 are never predicted: J = 0 - 0 = 0 each, but their bias weights are 0.
    result = informedness.compute(references=references, predictions=predictions, class_mask=[1, 2])
    assert math.isnan(result["informedness"]) and result["reason"] == "averaged_classes_have_zero_weight"
    assert informedness.compute(references=references, predictions=predictions, class_mask=[1, 2], average="macro") == {"informedness": 0.0}


def test_empty_class_mask_after_filtering(informedness):
    # class 2 exists only in predictions: its J is undefined, so the mask leaves nothing.
    result = informedness.compute(references=[0, 0, 1, 1], predictions=[0, 2, 2, 1], num_classes=3, class_mask=[2])
    assert math.isnan(result["informedness"]) and result["reason"] == "empty_class_mask_after_filtering"


def test_zero_division_for_a_class_only_predicted(informedness):
    references, predictions = [0, 0, 1, 1], [0, 2, 1, 1]
    # J = (1/2, 1, undefined); bias (1, 2, 1)/4; prevalence (2, 2, 0)/4.
    expected = {
        "skip": {"bookmaker": (0.5 / 4 + 2 / 4) / (3 / 4), "macro": 0.75, "weighted": 0.75},
        0.0: {"bookmaker": 0.5 / 4 + 2 / 4, "macro": 0.5, "weighted": 0.75},
    }
    for zero_division, by_average in expected.items():
        for average, value in by_average.items():
            result = informedness.compute(references=references, predictions=predictions, average=average,
                                          zero_division=zero_division, return_per_class=True)
            assert result["informedness"] == pytest.approx(value, abs=1e-15)
            assert result["per_class_informedness"][:2] == [0.5, 1.0]
            third = result["per_class_informedness"][2]
            assert math.isnan(third) if zero_division == "skip" else third == zero_division


@pytest.mark.parametrize("zero_division", [1, 1.0, np.float64(1.0)])
def test_a_zero_division_that_rewards_guessing_is_refused(informedness, zero_division):
    # Predicting a class absent from the references is a guess; J = 1 for it would reward it.
    with pytest.raises(ValueError, match=r"^zero_division: expected 'skip' or 0.0 for informedness \(1.0 would reward"):
        informedness.compute(references=[0, 0, 1, 1], predictions=[0, 2, 1, 2], zero_division=zero_division)
    with pytest.raises(ValueError, match=r"^zero_division: expected 'skip' or 0.0"):
        load_module("informedness", zero_division=zero_division)


def test_guessing_an_absent_class_earns_nothing_with_zero_division_0(informedness):
    # references [0, 0, 1, 1], predictions [0, 2, 1, 2]: J_0 = 1/2 - 0, J_1 = 1/2 - 0, J_2 undefined (no references);
    # bias (1, 1, 2)/4. zero_division=0.0 counts J_2 as 0: bookmaker 1/4 * 1/2 + 1/4 * 1/2 + 2/4 * 0.
    result = informedness.compute(references=[0, 0, 1, 1], predictions=[0, 2, 1, 2], zero_division=0.0)
    assert result["informedness"] == pytest.approx(0.25, abs=1e-15)
    skipped = informedness.compute(references=[0, 0, 1, 1], predictions=[0, 2, 1, 2])
    assert skipped["informedness"] == pytest.approx(0.5, abs=1e-15)


def test_a_single_reference_class_has_no_informedness(informedness):
    result = informedness.compute(references=[1, 1, 1], predictions=[1, 0, 1])
    assert math.isnan(result["informedness"]) and result["reason"] == "fewer_than_two_reference_classes"
    assert informedness.compute(references=[1, 1, 1], predictions=[1, 0, 1], zero_division=0) == {"informedness": 0.0}


def test_no_samples(informedness):
    result = informedness.compute(references=[0, 1], predictions=[0, 1], sample_weight=[0, 0])
    assert math.isnan(result["informedness"]) and result["reason"] == "no_samples"
    result = informedness.compute(references=[-100, -100], predictions=[0, 1], ignore_index=-100, return_markedness=True)
    assert math.isnan(result["informedness"]) and result["reason"] == "empty_after_ignore_index"
    assert math.isnan(result["markedness"]) and result["markedness_reason"] == "empty_after_ignore_index"


# ---------------------------------------------------------------- inputs and options


@pytest.mark.parametrize(
    "convert",
    [list, np.array, torch.tensor, pd.Series, pa.array, lambda x: torch.tensor(x, dtype=torch.float32, requires_grad=True)],
    ids=["list", "numpy", "torch", "pandas", "pyarrow", "torch_requires_grad"],
)
def test_input_containers(informedness, convert):
    references, predictions = [0, 1, 2, 1, 0, 0], [0, 1, 1, 1, 2, 0]
    expected = expected_from_confusion_matrix(references, predictions, 3)
    result = informedness.compute(references=convert(references), predictions=convert(predictions))
    assert result["informedness"] == pytest.approx(expected, abs=1e-15)


def test_string_labels_with_labels_order(informedness):
    references = ["unsafe", "safe", "safe", "safe", "unsafe"]
    predictions = ["unsafe", "safe", "unsafe", "safe", "safe"]
    result = informedness.compute(references=references, predictions=predictions, labels=["unsafe", "safe"], return_per_class=True)
    assert result["classes"] == ["unsafe", "safe"]
    assert result["informedness"] == pytest.approx(sklearn_ba(references, predictions, adjusted=True), abs=1e-15)
    assert result["support_per_class"] == [2, 3]


def test_token_classification_padding_and_segmentation_maps(informedness):
    rng = np.random.default_rng(18)
    references = rng.integers(0, 5, (3, 16, 16))
    references[:, :2] = 255
    predictions = np.where(rng.random(references.shape) < 0.7, references, rng.integers(0, 5, references.shape))
    keep = references.ravel() != 255
    for average in AVERAGES:
        result = informedness.compute(references=references, predictions=predictions, ignore_index=255, average=average)
        expected = expected_from_confusion_matrix(references.ravel()[keep], predictions.ravel()[keep], 5, average=average)
        assert result["informedness"] == pytest.approx(expected, abs=1e-12)


def test_results_are_plain_python_and_json_safe(informedness):
    result = informedness.compute(references=np.array([0, 1, 2, 2]), predictions=np.array([0, 1, 1, 2]), sample_weight=np.ones(4),
                                  return_per_class=True, return_markedness=True)
    json.dumps(result)
    assert_plain(result, keys=(str,))
    assert type(result["informedness"]) is float
    assert type(informedness.compute(references=[0, 1], predictions=[0, 1])["informedness"]) is float


def test_streaming_add_batch_and_add_match_one_call(load):
    rng = np.random.default_rng(19)
    references = rng.integers(0, 4, 1000)
    predictions = np.where(rng.random(1000) < 0.6, references, rng.integers(0, 4, 1000))
    metric = load("informedness")
    expected = metric.compute(references=references, predictions=predictions, return_markedness=True)
    for start in range(0, 990, 110):
        metric.add_batch(references=references[start : start + 110], predictions=predictions[start : start + 110])
    for reference, prediction in zip(references[990:], predictions[990:]):
        metric.add(reference=reference, prediction=prediction)
    streamed = metric.compute(return_markedness=True)
    assert streamed["informedness"] == pytest.approx(expected["informedness"], abs=1e-12)
    assert streamed["markedness"] == pytest.approx(expected["markedness"], abs=1e-12)
    assert expected["informedness"] == pytest.approx(expected_from_confusion_matrix(references, predictions, 4), abs=1e-12)


def test_scores_in_a_later_batch_get_the_informedness_hint(load):
    metric = load("informedness")
    metric.add_batch(references=[0, 1], predictions=[0, 1])
    with pytest.raises(ValueError, match=r"predictions: expected class labels .* such as 0\.7\. Informedness compares labels"):
        metric.add_batch(references=[0, 1], predictions=[0.7, 1.0])


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        (dict(average="micro"), ValueError, r"average: expected one of \('bookmaker', 'macro', 'weighted'\), found 'micro'"),
        (dict(average=None), ValueError, r"average: expected one of .* found None"),
        (dict(zero_division="warn"), ValueError, r"zero_division: expected 'skip' or 0.0 for informedness, found 'warn'"),
        (dict(class_mask=[5]), ValueError, r"class_mask: expected indices in \[0, 1\], found \[5\]"),
        (dict(class_mask=[0.5]), TypeError, r"class_mask: expected class indices \(integers\)"),
        (dict(sample_weight=[1, -1, 1]), ValueError, r"sample_weight: expected non-negative weights"),
        (dict(sample_weight=[1, float("nan"), 1]), ValueError, r"sample_weight: expected finite values"),
        (dict(sample_weight=[1, 1]), ValueError, r"sample_weight: expected one weight per sample \(3 values"),
        (dict(num_classes=0), ValueError, r"num_classes: expected a positive integer, found 0"),
        (dict(labels=[0, 2]), ValueError, r"references: expected values among `labels`, found unknown value\(s\) \[1\]"),
        (dict(labels=[0, 0]), ValueError, r"labels: expected distinct values"),
        # threshold turns score-giving judges' scores into labels (judges=); one system's scores are refused.
        (dict(threshold=0.5), ValueError, r"^threshold: informedness turns scores into labels only for two or more judges"),
    ],
)
def test_bad_options_name_the_argument(informedness, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        informedness.compute(references=[0, 1, 1], predictions=[0, 1, 0], **kwargs)


@pytest.mark.parametrize(
    "references, predictions, error, pattern",
    [
        ([0, 1, 1], [0, 1], ValueError, r"predictions and references: expected the same shape, found \(2,\) and \(3,\)"),
        ([0, 1], [0.2, 0.7], ValueError, r"predictions: expected class labels .* such as 0\.2\. Informedness compares labels: turn scores into labels"),
        ([0, 1], [0, float("inf")], ValueError, r"predictions: expected finite values"),
        ([0, 1.5], [0, 1], ValueError, r"references: expected class labels .* such as 1\.5"),
        ([0, "1"], [0, 1], TypeError, r"references: expected one label type, found a mix of strings and numbers"),
        (["a", "b"], [0, 1], TypeError, r"predictions and references: expected labels of one type"),
        ([[0, 1], [1]], [0, 1, 1], ValueError, r"references: expected a rectangular array"),
        ([0, None], [0, 1], ValueError, r"references: expected no missing values"),
        (None, [0, 1], TypeError, r"references: expected an array-like"),
    ],
)
def test_bad_inputs_name_the_argument(informedness, references, predictions, error, pattern):
    with pytest.raises(error, match=pattern):
        informedness.compute(references=references, predictions=predictions)


def test_labels_outside_num_classes(informedness):
    with pytest.raises(ValueError, match=r"references: expected labels in \[0, 2\], found \[3\]"):
        informedness.compute(references=[0, 3], predictions=[0, 1], num_classes=3)
    with pytest.raises(ValueError, match=r"predictions: expected values among `labels`, found unknown value\(s\) \['c'\]"):
        informedness.compute(references=["a", "b"], predictions=["a", "c"], labels=["a", "b"])


# ---------------------------------------------------------------- confidence intervals

Z95 = 1.959963984540054


def agresti_coull_by_hand(successes, trials):
    """Agresti-Coull: the Wald interval on counts augmented by z^2/2 successes and failures."""
    n_tilde = trials + Z95**2
    p_tilde = (successes + Z95**2 / 2) / n_tilde
    half = Z95 * math.sqrt(p_tilde * (1 - p_tilde) / n_tilde)
    return max(0.0, p_tilde - half), min(1.0, p_tilde + half)


def kish_sizes(reference_indices, weights, num_classes):
    """(sum w)^2 / sum w^2 per reference class."""
    sums = np.array([weights[reference_indices == c].sum() for c in range(num_classes)])
    squares = np.array([(weights[reference_indices == c] ** 2).sum() for c in range(num_classes)])
    return np.divide(sums**2, squares, out=np.zeros(num_classes), where=squares > 0)


def test_documented_binary_interval_is_mover_on_tpr_and_tnr(informedness, balanced_accuracy):
    references = [1] * 50 + [0] * 950
    predictions = [1] * 40 + [0] * 10 + [0] * 900 + [1] * 50
    result = informedness.compute(references=references, predictions=predictions, confidence_level=LEVEL, ci_method="agresti_coull")
    assert list(result) == ["informedness", "informedness_ci"]
    # J = TPR + TNR - 1; MOVER: each side is the root sum of squares of the rates' distances.
    below, above = [], []
    for x, n in ((40, 50), (900, 950)):
        low, high = agresti_coull_by_hand(x, n)
        below.append(x / n - low)
        above.append(high - x / n)
    point = 40 / 50 + 900 / 950 - 1
    assert result["informedness"] == pytest.approx(point, abs=1e-15)
    assert result["informedness_ci"] == pytest.approx([point - math.hypot(*below), point + math.hypot(*above)], abs=1e-12)
    # Binary J = 2 BA - 1, interval included.
    ba = balanced_accuracy.compute(references=references, predictions=predictions, confidence_level=LEVEL, ci_method="agresti_coull")
    assert result["informedness_ci"] == pytest.approx([2 * v - 1 for v in ba["balanced_accuracy_ci"]], abs=1e-12)
    for method in ("score", "wilson", "bootstrap"):
        ours = informedness.compute(references=references, predictions=predictions, confidence_level=LEVEL, ci_method=method, seed=3)
        theirs = balanced_accuracy.compute(references=references, predictions=predictions, confidence_level=LEVEL, ci_method=method, seed=3)
        assert ours["informedness_ci"] == pytest.approx([2 * v - 1 for v in theirs["balanced_accuracy_ci"]], abs=1e-12)


def test_documented_multiclass_interval_is_the_shared_bootstrap(informedness):
    references = [0] * 60 + [1] * 30 + [2] * 10
    predictions = [0] * 50 + [1] * 6 + [2] * 4 + [0] * 4 + [1] * 24 + [2] * 2 + [0] + [1] * 2 + [2] * 7
    result = informedness.compute(references=references, predictions=predictions, confidence_level=LEVEL, seed=0,
                                  ci_method="bootstrap")
    matrix = confusion_matrix(references, predictions)  # scikit-learn's, rows = references
    expected = informedness_metric.informedness_interval(matrix, confidence_level=LEVEL, method="bootstrap", seed=0)
    assert result["informedness_ci"] == expected.as_list()
    assert result["informedness_ci"][0] < result["informedness"] < result["informedness_ci"][1]


def test_multiclass_delta_interval_equals_an_independent_computation(informedness):
    references = [0] * 60 + [1] * 30 + [2] * 10
    predictions = [0] * 50 + [1] * 6 + [2] * 4 + [0] * 4 + [1] * 24 + [2] * 2 + [0] + [1] * 2 + [2] * 7
    # The delta method is no longer the default (the score interval is): asked for by name.
    result = informedness.compute(references=references, predictions=predictions, confidence_level=LEVEL, ci_method="delta")
    # Independently: the bookmaker value as a function of the 9 counts, its numerical gradient at the
    # counts plus 0.5 / 3 per cell, and theta +- z sqrt(sum n Psi^2) with those smoothed n.
    matrix = confusion_matrix(references, predictions).astype(float)

    def bookmaker(cells):
        total = cells.sum()
        support, predicted, tp = cells.sum(axis=1), cells.sum(axis=0), np.diag(cells)
        per_class = tp / support - (predicted - tp) / (total - support)
        return float((predicted / total * per_class).sum())

    smoothed = matrix + 0.5 / 3
    gradient = np.zeros((3, 3))
    for cell in np.ndindex(3, 3):
        step = np.zeros((3, 3))
        step[cell] = 1e-6
        gradient[cell] = (bookmaker(smoothed + step) - bookmaker(smoothed - step)) / 2e-6
    half = NormalDist().inv_cdf(0.5 + LEVEL / 2) * math.sqrt((smoothed * gradient**2).sum())
    value = bookmaker(matrix)
    assert result["informedness"] == pytest.approx(value, abs=1e-12)
    assert result["informedness_ci"] == pytest.approx([value - half, value + half], abs=1e-8)


def test_delta_interval_with_weights_of_one_is_the_unweighted_one(informedness):
    rng = np.random.default_rng(7)
    references = rng.integers(0, 4, 300)
    predictions = np.where(rng.random(300) < 0.7, references, rng.integers(0, 4, 300))
    plain = informedness.compute(references=references, predictions=predictions, confidence_level=LEVEL, ci_method="delta")
    weighted = informedness.compute(references=references, predictions=predictions, confidence_level=LEVEL, ci_method="delta",
                                    sample_weight=np.ones(300))
    assert weighted["informedness_ci"] == pytest.approx(plain["informedness_ci"], abs=1e-12)
    # Weights of 3: the same items, the same interval (the delta method does not depend on the weights' scale).
    tripled = informedness.compute(references=references, predictions=predictions, confidence_level=LEVEL, ci_method="delta",
                                   sample_weight=np.full(300, 3.0))
    assert tripled["informedness_ci"] == pytest.approx(plain["informedness_ci"], abs=1e-12)


def test_delta_refusals_name_the_methods_accepted(informedness):
    references, predictions = [0, 1, 2, 0, 1, 2], [0, 1, 2, 1, 1, 2]
    with pytest.raises(ValueError, match="expected ci_method='score', 'delta', 'bootstrap' or None"):
        informedness.compute(references=references, predictions=predictions, confidence_level=LEVEL, ci_method="wilson")
    balanced_accuracy = load_module("balanced_accuracy")
    with pytest.raises(ValueError, match=r"ci_method: expected one of \('score', 'agresti_coull', 'wilson', 'bootstrap'\) or None, found 'delta'"):
        balanced_accuracy.compute(references=references, predictions=predictions, confidence_level=LEVEL, ci_method="delta")


def test_delta_leaves_results_without_an_interval_unchanged(informedness):
    rng = np.random.default_rng(8)
    references = rng.integers(0, 5, 200)
    predictions = np.where(rng.random(200) < 0.6, references, rng.integers(0, 5, 200))
    without = informedness.compute(references=references, predictions=predictions, return_per_class=True)
    with_delta = informedness.compute(references=references, predictions=predictions, return_per_class=True,
                                      confidence_level=LEVEL, ci_method="delta")
    assert {key: value for key, value in with_delta.items() if key != "informedness_ci"} == without
    assert without["informedness"] == pytest.approx(
        informedness_metric.informedness_average(confusion_matrix(references, predictions)), abs=1e-15)


@pytest.mark.parametrize("case", range(36))
def test_module_interval_is_the_shared_function_for_every_option(informedness, case):
    rng = np.random.default_rng(100 + case)
    num_classes = 2 + case % 4
    size = int(rng.integers(40, 300))
    references = rng.choice(num_classes, size, p=rng.dirichlet(np.ones(num_classes) * 2))
    references[:num_classes] = np.arange(num_classes)
    predictions = np.where(rng.random(size) < 0.6, references, rng.integers(0, num_classes, size))
    average = AVERAGES[case % 3]
    zero_division = ("skip", 0.0)[(case // 3) % 2]
    class_mask = [0, num_classes - 1] if case % 5 == 0 else None
    weights = rng.random(size) * 2 + 0.1 if case % 4 == 1 else None
    methods = vocabulary.CI_METHODS if num_classes == 2 else ("score", "bootstrap", "delta")
    ci_method = methods[case % len(methods)]
    result = informedness.compute(
        references=references, predictions=predictions, average=average, zero_division=zero_division,
        class_mask=class_mask, sample_weight=weights, confidence_level=0.9, ci_method=ci_method,
        n_resamples=600, seed=case,
    )
    matrix = confusion_matrix(references, predictions, labels=list(range(num_classes)), sample_weight=weights)
    expected = informedness_metric.informedness_interval(
        matrix, confidence_level=0.9, method=ci_method, n_resamples=600, seed=case, average=average,
        class_mask=None if class_mask is None else np.array(class_mask), zero_division=zero_division,
        effective_support=None if weights is None else kish_sizes(references, weights, num_classes),
        squared_weights=None if weights is None else confusion_matrix(references, predictions, labels=list(range(num_classes)),
                                                                      sample_weight=weights**2),
    )
    assert result["informedness_ci"] == pytest.approx(expected.as_list(), abs=1e-12)
    low, high = result["informedness_ci"]
    assert all(type(v) is float for v in result["informedness_ci"]) and -1.0 <= low <= high <= 1.0
    assert low <= result["informedness"] <= high


def test_default_method_is_the_score_interval_for_any_number_of_classes(informedness):
    binary = dict(references=[0] * 30 + [1] * 20, predictions=[0] * 25 + [1] * 5 + [1] * 15 + [0] * 5)
    default = informedness.compute(**binary, confidence_level=LEVEL)
    assert default == informedness.compute(**binary, confidence_level=LEVEL, ci_method="score")
    assert default != informedness.compute(**binary, confidence_level=LEVEL, ci_method="agresti_coull")
    three = dict(references=[0, 0, 0, 1, 1, 1, 2, 2, 2, 2], predictions=[0, 0, 1, 1, 1, 2, 2, 2, 2, 0])
    default = informedness.compute(**three, confidence_level=LEVEL, seed=1)
    assert default == informedness.compute(**three, confidence_level=LEVEL, ci_method="score")
    matrix = confusion_matrix(three["references"], three["predictions"])
    assert default["informedness_ci"] == informedness_metric.informedness_score_interval(matrix, confidence_level=LEVEL).as_list()
    assert default != informedness.compute(**three, confidence_level=LEVEL, ci_method="delta")
    assert default != informedness.compute(**three, confidence_level=LEVEL, ci_method="bootstrap", seed=1)


def test_intervals_are_reproducible_with_a_seed_and_vary_without(informedness):
    data = dict(references=[0] * 40 + [1] * 20 + [2] * 10, predictions=[0] * 35 + [1] * 5 + [1] * 15 + [2] * 5 + [2] * 7 + [0] * 3)
    first = informedness.compute(**data, confidence_level=LEVEL, ci_method="bootstrap", n_resamples=2000, seed=11)
    assert first == informedness.compute(**data, confidence_level=LEVEL, ci_method="bootstrap", n_resamples=2000, seed=11)
    unseeded = {tuple(informedness.compute(**data, confidence_level=LEVEL, ci_method="bootstrap", n_resamples=2000)["informedness_ci"])
                for _ in range(5)}
    assert len(unseeded) > 1


def test_results_with_intervals_are_plain_python_and_markedness_is_unchanged(informedness):
    data = dict(references=["cat", "dog", "dog", "emu", "emu", "cat"], predictions=["cat", "dog", "emu", "emu", "emu", "dog"])
    plain = informedness.compute(**data, return_markedness=True, return_per_class=True)
    result = informedness.compute(**data, return_markedness=True, return_per_class=True, confidence_level=LEVEL, seed=0)
    json.dumps(result)
    assert all(type(v) is float for v in result["informedness_ci"])
    assert {key: value for key, value in result.items() if key != "informedness_ci"} == plain
    assert "markedness_ci" not in result


def test_no_interval_keys_without_confidence_level(informedness):
    assert informedness.compute(references=[0, 1, 1, 0], predictions=[0, 1, 0, 0], ci_method="wilson", seed=3) == {"informedness": 0.5}


def test_equal_weights_give_the_unweighted_interval_and_unequal_weights_widen_it(informedness):
    binary = ([0] * 60 + [1] * 30, [0] * 50 + [1] * 10 + [1] * 24 + [0] * 6)
    three = ([0] * 60 + [1] * 30 + [2] * 20, [0] * 50 + [1] * 10 + [1] * 24 + [2] * 6 + [2] * 15 + [0] * 5)
    for (references, predictions), method in ((binary, "agresti_coull"), (three, "bootstrap")):
        args = dict(references=references, predictions=predictions, confidence_level=LEVEL, ci_method=method, seed=5, n_resamples=4000)
        plain = informedness.compute(**args)
        doubled = informedness.compute(**args, sample_weight=[2.0] * len(references))
        assert doubled["informedness_ci"] == pytest.approx(plain["informedness_ci"], abs=1e-12)
        uneven = np.where(np.arange(len(references)) % 2 == 0, 0.5, 1.5)  # Kish size 80% of n per class
        weighted = informedness.compute(**args, sample_weight=uneven)
        width = lambda r: r["informedness_ci"][1] - r["informedness_ci"][0]  # noqa: E731
        assert width(weighted) > width(plain)
        for scale in (1e-200, 1e200):  # Kish's size does not depend on the weights' scale
            scaled = informedness.compute(**args, sample_weight=uneven * scale)
            assert scaled["informedness_ci"] == pytest.approx(weighted["informedness_ci"], abs=1e-9)


@pytest.mark.parametrize(
    "references, predictions, options",
    [
        ([0] * 30 + [1] * 20 + [2] * 5, [0] * 30 + [1] * 20 + [2] * 5, {}),  # perfect
        ([0] * 30 + [1] * 20, [1] * 30 + [0] * 20, {}),  # perfectly wrong
        ([0] * 30 + [1] * 20, [0] * 50, {}),  # constant: J = 0
        ([0, 1, 2, 3], [0, 1, 3, 2], {}),  # one example per class
        ([0] * 40 + [1] + [2], [0] * 38 + [1, 2] + [1, 0], {}),  # tiny classes
        ([0] * 40 + [1] + [2], [0] * 40 + [2, 1], {"average": "macro"}),
        ([0, 0, 1, 1, 2, 2], [0, 0, 0, 0, 0, 0], {"average": "bookmaker"}),  # predicted class 0 only
    ],
)
@pytest.mark.parametrize("ci_method", [None, "wilson", "bootstrap"])
def test_degenerate_sets_give_a_finite_interval_inside_the_range(informedness, references, predictions, options, ci_method):
    if ci_method == "wilson" and len(set(references) | set(predictions)) > 2:
        ci_method = None  # analytic methods are for two classes
    result = informedness.compute(references=references, predictions=predictions, confidence_level=LEVEL,
                                  ci_method=ci_method, n_resamples=500, seed=0, **options)
    low, high = result["informedness_ci"]
    assert math.isfinite(low) and math.isfinite(high) and -1.0 <= low <= high <= 1.0
    if ci_method != "bootstrap" or len(set(references)) == 2:
        assert low <= result["informedness"] <= high


def test_perfect_multiclass_predictions_give_the_bootstrap_a_width_too(informedness):
    # Every row in one cell: resampling alone could not move, so those rows get pseudo-items; never [1, 1].
    result = informedness.compute(references=[0] * 30 + [1] * 20 + [2] * 5, predictions=[0] * 30 + [1] * 20 + [2] * 5,
                                  confidence_level=LEVEL, seed=0, ci_method="bootstrap")
    low, high = result["informedness_ci"]
    assert result["informedness"] == 1.0 and high == 1.0 and 0.8 < low < 1.0


def test_perfect_multiclass_predictions_give_the_delta_method_a_width(informedness):
    # The pseudo-items of the delta method's variance: a perfect judge on 55 items is not certainly perfect.
    result = informedness.compute(references=[0] * 30 + [1] * 20 + [2] * 5, predictions=[0] * 30 + [1] * 20 + [2] * 5,
                                  confidence_level=LEVEL, ci_method="delta")
    low, high = result["informedness_ci"]
    assert result["informedness"] == 1.0 and high == 1.0 and 0.8 < low < 0.99


def test_perfect_multiclass_predictions_give_the_default_a_width(informedness):
    # The score interval with the gamma bound: no errors in 55 items leave room for a few.
    result = informedness.compute(references=[0] * 30 + [1] * 20 + [2] * 5, predictions=[0] * 30 + [1] * 20 + [2] * 5,
                                  confidence_level=LEVEL)
    low, high = result["informedness_ci"]
    assert result["informedness"] == 1.0 and high == 1.0 and 0.8 < low < 0.99


@pytest.mark.parametrize(
    "kwargs, reason",
    [
        (dict(references=[-100, -100], predictions=[0, 1], ignore_index=-100), "empty_after_ignore_index"),
        (dict(references=[0, 1, 1], predictions=[0, 1, 0], sample_weight=[0, 0, 0]), "no_samples"),
        (dict(references=[1, 1, 1], predictions=[0, 1, 1]), "fewer_than_two_reference_classes"),
        (dict(references=[2, 2, 2], predictions=[0, 1, 2]), "fewer_than_two_reference_classes"),
        (dict(references=[0, 1, 0], predictions=[0, 1, 1], num_classes=3, class_mask=[2]), "empty_class_mask_after_filtering"),
        (dict(references=[0, 1, 2, 0], predictions=[0, 0, 0, 0], class_mask=[1, 2]), "averaged_classes_have_zero_weight"),
    ],
)
@pytest.mark.parametrize("ci_method", [None, "bootstrap"])
def test_undefined_informedness_has_an_undefined_interval(informedness, kwargs, reason, ci_method):
    result = informedness.compute(**kwargs, confidence_level=LEVEL, ci_method=ci_method, n_resamples=200, seed=0)
    assert math.isnan(result["informedness"]) and result["reason"] == reason
    assert all(math.isnan(v) for v in result["informedness_ci"])


def test_a_numeric_zero_division_value_without_two_reference_classes_has_no_interval(informedness):
    for references, predictions in (([1, 1, 1], [0, 1, 1]), ([2, 2, 2, 2], [0, 1, 2, 2])):
        result = informedness.compute(references=references, predictions=predictions, zero_division=0.0, confidence_level=LEVEL)
        assert result["informedness"] == 0.0 and "reason" not in result
        assert all(math.isnan(v) for v in result["informedness_ci"])
        assert result["informedness_ci_reason"] == "fewer_than_two_reference_classes"


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        (dict(confidence_level=95), ValueError, r"confidence_level: expected a number in \(0, 1\) such as 0.95, found 95"),
        (dict(confidence_level="0.95"), TypeError, r"confidence_level: expected a number in \(0, 1\) such as 0.95, found the string '0.95'"),
        (dict(confidence_level=0.95, ci_method="bca"), ValueError, r"ci_method: expected one of \('score', 'agresti_coull', 'wilson', 'bootstrap', 'delta'\) or None, found 'bca'"),
        (dict(confidence_level=0.95, n_resamples=0), ValueError, r"n_resamples: expected an integer in \[1, 1,000,000\], found 0"),
        (dict(confidence_level=0.95, seed=1.5), TypeError, r"seed: expected a non-negative integer or None, found 1.5"),
        (dict(confidence_level=0.95, ci_method="wilson"), ValueError, r"ci_method: 'wilson' has no analytic form for multi-class informedness \(3 classes"),
    ],
)
def test_interval_argument_errors_name_the_argument(informedness, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        informedness.compute(references=[0, 1, 2, 2], predictions=[0, 1, 1, 2], **kwargs)


def test_interval_arguments_are_checked_before_an_early_return(informedness):
    with pytest.raises(ValueError, match=r"confidence_level: expected a number in \(0, 1\)"):
        informedness.compute(references=[-100], predictions=[0], ignore_index=-100, confidence_level=2.0)
    # Refused for three classes even where the value itself is undefined (one reference class).
    with pytest.raises(ValueError, match=r"ci_method: 'agresti_coull' has no analytic form for multi-class informedness"):
        informedness.compute(references=[0, 0, 0], predictions=[0, 1, 2], confidence_level=LEVEL, ci_method="agresti_coull")


def test_runaway_multiclass_bootstrap_is_refused_before_counting(informedness):
    references = np.arange(2000)
    with pytest.raises(ValueError, match=r"n_resamples: the bootstrap of a 2000 x 2000 confusion matrix draws .* Pass n_resamples <= 500\."):
        informedness.compute(references=references, predictions=references, confidence_level=LEVEL, ci_method="bootstrap")


def test_module_bootstrap_covers_three_class_informedness():
    """A small coverage check through the module (the full study: studies/golden_set_coverage/study.py)."""
    metric = load_module("informedness")
    rng = np.random.default_rng(12)
    prior, rates = coverage_study.INFORMEDNESS_PRIOR, coverage_study.INFORMEDNESS_CONFUSION
    truth = coverage_study.population_informedness(prior, rates)
    covered = []
    for index in range(1000):
        support = rng.multinomial(200, prior)
        if not support.all():
            continue
        rows = [rng.multinomial(n, row) for n, row in zip(support, rates)]
        references = np.repeat(np.arange(3), support)
        predictions = np.concatenate([np.repeat(np.arange(3), row) for row in rows])
        low, high = metric.compute(references=references, predictions=predictions, confidence_level=LEVEL,
                                   n_resamples=1000, seed=index)["informedness_ci"]
        covered.append(low <= truth <= high)
    assert len(covered) == 1000 and 0.93 <= np.mean(covered) <= 0.97, np.mean(covered)
