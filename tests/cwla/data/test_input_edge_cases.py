"""Edge cases of reading runs: the bulk file path and the careful reader must agree
(accept the same files, give the same numbers, raise the same errors)."""

import gzip
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import cwla
from cwla import InputError

QRELS = "1 0 d1 1\n1 0 d2 0\n"


@pytest.fixture
def qrels(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text(QRELS)
    return path


def _both(qrels, run_path, metric="AP"):
    """Scores via the file (bulk path) and via read_run (DataFrame path)."""
    from_file = cwla.evaluate(qrels, [run_path], [metric]).values
    from_frame = cwla.evaluate(qrels, {run_path.name: cwla.read_run(run_path)}, [metric]).values
    return from_file, from_frame


def test_byte_order_mark_is_ignored(qrels, tmp_path):
    run = tmp_path / "bom.txt"
    run.write_bytes(b"\xef\xbb\xbf1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n")
    a, b = _both(qrels, run)
    assert a.tolist() == b.tolist() == [[[1.0]]]


@pytest.mark.parametrize("content, message", [
    (b"1 Q0 d1 1 1_0 t\n", "line 1: score '1_0' is not a number"),
    (b"1 Q0 d1 1 nan t\n", "line 1: score 'nan' is not a finite number"),
    (b"1 Q0 d1 99999999999999999999999 1 t\n", "line 1: rank '99999999999999999999999' is out of the 64-bit"),
    (b"1 Q0 d\xff 1 1.0 t\n", "line 1: not valid UTF-8 text"),
    (b"1 Q0 d1 1 2.0\rt\n", "line 1: expected 6 columns"),
])
def test_bulk_path_rejects_what_the_reader_rejects(qrels, tmp_path, content, message):
    run = tmp_path / "run.txt"
    run.write_bytes(content)
    with pytest.raises(InputError, match=re.escape(message)):
        cwla.read_run(run)
    with pytest.raises(InputError, match=re.escape(message)):
        cwla.evaluate(qrels, [run], ["AP"])


def test_non_ascii_docnos_and_long_docnos_agree_across_paths(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text("é 0 clueweb12-0000tw-00-00001 1\né 0 ü 2\né 0 clueweb12-0000tw-00-00002 0\n", encoding="utf-8")
    run = tmp_path / "run.txt"
    run.write_text("é Q0 clueweb12-0000tw-00-00002 1 1.0 t\né Q0 ü 2 1.0 t\né Q0 clueweb12-0000tw-00-00001 3 0.5 t\n",
                   encoding="utf-8")
    a, b = _both(q, run, "nDCG@3")
    assert a.tolist() == b.tolist()
    # tie at 1.0: docno descending bytewise puts 'ü' (0xC3 0xBC, grade 2) before 'clueweb...-2' (grade 0)
    assert a[0, 0, 0] == pytest.approx((2 + 1 / 2) / (2 + 1 / np.log2(3)))


def test_truncated_gzip_is_a_clear_error(qrels, tmp_path):
    data = gzip.compress(b"1 Q0 d1 1 1 t\n" * 100)
    run = tmp_path / "t.gz"
    run.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="starts like a gzip file but cannot be decompressed"):
        cwla.evaluate(qrels, [run], ["AP"])


def test_duplicate_in_an_unjudged_topic_is_an_error_on_both_paths(qrels, tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 1 t\n9 Q0 z 1 1 t\n9 Q0 z 2 1 t\n")
    message = "line 3: docno 'z' appears twice for topic '9' (first at line 2)"
    with pytest.raises(InputError, match=re.escape(message)):
        cwla.evaluate(qrels, [run], ["AP"])
    with pytest.raises(InputError, match="docno 'z' appears twice for topic '9'"):
        cwla.evaluate(qrels, {"r": pd.read_csv(run, sep=" ", header=None,
                                               names=["topic", "q", "docno", "rank", "score", "tag"])}, ["AP"])


def test_float_topic_ids_in_a_dataframe_are_converted_one_by_one():
    frame = pd.DataFrame({"topic": [1.0, 2.0, 10.5], "docno": ["a", "b", "c"], "score": [1.0, 1.0, 1.0]})
    assert cwla.read_run(frame)["topic"].tolist() == ["1", "2", "10.5"]


def test_run_without_a_common_topic_warns(qrels, tmp_path):
    run = tmp_path / "other.txt"
    run.write_text("q1 Q0 d1 1 1 t\n")
    with pytest.warns(cwla.CwlaWarning, match=re.escape("run 'other.txt' retrieves for none of the 1 qrels topics (its topics: q1; qrels topics: 1)")):
        ev = cwla.evaluate(qrels, [run], ["AP"])
    assert ev.values.tolist() == [[[0.0]]]


def test_metric_reaching_past_the_depth_warns(qrels, tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 1 t\n")
    with pytest.warns(cwla.CwlaWarning, match=re.escape("k = 10 exceeds the depth H = 5 and stop is off")):
        cwla.evaluate(qrels, [run], ["Precision(k=10)+ERG[depth=5]"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cwla.evaluate(qrels, [run], ["Precision(k=10)+ERG[depth=5, stop=true]"])


def test_gain_map_that_zeroes_every_grade_warns(qrels, tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 1 t\n")
    with pytest.warns(cwla.CwlaWarning, match=re.escape("gives every qrels grade (0, 1) gain 0")):
        cwla.evaluate(qrels, [run], ["P(rel=5)@10"])


def test_scores_beyond_float32_range_are_infinite_like_trec_eval_and_quiet(qrels, tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d2 1 1e39 t\n1 Q0 d1 2 1e38 t\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a, b = _both(qrels, run, "P@1")
    assert a.tolist() == b.tolist() == [[[0.0]]]


@pytest.mark.parametrize("make, error, message", [
    (lambda: cwla.Metric(cwla.RBP(), cwla.ERG(), depth=10**8), ValueError, "'depth' of a metric must be an integer >= 1 (at most 1,000,000)"),
    (lambda: cwla.INST(float("inf")), ValueError, "'T' of INST must be a finite number >= 0.25"),
    (lambda: cwla.Binary(0), ValueError, "'threshold' of binary must be > 0: 0.0"),
    (lambda: cwla.Precision("3"), TypeError, "'k' of Precision must be an integer in [1, 1,000,000]: '3'"),
    (lambda: cwla.Precision(10**400), ValueError, "'k' of Precision must be an integer in [1, 1,000,000]: 1000"),
    (lambda: cwla.parse_gain("table(0:0, 1:0.5, 1:1)"), ValueError, "table() lists grade 1 twice"),
    (lambda: cwla.parse_metric("SDCG(foo=1)@10"), ValueError,
     "^ accepted: SDCG(dcg=..., min_rel=..., max_rel=...)@k"),
    (lambda: cwla.parse_metric("ERR(x=3)@10"), ValueError, "ERR has no parameter 'x'"),
])
def test_values_out_of_the_usable_range_are_errors(make, error, message):
    with pytest.raises(error, match=re.escape(message)):
        make()


def test_cutoff_beyond_depth_is_harmless(qrels, tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d2 1 2 t\n1 Q0 d1 2 1 t\n")
    a = cwla.evaluate(qrels, [run], ["RBP(p=0.5)+ERG[cutoff=10000000000000000000000, depth=3]",
                                     "RBP(p=0.5)+ERG[depth=3]"]).values
    assert a[0].tolist() == a[1].tolist()
    # gains 0, 1, then 0 at the padded rank 3: sum L(i) cg(i) / E = (0.25 + 0.125) / 1.75
    np.testing.assert_allclose(a[0, 0, 0], 0.375 / 1.75)
