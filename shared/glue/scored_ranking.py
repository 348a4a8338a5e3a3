"""Judges that give scores, ranked: the ``threshold`` option of ``judges=``, and the ranking of ``ScoredJudges``.

``counting/judge_scores.py`` turns each score-giving judge into labels (a given cut, or the
cross-fitted Youden cut under ``"auto"``); ``ranking.ranking_from_counts`` ranks the labels as
it ranks any judges' labels; this file adds each judge's cut to its ``judge_ranking`` entry and
says how the cuts were made in ``judge_ranking_method``. A golden set of one class ranks
nothing: each judge's value would be the recall of that one class (a TPR or a TNR, which a
judge that always says that class maximises), not a balanced accuracy.
"""

import math
import warnings
from typing import Any, Dict, Mapping

from ..counting.inputs import to_python
from ..counting.judge_scores import CROSS_FIT_METHOD
from ..counting.judge_scores import ScoredJudges
from ..counting.labels import user_stacklevel
from ..stats.distributions import z_value
from .options import check_threshold
from .ranking import RANKING_METHOD
from .ranking import judge_intervals
from .ranking import ranking_from_counts
from .reduction import MetricSpec

ONE_CLASS_REASON = "one_reference_class"
ONE_CLASS_WARNING = ("judges: the golden set's references are all of one class ({value!r}); no judge is ranked: each judge's "
                     "value would be its recall of that class alone (a judge that always says {value!r} scores 1), not a "
                     "balanced accuracy. Add items of the other class(es) to the golden set.")
# The z of a cross-fitted judge's interval, times this: an estimate from cross-fitted labels varies more than
# the binomial variance of fixed labels says (its cuts vary with the items; no unbiased estimate of that
# variance exists, Bengio & Grandvalet 2004): by up to 40% in variance in a pilot of studies/score_judges
# (continuous scores, 80 items); widened by 1.25 on the z scale (56% in variance). The study's table
# gives the family-wise coverage this reaches.
CROSS_FIT_WIDENING = 1.25
THRESHOLD_FIX = ("pass threshold= (a number for every judge that gives scores, 'auto' for each one's Youden-optimal cut, "
                 "or {judge: number or 'auto'})")


def check_judges_threshold(value: Any, name: str) -> Any:
    """``threshold``: None, ``"auto"``, a number, or a mapping from judges' names to a number or ``"auto"``
    (a plain dict of checked entries; its names are checked against the judges at ``compute``).

    Examples
    --------
    >>> check_judges_threshold({"likert": 3.5, "prob": "auto"}, "threshold")
    {'likert': 3.5, 'prob': 'auto'}
    >>> check_judges_threshold({"likert": "best"}, "threshold")
    Traceback (most recent call last):
    ...
    ValueError: threshold['likert']: expected a number (a finite score, or inf for nothing positive) or 'auto', found 'best'.
    """
    if not isinstance(value, Mapping):
        return check_threshold(value, name)
    for key in value:
        if not isinstance(key, str):
            raise TypeError(f"{name}: expected judges' names (strings) as keys, found {key!r} ({type(key).__name__}).")
    return {key: check_threshold(entry, f"{name}[{key!r}]") for key, entry in value.items()}


def rank_scored_judges(spec: MetricSpec, scored: ScoredJudges, options: Mapping[str, Any]) -> Dict[str, Any]:
    """``ranking_from_counts`` of the judges' labels, with each score-giving judge's cut in its entry
    (``optimal_threshold`` under "auto", else ``threshold``); one reference class: nothing ranked."""
    plain = options.replace(threshold=None) if hasattr(options, "replace") and "threshold" in options else options
    if scored.one_class is not None:
        return one_class_result(spec, scored, options)
    result = ranking_from_counts(spec, scored.counts, plain)
    marginal = result.get("judge_ranking_marginal_level")  # there exactly when there are intervals
    widened = (None if marginal is None
               else min(math.erf(CROSS_FIT_WIDENING * z_value(marginal) / math.sqrt(2.0)), 1.0 - 1e-12))
    tuned = [entry for entry in result["judge_ranking"] if widened is not None and not math.isnan(entry[spec.name])
             and "optimal_threshold" in scored.thresholds.get(entry["name"], {})]
    if tuned:
        at_widened = {**plain, "confidence_level": widened, "return_per_class": False, "return_confusion_matrix": False}
        systems = [scored.counts.judges[scored.counts.names.index(entry["name"])] for entry in tuned]
        for entry, again in zip(tuned, judge_intervals(spec, systems, at_widened)):
            entry[f"{spec.name}_ci"] = again.get(f"{spec.name}_ci", entry[f"{spec.name}_ci"])
            entry["marginal_level"] = widened
    for entry in result["judge_ranking"]:
        entry.update(scored.thresholds.get(entry["name"], {}))
    if any("optimal_threshold" in found for found in scored.thresholds.values()):
        result["judge_ranking_method"] = (f"{RANKING_METHOD}; {CROSS_FIT_METHOD}; a cross-fitted judge's interval at the "
                                          f"marginal level of {CROSS_FIT_WIDENING} times the maxT critical value (its "
                                          "`marginal_level`)")
    return to_python(result)


def one_class_result(spec: MetricSpec, scored: ScoredJudges, options: Mapping[str, Any]) -> Dict[str, Any]:
    """NaN values and intervals with a reason, an empty best set, and a warning saying why."""
    name, level = spec.name, options["confidence_level"]
    warnings.warn(ONE_CLASS_WARNING.format(value=to_python(scored.one_class)), UserWarning, stacklevel=user_stacklevel())
    interval = (lambda: {} if level is None else {f"{name}_ci": [math.nan, math.nan]})
    ranking = [{"name": judge, name: math.nan, **interval(), "p_value": math.nan, "in_best_set": False,
                "reason": ONE_CLASS_REASON, **scored.thresholds.get(judge, {})} for judge in scored.counts.names]
    return to_python({name: math.nan, **interval(), "reason": ONE_CLASS_REASON, "judge_ranking": ranking,
                      "best_judges": [], "judge_ranking_method": RANKING_METHOD})
