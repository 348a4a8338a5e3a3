"""The paired difference of two judges on one golden set, where users are: coverage and type-I error.

Simulates golden sets labelled by two *correlated* judges with a known truth and measures,
for every interval method of the two modules' comparisons (``balanced_accuracy_difference``,
``informedness_difference`` in ``shared/metrics/``):

* ``balanced_accuracy``: ``ci_method`` None / "agresti_coull" / "wilson" give the
  Newcombe/MOVER interval ("newcombe"), ``ci_method="bootstrap"`` the smoothed stratified
  bootstrap ("bootstrap");
* ``informedness``: binary, the same two intervals doubled (J = 2 BA - 1; their coverage is
  the balanced-accuracy one, bit for bit, so they are not simulated twice); 3 classes, the
  delta method (the default; bookmaker, macro and weighted averages) and the bootstrap
  (bookmaker);

the coverage of the nominal 95% interval, how often it refuses (NaN), its mean width, and
the type-I error of the p-value at alpha = 0.05 where both judges are equally good. Each
figure comes with its Monte-Carlo standard error ``sqrt(p (1 - p) / sets)``.

The grid is where LLM-judge practice lives: golden sets of n = 30, 50, 100 and 300; a class
with 2, 5 or 10 items; judges agreeing on 70%, 90% or 98% of the items (clipped to what
their rates allow; the achieved agreement is printed); recalls near 1, near 1/2 and near 0
in the small class, so that per-class rates are often estimated at 0 or 1; 2 and 3 classes.
Class sizes are fixed (the methods condition on them: a golden set fixes its classes).

The judges: per reference class r, A's and B's predictions form a joint distribution with
the given rows and agreement P(A and B give the same label): binary, a paired 2 x 2 table of
(A right, B right) with margins (A's recall, B's recall); multi-class, a mixture of the
maximal-agreement and the independent coupling of A's and B's prediction rows.

It also measures uncorrected variants that the modules do not use ("uncorrected" columns:
Newcombe's phi without its n/2 correction, the delta method and the bootstrap without the
pseudo-item of disagreement), to show why the corrections are there. Also weighed and not
adopted: refusing an interval when a class has fewer than 3, 5 or 10 discordant items (in
pilots of 600-4,000 sets per setting it did not restore the coverage among the intervals
kept, e.g. 0.86 with 93% refused); a Bayesian (Dirichlet) bootstrap with the same pseudo-item
(it covered like the smoothed one); 2 pseudo-items per class (it over-covered more); a
within-item swap permutation p-value for multi-class informedness (the score test keeps its
level on this grid).

Usage (from the repository root)::

    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/paired_comparison/study.py           # full grid -> results.md (about 30 min)
    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/paired_comparison/study.py --quick   # 400 sets per row (200 bootstrap), about 2 min
"""

import argparse
import datetime
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
sys.path.insert(0, str(REPO_ROOT))

from shared.metrics.balanced_accuracy import balanced_accuracy_difference  # noqa: E402
from shared.metrics.informedness import informedness_difference  # noqa: E402
from shared.metrics import balanced_accuracy as balanced_accuracy_metric  # noqa: E402
from shared.metrics import informedness as informedness_metric  # noqa: E402
from shared.stats import paired_joint  # noqa: E402
from shared.stats import paired_tests  # noqa: E402
from shared.stats.binomial import wilson_interval  # noqa: E402

LEVEL = 0.95
ALPHA = 0.05
TARGET = 0.93  # the least coverage accepted for a nominal 95% interval
AGREEMENTS = (0.7, 0.9, 0.98)

