"""ir_measures' names of measures (``P(rel=2)@10``, ``nDCG@10``, ``AP``, ...): each one's parameters, its ``@``
parameter, how it maps to cwla (a composed :class:`~cwla.metrics.metric.Metric` or a counting measure), and
examples of it for the catalogue (docs/metrics.md). The parser (:mod:`cwla.metrics.text`) reads a name and
its parameters against this table.
"""

from __future__ import annotations

from .aggregations import ERG, ETG, ERRAgg, Max
from .browsing import AP, BPM, DCG, ERR, INSQ, INST, NERR8, NERR9, NERR10, NERR11, RBP, Precision, Reciprocal
from .counting import (G, BinG, Bpref, InfAP, IPrec, IPrecMean, Judged, NDCGRel, NumNonRelJudgedRet, NumQ, NumRel,
                       NumRelRet, NumRet, RBPResid, RBPTrec, Recall, RelP, RnDCG, RPrec, RprecMult, SetAP, SetF, SetP,
                       Unj, Utility, ELEVEN_POINTS, NumNonJudgedRet, DCGTrec, IdealDCG, Accuracy, Compat)
from ..errors import CwlaError
from .gains import Binary, Exponential, Linear, Regrade, Scaled
from .metric import ALL, Metric
from .intents import IntentAware, Novelty


__all__ = ["NAMED_MEASURES", "NAMED_ALIASES", "named_forms"]


class _Named:
    """One ir_measures measure: its parameters, whether it needs ``@``, how it maps to cwla, and (for the
    catalogue, docs/metrics.md) examples of it and the tool whose semantics it follows."""

    def __init__(self, build, params, at="cutoff", required=(), examples=(), follows=""):
        self.build, self.params, self.at, self.required = build, params, at, required
        self.examples, self.follows = examples, follows


def _binary(p):
    return Binary(p.get("rel"))


def _judged_only(p):
    return p.get("judged_only")


def _ndcg(p):
    dcg = p.get("dcg", "log2")
    if "gains" in p:
        gain = Regrade(p["gains"])
    elif dcg == "exp-log2":
        gain = Exponential()
    else:
        gain = Linear()
    k = p.get("cutoff")
    # without a cutoff the discount never reaches 0: stop at the end of the ranking, or its mass would be lost
    return Metric(DCG(k), ETG(), gain=gain, cutoff=k, depth=ALL, stop=True if k is None else None,
                  normalize="ideal", judged_only=_judged_only(p))


def _k20(p) -> int:
    """The cutoff of ndeval's measures read to a depth: @k, else ndeval's deepest, 20 (setting it in ``p``)."""
    return p.setdefault("cutoff", 20)


def _diversity(model, aggregation, p, normalize, alpha, depth=ALL):
    """ndeval's measures as compositions (:mod:`cwla.metrics.intents`): ``alpha`` None: intent-aware (the mean over
    subtopics), else novelty-discounted gains; the relevance level in the binary gain (J)."""
    k = p.get("cutoff")
    intents = IntentAware() if alpha is None else Novelty(alpha)
    return Metric(model, aggregation, gain=_binary(p), cutoff=k, depth=depth,
                  stop=None if isinstance(model, (AP, Precision)) else True,
                  normalize=normalize, judged_only=_judged_only(p), intents=intents)


def _cwl(model, p):
    """ir_measures' cwl_eval measures: the model's ERG over scaled gains, 1000 ranks, the user stopping at 1000."""
    return Metric(model, ERG(), gain=_scaled_or_none(p), depth=1000, stop=True)


def _scaled_or_none(p):
    if "min_rel" in p or "max_rel" in p:
        return Scaled(p.get("min_rel", 0), p.get("max_rel"))
    return None


