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
clusters g (Liang & Zeger's sandwich; the linearisation of survey statistics)
Var_cl = G / (G - 1) sum_g (sum_{i in g} w_i psi(x_i))^2. Their ratio is the design effect,
and every interval method of a module divides its effective sizes by it: Wilson,
Agresti-Coull and MOVER, the count bootstraps and the delta method then see as many
independent samples as the clusters are worth. Two conservative choices, both for few
clusters: a design effect below 1 is not used to narrow an interval (with few clusters
it is mostly noise), and it is multiplied by ``(t_{G-1} / z)^2``, so that a normal-quantile
interval is as wide as the t interval on G - 1 degrees of freedom. One cluster gives no
variance: the interval is NaN with reason ``"single_cluster"``; fewer than
``FEW_CLUSTERS`` warn that it is rough.
"""

import math
import warnings
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np

from .counts import CountTable
from .counts import JointCounts
from .inputs import as_array
from .inputs import as_labels

# The store's table of (cluster, reference, feature) counts; "_" keeps it out of len(store).
CLUSTERS = "_clusters"
# Below this many clusters an interval is rough (its variance has few degrees of freedom): warned.
FEW_CLUSTERS = 10
SINGLE_CLUSTER = "single_cluster"
# The reason of a NaN interval for N-d inputs that were added without their clusters.
CLUSTERS_NOT_COUNTED = "clusters_not_counted"
# Default cluster ids are (batch origin << ORIGIN_SHIFT) + leading index: distinct across
# batches (a running offset) and processes (the process id in the high bits).
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


def count_clusters(store: Any, spec: Optional[ClusterSpec], shape: Sequence[int], features: Dict[str, np.ndarray],
                   weights: Optional[np.ndarray] = None, batch_counts: Optional[Callable[[], JointCounts]] = None) -> None:
    """Count one batch's (cluster, *features) tuples into ``store``'s ``CLUSTERS`` table, as
    ``spec`` says (see ``ClusterSpec``); N-d inputs added without clusters are noted instead
    (an interval asked for later cannot know them). ``batch_counts``: the batch's counts of
    the same features, when the module has them; a batch that is one cluster (one image per
    ``add_batch``) is then counted from them, without a second pass over its samples."""
    if spec is None:
        return
    shape = tuple(shape)
    ids = spec.leading_ids(shape)
    if ids is None:
        if len(shape) >= 2 and spec.given is None:
            store.settings[CLUSTERS_NOT_COUNTED] = True
        return
    # Keys as (N, rest): a leading element's one id broadcasts over its elements, never copied.
    rows = (shape[0], -1) if shape else (1, -1)
    table = CountTable(["clusters", *features])
    if batch_counts is not None and ids.size and (ids == ids.flat[0]).all():
        counted = batch_counts()
        one = np.full(counted.n.size, ids.flat[0], dtype=ids.dtype)
        table.add([one, *(counted.keys[name] for name in features)], counted.w, counted.n, counted.w2, counted.w2_exponent)
    else:
        table.add([ids if ids.ndim == 2 else ids.reshape(rows)] + [values.reshape(rows) for values in features.values()],
                  None if weights is None else weights.reshape(rows))
    store.tables[CLUSTERS] = table


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
    """Student's t quantile from the normal one (Cornish-Fisher expansion; Abramowitz & Stegun
    26.7.5), within 1e-4 of the exact value from 3 degrees of freedom on; exact at infinity.

    Examples
    --------
    >>> round(t_quantile(0.975, 19), 3)  # tables: 2.093
    2.093
    """
    z = NormalDist().inv_cdf(probability)
    nu = float(degrees_of_freedom)
    if math.isinf(nu):
        return z
    terms = (
        (z**3 + z) / 4,
        (5 * z**5 + 16 * z**3 + 3 * z) / 96,
        (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
        (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
    )
    return z + sum(term / nu ** (power + 1) for power, term in enumerate(terms))


@dataclass
class DesignEffect:
    """A value's cluster design effect: ``factor`` divides the effective sizes of its interval
    (1.0 without clusters); ``num_clusters`` (None without clusters); ``reason``: why no
    interval can be had (NaN), else None."""

    factor: float = 1.0
    num_clusters: Optional[int] = None
    reason: Optional[str] = None
    measured: float = 1.0  # the variance ratio itself, before the conservative choices

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
    >>> round(effect.measured, 6)  # G / (G - 1) * 4 (2 x 0.5)^2 / (8 x 0.5^2)
    2.666667
    """
    num_clusters = int(cluster_index.max()) + 1 if cluster_index.size else 0
    if num_clusters < 2:
        return DesignEffect(math.nan, num_clusters, SINGLE_CLUSTER, math.nan)
    influence = np.asarray(influence, dtype=np.float64)
    weight = rows.weight.astype(np.float64)
    squared = rows.n.astype(np.float64) if rows.w is None else np.ldexp(rows.w2, 2 * rows.w2_exponent)
    independent = float(np.sum(squared * influence**2))
    per_cluster = np.bincount(cluster_index, weights=weight * influence, minlength=num_clusters)
    per_cluster -= per_cluster.mean()  # the sum is 0 for a ratio of counts; exact for any other value too
    return design_effect_from_sums(float(np.sum(per_cluster**2)), 0.0, num_clusters, independent, confidence_level, warn,
                                   stacklevel=5)


def design_effect_from_sums(squares: float, total: float, num_clusters: int, independent: float, confidence_level: float,
                            warn: bool = True, stacklevel: int = 4) -> DesignEffect:
    """The design effect from ``squares`` = sum_g u_g^2 and ``total`` = sum_g u_g of the
    clusters' summed influences u_g, their number, and the independent variance
    sum_i w_i^2 psi_i^2 (what ``design_effect`` computes from rows; a module with its own
    sufficient statistics, such as cross-sums over clusters, computes these sums from them).

    Examples
    --------
    >>> round(design_effect_from_sums(4.0, 0.0, 4, 2.0, 0.95, warn=False).measured, 6)  # 4 / 3 x 4 / 2
    2.666667
    """
    if num_clusters < 2:
        return DesignEffect(math.nan, num_clusters, SINGLE_CLUSTER, math.nan)
    if warn and num_clusters < FEW_CLUSTERS:
        warnings.warn(f"clusters: the interval rests on {num_clusters} clusters (fewer than {FEW_CLUSTERS}); its "
                      "variance has few degrees of freedom, so the interval is rough.", UserWarning, stacklevel=stacklevel)
    centred = max(squares - total * total / num_clusters, 0.0)  # sum_g (u_g - mean u)^2
    clustered = num_clusters / (num_clusters - 1) * centred
    # Not finite only for weights near float64's limits (squares lost or overflowing): taken as 1.
    finite = math.isfinite(clustered) and math.isfinite(independent)
    measured = clustered / independent if finite and independent > 0 else 1.0
    probability = 0.5 + confidence_level / 2.0
    widening = (t_quantile(probability, num_clusters - 1) / NormalDist().inv_cdf(probability)) ** 2
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
