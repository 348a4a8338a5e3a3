"""Paired-proportion statistics: Newcombe's paired interval and the stratified McNemar test.

Generic building blocks of ``comparison.py`` (two systems scored on the same items),
vectorised over any leading axes, NumPy and the standard library only.

Newcombe's (1998) method 10 (``newcombe_paired_interval``)
    The interval of ``p1 - p2`` from a paired 2 x 2 table: the Wilson interval of each
    proportion, squared and added with the correction for their correlation (phi, with
    Newcombe's n/2 continuity correction of its numerator, as published).
The score (McNemar-type) test (``variance_terms``, ``score_p_value``)
    A difference linearised in the items (its gradient per joint cell) has,
    under H0 "the two systems' labels are exchangeable on every item", contributions
    that flip sign when the systems are swapped; its score variance is the sum of the
    squared antisymmetric contributions (no mean subtracted, as in McNemar's test).
    ``variance_terms`` also gives the delta-method (Wald) variance.
The cluster swap test (``cluster_swap_p_value``)
    With clustered items, the same exchangeability taken cluster by cluster: under H0
    the two systems' predictions may be swapped within any cluster, which flips the sign
    of that cluster's contribution to the difference. The p-value is the randomisation
    distribution of the sum under all 2^G sign patterns (the sign-change test of Canay,
    Romano & Shaikh 2017 with the clusters' sums; with every item its own cluster and a
    mean of recalls it is the stratified McNemar test below). It holds its level with few
    clusters, where a design-effect-widened normal test is conservative.
The exact mid-p test (``stratified_mcnemar_mid_p``)
    Where the normal approximation is too discrete (unweighted counts whose discordant
    items allow at most ``EXACT_TEST_MAX_OUTCOMES`` outcomes) the exact conditional
    distribution of the stratified McNemar statistic is enumerated and the mid-p
    reported (``metrics/balanced_accuracy.py`` ``recall_difference_p_value`` chooses between the two for a mean of recalls).
"""

import fractions
import functools
import math
from statistics import NormalDist

import numpy as np

from .binomial import wilson_interval

# The exact (mid-p) stratified McNemar test enumerates at most this many outcomes of the
# discordant counts; above it the normal approximation is used (it is then accurate).
EXACT_TEST_MAX_OUTCOMES = 5_000


# The cluster swap test enumerates the sign patterns of at most SWAP_TEST_EXACT_CLUSTERS clusters (2^16)
# and draws SWAP_TEST_DRAWS of them beyond (a fixed seed: the p-value is reproducible). Where fewer than
# SWAP_TEST_MIN_HITS draws reach the observed sum (p below ~8e-4) the draws cannot resolve it, and above
# SWAP_TEST_MAX_DRAWN clusters, or SWAP_TEST_SMOOTH_CLUSTERS clusters' worth of evenly spread variance
# (Kish's count), drawing is not needed: there the saddlepoint approximation of the sign-pattern
# distribution (Lugannani & Rice 1980; Robinson 1982 for randomisation tests) gives the tail.
SWAP_TEST_EXACT_CLUSTERS = 16
SWAP_TEST_DRAWS = 1 << 16
SWAP_TEST_MIN_HITS = 50
SWAP_TEST_MAX_DRAWN = 20_000
SWAP_TEST_SMOOTH_CLUSTERS = 100
SWAP_TEST_SEED = 20170331


# ----------------------------------------------------------------------------------------
# Newcombe's method 10 for a difference of paired proportions
# ----------------------------------------------------------------------------------------


def _square_and_add(x, y, phi):
    # Written so that swapping x and y gives the same bits (a symmetric problem then has
    # an interval exactly symmetric about 0).
    return np.sqrt(np.maximum(x * x + y * y - 2.0 * phi * (x * y), 0.0))


