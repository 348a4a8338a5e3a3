"""Coverage of the delta-method interval of multi-class informedness, against the bootstrap.

The setting of ``studies/golden_set_coverage``'s informedness rows: 3 classes, prior
(0.6, 0.3, 0.1) (a rare class of about 5 items at n = 50), the confusion rates
``INFORMEDNESS_CONFUSION`` of that study, class sizes drawn at random (a golden set sampled
from traffic), the truth the population's informedness. Sets without an item of some class
are left out (their share is reported). For each set, the intervals of
``shared/metrics/informedness.py`` (the code the module calls): the percentile bootstrap
(``--resamples`` resamples), the delta method as the module computes it
(``ci_method="delta"``: theta +- z sqrt(sum n Psi^2), the variance taken at the counts plus
0.5 pseudo-items per class), and the plain delta method (no pseudo-items), which shows what
the pseudo-items add.

Usage (from the repository root)::

    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/informedness_delta_interval/study.py   # 10,000 sets per row, every average -> results.md
    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/informedness_delta_interval/study.py --sets 500 --resamples 500 --output /tmp/out.md
"""

import argparse
import datetime
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
sys.path.insert(0, str(REPO_ROOT))

from shared.metrics import informedness as informedness_metric  # noqa: E402


def load_golden_set_coverage():
    """``studies/golden_set_coverage/study.py``, whose informedness setting this study shares."""
    spec = importlib.util.spec_from_file_location("golden_set_coverage_study", HERE.parent / "golden_set_coverage" / "study.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


golden_set_coverage = load_golden_set_coverage()
INFORMEDNESS_CONFUSION = golden_set_coverage.INFORMEDNESS_CONFUSION
INFORMEDNESS_PRIOR = golden_set_coverage.INFORMEDNESS_PRIOR

LEVEL = 0.95
SIZES = (50, 200, 1000)
AVERAGES = ("bookmaker", "macro", "weighted")


def study(rng, num_sets, size, average, n_resamples):
    support = rng.multinomial(size, INFORMEDNESS_PRIOR, size=num_sets)
    confusion = rng.multinomial(support, INFORMEDNESS_CONFUSION).astype(np.float64)
    defined = (support > 0).all(axis=-1)
    confusion, support = confusion[defined], support[defined]
    truth = float(informedness_metric.informedness_average(INFORMEDNESS_PRIOR[:, None] * INFORMEDNESS_CONFUSION, average))
    results = {}
    started = time.perf_counter()
    boot = informedness_metric.informedness_interval(confusion, confidence_level=LEVEL, method="bootstrap", average=average,
                                           n_resamples=n_resamples, seed=int(rng.integers(2**31)))
    results["bootstrap"] = (boot.low, boot.high, time.perf_counter() - started)
    started = time.perf_counter()
    delta = informedness_metric.informedness_interval(confusion, confidence_level=LEVEL, method="delta", average=average)
    results["delta"] = (delta.low, delta.high, time.perf_counter() - started)
    plain = informedness_metric.informedness_delta_interval(confusion, confidence_level=LEVEL, average=average, pseudo_items=0)
    results["plain delta"] = (plain.low, plain.high, 0.0)
    rows = {}
    for name, (low, high, seconds) in results.items():
        covered = (low <= truth) & (truth <= high)
        rows[name] = (float(covered.mean()), float(np.mean(high - low)), float(np.mean(truth < low)), float(np.mean(truth > high)))
    return truth, float(defined.mean()), float(np.median(support.min(axis=-1))), rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=10_000, help="simulated golden sets per row")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples per set")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--averages", nargs="+", default=list(AVERAGES), choices=AVERAGES)
    parser.add_argument("--output", type=Path, default=HERE / "results.md", help="markdown results file (default: results.md beside this script)")
    args = parser.parse_args(argv)
    command = " ".join(["OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/informedness_delta_interval/study.py",
                        *(sys.argv[1:] if argv is None else argv)])
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    methods = ("bootstrap", "delta", "plain delta")
    lines = []
    for average in args.averages:
        table = []
        for size in SIZES:
            truth, kept, smallest, rows = study(rng, args.sets, size, average, args.resamples)
            cells = " | ".join(f"{rows[m][0]:.3f} / {rows[m][1]:.3f} ({rows[m][2]:.3f}/{rows[m][3]:.3f})" for m in methods)
            table.append(f"| {size} | {kept:.1%} | {smallest:.0f} | {cells} |")
        lines += [f"## average=\"{average}\" (truth {truth:.4f})\n",
                  "| n | sets kept | smallest class (median) | " + " | ".join(methods) + " |",
                  "|---|---|---|" + "---|" * len(methods), *table, ""]
        print(f"  {average}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    wall = time.perf_counter() - started
    header = ["# Multi-class informedness: the delta-method interval against the bootstrap\n",
              f"Written by `{command}` on {datetime.date.today().isoformat()} ({wall / 60:.1f} min): 3 classes, prior "
              f"{tuple(INFORMEDNESS_PRIOR.tolist())}, class sizes drawn at random; {args.sets:,} sets per row; "
              f"{args.resamples:,} bootstrap resamples; seed {args.seed}; nominal {LEVEL:.0%}. Cells: coverage / mean width "
              "(share of sets missing below / above the truth). The setting and the methods are described in the script's docstring.\n"]
    text = "\n".join(header + lines)
    print(text)
    args.output.write_text(text, encoding="utf-8")
    print(f"written: {args.output}", file=sys.stderr)
    return text


if __name__ == "__main__":
    main()
