"""Coverage study of the corrected prevalence (shared/prevalence.py).

A judge labels a golden set (its confusion matrix) and an unlabeled set (its label
counts); ``corrected_prevalence`` turns the judge's measured shares into the true
prevalence with an interval. This script simulates both sets from a known truth and
counts how often nominal 95% intervals hold it, for the parametric bootstrap (default)
and the delta method. Everything is vectorised over the simulated sets.

* binary: a judge with TPR 0.85 and FPR 0.10 (J = 0.75); the truth is the prevalence p
  of class 1;
* 3 classes: prior ((1 - p) 0.7, (1 - p) 0.3, p), the judge's row-normalised confusion
  ``THREE_CLASS_RATES``; coverage is reported for the class of prevalence p and as the
  lowest over the three classes.

Grid: p in {1%, 5%, 20%, 50%}, golden sets of 200, 1,000 and 5,000 items, unlabeled sets
of 500, 10,000 and 100,000 items. The golden set is drawn either from the same prior as
the unlabeled data (``natural``: class sizes random; a set with a class missing has no
estimate and is left out, its share reported) or with equal class sizes (``balanced``, a
stratified golden set).

    python examples/prevalence_study.py                  # full grid, 2,000 sets, 1,000 resamples
    python examples/prevalence_study.py --quick          # a few settings, 300 sets, 300 resamples
"""

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from shared import prevalence  # noqa: E402

LEVEL = 0.95
BINARY_RATES = np.array([[0.90, 0.10], [0.15, 0.85]])  # rows: truth 0, 1; TPR 0.85, FPR 0.10
THREE_CLASS_RATES = np.array([[0.85, 0.10, 0.05], [0.15, 0.75, 0.10], [0.10, 0.20, 0.70]])
PREVALENCES = (0.01, 0.05, 0.2, 0.5)
GOLDEN_SIZES = (200, 1000, 5000)
UNLABELED_SIZES = (500, 10_000, 100_000)


def prior_of(kind, p):
    if kind == "binary":
        return np.array([1.0 - p, p])
    return np.array([(1.0 - p) * 0.7, (1.0 - p) * 0.3, p])


def full_settings():
    return [
        (kind, design, p, golden, unlabeled)
        for kind, design in itertools.product(("binary", "3-class"), ("natural", "balanced"))
        for p, golden, unlabeled in itertools.product(PREVALENCES, GOLDEN_SIZES, UNLABELED_SIZES)
    ]


def quick_settings():
    return [
        ("binary", "natural", 0.05, 1000, 10_000),
        ("binary", "balanced", 0.01, 200, 100_000),
        ("binary", "natural", 0.5, 200, 500),
        ("3-class", "natural", 0.2, 1000, 10_000),
        ("3-class", "balanced", 0.01, 5000, 100_000),
    ]


def simulate(rng, kind, design, p, golden, unlabeled, sets):
    prior = prior_of(kind, p)
    rates = BINARY_RATES if kind == "binary" else THREE_CLASS_RATES
    num_classes = prior.size
    if design == "natural":
        support = rng.multinomial(golden, prior, size=sets)
    else:
        base = np.full(num_classes, golden // num_classes)
        base[: golden - base.sum()] += 1
        support = np.tile(base, (sets, 1))
    confusion = rng.multinomial(support, rates)
    counts = rng.multinomial(unlabeled, prior @ rates, size=sets)
    return prior, confusion, counts


def coverage_row(rng, setting, sets, resamples):
    kind, design, p, golden, unlabeled = setting
    prior, confusion, counts = simulate(rng, kind, design, p, golden, unlabeled, sets)
    target = 1 if kind == "binary" else 2
    point = prevalence.corrected_prevalence_arrays(confusion, counts)
    defined = point["defined"]
    low, high, undefined_share = prevalence.bootstrap_prevalence_arrays(
        confusion, [counts], confidence_level=LEVEL, n_resamples=resamples, seed=int(rng.integers(2**31)),
        min_informedness=prevalence.DEFAULT_MIN_INFORMEDNESS,
    )
    covered = (low <= prior) & (prior <= high)
    covariance = prevalence.delta_covariance(confusion, [counts], np.where(defined[:, None], point["estimate"], 0.0))
    delta_low, delta_high = prevalence.delta_interval_arrays(point["estimate"], covariance, LEVEL, (0.0, 1.0))
    delta_covered = (delta_low <= prior) & (prior <= delta_high)
    use = defined
    return {
        "kind": kind, "design": design, "p": p, "golden": golden, "unlabeled": unlabeled,
        "defined": float(defined.mean()),
        "coverage": float(covered[use, target].mean()),
        "coverage_min_class": float(covered[use].mean(axis=0).min()),
        "width": float((high - low)[use, target].mean()),
        "delta_coverage": float(delta_covered[use, target].mean()),
        "delta_coverage_min_class": float(delta_covered[use].mean(axis=0).min()),
        "delta_width": float((delta_high - delta_low)[use, target].mean()),
        "clipped": float(point["clipped"][use].mean()),
        "undefined_resamples": float(undefined_share[use].mean()),
        "bias": float((point["estimate"][use, target] - prior[target]).mean()),
    }


def run(settings, sets, resamples, seed=0, verbose=False):
    rng = np.random.default_rng(seed)
    rows = []
    for setting in settings:
        started = time.perf_counter()
        rows.append(coverage_row(rng, setting, sets, resamples))
        if verbose:
            print(f"  {setting} {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return rows


def markdown(rows):
    lines = [
        "| judge | golden | p | golden n | unlabeled n | defined | boot cov. (class p) | boot cov. (min class) | boot width | delta cov. (class p) | delta cov. (min class) | delta width | clipped | bias |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['kind']} | {r['design']} | {r['p']:g} | {r['golden']:,} | {r['unlabeled']:,} | {r['defined']:.3f} | "
            f"{r['coverage']:.3f} | {r['coverage_min_class']:.3f} | {r['width']:.4f} | {r['delta_coverage']:.3f} | "
            f"{r['delta_coverage_min_class']:.3f} | {r['delta_width']:.4f} | {r['clipped']:.2f} | {r['bias']:+.4f} |"
        )
    return "\n".join(lines)


def summary(rows):
    def band(key):
        values = np.array([r[key] for r in rows])
        inside = ((values >= 0.93) & (values <= 0.97)).sum()
        return f"{inside} of {len(values)} in [0.93, 0.97], min {values.min():.3f}, max {values.max():.3f}"

    return "\n".join(
        f"- {name}: {band(key)}"
        for name, key in (
            ("bootstrap, class p", "coverage"), ("bootstrap, lowest class", "coverage_min_class"),
            ("delta, class p", "delta_coverage"), ("delta, lowest class", "delta_coverage_min_class"),
        )
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 settings, 300 sets, 300 resamples")
    parser.add_argument("--sets", type=int, default=None, help="simulated (golden, unlabeled) pairs per setting")
    parser.add_argument("--resamples", type=int, default=None, help="bootstrap resamples per interval")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    settings = quick_settings() if args.quick else full_settings()
    sets = args.sets or (300 if args.quick else 2000)
    resamples = args.resamples or (300 if args.quick else 1000)
    started = time.perf_counter()
    rows = run(settings, sets, resamples, args.seed, verbose=True)
    print(f"{len(settings)} settings, {sets} sets each, {resamples} bootstrap resamples, nominal {LEVEL:.0%}, "
          f"seed {args.seed}, {time.perf_counter() - started:.0f} s\n")
    print(markdown(rows))
    print()
    print(summary(rows))


if __name__ == "__main__":
    main()
