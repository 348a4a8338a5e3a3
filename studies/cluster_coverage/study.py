"""Cluster study: do 95% intervals cover the truth when the counted items are not independent?

Pixels of one image, tokens of one sequence, the labels of one multilabel sample and the
golden items of one conversation share a difficulty: they are right or wrong together. An
interval that counts them as independent draws is too narrow by the design effect and
covers far less than it says. This script simulates such data from a known
generating model and measures, for the modules as a user calls them (``evaluate.load`` on
this repository's folders, after ``python -m shared.tooling.vendor``), how often nominal 95%
intervals hold the true value:

* with clusters: an N-d input as it comes (each element of the leading axis is one cluster
  by default: an image, a sequence, a multilabel sample), a 1-D golden set with
  ``clusters=`` the conversation ids;
* as i.i.d. items: the same data treated as independent items: N-d inputs flattened to 1-D,
  1-D golden sets with ``clusters=np.arange(n)`` (or no ``clusters`` where the modules do
  not accept it yet), multilabel counts passed as ``confusion_matrix=`` (per-label 2 x 2
  tables carry no sample structure).

Cases:

* A. segmentation: 20 images of 32 x 32, 3 classes, each image with its own class shares
  and its own difficulty -> ``balanced_accuracy``;
* B. token classification: 40 sequences of 20-50 tokens, 5 tags, padded to 50 with -100,
  ``ignore_index=-100``, per-sequence difficulty -> ``informedness``, ``average="macro"``;
* C. multilabel: 8 labels (prevalence 40% ... 3%), n = 300, 10% "hard" samples with 70% of
  their labels flipped -> ``balanced_accuracy_multilabel``, macro and micro;
* D. the same with 20% hard samples at 50% flips, n = 1000;
* E. 1-D golden sets, 3-10 items per conversation, conversation-level class shares and
  difficulty, binary and 3 classes -> ``balanced_accuracy`` and ``informedness``;
* F. few clusters (G = 10, 20, 50: conversations and images) and clusters of unequal size
  (geometric and lognormal sizes; and sizes that go with difficulty).

Every ``ci_method`` the module offers is measured ("score", the default, "agresti_coull", "wilson", "bootstrap";
multi-class informedness: "score", the default, "bootstrap", and "delta" where the module accepts it).

The true value is the population value of the metric under the generating model: the metric
of the expected confusion matrix (per-cluster expected counts, summed over 2,000,000
simulated clusters; for A and B also in closed form, printed beside it), not a sample
estimate. For the multilabel cases it is exact: flips do not depend on the truth, so every
label's TPR and TNR, and every average, equal one minus the mean flip rate.

Coverage is among the sets whose interval is given (a set whose value is undefined, e.g. a
class absent from every image of the set, is counted apart as "undefined"; a NaN interval
for a defined value as "refused"). Its Monte-Carlo standard error is sqrt(p (1 - p) / sets).

Usage (from the repository root; the full run takes about 25 minutes on one core)::

    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/cluster_coverage/study.py   # every case, 1,000 sets per setting -> results.md
    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/cluster_coverage/study.py --quick   # 100 sets, cases A, B, C, 1 row of E
    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/cluster_coverage/study.py --cases A,C --sets 300 --output /tmp/out.md
"""

import argparse
import datetime
import math
import os
import sys
import time
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import evaluate  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
DEFAULT_OUTPUT = HERE / "results.md"
LEVEL = 0.95
TARGET = 0.93  # the least coverage accepted for a nominal 95% interval with >= 20 clusters
TRUTH_CLUSTERS = 2_000_000  # clusters simulated for the population value
QUICK_CASES = "A,B,C,E"


# ---------------------------------------------------------------- generating models


def categorical(rng, probabilities):
    """One draw per row of ``probabilities`` (rows sum to 1), by inverse CDF."""
    cumulative = np.cumsum(probabilities, axis=-1)
    draws = (cumulative < rng.random(probabilities.shape[:-1])[..., None]).sum(axis=-1)
    return np.minimum(draws, probabilities.shape[-1] - 1)


def expit(x):
    return 1.0 / (1.0 + np.exp(-x))


