"""Long-tail coverage study: intervals for a mean of per-class recalls.

Runs every method of ``methods.py`` on a grid of simulated golden sets and writes
``results.md`` beside this file. Class sizes and true rates are fixed per cell (drawn
once from a seeded generator: the coverage is the frequentist coverage at that
parameter); each simulated set redraws every class's successes as Binomial(n_c, p_c).

    OMP_NUM_THREADS=1 nice -n 19 python studies/long_tail_intervals/study.py [--sets N]

Tables: (1) balanced accuracy of K classes; (1b) binary balanced accuracy;
(2) top-k-like and weighted means of K = 100 recalls near 1; (3) multilabel macro
balanced accuracy (each label: (TPR + TNR)/2 over its positives and negatives); (4) every
rate equal, swept from 0.5 to 0.997 (validity across the rate for fixed class sizes).
``--tables 4 --merge`` runs some tables and keeps the others from results.json.
"""

import argparse
import datetime
import json
import sys
import time
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import methods as M  # noqa: E402

LEVEL_Z = M.Z95
TARGET = 0.93
WIDTH_RATIO = 1.3
RECOMMENDED = "score n-1 + binomial gamma"
CURRENT = "AC/MOVER (current)"


# ------------------------------------------------------------------------------ the grid


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def _near_one(rng, size, exact_share=0.3):
    """Rates uniform in (0.97, 1.0), each exactly 1.0 with probability ``exact_share`` (at least one)."""
    rates = rng.uniform(0.97, 1.0, size)
    exact = rng.random(size) < exact_share
    exact[rng.integers(size)] = True
    return np.where(exact, 1.0, rates)


def recall_cells():
    cells = []
    for rates_kind in ("spread", "near 1"):
        for sizes_kind in ("3-20", "5", "15"):
            for k in (2, 3, 5, 10, 30, 100):
                name = f"K={k}, n_c {sizes_kind}, rates {rates_kind}"
                rng = _rng(name)
                n = rng.integers(3, 21, k) if sizes_kind == "3-20" else np.full(k, int(sizes_kind))
                p = rng.uniform(0.3, 0.99, k) if rates_kind == "spread" else _near_one(rng, k)
                cells.append(dict(table="1", name=name, n=n, p=p, w=np.full(k, 1.0 / k)))
    return cells


BINARY_JUDGES = {"TPR .70 TNR .90": (0.70, 0.90), "TPR .95 TNR .98": (0.95, 0.98), "TPR 1 TNR .99": (1.0, 0.99)}


def binary_cells():
    cells = []
    for judge, (tpr, tnr) in BINARY_JUDGES.items():
        for total in (30, 60, 100):
            for prevalence in (0.05, 0.10, 0.25, 0.50):
                positives = max(1, int(round(prevalence * total)))
                name = f"n={total}, prev {prevalence:.2f} ({positives} pos), {judge}"
                cells.append(dict(table="1b", name=name, n=np.array([positives, total - positives]),
                                  p=np.array([tpr, tnr]), w=np.array([0.5, 0.5])))
    return cells


def topk_cells():
    cells = []

    def add(name, n, p, w=None):
        k = len(n)
        cells.append(dict(table="2", name=name, n=np.asarray(n), p=np.asarray(p, dtype=float),
                          w=np.full(k, 1.0 / k) if w is None else np.asarray(w) / np.sum(w)))

    for k, sizes in ((100, (5, 21)), (30, (5, 21))):
        lo, hi = sizes
        tag = f"K={k}, n_c {lo}-{hi - 1}"
        rng = _rng(tag + "spread")
        add(f"{tag}, recalls U(0.3, 0.99) (k=1)", rng.integers(lo, hi, k), rng.uniform(0.3, 0.99, k))
        rng = _rng(tag + "0.9-1")
        add(f"{tag}, recalls U(0.9, 1)", rng.integers(lo, hi, k), rng.uniform(0.9, 1.0, k))
        for truth, exact_share in ((0.99, 0.5), (0.995, 0.7), (0.999, 0.9)):
            rng = _rng(f"{tag} {truth}")
            n = rng.integers(lo, hi, k)
            p = np.ones(k)
            off = rng.permutation(k)[: max(1, int(round(k * (1 - exact_share))))]
            deficit = (1.0 - truth) * k / len(off)  # mean deficit of the classes below 1
            p[off] = 1.0 - rng.uniform(0.0, 2.0 * deficit, len(off)) if deficit < 0.5 else 1.0 - deficit
            p[off] = np.clip(p[off], 0.0, 1.0)
            add(f"{tag}, truth ~{truth} ({k - len(off)} classes at 1)", n, p)
    rng = _rng("K=100 n5 0.999")
    p = np.ones(100)
    p[rng.permutation(100)[:10]] = 0.99
    add("K=100, n_c 5, truth 0.999 (90 classes at 1)", np.full(100, 5), p)
    rng = _rng("K=100 n5-20 all 1")
    add("K=100, n_c 5-20, every recall 1 (truth 1)", rng.integers(5, 21, 100), np.ones(100))
    # weighted means (weights = support: a 'weighted' average; random weights)
    for k in (10, 100):
        rng = _rng(f"weighted {k}")
        n = rng.integers(3, 21, k)
        add(f"K={k}, n_c 3-20, weights = support, recalls U(0.3, 0.99)", n, rng.uniform(0.3, 0.99, k), w=n)
        rng = _rng(f"random weights {k}")
        n = rng.integers(3, 21, k)
        add(f"K={k}, n_c 3-20, random weights U(0.2, 1), recalls near 1", n, _near_one(rng, k), w=rng.uniform(0.2, 1.0, k))
    return cells


