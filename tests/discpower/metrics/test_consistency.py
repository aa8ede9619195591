"""discpower.metrics.consistency: split-half consistency (Sakai 2021; Chen & Sakai 2023, Algorithm 1).

The kernel is checked against a plain-Python re-implementation on the same splits (and
the splits against a plain-Python SplitMix64 + Fisher-Yates), for determinism whatever the
thread count, and for the behaviour it exists for: a noisy metric is less consistent."""

import math
import warnings
from fractions import Fraction

import numba
import numpy as np
import pytest
import scipy.stats

import cwla
from discpower import DiscpowerError, PairwiseTest
from discpower.metrics.consistency import SplitHalfConsistency, compact_ranks, split_half_consistency, topic_split
from discpower.metrics.families import outperforms_by_splits
from discpower.stats.tukey import randomised_tukey_hsd

# --------------------------------------------------------------------------- plain-Python references

MASK = (1 << 64) - 1
GOLDEN, MIX1, MIX2, TRIAL = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0xD1B54A32D192ED03


def py_mix(z):
    z = ((z ^ (z >> 30)) * MIX1) & MASK
    z = ((z ^ (z >> 27)) * MIX2) & MASK
    return z ^ (z >> 31)


def py_split(n, seed, b):
    """The split of discpower.stats.rng's documented stream, written out: SplitMix64 seeded by (seed, b),
    a Fisher-Yates shuffle with two 32-bit draws per output, the first floor(n/2) positions."""
    state = py_mix(seed ^ ((b * TRIAL) & MASK) ^ GOLDEN)
    perm = list(range(n))
    bits, have = 0, 0
    for i in range(n - 1, 0, -1):
        if have == 0:
            state = (state + GOLDEN) & MASK
            bits, have = py_mix(state), 2
        u = bits & 0xFFFFFFFF
        bits >>= 32
        have -= 1
        j = (u * (i + 1)) >> 32
        perm[i], perm[j] = perm[j], perm[i]
    h = n // 2
    return sorted(perm[:h]), sorted(perm[h:])


def py_tau_b(x, y, tol=0.0):
    """Kendall tau-b by counting pairs (works on Fractions too)."""
    n = len(x)
    s = tx = ty = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            xt, yt = abs(dx) <= tol, abs(dy) <= tol
            tx += xt
            ty += yt
            if not xt and not yt:
                s += 1 if (dx > 0) == (dy > 0) else -1
    n0 = n * (n - 1) // 2
    if tx == n0 or ty == n0:
        return math.nan
    return min(1.0, max(-1.0, s / math.sqrt(n0 - tx) / math.sqrt(n0 - ty)))


def half_means(V, m, half, exact=False):
    """Each run's mean over the topics of ``half``, summed in ascending topic order (as the kernel does);
    ``exact``: as Fractions, for scores on a decimal grid (0.1 -> 1/10)."""
    out = []
    for r in range(V.shape[1]):
        if exact:
            out.append(sum((Fraction(V[m, r, t]).limit_denominator(1000) for t in half), Fraction(0)) / len(half))
        else:
            s = 0.0
            for t in half:
                s += float(V[m, r, t])
            out.append(s / len(half))
    return out


def naive_taus(V, seed, n_splits, tau=None, exact=False):
    """The B x M tau matrix, split by split, in plain Python."""
    tau = tau or (lambda x, y: scipy.stats.kendalltau(x, y, variant="b").statistic)
    M, _, T = V.shape
    out = np.empty((n_splits, M))
    for b in range(n_splits):
        first, second = topic_split(T, seed, b)
        for m in range(M):
            out[b, m] = tau(half_means(V, m, first, exact), half_means(V, m, second, exact))
    return out


