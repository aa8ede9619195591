"""Synthetic TREC files for the tests that run the commands: qrels, runs and a candidate qrels."""

from __future__ import annotations

from pathlib import Path

from cwla import synthetic


def trec_files(root: Path, *, n_topics: int, n_runs: int, depth: int, seed: int) -> tuple[Path, list[Path], Path]:
    """(qrels path, run paths, candidate path) written under ``root``: a synthetic collection
    (:func:`cwla.synthetic.collection`) and, as the candidate qrels, every other judgement of its qrels."""
    qrels, runs = synthetic.collection(n_topics=n_topics, n_runs=n_runs, depth=depth, seed=seed)
    qrels_path, run_paths = synthetic.write_trec(qrels, runs, root / "data")
    candidate = root / "cand.txt"
    half = qrels[qrels.index % 2 == 0]
    candidate.write_text("".join(f"{t} 0 {d} {int(g)}\n" for t, d, g in half.itertuples(index=False)))
    return qrels_path, run_paths, candidate
