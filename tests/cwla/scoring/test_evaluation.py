"""evaluate() and prepare(): topic policy, input forms, ordering, residuals, errors."""

import gzip
import re

import numba
import numpy as np
import pandas as pd
import pytest
from threads import at_thread_counts

import cwla
from cwla import InputError

QRELS = "t1 0 a 2\nt1 0 b 1\nt1 0 c 0\nt2 0 a 1\nt2 0 d 3\nt3 0 x 0\n"
RUN = "t1 Q0 a 1 3.0 r\nt1 Q0 z 2 2.0 r\nt1 Q0 b 3 1.0 r\nt2 Q0 d 1 5 r\nt9 Q0 a 1 1 r\n"


@pytest.fixture
def files(tmp_path):
    q = tmp_path / "qrels.txt"
    q.write_text(QRELS)
    r = tmp_path / "myrun.gz"
    with gzip.open(r, "wt") as fh:
        fh.write(RUN)
    return q, r


def test_topic_policy_scores_every_qrels_topic_and_counts(files):
    q, r = files
    ev = cwla.evaluate(q, [r], ["P(rel=1)@2"])
    assert ev.runs == ("myrun",) and ev.topics == ("t1", "t2", "t3")
    # t3 is missing from the run: 0; t9 is not in the qrels: ignored
    np.testing.assert_allclose(ev.values[0, 0], [0.5, 0.5, 0.0])
    assert ev.missing_topics == {"myrun": ("t3",)} and ev.ignored_topics == {"myrun": ("t9",)}
    counts = cwla.prepare(q, [r]).topic_counts()
    assert counts.to_dict("records") == [{"run": "myrun", "topics": 3, "missing": 1, "ignored": 1}]


def test_residual_counts_unjudged_and_padding_at_gain_one(files):
    q, r = files
    ev = cwla.evaluate(q, [r], ["Precision(k=3)+ETG[gain=binary:1]", "Precision(k=4)+ETG[gain=binary:1]"])
    # t1 ranking a(2) z(unjudged) b(1): 2 relevant; the unjudged z adds 1; at k=4 the padded rank 4 adds 1 more
    assert ev.values[:, 0, 0].tolist() == [2.0, 2.0]
    assert ev.residuals[:, 0, 0].tolist() == [1.0, 2.0]


def test_input_forms_agree(files):
    q, r = files
    base = cwla.evaluate(q, [r], ["nDCG@10", "RBP_ERG"])
    frame = cwla.read_run(r)
    as_dict = {t: dict(zip(g["docno"], g["score"])) for t, g in frame.groupby("topic")}
    qdict = {t: dict(zip(g["docno"], g["grade"])) for t, g in cwla.read_qrels(q).groupby("topic")}
    for qrels, runs in [(q, {"myrun": frame}), (cwla.read_qrels(q), {"myrun": as_dict}), (qdict, {"myrun": r}),
                        (q, {"myrun": str(r)})]:
        ev = cwla.evaluate(qrels, runs, ["nDCG@10", "RBP_ERG"])
        np.testing.assert_array_equal(ev.values, base.values)
        np.testing.assert_array_equal(ev.residuals, base.residuals)


def test_file_path_and_dataframe_paths_agree_on_real_runs(mini):
    qrels, runs, _ = mini
    from_files = cwla.evaluate(qrels, runs[:3], cwla.chen_sakai_metrics())
    frames = {cwla.run_name(p): cwla.read_run(p) for p in runs[:3]}
    from_frames = cwla.evaluate(qrels, frames, cwla.chen_sakai_metrics())
    np.testing.assert_array_equal(from_files.values, from_frames.values)


def test_trec_eval_order_breaks_score_ties_by_docno_descending(tmp_path):
    q = tmp_path / "q"
    q.write_text("t 0 a 1\nt 0 b 0\n")
    r = tmp_path / "r"
    r.write_text("t Q0 a 1 1.0 x\nt Q0 b 2 1.0 x\n")  # tie: b before a (docno descending)
    ev = cwla.evaluate(q, [r], ["P@1"])
    assert ev.values[0, 0, 0] == 0.0
    assert cwla.evaluate(q, [r], ["P@1"], order="file").values[0, 0, 0] == 1.0


def test_scores_are_compared_in_single_precision_like_trec_eval(tmp_path):
    q = tmp_path / "q"
    q.write_text("t 0 a 1\nt 0 b 0\n")
    r = tmp_path / "r"
    # distinct doubles, the same float: trec_eval sees a tie and puts b (docno descending) first
    r.write_text("t Q0 a 1 1.00000001 x\nt Q0 b 2 1.0 x\n")
    assert np.float32(1.00000001) == np.float32(1.0)
    assert cwla.evaluate(q, [r], ["P@1"]).values[0, 0, 0] == 0.0
    frame = cwla.read_run(r)
    assert cwla.evaluate(q, {"r": frame}, ["P@1"]).values[0, 0, 0] == 0.0


