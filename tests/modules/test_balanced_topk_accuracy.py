"""balanced_topk_accuracy: documented examples, parity with torchmetrics and scikit-learn, tie rule, inputs, errors, intervals."""

import itertools
import json
import math
import sys
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import torch
from sklearn.metrics import balanced_accuracy_score, top_k_accuracy_score
from torchmetrics.classification import MulticlassAccuracy

from shared.metrics import balanced_accuracy as balanced_accuracy_metric
from shared.stats import vocabulary
from conftest import REPO_ROOT, load_module
from robustness import assert_plain

# ---------------------------------------------------------------- what the registry's tests need of this module
# (tests/conftest.py module_tests): its value by a peer, and the options it is run with where
# its kind's defaults would leave outputs of its own unchecked.

VALUE_OPTIONS = {"k": 2}  # its value is computed with k=2 (peer, spec contract), so that it is not plain balanced accuracy


def peer_value(predictions, references, weights=None):
    """The mean over classes of scikit-learn's top-k accuracy on that class's samples, k as in
    VALUE_OPTIONS (tests/integration/test_peer_behaviour.py)."""
    predictions, references = np.asarray(predictions), np.asarray(references)
    columns = np.arange(predictions.shape[1])
    weights = np.ones(len(references)) if weights is None else np.asarray(weights)
    recalls = [
        top_k_accuracy_score(references[references == c], predictions[references == c], k=VALUE_OPTIONS["k"],
                             labels=columns, sample_weight=weights[references == c])
        for c in columns
    ]
    return float(np.mean(recalls))


# tests/integration/test_distributed.py: (predictions, references, options[, extras]) on its named data.
DISTRIBUTED_CASES = [
    ("logits", "skewed", {"k_list": [1, 3], "return_per_class": True}),
    ("logits", "skewed", {"k": 2}),
]
# ... and with clusters= across processes: (predictions, references, per-sample inputs, options).
DISTRIBUTED_CLUSTER_CASES = [
    ("logits", "references", {"clusters": "conversation"}, {"confidence_level": 0.95, "k_list": [1, 2]}),
]
LAW_OPTIONS = dict(k_list=[1, 2], return_per_class=True)  # tests/properties/test_metamorphic.py
NOTHING_LOST_OPTIONS = dict(k_list=[1, 2], return_per_class=True)  # tests/properties/test_nothing_lost.py
FAST_PATH_OPTIONS = dict(k_list=[1, 3], ignore_index=-100, return_per_class=True)  # tests/support/fast_path_data.py
HELPER_MAX_LINES = 3_600  # tests/unit/test_vendor.py: the most lines its generated shared_core.py may have


def fuzz_options(num_classes, names):
    """tests/properties/test_fuzz.py: (valid, invalid) values of its options for rows of ``num_classes`` scores."""
    valid = dict(
        k=[None, 1, 2, num_classes],
        k_list=[None, [1], [1, 2], [num_classes, 1, 1]],
        labels=[None, names],
        class_mask=[None, [0], [1], [0, 1], []],
        ignore_index=[None, -100, 0, "A"],
        sample_weight=[None],
        zero_division=["skip", 0, 1.0],
        return_per_class=[False, True],
    )
    invalid = dict(
        k=[0, num_classes + 1, 1.5, "1", 2**70],
        k_list=[[], [0], "12", [num_classes + 1], [1.5], 3],
        labels=[names + ["Z"], ["A"] * num_classes, [0.5] * num_classes, "ABC", 3],
        class_mask=[[9], [-1], [0.5]],
        zero_division=["warn", 0.5],
        return_per_class=["yes"],
    )
    return valid, invalid


SCORES = [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.05, 0.05, 0.9], [0.05, 0.9, 0.05]]
REFERENCES = [0, 1, 2, 1]


@pytest.fixture(scope="module")
def metric():
    return load_module("balanced_topk_accuracy")


def torchmetrics_topk(scores, references, k, average="macro"):
    num_classes = scores.shape[1]
    accuracy = MulticlassAccuracy(num_classes=num_classes, top_k=k, average=average)
    return accuracy(torch.as_tensor(scores), torch.as_tensor(references)).numpy().astype(float)