def signal_and_noise(seed=0, n_runs=10, n_topics=30):
    """Metric 'signal' tracks a latent run quality; 'weak' tracks it less; 'noise' ignores it."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.0, 1.0, n_runs)
    signal = quality[:, None] + rng.normal(0, 0.4, (n_runs, n_topics))
    weak = 0.3 * quality[:, None] + rng.normal(0, 0.4, (n_runs, n_topics))
    noise = rng.normal(0, 0.4, (n_runs, n_topics))
    return np.stack([signal, weak, noise]), ["signal", "weak", "noise"]


# --------------------------------------------------------------------------- the splits

@pytest.mark.parametrize("n", [4, 5, 9, 43])
def test_topic_split_halves_match_the_documented_stream(n):
    for seed in (0, 7, 2**63 + 5):
        for b in (0, 1, 999):
            first, second = topic_split(n, seed, b)
            assert len(first) == n // 2 and len(second) == n - n // 2
            assert sorted(np.r_[first, second].tolist()) == list(range(n))
            assert (first.tolist(), second.tolist()) == py_split(n, seed, b)


def test_topic_split_depends_on_seed_and_split():
    splits = {tuple(topic_split(20, 3, b)[0]) for b in range(50)}
    assert len(splits) > 45
    assert topic_split(20, 3, 0)[0].tolist() != topic_split(20, 4, 0)[0].tolist()


@pytest.mark.parametrize("args, match", [
    ((1, 0, 0), "'n_topics' parameter must be an integer >= 2"),
    ((10, 0, -1), "'b' parameter must be an integer >= 0"),
    ((10, -3, 0), r"'seed' parameter must be an integer in \[0, 2\*\*64\)"),
])
def test_topic_split_bad_input(args, match):
    with pytest.raises(DiscpowerError, match=match):
        topic_split(*args)


# --------------------------------------------------------------------------- the kernel vs plain Python

@pytest.mark.slow
@pytest.mark.parametrize("shape", [(3, 5, 9), (2, 4, 4), (2, 7, 13)])
def test_taus_equal_a_plain_python_reimplementation_on_the_same_splits(shape):
    M, R, T = shape
    V = np.random.default_rng(sum(shape)).random(shape)
    res = split_half_consistency(V, [f"m{i}" for i in range(M)], n_splits=40, seed=11, n_trials=100)
    assert res.half_sizes == (T // 2, T - T // 2)
    np.testing.assert_array_equal(res.taus, naive_taus(V, res.seed, 40))


def test_ties_follow_exact_arithmetic_on_grid_scores():
    # scores on a 0.1 grid: exact ties between half means are common, and floating-point sums in
    # different orders miss some of them by an ulp; the kernel must agree with exact rational means
    rng = np.random.default_rng(5)
    V = rng.choice([0.0, 0.1, 0.2, 0.3, 0.7], size=(2, 8, 10))
    labels = ["g1", "g2"]
    res = split_half_consistency(V, labels, n_splits=60, seed=2, n_trials=100)
    exact = naive_taus(V, res.seed, 60, tau=py_tau_b, exact=True)
    np.testing.assert_array_equal(res.taus, exact)
    # the same with the tolerance switched off differs: the test has teeth
    raw = split_half_consistency(V, labels, n_splits=60, seed=2, n_trials=100, tie_tolerance=0.0)
    assert (raw.taus != exact).any()
    np.testing.assert_array_equal(raw.taus, naive_taus(V, res.seed, 60, tau=py_tau_b))


# --------------------------------------------------------------------------- determinism

def test_same_seed_identical_other_seed_different():
    V, labels = signal_and_noise()
    a = split_half_consistency(V, labels, n_splits=100, seed=42, n_trials=300)
    b = split_half_consistency(V, labels, n_splits=100, seed=42, n_trials=300)
    np.testing.assert_array_equal(a.taus, b.taus)
    np.testing.assert_array_equal(a.test.pvalue, b.test.pvalue)
    assert a.seed == 42 and a.test.seed == b.test.seed != 42
    c = split_half_consistency(V, labels, n_splits=100, seed=43, n_trials=300)
    assert not np.array_equal(a.taus, c.taus)
    # the first splits do not depend on how many are drawn
    np.testing.assert_array_equal(split_half_consistency(V, labels, n_splits=37, seed=42, n_trials=10).taus,
                                  a.taus[:37])
    # the Tukey part is randomised_tukey_hsd on the tau matrix with the recorded seed
    again = randomised_tukey_hsd(a.taus, n_trials=300, seed=a.test.seed, systems=labels)
    np.testing.assert_array_equal(again.pvalue, a.test.pvalue)


def test_none_seed_is_recorded_and_reproduces():
    V, labels = signal_and_noise()
    a = split_half_consistency(V, labels, n_splits=30, n_trials=50)
    b = split_half_consistency(V, labels, n_splits=30, seed=a.seed, n_trials=50)
    np.testing.assert_array_equal(a.taus, b.taus)
    g = split_half_consistency(V, labels, n_splits=30, seed=np.random.default_rng(1), n_trials=50)
    assert isinstance(g.seed, int)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs numba with at least 2 threads")
def test_results_independent_of_thread_count():
    V = np.random.default_rng(3).random((5, 9, 21))
    labels = [f"m{i}" for i in range(5)]
    before = numba.get_num_threads()
    try:
        results = []
        for threads in (1, 2):
            numba.set_num_threads(threads)
            results.append(split_half_consistency(V, labels, n_splits=203, seed=9, n_trials=500))
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(results[0].taus, results[1].taus)
    np.testing.assert_array_equal(results[0].test.pvalue, results[1].test.pvalue)


def test_progress_called_a_few_times_and_does_not_change_results():
    V, labels = signal_and_noise()
    calls = []
    res = split_half_consistency(V, labels, n_splits=500, seed=1, n_trials=100,
                                 progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 500) and calls[-1] == (500, 500)
    assert 3 <= len(calls) <= 12
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    plain = split_half_consistency(V, labels, n_splits=500, seed=1, n_trials=100)
    np.testing.assert_array_equal(res.taus, plain.taus)
    few = []
    split_half_consistency(V, labels, n_splits=3, seed=1, n_trials=10, progress=lambda d, t: few.append(d))
    # a first slice of one split, then the rest (one more slice if the first took over
    # SLICE_SECONDS / 2: the machine stalled the worker)
    assert few[0] == 0 and few[-1] == 3 and len(few) <= 4


# --------------------------------------------------------------------------- what it measures

def test_noise_metric_is_less_consistent_and_significantly_outperformed():
    V, labels = signal_and_noise(n_runs=20)
    res = split_half_consistency(V, labels, n_splits=300, seed=0, n_trials=1000)
    assert isinstance(res, SplitHalfConsistency) and isinstance(res.test, PairwiseTest)
    signal, weak, noise = res.mean_tau
    assert signal > weak > noise
    # on one fixed data set the halves share the runs' chance totals, so pure noise is not
    # exactly 0 (over data sets it averages 0); it stays well below a real signal
    assert abs(noise) < 0.3 and signal > 0.6
    assert res.test.pvalue[0, 2] < 0.05 and res.wins()[0, 2] and not res.wins()[2, 0]
    assert res.beaten == (("weak", "noise"), ("noise",), ()) and res.outperforms.tolist() == [2, 1, 0]
    np.testing.assert_allclose(res.mean_tau, res.taus.mean(axis=0), atol=1e-12)
    frame = res.to_frame()
    assert frame["metric"].tolist() == ["signal", "weak", "noise"]
    assert frame["beaten_ranks"].tolist() == ["2-3", "3", ""]
    assert frame["mean_tau"].is_monotonic_decreasing


@pytest.mark.parametrize("data_seed", [1, 2, 3])
def test_noise_metric_outperformed_on_other_data(data_seed):
    V, labels = signal_and_noise(seed=data_seed, n_runs=20)
    res = split_half_consistency(V, labels, n_splits=200, seed=data_seed, n_trials=500)
    assert res.outperforms.tolist() == [2, 1, 0]


def test_runs_subset_equals_sliced_values():
    V, labels = signal_and_noise()
    keep = [0, 2, 3, 5, 8, 9]
    a = split_half_consistency(V, labels, n_splits=50, seed=4, n_trials=50, runs=keep)
    b = split_half_consistency(V[:, keep], labels, n_splits=50, seed=4, n_trials=50)
    np.testing.assert_array_equal(a.taus, b.taus)
    assert a.n_runs == 6


def test_realistic_synthetic_collection():
    qrels, runs = cwla.synthetic.collection(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = cwla.evaluate(qrels, runs, cwla.chen_sakai_metrics(cutoff=10, depth=10, stop=True))
    res = split_half_consistency(ev, n_splits=200, seed=0, n_trials=500)
    M, R, T = ev.values.shape
    assert res.labels == ev.labels and res.taus.shape == (200, M) and (res.n_runs, res.n_topics) == (R, T)
    assert np.isfinite(res.taus).all() and (np.abs(res.taus) <= 1).all()
    assert res.mean_tau.max() > 0.7  # runs of graded quality: rankings agree across halves
    # Precision with ERG and with avg aggregation score identically in exact arithmetic
    p_erg, p_avg = 0, 2
    assert "Precision" in ev.labels[0] and "+ERG" in ev.labels[p_erg] and "+avg" in ev.labels[p_avg]
    np.testing.assert_array_equal(res.taus[:, p_erg], res.taus[:, p_avg])
    # a few splits and metrics against plain Python (means summed in topic order, ties within 1e-10)
    cols = [0, 5, 20, 38]
    reference = naive_taus(ev.values[cols], res.seed, 15, tau=lambda x, y: py_tau_b(x, y, 1e-10))
    np.testing.assert_array_equal(res.taus[:15, cols], reference)
    frame = res.to_frame()
    assert len(frame) == M and frame["mean_tau"].is_monotonic_decreasing
    assert (frame["outperforms"] <= M - 1).all()
    tex = res.to_latex()
    assert tex.count("\\\\") == M + 1 and "Mean $\\tau$" in tex


def test_dl19_sized_input_shapes():
    # timing lives in benchmarks/bench_tukey.py, not in unit tests
    V = np.random.default_rng(0).random((39, 37, 43))
    labels = [f"m{i}" for i in range(39)]
    res = split_half_consistency(V, labels, n_splits=1000, seed=0, n_trials=200)
    assert res.taus.shape == (1000, 39) and res.half_sizes == (21, 22)


# --------------------------------------------------------------------------- outputs

def test_to_frame_latex_plot_and_properties():
    V, labels = signal_and_noise()
    res = split_half_consistency(V, ["sig_nal", "weak", "noise"], n_splits=100, seed=0, n_trials=300)
    frame = res.to_frame()
    assert list(frame.columns) == ["rank", "metric", "mean_tau", "std_tau", "outperforms", "beaten_ranks"]
    assert frame["rank"].tolist() == [1, 2, 3]
    np.testing.assert_allclose(frame["std_tau"], res.taus.std(axis=0, ddof=1)[res.order()])
    tex = res.to_latex()
    assert "sig\\_nal" in tex and "Significantly outperforms ($\\alpha = 0.05$)" in tex
    assert "100 splits of 30 topics into 15 + 15" in tex
    assert res.n_splits == 100 and res.half_sizes == (15, 15)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = res.plot()
    assert [t.get_text() for t in ax.get_xticklabels()] == frame["metric"].tolist()
    plt.close("all")


def test_two_splits_and_odd_topic_count():
    V, labels = signal_and_noise(n_topics=9)
    res = split_half_consistency(V, labels, n_splits=2, seed=0, n_trials=20)
    assert res.half_sizes == (4, 5) and res.taus.shape == (2, 3)


def testcompact_ranks():
    assert compact_ranks([]) == ""
    assert compact_ranks([9, 3, 5, 6, 7]) == "3, 5-7, 9"
    assert compact_ranks([4]) == "4"


# --------------------------------------------------------------------------- bad input

GOOD = np.random.default_rng(0).random((2, 5, 6))


@pytest.mark.parametrize("kwargs, match", [
    (dict(values=GOOD.mean(axis=2)), r"must be 3-dimensional \(metrics x runs x topics\), got 2 dimension"),
    (dict(values=np.where(np.arange(6) == 4, np.inf, GOOD)), r"non-finite score \(inf\) at index \(0, 0, 4\)"),
    (dict(values=GOOD[:1], labels=["a"]), r"has 1 metric\(s\); this needs at least 2"),
    (dict(values=GOOD[:, :2]), r"has 2 run\(s\) \(systems\); this needs at least 3"),
    (dict(values=GOOD[:, :, :3]), r"has 3 topic\(s\); this needs at least 4"),
    (dict(labels=["a", "b", "c"]), "3 labels for 2 metrics"),
    (dict(labels=["a", "a"]), "labels must be unique"),
    (dict(labels=None), "labels are required"),
    (dict(n_splits=0), "'n_splits' parameter must be an integer >= 2. Got 0"),
    (dict(n_splits=1), "'n_splits' parameter must be an integer >= 2. Got 1 "),
    (dict(n_splits=1.5), "'n_splits' parameter must be an integer >= 2. Got 1.5"),
    (dict(n_splits=True), "'n_splits' parameter must be an integer >= 2. Got True"),
    (dict(n_trials=0), "'n_trials' parameter must be an integer >= 1"),
    (dict(alpha=1.5), "'alpha' parameter must be a number in the open interval"),
    (dict(seed=-1), r"'seed' parameter must be an integer in \[0, 2\*\*64\)"),
    (dict(progress="bar"), "progress must be None or a callable"),
    (dict(tie_tolerance=-1.0), "'tie_tolerance' parameter must be a finite number >= 0"),
    (dict(runs=[0, 1, 7]), "run index out of range"),
    (dict(runs=[0, 1]), r"has 2 run\(s\)"),
])
def test_bad_input(kwargs, match):
    args = dict(values=GOOD, labels=["a", "b"], n_splits=10, n_trials=10, seed=0)
    args.update(kwargs)
    with pytest.raises(DiscpowerError, match=match):
        split_half_consistency(args.pop("values"), **args)


def test_metric_that_ties_every_run_is_refused_by_name():
    V = GOOD.copy()
    V[1] = 0.25
    with pytest.raises(DiscpowerError, match=r"tau-b is undefined .*'b' \(10 of 10 splits\).*drop such metrics"):
        split_half_consistency(V, ["a", "b"], n_splits=10, seed=0, n_trials=10)


# --------------------------------------------------------------------------- counts against the number of splits

def _close_metrics(seed=0, n_runs=8, n_topics=24):
    """Five metrics with slightly different noise around one run quality: small differences in mean tau, which
    more splits make 'significant' (the splits are halves of one topic set, not new topics)."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.0, 1.0, n_runs)
    V = np.stack([quality[:, None] + rng.normal(0, s, (n_runs, n_topics)) for s in (0.5, 0.55, 0.6, 0.65, 0.7)])
    return V, ["m50", "m55", "m60", "m65", "m70"]


