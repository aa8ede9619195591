"""The metric language: canonical text round trip, Chen & Sakai names, trec_eval habits, errors."""

import re

import pytest
from hypothesis import given

import cwla
from cwla import (AP, DCG, ERG, ERR, ETG, INST, PE, RBP, Avg, Binary, ERRAgg, Exponential, Linear, Max, Metric,
                  Precision, Regrade, Scaled)
from cwla.counting import (Bpref, IPrec, Judged, NumQ, NumRel, NumRelRet, NumRet, Recall, RPrec, SetAP, SetF,
                           SetP)
from cwla import MetricSyntaxError, parse_metric
from cwla.errors import ParameterError
from cwla.metrics.metric import METRIC_CONSTRAINTS
from cwla.testing import check_round_trip, gain_maps, metrics


@given(metrics())
def test_every_metric_prints_and_parses_back(metric):
    check_round_trip(metric)
    assert parse_metric(str(metric)) == metric
    assert hash(parse_metric(str(metric))) == hash(metric)


@given(gain_maps())
def test_every_gain_map_prints_and_parses_back(gain):
    assert cwla.parse_gain(str(gain)) == gain


@pytest.mark.parametrize("text, expected", [
    ("RBP(p=0.8)+ERG", Metric(RBP(0.8), ERG())),
    ("RBP(0.95)+ETG", Metric(RBP(0.95), ETG())),
    ("INST(T=2.5)+PE(beta=0.5)[cutoff=10, depth=10, stop=true]",
     Metric(INST(2.5), PE(0.5), cutoff=10, depth=10, stop=True)),
    ("AP(R=retrieved)+ERG[gain=binary:2]", Metric(AP("retrieved"), ERG(), gain=Binary(2))),
    ("AP(R='qrels')+avg", Metric(AP("qrels"), Avg())),
    ("ERR+ERR[gain=exponential(gmax=4), cutoff=20]", Metric(ERR(), ERRAgg(), gain=Exponential(4), cutoff=20)),
    ("DCG(k=10)+ETG[gain=linear, normalize=ideal]", Metric(DCG(10), ETG(), gain=Linear(), normalize="ideal")),
    # Chen & Sakai's names with the paper's parameters
    ("RBP_ERG", Metric(RBP(0.8), ERG())),
    ("INST_PE", Metric(INST(2.5), PE(0.5))),
    ("ERR_ERR", Metric(ERR(), ERRAgg())),
    ("Precision_avg", Metric(Precision(10), Avg())),
    ("DCG_ETG", Metric(DCG(10), ETG())),
    ("AP_ERG", Metric(AP("retrieved"), ERG())),
    ("RBP_ERG[cutoff=10, depth=10, stop=true]", Metric(RBP(0.8), ERG(), cutoff=10, depth=10, stop=True)),
    # ir_measures names, with ir_measures' parameters; binary gains without rel= follow the evaluation's level
    ("P@10", Metric(Precision(10), ERG(), gain=Binary(), cutoff=10, depth="all")),
    ("P(rel=2)@5", Metric(Precision(5), ERG(), gain=Binary(2), cutoff=5, depth="all")),
    ("P(cutoff=5, rel=2)", Metric(Precision(5), ERG(), gain=Binary(2), cutoff=5, depth="all")),
    ("Precision@5", Metric(Precision(5), ERG(), gain=Binary(), cutoff=5, depth="all")),
    ("P(rel=2, judged_only=True)@10", Metric(Precision(10), ERG(), gain=Binary(2), cutoff=10, depth="all",
                                             judged_only=True)),
    ("AP", Metric(AP("qrels"), ERG(), gain=Binary(), depth="all")),
    ("MAP", Metric(AP("qrels"), ERG(), gain=Binary(), depth="all")),
    ("AP(rel=2)", Metric(AP("qrels"), ERG(), gain=Binary(2), depth="all")),
    ("AP@100", Metric(AP("qrels"), ERG(), gain=Binary(), cutoff=100, depth="all")),
    ("RR", Metric(ERR(), ERRAgg(), gain=Binary(), depth="all")),
    ("MRR@10", Metric(ERR(), ERRAgg(), gain=Binary(), cutoff=10, depth="all")),
    ("RR(rel=2)@10", Metric(ERR(), ERRAgg(), gain=Binary(2), cutoff=10, depth="all")),
    ("Success@10", Metric(Precision(10), Max(), gain=Binary(), cutoff=10, depth="all")),
    ("nDCG@10", Metric(DCG(10), ETG(), gain=Linear(), cutoff=10, depth="all", normalize="ideal")),
    ("nDCG", Metric(DCG(None), ETG(), gain=Linear(), depth="all", stop=True, normalize="ideal")),
    ("nDCG(dcg='exp-log2')@5", Metric(DCG(5), ETG(), gain=Exponential(), cutoff=5, depth="all", normalize="ideal")),
    ("nDCG(gains={0:0,1:0,2:1,3:3})@5", Metric(DCG(5), ETG(), gain=Regrade({0: 0, 1: 0, 2: 1, 3: 3}), cutoff=5,
                                               depth="all", normalize="ideal")),
    ("SDCG@20", Metric(DCG(20), ERG(), depth=1000, stop=True)),
    ("SDCG(max_rel=3)@20", Metric(DCG(20), ERG(), gain=Scaled(0, 3), depth=1000, stop=True)),
    ("RBP(p=0.5)", Metric(RBP(0.5), ERG(), depth=1000, stop=True)),
    ("RBP(rel=2, p=0.8)", Metric(RBP(0.8), ERG(), gain=Binary(2), depth=1000, stop=True)),
    ("INST(T=3)", Metric(INST(3), ERG(), depth=1000, stop=True)),
    ("INST", Metric(INST(1), ERG(), depth=1000, stop=True)),
    ("INST(min_rel=1, max_rel=3)", Metric(INST(1), ERG(), gain=Scaled(1, 3), depth=1000, stop=True)),
    ("ERR@20", Metric(ERR(), ERRAgg(), gain=Exponential(4), cutoff=20, depth="all")),
    # the measures outside C/W/L/A
    ("R@1000", Recall(1000)),
    ("R(rel=2)@1000", Recall(1000, rel=2)),
    ("Recall(judged_only=True)@5", Recall(5, judged_only=True)),
    ("SetR", Recall(None)),
    ("Rprec", RPrec()),
    ("RPrec(rel=2)", RPrec(rel=2)),
    ("Bpref", Bpref()),
    ("BPref(rel=2)", Bpref(rel=2)),
    ("Judged@10", Judged(10)),
    ("Judged", Judged()),
    ("NumRel", NumRel()),
    ("NumRel(rel=2)", NumRel(rel=2)),
    ("NumRet", NumRet()),
    ("NumRet(rel=1)", NumRelRet(rel=1)),
    ("NumRelRet", NumRelRet()),
    ("NumQ", NumQ()),
    ("SetP", SetP()),
    ("SetRelP", SetP(relative=True)),
    ("SetF(beta=0.5)", SetF(beta=0.5)),
    ("SetAP", SetAP()),
    ("IPrec@0.5", IPrec(0.5)),
    # trec_eval's names
    ("map", Metric(AP("qrels"), ERG(), gain=Binary(), depth="all")),
    ("map_cut_100", Metric(AP("qrels"), ERG(), gain=Binary(), cutoff=100, depth="all")),
    ("map_cut.100", Metric(AP("qrels"), ERG(), gain=Binary(), cutoff=100, depth="all")),
    ("P_10", Metric(Precision(10), ERG(), gain=Binary(), cutoff=10, depth="all")),
    ("P.10", Metric(Precision(10), ERG(), gain=Binary(), cutoff=10, depth="all")),
    ("recall_100", Recall(100)),
    ("ndcg", Metric(DCG(None), ETG(), gain=Linear(), depth="all", stop=True, normalize="ideal")),
    ("ndcg_cut_10", Metric(DCG(10), ETG(), gain=Linear(), cutoff=10, depth="all", normalize="ideal")),
    ("ndcg_cut.23.4", Metric(DCG(23), ETG(), gain=Linear(), cutoff=23, depth="all", normalize="ideal")),
    ("ndcg.1=3,2=9,4=4.5", Metric(DCG(None), ETG(), gain=Regrade({1: 3, 2: 9, 4: 4.5}), depth="all", stop=True,
                                  normalize="ideal")),
    ("recip_rank", Metric(ERR(), ERRAgg(), gain=Binary(), depth="all")),
    ("success_5", Metric(Precision(5), Max(), gain=Binary(), cutoff=5, depth="all")),
    ("bpref", Bpref()),
    ("num_rel", NumRel()), ("num_ret", NumRet()), ("num_rel_ret", NumRelRet()), ("num_q", NumQ()),
    ("set_P", SetP()), ("set_relative_P", SetP(relative=True)), ("set_recall", Recall(None)), ("set_F", SetF()),
    ("set_map", SetAP()), ("iprec_at_recall_0.10", IPrec(0.1)), ("iprec_at_recall.0.5", IPrec(0.5)),
    ("set_F.0.5", SetF(beta=0.5)), ("set_F_2", SetF(beta=2)),
])
def test_parse(text, expected):
    assert parse_metric(text) == expected