def logit(p):
    return math.log(p / (1.0 - p))


def uniform_errors(num_classes):
    """A wrong prediction is any other class, equally likely."""
    errors = np.full((num_classes, num_classes), 1.0 / (num_classes - 1))
    np.fill_diagonal(errors, 0.0)
    return errors


def errors_towards(num_classes, sink, share):
    """A wrong prediction is class ``sink`` with probability ``share`` (the "O" tag of NER),
    else any other wrong class, equally likely."""
    errors = np.zeros((num_classes, num_classes))
    for reference in range(num_classes):
        others = [c for c in range(num_classes) if c not in (reference, sink)]
        if reference == sink:
            errors[reference, others] = 1.0 / len(others)
        else:
            errors[reference, sink] = share
            errors[reference, others] = (1.0 - share) / len(others)
    return errors


@dataclass
class ClusterModel:
    """Clusters (images, sequences, conversations) of items; each cluster draws its size, its
    class shares (Dirichlet around ``prior``) and its own difficulty, which sets the recall of
    every class in it; a wrong prediction follows ``errors`` (rows: reference class).

    Difficulty: ``"beta"``: a per-cluster accuracy a ~ Beta(alpha, beta) and recall_c =
    a ** gamma_c (gamma > 1: a harder class); ``"logit"``: recall_c = expit(mu_c - sigma * u),
    u ~ N(0, 1) per cluster.

    Sizes: ``("fixed", s)``, ``("uniform", low, high)`` (inclusive), ``("geometric", mean)``
    (sizes 1, 2, ...), ``("lognormal", median, sigma)`` (at least 1), or
    ``("lognormal_harder", median, sigma, rho)``: lognormal sizes whose log has correlation
    ``rho`` with the difficulty u (larger conversations are harder).
    """

    num_classes: int
    prior: tuple
    concentration: float  # Dirichlet concentration of the per-cluster class shares (inf: fixed shares)
    difficulty: tuple
    sizes: tuple
    errors: np.ndarray = None

    def __post_init__(self):
        if self.errors is None:
            self.errors = uniform_errors(self.num_classes)

    def draw(self, rng, num_clusters):
        """(sizes (G,), class shares (G, K), prediction rows (G, K, K)) of ``num_clusters`` clusters."""
        kind, *size_args = self.sizes
        latent = rng.standard_normal(num_clusters)
        if kind == "fixed":
            sizes = np.full(num_clusters, size_args[0])
        elif kind == "uniform":
            sizes = rng.integers(size_args[0], size_args[1] + 1, num_clusters)
        elif kind == "geometric":
            sizes = rng.geometric(1.0 / size_args[0], num_clusters)
        elif kind == "lognormal":
            sizes = np.maximum(1, np.rint(size_args[0] * np.exp(size_args[1] * rng.standard_normal(num_clusters))))
        elif kind == "lognormal_harder":
            median, sigma, rho = size_args
            size_normal = rho * latent + math.sqrt(1 - rho**2) * rng.standard_normal(num_clusters)
            sizes = np.maximum(1, np.rint(median * np.exp(sigma * size_normal)))
        else:
            raise ValueError(f"sizes: unknown kind {kind!r}")
        prior = np.asarray(self.prior, dtype=float)
        if math.isinf(self.concentration):
            shares = np.broadcast_to(prior, (num_clusters, prior.size))
        else:
            shares = rng.dirichlet(self.concentration * prior, num_clusters)
        kind, *args = self.difficulty
        if kind == "beta":
            alpha, beta, gammas = args
            accuracy = rng.beta(alpha, beta, num_clusters)
            recalls = accuracy[:, None] ** np.asarray(gammas, dtype=float)
        else:
            mus, sigma = args
            recalls = expit(np.asarray(mus, dtype=float) - sigma * latent[:, None])
        identity = np.eye(self.num_classes)
        rows = recalls[..., None] * identity + (1.0 - recalls)[..., None] * self.errors
        return sizes.astype(np.int64), shares, rows

    def items(self, rng, num_clusters):
        """(cluster of each item, reference, prediction) of one simulated set, items in cluster order."""
        sizes, shares, rows = self.draw(rng, num_clusters)
        owner = np.repeat(np.arange(num_clusters), sizes)
        references = categorical(rng, shares[owner])
        predictions = categorical(rng, rows[owner, references])
        return owner, references, predictions

    def population_confusion(self, rng, num_clusters=TRUTH_CLUSTERS, chunk=200_000):
        """Expected confusion counts per cluster, summed over ``num_clusters`` clusters."""
        total = np.zeros((self.num_classes, self.num_classes))
        for start in range(0, num_clusters, chunk):
            sizes, shares, rows = self.draw(rng, min(chunk, num_clusters - start))
            total += np.einsum("g,gr,grp->rp", sizes.astype(float), shares, rows)
        return total

    def closed_form_confusion(self):
        """The expected confusion shares where sizes, shares and a Beta difficulty are independent."""
        kind, alpha, beta, gammas = self.difficulty
        assert kind == "beta" and self.sizes[0] in ("fixed", "uniform")
        # E[a^g] for a ~ Beta(alpha, beta)
        moments = np.array([math.exp(math.lgamma(alpha + g) + math.lgamma(alpha + beta) - math.lgamma(alpha) - math.lgamma(alpha + beta + g))
                            for g in gammas])
        rows = moments[:, None] * np.eye(self.num_classes) + (1.0 - moments)[:, None] * self.errors
        return np.asarray(self.prior, dtype=float)[:, None] * rows


