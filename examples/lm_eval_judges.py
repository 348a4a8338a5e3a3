"""lm-evaluation-harness: judges (or models) ranked from the per-sample logs of ``--log_samples``.

``lm_eval ... --log_samples --output_path out/`` writes, per model, ``out/<model>/samples_<task>_<date>.jsonl``:
one line per document (and filter) with ``doc_id``, ``target``, the model's ``filtered_resps``
and what ``process_results`` returned for each metric. ``read_samples(paths)`` reads one such
file per judge into references and one column of labels per judge, documents matched by
``doc_id``:

* with the task of ``examples/lm_eval_judge/`` (``process_results`` returns ``(gold, pred)``
  or ``(gold, pred, cluster)`` under ``balanced_accuracy``) the pair is taken as it is;
* otherwise the reference is ``target`` and the label is ``filtered_resps[0]`` (after the
  task's filters), or for a multiple-choice task the choice of highest log-likelihood.

A per-document score such as ``exact_match`` or ``acc`` (1/0: was it right) is not a label:
read as one it shares no class with the references, and ``read_samples`` refuses it.

    python examples/lm_eval_judges.py out/*/samples_judge_labels_*.jsonl   # the judges ranked
"""

import argparse
import json
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def load_metric(name="balanced_accuracy", **options):
    import evaluate

    return evaluate.load(str(REPO_ROOT / name), **options)


def _label(line, metric, path):
    """``(reference, label, cluster or None)`` of one logged document."""
    pair = line.get(metric)
    if isinstance(pair, list) and len(pair) in (2, 3):
        return pair[0], pair[1], (pair[2] if len(pair) == 3 else None)
    if isinstance(pair, (int, float, bool)):
        raise ValueError(f"{metric}: found a per-document score ({pair!r}) in {path}, not a (gold, pred) pair; "
                         "balanced accuracy needs the labels: return (gold, pred) from process_results (see "
                         "examples/lm_eval_judge/judge_utils.py), or read without metric= to use target and "
                         "filtered_resps. See docs/harnesses.md.")
    response = line["filtered_resps"]
    if isinstance(response, list) and response and all(isinstance(r, list) and len(r) == 2 for r in response):
        # multiple choice: one (log-likelihood, is_greedy) per choice; the target is the choice's index
        return int(line["target"]), max(range(len(response)), key=lambda i: float(response[i][0])), None
    if isinstance(response, list):
        response = response[0] if response else None
    return line["target"], response, None


def read_samples(paths, names=None, metric="balanced_accuracy", filter_name=None):
    """Per-sample logs -> ``{"references": [...], "judges": {name: [...]}, "clusters": [...] or None}``.

    ``paths``: one ``samples_<task>_*.jsonl`` per judge (or model); ``names``: the judges'
    names (default: the folder each file is in, lm-eval's sanitized model name, or the file
    name when those repeat); ``filter_name``: which filter's lines (default: the only one).
    """
    paths = [Path(path) for path in paths]
    if names is None:
        names = [path.parent.name for path in paths]
        if len(set(names)) < len(names):
            names = [path.stem for path in paths]
    if len(names) != len(paths) or len(set(names)) < len(names):
        raise ValueError(f"names: expected one distinct name per file ({len(paths)}), found {names!r}.")
    references, clusters, judges = None, None, {}
    for name, path in zip(names, paths):
        lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines() if text.strip()]
        filters = sorted({line.get("filter", "none") for line in lines})
        chosen = filter_name or (filters[0] if len(filters) == 1 else None)
        if chosen not in filters:
            raise ValueError(f"filter_name: expected one of the filters of {path} {filters}, found {filter_name!r}.")
        rows = {line["doc_id"]: _label(line, metric, path) for line in lines if line.get("filter", "none") == chosen}
        order = sorted(rows)
        if references is None:
            keys = order
            references = [rows[key][0] for key in order]
            found = [rows[key][2] for key in order]
            clusters = found if all(cluster is not None for cluster in found) else None
        elif order != keys:
            raise ValueError(f"paths: {path} logs {len(order)} documents, the first file {len(keys)}; expected the "
                             "same documents (doc_id) for every judge.")
        elif [rows[key][0] for key in order] != references:
            raise ValueError(f"paths: {path} has other targets than the first file for the same doc_id.")
        judges[name] = [rows[key][1] for key in order]
        shared = set(map(str, judges[name])) & set(map(str, references))
        if judges[name] and not shared:
            raise ValueError(f"judges[{name!r}]: found labels {sorted(set(map(str, judges[name])))[:5]} that share no "
                             f"class with the references {sorted(set(map(str, references)))[:5]} in {path}; a "
                             "per-document score (exact_match, acc) or a raw response is not a label: return "
                             "(gold, pred) from process_results, or give the task a filter_list that extracts the "
                             "label. See docs/harnesses.md.")
    return {"references": references, "judges": judges, "clusters": clusters}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", nargs="+", help="samples_<task>_*.jsonl, one per judge")
    parser.add_argument("--metric", default="balanced_accuracy", choices=("balanced_accuracy", "informedness"))
    arguments = parser.parse_args()
    found = read_samples(arguments.samples)
    metric = load_metric(arguments.metric)
    if len(found["judges"]) == 1:
        (name, labels), = found["judges"].items()
        result = metric.compute(references=found["references"], predictions=labels, clusters=found["clusters"],
                                confidence_level=0.95)
        low, high = result[f"{arguments.metric}_ci"]
        print(f"{name}: {result[arguments.metric]:.4f} [{low:.4f}, {high:.4f}]")
        return
    result = metric.compute(references=found["references"], judges=found["judges"], clusters=found["clusters"],
                            confidence_level=0.95)
    for entry in result["judge_ranking"]:
        low, high = entry[f"{arguments.metric}_ci"]
        print(f"{entry['name']}: {entry[arguments.metric]:.4f} [{low:.4f}, {high:.4f}]"
              f"{' (best set)' if entry['in_best_set'] else ''}")


if __name__ == "__main__":
    main()
