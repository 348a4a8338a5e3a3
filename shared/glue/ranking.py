"""Several judges ranked on one golden set (``judges=``): one spec, maxT over its paired comparisons.

Every number comes from the module's own ``MetricSpec``: each judge's value and interval
(``spec.value``), each judge-vs-best comparison (``reduction.clustered_comparison`` of the spec's difference on
that pair's joint counts, the call ``baseline_predictions`` makes, so with two judges
the p-value *is* the paired comparison's), and the correlations from ``spec.influence``
and the pairwise joint counts (``stats.ranking.judge_covariance``). maxT
(``stats.ranking``) then makes them simultaneous:

- The best judge is the one with the highest observed value (ties: the first given).
  Every other judge is compared with it by the paired test, whose two-sided p-value is
  adjusted by maxT over the J - 1 comparisons, with the correlations of the J - 1
  differences. ``in_best_set``: the best judge, and every judge whose adjusted p-value is
  at least 1 - confidence_level (cannot be told from the best). The best is chosen from
  the data; the true best is left out only if the observed best is significantly better
  than it, which the maxT adjustment holds to about 1 - confidence_level: the share of
  golden sets whose best set holds the true best is measured in
  ``studies/judge_ranking/results.md``.
- ``<metric>_ci``: each judge's interval by the module's own method (``ci_method``; the
  default score interval with its small-sample ends) at the marginal level ``2 Phi(c) - 1``,
  c the maxT critical value of the J estimates at ``confidence_level``: all J intervals
  cover together with about that probability (measured in the same study).

Clustered samples: the intervals and p-values are cluster-robust (the spec's design
effect); the correlations are those of independent items (a design effect common to
the judges cancels in them).
"""

import math
import warnings
from typing import Any, Dict, List, Mapping, Tuple

import numpy as np

from ..counting.clusters import RecallInfluence
from ..counting.inputs import to_python
from ..counting.judges import JudgesCounts
from ..counting.labels import user_stacklevel
from ..counting.paired import PairedCounts
from ..stats.ranking import correlation_of
from ..stats.ranking import judge_covariance
from ..stats.ranking import maxt_p_values
from ..stats.ranking import maxt_quantile
from .reduction import MetricSpec
from .reduction import P_VALUE_ONLY_LEVEL
from .reduction import clustered_comparison

RANKING_METHOD = ("maxT (multivariate normal, correlations from the pairwise joint counts); "
                  "per-pair p-values of the paired comparison (stratified McNemar score or exact mid-p); "
                  "intervals by the module's ci_method at the maxT marginal level")

# return_judge_p_values: at most this many judges (their 1,225 pairs' maxT takes seconds; 100 judges' 4,950, minutes).
MAX_PAIRWISE_JUDGES = 50

ONE_JUDGE = ("judges: one judge given ({name!r}); nothing was ranked, the result is that of compute(predictions=judges[{name!r}]). "
             "Pass two or more judges to rank them.")


def gradient_matrix(influence: Any, num_classes: int) -> np.ndarray:
    """A spec's influence as ``G[r, a]``: how one more item of reference r labelled a moves the value."""
    if isinstance(influence, RecallInfluence):
        right, wrong = (np.asarray(side, dtype=np.float64)[:, None] for side in (influence.right, influence.wrong))
        return np.where(np.eye(num_classes, dtype=bool), right, wrong)
    return np.nan_to_num(np.asarray(influence, dtype=np.float64))


