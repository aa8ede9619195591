"""compare_systems: means, confidence intervals, effect sizes and significance marks per metric.

Every number is checked against an independent computation (scipy.stats, statsmodels, the
discpower tests called directly); the LaTeX with the structural checker of tests/latex_check.py (and
pdflatex where installed).
"""

import math

import numba
import numpy as np
import pandas as pd
import pytest
import scipy.stats

import cwla
import discpower
from conftest import shared_path
from discpower import DiscpowerError
from discpower.reports.systems import (SystemComparison, compare_scores, compare_systems, confidence_intervals,
                               effect_sizes, marker_labels)
from discpower.stats.significance import adjust_pvalues, fisher_randomisation, paired_bootstrap
from discpower.stats.tukey import randomised_tukey_hsd
from latex_check import check_latex, compile_latex

# Sakai's Table 5.1 (SPEC section 6): 20 topics x 3 systems
A = [.70, .30, .20, .60, .40, .40, .00, .70, .10, .30, .50, .40, .00, .60, .50, .30, .10, .50, .20, .10]
B = [.50, .10, .00, .20, .40, .30, .00, .50, .30, .30, .40, .40, .10, .40, .20, .10, .10, .60, .30, .20]
C = [.00, .00, .20, .10, .30, .30, .10, .20, .40, .40, .40, .30, .30, .20, .20, .20, .10, .50, .40, .30]
SAKAI = pd.DataFrame({"A": A, "B": B, "C": C})


@pytest.fixture(scope="module")
def ev():
    """A synthetic collection scored with two metrics: 25 topics x 7 runs."""
    qrels, runs = cwla.synthetic.collection(n_topics=25, n_runs=7, seed=4)
    return cwla.evaluate(qrels, runs, ["nDCG@10", "RBP_ERG"])


@pytest.fixture(scope="module")
def spread():
    """A matrix with clear and unclear differences: 30 topics x 6 systems of increasing means."""
    rng = np.random.default_rng(11)
    topic = rng.random((30, 1))
    X = np.clip(0.5 * topic + rng.normal(0, 0.18, (30, 6)) + np.linspace(0, 0.3, 6), 0, 1)
    return pd.DataFrame(X, columns=[f"sys{j}" for j in range(6)])


def _expected_marks(p, means, alpha, markers, baseline=None):
    """The cell marks from a p-value matrix and the means, computed here."""
    m = len(means)
    if baseline is None:
        out = []
        for i in range(m):
            beaten = [markers[j] for j in range(m) if j != i and p[i, j] < alpha and means[i] > means[j]]
            out.append(("," if m > 26 else "").join(beaten))  # numbers past 26 systems, else letters
        return tuple(out)
    return tuple("" if i == baseline else "+" if p[i, baseline] < alpha and means[i] > means[baseline]
                 else "-" if p[i, baseline] < alpha and means[i] < means[baseline] else "" for i in range(m))


# ----------------------------------------------------------------------------- Tukey HSD = randomised_tukey_hsd

def _check_against_tukey(res, X, systems, B, seed, q=0):
    tk = randomised_tukey_hsd(X, B, seed, systems=systems)
    np.testing.assert_array_equal(res.pvalue[q], tk.pvalue)
    expected = tk.pvalue < res.alpha
    np.fill_diagonal(expected, False)
    np.testing.assert_array_equal(res.significant(q), expected)
    assert res.cell_markers(q) == _expected_marks(tk.pvalue, tk.means, res.alpha, res.markers)
    return int(expected.sum()) // 2


def test_tukey_marks_the_pairs_of_randomised_tukey_hsd(ev):
    res = compare_systems(ev, test="tukey", n_trials=3000, seed=7)
    assert isinstance(res, SystemComparison) and res.test == "tukey" and res.correction is None
    assert res.systems == ev.runs and res.metrics == ev.labels and res.topics == ev.topics
    for q in range(2):
        significant = _check_against_tukey(res, ev.values[q].T, ev.runs, 3000, 7, q)
        assert 0 < significant < 21  # some pairs are significant, some are not: the comparison can fail
    wins = res.to_frame()
    assert wins.wins.sum() == wins.losses.sum() == res.significant(0).sum() // 2 + res.significant(1).sum() // 2