def untied_cases(count, seed):
    """Informative float32 logits without ties; skewed class priors, every class present."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        num_classes = int(rng.integers(2, 13))
        size = int(rng.integers(num_classes, 400))
        prior = rng.dirichlet(np.full(num_classes, 0.5))
        references = rng.choice(num_classes, size=size, p=prior)
        references[:num_classes] = np.arange(num_classes)  # every class has support
        references = rng.permutation(references)
        logits = rng.normal(size=(size, num_classes)) + rng.random() * 3 * np.eye(num_classes)[references]
        logits = logits.astype(np.float32)
        sorted_rows = np.sort(logits, axis=1)
        assert (np.diff(sorted_rows, axis=1) > 0).all(), "generated scores must be untied"
        yield logits, references


# ---------------------------------------------------------------- documented examples


def test_documented_example_k1_with_per_class(metric):
    result = metric.compute(predictions=SCORES, references=REFERENCES, k=1, return_per_class=True)
    assert result["balanced_topk_accuracy"] == pytest.approx(2.5 / 3, abs=1e-15)
    assert result["per_class_recall"] == [1.0, 0.5, 1.0]
    assert result["support_per_class"] == [1, 2, 1] and result["classes"] == [0, 1, 2]


def test_documented_example_k_list(metric):
    result = metric.compute(predictions=SCORES, references=REFERENCES, k_list=[1, 2])
    assert result["balanced_topk_accuracy"] == {1: pytest.approx(2.5 / 3, abs=1e-15), 2: 1.0}
    assert result["balanced_top1_accuracy"] == pytest.approx(2.5 / 3, abs=1e-15)
    assert result["balanced_top2_accuracy"] == 1.0
    assert set(result) == {"balanced_topk_accuracy", "balanced_top1_accuracy", "balanced_top2_accuracy"}


def test_documented_example_sample_weight(metric):
    result = metric.compute(predictions=SCORES, references=REFERENCES, k=1, sample_weight=[1, 0.5, 1, 1], return_per_class=True)
    assert result["per_class_recall"] == pytest.approx([1.0, 1 / 1.5, 1.0], abs=1e-15)
    assert result["support_per_class"] == [1.0, 1.5, 1.0]
    assert result["balanced_topk_accuracy"] == pytest.approx((2 + 1 / 1.5) / 3, abs=1e-15)


def test_documented_multiple_choice_example(metric):
    logprobs = [[-0.2, -2.1, -3.0, -4.2], [-1.9, -0.4, -2.2, -3.1], [-0.9, -1.2, -0.8, -3.3]]
    result = metric.compute(predictions=logprobs, references=["A", "B", "A"], labels=["A", "B", "C", "D"], k_list=[1, 2], return_per_class=True)
    # A: one of two in the top 1, both in the top 2; B: in the top 1; C and D have no references.
    assert result["balanced_topk_accuracy"] == {1: 0.75, 2: 1.0}
    assert result["classes"] == ["A", "B", "C", "D"]
    assert result["per_class_recall"][1][:2] == [0.5, 1.0] and all(math.isnan(r) for r in result["per_class_recall"][1][2:])


def test_card_claim_constant_ranking_scores_k_over_num_classes(metric):
    """A ranking that ignores the input (here: by class frequency) gets exactly k/K."""
    rng = np.random.default_rng(0)
    references = rng.choice(10, size=500, p=np.arange(10, 0, -1) / 55)
    references[:10] = np.arange(10)
    ranking = np.tile(np.arange(10, 0, -1, dtype=float), (500, 1))
    result = metric.compute(predictions=ranking, references=references, k_list=[1, 3, 10])
    assert result["balanced_topk_accuracy"] == {1: pytest.approx(0.1, abs=1e-15), 3: pytest.approx(0.3, abs=1e-15), 10: 1.0}
    assert top_k_accuracy_score(references, ranking, k=3, labels=range(10)) > 0.3  # plain top-k rewards the head


# ---------------------------------------------------------------- parity with torchmetrics and scikit-learn


@pytest.mark.parametrize("case", range(40))
def test_parity_with_torchmetrics_on_untied_logits(metric, case):
    logits, references = list(untied_cases(40, seed=0))[case]
    num_classes = logits.shape[1]
    k_values = list(range(1, num_classes + 1))
    result = metric.compute(predictions=logits, references=references, k_list=k_values, return_per_class=True)
    for k in k_values:
        expected = torchmetrics_topk(logits, references, k)
        assert result["balanced_topk_accuracy"][k] == pytest.approx(float(expected), abs=1e-6)
        assert result[f"balanced_top{k}_accuracy"] == result["balanced_topk_accuracy"][k]
        per_class = torchmetrics_topk(logits, references, k, average="none")
        assert result["per_class_recall"][k] == pytest.approx(per_class.tolist(), abs=1e-6)
    single = metric.compute(predictions=logits, references=references, k=min(3, num_classes))
    assert single["balanced_topk_accuracy"] == result["balanced_topk_accuracy"][min(3, num_classes)]


def test_parity_with_torchmetrics_on_torch_tensors(metric):
    for logits, references in untied_cases(5, seed=1):
        tensor, target = torch.from_numpy(logits), torch.from_numpy(references)
        k = min(2, logits.shape[1])
        result = metric.compute(predictions=tensor, references=target, k=k)
        assert result["balanced_topk_accuracy"] == pytest.approx(float(torchmetrics_topk(logits, references, k)), abs=1e-6)


def test_integer_weights_equal_repeated_samples_in_torchmetrics(metric):
    rng = np.random.default_rng(2)
    for logits, references in untied_cases(10, seed=2):
        num_classes = logits.shape[1]
        weights = rng.integers(0, 4, len(references))
        weights[np.unique(references, return_index=True)[1]] = 1  # keep every class present
        repeated = np.repeat(np.arange(len(references)), weights)
        k = int(rng.integers(1, num_classes + 1))
        result = metric.compute(predictions=logits, references=references, k=k, sample_weight=weights.astype(float))
        expected = torchmetrics_topk(logits[repeated], references[repeated], k)
        assert result["balanced_topk_accuracy"] == pytest.approx(float(expected), abs=1e-6)


def test_weighted_parity_with_sklearn_top_k_per_class(metric):
    """Real-valued weights: per-class top-k recall from scikit-learn's weighted top_k_accuracy_score."""
    rng = np.random.default_rng(3)
    for logits, references in untied_cases(10, seed=3):
        num_classes = logits.shape[1]
        if num_classes == 2:  # scikit-learn wants 1-D scores for two classes
            continue
        weights = rng.random(len(references)) * 2 + 0.01
        for k in range(1, num_classes):  # k = K is a trivial (and warned about) case in scikit-learn
            recalls = [
                top_k_accuracy_score(references[references == c], logits[references == c], k=k,
                                     labels=np.arange(num_classes), sample_weight=weights[references == c])
                for c in range(num_classes)
            ]
            result = metric.compute(predictions=logits, references=references, k=k, sample_weight=weights, return_per_class=True)
            assert result["per_class_recall"] == pytest.approx(recalls, abs=1e-12)
            assert result["balanced_topk_accuracy"] == pytest.approx(np.mean(recalls), abs=1e-12)


def test_k1_equals_balanced_accuracy_of_the_argmax(metric, balanced_accuracy):
    rng = np.random.default_rng(4)
    for case, (logits, references) in enumerate(untied_cases(20, seed=4)):
        num_classes = logits.shape[1]
        if case % 2:  # leave some classes without references (and predict them)
            references = np.minimum(references, max(0, num_classes - 3))
        weights = rng.random(len(references)) + 0.1 if case % 3 == 0 else None
        argmax = logits.argmax(axis=1)
        ours = metric.compute(predictions=logits, references=references, k=1, sample_weight=weights)["balanced_topk_accuracy"]
        theirs = balanced_accuracy.compute(predictions=argmax, references=references, sample_weight=weights, task="multiclass")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "y_pred contains classes not in y_true"
            sklearn_value = balanced_accuracy_score(references, argmax, sample_weight=weights)
        assert ours == pytest.approx(theirs["balanced_accuracy"], abs=1e-12)
        assert ours == pytest.approx(sklearn_value, abs=1e-12)


# ---------------------------------------------------------------- classes without references


def test_classes_without_references_are_skipped_or_zero_division(metric):
    scores = [[0.7, 0.2, 0.1, 0.0], [0.1, 0.3, 0.6, 0.0], [0.2, 0.5, 0.3, 0.0]]
    references = [0, 1, 1]  # classes 2 and 3 have no references; class 2 is predicted once
    skipped = metric.compute(predictions=scores, references=references, k=1, return_per_class=True)
    assert skipped["balanced_topk_accuracy"] == 0.75
    assert skipped["per_class_recall"][:2] == [1.0, 0.5] and all(math.isnan(r) for r in skipped["per_class_recall"][2:])
    assert skipped["support_per_class"] == [1, 2, 0, 0]
    zero = metric.compute(predictions=scores, references=references, k=1, zero_division=0.0, return_per_class=True)
    assert zero["balanced_topk_accuracy"] == 1.5 / 4 and zero["per_class_recall"] == [1.0, 0.5, 0.0, 0.0]
    one = metric.compute(predictions=scores, references=references, k_list=[1, 2], zero_division=1)
    assert one["balanced_topk_accuracy"] == {1: 3.5 / 4, 2: 1.0}


def test_classes_without_references_against_torchmetrics(metric):
    """The card's statement: torchmetrics skips classes without references for top_k > 1,
    but at top_k = 1 averages a predicted class without references as recall 0."""
    checked = 0
    for logits, references in untied_cases(10, seed=5):
        num_classes = logits.shape[1]
        if num_classes < 3:
            continue
        checked += 1
        references = np.minimum(references, num_classes - 2)  # the last class has no references
        result = metric.compute(predictions=logits, references=references, k_list=list(range(1, num_classes + 1)), return_per_class=True)
        for k in range(2, num_classes + 1):
            assert result["balanced_topk_accuracy"][k] == pytest.approx(float(torchmetrics_topk(logits, references, k)), abs=1e-6)
        recall = np.array(result["per_class_recall"][1])
        predicted = np.bincount(logits.argmax(axis=1), minlength=num_classes) > 0
        counted = ~np.isnan(recall) | predicted
        torchmetrics_rule = np.nan_to_num(recall)[counted].mean()
        assert float(torchmetrics_topk(logits, references, 1)) == pytest.approx(torchmetrics_rule, abs=1e-6)
    assert checked >= 5


# ---------------------------------------------------------------- tie rule


def expected_hits_over_all_tie_breaks(scores, references, k):
    """Brute force: average the hit over every order of the classes, ties broken by that order."""
    num_samples, num_classes = scores.shape
    hits = np.zeros(num_samples)
    orders = list(itertools.permutations(range(num_classes)))
    for order in orders:
        priority = np.empty(num_classes, dtype=int)
        priority[list(order)] = np.arange(num_classes)
        # rank = classes ahead of the true class: higher score, or equal score and earlier in the order
        true_score = scores[np.arange(num_samples), references][:, None]
        true_priority = priority[references][:, None]
        ahead = (scores > true_score) | ((scores == true_score) & (priority[None, :] < true_priority))
        hits += ahead.sum(axis=1) < k
    return hits / len(orders)


