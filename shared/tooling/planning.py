"""Planning a golden set: how many items an interval of a given width, or a comparison of two judges, needs.

``plan_golden_set``: the smallest golden set whose balanced-accuracy or informedness
interval (the module's analytic interval at the expected counts) has at most a target
half-width. ``plan_judge_comparison``: the golden set that detects a given difference of
informedness between two judges with a given power (paired, McNemar-type). For the
corrected prevalence: ``allocate_golden_budget``, Lee et al.'s split of a labelling
budget between golden negatives and positives (Rogan-Gladen / Lee's interval), and
``plan_ppi_golden_set``, the random golden sample PPI++ needs for a target width.

A planning tool, not used by the metric modules (so not vendored into their folders):
``examples/plan_golden_set.py`` prints plans.
"""

import math
import numbers
from statistics import NormalDist
from typing import Any, Dict, Optional, Tuple, Union

from ..stats.binomial import DEFAULT_CI_METHOD
from ..glue.options import check_ci_method
from ..stats.vocabulary import check_confidence_level
from ..stats.distributions import z_value
from ..metrics.balanced_accuracy import recall_mean_interval
from ..judges.prevalence_arrays import lee_interval_arrays


def _check_rate(name: str, value: Any, low_open: bool = False, high_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ValueError(f"{name}: expected a number, found {value!r}.")
    value = float(value)
    if (value <= 0.0 if low_open else value < 0.0) or (value >= 1.0 if high_open else value > 1.0):
        raise ValueError(f"{name}: expected a number in {'(' if low_open else '['}0, 1{')' if high_open else ']'}, found {value!r}.")
    return value



def _expected_half_width(size: float, tpr: float, tnr: float, prevalence: float, level: float, metric: str, ci_method: str) -> float:
    """Half-width of the module's analytic interval at the expected counts of a set of ``size``."""
    positives, negatives = prevalence * size, (1.0 - prevalence) * size
    interval = recall_mean_interval(
        [tnr * negatives, tpr * positives], [negatives, positives], confidence_level=level, method=ci_method
    )
    half = (interval.high - interval.low) / 2.0
    return 2.0 * half if metric == "informedness" else half


def plan_golden_set(
    target_half_width: float,
    *,
    tpr: float,
    tnr: float,
    prevalence: float,
    confidence_level: float = 0.95,
    metric: str = "balanced_accuracy",
    ci_method: str = DEFAULT_CI_METHOD,
) -> Dict[str, Any]:
    """Golden-set size for a target interval half-width on balanced accuracy or binary J.

    The golden set holds positives and negatives in the ratio ``prevalence``; the judge is
    expected to have true positive rate ``tpr`` and true negative rate ``tnr``. The plan is
    the smallest size at which the interval the modules return (``ci_method``, default
    the modules' "score" interval; "agresti_coull" or "wilson" per rate, combined by MOVER) has half-width ``(high - low) / 2``
    at most ``target_half_width`` when the counts equal their expectations. Binary
    J = 2 BA - 1, so ``metric="informedness"`` needs the half-width of BA's interval to be
    half the target. Unlike the Wald formula ``z^2 [TPR(1-TPR)/n_1 + TNR(1-TNR)/n_0] / 4``
    it stays sensible for rates near 1 (Wald would promise a zero-width interval at
    TPR = 1). About half of the realised golden sets of that size come out wider, half
    narrower; ask for a smaller target for more assurance.

    Returns ``positives``, ``negatives``, ``total`` (each class size rounded up),
    ``expected_half_width`` (at those sizes), and ``wald_total`` (the Wald formula's size,
    for comparison).

    Examples
    --------
    >>> plan = plan_golden_set(0.05, tpr=0.8, tnr=0.9, prevalence=0.5)
    >>> plan["total"] > 0 and plan["expected_half_width"] <= 0.05
    True
    """
    if metric not in ("balanced_accuracy", "informedness"):
        raise ValueError(f"metric: expected 'balanced_accuracy' or 'informedness', found {metric!r}.")
    limit = 0.5 if metric == "balanced_accuracy" else 1.0
    if isinstance(target_half_width, bool) or not isinstance(target_half_width, numbers.Real) or not 0.0 < target_half_width < limit:
        raise ValueError(f"target_half_width: expected a number in (0, {limit}) for {metric}, found {target_half_width!r}.")
    tpr, tnr = _check_rate("tpr", tpr), _check_rate("tnr", tnr)
    prevalence = _check_rate("prevalence", prevalence, low_open=True, high_open=True)
    level = check_confidence_level(confidence_level)
    ci_method = check_ci_method(ci_method) or DEFAULT_CI_METHOD
    if ci_method in ("bootstrap", "delta"):
        raise ValueError("ci_method: the plan uses an analytic interval ('score', 'agresti_coull' or 'wilson').")
    z = z_value(level)
    scale = 1.0 if metric == "balanced_accuracy" else 2.0
    wald = (z * scale / 2.0) ** 2 * (tpr * (1 - tpr) / prevalence + tnr * (1 - tnr) / (1 - prevalence)) / target_half_width**2

    def width(size):
        return _expected_half_width(size, tpr, tnr, prevalence, level, metric, ci_method)

    low, high = 1.0, max(2.0, wald)
    while width(high) > target_half_width:
        low, high = high, high * 2.0
        if high > 1e12:
            raise ValueError("target_half_width: not reachable with fewer than 10^12 items.")
    for _ in range(200):  # bisection on the (continuous) size
        middle = 0.5 * (low + high)
        if width(middle) > target_half_width:
            low = middle
        else:
            high = middle
        if high - low < 1e-3:
            break
    positives = int(math.ceil(prevalence * high - 1e-9))
    negatives = int(math.ceil((1.0 - prevalence) * high - 1e-9))
    achieved = recall_mean_interval(
        [tnr * negatives, tpr * positives], [negatives, positives], confidence_level=level, method=ci_method
    )
    return {
        "positives": positives,
        "negatives": negatives,
        "total": positives + negatives,
        "expected_half_width": float(scale * (achieved.high - achieved.low) / 2.0),
        "wald_total": int(math.ceil(wald)),
        "metric": metric,
        "ci_method": ci_method,
        "confidence_level": level,
    }


def _pair(name: str, value: Any) -> Tuple[float, float]:
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"{name}: expected a number or a pair (judge A, judge B), found {value!r}.")
        return _check_rate(name, value[0]), _check_rate(name, value[1])
    rate = _check_rate(name, value)
    return rate, rate


