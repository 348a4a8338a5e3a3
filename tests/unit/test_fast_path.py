"""The fast ingestion path: everything evaluate users rely on, through whole-column storage
(across real processes: tests/integration/test_distributed.py).

Stored results are compared with the one-call result on the same data (which each
module's own tests check against scikit-learn / torchmetrics / pycm) and, for
balanced_accuracy, with scikit-learn directly.
"""


import evaluate
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import torch
from sklearn.metrics import balanced_accuracy_score

from conftest import MODULE_NAMES
from fast_path_data import CASES, COMPUTE_OPTIONS, MODULES, arrow_files, concatenated, counts_module, make_data, same
from shared.counting import confusion
from shared.counting import inputs
from shared.counting import labels
from shared.counting import store
from shared.counting import thresholds

def test_every_module_folder_has_a_case():
    assert set(MODULE_NAMES) <= set(CASES), "add a data case for the new module to CASES"


# ---------------------------------------------------------------- add_batch / add / compute


@pytest.mark.parametrize("keep_in_memory", [False, True], ids=["on-disk", "keep_in_memory"])
@pytest.mark.parametrize("name", MODULES)
def test_add_batch_add_and_one_call_agree(load, name, keep_in_memory, tmp_path):
    parts = make_data(name)
    predictions, references = concatenated(parts)
    options = COMPUTE_OPTIONS[name]
    direct = load(name).compute(predictions=predictions, references=references, **options)

    metric = load(name, keep_in_memory=keep_in_memory, cache_dir=str(tmp_path / "store"))
    for batch_predictions, batch_references in parts[:2]:
        metric.add_batch(predictions=batch_predictions, references=batch_references)
    for prediction, reference in zip(*parts[2]):
        metric.add(prediction=prediction, reference=reference)
    assert len(metric) == len(references)
    if keep_in_memory or counts_module(metric):
        assert arrow_files(tmp_path / "store") == []  # counts are held in memory: one process writes no file
    else:
        assert len(arrow_files(tmp_path / "store")) == 1  # evaluate's cache file, in cache_dir
    assert same(metric.compute(**options), direct)
    assert arrow_files(tmp_path / "store") == []  # cleaned up by compute

    # The same instance is empty again and can be reused; the last batch may come with compute.
    metric.add_batch(predictions=parts[0][0], references=parts[0][1])
    metric.add_batch(predictions=parts[1][0], references=parts[1][1])
    assert same(metric.compute(predictions=parts[2][0], references=parts[2][1], **options), direct)


@pytest.mark.parametrize("keep_in_memory", [False, True], ids=["on-disk", "keep_in_memory"])
@pytest.mark.parametrize("name", MODULES)
def test_a_batch_changed_after_add_batch_is_stored_as_it_was(load, name, keep_in_memory, tmp_path):
    """Small batches are gathered in memory before they are written: the store must hold
    copies, not the caller's arrays, which loops often refill in place (variant 0 already
    has the storage types, where a copy could be skipped)."""
    parts = make_data(name, variants=(0, 0), n=200)
    options = COMPUTE_OPTIONS[name]
    all_predictions, all_references = concatenated(parts)
    direct = load(name).compute(predictions=all_predictions, references=all_references, **options)
    metric = load(name, keep_in_memory=keep_in_memory, cache_dir=str(tmp_path / "store"))
    predictions, references = (array.copy() for array in parts[0])
    metric.add_batch(predictions=predictions, references=references)
    predictions[...], references[...] = parts[1]  # the caller's buffer, refilled with the next batch
    metric.add_batch(predictions=predictions, references=references)
    predictions[...], references[...] = 0, 0  # and overwritten again before compute
    assert same(metric.compute(**options), direct)