@pytest.mark.parametrize("seed", range(6))
def test_tie_rule_is_the_expected_hit_under_random_tie_breaks(metric, seed):
    rng = np.random.default_rng(seed)
    num_classes = int(rng.integers(2, 6))
    references = rng.integers(0, num_classes, 60)
    references[:num_classes] = np.arange(num_classes)
    scores = rng.integers(0, 3, (60, num_classes)).astype(float)  # many ties
    weights = rng.random(60) + 0.1
    k_values = list(range(1, num_classes + 1))
    result = metric.compute(predictions=scores, references=references, k_list=k_values, sample_weight=weights, return_per_class=True)
    for k in k_values:
        hits = expected_hits_over_all_tie_breaks(scores, references, k)
        expected = [np.sum(hits[references == c] * weights[references == c]) / np.sum(weights[references == c]) for c in range(num_classes)]
        assert result["per_class_recall"][k] == pytest.approx(expected, abs=1e-12)


def direct_hits(scores, references, k_values):
    """The tie rule written out on whole arrays (no blocks, no threads, no bit tricks)."""
    true_score = scores[np.arange(len(scores)), references][:, None]
    higher = (scores > true_score).sum(axis=1)
    tied = (scores == true_score).sum(axis=1)  # the true class included
    return np.clip((np.array(k_values)[None, :] - higher[:, None]) / tied[:, None], 0, 1)


@pytest.mark.parametrize(
    "num_samples, num_classes",
    [
        (3000, 7),  # rows not a multiple of 8 columns wide (padded words)
        (400, 2041),  # more than 255 words a row: plain boolean sums
        (9000, 1000),  # above 2 x 2^22 elements: row blocks on several threads where there are cores
    ],
)
def test_blocked_counting_equals_the_tie_rule_on_whole_arrays(metric, num_samples, num_classes):
    """Rows of every kind in one input: clear hits, clear misses and ties around the k-th
    place, so that blocks count ties on all rows, on some rows or on none."""
    rng = np.random.default_rng(num_classes)
    references = rng.integers(0, num_classes, num_samples)
    scores = rng.integers(0, 4, (num_samples, num_classes)).astype(np.float32)  # heavy ties
    untied = rng.random(num_samples) < 0.5
    scores[untied] = rng.random((int(untied.sum()), num_classes), dtype=np.float32)
    scores[rng.random(num_samples) < 0.3, :] = 0.0  # whole rows tied
    scores[np.arange(num_samples)[::5], references[::5]] = 5.0  # clear top-1 hits
    scores[np.arange(num_samples)[1::7], references[1::7]] = -1.0  # last place: every other class higher
    k_values = [1, 2, 5]
    result = metric.compute(predictions=scores, references=references, k_list=k_values, return_per_class=True)
    hits = direct_hits(scores, references, k_values)
    support = np.bincount(references, minlength=num_classes)
    for column, k in enumerate(k_values):
        per_class = np.bincount(references, weights=hits[:, column], minlength=num_classes) / np.where(support, support, 1)
        expected = per_class[support > 0].mean()
        assert result["balanced_topk_accuracy"][k] == pytest.approx(expected, abs=1e-12)
        assert np.allclose(np.array(result["per_class_recall"][k], dtype=float)[support > 0], per_class[support > 0], atol=1e-12)


def test_scores_near_the_float32_limit_are_counted_not_refused(metric):
    """Finiteness is checked in one pass whose row sums overflow for finite scores near
    float32's largest value; such scores must be ranked like any others, not refused."""
    rng = np.random.default_rng(5)
    references = rng.integers(0, 600, 300)
    scores = rng.integers(0, 4, (300, 600)).astype(np.float32) * np.float32(1e38)  # rows summing far beyond 3.4e38; ties
    with np.errstate(over="ignore"):
        assert np.isfinite(scores).all() and not np.isfinite(scores.sum(axis=1, dtype=np.float32)).any()
    k_values = [1, 5]
    result = metric.compute(predictions=scores, references=references, k_list=k_values)
    hits = direct_hits(scores, references, k_values)
    support = np.bincount(references, minlength=600)
    for column, k in enumerate(k_values):
        per_class = np.bincount(references, weights=hits[:, column], minlength=600)[support > 0] / support[support > 0]
        assert result["balanced_topk_accuracy"][k] == pytest.approx(per_class.mean(), abs=1e-12)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", ["first row", "last row", "ignored row", "only rows ignored"])
def test_non_finite_scores_give_the_add_batch_error_in_a_one_call_compute(load, bad, where):
    """A one-call compute checks finiteness while counting (one read of the scores): it must
    raise what add_batch raises, for a value in any block, in a row ignore_index drops, or
    when every row is dropped."""
    rng = np.random.default_rng(1)
    scores = rng.random((9000, 1000)).astype(np.float32)  # several blocks, several threads where there are cores
    references = rng.integers(0, 1000, 9000)
    row = {"first row": 0, "last row": -1, "ignored row": 5, "only rows ignored": 5}[where]
    scores[row, 3] = bad
    if where == "ignored row":
        references[5] = -100
    if where == "only rows ignored":
        references[:] = -100
    with pytest.raises(ValueError) as stored_error:
        load("balanced_topk_accuracy").add_batch(predictions=scores, references=references)
    with pytest.raises(ValueError) as direct_error:
        load("balanced_topk_accuracy").compute(predictions=scores, references=references, k_list=[1, 5], ignore_index=-100)
    assert str(direct_error.value) == str(stored_error.value)
    assert str(direct_error.value).startswith("predictions: expected finite values, found 1 non-finite value(s)")


@pytest.mark.parametrize("num_classes", [7, 8, 2040, 2041, 2048, 2049])
def test_rows_of_equal_scores_count_every_tie_at_any_width(metric, num_classes):
    """Every row tied (so every row's ties are counted): k/K, whatever the row width."""
    references = np.arange(64) % num_classes
    result = metric.compute(predictions=np.zeros((64, num_classes), dtype=np.float32), references=references, k_list=[1, 2, 5])
    assert result["balanced_topk_accuracy"] == pytest.approx({k: min(k, num_classes) / num_classes for k in (1, 2, 5)}, abs=1e-15)


def test_tie_rule_hand_examples(metric):
    # true class 1 scores 0.2, tied with class 2, below class 0: g = 1, t = 1.
    row = [[0.5, 0.2, 0.2, 0.1]]
    assert metric.compute(predictions=row, references=[1], k_list=[1, 2, 3])["balanced_topk_accuracy"] == {1: 0.0, 2: 0.5, 3: 1.0}
    # saturated half-precision probabilities: true class 3 tied at 0 with three others below class 0.
    saturated = torch.tensor([[1.0, 0.0, 0.0, 0.0, 0.0]], dtype=torch.float16)
    assert metric.compute(predictions=saturated, references=[3], k=2)["balanced_topk_accuracy"] == 0.25
    # equal scores: k/K
    constant = np.zeros((6, 5))
    result = metric.compute(predictions=constant, references=[0, 1, 2, 3, 4, 4], k_list=[1, 2, 5])
    assert result["balanced_topk_accuracy"] == {1: 0.2, 2: 0.4, 5: 1.0}


