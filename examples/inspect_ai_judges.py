"""inspect_ai: balanced accuracy (or informedness) of a judge as an Inspect metric, and judges ranked from Inspect logs.

An Inspect task that asks a model to label items (a judge: "safe"/"unsafe", "pass"/"fail")
scores each sample with a `Score`. Two of its fields matter here and are easily confused:

* ``score.value`` is whether the answer was right: Inspect's ``"C"`` (correct) / ``"I"``
  (incorrect), or 1/0. Its mean is accuracy.
* ``score.answer`` is the label the model gave. Balanced accuracy needs that label next to
  the sample's target: from ``"C"``/``"I"`` no per-class rate can be had.

Feeding ``value`` as predictions gives predictions that share no class with the references
(balanced accuracy 0.0); every function here refuses it with a ValueError that says to pass
``answer``.

* ``judge_label(labels)``: a ``@scorer`` that reads the first of ``labels`` in the model's
  output into ``score.answer`` ("no label" when the output names none of them: a miss of the
  item's class, never one of the classes) and keeps the sample's target in ``score.metadata``
  (a ``SampleScore`` carries no target), with ``value`` "C"/"I" as usual.
* ``balanced_accuracy_ci(...)``: a ``@metric`` over the task's ``SampleScore`` s: the
  module's value and its interval ends (three entries of the task's results:
  ``balanced_accuracy``, ``balanced_accuracy_ci_low``, ``balanced_accuracy_ci_high``), with
  ``clusters`` from a sample metadata field (``cluster_key=``) when given;
  ``metric="informedness"`` for informedness. It takes every epoch's score (Inspect's
  ``scores="unreduced"``): with epochs > 1 each epoch is a measurement of its sample, and the
  sample (or its ``cluster_key`` group) is the cluster.
* ``read_judges(paths)``: existing logs (``inspect_ai.log.read_eval_log``) as references and
  one column of labels per judge (one log per judge model, or several scorers in one log),
  samples matched by id and epoch (epochs > 1: clustered by sample id);
  ``judges_from_samples_df(frame)`` the same from ``inspect_ai.analysis.samples_df``. Pass the
  judges to ``judges=`` to rank them.
* ``read_models(paths)``: logs of several models' outputs labelled by one judge (its scorer) ->
  ``{model: labels}``, for informedness's ``unlabeled_predictions`` (each model's corrected
  prevalence, from the judge's errors on the golden set).

    python examples/inspect_ai_judges.py LOG.eval [LOG.eval ...]   # the judges of the logs, ranked
"""

import argparse
import math
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
# Inspect's correctness values (inspect_ai.scorer CORRECT, INCORRECT, PARTIAL, NOANSWER).
CORRECTNESS_VALUES = {"C", "I", "P", "N"}
REFERENCE_KEY = "reference"
# judge_label's answer when the output names none of the labels: a prediction outside the
# reference classes, so the item counts as a miss of its own class and never as a class.
NO_LABEL = "no label"
NO_LABEL_INFORMEDNESS = ("predictions: {count} of {total} outputs name no label ({no_label!r}); informedness needs "
                         "one of the golden classes on every item (declared as a third class, the multi-class "
                         "Bookmaker would not be the judge's J). Use balanced_accuracy, where they count as misses "
                         "of their item's class, or map them to a class first.")
VALUE_NOT_ANSWER = ("{where}: found Inspect's correctness values {found} (score.value: whether the answer was right), "
                    "which share no class with the references {classes}; balanced accuracy needs the label the judge "
                    "gave: pass score.answer (a scorer that sets it, such as judge_label(labels) here, or match()/"
                    "choice()), never score.value. See docs/harnesses.md.")


def load_metric(name="balanced_accuracy", **options):
    import evaluate

    return evaluate.load(str(REPO_ROOT / name), **options)


def check_labels(references, predictions, where):
    """Refuse predictions that are Inspect's correctness values instead of labels (see the module doc)."""
    found, classes = set(predictions), set(references)
    if not found:
        return
    if None in found:
        raise ValueError(f"{where}: found score.answer None on {sum(p is None for p in predictions)} of {len(predictions)} "
                         "samples; balanced accuracy needs the label the judge gave in score.answer (score.value only "
                         "says whether it was right). Use a scorer that sets answer, such as judge_label(labels) here "
                         f"(it gives {NO_LABEL!r} when the output names no label); scores reduced over epochs have no "
                         "answer where the epochs disagree: use every epoch's score (read_judges, or a metric with "
                         "scores=\"unreduced\" such as balanced_accuracy_ci).")
    if found <= CORRECTNESS_VALUES and not found & classes:
        raise ValueError(VALUE_NOT_ANSWER.format(where=where, found=sorted(found), classes=sorted(map(str, classes))))


