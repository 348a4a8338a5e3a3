"""balanced_accuracy_multilabel: documented examples, parity with scikit-learn, auto thresholds, inputs, errors, intervals."""

import importlib
import json
import math
import tracemalloc
import warnings
from statistics import NormalDist

import numpy as np
import pytest
import torch
from sklearn.metrics import balanced_accuracy_score, confusion_matrix, multilabel_confusion_matrix

from shared.stats import binomial
from shared.stats import vocabulary
from shared.metrics.multilabel import binary_columns_interval
from conftest import load_module
from robustness import assert_plain
from shared.counting import thresholds as core_thresholds
from shared.stats.distributions import t_quantile
from multilabel_design import direct_design_effect

# ---------------------------------------------------------------- what the registry's tests need of this module
# (tests/conftest.py module_tests): its value by a peer, and the options it is run with where
# its kind's defaults would leave outputs of its own unchecked.


def peer_value(predictions, references, weights=None):
    """The mean over labels of scikit-learn's balanced accuracy (tests/integration/test_peer_behaviour.py)."""
    predictions, references = np.asarray(predictions), np.asarray(references)
    return float(np.mean([balanced_accuracy_score(references[:, label], predictions[:, label], sample_weight=weights)
                          for label in range(references.shape[1])]))


# tests/integration/test_distributed.py: (predictions, references, options[, extras]) on its named data.
DISTRIBUTED_CASES = [
    ("tag_scores", "tags", {"from_probas": True, "threshold": "auto", "return_per_label": True}),
    ("tag_labels", "tags", {"average": "micro"}),
    ("tag_labels", "tags", {"average": "weighted", "return_per_label": True}),
    # Intervals with clusters (issue 25): each sample a cluster (counted by add_batch as
    # confidence_level is given at load), and clusters= given with the batches.
    ("tag_labels", "tags", {"average": "micro", "return_per_label": True}, {"load": {"confidence_level": 0.9, "seed": 0}}),
    ("tag_labels", "tags", {"confidence_level": 0.95, "seed": 0}, {"inputs": {"clusters": "triples"}}),
]
LAW_OPTIONS = dict(from_probas=True, threshold="auto", return_per_label=True)  # tests/properties/test_metamorphic.py
NOTHING_LOST_OPTIONS = dict(from_probas=True, threshold="auto", return_per_label=True)  # tests/properties/test_nothing_lost.py
FAST_PATH_OPTIONS = dict(from_probas=True, threshold="auto", ignore_index=-100, return_per_label=True)  # fast_path_data.py
HELPER_MAX_LINES = 4_300  # tests/unit/test_vendor.py: the most lines its generated shared_core.py may have


def fuzz_options(num_labels, names):
    """tests/properties/test_fuzz.py: (valid, invalid) values of its options for rows of ``num_labels`` labels."""
    valid = dict(
        from_probas=[False, True],
        threshold=[0.5, 0.0, 1.0, "auto", [0.5] * num_labels, [math.inf] * num_labels],
        average=["macro", "weighted", "micro"],
        class_mask=[None, [0], [1], [0, 1], []],
        ignore_index=[None, -100, 2],
        sample_weight=[None],
        zero_division=["skip", 0, 1.0],
        return_per_label=[False, True],
        label_names=[None, names],
    )
    invalid = dict(
        from_probas=["yes"],
        threshold=[-1, 1.5, "best", [0.5] * (num_labels + 1), [math.nan] * num_labels, [-1.0] * num_labels, [["a"]] * num_labels],
        average=["bookmaker", "samples", None],
        class_mask=[[9], [-1], [0.5]],
        ignore_index=[0, 1, 1.5, "x", True, 2**70],
        zero_division=["warn", 0.5],
        return_per_label=["yes"],
        label_names=[names + ["extra"], ["same"] * num_labels, list(range(num_labels)), "names"],
    )
    return valid, invalid


EXAMPLE_REFERENCES = [[1, 0, 1], [0, 1, 0]]


@pytest.fixture(scope="module")
def metric():
    return load_module("balanced_accuracy_multilabel")


