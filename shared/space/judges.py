"""The panels of two judges compared (``baseline_predictions``) and of a judge's labels on unlabeled data.

A paired comparison: both judges' recall per class and the difference with its interval
and p-value. Corrected prevalence: the judge's measured shares beside the corrected
prevalence and its interval, and a line for the status message. Part of the Space app
(``space_app.py``).
"""

import math
import textwrap
from typing import Any, Dict, Optional, Sequence

import numpy as np

from .parsing import BASELINE
from .plots import INTERVAL_ARGUMENTS
from .plots import class_names
from .plots import draw_bars
from ..stats.distributions import safe_ratio
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


def ranking_metric(result: Dict[str, Any]) -> Optional[str]:
    """The metric name of a ``judge_ranking`` entry (the key beside ``name``), or None."""
    entries = result.get("judge_ranking") or []
    return next((key for key in entries[0] if key not in ("name", "p_value", "in_best_set", "reason")
                 and not key.endswith("_ci")), None) if entries else None


def draw_judge_ranking(axes, result: Dict[str, Any]) -> None:
    """A forest plot of the ranking: each judge's value with its simultaneous interval, best first,
    the judges that cannot be told from the best in colour, each labelled with its adjusted p-value."""
    name = ranking_metric(result)
    entries = result["judge_ranking"]
    rows = np.arange(len(entries))[::-1]
    for row, entry in zip(rows, entries):
        value, interval = entry[name], entry.get(f"{name}_ci")
        colour = "tab:blue" if entry["in_best_set"] else "tab:grey"
        if interval is not None and all(x == x for x in interval):
            axes.errorbar([value], [row], xerr=[[value - interval[0]], [interval[1] - value]], fmt="o", color=colour, capsize=4)
        else:
            axes.plot([value], [row], "o", color=colour)
        shown = "best" if entry["p_value"] is None else f"p = {entry['p_value']:.3g}"
        axes.annotate(shown, (value, row), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    axes.set_yticks(rows, [textwrap.shorten(entry["name"], 24) for entry in entries])
    axes.set_xlabel(name + (" (simultaneous intervals)" if f"{name}_ci" in entries[0] else ""))
    axes.set_title(f"Judges ranked; best set (blue): {', '.join(result['best_judges'])[:60]}")


def draw_judge_p_values(axes, result: Dict[str, Any]) -> None:
    """The matrix of every pair's adjusted p-value (``judge_p_values``), judges in ranking order."""
    names = [entry["name"] for entry in result["judge_ranking"]]
    values = np.array([[np.nan if p is None else p for p in row] for row in result["judge_p_values"]], dtype=np.float64)
    axes.imshow(values, vmin=0.0, vmax=1.0, cmap="viridis_r")
    shown = [textwrap.shorten(name, 16) for name in names]
    axes.set_xticks(range(len(names)), shown, rotation=45, ha="right")
    axes.set_yticks(range(len(names)), shown)
    if len(names) <= 12:
        for row in range(len(names)):
            for column in range(len(names)):
                if values[row, column] == values[row, column]:
                    axes.text(column, row, f"{values[row, column]:.2g}", ha="center", va="center", fontsize=7, color="white")
    axes.set_title("Pairwise p-values (maxT over all pairs)")