@dataclass
class MultilabelModel:
    """n samples with L independent labels (prevalences ``prevalences``); a sample is "hard"
    with probability ``hard_share`` and then each of its predictions is flipped with
    probability ``hard_flip``, else ``easy_flip``: the labels' errors come together."""

    prevalences: tuple
    hard_share: float
    hard_flip: float
    easy_flip: float

    def rows(self, rng, num_samples):
        prevalences = np.asarray(self.prevalences)
        truth = rng.random((num_samples, prevalences.size)) < prevalences
        hard = rng.random((num_samples, 1)) < self.hard_share
        flip = rng.random((num_samples, prevalences.size)) < np.where(hard, self.hard_flip, self.easy_flip)
        return truth.astype(np.int64), (truth ^ flip).astype(np.int64)

    def truth(self):
        """Flips do not depend on the truth: every label's TPR = TNR = 1 - mean flip rate, so its
        BA, and the macro, weighted and micro averages, are that too."""
        return 1.0 - (self.hard_share * self.hard_flip + (1.0 - self.hard_share) * self.easy_flip)


# ---------------------------------------------------------------- population values (independent of the modules)


def balanced_accuracy_of(confusion):
    return float(np.mean(np.diag(confusion) / confusion.sum(axis=1)))


def informedness_of(confusion, average):
    """J_c = TPR_c - FPR_c one-vs-rest, averaged: bookmaker (prediction shares), macro, weighted."""
    total = confusion.sum()
    references, predicted, hits = confusion.sum(axis=1), confusion.sum(axis=0), np.diag(confusion)
    per_class = hits / references - (predicted - hits) / (total - references)
    if confusion.shape[0] == 2:
        return float(per_class[0])  # Youden's J, the same for both classes
    weights = {"bookmaker": predicted / total, "macro": np.full(len(hits), 1.0 / len(hits)), "weighted": references / total}[average]
    return float(np.sum(weights * per_class))


# ---------------------------------------------------------------- settings


@dataclass
class Setting:
    case: str
    label: str
    layout: str  # "images" (G, 32, 32), "tokens" (N, 50) padded with -100, "conversations" (1-D + clusters=), "multilabel" (n, L)
    model: object
    clusters: int  # G: images, sequences, conversations or multilabel samples per set
    metric: str  # module folder
    methods: tuple
    options: dict = field(default_factory=dict)
    averages: tuple = (None,)  # multilabel: several averages on the same sets


SEGMENTATION = ClusterModel(3, (0.6, 0.3, 0.1), 10.0, ("beta", 8.0, 2.0, (0.5, 1.0, 2.0)), ("fixed", 32 * 32))
TOKENS = ClusterModel(5, (0.6, 0.15, 0.1, 0.1, 0.05), 20.0, ("beta", 9.0, 1.5, (0.5, 1.0, 1.5, 1.5, 2.0)), ("uniform", 20, 50),
                      errors=errors_towards(5, sink=0, share=0.6))
