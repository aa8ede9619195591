"""Every public function, class and method of cwla and discpower is fully type-annotated.

Public: the names in ``cwla.__all__``, ``discpower.__all__``, the public modules they export
(``cwla.counting``, ``cwla.synthetic``), ``cwla.testing`` and the bridges (``cwla.ir_measures``);
for a class, its ``__init__`` (attrs-generated ones included: their parameters take the fields' or
the converters' types) and every public method and property defined in cwla or discpower.
"""

from __future__ import annotations

import importlib
import inspect

import pytest

import cwla
import discpower

MODULES = ["cwla.testing", "cwla.counting", "cwla.synthetic", "cwla.ir_measures"]


def _members(cls: type):
    for owner in cls.__mro__:
        if owner.__module__.split(".")[0] not in ("cwla", "discpower"):
            continue
        for name, obj in vars(owner).items():
            if (name.startswith("_") and name != "__init__") or (owner is not cls and name == "__init__"):
                continue
            if isinstance(obj, (staticmethod, classmethod)):
                obj = obj.__func__
            if isinstance(obj, property):
                obj = obj.fget
            if inspect.isfunction(obj):
                yield f"{cls.__name__}.{name}", obj


def _public() -> list[tuple[str, object]]:
    out = []
    spaces = [(pkg.__name__, pkg, pkg.__all__) for pkg in (cwla, discpower)]
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:  # the bridges need their tools
            continue
        spaces.append((name, module, getattr(module, "__all__", [])))
    for prefix, space, names in spaces:
        for name in names:
            obj = getattr(space, name)
            if inspect.isclass(obj):
                out += [(f"{prefix}.{label}", f) for label, f in _members(obj)]
            elif inspect.isfunction(obj):
                out.append((f"{prefix}.{name}", obj))
    return out


def _missing(func) -> list[str]:
    sig = inspect.signature(func)
    missing = [p.name for p in sig.parameters.values()
               if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty]
    if sig.return_annotation is inspect.Signature.empty and func.__name__ != "__init__":
        missing.append("return")
    return missing


def test_there_is_much_to_check():
    assert len(_public()) > 250


def test_every_public_callable_is_fully_annotated():
    bad = {name: _missing(f) for name, f in _public() if _missing(f)}
    assert bad == {}


def test_declared_models_show_their_parameter_types():
    # attrs builds __init__ from the declaration: the parameter's kind becomes its annotation
    params = inspect.signature(cwla.DCG).parameters
    assert params["k"].annotation == "int | None"
    assert inspect.signature(cwla.RBP).parameters["p"].annotation == "float"


@pytest.mark.parametrize("package", ["cwla", "discpower"])
def test_the_packages_are_typed(package):
    import pathlib

    assert (pathlib.Path(importlib.import_module(package).__file__).parent / "py.typed").is_file()
