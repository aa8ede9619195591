"""The ``discpower`` command.

Usage::

    discpower tukey MATRIX.tsv [--trials B] [--seed S] [--no-plus-one] [--format tsv|jsonl|markdown]
    discpower meta QRELS RUN [RUN ...] -m METRIC [-m METRIC ...] [--gain G] [--cutoff K] [--depth H] [--stop]
                   [--trials B] [--test T] [--splits N] [--alpha A] [--seed S] [--families model|all] [--figures DIR]
                   [--format tsv|jsonl|markdown] [--quiet]
    discpower compare-qrels --truth GT --candidate CAND RUN [RUN ...] -m METRIC [--gain G] [--cutoff K] [--depth H]
                   [--stop] [--order O] [--trials B] [--alpha A] [--seed S] [--test T] [--correction C]
                   [--direction-aware] [--pairs FILE] [--format tsv|jsonl|markdown] [--quiet]
    discpower compare QRELS RUN [RUN ...] -m METRIC [-m METRIC ...] [--gain G] [--cutoff K] [--depth H] [--stop]
                   [--baseline RUN ...] [--test T] [--correction C] [--ci] [--booktabs] [--alpha A] [--trials B] [--seed S] [--no-plus-one]
                   [--format tsv|jsonl|markdown|latex] [--digits N] [--quiet]

Every command prints a report (:mod:`cwla.bridges.report`) that starts with what was computed
(metric, test, B, alpha, seed, topics, runs) and names its measures in words once: ``#`` lines
before the TSV table (the default), a header record in ``--format jsonl``, a list in
``--format markdown``. Progress (reading, compiling, resampling) is drawn on stderr when it is a
terminal, never into a pipe; ``--quiet`` turns it off.

Every command that scores runs takes ``cwla eval``'s options (``--gain``, ``--cutoff``, ``--depth``,
``--stop``, ``--order``, ``-l``, ``-M``, ``-J``, ``--ties``) and builds one ``cwla.Evaluator`` with them.
``tukey`` reads a matrix (a header line of system names, then one line of
scores per topic) and prints TSV ``system_a, system_b, diff, pvalue`` (diff =
mean a - mean b) for every pair. ``meta`` scores the runs with cwla and prints
the meta-evaluation report: per metric discriminative power, Delta_alpha,
split-half mean tau and how many metrics it significantly outperforms; then the
split-half comparison within test families (Chen & Sakai's Table 3: one family per
browsing model for their grid, ``--families``) and the Kendall tau-b matrix between
the metrics' system rankings. ``compare-qrels``
prints ``measure, value`` lines (TP, TN, FP, FN, 1P, 1R, 2P, 2R, BAC, MCC, ...).
``compare`` prints the systems' comparison table (:func:`discpower.reports.systems.compare_systems`): per
metric and system the mean, its confidence interval and the significance marks -- against
``--baseline`` (a run name, or one of the RUN files as given) with ``--correction`` over the
comparisons with it, or of all pairs (default: the studentised-permutation max-t, ``perm-max-t``) -- as tidy TSV
(one line per metric and system), a Markdown table or a LaTeX table.

No output (``--pairs FILE``, ``--figures DIR``) may be one of the input files: that is refused
before anything is read or written, and files are written whole (a temporary file renamed into
place). ``--trials`` and ``--splits`` are checked against the available memory first. An option
that takes one value (``-m`` of ``compare-qrels``, ``--truth``, ``--candidate``, ``--pairs``,
``--figures``) may be given once. ``--figures`` needs matplotlib (``pip install 'cwla[plots]'``): without it
the command says so before anything is read.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import pandas as pd

from cwla import __version__
from cwla.bridges.arguments import (add_option_arguments, add_quiet_argument, add_scoring_arguments,
                                    evaluation_options, scoring_options)
from cwla.bridges.cli import as_program, run_command, topic_notes
from cwla.bridges.report import FORMATS, Report, render
from cwla.data.files import atomic_write, atomic_write_text, check_outputs

from .._plots import pyplot
from ..errors import DiscpowerError
from ..stats.registry import FAMILY_WISE, NAMES, check_test, resamples, words_of
from ..qrels.generators import GENERATORS
from ..stats.corrections import CORRECTIONS, correction_name, nearest_corrections

__all__ = ["main"]

#: what --correction accepts, as its help says it
_CORRECTION_CHOICES = (f"none (default), {', '.join(c for c in CORRECTIONS if c)}, or statsmodels' aliases of them "
                       f"(hs, fdr_i, ...)")
#: the generators the sweep command names
GENERATOR_NAMES = tuple(GENERATORS)

PROG = "discpower"


class Once(argparse.Action):
    """An option that may be given once: a second occurrence is a usage error (not "the last one wins",
    which would silently drop the first)."""

    def __call__(self, parser, namespace, values, option_string=None):
        seen = f"_given_{self.dest}"
        if getattr(namespace, seen, None) is not None:
            raise argparse.ArgumentError(self, f"given twice ({getattr(namespace, seen)!r} and {values!r}); "
                                               f"this option takes one value (run the command once per value)")
        setattr(namespace, seen, values)
        setattr(namespace, self.dest, values)


def main(argv=None) -> int:
    """Run the ``discpower`` command; returns the exit code (2 on a usage or input error)."""
    return run_command(_parser(), argv, PROG)


def program() -> int:
    """The ``discpower`` program (its console script, ``python -m discpower``): :func:`main`
    :func:`~cwla.bridges.cli.as_program`."""
    return as_program(main)


def add_resampling_arguments(p: argparse.ArgumentParser, trials: int, trials_help: str, *,
                             alpha: str | None = "significance level", plus_one: bool = False) -> None:
    """The options every resampling command shares, declared once: ``--trials B`` (default ``trials``;
    ``trials_help`` says what a trial is), ``--alpha A`` (default 0.05; ``alpha`` is its help, None: no such
    option), ``--seed S`` (default 0) and, with ``plus_one``, ``--plus-one/--no-plus-one``."""
    p.add_argument("--trials", type=int, default=trials, metavar="B", help=f"{trials_help} (default {trials})")
    if alpha is not None:
        p.add_argument("--alpha", type=float, default=0.05, metavar="A", help=f"{alpha} (default 0.05)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    if plus_one:
        p.add_argument("--plus-one", action=argparse.BooleanOptionalAction, default=True,
                       help="randomised p = (count + 1) / (B + 1), never 0 (default; Phipson & Smyth 2010); "
                            "--no-plus-one: count / B")


def add_test_arguments(p: argparse.ArgumentParser, default: str, default_help: str, *,
                       correction: str | None = None) -> None:
    """``--test TEST`` (default ``default``, which ``default_help`` explains) and, where ``correction`` says over
    which comparisons it corrects, ``--correction C``: the choice of the pairwise test, declared once."""
    p.add_argument("--test", default=default, type=_test_name, metavar="TEST",
                   help=f"the pairwise test: {', '.join(NAMES)}, or a test that is not family-wise with a "
                        f"correction, e.g. t-test-holm (default {default}: {default_help})")
    if correction is not None:
        p.add_argument("--correction", default="none", type=_correction_choice, metavar="C",
                       help=f"multiple-comparison correction of a per-pair test's p-values {correction} "
                            f"(statsmodels' names, bh = fdr_bh; the same as --test TEST-CORRECTION; none with a "
                            f"family-wise test: {', '.join(FAMILY_WISE)}): {_CORRECTION_CHOICES}")


def add_truth_arguments(p: argparse.ArgumentParser, metrics_help: str) -> None:
    """What the commands that compare qrels with a ground truth share, declared once: ``--truth QRELS``, the
    ``RUN`` files, ``-m METRIC`` (default nDCG@10; ``metrics_help`` says what several give) and the scoring
    options."""
    p.add_argument("--truth", required=True, metavar="QRELS", action=Once, help="ground-truth qrels")
    p.add_argument("runs", metavar="RUN", nargs="+", help="run files")
    p.add_argument("-m", "--metric", dest="metrics", metavar="METRIC", action="append",
                   help=f"a metric (default nDCG@10); repeatable: {metrics_help}")
    add_option_arguments(p)


def add_output_argument(p: argparse.ArgumentParser, flag: str, what: str, metavar: str = "FILE") -> None:
    """An option naming where to write ``what`` besides the report (once; a FILE is never one of the inputs)."""
    p.add_argument(flag, metavar=metavar, action=Once,
                   help=f"also write {what}" + ("; not an input file" if metavar == "FILE" else ""))


def add_format_argument(p: argparse.ArgumentParser, choices: tuple = FORMATS, help: str | None = None) -> None:
    """``--format`` (default tsv) of a command's report, declared once; ``help`` says more than the choices."""
    p.add_argument("--format", default="tsv", choices=choices,
                   help=help or f"{', '.join(choices[:-1])} or {choices[-1]} (default tsv)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Meta-evaluation of IR metrics: randomised Tukey HSD, "
                                     "discriminative power, ranking similarity, split-half consistency.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    t = commands.add_parser("tukey", help="paired randomised Tukey HSD on a topics x systems matrix",
                            description="Paired randomised Tukey HSD (Carterette 2012; Sakai 2018) on a matrix "
                                        "file: a header line of system names, then one line of scores per topic "
                                        "(tabs or spaces). Prints TSV: system_a, system_b, diff, pvalue.")
    t.add_argument("matrix", metavar="MATRIX", help="the topics x systems score matrix")
    add_resampling_arguments(t, 10_000, "random relabellings", alpha=None, plus_one=True)
    add_format_argument(t)
    add_quiet_argument(t)
    t.set_defaults(func=_cmd_tukey)

    m = commands.add_parser("meta", help="meta-evaluate metrics on TREC qrels and runs",
                            description="Score the runs with cwla, then report per metric: discriminative power "
                                        "at alpha (--test: the randomised Tukey HSD by default), Delta_alpha, "
                                        "split-half consistency; and "
                                        "Kendall tau-b between the metrics' system rankings.")
    add_scoring_arguments(m, default_metric=None)
    add_resampling_arguments(m, 2000, "trials of the test per metric")
    add_test_arguments(m, "tukey", "the published meta-evaluations' test; perm-max-t holds alpha under the "
                                   "data-based nulls, docs/calibration.md")
    m.add_argument("--splits", type=int, default=1000, metavar="N", help="split-half trials (1000; 0 skips)")
    m.add_argument("--families", choices=("model", "all"), default=None,
                   help="test families: one per browsing model, or all metrics in one (default: per model "
                        "for Chen & Sakai's grid names, else all)")
    add_format_argument(m)
    add_output_argument(m, "--figures", "asl.png and similarity.png into DIR (created if needed)", "DIR")
    m.set_defaults(func=_cmd_meta)

    c = commands.add_parser("compare-qrels", help="compare candidate qrels with ground-truth qrels",
                            description="Score the runs under the ground truth and the candidate qrels with one "
                                        "metric, run the same test on each and print the agreement measures "
                                        "(McKechnie et al. 2025; Otero et al. 2023) as TSV: measure, value.")
    add_truth_arguments(c, "every candidate is compared under every metric, in one table with a candidate and a "
                           "metric column")
    c.add_argument("--candidate", required=True, metavar="QRELS", action="append",
                   help="candidate qrels; repeatable (the runs are read once for all of them)")
    add_test_arguments(c, "tukey", "the published qrels comparisons' test; perm-max-t holds alpha under the "
                                   "data-based nulls, docs/calibration.md", correction="over all pairs")
    add_resampling_arguments(c, 10_000, "trials of the resampling tests")
    c.add_argument("--direction-aware", action="store_true",
                   help="a pair significant under both with opposite signs counts as FP")
    c.add_argument("--kappa-threshold", type=float, metavar="G", help="Cohen's kappa on binary labels (grade >= G)")
    c.add_argument("--kappa-weights", choices=("linear", "quadratic"), help="weighted Cohen's kappa")
    c.add_argument("--topics", choices=("common", "truth"), default="common",
                   help="common (default): test the truth on the candidate's topics too; truth: on all its topics")
    add_format_argument(c, help="tsv (default: '#' lines saying what was computed and what each measure means, then "
                        "'measure<TAB>value'), jsonl (a header record, then one record per measure) or markdown")
    add_output_argument(c, "--pairs", "the pair-level detail (TSV) to FILE ('-': stdout)")
    c.set_defaults(func=_cmd_compare)

    w = commands.add_parser("sweep", help="compare a grid of generated candidate qrels with the ground truth",
                            description="Build candidate qrels from the ground truth with the generators (sampled "
                                        "judgements, topic subsets, shallower pools, popularity labels) at each "
                                        "parameter, --repetitions times, and compare each with the ground truth "
                                        "as compare-qrels does (the runs read once). Prints the mean of each "
                                        "agreement measure per generator and parameter (and metric).")
    add_truth_arguments(w, "a metric column")
    w.add_argument("--generator", dest="generators", metavar="NAME", action="append", type=_generator_name,
                   help=f"a generator, repeatable: {', '.join(GENERATOR_NAMES)} (default sampling)")
    w.add_argument("--parameters", type=_parameter_list, default=None, metavar="P1,P2,...",
                   help="the generators' parameter values, comma-separated: sampling rates or topic fractions in "
                        "(0, 1], pool depths or top-k as integers (default 0.1,0.2,...,1.0)")
    w.add_argument("--repetitions", type=int, default=10, metavar="R", help="draws per parameter (10)")
    w.add_argument("--candidate", metavar="QRELS", action="append",
                   help="also compare these qrels as they are (e.g. LLM labels); repeatable")
    add_test_arguments(w, "tukey", "the test of compare-qrels")
    add_resampling_arguments(w, 10_000, "trials of each test")
    add_format_argument(w)
    add_output_argument(w, "--frame", "the tidy frame (one row per cell, repetition and measure) as TSV to FILE")
    w.set_defaults(func=_cmd_sweep)

    s = commands.add_parser("compare", help="compare systems: means, CIs and significance marks per metric",
                            description="Score the runs with cwla and print, per metric and system, the mean over "
                                        "the topics, its t-based 1 - alpha confidence interval (with --baseline "
                                        "also the paired effect size d_z against it) and significance: against --baseline (each run vs the baseline, "
                                        "--correction over those comparisons) or of all pairs (default: the "
                                        "studentised-permutation max-t, family-wise over all pairs). As TSV "
                                        "(default), Markdown or LaTeX.")
    add_scoring_arguments(s, default_metric=None)
    s.add_argument("--baseline", metavar="RUN", action="append",
                   help="a baseline run: its name (file name without .gz) or one of the RUN files as given; "
                        "repeatable (each baseline against every other run, one family per metric); "
                        "default: compare all pairs")
    add_test_arguments(s, "perm-max-t", "the studentised-permutation max-t, family-wise over all pairs; tukey: "
                                        "the paired randomised Tukey HSD",
                       correction="per metric, over the comparisons with the baselines or all pairs")
    add_resampling_arguments(s, 10_000, "trials of the resampling tests",
                             alpha="significance level; the intervals are 1 - A", plus_one=True)
    add_format_argument(s, ("tsv", "jsonl", "markdown", "latex"),
                        help="tsv (default; '#' lines saying what was computed, then one line per metric and system), "
                        "jsonl, markdown or latex (a table float)")
    s.add_argument("--ci", action="store_true",
                   help="markdown and latex: print each mean's 1 - alpha confidence interval (mean ± half-width)")
    s.add_argument("--booktabs", action="store_true",
                   help="latex: booktabs rules (\\toprule, \\midrule, \\bottomrule; \\usepackage{booktabs})")
    s.add_argument("--digits", type=int, default=4, metavar="N",
                   help="decimals of the means in the markdown and latex tables (default 4)")
    s.set_defaults(func=_cmd_compare_systems)
    return parser


