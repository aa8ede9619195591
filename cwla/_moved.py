"""Old module paths that keep working: ``import cwla.data.runset`` gives :mod:`cwla.data.runset`.

The modules moved into the subpackages of the layers (``cwla.metrics``, ``cwla.data``, ``cwla.scoring``,
``cwla.bridges``; discpower's ``stats``, ``metrics``, ``qrels``, ``reports``). :func:`keep_old_paths`
registers an import hook that answers an old path with the module itself (the same object, imported on
first use), so ``from cwla.data.runset import RunSet`` and ``discpower.qrels.compare.compare_qrels`` still
work and name the very same functions.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from collections.abc import Mapping

__all__ = ["keep_old_paths"]


class _Alias(importlib.abc.Loader):
    """Loads an old path as the module now at ``target``."""

    def __init__(self, target: str):
        self.target = target
        self.module = None

    def create_module(self, spec):
        self.module = importlib.import_module(self.target)
        self.spec = self.module.__spec__
        return self.module

    def exec_module(self, module) -> None:
        module.__spec__ = self.spec  # the import system set the old path's spec on it: the module keeps its own


class _OldPaths(importlib.abc.MetaPathFinder):
    def __init__(self, moved: Mapping[str, str]):
        self.moved = dict(moved)

    def find_spec(self, fullname, path, target=None):
        new = self.moved.get(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, _Alias(new))


def keep_old_paths(moved: Mapping[str, str]) -> None:
    """Answer each old module path of ``moved`` (``{"cwla.data.runset": "cwla.data.runset", ...}``) with its new module."""
    sys.meta_path.append(_OldPaths(moved))