def sklearn_ba(references, predictions, sample_weight=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "y_pred contains classes not in y_true"
        return balanced_accuracy_score(references, predictions, sample_weight=sample_weight)


def generated_cases(count, seed):
    """Skewed multilabel data: some labels rare, some with no positives or no negatives at all."""
    rng = np.random.default_rng(seed)
    for case in range(count):
        size, num_labels = int(rng.integers(1, 120)), int(rng.integers(1, 7))
        prevalence = rng.beta(0.4, 1.5, num_labels)
        prevalence[rng.random(num_labels) < 0.1] = 1.0
        references = (rng.random((size, num_labels)) < prevalence).astype(int)
        scores = np.clip(references * rng.random(num_labels) + rng.random((size, num_labels)) * 0.8, 0, 1)
        weights = None
        if case % 3 == 1:
            weights = rng.random(size) * 3
        elif case % 3 == 2:
            weights = rng.integers(0, 4, size).astype(float)
            weights[0] = 1.0
        yield references, scores, weights


# ---------------------------------------------------------------- documented examples


def test_documented_label_example(metric):
    result = metric.compute(references=EXAMPLE_REFERENCES, predictions=[[1, 0, 0], [0, 1, 1]], return_per_label=True)
    assert result == {"balanced_accuracy": pytest.approx(2 / 3, abs=1e-15), "per_label_ba": [1.0, 1.0, 0.0], "support_per_label": [1, 1, 1]}


def test_documented_auto_threshold_example(metric):
    result = metric.compute(
        references=EXAMPLE_REFERENCES, predictions=[[0.9, 0.2, 0.1], [0.1, 0.8, 0.7]], from_probas=True, threshold="auto"
    )
    # Labels 0 and 1: the midpoint between the two scores. Label 2 is backwards: "nothing
    # positive" (inf) and "everything positive" (0.1) both give BA 0.5; the highest wins.
    assert result == {"balanced_accuracy": pytest.approx(2.5 / 3, abs=1e-15), "per_label_thresholds": [0.5, 0.5, math.inf]}


def test_documented_averages_example(metric):
    references, predictions = [[1, 0], [1, 0], [1, 1], [0, 0]], [[1, 1], [1, 0], [1, 0], [0, 0]]
    # label 0: TPR 3/3, TNR 1/1 -> 1; label 1: TPR 0/1, TNR 2/3 -> 1/3; supports 3 and 1.
    # micro: TP 3 of 4 positives, TN 3 of 4 negatives -> 0.75.
    results = [metric.compute(references=references, predictions=predictions, average=a)["balanced_accuracy"] for a in ("macro", "weighted", "micro")]
    assert results == pytest.approx([(1 + 1 / 3) / 2, (3 * 1 + 1 * (1 / 3)) / 4, 0.75], abs=1e-15)


def test_documented_ignore_index_class_mask_and_names_example(metric):
    result = metric.compute(
        references=[[1, -100], [0, 1], [1, 0]],
        predictions=[[1, 1], [1, 1], [1, 0]],
        ignore_index=-100,
        class_mask=[1],
        return_per_label=True,
        label_names=["cat", "dog"],
    )
    assert result == {"balanced_accuracy": 1.0, "per_label_ba": [0.5, 1.0], "support_per_label": [2, 1], "label_names": ["cat", "dog"]}


def test_documented_zero_division_example(metric):
    kwargs = dict(references=[[1, 0], [0, 0]], predictions=[[1, 1], [0, 0]], return_per_label=True)
    assert metric.compute(**kwargs)["per_label_ba"] == [1.0, 0.5]  # label 1: no positives, TNR 1/2
    assert metric.compute(**kwargs, zero_division=1.0)["per_label_ba"] == [1.0, 0.75]
    assert metric.compute(**kwargs, zero_division=0.0)["per_label_ba"] == [1.0, 0.25]


# ---------------------------------------------------------------- parity with scikit-learn


@pytest.mark.parametrize("case", range(90))
def test_per_label_macro_weighted_micro_match_sklearn(metric, case):
    references, scores, weights = list(generated_cases(90, seed=0))[case]
    predictions = (scores >= 0.5).astype(int)
    num_labels = references.shape[1]
    per_label = [sklearn_ba(references[:, l], predictions[:, l], weights) for l in range(num_labels)]
    positives = references.sum(0) if weights is None else weights @ references
    results = {
        average: metric.compute(
            references=references, predictions=predictions, sample_weight=weights, average=average, return_per_label=True
        )
        for average in ("macro", "weighted", "micro")
    }
    assert results["macro"]["per_label_ba"] == pytest.approx(per_label, abs=1e-12)
    assert results["macro"]["support_per_label"] == pytest.approx(positives.tolist(), abs=1e-12)
    assert results["macro"]["balanced_accuracy"] == pytest.approx(np.mean(per_label), abs=1e-12)
    if positives.sum() > 0:
        assert results["weighted"]["balanced_accuracy"] == pytest.approx(np.average(per_label, weights=positives), abs=1e-12)
    else:
        assert math.isnan(results["weighted"]["balanced_accuracy"]) and results["weighted"]["reason"] == "no_positive_support"
    flat_weights = None if weights is None else np.repeat(weights, num_labels)
    assert results["micro"]["balanced_accuracy"] == pytest.approx(sklearn_ba(references.ravel(), predictions.ravel(), flat_weights), abs=1e-12)


@pytest.mark.parametrize("zero_division", ["skip", 0.0, 1.0])
def test_each_label_equals_balanced_accuracy_on_its_column(metric, balanced_accuracy, zero_division):
    """The undefined-rate rule is balanced_accuracy's: per_label_ba[l] is balanced_accuracy of column l."""
    for references, scores, weights in generated_cases(30, seed=1):
        predictions = (scores >= 0.5).astype(int)
        result = metric.compute(
            references=references, predictions=predictions, sample_weight=weights, zero_division=zero_division, return_per_label=True
        )
        for l in range(references.shape[1]):
            column = balanced_accuracy.compute(
                references=references[:, l], predictions=predictions[:, l], task="binary", sample_weight=weights, zero_division=zero_division
            )
            assert result["per_label_ba"][l] == pytest.approx(column["balanced_accuracy"], abs=1e-12)


def test_fixed_threshold_on_probabilities_equals_sklearn_on_binarised(metric):
    for references, scores, weights in generated_cases(20, seed=2):
        for threshold in (0.3, 0.5, 0.8):
            result = metric.compute(
                references=references, predictions=scores, from_probas=True, threshold=threshold, sample_weight=weights, return_per_label=True
            )
            expected = [sklearn_ba(references[:, l], scores[:, l] >= threshold, weights) for l in range(references.shape[1])]
            assert result["per_label_ba"] == pytest.approx(expected, abs=1e-12)


def test_ignore_index_drops_entries_not_rows(metric):
    rng = np.random.default_rng(3)
    for references, scores, weights in generated_cases(30, seed=3):
        references = references.copy()
        ignored = rng.random(references.shape) < 0.3
        references[ignored] = -100
        predictions = (scores >= 0.5).astype(int)
        kwargs = dict(references=references, predictions=predictions, sample_weight=weights, ignore_index=-100)
        if ignored.all():
            assert metric.compute(**kwargs)["reason"] == "empty_after_ignore_index"
            continue
        result = metric.compute(**kwargs, return_per_label=True)
        for l in range(references.shape[1]):
            keep = ~ignored[:, l]
            if keep.any() and (weights is None or weights[keep].sum() > 0):
                w = None if weights is None else weights[keep]
                assert result["per_label_ba"][l] == pytest.approx(sklearn_ba(references[keep, l], predictions[keep, l], w), abs=1e-12)
            else:
                assert math.isnan(result["per_label_ba"][l])  # nothing measured for this label
        flat_weights = None if weights is None else np.repeat(weights, references.shape[1])[~ignored.ravel()]
        micro = metric.compute(**kwargs, average="micro")["balanced_accuracy"]
        expected = sklearn_ba(references[~ignored], predictions[~ignored], flat_weights)
        if np.isnan(expected):
            assert math.isnan(micro)
        else:
            assert micro == pytest.approx(expected, abs=1e-12)


def test_class_mask_averages_only_the_selected_labels(metric):
    rng = np.random.default_rng(4)
    references = (rng.random((200, 5)) < [0.5, 0.1, 0.3, 0.05, 0.6]).astype(int)
    predictions = np.where(rng.random((200, 5)) < 0.8, references, 1 - references)
    mask = [1, 3]
    per_label = [sklearn_ba(references[:, l], predictions[:, l]) for l in mask]
    macro = metric.compute(references=references, predictions=predictions, class_mask=mask)
    assert macro["balanced_accuracy"] == pytest.approx(np.mean(per_label), abs=1e-12)
    weighted = metric.compute(references=references, predictions=predictions, class_mask=mask, average="weighted")
    assert weighted["balanced_accuracy"] == pytest.approx(np.average(per_label, weights=references[:, mask].sum(0)), abs=1e-12)
    micro = metric.compute(references=references, predictions=predictions, class_mask=mask, average="micro")
    assert micro["balanced_accuracy"] == pytest.approx(sklearn_ba(references[:, mask].ravel(), predictions[:, mask].ravel()), abs=1e-12)


# ---------------------------------------------------------------- threshold="auto"


def brute_force_best(scores, references, weights):
    """Every cut point of one column, scored by scikit-learn: (best BA, highest threshold reaching it).

    Cut points come from the scores of weight > 0 (roc_curve's rule: weight-0 samples count for nothing)."""
    distinct = np.unique(scores if weights is None else scores[weights != 0])[::-1]
    candidates = [math.inf] + [(a + b) / 2 for a, b in zip(distinct[:-1], distinct[1:])] + [distinct[-1]]
    values = [sklearn_ba(references, scores >= t, weights) for t in candidates]
    best = max(values)
    return best, max(t for t, v in zip(candidates, values) if v >= best - 1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_auto_thresholds_reach_the_brute_force_optimum_and_reproduce_it(metric, seed):
    for references, scores, weights in generated_cases(25, seed=10 + seed):
        scores = np.round(scores * 8) / 8  # ties between scores
        result = metric.compute(
            references=references, predictions=scores, from_probas=True, threshold="auto", sample_weight=weights, return_per_label=True
        )
        thresholds = result["per_label_thresholds"]
        for l in range(references.shape[1]):
            if weights is not None and weights.sum() == 0:
                continue
            best, highest = brute_force_best(scores[:, l], references[:, l], weights)
            assert result["per_label_ba"][l] == pytest.approx(best, abs=1e-12)
            assert thresholds[l] == pytest.approx(highest)  # the documented tie rule
            assert sklearn_ba(references[:, l], scores[:, l] >= thresholds[l], weights) == pytest.approx(best, abs=1e-12)
        applied = metric.compute(
            references=references, predictions=scores, from_probas=True, threshold=thresholds, sample_weight=weights, return_per_label=True
        )
        assert applied["per_label_ba"] == pytest.approx(result["per_label_ba"], abs=1e-12, nan_ok=True)
        assert applied["balanced_accuracy"] == pytest.approx(result["balanced_accuracy"], abs=1e-12, nan_ok=True)


def test_auto_thresholds_ignore_masked_entries_in_counts_and_cut_points(metric):
    rng = np.random.default_rng(5)
    for references, scores, weights in generated_cases(40, seed=6):
        references = references.copy()
        ignored = rng.random(references.shape) < 0.3
        references[ignored] = -1
        masked_scores = scores.copy()
        masked_scores[ignored] = rng.random(ignored.sum())  # arbitrary: must change nothing
        result = metric.compute(
            references=references, predictions=masked_scores, from_probas=True, threshold="auto", ignore_index=-1,
            sample_weight=weights, return_per_label=True,
        )
        if ignored.all():
            assert result["reason"] == "empty_after_ignore_index"
            continue
        for l in range(references.shape[1]):
            keep = ~ignored[:, l]
            if not keep.any():
                assert result["per_label_thresholds"][l] == math.inf and math.isnan(result["per_label_ba"][l])
                continue
            alone = metric.compute(
                references=references[keep, l][:, None], predictions=scores[keep, l][:, None], from_probas=True, threshold="auto",
                sample_weight=None if weights is None else weights[keep], return_per_label=True,
            )
            assert result["per_label_thresholds"][l] == alone["per_label_thresholds"][0]
            assert result["per_label_ba"][l] == pytest.approx(alone["per_label_ba"][0], abs=1e-12, nan_ok=True)


def test_youden_thresholds_mask_equals_dropping_the_entries():
    rng = np.random.default_rng(7)
    for _ in range(200):
        n, columns = int(rng.integers(1, 30)), int(rng.integers(1, 4))
        scores, positives = rng.integers(0, 6, (n, columns)) / 5.0, rng.integers(0, 2, (n, columns))
        weights = rng.random((n, columns))
        plain = core_thresholds.youden_thresholds(scores, positives, weights)
        all_true = core_thresholds.youden_thresholds(scores, positives, weights, mask=np.ones((n, columns), bool))
        for a, b in zip(plain, all_true):
            np.testing.assert_array_equal(a, b)
        mask = rng.random((n, columns)) < 0.6
        thresholds, tpr, tnr = core_thresholds.youden_thresholds(scores, positives, weights, mask=mask)
        for col in range(columns):
            keep = mask[:, col]
            if not keep.any():
                assert thresholds[col] == math.inf and math.isnan(tpr[col]) and math.isnan(tnr[col])
                continue
            alone = core_thresholds.youden_thresholds(scores[keep, col][:, None], positives[keep, col][:, None], weights[keep, col][:, None])
            np.testing.assert_array_equal([thresholds[col], tpr[col], tnr[col]], [x[0] for x in alone])


def test_auto_and_fixed_thresholds_accept_logits(metric):
    references = [[1, 0], [0, 1], [1, 1], [0, 0]]
    logits = [[2.5, -1.0], [-0.5, 3.0], [1.0, 0.2], [-2.0, -0.3]]
    result = metric.compute(references=references, predictions=logits, from_probas=True, threshold="auto")
    assert result == {"balanced_accuracy": 1.0, "per_label_thresholds": [(1.0 + -0.5) / 2, (0.2 + -0.3) / 2]}  # midpoints
    # A fixed threshold applies to logits as "auto" does (positive iff score >= threshold): scikit-learn on the cut labels.
    fixed = metric.compute(references=references, predictions=logits, from_probas=True, return_per_label=True)
    cut = (np.array(logits) >= 0.5).astype(int)
    expected = [sklearn_ba(np.array(references)[:, label], cut[:, label]) for label in range(2)]
    assert fixed["per_label_ba"] == pytest.approx(expected, abs=1e-15)


# ---------------------------------------------------------------- inputs, storage and outputs


@pytest.mark.parametrize(
    "convert",
    [lambda x: x, np.array, torch.tensor, lambda x: np.array(x, dtype=bool), lambda x: torch.tensor(x, dtype=torch.bool)],
    ids=["list", "numpy", "torch", "numpy_bool", "torch_bool"],
)
def test_input_containers(metric, convert):
    references, predictions = [[1, 0, 1], [0, 1, 0], [1, 1, 0]], [[1, 0, 0], [0, 1, 1], [1, 0, 0]]
    result = metric.compute(references=convert(references), predictions=convert(predictions), average="micro")
    assert result["balanced_accuracy"] == pytest.approx(sklearn_ba(np.ravel(references), np.ravel(predictions)), abs=1e-15)


def test_torch_probabilities_with_requires_grad(metric):
    probabilities = torch.tensor([[0.9, 0.2], [0.3, 0.6], [0.7, 0.1]], requires_grad=True)
    result = metric.compute(references=torch.tensor([[1, 0], [0, 1], [1, 1]]), predictions=probabilities, from_probas=True, return_per_label=True)
    assert result["per_label_ba"] == [1.0, 0.75]


@pytest.mark.parametrize("keep_in_memory", [False, True])
def test_streaming_batches_of_rows_match_one_call(load, keep_in_memory):
    """(N, L) rows are stored as fixed-size lists and come back as (N, L) through add_batch/add/compute."""
    rng = np.random.default_rng(8)
    references = (rng.random((300, 4)) < [0.5, 0.2, 0.05, 0.7]).astype(int)
    references[rng.random((300, 4)) < 0.1] = -100
    scores = np.clip(np.abs(references) * 0.4 + rng.random((300, 4)) * 0.6, 0, 1)
    scores[250:290] = np.round(scores[250:290])  # a batch of exact 0/1 probabilities, given as integers
    weights = rng.random(300)
    options = dict(from_probas=True, threshold="auto", ignore_index=-100, return_per_label=True)
    metric = load("balanced_accuracy_multilabel", keep_in_memory=keep_in_memory)
    # Weights travel with their batch (add_batch keeps counts, not rows to align them with later).
    metric.add_batch(references=references[:50].tolist(), predictions=scores[:50].tolist(), sample_weight=weights[:50])
    for start in range(50, 250, 50):
        metric.add_batch(references=references[start : start + 50], predictions=torch.tensor(scores[start : start + 50]),
                         sample_weight=weights[start : start + 50])
    metric.add_batch(references=references[250:290], predictions=scores[250:290].astype(int), sample_weight=weights[250:290])
    for reference, prediction, weight in zip(references[290:], scores[290:], weights[290:]):
        metric.add(reference=reference, prediction=prediction, sample_weight=weight)
    with pytest.raises(ValueError, match=r"sample_weight: pass it with its batch to add_batch\(\.\.\.\).*after 300 added samples"):
        metric.compute(sample_weight=weights, **options)  # never silently misaligned; nothing stored is lost
    streamed = metric.compute(**options)
    direct = load("balanced_accuracy_multilabel").compute(references=references, predictions=scores, sample_weight=weights, **options)
    assert streamed["per_label_thresholds"] == direct["per_label_thresholds"]
    # The batch of exact 0/1 scores is kept as counts, the others as scores: weighted sums are
    # added in another order, so values agree to rounding.
    assert list(streamed) == list(direct)
    for key, value in direct.items():
        assert streamed[key] == pytest.approx(value, abs=1e-12)
    assert len(streamed["per_label_thresholds"]) == 4


def test_a_batch_of_another_width_is_rejected_and_earlier_batches_kept(load):
    metric = load("balanced_accuracy_multilabel")
    metric.add_batch(references=[[1, 0], [0, 1]], predictions=[[1, 0], [1, 1]])
    with pytest.raises(ValueError, match="predictions: expected rows of length 2 like the earlier batches"):
        metric.add_batch(references=[[1, 0, 1]], predictions=[[1, 0, 1]])
    metric.add_batch(references=[[0, 0]], predictions=[[1, 0]])
    result = metric.compute(return_per_label=True)
    expected = [sklearn_ba([1, 0, 0], [1, 1, 1]), sklearn_ba([0, 1, 0], [0, 1, 0])]
    assert result["per_label_ba"] == pytest.approx(expected, abs=1e-15)


def test_undefined_results_carry_a_reason(metric):
    empty = metric.compute(references=[[-100, -100]], predictions=[[1, 0]], ignore_index=-100)
    assert math.isnan(empty["balanced_accuracy"]) and empty["reason"] == "empty_after_ignore_index"
    # label 1 only has ignored entries: nothing is left to average for class_mask=[1].
    masked = metric.compute(references=[[1, -100], [0, -100]], predictions=[[1, 0], [0, 1]], ignore_index=-100, class_mask=[1], zero_division=1.0)
    assert math.isnan(masked["balanced_accuracy"]) and masked["reason"] == "empty_class_mask_after_filtering"
    for average in ("macro", "weighted", "micro"):
        none = metric.compute(references=[[1, 0]], predictions=[[1, 0]], class_mask=[], average=average)
        assert math.isnan(none["balanced_accuracy"]) and none["reason"] == "empty_class_mask_after_filtering"
    no_positive = metric.compute(references=[[0, 0], [0, 0]], predictions=[[0, 1], [0, 0]], average="weighted")
    assert math.isnan(no_positive["balanced_accuracy"]) and no_positive["reason"] == "no_positive_support"
    zero_weight = metric.compute(references=[[0, 1], [1, 0]], predictions=[[0, 1], [1, 1]], sample_weight=[0, 0], return_per_label=True)
    assert zero_weight["reason"] == "no_samples" and "per_label_ba" not in zero_weight
    rows = metric.compute(references=np.zeros((0, 3), int), predictions=np.zeros((0, 3)), from_probas=True, threshold="auto")
    assert rows["reason"] == "no_samples" and rows["per_label_thresholds"] == [math.inf] * 3


def test_results_are_plain_python_and_json_safe(metric):
    result = metric.compute(
        references=np.array([[1, 0], [0, 1], [1, 1]]), predictions=np.array([[0.8, 0.3], [0.2, 0.9], [0.6, 0.4]]),
        from_probas=True, threshold="auto", sample_weight=np.ones(3), return_per_label=True, label_names=["a", "b"],
    )
    json.dumps(result)
    assert_plain(result, keys=(str,), values=(float, int, str))


# ---------------------------------------------------------------- errors

R, P = [[1, 0], [0, 1]], [[1, 0], [1, 1]]


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        (dict(references=[[1, 0], [1]], predictions=P), ValueError, r"references: expected a rectangular array"),
        (dict(references=R, predictions=[[1, 0, 1], [0]]), ValueError, r"predictions: expected a rectangular array"),
        (dict(references=[1, 0], predictions=[1, 0]), ValueError, r"predictions: expected a 2-D array \(samples x columns\), found shape \(2,\)"),
        (dict(references=[[[1, 0]], [[0, 1]]], predictions=P), ValueError, r"references: expected a 2-D array \(samples x columns\), found shape \(2, 1, 2\)"),
        (dict(references=R, predictions=[[1, 0, 0], [1, 1, 0]]), ValueError, r"predictions and references: expected the same shape, found \(2, 3\) and \(2, 2\)"),
        (dict(references=R, predictions=[[1, 0]]), ValueError, r"predictions and references: expected the same number of samples, found 1 and 2"),
        (dict(references=[[1, 2], [0, 1]], predictions=P), ValueError, r"references: expected 0/1 values, found \[2\]"),
        (dict(references=[[1, -1], [0, 1]], predictions=P, ignore_index=-100), ValueError, r"references: expected 0/1 values \(or ignore_index=-100\), found \[-1\]"),
        (dict(references=R, predictions=[[1, 0], [3, 1]]), ValueError, r"predictions: expected 0/1 values, found \[3\]"),
        (dict(references=R, predictions=[[0.9, 0.1], [0.2, 0.7]]), ValueError, r"predictions: expected 0/1 values, found non-integer values such as 0\.9\. For probabilities or scores pass from_probas=True\."),
        (dict(references=R, predictions=[[0.9, 0.1], [0.2, 0.8]], from_probas=True, threshold=[0.5, 1.5]), ValueError, r"threshold: expected a threshold on the scale of predictions, found 1.5 among the per-label thresholds with all of predictions in \[0.1, 0.9\]"),
        (dict(references=R, predictions=[[0.9, 0.1], [0.2, float("nan")]], from_probas=True), ValueError, r"predictions: expected finite values"),
        (dict(references=R, predictions=[[0.9, 0.1], [0.2, float("inf")]], from_probas=True, threshold="auto"), ValueError, r"predictions: expected finite values"),
        (dict(references=[[1.0, float("nan")], [0.0, 1.0]], predictions=P), ValueError, r"references: expected finite values"),
        (dict(references=[["a", "b"], ["b", "a"]], predictions=P), TypeError, r"references: expected 0/1 values \(numbers or booleans\), found strings such as 'a'"),
        (dict(references=R, predictions=P, average="samples"), ValueError, r"average: expected one of \('macro', 'weighted', 'micro'\), found 'samples'"),
        (dict(references=R, predictions=P, sample_weight=[1, 1, 1]), ValueError, r"sample_weight: expected one weight per sample \(2 values"),
        (dict(references=R, predictions=P, sample_weight=[[1, 1], [1, 1]]), ValueError, r"sample_weight: expected one weight per sample \(2 values or shape \(2,\)\), found shape \(2, 2\)"),
        (dict(references=R, predictions=P, sample_weight=[1, -1]), ValueError, r"sample_weight: expected non-negative weights, found -1"),
        (dict(references=R, predictions=P, sample_weight=[1, float("nan")]), ValueError, r"sample_weight: expected finite values"),
        (dict(references=R, predictions=P, threshold="auto"), ValueError, r"threshold: 'auto' searches thresholds on scores; pass from_probas=True"),
        (dict(references=R, predictions=P, from_probas=True, threshold="best"), ValueError, r"threshold: expected a number \(a finite score, or inf for nothing positive\) or 'auto', found 'best'"),
        (dict(references=R, predictions=P, from_probas=True, threshold=1.5), ValueError, r"threshold: expected a threshold on the scale of predictions, found 1.5 with all of predictions in \[0, 1\]"),
        (dict(references=R, predictions=P, from_probas=True, threshold=None), TypeError, r"threshold: expected a number, 'auto' or one number per label, found None"),
        (dict(references=R, predictions=P, from_probas=True, threshold=[0.5]), ValueError, r"threshold: expected one threshold per label \(2 values\), found shape \(1,\)"),
        (dict(references=R, predictions=P, from_probas=True, threshold=[0.5, float("nan")]), ValueError, r"threshold: expected per-label thresholds that are finite numbers or inf \(no positive\), found \[0.5, nan\]"),
        (dict(references=R, predictions=P, from_probas=True, threshold=[0.5, -0.1]), ValueError, r"threshold: expected a threshold on the scale of predictions, found -0.1 among the per-label thresholds with all of predictions in \[0, 1\]"),
        (dict(references=R, predictions=P, ignore_index=1), ValueError, r"ignore_index: expected a value other than the labels 0 and 1, found 1"),
        (dict(references=R, predictions=P, ignore_index="pad"), TypeError, r"ignore_index: expected an integer such as -100, found 'pad'"),
        (dict(references=R, predictions=P, class_mask=[2]), ValueError, r"class_mask: expected indices in \[0, 1\], found \[2\]"),
        (dict(references=R, predictions=P, zero_division="warn"), ValueError, r"zero_division: expected 'skip', 0.0 or 1.0, found 'warn'"),
        (dict(references=R, predictions=P, label_names=["a"]), ValueError, r"label_names: expected one name per label \(2\), found 1"),
        (dict(references=R, predictions=P, label_names=["a", "a"]), ValueError, r"label_names: expected distinct names, found \['a', 'a'\]"),
        (dict(references=R, predictions=P, label_names="ab"), TypeError, r"label_names: expected a list of strings, found 'ab'"),
    ],
)
def test_errors_name_the_argument_expected_and_found(metric, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        metric.compute(**kwargs)


# ---------------------------------------------------------------- confidence intervals

LEVEL = 0.95
Z95 = 1.959963984540054
INTERVAL_REFERENCES = [[1, 1]] * 10 + [[1, 0]] * 10 + [[0, 1]] * 40 + [[0, 0]] * 140
INTERVAL_PREDICTIONS = (
    [[1, 1]] * 8 + [[0, 1]] * 2 + [[1, 0]] * 8 + [[0, 0]] * 2 + [[0, 1]] * 35 + [[0, 0]] * 5
    + [[1, 1]] * 9 + [[0, 1]] * 6 + [[0, 0]] * 125
)


def agresti_coull_by_hand(successes, trials):
    n_tilde = trials + Z95**2
    p_tilde = (successes + Z95**2 / 2) / n_tilde
    half = Z95 * math.sqrt(p_tilde * (1 - p_tilde) / n_tilde)
    return max(0.0, p_tilde - half), min(1.0, p_tilde + half)


def sklearn_counts(references, predictions, weights=None):
    """(tp, positives, tn, negatives) per label from scikit-learn's confusion matrix of each column."""
    references, predictions = np.asarray(references), np.asarray(predictions)
    # [[tn, fp], [fn, tp]] per column (multilabel_confusion_matrix reads one column as a binary vector)
    matrices = np.array([
        confusion_matrix(references[:, l], predictions[:, l], labels=[0, 1], sample_weight=weights)
        for l in range(references.shape[1])
    ])
    tp, fn, tn, fp = matrices[:, 1, 1], matrices[:, 1, 0], matrices[:, 0, 0], matrices[:, 0, 1]
    return tp, tp + fn, tn, tn + fp


def cluster_factor(measured, num_clusters, level=LEVEL, num_labels=2):
    """What the effective sizes are divided by: the design effect, at least 1, widened to t on G - 1. One
    label: each sample-cluster holds one entry, so there is nothing to estimate beyond independence (1)."""
    probability = 0.5 + level / 2
    if num_labels == 1:
        return 1.0
    return max(measured, 1.0) * (t_quantile(probability, num_clusters - 1) / NormalDist().inv_cdf(probability)) ** 2


def test_documented_interval_example(metric):
    result = metric.compute(references=INTERVAL_REFERENCES, predictions=INTERVAL_PREDICTIONS, confidence_level=LEVEL, ci_method="agresti_coull")
    assert list(result) == ["balanced_accuracy", "balanced_accuracy_ci", "num_clusters", "design_effect"]
    measured, num_clusters = direct_design_effect(INTERVAL_REFERENCES, INTERVAL_PREDICTIONS)
    assert result["num_clusters"] == num_clusters == 200
    assert result["design_effect"] == pytest.approx(measured, rel=1e-12)
    factor = cluster_factor(measured, num_clusters)
    # Macro over 2 labels = (TPR_0 + TNR_0 + TPR_1 + TNR_1) / 4; MOVER on the four rates, each on n / factor trials.
    rates = [(16, 20), (171, 180), (45, 50), (135, 150)]
    point = sum(x / n for x, n in rates) / 4
    below = [(x / n - agresti_coull_by_hand(x / factor, n / factor)[0]) / 4 for x, n in rates]
    above = [(agresti_coull_by_hand(x / factor, n / factor)[1] - x / n) / 4 for x, n in rates]
    assert result["balanced_accuracy"] == pytest.approx(point, abs=1e-15)
    expected = [point - math.sqrt(sum(b * b for b in below)), point + math.sqrt(sum(a * a for a in above))]
    assert result["balanced_accuracy_ci"] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("case", range(45))
def test_module_interval_is_the_shared_function_on_sklearn_counts(metric, case):
    references, scores, weights = list(generated_cases(45, seed=30))[case]
    predictions = (scores >= 0.5).astype(int)
    num_labels = references.shape[1]
    average = ("macro", "weighted", "micro")[case % 3]
    zero_division = ("skip", 0.0, 1.0)[(case // 3) % 3]
    class_mask = [0] if case % 5 == 0 else None
    ci_method = vocabulary.RATE_CI_METHODS[case % 3]
    result = metric.compute(
        references=references, predictions=predictions, sample_weight=weights, average=average, zero_division=zero_division,
        class_mask=class_mask, confidence_level=0.9, ci_method=ci_method, n_resamples=500, seed=case,
    )
    tp, positives, tn, negatives = sklearn_counts(references, predictions, weights)
    effective = dict(effective_positives=positives, effective_negatives=negatives)
    if weights is not None:
        squared = weights**2
        effective = dict(
            effective_positives=np.divide(positives**2, squared @ references, out=np.zeros(num_labels), where=squared @ references > 0),
            effective_negatives=np.divide(negatives**2, squared @ (1 - references), out=np.zeros(num_labels), where=squared @ (1 - references) > 0),
        )
    if "design_effect" in result:  # each sample is a cluster: sizes divided by the design effect
        measured, num_clusters = direct_design_effect(references, predictions, weights, average=average, zero_division=zero_division,
                                                      class_mask=class_mask)
        assert result["design_effect"] == pytest.approx(measured, rel=1e-9) and result["num_clusters"] == num_clusters
        factor = cluster_factor(measured, num_clusters, 0.9, num_labels)
        effective = {name: np.asarray(sizes, dtype=float) / factor for name, sizes in effective.items()}
    elif not math.isnan(result["balanced_accuracy"]):
        assert result["balanced_accuracy_ci_reason"] == "single_cluster"
        return
    expected = binary_columns_interval(
        tp, positives, tn, negatives, confidence_level=0.9, average=average, method=ci_method, n_resamples=500, seed=case,
        class_mask=None if class_mask is None else np.array(class_mask), zero_division=zero_division, **effective,
    )
    assert result["balanced_accuracy_ci"] == pytest.approx(expected.as_list(), abs=1e-12, nan_ok=True)
    if math.isnan(result["balanced_accuracy"]):
        assert all(math.isnan(v) for v in result["balanced_accuracy_ci"])
        return
    low, high = result["balanced_accuracy_ci"]
    assert all(type(v) is float for v in (low, high)) and 0.0 <= low <= high <= 1.0
    if ci_method != "bootstrap":
        assert low - 1e-12 <= result["balanced_accuracy"] <= high + 1e-12  # 1e-12: sums of rates round


# Analytic only: the bootstrap draws the same rates in another order (TPR first here, class 0 first there).
@pytest.mark.parametrize("ci_method", ["agresti_coull", "wilson"])
def test_one_label_interval_equals_balanced_accuracy_on_the_column(metric, balanced_accuracy, ci_method):
    for references, scores, weights in generated_cases(20, seed=31):
        predictions = (scores >= 0.5).astype(int)
        column = references[:, 0]
        if column.min() == column.max():
            continue  # one class only: balanced_accuracy then averages a single recall
        ours = metric.compute(references=references[:, :1], predictions=predictions[:, :1], sample_weight=weights,
                              confidence_level=LEVEL, ci_method=ci_method, seed=2)
        # Each multilabel sample is a cluster: as balanced accuracy with one cluster per sample. (Samples of
        # weight 0 count in neither; balanced_accuracy's clusters= refuses them: the lead's issue-25 core.)
        if weights is not None and (weights == 0).any():
            kept = weights > 0
            references, predictions, weights, column = references[kept], predictions[kept], weights[kept], column[kept]
            ours = metric.compute(references=references[:, :1], predictions=predictions[:, :1], sample_weight=weights,
                                  confidence_level=LEVEL, ci_method=ci_method, seed=2)
        theirs = balanced_accuracy.compute(references=column, predictions=predictions[:, 0], task="binary", sample_weight=weights,
                                           confidence_level=LEVEL, ci_method=ci_method, seed=2, clusters=np.arange(len(column)))
        if weights is None or (weights[column == 1] > 0).any() and (weights[column == 0] > 0).any():
            # One entry per cluster: both give the independent interval exactly (design effect 1, no t widening).
            # (Each path is checked against its own independent computation elsewhere: test_documented_interval_example
            # and tests/modules/test_clusters.py.)
            assert ours["balanced_accuracy"] == theirs["balanced_accuracy"]
            assert ours["design_effect"] == pytest.approx(1.0, abs=1e-12)
            if weights is None:
                assert theirs["design_effect"] == pytest.approx(1.0, abs=1e-12)
                assert ours["balanced_accuracy_ci"] == pytest.approx(theirs["balanced_accuracy_ci"], abs=1e-12)


def test_ignored_entries_take_no_part_in_the_interval(metric):
    references = [[1, -100], [0, 1], [1, 0], [0, -100], [1, 1], [0, 0]]
    predictions = [[1, 1], [1, 1], [1, 0], [0, 0], [0, 1], [0, 1]]
    result = metric.compute(references=references, predictions=predictions, ignore_index=-100, confidence_level=LEVEL, ci_method="agresti_coull")
    kept_label_1 = [row[1] for row in references if row[1] != -100]
    predicted_label_1 = [p[1] for p, r in zip(predictions, references) if r[1] != -100]
    tp0, pos0, tn0, neg0 = sklearn_counts(np.array(references)[:, :1], np.array(predictions)[:, :1])
    tp1, pos1, tn1, neg1 = sklearn_counts(np.array(kept_label_1)[:, None], np.array(predicted_label_1)[:, None])
    measured, num_clusters = direct_design_effect(references, predictions, ignore_index=-100)
    factor = cluster_factor(measured, num_clusters)
    positives, negatives = np.r_[pos0, pos1], np.r_[neg0, neg1]
    expected = binary_columns_interval(
        np.r_[tp0, tp1], positives, np.r_[tn0, tn1], negatives, confidence_level=LEVEL, method="agresti_coull",
        effective_positives=positives / factor, effective_negatives=negatives / factor,
    )
    assert result["balanced_accuracy_ci"] == pytest.approx(expected.as_list(), abs=1e-12)


def test_auto_thresholds_refuse_an_interval_and_tuned_thresholds_give_one(metric):
    references = [[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1]]
    scores = [[0.9, 0.2], [0.3, 0.7], [0.6, 0.8], [0.1, 0.4], [0.7, 0.1], [0.4, 0.9]]
    with pytest.raises(ValueError, match=r"confidence_level: no interval with threshold='auto'\. The per-label thresholds are fitted"):
        metric.compute(references=references, predictions=scores, from_probas=True, threshold="auto", confidence_level=LEVEL, ci_method="agresti_coull")
    tuned = metric.compute(references=references, predictions=scores, from_probas=True, threshold="auto")
    result = metric.compute(references=references, predictions=scores, from_probas=True, threshold=tuned["per_label_thresholds"],
                            confidence_level=LEVEL, ci_method="agresti_coull")
    binarised = (np.array(scores) >= np.array(tuned["per_label_thresholds"])).astype(int)
    assert result == metric.compute(references=references, predictions=binarised, confidence_level=LEVEL, ci_method="agresti_coull")


def test_intervals_are_reproducible_with_a_seed_and_vary_without(metric):
    args = dict(references=INTERVAL_REFERENCES, predictions=INTERVAL_PREDICTIONS, confidence_level=LEVEL, ci_method="bootstrap", n_resamples=2000)
    assert metric.compute(**args, seed=9) == metric.compute(**args, seed=9)
    assert len({tuple(metric.compute(**args)["balanced_accuracy_ci"]) for _ in range(5)}) > 1


def test_interval_results_are_json_safe_and_no_keys_without_confidence_level(metric):
    result = metric.compute(references=INTERVAL_REFERENCES, predictions=INTERVAL_PREDICTIONS, confidence_level=LEVEL, ci_method="agresti_coull",
                            return_per_label=True, label_names=["a", "b"])
    json.dumps(result)
    assert all(type(v) is float for v in result["balanced_accuracy_ci"])
    plain = metric.compute(references=INTERVAL_REFERENCES, predictions=INTERVAL_PREDICTIONS, ci_method="wilson", seed=1,
                           return_per_label=True, label_names=["a", "b"])
    assert plain == {key: value for key, value in result.items() if key not in ("balanced_accuracy_ci", "num_clusters", "design_effect")}


def test_equal_weights_give_the_unweighted_interval_and_unequal_weights_widen_it(metric):
    args = dict(references=INTERVAL_REFERENCES, predictions=INTERVAL_PREDICTIONS, confidence_level=LEVEL, ci_method="agresti_coull")
    plain = metric.compute(**args)["balanced_accuracy_ci"]
    assert metric.compute(**args, sample_weight=[2.5] * 200)["balanced_accuracy_ci"] == pytest.approx(plain, abs=1e-12)
    uneven = metric.compute(**args, sample_weight=np.where(np.arange(200) % 2 == 0, 0.5, 1.5))["balanced_accuracy_ci"]
    assert uneven[1] - uneven[0] > plain[1] - plain[0]
    # Kish's size does not depend on the weights' scale, even near float64's limits.
    for scale in (1e-200, 1e200):
        scaled = metric.compute(**args, sample_weight=np.where(np.arange(200) % 2 == 0, 0.5, 1.5) * scale)
        assert scaled["balanced_accuracy_ci"] == pytest.approx(uneven, abs=1e-12)


@pytest.mark.parametrize("ci_method", vocabulary.RATE_CI_METHODS)
@pytest.mark.parametrize("average", ["macro", "weighted", "micro"])
@pytest.mark.parametrize(
    "references, predictions",
    [
        ([[1, 0], [0, 1]], [[1, 0], [0, 1]]),  # perfect, one positive per label
        ([[1, 0], [0, 1]], [[0, 1], [1, 0]]),  # all wrong
        ([[1, 0], [0, 0], [0, 0]], [[1, 1], [0, 0], [0, 0]]),  # label 1 without positives
        ([[1, 1], [1, 1]], [[1, 0], [1, 1]]),  # no negatives at all
        ([[1, 0]], [[0, 1]]),  # a single row
    ],
)
@pytest.mark.parametrize("zero_division", ["skip", 1.0])
def test_degenerate_sets_give_a_finite_interval_inside_the_range(metric, references, predictions, average, ci_method, zero_division):
    result = metric.compute(references=references, predictions=predictions, average=average, ci_method=ci_method,
                            zero_division=zero_division, confidence_level=LEVEL, n_resamples=300, seed=0)
    low, high = result["balanced_accuracy_ci"]
    if len(references) == 1:  # a single row is a single cluster: no variance to estimate
        assert math.isnan(low) and math.isnan(high) and result["balanced_accuracy_ci_reason"] == "single_cluster"
        return
    assert math.isfinite(low) and math.isfinite(high) and 0.0 <= low <= high <= 1.0
    if ci_method != "bootstrap":
        assert low - 1e-12 <= result["balanced_accuracy"] <= high + 1e-12


@pytest.mark.parametrize(
    "kwargs, reason",
    [
        (dict(references=[[-100, -100]], predictions=[[1, 0]], ignore_index=-100), "empty_after_ignore_index"),
        (dict(references=[[1, -100], [0, -100]], predictions=[[1, 0], [0, 1]], ignore_index=-100, class_mask=[1]), "empty_class_mask_after_filtering"),
        (dict(references=[[1, 0]], predictions=[[1, 0]], class_mask=[]), "empty_class_mask_after_filtering"),
        (dict(references=[[0, 0], [0, 0]], predictions=[[0, 1], [0, 0]], average="weighted"), "no_positive_support"),
        (dict(references=[[0, 1], [1, 0]], predictions=[[0, 1], [1, 1]], sample_weight=[0, 0]), "no_samples"),
    ],
)
@pytest.mark.parametrize("ci_method", [None, "bootstrap"])
def test_undefined_value_has_an_undefined_interval(metric, kwargs, reason, ci_method):
    result = metric.compute(**kwargs, confidence_level=LEVEL, ci_method=ci_method, n_resamples=200, seed=0)
    assert math.isnan(result["balanced_accuracy"]) and result["reason"] == reason
    assert all(math.isnan(v) for v in result["balanced_accuracy_ci"])


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        (dict(confidence_level=-0.5), ValueError, r"confidence_level: expected a number in \(0, 1\) such as 0.95, found -0.5"),
        (dict(confidence_level=[0.95]), TypeError, r"confidence_level: expected a number in \(0, 1\) such as 0.95, found list"),
        (dict(confidence_level=0.95, ci_method="exact"), ValueError, r"ci_method: expected one of \('score', 'agresti_coull', 'wilson', 'bootstrap'\) or None, found 'exact'"),
        (dict(confidence_level=0.95, n_resamples=2_000_000), ValueError, r"n_resamples: expected an integer in \[1, 1,000,000\], found 2000000"),
        (dict(confidence_level=0.95, seed=-3), TypeError, r"seed: expected a non-negative integer or None, found -3"),
        (dict(confidence_level=1.0, ignore_index=-100, references=[[-100, -100]]), ValueError, r"confidence_level: expected a number in \(0, 1\)"),
    ],
)
def test_interval_argument_errors_name_the_argument(metric, kwargs, error, pattern):
    arguments = dict(references=[[1, 0]], predictions=[[1, 1]])
    arguments.update(kwargs)
    with pytest.raises(error, match=pattern):
        metric.compute(**arguments)


# ---------------------------------------------------------------- counts, load-time options and streaming

def weighted_case(seed, rows=150, num_labels=4):
    rng = np.random.default_rng(seed)
    references = (rng.random((rows, num_labels)) < rng.uniform(0.05, 0.6, num_labels)).astype(int)
    predictions = np.where(rng.random((rows, num_labels)) < 0.8, references, 1 - references)
    return references, predictions, rng.random(rows) * 2


@pytest.mark.parametrize("average", ["macro", "weighted", "micro"])
@pytest.mark.parametrize("ci_method", vocabulary.RATE_CI_METHODS)
def test_confusion_matrix_round_trip_equals_the_samples(metric, average, ci_method):
    options = dict(average=average, confidence_level=0.9, ci_method=ci_method, n_resamples=300, seed=1, return_per_label=True,
                   return_confusion_matrix=True)
    for case, (references, scores, _) in enumerate(generated_cases(12, seed=40)):
        predictions = (scores >= 0.5).astype(int)
        kwargs = dict(options, class_mask=[0] if case % 4 == 0 else None, zero_division=("skip", 0.0, 1.0)[case % 3])
        samples = metric.compute(references=references, predictions=predictions, **kwargs)
        counted = metric.compute(confusion_matrix=samples["confusion_matrix"], **kwargs)
        # A matrix has no samples, so no clusters: its interval treats the entries as independent.
        assert json.dumps(without_interval(counted)) == json.dumps(without_interval(samples))  # NaN included, to the last digit
        if "num_clusters" in samples and not math.isnan(samples["balanced_accuracy"]):
            assert "num_clusters" not in counted
            low, high = counted["balanced_accuracy_ci"]
            assert high - low <= samples["balanced_accuracy_ci"][1] - samples["balanced_accuracy_ci"][0] + 1e-12 or ci_method == "bootstrap"


def without_interval(result):
    return {key: value for key, value in result.items()
            if key not in ("balanced_accuracy_ci", "balanced_accuracy_ci_reason", "num_clusters", "design_effect")}


def test_weighted_confusion_matrix_round_trip(metric):
    """Weighted sums give the same values; the interval treats each sum as a count (a matrix has no sums of squared weights)."""
    for seed in range(5):
        references, predictions, weights = weighted_case(seed)
        options = dict(return_per_label=True, return_confusion_matrix=True)
        for average in ("macro", "weighted", "micro"):
            samples = metric.compute(references=references, predictions=predictions, sample_weight=weights, average=average, **options)
            counted = metric.compute(confusion_matrix=samples["confusion_matrix"], average=average, **options)
            assert counted == samples
            with_ci = metric.compute(confusion_matrix=samples["confusion_matrix"], average=average, confidence_level=LEVEL, ci_method="agresti_coull")
            cells = np.array(samples["confusion_matrix"])
            tp, positives, tn, negatives = cells[:, 1, 1], cells[:, 1].sum(1), cells[:, 0, 0], cells[:, 0].sum(1)
            expected = binary_columns_interval(tp, positives, tn, negatives, confidence_level=LEVEL, average=average,
                                                         method="agresti_coull")
            assert with_ci["balanced_accuracy"] == samples["balanced_accuracy"]
            assert with_ci["balanced_accuracy_ci"] == pytest.approx(expected.as_list(), abs=1e-12)
    # Weights of 1 are counts: the interval is the samples' one too.
    references, predictions, _ = weighted_case(9)
    args = dict(confidence_level=LEVEL, return_confusion_matrix=True)
    samples = metric.compute(references=references, predictions=predictions, sample_weight=np.ones(len(references)), **args)
    counted = metric.compute(confusion_matrix=samples["confusion_matrix"], **args)
    assert without_interval(counted) == without_interval(samples)
    cells = np.array(samples["confusion_matrix"])
    independent = binary_columns_interval(cells[:, 1, 1], cells[:, 1].sum(1), cells[:, 0, 0], cells[:, 0].sum(1),
                                                    confidence_level=LEVEL, method=binomial.DEFAULT_CI_METHOD)
    assert counted["balanced_accuracy_ci"] == pytest.approx(independent.as_list(), abs=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_return_confusion_matrix_is_sklearn_multilabel_confusion_matrix(metric, weighted):
    for references, scores, weights in generated_cases(30, seed=41):
        if references.shape[1] < 2:
            continue  # scikit-learn reads one column as a binary vector (a table per class)
        predictions = (scores >= 0.5).astype(int)
        weights = weights if weighted else None
        result = metric.compute(references=references, predictions=predictions, sample_weight=weights, return_confusion_matrix=True)
        expected = multilabel_confusion_matrix(references, predictions, sample_weight=weights)
        if weights is None:
            assert result["confusion_matrix"] == expected.tolist()
        else:
            np.testing.assert_allclose(result["confusion_matrix"], expected, rtol=1e-12, atol=1e-12)
    # Thresholded scores too, and ignored entries are not counted.
    references, scores = np.array([[1, 0], [0, -100], [1, 1]]), np.array([[0.8, 0.3], [0.6, 0.9], [0.2, 0.7]])
    result = metric.compute(references=references, predictions=scores, from_probas=True, ignore_index=-100, return_confusion_matrix=True)
    assert result["confusion_matrix"] == [[[0, 1], [1, 1]], [[1, 0], [0, 1]]]


@pytest.mark.parametrize(
    "matrix, error, pattern",
    [
        ([[1, 0], [0, 1]], ValueError, r"confusion_matrix: expected an \(L, 2, 2\) array of counts .*found shape \(2, 2\)"),
        ([[[1, 0, 0], [0, 1, 0]]], ValueError, r"confusion_matrix: expected an \(L, 2, 2\) array .*found shape \(1, 2, 3\)"),
        ([[[1, -1], [0, 1]]], ValueError, r"confusion_matrix: expected non-negative counts, found -1"),
        ([[[1, float("nan")], [0, 1]]], ValueError, r"confusion_matrix: expected finite values"),
        ([[["a", "b"], ["c", "d"]]], ValueError, r"confusion_matrix: expected an \(L, 2, 2\) array .* of strings"),
    ],
)
def test_bad_confusion_matrix_names_the_argument(metric, matrix, error, pattern):
    with pytest.raises(error, match=pattern):
        metric.compute(confusion_matrix=matrix)


def test_confusion_matrix_with_samples_or_scores_is_refused(metric):
    tables = [[[1, 0], [0, 1]]]
    with pytest.raises(ValueError, match=r"confusion_matrix: expected counts instead of samples"):
        metric.compute(confusion_matrix=tables, references=[[1]], predictions=[[1]])
    with pytest.raises(ValueError, match=r"from_probas: a confusion matrix holds labels already"):
        metric.compute(confusion_matrix=tables, from_probas=True)
    with pytest.raises(ValueError, match=r"label_names: expected one name per label \(1\), found 2"):
        metric.compute(confusion_matrix=tables, label_names=["a", "b"])


def test_load_time_options_are_defaults_and_compute_time_values_win(load):
    references, predictions = [[1, 0], [1, 0], [1, 1], [0, 0]], [[1, 1], [1, 0], [1, 0], [0, 0]]
    micro = load("balanced_accuracy_multilabel", average="micro", return_per_label=True)
    assert micro.compute(references=references, predictions=predictions)["balanced_accuracy"] == 0.75
    assert micro.compute(references=references, predictions=predictions, average="macro")["balanced_accuracy"] == pytest.approx(2 / 3, abs=1e-15)
    assert "per_label_ba" in micro.compute(references=references, predictions=predictions)
    # Streamed batches are computed with the load-time options too.
    micro.add_batch(references=references, predictions=predictions)
    assert micro.compute()["balanced_accuracy"] == 0.75
    with pytest.raises(TypeError, match=r"^averge: expected an argument of balanced_accuracy_multilabel"):
        load("balanced_accuracy_multilabel", averge="micro")
    with pytest.raises(ValueError, match=r"^average: expected one of \('macro', 'weighted', 'micro'\), found 'samples'"):
        load("balanced_accuracy_multilabel", average="samples")
    probas = load("balanced_accuracy_multilabel", from_probas=True, threshold="auto", ignore_index=-100)
    result = probas.compute(references=[[1, -100], [0, 1]], predictions=[[0.9, 0.5], [0.2, 0.6]])
    assert result == {"balanced_accuracy": 1.0, "per_label_thresholds": [0.55, 0.6]}


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        (dict(class_mask="zz"), TypeError, r"^class_mask: expected a list of class indices"),
        (dict(class_mask=[5]), ValueError, r"^class_mask: expected indices in \[0, 1\], found \[5\]"),
        (dict(average="samples"), ValueError, r"^average: expected one of"),
        (dict(zero_division="warn"), ValueError, r"^zero_division: expected 'skip', 0.0 or 1.0"),
        (dict(label_names=["a"]), ValueError, r"^label_names: expected one name per label \(2\), found 1"),
        (dict(from_probas=True, threshold=[0.5]), ValueError, r"^threshold: expected one threshold per label \(2 values\)"),
        (dict(confidence_level=1.5), ValueError, r"^confidence_level: expected a number in \(0, 1\)"),
        (dict(from_probas="yes"), TypeError, r"^from_probas: expected True or False"),
    ],
)
def test_bad_options_raise_even_when_every_entry_is_ignored(metric, kwargs, error, pattern):
    arguments = dict(references=[[-100, -100], [-100, -100]], predictions=[[1, 0], [0, 1]], ignore_index=-100)
    assert metric.compute(**arguments)["reason"] == "empty_after_ignore_index"
    with pytest.raises(error, match=pattern):
        metric.compute(**arguments, **kwargs)


