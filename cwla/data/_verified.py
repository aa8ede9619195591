"""This machine's record of the store files whose bytes it has verified, so that opening a store again
does not hash it again.

A file's *stamp* is what the file system says of it: device, inode, size, and the modification and
change times to the nanosecond. Every write to a file sets both times to the current time, and no call
sets the change time back; so a file whose stamp is the one recorded when its bytes were hashed and
found to match still holds those bytes, provided the hashing came well after the file's last change.
A write within the same clock tick as the one before it leaves the times unchanged (Linux keeps file
times at its coarse clock's resolution; git calls this "racy clean"), so a file is recorded only when
its last change was :data:`RACY_NS` before the check began: a store just written is hashed on every
open until it is that old.

What the record cannot see: bytes changed on the medium beneath the file system (bit rot), and a
forger who rewrites the record. Copying a store (new inodes) or replacing it (a new save) makes its
stamps differ: it is hashed again. The record lives in the kernel cache folder
(:func:`cwla.cache_dir`), one small JSON file per store folder; without a writable cache folder
nothing is recorded and every open hashes every byte.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
from time import time_ns

from .._numba import cache_dir

__all__ = ["RACY_NS", "Stamp", "stamp", "recorded", "remember", "now_ns"]

#: a file is recorded only if its last change was this long before the check began
RACY_NS = 2_000_000_000

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


def remember(folder: str, files: dict[str, tuple[Stamp, str]], started_ns: int) -> None:
    """Record the files of ``folder`` just found to match their checksums (``{name: (stamp taken before
    they were read, checksum)}``), except those changed less than :data:`RACY_NS` before ``started_ns``;
    a cache folder that cannot be written is no error."""
    path = _record_path(folder)
    keep = {name: [list(s), checksum] for name, (s, checksum) in files.items()
            if max(s[3], s[4]) <= started_ns - RACY_NS}
    if path is None or not keep or recorded(folder) == {n: (tuple(e[0]), e[1]) for n, e in keep.items()}:
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