def plan_judge_comparison(
    delta_j: float,
    *,
    tpr: Union[float, Tuple[float, float]],
    tnr: Union[float, Tuple[float, float]],
    prevalence: float,
    agreement: Union[None, float, Tuple[float, float]] = None,
    power: float = 0.8,
    alpha: float = 0.05,
) -> Dict[str, Any]:
    """Golden items (each labelled by both judges) needed to detect ``J_B - J_A = delta_j``.

    ``tpr`` / ``tnr``: judge A's rates, judge B's being ``delta_j / 2`` higher on each; or
    pairs ``(A, B)`` (then ``delta_j`` must equal their difference in J). ``agreement``:
    the share of items on which the two judges give the same label, among positives and
    among negatives (one number for both, or a pair ``(positives, negatives)``), e.g. from
    a pilot; None: the judges err independently given the true class. Paired proportions
    (McNemar): with discordance ``d = 1 - agreement`` among a class's n items,
    ``Var(rate_B - rate_A) = (d - (rate_B - rate_A)^2) / n``; independent errors give
    ``d = a(1-b) + b(1-a)``. The size is that of the two-sided level-``alpha`` z test of
    ``Delta J = 0`` reaching ``power``:
    ``n = (z_{1-alpha/2} + z_power)^2 [V_1 / pi + V_0 / (1 - pi)] / delta_j^2``.
    Judges that agree more need fewer items (their errors cancel in the difference).

    Returns ``positives``, ``negatives``, ``total`` (rounded up), ``judge_a`` and ``judge_b``
    (their TPR, TNR, J).

    Examples
    --------
    >>> plan = plan_judge_comparison(0.1, tpr=0.8, tnr=0.9, prevalence=0.3)
    >>> plan["judge_b"]["j"]
    0.8
    """
    if isinstance(delta_j, bool) or not isinstance(delta_j, numbers.Real) or not 0.0 < abs(float(delta_j)) < 2.0:
        raise ValueError(f"delta_j: expected a non-zero number in (-2, 2), found {delta_j!r}.")
    delta_j = float(delta_j)
    prevalence = _check_rate("prevalence", prevalence, low_open=True, high_open=True)
    power = _check_rate("power", power, low_open=True, high_open=True)
    alpha = _check_rate("alpha", alpha, low_open=True, high_open=True)
    if isinstance(tpr, (tuple, list)) or isinstance(tnr, (tuple, list)):
        tpr_a, tpr_b = _pair("tpr", tpr)
        tnr_a, tnr_b = _pair("tnr", tnr)
        if abs((tpr_b + tnr_b) - (tpr_a + tnr_a) - delta_j) > 1e-9:
            raise ValueError("delta_j: must equal judge B's J minus judge A's when tpr/tnr are given as pairs.")
    else:
        tpr_a, tnr_a = _check_rate("tpr", tpr), _check_rate("tnr", tnr)
        tpr_b, tnr_b = tpr_a + delta_j / 2.0, tnr_a + delta_j / 2.0
        if not (0.0 <= tpr_b <= 1.0 and 0.0 <= tnr_b <= 1.0):
            raise ValueError(
                f"delta_j: judge B's rates {tpr_b:.3g}, {tnr_b:.3g} (judge A's + delta_j / 2) leave [0, 1]; pass tpr and tnr as pairs (A, B)."
            )
    variances = []
    agreements = (None, None) if agreement is None else _pair("agreement", agreement)
    for name, a, b, agree in (("positives", tpr_a, tpr_b, agreements[0]), ("negatives", tnr_a, tnr_b, agreements[1])):
        if agree is None:
            variances.append(a * (1 - a) + b * (1 - b))
            continue
        discordance = 1.0 - agree
        if not abs(b - a) - 1e-12 <= discordance <= min(a + b, 2.0 - a - b) + 1e-12:
            raise ValueError(
                f"agreement: among {name} the judges' rates {a:.3g} and {b:.3g} allow a disagreement between "
                f"{abs(b - a):.3g} and {min(a + b, 2 - a - b):.3g}, found {discordance:.3g}."
            )
        variances.append(max(discordance - (b - a) ** 2, 0.0))
    z_alpha = NormalDist().inv_cdf(1.0 - alpha / 2.0)
    z_power = NormalDist().inv_cdf(power)
    size = (z_alpha + z_power) ** 2 * (variances[0] / prevalence + variances[1] / (1.0 - prevalence)) / delta_j**2
    positives = max(1, int(math.ceil(prevalence * size - 1e-9)))
    negatives = max(1, int(math.ceil((1.0 - prevalence) * size - 1e-9)))
    return {
        "positives": positives,
        "negatives": negatives,
        "total": positives + negatives,
        "judge_a": {"tpr": tpr_a, "tnr": tnr_a, "j": round(tpr_a + tnr_a - 1.0, 12)},
        "judge_b": {"tpr": tpr_b, "tnr": tnr_b, "j": round(tpr_b + tnr_b - 1.0, 12)},
        "power": power,
        "alpha": alpha,
        "agreement": agreement,
    }


