"""cwl_eval's measures and outputs: ``cwla cwl`` against cwl_eval's own fixtures, the DL19 mini set's
cwl_eval reference outputs, and cwl-eval itself on generated data (skipped without it); costs and the
expected cost, total cost and depth."""

import contextlib
import io
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import cwla
from cwla.bridges.cli import main
from cwla.bridges.cwl import CWL_MEASURES, cwl_frame, parse_cwl_metric
from conftest import shared_path

COLUMNS = ["EU", "ETU", "EC", "ETC", "ED", "ResEU", "ResETU", "ResEC", "ResETC", "ResED"]


def _cli(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(map(str, argv)))
    return code, out.getvalue()


@pytest.fixture(scope="module")
def fixtures():
    return shared_path("reference-fixtures", "cwl_eval-test")


@pytest.mark.slow
def test_cwl_reproduces_cwl_evals_fixture_with_costs_byte_for_byte(fixtures):
    code, out = _cli("cwl", fixtures / "gain_file", fixtures / "result_file", "-m", fixtures / "metrics_file",
                     "-c", fixtures / "cost_file", "-n")
    assert code == 0
    assert out == (fixtures / "out.gain_file.cost_file.metrics_file.tsv").read_text()


def test_cwl_reproduces_cwl_evals_default_metrics_with_residuals(fixtures):
    code, out = _cli("cwl", fixtures / "qrel_file", fixtures / "result_file", "-n", "-r")
    expected = (fixtures / "out.default_metrics.residuals.tsv").read_text()
    assert code == 0
    # byte for byte but the sign of zero: cwl_eval's EC sums W(i) by BLAS and lands 2e-16 either side of 1,
    # so a few of its zero residuals print as -0.0000; cwla's EC is exactly 1 there
    assert out != expected or "-0.0000" not in expected
    assert out.replace("-0.0000", "0.0000") == expected.replace("-0.0000", "0.0000")
    assert out.count("\n") == expected.count("\n") == 49


@pytest.mark.parametrize("gains", ["exp", "bin2"])
def test_every_cwl_measure_matches_the_mini_reference_outputs(mini, gains):
    """EU, ETU, EC, ETC, ED and their residuals of RR, INSQ, NERR eq8/eq10, BPM, TBG, INST (cwl_eval's
    convention for the mass past the depth) and the others, per run and topic, to cwl_eval's 4 decimals."""
    qrels, runs, ref_dir = mini
    ref = pd.read_csv(ref_dir / f"cwl_eval.{gains}.tsv", sep="\t", dtype={"Topic": str})
    names = set()
    for run in runs:
        got = cwl_frame(ref_dir / f"gains.{gains}.txt", run, ref_dir / "cwl_metrics.txt")
        expected = ref[ref.Run == run.name].reset_index(drop=True)
        assert len(expected) == len(got) > 0
        assert (got["Topic"] == expected["Topic"]).all() and (got["Metric"] == expected["Metric"]).all()
        for column in COLUMNS:
            np.testing.assert_allclose(got[column], expected[column], rtol=0, atol=5e-5 + 1e-9,
                                       err_msg=f"{run.name} {column}")
        names |= set(got["Metric"])
    assert {"RR", "INSQ-T=1.0", "NERR-EQ8@k=10", "NERR-EQ10@phi=0.9", "BPM-Static-T=1.0-K=10", "TBG-H@224 ",
            "INST-T=1.0"} <= names


# ---------------------------------------------------------------------------
# against cwl-eval on generated data
# ---------------------------------------------------------------------------

def _cwl_eval_command():
    exe = shutil.which("cwl-eval")
    if exe:
        return [exe]
    try:
        import cwl.cwl_eval  # noqa: F401
    except ImportError:
        return None
    return [sys.executable, "-m", "cwl.cwl_eval"]