def _cmd_tukey(args) -> int:
    from ..stats.matrix import finite_sums, score_matrix
    from ..stats.memory import null_trials
    from ..stats.rng import seed_value
    from ..stats.tukey import tukey_test
    from .io import read_matrix

    B = null_trials(args.trials)  # the command's one memory check, before the matrix is read
    X, systems = read_matrix(args.matrix)
    X, systems = score_matrix(X, systems=systems)
    finite_sums(X, "randomised Tukey HSD")
    result = tukey_test(X, systems, B, seed_value(args.seed), plus_one=args.plus_one)
    frame = result.to_frame()[["system_a", "system_b", "diff", "pvalue"]]
    pvalue = "(count + 1) / (B + 1) (--no-plus-one: count / B)" if args.plus_one else "count / B"
    report = Report(f"discpower tukey: paired randomised Tukey HSD of every pair of {len(systems)} systems",
                    facts=[("matrix", args.matrix), ("topics", X.shape[0]), ("systems", len(systems)),
                           ("test", f"randomised Tukey HSD, B = {B} trials, seed {args.seed}")],
                    glossary=[("diff", "mean of system_a minus mean of system_b over the topics"),
                              ("pvalue", f"share of the B relabellings whose range of means reaches |diff|: "
                                         f"{pvalue}; family-wise over all pairs")],
                    tables=[("pairs", frame)])
    sys.stdout.write(render(report, args.format))
    return 0


