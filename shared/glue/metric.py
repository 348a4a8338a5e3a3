"""The ``evaluate.Metric`` every module is: options, batches and the distributed hand-over.

Data flows one way through ``CountsMetric``::

    options (load time, then compute time) -> checked, all of them, before any data
    add_batch(...)  -> inputs coerced once -> counted (a Store of its own) -> merged
    compute(...)    -> the stores of every process merged -> counts -> the module's SPEC reduces them

A module subclass declares ``OPTIONS`` (see ``options.py``), ``INPUTS`` (per-sample inputs
besides predictions and references, such as ``sample_weight``), ``UNALIGNED_INPUTS`` (those
of ``INPUTS`` that are not aligned with a batch's samples, such as a judge's labels on
unlabeled data: a batch may carry them alone, and ``compute`` takes them after
``add_batch``; ``_count`` then gets ``predictions=references=None``) and three methods:
``_count`` (one batch to a ``Store``), ``_counts`` (a ``Store`` to the module's counts
object) and ``_from_counts`` (counts to the result: its ``SPEC``, a ``reduction.MetricSpec``).
``LabelsMetric`` below gives all three to a metric of class labels from its ``SPEC`` alone.

evaluate's own machinery is used where it coordinates processes: in distributed mode
(``num_process > 1``) each process takes evaluate's cache file and lock (and its
rendez-vous), writes its counts there at ``compute``, and process 0 waits for every lock,
merges the files and removes them. A single process keeps its counts in memory (they are
small), so it writes no file at all.
"""

import abc
import os
import warnings
from typing import Any, Dict, Mapping, Optional, Tuple

import evaluate
import numpy as np
from datasets.utils.py_utils import temp_seed

from ..counting.clusters import ORIGIN_SHIFT
from ..counting.clusters import ClusterSpec
from ..counting.inputs import SCORES_HINT
from ..counting.inputs import to_python
from ..counting.labels import user_stacklevel
from ..counting.confusion import ConfusionCounts
from ..counting.confusion import confusion_counts
from ..counting.confusion import count_labels
from ..counting.paired import PairedCounts
from ..counting.judges import has_judges
from ..counting.judges import judge_names
from ..counting.judges import OWN_TABLE
from ..counting.paired import has_baseline
from ..counting.paired import paired_counts
from .options import Option
from .options import check_flag
from .options import check_ignore_index
from .options import check_labels
from .options import check_num_classes
from .options import check_pos_label
from .options import interval_options
from .options import check_names
from .options import did_you_mean
from .options import resolve
from .reduction import MetricSpec
from .reduction import comparison_from_counts
from .ranking import ONE_JUDGE
from .scored_ranking import THRESHOLD_FIX
from .scored_ranking import rank_scored_judges
from ..counting.judge_scores import ScoredJudges
from ..counting.judge_scores import check_vocabulary
from ..counting.judge_scores import count_judge_rows
from ..counting.judge_scores import judge_thresholds
from ..counting.judge_scores import judges_or_scores
from ..counting.store import Store

# Arguments of evaluate's own EvaluationModule.__init__ (evaluate.load passes them on).
EVALUATE_ARGUMENTS = ("config_name", "keep_in_memory", "cache_dir", "num_process", "process_id", "seed",
                      "experiment_id", "hash", "max_concurrent_cache_files", "timeout")