def with_no_label(references, predictions, options, metric="balanced_accuracy"):
    """``options`` with the classes declared when an output named no label: ``NO_LABEL`` is then a
    declared class no reference has, so the module counts it as a miss of the item's own class
    (undeclared, it would refuse a value outside a two-class golden set, as it should for another
    vocabulary). Its "Recall is undefined for class 'no label'" warning is expected: keep the
    default zero_division="skip" (0.0 would average in a recall of 0 for a class that is none).
    Informedness is refused instead: with a third class it would be the Bookmaker of three
    classes, not the judge's J."""
    if NO_LABEL not in predictions or "labels" in options or "num_classes" in options:
        return options
    if metric == "informedness":
        raise ValueError(NO_LABEL_INFORMEDNESS.format(count=predictions.count(NO_LABEL), total=len(predictions),
                                                      no_label=NO_LABEL))
    return {**options, "labels": [*sorted(set(references), key=str), NO_LABEL]}


def labels_from_scores(scores, cluster_key=None, reference_key=REFERENCE_KEY):
    """``(references, predictions, clusters)`` of a task's ``SampleScore`` s: the reference from
    ``score.metadata[reference_key]`` (judge_label puts the target there) or else the sample's
    metadata, the prediction from ``score.answer``; clusters from sample metadata with
    ``cluster_key``, else the sample ids when a sample has several scores (epochs), else None."""
    references, predictions, clusters, ids = [], [], [], []
    for sample_score in scores:
        score, metadata = sample_score.score, sample_score.sample_metadata or {}
        found = (score.metadata or {}).get(reference_key, metadata.get(reference_key))
        if found is None:
            raise ValueError(f"{reference_key}: expected the sample's reference label in score.metadata or the sample "
                             f"metadata, found neither on sample {sample_score.sample_id!r}; score with judge_label(labels) "
                             "(it keeps the target) or put the label in the sample's metadata.")
        references.append(found)
        predictions.append(score.answer)
        ids.append(sample_score.sample_id)
        if cluster_key is not None:
            if cluster_key not in metadata:
                raise ValueError(f"cluster_key: expected {cluster_key!r} in every sample's metadata, found it missing on "
                                 f"sample {sample_score.sample_id!r}.")
            clusters.append(metadata[cluster_key])
    check_labels(references, predictions, "score.answer")
    if cluster_key is not None:
        return references, predictions, clusters
    # Epochs of one sample are repeated measurements of one item: its id is their cluster.
    return references, predictions, (ids if len(set(ids)) < len(ids) else None)


def balanced_accuracy_ci(confidence_level=0.95, cluster_key=None, metric="balanced_accuracy", **options):
    """An Inspect ``@metric``: the module's value over the task's samples with its interval ends.

    It asks Inspect for every epoch's score (``scores="unreduced"``): a reduced score keeps
    ``answer`` only where all epochs gave the same label, and its value (the epochs' mean of
    "C"/"I") is no label.
    """
    from inspect_ai.scorer import SampleScore
    from inspect_ai.scorer import metric as inspect_metric

    @inspect_metric(name=metric, scores="unreduced")
    def module_metric():
        # Annotated: Inspect passes SampleScores only to a metric that says it takes them.
        def compute(scores: list[SampleScore]) -> dict:
            if not scores:  # Inspect asks for the shape of the result on no samples
                return {metric: math.nan, f"{metric}_ci_low": math.nan, f"{metric}_ci_high": math.nan}
            references, predictions, clusters = labels_from_scores(scores, cluster_key)
            result = load_metric(metric).compute(references=references, predictions=predictions, clusters=clusters,
                                                 confidence_level=confidence_level,
                                                 **with_no_label(references, predictions, options, metric))
            low, high = result[f"{metric}_ci"]
            return {metric: result[metric], f"{metric}_ci_low": low, f"{metric}_ci_high": high}

        return compute

    return module_metric()


def first_label(text, labels):
    """The label of ``labels`` that occurs first in ``text`` as a whole word (any case), or None."""
    import re

    found = [(match.start(), label) for label in labels
             for match in [re.search(rf"\b{re.escape(label)}\b", text, re.IGNORECASE)] if match]
    return min(found)[1] if found else None


def judge_label(labels, confidence_level=0.95, cluster_key=None, metric="balanced_accuracy"):
    """An Inspect ``@scorer`` for a labelling task: ``answer`` the first of ``labels`` in the
    output (``NO_LABEL`` when there is none), ``value`` "C"/"I", the target kept in ``metadata``;
    its metric is ``balanced_accuracy_ci``."""
    from inspect_ai.scorer import CORRECT, INCORRECT, Score, accuracy, scorer

    if NO_LABEL in labels:
        raise ValueError(f"labels: {NO_LABEL!r} is the answer of an output that names no label; found it among "
                         f"{list(labels)}. Rename that class.")

    @scorer(metrics=[accuracy(), balanced_accuracy_ci(confidence_level, cluster_key, metric)], name="judge_label")
    def label_scorer():
        async def score(state, target):
            answer = first_label(state.output.completion, labels)
            explanation = None if answer else f"the output names none of {list(labels)}"
            return Score(value=CORRECT if answer == target.text else INCORRECT, answer=answer or NO_LABEL,
                         explanation=explanation, metadata={REFERENCE_KEY: target.text})

        return score

    return label_scorer()