def _cmd_meta(args) -> int:
    from ..metrics.meta import meta_evaluate

    metrics, options = scoring_options(args, default_metric=None)
    if args.figures:  # before any file is read: the figures can be written, and drawn (matplotlib is there)
        check_outputs([("--figures", os.path.join(args.figures, name)) for name in FIGURES], _inputs(args))
        pyplot(FIGURES_OPTION, "Agg")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = meta_evaluate(args.qrels, args.runs, metrics, n_trials=args.trials, n_splits=args.splits,
                               alpha=args.alpha, seed=args.seed, progress=None,
                               families=args.families, test=args.test, **options)
    tables = [("per metric: discriminative power, Delta_alpha, split-half consistency", report.to_frame())]
    if report.family_consistency is not None:
        tables.append(("split-half consistency within each family (Chen & Sakai's Table 3): rank and metrics of "
                       "its family it significantly outperforms", report.table3()))
    tables.append(("Kendall tau-b between the metrics' system rankings", report.similarity.to_frame()))
    facts = [("qrels", args.qrels), ("runs", len(report.evaluation.runs)), ("topics", len(report.evaluation.topics)),
             ("metrics", len(report.labels)), ("test", _meta_test_words(args)),
             ("alpha", args.alpha), ("split-half", f"{args.splits} splits"), ("seed", args.seed)]
    glossary = [("dp", f"discriminative power: the share of run pairs with p < alpha ({words_of(args.test)})"),
                ("delta", _delta_words(args.test)),
                ("mean_tau", "split-half consistency: the mean Kendall tau-b between the run rankings on the two "
                             "halves of each random split of the topics"),
                ("outperforms", "metrics this one beats in consistency (higher mean tau, p < alpha in a Tukey HSD "
                                "over the splits); the splits overlap, so these counts describe this topic set "
                                "and grow with --splits: they are not inference about other topics")]
    text = render(Report(f"discpower meta: meta-evaluation of {len(report.labels)} metrics", facts=facts,
                         glossary=glossary, tables=tables), args.format, digits=4)
    sys.stdout.write(text)
    if args.figures:
        _figures(report, args.figures)
    for w in caught:
        print(f"{PROG}: warning: {w.message}", file=sys.stderr)
    for line in topic_notes(report.evaluation, PROG):
        print(line, file=sys.stderr)
    return 0


