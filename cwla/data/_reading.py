"""Runs read a block at a time and interned as they are read; ranked once their pairs are numbered.

:func:`cwla.data.runset.read_named` reads each run file in blocks of whole lines
(:func:`cwla.data.files.text_blocks`, gzip decompressed as it goes), scans a block
(:func:`cwla.data._tokenize.scan_run_block`) and interns its (topic, docno) pairs at once
(:meth:`cwla.data._pairs.PairBuilder.add`), keeping per line only its pair id and score: the
text, and the arrays scanned from it, live one block at a time. A run is thus held in the
8 or 12 bytes a line it keeps in the :class:`cwla.RunSet`, plus a bounded working set.

Lines are kept in input order (a block whose topics are interleaved is grouped by topic,
stably); :func:`ranked` puts each (run, topic) ranking in trec_eval's order once the pairs are
numbered (:meth:`~cwla.data._pairs.PairBuilder.freeze`), breaking score ties by the docnos'
bytes as :func:`cwla.data._join.order_cells` always did: the rankings are the same as those of
a file read whole.
"""

from __future__ import annotations

import os

import attrs
import numpy as np

from ..errors import InputError
from ._docnos import Strings, read_only, strings_of
from ._join import group_by_cell, order_cells
from ._pairs import Docnos, PairBuilder
from ._tokenize import RunColumns, Workspace, scan_run_block
from .files import BLOCK_BYTES, text_blocks, text_size
from .readers import read_run
from .trec_format import RUN_LAYOUT

__all__ = ["Interned", "read_interned", "ranked"]


@attrs.frozen(eq=False)
class Interned:
    """One run as read and interned: per position, its pair id (numbered by the shards until
    :meth:`PairBuilder.freeze` renumbers them in place) and score; positions come in cells of one
    topic each, ``cell_labels[c]`` and ``cell_lengths[c]`` (a topic may have several cells)."""

    ids: np.ndarray  # int32
    scores: np.ndarray  # float32 or float64
    cell_labels: list
    cell_lengths: np.ndarray  # int64

    def cells(self) -> tuple:
        """``(labels, lengths, ids)``: what :meth:`PairBuilder.freeze` renumbers."""
        return self.cell_labels, self.cell_lengths, self.ids


class _Duplicate(Exception):
    """A run retrieves a docno twice for a topic (raised out of a block, then explained)."""

    def __init__(self, topic: str, docno: str):
        super().__init__(topic, docno)
        self.topic, self.docno = topic, docno


def _careful_columns(source, ties: str) -> RunColumns:
    """A run's columns by the careful reader (every accepted form, precise errors)."""
    frame = read_run(source)
    scores = frame["score"].to_numpy(np.float64)
    if ties == "float32":
        with np.errstate(over="ignore"):  # beyond float32 range: inf, as trec_eval's (float) cast
            scores = scores.astype(np.float32)
    topic_ids, topics = strings_of(frame["topic"].to_numpy())
    doc_ids, docnos = strings_of(frame["docno"].to_numpy())
    # the blob read-only, as a file's bytes are (cwla.data._docnos.read_only): one compiled kernel for both
    return RunColumns(topic_ids.astype(np.int32), topics.tolist(), read_only(docnos.blob),
                      docnos.offsets[doc_ids], docnos.offsets[doc_ids + 1], docnos.hashes[doc_ids], scores)