def _check_count(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name}: expected an integer of at least {minimum}, found {value!r}.")
    return int(value)


def _lee_half_width(negatives: float, positives: float, tnr: float, tpr: float, share: float, unlabeled: int, level: float) -> float:
    """Half-width of Lee et al.'s interval when every count equals its expectation."""
    confusion = [[tnr * negatives, (1 - tnr) * negatives], [(1 - tpr) * positives, tpr * positives]]
    low, high, _ = lee_interval_arrays(confusion, [(1 - share) * unlabeled, share * unlabeled], level)
    return float(high - low) / 2.0


def allocate_golden_budget(
    budget: int,
    *,
    measured_prevalence: float,
    tnr: float,
    tpr: float,
    pilot: int = 0,
    unlabeled_size: Optional[int] = None,
    confidence_level: float = 0.95,
) -> Dict[str, Any]:
    """Lee et al.'s (2025) adaptive split of a labelling budget between golden negatives and positives.

    The corrected prevalence's variance has a term for the judge's specificity (TNR), over
    the golden negatives, and one for its sensitivity (TPR), over the golden positives; the
    split that balances them gives positives ``m1 = m / (1 + (1/q - 1) sqrt(kappa))`` of
    the budget ``m``, where ``q`` is the share the judge flags on the new data
    (``measured_prevalence``) and ``kappa = (n_p (1 - TNR) + 1) / (n_p (1 - TPR) + 1)`` is
    the ratio of the judge's error rates from a pilot of ``n_p`` items of each class
    (``pilot``; with ``pilot=0`` the rates are taken as given: ``kappa = (1 - TNR) /
    (1 - TPR)``, TPR capped at 1 - 10^-6). ``m1`` is rounded (half to even) and kept in
    ``[pilot, m - pilot]``; the negatives are the rest. As the reference code
    ``allocate_calibration_sample(m, p, q0_pilot, q1_pilot, m_pilot)`` of
    ``llm_judge_reporting``, except for ``q < 10^-6``: the reference then gives all but the
    pilot to the positives, the opposite of its formula's limit; here the formula's limit
    (the pilot's positives only, the rest to negatives).

    With ``unlabeled_size``, also the expected half-widths of Lee's interval (every count at
    its expectation) for this split and for an equal one.

    Examples
    --------
    Their README's example: a budget of 200, q = 0.4, pilot specificity 0.7 and sensitivity
    0.9 from 10 items of each class:

    >>> plan = allocate_golden_budget(200, measured_prevalence=0.4, tnr=0.7, tpr=0.9, pilot=10)
    >>> plan["negatives"], plan["positives"]
    (136, 64)
    """
    budget = _check_count("budget", budget, 2)
    pilot = _check_count("pilot", pilot, 0)
    if 2 * pilot > budget:
        raise ValueError(f"pilot: expected at most half the budget ({budget // 2}) per class, found {pilot}.")
    share = _check_rate("measured_prevalence", measured_prevalence)
    tnr, tpr = _check_rate("tnr", tnr), _check_rate("tpr", tpr)
    level = check_confidence_level(confidence_level)
    if pilot == 0:
        kappa = (1.0 - tnr) / (1.0 - min(tpr, 1.0 - 1e-6))
    else:
        kappa = (pilot * (1.0 - tnr) + 1.0) / (pilot * (1.0 - tpr) + 1.0)
    if share < 1e-6:
        positives = pilot  # the limit of the formula as q -> 0
    else:
        positives = budget / (1.0 + (1.0 / share - 1.0) * math.sqrt(kappa))
        positives = max(pilot, round(min(budget - pilot, positives)))
    plan = {"negatives": budget - positives, "positives": positives, "total": budget, "kappa": kappa}
    if unlabeled_size is not None:
        unlabeled_size = _check_count("unlabeled_size", unlabeled_size, 1)
        if tnr + tpr - 1.0 <= 0:
            raise ValueError(f"tnr, tpr: expected a judge better than chance (tnr + tpr > 1), found {tnr + tpr:g}.")
        plan["expected_half_width"] = _lee_half_width(plan["negatives"], positives, tnr, tpr, share, unlabeled_size, level)
        plan["equal_split_half_width"] = _lee_half_width(budget / 2, budget / 2, tnr, tpr, share, unlabeled_size, level)
    return plan


