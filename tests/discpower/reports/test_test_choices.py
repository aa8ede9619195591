"""compare_systems' test choices (issue 22, item 5: PyTerrier's): Wilcoxon, the sign test and any callable
per pair, statsmodels' corrections, several baselines, and tables that print what their caption claims.

Every p-value is checked against scipy called here, every correction against statsmodels' multipletests
(skipped where statsmodels is not installed), on DL19's nDCG@10 per-topic scores (skipped without
../shared) and on generated matrices.
"""

import functools
import re
import warnings
from unittest import mock

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import cwla
from conftest import shared_path
from discpower import DiscpowerError
from discpower.reports.systems import CORRECTIONS, TESTS, compare_scores, compare_systems
from discpower.stats.significance import adjust_pvalues
from latex_check import check_latex, compile_latex

STATSMODELS = ("bonferroni", "sidak", "holm-sidak", "holm", "simes-hochberg", "hommel", "fdr_bh", "fdr_by",
               "fdr_tsbh", "fdr_tsbky")


@pytest.fixture(scope="module")
def dl19():
    """DL19's nDCG@10: 43 topics x 37 runs, labelled."""
    root = shared_path("trec-dl-2019-passage")
    runs = sorted((root / "runs").glob("*.gz"))
    ev = cwla.evaluate(root / "qrels" / "qrels.dl19-passage.txt", runs, ["nDCG@10"])
    X = pd.DataFrame(ev.values[0].T, index=pd.Index(ev.topics, name="topic"), columns=pd.Index(ev.runs, name="run"))
    assert X.shape == (43, 37)
    return X


@pytest.fixture(scope="module")
def spread():
    """30 topics x 6 systems of increasing means, scores on a grid of 0.05 (ties and zero differences)."""
    rng = np.random.default_rng(11)
    X = np.clip(0.5 * rng.random((30, 1)) + rng.normal(0, 0.18, (30, 6)) + np.linspace(0, 0.3, 6), 0, 1)
    return pd.DataFrame(np.round(X * 20) / 20, columns=[f"sys{j}" for j in range(6)])


def _scipy_wilcoxon(x, y):
    """scipy.stats.wilcoxon's two-sided p-value with its defaults (1 for identical systems, where old scipy
    versions give NaN)."""
    if np.array_equal(x, y):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(scipy.stats.wilcoxon(x, y).pvalue)


def _scipy_sign(x, y):
    d = np.asarray(x) - np.asarray(y)
    n = int(np.count_nonzero(d))
    return 1.0 if n == 0 else float(scipy.stats.binomtest(int(np.sum(d > 0)), n, 0.5).pvalue)


def _statsmodels(p, method, alpha=0.05):
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    with warnings.catch_warnings(), np.errstate(divide="ignore"), mock.patch("gc.collect", return_value=0):
        warnings.simplefilter("ignore")
        return multipletests(np.asarray(p, dtype=float), alpha=alpha, method=method)[1]


def _raw_pairs(res, q=0):
    """(system_a index, system_b index, raw p) of each compared pair, from pair_frame."""
    frame = res.pair_frame()
    frame = frame[frame.metric == res.metrics[q]]
    a = [res.systems.index(s) for s in frame.system_a]
    b = [res.systems.index(s) for s in frame.system_b]
    return a, b, frame.pvalue_raw.to_numpy(), frame.pvalue.to_numpy()


# ----------------------------------------------------------------------------- the per-pair tests

def test_the_new_names_are_accepted():
    assert {"wilcoxon", "sign"} <= set(TESTS) and set(STATSMODELS) | {None, "bh"} == set(CORRECTIONS)


@pytest.mark.slow
@pytest.mark.parametrize("test, oracle", [("wilcoxon", _scipy_wilcoxon), ("sign", _scipy_sign)])
def test_dl19_all_pairs_equal_scipy(dl19, test, oracle):
    X = dl19.to_numpy()
    res = compare_scores({"nDCG@10": dl19}, test=test, correction="holm")
    a, b, raw, adjusted = _raw_pairs(res)
    assert len(raw) == 666
    expected = np.array([oracle(X[:, i], X[:, j]) for i, j in zip(a, b)])
    np.testing.assert_array_equal(raw, expected)  # the same calls: the very same numbers
    np.testing.assert_allclose(adjusted, _statsmodels(expected, "holm"), rtol=0, atol=1e-12)
    assert res.n_trials is None and res.seed is None and res.method in res.description()


