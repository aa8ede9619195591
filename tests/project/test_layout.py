"""The layout shows the layers: no import circle (lazy imports counted), discpower on cwla's public API and its one
internal module, each concept declared once, and every old module path still working."""

import ast
import importlib
import json
import sys
import warnings
import re
from pathlib import Path

import pytest

import cwla
import discpower
from conftest import ROOT

PACKAGES = ("cwla", "discpower")


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict) -> set[str]:
    """The modules of the two packages that ``name`` imports anywhere in it (function bodies included)."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        targets = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [module] + [f"{module}.{alias.name}" for alias in node.names]
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _graph():
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _cycle(graph):
    """A cycle of the import graph (a list of modules), or None; a package importing its own submodules
    (its face) is not a cycle, so packages' __init__ edges into themselves are left out."""
    def inside(a, b):
        return b.startswith(a + ".")

    edges = {a: {b for b in bs if not inside(a, b)} for a, bs in graph.items()}
    colour, stack = {}, []

    def visit(node):
        colour[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if colour.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in colour:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        colour[node] = 2
        return None

    for node in sorted(edges):
        if node not in colour:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_circle():
    assert _cycle(_graph()) is None


def test_the_circle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_discpower_uses_cwla_public_api_and_one_internal_module():
    private = set()
    for path in (ROOT / "discpower").rglob("*.py"):
        private |= set(re.findall(r"cwla(?:\.[a-z_]+)*\._[a-z][a-z_0-9]*", path.read_text()))
    assert private <= {"cwla._shared"}
    # what discpower imports from cwla: public modules (no part of the path private) and the internal module
    imported = {module for name, module in _imports_from("discpower", "cwla")}
    public = {module for module in imported if not any(part.startswith("_") for part in module.split("."))}
    assert imported - public == {"cwla._shared"}, imported
    # the command line's modules only for discpower's own command line
    bridges = {name for name, module in _imports_from("discpower", "cwla") if module.startswith("cwla.bridges")}
    assert bridges <= {"discpower.reports.cli"}, bridges


#: cwla's ground floor: the modules that import nothing of cwla but each other
GROUND_FLOOR = {"cwla._numba", "cwla._validate", "cwla._latex", "cwla._moved", "cwla._display", "cwla.errors",
                "cwla.typing", "cwla._version", "cwla._ahead", "cwla.progress"}


def test_the_seam_stands_on_cwlas_ground_floor():
    modules = _modules()
    for name in GROUND_FLOOR:
        assert _imports(name, modules[name], modules) <= GROUND_FLOOR, name
    assert _imports("cwla._shared", modules["cwla._shared"], modules) <= GROUND_FLOOR


def _imports_from(package: str, other: str) -> set[tuple[str, str]]:
    """(module of ``package``, module of ``other`` it imports from), function bodies included."""
    found = set()
    for name, path in _modules().items():
        if not name.startswith(package):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == other:
                found.add((name, node.module))
            elif isinstance(node, ast.Import):
                found |= {(name, alias.name) for alias in node.names if alias.name.split(".")[0] == other}
    return found


def test_the_layers_import_downwards_only():
    order = {"cwla.metrics": 1, "cwla.data": 1, "cwla.scoring": 2, "cwla.testing": 3, "cwla.bridges": 3,
             "discpower.stats": 4, "discpower.metrics": 5, "discpower.qrels": 5, "discpower.reports": 6}
    graph = _graph()

    def layer(module):
        return next((rank for prefix, rank in order.items() if module == prefix or module.startswith(prefix + ".")),
                    None)

    upward = [(a, b) for a, bs in graph.items() for b in bs
              if layer(a) is not None and layer(b) is not None and layer(b) > layer(a)]
    sideways = [(a, b) for a, bs in graph.items() for b in bs
                if a.startswith("cwla.") and b.startswith("cwla.")
                and {a.split(".")[1], b.split(".")[1]} == {"metrics", "data"}]
    assert upward == [] and sideways == []


@pytest.mark.parametrize("package", [cwla, discpower])
def test_every_old_module_path_gives_the_module_now(package):
    """A public name among the old paths is the module itself; any other old path gives the module's names,
    the very same objects (cwla._moved.OldPath)."""
    from cwla._moved import OldPath

    for old, new in package.MOVED.items():
        if old == "ir_measures":
            pytest.importorskip("ir_measures")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # (test_an_old_path_warns_once_where_imported)
            module = importlib.import_module(f"{package.__name__}.{old}")
        target = importlib.import_module(f"{package.__name__}.{new}")
        assert target.__name__ == f"{package.__name__}.{new}"  # its own name kept (pickles, reprs)
        if old in package.__all__ or old == "ir_measures":
            assert module is target
            continue
        assert isinstance(module, OldPath) and getattr(package, old) is module
        names = getattr(target, "__all__", [n for n in vars(target) if not n.startswith("_")])
        assert names and all(getattr(module, name) is getattr(target, name) for name in names), old


@pytest.mark.parametrize("package", [cwla, discpower])
def test_an_old_path_warns_once_where_imported(package, monkeypatch):
    """Issue 40: importing an old module path (or reading it as the package's attribute) gives a
    DeprecationWarning that names the new path and the release that removes the old one, pointed at the
    importing line; the package's public names among the old paths (cwla.synthetic, cwla.warmup, ...) do not."""
    from cwla._moved import REMOVED_IN

    for old, new in package.MOVED.items():
        full = f"{package.__name__}.{old}"
        if old in package.__all__ or old == "ir_measures":
            if old in package.__all__:
                with warnings.catch_warnings():
                    warnings.simplefilter("error", DeprecationWarning)
                    importlib.import_module(full)
            continue
        monkeypatch.delitem(sys.modules, full, raising=False)
        with pytest.warns(DeprecationWarning) as caught:
            importlib.import_module(full)
        assert [str(w.message) for w in caught] == [
            f"{full} is deprecated and is removed in release {REMOVED_IN}: use {package.__name__}.{new}"]
        monkeypatch.delitem(sys.modules, full)
        monkeypatch.delattr(package, old)
        with pytest.warns(DeprecationWarning, match=f"use {package.__name__}.{new}") as caught:
            getattr(package, old)  # read as an attribute first
        assert caught[0].filename == __file__
    monkeypatch.delitem(sys.modules, "cwla.runset", raising=False)
    with pytest.warns(DeprecationWarning) as caught:
        import cwla.runset  # noqa: F401
    assert caught[0].filename == __file__  # the warning points at the import, not at importlib


def test_old_paths_give_the_very_same_functions():
    from cwla.evaluation import Evaluation, evaluate
    from cwla.runset import RunSet, open_runs
    from discpower.qrels_compare import QrelsComparer, compare_qrels
    from discpower.sweeps import Sweep, sweep

    assert (evaluate, Evaluation, RunSet, open_runs) == (cwla.evaluate, cwla.Evaluation, cwla.RunSet, cwla.open_runs)
    assert (compare_qrels, QrelsComparer, sweep, Sweep) == (discpower.compare_qrels, discpower.QrelsComparer,
                                                            discpower.sweep, discpower.Sweep)


def test_one_seed_derivation():
    """numpy's SeedSequence is called in discpower's random-number module only."""
    users = [path.relative_to(ROOT).as_posix() for path in (ROOT / "discpower").rglob("*.py")
             if "SeedSequence(" in path.read_text()]
    assert users == ["discpower/stats/rng.py"]


def test_one_opener_of_text_files():
    """gzip and the byte-order mark are handled in cwla's opener only."""
    users = sorted(path.relative_to(ROOT).as_posix() for package in PACKAGES for path in (ROOT / package).rglob("*.py")
                   if re.search(r"gzip\.decompress|\\xef\\xbb\\xbf|\\x1f\\x8b", path.read_text()))
    assert users == ["cwla/data/files.py"]


def test_public_helpers_have_no_underscore():
    """What another module uses is public in its own: no ``from .x import _name`` across modules."""
    crossing = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] in PACKAGES):
                crossing += [f"{name}: {node.module}.{alias.name}" for alias in node.names
                             if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert crossing == []


def test_old_paths_keep_what_the_package_names():
    import cwla.warmup  # noqa: F401 (the module of the same name)
    from cwla.evaluation import EXPECTED

    assert callable(cwla.warmup) and EXPECTED == ("EC", "ETC", "ED")


#: the public names of every moved public module as of 8339cba, the flat layout's last commit: the contract
#: of the old paths (tests/project/old_public_names.json)
OLD_PUBLIC = json.loads((Path(__file__).parent / "old_public_names.json").read_text())


@pytest.mark.parametrize("old", sorted(OLD_PUBLIC))
def test_old_paths_keep_every_public_name_they_had(old):
    if old == "cwla.ir_measures":
        pytest.importorskip("ir_measures")
    module = importlib.import_module(old)
    assert [name for name in OLD_PUBLIC[old] if not hasattr(module, name)] == []


def test_names_an_old_module_had_from_elsewhere_are_the_same_objects(monkeypatch):
    """cwla.gains.parse_gain lives in the metric language now: the old path gives it (cwla.ELSEWHERE), and
    cwla.metrics.gains is not patched with it."""
    monkeypatch.delitem(sys.modules, "cwla.gains", raising=False)
    with pytest.warns(DeprecationWarning, match="use cwla.metrics.gains"):
        from cwla.gains import parse_gain
    assert not hasattr(cwla.metrics.gains, "parse_gain")

    assert parse_gain is cwla.parse_gain and parse_gain("linear:3") == cwla.Linear(3)


def test_run_groups_at_its_old_path_groups_files_as_the_evaluator_does(tmp_path):
    from cwla.runset import run_groups

    _, runs = cwla.synthetic.collection(n_topics=4, n_runs=3, seed=1)
    paths = []
    for name, frame in runs.items():
        paths.append(tmp_path / name)
        paths[-1].write_text("".join(f"{t} Q0 {d} {r} {s} {name}\n" for t, d, s, r in frame.itertuples(index=False)))
    assert list(run_groups(paths, 1)) == [{p.name: p} for p in paths]  # a file a group
    assert list(run_groups(paths, 10**9)) == [{p.name: p for p in paths}]
    read = cwla.read_runs(paths)
    assert list(run_groups(read)) == [read]
    assert list(run_groups(runs)) == [runs]  # frames: one group, as they are


def test_every_error_is_a_library_error():
    """Issue 40: no bare ``raise ValueError(`` or ``raise TypeError(`` in either package: a CwlaError (or
    DiscpowerError), which is a ValueError, or a ParameterError, which is both, so that old except clauses
    still catch them and a caller can tell the library's errors from others."""
    bare = [f"{path.relative_to(ROOT).as_posix()}:{number}" for package in PACKAGES
            for path in (ROOT / package).rglob("*.py")
            for number, line in enumerate(path.read_text().splitlines(), 1)
            if re.search(r"\braise (ValueError|TypeError)\(", line)]
    assert bare == []


#: a module is read at once: past this many lines it holds more than one thing
MAX_MODULE_LINES = 800


def test_every_module_is_small_enough_to_read_at_once():
    long = {name: n for name, path in _modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert long == {}, f"split these modules (lines): {long}"