def _cmd_compare(args) -> int:
    from ..qrels.compare import MEANINGS, QrelsComparer

    check_outputs([("--pairs", args.pairs)], _inputs(args))
    test = check_test(args.test, correction=None if args.correction == "none" else args.correction)
    candidates = _given_once(args.candidate, "--candidate")
    metrics = _given_once(args.metrics or ["nDCG@10"], "-m")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        comparer = QrelsComparer.build(args.truth, args.runs, metrics, test=test, alpha=args.alpha,
                                       n_trials=args.trials, seed=args.seed, direction_aware=args.direction_aware,
                                       kappa_threshold=args.kappa_threshold, kappa_weights=args.kappa_weights,
                                       topics=args.topics, **evaluation_options(args))
        results = {candidate: comparer.compare_all(candidate) for candidate in candidates}  # each joined once
    one = len(candidates) == 1 and len(comparer.labels) == 1
    rows = [(candidate, label, result) for candidate, by_metric in results.items()
            for label, result in by_metric.items()]
    first = rows[0][2]
    n_truth = len(comparer.truth_evaluation.topics)
    facts = [("ground truth (G)", args.truth)]
    facts += [("candidate (C)", candidates[0])] if len(candidates) == 1 else \
        [(f"candidate {k + 1}", path) for k, path in enumerate(candidates)]
    facts += [(f"metric {label}" if len(comparer.labels) > 1 else "metric", f"{label} = {metric}")
              for label, metric in zip(comparer.labels, comparer.evaluator.metrics)]
    facts += [("test", _test_words(first.truth_test, args)), ("alpha", f"{args.alpha:g} (significant: p < alpha)"),
              ("runs", f"{len(first.truth_means)} ({first.measures['pairs']} pairs)"),
              ("topics", _topics_words(args, first.measures, n_truth, len(candidates)))]
    if args.direction_aware:
        facts.append(("direction-aware", "a pair significant under both in opposite directions is an FP"))
    table = _measures_table(rows, labelled=not one)
    report = Report("discpower compare-qrels: do the candidate qrels (C) lead to the ground truth's (G) "
                    "significance decisions?", facts=facts,
                    glossary=[(measure, MEANINGS[measure]) for measure in first.measures if measure in MEANINGS],
                    tables=[("measures" if one else "measures of each candidate under each metric", table)])
    sys.stdout.write(render(report, args.format))
    if args.pairs:
        pairs = [r.pairs if one else r.pairs.assign(candidate=c, metric=m)[["candidate", "metric", *r.pairs.columns]]
                 for c, m, r in rows]
        text = pd.concat(pairs, ignore_index=True).to_csv(sep="\t", index=False, float_format="%.6f")
        if args.pairs == "-":
            sys.stdout.write("\n" + text)
        else:
            atomic_write_text(args.pairs, text)
    for w in caught:
        print(f"{PROG}: warning: {w.message}", file=sys.stderr)
    for candidate, by_metric in results.items():
        m = next(iter(by_metric.values())).measures
        if m["topics_candidate"] != n_truth:
            print(f"{PROG}: note: {'the candidate' if len(candidates) == 1 else candidate} judges "
                  f"{m['topics_candidate']} of the ground truth's {n_truth} topics; the ground truth is tested on "
                  f"{m['topics_truth']}", file=sys.stderr)
    return 0