@pytest.mark.parametrize("weighted", [False, True])
def test_streaming_many_batches_equals_one_call(load, weighted):
    rng = np.random.default_rng(42)
    references = (rng.random((2000, 5)) < [0.5, 0.2, 0.05, 0.7, 0.01]).astype(int)
    predictions = np.where(rng.random(references.shape) < 0.85, references, 1 - references)
    references[rng.random(references.shape) < 0.05] = -100
    weights = rng.random(2000) * 3 if weighted else None
    options = dict(ignore_index=-100, return_per_label=True, return_confusion_matrix=True, confidence_level=LEVEL, seed=3)
    for average in ("macro", "weighted", "micro"):
        # confidence_level at load: add_batch then counts each sample's cluster (see test_multilabel_clusters.py).
        metric = load("balanced_accuracy_multilabel", confidence_level=LEVEL)
        for start in range(0, 2000, 37):
            batch = slice(start, start + 37)
            metric.add_batch(references=references[batch], predictions=predictions[batch],
                             sample_weight=None if weights is None else weights[batch])
        streamed = metric.compute(average=average, **options)
        direct = load("balanced_accuracy_multilabel").compute(references=references, predictions=predictions, sample_weight=weights,
                                                             average=average, **options)
        if not weighted:
            assert streamed == direct  # integer counts: exactly
        else:  # weighted sums added in another order
            assert list(streamed) == list(direct)
            for key, value in direct.items():
                assert np.allclose(streamed[key], value, rtol=1e-12, atol=1e-12)


