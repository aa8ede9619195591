"""Progress on work a person waits for: one status line on stderr, drawn only on a terminal.

Reading run files, compiling kernels, resampling, sweeps, calibrations and simulations can take
seconds to minutes. Each of them reports here, and this module owns the one status line they share:
the report drawn last holds it, cut to the terminal's width; a report that ends takes its line away (the
line of a report still running beneath it comes back), so at most one line is on screen at any time and
none is left behind for the command's output to run into.

When is it drawn? A call's ``progress`` argument decides for that call:

* ``None`` (the default everywhere): on when stderr is a terminal (``sys.stderr.isatty()``), unless
  :func:`configure` turned progress off; never into a pipe, a file or a captured stream;
* ``True``: on (wherever stderr goes), ``False``: off;
* a callable ``progress(done, total)``: called instead of drawing anything.

``configure(enabled=False)`` (what the commands' ``--quiet`` does) turns off every report drawn by
default, the compile notice included. A bar appears only once its work has run for ``delay``
seconds (0.5 s, or ``$CWLA_PROGRESS_DELAY``), so fast work draws nothing; it shows its elapsed time.

The compile notice: the first time numba compiles one of cwla's or discpower's kernels in a process,
the status line says so, and counts the kernels and the seconds as they compile (a kernel loaded from
the cache is not compiled, and says nothing). For example::

    cwla: compiling kernels (once, then cached): N done, T s ...

Examples
--------
>>> from cwla.progress import Bar
>>> import io
>>> out = io.StringIO()
>>> bar = Bar(3, "reading runs", unit="files", stream=out, enabled=True, delay=0)
>>> for done in range(1, 4):
...     bar(done)
>>> drawn = out.getvalue().split("\\r")
>>> drawn[1][:27], drawn[-1] == "\\x1b[K"  # the line drawn first, and the line taken away at the end
('reading runs [######......', True)
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import functools
import inspect
import io
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator

__all__ = ["Bar", "reporter", "configure", "enabled", "scope", "scoped", "compile_notice"]

#: the process-wide default: None = on when stderr is a terminal; False = off (``--quiet``)
_DEFAULT: list = [None]
#: a call's own ``progress`` choice, seen by the reports it starts (reading, compiling) while it runs
_SCOPE: contextvars.ContextVar = contextvars.ContextVar("cwla_progress", default=None)
_LINE = threading.Lock()
_OPEN: list = []  # (report, its text) of the reports still running, the one drawn last

def configure(*, enabled: bool | None = None) -> None:
    """Set the process-wide default of every report: ``None`` (on a terminal only; the initial setting)
    or ``False`` (off: what ``--quiet`` does). ``True`` draws even into a pipe or a file."""
    if enabled not in (None, True, False):
        from .errors import CwlaError

        raise CwlaError(f"configure(enabled=...) takes None (on a terminal only), True or False; got {enabled!r}")
    _DEFAULT[0] = enabled


def enabled(progress: object = None, stream=None) -> bool:
    """Whether a report asked for with ``progress`` (None, True or False) is drawn on ``stream``
    (default stderr): see the module's rules."""
    if progress is None:
        progress = _SCOPE.get()
    if progress is None:
        progress = _DEFAULT[0]
    if progress is None:
        stream = sys.stderr if stream is None else stream
        isatty = getattr(stream, "isatty", None)
        try:
            return bool(isatty and isatty())
        except ValueError:  # a closed stream
            return False
    return bool(progress)


@contextlib.contextmanager
def scope(progress: object) -> Iterator[None]:
    """While the block runs, the reports it starts (reading files, compiling) follow ``progress``:
    ``False`` keeps them quiet, ``True`` draws them, ``None`` (or a callable) leaves the default."""
    token = _SCOPE.set(progress if isinstance(progress, bool) else None)
    try:
        yield
    finally:
        _SCOPE.reset(token)


