"""compare_qrels: confusion counts, McKechnie's measures, Otero's categories, kappa, errors, CLI."""

import math
import re

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cwla
import discpower
from conftest import shared_path
from discpower import DiscpowerError
from discpower.qrels.compare import CATEGORIES, cohen_kappa, compare_tests, confusion_measures
from discpower.stats.result import PairwiseTest


def test_mckechnie_table_2_counts_give_their_measures():
    m = confusion_measures(tp=443, tn=303, fp=36, fn=929)
    assert round(m["1P"], 4) == 0.9248 and round(m["1R"], 4) == 0.3229
    assert round(m["2P"], 4) == 0.2459 and round(m["2R"], 4) == 0.8938
    assert m["BAC"] == pytest.approx((m["1R"] + m["2R"]) / 2)
    assert m["accuracy"] == pytest.approx((443 + 303) / 1711)
    assert m["MCC"] == pytest.approx((443 * 303 - 36 * 929) / math.sqrt(479 * 1372 * 339 * 1232))


@pytest.mark.parametrize("counts, nan", [
    (dict(tp=0, tn=5, fp=0, fn=3), {"1P", "MCC"}),
    (dict(tp=0, tn=5, fp=2, fn=0), {"1R", "MCC"}),
    (dict(tp=4, tn=0, fp=2, fn=0), {"2P", "MCC"}),
    (dict(tp=4, tn=0, fp=0, fn=3), {"2R", "MCC"}),
    (dict(tp=0, tn=0, fp=0, fn=0), {"1P", "1R", "2P", "2R", "BAC", "MCC", "F1", "accuracy"}),
])
def test_zero_denominators_give_nan_never_zero(counts, nan):
    m = confusion_measures(**counts)
    assert {k for k, v in m.items() if math.isnan(v)} >= nan
    assert all(not math.isnan(v) for k, v in m.items() if k not in nan | {"BAC"})


def test_bad_counts():
    with pytest.raises(DiscpowerError, match="The .fp. parameter must be a non-negative integer .a count.. Got -1 instead."):
        confusion_measures(tp=1, tn=1, fp=-1, fn=0)


def _test(diff, p, systems):
    return PairwiseTest(method="given", systems=systems, diff=diff, statistic=np.abs(diff), pvalue=p,
                        n_topics=10, means=diff[:, 0])


@st.composite
def two_tests(draw):
    m = draw(st.integers(2, 7))
    systems = tuple(f"s{i}" for i in range(m))
    out = []
    for _ in range(2):
        means = np.array(draw(st.lists(st.sampled_from([0.0, 0.1, 0.2, 0.3]), min_size=m, max_size=m)))
        p = np.array(draw(st.lists(st.sampled_from([0.001, 0.01, 0.049, 0.05, 0.2, 0.9]), min_size=m * m,
                                   max_size=m * m))).reshape(m, m)
        p = np.triu(p, 1) + np.triu(p, 1).T
        np.fill_diagonal(p, np.nan)
        out.append(_test(means[:, None] - means[None, :], p, systems))
    return out


@given(two_tests(), st.booleans())
def test_categories_partition_the_pairs_and_map_onto_the_confusion_counts(tests, direction_aware):
    g, c = tests
    r = compare_tests(g, c, alpha=0.05, direction_aware=direction_aware)
    m = r.measures
    assert sum(m[k] for k in CATEGORIES) == m["pairs"] == len(r.pairs) == m["TP"] + m["TN"] + m["FP"] + m["FN"]
    assert m["FN"] == m["MA_G"] + m["MD_G"] and m["TN"] == m["PA"] + m["PD"]
    if direction_aware:
        assert m["TP"] == m["AA"] and m["FP"] == m["MA_L"] + m["MD_L"] + m["AD"]
    else:
        assert m["TP"] == m["AA"] + m["AD"] and m["FP"] == m["MA_L"] + m["MD_L"]
    assert r.pairs.groupby("outcome").size().to_dict() == {k: m[k] for k in ("TP", "TN", "FP", "FN") if m[k]}
    sig_c = m["TP"] + m["FP"] if not direction_aware else m["AA"] + m["AD"] + m["MA_L"] + m["MD_L"]
    if sig_c:
        assert m["false_discovery_share"] == pytest.approx((m["MA_L"] + m["MD_L"] + m["AD"]) / sig_c)
    else:
        assert math.isnan(m["false_discovery_share"])


@pytest.fixture(scope="module")
def synthetic():
    return cwla.synthetic.collection(n_topics=25, n_runs=8, seed=11)


