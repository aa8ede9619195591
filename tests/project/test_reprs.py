"""Every result object shows itself briefly: a short ``repr``, a small ``_repr_html_`` and a labelled ``summary()``.

The result types are found, not listed: every attrs class of a public module of cwla or discpower whose
equality is identity (the result and data types: the metric values compare by value) must derive from
:class:`cwla._display.Displayed`, and every type that does is built here, on the built-in synthetic
collection and on TREC DL 2019 (which skips without ../shared). A new result type without a display fails
:func:`test_every_result_type_shows_itself_briefly`; one with a display but no instance here fails
:func:`test_every_displayed_type_is_built_here`.
"""

from __future__ import annotations

import contextlib
import html.parser
import importlib
import inspect
import io
import pkgutil
import re
import warnings

import attrs
import pandas as pd
import pytest
from conftest import ROOT, shared_path

import cwla
import discpower
from cwla._display import RESULT_TYPES, REPR_LIMIT, Displayed, short_labels
from cwla.data.subtopics import Subtopics, read_subtopics

METRIC = cwla.Metric(cwla.INST(T=2.5), cwla.PE(beta=0.5), cutoff=10, depth=10, stop=True)
METRICS = [METRIC, "nDCG@10", "RBP_ERG", "P(rel=2)@10", "map", "R@100"]
FAMILIES = {"graded": (str(METRIC), "nDCG@10", "RBP_ERG"), "binary": ("P(rel=2)@10", "map", "R@100")}
#: the types whose ``summary()`` predates the display (kept as it was: a RangeIndex, no columns name)
OWN_SUMMARY = {discpower.Stability, discpower.KnownTruthErrors, discpower.Sweep}
#: identity-equal attrs classes of public modules that are not results (internal arrays), and why
NOT_RESULTS = {"cwla.scoring.intents.Relevance": "the diversity measures' join arrays, internal to a kernel pass",
               "cwla.bridges.prefs_counts.PrefLines": "a topic's preference lines, internal to trec_prefs_lines"}
HTML_LIMIT = 20_000


# --------------------------------------------------------------------------- the types

def _public_modules():
    for package in (cwla, discpower):
        yield package
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if any(part.startswith("_") for part in info.name.split(".")):
                continue
            try:
                yield importlib.import_module(info.name)
            except ImportError:  # a bridge whose tool is not installed
                continue


def _result_types() -> set:
    """Every attrs class named in a public module's ``__all__`` (and defined there) with identity equality,
    and the public plain classes deriving from Displayed."""
    found = set()
    for module in _public_modules():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name, None)
            if not inspect.isclass(obj) or obj.__module__ != module.__name__ or issubclass(obj, BaseException):
                continue
            key = f"{obj.__module__}.{obj.__qualname__}"
            if key in NOT_RESULTS:
                continue
            if (attrs.has(obj) and obj.__eq__ is object.__eq__) or issubclass(obj, Displayed):
                found.add(obj)
    return found


def test_every_result_type_shows_itself_briefly():
    found = _result_types()
    assert {cwla.Evaluation, cwla.Evaluator, discpower.MetaEvaluation, discpower.SystemComparison} <= found
    missing = sorted(t.__qualname__ for t in found if not issubclass(t, Displayed))
    assert missing == [], f"derive these from cwla._display.Displayed (attrs: repr=False): {missing}"
    # attrs writes no __repr__ over the display's, and equality and hashing stay identity
    for t in found:
        assert t.__repr__ is Displayed.__repr__, t
        assert t.__eq__ is object.__eq__ and t.__hash__ is object.__hash__, t


def test_every_displayed_type_is_built_here():
    registered = {t for t in RESULT_TYPES.values() if t.__module__.split(".")[0] in ("cwla", "discpower")}
    assert registered >= _result_types()
    assert registered == set(SHAPES), sorted(t.__qualname__ for t in registered ^ set(SHAPES))


# --------------------------------------------------------------------------- instances

