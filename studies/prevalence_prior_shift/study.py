"""The corrected prevalence's methods under prior shift: coverage with weak judges and golden sets of 100-1,000.

A judge labels a golden set (its confusion matrix) and an unlabeled set (its label
counts); the informedness module turns the judge's measured shares into the true
prevalence with an interval. This script simulates both sets from a known truth and
counts how often nominal 95% intervals hold it, for each method the module offers:

* ``default``: the module's binary default: Rogan-Gladen with Lee et al.'s (2025)
  interval where the golden set pins J down, the smoothed bootstrap where it does not, and
  a blend of the two between (``prevalence_arrays.lee_weight``); ``studies/prevalence_intervals``
  measures it on golden sets of 30-200 items with 2-20 positives;
* ``lee``: Rogan-Gladen with Lee et al.'s interval always (``method="lee"``);
* ``bootstrap``: Rogan-Gladen / adjusted classify and count with the smoothed bootstrap
  (``ci_method="bootstrap"``; the multi-class default);
* ``ppi``: PPI++ (``prevalence_method="ppi"``), one-vs-rest, with no interval for a class
  with fewer than 30 golden items in it or outside it (per class);

and, for comparison, two rules that are not used: ``multinomial``, a bootstrap of
multinomial resamples of the counts (which cannot move a rate estimated at 0 or 1), and
``lee_if_J_excludes_0``, Lee's interval given only when J's 95% Agresti-Coull/MOVER interval excludes
0 (a refusal rule).

Grid (binary): judges with J = 0.2 (TPR 0.5, FPR 0.3), 0.5 (TPR 0.7, FPR 0.2) and 0.8
(TPR 0.85, FPR 0.05); golden prevalence -> unlabeled prevalence 0.05 -> 0.5 and 0.03 -> 0.3
(a golden set with few positives, new data with many), the reverse 0.5 -> 0.05 and
0.3 -> 0.03, and i.i.d. 0.05 -> 0.05 and 0.3 -> 0.3; golden sets of 100, 300 and 1,000
items drawn from the golden prior (class sizes random); 5,000 unlabeled items. 3 classes:
the judge ``THREE_CLASS_RATES``, priors (0.6, 0.37, 0.03) -> (0.2, 0.3, 0.5), the reverse,
and i.i.d. at (0.6, 0.37, 0.03); the same golden sizes.

Reported per setting and method: coverage among the sets that got an interval (with its
Monte Carlo standard error), mean width, and the refusal rate (no interval: a class
missing from the golden set, |J| or sigma <= 0.05, PPI's sampling test, Lee's pseudo-counts
flipping J). Coverage of 3-class settings is the lowest over the classes.

Usage (from the repository root)::

    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/prevalence_prior_shift/study.py           # full grid -> results.md (about 10 min)
    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/prevalence_prior_shift/study.py --quick   # 4 settings, 300 sets, 300 resamples
"""

import argparse
import datetime
import itertools
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
sys.path.insert(0, str(REPO_ROOT))

from shared.metrics import informedness as informedness_metric  # noqa: E402
from shared.judges import prevalence_arrays  # noqa: E402
from shared.judges import prevalence_ppi  # noqa: E402

LEVEL = 0.95
MIN_INFORMEDNESS = prevalence_arrays.DEFAULT_MIN_INFORMEDNESS
JUDGES = {0.2: (0.5, 0.3), 0.5: (0.7, 0.2), 0.8: (0.85, 0.05)}  # J: (TPR, FPR)
THREE_CLASS_RATES = np.array([[0.85, 0.10, 0.05], [0.15, 0.75, 0.10], [0.10, 0.20, 0.70]])
BINARY_PRIORS = [(0.05, 0.5), (0.03, 0.3), (0.5, 0.05), (0.3, 0.03), (0.05, 0.05), (0.3, 0.3)]
THREE_CLASS_PRIORS = [((0.6, 0.37, 0.03), (0.2, 0.3, 0.5)), ((0.2, 0.3, 0.5), (0.6, 0.37, 0.03)),
                      ((0.6, 0.37, 0.03), (0.6, 0.37, 0.03))]
GOLDEN_SIZES = (100, 300, 1000)
UNLABELED_SIZE = 5000
METHODS = ("default", "lee", "bootstrap", "ppi", "multinomial", "lee_if_J_excludes_0")
MIN_SETS = 100  # a method's coverage in a setting is reported from at least this many intervals


def design(golden_prior, unlabeled_prior):
    """"i.i.d.", "shift up" (the golden set has a rare class, <= 5%, common in the new data)
    or "shift down" (the reverse: a class the golden set has plenty of is rare in the new data)."""
    golden_prior, unlabeled_prior = np.asarray(golden_prior), np.asarray(unlabeled_prior)
    if np.allclose(golden_prior, unlabeled_prior):
        return "i.i.d."
    return "shift up" if golden_prior.min() < unlabeled_prior.min() else "shift down"