def multilabel_cells():
    cells = []
    for rates_kind in ("spread", "near 1"):
        for labels in (10, 20, 50):
            for total in (100, 200):
                name = f"L={labels}, n={total}, TPR/TNR {rates_kind}"
                rng = _rng(name)
                rare = labels // 2  # half the labels have 1-5 positives
                positives = np.concatenate([rng.integers(1, 6, rare),
                                            np.maximum(1, np.rint(rng.uniform(0.05, 0.5, labels - rare) * total)).astype(int)])
                negatives = total - positives
                if rates_kind == "spread":
                    tpr, tnr = rng.uniform(0.5, 0.99, labels), rng.uniform(0.5, 0.99, labels)
                else:
                    tpr, tnr = _near_one(rng, labels), _near_one(rng, labels)
                cells.append(dict(table="3", name=name, n=np.concatenate([positives, negatives]),
                                  p=np.concatenate([tpr, tnr]), w=np.full(2 * labels, 1.0 / (2 * labels))))
    return cells


def sweep_cells():
    """Every rate equal to p, swept from 0.5 to 0.997: is a method valid across p, not only at one draw?"""
    cells = []
    structures = {"K=2, n_c 5": [5, 5], "binary 2 pos / 28 neg": [2, 28], "K=10, n_c 5": [5] * 10, "K=100, n_c 5": [5] * 100}
    for label, sizes in structures.items():
        for p in (0.5, 0.7, 0.85, 0.93, 0.97, 0.99, 0.997):
            k = len(sizes)
            cells.append(dict(table="4", name=f"{label}, every rate {p}", n=np.array(sizes), p=np.full(k, p),
                              w=np.full(k, 1.0 / k)))
    return cells


TABLES = {
    "1": "Balanced accuracy: mean of K per-class recalls (n_c = class sizes)",
    "1b": "Binary balanced accuracy (TPR + TNR)/2, fixed positives",
    "2": "Top-k-like and weighted means of recalls (K = 100 or 30, n_c 5-20; truths near 1)",
    "3": "Multilabel macro balanced accuracy: L labels, n samples, half the labels with 1-5 positives",
    "4": "Equal rates swept from 0.5 to 0.997 (is a method valid across the rate, not only at one draw of rates?)",
}


# ------------------------------------------------------------------------------ methods


def make_methods(resamples, seed):
    boot_rng = np.random.default_rng(seed)
    return {
        "AC/MOVER (current)": M.ac_mover,
        "Wilson/MOVER": M.wilson_mover,
        "Wald n-1": M.wald_unbiased,
        "floored Wald k=1": lambda x, n, w: M.floored_wald(x, n, w, kappa=1.0),
        "floored Wald k=.5": lambda x, n, w: M.floored_wald(x, n, w, kappa=0.5),
        "Price-Bonett": M.price_bonett,
        "score": lambda x, n, w: M.score_sum(x, n, w, unbiased=False),
        "score n-1": lambda x, n, w: M.score_sum(x, n, w, unbiased=True),
        "Wilson n_eff": M.wilson_effective,
        "hybrid K<=10": M.hybrid_k,
        "score n-1 + FF gamma": lambda x, n, w: M.score_gamma(x, n, w, binomial=False),
        RECOMMENDED: M.recommended,
        f"bootstrap B={resamples}": lambda x, n, w: M.bootstrap_percentile(x, n, w, resamples=resamples, rng=boot_rng),
    }


