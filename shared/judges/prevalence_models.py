"""Several models' corrected prevalences through one judge: intervals that hold together, adjusted comparisons.

One judge labels the outputs of several evaluated models (``unlabeled`` ``(..., M, K)``: each
model's label counts); one golden set (``gold_confusion``) gives the judge's rates for all
of them. Each model's prevalence is corrected as ``prevalence.py`` corrects one
(Rogan-Gladen, adjusted classify and count), and each difference as
``corrected_prevalence_difference`` (the unconstrained estimates' difference, clipped to
[-1, 1]). The golden set's error is shared: a judge whose golden FPR came out low moves
every model's estimate up together. The intervals account for it:

**Intervals: each at Bonferroni's level, from one joint bootstrap.** Every model's interval
is the one-model interval at the marginal level ``1 - (1 - confidence_level) / M`` (M
models; for the differences, P pairs; with K > 2 classes each class's interval, as one
model's are each at ``confidence_level``): for two classes by default ``corrected_prevalence``'s
(Lee et al.'s, the smoothed bootstrap's, or the blend of the two, by ``lee_weight``);
``"bootstrap"`` and more classes the bootstrap's; each difference the bootstrap's
(``replicates_interval``, the restricted rule at the bounds, its replicates centred on the
estimate as ``corrected_prevalence_difference``'s). The bootstrap's replicates are drawn
jointly: each draws the golden rows' rates once (Dirichlet(row counts + 1), as the
one-model bootstrap) and each model's shares from Dirichlet(counts + 1), and recomputes
every model's estimate and every difference. With one model the result *is*
``corrected_prevalence``'s, and one pair's difference is ``corrected_prevalence_difference``'s
(the same draws: the golden rows first, then the models in order).

A level calibrated on the joint replicates was measured and not adopted
(``calibration="min_p"``, ``simultaneous_level``): the smallest marginal level at which the
replicates fall inside all the family's marginal intervals together in a share
``confidence_level`` of them (the min-P / simultaneous-percentile bootstrap), lower than
Bonferroni's where the shared golden set moves the estimates together. On the same sets
and draws of studies/prevalence_models/results.md its family-wise coverage of the
prevalences fell to 0.927 (one cell below 0.93), where Bonferroni's level kept 0.943 or
more in every cell, at a mean width 0.414 against 0.453: the one-model intervals are not
accurate enough in their far tails for the calibration to spend the margin.

**p-values of the differences.** Under the correction's assumption (the judge errs alike
on every model's outputs) two models' prevalences are equal exactly when the judge's
label shares on their outputs are (``C^T`` is invertible wherever the estimate is given),
so H0 ``p_a = p_b`` is tested on the label counts alone: Pearson's chi-square test of
homogeneity of the two models' counts (K - 1 degrees of freedom), whatever the golden
set. Adjusted by Holm's step-down over the family (every pair, or each model against a
``reference`` model): rejecting where an adjusted p-value is below ``alpha`` errs on a true
H0 of the family with probability at most ``alpha``, under any dependence.

**Refused** (NaN with a reason) by the one rule of ``prevalence.py`` (``"informedness_too_small"``:
|J|, or the smallest singular value for K > 2, at most ``min_informedness``;
``"class_without_golden_references"``; per model ``"no_unlabeled_predictions"``). An
interval that spans every value ([0, 1], or [-1, 1] for a difference) carries an
``interval_reason``: ``"judge_not_told_from_chance"`` where the replicates that cannot be
inverted alone reach the interval's tails (the golden set cannot tell the judge from a
guesser at this level), else ``"interval_spans_all_values"``.

Coverage (family-wise, 2-5 models, golden sets of 30-300, J 0.3-0.95, prior shift,
clustered golden items): ``studies/prevalence_models/results.md``.
"""

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .prevalence import PrevalenceSettings
from .prevalence import strength_summary
from .prevalence import corrected_prevalence
from .prevalence import nan_interval
from .prevalence import plain_interval
from .prevalence import plain_value
from .prevalence import refusal_reason
from .prevalence import spans_all
from .prevalence import spanning_reason
from .prevalence import warn_if_labels_look_swapped
from .prevalence_arrays import centred_differences
from .prevalence_arrays import check_unlabeled
from .prevalence_arrays import corrected_prevalence_arrays
from .prevalence_arrays import joint_replicates
from .prevalence_arrays import lee_interval_arrays
from .prevalence_arrays import lee_weight
from .prevalence_arrays import replicates_interval
from .prevalence_ppi import homogeneity_p_values

