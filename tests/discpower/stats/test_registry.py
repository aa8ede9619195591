"""The registry of tests: each test declared once, and every entry point that takes ``test=`` reads it."""

import numpy as np
import pytest

import discpower
from discpower import DiscpowerError
from discpower.reports import cli
from discpower.reports.systems import TESTS as SYSTEM_TESTS
from discpower.stats.registry import FAMILY_WISE, NAMES, REGISTRY, RESAMPLING, TESTS, check_test, run_test
from discpower.stats.registry import significance_test, lookup, reachable, trials_needed, words_of


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(3).random((12, 4))


def test_the_names_are_declared_once():
    assert TESTS == tuple(REGISTRY) and len(set(NAMES)) == len(NAMES)
    assert set(FAMILY_WISE) == {t.name for t in REGISTRY.values() if t.family_wise}
    assert set(RESAMPLING) <= set(TESTS) and "tukey" in RESAMPLING and "t-test" not in RESAMPLING
    assert SYSTEM_TESTS == TESTS  # the systems table takes every test of the registry
    for test in REGISTRY.values():
        assert test.scope in ("all", "pair") and test.words and test.finite


@pytest.mark.parametrize("name, canonical", [("randomisation", "fisher"), ("randomisation-holm", "fisher-holm"),
                                             ("t-test-holm", "t-test-holm"), ("wilcoxon-fdr_by", "wilcoxon-fdr_by"),
                                             ("sign-holm-sidak", "sign-holm-sidak"), ("tukey", "tukey")])
def test_names_aliases_and_corrections(name, canonical):
    assert check_test(name) == canonical


@pytest.mark.parametrize("bad, message", [("wilcox", "unknown test 'wilcox'; accepted: 'tukey'"),
                                          ("tukey-holm", "takes no correction"), ("t-test-nope", "unknown test"),
                                          (None, "unknown test None"), (3, "unknown test 3")])
def test_a_bad_name_lists_the_accepted_ones(bad, message):
    with pytest.raises(DiscpowerError, match=message):
        check_test(bad)
    with pytest.raises(DiscpowerError):
        lookup("t-test-holm", corrected=False)


@pytest.mark.parametrize("name", TESTS)
def test_every_test_runs_on_every_pair(X, name):
    names = ("a", "b", "c", "d")
    res = run_test(X, names, name, 200, 5)
    assert res.systems == names and res.pvalue.shape == (4, 4)
    p = res.pair_pvalues()
    assert len(p) == 6 and np.all((p >= 0) & (p <= 1))
    assert (res.n_resamples == 200) == REGISTRY[name].resampling
    if REGISTRY[name].scope == "pair":  # each pair is the two-system test of its columns
        pair = REGISTRY[name].run(np.ascontiguousarray(X[:, [1, 3]]), ("b", "d"), 200, 5, True)
        assert res.pvalue[1, 3] == pair.pvalue[0, 1]


def test_a_correction_adjusts_the_pairs_pvalues(X):
    raw = run_test(X, tuple("abcd"), "wilcoxon", None, None)
    holm = run_test(X, tuple("abcd"), "wilcoxon-holm", None, None)
    i, j = np.triu_indices(4, k=1)
    np.testing.assert_array_equal(holm.pvalue[i, j], discpower.adjust_pvalues(raw.pvalue[i, j], "holm"))
    assert holm.method.endswith("(holm)") and "Holm" in words_of("wilcoxon-holm")
    # the t-test's Holm correction is the same through the registry as through paired_t_test
    np.testing.assert_array_equal(significance_test(X, None, "t-test-holm").pvalue,
                                  discpower.paired_t_test(X, correction="holm").pvalue)


def test_the_entry_points_take_a_test_of_the_registry(X):
    cal = discpower.calibrate(X, ["fisher", "wilcoxon-holm", "randomisation"], n_sim=5, n_trials=50, deltas=[],
                              null="exchangeable")  # no ties from a drawn marginal: scipy's exact Wilcoxon
    assert cal.frame.test.tolist() == ["fisher", "wilcoxon-holm", "fisher"]
    table = discpower.compare_scores(X, test="randomisation", n_trials=50, seed=1)
    assert table.test == "fisher" and "Fisher" in table.method
    args = cli._parser().parse_args(["compare-qrels", "--truth", "q", "--candidate", "c", "r",
                                          "--test", "randomisation-bh"])
    assert args.test == "fisher-bh"
    with pytest.raises(SystemExit):
        cli._parser().parse_args(["compare-qrels", "--truth", "q", "--candidate", "c", "r", "--test", "nope"])


def test_discriminative_power_and_asl_curves_test_a_matrix_by_name(X):
    direct = discpower.discriminative_power({"m": discpower.randomised_max_t(X, 300, seed=2)})
    named = discpower.discriminative_power({"m": X}, test="max-t", n_trials=300, seed=2)
    assert named.equals(direct)
    curves = discpower.asl_curves({"a": X, "b": discpower.paired_t_test(X)}, test="t-test-holm")
    np.testing.assert_array_equal(curves[curves.metric == "a"].pvalue,
                                  np.sort(discpower.paired_t_test(X, correction="holm").pair_pvalues()))
    with pytest.raises(DiscpowerError, match="unknown test 'nope'"):
        discpower.discriminative_power({"m": X}, test="nope")
    with pytest.raises(DiscpowerError, match="not a PairwiseTest nor a topics x systems score matrix"):
        discpower.discriminative_power({"m": [[1, 2], [3, 4]]})


def test_a_two_stage_correction_takes_the_entry_points_alpha(X):
    """fdr_tsbh and fdr_tsbky depend on alpha: run_test adjusts at the alpha it is given (calibrate, meta_evaluate
    and the qrels comparisons pass theirs), as compare_systems does."""
    from discpower.stats.significance import adjust_pvalues

    Y = np.random.default_rng(0).random((12, 4))
    Y[:, 0] += 0.2  # p-values between the two levels' first-stage thresholds
    raw = discpower.paired_t_test(Y).pair_pvalues()
    assert not np.allclose(adjust_pvalues(raw, "fdr_tsbh", alpha=0.05), adjust_pvalues(raw, "fdr_tsbh", alpha=0.2))
    for alpha in (0.05, 0.2):
        got = run_test(Y, ("a", "b", "c", "d"), "t-test-fdr_tsbh", None, None, alpha=alpha).pair_pvalues()
        np.testing.assert_allclose(got, adjust_pvalues(raw, "fdr_tsbh", alpha=alpha))
    assert reachable("holm", 1, 1, 0.9) and trials_needed("holm", 1, 0.9) == 1
