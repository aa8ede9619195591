"""Old module paths that keep working: ``import cwla.runset`` gives :mod:`cwla.data.runset`.

The modules moved into the subpackages of the layers (``cwla.metrics``, ``cwla.data``, ``cwla.scoring``,
``cwla.bridges``; discpower's ``stats``, ``metrics``, ``qrels``, ``reports``). :func:`keep_old_paths` makes
each old path name the module itself (the same object): a module the package has imported already is
entered in ``sys.modules`` under its old path too, and one it imports on first use (the bridges, the
``discpower`` command) is found by an import hook that imports it then. So
``from cwla.runset import RunSet`` and ``discpower.qrels_compare.compare_qrels`` still work and name the
very same functions, and ``python -m cwla.cli`` still runs the module.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from collections.abc import Mapping

__all__ = ["keep_old_paths"]


class _Alias(importlib.abc.Loader):
    """Loads an old path as the module now at ``target`` (imported when first asked for)."""

    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module) -> None:
        module.__spec__ = self.spec  # the import system set the old path's spec on it: the module keeps its own

    def is_package(self, fullname: str) -> bool:
        return False

    def get_code(self, fullname: str):  # what ``python -m old.path`` runs: the module at its new path
        return compile(f"import runpy\nrunpy.run_module({self.target!r}, run_name='__main__', alter_sys=True)\n",
                       f"<{fullname}: {self.target}>", "exec")


class _OldPaths(importlib.abc.MetaPathFinder):
    def __init__(self, moved: Mapping[str, str]):
        self.moved = dict(moved)

    def find_spec(self, fullname, path, target=None):
        new = self.moved.get(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, _Alias(new))


def keep_old_paths(package: str, moved: Mapping[str, str], borrowed: Mapping[str, Mapping[str, str]] | None = None
                   ) -> None:
    """Answer each old module path of ``package`` in ``moved`` (``{"runset": "data.runset", ...}``, relative to
    the package) with its module.

    ``borrowed`` lists what an old module had from elsewhere, now kept by another module
    (``{"gains": {"parse_gain": "metrics.text"}}``): the name is set on the moved module (which is the old
    path's module), so ``from cwla.gains import parse_gain`` keeps working."""
    moved = {f"{package}.{old}": f"{package}.{new}" for old, new in moved.items()}
    for old, names in (borrowed or {}).items():
        module = importlib.import_module(moved[f"{package}.{old}"])
        for name, home in names.items():
            if not hasattr(module, name):
                setattr(module, name, getattr(importlib.import_module(f"{package}.{home}"), name))
    later = {}
    for old, new in moved.items():
        if new in sys.modules:
            sys.modules.setdefault(old, sys.modules[new])
        else:
            later[old] = new
    if later:
        sys.meta_path.append(_OldPaths(later))
