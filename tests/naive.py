"""Slow, obviously correct reference implementations (the oracle for the kernels).

Everything here is transcribed from SPEC section 2 with plain Python loops and
no shared code with cwla's kernels: C(i) per browsing model, V, L, E, A(i) per
aggregation, score = sum L(i) A(i); AP's R factor, ideal normalisation and
residuals; plus the textbook formulas of P@k, DCG, RBP, AP, ERR and nDCG.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def continuation(model: str, param, r: list[float], H: int, stop: bool) -> list[float]:
    """C(1..H) for gains r (len H)."""
    C = []
    cg = 0.0
    S = [0.0] * (H + 2)  # S[i] = sum_{i<=j<=H} r_j / j, 1-based; S[H+1] = 0
    for i in range(H, 0, -1):
        S[i] = S[i + 1] + r[i - 1] / i
    for i in range(1, H + 1):
        cg += r[i - 1]
        if model == "Precision":
            c = 1.0 if i < param else 0.0
        elif model == "DCG":
            c = math.log2(i + 1) / math.log2(i + 2) if i < param else 0.0
        elif model == "RBP":
            c = param
        elif model == "INST":
            T = param
            Ti = T - cg
            c = ((i - 1 + T + Ti) / (i + T + Ti)) ** 2
        elif model == "AP":
            c = S[i + 1] / S[i] if S[i] > 0 else 0.0
        elif model == "ERR":
            c = 1.0 - r[i - 1]
        else:
            c = _cwl_continuation(model, param, r, i, cg)
        if stop and i == H:
            c = 0.0
        C.append(c)
    return C


def _cwl_continuation(model, p, r, i, cg):
    """cwl_eval's models (and the tabulated one), every document costing 1 (cc(i) = i); ``p`` is a dict of
    the model's parameters. BPM's T_i and K_i are recomputed from the start (no state carried)."""
    ri = r[i - 1]
    insq = lambda T: ((i + 2 * T - 1) / (i + 2 * T)) ** 2  # noqa: E731
    goal = lambda: 1 - 1 / (1 + p["b1"] * math.exp((p["T"] - cg) * p["R1"]))  # noqa: E731
    rate = lambda: 1 / (1 + p["b2"] * math.exp((p["A"] - cg / i) * p["R2"]))  # noqa: E731
    if model == "RR":
        return 1.0 if cg == 0 else 0.0
    if model == "INSQ":
        return insq(p["T"])
    if model == "NERR8":
        return 1 - ri if i < p["k"] else 0.0
    if model == "NERR9":
        return i / (i + 1) * (1 - ri) if i < p["k"] else 0.0
    if model == "NERR10":
        return p["phi"] * (1 - ri)
    if model == "NERR11":
        return insq(p["T"]) * (1 - ri)
    if model == "BPM":
        T = p["T"] + p["hb"] * sum(x - p["gain_med"] for x in r[: i - 1])
        K = p["K"] + p["hc"] * sum(x - p["gain_med"] for x in r[: i - 1])
        return 1.0 if cg < T and i < K else 0.0
    if model == "TBG":
        return 2 ** (-1 / p["H"])
    if model == "U":
        before, after = 1 - (i - 1) / p["L"], 1 - i / p["L"]
        return max(0.0, after) / before if before > 0 else 0.0
    if model == "IFTGoal":
        return goal()
    if model == "IFTRate":
        return rate()
    if model == "IFT":
        return goal() * rate()
    if model == "SET":
        w = lambda x: (x + 1) ** p["beta"] - x ** p["beta"]  # noqa: E731
        return w(i + 1) / w(i) if i < p["k"] else 0.0
    if model == "NPV":
        return 1 / (1 + p["rate"])
    if model == "Reciprocal":  # V(i) = 1 / i
        return i / (i + 1) if p["k"] is None or i < p["k"] else 0.0
    if model == "Tabulated":
        table = p["C"]
        return table[i - 1] if i <= len(table) else 0.0
    raise ValueError(model)


def weights(model, param, r, H, stop):
    """(V, L, E) for gains r padded to H."""
    C = continuation(model, param, r, H, stop)
    V = [1.0]
    for i in range(1, H):
        V.append(V[-1] * C[i - 1])
    L = [V[i] * (1.0 - C[i]) for i in range(H)]
    return V, L, sum(V)


def aggregation(agg: str, beta, r, i, E):
    """A(i), 1-based i."""
    seen = r[:i]
    cg = sum(seen)
    if agg == "ERG":
        return cg / E
    if agg == "ETG":
        return cg
    if agg == "avg":
        return cg / i
    if agg == "max":
        return max(seen)
    if agg == "fin":
        return seen[-1]
    if agg == "PE":
        return beta * max(seen) + (1 - beta) * seen[-1]
    if agg == "ERR":
        return 1.0 / i
    raise ValueError(agg)


def cwl_score(model, param, agg, beta, gains, H, stop, cutoff=None, pad=0.0, ap_R=None, judged_total=0.0):
    """score = sum_{i<=H} L(i) A(i) for one ranking.

    gains: the ranking's gains in rank order (unjudged already mapped);
    positions past the (cut) ranking up to H get ``pad``; ``ap_R`` "qrels"
    multiplies AP by R_ret / R with R = ``judged_total`` (plus, for the upper
    bound, the gain added by padding/unjudged, passed in by the caller).
    """
    r = list(gains[: cutoff if cutoff is not None else len(gains)])[:H]
    r = r + [pad] * (H - len(r))
    V, L, E = weights(model, param, r, H, stop)
    score = sum(L[i - 1] * aggregation(agg, beta, r, i, E) for i in range(1, H + 1))
    if model == "AP" and ap_R == "qrels":
        r_ret = sum(r)
        score = score * r_ret / judged_total if judged_total > 0 else 0.0
    return score


# ---- textbook formulas -------------------------------------------------------------


def precision_at(rel: list[int], k: int) -> float:
    return sum(rel[:k]) / k


def dcg_at(gains: list[float], k: int) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains[:k]))


def rbp(gains: list[float], p: float) -> float:
    return (1 - p) * sum(g * p**i for i, g in enumerate(gains))


def average_precision(rel: list[int], n_relevant: int) -> float:
    if n_relevant == 0:
        return 0.0
    hits, total = 0, 0.0
    for i, x in enumerate(rel, start=1):
        if x:
            hits += 1
            total += hits / i
    return total / n_relevant


def err_at(gains: list[float], k: int) -> float:
    """Chapelle et al. 2009: sum_i 1/i R_i prod_{j<i} (1 - R_j)."""
    score, keep = 0.0, 1.0
    for i, g in enumerate(gains[:k], start=1):
        score += keep * g / i
        keep *= 1 - g
    return score


def ndcg_at(grades: list[float], all_judged: list[float], k: int) -> float:
    ideal = dcg_at(sorted(all_judged, reverse=True), k)
    return dcg_at(grades, k) / ideal if ideal > 0 else 0.0


# ---- building inputs -------------------------------------------------------------


def frames(ranking, judged):
    """One-topic qrels and run DataFrames (run in rank order; evaluate with order="file") for a
    ranking of grades (None = unjudged) and the grades of all judged documents."""
    qrels = pd.DataFrame({"topic": "t", "docno": [f"j{i}" for i in range(len(judged))], "grade": judged})
    docs, unjudged = [], 0
    lookup = {}
    for i, g in enumerate(judged):
        lookup.setdefault(g, []).append(f"j{i}")
    for g in ranking:
        if g is None:
            docs.append(f"u{unjudged}")
            unjudged += 1
        else:
            docs.append(lookup[g].pop())
    run = pd.DataFrame({"topic": "t", "docno": docs, "score": np.arange(len(docs), 0, -1, dtype=float)})
    if run.empty:  # a run must hold a line: retrieve for another topic only, so topic t is missing
        run = pd.DataFrame({"topic": ["other"], "docno": ["x"], "score": [1.0]})
    return qrels, run


# ---- the measures outside C/W/L/A (trec_eval's definitions, SPEC section 2) ----------


def counting(name: str, ranking: list, judged: list, level: float, k=None, param=None) -> float:
    """trec_eval's value of a counting measure on one ranking.

    ``ranking``: grades in rank order, None for a document not in the qrels; ``judged``: the
    grades of every judged document of the topic. Relevant: grade >= level; judged
    non-relevant (bpref's N): 0 <= grade < level; a negative grade is never relevant and
    bpref skips it as trec_eval does.
    """
    rel = [g is not None and g >= level for g in ranking]
    R = sum(1 for g in judged if g >= level)
    N = sum(1 for g in judged if 0 <= g < level)
    n = len(ranking)
    top = rel[: (n if k is None else k)]
    if name == "NumRet":
        return n
    if name == "NumRel":
        return R
    if name == "NumQ":
        return 1
    if name == "NumRelRet":
        return sum(rel)
    if name == "Recall":
        return sum(top) / R if R else 0.0
    if name == "RPrec":
        return sum(rel[:R]) / R if R else 0.0
    if name == "Judged":
        shown = ranking[: (n if k is None else k)]
        return sum(g is not None for g in shown) / len(shown) if shown else 0.0
    if name == "Bpref":
        total, nonrel = 0.0, 0
        for g in ranking:
            if g is None or g < 0:
                continue
            if g >= level:
                total += 1.0 - min(nonrel, R) / min(N, R) if nonrel else 1.0
            else:
                nonrel += 1
        return total / R if R else 0.0
    P = sum(rel) / n if n else 0.0
    Rc = sum(rel) / R if R else 0.0
    if name == "SetP":
        return P
    if name == "SetRelP":
        return sum(rel) / min(n, R) if min(n, R) else 0.0
    if name == "SetAP":
        return P * Rc
    if name == "SetF":  # trec_eval: (x + 1) P R / (x P + R), x the parameter
        return (param + 1) * P * Rc / (param * P + Rc) if sum(rel) else 0.0
    if name == "IPrec":  # trec_eval 9.0.x: the floor(x R + 0.9)-th relevant document, best precision at or below it
        need = int(param * R + 0.9)
        if need > sum(rel):
            return 0.0
        found, best = 0, 0.0
        for i, r in enumerate(rel, start=1):
            found += r
            if found >= max(need, 1):
                best = max(best, found / i)
        return best
    raise ValueError(name)
