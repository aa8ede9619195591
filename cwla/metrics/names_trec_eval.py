"""trec_eval's names of measures (``map``, ``P_10``, ``P.10``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``): its
measure table in its output order, each measure's kind of parameter and default parameters, and the name
forms (``P_10``, ``P.10``, ``P.5,10``). The parser (:mod:`cwla.metrics.text`) reads a trec_eval name with
:func:`trec_parts` and builds it from :data:`TREC_MEASURES`; the bridge (:mod:`cwla.bridges.trec_eval`) names
and orders its output lines with the rest.
"""

from __future__ import annotations

import re

from .counting import (G, BinG, InfAP, IPrecMean, NDCGRel, NumNonRelJudgedRet, RBPResid, RBPTrec, RelP, RnDCG,
                       RprecMult, Unj, Utility, NumNonJudgedRet, DCGTrec, IdealDCG)
from ..errors import CwlaError
from .summary import GeoMean
from .names_ir_measures import NAMED_MEASURES
from .spelling import LONGEST_NUMBER

__all__ = ["TREC_MEASURES", "TREC_ORDER", "TREC_KINDS", "TREC_NICKNAMES", "TREC_UNSUPPORTED", "TREC_DEFAULT_CUTOFFS",
           "TREC_IN_IR_MEASURES", "TREC_RE", "trec_match", "trec_value", "trec_parts", "trec_name", "trec_sort_key",
           "expand_trec_names"]


def _gm(inner):
    return lambda value, convention: GeoMean(inner(value, convention))


def _irm(name, param=None):
    """A trec_eval measure that is an ir_measures one: its builder with ``param`` set from trec_eval's."""
    def build(value, convention):
        params = {} if value is None else {param: value}
        if name == "IPrec":
            params["convention"] = convention
        return NAMED_MEASURES[name].build(params)
    return build


def _trec_gains(value):
    """trec_eval's ``level=gain`` pairs (``p=`` aside) as {grade: gain}."""
    return {g: v for g, v in (value or ()) if g != "p"}


def _trec_p(value, default=0.9):
    return next((v for g, v in (value or ()) if g == "p"), default)


#: trec_eval's measures: name -> (parameter kind, builder(value, convention)). Kinds: None (no parameter),
#: "cut" (integer cutoffs, one measure each), "level" (real parameters, one measure each, printed %.2f),
#: "list" (one measure of the whole comma list), "pairs" (one measure of ``a=b`` pairs).
#: The order is trec_eval's measure table (its output order).
TREC_MEASURES = {
    "runid": (None, None), "num_q": (None, _irm("NumQ")), "num_ret": (None, _irm("NumRet")),
    "num_rel": (None, _irm("NumRel")), "num_rel_ret": (None, _irm("NumRelRet")), "map": (None, _irm("AP")),
    "gm_map": (None, _gm(_irm("AP"))), "Rprec": (None, _irm("Rprec")), "bpref": (None, _irm("Bpref")),
    "recip_rank": (None, _irm("RR")), "iprec_at_recall": ("level", _irm("IPrec", "recall")),
    "P": ("cut", _irm("P", "cutoff")), "relstring": ("list", None), "recall": ("cut", _irm("R", "cutoff")),
    "infAP": (None, lambda v, c: InfAP()), "gm_bpref": (None, _gm(_irm("Bpref"))),
    "Rprec_mult": ("level", lambda v, c: RprecMult(v)),
    "utility": ("list", lambda v, c: Utility() if v is None else Utility(a=v[0], b=v[1], c=v[2], d=v[3])),
    "11pt_avg": ("list", lambda v, c: IPrecMean(convention=c) if v is None else IPrecMean(v, convention=c)),
    "binG": (None, lambda v, c: BinG()), "G": ("pairs", lambda v, c: G(gains=_trec_gains(v))),
    "dcg": ("pairs", lambda v, c: DCGTrec(gains=_trec_gains(v))),
    "ideal_dcg": ("pairs", lambda v, c: IdealDCG(gains=_trec_gains(v))),
    "ndcg": ("pairs", lambda v, c: NAMED_MEASURES["nDCG"].build({"gains": _trec_gains(v)} if v else {})),
    "ndcg_rel": ("pairs", lambda v, c: NDCGRel(gains=_trec_gains(v))),
    "Rndcg": ("pairs", lambda v, c: RnDCG(gains=_trec_gains(v))), "ndcg_cut": ("cut", _irm("nDCG", "cutoff")),
    "map_cut": ("cut", _irm("AP", "cutoff")), "relative_P": ("cut", lambda v, c: RelP(v)),
    "success": ("cut", _irm("Success", "cutoff")), "set_P": (None, _irm("SetP")),
    "set_relative_P": (None, _irm("SetRelP")), "set_recall": (None, _irm("SetR")), "set_map": (None, _irm("SetAP")),
    "set_F": ("list", lambda v, c: NAMED_MEASURES["SetF"].build({} if v is None else {"beta": v[0]})),
    "num_nonrel_judged_ret": (None, lambda v, c: NumNonRelJudgedRet()),
    "num_nonjudged_ret": (None, lambda v, c: NumNonJudgedRet()),
    "rbp": ("pairs", lambda v, c: RBPTrec(p=_trec_p(v), gains=_trec_gains(v))),
    "rbp_resid": ("pairs", lambda v, c: RBPResid(p=_trec_p(v))), "unj": ("cut", lambda v, c: Unj(v)),
}