#: every cwl_eval metric class, with parameters that make each of its branches count on short rankings
GENERATED_METRICS = [
    "PrecisionCWLMetric(3)", "RBPCWLMetric(0.7)", "NDCGCWLMetric(6)", "RRCWLMetric()", "APCWLMetric()",
    "INSTCWLMetric(1.5)", "INSQCWLMetric(0.5)", "NERReq8CWLMetric(4)", "NERReq9CWLMetric(6)",
    "NERReq10CWLMetric(0.8)", "NERReq11CWLMetric(2.0)", "BPMCWLMetric(1.5,12)", "BPMCWLMetric(1000,9.5)",
    "BPMDCWLMetric(1.2,10,0.7,1.0,0.4)", "BPMDCWLMetric(2,6)", "TBGCWLMetric(5)", "UMeasureCWLMetric(15)",
    "IFTGoalCWLMetric(1.5, 0.9, 3)", "IFTRateCWLMetric(0.3, 0.8, 5)", "IFTGoalRateCWLMetric(2.0,0.9,4, 0.2,0.9,6)",
    "SETCWLMetric(0.6,8)", "NPVCWLMetric(0.25)", "UMeasureCWLMetric(1000)", "UMeasureCWLMetric(20)",
]


def _generated(tmp_path, seed):
    rng = np.random.default_rng(seed)
    qrels, results = [], []
    for t in range(6):
        topic = f"T{t}"
        pool = [f"D{t}_{j}" for j in range(30)]
        judged = rng.choice(30, size=int(rng.integers(0, 25)), replace=False)
        for j in judged:
            qrels.append(f"{topic} 0 {pool[j]} {rng.choice([0.0, 0.0, 0.25, 0.5, 1.0])}")
        if t == 5:  # a topic the gain file does not judge
            qrels = [line for line in qrels if not line.startswith("T5 ")]
        for rank, j in enumerate(rng.choice(30, size=int(rng.integers(1, 25)), replace=False), 1):
            results.append(f"{topic} E{rng.integers(1, 5)} {pool[j]} {rank} {100 - rank} R")
    (tmp_path / "gains").write_text("\n".join(qrels) + "\n")
    (tmp_path / "results").write_text("\n".join(results) + "\n")
    (tmp_path / "costs").write_text("E1 1.0\nE2 2.5\nE3 0.5\n")  # E4: no cost (max_cost / min_cost)
    (tmp_path / "metrics").write_text("\n".join(GENERATED_METRICS) + "\n")
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("costs, depth", [(False, 1000), (True, 1000), (True, 10)])
def test_every_cwl_measure_matches_cwl_eval_on_generated_data(tmp_path, seed, costs, depth):
    """Every cwl_eval class; rankings of 1-24 documents, some unjudged, one topic without gains; with costs
    per element type (one type without a cost) and max_cost / min_cost; at cwl_eval's depth 1000 and at
    depth 10 (shorter than some rankings: U's W(H) = 0 shows)."""
    command = _cwl_eval_command()
    if command is None:
        pytest.skip("cwl-eval is not installed (pip install cwl-eval==1.0.12)")
    d = _generated(tmp_path, seed)
    extra = ["-c", str(d / "costs"), "--max_cost", "3", "--min_cost", "0.5"] if costs else []
    done = subprocess.run(command + [str(d / "gains"), str(d / "results"), "-m", str(d / "metrics"), "-n", "-r",
                                     "--max_depth", str(depth)] + extra,
                          capture_output=True, text=True, cwd=tmp_path, check=True)
    expected = pd.read_csv(io.StringIO(done.stdout), sep="\t", dtype={"Topic": str})
    got = cwl_frame(d / "gains", d / "results", d / "metrics", d / "costs" if costs else None, max_depth=depth,
                    max_cost=3.0 if costs else 1.0, min_cost=0.5 if costs else 1.0)
    assert len(got) == len(expected) == 6 * len(GENERATED_METRICS)
    assert (got["Topic"] == expected["Topic"]).all() and (got["Metric"] == expected["Metric"]).all()
    for column in COLUMNS:
        np.testing.assert_allclose(got[column], expected[column], rtol=0, atol=5e-5 + 1e-9, err_msg=column)


def test_cwl_measures_cover_cwl_evals_classes():
    """Every metric class cwl_eval 1.0.12 defines is here, but TrAP (not a C/W/L model)."""
    pytest.importorskip("cwl.ruler.cwl_ruler")
    import inspect

    import cwl.ruler.cwl_ruler as ruler
    from cwl.ruler.measures import cwl_npv, cwl_set

    classes = {name for module in (ruler, cwl_npv, cwl_set) for name, obj in inspect.getmembers(module, inspect.isclass)
               if name.endswith("CWLMetric") and name != "CWLMetric"}
    assert classes - set(CWL_MEASURES) == {"TrAPCWLMetric"}