class CountsMetric(evaluate.Metric, metaclass=abc.ABCMeta):
    """An ``evaluate.Metric`` that stores counts, not samples (see the module doc).

    Abstract (its hooks are), so that ``evaluate.load``, which takes the first concrete
    ``EvaluationModule`` in a script, finds the module's own class and not this one.
    """

    OPTIONS: Dict[str, Option] = {}
    INPUTS: Tuple[str, ...] = ("sample_weight",)
    UNALIGNED_INPUTS: Tuple[str, ...] = ()
    # Groups of options that are one option (top-k's k and k_list): one given to compute replaces
    # every one of its group given to evaluate.load.
    ALTERNATIVE_OPTIONS: Tuple[Tuple[str, ...], ...] = ()

    def __init__(self, *args, **kwargs):
        options = {name: value for name, value in kwargs.items() if name not in EVALUATE_ARGUMENTS}
        super().__init__(*args, **{name: value for name, value in kwargs.items() if name in EVALUATE_ARGUMENTS})
        if "seed" in kwargs and "seed" in self.OPTIONS:
            options["seed"] = kwargs["seed"]  # also the bootstrap's seed, for reproducible intervals
        data = [name for name in options if name in self._data_arguments()]
        if data:
            raise TypeError(f"{data[0]}: expected options at evaluate.load ({', '.join(self.OPTIONS)}), found a data argument; "
                            "pass data to compute(...) or add_batch(...).")
        check_names(self.OPTIONS, options, f"{self.name} (at evaluate.load)")
        resolved = resolve(self.OPTIONS, options, {}, self.name)  # a bad value fails at load time, naming the option
        self.load_options = options  # (evaluate's __init__ set self.writer, our Store of counts, to None)
        self._check_data_options(resolved, None, None)
        self.clusters_added = 0  # default cluster ids handed out so far (see _with_clusters)

    # ------------------------------------------------------------------ evaluate's API
    def add_batch(self, *, predictions=None, references=None, **inputs):
        """Add a batch of predictions and references (and per-sample inputs such as
        ``sample_weight``) to the metric's counts.

        The batch is validated and counted on its own first: an invalid batch raises and
        leaves what was added before untouched.
        """
        self._check_inputs(inputs, "add_batch")
        options = self._count_options()
        batch = self._count(predictions, references, self._with_clusters(inputs, options), options)
        if self.writer is None:
            if self.num_process > 1:
                self.selected_feature_format = self.info.features
                self._init_writer()  # evaluate's cache file, lock and rendez-vous (its own writer: replaced)
            self.writer = Store()
        self.writer.merge(batch)

    def add(self, *, prediction=None, reference=None, **inputs):
        """Add one prediction and reference (``evaluate.combine(...).add`` passes them as
        ``predictions=``/``references=``, which are accepted too)."""
        prediction = inputs.pop("predictions", prediction)
        reference = inputs.pop("references", reference)
        self._check_inputs(inputs, "add")
        one = {name: value if name in self.UNALIGNED_INPUTS else [value] for name, value in inputs.items() if value is not None}
        if isinstance(inputs.get("judges"), Mapping):  # each judge's one label
            one["judges"] = {judge: [label] for judge, label in inputs["judges"].items()}
        predictions = None if prediction is None and "judges" in one else _one_row(prediction, "prediction")
        self.add_batch(predictions=predictions, references=_one_row(reference, "reference"), **one)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Compute the metric on the added batches plus the given predictions/references.

        Every option is checked first, before anything stored is read. With a single
        process and nothing added, the given inputs are counted and reduced at once. In
        distributed mode process 0 merges every process's counts and returns the result;
        the others return None.
        """
        inputs = {name: kwargs.pop(name) for name in list(kwargs) if name in self.INPUTS or name == "confusion_matrix"}
        for group in self.ALTERNATIVE_OPTIONS:
            if any(name in kwargs for name in group):
                kwargs = {**{name: None for name in group}, **kwargs}
        options = resolve(self.OPTIONS, kwargs, self.load_options, self.name, self._data_arguments())
        # Judges (given now, or in the batches added) take per-judge thresholds (judge_scores.py).
        self._check_options(options, inputs.get("judges") is not None or (self.writer is not None and has_judges(self.writer)))
        self._check_data_options(options, predictions, self.writer)
        matrix = inputs.pop("confusion_matrix", None)
        has_samples = predictions is not None or references is not None
        if matrix is not None:
            return self._compute_matrix(matrix, has_samples, inputs, options)
        aligned = [name for name, value in inputs.items() if value is not None and name not in self.UNALIGNED_INPUTS]
        if not has_samples and aligned:
            raise ValueError(f"{aligned[0]}: pass it with its batch to add_batch(...) (or with predictions and "
                             f"references to compute); found it alone at compute after {len(self)} added samples, "
                             "which it cannot be aligned with.")
        # Something to count now: samples, or inputs that are not aligned with samples.
        given = has_samples or any(inputs.get(name) is not None for name in self.UNALIGNED_INPUTS)
        if self.num_process > 1:  # the given batch added, every process's counts merged on process 0 (the others: None)
            if given:
                self.add_batch(predictions=predictions, references=references, **inputs)
            if self.writer is None:
                raise ValueError("compute: nothing to compute on; every process must call `add` or `add_batch` first.")
            stored = self._gather()
            if stored is None:
                return None
        elif self.writer is None:
            if not given:
                raise ValueError("compute: nothing to compute on; call `add` or `add_batch` first, or pass predictions and "
                                 "references (found nothing stored, predictions=None and references=None).")
            stored = self._count(predictions, references, self._with_clusters(inputs, options), options)
        else:
            # The stored counts are released only once the result is computed: a compute that
            # fails (say, scores without a threshold) loses nothing, and a final batch given to
            # it is not kept either, so the corrected call can pass it again.
            stored = Store()
            stored.merge(self.writer)
            if given:  # counted as add_batch counts it, to merge with the batches before it
                count_options = self._count_options()
                stored.merge(self._count(predictions, references, self._with_clusters(inputs, count_options), count_options))
        warn_single_item(stored, self.name)
        result = self._result(self._counts(stored, options), options)
        self.writer = None
        return result

    def _compute_matrix(self, matrix: Any, has_samples: bool, inputs: Dict[str, Any], options: Dict[str, Any]) -> Dict[str, Any]:
        """The result of a confusion matrix given to compute (with the inputs not aligned with samples, if any)."""
        unaligned = {name: value for name, value in inputs.items() if value is not None and name in self.UNALIGNED_INPUTS}
        aligned_given = any(value is not None and name not in unaligned for name, value in inputs.items())
        if has_samples or self.writer is not None or aligned_given:
            raise ValueError("confusion_matrix: expected counts instead of samples, found predictions, references or "
                             "added batches too; pass one or the other.")
        if not unaligned:
            return self._result(self._counts_from_matrix(matrix, options), options)
        # Inputs not aligned with samples (a judge's unlabeled labels) go with counts made elsewhere.
        stored = self._count(None, None, self._with_clusters(unaligned, options), options)
        return self._result(self._counts_from_matrix(matrix, options, stored), options)

    def _with_clusters(self, inputs: Dict[str, Any], options: Dict[str, Any]) -> Dict[str, Any]:
        """``inputs`` with ``clusters`` as a ``ClusterSpec``: counted when given, or when an interval is
        asked for (N-d inputs then make one cluster per leading element, with ids distinct across
        batches and processes); else only the fact that N-d inputs came without them is kept."""
        if "clusters" not in self.INPUTS:
            return inputs
        spec = ClusterSpec(inputs.get("clusters"), inputs.get("clusters") is not None or options.get("confidence_level") is not None,
                           (self.process_id << ORIGIN_SHIFT) + self.clusters_added, self._advance_clusters)
        return {**inputs, "clusters": spec}

    def _advance_clusters(self, leading: int) -> None:
        self.clusters_added += leading

    def _result(self, counts: Any, options: Dict[str, Any]) -> Dict[str, Any]:
        with temp_seed(self.seed):
            return to_python(self._from_counts(counts, options))

    # ------------------------------------------------------------------ module hooks
    @abc.abstractmethod
    def _count(self, predictions: Any, references: Any, inputs: Dict[str, Any], options: Dict[str, Any]) -> Store:
        """One batch, validated and counted into a Store of its own."""

    @abc.abstractmethod
    def _counts(self, stored: Store, options: Dict[str, Any]) -> Any:
        """What was stored, as the module's counts object under ``options``."""

    def _counts_from_matrix(self, matrix: Any, options: Dict[str, Any], stored: Optional[Store] = None) -> Any:
        """A confusion matrix given to compute, as the module's counts; ``stored``: the counted
        ``UNALIGNED_INPUTS`` given with it (only passed when there are some)."""
        raise TypeError(f"confusion_matrix: expected an argument of {self.name}, found an unknown argument.")

    @abc.abstractmethod
    def _from_counts(self, counts: Any, options: Dict[str, Any]) -> Dict[str, Any]:
        """The module's counts reduced to its result (a plain dict)."""

    def _check_options(self, options: Dict[str, Any], judges_given: bool) -> None:
        """Checks across options (before any data is read): the module's ``SPEC.check_options``, if any.
        ``judges_given``: whether judges come with this call or with the batches added."""
        spec = getattr(self, "SPEC", None)
        if spec is not None and spec.check_options is not None:
            spec.check_options(options)

    def _check_data_options(self, options: Dict[str, Any], predictions: Any, stored: Optional[Store]) -> None:
        """Checks of options against the data's shape, before any data is read: ``predictions`` are
        compute's (None at ``evaluate.load``), ``stored`` the batches added (None if none). None here."""

    def _count_options(self) -> Dict[str, Any]:
        """The load-time options, checked: what add_batch counts with."""
        return resolve(self.OPTIONS, {}, self.load_options, self.name)

    def _data_arguments(self) -> Tuple[str, ...]:
        """The data arguments of ``compute``: predictions, references, the per-sample ``INPUTS`` and,
        where the module takes one, ``confusion_matrix``."""
        takes_matrix = type(self)._counts_from_matrix is not CountsMetric._counts_from_matrix
        return ("predictions", "references", *self.INPUTS) + (("confusion_matrix",) if takes_matrix else ())

    def _check_inputs(self, inputs: Mapping[str, Any], method: str) -> None:
        """Only per-sample inputs go with a batch: an option is named as one (it goes to compute or
        evaluate.load), anything else as unknown, with the closest input name."""
        unknown = [name for name in inputs if name not in self.INPUTS]
        if not unknown:
            return
        name = unknown[0]
        if name in self.OPTIONS:
            raise ValueError(f"{name}: expected it as an option of compute(..., {name}=...) or evaluate.load(..., {name}=...), "
                             f"found it given to {method}; options apply to all the batches at once, not to one batch.")
        data = ("prediction", "reference") if method == "add" else ("predictions", "references")
        raise ValueError(f"{name}: expected an input of {method} ({', '.join([*data, *self.INPUTS])}), found an unknown "
                         "argument." + did_you_mean(name, [*data, *self.INPUTS]))

    # ------------------------------------------------------------------ processes
    def _gather(self) -> Optional[Store]:
        """The store of every process merged (process 0), or None (other processes)."""
        store, self.writer = self.writer, None
        try:
            if self.process_id > 0:
                store.save(self.cache_file_name)
                self.filelock.release()  # process 0 may now read (and then delete) our file
                return None
            self.file_paths, self.filelocks = self._get_all_cache_files()  # waits for every process
            for path in self.file_paths[1:]:
                try:
                    store.merge(Store.load(path))
                except (FileNotFoundError, ValueError, OSError, EOFError):
                    raise ValueError(
                        "Error in finalize: another evaluation module instance is already using the local cache file. "
                        "Please specify an experiment_id to avoid collision between distributed evaluation module instances."
                    ) from None
            return store
        finally:
            self._release_files()

    def _release_files(self) -> None:
        """Process 0 removes every process's cache file and releases the locks (its own last)."""
        if self.process_id == 0 and self.file_paths is not None:
            for filelock, path in reversed(list(zip(self.filelocks, self.file_paths))):
                if os.path.exists(path):
                    os.remove(path)
                if filelock is not None:
                    filelock.release()
        self.file_paths = self.filelocks = None
        self.cache_file_name = self.filelock = None
        self.selected_feature_format = None

    def __del__(self):
        """A distributed process 0 dropped before ``compute`` removes its own (empty) cache file."""
        try:
            path = getattr(self, "cache_file_name", None)
            if path and getattr(self, "process_id", 1) == 0 and os.path.exists(path):
                os.remove(path)
        except Exception:  # noqa: BLE001 - never raise from __del__ (e.g. at interpreter exit)
            pass
        super().__del__()

    def _compute(self, *, predictions=None, references=None, **kwargs):
        # Not used: compute() above reduces counts (evaluate requires the method to exist).
        raise NotImplementedError


