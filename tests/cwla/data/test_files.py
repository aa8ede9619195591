"""The one opener of text files (gzip, byte-order mark, pipes) and its errors."""

import gzip
import os

import numpy as np
import pytest

import cwla
import cwla.bridges.cwl
import discpower
from cwla.data.files import read_array, read_bytes, text_fields, text_lines, text_size
import re
import stat
from cwla.data.files import atomic_write, atomic_write_text, check_outputs
from cwla.errors import InputError


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


def test_text_fields_hold_a_file_to_its_columns(tmp_path):
    path = tmp_path / "costs.txt"
    path.write_text("doc 1.5\n\nimage  2\n")
    assert list(text_fields(path, "cwl_eval cost", "element_type cost")) == [(1, ["doc", "1.5"]), (3, ["image", "2"])]
    path.write_text("doc 1.5\nimage\n")
    with pytest.raises(cwla.InputError, match=r"costs.txt, line 2: expected 2 columns \(element_type cost\), found 1"):
        list(text_fields(path, "cwl_eval cost", "element_type cost"))
    path.write_text("doc abc\nimage\n")  # line by line: the first bad line is reported, whatever is wrong with it
    with pytest.raises(cwla.InputError, match=r"costs.txt, line 1: the cost 'abc' is not a number"):
        cwla.bridges.cwl.read_cost_file(path)


def test_check_outputs_refuses_an_input_naming_both(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d 1\n")
    with pytest.raises(InputError, match=re.escape(f"--pairs {qrels} is the --truth file {qrels}: writing it "
                                                   f"would destroy an input; give another output file")):
        check_outputs([("--pairs", qrels)], [("--truth", qrels)])


def test_check_outputs_sees_other_spellings_and_links(tmp_path):
    run = tmp_path / "run1"
    run.write_text("1 Q0 d 1 1.0 r\n")
    (tmp_path / "sub").mkdir()
    os.symlink(run, tmp_path / "link")
    for spelling in (tmp_path / "sub" / ".." / "run1", tmp_path / "link"):
        with pytest.raises(InputError, match="is the RUN file"):
            check_outputs([("--pairs", str(spelling))], [("RUN", str(run))])


def test_check_outputs_skips_stdout_none_and_new_files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d 1\n")
    check_outputs([("--pairs", "-"), ("--pairs", None), ("--pairs", tmp_path / "new.tsv")],
                  [("--truth", qrels), ("frame", object())])


def test_check_outputs_refuses_a_folder_or_a_file_as_folder(tmp_path):
    with pytest.raises(InputError, match=re.escape(f"--pairs {tmp_path} is a folder: give a file name")):
        check_outputs([("--pairs", tmp_path)], [])
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError, match=re.escape(f"cannot write --figures {tmp_path / 'f' / 'asl.png'}: "
                                                   f"{tmp_path / 'f'} is a file, not a folder")):
        check_outputs([("--figures", tmp_path / "f" / "asl.png")], [])


def test_atomic_write_replaces_whole_and_keeps_the_mode(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old\n")
    path.chmod(0o640)
    atomic_write_text(path, "new\n")
    assert path.read_text() == "new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["out.txt"]


def test_atomic_write_error_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_write(path) as fh:
            fh.write("half")
            raise RuntimeError("disk full")
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_atomic_write_follows_a_link(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("old\n")
    os.symlink(target, tmp_path / "link.txt")
    atomic_write_text(tmp_path / "link.txt", "new\n")
    assert (tmp_path / "link.txt").is_symlink() and target.read_text() == "new\n"


def test_atomic_write_errors_name_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="folder .* does not exist") as info:
        atomic_write_text(tmp_path / "nope" / "x.txt", "x")
    assert info.value.filename == str(tmp_path / "nope" / "x.txt")
    with pytest.raises(IsADirectoryError, match="is a folder"):
        atomic_write_text(tmp_path, "x")