def test_dl19_callable_against_a_baseline_equals_scipy(dl19):
    X = dl19.to_numpy()
    base = dl19.columns[5]
    b = 5
    res = compare_scores({"nDCG@10": dl19}, baseline=base, test=scipy.stats.ttest_rel, correction="fdr_by")
    a, bs, raw, adjusted = _raw_pairs(res)
    assert set(bs) == {b} and len(a) == 36
    expected = np.array([scipy.stats.ttest_rel(X[:, i], X[:, b]).pvalue for i in a])
    np.testing.assert_array_equal(raw, expected)
    np.testing.assert_allclose(adjusted, _statsmodels(expected, "fdr_by"), rtol=0, atol=1e-12)
    # a callable that returns a float, with its own options (x is system_a, y the baseline)
    greater = compare_scores({"nDCG@10": dl19}, baseline=base,
                             test=lambda x, y: scipy.stats.wilcoxon(x, y, alternative="greater").pvalue)
    a, _, raw, _ = _raw_pairs(greater)
    np.testing.assert_array_equal(raw, [scipy.stats.wilcoxon(X[:, i], X[:, b], alternative="greater").pvalue
                                        for i in a])
    assert "test <lambda>" in greater.description() and "two-sided" not in greater.description()


#: topics: scipy's Wilcoxon with ties or zeros enumerates 2^n sign flips up to n = 13 (0.1-1 s a call at 11-13),
#: so the generated matrices have at most 10 topics there, or 14 and more (the normal approximation)
TOPICS = st.one_of(st.integers(2, 10), st.integers(14, 30))
#: scores on a grid (ties, zero differences) or anywhere in [0, 1] (no ties: scipy's exact distribution)
SCORES = st.one_of(st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.5, 0.75, 1.0]), st.floats(0.0, 1.0))


@pytest.mark.slow
@settings(max_examples=40)
@given(hnp.arrays(np.float64, st.tuples(TOPICS, st.integers(2, 4)), elements=SCORES),
       st.sampled_from([None, 0, 1]))