@pytest.mark.slow
def test_dl19_tukey_marks_the_pairs_of_randomised_tukey_hsd(tmp_path):
    root = shared_path("trec-dl-2019-passage")
    runs = sorted((root / "runs").glob("*.gz"))
    assert len(runs) == 37
    qrels = root / "qrels" / "qrels.dl19-passage.txt"
    res = compare_systems(qrels, runs, ["nDCG@10"], test="tukey", n_trials=10_000, seed=0)
    ev = cwla.evaluate(qrels, runs, ["nDCG@10"])
    assert res.systems == ev.runs and res.n_topics == 43
    significant = _check_against_tukey(res, ev.values[0].T, ev.runs, 10_000, 0)
    assert 0 < significant < 666
    assert res.markers[:3] == ("1", "2", "3")  # past 26 systems: numbers, separated by commas
    assert any("," in mark for mark in res.cell_markers())
    tex = res.to_latex()
    assert check_latex(tex, names=res.systems) == 1 + 37
    compile_latex(tex, tmp_path)


def test_baseline_tukey_reads_the_baseline_row(spread):
    res = compare_scores(spread, baseline="sys2", test="tukey", n_trials=2000, seed=3)
    tk = randomised_tukey_hsd(spread, 2000, 3)
    b = 2
    np.testing.assert_array_equal(res.pvalue[0, b], tk.pvalue[b])
    np.testing.assert_array_equal(res.pvalue[0, :, b], tk.pvalue[:, b])
    others = np.ones((6, 6), dtype=bool)
    others[b, :] = others[:, b] = False
    assert np.isnan(res.pvalue[0][others]).all()
    assert res.cell_markers() == _expected_marks(tk.pvalue, tk.means, 0.05, res.markers, baseline=b)


def test_sakai_table_5_1_paired_versus_unpaired():
    """docs/compare.md: the paired randomised Tukey HSD against scipy's unpaired one (ranx's 'tukey')."""
    res = compare_scores(SAKAI, test="tukey", n_trials=100_000, seed=1)
    p = res.pvalue[0]
    for (i, j), expected in {(0, 1): .3036, (0, 2): .1069, (1, 2): .8918}.items():
        assert p[i, j] == pytest.approx(expected, abs=0.006)
    unpaired = scipy.stats.tukey_hsd(A, B, C).pvalue
    for (i, j), expected in {(0, 1): .3941, (0, 2): .1958, (1, 2): .9001}.items():
        assert unpaired[i, j] == pytest.approx(expected, abs=5e-4)
    param = compare_scores(SAKAI, test="parametric-tukey").pvalue[0]
    for (i, j), expected in {(0, 1): .2567, (0, 2): .0957, (1, 2): .8550}.items():
        assert param[i, j] == pytest.approx(expected, abs=5e-4)


# ----------------------------------------------------------------------------- seeds

@pytest.mark.parametrize("test", ["tukey", "randomisation", "bootstrap"])
def test_same_seed_same_numbers_whatever_the_thread_count(spread, test):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs numba with at least 2 threads")
    before = numba.get_num_threads()
    try:
        results = []
        for threads in (1, 2):
            numba.set_num_threads(threads)
            results.append(compare_scores(spread, test=test, n_trials=1500, seed=42,
                                          correction=None if test == "tukey" else "holm"))
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(results[0].pvalue, results[1].pvalue)
    other = compare_scores(spread, test=test, n_trials=1500, seed=43, correction=None if test == "tukey" else "holm")
    assert not np.array_equal(np.nan_to_num(other.pvalue_raw), np.nan_to_num(results[0].pvalue_raw))


def test_seed_none_is_drawn_and_recorded(spread):
    res = compare_scores(spread, n_trials=500, seed=None)
    assert isinstance(res.seed, int)
    again = compare_scores(spread, n_trials=500, seed=res.seed)
    np.testing.assert_array_equal(res.pvalue, again.pvalue)
    assert compare_scores(spread, test="t-test").seed is None


# ----------------------------------------------------------------------------- formulas