NAMED_MEASURES = {
    "P": _Named(lambda p: Metric(Precision(p["cutoff"]), ERG(), gain=_binary(p), cutoff=p["cutoff"], depth=ALL,
                                 judged_only=_judged_only(p)),
                ("cutoff", "rel", "judged_only"), required=("cutoff",),
                examples=("P@10", "P(rel=2)@10", "P(rel=2, judged_only=True)@10"), follows="trec_eval P_k"),
    "RR": _Named(lambda p: Metric(ERR(), ERRAgg(), gain=_binary(p), cutoff=p.get("cutoff"), depth=ALL,
                                  judged_only=_judged_only(p)),
                 ("cutoff", "rel", "judged_only"),
                examples=("RR", "RR(rel=2)@10"), follows="trec_eval recip_rank (on the ranking cut at k)"),
    "AP": _Named(lambda p: Metric(AP("qrels"), ERG(), gain=_binary(p), cutoff=p.get("cutoff"), depth=ALL,
                                  judged_only=_judged_only(p)),
                 ("cutoff", "rel", "judged_only"),
                examples=("AP", "AP(rel=2)", "AP@100"), follows="trec_eval map, map_cut_k"),
    "nDCG": _Named(_ndcg, ("cutoff", "dcg", "gains", "judged_only"),
                examples=("nDCG", "nDCG@10", "nDCG(dcg='exp-log2')@10", "nDCG(gains={0:0,1:0,2:1,3:3})@10"),
                follows="trec_eval ndcg, ndcg_cut_k"),
    "Success": _Named(lambda p: Metric(Precision(p["cutoff"]), Max(), gain=_binary(p), cutoff=p["cutoff"],
                                       depth=ALL, judged_only=_judged_only(p)),
                      ("cutoff", "rel", "judged_only"), required=("cutoff",),
                examples=("Success@10", "Success(rel=2)@1"), follows="trec_eval success_k"),
    "ERR": _Named(lambda p: Metric(ERR(), ERRAgg(), gain=Exponential(4), cutoff=p.get("cutoff"), depth=ALL),
                  ("cutoff",),
                examples=("ERR@20", "ERR"), follows="gdeval ERR@k"),
    "SDCG": _Named(lambda p: Metric(DCG(p["cutoff"]), ERG(), gain=_scaled_or_none(p), depth=1000, stop=True),
                   ("cutoff", "dcg", "min_rel", "max_rel"), required=("cutoff",),
                examples=("SDCG@10", "SDCG(max_rel=3)@10"), follows="cwl_eval NDCG-k (scaled DCG)"),
    "RBP": _Named(lambda p: Metric(RBP(p.get("p", 0.8)), ERG(), gain=Binary(p["rel"]) if "rel" in p else None,
                                   cutoff=p.get("cutoff"), depth=1000, stop=True),
                  ("cutoff", "p", "rel"),
                examples=("RBP(p=0.8)", "RBP(rel=2, p=0.95)"), follows="cwl_eval RBP"),
    "INST": _Named(lambda p: Metric(INST(p.get("T", 1.0)), ERG(), gain=_scaled_or_none(p), depth=1000, stop=True),
                   ("T", "min_rel", "max_rel"), at=None,
                examples=("INST", "INST(T=2.0, max_rel=3)"), follows="cwl_eval INST"),
    "INSQ": _Named(lambda p: _cwl(INSQ(p.get("T", 1.0)), p), ("T", "min_rel", "max_rel"), at=None,
                   examples=("INSQ", "INSQ(T=2.0, max_rel=3)"), follows="cwl_eval INSQ"),
    "NERR8": _Named(lambda p: _cwl(NERR8(p["cutoff"]), p), ("cutoff", "min_rel", "max_rel"), required=("cutoff",),
                    examples=("NERR8@10", "NERR8(max_rel=3)@10"), follows="cwl_eval NERR8"),
    "NERR9": _Named(lambda p: _cwl(NERR9(p["cutoff"]), p), ("cutoff", "min_rel", "max_rel"), required=("cutoff",),
                    examples=("NERR9@10",), follows="cwl_eval NERR9"),
    "NERR10": _Named(lambda p: _cwl(NERR10(p.get("p", 0.9)), p), ("p", "min_rel", "max_rel"), at=None,
                     examples=("NERR10", "NERR10(p=0.8, max_rel=3)"), follows="cwl_eval NERR10 (p: its phi)"),
    "NERR11": _Named(lambda p: _cwl(NERR11(p.get("T", 1.0)), p), ("T", "min_rel", "max_rel"), at=None,
                     examples=("NERR11", "NERR11(T=2.0)"), follows="cwl_eval NERR11"),
    "BPM": _Named(lambda p: _cwl(BPM(T=p.get("T", 1.0), K=p["cutoff"]), p), ("cutoff", "T", "min_rel", "max_rel"),
                  required=("cutoff",), examples=("BPM@1000", "BPM(T=2.0, max_rel=3)@100"),
                  follows="cwl_eval BPM (K = the cutoff, T the benefit budget)"),
    "alpha_nDCG": _Named(lambda p: _diversity(DCG(_k20(p)), ETG(), p, "ideal", p.get("alpha", 0.5)),
                         ("cutoff", "alpha", "rel", "judged_only"),
                         examples=("alpha_nDCG@20", "alpha_nDCG(alpha=0.3)@10"), follows="ndeval alpha-nDCG@k"),
    "alpha_DCG": _Named(lambda p: _diversity(DCG(_k20(p)), ETG(), p, "full", p.get("alpha", 0.5)),
                        ("cutoff", "alpha", "rel", "judged_only"),
                        examples=("alpha_DCG@20",), follows="ndeval alpha-DCG@k (k >= 2)"),
    "ERR_IA": _Named(lambda p: _diversity(Reciprocal(_k20(p)), ETG(), p, "full", 0.5),
                     ("cutoff", "rel", "judged_only"),
                     examples=("ERR_IA@20",), follows="ndeval ERR-IA@k (k >= 2)"),
    "nERR_IA": _Named(lambda p: _diversity(Reciprocal(_k20(p)), ETG(), p, "ideal", 0.5),
                      ("cutoff", "rel", "judged_only"),
                      examples=("nERR_IA@20",), follows="ndeval nERR-IA@k"),
    "NRBP": _Named(lambda p: _diversity(RBP(p.get("beta", 0.5)), ETG(), p, "full", p.get("alpha", 0.5), 1000),
                   ("alpha", "beta", "rel", "judged_only"), at=None,
                   examples=("NRBP", "NRBP(alpha=0.5, beta=0.8)"), follows="ndeval NRBP"),
    "nNRBP": _Named(lambda p: _diversity(RBP(p.get("beta", 0.5)), ETG(), p, "ideal", p.get("alpha", 0.5), 1000),
                    ("alpha", "beta", "rel", "judged_only"), at=None,
                    examples=("nNRBP",), follows="ndeval nNRBP"),
    "P_IA": _Named(lambda p: _diversity(Precision(_k20(p)), ERG(), p, None, None),
                   ("cutoff", "rel", "judged_only"),
                   examples=("P_IA@10",), follows="ndeval P-IA@k"),
    "AP_IA": _Named(lambda p: _diversity(AP("qrels"), ERG(), p, None, None), ("cutoff", "rel", "judged_only"),
                    examples=("AP_IA",), follows="ndeval MAP-IA"),
    "StRecall": _Named(lambda p: _diversity(Precision(_k20(p)), ETG(), p, None, 1.0),
                       ("cutoff", "rel", "judged_only"),
                       examples=("StRecall@10",), follows="ndeval strec@k (subtopic recall)"),
    "R": _Named(lambda p: Recall(p["cutoff"], rel=p.get("rel"), judged_only=_judged_only(p)),
                ("cutoff", "rel", "judged_only"), required=("cutoff",),
                examples=("R@1000", "R(rel=2)@100"), follows="trec_eval recall_k"),
    "SetR": _Named(lambda p: Recall(None, rel=p.get("rel"), judged_only=_judged_only(p)), ("rel", "judged_only"),
                   at=None,
                examples=("SetR", "SetR(rel=2)"), follows="trec_eval set_recall"),
    "Rprec": _Named(lambda p: RPrec(rel=p.get("rel"), judged_only=_judged_only(p)), ("rel", "judged_only"), at=None,
                examples=("Rprec", "Rprec(rel=2)"), follows="trec_eval Rprec"),
    "Bpref": _Named(lambda p: Bpref(rel=p.get("rel")), ("rel",), at=None,
                examples=("Bpref", "Bpref(rel=2)"), follows="trec_eval bpref"),
    "Judged": _Named(lambda p: Judged(p.get("cutoff"), judged_only=_judged_only(p)), ("cutoff", "judged_only"),
                examples=("Judged@10", "Judged"), follows="ir_measures Judged"),
    "SetP": _Named(lambda p: SetP(rel=p.get("rel"), judged_only=_judged_only(p), relative=p.get("relative", False)),
                   ("rel", "relative", "judged_only"), at=None,
                examples=("SetP", "SetP(rel=2, relative=True)"), follows="trec_eval set_P, set_relative_P"),
    "SetRelP": _Named(lambda p: SetP(rel=p.get("rel"), judged_only=_judged_only(p), relative=True),
                      ("rel", "judged_only"), at=None,
                examples=("SetRelP",), follows="trec_eval set_relative_P"),
    "SetF": _Named(lambda p: SetF(beta=p.get("beta", 1.0), rel=p.get("rel"), judged_only=_judged_only(p)),
                   ("rel", "beta", "judged_only"), at=None,
                examples=("SetF", "SetF(beta=0.5)"), follows="trec_eval set_F"),
    "SetAP": _Named(lambda p: SetAP(rel=p.get("rel"), judged_only=_judged_only(p)), ("rel", "judged_only"), at=None,
                examples=("SetAP",), follows="trec_eval set_map"),
    "IPrec": _Named(lambda p: IPrec(p["recall"], rel=p.get("rel"), judged_only=_judged_only(p),
                                    convention=p.get("convention")),
                    ("recall", "rel", "judged_only", "convention"), at="recall", required=("recall",),
                examples=("IPrec@0.5",), follows="trec_eval 9.0.x iprec_at_recall_x"),
    "NumRel": _Named(lambda p: NumRel(rel=p.get("rel")), ("rel",), at=None,
                examples=("NumRel", "NumRel(rel=2)"), follows="trec_eval num_rel"),
    "NumRet": _Named(lambda p: NumRelRet(rel=p["rel"], judged_only=_judged_only(p)) if "rel" in p
                     else NumRet(judged_only=_judged_only(p)), ("rel", "judged_only"), at=None,
                examples=("NumRet", "NumRet(rel=1)"), follows="trec_eval num_ret, num_rel_ret"),
    "NumRelRet": _Named(lambda p: NumRelRet(rel=p.get("rel"), judged_only=_judged_only(p)), ("rel", "judged_only"),
                        at=None,
                examples=("NumRelRet",), follows="trec_eval num_rel_ret"),
    "NumQ": _Named(lambda p: NumQ(), (), at=None,
                examples=("NumQ",), follows="trec_eval num_q"),
    "RelP": _Named(lambda p: RelP(p["cutoff"], rel=p.get("rel"), judged_only=_judged_only(p)),
                   ("cutoff", "rel", "judged_only"), required=("cutoff",),
                   examples=("RelP@10",), follows="trec_eval relative_P_k"),
    "RprecMult": _Named(lambda p: RprecMult(p["mult"], rel=p.get("rel"), judged_only=_judged_only(p)),
                        ("mult", "rel", "judged_only"), at=None, required=("mult",),
                        examples=("RprecMult(mult=0.2)",), follows="trec_eval Rprec_mult_x"),
    "Utility": _Named(lambda p: Utility(**{k: p[k] for k in ("a", "b", "c", "d", "docs") if k in p},
                                        rel=p.get("rel"), judged_only=_judged_only(p)),
                      ("a", "b", "c", "d", "docs", "rel", "judged_only"), at=None,
                      examples=("Utility", "Utility(a=2, b=-1)"), follows="trec_eval utility (docs: -N)"),
    "IPrecMean": _Named(lambda p: IPrecMean(_points_value(p.get("points")), rel=p.get("rel"),
                                            judged_only=_judged_only(p), convention=p.get("convention")),
                        ("points", "rel", "judged_only", "convention"), at=None,
                        examples=("IPrecMean", "IPrecMean(points='0.25,0.5,0.75', convention=10)"),
                        follows="trec_eval 11pt_avg"),
    "infAP": _Named(lambda p: InfAP(rel=p.get("rel")), ("rel",), at=None,
                    examples=("infAP",), follows="trec_eval infAP"),
    "binG": _Named(lambda p: BinG(rel=p.get("rel"), judged_only=_judged_only(p)), ("rel", "judged_only"), at=None,
                   examples=("binG",), follows="trec_eval binG"),
    "NumNonRelJudgedRet": _Named(lambda p: NumNonRelJudgedRet(rel=p.get("rel")), ("rel",), at=None,
                                 examples=("NumNonRelJudgedRet",), follows="trec_eval num_nonrel_judged_ret"),
    "Unj": _Named(lambda p: Unj(p["cutoff"]), ("cutoff",), required=("cutoff",),
                  examples=("Unj@10",), follows="trec_eval unj_k"),
    "RBPResid": _Named(lambda p: RBPResid(**({"p": p["p"]} if "p" in p else {})), ("p",), at=None,
                       examples=("RBPResid", "RBPResid(p=0.8)"), follows="trec_eval rbp_resid"),
    "G": _Named(lambda p: G(gains=p.get("gains", {})), ("gains",), at=None,
                examples=("G", "G(gains={1: 3, 2: 9})"), follows="trec_eval G"),
    "nDCGRel": _Named(lambda p: NDCGRel(gains=p.get("gains", {})), ("gains",), at=None,
                      examples=("nDCGRel",), follows="trec_eval ndcg_rel"),
    "RnDCG": _Named(lambda p: RnDCG(gains=p.get("gains", {}), rel=p.get("rel")), ("gains", "rel"), at=None,
                    examples=("RnDCG",), follows="trec_eval Rndcg"),
    "Accuracy": _Named(lambda p: Accuracy(p.get("cutoff"), rel=p.get("rel")), ("cutoff", "rel"),
                       examples=("Accuracy", "Accuracy(rel=2)@10"), follows="ir_measures Accuracy"),
    "Compat": _Named(lambda p: Compat(**{k: p[k] for k in ("p", "normalize") if k in p}), ("p", "normalize"),
                     at=None, examples=("Compat", "Compat(p=0.8, normalize=False)"), follows="ir_measures Compat"),
    "NumNonJudgedRet": _Named(lambda p: NumNonJudgedRet(), (), at=None,
                              examples=("NumNonJudgedRet",), follows="trec_eval num_nonjudged_ret"),
    "DCGTrec": _Named(lambda p: DCGTrec(gains=p.get("gains", {})), ("gains",), at=None,
                      examples=("DCGTrec",), follows="trec_eval dcg"),
    "IdealDCG": _Named(lambda p: IdealDCG(gains=p.get("gains", {})), ("gains",), at=None,
                       examples=("IdealDCG",), follows="trec_eval ideal_dcg"),
    "RBPTrec": _Named(lambda p: RBPTrec(gains=p.get("gains", {}), **({"p": p["p"]} if "p" in p else {})),
                      ("p", "gains"), at=None,
                      examples=("RBPTrec", "RBPTrec(p=0.8, gains={1: 1, 2: 3})"), follows="trec_eval rbp"),
}