def run_cell(cell, sets, methods):
    rng = _rng("draws " + cell["name"])
    n, p, w = cell["n"], cell["p"], cell["w"]
    x = rng.binomial(n, p, size=(sets, len(n))).astype(np.float64)
    truth = float((w * p).sum())
    nn = np.broadcast_to(n.astype(np.float64), x.shape)
    ww = np.broadcast_to(w, x.shape)
    out = {}
    for name, method in methods.items():
        low, high = method(x, nn, ww)
        covered = (low <= truth + 1e-12) & (truth - 1e-12 <= high)
        width = high - low
        out[name] = dict(coverage=float(covered.mean()), width=float(width.mean()),
                         zero=float((width <= 1e-12).mean()))
    return truth, out


# ------------------------------------------------------------------------------ report


def judge(results, names):
    """Per cell: the narrowest eligible width (coverage >= TARGET, no zero-width interval) and its method."""
    verdict, who = {}, {}
    for key, (cell, truth, out) in results.items():
        eligible = [(out[m]["width"], m) for m in names if out[m]["coverage"] >= TARGET and out[m]["zero"] == 0.0]
        verdict[key], who[key] = min(eligible) if eligible else (np.nan, "")
    return verdict, who


def method_summary(results, names, narrowest, keys=None):
    keys = list(results) if keys is None else keys
    summary = {}
    for m in names:
        cov = [(results[k][2][m]["coverage"], k) for k in keys]
        ratio = [(results[k][2][m]["width"] / narrowest[k], k) for k in keys if np.isfinite(narrowest[k])]
        zero = [k for k in keys if results[k][2][m]["zero"] > 0]
        undercover = [k for k in keys if results[k][2][m]["coverage"] < TARGET]
        too_wide = [k for r, k in ratio if r > WIDTH_RATIO + 1e-9]
        summary[m] = dict(worst=min(cov), ratio=max(ratio) if ratio else (np.nan, None), zero=zero,
                          undercover=undercover, too_wide=too_wide)
    return summary