def test_ties_do_not_depend_on_the_column_order(metric):
    rng = np.random.default_rng(7)
    scores = rng.integers(0, 4, (200, 6)).astype(float)
    references = rng.integers(0, 6, 200)
    names = np.array(list("ABCDEF"))
    base = metric.compute(predictions=scores, references=names[references].tolist(), labels=names.tolist(), k_list=[1, 2, 3], return_per_class=True)
    for _ in range(5):
        order = rng.permutation(6)
        permuted = metric.compute(predictions=scores[:, order], references=names[references].tolist(), labels=names[order].tolist(),
                                  k_list=[1, 2, 3], return_per_class=True)
        assert permuted["balanced_topk_accuracy"] == pytest.approx(base["balanced_topk_accuracy"], abs=1e-12)
        for k in (1, 2, 3):
            assert permuted["per_class_recall"][k] == pytest.approx(np.array(base["per_class_recall"][k])[order].tolist(), abs=1e-12)


# ---------------------------------------------------------------- inputs and options


@pytest.mark.parametrize(
    "convert",
    [
        lambda x: x,
        np.array,
        lambda x: np.array(x, dtype=np.float32),
        torch.tensor,
        lambda x: torch.tensor(x, requires_grad=True),
        lambda x: torch.tensor(x, dtype=torch.float16),
        lambda x: torch.tensor(x, dtype=torch.bfloat16),
        pd.DataFrame,
        pa.array,
    ],
    ids=["list", "numpy", "float32", "torch", "torch_requires_grad", "float16", "bfloat16", "pandas", "pyarrow"],
)
def test_input_containers(metric, convert):
    scores = [[0.75, 0.125, 0.125], [0.25, 0.5, 0.25], [0.5, 0.25, 0.25], [0.0, 0.25, 0.75]]  # exact in half precision
    references = [0, 1, 2, 2]
    result = metric.compute(predictions=convert(scores), references=references, k_list=[1, 2])
    # The third sample (class 2) scores 0.25, below 0.5 and tied with class 1: a miss at k = 1,
    # half of the one place left at k = 2. Class recalls: k=1 [1, 1, 1/2], k=2 [1, 1, 3/4].
    assert result["balanced_topk_accuracy"] == {1: pytest.approx(2.5 / 3, abs=1e-15), 2: pytest.approx(2.75 / 3, abs=1e-15)}


def test_integer_scores_and_reference_containers(metric):
    votes = [[3, 1, 0], [0, 1, 2], [1, 2, 0]]
    for references in ([0, 2, 1], np.array([0, 2, 1]), pd.Series([0, 2, 1]), torch.tensor([0, 2, 1]), [0.0, 2.0, 1.0]):
        assert metric.compute(predictions=votes, references=references) == {"balanced_topk_accuracy": 1.0}


def test_names_map_to_score_columns_in_the_order_of_labels(metric):
    logits, references = next(untied_cases(1, seed=8))
    num_classes = logits.shape[1]
    names = [f"option {chr(65 + c)}" for c in range(num_classes)][::-1]
    by_name = metric.compute(predictions=logits, references=[names[c] for c in references], labels=names, k=1, return_per_class=True)
    by_index = metric.compute(predictions=logits, references=references, k=1, return_per_class=True)
    assert by_name["per_class_recall"] == by_index["per_class_recall"] and by_name["classes"] == names


def test_ignore_index_drops_samples(metric):
    logits, references = next(untied_cases(1, seed=9))
    padded = references.copy()
    padded[::5] = -100
    keep = padded != -100
    result = metric.compute(predictions=logits, references=padded, ignore_index=-100, k_list=[1, 2])
    assert result == metric.compute(predictions=logits[keep], references=references[keep], k_list=[1, 2])
    empty = metric.compute(predictions=logits[:3], references=[-100] * 3, ignore_index=-100, k_list=[1, 2])
    assert empty["reason"] == "empty_after_ignore_index"
    assert all(math.isnan(v) for v in empty["balanced_topk_accuracy"].values())
    assert math.isnan(empty["balanced_top1_accuracy"]) and math.isnan(empty["balanced_top2_accuracy"])


def test_class_mask(metric):
    result = metric.compute(predictions=SCORES, references=REFERENCES, class_mask=[1, 2])
    assert result == {"balanced_topk_accuracy": 0.75}
    scores = [[0.9, 0.1, 0.0], [0.2, 0.8, 0.0]]
    empty = metric.compute(predictions=scores, references=[0, 1], class_mask=[2])
    assert math.isnan(empty["balanced_topk_accuracy"]) and empty["reason"] == "empty_class_mask_after_filtering"


def test_no_samples(metric):
    result = metric.compute(predictions=np.zeros((0, 3)), references=[], k=2)
    assert math.isnan(result["balanced_topk_accuracy"]) and result["reason"] == "no_samples"


def test_k_list_order_duplicates_and_numpy_integers(metric):
    result = metric.compute(predictions=SCORES, references=REFERENCES, k_list=np.array([2, 1, 2]))
    assert list(result["balanced_topk_accuracy"]) == [2, 1]
    assert all(type(k) is int for k in result["balanced_topk_accuracy"])
    assert metric.compute(predictions=SCORES, references=REFERENCES, k=np.int64(2)) == {"balanced_topk_accuracy": 1.0}


def test_results_are_plain_python_and_json_keys_become_strings(metric):
    result = metric.compute(predictions=np.array(SCORES, dtype=np.float32), references=np.array(REFERENCES), k_list=[1, 2],
                            return_per_class=True, sample_weight=np.ones(4))
    assert_plain(result)
    restored = json.loads(json.dumps(result))
    assert restored["balanced_topk_accuracy"] == {"1": result["balanced_topk_accuracy"][1], "2": 1.0}
    assert restored["balanced_top2_accuracy"] == 1.0


def test_streaming_add_batch_and_add_match_one_call(load):
    logits, references = next(untied_cases(1, seed=10))
    logits = np.vstack([logits, np.round(logits[:20])])  # some tied rows too
    references = np.concatenate([references, references[:20]])
    votes = np.arange(logits.shape[1])[None, :].repeat(3, axis=0)  # an integer first batch
    all_scores, all_references = np.vstack([votes, logits]), np.concatenate([[0, 1, 0], references])
    expected = load("balanced_topk_accuracy").compute(predictions=all_scores, references=all_references, k_list=[1, 2])
    for keep_in_memory in (False, True):
        metric = load("balanced_topk_accuracy", keep_in_memory=keep_in_memory)
        metric.add_batch(predictions=votes.tolist(), references=[0, 1, 0])
        for start in range(0, len(references) - 5, 50):
            stop = min(start + 50, len(references) - 5)
            metric.add_batch(predictions=torch.from_numpy(logits[start:stop]), references=references[start:stop])
        for row, reference in zip(logits[-5:], references[-5:]):
            metric.add(prediction=row, reference=reference)
        assert metric.compute(k_list=[1, 2]) == expected


def test_streaming_names_and_rejected_batches(load):
    metric = load("balanced_topk_accuracy")
    metric.add_batch(predictions=SCORES[:2], references=["A", "B"])
    with pytest.raises(ValueError, match="predictions: expected rows of length 3 like the earlier batches, found 4"):
        metric.add_batch(predictions=[[0.1, 0.2, 0.3, 0.4]], references=["A"])
    with pytest.raises(ValueError, match="predictions: expected finite values"):
        metric.add_batch(predictions=[[0.1, float("nan"), 0.3]], references=["A"])
    metric.add_batch(predictions=SCORES[2:], references=["C", "B"])
    assert metric.compute(labels=["A", "B", "C"]) == {"balanced_topk_accuracy": pytest.approx(2.5 / 3, abs=1e-15)}


