"""The folder format of run stores: ``.npy`` arrays beside a JSON manifest that records each array's
dtype, shape and checksum, and a checksum of its own.

A folder is written atomically (:func:`write_folder`): every file goes into a new hidden folder beside
the target, which is then renamed onto it (rename(2) refuses a target that is not empty). A reader sees
either no folder or a whole one, and of two writers racing for one target exactly one succeeds; the
other gets an :class:`~cwla.errors.InputError` and leaves nothing behind.

On open (:func:`map_arrays`, :func:`check_arrays`) every array's ``.npy`` header is checked against the manifest (dtype,
shape, C order, the file's exact length) before it is memory-mapped read-only. With ``verify`` every
byte is read once more, in 1 MiB chunks (two threads), and hashed: the XXH3-64 digest of each array's
data (the bytes after its ``.npy`` header) must be the one the writer recorded, and the manifest's own
digest (over its canonical JSON, :func:`manifest_digest`) must match, so a store changed after it was
written, by a flipped byte as much as by an edited run name, is refused. The integer summaries the
caller's structural checks need (:class:`Summary`: min, max, non-decreasing) ride on the same chunks;
without ``verify`` they are computed on the mapped arrays. A file this machine has hashed before and
whose stamp (device, inode, size, modification and change times) is unchanged is not hashed again
(:mod:`cwla.data._verified`, which says what that record can and cannot see).

XXH3 (Collet, xxHash) is a non-cryptographic hash: it detects corruption and accidental edits, not a
forger who rewrites the digests too (the caller's structural checks still keep such a store from
reading out of bounds).
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import shutil
import stat
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import attrs
import numpy as np
import xxhash

from ..errors import CwlaError, InputError
from ._verified import now_ns, recorded as recorded_files, remember, stamp

__all__ = ["CHECKSUM", "MANIFEST", "Summary", "ArrayFile", "write_folder", "read_manifest", "map_arrays",
           "check_arrays", "manifest_digest", "check_target"]

#: the name of the digest the manifest records for every array and for itself
CHECKSUM = "xxh3_64"
#: the manifest's file name
MANIFEST = "manifest.json"
_CHUNK = 1 << 20  # bytes read and hashed at a time (a multiple of every itemsize)
_THREADS_FROM = 4 << 20  # hash in two threads from this many bytes on


def manifest_digest(manifest: Mapping) -> str:
    """The XXH3-64 digest of a manifest's canonical JSON (sorted keys, no spaces, ASCII), its own
    ``checksum`` entry left out: any edit of what it says changes it."""
    body = {k: v for k, v in manifest.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return xxhash.xxh3_64_hexdigest(text.encode("ascii"))


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------


def check_target(folder: Path, what: str) -> None:
    """Refuse a target that is a file or a folder that is not empty (a store is never written over anything)."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"cannot write a {what} to {folder}: it is a file; give a new or empty folder")
    if folder.is_dir() and any(folder.iterdir()):
        held = sorted(p.name for p in folder.iterdir())
        holds = f"a {what}" if MANIFEST in held else ", ".join(held[:5]) + (" ..." if len(held) > 5 else "")
        raise InputError(f"cannot write a {what} to {folder}: the folder is not empty (it holds {holds}); a store "
                         f"is never written over anything: give a new or empty folder")


