"""Where the clustered design effect takes its leverage and degrees of freedom from.

The shipped design effect (``shared/stats/design_effect.py``) takes each cluster's leverage,
and the effective number of clusters behind its t quantile (Kish's, of the leverages), from
the cluster's share of the squared influence, which depends on residuals, and never lets the
variance ratio fall below 1. This study measures alternatives on the two things they trade:

- the coverage of the default 95% interval of balanced accuracy when cluster sizes vary and
  larger conversations are harder (``studies/cluster_coverage``'s setting F, lognormal sizes);
- the type-I error at 0.05 of the paired comparison (``baseline_predictions``) of two equally
  good systems whose errors share a cluster's difficulty (the long-tail study's paired cells).

Variants (each replaces ``design_effect`` in the vendored module for the run; nothing shipped):

- ``shipped``: residual shares for leverage and degrees of freedom, ratio floored at 1;
- ``design``: both from the design: each cluster's items per class times the class's mean
  squared influence (no cluster's own residuals), ratio floored at 1;
- ``design df``: residual leverage, degrees of freedom from the design shares;
- ``no floor, G - 1``: residual leverage, the ratio as measured (no floor), t on G - 1.

The paired comparison's p-value is measured three ways (``PAIRED_TESTS``): the shipped cluster
swap test (``shared/stats/paired_tests.py``: the two systems swapped within clusters, every sign
pattern of the clusters' contributions), and the normal score test divided by the shipped
design effect (what shipped before it) or by the no-floor, G - 1 one; for balanced accuracy
and informedness, 2 and 3 classes, 5 to 50 clusters.

Usage (from the repository root)::

    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/cluster_leverage/study.py [--sets 400] [--paired-sets 2000]
"""

