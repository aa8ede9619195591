"""A deterministic synthetic TREC collection: graded qrels and runs, built in memory.

The package ships no NIST data; this module makes a small collection with the
awkward features of real TREC data, so that examples, tests and ``cwla demo``
run anywhere without files or network access.

>>> from cwla import synthetic
>>> qrels, runs = synthetic.collection(n_topics=5, n_runs=3, depth=20, seed=7)
>>> list(qrels.columns), sorted(runs)
(['topic', 'docno', 'grade'], ['run01', 'run02', 'run03'])
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from .files import atomic_write_text
from .._validate import Interval, check
from .._validate import fmt as _fmt
from ..errors import CwlaError, InputError

__all__ = ["collection", "subtopics", "write_trec"]

#: Documents per topic that no run retrieves in its first ``depth`` (the rest of the corpus).
_EXTRA_CANDIDATES = 50
#: Ranks of every pooled run that are judged (TREC's pool depth), at most ``depth``.
POOL_DEPTH = 20
#: Share of the other candidate documents judged as well (assessors' extra judgements).
_EXTRA_JUDGED = 0.05
#: Weight of the per-document signal that all runs share (runs are correlated).
_SHARED = 0.6


def collection(n_topics: int = 30, n_runs: int = 12, depth: int = 100, seed: int = 0,
               max_grade: int = 3) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Make a synthetic TREC-style collection: graded qrels and runs of varied quality.

    Everything is drawn from ``numpy.random.default_rng(seed)``: the same
    arguments always give identical frames.

    Parameters
    ----------
    n_topics : int, default 30
        Number of judged topics (at least 2), named ``"T001"``, ``"T002"``, ...
    n_runs : int, default 12
        Number of runs (at least 1), named ``"run01"``, ``"run02"``, ...
    depth : int, default 100
        Most documents a run retrieves per topic (at least 1).
    seed : int, default 0
        Seed of the random generator.
    max_grade : int, default 3
        Largest relevance grade (at least 1); grades are ``0 .. max_grade``.

    Returns
    -------
    qrels : pandas.DataFrame
        Columns ``topic`` (str), ``docno`` (str), ``grade`` (int64), sorted by
        topic and docno.
    runs : dict of str to pandas.DataFrame
        Run name -> columns ``topic`` (str), ``docno`` (str), ``score``
        (float64), ``rank`` (int64, 1..n per topic), sorted by topic and rank.
        Each frame's ``attrs["quality"]`` holds the run's latent quality.

    Notes
    -----
    The collection is built as follows; tests and examples may rely on every
    point.

    * **Documents.** Each topic has ``depth + 50`` candidate documents with
      docnos ``"D00000"`` .. ``"D99999"`` (strings; wider when the corpus
      needs it), drawn independently per topic. Each candidate has a latent
      grade: most are 0; a topic-specific share (3 % to 25 %) is relevant,
      with grades 1 .. ``max_grade`` in proportions 2^-g (few at
      ``max_grade``). Every topic but one has at least one relevant document,
      and the first of them one of grade ``max_grade``.
    * **A topic without relevant documents.** One topic (chosen at random)
      has all latent grades 0, so all its judged grades are 0: its ideal
      ranking is empty and normalised metrics score 0 on it.
    * **Runs of varied quality.** Run ``i`` (1-based) has latent quality
      ``q = 0.9 - 0.8 (i - 1) / (n_runs - 1)`` (0.9 for a single run):
      ``run01`` is the best run,
      quality decreases with the run number. A run scores each candidate
      ``3 q g / max_grade + 0.6 s + 0.8 e`` (``s`` a per-document signal
      shared by all runs, ``e`` the run's own noise, both standard normal),
      then maps it affinely onto its own scale, so better runs put
      higher-grade documents higher.
    * **Exact score ties.** Scores are rounded to 1 decimal (runs with a wide
      score scale) or 2 decimals (narrow scale), so equal scores occur. The
      ``rank`` column keeps the system's own order (by the unrounded score);
      trec_eval breaks ties by docno instead, so ``order="file"`` and
      ``order="trec_eval"`` may differ.
    * **Varied depth.** Most runs retrieve ``depth`` documents per topic;
      each run with probability 1/4 (and at least one run other than
      ``run01`` when ``n_runs >= 2``) stops at ``max(1, depth // 5)``; about
      5 % of the (run, topic) pairs, and at least one, retrieve only 1 to 9
      documents.
    * **Judged pool and unjudged documents.** The qrels judge the first 20
      ranks (at most ``depth``) of every run but one (when ``n_runs >= 3``, run
      number ``n_runs // 2 + 1``, e.g. ``run07`` of 12, is a "late" run that
      did not contribute to the pool), plus 5 % of the other candidates and
      each topic's highest-grade candidate. Runs therefore retrieve unjudged
      documents (docnos absent from the qrels), deeper down for pooled runs
      and also near the top for the late run.
    * **Missing and extra topics.** The last run misses one topic (trec_eval
      ``-c`` scores it 0), every run misses each topic with probability 0.5 %;
      the first run also retrieves documents for an extra topic ``"T<n+1>"``
      that has no qrels (ignored by the evaluation).

    Examples
    --------
    >>> import cwla
    >>> qrels, runs = collection(seed=1)
    >>> ev = cwla.evaluate(qrels, runs, "nDCG@10")
    >>> ev.values.shape
    (1, 12, 30)
    """
    n_topics, n_runs, depth, max_grade = _check(n_topics, n_runs, depth, max_grade, seed)
    rng = np.random.default_rng(seed)
    topics = _topic_names(n_topics + 1)
    n_cand = depth + _EXTRA_CANDIDATES
    width = max(5, len(str(max(10**5, n_cand) - 1)))
    universe = 10**width

    empty_topic = int(rng.integers(n_topics))
    docs, grades = [], []
    for t in range(n_topics + 1):
        docs.append(rng.choice(universe, size=n_cand, replace=False))
        grades.append(_latent_grades(rng, n_cand, max_grade, t == empty_topic or t == n_topics))
    first_rel = 1 if empty_topic == 0 else 0
    grades[first_rel][int(np.argmax(grades[first_rel]))] = max_grade

    quality = _qualities(n_runs)
    lengths = _run_lengths(rng, n_runs, n_topics, depth)
    shared = [rng.standard_normal(n_cand) for _ in range(n_topics + 1)]
    ranked = {}  # (run, topic) -> candidate indices in rank order and their scores
    for r in range(n_runs):
        scale, offset = float(rng.uniform(1.0, 10.0)), float(rng.uniform(-5.0, 20.0))
        decimals = 1 if scale >= 8.0 else 2
        for t in range(n_topics + 1):
            n = int(lengths[r, t])
            if n == 0:
                continue
            raw = (3.0 * quality[r] * grades[t] / max_grade + _SHARED * shared[t]
                   + 0.8 * rng.standard_normal(n_cand))
            order = np.argsort(-raw, kind="stable")[:n]
            ranked[r, t] = (order, np.round(scale * raw[order] + offset, decimals))

    qrels = _qrels(rng, topics[:n_topics], docs, grades, ranked, n_runs, depth, width)
    runs = _runs(topics, docs, ranked, quality, n_runs, width)
    return qrels, runs


