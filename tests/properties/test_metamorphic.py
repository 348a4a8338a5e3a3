"""Metamorphic laws on generated data (issue 9): the properties the balanced-accuracy and
informedness papers argue from, checked for every module where they apply.

* label symmetry: renaming or permuting the classes (swapping the positive class of a
  binary task) leaves the value unchanged and permutes the per-class outputs;
* prevalence independence: repeating every sample of one class m times, or weighting it
  by m, leaves balanced accuracy (and binary informedness) unchanged while accuracy
  changes;
* chance level: predictions drawn independently of the references give balanced
  accuracy 1/K (top-k: k/K, multilabel: 1/2) and informedness 0, within a few standard
  errors that shrink as N grows;
* order and batching: shuffling the samples, or splitting them into any sequence of
  ``add_batch``/``add`` calls, gives the one-call result to 1e-12;
* integer sample weights equal repeated rows;
* perfect and inverted predictors reach the ends of the range (informedness -1 only
  where it is so defined: binary; a balanced cyclic derangement of K classes gives
  -1/(K-1), the adjusted balanced accuracy's lower end).

Values are compared to 1e-12; expected values are never copied from our own output.
"""

import math
import tempfile

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conftest import MODULE_NAMES, load_module, module_tests
from shared.tooling.modules import LABEL_MODULES
from shared.tooling.modules import MODULES
from robustness import scaled

TOLERANCE = 1e-12
_METRICS = {}


def metric(name, **kwargs):
    key = (name, tuple(sorted(kwargs.items())))
    if key not in _METRICS:
        _METRICS[key] = load_module(name, **kwargs)
    return _METRICS[key]


