"""The panels of two judges compared (``baseline_predictions``) and of a judge's labels on unlabeled data.

A paired comparison: both judges' recall per class and the difference with its interval
and p-value. Corrected prevalence: the judge's measured shares beside the corrected
prevalence and its interval, and a line for the status message. Part of the Space app
(``space_app.py``).
"""

import math
import textwrap
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .parsing import BASELINE
from .plots import INTERVAL_ARGUMENTS
from .plots import class_names
from .plots import draw_bars
from ..counting.counts import safe_ratio
from .plots import legend_above_bars


def comparison_keys(result: Dict[str, Any]) -> Optional[str]:
    """The metric name whose paired comparison ``result`` holds (``<name>_difference``), or None."""
    return next((key[: -len("_difference")] for key in result if key.endswith("_difference")), None)


def comparison_recalls(metric, predictions, references, arguments: Dict[str, Any]):
    """``(classes, recall of predictions, recall of baseline_predictions)`` per class, from the
    module's own confusion matrices of both systems (one class order)."""
    options = {name: value for name, value in arguments.items() if name not in INTERVAL_ARGUMENTS}
    counted = metric.compute(predictions=predictions, references=references, **options, return_confusion_matrix=True)
    if "baseline_confusion_matrix" not in counted:
        return [], None, None  # nothing was counted (all ignored)
    recalls = []
    for key in ("confusion_matrix", "baseline_confusion_matrix"):
        matrix = np.asarray(counted[key], dtype=np.float64)
        recalls.append(safe_ratio(np.diag(matrix), matrix.sum(axis=1)))
    return counted["classes"], recalls[0], recalls[1]


def _draw_comparison_recall(axes, classes, recall, baseline_recall) -> None:
    draw_bars(axes, class_names(classes), {"predictions": recall, "baseline_predictions": baseline_recall},
               "Recall per class of both judges", "recall")


def _draw_difference(axes, result: Dict[str, Any], name: str) -> None:
    """The difference (predictions − baseline) with its interval, and the p-value."""
    difference = result[f"{name}_difference"]
    interval = result.get(f"{name}_difference_ci")
    p_value = result.get(f"{name}_difference_p_value")
    axes.axvline(0.0, color="grey", linestyle="--", linewidth=0.8)
    if difference == difference:
        if interval is not None and all(x == x for x in interval):
            low, high = interval
            axes.errorbar([difference], [0], xerr=[[difference - low], [high - difference]], fmt="o", color="tab:blue",
                          capsize=6, label=f"interval [{low:.3f}, {high:.3f}]")
        else:
            axes.plot([difference], [0], "o", color="tab:blue")
        axes.annotate(f"{difference:+.3f}", (difference, 0), textcoords="offset points", xytext=(0, 10), ha="center")
    span = max([abs(x) for x in [difference, *(interval or [])] if x == x] + [0.05]) * 1.3
    axes.set_xlim(-span, span)
    axes.set_yticks([])
    # On two lines: one line is wider than the panel, which two to a row puts at the figure's edge.
    axes.set_xlabel(f"{name} of predictions\n− of baseline_predictions")
    title = f"Difference: {difference:+.4f}" if difference == difference else "Difference: undefined"
    if p_value is not None:
        title += f", p = {p_value:.3g}" if p_value == p_value else ", p undefined"
    axes.set_title(title)
    if interval is not None and difference == difference:
        axes.legend(fontsize=8, loc="lower right")
    reason = result.get(f"{name}_difference_reason")
    if reason:
        axes.text(0.5, 0.25, reason, transform=axes.transAxes, ha="center", color="tab:red", fontsize=9)


