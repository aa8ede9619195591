"""Runs read once, before any qrels: the run store every evaluation and meta-evaluation joins with.

:func:`read_runs` reads each run (files a block at a time by the fast tokenizer of
:mod:`cwla.data._tokenize`, in parallel threads: :mod:`cwla.data._reading`; frames, dicts, records
and ranx objects by :mod:`cwla.data.readers`), puts every (run, topic) ranking in trec_eval's order (:func:`cwla.data._join.order_cells`)
and dictionary-encodes its (topic, docno) pairs into integer ids shared by all runs
(:mod:`cwla.data._pairs`). The result, a :class:`RunSet`, depends on no qrels:
:func:`cwla.prepare` joins it with any number of qrels by looking the judged pairs up,
nothing more.

A RunSet can be saved to a folder (:meth:`RunSet.save`: one ``.npy`` file per array and a JSON
manifest) and opened again memory-mapped, read-only (:func:`open_runs`; :func:`read_runs` and
:func:`cwla.evaluate` accept the folder too): worker processes on one machine then share its pages,
and a cluster on a shared filesystem reads it lazily.

Memory: 4 bytes of pair id and 4 (float32) or 8 (float64) bytes of score per
retrieved document, plus the distinct (topic, docno) pairs (the docno's bytes and
16 bytes each).
"""

from __future__ import annotations

import numbers
import os
import queue
import weakref
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pandas as pd

from .._display import Displayed, Shown, count_text
from ._docnos import Strings, strings_of
from ._join import cell_starts
from ._pairs import PairBuilder, find_pairs
from ._reading import Interned, ranked, read_interned
from ._tokenize import Workspace
from .._validate import FLAG, NONE, PATH, Interval, Options, check, validate_params
from ..errors import CwlaError, InputError, ParameterError
from ..progress import Bar
from .files import BLOCK_BYTES, physical_memory, text_size
from .readers import SYSTEM_COLUMNS, is_record, run_name
from .store import MANIFEST, check_arrays, map_arrays, read_manifest, write_folder

__all__ = ["RunSet", "read_runs", "read_named", "named_runs", "file_groups", "run_groups", "open_runs", "is_run_store",
           "default_workers", "group_bytes", "stream_bytes", "TIES", "ORDERS", "A_TIES",
           "AN_ORDER", "A_WORKERS",
           "STORE_FORMAT", "STORE_VERSION"]

TIES = ("float32", "float64")
ORDERS = ("trec_eval", "file")


#: how scores are compared to break ties: :data:`TIES`
A_TIES = Options(TIES, text="'float32' (trec_eval 9.x, pytrec_eval, NIST's DL results) or 'float64' (trec_eval >= 10)")
#: the order of a ranking: :data:`ORDERS`
AN_ORDER = Options(ORDERS)
#: a number of reader threads
A_WORKERS = Interval("int", 1, None)


_RUNS_ACCEPTED = (
    "runs must be a run file path, a DataFrame (one run, or several with a system column "
    f"{' / '.join(SYSTEM_COLUMNS)}: PyTerrier's results), a dict {{topic: {{docno: score}}}}, an object with "
    "to_dict() of that shape (ranx's Run), an iterable of records with query_id, doc_id, score (ir_datasets' "
    "scoreddocs_iter()), a list of any of these, or a dict {name: any of these}"
)


def _system_column(frame: pd.DataFrame) -> str | None:
    present = [c for c in SYSTEM_COLUMNS if c in frame.columns]
    if len(present) > 1:
        raise InputError(f"run DataFrame has columns {present}, which all name the system; keep one")
    return present[0] if present else None


def _split_systems(frame: pd.DataFrame, column: str) -> list:
    """One (name, frame) per system of a frame with a system column, in order of first appearance."""
    if frame[column].isna().any():
        row = int(np.argmax(frame[column].isna().to_numpy()))
        raise InputError(f"run DataFrame, row {row} (by position): the system column {column!r} is missing a value")
    names = pd.unique(frame[column])
    groups = frame.groupby(column, sort=False)
    return [(str(name), groups.get_group(name).drop(columns=[column])) for name in names]


