"""The numba kernels that score rankings: score = sum_{i<=H} L(i) A(i).

Metrics reach the kernels as data, never as function objects (so the compiled
code is cached on disk): one row of integers and one row of floats per metric,
plus a gain table per metric indexed by grade code (the last entry is the
unjudged document). See :mod:`cwla.browsing` and :mod:`cwla.aggregations` for
the formulas; the codes below are theirs.

The measures outside C/W/L/A (:mod:`cwla.counting`) are scored in the same pass,
cell by cell, from their own spec rows.

The kernels assume validated input; the Python wrappers in
:mod:`cwla.evaluation` check everything first.
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from ._numba import jit
from .counting import C_CODE, C_K, C_LEVEL, count_ranking

# browsing model codes (cwla.browsing)
PRECISION, DCG, RBP, INST, AP, ERR = 0, 1, 2, 3, 4, 5
# aggregation codes (cwla.aggregations)
A_ERG, A_ETG, A_AVG, A_MAX, A_FIN, A_PE, A_ERR = 0, 1, 2, 3, 4, 5, 6
# columns of the integer metric spec (depth -1: "all", H = the ranking's length, at least Precision's/DCG's k)
I_MODEL, I_AGG, I_CUTOFF, I_DEPTH, I_STOP = 0, 1, 2, 3, 4
N_ISPEC = 5
# columns of the float metric spec
F_MODEL, F_AGG = 0, 1
N_FSPEC = 2


@jit()
def score_ranking(codes, start, n, table, pad, H, stop, model, mpar, agg, apar, S):
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
    S : float64 array of length >= H + 1
        Scratch space for AP's suffix sums.

    Returns
    -------
    (score, rsum) : the score before AP's R_ret/R factor, and sum_{i<=H} r_i.
    """
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
    V = 1.0
    E = 0.0
    cg = 0.0
    mx = 0.0
    total = 0.0
    for i in range(1, H + 1):
        r = table[codes[start + i - 1]] if i <= n else pad
        cg += r
        if r > mx:
            mx = r
        if model == PRECISION:
            C = 1.0 if i < mpar else 0.0
        elif model == DCG:
            C = math.log2(i + 1.0) / math.log2(i + 2.0) if i < mpar else 0.0
        elif model == RBP:
            C = mpar
        elif model == INST:
            Ti = mpar - cg
            C = ((i - 1.0 + mpar + Ti) / (i + mpar + Ti)) ** 2
        elif model == AP:
            C = S[i] / S[i - 1] if S[i - 1] > 0.0 else 0.0
        else:  # ERR
            C = 1.0 - r
        if stop and i == H:
            C = 0.0
        L = V * (1.0 - C)
        E += V
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
    return total, rsum


@jit()
def _score_metric(codes, start, length, unjudged, ispec, fspec, glo, ghi, relsum, S, with_upper):
    """Lower score (unjudged and padding at gain 0) and upper score (at gain 1) of one ranking.

    AP with R = qrels (model parameter 1) is multiplied by R_ret / R, R = ``relsum``.
    """
    H = ispec[I_DEPTH]
    n = length
    if ispec[I_CUTOFF] > 0 and ispec[I_CUTOFF] < n:
        n = ispec[I_CUTOFF]
    model, agg, stop = ispec[I_MODEL], ispec[I_AGG], ispec[I_STOP] != 0
    mpar, apar = fspec[F_MODEL], fspec[F_AGG]
    pad_hi = 1.0
    if H < 0:  # depth "all": the whole (cut) ranking; nothing is padded, so the residual is its unjudged part
        H = n
        if (model == PRECISION or model == DCG) and H < mpar < math.inf:
            H = int(mpar)
        pad_hi = 0.0
    if H == 0:
        return 0.0, 0.0
    if H < n:
        n = H
    lo, rlo = score_ranking(codes, start, n, glo, 0.0, H, stop, model, mpar, agg, apar, S)
    exact = n == H or pad_hi == 0.0 or not with_upper
    if exact and with_upper:
        for i in range(n):
            if codes[start + i] == unjudged:
                exact = False
                break
    if exact:
        hi, rhi = lo, rlo
    else:
        hi, rhi = score_ranking(codes, start, n, ghi, pad_hi, H, stop, model, mpar, agg, apar, S)
    if model == AP and mpar != 0.0:
        # users who look for an unretrieved relevant document gain nothing: times R_ret / R;
        # in the upper bound the unjudged and padded documents join the relevant ones
        lo = lo * rlo / relsum if relsum > 0.0 else 0.0
        rel_hi = relsum + (rhi - rlo)
        hi = hi * rhi / rel_hi if rel_hi > 0.0 else 0.0
    return lo, hi


@jit(parallel=True)
def score_cells(codes, starts, lengths, n_topics, unjudged, ispec, fspec, glo, ghi, relsum, with_upper, h_ap,
                cspec, cpar, kinds, n_rel, n_nonrel, out_lo, out_hi, cout_lo, cout_hi):
    """Score every (run, topic) cell under every metric and every counting measure.

    Cell ``c`` is run ``c // n_topics`` and topic ``c % n_topics``; its ranking is
    ``codes[starts[c]:starts[c] + lengths[c]]`` in rank order. Writes
    ``out_lo[m, c]`` (the score) and, if ``with_upper``, ``out_hi[m, c]`` (unjudged
    and padded documents at gain 1; otherwise a copy of the score). ``h_ap`` is the
    largest depth H of an AP metric (its suffix sums need H + 1 slots of scratch space).

    Counting measure q (:mod:`cwla.counting`) is row ``cspec[q]`` (code, level row, k) and
    ``cpar[q]``; ``kinds[l, g]`` says what grade code g is at level row l (relevant, judged
    non-relevant, negative or unjudged: :func:`cwla.counting.kind_table`), ``n_rel[l, t]`` and
    ``n_nonrel[l, t]`` count topic t's relevant and judged non-relevant
    documents. Writes ``cout_lo[q, c]`` and ``cout_hi[q, c]``.
    """
    n_metrics = ispec.shape[0]
    n_counts = cspec.shape[0]
    for c in prange(starts.shape[0]):
        t = c % n_topics
        s, n = starts[c], lengths[c]
        S = np.empty(h_ap + 1)
        for m in range(n_metrics):
            lo, hi = _score_metric(
                codes, s, n, unjudged, ispec[m], fspec[m], glo[m], ghi[m], relsum[m, t], S, with_upper,
            )
            out_lo[m, c] = lo
            out_hi[m, c] = hi
        if n_counts == 0:
            continue
        has_unjudged = False
        for i in range(n):
            if codes[s + i] == unjudged:
                has_unjudged = True
                break
        for q in range(n_counts):
            level = cspec[q, C_LEVEL]
            lo = count_ranking(codes, s, n, kinds[level], n_rel[level, t], n_nonrel[level, t],
                               cspec[q, C_CODE], cspec[q, C_K], cpar[q], False)
            cout_lo[q, c] = lo
            if has_unjudged and with_upper:
                cout_hi[q, c] = count_ranking(codes, s, n, kinds[level], n_rel[level, t], n_nonrel[level, t],
                                              cspec[q, C_CODE], cspec[q, C_K], cpar[q], True)
            else:
                cout_hi[q, c] = lo
