"""cwla.Evaluator: runs read once, metrics and options checked once, any number of qrels scored."""

import warnings

import numpy as np
import pandas as pd
import pytest

import cwla
from cwla.data import runset as runset_module
from cwla.scoring import evaluator as evaluator_module

METRICS = ["nDCG@10", "map", "RBP_ERG", "P(rel=2)@10", "R@50", "AP_ERG"]


@pytest.fixture(scope="module")
def data():
    return cwla.synthetic.collection(n_topics=15, n_runs=6, seed=3)


@pytest.fixture(scope="module")
def files(data, tmp_path_factory):
    qrels, runs = data
    return cwla.synthetic.write_trec(qrels, runs, tmp_path_factory.mktemp("trec"))


def same(a: cwla.Evaluation, b: cwla.Evaluation) -> None:
    assert a.labels == b.labels and a.runs == b.runs and a.topics == b.topics
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.residuals, b.residuals)


@pytest.mark.slow
@pytest.mark.parametrize("options", [{}, {"cutoff": 5, "depth": 20, "stop": True}, {"order": "file"},
                                     {"ties": "float64"}, {"max_docs": 7}, {"judged_only": True}, {"rel": 2},
                                     {"gain": "binary:2"}, {"normalize": "ideal"}, {"expected": True}])
def test_score_is_evaluate_bit_for_bit(data, files, options):
    qrels, runs = data
    for source_runs, source_qrels in ((runs, qrels), (files[1], files[0])):
        evaluator = cwla.Evaluator(source_runs, METRICS, **options)
        same(evaluator.score(source_qrels), cwla.evaluate(source_qrels, source_runs, METRICS, **options))


def test_runs_are_read_once_for_every_qrels(data, monkeypatch):
    qrels, runs = data
    reads = []
    original = runset_module.read_named
    monkeypatch.setattr(evaluator_module, "read_named", lambda *a, **k: reads.append(1) or original(*a, **k))
    evaluator = cwla.Evaluator(runs, METRICS)
    held = evaluator.runs
    half = qrels[qrels["grade"] > 0]
    for q in (qrels, half, qrels):
        evaluator.score(q)
    assert len(reads) == 1 and evaluator.runs is held


def test_one_join_per_qrels_whatever_the_number_of_metrics(data, monkeypatch):
    qrels, runs = data
    joins = []
    original = evaluator_module.join
    monkeypatch.setattr(evaluator_module, "join", lambda *a: joins.append(1) or original(*a))
    evaluator = cwla.Evaluator(runs, METRICS)
    evaluator.score(qrels)
    assert len(joins) == 1
    col = evaluator.prepare(qrels)
    for label in evaluator.labels:
        evaluator.score(col, metrics=[label])
    assert len(joins) == 2


def test_run_names_are_normalised_once(files, monkeypatch):
    qrels, paths = files
    calls = []
    original = runset_module.named_runs
    monkeypatch.setattr(evaluator_module, "named_runs", lambda runs: calls.append(1) or original(runs))
    monkeypatch.setattr(runset_module, "named_runs", lambda runs: calls.append(1) or original(runs))
    cwla.evaluate(qrels, paths, ["nDCG@10"])
    assert len(calls) == 1


def test_a_prepared_collection_scores_as_the_qrels(data):
    qrels, runs = data
    evaluator = cwla.Evaluator(runs, METRICS, cutoff=8)
    col = evaluator.prepare(qrels)
    same(evaluator.score(col), evaluator.score(qrels))
    unbound = cwla.Evaluator(None, METRICS, cutoff=8)
    same(unbound.score(cwla.prepare(qrels, runs)), evaluator.score(qrels))
    with pytest.raises(cwla.CwlaError, match="holds no runs"):
        unbound.score(qrels)
    with pytest.raises(cwla.CwlaError, match="holds no runs"):
        unbound.runs
    other = cwla.prepare(qrels, {name: runs[name] for name in list(runs)[:3]})
    with pytest.raises(ValueError, match="other runs"):
        evaluator.score(other)


def test_scoring_some_metrics_is_scoring_them_alone(data):
    qrels, runs = data
    evaluator = cwla.Evaluator(runs, METRICS)
    for label in METRICS:
        same(evaluator.score(qrels, metrics=[label]), cwla.evaluate(qrels, runs, [label]))
    picked = evaluator.score(qrels, metrics=["map", "nDCG@10"])
    assert picked.labels == ("map", "nDCG@10")
    with pytest.raises(KeyError, match="not among the evaluated metrics"):
        evaluator.score(qrels, metrics=["ERR@20"])


def test_select_shares_the_runs(data):
    qrels, runs = data
    evaluator = cwla.Evaluator(runs, METRICS, rel=2)
    chosen = evaluator.select(["map"])
    assert chosen.runs is evaluator.runs and chosen.labels == ("map",) and chosen.options == evaluator.options
    same(chosen.score(qrels), cwla.evaluate(qrels, runs, ["map"], rel=2))


