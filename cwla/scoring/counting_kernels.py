"""The kernels of the measures outside C/W/L/A (:mod:`cwla.metrics.counting`): one ranking, one measure, chosen
by the measure's code. :func:`cwla.scoring.kernels.score_cells` calls them in its one pass over every ranking;
the measures themselves (their names, parameters and codes) are declared in :mod:`cwla.metrics.counting`.
"""

from __future__ import annotations

import math

import numpy as np

from .._numba import jit
from ..metrics.counting import (RECALL, RPREC, BPREF, JUDGED, SETP, SETRELP, SETAP, IPREC, NUMREL, NUMRET, NUMRELRET,
                                NUMQ, RELP, RPREC_MULT, IPREC_MEAN, INFAP, BING, NUMNONREL, UNJ, RBP_RESID,
                                NUMNONJUDGED, ACCURACY, G_TREC, NDCG_REL, RBP_TREC, DCG_TREC, IDEAL_DCG, COMPAT)

__all__ = ["NONREL", "REL", "NEGATIVE", "UNJUDGED", "kind_table", "count_ranking", "trec_ranking", "gain_ranking"]

# what a grade code is at a relevance level (the rows of ``kinds`` in :func:`count_ranking`)
NONREL, REL, NEGATIVE, UNJUDGED = 0, 1, 2, 3


def kind_table(grades, level: float):
    """Per grade code (the unjudged code last): REL (grade >= level), NONREL (0 <= grade < level),
    NEGATIVE (grade < 0: judged, never relevant; trec_eval skips it in bpref and ``-J``) or UNJUDGED."""

    kinds = np.full(len(grades) + 1, UNJUDGED, dtype=np.uint8)
    kinds[: len(grades)] = np.where(grades >= level, REL, np.where(grades >= 0, NONREL, NEGATIVE))
    return kinds


@jit()
def _recall_cut(x, R, convention):
    """The number of relevant documents whose rank ends recall level x: floor(x R + 0.9) in trec_eval 9.0,
    round(x R) (half away from 0) in trec_eval >= 10 (commit b88a6a62)."""
    if convention == 10:
        return int(math.floor(x * R + 0.5))
    return int(x * R + 0.9)


@jit()
def _kind(kinds, code, upper):
    """What grade code ``code`` is (:func:`kind_table`); ``upper``: an unjudged document is relevant."""
    kind = kinds[code]
    return REL if upper and kind == UNJUDGED else kind


@jit()
def _relevant(codes, start, n, kinds, upper, kk):
    """(hits, found, nonrel) of ``codes[start:start + n]``: the relevant documents in the top kk and in the
    whole ranking, and the judged non-relevant ones (0 <= grade < level)."""
    hits = 0.0
    found = 0.0
    nonrel = 0.0
    for i in range(n):
        kind = _kind(kinds, codes[start + i], upper)
        if kind == REL:
            found += 1.0
            if i < kk:
                hits += 1.0
        elif kind == NONREL:
            nonrel += 1.0
    return hits, found, nonrel


@jit()
def _bpref(codes, start, n, kinds, upper, R, N):
    """trec_eval's bpref (Buckley & Voorhees 2004): (1 / R) sum over the relevant retrieved of
    1 - min(nonrel above, R) / min(N, R) (1 with no judged non-relevant document above)."""
    total = 0.0
    nonrel = 0.0
    for i in range(n):
        kind = _kind(kinds, codes[start + i], upper)
        if kind == REL:
            total += 1.0 - min(nonrel, R) / min(N, R) if nonrel > 0.0 else 1.0
        elif kind == NONREL:
            nonrel += 1.0
    return total / R if R > 0.0 else 0.0


@jit()
def _inf_ap(codes, start, n, kinds, upper, R):
    """trec_eval's infAP (Yilmaz & Aslam 2006): (1 / R) sum over the relevant retrieved of the expected
    precision above them, with trec_eval's epsilon 1e-5."""
    total = 0.0
    found = 0.0
    nonrel = 0.0  # judged non-relevant so far (0 <= grade < level)
    negative = 0.0  # grade < 0 so far
    for i in range(n):
        kind = _kind(kinds, codes[start + i], upper)
        if kind == REL:
            found += 1.0
            if i == 0:
                total += 1.0
            else:
                j = float(i)
                total += 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((found - 1.0 + nonrel + negative) / j) * \
                    ((found - 1.0 + 0.00001) / (found - 1.0 + nonrel + 2.0 * 0.00001))
        elif kind == NONREL:
            nonrel += 1.0
        elif kind == NEGATIVE:
            negative += 1.0
    return total / R if R > 0.0 else 0.0


