"""Paired comparison of two systems scored on the same golden set, from joint counts.

Two judges A and B labelled the same items, so their errors are correlated: comparing
their two separate intervals ignores the pairing (too wide, and not a test of the
difference). Everything here works on the *joint* counts

    joint[r, a, b] = number (or weight sum) of items with reference class r,
                     A's prediction a and B's prediction b        shape (K, K, K)

so, like ``intervals.py``, its cost does not grow with the number of items. A golden
set fixes the size of each reference class, so the sampling model is: each reference
row ``joint[r]`` is multinomial over its K x K cells, rows independent. Leading axes of
``joint`` are independent problems (the simulation in ``studies/paired_comparison/study.py``
passes thousands at once); a single problem gives Python floats.

Balanced accuracy (``balanced_accuracy_difference``)
    Per class r the items split into (A right & B right, A only, B only, neither), a
    paired 2 x 2 table, and the class's recall difference gets **Newcombe's (1998)
    method 10** interval as published: the Wilson interval of each recall, squared and
    added with the correction for their correlation (phi, the sample correlation of the
    two "right" indicators with Newcombe's n/2 continuity correction of its numerator,
    as in R's ``contingencytables`` and ``biostatUZH``; ``newcombe_paired_interval``).
    Until issue 22 phi was taken without that correction ("Newcombe's method 10 with
    uncorrected phi": [-0.1174, -0.0059] instead of the published [-0.1186, -0.0046] on
    Fagerland et al.'s table (59, 6, 16, 80)); it was narrower but under-covered where a
    class has few items and few disagreements (phi near 1), down to 0.55 with a class of
    2 items and 0.82-0.93 with 10 (``studies/paired_comparison/results.md``). The classes are
    independent given their sizes, so their intervals are combined into the mean by
    **MOVER** (Zou & Donner 2008), as ``intervals.rate_sum_interval`` combines Wilson
    intervals. ``method="bootstrap"``: the percentile interval of a *smoothed*
    stratified bootstrap of the joint counts: each row is resampled as Multinomial(row
    size, row shares) over its K x K cells, the shares taken with one pseudo-item of
    disagreement (``paired_joint.smoothed_shares``), without which a class whose few
    items all agree cannot move (coverage down to 0.08 with a class of 2 items).
Informedness (``informedness_difference``)
    Binary: J = TPR + TNR - 1 = 2 BA - 1 for every average, so the Newcombe/MOVER
    interval of the balanced-accuracy difference, doubled (``"newcombe"``), or the
    bootstrap's, doubled. Multi-class: a delta-method (Wald) interval with the analytic
    gradient of the average (``"delta"``), its variance taken at the shares smoothed by
    one pseudo-item of disagreement per class as in the bootstrap (on the observed shares
    a class without a disagreement adds no variance: coverage down to 0.46 at 98%
    agreement), or the smoothed stratified bootstrap.
P-value (both functions, every method)
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
(``intervals.effective_sizes``), used as the Wilson trials, the delta-method and score
variances' sample size and the bootstrap's draw size, with the same caveats as in
``intervals.py`` (importance weights, not frequency weights).

NumPy and the standard library only. The building blocks live beside it:
``paired_tests.py`` (Newcombe's paired interval, the score and exact mid-p McNemar tests)
and ``paired_joint.py`` (checks, orientation, marginals, gradients, the smoothed shares
and the bootstrap of the joint counts); their public names are importable from here too.
No method refuses on the grid of ``studies/paired_comparison/study.py``: every interval is
finite and covered at least 0.93 there (the table is ``studies/paired_comparison/results.md``).
"""

from typing import Any, Optional

import numpy as np

from ..glue.options import check_confidence_level
from ..glue.options import check_n_resamples
from ..glue.options import check_seed
from .design_effect import clustered_squares
from .distributions import z_value
from .rates import INFORMEDNESS_AVERAGES
from .intervals import informedness_average
from .intervals import informedness_gradient
from .averaging import Averaging
from .paired_joint import adjust_for_chance
from .paired_joint import bootstrap_joint
from .paired_joint import canonical
from .paired_joint import check_difference_zero_division
from .paired_joint import check_joint
from .paired_joint import finish_difference
from .paired_joint import marginals
from .paired_joint import mean_recall
from .paired_joint import percentile_interval
from .paired_joint import recall_gradient
from .paired_joint import recall_reduction
from .paired_joint import row_sizes
from .paired_joint import selected_classes
from .paired_joint import smoothed_shares
from .paired_tests import newcombe_paired_interval
from .paired_tests import recall_difference_p_value
from .paired_tests import score_p_value
from .paired_tests import variance_terms


