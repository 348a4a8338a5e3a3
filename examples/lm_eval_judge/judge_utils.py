"""lm-evaluation-harness task functions: a judge's labels scored by balanced accuracy over the corpus.

lm-eval calls ``process_results(doc, results)`` once per document and then each metric's
``aggregation`` once on the list of what ``process_results`` returned for it. A metric of
class rates must be computed there, over the corpus: ``process_results`` only pairs the
reference with the judge's label, ``(gold, pred)`` (``(gold, pred, cluster)`` when the
documents carry a cluster id), and the ``!function`` aggregations below call the module on
all the pairs at once. lm-eval keeps one number per metric, so the interval ends are two
more metrics over the same pairs (computed once).

Not ``hf_evaluate: true`` in ``metric_list``: that calls the module on one document at a
time and averages the results, which is plain accuracy (the module warns: "computed on a
single item").
"""

import json
import re
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
LABELS = ("safe", "unsafe")
METRIC = "balanced_accuracy"  # or "informedness": its value and interval, the same way
CONFIDENCE_LEVEL = 0.95
CLUSTER_FIELD = "conversation"  # documents of one conversation share errors: None to treat them as independent


def golden_set(**kwargs):
    """The task's documents (``custom_dataset``): examples/golden_set/test.jsonl, no download."""
    import datasets

    rows = [json.loads(line) for line in (HERE.parent / "golden_set" / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def first_label(text, labels=LABELS):
    """The label of ``labels`` that occurs first in ``text`` as a whole word (any case), or None."""
    found = [(match.start(), label) for label in labels
             for match in [re.search(rf"\b{re.escape(label)}\b", text, re.IGNORECASE)] if match]
    return min(found)[1] if found else None


def process_results(doc, results):
    """One document: the reference and the judge's label (and its cluster), for each metric's aggregation."""
    pair = (doc["label"], first_label(results[0]) or "no label")
    if CLUSTER_FIELD is not None:
        pair += (doc[CLUSTER_FIELD],)
    return {METRIC: pair, f"{METRIC}_ci_low": pair, f"{METRIC}_ci_high": pair}


@lru_cache(maxsize=8)
def _computed(items):
    import evaluate

    references, predictions = [item[0] for item in items], [item[1] for item in items]
    clusters = [item[2] for item in items] if all(len(item) == 3 for item in items) else None
    metric = evaluate.load(str(REPO_ROOT / METRIC))
    # An answer naming no label is a declared class no reference has: a miss of the item's own
    # class (undeclared, the module refuses a value outside a two-class golden set).
    declared = {"labels": [*sorted(set(references)), "no label"]} if "no label" in predictions else {}
    if declared and METRIC == "informedness":  # a third class would make it the Bookmaker of 3 classes, not J
        raise ValueError(f"predictions: {predictions.count('no label')} of {len(predictions)} answers name no label; "
                         "informedness needs a golden class on every item: use balanced_accuracy (they count as "
                         "misses of their item's class) or map them to a class first.")
    return metric.compute(references=references, predictions=predictions, clusters=clusters,
                          confidence_level=CONFIDENCE_LEVEL, **declared)


def computed(items):
    """The module's result over the corpus (``items``: the ``process_results`` pairs), computed once."""
    return _computed(tuple(tuple(item) for item in items))


def balanced_accuracy(items):
    return computed(items)[METRIC]


def ci_low(items):
    return computed(items)[f"{METRIC}_ci"][0]


def ci_high(items):
    return computed(items)[f"{METRIC}_ci"][1]