def test_add_one_row_and_combine_add(load):
    import evaluate

    references, predictions = [[1, 0], [0, 1], [1, 1], [0, 0]], [[1, 1], [0, 1], [1, 0], [0, 0]]
    direct = load("balanced_accuracy_multilabel").compute(references=references, predictions=predictions)
    metric = load("balanced_accuracy_multilabel")
    for reference, prediction in zip(references, predictions):
        metric.add(predictions=prediction, references=reference)  # the plural names, as evaluate.combine passes them
    assert metric.compute() == direct
    combined = evaluate.combine([load("balanced_accuracy_multilabel", average="micro"), load("balanced_accuracy_multilabel")])
    for reference, prediction in zip(references, predictions):
        combined.add(references=reference, predictions=prediction)
    result = combined.compute()
    micro = load("balanced_accuracy_multilabel").compute(references=references, predictions=predictions, average="micro")
    assert sorted(result.values()) == sorted([micro["balanced_accuracy"], direct["balanced_accuracy"]])


def test_add_batch_memory_does_not_grow_with_the_number_of_rows(load):
    """0/1 rows are kept as per-label counts: adding 10x more rows holds no more memory."""
    rng = np.random.default_rng(0)
    batch = [(rng.random((4000, 20)) < 0.3).astype(np.int8) for _ in range(2)]
    weights = rng.random(4000)
    metric = load("balanced_accuracy_multilabel")

    def held_after(batches):
        tracemalloc.start()
        try:
            for i in range(batches):
                metric.add_batch(references=batch[i % 2], predictions=batch[(i + 1) % 2], sample_weight=weights)
            return tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()

    metric.add_batch(references=batch[0], predictions=batch[1], sample_weight=weights)  # the table exists
    few = held_after(5)
    many = held_after(50)  # 200,000 more rows: 4 MB of raw rows per column if they were kept
    assert many - few < 1 << 20
    assert len(metric) == (1 + 5 + 50) * 4000 and 0 < metric.compute()["balanced_accuracy"] < 1


