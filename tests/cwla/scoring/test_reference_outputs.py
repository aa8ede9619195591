"""cwla against trec_eval, cwl_eval and gdeval on real TREC Deep Learning data.

Skips cleanly where ../shared/data is absent.
"""

import shutil
import warnings

import numpy as np
import pandas as pd
import pytest

import cwla
from conftest import shared_path

CWL_METRICS = {  # cwl_eval name -> our browsing model
    "P@1": "Precision(k=1)", "P@5": "Precision(k=5)", "P@10": "Precision(k=10)", "P@20": "Precision(k=20)",
    "RBP@0.5": "RBP(p=0.5)", "RBP@0.8": "RBP(p=0.8)", "RBP@0.95": "RBP(p=0.95)",
    "NDCG-k@10": "DCG(k=10)", "NDCG-k@20": "DCG(k=20)", "AP": "AP(R=retrieved)",
    "INST-T=1.0": "INST(T=1)", "INST-T=2.0": "INST(T=2)", "INST-T=3.0": "INST(T=3)",
}
# the gain files cwl_eval was run with (reference-outputs/gains.*.txt): (2^g - 1)/7 to 6 decimals, and rel >= 2
CWL_GAINS = {"exp": "table(0:0, 1:0.142857, 2:0.428571, 3:1)", "bin2": "binary:2"}


def _tidy(ev):
    return ev.to_frame(means=False)


def test_trec_eval_per_topic_on_mini(mini):
    qrels, runs, ref_dir = mini
    ref = pd.read_csv(ref_dir / "trec_eval.pertopic.tsv", sep="\t", dtype={"topic": str})
    metrics = {
        "AP(R=qrels)+ERG[gain=binary(threshold=2)]": "map",
        "Precision(k=10)+ERG[gain=binary(threshold=2)]": "P_10",
        "DCG(k=10)+ETG[cutoff=10, normalize=ideal]": "ndcg_cut_10",
        "AP(rel=2)": "map",
        "P(rel=2)@10": "P_10",
        "nDCG@10": "ndcg_cut_10",
    }
    ev = cwla.evaluate(qrels, runs, list(metrics))
    frame = _tidy(ev)
    for label, column in metrics.items():
        got = frame[frame.metric == label].merge(ref, on=["run", "topic"])
        assert len(got) == 8 * 43
        np.testing.assert_allclose(got["value"], got[column], atol=1e-6, rtol=0, err_msg=label)


@pytest.mark.parametrize("gains", sorted(CWL_GAINS))
def test_cwl_eval_eu_etu_and_residuals_on_mini(mini, gains):
    qrels, runs, ref_dir = mini
    ref = pd.read_csv(ref_dir / f"cwl_eval.{gains}.tsv", sep="\t", dtype={"Topic": str})
    ref["Metric"] = ref["Metric"].str.strip()
    # cwl_eval's convention for the mass past its depth: EU is ERG with stop (W normalised over 1..H), ETU is
    # ETG without (cwla.bridges.cwl); with it INST matches to the 4 printed decimals too
    labels = [f"{model}+ERG[stop=true]" for model in CWL_METRICS.values()] + \
        [f"{model}+ETG" for model in CWL_METRICS.values()]
    # cwl_eval reads results in file order; the mini runs are in trec_eval order already
    ev = cwla.evaluate(qrels, runs, labels, gain=CWL_GAINS[gains], order="file")
    frame = _tidy(ev)
    for cwl_name, model in CWL_METRICS.items():
        expected = ref[ref.Metric == cwl_name]
        for agg, value, residual in (("ERG[stop=true]", "EU", "ResEU"), ("ETG", "ETU", "ResETU")):
            got = frame[frame.metric == f"{model}+{agg}"].merge(
                expected, left_on=["run", "topic"], right_on=["Run", "Topic"])
            assert len(got) == 8 * 43
            tol = 5e-5 + 1e-9  # cwl_eval prints 4 decimals
            np.testing.assert_allclose(got["value"], got[value], atol=tol, rtol=0, err_msg=f"{cwl_name} {agg}")
            np.testing.assert_allclose(got["residual"], got[residual], atol=tol, rtol=0,
                                       err_msg=f"{cwl_name} {agg} residual")


@pytest.mark.slow
@pytest.mark.parametrize("year", ["2019", "2020"])
def test_trec_eval_summary_on_full_runs(year):
    root = shared_path(f"trec-dl-{year}-passage")
    runs = sorted((root / "runs").glob("*.gz"))
    ev = cwla.evaluate(root / "qrels" / f"qrels.dl{year[2:]}-passage.txt", runs,
                       ["AP(rel=2)", "P(rel=2)@10", "nDCG@10"])
    ref = pd.read_csv(root / "reference-outputs" / "trec_eval.summary.tsv", sep="\t").set_index("run")
    means = ev.means()
    assert sorted(means.index) == sorted(ref.index)
    for label, column in zip(ev.labels, ["map", "P_10", "ndcg_cut_10"]):
        ours = means[label].round(4)
        theirs = ref.loc[means.index, column]
        mismatch = ours[(ours - theirs).abs() > 1e-9]
        assert mismatch.empty, f"{column}: {mismatch.to_dict()} vs {theirs[mismatch.index].to_dict()}"
    # the trec_eval -c topic policy: every official run covers the 43/54 judged topics
    assert all(len(m) == 0 for m in ev.missing_topics.values())


def test_err_equals_gdeval_on_mini(mini):
    if shutil.which("perl") is None:
        pytest.skip("gdeval needs perl")
    ir_measures = pytest.importorskip("ir_measures")
    qrels, runs, _ = mini
    measure = ir_measures.parse_measure("ERR@20")
    q = list(ir_measures.read_trec_qrels(str(qrels)))
    ev = cwla.evaluate(qrels, runs, ["ERR@20", "ERR+ERR[gain=exponential(gmax=4), cutoff=20]"])
    for r, run in enumerate(runs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                results = list(ir_measures.gdeval.iter_calc([measure], q, ir_measures.read_trec_run(str(run))))
            except Exception as err:  # provider unavailable on this machine
                pytest.skip(f"ir_measures' gdeval provider failed: {err}")
        theirs = {m.query_id: m.value for m in results}
        for t, topic in enumerate(ev.topics):
            if topic in theirs:
                # gdeval prints 5 decimals
                assert ev.values[0, r, t] == pytest.approx(theirs[topic], abs=6e-6), (run.name, topic)
                assert ev.values[1, r, t] == ev.values[0, r, t]