import argparse
import dataclasses
import importlib.util
import sys
import time
import warnings
from datetime import date
from pathlib import Path
from statistics import NormalDist

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def load_cluster_coverage():
    """``studies/cluster_coverage/study.py`` (setting F: its models, truth and simulation)."""
    spec = importlib.util.spec_from_file_location("cluster_coverage_study", ROOT / "studies" / "cluster_coverage" / "study.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cluster_study = load_cluster_coverage()

VARIANTS = ("shipped", "design", "design df", "no floor, G - 1")


def helper_of(metric):
    """The vendored ``shared_core`` module a loaded metric runs on."""
    script = sys.modules[type(metric).__module__]
    return sys.modules[script.__name__.rsplit(".", 1)[0] + ".shared_core"]


def design_shares(core, counts, influence):
    """Each cluster's items per reference class times the class's mean squared influence."""
    rows = counts.clusters.rows
    if hasattr(counts, "system"):  # a paired comparison: the difference's influence per row
        classes = counts.system.encoded.classes
        rows, system = core.row_influence(rows, classes, "predictions", influence[0])
        _, baseline = core.row_influence(rows, classes, "baseline_predictions", influence[1])
        values = system - baseline
    else:
        rows, values = core.row_influence(rows, counts.encoded.classes, "predictions", influence)
    squared = rows.n.astype(np.float64)
    _, stratum = np.unique(rows.keys["references"], return_inverse=True)
    stratum = stratum.reshape(-1)
    per_class = np.bincount(stratum, squared * values**2) / np.maximum(np.bincount(stratum, squared), 1e-300)
    return np.bincount(core.cluster_positions(rows), squared * per_class[stratum])


def install(core, variant):
    shipped = core.__dict__.setdefault("shipped_design_effect", core.design_effect)
    if variant == "shipped":
        core.design_effect = shipped
        return

    def design_effect(counts, influence, confidence_level, warn=True):
        clusters = counts.clusters
        if clusters.reason is not None or not clusters.counted:
            return shipped(counts, influence, confidence_level, warn)
        influence = influence() if callable(influence) else influence
        sums = counts.cluster_sums(influence)
        num_clusters = sums.num_clusters
        if num_clusters < 2 or sums.singletons or sums.sums is None:
            return shipped(counts, influence, confidence_level, warn)
        residual = sums.shares / sums.shares.sum()
        design = design_shares(core, counts, influence)
        design = design / design.sum()
        leverage = design if variant == "design" else residual
        clustered = float(np.sum(sums.sums**2 / np.maximum(1.0 - leverage, 0.05)))
        measured = clustered / sums.independent
        if variant == "no floor, G - 1":
            freedom, ratio = num_clusters - 1.0, measured
        else:
            shares = residual if variant == "shipped" else design
            freedom, ratio = max(1.0, min(float(num_clusters), 1.0 / float(np.sum(shares**2))) - 1.0), max(measured, 1.0)
        probability = 0.5 + confidence_level / 2.0
        widening = (core.t_quantile(probability, freedom) / NormalDist().inv_cdf(probability)) ** 2
        return core.DesignEffect(ratio * widening, num_clusters, None, measured, clusters.from_leading_axis)

    core.design_effect = design_effect


def coverage_cells(modules, sets):
    rows = []
    picked = [setting for setting in cluster_study.settings()
              if setting.case == "F" and setting.metric == "balanced_accuracy" and "lognormal" in setting.label]
    core = helper_of(modules.loaded["balanced_accuracy"])
    for setting in picked:
        setting = dataclasses.replace(setting, methods=("score",))
        truth = cluster_study.population_value(setting, None, 2025)[0]
        row = [setting.label]
        for variant in VARIANTS:
            install(core, variant)
            found, _ = cluster_study.run_setting(setting, modules, sets, 200, 2025)
            values = found[(None, "score")]["clustered"]
            kept = np.isfinite(values[:, 1])
            covered = np.mean((values[kept, 1] <= truth) & (truth <= values[kept, 2]))
            row.append(f"{covered:.3f} / {np.mean(values[kept, 2] - values[kept, 1]):.3f}")
        install(core, "shipped")
        rows.append(row)
    return rows


# The paired comparison's p-value: the shipped cluster swap test, and the design-effect-widened normal
# test it replaced (``PairedCounts.swap_sums`` giving None falls back to it), with the shipped design
# effect and with no floor and t on G - 1.
PAIRED_TESTS = ("swap test (shipped)", "normal, design effect", "normal, no floor, G - 1")

# (metric, classes, class shares, clusters, median items per cluster, sd of a cluster's difficulty)
PAIRED_CELLS = (
    ("balanced_accuracy", 3, (0.65, 0.30, 0.05), 5, 40, 1.0),
    ("balanced_accuracy", 3, (0.65, 0.30, 0.05), 10, 20, 1.0),
    ("balanced_accuracy", 3, (0.65, 0.30, 0.05), 15, 14, 1.0),
    ("balanced_accuracy", 3, (0.65, 0.30, 0.05), 30, 6, 0.0),
    ("balanced_accuracy", 3, (0.65, 0.30, 0.05), 50, 4, 1.0),
    ("informedness", 2, (0.9, 0.1), 20, 10, 1.0),
    ("informedness", 3, (0.65, 0.30, 0.05), 15, 14, 1.0),
    ("informedness", 3, (0.65, 0.30, 0.05), 50, 4, 1.0),
)


def install_paired(core, test):
    """The shipped comparison, or its normal test with the shipped or the no-floor design effect."""
    swap_sums = core.__dict__.setdefault("shipped_swap_sums", core.PairedCounts.swap_sums)
    core.PairedCounts.swap_sums = swap_sums if test == PAIRED_TESTS[0] else (lambda self, influence: None)
    install(core, "no floor, G - 1" if test == PAIRED_TESTS[2] else "shipped")


def paired_cells(modules, sets):
    rows = []
    for name, classes, shares, num_clusters, items, spread in PAIRED_CELLS:
        metric = modules.loaded[name]
        core = helper_of(metric)
        label = (f"{name}, two equal systems, K={classes}, prior {'/'.join(f'{x:.2f}'.lstrip('0') for x in shares)}, "
                 f"G={num_clusters} clusters of ~{items}, sd {spread:g}")
        row = [label]
        for test in PAIRED_TESTS:
            install_paired(core, test)
            rng = np.random.default_rng(num_clusters + 1000 * classes)
            rejected = kept = 0
            for _ in range(sets):
                cluster = np.repeat(np.arange(num_clusters), 1 + rng.poisson(items - 1, num_clusters))
                reference = rng.choice(classes, cluster.size, p=shares)
                if np.bincount(reference, minlength=classes).min() == 0:
                    continue
                chance = 1 / (1 + np.exp(-(np.log(4) + spread * rng.normal(size=num_clusters)[cluster])))
                wrong = (reference + 1 + rng.integers(0, classes - 1, cluster.size)) % classes
                system = np.where(rng.random(cluster.size) < chance, reference, wrong)
                baseline = np.where(rng.random(cluster.size) < chance, reference, wrong)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    p_value = metric.compute(references=reference, predictions=system, baseline_predictions=baseline,
                                             clusters=cluster)[f"{name}_difference_p_value"]
                if p_value == p_value:
                    kept += 1
                    rejected += p_value < 0.05
            row.append(f"{rejected / kept:.3f}")
        install_paired(core, PAIRED_TESTS[0])
        rows.append(row)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", type=int, default=400, help="sets per coverage cell (default 400)")
    parser.add_argument("--paired-sets", type=int, default=2000, help="sets per paired cell (default 2000)")
    args = parser.parse_args()
    started = time.perf_counter()
    modules = cluster_study.Modules()
    coverage = coverage_cells(modules, args.sets)
    paired = paired_cells(modules, args.paired_sets)
    command = "OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/cluster_leverage/study.py" + (
        f" --sets {args.sets}" if args.sets != 400 else "") + (f" --paired-sets {args.paired_sets}" if args.paired_sets != 2000 else "")
    header = "| cell | " + " | ".join(VARIANTS) + " |"
    rule = "|---|" + "---|" * len(VARIANTS)
    lines = ["# Leverage and degrees of freedom of the clustered design effect: residuals or the design", "",
             f"Written by `{command}` on {date.today().isoformat()} ({(time.perf_counter() - started) / 60:.1f} min). "
             f"The variants are described in the script's docstring; `shipped` is `shared/` as the modules vendor it.", "",
             f"## Coverage of the default 95% interval (balanced accuracy, binary conversations; {args.sets:,} sets a cell)", "",
             "Coverage / mean width. Below 0.93 fails the project's rule.", "", header, rule,
             *(f"| {' | '.join(row)} |" for row in coverage), "",
             f"## Paired comparison: type-I error at 0.05 ({args.paired_sets:,} sets a cell; target 0.03-0.06)", "",
             "Two systems equally good by construction (each item right with one chance shared by both, the cluster's "
             "difficulty), compared with `baseline_predictions` and `clusters`; the share of sets whose p-value is below "
             f"0.05 (Monte Carlo standard error about {(0.05 * 0.95 / args.paired_sets) ** 0.5:.3f}). The swap test "
             "swaps the two systems within clusters; the normal tests divide the score statistic by the design effect.", "",
             "| cell | " + " | ".join(PAIRED_TESTS) + " |", "|---|" + "---|" * len(PAIRED_TESTS),
             *(f"| {' | '.join(row)} |" for row in paired), ""]
    (HERE / "results.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
