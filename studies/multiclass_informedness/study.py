"""Coverage of multi-class informedness intervals near the ceiling, with a class of a few items, and per group.

An independent review found the module's multi-class intervals short: the delta method (the old
default for K > 2) at 0.91-0.93 with a near-perfect judge, 0.90-0.91 for "macro" with a class of
3 items, and the per-group bootstrap (``judges/judge_groups.py``) at 0.74-0.93. This study runs
the code the module runs (``shared/metrics/informedness.py`` ``informedness_interval``, and
``group_diagnostics`` for groups) on golden sets of fixed class sizes, one class of 3-15 items,
and writes ``results.md`` beside this file.

    OMP_NUM_THREADS=1 nice -n 19 python studies/multiclass_informedness/study.py [--sets 2000] [--resamples 1000]

Each cell simulates ``--sets`` golden sets: each reference class's row is Multinomial(class size,
the judge's row), the judge right with probability ``big`` on the large classes and ``small`` on
the small one, its errors spread evenly over the other classes ("even") or all on the next class
("next"). The population value is the informedness (with the cell's average) of the expected
confusion matrix. Coverage is the share of sets whose 95% interval holds it; "refused" the share
with a NaN interval (none is expected: every class has items); "zero width" the share of
intervals of width 0. The bootstrap (``--resamples`` draws) runs in the review's cells and the
per-group cells only (it costs seconds per cell).
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

from shared.judges.judge_groups import group_diagnostics  # noqa: E402
from shared.metrics.informedness import informedness_average, informedness_interval  # noqa: E402

LEVEL = 0.95
TARGET = 0.93
DEFAULT = "score"
ANALYTIC = ("score", "delta")

# (name, big, small, spread): the judge's probability of being right on the large classes and on the small one.
JUDGES = (
    ("near-perfect", 0.97, 0.90, "even"),
    ("near-perfect, errors to one class", 0.97, 0.90, "next"),
    ("ceiling", 0.99, 0.95, "even"),
    ("small class all right", 0.97, 1.0, "even"),
    ("mid", 0.75, 0.60, "even"),
    ("small class weak", 0.97, 0.67, "even"),
    ("worse than chance", 0.10, 0.10, "next"),
)


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def judge_rows(num_classes, big, small, spread):
    """The judge's confusion rows (the last class is the small one)."""
    rows = np.zeros((num_classes, num_classes))
    right = np.full(num_classes, big)
    right[-1] = small
    for i in range(num_classes):
        if spread == "even":
            rows[i] = (1.0 - right[i]) / (num_classes - 1)
        else:
            rows[i, (i + 1) % num_classes] = 1.0 - right[i]
        rows[i, i] = right[i]
    return rows


