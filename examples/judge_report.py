"""A one-page report of judges ranked on a golden set, from a file: the offline twin of the Space's judges panel.

    python examples/judge_report.py golden.csv [--unlabeled outputs.csv] [--out report.md]
    python examples/judge_report.py run-a.eval run-b.eval            # Inspect logs, one per judge model
    python examples/judge_report.py out/*/samples_judge_labels_*.jsonl  # lm-eval --log_samples files

Input: a CSV or JSONL with a ``references`` column and one column per judge (an optional
``clusters`` column: items that share errors, such as the turns of one conversation; or the
column ``--cluster-key`` names, which for Inspect logs is a sample metadata key), or harness
logs read by ``examples/inspect_ai_judges.py`` (``.eval``/``.json``) and
``examples/lm_eval_judges.py`` (``samples_*.jsonl``). The judges are ranked by the
``judges=`` argument of the balanced_accuracy (or, ``--metric informedness``, informedness)
module: each judge's value with a simultaneous interval, its adjusted p-value against the
best, and the set of judges that cannot be told from the best. Judges that give scores take
``--threshold`` (a number, or ``auto`` for each one's cross-fitted Youden cut; the report
shows each one's cut, ``threshold`` or ``optimal_threshold``; ``--positive`` names the class
scores are of). A judge the module refuses (labels of another vocabulary, scores without
``--threshold``) is left out and listed with the module's message; a golden set of one
class ranks nothing, and the report says why.

``--unlabeled``: a CSV or JSONL of the judges' labels on evaluated models' outputs (no
references): a ``model`` column and one column per judge. For each judge, one informedness
call with ``unlabeled_predictions`` as a mapping of the models gives every model's corrected
prevalence of ``--positive`` (intervals simultaneous over the models) and every pair's
difference with its Holm-adjusted p-value. The correction removes what the judge's errors on
the golden set add to what it measured (valid if the judge errs on those outputs as on the
golden set); it needs labels, so a judge that gives scores is listed as skipped there.

The report is Markdown (``--out``, default ``judge_report.md``) with the forest plot of the
ranking saved as a PNG next to it (drawn as the Space draws it).
"""

import argparse
import csv
import json
import sys
import warnings
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "examples"))

RESERVED = ("references", "clusters", "model")
# What the ranking's result says of a golden set of one class (balanced_accuracy's and informedness's judges=).
ONE_CLASS_REASON = "one_reference_class"


def read_rows(path):
    """A CSV or JSONL file as a list of dicts (CSV values stay strings, as the Space reads an upload)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return list(csv.DictReader(text.splitlines()))


def read_golden(paths, cluster_key=None):
    """``{"references", "judges", "clusters"}`` from a table (CSV/JSONL) or from harness logs.

    ``cluster_key``: the table's column (an Inspect log's sample metadata key) giving each
    item's cluster; None: a table's ``clusters`` column if it has one."""
    paths = [Path(path) for path in paths]
    if all(path.suffix in (".eval", ".json") for path in paths):
        from inspect_ai_judges import read_judges

        return read_judges(paths, cluster_key=cluster_key)
    if all(path.name.startswith("samples_") and path.suffix == ".jsonl" for path in paths):
        if cluster_key is not None:
            raise ValueError(f"--cluster-key: expected a CSV/JSONL table or Inspect logs, found lm-eval samples files, "
                             f"which carry no column {cluster_key!r}; drop --cluster-key (lm_eval_judges.py reads the "
                             "clusters the task's process_results returns).")
        from lm_eval_judges import read_samples

        return read_samples(paths)
    if len(paths) != 1:
        raise ValueError(f"files: expected one CSV/JSONL table, or harness logs (.eval, samples_*.jsonl), found {len(paths)} "
                         "other files.")
    rows = read_rows(paths[0])
    if not rows or "references" not in rows[0]:
        raise ValueError(f"files: expected a 'references' column and one column per judge in {paths[0]}, found the columns "
                         f"{sorted(rows[0]) if rows else []}.")
    if cluster_key is not None and cluster_key not in rows[0]:
        raise ValueError(f"--cluster-key: expected a column {cluster_key!r} in {paths[0]}, found the columns {sorted(rows[0])}.")
    key = cluster_key or "clusters"
    judges = {name: [row[name] for row in rows] for name in rows[0] if name not in RESERVED and name != key}
    if not judges:
        raise ValueError(f"files: expected one column per judge beside 'references' in {paths[0]}, found none.")
    return {"references": [row["references"] for row in rows], "judges": judges,
            "clusters": [row[key] for row in rows] if key in rows[0] else None}


def as_scores(values, classes):
    """A judge's values as floats when it gives scores (numbers that are not all classes of the golden set: a
    CSV's "0.73" is text), else None (labels)."""
    if all(str(value) in classes for value in values):
        return None
    try:
        return [float(value) for value in values]
    except (TypeError, ValueError):
        return None


