"""The one opener of text files (gzip, byte-order mark, pipes) and its errors."""

import gzip
import os

import numpy as np
import pytest

import cwla
import discpower
from cwla.data.files import read_array, read_bytes, text_lines, text_size


def test_plain_gzip_and_bom_read_the_same(tmp_path):
    text = "q1 0 d1 1\nq1 0 d2 0\n".encode()
    plain, packed, marked = tmp_path / "plain", tmp_path / "packed.txt", tmp_path / "marked"
    plain.write_bytes(text)
    packed.write_bytes(gzip.compress(b"\xef\xbb\xbf" + text))
    marked.write_bytes(b"\xef\xbb\xbf" + text)
    for path in (plain, packed, marked):
        assert bytes(read_bytes(path, "qrels")) == text
        assert read_array(path, "qrels").tobytes() == text
    assert text_size(packed) == 4 * os.path.getsize(packed) and text_size(plain) == len(text)


def test_a_pipe_is_read_whole(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    pid = os.fork()
    if pid == 0:  # the writer
        with open(fifo, "wb") as f:
            f.write(b"a b\n" * 1000)
        os._exit(0)
    data = read_array(fifo, "run", allocate=lambda n: np.empty(n, dtype=np.uint8))
    os.waitpid(pid, 0)
    assert data.tobytes() == b"a b\n" * 1000


def test_errors_name_the_file_and_what_was_expected(tmp_path):
    with pytest.raises(FileNotFoundError, match="qrels file does not exist .expected a path to a TREC qrels file"):
        read_bytes(tmp_path / "none", "qrels", layout="qid iter docno grade")
    with pytest.raises(cwla.InputError, match="is a directory, not a TREC run file"):
        read_bytes(tmp_path, "run", layout="qid Q0 docno rank score tag")
    broken = tmp_path / "broken.gz"
    broken.write_bytes(b"\x1f\x8b" + b"not gzip")
    with pytest.raises(discpower.DiscpowerError, match="starts like a gzip file but cannot be decompressed"):
        read_bytes(broken, "matrix", error=discpower.DiscpowerError)


def test_text_lines_name_a_line_that_is_not_utf8(tmp_path):
    path = tmp_path / "metrics.txt"
    path.write_bytes(b"RBPCWLMetric(0.8)\n\n\xe9t\xe9\n")
    with pytest.raises(cwla.InputError, match=r"metrics.txt, line 3: not valid UTF-8 text"):
        text_lines(path, "cwl_eval metrics")
    path.write_bytes(b"a\n\n b \r\nc")
    assert text_lines(path, "x") == [(1, "a"), (3, " b "), (4, "c")]