def test_canonical_text_is_what_the_docs_show():
    assert str(Metric(INST(2.5), PE(0.5), cutoff=10, depth=10, stop=True)) == \
        "INST(T=2.5)+PE(beta=0.5)[cutoff=10, depth=10, stop=true]"
    assert str(parse_metric("nDCG@10")) == "DCG(k=10)+ETG[gain=linear, cutoff=10, depth=all, normalize=ideal]"
    assert str(parse_metric("P(rel=2)@10")) == "Precision(k=10)+ERG[gain=binary(threshold=2), cutoff=10, depth=all]"
    assert str(parse_metric("R(rel=2)@1000")) == "R(rel=2)@1000"
    assert str(parse_metric("ERR_ERR")) == "ERR+ERR"


def test_grid_has_39_valid_and_3_constant_combinations():
    grid = cwla.all_combinations()
    assert len(grid) == 42 and len(set(grid)) == 42
    constant = [m for m in grid if m.is_constant]
    assert sorted(str(m) for m in constant) == ["DCG(k=10)+ERR", "Precision(k=10)+ERR", "RBP(p=0.8)+ERR"]
    valid = cwla.chen_sakai_metrics()
    assert len(valid) == 39 and not any(m.is_constant for m in valid)
    names = cwla.chen_sakai_names()
    assert len(names) == 39 and [parse_metric(n) for n in names] == valid
    assert len(cwla.chen_sakai_names(include_constant=True)) == 42
    assert all(m.cutoff == 10 and m.depth == 10 and m.stop for m in cwla.chen_sakai_metrics(cutoff=10, depth=10,
                                                                                            stop=True))


