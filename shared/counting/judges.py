"""Several judges on one golden set: ``judges={name: labels}`` counted as pairwise joint counts.

Ranking J judges needs, for every estimate and every covariance between two judges'
estimates, only the joint counts of each pair: ``joint[r, a, b]`` = items of reference
class r that judge i labels a and judge j labels b (``paired.py``'s triples). So a batch
given with ``judges`` is counted into one ``paired.PAIRED``-style table per pair i < j
(``pair_table(i, j)``), with the pair's (cluster, reference, a, b) counts beside it when
clusters are counted: J (J - 1) / 2 tables of at most K^3 cells, whatever the number of
items, merged by addition like every other table of a ``Store``. The judges' names (in
the order given) are a setting of the store, so a batch naming other judges is refused
at ``add_batch`` with both lists of names.

``judges_counts`` turns what was stored into ``JudgesCounts``: each pair's
``paired.PairedCounts`` under the module's options (the same encoding, ``ignore_index``,
weights and clusters as ``baseline_predictions``), over one class order for all judges.
"""

import dataclasses
import json
import math
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .clusters import CLUSTERS
from .counts import CountTable
from .inputs import as_array
from .inputs import SCORES_HINT
from .inputs import as_labels
from .inputs import check_sample_weight
from .labels import distinct_values
from .paired import BASELINE_SETTING
from .paired import GIVEN
from .paired import PAIRED
from .paired import PAIRED_KEYS
from .paired import PairedCounts
from .paired import count_batch
from .paired import paired_counts
from .clusters import count_clusters
from .confusion import ConfusionCounts
from .store import Store

# The judges' names as given (a JSON list), or NO_JUDGES: every batch must agree (Store.merge).
JUDGES_SETTING = "judges"
NO_JUDGES = "not given"
# Integer labels spanning at most this many values are counted by bincounts of combined codes
# (``_joint_cells``); other labels (strings, wide integers, weights) by CountTable, pair by pair.
FAST_SPAN = 40
# Combinations of the references and a group of judges' labels counted by one bincount: at most this many.
JOINT_CELLS = 1 << 18
# Items per chunk when labels are read for their span and codes (a chunk of each stays in cache).
CODES_CHUNK = 1 << 16


def pair_table(i: int, j: int) -> str:
    """The store's table of the joint counts of judges i < j (underscored: not a count of samples)."""
    return f"_judges/{i}/{j}"


def check_judges(judges: Any, references: np.ndarray, predictions: Any = None) -> List[Tuple[str, np.ndarray]]:
    """``judges`` as (name, labels) pairs in the order given, each of the references' shape;
    ``predictions`` given too joins them as the judge named "predictions".

    Examples
    --------
    >>> [name for name, _ in check_judges({"a": [0, 1], "b": [1, 1]}, np.array([0, 1]))]
    ['a', 'b']
    >>> check_judges({"a": [0, 1, 1]}, np.array([0, 1]))
    Traceback (most recent call last):
    ...
    ValueError: judges['a']: expected one label per reference (2), found 3.
    """
    if isinstance(judges, Mapping):
        items = list(judges.items())
    elif isinstance(judges, (list, tuple)) and all(isinstance(item, (list, tuple)) and len(item) == 2 for item in judges):
        items = [tuple(item) for item in judges]
    else:
        raise TypeError(f"judges: expected a mapping from each judge's name to its labels, found {type(judges).__name__}.")
    if predictions is not None:
        items = [("predictions", predictions)] + items
    names = [name for name, _ in items]
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"judges: expected names that are strings, found {name!r} ({type(name).__name__}).")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"judges: expected distinct names, found {repeated} more than once"
                         + (" (predictions given beside judges is the judge named 'predictions')." if "predictions" in repeated else "."))
    if not items:
        raise ValueError("judges: expected at least one judge, found an empty mapping.")
    checked = []
    for name, labels in items:
        array = as_array(labels, f"judges[{name!r}]")
        if array.shape != references.shape:
            if array.ndim == 1 and references.ndim == 1:
                raise ValueError(f"judges[{name!r}]: expected one label per reference ({references.shape[0]}), found {array.shape[0]}.")
            raise ValueError(f"judges[{name!r}]: expected the references' shape {references.shape}, found {array.shape}.")
        checked.append((name, array))
    return checked


