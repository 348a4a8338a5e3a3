"""Comparison study: the paired difference of two judges scored on one golden set.

Simulates golden sets labelled by two *correlated* judges with a known truth and measures,
for ``shared/comparison.py``:

* coverage of the nominal 95% interval for the difference in balanced accuracy (binary;
  prevalence 0.1 / 0.3 / 0.5, n = 100 .. 5,000, agreement between the judges 50% .. 95%),
  Newcombe/MOVER (the default) and, on fewer sets, the stratified bootstrap;
* type-I error of the p-value at alpha = 0.05 when both judges have the same TPR and TNR
  but disagree on items;
* the narrowing factor: mean width of the paired interval over the mean width of the
  interval one gets by combining the two judges' separate intervals (each judge's
  Wilson/MOVER balanced-accuracy interval from ``intervals.recall_mean_interval``,
  combined by MOVER as if the judges had been scored on different golden sets);
* the same for multi-class (3 classes) bookmaker informedness with the delta method.

The judges: per reference class r, A's and B's correctness form a paired 2 x 2 table with
margins (A's recall, B's recall) and a chosen agreement P(A and B give the same label)
(binary: that fixes the table; the agreement is clipped to what the margins allow, and the
achieved one is reported). Multi-class: each class's joint prediction distribution is a
mixture of the maximal-agreement coupling of A's and B's prediction rows and their
independent coupling, mixed to reach the agreement (clipped at independence). Class
sizes are drawn at random (multinomial), so a set may lack a class: such sets are left
out (their share is small except at n = 100, prevalence 0.1... and never there either).

    python examples/comparison_study.py            # full: 10,000 sets per row
    python examples/comparison_study.py --quick    # 1,000 sets per row, a minute or so
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from shared import comparison  # noqa: E402
from shared import intervals  # noqa: E402

LEVEL = 0.95
ALPHA = 0.05
PREVALENCES = (0.1, 0.3, 0.5)
SIZES = (100, 300, 1000, 5000)
AGREEMENTS = (0.5, 0.7, 0.85, 0.95)
# (TPR, TNR): A better than B (coverage), and two equal judges (type-I error).
ALTERNATIVE = ((0.80, 0.88), (0.74, 0.86))
NULL = ((0.75, 0.85), (0.75, 0.85))
# Multi-class informedness: prior and prediction rows (reference r -> prediction a).
PRIOR_3 = np.array([0.6, 0.3, 0.1])
CONFUSION_A = np.array([[0.85, 0.10, 0.05], [0.15, 0.75, 0.10], [0.10, 0.20, 0.70]])
CONFUSION_B = np.array([[0.80, 0.12, 0.08], [0.15, 0.70, 0.15], [0.15, 0.20, 0.65]])


# ---------------------------------------------------------------- judges


def paired_table(p_a, p_b, agreement):
    """Cells (both right, A only, B only, neither) with margins p_a, p_b and the agreement
    ``both + neither`` clipped to the feasible range; returns (cells, achieved agreement)."""
    low, high = max(0.0, p_a + p_b - 1.0), min(p_a, p_b)
    both = float(np.clip((agreement - 1.0 + p_a + p_b) / 2.0, low, high))
    cells = np.array([both, p_a - both, p_b - both, 1.0 - p_a - p_b + both])
    return np.clip(cells, 0.0, 1.0), cells[0] + cells[3]


def binary_joint(judges, agreement):
    """Conditional cell probabilities ``P[r, a, b]`` (rows sum to 1) of two binary judges."""
    (tpr_a, tnr_a), (tpr_b, tnr_b) = judges
    probabilities = np.zeros((2, 2, 2))
    achieved = []
    for reference, (p_a, p_b) in ((1, (tpr_a, tpr_b)), (0, (tnr_a, tnr_b))):
        (both, a_only, b_only, neither), agreed = paired_table(p_a, p_b, agreement)
        right, wrong = reference, 1 - reference
        probabilities[reference, right, right] = both
        probabilities[reference, right, wrong] = a_only
        probabilities[reference, wrong, right] = b_only
        probabilities[reference, wrong, wrong] = neither
        achieved.append(agreed)
    return probabilities, achieved


def coupled_rows(rows_a, rows_b, agreement):
    """``P[r, a, b]``: per row a mixture of the maximal-agreement and independent couplings."""
    probabilities, achieved = [], []
    for q_a, q_b in zip(rows_a, rows_b):
        independent = np.outer(q_a, q_b)
        same = np.minimum(q_a, q_b)
        rest = 1.0 - same.sum()
        maximal = np.diag(same) + (np.outer(q_a - same, q_b - same) / rest if rest > 0 else 0.0)
        low, high = np.trace(independent), same.sum()
        mix = float(np.clip((agreement - low) / (high - low), 0.0, 1.0)) if high > low else 1.0
        joint = mix * maximal + (1.0 - mix) * independent
        probabilities.append(joint)
        achieved.append(np.trace(joint))
    return np.array(probabilities), achieved


def simulate(rng, num_sets, size, prior, probabilities):
    """Joint counts ``(num_sets, K, K, K)`` with class sizes ~ Multinomial(size, prior)."""
    num_classes = prior.size
    support = rng.multinomial(size, prior, size=num_sets)
    cells = rng.multinomial(support, probabilities.reshape(num_classes, -1))
    return cells.reshape(num_sets, num_classes, num_classes, num_classes).astype(np.float64), support


# ---------------------------------------------------------------- measurements


def separate_combined_width(joint):
    """Width of the MOVER combination of each judge's own Wilson/MOVER BA interval."""
    confusion_a, confusion_b = joint.sum(axis=-1), joint.sum(axis=-2)
    support = confusion_a.sum(axis=-1)
    values, halves = [], []
    for confusion in (confusion_a, confusion_b):
        correct = np.diagonal(confusion, axis1=-2, axis2=-1)
        interval = intervals.recall_mean_interval(correct, support, confidence_level=LEVEL, method="wilson")
        value = (correct / support).mean(axis=-1)
        values.append(value)
        halves.append((value - interval.low, interval.high - value))
    (a_below, a_above), (b_below, b_above) = halves
    return np.sqrt(a_below**2 + b_above**2) + np.sqrt(a_above**2 + b_below**2)