@pytest.mark.parametrize("text, problem", [
    ("RBPCWLMetric(0.8", "expected a cwl_eval metric ClassName(arg, ...)"),
    ("FooCWLMetric()", "unknown cwl_eval metric 'FooCWLMetric'"),
    ("TrAPCWLMetric()", "TrAPCWLMetric is not a C/W/L model"),
    ("RBPCWLMetric(x)", "argument 'x' is not a number"),
    ("RBPCWLMetric(1.5)", "'p' of RBP must be in the open interval (0, 1)"),
    ("IFTGoalCWLMetric(1.0)", "IFTGoalCWLMetric needs b1, R1"),
    ("RRCWLMetric(1)", "RRCWLMetric takes at most 0 arguments"),
])
def test_cwl_metric_errors_say_what_and_where(text, problem):
    with pytest.raises(cwla.InputError) as err:
        parse_cwl_metric(text, where="m.txt, line 3")
    assert problem in str(err.value) and "m.txt, line 3" in str(err.value)


def test_cwl_names_follow_cwl_evals_int_and_float_arguments():
    assert parse_cwl_metric("INSTCWLMetric(1)").name == "INST-T=1"
    assert parse_cwl_metric("INSTCWLMetric(1.0)").name == "INST-T=1.0"
    assert parse_cwl_metric("BPMDCWLMetric(1,1000)").name == "BPM-Dynamic-T=1-K=1000-hb=1.0-hc=1.0"
    assert parse_cwl_metric("TBGCWLMetric()").name == "TBG-H@224 "
    # cwl_eval 1.0.12 never updates BPM's K: its dynamic BPM is cwla's BPM with hc = 0
    assert parse_cwl_metric("BPMDCWLMetric(1,1000)").eu.browsing == cwla.BPM(1, 1000, hb=1.0, hc=0.0)


def test_cwl_command_errors_exit_2(tmp_path, capsys):
    (tmp_path / "g").write_text("q 0 d 1.5\n")
    (tmp_path / "r").write_text("q Q0 d 1 1 R\n")
    assert main(["cwl", str(tmp_path / "g"), str(tmp_path / "r")]) == 2
    assert "gains must lie in [0, 1]; found 1.5" in capsys.readouterr().err
    (tmp_path / "g").write_text("q 0 d 1\n")
    (tmp_path / "c").write_text("Q0 0\n")
    assert main(["cwl", str(tmp_path / "g"), str(tmp_path / "r"), "-c", str(tmp_path / "c")]) == 2
    assert "costs must be finite and > 0" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# costs, EC, ETC, ED
# ---------------------------------------------------------------------------

def _one_topic(costs=None):
    qrels = pd.DataFrame({"topic": "q", "docno": ["a", "b", "c"], "grade": [1.0, 0.0, 1.0]})
    run = pd.DataFrame({"topic": "q", "docno": ["a", "b", "c", "u"], "score": [4.0, 3.0, 2.0, 1.0]})
    return qrels, run


def test_expected_cost_total_cost_and_depth_follow_their_formulas():
    """EC = sum W(i) c_i, ETC = sum L(i) cc(i), ED = sum V(i), by hand for RBP(0.5) at depth 4 (stop)."""
    qrels, run = _one_topic()
    costs = pd.DataFrame({"topic": "q", "docno": ["a", "b", "c"], "grade": [2.0, 1.0, 4.0]})  # u: unknown
    ev = cwla.evaluate(qrels, run, ["RBP(p=0.5)+ETG[depth=4, stop=true]"], gain="binary:1", costs=costs,
                       max_cost=3.0, min_cost=0.5)
    V = np.array([1, 0.5, 0.25, 0.125])
    L = V * np.array([0.5, 0.5, 0.5, 1.0])
    for c, row in ((np.array([2.0, 1.0, 4.0, 3.0]), ev.expected), (np.array([2.0, 1.0, 4.0, 0.5]), None)):
        ec, etc, ed = (V * c).sum() / V.sum(), (L * np.cumsum(c)).sum(), V.sum()
        if row is not None:
            assert ev.expected[:, 0, 0, 0] == pytest.approx([ec, etc, ed], rel=1e-12)
        else:
            assert (ev.expected + ev.expected_residuals)[:, 0, 0, 0] == pytest.approx([ec, etc, ed], rel=1e-12)
    frame = ev.to_frame()
    assert list(frame.columns[-6:]) == ["EC", "ETC", "ED", "ResEC", "ResETC", "ResED"]


