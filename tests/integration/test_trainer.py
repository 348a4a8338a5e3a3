"""A real transformers Trainer with every module, on tiny randomly initialised BERT models.

The models are built from a config (nothing is downloaded) and run on CPU. The values the
Trainer logs are checked against scikit-learn, torchmetrics or the textbook formula on the
logits the same model produces for the same data.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file
from sklearn.metrics import balanced_accuracy_score, confusion_matrix
from torchmetrics.classification import MulticlassAccuracy
from transformers import (
    BertConfig,
    BertForSequenceClassification,
    BertForTokenClassification,
    Trainer,
    TrainingArguments,
)

from shared.tooling.modules import MODULE_NAMES

NUM_CLASSES = 4
NUM_TAGS = 3
VOCAB_SIZE = 40
SEQUENCE_LENGTH = 8
K_LIST = [1, 2]


def tiny_bert(model_class, seed=0, **config):
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=VOCAB_SIZE,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
        **config,
    )
    return model_class(config)


def training_args(tmp_path, **overrides):
    args = dict(
        output_dir=str(tmp_path / "trainer"),
        per_device_train_batch_size=8,
        per_device_eval_batch_size=8,
        num_train_epochs=1,
        learning_rate=1e-2,
        report_to="none",
        use_cpu=True,
        disable_tqdm=True,
        save_strategy="no",
        logging_strategy="no",
        seed=0,
    )
    args.update(overrides)
    return TrainingArguments(**args)


def sequence_dataset(size, seed, labels_of):
    """Token ids whose label is a function of the first token, so a model can learn it."""
    rng = np.random.default_rng(seed)
    input_ids = rng.integers(1, VOCAB_SIZE, size=(size, SEQUENCE_LENGTH))
    input_ids[:8, 0] = np.arange(8) + 1  # the first rows cover every class and label value
    labels = labels_of(input_ids[:, 0])
    return [
        {"input_ids": torch.tensor(ids), "attention_mask": torch.ones(SEQUENCE_LENGTH, dtype=torch.long), "labels": label}
        for ids, label in zip(input_ids, labels)
    ]


def multiclass_dataset(size, seed):
    return sequence_dataset(size, seed, lambda first: [int(c) for c in first % NUM_CLASSES])


def multilabel_dataset(size, seed):
    """Three tags: the low three bits of the first token (rows 0..7 give every tag both values)."""

    def tags_of(first):
        return [torch.tensor([(token >> bit) & 1 for bit in range(NUM_TAGS)], dtype=torch.float32) for token in first]

    return sequence_dataset(size, seed, tags_of)


# ---------------------------------------------------------------------- independent peers


def informedness_by_hand(references, predictions, num_classes, average="bookmaker"):
    """Powers' Bookmaker Informedness, sum_c bias_c * (TPR_c - FPR_c), or the macro mean of
    TPR_c - FPR_c, from a confusion matrix."""
    matrix = confusion_matrix(references, predictions, labels=list(range(num_classes))).astype(float)
    total = matrix.sum()
    values, weights = [], []
    for c in range(num_classes):
        positives = matrix[c].sum()
        predicted = matrix[:, c].sum()
        tpr = matrix[c, c] / positives
        fpr = (predicted - matrix[c, c]) / (total - positives)
        values.append(tpr - fpr)
        weights.append(predicted / total)
    return float(np.dot(weights, values)) if average == "bookmaker" else float(np.mean(values))


def torchmetrics_topk(logits, references, k):
    metric = MulticlassAccuracy(num_classes=logits.shape[1], top_k=k, average="macro")
    return float(metric(torch.as_tensor(logits), torch.as_tensor(references)))


@pytest.fixture
def metrics(load):
    """The four modules, each loaded from its folder as `evaluate.load` does."""
    return {
        name: load(name)
        for name in MODULE_NAMES
    }


def make_compute_metrics(metrics, **extra):
    """The README recipe: one compute_metrics for a sequence classifier, three modules, macro
    informedness beside balanced accuracy (test_the_readme_recipe_... runs the README's own code).

    Unlike the README, it keeps the {k: value} dict of k_list: checkpoints must survive it too.
    """

    def compute_metrics(eval_pred):
        logits, labels = eval_pred
        predictions = logits.argmax(-1)
        macro = metrics["informedness"].compute(predictions=predictions, references=labels, average="macro")
        return {
            **metrics["balanced_accuracy"].compute(predictions=predictions, references=labels, **extra),
            "macro_informedness": macro["informedness"],
            **metrics["balanced_topk_accuracy"].compute(predictions=logits, references=labels, k_list=K_LIST),
        }

    return compute_metrics


# ---------------------------------------------------------------------- compute_metrics


def test_trainer_evaluate_logs_every_module(tmp_path, metrics):
    eval_dataset = multiclass_dataset(36, seed=1)
    trainer = Trainer(
        model=tiny_bert(BertForSequenceClassification, num_labels=NUM_CLASSES),
        args=training_args(tmp_path),
        eval_dataset=eval_dataset,
        compute_metrics=make_compute_metrics(metrics),
    )
    logged = trainer.evaluate()
    logits = trainer.predict(eval_dataset).predictions
    references = np.array([row["labels"] for row in eval_dataset])
    predictions = logits.argmax(-1)
    assert len(set(predictions.tolist())) > 1  # not a constant predictor, so the check means something

    assert logged["eval_balanced_accuracy"] == pytest.approx(balanced_accuracy_score(references, predictions), abs=1e-12)
    assert logged["eval_macro_informedness"] == pytest.approx(
        informedness_by_hand(references, predictions, NUM_CLASSES, "macro"), abs=1e-12)
    bookmaker = metrics["informedness"].compute(predictions=predictions, references=references)["informedness"]
    assert bookmaker == pytest.approx(informedness_by_hand(references, predictions, NUM_CLASSES), abs=1e-12)
    for k in K_LIST:
        expected = torchmetrics_topk(logits, references, k)
        assert logged[f"eval_balanced_top{k}_accuracy"] == pytest.approx(expected, abs=1e-6)  # torchmetrics: float32
    json.dumps(logged, allow_nan=False)  # plain, finite Python values


def test_trainer_evaluate_logs_the_multilabel_head(tmp_path, metrics):
    multilabel = metrics["balanced_accuracy_multilabel"]

    def compute_metrics(eval_pred):
        logits, labels = eval_pred
        probabilities = 1 / (1 + np.exp(-logits))
        return multilabel.compute(predictions=probabilities, references=labels.astype(int), from_probas=True, return_per_label=True)

    eval_dataset = multilabel_dataset(36, seed=2)
    trainer = Trainer(
        model=tiny_bert(BertForSequenceClassification, num_labels=NUM_TAGS, problem_type="multi_label_classification"),
        args=training_args(tmp_path),
        eval_dataset=eval_dataset,
        compute_metrics=compute_metrics,
    )
    logged = trainer.evaluate()
    logits = trainer.predict(eval_dataset).predictions
    references = np.stack([row["labels"].numpy() for row in eval_dataset]).astype(int)
    predictions = (1 / (1 + np.exp(-logits)) >= 0.5).astype(int)
    per_label = [balanced_accuracy_score(references[:, label], predictions[:, label]) for label in range(NUM_TAGS)]
    assert logged["eval_per_label_ba"] == pytest.approx(per_label, abs=1e-12)
    assert logged["eval_balanced_accuracy"] == pytest.approx(np.mean(per_label), abs=1e-12)
    assert "eval_loss" in logged  # the BCE loss of the multi-label head ran
    json.dumps(logged, allow_nan=False)


# ---------------------------------------------------------------------- best model and checkpoints


def test_metric_for_best_model_load_best_model_at_end_and_checkpoints(tmp_path, metrics):
    trainer = Trainer(
        model=tiny_bert(BertForSequenceClassification, num_labels=NUM_CLASSES),
        args=training_args(
            tmp_path,
            num_train_epochs=3,
            eval_strategy="epoch",
            save_strategy="epoch",
            metric_for_best_model="balanced_accuracy",
            load_best_model_at_end=True,
        ),
        train_dataset=multiclass_dataset(64, seed=3),
        eval_dataset=multiclass_dataset(32, seed=4),
        # Full results, per-class lists and the {k: value} dict included: all must survive checkpoints.
        compute_metrics=make_compute_metrics(metrics, return_per_class=True),
    )
    trainer.train()

    checkpoints = sorted((tmp_path / "trainer").glob("checkpoint-*"), key=lambda path: int(path.name.split("-")[1]))
    assert len(checkpoints) == 3
    evaluations = [entry for entry in trainer.state.log_history if "eval_balanced_accuracy" in entry]
    assert len(evaluations) == 3
    for checkpoint in checkpoints:
        state = json.loads((checkpoint / "trainer_state.json").read_text())  # the checkpoint's state is valid JSON
        logged = [entry for entry in state["log_history"] if "eval_balanced_accuracy" in entry][-1]
        assert logged["step"] == int(checkpoint.name.split("-")[1])
        assert isinstance(logged["eval_per_class_recall"], list) and len(logged["eval_per_class_recall"]) == NUM_CLASSES
        assert set(logged["eval_balanced_topk_accuracy"]) == {str(k) for k in K_LIST}

    # The best checkpoint is the first with the highest balanced accuracy, and it is the model we end with.
    scores = [entry["eval_balanced_accuracy"] for entry in evaluations]
    assert len(set(scores)) > 1  # the model learns, so choosing the best epoch is a real choice
    best = evaluations[scores.index(max(scores))]
    assert trainer.state.best_metric == max(scores)
    assert trainer.state.best_model_checkpoint == str(tmp_path / "trainer" / f"checkpoint-{best['step']}")
    saved = load_file(str(Path(trainer.state.best_model_checkpoint) / "model.safetensors"))
    current = trainer.model.state_dict()
    assert saved and all(torch.equal(current[name], tensor) for name, tensor in saved.items())
    assert trainer.evaluate()["eval_balanced_accuracy"] == trainer.state.best_metric


def readme_recipe(model):
    """The README's Trainer page's (docs/trainer.md) compute_metrics and its metric_for_best_model, run as written (the modules
    loaded from their folders, ``model`` the Trainer's)."""
    import os
    import re

    section = (Path(__file__).resolve().parents[2] / "docs" / "trainer.md").read_text(encoding="utf-8")
    assert section.startswith("# Use with 🤗 Transformers' Trainer\n")
    code = section.split("```python", 1)[1].split("```", 1)[0]
    root = str(Path(__file__).resolve().parents[2])
    namespace = {"model": model}
    exec(code.replace('"<namespace>/', f'"{root}{os.sep}'), namespace)
    best = re.search(r'metric_for_best_model="(\w+)"', section).group(1)
    return namespace["compute_metrics"], best


def test_the_readme_recipe_trains_a_three_class_head_and_picks_the_best_epoch(tmp_path):
    """Was: the README's k_list=[1, 5] failed at the end of the first epoch on a 3-class head."""
    model = tiny_bert(BertForSequenceClassification, num_labels=3)
    compute_metrics, best = readme_recipe(model)
    assert best == "balanced_accuracy"

    def three_classes(size, seed):
        return sequence_dataset(size, seed, lambda first: [int(c) for c in first % 3])

    eval_dataset = three_classes(30, seed=8)
    trainer = Trainer(
        model=model,
        args=training_args(tmp_path, num_train_epochs=2, eval_strategy="epoch", save_strategy="epoch",
                           metric_for_best_model=best, load_best_model_at_end=True),
        train_dataset=three_classes(48, seed=7),
        eval_dataset=eval_dataset,
        compute_metrics=compute_metrics,
    )
    trainer.train()
    evaluations = [entry for entry in trainer.state.log_history if "eval_balanced_accuracy" in entry]
    assert len(evaluations) == 2
    for entry in evaluations:
        assert {"eval_balanced_accuracy", "eval_macro_informedness", "eval_balanced_top1_accuracy",
                "eval_balanced_top3_accuracy"} <= set(entry)
        assert "eval_balanced_topk_accuracy" not in entry  # popped: loggers get scalars only
    assert trainer.state.best_metric == max(entry["eval_balanced_accuracy"] for entry in evaluations)
    logits = trainer.predict(eval_dataset).predictions
    references = np.array([row["labels"] for row in eval_dataset])
    predictions = logits.argmax(-1)
    logged = trainer.evaluate()
    assert logged["eval_balanced_accuracy"] == pytest.approx(balanced_accuracy_score(references, predictions), abs=1e-12)
    assert logged["eval_macro_informedness"] == pytest.approx(informedness_by_hand(references, predictions, 3, "macro"), abs=1e-12)
    assert logged["eval_balanced_top3_accuracy"] == 1.0  # every class is in the top 3 of 3


# ---------------------------------------------------------------------- batch_eval_metrics


def test_batch_eval_metrics_streams_batches_and_equals_the_whole_set(tmp_path, metrics):
    streamed_batches = []

    def compute_metrics(eval_pred, compute_result):
        logits, labels = eval_pred.predictions, eval_pred.label_ids
        assert isinstance(logits, torch.Tensor)  # the Trainer hands over tensors in this mode
        streamed_batches.append(len(labels))
        predictions = logits.argmax(-1)
        metrics["balanced_accuracy"].add_batch(predictions=predictions, references=labels)
        metrics["informedness"].add_batch(predictions=predictions, references=labels)
        metrics["balanced_topk_accuracy"].add_batch(predictions=logits, references=labels)
        if compute_result:
            return {
                **metrics["balanced_accuracy"].compute(),
                "macro_informedness": metrics["informedness"].compute(average="macro")["informedness"],
                **metrics["balanced_topk_accuracy"].compute(k_list=K_LIST),
            }

    eval_dataset = multiclass_dataset(36, seed=5)
    trainer = Trainer(
        model=tiny_bert(BertForSequenceClassification, num_labels=NUM_CLASSES),
        args=training_args(tmp_path, batch_eval_metrics=True),
        eval_dataset=eval_dataset,
        compute_metrics=compute_metrics,
    )
    streamed = trainer.evaluate()
    assert streamed_batches == [8, 8, 8, 8, 4]

    logits = trainer.predict(eval_dataset).predictions
    references = np.array([row["labels"] for row in eval_dataset])
    whole = make_compute_metrics(metrics)((logits, references))
    for key, value in whole.items():
        assert streamed[f"eval_{key}"] == value, key


def test_batch_eval_metrics_streams_the_multilabel_head(tmp_path, metrics):
    multilabel = metrics["balanced_accuracy_multilabel"]

    def compute_metrics(eval_pred, compute_result):
        multilabel.add_batch(predictions=torch.sigmoid(eval_pred.predictions), references=eval_pred.label_ids.int())
        if compute_result:
            return multilabel.compute(from_probas=True, return_per_label=True)

    eval_dataset = multilabel_dataset(36, seed=6)
    trainer = Trainer(
        model=tiny_bert(BertForSequenceClassification, num_labels=NUM_TAGS, problem_type="multi_label_classification"),
        args=training_args(tmp_path, batch_eval_metrics=True),
        eval_dataset=eval_dataset,
        compute_metrics=compute_metrics,
    )
    streamed = trainer.evaluate()
    logits = torch.as_tensor(trainer.predict(eval_dataset).predictions)
    references = torch.stack([row["labels"] for row in eval_dataset]).int()
    whole = multilabel.compute(predictions=torch.sigmoid(logits), references=references, from_probas=True, return_per_label=True)
    for key, value in whole.items():
        assert streamed[f"eval_{key}"] == value, key


# ---------------------------------------------------------------------- token classification


def token_dataset(size, seed):
    """Sentences of 3..12 tokens; position 0 plays [CLS] and is labelled -100 like padding."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(size):
        length = int(rng.integers(3, 13))
        input_ids = rng.integers(1, VOCAB_SIZE, size=length)
        labels = input_ids % NUM_TAGS
        labels[0] = -100
        rows.append({"input_ids": input_ids, "labels": labels})
    return rows


def pad_batch(rows):
    """Pad each batch to its longest row: labels with -100, so the Trainer also pads across batches."""
    width = max(len(row["input_ids"]) for row in rows)
    batch = {"input_ids": [], "attention_mask": [], "labels": []}
    for row in rows:
        padding = width - len(row["input_ids"])
        batch["input_ids"].append(np.pad(row["input_ids"], (0, padding)))
        batch["attention_mask"].append(np.pad(np.ones(len(row["input_ids"]), dtype=np.int64), (0, padding)))
        batch["labels"].append(np.pad(row["labels"], (0, padding), constant_values=-100))
    return {key: torch.tensor(np.stack(value)) for key, value in batch.items()}


def test_token_classification_with_ignore_index(tmp_path, metrics):
    seen_shapes = []

    def compute_metrics(eval_pred):
        logits, labels = eval_pred
        predictions = logits.argmax(-1)
        seen_shapes.append(labels.shape)
        return {
            **metrics["balanced_accuracy"].compute(predictions=predictions, references=labels, ignore_index=-100),
            **metrics["informedness"].compute(predictions=predictions, references=labels, ignore_index=-100),
        }

    eval_dataset = token_dataset(30, seed=7)
    trainer = Trainer(
        model=tiny_bert(BertForTokenClassification, num_labels=NUM_TAGS),
        args=training_args(tmp_path, num_train_epochs=2),
        train_dataset=token_dataset(60, seed=8),
        eval_dataset=eval_dataset,
        data_collator=pad_batch,
        compute_metrics=compute_metrics,
    )
    trainer.train()
    logged = trainer.evaluate()
    assert len(seen_shapes) == 1 and len(seen_shapes[0]) == 2  # (sentences, tokens) arrays, -100 padded

    output = trainer.predict(eval_dataset)
    logits, labels = output.predictions, output.label_ids
    kept = labels != -100
    assert kept.sum() == sum(len(row["labels"]) - 1 for row in eval_dataset)
    references, predictions = labels[kept], logits.argmax(-1)[kept]
    assert logged["eval_balanced_accuracy"] == pytest.approx(balanced_accuracy_score(references, predictions), abs=1e-12)
    expected = informedness_by_hand(references, predictions, NUM_TAGS)
    assert logged["eval_informedness"] == pytest.approx(expected, abs=1e-12)
    assert not math.isnan(logged["eval_informedness"])
