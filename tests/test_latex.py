"""The one LaTeX writer behind every to_latex (no jinja2): escaping, cells, rows, tables; and
:func:`check_latex`, the structural checker other tests use (with :func:`compile_latex` where
pdflatex is installed)."""

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import cwla
from cwla._latex import bold, escape, grid, inline_math, number, row, superscript, table, tabular


def test_escape_makes_every_special_character_print_as_written():
    assert escape("RBP_ERG") == r"RBP\_ERG"
    assert escape("a&b%c$d#e_f{g}h~i^j\\k") == \
        r"a\&b\%c\$d\#e\_f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"
    assert escape(3) == "3"


def test_cells():
    assert number(3, 4) == "3" and number(np.int64(7), 2) == "7"
    assert number(0.123456, 3) == "0.123" and number(float("nan"), 3) == "--"
    assert number(-1e-9, 3) == "0.000"  # no negative zero
    assert number("P@10_x", 3) == r"P@10\_x" and number(True, 2) == "true"


def test_tabular_layout():
    frame = pd.DataFrame({"metric": ["RBP_ERG", "nDCG@10"], "value": [0.5, np.nan], "count": [3, 4]})
    assert tabular(frame, 2).splitlines() == [
        r"\begin{tabular}{lrr}", r"\hline", r"metric & value & count \\", r"\hline",
        r"RBP\_ERG & 0.50 & 3 \\", r"nDCG@10 & -- & 4 \\", r"\hline", r"\end{tabular}",
    ]


def test_evaluation_to_latex_without_jinja2():
    qrels, runs = cwla.synthetic.collection(n_topics=4, n_runs=3, seed=2)
    tex = cwla.evaluate(qrels, runs, ["RBP_ERG", "P(rel=2)@5"]).to_latex(digits=3)
    assert tex.startswith(r"\begin{tabular}{lrr}") and r"RBP\_ERG" in tex and "run01 &" in tex


# ----------------------------------------------------------------------------- a structural checker

_SPEC_COLUMN = re.compile(r"[lrc]|p\{[^}]*\}")


def _unescaped(text, ch):
    """Positions of ``ch`` in ``text`` not preceded by a backslash (an escaped backslash ``\\\\`` counts)."""
    out, k = [], 0
    while k < len(text):
        if text[k] == "\\":
            k += 2
            continue
        if text[k] == ch:
            out.append(k)
        k += 1
    return out


def _group(text, start):
    """The content of the brace group opening at ``text[start] == '{'`` and the index after it."""
    assert text[start] == "{", f"expected '{{' at {start}: {text[start:start + 20]!r}"
    depth, k = 0, start
    while k < len(text):
        if text[k] == "\\":
            k += 2
            continue
        depth += {"{": 1, "}": -1}.get(text[k], 0)
        if depth == 0:
            return text[start + 1:k], k + 1
        k += 1
    raise AssertionError(f"unclosed brace group at {start}")


def check_latex(tex, names=()):
    """Assert that ``tex`` (tables of cwla/discpower) is well formed LaTeX with its specials escaped.

    Braces balance; every ``_ % #`` is escaped; unescaped ``$`` come in pairs (inline math, and
    only with an ``\\alpha`` or digits inside); each ``names`` entry appears escaped and never raw;
    every tabular row has as many cells (unescaped ``&`` + 1) as the column spec has columns;
    ``\\textbf`` and ``\\textsuperscript`` take one non-empty brace group. Returns the number of
    rows checked. Comment lines (``% ...``) are left out.
    """
    tex = "\n".join(line for line in tex.splitlines() if not line.lstrip().startswith("%"))
    depth = 0
    opens, closes = _unescaped(tex, "{"), _unescaped(tex, "}")
    assert len(opens) == len(closes), f"{len(opens)} '{{' for {len(closes)} '}}'"
    events = sorted([(k, 1) for k in opens] + [(k, -1) for k in closes])
    for k, step in events:
        depth += step
        assert depth >= 0, f"'}}' without '{{' at {k}: {tex[max(0, k - 30):k + 1]!r}"
    for ch in "_%#":
        bad = _unescaped(tex, ch)
        assert not bad, f"unescaped {ch!r} at {bad[0]}: {tex[max(0, bad[0] - 30):bad[0] + 10]!r}"
    dollars = _unescaped(tex, "$")
    assert len(dollars) % 2 == 0, "an odd number of unescaped '$'"
    for a, b in zip(dollars[::2], dollars[1::2]):
        assert re.fullmatch(r"[\\a-z0-9 =.{},<>/]*", tex[a + 1:b]), f"unexpected math {tex[a:b + 1]!r}"
    for name in names:
        assert escape(name) in tex, f"{name!r} is not in the table escaped ({escape(name)!r})"
        if escape(name) != name:
            stripped = tex.replace(escape(name), "")
            assert name not in stripped, f"{name!r} appears unescaped"
    for command in ("\\textbf", "\\textsuperscript"):
        for match in re.finditer(re.escape(command) + r"(?![a-z])", tex):
            content, _ = _group(tex, match.end())
            assert content.strip(), f"{command} with empty content at {match.start()}"
    rows = 0
    for match in re.finditer(r"\\begin\{tabular\}", tex):
        spec, after = _group(tex, match.end())
        columns = _SPEC_COLUMN.findall(spec)
        assert "".join(columns) == spec.replace(" ", "").replace("|", ""), f"odd column spec {spec!r}"
        width = len(columns)
        end = tex.index("\\end{tabular}", after)
        for line in tex[after:end].splitlines():
            line = line.strip()
            if not line or line == "\\hline":
                continue
            assert line.endswith("\\\\"), f"a tabular line that is no row: {line!r}"
            cells = len(_unescaped(line[:-2], "&")) + 1
            assert cells == width, f"{cells} cells for {width} columns ({spec!r}): {line!r}"
            rows += 1
    return rows


