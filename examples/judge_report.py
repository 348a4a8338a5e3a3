"""A one-page report of judges ranked on a golden set, from a file: the offline twin of the Space's judges panel.

    python examples/judge_report.py golden.csv [--unlabeled outputs.csv] [--out report.md]
    python examples/judge_report.py run-a.eval run-b.eval            # Inspect logs, one per judge model
    python examples/judge_report.py out/*/samples_judge_labels_*.jsonl  # lm-eval --log_samples files

Input: a CSV or JSONL with a ``references`` column and one column per judge (an optional
``clusters`` column: items that share errors, such as the turns of one conversation), or
harness logs read by ``examples/inspect_ai_judges.py`` (``.eval``/``.json``) and
``examples/lm_eval_judges.py`` (``samples_*.jsonl``). The judges are ranked by the
``judges=`` argument of the balanced_accuracy (or, ``--metric informedness``, informedness)
module: each judge's value with a simultaneous interval, its adjusted p-value against the
best, and the set of judges that cannot be told from the best.

``--unlabeled``: a CSV or JSONL of the judges' labels on evaluated models' outputs (no
references): a ``model`` column and one column per judge. For each model and judge the
report gives the model's corrected prevalence of ``--positive`` (informedness's
``unlabeled_predictions``, one model per call), which corrects what the judge measured by its
errors on the golden set (valid if the judge errs on those outputs as on the golden set).

The report is Markdown (``--out``, default ``judge_report.md``) with the forest plot of the
ranking saved as a PNG next to it (drawn as the Space draws it).
"""

import argparse
import csv
import json
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "examples"))

RESERVED = ("references", "clusters", "model")


def read_rows(path):
    """A CSV or JSONL file as a list of dicts (CSV values stay strings, as the Space reads an upload)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return list(csv.DictReader(text.splitlines()))


def read_golden(paths):
    """``{"references", "judges", "clusters"}`` from a table (CSV/JSONL) or from harness logs."""
    paths = [Path(path) for path in paths]
    if all(path.suffix in (".eval", ".json") for path in paths):
        from inspect_ai_judges import read_judges

        return read_judges(paths)
    if all(path.name.startswith("samples_") and path.suffix == ".jsonl" for path in paths):
        from lm_eval_judges import read_samples

        return read_samples(paths)
    if len(paths) != 1:
        raise ValueError(f"files: expected one CSV/JSONL table, or harness logs (.eval, samples_*.jsonl), found {len(paths)} "
                         "other files.")
    rows = read_rows(paths[0])
    if not rows or "references" not in rows[0]:
        raise ValueError(f"files: expected a 'references' column and one column per judge in {paths[0]}, found the columns "
                         f"{sorted(rows[0]) if rows else []}.")
    judges = {name: [row[name] for row in rows] for name in rows[0] if name not in RESERVED}
    if not judges:
        raise ValueError(f"files: expected one column per judge beside 'references' in {paths[0]}, found none.")
    return {"references": [row["references"] for row in rows], "judges": judges,
            "clusters": [row["clusters"] for row in rows] if "clusters" in rows[0] else None}


def rank(golden, metric_name="balanced_accuracy", confidence_level=0.95):
    """The module's result: with two or more judges the ranking (``judge_ranking``), with one its value."""
    import evaluate

    metric = evaluate.load(str(REPO_ROOT / metric_name))
    judges = golden["judges"]
    if len(judges) > 1:
        return metric.compute(references=golden["references"], judges=judges, clusters=golden["clusters"],
                              confidence_level=confidence_level)
    (name, labels), = judges.items()
    result = metric.compute(references=golden["references"], predictions=labels, clusters=golden["clusters"],
                            confidence_level=confidence_level)
    # One judge: a ranking of one, so the table and the plot read alike.
    return {**result, "best_judges": [name], "judge_ranking": [
        {"name": name, metric_name: result[metric_name], f"{metric_name}_ci": result[f"{metric_name}_ci"],
         "p_value": None, "in_best_set": True}]}


def corrected_prevalences(golden, unlabeled_rows, positive=None, confidence_level=0.95):
    """``{model: {judge: informedness result}}``: each model's prevalence of ``positive`` corrected by each judge."""
    import evaluate

    metric = evaluate.load(str(REPO_ROOT / "informedness"))
    models = list(dict.fromkeys(row["model"] for row in unlabeled_rows))
    found = {}
    for model in models:
        rows = [row for row in unlabeled_rows if row["model"] == model]
        found[model] = {}
        for judge, labels in golden["judges"].items():
            if judge not in rows[0]:
                continue
            found[model][judge] = metric.compute(references=golden["references"], predictions=labels,
                                                 unlabeled_predictions=[row[judge] for row in rows],
                                                 clusters=golden["clusters"], pos_label=positive,
                                                 confidence_level=confidence_level, seed=0)
    return found