def test_options_are_checked_before_the_runs_are_read(tmp_path):
    missing = tmp_path / "no-such-run"
    for options, error, message in ((dict(ties="float16"), ValueError, "'ties' parameter of Evaluator"),
                                    (dict(order="rank"), ValueError, "'order' parameter of Evaluator"),
                                    (dict(max_docs=0), ValueError, "'max_docs' parameter of Evaluator"),
                                    (dict(workers=0), ValueError, "'workers' parameter of Evaluator"),
                                    (dict(rel=-1), ValueError, "'rel' parameter of Evaluator"),
                                    (dict(cutoff=0), ValueError, "cutoff"),
                                    (dict(expected="yes"), TypeError, "'expected' parameter of Evaluator"),
                                    (dict(gain=3), TypeError, "'gain' parameter of Evaluator"),
                                    (dict(colour="red"), TypeError, "unknown option 'colour'")):
        with pytest.raises(error, match=message):
            cwla.Evaluator(missing, ["nDCG@10"], **options)
    with pytest.raises(cwla.MetricSyntaxError):
        cwla.Evaluator(missing, ["nDCG@x"])
    with pytest.raises(FileNotFoundError):
        cwla.Evaluator(missing, ["nDCG@10"])


def test_metric_warnings_come_once_at_construction(data):
    qrels, runs = data
    with pytest.warns(cwla.ConstantMetricWarning):
        evaluator = cwla.Evaluator(runs, ["RBP_ERR", "nDCG@10"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", cwla.ConstantMetricWarning)
        evaluator.score(qrels)
        evaluator.score(qrels)


def test_files_beyond_the_group_budget_are_streamed(files, monkeypatch):
    qrels, paths = files
    held = cwla.Evaluator(paths, METRICS).score(qrels)
    monkeypatch.setattr(runset_module, "GROUP_BYTES", 1)  # one file a group
    evaluator = cwla.Evaluator(paths, METRICS)
    assert evaluator.streamed and evaluator.run_names == held.runs
    same(evaluator.score(qrels), held)
    with pytest.raises(cwla.CwlaError, match="a group at a time"):
        evaluator.runs


def test_a_streamed_group_is_released_before_the_next_is_read(files, monkeypatch):
    """Memory holds one group at a time: when a group is read, no earlier group's RunSet or Collection is
    alive (they were kept until the end, and the previous one during the next read: issue 36)."""
    import gc
    import weakref

    qrels, paths = files
    monkeypatch.setattr(runset_module, "GROUP_BYTES", 1)  # one file a group
    made, alive_at_reads = [], []
    read, join = evaluator_module.read_named, cwla.Evaluator._join

    def reading(*args, **kwargs):
        gc.collect()
        alive_at_reads.append(sum(ref() is not None for ref in made))
        run_set = read(*args, **kwargs)
        made.append(weakref.ref(run_set))
        return run_set

    def joining(self, judgements, runs):
        col = join(self, judgements, runs)
        made.append(weakref.ref(col))
        return col

    monkeypatch.setattr(evaluator_module, "read_named", reading)
    monkeypatch.setattr(cwla.Evaluator, "_join", joining)
    ev = cwla.evaluate(qrels, paths, METRICS)
    assert len(alive_at_reads) == len(paths) > 1 and alive_at_reads == [0] * len(paths)
    assert ev.runs == tuple(cwla.Evaluator(paths, METRICS).run_names)


def test_evaluate_streams_past_stream_bytes_an_evaluator_holds_up_to_group_bytes(files, monkeypatch):
    """cwla.evaluate scores once: run files past cwla.data.runset.stream_bytes() of text go a group at a time;
    an Evaluator (many scores) holds them up to group_bytes(). Same values either way."""
    qrels, paths = files
    held = cwla.evaluate(qrels, paths, METRICS)
    reads = []
    read = evaluator_module.read_named
    monkeypatch.setattr(evaluator_module, "read_named", lambda *a, **k: reads.append(1) or read(*a, **k))
    monkeypatch.setattr(runset_module, "STREAM_BYTES", 1)
    assert runset_module.stream_bytes() == 1
    same(cwla.evaluate(qrels, paths, METRICS), held)
    assert len(reads) == len(paths)
    assert not cwla.Evaluator(paths, METRICS).streamed


def test_a_short_repr_and_the_axes(data):
    _, runs = data
    evaluator = cwla.Evaluator(runs, METRICS)
    text = repr(evaluator)
    assert len(text) < 200 and "6 metrics" in text and "6 runs" in text
    assert evaluator.run_names == tuple(runs) and len(evaluator) == len(METRICS)


def test_scores_carry_their_axes(data):
    qrels, runs = data
    ev = cwla.evaluate(qrels, runs, METRICS)
    scores = ev.scores("map")
    assert isinstance(scores, pd.DataFrame)
    assert (scores.index.name, scores.columns.name) == ("run", "topic")
    assert tuple(scores.index) == ev.runs and tuple(scores.columns) == ev.topics
    np.testing.assert_array_equal(scores.to_numpy(), ev.values[METRICS.index("map")])