def test_generated_matrices_equal_scipy(X, baseline):
    systems = [f"s{j}" for j in range(X.shape[1])]
    base = None if baseline is None else systems[baseline]
    for test, oracle in (("wilcoxon", _scipy_wilcoxon), ("sign", _scipy_sign),
                         (functools.partial(scipy.stats.wilcoxon, zero_method="zsplit"), None)):
        res = compare_scores(X, systems=systems, baseline=base, test=test)
        if oracle is None:
            assert res.method == "test wilcoxon(zero_method='zsplit')" and res.method in res.description()
        a, b, raw, adjusted = _raw_pairs(res)
        assert len(raw) == (X.shape[1] - 1 if base else X.shape[1] * (X.shape[1] - 1) // 2)
        if base is not None:
            assert set(b) == {baseline}
        for i, j, p in zip(a, b, raw):
            if oracle is None:  # the callable: scipy's own answer, whatever it is for identical systems
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    expected = scipy.stats.wilcoxon(X[:, i], X[:, j], zero_method="zsplit").pvalue
            else:
                expected = oracle(X[:, i], X[:, j])
            assert p == expected
        np.testing.assert_array_equal(raw, adjusted)  # no correction
        assert np.all(np.isnan(np.diag(res.pvalue[0])))


def test_identical_systems_get_p_one_from_wilcoxon_and_sign():
    X = np.array([[0.1, 0.1, 0.5], [0.2, 0.2, 0.1], [0.3, 0.3, 0.0], [0.4, 0.4, 0.2]])
    for test in ("wilcoxon", "sign"):
        res = compare_scores(X, test=test)
        assert res.pvalue_raw[0, 0, 1] == 1.0 and not np.isnan(res.pvalue_raw[0]).all()


# ----------------------------------------------------------------------------- a callable's answers

@pytest.mark.parametrize("value", [0.25, np.float32(0.25), np.array(0.25), 1, 0, "result"])
def test_callable_answers_that_count(value):
    if value == "result":  # an object with .pvalue, as scipy's results
        value = type("Result", (), {"pvalue": 0.25})()
    res = compare_scores(np.random.default_rng(1).random((5, 3)), test=lambda x, y: value)
    expected = float(getattr(value, "pvalue", value))
    assert np.all(res.pvalue_raw[0][np.triu_indices(3, 1)] == expected)


@pytest.mark.parametrize("value, match", [
    (np.nan, r"returned the p-value nan; a p-value must be a float in \[0, 1\]"),
    (1.5, r"returned the p-value 1\.5"), (-0.1, r"returned the p-value -0\.1"),
    ("0.1", r"returned '0\.1' \(str\); a test must return its p-value"),
    (None, r"returned None \(NoneType\)"), (True, r"returned True \(bool\)"),
    ((0.1, 0.2), r"returned \(0\.1, 0\.2\) \(tuple\)"), (np.array([0.1, 0.2]), r"returned array\(\[0\.1, 0\.2\]\) \(ndarray\)"),
])
def test_callable_answers_that_do_not(value, match):
    def my_test(x, y):
        return value

    X = pd.DataFrame(np.random.default_rng(2).random((6, 3)), columns=["a", "b", "c"])
    with pytest.raises(DiscpowerError, match=r"the test callable my_test on the pair \('a', 'b'\) of 'nDCG' " + match):
        compare_scores({"nDCG": X}, test=my_test)
    with pytest.raises(DiscpowerError, match=r"on the pair \('a', 'c'\)"):  # x: system_a, y: the baseline
        compare_scores({"nDCG": X}, baseline="c", test=my_test)


def test_a_callable_that_raises_is_named_with_its_pair():
    X = pd.DataFrame(np.random.default_rng(2).random((6, 3)), columns=["a", "b", "c"])

    def fails(x, y):
        if x[0] == X.b[0]:
            raise ValueError("no good")
        return 0.5

    with pytest.raises(DiscpowerError, match=r"the test callable fails on the pair \('b', 'c'\) of 'score' raised ValueError: no good") \
            as info:
        compare_scores(X, test=fails)
    assert isinstance(info.value.__cause__, ValueError)


def test_callable_gets_copies_in_topic_order(spread):
    seen = []

    def record(x, y):
        seen.append((x.copy(), y.copy()))
        x[:] = 0.0  # cannot change the comparison's scores
        return 0.5

    res = compare_scores(spread, baseline="sys2", test=record)
    X = spread.to_numpy()
    assert len(seen) == 5 and all(np.array_equal(y, X[:, 2]) for _, y in seen)
    assert [next(j for j in range(6) if np.array_equal(x, X[:, j])) for x, _ in seen] == [0, 1, 3, 4, 5]
    np.testing.assert_array_equal(res.scores[0], X)


@pytest.mark.parametrize("bad", ["wilcox", "Wilcoxon", 3, None])
def test_unknown_tests(spread, bad):
    with pytest.raises(DiscpowerError, match=r"unknown test .*; accepted: 'tukey', .*'wilcoxon', 'sign' .*"
                                             r"'<test>-<correction>' .e.g. 't-test-holm'"):
        compare_scores(spread, test=bad)


def test_a_tukey_with_a_correction_names_the_per_pair_tests(spread):
    with pytest.raises(DiscpowerError, match="takes no correction .got 'hommel'.. A corrected family: one of 't-test', "
                                             "'fisher', 'bootstrap', 'wilcoxon', 'sign' with a correction"):
        compare_scores(spread, correction="hommel")


# ----------------------------------------------------------------------------- corrections

@pytest.mark.parametrize("correction", STATSMODELS + ("bh",))
def test_every_correction_over_the_family_equals_statsmodels(spread, correction):
    method = "fdr_bh" if correction == "bh" else correction
    for baseline in (None, "sys1", ["sys1", "sys4"]):
        res = compare_scores({"m": spread}, baseline=baseline, test="t-test", correction=correction, alpha=0.1)
        _, _, raw, adjusted = _raw_pairs(res)
        np.testing.assert_allclose(adjusted, _statsmodels(raw, method, alpha=0.1), rtol=0, atol=1e-12)
        assert res.correction == correction
        assert f"over the {len(raw)} " in res.description()


@given(st.lists(st.one_of(st.sampled_from([0.0, 1.0, 0.01, 0.05]), st.floats(0, 1)), min_size=1, max_size=25),
       st.sampled_from(STATSMODELS))
def test_adjust_pvalues_equals_statsmodels_on_generated_vectors(p, method):
    np.testing.assert_allclose(adjust_pvalues(p, method), _statsmodels(p, method), rtol=0, atol=1e-12)


@pytest.mark.parametrize("bad, near", [("bonferoni", "'bonferroni' or 'holm'"), ("benjamini-hochberg", "'bh'"),
                                       ("hochberg", "'simes-hochberg'"), ("fdr", "'fdr_bh' or 'fdr_by'")])
def test_a_near_correction_name_is_suggested(spread, bad, near):
    with pytest.raises(DiscpowerError) as info:
        compare_scores(spread, test="t-test", correction=bad)
    message = str(info.value)
    assert message.startswith("The 'correction' parameter must be None, 'holm', 'bonferroni' or 'bh'")
    assert message.endswith(f"Got {bad!r} instead; did you mean {near}?") and "\n" not in message
    assert all(repr(name) in message for name in STATSMODELS)


def test_an_unchanged_call_gives_the_same_numbers(spread):
    """Today's names and a single baseline string: the t-test's and Holm's numbers, computed here."""
    res = compare_scores(spread, baseline="sys0", test="t-test", correction="holm")
    X = spread.to_numpy()
    raw = np.array([scipy.stats.ttest_rel(X[:, 0], X[:, j]).pvalue for j in range(1, 6)])
    np.testing.assert_allclose(res.pvalue_raw[0, 1:, 0], raw, rtol=1e-12)
    np.testing.assert_allclose(res.pvalue[0, 1:, 0], _statsmodels(raw, "holm"), rtol=1e-12)
    assert res.baseline == "sys0" and res.baselines == ("sys0",) and "baseline" not in res.to_frame().columns
    assert res.cell_markers()[0] == "" and set(res.cell_markers()) <= {"", "+", "-"}


# ----------------------------------------------------------------------------- several baselines

def test_several_baselines_family_and_frames(spread):
    X = spread.to_numpy()
    res = compare_scores({"m": spread}, baseline=["sys2", "sys4"], test="t-test", correction="holm")
    assert res.baseline == ("sys2", "sys4") and res.baselines == ("sys2", "sys4")
    # each baseline against every other system, the two baselines once: 2 * 5 - 1 = 9 comparisons
    pairs = res.pair_frame()
    assert res.family_size() == 9 == len(pairs)
    assert list(zip(pairs.system_a, pairs.system_b)) == [
        ("sys0", "sys2"), ("sys1", "sys2"), ("sys3", "sys2"), ("sys4", "sys2"), ("sys5", "sys2"),
        ("sys0", "sys4"), ("sys1", "sys4"), ("sys3", "sys4"), ("sys5", "sys4")]
    raw = np.array([scipy.stats.ttest_rel(X[:, int(a[3])], X[:, int(b[3])]).pvalue
                    for a, b in zip(pairs.system_a, pairs.system_b)])
    np.testing.assert_allclose(pairs.pvalue_raw, raw, rtol=1e-12)
    np.testing.assert_allclose(pairs.pvalue, _statsmodels(raw, "holm"), rtol=1e-12)  # one family of 9
    assert "Holm correction over the 9 comparisons of the baselines with the other systems" in res.description()
    assert "c = sys2, e = sys4" in res.description()
    tested = res.tested()
    assert tested.sum() == 2 * 9 and not tested[0, 1] and tested[0, 2] and tested[2, 4]

    frame = res.to_frame()
    assert list(frame.columns[:3]) == ["metric", "baseline", "system"] and len(frame) == 2 * 6
    for _, row in frame.iterrows():
        i, b = res.systems.index(row.system), res.systems.index(row.baseline)
        assert row["diff"] == pytest.approx(X[:, i].mean() - X[:, b].mean(), abs=1e-12)
        if i == b:
            assert np.isnan(row.pvalue) and row.significance == ""
        else:
            assert row.pvalue == res.pvalue[0, i, b]
            sig = row.pvalue < 0.05
            assert row.significance == ("+" if sig and row["diff"] > 0 else "-" if sig and row["diff"] < 0 else "")

    # the cell marks: a sign and the baseline's marker per significant difference, in the baselines' order
    for i, marks in enumerate(res.cell_markers()):
        expected = ""
        for b in (2, 4):
            if i != b and res.pvalue[0, i, b] < 0.05:
                expected += ("+" if X[:, i].mean() > X[:, b].mean() else "-") + res.markers[b]
        assert marks == expected
    assert any(res.cell_markers())
    md = res.to_markdown()
    assert "| sys2 (baseline c) |" in md and "| sys4 (baseline e) |" in md


def test_a_list_of_one_baseline_is_the_single_baseline_with_a_baseline_column(spread):
    one = compare_scores(spread, baseline=["sys3"], test="sign", correction="hommel")
    single = compare_scores(spread, baseline="sys3", test="sign", correction="hommel")
    np.testing.assert_array_equal(one.pvalue, single.pvalue)
    np.testing.assert_array_equal(one.pvalue_raw, single.pvalue_raw)
    assert one.baseline == ("sys3",) and single.baseline == "sys3"
    assert "baseline" in one.to_frame().columns and "baseline" not in single.to_frame().columns
    assert one.family_size() == single.family_size() == 5
    pd.testing.assert_frame_equal(one.pair_frame(), single.pair_frame())


def test_several_baselines_with_tukey_read_the_all_pairs_test(spread):
    all_pairs = compare_scores(spread, n_trials=500, seed=3)
    two = compare_scores(spread, baseline=("sys0", "sys5"), n_trials=500, seed=3)
    for b in (0, 5):
        np.testing.assert_array_equal(two.pvalue[0, b], all_pairs.pvalue[0, b])
    assert np.isnan(two.pvalue[0, 1, 2])


@pytest.mark.parametrize("baseline, match", [
    ([], "a list or tuple of distinct run names"), (["sys1", 3], "a list or tuple"),
    (["sys1", "sys1"], r"'sys1' given twice"), (["sys1", "nope"], r"unknown baseline 'nope': the systems are"),
    ({"sys1"}, "The 'baseline' parameter must be a run name"), ([""], "a list or tuple"),
])
def test_bad_baselines(spread, baseline, match):
    with pytest.raises(DiscpowerError, match=match):
        compare_scores(spread, baseline=baseline, test="t-test")


def test_several_baselines_on_runs(tmp_path):
    qrels, runs = cwla.synthetic.collection(n_topics=15, n_runs=4, seed=2)
    res = compare_systems(qrels, runs, ["nDCG@10", "P@5"], baseline=["run01", "run03"], test="wilcoxon",
                          correction="fdr_tsbky")
    assert res.family_size() == 5 and len(res.pair_frame()) == 2 * 5
    assert sorted(res.to_frame().baseline.unique()) == ["run01", "run03"]
    with pytest.raises(DiscpowerError, match="unknown baseline 'run9': the runs are 'run01'"):
        compare_systems(qrels, runs, ["P@5"], baseline=["run01", "run9"])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = res.plot()
    assert sum(line.get_linestyle() == "--" for line in ax.lines) == 2  # a dashed line per baseline
    assert "run01 (baseline a)" in [t.get_text() for t in ax.get_yticklabels()]
    plt.close(ax.figure)


# ----------------------------------------------------------------------------- tables: what the caption claims

def _half_widths(X, alpha):
    """The t-interval's half-width of each column, by scipy here."""
    n = X.shape[0]
    return scipy.stats.t.ppf(1 - alpha / 2, n - 1) * X.std(axis=0, ddof=1) / np.sqrt(n)


@pytest.mark.parametrize("baseline", [None, "sys1", ["sys1", "sys3"]])
def test_the_caption_claims_intervals_only_when_printed(spread, baseline):
    res = compare_scores({"nDCG@10": spread, "P_5": spread * 0.5}, baseline=baseline, test="wilcoxon",
                         correction="holm", alpha=0.1)
    for markup in ("markdown", "latex"):
        plain = res.to_markdown(3) if markup == "markdown" else res.to_latex(3)
        shown = res.to_markdown(3, ci=True) if markup == "markdown" else res.to_latex(3, ci=True)
        assert "confidence interval" not in plain and "±" not in plain and r"\pm" not in plain
        assert "90" in shown and "t-based confidence interval" in shown
        pm = "±" if markup == "markdown" else r"$\pm$"
        for q, scale in enumerate((1.0, 0.5)):
            X = spread.to_numpy() * scale
            for j, half in enumerate(_half_widths(X, 0.1)):
                assert f"{X[:, j].mean():.3f}" in shown and f" {pm} {half:.3f}" in shown
        assert shown.count(pm) == 12 + 1  # 12 cells and the caption
    tex = res.to_latex(3, ci=True, label="tab:ci")
    assert check_latex(tex, names=["P_5", *spread.columns]) == 1 + 6
    assert res.description(ci=True) in res.to_markdown(ci=True).replace("\\_", "_")
    with pytest.raises(DiscpowerError, match="The 'ci' parameter"):
        res.to_markdown(ci="yes")


def test_latex_with_intervals_and_booktabs_compiles(spread, tmp_path):
    res = compare_scores({"RBP_ERG": spread, "P(rel=2)@10 & 50%": spread * 0.9}, baseline=["sys0", "sys2"],
                         test="sign", correction="fdr_bh")
    plain = res.to_latex(3, ci=True)
    assert "\\hline" in plain and "\\toprule" not in plain
    tex = res.to_latex(3, ci=True, booktabs=True, label="tab:cmp")
    lines = tex.splitlines()
    begin = lines.index(next(line for line in lines if line.startswith("\\begin{tabular}")))
    assert lines[begin + 1] == "\\toprule" and lines[begin + 3] == "\\midrule"
    assert lines[lines.index("\\end{tabular}") - 1] == "\\bottomrule" and "\\hline" not in tex
    assert check_latex(tex, names=["RBP_ERG", "P(rel=2)@10 & 50%", *spread.columns]) == 1 + 6
    body = res.to_latex(3, booktabs=True, caption=False)
    assert body.startswith("\\begin{tabular}") and "\\toprule" in body
    with pytest.raises(DiscpowerError, match="The 'booktabs' parameter"):
        res.to_latex(booktabs=1)
    compile_latex(plain, tmp_path)  # \hline needs no package
    compile_latex(tex + "\n\n" + body, tmp_path, packages=("booktabs",))


def test_grid_rules_with_booktabs():
    from cwla._latex import grid

    body = grid("lr", ["a", "b"], [["x", "1"], ["y", "2"], ["z", "3"]], rules=[0], booktabs=True)
    assert body.splitlines() == ["\\begin{tabular}{lr}", "\\toprule", "a & b \\\\", "\\midrule", "x & 1 \\\\",
                                 "\\midrule", "y & 2 \\\\", "z & 3 \\\\", "\\bottomrule", "\\end{tabular}"]
    assert grid("lr", ["a", "b"], [["x", "1"]]) == re.sub("(top|mid|bottom)rule", "hline",
                                                         grid("lr", ["a", "b"], [["x", "1"]], booktabs=True))