# A check of the model names a mapping gives (unlabeled_predictions, reference_model).
MODELS_HINT = "a mapping from each evaluated model's name (a string) to the judge's labels on that model's outputs"


def check_reference_model(value: Any, name: str = "reference_model") -> Optional[str]:
    """None (every pair of models compared) or the name of the model the others are compared with."""
    if value is not None and (not isinstance(value, str) or not value):
        raise TypeError(f"{name}: expected the name (a string) of one of the models in unlabeled_predictions, found {value!r}.")
    return value


def check_model_names(names: List[Any]) -> List[str]:
    """The model names of a mapping: non-empty strings, at least one, no two equal once spaces and case are set aside."""
    if not names:
        raise ValueError(f"unlabeled_predictions: expected {MODELS_HINT}, found an empty mapping.")
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"unlabeled_predictions: expected model names that are non-empty strings, found {name!r} "
                            f"({type(name).__name__}).")
    folded: Dict[str, str] = {}
    for name in names:
        key = name.strip().casefold()
        if key in folded:
            raise ValueError(f"unlabeled_predictions: expected distinct model names, found {folded[key]!r} and "
                             f"{name!r}, which differ only by case or spaces; rename one.")
        folded[key] = name
    return names


# ----------------------------------------------------------------------------------------
# Vectorised building blocks
# ----------------------------------------------------------------------------------------


def simultaneous_level(components: np.ndarray, undefined: np.ndarray, confidence_level: float) -> np.ndarray:
    """The common marginal level of a family (see the module doc): ``components`` ``(R, ..., C)``
    the replicates of its C components, ``undefined`` ``(R, ...)``. Returns ``(...)``, between
    ``confidence_level`` and ``1 - (1 - confidence_level) / C``.

    >>> rng = np.random.default_rng(0)
    >>> independent = rng.standard_normal((20000, 3))
    >>> round(float(simultaneous_level(independent, np.zeros(20000, bool), 0.95)), 3)  # Sidak: 0.95 ** (1/3)
    0.983
    >>> together = np.repeat(rng.standard_normal((20000, 1)), 3, axis=1)
    >>> round(float(simultaneous_level(together, np.zeros(20000, bool), 0.95)), 3)
    0.95
    """
    resamples, size = components.shape[0], components.shape[-1]
    placed = np.where(undefined[..., None], np.inf, components)
    order = np.argsort(placed, axis=0, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(resamples).reshape((-1,) + (1,) * (order.ndim - 1)), axis=0)
    lost = undefined.sum(axis=0)[..., None]  # undefined replicates: at both ends of every component
    depth = lost + np.minimum(rank, resamples - lost - 1 - rank)
    depth = np.where(undefined[..., None], resamples, depth).min(axis=-1)
    tail = np.quantile(depth, 1.0 - confidence_level, axis=0, method="lower")
    level = 1.0 - 2.0 * tail / max(resamples - 1, 1)
    return np.clip(level, confidence_level, 1.0 - (1.0 - confidence_level) / size)