BINARY_CONVERSATIONS = ClusterModel(2, (0.7, 0.3), 3.0, ("logit", (logit(0.9), logit(0.8)), 1.0), ("uniform", 3, 10))
THREE_CLASS_CONVERSATIONS = ClusterModel(3, (0.5, 0.3, 0.2), 4.0, ("logit", (logit(0.88), logit(0.8), logit(0.72)), 1.0), ("uniform", 3, 10))
MULTILABEL_PREVALENCES = tuple(float(p) for p in np.round(np.geomspace(0.40, 0.03, 8), 3))
BA_METHODS = ("score", "agresti_coull", "wilson", "bootstrap")
MULTICLASS_J_METHODS = ("score", "bootstrap", "delta")


def unequal(model, sizes):
    return ClusterModel(model.num_classes, model.prior, model.concentration, model.difficulty, sizes, model.errors)


def settings():
    rows = [
        Setting("A", "segmentation, 20 images 32x32, 3 classes", "images", SEGMENTATION, 20, "balanced_accuracy", BA_METHODS,
                {"num_classes": 3}),
        Setting("B", "tokens, 40 sequences of 20-50, 5 tags, -100 padding", "tokens", TOKENS, 40, "informedness", MULTICLASS_J_METHODS,
                {"num_classes": 5, "average": "macro", "ignore_index": -100}),
    ]
    for case, hard_share, hard_flip, size in (("C", 0.1, 0.7, 300), ("D", 0.2, 0.5, 1000)):
        model = MultilabelModel(MULTILABEL_PREVALENCES, hard_share, hard_flip, 0.05)
        rows.append(Setting(case, f"multilabel, 8 labels, n = {size}, {hard_share:.0%} hard at {hard_flip:.0%} flips", "multilabel", model,
                            size, "balanced_accuracy_multilabel", BA_METHODS, averages=("macro", "micro")))
    for clusters in (30, 50):
        for metric, methods in (("balanced_accuracy", BA_METHODS), ("informedness", BA_METHODS)):
            rows.append(Setting("E", f"binary, {clusters} conversations of 3-10 items", "conversations", BINARY_CONVERSATIONS, clusters,
                                metric, methods, {"num_classes": 2}))
        rows.append(Setting("E", f"3 classes, {clusters} conversations of 3-10 items", "conversations", THREE_CLASS_CONVERSATIONS,
                            clusters, "balanced_accuracy", BA_METHODS, {"num_classes": 3}))
        rows.append(Setting("E", f"3 classes, {clusters} conversations of 3-10 items", "conversations", THREE_CLASS_CONVERSATIONS,
                            clusters, "informedness", MULTICLASS_J_METHODS, {"num_classes": 3}))
    for clusters in (10, 20, 50):
        rows.append(Setting("F", f"binary, {clusters} conversations of 3-10 items", "conversations", BINARY_CONVERSATIONS, clusters,
                            "balanced_accuracy", BA_METHODS, {"num_classes": 2}))
        rows.append(Setting("F", f"3 classes, {clusters} conversations of 3-10 items", "conversations", THREE_CLASS_CONVERSATIONS,
                            clusters, "informedness", MULTICLASS_J_METHODS, {"num_classes": 3}))
    for clusters in (10, 50):
        rows.append(Setting("F", f"segmentation, {clusters} images 32x32", "images", SEGMENTATION, clusters, "balanced_accuracy",
                            BA_METHODS, {"num_classes": 3}))
    for clusters in (20, 50):
        for name, sizes in (("geometric sizes, mean 5", ("geometric", 5)), ("lognormal sizes, median 5, sigma 1", ("lognormal", 5, 1.0)),
                            ("lognormal sizes, larger = harder (rho 0.6)", ("lognormal_harder", 5, 1.0, 0.6))):
            rows.append(Setting("F", f"binary, {clusters} conversations, {name}", "conversations", unequal(BINARY_CONVERSATIONS, sizes),
                                clusters, "balanced_accuracy", BA_METHODS, {"num_classes": 2}))
    return rows