def ranking_from_counts(spec: MetricSpec, counts: JudgesCounts, options: Mapping[str, Any]) -> Dict[str, Any]:
    """The top-ranked judge's result (as ``spec.value``) with ``judge_ranking``, ``best_judges``
    and ``judge_ranking_method`` (see the module doc)."""
    name, level = spec.name, options["confidence_level"]
    alpha = 1.0 - (level if level is not None else P_VALUE_ONLY_LEVEL)  # without intervals: the best set at 0.05
    size = len(counts.names)
    if options.get("return_judge_p_values") and size > MAX_PAIRWISE_JUDGES:
        raise ValueError(
            f"return_judge_p_values: every pair's p-value is adjusted by maxT over all J (J - 1) / 2 pairs, whose correlation is "
            f"a pairs x pairs matrix; expected at most {MAX_PAIRWISE_JUDGES} judges ({MAX_PAIRWISE_JUDGES * (MAX_PAIRWISE_JUDGES - 1) // 2:,} "
            f"pairs), found {size} ({size * (size - 1) // 2:,} pairs). The ranking itself (each judge against the best) has no such "
            "limit: leave return_judge_p_values out, or rank the few judges whose pairs you want to compare on their own.")
    plain = {**options, "confidence_level": None, "return_per_class": False, "return_confusion_matrix": False}
    values = []
    for judge_name, judge in zip(counts.names, counts.judges):
        with warnings.catch_warnings(record=True) as caught:
            # Each judge's warnings (a label it gives that no reference has), once, naming the judge.
            warnings.simplefilter("always")
            values.append(spec.value(judge, plain))
        for message in dict.fromkeys(str(warning.message) for warning in caught):
            warnings.warn(f"judges[{judge_name!r}]: {message}", UserWarning, stacklevel=user_stacklevel())
    scores = [result[name] for result in values]
    order = sorted(range(size), key=lambda i: (math.isnan(scores[i]), -scores[i] if not math.isnan(scores[i]) else 0.0, i))
    best = order[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # warned above, naming the judge
        top = spec.value(counts.judges[best], options)
    finite = [i for i in range(size) if not math.isnan(scores[i])]

    covariance = None
    if len(finite) >= 2:
        num_classes = counts.judges[best].num_classes
        gradients = np.zeros((size, num_classes, num_classes))  # zeros for a judge left out: its rows and columns stay 0
        for i in finite:
            gradients[i] = gradient_matrix(spec.influence(counts.judges[i], options), num_classes)
        covariance = judge_covariance(counts.joint, counts.joint_w2, counts.own, counts.own_w2, gradients)

    # Each judge against the best: the paired comparison's p-value, adjusted by maxT.
    others = [i for i in finite if i != best]
    p_of = dict(zip(others, maxt_pair_p_values(spec, counts, [(best, i) for i in others], covariance, options)))

    intervals: List[Dict[str, Any]] = [{}] * size
    marginal = level
    if level is not None:
        if len(finite) >= 2:
            sub = covariance[np.ix_(finite, finite)]
            critical = maxt_quantile(level, correlation_of(sub), seed=options.get("seed"))
            marginal = min(math.erf(critical / math.sqrt(2.0)), 1.0 - 1e-12)
        intervals = judge_intervals(spec, counts.judges, {**plain, "confidence_level": marginal})

    ranking: List[Dict[str, Any]] = []
    for i in order:
        entry: Dict[str, Any] = {"name": counts.names[i], name: scores[i]}
        if level is not None:
            entry[f"{name}_ci"] = intervals[i].get(f"{name}_ci", [math.nan, math.nan])
        p = None if i == best else p_of.get(i, math.nan)
        entry.update(p_value=p, in_best_set=not math.isnan(scores[i]) if p is None else bool(p >= alpha))
        reason = values[i].get("reason") or intervals[i].get(f"{name}_ci_reason")
        if reason is not None:
            entry["reason"] = reason
        ranking.append(entry)
    best_judges = [entry["name"] for entry in ranking if entry["in_best_set"]]
    result = {**top, "judge_ranking": ranking, "best_judges": best_judges, "judge_ranking_method": RANKING_METHOD}
    if level is not None:
        result["judge_ranking_marginal_level"] = marginal
    if options.get("return_judge_p_values"):
        result["judge_p_values"] = pairwise_p_values(spec, counts, options, finite, covariance, [counts.names[i] for i in order])
    return to_python(result)


def judge_intervals(spec: MetricSpec, judges: List[Any], options: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """Each judge's result under ``options`` (its interval at their level), warnings silenced (the ranking
    warned once): in one vectorised call where the spec can (``spec.intervals``, the same numbers), else one by one."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batched = spec.intervals(judges, options) if spec.intervals else [None] * len(judges)
        return [found if found is not None else spec.value(judge, options) for judge, found in zip(judges, batched)]


def maxt_pair_p_values(spec: MetricSpec, counts: JudgesCounts, pairs: List[Tuple[int, int]], covariance: Any,
                       options: Mapping[str, Any]) -> List[float]:
    """The paired p-value of each pair (i, j) of judges, adjusted by maxT with the correlations of the
    differences judge i - judge j (from the judges' ``covariance``)."""
    if not pairs:
        return []
    raw = pair_p_values(spec, [counts.pair(i, j) for i, j in pairs], options)
    first, second = (list(side) for side in zip(*pairs))
    cross = (covariance[np.ix_(first, first)] - covariance[np.ix_(second, first)] - covariance[np.ix_(first, second)]
             + covariance[np.ix_(second, second)])
    return maxt_p_values(raw, correlation_of(cross), seed=options.get("seed")).tolist()


def pairwise_p_values(spec: MetricSpec, counts: JudgesCounts, options: Mapping[str, Any], finite: List[int],
                      covariance: Any, names: List[str]) -> List[List[Any]]:
    """Every pair's paired p-value, adjusted by maxT over all J (J - 1) / 2 pairs (the correlations
    of all the differences), as a matrix in ``names``' order (None on the diagonal, NaN where a
    judge's value is undefined)."""
    index = {name: position for position, name in enumerate(counts.names)}
    pairs = [(i, j) for i in finite for j in finite if i < j]
    found = {frozenset(pair): p for pair, p in zip(pairs, maxt_pair_p_values(spec, counts, pairs, covariance, options))}
    return [[None if a == b else found.get(frozenset((index[a], index[b])), math.nan) for b in names] for a in names]


def pair_p_value(spec: MetricSpec, paired: PairedCounts, options: Mapping[str, Any]) -> float:
    """The p-value ``comparison_from_counts`` reports for this pair (``<name>_difference_p_value``),
    without the values and interval it computes beside it: the same ``clustered_comparison`` of
    the same joint counts (the p-value does not depend on the interval's method)."""
    compared = clustered_comparison(
        paired, options["confidence_level"],
        lambda: tuple(spec.influence(counts, options) for counts in (paired.system, paired.baseline)),
        lambda factor: spec.difference(paired.joint, paired.joint_w2, options, None, factor))
    return float(compared["p_value"])


def pair_p_values(spec: MetricSpec, pairs: List[PairedCounts], options: Mapping[str, Any]) -> List[float]:
    """``pair_p_value`` of each pair, those whose comparison needs no design effect (no clusters)
    in one vectorised call of ``spec.difference`` (leading axis: the pairs; each problem computed
    as it is alone, so the same numbers), the others one by one."""
    found: List[Any] = [None] * len(pairs)
    batches: Dict[Any, List[int]] = {}
    for position, paired in enumerate(pairs):
        clusters = paired.clusters
        if not clusters.counted and (clusters.reason is None or options["confidence_level"] is None):
            batches.setdefault((paired.joint.shape, paired.joint_w2 is None), []).append(position)
        else:
            found[position] = pair_p_value(spec, paired, options)
    for (_, unweighted), positions in batches.items():
        joints = np.stack([pairs[position].joint for position in positions])
        squares = None if unweighted else np.stack([pairs[position].joint_w2 for position in positions])
        p_values = np.atleast_1d(np.asarray(spec.difference(joints, squares, options, None)["p_value"], dtype=np.float64))
        for row, position in enumerate(positions):
            found[position] = float(p_values[row])
    return found


# The input and outputs of judges=, in both modules' docs ({metric}: the module's result key).
JUDGES_DOC = """judges (mapping from str to array-like, optional): several judges' labels (or, on a
        binary golden set, scores: Likert grades, probabilities) on the same samples, each
        aligned with `references` (e.g. {"gpt": [...], "likert_1_5": [...], "rules": [...]}),
        to rank them on one golden set; `predictions` may then be left out (given, it is the
        judge named "predictions"). Every option applies to each judge alike (`labels`,
        `pos_label`, `ignore_index`, `sample_weight`, `clusters`, string labels). Pass the same
        judges with every batch to `add_batch` (a batch naming others is refused); counted
        as the joint counts of each pair of judges, at most J (J - 1) / 2 x K^3 cells whatever
        the number of samples (judges with scores, or a `threshold` given when counted: kept
        per item). A judge whose labels share no class with the references, or that gives
        more distinct values than the golden set has classes (two or more of them outside it)
        without a `threshold`, is a ValueError naming it; so are scores on a multi-class
        golden set. One judge: its plain result, with a warning that nothing was ranked. Not
        with `baseline_predictions`.
    threshold (with `judges`): turns the scores of judges that give scores into labels
        (positive iff score >= the cut): a number for every such judge, "auto", or a mapping
        from a judge's name to a number or "auto" (judges it leaves out give labels). A judge
        whose values are all classes of the golden set keeps them as labels unless the mapping
        names it. "auto" picks each judge's Youden-optimal cut without optimism: its labels
        are cross-fitted (10 folds stratified by reference class, clusters kept whole, `seed`
        or 0 for the folds; each item labelled by the cut tuned on the other folds), so its
        value, interval and p-values are not inflated by the cut's fit (a judge of pure noise
        stays at chance however many distinct scores it gives), and its interval is widened
        (1.25 times the maxT critical value) for the cut's variation; `optimal_threshold`, the
        cut to deploy, is tuned on the whole golden set (studies/score_judges measures the
        coverage of its population value). With `add_batch`, pass a threshold for judges
        giving integer grades at `evaluate.load` (their batches are otherwise counted as
        labels).
    return_judge_p_values (bool, defaults to False): with `judges`, also return
        `judge_p_values`, the matrix of every pair's adjusted p-value (at most 50 judges: maxT
        over all pairs takes a pairs x pairs correlation)."""

JUDGES_OUTPUTS_DOC = """With `judges` (the outputs above are those of the top-ranked judge, its own result at
    `confidence_level`: chosen as the highest of several, it is optimistic for that judge;
    quote the judges' `judge_ranking` entries, whose intervals are simultaneous):
    judge_ranking (list of dict): the judges, best first (by {metric}; ties in the order
        given), each with `name`, `{metric}`, `{metric}_ci` (with `confidence_level`:
        simultaneous, all of them cover together with probability about `confidence_level`:
        maxT over the judges' jointly normal estimates, correlated through the items they
        share, each interval by `ci_method` at the marginal level the maxT critical value
        gives, `judge_ranking_marginal_level`), `p_value` (this judge against the best:
        the paired comparison's two-sided p-value, as `baseline_predictions` gives it,
        adjusted for the J - 1 comparisons by maxT; None for the best itself; with two
        judges exactly the paired p-value) and `in_best_set` (the best, and every judge whose
        adjusted p-value is at least 1 - confidence_level: not told apart from the best).
        The best is chosen from these data: the true best is left out only when the
        observed best is significantly better than it (studies/judge_ranking/results.md
        measures how often). Without `confidence_level`: no intervals, and the best set at
        0.05. Clusters make the intervals and p-values cluster-robust; the correlations
        are those of independent items.
        A judge thresholded by `threshold` also has `threshold` (the number given) or
        `optimal_threshold` ("auto": the cut tuned on the whole golden set) and
        `marginal_level` (its widened interval's level). A golden set of one class ranks
        nothing: NaN values and intervals with `reason` "one_reference_class", no best set,
        and a warning (each judge's value would be the recall of that one class).
    best_judges (list of str): the names whose `in_best_set` is true, best first.
    judge_ranking_method (str): how the ranking was made (maxT, the per-pair test, the
        intervals' method).
    judge_p_values (list of lists): with `return_judge_p_values=True`, every pair's paired
        p-value adjusted by maxT over all J (J - 1) / 2 pairs, in `judge_ranking`'s order
        (None on the diagonal).
    judge_ranking_marginal_level (float): with `confidence_level` and two or more judges
        ranked, the level of each judge's interval (above `confidence_level`, below
        Bonferroni's 1 - (1 - confidence_level) / J)."""
