"""balanced_accuracy: documented examples, parity with scikit-learn, inputs, options and errors."""

import json
import math
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import torch
from sklearn.metrics import balanced_accuracy_score, roc_curve

from robustness import assert_plain

# ---------------------------------------------------------------- what the registry's tests need of this module
# (tests/conftest.py module_tests): its value by a peer, and the options it is run with where
# its kind's defaults would leave outputs of its own unchecked.


def peer_value(predictions, references, weights=None):
    """Its value by scikit-learn (tests/integration/test_peer_behaviour.py)."""
    return balanced_accuracy_score(references, predictions, sample_weight=weights)


# tests/integration/test_distributed.py: (predictions, references, options[, extras]) on its named data.
DISTRIBUTED_CASES = [
    ("noisy", "skewed", {"return_per_class": True}),
    ("noisy", "skewed", {"adjusted": True}),
    ("noisy", "skewed", {"class_mask": [1, 2, 3], "zero_division": 0.0}),
    ("judge_predictions", "judge_references", {"pos_label": "unsafe", "return_per_class": True}),
    ("scores", "binary", {"threshold": "auto"}),
    ("token_predictions", "tokens", {"ignore_index": -100, "return_per_class": True}),
]
# ... and with clusters= across processes: (predictions, references, per-sample inputs, options).
DISTRIBUTED_CLUSTER_CASES = [
    ("predictions", "references", {"clusters": "conversation"}, {"confidence_level": 0.95}),
    ("predictions", "references", {"clusters": "conversation", "baseline_predictions": "baseline"}, {"confidence_level": 0.95}),
]
LAW_OPTIONS = dict(return_per_class=True, task="multiclass")  # tests/properties/test_metamorphic.py
NOTHING_LOST_OPTIONS = dict(return_per_class=True, labels=[0, 1, 2, 3, 299, 69_999], class_mask=[0, 1, 2, 3, 4])  # test_nothing_lost.py
FAST_PATH_OPTIONS = dict(ignore_index=-100, return_per_class=True)  # tests/support/fast_path_data.py
HELPER_MAX_LINES = 6_520  # tests/unit/test_vendor.py: the most lines its generated shared_core.py may have
TAKES_SCORES = True  # its predictions may be scores (a threshold makes labels): test_fuzz.py, test_nothing_lost.py


def fuzz_options(classes, scores):
    """tests/properties/test_fuzz.py: (valid, invalid) values of its own options, beyond the label options."""
    valid = dict(
        task=[None, "binary", "multiclass"],
        pos_label=[None, 0, 1, "unsafe", 10**12, classes[0], classes[-1]],
        adjusted=[False, True],
        threshold=[0.5, 0.0, 1.0, "auto", None] if scores else [None, None, 0.5, "auto"],
    )
    invalid = dict(
        task=["multilabel", 1, "Binary"],
        pos_label=[0.5, [1], "nope", 2**70],
        adjusted=["yes", None],
        threshold=[-0.1, 1.5, math.nan, "best", True, [0.5]],
    )
    return valid, invalid