def _cmd_sweep(args) -> int:
    from ..qrels.sweeps import PARAMETERS, sweep

    check_outputs([("--frame", args.frame)], _inputs(args))
    test = check_test(args.test)
    metrics = _given_once(args.metrics or ["nDCG@10"], "-m")
    generators = _given_once(args.generators or ["sampling"], "--generator")
    candidates = {path: path for path in _given_once(args.candidate or [], "--candidate")}
    integral = [g for g in generators if g in ("pooling", "popularity")]
    if args.parameters is None and integral:
        raise DiscpowerError(f"--generator {integral[0]} takes pool depths or top-k (integers): give --parameters "
                         f"(e.g. 10,20,50); the default {','.join(f'{p:g}' for p in PARAMETERS)} is sampling rates")
    parameters = args.parameters if args.parameters is not None else PARAMETERS
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = sweep(args.truth, args.runs, metrics if len(metrics) > 1 else metrics[0], generators=generators,
                       parameters=parameters, repetitions=args.repetitions, candidates=candidates or None, test=test,
                       alpha=args.alpha, n_trials=args.trials, seed=args.seed, **evaluation_options(args))
    table = result.table().reset_index()
    failed = int((result.frame.drop_duplicates(result._keys() + ["repetition"])["status"] != "ok").sum())
    facts = [("ground truth (G)", args.truth), ("runs", str(len(args.runs))),
             ("metric", ", ".join(metrics)), ("generators", ", ".join(generators)),
             ("parameters", ", ".join(f"{p:g}" for p in parameters)), ("repetitions", str(args.repetitions))]
    facts += [(f"candidate {k + 1}", path) for k, path in enumerate(candidates)]
    facts += [("test", f"{words_of(test)}" + (f", B = {args.trials} trials" if resamples(test) else "")
               + f", seed {args.seed}"), ("alpha", f"{args.alpha:g} (significant: p < alpha)"),
              ("cells not compared", f"{failed} (their measures are NaN; --frame's status says why)")]
    report = Report("discpower sweep: how close do generated candidate qrels come to the ground truth's "
                    "significance decisions?", facts=facts,
                    glossary=[("values", "the mean of each measure over the repetitions (compare-qrels --help "
                                         "and docs/discpower.md say what each measure is)")],
                    tables=[("mean of each measure per generator and parameter", table)])
    sys.stdout.write(render(report, args.format))
    if args.frame:
        atomic_write_text(args.frame, result.frame.to_csv(sep="\t", index=False, float_format="%.6f"))
    for w in caught:
        print(f"{PROG}: warning: {w.message}", file=sys.stderr)
    return 0