def test_demo_rows():
    sys.path.insert(0, str(REPO_ROOT / "examples"))
    try:
        import demo_topk

        rows = demo_topk.rows()
    finally:
        sys.path.remove(str(REPO_ROOT / "examples"))
    assert len(rows) == 4 and all(len(row) == 6 for row in rows)  # the sixth cell is the 95% interval
    by_case = {row[0]: row for row in rows}
    for k in (1, 3):
        ranking = by_case[f"digits, classes ranked by training frequency, top-{k}"]
        assert ranking[3] == f"balanced_top{k}_accuracy" and ranking[4] == pytest.approx(k / 10, abs=1e-12)
        assert ranking[2] > ranking[4]  # plain top-k accuracy rewards ranking the head first
        model = by_case[f"digits (long tail), logistic regression, top-{k}"]
        assert 0 <= model[4] <= 1 and isinstance(model[2], float)
        assert model[5][0] <= model[4] <= model[5][1]


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        (dict(predictions=[0.1, 0.9, 0.5], references=[0, 1, 2]), ValueError, r"predictions: expected a 2-D array \(samples x columns\), found shape \(3,\)"),
        (dict(predictions=np.zeros((2, 3, 2)), references=[0, 1]), ValueError, r"predictions: expected a 2-D array \(samples x columns\), found shape \(2, 3, 2\)"),
        (dict(predictions=[[0.1, 0.9], [1.0]], references=[0, 1]), ValueError, r"predictions: expected a rectangular array"),
        (dict(predictions=[[0.1, float("nan")], [0.2, 0.8]], references=[0, 1]), ValueError, r"predictions: expected finite values"),
        (dict(predictions=[[0.1, float("inf")], [0.2, 0.8]], references=[0, 1]), ValueError, r"predictions: expected finite values"),
        (dict(predictions=[["a", "b"], ["b", "a"]], references=[0, 1]), TypeError, r"predictions: expected numeric scores, found values of dtype <U1"),
        (dict(predictions=None, references=[0, 1]), TypeError, r"predictions: expected an array-like of values, found None"),
        (dict(predictions=np.zeros((2, 0)), references=[0, 1]), ValueError, r"predictions: expected at least one score column, found shape \(2, 0\)"),
        (dict(predictions=SCORES[:3], references=REFERENCES), ValueError, r"predictions and references: expected the same number of samples, found 3 and 4"),
        (dict(predictions=SCORES[:2], references=[[1, 0, 0], [0, 1, 0]]), ValueError, r"references: expected one class per sample, shape \(N,\): an index 0..K-1 into the score columns \(or a name from `labels`\), found shape \(2, 3\); for one-hot rows pass their argmax"),
        (dict(predictions=SCORES, references=REFERENCES, k=0), ValueError, r"k: expected an integer in \[1, 3\] \(the number of score columns\), found 0"),
        (dict(predictions=SCORES, references=REFERENCES, k=4), ValueError, r"k: expected an integer in \[1, 3\] \(the number of score columns\), found 4"),
        (dict(predictions=SCORES, references=REFERENCES, k=1.5), TypeError, r"k: expected an integer in \[1, 3\], found 1.5"),
        (dict(predictions=SCORES, references=REFERENCES, k=True), TypeError, r"k: expected an integer in \[1, 3\], found True"),
        (dict(predictions=SCORES, references=REFERENCES, k_list=[1, 4]), ValueError, r"k_list: expected an integer in \[1, 3\] \(the number of score columns\), found 4"),
        (dict(predictions=SCORES, references=REFERENCES, k_list=[0, 1]), ValueError, r"k_list: expected an integer in \[1, 3\] \(the number of score columns\), found 0"),
        (dict(predictions=SCORES, references=REFERENCES, k_list=["1"]), TypeError, r"k_list: expected an integer in \[1, 3\], found '1'"),
        (dict(predictions=SCORES, references=REFERENCES, k_list=[]), ValueError, r"k_list: expected at least one k, found an empty list"),
        (dict(predictions=SCORES, references=REFERENCES, k_list=2), TypeError, r"k_list: expected a list of integers, found int"),
        (dict(predictions=SCORES, references=REFERENCES, k=2, k_list=[1]), ValueError, r"k and k_list: expected one of them, found k=2 and k_list=\[1\]"),
        (dict(predictions=SCORES, references=[0, 1, 3, 1]), ValueError, r"references: expected labels in \[0, 2\], found \[3\]"),
        (dict(predictions=SCORES, references=[0, -1, 2, 1]), ValueError, r"references: expected labels in \[0, 2\], found \[-1\]"),
        (dict(predictions=SCORES, references=[0, 0.5, 2, 1]), ValueError, r"references: expected one class per sample .* non-integer values such as 0.5; scores belong in `predictions`"),
        (dict(predictions=SCORES, references=["A", "B", "C", "B"]), TypeError, r"references: expected class indices 0..K-1, found strings; pass `labels`"),
        (dict(predictions=SCORES, references=["A", "B", "E", "B"], labels=["A", "B", "C"]), ValueError, r"references: expected values among `labels`, found unknown value\(s\) \['E'\]"),
        (dict(predictions=SCORES, references=["A", "B", "A", "B"], labels=["A", "B"]), ValueError, r"labels: expected one class name per score column \(3\), found 2"),
        (dict(predictions=SCORES, references=["A", "B", "A", "B"], labels="ABC"), TypeError, r"labels: expected a list with one class name per score column, found str"),
        (dict(predictions=SCORES, references=["A", "B", "A", "B"], labels=["A", "B", "A"]), ValueError, r"labels: expected distinct values"),
        (dict(predictions=SCORES, references=REFERENCES, labels=["A", "B", "C"]), TypeError, r"references: expected string labels like `labels`, found integers"),
        (dict(predictions=SCORES, references=REFERENCES, sample_weight=[1, 1, 1]), ValueError, r"sample_weight: expected one weight per sample \(4 values"),
        (dict(predictions=SCORES, references=REFERENCES, sample_weight=[1, -1, 1, 1]), ValueError, r"sample_weight: expected non-negative weights"),
        (dict(predictions=SCORES, references=REFERENCES, sample_weight=[1, float("nan"), 1, 1]), ValueError, r"sample_weight: expected finite values"),
        (dict(predictions=SCORES, references=REFERENCES, zero_division="warn"), ValueError, r"zero_division: expected 'skip', 0.0 or 1.0, found 'warn'"),
        (dict(predictions=SCORES, references=REFERENCES, class_mask=[3]), ValueError, r"class_mask: expected indices in \[0, 2\], found \[3\]"),
    ],
)
def test_errors_name_the_argument_expected_and_found(metric, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        metric.compute(**kwargs)


# ---------------------------------------------------------------- confidence intervals

LEVEL = 0.95
Z95 = 1.959963984540054
INTERVAL_REFERENCES = [0] * 40 + [1] * 20 + [2] * 10
INTERVAL_SCORES = (
    [[0.6, 0.3, 0.1]] * 36 + [[0.3, 0.6, 0.1]] * 4 + [[0.2, 0.7, 0.1]] * 15 + [[0.5, 0.3, 0.2]] * 5
    + [[0.1, 0.2, 0.7]] * 6 + [[0.5, 0.2, 0.3]] * 4
)


def mover_mean_by_hand(successes, trials):
    """Agresti-Coull per class, combined by MOVER into an interval for the mean of the rates."""
    rates = [x / n for x, n in zip(successes, trials)]
    below, above = [], []
    for x, n, rate in zip(successes, trials, rates):
        n_tilde = n + Z95**2
        p_tilde = (x + Z95**2 / 2) / n_tilde
        half = Z95 * math.sqrt(p_tilde * (1 - p_tilde) / n_tilde)
        below.append((rate - max(0.0, p_tilde - half)) / len(rates))
        above.append((min(1.0, p_tilde + half) - rate) / len(rates))
    mean = sum(rates) / len(rates)
    return [mean - math.sqrt(sum(b * b for b in below)), mean + math.sqrt(sum(a * a for a in above))]


def test_documented_interval_example(metric):
    result = metric.compute(predictions=INTERVAL_SCORES, references=INTERVAL_REFERENCES, k_list=[1, 2], confidence_level=LEVEL,
                            ci_method="agresti_coull")
    assert list(result) == [
        "balanced_topk_accuracy", "balanced_topk_accuracy_ci", "balanced_top1_accuracy", "balanced_top1_accuracy_ci",
        "balanced_top2_accuracy", "balanced_top2_accuracy_ci",
    ]
    assert result["balanced_top1_accuracy_ci"] == pytest.approx(mover_mean_by_hand([36, 15, 6], [40, 20, 10]), abs=1e-12)
    assert result["balanced_top2_accuracy_ci"] == pytest.approx(mover_mean_by_hand([40, 20, 10], [40, 20, 10]), abs=1e-12)
    assert result["balanced_top2_accuracy_ci"][1] == 1.0
    assert result["balanced_topk_accuracy_ci"] == {1: result["balanced_top1_accuracy_ci"], 2: result["balanced_top2_accuracy_ci"]}
    single = metric.compute(predictions=INTERVAL_SCORES, references=INTERVAL_REFERENCES, k=1, confidence_level=LEVEL,
                            ci_method="agresti_coull")
    assert single == {"balanced_topk_accuracy": 0.75, "balanced_topk_accuracy_ci": result["balanced_top1_accuracy_ci"]}
    # The default: the score interval with the gamma bound, written out with SciPy (tests/unit/test_intervals.py).
    from score_reference import score_sum_reference

    default = metric.compute(predictions=INTERVAL_SCORES, references=INTERVAL_REFERENCES, k_list=[1, 2], confidence_level=LEVEL)
    assert default["balanced_top1_accuracy_ci"] == pytest.approx(score_sum_reference([36, 15, 6], [40, 20, 10], [1 / 3] * 3), abs=1e-6)
    assert default["balanced_top2_accuracy_ci"] == pytest.approx(score_sum_reference([40, 20, 10], [40, 20, 10], [1 / 3] * 3), abs=1e-6)


@pytest.mark.parametrize("case", range(24))
def test_module_interval_is_the_shared_function_on_torch_topk_hits(metric, case):
    """Untied logits: per-class hits counted with torch.topk, then the shared interval function."""
    logits, references = list(untied_cases(24, seed=20))[case]
    rng = np.random.default_rng(case)
    num_classes = logits.shape[1]
    if case % 3 == 0:  # leave classes without references
        references = np.minimum(references, max(0, num_classes - 2))
    k_values = sorted({1, min(2, num_classes), num_classes})
    zero_division = ("skip", 0.0, 1.0)[case % 3]
    class_mask = [0, num_classes - 1] if case % 4 == 1 else None
    weights = rng.random(len(references)) * 2 + 0.1 if case % 4 == 2 else None
    ci_method = vocabulary.RATE_CI_METHODS[case % 3]
    result = metric.compute(
        predictions=logits, references=references, k_list=k_values, zero_division=zero_division, class_mask=class_mask,
        sample_weight=weights, confidence_level=0.9, ci_method=ci_method, n_resamples=500, seed=case,
    )
    w = np.ones(len(references)) if weights is None else weights
    support = np.array([w[references == c].sum() for c in range(num_classes)])
    squares = np.array([(w[references == c] ** 2).sum() for c in range(num_classes)])
    effective = None if weights is None else np.divide(support**2, squares, out=np.zeros(num_classes), where=squares > 0)
    for k in k_values:
        top = torch.topk(torch.from_numpy(logits), k, dim=1).indices.numpy()
        hit = (top == references[:, None]).any(axis=1)
        hits = np.array([(w * hit)[references == c].sum() for c in range(num_classes)])
        expected = balanced_accuracy_metric.recall_mean_interval(
            hits, support, confidence_level=0.9, method=ci_method, n_resamples=500, seed=case,
            class_mask=None if class_mask is None else np.array(class_mask), zero_division=zero_division,
            effective_support=effective,
        )
        assert result[f"balanced_top{k}_accuracy_ci"] == pytest.approx(expected.as_list(), abs=1e-12)
        assert result["balanced_topk_accuracy_ci"][k] == result[f"balanced_top{k}_accuracy_ci"]
        low, high = result[f"balanced_top{k}_accuracy_ci"]
        assert all(type(v) is float for v in (low, high)) and 0.0 <= low <= high <= 1.0
        if ci_method != "bootstrap":
            # 1e-12: the interval's mean of c rates 1/c + ... + 1/c can round one ulp below the point 1.0
            assert low - 1e-12 <= result[f"balanced_top{k}_accuracy"] <= high + 1e-12


def test_k1_interval_equals_balanced_accuracy_interval_of_the_argmax(metric, balanced_accuracy):
    for case, (logits, references) in enumerate(untied_cases(6, seed=21)):
        for method in vocabulary.RATE_CI_METHODS:
            ours = metric.compute(predictions=logits, references=references, k=1, confidence_level=LEVEL, ci_method=method, seed=case)
            theirs = balanced_accuracy.compute(predictions=logits.argmax(axis=1), references=references, task="multiclass",
                                               num_classes=logits.shape[1], confidence_level=LEVEL, ci_method=method, seed=case)
            assert ours["balanced_topk_accuracy_ci"] == pytest.approx(theirs["balanced_accuracy_ci"], abs=1e-12)


def test_tied_fractional_hits_give_a_finite_interval_holding_the_value(metric):
    rng = np.random.default_rng(22)
    scores = rng.integers(0, 3, (120, 4)).astype(float)  # many ties: fractional hits
    references = rng.integers(0, 4, 120)
    for method in vocabulary.RATE_CI_METHODS:
        result = metric.compute(predictions=scores, references=references, k_list=[1, 2, 3], confidence_level=LEVEL,
                                ci_method=method, seed=0, return_per_class=True)
        for k in (1, 2, 3):
            hits = np.array([expected_hits_over_all_tie_breaks(scores, references, k)[references == c].sum() for c in range(4)])
            assert not np.allclose(hits, np.round(hits))  # the case the interval must handle: non-integer hits
            support = np.bincount(references, minlength=4)
            expected = balanced_accuracy_metric.recall_mean_interval(hits, support, confidence_level=LEVEL, method=method, seed=0)
            assert result[f"balanced_top{k}_accuracy_ci"] == pytest.approx(expected.as_list(), abs=1e-12)
            low, high = result[f"balanced_top{k}_accuracy_ci"]
            assert 0.0 <= low < result[f"balanced_top{k}_accuracy"] < high <= 1.0


def test_intervals_are_reproducible_with_a_seed_and_vary_without(metric):
    args = dict(predictions=INTERVAL_SCORES, references=INTERVAL_REFERENCES, k_list=[1, 2], confidence_level=LEVEL,
                ci_method="bootstrap", n_resamples=2000)
    assert metric.compute(**args, seed=4) == metric.compute(**args, seed=4)
    unseeded = {tuple(metric.compute(**args)["balanced_top1_accuracy_ci"]) for _ in range(5)}
    assert len(unseeded) > 1


def test_interval_results_are_json_safe_and_no_keys_without_confidence_level(metric):
    result = metric.compute(predictions=INTERVAL_SCORES, references=INTERVAL_REFERENCES, k_list=[1, 3], confidence_level=LEVEL)
    assert json.loads(json.dumps(result))["balanced_topk_accuracy_ci"]["3"] == result["balanced_top3_accuracy_ci"]
    plain = metric.compute(predictions=INTERVAL_SCORES, references=INTERVAL_REFERENCES, k_list=[1, 3], ci_method="wilson", seed=0)
    assert plain == {key: value for key, value in result.items() if not key.endswith("_ci")}


def test_equal_weights_give_the_unweighted_interval_and_unequal_weights_widen_it(metric):
    args = dict(predictions=INTERVAL_SCORES, references=INTERVAL_REFERENCES, k=1, confidence_level=LEVEL)
    plain = metric.compute(**args)["balanced_topk_accuracy_ci"]
    assert metric.compute(**args, sample_weight=[3.0] * 70)["balanced_topk_accuracy_ci"] == pytest.approx(plain, abs=1e-12)
    uneven = metric.compute(**args, sample_weight=np.where(np.arange(70) % 2 == 0, 0.5, 1.5))["balanced_topk_accuracy_ci"]
    assert uneven[1] - uneven[0] > plain[1] - plain[0]
    # Kish's size does not depend on the weights' scale, even near float64's limits.
    for scale in (1e-200, 1e200):
        scaled = metric.compute(**args, sample_weight=np.where(np.arange(70) % 2 == 0, 0.5, 1.5) * scale)
        assert scaled["balanced_topk_accuracy_ci"] == pytest.approx(uneven, abs=1e-12)


@pytest.mark.parametrize("ci_method", vocabulary.RATE_CI_METHODS)
@pytest.mark.parametrize(
    "scores, references",
    [
        ([[0.9, 0.1], [0.2, 0.8]], [0, 1]),  # one sample per class, all hits
        ([[0.1, 0.9], [0.8, 0.2]], [0, 1]),  # one sample per class, no hits
        ([[0.9, 0.1]] * 50 + [[0.9, 0.1]], [0] * 50 + [1]),  # a class of one sample, missed
        ([[0.0, 0.0, 0.0]] * 6, [0, 1, 2, 0, 1, 2]),  # all tied: k/K
    ],
)
def test_degenerate_sets_give_a_finite_interval_inside_the_range(metric, scores, references, ci_method):
    result = metric.compute(predictions=scores, references=references, k_list=[1, 2], confidence_level=LEVEL,
                            ci_method=ci_method, n_resamples=500, seed=0)
    for k in (1, 2):
        low, high = result[f"balanced_top{k}_accuracy_ci"]
        assert math.isfinite(low) and math.isfinite(high) and 0.0 <= low <= high <= 1.0
        if ci_method != "bootstrap":
            assert low <= result[f"balanced_top{k}_accuracy"] <= high and high > low


@pytest.mark.parametrize(
    "kwargs, reason",
    [
        (dict(predictions=SCORES, references=[-1, -1, -1, -1], ignore_index=-1), "empty_after_ignore_index"),
        (dict(predictions=SCORES, references=REFERENCES, class_mask=[]), "empty_class_mask_after_filtering"),
        (dict(predictions=SCORES, references=[0, 0, 1, 1], class_mask=[2]), "empty_class_mask_after_filtering"),
        (dict(predictions=SCORES, references=REFERENCES, sample_weight=[0, 0, 0, 0]), "no_samples"),
    ],
)
def test_undefined_value_has_an_undefined_interval(metric, kwargs, reason):
    single = metric.compute(**kwargs, k=1, confidence_level=LEVEL)
    assert single["reason"] == reason and all(math.isnan(v) for v in single["balanced_topk_accuracy_ci"])
    several = metric.compute(**kwargs, k_list=[1, 2], confidence_level=LEVEL)
    assert several["reason"] == reason
    assert all(math.isnan(v) for k in (1, 2) for v in several["balanced_topk_accuracy_ci"][k] + several[f"balanced_top{k}_accuracy_ci"])


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        (dict(confidence_level=0.0), ValueError, r"confidence_level: expected a number in \(0, 1\) such as 0.95, found 0.0"),
        (dict(confidence_level=True), TypeError, r"confidence_level: expected a number in \(0, 1\) such as 0.95, found bool"),
        (dict(confidence_level=0.95, ci_method="percentile"), ValueError, r"ci_method: expected one of \('score', 'agresti_coull', 'wilson', 'bootstrap'\) or None, found 'percentile'"),
        (dict(confidence_level=0.95, n_resamples=-5), ValueError, r"n_resamples: expected an integer in \[1, 1,000,000\], found -5"),
        (dict(confidence_level=0.95, seed="0"), TypeError, r"seed: expected a non-negative integer or None, found '0'"),
        (dict(confidence_level=1.5, ignore_index=-1, references=[-1, -1, -1, -1]), ValueError, r"confidence_level: expected a number in \(0, 1\)"),
    ],
)
def test_interval_argument_errors_name_the_argument(metric, kwargs, error, pattern):
    arguments = dict(predictions=SCORES, references=REFERENCES)
    arguments.update(kwargs)
    with pytest.raises(error, match=pattern):
        metric.compute(**arguments)