def full_settings():
    binary = [("binary", j, golden_prior, unlabeled_prior, n)
              for (golden_prior, unlabeled_prior), j, n in itertools.product(BINARY_PRIORS, JUDGES, GOLDEN_SIZES)]
    three = [("3-class", None, golden_prior, unlabeled_prior, n)
             for (golden_prior, unlabeled_prior), n in itertools.product(THREE_CLASS_PRIORS, GOLDEN_SIZES)]
    return binary + three


def quick_settings():
    return [("binary", 0.5, 0.05, 0.5, 300), ("binary", 0.2, 0.3, 0.3, 300), ("binary", 0.8, 0.5, 0.05, 100),
            ("3-class", None, (0.6, 0.37, 0.03), (0.2, 0.3, 0.5), 300)]


def priors_and_rates(kind, j, golden_prior, unlabeled_prior):
    if kind == "binary":
        tpr, fpr = JUDGES[j]
        return (np.array([1 - golden_prior, golden_prior]), np.array([1 - unlabeled_prior, unlabeled_prior]),
                np.array([[1 - fpr, fpr], [1 - tpr, tpr]]))
    return np.asarray(golden_prior), np.asarray(unlabeled_prior), THREE_CLASS_RATES


def multinomial_bootstrap(rng, confusion, unlabeled, resamples):
    """Not used: each golden row redrawn as Multinomial(row size, row shares), the
    unlabeled counts as Multinomial(N, shares); undefined replicates at the floor / ceiling."""
    rates, support = prevalence_arrays.row_rates(confusion)
    total = unlabeled.sum(axis=-1)
    shares = unlabeled / total[..., None]
    replicates, undefined = [], []
    for _ in range(resamples):
        gold = rng.multinomial(support.astype(np.int64), rates)
        counts = rng.multinomial(total.astype(np.int64), shares)
        point = prevalence_arrays.corrected_prevalence_arrays(gold, counts, MIN_INFORMEDNESS)
        replicates.append(np.where(point["defined"][..., None], point["estimate"], 0.0))
        undefined.append(~point["defined"])
    replicates, undefined = np.array(replicates), np.array(undefined)[..., None]
    alpha = 1 - LEVEL
    return (np.quantile(np.where(undefined, 0.0, replicates), alpha / 2, axis=0),
            np.quantile(np.where(undefined, 1.0, replicates), 1 - alpha / 2, axis=0))


def intervals_of(rng, kind, confusion, unlabeled, resamples, methods):
    """``{method: (low, high, given)}``: per set and class, and which sets got an interval."""
    point = prevalence_arrays.corrected_prevalence_arrays(confusion, unlabeled, MIN_INFORMEDNESS)
    defined = point["defined"]
    found = {}
    if "bootstrap" in methods:
        low, high, _ = prevalence_arrays.bootstrap_prevalence_arrays(
            confusion, [unlabeled], confidence_level=LEVEL, n_resamples=resamples, seed=int(rng.integers(2**31)),
            min_informedness=MIN_INFORMEDNESS)
        found["bootstrap"] = (low, high, defined)
    if kind == "binary" and ({"default", "lee", "lee_if_J_excludes_0"} & set(methods)):
        low, high, flipped = prevalence_arrays.lee_interval_arrays(confusion, unlabeled, LEVEL)
        low, high = np.stack([1 - high, low], -1), np.stack([1 - low, high], -1)
        found["lee"] = (low, high, defined & ~flipped)
        if "default" in methods:
            # Lee's weight in the default's blend (0: the bootstrap alone; flipped: no Lee interval).
            weight = np.where(flipped, 0.0, prevalence_arrays.lee_weight(confusion))[:, None]
            boot_low, boot_high, _ = found["bootstrap"]
            found["default"] = (weight * np.nan_to_num(low) + (1 - weight) * boot_low,
                                weight * np.nan_to_num(high) + (1 - weight) * boot_high, defined)
        informed = informedness_metric.informedness_interval(confusion, confidence_level=LEVEL, method="agresti_coull")
        excludes_zero = (np.asarray(informed.low) > 0) | (np.asarray(informed.high) < 0)
        found["lee_if_J_excludes_0"] = (low, high, defined & ~flipped & excludes_zero)
    if "ppi" in methods:
        ppi = prevalence_ppi.ppi_prevalence_arrays(confusion, unlabeled, LEVEL)
        given = np.isfinite(ppi["estimate"]).all(axis=-1) & (ppi["sampling_p_value"] >= prevalence_ppi.SAMPLE_TEST_LEVEL)
        # Per class: no interval with fewer than MIN_GOLDEN_ITEMS_PER_CLASS golden items in it or outside it.
        support = confusion.sum(axis=-1)
        enough = np.minimum(support, support.sum(axis=-1, keepdims=True) - support) >= prevalence_ppi.MIN_GOLDEN_ITEMS_PER_CLASS
        found["ppi"] = (np.clip(ppi["low"], 0, 1), np.clip(ppi["high"], 0, 1), given[:, None] & enough)
    if "multinomial" in methods:
        low, high = multinomial_bootstrap(rng, confusion, unlabeled, resamples)
        found["multinomial"] = (low, high, defined)
    return found


