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

**Layout: keyed by the sources, not by where they are.** The kernels go to
``cache_dir()/kernels-<key>/<package path>/`` (e.g. ``.../0.1.0/kernels-3f2a.../cwla/data/``;
numba names its files ``<qualname>-<lineno>.pyXY.nbi`` and ``.nbc``, so the module's folder
inside the package is kept: two ``kernels.py`` in different folders never share one).
``<key>`` is the first 16 hex digits of a hash (XXH3-128) of every ``*.py`` file of the
``cwla`` and ``discpower`` package folders (their paths inside the package and their
bytes; ``__pycache__`` and folders whose name holds a dot are skipped, as setuptools skips
them when it builds the wheel), of the numba, llvmlite and NumPy versions and of the Python
implementation's tag (``cpython-311``). discpower's folder is the one
``importlib.util.find_spec("discpower")`` finds (discpower is not imported for it). So

* two copies of the same sources (``pip install .``, then ``pip install -e .``; a clone in
  another folder) share one cache: the second copy compiles nothing;
* any edit of any source file gives a new key, hence a fresh folder: numba tracks only the
  file a kernel is defined in, and a kernel that inlines a function of another module (the
  tokenizer's kernels call ``cwla/data/_docnos.py``) could otherwise load stale machine code.

The sources are read and hashed once per process, when the first kernel is declared
(about 1.3 MB in some 90 files: 1.3 ms measured at ``import cwla``, files in the page
cache). The full 128-bit digest is numba's "source stamp" of every kernel (in place of the
hash, or with older numba the mtime, of the kernel's own file: an install's mtimes differ).
A kernel defined outside the two packages (none is) goes to
``kernels-<key>/elsewhere/<folder>_<sha1 of its folder>`` with numba's own stamp.

Folders of other keys (earlier edits, other versions) are left where they are. The cache
folder, or any of its ``kernels-*`` subfolders, can be deleted at any time (not while a
process is compiling into it): the kernels are compiled again when next needed.

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

import contextlib
import functools
import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
import warnings

import llvmlite
import numba
import numpy
import xxhash
from numba.core import caching

from ._ahead import after_a_miss
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
    """The folder holding cwla's compiled kernels, or None when caching is off (nothing writable).

    ``$CWLA_CACHE_DIR/<version>`` if that variable is set (and not empty), else ``<version>`` in
    the per-user cache folder (``~/.cache/cwla/<version>`` on Linux). The kernels are in its
    ``kernels-<key>/`` subfolders, one per set of sources (``<key>`` hashes the sources and the
    numba, llvmlite and NumPy versions): a reinstall of the same sources at another path reuses
    them, an edited source gets a fresh one. The folder can be deleted at any time; kernels are
    then compiled again when next needed.

    Returns
    -------
    str or None
        An absolute path, or None where no folder could be created and written (a
        :class:`~cwla.errors.CwlaWarning` said so when cwla was imported).

    Examples
    --------
    >>> import os, cwla
    >>> where = cwla.cache_dir()
    >>> where is None or (os.path.isabs(where) and os.path.basename(where) == cwla.__version__)
    True
    """
    return _CACHE_DIR


#: the packages whose sources key the cache (discpower's kernels go through :func:`jit` too)
_PACKAGES = ("cwla", "discpower")


def _package_folders() -> dict[str, str]:
    """The folder of each of :data:`_PACKAGES` that is found: cwla's is this module's; discpower's is the one
    its import would use (``importlib.util.find_spec``: located, not imported)."""
    folders = {"cwla": os.path.dirname(os.path.abspath(__file__))}
    try:
        spec = importlib.util.find_spec("discpower")
    except (ImportError, ValueError):  # not installed / a module without a spec in sys.modules
        spec = None
    locations = list(getattr(spec, "submodule_search_locations", None) or ())
    if locations:
        folders["discpower"] = os.path.abspath(locations[0])
    return folders


def _python_files(folder: str) -> list[str]:
    """The ``*.py`` files under ``folder`` (recursively), as sorted ``/``-separated paths relative to it;
    ``__pycache__`` and folders whose name holds a dot (not packages: setuptools leaves them out) skipped."""
    found, stack = [], [""]
    while stack:
        sub = stack.pop()
        with os.scandir(os.path.join(folder, sub) if sub else folder) as entries:
            for entry in entries:
                name = f"{sub}/{entry.name}" if sub else entry.name
                if entry.is_dir(follow_symlinks=True):
                    if entry.name != "__pycache__" and "." not in entry.name:
                        stack.append(name)
                elif entry.name.endswith(".py"):
                    found.append(name)
    return sorted(found)


