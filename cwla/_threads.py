"""Serial kernels over many cells, run on several threads.

The scoring kernels (:mod:`cwla.scoring.kernels`) are serial numba functions over a range of
cells ``start:stop`` that release the GIL. :func:`over_chunks` splits the cells into chunks and
runs them on ``numba.get_num_threads()`` threads (``NUMBA_NUM_THREADS``, or
:func:`numba.set_num_threads` in the calling thread), each thread taking the next chunk when it
is done with one, so that long and short rankings balance out. Every cell is computed by the same
code whatever the number of threads, so results do not depend on it.

Why not numba's ``prange``: a ``parallel=True`` kernel costs numba about twice the compile time
of the same serial kernel (the parfor passes and the gufunc wrapper: 1.2 s of the 2.5 s of the
scoring kernel of a first ``cwla eval``), and that compile is what a first run waits for.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numba

__all__ = ["over_chunks", "CHUNKS_PER_THREAD"]

#: chunks per thread: enough for the threads to even out uneven cells, few enough that a chunk stays long
CHUNKS_PER_THREAD = 4


def over_chunks(call: Callable[[int, int], None], n: int, *, min_chunk: int = 64) -> None:
    """``call(start, stop)`` for consecutive chunks that cover ``range(n)``, on several threads.

    ``call`` must release the GIL (a ``nogil`` kernel) and write only its own chunk's outputs. With
    one thread, or fewer than ``2 * min_chunk`` items, it is one call on this thread. The first
    exception a chunk raises (in chunk order) is raised here, once every thread has stopped.
    """
    threads = min(numba.get_num_threads(), max(1, n // min_chunk))
    if threads <= 1:
        call(0, n)
        return
    n_chunks = min(threads * CHUNKS_PER_THREAD, max(1, n // min_chunk))
    bounds = [n * i // n_chunks for i in range(n_chunks + 1)]
    lock = threading.Lock()
    todo = iter(range(n_chunks))
    errors: dict = {}

    def work() -> None:
        while True:
            with lock:
                i = next(todo, None)
            if i is None:
                return
            try:
                call(bounds[i], bounds[i + 1])
            except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
                errors[i] = exc
                return

    helpers = [threading.Thread(target=work, name=f"cwla-cells-{k}", daemon=True) for k in range(threads - 1)]
    for t in helpers:
        t.start()
    work()
    for t in helpers:
        t.join()
    if errors:
        raise errors[min(errors)]