def coverage_row(rng, setting, sets, resamples, methods=METHODS):
    kind, j, golden_prior, unlabeled_prior, golden = setting
    golden_prior, unlabeled_prior, rates = priors_and_rates(kind, j, golden_prior, unlabeled_prior)
    support = rng.multinomial(golden, golden_prior, size=sets)
    confusion = rng.multinomial(support, rates).astype(np.float64)
    unlabeled = rng.multinomial(UNLABELED_SIZE, unlabeled_prior @ rates, size=sets).astype(np.float64)
    # Binary: the positive class only; 3 classes: every class (the lowest coverage is reported).
    classes = [1] if kind == "binary" else list(range(3))
    row = {"kind": kind, "j": j, "golden_prior": golden_prior.tolist(), "unlabeled_prior": unlabeled_prior.tolist(),
           "golden": golden, "design": design(golden_prior, unlabeled_prior), "sets": sets}
    for method, (low, high, given) in intervals_of(rng, kind, confusion, unlabeled, resamples, methods).items():
        # Which sets got an interval: per set, or per set and class (PPI refuses a class alone).
        given = np.broadcast_to(given[:, None] if given.ndim == 1 else given, low.shape)[:, classes]
        covered = ((low <= unlabeled_prior) & (unlabeled_prior <= high))[:, classes]
        width = (high - low)[:, classes]
        used = given.sum(axis=0)
        # Coverage from fewer than MIN_SETS intervals says nothing: such a cell reads as refused.
        per_class = np.array([covered[given[:, c], c].mean() if used[c] >= MIN_SETS else np.nan for c in range(len(classes))])
        worst = int(np.nanargmin(per_class)) if not np.isnan(per_class).all() else 0
        coverage = float(per_class[worst])
        row[method] = {
            "coverage": coverage,
            "per_class": [float(c) for c in per_class],
            "se": math.sqrt(coverage * (1 - coverage) / used[worst]) if not math.isnan(coverage) else math.nan,
            "width": float(width[given].mean()) if not math.isnan(coverage) else math.nan,
            "refused": float(1 - used.min() / sets),
        }
    return row


