"""The one LaTeX writer behind every to_latex (no jinja2): escaping and cells."""

import numpy as np
import pandas as pd

import cwla
from cwla._latex import escape, number, tabular


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