def newcombe_paired_interval(both, first_only, second_only, neither, *, confidence_level=0.95, effective_size=None):
    """Newcombe's (1998) method 10 interval for ``p1 - p2`` from a paired 2 x 2 table, as published.

    ``p1 = (both + first_only) / n``, ``p2 = (both + second_only) / n``. Each margin gets a
    Wilson interval ``[l_i, u_i]``, and ``phi`` estimates the correlation of the two
    indicators with Newcombe's continuity correction of its numerator: with
    ``A = both * neither - first_only * second_only`` and ``M`` the product of the four
    margins, ``phi = (A - n/2) / sqrt(M)`` if ``A > n/2``, ``0`` if ``0 <= A <= n/2``,
    ``A / sqrt(M)`` if ``A < 0`` (and 0 when a margin is empty); then

        low  = d - sqrt((p1 - l1)^2 - 2 phi (p1 - l1)(u2 - p2) + (u2 - p2)^2)
        high = d + sqrt((p2 - l2)^2 - 2 phi (p2 - l2)(u1 - p1) + (u1 - p1)^2).

    This is the interval of R's ``contingencytables::Newcombe_square_and_add_CI_paired_2x2``
    and ``biostatUZH::confIntPairedProportion``. Without the n/2 correction ("uncorrected
    phi") the interval is narrower and under-covers in small classes: with phi near 1 (few
    or no discordant items) it shrinks to the asymmetry of the Wilson limits, which is 0
    at p = 1/2 (coverage down to 0.55 with a class of 2 items and 0.82-0.93 with 10;
    the published interval held 0.952 or more: studies/paired_comparison/results.md).

    Vectorised over any shape. Counts may be weight sums; ``effective_size`` (Kish) is
    then the n of the Wilson intervals and of the correction. NaN where n is 0.
    Returns ``(difference, low, high)``.

    Examples
    --------
    The example table of Fagerland, Lydersen & Laake (2017, chapter 8; Cavo et al. 2012),
    (59, 6 / 16, 80): d = (6 - 16) / 161 and the published interval [-0.1186, -0.0046]
    (the uncorrected phi gives [-0.1174, -0.0059]):

    >>> d, low, high = newcombe_paired_interval(59, 6, 16, 80)
    >>> round(float(d), 4), round(float(low), 4), round(float(high), 4)
    (-0.0621, -0.1186, -0.0046)

    With positively correlated margins the interval is narrower than the unpaired
    square-and-add of the same two Wilson intervals:

    >>> l1, u1 = wilson_interval(65, 161, 0.95); l2, u2 = wilson_interval(75, 161, 0.95)
    >>> bool(high - low < np.hypot(65 / 161 - l1, u2 - 75 / 161) + np.hypot(75 / 161 - l2, u1 - 65 / 161))
    True
    """
    both, first_only, second_only, neither = (np.asarray(a, dtype=np.float64) for a in (both, first_only, second_only, neither))
    total = both + first_only + second_only + neither
    size = total if effective_size is None else np.asarray(effective_size, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p1 = (both + first_only) / total
        p2 = (both + second_only) / total
        # phi from shares (weighted counts mix with their effective size): A / n^2 and
        # the correction n/2 / n^2 = 1 / (2 n).
        s11, s10, s01, s00 = (a / total for a in (both, first_only, second_only, neither))
        numerator = s11 * s00 - s10 * s01
        correction = 0.5 / size
        numerator = np.where(numerator > correction, numerator - correction, np.where(numerator >= 0.0, 0.0, numerator))
        margins = p1 * (1.0 - p1) * p2 * (1.0 - p2)
        phi = np.where(margins > 0, numerator / np.sqrt(np.where(margins > 0, margins, 1.0)), 0.0)
    l1, u1 = wilson_interval(p1 * size, size, confidence_level)
    l2, u2 = wilson_interval(p2 * size, size, confidence_level)
    difference = p1 - p2
    below = _square_and_add(p1 - l1, u2 - p2, phi)
    above = _square_and_add(p2 - l2, u1 - p1, phi)
    return difference, difference - below, difference + above


# ----------------------------------------------------------------------------------------
# The score (McNemar-type) test and the delta method, from per-cell gradients
# ----------------------------------------------------------------------------------------


def variance_terms(joint, totals, sizes, grad_a, grad_b, delta_shares=None):
    """(delta-method variance, score variance under exchangeability) of the difference.

    Row r's cell shares ``p`` have covariance ``(diag p - p p^T) / n_eff_r``, and a change
    of share moves the counts by ``total_r`` times it: the delta variance is
    ``sum_r total_r^2 / n_eff_r * Var_p(G)``. Under H0 (A and B exchangeable on each item)
    an item's linearised contribution is the antisymmetric part of G, with mean 0: the
    score variance is ``sum_r total_r^2 / n_eff_r * E_p(G_anti^2)``.

    ``delta_shares`` (same shape as ``joint``): the shares the delta variance's ``Var_p``
    is taken at (``comparison.py`` passes ``paired_joint.smoothed_shares``); default the
    observed ones. The score variance always uses the observed shares.
    """
    gradient = grad_a[..., :, :, None] - grad_b[..., :, None, :]  # d(difference)/d joint[r, a, b]
    shares = np.where(totals[..., None, None] > 0, joint / np.where(totals > 0, totals, 1.0)[..., None, None], 0.0)
    scale = np.where(sizes > 0, totals**2 / np.where(sizes > 0, sizes, 1.0), 0.0)
    spread = shares if delta_shares is None else delta_shares
    mean = (spread * gradient).sum(axis=(-2, -1))
    delta = (scale * np.maximum((spread * gradient**2).sum(axis=(-2, -1)) - mean**2, 0.0)).sum(axis=-1)
    antisymmetric = 0.5 * (gradient - np.swapaxes(gradient, -1, -2))
    score = (scale * (shares * antisymmetric**2).sum(axis=(-2, -1))).sum(axis=-1)
    return delta, score


def score_p_value(difference, variance):
    """Two-sided normal p-value of ``difference / sqrt(variance)``; 1 when nothing varies."""
    difference, variance = np.asarray(difference, dtype=np.float64), np.asarray(variance, dtype=np.float64)
    z = np.abs(difference) / np.sqrt(np.where(variance > 0, variance, 1.0))
    # 2 * (1 - Phi(|z|)) = erfc(|z| / sqrt 2), accurate in the far tail (no scipy here).
    p_value = np.minimum(_erfc(z / math.sqrt(2.0)), 1.0)
    # No discordant item: the difference is 0 exactly and no data speak against H0.
    p_value = np.where(variance > 0, p_value, np.where(difference == 0, 1.0, 0.0))
    return np.where(np.isnan(difference), np.nan, p_value)


_erfc = np.vectorize(lambda value: math.erfc(value) if math.isfinite(value) else math.nan, otypes=[float])


def stratified_mcnemar_mid_p(class_sizes, first_only, second_only) -> float:
    """Exact two-sided mid-p of the stratified McNemar statistic ``T = sum_r (b_r - d_r) / n_r``.

    ``T`` is the difference of two unweighted means of recalls, up to the factor 1/(number
    of classes averaged): class r has ``n_r`` items (``class_sizes``), ``b_r`` where only
    the first system is right and ``d_r`` where only the second is (all integers).
    Conditionally on each stratum's discordant count ``m_r = b_r + d_r``, under H0
    ``b_r ~ Binomial(m_r, 1/2)`` independently. The exact distribution of ``T`` is
    enumerated in exact arithmetic - ``T`` times the least common multiple of the class
    sizes is an integer, and each outcome's probability an integer over ``2^sum m_r`` - so
    the observed value is one of the enumerated atoms, never a neighbour in the last
    bit. The two-sided mid-p is ``2 (P(T > |t|) + P(T = |t|) / 2)`` (capped at 1). With no
    discordant item it is 1 (the conditional distribution is a point mass).

    Examples
    --------
    One stratum, 9 items where only A is right and 1 where only B is: the mid-p McNemar
    test, ``2 * (P(X >= 9) - P(X = 9) / 2)`` for X ~ Binomial(10, 1/2) = 2 * (11 - 5) / 1024.

    >>> bool(np.isclose(stratified_mcnemar_mid_p([20], [9], [1]), 2 * (11 - 5) / 1024))
    True

    Two classes of 8 and 6 items with one discordant item each: T = +-1/8 +- 1/6, each with
    probability 1/4; observed t = 1/8 - 1/6, so P(|T| > |t|) = 1/2 and the mid-p is
    1/2 + 1/2 * 1/2:

    >>> stratified_mcnemar_mid_p([8, 6], [1, 0], [0, 1])
    0.75
    """
    class_sizes, first_only, second_only = (
        tuple(int(value) for value in np.asarray(values).ravel()) for values in (class_sizes, first_only, second_only)
    )
    # Cached: in a simulation or a sweep the same small tables come back again and again.
    return _mid_p_cached(class_sizes, first_only, second_only)


@functools.lru_cache(maxsize=65_536)
def _mid_p_cached(class_sizes, first_only, second_only):
    strata = [(size, b, d) for size, b, d in zip(class_sizes, first_only, second_only) if size > 0 and b + d > 0]
    if not strata:
        return 1.0
    common = math.lcm(*(size for size, _, _ in strata))
    # Integer keys: L * T. Frequencies are integers too (products of binomial coefficients).
    distribution = {0: 1}
    for size, b, d in strata:
        step, trials = common // size, b + d
        outcomes = [(step * (2 * k - trials), math.comb(trials, k)) for k in range(trials + 1)]
        merged = {}
        for key, frequency in distribution.items():
            for shift, ways in outcomes:
                merged[key + shift] = merged.get(key + shift, 0) + frequency * ways
        distribution = merged
    observed = abs(sum((common // size) * (b - d) for size, b, d in strata))
    above = sum(frequency for key, frequency in distribution.items() if key > observed)
    at = distribution.get(observed, 0)
    total = 2 ** sum(b + d for _, b, d in strata)
    # The null distribution is symmetric about 0: twice the one-sided mid-p, the usual
    # mid-p McNemar 2 P(X <= min(b, c)) - P(X = min(b, c)) for one stratum (1 when b = c).
    return float(min(1.0, fractions.Fraction(2 * above + at, total)))


def cluster_swap_p_value(contributions) -> float:
    """Two-sided mid-p of the cluster swap (sign-change) test of H0 "the two systems' predictions are
    exchangeable within every cluster", from each cluster's contribution to the difference (see the
    module doc): the share of the 2^G sign patterns whose |sum| exceeds the observed one, plus half of
    those equal to it (enumerated, drawn, or by saddlepoint: see ``SWAP_TEST_*``).

    Examples
    --------
    Five clusters, every one in the same direction: 2 of the 32 sign patterns reach |sum| = 5, so the
    mid-p is 1/32.

    >>> cluster_swap_p_value([1.0, 1.0, 1.0, 1.0, 1.0])
    0.03125
    >>> cluster_swap_p_value([1.0, -1.0, 0.0])  # sum 0: of the 4 patterns, 2 exceed it and 2 equal it
    0.75
    """
    values = np.asarray(contributions, dtype=np.float64).reshape(-1)
    values = values[values != 0.0]
    if not values.size:
        return 1.0
    observed = abs(float(values.sum()))
    tolerance = 1e-9 * float(np.abs(values).sum())  # sums that differ by rounding are ties
    squares = values * values
    if values.size > SWAP_TEST_MAX_DRAWN or (
            values.size > SWAP_TEST_EXACT_CLUSTERS and squares.sum() ** 2 / np.sum(squares * squares) >= SWAP_TEST_SMOOTH_CLUSTERS):
        return sign_sum_tail(values, observed)
    above = ties = total = 0
    if values.size <= SWAP_TEST_EXACT_CLUSTERS:
        patterns = np.arange(1 << values.size)[:, None] >> np.arange(values.size)
        chunks = [1.0 - 2.0 * (patterns & 1)]
    else:
        generator = np.random.default_rng(SWAP_TEST_SEED)
        size = max(1, min(SWAP_TEST_DRAWS, (1 << 24) // values.size))  # at most ~16M signs (128 MB) at a time
        chunks = (generator.choice((-1.0, 1.0), (min(size, SWAP_TEST_DRAWS - start), values.size))
                  for start in range(0, SWAP_TEST_DRAWS, size))
    for signs in chunks:
        sums = np.abs(signs @ values)
        above += int(np.count_nonzero(sums > observed + tolerance))
        ties += int(np.count_nonzero(np.abs(sums - observed) <= tolerance))
        total += sums.size
    if values.size > SWAP_TEST_EXACT_CLUSTERS and above + ties < SWAP_TEST_MIN_HITS:
        return sign_sum_tail(values, observed)
    return min(1.0, (above + 0.5 * ties) / total)


def sign_sum_tail(values, observed: float) -> float:
    """P(|sum_g e_g u_g| >= observed) over independent fair signs e_g, by the Lugannani-Rice saddlepoint
    approximation (its cumulant generating function is sum_g log cosh(s u_g)); the largest sum, all signs
    alike, has its exact mid-p 2^-G.

    Examples
    --------
    Twenty clusters of one size, 16 of them one way: the exact two-sided mid-p of |2B - 20| = 12,
    B ~ Binomial(20, 1/2), is 0.0072; the saddlepoint, a continuous approximation, is near it (sums on a
    lattice are its hardest case; with unequal contributions it is within a few per cent).

    >>> round(sign_sum_tail(np.ones(20), 12.0), 4)
    0.0062
    """
    values = np.abs(np.asarray(values, dtype=np.float64))
    deviation = math.sqrt(float(np.sum(values * values)))
    if observed >= float(values.sum()) * (1.0 - 1e-12):
        return 2.0 ** -values.size
    if observed <= 1e-6 * deviation:
        return 1.0
    # The saddlepoint s solves K'(s) = sum_g u_g tanh(s u_g) = observed (increasing in s): bisection.
    low, high = 0.0, 1.0 / deviation
    while float(np.sum(values * np.tanh(high * values))) < observed:
        high *= 2.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        low, high = (middle, high) if float(np.sum(values * np.tanh(middle * values))) < observed else (low, middle)
    point = 0.5 * (low + high)
    scaled = np.abs(point * values)
    cumulant = float(np.sum(scaled + np.log1p(np.exp(-2.0 * scaled)) - math.log(2.0)))  # sum log cosh, no overflow
    signed_root = math.sqrt(max(2.0 * (point * observed - cumulant), 0.0))
    curvature = point * math.sqrt(float(np.sum(values * values / np.cosh(np.minimum(scaled, 700.0)) ** 2)))
    normal = NormalDist()
    if signed_root < 1e-4 or curvature <= 0.0:
        return float(min(1.0, 2.0 * (1.0 - normal.cdf(observed / deviation))))
    one_sided = (1.0 - normal.cdf(signed_root)) + normal.pdf(signed_root) * (1.0 / curvature - 1.0 / signed_root)
    return float(min(1.0, max(2.0 * one_sided, 0.0)))