def test_constant_metric_warns_and_scores_a_constant():
    qrels, runs = cwla.synthetic.collection(seed=3)
    with pytest.warns(cwla.ConstantMetricWarning, match=r"RBP_ERR is constant: RBP with the ERR aggregation"):
        ev = cwla.evaluate(qrels, runs, ["RBP_ERR"])
    present = ev.values[0][ev.values[0] != 0]
    assert present.size and abs(present.max() - present.min()) < 1e-12


@pytest.mark.parametrize("text, message", [
    ("", "empty text"),
    ("RBP(p=1.2)+ERG", "'p' of RBP must be in the open interval (0, 1), got 1.2"),
    ("RBP+XYZ", "accepted aggregations: ERG, ETG, avg, max, fin, PE, ERR"),
    ("Foo+ERG", "unknown browsing model 'Foo'"),
    ("RBP(q=1)+ERG", "RBP has no parameter 'q' (did you mean 'p'?)"),
    ("P@", "expected a cutoff after '@', found end of text"),
    ("P@0", "cutoff must be an integer >= 1, got 0"),
    ("P@99999999999999999999", "'k' of Precision must be an integer in [1, 1,000,000]"),
    ("P_99999999999999999999", "'k' of Precision must be an integer in [1, 1,000,000]"),
    ("P@2.5", "cutoff must be an integer >= 1, got 2.5"),
    ("P", "P needs a parameter: P_k or P.k (e.g. P_10)"),
    ("P(rel=2)", "P needs a cutoff: P@k (e.g. P@10)"),
    ("R", "R needs a cutoff: R@k (e.g. R@10)"),
    ("SDCG", "SDCG needs a cutoff: SDCG@k"),
    ("IPrec", "IPrec needs a recall: IPrec@x (e.g. IPrec@0.5)"),
    ("P(rel=0)@10", "rel must be a number > 0 (the lowest relevant grade), got 0"),
    ("P(rel=2, rel=3)@10", "parameter 'rel' given twice"),
    ("P(cutoff=5)@10", "cutoff given twice (in the parameters and after @)"),
    ("P(2)@10", "P takes its parameters by name"),
    ("P(judged_only=maybe)@10", "judged_only must be true or false, got 'maybe'"),
    ("nDCG(dcg='exp')@10", "dcg must be 'log2' or 'exp-log2', got 'exp'"),
    ("nDCG(gains=3)@10", "gains must be a mapping {grade: gain, ...}, got 3"),
    ("nDCG(gains={1:2, 1:3})@10", "grade 1 is given twice"),
    ("Rprec@10", "Rprec takes no @ parameter"),
    ("R@10[depth=5]", "R@10 takes no [options]: it is not a C/W/L/A metric"),
    ("INST(T=0.1)", "'T' of INST must be a finite number >= 0.25"),
    ("SetF(beta=0)", "'beta' of SetF must be a finite number > 0, got 0"),
    ("IPrec@1.5", "'recall' of IPrec must be a finite number in [0, 1], got 1.5"),
    ("map_cut", "map_cut needs a parameter: map_cut_k or map_cut.k (e.g. map_cut_10)"),
    ("yaap", "'yaap' is a trec_eval measure that cwla does not compute"),
    ("utility.1,2", "invalid utility: utility takes 4 coefficients (a, b, c, d), e.g. utility.1,-1,0,0"),
    ("relstring", "relstring is not a number per topic: cwla eval --format trec prints it (-m relstring)"),
    ("map@10", "'map' is not a metric name (did you mean 'AP@10' or 'map_cut_10'?)"),  # ir_measures', trec_eval's
    ("ndcg@10", "(did you mean 'nDCG@10' or 'ndcg_cut_10'?)"),
    ("recip_rank@10", "(did you mean 'RR@10'?)"),
    ("mrr", "(did you mean 'MRR'?)"),
    ("Precison@10", "(did you mean 'Precision@10'?)"),
    ("foo", "'foo' is not a metric name"),
    ("RBP_XYZ", "'RBP_XYZ' is not a Chen & Sakai name"),
    ("RBP(p=0.8)+ERG[cutoff=0]", "cutoff must be an integer >= 1, got 0"),
    ("RBP(p=0.8)+ERG[cutoff=2.5]", "cutoff must be an integer >= 1, got 2.5"),
    ("RBP(p=0.8)+ERG[stop=maybe]", "stop must be true or false, got 'maybe'"),
    ("RBP(p=0.8)+ERG[normalize=max]", "normalize must be 'ideal', 'full' or 'none', got 'max'"),
    ("RBP(p=0.8)+ERG[colour=red]", "unknown option 'colour'"),
    ("RBP(p=0.8)+ERG[depth=5, depth=6]", "option 'depth' given twice"),
    ("RBP(p=0.8)+ERG[cutoff=10, cutoff=20]", "option 'cutoff' given twice"),
    ("RBP(p=0.8, p=0.9)+ERG", "RBP: parameter 'p' given twice"),
    ("RBP(0.8, p=0.9)+ERG", "RBP: parameter 'p' given twice"),
    ("RBP(p=0.8)+PE(beta=0.1, beta=0.2)", "PE: parameter 'beta' given twice"),
    ("DCG(k=none, k=3)+ETG", "DCG: parameter 'k' given twice"),
    ("RBP(p=0.8)+ERG[gain=linear(gmax=2, gmax=3)]", "linear: parameter 'gmax' given twice"),
    ("P(rel=1,rel=2)@10", "P: parameter 'rel' given twice"),
    ("RBP(p=0.8, p=0.8)", "RBP: parameter 'p' given twice"),
    ("RBP(p=0.8)+ERG[gain=cubic(2)]", "unknown gain map 'cubic'"),
    ("RBP(p=0.8)+ERG trailing", "unexpected 'trailing'"),
    ("INST(T=0.1)+ERG", "'T' of INST must be a finite number >= 0.25"),
    ("PE(beta=2)", "not a metric name"),
    ("map_ERG", "'map_ERG' is not a Chen & Sakai name"),
    ("RBP(p=0.8)+PE(beta=2)", "'beta' of PE must be in [0, 1], got 2"),
    ("Precision(k=1.5)+ERG", "'k' of Precision must be an integer in [1, 1,000,000], got 1.5"),
    ("RBP(p=0.8)+ERG;", "unexpected character ';'"),
])
def test_bad_metric_texts_say_what_and_where(text, message):
    with pytest.raises(MetricSyntaxError, match=re.escape(message)) as info:
        parse_metric(text)
    message = str(info.value)  # what, where (a caret, not a position number) and what is accepted, in <= 3 lines
    assert "at position" not in message and len(message.splitlines()) <= 3


