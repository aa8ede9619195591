"""Figures fit for a paper: every figure of discpower draws its lines from the one colour-blind-safe palette
(:mod:`discpower._plots`), no two lines alike in colour and style, no red/green pair; its axes name the metric
(and the topics), its title or legend the test, B and alpha. Rendered with the Agg backend on small
synthetic data (and the DL19 mini collection, when ../shared is there)."""

import colorsys
import re

import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from conftest import shared_path
from matplotlib.colors import to_hex, to_rgb

import cwla
import discpower
from discpower import DiscpowerError
from discpower._plots import (BLUE, DIVERGING_CMAP, LINE_STYLES, MARKERS, NEUTRAL, PALETTE, SEQUENTIAL_CMAP,
                              VERMILLION, line_style)

B = 60
METRICS = ["AP", "P@5", "nDCG@5", "nDCG@10", "RBP_ERG", "ERR", "RR", "P@10", "AP@5", "P@2", "INST_PE",
           "Precision_max"]
TUKEY = "randomised Tukey HSD"
COLOURS = {colour.lower() for colour in PALETTE}  # as to_hex gives them


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def data():
    qrels, runs = cwla.synthetic.collection(n_topics=16, n_runs=8, seed=5)
    return qrels, runs, discpower.sample_relevant(qrels, 0.5, seed=1)


@pytest.fixture(scope="module")
def report(data):
    qrels, runs, _ = data
    return discpower.meta_evaluate(qrels, runs, METRICS, n_trials=B, n_splits=6, seed=1)


# ----------------------------------------------------------------------------- what the checks look at

def hue_of(colour) -> tuple[float, float, float]:
    """(hue in degrees, saturation, value)."""
    h, s, v = colorsys.rgb_to_hsv(*to_rgb(colour))
    return 360.0 * h, s, v


def is_red(colour) -> bool:
    h, s, v = hue_of(colour)
    return (h < 15 or h > 345) and s > 0.5 and v > 0.3


def is_green(colour) -> bool:
    h, s, v = hue_of(colour)
    return 90 <= h <= 150 and s > 0.5 and v > 0.3


def red_green_pair(colours) -> bool:
    colours = list(colours)
    return any(map(is_red, colours)) and any(map(is_green, colours))


def colours_of(ax) -> set[str]:
    """Every colour an Axes draws with: its lines' and its collections' (scatter points, error bars)."""
    found = {to_hex(line.get_color()) for line in ax.get_lines()}
    for collection in ax.collections:
        for rgba in [*collection.get_edgecolor(), *collection.get_facecolor()]:
            found.add(to_hex(rgba))
    return found


def legend_texts(ax) -> list[str]:
    legend = ax.get_legend()
    return [] if legend is None else [t.get_text() for t in legend.get_texts()]


def assert_names_test(text: str, method: str, n_trials: int | None, alpha: float) -> None:
    assert method in text, text
    assert f"α = {alpha:g}" in text, text
    if n_trials is None:
        assert "B = " not in text, text
    else:
        assert f"B = {n_trials:,}" in text, text


def assert_distinct_palette_lines(lines) -> None:
    looks = [(to_hex(line.get_color()), line.get_linestyle()) for line in lines]
    assert looks, "no line drawn"
    assert all(colour in COLOURS for colour, _ in looks), looks
    assert len(set(looks)) == len(looks), f"two lines share colour and style: {looks}"


# ----------------------------------------------------------------------------- the checks check

def test_the_red_green_check_catches_matplotlib_defaults_and_passes_the_palette():
    assert red_green_pair(["tab:red", "tab:green"]) and red_green_pair(["red", "#00ff00", "black"])
    assert not red_green_pair(["tab:red", "tab:blue"])
    assert not red_green_pair([*PALETTE, BLUE, VERMILLION, NEUTRAL])


def test_the_palette_is_okabe_ito_and_its_lines_stay_apart():
    assert PALETTE[:4] == ("#0072B2", "#E69F00", "#009E73", "#D55E00") and "#F0E442" not in PALETTE  # no yellow
    pairs = {(line_style(k)["color"], line_style(k)["linestyle"]) for k in range(len(PALETTE) * len(LINE_STYLES))}
    assert len(pairs) == 28
    triples = {tuple(line_style(k).values()) for k in range(len(PALETTE) * len(LINE_STYLES) * len(MARKERS))}
    assert len(triples) == 140
    # neighbours differ in colour and style at once, so two overlapping curves differ in greyscale
    assert all(line_style(k)["color"] != line_style(k + 1)["color"]
               and line_style(k)["linestyle"] != line_style(k + 1)["linestyle"] for k in range(200))


# ----------------------------------------------------------------------------- ASL curves