def refused_judge(error, judges):
    """The judge a module's error names (its messages start ``judges['name']:``), or None."""
    return next((name for name in judges if str(error).startswith(f"judges[{name!r}]")), None)


def rank(golden, metric_name="balanced_accuracy", confidence_level=0.95, threshold=None, positive=None):
    """``(result, skipped)``: the module's result (with two or more judges the ranking, ``judge_ranking``; with
    one its value as a ranking of one; None when no judge is left) and ``{judge: why}`` for the judges the
    module refused (each left out, the others ranked without it)."""
    import evaluate

    metric = evaluate.load(str(REPO_ROOT / metric_name))
    references = golden["references"]
    classes = set(map(str, references))
    judges = dict(golden["judges"])
    options = {"references": references, "clusters": golden["clusters"], "confidence_level": confidence_level}
    if threshold is not None:
        # Scores from a CSV are text: numbers for the module's threshold; positive: the class they are of.
        judges = {name: as_scores(values, classes) or values for name, values in judges.items()}
        options.update(threshold=threshold, pos_label=positive)
    skipped = {}
    if len(classes) < 2 and len(judges) < 2:
        # Nothing can be ranked (rank_scored_judges' rule); with two or more judges the module says so itself.
        return {"reason": ONE_CLASS_REASON, "judge_ranking": [], "best_judges": []}, skipped
    while len(judges) > 1:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the one-class warning: the report says why
                return metric.compute(judges=judges, **options), skipped
        except (ValueError, TypeError) as error:
            name = refused_judge(error, judges)
            if name is None:
                raise
            skipped[name] = str(error)
            del judges[name]
    if not judges:
        return None, skipped
    (name, labels), = judges.items()
    single = {key: value for key, value in options.items() if key not in ("threshold", "pos_label")}
    if threshold is not None and as_scores(golden["judges"][name], classes) is not None:  # scores: the module's threshold
        single.update(threshold=threshold, pos_label=positive)
    try:
        result = metric.compute(predictions=labels, **single)
    except (ValueError, TypeError) as error:
        skipped[name] = str(error)
        return None, skipped
    # One judge: a ranking of one, so the table and the plot read alike.
    entry = {"name": name, metric_name: result[metric_name], f"{metric_name}_ci": result[f"{metric_name}_ci"],
             "p_value": None, "in_best_set": True}
    entry.update({key: result[key] for key in ("threshold", "optimal_threshold") if key in result})
    return {**result, "best_judges": [name], "judge_ranking": [entry]}, skipped


def corrected_prevalences(golden, unlabeled_rows, positive=None, confidence_level=0.95, leave_out=()):
    """``({judge: informedness result}, {judge: why skipped})``: per judge, one call with every model's labels
    (``unlabeled_predictions`` as a mapping: each model's corrected prevalence of ``positive``, the intervals
    simultaneous over the models, and every pair's difference with its adjusted p-value). ``leave_out``: judges
    the ranking refused (listed there)."""
    import evaluate

    metric = evaluate.load(str(REPO_ROOT / "informedness"))
    rows_of_model = {}
    for row in unlabeled_rows:
        rows_of_model.setdefault(row["model"], []).append(row)
    classes = set(map(str, golden["references"]))
    found, skipped = {}, {}
    for judge, labels in golden["judges"].items():
        if judge in leave_out:
            continue
        by_model = {model: [row[judge] for row in rows] for model, rows in rows_of_model.items() if judge in rows[0]}
        if not by_model:
            skipped[judge] = "no column of its labels in --unlabeled"
            continue
        if as_scores(labels, classes) is not None:
            skipped[judge] = ("gives scores: the correction needs the judge's labels (its rates per class on the golden "
                              "set); pass its labels")
            continue
        try:
            found[judge] = metric.compute(references=golden["references"], predictions=labels,
                                          unlabeled_predictions=by_model, clusters=golden["clusters"], pos_label=positive,
                                          confidence_level=confidence_level, seed=0)
        except (ValueError, TypeError) as error:
            skipped[judge] = str(error)
    return found, skipped


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


