"""The numba kernels that score rankings: score = sum_{i<=H} L(i) A(i).

Metrics reach the kernels as data, never as function objects (so the compiled
code is cached on disk): one row of integers and one row of floats per metric,
plus a gain table per metric indexed by grade code (the last entry is the
unjudged document). See :mod:`cwla.metrics.browsing` and :mod:`cwla.metrics.aggregations` for
the formulas; the codes below are theirs.

The measures outside C/W/L/A (:mod:`cwla.metrics.counting`) are scored in the same pass,
cell by cell, from their own spec rows.

The kernels assume validated input; the Python wrappers in
:mod:`cwla.scoring.evaluator` check everything first.
"""

from __future__ import annotations

import math
import types

import numpy as np

from .._numba import jit
from ..metrics.aggregations import AGGREGATIONS
from ..metrics.browsing import CODES, N_MODEL_PARAMS
from ..metrics.counting import C_CODE, C_GAIN, C_K, C_LEVEL, COMPAT, FIRST_TREC
from .counting_kernels import count_ranking, gain_ranking, trec_ranking

# browsing model codes, from their declarations (cwla.metrics.browsing)
PRECISION, DCG, RBP, INST, AP, ERR = (CODES[n] for n in ("Precision", "DCG", "RBP", "INST", "AP", "ERR"))
RR, INSQ, NERR8, NERR9, NERR10, NERR11 = (CODES[n] for n in ("RR", "INSQ", "NERR8", "NERR9", "NERR10", "NERR11"))
BPM, TBG, U, IFT_GOAL, IFT_RATE, IFT = (CODES[n] for n in ("BPM", "TBG", "U", "IFTGoal", "IFTRate", "IFT"))
SET, NPV, TABULATED, ADAPTIVE, RECIPROCAL = (CODES[n] for n in ("SET", "NPV", "Tabulated", "Adaptive", "Reciprocal"))
# aggregation codes (cwla.metrics.aggregations)
A_ERG, A_ETG, A_AVG, A_MAX, A_FIN, A_PE, A_ERR = (AGGREGATIONS[n].code for n in AGGREGATIONS)
# columns of the integer metric spec (depth -1: "all", H = the ranking's length, at least Precision's/DCG's k)
I_MODEL, I_AGG, I_CUTOFF, I_DEPTH, I_STOP, I_COSTS = 0, 1, 2, 3, 4, 5
N_ISPEC = 6
# columns of the float metric spec: the model's parameters, then the aggregation's
F_MODEL, F_AGG = 0, N_MODEL_PARAMS
N_FSPEC = N_MODEL_PARAMS + 1
# what score_ranking returns beside the score: expected cost, expected total cost, expected depth
X_EC, X_ETC, X_ED = 0, 1, 2
N_X = 3


@jit()
def _set_weight(x, beta):
    return (x + 1.0) ** beta - x ** beta


