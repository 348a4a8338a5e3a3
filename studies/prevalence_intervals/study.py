"""Intervals of the corrected prevalence that hold on long-tail data, and never claim certainty.

The informedness module corrects a judge's measured prevalence on
unlabeled data with Rogan-Gladen, ``(q - FPR) / J``, clipped to [0, 1]. An independent
review found two faults of its interval: a zero-width interval ``[0, 0]`` where the estimate
is clipped at 0 (the percentile bootstrap of clipped replicates, all at 0), and a tenfold
jump between Lee et al.'s interval and the bootstrap as one golden item moves the golden set
across the default's switch (Lee's smoothed J at 4.5 of its standard errors from 0). This
study simulates the golden sets and unlabeled sets where users are and measures, per cell
and method, the coverage of the true prevalence by nominal 95% intervals, the mean width,
the share of zero-width intervals and the refusal rate (no interval).

Cells: golden sets of a fixed number of negatives and positives (30 with 2 positives, 40
with 4, 100 with 5, 100 with 10, 200 with 20); unlabeled sets of 1,000 and 10,000 items;
true prevalence on the unlabeled data 0, 0.01, 0.05, 0.1, 0.3; judges near-perfect (TPR
0.95, FPR 0.02: J 0.93), good (TPR 0.85, FPR 0.10: J 0.75) and weak (TPR 0.5, FPR 0.2:
J 0.3). The judge errs alike on both sets (the correction's assumption).

Methods (``shared/judges/prevalence_arrays.py``):

* ``old_default``: the former default, Lee's interval clipped to [0, 1] where Lee's smoothed
  J is at least 4.5 of its standard errors from 0, else the percentile bootstrap of the
  clipped replicates;
* ``old_lee``, ``old_bootstrap``: the former named methods (clipped);
* ``lee``, ``bootstrap``: the named methods now, with the restricted rule
  (``bounded_interval_arrays``) where the estimate lies outside [0, 1];
* ``switch``: the restricted intervals with the former hard switch at 4.5 s.e.;
* ``new_default``: the default now (``corrected_prevalence`` with ``method=None``): the
  restricted intervals blended, Lee's weight (``lee_weight``) rising linearly from 0 at
  ``LEE_MIN_INFORMEDNESS_SE`` = 4.5 s.e. to 1 at ``LEE_FULL_WEIGHT_SE`` = 6.5 s.e.;
* ``blend A-B``: other bands, Lee's weight rising linearly from 0 at A s.e. to 1 at B s.e.;
* ``delta``: the delta-method interval (``method="delta"``).

Refused: the correction (|J| <= 0.05) or, for Lee, its pseudo-counts flipping J's sign;
coverage is among the sets given an interval. Zero width: high - low <= 1e-12 among those.

    OMP_NUM_THREADS=1 nice -n 19 python studies/prevalence_intervals/study.py [--sets 1000] [--resamples 1000]
"""

import argparse
import datetime
import itertools
import math
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from shared.judges import prevalence_arrays  # noqa: E402

LEVEL = 0.95
TARGET = 0.93
MIN_INFORMEDNESS = prevalence_arrays.DEFAULT_MIN_INFORMEDNESS
JUDGES = {"near-perfect": (0.95, 0.02), "good": (0.85, 0.10), "weak": (0.5, 0.2)}  # TPR, FPR
GOLDEN = ((28, 2), (36, 4), (95, 5), (90, 10), (180, 20))  # (negatives, positives)
UNLABELED = (1000, 10000)
PREVALENCES = (0.0, 0.01, 0.05, 0.1, 0.3)
BANDS = ((3.5, 5.5), (3.0, 6.0))  # other bands than the default's, for comparison


def band_name(band):
    return f"blend {band[0]:g}-{band[1]:g}"


def method_names(bands):
    return (["new_default", "old_default", "old_lee", "old_bootstrap", "lee", "bootstrap", "switch"]
            + [band_name(band) for band in bands] + ["delta"])


def cell_rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def binary(low, high):
    """The positive class's bounds of a (..., 2) interval."""
    return np.asarray(low)[..., 1], np.asarray(high)[..., 1]


def lee_weight(strength, band):
    """Lee's weight in a blend: 0 at ``band[0]`` s.e. and below, 1 at ``band[1]`` and above, linear between."""
    low, high = band
    if high <= low:
        return (strength >= low).astype(float)
    return np.clip((strength - low) / (high - low), 0.0, 1.0)


