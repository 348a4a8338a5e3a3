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
it is rough. Coverage: ``python examples/cluster_study.py`` (the cards' tables).
"""

import math
import warnings
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from .counts import CountTable
from .counts import JointCounts
from .counts import kept_rows
from .inputs import as_array
from .inputs import as_labels

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
        otherwise a later interval is NaN with reason "clusters_not_counted". Values
        without an interval never change."""

# The store's table of (cluster, reference, feature) counts; "_" keeps it out of len(store).
CLUSTERS = "_clusters"
# Below this many clusters an interval is rough (its variance has few degrees of freedom): warned.
FEW_CLUSTERS = 10
SINGLE_CLUSTER = "single_cluster"
# The reason of a NaN interval for N-d inputs that were added without their clusters.
CLUSTERS_NOT_COUNTED = "clusters_not_counted"
# Whether a batch was counted with its clusters: every batch must agree (Store.merge checks settings).
CLUSTERS_SETTING = "clusters"
COUNTED, NOT_COUNTED = "counted with every batch", "not counted (no clusters= and, for N-d inputs, no confidence_level at evaluate.load)"
# Default cluster ids are (process id << ORIGIN_SHIFT) + a running count of leading elements:
# distinct across batches and across processes.
ORIGIN_SHIFT = 40


@dataclass
class ClusterSpec:
    """How one batch's samples are clustered: ``given`` (the user's ``clusters=``, or None),
    ``counted`` (whether to count clusters at all: given, or an interval may be asked for)
    and ``origin`` (the first default id of this batch)."""

    given: Any = None
    counted: bool = False
    origin: int = 0
    on_ids: Optional[Callable[[int], None]] = None  # told how many default ids a batch took

    def ids(self, shape: Sequence[int]) -> Optional[np.ndarray]:
        """One cluster id per element of an input of ``shape`` (flattened), or None when not counted.

        ``clusters`` of length ``shape[0]`` give each leading element's id to all of its
        elements; an array of ``shape`` gives each element its own. Without ``clusters``, a
        1-D input has no clusters (each sample stands alone: None) and an N-d one has one
        cluster per leading element.

        Examples
        --------
        >>> ClusterSpec(["a", "a", "b"], True).ids((3,)).tolist()
        ['a', 'a', 'b']
        >>> ClusterSpec(None, True, origin=5).ids((2, 3)).tolist()
        [5, 5, 5, 6, 6, 6]
        >>> ClusterSpec(None, True).ids((4,)) is None
        True
        """
        leading = self.leading_ids(shape)
        if leading is None or leading.ndim == 1 and len(tuple(shape)) == 1:
            return leading
        if leading.shape[-1] == 1:  # one id per leading element: repeated over its elements
            return np.broadcast_to(leading, (leading.shape[0], math.prod(tuple(shape)[1:]))).ravel()
        return leading.ravel()

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
        return cluster_ids(self.given, shape, flat=False)


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
    # Keys as (N, rest): a leading element's one id broadcasts over its elements, never copied.
    rows = (shape[0], -1) if shape else (1, -1)
    if batch_counts is not None and ids.size and (ids == ids.flat[0]).all():
        counted = batch_counts()
        names = list(counted.keys)
        table = CountTable(["clusters", *names])
        one = np.full(counted.n.size, ids.flat[0], dtype=ids.dtype)
        table.add([one, *(counted.keys[name] for name in names)], counted.w, counted.n, counted.w2, counted.w2_exponent)
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
    ids = None if spec is None else spec.ids(shape)
    if ids is None and spec is not None and spec.given is None and len(tuple(shape)) >= 2:
        store.settings[CLUSTERS_NOT_COUNTED] = True
    return raw if ids is None else {**raw, "clusters": ids}


def stored_clusters(stored: Any, ignore_index: Any, table: Optional[CountTable] = None) -> Tuple[Optional[JointCounts], Optional[str]]:
    """The kept (cluster, ...) counts of a ``Store`` (``ignore_index`` and weight-0 samples dropped
    as from the module's counts; ``table``: its ``CLUSTERS`` table, if not the stored one), or
    None with the reason an interval cannot know the clusters."""
    table = stored.tables.get(CLUSTERS) if table is None else table
    if table is None:
        return None, CLUSTERS_NOT_COUNTED if stored.settings.get(CLUSTERS_NOT_COUNTED) else None
    rows, _ = kept_rows(table.result(), ignore_index)
    return rows, None


def cluster_ids(clusters: Any, shape: Sequence[int], flat: bool = True) -> np.ndarray:
    """``clusters`` as one integer or string id per element of an input of ``shape`` (flattened;
    ``flat=False``: ``(N, 1)`` for one id per leading element of an N-d input, ``(N, rest)`` for one
    per element, ``(N,)`` for a 1-D input).

    Examples
    --------
    >>> cluster_ids([7, 8], (2, 2)).tolist()
    [7, 7, 8, 8]
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
        return ids.ravel() if flat or len(shape) < 2 else ids.reshape(samples, -1)
    if ids.ndim == 1 and ids.size == samples:
        if len(shape) < 2:
            return ids
        return np.repeat(ids, math.prod(shape[1:])) if flat else ids[:, None]
    found = ids.size if ids.ndim == 1 else f"shape {ids.shape}"
    expected = f"{samples:,}" if len(shape) < 2 else f"{samples:,} (one per leading element) or shape {shape}"
    raise ValueError(f"clusters: expected one cluster id per sample ({expected}), found {found}.")


def t_quantile(probability: float, degrees_of_freedom: float) -> float:
    """Student's t quantile for ``probability`` > 1/2 and any real degrees of freedom >= 1 (to
    about 1e-9): exact for 1 and 2; else Newton's method, kept inside a bracket, on the t
    distribution function (Simpson's rule on its density).

    Examples
    --------
    >>> round(t_quantile(0.975, 19), 4), round(t_quantile(0.975, 1), 4)  # tables: 2.0930, 12.7062
    (2.093, 12.7062)
    """
    nu = float(degrees_of_freedom)
    if math.isinf(nu):
        return NormalDist().inv_cdf(probability)
    if nu == 1:
        return math.tan(math.pi * (probability - 0.5))
    if nu == 2:
        return (2 * probability - 1) / math.sqrt(2 * probability * (1 - probability))
    log_scale = math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi)

    def density(x):
        return np.exp(log_scale - (nu + 1) / 2 * np.log1p(x * x / nu))

    def below(t):
        grid = np.linspace(0.0, t, 2049)
        weights = np.ones(grid.size)
        weights[1:-1:2], weights[2:-1:2] = 4.0, 2.0
        return 0.5 + float(np.sum(weights * density(grid))) * t / (3 * (grid.size - 1))

    # The quantile lies between the normal one and that of 1 degree of freedom (heavier tails).
    low, high = NormalDist().inv_cdf(probability), math.tan(math.pi * (probability - 0.5))
    t = min(max(low, t_quantile(probability, 2) if nu < 2 else low * (1 + (1 + low * low) / (4 * nu))), high)
    for _ in range(60):
        error = below(t) - probability
        if abs(error) < 1e-13:
            break
        low, high = (t, high) if error < 0 else (low, t)
        step = t - error / float(density(t))
        t = step if low < step < high else (low + high) / 2
    return t


@dataclass
class DesignEffect:
    """A value's cluster design effect: ``factor`` divides the effective sizes of its interval
    (1.0 without clusters); ``num_clusters`` (None without clusters); ``reason``: why no
    interval can be had (NaN), else None."""

    factor: float = 1.0
    num_clusters: Optional[int] = None
    reason: Optional[str] = None
    measured: float = 1.0  # the variance ratio itself, before the conservative choices

    @classmethod
    def refused(cls, reason: str, num_clusters: Optional[int] = None) -> "DesignEffect":
        """No interval can be had, for ``reason`` (NaN factor and ratio)."""
        return cls(math.nan, num_clusters, reason, math.nan)

    def outputs(self, name: str) -> Dict[str, Any]:
        """What a result says of the clusters behind its interval ``name``: ``num_clusters`` and
        ``design_effect`` (the measured variance ratio), or the interval NaN with ``<name>_reason``."""
        if self.reason is not None:
            return {name: [math.nan, math.nan], f"{name}_reason": self.reason}
        if self.num_clusters is None:
            return {}
        return {"num_clusters": int(self.num_clusters), "design_effect": float(self.measured)}

    def scale(self, sizes: Any) -> Any:
        """Effective sizes as many independent samples as the clusters are worth."""
        return None if sizes is None else np.asarray(sizes, dtype=np.float64) / self.factor


NO_CLUSTERS = DesignEffect()


def design_effect(influence: np.ndarray, rows: JointCounts, cluster_index: np.ndarray, confidence_level: float,
                  warn: bool = True) -> DesignEffect:
    """The design effect of a value whose influence per sample is ``influence`` (one per row
    of ``rows``: the counted (cluster, ...) tuples), the clusters being ``cluster_index``
    (0..G-1 per row). See the module doc for the formula and the conservative choices.

    Examples
    --------
    Two classes, four clusters of two items each, both items of a cluster alike: the
    variance is that of four samples, not eight.

    >>> rows = JointCounts({"clusters": np.arange(4)}, np.full(4, 2))
    >>> effect = design_effect(np.array([0.5, -0.5, 0.5, -0.5]), rows, np.arange(4), 0.95, warn=False)
    >>> round(effect.measured, 6)  # 4 (2 x 0.5)^2 / (1 - 1/4) / (8 x 0.5^2)
    2.666667
    """
    num_clusters = int(cluster_index.max()) + 1 if cluster_index.size else 0
    if num_clusters < 2:
        return DesignEffect.refused(SINGLE_CLUSTER, num_clusters)
    if warn and num_clusters < FEW_CLUSTERS:
        _warn_few(num_clusters, 5)
    influence = np.asarray(influence, dtype=np.float64)
    weight = rows.weight.astype(np.float64)
    squared = rows.n.astype(np.float64) if rows.w is None else np.ldexp(rows.w2, 2 * rows.w2_exponent)
    independent = float(np.sum(squared * influence**2))
    per_cluster = np.bincount(cluster_index, weights=weight * influence, minlength=num_clusters)
    per_cluster -= per_cluster.mean()  # the sum is 0 for a ratio of counts; exact for any other value too
    # Each cluster's share of the independent variance: its leverage h_g under working
    # independence (m_g / N for a mean). Bell & McCaffrey's bias correction divides its squared
    # sum by 1 - h_g (G / (G - 1) for clusters alike, the usual factor); a large cluster's sum
    # is pulled towards the estimate it dominates, which uncorrected makes the interval short.
    shares = np.bincount(cluster_index, weights=squared * influence**2, minlength=num_clusters)
    leverage = shares / shares.sum() if shares.sum() > 0 else np.full(num_clusters, 1.0 / num_clusters)
    clustered = float(np.sum(per_cluster**2 / np.maximum(1.0 - leverage, 0.05)))
    # Degrees of freedom: G - 1 for clusters alike; fewer when a few clusters carry most of the
    # variance (unequal sizes): the Kish effective number of clusters of those shares.
    effective = float(1.0 / np.sum(leverage**2))
    return _design_effect(clustered, independent, num_clusters, max(1.0, min(float(num_clusters), effective) - 1.0),
                          confidence_level)


def design_effect_from_sums(squares: float, total: float, num_clusters: int, independent: float, confidence_level: float,
                            warn: bool = True, stacklevel: int = 4) -> DesignEffect:
    """The design effect from ``squares`` = sum_g u_g^2 and ``total`` = sum_g u_g of the
    clusters' summed influences u_g, their number, and the independent variance
    sum_i w_i^2 psi_i^2 (what ``design_effect`` computes from rows; a module with its own
    sufficient statistics, such as cross-sums over clusters, computes these sums from them).
    Without each cluster's share of the variance, the clusters are taken as alike: the
    usual G / (G - 1) and t on G - 1 degrees of freedom (no leverage correction).

    Examples
    --------
    >>> round(design_effect_from_sums(4.0, 0.0, 4, 2.0, 0.95, warn=False).measured, 6)  # 4 / 3 x 4 / 2
    2.666667
    """
    if num_clusters < 2:
        return DesignEffect.refused(SINGLE_CLUSTER, num_clusters)
    if warn and num_clusters < FEW_CLUSTERS:
        _warn_few(num_clusters, stacklevel + 1)
    centred = max(squares - total * total / num_clusters, 0.0)  # sum_g (u_g - mean u)^2
    return _design_effect(num_clusters / (num_clusters - 1) * centred, independent, num_clusters, num_clusters - 1.0,
                          confidence_level)


def _warn_few(num_clusters: int, stacklevel: int) -> None:
    warnings.warn(f"clusters: the interval rests on {num_clusters} clusters (fewer than {FEW_CLUSTERS}); its "
                  "variance has few degrees of freedom, so the interval is rough.", UserWarning, stacklevel=stacklevel)


def _design_effect(clustered: float, independent: float, num_clusters: int, degrees_of_freedom: float,
                   confidence_level: float) -> DesignEffect:
    """The variance ratio, at least 1 and widened from z to t on ``degrees_of_freedom`` (module doc)."""
    # Not finite only for weights near float64's limits (squares lost or overflowing): taken as 1.
    finite = math.isfinite(clustered) and math.isfinite(independent)
    measured = clustered / independent if finite and independent > 0 else 1.0
    probability = 0.5 + confidence_level / 2.0
    widening = (t_quantile(probability, degrees_of_freedom) / NormalDist().inv_cdf(probability)) ** 2
    return DesignEffect(max(measured, 1.0) * widening, num_clusters, None, measured)


def index_rows(rows: JointCounts, key: str, classes: np.ndarray) -> np.ndarray:
    """The position of each row's ``key`` value in ``classes`` (-1 where it is not a class)."""
    values = rows.keys[key]
    lookup = {value: index for index, value in enumerate(np.asarray(classes).tolist())}
    distinct, inverse = np.unique(values, return_inverse=True)
    positions = np.array([lookup.get(value, -1) for value in distinct.tolist()], dtype=np.intp)
    return positions[inverse.reshape(-1)] if positions.size else np.zeros(0, dtype=np.intp)


def cluster_positions(rows: JointCounts) -> np.ndarray:
    """Each row's cluster as 0..G-1."""
    if not rows.n.size:
        return np.zeros(0, dtype=np.intp)
    return np.unique(rows.keys["clusters"], return_inverse=True)[1].reshape(-1)