def _is_run_dict(runs: Mapping) -> bool:
    """True for a pytrec_eval run dict ``{topic: {doc: score}}`` (one run), False for ``{name: run}``:
    every value is a dict, and the first document entry found holds a number, not a dict."""
    if not runs or not all(isinstance(v, Mapping) for v in runs.values()):
        return False
    for docs in runs.values():
        for value in docs.values():
            return isinstance(value, numbers.Number) or isinstance(value, str)
    return True  # every topic empty: one (empty) run, which the reader reports


def _object_name(source, default: str) -> str:
    """A run object's own name (ranx's ``Run.name``), else ``default``."""
    name = getattr(source, "name", None)
    return name if isinstance(name, str) and name else default


def named_runs(runs) -> list:
    """Normalise the accepted run containers to a list of (name, source)."""
    if isinstance(runs, (str, os.PathLike)):
        return [(run_name(runs), runs)]
    if isinstance(runs, pd.DataFrame):
        column = _system_column(runs)
        return _split_systems(runs, column) if column else [("run", runs)]
    if not isinstance(runs, Mapping) and callable(getattr(runs, "to_dict", None)):
        return [(_object_name(runs, "run"), runs)]
    if isinstance(runs, Iterable) and not isinstance(runs, (Mapping, Sequence, bytes)):
        runs = list(runs)  # a generator: of records (one run) or of runs
    if isinstance(runs, Sequence) and runs and is_record(runs[0]):
        return [("run", list(runs))]
    if isinstance(runs, Mapping):
        if _is_run_dict(runs):  # a pytrec_eval run dict {topic: {doc: score}} is one run
            return [("run", runs)]
        named = []
        for name, source in runs.items():  # {name: run}
            if isinstance(source, pd.DataFrame) and _system_column(source) \
                    and source[_system_column(source)].nunique(dropna=False) > 1:
                raise InputError(f"run {str(name)!r} is a DataFrame holding several runs (column "
                                 f"{_system_column(source)!r}); pass that frame itself as the runs, or one frame "
                                 f"per run")
            named.append((str(name), source))
        return named
    if isinstance(runs, Sequence) and not isinstance(runs, (str, bytes)):
        named = []
        for i, source in enumerate(runs):
            if isinstance(source, (str, os.PathLike)):
                named.append((run_name(source), source))
            elif isinstance(source, pd.DataFrame) and _system_column(source):
                named.extend(_split_systems(source, _system_column(source)))
            elif isinstance(source, Iterable) and not isinstance(source, (Mapping, Sequence, pd.DataFrame)) \
                    and not callable(getattr(source, "to_dict", None)):
                named.append((f"run{i + 1}", list(source)))  # read twice at most (errors name the record)
            else:
                named.append((_object_name(source, f"run{i + 1}"), source))
        return named
    raise ParameterError(f"{_RUNS_ACCEPTED}; got {type(runs).__name__}")