BALANCED_ACCURACY_METHODS = ("newcombe", "bootstrap")
INFORMEDNESS_METHODS = ("newcombe", "delta", "bootstrap")


# ----------------------------------------------------------------------------------------
# Balanced accuracy
# ----------------------------------------------------------------------------------------


def balanced_accuracy_difference(
    joint: Any,
    *,
    confidence_level: float = 0.95,
    method: str = "newcombe",
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
    class_mask: Any = None,
    adjusted: bool = False,
    zero_division: Any = "skip",
    joint_w2: Any = None,
    design_factor: float = 1.0,
) -> dict:
    """Balanced accuracy of A and of B on the same items, their difference, its interval and p-value.

    Parameters
    ----------
    joint : array (..., K, K, K)
        ``joint[r, a, b]``: items (or weight sums) with reference r, A's prediction a and
        B's (the baseline's) prediction b. Leading axes are independent problems.
    confidence_level : float in (0, 1)
    method : {"newcombe", "bootstrap"}
        "newcombe": per class Newcombe's method 10 interval (as published, phi with its
        n/2 correction) for the paired difference of recalls, combined over the averaged
        classes by MOVER. "bootstrap": percentile interval of the smoothed stratified
        bootstrap of the joint counts (one pseudo-item of disagreement per class).
    n_resamples, seed : bootstrap resamples and the seed of its generator.
    class_mask : class indices to average over (default all).
    adjusted : bool
        Report ``(BA - 1/m) / (1 - 1/m)`` (m = classes averaged); the difference and its
        interval are scaled by ``1 / (1 - 1/m)``.
    zero_division : "skip" or a number
        A selected class without references is left out ("skip") or takes this value for
        both systems (a convention with no sampling error: it adds 0 to the difference).
    joint_w2 : array like ``joint``, optional
        Sums of squared sample weights per cell (Kish effective sizes per reference row).
    design_factor : float, default 1.0
        With clustered samples, the design effect's factor (``stats.design_effect``): each row's
        effective size is divided by it, and the exact test's evidence deflated by it.

    Returns
    -------
    dict
        ``value`` (A), ``baseline_value`` (B), ``difference`` (value - baseline),
        ``difference_ci`` ([low, high]), ``p_value`` (two-sided stratified McNemar score
        test, see the module doc), and for a single problem ``reason`` (why the interval
        is NaN, else None).

    Examples
    --------
    Binary, 100 positives and 900 negatives; A finds 80 positives, B 70 (60 in common);
    both are right on 810 negatives, A alone on 40 and B alone on 20:

    >>> joint = np.zeros((2, 2, 2))
    >>> joint[1] = [[10, 10], [20, 60]]            # positives: [A's prediction, B's prediction]
    >>> joint[0] = [[810, 40], [20, 30]]           # negatives
    >>> result = balanced_accuracy_difference(joint)
    >>> bool(np.isclose(result["difference"], (80 / 100 + 850 / 900) / 2 - (70 / 100 + 830 / 900) / 2))
    True
    >>> low, high = result["difference_ci"]
    >>> bool(0 < low < result["difference"] < high), bool(result["p_value"] < 0.05)
    (True, True)
    """
    confidence_level = check_confidence_level(confidence_level)
    if confidence_level is None:
        raise ValueError("confidence_level: expected a number in (0, 1) such as 0.95, found None.")
    if method not in BALANCED_ACCURACY_METHODS:
        raise ValueError(f"method: expected one of {BALANCED_ACCURACY_METHODS}, found {method!r}.")
    n_resamples = check_n_resamples(n_resamples)
    seed = check_seed(seed)
    zero_division = check_difference_zero_division(zero_division)
    joint, joint_w2 = check_joint(joint, joint_w2)
    unweighted = joint_w2 is None or np.array_equal(joint_w2, joint)
    joint, joint_w2, orientation = canonical(joint, clustered_squares(joint, joint_w2, design_factor))
    num_classes = joint.shape[-1]
    selected = selected_classes(class_mask, num_classes)

    confusion_a, confusion_b = marginals(joint)
    totals, sizes = row_sizes(joint, joint_w2)
    weights, offset, count = recall_reduction(totals, selected, zero_division)
    raw_value = mean_recall(confusion_a, weights, offset)
    raw_baseline = mean_recall(confusion_b, weights, offset)
    undefined = (count == 0) | ((count == 1) & bool(adjusted))
    value = adjust_for_chance(raw_value, count, adjusted)
    baseline = adjust_for_chance(raw_baseline, count, adjusted)
    difference = value - baseline

    # Score test from the per-cell gradients of the (unadjusted) difference; adjusting
    # scales the difference and its standard error alike.
    _, score_variance = variance_terms(
        joint, totals, sizes, recall_gradient(confusion_a, weights), recall_gradient(confusion_b, weights)
    )
    diagonal = np.arange(num_classes)
    both = joint[..., diagonal, diagonal, diagonal]
    a_right = np.diagonal(confusion_a, axis1=-2, axis2=-1)
    b_right = np.diagonal(confusion_b, axis1=-2, axis2=-1)
    # Unweighted counts: the exact test where the normal one is too discrete; with clustered samples
    # its evidence is deflated by the design factor.
    integer = bool((joint == np.rint(joint)).all())
    factor = design_factor if integer and unweighted else None
    p_value = recall_difference_p_value(
        a_right - both, b_right - both, totals, weights, raw_value - raw_baseline, score_variance, factor is not None,
        1.0 if factor is None else factor,
    )

    if method == "newcombe":
        d, low_r, high_r = newcombe_paired_interval(
            both, a_right - both, b_right - both, totals - a_right - b_right + both,
            confidence_level=confidence_level, effective_size=sizes,
        )
        used = weights > 0
        below = np.where(used, weights * (d - low_r), 0.0)
        above = np.where(used, weights * (high_r - d), 0.0)
        raw_difference = raw_value - raw_baseline
        low = raw_difference - np.sqrt((below**2).sum(axis=-1))
        high = raw_difference + np.sqrt((above**2).sum(axis=-1))
    else:

        def statistic(resampled):
            a, b = marginals(resampled)
            return mean_recall(a, weights, offset) - mean_recall(b, weights, offset)

        replicates = bootstrap_joint(joint, totals, sizes, statistic, n_resamples, seed)
        low, high = percentile_interval(replicates, confidence_level, orientation == 0)
    low, high = np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)
    if adjusted:
        scale = 1.0 / (1.0 - 1.0 / np.maximum(count, 2))
        low, high = low * scale, high * scale
    nan = np.nan
    value, baseline, difference, low, high, p_value = (
        np.where(undefined, nan, x) for x in (value, baseline, difference, low, high, p_value)
    )
    if class_mask is not None:
        reason = "empty_class_mask_after_filtering"
    else:
        reason = "no_reference_classes"
    if adjusted and np.ndim(count) == 0 and count == 1:
        reason = "adjusted_needs_two_classes"
    return finish_difference((value, baseline, difference, low, high, p_value), orientation, reason)