def ranked(result):
    """Whether the result holds a ranking to show (not a golden set of one class, not every judge refused)."""
    return result is not None and result.get("reason") != ONE_CLASS_REASON and bool(result["judge_ranking"])


def _number(value, spec=".4f"):
    return "n/a" if value is None or value != value else f"{value:{spec}}"


def _interval(interval):
    return "n/a" if interval is None else f"[{_number(interval[0])}, {_number(interval[1])}]"


def _cut(entry):
    if "optimal_threshold" in entry:
        return f"{entry['optimal_threshold']:.4g} (auto)"
    return f"{entry['threshold']:.4g}" if "threshold" in entry else "labels"


def _cell(found, key):
    """One corrected prevalence (``key`` ``corrected_prevalence``) or difference as the tables show it."""
    if found is None:
        return ""
    if f"{key}_reason" in found:
        return f"undefined ({found[f'{key}_reason']})"
    shown = f"{_number(found[key])} {_interval(found.get(f'{key}_ci'))}"
    if found.get(f"{key}_ci_reason"):
        shown += f" ({found[f'{key}_ci_reason']})"
    return shown + (" (clipped)" if found.get(f"{key}_clipped") else "")


def one_class_lines(references, metric_name):
    value = next(iter(references), None)
    return [f"**No ranking is possible** (`{ONE_CLASS_REASON}`): the golden set's references are all of one class "
            f"({value!r}). Each judge's {metric_name} would rest on that class alone (its recall of it: a judge that "
            f"always says {value!r} would look perfect), not on telling the classes apart, so no order of the judges "
            "would mean anything. Add golden items of the other class(es).", ""]


def ranking_lines(result, metric_name, plot_name, confidence_level):
    lines = [f"Intervals: {confidence_level:.0%}, simultaneous over the judges. Best set: the judges whose adjusted "
             f"p-value against the best is at least {1 - confidence_level:.2f}: **{', '.join(result['best_judges'])}**.", ""]
    scored = any("threshold" in entry or "optimal_threshold" in entry for entry in result["judge_ranking"])
    lines += [f"| rank | judge | {metric_name} | interval | p-value vs best | in best set |" + (" cut |" if scored else ""),
              "|---:|---|---:|---|---:|:---:|" + ("---:|" if scored else "")]
    for position, entry in enumerate(result["judge_ranking"], 1):
        p_value = "best" if entry["p_value"] is None else f"{entry['p_value']:.4g}"
        lines.append(f"| {position} | {entry['name']} | {_number(entry[metric_name])} | "
                     f"{_interval(entry.get(f'{metric_name}_ci'))} | {p_value} | {'yes' if entry['in_best_set'] else ''} |"
                     + (f" {_cut(entry)} |" if scored else ""))
    lines += ["", f"![forest plot of the ranking]({plot_name})", ""]
    if scored:
        lines += ["Cut: a score-giving judge's labels are score ≥ cut (the given `--threshold`, or with `auto` its "
                  "`optimal_threshold`, cross-fitted); \"labels\": the judge gave labels.", ""]
    if "judge_ranking_method" in result:
        lines += [f"Method: {result['judge_ranking_method']}.", ""]
    return lines