def compile_latex(tex, tmp_path):
    """Compile ``tex`` (a fragment) in an article with pdflatex; skip without pdflatex. Returns the log."""
    engine = shutil.which("pdflatex")
    if engine is None:
        pytest.skip("no pdflatex installed (the structural check still ran)")
    source = tmp_path / "doc.tex"
    source.write_text("\\documentclass{article}\n\\usepackage{graphicx}\n\\begin{document}\n" + tex + "\n\\end{document}\n")
    out = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", source.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    log = (tmp_path / "doc.log").read_text(errors="replace") if (tmp_path / "doc.log").exists() else out.stdout
    assert out.returncode == 0, log[-3000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 0
    assert "Undefined control sequence" not in log and "Missing" not in log
    return log


def test_cell_helpers():
    assert bold("0.5") == r"\textbf{0.5}"
    assert superscript("ab") == r"\textsuperscript{ab}" and superscript("") == ""
    assert row(["a", "b"]) == r"a & b \\"
    assert inline_math(r"\alpha = 0.05") == r"$\alpha = 0.05$"


def test_grid_and_table():
    body = grid("lr", ["System", r"RBP\_ERG"], [["x", bold("1") + superscript("b")], ["y", "2"]])
    assert body.splitlines() == [r"\begin{tabular}{lr}", r"\hline", r"System & RBP\_ERG \\", r"\hline",
                                 r"x & \textbf{1}\textsuperscript{b} \\", r"y & 2 \\", r"\hline",
                                 r"\end{tabular}"]
    tex = table(body, "A caption", label="tab:a_b c")
    assert tex.splitlines()[:4] == [r"\begin{table}[ht]", r"\centering", r"\caption{A caption}", r"\label{tab:a-b-c}"]
    assert tex.endswith(r"\end{table}")
    assert check_latex(tex, names=["RBP_ERG"]) == 3
    with pytest.raises(ValueError, match="row 2 has 1 cells for the 2 columns"):
        grid("lr", ["a", "b"], [["x", "y"], ["z"]])


@pytest.mark.parametrize("tex, message", [
    (r"\begin{tabular}{lr}" "\n" r"a & b & c \\" "\n" r"\end{tabular}", "3 cells for 2 columns"),
    (r"\textbf{x", "'{' for"),
    (r"x}{", "without"),
    (r"RBP_ERG", "unescaped '_'"),
    (r"50%", "unescaped '%'"),
    (r"\textbf{}", "empty content"),
    (r"$x", "odd number"),
])
def test_checker_catches_broken_latex(tex, message):
    with pytest.raises(AssertionError, match=re.escape(message)):
        check_latex(tex)


def test_checker_catches_an_unescaped_name():
    with pytest.raises(AssertionError, match="not in the table escaped"):
        check_latex(r"a\_b and a&b", names=["a&b"])


def test_tabular_compiles(tmp_path):
    frame = pd.DataFrame({"metric": ["RBP_ERG", "P@10 & 50%", "#1 $x"], "value": [0.5, np.nan, 1.0]})
    tex = tabular(frame, 3)
    assert check_latex(tex, names=list(frame.metric)) == 4
    compile_latex(tex, tmp_path)


def test_every_to_latex_of_both_packages_parses_and_compiles(tmp_path):
    """Each result type's ``to_latex``, on names with LaTeX's specials (run_a, RBP_ERG), goes through the
    one helper: escaped, rows as wide as their spec, and (where pdflatex installs) it compiles."""
    import cwla
    import discpower

    qrels, runs = cwla.synthetic.collection(n_topics=12, n_runs=6, seed=3)
    runs = {f"run_{k}&{i}": frame for i, (k, frame) in enumerate(runs.items())}
    grid = {"RBP_ERG": "RBP(p=0.8)+ERG", "INST_PE": "INST(T=2.5)+PE(beta=0.5)", "P@10 50%": "P@10"}
    report = discpower.meta_evaluate(qrels, runs, grid, n_trials=200, n_splits=20, seed=1, families="all")
    X = report.evaluation.scores("RBP_ERG").T
    candidate = discpower.sample_relevant(qrels, 0.5, seed=2)
    tables = {
        "Evaluation": report.evaluation.to_latex(),
        "MetaEvaluation": report.to_latex(),
        "SplitHalfConsistency": report.consistency.to_latex(),
        "FamilyConsistency": report.family_consistency.to_latex(),
        "RankingSimilarity": report.similarity.to_latex(),
        "PairwiseTest": discpower.randomised_tukey_hsd(X, 200, seed=1, systems=list(runs)).to_latex(),
        "QrelsComparison": discpower.compare_qrels(qrels, candidate, runs, "RBP(p=0.8)+ERG", n_trials=200,
                                                   seed=1).to_latex(),
        "Calibration": discpower.calibrate(X, "t-test", n_sim=20, seed=1, deltas=(0.05,)).to_latex(),
        "SystemComparison": discpower.compare_systems(qrels, runs, grid, n_trials=200, seed=1).to_latex(),
    }
    for what, tex in tables.items():
        names = [n for n in (*runs, *grid) if escape(n) in tex or n in tex]
        assert check_latex(tex, names=names) >= 1, what
    assert any("RBP\\_ERG" in tex for tex in tables.values())
    compile_latex("\n\n".join(tables.values()), tmp_path)