#: trec_eval's names of ir_measures' measures (for the suggestions: ``map@10`` -> ``AP@10``)
TREC_IN_IR_MEASURES = {"map": "AP", "map_cut": "AP", "P": "P", "recall": "R", "ndcg": "nDCG", "ndcg_cut": "nDCG",
                        "recip_rank": "RR", "success": "Success", "bpref": "Bpref"}

#: trec_eval's names for sets of measures (``-m all_trec``): what each names is :data:`cwla.bridges.trec_eval.NICKNAMES`
TREC_NICKNAMES = ("official", "set", "all_trec")

#: the trec_eval measures cwla names but does not compute (asking for one says so); the preference and
#: judgement-group measures are ``cwla eval --format trec -R prefs | qrels_prefs | qrels_jg``'s
TREC_UNSUPPORTED = ("yaap", "set_relative_P_avgjg")

#: trec_eval's order of its measures (its measure table), the order of its output lines
TREC_ORDER = tuple(TREC_MEASURES)
#: each trec_eval measure's kind of parameter (None, "cut", "level", "list" or "pairs": see TREC_MEASURES)
TREC_KINDS = {name: kind for name, (kind, _) in TREC_MEASURES.items()}

#: trec_eval's default parameters of its measures with one (``-m P`` gives P_5, ..., P_1000)
TREC_DEFAULT_CUTOFFS = {
    "P": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "recall": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "ndcg_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "map_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "relative_P": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "success": (1, 5, 10), "unj": (5, 10, 20),
    "iprec_at_recall": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    "Rprec_mult": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
}

_NUM = r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)"
TREC_RE = re.compile(
    r"(?P<name>" + "|".join(sorted(map(re.escape, TREC_MEASURES), key=len, reverse=True)) + r")"
    r"(?:[._](?P<param>" + _NUM + r"(?:," + _NUM + r")*|[-+A-Za-z0-9.]+=" + _NUM + r"(?:,[-+A-Za-z0-9.]+="
    + _NUM + r")*))?\Z"
)


