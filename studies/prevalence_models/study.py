"""Several models through one judge: family-wise coverage of the simultaneous corrected prevalences and differences.

One judge labels the outputs of 2, 3 or 5 evaluated models; one golden set gives its rates
for all of them. The informedness module (``unlabeled_predictions`` as a mapping) returns
each model's corrected prevalence with an interval simultaneous across the models, and
every pairwise difference with an interval simultaneous across the pairs and a
Holm-adjusted p-value (``shared/judges/prevalence_models.py``: each interval the one-model
default at Bonferroni's marginal level, its bootstrap drawn jointly over the shared golden
set and each model's sample). It also measures, on the same sets and draws, the level
calibrated on that joint bootstrap (``calibration="min_p"``: the smallest marginal level at
which the replicates hold together; lower than Bonferroni's where the golden set moves the
estimates together), which was the first version and is not the default. This script simulates the golden set
and the models' outputs from a known truth and counts, per cell, how often *all* the
models' intervals hold their true prevalences together (family-wise coverage) and how
often all the differences' intervals hold the true differences, at nominal 95%.

Cells (decided up front, every one run once at its stated size, 400 sets each, 1,000
bootstrap resamples as in ``studies/prevalence_intervals``; the module's default is 10,000):

* models M = 2, 3, 5; golden sets of 30, 100, 300 items with golden prevalence 0.3 (the
  class sizes random, Binomial); judges with J = 0.3 (TPR 0.6, FPR 0.3), 0.6 (TPR 0.75,
  FPR 0.15), 0.95 (TPR 0.975, FPR 0.025); each model's outputs 2,000 items;
* without prior shift (every model's true prevalence 0.3, the golden set's: all
  differences 0, where the adjusted p-values' family-wise error is measured too) and with
  prior shift (the models' prevalences 0.05, 0.5, 0.2, 0.8, 0.35, the first M);
* clustered golden items (M = 2, 3, 5, with prior shift, the same golden sizes and judges): the
  golden items come in conversations of 5 whose judge rates vary (logit-normal, s.d. 0.8
  around the rates' logits); the judge's rates on new data are the population averages.
  These cells run the module itself (``evaluate.load("informedness")``, ``clusters=``),
  whose design effect shrinks the golden rows.

Reported per cell: the family-wise coverage of the prevalences and of the differences
among the sets given an interval (Monte Carlo s.e. about 0.011 at 0.95 from 400 sets), the
refusal rate (|J| <= 0.05 on the golden set, the one rule of ``prevalence.py``), the share
of intervals spanning every value ([0, 1]; each carries a reason), the mean width, the
mean marginal level, and (no shift) the share of sets where a Holm-adjusted p-value fell
below 0.05 although every difference is 0; for ``min_p``, coverage and width.

    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/prevalence_models/study.py [--sets 400] [--resamples 1000] [--quick]
"""

import argparse
import datetime
import itertools
import math
import subprocess
import sys
import time
import warnings
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from shared.judges import prevalence_arrays  # noqa: E402
from shared.judges import prevalence_models  # noqa: E402

LEVEL = 0.95
TARGET = 0.93
MIN_INFORMEDNESS = prevalence_arrays.DEFAULT_MIN_INFORMEDNESS
MODELS = (2, 3, 5)
GOLDEN = (30, 100, 300)
JUDGES = {0.3: (0.6, 0.3), 0.6: (0.75, 0.15), 0.95: (0.975, 0.025)}  # J: (TPR, FPR)
GOLDEN_PREVALENCE = 0.3
SHIFTED = (0.05, 0.5, 0.2, 0.8, 0.35)
UNLABELED = 2000
CLUSTER_SIZE = 5
CLUSTER_SD = 0.8  # s.d. of a conversation's judge rates on the logit scale
# The families' marginal level: the default (Bonferroni's), and the joint bootstrap's min-P level (not adopted).
CALIBRATIONS = ("bonferroni", "min_p")


def cell_rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def truths(models, shift):
    return np.array(SHIFTED[:models] if shift else (GOLDEN_PREVALENCE,) * models)


def simulate_plain(rng, sets, golden, judge, truth):
    tpr, fpr = JUDGES[judge]
    positives = rng.binomial(golden, GOLDEN_PREVALENCE, size=sets)
    negatives = golden - positives
    tp, fp = rng.binomial(positives, tpr), rng.binomial(negatives, fpr)
    confusion = np.stack([np.stack([negatives - fp, fp], -1), np.stack([positives - tp, tp], -1)], -2).astype(float)
    flagged = rng.binomial(UNLABELED, fpr + (tpr - fpr) * truth[None, :], size=(sets, truth.size))
    unlabeled = np.stack([UNLABELED - flagged, flagged], -1).astype(float)
    return confusion, unlabeled