# Binary judges: (TPR, TNR) of A and of B. Equal judges give the type-I error.
BINARY_JUDGES = {
    "A better": ((0.80, 0.88), (0.74, 0.86)),
    "near 1": ((0.97, 0.99), (0.95, 0.98)),
    "recall near 1/2": ((0.55, 0.90), (0.50, 0.88)),
    "recall near 0": ((0.10, 0.99), (0.05, 0.98)),
    "equal": ((0.75, 0.85), (0.75, 0.85)),
    "equal, near 1": ((0.97, 0.99), (0.97, 0.99)),
    "equal, recall near 1/2": ((0.50, 0.90), (0.50, 0.90)),
}
# Golden sets: (n, positives).
BINARY_SIZES = tuple((n, positives) for n in (30, 50, 100, 300) for positives in (2, 5, 10, n // 2))

# Three classes: prediction rows (reference r -> prediction a) of A and of B; class 3 is the small one.
ROWS = {
    "moderate A": [[0.85, 0.10, 0.05], [0.15, 0.75, 0.10], [0.10, 0.20, 0.70]],
    "moderate B": [[0.80, 0.12, 0.08], [0.15, 0.70, 0.15], [0.15, 0.20, 0.65]],
    "near 1 A": [[0.97, 0.02, 0.01], [0.03, 0.95, 0.02], [0.02, 0.03, 0.95]],
    "near 1 B": [[0.96, 0.03, 0.01], [0.04, 0.93, 0.03], [0.03, 0.04, 0.93]],
    "half A": [[0.90, 0.06, 0.04], [0.06, 0.90, 0.04], [0.25, 0.20, 0.55]],
    "half B": [[0.88, 0.07, 0.05], [0.07, 0.88, 0.05], [0.25, 0.25, 0.50]],
    "rare A": [[0.90, 0.08, 0.02], [0.10, 0.88, 0.02], [0.45, 0.45, 0.10]],
    "rare B": [[0.88, 0.10, 0.02], [0.12, 0.86, 0.02], [0.47, 0.48, 0.05]],
}
MULTICLASS_JUDGES = {
    "A better": ("moderate A", "moderate B"),
    "near 1": ("near 1 A", "near 1 B"),
    "class 3 recall near 1/2": ("half A", "half B"),
    "class 3 rarely predicted": ("rare A", "rare B"),
    "equal": ("moderate A", "moderate A"),
    "equal, near 1": ("near 1 A", "near 1 A"),
    "equal, class 3 recall near 1/2": ("half A", "half A"),
}
MULTICLASS_SIZES = ((15, 10, 5), (10, 10, 10), (30, 15, 5), (25, 15, 10), (65, 30, 5), (60, 30, 10), (205, 90, 5), (180, 90, 30))
AVERAGES = ("bookmaker", "macro", "weighted")


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
    for q_a, q_b in zip(np.asarray(rows_a, dtype=float), np.asarray(rows_b, dtype=float)):
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


def simulate(rng, num_sets, class_sizes, probabilities):
    """Joint counts ``(num_sets, K, K, K)``: class r has ``class_sizes[r]`` items, their
    (A, B) predictions ~ Multinomial over ``probabilities[r]``."""
    num_classes = len(class_sizes)
    cells = np.stack([rng.multinomial(size, probabilities[r].reshape(-1), size=num_sets) for r, size in enumerate(class_sizes)], axis=1)
    return cells.reshape(num_sets, num_classes, num_classes, num_classes).astype(np.float64)


def agreement_rows(judge_pair, achieved_of):
    """The agreement targets, with those that clip to the same achieved agreement dropped."""
    seen, rows = set(), []
    for target in AGREEMENTS:
        probabilities, achieved = achieved_of(judge_pair, target)
        key = tuple(round(float(a), 3) for a in achieved)
        if key not in seen:
            seen.add(key)
            rows.append((probabilities, achieved))
    return rows


# ---------------------------------------------------------------- uncorrected variants (not used by the modules)


def newcombe_uncorrected_phi(joint):
    """The balanced-accuracy Newcombe/MOVER interval with phi *without* its n/2 correction,
    of the unweighted counts: the published method 10 applies the correction."""
    diagonal = np.arange(joint.shape[-1])
    a_right = joint.sum(axis=-1)[..., diagonal, diagonal]
    b_right = joint.sum(axis=-2)[..., diagonal, diagonal]
    both = joint[..., diagonal, diagonal, diagonal]
    n = joint.sum(axis=(-2, -1))
    p1, p2 = a_right / n, b_right / n
    s11, s10, s01 = both / n, (a_right - both) / n, (b_right - both) / n
    s00 = 1.0 - s11 - s10 - s01
    margins = p1 * (1 - p1) * p2 * (1 - p2)
    phi = np.where(margins > 0, (s11 * s00 - s10 * s01) / np.sqrt(np.where(margins > 0, margins, 1.0)), 0.0)
    l1, u1 = wilson_interval(a_right, n, LEVEL)
    l2, u2 = wilson_interval(b_right, n, LEVEL)
    below = np.sqrt(np.maximum((p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2), 0))
    above = np.sqrt(np.maximum((p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1), 0))
    weight = 1.0 / joint.shape[-1]
    difference = (weight * (p1 - p2)).sum(axis=-1)
    return difference - np.sqrt(((weight * below) ** 2).sum(axis=-1)), difference + np.sqrt(((weight * above) ** 2).sum(axis=-1))


def delta_without_pseudo_item(joint, average="bookmaker"):
    """The informedness delta-method interval on the observed shares (no pseudo-item of disagreement)."""
    confusion_a, confusion_b = paired_joint.marginals(joint)
    totals = joint.sum(axis=(-2, -1))
    gradient_a = informedness_metric.informedness_gradient(confusion_a, average)
    gradient_b = informedness_metric.informedness_gradient(confusion_b, average)
    variance, _ = paired_tests.variance_terms(joint, totals, totals, gradient_a, gradient_b)
    difference = informedness_metric.informedness_average(confusion_a, average) - informedness_metric.informedness_average(confusion_b, average)
    half = 1.959963984540054 * np.sqrt(variance)
    return difference - half, difference + half


def bootstrap_without_pseudo_item(joint, statistic, resamples, seed):
    """The percentile interval of the stratified bootstrap on the observed shares (no pseudo-item of disagreement)."""
    totals = joint.sum(axis=(-2, -1))
    replicates = paired_joint.bootstrap_joint(joint, totals, totals, statistic, resamples, seed, pseudo_items=0.0)
    return np.nanquantile(replicates, [ALPHA / 2, 1 - ALPHA / 2], axis=0)


def mean_recall_difference(resampled):
    a, b = paired_joint.marginals(resampled)
    weights = np.full(resampled.shape[-1], 1.0 / resampled.shape[-1])
    return balanced_accuracy_metric.mean_recall(a, weights, 0.0) - balanced_accuracy_metric.mean_recall(b, weights, 0.0)


def informedness_difference_of(resampled):
    a, b = paired_joint.marginals(resampled)
    return informedness_metric.informedness_average(a, "bookmaker") - informedness_metric.informedness_average(b, "bookmaker")


# ---------------------------------------------------------------- measurements


def coverage(interval, truth):
    """(coverage among the intervals given, refusal rate, mean width, number of sets)."""
    low, high = (np.asarray(x, dtype=float) for x in interval)
    given = ~np.isnan(low)
    covered = (low <= truth + 1e-12) & (truth - 1e-12 <= high)
    share = float(covered[given].mean()) if given.any() else float("nan")
    return {"coverage": share, "refused": float(1.0 - given.mean()), "width": float((high - low)[given].mean()), "sets": int(given.sum())}


def rejection(p_values):
    p_values = np.asarray(p_values, dtype=float)
    return {"rate": float((p_values < ALPHA).mean()), "sets": int(p_values.size)}


def separate_combined_width(joint):
    """Width of the MOVER combination of each judge's own Wilson/MOVER BA interval."""
    confusion_a, confusion_b = joint.sum(axis=-1), joint.sum(axis=-2)
    support = confusion_a.sum(axis=-1)
    halves = []
    for confusion in (confusion_a, confusion_b):
        correct = np.diagonal(confusion, axis1=-2, axis2=-1)
        interval = balanced_accuracy_metric.recall_mean_interval(correct, support, confidence_level=LEVEL, method="wilson")
        value = (correct / support).mean(axis=-1)
        halves.append((value - interval.low, interval.high - value))
    (a_below, a_above), (b_below, b_above) = halves
    return np.sqrt(a_below**2 + b_above**2) + np.sqrt(a_above**2 + b_below**2)


def binary_row(rng, args, class_sizes, judges, probabilities):
    (tpr_a, tnr_a), (tpr_b, tnr_b) = judges
    truth = (tpr_a + tnr_a - tpr_b - tnr_b) / 2.0
    joint = simulate(rng, args.sets, class_sizes, probabilities)
    newcombe = balanced_accuracy_difference(joint, confidence_level=LEVEL)
    row = {"truth": truth, "newcombe": coverage(newcombe["difference_ci"], truth), "p": rejection(newcombe["p_value"]),
           "uncorrected newcombe": coverage(newcombe_uncorrected_phi(joint), truth)}
    row["narrowing"] = row["newcombe"]["width"] / float(separate_combined_width(joint).mean())
    subset = joint[: args.bootstrap_sets]
    seed = int(rng.integers(2**31))
    boot = balanced_accuracy_difference(subset, confidence_level=LEVEL, method="bootstrap", n_resamples=args.resamples, seed=seed)
    row["bootstrap"] = coverage(boot["difference_ci"], truth)
    few = subset[: args.uncorrected_sets]
    row["uncorrected bootstrap"] = coverage(bootstrap_without_pseudo_item(few, mean_recall_difference, args.resamples, seed), truth)
    return row


def multiclass_row(rng, args, class_sizes, rows_a, rows_b, probabilities):
    prior = np.asarray(class_sizes, dtype=float) / sum(class_sizes)
    rows_a, rows_b = np.asarray(rows_a), np.asarray(rows_b)
    truth_ba = float(np.mean(np.diag(rows_a)) - np.mean(np.diag(rows_b)))
    truth = {average: float(informedness_metric.informedness_average(prior[:, None] * rows_a, average)
                            - informedness_metric.informedness_average(prior[:, None] * rows_b, average)) for average in AVERAGES}
    joint = simulate(rng, args.sets, class_sizes, probabilities)
    newcombe = balanced_accuracy_difference(joint, confidence_level=LEVEL)
    row = {"truth": truth["bookmaker"], "newcombe": coverage(newcombe["difference_ci"], truth_ba), "p": rejection(newcombe["p_value"]),
           "uncorrected newcombe": coverage(newcombe_uncorrected_phi(joint), truth_ba)}
    for average in AVERAGES:
        delta = informedness_difference(joint, average=average, confidence_level=LEVEL, method="delta")
        row[f"delta {average}"] = coverage(delta["difference_ci"], truth[average])
        row[f"p {average}"] = rejection(delta["p_value"])
    row["uncorrected delta"] = coverage(delta_without_pseudo_item(joint), truth["bookmaker"])
    subset = joint[: args.bootstrap_sets]
    seed = int(rng.integers(2**31))
    boot = balanced_accuracy_difference(subset, confidence_level=LEVEL, method="bootstrap", n_resamples=args.resamples, seed=seed)
    row["bootstrap"] = coverage(boot["difference_ci"], truth_ba)
    boot_j = informedness_difference(subset, confidence_level=LEVEL, method="bootstrap", n_resamples=args.resamples, seed=seed)
    row["bootstrap J"] = coverage(boot_j["difference_ci"], truth["bookmaker"])
    few = subset[: args.uncorrected_sets]
    row["uncorrected bootstrap"] = coverage(bootstrap_without_pseudo_item(few, mean_recall_difference, args.resamples, seed), truth_ba)
    row["uncorrected bootstrap J"] = coverage(bootstrap_without_pseudo_item(few, informedness_difference_of, args.resamples, seed), truth["bookmaker"])
    return row


# ---------------------------------------------------------------- report


def standard_error(share, sets):
    return float(np.sqrt(share * (1.0 - share) / sets)) if sets else float("nan")


def shown(cell):
    """Coverage, bold when below TARGET; with the refusal rate when any interval was refused."""
    if cell["sets"] == 0:
        return "refused"
    text = f"{cell['coverage']:.3f}"
    if cell["coverage"] < TARGET:
        text = f"**{text}**"
    if cell["refused"] > 0:
        text += f" ({cell['refused']:.0%} refused)"
    return text


class Summary:
    """Per method: every row's coverage, to report the worst row and the count below TARGET."""

    def __init__(self):
        self.cells, self.nulls = {}, {}

    def add(self, method, label, cell):
        self.cells.setdefault(method, []).append((label, cell))

    def add_null(self, test, label, cell):
        self.nulls.setdefault(test, []).append((label, cell))

    def lines(self):
        """The summary tables as markdown lines: the intervals' coverage, then the p-values' type-I error."""
        lines = ["| method | rows | min coverage (± MC s.e.), where | rows below 0.93 | median | rows above 0.99 | refused |", "|---|---|---|---|---|---|---|"]
        for method, cells in self.cells.items():
            values = np.array([cell["coverage"] for _, cell in cells])
            label, worst = min(cells, key=lambda item: item[1]["coverage"])
            refused = max(cell["refused"] for _, cell in cells)
            lines.append(f"| {method} | {len(cells)} | {worst['coverage']:.3f} ± {standard_error(worst['coverage'], worst['sets']):.3f}, {label} | "
                         f"{int((values < TARGET).sum())} | {np.median(values):.3f} | {int((values > 0.99).sum())} | "
                         f"{'none' if refused == 0 else f'up to {refused:.0%}'} |")
        lines += ["", "| p-value | null rows | type-I error at alpha 0.05: range | max (± MC s.e.), where | rows above 0.065 | rows below 0.035 |", "|---|---|---|---|---|---|"]
        for test, cells in self.nulls.items():
            rates = np.array([cell["rate"] for _, cell in cells])
            label, top = max(cells, key=lambda item: item[1]["rate"])
            lines.append(f"| {test} | {len(cells)} | {rates.min():.3f}-{rates.max():.3f} | {top['rate']:.3f} ± "
                         f"{standard_error(top['rate'], top['sets']):.3f}, {label} | {int((rates > 0.065).sum())} | {int((rates < 0.035).sum())} |")
        return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="400 sets per row, 200 of them bootstrapped with 300 resamples, 100 by the uncorrected bootstrap")
    parser.add_argument("--sets", type=int, default=10_000, help="simulated golden sets per row (Newcombe, delta, p-values)")
    parser.add_argument("--bootstrap-sets", type=int, default=1_000, help="of those, how many get the bootstrap")
    parser.add_argument("--uncorrected-sets", type=int, default=200, help="of those, how many get the uncorrected bootstrap")
    parser.add_argument("--resamples", type=int, default=1_000, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--output", type=Path, default=None,
                        help="markdown results file (default: results.md beside this script; with --quick: none unless given)")
    args = parser.parse_args(argv)
    command = " ".join(["OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/paired_comparison/study.py",
                        *(sys.argv[1:] if argv is None else argv)])
    output = args.output if args.output is not None else (None if args.quick else HERE / "results.md")
    if args.quick:
        args.sets, args.bootstrap_sets, args.uncorrected_sets, args.resamples = 400, 200, 100, 300
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    summary, uncorrected = Summary(), Summary()
    table = []

    table.append("## Two classes: balanced accuracy (informedness: the same intervals doubled)\n")
    table.append("Coverage of the 95% interval (bold: below 0.93); type-I error of the p-value at alpha 0.05 "
                 "for equal judges; width: mean width of the interval; paired / separate: mean width over that "
                 "of combining the two judges' separate Wilson/MOVER intervals.\n")
    table.append("| judges | n | positives | agreement (neg/pos) | Newcombe | bootstrap | type-I error | Newcombe width | "
                 "bootstrap width | paired / separate | uncorrected phi | uncorrected bootstrap |")
    table.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    narrowing = []
    for name, judges in BINARY_JUDGES.items():
        null = name.startswith("equal")
        for n, positives in BINARY_SIZES:
            for probabilities, achieved in agreement_rows(judges, binary_joint):
                row = binary_row(rng, args, [n - positives, positives], judges, probabilities)
                agreement = "/".join(f"{a:.2f}" for a in achieved[::-1])
                label = f"2 classes, {name}, n = {n}, {positives} positives, agreement {agreement}"
                for method in ("newcombe", "bootstrap"):
                    summary.add(f"balanced accuracy {method}", label, row[method])
                    uncorrected.add(f"balanced accuracy {method}", label, row[f"uncorrected {method}"])
                error = "-"
                if null:
                    summary.add_null("balanced accuracy (stratified McNemar: exact mid-p or normal), 2 classes", label, row["p"])
                    error = f"{row['p']['rate']:.3f}"
                narrowing.append(row["narrowing"])
                table.append(
                    f"| {name} | {n} | {positives} | {agreement} | {shown(row['newcombe'])} | {shown(row['bootstrap'])} | {error} | "
                    f"{row['newcombe']['width']:.3f} | {row['bootstrap']['width']:.3f} | {row['narrowing']:.2f} | "
                    f"{shown(row['uncorrected newcombe'])} | {shown(row['uncorrected bootstrap'])} |"
                )
        print(f"  ... two classes, {name}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)

    table.append("\n## Three classes: balanced accuracy and informedness\n")
    table.append("Class 3 is the small one. Informedness: bookmaker unless named; the bootstrap and the "
                 "\"uncorrected\" columns on the first sets of each row (see the header).\n")
    table.append("| judges | class sizes | agreement per class | BA Newcombe | BA bootstrap | J delta | J delta macro | J delta weighted | "
                 "J bootstrap | type-I error BA / J | uncorrected: BA phi | uncorrected: BA bootstrap | uncorrected: J delta | uncorrected: J bootstrap |")
    table.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, (rows_a, rows_b) in MULTICLASS_JUDGES.items():
        null = name.startswith("equal")
        pair = (ROWS[rows_a], ROWS[rows_b])
        for class_sizes in MULTICLASS_SIZES:
            for probabilities, achieved in agreement_rows(pair, lambda judges, target: coupled_rows(*judges, target)):
                row = multiclass_row(rng, args, class_sizes, *pair, probabilities)
                agreement = "/".join(f"{a:.2f}" for a in achieved)
                label = f"3 classes, {name}, sizes {'/'.join(map(str, class_sizes))}, agreement {agreement}"
                summary.add("balanced accuracy newcombe", label, row["newcombe"])
                summary.add("balanced accuracy bootstrap", label, row["bootstrap"])
                for average in AVERAGES:
                    summary.add(f"informedness delta ({average})", label, row[f"delta {average}"])
                summary.add("informedness bootstrap (bookmaker)", label, row["bootstrap J"])
                uncorrected.add("balanced accuracy newcombe", label, row["uncorrected newcombe"])
                uncorrected.add("balanced accuracy bootstrap", label, row["uncorrected bootstrap"])
                uncorrected.add("informedness delta (bookmaker)", label, row["uncorrected delta"])
                uncorrected.add("informedness bootstrap (bookmaker)", label, row["uncorrected bootstrap J"])
                error = "-"
                if null:
                    summary.add_null("balanced accuracy (stratified McNemar), 3 classes", label, row["p"])
                    for average in AVERAGES:
                        summary.add_null(f"informedness ({average}; score test), 3 classes", label, row[f"p {average}"])
                    error = f"{row['p']['rate']:.3f} / {row['p bookmaker']['rate']:.3f}"
                table.append(
                    f"| {name} | {'/'.join(map(str, class_sizes))} | {agreement} | {shown(row['newcombe'])} | {shown(row['bootstrap'])} | "
                    f"{shown(row['delta bookmaker'])} | {shown(row['delta macro'])} | {shown(row['delta weighted'])} | "
                    f"{shown(row['bootstrap J'])} | {error} | {shown(row['uncorrected newcombe'])} | {shown(row['uncorrected bootstrap'])} | "
                    f"{shown(row['uncorrected delta'])} | {shown(row['uncorrected bootstrap J'])} |"
                )
        print(f"  ... three classes, {name}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)

    wall = time.perf_counter() - started
    lines = [
        "# The paired difference of two judges on one golden set: coverage and type-I error\n",
        f"Written by `{command}` on {datetime.date.today().isoformat()} ({wall / 60:.1f} min): {args.sets:,} golden sets per row "
        f"(the bootstrap: the first {args.bootstrap_sets:,}, {args.resamples:,} resamples; the uncorrected bootstrap on "
        f"{args.uncorrected_sets:,}); seed {args.seed}. The grid, the judges and the methods are described in the script's docstring.\n",
        "## Summary\n",
        f"Every interval method over the whole grid (coverage of the 95% interval among the intervals given; "
        f"Monte-Carlo s.e. about {standard_error(0.95, args.sets):.4f} at {args.sets:,} sets, "
        f"{standard_error(0.95, args.bootstrap_sets):.4f} at {args.bootstrap_sets:,}; at a coverage of 0.99 "
        f"{standard_error(0.99, args.sets):.4f} and {standard_error(0.99, args.bootstrap_sets):.4f}):\n",
        *summary.lines(),
        "\nThe same grid with the uncorrected variants, which the modules do not use (Newcombe's phi without its n/2 "
        "correction; delta method and bootstrap without the pseudo-item of disagreement; the uncorrected "
        f"bootstrap on {args.uncorrected_sets:,} sets per row):\n",
        "| method | rows | min coverage (± MC s.e.), where | rows below 0.93 | median | rows above 0.99 | refused |",
        "|---|---|---|---|---|---|---|",
    ]
    for method, cells in uncorrected.cells.items():
        values = np.array([cell["coverage"] for _, cell in cells])
        label, worst = min(cells, key=lambda item: item[1]["coverage"])
        lines.append(f"| {method} | {len(cells)} | {worst['coverage']:.3f} ± {standard_error(worst['coverage'], worst['sets']):.3f}, {label} | "
                     f"{int((values < TARGET).sum())} | {np.median(values):.3f} | {int((values > 0.99).sum())} | none |")
    narrowing = np.array(narrowing)
    lines.append(f"\nPaired / separate interval width (two classes, Newcombe): median {np.median(narrowing):.2f}, "
                 f"range {narrowing.min():.2f}-{narrowing.max():.2f}.\n")
    lines.extend(table)
    text = "\n".join(lines) + "\n"
    print(text)
    if output is not None:
        output.write_text(text, encoding="utf-8")
        print(f"written: {output}", file=sys.stderr)
    return text


if __name__ == "__main__":
    main()