def forest_plot(result, path):
    """The ranking as the Space draws it (shared/space/judges.py), saved as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from shared.space.judges import draw_judge_ranking

    figure, axes = plt.subplots(figsize=(7, 1.2 + 0.5 * len(result["judge_ranking"])))
    draw_judge_ranking(axes, result)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def _number(value):
    return "n/a" if value is None or value != value else f"{value:.4f}"


def _interval(interval):
    return "n/a" if interval is None else f"[{_number(interval[0])}, {_number(interval[1])}]"


def report(golden, result, metric_name, plot_name, prevalences=None, positive=None, confidence_level=0.95):
    """The report's Markdown."""
    references = golden["references"]
    classes = sorted(set(map(str, references)))
    counts = ", ".join(f"{c}: {sum(str(r) == c for r in references)}" for c in classes)
    lines = [f"# Judges ranked by {metric_name}", "",
             f"{len(references)} golden items ({counts}); {len(golden['judges'])} judge(s)"
             + (f"; {result['num_clusters']} clusters" if "num_clusters" in result else "") + ".", "",
             f"Intervals: {confidence_level:.0%}, simultaneous over the judges. Best set: the judges whose adjusted "
             f"p-value against the best is at least {1 - confidence_level:.2f}: **{', '.join(result['best_judges'])}**.", "",
             f"| rank | judge | {metric_name} | interval | p-value vs best | in best set |",
             "|---:|---|---:|---|---:|:---:|"]
    for position, entry in enumerate(result["judge_ranking"], 1):
        p_value = "best" if entry["p_value"] is None else f"{entry['p_value']:.4g}"
        lines.append(f"| {position} | {entry['name']} | {_number(entry[metric_name])} | "
                     f"{_interval(entry.get(f'{metric_name}_ci'))} | {p_value} | {'yes' if entry['in_best_set'] else ''} |")
    lines += ["", f"![forest plot of the ranking]({plot_name})", ""]
    if "judge_ranking_method" in result:
        lines += [f"Method: {result['judge_ranking_method']}.", ""]
    if prevalences:
        judges = list(dict.fromkeys(judge for row in prevalences.values() for judge in row))
        lines += ["## Corrected prevalence of the evaluated models", "",
                  f"Each model's share of {positive!r} as each judge measured it, corrected by that judge's errors on "
                  "the golden set (informedness's `unlabeled_predictions`; Rogan-Gladen). Valid only if the judge errs "
                  "on these outputs as on the golden set.", "",
                  "| model | " + " | ".join(f"{judge}: measured → corrected [interval]" for judge in judges) + " |",
                  "|---|" + "---|" * len(judges)]
        for model, row in prevalences.items():
            cells = []
            for judge in judges:
                found = row.get(judge)
                if found is None:
                    cells.append("")
                elif "corrected_prevalence_reason" in found:
                    cells.append(f"{_number(found['measured_prevalence'])} → undefined ({found['corrected_prevalence_reason']})")
                else:
                    cells.append(f"{_number(found['measured_prevalence'])} → {_number(found['corrected_prevalence'])} "
                                 f"{_interval(found.get('corrected_prevalence_ci'))}"
                                 + (" (clipped)" if found.get("corrected_prevalence_clipped") else ""))
            lines.append(f"| {model} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="a CSV/JSONL table, or Inspect logs, or lm-eval samples files")
    parser.add_argument("--metric", default="balanced_accuracy", choices=("balanced_accuracy", "informedness"))
    parser.add_argument("--unlabeled", help="the judges' labels on models' outputs: a 'model' column, one column per judge")
    parser.add_argument("--positive", help="the class whose prevalence is corrected (needed unless the labels are 0/1)")
    parser.add_argument("--confidence-level", type=float, default=0.95)
    parser.add_argument("--out", default="judge_report.md")
    arguments = parser.parse_args(argv)
    golden = read_golden(arguments.files)
    result = rank(golden, arguments.metric, arguments.confidence_level)
    out = Path(arguments.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    plot = out.with_suffix(".png")
    forest_plot(result, plot)
    prevalences = None
    if arguments.unlabeled:
        prevalences = corrected_prevalences(golden, read_rows(arguments.unlabeled), arguments.positive,
                                            arguments.confidence_level)
    out.write_text(report(golden, result, arguments.metric, plot.name, prevalences, arguments.positive,
                          arguments.confidence_level), encoding="utf-8")
    print(f"wrote {out} and {plot}")
    return out


if __name__ == "__main__":
    main()