# ---------------------------------------------------------------- counts: streaming, load-time options, bad options first


def assert_same_result(actual, expected, tolerance=1e-12):
    """Equal keys and types; numbers equal within ``tolerance`` (NaN equals NaN), at any depth."""
    assert type(actual) is type(expected), (actual, expected)
    if isinstance(expected, dict):
        assert list(actual) == list(expected)
        for key in expected:
            assert_same_result(actual[key], expected[key], tolerance)
    elif isinstance(expected, list):
        assert len(actual) == len(expected)
        for mine, theirs in zip(actual, expected):
            assert_same_result(mine, theirs, tolerance)
    elif isinstance(expected, float):
        assert (math.isnan(actual) and math.isnan(expected)) or math.isclose(actual, expected, rel_tol=tolerance, abs_tol=tolerance)
    else:
        assert actual == expected


def tied_weighted_case(seed, num_samples=3000, num_classes=12):
    """Scores with many ties (and some rows all tied), skewed classes and real-valued weights."""
    rng = np.random.default_rng(seed)
    references = rng.choice(num_classes, size=num_samples, p=rng.dirichlet(np.full(num_classes, 0.7)))
    scores = rng.integers(0, 5, (num_samples, num_classes)).astype(np.float32)
    untied = rng.random(num_samples) < 0.5
    scores[untied] = rng.random((int(untied.sum()), num_classes), dtype=np.float32)
    scores[rng.random(num_samples) < 0.1] = 0.0
    weights = rng.random(num_samples) * 2
    weights[rng.random(num_samples) < 0.05] = 0.0
    return scores, references, weights