def intervals_of(confusion, unlabeled, resamples, seed, bands):
    """``{method: (low, high, given)}`` of the positive class's prevalence, per set."""
    point = prevalence_arrays.corrected_prevalence_arrays(confusion, unlabeled, MIN_INFORMEDNESS)
    defined = point["defined"]
    found = {}
    for restricted, prefix in ((False, "old_"), (True, "")):
        low, high, flipped = prevalence_arrays.lee_interval_arrays(confusion, unlabeled, LEVEL, restricted=restricted)
        found[prefix + "lee"] = (low, high, defined & ~flipped)
    arguments = {"confidence_level": LEVEL, "n_resamples": resamples, "min_informedness": MIN_INFORMEDNESS}
    low, high, _ = prevalence_arrays.bootstrap_prevalence_arrays(confusion, [unlabeled], seed=seed, **arguments)
    found["bootstrap"] = (*binary(low, high), defined)
    # The former bootstrap differs only where the estimate is clipped (the restricted rule):
    # redrawn there alone, to save time.
    clipped = np.flatnonzero(point["clipped"])
    old_low, old_high = low.copy(), high.copy()
    if clipped.size:
        redrawn = prevalence_arrays.bootstrap_prevalence_arrays(confusion[clipped], [unlabeled[clipped]], seed=seed + 1,
                                                                restricted=False, **arguments)
        old_low[clipped], old_high[clipped] = redrawn[0], redrawn[1]
    found["old_bootstrap"] = (*binary(old_low, old_high), defined)
    strength = prevalence_arrays.smoothed_informedness_in_se(confusion)
    holds = strength >= prevalence_arrays.LEE_MIN_INFORMEDNESS_SE
    for name, (lee_name, boot_name) in (("old_default", ("old_lee", "old_bootstrap")), ("switch", ("lee", "bootstrap"))):
        lee_low, lee_high, lee_given = found[lee_name]
        boot_low, boot_high, _ = found[boot_name]
        found[name] = (np.where(holds, lee_low, boot_low), np.where(holds, lee_high, boot_high),
                       defined & np.where(holds, lee_given, True))
    lee_low, lee_high, lee_given = found["lee"]
    boot_low, boot_high, _ = found["bootstrap"]
    weights = {band_name(band): lee_weight(strength, band) for band in bands}
    weights["new_default"] = prevalence_arrays.lee_weight(confusion)  # what corrected_prevalence runs
    for name, weight in weights.items():
        weight = np.where(lee_given, weight, 0.0)
        low = weight * np.nan_to_num(lee_low) + (1 - weight) * boot_low
        high = weight * np.nan_to_num(lee_high) + (1 - weight) * boot_high
        found[name] = (low, high, defined)
    covariance = prevalence_arrays.delta_covariance(confusion, [unlabeled], point["estimate"])
    low, high = prevalence_arrays.delta_interval_arrays(point["estimate"], covariance, LEVEL, (0.0, 1.0))
    found["delta"] = (*binary(low, high), defined & np.isfinite(binary(low, high)[0]))
    return found


def summarise(low, high, given, truth):
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    kept = max(int(given.sum()), 1)
    covered = given & (low <= truth + 1e-12) & (truth <= high + 1e-12)
    width = (high - low)[given]
    return {
        "coverage": float(covered.sum() / kept),
        "se": math.sqrt(0.95 * 0.05 / kept),
        "width": float(width.mean()) if width.size else math.nan,
        "zero_width": float(np.mean(width <= 1e-12)) if width.size else math.nan,
        "refused": float(1.0 - given.mean()),
    }


def run_cell(judge, golden, size, prevalence, sets, resamples, bands):
    tpr, fpr = JUDGES[judge]
    negatives, positives = golden
    name = f"{judge}|{negatives}|{positives}|{size}|{prevalence}"
    rng = cell_rng(name)
    tp = rng.binomial(positives, tpr, size=sets)
    fp = rng.binomial(negatives, fpr, size=sets)
    confusion = np.stack([np.stack([negatives - fp, fp], -1), np.stack([positives - tp, tp], -1)], -2).astype(float)
    flagged = rng.binomial(size, fpr + (tpr - fpr) * prevalence, size=sets)
    unlabeled = np.stack([size - flagged, flagged], -1).astype(float)
    found = intervals_of(confusion, unlabeled, resamples, int(rng.integers(2**31)), bands)
    return {method: summarise(low, high, given, prevalence) for method, (low, high, given) in found.items()}