def _results(qrels, runs) -> dict:
    """One object of every displayed type (small B, few splits and samples)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. the runs' missing topics
        run_set = cwla.read_runs(runs)
        ev = cwla.evaluate(qrels, run_set, METRICS, rel=2)
        out = [ev, cwla.Evaluator(run_set, METRICS, rel=2), cwla.Judgements.of(qrels), run_set,
               cwla.prepare(qrels, run_set)]
        q = cwla.read_qrels(qrels)
        out.append(read_subtopics(q.assign(subtopic=q["docno"].map(len) % 3)[["topic", "subtopic", "docno", "grade"]]))
        X = ev.scores("nDCG@10").T
        consistency = discpower.split_half_consistency(ev, n_splits=10, n_trials=100, seed=1)
        out += [discpower.randomised_tukey_hsd(X, 200, seed=1), discpower.ranking_similarity(ev), consistency,
                discpower.family_consistency(consistency, FAMILIES),
                discpower.metric_influence(consistency, FAMILIES),
                discpower.meta_evaluate(ev, n_trials=100, n_splits=10, seed=1, families=FAMILIES),
                discpower.calibrate(X, n_sim=5, n_trials=50, deltas=(0.05,), seed=1)]
        candidate = discpower.sample_relevant(qrels, 0.5, seed=1)
        comparer = discpower.QrelsComparer.build(qrels, run_set, "nDCG@10", n_trials=100)
        out += [comparer, comparer.compare(candidate),
                discpower.truth_stability(qrels, {"half": candidate}, run_set, "nDCG@10", n_boot=3, n_trials=50),
                discpower.run_stability(qrels, {"half": candidate}, run_set, "nDCG@10", n_boot=3, n_trials=50)]
        population = discpower.known_truth_collection(n_topics=30, quality=(0.5, 2.0), per_level=2, docs=10)
        out += [population,
                discpower.known_truth_errors(population, {"half": lambda q: discpower.sample_relevant(q, 0.5)},
                                             sample_topics=10, experiments=2, n_trials=50),
                discpower.sweep(qrels, run_set, "nDCG@10", generators=["sampling"], parameters=(0.5, 1.0),
                                repetitions=2, n_trials=50),
                discpower.compare_systems(ev, n_trials=100)]
    return {type(x): x for x in out}


@pytest.fixture(scope="module")
def synthetic_results():
    return _results(*cwla.synthetic.collection(seed=1))


@pytest.fixture(scope="module")
def dl19_results():
    root = shared_path("trec-dl-2019-passage")
    return _results(root / "qrels" / "qrels.dl19-passage.txt", sorted((root / "runs").glob("*.gz")))


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


#: type -> the shape its repr's first line must say
SHAPES = {
    cwla.Evaluation: lambda x: f"{_n(len(x.labels), 'metric')} x {_n(len(x.runs), 'run')} x {_n(len(x.topics), 'topic')}",
    cwla.Evaluator: lambda x: f"{_n(len(x.labels), 'metric')} (",
    cwla.Judgements: lambda x: f"{_n(len(x.topics), 'topic')}, {_n(len(x.topic), 'judgement')}",
    cwla.RunSet: lambda x: f"{_n(len(x.names), 'run')} x {_n(len(x.topics), 'topic')}",
    cwla.Collection: lambda x: f"{_n(len(x.runs), 'run')} x {_n(len(x.topics), 'topic')}",
    Subtopics: lambda x: f"{len(x.topics)} topics, ",
    discpower.PairwiseTest: lambda x: f"{_n(x.n_systems, 'system')} x {_n(x.n_topics, 'topic')}",
    discpower.RankingSimilarity: lambda x: f"{_n(len(x.labels), 'metric')} x {_n(x.n_systems, 'system')}",
    discpower.SplitHalfConsistency: lambda x: f"{_n(len(x.labels), 'metric')}, {_n(x.n_splits, 'split')}",
    discpower.FamilyConsistency: lambda x: f"{len(x.families)} famil",
    discpower.MetricInfluence: lambda x: f"{_n(len(x.frame), 'metric')} left out of",
    discpower.MetaEvaluation: lambda x: f"{_n(len(x.labels), 'metric')} x {_n(len(x.evaluation.runs), 'run')}",
    discpower.Calibration: lambda x: f"{_n(x.n_sim, 'simulation')} of {_n(x.n_topics, 'topic')}",
    discpower.QrelsComparer: lambda x: f"{_n(len(x.truth_evaluations), 'metric')} x",
    discpower.QrelsComparison: lambda x: f"{_n(len(x.truth_means), 'system')}, {_n(int(x.measures['pairs']), 'pair')}",
    discpower.Stability: lambda x: f"{_n(len(x.candidates), 'candidate')} x",
    discpower.RunStability: lambda x: f"{_n(len(x.runs), 'run')}, ",
    discpower.KnownTruthCollection: lambda x: f"{_n(len(x.runs), 'system')} at {_n(len(x.quality), 'quality level')}",
    discpower.KnownTruthErrors: lambda x: f"of {_n(x.sample_topics, 'topic')}",
    discpower.Sweep: lambda x: f"{_n(x.frame['repetition'].nunique(), 'repetition')}",
    discpower.SystemComparison: lambda x: f"{_n(len(x.metrics), 'metric')} x {_n(x.n_systems, 'system')}",
}


class _Tags(html.parser.HTMLParser):
    """The tags of an HTML text, checked to nest."""

    VOID = {"br", "hr", "img", "meta", "input", "col"}

    def __init__(self):
        super().__init__()
        self.stack, self.problems, self.seen = [], [], []

    def handle_starttag(self, tag, attrs):
        self.seen.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def _check(x) -> None:
    cls = type(x)
    text = repr(x)
    assert len(text) < REPR_LIMIT, (cls, len(text))
    assert text.startswith(f"<{cls.__name__}: "), text
    first = text.splitlines()[0]
    assert SHAPES[cls](x) in first, (SHAPES[cls](x), first)
    assert max(map(len, text.splitlines())) <= 80, text
    assert "array(" not in text and "DataFrame" not in text  # no field dumped

    summary = x.summary()
    assert isinstance(summary, pd.DataFrame) and len(summary) > 0 and summary.shape[1] > 0
    if cls not in OWN_SUMMARY:
        assert None not in summary.index.names and summary.columns.name is not None, summary
        # the repr shows the summary's first rows (clipped labels), unless its header line says it all
        label = summary.index[0]
        label = str(label[0] if isinstance(label, tuple) else label)[:20]
        if x._shown().preview:
            assert label in text, (label, text)

    page = x._repr_html_()
    assert page.startswith("<") and cls.__name__ in page and len(page) < HTML_LIMIT and "<table>" in page
    tags = _Tags()
    tags.feed(page)
    tags.close()
    assert tags.problems == [] and tags.stack == [], (tags.problems, tags.stack)


@pytest.mark.parametrize("cls", list(SHAPES), ids=lambda c: c.__name__)
def test_synthetic_results_show_themselves(synthetic_results, cls):
    _check(synthetic_results[cls])


@pytest.mark.parametrize("cls", list(SHAPES), ids=lambda c: c.__name__)
def test_dl19_results_show_themselves(dl19_results, cls):
    _check(dl19_results[cls])


def test_the_display_leaves_equality_and_the_values_alone(synthetic_results):
    ev = synthetic_results[cwla.Evaluation]
    same = attrs.evolve(ev)
    assert ev == ev and ev != same and hash(ev) == object.__hash__(ev)
    assert {ev: 1}[ev] == 1 and same not in {ev: 1}
    # summary() is means() with the long labels shortened; means() keeps them
    means, summary = ev.means(), ev.summary()
    pd.testing.assert_frame_equal(summary, means.set_axis(list(short_labels(ev.labels)), axis=1).rename_axis(
        columns="metric"))
    assert tuple(means.columns) == ev.labels and "INST+PE@10" in repr(ev) and str(METRIC) in repr(ev)


def test_text_is_escaped_in_html():
    qrels, runs = cwla.synthetic.collection(seed=1)
    runs = {("<b>run</b> & co" if name == "run01" else name): frame for name, frame in runs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = cwla.evaluate(qrels, runs, ["nDCG@10"])
    page = ev._repr_html_()
    assert "<b>run</b>" not in page and "&lt;b&gt;run&lt;/b&gt; &amp; co" in page


def test_many_metrics_and_long_run_names_stay_short():
    qrels, runs = cwla.synthetic.collection(seed=2)
    runs = {f"{name}-a-run-name-as-long-as-the-trec-dl-ones-{'x' * 30}": frame for name, frame in runs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = cwla.evaluate(qrels, runs, cwla.chen_sakai_metrics() + [str(METRIC)])
    text = repr(ev)
    assert len(text) < REPR_LIMIT and max(map(len, text.splitlines())) <= 80
    assert "more columns" in text and "more rows" in text
    assert len(ev._repr_html_()) < HTML_LIMIT and ev.summary().shape == (len(ev.runs), len(ev.labels))


def test_short_labels_are_short_and_distinct():
    long = str(METRIC)
    assert short_labels([long, "nDCG@10"]) == ("INST+PE@10", "nDCG@10")
    # an abbreviation that is another label, or that two labels share, takes its position
    shorts = short_labels(["nDCG@10", "nDCG(dcg='exp-log2', judged_only=True)@10",
                           "RBP(p=0.5)+ERG[cutoff=10, depth=10]", "RBP(p=0.8)+ERG[cutoff=10, depth=10]",
                           "RBP(p=0.55)+ERG(x=1)[cutoff=10]", "RBP(p=0.66)+ERG(x=1)[cutoff=10]"])
    assert shorts == ("nDCG@10", "nDCG@10#2", "RBP(p=0.5)+ERG@10", "RBP(p=0.8)+ERG@10", "RBP+ERG@10#5",
                      "RBP+ERG@10#6")
    many = short_labels([f"{'x' * 30}{i}" for i in range(12)], width=20)
    assert len(set(many)) == 12 and max(map(len, many)) <= 20


# --------------------------------------------------------------------------- the README

def _python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(_python_blocks(ROOT / "README.md"))))
def test_readme_examples_print_within_80_columns(index, tmp_path, monkeypatch):
    """What the README's examples print fits 80 columns, with nothing of a frame left out (pandas' ``...``
    and ``[5 rows x 6 columns]``)."""
    code = _python_blocks(ROOT / "README.md")[index]
    for module in sorted(set(re.findall(r"^\s*(?:import|from)\s+(\w+)", code, flags=re.M))
                         & {"ir_measures", "pytrec_eval", "pyterrier", "ranx", "matplotlib"}):
        pytest.importorskip(module)
    if "plot" in code:
        pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, f"README.md block {index}", "exec"), {"__name__": "__readme__"})
    lines = out.getvalue().splitlines()
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    assert not any(re.search(r"\[\d+ rows x \d+ columns\]|\s\.\.\.\s|\s\.\.\.$", line) for line in lines), lines


@pytest.mark.parametrize("text, shown", [
    ("RBP_ERG", "RBP_ERG"), ("_x_", r"\_x\_"), ("a|b", r"a\|b"), ("2*3", r"2\*3"), ("`c`", r"\`c\`"),
    ("<b>", "&lt;b&gt;"), ("a\\b", r"a\\b"), ("one\ntwo", "one two"), ("x_ _y", r"x\_ \_y"),
])
def test_markdown_text_escapes_what_markdown_reads_as_markup(text, shown):
    from cwla._display import markdown_text

    assert markdown_text(text) == shown