@attrs.frozen(eq=False, repr=False)
class RunSet(Displayed):
    """Runs read once (see the module docstring); plain arrays, no qrels.

    Attributes
    ----------
    names : tuple of str
        Run names, the run axis.
    topics : tuple of str
        Every topic some run retrieves for, sorted.
    docnos : Strings
        The docno of every (topic, docno) pair some run retrieves; a pair's id is its position
        (``docnos[i]`` is the string). The pairs of topic ``topics[t]`` are the ids
        ``pair_starts[t]:pair_starts[t + 1]`` (ordered by hash); the runs share the ids.
    pair_starts : ndarray of int64, shape (n_topics + 1,)
    lengths : ndarray of int64, shape (n_runs, n_topics)
        The length of each run's ranking for each topic (0: the run retrieves nothing for it).
    doc_ids, scores : tuple of ndarray, one per run
        The run's rankings back to back, topic after topic (in ``topics`` order): pair ids
        (int32) and scores (float32 as trec_eval 9.x keeps them, or float64: ``ties``).
    ties : {"float32", "float64"}
        The precision in which scores were compared when ordering the rankings.
    order : {"trec_eval", "file"}
        ``"trec_eval"``: each ranking by score descending, docno descending; ``"file"``: input order.
    """

    names: tuple
    topics: tuple
    docnos: Strings
    pair_starts: np.ndarray
    lengths: np.ndarray
    doc_ids: tuple
    scores: tuple
    ties: str = "float32"
    order: str = "trec_eval"

    def __len__(self) -> int:
        return len(self.names)

    def _shown(self) -> Shown:
        """Per run: the topics it retrieves for, its documents and its deepest ranking."""
        lengths = np.asarray(self.lengths).reshape(len(self.names), len(self.topics))
        table = pd.DataFrame({"topics": (lengths > 0).sum(axis=1).astype(np.int64),
                              "documents": lengths.sum(axis=1).astype(np.int64),
                              "depth": lengths.max(axis=1, initial=0).astype(np.int64)},
                             index=pd.Index(self.names, name="run")).rename_axis(columns="count")
        facts = [f"ties={self.ties}", f"order={self.order}", f"{self.nbytes / 2**20:.1f} MiB"]
        if self.store is not None:
            facts.append("memory-mapped")
        return Shown("RunSet", f"{count_text(len(self.names), 'run')} x {count_text(len(self.topics), 'topic')}, "
                     f"{count_text(int(lengths.sum()), 'document')}", table, tuple(facts))

    def starts(self, run: int) -> np.ndarray:
        """Where each topic's ranking of run ``run`` starts in ``doc_ids[run]``."""
        return cell_starts(self.lengths[run])

    def frame(self, run: str) -> pd.DataFrame:
        """One run as a frame ``topic, docno, score`` in the RunSet's order (topics sorted; each
        ranking in trec_eval order unless read with ``order="file"``)."""
        r = self.names.index(run)
        return pd.DataFrame({"topic": np.repeat(np.array(self.topics, dtype=object), self.lengths[r]),
                             "docno": [self.docnos[i] for i in self.doc_ids[r].tolist()],
                             "score": self.scores[r]})

    def pair_ids(self, topics: np.ndarray, docnos: Strings, which: np.ndarray) -> np.ndarray:
        """The pair id of each (``topics[i]``, ``docnos[which[i]]``), -1 where no run retrieves the docno for
        the topic; ``topics`` are positions in :attr:`topics` (-1: a topic no run retrieves for)."""
        which = np.asarray(which, dtype=np.int64)
        query = Strings.gather(docnos.blob, docnos.offsets[:-1], docnos.offsets[1:], which, docnos.hashes[which])
        out = np.empty(len(which), dtype=np.int64)
        find_pairs(self.pair_starts, self.docnos.hashes, self.docnos.offsets, self.docnos.blob,
                   np.asarray(topics, dtype=np.int64), query.blob, query.offsets, query.hashes, out)
        return out

    def pair_ids_of(self, topics: np.ndarray, docnos: Sequence[str] | np.ndarray) -> np.ndarray:
        """The pair id of each (``topics[i]``, ``docnos[i]``) -- docno strings, topics positions in
        :attr:`topics` (-1: a topic no run retrieves for) --, -1 where no run retrieves the docno for the
        topic (:meth:`pair_ids` for strings)."""
        codes, strings = strings_of(np.asarray(docnos, dtype=object))
        return self.pair_ids(topics, strings, codes)

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (rankings, docnos, lengths)."""
        d = self.docnos
        return (sum(a.nbytes for a in self.doc_ids) + sum(a.nbytes for a in self.scores) + d.blob.nbytes
                + d.offsets.nbytes + d.hashes.nbytes + self.pair_starts.nbytes + self.lengths.nbytes)

    @property
    def store(self) -> str | None:
        """The run-store folder this RunSet is memory-mapped from (:func:`open_runs`), as an absolute
        path; None for runs read into memory (or a RunSet built from a store's arrays by hand)."""
        return _STORES.get(self)

    def save(self, directory: str | os.PathLike) -> Path:
        """Write the runs to a run store: a new or empty folder, created if missing.

        The store holds every array of the RunSet (names, topics, docnos with their hashes, pair ids,
        scores, lengths) and its ``ties`` and ``order``, so that :func:`open_runs` gives back a RunSet
        that scores exactly as this one. Files: one ``.npy`` per array (the runs' pair ids and scores
        back to back in ``doc_ids.npy`` and ``scores.npy``) and ``manifest.json`` (format name and
        version, names, topics, ties, order, each array's dtype and shape), written last: a folder
        without a manifest is not a store (e.g. an interrupted save, whose files are removed).

        Parameters
        ----------
        directory : str or os.PathLike
            The store's folder. It must not exist yet or be empty: a store is never written over
            anything, an input of the runs (or the store they are mapped from) included.

        Returns
        -------
        pathlib.Path
            The store's folder, absolute.

        Raises
        ------
        InputError
            When ``directory`` is a file or a folder that is not empty.
        """
        return _save_store(self, directory)


# ---------------------------------------------------------------------------
# the run store: a RunSet saved to a folder, opened memory-mapped
# ---------------------------------------------------------------------------

#: the ``format`` of a run store's manifest, the version :meth:`RunSet.save` writes and those :func:`open_runs`
#: reads (version 1, from before checksums, only with ``verify=False``)
STORE_FORMAT = "cwla.RunSet"
STORE_VERSION = 2
_READS = (1, 2)
_MANIFEST = MANIFEST
#: array -> (file, dtype or None: the scores' dtype is the store's ``ties``, number of dimensions)
_STORE_ARRAYS = {"docno_blob": ("docno_blob.npy", "uint8", 1), "docno_offsets": ("docno_offsets.npy", "int64", 1),
                 "docno_hashes": ("docno_hashes.npy", "uint64", 1), "pair_starts": ("pair_starts.npy", "int64", 1),
                 "lengths": ("lengths.npy", "int64", 2), "doc_ids": ("doc_ids.npy", "int32", 1),
                 "scores": ("scores.npy", None, 1)}
_STORES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # RunSet opened from a store -> its folder
_NOT_A_STORE = ("a run store written by RunSet.save (or its save was interrupted); write it again with "
                "cwla.read_runs(...).save(folder)")


def is_run_store(path: object) -> bool:
    """Whether ``path`` is a folder holding a run store's manifest (:meth:`RunSet.save`).

    Parameters
    ----------
    path : object
        Anything; only a str or os.PathLike can name a store.

    Returns
    -------
    bool
        True when ``path/manifest.json`` is a file (the store itself is checked by :func:`open_runs`).
    """
    return isinstance(path, (str, os.PathLike)) and os.path.isfile(os.path.join(path, _MANIFEST))


def _save_store(runs: RunSet, directory) -> Path:
    folder = Path(os.path.abspath(os.fspath(directory)))
    d = runs.docnos
    parts = {"docno_blob": [d.blob], "docno_offsets": [d.offsets], "docno_hashes": [d.hashes],
             "pair_starts": [runs.pair_starts], "lengths": [runs.lengths], "doc_ids": list(runs.doc_ids),
             "scores": list(runs.scores)}
    arrays = {key: (name, dtype or runs.ties, parts[key]) for key, (name, dtype, _) in _STORE_ARRAYS.items()}
    meta = {"format": STORE_FORMAT, "version": STORE_VERSION, "names": list(runs.names), "topics": list(runs.topics),
            "ties": runs.ties, "order": runs.order}
    return write_folder(folder, arrays, meta, "run store")


def _manifest(folder: str, where: str) -> dict:
    manifest = read_manifest(folder, where, STORE_FORMAT, _READS, _NOT_A_STORE)
    for key in ("names", "topics"):
        value = manifest.get(key)
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
            raise InputError(f"{where}: {_MANIFEST}'s {key!r} must be a list of at least one non-empty string")
        if len(set(value)) != len(value):
            twice = sorted({v for v in value if value.count(v) > 1})
            raise InputError(f"{where}: {_MANIFEST}'s {key!r} must be distinct; {twice[:3]} appear more than once")
    if manifest.get("ties") not in TIES or manifest.get("order") not in ORDERS:
        raise InputError(f"{where}: {_MANIFEST}'s ties {manifest.get('ties')!r} / order {manifest.get('order')!r} "
                         f"must be one of {TIES} / {ORDERS}")
    return manifest


@validate_params({"verify": FLAG}, named=True)
def open_runs(directory: str | os.PathLike, *, verify: bool = True) -> RunSet:
    """Open a run store (:meth:`RunSet.save`) as a RunSet whose arrays are memory-mapped, read-only.

    The manifest and every array's header are checked (dtype, shape, the file's exact length), and
    the arrays' structure (offsets and pair starts that never decrease, lengths >= 0 that add up,
    pair ids in range), so that no store, however damaged, makes a kernel read out of bounds. With
    ``verify`` (the default) every byte is also read once and hashed (XXH3-64): a store changed in any
    way after it was written (a pair id moved to another topic, a run renamed in the manifest) is
    refused. A file this machine has verified before and whose stamp is unchanged (device, inode,
    size, modification and change times; recorded only once the file is 60 s old, and never on a
    file system held in memory) is not read again (a record kept in :func:`cwla.cache_dir`). ``verify=False``
    skips the hashing for speed (the pages are then
    read when the runs are scored) and opens stores of format version 1, which carry no checksums.

    The RunSet scores exactly as the one that was saved (same names, topics, docnos, ties and
    order) and remembers its folder (:attr:`RunSet.store`); processes on one machine that open the
    same store share its pages.

    Parameters
    ----------
    directory : str or os.PathLike
        The store's folder.
    verify : bool, default True
        Check every array's and the manifest's checksum. For the 33 MB store of TREC DL 2020's 59 runs
        (``benchmarks/bench_store.py verify``, 2 threads, two runs) hashing every byte cost +61% to +107%
        of opening without it (7.3 ms against 4.5 ms, 9.8 ms against 4.8 ms); a store this machine had
        verified before, +7% to +12% (3.2 ms against 3.0 ms, 4.6 ms against 4.1 ms).

    Returns
    -------
    RunSet

    Raises
    ------
    InputError
        Naming the folder, the file and what is wrong: no such folder, no manifest (not a store, or an
        interrupted save), a manifest of another format or version or with bad fields, an array file
        that is missing, truncated, longer than its header, or of another dtype or shape than the
        manifest says, an inconsistent structure, or (``verify``) a checksum that does not match.

    Examples
    --------
    >>> import os, tempfile, cwla
    >>> qrels, runs = cwla.synthetic.collection(seed=1)
    >>> folder = tempfile.TemporaryDirectory()
    >>> store = os.path.join(folder.name, "store")
    >>> _ = cwla.read_runs(runs).save(store)
    >>> cwla.is_run_store(store), cwla.open_runs(store).names[:2]
    (True, ('run01', 'run02'))
    """
    directory = check(directory, "directory", PATH, func="open_runs")
    folder = os.path.abspath(os.fspath(directory))
    where = f"run store {folder}"
    manifest = _manifest(folder, where)
    spec = {key: (name, dtype or manifest["ties"], ndim) for key, (name, dtype, ndim) in _STORE_ARRAYS.items()}
    a, files = map_arrays(folder, manifest, spec, where)
    n_runs, n_topics = len(manifest["names"]), len(manifest["topics"])
    n_pairs = len(a["docno_offsets"]) - 1
    total = int(a["lengths"].sum()) if a["lengths"].shape == (n_runs, n_topics) else -1
    expected = {"lengths": (n_runs, n_topics), "pair_starts": (n_topics + 1,), "docno_hashes": (max(n_pairs, 0),),
                "docno_blob": (int(a["docno_offsets"][-1]) if n_pairs >= 0 else 0,), "doc_ids": (total,),
                "scores": (total,)}
    # the checksums first: with verify, a changed file is named by its own checksum, before any disagreement
    # between arrays it causes is seen (a changed lengths.npy changes how many documents doc_ids.npy should hold)
    summary = check_arrays(a, files, manifest, where, verify=verify,
                           summarise={"docno_offsets": True, "pair_starts": True, "lengths": False, "doc_ids": False})
    for key, shape in expected.items():  # the arrays' shapes agree with each other and the manifest
        if a[key].shape != shape:
            raise InputError(f"{where}: {_STORE_ARRAYS[key][0]} has shape {a[key].shape}, but {_BECAUSE[key]} "
                             f"give {shape}: one of them was changed after the store was written (the store is "
                             f"corrupt); write it again")
    offsets, pair_starts, lengths = summary["docno_offsets"], summary["pair_starts"], summary["lengths"]
    # the kernels do not check bounds: a damaged store must stop here, with a clear error
    if n_pairs < 0 or not offsets.non_decreasing or offsets.min < 0 or not pair_starts.non_decreasing \
            or int(a["docno_offsets"][0]) != 0 or int(pair_starts.min) != 0 or int(pair_starts.max) != n_pairs:
        raise InputError(f"{where}: the docno offsets or pair starts are inconsistent (they must rise from 0 to "
                         f"the blob's length and to the {max(n_pairs, 0)} pairs)")
    if lengths.min is not None and lengths.min < 0:
        raise InputError(f"{where}: lengths.npy holds negative lengths")
    ids = summary["doc_ids"]
    if ids.min is not None and (ids.min < 0 or ids.max >= n_pairs):
        raise InputError(f"{where}: doc_ids.npy holds pair ids outside [0, {n_pairs}) (the store is corrupt)")
    bounds = np.concatenate([[0], np.cumsum(a["lengths"].sum(axis=1))]).tolist()
    run_set = RunSet(names=tuple(manifest["names"]), topics=tuple(manifest["topics"]),
                     docnos=Strings(a["docno_blob"], a["docno_offsets"], a["docno_hashes"]), pair_starts=a["pair_starts"],
                     lengths=a["lengths"], doc_ids=tuple(a["doc_ids"][x:y] for x, y in zip(bounds[:-1], bounds[1:])),
                     scores=tuple(a["scores"][x:y] for x, y in zip(bounds[:-1], bounds[1:])),
                     ties=manifest["ties"], order=manifest["order"])
    _STORES[run_set] = folder
    return run_set


#: what decides each store array's shape (the messages of :func:`open_runs`)
_BECAUSE = {"lengths": "the manifest's runs x topics", "pair_starts": "the manifest's topics (plus one)",
            "docno_hashes": "the pairs of docno_offsets.npy", "docno_blob": "the last of docno_offsets.npy",
            "doc_ids": "the lengths of lengths.npy (their sum)", "scores": "the lengths of lengths.npy (their sum)"}


def default_workers() -> int:
    """Threads that read run files: the number of CPUs, at most 4."""
    return min(4, os.cpu_count() or 1)


def _checked_names(named: list) -> list:
    if not named:
        raise InputError("no runs given: pass at least one run file, DataFrame or dict")
    names = [name for name, _ in named]
    for name in names:  # a tab or a line break in a name would break every TSV and TREC line it is printed in
        if isinstance(name, str) and any(ord(c) < 32 or ord(c) == 127 for c in name):
            raise InputError(f"run name {name!r} holds a control character (a tab, a line break, ...): the TSV "
                             f"tables and TREC files cwla writes separate fields and lines with them; rename the "
                             f"file, or in Python pass a dict {{name: run}} with another name")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(f"run names must be unique; {dupes} appear more than once (a run is named by its file name "
                         f"without .gz: rename or copy the files, or in Python pass a dict {{name: run}})")
    return named


#: run files are read, joined and scored in groups of consecutive files of at most this many bytes of text
#: (at least one file; a gzip file counts 4 times its size); None: :func:`group_bytes`
GROUP_BYTES = None


def group_bytes() -> int:
    """The text budget of a group of run files: :data:`GROUP_BYTES` if set, else a sixth of the machine's
    physical memory, between 256 MiB and 8 GiB (1 GiB where the memory size is unknown).

    A group costs (measured) 0.5-1 bytes a byte of run text, its rankings, pairs and tables, plus a block
    of text (:data:`cwla.data.files.BLOCK_BYTES`) and its arrays per reader thread: a sixth of the memory
    leaves room for the rest."""
    if GROUP_BYTES is not None:
        return GROUP_BYTES
    memory = physical_memory()
    if memory is None:  # not POSIX (Windows), or not known
        return 2**30
    return int(min(max(memory // 6, 2**28), 2**33))


#: the text budget of a group of run files evaluated once (:func:`cwla.evaluate`, ``cwla eval``): memory then holds
#: one such group, whatever the number of runs (see :func:`stream_bytes`)
STREAM_BYTES = 512 * 2**20


def stream_bytes() -> int:
    """The text budget of a group of run files read, joined and scored once (:func:`cwla.evaluate`): the
    smaller of :data:`STREAM_BYTES` and :func:`group_bytes`. Memory then holds one group's runs, pairs and
    collection, whatever the number of runs, for some more time: each group interns its pairs and looks the
    qrels up afresh (docs/decisions.md, "The run store", has the figures). An :class:`cwla.Evaluator`, which
    scores its runs under many qrels, holds up to :func:`group_bytes`."""
    return min(STREAM_BYTES, group_bytes())


def file_groups(named: list, budget: int | None = None) -> list[list]:
    """Runs already named (:func:`named_runs`), checked, in the groups they are read in: when every run is
    a file, consecutive files of at most ``budget`` bytes of text each (default :func:`group_bytes`; a
    gzip file counts 4 times its size; at least one file a group); otherwise one group."""
    named = _checked_names(named)
    if not all(isinstance(source, (str, os.PathLike)) for _, source in named):
        return [named]
    budget = group_bytes() if budget is None else budget
    groups, group, used = [], [], 0
    for name, path in named:
        size = text_size(path) if os.path.isfile(path) else 0  # a missing file: the reader says so
        if group and used + size > budget:
            groups.append(group)
            group, used = [], 0
        group.append((name, path))
        used += size
    groups.append(group)
    return groups


def run_groups(runs: Any, budget: int | None = None) -> Iterator[RunSet | dict]:
    """The runs in the groups :func:`cwla.evaluate` reads, joins and scores one at a time (kept from the
    old ``cwla.runset``; :class:`cwla.Evaluator` plans the same groups with :func:`file_groups`).

    Yields ``runs`` as they are (a RunSet, frames, dicts, ...); a run store's folder opened
    (:func:`open_runs`); or, for run files, ``{name: path}`` dicts of consecutive files of at most
    ``budget`` bytes of text each (default :func:`group_bytes`; at least one file), in order.
    """
    if isinstance(runs, RunSet):
        yield runs
        return
    if isinstance(runs, (str, os.PathLike)) and os.path.isdir(runs):  # a run store
        yield open_runs(runs)
        return
    for group in file_groups(named_runs(runs), budget):
        yield dict(group)


def _in_order(func, items, workers: int):
    """``func(item)`` for each item, computed by ``workers`` threads, yielded in order; at most ``workers``
    calls run or wait at a time, and the first error (in order) cancels the calls not yet started."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending = deque()
        try:
            for item in items:
                if len(pending) == workers:
                    yield pending.popleft().result()
                pending.append(pool.submit(func, item))
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


@validate_params({"workers": (A_WORKERS, NONE), "ties": A_TIES, "order": AN_ORDER}, named=True)
def read_runs(runs: Any, *, workers: int | None = None, ties: str = "float32", order: str = "trec_eval") -> RunSet:
    """Read runs into a :class:`RunSet`.

    Parameters
    ----------
    runs : Any
        Run files, frames, dicts, records, ranx objects (see :func:`cwla.prepare` for the accepted
        forms), a RunSet (returned as it is), or a run store's folder (:meth:`RunSet.save`), opened
        memory-mapped (:func:`open_runs`). A RunSet or a store must have been read with these
        ``ties`` and ``order``.
    workers : int, optional
        Threads that read files (default: the number of CPUs, at most 4).
    ties : {"float32", "float64"}
        The precision the scores are kept and compared in (see :func:`cwla.prepare`).
    order : {"trec_eval", "file"}
        The order of each ranking (see :func:`cwla.prepare`).

    Returns
    -------
    RunSet

    Raises
    ------
    InputError
        For malformed runs, and for a folder that is not a readable run store.
    ValueError
        For a RunSet or store read with other ``ties`` or ``order``.

    Examples
    --------
    >>> import cwla
    >>> qrels, runs = cwla.synthetic.collection(seed=1)   # runs: a dict {name: DataFrame}
    >>> rs = cwla.read_runs(runs)
    >>> rs.names[:3], len(rs.topics)
    (('run01', 'run02', 'run03'), 31)
    >>> cwla.evaluate(qrels, rs, ["nDCG@10", "P@10"]).means().shape   # read once, scored many times
    (12, 2)
    """
    if isinstance(runs, (str, os.PathLike)) and os.path.isdir(runs):  # a run store (open_runs says if it is not)
        runs = open_runs(runs)
    if isinstance(runs, RunSet):
        if runs.ties != ties:
            raise CwlaError(f"these runs were read with ties={runs.ties!r}; read them again with "
                             f"read_runs(..., ties={ties!r})")
        if runs.order != order:
            raise CwlaError(f"these runs were read with order={runs.order!r}; read them again with "
                             f"read_runs(..., order={order!r})")
        return runs
    return read_named(_checked_names(named_runs(runs)), workers=workers, ties=ties, order=order)


def read_named(named: list, *, workers: int | None = None, ties: str = "float32", order: str = "trec_eval") -> RunSet:
    """:func:`read_runs` of runs already named and checked (``[(name, source), ...]`` from :func:`named_runs`
    or :func:`file_groups`): read, ordered and interned into one RunSet, files in ``workers`` threads."""
    names = [name for name, _ in named]
    workers = workers or default_workers()
    pairs = PairBuilder()
    workspaces = queue.SimpleQueue()  # one per thread at a time
    for _ in range(workers):
        workspaces.put(Workspace())

    def read(r: int) -> Interned:
        """Run r read and interned (into the shared pair tables), a block at a time."""
        workspace = workspaces.get()
        try:
            return read_interned(r, names[r], named[r][1], ties, pairs, len(named), workspace, BLOCK_BYTES)
        finally:
            workspaces.put(workspace)

    bar = Bar(len(named), "reading runs", unit="files")
    runs = []
    for r, interned in enumerate(_in_order(read, range(len(named)), workers)):
        runs.append(interned)
        bar(r + 1)
    for _ in range(workers):  # the scratch arrays freed
        workspaces.get()
    labels = sorted(set().union(*(run.cell_labels for run in runs)))
    pair_starts, docnos = pairs.freeze(labels, [run.cells() for run in runs], workers)

    def rank(r: int) -> tuple:
        """Run r's rankings; its read form dropped as soon as they are made."""
        interned, runs[r] = runs[r], None
        return ranked(interned, order, docnos)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        run_topics, lengths, doc_ids, scores = (list(column) for column in zip(*pool.map(rank, range(len(runs)))))
    table = np.zeros((len(named), len(labels)), dtype=np.int64)
    index = pd.Index(labels)
    for r, (topics, run_lengths) in enumerate(zip(run_topics, lengths)):
        table[r, index.get_indexer(topics)] = run_lengths
    return RunSet(names=tuple(names), topics=tuple(labels), docnos=docnos, pair_starts=pair_starts, lengths=table,
                  doc_ids=tuple(doc_ids), scores=tuple(scores), ties=ties, order=order)