def run(settings, sets, resamples, three_class_sets=None, seed=0, verbose=False, methods=METHODS):
    rng = np.random.default_rng(seed)
    rows = []
    for setting in settings:
        started = time.perf_counter()
        count = three_class_sets if (three_class_sets and setting[0] == "3-class") else sets
        rows.append(coverage_row(rng, setting, count, resamples, methods))
        if verbose:
            print(f"  {setting} {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return rows


def _prior(values):
    return f"{values[1]:g}" if len(values) == 2 else "(" + ", ".join(f"{v:g}" for v in values) + ")"


def _cell(found):
    if found is None:
        return "–"
    if math.isnan(found["coverage"]):
        return f"– / – / {found['refused']:.2f}"
    return f"{found['coverage']:.3f} ± {found['se']:.3f} / {found['width']:.3f} / {found['refused']:.2f}"


def full_table(rows, methods=METHODS):
    header = "| judge | J | golden → new | design | golden n | " + " | ".join(methods) + " |"
    lines = [header, "|" + "---|" * (5 + len(methods))]
    for r in rows:
        lines.append(f"| {r['kind']} | {r['j'] if r['j'] is not None else '–'} | {_prior(r['golden_prior'])} → "
                     f"{_prior(r['unlabeled_prior'])} | {r['design']} | {r['golden']:,} | "
                     + " | ".join(_cell(r.get(m)) for m in methods) + " |")
    return "\n".join(lines)


def headline(rows, methods=METHODS):
    """Per method and group of settings: lowest coverage (its setting), widths, refusal."""
    lines = ["| method | judge | design | settings | lowest coverage (± MC s.e.) | at | median width | max refusal |",
             "|---|---|---|---|---|---|---|---|"]
    for method in methods:
        for kind, group in (("binary", "i.i.d."), ("binary", "shift up"), ("binary", "shift down"),
                            ("3-class", "i.i.d."), ("3-class", "shift up"), ("3-class", "shift down")):
            chosen = [r for r in rows if r["kind"] == kind and r["design"] == group and method in r
                      and not math.isnan(r[method]["coverage"])]
            if not chosen:
                continue
            worst = min(chosen, key=lambda r: r[method]["coverage"])
            at = f"J {worst['j']}, n {worst['golden']}" if kind == "binary" else f"n {worst['golden']}"
            if kind == "binary":
                at += f", {_prior(worst['golden_prior'])} → {_prior(worst['unlabeled_prior'])}"
            widths = [r[method]["width"] for r in chosen]
            lines.append(f"| {method} | {kind} | {group} | {len(chosen)} | {worst[method]['coverage']:.3f} ± "
                         f"{worst[method]['se']:.3f} | {at} | {np.median(widths):.3f} | "
                         f"{max(r[method]['refused'] for r in chosen):.2f} |")
    return "\n".join(lines)


def side_by_side(rows):
    """The card's table: the default, Lee always, the bootstrap and PPI, i.i.d. and prior shift, per J (binary)."""
    lines = ["| J | design | golden n | default: coverage / width / refused | Lee: coverage / width / refused | "
             "bootstrap: coverage / width / refused | PPI: coverage / width / refused |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["kind"] != "binary" or r["golden_prior"][1] not in (0.05, 0.5) or r["unlabeled_prior"][1] not in (0.05, 0.5):
            continue
        lines.append(f"| {r['j']} | {r['design']} ({r['golden_prior'][1]:g} → {r['unlabeled_prior'][1]:g}) | {r['golden']:,} | "
                     f"{_cell(r.get('default'))} | {_cell(r.get('lee'))} | {_cell(r.get('bootstrap'))} | {_cell(r.get('ppi'))} |")
    return "\n".join(lines)


def ppi_width_ratio(rows):
    """PPI's width over the default interval's in the i.i.d. settings, per J."""
    found = {}
    for r in rows:
        if r["kind"] == "binary" and r["design"] == "i.i.d." and "default" in r and "ppi" in r and not math.isnan(r["ppi"]["width"]):
            found.setdefault(r["j"], []).append(r["ppi"]["width"] / r["default"]["width"])
    return {j: (min(v), max(v)) for j, v in sorted(found.items())}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="4 settings, 300 sets, 300 resamples")
    parser.add_argument("--sets", type=int, default=None, help="simulated (golden, unlabeled) pairs per binary setting")
    parser.add_argument("--three-class-sets", type=int, default=None, help="pairs per 3-class setting")
    parser.add_argument("--resamples", type=int, default=None, help="bootstrap resamples per interval")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, default=None,
                        help="markdown results file (default: results.md beside this script; with --quick: none unless given)")
    args = parser.parse_args(argv)
    command = " ".join(["OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/prevalence_prior_shift/study.py",
                        *(sys.argv[1:] if argv is None else argv)])
    output = args.output if args.output is not None else (None if args.quick else HERE / "results.md")
    settings = quick_settings() if args.quick else full_settings()
    sets = args.sets or (300 if args.quick else 5000)
    three = args.three_class_sets or (300 if args.quick else 3000)
    resamples = args.resamples or (300 if args.quick else 1000)
    started = time.perf_counter()
    rows = run(settings, sets, resamples, three, args.seed, verbose=True)
    elapsed = time.perf_counter() - started
    lines = [
        "# The corrected prevalence under prior shift: coverage of each method\n",
        f"Written by `{command}` on {datetime.date.today().isoformat()} ({elapsed / 60:.1f} min): {len(settings)} settings, "
        f"{sets:,} sets per binary setting and {three:,} per 3-class one, {resamples:,} bootstrap resamples, nominal {LEVEL:.0%}, "
        f"{UNLABELED_SIZE:,} unlabeled items, seed {args.seed}. The settings and methods are described in the script's docstring. "
        f"Cells: coverage ± Monte-Carlo s.e. among the sets given an interval / mean width / refusal rate (\"–\": an interval "
        f"in fewer than {MIN_SETS} sets); a 3-class coverage is the lowest over the classes.\n",
        "## Headline\n",
        headline(rows),
        "\nPPI width / default width, i.i.d. settings (min, max over golden sizes and priors): "
        + ", ".join(f"J {j}: {low:.2f}-{high:.2f}" for j, (low, high) in ppi_width_ratio(rows).items()),
        "\n## Side by side (binary, prevalence 0.05 and 0.5)\n",
        side_by_side(rows),
        "\n## Full table (coverage ± MC s.e. / mean width / refusal rate)\n",
        full_table(rows),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if output is not None:
        output.write_text(text, encoding="utf-8")
        print(f"written: {output}", file=sys.stderr)
    return rows


if __name__ == "__main__":
    main()