def test_store_of_counts_survives_save_and_load(metric, tmp_path):
    """What a distributed process hands to process 0: counts, merged as if added on one process."""
    package = type(metric).__module__.rsplit(".", 1)[0]  # the module's folder as evaluate.load imported it
    multilabel = importlib.import_module(f"{package}.shared_core")  # the helper the script imports
    Store = multilabel.Store

    references, predictions, weights = weighted_case(3)
    one = multilabel.count_indicators(predictions, references, weights)
    first = multilabel.count_indicators(predictions[:70], references[:70], weights[:70])
    second = multilabel.count_indicators(predictions[70:], references[70:], weights[70:])
    second.save(str(tmp_path / "second.npz"))
    first.merge(Store.load(str(tmp_path / "second.npz")))
    merged, direct = multilabel.multilabel_counts(first), multilabel.multilabel_counts(one)
    np.testing.assert_allclose(merged.cells, direct.cells, rtol=1e-12)
    np.testing.assert_allclose(np.ldexp(merged.squares, 2 * merged.w2_exponent), np.ldexp(direct.squares, 2 * direct.w2_exponent), rtol=1e-12)
    np.testing.assert_allclose(direct.cells, multilabel_confusion_matrix(references, predictions, sample_weight=weights), rtol=1e-12)


def test_weights_far_apart_keep_each_label_class_its_own_effective_size(metric):
    """Squared weights are held as mantissas of one exponent: a class whose weights are all
    ~1e-308 of the largest underflows there, and takes its count (Kish's bound) instead of 0."""
    result = metric.compute(predictions=[[1, 1], [0, 1]], references=[[1, 1], [0, 0]], sample_weight=[1.5e308, 1.0],
                            average="weighted", confidence_level=LEVEL, ci_method="agresti_coull")
    low, high = result["balanced_accuracy_ci"]
    assert 0.0 <= low <= result["balanced_accuracy"] <= high <= 1.0
    # With weights close enough for the squares to be held, the sizes are Kish's: here each class has one entry.
    plain = metric.compute(predictions=[[1, 1], [0, 1]], references=[[1, 1], [0, 0]], sample_weight=[3.0, 1.0],
                           average="weighted", confidence_level=LEVEL, ci_method="agresti_coull")
    assert result["balanced_accuracy_ci"] == pytest.approx(plain["balanced_accuracy_ci"], abs=1e-12)
