"""trec_eval's preference counts: the preferences of a topic's judgment groups against a ranking.

The counting of ``form_prefs_counts.c`` and the ``prefs_*`` measures of ``m_prefs_*.c`` (trec_eval >= 9),
for :func:`cwla.bridges.trec_prefs.trec_prefs_lines`. A judgment group with one sub-group is an EC group
(equivalence classes of levels: every document of a higher level preferred to every one of a lower level);
with several sub-groups it is a PA group, whose preferences are the transitive closure of its sub-groups'.
Each preference "a over b" of a group is counted against the ranking (a document is retrieved when it is
in the ranking, which is cut at the judged documents retrieved): ``ful_ret`` both retrieved, a above b;
``poss_ret`` both retrieved (fulfilled or not); ``ful_imp`` a retrieved, b not; ``poss_imp`` exactly one
retrieved; ``poss_notoccur`` neither. Over the groups' preferences of a topic, ``prefs_simp =
(ful_ret + ful_imp) / (poss_ret + poss_imp + poss_notoccur)``, ``prefs_simp_ret = ful_ret / poss_ret``,
``prefs_simp_imp = (ful_ret + ful_imp) / (poss_ret + poss_imp)`` (0 when nothing is possible); ``prefs_avgjg``
and its variants average each group's ratio; ``prefs_pair`` and ``prefs_avgjg_Rnonrel`` are those of
trec_eval's ``m_prefs_pair.c`` and ``m_prefs_avgjg_Rnonrel.c``.

References
----------
Buckley & Voorhees, trec_eval 9.0 (``form_prefs_counts.c``, ``m_prefs_*.c``), NIST.
Carterette & Bennett, "Evaluation measures for preference judgments", SIGIR 2008.
"""

from __future__ import annotations

import itertools
import math

import attrs
import numpy as np

from ..errors import InputError

__all__ = ["PrefLines", "form_prefs", "prefs_values", "c_sum", "NO_LEVEL", "MAX_COUNT"]

NO_LEVEL = -3.0  # form_prefs_counts.c's "illegal rel_level", the level before a group's first line
MAX_COUNT = 65535  # trec_eval counts the groups preferring a pair in an unsigned short


@attrs.frozen(eq=False)
class PrefLines:
    """One topic's preference lines (prefs, qrels_prefs), in file order."""

    jg: np.ndarray  # str objects
    jsg: np.ndarray
    docno: np.ndarray
    level: np.ndarray  # float64 (float32 values under convention 9)
    line: np.ndarray  # physical line numbers


def c_sum(values) -> float:
    """The left-to-right sum of C's loops (Python's sum() compensates, numpy's sum pairs)."""
    values = np.asarray(values, dtype=np.float64)
    return float(np.cumsum(values)[-1]) if len(values) else 0.0



# ---------------------------------------------------------------------------
# preferences against a ranking (form_prefs_counts.c)
# ---------------------------------------------------------------------------


@attrs.frozen(eq=False)
class _Group:
    """One judgment group of a topic against the ranking: its preferences (docid ranks, ``better`` preferred
    to ``worse``), their five counts, its relevant and nonrelevant documents, and what _Rnonrel needs."""

    name: str
    kind: str  # "EC" (one sub-group) or "PA" (several: the transitive closure)
    better: np.ndarray
    worse: np.ndarray
    ful_ret: int
    poss_ret: int
    ful_imp: int
    poss_imp: int
    poss_notoccur: int
    num_rel: int
    num_rel_ret: int
    num_nonrel: int
    num_nonrel_ret: int
    ecs: tuple = ()  # EC: the docid ranks of each level, highest first, each ascending
    levels: tuple = ()  # EC: the level of each EC
    pool_start: int = 0  # EC: where the group's first EC starts in the topic's rank pool
    docs: np.ndarray | None = None  # PA: the group's docid ranks, ascending
    doc_levels: np.ndarray | None = None  # PA: each doc's level (the last one read: trec_eval's rel_array)


@attrs.frozen(eq=False)
class _TopicPrefs:
    topic: str
    num_judged: int
    num_judged_ret: int
    groups: tuple
    pool: np.ndarray  # the docid ranks of the EC groups' ECs back to back (trec_eval's rank_pool)
    pair_keys: np.ndarray  # better * num_judged + worse, sorted, over every group
    pair_counts: np.ndarray  # the number of groups with each preference