def comparison_panels(metric, predictions, references, arguments: Dict[str, Any], result: Dict[str, Any]) -> list:
    """The comparison's two panels (both judges' recall per class; the difference and its
    interval), or none when no baseline was given."""
    name = comparison_keys(result)
    if name is None or arguments.get(BASELINE) is None:
        return []
    classes, recall, baseline_recall = comparison_recalls(metric, predictions, references, arguments)
    panels = [lambda axes: _draw_difference(axes, result, name)]
    if classes:
        panels.insert(0, lambda axes: _draw_comparison_recall(axes, classes, recall, baseline_recall))
    return panels



def _format_interval(interval: Any) -> str:
    low, high = interval
    return "" if any(math.isnan(x) for x in (low, high)) else f" [{low:.4f}, {high:.4f}]"



# What the correction assumes, said where its result is shown (issue 26: it was only in the
# card's Limitations, and a judge erring more on the new data gave 0.165 for a true 0.053).
PREVALENCE_ASSUMPTIONS = {
    "rogan_gladen": ("Assumes the judge errs on the new data as on the golden set (the same TPR and FPR per true "
                     "class; the class mix may differ): check it with groups (per-group diagnostics)."),
    "ppi": ("Assumes the golden set is a random sample of the new data (prevalence_method='ppi'); then the "
            "judge may be poor, but a golden set drawn elsewhere makes it wrong."),
}


def prevalence_assumption(arguments: Optional[Dict[str, Any]] = None) -> str:
    """The key assumption of the chosen ``prevalence_method`` in one sentence."""
    return PREVALENCE_ASSUMPTIONS[(arguments or {}).get("prevalence_method") or "rogan_gladen"]


def prevalence_summary(result: Dict[str, Any], arguments: Optional[Dict[str, Any]] = None) -> str:
    """The corrected prevalence (and difference) in words, with its key assumption, for the
    status line; "" without one."""
    if "model_prevalences" in result:  # several models through one judge
        parts = []
        for entry in result["model_prevalences"]:
            value = entry["corrected_prevalence"]
            if "corrected_prevalence_reason" in entry:
                parts.append(f"{entry['name']}: undefined ({entry['corrected_prevalence_reason']})")
            elif isinstance(value, list):
                intervals = entry.get("corrected_prevalence_ci") or [None] * len(value)
                parts.append(f"{entry['name']}: " + ", ".join(f"{v:.4f}" + (_format_interval(ci) if ci else "")
                                                              for v, ci in zip(value, intervals)))
            else:
                ci = entry.get("corrected_prevalence_ci")
                parts.append(f"{entry['name']} {value:.4f}" + (_format_interval(ci) if ci else ""))
        together = " (the intervals hold together)" if any("corrected_prevalence_ci" in entry for entry in result["model_prevalences"]) else ""
        return " Corrected prevalence per model" + together + ": " + "; ".join(parts) + ". " + prevalence_assumption(arguments)
    if "corrected_prevalence" not in result:
        return ""
    parts = []
    for key, label in (("corrected_prevalence", "Corrected prevalence"), ("corrected_prevalence_difference", "difference")):
        if key not in result:
            continue
        value = result[key]
        if f"{key}_reason" in result:
            parts.append(f"{label}: undefined ({result[f'{key}_reason']})")
        elif isinstance(value, list):
            intervals = result.get(f"{key}_ci") or [None] * len(value)
            shown = ", ".join(f"{v:.4f}" + (_format_interval(ci) if ci else "") for v, ci in zip(value, intervals))
            parts.append(f"{label} per class: {shown}")
        else:
            of = f" (class {result['corrected_prevalence_class']!r})" if key == "corrected_prevalence" and \
                "corrected_prevalence_class" in result else ""
            parts.append(f"{label} {value:.4f}" + (_format_interval(result[f"{key}_ci"]) if f"{key}_ci" in result else "") + of)
        if result.get(f"{key}_clipped"):
            parts[-1] += " (clipped)"
    return " " + "; ".join(parts) + ". " + prevalence_assumption(arguments)


