"""Paired comparison of two systems scored on the same golden set, from joint counts: what every metric's
paired difference shares.

Two judges A and B labelled the same items, so their errors are correlated: comparing
their two separate intervals ignores the pairing (too wide, and not a test of the
difference). Everything here works on the *joint* counts

    joint[r, a, b] = number (or weight sum) of items with reference class r,
                     A's prediction a and B's prediction b        shape (K, K, K)

so, like the metrics' intervals, its cost does not grow with the number of items. A golden
set fixes the size of each reference class, so the sampling model is: each reference
row ``joint[r]`` is multinomial over its K x K cells, rows independent. Leading axes of
``joint`` are independent problems (the simulation in ``studies/paired_comparison/study.py``
passes thousands at once); a single problem gives Python floats.

P-value (both metrics' differences, every method)
    Two-sided, from the **stratified McNemar score test**: the difference is linearised
    in the items, and under H0 "A's and B's labels are exchangeable on every item" each
    item's contribution flips sign when A and B are swapped, so its variance is the sum
    of the squared antisymmetric contributions (no estimate of the mean is subtracted,
    as in McNemar's test). For balanced accuracy this is exactly the stratified McNemar
    statistic ``sum_r (b_r - c_r) / n_r`` over ``sqrt(sum_r (b_r + c_r) / n_r^2)`` (b, c =
    the discordant counts of class r, both divided by the number of classes averaged),
    referred to the standard normal, without continuity correction (which Fagerland,
    Lydersen & Laake 2013 found close to nominal for McNemar's test). Where that
    normal approximation is too discrete (unweighted counts whose discordant items
    allow at most ``EXACT_TEST_MAX_OUTCOMES`` outcomes, e.g. a few disagreements in a
    small class) the exact conditional distribution is enumerated and the **mid-p**
    is reported (``stratified_mcnemar_mid_p``; for one class, the mid-p McNemar test
    that Fagerland et al. also recommend). Multi-class informedness: the normal
    version only. It tests the
    per-class null (equal recalls in every class), which implies the stated null of
    equal balanced accuracy; where recalls differ in opposite directions it is
    conservative (the score variance is at least the true one). Measured type-I error
    at alpha 0.05: ``studies/paired_comparison/results.md``. The p-value is not the dual of the
    interval: in a near-boundary case one can exclude 0 while the other is above 0.05.

Exact symmetry: swapping A and B (``joint.swapaxes(-1, -2)``) flips the sign of the
difference and of its interval bit for bit, and leaves the p-value unchanged, for every
method and seed: each problem is first put in a canonical orientation (the smaller of
``joint`` and its transpose, compared lexicographically), computed there, and flipped
back. A problem equal to its transpose (e.g. identical systems) has difference 0 and an
interval symmetric about 0; identical systems get p-value 1 (no discordant item). Their
intervals are not [0, 0]: no disagreement among a finite number of items does not
exclude a small difference in the population (the corrected phi is below 1, and the
pseudo-item of disagreement gives the delta method and the bootstrap some variance).

Sample weights: ``joint`` holds weight sums and ``joint_w2`` the sums of squared weights
per cell; each reference row then has Kish's effective size ``(sum w)^2 / sum w^2``
(``effective_sizes``), used as the Wilson trials, the delta-method and score
variances' sample size and the bootstrap's draw size, with the same caveats as in
``metrics/balanced_accuracy.py`` (importance weights, not frequency weights).

Each metric's difference is in its file: ``metrics/balanced_accuracy.py``
``balanced_accuracy_difference`` and ``metrics/informedness.py`` ``informedness_difference``
(each with its methods in its docstring). NumPy and the standard library only. The generic
building blocks live beside this file: ``paired_tests.py`` (Newcombe's paired interval, the
score and exact mid-p McNemar tests) and ``paired_joint.py`` (checks, orientation,
marginals, gradients, the smoothed shares and the bootstrap of the joint counts); clustered
samples' design factor divides each row's effective size (``design_effect.clustered_squares``).
No method refuses on the grid of ``studies/paired_comparison/study.py``: every interval is
finite and covered at least 0.93 there (the table is ``studies/paired_comparison/results.md``).
"""