def form_prefs(topic: str, lines: PrefLines, ranked: np.ndarray) -> _TopicPrefs:
    judged, line_doc = np.unique(lines.docno, return_inverse=True)
    nj = len(judged)
    pos = np.minimum(np.searchsorted(judged, ranked), nj - 1)
    hit = judged[pos] == ranked
    retrieved = pos[np.asarray(hit, dtype=bool)]  # judged docs in rank order
    njr = len(retrieved)
    docid = np.empty(nj, dtype=np.int64)
    docid[retrieved] = np.arange(njr)
    unretrieved = np.ones(nj, dtype=bool)
    unretrieved[retrieved] = False
    docid[unretrieved] = np.arange(njr, nj)  # in docno order
    rank = docid[line_doc]
    _, jg_code = np.unique(lines.jg, return_inverse=True)
    _, jsg_code = np.unique(lines.jsg, return_inverse=True)
    order = np.lexsort((rank, -lines.level, jsg_code, jg_code))
    starts = np.flatnonzero(np.r_[True, jg_code[order][1:] != jg_code[order][:-1]])
    ends = np.r_[starts[1:], len(order)]
    where = _Where(topic, lines, judged[np.argsort(docid)])
    groups, pool = [], []
    pool_size = 0
    for s, e in zip(starts, ends):
        rows = order[s:e]
        sub = jsg_code[rows]
        if np.all(sub == sub[0]):
            group = _ec_group(rows, rank[rows], lines.level[rows], njr, pool_size, where)
            pool.append(rank[rows])
            pool_size += len(rows)
        else:
            group = _pa_group(rows, rank[rows], lines.level[rows], sub, njr, where)
        groups.append(group)
    keys = np.sort(np.concatenate([g.better * nj + g.worse for g in groups]))
    first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else np.zeros(0, np.int64)
    pair_keys, pair_counts = keys[first], np.diff(np.r_[first, len(keys)])
    if len(pair_counts) and pair_counts.max() > MAX_COUNT:
        k = int(pair_keys[np.argmax(pair_counts)])
        raise InputError(f"topic {topic!r}: more than {MAX_COUNT} judgment groups prefer {where.names[k // nj]!r} "
                         f"to {where.names[k % nj]!r}; trec_eval counts them in an unsigned short, which wraps")
    return _TopicPrefs(topic, nj, njr, tuple(groups), np.concatenate(pool) if pool else np.zeros(0, np.int64),
                       pair_keys, pair_counts)


@attrs.frozen(eq=False)
class _Where:
    """What an error message names: the topic, its lines, the docno of each docid rank."""

    topic: str
    lines: PrefLines
    names: np.ndarray


