"""The paired comparison's intervals, each against an implementation written here.

- Newcombe's method 10 as published (phi with its n/2 correction), from the formula of R's
  ``contingencytables::Newcombe_square_and_add_CI_paired_2x2``, with a Wilson interval
  written here too; the uncorrected phi the project used before, likewise.
- The delta method at shares smoothed by one pseudo-item of disagreement per class, with a
  finite-difference gradient of a one-vs-rest informedness written here.
- The smoothed stratified bootstrap, resampled here with a generator of its own.
- A quick check of the edge grid of ``studies/paired_comparison/study.py``: a few hundred golden
  sets on its hardest rows, where the uncorrected variants fail.
"""

import numpy as np
import pytest

from shared.metrics.balanced_accuracy import balanced_accuracy_difference
from shared.metrics.informedness import informedness_difference
from shared.stats import paired_joint
from shared.stats.paired_tests import newcombe_paired_interval
from conftest import load_study

Z = 1.959963984540054  # the 0.975 quantile of the standard normal


def wilson(successes, trials):
    """Wilson's score interval (Wilson 1927), written out."""
    share = successes / trials
    centre = (successes + Z**2 / 2) / (trials + Z**2)
    half = Z / (trials + Z**2) * np.sqrt(successes * (trials - successes) / trials + Z**2 / 4)
    return centre - half, centre + half


def newcombe_10(n11, n12, n21, n22, corrected=True):
    """Newcombe's square-and-add interval for a paired 2 x 2 table, as contingencytables has it
    (``corrected``: psi with the n/2 correction of its numerator; else the plain phi)."""
    total = n11 + n12 + n21 + n22
    p1, p2 = (n11 + n12) / total, (n11 + n21) / total
    l1, u1 = wilson(n11 + n12, total)
    l2, u2 = wilson(n11 + n21, total)
    if min(n11 + n12, n21 + n22, n11 + n21, n12 + n22) == 0:
        psi = 0.0
    else:
        product = (n11 + n12) * (n21 + n22) * (n11 + n21) * (n12 + n22)
        a = n11 * n22 - n12 * n21
        if not corrected:
            psi = a / np.sqrt(product)
        elif a > total / 2:
            psi = (a - total / 2) / np.sqrt(product)
        elif a >= 0:
            psi = 0.0
        else:
            psi = a / np.sqrt(product)
    estimate = p1 - p2
    low = estimate - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * psi * (p1 - l1) * (u2 - p2))
    high = estimate + np.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * psi * (p2 - l2) * (u1 - p1))
    return estimate, low, high


# ---------------------------------------------------------------- Newcombe's method 10


def test_newcombe_is_the_published_method_on_the_example_table():
    """Cavo et al.'s table (59, 6, 16, 80) of Fagerland, Lydersen & Laake (2017, chapter 8):
    published [-0.1186, -0.0046]; the uncorrected phi gave [-0.1174, -0.0059]."""
    _, low, high = newcombe_paired_interval(59, 6, 16, 80)
    _, published_low, published_high = newcombe_10(59, 6, 16, 80)
    _, plain_low, plain_high = newcombe_10(59, 6, 16, 80, corrected=False)
    assert [round(float(low), 4), round(float(high), 4)] == [round(published_low, 4), round(published_high, 4)] == [-0.1186, -0.0046]
    assert [round(plain_low, 4), round(plain_high, 4)] == [-0.1174, -0.0059]
    assert abs(low - published_low) < 1e-12 and abs(high - published_high) < 1e-12


def test_newcombe_matches_the_published_formula_on_random_tables():
    """Hundreds of tables, small and large, with empty margins, 0 <= A <= n/2 and A < 0."""
    rng = np.random.default_rng(22)
    tables = [rng.integers(0, high, 4) for high in (3, 6, 20, 200) for _ in range(150)]
    tables += [np.array(t) for t in ([1, 0, 0, 1], [2, 0, 0, 2], [5, 0, 0, 0], [0, 3, 4, 0], [3, 1, 1, 1], [0, 0, 0, 7])]
    checked = 0
    for n11, n12, n21, n22 in tables:
        if n11 + n12 + n21 + n22 == 0:
            continue
        expected = newcombe_10(float(n11), float(n12), float(n21), float(n22))
        assert np.allclose(newcombe_paired_interval(n11, n12, n21, n22), expected, rtol=0, atol=1e-12), (n11, n12, n21, n22)
        checked += 1
    assert checked > 550