def test_metric_values_validate_their_fields():
    with pytest.raises(TypeError, match="'browsing' of a metric must be a browsing model"):
        Metric("RBP", ERG())
    with pytest.raises(ValueError, match=re.escape("'depth' of a metric must be an integer >= 1 (at most 1,000,000), 'all' or None: 0")):
        Metric(RBP(), ERG(), depth=0)
    with pytest.raises(ValueError, match=re.escape("'normalize' of a metric must be 'ideal', 'full', 'none' or None")):
        Metric(RBP(), ERG(), normalize="max")
    with pytest.raises(TypeError, match="'stop' of a metric must be True, False or None"):
        Metric(RBP(), ERG(), stop="yes")
    with pytest.raises(ValueError, match=r"'k' of Precision must be an integer in \[1, 1,000,000\]: 0"):
        Precision(0)
    with pytest.raises(ValueError, match="'R' of AP must be 'qrels' or 'retrieved'"):
        AP("all")


def test_metrics_are_immutable_values():
    m = Metric(RBP(0.8), ERG())
    with pytest.raises(AttributeError):
        m.depth = 5
    assert m.with_options(depth=5) == Metric(RBP(0.8), ERG(), depth=5)
    assert m.resolve(depth=20).depth == 20 and m.with_options(depth=5).resolve(depth=20).depth == 5
    assert m.resolve() == Metric(RBP(0.8), ERG(), gain=Linear(), cutoff=None, depth=1000, stop=False,
                                 normalize="none", judged_only=False)
    # binary gains without a threshold take the relevance level
    p10 = parse_metric("P@10")
    assert p10.resolve().gain == Binary(1) and p10.resolve(rel=2).gain == Binary(2)
    assert parse_metric("P(rel=3)@10").resolve(rel=2).gain == Binary(3)
    assert {m, Metric(RBP(0.8), ERG())} == {m}