@jit()
def _continuation(model, mp, i, r, cg, c, cc, tab):
    """C(i) of the models without state (all but Chen & Sakai's six and BPM): ``mp`` their parameters, r the
    gain and c the cost at rank i, cg and cc the cumulated gain and cost up to i, ``tab`` a table."""
    if model == RR:
        return 1.0 if cg == 0.0 else 0.0
    if model == INSQ:
        return ((i + 2.0 * mp[0] - 1.0) / (i + 2.0 * mp[0])) ** 2
    if model == NERR8:
        return 1.0 - r if i < mp[0] else 0.0
    if model == NERR9:
        return i / (i + 1.0) * (1.0 - r) if i < mp[0] else 0.0
    if model == NERR10:
        return mp[0] * (1.0 - r)
    if model == NERR11:
        return ((i + 2.0 * mp[0] - 1.0) / (i + 2.0 * mp[0])) ** 2 * (1.0 - r)
    if model == TBG:
        return 2.0 ** (-c / mp[0])
    if model == U:
        before = 1.0 - (cc - c) / mp[0]
        return max(0.0, 1.0 - cc / mp[0]) / before if before > 0.0 else 0.0
    if model == IFT_GOAL:
        return 1.0 - 1.0 / (1.0 + mp[1] * math.exp((mp[0] - cg) * mp[2]))
    if model == IFT_RATE:
        return 1.0 / (1.0 + mp[1] * math.exp((mp[0] - cg / cc) * mp[2]))
    if model == IFT:
        return (1.0 - 1.0 / (1.0 + mp[1] * math.exp((mp[0] - cg) * mp[2]))) * \
            (1.0 / (1.0 + mp[4] * math.exp((mp[3] - cg / cc) * mp[5])))
    if model == SET:
        return _set_weight(i + 1.0, mp[0]) / _set_weight(float(i), mp[0]) if i < mp[1] else 0.0
    if model == NPV:
        return 1.0 / (1.0 + mp[0])
    if model == RECIPROCAL:
        return i / (i + 1.0) if i < mp[0] else 0.0
    if model == ADAPTIVE:  # a user's function (kernel_for); NaN where it leaves [0, 1], for evaluate to report
        C = adaptive_continuation(i, r, cg, mp)
        return C if 0.0 <= C <= 1.0 else math.nan
    # TABULATED
    return tab[i - 1] if i <= mp[0] else 0.0


@jit()
def adaptive_continuation(i, r, cg, mp):
    """The adaptive model's C(i) in the cached kernel, which never scores one (see :func:`kernel_for`)."""
    return math.nan


@jit()
def score_ranking(codes, start, n, table, pad, H, stop, model, mp, agg, apar, S, tab, ccodes, ctable, cpad, out):
    """Score one ranking under one metric.

    Parameters
    ----------
    codes : int32 array
        Grade codes; the ranking is ``codes[start:start + n]``.
    n : int
        Length of the (cut) ranking, ``n <= H``.
    table : float64 array
        Gain of each grade code.
    pad : float
        Gain of the positions n+1..H (0 for the score, 1 for the residual's upper bound).
    H : int
        Depth of the user model.
    stop : bool
        C(H) := 0.
    mp : float64 array
        The model's parameters (:attr:`cwla.metrics.browsing.BrowsingModel.params`).
    S : float64 array of length >= H + 1
        Scratch space for AP's suffix sums.
    tab : float64 array
        A tabulated model's C(1..n).
    ccodes, ctable, cpad : int32 array, float64 array, float
        Cost of each document: ``ctable[ccodes[start + i - 1]]`` (``ccodes`` empty: ``ctable[-1]`` for every
        document), ``cpad`` for the positions n+1..H.
    out : float64 array of length N_X
        Receives EC = sum W(i) c_i, ETC = sum L(i) cc(i) and ED = E (EC and ETC only in
        :func:`score_ranking_costs`).

    Returns
    -------
    (score, rsum) : the score before AP's R_ret/R factor, and sum_{i<=H} r_i.
    """
    costs = WITH_COSTS  # a compile-time constant: False here, True in score_ranking_costs
    rsum = 0.0
    if model == AP:
        # S[i-1] = S(i) = sum_{i<=j<=H} r_j / j, S[H] = S(H+1) = 0
        S[H] = 0.0
        acc = 0.0
        for i in range(H, 0, -1):
            r = table[codes[start + i - 1]] if i <= n else pad
            acc += r / i
            rsum += r
            S[i - 1] = acc
    per_doc = ccodes.shape[0] > 0
    uniform = ctable[ctable.shape[0] - 1]
    V = 1.0
    E = 0.0
    cg = 0.0
    mx = 0.0
    total = 0.0
    c = 1.0
    cc = 0.0
    ec = 0.0
    etc = 0.0
    p0 = mp[0]
    goal = mp[0]  # BPM's T_i and K_i
    budget = mp[1]
    for i in range(1, H + 1):
        r = table[codes[start + i - 1]] if i <= n else pad
        cg += r
        if r > mx:
            mx = r
        if costs:
            if i > n:
                c = cpad
            elif per_doc:
                c = ctable[ccodes[start + i - 1]]
            else:
                c = uniform
            cc += c
        if model == PRECISION:
            C = 1.0 if i < p0 else 0.0
        elif model == DCG:
            C = math.log2(i + 1.0) / math.log2(i + 2.0) if i < p0 else 0.0
        elif model == RBP:
            C = p0
        elif model == INST:
            Ti = p0 - cg
            C = ((i - 1.0 + p0 + Ti) / (i + p0 + Ti)) ** 2
        elif model == AP:
            C = S[i] / S[i - 1] if S[i - 1] > 0.0 else 0.0
        elif model == ERR:
            C = 1.0 - r
        elif model == BPM:
            C = 1.0 if cg < goal and cc < budget else 0.0
            goal += mp[2] * (r - mp[4])
            budget += mp[3] * (r - mp[4])
        else:
            C = _continuation(model, mp, i, r, cg, c, cc, tab)
        if stop and i == H:
            C = 0.0
        L = V * (1.0 - C)
        E += V
        if costs:
            ec += V * c
            etc += L * cc
        if agg == A_ERG or agg == A_ETG:
            A = cg
        elif agg == A_AVG:
            A = cg / i
        elif agg == A_MAX:
            A = mx
        elif agg == A_FIN:
            A = r
        elif agg == A_PE:
            A = apar * mx + (1.0 - apar) * r
        else:  # A_ERR
            A = 1.0 / i
        total += L * A
        V *= C
        if V == 0.0:
            break
    if agg == A_ERG:
        total /= E
    out[X_EC] = ec / E
    out[X_ETC] = etc
    out[X_ED] = E
    return total, rsum