def test_balanced_accuracy_interval_is_newcombe_per_class_combined_by_mover():
    """The modules' documented example (50 unsafe, 950 safe): [0.0242, 0.1419], from the
    published Newcombe interval of each class and Zou & Donner's MOVER, both written here."""
    joint = np.zeros((2, 2, 2))
    joint[1, 1, 1], joint[1, 1, 0], joint[1, 0, 0] = 30, 10, 10  # unsafe: B's 30 finds are A's too
    joint[0, 0, 0], joint[0, 1, 1], joint[0, 1, 0] = 900, 20, 30  # safe: B's 20 flags are A's too
    per_class = [newcombe_10(*(joint[r, a, b] for a, b in ((r, r), (r, 1 - r), (1 - r, r), (1 - r, 1 - r)))) for r in (0, 1)]
    difference = sum(d for d, _, _ in per_class) / 2
    low = difference - np.sqrt(sum(((d - lo) / 2) ** 2 for d, lo, _ in per_class))
    high = difference + np.sqrt(sum(((hi - d) / 2) ** 2 for d, _, hi in per_class))
    result = balanced_accuracy_difference(joint)
    assert result["difference_ci"] == pytest.approx([low, high], abs=1e-12)
    assert [round(low, 4), round(high, 4)] == [0.0242, 0.1419]
    doubled = informedness_difference(joint)["difference_ci"]
    assert [round(x, 4) for x in doubled] == [0.0485, 0.2837] and doubled == pytest.approx([2 * low, 2 * high], abs=1e-12)


@pytest.mark.parametrize("overlap, shown", [("most", [0.0160, 0.1050]), ("least", [-0.0277, 0.1437])])
def test_the_cards_worked_example_is_newcombe_per_class_combined_by_mover(overlap, shown):
    """Collot et al.'s judges A and B (83 unsafe, 917 safe) under the two extreme overlaps the
    cards print: per class (both right, A only, B only, neither), derived by hand from
    A: TP 63, FN 20, TN 784, FP 133 and B: TP 47, FN 36, TN 848, FP 69."""
    splits = {"most": {1: (47, 16, 0, 20), 0: (784, 0, 64, 69)}, "least": {1: (27, 36, 20, 0), 0: (715, 69, 133, 0)}}[overlap]
    per_class = [newcombe_10(*map(float, splits[r])) for r in (0, 1)]
    difference = sum(d for d, _, _ in per_class) / 2
    low = difference - np.sqrt(sum(((d - lo) / 2) ** 2 for d, lo, _ in per_class))
    high = difference + np.sqrt(sum(((hi - d) / 2) ** 2 for d, _, hi in per_class))
    assert [round(low, 4), round(high, 4)] == shown
    joint = np.zeros((2, 2, 2))
    for r, (both, a_only, b_only, neither) in splits.items():
        joint[r, r, r], joint[r, r, 1 - r], joint[r, 1 - r, r], joint[r, 1 - r, 1 - r] = both, a_only, b_only, neither
    assert balanced_accuracy_difference(joint)["difference_ci"] == pytest.approx([low, high], abs=1e-12)


# ---------------------------------------------------------------- the pseudo-item of disagreement


def smoothed(joint):
    """Each class row with one item added, split evenly over the cells where the labels differ."""
    num_classes = joint.shape[-1]
    out = np.zeros_like(joint, dtype=float)
    for r in range(num_classes):
        row = joint[r].astype(float).copy()
        if row.sum() == 0:
            continue
        for a in range(num_classes):
            for b in range(num_classes):
                if a != b:
                    row[a, b] += 1.0 / (num_classes * (num_classes - 1))
        out[r] = row / row.sum()
    return out


def informedness_of(confusion, average="bookmaker"):
    """Averaged one-vs-rest informedness of a confusion matrix (rows = references)."""
    total = confusion.sum()
    values, weights = [], []
    for c in range(confusion.shape[0]):
        support, predicted = confusion[c].sum(), confusion[:, c].sum()
        tpr = confusion[c, c] / support
        fpr = (predicted - confusion[c, c]) / (total - support)
        values.append(tpr - fpr)
        weights.append({"bookmaker": predicted, "macro": 1.0, "weighted": support}[average])
    return float(np.dot(values, weights) / np.sum(weights))