def _generator_name(text: str) -> str:
    if text not in GENERATOR_NAMES:
        raise argparse.ArgumentTypeError(f"unknown generator {text!r}; accepted: {', '.join(GENERATOR_NAMES)}")
    return text


def _parameter_list(text: str) -> list:
    """``0.1,0.5,1`` -> [0.1, 0.5, 1]: integers stay integers (pool depths, top-k), the rest are floats."""
    values = []
    for part in text.split(","):
        part = part.strip()
        try:
            values.append(int(part) if part.lstrip("-").isdigit() else float(part))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected comma-separated numbers (e.g. 0.1,0.5,1), got {part!r} "
                                             f"in {text!r}") from None
    return values


def _correction_choice(text: str) -> str:
    """--correction: none, or a correction by cwla's or statsmodels' name (``hs``: holm-sidak), canonical."""
    name = "none" if text == "none" else correction_name(text)
    if name is None:
        near = nearest_corrections(text)
        hint = f"did you mean {' or '.join(repr(c) for c in near)}? " if near else ""
        raise argparse.ArgumentTypeError(f"unknown correction {text!r}; {hint}accepted: {_CORRECTION_CHOICES}")
    return name


def _given_once(values: list[str], flag: str) -> list[str]:
    """A repeatable option's values, each at most once (a value given twice is a usage error, not a repeat)."""
    twice = sorted({v for v in values if values.count(v) > 1})
    if twice:
        raise DiscpowerError(f"{flag} {twice[0]!r} given twice; give each value once")
    return list(values)