def write_report(path, results, names, sets, runs):
    narrowest, narrowest_by = judge(results, names)
    lines = [
        "# Long-tail interval study: results",
        "",
        *[f"Run: `{run['command']}` (tables {run['tables']}) on {run['date']}, wall time {run['wall_seconds'] / 60:.1f} min  "
          for run in runs],
        f"Simulated sets per cell: {sets:,}; cells: {len(results)}; total wall time: "
        f"{sum(run['wall_seconds'] for run in runs) / 60:.1f} min (one process, OMP_NUM_THREADS=1, nice 19, "
        "on a shared 2-core machine).  ",
        f"Nominal level 95%. Monte-Carlo standard error of a coverage near 0.95: "
        f"{np.sqrt(0.95 * 0.05 / sets):.4f}.",
        "",
        f"Requirement: coverage >= {TARGET} in every cell, no zero-width interval, and mean width at most "
        f"{WIDTH_RATIO}x the narrowest method that covers >= {TARGET} (without zero-width intervals) in that cell.",
        f"Recommended default: **{RECOMMENDED}** (`methods.recommended`; formula in README.md). Current default: {CURRENT}.",
        "",
        "Each cell of a table: coverage / mean width. **Bold** = the worst cell of that method within the table;",
        "`<` marks coverage below the target; `z` marks a cell with zero-width intervals; `W` marks width above",
        f"{WIDTH_RATIO}x the cell's narrowest eligible method. Truth = the true value of the statistic.",
        "",
        "## Summary over all cells",
        "",
        "| method | worst coverage | worst cell | max width ratio | its cell | cells < target | cells with zero width | cells too wide | meets requirement | max width ratio to the valid methods |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    summary = method_summary(results, names, narrowest)
    valid = [m for m in names if not (summary[m]["undercover"] or summary[m]["zero"])]
    valid_width = {k: min(out[m]["width"] for m in valid) for k, (cell, truth, out) in results.items()} if valid else {}
    for m in names:
        s = summary[m]
        ok = not (s["undercover"] or s["zero"] or s["too_wide"])
        label = f"**{m}** (recommended)" if m == RECOMMENDED else m
        lines.append(
            f"| {label} | {s['worst'][0]:.3f} | {results[s['worst'][1]][0]['name']} (table {results[s['worst'][1]][0]['table']}) "
            f"| {s['ratio'][0]:.2f} | {results[s['ratio'][1]][0]['name'] if s['ratio'][1] else ''} "
            f"| {len(s['undercover'])} | {len(s['zero'])} | {len(s['too_wide'])} | {'yes' if ok else 'no'} "
            f"| {max(results[k][2][m]['width'] / valid_width[k] for k in results):.2f} |" if valid else "| |")
    lines += [
        "",
        f"Valid methods (coverage >= {TARGET} in every cell, never a zero width): "
        + (", ".join(valid) if valid else "none") + ". The last column compares a method's mean width with the",
        "narrowest of those in each cell (the width requirement restricted to methods that meet the coverage one).",
        "The `max width ratio` column is the requirement as stated: against any method covering in that cell, even",
        "one that fails elsewhere; the `narrowest eligible` column of each table names that method.",
    ]
    for table, title in TABLES.items():
        keys = [k for k in results if results[k][0]["table"] == table]
        if not keys:
            continue
        tsum = method_summary(results, names, narrowest, keys)
        lines += ["", f"## Table {table}. {title}", ""]
        header = "| cell | truth | " + " | ".join(f"**{m}**" if m == RECOMMENDED else m for m in names) + " | narrowest eligible |"
        lines += [header, "|" + "---|" * (len(names) + 3)]
        for k in keys:
            cell, truth, out = results[k]
            row = [cell["name"], f"{truth:.4f}"]
            for m in names:
                o = out[m]
                text = f"{o['coverage']:.3f} / {o['width']:.4f}"
                flags = ""
                if o["coverage"] < TARGET:
                    flags += "<"
                if o["zero"] > 0:
                    flags += "z"
                if np.isfinite(narrowest[k]) and o["width"] > WIDTH_RATIO * narrowest[k] + 1e-12:
                    flags += "W"
                if flags:
                    text += f" {flags}"
                if tsum[m]["worst"][1] == k:
                    text = f"**{text}**"
                row.append(text)
            row.append(narrowest_by[k])
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
        lines.append("Worst coverage in this table: " + "; ".join(
            f"{m}: {tsum[m]['worst'][0]:.3f}" for m in names) + ".")
    path.write_text("\n".join(lines) + "\n")
    dump = [dict(table=cell["table"], cell=cell["name"], truth=truth, sizes=cell["n"].tolist(), rates=cell["p"].tolist(),
                 weights=cell["w"].tolist(), narrowest_eligible=narrowest_by[k], methods=out)
            for k, (cell, truth, out) in results.items()]
    path.with_suffix(".json").write_text(json.dumps(dict(sets=sets, runs=runs, cells=dump), indent=1))


def load_results(path):
    """``(sets, runs, results)`` from a results.json this script wrote."""
    data = json.loads(path.read_text())
    runs = data.get("runs") or [dict(command=data["command"], wall_seconds=data["wall_seconds"], tables="1,1b,2,3",
                                     date=data.get("date", "2026-11-25 15:36"))]
    results = [(dict(table=c["table"], name=c["cell"], n=np.array(c["sizes"]), p=np.array(c["rates"]),
                     w=np.array(c["weights"])), c["truth"], c["methods"]) for c in data["cells"]]
    return data["sets"], runs, results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=2000, help="simulated sets per cell (default 2,000)")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1,000)")
    parser.add_argument("--tables", default="1,1b,2,3,4", help="comma-separated tables to run")
    parser.add_argument("--merge", action="store_true",
                        help="keep the other tables' cells from the existing results.json (same --sets) and rewrite the report")
    parser.add_argument("--output", default=str(HERE / "results.md"))
    args = parser.parse_args(argv)
    M._self_check()
    methods = make_methods(args.resamples, seed=12345)
    names = list(methods)
    wanted = set(args.tables.split(","))
    cells = [c for c in recall_cells() + binary_cells() + topk_cells() + multilabel_cells() + sweep_cells()
             if c["table"] in wanted]
    start = time.time()
    results = {}
    for i, cell in enumerate(cells):
        t0 = time.time()
        truth, out = run_cell(cell, args.sets, methods)
        results[i] = (cell, truth, out)
        print(f"[{i + 1}/{len(cells)}] {cell['table']} {cell['name']}: truth {truth:.4f}, "
              + ", ".join(f"{m.split()[0]} {o['coverage']:.3f}" for m, o in out.items())
              + f" ({time.time() - t0:.1f}s)", flush=True)
    wall = time.time() - start
    command = ("python studies/long_tail_intervals/study.py " + " ".join(argv if argv is not None else sys.argv[1:])).strip()
    runs = [dict(command=command, tables=args.tables, wall_seconds=wall,
                 date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))]
    results = list(results.values())
    if args.merge:
        sets, old_runs, old_results = load_results(Path(args.output).with_suffix(".json"))
        if sets != args.sets:
            raise SystemExit(f"--merge: results.json has {sets} sets per cell, this run {args.sets}")
        results = [r for r in old_results if r[0]["table"] not in wanted] + results
        runs = old_runs + runs
    order = list(TABLES)
    results = sorted(results, key=lambda r: order.index(r[0]["table"]))  # stable: keeps the cells' order in a table
    write_report(Path(args.output), dict(enumerate(results)), names, args.sets, runs)
    print(f"wrote {args.output} in {wall / 60:.1f} min")


if __name__ == "__main__":
    main()
