"""The shared core: coercion of every supported input type, label mapping, counting."""

import tracemalloc

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import torch

from shared.counting import confusion
from shared.counting import counts
from shared.counting import inputs
from shared.counting import labels
from shared.counting import thresholds


@pytest.mark.parametrize(
    "values",
    [
        [0, 1, 2],
        (0, 1, 2),
        np.array([0, 1, 2]),
        np.array([0, 1, 2], dtype=np.uint8),
        torch.tensor([0, 1, 2]),
        pd.Series([0, 1, 2]),
        pd.Series([0, 1, 2], dtype="Int64"),
        pa.array([0, 1, 2]),
        pa.chunked_array([[0, 1], [2]]),
    ],
    ids=lambda v: type(v).__name__,
)
def test_as_array_accepts_common_containers(values):
    array = inputs.as_array(values, "references")
    assert isinstance(array, np.ndarray)
    assert array.tolist() == [0, 1, 2]


def test_as_array_torch_requires_grad_and_half_precision():
    scores = torch.tensor([0.25, 0.75], requires_grad=True)
    assert inputs.as_array(scores, "predictions").tolist() == [0.25, 0.75]
    assert inputs.as_array(scores.to(torch.bfloat16), "predictions").dtype == np.float32
    assert inputs.as_array(torch.tensor([True, False]), "predictions").tolist() == [1, 0]


def test_as_array_strings_and_nd():
    assert inputs.as_array(pd.Series(["safe", "unsafe"]), "references").tolist() == ["safe", "unsafe"]
    assert inputs.as_array(pa.array(["a", "b"]), "references").tolist() == ["a", "b"]
    assert inputs.as_array([[0, 1], [1, 0]], "references").shape == (2, 2)


@pytest.mark.parametrize(
    "values, error, words",
    [
        ([0, "1"], TypeError, "mix of strings and numbers"),
        ([[0, 1], [1]], ValueError, "ragged"),
        ([0, None], ValueError, "missing"),
        (pd.Series([0, None], dtype="Int64"), ValueError, "missing"),
        (pa.array([0, None]), ValueError, "null"),
        (None, TypeError, "found None"),
        (3, TypeError, "scalar"),
        ([object()], TypeError, "type 'object'"),
        (np.array([1 + 2j]), TypeError, "complex"),
    ],
)
def test_as_array_errors_name_the_argument(values, error, words):
    with pytest.raises(error, match="references") as info:
        inputs.as_array(values, "references")
    assert words in str(info.value)


def test_encode_labels_never_allocates_in_proportion_to_a_label_value():
    references = np.array([0, 10**12, 5, 10**12])
    predictions = np.array([10**12, 0, 5, 5])
    tracemalloc.start()
    encoded = labels.encode_labels(references, predictions)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert isinstance(encoded, labels.EncodedLabels)
    assert encoded.classes.tolist() == [0, 5, 10**12]
    assert encoded.reference_indices.tolist() == [0, 2, 1, 2] and encoded.prediction_indices.tolist() == [2, 0, 1, 1]
    assert peak < 1_000_000


def test_encode_labels_with_explicit_labels_keeps_their_order():
    encoded = labels.encode_labels(np.array(["b", "a"]), np.array(["a", "a"]), labels=["b", "a"])
    assert (encoded.reference_indices.tolist(), encoded.prediction_indices.tolist(), encoded.classes.tolist()) == ([0, 1], [1, 1], ["b", "a"])
    with pytest.raises(ValueError, match=r"predictions: expected values among `labels`, found unknown value\(s\) \['c'\]"):
        labels.encode_labels(np.array(["b", "a"]), np.array(["a", "c"]), labels=["b", "a"])


@pytest.mark.parametrize("sparse", [True, False], ids=["sparse-rows", "dense-box"])
def test_class_counts_of_the_sparse_and_dense_count_tables_match_scikit_learn(sparse, monkeypatch):
    """2,000 classes: 4M (reference, prediction) cells are kept as sorted distinct rows by
    default, or in one dense box when the limit allows; both give scikit-learn's matrix."""
    from sklearn.metrics import confusion_matrix

    if not sparse:
        monkeypatch.setattr(counts, "DENSE_CELLS", 1 << 23)
    rng = np.random.default_rng(0)
    ref = rng.integers(0, 2000, 5000)
    pred = np.where(rng.random(5000) < 0.5, ref, rng.integers(0, 2000, 5000))
    weights = rng.random(5000)
    stored = confusion.count_labels(pred, ref, weights)
    assert stored.tables[confusion.PAIRS].sparse == sparse
    found = confusion.confusion_counts(stored, {"num_classes": 2000}).class_counts()
    matrix = confusion_matrix(ref, pred, labels=np.arange(2000), sample_weight=weights)
    np.testing.assert_allclose(found.tp, np.diag(matrix))
    np.testing.assert_allclose(found.support, matrix.sum(1))
    np.testing.assert_allclose(found.predicted, matrix.sum(0))


