"""Two judges on one golden set: is judge A significantly better than judge B?

The judge-selection example of the balanced_accuracy card (Collot et al. 2026, Table 1):
a golden set of 83 unsafe and 917 safe examples and two judges,

    judge A: TP 63, FP 133, TN 784, FN 20     (balanced accuracy 0.807)
    judge B: TP 47, FP  69, TN 848, FN 36     (balanced accuracy 0.746)

Both judges labelled the same 1,000 items, so the comparison should use the pairing
(``baseline_predictions``). But the two confusion matrices do not say on which items the
judges agree: that is what the paired interval and p-value depend on. This example
builds per-item labels consistent with both tables under a stated overlap and reports
the comparison for the two extremes the tables allow:

* ``"most"``: the judges agree as much as the tables allow - every unsafe example B
  finds, A finds too, and every safe example A gets right, B gets right too (92.0% of
  the items get the same label from both);
* ``"least"``: they agree as little as the tables allow (as many items as possible
  right for one judge only; 74.2% agreement).

Any real pair of judges lies between (or is computed from its own per-item labels).

    python examples/compare_judges.py
"""

from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
TABLE_1 = {"A": {"tp": 63, "fp": 133, "tn": 784, "fn": 20}, "B": {"tp": 47, "fp": 69, "tn": 848, "fn": 36}}
OVERLAPS = ("most", "least")
ALPHA = 0.05


def golden_set_items(judge_a=TABLE_1["A"], judge_b=TABLE_1["B"], overlap="most"):
    """Per-item ``(references, predictions_a, predictions_b)`` (1 = unsafe) matching both judges'
    TP/FP/TN/FN, with the most or the least agreement the two tables allow."""
    if overlap not in OVERLAPS:
        raise ValueError(f"overlap: expected one of {OVERLAPS}, found {overlap!r}.")
    positives, negatives = judge_a["tp"] + judge_a["fn"], judge_a["tn"] + judge_a["fp"]
    if (judge_b["tp"] + judge_b["fn"], judge_b["tn"] + judge_b["fp"]) != (positives, negatives):
        raise ValueError("judge_b: expected the golden set of judge_a (the same numbers of positives and negatives).")
    references, a, b = [], [], []
    for label, size, right_a, right_b in ((1, positives, judge_a["tp"], judge_b["tp"]), (0, negatives, judge_a["tn"], judge_b["tn"])):
        # Items of this class: both right, A only, B only, neither.
        both = min(right_a, right_b) if overlap == "most" else max(0, right_a + right_b - size)
        a_only, b_only = right_a - both, right_b - both
        neither = size - both - a_only - b_only
        wrong = 1 - label
        references += [label] * size
        a += [label] * both + [label] * a_only + [wrong] * b_only + [wrong] * neither
        b += [label] * both + [wrong] * a_only + [label] * b_only + [wrong] * neither
    return np.array(references), np.array(a), np.array(b)


def compare(overlap, confidence_level=0.95):
    """Balanced accuracy and informedness of judge A against judge B (the baseline)."""
    import evaluate

    references, a, b = golden_set_items(overlap=overlap)
    results = {}
    for name in ("balanced_accuracy", "informedness"):
        metric = evaluate.load(str(REPO_ROOT / name))
        results[name] = metric.compute(references=references, predictions=a, baseline_predictions=b,
                                       confidence_level=confidence_level)
    return results, float(np.mean(a == b))


def main():
    for overlap in OVERLAPS:
        results, agreement = compare(overlap)
        print(f"overlap {overlap!r}: the judges agree on {agreement:.1%} of the items")
        for name, result in results.items():
            low, high = result[f"{name}_difference_ci"]
            print(f"  {name}: A {result[name]:.4f}, B {result[f'baseline_{name}']:.4f}, "
                  f"difference {result[f'{name}_difference']:.4f}, 95% interval [{low:.4f}, {high:.4f}], "
                  f"p-value {result[f'{name}_difference_p_value']:.4f}")
        p_value = results["balanced_accuracy"]["balanced_accuracy_difference_p_value"]
        verdict = "significantly better than" if p_value < ALPHA else "not significantly different from"
        print(f"  judge A is {verdict} judge B at alpha {ALPHA} (p = {p_value:.4f})")


if __name__ == "__main__":
    main()
