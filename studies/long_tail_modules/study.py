"""Coverage of the modules' own intervals where long-tail users are: the review's cells, and clusters.

Where ``studies/long_tail_intervals`` compares methods on reference implementations, this
study runs the code the modules run (``shared/``): their default interval (``ci_method=None``)
and the methods still selectable, on the settings an independent review found short, plus
clustered golden sets with a rare class and few clusters, and the paired comparison's type-I
error with clusters. It writes ``results.md`` beside this file.

    OMP_NUM_THREADS=1 nice -n 19 python studies/long_tail_modules/study.py [--sets 2000]

Each cell simulates ``--sets`` golden sets; coverage is the share of sets whose 95% interval
holds the population value; "undefined" the share of sets with no value (a class without
items: the value is then another quantity, so it is left out), never counted as covered.
"""

import argparse
import datetime
import math
import sys
import time
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from shared.counting.clusters import Clusters, row_cluster_sums  # noqa: E402
from shared.counting.counts import JointCounts  # noqa: E402
from shared.stats.averaging import Averaging  # noqa: E402
from shared.stats.design_effect import design_effect  # noqa: E402
from shared.metrics.multilabel import binary_columns_interval  # noqa: E402
from shared.metrics.balanced_accuracy import recall_influence, recall_mean_interval  # noqa: E402

LEVEL = 0.95
TARGET = 0.93
METHODS = ("score", "agresti_coull", "wilson", "bootstrap")
DEFAULT = "score"


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def summarise(low, high, truth, defined):
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    truth = np.broadcast_to(np.asarray(truth, dtype=float), low.shape)
    ok = defined & ~np.isnan(low)
    covered = ok & (low <= truth + 1e-12) & (truth <= high + 1e-12)
    kept = max(int(ok.sum()), 1)
    return {
        "coverage": covered.sum() / kept,
        "width": float(np.mean((high - low)[ok])) if ok.any() else math.nan,
        "zero_width": float(np.mean((high - low)[ok] <= 1e-12)) if ok.any() else math.nan,
        "undefined": 1.0 - defined.sum() / low.size,
        "refused": float(np.mean(np.isnan(low[defined]))) if defined.any() else math.nan,
    }


# ------------------------------------------------------------------------------ independent cells (batched)


def recall_cell(name, sets, sizes, recalls, resamples):
    """A mean of K recalls, class sizes fixed: every method, batched over the sets."""
    rng = _rng(name)
    correct = rng.binomial(sizes, recalls, size=(sets, sizes.size)).astype(float)
    support = np.broadcast_to(sizes.astype(float), correct.shape)
    truth = float(np.mean(recalls))
    rows = {}
    for method in METHODS:
        found = recall_mean_interval(correct, support, confidence_level=LEVEL, method=method, n_resamples=resamples, seed=1)
        rows[method] = summarise(found.low, found.high, truth, np.ones(sets, dtype=bool))
    return rows


def multilabel_cell(name, sets, size, positives, tpr, tnr, resamples):
    """Macro balanced accuracy over labels with fixed positives among ``size`` samples (independent labels)."""
    rng = _rng(name)
    positives = np.asarray(positives, dtype=float)
    negatives = size - positives
    tp = rng.binomial(positives.astype(int), tpr, size=(sets, positives.size)).astype(float)
    tn = rng.binomial(negatives.astype(int), tnr, size=(sets, positives.size)).astype(float)
    truth = float(np.mean((np.broadcast_to(tpr, positives.shape) + np.broadcast_to(tnr, positives.shape)) / 2))
    rows = {}
    for method in METHODS:
        found = binary_columns_interval(tp, np.broadcast_to(positives, tp.shape), tn, np.broadcast_to(negatives, tn.shape),
                                        confidence_level=LEVEL, method=method, n_resamples=resamples, seed=1)
        rows[method] = summarise(found.low, found.high, truth, np.ones(sets, dtype=bool))
    return rows


# ------------------------------------------------------------------------------ clustered cells (the modules' path)


class _Counted:
    """The counts interface ``design_effect`` reads: clusters fixed at construction, their sums."""

    def __init__(self, cluster_ids, references):
        self.clusters = Clusters(JointCounts({"clusters": cluster_ids}, np.ones(cluster_ids.size, dtype=np.int64)))
        self.references = references

    def cluster_sums(self, influence):
        return row_cluster_sums(influence, self.clusters.rows)


def logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


def clustered_cell(name, sets, num_clusters, items, prior, recalls, spread, resamples):
    """Balanced accuracy of K classes on ``num_clusters`` clusters of about ``items`` items each, a
    cluster's difficulty shared by its items (logit-normal, sd ``spread``); the population value is
    each class's recall averaged over the clusters' difficulties."""
    rng = _rng(name)
    prior, recalls = np.asarray(prior), np.asarray(recalls)
    num_classes = prior.size
    draws = np.random.default_rng(0).normal(size=400_000)
    truth = float(np.mean([logistic(np.log(r / (1 - r)) + spread * draws).mean() for r in recalls]))
    lows = {m: np.full(sets, np.nan) for m in METHODS}
    highs = {m: np.full(sets, np.nan) for m in METHODS}
    defined = np.zeros(sets, dtype=bool)
    effects = []
    for index in range(sets):
        sizes = 1 + rng.poisson(items - 1, num_clusters)
        cluster = np.repeat(np.arange(num_clusters), sizes)
        reference = rng.choice(num_classes, cluster.size, p=prior)
        difficulty = spread * rng.normal(size=num_clusters)[cluster]
        correct = rng.random(cluster.size) < logistic(np.log(recalls / (1 - recalls))[reference] + difficulty)
        support = np.bincount(reference, minlength=num_classes).astype(float)
        hits = np.bincount(reference, weights=correct, minlength=num_classes)
        if (support == 0).any():
            continue
        defined[index] = True
        influence = recall_influence(hits, support, Averaging(num_classes))
        per_sample = np.where(correct, influence.right[reference], influence.wrong[reference])
        effect = design_effect(_Counted(cluster, reference), per_sample, LEVEL, warn=False)
        effects.append(effect.measured)
        if effect.reason is not None:
            continue
        for method in METHODS:
            found = recall_mean_interval(hits, support, confidence_level=LEVEL, method=method, n_resamples=resamples,
                                         seed=index, effective_support=effect.scale(support))
            lows[method][index], highs[method][index] = found.low, found.high
    rows = {m: summarise(lows[m], highs[m], truth, defined) for m in METHODS}
    rows["_design_effect_median"] = float(np.median(effects)) if effects else math.nan
    return rows


def paired_type_one(name, sets, num_clusters, items, prior, recall, spread):
    """The paired comparison's rejection rate at 0.05 when two systems are equally good (the
    module's ``baseline_predictions`` path, clusters given): each errs independently given the
    cluster's shared difficulty."""
    import evaluate  # the module as users load it

    metric = evaluate.load(str(ROOT / "balanced_accuracy"))
    rng = _rng(name)
    prior = np.asarray(prior)
    rejected, kept = 0, 0
    for _ in range(sets):
        sizes = 1 + rng.poisson(items - 1, num_clusters)
        cluster = np.repeat(np.arange(num_clusters), sizes)
        reference = rng.choice(prior.size, cluster.size, p=prior)
        if np.bincount(reference, minlength=prior.size).min() == 0:
            continue
        difficulty = spread * rng.normal(size=num_clusters)[cluster]
        chance = logistic(math.log(recall / (1 - recall)) + difficulty)
        wrong_label = (reference + 1 + rng.integers(0, prior.size - 1, cluster.size)) % prior.size
        system = np.where(rng.random(cluster.size) < chance, reference, wrong_label)
        baseline = np.where(rng.random(cluster.size) < chance, reference, wrong_label)
        result = metric.compute(references=reference, predictions=system, baseline_predictions=baseline, clusters=cluster)
        p_value = result["balanced_accuracy_difference_p_value"]
        if p_value == p_value:
            kept += 1
            rejected += p_value < 0.05
    return {"type_one": rejected / max(kept, 1), "kept": kept}


# ------------------------------------------------------------------------------ the grid and the report


