"""The one place where cwla's numba options live, and where compiled kernels are cached.

Every kernel is compiled with ``error_model="numpy"`` (a division by zero gives
inf/nan as NumPy does, never an exception from inside the kernel: the Python
wrappers validate first) and **no fast-math flags**: scores must match trec_eval
and cwl_eval to the last printed decimal, and reassociation would change them.

Compiled kernels are cached on disk **outside the installed package**, so that an
installed copy is never left with files it does not own (numba's default writes
``__pycache__/*.nbi`` beside the module: after ``pip install .`` and then
``pip install -e .`` those leftovers turn ``site-packages/cwla`` into a namespace
package that shadows the project). The folder is, in this order:

1. ``$CWLA_CACHE_DIR`` if set;
2. the per-user cache folder: ``$XDG_CACHE_HOME/cwla`` or ``~/.cache/cwla`` on Linux,
   ``~/Library/Caches/cwla`` on macOS, ``%LOCALAPPDATA%\\cwla`` on Windows;

with a subfolder per cwla version (``.../cwla/0.1.0/``). Where that folder cannot be
created or written, cwla still works, compiling in every process, and says so once
with a :class:`~cwla.errors.CwlaWarning`. :func:`cache_dir` tells where it is. An empty
``CWLA_CACHE_DIR`` counts as unset.

**Threads.** Every kernel releases the GIL (``nogil=True``), so cwla and discpower can be
called from several Python threads (e.g. ``discpower.sweep(..., executor=ThreadPoolExecutor())``).
The parallel kernels (``parallel=True``) run on numba's threading layer: TBB and OpenMP
accept launches from several threads at once, but the ``workqueue`` layer (numba's
fallback when neither is installed, or ``NUMBA_THREADING_LAYER=workqueue``) aborts the
process on a concurrent launch. Under workqueue the parallel kernels therefore run one at
a time, behind one process-wide lock (each one already uses every numba thread); the first
time a thread has to wait for that lock cwla says so once with a
:class:`~cwla.errors.CwlaWarning`. The layer is the one numba picks at the first parallel
launch (:func:`numba.threading_layer`).
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import tempfile
import threading
import warnings

import numba
from numba.core import caching

from ._version import __version__

__all__ = ["jit", "cache_dir", "CACHE_ENV"]

#: the environment variable that overrides the cache folder
CACHE_ENV = "CWLA_CACHE_DIR"


def _user_cache_root() -> str:
    """The platform's per-user cache folder (what platformdirs calls user_cache_dir)."""
    home = os.path.expanduser("~")
    if sys.platform == "win32":
        return os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Caches")
    return os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")