def test_smoothed_shares_add_one_item_of_disagreement_per_class():
    rng = np.random.default_rng(3)
    for num_classes in (2, 3, 4):
        joint = rng.integers(0, 6, (num_classes,) * 3).astype(float)
        joint[0] = 0.0  # an empty class keeps no shares
        totals = joint.sum(axis=(-2, -1))
        assert np.allclose(paired_joint.smoothed_shares(joint, totals, totals), smoothed(joint), rtol=0, atol=1e-15)
    assert np.array_equal(paired_joint.smoothed_shares(joint, totals, totals, pseudo_items=0.0)[1:],
                          joint[1:] / totals[1:, None, None])


@pytest.mark.parametrize("average", ["bookmaker", "macro", "weighted"])
def test_delta_interval_is_the_delta_method_at_the_smoothed_shares(average):
    rng = np.random.default_rng(len(average))
    joint = rng.integers(0, 9, (3, 3, 3)).astype(float)
    joint[2] = 0.0
    joint[2, 2, 2] = 6.0  # a small class whose items all agree: variance only from the pseudo-item

    def difference(cells):
        return informedness_of(cells.sum(axis=2), average) - informedness_of(cells.sum(axis=1), average)

    step, gradient = 1e-6, np.zeros_like(joint)
    for cell in np.ndindex(joint.shape):
        bump = np.zeros_like(joint)
        bump[cell] = step
        gradient[cell] = (difference(joint + bump) - difference(joint - bump)) / (2 * step)
    shares = smoothed(joint)
    variance = 0.0
    for r in range(3):
        g, p, n = gradient[r].ravel(), shares[r].ravel(), joint[r].sum()
        variance += n * (p @ g**2 - (p @ g) ** 2)  # total^2 / n = n unweighted
    estimate = difference(joint)
    result = informedness_difference(joint, average=average, method="delta")
    assert result["difference"] == pytest.approx(estimate, abs=1e-12)
    assert result["difference_ci"] == pytest.approx([estimate - Z * np.sqrt(variance), estimate + Z * np.sqrt(variance)], abs=1e-7)


def test_bootstrap_resamples_the_smoothed_shares():
    """Binary: 5 positives all right for both judges. The percentile interval of 20,000
    resamples matches resampling the smoothed shares here (to Monte-Carlo error), and is wider
    than resampling the observed shares, where the positives cannot move."""
    joint = np.zeros((2, 2, 2))
    joint[1, 1, 1] = 5
    joint[0] = [[30, 6], [2, 2]]
    rng = np.random.default_rng(0)

    def replicates(shares, resamples=20_000):
        rows = [rng.multinomial(int(joint[r].sum()), shares[r].ravel(), size=resamples).reshape(resamples, 2, 2) for r in (0, 1)]
        recalls = [(rows[r][:, r, :].sum(axis=-1) - rows[r][:, :, r].sum(axis=-1)) / joint[r].sum() for r in (0, 1)]
        return (recalls[0] + recalls[1]) / 2  # A's recall - B's, averaged over the classes

    expected = np.quantile(replicates(smoothed(joint)), [0.025, 0.975])
    observed_only = np.quantile(replicates(joint / joint.sum(axis=(1, 2))[:, None, None]), [0.025, 0.975])
    result = balanced_accuracy_difference(joint, method="bootstrap", n_resamples=20_000, seed=1)
    assert result["difference_ci"] == pytest.approx(expected, abs=0.01)
    assert result["difference_ci"][1] - result["difference_ci"][0] > 1.2 * (observed_only[1] - observed_only[0])


@pytest.mark.parametrize("method", ["newcombe", "bootstrap"])
def test_binary_informedness_intervals_are_the_balanced_accuracy_ones_doubled(method):
    """The study simulates the binary intervals once: informedness's are the same, doubled, bit for bit."""
    rng = np.random.default_rng(5)
    joint = rng.integers(0, 12, (40, 2, 2, 2)).astype(float)
    balanced = balanced_accuracy_difference(joint, method=method, n_resamples=300, seed=4)
    informed = informedness_difference(joint, method=method, n_resamples=300, seed=4)
    assert np.array_equal(np.multiply(2, balanced["difference_ci"]), informed["difference_ci"])
    assert np.array_equal(balanced["p_value"], informed["p_value"])


# ---------------------------------------------------------------- refusals: the undefined cases and their reasons