def write_folder(folder: Path, arrays: Mapping[str, tuple], meta: Mapping, what: str) -> Path:
    """Write ``arrays`` (key -> (file name, dtype, parts written back to back)) and a manifest (``meta``
    plus ``arrays``: each one's file, dtype, shape and digest, plus the manifest's ``checksum``) to
    ``folder``, atomically (see the module). ``folder`` must be new or an empty folder."""
    check_target(folder, what)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = folder.parent / f".{folder.name}.{secrets.token_hex(6)}.tmp"
    os.mkdir(tmp)
    try:
        if folder.is_dir():  # an empty folder the user made: the store takes its permissions
            os.chmod(tmp, stat.S_IMODE(folder.stat().st_mode))
        entries = {}
        for key, (name, dtype, parts) in arrays.items():
            dtype = np.dtype(dtype)
            shape = parts[0].shape if len(parts) == 1 else (sum(len(p) for p in parts),)
            out = np.lib.format.open_memmap(tmp / name, mode="w+", dtype=dtype, shape=shape)
            h, start = xxhash.xxh3_64(), 0
            for part in parts:  # one part (a run) at a time: no copy of all the runs at once
                out[start:start + len(part)] = part
                h.update(np.ascontiguousarray(out[start:start + len(part)]).view(np.uint8))
                start += len(part)
            out.flush()
            del out
            entries[key] = {"file": name, "dtype": dtype.str, "shape": list(shape), CHECKSUM: h.hexdigest()}
        manifest = {**meta, "arrays": entries}
        manifest["checksum"] = {CHECKSUM: manifest_digest(manifest)}
        (tmp / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        _rename_onto(tmp, folder, what)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return folder


def _rename_onto(tmp: Path, folder: Path, what: str) -> None:
    """Move the written folder onto its target: rename(2) replaces a missing or empty target atomically and
    fails on one that is not empty (another writer got there first)."""
    try:
        os.rename(tmp, folder)
        return
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST) and not isinstance(exc, (FileExistsError,
                                                                                     NotADirectoryError)):
            raise
        if os.name == "nt" and folder.is_dir() and not any(folder.iterdir()):  # Windows renames onto nothing
            try:
                folder.rmdir()
                os.rename(tmp, folder)
                return
            except OSError:
                pass
    raise InputError(f"cannot write a {what} to {folder}: something else was written there while this store was "
                     f"being written (another process saving to the same folder?); nothing of this store was kept, "
                     f"give a new or empty folder")


# ---------------------------------------------------------------------------
# opening
# ---------------------------------------------------------------------------


def read_manifest(folder: str, where: str, format: str, versions: tuple[int, ...], hint: str) -> dict:
    """The manifest of ``folder``, parsed and checked for its format name and version (``versions``: the
    ones this cwla reads); ``hint``: what to do when the folder has none."""
    if not os.path.exists(folder):
        raise InputError(f"{where}: no such folder")
    if not os.path.isdir(folder):
        raise InputError(f"{where}: not a folder ({hint})")
    path = os.path.join(folder, MANIFEST)
    if not os.path.isfile(path):
        raise InputError(f"{where}: no {MANIFEST}, so not {hint}")
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise InputError(f"{where}: {MANIFEST} is unreadable ({type(exc).__name__}: {exc})") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != format:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        raise InputError(f"{where}: {MANIFEST} is not a cwla run store's manifest (format {found!r}, expected "
                         f"{format!r})")
    version = manifest.get("version")
    if isinstance(version, bool) or version not in versions:
        raise InputError(f"{where}: format version {version!r}; this cwla reads version"
                         f"{'s' if len(versions) > 1 else ''} {', '.join(map(str, versions))}: write the store "
                         f"again with this cwla")
    return manifest


@attrs.frozen
class Summary:
    """What the structural checks of an integer array need: its extremes and whether it never decreases
    (None for an empty array)."""

    min: int | None
    max: int | None
    non_decreasing: bool | None

    @staticmethod
    def of(values: np.ndarray, order: bool) -> "Summary":
        """The summary of one array (or chunk); ``order``: whether to find out if it never decreases (else
        ``non_decreasing`` is None)."""
        if not len(values):
            return Summary(None, None, True if order else None)
        ordered = bool((values[1:] >= values[:-1]).all()) if order else None
        return Summary(int(values.min()), int(values.max()), ordered)


def _merge(chunks: list, order: bool) -> Summary:
    """The summary of chunks read one after another, each as (summary, first value, last value)."""
    if not chunks:
        return Summary(None, None, True if order else None)
    ordered = None if not order else \
        all(c[0].non_decreasing for c in chunks) and all(a[2] <= b[1] for a, b in zip(chunks, chunks[1:]))
    return Summary(min(c[0].min for c in chunks), max(c[0].max for c in chunks), ordered)