CASE_TITLES = {
    "A": "A. Segmentation maps: each image is a cluster",
    "B": "B. Token classification: each sequence is a cluster",
    "C": "C. Multilabel, n = 300: each sample (row) is a cluster",
    "D": "D. Multilabel, n = 1000: each sample (row) is a cluster",
    "E": "E. Golden sets with several items per conversation (1-D, clusters = conversation ids)",
    "F": "F. Few clusters and clusters of unequal size",
}


def describe_models():
    seg, tok = SEGMENTATION, TOKENS
    return {
        "A": (f"Per image: class shares ~ Dirichlet({seg.concentration:g} x {seg.prior}), accuracy a ~ Beta(8, 2) (mean 0.8), "
              "recall of class c = a^gamma_c with gamma = (0.5, 1, 2); a wrong pixel takes another class at random. "
              "Input (G, 32, 32); as i.i.d. items: the same maps flattened to 1-D."),
        "B": (f"Per sequence: length ~ U{{20..50}}, tag shares ~ Dirichlet({tok.concentration:g} x {tok.prior}), accuracy a ~ Beta(9, 1.5), "
              "recall of tag c = a^gamma_c with gamma = (0.5, 1, 1.5, 1.5, 2); 60% of wrong tokens are tagged 0 (\"O\"). "
              "References padded to 50 with -100 (predictions with 0), `ignore_index=-100`; as i.i.d. items: flattened to 1-D."),
        "C": (f"Label prevalences {MULTILABEL_PREVALENCES}; 10% of samples are hard (each prediction flipped with probability 0.7), "
              "the rest flip 5%. As i.i.d. items: the per-label 2 x 2 counts as `confusion_matrix=` (no sample structure)."),
        "D": "As C with 20% hard samples flipping 50%, n = 1000.",
        "E": ("Per conversation: 3-10 items (uniform), class shares ~ Dirichlet (binary: 3 x (0.7, 0.3); 3 classes: 4 x (0.5, 0.3, 0.2)), "
              "recall of class c = expit(mu_c - u), u ~ N(0, 1) (binary: recalls 0.9 / 0.8 at u = 0; 3 classes: 0.88 / 0.80 / 0.72); "
              "`clusters=` the conversation ids. As i.i.d. items: `clusters=np.arange(n)` (no `clusters` where the modules lack it)."),
        "F": ("The models of E (conversations) and A (images) with G clusters; unequal sizes: geometric (mean 5), lognormal "
              "(median 5, sigma 1: a few conversations hold many items), and lognormal sizes correlated (0.6) with difficulty."),
    }


# ---------------------------------------------------------------- the modules