class LabelsMetric(CountsMetric, metaclass=abc.ABCMeta):
    """A metric of class labels declared by its ``SPEC`` (``reduction.MetricSpec``): labels are
    counted into confusion counts (with ``baseline_predictions``, joint counts of two systems),
    and the spec reduces them; value, interval, clusters and the paired comparison come from
    the shared path. A module adds its docs (``_info``) and, where it has more, its options."""

    SPEC: MetricSpec
    OPTIONS = {
        "labels": Option(None, check_labels),
        "num_classes": Option(None, check_num_classes),
        "ignore_index": Option(None, check_ignore_index),
        "pos_label": Option(None, check_pos_label),
        "return_confusion_matrix": Option(False, check_flag),
        **interval_options(),
    }
    INPUTS = ("sample_weight", "baseline_predictions", "clusters", "judges")

    @abc.abstractmethod
    def _info(self) -> evaluate.MetricInfo:
        """The module's docs (abstract here: ``evaluate.load`` takes the module's own class)."""

    # What a module says to pass for scores (its threshold), in the refusals of labels that cannot be right.
    SCORES_FIX = THRESHOLD_FIX

    def _count(self, predictions: Any, references: Any, inputs: Dict[str, Any], options: Mapping[str, Any]) -> Store:
        return count_judge_rows(count_labels, predictions, references, inputs, options, cluster_feature=self.SPEC.cluster_feature)

    def _check_options(self, options: Dict[str, Any], judges_given: bool) -> None:
        # --- score-giving judges (judge_scores.py): "auto" and per-judge mappings are checked against the judges
        if judges_given and (options.get("threshold") == "auto" or isinstance(options.get("threshold"), Mapping)):
            options = options.replace(threshold=None)
        super()._check_options(options, judges_given)

    def _counts_from_matrix(self, matrix: Any, options: Mapping[str, Any], stored: Optional[Store] = None) -> Any:
        if options.get("threshold") is not None:  # a module with a threshold option
            raise ValueError("threshold: a confusion matrix holds labels already, found a threshold too.")
        return ConfusionCounts.from_matrix(matrix, options["labels"], options.get("task"), options["pos_label"])

    def _counts(self, stored: Store, options: Mapping[str, Any]) -> Any:
        if several_judges(stored):
            return judges_or_scores(stored, options, SCORES_HINT, self.SCORES_FIX)
        options = one_judge_threshold(stored, options, self.SPEC.check_options)
        if has_baseline(stored):
            return paired_counts(stored, options)
        counts = confusion_counts(stored, options)
        if options.get("threshold") is None:
            check_vocabulary(counts, one_judge_name(stored), options, self.SCORES_FIX, judge=False)
        return counts

    def _from_counts(self, counts: Any, options: Mapping[str, Any]) -> Dict[str, Any]:
        if isinstance(counts, ScoredJudges):  # two or more judges (judge_scores.judges_or_scores)
            return rank_scored_judges(self.SPEC, counts, options)
        if isinstance(counts, PairedCounts):
            return comparison_from_counts(self.SPEC, counts, options)
        return self.SPEC.value(counts, options)


