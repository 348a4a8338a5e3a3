"""shared/prevalence.py (with prevalence_arrays.py, judge_groups.py, planning.py): corrected prevalence, its difference, group diagnostics, planning.

Expected values are derived in each test (exact fractions, an independent solver, or a
simulation), never copied from the code's own output.
"""

import doctest
import math
import sys
import warnings
from fractions import Fraction

import numpy as np
import pytest

from shared.metrics import balanced_accuracy as balanced_accuracy_metric
from shared.metrics import informedness as informedness_metric
from shared.stats import binomial
from shared.judges import judge_groups
from shared.tooling import planning
from shared.judges import prevalence
from shared.judges import prevalence_arrays
from shared.judges import prevalence_ppi
from shared.stats import distributions
from conftest import REPO_ROOT, load_study

sys.path.insert(0, str(REPO_ROOT / "examples"))

LEVEL = 0.95


def test_docstring_examples():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    attempted = 0
    # The prevalence files: the correction, its building blocks, group diagnostics, planning.
    for core_file in (prevalence, prevalence_arrays, judge_groups, planning):
        for test in finder.find(core_file, globs=vars(core_file).copy()):
            runner.run(test)
            attempted += len(test.examples)
    assert runner.summarize(verbose=False).failed == 0 and attempted >= 10


# ---------------------------------------------------------------- binary: Rogan-Gladen exactly


def binary_confusion(tp, positives, fp, negatives):
    return [[negatives - fp, fp], [positives - tp, tp]]


@pytest.mark.parametrize(
    "tp, positives, fp, negatives, flagged, total",
    [(40, 50, 95, 950, 240, 1000), (9, 10, 1, 10, 3, 7), (170, 200, 30, 300, 1234, 5000), (3, 4, 1, 5, 5, 9)],
)
def test_binary_matches_rogan_gladen_exactly(tp, positives, fp, negatives, flagged, total):
    tpr, fpr, q = Fraction(tp, positives), Fraction(fp, negatives), Fraction(flagged, total)
    expected = (q - fpr) / (tpr - fpr)
    assert 0 <= expected <= 1  # the cases are chosen inside [0, 1]
    result = prevalence.corrected_prevalence(binary_confusion(tp, positives, fp, negatives), [total - flagged, flagged])
    assert result["estimate"] == pytest.approx(float(expected), abs=1e-12)
    assert result["clipped"] is False and result["reason"] is None
    assert result["informedness"] == pytest.approx(float(tpr - fpr), abs=1e-12)
    assert result["measured_prevalence"] == pytest.approx(float(q), abs=1e-15)


def test_binary_recovers_a_prevalence_planted_through_the_forward_model():
    # TPR = 7/10, FPR = 1/20; truth p = 3/10 => q = FPR + J p = 1/20 + 13/20 * 3/10 = 49/200.
    tpr, fpr, p = Fraction(7, 10), Fraction(1, 20), Fraction(3, 10)
    q = fpr + (tpr - fpr) * p
    total = 2000
    flagged = q * total
    assert flagged.denominator == 1
    result = prevalence.corrected_prevalence(binary_confusion(70, 100, 10, 200), [total - int(flagged), int(flagged)])
    assert result["estimate"] == pytest.approx(float(p), abs=1e-12)


@pytest.mark.parametrize("flagged, expected", [(20, 0.0), (980, 1.0)])
def test_clipping_is_reported(flagged, expected):
    # TPR 0.8, FPR 0.1: q = 0.02 < FPR gives (0.02 - 0.1) / 0.7 < 0; q = 0.98 > TPR gives > 1.
    result = prevalence.corrected_prevalence(binary_confusion(80, 100, 10, 100), [1000 - flagged, flagged], confidence_level=LEVEL, seed=0)
    assert result["estimate"] == expected and result["clipped"] is True
    low, high = result["interval"]
    assert 0.0 <= low <= expected <= high <= 1.0


INTERVAL_METHODS = ("lee", "bootstrap", "delta")


