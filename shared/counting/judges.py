"""Several judges on one golden set: ``judges={name: labels}`` counted as pairwise joint counts.

Ranking J judges needs, for every estimate and every covariance between two judges'
estimates, only the joint counts of each pair: ``joint[r, a, b]`` = items of reference
class r that judge i labels a and judge j labels b (``paired.py``'s triples). So a batch
given with ``judges`` is counted into one table of every pair's joint counts (``PAIRS_TABLE``:
the pair's two judges are keys) and one of every judge's own confusion counts (``OWN_TABLE``),
with each pair's and each judge's (cluster, reference, ...) counts beside them when clusters
are counted: at most J (J - 1) / 2 x K^3 + J x K^2 cells, whatever the number of items, merged
by addition like every other table of a ``Store``. The judges' names (in the order given)
are a setting of the store, so a batch naming other judges is refused at ``add_batch`` with
both lists of names.

``judges_counts`` reads the two tables as they are into ``JudgesCounts``: every judge's
``ConfusionCounts`` and the dense joint counts of every pair, under the module's options
(the same encoding, ``ignore_index``, weights and clusters as ``baseline_predictions``),
over one class order for all judges; a pair's ``paired.PairedCounts`` is made when asked for.
"""

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

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
from .paired import MAX_COMPARISON_CLASSES
from .paired import PAIRED_KEYS
from .paired import PairedCounts
from .paired import count_batch
from .paired import joint_counts
from .paired import system_counts
from .clusters import Clusters
from .clusters import count_clusters
from .clusters import stored_clusters
from .confusion import ConfusionCounts
from .counts import kept_rows
from .counts import squared_weights
from .labels import encode_task
from .labels import label_kind
from .labels import padding_hint
from .labels import padding_values
from .labels import positions
from .labels import warn_padding
from .store import Store

# The judges' names as given (a JSON list), or NO_JUDGES: every batch must agree (Store.merge).
JUDGES_SETTING = "judges"
NO_JUDGES = "not given"
# At most this many distinct labels (references' and judges'): every pair's joint counts by bincounts of
# the items' combined codes (``_joint_cells``); more: each pair's distinct cells found apart.
FAST_SPAN = 40
# Combinations of the references and a group of judges' labels counted by one bincount: at most this many.
JOINT_CELLS = 1 << 18
# Items per chunk when labels are read for their span and codes (a chunk of each stays in cache).
CODES_CHUNK = 1 << 16
# At most this many cells of every pair's joint counts are counted in one dense array (else pair by pair).
DENSE_PAIR_CELLS = 1 << 24
# More judges than this: every pair's counts from products of one-hot labels (``_matrix_cells``), not bincounts.
MATRIX_JUDGES = 40
# Entries of a chunk of one-hot labels (items x judges * span) in ``_matrix_cells``.
MATRIX_CHUNK = 1 << 22


# The store's tables with judges: every pair's joint counts in one table (the pair's judges as keys),
# every judge's own confusion counts in another (underscored: not counts of samples).
PAIRS_TABLE = "_judges/pairs"
PAIRS_KEYS = ("first", "second") + PAIRED_KEYS
OWN_TABLE = "_judges/own"
OWN_KEYS = ("judge", "references", "predictions")
# With clusters, the store's (cluster, reference, judge i) counts and (cluster, reference, judge i, judge j) of i < j.
OWN_CLUSTERS, PAIR_CLUSTERS = "_judges/{}/" + CLUSTERS, "_judges/{}/{}/" + CLUSTERS


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


def renamed(error: Exception, name: str) -> Exception:
    """``error`` naming judge ``name`` (``judges['a']:``) where it names ``predictions:``."""
    message = str(error)
    return type(error)(f"judges[{name!r}]" + message[len("predictions"):] if message.startswith("predictions:") else message)