def trec_value(name: str, text: str | None):
    """trec_eval's parameter text of measure ``name`` as a value: an int (cut), a float (level), a tuple of
    floats (list) or of (grade or "p", gain) pairs; None when absent; raises ValueError when malformed."""
    kind = TREC_MEASURES[name][0]
    if text is None:
        return None
    if kind is None:
        raise CwlaError(f"{name} takes no parameter")
    longest = max(len(part) for part in re.split(r"[,=]", text))
    if longest > LONGEST_NUMBER:
        raise CwlaError(f"a number of {longest:,} characters: numbers in a metric text have at most "
                         f"{LONGEST_NUMBER}")
    if kind == "pairs":
        pairs = []
        for pair in text.split(","):
            key, eq, value = pair.partition("=")
            if not eq:
                raise CwlaError(f"{name}'s parameters are level=gain pairs, got {pair!r}")
            pairs.append(("p" if key == "p" else float(key), float(value)))
        return tuple(pairs)
    if "=" in text:
        raise CwlaError(f"{name} takes numbers, not pairs")
    values = tuple(float(v) for v in text.split(","))
    if kind == "list":
        if name == "utility" and len(values) != 4:
            raise CwlaError("utility takes 4 coefficients (a, b, c, d), e.g. utility.1,-1,0,0")
        return values
    if len(values) != 1:
        raise CwlaError(f"{name}.{text} is {len(values)} measures: expand_trec_names or -m gives one each")
    return int(values[0]) if kind == "cut" else values[0]


def trec_match(text: str):
    """``(name, parameter text or None)`` of a trec_eval measure text, or None."""
    m = TREC_RE.match(text.strip())
    if m is None:
        return None
    name, param = m.group("name"), m.group("param")
    if param is not None and TREC_MEASURES[name][0] is None:
        return None
    return name, param


def trec_parts(text: str) -> tuple[str, str | None] | None:
    """``(trec_eval measure name, its parameter text or None)`` of a trec_eval measure text (``P.5,10``,
    ``P_10``, ``ndcg.1=3``, ``map``), or None if ``text`` is not one."""
    return trec_match(text)


def trec_name(text: str) -> str | None:
    """trec_eval's printed name for a trec_eval measure text (``P.10`` -> ``P_10``,
    ``iprec_at_recall.0.1`` -> ``iprec_at_recall_0.10``, ``utility.2,-1,0,0`` -> ``utility_2,-1,0,0``), or
    None if ``text`` is not one."""
    m = trec_match(text)
    if m is None:
        return None
    name, param = m
    kind = TREC_MEASURES[name][0]
    if param is None:
        return None if kind in ("cut", "level") else name
    try:
        value = trec_value(name, param)
    except ValueError:
        return None
    if kind == "level":
        return f"{name}_{value:.2f}"
    if kind == "cut":
        return f"{name}_{value}"
    return f"{name}_{param}"  # trec_eval prints a list or pairs as given


def trec_sort_key(text: str) -> tuple[int, float] | None:
    """Where trec_eval prints a trec_eval measure text: (its measure's place in trec_eval's table, its
    parameter, ascending), or None if ``text`` is not one."""
    m = trec_match(text)
    if m is None:
        return None
    name, param = m
    try:
        value = trec_value(name, param)
    except ValueError:
        return None
    return TREC_ORDER.index(name), float(value) if isinstance(value, (int, float)) else 0.0


def expand_trec_names(text: str) -> list[str]:
    """trec_eval's ``-m`` argument as trec_eval's printed measure names: ``P.5,10`` -> ``['P_5', 'P_10']``,
    ``P`` (a measure with cutoffs, none given) -> its default cutoffs ``['P_5', ..., 'P_1000']``, ``recall.1000``
    -> ``['recall_1000']``, ``utility.2,-1,0,0`` -> ``['utility_2,-1,0,0']``; any other text is returned as it
    is, in a list."""
    stripped = text.strip()
    m = trec_match(stripped)
    if m is None:
        return [text]
    name, param = m
    kind = TREC_MEASURES[name][0]
    if param is None:
        if kind in ("cut", "level"):
            return [trec_name(f"{name}.{k}") for k in TREC_DEFAULT_CUTOFFS[name]]
        return [name]
    if kind in ("cut", "level"):
        names = [trec_name(f"{name}.{p}") for p in param.split(",")]
        return [n for n in names if n is not None] if all(names) else [text]
    return [trec_name(stripped) or text]
