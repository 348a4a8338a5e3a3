"""Clusters: which samples are independent, and a value's cluster-robust variance from counts.

Every interval here treats its counted units as independent draws. Pixels of one image,
tokens of one sequence, the labels of one multilabel sample and golden items from one
conversation are not: they share a difficulty, and an interval that treats them as
independent is too narrow by the *design effect* D (the ratio of the true variance to
the independent one), whatever the number of samples.

A cluster is a unit that is independent of the others. ``clusters=`` (one id per sample,
any integers or strings) names them; an N-d input (``(N, H, W)`` segmentation maps,
``(N, T)`` token sequences) makes each element of its leading axis one cluster by
default. Clusters are counted beside the module's own counts, as a table of
(cluster, reference, feature) tuples - the feature is what the value's derivative
depends on: whether a prediction is right (balanced accuracy), the prediction itself
(informedness) - so ``add_batch``, distributed merging and ``compute`` treat it like any
other count table, and its size follows the number of clusters times the cells each
one fills, never the number of samples.

The variance of a value theta (a smooth function of counts) is linearised: a sample in
cell x moves theta by its influence psi(x) (the derivative of theta with respect to that
cell's count), so with independent samples Var = sum_i w_i^2 psi(x_i)^2, and with
clusters g the sandwich (Liang & Zeger; the linearisation of survey statistics)
Var_cl = sum_g (sum_{i in g} w_i psi(x_i))^2 / (1 - h_g), with Bell & McCaffrey's bias
correction: h_g is cluster g's share of the independent variance (its leverage; 1/G for
clusters alike, where the correction is the usual G / (G - 1)). Their ratio is the design
effect, and every interval method of a module divides its effective sizes by it: Wilson,
Agresti-Coull and MOVER, the count bootstraps and the delta method then see as many
independent samples as the clusters are worth. Two conservative choices, for few or
unequal clusters: a design effect below 1 is not used to narrow an interval (with few
clusters it is mostly noise), and it is multiplied by ``(t_df / z)^2``, so that a
normal-quantile interval is as wide as the t interval on df = G* - 1 degrees of freedom,
G* = 1 / sum_g h_g^2 being the effective number of clusters (G for clusters alike, fewer
when a few large ones carry most of the variance). One cluster gives no variance: the
interval is NaN with reason ``"single_cluster"``; fewer than ``FEW_CLUSTERS`` warn that
it is rough. Coverage: ``studies/cluster_coverage/study.py`` (its tables in docs/clusters.md).
"""

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Sequence, Union

import numpy as np

from .counts import CountTable
from .counts import JointCounts
from .counts import kept_rows
from .inputs import as_array
from .inputs import as_labels
from .labels import positions

# How every module documents clusters= (its _KWARGS_DESCRIPTION).
CLUSTERS_DOC = """clusters (array-like, optional): one id per sample (integers or strings) naming
        the independent units: the conversation or prompt behind several golden items, the
        document behind several sentences, the image behind its pixels. N-d inputs
        ((N, H, W) segmentation maps, (N, T) token sequences) make each element of the
        leading axis one cluster by default; `clusters=` (one id per leading element, or one
        per element) overrides it. With `confidence_level`, the interval then uses a
        cluster-robust variance: every `ci_method` sees the effective sizes divided by the
        design effect (the variance with clusters over the variance with independent
        samples, both linearised, with Bell & McCaffrey's small-sample correction; at
        least 1, and widened to Student's t on the effective number of clusters minus 1),
        and the result adds `num_clusters` and `design_effect` (the measured ratio, which
        may be below 1). One cluster: a NaN interval with reason "single_cluster"; fewer
        than 10 warn that the interval is rough. `add_batch` counts an N-d batch's clusters only when
        `confidence_level` was given to `evaluate.load` (or `clusters=` with the batch);
        otherwise a later interval is NaN with reason "clusters_not_counted" and a
        UserWarning that names the fix: evaluate.load(..., confidence_level=0.95), or
        `clusters=` with each batch. Values without an interval never change."""