@pytest.mark.parametrize("weighted", [False, True])
def test_streaming_many_batches_equals_one_call(load, weighted):
    scores, references, weights = tied_weighted_case(30)
    references = references.copy()
    references[::17] = -100  # ignored at compute time
    weights = weights if weighted else None
    args = dict(k_list=[1, 2, 5, 12], ignore_index=-100, return_per_class=True, confidence_level=0.9, seed=0)
    expected = load("balanced_topk_accuracy").compute(predictions=scores, references=references, sample_weight=weights, **args)
    for load_options in ({}, {"k_list": [1, 2, 5, 12]}):  # every rank kept, or ranks clipped at the largest k
        metric = load("balanced_topk_accuracy", **load_options)
        bounds = np.unique(np.r_[0, np.random.default_rng(1).integers(0, len(references), 40), len(references)])
        for start, stop in zip(bounds[:-1], bounds[1:]):
            batch_weights = None if weights is None else weights[start:stop]
            metric.add_batch(predictions=scores[start:stop], references=references[start:stop], sample_weight=batch_weights)
        assert_same_result(metric.compute(**args), expected)
    # A weight of 0 removes a sample; weights scaled by one factor change nothing.
    if weighted:
        kept = (weights > 0) & (references != -100)
        removed = load("balanced_topk_accuracy").compute(predictions=scores[kept], references=references[kept],
                                                         sample_weight=weights[kept], **args)
        assert removed["balanced_topk_accuracy"] == pytest.approx(expected["balanced_topk_accuracy"], abs=1e-12)
        scaled = load("balanced_topk_accuracy").compute(predictions=scores, references=references, sample_weight=weights * 1e6, **args)
        assert scaled["balanced_topk_accuracy"] == pytest.approx(expected["balanced_topk_accuracy"], abs=1e-12)


