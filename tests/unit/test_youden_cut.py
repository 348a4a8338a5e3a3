"""threshold="auto": the binned Youden search (no full sort) against the sort it replaces.

``reference_youden`` below is the search by its definition, one stable sort per column
(``thresholds.THRESHOLD_TIE_RULE``): candidates +inf, the midpoints of adjacent distinct
counted scores and the lowest one; J = TPR + TNR from cumulative sums in descending score
order (an undefined TPR counts 0, an undefined TNR 1); the first maximum (highest
threshold) wins. The binned search must choose the same threshold exactly, and give the
same rates: exactly where the sums are exact (no weights, integer or half weights), within
1e-12 otherwise. Its bin sizes are shrunk here so that small inputs go through every step
(several levels of bins, the sorted leaves, the bin below the best cut).
"""

import numpy as np
import pytest
from sklearn.metrics import roc_curve

from shared.counting import thresholds


def reference_youden(scores, positives, weights=None, mask=None):
    num_samples, num_columns = scores.shape
    weights = np.ones(scores.shape) if weights is None else np.broadcast_to(weights, scores.shape)
    counted = np.ones(scores.shape, bool) if mask is None else mask.astype(bool)
    counted = counted & (weights != 0)
    found = np.full(num_columns, np.inf, dtype=scores.dtype)
    tpr, tnr = np.full(num_columns, np.nan), np.full(num_columns, np.nan)
    for column in range(num_columns):
        keep = np.flatnonzero(counted[:, column])
        s, w = scores[keep, column], weights[keep, column]
        positive = positives[keep, column].astype(bool)
        order = np.argsort(-s, kind="stable")
        s, w, positive = s[order], w[order], positive[order]
        tp = np.cumsum(np.where(positive, w, 0.0))
        fp = np.cumsum(np.where(positive, 0.0, w))
        total_positive, total_negative = (tp[-1], fp[-1]) if s.size else (0.0, 0.0)
        rate_p = tp / total_positive if total_positive > 0 else np.zeros(s.size)
        rate_n = (total_negative - fp) / total_negative if total_negative > 0 else np.ones(s.size)
        youden = rate_p + rate_n
        is_cut = np.ones(s.size, bool)
        is_cut[:-1] = s[:-1] != s[1:]
        youden[~is_cut] = -np.inf
        tpr[column] = 0.0 if total_positive > 0 else np.nan
        tnr[column] = 1.0 if total_negative > 0 else np.nan
        if not s.size or youden.max() <= 1.0:  # "nothing positive" (J = 1) comes first
            continue
        row = int(np.argmax(youden))
        if row + 1 < s.size:
            upper, lower = s[row], s[row + 1]
            with np.errstate(over="ignore"):
                middle = (upper + lower) / 2
            if np.isinf(middle):
                middle = upper / 2 + lower / 2
            found[column] = middle if middle > lower else upper
        else:
            found[column] = s[row]
        tpr[column] = rate_p[row] if total_positive > 0 else np.nan  # an undefined rate is reported as NaN
        tnr[column] = rate_n[row] if total_negative > 0 else np.nan
    return found, tpr, tnr


@pytest.fixture
def small_bins(monkeypatch):
    monkeypatch.setattr(thresholds, "_MIN_BINNED", 1)
    monkeypatch.setattr(thresholds, "_LEAF", 4)
    monkeypatch.setattr(thresholds, "_MAX_BINS", 16)
    monkeypatch.setattr(thresholds, "_CHUNK", 7)


