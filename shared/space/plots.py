"""The plots of a Space, drawn from the counts and values the metric module itself returns.

The confusion heatmap, per-class bars (recall, informedness), the ROC curve of
thresholded scores with the chosen threshold, per-label balanced accuracy and recall@k
against k. Matplotlib is imported by the caller (``space_app.draw``); these only draw
on the axes they are given. Part of the Space app (``space_app.py``).
"""

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..counting.counts import safe_ratio


MAX_HEATMAP_CLASSES = 40  # above this a K x K heatmap is unreadable
MAX_BAR_CLASSES = 60  # above this per-class bars become a histogram
MAX_TOPK_POINTS = 20  # k values on the recall@k curve




def one_vs_rest_rates(matrix: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Per class, its recall (TPR) and fall-out (FPR) one-vs-rest, from a K x K confusion
    matrix (rows = references); NaN where a class has no reference (or is every reference)."""
    true_positives, support = np.diag(matrix), matrix.sum(axis=1)
    false_positives = matrix.sum(axis=0) - true_positives
    return safe_ratio(true_positives, support), safe_ratio(false_positives, float(matrix.sum()) - support)


@dataclass
class Confusion:
    """What the metric counted: classes, the (weighted) confusion counts and the per-class
    rates the plots show, and scores if thresholded."""

    classes: list
    recall: Optional[np.ndarray]  # per class, TP / support
    fall_out: Optional[np.ndarray]  # per class, FP / (total - support)
    matrix: Optional[np.ndarray]  # K x K, rows = references; None when K is too large to draw
    scores: Optional[np.ndarray] = None
    positives: Optional[np.ndarray] = None
    weights: Optional[np.ndarray] = None
    threshold: Optional[float] = None
    positive_index: Optional[int] = None
    tuned: bool = False  # the threshold is the module's Youden-optimal one (threshold="auto")


# Options of an interval: the plots need the counts only.
INTERVAL_ARGUMENTS = ("confidence_level", "ci_method", "n_resamples", "seed")


def confusion(metric, predictions, references, arguments: Dict[str, Any], result: Dict[str, Any]) -> Confusion:
    """The confusion counts behind a label metric's result, as the module itself returns them
    (``return_confusion_matrix``): the Space never repeats the module's counting.

    For the ROC panel of thresholded scores it also keeps the scores and which references
    are of the positive class (the second of the module's two classes unless `pos_label`).
    """
    options = {name: value for name, value in arguments.items() if name not in INTERVAL_ARGUMENTS}
    # With threshold="auto" the module finds the same threshold again (scores need not be in [0, 1]).
    threshold = result.get("optimal_threshold", arguments.get("threshold"))
    try:
        counted = metric.compute(predictions=predictions, references=references, **options, return_confusion_matrix=True)
    except ValueError:  # too many classes for a dense matrix: nothing to draw
        return Confusion(classes=[], recall=None, fall_out=None, matrix=None)
    if "confusion_matrix" not in counted:  # nothing was counted (no samples, or all ignored)
        return Confusion(classes=[], recall=None, fall_out=None, matrix=None)
    matrix = np.asarray(counted["confusion_matrix"], dtype=np.float64)
    classes = counted["classes"]
    recall, fall_out = one_vs_rest_rates(matrix)
    found = Confusion(classes=classes, recall=recall, fall_out=fall_out, matrix=matrix if len(classes) <= MAX_HEATMAP_CLASSES else None,
                      threshold=None if threshold is None else float(threshold), tuned="optimal_threshold" in result)
    if threshold is not None and len(classes) == 2:
        pos_label = arguments.get("pos_label")
        found.positive_index = classes.index(pos_label) if pos_label in classes else 1
        flat_references = np.asarray(references, dtype=object).reshape(-1)
        keep = np.ones(flat_references.size, dtype=bool)
        if arguments.get("ignore_index") is not None:
            keep = flat_references != arguments["ignore_index"]
        found.scores = np.asarray(predictions, dtype=np.float64).reshape(-1)[keep]
        found.positives = flat_references[keep] == classes[found.positive_index]
        weights = arguments.get("sample_weight")
        found.weights = None if weights is None else np.asarray(weights, dtype=np.float64).reshape(-1)[keep]
    return found


def class_names(classes: Sequence[Any]) -> List[str]:
    return [str(value) if len(str(value)) <= 12 else str(value)[:11] + "…" for value in classes]


def draw_heatmap(axes, found: Confusion) -> None:
    if found.matrix is None:
        axes.axis("off")
        axes.text(0.5, 0.5, f"{len(found.classes)} classes: too many\nfor a confusion heatmap", ha="center", va="center")
        return
    matrix = np.asarray(found.matrix, dtype=np.float64)
    row_share = safe_ratio(matrix, matrix.sum(axis=1, keepdims=True))
    image = axes.imshow(np.nan_to_num(row_share), cmap="Blues", vmin=0.0, vmax=1.0)
    axes.figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04, label="share of the reference class")
    names = class_names(found.classes)
    ticks = np.arange(len(names))
    axes.set_xticks(ticks, names, rotation=45 if len(names) > 4 else 0, ha="right" if len(names) > 4 else "center")
    axes.set_yticks(ticks, names)
    axes.set_xlabel("predicted")
    axes.set_ylabel("reference")
    axes.set_title("Confusion matrix")
    if len(names) <= 12:
        for row in range(len(names)):
            for column in range(len(names)):
                count = matrix[row, column]
                text = f"{count:g}" if float(count).is_integer() else f"{count:.3g}"
                color = "white" if row_share[row, column] > 0.6 else "black"
                axes.text(column, row, text, ha="center", va="center", color=color, fontsize=9)


def draw_bars(axes, names: Sequence[str], series: Dict[str, np.ndarray], title: str, ylabel: str) -> None:
    """Grouped bars per class; NaN (undefined) is marked 'n/a'. One series also gets its mean."""
    defined = np.concatenate([np.asarray(values, dtype=np.float64) for values in series.values()])
    defined = defined[~np.isnan(defined)]
    lower = float(min(0.0, np.floor(defined.min() * 4) / 4)) if defined.size else 0.0
    if len(names) > MAX_BAR_CLASSES:
        for label, values in series.items():
            values = np.asarray(values, dtype=np.float64)
            axes.hist(values[~np.isnan(values)], bins=20, range=(lower, 1.0), alpha=0.7, label=label)
        axes.set_xlabel(ylabel)
        axes.set_ylabel("classes")
        axes.set_title(f"{title} ({len(names)} classes)")
        axes.legend(fontsize=8)
        return
    positions = np.arange(len(names))
    width = 0.8 / len(series)
    for offset, (label, values) in enumerate(series.items()):
        values = np.asarray(values, dtype=np.float64)
        x = positions - 0.4 + width * (offset + 0.5)
        axes.bar(x, np.nan_to_num(values), width=width, label=label)
        for position, value in zip(x, values):
            if np.isnan(value):
                axes.text(position, 0.02, "n/a", ha="center", va="bottom", fontsize=8, rotation=90)
            elif len(names) * len(series) <= 16:
                axes.text(position, value + 0.02, f"{value:.2f}", ha="center", va="bottom", fontsize=8)
    if len(series) == 1 and defined.size:
        axes.axhline(defined.mean(), color="tab:red", linestyle="--", linewidth=1,
                     label=f"mean over defined classes: {defined.mean():.3f}")
    axes.set_xticks(positions, names, rotation=45 if len(names) > 4 else 0, ha="right" if len(names) > 4 else "center")
    axes.axhline(0.0, color="black", linewidth=0.6)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    legend_above_bars(axes, lower, 1.12)


# The share of a bar chart's height kept free above its bars and their value labels, for the legend.
LEGEND_BAND = 0.16


def legend_above_bars(axes, lower: float, top: float) -> None:
    """The legend in one row in a band above ``top`` (where the bars and their labels end), so
    that it covers no bar and no label; the y ticks stop at 1, the largest rate."""
    axes.set_ylim(lower, top + LEGEND_BAND * (top - lower) / (1 - LEGEND_BAND))
    axes.set_yticks([tick for tick in axes.get_yticks() if lower - 1e-9 <= tick <= 1 + 1e-9])
    handles, _ = axes.get_legend_handles_labels()
    axes.legend(fontsize=8, loc="upper center", ncol=max(1, len(handles)), borderaxespad=0.3, columnspacing=1.0,
                handlelength=1.5)


def per_class_rates(found: Confusion) -> Dict[str, np.ndarray]:
    return {"recall": found.recall, "informedness": found.recall - found.fall_out}


def roc_curve(
    scores: np.ndarray, positives: np.ndarray, weights: Optional[np.ndarray] = None
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ROC curve of one score column: ``(thresholds, fpr, tpr)``, thresholds descending.

    A sample is positive iff score >= threshold. The points are +inf (nothing positive)
    and each distinct score: the cut points ``youden_thresholds`` chooses among (it
    returns the midpoint below the best of them). ``weights`` make the rates weighted;
    FPR (TPR) is NaN when there is no negative (positive) weight.

    Examples
    --------
    >>> thresholds, fpr, tpr = roc_curve(np.array([0.2, 0.9, 0.1, 0.3]), np.array([0, 1, 1, 0]))
    >>> thresholds.tolist(), fpr.tolist(), tpr.tolist()
    ([inf, 0.9, 0.3, 0.2, 0.1], [0.0, 0.0, 0.5, 1.0, 1.0], [0.0, 0.5, 0.5, 0.5, 1.0])
    """
    scores = np.asarray(scores, dtype=np.float64).ravel()
    positives = np.asarray(positives).astype(bool).ravel()
    weights = np.ones(scores.shape) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    order = np.argsort(-scores, kind="stable")
    sorted_scores, sorted_positive, sorted_weights = scores[order], positives[order], weights[order]
    cumulative_tp = np.concatenate([[0.0], np.cumsum(np.where(sorted_positive, sorted_weights, 0.0))])
    cumulative_fp = np.concatenate([[0.0], np.cumsum(np.where(sorted_positive, 0.0, sorted_weights))])
    # A point after the last sample of each run of equal scores (and the empty cut first).
    is_point = np.ones(scores.size + 1, dtype=bool)
    is_point[1:-1] = sorted_scores[:-1] != sorted_scores[1:]
    thresholds = np.concatenate([[np.inf], sorted_scores])[is_point]
    tp, fp = cumulative_tp[is_point], cumulative_fp[is_point]
    return thresholds, safe_ratio(fp, cumulative_fp[-1]), safe_ratio(tp, cumulative_tp[-1])


def draw_roc(axes, found: Confusion) -> None:
    thresholds, fpr, tpr = roc_curve(found.scores, found.positives, found.weights)
    positive = found.positive_index
    point_tpr, point_fpr = float(found.recall[positive]), float(found.fall_out[positive])
    axes.plot(fpr, tpr, drawstyle="default", color="tab:blue", label="ROC")
    axes.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=0.8, label="chance")
    point = "Youden point" if found.tuned else "operating point"
    axes.plot([point_fpr], [point_tpr], "o", color="tab:red", markersize=8,
              label=f"{point}: J = TPR − FPR = {point_tpr - point_fpr:.3f}")
    axes.annotate(f"threshold = {found.threshold:.4g}", (point_fpr, point_tpr), textcoords="offset points", xytext=(8, -14),
                  color="tab:red", fontsize=9)
    axes.set_xlim(-0.02, 1.02)
    axes.set_ylim(-0.02, 1.02)
    axes.set_xlabel("false positive rate (1 − TNR)")
    axes.set_ylabel("true positive rate")
    axes.set_title(f"ROC of class {found.classes[positive]!r}")
    axes.legend(fontsize=8, loc="lower right")


def _topk_curve(metric, predictions, references, arguments: Dict[str, Any]) -> Tuple[List[int], Dict[int, float], Any, List[int]]:
    width = np.shape(np.asarray(predictions, dtype=np.float64))[-1]
    chosen = list(arguments.get("k_list") or [arguments.get("k") or 1])
    if width <= MAX_TOPK_POINTS:
        k_values = list(range(1, width + 1))
    else:
        k_values = sorted({int(k) for k in np.rint(np.geomspace(1, width, MAX_TOPK_POINTS))} | {int(k) for k in chosen})
    others = {name: value for name, value in arguments.items() if name not in ("k", "k_list", "return_per_class")}
    curve = metric.compute(predictions=predictions, references=references, k_list=k_values, return_per_class=True, **others)
    return k_values, curve["balanced_topk_accuracy"], curve.get("per_class_recall"), chosen


def draw_topk(axes, metric, predictions, references, arguments) -> None:
    k_values, balanced, per_class, chosen = _topk_curve(metric, predictions, references, arguments)
    if per_class and len(next(iter(per_class.values()))) <= 10:
        classes = len(next(iter(per_class.values())))
        for c in range(classes):
            axes.plot(k_values, [per_class[k][c] for k in k_values], color="grey", alpha=0.35, linewidth=1,
                      label="per class" if c == 0 else None)
    axes.plot(k_values, [balanced[k] for k in k_values], marker="o", color="tab:blue", linewidth=2, label="balanced recall@k")
    marked = [k for k in chosen if k in balanced]
    axes.plot(marked, [balanced[k] for k in marked], "o", color="tab:red", markersize=9, label="requested k")
    axes.set_xlabel("k")
    axes.set_ylabel("recall@k (mean over classes)")
    axes.set_ylim(-0.02, 1.05)
    if len(k_values) <= MAX_TOPK_POINTS:
        axes.set_xticks(k_values)
    axes.set_title("Balanced recall@k against k")
    axes.legend(fontsize=8, loc="lower right")


def draw_per_label(axes, metric, predictions, references, arguments) -> None:
    detail = metric.compute(predictions=predictions, references=references, **{**arguments, "return_per_label": True})
    per_label = np.asarray(detail["per_label_ba"], dtype=np.float64)
    names = arguments.get("label_names") or detail.get("label_names") or [str(i) for i in range(len(per_label))]
    title = "Balanced accuracy per label"
    thresholds = detail.get("per_label_thresholds")
    if thresholds is not None and len(per_label) <= 8:
        names = [f"{name}\n(t={threshold:.3g})" for name, threshold in zip(class_names(names), thresholds)]
    draw_bars(axes, class_names(names) if thresholds is None else names, {"balanced accuracy": per_label}, title,
               "balanced accuracy")

