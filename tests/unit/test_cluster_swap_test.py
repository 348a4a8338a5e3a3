"""The cluster swap (sign-change) test of a paired comparison with clusters, against the sign
patterns enumerated here by brute force, and against the binomial where every cluster weighs
the same.

Under H0 the two systems may be swapped within any cluster, which flips the sign of that
cluster's contribution u_g to the difference; the two-sided mid-p is the share of the 2^G sign
patterns whose |sum_g e_g u_g| exceeds the observed |sum_g u_g|, plus half of those equal to it.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from shared.stats.paired_tests import SWAP_TEST_DRAWS
from shared.stats.paired_tests import SWAP_TEST_EXACT_CLUSTERS
from shared.stats.paired_tests import cluster_swap_p_value
from shared.stats.paired_tests import sign_sum_tail


def brute_force_mid_p(contributions):
    """Every sign pattern, one at a time, in exact arithmetic (integer contributions). No cluster
    contributing: 1, the convention of the stratified McNemar mid-p without discordant items (the
    distribution is a point mass)."""
    if not any(contributions):
        return Fraction(1)
    observed = abs(sum(contributions))
    above = equal = 0
    for signs in itertools.product((1, -1), repeat=len(contributions)):
        total = abs(sum(sign * value for sign, value in zip(signs, contributions)))
        above += total > observed
        equal += total == observed
    return Fraction(2 * above + equal, 2 * 2 ** len(contributions))


def enumerated_tail(values, threshold):
    """P(|sum e_g u_g| >= threshold), every pattern enumerated with NumPy."""
    signs = 1 - 2 * ((np.arange(2 ** values.size)[:, None] >> np.arange(values.size)) & 1)
    return float(np.mean(np.abs(signs @ values) >= threshold))


@pytest.mark.parametrize("seed", range(12))
def test_enumerated_mid_p_is_the_brute_force_share_of_sign_patterns(seed):
    rng = np.random.default_rng(seed)
    size = 1 + seed
    contributions = rng.integers(-4, 5, size).tolist()  # zeros and ties included
    expected = brute_force_mid_p(contributions)
    # Zero contributions flip to themselves: the share is the same with or without them.
    assert cluster_swap_p_value(np.array(contributions, dtype=float)) == float(expected)


def test_drawn_p_value_is_within_monte_carlo_error_of_the_enumeration():
    rng = np.random.default_rng(5)
    for size in (SWAP_TEST_EXACT_CLUSTERS + 1, 19):
        values = rng.lognormal(0.0, 1.0, size)
        for index in np.argsort(-values):  # signs giving a sum near two standard deviations: p of a few per cent
            if values.sum() - 2 * values[index] >= 2 * math.sqrt(np.sum(values**2)):
                values[index] = -values[index]
        observed = abs(values.sum())
        exact = enumerated_tail(values, observed)  # continuous values: no ties beyond the mirror pattern's
        assert 0.002 < exact < 0.5
        error = math.sqrt(exact * (1 - exact) / SWAP_TEST_DRAWS)
        assert cluster_swap_p_value(values) == pytest.approx(exact, abs=4 * error + 0.5 / 2 ** size)


@pytest.mark.parametrize("deviations", [1.5, 2.0, 2.5, 3.0])
def test_saddlepoint_tail_is_within_a_few_per_cent_of_the_enumeration(deviations):
    rng = np.random.default_rng(20)
    values = rng.lognormal(0.0, 1.0, 20)
    threshold = deviations * math.sqrt(np.sum(values**2))
    assert sign_sum_tail(values, threshold) == pytest.approx(enumerated_tail(values, threshold), rel=0.05)


def test_many_even_clusters_take_the_saddlepoint_near_the_binomial_mid_p():
    # 2,000 clusters of one weight, 1,064 one way: |2B - 2000| = 128, B ~ Binomial(2000, 1/2).
    values = np.r_[np.ones(1064), -np.ones(936)]
    mid_p = 2 * (stats.binom.sf(1064, 2000, 0.5) + 0.5 * stats.binom.pmf(1064, 2000, 0.5))
    assert cluster_swap_p_value(values) == pytest.approx(mid_p, rel=0.02)


def test_far_tail_is_a_number_not_a_zero_from_the_draws():
    """Every cluster the same way: only the two all-alike patterns reach the sum, mid-p 2^-G; and
    just inside it, where 65,536 draws see nothing, the saddlepoint, not 0."""
    values = np.random.default_rng(1).lognormal(0.0, 0.3, 60)
    assert cluster_swap_p_value(values) == 2.0**-60
    values[0] = -values[0]
    p_value = cluster_swap_p_value(values)
    assert 0.0 < p_value < 1e-10