def _add_block(run: int, columns: RunColumns, pairs: PairBuilder, reserve: int, workspace: Workspace) -> tuple:
    """Intern the lines of ``columns`` as run ``run``: ``(ids, scores, cell labels, cell lengths)``, copies
    that outlive the block. Raises :class:`_Duplicate`."""
    topic_ids, n = columns.topic_ids, len(columns.topic_ids)
    if n == 0:  # an empty run (the careful reader warned)
        return np.empty(0, dtype=np.int32), columns.scores.copy(), [], np.empty(0, dtype=np.int64)
    change = np.flatnonzero(topic_ids[1:] != topic_ids[:-1]) + 1
    if len(change) < 4 * len(columns.topics):  # grouped by topic (or nearly): the cells in input order
        rows = np.arange(n, dtype=np.int32)
        bounds = np.concatenate([[0], change, [n]]).astype(np.int64)
        lengths = np.diff(bounds)
        cell_topics = topic_ids[bounds[:-1]].tolist()
        scores = columns.scores.copy()
    else:  # interleaved topics: grouped, stably (input order within a topic)
        rows = workspace.array("rows", n, np.int32)
        m = len(columns.topics)
        _, lengths = group_by_cell(topic_ids, np.arange(m, dtype=np.int64), m, rows)
        cell_topics = list(range(m))
        scores = columns.scores[rows]
    labels = [columns.topics[t] for t in cell_topics]
    docnos = Docnos(columns.blob, columns.doc_starts, columns.doc_ends, columns.doc_hashes)
    ids, duplicate = pairs.add(run, labels, lengths, rows, docnos, reserve)
    if duplicate >= 0:
        cell = int(np.searchsorted(np.cumsum(lengths), duplicate, side="right"))
        raise _Duplicate(labels[cell], docnos[int(rows[duplicate])])
    return ids, scores, labels, lengths


def _joined(parts: list) -> Interned:
    """One run's blocks (``_add_block``'s results, at least one) as one :class:`Interned`."""
    ids, scores, labels, lengths = zip(*parts)
    return Interned(np.concatenate(ids), np.concatenate(scores), [label for part in labels for label in part],
                    np.concatenate(lengths))


def _fast_blocks(run: int, path, ties: str, pairs: PairBuilder, n_runs: int, workspace: Workspace,
                 block_bytes: int) -> Interned | None:
    """A run file read block by block by the fast path, or None where a block needs the careful reader."""
    size = text_size(path) if os.path.isfile(path) else block_bytes
    # a shard still empty makes room for a few runs like this one (a guess; more grows the tables)
    reserve = max(1, -(-size // block_bytes)) * min(n_runs, 4)
    parts = []
    for block in text_blocks(path, "run", layout=RUN_LAYOUT, block_bytes=block_bytes):
        columns = scan_run_block(block, ties, workspace)
        if columns is None:
            return None
        parts.append(_add_block(run, columns, pairs, reserve, workspace))
    return _joined(parts) if parts else None


def read_interned(run: int, name: str, source, ties: str, pairs: PairBuilder, n_runs: int, workspace: Workspace,
                  block_bytes: int = BLOCK_BYTES) -> Interned:
    """Run ``run`` of ``n_runs`` (named ``name``) read and interned into ``pairs``: a file by the fast path
    a block at a time; anything else, or a file the fast path leaves, by the careful reader (which names
    the file, line and problem). Raises :class:`InputError` for a docno retrieved twice for a topic."""
    try:
        if isinstance(source, (str, os.PathLike)):
            interned = _fast_blocks(run, source, ties, pairs, n_runs, workspace, block_bytes)
            if interned is not None:
                return interned
            # the careful reader reads it again: under another number, so that the pairs the blocks read
            # before it stopped do not count as retrieved twice
            run += n_runs
        columns = _careful_columns(source, ties)
        return _joined([_add_block(run, columns, pairs, min(n_runs, 4), workspace)])
    except _Duplicate as duplicate:
        read_run(source)  # the careful reader names the file and the lines
        raise InputError(f"run {name!r}: docno {duplicate.docno!r} appears twice for topic "
                         f"{duplicate.topic!r}") from None


def ranked(interned: Interned, order: str, docnos: Strings) -> tuple:
    """``(topics, lengths, doc_ids, scores)`` of a run whose pair ids are numbered (``docnos``: the frozen
    pairs): its topics sorted, each one's ranking length, and the rankings back to back in ``order``
    (``"trec_eval"``: score descending, docno descending; ``"file"``: input order)."""
    labels = sorted(set(interned.cell_labels))
    position = {label: i for i, label in enumerate(labels)}
    cell_topic = np.array([position[label] for label in interned.cell_labels], dtype=np.int32)
    topic = np.repeat(cell_topic, interned.cell_lengths)
    idx = np.empty(len(topic), dtype=np.int32)
    starts, lengths = group_by_cell(topic, np.arange(len(labels), dtype=np.int64), len(labels), idx)
    del topic
    if order == "trec_eval":
        order_cells(idx, starts, lengths, interned.scores, interned.ids, docnos.offsets, read_only(docnos.blob))
    return labels, lengths, interned.ids[idx], interned.scores[idx]