@jit()
def _bin_g(codes, start, n, kinds, upper, R):
    """trec_eval's binG: (1 / R) sum over the relevant retrieved of 1 / log2(2 + i - found + 1) (i from 0)."""
    total = 0.0
    found = 0.0
    for i in range(n):
        if _kind(kinds, codes[start + i], upper) == REL:
            found += 1.0
            total += 1.0 / math.log2(2.0 + i - found + 1.0)
    return total / R if found > 0.0 and R > 0.0 else 0.0


@jit()
def _interpolated(codes, start, n, kinds, upper, need):
    """The best precision at any rank at or below the one where the ``need``-th relevant document is found
    (0 if fewer are retrieved; need = 0: the first relevant rank)."""
    found = 0.0
    best = 0.0
    reached = need == 0
    for i in range(n):
        if _kind(kinds, codes[start + i], upper) == REL:
            found += 1.0
            if found >= need:
                reached = True
        if reached and found > 0.0:
            precision = found / (i + 1.0)
            if precision > best:
                best = precision
    return best if found >= need else 0.0


@jit()
def _unjudged(codes, start, m, kinds, negative):
    """The documents of ``codes[start:start + m]`` not in the qrels (``negative``: or with a grade < 0), as a
    float (the counts the measures divide)."""
    count = 0.0
    for i in range(m):
        kind = kinds[codes[start + i]]
        if kind == UNJUDGED or (negative and kind == NEGATIVE):
            count += 1.0
    return count


@jit()
def count_ranking(codes, start, n, kinds, R, N, code, k, fp, upper):
    """The value of one counting measure on ``codes[start:start + n]``.

    ``kinds[g]`` says what grade code g is at the measure's level (:func:`kind_table`); R counts
    the topic's relevant documents, N its judged non-relevant ones (0 <= grade < level, as
    trec_eval's bpref); ``fp`` holds the measure's float parameters (:attr:`CountingMeasure.fparam`).
    ``upper``: the world where the unjudged documents of the ranking are relevant (and judged, so R
    grows by their number).
    """
    fpar = fp[0]
    if code == NUMQ:
        return 1.0
    if code == NUMRET:
        return float(n)
    if upper:
        R += _unjudged(codes, start, n, kinds, False)
    if code == NUMREL:
        return R
    kk = n if (k < 0 or k > n) else k
    if code == JUDGED:  # ir_measures: a document with any judgement, negative grades included
        if kk == 0:
            return 0.0
        if upper:
            return 1.0
        judged = 0.0
        for i in range(kk):
            if kinds[codes[start + i]] != UNJUDGED:
                judged += 1.0
        return judged / kk
    if code == IPREC:
        return _interpolated(codes, start, n, kinds, upper, _recall_cut(fpar, R, int(fp[1])))
    if code == RPREC:
        kk = int(R) if R < n else n
    if code == BPREF:
        return _bpref(codes, start, n, kinds, upper, R, N)
    hits, found, _ = _relevant(codes, start, n, kinds, upper, kk)
    if code == NUMRELRET:
        return found
    if code == RECALL or code == RPREC:
        return hits / R if R > 0.0 else 0.0
    p = found / n if n > 0 else 0.0
    r = found / R if R > 0.0 else 0.0
    if code == SETP:
        return p
    if code == SETRELP:
        m = min(float(n), R)
        return found / m if m > 0.0 else 0.0
    if code == SETAP:
        return p * r
    # SETF: trec_eval's (x + 1) P R / (x P + R) with x = the parameter itself (ir_measures' beta)
    d = fpar * p + r
    return (1.0 + fpar) * p * r / d if found > 0.0 and d > 0.0 else 0.0


