"""Reference implementations: intervals for a weighted sum of independent binomial rates.

The statistic is ``theta = sum_c w_c p_c`` with ``p_c`` the success rate of group c
(a class's recall, a top-k recall, a label's TPR or TNR), estimated by
``theta_hat = sum_c w_c x_c / n_c`` from independent ``x_c ~ Binomial(n_c, p_c)``.
Balanced accuracy: ``w_c = 1/K``; a multilabel macro balanced accuracy over L labels:
the 2L rates (TPR_l, TNR_l), each with ``w = 1/(2L)``; informedness and the adjusted
score are affine maps of these (map the interval the same way).

Every method takes arrays ``x`` (successes), ``n`` (trials) and ``w`` (weights >= 0),
broadcastable, whose last axis indexes the groups; leading axes are independent
problems (the simulated sets). A group with ``w == 0`` or ``n == 0`` is ignored.
Every method returns ``(low, high)`` clipped to the statistic's range ``[0, sum w]``.
``z`` is the two-sided normal quantile (1.959964 for 95%).

The study's recommendation is ``recommended`` (= ``score_gamma``: the score n-1 interval of
``score_sum`` joined with the binomial-variance gamma bound of ``gamma_near_bound`` on the side
of the nearer boundary); see README.md. ``python methods.py`` runs the self-checks.

NumPy and the standard library only; vectorised over the leading axes.
"""

import math
from statistics import NormalDist

import numpy as np

Z95 = NormalDist().inv_cdf(0.975)


# ------------------------------------------------------------------------------ helpers


def _prepare(x, n, w):
    x, n, w = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (x, n, w)))
    used = (w != 0) & (n > 0)
    w = np.where(used, w, 0.0)
    n_safe = np.where(used, n, 1.0)
    x = np.where(used, x, 0.0)
    p = x / n_safe
    return x, n_safe, w, p, used


def _estimate(w, p):
    return (w * p).sum(axis=-1)


def _clip(low, high, w):
    top = w.sum(axis=-1)
    return np.clip(low, 0.0, top), np.clip(high, 0.0, top)


def wald_sum(theta, variance, w, z=Z95):
    """``theta +- z sqrt(variance)``, clipped to ``[0, sum w]``."""
    half = z * np.sqrt(np.maximum(variance, 0.0))
    return _clip(theta - half, theta + half, w)


def unbiased_group_variance(p, n):
    """``p(1-p)/(n-1)``: unbiased for ``Var(x/n) = p(1-p)/n`` (``n >= 2``); ``n = 1`` gives 0 (p is 0 or 1)."""
    return p * (1.0 - p) / np.maximum(n - 1.0, 1.0)


# ------------------------------------------------------------------------------ (a), (b) MOVER


def agresti_coull_interval(x, n, z=Z95):
    """Agresti & Coull (1998, Am. Stat. 52:119): ``p~ +- z sqrt(p~(1-p~)/(n+z^2))``, ``p~ = (x+z^2/2)/(n+z^2)``."""
    nt = n + z * z
    pt = (x + z * z / 2.0) / nt
    half = z * np.sqrt(pt * (1.0 - pt) / nt)
    return np.clip(pt - half, 0.0, 1.0), np.clip(pt + half, 0.0, 1.0)


def wilson_interval(x, n, z=Z95):
    """Wilson (1927, JASA 22:209) score interval of one rate."""
    p = x / n
    den = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / den
    half = z / den * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def mover(p, lows, highs, w):
    """MOVER for ``sum w_c p_c`` (w >= 0), Zou & Donner (2008, Stat Med 27:1693), Newcombe (1998) method 10:

    ``L = theta_hat - sqrt(sum w^2 (p_c - l_c)^2)``, ``U = theta_hat + sqrt(sum w^2 (u_c - p_c)^2)``.
    """
    theta = _estimate(w, p)
    below = np.sqrt((w * w * np.maximum(p - lows, 0.0) ** 2).sum(axis=-1))
    above = np.sqrt((w * w * np.maximum(highs - p, 0.0) ** 2).sum(axis=-1))
    return _clip(theta - below, theta + above, w)


def ac_mover(x, n, w, z=Z95):
    """(a) The project's current default: Agresti-Coull per group, combined by MOVER (``mover``)."""
    x, n, w, p, used = _prepare(x, n, w)
    lows, highs = agresti_coull_interval(x, n, z)
    return mover(p, lows, highs, w)


