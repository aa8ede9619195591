"""The run store (cwla.RunSet): read once, joined with any qrels by look-ups; memory that follows the data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import warnings

import attrs
import numpy as np
import pandas as pd
import pytest

import cwla
import cwla.data._docnos
import cwla.data._pairs
from cwla.data import collection as C
from cwla.errors import InputError


def _write_run(path, rows):
    with open(path, "w") as f:
        for t, d, rank, score in rows:
            f.write(f"{t} Q0 {d} {rank} {score} tag\n")


def _write_qrels(path, rows):
    with open(path, "w") as f:
        for t, d, g in rows:
            f.write(f"{t} 0 {d} {g}\n")


@pytest.fixture
def small(tmp_path):
    qrels = tmp_path / "qrels.txt"
    _write_qrels(qrels, [("q1", "a", 2), ("q1", "b", 0), ("q1", "z", 1), ("q2", "c", 1), ("q3", "d", 3)])
    r1, r2 = tmp_path / "r1", tmp_path / "r2"
    _write_run(r1, [("q1", "b", 1, 3.0), ("q1", "a", 2, 3.0), ("q1", "x", 3, 1.0), ("q2", "c", 1, 0.5),
                    ("q9", "c", 1, 1.0)])
    _write_run(r2, [("q2", "x", 1, 2.0), ("q2", "c", 2, 1.0), ("q1", "a", 1, 0.1)])
    return qrels, [r1, r2]


def test_runs_are_read_once_into_shared_pair_ids_in_trec_eval_order(small):
    qrels, runs = small
    rs = cwla.read_runs(runs)
    assert rs.names == ("r1", "r2") and rs.topics == ("q1", "q2", "q9")
    assert rs.lengths.tolist() == [[3, 1, 1], [1, 2, 0]]
    # trec_eval order: score descending, ties by docno descending (b before a at 3.0)
    assert rs.frame("r1")["docno"].tolist() == ["b", "a", "x", "c", "c"]
    assert rs.frame("r2")["docno"].tolist() == ["a", "x", "c"]
    # one id per distinct (topic, docno) pair, shared by the runs; a topic's pairs are contiguous
    pairs = [(rs.topics[t], rs.docnos[i]) for t in range(len(rs.topics))
             for i in range(rs.pair_starts[t], rs.pair_starts[t + 1])]
    assert sorted(pairs) == [("q1", "a"), ("q1", "b"), ("q1", "x"), ("q2", "c"), ("q2", "x"), ("q9", "c")]
    ids = {pair: i for i, pair in enumerate(pairs)}
    assert rs.doc_ids[0][3] == rs.doc_ids[1][2] == ids["q2", "c"]  # q2's c, in both runs
    assert rs.doc_ids[0][4] == ids["q9", "c"] != ids["q2", "c"]
    assert rs.doc_ids[0].dtype == np.int32 and rs.scores[0].dtype == np.float32
    codes, strings = cwla.data._docnos.strings_of(["a", "c", "c", "a", "c"])
    found = rs.pair_ids(np.array([0, 1, 2, -1, 0]), strings, codes)
    assert found.tolist() == [ids["q1", "a"], ids["q2", "c"], ids["q9", "c"], -1, -1]


def test_a_run_set_joins_with_many_qrels_and_gives_what_files_give(small, tmp_path):
    qrels, runs = small
    rs = cwla.read_runs(runs)
    other = tmp_path / "other.txt"
    _write_qrels(other, [("q1", "x", 1), ("q2", "x", 2)])
    for q in (qrels, other):
        a = cwla.evaluate(q, runs, ["nDCG@10", "map", "NumRet", "Judged@10"])
        b = cwla.evaluate(cwla.prepare(q, rs), None, ["nDCG@10", "map", "NumRet", "Judged@10"])
        assert np.array_equal(a.values, b.values) and np.array_equal(a.residuals, b.residuals)
        assert a.missing_topics == b.missing_topics and a.ignored_topics == b.ignored_topics
    col = cwla.prepare(qrels, rs)
    assert col.missing_topics == {"r1": ("q3",), "r2": ("q3",)}
    assert col.ignored_topics == {"r1": ("q9",), "r2": ()}
    # r1's q1 ranking b (grade 0), a (2), x (unjudged): codes into grades 0, 1, 2, 3
    assert col.grades.tolist() == [0, 1, 2, 3]
    assert col.codes[col.starts[0]:col.starts[0] + col.lengths[0]].tolist() == [0, 2, 4]


def test_run_files_are_evaluated_a_group_at_a_time_with_the_same_result(small, monkeypatch):
    qrels, runs = small
    together = cwla.evaluate(qrels, cwla.read_runs(runs), ["nDCG@10", "P@1", "Bpref"])
    for budget in (1, 10**9):  # a file at a time, all at once
        groups = cwla.data.runset.file_groups(cwla.data.runset.named_runs(runs), budget)
        assert groups == ([[("r1", runs[0])], [("r2", runs[1])]] if budget == 1 else
                          [[("r1", runs[0]), ("r2", runs[1])]])
        monkeypatch.setattr(cwla.data.runset, "GROUP_BYTES", budget)
        streamed = cwla.evaluate(qrels, runs, ["nDCG@10", "P@1", "Bpref"])
        assert streamed.runs == together.runs
        assert np.array_equal(streamed.values, together.values)
        assert streamed.missing_topics == together.missing_topics


def test_run_names_are_unique_across_the_groups(tmp_path, small):
    qrels, runs = small
    (tmp_path / "sub").mkdir()
    twin = tmp_path / "sub" / "r1"
    twin.write_text(runs[0].read_text())
    with pytest.raises(InputError, match=r"run names must be unique; \['r1'\]"):
        cwla.evaluate(qrels, [runs[0], runs[1], twin], ["P@1"])


def test_a_duplicate_docno_names_file_and_lines(tmp_path, small):
    qrels, _ = small
    run = tmp_path / "dup"
    _write_run(run, [("q1", "a", 1, 2.0), ("q1", "b", 2, 1.5), ("q1", "a", 3, 1.0)])
    with pytest.raises(InputError, match=r"dup, line 3: docno 'a' appears twice for topic 'q1' \(first at line 1\)"):
        cwla.read_runs([run])


def test_a_long_docno_costs_its_bytes(tmp_path):
    """Docnos are stored once each, back to back: one 1 MB docno costs 1 MB, whatever the number of lines."""
    run = tmp_path / "long"
    rows = [("q1", f"d{i}", i + 1, 100.0 - i) for i in range(2000)] + [("q1", "x" * 2**20, 2001, -5000.0)]
    _write_run(run, rows)
    rs = cwla.read_runs([run])
    assert rs.docnos.blob.nbytes < 2**20 + 20_000
    assert rs.frame("long")["docno"].iloc[-1] == "x" * 2**20


_RSS = textwrap.dedent("""
    import json, resource, sys
    import cwla
    cwla.warmup()
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    col = cwla.prepare(sys.argv[1], cwla.read_runs(sys.argv[2:]))
    ev = cwla.evaluate(col, None, ["nDCG@10"])
    print(json.dumps({"base": base * 1024, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                      "mean": float(ev.values.mean())}))