@jit()
def trec_ranking(codes, start, n, kinds, R, N, code, k, fp, upper):
    """The value of one of trec_eval's other counting measures (and ir_measures' Accuracy): codes
    :data:`RELP` onwards, read as :func:`count_ranking` reads its own. Scored by their own kernel pass
    (:func:`cwla.scoring.kernels.trec_cells`), compiled only when one is asked for."""
    fpar = fp[0]
    if code == RBP_RESID:  # p^n + (1 - p) sum over the unjudged (not in the qrels, or a grade < 0) of p^(i-1)
        mass = 0.0
        at = 1.0
        seen = False
        for i in range(n):
            kind = kinds[codes[start + i]]
            if kind == UNJUDGED or kind == NEGATIVE:
                seen = True
                mass += at
            at *= fpar
        return at + (1.0 - fpar) * mass if seen else 0.0
    if code == NUMNONJUDGED:
        return _unjudged(codes, start, n, kinds, True)
    if code == UNJ:
        return _unjudged(codes, start, n if k > n else k, kinds, True) / k
    if upper:
        R += _unjudged(codes, start, n, kinds, False)
    kk = n if (k < 0 or k > n) else k
    if code == IPREC_MEAN:  # fp: convention, number of points, the points
        total = 0.0
        for j in range(int(fp[1])):
            total += _interpolated(codes, start, n, kinds, upper, _recall_cut(fp[2 + j], R, int(fp[0])))
        return total / fp[1]
    if code == ACCURACY:  # the AUC of the top kk: relevant before non-relevant (unjudged ones included)
        rel_seen = 0.0
        other = 0.0
        above = 0.0
        for i in range(kk):
            if _kind(kinds, codes[start + i], upper) == REL:
                rel_seen += 1.0
                above += other
            else:
                other += 1.0
        if rel_seen == 0.0:
            return 0.0
        return 1.0 - above / (other * rel_seen) if other > 0.0 else 1.0
    if code == INFAP:
        return _inf_ap(codes, start, n, kinds, upper, R)
    if code == BING:
        return _bin_g(codes, start, n, kinds, upper, R)
    cut = 0
    if code == RPREC_MULT:
        cut = int(fpar * R + 0.9)
        kk = cut if cut < n else n
    hits, found, nonrel = _relevant(codes, start, n, kinds, upper, kk)
    if code == NUMNONREL:
        return nonrel
    if code == RPREC_MULT:
        return hits / cut if cut > 0 else 0.0
    if code == RELP:
        m = min(float(k), R)
        return hits / m if m > 0.0 else 0.0
    # UTILITY; fp: a, b, c, d, documents in the collection
    return fp[0] * found + fp[1] * (n - found) + fp[2] * (R - found) + fp[3] * (fp[4] + found - n - R)


@jit()
def _ideal_gain(ig, ic, cur, at):
    """The ideal ranking's next gain: ``(gain, cur, at)`` after one more position, walking the levels
    ``ig`` (gains, descending) with ``ic`` documents each; gain 0 past the last."""
    at += 1
    while cur < ig.shape[0] and at > ic[cur]:
        cur += 1
        at = 1
    return (ig[cur] if cur < ig.shape[0] else 0.0), cur, at


@jit()
def _compat(codes, start, n, gain, ig, ic, p, normalize):
    """Compat: rbo(ranking, ideal) = sum_{i<D} p^i |A[:i+1] & B[:i+1]| / (i + 1) / sum_{i<D} p^i, D = max(|A|,
    |B|), the ideal B every judged document of grade > 0 by grade, a grade's retrieved documents in the ranking's
    order first; ``normalize`` != 0: over rbo(B, B) at the same depth."""
    size = 0
    for j in range(ic.shape[0]):
        size += ic[j]
    depth = max(n, size)
    if depth == 0:
        return 0.0
    joins = np.zeros(depth)  # joins[m]: documents in both lists from depth m + 1 on
    seen = np.zeros(max(1, ig.shape[0]))
    for i in range(n):
        g = gain[codes[start + i]]
        if g <= 0.0:
            continue
        above = 0
        level = 0
        while level < ig.shape[0] and ig[level] > g:
            above += ic[level]
            level += 1
        if level == ig.shape[0]:
            continue
        at = above + int(seen[level])
        seen[level] += 1.0
        joins[max(i, at)] += 1.0
    score = 0.0
    best = 0.0
    norm = 0.0
    weight = 1.0
    both = 0.0
    for i in range(depth):
        both += joins[i]
        score += weight * both / (i + 1.0)
        best += weight * min(i + 1.0, float(size)) / (i + 1.0)
        norm += weight
        weight *= p
    score /= norm
    if normalize != 0.0:
        best /= norm
        return score / best if best > 0.0 else score
    return score