class Modules:
    """The modules, loaded once, and what the modules accept."""

    def __init__(self):
        self.loaded = {name: evaluate.load(str(REPO_ROOT / name))
                       for name in ("balanced_accuracy", "informedness", "balanced_accuracy_multilabel")}
        probes = {"balanced_accuracy": ([0, 1, 0, 1], [0, 1, 1, 1]), "informedness": ([0, 1, 2, 0], [0, 1, 2, 2]),
                  "balanced_accuracy_multilabel": ([[0, 1], [1, 1], [0, 0], [1, 0]], [[0, 1], [1, 0], [0, 0], [1, 1]])}
        # Per module: does it take clusters= (and so count N-d inputs per leading element)?
        self.clusters_supported = {name: self._accepts(lambda name=name, data=data: self.loaded[name].compute(
            references=data[0], predictions=data[1], clusters=[0, 0, 1, 1], confidence_level=LEVEL)) for name, data in probes.items()}
        self.delta_supported = self._accepts(lambda: self.loaded["informedness"].compute(
            references=[0, 1, 2, 0, 1, 2], predictions=[0, 1, 2, 1, 1, 2], confidence_level=LEVEL, ci_method="delta"))

    @staticmethod
    def _accepts(call):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call()
            return True
        except (TypeError, ValueError):
            return False

    def interval(self, metric, **kwargs):
        """(value, low, high) of one compute call; NaN for a value or interval not given."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # few clusters, padded classes: the warnings are the study's subject, not news
            result = self.loaded[metric].compute(**kwargs)
        key = "informedness" if metric == "informedness" else "balanced_accuracy"
        low, high = result.get(f"{key}_ci", (float("nan"), float("nan")))
        return result[key], low, high


def methods_of(setting, modules):
    return tuple(m for m in setting.methods if m != "delta" or modules.delta_supported)


def simulate_set(setting, rng):
    """One set: a dict of the inputs with clusters ("clustered") and treated as i.i.d. ("independent")."""
    if setting.layout == "multilabel":
        references, predictions = setting.model.rows(rng, setting.clusters)
        tp = (references & predictions).sum(axis=0)
        fn = (references & (1 - predictions)).sum(axis=0)
        fp = ((1 - references) & predictions).sum(axis=0)
        tn = references.shape[0] - tp - fn - fp
        tables = np.stack([np.stack([tn, fp], axis=-1), np.stack([fn, tp], axis=-1)], axis=-2)
        return {"clustered": {"references": references, "predictions": predictions}, "independent": {"confusion_matrix": tables},
                "items": references.size}
    owner, references, predictions = setting.model.items(rng, setting.clusters)
    if setting.layout == "images":
        side = int(math.isqrt(setting.model.sizes[1]))
        shaped = {"references": references.reshape(setting.clusters, side, side), "predictions": predictions.reshape(setting.clusters, side, side)}
        return {"clustered": shaped, "independent": {"references": references, "predictions": predictions}, "items": references.size}
    if setting.layout == "tokens":
        width = setting.model.sizes[2]
        sizes = np.bincount(owner, minlength=setting.clusters)
        position = np.arange(owner.size) - (np.cumsum(sizes) - sizes)[owner]  # items come in cluster order
        padded_references = np.full((setting.clusters, width), -100)
        padded_predictions = np.zeros((setting.clusters, width), dtype=np.int64)
        padded_references[owner, position] = references
        padded_predictions[owner, position] = predictions
        return {"clustered": {"references": padded_references, "predictions": padded_predictions},
                "independent": {"references": padded_references.ravel(), "predictions": padded_predictions.ravel()}, "items": references.size}
    return {"clustered": {"references": references, "predictions": predictions, "clusters": owner},
            "independent": {"references": references, "predictions": predictions, "clusters": np.arange(references.size)},
            "items": references.size}


def run_setting(setting, modules, num_sets, resamples, seed):
    """Per (average, method): arrays of (value, low, high) with clusters and as i.i.d. items, over ``num_sets`` sets."""
    rng = np.random.default_rng([seed, zlib.crc32(f"{setting.case} {setting.label} {setting.metric}".encode())])
    methods = methods_of(setting, modules)
    keys = [(average, method) for average in setting.averages for method in methods]
    found = {key: {"clustered": np.full((num_sets, 3), np.nan), "independent": np.full((num_sets, 3), np.nan)} for key in keys}
    items = np.zeros(num_sets)
    for index in range(num_sets):
        data = simulate_set(setting, rng)
        items[index] = data["items"]
        set_seed = int(rng.integers(2**31))
        for average, method in keys:
            options = dict(setting.options, confidence_level=LEVEL, ci_method=method)
            if average is not None:
                options["average"] = average
            if method == "bootstrap":
                options.update(n_resamples=resamples, seed=set_seed)
            supported = modules.clusters_supported[setting.metric]
            for column in ("clustered", "independent"):
                inputs = dict(data[column])
                if column == "clustered" and not supported:
                    continue  # clusters= not in this module yet: an N-d input is counted as i.i.d. too, nothing new to measure
                if "clusters" in inputs and not supported:
                    del inputs["clusters"]  # no clusters argument is the i.i.d. treatment
                found[(average, method)][column][index] = modules.interval(setting.metric, **inputs, **options)
    return found, items


_POPULATION_CONFUSION = {}


def population_value(setting, average, seed):
    """(true value, closed-form value or None) of the setting's metric under its model."""
    if setting.layout == "multilabel":
        return setting.model.truth(), setting.model.truth()
    key = repr(setting.model)
    if key not in _POPULATION_CONFUSION:
        _POPULATION_CONFUSION[key] = setting.model.population_confusion(np.random.default_rng([seed, zlib.crc32(key.encode())]))
    confusion = _POPULATION_CONFUSION[key]
    closed = None
    if setting.model.difficulty[0] == "beta":
        closed = setting.model.closed_form_confusion()
    if setting.metric == "balanced_accuracy":
        return balanced_accuracy_of(confusion), (None if closed is None else balanced_accuracy_of(closed))
    average = setting.options.get("average", "bookmaker")
    return informedness_of(confusion, average), (None if closed is None else informedness_of(closed, average))


