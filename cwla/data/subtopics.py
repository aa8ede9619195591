"""Subtopic qrels: the judgements of intent-aware (diversity) evaluation, ndeval's ``topic subtopic docno grade``.

Column 2 is the subtopic (an intent of the topic), not trec_eval's iteration; a document may be judged for
several subtopics of a topic. :func:`read_subtopics` reads a file (plain or gzip, ``#`` comment lines
skipped), a DataFrame (``topic``/``query_id``/``qid``, ``subtopic``/``iteration``, ``docno``/``doc_id``,
``grade``/``relevance``) or a dict ``{topic: {subtopic: {docno: grade}}}`` into a :class:`Subtopics`.
What the metrics with ``intents`` read from it (:mod:`cwla.metrics.intents`) is made by
:mod:`cwla.scoring.intents`; a metric without ``intents`` reads each document's largest grade over the
topic's subtopics.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping, Sequence

import attrs
import numpy as np
import pandas as pd

from .._display import Displayed, Shown, count_text
from ..errors import CwlaWarning, InputError, ParameterError
from ..typing import SubtopicsLike
from .collection import Judgements
from .files import columns_of, read_bytes
from .readers import line_fields

__all__ = ["Subtopics", "read_subtopics", "SUBTOPICS_LAYOUT"]

#: the columns of a subtopic qrels line
SUBTOPICS_LAYOUT = "topic subtopic docno grade"
_COLUMNS = {"topic": ("topic", "query_id", "qid"), "subtopic": ("subtopic", "iteration"),
            "docno": ("docno", "doc_id"), "grade": ("grade", "relevance", "label")}


@attrs.frozen(eq=False, repr=False)
class Subtopics(Displayed):
    """Subtopic judgements: a frame ``topic, subtopic, docno, grade`` (strings, float grades), one row per
    (topic, subtopic, docno), sorted."""

    frame: pd.DataFrame

    @classmethod
    def of(cls, source: SubtopicsLike) -> Subtopics:
        """``source`` if it is one, else :func:`read_subtopics` of it."""
        return source if isinstance(source, Subtopics) else read_subtopics(source)

    @property
    def topics(self) -> tuple:
        return tuple(sorted(set(self.frame["topic"])))

    def judgements(self) -> Judgements:
        """Ordinary qrels: each (topic, docno) at its largest grade over the subtopics."""
        flat = self.frame.groupby(["topic", "docno"], sort=True, as_index=False)["grade"].max()
        return Judgements.of(flat)

    def documents(self) -> tuple[pd.DataFrame, Judgements]:
        """The judged documents, one row per (topic, docno) numbered 0, 1, ... within the topic (``doc``), and
        qrels whose grade is that number: joined with runs, its grade codes say which document is where."""
        docs = self.frame[["topic", "docno"]].drop_duplicates().sort_values(["topic", "docno"],
                                                                              ignore_index=True)
        docs["doc"] = docs.groupby("topic").cumcount()
        return docs, Judgements.of(docs.rename(columns={"doc": "grade"}).astype({"grade": np.float64}))

    def described(self) -> str:
        """How these qrels were read, in words: ``"subtopic qrels (topic subtopic docno grade): 10 topics,
        31 subtopics, 412 judgements"``."""
        f = self.frame
        return (f"subtopic qrels ({SUBTOPICS_LAYOUT}): {count_text(f['topic'].nunique(), 'topic')}, "
                f"{count_text(len(f.drop_duplicates(['topic', 'subtopic'])), 'subtopic')}, "
                f"{count_text(len(f), 'judgement')}")

    def warn_if_one_per_topic(self, labels: Sequence[str]) -> None:
        """A :class:`~cwla.errors.CwlaWarning` when every topic has a single subtopic (ordinary qrels, whose
        second column is trec_eval's iteration, read as subtopic qrels): the intent-aware metrics ``labels``
        then score each topic as one intent."""
        column = self.frame["subtopic"]
        if labels and (self.frame.groupby("topic")["subtopic"].nunique() == 1).all():
            same = f" ({column.iloc[0]!r} on every line: ordinary qrels, whose second column is trec_eval's " \
                   f"iteration?)" if column.nunique() == 1 else ""
            warnings.warn(f"{', '.join(labels)}: intent-aware metrics read subtopic qrels ({SUBTOPICS_LAYOUT}), and "
                          f"every topic of these has one subtopic{same}; each topic is scored as a single intent",
                          CwlaWarning, stacklevel=4)

    def _shown(self) -> Shown:
        """Per topic: its subtopics and judgements (the repr: their totals)."""
        f = self.frame
        per_topic = f.groupby("topic", sort=True)
        table = pd.DataFrame({"subtopics": per_topic["subtopic"].nunique(), "judgements": per_topic.size()})
        table = table.rename_axis(index="topic", columns="count")
        return Shown("Subtopics", f"{f['topic'].nunique()} topics, {len(f.drop_duplicates(['topic', 'subtopic']))} "
                     f"subtopics, {len(f)} judgements", table, preview=0)


