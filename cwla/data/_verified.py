"""This machine's record of the store files whose bytes it has verified, so that opening a store again
does not hash it again.

A file's *stamp* is what the file system says of it: device, inode, size, and the modification and
change times to the nanosecond. A write to a file sets both times to the current time, and no call
sets the change time back; so a file whose stamp is the one recorded when its bytes were hashed and
found to match still holds those bytes, provided the hashing came well after the file's last change.
Two kinds of write may leave the times as they were: a write within the same clock tick as the one
before it (Linux keeps file times at its coarse clock's resolution; git calls this "racy clean"), and
a write through a writable memory map (``numpy.load(..., mmap_mode="r+")``) to a page already written
and not yet written back to the disk (Linux's default writeback takes up to 35 s:
``vm.dirty_expire_centisecs`` 30 s plus ``vm.dirty_writeback_centisecs`` 5 s). So a file is recorded only
when its last change was :data:`RACY_NS` (60 s) before the check began, and never on a file system held
in memory (tmpfs, ramfs: their pages are never written back): a store just written, or kept in
``/dev/shm``, is hashed on every open.

What the record cannot see: bytes changed beneath the file system (on the disk itself), writes through
a memory map kept dirty longer than the writeback above (a changed ``vm.dirty_expire_centisecs``), and
a forger who rewrites the record. Copying a store (new inodes) or replacing it (a new save) makes its
stamps differ: it is hashed again. The record lives in the kernel cache folder
(:func:`cwla.cache_dir`), one small JSON file per store folder; a cache folder shared between machines
(a home folder on NFS) shares the record too, and file times set by a file server whose clock is ahead
shorten the 60 s. Without a writable cache folder nothing is recorded and every open hashes every byte.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
from time import time_ns

from .._numba import cache_dir

__all__ = ["RACY_NS", "IN_MEMORY", "Stamp", "stamp", "recorded", "remember", "file_system", "now_ns", "forget"]

#: a file is recorded only if its last change was this long before the check began (module docstring)
RACY_NS = 60_000_000_000

#: file systems held in memory, whose pages are never written back: their files are never recorded
IN_MEMORY = frozenset({"tmpfs", "ramfs", "devtmpfs", "hugetlbfs"})

#: (device, inode, size, modification time ns, change time ns)
Stamp = tuple


def stamp(path: str) -> Stamp:
    """The file system's stamp of ``path`` (module docstring)."""
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _record_path(folder: str) -> str | None:
    root = cache_dir()
    if root is None:
        return None
    key = hashlib.sha1(os.path.abspath(folder).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return os.path.join(root, "verified-stores", key + ".json")


def recorded(folder: str) -> dict[str, tuple[Stamp, str]]:
    """``{file name: (stamp, checksum)}`` this machine recorded for the store ``folder`` (empty when
    there is no record or it is unreadable: then every file is hashed)."""
    path = _record_path(folder)
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        if record.get("folder") != os.path.abspath(folder):
            return {}
        return {name: (tuple(entry[0]), entry[1]) for name, entry in record["files"].items()}
    except Exception:  # noqa: BLE001 - no record, or one this cwla cannot read: hash everything
        return {}


def file_system(folder: str, mountinfo: str = "/proc/self/mountinfo") -> str | None:
    """The type of the file system holding ``folder``: that of the longest mount point of ``mountinfo``
    (Linux's mount table) that holds it; None where there is no such table or it cannot be read."""
    try:
        with open(mountinfo, encoding="utf-8", errors="surrogateescape") as f:
            mounts = [line.split(" - ", 1) for line in f]
    except OSError:
        return None
    target, best, kind = os.path.realpath(folder), -1, None
    for head, tail in (m for m in mounts if len(m) == 2):
        fields = head.split()
        if len(fields) < 5 or not tail.split():
            continue
        point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])  # \040: a space
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) > best:
            best, kind = len(point), tail.split()[0]
    return kind


def remember(folder: str, files: dict[str, tuple[Stamp, str]], started_ns: int) -> None:
    """Record the files of ``folder`` just found to match their checksums (``{name: (stamp taken before
    they were read, checksum)}``), except those changed less than :data:`RACY_NS` before ``started_ns``
    and any on a file system held in memory (:data:`IN_MEMORY`); a cache folder that cannot be written
    is no error."""
    path = _record_path(folder)
    if path is None or file_system(folder) in IN_MEMORY:
        return
    keep = {name: [list(s), checksum] for name, (s, checksum) in files.items()
            if max(s[3], s[4]) <= started_ns - RACY_NS}
    if not keep or recorded(folder) == {n: (tuple(e[0]), e[1]) for n, e in keep.items()}:
        return
    tmp = f"{path}.{secrets.token_hex(6)}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"folder": os.path.abspath(folder), "files": keep}, f)
        os.replace(tmp, path)  # readers see the old record or the new one, never a part
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def now_ns() -> int:
    """The wall clock, in ns (a function, so that tests can move it)."""
    return time_ns()


def forget(folder: str) -> None:
    """Remove this machine's record of the store ``folder``: its next verified open hashes every byte."""
    path = _record_path(folder)
    if path is not None:
        with contextlib.suppress(OSError):
            os.unlink(path)