""")


def _peak_rss(qrels, *runs) -> dict:
    proc = subprocess.run([sys.executable, "-c", _RSS, str(qrels), *map(str, runs)], capture_output=True, text=True,
                          check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_one_4kb_docno_in_a_200000_line_run_keeps_memory(tmp_path):
    """Memory follows the bytes of the docnos, not lines x the longest docno (which took RSS from 0.22 to 3.3 GB)."""
    qrels = tmp_path / "qrels.txt"
    _write_qrels(qrels, [(f"q{t}", f"doc{t}-{i}", i % 3) for t in range(200) for i in range(0, 1000, 7)])
    plain, long = tmp_path / "plain", tmp_path / "long"
    rows = [(f"q{t}", f"doc{t}-{i}", i + 1, 1000.0 - i) for t in range(200) for i in range(1000)]
    _write_run(plain, rows)
    rows[-1] = ("q199", "u" * 4096, 1000, 0.5)
    _write_run(long, rows)
    a, b = _peak_rss(qrels, plain), _peak_rss(qrels, long)
    assert b["peak"] - b["base"] <= 1.5 * max(a["peak"] - a["base"], 1) + 8 * 2**20, (a, b)
    assert b["peak"] <= 1.5 * a["peak"], (a, b)


@pytest.mark.slow
def test_300000_distinct_float_grades_evaluate_in_bounded_memory(tmp_path):
    """Grade handling costs O(judgements), never topics x distinct grades (1000 x 300,000 x 8 bytes = 2.4 GB)."""
    rng = np.random.default_rng(3)
    n_topics, per = 1000, 300
    grades = rng.permutation(300_000) / 300_000 + 0.5  # 300,000 distinct floats
    qrels = tmp_path / "qrels.txt"
    with open(qrels, "w") as f:
        for t in range(n_topics):
            for i in range(per):
                f.write(f"q{t} 0 d{i} {float(grades[t * per + i])!r}\n")
    run = tmp_path / "run"
    _write_run(run, [(f"q{t}", f"d{i}", i + 1, 500.0 - i) for t in range(n_topics) for i in range(0, 400, 2)])
    m = _peak_rss(qrels, run)
    assert 0 < m["mean"] <= 1
    assert m["peak"] - m["base"] < 600 * 2**20, m


def test_judged_sums_agree_dense_and_sparse(monkeypatch):
    q, r = cwla.synthetic.collection(seed=4)
    col = cwla.prepare(q, r)
    weights = np.random.default_rng(1).random((3, len(col.grades)))
    dense = col.judged_sums(weights)
    monkeypatch.setattr(C, "DENSE_GRADES", 0)
    sparse = col.judged_sums(weights)
    assert np.allclose(dense, sparse, rtol=1e-14, atol=0)
    counts = np.zeros((len(col.topics), len(col.grades)))
    np.add.at(counts, (col.count_topic, col.count_code), col.count)
    assert np.allclose(dense, weights @ counts.T, rtol=1e-14, atol=0)


@pytest.mark.parametrize("change, message", [
    (lambda c: {"codes": np.where(c.codes == 0, 99, c.codes).astype(np.int32)},
     r"invalid Collection: grade codes must lie in 0\.\.4 \(n_grades = unjudged\); found 1\.\.99"),
    (lambda c: {"codes": c.codes[:5]}, r"invalid Collection: every cell must lie inside codes \(length 5\)"),
    (lambda c: {"starts": c.starts - 1}, r"invalid Collection: starts must be >= 0"),
    (lambda c: {"lengths": c.lengths[:-1]}, r"starts and lengths must have one entry per \(run, topic\) cell"),
    (lambda c: {"count_code": c.count_code + 10}, r"count_code must lie in 0\.\.3"),
    (lambda c: {"codes": c.codes.astype(float)}, r"codes must be integers \(got float64\)"),
    (lambda c: {"codes": list(c.codes)}, r"codes must be a 1-d NumPy array"),
])
def test_evaluate_refuses_an_inconsistent_hand_built_collection(change, message):
    q, r = cwla.synthetic.collection(seed=2)
    col = cwla.prepare(q, r)
    assert col.grades.tolist() == [0, 1, 2, 3]
    bad = attrs.evolve(col, **change(col))
    with pytest.raises(InputError, match=message):
        cwla.evaluate(bad, None, ["nDCG@10"])


def test_a_qrels_topic_named_all_is_refused(tmp_path):
    path = tmp_path / "q.txt"
    _write_qrels(path, [("q1", "a", 1), ("all", "b", 1)])
    with pytest.raises(InputError, match=r"q.txt, line 2: a qrels topic is named 'all', the name trec_eval's and "
                                         r"cwla's per-topic outputs give the mean over topics; rename the topic"):
        cwla.read_qrels(path)
    with pytest.raises(InputError, match=r"qrels DataFrame, row 1: a qrels topic is named 'all'"):
        cwla.read_qrels(pd.DataFrame({"topic": ["q1", "all"], "docno": ["a", "b"], "grade": [1, 1]}))


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_docnos_that_differ_only_after_a_nul_byte_are_an_error(tmp_path, kind):
    path = tmp_path / kind
    if kind == "qrels":
        path.write_bytes(b"q1 0 a\x00x 1\nq1 0 b 0\nq1 0 a\x00y 0\n")
        read = cwla.read_qrels
    else:
        path.write_bytes(b"q1 Q0 a\x00x 1 2.0 t\nq1 Q0 b 2 1.5 t\nq1 Q0 a\x00y 3 1.0 t\n")
        read = cwla.read_runs
    with pytest.raises(InputError, match=rf"{kind}, line 3: docnos 'a\\x00y' and 'a\\x00x' of topic 'q1' differ only "
                                         r"after a NUL byte, where trec_eval \(which compares docnos as C strings\) "
                                         r"sees one docno twice; remove the NUL bytes \(line 1\)"):
        read([path] if kind == "run" else path)
    # a NUL byte alone is data, as any other byte
    path.write_bytes(path.read_bytes().replace(b"a\x00y", b"c"))
    read([path] if kind == "run" else path)


def test_run_set_order_and_ties_are_remembered(small, tmp_path):
    qrels, _ = small
    run = tmp_path / "up"
    _write_run(run, [("q2", "c", 1, 1.0), ("q1", "a", 1, 0.5), ("q1", "b", 2, 0.7), ("q2", "x", 2, 2.0)])
    runs = [run]
    assert cwla.read_runs(runs).frame("up")["docno"].tolist() == ["b", "a", "x", "c"]
    rs = cwla.read_runs(runs, order="file")
    assert rs.frame("up")["docno"].tolist() == ["a", "b", "c", "x"]  # topics sorted, each in file order
    with pytest.raises(ValueError, match=r"read with order='file'; read them again with read_runs\(\.\.\., "
                                         r"order='trec_eval'\)"):
        cwla.prepare(qrels, rs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cwla.prepare(qrels, rs, order="file").runs == ("up",)


def test_prepared_run_set_costs_at_most_24_bytes_per_document():
    q, r = cwla.synthetic.collection(seed=5, n_topics=40, n_runs=6, depth=200)
    rs = cwla.read_runs(r)
    n = sum(len(d) for d in rs.doc_ids)
    per_doc = (sum(a.nbytes for a in rs.doc_ids) + sum(a.nbytes for a in rs.scores) + rs.lengths.nbytes) / n
    assert per_doc <= 8.5
    col = cwla.prepare(q, rs)
    assert (col.codes.nbytes + col.starts.nbytes + col.lengths.nbytes) / n <= 8


def test_pair_tables_that_outgrow_their_room_give_the_same_run_set(monkeypatch):
    """Without room reserved up front the tables fill ``slots`` mid-run; interning resumes where it stopped."""
    q, r = cwla.synthetic.collection(seed=6, n_topics=50, n_runs=5, depth=300)
    expected = cwla.read_runs(r)
    calls = []
    original = cwla.data._pairs._insert_run

    def counting(*args):
        out = original(*args)
        calls.append(out[2])
        return out

    monkeypatch.setattr(cwla.data._pairs._Shard, "reserve", lambda self, rows, n_bytes: None)
    monkeypatch.setattr(cwla.data._pairs, "_insert_run", counting)
    grown = cwla.read_runs(r)
    assert -2 in calls  # the room ran out at least once
    assert all(np.array_equal(a, b) for a, b in zip(grown.doc_ids, expected.doc_ids))
    assert grown.docnos.tolist() == expected.docnos.tolist()
    assert np.array_equal(grown.pair_starts, expected.pair_starts)
    assert np.array_equal(cwla.evaluate(q, grown, ["nDCG@10"]).values, cwla.evaluate(q, expected, ["nDCG@10"]).values)


def _same_run_set(a, b):
    assert a.names == b.names and a.topics == b.topics
    assert np.array_equal(a.pair_starts, b.pair_starts) and np.array_equal(a.lengths, b.lengths)
    assert a.docnos.tolist() == b.docnos.tolist() and np.array_equal(a.docnos.hashes, b.docnos.hashes)
    assert all(np.array_equal(x, y) for x, y in zip(a.doc_ids, b.doc_ids))
    assert all(np.array_equal(x, y) for x, y in zip(a.scores, b.scores))


def test_the_run_set_is_the_same_whatever_the_thread_count(tmp_path):
    """Threads intern their runs into shared shards in whatever order they come; freezing orders the pairs
    by topic, hash and bytes, so the ids do not depend on it."""
    q, r = cwla.synthetic.collection(seed=11, n_topics=60, n_runs=9, depth=150)
    _, files = cwla.synthetic.write_trec(q, r, tmp_path)
    one = cwla.read_runs(files, workers=1)
    for workers in (2, 3, 8):
        _same_run_set(one, cwla.read_runs(files, workers=workers))
    _same_run_set(one, cwla.read_runs(r))  # frames: the careful reader, the same store
    # a topic's pairs are in hash order, equal hashes by bytes
    for t in range(len(one.topics)):
        h = one.docnos.hashes[one.pair_starts[t]:one.pair_starts[t + 1]]
        assert np.all(h[1:] >= h[:-1])


def test_pairs_with_equal_hashes_are_ordered_by_bytes(monkeypatch):
    """Freezing does not depend on the order pairs were found in, even where 64-bit hashes collide."""
    pairs = cwla.data._pairs
    builder = pairs._Shard()
    blob = np.frombuffer(b"zzzyyyxxx", dtype=np.uint8)
    docnos = pairs.Docnos(blob, np.array([0, 3, 6]), np.array([3, 6, 9]), np.zeros(3, dtype=np.uint64))
    ids = np.empty(3, dtype=np.int32)
    assert builder.add(0, ["t"], np.array([0]), np.array([3]), np.arange(3, dtype=np.int32), docnos, 9, ids) == -1
    starts, new_id = builder.freeze(["t"])
    assert starts.tolist() == [0, 3] and new_id.tolist() == [2, 1, 0]  # xxx, yyy, zzz


def test_one_scratch_workspace_reads_files_of_any_length(tmp_path):
    """A reader thread reuses its scratch arrays from file to file: a long file, then a short one, then a
    long one read through one workspace give what each gives alone."""
    from cwla.data._tokenize import Workspace, read_run_file

    q, r = cwla.synthetic.collection(seed=12, n_topics=20, n_runs=3, depth=300)
    r["short"] = r[next(iter(r))].head(7)
    _, files = cwla.synthetic.write_trec(q, r, tmp_path)
    workspace = Workspace()
    for path in files + files[::-1]:
        shared, alone = read_run_file(path, "float32", workspace), read_run_file(path, "float32")
        assert shared.topics == alone.topics
        for field in ("topic_ids", "doc_starts", "doc_ends", "doc_hashes", "scores"):
            assert np.array_equal(getattr(shared, field), getattr(alone, field))


@pytest.mark.parametrize("shuffle", ["reversed", "ties swapped", "random"])
def test_rankings_in_any_input_order_get_trec_eval_order(tmp_path, shuffle):
    """The insertion sort (input nearly in order) and the merge sort (far from it) give trec_eval's order:
    score descending, docno descending."""
    rng = np.random.default_rng(3)
    docnos = [f"d{i:04d}" for i in range(400)]
    scores = np.round(rng.uniform(0, 5, 400), 1)  # many ties
    expected = sorted(zip(scores.tolist(), docnos), reverse=True)
    rows = list(expected)
    if shuffle == "reversed":
        rows = rows[::-1]
    elif shuffle == "ties swapped":
        rows = sorted(rows, key=lambda sd: (-sd[0], sd[1]))  # each tie in ascending docno order
    else:
        rows = [rows[i] for i in rng.permutation(len(rows))]
    path = tmp_path / "run"
    _write_run(path, [("q1", d, k + 1, s) for k, (s, d) in enumerate(rows)])
    assert cwla.read_runs([path]).frame("run")["docno"].tolist() == [d for _, d in expected]


def _judgements_equal(a, b):
    assert a.topics == b.topics and np.array_equal(a.grades, b.grades)
    assert a.docnos.tolist() == b.docnos.tolist()
    for field in ("topic", "doc", "code", "count_topic", "count_code", "count"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field


def test_the_fast_qrels_reader_gives_what_the_careful_reader_gives(tmp_path):
    path = tmp_path / "qrels"
    path.write_text("q2 0 b 1\n\nq1 0 a 2\nq10 Q0 a 0.5\t\nq1 0 c -1\n  q2 0 a 3e0\nq1 0 z 1.000000000000000000001\n")
    fast = C.Judgements.of(path)
    _judgements_equal(fast, C.Judgements.from_frame(cwla.read_qrels(path)))
    assert fast.topics == ("q1", "q10", "q2") and fast.grades.tolist() == [-1, 0.5, 1, 2, 3]


@pytest.mark.parametrize("text, message", [
    ("q1 0 a 1\n# a comment\nq1 0 b 0\n", None),  # the careful reader skips comment lines
    ("q1 0 a 1\nq1 0 a 0\n", r"line 2: docno 'a' appears twice for topic 'q1' \(first at line 1\)"),
    ("q1 0 a 1\nall 0 b 1\n", r"line 2: a qrels topic is named 'all'"),
    ("q1 0 a 1 x\n", r"line 1: expected 4 columns \(qid iter docno grade\), found 5"),
    ("q1 0 a\n", r"line 1: expected 4 columns \(qid iter docno grade\), found 3"),
    ("q1 0 a nan\n", r"line 1: "),
    ("q1 0 \xe9 1\n", None),  # non-ASCII: the careful reader
])
def test_qrels_the_fast_reader_leaves_to_the_careful_reader(tmp_path, text, message):
    path = tmp_path / "qrels"
    path.write_bytes(text.encode("utf-8"))
    if message is None:
        _judgements_equal(C.Judgements.of(path), C.Judgements.from_frame(cwla.read_qrels(path)))
    else:
        with pytest.raises(InputError, match=message):
            C.Judgements.of(path)


def test_the_group_budget_follows_the_machine_and_can_be_set(monkeypatch):
    budget = cwla.data.runset.group_bytes()
    assert 2**28 <= budget <= 2**33
    monkeypatch.setattr(cwla.data.runset, "GROUP_BYTES", 12345)
    assert cwla.data.runset.group_bytes() == 12345


@pytest.mark.skipif(not os.path.exists("/dev/fd"), reason="needs /dev/fd (a pipe as a path)")
def test_run_and_qrels_files_can_be_pipes(small):
    """``cwla eval <(zcat qrels.gz) <(zcat run.gz)``: a pipe has no size and cannot seek; it is read whole."""
    qrels, runs = small
    expected = cwla.evaluate(qrels, runs[:1], ["nDCG@10"]).values

    def pipe(path):
        read, write = os.pipe()
        data = path.read_bytes()
        threading.Thread(target=lambda: (os.write(write, data), os.close(write))).start()
        return f"/dev/fd/{read}"

    got = cwla.evaluate(pipe(qrels), {"r1": pipe(runs[0])}, ["nDCG@10"]).values
    assert np.array_equal(got, expected)


@pytest.mark.parametrize("column", ["topic", "docno"])
def test_a_lone_surrogate_in_a_frame_is_a_clear_error(column):
    row = {"topic": "1", "docno": "a", "score": 1.0}
    row[column] = "x\ud800"
    with pytest.raises(InputError, match=rf"run {column} 'x\\ud800' \(row 0 by position\) is not text UTF-8 can "
                                         r"encode \(a lone surrogate\)"):
        cwla.read_runs([pd.DataFrame([row])])
    with pytest.raises(InputError, match=rf"qrels {column} 'x\\ud800'"):
        cwla.read_qrels(pd.DataFrame([{**row, "grade": 1}]).drop(columns="score"))


def test_a_store_with_pair_ids_out_of_range_is_refused(tmp_path):
    import cwla

    qrels, runs = cwla.synthetic.collection(n_topics=4, n_runs=2, seed=5)
    folder = cwla.read_runs(runs).save(tmp_path / "store")
    ids = np.load(folder / "doc_ids.npy")
    ids[0] = 10**8  # past the last pair
    np.save(folder / "doc_ids.npy", ids)
    with pytest.raises(cwla.InputError, match="doc_ids.npy was changed after the store was written"):
        cwla.open_runs(folder)
    with pytest.raises(cwla.InputError, match=r"doc_ids.npy holds pair ids outside \[0, "):
        cwla.open_runs(folder, verify=False)  # unverified, the structure is still checked