def summarise(triples, truth):
    """Coverage among the given intervals, width, undefined and refused shares."""
    value, low, high = triples.T
    defined = ~np.isnan(value)
    given = defined & ~np.isnan(low) & ~np.isnan(high)
    covered = (low[given] <= truth + 1e-12) & (truth - 1e-12 <= high[given])
    return {
        "coverage": float(covered.mean()) if given.any() else float("nan"),
        "width": float((high[given] - low[given]).mean()) if given.any() else float("nan"),
        "sets": int(given.sum()),
        "undefined": float(1.0 - defined.mean()),
        "refused": float((defined & ~given).sum() / max(defined.sum(), 1)),
        "measured": bool(defined.any() and not np.isnan(triples).all()),
    }


# ---------------------------------------------------------------- report


def standard_error(share, sets):
    return math.sqrt(share * (1.0 - share) / sets) if sets else float("nan")


def coverage_cell(cell, clusters=None):
    if not cell["measured"]:
        return "n/a"
    if cell["sets"] == 0:
        return "refused"
    text = f"{cell['coverage']:.3f} ± {standard_error(cell['coverage'], cell['sets']):.3f}"
    if cell["coverage"] < TARGET and (clusters is None or clusters >= 20):
        text = f"**{text}**"
    if cell["refused"] > 0:
        text += f" ({cell['refused']:.0%} refused)"
    return text