def close(a, b):
    """Equal results: same keys, numbers to 1e-12 (NaN equals NaN), recursively."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= TOLERANCE
    return a == b


# ----------------------------------------------------------------------------------------
# Generated data
# ----------------------------------------------------------------------------------------


CASES_NUM_CLASSES = 5  # labelled()'s largest number of classes


@st.composite
def labelled(draw, min_classes=2, max_classes=CASES_NUM_CLASSES, max_n=60, min_n=1):
    """(K, references, predictions): integer labels 0..K-1, predictions correct more often than not."""
    num_classes = draw(st.integers(min_classes, max_classes))
    n = draw(st.integers(min_n, max_n))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    references = rng.integers(0, num_classes, n)
    skill = draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]))
    predictions = np.where(rng.random(n) < skill, references, rng.integers(0, num_classes, n))
    return num_classes, references, predictions


@st.composite
def multilabel_data(draw, max_n=40):
    """(references (N, L) 0/1, scores (N, L) in [0, 1])."""
    n = draw(st.integers(1, max_n))
    num_labels = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    references = (rng.random((n, num_labels)) < rng.uniform(0.1, 0.9, num_labels)).astype(np.int64)
    scores = np.clip(references * draw(st.sampled_from([0.0, 0.3, 0.6])) + rng.random((n, num_labels)) * 0.7, 0, 1)
    return references, np.round(scores, 3)  # rounding makes ties


@st.composite
def topk_data(draw, max_n=40):
    """(K, references, scores (N, K)) with ties among the scores."""
    num_classes = draw(st.integers(2, 6))
    n = draw(st.integers(1, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    references = rng.integers(0, num_classes, n)
    scores = rng.integers(0, 4, (n, num_classes)).astype(np.float64)  # small integers: many ties
    scores[np.arange(n), references] += draw(st.sampled_from([0.0, 1.0, 2.0]))
    return num_classes, references, scores


# ----------------------------------------------------------------------------------------
# Label symmetry
# ----------------------------------------------------------------------------------------


@settings(max_examples=scaled(100))
@given(labelled(), st.randoms(use_true_random=False), st.booleans())
def test_balanced_accuracy_and_informedness_are_symmetric_in_the_classes(data, random, as_strings):
    num_classes, references, predictions = data
    permutation = list(range(num_classes))
    random.shuffle(permutation)
    rename = (lambda x: np.array([f"class {permutation[v]}" for v in x])) if as_strings else (lambda x: np.array(permutation)[x])
    new_name = (lambda c: f"class {permutation[c]}") if as_strings else (lambda c: permutation[c])
    for name, per_class_keys, options in (
        ("balanced_accuracy", ("per_class_recall", "support_per_class"), dict(task="multiclass")),
        ("informedness", ("per_class_informedness", "per_class_markedness", "support_per_class", "predicted_per_class"),
         dict(return_markedness=True)),
    ):
        # `labels` names every class (0/1 integers would otherwise always be two classes).
        before = metric(name).compute(predictions=predictions, references=references, return_per_class=True,
                                      labels=list(range(num_classes)), **options)
        after = metric(name).compute(predictions=rename(predictions), references=rename(references), return_per_class=True,
                                     labels=[new_name(c) for c in range(num_classes)], **options)
        for key in before:
            if key in per_class_keys:
                # Per-class outputs follow their class to its new name (and position).
                old = dict(zip(before["classes"], before[key]))
                new = dict(zip(after["classes"], after[key]))
                assert all(close(old[c], new[new_name(c)]) for c in old), key
            elif key != "classes":
                assert close(before[key], after[key]), key


@settings(max_examples=scaled(100))
@given(labelled(min_classes=2, max_classes=2), st.sampled_from([None, "auto"]))
def test_swapping_the_positive_class_of_a_binary_task(data, threshold):
    _, references, predictions = data
    ba = metric("balanced_accuracy")
    if threshold is None:
        one = ba.compute(predictions=predictions, references=references, pos_label=1)
        zero = ba.compute(predictions=predictions, references=references, pos_label=0)
        swapped = ba.compute(predictions=1 - predictions, references=1 - references)
        assert close(one, zero) and close(one, swapped)
        j = metric("informedness").compute(predictions=predictions, references=references)
        assert close(j, metric("informedness").compute(predictions=1 - predictions, references=1 - references))
    else:
        # Scores of class 1 rank samples as their negation ranks them for class 0: the same cuts.
        scores = predictions + np.random.default_rng(len(references)).random(len(references))
        one = ba.compute(predictions=scores, references=references, threshold="auto", pos_label=1)
        zero = ba.compute(predictions=-scores, references=references, threshold="auto", pos_label=0)
        assert close(one["balanced_accuracy"], zero["balanced_accuracy"])


@settings(max_examples=scaled(100))
@given(multilabel_data(), st.randoms(use_true_random=False))
def test_multilabel_is_symmetric_in_the_labels_and_in_zero_and_one(data, random):
    references, scores = data
    ml = metric("balanced_accuracy_multilabel")
    predictions = (scores >= 0.5).astype(np.int64)
    permutation = list(range(references.shape[1]))
    random.shuffle(permutation)
    for average in ("macro", "weighted", "micro"):
        before = ml.compute(predictions=predictions, references=references, average=average, return_per_label=True)
        after = ml.compute(predictions=predictions[:, permutation], references=references[:, permutation], average=average,
                           return_per_label=True)
        assert close(before["balanced_accuracy"], after["balanced_accuracy"])
        assert close([before["per_label_ba"][i] for i in permutation], after["per_label_ba"])
    # Complementing a label (0 <-> 1 in references and predictions) swaps its TPR and TNR.
    for average in ("macro", "micro"):
        before = ml.compute(predictions=predictions, references=references, average=average, return_per_label=True)
        after = ml.compute(predictions=1 - predictions, references=1 - references, average=average, return_per_label=True)
        assert close(before["balanced_accuracy"], after["balanced_accuracy"]) and close(before["per_label_ba"], after["per_label_ba"])


@settings(max_examples=scaled(100))
@given(topk_data(), st.randoms(use_true_random=False), st.integers(1, 6))
def test_topk_is_symmetric_in_the_score_columns(data, random, k):
    num_classes, references, scores = data
    k = min(k, num_classes)
    permutation = list(range(num_classes))  # new column j holds old class permutation[j]
    random.shuffle(permutation)
    new_index = np.argsort(permutation)
    topk = metric("balanced_topk_accuracy")
    before = topk.compute(predictions=scores, references=references, k=k, return_per_class=True)
    after = topk.compute(predictions=scores[:, permutation], references=new_index[references], k=k, return_per_class=True)
    assert close(before["balanced_topk_accuracy"], after["balanced_topk_accuracy"])
    assert close(before["per_class_recall"], [after["per_class_recall"][new_index[c]] for c in range(num_classes)])
    # Names instead of indices: the same value.
    names = [f"option {c}" for c in range(num_classes)]
    named = topk.compute(predictions=scores, references=[names[r] for r in references], labels=names, k=k)
    assert close(named["balanced_topk_accuracy"], before["balanced_topk_accuracy"])


# ----------------------------------------------------------------------------------------
# Prevalence independence
# ----------------------------------------------------------------------------------------


def _repeat_class(arrays, references, chosen, m):
    """Every sample whose reference is ``chosen`` repeated m times (the others once)."""
    repeats = np.where(references == chosen, m, 1)
    return [np.repeat(a, repeats, axis=0) for a in arrays]


@settings(max_examples=scaled(100))
@given(labelled(min_n=4), st.integers(2, 9), st.data())
def test_repeating_or_weighting_one_class_leaves_balanced_accuracy_unchanged(data, m, draw):
    num_classes, references, predictions = data
    chosen = draw.draw(st.sampled_from(sorted(set(references.tolist()))))
    ba = metric("balanced_accuracy")
    base = ba.compute(predictions=predictions, references=references, num_classes=num_classes, task="multiclass")
    repeated_predictions, repeated_references = _repeat_class([predictions, references], references, chosen, m)
    repeated = ba.compute(predictions=repeated_predictions, references=repeated_references, num_classes=num_classes, task="multiclass")
    weighted = ba.compute(predictions=predictions, references=references, num_classes=num_classes, task="multiclass",
                          sample_weight=np.where(references == chosen, float(m), 1.0))
    assert close(base, repeated) and close(base, weighted)
    # ... while accuracy moves towards the repeated class's recall (unless they coincide).
    recall = np.mean(predictions[references == chosen] == chosen)
    accuracy = np.mean(predictions == references)
    if not math.isclose(recall, accuracy):
        assert not math.isclose(np.mean(repeated_predictions == repeated_references), accuracy)


@settings(max_examples=scaled(100))
@given(labelled(min_classes=2, max_classes=2, min_n=4), st.integers(2, 9), st.sampled_from([0, 1]))
def test_repeating_or_weighting_one_class_leaves_binary_informedness_unchanged(data, m, chosen):
    _, references, predictions = data
    assume(chosen in references)
    j = metric("informedness")
    for average in ("bookmaker", "macro", "weighted"):
        base = j.compute(predictions=predictions, references=references, average=average)
        repeated_predictions, repeated_references = _repeat_class([predictions, references], references, chosen, m)
        repeated = j.compute(predictions=repeated_predictions, references=repeated_references, average=average)
        weighted = j.compute(predictions=predictions, references=references, average=average,
                             sample_weight=np.where(references == chosen, m, 1))
        assert close(base, repeated) and close(base, weighted)


@settings(max_examples=scaled(100))
@given(topk_data(), st.integers(2, 9), st.integers(1, 3), st.data())
def test_repeating_one_class_leaves_balanced_topk_unchanged(data, m, k, draw):
    num_classes, references, scores = data
    k = min(k, num_classes)
    chosen = draw.draw(st.sampled_from(sorted(set(references.tolist()))))
    topk = metric("balanced_topk_accuracy")
    base = topk.compute(predictions=scores, references=references, k=k)
    repeated_scores, repeated_references = _repeat_class([scores, references], references, chosen, m)
    assert close(base, topk.compute(predictions=repeated_scores, references=repeated_references, k=k))
    assert close(base, topk.compute(predictions=scores, references=references, k=k, sample_weight=np.where(references == chosen, m, 1)))


@settings(max_examples=scaled(100))
@given(multilabel_data(), st.integers(2, 9), st.data())
def test_repeating_the_positives_of_a_label_leaves_its_balanced_accuracy_unchanged(data, m, draw):
    references, scores = data
    label = draw.draw(st.integers(0, references.shape[1] - 1))
    ml = metric("balanced_accuracy_multilabel")
    base = ml.compute(predictions=scores, references=references, from_probas=True, return_per_label=True)
    repeats = np.where(references[:, label] == 1, m, 1)
    repeated = ml.compute(predictions=np.repeat(scores, repeats, axis=0), references=np.repeat(references, repeats, axis=0),
                          from_probas=True, return_per_label=True)
    weighted = ml.compute(predictions=scores, references=references, from_probas=True, return_per_label=True, sample_weight=repeats)
    assert close(base["per_label_ba"][label], repeated["per_label_ba"][label])
    assert close(base["per_label_ba"][label], weighted["per_label_ba"][label])


# ----------------------------------------------------------------------------------------
# Chance level
# ----------------------------------------------------------------------------------------


def _priors(draw, size):
    weights = np.array([draw.draw(st.floats(0.2, 1.0)) for _ in range(size)])
    return weights / weights.sum()


@settings(max_examples=scaled(10))
@given(st.integers(2, 6), st.integers(0, 2**32 - 1), st.data())
def test_independent_predictions_score_chance(num_classes, seed, draw):
    """BA -> 1/K and informedness -> 0: within 6 standard errors, at N = 2,000 and 200,000."""
    reference_prior, prediction_prior = _priors(draw, num_classes), _priors(draw, num_classes)
    rng = np.random.default_rng(seed)
    for n in (2_000, 200_000):
        references = rng.choice(num_classes, n, p=reference_prior)
        predictions = rng.choice(num_classes, n, p=prediction_prior)  # independent of the references
        support = np.bincount(references, minlength=num_classes)
        assume(support.min() > 0)
        q = prediction_prior
        ba_error = math.sqrt(np.sum(q * (1 - q) / support)) / num_classes
        ba = metric("balanced_accuracy").compute(predictions=predictions, references=references, task="multiclass")
        assert abs(ba["balanced_accuracy"] - 1 / num_classes) <= 6 * ba_error + 1e-12
        j_error = np.max(np.sqrt(q * (1 - q) * (1 / support + 1 / (n - support))))
        for average in ("bookmaker", "macro", "weighted"):
            j = metric("informedness").compute(predictions=predictions, references=references, average=average)
            assert abs(j["informedness"]) <= 6 * j_error, (n, average)


@settings(max_examples=scaled(10))
@given(st.integers(2, 8), st.integers(0, 2**32 - 1), st.data())
def test_scores_independent_of_the_references_score_k_over_k(num_classes, seed, draw):
    reference_prior = _priors(draw, num_classes)
    rng = np.random.default_rng(seed)
    k_list = sorted({1, max(1, num_classes // 2), num_classes})
    for n in (2_000, 100_000):
        references = rng.choice(num_classes, n, p=reference_prior)
        scores = rng.random((n, num_classes))
        support = np.bincount(references, minlength=num_classes)
        assume(support.min() > 0)
        result = metric("balanced_topk_accuracy").compute(predictions=scores, references=references, k_list=k_list)
        for k in k_list:
            p = k / num_classes
            error = math.sqrt(np.sum(p * (1 - p) / support)) / num_classes
            assert abs(result["balanced_topk_accuracy"][k] - p) <= 6 * error + 1e-12


@settings(max_examples=scaled(10))
@given(st.integers(1, 5), st.integers(0, 2**32 - 1), st.data())
def test_independent_multilabel_predictions_score_one_half(num_labels, seed, draw):
    rng = np.random.default_rng(seed)
    positive_rates = np.array([draw.draw(st.floats(0.1, 0.9)) for _ in range(num_labels)])
    predicted_rates = np.array([draw.draw(st.floats(0.1, 0.9)) for _ in range(num_labels)])
    for n in (2_000, 100_000):
        references = (rng.random((n, num_labels)) < positive_rates).astype(np.int8)
        predictions = (rng.random((n, num_labels)) < predicted_rates).astype(np.int8)
        positives = references.sum(axis=0)
        assume(positives.min() > 0 and (n - positives).min() > 0)
        q = predicted_rates
        error = np.sqrt(q * (1 - q) * (1 / positives + 1 / (n - positives))) / 2
        result = metric("balanced_accuracy_multilabel").compute(predictions=predictions, references=references, return_per_label=True)
        assert np.all(np.abs(np.array(result["per_label_ba"]) - 0.5) <= 6 * error)


# ----------------------------------------------------------------------------------------
# Order and batching
# ----------------------------------------------------------------------------------------

_CACHE = tempfile.mkdtemp(prefix="metamorphic-")


def _batched(name, batches, keep_in_memory, single_rows=False, **options):
    """compute after adding ``batches`` of (predictions, references, weights or None):
    weights travel with their batch, as the modules store counts, not samples."""
    module = load_module(name, keep_in_memory=keep_in_memory, cache_dir=_CACHE)
    options.pop("sample_weight", None)
    for predictions, references, weights in batches:
        per_sample = {} if weights is None else {"sample_weight": weights}
        if single_rows and len(references) == 1:
            module.add(prediction=predictions[0], reference=references[0], **{k: v[0] for k, v in per_sample.items()})
        else:
            module.add_batch(predictions=predictions, references=references, **per_sample)
    return module.compute(**options)


@st.composite
def splits(draw, n):
    """Batch boundaries: any sorted cut points (empty batches included)."""
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=4)))
    bounds = [0] + cuts + [n]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:])]


# Per kind of input (the registry's ``inputs``): generated data as (predictions, references).
KIND_DATA = {
    "labels": labelled(max_n=40).map(lambda data: (data[2], data[1])),
    "indicators": multilabel_data().map(lambda data: (data[1], data[0])),
    "scores": topk_data().map(lambda data: (data[2], data[1])),
}
# Per module: its kind's data and the options every law is checked with (its test file's
# LAW_OPTIONS: every output of its own on; none given, its defaults).
CASES = {entry.name: (KIND_DATA[entry.inputs], getattr(module_tests(entry.name), "LAW_OPTIONS", {}))
         for entry in MODULES if entry.name in MODULE_NAMES}


def _draw_case(name, draw):
    """(predictions, references, options) for ``name``."""
    strategy, options = CASES[name]
    predictions, references = draw.draw(strategy)
    return predictions, references, options


@pytest.mark.parametrize("name", list(CASES))
@settings(max_examples=scaled(25))
@given(draw=st.data())
def test_any_split_into_batches_and_any_order_give_the_one_call_result(name, draw):
    predictions, references, options = _draw_case(name, draw)
    n = len(references)
    weights = np.array(draw.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=np.float64) if draw.draw(st.booleans()) else None
    if weights is not None:
        assume(weights.sum() > 0)
        options = dict(options, sample_weight=weights)
    one_call = metric(name).compute(predictions=predictions, references=references, **options)
    # Shuffled samples (weights follow their samples).
    order = np.random.default_rng(draw.draw(st.integers(0, 2**32 - 1))).permutation(n)
    shuffled_options = options if weights is None else dict(options, sample_weight=weights[order])
    shuffled = metric(name).compute(predictions=predictions[order], references=references[order], **shuffled_options)
    assert close(one_call, shuffled)
    # Any split into add_batch calls (single rows through add), in memory or in a cache file.
    batches = [(predictions[a:b], references[a:b], None if weights is None else weights[a:b]) for a, b in draw.draw(splits(n))]
    keep_in_memory = draw.draw(st.booleans())
    assert close(one_call, _batched(name, batches, keep_in_memory, single_rows=draw.draw(st.booleans()), **options))


# ----------------------------------------------------------------------------------------
# Integer weights = repeated rows
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(CASES))
@settings(max_examples=scaled(50))
@given(draw=st.data())
def test_integer_weights_equal_repeated_rows(name, draw):
    predictions, references, options = _draw_case(name, draw)
    n = len(references)
    weights = np.array(draw.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    assume(weights.sum() > 0)
    if name in LABEL_MODULES:
        # The classes are the values seen: a weight-0 row still shows its class, a removed row does not.
        options = dict(options, num_classes=CASES_NUM_CLASSES)
    weighted = metric(name).compute(predictions=predictions, references=references, sample_weight=weights, **options)
    repeated = metric(name).compute(predictions=np.repeat(predictions, weights, axis=0), references=np.repeat(references, weights, axis=0),
                                    **options)
    # Weight-0 rows are left out of the threshold search too: the thresholds agree as well.
    assert close(weighted, repeated)


# ----------------------------------------------------------------------------------------
# Range limits: perfect and inverted predictors
# ----------------------------------------------------------------------------------------


@settings(max_examples=scaled(50))
@given(labelled(min_n=2))
def test_perfect_and_inverted_predictors_reach_the_ends_of_the_range(data):
    num_classes, references, _ = data
    present = np.unique(references)
    assume(len(present) >= 2)
    ba, j = metric("balanced_accuracy"), metric("informedness")
    assert ba.compute(predictions=references, references=references)["balanced_accuracy"] == 1.0
    assert ba.compute(predictions=references, references=references, adjusted=True)["balanced_accuracy"] == 1.0
    for average in ("bookmaker", "macro", "weighted"):
        assert j.compute(predictions=references, references=references, average=average)["informedness"] == 1.0
    # Every prediction wrong (the next class present): balanced accuracy 0, adjusted -1/(K-1).
    wrong = present[(np.searchsorted(present, references) + 1) % len(present)]
    assert ba.compute(predictions=wrong, references=references)["balanced_accuracy"] == 0.0
    adjusted = ba.compute(predictions=wrong, references=references, adjusted=True)["balanced_accuracy"]
    assert adjusted == pytest.approx(-1 / (len(present) - 1), abs=TOLERANCE)
    if len(present) == 2:
        # Binary: the inverted predictor has informedness -1 (Youden's J = TPR + TNR - 1).
        for average in ("bookmaker", "macro", "weighted"):
            assert j.compute(predictions=wrong, references=references, average=average)["informedness"] == pytest.approx(-1.0, abs=TOLERANCE)


@settings(max_examples=scaled(25))
@given(st.integers(3, 7), st.integers(1, 5))
def test_a_balanced_cyclic_derangement_has_informedness_minus_one_over_k_minus_one(num_classes, per_class):
    """For K > 2 informedness cannot reach -1: the most wrong balanced predictor gives -1/(K-1)."""
    references = np.repeat(np.arange(num_classes), per_class)
    predictions = (references + 1) % num_classes
    for average in ("bookmaker", "macro", "weighted"):
        value = metric("informedness").compute(predictions=predictions, references=references, average=average)["informedness"]
        assert value == pytest.approx(-1 / (num_classes - 1), abs=TOLERANCE)


@settings(max_examples=scaled(50))
@given(multilabel_data())
def test_perfect_and_inverted_multilabel_predictors(data):
    references, _ = data
    ml = metric("balanced_accuracy_multilabel")
    # ("weighted" weighs labels by their positives: NaN when there are none.)
    for average in ("macro", "micro") + (("weighted",) if references.any() else ()):
        assert ml.compute(predictions=references, references=references, average=average)["balanced_accuracy"] == 1.0
    inverted = ml.compute(predictions=1 - references, references=references, return_per_label=True)
    assert inverted["balanced_accuracy"] == 0.0 and set(inverted["per_label_ba"]) == {0.0}


@settings(max_examples=scaled(50))
@given(topk_data())
def test_true_class_scored_highest_or_lowest(data):
    num_classes, references, _ = data
    rows = np.arange(len(references))
    best = np.zeros((len(references), num_classes))
    best[rows, references] = 1.0
    worst = 1.0 - best
    topk = metric("balanced_topk_accuracy")
    k_list = list(range(1, num_classes + 1))
    assert set(topk.compute(predictions=best, references=references, k_list=k_list)["balanced_topk_accuracy"].values()) == {1.0}
    lowest = topk.compute(predictions=worst, references=references, k_list=k_list)["balanced_topk_accuracy"]
    # Scored strictly lowest, the true class is in the top k only for k = K.
    assert {k: v for k, v in lowest.items()} == {k: (1.0 if k == num_classes else 0.0) for k in k_list}
