"""Old module paths that keep working, with a warning: ``import cwla.runset`` gives :mod:`cwla.data.runset`.

The modules moved into the subpackages of the layers (``cwla.metrics``, ``cwla.data``, ``cwla.scoring``,
``cwla.bridges``; discpower's ``stats``, ``metrics``, ``qrels``, ``reports``). :func:`keep_old_paths` answers
each old path, at its first import, with a small module of its own (:class:`OldPath`) that warns
(:class:`DeprecationWarning`, naming the new path and the release that removes the old one: :data:`REMOVED_IN`)
and gives the names of the module now in its layer, the very same objects, plus the few names the old module
had that live elsewhere now (``cwla.gains.parse_gain``); the new modules are not touched. So
``from cwla.runset import RunSet`` and ``discpower.qrels_compare.compare_qrels`` still work, name the very same
functions and say where they live now, and ``python -m cwla.cli`` still runs the module. An old path that is
also a public name of the package (``cwla.synthetic``, ``cwla.counting``, ``cwla.warmup``: the function) or a
documented bridge (``cwla.ir_measures``) is not deprecated: it is the module itself, without a warning.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings
from collections.abc import Collection, Mapping

__all__ = ["keep_old_paths", "warn_moved", "OldPath", "REMOVED_IN"]

#: the release of cwla and discpower that removes the old module paths
REMOVED_IN = "0.3.0"


def warn_moved(old: str, new: str) -> None:
    """The one warning of an old path ``old`` now at ``new``, pointed at the code that imported it."""
    warnings.warn(f"{old} is deprecated and is removed in release {REMOVED_IN}: use {new}", DeprecationWarning,
                  stacklevel=_outside_the_import_system())


def _outside_the_import_system() -> int:
    """The stack level of the first caller that is neither this module, importlib's machinery nor a package's
    ``__getattr__`` (``cwla.runset`` read as an attribute)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and (frame.f_code.co_filename == __file__ or "importlib" in frame.f_code.co_filename
                                 or frame.f_code.co_name == "__getattr__"):
        frame = frame.f_back
        # warnings.warn does not count importlib's bootstrap frames as levels: neither do we
        level += frame is not None and not ("importlib" in frame.f_code.co_filename
                                            and "_bootstrap" in frame.f_code.co_filename)
    return level


class OldPath(types.ModuleType):
    """What an old module path gives: the names of the module now at ``target`` (the same objects), and the
    ``elsewhere`` names (``{name: module path}``) that the old module had and other modules hold now."""

    def __init__(self, old: str, target: str, elsewhere: Mapping[str, str]):
        super().__init__(old, f"Deprecated: {old} is {target} (removed in release {REMOVED_IN}).")
        self.__dict__["_target"], self.__dict__["_elsewhere"] = target, dict(elsewhere)

    def __getattr__(self, name: str):
        home = self.__dict__["_elsewhere"].get(name, self.__dict__["_target"])
        if name.startswith("__") and home == self.__dict__["_target"] and name != "__all__":
            raise AttributeError(name)
        return getattr(importlib.import_module(home), name)

    def __dir__(self) -> list:
        return sorted({*dir(importlib.import_module(self.__dict__["_target"])), *self.__dict__["_elsewhere"]})


class _Alias(importlib.abc.Loader):
    """Loads an old path: the module now at ``target`` itself (``quiet``), else an :class:`OldPath` that warns."""

    def __init__(self, old: str, target: str, quiet: bool, elsewhere: Mapping[str, str]):
        self.old, self.target, self.quiet, self.elsewhere = old, target, quiet, elsewhere

    def create_module(self, spec):
        if self.quiet:
            module = importlib.import_module(self.target)
            self.spec = module.__spec__
            return module
        warn_moved(self.old, self.target)
        return OldPath(self.old, self.target, self.elsewhere)

    def exec_module(self, module) -> None:
        if self.quiet:  # the import system set the old path's spec on it: the module keeps its own
            module.__spec__ = self.spec

    def is_package(self, fullname: str) -> bool:
        return False

    def get_code(self, fullname: str):  # what ``python -m old.path`` runs: the module at its new path
        if not self.quiet:
            warn_moved(self.old, self.target)
        return compile(f"import runpy\nrunpy.run_module({self.target!r}, run_name='__main__', alter_sys=True)\n",
                       f"<{fullname}: {self.target}>", "exec")


class _OldPaths(importlib.abc.MetaPathFinder):
    def __init__(self, moved: Mapping[str, str], quiet: Collection[str], elsewhere: Mapping[str, Mapping[str, str]]):
        self.moved, self.quiet, self.elsewhere = dict(moved), set(quiet), elsewhere

    def find_spec(self, fullname, path, target=None):
        new = self.moved.get(fullname)
        if new is None:
            return None
        loader = _Alias(fullname, new, fullname in self.quiet, self.elsewhere.get(fullname, {}))
        return importlib.util.spec_from_loader(fullname, loader)


def keep_old_paths(package: str, moved: Mapping[str, str], public: Collection[str] = (),
                   elsewhere: Mapping[str, Mapping[str, str]] | None = None) -> None:
    """Answer each old module path of ``package`` in ``moved`` (``{"runset": "data.runset", ...}``, relative to
    the package): with an :class:`OldPath` and a :class:`DeprecationWarning` at its first import, except the
    ``public`` names, which give the module itself (entered in ``sys.modules`` if imported already: importing
    them must not replace the package's attribute of that name, e.g. the function ``cwla.warmup``, by the
    module; else imported on first use, quietly). ``elsewhere`` lists the names an old module had that live
    in other modules now (``{"gains": {"parse_gain": "metrics.text"}}``): its old path gives them too."""
    later, quiet = {}, set()
    for old, new in moved.items():
        old, new = f"{package}.{old}", f"{package}.{new}"
        if old.rpartition(".")[2] in public:
            if new in sys.modules:
                sys.modules.setdefault(old, sys.modules[new])
                continue
            quiet.add(old)
        later[old] = new
    homes = {f"{package}.{old}": {name: f"{package}.{home}" for name, home in names.items()}
             for old, names in (elsewhere or {}).items()}
    if later:
        sys.meta_path.append(_OldPaths(later, quiet, homes))