def test_asl_curves_name_test_b_alpha_and_every_metric(report):
    ax = report.plot_asl()
    assert_names_test(ax.get_title(), TUKEY, B, report.alpha)
    assert "8 systems, 16 topics" in ax.get_title()
    curves = ax.get_lines()[:-1]
    assert len(curves) == len(METRICS)
    assert_distinct_palette_lines(curves)
    assert not red_green_pair(colours_of(ax))
    assert legend_texts(ax) == [*METRICS, "α = 0.05"]
    assert "p-value" in ax.get_ylabel() and "28 pairs" in ax.get_xlabel()
    within = max(int((curve.get_ydata() <= 0.1).sum()) for curve in curves)  # pairs shown below the top
    assert ax.get_xlim()[1] == min(28, int(np.ceil(within * 1.15)) + 1) + 0.5  # the axis ends past the last
    assert discpower.plot_asl_curves(report.tests, ylim=None).get_xlim()[1] > 28  # the full range: every pair


def test_asl_curves_of_different_tests_name_each_test(data):
    qrels, runs, _ = data
    ev = cwla.evaluate(qrels, runs, ["AP", "nDCG@10"])
    X = ev.scores("AP").T
    tests = {"AP, Tukey": discpower.randomised_tukey_hsd(X, n_trials=B, seed=1), "AP, t-test":
             discpower.paired_t_test(X)}
    ax = discpower.plot_asl_curves(tests, alpha=0.1, title="my title")
    assert ax.get_title() == "my title"
    texts = legend_texts(ax)
    assert texts[0] == f"AP, Tukey ({TUKEY}, B = {B})" and texts[1] == "AP, t-test (paired t-test)"
    assert texts[2] == "α = 0.1"
    ax = discpower.plot_asl_curves(tests, alpha=0.1)
    assert "α = 0.1" in ax.get_title() and "B = " not in ax.get_title()


# ----------------------------------------------------------------------------- heatmap and consistency

def test_similarity_heatmap_names_the_coefficient_with_a_colour_blind_safe_map(report):
    ax = report.plot_similarity()
    assert "Kendall" in ax.get_title() and "8 systems" in ax.get_title()
    assert ax.images[0].get_cmap().name in (SEQUENTIAL_CMAP, DIVERGING_CMAP)
    colourbar = ax.images[0].colorbar
    assert "tau_b" in colourbar.ax.get_ylabel()
    asymmetric = discpower.ranking_similarity(report.evaluation, method="tau_ap").plot()
    assert "reference" in asymmetric.get_ylabel() and "AP" in asymmetric.get_title()


def test_consistency_names_its_test_and_marks_the_wins(report):
    res = report.consistency
    ax = res.plot()
    assert_names_test(ax.get_title(), TUKEY, res.test.n_resamples, res.alpha)
    assert f"{res.n_splits} splits of 16 topics" in ax.get_title() and "tau_b" in ax.get_ylabel()
    assert len(ax.texts) == int(np.sum(res.outperforms > 0))
    assert sorted(int(t.get_text()) for t in ax.texts) == sorted(int(k) for k in res.outperforms if k)
    assert colours_of(ax) <= COLOURS


# ----------------------------------------------------------------------------- qrels figures

def test_qrels_figure_names_the_metric_and_the_test(data):
    qrels, runs, candidate = data
    result = discpower.compare_qrels(qrels, candidate, runs, "nDCG@10", n_trials=B, seed=1, alpha=0.1)
    assert result.metric == "nDCG@10"
    ax = result.plot()
    assert ax.get_xlabel() == "nDCG@10 (mean over 16 topics), ground-truth qrels"
    assert ax.get_ylabel().startswith("nDCG@10 (mean over ") and "candidate qrels" in ax.get_ylabel()
    assert_names_test(ax.get_title(), TUKEY, B, 0.1)
    drawn = {(to_hex(line.get_color()), line.get_linestyle()) for line in ax.get_lines()
             if to_hex(line.get_color()) != NEUTRAL}
    assert drawn <= {(BLUE.lower(), "--"), (VERMILLION.lower(), "-")}
    assert not red_green_pair(colours_of(ax))
    assert any(text.startswith(("Type I ", "Type II ")) for text in legend_texts(ax))
    named = result.plot(metric="my metric", truth_name="NIST", candidate_name="LLM")
    assert named.get_xlabel() == "my metric (mean over 16 topics), NIST" and named.get_ylabel().endswith("LLM")


def test_qrels_figure_of_compare_tests_without_a_metric(data):
    qrels, runs, candidate = data
    X = cwla.evaluate(qrels, runs, "AP").scores("AP").T
    Y = cwla.evaluate(candidate, runs, "AP").scores("AP").T
    result = discpower.compare_tests(discpower.paired_t_test(X), discpower.paired_t_test(Y), metric="AP")
    ax = result.plot()
    assert ax.get_xlabel().startswith("AP (mean over 16 topics)")
    assert_names_test(ax.get_title(), "paired t-test", None, 0.05)
    unnamed = discpower.compare_tests(discpower.paired_t_test(X), discpower.paired_t_test(Y))
    assert unnamed.metric is None and unnamed.plot().get_xlabel().startswith("score (mean over 16 topics)")
    with pytest.raises(DiscpowerError, match=re.escape("The 'metric' parameter must be a metric label")):
        discpower.compare_tests(discpower.paired_t_test(X), discpower.paired_t_test(Y), metric=3)


