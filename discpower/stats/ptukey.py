"""The studentised range distribution: P(Q_{k, nu} >= q), compiled and vectorised over q.

Q_{k, nu} = R / S, the range R of k independent standard normals over an independent S = sqrt(chi^2_nu / nu)
(Tukey 1949; the distribution of the Tukey HSD's statistic). Two integrals (Copenhaver & Holland 1988)::

    P(R >= w)      = 1 - k int phi(z) [Phi(z) - Phi(z - w)]^(k - 1) dz
                   = k int phi(z) (Phi(z)^(k - 1) - [Phi(z) - Phi(z - w)]^(k - 1)) dz        (nu = inf)
    P(Q >= q)      = int_0^inf f_nu(s) P(R >= q s) ds,      f_nu(s) ~ s^(nu - 1) exp(-nu s^2 / 2)

computed as follows, every rule fixed in advance (no adaptive stopping, so the value does not depend on
the other q of the call):

1. **The range's tail** P(R >= w) by composite 16-point Gauss-Legendre quadrature in z on unit panels over
   [z_lo, z_hi], where the integrand k phi(z) Phi(z)^(k - 1) (its bound) is below 1e-20 outside; the
   difference Phi(z) - Phi(z - w) is taken from the tail nearer each argument (no cancellation near 1).
2. **A table of it in w**: Chebyshev interpolation of degree 24 on panels of [0, w_max] (w_max: the
   Bonferroni bound C(k, 2) P(|Z_1 - Z_2| >= w) below 1e-18), each panel halved until its last three
   Chebyshev coefficients are below 1e-15 in absolute value (the a-posteriori estimate of the
   interpolation error); beyond w_max the tail is taken as 0.
3. **The outer integral** in x = ln s, where the density is log-concave with its mode at 0 and
   ln f(x) = -nu (expm1(2x) / 2 - x) + const, by composite 16-point Gauss-Legendre on panels of width
   min(0.5, 2 / sqrt(2 nu)) over the x where ln f is above its mode - 48 (the rest holds under 1e-20
   of the mass), and up to ln(w_max / q); the weights are normalised by the same rule's integral of f,
   so no gamma function enters. nu = inf takes the table at w = q.

Checked against ``scipy.stats.studentized_range.sf`` (adaptive quadrature, about 10 ms a point) within
1e-8 on a grid of q, k = 2..200 and nu = 2..10,000 and infinity (``tests/discpower/stats/test_ptukey.py``),
at about a microsecond per q once the table for (k, nu) is built (a millisecond or two).

References
----------
Tukey, "Comparing individual means in the analysis of variance", Biometrics 1949; Copenhaver & Holland,
"Computation of the distribution of the maximum studentized range statistic with application to
multiple significance testing of simple effects", J. Statist. Comput. Simul. 30, 1988 (the two
integrals; R's ``ptukey``).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import prange

from cwla._shared import jit

from ..errors import DiscpowerError

__all__ = ["studentized_range_sf", "studentized_range_isf"]

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(16)
_DEGREE = 24            # Chebyshev degree of the table's panels
_COEFFICIENT = 1e-15    # a panel is halved while one of its last three Chebyshev coefficients exceeds this
_NEGLIGIBLE = 1e-20     # the inner integrand's cut-off
_W_TAIL = 1e-18         # the range's tail beyond w_max is below this
_LOG_CUT = -48.0        # the outer density's cut-off, below its mode (e^-48 = 1.4e-21)
_ROOT2 = math.sqrt(2.0)


@jit()
def _lower(x):
    """Phi(x), from erfc (accurate in the lower tail)."""
    return 0.5 * math.erfc(-x / _ROOT2)


@jit()
def _upper(x):
    """1 - Phi(x), from erfc (accurate in the upper tail)."""
    return 0.5 * math.erfc(x / _ROOT2)


@jit(parallel=True)
def range_tail(w, k, z, a, lower, upper, bound):
    """P(R >= w_r) for each w_r: sum_i a_i (bound_i - [Phi(z_i) - Phi(z_i - w_r)]^(k - 1)), with the
    nodes z_i, a_i = k * weight_i * phi(z_i), lower_i = Phi(z_i), upper_i = 1 - Phi(z_i) and
    bound_i = Phi(z_i)^(k - 1)."""
    out = np.empty(w.shape[0])
    e = k - 1
    for r in prange(w.shape[0]):
        total = 0.0
        for i in range(z.shape[0]):
            b = z[i] - w[r]
            if b >= 0.0:
                d = _upper(b) - upper[i]
            elif z[i] <= 0.0:
                d = lower[i] - _lower(b)
            else:
                d = (1.0 - upper[i]) - _lower(b)
            total += a[i] * (bound[i] - d ** e)
        out[r] = total
    return out


@jit()
def _table_value(w, breaks, coefficients):
    """The Chebyshev table at w (0 beyond its last break): Clenshaw's recurrence on w's panel."""
    if w >= breaks[-1]:
        return 0.0
    p = np.searchsorted(breaks, w, side="right") - 1
    if p < 0:
        p = 0
    lo = breaks[p]
    hi = breaks[p + 1]
    x = (2.0 * w - lo - hi) / (hi - lo)
    c = coefficients[p]
    b1 = 0.0
    b2 = 0.0
    for j in range(c.shape[0] - 1, 0, -1):
        b0 = 2.0 * x * b1 - b2 + c[j]
        b2 = b1
        b1 = b0
    return x * b1 - b2 + c[0]


@jit(parallel=True)
def studentized_tail(q, breaks, coefficients, x, weight, w_max):
    """P(Q >= q_r) for each q_r: sum_i weight_i P(R >= q_r e^(x_i)) over the outer nodes x_i (weights
    normalised to sum 1), the range's tail read from the table; 1 at q = 0."""
    out = np.empty(q.shape[0])
    for r in prange(q.shape[0]):
        if q[r] <= 0.0:
            out[r] = 1.0
            continue
        limit = math.log(w_max / q[r])
        total = 0.0
        for i in range(x.shape[0]):
            if x[i] >= limit:
                break
            total += weight[i] * _table_value(q[r] * math.exp(x[i]), breaks, coefficients)
        out[r] = min(1.0, max(0.0, total))
    return out