def count_judges(judges: Sequence[Tuple[str, np.ndarray]], references: np.ndarray, sample_weight: Any = None,
                 clusters: Any = None, scores_hint: str = SCORES_HINT) -> Store:
    """One batch of several judges' labels as a ``Store`` of its own: every pair's joint counts in
    ``PAIRS_TABLE``, every judge's own counts in ``OWN_TABLE`` (and, with clusters, each pair's and
    each judge's (cluster, ...) counts beside them)."""
    weights = check_sample_weight(sample_weight, references.size, references.shape)
    store = Store()
    store.settings.update({JUDGES_SETTING: json.dumps([name for name, _ in judges]), BASELINE_SETTING: GIVEN})
    store.note_references(references)
    shape = references.shape
    flat_references = as_labels(references.reshape(-1), "references", "References are class labels; scores belong in `predictions`.")
    labels = []
    for name, array in judges:
        try:
            labels.append(as_labels(array.reshape(-1), "predictions", scores_hint))
        except (ValueError, TypeError) as error:
            raise renamed(error, name) from None
    values, codes = _label_codes(flat_references, labels, [name for name, _ in judges])
    span = max(1, values.size)
    squares, exponent = (None, 0) if weights is None else squared_weights(weights)
    size = len(labels)
    first, second = np.triu_indices(size, 1)
    (pair, cell, n, w, w2), own_cells = _pair_rows(span, codes, weights, squares)
    digits = (cell // (span * span), cell // span % span, cell % span)
    store.tables[PAIRS_TABLE] = table = CountTable(list(PAIRS_KEYS))
    table.add([first[pair], second[pair], *(values[digit] for digit in digits)], w, n, w2, exponent)
    store.tables[OWN_TABLE] = own = CountTable(list(OWN_KEYS))
    judge, cell = np.nonzero(own_cells[0])
    n, w, w2 = (None if field is None else field[judge, cell] for field in own_cells)  # now the judges' own
    own.add([judge, values[cell // span], values[cell % span]], w, np.rint(n).astype(np.int64), w2, exponent)
    if clusters is not None:
        counted = Store()
        count_clusters(counted, clusters, shape, lambda: dict(zip(PAIRED_KEYS[:2], (flat_references, labels[0]))), weights)
        store.settings.update(counted.settings)
        if CLUSTERS in counted.tables:  # counted: every judge's and every pair's; else only noted (settings)
            store.tables[OWN_CLUSTERS.format(0)] = counted.tables[CLUSTERS]
            again = dataclasses.replace(clusters, on_ids=None)  # the default ids (leading axis) are handed out once a batch
            for name, features in [(OWN_CLUSTERS.format(i), (flat_references, labels[i])) for i in range(1, size)] + [
                    (PAIR_CLUSTERS.format(i, j), (flat_references, labels[i], labels[j])) for i, j in zip(first.tolist(), second.tolist())]:
                counted = Store()
                count_clusters(counted, again, shape, dict(zip(PAIRED_KEYS, features)), weights)
                store.tables[name] = counted.tables[CLUSTERS]
    return store


def _pair_rows(span: int, codes: List[np.ndarray], weights: Optional[np.ndarray], squares: Optional[np.ndarray]):
    """Every pair's present cells as rows ``(pair, cell, n, w, w2)`` (cells ``(r * span + a) * span + b``,
    pairs in ``np.triu_indices`` order; ``w``, ``w2`` None unweighted), and every judge's own counts
    ``[n, w, w2]``, each (judges, span^2)."""
    size = len(codes) - 1
    first, second = np.triu_indices(size, 1)
    if span <= FAST_SPAN and first.size * span**3 <= DENSE_PAIR_CELLS:
        # Every pair's cells in one (pairs, span^3) array: many judges by products of their one-hot labels.
        if size > MATRIX_JUDGES:
            dense = _matrix_cells(span, codes, weights, squares)
        else:
            joint = _joint_cells(span, codes[0], codes[1:], weights, squares)
            dense = [None if joint[(0, 1)][part] is None else np.stack([joint[pair][part] for pair in zip(first.tolist(), second.tolist())])
                     for part in range(3)]
        pair, cell = np.nonzero(dense[0])
        rows = (pair, cell, *(None if field is None else field[pair, cell] for field in dense))
        # Each judge's own counts: the margin of its pair with the next judge over that judge (the last
        # judge's, of its pair with the one before): the same items, counted once already.
        following = pair_position(np.minimum(np.arange(size), size - 2), np.minimum(np.arange(size) + 1, size - 1), size)
        own = [None if field is None else np.concatenate([
            field[following[:-1]].reshape(size - 1, span, span, span).sum(axis=3),
            field[following[-1]].reshape(1, span, span, span).sum(axis=2)]).reshape(size, span * span) for field in dense]
    else:
        if span <= FAST_SPAN:
            joint = _joint_cells(span, codes[0], codes[1:], weights, squares)
            parts = [(np.flatnonzero(joint[pair][0]), *joint.pop(pair)) for pair in zip(first.tolist(), second.tolist())]
            parts = [(present, *(None if field is None else field[present] for field in fields)) for present, *fields in parts]
        else:  # many classes: each pair's distinct (reference, a, b) cells
            parts = [_counted((codes[0] * span + codes[i + 1]) * span + codes[j + 1], None, weights, squares)
                     for i, j in zip(first.tolist(), second.tolist())]
        pair = np.concatenate([np.full(part[0].size, index) for index, part in enumerate(parts)])
        rows = (pair, *(None if fields[0] is None else np.concatenate(fields) for fields in zip(*parts)))
        own = [np.zeros((size, span * span)) if part == 0 or weights is not None else None for part in range(3)]
        for judge in range(size):
            cell, *sums = _counted(codes[0] * span + codes[judge + 1], span * span, weights, squares)
            for field, summed in zip(own, sums):
                if field is not None:
                    field[judge, cell] = summed
    return (rows[0], rows[1], np.rint(rows[2]).astype(np.int64), rows[3], rows[4]), own


def _counted(code: np.ndarray, length: Optional[int], weights: Optional[np.ndarray], squares: Optional[np.ndarray]):
    """``(cells, n, w, w2)`` of the items' cell codes: the present cells (sorted), their counts and,
    weighted, their sums of weights and of squared weights (None unweighted). ``length``: the number
    of cells (one bincount), or None (too many for one: the present ones are found first). ``weights``
    may be counts of items already merged (floats), whose sums are then the counts."""
    cells = None
    if length is None:
        cells, code = np.unique(code, return_inverse=True)
        length = cells.size
    n = np.bincount(code, minlength=length)
    present = np.flatnonzero(n)
    return (present if cells is None else cells[present], n[present].astype(np.int64),
            None if weights is None else np.bincount(code, weights, minlength=length)[present],
            None if weights is None else np.bincount(code, squares, minlength=length)[present])


def _label_codes(references: np.ndarray, labels: List[np.ndarray], names: List[str]) -> Tuple[np.ndarray, List[np.ndarray]]:
    """The distinct values of the references and every judge's labels (sorted), and each item's
    index among them, ``codes[0]`` the references', ``codes[1 + i]`` judge i's. Labels of another
    kind than the references' (strings against integers) are refused, naming the judge."""
    kind = label_kind(references) if references.size else None
    for name, array in zip(names, labels):
        if kind is not None and array.size and label_kind(array) != kind:
            raise TypeError(f"judges[{name!r}]: expected {kind} labels like the references, found {label_kind(array)}s.")
    arrays = [references, *labels]
    if references.size and all(array.dtype.kind in "iu" for array in arrays):
        low, high = min(int(array.min()) for array in arrays), max(int(array.max()) for array in arrays)
        if high - low < FAST_SPAN:  # a narrow span of integers: the codes are the labels less the lowest (as given if 0)
            return np.arange(low, high + 1, dtype=np.int64), [array.astype(np.int64, copy=False) - low if low else
                                                              array.astype(np.int64, copy=False) for array in arrays]
    values = distinct_values(arrays)
    return values, [positions(array, values, "judges", "the labels") for array in arrays]


def _matrix_cells(span: int, codes: List[np.ndarray], weights: Optional[np.ndarray] = None,
                  squares: Optional[np.ndarray] = None) -> List[Optional[np.ndarray]]:
    """Every pair i < j of judges' joint counts ``[n, w, w2]``, each (pairs, span^3) over the cells
    ``(r * span + a) * span + b`` (``w``, ``w2`` None unweighted), from ``codes`` (``codes[0]`` the
    references', ``codes[1 + i]`` judge i's, in ``[0, span)``): for the items of reference r, the
    product of their one-hot labels (items x judges * span) with itself holds every pair's counts of
    (a, b) at once (sums of 0/1 in float64 below 2^53: exact), as many judges on few items want."""
    size = len(codes) - 1
    first, second = np.triu_indices(size, 1)
    fields = [None] if weights is None else [None, weights, squares]
    found = [np.zeros((first.size, span, span, span)) for _ in fields]
    columns = np.arange(size) * span
    step = max(1, MATRIX_CHUNK // (size * span))
    for r in range(span):
        rows = np.flatnonzero(codes[0] == r)
        for start in range(0, rows.size, step):
            chunk = rows[start:start + step]
            onehot = np.zeros((chunk.size, size * span))
            onehot[np.arange(chunk.size)[:, None], columns + np.stack([code[chunk] for code in codes[1:]], axis=1)] = 1.0
            for sums, field in zip(found, fields):
                product = ((onehot if field is None else onehot * field[chunk, None]).T @ onehot).reshape(size, span, size, span)
                sums[:, r] += product[first, :, second, :]
    return [found[part].reshape(first.size, span**3) if part < len(found) else None for part in range(3)]


def _joint_cells(span: int, references: np.ndarray, labels: List[np.ndarray], weights: Optional[np.ndarray] = None,
                 squares: Optional[np.ndarray] = None) -> Dict[Tuple[int, int], Tuple[Any, ...]]:
    """Every pair i < j of judges' joint counts ``(n, w, w2)``, each over the span^3 cells
    ``(r * span + a) * span + b`` (``w``, ``w2``: the sums of ``weights`` and ``squares``, None
    unweighted; ``n`` in float64 from a group's bincount: integers, exact), for label codes in ``[0, span)``.

    Judges go in groups of g, the most for which a pair of groups with the references has at
    most ``JOINT_CELLS`` combinations (all the judges in one group when they fit; groups of one
    judge when not even two fit: each pair of judges is then one bincount of its own codes). Each
    group pair is one bincount of the items' combined codes, built chunk by chunk from the codes
    (one read of each); each pair of judges in it is then a bincount of its distinct cells,
    weighted by their counts (integers below 2^53 in float64: exact) and weight sums.
    """
    size = len(labels)
    cells: Dict[Tuple[int, int], Tuple[Any, ...]] = {}
    if span ** (size + 1) <= JOINT_CELLS:
        together = [list(range(size))]
    else:
        per_group = 1
        while span ** (2 * per_group + 3) <= JOINT_CELLS:
            per_group += 1
        groups = [list(range(start, min(start + per_group, size))) for start in range(0, size, per_group)]
        together = [a + b for index, a in enumerate(groups) for b in groups[index + 1:]]
    for members in together:
        code = np.empty(references.size, np.int64)
        for start in range(0, references.size, CODES_CHUNK):
            part = references[start:start + CODES_CHUNK].copy()
            for member in members:
                part *= span
                part += labels[member][start:start + CODES_CHUNK]
            code[start:start + CODES_CHUNK] = part
        present, n, w, w2 = _counted(code, span ** (len(members) + 1), weights, squares)
        # Digits of the combined code: the reference first, then the members in order.
        reference = present // span ** len(members) * (span * span)
        digits = [present // span ** (len(members) - 1 - place) % span for place in range(len(members))]
        counts = n.astype(np.float64)
        for first, i in enumerate(members):
            for second in range(first + 1, len(members)):
                j = members[second]
                if (i, j) not in cells:
                    pair = reference + digits[first] * span + digits[second]
                    cells[(i, j)] = tuple(None if field is None else np.bincount(pair, field, minlength=span**3) for field in (counts, w, w2))
    return cells


def has_judges(stored: Store) -> bool:
    """Whether the stored batches were given with ``judges``."""
    return stored.settings.get(JUDGES_SETTING, NO_JUDGES) != NO_JUDGES


def judge_names(stored: Store) -> List[str]:
    return json.loads(stored.settings[JUDGES_SETTING])


@dataclass(frozen=True)
class JudgesCounts:
    """Several judges on one golden set, over one class order: ``names`` in the order given,
    ``judges[i]`` judge i's confusion counts (with its clusters), ``joint[p]`` the joint counts
    (reference, judge i, judge j) of the p-th pair i < j in ``np.triu_indices`` order (``joint_w2``
    their squared weights, None unweighted), ``own[i]`` judge i's counts (K, K) on the scale of
    ``joint`` (``own_w2`` likewise), and ``pair_clusters(i, j)`` that pair's clusters."""

    names: List[str]
    judges: List[ConfusionCounts]
    joint: np.ndarray
    joint_w2: Optional[np.ndarray]
    own: np.ndarray
    own_w2: Optional[np.ndarray]
    pair_clusters: Callable[[int, int], Clusters]

    @property
    def reason(self) -> Optional[str]:
        return self.judges[0].reason

    def pair(self, i: int, j: int) -> PairedCounts:
        """Judges i and j as counted (the smaller index as the system, with the pair's clusters): a
        paired comparison's p-value does not depend on which of the two is the system."""
        i, j = min(i, j), max(i, j)
        index = pair_position(i, j, len(self.names))
        system = dataclasses.replace(self.judges[i], clusters=self.pair_clusters(i, j))
        return PairedCounts(system, self.judges[j], self.joint[index], None if self.joint_w2 is None else self.joint_w2[index])


def judges_counts(stored: Store, options: Mapping[str, Any]) -> JudgesCounts:
    """What was stored with ``judges`` (two or more), as ``JudgesCounts`` under the options.

    The rules of ``baseline_predictions`` (``paired.paired_counts``) for every judge: ``ignore_index``
    drops items, weight-0 items are dropped, each judge's labels (made labels by ``count_judges``) are
    checked against the options (errors name the judge), one class order for all: ``labels``,
    ``0..num_classes-1``, or the values seen; when the pairs would see different classes (a label only
    some judges give), every judge is counted over the classes seen anywhere, as ``labels`` would."""
    if options.get("threshold") is not None:
        raise ValueError(f"threshold: judges give labels, found threshold={options['threshold']!r} with judges; turn scores into "
                         "labels first (or rank scores one judge at a time).")
    names = judge_names(stored)
    size = len(names)
    ignore_index = options.get("ignore_index")
    own, reason = kept_rows(stored.tables.get(OWN_TABLE, CountTable(list(OWN_KEYS))).result(), ignore_index)
    pairs, _ = kept_rows(stored.tables.get(PAIRS_TABLE, CountTable(list(PAIRS_KEYS))).result(), ignore_index)
    judge_of = own.keys["judge"].astype(np.int64)
    references = own.keys["references"]
    padding = padding_values(references, stored.reference_dtypes, ignore_index)
    task, labels, num_classes, pos_label = (options.get(name) for name in ("task", "labels", "num_classes", "pos_label"))
    seen = []
    mine_of = [np.flatnonzero(judge_of == i) for i in range(size)]  # each judge's rows
    for i, mine in enumerate(mine_of):  # each judge's labels alone, as a comparison's system: errors name it
        try:
            with padding_hint(padding):
                seen.append(encode_task(references[mine], own.keys["predictions"][mine], task, labels, num_classes,
                                        pos_label).classes)
        except (ValueError, TypeError) as error:
            raise renamed(error, names[i]) from None
    if labels is None and num_classes is None and size > 2:
        # Two pairs of judges would see different classes (a pair sees the union of its judges' classes) when a class
        # is missing from two judges' own: their pair lacks it while a pair with a judge that has it does not.
        everything = distinct_values([np.asarray(found) for found in seen]).tolist()
        owned = [set(np.asarray(found).tolist()) for found in seen]
        if any(sum(value not in mine for mine in owned) >= 2 for value in everything):
            labels = everything
    with padding_hint(padding):
        encoded = encode_task(np.concatenate([references, pairs.keys["references"]]),
                              np.concatenate([own.keys["predictions"], pairs.keys["predictions"], pairs.keys["baseline_predictions"]]),
                              task, labels, num_classes, pos_label)
    warn_padding(padding, encoded, labels)
    k = encoded.num_classes
    if encoded.unobserved or k > MAX_COMPARISON_CLASSES:
        raise ValueError(f"judges: ranking counts K^3 (reference, judge, judge) cells per pair of judges; expected at most "
                         f"{MAX_COMPARISON_CLASSES} classes, found {k + encoded.unobserved:,}.")
    reference_index, pair_reference = np.split(encoded.reference_indices, [references.size])
    prediction_index, system_index, baseline_index = np.split(encoded.prediction_indices, np.cumsum([references.size, pairs.n.size]))
    judges = [system_counts(encoded, reference_index[mine], prediction_index[mine], own.select(mine), reason,
                            stored_clusters(stored, ignore_index, stored.tables.get(OWN_CLUSTERS.format(i))))
              for i, mine in enumerate(mine_of)]
    index = pair_position(pairs.keys["first"].astype(np.int64), pairs.keys["second"].astype(np.int64), size)
    joint, joint_w2 = joint_counts(((index * k + pair_reference) * k + system_index) * k + baseline_index,
                                   (size * (size - 1) // 2, k, k, k), pairs)
    # Every judge's own counts on the scale of the joint counts (the same items: the same scale).
    own_joint, own_w2 = joint_counts((judge_of * k + reference_index) * k + prediction_index, (size, k, k), own)

    def pair_clusters(i: int, j: int) -> Clusters:
        table = stored.tables.get(PAIR_CLUSTERS.format(i, j))
        return judges[i].clusters if table is None else stored_clusters(stored, ignore_index, table)

    return JudgesCounts(names, judges, joint, joint_w2, own_joint, own_w2, pair_clusters)


def pair_position(i: Any, j: Any, size: int) -> Any:
    """The position of the pair i < j (scalars or arrays) among the ``size`` judges' pairs, in
    ``np.triu_indices(size, 1)`` order."""
    return i * size - i * (i + 1) // 2 + (j - i - 1)


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
        raise renamed(error, name) from None
    store.settings = {JUDGES_SETTING: json.dumps([name]), **store.settings}
    return store