def test_identical_qrels_agree_perfectly(synthetic):
    qrels, runs = synthetic
    r = discpower.compare_qrels(qrels, qrels, runs, "nDCG@10", n_trials=2000, seed=1)
    m = r.measures
    assert m["FP"] == m["FN"] == 0 and m["tau"] == pytest.approx(1.0) and m["kappa"] == pytest.approx(1.0)
    assert m["kappa_overlap"] == len(qrels) and m["pairs"] == 28
    assert m["delta_sensitivity"] == 0
    assert list(r.to_frame().columns) == ["measure", "value"]
    assert r.plot() is not None


def test_sampled_qrels_lose_significant_differences(synthetic):
    qrels, runs = synthetic
    rng = np.random.default_rng(0)
    relevant = qrels[qrels.grade > 0]
    drop = relevant.sample(frac=0.8, random_state=1).index
    candidate = qrels.drop(index=drop)
    r = discpower.compare_qrels(qrels, candidate, runs, "nDCG@10", n_trials=2000, seed=1)
    assert r.measures["FN"] >= r.measures["FP"]
    assert r.measures["kappa"] == pytest.approx(1.0)  # the labels that remain are unchanged
    assert r.measures["kappa_overlap"] == len(candidate)
    assert rng is not None


def test_kappa_by_hand():
    g = pd.DataFrame({"topic": "t", "docno": list("abcdef"), "grade": [0, 0, 1, 1, 2, 2]})
    c = pd.DataFrame({"topic": "t", "docno": list("abcdefz"), "grade": [0, 1, 1, 1, 2, 0, 2]})
    # 6 shared documents, agreement on a, c, d, e = 4/6; marginals g: 2,2,2, c: 2,3,1 -> p_e = (4+6+2)/36
    kappa, overlap = cohen_kappa(g, c)
    assert overlap == 6 and kappa == pytest.approx((4 / 6 - 12 / 36) / (1 - 12 / 36))
    binary, _ = cohen_kappa(g, c, threshold=1)  # g: 001111, c: 011110
    assert binary == pytest.approx((4 / 6 - (2 * 2 + 4 * 4) / 36) / (1 - (2 * 2 + 4 * 4) / 36))
    lin, _ = cohen_kappa(g, c, weights="linear")
    quad, _ = cohen_kappa(g, c, weights="quadratic")
    assert lin != kappa and quad != lin
    none, zero = cohen_kappa(g, c.assign(topic="other"))
    assert zero == 0 and math.isnan(none)
    with pytest.raises(DiscpowerError, match="The 'weights' parameter must be None, 'linear' or 'quadratic'"):
        cohen_kappa(g, c, weights="cubic")


def test_bad_inputs(synthetic):
    qrels, runs = synthetic
    other = qrels.assign(topic="Z" + qrels.topic)
    with pytest.raises(DiscpowerError, match=re.escape("the candidate qrels judge 25 topic(s) the ground truth does not")):
        discpower.compare_qrels(qrels, other, runs)
    extra = pd.concat([qrels, pd.DataFrame({"topic": ["new"], "docno": ["d"], "grade": [1.0]})])
    with pytest.raises(DiscpowerError, match=re.escape("judge 1 topic(s) the ground truth does not: ['new']")):
        discpower.compare_qrels(qrels, extra, runs)
    with pytest.raises(DiscpowerError, match="compare one metric at a time; got 2"):
        discpower.compare_qrels(qrels, qrels, runs, ["nDCG@10", "AP"])
    with pytest.raises(DiscpowerError, match="unknown test 'wilcox'; accepted: 'tukey'"):
        discpower.compare_qrels(qrels, qrels, runs, test="wilcox")
    with pytest.raises(DiscpowerError, match="'tukey' controls the family-wise error over all pairs itself"):
        discpower.compare_qrels(qrels, qrels, runs, test="tukey-holm")
    a = discpower.randomised_tukey_hsd(np.random.default_rng(1).random((5, 3)), 10, seed=1)
    b = discpower.randomised_tukey_hsd(np.random.default_rng(1).random((5, 3)), 10, seed=1, systems=["x", "y", "z"])
    with pytest.raises(DiscpowerError, match="the two tests compare different systems"):
        compare_tests(a, b)