# ----------------------------------------------------------------------------------------
# Informedness
# ----------------------------------------------------------------------------------------


def _gradient(confusion, average, mask, zero_division):
    """``intervals.informedness_gradient`` with the comparison's class mask; 0 where the value is undefined."""
    averaging = Averaging(confusion.shape[-1], mask, zero_division=zero_division)
    return np.nan_to_num(informedness_gradient(confusion, average, averaging))


def informedness_difference(
    joint: Any,
    *,
    average: str = "bookmaker",
    confidence_level: float = 0.95,
    method: Optional[str] = None,
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
    class_mask: Any = None,
    zero_division: Any = "skip",
    joint_w2: Any = None,
    design_factor: float = 1.0,
) -> dict:
    """Informedness of A and of B on the same items, their difference, its interval and p-value.

    Parameters
    ----------
    joint : array (..., K, K, K)
        As in ``balanced_accuracy_difference``.
    average : {"bookmaker", "macro", "weighted"}
        As in the informedness module (``intervals.informedness_average``); binary: Youden's
        J for every average.
    method : {"newcombe", "delta", "bootstrap"} or None
        "newcombe" (binary only): J = 2 BA - 1, so twice the Newcombe/MOVER interval of
        the balanced-accuracy difference. "delta": Wald interval with the delta-method
        standard error from the analytic gradient (``informedness_gradient``) and the
        stratified multinomial covariance of the joint rows, taken at the shares smoothed
        by one pseudo-item of disagreement per class (``smoothed_shares``). "bootstrap":
        percentile interval of the smoothed stratified bootstrap of the joint counts.
        None: "newcombe" for K = 2, else "delta".
    confidence_level, n_resamples, seed, class_mask, zero_division, joint_w2
        As in ``balanced_accuracy_difference``; ``zero_division`` is the value of an
        undefined J_c.

    Returns
    -------
    dict
        As ``balanced_accuracy_difference``. The p-value is the stratified McNemar score
        test on the linearised difference (for K = 2, the balanced-accuracy one). NaN
        interval and p-value, reason ``"fewer_than_two_reference_classes"``, when fewer
        than two classes have references.

    Examples
    --------
    >>> joint = np.zeros((2, 2, 2))
    >>> joint[1] = [[10, 10], [20, 60]]
    >>> joint[0] = [[810, 40], [20, 30]]
    >>> result = informedness_difference(joint)  # binary: J = 2 BA - 1
    >>> paired = balanced_accuracy_difference(joint)
    >>> bool(np.allclose(result["difference_ci"], np.multiply(2, paired["difference_ci"])))
    True
    """
    if average not in INFORMEDNESS_AVERAGES:
        raise ValueError(f"average: expected one of {INFORMEDNESS_AVERAGES}, found {average!r}.")
    confidence_level = check_confidence_level(confidence_level)
    if confidence_level is None:
        raise ValueError("confidence_level: expected a number in (0, 1) such as 0.95, found None.")
    n_resamples = check_n_resamples(n_resamples)
    seed = check_seed(seed)
    zero_division = check_difference_zero_division(zero_division)
    joint, joint_w2 = check_joint(joint, joint_w2)
    num_classes = joint.shape[-1]
    if method is None:
        method = "newcombe" if num_classes == 2 else "delta"
    if method not in INFORMEDNESS_METHODS:
        raise ValueError(f"method: expected one of {INFORMEDNESS_METHODS} or None, found {method!r}.")
    if method == "newcombe" and num_classes != 2:
        raise ValueError(f"method: 'newcombe' needs a binary task (J = 2 BA - 1), found {num_classes} classes; use 'delta' or 'bootstrap'.")
    mask = None if class_mask is None else np.flatnonzero(selected_classes(class_mask, num_classes))
    joint, joint_w2, orientation = canonical(joint, joint_w2)

    confusion_a, confusion_b = marginals(joint)
    totals, sizes = row_sizes(joint, clustered_squares(joint, joint_w2, design_factor))
    value = informedness_average(confusion_a, average, mask, zero_division)
    baseline = informedness_average(confusion_b, average, mask, zero_division)
    difference = value - baseline
    fewer_than_two = (totals > 0).sum(axis=-1) < 2

    if num_classes == 2:
        # J = 2 BA - 1 for every average (both classes have references): the balanced-
        # accuracy score test, and for "newcombe" its interval, doubled.
        paired = balanced_accuracy_difference(
            joint, confidence_level=confidence_level, method="bootstrap" if method == "bootstrap" else "newcombe",
            n_resamples=n_resamples, seed=seed, joint_w2=joint_w2, design_factor=design_factor,
        )
        p_value = np.asarray(paired["p_value"], dtype=np.float64)
        if method != "delta":
            # `joint` is canonical already, so `paired` comes back unflipped.
            low, high = (2.0 * np.asarray(x) for x in paired["difference_ci"])
        else:
            gradient_a = _gradient(confusion_a, average, mask, zero_division)
            gradient_b = _gradient(confusion_b, average, mask, zero_division)
            delta_variance, _ = variance_terms(joint, totals, sizes, gradient_a, gradient_b, smoothed_shares(joint, totals, sizes))
            half = z_value(confidence_level) * np.sqrt(delta_variance)
            low, high = difference - half, difference + half
    else:
        gradient_a = _gradient(confusion_a, average, mask, zero_division)
        gradient_b = _gradient(confusion_b, average, mask, zero_division)
        delta_variance, score_variance = variance_terms(
            joint, totals, sizes, gradient_a, gradient_b, smoothed_shares(joint, totals, sizes)
        )
        p_value = score_p_value(difference, score_variance)
        if method == "delta":
            half = z_value(confidence_level) * np.sqrt(delta_variance)
            low, high = difference - half, difference + half
        else:

            def statistic(resampled):
                a, b = marginals(resampled)
                return informedness_average(a, average, mask, zero_division) - informedness_average(b, average, mask, zero_division)

            replicates = bootstrap_joint(joint, totals, sizes, statistic, n_resamples, seed)
            low, high = percentile_interval(replicates, confidence_level, orientation == 0)
    low, high = np.clip(low, -2.0, 2.0), np.clip(high, -2.0, 2.0)
    undefined_ci = fewer_than_two | np.isnan(difference)
    low, high, p_value = (np.where(undefined_ci, np.nan, x) for x in (low, high, p_value))
    reason = "fewer_than_two_reference_classes" if (np.ndim(fewer_than_two) == 0 and fewer_than_two) else (
        "empty_class_mask_after_filtering" if class_mask is not None else "no_defined_classes"
    )
    return finish_difference((value, baseline, difference, low, high, p_value), orientation, reason)