def test_sweep_plot_names_metric_test_b_alpha_and_the_parameter(data):
    qrels, runs, _ = data
    swept = discpower.sweep(qrels, runs, "nDCG@10", generators="sampling", parameters=[0.3, 0.7, 1.0],
                            repetitions=2, n_trials=B, seed=1, progress=False)
    assert swept.test == "tukey" and swept.n_trials == B
    ax = swept.plot()
    assert "nDCG@10" in ax.get_ylabel() and "value" != ax.get_ylabel() and "2 repetitions" in ax.get_ylabel()
    assert "relevant judgements kept" in ax.get_xlabel()
    assert ax.get_title().startswith("nDCG@10, sampling: ")
    assert_names_test(ax.get_title(), TUKEY, B, swept.alpha)
    assert len(ax.containers) == 4  # one error bar per measure: its data line (the caps are lines too)
    assert_distinct_palette_lines([container.lines[0] for container in ax.containers])
    assert legend_texts(ax) == ["1R", "2R", "BAC", "MCC"]
    assert not red_green_pair(colours_of(ax))


def test_sweep_plot_of_a_parametric_test_has_no_b(data):
    qrels, runs, _ = data
    swept = discpower.sweep(qrels, runs, "AP", generators="topics", parameters=[0.5, 1.0], repetitions=1,
                            test="t-test", alpha=0.01, seed=1, progress=False)
    ax = swept.plot(measures=("1R", "MCC"))
    assert_names_test(ax.get_title(), "paired t-test", None, 0.01)
    assert "share of the topics" in ax.get_xlabel() and "1 repetition)" in ax.get_ylabel()


# ----------------------------------------------------------------------------- system comparisons

def test_system_comparison_names_metric_topics_test_b_alpha(data):
    qrels, runs, _ = data
    res = discpower.compare_systems(qrels, runs, ["AP", "nDCG@10"], n_trials=B, seed=1)
    ax = res.plot("nDCG@10")
    assert ax.get_xlabel() == "nDCG@10 (mean over 16 topics, 95% CI)"
    assert_names_test(ax.get_title(), res.method, B, res.alpha)
    assert colours_of(ax) == {PALETTE[0].lower()}


def test_baseline_plot_has_no_red_green_and_says_what_each_look_means(data):
    qrels, runs, _ = data
    baseline = min(runs)
    res = discpower.compare_systems(qrels, runs, "AP", baseline=baseline, test="t-test", correction="holm")
    marks = res.cell_markers()
    assert "-" in marks  # something is significantly worse: the vermillion class is drawn
    ax = res.plot()
    assert_names_test(ax.get_title(), "paired t-test, Holm", None, 0.05)
    assert not red_green_pair(colours_of(ax))
    assert colours_of(ax) <= {BLUE.lower(), VERMILLION.lower(), NEUTRAL.lower(), "#000000"}
    texts = legend_texts(ax)
    assert "baseline" in texts and "significantly worse" in texts
    assert ("significantly better" in texts) == ("+" in marks)
    points = [line for line in ax.get_lines() if line.get_linestyle() == "None" and line.get_marker() not in "|_"]
    looks = {(to_hex(line.get_color()), line.get_marker()) for line in points}
    by_colour = {}
    for colour, marker in looks:
        by_colour.setdefault(colour, set()).add(marker)
    assert all(len(m) == 1 for m in by_colour.values())  # one shape per class,
    assert len({next(iter(m)) for m in by_colour.values()}) == len(by_colour)  # a different one for each


# ----------------------------------------------------------------------------- DL19

def test_dl19_mini_figures_name_the_metric_and_the_topics(mini):
    qrels, runs, _ = mini
    candidate = shared_path("trec-dl-2019-passage-mini", "candidate-qrels", "dl2019_test_4prompts_llama70b.txt")
    ev = cwla.evaluate(qrels, runs, ["nDCG@10", "P@10", "RBP_ERG"])
    n = len(ev.topics)
    ax = discpower.compare_systems(ev, n_trials=B).plot()
    assert ax.get_xlabel() == f"nDCG@10 (mean over {n} topics, 95% CI)"
    result = discpower.compare_qrels(qrels, candidate, runs, "nDCG@10", n_trials=B, seed=1)
    ax = result.plot()
    assert ax.get_xlabel() == f"nDCG@10 (mean over {result.truth_test.n_topics} topics), ground-truth qrels"
    assert_names_test(ax.get_title(), TUKEY, B, 0.05)
    report = discpower.meta_evaluate(ev, n_trials=B, n_splits=0)
    ax = report.plot_asl()
    assert f"{len(runs)} systems, {n} topics" in ax.get_title()
    assert_distinct_palette_lines(ax.get_lines()[:-1])