def _points_value(text):
    """IPrecMean's ``points='0.25,0.5'`` as a tuple of floats (None: the 11 points)."""
    if text is None:
        return ELEVEN_POINTS
    try:
        return tuple(float(x) for x in str(text).split(","))
    except ValueError:
        raise CwlaError(f"points must be recall levels separated by commas, e.g. '0.25,0.5', got {text!r}") \
            from None

#: ir_measures' aliases
NAMED_ALIASES = {"Precision": "P", "Recall": "R", "MRR": "RR", "MAP": "AP", "NDCG": "nDCG", "RPrec": "Rprec",
                  "MAP_IA": "AP_IA",
                  "BPref": "Bpref"}


def named_forms(label, spec) -> str:
    """``accepted: P(rel=..., judged_only=...)@k, e.g. P@10, P(rel=2)@10``: how an ir_measures name is written."""
    params = [p for p in spec.params if p != spec.at]
    head = f"{label}({', '.join(f'{p}=...' for p in params)})" if params else label
    at = {"cutoff": "@k", "recall": "@x"}.get(spec.at, "") if spec.at else ""
    optional = "" if not at or spec.at in spec.required else "[" + at + "]"
    examples = ", ".join(spec.examples[:2])
    return f"accepted: {head}{optional or at}" + (f", e.g. {examples}" if examples else "")