def test_youden_thresholds_match_brute_force():
    rng = np.random.default_rng(1)
    for _ in range(50):
        n, columns = rng.integers(2, 40), rng.integers(1, 4)
        scores = rng.integers(0, 8, (n, columns)) / 8.0  # many ties
        positives = rng.integers(0, 2, (n, columns))
        weights = rng.random((n, columns))
        found, tpr, tnr = thresholds.youden_thresholds(scores, positives, weights)
        for col in range(columns):
            distinct = np.unique(scores[:, col])
            candidates = [np.inf] + [(a + b) / 2 for a, b in zip(distinct[::-1][:-1], distinct[::-1][1:])] + [distinct[0]]
            pos, w = positives[:, col] == 1, weights[:, col]

            def j(t):
                predicted = scores[:, col] >= t
                tp = w[pos & predicted].sum() / w[pos].sum() if pos.any() else 0.0
                tn = w[~pos & ~predicted].sum() / w[~pos].sum() if (~pos).any() else 1.0
                return tp + tn

            values = [j(t) for t in candidates]
            assert j(found[col]) == pytest.approx(max(values), abs=1e-12)
            best = [t for t, v in zip(candidates, values) if v >= max(values) - 1e-12]
            assert found[col] == pytest.approx(max(best))  # tie rule: highest threshold


# ---------------------------------------------------------------- work on several cores


@pytest.fixture
def many_threads(monkeypatch):
    """map_row_blocks on 4 threads for any array, whatever this machine's cores and sizes."""
    monkeypatch.setattr(inputs, "available_cores", lambda: 4)
    monkeypatch.setattr(inputs, "_MIN_ELEMENTS_PER_THREAD", 1)


def test_map_row_blocks_covers_every_row_once_in_order(many_threads):
    for rows in (1, 2, 5, 17, 1000):
        ranges = inputs.map_row_blocks(lambda start, stop: (start, stop), np.zeros((rows, 3)))
        assert ranges[0][0] == 0 and ranges[-1][1] == rows
        assert all(stop == next_start for (_, stop), (next_start, _) in zip(ranges, ranges[1:]))
        assert all(start < stop for start, stop in ranges)
        assert len(ranges) > 1 if rows > 1 else len(ranges) == 1


def test_threaded_youden_search_equals_one_thread_and_the_general_path(many_threads, monkeypatch):
    rng = np.random.default_rng(12)
    scores = np.round(rng.random((3000, 23)), 2)  # ties
    positives = rng.random((3000, 23)) < rng.random(23)
    mask = rng.random((3000, 23)) < 0.9
    monkeypatch.setattr(thresholds, "_YOUDEN_BLOCK", 3000 * 2)  # blocks of 2 columns: ranges split into blocks
    threaded = thresholds.youden_thresholds(scores, positives, None, mask)
    general = thresholds.youden_thresholds(scores, positives, np.ones(scores.shape), mask)  # the unthreaded path
    monkeypatch.setattr(inputs, "available_cores", lambda: 1)
    one_thread = thresholds.youden_thresholds(scores, positives, None, mask)
    for got, single, expected in zip(threaded, one_thread, general):
        np.testing.assert_array_equal(got, single)
        np.testing.assert_array_equal(got, expected)


def test_threaded_finite_check_finds_a_value_in_any_block(many_threads):
    scores = np.zeros((1000, 7), dtype=np.float32)
    inputs.check_finite(scores, "predictions")
    for row in (0, 499, 999):
        for bad in (np.nan, np.inf, -np.inf):
            broken = scores.copy()
            broken[row, 3] = bad
            with pytest.raises(ValueError, match="predictions: expected finite values, found 1 non-finite"):
                inputs.check_finite(broken, "predictions")