# The store's table of (cluster, reference, feature) counts; "_" keeps it out of len(store).
CLUSTERS = "_clusters"
# The reason of a NaN interval for N-d inputs that were added without their clusters.
CLUSTERS_NOT_COUNTED = "clusters_not_counted"
# Whether a batch was counted with its clusters: every batch must agree (Store.merge checks settings).
CLUSTERS_SETTING = "clusters"
COUNTED, NOT_COUNTED = "counted with every batch", "not counted (no clusters= and, for N-d inputs, no confidence_level at evaluate.load)"
# Set when some batch's clusters were its leading elements (N-d inputs, no clusters=): results
# say so (``clusters_from``), as a list of per-batch arrays read as one array clusters by batch.
CLUSTERS_FROM_LEADING_AXIS = "clusters_from_leading_axis"
LEADING_AXIS = "leading_axis"
# Default cluster ids are (process id << ORIGIN_SHIFT) + a running count of leading elements:
# distinct across batches and across processes.
ORIGIN_SHIFT = 40


@dataclass(frozen=True)
class Clusters:
    """The clusters of a counts object, fixed when it is built: ``rows``, the counted
    (cluster, reference, feature) tuples of the kept samples (None: samples independent), and
    ``reason``, why an interval cannot know them (N-d inputs added without them), or None;
    ``from_leading_axis``: some were the leading elements of N-d inputs (no ``clusters=``)."""

    rows: Optional[JointCounts] = None
    reason: Optional[str] = None
    from_leading_axis: bool = False

    @property
    def counted(self) -> bool:
        return self.rows is not None


UNCLUSTERED = Clusters()


@dataclass(frozen=True)
class ClusterSums:
    """What a design effect needs of a counts object for one influence psi (``stats.design_effect``):
    the number of clusters G, the independent variance sum_i w_i^2 psi_i^2, and either each
    cluster's summed influence u_g (centred) with its share of that variance, or, where the
    counts keep only cross-sums, sum_g u_g^2 and sum_g u_g (the clusters then taken as alike).
    ``singletons``: no cluster holds two entries (each a cluster of its own), so the clustered
    variance is the independent one, with nothing estimated."""

    num_clusters: int
    independent: float
    sums: Optional[np.ndarray] = None
    shares: Optional[np.ndarray] = None
    squares: float = 0.0
    total: float = 0.0
    singletons: bool = False


@dataclass(frozen=True)
class RecallInfluence:
    """How one more sample of class c moves a mean of recalls: ``right[c]`` predicted right,
    ``wrong[c]`` predicted wrong (``metrics/balanced_accuracy.py`` ``recall_influence``); ``k``: the top-k of it."""

    right: np.ndarray
    wrong: np.ndarray
    k: Optional[int] = None


def midpoint_influence(first: Any, second: Any) -> Any:
    """The mean of two influences of one form (two ``RecallInfluence``s, or two gradients)."""
    if isinstance(first, RecallInfluence):
        return RecallInfluence((np.asarray(first.right) + second.right) / 2.0, (np.asarray(first.wrong) + second.wrong) / 2.0, first.k)
    return (np.asarray(first, dtype=np.float64) + np.asarray(second, dtype=np.float64)) / 2.0


def row_cluster_sums(influence: np.ndarray, rows: JointCounts) -> ClusterSums:
    """The ``ClusterSums`` of counted (cluster, ...) ``rows`` whose samples have ``influence`` (one per row).

    Examples
    --------
    Four clusters of two items each, both items of a cluster alike:

    >>> sums = row_cluster_sums(np.array([0.5, -0.5, 0.5, -0.5]), JointCounts({"clusters": np.arange(4)}, np.full(4, 2)))
    >>> sums.num_clusters, sums.independent, sums.sums.tolist(), sums.shares.tolist()
    (4, 2.0, [1.0, -1.0, 1.0, -1.0], [0.5, 0.5, 0.5, 0.5])
    """
    cluster_index = cluster_positions(rows)
    num_clusters = int(cluster_index.max()) + 1 if cluster_index.size else 0
    influence = np.asarray(influence, dtype=np.float64)
    weight = rows.weight.astype(np.float64)
    squared = rows.n.astype(np.float64) if rows.w is None else np.ldexp(rows.w2, 2 * rows.w2_exponent)
    independent = float(np.sum(squared * influence**2))
    per_cluster = np.bincount(cluster_index, weights=weight * influence, minlength=num_clusters)
    per_cluster -= per_cluster.mean() if num_clusters else 0.0  # the sum is 0 for a ratio of counts; exact for any other value too
    # Each cluster's share of the independent variance: its leverage under working independence.
    shares = np.bincount(cluster_index, weights=squared * influence**2, minlength=num_clusters)
    return ClusterSums(num_clusters, independent, per_cluster, shares, singletons=every_cluster_single(cluster_index, rows))


