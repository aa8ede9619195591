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
from collections.abc import Callable, Iterator

import numpy as np

from ..errors import InputError
from ._docnos import read_only

__all__ = ["read_bytes", "read_array", "text_blocks", "BLOCK_BYTES", "decoded_lines", "text_lines", "text_size", "UTF8_BOM", "check_outputs",
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
    with _opened(path, what, layout, error) as fh:
        data = fh.read() if allocate is None else _read_all(fh, allocate)
    if bytes(data[:len(GZIP_MAGIC)]) == GZIP_MAGIC:
        with _undecodable(label, error):
            data = gunzip(data, label, error)
    if bytes(data[:len(UTF8_BOM)]) == UTF8_BOM:
        data = data[len(UTF8_BOM):]
    return data


def _opened(path, what: str, layout: str | None, error: type[Exception]):
    """The file at ``path`` opened for reading bytes; a missing file or a folder refused with the message
    every reader gives."""
    label = os.fsdecode(path)
    try:
        return open(path, "rb")
    except FileNotFoundError:
        expected = f" (expected a path to a TREC {what} file: {layout})" if layout else ""
        raise FileNotFoundError(errno.ENOENT, f"{what} file does not exist{expected}", label) from None
    except IsADirectoryError:
        kind = f"TREC {what} file ({layout})" if layout else f"{what} file"
        raise error(f"{label} is a directory, not a {kind}") from None


@contextlib.contextmanager
def _undecodable(label: str, error: type[Exception]):
    """zlib's and gzip's errors while decompressing ``label`` as the readers' one message."""
    try:
        yield
    except (OSError, EOFError, zlib.error) as exc:
        raise error(f"{label}: starts like a gzip file but cannot be decompressed ({exc}); accepted: plain "
                    f"text or gzip") from None


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


def _gzip_limit(compressed: int) -> tuple[int, int | None]:
    """``(limit, memory)``: the most text a gzip file of ``compressed`` bytes may decompress to (:func:`gunzip`),
    and the machine's memory where a quarter of it is the bound (else None: the ratio is)."""
    memory = physical_memory()
    by_ratio = max(_RATIO_FROM, MAX_GZIP_RATIO * compressed)
    return (memory // 4, memory) if memory and memory // 4 < by_ratio else (by_ratio, None)


def _check_gzip_size(total: int, compressed: int, label: str, error: type[Exception]) -> None:
    """Refuse ``total`` bytes of text decompressed from ``compressed`` bytes once past :func:`_gzip_limit`."""
    limit, memory = _gzip_limit(compressed)
    if total <= limit:
        return
    if memory is None:
        raise error(f"{label}: this gzip file of {compressed:,} bytes decompresses to more than "
                    f"{limit:,} (over {MAX_GZIP_RATIO}x; TREC text compresses 4-10x): refused as a gzip "
                    f"bomb before it fills the memory")
    raise error(f"{label}: decompresses to more than {limit:,} bytes, a quarter of this machine's memory "
                f"({memory:,} bytes): the text and the arrays read from it would not fit")


def gunzip(data, label: str, error: type[Exception] = InputError) -> bytes:
    """``data`` (gzip, one member or several) decompressed, refused with ``error`` once the output passes
    what a real file could hold: more than :data:`MAX_GZIP_RATIO` times the compressed size (once past
    64 MiB), or more than a quarter of the machine's memory (the text, and the arrays parsed from it, must
    fit). zlib stops at that limit, so a gzip bomb is refused having decompressed about 100 times its own
    size, never filling the memory first; a real file is decompressed in one call, as ``gzip.decompress``
    does."""
    compressed = len(data)
    limit, _ = _gzip_limit(compressed)
    out, total = [], 0
    pending = memoryview(data).cast("B")
    while True:
        decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
        piece = decompressor.decompress(pending, limit - total + 1)
        total += len(piece)
        _check_gzip_size(total, compressed, label, error)
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


#: the text a block of :func:`text_blocks` holds (more for a line longer than that)
BLOCK_BYTES = 8 * 2**20


def text_blocks(path, what: str, *, layout: str | None = None, block_bytes: int = BLOCK_BYTES,
                error: type[Exception] = InputError):
    """The text of the file at ``path`` (as :func:`read_bytes` gives it: gzip decompressed, without a
    byte-order mark) in read-only uint8 blocks of whole lines, of about ``block_bytes`` each.

    The file is read, and a gzip file decompressed, a block at a time, so reading costs a bounded
    working set (one buffer, grown only for a line longer than it), never a copy of the whole text.
    Each block ends with a newline (the last one, where the file does not, without). A block is a view
    of that buffer: valid until the next block is asked for. Errors as :func:`read_bytes` (a gzip
    bomb, a damaged gzip file: when its block is reached).
    """
    label = os.fsdecode(path)
    with _opened(path, what, layout, error) as fh:
        head = fh.read(len(GZIP_MAGIC))
        info = os.fstat(fh.fileno())
        regular = stat.S_ISREG(info.st_mode)
        if head == GZIP_MAGIC:
            source = _Gunzipping(fh, head, info.st_size if regular else None, label, error)
        else:
            source = _Prefixed(fh, head)
            if regular:  # a plain file smaller than a block: its size
                block_bytes = max(1, min(block_bytes, info.st_size + 1))
        buf = np.empty(block_bytes, dtype=np.uint8)
        fill, first = 0, True
        while True:
            n = source.readinto(memoryview(buf)[fill:])
            fill += n
            if first and (fill >= len(UTF8_BOM) or n == 0):
                first = False
                if bytes(buf[:len(UTF8_BOM)]) == UTF8_BOM:
                    buf[:fill - len(UTF8_BOM)] = buf[len(UTF8_BOM):fill].copy()
                    fill -= len(UTF8_BOM)
            if n and fill < len(buf):
                continue  # fill the buffer first
            if n == 0:  # the end of the text
                if fill:
                    yield read_only(buf[:fill])
                return
            cut = _after_last_newline(buf, fill)
            if cut == 0:  # one line fills the buffer: a longer one
                buf = np.concatenate([buf, np.empty(len(buf), dtype=np.uint8)])
                continue
            yield read_only(buf[:cut])
            rest = fill - cut
            buf[:rest] = buf[cut:fill].copy()
            fill = rest


def _after_last_newline(buf: np.ndarray, fill: int) -> int:
    """The position after the last newline of ``buf[:fill]`` (0 if it holds none)."""
    at = bytes(buf[max(0, fill - 2**16):fill]).rfind(b"\n")  # a line is rarely longer than 64 KiB
    if at >= 0:
        return max(0, fill - 2**16) + at + 1
    hits = np.flatnonzero(buf[:fill] == 10)
    return int(hits[-1]) + 1 if len(hits) else 0


class _Prefixed:
    """A plain file's ``readinto``, after the ``head`` bytes already read from it."""

    def __init__(self, fh, head: bytes):
        self.fh, self.head = fh, head

    def readinto(self, view) -> int:
        if self.head:
            n = min(len(self.head), len(view))
            view[:n] = self.head[:n]
            self.head = self.head[n:]
            return n
        return self.fh.readinto(view) or 0


class _Gunzipping:
    """A gzip file's decompressed text, ``readinto`` a block at a time: several members, zero padding
    after a member, and the size limit of :func:`gunzip` (checked against the compressed bytes of a
    regular file, or those read so far from a pipe)."""

    #: compressed bytes read at a time
    CHUNK = 2**20

    def __init__(self, fh, head: bytes, compressed: int | None, label: str, error: type[Exception]):
        self.fh, self.label, self.error = fh, label, error
        self.compressed = compressed  # the file's size; None for a pipe
        self.read_so_far = len(head)
        self.pending = head
        self.decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self.total = 0

    def _more(self) -> bytes:
        data = self.fh.read(self.CHUNK)
        self.read_so_far += len(data)
        return data

    def readinto(self, view) -> int:
        with _undecodable(self.label, self.error):
            while True:
                if self.decompressor.eof:  # a member ended: another one, zero padding, or the end
                    rest = self.decompressor.unused_data.lstrip(b"\0") or self.pending.lstrip(b"\0")
                    while not rest:
                        more = self._more()
                        if not more:
                            return 0
                        rest = more.lstrip(b"\0")
                    while len(rest) < len(GZIP_MAGIC) and (more := self._more()):
                        rest += more
                    if rest[:len(GZIP_MAGIC)] != GZIP_MAGIC:
                        raise EOFError("trailing bytes after the gzip data are not another gzip member")
                    self.decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    self.pending = rest
                if not self.pending:
                    self.pending = self._more()
                    if not self.pending:
                        raise EOFError("compressed file ended before the end-of-stream marker was reached")
                piece = self.decompressor.decompress(self.pending, len(view))
                self.pending = self.decompressor.unconsumed_tail
                if self.decompressor.eof:
                    self.pending = b""  # what follows the member is in unused_data
                if piece:
                    self.total += len(piece)
                    compressed = self.compressed if self.compressed is not None else self.read_so_far
                    _check_gzip_size(self.total, compressed, self.label, self.error)
                    view[:len(piece)] = piece
                    return len(piece)


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


def columns_of(fields: list[str], layout: str, where: str) -> list[str]:
    """``fields``, a line's whitespace-separated fields, checked to be the columns of ``layout`` (their names,
    space-separated); another number is refused naming ``where`` (file and line) and the layout."""
    if len(fields) != len(layout.split()):
        raise InputError(f"{where}: expected {len(layout.split())} columns ({layout}), found {len(fields)}")
    return fields


def text_fields(path, what: str, layout: str) -> Iterator[tuple[int, list[str]]]:
    """``(line number, fields)`` of every non-blank line of a text file of the columns of ``layout``
    (:func:`text_lines`, :func:`columns_of`), line by line: a line's columns are checked when it is reached, so
    the first bad line is the one reported, whatever is wrong with it."""
    for n, line in text_lines(path, what):
        yield n, columns_of(line.split(), layout, f"{path}, line {n}")


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