def independent_cells(sets, resamples):
    rows = []
    rng = _rng("sizes")
    for k in (20, 50):
        sizes = rng.integers(5, 16, k)
        recalls = rng.uniform(0.3, 0.99, k)
        rows.append((f"balanced accuracy, K={k} classes of 5-15 items, recalls 0.3-0.99",
                     recall_cell(f"ba{k}", sets, sizes, recalls, resamples)))
    for k in (10, 30, 100):
        sizes = rng.integers(3, 21, k)
        recalls = rng.uniform(0.3, 0.99, k)
        rows.append((f"balanced accuracy, K={k} classes of 3-20 items, recalls 0.3-0.99",
                     recall_cell(f"bal{k}", sets, sizes, recalls, resamples)))
    sizes = rng.integers(5, 21, 100)
    rows.append(("top-1, K=100 classes of 5-20 items, recalls 0.5-0.95",
                 recall_cell("top1", sets, sizes, rng.uniform(0.5, 0.95, 100), resamples)))
    rows.append(("top-5, K=100 classes of 5-20 items, value 0.999",
                 recall_cell("top5", sets, sizes, np.full(100, 0.999), resamples)))
    rows.append(("top-10, K=100 classes of 5-20 items, recalls 0.99-1 (30% exactly 1)",
                 recall_cell("top10", sets, sizes, np.where(rng.random(100) < 0.3, 1.0, rng.uniform(0.99, 1.0, 100)), resamples)))
    rows.append(("binary informedness near 1: TPR 0.99 (15 positives), TNR 0.995 (85)",
                 recall_cell("jnear1", sets, np.array([15, 85]), np.array([0.99, 0.995]), resamples)))
    rows.append(("binary informedness near -1: TPR 0.02 (15 positives), TNR 0.01 (85)",
                 recall_cell("jnearm1", sets, np.array([15, 85]), np.array([0.02, 0.01]), resamples)))
    # One step inside each boundary cell: a method that is narrow at the boundary only because the
    # true value sits there is seen here (NEIGHBOURS).
    rows.append(("binary informedness, one step inside: TPR 0.90 (15 positives), TNR 0.995 (85)",
                 recall_cell("jinside1", sets, np.array([15, 85]), np.array([0.90, 0.995]), resamples)))
    rows.append(("binary informedness, one step inside: TPR 0.10 (15 positives), TNR 0.01 (85)",
                 recall_cell("jinsidem1", sets, np.array([15, 85]), np.array([0.10, 0.01]), resamples)))
    for labels, size in ((20, 200), (50, 100), (10, 50)):
        positives = np.where(np.arange(labels) < labels // 2, rng.integers(1, 6, labels), rng.integers(10, 40, labels))
        rows.append((f"multilabel macro, L={labels} labels, n={size}, half the labels with 1-5 positives",
                     multilabel_cell(f"ml{labels}", sets, size, np.minimum(positives, size - 1), rng.uniform(0.5, 0.98, labels),
                                     rng.uniform(0.9, 0.999, labels), resamples)))
    rows.append(("multilabel macro, L=4, n=30, every label perfect",
                 multilabel_cell("mlperfect", sets, 30, [5, 8, 12, 3], 1.0, 1.0, resamples)))
    rows.append(("multilabel macro, L=4, n=30, one step inside: TPR 0.90, TNR 0.97",
                 multilabel_cell("mlinside", sets, 30, [5, 8, 12, 3], 0.90, 0.97, resamples)))
    # The step inside that perfect data cannot tell from the boundary: the deficit on the smallest label.
    rows.append((SMALLEST_LABEL_INSIDE,
                 multilabel_cell("mlinside3", sets, 30, [5, 8, 12, 3], np.array([1.0, 1.0, 1.0, 0.5]), 1.0, resamples)))
    return rows


def clustered_cells(sets, resamples):
    rows = []
    for num_clusters, items in ((5, 40), (10, 20), (20, 10), (50, 4)):
        for spread in (0.0, 1.0):
            rows.append((f"K=3, prior .65/.30/.05, G={num_clusters} clusters of ~{items}, cluster sd {spread:g}",
                         clustered_cell(f"cl{num_clusters}-{spread}", sets, num_clusters, items, [0.65, 0.30, 0.05],
                                        [0.9, 0.8, 0.7], spread, resamples)))
    rows.append(("K=3, prior .65/.30/.05, 200 singleton clusters (no clustering)",
                 clustered_cell("single", sets, 200, 1, [0.65, 0.30, 0.05], [0.9, 0.8, 0.7], 0.0, resamples)))
    rows.append(("top-k tokens: K=20 token classes, 15 sequences of ~40, sequence sd 1",
                 clustered_cell("tokens", sets, 15, 40, np.r_[np.full(5, 0.12), np.full(15, 0.4 / 15)],
                                np.linspace(0.6, 0.95, 20), 1.0, resamples)))
    return rows


def paired_cells(sets):
    rows = []
    for num_clusters, items, spread in ((15, 14, 1.0), (50, 4, 1.0), (200, 1, 0.0)):
        rows.append((f"two equal systems, K=3, prior .65/.30/.05, G={num_clusters} clusters of ~{items}, sd {spread:g}",
                     paired_type_one(f"pair{num_clusters}", sets, num_clusters, items, [0.65, 0.30, 0.05], 0.8, spread)))
    return rows


SMALLEST_LABEL_INSIDE = "multilabel macro, L=4, n=30, one step inside: TPR 0.50 on the label with 3 positives, every other rate 1"
NEIGHBOURS = {
    "binary informedness near 1: TPR 0.99 (15 positives), TNR 0.995 (85)":
        "binary informedness, one step inside: TPR 0.90 (15 positives), TNR 0.995 (85)",
    "binary informedness near -1: TPR 0.02 (15 positives), TNR 0.01 (85)":
        "binary informedness, one step inside: TPR 0.10 (15 positives), TNR 0.01 (85)",
    "multilabel macro, L=4, n=30, every label perfect": ("multilabel macro, L=4, n=30, one step inside: TPR 0.90, TNR 0.97",
                                                         SMALLEST_LABEL_INSIDE),
}


def narrowest_covering(result):
    """The method with the narrowest mean width among those covering >= TARGET in the cell."""
    covering = [m for m in METHODS if result[m]["coverage"] >= TARGET]
    return min(covering, key=lambda m: result[m]["width"]) if covering else None


def boundary_lines(rows):
    """For each boundary cell whose width ratio exceeds 1.3: the method that sets the ratio, and its
    coverage one step inside (a method narrow at the boundary only because the truth sits there)."""
    found = dict(rows)
    lines = []
    for cell, insides in NEIGHBOURS.items():
        insides = (insides,) if isinstance(insides, str) else insides
        if cell not in found or any(inside not in found for inside in insides) or width_ratio(found[cell]) <= 1.3:
            continue
        method = narrowest_covering(found[cell])
        steps = "; ".join(f"{inside.split(': ', 1)[1]}, `{method}` covers {found[inside][method]['coverage']:.3f} and the default "
                          f"{found[inside][DEFAULT]['coverage']:.3f} ({width_ratio(found[inside]):.2f}x the narrowest covering there)"
                          for inside in insides)
        lines.append(f"- {cell}: the default is {width_ratio(found[cell]):.2f}x as wide as `{method}` "
                     f"({found[cell][method]['coverage']:.3f} / {found[cell][method]['width']:.3f}); one step inside ({steps}).")
        if cell.endswith("every label perfect"):
            lines.append(f"  When every rate is observed at 1 the exact lower end is {all_perfect_lower_bound([5, 8, 12, 3], 30):.3f}: "
                         "the lowest macro value whose most favourable rates still give perfect data with probability "
                         f"{(1 - LEVEL) / 2:g} (Buehler 1957); the default's lower end is {1 - found[cell][DEFAULT]['width']:.3f}.")
    return lines


def all_perfect_lower_bound(positives, size):
    """The exact lower confidence end of macro balanced accuracy (each label's TPR and TNR weighing
    1 / (2 L)) when every rate is observed at 1: the smallest sum_c w_c p_c with max prod_c p_c^n_c =
    (1 - LEVEL) / 2. The maximising rates are p_c = min(1, mu n_c / w_c) (a Lagrange multiplier mu),
    found by bisection on log mu."""
    sizes = np.r_[np.asarray(positives, dtype=float), size - np.asarray(positives, dtype=float)]
    weights = np.full(sizes.size, 1.0 / sizes.size)
    target = math.log((1 - LEVEL) / 2)
    low, high = math.log(1e-9), math.log(10.0)
    for _ in range(200):
        middle = (low + high) / 2
        rates = np.minimum(1.0, math.exp(middle) * sizes / weights)
        low, high = (middle, high) if np.sum(sizes * np.log(rates)) < target else (low, middle)
    return float(np.sum(weights * np.minimum(1.0, math.exp(high) * sizes / weights)))


def width_ratio(result):
    """The default's mean width over the narrowest mean width among the methods that cover in the cell."""
    covering = [result[m]["width"] for m in METHODS if result[m]["coverage"] >= TARGET]
    return result[DEFAULT]["width"] / min(covering) if covering else math.nan


def _table(rows, design_effect_column=False):
    extra = " median design effect |" if design_effect_column else ""
    lines = ["| cell | " + " | ".join(f"{m}{' (default)' if m == DEFAULT else ''}" for m in METHODS)
             + " | default refused | default width / narrowest covering |" + extra,
             "|---|" + "---|" * (len(METHODS) + 2) + ("---|" if extra else "")]
    for name, result in rows:
        cells = []
        for m in METHODS:
            r = result[m]
            flag = "**" if r["coverage"] < TARGET else ""
            cells.append(f"{flag}{r['coverage']:.3f}{flag} / {r['width']:.3f}" + (f" (0-width {r['zero_width']:.2f})" if r["zero_width"] > 0 else ""))
        tail = f" {result['_design_effect_median']:.2f} |" if design_effect_column else ""
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {result[DEFAULT]['refused']:.3f} | {width_ratio(result):.2f} |" + tail)
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=2000, help="simulated sets per cell (default 2,000)")
    parser.add_argument("--paired-sets", type=int, default=2000, help="sets per paired type-I cell (default 2,000)")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1,000)")
    parser.add_argument("--output", default=str(HERE / "results.md"))
    args = parser.parse_args(argv)
    start = time.time()
    independent = independent_cells(args.sets, args.resamples)
    clustered = clustered_cells(args.sets, args.resamples)
    paired = paired_cells(args.paired_sets)
    minutes = (time.time() - start) / 60
    command = "OMP_NUM_THREADS=1 nice -n 19 python studies/long_tail_modules/study.py" + (
        f" --sets {args.sets}" if args.sets != 2000 else "") + (f" --paired-sets {args.paired_sets}" if args.paired_sets != 2000 else "")
    worst = min(((r[DEFAULT]["coverage"], name) for name, r in independent + clustered), key=lambda pair: pair[0])
    widest = max(((width_ratio(r), name) for name, r in independent + clustered), key=lambda pair: pair[0])
    lines = [
        "# Long-tail coverage of the modules' own intervals",
        "",
        f"Written by `{command}` on {datetime.date.today().isoformat()} ({minutes:.1f} min), {args.sets:,} simulated sets per",
        f"cell ({args.paired_sets:,} per paired cell), nominal 95%, the bootstrap with {args.resamples:,} resamples. Each cell:",
        "coverage / mean width over the sets given an interval; **bold** below 0.93; \"0-width\" the share of",
        "zero-width intervals; \"refused\" the share of sets whose default interval is NaN with a reason. The code",
        "run is `shared/` as the modules vendor it; the Monte-Carlo standard error of a coverage near 0.95 is 0.005.",
        "",
        f"Worst cell of the default (`ci_method=None`, \"{DEFAULT}\"): **{worst[0]:.3f}** ({worst[1]}).",
        f"Largest width of the default over the narrowest method covering >= {TARGET} in the same cell: {widest[0]:.2f} ({widest[1]}).",
        "",
        "Cells where the default is more than 1.3x as wide as the narrowest method that covers there; each sits at a",
        "boundary (a value of 1, or -1), where any interval reaching the boundary covers:",
        "",
        *boundary_lines(independent),
        "",
        "## Independent items",
        "",
        *_table(independent),
        "",
        "## Clustered items (cluster-robust: Bell & McCaffrey's correction with each cluster's share of the variance as its leverage, t on the effective number of clusters; every item its own cluster: the independent interval)",
        "",
        *_table(clustered, design_effect_column=True),
        "",
        "## Paired comparison with clusters: type-I error at 0.05 (two equally good systems)",
        "",
        "| cell | rejection rate | sets |",
        "|---|---|---|",
        *(f"| {name} | {r['type_one']:.3f} | {r['kept']:,} |" for name, r in paired),
        "",
    ]
    Path(args.output).write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