def _measures_table(rows: list, labelled: bool) -> pd.DataFrame:
    """compare-qrels' table: measure and value (with a candidate and a metric column when there are several)."""
    from ..qrels.compare import COUNTS

    frames = []
    for candidate, label, result in rows:
        m = result.measures
        values = [int(value) if measure in COUNTS else float(value) for measure, value in m.items()]
        frame = pd.DataFrame({"measure": list(m), "value": pd.Series(values, dtype=object)})
        frames.append(frame.assign(candidate=candidate, metric=label)[["candidate", "metric", "measure", "value"]]
                      if labelled else frame)
    return pd.concat(frames, ignore_index=True)


def _topics_words(args, m: dict, n_truth: int, n_candidates: int) -> str:
    """compare-qrels' topics line: which topics each side is tested on."""
    if n_candidates > 1:
        return (f"G judges {n_truth}; each C is tested with G on its own topics (topics_candidate)" if args.topics ==
                "common" else f"G tested on all its {n_truth}, each C on its own (--topics truth)")
    if args.topics == "common":
        return (f"G judges {n_truth}, C {m['topics_candidate']}: both tested on C's {m['topics_candidate']}"
                + ("" if m["topics_candidate"] == n_truth else " (--topics truth tests G on all its topics)"))
    return f"G tested on all its {m['topics_truth']}, C on its {m['topics_candidate']} (--topics truth)"


def _delta_words(test: str) -> str:
    """What meta's delta column holds for its test."""
    if test == "tukey":
        return ("Delta_alpha: the (1 - alpha) quantile of the test's null distribution, the smallest difference of "
                "means that reaches p < alpha")
    if resamples(test):
        return ("the (1 - alpha) quantile of the test's null distribution, in the units of its statistic (for a "
                "max-t test a critical paired |t|, not a difference of means)")
    return "empty: the test has no null distribution to take a quantile of"