def _header(path: str, where: str, name: str) -> tuple:
    """(dtype, shape, data offset, file size) from a ``.npy`` header, any problem an InputError."""
    try:
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
            else:
                raise CwlaError(f".npy format version {version}, expected 1.0 or 2.0")
            offset, size = f.tell(), os.fstat(f.fileno()).st_size
    except Exception as exc:  # noqa: BLE001 - a garbled header raises ValueError, SyntaxError, TokenError, ...
        raise InputError(f"{where}: {name} is corrupt or truncated: its .npy header is unreadable "
                         f"({type(exc).__name__}: {exc})") from None
    if fortran:
        raise InputError(f"{where}: {name} is in Fortran order; a store's arrays are in C order")
    return dtype, tuple(shape), offset, size


def _entry_shape(entry: object, where: str, key: str, ndim: int) -> tuple:
    shape = entry.get("shape") if isinstance(entry, dict) else None
    if not (isinstance(shape, list) and len(shape) == ndim
            and all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 2**62 for n in shape)):
        raise InputError(f"{where}: {MANIFEST}'s shape of {key!r} must be a list of {ndim} non-negative "
                         f"integer(s), found {shape!r}")
    return tuple(shape)


def _mapped(path: str, dtype: np.dtype, shape: tuple, offset: int) -> np.ndarray:
    if 0 in shape:  # mmap cannot map nothing
        array = np.zeros(shape, dtype=dtype)
        array.flags.writeable = False
        return array
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape).view(np.ndarray)


def _scan(path: str, offset: int, nbytes: int, dtype: np.dtype, summarise: bool | None) -> tuple:
    """(digest, summary or None) of an array's data, read in chunks; ``summarise``: None (no summary), or
    whether the summary finds out the order (:meth:`Summary.of`)."""
    h = xxhash.xxh3_64()
    chunks = []  # (summary, first value, last value) of each chunk
    buffer = memoryview(bytearray(min(_CHUNK, max(nbytes, 1))))
    left = nbytes
    with open(path, "rb", buffering=0) as f:
        f.seek(offset)
        while left:
            n = f.readinto(buffer[:min(left, len(buffer))])
            if not n:
                break  # shorter than its header said (changed while read): the digest differs
            h.update(buffer[:n])
            if summarise is not None:
                values = np.frombuffer(buffer[:n], dtype=dtype)
                chunks.append((Summary.of(values, summarise), int(values[0]), int(values[-1])))
            left -= n
    return h.hexdigest(), (None if summarise is None else _merge(chunks, summarise))


@attrs.frozen
class ArrayFile:
    """Where an array's data lie in its ``.npy`` file, and the digest the manifest records of them."""

    name: str
    path: str
    offset: int
    nbytes: int
    checksum: object


def map_arrays(folder: str, manifest: dict, spec: Mapping[str, tuple], where: str) -> tuple[dict, dict]:
    """The arrays of a store, memory-mapped read-only (nothing of their data read yet), and their
    :class:`ArrayFile`, each checked against the manifest: ``spec`` maps each key to (file name, dtype,
    number of dimensions); each array's header must give the dtype and shape the manifest records, and
    its file must hold exactly that many bytes."""
    entries = manifest.get("arrays")
    if not isinstance(entries, dict):
        raise InputError(f"{where}: {MANIFEST} lists no arrays")
    arrays, files = {}, {}
    for key, (name, dtype, ndim) in spec.items():
        dtype = np.dtype(dtype)
        entry = entries.get(key)
        if not isinstance(entry, dict) or entry.get("file") != name:
            raise InputError(f"{where}: {MANIFEST} does not list the array {key!r} (file {name})")
        shape = _entry_shape(entry, where, key, ndim)
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            raise InputError(f"{where}: {name} is missing")
        found, found_shape, offset, size = _header(path, where, name)
        if entry.get("dtype") != dtype.str:
            raise InputError(f"{where}: {MANIFEST} records the dtype {entry.get('dtype')!r} for {name}; a run "
                             f"store holds {dtype.str!r} ({dtype}) there")
        if found != dtype:
            raise InputError(f"{where}: {name}'s header gives the dtype {found}; the store holds {dtype} there")
        if found_shape != shape:
            raise InputError(f"{where}: {name}'s header gives the shape {found_shape}; the manifest records "
                             f"{shape}")
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if size != offset + nbytes:
            problem = "truncated" if size < offset + nbytes else "longer than its header says"
            raise InputError(f"{where}: {name} is corrupt or {problem} ({size:,} bytes, its header and the "
                             f"manifest need {offset + nbytes:,})")
        arrays[key] = _mapped(path, dtype, shape, offset)
        files[key] = ArrayFile(name, path, offset, nbytes, entry.get(CHECKSUM))
    return arrays, files