def ppi_correlation(tpr: float, tnr: float, prevalence: float) -> float:
    """Correlation of ``[truth is positive]`` and ``[judge says positive]`` for a judge with
    these rates at this prevalence (the phi coefficient; PPI's "PPI correlation"):
    ``J sqrt(pi (1 - pi) / (q (1 - q)))`` with ``q = FPR + J pi``.

    Examples
    --------
    >>> round(ppi_correlation(0.8, 0.9, 0.2), 4)
    0.6556
    """
    tpr, tnr = _check_rate("tpr", tpr), _check_rate("tnr", tnr)
    prevalence = _check_rate("prevalence", prevalence, low_open=True, high_open=True)
    informedness = tpr + tnr - 1.0
    flagged = (1.0 - tnr) + informedness * prevalence
    if flagged <= 0.0 or flagged >= 1.0:
        return 0.0  # the judge gives one label to everything: no information
    return informedness * math.sqrt(prevalence * (1.0 - prevalence) / (flagged * (1.0 - flagged)))


def plan_ppi_golden_set(
    target_half_width: float,
    *,
    tpr: float,
    tnr: float,
    prevalence: float,
    unlabeled_size: int,
    confidence_level: float = 0.95,
) -> Dict[str, Any]:
    """Golden-set size for a target half-width of the PPI++ prevalence interval.

    The golden set is a random sample of the new data (PPI's assumption), whose prevalence
    is ``prevalence``; the judge has rates ``tpr``, ``tnr`` and labels ``unlabeled_size``
    new items. With the power-tuned weight, PPI++'s variance with ``n`` golden items is
    ``pi (1 - pi) / n_eff``, ``n_eff = n (n + N) / (n + (1 - rho^2) N)`` (the "effective
    sample size" of Broska, Howes & van Loon, as in ppi-python's power analysis), with
    ``rho`` the correlation of truth and judge (``ppi_correlation``). The plan is the
    smallest ``n`` with ``z sqrt(pi (1 - pi) / n_eff) <= target``: ``n_eff`` must reach
    ``z^2 pi (1 - pi) / target^2`` (``classical_size``: the golden set alone would need that
    many), and for fixed ``N`` that is a quadratic in ``n``. A large ``N`` brings it down to
    ``(1 - rho^2)`` times the classical size, never below.

    Returns ``golden``, ``classical_size``, ``correlation``, ``expected_half_width`` (at
    ``golden``).

    Examples
    --------
    >>> plan = plan_ppi_golden_set(0.02, tpr=0.8, tnr=0.9, prevalence=0.2, unlabeled_size=100_000)
    >>> plan["golden"] < plan["classical_size"]
    True
    """
    if isinstance(target_half_width, bool) or not isinstance(target_half_width, numbers.Real) or not 0.0 < target_half_width < 0.5:
        raise ValueError(f"target_half_width: expected a number in (0, 0.5), found {target_half_width!r}.")
    unlabeled_size = _check_count("unlabeled_size", unlabeled_size, 1)
    level = check_confidence_level(confidence_level)
    correlation = ppi_correlation(tpr, tnr, prevalence)
    variance = prevalence * (1.0 - prevalence)
    z = z_value(level)
    effective = z * z * variance / target_half_width**2
    inverse = 1.0 / effective
    slope = inverse * unlabeled_size - 1.0
    golden = (-slope + math.sqrt(slope**2 + 4.0 * inverse * (1.0 - correlation**2) * unlabeled_size)) / (2.0 * inverse)
    golden = max(2, int(math.ceil(golden - 1e-9)))

    def half_width(n):
        return z * math.sqrt(variance * (n + (1.0 - correlation**2) * unlabeled_size) / (n * (n + unlabeled_size)))

    return {
        "golden": golden,
        "classical_size": int(math.ceil(effective - 1e-9)),
        "correlation": correlation,
        "expected_half_width": half_width(golden),
        "unlabeled_size": unlabeled_size,
        "confidence_level": level,
    }