@pytest.mark.slow
def test_dl19_nist_vs_llama70b_counts_are_stable_across_seeds():
    root = shared_path("trec-dl-2019-passage")
    runs = sorted((root / "runs").glob("*.gz"))
    truth = root / "qrels" / "qrels.dl19-passage.txt"
    candidate = root / "candidate-qrels" / "llm" / "dl2019_test_4prompts_llama70b.txt"
    comparer = discpower.QrelsComparer.build(truth, runs, "nDCG@10", n_trials=10_000, seed=1)
    first = comparer.compare(candidate)
    second = discpower.QrelsComparer.build(truth, runs, "nDCG@10", n_trials=10_000, seed=2).compare(candidate)
    a, b = first.pairs, second.pairs
    changed = a.outcome != b.outcome
    # only pairs whose p-value sits within Monte-Carlo error of alpha may change (4 standard errors)
    mc = 4 * math.sqrt(0.05 * 0.95 / 10_000)
    near = ((a.p_truth - 0.05).abs() < mc) | ((a.p_candidate - 0.05).abs() < mc) | \
        ((b.p_truth - 0.05).abs() < mc) | ((b.p_candidate - 0.05).abs() < mc)
    assert not (changed & ~near).any()
    assert first.measures["pairs"] == 666 and first.measures["kappa_overlap"] == 9260
    assert first.measures["FP"] + first.measures["FN"] > 0




def test_topic_policy_common_versus_truth(synthetic):
    qrels, runs = synthetic
    keep = sorted(qrels.topic.unique())[:10]
    subset = qrels[qrels.topic.isin(keep)]
    common = discpower.compare_qrels(qrels, subset, runs, n_trials=1000, seed=1)
    assert common.measures["topics_truth"] == common.measures["topics_candidate"] == 10
    assert common.measures["FP"] == common.measures["FN"] == 0  # the same labels on the same topics
    truth = discpower.compare_qrels(qrels, subset, runs, n_trials=1000, seed=1, topics="truth")
    assert truth.measures["topics_truth"] == 25 and truth.measures["topics_candidate"] == 10
    with pytest.raises(DiscpowerError, match="The 'topics' parameter must be 'common' or 'truth'"):
        discpower.compare_qrels(qrels, subset, runs, topics="all")


@pytest.mark.parametrize("kwargs, message", [
    (dict(kappa_threshold="2"), "The 'kappa_threshold' parameter must be a finite number or None"),
    (dict(kappa_threshold=float("nan")), "The 'kappa_threshold' parameter must be a finite number or None"),
    (dict(kappa_weights="bogus"), "The 'kappa_weights' parameter must be None, 'linear' or 'quadratic'"),
    (dict(direction_aware="no"), "The 'direction_aware' parameter must be True or False"),
])
def test_options_are_validated_before_any_work(synthetic, kwargs, message):
    qrels, runs = synthetic
    with pytest.raises(DiscpowerError, match=re.escape(message)):
        discpower.compare_qrels(qrels, qrels, runs, **kwargs)


def test_a_zero_difference_contradicts_nothing():
    g = _test(np.array([[0.0, 0.0], [0.0, 0.0]]), np.array([[np.nan, 0.5], [0.5, np.nan]]), ("a", "b"))
    c = _test(np.array([[0.0, 0.01], [-0.01, 0.0]]), np.array([[np.nan, 0.5], [0.5, np.nan]]), ("a", "b"))
    assert compare_tests(g, c).pairs.category.tolist() == ["PA"]


def test_weighted_kappa_weighs_by_grade_distance():
    g = pd.DataFrame({"topic": "t", "docno": list("abcd"), "grade": [0, 1, 3, 3]})
    c = pd.DataFrame({"topic": "t", "docno": list("abcd"), "grade": [0, 3, 3, 1]})
    # grades 0, 1, 3: a 1-vs-3 disagreement weighs |1 - 3| / 3 = 2/3 (not 1/2, the rank distance)
    observed = (2 / 3 + 2 / 3) / 4
    rows, cols = np.array([1, 1, 2]) / 4, np.array([1, 1, 2]) / 4  # marginals of 0, 1, 3
    levels = np.array([0, 1, 3])
    w = np.abs(levels[:, None] - levels[None, :]) / 3
    expected = float((w * np.outer(rows, cols)).sum())
    kappa, _ = cohen_kappa(g, c, weights="linear")
    assert kappa == pytest.approx(1 - observed / expected)


def test_to_frame_keeps_counts_as_integers_and_plot_zooms(synthetic):
    qrels, runs = synthetic
    r = discpower.compare_qrels(qrels, qrels.iloc[::2], runs, n_trials=500, seed=1)
    frame = r.to_frame().set_index("measure")["value"]
    assert isinstance(frame["TP"], int) and isinstance(frame["MCC"], float)
    ax = r.plot(xlim=(0.1, 0.9), ylim=(0.2, 0.8))
    assert ax.get_xlim() == (0.1, 0.9) and ax.get_ylim() == (0.2, 0.8)
