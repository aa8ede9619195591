"""Executors for cluster schedulers that have no ``concurrent.futures`` executor of their own.

Dask has one (``distributed.Client(...).get_executor()``); Ray has none: :class:`RayExecutor`
runs each submitted call as a Ray task and hands back a ``concurrent.futures.Future``, so that
:func:`discpower.sweep` (or anything else written against ``concurrent.futures``) runs on a Ray
cluster::

    import ray
    from discpower import RayExecutor

    ray.init()                                   # or ray.init(address="auto") on a cluster
    with RayExecutor() as executor:
        result = discpower.sweep(truth, runs, "nDCG@10", generators="sampling", executor=executor)

Ray is not a dependency of discpower: ``pip install ray`` where it is wanted. See ``docs/clusters.md``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, wait
from typing import Any

__all__ = ["RayExecutor"]


def _call(fn: Callable, args: tuple, kwargs: dict) -> Any:
    """What a Ray task runs: the submitted call."""
    return fn(*args, **kwargs)


class _RayFuture(Future):
    """A Future whose cancellation also cancels its Ray task (``ray.cancel``: a running task is interrupted)."""

    def __init__(self, ref: Any, ray: Any) -> None:
        super().__init__()
        self._ref = ref
        self._ray = ray

    def cancel(self) -> bool:
        """Cancel the call if it has not finished here yet; the Ray task is cancelled too (best effort).

        Returns
        -------
        bool
            True if the Future is cancelled (as ``concurrent.futures.Future.cancel``).
        """
        cancelled = super().cancel()
        if cancelled:
            try:
                self._ray.cancel(self._ref)
            except Exception:  # already finished, or Ray shut down: nothing to cancel
                pass
        return cancelled


class RayExecutor(Executor):
    """Ray tasks behind the ``concurrent.futures.Executor`` interface.

    Each :meth:`submit` starts one Ray task (``ray.remote`` with ``options``) that calls the function;
    the returned Future is resolved when the task ends, with its result or with the exception the
    function raised (not Ray's wrapper of it). Ray must be installed; it is initialised as Ray does
    on a first task when ``ray.init`` was not called (a local cluster of this machine's cores).

    Parameters
    ----------
    **options : Any
        Options of each task (``ray.remote(...).options``), e.g. ``num_cpus=1`` (the default: one
        core per task; match it with ``discpower.sweep(..., worker_threads=1)``), ``memory=``,
        ``max_retries=``.

    Raises
    ------
    ImportError
        When Ray is not installed.
    """

    def __init__(self, **options: Any) -> None:
        try:
            import ray
        except ImportError as exc:
            raise ImportError("discpower.RayExecutor needs Ray: pip install ray") from exc
        self._ray = ray
        self._remote = ray.remote(_call).options(**{"num_cpus": 1, **options})
        self._pending: set[Future] = set()
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any) -> Future:
        """Run ``fn(*args, **kwargs)`` as a Ray task.

        Parameters
        ----------
        fn : callable
            A picklable callable (a top-level function: Ray's workers import it).
        *args, **kwargs : Any
            Its arguments (pickled with the task).

        Returns
        -------
        concurrent.futures.Future
            Resolved when the task ends.

        Raises
        ------
        RuntimeError
            After :meth:`shutdown`.
        """
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new futures after shutdown")
            ref = self._remote.remote(fn, args, kwargs)
            future = _RayFuture(ref, self._ray)
            self._pending.add(future)
        ray_future = ref.future()

        def resolve(done: Future) -> None:
            with self._lock:
                self._pending.discard(future)
            if not future.set_running_or_notify_cancel():
                return  # cancelled here
            try:
                future.set_result(done.result())
            except BaseException as exc:  # noqa: BLE001 - handed over to the caller, as a Future does
                cause = getattr(exc, "cause", None)  # Ray's RayTaskError wraps the function's exception
                if not isinstance(exc, self._ray.exceptions.RayTaskError) or not isinstance(cause, BaseException):
                    cause = exc
                future.set_exception(cause)

        ray_future.add_done_callback(resolve)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Accept no more calls; optionally cancel those not started and wait for the others.

        Ray itself is left running (``ray.shutdown()`` stops it).

        Parameters
        ----------
        wait : bool
            Wait until every submitted call has ended.
        cancel_futures : bool
            Cancel the calls that have not started.
        """
        with self._lock:
            self._closed = True
            pending = list(self._pending)
        if cancel_futures:
            for future in pending:
                future.cancel()
        if wait:
            _wait(pending)


def _wait(futures: list[Future]) -> None:
    wait(futures)
