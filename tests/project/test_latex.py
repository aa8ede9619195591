"""The one LaTeX writer behind every to_latex (no jinja2): escaping, cells, rows, tables; and
:func:`check_latex`, the structural checker other tests use (with :func:`compile_latex` where
pdflatex is installed)."""

import re

import numpy as np
import pandas as pd
import pytest

import cwla
from cwla._latex import bold, escape, grid, inline_math, number, row, superscript, table, tabular
from latex_check import check_latex, compile_latex


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