def draw_prevalence(axes, result: Dict[str, Any], classes: Sequence[Any], arguments: Optional[Dict[str, Any]] = None) -> None:
    """The judge's measured shares next to the corrected prevalence, with its interval, and
    the key assumption of the method under the axes."""
    corrected = np.atleast_1d(np.asarray(result["corrected_prevalence"], dtype=np.float64))
    measured = np.atleast_1d(np.asarray(result["measured_prevalence"], dtype=np.float64))
    if corrected.size == 1:
        names = [f"{result['corrected_prevalence_class']!r}" if "corrected_prevalence_class" in result else "positive class"]
    else:
        names = class_names(classes) if len(classes) == corrected.size else [str(i) for i in range(corrected.size)]
    positions = np.arange(corrected.size)
    axes.bar(positions - 0.2, measured, width=0.4, color="tab:gray", label="measured by the judge")
    errors = None
    if "corrected_prevalence_ci" in result:
        bounds = np.asarray(result["corrected_prevalence_ci"], dtype=np.float64).reshape(-1, 2)
        errors = np.abs(np.stack([corrected - bounds[:, 0], bounds[:, 1] - corrected]))
    axes.bar(positions + 0.2, np.nan_to_num(corrected), width=0.4, color="tab:blue", yerr=errors, capsize=4,
             label="corrected" + (" (with its interval)" if errors is not None else ""))
    for position, value in zip(positions, corrected):
        text = "n/a" if np.isnan(value) else f"{value:.3f}"
        axes.text(position + 0.2, (0 if np.isnan(value) else value) + 0.02, text, ha="center", va="bottom", fontsize=8)
    axes.set_xticks(positions, names)
    axes.set_ylabel("prevalence in the unlabeled data")
    reason = result.get("corrected_prevalence_reason")
    axes.set_title("Corrected prevalence" + (f" (undefined: {reason})" if reason else ""))
    legend_above_bars(axes, 0.0, 1.1)
    axes.set_xlabel(textwrap.fill(prevalence_assumption(arguments), 70), fontsize=7, color="dimgray")


# Keys of a ``judge_ranking`` entry that are not its metric's value.
RANKING_KEYS = ("name", "p_value", "in_best_set", "reason", "optimal_threshold")


def ranking_metric(result: Dict[str, Any]) -> Optional[str]:
    """The metric name of a ``judge_ranking`` entry (the key beside ``name``), or None."""
    entries = result.get("judge_ranking") or []
    return next((key for key in entries[0] if key not in RANKING_KEYS and not key.endswith("_ci")), None) if entries else None


def _cut(name: Any, limit: int) -> str:
    """A judge's name in at most ``limit`` characters (textwrap.shorten would make one long word "…")."""
    text = str(name)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def judge_warnings(names: Sequence[Any], found: Sequence[str]) -> Dict[Any, List[str]]:
    """The warnings that name a judge (``judges['name']: ...``), by judge, without that prefix."""
    notes: Dict[Any, List[str]] = {}
    for name in names:
        prefix = f"judges[{name!r}]: "
        notes[name] = [text[len(prefix):] for text in found if text.startswith(prefix)]
    return {name: texts for name, texts in notes.items() if texts}


def _number(value: Any, digits: int = 4) -> str:
    return "undefined" if value is None or value != value else f"{value:.{digits}f}"