def _below(ranks: np.ndarray, levels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every preference of one sub-group (entries sorted by level descending): each entry over every later
    entry of a lower level."""
    n = len(levels)
    starts = np.flatnonzero(np.r_[True, levels[1:] != levels[:-1]])
    tie_end = np.repeat(np.r_[starts[1:], n], np.diff(np.r_[starts, n]))  # first entry below each one's level
    counts = n - tie_end
    better = np.repeat(ranks, counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    worse = ranks[np.arange(len(better)) - first + np.repeat(tie_end, counts)]
    return better, worse


def _areas(better: np.ndarray, worse: np.ndarray, njr: int) -> tuple[int, int, int, int, int]:
    """(ful_ret, poss_ret, ful_imp, poss_imp, poss_notoccur) of preferences better > worse; the possible
    counts include the fulfilled ones, as in trec_eval."""
    ret_b, ret_w = better < njr, worse < njr
    ful_ret = int(np.count_nonzero((better < worse) & ret_w))
    not_ret = int(np.count_nonzero((better > worse) & ret_b))
    ful_imp = int(np.count_nonzero(ret_b & ~ret_w))
    not_imp = int(np.count_nonzero(~ret_b & ret_w))
    notoccur = int(np.count_nonzero(~ret_b & ~ret_w))
    return ful_ret, ful_ret + not_ret, ful_imp, ful_imp + not_imp, notoccur


def _ec_group(rows, ranks, levels, njr: int, pool_start: int, where: _Where) -> _Group:
    name = str(where.lines.jg[rows[0]])
    if levels[0] == NO_LEVEL:
        raise InputError(f"topic {where.topic!r}, judgment group {name!r} (line {where.lines.line[rows[0]]}): its "
                         f"highest rel_level is -3, the value trec_eval's form_prefs_counts.c uses for 'no level yet': "
                         f"trec_eval miscounts the group's levels and reads undefined memory; shift the levels")
    starts = np.flatnonzero(np.r_[True, levels[1:] != levels[:-1]])
    ecs = tuple(np.split(ranks, starts[1:]))
    better, worse = _below(ranks, levels)
    rel, ret = levels > 0.0, ranks < njr
    return _Group(name, "EC", better, worse, *_areas(better, worse, njr),
                  num_rel=int(rel.sum()), num_rel_ret=int((rel & ret).sum()),
                  num_nonrel=int((~rel).sum()), num_nonrel_ret=int((~rel & ret).sum()),
                  ecs=ecs, levels=tuple(float(v) for v in levels[starts]), pool_start=pool_start)


def _pa_group(rows, ranks, levels, sub, njr: int, where: _Where) -> _Group:
    name = str(where.lines.jg[rows[0]])
    docs, local = np.unique(ranks, return_inverse=True)
    # each doc's levels in sub-group order: 0 next to > 0 is an error, the last one is its level
    by_doc = np.argsort(local, kind="stable")
    same = local[by_doc][1:] == local[by_doc][:-1]
    prev, cur = levels[by_doc][:-1], levels[by_doc][1:]
    clash = np.flatnonzero(same & (((prev > 0) & (cur == 0)) | ((prev == 0) & (cur > 0))))
    if len(clash):
        k = clash[np.argmin(by_doc[clash + 1])]  # the clash trec_eval meets first (it reads the group in order)
        a, b = rows[by_doc[k]], rows[by_doc[k + 1]]
        raise InputError(f"topic {where.topic!r}, judgment group {name!r}: docno {where.lines.docno[b]!r} is nonrelevant "
                         f"(0) and relevant (> 0) in two of its sub-groups (lines {where.lines.line[a]} and "
                         f"{where.lines.line[b]}); a group is one user's consistent judgments (trec_eval stops)")
    last = np.r_[~same, True]
    doc_levels = np.empty(len(docs), dtype=np.float64)
    doc_levels[local[by_doc][last]] = levels[by_doc][last]
    adj = np.zeros((len(docs), len(docs)), dtype=bool)
    bounds = np.flatnonzero(np.r_[True, sub[1:] != sub[:-1], True])
    for s, e in itertools.pairwise(bounds):
        b, w = _below(local[s:e], levels[s:e])
        adj[b, w] = True
    reach = _closure(adj)
    conflict = np.argwhere(reach & reach.T)
    if len(conflict):
        i, j = conflict[0]
        raise InputError(f"topic {where.topic!r}, judgment group {name!r}: {where.names[docs[i]]!r} and "
                         f"{where.names[docs[j]]!r} are each preferred to the other through its sub-groups; a "
                         f"group's preferences must have no cycle (trec_eval aborts)")
    li, lj = np.nonzero(reach)
    better, worse = docs[li], docs[lj]
    rel, nonrel, ret = doc_levels > 0.0, doc_levels == 0.0, docs < njr
    return _Group(name, "PA", better, worse, *_areas(better, worse, njr),
                  num_rel=int(rel.sum()), num_rel_ret=int((rel & ret).sum()),
                  num_nonrel=int(nonrel.sum()), num_nonrel_ret=int((nonrel & ret).sum()),
                  docs=docs, doc_levels=doc_levels)


def _closure(adj: np.ndarray) -> np.ndarray:
    """The transitive closure of a preference relation, its diagonal cleared (add_transitives)."""
    reach = adj.copy()
    while True:
        as_float = reach.astype(np.float32)
        wider = reach | ((as_float @ as_float) > 0)
        if np.array_equal(wider, reach):
            break
        reach = wider
    np.fill_diagonal(reach, False)
    return reach


# ---------------------------------------------------------------------------
# the preference measures (m_prefs_*.c)
# ---------------------------------------------------------------------------


def _total(tp: _TopicPrefs, *fields: str) -> int:
    return sum(getattr(g, f) for g in tp.groups for f in fields)


_FUL = ("ful_ret", "ful_imp")
_POSS = ("poss_ret", "poss_imp", "poss_notoccur")
_POSS_IMP = ("poss_ret", "poss_imp")


def _ratio(tp: _TopicPrefs, ful: tuple, poss: tuple) -> float:
    f, p = _total(tp, *ful), _total(tp, *poss)
    return f / p if p else 0.0


def _avgjg(tp: _TopicPrefs, ful: tuple, poss: tuple) -> float:
    s = 0.0
    for g in tp.groups:
        p = sum(getattr(g, f) for f in poss)
        if p:
            s += sum(getattr(g, f) for f in ful) / p
    return s / len(tp.groups) if s > 0.0 else 0.0


def _pair(table: tuple, reach: str) -> float:
    """prefs_pair (``reach="all"``), _imp ("imp"), _ret ("ret") from :func:`_pair_table`."""
    score, both, one, none = table
    parts = [score[both]] if reach == "ret" else [score[both], score[one]]
    n = sum(len(p) for p in parts) + (int(none.sum()) if reach == "all" else 0)
    return c_sum(np.concatenate(parts)) / n if n else 0.0


def _pair_table(tp: _TopicPrefs) -> tuple:
    """Over the document pairs {i < j} some group orders, in trec_eval's row-major order: the share
    c(i>j) / (c(i>j) + c(j>i)) of the groups agreeing with the ranking, and whether both, one or none of the
    two are retrieved."""
    nj, njr = tp.num_judged, tp.num_judged_ret
    keys, counts = tp.pair_keys, tp.pair_counts
    a, b = keys // nj, keys % nj
    pairs = np.sort(np.minimum(a, b) * nj + np.maximum(a, b))
    pairs = pairs[np.r_[True, pairs[1:] != pairs[:-1]]] if len(pairs) else pairs
    lo, hi = pairs // nj, pairs % nj

    def count(k):
        if not len(keys):
            return np.zeros(0, np.int64)
        i = np.minimum(np.searchsorted(keys, k), len(keys) - 1)
        return np.where(keys[i] == k, counts[i], 0)

    forward, backward = count(lo * nj + hi), count(hi * nj + lo)
    return forward / (forward + backward), hi < njr, (lo < njr) & (hi >= njr), lo >= njr


def _pool_entries(tp: _TopicPrefs, g: _Group, count: int, ret_only: bool, measure: str) -> np.ndarray:
    """The 'new nonrel EC' of recalculate(): ``count`` entries of the rank pool from the group's last EC on
    (running on into the topic's later EC groups, as trec_eval does); ``ret_only``: up to the first
    unretrieved one. Past the topic's data trec_eval reads stale memory: an error."""
    start = g.pool_start + sum(len(ec) for ec in g.ecs[:-1])
    entries = tp.pool[start:start + count]
    if ret_only:
        stop = np.flatnonzero(entries >= tp.num_judged_ret)
        if len(stop):
            return entries[:stop[0]]
    if len(entries) < count:
        raise InputError(f"{measure}, topic {tp.topic!r}, judgment group {g.name!r}: trec_eval takes {count} "
                         f"documents from the group's last level ({g.levels[-1]:g}, {len(g.ecs[-1])} documents) on, "
                         f"which runs past the topic's judgments into stale memory (m_{measure}.c): trec_eval's "
                         f"value is undefined for this input")
    return entries


def _ordered_pairs(x: np.ndarray, y: np.ndarray, njr: int | None) -> tuple[int, int]:
    """(fulfilled, not fulfilled) over the pairs x by y: fulfilled when x < y (and x < njr when given)."""
    ys = np.sort(y)
    xs = x if njr is None else x[x < njr]
    ful = int((len(ys) - np.searchsorted(ys, xs, side="right")).sum())
    return ful, len(x) * len(y) - ful


def _recalc_ec(tp: _TopicPrefs, g: _Group, ret_only: bool, measure: str) -> tuple[int, int]:
    njr = tp.num_judged_ret
    count = g.num_rel_ret if ret_only else g.num_rel
    new = _pool_entries(tp, g, count, ret_only, measure)
    ecs = [ec[ec < njr] for ec in g.ecs] if ret_only else list(g.ecs)  # each ascending: the loops' early stop
    rule = None if ret_only else njr
    ful = poss = 0
    for e1 in range(len(ecs)):
        for e2 in range(e1 + 1, len(ecs) - 1):  # every pair of ECs but the last (whatever their levels)
            f, p = _ordered_pairs(ecs[e1], ecs[e2], rule)
            ful, poss = ful + f, poss + p
    for ec in ecs:  # every EC, the last one too, against the new nonrel EC
        f, p = _ordered_pairs(ec, new, rule)
        ful, poss = ful + f, poss + p
    return ful, poss + ful


def _recalc_pa(tp: _TopicPrefs, g: _Group, ret_only: bool) -> tuple[int, int]:
    njr = tp.num_judged_ret
    limit = njr if ret_only else tp.num_judged
    zero = g.doc_levels == 0.0
    counted = g.docs[zero & (g.docs < limit)]  # ascending docid ranks
    first_dropped = counted[g.num_rel] if len(counted) > g.num_rel else limit  # num_rel + 1, also for _ret
    dropped = zero & (g.docs >= first_dropped)
    keep = ~dropped[np.searchsorted(g.docs, g.better)] & ~dropped[np.searchsorted(g.docs, g.worse)]
    ful_ret, poss_ret, ful_imp, poss_imp, notoccur = _areas(g.better[keep], g.worse[keep], njr)
    if ret_only:
        return ful_ret, poss_ret
    return ful_ret + ful_imp, poss_ret + poss_imp + notoccur


def _rnonrel(tp: _TopicPrefs, ret_only: bool) -> float:
    measure = "prefs_avgjg_Rnonrel_ret" if ret_only else "prefs_avgjg_Rnonrel"
    s = 0.0
    for g in tp.groups:
        r, n = (g.num_rel_ret, g.num_nonrel_ret) if ret_only else (g.num_rel, g.num_nonrel)
        if r >= n:
            if ret_only:
                ful, poss = g.ful_ret, g.poss_ret
            else:
                ful, poss = g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp + g.poss_notoccur
            ful += g.num_rel_ret * (r - n)
            poss += g.num_rel * (r - n)  # num_rel in the _ret variant too, as trec_eval
        elif g.kind == "EC":
            ful, poss = _recalc_ec(tp, g, ret_only, measure)
        else:
            ful, poss = _recalc_pa(tp, g, ret_only)
        s += ful / poss if poss else math.nan  # C's 0/0: NaN, which makes the topic 0 below
    return s / len(tp.groups) if s > 0.0 else 0.0


def prefs_values(tp: _TopicPrefs, names) -> dict:
    """The asked-for preference measures of one topic."""
    table = _pair_table(tp) if any(m.startswith("prefs_pair") for m in names) else None
    compute = {
        "prefs_num_prefs_poss": lambda: float(_total(tp, *_POSS)),
        "prefs_num_prefs_ful": lambda: float(_total(tp, *_FUL)),
        "prefs_num_prefs_ful_ret": lambda: float(_total(tp, "ful_ret")),
        "prefs_simp": lambda: _ratio(tp, _FUL, _POSS),
        "prefs_pair": lambda: _pair(table, "all"),
        "prefs_avgjg": lambda: _avgjg(tp, _FUL, _POSS),
        "prefs_avgjg_Rnonrel": lambda: _rnonrel(tp, False),
        "prefs_simp_ret": lambda: _ratio(tp, ("ful_ret",), ("poss_ret",)),
        "prefs_pair_ret": lambda: _pair(table, "ret"),
        "prefs_avgjg_ret": lambda: _avgjg(tp, ("ful_ret",), ("poss_ret",)),
        "prefs_avgjg_Rnonrel_ret": lambda: _rnonrel(tp, True),
        "prefs_simp_imp": lambda: _ratio(tp, _FUL, _POSS_IMP),
        "prefs_pair_imp": lambda: _pair(table, "imp"),
        "prefs_avgjg_imp": lambda: _avgjg(tp, _FUL, _POSS_IMP),
    }
    return {m: compute[m]() for m in names if m in compute}