def _variant(dispatcher, name, scope, cache=True, **constants):
    """``dispatcher``'s source compiled again as ``name``, reading its globals from ``scope`` with ``constants``
    set (numba freezes global values at compile time: a constant's dead branches are compiled out)."""
    f = dispatcher.py_func
    scope = dict(scope, **constants)
    copy = types.FunctionType(f.__code__, scope, name, f.__defaults__, f.__closure__)
    copy.__qualname__ = name
    return jit(cache=cache)(copy)


#: score_ranking computes the costs (and EC, ETC) where this is True: only in score_ranking_costs
WITH_COSTS = False
#: the parts of :func:`score_cells` a variant compiles (:func:`score_variant`): the C/W/L/A metrics, their
#: costs (EC, ETC and the cost-based models: :func:`score_ranking_costs`), the counting measures
WITH_METRICS = COSTS_POSSIBLE = WITH_COUNTS = True
#: score_ranking with the costs: for the cost-based models and when EC / ETC are wanted
score_ranking_costs = _variant(score_ranking, "score_ranking_costs", globals(), WITH_COSTS=True)


@jit()
def _score_metric(codes, start, length, unjudged, ispec, fspec, glo, ghi, relsum, S, with_upper, tab, ccodes,
                  clo, chi, want, xlo, xhi):
    """Lower score (unjudged and padding at gain 0) and upper score (at gain 1) of one ranking; with
    ``want``, its EC, ETC and ED in ``xlo`` and ``xhi`` (unknown and padded costs at ``clo[-1]`` and
    ``chi[-1]``: cwl_eval's max_cost and min_cost).

    AP with R = qrels (model parameter 1) is multiplied by R_ret / R, R = ``relsum``.
    """
    H = ispec[I_DEPTH]
    n = length
    if ispec[I_CUTOFF] > 0 and ispec[I_CUTOFF] < n:
        n = ispec[I_CUTOFF]
    model, agg, stop = ispec[I_MODEL], ispec[I_AGG], ispec[I_STOP] != 0
    costs = False
    if COSTS_POSSIBLE:  # a compile-time constant: the variants without costs never compile score_ranking_costs
        costs = want or ispec[I_COSTS] != 0
    mp, apar = fspec[F_MODEL:F_AGG], fspec[F_AGG]
    pad_hi = 1.0
    if H < 0:  # depth "all": the whole (cut) ranking; nothing is padded, so the residual is its unjudged part
        H = n
        if (model == PRECISION or model == DCG or model == RECIPROCAL) and H < mp[0] < math.inf:
            H = int(mp[0])
        pad_hi = 0.0
    if H == 0:
        for j in range(N_X):
            xlo[j] = 0.0
            xhi[j] = 0.0
        return 0.0, 0.0
    if H < n:
        n = H
    cunknown_lo, cunknown_hi = clo[clo.shape[0] - 1], chi[chi.shape[0] - 1]
    if COSTS_POSSIBLE and costs:
        lo, rlo = score_ranking_costs(codes, start, n, glo, 0.0, H, stop, model, mp, agg, apar, S, tab, ccodes, clo,
                                      cunknown_lo, xlo)
    else:
        lo, rlo = score_ranking(codes, start, n, glo, 0.0, H, stop, model, mp, agg, apar, S, tab, ccodes, clo,
                                cunknown_lo, xlo)
    exact = n == H or pad_hi == 0.0 or not with_upper
    if exact and with_upper:
        for i in range(n):
            if codes[start + i] == unjudged:
                exact = False
                break
    if exact and with_upper and costs and cunknown_lo != cunknown_hi:
        # unknown (and padded) costs differ between the bounds: exact only without padding and with every
        # document's cost known
        if n < H or (ccodes.shape[0] == 0 and n > 0):
            exact = False
        else:
            for i in range(n):
                if ccodes[start + i] == clo.shape[0] - 1:
                    exact = False
                    break
    if exact:
        hi, rhi = lo, rlo
        if want:
            for j in range(N_X):  # element by element: a slice assignment compiles numba's shape checks
                xhi[j] = xlo[j]
    else:
        if COSTS_POSSIBLE and costs:
            hi, rhi = score_ranking_costs(codes, start, n, ghi, pad_hi, H, stop, model, mp, agg, apar, S, tab,
                                          ccodes, chi, cunknown_hi, xhi)
        else:
            hi, rhi = score_ranking(codes, start, n, ghi, pad_hi, H, stop, model, mp, agg, apar, S, tab, ccodes,
                                    chi, cunknown_hi, xhi)
    if model == AP and mp[0] != 0.0:
        # users who look for an unretrieved relevant document gain nothing: times R_ret / R;
        # in the upper bound the unjudged and padded documents join the relevant ones
        lo = lo * rlo / relsum if relsum > 0.0 else 0.0
        rel_hi = relsum + (rhi - rlo)
        hi = hi * rhi / rel_hi if rel_hi > 0.0 else 0.0
    return lo, hi


