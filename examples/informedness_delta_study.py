"""Coverage of the delta-method interval of multi-class informedness, against the bootstrap.

The setting of ``examples/coverage_study.py``'s informedness rows: 3 classes, prior
(0.6, 0.3, 0.1) (a rare class of about 5 items at n = 50), the confusion rates
``coverage_study.INFORMEDNESS_CONFUSION``, class sizes drawn at random (a golden set sampled
from traffic), the truth the population's informedness. Sets without an item of some class
are left out (their share is reported). For each set, the intervals of
``shared/intervals.py`` (the code the module calls): the percentile bootstrap
(``--resamples`` resamples), the delta method as the module computes it (``"delta"``: theta
+- z sqrt(sum n Psi^2), the variance taken at the counts plus 0.5 pseudo-items per class),
and the plain delta method (no pseudo-items), which chose that default: plain, it covered
as the bootstrap did (0.920 with a class of about 5 items), with the pseudo-items 0.937.
A Student t quantile (n - K degrees of freedom) instead of z moved the plain method to
0.925 only.

    nice -n 10 python examples/informedness_delta_study.py            # 2,000 sets per n (about 1 min)
    python examples/informedness_delta_study.py --sets 500 --resamples 500   # quick
    python examples/informedness_delta_study.py --averages bookmaker macro weighted   # every average
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "examples"))

from shared.stats import intervals  # noqa: E402
from coverage_study import INFORMEDNESS_CONFUSION, INFORMEDNESS_PRIOR, population_informedness  # noqa: E402

LEVEL = 0.95
SIZES = (50, 200, 1000)
AVERAGES = ("bookmaker", "macro", "weighted")


def study(rng, num_sets, size, average, n_resamples):
    support = rng.multinomial(size, INFORMEDNESS_PRIOR, size=num_sets)
    confusion = rng.multinomial(support, INFORMEDNESS_CONFUSION).astype(np.float64)
    defined = (support > 0).all(axis=-1)
    confusion, support = confusion[defined], support[defined]
    truth = float(intervals.informedness_average(INFORMEDNESS_PRIOR[:, None] * INFORMEDNESS_CONFUSION, average))
    results = {}
    started = time.perf_counter()
    boot = intervals.informedness_interval(confusion, confidence_level=LEVEL, method="bootstrap", average=average,
                                           n_resamples=n_resamples, seed=int(rng.integers(2**31)))
    results["bootstrap"] = (boot.low, boot.high, time.perf_counter() - started)
    started = time.perf_counter()
    delta = intervals.informedness_interval(confusion, confidence_level=LEVEL, method="delta", average=average)
    results["delta"] = (delta.low, delta.high, time.perf_counter() - started)
    plain = intervals.informedness_delta_interval(confusion, confidence_level=LEVEL, average=average, pseudo_items=0)
    results["plain delta"] = (plain.low, plain.high, 0.0)
    rows = {}
    for name, (low, high, seconds) in results.items():
        covered = (low <= truth) & (truth <= high)
        rows[name] = (float(covered.mean()), float(np.mean(high - low)), float(np.mean(truth < low)), float(np.mean(truth > high)))
    return truth, float(defined.mean()), float(np.median(support.min(axis=-1))), rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--averages", nargs="+", default=["bookmaker"], choices=AVERAGES)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    methods = ("bootstrap", "delta", "plain delta")
    print(f"3 classes, prior {tuple(INFORMEDNESS_PRIOR.tolist())}; {args.sets:,} sets per row; {args.resamples:,} bootstrap resamples; "
          f"nominal {LEVEL:.0%}. Cells: coverage / mean width (miss below / above the truth).")
    for average in args.averages:
        print(f"\naverage={average!r}")
        print("| n | sets kept | smallest class (median) | " + " | ".join(methods) + " |")
        print("|---|---|---|" + "---|" * len(methods))
        for size in SIZES:
            truth, kept, smallest, rows = study(rng, args.sets, size, average, args.resamples)
            cells = " | ".join(f"{rows[m][0]:.3f} / {rows[m][1]:.3f} ({rows[m][2]:.3f}/{rows[m][3]:.3f})" for m in methods)
            print(f"| {size} | {kept:.1%} | {smallest:.0f} | {cells} |")
        print(f"(truth {truth:.4f})")
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
