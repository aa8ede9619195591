"""Each optional extra works alone: run in a fresh venv holding only ``pip install ".[EXTRA]"``.

    python .ci/extras.py EXTRA

checks that the extra's feature works on the built-in synthetic collection (no ../shared, no other extra):

* ``testing`` -- cwla.testing's strategies and invariant checks, under Hypothesis;
* ``plots`` -- discpower's figures (an ASL-curve plot and a similarity heatmap), written as PNG;
* ``ir-measures`` -- cwla's metrics as ir_measures measures, equal to cwla.evaluate per topic;
* ``pyterrier`` -- cwla's metrics inside pt.Experiment (DataFrame runs: no Java), equal to cwla.evaluate.

The ``docs`` extra is checked by .ci/run's own step (``mkdocs build --strict`` in a venv of its own).
Exits 1 with the failed check's message.
"""

from __future__ import annotations

import importlib.metadata
import sys
import tempfile
from pathlib import Path


def _collection():
    import cwla

    qrels, runs = cwla.synthetic.collection(n_topics=8, n_runs=6, depth=20, seed=5)
    return qrels, {name: frame[["topic", "docno", "score"]] for name, frame in runs.items()}


def check_testing() -> None:
    from hypothesis import given, settings

    import cwla
    from cwla.testing import check_invariants, check_round_trip, collections, metrics

    @settings(max_examples=15, deadline=None, database=None)
    @given(metrics())
    def round_trips(metric):
        check_round_trip(metric)

    @settings(max_examples=5, deadline=None, database=None)
    @given(collections())
    def invariants(data):
        qrels, runs = data
        check_invariants(cwla.parse_metric("RBP_ERG"), qrels, runs)

    round_trips()
    invariants()


def check_plots() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import cwla
    import discpower

    qrels, runs = _collection()
    ev = cwla.evaluate(qrels, runs, ["nDCG@10", "map"])
    tests = {name: ev.scores(name).T for name in ("nDCG@10", "map")}  # topics x runs
    with tempfile.TemporaryDirectory() as folder:
        ax = discpower.plot_asl_curves(tests)
        ax.figure.savefig(Path(folder) / "asl.png")
        similarity = discpower.ranking_similarity(ev)
        ax = similarity.plot()
        ax.figure.savefig(Path(folder) / "similarity.png")
        for name in ("asl.png", "similarity.png"):
            size = (Path(folder) / name).stat().st_size
            if size < 1000:
                raise AssertionError(f"{name} is {size} bytes: no figure was drawn")


def _equal(got: dict, expected: dict, what: str) -> None:
    if set(got) != set(expected):
        raise AssertionError(f"{what}: topics {sorted(got)} != {sorted(expected)}")
    worst = max(abs(got[t] - expected[t]) for t in expected)
    if worst > 1e-12:
        raise AssertionError(f"{what}: differs from cwla.evaluate by {worst:g}")


def check_ir_measures() -> None:
    import ir_measures

    import cwla
    import cwla.ir_measures as bridge

    qrels, runs = _collection()
    texts = ["RBP_ERG", "INST_PE", "nDCG@10"]
    ev = cwla.evaluate(qrels, runs, texts)
    measures = bridge.measures(texts)
    irm_qrels = [ir_measures.Qrel(t, d, int(g)) for t, d, g in zip(qrels.topic, qrels.docno, qrels.grade)]
    for r, (name, run) in enumerate(runs.items()):
        scored = [ir_measures.ScoredDoc(t, d, float(s)) for t, d, s in zip(run.topic, run.docno, run.score)]
        got = {}
        for m in ir_measures.iter_calc(measures, irm_qrels, scored):
            got.setdefault(str(m.measure), {})[m.query_id] = m.value
        for i, measure in enumerate(measures):
            expected = dict(zip(ev.topics, ev.values[i, r]))
            _equal(got[str(measure)], {t: expected[t] for t in got[str(measure)]}, f"{name} {measure}")


def check_pyterrier() -> None:
    import pandas as pd
    import pyterrier as pt

    import cwla
    import cwla.ir_measures as bridge

    qrels, runs = _collection()
    texts = ["RBP_PE", "map"]
    ev = cwla.evaluate(qrels, runs, texts)
    pt_qrels = qrels.rename(columns={"topic": "qid", "grade": "label"}).astype({"label": int})
    topics = pd.DataFrame({"qid": sorted(qrels.topic.unique())}).assign(query="q")
    pt_runs = [run.rename(columns={"topic": "qid"}) for run in runs.values()]
    measures = bridge.measures(texts)
    table = pt.Experiment(pt_runs, topics, pt_qrels, eval_metrics=measures, names=list(runs), perquery=True)
    for r, name in enumerate(runs):
        for i, measure in enumerate(measures):
            rows = table[(table.name == name) & (table.measure == str(measure))]
            got = dict(zip(rows.qid, rows.value))
            expected = dict(zip(ev.topics, ev.values[i, r]))
            _equal(got, {t: expected[t] for t in got}, f"pt.Experiment {name} {measure}")


CHECKS = {"testing": check_testing, "plots": check_plots, "ir-measures": check_ir_measures,
          "pyterrier": check_pyterrier}


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in CHECKS:
        print(f"usage: python .ci/extras.py {{{','.join(CHECKS)}}}", file=sys.stderr)
        return 2
    extra = argv[0]
    try:
        CHECKS[extra]()
    except Exception as error:  # noqa: BLE001 -- report any failure as the check's result
        print(f"extra {extra!r}: FAILED: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    print(f"extra {extra!r} works alone (cwla {importlib.metadata.version('cwla')})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