SINGLE_ITEM = ("{name}: computed on a single item, where its value is 0, 1 or undefined, and an average of such "
               "values is plain accuracy, not {name}: a per-document call: aggregate over the corpus; see "
               "docs/harnesses.md (lm-evaluation-harness's `hf_evaluate: true` computes per document).")


def warn_single_item(stored: Store, name: str) -> None:
    """Warn when what is reduced holds one sample (judges: one item in their joint counts):
    a harness that calls the module per document and averages the results."""
    judged = stored.tables.get(OWN_TABLE)  # every judge's own counts: the items, once a judge
    items = len(stored) or (len(judged) // len(judge_names(stored)) if judged is not None else 0)
    if items == 1:
        warnings.warn(SINGLE_ITEM.format(name=name), UserWarning, stacklevel=user_stacklevel())


def several_judges(stored: Store) -> bool:
    """Whether the stored batches hold two or more judges to rank (one judge: warned, then a plain result)."""
    if not has_judges(stored):
        return False
    names = judge_names(stored)
    if len(names) == 1:
        warnings.warn(ONE_JUDGE.format(name=names[0]), UserWarning, stacklevel=user_stacklevel())
    return len(names) > 1


def one_judge_threshold(stored: Store, options: Any, check: Any) -> Any:
    """One judge given with a threshold mapping: the options with its own entry (checked as the
    threshold of a plain call); other options as they are."""
    threshold = options.get("threshold")
    if not isinstance(threshold, Mapping):
        return options
    if not has_judges(stored):
        raise ValueError(f"threshold: a mapping from judges' names to thresholds applies to judges=, found {threshold!r} "
                         "without judges; pass judges={name: scores} or one threshold.")
    options = options.replace(threshold=judge_thresholds(threshold, judge_names(stored))[judge_names(stored)[0]])
    if check is not None:
        check(options)
    return options


def one_judge_name(stored: Store) -> str:
    """How the one system is named in an error: `predictions`, or `judges['name']`."""
    return f"judges[{judge_names(stored)[0]!r}]" if has_judges(stored) else "predictions"


def _one_row(value: Any, name: str) -> Any:
    if value is None:
        raise TypeError(f"{name}: expected a value, found None.")
    if np.isscalar(value):  # strings too
        return [value]
    array = value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)
    return array[None]