def measure(result, truth, keep):
    low, high = (np.asarray(x)[keep] for x in result["difference_ci"])
    return {
        "coverage": float(((low <= truth) & (truth <= high)).mean()),
        "miss_low": float((truth < low).mean()),  # interval entirely above the truth
        "miss_high": float((truth > high).mean()),
        "width": float((high - low).mean()),
        "rejected": float((np.asarray(result["p_value"])[keep] < ALPHA).mean()),
    }


def binary_row(rng, args, prevalence, size, agreement, judges, with_bootstrap):
    probabilities, achieved = binary_joint(judges, agreement)
    prior = np.array([1.0 - prevalence, prevalence])
    joint, support = simulate(rng, args.sets, size, prior, probabilities)
    keep = (support > 0).all(axis=-1)
    joint = joint[keep]
    (tpr_a, tnr_a), (tpr_b, tnr_b) = judges
    truth = (tpr_a + tnr_a) / 2.0 - (tpr_b + tnr_b) / 2.0
    paired = comparison.balanced_accuracy_difference(joint, confidence_level=LEVEL)
    row = measure(paired, truth, slice(None))
    combined = separate_combined_width(joint)
    row["narrowing"] = row["width"] / float(combined.mean())
    row["agreement"] = "/".join(f"{a:.2f}" for a in achieved[::-1])  # negatives / positives
    row["kept"] = float(keep.mean())
    if with_bootstrap:
        subset = joint[: args.bootstrap_sets]
        boot = comparison.balanced_accuracy_difference(
            subset, confidence_level=LEVEL, method="bootstrap", n_resamples=args.resamples, seed=int(rng.integers(2**31))
        )
        row["bootstrap"] = measure(boot, truth, slice(None))["coverage"]
    return row


def multiclass_row(rng, args, size, agreement, null, average="bookmaker"):
    rows_b = CONFUSION_A if null else CONFUSION_B
    probabilities, achieved = coupled_rows(CONFUSION_A, rows_b, agreement)
    joint, support = simulate(rng, args.sets, size, PRIOR_3, probabilities)
    keep = (support > 0).all(axis=-1)
    joint = joint[keep]
    population_a = intervals.informedness_average(PRIOR_3[:, None] * CONFUSION_A, average)
    population_b = intervals.informedness_average(PRIOR_3[:, None] * rows_b, average)
    truth = float(population_a - population_b)
    result = comparison.informedness_difference(joint, average=average, confidence_level=LEVEL, method="delta")
    row = measure(result, truth, slice(None))
    row["agreement"] = "/".join(f"{a:.2f}" for a in achieved)
    row["kept"] = float(keep.mean())
    if args.bootstrap_sets:
        subset = joint[: args.bootstrap_sets]
        boot = comparison.informedness_difference(
            subset, average=average, confidence_level=LEVEL, method="bootstrap",
            n_resamples=args.resamples, seed=int(rng.integers(2**31)),
        )
        row["bootstrap"] = measure(boot, truth, slice(None))["coverage"]
    return row


# ---------------------------------------------------------------- report