def pair_truths(truth, pairs):
    return np.array([truth[i] - truth[j] for i, j in pairs])


def covered(low, high, truth):
    return ((low <= truth + 1e-12) & (truth <= high + 1e-12)).all(axis=-1)


def summarise(given, cover, spans, width, level, rejected=None):
    kept = max(int(given.sum()), 1)
    entry = {
        "coverage": float((cover & given).sum() / kept) if given.any() else math.nan,
        "refused": float(1.0 - given.mean()),
        "spans": float((spans & given).sum() / kept) if given.any() else math.nan,
        "width": float(width[given].mean()) if given.any() else math.nan,
        "level": float(level[given].mean()) if given.any() else math.nan,
    }
    if rejected is not None:
        entry["fwer"] = float((rejected & given).sum() / kept) if given.any() else math.nan
    return entry


def run_plain(models, golden, judge, shift, sets, resamples):
    """``{calibration: (prevalences, differences)}``: the default (Bonferroni's level) and the min-P level, on the same sets and draws."""
    name = f"{models}|{golden}|{judge}|{shift}"
    rng = cell_rng(name)
    truth = truths(models, shift)
    confusion, unlabeled = simulate_plain(rng, sets, golden, judge, truth)
    seed = int(rng.integers(2**31))
    return {calibration: run_calibration(confusion, unlabeled, truth, models, shift, resamples, seed, calibration)
            for calibration in CALIBRATIONS}


def run_calibration(confusion, unlabeled, truth, models, shift, resamples, seed, calibration):
    pairs = prevalence_models.model_pairs([str(m) for m in range(models)], None)
    found = prevalence_models.simultaneous_intervals_arrays(
        confusion, unlabeled, pairs, confidence_level=LEVEL, method=None, n_resamples=resamples,
        seed=seed, min_informedness=MIN_INFORMEDNESS, calibration=calibration)
    given = prevalence_arrays.corrected_prevalence_arrays(confusion, unlabeled[:, 0])["defined"]
    low, high = found["low"][..., 1], found["high"][..., 1]
    d_low, d_high = found["difference_low"][..., 1], found["difference_high"][..., 1]
    first = np.array([i for i, _ in pairs])
    second = np.array([j for _, j in pairs])
    p = prevalence_models.holm(prevalence_models.homogeneity_p_values(unlabeled[:, first], unlabeled[:, second]))
    rejected = (p < 1.0 - LEVEL).any(axis=-1) if not shift else None
    prevalence = summarise(given, covered(low, high, truth), ((low <= 1e-9) & (high >= 1 - 1e-9)).any(axis=-1),
                           (high - low).mean(axis=-1), found["level"])
    difference = summarise(given, covered(d_low, d_high, pair_truths(truth, pairs)),
                           ((d_low <= -1 + 1e-9) & (d_high >= 1 - 1e-9)).any(axis=-1), (d_high - d_low).mean(axis=-1),
                           found["difference_level"], rejected)
    return prevalence, difference


def population_rates(tpr, fpr, rng):
    """The judge's rates averaged over conversations (its rates on new data)."""
    noise = rng.standard_normal(1_000_000) * CLUSTER_SD
    return tuple(float(np.mean(1.0 / (1.0 + np.exp(-(math.log(r / (1 - r)) + noise))))) for r in (tpr, fpr))