def _target(sample):
    target = sample.target
    if isinstance(target, list):
        if len(target) != 1:
            raise ValueError(f"target: expected one reference label per sample, found {target!r} on sample {sample.id!r}.")
        target = target[0]
    return target


def read_judges(paths, cluster_key=None):
    """Logs (``read_eval_log``) -> ``{"references": [...], "judges": {name: [...]}, "clusters": [...] or None}``.

    Each log's model is a judge (one log per judge model); a log with several scorers gives one
    judge per scorer (``<model>/<scorer>`` when there are several logs). Samples are matched
    by (id, epoch); the reference is the sample's target, each judge's label its ``score.answer``.
    The epochs of one sample are repeated measurements of one item: with epochs > 1 the
    clusters are the sample ids (``cluster_key``'s groups instead when given: each holds its
    samples' epochs), so the intervals count items, not epochs.
    """
    from inspect_ai.log import read_eval_log

    columns, references, clusters, keys = {}, {}, {}, None
    logs = [read_eval_log(str(path)) for path in paths]
    for log in logs:
        if not log.samples:
            raise ValueError(f"paths: expected samples in {log.location}, found none (a header-only log or a run "
                             "with --no-log-samples).")
        scorers = list(log.samples[0].scores or {})
        if not scorers:
            raise ValueError(f"paths: expected scored samples in {log.location}, found no scores.")
        for name in scorers:
            judge = name if len(logs) == 1 and len(scorers) > 1 else (
                log.eval.model if len(scorers) == 1 else f"{log.eval.model}/{name}")
            if judge in columns:
                raise ValueError(f"paths: two logs give the judge {judge!r}; one log per judge model.")
            column = {}
            for sample in log.samples:
                key = (sample.id, sample.epoch)
                references.setdefault(key, _target(sample))
                if references[key] != _target(sample):
                    raise ValueError(f"paths: sample {key} has the target {_target(sample)!r} in {log.location} but "
                                     f"{references[key]!r} in another log.")
                if cluster_key is not None:
                    clusters[key] = (sample.metadata or {})[cluster_key]
                column[key] = sample.scores[name].answer
            columns[judge] = column
            keys = set(column) if keys is None else keys
            if set(column) != keys:
                raise ValueError(f"paths: the judge {judge!r} scored {len(column)} samples, another {len(keys)}; "
                                 "expected the same samples (id, epoch) in every log.")
    order = sorted(keys, key=lambda key: (str(key[0]), key[1]))
    if cluster_key is None and len({key[0] for key in order}) < len(order):  # epochs > 1
        clusters = {key: key[0] for key in order}
    found = {"references": [references[key] for key in order],
             "judges": {judge: [column[key] for key in order] for judge, column in columns.items()},
             "clusters": [clusters[key] for key in order] if clusters else None}
    for judge, labels in found["judges"].items():
        check_labels(found["references"], labels, f"judges[{judge!r}] (score.answer)")
    return found