def ranking_table(result: Dict[str, Any], level: Optional[float] = None,
                  found: Sequence[str] = ()) -> Optional[Tuple[List[str], List[List[str]]]]:
    """The ranking as ``(headers, rows)`` of text, best first, or None without a ``judge_ranking``.

    One row per judge: its name, value, simultaneous interval (with ``confidence_level``),
    its maxT-adjusted p-value against the best, whether it is in the best set, and, where
    any judge has them, its ``optimal_threshold`` (a judge that gives scores) and a note: why
    its value or interval is undefined, and whether a warning (``found``, listed in the status
    line: too long for a cell) names it.

    >>> result = {"judge_ranking": [
    ...     {"name": "gpt", "balanced_accuracy": 0.9, "balanced_accuracy_ci": [0.8, 0.95], "p_value": None, "in_best_set": True},
    ...     {"name": "rules", "balanced_accuracy": 0.6, "balanced_accuracy_ci": [0.5, 0.7], "p_value": 0.0012,
    ...      "in_best_set": False, "optimal_threshold": 0.35}]}
    >>> headers, rows = ranking_table(result, 0.95)
    >>> headers
    ['judge', 'balanced_accuracy', 'simultaneous 95% interval', 'p vs best', 'in best set', 'optimal_threshold']
    >>> rows
    [['gpt', '0.9000', '[0.8000, 0.9500]', 'best', 'yes', ''], ['rules', '0.6000', '[0.5000, 0.7000]', '0.0012', 'no', '0.35']]
    """
    entries = result.get("judge_ranking")
    name = ranking_metric(result)
    if not entries or name is None:
        return None
    with_ci = any(f"{name}_ci" in entry for entry in entries)
    with_threshold = any("optimal_threshold" in entry for entry in entries)
    warned = judge_warnings([entry["name"] for entry in entries], found)
    with_reason = any(entry.get("reason") for entry in entries) or bool(warned)
    level_text = f"{level * 100:.4g}% " if level is not None else ""
    headers = ["judge", name] + ([f"simultaneous {level_text}interval"] if with_ci else [])
    headers += ["p vs best", "in best set"] + (["optimal_threshold"] * with_threshold) + (["note"] * with_reason)
    rows = []
    for entry in entries:
        row = [str(entry["name"]), _number(entry.get(name))]
        if with_ci:
            interval = entry.get(f"{name}_ci")
            defined = interval is not None and all(x is not None and x == x for x in interval)
            row.append(f"[{interval[0]:.4f}, {interval[1]:.4f}]" if defined else "undefined")
        p_value = entry.get("p_value")
        if p_value is None:
            row.append("best" if entry.get("in_best_set") else "undefined")
        else:
            row.append("undefined" if p_value != p_value else f"{p_value:.2g}" if p_value < 1e-3 else f"{p_value:.4f}")
        row.append("yes" if entry.get("in_best_set") else "no")
        if with_threshold:
            threshold = entry.get("optimal_threshold")
            row.append("" if threshold is None else f"{threshold:.4g}")
        if with_reason:
            notes = ([str(entry["reason"])] if entry.get("reason") else []) + \
                (["warned: see the status line"] if entry["name"] in warned else [])
            row.append("; ".join(notes))
        rows.append(row)
    return headers, rows


def undefined_judges(result: Dict[str, Any]) -> List[str]:
    """Lines for the status line on ranked judges whose value is undefined (NaN), with the
    module's reasons, which a green check would hide: one per such judge (it is ranked last),
    or one line when no judge has a value.

    >>> entry = {"informedness": float("nan"), "p_value": float("nan"), "in_best_set": False, "reason": "one_reference_class"}
    >>> undefined_judges({"judge_ranking": [{"name": "gpt", "informedness": 0.5, "p_value": None, "in_best_set": True},
    ...                                     {"name": "s", **entry}]})
    ["judges['s']: informedness is undefined (one_reference_class); it is ranked last."]
    >>> undefined_judges({"judge_ranking": [{"name": "a", **entry}, {"name": "b", **entry}]})
    ["judges: no judge's informedness is defined (one_reference_class)."]
    """
    name = ranking_metric(result)
    entries = result.get("judge_ranking") or []
    undefined = [entry for entry in entries if entry.get(name) is None or entry.get(name) != entry.get(name)]
    if not undefined:
        return []
    if len(undefined) == len(entries):
        reasons = ", ".join(dict.fromkeys(str(entry.get("reason") or "no value") for entry in undefined))
        return [f"judges: no judge's {name} is defined ({reasons})."]
    return [f"judges[{entry['name']!r}]: {name} is undefined ({entry.get('reason') or 'no value'}); it is ranked last."
            for entry in undefined]