def random_case(rng, trial):
    n, columns = int(rng.integers(1, 200)), int(rng.integers(1, 4))
    kind = trial % 8
    if kind == 0:
        scores = rng.normal(size=(n, columns))
    elif kind == 1:  # heavy ties
        scores = rng.integers(0, 4, (n, columns)) / 4.0
    elif kind == 2:  # constant
        scores = np.full((n, columns), 0.3)
    elif kind == 3:  # extremes, finite
        scores = rng.choice([-1.7e308, -1e-300, -0.0, 0.0, 5e-324, 1e-300, 1.0, 1.7e308], size=(n, columns))
    elif kind == 4:  # a range of subnormals
        scores = rng.integers(0, 30, (n, columns)) * 5e-324
    elif kind == 5:  # a few distinct values far from 0
        scores = np.round(rng.random((n, columns)), 2) + 1e6
    elif kind == 6:  # most of the mass in one bin, a long tail
        scores = rng.exponential(size=(n, columns)) ** 8
    else:
        scores = rng.integers(0, 2, (n, columns)).astype(float)
    if trial % 5 == 0 and kind not in (3, 4):
        scores = scores.astype(np.float32)
    positives = rng.random((n, columns)) < rng.random(columns)
    weight_kind = trial % 4
    if weight_kind == 0:
        weights = None
    elif weight_kind == 1:  # integers, zeros among them
        weights = rng.integers(0, 4, (n, columns)).astype(float)
    elif weight_kind == 2:  # halves (sums still exact)
        weights = rng.integers(0, 5, (n, columns)) / 2
    else:  # any floats, zeros among them
        weights = rng.random((n, columns)) * (rng.random((n, columns)) < 0.8)
    mask = None if trial % 3 else rng.random((n, columns)) < 0.7
    return scores, positives, weights, mask, weight_kind == 3


def assert_same(found, expected, rounded):
    for got, want, name in zip(found, expected, ("thresholds", "tpr", "tnr")):
        assert got.dtype == want.dtype, name
        if name == "thresholds" or not rounded:
            np.testing.assert_array_equal(got, want, err_msg=name)
        else:
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=name)


def test_binned_search_equals_the_sort_on_random_inputs(small_bins):
    rng = np.random.default_rng(20)
    for trial in range(320):
        scores, positives, weights, mask, rounded = random_case(rng, trial)
        assert_same(thresholds.youden_thresholds(scores, positives, weights, mask), reference_youden(scores, positives, weights, mask),
                    rounded)


def test_binned_search_equals_the_sort_at_its_own_sizes():
    """Default bins: 40,000 rows (the binned path) with ties, a column of few values, weights."""
    rng = np.random.default_rng(21)
    n = 40_000
    positives = rng.random((n, 3)) < [0.1, 0.5, 0.9]
    scores = np.column_stack([np.round(rng.normal(positives[:, 0] * 0.8, 1.0), 3), rng.integers(0, 3, n) / 2.0,
                              rng.normal(positives[:, 2] * 0.1, 1.0)])
    assert n >= thresholds._MIN_BINNED
    for weights, rounded in ((None, False), (rng.integers(0, 3, (n, 3)).astype(float), False), (rng.random((n, 1)), True)):
        for mask in (None, rng.random((n, 3)) < 0.9):
            found = thresholds.youden_thresholds(scores, positives, None if weights is None else np.broadcast_to(weights, scores.shape),
                                                 mask)
            assert_same(found, reference_youden(scores, positives, weights, mask), rounded)


def test_near_ties_of_rounded_weights_are_decided_as_the_sort_decides_them(small_bins):
    """Weights of 0.1: exact ties of J become rounding ties, which the sort's summation order decides."""
    rng = np.random.default_rng(22)
    for _ in range(200):
        n = int(rng.integers(2, 60))
        scores = rng.integers(0, 6, (n, 1)) / 5.0
        positives = np.arange(n)[:, None] % 2 == 0  # as many positives as negatives: ties of J everywhere
        weights = np.full((n, 1), 0.1)
        assert_same(thresholds.youden_thresholds(scores, positives, weights), reference_youden(scores, positives, weights), True)


def test_youden_of_the_binned_search_is_the_roc_optimum():
    """J at the chosen threshold is scikit-learn's max(TPR - FPR) + 1."""
    rng = np.random.default_rng(23)
    references = (rng.random(50_000) < 0.2).astype(int)
    scores = np.round(rng.normal(references * 0.7, 1.0), 4)
    found, tpr, tnr = thresholds.youden_thresholds(scores[:, None], references[:, None])
    false_positive_rate, true_positive_rate, cuts = roc_curve(references, scores)
    best = int(np.argmax(true_positive_rate - false_positive_rate))
    assert tpr[0] + tnr[0] - 1 == pytest.approx(true_positive_rate[best] - false_positive_rate[best], abs=1e-12)
    predicted = scores >= found[0]
    assert predicted.sum() == (scores >= cuts[best]).sum()  # the same cut of the scores