def subtopics(qrels: pd.DataFrame, max_subtopics: int = 4, seed: int = 0) -> pd.DataFrame:
    """Subtopic qrels (ndeval's ``topic subtopic docno grade``) drawn from ordinary qrels: a small sample for the
    intent-aware metrics (``alpha_nDCG@20``, ``ERR_IA@20``, ``P_IA@10``, ...; :mod:`cwla.metrics.intents`).

    Each topic gets S subtopics, S drawn from 2 .. ``max_subtopics`` and named ``"1"`` .. ``"S"``; each relevant
    document (grade >= 1) is relevant, at its grade, to one subtopic drawn at random, or with probability 1/3 to
    two; each other document is judged for subtopic ``"1"`` at its grade (0, or a negative one). Everything is drawn from
    ``numpy.random.default_rng(seed)``: the same arguments always give the same frame.

    Parameters
    ----------
    qrels : DataFrame
        Columns ``topic``, ``docno``, ``grade`` (as :func:`collection` returns them).
    max_subtopics : int, default 4
        The most subtopics a topic has (at least 2).
    seed : int, default 0
        Seed of the random generator.

    Returns
    -------
    pandas.DataFrame
        Columns ``topic``, ``subtopic``, ``docno`` (str) and ``grade`` (int64), sorted; what
        :func:`cwla.read_subtopics` and the intent-aware metrics read.

    Examples
    --------
    >>> import cwla
    >>> qrels, runs = cwla.synthetic.collection(n_topics=6, n_runs=4, seed=1)
    >>> intents = cwla.synthetic.subtopics(qrels, seed=1)
    >>> ev = cwla.evaluate(intents, runs, ["alpha_nDCG@20", "ERR_IA@20"])
    >>> ev.values.shape
    (2, 4, 6)
    """
    if isinstance(max_subtopics, bool) or not isinstance(max_subtopics, (int, np.integer)) or max_subtopics < 2:
        raise CwlaError(f"max_subtopics must be an integer >= 2, got {max_subtopics!r}")
    missing = {"topic", "docno", "grade"} - set(getattr(qrels, "columns", ()))
    if missing:
        raise CwlaError(f"subtopics() takes qrels with columns topic, docno, grade (as cwla.synthetic.collection "
                         f"returns them); missing: {', '.join(sorted(missing))}")
    rng = np.random.default_rng(seed)
    rows = []
    for topic, judged in qrels.groupby("topic", sort=True):
        count = int(rng.integers(2, max_subtopics + 1))
        for docno, grade in zip(judged["docno"], judged["grade"]):
            if grade < 1:
                rows.append((topic, "1", docno, int(grade)))
                continue
            for s in rng.choice(count, size=2 if rng.random() < 1 / 3 else 1, replace=False):
                rows.append((topic, str(int(s) + 1), docno, int(grade)))
    frame = pd.DataFrame(rows, columns=["topic", "subtopic", "docno", "grade"]).astype({"grade": np.int64})
    return frame.sort_values(["topic", "subtopic", "docno"], ignore_index=True)