def test_expectations_are_off_unless_asked_and_need_positive_costs():
    qrels, run = _one_topic()
    ev = cwla.evaluate(qrels, run, ["RBP(p=0.5)+ERG"])
    assert ev.expected is None and list(ev.to_frame().columns) == ["run", "topic", "metric", "value", "residual"]
    ev = cwla.evaluate(qrels, run, ["RBP(p=0.5)+ERG"], expected=True)
    assert ev.expected[2, 0, 0, 0] == pytest.approx(sum(0.5 ** i for i in range(1000)))
    bad = pd.DataFrame({"topic": "q", "docno": ["a"], "grade": [0.0]})
    with pytest.raises(cwla.InputError, match="costs must be finite and > 0"):
        cwla.evaluate(qrels, run, ["RBP(p=0.5)+ERG"], costs=bad)
    with pytest.raises(ValueError, match="'max_cost' parameter of evaluate must be a finite number > 0"):
        cwla.evaluate(qrels, run, ["RBP(p=0.5)+ERG"], max_cost=-1)


def test_cost_residuals_of_padded_positions_do_not_depend_on_judgements():
    """Precision(k=5) under depth=all pads the ranking to k: those positions cost max_cost in the score and
    min_cost in the upper bound, judged documents or not."""
    qrels, run = _one_topic()
    costs = pd.DataFrame({"topic": "q", "docno": ["a", "b", "c", "u"], "grade": [1.0] * 4})
    judged = run[run.docno != "u"]
    for r in (judged, run):
        ev = cwla.evaluate(qrels, r, ["Precision(k=6)+ERG[depth=all]"], costs=costs, max_cost=2.0, min_cost=0.5)
        padded = 6 - len(r)
        assert ev.expected_residuals[0, 0, 0, 0] == pytest.approx(-1.5 * padded / 6)  # EC: W = 1/6 each


def test_ideal_normalisation_of_cost_models_uses_the_uniform_cost_and_refuses_per_document_costs():
    qrels = pd.DataFrame({"topic": "q", "docno": ["a", "b"], "grade": [1.0, 1.0]})
    ideal_run = pd.DataFrame({"topic": "q", "docno": ["a", "b"], "score": [2.0, 1.0]})
    ev = cwla.evaluate(qrels, ideal_run, ["TBG(H=1)+ETG[normalize=ideal]"], max_cost=3.0, min_cost=3.0)
    assert ev.values[0, 0, 0] == pytest.approx(1.0)
    costs = pd.DataFrame({"topic": "q", "docno": ["a", "b"], "grade": [0.5, 0.5]})
    with pytest.raises(ValueError, match="ideal normalisation of a cost-based model"):
        cwla.evaluate(qrels, ideal_run, ["TBG(H=1)+ETG[normalize=ideal]"], costs=costs)


def test_tbg_with_unit_costs_is_rbp():
    qrels, run = _one_topic()
    h = 3.0
    ev = cwla.evaluate(qrels, run, [f"TBG(H={h})+ERG", f"RBP(p={2 ** (-1 / h)!r})+ERG"])
    assert ev.values[0] == pytest.approx(ev.values[1], rel=1e-12)


def test_costs_drive_the_cost_based_models():
    qrels, run = _one_topic()
    cheap = pd.DataFrame({"topic": "q", "docno": ["a", "b", "c", "u"], "grade": [0.5] * 4})
    dear = pd.DataFrame({"topic": "q", "docno": ["a", "b", "c", "u"], "grade": [3.0] * 4})
    metric = "BPM(T=10, K=3)+ETG"  # reads on while the total cost stays below K
    lo = cwla.evaluate(qrels, run, [metric], gain="binary:1", costs=dear).values[0, 0, 0]
    hi = cwla.evaluate(qrels, run, [metric], gain="binary:1", costs=cheap).values[0, 0, 0]
    assert lo == 1.0 and hi == 2.0  # one document (cost 3 >= K), or all four at 0.5 (a and c relevant)