@jit()
def score_cells(first, last, codes, starts, lengths, n_topics, unjudged, ispec, fspec, glo, ghi, relsum, with_upper,
                h_ap, tabs, ccodes, clo, chi, want, cspec, cpar, kinds, n_rel, n_nonrel, out_lo, out_hi, xout_lo,
                xout_hi, cout_lo, cout_hi):
    """Score the (run, topic) cells ``first:last`` under every metric and every counting measure (serial,
    without the GIL: :func:`cwla._threads.over_chunks` runs chunks of cells on several threads).

    Cell ``c`` is run ``c // n_topics`` and topic ``c % n_topics``; its ranking is
    ``codes[starts[c]:starts[c] + lengths[c]]`` in rank order. Writes
    ``out_lo[m, c]`` (the score) and, if ``with_upper``, ``out_hi[m, c]`` (unjudged
    and padded documents at gain 1; otherwise a copy of the score). ``h_ap`` is the
    largest depth H of an AP metric (its suffix sums need H + 1 slots of scratch space).

    ``tabs[m]`` holds metric m's table (a tabulated model). Document costs: ``clo[ccodes[i]]`` and
    ``chi[ccodes[i]]`` (the last entry: an unknown cost; ``ccodes`` empty: every cost unknown); with
    ``want``, ``xout_lo[m, c]`` and ``xout_hi[m, c]`` receive EC, ETC and ED (:data:`X_EC`, ...).

    Counting measure q (:mod:`cwla.metrics.counting`) is row ``cspec[q]`` (code, level row, k, gain row) and
    ``cpar[q]``; ``kinds[l, g]`` says what grade code g is at level row l (relevant, judged
    non-relevant, negative or unjudged: :func:`cwla.scoring.counting_kernels.kind_table`), ``n_rel[l, t]`` and
    ``n_nonrel[l, t]`` count topic t's relevant and judged non-relevant
    documents. Writes ``cout_lo[q, c]`` and ``cout_hi[q, c]``; the measures of codes >= ``FIRST_TREC``
    (trec_eval's other measures) are left to :func:`trec_cells`.
    """
    n_metrics = ispec.shape[0]
    n_counts = cspec.shape[0]
    lower, upper = np.bool_(False), np.bool_(True)  # typed bools: literal ones would compile count_ranking twice
    S = np.empty(h_ap + 1)  # scratch, once per call (serial: the cells of a call share it)
    xlo = np.empty(N_X)
    xhi = np.empty(N_X)
    for c in range(first, last):
        t = c % n_topics
        s, n = starts[c], lengths[c]
        if WITH_METRICS:  # compile-time constants (see score_variant): a variant compiles only its parts
            for m in range(n_metrics):
                lo, hi = _score_metric(
                    codes, s, n, unjudged, ispec[m], fspec[m], glo[m], ghi[m], relsum[m, t], S, with_upper, tabs[m],
                    ccodes, clo, chi, want, xlo, xhi,
                )
                if want:
                    for j in range(N_X):
                        xout_lo[m, c, j] = xlo[j]
                        xout_hi[m, c, j] = xhi[j]
                out_lo[m, c] = lo
                out_hi[m, c] = hi
        if WITH_COUNTS:
            has_unjudged = False
            for i in range(n):
                if codes[s + i] == unjudged:
                    has_unjudged = True
                    break
            for q in range(n_counts):
                level = cspec[q, C_LEVEL]
                if cspec[q, C_CODE] >= FIRST_TREC:  # trec_cells scores it
                    continue
                lo = count_ranking(codes, s, n, kinds[level], n_rel[level, t], n_nonrel[level, t],
                                   cspec[q, C_CODE], cspec[q, C_K], cpar[q], lower)
                cout_lo[q, c] = lo
                if has_unjudged and with_upper:
                    cout_hi[q, c] = count_ranking(codes, s, n, kinds[level], n_rel[level, t], n_nonrel[level, t],
                                                  cspec[q, C_CODE], cspec[q, C_K], cpar[q], upper)
                else:
                    cout_hi[q, c] = lo