def _check(n_topics, n_runs, depth, max_grade, seed):
    """Validate the parameters of :func:`collection`; return them as ints."""
    values = {"n_topics": (n_topics, 2), "n_runs": (n_runs, 1), "depth": (depth, 1), "max_grade": (max_grade, 1)}
    out = []
    for name, (value, low) in values.items():
        check(value, name, Interval("int"), func="collection", rule="an int")
        out.append(check(value, name, Interval("int", low, None), func="collection", rule=f">= {low}"))
    check(seed, "seed", Interval("int", 0, None), func="collection", rule="an int >= 0")
    return out


def _topic_names(n: int) -> list[str]:
    """``T001`` .. (wider when n needs it)."""
    width = max(3, len(str(n)))
    return [f"T{i:0{width}d}" for i in range(1, n + 1)]


def _latent_grades(rng, n_cand: int, max_grade: int, empty: bool) -> np.ndarray:
    """Latent grades of one topic's candidates: mostly 0, grade g in proportion 2^-g."""
    rate = float(rng.uniform(0.03, 0.25))
    weights = 0.5 ** np.arange(1, max_grade + 1)
    relevant = rng.random(n_cand) < rate
    grades = np.where(relevant, rng.choice(np.arange(1, max_grade + 1), size=n_cand, p=weights / weights.sum()), 0)
    if empty:
        return np.zeros(n_cand, dtype=np.int64)
    if not grades.any():
        grades[int(rng.integers(n_cand))] = 1
    return grades.astype(np.int64)


