"""Compiling ahead: on a cold start, the evaluation's kernels compile in a second process while this one reads.

numba compiles a kernel in the process that first calls it, one kernel after the other under one process-wide
lock. A first ``cwla eval`` with an empty kernel cache therefore compiles the file reader's kernels, then those
that place the (topic, document) pairs, join them to the qrels and score the cells, in turn: 11 of the 13 s of a
first ``cwla demo`` on the 2-core machine (``benchmarks/bench_compile.py``, issue 37).

When a process misses the cache on the reader's first kernel (it is about to read run files with nothing
compiled), its cache is writable, it may use at least two cores and runs on a POSIX system from a Python
interpreter, it starts a second process (``python -c``, importing the cwla this process imported). That process
evaluates a one-topic collection given as frames, which compiles the kernels of :data:`AHEAD` (the pairs', the
join's and the scoring kernel of the usual measures) into the same cache folder, while this process compiles
the reader's. It compiles nothing if it imports other sources (their hash differs), finds another cache folder,
or another second process already compiles into that folder (a lock file), and it ends when this process does.

When this process then needs a kernel of :data:`AHEAD` that the cache does not hold yet, it waits for the second
process to write it (reading the cache again every 10 ms) rather than compiling it a second time; if the second
process ends without it, or has run for :data:`_PATIENCE` seconds, this one compiles it. The second process is
stopped when this one exits; its output goes nowhere. Writes to the cache are serialised across processes
(``cwla._numba``), so two processes compiling the same helper for different argument types never mix up
numba's index files.

Off with ``CWLA_COMPILE_AHEAD=0``, and on one core (CPU affinity; a container's CPU quota is not read).
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading
import time

__all__ = ["AHEAD", "ENV", "after_a_miss", "command", "end_with"]

#: set to ``0`` to compile every kernel in the process that needs it
ENV = "CWLA_COMPILE_AHEAD"
_CHILD = "CWLA_COMPILING_AHEAD"  # set in the second process (which starts none of its own)

#: the kernels the second process compiles (tests/project/test_compile_set.py: the documented compile set but
#: the reader's kernels, and a first demo on two cores compiles only the reader's)
AHEAD = frozenset({
    "cwla.data._docnos._hash_all", "cwla.data._join.group_by_cell", "cwla.data._join.join_run",
    "cwla.data._join.order_cells", "cwla.data._pairs._cell_bytes", "cwla.data._pairs._group",
    "cwla.data._pairs._insert_run", "cwla.data._pairs._place", "cwla.data._pairs._remap_cells",
    "cwla.data._pairs._scatter", "cwla.data._pairs._sort_groups_by_hash", "cwla.data._pairs.find_pairs",
    "cwla.scoring.kernels.score_cells_metrics",
})
#: a miss of one of these (the reader's first kernels) starts the second process
_TRIGGERS = frozenset({"cwla.data._tokenize.check_bytes", "cwla.data._tokenize._scan"})
_POLL = 0.01      # seconds between two reads of the cache while waiting
_PATIENCE = 120.0  # seconds the second process may run before this one stops waiting for it (and stops it)

#: the second process's program (argv: the folder holding this cwla, the key of its sources, its cache folder,
#: the first process's id): its own cwla first on the path (not the working folder's); exit code 2 when it has
#: nothing to do (other sources, another cache folder, or another second process compiling into that folder)
_PROGRAM = """
import fcntl, os, sys
package_parent, key, folder, parent = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if sys.path and sys.path[0] == "":
    del sys.path[0]
if package_parent not in sys.path:
    sys.path.insert(0, package_parent)
import cwla
from cwla._numba import _sources_key
from cwla._ahead import end_with
if _sources_key()[0] != key or cwla.cache_dir() != folder:
    sys.exit(2)
end_with(parent)
with open(os.path.join(folder, ".compile-ahead.lock"), "w") as lock:
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        sys.exit(2)
    from cwla.scoring.warmup import one_topic
    cwla.evaluate(*one_topic(), ["nDCG@10"])
"""


def command(key: str, folder: str) -> list[str]:
    """The second process's command line, for sources ``key`` and the cache folder ``folder``."""
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return [sys.executable, "-c", _PROGRAM, package_parent, key, folder, str(os.getpid())]


_started = False
_worker: subprocess.Popen | None = None
_owner = 0  # the process that started it (a forked child does not wait for its parent's)
_since = 0.0


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS
        return os.cpu_count() or 1


def _can_start() -> bool:
    return (os.environ.get(ENV, "1").strip() != "0" and not os.environ.get(_CHILD) and os.name == "posix"
            and bool(sys.executable) and not getattr(sys, "frozen", False) and _cores() >= 2)


def _start(key: str, folder: str | None) -> None:
    global _worker, _owner, _since
    if folder is None:
        return
    env = {**os.environ, _CHILD: "1", "CWLA_CACHE_DIR": os.path.dirname(folder)}  # this process's cache
    try:
        _worker = subprocess.Popen(command(key, folder), env=env, cwd=os.path.dirname(folder),
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, ValueError, TypeError):  # no process can be started here: compile everything in this one
        return
    _owner, _since = os.getpid(), time.monotonic()
    threading.Thread(target=_worker.wait, name="cwla-compile-ahead-reaper", daemon=True).start()
    atexit.register(_stop)


def _stop() -> None:
    global _worker
    if _worker is not None and _owner == os.getpid() and _worker.poll() is None:
        _worker.terminate()
        try:
            _worker.wait(timeout=5)
        except subprocess.TimeoutExpired:
            _worker.kill()
    _worker = None


def after_a_miss(name: str, key: str, folder: str | None, load):
    """What to do when the kernel ``name`` (``module.qualname``) misses the cache of sources ``key`` in
    ``folder``: start
    the second process at the first miss of a reader's kernel; for a kernel of :data:`AHEAD` while that
    process runs, ``load()`` again until it gives the kernel (returned) or the process ends; else None
    (compile it here)."""
    global _started
    if not _started and name in _TRIGGERS:
        _started = True
        if _can_start():
            _start(key, folder)
        return None
    if _worker is None or name not in AHEAD or _owner != os.getpid():
        return None
    from .progress import compile_notice

    with compile_notice.elsewhere():
        while time.monotonic() - _since < _PATIENCE:
            ended = _worker.poll() is not None
            found = load()
            if found is not None or ended:
                return found
            time.sleep(_POLL)
    _stop()  # it has run too long: this process compiles the rest itself
    return None


def end_with(parent: int) -> None:
    """In the second process: end it when the process that started it (``parent``) is gone (killed, or ended
    without stopping it)."""

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="cwla-compile-ahead-watch", daemon=True).start()