def test_one_refusal_rule_nan_with_a_reason_and_no_warning_when_the_judge_cannot_be_inverted():
    cases = {
        "J = 0: division by zero": binary_confusion(50, 100, 50, 100),
        "J = 0.04": binary_confusion(54, 100, 50, 100),
        "J = 0.05 = the threshold": binary_confusion(55, 100, 50, 100),
        "J = -0.04: the size counts, not the sign": binary_confusion(50, 100, 54, 100),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for confusion in cases.values():
            for method in INTERVAL_METHODS:
                result = prevalence.corrected_prevalence(confusion, [500, 500], confidence_level=LEVEL, method=method, seed=0)
                assert result["reason"] == "informedness_too_small"
                assert math.isnan(result["estimate"]) and all(math.isnan(v) for v in result["interval"])
            difference = prevalence.corrected_prevalence_difference(confusion, [500, 500], [600, 400], confidence_level=LEVEL)
            assert difference["reason"] == "informedness_too_small" and math.isnan(difference["estimate"])
    # Just above the threshold: a number. The threshold is a parameter.
    assert not math.isnan(prevalence.corrected_prevalence(binary_confusion(56, 100, 50, 100), [500, 500])["estimate"])
    assert not math.isnan(prevalence.corrected_prevalence(binary_confusion(54, 100, 50, 100), [500, 500], min_informedness=0.01)["estimate"])


def swapped_three_class_judge():
    """Issue 24's case: a 3-class judge that gives class 2 for class 1 and the reverse."""
    rows = [[80, 12, 8], [6, 10, 84], [5, 85, 10]]
    return np.asarray(rows), [[80, 8, 12], [6, 84, 10], [5, 10, 85]]


def test_a_label_swapped_judge_is_corrected_with_a_warning_binary_and_multiclass_alike():
    # Binary J = -0.75 (TPR 0.1, FPR 0.85): p = (q - FPR) / J, by hand, and a warning.
    confusion = binary_confusion(10, 100, 85, 100)
    tpr, fpr, q = Fraction(10, 100), Fraction(85, 100), Fraction(600, 1000)
    for method in INTERVAL_METHODS:
        with pytest.warns(UserWarning, match="label-swapped"):
            result = prevalence.corrected_prevalence(confusion, [400, 600], confidence_level=LEVEL, method=method, seed=0)
        assert result["reason"] is None and result["estimate"] == pytest.approx(float((q - fpr) / (tpr - fpr)), abs=1e-12)
        low, high = result["interval"]
        assert 0 <= low < result["estimate"] < high <= 1
    # It is the judge with its labels swapped back, judging the unlabeled data swapped back:
    # the same prevalence and, for Lee's interval and the delta method, the same interval.
    unswapped = [row[::-1] for row in confusion]
    for method in ("lee", "delta"):
        with pytest.warns(UserWarning):
            swapped = prevalence.corrected_prevalence(confusion, [400, 600], confidence_level=LEVEL, method=method)
        straight = prevalence.corrected_prevalence(unswapped, [600, 400], confidence_level=LEVEL, method=method)
        assert swapped["estimate"] == pytest.approx(straight["estimate"], abs=1e-12)
        assert swapped["interval"] == pytest.approx(straight["interval"], abs=1e-12)
    # Three classes, labels 1 and 2 swapped: corrected, with a warning naming them, and
    # equal to the un-swapped judge on the un-swapped counts.
    judge, straight_judge = swapped_three_class_judge()
    assert prevalence_arrays.conditioning(judge / judge.sum(axis=1, keepdims=True)) < 0
    with pytest.warns(UserWarning, match=r"label-swapped.*'b' \(-0\.\d+\), 'c'"):
        result = prevalence.corrected_prevalence(judge, [400, 250, 350], classes=["a", "b", "c"])
    expected = prevalence.corrected_prevalence(straight_judge, [400, 350, 250])["estimate"]
    assert result["estimate"] == pytest.approx(expected, abs=1e-12) and result["reason"] is None


def test_other_undefined_cases():
    assert prevalence.corrected_prevalence([[10, 0], [0, 0]], [5, 5])["reason"] == "class_without_golden_references"
    assert prevalence.corrected_prevalence([[9, 1], [1, 9]], [0, 0])["reason"] == "no_unlabeled_predictions"
    with pytest.raises(ValueError):
        prevalence.corrected_prevalence([[9, 1], [1, 9]], [1, 2, 3])
    with pytest.raises(ValueError):
        prevalence.corrected_prevalence([[9, 1], [1, 9.5]], [1, 2])
    with pytest.raises(ValueError, match="method: expected one of"):
        prevalence.corrected_prevalence([[9, 1], [1, 9]], [1, 2], method="bayes")
    with pytest.raises(ValueError, match="method: 'lee' is the interval of one binary prevalence, found 3 classes"):
        prevalence.corrected_prevalence(np.eye(3) * 10, [1, 2, 3], method="lee")
    with pytest.raises(ValueError, match="found a difference of two prevalences"):
        prevalence.corrected_prevalence_difference([[9, 1], [1, 9]], [1, 2], [2, 1], method="lee")


def test_weak_golden_set_widens_the_interval_instead_of_dropping_replicates():
    # J = 0.3 on 20 + 20 items: some resamples have J <= 0.05, counted as "anything".
    result = prevalence.corrected_prevalence(binary_confusion(12, 20, 6, 20), [700, 300], confidence_level=LEVEL, seed=1,
                                             method="bootstrap")
    assert result["undefined_resample_share"] > 0.01
    low, high = result["interval"]
    assert high - low > 0.5


# ---------------------------------------------------------------- multi-class: adjusted classify and count


def test_multiclass_recovers_a_planted_prevalence_exactly():
    rows = [[8, 1, 1], [2, 7, 1], [1, 2, 7]]  # each row sums to 10
    rates = [[Fraction(v, 10) for v in row] for row in rows]
    p = [Fraction(1, 2), Fraction(3, 10), Fraction(1, 5)]
    q = [sum(p[i] * rates[i][j] for i in range(3)) for j in range(3)]
    total = 1000
    unlabeled = [q_j * total for q_j in q]
    assert all(u.denominator == 1 for u in unlabeled)
    result = prevalence.corrected_prevalence([[10 * v for v in row] for row in rows], [int(u) for u in unlabeled])
    assert result["estimate"] == pytest.approx([float(v) for v in p], abs=1e-12)
    assert result["clipped"] is False


def kkt_projection_holds(point, projected):
    """The Euclidean projection onto the simplex: w >= 0, sum 1, and v - w equal on the
    support and no larger off it (the KKT conditions of min ||w - v||^2)."""
    point, projected = np.asarray(point), np.asarray(projected)
    if projected.min() < -1e-12 or abs(projected.sum() - 1) > 1e-9:
        return False
    shift = point - projected
    support = projected > 1e-12
    theta = shift[support].mean()
    return np.allclose(shift[support], theta, atol=1e-9) and np.all(shift[~support] <= theta + 1e-9)


@pytest.mark.parametrize("num_classes", [3, 4, 5])
def test_multiclass_agrees_with_numpy_solve_inside_the_simplex_and_projects_outside(num_classes):
    rng = np.random.default_rng(num_classes)
    inside = outside = 0
    for _ in range(200):
        confusion = rng.integers(0, 30, (num_classes, num_classes)) + np.diag(rng.integers(40, 120, num_classes))
        unlabeled = rng.integers(0, 500, num_classes)
        unlabeled[0] += 1
        rates = confusion / confusion.sum(axis=1, keepdims=True)
        solution = np.linalg.solve(rates.T, unlabeled / unlabeled.sum())
        result = prevalence.corrected_prevalence(confusion, unlabeled)
        assert result["reason"] is None
        if solution.min() >= 0:
            inside += 1
            assert result["estimate"] == pytest.approx(solution.tolist(), abs=1e-10)
            assert result["clipped"] is False
        else:
            outside += 1
            assert result["clipped"] is True
            assert kkt_projection_holds(solution, result["estimate"])
    assert inside > 20 and outside > 20


def test_binary_is_the_two_class_case_of_the_general_solver():
    confusion = binary_confusion(37, 45, 12, 80)
    unlabeled = np.array([640, 360])
    rates = np.asarray(confusion) / np.sum(confusion, axis=1, keepdims=True)
    solution = np.linalg.solve(rates.T, unlabeled / unlabeled.sum())
    assert prevalence.corrected_prevalence(confusion, unlabeled)["estimate"] == pytest.approx(solution[1], abs=1e-12)


def test_invertibility_is_abs_j_for_two_classes_and_zero_for_a_singular_judge():
    for tpr, fpr in [(0.8, 0.1), (0.3, 0.6), (0.55, 0.5)]:
        rates = [[1 - fpr, fpr], [1 - tpr, tpr]]
        assert float(prevalence_arrays.invertibility(rates)) == pytest.approx(abs(tpr - fpr), abs=1e-12)
    # Classes 1 and 2 indistinguishable: two equal rows, no unique solution.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = prevalence.corrected_prevalence([[80, 10, 10], [10, 45, 45], [10, 45, 45]], [300, 350, 350], confidence_level=LEVEL)
    assert float(prevalence_arrays.conditioning(np.array([[80, 10, 10], [10, 45, 45], [10, 45, 45]]) / 100)) == pytest.approx(0, abs=1e-12)
    assert result["reason"] == "informedness_too_small" and all(math.isnan(v) for v in result["estimate"])


def test_multiclass_interval_per_class_holds_the_estimate():
    confusion = [[80, 15, 5], [10, 70, 20], [5, 10, 85]]
    for method in ("bootstrap", "delta"):
        result = prevalence.corrected_prevalence(confusion, [500, 300, 200], confidence_level=LEVEL, method=method, seed=0)
        assert len(result["interval"]) == 3
        for value, (low, high) in zip(result["estimate"], result["interval"]):
            assert 0.0 <= low <= value <= high <= 1.0


# ---------------------------------------------------------------- intervals


def test_binary_delta_variance_is_the_textbook_formula():
    tp, positives, fp, negatives, flagged, total = 160, 200, 40, 400, 900, 3000
    tpr, fpr, q = tp / positives, fp / negatives, flagged / total
    j = tpr - fpr
    p = (q - fpr) / j
    variance = (q * (1 - q) / total + p**2 * tpr * (1 - tpr) / positives + (1 - p) ** 2 * fpr * (1 - fpr) / negatives) / j**2
    z = distributions.z_value(LEVEL)
    result = prevalence.corrected_prevalence(binary_confusion(tp, positives, fp, negatives), [total - flagged, flagged], confidence_level=LEVEL, method="delta")
    assert result["interval"] == pytest.approx([p - z * math.sqrt(variance), p + z * math.sqrt(variance)], abs=1e-12)


def test_bootstrap_and_delta_agree_in_a_large_sample():
    confusion, unlabeled = binary_confusion(1600, 2000, 400, 4000), [21000, 9000]
    boot = prevalence.corrected_prevalence(confusion, unlabeled, confidence_level=LEVEL, seed=0, n_resamples=4000,
                                           method="bootstrap")["interval"]
    delta = prevalence.corrected_prevalence(confusion, unlabeled, confidence_level=LEVEL, method="delta")["interval"]
    lee = prevalence.corrected_prevalence(confusion, unlabeled, confidence_level=LEVEL)["interval"]
    for other in (boot, lee):
        assert other[1] - other[0] == pytest.approx(delta[1] - delta[0], rel=0.1)
        assert sum(other) / 2 == pytest.approx(sum(delta) / 2, abs=0.005)


def test_difference_is_delta_q_over_j_and_the_fpr_cancels():
    # Two judges with equal J but different FPR give the same corrected difference.
    for tp, fp in [(80, 10), (90, 20)]:  # TPR - FPR = 0.7 in both
        result = prevalence.corrected_prevalence_difference(binary_confusion(tp, 100, fp, 100), [700, 300], [850, 150])
        assert result["estimate"] == pytest.approx((0.30 - 0.15) / 0.7, abs=1e-12)
        assert result["measured_difference"] == pytest.approx(0.15, abs=1e-12)
    # Multi-class: C^-T (q_a - q_b), checked against numpy.
    confusion = np.array([[80, 15, 5], [10, 70, 20], [5, 10, 85]])
    a, b = np.array([500, 300, 200]), np.array([400, 350, 250])
    rates = confusion / confusion.sum(axis=1, keepdims=True)
    expected = np.linalg.solve(rates.T, a / a.sum() - b / b.sum())
    result = prevalence.corrected_prevalence_difference(confusion, a, b, confidence_level=LEVEL, seed=0)
    assert result["estimate"] == pytest.approx(expected.tolist(), abs=1e-12)
    assert all(low <= v <= high for v, (low, high) in zip(result["estimate"], result["interval"]))


def test_difference_of_identical_samples_is_zero_with_an_interval_around_it():
    for method in ("bootstrap", "delta"):
        result = prevalence.corrected_prevalence_difference(
            binary_confusion(80, 100, 10, 100), [700, 300], [700, 300], confidence_level=LEVEL, method=method, seed=0
        )
        low, high = result["interval"]
        assert result["estimate"] == 0.0 and low < 0 < high and abs(low + high) < 0.02


def simulate_prevalence_sets(rng, num_sets, golden_size, unlabeled_size, prior, rates):
    """Golden sets with class sizes drawn from ``prior`` and unlabeled sets from ``prior``."""
    prior, rates = np.asarray(prior), np.asarray(rates)
    support = rng.multinomial(golden_size, prior, size=num_sets)
    confusion = rng.multinomial(support, rates)
    unlabeled = rng.multinomial(unlabeled_size, prior @ rates, size=num_sets)
    return confusion, unlabeled


@pytest.mark.parametrize(
    "prior, rates",
    [
        ([0.9, 0.1], [[0.9, 0.1], [0.2, 0.8]]),
        ([0.5, 0.3, 0.2], [[0.85, 0.10, 0.05], [0.15, 0.75, 0.10], [0.10, 0.20, 0.70]]),
    ],
)
def test_small_coverage_simulation(prior, rates):
    """Nominal 95% intervals hold the true prevalence in a loose band (400 sets: +-2.2% is 2 SE)."""
    rng = np.random.default_rng(2024)
    confusion, unlabeled = simulate_prevalence_sets(rng, 400, 1000, 5000, prior, rates)
    defined = (confusion.sum(axis=-1) > 0).all(axis=-1)
    low, high, _ = prevalence.bootstrap_prevalence_arrays(
        confusion, [unlabeled], confidence_level=LEVEL, n_resamples=500, seed=1, min_informedness=0.05
    )
    truth = np.asarray(prior)
    covered = ((low <= truth) & (truth <= high))[defined]
    coverage = covered.mean(axis=0)
    assert np.all((coverage > 0.90) & (coverage < 0.99)), coverage
    point = prevalence.corrected_prevalence_arrays(confusion, unlabeled)
    covariance = prevalence.delta_covariance(confusion, [unlabeled], point["estimate"])
    low, high = prevalence.delta_interval_arrays(point["estimate"], covariance, LEVEL, (0.0, 1.0))
    coverage = ((low <= truth) & (truth <= high))[defined].mean(axis=0)
    assert np.all((coverage > 0.90) & (coverage < 0.99)), coverage


def test_the_study_script_runs_quick():
    """A quick version of studies/prevalence_prior_shift/study.py: every method on a shift-up, an i.i.d.,
    a shift-down and a 3-class setting, with loose bands (300 sets: 2 SE is about 0.025)."""
    import time

    prevalence_study = load_study("prevalence_prior_shift")

    started = time.perf_counter()
    rows = prevalence_study.run(prevalence_study.quick_settings(), sets=300, resamples=200, seed=0)
    assert time.perf_counter() - started < 30
    by_design = {(row["kind"], row["design"]): row for row in rows}
    assert set(by_design) == {("binary", "shift up"), ("binary", "i.i.d."), ("binary", "shift down"), ("3-class", "shift up")}
    for row in rows:
        assert row["bootstrap"]["coverage"] >= 0.9, row
        assert 0.0 <= row["bootstrap"]["refused"] <= 0.2
        if row["kind"] == "binary":
            assert row["lee"]["coverage"] >= 0.9, row
    # PPI: nominal on i.i.d. data, refused (or wrong) under shift.
    assert by_design[("binary", "i.i.d.")]["ppi"]["coverage"] >= 0.9
    shifted = by_design[("binary", "shift up")]["ppi"]
    assert shifted["refused"] > 0.9 or shifted["coverage"] < 0.5
    # The former multinomial bootstrap under shift up (3 classes, a 3% golden class): short.
    assert by_design[("3-class", "shift up")]["multinomial"]["coverage"] < 0.9
    assert "| lee |" in prevalence_study.headline(rows) and "bootstrap" in prevalence_study.full_table(rows)


# ---------------------------------------------------------------- group diagnostics


def test_group_rates_are_the_per_group_counts():
    groups = [binary_confusion(40, 50, 10, 100), binary_confusion(18, 20, 3, 30), binary_confusion(5, 10, 0, 10)]
    result = judge_groups.group_diagnostics(groups, confidence_level=LEVEL)
    assert result["support"] == [[100, 50], [30, 20], [10, 10]]
    assert result["tpr"] == pytest.approx([0.8, 0.9, 0.5])
    assert result["fpr"] == pytest.approx([0.1, 0.1, 0.0])
    assert result["informedness"] == pytest.approx([0.7, 0.8, 0.5])
    for value, (low, high) in zip(result["informedness"], result["informedness_ci"]):
        assert low <= value <= high


def test_group_intervals_are_the_whole_set_interval_of_each_group():
    # Multi-class groups: the score interval (the default) of each group's own matrix, not a bootstrap;
    # the same with the delta method when it is asked for.
    groups = np.array([[[30, 1, 0], [2, 25, 1], [0, 1, 4]], [[12, 0, 1], [0, 10, 0], [1, 0, 2]], [[40, 3, 2], [1, 30, 1], [0, 0, 10]]])
    default = judge_groups.group_diagnostics(groups, confidence_level=LEVEL)
    delta = judge_groups.group_diagnostics(groups, confidence_level=LEVEL, ci_method="delta")
    for index, matrix in enumerate(groups):
        expected = informedness_metric.informedness_score_interval(matrix, confidence_level=LEVEL).as_list()
        assert default["informedness_ci"][index] == pytest.approx(expected, abs=1e-12)
        expected = informedness_metric.informedness_delta_interval(matrix, confidence_level=LEVEL).as_list()
        assert delta["informedness_ci"][index] == pytest.approx(expected, abs=1e-12)
    binary = judge_groups.group_diagnostics([binary_confusion(40, 50, 10, 100), binary_confusion(5, 5, 0, 10)], confidence_level=LEVEL)
    for index, matrix in enumerate([binary_confusion(40, 50, 10, 100), binary_confusion(5, 5, 0, 10)]):
        expected = informedness_metric.informedness_interval(matrix, confidence_level=LEVEL, method="score").as_list()
        assert binary["informedness_ci"][index] == pytest.approx(expected, abs=1e-12)


def test_chi2_tail_matches_scipy():
    from scipy import stats  # scikit-learn depends on SciPy: always installed with the test requirements
    for statistic, dof in [(0.01, 1), (3.84, 1), (7.5, 2), (20, 6), (55, 40), (300, 200), (1e-6, 10)]:
        assert distributions.chi2_sf(statistic, dof) == pytest.approx(stats.chi2.sf(statistic, dof), rel=1e-9, abs=1e-300)


def test_homogeneity_statistic_binary_is_the_sum_of_the_tpr_and_fpr_tests():
    from scipy import stats  # scikit-learn depends on SciPy: always installed with the test requirements
    groups = np.array([binary_confusion(40, 50, 10, 100), binary_confusion(12, 20, 6, 30), binary_confusion(9, 10, 1, 40)])
    tpr_table = groups[:, 1, ::-1]  # (TP, FN) per group
    fpr_table = groups[:, 0, :]  # (TN, FP) per group
    expected = stats.chi2_contingency(tpr_table, correction=False)[0] + stats.chi2_contingency(fpr_table, correction=False)[0]
    statistic, dof = judge_groups.homogeneity_statistic(groups)
    assert float(statistic) == pytest.approx(expected, rel=1e-12) and int(dof) == 4


@pytest.mark.parametrize(
    "num_classes, per_group, method, sims",
    [(2, (60, 140), "chi2", 3000), (3, (80, 50, 70), "chi2", 3000), (2, (8, 25), "monte_carlo", 600)],
)
def test_heterogeneity_type_one_error(num_classes, per_group, method, sims):
    """Under H0 (the same rates in every group) p <= 0.05 in about 5% of golden sets."""
    rng = np.random.default_rng(7)
    rates = {2: np.array([[0.9, 0.1], [0.2, 0.8]]), 3: np.array([[0.8, 0.15, 0.05], [0.1, 0.8, 0.1], [0.1, 0.2, 0.7]])}[num_classes]
    sizes = np.tile(np.asarray(per_group), (4, 1))  # 4 groups
    rejections = 0
    for _ in range(sims):
        groups = rng.multinomial(sizes, rates)
        result = judge_groups.group_diagnostics(groups, method=method, n_resamples=300, seed=int(rng.integers(2**31)))
        rejections += result["heterogeneity_p_value"] <= 0.05
    rate = rejections / sims
    half_band = 3 * math.sqrt(0.05 * 0.95 / sims) + 0.005
    assert abs(rate - 0.05) < half_band, rate


def test_heterogeneity_detects_a_self_preferring_judge():
    rng = np.random.default_rng(3)
    fair = np.array([[0.9, 0.1], [0.2, 0.8]])
    lenient = np.array([[0.9, 0.1], [0.5, 0.5]])  # misses half the violations of its own model
    detected = 0
    for _ in range(200):
        groups = np.stack([rng.multinomial([150, 50], fair), rng.multinomial([150, 50], fair), rng.multinomial([150, 50], lenient)])
        detected += judge_groups.group_diagnostics(groups)["heterogeneity_p_value"] <= 0.05
    assert detected / 200 > 0.8


# ---------------------------------------------------------------- planning, checked by simulation


@pytest.mark.parametrize(
    "target, tpr, tnr, prior, metric, ci_method",
    [
        (0.03, 0.85, 0.90, 0.2, "balanced_accuracy", "agresti_coull"),
        (0.05, 0.95, 0.98, 0.1, "balanced_accuracy", "wilson"),
        (0.08, 0.80, 0.90, 0.3, "informedness", "agresti_coull"),
    ],
)
def test_golden_set_plan_gives_the_target_half_width(target, tpr, tnr, prior, metric, ci_method):
    """Simulated golden sets of the planned size: the module's interval has median half-width
    about the target; 15% fewer items miss it."""
    plan = planning.plan_golden_set(target, tpr=tpr, tnr=tnr, prevalence=prior, metric=metric, ci_method=ci_method)
    assert plan["positives"] + plan["negatives"] == plan["total"]
    assert plan["positives"] / plan["total"] == pytest.approx(prior, abs=2 / plan["total"])
    rng = np.random.default_rng(11)

    def median_half_width(positives, negatives, sims=4000):
        tp = rng.binomial(positives, tpr, sims)
        tn = rng.binomial(negatives, tnr, sims)
        if metric == "balanced_accuracy":
            interval = balanced_accuracy_metric.recall_mean_interval(
                np.stack([tn, tp], -1), np.array([negatives, positives]), confidence_level=LEVEL, method=ci_method
            )
        else:
            confusion = np.stack([np.stack([tn, negatives - tn], -1), np.stack([positives - tp, tp], -1)], -2)
            interval = informedness_metric.informedness_interval(confusion, confidence_level=LEVEL, method=ci_method)
        return float(np.median((interval.high - interval.low) / 2))

    at_plan = median_half_width(plan["positives"], plan["negatives"])
    assert 0.93 * target <= at_plan <= 1.02 * target
    smaller = median_half_width(int(0.85 * plan["positives"]), int(0.85 * plan["negatives"]))
    assert smaller > target


def test_golden_set_plan_for_a_near_perfect_judge_is_not_the_wald_promise():
    plan = planning.plan_golden_set(0.03, tpr=1.0, tnr=0.995, prevalence=0.2)
    assert plan["wald_total"] < plan["total"] / 2  # Wald: TPR = 1 has "no" variance


def simulate_paired_judges(rng, sims, positives, negatives, judge_a, judge_b, agreement):
    """TP / TN counts of two judges labelling the same items; among each class the judges
    disagree on a share 1 - agreement (None: independent errors given the class)."""
    counts = {}
    for name, size, a, b, agree in (("pos", positives, judge_a[0], judge_b[0], agreement), ("neg", negatives, judge_a[1], judge_b[1], agreement)):
        if agree is None:
            cells = [a * b, a * (1 - b), (1 - a) * b, (1 - a) * (1 - b)]
        else:
            d = 1 - agree
            only_b = (d + b - a) / 2
            only_a = (d - (b - a)) / 2
            cells = [a - only_a, only_a, only_b, 1 - (a - only_a) - only_a - only_b]
        draws = rng.multinomial(size, cells, size=sims)  # both right, A only, B only, neither
        counts[name] = (draws[:, 0] + draws[:, 1], draws[:, 0] + draws[:, 2], draws)
    return counts


@pytest.mark.parametrize("agreement", [None, 0.88])
def test_judge_comparison_plan_reaches_the_power(agreement):
    plan = planning.plan_judge_comparison(0.1, tpr=0.75, tnr=0.85, prevalence=0.3, agreement=agreement)
    a = (plan["judge_a"]["tpr"], plan["judge_a"]["tnr"])
    b = (plan["judge_b"]["tpr"], plan["judge_b"]["tnr"])
    positives, negatives = plan["positives"], plan["negatives"]
    rng = np.random.default_rng(5)
    sims = 3000
    counts = simulate_paired_judges(rng, sims, positives, negatives, a, b, agreement)
    tp_a, tp_b, pos_cells = counts["pos"]
    tn_a, tn_b, neg_cells = counts["neg"]
    if agreement is None:
        # Independent errors: the two J estimates are uncorrelated, so the MOVER difference
        # of the intervals the informedness module returns (Wilson / MOVER) is valid.
        def j_interval(tp, tn):
            confusion = np.stack([np.stack([tn, negatives - tn], -1), np.stack([positives - tp, tp], -1)], -2)
            interval = informedness_metric.informedness_interval(confusion, confidence_level=LEVEL, method="wilson")
            return tp / positives + tn / negatives - 1, interval.low, interval.high

        j_a, low_a, high_a = j_interval(tp_a, tn_a)
        j_b, low_b, high_b = j_interval(tp_b, tn_b)
        difference = j_b - j_a
        lower = difference - np.sqrt((j_b - low_b) ** 2 + (high_a - j_a) ** 2)
        upper = difference + np.sqrt((high_b - j_b) ** 2 + (j_a - low_a) ** 2)
        rejected = (lower > 0) | (upper < 0)
    else:
        # Paired z test with the discordant counts (McNemar-type variance).
        def paired_variance(cells, size):
            only_a, only_b = cells[:, 1] / size, cells[:, 2] / size
            return (only_a + only_b - (only_b - only_a) ** 2) / size

        difference = (tp_b - tp_a) / positives + (tn_b - tn_a) / negatives
        se = np.sqrt(paired_variance(pos_cells, positives) + paired_variance(neg_cells, negatives))
        rejected = np.abs(difference) / se > distributions.z_value(1 - 0.05)
    power = rejected.mean()
    assert 0.75 <= power <= 0.86, power


def test_judge_comparison_plan_validates_agreement_and_rates():
    with pytest.raises(ValueError):  # rates differ by 0.05 but the judges disagree on only 1%
        planning.plan_judge_comparison(0.1, tpr=0.8, tnr=0.9, prevalence=0.3, agreement=0.99)
    with pytest.raises(ValueError):  # judge B would have TPR 1.1
        planning.plan_judge_comparison(0.3, tpr=0.95, tnr=0.9, prevalence=0.3)
    plan = planning.plan_judge_comparison(0.1, tpr=(0.9, 0.9), tnr=(0.8, 0.9), prevalence=0.3)
    assert plan["judge_b"]["j"] - plan["judge_a"]["j"] == pytest.approx(0.1)
    # More agreement, fewer items.
    sizes = [planning.plan_judge_comparison(0.1, tpr=0.8, tnr=0.9, prevalence=0.3, agreement=x)["total"] for x in (0.86, 0.9, 0.94)]
    assert sizes[0] > sizes[1] > sizes[2]


def test_plan_command_prints_the_plan(capsys):
    import plan_golden_set

    plan = plan_golden_set.main(["width", "--half-width", "0.04", "--tpr", "0.8", "--tnr", "0.9", "--prevalence", "0.25"])
    assert plan == planning.plan_golden_set(0.04, tpr=0.8, tnr=0.9, prevalence=0.25)
    assert f"{plan['total']:,}" in capsys.readouterr().out
    plan = plan_golden_set.main(["compare", "--delta-j", "0.1", "--tpr", "0.8,0.9", "--tnr", "0.9", "--prevalence", "0.3"])
    assert plan["judge_b"]["tpr"] == 0.9 and plan["judge_b"]["tnr"] == 0.9


# ---------------------------------------------------------------- Lee et al. (2025): the binary default interval

# Published values of the reference implementation: the R port jansim/LLM-judge-repoRting
# (tests/testthat/fixtures/confidence_interval.csv), generated from the Python package
# llm_judge_reporting at commit 082884d with
# confidence_interval(p, q0, q1, n, m0, m1, alpha); row 1 is the README's example, whose
# printed interval is (0.0564, 0.2627).
LEE_PUBLISHED = [
    # p, q0, q1, n, m0, m1, alpha, lower, upper
    (0.4, 0.7, 0.9, 1000, 200, 200, 0.05, 0.05635072484160894, 0.2627330257859588),
    (0.5, 0.8, 0.8, 500, 100, 100, 0.05, 0.3799746588561528, 0.6200253411438469),
    (0.62, 0.85, 0.93, 2000, 150, 350, 0.05, 0.5544774781496563, 0.6456327845409667),
    (0.1, 0.95, 0.6, 300, 50, 80, 0.1, 0.0, 0.17813731660303905),
    (0.9, 0.6, 0.99, 10000, 1000, 1000, 0.01, 0.8273348478706124, 0.8686713102464316),
    (0.05, 0.9, 0.9, 1000, 200, 200, 0.05, 0.0, 0.0),
    (0.97, 0.9, 0.9, 1000, 200, 200, 0.05, 1.0, 1.0),
    (0.3333, 0.777, 0.888, 123, 45, 67, 0.2, 0.012521172499902977, 0.2816724189695818),
    (0.0, 1.0, 1.0, 50, 10, 10, 0.05, 0.0, 0.09568563633822108),
    (1.0, 1.0, 1.0, 50, 10, 10, 0.05, 0.9043143636617791, 1.0),
    (0.4, 0.7, 0.9, 1000, 1, 1, 0.05, 0.0, 1.0),
    (0.55, 0.75, 0.85, 1, 30, 40, 0.5, 0.0, 0.9666883803310964),
]


def lee_by_hand(p, q0, q1, n, m0, m1, alpha, restricted=False):
    """Lee et al.'s adjusted interval written out from its definition (SciPy's normal quantile).

    ``restricted``: where the middle ``m = theta + bias`` lies outside [0, 1], the likelihood-ratio
    interval of a normal mean restricted to [0, 1] instead of clipping: the ``mu >= 0`` with
    ``(mu - m)^2 - (0 - m)^2 <= (z se)^2`` (m < 0), mirrored above 1."""
    from scipy.stats import norm  # scikit-learn depends on SciPy: always installed with the test requirements

    z = norm.ppf(1 - alpha / 2)
    share, size = (n * p + z**2 / 2) / (n + z**2), n + z**2
    spec, spec_size = (m0 * q0 + 1) / (m0 + 2), m0 + 2
    sens, sens_size = (m1 * q1 + 1) / (m1 + 2), m1 + 2
    theta = (share + spec - 1) / (spec + sens - 1)
    bias = 2 * z**2 * (theta * sens * (1 - sens) / sens_size - (1 - theta) * spec * (1 - spec) / spec_size)
    variance = share * (1 - share) / size + (1 - theta) ** 2 * spec * (1 - spec) / spec_size + theta**2 * sens * (1 - sens) / sens_size
    se = math.sqrt(variance) / abs(spec + sens - 1)
    middle, half = theta + bias, z * se
    if restricted and middle < 0:  # (mu - m)^2 <= m^2 + half^2, solved for the largest mu
        return 0.0, min(1.0, middle + math.sqrt(middle**2 + half**2))
    if restricted and middle > 1:
        return max(0.0, middle - math.sqrt((middle - 1) ** 2 + half**2)), 1.0
    return min(1.0, max(0.0, middle - half)), min(1.0, max(0.0, middle + half))


def lee_counts(p, q0, q1, n, m0, m1):
    """Golden confusion and unlabeled counts giving those shares (rows: negatives, positives)."""
    return [[q0 * m0, (1 - q0) * m0], [(1 - q1) * m1, q1 * m1]], [(1 - p) * n, p * n]


@pytest.mark.parametrize("row", LEE_PUBLISHED)
def test_lee_interval_equals_the_published_values_and_an_independent_implementation(row):
    *inputs, alpha, lower, upper = row
    confusion, unlabeled = lee_counts(*inputs)
    # Their reference code's interval (clipped to [0, 1]): restricted=False.
    low, high, flipped = prevalence_arrays.lee_interval_arrays(confusion, unlabeled, 1 - alpha, restricted=False)
    assert not flipped
    assert [float(low), float(high)] == pytest.approx([lower, upper], abs=1e-12)
    assert [float(low), float(high)] == pytest.approx(lee_by_hand(*inputs, alpha), abs=1e-12)
    # The interval given: the same where the middle lies in [0, 1]; the restricted bound where not
    # (rows 5 and 6, [0, 0] and [1, 1] in the reference code, now have width).
    low, high, flipped = prevalence_arrays.lee_interval_arrays(confusion, unlabeled, 1 - alpha)
    expected = lee_by_hand(*inputs, alpha, restricted=True)
    assert [float(low), float(high)] == pytest.approx(expected, abs=1e-12)
    assert float(high) - float(low) > 0.01
    assert float(low) <= lower + 1e-12 and float(high) >= upper - 1e-12  # never narrower than the clipped one


def test_lee_interval_on_random_counts_equals_the_independent_implementation():
    rng = np.random.default_rng(21)
    negatives, positives = rng.integers(1, 400, 300), rng.integers(1, 400, 300)
    tn, tp = rng.binomial(negatives, 0.8), rng.binomial(positives, 0.75)
    total = rng.integers(1, 5000, 300)
    flagged = rng.binomial(total, 0.4)
    confusion = np.stack([np.stack([tn, negatives - tn], -1), np.stack([positives - tp, tp], -1)], -2)
    level = 0.9
    checked = 0
    for restricted in (False, True):
        low, high, flipped = prevalence_arrays.lee_interval_arrays(confusion, np.stack([total - flagged, flagged], -1), level,
                                                                   restricted=restricted)
        for index in np.flatnonzero(~flipped):
            expected = lee_by_hand(flagged[index] / total[index], tn[index] / negatives[index], tp[index] / positives[index],
                                   total[index], negatives[index], positives[index], 1 - level, restricted=restricted)
            assert [low[index], high[index]] == pytest.approx(expected, abs=1e-12)
            checked += 1
    assert checked > 500


def test_lee_is_the_binary_default_on_golden_labels_giving_the_readme_shares():
    # The README example as labels: 200 golden negatives (140 judged negative: q0 = 0.7),
    # 200 golden positives (180 judged positive: q1 = 0.9), 400 of 1,000 new items flagged.
    confusion = binary_confusion(180, 200, 60, 200)
    result = prevalence.corrected_prevalence(confusion, [600, 400], confidence_level=0.95)
    assert result["method"] == "lee" and result["interval_reason"] is None
    assert result["estimate"] == pytest.approx((0.4 + 0.7 - 1) / (0.7 + 0.9 - 1), abs=1e-12)  # their point_estimator
    assert result["interval"] == pytest.approx([0.05635072484160894, 0.2627330257859588], abs=1e-12)
    # The bootstrap on request; the two agree roughly here.
    boot = prevalence.corrected_prevalence(confusion, [600, 400], confidence_level=0.95, method="bootstrap", seed=0)
    assert boot["interval"] == pytest.approx(result["interval"], abs=0.02)


def test_lee_refuses_an_interval_whose_smoothing_flips_the_sign_of_j():
    # One golden positive, judged positive (TPR 1); FPR 0.7 on 100 negatives: J = 0.3, but the
    # pseudo-counts make TPR 2/3 and FPR 71/102: J~ < 0.
    with pytest.warns(UserWarning, match="does not tell this judge from a guesser"):
        result = prevalence.corrected_prevalence(binary_confusion(1, 1, 70, 100), [200, 800], confidence_level=LEVEL, method="lee")
    assert result["reason"] is None and not math.isnan(result["estimate"])
    assert result["interval_reason"] == "too_few_golden_items" and all(math.isnan(x) for x in result["interval"])


def test_lee_warns_when_the_golden_set_cannot_tell_the_judge_from_a_guesser():
    with pytest.warns(UserWarning, match="does not tell this judge from a guesser"):
        prevalence.corrected_prevalence(binary_confusion(5, 8, 10, 30), [700, 300], confidence_level=LEVEL, method="lee")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prevalence.corrected_prevalence(binary_confusion(80, 100, 10, 100), [700, 300], confidence_level=LEVEL)


def test_lee_holds_where_the_smoothed_j_is_four_and_a_half_of_its_standard_errors_from_zero():
    """``lee_holds`` against the rule written out (4.5 standard errors): Lee's pseudo-counts (one success and one
    failure per rate), J~ = q0~ + q1~ - 1, se = sqrt(sum q~(1 - q~) / (m + 2))."""
    rng = np.random.default_rng(3)
    checked = {True: 0, False: 0}
    for _ in range(400):
        negatives, positives = int(rng.integers(1, 300)), int(rng.integers(1, 40))
        tn, tp = int(rng.integers(0, negatives + 1)), int(rng.integers(0, positives + 1))
        confusion = binary_confusion(tp, positives, negatives - tn, negatives)
        q0, q1 = (tn + 1) / (negatives + 2), (tp + 1) / (positives + 2)
        spread = math.sqrt(q0 * (1 - q0) / (negatives + 2) + q1 * (1 - q1) / (positives + 2))
        expected = abs(q0 + q1 - 1) >= 4.5 * spread
        assert bool(prevalence_arrays.lee_holds(confusion)) == expected
        checked[expected] += 1
    assert min(checked.values()) > 50


def test_the_binary_default_is_the_bootstrap_where_lee_does_not_hold():
    """A weak judge (TPR 3/5, FPR 29/95) on a golden set of 5 positives: Lee's interval would
    linearise 1/J where J is within a standard error of 0; the default gives the smoothed
    bootstrap there, exactly as asked for by name, and says so."""
    confusion, unlabeled = binary_confusion(3, 5, 29, 95), [600, 400]
    assert not bool(prevalence_arrays.lee_holds(confusion))
    default = prevalence.corrected_prevalence(confusion, unlabeled, confidence_level=LEVEL, seed=4)
    boot = prevalence.corrected_prevalence(confusion, unlabeled, confidence_level=LEVEL, seed=4, method="bootstrap")
    assert default["method"] == "bootstrap" and default["interval"] == boot["interval"]
    with pytest.warns(UserWarning, match="does not tell this judge from a guesser"):
        asked = prevalence.corrected_prevalence(confusion, unlabeled, confidence_level=LEVEL, method="lee")
    assert asked["method"] == "lee" and asked["interval"] != default["interval"]


def test_the_binary_default_holds_in_the_weak_judge_corner():
    """Where Lee's interval fell short (J = 0.2, golden prevalence 5%, new data at 50%, golden
    sets of 300): 600 simulated sets, the default covers, Lee alone does not (loose bands:
    the Monte-Carlo error at 600 sets is about 0.01; studies/prevalence_prior_shift/results.md has 5,000)."""
    rng = np.random.default_rng(11)
    rates = np.array([[0.7, 0.3], [0.5, 0.5]])  # FPR 0.3, TPR 0.5
    support = rng.multinomial(300, [0.95, 0.05], size=600)
    confusion = rng.multinomial(support, rates).astype(float)
    unlabeled = rng.multinomial(5000, np.array([0.5, 0.5]) @ rates, size=600).astype(float)
    lee_low, lee_high, flipped = prevalence_arrays.lee_interval_arrays(confusion, unlabeled, LEVEL)
    boot_low, boot_high, _ = prevalence_arrays.bootstrap_prevalence_arrays(confusion, [unlabeled], confidence_level=LEVEL,
                                                                          n_resamples=300, seed=1, min_informedness=0.05)
    # The default: Lee's weight 0 below 4.5 s.e. of its smoothed J, 1 from 6.5, linear between (flipped: 0).
    q0 = (confusion[:, 0, 0] + 1) / (confusion[:, 0].sum(-1) + 2)
    q1 = (confusion[:, 1, 1] + 1) / (confusion[:, 1].sum(-1) + 2)
    strength = np.abs(q0 + q1 - 1) / np.sqrt(q0 * (1 - q0) / (confusion[:, 0].sum(-1) + 2) + q1 * (1 - q1) / (confusion[:, 1].sum(-1) + 2))
    weight = np.where(flipped, 0.0, np.clip((strength - 4.5) / 2.0, 0.0, 1.0))
    low = weight * np.nan_to_num(lee_low) + (1 - weight) * boot_low[:, 1]
    high = weight * np.nan_to_num(lee_high) + (1 - weight) * boot_high[:, 1]
    defined = prevalence_arrays.corrected_prevalence_arrays(confusion, unlabeled, 0.05)["defined"]
    covered = ((low <= 0.5) & (0.5 <= high))[defined].mean()
    lee_covered = ((lee_low <= 0.5) & (0.5 <= lee_high))[defined & ~flipped].mean()
    assert covered >= 0.93 and lee_covered < 0.92


# ---------------------------------------------------------------- the smoothed bootstrap, prior shift


def test_smoothed_bootstrap_moves_a_rate_estimated_at_one():
    """Issue 24's cause: the judge caught every golden positive (TPR 10/10). A multinomial
    resample keeps TPR = 1; the truth (TPR 0.85, FPR 0.1, prevalence 0.5: q = 0.475) needs a
    lower one. The smoothed draws and Lee's pseudo-counts both reach it."""
    confusion, unlabeled = binary_confusion(10, 10, 19, 190), [5250, 4750]
    assert prevalence.corrected_prevalence(confusion, unlabeled)["estimate"] == pytest.approx((0.475 - 0.1) / 0.9, abs=1e-12)
    for method in ("bootstrap", "lee"):
        low, high = prevalence.corrected_prevalence(confusion, unlabeled, confidence_level=LEVEL, method=method, seed=0)["interval"]
        assert low < 0.5 < high, method
    # What a multinomial resample of the counts does: TPR stays 1 in every replicate.
    rng = np.random.default_rng(0)
    resampled_tpr = rng.multinomial(10, [0.0, 1.0], size=1000)[:, 1] / 10
    assert (resampled_tpr == 1).all()


def coverage_under_shift(rng, sets, golden_size, golden_prior, unlabeled_size, unlabeled_prior, rates, methods, resamples=400):
    golden_prior, unlabeled_prior, rates = np.asarray(golden_prior), np.asarray(unlabeled_prior), np.asarray(rates)
    support = rng.multinomial(golden_size, golden_prior, size=sets)
    confusion = rng.multinomial(support, rates)
    unlabeled = rng.multinomial(unlabeled_size, unlabeled_prior @ rates, size=sets)
    defined = prevalence.corrected_prevalence_arrays(confusion, unlabeled)["defined"]
    found = {}
    for method in methods:
        if method == "lee":
            low, high, flipped = prevalence_arrays.lee_interval_arrays(confusion, unlabeled, LEVEL)
            low, high = np.stack([1 - high, low], -1), np.stack([1 - low, high], -1)
            use = defined & ~flipped
        else:
            low, high, _ = prevalence.bootstrap_prevalence_arrays(
                confusion, [unlabeled], confidence_level=LEVEL, n_resamples=resamples, seed=1, min_informedness=0.05)
            use = defined
        found[method] = ((low <= unlabeled_prior) & (unlabeled_prior <= high))[use].mean(axis=0)
    return found


def test_prior_shift_coverage_of_the_issue_reproducer():
    """Issue 24: golden n = 200 at prevalence 0.05, new data at 0.5, judge TPR 0.85, FPR 0.10:
    the multinomial bootstrap covered 0.779. 400 sets: 2 SE is about 0.022."""
    rng = np.random.default_rng(24)
    found = coverage_under_shift(rng, 400, 200, [0.95, 0.05], 5000, [0.5, 0.5], [[0.9, 0.1], [0.15, 0.85]], ("lee", "bootstrap"))
    for method, coverage in found.items():
        assert coverage[1] >= 0.92, (method, coverage)


def test_three_class_prior_shift_with_a_three_percent_golden_class_covers_per_class():
    rng = np.random.default_rng(3)
    rates = [[0.85, 0.10, 0.05], [0.15, 0.75, 0.10], [0.10, 0.20, 0.70]]
    found = coverage_under_shift(rng, 300, 1000, [0.6, 0.37, 0.03], 5000, [0.2, 0.3, 0.5], rates, ("bootstrap",))
    assert np.all(found["bootstrap"] >= 0.91), found


# ---------------------------------------------------------------- PPI++ against ppi-python


def ppi_peer(references, predictions, unlabeled, num_classes, level):
    """ppi-python on the one-vs-rest indicators of each class (the power-tuned lambda)."""
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

    estimates, intervals_found = [], []
    for c in range(num_classes):
        y, yhat, yhat_unlabeled = (np.asarray(a) == c for a in (references, predictions, unlabeled))
        y, yhat, yhat_unlabeled = y.astype(float), yhat.astype(float), yhat_unlabeled.astype(float)
        estimates.append(float(np.squeeze(ppi_mean_pointestimate(y, yhat, yhat_unlabeled))))
        low, high = ppi_mean_ci(y, yhat, yhat_unlabeled, alpha=1 - level)
        intervals_found.append([float(np.squeeze(low)), float(np.squeeze(high))])
    return np.array(estimates), np.array(intervals_found)


@pytest.mark.parametrize("num_classes", [2, 3, 4])
def test_ppi_equals_ppi_python_to_1e_9(num_classes):
    rng = np.random.default_rng(num_classes)
    compared = 0
    for _ in range(40):
        prior = rng.dirichlet(np.ones(num_classes) * 2)
        golden, new = int(rng.integers(10, 400)), int(rng.integers(10, 3000))
        references = rng.choice(num_classes, golden, p=prior)
        truth = rng.choice(num_classes, new, p=prior)
        noise = lambda labels: np.where(rng.random(labels.size) < 0.7, labels, rng.integers(0, num_classes, labels.size))  # noqa: E731
        predictions, unlabeled = noise(references), noise(truth)
        confusion = np.zeros((num_classes, num_classes), dtype=np.int64)
        np.add.at(confusion, (references, predictions), 1)
        counts = np.bincount(unlabeled, minlength=num_classes)
        found = prevalence_ppi.ppi_prevalence_arrays(confusion, counts, 0.9)
        estimate, interval = ppi_peer(references, predictions, unlabeled, num_classes, 0.9)
        assert found["estimate"] == pytest.approx(estimate, abs=1e-9)
        assert np.stack([found["low"], found["high"]], -1) == pytest.approx(interval, abs=1e-9)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # a small class can look label-swapped by chance
            result = prevalence.ppi_prevalence(confusion, counts, confidence_level=0.9)
        if result["reason"] is None:
            expected = np.clip(estimate, 0, 1)
            shown = [result["estimate"]] if num_classes == 2 else result["estimate"]
            assert shown == pytest.approx((expected[1:] if num_classes == 2 else expected).tolist(), abs=1e-9)
            intervals_shown = np.array([result["interval"]] if num_classes == 2 else result["interval"])
            # No interval for a class with fewer than 30 golden items in it or outside it.
            support = confusion.sum(axis=1)
            few = np.minimum(support, support.sum() - support) < prevalence_ppi.MIN_GOLDEN_ITEMS_PER_CLASS
            expected_interval = np.where(few[:, None], np.nan, np.clip(interval, 0, 1))
            assert intervals_shown == pytest.approx(expected_interval[1:] if num_classes == 2 else expected_interval,
                                                    abs=1e-9, nan_ok=True)
            assert (result["interval_reason"] == "too_few_golden_items_for_ppi") == bool(few[1] if num_classes == 2 else few.any())
            compared += 1
    assert compared >= 30


def test_ppi_gives_no_interval_below_thirty_golden_items_of_a_class():
    """Measured (studies/prevalence_prior_shift/results.md): 0.84-0.89 coverage with 3-5 golden items of the
    class, 0.92-0.93 with 9-15, 0.942-0.964 from 30. 29 golden positives: no interval; 30: one."""
    for positives, given in ((29, False), (30, True)):
        confusion = binary_confusion(int(0.8 * positives), positives, 20, 200)
        result = prevalence.ppi_prevalence(confusion, [810, 190], confidence_level=LEVEL)  # judged shares alike
        assert result["reason"] is None and not math.isnan(result["estimate"])
        assert all(math.isnan(x) for x in result["interval"]) != given
        assert result["interval_reason"] == (None if given else "too_few_golden_items_for_ppi")
    # 3 classes: only the rare class loses its interval.
    confusion = np.array([[90, 8, 2], [6, 80, 4], [1, 2, 7]])
    result = prevalence.ppi_prevalence(confusion, [485, 450, 65], confidence_level=LEVEL)
    assert [math.isnan(low) for low, _ in result["interval"]] == [False, False, True]
    assert result["interval_reason"] == "too_few_golden_items_for_ppi"


def test_ppi_refuses_where_the_golden_set_cannot_be_a_sample_of_the_new_data():
    # The judge flags 5% of the golden set and 48% of the new data.
    result = prevalence.ppi_prevalence([[180, 10], [2, 8]], [5200, 4800], confidence_level=LEVEL)
    assert result["reason"] == "golden_set_unlike_unlabeled_data" and result["sampling_p_value"] < 1e-6
    assert math.isnan(result["estimate"]) and all(math.isnan(x) for x in result["interval"])
    assert prevalence.ppi_prevalence([[1, 0], [0, 0]], [5, 5])["reason"] == "too_few_golden_items"
    assert prevalence.ppi_prevalence([[40, 10], [5, 45]], [0, 0])["reason"] == "no_unlabeled_predictions"
    # A judge no better than chance is fine for PPI (the weight goes to 0: the golden share).
    result = prevalence.ppi_prevalence([[25, 25], [25, 25]], [500, 500], confidence_level=LEVEL)
    assert result["reason"] is None and result["lam"] == 0.0 and result["estimate"] == 0.5


def test_ppi_sampling_test_is_pearsons_chi_square():
    from scipy.stats import chi2_contingency

    table = np.array([[30, 50, 20], [350, 480, 170]])
    confusion = np.array([[20, 5, 3], [6, 40, 4], [4, 5, 13]])  # column sums 30, 50, 20
    expected = chi2_contingency(table, correction=False)[1]
    assert float(prevalence_ppi.ppi_prevalence_arrays(confusion, table[1])["sampling_p_value"]) == pytest.approx(expected, rel=1e-9)


# ---------------------------------------------------------------- planning the golden set for the corrected prevalence

# The reference allocate_calibration_sample's published outputs (same fixture source as
# LEE_PUBLISHED: allocate_calibration_sample.csv): m, p, q0_pilot, q1_pilot, m_pilot, m0, m1.
ALLOCATION_PUBLISHED = [
    (200, 0.4, 0.7, 0.9, 10, 136, 64),
    (200, 0.4, 0.9, 0.9, 0, 120, 80),
    (100, 0.5, 0.8, 0.8, 5, 50, 50),
    (1000, 0.1, 0.95, 0.6, 50, 786, 214),
    (1000, 0.9, 0.6, 0.99, 50, 294, 706),
    (500, 1e-07, 0.9, 0.9, 0, 0, 500),  # q < 1e-6: the reference's branch (see below)
    (50, 0.3, 0.7, 1.0, 0, 50, 0),
    (50, 1.0, 0.7, 0.8, 5, 5, 45),
    (300, 0.62, 0.85, 0.93, 0, 142, 158),
    (20, 0.02, 0.5, 0.99, 8, 12, 8),
    (7, 0.5, 0.6, 0.6, 1, 3, 4),
    (5, 0.5, 0.6, 0.6, 1, 3, 2),
]


@pytest.mark.parametrize("row", ALLOCATION_PUBLISHED)
def test_golden_budget_allocation_equals_the_reference(row):
    budget, share, tnr, tpr, pilot, negatives, positives = row
    plan = planning.allocate_golden_budget(budget, measured_prevalence=share, tnr=tnr, tpr=tpr, pilot=pilot)
    if share < 1e-6:
        # The reference gives all but the pilot to the positives; its formula's limit as q -> 0 is
        # the opposite (m1 = m / (1 + (1/q - 1) sqrt(kappa)) -> 0), which the planner follows.
        assert (plan["negatives"], plan["positives"]) == (budget - pilot, pilot)
    else:
        assert (plan["negatives"], plan["positives"]) == (negatives, positives)


def test_lee_allocation_narrows_the_expected_interval_and_the_planner_command_prints_it(capsys):
    import plan_golden_set

    plan = plan_golden_set.main(["allocate", "--budget", "200", "--measured", "0.4", "--tnr", "0.7", "--tpr", "0.9",
                                 "--pilot", "10", "--unlabeled", "1000"])
    assert (plan["negatives"], plan["positives"]) == (136, 64)
    assert plan["expected_half_width"] < plan["equal_split_half_width"]
    assert "136" in capsys.readouterr().out
    # The expected half-widths are Lee's interval at the expected counts, written out by hand.
    expected = lee_by_hand(0.4, 0.7, 0.9, 1000, 136, 64, 0.05)
    assert plan["expected_half_width"] == pytest.approx((expected[1] - expected[0]) / 2, abs=1e-12)


@pytest.mark.parametrize("tpr, tnr, prevalence_value, effective, cost", [
    (0.8, 0.9, 0.2, 2000, 0.01), (0.95, 0.9, 0.5, 500, 0.05), (0.6, 0.7, 0.1, 800, 0.001), (0.99, 0.99, 0.3, 3000, 0.1)])
def test_ppi_golden_size_matches_ppi_python_power_analysis(tpr, tnr, prevalence_value, effective, cost):
    """ppi-python's cheapest (n, N) for an effective sample size; with its N our planner needs its n."""
    from ppi_py import ppi_power

    correlation = planning.ppi_correlation(tpr, tnr, prevalence_value)
    peer = ppi_power(correlation, cost_X=0, cost_Y=1.0, cost_Yhat=cost, effective_n=effective)
    half_width = distributions.z_value(LEVEL) * math.sqrt(prevalence_value * (1 - prevalence_value) / effective)
    plan = planning.plan_ppi_golden_set(half_width, tpr=tpr, tnr=tnr, prevalence=prevalence_value, unlabeled_size=peer["N"])
    assert abs(plan["golden"] - peer["n"]) <= 1  # both round a real size
    assert plan["expected_half_width"] <= half_width * (1 + 1e-9)


def test_ppi_correlation_equals_ppi_python_on_a_pilot():
    from ppi_py import ppi_mean_power

    references = np.r_[np.ones(50), np.zeros(150)]  # prevalence 0.25
    judged = np.r_[np.ones(40), np.zeros(10), np.ones(15), np.zeros(135)]  # TPR 0.8, TNR 0.9
    peer = ppi_mean_power(references, judged, cost_Y=1.0, cost_Yhat=0.01, effective_n=1000)["ppi_corr"]
    assert planning.ppi_correlation(0.8, 0.9, 0.25) == pytest.approx(peer, abs=1e-12)


def test_ppi_plan_holds_by_simulation():
    """Golden samples of the planned size: PPI++ half-widths centre on the target."""
    plan = planning.plan_ppi_golden_set(0.03, tpr=0.8, tnr=0.9, prevalence=0.2, unlabeled_size=20_000)
    rng = np.random.default_rng(8)
    rates = np.array([[0.9, 0.1], [0.2, 0.8]])
    support = rng.multinomial(plan["golden"], [0.8, 0.2], size=2000)
    confusion = rng.multinomial(support, rates)
    unlabeled = rng.multinomial(20_000, np.array([0.8, 0.2]) @ rates, size=2000)
    found = prevalence_ppi.ppi_prevalence_arrays(confusion, unlabeled, LEVEL)
    half = (found["high"][:, 1] - found["low"][:, 1]) / 2
    assert np.median(half) == pytest.approx(0.03, rel=0.05)


# ---------------------------------------------------------------- issue 31, part 5: no certainty the data do not give


def smoothed_replicates_by_hand(confusion, unlabeled, level, draws=40_000, seed=99):
    """The smoothed bootstrap's unclipped replicates written out: TPR ~ Beta(TP + 1, FN + 1),
    FPR ~ Beta(FP + 1, TN + 1), the flagged share ~ Beta(x + 1, N - x + 1), Rogan-Gladen on each
    draw. Returns their median (draws with |J| <= 0.05 left out) and their upper percentile
    (those at +infinity: they could be anything)."""
    (tn, fp), (fn, tp) = confusion
    rng = np.random.default_rng(seed)
    tpr, fpr = rng.beta(tp + 1, fn + 1, draws), rng.beta(fp + 1, tn + 1, draws)
    share = rng.beta(unlabeled[1] + 1, unlabeled[0] + 1, draws)
    informedness = tpr - fpr
    defined = np.abs(informedness) > 0.05
    raw = (share - fpr) / np.where(defined, informedness, 1.0)
    return float(np.median(raw[defined])), float(np.quantile(np.where(defined, raw, np.inf), 1 - (1 - level) / 2))


def restricted_upper_by_hand(centre, upper):
    """The largest mu >= 0 with (mu - m)^2 - m^2 <= (b - m)^2, m < 0 the centre, b the upper end."""
    return centre + math.sqrt(centre**2 + max(upper - centre, 0.0) ** 2)


def test_review_reproducer_a_clipped_estimate_has_an_interval_of_positive_width():
    """The review: 180 golden negatives (38 flagged), 20 positives (13 flagged), 300 of 2,000 new
    items flagged. q = 0.15 < FPR = 0.211: Rogan-Gladen is -0.139, clipped to 0, and the
    bootstrap's clipped replicates were all 0: the interval was [0.0, 0.0]. Now [0, U] with U
    the restricted bound from the unclipped replicates' median m and upper percentile b (computed
    here by hand): m + sqrt(m^2 + (b - m)^2), above b and above 0."""
    confusion, unlabeled = binary_confusion(13, 20, 38, 180), [1700, 300]
    result = prevalence.corrected_prevalence(confusion, unlabeled, confidence_level=LEVEL, seed=0)
    assert result["estimate"] == 0.0 and result["clipped"] and result["method"] == "bootstrap"
    low, high = result["interval"]
    m, b = smoothed_replicates_by_hand(confusion, unlabeled, LEVEL)
    assert m < b < 0  # the unclipped upper percentile itself is below 0: clipping alone gives [0, 0]
    assert low == 0.0 and high == pytest.approx(restricted_upper_by_hand(m, b), abs=0.004)
    assert high > 0.03
    # The former interval, for the record: zero width.
    old_low, old_high, _ = prevalence_arrays.bootstrap_prevalence_arrays(
        confusion, [unlabeled], confidence_level=LEVEL, n_resamples=10_000, seed=0, min_informedness=0.05, restricted=False)
    assert float(old_high[1]) - float(old_low[1]) == 0.0
    # Lee's interval (asked for by name) is restricted alike: its middle m is below 0 too.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lee = prevalence.corrected_prevalence(confusion, unlabeled, confidence_level=LEVEL, method="lee")
    expected = lee_by_hand(0.15, 142 / 180, 13 / 20, 2000, 180, 20, 1 - LEVEL, restricted=True)
    assert lee["interval"] == pytest.approx(list(expected), abs=1e-12) and expected[0] == 0.0 and expected[1] > 0.03


def test_no_zero_width_interval_from_any_method_where_the_estimate_is_clipped():
    """Golden sets where most estimates clip at 0 (a near-perfect judge, 2 golden positives, new
    data without positives): every method gives width; the bootstrap's upper end is the
    restricted bound from its unclipped replicates (by hand) and never below the clipped
    percentile, Lee's never below the reference code's."""
    rng = np.random.default_rng(5)
    fp, tp = rng.binomial(28, 0.02, 200), rng.binomial(2, 0.95, 200)
    flagged = rng.binomial(1000, 0.02, 200)
    confusion = np.stack([np.stack([28 - fp, fp], -1), np.stack([2 - tp, tp], -1)], -2).astype(float)
    unlabeled = np.stack([1000 - flagged, flagged], -1).astype(float)
    point = prevalence_arrays.corrected_prevalence_arrays(confusion, unlabeled)
    clipped = point["clipped"] & point["defined"]
    assert clipped.sum() > 50
    low, high, _ = prevalence_arrays.bootstrap_prevalence_arrays(confusion, [unlabeled], confidence_level=LEVEL, n_resamples=2000,
                                                                 seed=0, min_informedness=0.05)
    assert np.all(high[clipped, 1] - low[clipped, 1] > 0) and np.all(low[clipped, 1] == 0)
    old_low, old_high, _ = prevalence_arrays.bootstrap_prevalence_arrays(
        confusion, [unlabeled], confidence_level=LEVEL, n_resamples=2000, seed=0, min_informedness=0.05, restricted=False)
    assert np.any(old_high[clipped, 1] == 0)  # the former interval was [0, 0] in some of them
    assert np.all(high[:, 1] >= old_high[:, 1] - 1e-12)
    for index in np.flatnonzero(clipped)[:5]:
        m, b = smoothed_replicates_by_hand(confusion[index].astype(int).tolist(), unlabeled[index], LEVEL, draws=20_000)
        assert m < 0 and high[index, 1] == pytest.approx(min(1.0, restricted_upper_by_hand(m, b)), abs=0.01)
    lee_low, lee_high, flipped = prevalence_arrays.lee_interval_arrays(confusion, unlabeled, LEVEL)
    ref_low, ref_high, _ = prevalence_arrays.lee_interval_arrays(confusion, unlabeled, LEVEL, restricted=False)
    given = clipped & ~flipped
    assert np.all(lee_high[given] > 0) and np.all(lee_high[given] >= ref_high[given] - 1e-12)


def test_a_clipped_difference_has_an_interval_of_positive_width():
    """corrected_prevalence_difference follows the same rule at its bounds [-1, 1]: J = 0.3
    (TPR 0.5, FPR 0.2), the judge flags 70% of A and 10% of B: (0.7 - 0.1) / 0.3 = 2, clipped
    to 1; the clipped replicates were all 1 ([1, 1]); now the lower end is the restricted bound
    from the unclipped replicates' median and lower percentile (by hand: Beta draws as above,
    twice for the shares)."""
    confusion, first, second = binary_confusion(50, 100, 20, 100), [300, 700], [900, 100]
    result = prevalence.corrected_prevalence_difference(confusion, first, second, confidence_level=LEVEL, seed=0)
    assert result["estimate"] == 1.0 and result["clipped"]
    low, high = result["interval"]
    rng = np.random.default_rng(7)
    tpr, fpr = rng.beta(51, 51, 40_000), rng.beta(21, 81, 40_000)
    delta = (rng.beta(701, 301, 40_000) - rng.beta(101, 901, 40_000)) / (tpr - fpr)
    defined = np.abs(tpr - fpr) > 0.05
    a = float(np.quantile(np.where(defined, delta, -np.inf), (1 - LEVEL) / 2))
    m = float(np.median(delta[defined]))
    assert m > 1 and high == 1.0 and low == pytest.approx(m - math.hypot(m - 1, m - a), abs=0.01) and low < 0.95
    old = prevalence_arrays.bootstrap_prevalence_arrays(confusion, [first, second], confidence_level=LEVEL, n_resamples=10_000,
                                                        seed=0, min_informedness=0.05, difference=True, restricted=False)
    assert float(old[0][1]) == float(old[1][1]) == 1.0  # the former interval: [1, 1]


def review_switch_example(fp):
    """The review's switch example: 36 golden negatives (fp flagged), 4 positives (all caught),
    235 of 5,000 new items flagged."""
    return binary_confusion(4, 4, fp, 36), [4765, 235]


def test_the_default_moves_continuously_across_lees_threshold():
    """FP = 3 puts Lee's smoothed J at 4.55 s.e. (by hand: 0.728 / 0.160), FP = 4 at 4.34: the
    former hard switch at 4.5 gave Lee's [0, 0.034] and the bootstrap's [0, 0.0034], ten times
    narrower for a worse judge. The default now blends, Lee's weight (s - 4.5) / 2 written out
    here, and its upper end moves by less than 1.5 times per golden item over FP = 0..12 (J~
    from 5.2 to 2.9 s.e.; the bootstrap alone moves by up to 1.35 there); the two sides of the
    threshold differ by less than 1.2 times."""
    highs = []
    for fp in range(13):
        confusion, unlabeled = review_switch_example(fp)
        q0, q1 = (36 - fp + 1) / 38, 5 / 6
        strength = (q0 + q1 - 1) / math.sqrt(q0 * (1 - q0) / 38 + q1 * (1 - q1) / 6)
        weight = min(1.0, max(0.0, (strength - 4.5) / 2.0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = prevalence.corrected_prevalence(confusion, unlabeled, confidence_level=LEVEL, seed=0)
            lee = prevalence.corrected_prevalence(confusion, unlabeled, confidence_level=LEVEL, method="lee")
        boot = prevalence.corrected_prevalence(confusion, unlabeled, confidence_level=LEVEL, seed=0, method="bootstrap")
        assert result["lee_weight"] == pytest.approx(weight, abs=1e-12)
        expected = [weight * a + (1 - weight) * b for a, b in zip(lee["interval"], boot["interval"])]
        assert result["interval"] == pytest.approx(expected, abs=1e-12)
        assert result["interval"][0] == 0.0 and result["interval"][1] > 0.02
        highs.append(result["interval"][1])
        if fp == 3:
            assert strength == pytest.approx(4.548, abs=1e-3) and 0 < weight < 1 and result["method"] == "lee_bootstrap"
        if fp == 4:
            assert strength < 4.5 and result["method"] == "bootstrap"
    assert highs[3] / highs[4] < 1.2 and highs[4] / highs[3] < 1.2
    steps = [max(a / b, b / a) for a, b in zip(highs, highs[1:])]
    assert max(steps) < 1.5, steps


def test_the_prevalence_intervals_study_covers_in_a_small_seeded_run():
    """studies/prevalence_intervals/study.py on four of its cells (300 sets, 300 resamples: a
    coverage of 0.95 reads within about +-0.025 at 2 SE): the default covers and never gives
    zero width; the former default gave [0, 0] in the near-perfect judge's p = 0 cell."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("prevalence_intervals_study",
                                                  REPO_ROOT / "studies" / "prevalence_intervals" / "study.py")
    study = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(study)
    results = dict(study.run(300, 300, study.quick_cells()))
    for key, found in results.items():
        for method in ("new_default", "lee", "bootstrap"):
            assert found[method]["zero_width"] == 0.0, (key, method)
        assert found["new_default"]["coverage"] >= 0.91, key
        assert found["new_default"]["refused"] == found["old_default"]["refused"]
    assert results[("near-perfect", (28, 2), 1000, 0.0)]["old_default"]["zero_width"] > 0.0
    text = study.report(list(results.items()), study.method_names(study.BANDS), "command", 300, 300, 1.0)
    assert "| new_default |" in text and "command" in text


def test_three_classes_an_estimate_projected_onto_a_vertex_keeps_width():
    """3 classes, 950 / 50 / 0 of the new items labelled: the unconstrained solution lies outside
    the simplex and projects to (1, 0, 0); the former bootstrap's projected replicates gave
    [1, 1], [0, 0], [0, 0]. Now every class has width, with the bound on the estimate's side."""
    confusion, unlabeled = [[85, 10, 5], [15, 75, 10], [10, 20, 70]], [950, 50, 0]
    result = prevalence.corrected_prevalence(confusion, unlabeled, confidence_level=LEVEL, seed=0)
    raw = np.linalg.solve(np.asarray(confusion, float).T / np.sum(confusion, axis=1), np.array(unlabeled) / 1000)
    assert raw[0] > 1 and raw[1] < 0 and raw[2] < 0 and result["estimate"] == [1.0, 0.0, 0.0]
    (low0, high0), (low1, high1), (low2, high2) = result["interval"]
    assert high0 == 1.0 and 0.9 < low0 < 1.0 and low1 == low2 == 0.0 and high1 > 0.01 and high2 > 0.005
    old_low, old_high, _ = prevalence_arrays.bootstrap_prevalence_arrays(
        confusion, [unlabeled], confidence_level=LEVEL, n_resamples=10_000, seed=0, min_informedness=0.05, restricted=False)
    assert old_low.tolist() == [1.0, 0.0, 0.0] and old_high.tolist() == [1.0, 0.0, 0.0]


def test_nothing_flagged_and_no_golden_false_positive_is_not_certainty():
    """0 of 1,000 new items flagged, 0 of 28 golden negatives flagged, 2 of 2 positives caught: the
    estimate is 0 exactly (not clipped), but the smoothed replicates lie below it (their FPR
    averages 1/30), so their 97.5% percentile was 0.00015, near certainty. The bootstrap's centre
    is their median: the restricted bound by hand, near what 0 flagged of 1,000 allows (about 3.7
    expected at most, over a TPR that 2 golden positives leave as low as 0.3: 0.012)."""
    confusion, unlabeled = binary_confusion(2, 2, 0, 28), [1000, 0]
    result = prevalence.corrected_prevalence(confusion, unlabeled, confidence_level=LEVEL, seed=0)
    assert result["estimate"] == 0.0 and not result["clipped"]
    m, b = smoothed_replicates_by_hand(confusion, unlabeled, LEVEL)
    assert m < 0 < b < 0.001
    low, high = result["interval"]
    assert low == 0.0 and high == pytest.approx(restricted_upper_by_hand(m, b), abs=0.002) and high > 0.005


def test_delta_interval_of_nothing_flagged_and_no_golden_false_positive_has_width():
    """The delta method's plug-in variance is 0 when nothing is flagged on the new data (q = 0)
    and the golden set has no false positive (FPR = 0): it gave [0, 0]. A vector with every
    item in one class now has its variance at its counts plus 0.5 pseudo-items spread over its
    classes (0.25 each here), written out: q~ = 0.25 / 1000.5, FPR~ = 0.25 / 28.5,
    Var = q~(1 - q~) / 1000 + (1 - p)^2 FPR~(1 - FPR~) / 28 with p = 0 and J = 1. Rows not stuck
    keep the textbook variance (test_binary_delta_variance_is_the_textbook_formula)."""
    result = prevalence.corrected_prevalence(binary_confusion(2, 2, 0, 28), [1000, 0], confidence_level=LEVEL, method="delta")
    q, fpr = 0.25 / 1000.5, 0.25 / 28.5
    half = distributions.z_value(LEVEL) * math.sqrt(q * (1 - q) / 1000 + fpr * (1 - fpr) / 28)
    assert result["interval"] == pytest.approx([0.0, half], abs=1e-12) and half > 0.03
    difference = prevalence.corrected_prevalence_difference(binary_confusion(2, 2, 0, 28), [1000, 0], [1000, 0],
                                                            confidence_level=LEVEL, method="delta")
    half = distributions.z_value(LEVEL) * math.sqrt(2 * q * (1 - q) / 1000)  # the difference 0: golden rows weigh 0
    assert difference["interval"] == pytest.approx([-half, half], abs=1e-12) and half > 0