def _qualities(n_runs: int) -> np.ndarray:
    """Latent run quality, from 0.9 (run01) down to 0.1 (last run)."""
    if n_runs == 1:
        return np.array([0.9])
    return 0.9 - 0.8 * np.arange(n_runs) / (n_runs - 1)


def _run_lengths(rng, n_runs: int, n_topics: int, depth: int) -> np.ndarray:
    """(n_runs, n_topics + 1) documents retrieved; 0 = topic missing. The last
    column is the extra, unjudged topic (only the first run retrieves for it)."""
    lengths = np.full((n_runs, n_topics + 1), depth, dtype=np.int64)
    shallow = rng.random(n_runs) < 0.25
    if n_runs >= 2 and not shallow.any():
        shallow[int(rng.integers(1, n_runs))] = True
    lengths[shallow] = max(1, depth // 5)
    few = rng.random((n_runs, n_topics + 1)) < 0.05
    few[int(rng.integers(n_runs)), int(rng.integers(n_topics))] = True
    lengths = np.where(few, np.minimum(lengths, rng.integers(1, 10, size=lengths.shape)), lengths)
    missing = rng.random((n_runs, n_topics + 1)) < 0.005
    missing[-1, int(rng.integers(n_topics))] = True
    lengths[missing] = 0
    lengths[:, n_topics] = 0
    lengths[0, n_topics] = max(1, depth // 2)
    return lengths


def _qrels(rng, topics, docs, grades, ranked, n_runs, depth, width) -> pd.DataFrame:
    """Judge the pool: top ranks of the pooled runs, extra candidates, each topic's best."""
    late = n_runs // 2 if n_runs >= 3 else -1
    pool_depth = min(depth, POOL_DEPTH)
    rows_t, rows_d, rows_g = [], [], []
    for t, topic in enumerate(topics):
        judged = rng.random(len(docs[t])) < _EXTRA_JUDGED
        judged[int(np.argmax(grades[t]))] = True
        for r in range(n_runs):
            if r != late and (r, t) in ranked:
                judged[ranked[r, t][0][:pool_depth]] = True
        idx = np.flatnonzero(judged)
        rows_t.extend([topic] * len(idx))
        rows_d.extend(_docnos(docs[t][idx], width))
        rows_g.append(grades[t][idx])
    qrels = pd.DataFrame({
        "topic": pd.Series(rows_t, dtype=str),
        "docno": pd.Series(rows_d, dtype=str),
        "grade": np.concatenate(rows_g).astype(np.int64),
    })
    return qrels.sort_values(["topic", "docno"], kind="stable").reset_index(drop=True)


def _runs(topics, docs, ranked, quality, n_runs, width) -> dict[str, pd.DataFrame]:
    """One frame per run, sorted by topic and rank."""
    name_width = max(2, len(str(n_runs)))
    runs = {}
    for r in range(n_runs):
        parts = [(topics[t], docs[t][order], scores) for (rr, t), (order, scores) in ranked.items() if rr == r]
        parts.sort(key=lambda part: part[0])
        frame = pd.DataFrame({
            "topic": pd.Series([topic for topic, d, _ in parts for _ in d], dtype=str),
            "docno": pd.Series([x for _, d, _ in parts for x in _docnos(d, width)], dtype=str),
            "score": np.concatenate([s for _, _, s in parts]).astype(np.float64),
            "rank": np.concatenate([np.arange(1, len(d) + 1) for _, d, _ in parts]).astype(np.int64),
        })
        frame.attrs["quality"] = float(quality[r])
        runs[f"run{r + 1:0{name_width}d}"] = frame
    return runs


def _docnos(ids, width: int) -> list[str]:
    return [f"D{int(i):0{width}d}" for i in ids]


def write_trec(qrels: pd.DataFrame, runs: dict[str, pd.DataFrame], directory: str | os.PathLike) -> tuple[Path, list[Path]]:
    """Write qrels and runs as TREC files (e.g. from :func:`collection`).

    Parameters
    ----------
    qrels : pandas.DataFrame
        Columns ``topic, docno, grade``.
    runs : dict of str to pandas.DataFrame
        Run name -> columns ``topic, docno, score, rank``; the name is the
        file name and the run tag, so it must be a plain file name inside
        ``directory``: not empty, ``.`` or ``..``, no path separator, no
        whitespace, not ``qrels.txt``.
    directory : str or os.PathLike
        Where to write (created if needed).

    Returns
    -------
    qrels_path : pathlib.Path
        ``directory/qrels.txt``, lines ``qid 0 docno grade``.
    run_paths : list of pathlib.Path
        ``directory/<name>`` per run, in the order of ``runs``, lines
        ``qid Q0 docno rank score tag``: per topic, rank 1..n by score
        descending (ties in the frame's rank order), scores written so that
        they read back exactly.

    Raises
    ------
    InputError
        A run name that is not a plain file name (checked before anything is written).

    Each file is written to a temporary name and renamed into place, so an error
    never leaves half a file.
    """
    names = [_run_file_name(name) for name in runs]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise InputError(f"run names {repeated} repeat once written as file names (str of each key); "
                         f"every run needs its own file")
    directory = Path(os.fspath(directory))
    directory.mkdir(parents=True, exist_ok=True)
    qrels_path = directory / _QRELS_NAME
    grades = [_fmt(g) for g in qrels["grade"].tolist()]
    lines = [f"{t} 0 {d} {g}\n" for t, d, g in zip(qrels["topic"].tolist(), qrels["docno"].tolist(), grades)]
    atomic_write_text(qrels_path, "".join(lines))
    paths = []
    for name, frame in zip(names, runs.values()):
        path = directory / name
        atomic_write_text(path, _run_text(frame, name))
        paths.append(path)
    return qrels_path, paths


#: the file name of the qrels that :func:`write_trec` writes
_QRELS_NAME = "qrels.txt"


def _run_file_name(name) -> str:
    """A run name as the name of its file in write_trec's folder, or an InputError naming it."""
    text = str(name)
    separators = {"/", os.sep, os.altsep} - {None}
    if text in ("", ".", "..") or any(sep in text for sep in separators) or os.path.isabs(text):
        problem = "a path, not a file name" if text not in ("", ".", "..") else "not a file name"
        raise InputError(f"run name {text!r} is {problem}: write_trec writes each run to a file of that name "
                         f"inside the folder; accepted: a plain file name (no '/', not '', '.' or '..')")
    if text == _QRELS_NAME:
        raise InputError(f"run name {text!r} is the name of the qrels file write_trec writes; rename the run")
    if "\0" in text or any(ch.isspace() for ch in text):
        raise InputError(f"run name {text!r} contains whitespace or a NUL character: the name is the run tag, "
                         f"the last field of each TREC run line; accepted: a name without whitespace")
    return text


def _run_text(frame: pd.DataFrame, tag: str) -> str:
    """TREC run lines: per topic by score descending (ties by the given rank), ranks renumbered."""
    keys = ["topic", "score", "rank"] if "rank" in frame.columns else ["topic", "score"]
    ordered = frame.sort_values(keys, ascending=[True, False, True][: len(keys)], kind="stable")
    ranks = ordered.groupby("topic", sort=False).cumcount().to_numpy() + 1
    rows = zip(ordered["topic"].tolist(), ordered["docno"].tolist(), ranks.tolist(), ordered["score"].tolist())
    return "".join(f"{t} Q0 {d} {k} {_fmt(s)} {tag}\n" for t, d, k, s in rows)