def _score_variants() -> dict:
    """``(metrics, costs, counts) -> kernel``: :func:`score_cells` compiled with only the parts a call needs
    (numba freezes the constants, so the other parts' branches are compiled out and their functions never
    compiled): a task of counting measures does not compile the C/W/L/A machinery, nor one without costs
    :func:`score_ranking_costs`. Each variant is cached on disk under its own name."""
    plain = dict(globals(), COSTS_POSSIBLE=False)
    plain["_score_metric"] = _variant(_score_metric, "_score_metric_plain", plain)
    counting = _variant(score_cells, "score_cells_counting", dict(plain, WITH_METRICS=False))
    return {(True, True, True): score_cells,
            (True, True, False): _variant(score_cells, "score_cells_costs_metrics", globals(), WITH_COUNTS=False),
            (True, False, True): _variant(score_cells, "score_cells_counts", plain),
            (True, False, False): _variant(score_cells, "score_cells_metrics", plain, WITH_COUNTS=False),
            (False, False, True): counting}


_SCORE_VARIANTS = _score_variants()


def score_variant(metrics: bool, costs: bool, counts: bool):
    """The :func:`score_cells` variant for a call with C/W/L/A ``metrics`` (of which some need ``costs``:
    a cost-based model, or EC/ETC wanted) and counting measures (``counts``)."""
    metrics = bool(metrics)
    return _SCORE_VARIANTS[metrics, bool(costs) and metrics, bool(counts) or not metrics]