def prevalence_lines(prevalences, positive):
    judges = list(prevalences)
    models = list(dict.fromkeys(entry["name"] for found in prevalences.values() for entry in found["model_prevalences"]))
    level = next(iter(prevalences.values())).get("prevalence_marginal_level")
    lines = ["## Corrected prevalence of the evaluated models", "",
             f"Each model's share of {positive!r} as each judge measured it, corrected by that judge's errors on the golden "
             "set (informedness's `unlabeled_predictions` with every model in one call; Rogan-Gladen). Each judge's "
             "intervals hold together over the models"
             + (f" (each at the marginal level {level:.4g})" if level is not None else "")
             + ". Valid only if the judge errs on these outputs as on the golden set.", "",
             "| model | " + " | ".join(f"{judge}: measured → corrected [interval]" for judge in judges) + " |",
             "|---|" + "---|" * len(judges)]
    for model in models:
        cells = []
        for judge in judges:
            entry = next((entry for entry in prevalences[judge]["model_prevalences"] if entry["name"] == model), None)
            cells.append("" if entry is None else
                         f"{_number(entry['measured_prevalence'])} → {_cell(entry, 'corrected_prevalence')}")
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    lines.append("")
    pairs = list(dict.fromkeys(tuple(pair["models"]) for found in prevalences.values()
                               for pair in found["prevalence_differences"]))
    if pairs:
        lines += ["### Differences between the models", "",
                  "First model minus second, by each judge, with its interval (simultaneous over the pairs) and its "
                  "p-value (chi-square test that the judge labels both models' outputs alike, Holm-adjusted over the "
                  "pairs).", "",
                  "| models | " + " | ".join(f"{judge}: difference [interval], adjusted p" for judge in judges) + " |",
                  "|---|" + "---|" * len(judges)]
        for first, second in pairs:
            cells = []
            for judge in judges:
                pair = next((pair for pair in prevalences[judge]["prevalence_differences"]
                             if tuple(pair["models"]) == (first, second)), None)
                cells.append("" if pair is None else
                             f"{_cell(pair, 'corrected_prevalence_difference')}, p = {_number(pair['p_value'], '.4g')}")
            lines.append(f"| {first} − {second} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def skipped_lines(skipped):
    lines = ["## Judges left out", "", "| judge | left out of | why |", "|---|---|---|"]
    for (judge, where), why in skipped.items():
        lines.append(f"| {judge} | {where} | {' '.join(str(why).split()).replace('|', '/')} |")
    return lines + [""]


def report(golden, result, metric_name, plot_name, prevalences=None, positive=None, confidence_level=0.95, skipped=None):
    """The report's Markdown. ``skipped``: ``{(judge, "ranking" or "corrected prevalence"): why}``."""
    references = golden["references"]
    classes = sorted(set(map(str, references)))
    counts = ", ".join(f"{c}: {sum(str(r) == c for r in references)}" for c in classes)
    lines = [f"# Judges ranked by {metric_name}", "",
             f"{len(references)} golden items ({counts}); {len(golden['judges'])} judge(s)"
             + (f"; {result['num_clusters']} clusters" if result and "num_clusters" in result else "") + ".", ""]
    if result is not None and result.get("reason") == ONE_CLASS_REASON:
        lines += one_class_lines(references, metric_name)
    elif not ranked(result):
        lines += ["**No judge could be ranked**: the module refused every one (below).", ""]
    else:
        lines += ranking_lines(result, metric_name, plot_name, confidence_level)
    if prevalences:
        lines += prevalence_lines(prevalences, positive)
    if skipped:
        lines += skipped_lines(skipped)
    return "\n".join(lines)


def threshold_argument(value):
    """``--threshold``: ``auto`` or a number."""
    if value == "auto":
        return value
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto', found {value!r}") from None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="a CSV/JSONL table, or Inspect logs, or lm-eval samples files")
    parser.add_argument("--metric", default="balanced_accuracy", choices=("balanced_accuracy", "informedness"))
    parser.add_argument("--unlabeled", help="the judges' labels on models' outputs: a 'model' column, one column per judge")
    parser.add_argument("--positive", help="the class whose prevalence is corrected, and the class scores are of "
                                           "(needed unless the labels are 0/1)")
    parser.add_argument("--threshold", type=threshold_argument,
                        help="for judges that give scores: a number (score >= it is positive) or 'auto'")
    parser.add_argument("--cluster-key", help="the column (Inspect: sample metadata key) naming each golden item's cluster; "
                                              "default: a 'clusters' column if there is one")
    parser.add_argument("--confidence-level", type=float, default=0.95)
    parser.add_argument("--out", default="judge_report.md")
    arguments = parser.parse_args(argv)
    golden = read_golden(arguments.files, arguments.cluster_key)
    result, refused = rank(golden, arguments.metric, arguments.confidence_level, arguments.threshold, arguments.positive)
    skipped = {(judge, "ranking"): why for judge, why in refused.items()}
    out = Path(arguments.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    plot = out.with_suffix(".png")
    if ranked(result):
        forest_plot(result, plot)
    prevalences = None
    if arguments.unlabeled and len(set(map(str, golden["references"]))) >= 2:
        prevalences, left_out = corrected_prevalences(golden, read_rows(arguments.unlabeled), arguments.positive,
                                                      arguments.confidence_level, leave_out=refused)
        skipped.update({(judge, "corrected prevalence"): why for judge, why in left_out.items()})
    out.write_text(report(golden, result, arguments.metric, plot.name, prevalences, arguments.positive,
                          arguments.confidence_level, skipped), encoding="utf-8")
    print(f"wrote {out}" + (f" and {plot}" if ranked(result) else ""))
    return out


if __name__ == "__main__":
    main()