def every_cluster_single(cluster_index: np.ndarray, rows: JointCounts) -> bool:
    """No cluster holds two samples (every item its own cluster): nothing to estimate beyond
    independence. ``cluster_index``: each row's cluster as 0..G-1 (``cluster_positions``)."""
    held = np.bincount(cluster_index, weights=rows.n.astype(np.float64))
    return bool(held.size) and float(held.max()) <= 1.0


@dataclass
class ClusterSpec:
    """How one batch's samples are clustered: ``given`` (the user's ``clusters=``, or None),
    ``counted`` (whether to count clusters at all: given, or an interval may be asked for)
    and ``origin`` (the first default id of this batch)."""

    given: Any = None
    counted: bool = False
    origin: int = 0
    on_ids: Optional[Callable[[int], None]] = None  # told how many default ids a batch took

    def leading_ids(self, shape: Sequence[int]) -> Optional[np.ndarray]:
        """The ids as ``(N, 1)`` (one per leading element; ``(N,)`` for a 1-D input), or ``(N, rest)``
        (one per element), or None: broadcastable against the input as ``(N, rest)``, never copied
        per element when one id covers a leading element."""
        shape = tuple(shape)
        if self.given is None:
            if not self.counted or len(shape) < 2:
                return None
            if self.on_ids is not None:
                self.on_ids(shape[0])
            return np.arange(self.origin, self.origin + shape[0], dtype=np.int64)[:, None]
        return cluster_ids(self.given, shape)


def element_cluster_ids(spec: ClusterSpec, shape: Sequence[int]) -> Optional[np.ndarray]:
    """``spec``'s cluster id of each element of an input of ``shape`` (flattened), or None when not counted.

    ``clusters`` of length ``shape[0]`` give each leading element's id to all of its
    elements; an array of ``shape`` gives each element its own. Without ``clusters``, a
    1-D input has no clusters (each sample stands alone: None) and an N-d one has one
    cluster per leading element.

    Examples
    --------
    >>> element_cluster_ids(ClusterSpec(["a", "a", "b"], True), (3,)).tolist()
    ['a', 'a', 'b']
    >>> element_cluster_ids(ClusterSpec(None, True, origin=5), (2, 3)).tolist()
    [5, 5, 5, 6, 6, 6]
    >>> element_cluster_ids(ClusterSpec(None, True), (4,)) is None
    True
    """
    leading = spec.leading_ids(shape)
    if leading is None or leading.ndim == 1:  # a 1-D input's ids
        return leading
    if leading.shape[-1] == 1:  # one id per leading element: repeated over its elements
        return np.broadcast_to(leading, (leading.shape[0], math.prod(tuple(shape)[1:]))).ravel()
    return leading.ravel()


def count_clusters(store: Any, spec: Optional[ClusterSpec], shape: Sequence[int],
                   features: Union[Dict[str, np.ndarray], Callable[[], Dict[str, np.ndarray]]],
                   weights: Optional[np.ndarray] = None, batch_counts: Optional[Callable[[], JointCounts]] = None) -> None:
    """Count one batch's (cluster, *features) tuples into ``store``'s ``CLUSTERS`` table, as
    ``spec`` says (see ``ClusterSpec``); N-d inputs added without clusters are noted instead
    (an interval asked for later cannot know them). ``features``: per-sample key arrays, or a
    function giving them (computed only when they are counted). ``batch_counts``: the batch's
    counts of the same features, when the module has them; a batch that is one cluster (one image per
    ``add_batch``) is then counted from them, without a second pass over its samples."""
    if spec is None:
        return
    shape = tuple(shape)
    ids = spec.leading_ids(shape)
    # Every batch with its clusters or none (Store.merge refuses a batch whose setting differs).
    store.settings[CLUSTERS_SETTING] = COUNTED if ids is not None else NOT_COUNTED
    if ids is None:
        if len(shape) >= 2 and spec.given is None:
            store.settings[CLUSTERS_NOT_COUNTED] = True
        return
    if spec.given is None:
        store.settings[CLUSTERS_FROM_LEADING_AXIS] = True
    # Keys as (N, rest): a leading element's one id broadcasts over its elements, never copied.
    rows = (shape[0], -1) if shape else (1, -1)
    if batch_counts is not None and ids.size and (ids == ids.flat[0]).all():
        counted = batch_counts()
        one = np.full(counted.n.size, ids.flat[0], dtype=ids.dtype)
        table = CountTable(["clusters", *counted.keys])
        table.add([one, *counted.keys.values()], counted.w, counted.n, counted.w2, counted.w2_exponent)
    else:
        features = features() if callable(features) else features  # per sample: computed only here
        table = CountTable(["clusters", *features])
        table.add([ids if ids.ndim == 2 else ids.reshape(rows)] + [values.reshape(rows) for values in features.values()],
                  None if weights is None else weights.reshape(rows))
    store.tables[CLUSTERS] = table