def test_paper_grid_uses_exponential_gains_for_the_err_model_only():
    grid = cwla.chen_sakai_paper_grid(gmax=3)
    assert list(grid) == cwla.chen_sakai_names()
    assert str(grid["ERR_ERG"]) == "ERR+ERG[gain=exponential(gmax=3), cutoff=10, depth=10, stop=true]"
    assert str(grid["INST_PE"]) == "INST(T=2.5)+PE(beta=0.5)[gain=linear(gmax=3), cutoff=10, depth=10, stop=true]"
    assert cwla.chen_sakai_grid()["RBP_ERG"] == cwla.parse_metric("RBP_ERG")


def test_model_aggregation_names_of_every_model():
    assert cwla.parse_metric("BPM_ERG") == cwla.Metric(cwla.BPM(), cwla.ERG())
    with pytest.raises(cwla.MetricSyntaxError, match="has no default parameters"):
        cwla.parse_metric("Tabulated_ERG")


@pytest.mark.parametrize("name", list(METRIC_CONSTRAINTS))
def test_a_metric_field_refuses_what_its_declared_constraints_refuse(name):
    """Metric's fields, evaluate's options of the same names and the text's [options] share one declaration."""
    constraints = METRIC_CONSTRAINTS[name]
    refused = [v for c in constraints for v in c.refused() if not any(k.accepts(v) for k in constraints)]
    assert refused
    parts = {"browsing": RBP(), "aggregation": ERG()}
    for bad in refused:
        with pytest.raises(ParameterError, match=rf"^'{name}' of a metric must be .*: "):
            Metric(**{**parts, name: bad})
    accepted = constraints[0].example()
    assert getattr(Metric(**{**parts, name: accepted}), name) == constraints[0].convert(accepted)
    if name not in ("browsing", "aggregation", "gain", "intents"):
        qrels, runs = cwla.synthetic.collection(n_topics=2, n_runs=1, seed=0)
        with pytest.raises(ParameterError, match=f"The {name!r} parameter of Evaluator must be"):
            cwla.Evaluator(runs, ["nDCG@10"], **{name: refused[-1]})