@pytest.mark.parametrize("keep_in_memory", [False, True], ids=["on-disk", "keep_in_memory"])
def test_weights_travel_with_their_batches(load, keep_in_memory, tmp_path):
    """sample_weight given to add_batch stays with its batch (the auto threshold depends on
    every row's weight); given alone to compute after streaming it cannot be aligned with
    the stored counts and is refused, naming it."""
    rng = np.random.default_rng(11)
    sizes = [1000, 40_000, 3000, 2000]
    references = (rng.random(sum(sizes)) < 0.3).astype(np.int64)
    scores = np.clip(references * 0.3 + rng.random(sum(sizes)), 0, None)
    weights = rng.integers(1, 5, sum(sizes)).astype(np.float64)
    options = dict(threshold="auto", return_per_class=True)
    direct = load("balanced_accuracy").compute(predictions=scores, references=references, sample_weight=weights, **options)
    metric = load("balanced_accuracy", keep_in_memory=keep_in_memory, cache_dir=str(tmp_path / "store"))
    for start, stop in zip(np.cumsum([0] + sizes[:-1]), np.cumsum(sizes)):
        metric.add_batch(predictions=scores[start:stop], references=references[start:stop], sample_weight=weights[start:stop])
    with pytest.raises(ValueError, match=r"^sample_weight: pass it with its batch to add_batch"):
        metric.compute(sample_weight=weights, **options)
    assert same(metric.compute(**options), direct)  # the refused compute lost nothing
    options = dict(options, sample_weight=weights)
    # Reversed weights would give another result: the check above can tell the order.
    reversed_weights = dict(options, sample_weight=weights[::-1].copy())
    assert not same(load("balanced_accuracy").compute(predictions=scores, references=references, **reversed_weights), direct)


