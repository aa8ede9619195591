"""Run files read a block at a time (issue 36): the blocks are the file's text, and a run read in small
blocks is the run read whole, bit for bit."""

from __future__ import annotations

import gzip
import os
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cwla
import cwla.data.runset as runset
from cwla.data.files import UTF8_BOM, read_bytes, text_blocks
from cwla.errors import InputError


def _blocks(path, size: int) -> list[bytes]:
    return [bytes(block) for block in text_blocks(path, "run", block_bytes=size)]


LINES = b"".join(b"q%d Q0 doc%d %d %d.5 tag\n" % (i % 7, i, i, 1000 - i) for i in range(400))


@pytest.mark.parametrize("size", [1, 7, 64, 1000, 2**20])
@pytest.mark.parametrize("compress", [False, True])
def test_blocks_are_whole_lines_that_join_to_the_text(tmp_path, size, compress):
    text = UTF8_BOM + LINES + b"q9 Q0 last 1 1 no-newline"
    path = tmp_path / "run"
    path.write_bytes(gzip.compress(text) if compress else text)
    blocks = _blocks(path, size)
    assert b"".join(blocks) == text[len(UTF8_BOM):] == read_bytes(path, "run")
    assert all(block.endswith(b"\n") for block in blocks[:-1])
    assert all(len(block) <= max(size, 64) for block in blocks if block.count(b"\n") > 1)


def test_a_line_longer_than_the_block_is_one_block(tmp_path):
    long = b"q1 Q0 " + b"d" * 5000 + b" 1 1.0 tag\n"
    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 a 1 2 t\n" + long + b"q1 Q0 b 3 0.5 t\n")
    blocks = _blocks(path, 100)
    assert blocks[0] == b"q1 Q0 a 1 2 t\n" and blocks[1].startswith(long)
    assert b"".join(blocks) == path.read_bytes() and all(block.endswith(b"\n") for block in blocks)


def test_gzip_shapes_block_by_block_as_gzip_decompress(tmp_path):
    """Several members, zero padding after and between members, an empty member: the same text as
    gzip.decompress, in blocks of any size; a truncated file and trailing junk refused with read_bytes' words."""
    a, b = gzip.compress(LINES[:3000]), gzip.compress(LINES[3000:])
    for name, data in {"members": a + b, "padding": a + b"\0" * 7, "padding between": a + b"\0" * 3 + b,
                       "empty member": gzip.compress(b"") + a}.items():
        path = tmp_path / f"{name}.gz"
        path.write_bytes(data)
        for size in (50, 4096):
            assert b"".join(_blocks(path, size)) == gzip.decompress(data), (name, size)
    for name, data in {"truncated": a[:-3], "trailing": a + b"junk"}.items():
        path = tmp_path / f"{name}.gz"
        path.write_bytes(data)
        with pytest.raises(InputError, match="starts like a gzip file but cannot be decompressed"):
            _blocks(path, 4096)


def test_a_gzip_bomb_is_refused_block_by_block(tmp_path, monkeypatch):
    """The bomb limit of read_bytes holds for blocks: past 100x the compressed size (the 64 MiB floor
    lowered here), the same message."""
    import cwla.data.files as files

    monkeypatch.setattr(files, "_RATIO_FROM", 2**16)
    path = tmp_path / "bomb.gz"
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    path.write_bytes(compressor.compress(b"q1 Q0 d1 1 1.0 r\n" * 200_000) + compressor.flush())
    with pytest.raises(InputError, match="refused as a gzip bomb"):
        _blocks(path, 2**16)


def test_missing_file_and_folder_as_read_bytes(tmp_path):
    with pytest.raises(FileNotFoundError, match="run file does not exist"):
        _blocks(tmp_path / "nothing", 100)
    with pytest.raises(InputError, match="is a directory"):
        _blocks(tmp_path, 100)