def sklearn_ba(references, predictions, sample_weight=None, adjusted=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "y_pred contains classes not in y_true"
        return balanced_accuracy_score(references, predictions, sample_weight=sample_weight, adjusted=adjusted)


# ---------------------------------------------------------------- documented examples


def test_documented_binary_example(balanced_accuracy):
    result = balanced_accuracy.compute(references=[0, 1, 1, 0], predictions=[0, 1, 0, 0], task="binary")
    assert result == {"balanced_accuracy": 0.75}


def test_documented_weighted_multiclass_example(balanced_accuracy):
    result = balanced_accuracy.compute(
        references=[0, 1, 2, 1],
        predictions=[0, 2, 2, 1],
        task="multiclass",
        num_classes=3,
        return_per_class=True,
        sample_weight=[1, 0.5, 1, 1],
    )
    assert result["balanced_accuracy"] == pytest.approx((1 + 1 / 1.5 + 1) / 3, abs=1e-15)
    assert result["per_class_recall"] == pytest.approx([1.0, 1 / 1.5, 1.0], abs=1e-15)
    assert result["support_per_class"] == [1.0, 1.5, 1.0]


def test_documented_class_mask_example(balanced_accuracy):
    result = balanced_accuracy.compute(references=[0, 1, 2, 1], predictions=[0, 2, 2, 1], class_mask=[1, 2])
    assert result == {"balanced_accuracy": 0.75}


def test_documented_auto_threshold_example(balanced_accuracy):
    result = balanced_accuracy.compute(references=[0, 1, 1, 0], predictions=[0.2, 0.9, 0.1, 0.3], threshold="auto")
    assert result == {"balanced_accuracy": 0.75, "optimal_threshold": 0.6}


def test_card_judge_example(balanced_accuracy):
    """The card's LLM-judge example: BA prefers judge A although accuracy and F1 prefer B."""

    def judge(tp, fp, tn, fn):
        references = [1] * (tp + fn) + [0] * (fp + tn)
        predictions = [1] * tp + [0] * fn + [1] * fp + [0] * tn
        return references, predictions

    ref_a, pred_a = judge(63, 133, 784, 20)
    ref_b, pred_b = judge(47, 69, 848, 36)
    ba_a = balanced_accuracy.compute(references=ref_a, predictions=pred_a)["balanced_accuracy"]
    ba_b = balanced_accuracy.compute(references=ref_b, predictions=pred_b)["balanced_accuracy"]
    assert round(ba_a, 2) == 0.81 and round(ba_b, 2) == 0.75
    accuracy_a, accuracy_b = (63 + 784) / 1000, (47 + 848) / 1000
    f1_a, f1_b = 2 * 63 / (2 * 63 + 133 + 20), 2 * 47 / (2 * 47 + 69 + 36)
    assert accuracy_b > accuracy_a and f1_b > f1_a and ba_a > ba_b


# ---------------------------------------------------------------- parity with scikit-learn


def generated_cases(count=240, seed=0):
    rng = np.random.default_rng(seed)
    for case in range(count):
        num_classes = int(rng.integers(2, 9))
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
        yield references, predictions, weights, bool(case % 2)


@pytest.mark.parametrize("case", list(range(240)))
def test_parity_with_sklearn(balanced_accuracy, case):
    references, predictions, weights, adjusted = list(generated_cases())[case]
    expected = sklearn_ba(references, predictions, weights, adjusted)
    kept = np.asarray(weights) > 0 if weights is not None else np.ones(len(references), dtype=bool)
    golden, given = set(np.asarray(references)[kept].tolist()), set(np.asarray(predictions)[kept].tolist())
    if golden and not golden & given and (len(golden) >= 2 or len(given) >= 2):
        # Labels sharing no class with the references (another vocabulary): refused, where
        # scikit-learn scores every recall 0 with a warning.
        with pytest.raises(ValueError, match=r"^predictions: expected labels among the references' classes"):
            balanced_accuracy.compute(references=references, predictions=predictions, sample_weight=weights, adjusted=adjusted,
                                      task="multiclass")
        return
    result = balanced_accuracy.compute(
        references=references, predictions=predictions, sample_weight=weights, adjusted=adjusted, task="multiclass"
    )
    if math.isnan(expected) or (adjusted and not np.isfinite(expected)):
        assert math.isnan(result["balanced_accuracy"]) and "reason" in result
    else:
        assert result["balanced_accuracy"] == pytest.approx(expected, abs=1e-12)


def test_parity_with_sklearn_on_string_labels(balanced_accuracy):
    names = np.array(["cat", "dog", "emu", "yak"])
    for references, predictions, weights, adjusted in generated_cases(40, seed=1):
        references, predictions = references % 4, predictions % 4
        expected = sklearn_ba(names[references], names[predictions], weights, adjusted)
        case = dict(references=names[references].tolist(), predictions=names[predictions].tolist(), sample_weight=weights,
                    adjusted=adjusted)
        kept = np.asarray(weights) > 0 if weights is not None else np.ones(len(references), dtype=bool)
        golden, given = set(references[kept].tolist()), set(predictions[kept].tolist())
        if len(golden) == 2 and golden & given and not given <= golden:
            # Strings outside a two-class golden set (another vocabulary) are refused; declared, scikit-learn's value.
            with pytest.raises(ValueError, match=r"^predictions: expected labels of the golden set's 2 classes"):
                balanced_accuracy.compute(**case)
            case["labels"] = names.tolist()
        result = balanced_accuracy.compute(**case)
        if np.isfinite(expected):
            assert result["balanced_accuracy"] == pytest.approx(expected, abs=1e-12)


def test_fixed_threshold_equals_sklearn_on_binarized_scores(balanced_accuracy):
    rng = np.random.default_rng(2)
    references = rng.integers(0, 2, 500)
    scores = np.clip(references * 0.3 + rng.random(500) * 0.7, 0, 1)
    for threshold in (0.2, 0.5, 0.65):
        result = balanced_accuracy.compute(references=references, predictions=scores, threshold=threshold)
        expected = sklearn_ba(references, (scores >= threshold).astype(int))
        assert result["balanced_accuracy"] == pytest.approx(expected, abs=1e-12)


def test_auto_threshold_reaches_the_roc_optimum(balanced_accuracy):
    rng = np.random.default_rng(3)
    for _ in range(20):
        references = rng.integers(0, 2, 300)
        scores = references + rng.normal(0, 1.2, 300)  # logits, any real
        result = balanced_accuracy.compute(references=references, predictions=scores, threshold="auto")
        fpr, tpr, _ = roc_curve(references, scores)
        assert result["balanced_accuracy"] == pytest.approx(((tpr - fpr).max() + 1) / 2, abs=1e-12)
        applied = sklearn_ba(references, (scores >= result["optimal_threshold"]).astype(int))
        assert applied == pytest.approx(result["balanced_accuracy"], abs=1e-12)


# ---------------------------------------------------------------- inputs and options


@pytest.mark.parametrize(
    "convert",
    [list, tuple, np.array, torch.tensor, pd.Series, pa.array, lambda x: torch.tensor(x, dtype=torch.float32, requires_grad=True)],
    ids=["list", "tuple", "numpy", "torch", "pandas", "pyarrow", "torch_requires_grad"],
)
def test_input_containers(balanced_accuracy, convert):
    references, predictions = [0, 1, 2, 1, 0], [0, 1, 1, 1, 2]
    result = balanced_accuracy.compute(references=convert(references), predictions=convert(predictions))
    assert result["balanced_accuracy"] == pytest.approx(sklearn_ba(references, predictions), abs=1e-15)


def test_segmentation_maps_are_flattened_and_ignore_index_drops_void(balanced_accuracy):
    rng = np.random.default_rng(4)
    references = rng.integers(0, 5, (3, 16, 16)).astype(np.uint8)
    references[:, :2] = 255
    predictions = np.where(rng.random(references.shape) < 0.7, references, rng.integers(0, 5, references.shape)).astype(np.uint8)
    result = balanced_accuracy.compute(references=references, predictions=predictions, ignore_index=255)
    keep = references.ravel() != 255
    assert result["balanced_accuracy"] == pytest.approx(sklearn_ba(references.ravel()[keep], predictions.ravel()[keep]), abs=1e-12)


def test_token_classification_padding(balanced_accuracy):
    references = np.array([[1, 2, 0, -100, -100], [0, 0, 2, 1, -100]])
    predictions = np.array([[1, 2, 2, 0, 0], [0, 1, 2, 1, 2]])
    result = balanced_accuracy.compute(references=references, predictions=predictions, ignore_index=-100, return_per_class=True)
    keep = references != -100
    assert result["balanced_accuracy"] == pytest.approx(sklearn_ba(references[keep], predictions[keep]))
    assert result["classes"] == [0, 1, 2]


def test_empty_after_ignore_index(balanced_accuracy):
    result = balanced_accuracy.compute(references=[-100, -100], predictions=[0, 1], ignore_index=-100)
    assert math.isnan(result["balanced_accuracy"]) and result["reason"] == "empty_after_ignore_index"


def test_empty_class_mask_after_filtering(balanced_accuracy):
    # class 2 exists only in predictions: it has no recall, so the mask leaves nothing.
    result = balanced_accuracy.compute(references=[0, 1, 0], predictions=[0, 2, 2], num_classes=3, class_mask=[2])
    assert math.isnan(result["balanced_accuracy"]) and result["reason"] == "empty_class_mask_after_filtering"


def test_class_without_support_and_zero_division(balanced_accuracy):
    references, predictions = [0, 0, 1, 1], [0, 2, 1, 1]
    skipped = balanced_accuracy.compute(references=references, predictions=predictions, return_per_class=True)
    assert skipped["balanced_accuracy"] == pytest.approx(sklearn_ba(references, predictions))
    assert skipped["per_class_recall"][:2] == [0.5, 1.0] and math.isnan(skipped["per_class_recall"][2])
    assert skipped["support_per_class"] == [2, 2, 0]
    zero = balanced_accuracy.compute(references=references, predictions=predictions, zero_division=0.0, return_per_class=True)
    assert zero["balanced_accuracy"] == pytest.approx(0.5) and zero["per_class_recall"] == [0.5, 1.0, 0.0]
    one = balanced_accuracy.compute(references=references, predictions=predictions, zero_division=1)
    assert one["balanced_accuracy"] == pytest.approx(2.5 / 3)


def test_a_class_predicted_but_never_referenced_warns_as_sklearn_does(balanced_accuracy):
    references, predictions = [0, 0, 1, 1], [0, 2, 1, 1]
    with pytest.warns(UserWarning, match="y_pred contains classes not in y_true"):
        balanced_accuracy_score(references, predictions)
    with pytest.warns(UserWarning, match=r"^Recall is undefined for class 2: no reference samples"):
        result = balanced_accuracy.compute(references=references, predictions=predictions, return_per_class=True)
    assert math.isnan(result["per_class_recall"][2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numeric zero_division is the user's explicit choice: no warning
        balanced_accuracy.compute(references=references, predictions=predictions, zero_division=0.0)


def test_binary_references_without_positives_warn_and_give_the_specificity(balanced_accuracy):
    # references [0]*10: recall of class 1 is undefined; the value is the specificity alone.
    references, predictions = [0] * 10, [0] * 8 + [1] * 2
    with pytest.warns(UserWarning, match=r"^Recall is undefined for class 1: .*in a binary task, the recall of the other class alone"):
        result = balanced_accuracy.compute(references=references, predictions=predictions, return_per_class=True,
                                           confidence_level=0.95)
    assert result["balanced_accuracy"] == pytest.approx(sklearn_ba(references, predictions)) == 0.8
    assert result["per_class_recall"][0] == 0.8 and math.isnan(result["per_class_recall"][1])
    # Even when nothing is predicted positive, a binary task's missing class is reported.
    with pytest.warns(UserWarning, match=r"^Recall is undefined for class 1"):
        balanced_accuracy.compute(references=[0] * 4, predictions=[0] * 4, task="binary")
    with pytest.warns(UserWarning, match=r"^Recall is undefined for class 'unsafe'"):
        balanced_accuracy.compute(references=["safe"] * 3, predictions=["safe", "unsafe", "safe"], pos_label="unsafe")


def test_a_class_neither_referenced_nor_predicted_is_skipped_silently(balanced_accuracy):
    # Nothing in the data says anything about class 4: left out, as scikit-learn never sees it.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = balanced_accuracy.compute(references=[0, 1, 2, 1], predictions=[0, 1, 2, 2], num_classes=5)
    assert result["balanced_accuracy"] == pytest.approx(sklearn_ba([0, 1, 2, 1], [0, 1, 2, 2]))


@pytest.mark.parametrize("class_mask", [[0, 1], [0], [0, 1, 2]])
def test_adjusted_with_class_mask_is_refused_before_any_data(balanced_accuracy, load, class_mask):
    # A uniform guesser over 10 classes, averaged over classes 0 and 1: chance would be taken
    # as 1/2 and the guesser score -0.8; with another prior no fixed chance level fits.
    rng = np.random.default_rng(0)
    references, guesses = rng.integers(0, 10, 2000), rng.integers(0, 10, 2000)
    pattern = r"^adjusted: no chance correction for an average over class_mask; expected adjusted=True without class_mask"
    with pytest.raises(ValueError, match=pattern):
        balanced_accuracy.compute(references=references, predictions=guesses, adjusted=True, class_mask=class_mask)
    with pytest.raises(ValueError, match=pattern):  # options are checked before data: even with every sample ignored
        balanced_accuracy.compute(references=[-100, -100], predictions=[0, 1], ignore_index=-100, adjusted=True,
                                  class_mask=class_mask)
    metric = load("balanced_accuracy", adjusted=True)
    with pytest.raises(ValueError, match=pattern):
        metric.compute(references=references, predictions=guesses, class_mask=class_mask)
    # Without the mask the guesser scores about 0, as the card says.
    unmasked = balanced_accuracy.compute(references=references, predictions=guesses, adjusted=True)
    assert abs(unmasked["balanced_accuracy"]) < 0.05


def test_string_labels_with_labels_order_and_pos_label(balanced_accuracy):
    references = ["unsafe", "safe", "safe", "safe", "unsafe"]
    predictions = ["unsafe", "safe", "unsafe", "safe", "safe"]
    result = balanced_accuracy.compute(
        references=references, predictions=predictions, labels=["unsafe", "safe"], pos_label="unsafe", return_per_class=True
    )
    assert result["classes"] == ["unsafe", "safe"]
    assert result["per_class_recall"] == [0.5, pytest.approx(2 / 3)]
    assert result["balanced_accuracy"] == pytest.approx(sklearn_ba(references, predictions))


def test_judge_scores_with_string_references_and_pos_label(balanced_accuracy):
    references = ["unsafe", "safe", "safe", "unsafe", "safe"]
    scores = [9, 2, 6, 7, 1]  # an LLM judge's 1-10 "unsafety" score
    result = balanced_accuracy.compute(references=references, predictions=scores, threshold="auto", pos_label="unsafe")
    assert result == {"balanced_accuracy": 1.0, "optimal_threshold": 6.5}


def test_huge_label_values_do_not_allocate(balanced_accuracy):
    result = balanced_accuracy.compute(references=[10**12, 5, 5], predictions=[10**12, 5, 10**12])
    assert result["balanced_accuracy"] == 0.75


def test_results_are_plain_python_and_json_safe(balanced_accuracy):
    result = balanced_accuracy.compute(
        references=np.array([0, 1, 2, 2]), predictions=np.array([0, 1, 1, 2]), return_per_class=True, sample_weight=np.ones(4)
    )
    json.dumps(result)
    assert_plain(result, keys=(str,))


def test_streaming_add_batch_and_add_match_one_call(load):
    rng = np.random.default_rng(5)
    references = rng.integers(0, 4, 1000)
    predictions = np.where(rng.random(1000) < 0.6, references, rng.integers(0, 4, 1000))
    expected = sklearn_ba(references, predictions)
    for keep_in_memory in (False, True):
        metric = load("balanced_accuracy", keep_in_memory=keep_in_memory)
        for start in range(0, 990, 110):
            metric.add_batch(references=references[start : start + 110], predictions=predictions[start : start + 110])
        for reference, prediction in zip(references[990:], predictions[990:]):
            metric.add(reference=reference, prediction=prediction)
        assert metric.compute()["balanced_accuracy"] == pytest.approx(expected, abs=1e-12)


def test_rejected_batch_leaves_earlier_batches_intact(load):
    metric = load("balanced_accuracy")
    metric.add_batch(references=[0, 1, 1], predictions=[0, 1, 0])
    with pytest.raises(ValueError, match="predictions and references"):
        metric.add_batch(references=[0, 1], predictions=[0])
    metric.add_batch(references=[0], predictions=[1])
    assert metric.compute()["balanced_accuracy"] == pytest.approx(sklearn_ba([0, 1, 1, 0], [0, 1, 0, 1]))


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        (dict(references=[0, 1, 1], predictions=[0, 1]), ValueError, r"predictions and references: expected the same shape, found \(2,\) and \(3,\)"),
        (dict(references=[0, 1], predictions=[0.5, float("nan")], threshold=0.5), ValueError, r"predictions: expected finite values"),
        (dict(references=[0, 1], predictions=[0, float("inf")]), ValueError, r"predictions: expected finite values"),
        (dict(references=[0, 2], predictions=[0, 1], task="binary"), ValueError, r"task: binary expects labels 0/1, found \[0, 1, 2\]"),
        (dict(references=[0, 1], predictions=[0.2, 0.9], threshold=1.5), ValueError, r"threshold: expected a threshold on the scale of predictions, found 1.5 with all of predictions in \[0.2, 0.9\] \(probabilities or 0/1 labels\): above 1, nothing is positive"),
        (dict(references=[0, 3], predictions=[0, 1], num_classes=3), ValueError, r"references: expected labels in \[0, 2\], found \[3\]"),
        (dict(references=[0, 1], predictions=[0, 1], sample_weight=[1, -1]), ValueError, r"sample_weight: expected non-negative weights"),
        (dict(references=[0, 1], predictions=[0, 1], sample_weight=[1, float("nan")]), ValueError, r"sample_weight: expected finite values"),
        (dict(references=[0, 1], predictions=[0, 1], sample_weight=[1, 1, 1]), ValueError, r"sample_weight: expected one weight per sample \(2 values"),
        (dict(references=[0, 1], predictions=[0, 1], task="multilabel"), ValueError, r"task: expected one of \('binary', 'multiclass'\) or None, found 'multilabel'"),
        (dict(references=[0, 1], predictions=[0.1, 0.9], threshold="best"), ValueError, r"threshold: expected a number \(a finite score, or inf for nothing positive\) or 'auto', found 'best'"),
        (dict(references=[0, 1], predictions=[0.1, 0.9], threshold=-2), ValueError, r"threshold: expected a threshold on the scale of predictions, found -2.0 with all of predictions in \[0.1, 0.9\] \(probabilities or 0/1 labels\): below 0, everything is positive"),
        (dict(references=[0, 1], predictions=[0.1, 0.9], threshold=float("nan")), ValueError, r"threshold: expected a number \(a finite score, or inf for nothing positive\) or 'auto', found nan"),
        (dict(references=[0, "1"], predictions=[0, 1]), TypeError, r"references: expected one label type, found a mix of strings and numbers"),
        (dict(references=["a", "b"], predictions=[0, 1]), TypeError, r"predictions and references: expected labels of one type, found references are strings, predictions are integers"),
        (dict(references=[0, 1], predictions=[0.2, 0.7]), ValueError, r"predictions: expected class labels .* found non-integer values such as 0.2\. For scores"),
        (dict(references=[0, 1, 2], predictions=[0.1, 0.2, 0.3], threshold=0.5), ValueError, r"task: binary expects labels 0/1"),
        (dict(references=[0, 1], predictions=[0, 1], zero_division="warn"), ValueError, r"zero_division: expected 'skip', 0.0 or 1.0, found 'warn'"),
        (dict(references=[0, 1], predictions=[0, 1], class_mask=[5]), ValueError, r"class_mask: expected indices in \[0, 1\], found \[5\]"),
        (dict(references=["a", "b"], predictions=["a", "c"], labels=["a", "b"]), ValueError, r"predictions: expected values among `labels`, found unknown value\(s\) \['c'\]"),
        (dict(references=[0, 1], predictions=[0, 1], labels=[0, 1, 2], task="binary"), ValueError, r"labels: a binary task needs exactly 2 labels, found 3"),
        (dict(references=[[0, 1], [1]], predictions=[0, 1, 1]), ValueError, r"references: expected a rectangular array"),
    ],
)
def test_errors_name_the_argument_expected_and_found(balanced_accuracy, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        balanced_accuracy.compute(**kwargs)