def ranking_summary(result: Dict[str, Any]) -> str:
    """The best set in words, for the status line; "" without a ranking."""
    if "judge_ranking" not in result:
        return ""
    best = result.get("best_judges") or []
    if not best:
        return " No judge could be ranked best (see the warnings and the table)."
    return f" Best set ({len(best)} of {len(result['judge_ranking'])} judges): {', '.join(map(str, best))}."


def draw_judge_ranking(axes, result: Dict[str, Any]) -> None:
    """A forest plot of the ranking: each judge's value with its simultaneous interval, best first,
    the judges that cannot be told from the best in colour, each labelled with its adjusted p-value."""
    name = ranking_metric(result)
    entries = result["judge_ranking"]
    rows = np.arange(len(entries))[::-1]
    defined = []
    for row, entry in zip(rows, entries):
        value, interval = entry[name], entry.get(f"{name}_ci")
        colour = "tab:blue" if entry["in_best_set"] else "tab:grey"
        if value is None or value != value:
            axes.annotate("undefined", (0.5, row), xycoords=("axes fraction", "data"), ha="center", va="center",
                          fontsize=9, color="tab:red")
            continue
        defined.append(value)
        if interval is not None and all(x is not None and x == x for x in interval):
            axes.errorbar([value], [row], xerr=[[value - interval[0]], [interval[1] - value]], fmt="o", color=colour,
                          capsize=4)
            defined.extend(interval)
        else:
            axes.plot([value], [row], "o", color=colour)
        p_value = entry["p_value"]
        shown = "best" if p_value is None else "p undefined" if p_value != p_value else f"p = {p_value:.2g}"
        axes.annotate(shown, (value, row), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    if defined:
        low, high = min(defined), max(defined)
        margin = max(0.02, 0.08 * (high - low))
        axes.set_xlim(low - margin, high + margin)
    axes.set_ylim(-0.6, len(entries) - 0.4)
    # A judge that gives scores: its tuned threshold under its name.
    axes.set_yticks(rows, [_cut(entry["name"], 24) + (f"\n(threshold {entry['optimal_threshold']:.3g})"
                                                      if entry.get("optimal_threshold") is not None else "")
                           for entry in entries])
    with_ci = any(f"{name}_ci" in entry for entry in entries)
    axes.set_xlabel(name + (" (simultaneous intervals)" if with_ci else " (no intervals: confidence_level not set)"))
    # Short enough for the panel at 1280 px: the best set is named in the status line and the table.
    axes.set_title("Judges ranked (blue: in the best set)")


def draw_judge_p_values(axes, result: Dict[str, Any]) -> None:
    """The matrix of every pair's adjusted p-value (``judge_p_values``), judges in ranking order, with its colour bar."""
    names = [entry["name"] for entry in result["judge_ranking"]]
    values = np.array([[np.nan if p is None else p for p in row] for row in result["judge_p_values"]], dtype=np.float64)
    image = axes.imshow(values, vmin=0.0, vmax=1.0, cmap="viridis_r")
    axes.figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04, label="adjusted p-value")
    shown = [_cut(name, 16) for name in names]
    axes.set_xticks(range(len(names)), shown, rotation=45 if len(names) > 2 else 0, ha="right" if len(names) > 2 else "center")
    axes.set_yticks(range(len(names)), shown)
    if len(names) <= 12:
        for row in range(len(names)):
            for column in range(len(names)):
                value = values[row, column]
                if value == value:
                    # viridis_r: small p-values are light (black text), large ones dark (white text).
                    axes.text(column, row, f"{value:.2g}", ha="center", va="center", fontsize=8,
                              color="white" if value > 0.6 else "black")
                elif row != column:
                    axes.text(column, row, "n/a", ha="center", va="center", fontsize=8, color="tab:red")
    axes.set_title("Pairwise p-values (maxT)")