def in_band(value, low, high):
    return f"**{value:.3f}**" if not low <= value <= high else f"{value:.3f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 sets per row, 200 bootstrap sets of 500 resamples")
    parser.add_argument("--sets", type=int, default=10_000, help="simulated golden sets per row")
    parser.add_argument("--bootstrap-sets", type=int, default=1_000, help="of those, how many also get the bootstrap (0: none)")
    parser.add_argument("--resamples", type=int, default=1_000, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    if args.quick:
        args.sets, args.bootstrap_sets, args.resamples = 1_000, 200, 500
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    misses, type_one_misses, narrowing = [], [], []

    print(f"Sets per row: {args.sets:,} (bootstrap: the first {args.bootstrap_sets:,}, {args.resamples:,} resamples); seed {args.seed}.\n")
    print("## Balanced accuracy, binary: coverage of the 95% difference interval (A: TPR 0.80 / TNR 0.88, B: 0.74 / 0.86; truth +0.04)\n")
    print("| prevalence | n | agreement (neg/pos) | coverage | miss: truth below / above | bootstrap coverage | mean width | paired / separate width |")
    print("|---|---|---|---|---|---|---|---|")
    for prevalence in PREVALENCES:
        for size in SIZES:
            for agreement in AGREEMENTS:
                row = binary_row(rng, args, prevalence, size, agreement, ALTERNATIVE, args.bootstrap_sets > 0)
                boot = in_band(row["bootstrap"], 0.93, 0.97) if "bootstrap" in row else "-"
                print(
                    f"| {prevalence} | {size:,} | {row['agreement']} | {in_band(row['coverage'], 0.93, 0.97)} | "
                    f"{row['miss_low']:.3f} / {row['miss_high']:.3f} | {boot} | {row['width']:.3f} | {row['narrowing']:.2f} |"
                )
                narrowing.append(row["narrowing"])
                if not 0.93 <= row["coverage"] <= 0.97:
                    misses.append(f"prevalence {prevalence}, n {size:,}, agreement {row['agreement']}: {row['coverage']:.3f}")
    print("\n## Balanced accuracy, binary: type-I error at alpha 0.05 (both judges TPR 0.75 / TNR 0.85; truth 0)\n")
    print("| prevalence | n | agreement (neg/pos) | type-I error | coverage of 0 | paired / separate width |")
    print("|---|---|---|---|---|---|")
    null_narrowing = []
    for prevalence in PREVALENCES:
        for size in SIZES:
            for agreement in AGREEMENTS:
                row = binary_row(rng, args, prevalence, size, agreement, NULL, False)
                print(
                    f"| {prevalence} | {size:,} | {row['agreement']} | {in_band(row['rejected'], 0.035, 0.065)} | "
                    f"{in_band(row['coverage'], 0.93, 0.97)} | {row['narrowing']:.2f} |"
                )
                null_narrowing.append(row["narrowing"])
                if not 0.035 <= row["rejected"] <= 0.065:
                    type_one_misses.append(f"prevalence {prevalence}, n {size:,}, agreement {row['agreement']}: {row['rejected']:.3f}")
                if not 0.93 <= row["coverage"] <= 0.97:
                    misses.append(f"(null) prevalence {prevalence}, n {size:,}, agreement {row['agreement']}: {row['coverage']:.3f}")

    print("\n## Bookmaker informedness, 3 classes (prior 0.6/0.3/0.1), delta method\n")
    print("| judges | n | agreement per class | coverage | bootstrap coverage | type-I error (null rows) | mean width |")
    print("|---|---|---|---|---|---|---|")
    for null in (False, True):
        for size in (200, 1000, 5000):
            for agreement in (0.7, 0.85, 0.95):
                row = multiclass_row(rng, args, size, agreement, null)
                boot = in_band(row["bootstrap"], 0.93, 0.97) if "bootstrap" in row else "-"
                error = in_band(row["rejected"], 0.035, 0.065) if null else "-"
                print(
                    f"| {'equal' if null else 'A better'} | {size:,} | {row['agreement']} | {in_band(row['coverage'], 0.93, 0.97)} | "
                    f"{boot} | {error} | {row['width']:.3f} |"
                )
                if not 0.93 <= row["coverage"] <= 0.97:
                    misses.append(f"(informedness, {'equal' if null else 'A better'}) n {size:,}, agreement {row['agreement']}: {row['coverage']:.3f}")
                if null and not 0.035 <= row["rejected"] <= 0.065:
                    type_one_misses.append(f"(informedness) n {size:,}, agreement {row['agreement']}: {row['rejected']:.3f}")

    print("\n## Summary\n")
    print(f"- Coverage outside 93-97% (bold above): {len(misses)} row(s)" + ("" if not misses else ":"))
    for miss in misses:
        print(f"  - {miss}")
    print(f"- Type-I error outside 3.5-6.5%: {len(type_one_misses)} row(s)" + ("" if not type_one_misses else ":"))
    for miss in type_one_misses:
        print(f"  - {miss}")
    all_narrowing = np.array(narrowing + null_narrowing)
    print(
        f"- Paired / separate interval width (balanced accuracy): median {np.median(all_narrowing):.2f}, "
        f"range {all_narrowing.min():.2f}-{all_narrowing.max():.2f}; at agreement 0.95 alone: "
        f"median {np.median(all_narrowing[3::4]):.2f}."
    )
    print(f"- Run time: {time.perf_counter() - started:.0f} s.")


if __name__ == "__main__":
    main()