def renamed(error: Exception, names: Mapping[str, str]) -> Exception:
    """``error`` with its leading input name (``predictions:``) replaced by the judge's (``judges['a']:``)."""
    message = str(error)
    for source, target in names.items():
        if message.startswith(f"{source}:"):
            message = target + message[len(source):]
            break
    return type(error)(message)


def count_judges(judges: Sequence[Tuple[str, np.ndarray]], references: np.ndarray, sample_weight: Any = None,
                 clusters: Any = None, scores_hint: str = SCORES_HINT) -> Store:
    """One batch of several judges' labels as a ``Store`` of its own: a pair table per i < j."""
    weights = check_sample_weight(sample_weight, references.size, references.shape)
    store = Store()
    store.settings[JUDGES_SETTING] = json.dumps([name for name, _ in judges])
    store.settings[BASELINE_SETTING] = GIVEN
    store.note_references(references)
    shape = references.shape
    flat_references = as_labels(references.reshape(-1), "references", "References are class labels; scores belong in `predictions`.")
    labels = []
    for name, array in judges:
        try:
            labels.append(as_labels(array.reshape(-1), "predictions", scores_hint))
        except (ValueError, TypeError) as error:
            raise renamed(error, {"predictions": f"judges[{name!r}]"}) from None
    fast = _label_span(flat_references, labels) if weights is None else None
    joint = _joint_cells(*fast, flat_references, labels) if fast is not None else None
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            table = CountTable(list(PAIRED_KEYS))
            if fast is not None:
                low, span = fast
                cells = joint[(i, j)]
                present = np.flatnonzero(cells)
                digits = (present // (span * span), present // span % span, present % span)
                table.add([low + digit for digit in digits], None, cells[present])
            else:
                table.add([flat_references, labels[i], labels[j]], weights)
            store.tables[pair_table(i, j)] = table
            if clusters is not None:
                # One cluster spec per batch: the default ids (leading axis) are handed out once.
                spec = clusters if (i, j) == (0, 1) else dataclasses.replace(clusters, on_ids=None)
                counted = Store()
                count_clusters(counted, spec, shape, lambda i=i, j=j: dict(zip(PAIRED_KEYS, (flat_references, labels[i], labels[j]))),
                               weights)
                store.settings.update(counted.settings)
                if CLUSTERS in counted.tables:
                    store.tables[pair_table(i, j) + "/" + CLUSTERS] = counted.tables[CLUSTERS]
    return store


def _label_span(references: np.ndarray, labels: List[np.ndarray]) -> Optional[Tuple[int, int]]:
    """``(low, span)`` of integer labels of a narrow span (references and every judge's), else None."""
    arrays = [references, *labels]
    if any(array.dtype.kind not in "iu" for array in arrays) or not references.size:
        return None
    low, high = math.inf, -math.inf
    for start in range(0, references.size, CODES_CHUNK):  # each chunk read from memory once, for both ends
        for array in arrays:
            chunk = array[start:start + CODES_CHUNK]
            low, high = min(low, int(chunk.min())), max(high, int(chunk.max()))
    span = high - low + 1
    return None if span > FAST_SPAN else (low, span)


def _joint_cells(low: int, span: int, references: np.ndarray, labels: List[np.ndarray]) -> Dict[Tuple[int, int], np.ndarray]:
    """Every pair i < j of judges' joint counts, ``cells[(r * span + a) * span + b]`` (int64, span^3),
    for integer labels in ``[low, low + span)``.

    Judges go in groups of g, the most for which a pair of groups with the references has at
    most ``JOINT_CELLS`` combinations (all the judges in one group when they fit). Each group
    pair is one bincount of the items' combined codes, built chunk by chunk from the labels as
    given (one read of each); each pair of judges in it is then a bincount of its distinct
    cells, weighted by their counts (integers below 2^53 in float64: exact). When not even two
    judges fit in a group, each pair of judges is one bincount of its own codes.
    """
    size = len(labels)
    cells: Dict[Tuple[int, int], np.ndarray] = {}
    if span**5 > JOINT_CELLS and span ** (size + 1) > JOINT_CELLS:
        # Not even two judges per group: each pair one bincount of uint16 codes made once per judge.
        codes = [(array.astype(np.int64, copy=False) - low).astype(np.uint16) for array in (references, *labels)]
        for i in range(size):
            for j in range(i + 1, size):
                code = codes[0] * np.uint16(span * span) + codes[i + 1] * np.uint16(span) + codes[j + 1]
                cells[(i, j)] = np.bincount(code, minlength=span**3).astype(np.int64)
        return cells
    if span ** (size + 1) <= JOINT_CELLS:
        together = [list(range(size))]
    else:
        per_group = 2
        while span ** (2 * per_group + 3) <= JOINT_CELLS:
            per_group += 1
        groups = [list(range(start, min(start + per_group, size))) for start in range(0, size, per_group)]
        together = [a + b for index, a in enumerate(groups) for b in groups[index + 1:]]
    for members in together:
        # sum_k (label_k - low) span^(m - k) = sum_k label_k span^(m - k) - low sum_k span^(m - k): in int64,
        # modulo 2^64 (wide labels wrap the same way in every step), the code itself in [0, span^(m + 1)).
        shift = (low * sum(span**power for power in range(len(members) + 1)) + 2**63) % 2**64 - 2**63
        code = np.empty(references.size, np.int64)
        for start in range(0, references.size, CODES_CHUNK):
            part = references[start:start + CODES_CHUNK].astype(np.int64)
            for member in members:
                part *= span
                part += labels[member][start:start + CODES_CHUNK].astype(np.int64, copy=False)
            if shift:
                part -= shift
            code[start:start + CODES_CHUNK] = part
        counted = np.bincount(code, minlength=span ** (len(members) + 1))
        present = np.flatnonzero(counted)
        weights = counted[present].astype(np.float64)
        # Digits of the combined code: the reference first, then the members in order.
        place = span ** len(members)
        reference = present // place * (span * span)
        digits = []
        for _ in members:
            place //= span
            digits.append(present // place % span)
        for first, i in enumerate(members):
            for second in range(first + 1, len(members)):
                j = members[second]
                if (i, j) not in cells:
                    pair = np.bincount(reference + digits[first] * span + digits[second], weights, minlength=span**3)
                    cells[(i, j)] = pair.astype(np.int64)
    return cells


def has_judges(stored: Store) -> bool:
    """Whether the stored batches were given with ``judges``."""
    return stored.settings.get(JUDGES_SETTING, NO_JUDGES) != NO_JUDGES


def judge_names(stored: Store) -> List[str]:
    return json.loads(stored.settings[JUDGES_SETTING])


@dataclass(frozen=True)
class JudgesCounts:
    """Several judges on one golden set: ``names`` in the order given, the ``PairedCounts`` of
    every pair i < j (``pairs[(i, j)]``: judge i as the system, j as the baseline), over one
    class order, and ``last``: the last judge's confusion counts with its clusters."""

    names: List[str]
    pairs: Dict[Tuple[int, int], PairedCounts]
    last: ConfusionCounts

    @property
    def reason(self) -> Optional[str]:
        return self.pairs[(0, 1)].reason

    def pair(self, i: int, j: int) -> PairedCounts:
        """Judges i and j as counted (the smaller index as the system, with the clusters): a paired
        comparison's p-value does not depend on which of the two is the system."""
        return self.pairs[(min(i, j), max(i, j))]

    def judge(self, i: int) -> ConfusionCounts:
        """Judge i's confusion counts, with its clusters (from a pair where it is the system)."""
        return self.pairs[(i, i + 1)].system if i + 1 < len(self.names) else self.last


def _swapped_table(table: CountTable) -> CountTable:
    """A pair's table with the two judges' key names exchanged."""
    counts = table.result()
    names = {"predictions": "baseline_predictions", "baseline_predictions": "predictions"}
    keys = {names.get(key, key): values for key, values in counts.keys.items()}
    swapped = CountTable(table.names)
    swapped.merge(dataclasses.replace(counts, keys=keys))
    return swapped


def _pair_store(stored: Store, i: int, j: int, swap: bool = False) -> Store:
    sub = Store()
    sub.settings = {key: value for key, value in stored.settings.items() if key != JUDGES_SETTING}
    sub.reference_dtypes = set(stored.reference_dtypes)
    table = stored.tables.get(pair_table(i, j), CountTable(list(PAIRED_KEYS)))
    sub.tables[PAIRED] = _swapped_table(table) if swap else table
    clustered = stored.tables.get(pair_table(i, j) + "/" + CLUSTERS)
    if clustered is not None:
        sub.tables[CLUSTERS] = _swapped_table(clustered) if swap else clustered
    return sub


def judges_counts(stored: Store, options: Mapping[str, Any], scores_hint: str = SCORES_HINT) -> JudgesCounts:
    """What was stored with ``judges`` (two or more), as ``JudgesCounts`` under the options.

    Each pair is reduced as ``baseline_predictions`` would be (``paired.paired_counts``); when
    the pairs see different classes (a label only some judges give) and neither ``labels`` nor
    ``num_classes`` fixes them, every pair is counted over the classes seen anywhere.
    Errors about a judge's labels name the judge."""
    if options.get("threshold") is not None:
        raise ValueError(f"threshold: judges give labels, found threshold={options['threshold']!r} with judges; turn scores into "
                         "labels first (or rank scores one judge at a time).")
    names = judge_names(stored)
    size = len(names)

    def count(options):
        pairs = {}
        for i in range(size):
            for j in range(i + 1, size):
                try:
                    pairs[(i, j)] = paired_counts(_pair_store(stored, i, j), dict(options), scores_hint)
                except (ValueError, TypeError) as error:
                    raise renamed(error, {"baseline_predictions": f"judges[{names[j]!r}]", "predictions": f"judges[{names[i]!r}]"}) from None
        return pairs

    pairs = count(options)
    classes = [pair.system.encoded.classes for pair in pairs.values()]
    if any(len(found) != len(classes[0]) or (found != classes[0]).any() for found in classes):
        if options.get("labels") is None and options.get("num_classes") is None:
            options = {**options, "labels": distinct_values([np.asarray(found) for found in classes]).tolist()}
            pairs = count(options)
    # The last judge's own counts (with its clusters) come from its pair counted the other way round.
    last = size - 1
    try:
        mirrored = paired_counts(_pair_store(stored, last - 1, last, True), dict(options), scores_hint)
    except (ValueError, TypeError) as error:
        raise renamed(error, {"baseline_predictions": f"judges[{names[last - 1]!r}]", "predictions": f"judges[{names[last]!r}]"}) from None
    return JudgesCounts(names, pairs, mirrored.system)


def count_judges_batch(count_single: Any, predictions: Any, references: Any, inputs: Mapping[str, Any], **count_options: Any) -> Store:
    """One batch: with ``judges``, their pairwise joint counts (one judge: counted as ``predictions``);
    without, ``paired.count_batch`` of the module's own counting. Either way the store says which
    judges it holds, so that batches naming other judges are refused when merged."""
    judges = inputs.get("judges")
    if judges is None:
        store = count_batch(count_single, predictions, references, inputs, **count_options)
        store.settings = {JUDGES_SETTING: NO_JUDGES, **store.settings}  # checked first: the error names judges
        return store
    if inputs.get("baseline_predictions") is not None:
        raise ValueError("baseline_predictions: expected it or judges, found both; pass the baseline as one of the judges.")
    if references is None:
        raise ValueError("judges: expected references beside them (the golden set's labels), found references=None.")
    references = as_array(references, "references")
    checked = check_judges(judges, references, predictions)
    if len(checked) > 1:
        return count_judges(checked, references, inputs.get("sample_weight"), inputs.get("clusters"),
                            count_options.get("scores_hint", SCORES_HINT))
    name, labels = checked[0]
    try:
        store = count_batch(count_single, labels, references, {**inputs, "judges": None}, **count_options)
    except (ValueError, TypeError) as error:
        raise renamed(error, {"predictions": f"judges[{name!r}]"}) from None
    store.settings = {JUDGES_SETTING: json.dumps([name]), **store.settings}
    return store