def _same(a: cwla.RunSet, b: cwla.RunSet) -> None:
    assert a.names == b.names and a.topics == b.topics
    assert a.docnos.tolist() == b.docnos.tolist()
    np.testing.assert_array_equal(a.docnos.hashes, b.docnos.hashes)
    np.testing.assert_array_equal(a.pair_starts, b.pair_starts)
    np.testing.assert_array_equal(a.lengths, b.lengths)
    for x, y in zip(a.doc_ids + a.scores, b.doc_ids + b.scores):
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)


line = st.tuples(st.sampled_from(["q1", "q2", "q10", "t"]), st.integers(0, 30), st.sampled_from(["1", "1.5", "2", "-3e1"]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(runs=st.lists(st.lists(line, min_size=1, max_size=60, unique_by=lambda x: x[:2]), min_size=1, max_size=3),
       size=st.integers(1, 300), ties=st.sampled_from(["float32", "float64"]), order=st.sampled_from(["trec_eval", "file"]))
def test_a_run_read_in_small_blocks_is_the_run_read_whole(tmp_path, monkeypatch, runs, size, ties, order):
    """Topics interleaved or grouped, ties on scores, blocks cutting topics anywhere: the RunSet is the one
    read in a single block."""
    paths = []
    for r, rows in enumerate(runs):
        path = tmp_path / f"run{r}"
        path.write_text("".join(f"{t} Q0 d{d} {k} {s} tag\n" for k, (t, d, s) in enumerate(rows)))
        paths.append(path)
    whole = cwla.read_runs(paths, ties=ties, order=order)
    monkeypatch.setattr(runset, "BLOCK_BYTES", size)
    _same(cwla.read_runs(paths, ties=ties, order=order), whole)


def test_a_docno_twice_in_two_blocks_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "run"
    path.write_text("q1 Q0 a 1 3 t\n" + "".join(f"q1 Q0 x{i} {i + 2} 2 t\n" for i in range(50)) + "q1 Q0 a 99 1 t\n")
    monkeypatch.setattr(runset, "BLOCK_BYTES", 64)
    with pytest.raises(InputError, match="line"):  # the careful reader's words: the file and the lines
        cwla.read_runs([path])


def test_a_block_the_fast_path_leaves_is_read_carefully_without_a_false_duplicate(tmp_path, monkeypatch):
    """A non-ASCII docno in the last block sends the whole run to the careful reader after the earlier blocks
    were interned: the run is read as a whole file is, not refused for its docnos seen twice."""
    path = tmp_path / "run"
    text = "".join(f"q1 Q0 d{i} {i + 1} {100 - i} t\n" for i in range(60)) + "q1 Q0 déjà 61 0.5 t\n"
    path.write_text(text, encoding="utf-8")
    whole = cwla.read_runs([path])
    monkeypatch.setattr(runset, "BLOCK_BYTES", 100)
    blocks = cwla.read_runs([path])
    _same(blocks, whole)
    assert "déjà" in blocks.docnos.tolist()


def test_reading_keeps_a_bounded_working_set(tmp_path, monkeypatch):
    """A 19 MB run read in 1 MiB blocks: the peak of the memory NumPy and Python allocate (tracemalloc) is lower
    than when the run is read in one block by more than the text's size (the text, and the arrays scanned
    from it, live a block at a time)."""
    import tracemalloc

    path = tmp_path / "run"
    with open(path, "w") as f:
        for t in range(100):
            f.write("".join(f"topic{t} Q0 document{t:04d}{d:06d} {d + 1} {1000 - d}.25 tag\n" for d in range(4000)))
    size = os.path.getsize(path)
    cwla.read_runs([path])  # kernels loaded

    def peak(block_bytes: int) -> int:
        monkeypatch.setattr(runset, "BLOCK_BYTES", block_bytes)
        tracemalloc.start()
        try:
            cwla.read_runs([path])
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak(2**30) - peak(2**20) > size
