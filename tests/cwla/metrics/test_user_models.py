"""User-defined browsing models: tabulated C(i) or W(i), and adaptive models given as a numba function of
(i, r_i, cg(i), params). They compose with every aggregation, print and parse, and keep the invariants."""

import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

import cwla
from cwla.testing import aggregations, check_invariants, collections, tabulated_models


def test_tabulated_c_equal_to_rbp_gives_rbp_exactly(mini):
    qrels, runs, _ = mini
    p, H = 0.8, 100
    tab = cwla.tabulated(C=[p] * H)
    ev = cwla.evaluate(qrels, runs, [cwla.Metric(tab, cwla.ERG(), depth=H), cwla.Metric(cwla.RBP(p), cwla.ERG(), depth=H),
                                     cwla.Metric(tab, cwla.PE(), depth=H), cwla.Metric(cwla.RBP(p), cwla.PE(), depth=H)])
    assert np.array_equal(ev.values[0], ev.values[1]) and np.array_equal(ev.values[2], ev.values[3])
    assert np.array_equal(ev.residuals[0], ev.residuals[1])


def test_tabulated_w_equal_to_dcgs_weights_gives_dcg(mini):
    qrels, runs, _ = mini
    k = 10
    w = [1 / math.log2(i + 1) for i in range(1, k + 1)]
    metrics = {"tab": cwla.Metric(cwla.tabulated(W=w), cwla.ETG(), cutoff=k, normalize="ideal"),
               "dcg": cwla.Metric(cwla.DCG(k), cwla.ETG(), cutoff=k, normalize="ideal")}
    ev = cwla.evaluate(qrels, runs, metrics)
    np.testing.assert_allclose(ev.values[0], ev.values[1], rtol=1e-12, atol=1e-15)
    assert ev.values[0].mean() > 0.3


def test_tabulated_models_print_parse_and_register():
    m = cwla.parse_metric("Tabulated(C={1:0.9, 2:0.5})+ERG")
    assert m.browsing == cwla.tabulated(C=[0.9, 0.5]) and cwla.parse_metric(str(m)) == m
    w = cwla.parse_metric("Tabulated(W={1:2, 2:1, 3:1})+ETG").browsing
    assert w.continuation == (0.5, 1.0, 0.0)
    clicks = cwla.register_table("clicks_test", C=[0.7, 0.6, 0.2])
    parsed = cwla.parse_metric("Tabulated(name=clicks_test)+ERG")
    assert parsed.browsing == clicks and str(parsed) == "Tabulated(name=clicks_test)+ERG"
    for text, problem in [("Tabulated(C={1:1.5})+ERG", "C(1) of a tabulated model must be in [0, 1]"),
                          ("Tabulated(W={1:1, 2:2})+ERG", "W of a tabulated model must not increase"),
                          ("Tabulated(C={1:0.5, 3:0.5})+ERG", "ranks must be 1, 2, ..., n without gaps"),
                          ("Tabulated(name=nope)+ERG", "no tabulated model is registered as 'nope'")]:
        with pytest.raises(cwla.MetricSyntaxError, match=re.escape(problem)):
            cwla.parse_metric(text)


@pytest.mark.slow
def test_random_tabulated_models_keep_the_invariants():
    @settings(max_examples=40, deadline=None)
    @given(tabulated_models(), aggregations(), collections())
    def check(model, aggregation, data):
        check_invariants(cwla.Metric(model, aggregation), *data)

    check()


# ---------------------------------------------------------------------------
# adaptive models (a numba function)
# ---------------------------------------------------------------------------

def _inst(i, r, cg, p):
    """INST's C(i) (Moffat et al. 2015), as a user would write it."""
    T = p[0]
    Ti = T - cg
    return ((i - 1.0 + T + Ti) / (i + T + Ti)) ** 2


@pytest.fixture(scope="module")
def my_inst():
    return cwla.register_model("MyINST", _inst, {"T": cwla.metrics._declare.Param("T", "float", 2.5, 0.25, 1e100,
                                                                            sample=(0.25, 5.0))},
                               formula="((i - 1 + T + T_i) / (i + T + T_i))^2, T_i = T - cg(i)")