def test_shuffled_input_gives_the_same_scores(mini):
    qrels, runs, _ = mini
    frame = cwla.read_run(runs[0])
    shuffled = frame.sample(frac=1.0, random_state=7).reset_index(drop=True)
    a = cwla.evaluate(qrels, {"r": frame}, cwla.chen_sakai_metrics())
    b = cwla.evaluate(qrels, {"r": shuffled}, cwla.chen_sakai_metrics())
    np.testing.assert_array_equal(a.values, b.values)


def test_results_do_not_depend_on_thread_count(mini):
    qrels, runs, _ = mini
    col = cwla.prepare(qrels, runs)
    one, many = at_thread_counts(lambda: cwla.evaluate(col, metrics=cwla.chen_sakai_metrics()),
                                 (1, numba.config.NUMBA_NUM_THREADS))
    np.testing.assert_array_equal(one.values, many.values)
    np.testing.assert_array_equal(one.residuals, many.residuals)


def test_evaluation_views(files):
    q, r = files
    ev = cwla.evaluate(q, [r], ["P(rel=1)@2", "nDCG@10"])
    frame = ev.to_frame()
    assert list(frame.columns) == ["run", "topic", "metric", "value", "residual"]
    assert len(frame) == 2 * 3 + 2
    means = frame[frame.topic == "all"].set_index("metric")["value"]
    assert means["P(rel=1)@2"] == pytest.approx(ev.values[0].mean())
    assert ev.means().loc["myrun", "nDCG@10"] == pytest.approx(ev.values[1].mean())
    np.testing.assert_array_equal(ev.scores("nDCG@10"), ev.values[1])
    np.testing.assert_array_equal(ev.scores(cwla.parse_metric("nDCG@10")), ev.values[1])
    assert "\\begin{tabular}" in ev.to_latex()
    with pytest.raises(KeyError, match="not among the evaluated metrics"):
        ev.scores("RBP_ERG")


def test_duplicate_docno_in_a_run_file_names_file_and_lines(tmp_path, files):
    q, _ = files
    r = tmp_path / "dup.txt"
    r.write_text("t1 Q0 a 1 3 r\nt1 Q0 b 2 2 r\nt1 Q0 a 3 1 r\n")
    with pytest.raises(InputError, match=re.escape("dup.txt, line 3: docno 'a' appears twice for topic 't1' "
                                                   "(first at line 1)")):
        cwla.evaluate(q, [r], ["P@10"])


def test_malformed_run_file_names_file_line_and_problem(tmp_path, files):
    q, _ = files
    r = tmp_path / "bad.txt"
    r.write_text("t1 Q0 a 1 3 r\nt1 Q0 b 2 r\n")
    with pytest.raises(InputError, match=re.escape("bad.txt, line 2: expected 6 columns (qid Q0 docno rank score "
                                                   "tag), found 5")):
        cwla.evaluate(q, [r], ["P@10"])
    r.write_text("t1 Q0 a 1 3 r\nt1 Q0 b 2 high r\n")
    with pytest.raises(InputError, match=re.escape("bad.txt, line 2: score 'high' is not a number")):
        cwla.evaluate(q, [r], ["P@10"])
    r.write_text("")  # an empty run scores 0 everywhere, as in pytrec_eval and ir_measures, with a warning
    with pytest.warns(cwla.EmptyRunWarning, match=re.escape("bad.txt is empty: no run lines")):
        ev = cwla.evaluate(q, [r], ["P@10", "R@10", "nDCG@10"])
    assert ev.values.shape[2] > 0 and not ev.values.any()