@jit()
def trec_cells(first, last, codes, starts, lengths, n_topics, unjudged, cspec, cpar, kinds, n_rel, n_nonrel, ggain,
               istart, igain, icount, gscale, with_upper, cout_lo, cout_hi):
    """:func:`score_cells`' counting part (cells ``first:last``) for trec_eval's other measures (codes >= ``FIRST_TREC``): the
    kinds-based ones (:func:`cwla.scoring.counting_kernels.trec_ranking`) and those over grades as gains (gain row
    r = ``cspec[q, C_GAIN]`` >= 0, :func:`cwla.scoring.counting_kernels.gain_ranking`: ``ggain[r]`` the gain of each
    grade code, topic t's ideal gain levels ``igain[istart[r, t]:istart[r, t + 1]]`` with ``icount``
    documents each, ``gscale[r, t]`` rbp's scaling; no residual). A kernel of its own, compiled only when
    one of them is asked for, so that the usual measures do not pay for compiling them."""
    lower, upper = np.bool_(False), np.bool_(True)  # typed bools: literal ones would compile trec_ranking twice
    for c in range(first, last):
        t = c % n_topics
        s, n = starts[c], lengths[c]
        has_unjudged = False
        for i in range(n):
            if codes[s + i] == unjudged:
                has_unjudged = True
                break
        for q in range(cspec.shape[0]):
            code = cspec[q, C_CODE]
            if code < FIRST_TREC:
                continue
            level = cspec[q, C_LEVEL]
            row = cspec[q, C_GAIN]
            if row >= 0:
                a, b = istart[row, t], istart[row, t + 1]
                lo = gain_ranking(codes, s, n, ggain[row], igain[a:b], icount[a:b], code, cpar[q, 0],
                                  cpar[q, 1] if code == COMPAT else gscale[row, t, 0], gscale[row, t, 1],
                                  n_rel[level, t])
                cout_lo[q, c] = lo
                cout_hi[q, c] = lo
                continue
            lo = trec_ranking(codes, s, n, kinds[level], n_rel[level, t], n_nonrel[level, t], code, cspec[q, C_K],
                              cpar[q], lower)
            cout_lo[q, c] = lo
            if has_unjudged and with_upper:
                cout_hi[q, c] = trec_ranking(codes, s, n, kinds[level], n_rel[level, t], n_nonrel[level, t], code,
                                             cspec[q, C_K], cpar[q], upper)
            else:
                cout_hi[q, c] = lo


_ADAPTIVE_KERNELS: dict = {}


def kernel_for(function, *, metrics: bool = True, costs: bool = True, counts: bool = True):
    """:func:`score_cells` with ``function(i, r, cg, params)`` as the adaptive models' C(i).

    The same source, compiled again with ``adaptive_continuation`` bound to ``function`` (and the functions on
    the way to it: :func:`_continuation`, :func:`score_ranking`, :func:`_score_metric`); not cached on disk
    (a user's function has no stable identity across processes), once per function and process. None: the
    cached kernel, in the variant for what the call needs (:func:`score_variant`)."""
    if function is None:
        return score_variant(metrics, costs, counts)
    if function not in _ADAPTIVE_KERNELS:
        scope = dict(globals(), adaptive_continuation=function)
        suffix = f"_adaptive_{len(_ADAPTIVE_KERNELS)}"
        scope["_continuation"] = _variant(_continuation, "_continuation" + suffix, scope, cache=False)
        scope["score_ranking"] = _variant(score_ranking, "score_ranking" + suffix, scope, cache=False)
        scope["score_ranking_costs"] = _variant(score_ranking, "score_ranking_costs" + suffix, scope, cache=False,
                                                WITH_COSTS=True)
        scope["_score_metric"] = _variant(_score_metric, "_score_metric" + suffix, scope, cache=False)
        _ADAPTIVE_KERNELS[function] = _variant(score_cells, "score_cells" + suffix, scope, cache=False)
    return _ADAPTIVE_KERNELS[function]