def cells():
    return list(itertools.product(JUDGES, GOLDEN, UNLABELED, PREVALENCES))


def quick_cells():
    return [("weak", (95, 5), 1000, 0.01), ("good", (36, 4), 10000, 0.05), ("near-perfect", (28, 2), 1000, 0.0),
            ("good", (180, 20), 1000, 0.3)]


def run(sets, resamples, cell_list, bands=BANDS):
    return [((judge, golden, size, prevalence), run_cell(judge, golden, size, prevalence, sets, resamples, bands))
            for judge, golden, size, prevalence in cell_list]


def fmt(entry):
    if entry["refused"] >= 1.0:
        return f"- / - / - / {entry['refused']:.2f}"
    return f"{entry['coverage']:.3f} / {entry['width']:.3f} / {entry['zero_width']:.2f} / {entry['refused']:.2f}"


def report(results, methods, command, sets, resamples, seconds):
    lines = [
        "# Intervals of the corrected prevalence on small golden sets (2-20 positives): coverage, zero width, refusal",
        "",
        f"Exact command (2 shared CPU cores; {seconds:.0f} s; {datetime.date.today().isoformat()}, "
        f"commit {commit()} plus the working tree):",
        "",
        "```",
        command,
        "```",
        "",
        f"{sets:,} simulated sets per cell ({len(results)} cells), {resamples:,} bootstrap resamples, nominal 95%. "
        f"A coverage of 0.95 from {sets:,} sets has a Monte Carlo standard error of {math.sqrt(0.95 * 0.05 / sets):.4f}. "
        "See the script's docstring for the cells and the methods. Each cell: coverage / mean width / "
        "zero-width rate / refusal rate.",
        "",
        "## Worst cell per method",
        "",
        "| method | lowest coverage | at (judge, golden negatives+positives, unlabeled, prevalence) | cells < 0.93 | "
        "mean width (all cells) | max zero-width rate | max refusal |",
        "|---|---|---|---|---|---|---|",
    ]
    for method in methods:
        entries = [(key, found[method]) for key, found in results if found[method]["refused"] < 1.0]
        key, worst = min(entries, key=lambda item: item[1]["coverage"])
        below = sum(entry["coverage"] < TARGET for _, entry in entries)
        width = np.mean([entry["width"] for _, entry in entries])
        zero = max(entry["zero_width"] for _, entry in entries)
        refused = max(found[method]["refused"] for _, found in results)
        lines.append(f"| {method} | {worst['coverage']:.3f} ± {worst['se']:.3f} | {describe(key)} | {below} | "
                     f"{width:.3f} | {zero:.2f} | {refused:.2f} |")
    lines += ["", "## Every cell", "", "| judge | golden | unlabeled | prevalence | " + " | ".join(methods) + " |",
              "|---|---|---|---|" + "---|" * len(methods)]
    for key, found in results:
        judge, (negatives, positives), size, prevalence = key
        lines.append(f"| {judge} | {negatives}+{positives} | {size:,} | {prevalence:g} | "
                     + " | ".join(fmt(found[method]) for method in methods) + " |")
    return "\n".join(lines) + "\n"


def describe(key):
    judge, (negatives, positives), size, prevalence = key
    return f"{judge}, {negatives}+{positives}, {size:,}, {prevalence:g}"


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="4 cells, printed, results.md untouched")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    results = run(args.sets, args.resamples, quick_cells() if args.quick else cells())
    seconds = time.perf_counter() - started
    methods = method_names(BANDS)
    command = "OMP_NUM_THREADS=1 nice -n 19 python studies/prevalence_intervals/study.py" + "".join(
        f" {arg}" for arg in (argv if argv is not None else sys.argv[1:]))
    text = report(results, methods, command, args.sets, args.resamples, seconds)
    if args.quick:
        print(text)
    else:
        (HERE / "results.md").write_text(text)
        print(text.split("## Every cell")[0])
    print(f"{len(results)} cells, {seconds:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