@jit()
def gain_ranking(codes, start, n, gain, ig, ic, code, fpar, lo, span, R):
    """The value of one measure over grades as gains on ``codes[start:start + n]``: ``gain[g]`` is grade
    code g's gain, ``ig``/``ic`` the topic's ideal ranking as gain levels (descending, > 0) and their
    document counts, ``lo``/``span`` rbp's scaling of the gains (g - lo) / span (span 1, lo 0: none), R
    the topic's relevant documents at the measure's level.
    trec_eval's m_G.c, m_ndcg_rel.c, m_Rndcg.c and m_rbp.c, step by step."""
    if code == RBP_TREC:
        total = 0.0
        at = 1.0
        for i in range(n):
            g = gain[codes[start + i]]
            if span != 1.0 or lo != 0.0:
                g = (g - lo) / span
            total += g * at
            at *= fpar
        return (1.0 - fpar) * total
    cur, at = 0, 0
    best = ig[0] if ig.shape[0] > 0 else 0.0
    if code == COMPAT:  # RBO of the ranking against the ideal (Clarke, Vtyurina & Smucker, TOIS 2021)
        return _compat(codes, start, n, gain, ig, ic, fpar, lo)
    if code == DCG_TREC:
        dcg = 0.0
        for i in range(n):
            dcg += gain[codes[start + i]] / math.log2(i + 2.0)
        return dcg
    if code == IDEAL_DCG:  # the ideal ranking's DCG to its end (every judged document of positive gain)
        ideal = 0.0
        i = 0
        while best > 0.0:
            best, cur, at = _ideal_gain(ig, ic, cur, at)
            if best > 0.0:
                ideal += best / math.log2(i + 2.0)
            i += 1
        return ideal
    if code == G_TREC:
        result = 0.0
        got = 0.0
        ideal = 0.0
        cost = 0.0
        for i in range(n):
            g = gain[codes[start + i]]
            got += g
            if best > 0.0:  # the ideal ranking's next document costs its gain, at least 1
                best, cur, at = _ideal_gain(ig, ic, cur, at)
                ideal += best
                cost += best if best >= 1.0 else 1.0
            else:
                cost += 1.0
            if g != 0.0:
                result += g / math.log2(2.0 + cost - got)
        while best > 0.0:
            best, cur, at = _ideal_gain(ig, ic, cur, at)
            ideal += best
        return result / ideal if ideal > 0.0 else 0.0
    if code == NDCG_REL:
        dcg = 0.0
        ideal = 0.0
        total = 0.0
        rel_ret = 0.0
        rel = 0.0
        i = 0
        while i < n or best > 0.0:
            g = gain[codes[start + i]] if i < n else 0.0
            if g != 0.0:
                dcg += g / math.log2(i + 2.0)
            if best > 0.0:
                best, cur, at = _ideal_gain(ig, ic, cur, at)
                if best > 0.0:
                    rel += 1.0
                    ideal += best / math.log2(i + 2.0)
            if i < n and g > 0.0 and ideal > 0.0:
                total += dcg / ideal
                rel_ret += 1.0
            i += 1
        if ideal != 0.0:
            total += (rel - rel_ret) * dcg / ideal
        return total / rel if total > 0.0 else 0.0
    # RNDCG: nDCG at each rank where the ideal's gain level changes, and at the end of the ranking
    if ig.shape[0] == 0 or R <= 0.0:
        return 0.0
    dcg = 0.0
    ideal = 0.0
    total = 0.0
    changes = 0.0
    old = best
    stop = n  # the rank after which the ideal ranking has no more gain, where that is inside the ranking
    i = 0
    while i < n or best > 0.0:
        if best > 0.0:
            best, cur, at = _ideal_gain(ig, ic, cur, at)
            if old != best:
                if ideal > 0.0:
                    total += dcg / ideal
                    changes += 1.0
                old = best
            if best > 0.0:
                ideal += best / math.log2(i + 2.0)
            else:
                stop = i + 1
        g = gain[codes[start + i]] if i < n else 0.0
        if g != 0.0:
            dcg += g / math.log2(i + 2.0)
        i += 1
    if stop < n and ideal > 0.0:  # the end of a ranking longer than the ideal one
        total += dcg / ideal
        changes += 1.0
    return total / changes if changes > 0.0 else 0.0