def run_clustered(metric, models, golden, judge, sets, resamples):
    # M = 3 keeps the name (so the draws) of the first run, when only M = 3 was clustered.
    name = f"clustered|{golden}|{judge}" if models == 3 else f"clustered|{models}|{golden}|{judge}"
    rng = cell_rng(name)
    tpr, fpr = JUDGES[judge]
    mean_tpr, mean_fpr = population_rates(tpr, fpr, rng)
    truth = truths(models, True)
    pairs = prevalence_models.model_pairs([str(m) for m in range(models)], None)
    clusters = np.repeat(np.arange(golden // CLUSTER_SIZE), CLUSTER_SIZE)
    logit = lambda r: math.log(r / (1 - r))  # noqa: E731
    rows = {"given": [], "cover": [], "spans": [], "width": [], "d_cover": [], "d_spans": [], "d_width": [],
            "level": [], "d_level": []}
    for _ in range(sets):
        shift = rng.standard_normal(clusters.max() + 1)[clusters] * CLUSTER_SD
        references = (rng.random(golden) < GOLDEN_PREVALENCE).astype(int)
        rate = np.where(references == 1, 1 / (1 + np.exp(-(logit(tpr) + shift))), 1 / (1 + np.exp(-(logit(fpr) + shift))))
        predictions = (rng.random(golden) < rate).astype(int)
        flagged = rng.binomial(UNLABELED, mean_fpr + (mean_tpr - mean_fpr) * truth)
        mapping = {str(m): np.r_[np.zeros(UNLABELED - flagged[m], int), np.ones(flagged[m], int)] for m in range(models)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = metric.compute(references=references, predictions=predictions, clusters=clusters, labels=[0, 1],
                                    unlabeled_predictions=mapping, confidence_level=LEVEL, n_resamples=resamples,
                                    seed=int(rng.integers(2**31)))
        entries = result["model_prevalences"]
        given = all("corrected_prevalence_reason" not in e for e in entries) and all(
            np.isfinite(e["corrected_prevalence_ci"]).all() for e in entries)
        rows["given"].append(given)
        intervals = np.array([e["corrected_prevalence_ci"] for e in entries], dtype=float)
        d_intervals = np.array([e["corrected_prevalence_difference_ci"] for e in result["prevalence_differences"]], dtype=float)
        rows["cover"].append(given and bool(covered(intervals[:, 0], intervals[:, 1], truth)))
        rows["d_cover"].append(given and bool(covered(d_intervals[:, 0], d_intervals[:, 1], pair_truths(truth, pairs))))
        rows["spans"].append(bool(((intervals[:, 0] <= 1e-9) & (intervals[:, 1] >= 1 - 1e-9)).any()))
        rows["d_spans"].append(bool(((d_intervals[:, 0] <= -1 + 1e-9) & (d_intervals[:, 1] >= 1 - 1e-9)).any()))
        rows["width"].append(float(np.mean(intervals[:, 1] - intervals[:, 0])))
        rows["d_width"].append(float(np.mean(d_intervals[:, 1] - d_intervals[:, 0])))
        rows["level"].append(result.get("prevalence_marginal_level", math.nan))
        rows["d_level"].append(result.get("prevalence_difference_marginal_level", math.nan))
    arrays = {key: np.array(value) for key, value in rows.items()}
    given = arrays["given"].astype(bool)
    prevalence = summarise(given, arrays["cover"], arrays["spans"], arrays["width"], arrays["level"])
    difference = summarise(given, arrays["d_cover"], arrays["d_spans"], arrays["d_width"], arrays["d_level"])
    return prevalence, difference


def plain_cells():
    return list(itertools.product(MODELS, GOLDEN, JUDGES, (False, True)))


def clustered_cells():
    return list(itertools.product(MODELS, GOLDEN, JUDGES))


def fmt(entry):
    if entry["refused"] >= 1.0:
        return "- (refused) | - | - | - | 1.00"
    return (f"{entry['coverage']:.3f} | {entry['spans']:.2f} | {entry['width']:.3f} | {entry['level']:.4f} | "
            f"{entry['refused']:.2f}")


def fmt_short(entry):
    if entry["refused"] >= 1.0:
        return "- | -"
    return f"{entry['coverage']:.3f} | {entry['width']:.3f}"


def worst(entries):
    given = [entry for entry in entries if entry["refused"] < 1.0]
    lowest = min(entry["coverage"] for entry in given)
    return lowest, sum(entry["coverage"] < TARGET for entry in given), max(entry["spans"] for entry in given)


def report(plain, clustered, command, sets, resamples, seconds):
    lines = [
        "# Several models through one judge: family-wise coverage of the simultaneous prevalences and differences",
        "",
        f"Exact command (2 shared CPU cores; {seconds:.0f} s; {datetime.date.today().isoformat()}, "
        f"commit {commit()} plus the working tree):",
        "",
        "```",
        command,
        "```",
        "",
        f"{sets:,} simulated sets per cell ({len(plain) + len(clustered)} cells, each run once at this size), "
        f"{resamples:,} bootstrap resamples, nominal 95%, {UNLABELED:,} items per model. A coverage of 0.95 from "
        f"{sets:,} sets has a Monte Carlo standard error of {math.sqrt(0.95 * 0.05 / sets):.4f}. See the script's "
        "docstring for the cells. Coverage is family-wise (every model's interval, or every difference's, holds its "
        "truth at once), among the sets given intervals; refused: |J| <= 0.05 on the golden set. `bonferroni`: the "
        "module's default (each interval at 1 - 0.05 / M, or / P pairs); `min_p`: the level calibrated on the joint "
        "bootstrap (not adopted), on the same sets and draws. The clustered cells run the module (the default).",
        "",
        "## Summary",
        "",
        "| family | marginal level | cells | lowest coverage | cells < 0.93 | highest share spanning every value | mean width (unclustered cells) |",
        "|---|---|---|---|---|---|---|",
    ]
    for index, family in enumerate(("prevalences", "differences")):
        for calibration in CALIBRATIONS:
            entries = [found[calibration][index] for _, found in plain]
            if calibration == "bonferroni":
                entries += [found[index] for _, found in clustered]
            lowest, below, spans = worst(entries)
            width = np.mean([found[calibration][index]["width"] for _, found in plain if found[calibration][index]["refused"] < 1.0])
            lines.append(f"| {family} | {calibration} | {len(entries)} | {lowest:.3f} | {below} | {spans:.2f} | {width:.3f} |")
    fwers = [found["bonferroni"][1]["fwer"] for _, found in plain if "fwer" in found["bonferroni"][1]]
    lines += ["", f"Holm-adjusted p-values, no prior shift (every difference 0): the share of sets with any p < 0.05 "
              f"was at most {max(fwers):.3f} over the {len(fwers)} cells.", ""]
    header = "coverage | spanning | width | marginal level | refused"
    lines += ["## Every cell", "",
              "The default (`bonferroni`), per family: family-wise coverage | share of sets with an interval spanning "
              "every value | mean width | mean marginal level | refusal rate; then `min_p`: coverage | mean width.", "",
              f"| golden items | clusters | J | models | prior shift | prevalences: {header} | min_p prevalences: coverage | width "
              f"| differences: {header} | min_p differences: coverage | width | p FWER (no shift) |",
              "|" + "---|" * 20]
    for (models, golden, judge, shift), found in plain:
        (prevalence, difference), (p_min, d_min) = found["bonferroni"], found["min_p"]
        fwer = f"{difference['fwer']:.3f}" if "fwer" in difference else "-"
        lines.append(f"| {golden} | no | {judge:g} | {models} | {'yes' if shift else 'no'} | {fmt(prevalence)} | "
                     f"{fmt_short(p_min)} | {fmt(difference)} | {fmt_short(d_min)} | {fwer} |")
    for (models, golden, judge), (prevalence, difference) in clustered:
        lines.append(f"| {golden} | {CLUSTER_SIZE} per conversation | {judge:g} | {models} | yes | {fmt(prevalence)} | - | - | "
                     f"{fmt(difference)} | - | - | - |")
    return "\n".join(lines) + "\n"


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=400)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="a few cells, printed, results.md untouched")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    plain_list = plain_cells()
    clustered_list = clustered_cells()
    if args.quick:
        plain_list = [(5, 30, 0.3, True), (3, 100, 0.6, False), (5, 300, 0.95, True), (2, 30, 0.95, False)]
        clustered_list = [(3, 30, 0.6), (5, 30, 0.3)]
    plain = []
    for cell in plain_list:
        plain.append((cell, run_plain(*cell, args.sets, args.resamples)))
        print(cell, {key: [round(entry["coverage"], 3) for entry in found] for key, found in plain[-1][1].items()},
              file=sys.stderr, flush=True)
    import evaluate  # the clustered cells run the module itself

    metric = evaluate.load(str(ROOT / "informedness"))
    clustered = []
    for cell in clustered_list:
        clustered.append((cell, run_clustered(metric, *cell, args.sets, args.resamples)))
        print(cell, clustered[-1][1], file=sys.stderr, flush=True)
    seconds = time.perf_counter() - started
    command = "OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/prevalence_models/study.py" + "".join(
        f" {arg}" for arg in (argv if argv is not None else sys.argv[1:]))
    text = report(plain, clustered, command, args.sets, args.resamples, seconds)
    if args.quick:
        print(text)
    else:
        (HERE / "results.md").write_text(text)
        print(text.split("## Every cell")[0])
    print(f"{len(plain) + len(clustered)} cells, {seconds:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