@pytest.mark.slow
def test_an_adaptive_function_equal_to_inst_gives_inst(mini, my_inst):
    qrels, runs, _ = mini
    metrics = {}
    for agg in ("ERG", "ETG", "PE(beta=0.3)", "ERR"):
        for model in ("MyINST(T=2)", "INST(T=2)"):
            metrics[f"{model}+{agg}"] = f"{model}+{agg}[cutoff=20, gain=linear(gmax=3)]"
    metrics["nDCG@10"] = "nDCG@10"  # a built-in beside: two kernels in one evaluation
    ev = cwla.evaluate(qrels, runs, metrics, expected=True)
    for agg in ("ERG", "ETG", "PE(beta=0.3)", "ERR"):
        a, b = ev.labels.index(f"MyINST(T=2)+{agg}"), ev.labels.index(f"INST(T=2)+{agg}")
        assert np.array_equal(ev.values[a], ev.values[b]) and np.array_equal(ev.residuals[a], ev.residuals[b])
        assert np.array_equal(ev.expected[:, a], ev.expected[:, b])
        assert ev.values[a].mean() > 0


def test_adaptive_models_print_parse_and_validate(my_inst):
    m = cwla.parse_metric("MyINST(T=3)+ERG[cutoff=10]")
    assert isinstance(m.browsing, my_inst) and m.browsing.T == 3.0
    assert str(m) == "MyINST(T=3)+ERG[cutoff=10]" and cwla.parse_metric(str(m)) == m
    with pytest.raises(cwla.MetricSyntaxError, match=re.escape("'T' of MyINST must be a finite number in [0.25")):
        cwla.parse_metric("MyINST(T=0.1)+ERG")
    with pytest.raises(ValueError, match="'RBP' is a built-in browsing model"):
        cwla.register_model("RBP", _inst)
    with pytest.raises(TypeError, match="must compile with numba"):
        cwla.register_model("Broken", lambda i, r, cg, p: undefined_name)  # noqa: F821
    with pytest.raises(ValueError, match="at most 6 parameters"):
        cwla.register_model("Many", _inst, {f"p{j}": 1.0 for j in range(7)})


@pytest.mark.slow
def test_an_adaptive_function_leaving_the_unit_interval_is_an_error():
    cwla.register_model("TooFar", lambda i, r, cg, p: 1.0 + r)
    qrels, runs = cwla.synthetic.collection(seed=1, n_topics=3, n_runs=2)
    with pytest.raises(cwla.UserFunctionError, match="returned a continuation probability outside \\[0, 1\\]"):
        cwla.evaluate(qrels, runs, ["TooFar+ERG"])


@pytest.mark.slow
def test_an_adaptive_function_failing_only_in_the_upper_bound_or_under_normalisation_is_an_error():
    cwla.register_model("HighGain", lambda i, r, cg, p: 0.5 if r < 1.0 else 2.0)  # C > 1 at gain 1 only
    qrels = pd.DataFrame({"topic": "q", "docno": ["a", "b"], "grade": [1.0, 0.0]})
    run = pd.DataFrame({"topic": "q", "docno": ["b", "u"], "score": [2.0, 1.0]})  # u unjudged: 1 in the bound
    for metric in ("HighGain+ERG", "HighGain+ERG[normalize=ideal]"):
        with pytest.raises(ValueError, match="returned a continuation probability outside"):
            cwla.evaluate(qrels, run, [metric], gain="linear(gmax=1)")


def test_a_parameter_may_not_shadow_what_the_kernel_reads():
    for name in ("code", "name", "params", "function", "gain_free", "_x"):
        with pytest.raises(ValueError, match=f"a parameter may not be named '{name}'"):
            cwla.register_model("Shadow", _inst, {name: 0.5})


@pytest.mark.slow
def test_adaptive_models_keep_the_invariants(my_inst):
    @settings(max_examples=30, deadline=None)
    @given(cwla.testing.declared(my_inst), aggregations(), collections())
    def check(model, aggregation, data):
        check_invariants(cwla.Metric(model, aggregation), *data)

    check()