@functools.lru_cache(maxsize=None)
def _sources_key() -> tuple[str, tuple[tuple[str, str], ...]]:
    """The hash of the sources (see the module's docstring), as 32 hex digits, and the package folders it
    covers as ``(name, folder)`` pairs; read once per process."""
    digest = xxhash.xxh3_128()
    versions = (numba.__version__, llvmlite.__version__, numpy.__version__,
                str(sys.implementation.cache_tag))
    digest.update("\0".join(("cwla kernel cache 1",) + versions).encode())
    folders = _package_folders()
    for name in _PACKAGES:
        if name not in folders:
            digest.update(f"\0\0{name}: absent".encode())
            continue
        for relative in _python_files(folders[name]):
            with open(os.path.join(folders[name], *relative.split("/")), "rb") as file:
                data = file.read()
            digest.update(f"\0\0{name}/{relative}\0{len(data)}\0".encode())
            digest.update(data)
    return digest.hexdigest(), tuple(folders.items())


def _place(py_file: str) -> tuple[str, bool]:
    """Where a kernel defined in ``py_file`` is cached, relative to ``kernels-<key>``: its module's folder
    inside the package (``cwla/data``), True; or, outside both packages, ``elsewhere/<folder>_<hash>``, False."""
    path = os.path.abspath(py_file)
    for resolve in (False, True):  # the path as imported first; symbolic links resolved only if that fails
        here = os.path.realpath(path) if resolve else path
        for name, folder in _sources_key()[1]:
            root = os.path.realpath(folder) if resolve else folder
            if here.startswith(root + os.sep):
                return os.path.normpath(os.path.join(name, os.path.relpath(os.path.dirname(here), root))), True
    folder = os.path.dirname(path)
    key = hashlib.sha1(folder.encode()).hexdigest()[:16]
    return os.path.join("elsewhere", f"{os.path.basename(folder)}_{key}"), False


class _Locator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Numba cache locator for cwla's (and discpower's) kernels:
    ``cache_dir()/kernels-<key>/<package path>``, keyed by the sources (see the module's docstring).

    The source stamp numba checks is the sources' full hash: a kernel is fresh when every source file
    is as it was (numba's own stamp covers only the kernel's file, not the modules it inlines).
    """

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        key = _sources_key()[0]
        place, ours = _place(py_file)
        self._stamp = f"sources {key}" if ours else None
        self._cache_path = os.path.join(_CACHE_DIR, f"kernels-{key[:16]}", place)

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return self._stamp if self._stamp is not None else super().get_source_stamp()


class _Impl(caching.CompileResultCacheImpl):
    _locator_classes = [_Locator]


@contextlib.contextmanager
def _one_save_at_a_time():
    """Across processes, one save into the cache at a time (a lock file in :func:`cache_dir`, POSIX): numba reads
    a kernel's index file, adds an entry and writes it back, so two processes saving two signatures of one
    function at once (e.g. a helper compiled inside different kernels, :mod:`cwla._ahead`) could cross their
    entries. Without ``fcntl`` (Windows), or where the lock file cannot be opened, numba's own handling stays."""
    try:
        import fcntl

        lock = open(os.path.join(_CACHE_DIR, ".save.lock"), "a")
    except (ImportError, OSError, TypeError):
        yield
        return
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            held = True
        except OSError:  # a file system that refuses locks (NFS without lockd, Lustre noflock): save unlocked
            held = False
        try:
            yield
        finally:
            if held:
                fcntl.flock(lock, fcntl.LOCK_UN)


class _Cache(caching.FunctionCache):
    """numba's cache of a function's compiled kernels, in :func:`cache_dir`; a miss may be filled by a
    second process compiling ahead (:mod:`cwla._ahead`)."""

    _impl_class = _Impl

    def save_overload(self, sig, data):
        with _one_save_at_a_time():
            super().save_overload(sig, data)

    def load_overload(self, sig, target_context):
        found = super().load_overload(sig, target_context)
        if found is None:
            name = f"{self._py_func.__module__}.{self._py_func.__qualname__}"
            found = after_a_miss(name, _sources_key()[0], _CACHE_DIR,
                                 lambda: super(_Cache, self).load_overload(sig, target_context))
        return found


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


def jit(*, parallel=False, cache=True, inline=False):
    """numba's ``njit`` with cwla's options, cached in :func:`cache_dir` (uncached if None, or ``cache=False``).
    ``inline``: a helper of a hot loop, inlined into its callers by numba (``inline="always"``), not left to LLVM.

    A parallel kernel comes wrapped so that it is safe to call from several threads under
    every threading layer (:class:`_Serialised`); the others are plain numba dispatchers.
    """

    def decorate(func):
        dispatcher = numba.njit(cache=False, error_model="numpy", parallel=parallel, nogil=True,
                                 inline="always" if inline else "never")(func)
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
