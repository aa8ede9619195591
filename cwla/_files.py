"""Writing files safely: an output is never one of the inputs, and a file is written whole or not at all.

:func:`check_outputs` refuses an output path that names an input file (the same file by
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

from .errors import InputError

__all__ = ["check_outputs", "atomic_write", "atomic_write_text"]


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