def read_subtopics(source: SubtopicsLike) -> Subtopics:
    """Read subtopic qrels (ndeval's ``topic subtopic docno grade``) from a file, a DataFrame or a dict
    ``{topic: {subtopic: {docno: grade}}}``; every problem is an :class:`~cwla.InputError` naming where.

    Examples
    --------
    >>> import cwla
    >>> subtopics = cwla.read_subtopics({"q1": {"1": {"d1": 1, "d2": 0}, "2": {"d2": 1}}})
    >>> run = {"q1": {"d1": 2.0, "d2": 1.0}}
    >>> ev = cwla.evaluate(subtopics, run, ["alpha_nDCG@10"])
    >>> round(float(ev.means().iloc[0, 0]), 4)
    1.0
    """
    if isinstance(source, (str, os.PathLike)):
        frame = _read_file(source)
    elif isinstance(source, pd.DataFrame):
        frame = _read_frame(source)
    elif isinstance(source, Mapping):
        frame = _read_dict(source)
    else:
        raise ParameterError(f"read_subtopics() accepts a path to a subtopic qrels file ({SUBTOPICS_LAYOUT}), a "
                        f"DataFrame or a dict {{topic: {{subtopic: {{docno: grade}}}}}}, got {type(source).__name__}")
    if frame.empty:
        raise InputError(f"subtopic qrels {_name(source)} are empty: nothing is judged (expected {SUBTOPICS_LAYOUT})")
    frame = frame.sort_values(["topic", "subtopic", "docno"], ignore_index=True)
    twice = frame.duplicated(["topic", "subtopic", "docno"])
    if twice.any():
        row = frame[twice].iloc[0]
        raise InputError(f"subtopic qrels {_name(source)}: docno {row['docno']!r} is judged twice for subtopic "
                         f"{row['subtopic']!r} of topic {row['topic']!r}")
    if (frame["topic"] == "all").any():
        raise InputError(f"subtopic qrels {_name(source)}: a topic is named 'all', which the per-topic outputs use "
                         f"for the mean; rename it")
    return Subtopics(frame)


def _name(source) -> str:
    return os.fsdecode(source) if isinstance(source, (str, os.PathLike)) else f"({type(source).__name__})"


def _grade(text, where: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise InputError(f"{where}: grade {text!r} is not a number") from None
    if isinstance(text, bool) or not math.isfinite(value):
        raise InputError(f"{where}: grade {text!r} is not a finite number")
    return value


def _read_file(path) -> pd.DataFrame:
    label = os.fsdecode(path)
    rows = []
    for lineno, fields in line_fields(read_bytes(path, "subtopic qrels", layout=SUBTOPICS_LAYOUT), label,
                                      comments=True):
        columns_of(fields, SUBTOPICS_LAYOUT, f"{label}, line {lineno}")
        rows.append((fields[0], fields[1], fields[2], _grade(fields[3], f"{label}, line {lineno}")))
    return pd.DataFrame(rows, columns=["topic", "subtopic", "docno", "grade"])


def _read_frame(frame: pd.DataFrame) -> pd.DataFrame:
    chosen = {}
    for role, names in _COLUMNS.items():
        present = [n for n in names if n in frame.columns]
        if not present:
            raise InputError(f"subtopic qrels DataFrame has no {' or '.join(names)} column (found "
                             f"{list(frame.columns)}); accepted: {SUBTOPICS_LAYOUT} or ir_datasets' query_id, "
                             f"iteration, doc_id, relevance")
        chosen[role] = present[0]
    out = {}
    for role in ("topic", "subtopic", "docno"):
        column = frame[chosen[role]]
        if column.isna().any():
            raise InputError(f"subtopic qrels DataFrame, row {column.index[column.isna()][0]!r}: {role} is missing")
        out[role] = column.astype(str).to_numpy()
    out["grade"] = [_grade(v, f"subtopic qrels DataFrame, row {i!r}") for i, v in frame[chosen["grade"]].items()]
    return pd.DataFrame(out, columns=["topic", "subtopic", "docno", "grade"])


def _read_dict(source: Mapping) -> pd.DataFrame:
    rows = []
    for topic, subtopics in source.items():
        if not isinstance(subtopics, Mapping):
            raise InputError(f"subtopic qrels dict: topic {topic!r} maps to a {type(subtopics).__name__}; accepted: "
                             f"{{topic: {{subtopic: {{docno: grade}}}}}}")
        for subtopic, docs in subtopics.items():
            if not isinstance(docs, Mapping):
                raise InputError(f"subtopic qrels dict: subtopic {subtopic!r} of topic {topic!r} maps to a "
                                 f"{type(docs).__name__}; accepted: {{topic: {{subtopic: {{docno: grade}}}}}}")
            for docno, grade in docs.items():
                where = f"subtopic qrels dict, topic {topic!r}, subtopic {subtopic!r}, docno {docno!r}"
                rows.append((str(topic), str(subtopic), str(docno), _grade(grade, where)))
    return pd.DataFrame(rows, columns=["topic", "subtopic", "docno", "grade"])