def _writable_dir(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        return True
    except OSError:
        return False


def _resolve_cache_dir() -> str | None:
    override = os.environ.get(CACHE_ENV)
    root = override if override else os.path.join(_user_cache_root(), "cwla")
    path = os.path.join(os.path.abspath(os.path.expanduser(root)), __version__)
    if _writable_dir(path):
        return path
    source = f"${CACHE_ENV}" if override else "the per-user cache folder"
    warnings.warn(
        f"cwla cannot write its kernel cache to {path} ({source}); kernels are compiled in every "
        f"process (a few seconds each time). Set {CACHE_ENV} to a writable folder to cache them.",
        _cwla_warning(),
        stacklevel=_outside_the_package(),
    )
    return None


def _outside_the_package() -> int:
    """The stacklevel of the first frame outside cwla: the line that imported cwla (``warnings.warn`` skips
    the import machinery's frames itself, so they are not counted)."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith("<frozen importlib"):
            frame = frame.f_back
            continue
        if not name.startswith(package):
            return level
        frame, level = frame.f_back, level + 1
    return 1


def _cwla_warning():
    from .errors import CwlaWarning

    return CwlaWarning


_CACHE_DIR = _resolve_cache_dir()


def cache_dir() -> str | None:
    """The folder holding cwla's compiled kernels, or None when caching is off (nothing writable)."""
    return _CACHE_DIR


class _Locator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Numba cache locator for cwla's (and discpower's) kernels: ``cache_dir()/<module folder>_<hash>``.

    The subfolder is keyed by the module's folder, so two copies of the same version (an
    installed one and a development tree) do not overwrite each other's index files.
    """

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        folder = os.path.dirname(os.path.abspath(py_file))
        key = hashlib.sha1(folder.encode()).hexdigest()[:16]
        self._cache_path = os.path.join(_CACHE_DIR, f"{os.path.basename(folder)}_{key}")

    def get_cache_path(self):
        return self._cache_path


class _Impl(caching.CompileResultCacheImpl):
    _locator_classes = [_Locator]


class _Cache(caching.FunctionCache):
    _impl_class = _Impl


_PARALLEL_LOCK = threading.Lock()  # held by a parallel kernel while the threading layer is not thread-safe
_thread_safe_layer: bool | None = None  # decided at the first parallel call
_said_serialised = False


def _layer_is_thread_safe() -> bool:
    """Whether numba's threading layer accepts parallel launches from several threads (tbb, omp: yes;
    workqueue: no). Selects the layer as numba's first parallel launch would, then asks numba which it is."""
    global _thread_safe_layer
    if _thread_safe_layer is None:
        try:
            from numba.np.ufunc.parallel import _launch_threads

            _launch_threads()  # what compiling or loading a parallel kernel does first (idempotent)
            _thread_safe_layer = numba.threading_layer() != "workqueue"
        except Exception:  # no layer loads (the kernel call reports why) or numba moved things: be safe
            _thread_safe_layer = False
    return _thread_safe_layer


def _say_serialised_once() -> None:
    global _said_serialised
    if not _said_serialised:
        _said_serialised = True
        warnings.warn(
            "numba's workqueue threading layer does not accept parallel kernels from several threads at once: "
            "cwla runs them one at a time (each still uses every numba thread). Install tbb "
            "(pip install tbb) or use an OpenMP build of numba to run them concurrently.",
            _cwla_warning(),
            stacklevel=_outside_the_package(),
        )


class _Serialised:
    """A ``parallel=True`` dispatcher that holds :data:`_PARALLEL_LOCK` while it runs if the threading
    layer is not thread-safe (see the module's docstring). Attributes are the dispatcher's
    (``signatures``, ``stats``, ``py_func``, ...). Parallel kernels are called from Python only: a
    jitted function cannot call this wrapper.
    """

    def __init__(self, dispatcher):
        self.dispatcher = dispatcher
        functools.update_wrapper(self, dispatcher, updated=())

    def __call__(self, *args, **kwargs):
        if _layer_is_thread_safe():
            return self.dispatcher(*args, **kwargs)
        waited = not _PARALLEL_LOCK.acquire(blocking=False)
        if waited:
            _PARALLEL_LOCK.acquire()
        try:
            if waited:
                _say_serialised_once()
            return self.dispatcher(*args, **kwargs)
        finally:
            _PARALLEL_LOCK.release()

    def __getattr__(self, name):  # names the wrapper does not have itself
        if name == "dispatcher":  # not set yet (a copy being built): no recursion
            raise AttributeError(name)
        return getattr(self.dispatcher, name)


def jit(*, parallel=False, cache=True):
    """numba's ``njit`` with cwla's options, cached in :func:`cache_dir` (uncached if None, or ``cache=False``).

    A parallel kernel comes wrapped so that it is safe to call from several threads under
    every threading layer (:class:`_Serialised`); the others are plain numba dispatchers.
    """

    def decorate(func):
        dispatcher = numba.njit(cache=False, error_model="numpy", parallel=parallel, nogil=True)(func)
        if _CACHE_DIR is not None and cache:
            # what numba's enable_caching() does, with our locator instead of numba's
            dispatcher._cache = _Cache(dispatcher.py_func)
        return _Serialised(dispatcher) if parallel else dispatcher

    return decorate


def _install_compile_notice() -> None:
    """The status line that says when kernels are being compiled, and how long it took (:mod:`cwla.progress`)."""
    from .progress import install_compile_notice

    install_compile_notice(_CACHE_DIR)


_install_compile_notice()