def model_pairs(names: Sequence[str], reference: Optional[str]) -> List[Tuple[int, int]]:
    """The compared pairs (first minus second): every pair in the order given, or each model against ``reference``."""
    if reference is None:
        return [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    index = list(names).index(reference)
    return [(i, index) for i in range(len(names)) if i != index]


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment over the last axis (NaN stays NaN and is not counted).

    >>> holm(np.array([0.01, 0.04, 0.03])).tolist()
    [0.03, 0.06, 0.06]
    """
    p_values = np.asarray(p_values, dtype=np.float64)
    finite = np.isfinite(p_values)
    size = finite.sum(axis=-1, keepdims=True)
    order = np.argsort(np.where(finite, p_values, np.inf), axis=-1, kind="stable")
    ordered = np.take_along_axis(p_values, order, axis=-1)
    steps = size - np.arange(p_values.shape[-1])
    adjusted = np.minimum(np.maximum.accumulate(np.where(np.isfinite(ordered), ordered * steps, -np.inf), axis=-1), 1.0)
    result = np.empty_like(p_values)
    np.put_along_axis(result, order, adjusted, axis=-1)
    return np.where(finite, result, np.nan)


def family_level(components: np.ndarray, undefined: np.ndarray, confidence_level: float,
                 calibration: str) -> np.ndarray:
    """A family's marginal level from the replicates ``(R, ..., C, K)`` of its C members' classes (its models,
    or pairs): Bonferroni's ``1 - (1 - confidence_level) / C`` (each class's interval at that level, as one
    model's are each at ``confidence_level``: ``"bonferroni"``, the default), or the joint bootstrap's over
    the components (``"min_p"``, ``simultaneous_level``; measured and not adopted:
    studies/prevalence_models/results.md)."""
    if calibration == "min_p":
        return simultaneous_level(components.reshape(components.shape[:-2] + (-1,)), undefined, confidence_level)
    return np.full(components.shape[1:-2], 1.0 - (1.0 - confidence_level) / components.shape[-2])


def simultaneous_intervals_arrays(gold_confusion: Any, unlabeled: Any, pairs: Sequence[Tuple[int, int]], *,
                                  confidence_level: float, method: Optional[str], n_resamples: int, seed: Optional[int],
                                  min_informedness: float, calibration: str = "bonferroni") -> Dict[str, np.ndarray]:
    """Every model's interval and every pair's, simultaneous per family, vectorised over leading axes.

    ``gold_confusion`` ``(..., K, K)``, ``unlabeled`` ``(..., M, K)``, ``pairs`` the compared
    (first, second) indices. ``method``: None (two classes: Lee's, the joint bootstrap's or the
    blend, by ``lee_weight``) or ``"bootstrap"``. Returns ``low``/``high`` ``(..., M, K)``,
    ``difference_low``/``difference_high`` ``(..., P, K)``, ``level`` and ``difference_level``
    (the families' marginal levels, ``(...)``), ``lee_weight`` ``(...)`` and ``undefined_share`` ``(...)``.
    """
    confusion = np.asarray(gold_confusion, dtype=np.float64)
    unlabeled = np.asarray(unlabeled, dtype=np.float64)
    binary = confusion.shape[-1] == 2
    drawn = joint_replicates(confusion, unlabeled, n_resamples=n_resamples, seed=seed, min_informedness=min_informedness)
    undefined = drawn["undefined"]
    raw = corrected_prevalence_arrays(confusion[..., None, :, :], unlabeled, min_informedness)["raw"]
    # Two classes: class 1 alone (class 0's interval is its mirror image); more: every class.
    kept = slice(1, 2) if binary else slice(None)
    replicated, projected, point = drawn["raw"][..., kept], drawn["estimate"][..., kept], raw[..., kept]
    level = family_level(replicated, undefined, confidence_level, calibration)
    where = undefined[..., None, None]
    share = undefined.mean(axis=0)
    found: Dict[str, np.ndarray] = {"level": level, "undefined_share": share}
    low, high = replicates_interval(projected, replicated, where, point, level[..., None, None], 0.0)
    weight = np.zeros(confusion.shape[:-2])
    if method is None and binary:
        lee_low, lee_high, flipped = lee_interval_arrays(confusion[..., None, :, :], unlabeled, level[..., None])
        weight = np.where(flipped.any(axis=-1), 0.0, lee_weight(confusion))  # flipped: the golden set alone decides
        w = weight[..., None, None]
        low, high = (np.where(w > 0, w * np.nan_to_num(lee)[..., None] + (1.0 - w) * boot, boot)
                     for lee, boot in ((lee_low, low), (lee_high, high)))
    if binary:
        low, high = np.concatenate([1.0 - high, low], axis=-1), np.concatenate([1.0 - low, high], axis=-1)
    found.update(low=low, high=high, lee_weight=weight)
    if len(pairs):
        first, second = np.array(pairs, dtype=np.int64).T
        differences = replicated[..., first, :] - replicated[..., second, :]
        difference_level = family_level(differences, undefined, confidence_level, calibration)
        estimate = point[..., first, :] - point[..., second, :]
        clipped, differences = centred_differences(differences, where, estimate)  # as corrected_prevalence_difference
        d_low, d_high = replicates_interval(clipped, differences, where, estimate, difference_level[..., None, None], -1.0)
        if binary:
            d_low, d_high = np.concatenate([-d_high, d_low], axis=-1), np.concatenate([-d_low, d_high], axis=-1)
        found.update(difference_low=d_low, difference_high=d_high, difference_level=difference_level)
    return found


# ----------------------------------------------------------------------------------------
# Public API
# ----------------------------------------------------------------------------------------


def corrected_prevalences(
    gold_confusion: Any,
    unlabeled_by_model: Mapping[str, Any],
    *,
    reference: Optional[str] = None,
    classes: Optional[Sequence[Any]] = None,
    **settings: Any,
) -> Dict[str, Any]:
    """Several models' corrected prevalences through one judge, with simultaneous intervals and adjusted p-values.

    ``gold_confusion``: the judge's ``K x K`` golden counts; ``unlabeled_by_model``: model
    name -> the judge's ``K`` label counts on that model's outputs. ``reference``: None
    (every pair, first minus second in the order given) or a model's name (every other
    model minus it). The keywords are ``corrected_prevalence``'s (``PrevalenceSettings``);
    ``method``: None (the default) or ``"bootstrap"``.

    Returns ``models`` (per model, in order: ``name`` and ``corrected_prevalence``'s keys:
    ``estimate``, ``reason``, ``clipped``, ``measured_prevalence``, with
    ``confidence_level`` ``interval`` and ``interval_reason``), ``differences`` (per pair:
    ``models`` [first, second], ``estimate``, ``reason``, ``clipped``,
    ``measured_difference``, ``p_value`` (Holm-adjusted over the pairs), with
    ``confidence_level`` ``interval``, ``interval_reason``), ``informedness``,
    ``min_singular_value`` and, with ``confidence_level``, ``method``, ``marginal_level``
    and ``difference_marginal_level`` (each family's per-interval level). One model: its
    entry is ``corrected_prevalence``'s result exactly (``marginal_level`` the level).

    Examples
    --------
    TPR 0.8, FPR 0.1 on 1,000 golden items; three models' outputs flagged 240, 170 and 100 of 1,000:

    >>> found = corrected_prevalences([[855, 95], [10, 40]], {"a": [760, 240], "b": [830, 170], "c": [900, 100]},
    ...                               confidence_level=0.95, seed=0)
    >>> [round(entry["estimate"], 4) for entry in found["models"]]
    [0.2, 0.1, 0.0]
    >>> [(entry["models"], round(entry["estimate"], 4)) for entry in found["differences"]]
    [(['a', 'b'], 0.1), (['a', 'c'], 0.2), (['b', 'c'], 0.1)]
    >>> found["marginal_level"] > 0.95, found["difference_marginal_level"] > 0.95
    (True, True)
    """
    names = check_model_names(list(unlabeled_by_model))
    given = PrevalenceSettings.given("corrected_prevalences", settings)
    confusion = given.golden_confusion(gold_confusion)
    num_classes = confusion.shape[-1]
    vectors = [check_unlabeled(f"unlabeled_predicted[{name!r}]", unlabeled_by_model[name], num_classes)
               for name in names]
    if reference is not None and reference not in names:
        raise ValueError(f"reference_model: expected one of the models {names}, found {reference!r}.")
    checked = given.checked(num_classes, difference=len(names) > 1)
    if checked.method == "delta" or (checked.method == "lee" and len(names) > 1):
        raise ValueError(f"method: expected None or 'bootstrap' for several models' simultaneous intervals, found {checked.method!r}.")
    method = None if given.method is None else checked.method
    level, binary = checked.confidence_level, num_classes == 2
    arguments = {"confidence_level": level, "method": method, "n_resamples": checked.n_resamples, "seed": checked.seed,
                 "min_informedness": checked.min_informedness, "weighted_gold": checked.weighted_gold}
    if len(names) == 1:  # one model: corrected_prevalence itself
        single = corrected_prevalence(confusion, vectors[0], classes=classes, **arguments)
        entry = {"name": names[0], **{key: single[key] for key in ("estimate", "reason", "clipped", "measured_prevalence")}}
        result = {"models": [entry], "differences": [], "informedness": single["informedness"],
                  "min_singular_value": single["min_singular_value"]}
        if level is not None:
            entry.update(interval=single["interval"], interval_reason=single["interval_reason"])
            result.update(method=single["method"], marginal_level=level, difference_marginal_level=None)
        return result

    pairs = model_pairs(names, reference)
    stacked = np.stack(vectors)
    point = corrected_prevalence_arrays(confusion[None], stacked, checked.min_informedness)
    # The one rule (prevalence.py), per model: a model with no labels is refused alone.
    strength = float(point["strength"][0])
    reasons = [refusal_reason(confusion, [vector], strength, checked.min_informedness) for vector in vectors]
    if any(reason is None for reason in reasons):
        warn_if_labels_look_swapped(confusion, classes)
    models = [{"name": name, "estimate": plain_value(point["estimate"][m], binary), "reason": reasons[m],
               "clipped": bool(point["clipped"][m]), "measured_prevalence": plain_value(point["measured"][m], binary)}
              for m, name in enumerate(names)]
    first, second = [i for i, _ in pairs], [j for _, j in pairs]
    refused = [reasons[i] or reasons[j] for i, j in pairs]
    p_values = homogeneity_p_values(stacked[first], stacked[second])
    adjusted = holm(np.where([reason is None for reason in refused], p_values, np.nan))
    raw = point["raw"][first] - point["raw"][second]
    estimate, measured = np.clip(raw, -1.0, 1.0), point["measured"][first] - point["measured"][second]
    differences = [{"models": [names[i], names[j]], "estimate": plain_value(estimate[k], binary), "reason": refused[k],
                    "clipped": bool(refused[k] is None and np.abs(estimate[k] - raw[k]).max() > 1e-12),
                    "measured_difference": plain_value(measured[k], binary), "p_value": float(adjusted[k])}
                   for k, (i, j) in enumerate(pairs)]
    result = {"models": models, "differences": differences, **strength_summary(confusion, strength)}
    if level is None:
        return result
    found = simultaneous_intervals_arrays(confusion, stacked, pairs, confidence_level=level, method=method,
                                          n_resamples=checked.n_resamples, seed=checked.seed,
                                          min_informedness=checked.min_informedness)
    weight = float(found["lee_weight"])
    result.update(method="lee" if weight == 1.0 else "bootstrap" if weight == 0.0 else "lee_bootstrap",
                  marginal_level=float(found["level"]), difference_marginal_level=float(found["difference_level"]))
    share = float(found["undefined_share"])
    # An interval spanning every value carries why (interval_reason).
    for entries, prefix, at_level, floor in ((models, "", result["marginal_level"], 0.0),
                                             (differences, "difference_", result["difference_marginal_level"], -1.0)):
        for index, entry in enumerate(entries):
            given = entry["reason"] is None
            low, high = found[prefix + "low"][index], found[prefix + "high"][index]
            entry["interval"] = plain_interval(low, high, binary) if given else nan_interval(num_classes)
            spans = given and spans_all(entry["interval"], floor)
            entry["interval_reason"] = spanning_reason(share, at_level) if spans else None
    return result