def scoped(func: Callable) -> Callable:
    """Run ``func`` in the :func:`scope` of its own ``progress`` argument (given or default), so that the
    reports it starts deeper down (reading files, compiling kernels) follow the caller's choice."""
    signature = inspect.signature(func)
    default = signature.parameters["progress"].default

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        progress = kwargs["progress"] if "progress" in kwargs else \
            signature.bind_partial(*args, **kwargs).arguments.get("progress", default)
        with scope(progress):
            return func(*args, **kwargs)

    return wrapper


def _write(owner: object, text: str, end: bool) -> None:
    """Draw ``text`` as the status line of ``owner``; ``end``: ``owner`` is done, and its line goes (the line of
    a report still running beneath it, if any, comes back). One line at a time: reports overwrite it in turn,
    cut to the terminal's width, so none of them leaves a line behind."""
    with _LINE:
        _OPEN[:] = [(o, t) for o, t in _OPEN if o is not owner]
        if not end:
            _OPEN.append((owner, text))
        stream = _stream_of(owner)
        shown = _fitted(_OPEN[-1][1], stream) if _OPEN else ""
        try:
            stream.write("\r" + shown + "\x1b[K")
            stream.flush()
        except (ValueError, OSError):  # a closed stream
            pass


def _fitted(text: str, stream) -> str:
    """``text`` cut to one line of the terminal ``stream`` is (a wrapped line could not be overwritten)."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        columns = 0
    if columns <= 0:  # not a terminal, or one that does not say its size (a bare pseudo-terminal)
        columns = int(os.environ.get("COLUMNS", "") or 0) if os.environ.get("COLUMNS", "").isdigit() else 0
    columns = columns if columns > 0 else 80
    return text if len(text) < columns else text[:max(columns - 2, 1)] + "…"


def _stream_of(owner) -> object:
    return sys.stderr if getattr(owner, "stream", None) is None else owner.stream


def clear() -> None:
    """Take the status line off the screen (what a command does before it prints an error, and at exit)."""
    with _LINE:
        for owner, _ in _OPEN[-1:]:
            try:
                _stream_of(owner).write("\r\x1b[K")
                _stream_of(owner).flush()
            except (ValueError, OSError):
                pass
        _OPEN.clear()


atexit.register(clear)


class Bar:
    """``Bar(total, label)(done)``: a progress bar over ``total`` units of work, redrawn at most every
    0.2 s with the elapsed time, first drawn after ``delay`` seconds, taken away when ``done`` reaches
    ``total`` (or :meth:`close`). ``bar(done, total)`` may change the total; ``note`` says what is
    being done now (e.g. the file being read)."""

    def __init__(self, total: int, label: str, *, unit: str = "", stream=None, enabled: bool | None = None,
                 delay: float | None = None):
        self.total, self.label, self.unit = max(int(total), 1), label, unit
        self.stream = stream
        self.on = globals()["enabled"](enabled, stream)
        self.delay = _default_delay() if delay is None else delay
        self.start = time.perf_counter()
        self.last = -1.0
        self.drawn = False
        self.done = 0

    def __call__(self, done: int, total: int | None = None, note: str = "") -> None:
        if total is not None:
            self.total = max(int(total), 1)
        self.done = done
        if not self.on:
            return
        now = time.perf_counter()
        finished = done >= self.total
        if finished and not self.drawn:  # never on screen: nothing to take away (nor a line to wipe)
            return
        if now - self.start < self.delay:
            return
        if now - self.last < 0.2 and not finished:
            return
        self.last = now
        width = 20
        filled = min(width, int(width * done / self.total))
        unit = f" {self.unit}" if self.unit else ""
        text = (f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{self.total}{unit} "
                f"{now - self.start:5.1f} s" + (f"  {note}" if note else ""))
        self.drawn = True
        _write(self, text, finished)


    def close(self) -> None:
        """Take the bar's line away before its work is done (the work stopped: an error, Ctrl-C)."""
        if self.on and self.drawn:
            _write(self, "", True)
            self.drawn = False