def test_undefined_intervals_say_why():
    """No interval method refuses a defined difference on the study's grid; the NaN cases left
    are those where there is nothing to compare, each with its reason."""
    joint = np.zeros((3, 3, 3))
    joint[0, 0, 1], joint[0, 0, 0] = 3, 4
    assert balanced_accuracy_difference(joint, class_mask=[2])["reason"] == "empty_class_mask_after_filtering"
    assert balanced_accuracy_difference(np.zeros((2, 2, 2)))["reason"] == "no_reference_classes"
    assert balanced_accuracy_difference(joint, adjusted=True)["reason"] == "adjusted_needs_two_classes"
    one_class = informedness_difference(joint, zero_division=0.0)
    assert one_class["reason"] == "fewer_than_two_reference_classes" and not np.isnan(one_class["difference"])
    assert informedness_difference(np.zeros((3, 3, 3)))["reason"] == "fewer_than_two_reference_classes"
    joint[1, 1, 1] = 2
    assert informedness_difference(joint, class_mask=[2])["reason"] == "empty_class_mask_after_filtering"
    for result in (balanced_accuracy_difference(joint), informedness_difference(joint),
                   balanced_accuracy_difference(joint, method="bootstrap", n_resamples=200, seed=0)):
        assert result["reason"] is None and not np.isnan(result["difference_ci"]).any()


# ---------------------------------------------------------------- a quick check of the edge grid


def test_edge_grid_quick_check():
    """The study's hardest rows, 300 golden sets each (Monte-Carlo s.e. about 0.013 at 0.95):
    every method covers at least 0.90, and the former ones, measured on the same sets, fail."""
    study = load_study("paired_comparison")

    rng = np.random.default_rng(22)

    def covered(interval, truth):
        low, high = (np.asarray(x) for x in interval)
        return float(np.mean((low <= truth + 1e-12) & (truth - 1e-12 <= high)))

    # Two classes, a judge pair whose recall is near 1/2 on 2 positives of 300, agreeing on 98%.
    judges = study.BINARY_JUDGES["recall near 1/2"]
    probabilities, _ = study.binary_joint(judges, 0.98)
    joint = study.simulate(rng, 300, [298, 2], probabilities)
    (tpr_a, tnr_a), (tpr_b, tnr_b) = judges
    truth = (tpr_a + tnr_a - tpr_b - tnr_b) / 2
    assert covered(balanced_accuracy_difference(joint)["difference_ci"], truth) >= 0.90
    assert covered(study.newcombe_uncorrected_phi(joint), truth) < 0.80
    boot = balanced_accuracy_difference(joint, method="bootstrap", n_resamples=200, seed=0)
    assert covered(boot["difference_ci"], truth) >= 0.90
    assert covered(study.bootstrap_without_pseudo_item(joint, study.mean_recall_difference, 200, 0), truth) < 0.70
    assert not np.isnan(boot["p_value"]).any() and not np.isnan(boot["difference_ci"]).any()  # nothing refused

    # Three classes of 10, judges near 1 agreeing on 98%: the delta method and the bootstrap.
    rows_a, rows_b = np.array(study.ROWS["near 1 A"]), np.array(study.ROWS["near 1 B"])
    probabilities, _ = study.coupled_rows(rows_a, rows_b, 0.98)
    joint = study.simulate(rng, 300, [10, 10, 10], probabilities)
    prior = np.full(3, 1 / 3)
    truth = informedness_of(prior[:, None] * rows_a) - informedness_of(prior[:, None] * rows_b)
    assert covered(informedness_difference(joint, method="delta")["difference_ci"], truth) >= 0.90
    assert covered(study.delta_without_pseudo_item(joint), truth) < 0.70
    boot = informedness_difference(joint, method="bootstrap", n_resamples=200, seed=0)
    assert covered(boot["difference_ci"], truth) >= 0.90
    assert covered(study.bootstrap_without_pseudo_item(joint, study.informedness_difference_of, 200, 0), truth) < 0.70

    # The type-I error of the p-values with equal judges at n = 50 (loose: 300 sets).
    judges = study.BINARY_JUDGES["equal"]
    probabilities, _ = study.binary_joint(judges, 0.7)
    joint = study.simulate(rng, 300, [40, 10], probabilities)
    assert 0.01 <= np.mean(np.asarray(balanced_accuracy_difference(joint)["p_value"]) < 0.05) <= 0.09