def test_stored_result_matches_sklearn(load):
    rng = np.random.default_rng(3)
    references = rng.integers(0, 7, 5000)
    predictions = np.where(rng.random(5000) < 0.6, references, rng.integers(0, 7, 5000))
    for keep_in_memory in (False, True):
        metric = load("balanced_accuracy", keep_in_memory=keep_in_memory)
        for start in range(0, 5000, 700):
            metric.add_batch(predictions=torch.from_numpy(predictions[start : start + 700]), references=references[start : start + 700].tolist())
        assert metric.compute()["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(references, predictions), abs=1e-12)


def test_one_call_compute_writes_no_cache_file(load, tmp_path):
    metric = load("balanced_accuracy", cache_dir=str(tmp_path))
    assert metric.compute(predictions=[0, 1, 1], references=[0, 1, 0]) == {"balanced_accuracy": 0.75}
    assert arrow_files(tmp_path) == []


def test_compute_with_nothing_stored_says_so(load):
    with pytest.raises(ValueError, match="compute: nothing to compute on; call `add` or `add_batch` first"):
        load("balanced_accuracy").compute()


def test_an_error_in_compute_options_loses_nothing_and_writes_nothing(load, tmp_path):
    """Options are checked before anything stored is read: a bad one raises, and the
    batches stay for the corrected call."""
    metric = load("balanced_accuracy", cache_dir=str(tmp_path))
    metric.add_batch(predictions=[0, 1], references=[0, 1])
    with pytest.raises(ValueError, match="zero_division"):
        metric.compute(zero_division="warn")
    assert arrow_files(tmp_path) == []
    metric.add_batch(predictions=[0, 1], references=[1, 1])
    expected = balanced_accuracy_score([0, 1, 1, 1], [0, 1, 0, 1])
    assert metric.compute() == {"balanced_accuracy": pytest.approx(expected, abs=1e-15)}


# ---------------------------------------------------------------- rejected batches


def _bad_batches(name, good_predictions, good_references):
    """Batches each module must reject at add_batch, with the error they raise."""
    n = len(good_references)
    wrong_length = (good_predictions[: n - 1], good_references, ValueError)
    non_finite = np.array(good_predictions, dtype=np.float64)
    non_finite.flat[0] = np.nan
    strings = (good_predictions, np.full(np.shape(good_references), "a"), TypeError)  # strings after numbers
    return [wrong_length, (non_finite, good_references, ValueError), strings]


@pytest.mark.parametrize("keep_in_memory", [False, True], ids=["on-disk", "keep_in_memory"])
@pytest.mark.parametrize("name", MODULES)
def test_rejected_batch_leaves_earlier_batches_intact(load, name, keep_in_memory):
    parts = make_data(name, variants=(0, 2, 1), seed=4)
    options = COMPUTE_OPTIONS[name]
    direct = load(name).compute(predictions=concatenated(parts)[0], references=concatenated(parts)[1], **options)
    metric = load(name, keep_in_memory=keep_in_memory)
    metric.add_batch(predictions=parts[0][0], references=parts[0][1])
    for predictions, references, error in _bad_batches(name, *parts[1]):
        with pytest.raises(error, match="predictions|references"):
            metric.add_batch(predictions=predictions, references=references)
        assert len(metric) == len(parts[0][1])
    metric.add_batch(predictions=parts[1][0], references=parts[1][1])  # widens the storage type
    with pytest.raises((ValueError, TypeError)):
        metric.compute(predictions=parts[2][0][:-1], references=parts[2][1], **options)  # rejected before anything
    assert same(metric.compute(predictions=parts[2][0], references=parts[2][1], **options), direct)


def test_scores_after_integer_labels_need_a_threshold_at_compute(load):
    """A threshold may be given at compute, so add_batch keeps scores; without one, compute
    names the non-integer predictions and gives the hint (and keeps what was stored)."""
    metric = load("balanced_accuracy")
    metric.add_batch(predictions=[0, 1], references=[0, 1])
    metric.add_batch(predictions=[0.3, 0.9], references=[0, 1])
    with pytest.raises(ValueError, match=r"predictions: expected class labels .* found non-integer values such as 0.3\. For scores"):
        metric.compute()
    assert metric.compute(threshold=0.5) == {"balanced_accuracy": 1.0}
    metric.add_batch(predictions=[1.0, 0.0], references=[1, 0])  # integral floats are labels
    assert metric.compute() == {"balanced_accuracy": 1.0}


# ---------------------------------------------------------------- storage types


def captured_counts(metric, **options):
    """compute(), capturing the counts the reduction receives: {table name: JointCounts}."""
    seen = {}
    counts = metric._counts

    def spy(stored, options):
        seen.update({name: table.result() for name, table in stored.tables.items()})
        seen["raw"] = stored.raw_columns() or {}  # scores a compute-time threshold needs are kept as they are
        return counts(stored, options)

    metric._counts = spy
    result = metric.compute(**options)
    return seen, result


def per_sample(counted, key):
    """The key's value of every sample the counts stand for (in sorted order)."""
    return sorted(np.repeat(counted.keys[key], counted.n).tolist(), key=str)


@pytest.mark.parametrize("name", MODULES)
def test_stored_counts_are_distinct_tuples_never_python_objects(load, name):
    """add_batch keeps counts of distinct tuples: fewer rows than samples, no object arrays."""
    parts = make_data(name, variants=(0,))
    metric = load(name)
    metric.add_batch(predictions=parts[0][0], references=parts[0][1])
    seen, _ = captured_counts(metric, **COMPUTE_OPTIONS[name])
    for column in seen.pop("raw").values():
        assert column is None or column.dtype != object
    for counted in seen.values():
        assert counted.n.sum() >= len(parts[0][1])  # every sample (multilabel: every sample and label)
        assert counted.n.size < counted.n.sum()
        for values in counted.keys.values():
            assert values.dtype != object


@pytest.mark.parametrize(
    "batches",
    [
        [[0, 3, 9]],
        [np.array([0, 3, 255], dtype=np.uint8)],
        [[-100, 3, 9]],
        [[0, 1], [-100, 1]],
        [np.array([0, 255], dtype=np.uint8), [-1, 0]],
        [[0, 1], [70_000, 1], [2, 3]],
        [[0, 1], [2**40, 1]],
        [[True, False]],
        [["safe", "unsafe"]],
    ],
)
@pytest.mark.parametrize("keep_in_memory", [False, True], ids=["on-disk", "keep_in_memory"])
def test_counted_values_come_back_as_given_whatever_their_range(load, batches, keep_in_memory):
    metric = load("balanced_accuracy", keep_in_memory=keep_in_memory)
    for batch in batches:
        metric.add_batch(predictions=batch, references=batch)
    seen, result = captured_counts(metric, return_per_class=True)
    values = [value for batch in batches for value in (batch.tolist() if isinstance(batch, np.ndarray) else batch)]
    assert per_sample(seen["pairs"], "references") == sorted((v if isinstance(v, str) else int(v) for v in values), key=str)
    assert seen["pairs"].keys["references"].dtype != object
    assert result["balanced_accuracy"] == 1.0


def test_float32_scores_then_float64_scores_give_the_one_call_result(load):
    rng = np.random.default_rng(5)
    references = (rng.random(400) < 0.3).astype(np.int64)
    scores = np.clip(references * 0.3 + rng.random(400) * 0.7, 0, 1)
    metric = load("balanced_accuracy")
    metric.add_batch(predictions=scores[:200].astype(np.float32), references=references[:200])
    metric.add_batch(predictions=scores[200:], references=references[200:])
    both = np.concatenate([scores[:200].astype(np.float32), scores[200:]])
    direct = load("balanced_accuracy").compute(predictions=both, references=references, threshold="auto")
    assert metric.compute(threshold="auto") == direct


def test_string_labels_come_back_without_python_objects(load):
    metric = load("balanced_accuracy", keep_in_memory=True)
    metric.add_batch(predictions=np.array(["safe", "unsafe", "safe"]), references=["safe", "unsafe", "unsafe"])
    metric.add(prediction="unsafe", reference="unsafe")
    seen, result = captured_counts(metric)
    assert seen["pairs"].keys["references"].dtype.kind == "U" and seen["pairs"].keys["predictions"].dtype.kind == "U"
    assert result["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(["safe", "unsafe", "unsafe", "unsafe"], ["safe", "unsafe", "safe", "unsafe"]))


def test_empty_first_batch_does_not_fix_the_type(load):
    metric = load("balanced_accuracy")
    metric.add_batch(predictions=[], references=[])
    metric.add_batch(predictions=["a", "b"], references=["a", "a"])
    assert metric.compute() == {"balanced_accuracy": 0.5}


def test_raw_columns_are_kept_in_the_narrowest_integer_type():
    """Raw columns (scores a compute-time threshold still needs) are copies in the narrowest type."""
    assert store.narrowest(np.array([-128, 127])).dtype == np.int8
    assert store.narrowest(np.array([-129, 0])).dtype == np.int16
    assert store.narrowest(np.array([0, 2**16 - 1])).dtype == np.uint16
    assert store.narrowest(np.array([0, 2**64 - 1], dtype=np.uint64)).dtype == np.uint64


def test_labels_beyond_64_bits_are_refused_not_wrapped():
    """Labels are counted as int64: 2^64 - 1 must not become -1 (another label)."""
    with pytest.raises(ValueError, match=r"references: expected integers that fit in 64 bits"):
        confusion.count_labels([-1, 3], [-1, 2**64 - 1])
    with pytest.raises(ValueError, match=r"predictions: expected integers that fit in 64 bits \(signed\), found 18446744073709551615"):
        confusion.count_labels(np.array([2**64 - 1, 3], dtype=np.uint64), np.array([-1, 3]))


# ---------------------------------------------------------------- evaluate.combine


def test_evaluate_combine(load):
    flat = [name for name in MODULES if CASES[name] is CASES["balanced_accuracy"]]
    parts = make_data("balanced_accuracy", variants=(0, 2), seed=6)
    predictions, references = concatenated(parts)
    expected = {}
    for name in flat:
        expected.update(load(name).compute(predictions=predictions, references=references))
    combined = evaluate.combine([load(name) for name in flat])
    for batch_predictions, batch_references in parts:
        combined.add_batch(predictions=batch_predictions, references=batch_references)
    assert combined.compute() == expected
    assert evaluate.combine([load(name) for name in flat]).compute(predictions=predictions, references=references) == expected


# ---------------------------------------------------------------- the shared helpers behind the fast path


@pytest.mark.parametrize(
    "values",
    [
        ["safe", "unsafe", "safe"],
        np.array(["safe", "unsafe", "safe"]),
        pd.Series(["safe", "unsafe", "safe"], dtype=object),
        pd.Series(["safe", "unsafe", "safe"], dtype="string"),
        pa.array(["safe", "unsafe", "safe"]),
        pa.chunked_array([["safe"], ["unsafe", "safe"]]),
        pa.array(["safe", "unsafe", "safe"], type=pa.large_string()),
    ],
    ids=lambda v: f"{type(v).__name__}-{getattr(v, 'dtype', getattr(v, 'type', ''))}",
)
def test_string_inputs_become_unicode_arrays(values):
    array = inputs.as_array(values, "references")
    assert array.dtype.kind == "U" and array.tolist() == ["safe", "unsafe", "safe"]


@pytest.mark.parametrize(
    "values",
    [["safe", 1], pd.Series(["safe", 1], dtype=object), [np.str_("safe"), 1.5]],
    ids=["list", "pandas", "numpy-str-and-float"],
)
def test_strings_mixed_with_other_types_are_still_rejected(values):
    with pytest.raises(TypeError, match="references: expected one label type, found a mix of strings and numbers"):
        inputs.as_array(values, "references")


def test_empty_arrow_strings():
    assert inputs.as_array(pa.array([], type=pa.string()), "references").shape == (0,)


def test_check_finite_finds_every_non_finite_value_and_allows_large_finite_ones():
    inputs.check_finite(np.full(10, 3e38, dtype=np.float32), "predictions")  # the sum overflows; the values are finite
    with pytest.raises(ValueError, match=r"predictions: expected finite values, found 1 non-finite value\(s\) such as nan"):
        inputs.check_finite(np.array([[0.5, np.nan], [0.1, 0.2]]), "predictions")
    with pytest.raises(ValueError, match=r"found 2 non-finite value\(s\) such as inf"):
        inputs.check_finite(np.array([np.inf, 1.0, -np.inf], dtype=np.float32), "predictions")


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint16])
def test_encode_labels_finds_classes_that_occur_late(dtype):
    """The presence scan stops early only once every value was seen: a late class must still count."""
    rng = np.random.default_rng(8)
    references = rng.integers(0, 3, 200_000).astype(dtype)
    predictions = rng.integers(0, 3, 200_000).astype(dtype)
    references[-1], predictions[-2] = 7, 5  # classes 5 and 7 occur once, at the very end; 3, 4, 6 never
    encoded = labels.encode_labels(references, predictions)
    expected_classes, inverse = np.unique(np.concatenate([references, predictions]), return_inverse=True)
    assert encoded.classes.tolist() == expected_classes.tolist() == [0, 1, 2, 5, 7]
    assert encoded.reference_indices.dtype == np.intp and encoded.prediction_indices.dtype == np.intp
    assert encoded.reference_indices.tolist() == inverse[:200_000].tolist()
    assert encoded.prediction_indices.tolist() == inverse[200_000:].tolist()
    # Counted as (reference, prediction) pairs, then encoded: the same classes and counts.
    counts = confusion.confusion_counts(confusion.count_labels(predictions, references), {}).class_counts()
    matrix = np.zeros((5, 5), dtype=np.int64)
    np.add.at(matrix, (inverse[:200_000], inverse[200_000:]), 1)
    assert counts.tp.tolist() == np.diag(matrix).tolist() and counts.support.tolist() == matrix.sum(1).tolist()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_unweighted_youden_search_equals_the_weighted_one_with_unit_weights(dtype):
    """Without weights the search takes a faster path; with weights of 1 it takes the general one."""
    rng = np.random.default_rng(9)
    for trial in range(300):
        n, columns = int(rng.integers(1, 40)), int(rng.integers(1, 4))
        scores = (rng.integers(0, 6, (n, columns)) / 5.0 if trial % 2 else rng.normal(size=(n, columns))).astype(dtype)
        positives = rng.random((n, columns)) < rng.random(columns)
        mask = None if trial % 3 == 0 else rng.random((n, columns)) < 0.7
        fast = thresholds.youden_thresholds(scores, positives, None, mask)
        general = thresholds.youden_thresholds(scores, positives, np.ones((n, columns)), mask)
        for got, expected in zip(fast, general):
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)