def _composite(lo: float, hi: float, width: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of 16-point Gauss-Legendre on equal panels of at most ``width`` over [lo, hi]."""
    panels = max(1, math.ceil((hi - lo) / width))
    edges = np.linspace(lo, hi, panels + 1)
    half = np.diff(edges) / 2
    mid = (edges[:-1] + edges[1:]) / 2
    return (mid[:, None] + half[:, None] * _NODES).ravel(), (half[:, None] * _WEIGHTS).ravel()


def _inner_rule(k: int) -> tuple[np.ndarray, ...]:
    """The z nodes of step 1 for k normals and what each node needs: a_i, Phi(z_i), 1 - Phi(z_i),
    Phi(z_i)^(k - 1)."""
    log_k = math.log(k)
    hi = math.sqrt(2.0 * (log_k - math.log(_NEGLIGIBLE) - 0.5 * math.log(2 * math.pi)))
    lo = -hi
    # the bound k phi(z) Phi(z)^(k - 1) rises with z below its mode: start where it passes 1e-20
    while lo < 0.0:
        f = log_k - 0.5 * lo * lo - 0.5 * math.log(2 * math.pi) + (k - 1) * math.log(0.5 * math.erfc(-lo / _ROOT2))
        if f > math.log(_NEGLIGIBLE):
            break
        lo += 0.125
    z, w = _composite(lo - 0.125, hi, 1.0)
    phi = np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    lower = 0.5 * np.array([math.erfc(-v / _ROOT2) for v in z])
    upper = 0.5 * np.array([math.erfc(v / _ROOT2) for v in z])
    return z, k * w * phi, lower, upper, lower ** (k - 1)


def _w_max(k: int) -> float:
    """The w beyond which C(k, 2) P(|Z_1 - Z_2| >= w) = k (k - 1) (1 - Phi(w / sqrt 2)) is below 1e-18."""
    w = 1.0
    while k * (k - 1) * 0.5 * math.erfc(w / 2.0) >= _W_TAIL:
        w += 0.25
    return w


def _table(k: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Step 2: breaks, Chebyshev coefficients (panels x degree + 1) and w_max of P(R >= w) for k."""
    rule = _inner_rule(k)
    w_max = _w_max(k)
    chebyshev = np.cos(np.pi * (np.arange(_DEGREE + 1) + 0.5) / (_DEGREE + 1))  # first-kind points on [-1, 1]
    pending = [(lo, min(lo + 1.0, w_max)) for lo in np.arange(0.0, w_max, 1.0)]
    done = []
    while pending:
        lo, hi = pending.pop()
        values = range_tail(np.ascontiguousarray((lo + hi) / 2 + (hi - lo) / 2 * chebyshev), np.int64(k), *rule)
        c = np.polynomial.chebyshev.chebfit(chebyshev, values, _DEGREE)
        if np.max(np.abs(c[-3:])) > _COEFFICIENT and hi - lo > 1.0 / 64:
            mid = (lo + hi) / 2
            pending += [(lo, mid), (mid, hi)]
        else:
            done.append((lo, hi, c))
    done.sort(key=lambda panel: panel[0])
    breaks = np.array([panel[0] for panel in done] + [done[-1][1]])
    return breaks, np.array([panel[2] for panel in done]), w_max


def _outer_rule(nu: float) -> tuple[np.ndarray, np.ndarray]:
    """Step 3: nodes x = ln s and weights (summing to 1) of the density of S = sqrt(chi^2_nu / nu)."""

    def log_f(x):
        return -nu * (math.expm1(2.0 * x) / 2.0 - x)

    def edge(inside, outside):
        for _ in range(200):
            mid = (inside + outside) / 2
            inside, outside = (mid, outside) if log_f(mid) > _LOG_CUT else (inside, mid)
        return outside

    lo = -1.0
    while log_f(lo) > _LOG_CUT:
        lo *= 2.0
    hi = 1.0
    while log_f(hi) > _LOG_CUT:
        hi *= 2.0
    lo, hi = edge(0.0, lo), edge(0.0, hi)
    x, w = _composite(lo, hi, min(0.5, 2.0 / math.sqrt(2.0 * nu)))
    w = w * np.exp(np.array([log_f(v) for v in x]))
    return x, w / w.sum()


@functools.lru_cache(maxsize=16)
def _prepared(k: int, df: float) -> tuple:
    """The table of step 2 and the outer rule of step 3 for (k, df), built once per pair of values."""
    breaks, coefficients, w_max = _table(k)
    x, weight = (np.zeros(1), np.ones(1)) if math.isinf(df) else _outer_rule(df)
    return breaks, coefficients, x, weight, w_max


def _arguments(k, df) -> tuple[int, float]:
    """k and df checked (the callers inside discpower pass checked values; this guards direct use)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise DiscpowerError(f"k (the number of means) must be an integer >= 2, got {k!r}")
    if isinstance(df, bool) or not isinstance(df, (int, float, np.integer, np.floating)) or not df > 0:
        raise DiscpowerError(f"df (the degrees of freedom) must be a number > 0 or math.inf, got {df!r}")
    return int(k), float(df)


def studentized_range_sf(q, k: int, df: float) -> np.ndarray:
    """P(Q_{k, df} >= q) for each q (>= 0; the module docstring gives the method and its accuracy).

    Parameters
    ----------
    q : array-like of float
        Studentised ranges, >= 0 (inf gives 0).
    k : int
        Number of means (>= 2).
    df : float
        Degrees of freedom of the variance estimate (> 0), or ``math.inf``.

    Returns
    -------
    ndarray of float
        The upper-tail probabilities, in [0, 1], of q's shape.

    Examples
    --------
    >>> round(float(studentized_range_sf(3.5, 3, 20)), 6)
    0.055892
    """
    k, df = _arguments(k, df)
    q = np.asarray(q, dtype=np.float64)
    if np.isnan(q).any() or (q < 0).any():
        raise DiscpowerError("q (the studentised ranges) must be >= 0 and not NaN")
    flat = np.ascontiguousarray(q.ravel())
    breaks, coefficients, x, weight, w_max = _prepared(k, df)
    out = studentized_tail(np.where(np.isfinite(flat), flat, 0.0), breaks, coefficients, x, weight, w_max)
    return np.where(np.isposinf(flat), 0.0, out).reshape(q.shape)


def studentized_range_isf(p: float, k: int, df: float) -> float:
    """The q with P(Q_{k, df} >= q) = p (0 < p < 1): bisection on :func:`studentized_range_sf` to the
    last bit of q (the critical value of the Tukey HSD at level p).

    Examples
    --------
    >>> round(studentized_range_isf(0.05, 3, 20), 4)
    3.5779
    """
    k, df = _arguments(k, df)
    if not 0.0 < p < 1.0:
        raise DiscpowerError(f"p must be in (0, 1), got {p!r}")
    breaks, coefficients, x, weight, w_max = _prepared(k, df)
    lo, hi = 0.0, w_max / math.exp(x[0])
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        tail = studentized_tail(np.array([mid]), breaks, coefficients, x, weight, w_max)[0]
        lo, hi = (mid, hi) if tail > p else (lo, mid)
    return hi