@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.01])
def test_confidence_interval_is_scipys_t_interval(spread, alpha):
    res = compare_scores(spread, alpha=alpha, test="t-test")
    X = spread.to_numpy()
    for j in range(X.shape[1]):
        low, high = scipy.stats.t.interval(1 - alpha, len(X) - 1, loc=X[:, j].mean(), scale=scipy.stats.sem(X[:, j]))
        assert res.ci_low[0, j] == pytest.approx(low, abs=1e-12)
        assert res.ci_high[0, j] == pytest.approx(high, abs=1e-12)
        assert res.means[0, j] == pytest.approx(X[:, j].mean(), abs=1e-12)
    low, high = confidence_intervals(X, alpha)
    np.testing.assert_allclose(low, res.ci_low[0])


def test_effect_size_is_paired_cohens_d(spread):
    X = spread.to_numpy()
    res = compare_scores(spread, test="t-test")
    n = len(X)
    for i in range(6):
        for j in range(6):
            if i == j:
                assert res.effect[0, i, j] == 0
                continue
            t = scipy.stats.ttest_rel(X[:, i], X[:, j]).statistic  # t = d_z sqrt(n)
            assert res.effect[0, i, j] == pytest.approx(t / math.sqrt(n), rel=1e-10)
            assert res.diff[0, i, j] == pytest.approx(X[:, i].mean() - X[:, j].mean(), abs=1e-12)


def test_effect_size_of_constant_differences():
    X = np.array([[0.25, 0.25, 0.5], [0.5, 0.5, 0.75], [0.125, 0.125, 0.375]])  # exact in binary
    d = effect_sizes(X)
    assert d[0, 1] == 0  # the same scores
    assert d[2, 0] == math.inf and d[0, 2] == -math.inf  # +0.25 on every topic


def test_marker_labels():
    assert marker_labels(3) == ("a", "b", "c")
    assert marker_labels(26)[-1] == "z"
    assert marker_labels(27) == tuple(str(k) for k in range(1, 28))
    with pytest.raises(DiscpowerError, match="non-negative integer"):
        marker_labels(-1)


def test_all_pairs_marks_with_more_than_26_systems():
    rng = np.random.default_rng(5)
    X = rng.random((40, 28)) * 0.3 + np.linspace(0, 0.7, 28)
    res = compare_scores(X, test="t-test", correction="holm")
    p = res.pvalue[0]
    assert res.cell_markers() == _expected_marks(p, X.mean(axis=0), 0.05, res.markers)
    assert "1,2" in res.cell_markers()[-1]


# ----------------------------------------------------------------------------- baseline tests and corrections