def _raises_at_rank_5(i, r, cg, p):
    if i == 5 and p[0] > 0.6:
        raise ValueError("rank five is out of bounds for this user")
    return 0.9


@pytest.mark.slow
@pytest.mark.parametrize("metrics", [["Fails(q=0.7)+ERG"], ["Fails(q=0.5)+ERG", "nDCG@10", "Fails(q=0.7)+ETG"],
                                     ["Fails(q=0.7)+ERG[normalize=ideal]"]])
def test_a_user_function_that_raises_while_scoring_is_named_with_its_parameters_and_exception(metrics):
    cwla.register_model("Fails", _raises_at_rank_5, {"q": 0.5})
    qrels, runs = cwla.synthetic.collection(seed=1, n_topics=3, n_runs=2)
    assert np.isfinite(cwla.evaluate(qrels, runs, ["Fails(q=0.5)+ERG"]).values).all()  # q=0.5 never raises
    with pytest.raises(cwla.UserFunctionError, match=re.escape(
            "the function of the browsing model Fails (registered with cwla.register_model; parameters q=0.7) "
            "raised ValueError: rank five is out of bounds for this user")) as caught:
        cwla.evaluate(qrels, runs, metrics)
    assert str(caught.value).startswith("Fails(q=0.7)+")  # the metric that raised, not its neighbours
    assert isinstance(caught.value.__cause__, Exception)
    assert np.isfinite(cwla.evaluate(qrels, runs, ["Fails(q=0.5)+ERG"]).values).all()  # the kernel still works


def test_a_user_function_that_raises_when_registered_is_not_called_uncompilable():
    def refuses(i, r, cg, p):
        raise RuntimeError("this model needs T > 10")

    with pytest.raises(cwla.UserFunctionError, match=re.escape(
            "the function of model 'Refuses' raised RuntimeError: this model needs T > 10 when register_model "
            "tried it at i=1, r=0.5, cg=0.5 with its defaults params=[3.0]")):
        cwla.register_model("Refuses", refuses, {"T": 3.0})


@pytest.mark.parametrize("name, reading", [
    ("ERG", "the aggregation ERG"), ("erg", "the aggregation ERG"), ("map", "the trec_eval measure map"),
    ("MAP", "the ir_measures measure MAP"), ("nDCG", "the ir_measures measure nDCG"),
    ("NDCG", "the ir_measures measure nDCG"), ("ndcg", "the trec_eval measure ndcg"), ("RBP_ERG", "the Chen & Sakai metric RBP_ERG"),
    ("rbp_etg", "the Chen & Sakai metric rbp_etg"), ("rbp", "the built-in browsing model RBP"),
    ("P_10", "the trec_eval measure P_10"), ("ndcg_cut_10", "the trec_eval measure ndcg_cut_10"),
    ("recall", "the trec_eval measure recall"), ("Judged", "the ir_measures measure Judged"),
    ("gm_map", "the trec_eval measure gm_map"),
])
def test_names_the_parser_reads_otherwise_cannot_name_a_model(name, reading):
    with pytest.raises(ValueError, match=re.escape(f"{name!r} cannot name a model: the metric parser reads it as "
                                                   f"{reading}; choose another name")):
        cwla.register_model(name, _inst, {"T": 2.5})
    assert name not in cwla.metrics.browsing.USER_MODELS


@pytest.mark.parametrize("default", [math.nan, math.inf, -math.inf, True, "2.5", None])
def test_defaults_must_be_finite_numbers(default):
    with pytest.raises(ValueError, match=re.escape(f"the default of parameter 'T' of model 'NoDefault' must be a "
                                                   f"finite number, got {default!r}")):
        cwla.register_model("NoDefault", _inst, {"T": default})


def test_a_declared_parameter_default_must_follow_its_own_rule():
    from cwla.metrics._declare import Param

    with pytest.raises(ValueError, match="must be a finite number in \\[0, 1\\]"):
        cwla.register_model("OutOfBounds", _inst, {"T": Param("T", "float", 3.0, lo=0.0, hi=1.0)})


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_old_path_keeps_register_model():
    import cwla.browsing

    assert cwla.browsing.register_model is cwla.register_model  # (the old path gives it: cwla.ELSEWHERE)