def width_cell(cell):
    return "n/a" if not cell["measured"] or cell["sets"] == 0 else f"{cell['width']:.3f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"cases {QUICK_CASES} (first row of E only); unless given, 100 sets and 300 resamples")
    parser.add_argument("--sets", type=int, default=None, help="simulated sets per setting (default 1,000)")
    parser.add_argument("--resamples", type=int, default=None, help="bootstrap resamples per interval (default 1,000)")
    parser.add_argument("--cases", default="A,B,C,D,E,F", help="comma-separated cases to run (with --quick: " + QUICK_CASES + ")")
    parser.add_argument("--seed", type=int, default=2025)
    parser.add_argument("--output", type=Path, default=None,
                        help=f"markdown results file (default: {DEFAULT_OUTPUT.relative_to(REPO_ROOT)}; with --quick: none unless given)")
    args = parser.parse_args(argv)
    command = " ".join(["OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/cluster_coverage/study.py",
                        *(sys.argv[1:] if argv is None else argv)])
    if args.quick:
        args.cases = QUICK_CASES
    args.sets = args.sets if args.sets is not None else (100 if args.quick else 1_000)
    args.resamples = args.resamples if args.resamples is not None else (300 if args.quick else 1_000)
    output = args.output if args.output is not None else (None if args.quick else DEFAULT_OUTPUT)
    cases = [c.strip().upper() for c in args.cases.split(",") if c.strip()]
    chosen = [s for s in settings() if s.case in cases]
    if args.quick:  # one row of E
        first_e = next(i for i, s in enumerate(chosen) if s.case == "E") if any(s.case == "E" for s in chosen) else None
        chosen = [s for i, s in enumerate(chosen) if s.case != "E" or i == first_e]

    started, cpu_started = time.perf_counter(), time.process_time()
    modules = Modules()
    sections = {case: [] for case in cases}
    notes = {case: [] for case in cases}
    below = []
    for setting in chosen:
        setting_started = time.perf_counter()
        found, items = run_setting(setting, modules, args.sets, args.resamples, args.seed)
        for average in setting.averages:
            truth, closed = population_value(setting, average, args.seed)
            if setting.layout != "multilabel" and closed is not None and not any(setting.label in n for n in notes[setting.case]):
                notes[setting.case].append(f"{setting.label}, {setting.metric}: true value {truth:.4f} by simulation of "
                                           f"{TRUTH_CLUSTERS:,} clusters, {closed:.4f} in closed form.")
            elif setting.layout == "multilabel" and not notes[setting.case]:
                notes[setting.case].append(f"True value {truth:.4f} = 1 - mean flip rate, exact, for every average.")
            for method in methods_of(setting, modules):
                clustered = summarise(found[(average, method)]["clustered"], truth)
                independent = summarise(found[(average, method)]["independent"], truth)
                metric = setting.metric + (f" ({average})" if average else "")
                if setting.options.get("average") and not average:
                    metric += f" ({setting.options['average']})"
                undefined = max(cell["undefined"] for cell in (clustered, independent) if cell["measured"])
                sections[setting.case].append(
                    f"| {setting.label} | {setting.clusters} | {int(np.median(items))} | {metric} | {method} | {truth:.4f} | "
                    f"{coverage_cell(clustered, setting.clusters)} | {width_cell(clustered)} | {coverage_cell(independent, setting.clusters)} | {width_cell(independent)} | "
                    f"{clustered['sets'] if clustered['measured'] else independent['sets']} | {undefined:.1%} |")
                if clustered["measured"] and setting.clusters >= 20 and not clustered["coverage"] >= TARGET:
                    below.append(f"{setting.case}: {setting.label}, {metric}, {method}: {clustered['coverage']:.3f}")
        print(f"  {setting.case} {setting.label} {setting.metric}: {time.perf_counter() - setting_started:.1f} s", file=sys.stderr, flush=True)

    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    lines = [
        "# Coverage of 95% intervals when items come in clusters\n",
        f"Written by `{command}` on {datetime.date.today().isoformat()} ({wall / 60:.1f} min; {cpu / 60:.1f} min of CPU): "
        f"{args.sets:,} simulated sets per setting, bootstrap with {args.resamples:,} resamples, seed {args.seed}.\n",
        "`clusters=` accepted by the modules run: " + ", ".join(f"{name} {'yes' if ok else 'no (its clustered column: n/a)'}"
                                                          for name, ok in modules.clusters_supported.items()) + "; "
        f"multi-class informedness `ci_method=\"delta\"`: {'yes' if modules.delta_supported else 'no (not measured)'}.\n",
        "Coverage: share of the sets whose 95% interval holds the true value (the population value under the generating "
        "model), ± its Monte-Carlo standard error; bold: below 0.93 with at least 20 clusters. Width: mean interval width. "
        "\"with clusters\": the input as it comes (N-d: each element of the leading axis is a cluster) or `clusters=` the "
        "conversation ids; \"as i.i.d. items\": the same sets treated as independent items. G: clusters per set; items: median counted "
        "items per set (multilabel: label entries); undefined: sets whose value is undefined (a class absent from the set), "
        "left out of the coverage.\n",
    ]
    if below:
        lines.append(f"With clusters and G >= 20, below {TARGET}: " + "; ".join(below) + ".\n")
    elif any(modules.clusters_supported.values()):
        lines.append(f"With clusters and G >= 20, every setting measured with clusters covers at least {TARGET}.\n")
    header = ("| setting | G | items | metric | ci_method | truth | coverage with clusters | width with clusters | "
              "coverage as i.i.d. items | width as i.i.d. items | sets | undefined |")
    descriptions = describe_models()
    for case in cases:
        if not sections.get(case):
            continue
        lines.append(f"## {CASE_TITLES[case]}\n")
        lines.append(descriptions[case] + "\n")
        lines.extend(n + "\n" for n in notes[case])
        lines.append(header)
        lines.append("|" + "---|" * 12)
        lines.extend(sections[case])
        lines.append("")
    text = "\n".join(lines) + "\n"
    print(text)
    if output is not None:
        output.write_text(text)
        print(f"written: {output}", file=sys.stderr)
    return text


if __name__ == "__main__":
    main()
