"""Files in and out: the one opener of text inputs, and outputs that never touch an input.

**Reading.** :func:`read_bytes` gives a file's content decompressed (gzip is recognised by its magic
bytes, whatever the suffix) and without a UTF-8 byte-order mark; a pipe or FIFO
(``<(zcat run.gz)``) is read whole. Every reader of cwla and discpower opens its files with it
(the TREC readers, the fast tokenizer, cwl_eval's metrics and cost files, discpower's matrices), so
a missing file, a folder or a corrupt gzip file gets the same clear error everywhere.
:func:`text_lines` decodes the lines as UTF-8, naming the file and line of a byte that is not.

**Writing.** :func:`check_outputs` refuses an output path that names an input file (the same file by
:func:`os.path.samefile`, so through links and other spellings too) before anything is
written. :func:`atomic_write` writes to a temporary file in the target's folder and renames it
over the target with :func:`os.replace`: a reader sees the old file or the new one, never half of
one, and an error while writing leaves the old file as it was.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import zlib
from collections.abc import Callable

import numpy as np

from ..errors import InputError
from ._docnos import read_only

__all__ = ["read_bytes", "read_array", "decoded_lines", "text_lines", "text_size", "UTF8_BOM", "check_outputs",
           "atomic_write", "atomic_write_text"]

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"


def read_bytes(path, what: str, *, layout: str | None = None, error: type[Exception] = InputError,
               allocate: Callable[[int], np.ndarray] | None = None) -> bytes | np.ndarray:
    """The content of the file at ``path``: decompressed if it is gzip, without a UTF-8 byte-order mark.

    Parameters
    ----------
    path : str or os.PathLike
    what : str
        What the file holds, for the messages (``"qrels"``, ``"score matrix"``).
    layout : str, optional
        Its line layout (``"qid iter docno grade"``), for the messages of a TREC file.
    error : exception class
        Raised for a folder and for a file that starts like gzip but does not decompress.
    allocate : callable, optional
        ``n -> uint8 array``: a plain file is read straight into such an array (NumPy backs large
        arrays with huge pages where the system offers them, a tenth of the page faults of a
        ``bytes`` object of the same size); a decompressed one stays ``bytes``.

    Raises
    ------
    FileNotFoundError
        Naming the file and what was expected there.
    """
    label = os.fsdecode(path)
    kind = f"TREC {what} file ({layout})" if layout else f"{what} file"
    try:
        with open(path, "rb") as fh:
            data = fh.read() if allocate is None else _read_all(fh, allocate)
    except FileNotFoundError:
        expected = f" (expected a path to a TREC {what} file: {layout})" if layout else ""
        raise FileNotFoundError(errno.ENOENT, f"{what} file does not exist{expected}", label) from None
    except IsADirectoryError:
        raise error(f"{label} is a directory, not a {kind}") from None
    if bytes(data[:len(GZIP_MAGIC)]) == GZIP_MAGIC:
        try:
            data = gunzip(data, label, error)
        except (OSError, EOFError, zlib.error) as exc:
            raise error(f"{label}: starts like a gzip file but cannot be decompressed ({exc}); accepted: plain "
                        f"text or gzip") from None
    if bytes(data[:len(UTF8_BOM)]) == UTF8_BOM:
        data = data[len(UTF8_BOM):]
    return data


#: the most a gzip file may expand, output over input: TREC run and qrels text compresses 4-10x, and deflate's
#: own limit is about 1,032x (a gzip bomb: a small file of one repeated line)
MAX_GZIP_RATIO = 100
#: below this many decompressed bytes the ratio is not checked (a small file of repeated lines is no threat)
_RATIO_FROM = 64 * 2**20
def physical_memory() -> int | None:
    """The machine's physical memory in bytes, or None where it is not known (not POSIX)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def gunzip(data, label: str, error: type[Exception] = InputError) -> bytes:
    """``data`` (gzip, one member or several) decompressed, refused with ``error`` once the output passes
    what a real file could hold: more than :data:`MAX_GZIP_RATIO` times the compressed size (once past
    64 MiB), or more than a quarter of the machine's memory (the text, and the arrays parsed from it, must
    fit). zlib stops at that limit, so a gzip bomb is refused having decompressed about 100 times its own
    size, never filling the memory first; a real file is decompressed in one call, as ``gzip.decompress``
    does."""
    compressed = len(data)
    memory = physical_memory()
    by_ratio = max(_RATIO_FROM, MAX_GZIP_RATIO * compressed)
    limit = min(by_ratio, memory // 4) if memory else by_ratio
    out, total = [], 0
    pending = memoryview(data).cast("B")
    while True:
        decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
        piece = decompressor.decompress(pending, limit - total + 1)
        total += len(piece)
        if total > limit:
            if limit == by_ratio:
                raise error(f"{label}: this gzip file of {compressed:,} bytes decompresses to more than "
                            f"{limit:,} (over {MAX_GZIP_RATIO}x; TREC text compresses 4-10x): refused as a gzip "
                            f"bomb before it fills the memory")
            raise error(f"{label}: decompresses to more than {limit:,} bytes, a quarter of this machine's memory "
                        f"({memory:,} bytes): the text and the arrays read from it would not fit")
        out.append(piece)
        if not decompressor.eof:
            raise EOFError("compressed file ended before the end-of-stream marker was reached")
        rest = decompressor.unused_data.lstrip(b"\0")  # gzip's zero padding, after a member
        if not rest:
            return out[0] if len(out) == 1 else b"".join(out)
        if rest[:len(GZIP_MAGIC)] != GZIP_MAGIC:
            raise EOFError("trailing bytes after the gzip data are not another gzip member")
        pending = rest


def read_array(path, what: str, *, layout: str | None = None,
               allocate: Callable[[int], np.ndarray] | None = None) -> np.ndarray:
    """:func:`read_bytes` as a read-only uint8 array (a plain file read into ``allocate(size)``, default
    ``np.empty``); what the fast tokenizer scans.

    Always read-only (:func:`cwla.data._docnos.read_only`), whether the file was plain (read into an
    array) or gzip (decompressed into a ``bytes`` object, which NumPy can only view read-only).
    """
    allocate = allocate or (lambda n: np.empty(n, dtype=np.uint8))
    data = read_bytes(path, what, layout=layout, allocate=allocate)
    return read_only(data if isinstance(data, np.ndarray) else np.frombuffer(data, dtype=np.uint8))


def _read_all(fh, allocate) -> np.ndarray:
    """The rest of an open binary file, read into ``allocate(its size)`` (a pipe, whose size is not known,
    is read whole first)."""
    info = os.fstat(fh.fileno())
    if not stat.S_ISREG(info.st_mode):  # a pipe or FIFO (``<(zcat run.gz)``): no size, no seeking
        return np.frombuffer(fh.read(), dtype=np.uint8)
    size = max(info.st_size - fh.tell(), 0)
    out = allocate(size)
    n = fh.readinto(out)
    more = fh.read()  # a file that grew while being read, or one whose size is not known in advance
    return np.concatenate([out[:n], np.frombuffer(more, dtype=np.uint8)]) if more else out[:n]


def decoded_lines(data: bytes, label: str, *, error: type[Exception] = InputError, hint: str = ""):
    """Yield ``(line number, text)`` of every physical line of ``data`` (split on \\n, \\r\\n and \\r, as
    pandas does), decoded as UTF-8; a line that is not raises ``error`` naming ``label`` and the line
    (``hint`` ends the message)."""
    for lineno, raw in enumerate(data.splitlines(), start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise error(f"{label}, line {lineno}: not valid UTF-8 text ({exc.reason} at byte {exc.start} of the "
                        f"line){hint}") from None
        yield lineno, text


def text_lines(path, what: str, *, error: type[Exception] = InputError) -> list[tuple[int, str]]:
    """``(line number, text)`` of every non-blank line of a text file (:func:`read_bytes`), decoded as UTF-8
    (:func:`decoded_lines`)."""
    data = bytes(read_bytes(path, what, error=error))
    lines = decoded_lines(data, os.fsdecode(path), error=error, hint="; accepted: UTF-8 text")
    return [(n, text) for n, text in lines if text.strip()]


def is_gzip(path) -> bool:
    """Whether the file at ``path`` starts with gzip's magic bytes."""
    with open(path, "rb") as f:
        return f.read(len(GZIP_MAGIC)) == GZIP_MAGIC


def text_size(path) -> int:
    """About how many bytes of text the file holds: its size, four times that for a gzip file."""
    size = os.path.getsize(path)
    return 4 * size if is_gzip(path) else size


def _same_file(a, b) -> bool:
    """Whether paths ``a`` and ``b`` name the same file (existing files: same device and inode)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return os.path.realpath(a) == os.path.realpath(b)


def check_outputs(outputs, inputs) -> None:
    """Refuse to write over an input.

    Parameters
    ----------
    outputs, inputs : iterable of (label, path)
        The paths a command will write and the files it reads, each with the name the user knows
        it by (an option such as ``--pairs``, or ``run``); entries that are not paths (a
        DataFrame, None, ``-`` for stdout) are skipped.

    Raises
    ------
    InputError
        An output that is the same file as an input, naming both; an output that is a folder, or
        whose folder is a file.
    """
    inputs = [(label, path) for label, path in inputs if _is_path(path)]
    for out_label, out_path in outputs:
        if not _is_path(out_path):
            continue
        _check_place(out_label, out_path)
        for in_label, in_path in inputs:
            if _same_file(out_path, in_path):
                raise InputError(f"{out_label} {os.fsdecode(out_path)} is the {in_label} file "
                                 f"{os.fsdecode(in_path)}: writing it would destroy an input; give another "
                                 f"output file")


def _check_place(label, path) -> None:
    """Refuse an output path that is a folder, or whose folder is a file."""
    folder = os.path.dirname(os.fspath(path)) or os.curdir
    if os.path.isdir(path):
        raise InputError(f"{label} {os.fsdecode(path)} is a folder: give a file name")
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise InputError(f"cannot write {label} {os.fsdecode(path)}: {os.fsdecode(folder)} is a file, not a folder")


def _is_path(value) -> bool:
    return isinstance(value, (str, bytes, os.PathLike)) and os.fspath(value) not in ("", "-", b"", b"-")


@contextlib.contextmanager
def atomic_write(path, mode: str = "w", encoding: str = "utf-8"):
    """Open ``path`` for writing, atomically: a file object on a temporary file in the same folder,
    renamed over ``path`` when the block ends without an error (removed if it raises).

    A symbolic link is followed (its target is replaced); an existing file keeps its permissions,
    a new one gets the usual ``0o666`` less the umask. ``mode`` is ``"w"`` (text, ``encoding``)
    or ``"wb"``.
    """
    label = os.fsdecode(path)
    target = os.path.realpath(os.fspath(path))
    if os.path.isdir(target):
        raise IsADirectoryError(errno.EISDIR, "is a folder: give a file name", label)
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise FileNotFoundError(errno.ENOENT, f"cannot write it: folder {folder} does not exist", label)
    fd, temporary = _temporary(folder, os.path.basename(target), label)
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as fh:
            yield fh
        _keep_mode(target, temporary)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _temporary(folder: str, name: str, label: str) -> tuple[int, str]:
    """A new, exclusively created file ``folder/.name.XXXXXXXX.tmp``: (descriptor, path). Errors name ``label``."""
    while True:
        temporary = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), temporary
        except FileExistsError:
            continue
        except OSError as err:
            raise type(err)(err.errno, f"cannot write it: {err.strerror}", label) from None


def _keep_mode(target: str, temporary: str) -> None:
    """Give the temporary file the permissions of the file it replaces (if there is one)."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return
    os.chmod(temporary, mode)


def atomic_write_text(path, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_write`)."""
    with atomic_write(path, "w", encoding) as fh:
        fh.write(text)
