"""Harness logs built offline for the harness tests: judges' labels on examples/golden_set, written
by the harnesses' own code (Inspect's scorer, results and log writer; lm-eval's evaluator and
its sample logger) with a scripted model instead of a real one (no weights, no network)."""

import asyncio
import json
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
GOLDEN_SET = [json.loads(line) for line in (REPO_ROOT / "examples" / "golden_set" / "test.jsonl").read_text().splitlines()]
LABELS = ("safe", "unsafe")


def judge_labels(accuracy, seed):
    """A judge's labels on the golden set: right with probability ``accuracy`` per item."""
    rng = np.random.default_rng(seed)
    return [row["label"] if rng.random() < accuracy else LABELS[1 - LABELS.index(row["label"])] for row in GOLDEN_SET]


# ------------------------------------------------------------------------------------- Inspect
def output_text(label):
    """The scripted model's output for ``label`` (None: an output that names no label)."""
    return "I cannot tell from this." if label is None else f"{label}."


def inspect_sample_scores(labels, scorer, outputs=None, epoch=1):
    """Inspect ``SampleScore`` s of ``scorer`` run on the golden set with the judge's ``labels``
    as the model's outputs (``outputs``: the raw output texts, default "<label>.")."""
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import SampleScore, Target
    from inspect_ai.solver import TaskState

    scores = []
    for row, label, text in zip(GOLDEN_SET, labels, outputs or [output_text(label) for label in labels]):
        state = TaskState(model="scripted/judge", sample_id=row["id"], epoch=epoch, input=row["response"], messages=[],
                          target=Target(row["label"]), output=ModelOutput.from_content("scripted/judge", text))
        score = asyncio.run(scorer(state, Target(row["label"])))
        scores.append(SampleScore(score=score, sample_id=row["id"],
                                  sample_metadata={"conversation": row["conversation"]}))
    return scores


def inspect_results(sample_scores, scorer, name="judge_label"):
    """Inspect's own results step (``eval_results``) over the scores: what a run logs."""
    from inspect_ai._eval.task.results import eval_results

    results, _ = eval_results(len(sample_scores), [{name: score} for score in sample_scores], None, [scorer], None)
    return results


def inspect_epoch_scores(epoch_labels, scorer):
    """``inspect_sample_scores`` of each epoch (``epoch_labels``: one list of labels per
    epoch), in the order Inspect scores them: epoch by epoch."""
    return [score for epoch, labels in enumerate(epoch_labels, 1)
            for score in inspect_sample_scores(labels, scorer, epoch=epoch)]


def write_inspect_log(path, model, scorers, epochs=1):
    """An Inspect log of one model, written by ``write_eval_log``; ``scorers``: name ->
    (scorer, labels) (several scorers: several judges in one log). With ``epochs`` > 1 the
    labels are one list per epoch, and the log holds every epoch's samples, the results of
    Inspect's default epoch reducer ("mean") and its per-sample reductions, as a run does."""
    from inspect_ai._eval.task.results import eval_results
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.model import ModelOutput

    per_epoch = {name: [labels] if epochs == 1 else labels for name, (_, labels) in scorers.items()}
    per_scorer = {name: inspect_epoch_scores(per_epoch[name], scorer) for name, (scorer, _) in scorers.items()}
    first = next(iter(per_epoch.values()))
    rows = [(epoch, i, row) for epoch in range(1, epochs + 1) for i, row in enumerate(GOLDEN_SET)]
    samples = [EvalSample(id=row["id"], epoch=epoch, input=row["response"], target=row["label"],
                          metadata={"conversation": row["conversation"]},
                          output=ModelOutput.from_content(model, output_text(first[epoch - 1][i])),
                          scores={name: per_scorer[name][k].score for name in scorers})
               for k, (epoch, i, row) in enumerate(rows)]
    results, reductions = eval_results(len(GOLDEN_SET), [{name: per_scorer[name][k] for name in scorers}
                                                         for k in range(len(rows))],
                                       None, [scorer for scorer, _ in scorers.values()], None, scorer_names=list(scorers))
    log = EvalLog(eval=EvalSpec(created="2026-01-01T00:00:00+00:00", task="judge_labels", dataset=EvalDataset(name="golden_set"),
                                model=model, config=EvalConfig(epochs=epochs)),
                  status="success", samples=samples, results=results)
    log.reductions = reductions  # after: EvalLog's validator would assign it into the results model
    write_eval_log(log, str(path))
    return Path(path)


# ------------------------------------------------------------------------------------- lm-eval
def lm_eval_run(labels, output_path, model_name, bootstrap_iters=0, task="judge_labels"):
    """lm-eval's ``simple_evaluate`` of the task in examples/lm_eval_judge (or ``task``, a task
    config dict) with a scripted judge answering ``labels`` (None: an answer naming no label),
    its samples logged by lm-eval's ``EvaluationTracker`` (``--log_samples``) under
    ``output_path/<model_name>/``; returns (results, samples file)."""
    from lm_eval import simple_evaluate
    from lm_eval.api.model import LM
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    answers = {row["id"]: "Hard to say." if label is None else f"{label}, I think." for row, label in zip(GOLDEN_SET, labels)}
    task_name = task if isinstance(task, str) else task["task"]

    class ScriptedJudge(LM):
        def generate_until(self, requests, disable_tqdm=False):
            return [answers[request.doc["id"]] for request in requests]

        def loglikelihood(self, requests, disable_tqdm=False):
            raise NotImplementedError

        def loglikelihood_rolling(self, requests, disable_tqdm=False):
            raise NotImplementedError

    tracker = EvaluationTracker(output_path=str(output_path))
    results = simple_evaluate(model=ScriptedJudge(), tasks=[task], bootstrap_iters=bootstrap_iters,
                              task_manager=TaskManager(include_path=str(REPO_ROOT / "examples" / "lm_eval_judge"),
                                                           include_defaults=False),  # not lm-eval's 10,000 YAMLs
                              log_samples=True, evaluation_tracker=tracker)
    # simple_evaluate names a model object at random; the CLI names it from --model_args.
    tracker.general_config_tracker.model_name_sanitized = model_name
    tracker.save_results_aggregated(results=results, samples=results["samples"])  # as the CLI: dates the files
    tracker.save_results_samples(task_name=task_name, samples=results["samples"][task_name])
    return results, next((Path(output_path) / model_name).glob(f"samples_{task_name}_*.jsonl"))