@pytest.mark.parametrize("correction, method", [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")])
def test_baseline_t_test_corrections_equal_statsmodels(spread, correction, method):
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    X = spread.to_numpy()
    b = 1
    raw = np.array([scipy.stats.ttest_rel(X[:, j], X[:, b]).pvalue for j in range(6) if j != b])
    reject, expected, _, _ = multipletests(raw, alpha=0.05, method=method)
    res = compare_scores(spread, baseline="sys1", test="t-test", correction=correction)
    got = np.array([res.pvalue[0, j, b] for j in range(6) if j != b])
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose([res.pvalue_raw[0, j, b] for j in range(6) if j != b], raw, rtol=1e-12)
    np.testing.assert_array_equal(got < 0.05, reject)  # statsmodels rejects at p <= alpha; no ties at 0.05 here
    frame = res.pair_frame()
    assert list(frame.system_b.unique()) == ["sys1"] and len(frame) == 5
    np.testing.assert_allclose(frame.pvalue, expected, rtol=1e-12)


@pytest.mark.parametrize("correction, method", [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")])
def test_all_pairs_corrections_equal_statsmodels(spread, correction, method):
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    X = spread.to_numpy()
    i, j = np.triu_indices(6, k=1)
    raw = scipy.stats.ttest_rel(X[:, i], X[:, j], axis=0).pvalue
    expected = multipletests(raw, method=method)[1]
    res = compare_scores(spread, test="t-test", correction=correction)
    np.testing.assert_allclose(res.pvalue[0][i, j], expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(res.pvalue[0][j, i], expected, rtol=1e-12, atol=1e-15)
    assert res.cell_markers() == _expected_marks(res.pvalue[0], X.mean(axis=0), 0.05, res.markers)


def test_bh_adjustment():
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    np.testing.assert_allclose(adjust_pvalues([0.01, 0.04, 0.03, 0.005], "bh"), [0.02, 0.04, 0.04, 0.02])
    rng = np.random.default_rng(2)
    for _ in range(20):
        p = np.round(rng.random(12) ** 3, 2)  # with ties
        np.testing.assert_allclose(adjust_pvalues(p, "bh"), multipletests(p, method="fdr_bh")[1], rtol=1e-12)
    np.testing.assert_array_equal(adjust_pvalues(p, "BH"), adjust_pvalues(p, "bh"))  # another case: the same
    with pytest.raises(DiscpowerError, match="None, 'holm', 'bonferroni' or 'bh'"):
        adjust_pvalues([0.1], "BH-FDR")


@pytest.mark.parametrize("test, func", [("randomisation", fisher_randomisation), ("bootstrap", paired_bootstrap)])
def test_baseline_resampling_tests_are_discpowers_two_system_tests(spread, test, func):
    X = spread.to_numpy()
    b = 3
    res = compare_scores(spread, baseline="sys3", test=test, n_trials=2000, seed=9, correction="holm")
    raw = []
    for j in range(6):
        if j != b:
            raw.append(func(X[:, b], X[:, j], n_trials=2000, seed=9).pvalue[0, 1])
            assert res.pvalue_raw[0, j, b] == raw[-1]
    got = np.array([res.pvalue[0, j, b] for j in range(6) if j != b])
    np.testing.assert_allclose(got, adjust_pvalues(raw, "holm"))
    assert res.cell_markers() == _expected_marks(res.pvalue[0], X.mean(axis=0), 0.05, res.markers, baseline=b)
    assert "+" in res.cell_markers() and res.cell_markers()[b] == ""


def test_baseline_frame(spread):
    res = compare_scores(spread, baseline="sys0", test="t-test", correction="holm")
    frame = res.to_frame()
    assert list(frame.columns) == ["metric", "system", "marker", "mean", "ci_low", "ci_high", "best",
                                   "significance", "diff", "effect", "pvalue_raw", "pvalue"]
    X = spread.to_numpy()
    np.testing.assert_allclose(frame["diff"], X.mean(axis=0) - X[:, 0].mean(), atol=1e-12)
    assert math.isnan(frame.effect[0]) and math.isnan(frame.pvalue[0])
    assert frame.best.tolist() == list(X.mean(axis=0) == X.mean(axis=0).max())
    assert list(frame.significance) == list(res.cell_markers())


# ----------------------------------------------------------------------------- tables and plot

NASTY = pd.DataFrame(np.random.default_rng(8).random((12, 3)) + [0.0, 0.4, 0.2],
                     columns=["RBP_ERG run", "a&b|c", "50% #1 $x"])


def test_markdown_table(spread):
    res = compare_scores({"nDCG@10": spread, "P_5": spread * 0.5, "*a|b_": spread}, test="t-test", correction="bh")
    lines = res.to_markdown(3).splitlines()
    assert lines[0] == r"|  | System | nDCG@10 | P_5 | \*a\|b\_ |"  # an underscore inside a word is text
    assert lines[1] == "|---|---|---:|---:|---:|"
    rows = lines[2:8]
    assert len(rows) == 6 and lines[8] == ""
    best = int(np.argmax(spread.to_numpy().mean(axis=0)))
    for k, line in enumerate(rows):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[0] == res.markers[k] and cells[1] == spread.columns[k]
        mean = f"{spread.iloc[:, k].mean():.3f}"
        shown = f"**{mean}**" if k == best else mean
        marks = res.cell_markers(0)[k]
        assert cells[2] == shown + (f"<sup>{marks}</sup>" if marks else "")
    assert "Benjamini-Hochberg" in lines[9] and "alpha = 0.05" in lines[9]
    escaped = compare_scores(NASTY, test="t-test").to_markdown()
    assert "| RBP_ERG run |" in escaped and r"a&b\|c" in escaped
    assert all(line.count("|") - line.count(r"\|") == 4 for line in escaped.splitlines()[:5])  # 3 columns


@pytest.mark.parametrize("kwargs", [dict(), dict(baseline="a&b|c", test="t-test", correction="holm"),
                                    dict(test="randomisation", correction="bh", n_trials=500)])
def test_latex_table_escapes_and_parses(kwargs, tmp_path):
    res = compare_scores({"RBP_ERG": NASTY, "P(rel=2)@10 & 50%": NASTY * 0.9}, n_trials=kwargs.pop("n_trials", 2000),
                         **kwargs)
    tex = res.to_latex(3, label="tab:cmp")
    rows = check_latex(tex, names=[*NASTY.columns, "RBP_ERG", "P(rel=2)@10 & 50%"])
    assert rows == 1 + 3
    caption = tex.splitlines()[2]
    assert caption.startswith(r"\caption{") and r"$\alpha = 0.05$" in caption and res.method in caption
    assert ("no correction" in caption or "by construction" in caption) if res.correction is None else \
        {"holm": "Holm", "bh": "Benjamini-Hochberg"}[res.correction] in caption
    best = int(np.argmax(NASTY.to_numpy().mean(axis=0)))
    assert tex.count(r"\textbf{") == 2  # one best per column
    assert r"\textbf{" + f"{NASTY.iloc[:, best].mean():.3f}" + "}" in tex
    n_marks = sum(bool(m) for q in range(2) for m in res.cell_markers(q))
    assert tex.count(r"\textsuperscript{") == n_marks
    assert res.to_latex(caption=False).startswith(r"\begin{tabular}")
    compile_latex(tex, tmp_path)


def test_plot(spread):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = compare_scores(spread, n_trials=2000, seed=1)
    ax = res.plot()
    assert len(ax.containers) == 6  # one error bar per system
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == sorted(m for m in res.cell_markers() if m)
    top = max(zip(ax.get_yticks(), (t.get_text() for t in ax.get_yticklabels())))[1]
    best = int(np.argmax(res.means[0]))
    assert top == f"{res.markers[best]}  {spread.columns[best]}"  # the best at the top
    plt.close(ax.figure)
    res = compare_scores(spread, baseline="sys2", test="t-test")
    ax = res.plot()
    assert any(line.get_linestyle() == "--" for line in ax.lines)
    plt.close(ax.figure)


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, message", [
    (dict(baseline="nope"), r"unknown baseline 'nope': the systems are 'sys0', 'sys1'"),
    (dict(baseline=3), "The 'baseline' parameter must be a run name"),
    (dict(test="tukey-unpaired"), "unknown test 'tukey-unpaired'; accepted: 'tukey', 'max-t', 'perm-max-t', "
                                  "'parametric-tukey'"),
    (dict(correction="fdr"), "The 'correction' parameter must be None, 'holm', 'bonferroni' or 'bh'"),
    (dict(correction="holm"), "test 'perm-max-t' controls the family-wise error over all pairs itself; it takes no "
                              "correction"),
    (dict(test="tukey", correction="holm"), "test 'tukey' controls the family-wise error"),
    (dict(test="parametric-tukey", correction="bh"), "it takes no correction .got 'bh'.. A corrected family: one of "
                                                     "'t-test', 'fisher'"),
    (dict(test="t-test-holm", correction="bh"), "test 't-test-holm' names the correction 'holm', and "
                                                "correction='bh' another"),
    (dict(alpha=0.0), r"The 'alpha' parameter must be a number in the open interval \(0, 1\)"),
    (dict(alpha=1.0), "open interval"),
    (dict(alpha=True), "open interval"),
    (dict(n_trials=0), "The 'n_trials' parameter must be an integer >= 1"),
    (dict(test="t-test", n_trials=2.5), "The 'n_trials' parameter must be an integer >= 1"),
    (dict(seed=-1), "The 'seed' parameter"),
])
def test_bad_arguments(spread, kwargs, message):
    with pytest.raises(DiscpowerError, match=message):
        compare_scores(spread, **kwargs)


def test_bad_scores():
    with pytest.raises(DiscpowerError, match="at least 2 systems"):
        compare_scores(np.ones((5, 1)))
    with pytest.raises(DiscpowerError, match="at least 2"):
        compare_scores(np.ones((1, 3)))
    with pytest.raises(DiscpowerError, match="non-finite"):
        compare_scores(np.array([[0.1, np.nan], [0.2, 0.3]]))
    with pytest.raises(DiscpowerError, match="every metric must score the same topics"):
        compare_scores({"x": np.ones((5, 2)), "y": np.ones((6, 2))})
    with pytest.raises(DiscpowerError, match="other systems"):
        compare_scores({"x": pd.DataFrame(np.ones((5, 2)), columns=["a", "b"]),
                        "y": pd.DataFrame(np.ones((5, 2)), columns=["a", "c"])})
    with pytest.raises(DiscpowerError, match="empty mapping"):
        compare_scores({})


def test_bad_compare_systems_calls(ev, tmp_path):
    qrels, runs = cwla.synthetic.collection(n_topics=6, n_runs=3, seed=1)
    with pytest.raises(DiscpowerError, match="unknown baseline 'run9': the runs are 'run01', 'run02', 'run03'"):
        compare_systems(qrels, runs, ["nDCG@10"], baseline="run9")
    with pytest.raises(DiscpowerError, match="at least 2 runs; got 1"):
        compare_systems(qrels, {"run01": runs["run01"]}, ["P@5"])
    with pytest.raises(DiscpowerError, match="give the runs and the metrics"):
        compare_systems(qrels, runs)
    with pytest.raises(DiscpowerError, match="an Evaluation holds its runs and its scoring options"):
        compare_systems(ev, runs)
    with pytest.raises(DiscpowerError, match="unknown metric 'AP'"):
        compare_systems(ev, n_trials=100).significant("AP")
    # options are checked before anything is read
    with pytest.raises(DiscpowerError, match="unknown test 'ttest'; accepted"):
        compare_systems(tmp_path / "missing-qrels", [tmp_path / "missing-run"], ["P@5"], test="ttest")


def test_bad_table_arguments(spread):
    res = compare_scores(spread, test="t-test")
    for method in (res.to_markdown, res.to_latex):
        with pytest.raises(DiscpowerError, match="The 'digits' parameter must be an integer in"):
            method(-1)
    with pytest.raises(DiscpowerError, match="metric index 3 out of range"):
        res.cell_markers(3)


def test_result_is_immutable(spread):
    import attrs

    res = compare_scores(spread, test="t-test")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        res.alpha = 0.1
    with pytest.raises(ValueError, match="read-only"):
        res.pvalue[0, 0, 1] = 0.0
    with pytest.raises(ValueError, match="read-only"):
        res.means[0, 0] = 1.0


def test_plus_one_gives_count_plus_one_over_b_plus_one_and_says_so():
    rng = np.random.default_rng(7)
    X = rng.random((15, 4))
    plain = compare_scores(X, test="randomisation", n_trials=500, seed=3, plus_one=False)
    plus = compare_scores(X, test="randomisation", n_trials=500, seed=3, plus_one=True)
    i, j = np.triu_indices(4, 1)
    # the same trials: p+ = (B p + 1) / (B + 1), and never 0
    assert np.allclose(plus.pvalue_raw[0][i, j], (500 * plain.pvalue_raw[0][i, j] + 1) / 501)
    assert (plus.pvalue_raw[0][i, j] > 0).all() and plus.plus_one and not plain.plus_one
    assert "(count + 1) / (B + 1)" in plus.to_markdown() and "(count + 1)" not in plain.to_markdown()
    with pytest.raises(DiscpowerError, match="plus_one"):
        compare_scores(X, plus_one="yes")


def test_frames_of_different_topics_are_refused():
    rng = np.random.default_rng(1)
    a = pd.DataFrame(rng.random((5, 3)), index=list("vwxyz"), columns=["s1", "s2", "s3"])
    b = a.iloc[::-1]  # the same topics in another order
    with pytest.raises(DiscpowerError, match="same topics in the same order"):
        compare_scores({"m1": a, "m2": b}, test="t-test")
    assert compare_scores({"m1": a, "m2": a}, test="t-test").topics == tuple("vwxyz")


# ----------------------------------------------------------------------------- one registry, one default

def test_the_default_is_the_studentised_permutation_max_t(spread):
    """"Which pairs differ" defaults to the family-wise test that holds alpha under the data-based nulls
    (docs/calibration.md): its p-values are discpower.permutation_max_t's."""
    res = compare_scores(spread, n_trials=2000, seed=4)
    assert res.test == "perm-max-t" and res.correction is None and res.n_trials == 2000
    direct = discpower.permutation_max_t(spread, 2000, seed=4)
    np.testing.assert_array_equal(res.pvalue_raw[0], direct.pvalue)
    assert "studentised-permutation max-t" in res.description()


def test_a_test_with_its_correction_in_the_name_is_the_test_and_the_correction(spread):
    named = compare_scores(spread, test="t-test-holm")
    apart = compare_scores(spread, test="t-test", correction="holm")
    assert (named.test, named.correction) == ("t-test", "holm")
    np.testing.assert_array_equal(named.pvalue, apart.pvalue)
    fisher = compare_scores(spread, test="randomisation-bh", n_trials=300, seed=1)
    assert (fisher.test, fisher.correction) == ("fisher", "bh")


def test_a_correction_randomised_p_values_cannot_pass_is_refused_with_the_b_that_can():
    """Fisher's test at B = 10,000 with Holm over the 1,711 pairs of 59 runs: the smallest p-value, 1/10,001,
    is above Holm's first threshold .05/1,711, so no pair could be significant -- refused, never a silent 0."""
    X = np.random.default_rng(3).random((20, 59))
    with pytest.raises(DiscpowerError, match=r"test 'fisher-holm' at B = 10,000 can find no pair significant.*"
                                             r"Holm's correction over 1,711 comparisons.*B >= 34,220 can"):
        compare_scores(X, test="randomisation", correction="holm", n_trials=10_000)
    # against one baseline the family is 58 comparisons: .05 / 58 > 1 / 10,001 -- it runs
    with pytest.raises(DiscpowerError, match="B >= 1,160 can"):
        compare_scores(X, baseline="S1", test="fisher-holm", n_trials=1000)
    ok = compare_scores(X[:, :6], baseline="S1", test="fisher-holm", n_trials=200, seed=1)
    assert ok.correction == "holm"
    assert compare_scores(X[:, :4], test="fisher-holm", n_trials=200, seed=1, plus_one=False).correction == "holm"


# ----------------------------------------------------------------------------- an Evaluation as the input

def test_metrics_select_from_an_evaluation(ev):
    some = compare_systems(ev, metrics=["RBP_ERG"], n_trials=500, seed=3)
    full = compare_systems(ev, n_trials=500, seed=3)
    assert some.metrics == ("RBP_ERG",) and full.metrics == ("nDCG@10", "RBP_ERG")
    np.testing.assert_array_equal(some.pvalue[0], full.pvalue[1])  # the same test on the same scores
    assert ev.select(["RBP_ERG", "nDCG@10"]).labels == ("RBP_ERG", "nDCG@10")
    np.testing.assert_array_equal(ev.select("RBP_ERG").values[0], ev.values[1])
    with pytest.raises(DiscpowerError, match=r"'AP' is not among the evaluated metrics \['nDCG@10', 'RBP_ERG'\]; "
                                             r"with an Evaluation, metrics= names some of its metrics by label"):
        compare_systems(ev, metrics=["AP"])
    with pytest.raises(DiscpowerError, match="an Evaluation holds its runs and its scoring options"):
        compare_systems(ev, metrics=["nDCG@10"], cutoff=5)


def test_an_evaluation_where_a_matrix_is_expected_says_what_to_pass(ev):
    for test in (randomised_tukey_hsd, discpower.permutation_max_t, discpower.parametric_tukey_hsd):
        with pytest.raises(DiscpowerError, match=r"X is a cwla Evaluation \(2 metrics x 7 runs x 25 topics\); a test "
                                                 r"takes one metric's scores: pass ev.scores\('nDCG@10'\)"):
            test(ev)
    assert randomised_tukey_hsd(ev.scores("nDCG@10"), 200, seed=1).systems == ev.runs  # what it says works
