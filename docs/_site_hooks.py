"""mkdocs hooks (``mkdocs.yml``): the notebooks and the API reference join the site at build time.

The notebooks live in ``notebooks/`` beside ``docs/`` and are rendered as they are stored (with
their outputs, not executed again). The API reference has one page per package, generated from
the package's ``__all__`` (``api/cwla.md``, ``api/discpower.md`` exist only in the built site): first
the entry points a newcomer calls (:data:`ENTRY_POINTS`, each with a runnable ``Examples`` section),
then every other public name, grouped by the public module that holds it. A name defined in a private
module (a path component starting with ``_``, such as ``cwla._numba`` or ``cwla.metrics._declare``) is
listed under its nearest public parent, so no private module heads a section.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re

try:
    from mkdocs.plugins import event_priority
except ImportError:  # imported without mkdocs (tests/project/test_docs.py reads ENTRY_POINTS)
    def event_priority(priority: int):
        return lambda function: function

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("cwla", "discpower")
#: the names a newcomer starts from, in reading order: they head each API page (each docstring has an
#: ``Examples`` section that runs: tests/project/test_docs.py)
ENTRY_POINTS = {
    "cwla": ("evaluate", "read_qrels", "read_run", "read_runs", "read_costs", "open_runs", "parse_metric", "Metric",
             "Evaluator", "register_model", "prepare", "read_subtopics"),
    "discpower": ("meta_evaluate", "compare_systems", "compare_scores", "compare_qrels", "sweep",
                  "randomised_tukey_hsd", "split_half_consistency", "ranking_similarity", "calibrate",
                  "discriminative_power"),
}
#: public modules outside ``__all__`` (they need optional tools, or are imported on their own)
MODULES = {"cwla": ("cwla.bridges.ir_measures", "cwla.testing"), "discpower": ()}


def public_module(module: str) -> str:
    """``module`` cut before its first private component (``cwla.metrics._declare`` -> ``cwla.metrics``)."""
    parts = module.split(".")
    keep = next((k for k, part in enumerate(parts) if part.startswith("_")), len(parts))
    return ".".join(parts[:max(keep, 1)])


def _home(package: str, obj: object) -> str:
    """The public module that holds ``obj`` (the package itself for plain values such as dicts)."""
    if inspect.ismodule(obj):
        return public_module(obj.__name__)
    module = getattr(obj, "__module__", None)
    if isinstance(module, str) and module.startswith(package + ".") and (inspect.isclass(obj) or callable(obj)):
        return public_module(module)
    return package


def _summary(obj: object) -> str:
    doc = inspect.getdoc(obj) or ""
    return doc.split("\n\n")[0].replace("\n", " ")


def _markdown(text: str) -> str:
    """A docstring's first paragraph as Markdown (reST roles as code spans), for a table cell."""
    text = re.sub(r":(?:py:)?\w+:`~?([^`]+)`", r"`\1`", text)
    return re.sub(r"``([^`]+)``", r"`\1`", text).replace("|", "&#124;")


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


def _entry(package: str, name: str, obj: object) -> list[str]:
    options = ["    options:", "      members: false"] if inspect.ismodule(obj) else []
    return [f"::: {package}.{name}", *options, ""]


def api_page(package: str) -> str:
    """The API reference page of ``package``: its entry points, then every other name of its ``__all__``
    by the public module that holds it."""
    pkg = importlib.import_module(package)
    names = [name for name in pkg.__all__ if name != "__version__"]
    entry = [name for name in ENTRY_POINTS[package] if name in names]
    groups: dict[str, list[str]] = {}
    for name in names:
        if name not in entry:
            groups.setdefault(_home(package, getattr(pkg, name)), []).append(name)
    version = getattr(pkg, "__version__", "")
    lines = [f"# API reference: `{package}`", "", _summary(pkg), "",
             f"`{package}.__version__` is `{version}`. Start with the entry points; every other public name "
             f"of `{package}` follows, grouped by the module that holds it (each is importable as "
             f"`{package}.<name>`).", "",
             "## Entry points", "", "| name | what it does |", "|---|---|"]
    lines += [f"| [`{package}.{name}`](#{package}.{name}) | {_markdown(_summary(getattr(pkg, name)))} |"
              for name in entry]
    lines.append("")
    for name in entry:
        lines += _entry(package, name, getattr(pkg, name))
    lines += ["## Argument types", "",
              "The signatures name the accepted input forms by these aliases (checked at run time, with clear "
              "errors, by the readers):", "", *_aliases(), ""]
    order = sorted(groups, key=lambda m: (m == package, m))
    for module in order:
        title = f"Other names of `{package}`" if module == package else f"`{module}`"
        lines += [f"## {title}", ""]
        if module != package:
            lines += [_summary(importlib.import_module(module)), ""]
        for name in groups[module]:
            lines += _entry(package, name, getattr(pkg, name))
    for module in MODULES[package]:
        short = f" (also `{module.replace('.bridges', '')}`)" if ".bridges." in module else ""
        lines += [f"## `{module}`{short}", "", f"::: {module}", "    options:", "      show_root_heading: false",
                  "      heading_level: 3", ""]
    return "\n".join(lines)


@event_priority(100)  # before mkdocs-jupyter, which turns the notebooks into pages
def on_files(files: object, config: object) -> object:
    """Add the notebooks and the generated API pages to the site's files."""
    from mkdocs.structure.files import File

    for name in sorted(os.listdir(os.path.join(ROOT, "notebooks"))):
        if name.endswith(".ipynb"):
            files.append(File(f"notebooks/{name}", ROOT, config["site_dir"], config["use_directory_urls"]))
    for package in PACKAGES:
        files.append(File.generated(config, f"api/{package}.md", content=api_page(package)))
    return files