def test_outperforms_by_splits_is_the_analysis_on_the_first_k_splits():
    V, labels = _close_metrics()
    full = split_half_consistency(V, labels, n_splits=240, seed=3, n_trials=300)
    by = outperforms_by_splits(full, [30, 240])
    assert list(by.columns) == ["n_splits", "family", "metric", "mean_tau", "outperforms"]
    for k in (30, 240):
        alone = split_half_consistency(V, labels, n_splits=k, seed=3, n_trials=300)
        rows = by[by.n_splits == k].set_index("metric")
        assert rows.loc[labels, "outperforms"].tolist() == alone.outperforms.tolist()
        np.testing.assert_array_equal(rows.loc[labels, "mean_tau"].to_numpy(), alone.mean_tau)
    assert by[by.n_splits == 240].outperforms.tolist() == full.outperforms.tolist()


def test_the_counts_grow_with_the_splits_on_one_topic_set():
    V, labels = _close_metrics()
    full = split_half_consistency(V, labels, n_splits=2000, seed=1, n_trials=500)
    totals = outperforms_by_splits(full, [20, 2000]).groupby("n_splits").outperforms.sum()
    assert totals[2000] > totals[20]
    assert "outperforms grows with the splits" in repr(full)


def test_outperforms_by_splits_within_families_and_its_errors():
    from discpower.metrics.families import family_consistency

    V, labels = _close_metrics()
    full = split_half_consistency(V, labels, n_splits=100, seed=2, n_trials=300)
    families = {"low": ("m50", "m55", "m60"), "high": ("m65", "m70")}
    by = outperforms_by_splits(full, [100], families)
    table = family_consistency(full, families).to_frame().set_index("metric")
    assert by.set_index("metric").outperforms.to_dict() == table.outperforms.to_dict()
    assert by.family.tolist() == ["low"] * 3 + ["high"] * 2
    for bad in ([1], [101], [], 50, [2.5], "100", [True]):
        with pytest.raises(DiscpowerError, match=r"splits must be a non-empty list of integers in \[2, 100\]"):
            outperforms_by_splits(full, bad)