def _meta_test_words(args) -> str:
    """meta's test as its report names it: B where it resamples; the Tukey HSD as the papers' test, beside
    the one that holds alpha."""
    words = words_of(args.test)
    if resamples(args.test):
        words += f", B = {args.trials} trials per metric"
    if args.test == "tukey":
        words += ("; the published meta-evaluations' test, kept for comparability (--test perm-max-t holds the "
                  "family-wise error under the data-based nulls: docs/calibration.md)")
    return words


def _test_name(text: str) -> str:
    """--test checked: a test's name (discpower.stats.registry), its canonical spelling."""
    try:
        return check_test(text, callables=False)  # (a command line names a test: no callable)
    except DiscpowerError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _test_words(test, args) -> str:
    """The test as a report names it: its method, B and seed where it resamples."""
    words = test.method
    if test.n_resamples:
        words += f", B = {test.n_resamples} trials, seed {args.seed}"
    return words


def _cmd_compare_systems(args) -> int:
    from cwla import run_name

    from .systems import compare_systems

    if (args.ci or args.booktabs) and args.format in ("tsv", "jsonl"):
        raise DiscpowerError(f"--ci and --booktabs shape the markdown and latex tables; --format {args.format} prints "
                         f"the intervals in its ci_low, ci_high columns already")
    if args.booktabs and args.format != "latex":
        raise DiscpowerError("--booktabs applies to --format latex")
    if not 0 <= args.digits <= 15:
        raise DiscpowerError(f"--digits must be an integer in [0, 15], got {args.digits}")
    metrics, options = scoring_options(args, default_metric=None)
    baselines = [run_name(b) if b in args.runs else b for b in args.baseline or ()]  # a RUN file names its run
    baseline = None if not baselines else baselines[0] if len(baselines) == 1 else baselines
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = compare_systems(args.qrels, args.runs, metrics, baseline=baseline, test=args.test,
                                 correction=None if args.correction == "none" else args.correction,
                                 alpha=args.alpha, n_trials=args.trials, seed=args.seed,
                                 plus_one=args.plus_one, **options)
    if args.format in FORMATS and args.format != "markdown":
        facts = [("qrels", args.qrels), ("runs", result.n_systems), ("topics", result.n_topics),
                 ("metrics", ", ".join(result.metrics)), ("table", result.description(tidy=True)),
                 ("alpha", args.alpha)] + ([("seed", args.seed)] if resamples(result.test) else [])
        report = Report("discpower compare: the systems' means, confidence intervals and significance", facts=facts,
                        tables=[("systems", result.to_frame())])
        text = render(report, args.format)
    elif args.format == "markdown":
        text = result.to_markdown(args.digits, ci=args.ci)
    else:
        text = result.to_latex(args.digits, ci=args.ci, booktabs=args.booktabs) + "\n"
    sys.stdout.write(text)
    for w in caught:
        print(f"{PROG}: warning: {w.message}", file=sys.stderr)
    return 0


def _inputs(args) -> list[tuple[str, str]]:
    """The files a command reads, each with the name the user gave it (for :func:`cwla.data.files.check_outputs`)."""
    named = [(label, getattr(args, option, None)) for label, option in
             (("QRELS", "qrels"), ("--truth", "truth"), ("MATRIX", "matrix"))]
    return named + [("--candidate", path) for path in getattr(args, "candidate", None) or ()] + \
        [("RUN", run) for run in getattr(args, "runs", None) or ()]


#: the files ``meta --figures DIR`` writes into DIR
FIGURES = ("asl.png", "similarity.png")
#: the option, as a message about its figures names it
FIGURES_OPTION = f"{PROG} meta --figures"


def _figures(report, directory) -> None:
    """Write the ASL curves and the similarity heatmap as PNG files into ``directory`` (created if needed)."""
    plt = pyplot(FIGURES_OPTION, "Agg")
    os.makedirs(directory, exist_ok=True)
    paths = [os.path.join(directory, name) for name in FIGURES]
    for path, plot in zip(paths, (report.plot_asl, report.plot_similarity)):
        figure = plot().figure
        with atomic_write(path, "wb") as fh:
            figure.savefig(fh, format="png", dpi=150, bbox_inches="tight")
        plt.close(figure)
    print(f"{PROG}: wrote {' and '.join(paths)}", file=sys.stderr)