def test_streaming_class_names_with_labels_given_at_load_time(load):
    scores, references, weights = tied_weighted_case(31, num_samples=600, num_classes=5)
    names = np.array(["A", "B", "C", "D", "E"])
    expected = load("balanced_topk_accuracy").compute(predictions=scores, references=names[references].tolist(),
                                                      labels=names.tolist(), k_list=[1, 3], sample_weight=weights)
    metric = load("balanced_topk_accuracy", labels=names.tolist())
    for start in range(0, 600, 100):
        metric.add_batch(predictions=scores[start:start + 100], references=names[references[start:start + 100]].tolist(),
                         sample_weight=weights[start:start + 100])
    assert not metric.writer.raw  # ranked as they came: no scores kept
    assert_same_result(metric.compute(k_list=[1, 3]), expected)
    # Names streamed without labels are kept whole until compute gets labels; the result is the same.
    late = load("balanced_topk_accuracy")
    for start in range(0, 600, 100):
        late.add_batch(predictions=scores[start:start + 100], references=names[references[start:start + 100]].tolist(),
                       sample_weight=weights[start:start + 100])
    assert_same_result(late.compute(k_list=[1, 3], labels=names.tolist()), expected)
    # Ranked with one set of labels, computed with another: an error, not a silent remapping.
    metric.add_batch(predictions=scores[:10], references=names[references[:10]].tolist())
    with pytest.raises(ValueError, match=r"labels: expected the labels the batches were ranked with"):
        metric.compute(labels=names[::-1].tolist())


def test_held_memory_of_streamed_top_k_is_at_most_16_bytes_per_sample(load):
    """200k x 1,000 float32 scores in 20 batches (800 MB of scores): the metric keeps counts
    of (class, g, t), at most 16 bytes per sample, whatever was allocated while counting."""
    import gc
    import tracemalloc

    num_samples, num_classes, batches = 200_000, 1000, 20
    rng = np.random.default_rng(32)
    metric = load("balanced_topk_accuracy")
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(batches):
            scores = rng.random((num_samples // batches, num_classes), dtype=np.float32)
            references = rng.integers(0, num_classes, num_samples // batches)
            metric.add_batch(predictions=scores, references=references)
            del scores, references
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(metric.writer) == num_samples
    assert held <= 16 * num_samples, f"{held / num_samples:.1f} bytes per sample"
    result = metric.compute(k_list=[1, 5])
    assert result["balanced_topk_accuracy"] == pytest.approx({1: 0.001, 5: 0.005}, abs=0.002)


@pytest.mark.parametrize(
    "option, error, pattern",
    [
        (dict(class_mask="zz"), TypeError, r"class_mask: expected a list of class indices"),
        (dict(zero_division="warn"), ValueError, r"zero_division: expected 'skip', 0.0 or 1.0"),
        (dict(k=0), ValueError, r"k: expected an integer in \[1, 3\] \(the number of score columns\), found 0"),
        (dict(k_list="1"), TypeError, r"k_list: expected a list of integers, found str"),
        (dict(labels="ABC"), TypeError, r"labels: expected a list with one class name per score column, found str"),
        (dict(return_per_class="yes"), TypeError, r"return_per_class: expected True or False"),
        (dict(ignore_index=[-100]), TypeError, r"ignore_index: expected one label value"),
        (dict(confidence_level=2.0), ValueError, r"confidence_level: expected a number in \(0, 1\)"),
        (dict(n_resamples=0), ValueError, r"n_resamples: expected an integer in \[1, 1,000,000\]"),
        (dict(ajusted=True), TypeError, r"ajusted: expected an argument of balanced_topk_accuracy"),
    ],
)
def test_bad_options_raise_even_when_every_sample_is_ignored(load, option, error, pattern):
    arguments = dict(predictions=SCORES, references=[-100] * 4, **{"ignore_index": -100, **option})
    with pytest.raises(error, match=pattern):
        load("balanced_topk_accuracy").compute(**arguments)
    streamed = load("balanced_topk_accuracy")
    streamed.add_batch(predictions=SCORES, references=[-100] * 4)
    with pytest.raises(error, match=pattern):
        streamed.compute(**{"ignore_index": -100, **option})
    assert streamed.compute(ignore_index=-100)["reason"] == "empty_after_ignore_index"  # nothing stored was lost


def test_load_time_options_are_defaults_and_compute_wins(load):
    metric = load("balanced_topk_accuracy", k=2, zero_division=0.0)
    assert metric.compute(predictions=SCORES, references=REFERENCES) == {"balanced_topk_accuracy": 1.0}
    assert metric.compute(predictions=SCORES, references=REFERENCES, k=1) == {"balanced_topk_accuracy": pytest.approx(2.5 / 3)}
    scores = [[0.7, 0.2, 0.1, 0.0], [0.1, 0.3, 0.6, 0.0], [0.2, 0.5, 0.3, 0.0]]
    assert metric.compute(predictions=scores, references=[0, 1, 1], k=1) == {"balanced_topk_accuracy": 1.5 / 4}  # zero_division=0.0
    # Streamed batches are ranked for the load-time k: any k up to it, not beyond.
    streamed = load("balanced_topk_accuracy", k_list=[1, 2])
    streamed.add_batch(predictions=SCORES, references=REFERENCES)
    assert streamed.compute()["balanced_topk_accuracy"] == {1: pytest.approx(2.5 / 3), 2: 1.0}
    streamed.add_batch(predictions=SCORES, references=REFERENCES)
    assert streamed.compute(k=1) == {"balanced_topk_accuracy": pytest.approx(2.5 / 3)}  # compute's k replaces load's k_list
    streamed.add_batch(predictions=SCORES, references=REFERENCES)
    with pytest.raises(ValueError, match=r"k: the batches were counted for k up to 2 .* found k=3"):
        streamed.compute(k=3)
    # At load time: a bad value or an unknown name raises, naming it.
    with pytest.raises(ValueError, match=r"k: expected a positive integer, found 0"):
        load("balanced_topk_accuracy", k=0)
    with pytest.raises(TypeError, match=r"top_k: expected an argument of balanced_topk_accuracy"):
        load("balanced_topk_accuracy", top_k=5)
    # A batch narrower than the load-time k is refused when added.
    with pytest.raises(ValueError, match=r"k: expected an integer in \[1, 3\] \(the number of score columns\), found 5"):
        load("balanced_topk_accuracy", k=5).add_batch(predictions=SCORES, references=REFERENCES)


def test_add_with_plural_names_and_combine_add(load):
    import evaluate

    metric = load("balanced_topk_accuracy")
    for row, reference in zip(SCORES, REFERENCES):
        metric.add(predictions=row, references=reference)
    assert metric.compute(k=1) == {"balanced_topk_accuracy": pytest.approx(2.5 / 3, abs=1e-15)}
    combined = evaluate.combine([load("balanced_topk_accuracy", k=2), load("balanced_topk_accuracy", k=1)], force_prefix=True)
    for row, reference in zip(SCORES, REFERENCES):
        combined.add(prediction=row, reference=reference)
    results = combined.compute()
    assert list(results.values()) == [1.0, pytest.approx(2.5 / 3, abs=1e-15)]
