"""Qrels and runs in the shapes other tools hand over (PyTerrier frames, ir_datasets iterables of namedtuples,
ranx's Qrels/Run, a frame holding several systems) give the same Evaluation as the TREC files they came from."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

import cwla
from cwla import synthetic
from cwla.errors import InputError

# ir_datasets' record types (same names and fields)
TrecQrel = namedtuple("TrecQrel", ["query_id", "doc_id", "relevance", "iteration"])
GenericScoredDoc = namedtuple("GenericScoredDoc", ["query_id", "doc_id", "score"])

METRICS = ["nDCG@10", "P(rel=2)@5", "map", "R@20", "Bpref", "NumRet", "RBP_ERG"]


class RanxLike:
    """What ranx's Qrels and Run offer cwla: ``to_dict()`` of ``{query: {doc: value}}`` and (a Run) a name."""

    def __init__(self, data: dict, name: str | None = None):
        self._data, self.name = data, name

    def to_dict(self):
        return {q: dict(docs) for q, docs in self._data.items()}


@pytest.fixture(scope="module")
def trec(tmp_path_factory):
    """A synthetic collection as TREC files, and the Evaluation of those files."""
    qrels, runs = synthetic.collection(n_topics=6, n_runs=3, depth=25, seed=11)
    paths = synthetic.write_trec(qrels, runs, tmp_path_factory.mktemp("eco"))
    q_path, run_paths = paths
    return q_path, run_paths, cwla.evaluate(q_path, run_paths, METRICS)


def _same(ev, expected):
    assert ev.runs == expected.runs and ev.topics == expected.topics
    np.testing.assert_array_equal(ev.values, expected.values)
    np.testing.assert_array_equal(ev.residuals, expected.residuals)


def _pyterrier_frames(q_path, run_paths):
    qrels = cwla.read_qrels(q_path).rename(columns={"topic": "qid", "grade": "label"})
    qrels["label"] = qrels["label"].astype(int)
    results = []
    for path in run_paths:
        run = cwla.read_run(path).rename(columns={"topic": "qid"})
        run["rank"] = run.groupby("qid").cumcount()  # PyTerrier ranks from 0
        run["docid"] = np.arange(len(run))  # PyTerrier's internal ids: never taken for docnos
        run["query"] = "some text"
        run["name"] = cwla.run_name(path)
        results.append(run)
    return qrels, results


def test_pyterrier_frames(trec):
    q_path, run_paths, expected = trec
    qrels, results = _pyterrier_frames(q_path, run_paths)
    one = [r.drop(columns=["name"]) for r in results]
    _same(cwla.evaluate(qrels, dict(zip(expected.runs, one)), METRICS), expected)
    # a list of frames is a list of runs (a frame is never taken for one record of a run)
    listed = cwla.evaluate(qrels, one, METRICS)
    assert listed.runs == tuple(f"run{i + 1}" for i in range(len(one)))
    np.testing.assert_array_equal(listed.values, expected.values)
    # one frame with a system column: several runs, in order of first appearance
    _same(cwla.evaluate(qrels, pd.concat(results, ignore_index=True), METRICS), expected)
    both = pd.concat(results, ignore_index=True).rename(columns={"name": "system"})
    _same(cwla.evaluate(qrels, both, METRICS), expected)


def test_ir_datasets_iterables(trec):
    q_path, run_paths, expected = trec
    q = cwla.read_qrels(q_path)
    qrels_iter = (TrecQrel(t, d, int(g), "0") for t, d, g in zip(q.topic, q.docno, q.grade))
    runs = {}
    for name, path in zip(expected.runs, run_paths):
        r = cwla.read_run(path)
        runs[name] = (GenericScoredDoc(t, d, s) for t, d, s in zip(r.topic, r.docno, r.score))
    _same(cwla.evaluate(qrels_iter, runs, METRICS), expected)
    # one run given as an iterable: one run, named "run"
    r = cwla.read_run(run_paths[0])
    ev = cwla.evaluate(q_path, (GenericScoredDoc(t, d, s) for t, d, s in zip(r.topic, r.docno, r.score)), METRICS)
    assert ev.runs == ("run",)
    np.testing.assert_array_equal(ev.values[:, 0], expected.values[:, 0])


def test_ranx_objects(trec):
    q_path, run_paths, expected = trec
    q = cwla.read_qrels(q_path)
    qrels = RanxLike({t: dict(zip(g.docno, g.grade.astype(int))) for t, g in q.groupby("topic")})
    runs = []
    for name, path in zip(expected.runs, run_paths):
        r = cwla.read_run(path)
        runs.append(RanxLike({t: dict(zip(g.docno, g.score)) for t, g in r.groupby("topic")}, name=name))
    _same(cwla.evaluate(qrels, runs, METRICS), expected)  # named by Run.name
    ev = cwla.evaluate(qrels, runs[0], METRICS)
    assert ev.runs == (expected.runs[0],)


def test_real_ranx_objects_if_installed(trec):
    ranx = pytest.importorskip("ranx")
    q_path, run_paths, expected = trec
    qrels = ranx.Qrels.from_file(str(q_path), kind="trec")
    runs = [ranx.Run.from_file(str(p), kind="trec") for p in run_paths]
    for run, name in zip(runs, expected.runs):
        run.name = name
    _same(cwla.evaluate(qrels, runs, METRICS), expected)


def test_a_run_dict_whose_first_topic_is_empty_is_one_run():
    qrels = {"1": {"d1": 1}, "2": {"d3": 1}}
    ev = cwla.evaluate(qrels, {"1": {}, "2": {"d3": 1.0}}, ["P@1"])
    assert ev.runs == ("run",) and ev.values[0, 0].tolist() == [0.0, 1.0]
    named = cwla.evaluate(qrels, {"a": {"1": {}, "2": {"d3": 1.0}}, "b": {"1": {"d1": 1.0}}}, ["P@1"])
    assert named.runs == ("a", "b") and named.values[0].tolist() == [[0.0, 1.0], [1.0, 0.0]]


def test_unaccepted_shapes_list_the_accepted_ones():
    with pytest.raises(TypeError, match=r"read_qrels\(\) accepts a path .*PyTerrier's and ir_datasets' names.*"
                                        r"to_dict\(\).*\(ranx\).*iterable of records with attributes "
                                        r"query_id, doc_id, relevance"):
        cwla.read_qrels([(1, "a", 1)])
    with pytest.raises(InputError, match=r"qrels records: the first record \(Thing\(query_id='1', doc_id='a'\)\) "
                                         r"has no attribute grade or relevance or label"):
        Thing = namedtuple("Thing", ["query_id", "doc_id"])
        cwla.read_qrels([Thing("1", "a")])
    with pytest.raises(InputError, match="qrels records are empty"):
        cwla.read_qrels(iter([]))
    with pytest.raises(TypeError, match="runs must be a run file path, a DataFrame .*PyTerrier's results.*ranx's "
                                        "Run.*scoreddocs_iter"):
        cwla.prepare({"1": {"a": 1}}, 42)


def test_a_frame_with_several_systems_is_refused_where_one_run_is_expected():
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, 2.0], "run": ["x", "y"]})
    with pytest.raises(InputError, match=r"run DataFrame holds several runs \(column 'run' has 2 values\)"):
        cwla.read_run(frame)
    ev = cwla.evaluate({"1": {"a": 1}}, frame, ["P@1"])
    assert ev.runs == ("x", "y") and ev.values[0, :, 0].tolist() == [1.0, 0.0]