def raw_with_clusters(store: Any, spec: Optional[ClusterSpec], shape: Sequence[int], raw: Dict[str, Any]) -> Dict[str, Any]:
    """A batch's raw columns (scores a compute-time threshold or ``labels`` still has to count)
    with each sample's cluster beside them, as ``spec`` says; N-d inputs kept without clusters
    are noted, as ``count_clusters`` notes them."""
    ids = None if spec is None else element_cluster_ids(spec, shape)
    if spec is not None:  # as count_clusters: Store.merge refuses a batch with clusters beside one without
        store.settings[CLUSTERS_SETTING] = COUNTED if ids is not None else NOT_COUNTED
    if ids is None and spec is not None and spec.given is None and len(tuple(shape)) >= 2:
        store.settings[CLUSTERS_NOT_COUNTED] = True
    if ids is not None and spec.given is None:
        store.settings[CLUSTERS_FROM_LEADING_AXIS] = True
    return raw if ids is None else {**raw, "clusters": ids}


def stored_clusters(stored: Any, ignore_index: Any, table: Optional[CountTable] = None) -> Clusters:
    """The ``Clusters`` of a ``Store``: its kept (cluster, ...) counts (``ignore_index`` and weight-0
    samples dropped as from the module's counts; ``table``: its ``CLUSTERS`` table, if not the
    stored one), or none, with the reason when an interval cannot know them."""
    table = stored.tables.get(CLUSTERS) if table is None else table
    from_leading_axis = bool(stored.settings.get(CLUSTERS_FROM_LEADING_AXIS))
    if table is None:
        return Clusters(None, CLUSTERS_NOT_COUNTED if stored.settings.get(CLUSTERS_NOT_COUNTED) else None, from_leading_axis)
    rows, _ = kept_rows(table.result(), ignore_index)
    return Clusters(rows, from_leading_axis=from_leading_axis)


def cluster_ids(clusters: Any, shape: Sequence[int]) -> np.ndarray:
    """``clusters`` as integer or string ids broadcastable against an input of ``shape`` seen as
    ``(N, rest)``: ``(N, 1)`` for one id per leading element of an N-d input, ``(N, rest)`` for one
    per element, ``(N,)`` for a 1-D input.

    Examples
    --------
    >>> cluster_ids([7, 8], (2, 2)).tolist()
    [[7], [8]]
    >>> cluster_ids([1, 2], (3,))
    Traceback (most recent call last):
    ...
    ValueError: clusters: expected one cluster id per sample (3), found 2.
    """
    shape = tuple(shape)
    ids = as_array(clusters, "clusters")
    if ids.ndim == 0:
        ids = ids.reshape(1)
    ids = as_labels(ids, "clusters", "Cluster ids are integers or strings.")
    samples = shape[0] if shape else 1
    if ids.shape == shape:
        return ids if len(shape) < 2 else ids.reshape(samples, -1)
    if ids.ndim == 1 and ids.size == samples:
        return ids if len(shape) < 2 else ids[:, None]
    found = ids.size if ids.ndim == 1 else f"shape {ids.shape}"
    expected = f"{samples:,}" if len(shape) < 2 else f"{samples:,} (one per leading element) or shape {shape}"
    raise ValueError(f"clusters: expected one cluster id per sample ({expected}), found {found}.")


def index_rows(rows: JointCounts, key: str, classes: np.ndarray) -> np.ndarray:
    """The position of each row's ``key`` value in ``classes`` (-1 where it is not a class)."""
    return positions(rows.keys[key], np.asarray(classes))


def cluster_positions(rows: JointCounts) -> np.ndarray:
    """Each row's cluster as 0..G-1."""
    return np.unique(rows.keys["clusters"], return_inverse=True)[1].reshape(-1)