def check_arrays(arrays: Mapping[str, np.ndarray], files: Mapping[str, ArrayFile], manifest: dict, where: str, *,
                 verify: bool, summarise: Mapping[str, bool]) -> dict:
    """The :class:`Summary` of each array in ``summarise`` (integer arrays of :func:`map_arrays`, each with
    whether its order is wanted) and, with
    ``verify``, the manifest's and every array's checksum checked (see the module): the arrays' data are
    read once, in chunks, and the summaries taken from the same chunks; without, from the mapped arrays."""
    def mapped(keys) -> dict:  # the summaries taken from the mapped arrays
        return {key: Summary.of(arrays[key].reshape(-1), order) for key, order in summarise.items() if key in keys}

    if not verify:
        return mapped(summarise)
    recorded = manifest.get("checksum")
    if not isinstance(recorded, dict) or not isinstance(recorded.get(CHECKSUM), str):
        raise InputError(f"{where}: {MANIFEST} records no {CHECKSUM} checksum (a store written by an older "
                         f"cwla?): write it again with this cwla, or open it with verify=False")
    try:
        mine = manifest_digest(manifest)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where}: {MANIFEST} holds values JSON cannot hold ({exc})") from None
    if mine != recorded[CHECKSUM]:
        raise InputError(f"{where}: {MANIFEST} was changed after the store was written (its {CHECKSUM} "
                         f"checksum is {recorded[CHECKSUM]!r}, its content gives {mine!r}); write the store again")
    for f in files.values():
        if not isinstance(f.checksum, str):
            raise InputError(f"{where}: {MANIFEST} records no {CHECKSUM} checksum of {f.name}")

    # files this machine hashed before and whose stamps are unchanged are not read again (cwla.data._verified)
    folder = os.path.dirname(next(iter(files.values())).path) if files else ""
    started = now_ns()
    stamps = {key: (_readable(stamp, f, where), f.checksum) for key, f in files.items()}
    seen = recorded_files(folder) if files else {}
    known = {key for key, f in files.items() if seen.get(f.name) == stamps[key]}

    def one(key):
        f = files[key]
        return key, f.name, f.checksum, _readable(lambda path: _scan(path, f.offset, f.nbytes, arrays[key].dtype,
                                                                     summarise.get(key)), f, where)

    largest = sorted(set(files) - known, key=lambda k: -files[k].nbytes)
    if sum(files[k].nbytes for k in largest) >= _THREADS_FROM and (os.cpu_count() or 1) > 1:
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(one, largest))
    else:
        results = [one(key) for key in largest]
    summaries = mapped(known)
    for key, name, expected, (digest, summary) in results:
        if digest != expected:
            raise InputError(f"{where}: {name} was changed after the store was written (its {CHECKSUM} checksum "
                             f"is {expected!r}, its bytes give {digest!r}); write the store again")
        if summary is not None:
            summaries[key] = summary
    if results:
        remember(folder, {files[key].name: stamps[key] for key in files}, started)
    return summaries


def _readable(read, f: ArrayFile, where: str):
    """``read(f.path)``; a file removed or made unreadable since it was mapped is an InputError."""
    try:
        return read(f.path)
    except OSError as exc:
        raise InputError(f"{where}: {f.name} cannot be read ({exc.strerror or exc}); was the store removed or "
                         f"changed while it was opened?") from None