def read_models(paths, scorer=None, labels=None, epoch=None):
    """Logs of several models' outputs, each labelled by one judge -> ``{model: [label, ...]}``.

    One log per evaluated model (``log.eval.model`` names it); the judge is the scorer that
    labelled the outputs (``scorer=`` its name when a log has several), its label
    ``score.answer``. The mapping is informedness's ``unlabeled_predictions``: each model's
    corrected prevalence from the judge's errors on the golden set. ``labels``: the judge's
    classes, to refuse anything else (``NO_LABEL`` passes: an output the judge left unlabelled).
    With epochs > 1 pass ``epoch=``: the module's prevalence interval takes no clusters, and
    the epochs of one sample are not independent outputs.
    """
    from inspect_ai.log import read_eval_log

    models = {}
    for path in paths:
        log = read_eval_log(str(path))
        if not log.samples:
            raise ValueError(f"paths: expected samples in {log.location}, found none (a header-only log or a run "
                             "with --no-log-samples).")
        found = sorted({name for sample in log.samples for name in (sample.scores or {})})
        name = scorer if scorer is not None else (found[0] if len(found) == 1 else None)
        if name not in found:
            raise ValueError(f"scorer: expected the judge's scorer among {found} in {log.location}, found "
                             f"{scorer!r}; pass scorer=<name>.")
        epochs = sorted({sample.epoch for sample in log.samples})
        if epoch is None and len(epochs) > 1:
            raise ValueError(f"epoch: {log.location} holds epochs {epochs} of each sample; pass epoch=<one of them> "
                             "(the prevalence interval counts every output as independent, and an item's epochs "
                             "are not).")
        samples = sorted((sample for sample in log.samples if epoch is None or sample.epoch == epoch),
                         key=lambda sample: str(sample.id))
        if not samples:
            raise ValueError(f"epoch: expected one of {epochs} in {log.location}, found {epoch!r}.")
        if log.eval.model in models:
            raise ValueError(f"paths: two logs give the model {log.eval.model!r}; one log per evaluated model.")
        answers = [sample.scores[name].answer if name in (sample.scores or {}) else None for sample in samples]
        where = f"{log.location} ({name}: score.answer)"
        if None in answers:
            raise ValueError(f"{where}: found score.answer None on {answers.count(None)} of {len(answers)} samples; "
                             f"expected the judge's label on each (judge_label gives {NO_LABEL!r} when the output "
                             "names none).")
        unknown = sorted(set(answers) - set(labels) - {NO_LABEL}) if labels is not None else []
        if unknown:
            raise ValueError(f"{where}: expected labels among {list(labels)}, found {unknown}.")
        if labels is None and set(answers) <= CORRECTNESS_VALUES:
            raise ValueError(f"{where}: found only Inspect's correctness values {sorted(set(answers))} (whether the "
                             "answer was right), not the judge's labels; pass the judge's classes as labels= if these "
                             "are its labels, else use a scorer that sets score.answer to the label (judge_label).")
        models[log.eval.model] = answers
    return models


def judges_from_samples_df(frame, scorers=None, cluster_key=None):
    """``inspect_ai.analysis.samples_df(logs, columns=SampleSummary + SampleScores)`` -> the
    ``read_judges`` dict (one log: one judge per scorer). The default ``score_<scorer>`` column
    is ``score.value`` ("C"/"I"): the labels are in ``score_<scorer>_answer``, which
    ``SampleScores`` adds. Clusters as in ``read_judges``: the ``metadata_<cluster_key>``
    column, else the sample ids when a sample has several epochs (rows)."""
    scorers = scorers or sorted(column[len("score_"):] for column in frame.columns
                                if column.startswith("score_") and not column.endswith(("_answer", "_explanation",
                                                                                         "_reason", "_metadata")))
    references = [str(target) for target in frame["target"]]
    judges = {}
    for name in scorers:
        if f"score_{name}_answer" not in frame.columns:
            values = [str(value) for value in frame[f"score_{name}"]]
            check_labels(references, values, f"score_{name} (samples_df)")
            raise ValueError(f"score_{name}_answer: expected the judge's labels, found no such column; read the logs "
                             "with samples_df(..., columns=SampleSummary + SampleScores).")
        judges[name] = list(frame[f"score_{name}_answer"])
        check_labels(references, judges[name], f"score_{name}_answer")
    if cluster_key is not None:
        if f"metadata_{cluster_key}" not in frame.columns:
            raise ValueError(f"cluster_key: expected the column metadata_{cluster_key}, found none; read the logs with "
                             "samples_df(..., columns=SampleSummary + SampleScores).")
        clusters = list(frame[f"metadata_{cluster_key}"])
    else:  # the epochs of one sample: one item measured several times
        clusters = list(frame["id"]) if frame["id"].duplicated().any() else None
    return {"references": references, "judges": judges, "clusters": clusters}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+")
    parser.add_argument("--metric", default="balanced_accuracy", choices=("balanced_accuracy", "informedness"))
    parser.add_argument("--cluster-key")
    arguments = parser.parse_args()
    found = read_judges(arguments.logs, arguments.cluster_key)
    metric = load_metric(arguments.metric)
    if len(found["judges"]) == 1:
        (name, labels), = found["judges"].items()
        result = metric.compute(references=found["references"], predictions=labels, clusters=found["clusters"],
                                confidence_level=0.95, **with_no_label(found["references"], labels, {}, arguments.metric))
        low, high = result[f"{arguments.metric}_ci"]
        print(f"{name}: {result[arguments.metric]:.4f} [{low:.4f}, {high:.4f}]")
        return
    given = [label for labels in found["judges"].values() for label in labels]
    result = metric.compute(references=found["references"], judges=found["judges"], clusters=found["clusters"],
                            confidence_level=0.95, **with_no_label(found["references"], given, {}, arguments.metric))
    for entry in result["judge_ranking"]:
        low, high = entry[f"{arguments.metric}_ci"]
        print(f"{entry['name']}: {entry[arguments.metric]:.4f} [{low:.4f}, {high:.4f}]"
              f"{' (best set)' if entry['in_best_set'] else ''}")


if __name__ == "__main__":
    main()