def test_youden_midpoint_of_huge_scores_does_not_overflow():
    # The sum of the scores is finite (the unweighted fast path); upper + lower is not.
    scores = np.array([[-1e308], [1e308], [0.9e308]])
    positives = np.array([[0], [1], [0]])
    for weights in (None, np.ones((3, 1))):
        with np.errstate(all="raise"):
            found, tpr, tnr = thresholds.youden_thresholds(scores, positives, weights)
        assert found.tolist() == [0.95e308] and tpr.tolist() == [1.0] and tnr.tolist() == [1.0]


@pytest.mark.parametrize("keep_in_memory", [False, True], ids=["on-disk", "keep_in_memory"])
def test_a_long_string_label_is_stored_and_read_back_without_a_fixed_width_copy(load, keep_in_memory):
    """5,000 labels, one of 5,000 characters: as fixed-width unicode they would take 100 MB."""
    names = ["safe", "unsafe", "x" * 5000]
    rng = np.random.default_rng(10)
    references = [names[i] for i in rng.integers(0, 3, 5000)]
    predictions = [names[i] for i in rng.integers(0, 3, 5000)]
    direct = load("balanced_accuracy").compute(predictions=predictions, references=references, return_per_class=True)
    metric = load("balanced_accuracy", keep_in_memory=keep_in_memory)
    metric.add_batch(predictions=predictions[:2500], references=references[:2500])
    metric.add_batch(predictions=pa.array(predictions[2500:]), references=pd.Series(references[2500:]))
    seen, result = captured_counts(metric, return_per_class=True)
    assert seen["pairs"].keys["references"].nbytes < 1_000_000 and seen["pairs"].keys["predictions"].nbytes < 1_000_000
    assert same(result, direct)
    assert result["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(references, predictions))
