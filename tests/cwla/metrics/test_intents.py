"""Intent-aware metrics by composition (cwla.metrics.intents): SPEC's hand-checked example, ndeval (through
pyndeval) on generated subtopic collections, the composition's own invariants, and the subtopic reader."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cwla
from cwla.data.subtopics import read_subtopics
from cwla.metrics.text import parse_metric

#: SPEC section 5: s1 = {a, b, e}, s2 = {a, d}, s3 = {c, f}; run b, e, a, x, c (alpha = 0.5)
HAND_QRELS = {"q": {"s1": {"a": 1, "b": 1, "e": 1}, "s2": {"a": 1, "d": 1}, "s3": {"c": 1, "f": 1}}}
HAND_RUN = {"q": {"b": 5.0, "e": 4.0, "a": 3.0, "x": 2.0, "c": 1.0}}
HAND = {"alpha_nDCG@5": 0.707457, "P_IA@5": 0.333333, "StRecall@5": 1.0, "ERR_IA@5": 0.451841,
        "nERR_IA@5": 0.645533, "NRBP": 0.40625, "nNRBP": 0.595989, "AP_IA": 0.422222}


def test_the_hand_checked_example_of_spec():
    ev = cwla.evaluate(HAND_QRELS, HAND_RUN, list(HAND))
    for i, name in enumerate(ev.labels):
        assert ev.values[i, 0, 0] == pytest.approx(HAND[name], abs=5e-7), name
    # the gains by hand: 1, 0.5, 1.25, 0, 1 over S = 3; DCG 2.327318, the greedy ideal's 3.289694
    dcg = cwla.evaluate(HAND_QRELS, HAND_RUN, ["DCG(k=5)+ETG[cutoff=5, intents=novelty(alpha=0.5)]"]).values[0, 0, 0]
    assert dcg * 3 == pytest.approx(2.327318, abs=5e-7)
    assert 2.327318 / 3.289694 == pytest.approx(HAND["alpha_nDCG@5"], abs=5e-7)


def test_the_named_measures_are_compositions_that_print_and_parse_back():
    for name in list(HAND) + ["alpha_DCG@10", "NRBP(alpha=0.3, beta=0.8)", "MAP_IA", "alpha_nDCG(rel=2)@20"]:
        m = parse_metric(name)
        assert m.intents is not None and parse_metric(str(m)) == m, name
    assert str(parse_metric("AP_IA").intents) == "ia"
    assert parse_metric("StRecall@10").intents.alpha == 1.0 and parse_metric("P_IA@10").intents == cwla.metrics.intents.IntentAware()


# ---------------------------------------------------------------------------
# against ndeval (pyndeval) on generated collections
# ---------------------------------------------------------------------------


@st.composite
def subtopic_collections(draw):
    """A few topics with subtopics, grades -1..3 (a document judged for some subtopics), and a run of distinct
    scores (pyndeval and cwla break ties differently) with unjudged documents."""
    qrels, run = [], []
    for t in range(draw(st.integers(1, 3))):
        n_sub = draw(st.integers(1, 4))
        docs = [f"d{t}_{i}" for i in range(draw(st.integers(1, 10)))]
        for d in docs:
            subs = draw(st.lists(st.integers(0, n_sub - 1), min_size=1, max_size=n_sub, unique=True))
            for s in subs:
                qrels.append((f"t{t}", f"s{s}", d, draw(st.integers(-1, 3))))
        ranked = draw(st.lists(st.sampled_from(docs + [f"u{t}_{i}" for i in range(4)]), unique=True, max_size=14))
        run += [(f"t{t}", d, float(len(ranked) - i)) for i, d in enumerate(ranked)]
    return qrels, run


def _frames(qrels, run):
    return (pd.DataFrame(qrels, columns=["topic", "subtopic", "docno", "grade"]),
            pd.DataFrame(run, columns=["topic", "docno", "score"]))


@pytest.mark.slow
@given(subtopic_collections(), st.sampled_from([0.5, 0.0, 0.3, 1.0]), st.sampled_from([0.5, 0.8, 0.2]),
       st.integers(1, 2), st.integers(2, 20))
def test_every_diversity_measure_equals_ndeval(collection, alpha, beta, rel, k):
    pyndeval = pytest.importorskip("pyndeval")
    qrels, run = collection
    if not run:
        return
    ours = {f"alpha-nDCG@{k}": f"alpha_nDCG(alpha={alpha}, rel={rel})@{k}",
            f"alpha-DCG@{k}": f"alpha_DCG(alpha={alpha}, rel={rel})@{k}",
            f"ERR-IA@{k}": f"Reciprocal(k={k})+ETG[gain=binary(threshold={rel}), cutoff={k}, depth=all, stop=true, "
                           f"normalize=full, intents=novelty(alpha={alpha})]",
            f"nERR-IA@{k}": f"Reciprocal(k={k})+ETG[gain=binary(threshold={rel}), cutoff={k}, depth=all, stop=true, "
                            f"normalize=ideal, intents=novelty(alpha={alpha})]",
            "NRBP": f"NRBP(alpha={alpha}, beta={beta}, rel={rel})", "nNRBP": f"nNRBP(alpha={alpha}, beta={beta}, rel={rel})",
            f"P-IA@{k}": f"P_IA(rel={rel})@{k}", f"strec@{k}": f"StRecall(rel={rel})@{k}", "MAP-IA": f"AP_IA(rel={rel})"}
    if k > 20:
        return
    ref = pyndeval.RelevanceEvaluator(qrels, list(ours), relevance_level=rel, alpha=alpha, beta=beta).evaluate(run)
    q, r = _frames(qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cwla.CwlaWarning)
        ev = cwla.evaluate(q, r, ours)
    assert ref, "pyndeval scored no topic"
    for i, key in enumerate(ev.labels):
        for t, topic in enumerate(ev.topics):
            if topic not in ref:
                continue
            want = ref[topic][key]
            got = ev.values[i, 0, t]
            if np.isnan(want):  # ndeval's nNRBP of a topic without a relevant document: 0 / 0
                assert got == 0.0
                continue
            assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (key, topic, qrels, run)


# ---------------------------------------------------------------------------
# the composition: any browsing model, intent-aware or over novelty gains
# ---------------------------------------------------------------------------


@pytest.mark.slow
@given(subtopic_collections(), st.sampled_from(["RBP(p=0.8)+ERG", "INST(T=2)+ERG", "DCG(k=5)+ETG[cutoff=5]",
                                                "AP+ERG", "ERR+ERR"]))
def test_ia_is_the_mean_over_subtopics_of_the_metric_on_each_subtopics_judgements(collection, text):
    qrels, run = collection
    if not run:
        return
    q, r = _frames(qrels, run)
    metric = parse_metric(text)
    ia = cwla.metrics.intents.IntentAware()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cwla.CwlaWarning)
        ev = cwla.evaluate(q, r, [metric.with_options(gain=cwla.Binary(1), intents=ia)])
        for t, topic in enumerate(ev.topics):
            judged = q[q["topic"] == topic]
            subs = sorted(set(judged.loc[judged["grade"] >= 1, "subtopic"]))
            per = []
            for s in subs:
                one = judged.groupby("docno", as_index=False)["grade"].max().assign(grade=0.0)
                hits = set(judged.loc[(judged["subtopic"] == s) & (judged["grade"] >= 1), "docno"])
                one["grade"] = [1.0 if d in hits else 0.0 for d in one["docno"]]
                one.insert(0, "topic", topic)
                alone = cwla.evaluate(one, r[r["topic"] == topic] if (r["topic"] == topic).any() else
                                      pd.DataFrame({"topic": ["other"], "docno": ["x"], "score": [1.0]}),
                                      [metric.with_options(gain=cwla.Binary(1))])
                per.append(alone.values[0, 0, 0])
            assert ev.values[0, 0, t] == pytest.approx(np.mean(per) if per else 0.0, rel=1e-12, abs=1e-12)


@pytest.mark.slow
@given(subtopic_collections())
def test_novelty_with_one_subtopic_and_alpha_0_is_the_binary_metric(collection):
    qrels, run = collection
    if not run:
        return
    one = [(t, "s", d, g) for t, _, d, g in qrels]
    q, r = _frames(one, run)
    q = q.groupby(["topic", "subtopic", "docno"], as_index=False)["grade"].max()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cwla.CwlaWarning)
        ev = cwla.evaluate(q, r, ["RBP(p=0.8)+ERG[gain=binary, intents=novelty(alpha=0)]",
                                  "DCG(k=10)+ETG[gain=binary, cutoff=10, depth=all, normalize=ideal, "
                                  "intents=novelty(alpha=0)]"])
        flat = cwla.evaluate(q.drop(columns="subtopic"), r, ["RBP(p=0.8)+ERG[gain=binary]",
                                                               "DCG(k=10)+ETG[gain=binary, cutoff=10, depth=all, "
                                                               "normalize=ideal]"])
    np.testing.assert_allclose(ev.values, flat.values, rtol=1e-12, atol=1e-12)


def test_plain_metrics_beside_intent_aware_ones_read_the_largest_grade():
    ev = cwla.evaluate(HAND_QRELS, HAND_RUN, ["P@5", "P_IA@5"])
    assert ev.values[0, 0, 0] == pytest.approx(4 / 5) and ev.values[1, 0, 0] == pytest.approx(1 / 3)


# ---------------------------------------------------------------------------
# reading subtopic qrels, and what is refused
# ---------------------------------------------------------------------------


def test_read_subtopics_from_a_file_a_frame_and_a_dict(tmp_path):
    path = tmp_path / "sub.txt"
    path.write_text("# comment\nq s1 a 1\nq s1 b 1\nq s2 a 1\n")
    from_file = read_subtopics(path).frame
    from_frame = read_subtopics(pd.DataFrame({"query_id": ["q"] * 3, "iteration": ["s1", "s1", "s2"],
                                              "doc_id": ["a", "b", "a"], "relevance": [1, 1, 1]})).frame
    from_dict = read_subtopics({"q": {"s1": {"a": 1, "b": 1}, "s2": {"a": 1}}}).frame
    pd.testing.assert_frame_equal(from_file, from_frame)
    pd.testing.assert_frame_equal(from_file, from_dict)
    assert repr(read_subtopics(path)) == "<Subtopics: 1 topics, 2 subtopics, 3 judgements>"


@pytest.mark.parametrize("text, message", [
    ("q s1 a\n", r"sub.txt, line 1: expected 4 columns \(topic subtopic docno grade\), found 3"),
    ("q s1 a x\n", r"sub.txt, line 1: grade 'x' is not a number"),
    ("q s1 a 1\nq s1 a 2\n", r"docno 'a' is judged twice for subtopic 's1' of topic 'q'"),
    ("", r"are empty: nothing is judged"),
    ("q s1 a inf\n", r"grade 'inf' is not a finite number"),
])
def test_bad_subtopic_qrels_say_what_and_where(tmp_path, text, message):
    path = tmp_path / "sub.txt"
    path.write_text(text)
    with pytest.raises(cwla.InputError, match=message):
        read_subtopics(path)


def test_what_intents_refuse():
    with pytest.raises(ValueError, match=re.escape("a metric with intents takes no judged_only, costs or expected")):
        cwla.evaluate(HAND_QRELS, HAND_RUN, ["alpha_nDCG(judged_only=True)@5"])
    with pytest.raises(cwla.MetricSyntaxError, match="intents must be ia or novelty"):
        parse_metric("AP+ERG[intents=diverse]")
    with pytest.raises(cwla.MetricSyntaxError, match=r"'alpha' of novelty must be a number in \[0, 1\]"):
        parse_metric("AP+ERG[intents=novelty(alpha=2)]")


def test_the_cwla_provider_of_ir_measures_and_the_command_line_read_subtopic_qrels(tmp_path, capsys):
    ir_measures = pytest.importorskip("ir_measures")
    import cwla.ir_measures as bridge
    from cwla.bridges.cli import main

    qrels = [ir_measures.Qrel("q", d, 1, s) for s, docs in HAND_QRELS["q"].items() for d in docs]
    run = [ir_measures.ScoredDoc("q", d, s) for d, s in HAND_RUN["q"].items()]
    got = ir_measures.calc_aggregate([bridge.measure("alpha_nDCG@5"), bridge.measure("AP_IA")], qrels, run)
    assert got[bridge.measure("alpha_nDCG@5")] == pytest.approx(HAND["alpha_nDCG@5"], abs=5e-7)
    assert got[bridge.measure("AP_IA")] == pytest.approx(HAND["AP_IA"], abs=5e-7)
    sub, res = tmp_path / "sub.txt", tmp_path / "run.txt"
    sub.write_text("".join(f"q {s} {d} 1\n" for s, docs in HAND_QRELS["q"].items() for d in docs))
    res.write_text("".join(f"q Q0 {d} {i + 1} {s} r\n" for i, (d, s) in enumerate(HAND_RUN["q"].items())))
    assert main(["eval", "--format", "trec", "-m", "nERR_IA@5", "-m", "P@5", str(sub), str(res)]) == 0
    assert capsys.readouterr().out.splitlines() == ["nERR_IA@5             \tall\t0.6455",
                                                   "P@5                   \tall\t0.8000"]


# ---------------------------------------------------------------------------
# the built-in sample, and qrels that are not subtopic qrels
# ---------------------------------------------------------------------------


def test_the_sample_subtopic_qrels_are_what_they_say():
    qrels, runs = cwla.synthetic.collection(n_topics=8, n_runs=5, seed=2)
    intents = cwla.synthetic.subtopics(qrels, max_subtopics=4, seed=3)
    pd.testing.assert_frame_equal(intents, cwla.synthetic.subtopics(qrels, max_subtopics=4, seed=3))
    assert not intents.equals(cwla.synthetic.subtopics(qrels, max_subtopics=4, seed=4))
    flat = intents.groupby(["topic", "docno"], as_index=False)["grade"].max()
    assert flat.merge(qrels, on=["topic", "docno"], suffixes=("", "_q")).eval("grade == grade_q").all()
    assert len(flat) == len(qrels)  # every judgement kept, at its grade
    per_topic = intents.groupby("topic")["subtopic"].nunique()
    assert per_topic.max() <= 4 and (per_topic >= 2).sum() >= 6  # topics with a relevant document: 2..4 each
    relevant = intents[intents.grade >= 1]
    assert relevant.groupby(["topic", "docno"]).size().isin([1, 2]).all()
    with pytest.raises(ValueError, match="max_subtopics must be an integer >= 2, got 1"):
        cwla.synthetic.subtopics(qrels, max_subtopics=1)


def test_the_sample_equals_ndeval():
    pyndeval = pytest.importorskip("pyndeval")
    qrels, runs = cwla.synthetic.collection(n_topics=6, n_runs=2, depth=30, seed=5)
    intents = cwla.synthetic.subtopics(qrels, seed=5)
    run = runs["run01"]
    ours = {"alpha-nDCG@20": "alpha_nDCG@20", "ERR-IA@20": "ERR_IA@20", "P-IA@10": "P_IA@10"}
    ref = pyndeval.RelevanceEvaluator(list(intents.itertuples(index=False, name=None)), list(ours)).evaluate(
        [(t, d, float(s)) for t, d, s in zip(run.topic, run.docno, run.score)])
    ev = cwla.evaluate(intents, {"run01": run}, ours, order="file")
    for i, key in enumerate(ev.labels):
        for t, topic in enumerate(ev.topics):
            if topic in ref:
                assert ev.values[i, 0, t] == pytest.approx(ref[topic][key], rel=1e-9, abs=1e-12), (key, topic)


def test_an_intent_aware_metric_on_ordinary_qrels_says_so(tmp_path):
    qrels, runs = cwla.synthetic.collection(n_topics=5, n_runs=2, seed=1)
    qrels_path, run_paths = cwla.synthetic.write_trec(qrels, runs, tmp_path)
    with pytest.warns(cwla.CwlaWarning, match=r"alpha_nDCG@20: intent-aware metrics read subtopic qrels \(topic "
                                              r"subtopic docno grade\), and every topic of these has one subtopic "
                                              r"\('0' on every line: ordinary qrels"):
        cwla.evaluate(qrels_path, run_paths, ["alpha_nDCG@20", "nDCG@10"])
    intents = cwla.synthetic.subtopics(qrels, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", cwla.CwlaWarning)  # real subtopics: nothing to say
        cwla.evaluate(intents, {"run01": runs["run01"]}, ["alpha_nDCG@20"])


def test_the_eval_report_says_how_the_qrels_were_read(tmp_path, capsys):
    from cwla.bridges.cli import main

    qrels, runs = cwla.synthetic.collection(n_topics=6, n_runs=2, seed=1)
    _, run_paths = cwla.synthetic.write_trec(qrels, runs, tmp_path)
    path = tmp_path / "subtopics.txt"
    cwla.synthetic.subtopics(qrels, seed=1).to_csv(path, sep=" ", header=False, index=False)
    assert main(["eval", str(path), str(run_paths[0]), "-m", "alpha_nDCG@20", "-m", "P@10"]) == 0
    out = capsys.readouterr().out
    described = cwla.read_subtopics(str(path)).described()
    assert described.startswith("subtopic qrels (topic subtopic docno grade): 6 topics, ")
    assert f"# qrels: {path} (read as {described}; the other metrics read each document's largest grade)\n" in out
