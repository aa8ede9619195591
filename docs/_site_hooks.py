"""mkdocs hooks (``mkdocs.yml``): the notebooks and the API reference join the site at build time.

The notebooks live in ``notebooks/`` beside ``docs/`` and are rendered as they are stored (with
their outputs, not executed again). The API reference has one page per package, generated from
the package's ``__all__``: every public name gets a ``::: package.name`` block that mkdocstrings
fills from its docstring and signature, grouped by the module that defines it.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("cwla", "discpower")
#: public modules outside ``__all__`` (they need optional tools, or are imported on their own)
MODULES = {"cwla": ("cwla.bridges.ir_measures", "cwla.testing"), "discpower": ()}


def _home(package: str, name: str, obj: object) -> str:
    """The module that defines ``obj`` (the package itself for plain values such as dicts)."""
    if inspect.ismodule(obj):
        return obj.__name__
    module = getattr(obj, "__module__", None)
    if isinstance(module, str) and module.startswith(package + ".") and (inspect.isclass(obj) or callable(obj)):
        return module
    return package


def _summary(obj: object) -> str:
    doc = inspect.getdoc(obj) or ""
    return doc.split("\n\n")[0].replace("\n", " ")


def _aliases() -> list[str]:
    """The argument types of :mod:`cwla.typing` and :mod:`discpower.typing` as a Markdown table, from their
    ``#:`` comments."""
    rows = ["| type | what it accepts |", "|---|---|"]
    for package in PACKAGES:
        source = open(os.path.join(ROOT, package, "typing.py"), encoding="utf-8").read()
        for comment, name in re.findall(r"((?:^#: .*\n)+)^(\w+) = ", source, flags=re.M):
            text = " ".join(line[3:] for line in comment.strip().splitlines())
            rows.append(f"| `{name}` | {text.replace('|', '&#124;')} |")
    return rows


def api_page(package: str) -> str:
    """The API reference page of ``package``: every name of its ``__all__``, by defining module."""
    pkg = importlib.import_module(package)
    groups: dict[str, list[str]] = {}
    for name in pkg.__all__:
        if name == "__version__":
            continue
        groups.setdefault(_home(package, name, getattr(pkg, name)), []).append(name)
    lines = [f"# API reference: `{package}`", "", _summary(pkg), "",
             f"Every name in `{package}.__all__`, grouped by the module that defines it; "
             f"`{package}.__version__` is `{pkg.__version__ if hasattr(pkg, '__version__') else ''}`.", "",
             "The signatures name the accepted input forms by these aliases (checked at run time, with clear "
             "errors, by the readers):", "", *_aliases(), ""]
    order = sorted(groups, key=lambda m: (m == package, m))
    for module in order:
        title = "Values" if module == package else f"`{module}`"
        lines += [f"## {title}", ""]
        if module != package:
            lines += [_summary(importlib.import_module(module)), ""]
        for name in groups[module]:
            obj = getattr(pkg, name)
            options = ["    options:", "      members: false"] if inspect.ismodule(obj) else []
            lines += [f"::: {package}.{name}", *options, ""]
    for module in MODULES[package]:
        short = f" (also `{module.replace('.bridges', '')}`)" if ".bridges." in module else ""
        lines += [f"## `{module}`{short}", "", f"::: {module}", "    options:", "      show_root_heading: false",
                  "      heading_level: 3", ""]
    return "\n".join(lines)


@event_priority(100)  # before mkdocs-jupyter, which turns the notebooks into pages
def on_files(files: Files, config: object) -> Files:
    """Add the notebooks and the generated API pages to the site's files."""
    for name in sorted(os.listdir(os.path.join(ROOT, "notebooks"))):
        if name.endswith(".ipynb"):
            files.append(File(f"notebooks/{name}", ROOT, config["site_dir"], config["use_directory_urls"]))
    for package in PACKAGES:
        files.append(File.generated(config, f"api/{package}.md", content=api_page(package)))
    return files