def class_sizes(num_classes, size, smallest):
    rest = size - smallest
    sizes = [rest // (num_classes - 1)] * (num_classes - 1)
    sizes[0] += rest - sum(sizes)
    return np.array(sizes + [smallest])


def draw(rng, sizes, rows, sets):
    return np.stack([rng.multinomial(sizes[i], rows[i], size=sets) for i in range(sizes.size)], axis=1).astype(float)


def summarise(low, high, truth):
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    truth = np.broadcast_to(np.asarray(truth, dtype=float), low.shape)
    ok = ~np.isnan(low)
    covered = ok & (low <= truth + 1e-12) & (truth <= high + 1e-12)
    return {
        "coverage": float(covered.sum() / max(int(ok.sum()), 1)),
        "width": float(np.mean((high - low)[ok])) if ok.any() else math.nan,
        "zero_width": float(np.mean((high - low)[ok] <= 1e-12)) if ok.any() else math.nan,
        "refused": float(1.0 - ok.mean()),
    }


def whole_cell(name, sets, num_classes, size, smallest, judge, average, methods, resamples):
    _, big, small, spread = judge
    sizes, rows = class_sizes(num_classes, size, smallest), judge_rows(num_classes, big, small, spread)
    truth = float(informedness_average(sizes[:, None] * rows, average))
    confusion = draw(_rng(name), sizes, rows, sets)
    found = {}
    for method in methods:
        interval = informedness_interval(confusion, confidence_level=LEVEL, method=method, average=average,
                                         n_resamples=resamples, seed=1)
        found[method] = summarise(interval.low, interval.high, truth)
    return truth, found


def group_cell(name, sets, group_sizes, judges, methods, resamples):
    """Per-group intervals of G groups (a K x K matrix each), every group's interval pooled.

    ``group_diagnostics`` gives each group ``informedness_interval`` of its own matrix with the
    module's ``ci_method`` (bookmaker); that is checked on the first sets, then every set's groups
    go through ``informedness_interval`` at once (vectorised)."""
    rng = _rng(name)
    truths, matrices = [], []
    for (sizes, (big, small, spread)) in zip(group_sizes, judges):
        sizes = np.asarray(sizes)
        rows = judge_rows(sizes.size, big, small, spread)
        truths.append(float(informedness_average(sizes[:, None] * rows)))
        matrices.append(draw(rng, sizes, rows, sets))
    stacked = np.stack(matrices, axis=1)  # (sets, G, K, K)
    found = {}
    for method in methods:
        interval = informedness_interval(stacked, confidence_level=LEVEL, method=method, n_resamples=resamples, seed=1)
        if method != "bootstrap":  # the module's path gives the same, group by group
            for index in range(5):
                result = group_diagnostics(stacked[index].astype(np.int64), confidence_level=LEVEL, ci_method=method)
                assert np.allclose(result["informedness_ci"], np.stack([interval.low[index], interval.high[index]], axis=-1), atol=1e-12)
        found[method] = summarise(interval.low, interval.high, np.array(truths)[None, :])
    return truths, found


def _row(label, truth, found, methods):
    cells = []
    for method in methods:
        if method in found:
            f = found[method]
            extra = "" if not f["refused"] and not f["zero_width"] else f" (refused {f['refused']:.3f}, zero {f['zero_width']:.3f})"
            cells.append(f"{f['coverage']:.3f} / {f['width']:.3f}{extra}")
        else:
            cells.append("-")
    return f"| {label} | {truth:.3f} | " + " | ".join(cells) + " |"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args(argv)
    started = time.time()
    methods_all = ANALYTIC + ("bootstrap",)
    lines = []
    worst = {method: (2.0, None) for method in methods_all}

    def note(method, coverage, label):
        if coverage < worst[method][0]:
            worst[method] = (coverage, label)

    # The review's cells first, with the bootstrap.
    review = [
        ("K=3, n=100, class of 10, bookmaker (default), judge 0.955 right (J 0.93)", 3, 100, 10, ("", 0.955, 0.955, "even"), "bookmaker"),
        ("K=3, n=100, class of 5, bookmaker, judge 0.97 / 0.90 (J 0.95)", 3, 100, 5, JUDGES[0], "bookmaker"),
        ("K=3, n=100, class of 15, bookmaker, judge 0.99 / 0.90, errors to one class", 3, 100, 15, ("", 0.99, 0.90, "next"), "bookmaker"),
        ("K=5, n=60, class of 3, macro, judge 0.97 / 0.90", 5, 60, 3, JUDGES[0], "macro"),
        ("K=5, n=60, class of 3, macro, judge 0.97 / 0.67", 5, 60, 3, JUDGES[5], "macro"),
    ]
    lines.append("## The review's cells (with the bootstrap)\n")
    lines.append("| cell | value | " + " | ".join(methods_all) + " |")
    lines.append("|---|---|" + "---|" * len(methods_all))
    for label, k, n, smallest, judge, average in review:
        truth, found = whole_cell(label, args.sets, k, n, smallest, judge, average, methods_all, args.resamples)
        for method in methods_all:
            note(method, found[method]["coverage"], label)
        lines.append(_row(label, truth, found, methods_all))
        print(lines[-1], flush=True)

    lines.append("\n## The grid (analytic methods)\n")
    lines.append("K in {3, 4, 5}, n in {60, 100, 300}, smallest class 3, 5, 10 or 15 items (the others equal), "
                 "each judge, average bookmaker (the module's default) and macro. Coverage / mean width.\n")
    lines.append("| K | n | smallest | judge | average | value | " + " | ".join(ANALYTIC) + " |")
    lines.append("|---|---|---|---|---|---|" + "---|" * len(ANALYTIC))
    for k in (3, 4, 5):
        for n in (60, 100, 300):
            for smallest in (3, 5, 10, 15):
                for judge in JUDGES:
                    for average in ("bookmaker", "macro"):
                        label = f"K={k}, n={n}, class of {smallest}, {judge[0]} ({judge[1]} / {judge[2]}, {judge[3]}), {average}"
                        truth, found = whole_cell(label, args.sets, k, n, smallest, judge, average, ANALYTIC, args.resamples)
                        for method in ANALYTIC:
                            note(method, found[method]["coverage"], label)
                        lines.append(_row(f"{k} | {n} | {smallest} | {judge[0]} ({judge[1]} / {judge[2]}, {judge[3]}) | {average}",
                                          truth, found, ANALYTIC))
        print(f"K={k} done, {time.time() - started:.0f} s", flush=True)

    lines.append("\n## Per-group intervals (`group_diagnostics`, bookmaker), every group's interval pooled\n")
    lines.append("| cell | values | " + " | ".join(methods_all) + " |")
    lines.append("|---|---|" + "---|" * len(methods_all))
    near, mid = (0.97, 0.90, "even"), (0.75, 0.60, "even")
    group_cells = [
        ("3 groups of 40, K=3 (sizes 20/15/5), near-perfect judge", [[20, 15, 5]] * 3, [near] * 3),
        ("3 groups of 30-100, K=3 (smallest 3-10), near-perfect / ceiling judges", [[15, 12, 3], [35, 30, 5], [50, 40, 10]],
         [near, (0.99, 0.95, "even"), near]),
        ("4 groups of 30, K=4 (sizes 10/9/8/3), near-perfect judge", [[10, 9, 8, 3]] * 4, [near] * 4),
        ("4 groups of 60, K=4 (sizes 20/20/15/5), near-perfect judge, errors to one class", [[20, 20, 15, 5]] * 4,
         [(0.97, 0.90, "next")] * 4),
        ("3 groups of 50, K=4 (sizes 15/15/10/10), mid judge", [[15, 15, 10, 10]] * 3, [mid] * 3),
        ("3 groups of 100, K=3 (sizes 50/35/15), ceiling judge", [[50, 35, 15]] * 3, [(0.99, 0.95, "even")] * 3),
        ("4 groups of 30, K=4 (sizes 12/8/7/3), small class weak (0.97 / 0.67)", [[12, 8, 7, 3]] * 4, [(0.97, 0.67, "even")] * 4),
        ("3 groups of 30, K=3 (sizes 15/12/3), mid judge", [[15, 12, 3]] * 3, [mid] * 3),
        ("4 groups of 50, K=3 (sizes 25/22/3), ceiling judge, errors to one class", [[25, 22, 3]] * 4,
         [(0.99, 0.95, "next")] * 4),
    ]
    group_sets = args.sets
    for label, sizes, judges in group_cells:
        truths, found = group_cell(label, group_sets, sizes, judges, methods_all, args.resamples)
        for method in methods_all:
            note(method, found[method]["coverage"], "per group: " + label)
        lines.append(f"| {label} | {', '.join(f'{t:.3f}' for t in truths)} | "
                     + " | ".join(f"{found[m]['coverage']:.3f} / {found[m]['width']:.3f}" for m in methods_all) + " |")
        print(lines[-1], flush=True)

    elapsed = time.time() - started
    header = [
        "# Multi-class informedness intervals: coverage near the ceiling, with small classes, and per group",
        "",
        f"Command: `OMP_NUM_THREADS=1 nice -n 19 python studies/multiclass_informedness/study.py --sets {args.sets} "
        f"--resamples {args.resamples}`",
        f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; {elapsed:.0f} s.",
        f"Sets per cell: {args.sets} (per-group cells: {group_sets} sets of every group); bootstrap: {args.resamples} "
        "resamples. Nominal level 0.95; target >= 0.93 in every cell. Cells read `coverage / mean width`; "
        "refusals and zero-width intervals are shown where any occurred.",
        f"Methods: `score` (the new default for every K: the score interval of informedness linearised in the rows' "
        "error rates, each row's errors one binomial, with Fay & Feuer's gamma bound; `informedness_score_interval`), `delta` (the old multi-class "
        "default: Wald with 0.5 pseudo-items per class), `bootstrap` (stratified percentile, 0.5 pseudo-items for "
        "stuck rows; the old per-group method for K > 2).",
        "Near -1: with K > 2 classes J cannot come near -1 (a judge wrong on every item, in a cycle, scores about "
        "-1/(K - 1)); the judge right on 10% of items, its errors all on the next class, stands for that end.",
        "",
        "Worst cell per method: " + "; ".join(f"**{m}** {worst[m][0]:.3f} ({worst[m][1]})" for m in methods_all),
        f"Worst cell of the default (`{DEFAULT}`): {worst[DEFAULT][0]:.3f}, {worst[DEFAULT][1]}.",
        "",
    ]
    (HERE / "results.md").write_text("\n".join(header + lines) + "\n")
    print("\n".join(header))


if __name__ == "__main__":
    main()