def test_gain_outside_unit_interval_is_an_error_before_scoring(files):
    q, r = files
    with pytest.raises(cwla.GainRangeError, match=re.escape("gain map linear(gmax=2) maps grade 3 to 1.5")):
        cwla.evaluate(q, [r], ["RBP_ERG"], gain="linear:2")


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(metrics=[]), TypeError, "metrics must be a Metric, a metric text, a non-empty list"),
    (dict(metrics=[3]), TypeError, "a metric must be a Metric, a counting measure or a metric text, got 3"),
    (dict(metrics=["P@10", "P@10"]), ValueError, "metrics must be distinct; ['P@10'] appear more than once"),
    (dict(gain=3), TypeError, "The 'gain' parameter of evaluate must be a gain map or its text. Got 3 instead."),
    (dict(order="rank"), ValueError, "The 'order' parameter of evaluate must be 'trec_eval' or 'file'"),
    (dict(depth=0), ValueError, "The 'depth' parameter of evaluate must be an integer >= 1 (at most 1,000,000), "
                                "'all' or None. Got 0 instead."),
    (dict(rel=0), ValueError, "The 'rel' parameter of evaluate must be a number > 0"),
    (dict(rel=2, gain="binary:3"), ValueError, "the relevance level rel=2 contradicts gain=binary(threshold=3)"),
    (dict(max_docs=0), ValueError, "The 'max_docs' parameter of evaluate must be an integer >= 1 or None"),
    (dict(ties="double"), ValueError, "The 'ties' parameter of evaluate must be 'float32'"),
])
def test_bad_evaluate_arguments(files, kwargs, error, message):
    q, r = files
    kwargs = {"metrics": ["P@10"], **kwargs}
    with pytest.raises(error, match=re.escape(message)):
        cwla.evaluate(q, [r], **kwargs)


def test_bad_run_containers(files):
    q, r = files
    with pytest.raises(InputError, match="run names must be unique"):
        cwla.prepare(q, [r, r])
    with pytest.raises(InputError, match="no runs given"):
        cwla.prepare(q, [])
    with pytest.raises(TypeError, match="runs must be a run file path, a DataFrame"):
        cwla.prepare(q, 42)
    with pytest.raises(ValueError, match="pass runs inside the Collection or with raw qrels, not both"):
        cwla.evaluate(cwla.prepare(q, [r]), [r])
    with pytest.raises(ValueError, match="no runs given"):
        cwla.evaluate(q)


def test_an_ideal_too_small_to_divide_by_counts_as_zero_with_a_warning():
    # found by Hypothesis: a subnormal beta makes the ideal 2.8e-309; upper / ideal overflowed to inf
    qrels = pd.DataFrame({"topic": ["q0"], "docno": ["d0"], "grade": [1.0]})
    run = pd.DataFrame({"topic": ["q0"], "docno": ["d0"], "score": [1.0]})
    metric = cwla.Metric(cwla.Precision(2), cwla.PE(2.82480079693299e-309), gain=cwla.Linear(), normalize="ideal")
    with pytest.warns(cwla.CwlaWarning, match=r"the ideal score of 1 topic\(s\) is so small \(down to 2.82e-309\) "
                                              r"that normalising by it overflows"):
        ev = cwla.evaluate(qrels, {"r": run}, [metric])
    assert ev.values[0, 0, 0] == 0.0 and ev.residuals[0, 0, 0] == 0.0


def test_a_subnormal_ideal_gives_no_nan():
    # found by Hypothesis: a gain of 5e-324 made 1/ideal overflow and 0 * inf = NaN
    qrels = pd.DataFrame({"topic": "t", "docno": ["a"], "grade": [3.0]})
    run = pd.DataFrame({"topic": ["other"], "docno": ["x"], "score": [1.0]})
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cwla.CwlaWarning)
        ev = cwla.evaluate(qrels, {"r": run}, ["AP(R=retrieved)+fin[gain=table(3:5e-324), depth=1, normalize=ideal]"])
    assert ev.values[0, 0, 0] == 0.0 and not np.isnan(ev.residuals).any()


def test_a_judged_zero_is_not_part_of_the_ideal_ranking():
    """The ideal ranking holds the judged documents of positive gain. A judged 0 below them would add
    nothing -- but under depth="all" (or a ranking shorter than the depth) it would lengthen the ideal
    ranking and lower a rate aggregation's ideal (ERG divides by the expected depth), so judging a
    document 0 changed the normalised value, and a run retrieving just the relevant documents could
    score above 1. (Hypothesis found DCG(k=none)+ERG[cutoff=5, depth=all, normalize=ideal].)"""
    import pandas as pd

    metric = "DCG(k=none)+ERG[gain=linear, cutoff=5, depth=all, normalize=ideal]"
    run = pd.DataFrame({"topic": "t", "docno": ["a", "b"], "score": [2.0, 1.0]})
    base = pd.DataFrame({"topic": "t", "docno": ["a", "b"], "grade": [2, 1]})
    zeros = pd.concat([base, pd.DataFrame({"topic": "t", "docno": ["z1", "z2", "z3"], "grade": 0})])
    with_zeros = cwla.evaluate(zeros, {"r": run}, [metric]).values[0, 0, 0]
    without = cwla.evaluate(base, {"r": run}, [metric]).values[0, 0, 0]
    assert with_zeros == without == pytest.approx(1.0)  # the run is the ideal ranking
