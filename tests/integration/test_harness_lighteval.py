"""examples/lighteval_judges.py against the real LightEval: its task built from the recipe's config
and read from the local golden set by LightEval's loader, the sample-level step (apply_metric) on
scripted responses, and the corpus step (MetricsLogger.aggregate): equal to a direct compute."""

import random
import sys

import pytest

from conftest import REPO_ROOT, load_module

sys.path.insert(0, str(REPO_ROOT / "examples"))
import lighteval_judges as recipe  # noqa: E402


def test_the_corpus_level_metric_equals_a_direct_compute():
    from lighteval.logging.info_loggers import MetricsLogger
    from lighteval.metrics import apply_metric
    from lighteval.models.model_output import ModelResponse
    from lighteval.tasks.lighteval_task import LightevalTask

    task = LightevalTask(recipe.judge_task())
    LightevalTask.load_datasets({task.full_name: task})  # the local folder: no download
    docs = task.get_docs()
    rng = random.Random(0)
    references, labels, clusters, responses = [], [], [], []
    for doc in docs:
        gold = doc.choices[doc.gold_index]
        label = gold if rng.random() < 0.8 else next(choice for choice in doc.choices if choice != gold)
        references.append(gold), labels.append(label), clusters.append(doc.specific["conversation"])
        responses.append(ModelResponse(text=[f"It is {label}."]))
    logger = MetricsLogger()
    for output in apply_metric(responses, docs, task.metrics):
        logger.log(task.full_name, output)
    logger.aggregate({task.full_name: task}, bootstrap_iters=0)
    found = logger.metric_aggregated[task.full_name]
    direct = load_module("balanced_accuracy").compute(references=references, predictions=labels, clusters=clusters,
                                                      confidence_level=0.95)
    assert len(docs) == 48 and direct["num_clusters"] == 16
    assert found["balanced_accuracy"] == pytest.approx(direct["balanced_accuracy"], abs=1e-12)
    assert [found["balanced_accuracy_ci_low"], found["balanced_accuracy_ci_high"]] == pytest.approx(
        direct["balanced_accuracy_ci"], abs=1e-12)