def _default_delay() -> float:
    """Seconds of work before a bar is drawn: ``$CWLA_PROGRESS_DELAY`` if set (a number >= 0), else 0.5."""
    text = os.environ.get("CWLA_PROGRESS_DELAY", "")
    try:
        value = float(text)
    except ValueError:
        return 0.5
    return value if value >= 0 else 0.5


def reporter(progress: object, total: int, label: str, *, unit: str = "", error: type | None = None
             ) -> Callable[..., None]:
    """A callable ``(done, total=None)`` for ``progress``: None (a :class:`Bar` on a terminal), True (a
    Bar), False (nothing), or the user's own callable. Anything else is refused with ``error`` (default
    :class:`cwla.errors.CwlaError`), not taken for "no progress"."""
    if callable(progress):
        return progress
    from ._validate import FLAG, NONE, check
    from .errors import CwlaError

    check(progress, "progress", FLAG, NONE, error=error or CwlaError,
          rule="True, False, None or a callable progress(done, total)")
    if enabled(progress):  # asked for by name (True): drawn from the start; by default: after the delay
        return Bar(total, label, unit=unit, enabled=True, delay=0 if progress is True else None)
    return lambda done, total=None, note="": None


class _CompileNotice:
    """The status line of the kernels numba compiles in this process (numba's ``numba:compile`` event)."""

    def __init__(self):
        self.stream = None
        self.depth = 0
        self.count = 0
        self.seconds = 0.0
        self.started = 0.0
        self.lock = threading.RLock()
        self.on = False
        self.ours = False
        self.cache_dir = None  # where the compiled kernels go (set by :func:`install_compile_notice`)
        #: every kernel of cwla or discpower compiled in this process, shown or not: (``module.qualname``,
        #: its argument types as numba prints them); nested compiles (its callees) are not listed
        self.kernels: list = []

    def _ours(self, data) -> bool:
        dispatcher = (data or {}).get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        return module.split(".", 1)[0] in ("cwla", "discpower")

    def on_start(self, data) -> None:
        with self.lock:
            self.depth += 1
            if self.depth == 1:
                self.ours = self._ours(data)
                self.on = self.ours and enabled()
                self.started = time.perf_counter()
                if self.on:
                    _write(self, self._text(compiling=True), False)

    def on_end(self, data) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth == 0 and self.ours:
                f = data["dispatcher"].py_func
                self.kernels.append((f"{f.__module__}.{f.__qualname__}", str(data.get("args"))))
            if self.depth == 0 and self.on:
                self.count += 1
                self.seconds += time.perf_counter() - self.started
                _write(self, self._text(compiling=False), True)  # off the line until the next kernel compiles

    @contextlib.contextmanager
    def elsewhere(self) -> Iterator[None]:
        """While the block runs, this process waits for a kernel that another one compiles (:mod:`cwla._ahead`):
        the line says compiling, and the seconds count, but no kernel is added."""
        with self.lock:
            shown = self.depth == 0 and enabled()
            started = time.perf_counter()
            if shown:
                _write(self, self._text(compiling=True), False)
        try:
            yield
        finally:
            with self.lock:
                if shown:
                    self.seconds += time.perf_counter() - started
                    _write(self, self._text(compiling=False), True)

    def _text(self, compiling: bool) -> str:
        cached = "once, then cached" if self.cache_dir else "in every process: no writable cache"
        done = f"{self.count} done, {self.seconds:.1f} s"
        return f"cwla: compiling kernels ({cached}): {done}{' ...' if compiling else ''}"


#: the process's compile notice (installed by :mod:`cwla._numba`)
compile_notice = _CompileNotice()


def install_compile_notice(cache_dir: str | None) -> None:
    """Listen to numba's compile events (once per process); ``cache_dir``: where the kernels are cached
    (None: nowhere), as the notice says."""
    from numba.core import event

    compile_notice.cache_dir = cache_dir

    class _Listener(event.Listener):
        def on_start(self, ev):
            compile_notice.on_start(ev.data)

        def on_end(self, ev):
            compile_notice.on_end(ev.data)

    if not _INSTALLED:
        event.register("numba:compile", _Listener())
        _INSTALLED.append(True)


_INSTALLED: list = []