def wilson_mover(x, n, w, z=Z95):
    """(b) Wilson per group combined by MOVER (Newcombe's method 10 generalised; Zou & Donner 2008)."""
    x, n, w, p, used = _prepare(x, n, w)
    lows, highs = wilson_interval(x, n, z)
    return mover(p, lows, highs, w)


# ------------------------------------------------------------------------------ Wald family


def wald_unbiased(x, n, w, z=Z95):
    """Wald centred on the estimate with the unbiased per-group variance (the baseline):

    ``theta_hat +- z sqrt(sum w_c^2 p_c(1-p_c)/(n_c-1))``. Zero width when every rate is 0 or 1.
    """
    x, n, w, p, used = _prepare(x, n, w)
    return wald_sum(_estimate(w, p), (w * w * unbiased_group_variance(p, n)).sum(axis=-1), w, z)


def floored_wald(x, n, w, z=Z95, kappa=1.0):
    """(c) Wald centred on the estimate, each group's variance floored by an adjusted rate's:

    ``var_c = max(p_c(1-p_c)/(n_c-1), kappa * p~_c(1-p~_c)/(n_c+z^2))``, ``p~ = (x+z^2/2)/(n+z^2)``
    (the Agresti-Coull rate: used for the variance only, never for the centre).
    ``kappa = 1`` is the full floor; smaller ``kappa`` is a lighter floor.
    """
    x, n, w, p, used = _prepare(x, n, w)
    nt = n + z * z
    pt = (x + z * z / 2.0) / nt
    var = np.maximum(unbiased_group_variance(p, n), kappa * pt * (1.0 - pt) / nt)
    return wald_sum(_estimate(w, p), (w * w * var).sum(axis=-1), w, z)


def price_bonett(x, n, w, z=Z95):
    """(d) Price & Bonett (2004, CSDA 45:449-456) adjusted Wald for a linear function of proportions.

    With m = the number of groups with a nonzero coefficient:
    ``p~_c = (x_c + 2/m)/(n_c + 4/m)``, interval ``sum w p~ +- z sqrt(sum w^2 p~(1-p~)/(n_c + 4/m))``.
    (2/m successes and 2/m failures per group: 2 pseudo-successes in total, whatever m; m = 2
    is Agresti & Caffo 2000.) Checked against statpsych::ci.lc.prop.bs's documented example
    (f = 26, 24, 38; n = 60 x 3; v = -.5, -.5, 1: estimate 0.2119565, SE 0.07602892).
    Coefficients here are >= 0; the range clip is ours.
    """
    x, n, w, p, used = _prepare(x, n, w)
    m = used.sum(axis=-1, keepdims=True).astype(np.float64)
    m = np.maximum(m, 1.0)
    nt = n + 4.0 / m
    pt = (x + 2.0 / m) / nt
    centre = (w * pt).sum(axis=-1)
    variance = (w * w * pt * (1.0 - pt) / nt).sum(axis=-1)
    return wald_sum(centre, variance, w, z)


def price_bonett_signed(x, n, w, z=Z95):
    """Price & Bonett (2004) for signed coefficients (used only by the self-check below)."""
    x, n, w = (np.asarray(a, dtype=np.float64) for a in (x, n, w))
    m = float((w != 0).sum())
    nt = n + 4.0 / m
    pt = (x + 2.0 / m) / nt
    centre = (w * pt).sum()
    se = np.sqrt((w * w * pt * (1.0 - pt) / nt).sum())
    return centre, se, centre - z * se, centre + z * se


# ------------------------------------------------------------------------------ (e) score inversion


def _constrained_rates(x, n, a):
    """Root in [0, 1] of ``x - n p - a p (1 - p) = 0`` (the Lagrange condition, a = lambda w_c)."""
    b = a + n
    disc = np.sqrt(np.maximum(b * b - 4.0 * a * x, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        stable = 2.0 * x / (b + disc)  # b > 0: the smaller root, written without cancellation
        other = (b - disc) / (2.0 * a)  # b <= 0 (so a < 0): the nonnegative root
    return np.clip(np.where(b > 0, stable, other), 0.0, 1.0)


def score_sum(x, n, w, z=Z95, unbiased=True, iterations=64):
    """(e) Score-test inversion for ``sum w p`` with the variance at the constrained MLE.

    For a null value theta0 the rates maximising the binomial likelihood subject to
    ``sum w p = theta0`` solve ``x_c - n_c p_c = lambda w_c p_c (1 - p_c)`` (one Lagrange
    multiplier; a quadratic per group, ``_constrained_rates``). The statistic is
    ``T = (theta_hat - theta0)^2 / sum w_c^2 p~_c(1-p~_c)/d_c`` with ``d_c = n_c`` (the plain
    score test: Wilson's interval when there is one group; Mee 1984 for a difference) or
    ``d_c = n_c - 1`` (``unbiased``; the per-group analogue of Miettinen & Nurminen's
    (1985) N/(N-1) factor; n_c = 1 keeps d = 1). The interval is ``{theta0 : T <= z^2}``;
    each end is found by bisection on ``log lambda`` (lambda > 0 gives the lower end,
    lambda < 0 the upper end): one search, not one per theta0.
    """
    x, n, w, p, used = _prepare(x, n, w)
    theta = _estimate(w, p)
    d = np.maximum(n - 1.0, 1.0) if unbiased else n
    w_min = np.where(used, w, np.inf).min(axis=-1, keepdims=True)  # the smallest used weight
    scale = n.max(axis=-1, keepdims=True) / w_min  # lambda * w_c runs from 1e-8 to 1e8 times the largest n
    bounds = []
    for sign in (1.0, -1.0):
        lo = np.full(theta.shape, np.log(1e-8)) + np.log(scale[..., 0])
        hi = np.full(theta.shape, np.log(1e8)) + np.log(scale[..., 0])

        def stat(log_lambda):
            a = sign * np.exp(log_lambda)[..., None] * w
            pt = _constrained_rates(x, n, a)
            theta0 = (w * pt).sum(axis=-1)
            var = (w * w * pt * (1.0 - pt) / d).sum(axis=-1)
            diff2 = (theta - theta0) ** 2
            with np.errstate(invalid="ignore", divide="ignore"):
                t = np.where(diff2 > 1e-300, diff2 / var, 0.0)
            return np.nan_to_num(t, nan=0.0, posinf=np.inf), theta0

        t_hi, theta_far = stat(hi)
        for _ in range(iterations):
            mid = 0.5 * (lo + hi)
            t_mid, _ = stat(mid)
            inside = t_mid <= z * z
            lo = np.where(inside, mid, lo)
            hi = np.where(inside, hi, mid)
        _, theta_end = stat(lo)
        # if even the farthest null is not rejected, the interval runs to that end of the range
        theta_end = np.where(t_hi <= z * z, theta_far, theta_end)
        bounds.append(theta_end)
    low, high = bounds
    return _clip(np.minimum(low, theta), np.maximum(high, theta), w)


# ------------------------------------------------------------------------------ effective-size Wilson


def design_size(n, w):
    """``(sum w)^2 / sum (w_c^2 / n_c)``: the information of the weighted sum if every rate were equal (Kish 1965)."""
    return w.sum(axis=-1) ** 2 / (w * w / n).sum(axis=-1)


def wilson_effective(x, n, w, z=Z95, cap=False):
    """Wilson's interval on an effective size (Kish 1965; Korn & Graubard 1998, Surv. Methodol.
    24:193, and Dean & Pagano 2015 use the same device for survey proportions).

    ``t = theta_hat / sum w``; ``v = sum w^2 p(1-p)/(n-1) / (sum w)^2`` (unbiased);
    ``n_eff = t(1-t)/v`` where ``v > 0``, else the design size ``(sum w)^2 / sum w^2/n``;
    ``cap``: ``n_eff <= design size``. Then Wilson's interval for ``t`` with ``n_eff`` trials,
    scaled back by ``sum w``. One z^2/2 pseudo-count in total (not per group).
    """
    x, n, w, p, used = _prepare(x, n, w)
    total = w.sum(axis=-1)
    t = _estimate(w, p) / total
    v = (w * w * unbiased_group_variance(p, n)).sum(axis=-1) / total**2
    size0 = design_size(n, w)
    with np.errstate(invalid="ignore", divide="ignore"):
        n_eff = np.where(v > 0, t * (1.0 - t) / v, size0)
    n_eff = np.where(n_eff > 0, n_eff, size0)
    if cap:
        n_eff = np.minimum(n_eff, size0)
    den = 1.0 + z * z / n_eff
    centre = (t + z * z / (2.0 * n_eff)) / den
    half = z / den * np.sqrt(t * (1.0 - t) / n_eff + z * z / (4.0 * n_eff * n_eff))
    return _clip((centre - half) * total, (centre + half) * total, w)


# ------------------------------------------------------------------------------ bootstrap


def bootstrap_percentile(x, n, w, z=Z95, resamples=1000, rng=None, chunk_values=1 << 23):
    """The project's ``"bootstrap"``: each group redrawn as Binomial(n_c, p_hat_c), percentile interval
    (Efron & Tibshirani 1993, ch. 13). ``z`` must be the 95% quantile here (2.5% / 97.5% percentiles)."""
    rng = np.random.default_rng(rng)
    x, n, w, p, used = _prepare(x, n, w)
    sets = p.shape[:-1]
    p2 = p.reshape(-1, p.shape[-1])
    n2 = n.reshape(-1, n.shape[-1]).astype(np.int64)
    w2 = w.reshape(-1, w.shape[-1])
    low = np.empty(p2.shape[0])
    high = np.empty(p2.shape[0])
    per_set = resamples * p2.shape[-1]
    step = max(1, chunk_values // per_set)
    for start in range(0, p2.shape[0], step):
        stop = min(start + step, p2.shape[0])
        draws = rng.binomial(n2[start:stop], p2[start:stop], size=(resamples, stop - start, p2.shape[-1]))
        reps = (w2[start:stop] * draws / n2[start:stop]).sum(axis=-1)
        lo, hi = np.quantile(reps, [0.025, 0.975], axis=0)
        low[start:stop], high[start:stop] = lo, hi
    return _clip(low.reshape(sets), high.reshape(sets), w)


# ------------------------------------------------------------------------------ gamma (Poisson-tail) bound


def _log_gamma(a):
    return np.vectorize(math.lgamma, otypes=[np.float64])(a)


def gamma_cdf(x, shape, terms=400):
    """Regularised lower incomplete gamma ``P(shape, x)`` by its series (for ``x <= shape + 1``, the
    lower tail used here; Abramowitz & Stegun 6.5.29), vectorised."""
    x, shape = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(shape, dtype=np.float64))
    term = np.ones_like(x) / shape
    total = term.copy()
    for k in range(1, terms):
        term = term * x / (shape + k)
        total = total + term
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_front = shape * np.log(np.where(x > 0, x, 1.0)) - x - _log_gamma(shape)
        value = np.exp(log_front) * total
    return np.where(x > 0, np.clip(value, 0.0, 1.0), 0.0)


def gamma_lower_quantile(probability, shape, iterations=60):
    """Lower quantile (``probability`` < 1/2) of Gamma(shape, 1): bisection on ``gamma_cdf`` over
    ``[0, shape]`` for shape <= 200, Wilson & Hilferty's (1931) cube-root formula above."""
    shape = np.asarray(shape, dtype=np.float64)
    small = np.minimum(shape, 200.0)
    lo = np.zeros_like(small)
    hi = small.copy()
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        below = gamma_cdf(mid, small) < probability
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    zq = NormalDist().inv_cdf(probability)
    big = np.maximum(shape, 1.0)
    wh = big * (1.0 - 1.0 / (9.0 * big) + zq * np.sqrt(1.0 / (9.0 * big))) ** 3
    return np.where(shape <= 200.0, 0.5 * (lo + hi), wh)


def gamma_near_bound(x, n, w, z=Z95, binomial=False):
    """Fay & Feuer (1997, Stat Med 16:791) gamma bound for a weighted sum of counts, used here on the
    side of the boundary the estimate is nearer to.

    Near the top (``t_hat >= 1/2``): the deficit ``D = sum w_c (n_c - x_c)/n_c`` is a weighted sum of
    failure counts ``m_c`` with weights ``a_c = w_c/n_c``; with ``y = D_hat`` and ``v = sum a_c^2 m_c``
    its lower 1 - alpha/2 bound is ``G^-1(alpha/2; shape y^2/v, scale v/y)`` (0 when y = 0), which is
    the exact Poisson (Garwood) bound when the weights are equal (alpha/2 = 1 - Phi(z)).
    ``binomial=True``: ``v = sum a_c^2 m_c (n_c - m_c)/(n_c - 1)`` (``a_c^2 m_c`` when n_c = 1), the
    unbiased binomial variance of the deficit instead of the Poisson one. The upper end of theta is then
    ``sum w - D_lower``. Near 0 the same on the successes gives a lower end of theta. Where
    ``v = 0`` (no events, or, with ``binomial``, every group with events has only events) the
    bound is the estimate itself (no extension).
    Returns ``(low, high, top, events)``: one end is this bound, the other is the range's end;
    ``top`` says which side; ``events = v^2 / sum a^4 m`` is the effective number of counted
    events behind the variance v (Kish's formula applied to the events' weights a^2).
    """
    x, n, w, p, used = _prepare(x, n, w)
    total = w.sum(axis=-1)
    theta = _estimate(w, p)
    a = w / n
    top = theta >= 0.5 * total
    counts = np.where(top[..., None], n - x, x)
    y = (a * counts).sum(axis=-1)
    per_event = np.where(n > 1, (n - counts) / np.maximum(n - 1.0, 1.0), 1.0) if binomial else 1.0
    v = (a * a * counts * per_event).sum(axis=-1)
    v4 = (a**4 * counts * per_event).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        shape = np.where(y > 0, y * y / np.where(v > 0, v, 1.0), 1.0)
        scale = np.where(y > 0, v / np.where(y > 0, y, 1.0), 0.0)
        events = np.where(v4 > 0, v * v / np.where(v4 > 0, v4, 1.0), 0.0)
    # no event variance (every failing group failed entirely): no gamma bound, the end stays the score's
    bound = np.where(v > 0, gamma_lower_quantile(1.0 - NormalDist().cdf(z), shape) * scale, y)
    low = np.where(top, 0.0, bound)
    high = np.where(top, total - bound, total)
    return low, high, top, events


def score_gamma(x, n, w, z=Z95, binomial=True, max_events=np.inf):
    """Score n-1 (``score_sum(unbiased=True)``) with its end on the near boundary's side moved out to
    the gamma bound of ``gamma_near_bound`` when that is farther (the union of the two on that side).

    ``binomial=False`` is Fay & Feuer's Poisson variance ``v = sum a^2 m``; ``binomial=True`` (the
    recommendation) uses ``v = sum a^2 m (n - m)/(n - 1)`` (n >= 2; a group of one keeps ``a^2 m``),
    the unbiased binomial variance of the counted events, so the bound is the Poisson one when
    events are rare and close to the score interval's end when they are not.
    ``max_events``: apply the bound only when the events' effective number is at most this.
    """
    low, high = score_sum(x, n, w, z, unbiased=True)
    g_low, g_high, top, events = gamma_near_bound(x, n, w, z, binomial=binomial)
    rare = events <= max_events
    return (np.where(~top & rare, np.minimum(low, g_low), low),
            np.where(top & rare, np.maximum(high, g_high), high))


def recommended(x, n, w, z=Z95):
    """The study's recommendation: ``score_gamma(binomial=True)`` (see README.md for the formula)."""
    return score_gamma(x, n, w, z, binomial=True)


def hybrid_k(x, n, w, z=Z95, max_groups=10, kappa=1.0):
    """(f) A rule on the class structure: AC/MOVER when at most
    ``max_groups`` groups carry weight (where AC/MOVER does well), the floored Wald
    (``floored_wald``, kappa = 1) when there are more."""
    x, n, w = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (x, n, w)))
    groups = ((w != 0) & (n > 0)).sum(axis=-1)
    small = groups <= max_groups
    a_low, a_high = ac_mover(x, n, w, z)
    f_low, f_high = floored_wald(x, n, w, z, kappa=kappa)
    return np.where(small, a_low, f_low), np.where(small, a_high, f_high)


def _self_check():
    """Price & Bonett against statpsych's documented example; score = Wilson for one group."""
    centre, se, _, _ = price_bonett_signed([26, 24, 38], [60, 60, 60], [-0.5, -0.5, 1.0])
    assert abs(centre - 0.2119565) < 1e-6 and abs(se - 0.07602892) < 1e-7, (centre, se)
    lo, hi = score_sum(np.array([[3.0]]), np.array([[10.0]]), np.array([[1.0]]), unbiased=False)
    wl, wh = wilson_interval(3.0, 10.0)
    assert abs(lo[0] - wl) < 1e-9 and abs(hi[0] - wh) < 1e-9, (lo, hi, wl, wh)


if __name__ == "__main__":
    _self_check()
    print("self-check passed")


