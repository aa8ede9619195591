"""The ``cwla`` command: evaluate TREC runs from the shell, or run a demonstration.

Usage::

    cwla eval QRELS RUN [RUN ...] [-m METRIC ...] [-q] [-c] [-l LEVEL] [-M N] [-J]
              [--format tsv|wide|jsonl|markdown|trec] [--no-header] [--quiet]
              [--gain G] [--cutoff K] [--depth H] [--stop] [--order trec_eval|file] [--ties float32|float64]
    cwla demo [--topics N] [--runs N] [--seed S] [--quiet]
    cwla --version

``cwla eval`` prints a report (:mod:`cwla.bridges.report`): ``#`` lines saying what was computed
(the qrels, the runs, the topics, each metric's canonical text, the options given) and what
``value`` and ``residual`` mean, then a tab-separated table ``run, topic, metric, value, residual``:
per-topic rows (with ``-q``/``--per-topic``) and then one row per run and metric with topic ``all``,
the mean over the qrels topics (the sum for counts such as ``num_ret``). ``--no-header`` leaves the
``#`` lines out; ``--format wide`` prints the runs x metrics table of the means instead,
``markdown`` the same as a pipe table, ``jsonl`` a header record and one record per row, and
``--format trec`` trec_eval's own lines (``measure<TAB>topic<TAB>value``, trec_eval's names, order
and decimals). Progress (reading the runs, a first compile of the kernels) is drawn on stderr when
it is a terminal, never into a pipe; ``--quiet`` turns it off (:mod:`cwla.progress`).

Metrics are written as in :func:`cwla.parse_metric`: ir_measures and trec_eval names
(``nDCG@10``, ``'P(rel=2)@10'``, ``map``, ``P.10``, ``ndcg_cut.10``, ``recip_rank``),
Chen & Sakai's (``INST_PE``) or canonical texts (``'RBP(p=0.8)+ERG[cutoff=5]'``);
``-m P.5,10`` and ``-m P`` expand as in trec_eval. The trec_eval options mean what
they mean there: ``-l`` is the relevance level of every binary measure that does not
give one (as does a binary ``--gain``), ``-M`` keeps the first N documents of each
ranking before anything is measured, ``-J`` keeps judged documents only, ``-c`` is
accepted (cwla always averages over every qrels topic, a missing topic scoring 0).
``--gain``, ``--cutoff``, ``--depth`` and ``--stop`` apply to every metric that does not
set the option itself. Problems with the input go to stderr as ``cwla: error: ...`` with
exit code 2.

``cwla demo`` evaluates Chen & Sakai's 39 C/W/L/A metrics on the built-in
synthetic collection (:mod:`cwla.synthetic`); it reads no file and needs no network.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import math
import os
import re
import shutil
import sys
import time
import warnings

from .._display import count_text
from .._version import __version__
from ..errors import CwlaError
from .._validate import fmt
from .arguments import add_quiet_argument, add_scoring_arguments, evaluation_options, scoring_options

__all__ = ["main"]

PROG = "cwla"
_USER_ERRORS = (CwlaError, OSError, TypeError, ValueError)


def main(argv=None) -> int:
    """Run the ``cwla`` command.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code: 0 on success, 2 on a usage or input error.
    """
    return run_command(_parser(), argv, PROG)


def run_command(parser: argparse.ArgumentParser, argv, prog: str) -> int:
    """Parse ``argv`` and call ``args.func(args)``; user errors become ``prog: error: ...`` and exit code 2."""
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, --version and usage errors
        return _exit_code(exit_)
    if getattr(args, "quiet", False):
        from ..progress import configure

        configure(enabled=False)
    try:
        return args.func(args)
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except KeyboardInterrupt:
        return _said(f"{prog}: interrupted", 130)
    except MemoryError as err:
        command = " ".join(filter(None, (prog, getattr(args, "command", None))))
        return _said(f"{prog}: error: {_memory_message(err, command)}", 2)
    except _USER_ERRORS as err:
        return _said(f"{prog}: error: {in_flags(_message(err), parser, args)}", 2)


def end_of_program() -> None:
    """Freeze every object left for the interpreter's exit (an atexit handler of :func:`program`): its last
    garbage collections would walk every object numba, LLVM and pandas created, to free memory the process is
    about to give back (0.3-0.4 s of every command on an idle 2-core machine, over a second under load, and most of
    the wait after Ctrl-C). :func:`gc.freeze` keeps them out of those collections; the atexit handlers registered
    after it still ran before it, and the streams are flushed and closed as usual."""
    gc.disable()
    gc.freeze()


#: glibc's ``mallopt`` parameter of the size from which an allocation is a memory map of its own
_M_MMAP_THRESHOLD = -3


def return_freed_memory() -> bool:
    """Where the C library is glibc, fix its mmap threshold at 2 MiB: every array of that size or more is then a
    memory map of its own, returned to the system when freed. By default glibc raises the threshold (up to
    32 MiB) after the first large free, and later arrays below it come from heaps it keeps: the runs and pairs
    of a group stayed in the process after it was scored. Measured (``cwla eval`` of 2000 topics x 20 runs x
    1000 in three groups, 2 CPUs, medians of 3): peak RSS 817 MiB by default, 600 MiB at 2 MiB (5.54 s wall),
    589 MiB at glibc's initial 128 KiB (5.93 s: the page faults of every block's arrays), 757 MiB at 8 MiB. The
    same as ``MALLOC_MMAP_THRESHOLD_=2097152``; nothing elsewhere (another C library, not POSIX). Returns
    whether the threshold was set."""
    import ctypes
    import ctypes.util

    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # musl and others: no mallopt
        return False
    return mallopt(_M_MMAP_THRESHOLD, 2 * 2**20) == 1


def as_program(main) -> int:
    """``main()`` (on ``sys.argv``) as a program: freed memory returned to the system
    (:func:`return_freed_memory`) and the objects frozen when the interpreter exits (:func:`end_of_program`; at
    the exit, not when ``main`` returns: a caller that goes on, e.g. ``python -i -m cwla`` or :mod:`runpy`, keeps
    its collector)."""
    return_freed_memory()
    atexit.unregister(end_of_program)  # once, however often it is called
    atexit.register(end_of_program)
    return main()


def program() -> int:
    """The ``cwla`` program (its console script, ``python -m cwla``): :func:`main` :func:`as_program`."""
    return as_program(main)


def _said(message: str, code: int) -> int:
    """Print ``message`` on stderr, on a line of its own (the progress line taken away first); return ``code``."""
    from ..progress import clear

    clear()
    print(message, file=sys.stderr)
    return code


def _print_warnings(caught) -> None:
    """The warnings a command caught, one ``cwla: warning: ...`` line each on stderr."""
    for w in caught:
        print(f"{PROG}: warning: {w.message}", file=sys.stderr)


def _exit_code(exit_: SystemExit) -> int:
    code = exit_.code
    if code is None:
        return 0
    return code if isinstance(code, int) else 2


#: a library message's parameter, "The 'n_trials' parameter ..."
_PARAMETER = re.compile(r"The '(\w+)' parameter (?=must |\()")


def in_flags(message: str, parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """A library message in the command's words: a parameter of the entry point the command calls, set from an
    option, is named by the option (``The 'n_trials' parameter must be ...`` -> ``--trials must be ...``): the
    option whose destination is the parameter's name, or that name without ``n_`` (``--trials`` gives
    ``n_trials``). A message that names another function's parameter (``The 'depth' parameter of depth_pool``)
    is left as it is: that parameter is not the command's option of the same name."""
    flags = {}
    for sub in (parser, *_subcommands(parser, args)):
        for action in sub._actions:
            longs = [o for o in action.option_strings if o.startswith("--")]
            if longs:
                flags.setdefault(action.dest, longs[0])
                flags.setdefault(f"n_{action.dest}", longs[0])
    return _PARAMETER.sub(lambda m: f"{flags[m.group(1)]} " if m.group(1) in flags else m.group(0), message)


def _subcommands(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list:
    """The parser of the subcommand ``args`` ran (none for a command without subcommands)."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(args, action.dest, None) or "")
            found += [] if chosen is None else [chosen, *_subcommands(chosen, args)]
    return found


def _message(err: BaseException) -> str:
    """The user-facing text of an error (file errors: ``path: what is wrong``)."""
    if isinstance(err, OSError) and not isinstance(err, CwlaError) and err.filename is not None:
        return f"{err.filename}: {err.strerror or err}"
    return str(err).rstrip("\n")


def _memory_message(err: MemoryError, command: str) -> str:
    """What ran out: the command, the size of the allocation that failed when numpy says it, and the remedy."""
    size = getattr(err, "_total_size", None)  # numpy's _ArrayMemoryError: the bytes of the array it could not make
    if isinstance(size, int):
        needed = f": one array needed about {size / 2**30:,.1f} GiB"
    else:
        needed = f" ({err})" if str(err) else ""
    return (f"out of memory while running '{command}'{needed}; ask for less at a time (fewer runs, topics or "
            f"metrics; for discpower fewer --trials or --splits) or free some memory")


def _silence_stdout():
    """After a closed pipe (``cwla eval ... | head``): no second error at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


# ---------------------------------------------------------------------------
# argument parsing
# ---------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="C/W/L/A evaluation metrics for information retrieval (TREC qrels and runs).",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _eval_parser(commands)
    _cwl_parser(commands)
    _demo_parser(commands)
    return parser


def _cwl_parser(commands):
    p = commands.add_parser(
        "cwl",
        help="cwl_eval's output (a drop-in for cwl-eval)",
        description="Evaluate one TREC results file as cwl_eval 1.0.12 does and print what cwl-eval prints: per "
                    "topic of the results file (in file order; the file order is the ranking) and measure, EU, "
                    "ETU, EC, ETC, ED (and their residuals with -r), 4 decimals. GAIN_FILE holds gains in [0, 1] "
                    "(qid iter docno gain).",
        epilog="examples: cwla cwl gains.txt run.txt;  cwla cwl gains.txt run.txt -m metrics.txt -c costs.txt -r -n",
    )
    p.add_argument("gain_file", metavar="GAIN_FILE", help="TREC qrels whose fourth column is the gain, in [0, 1]")
    p.add_argument("result_file", metavar="RESULT_FILE", help="TREC results file (topic element_type docno rank "
                                                              "score run); the second column names the element type")
    p.add_argument("-m", "--metrics_file", metavar="METRICS_FILE",
                   help="cwl_eval metrics, one a line, e.g. RBPCWLMetric(0.8) (default: cwl_eval's default list)")
    p.add_argument("-c", "--cost_file", metavar="COST_FILE",
                   help="costs per element type: element_type cost a line; an element type it does not price, or every "
                        "document without it, costs --max_cost (--min_cost in the residuals)")
    p.add_argument("-n", "--colnames", action="store_true", help="print the column names first")
    p.add_argument("-r", "--residuals", action="store_true", help="also print the residuals")
    p.add_argument("--max_depth", type=int, default=1000, metavar="H", help="depth of every measure (default 1000)")
    p.add_argument("--max_cost", type=float, default=1.0, metavar="X",
                   help="cost of a document without one, and past the ranking, in the score (default 1)")
    p.add_argument("--min_cost", type=float, default=1.0, metavar="X",
                   help="the same in the residuals' upper bound (default 1)")
    p.set_defaults(func=_cmd_cwl)


def _cmd_cwl(args) -> int:
    from .cwl import cwl_eval

    _check_cwl_files(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = cwl_eval(args.gain_file, args.result_file, args.metrics_file, args.cost_file,
                        residuals=args.residuals, colnames=args.colnames, max_depth=args.max_depth,
                        max_cost=args.max_cost, min_cost=args.min_cost)
    sys.stdout.write(text)
    sys.stdout.flush()
    _print_warnings(caught)
    return 0


def _check_cwl_files(args) -> None:
    """Refuse a missing input of ``cwla cwl`` before any is read, naming the file and its argument."""
    from ..errors import InputError

    files = ((args.gain_file, "gain file", "GAIN_FILE: TREC qrels whose fourth column is the gain, "
                                           "qid iter docno gain"),
             (args.result_file, "results file", "RESULT_FILE: topic element_type docno rank score run"),
             (args.metrics_file, "cwl_eval metrics file", "-m/--metrics_file: one metric a line, "
                                                          "e.g. RBPCWLMetric(0.8)"),
             (args.cost_file, "cwl_eval cost file", "-c/--cost_file: element_type cost a line"))
    for path, what, given in files:
        if path is not None and not os.path.exists(path):
            shown = path if path.isprintable() else repr(path)
            raise InputError(f"{shown}: {what} does not exist (given as {given})")


def _eval_parser(commands):
    p = commands.add_parser(
        "eval",
        help="evaluate TREC run files against a qrels file",
        description="Evaluate TREC run files; prints TSV (run, topic, metric, value, residual) to stdout, or "
                    "trec_eval's lines with --format trec. Options apply to every metric that does not set "
                    "them itself.",
        epilog="examples: cwla eval qrels.txt run1 run2 -m nDCG@10 -m 'P(rel=2)@10' -m INST_PE;  "
               "cwla eval -q -l 2 -m map -m P.10 -m ndcg_cut.10 --format trec qrels.txt run1;  "
               "cwla eval qrels.txt run1 -m 'RBP(p=0.8)+ERG' --gain binary:2 --cutoff 10 --per-topic",
    )
    add_scoring_arguments(p)
    p.add_argument("-q", "--per-topic", dest="per_topic", action="store_true",
                   help="also print the value of every topic (trec_eval's -q)")
    p.add_argument("-n", "--nosummary", dest="nosummary", action="store_true",
                   help="no summary: leave out the means (topic 'all'), printing only what -q prints (trec_eval's "
                        "-n; tsv, jsonl and trec formats)")
    p.add_argument("-c", dest="complete", action="store_true",
                   help="average over every qrels topic, a topic missing from a run scoring 0 (trec_eval's -c; "
                        "cwla always does this)")
    p.add_argument("--format", choices=("tsv", "wide", "jsonl", "markdown", "trec"), default="tsv",
                   help="tsv (default): '#' lines saying what was computed, then run, topic, metric, value, residual; "
                        "wide: the runs x metrics table of the means (TSV); jsonl: a header record, then one record "
                        "per row; markdown: the runs x metrics table; trec: what trec_eval prints "
                        "('measure<TAB>topic<TAB>value' lines, 4 decimals, its measure order, runid and num_q; "
                        "without -m its 'official' measures; -m all_trec, -m official, -m set as in trec_eval)")
    p.add_argument("--no-header", dest="no_header", action="store_true",
                   help="tsv and wide: no '#' lines before the table (the bare table, as before 0.2)")
    p.add_argument("--trec-eval", dest="trec_eval", type=int, choices=(9, 10), default=None,
                   help="trec_eval's conventions where its versions differ: 9 (default; trec_eval 9.0, pytrec_eval, "
                        "NIST's published results) or 10 (trec_eval >= 10: iprec_at_recall's and 11pt_avg's recall "
                        "cut, -c printing the missing topics, the measures rbp, rbp_resid, unj)")
    p.add_argument("-Z", dest="zscores", metavar="FILE",
                   help="with --format trec: print z-scores (v - mean) / sd from FILE's 'topic measure mean sd' "
                        "lines (trec_eval's -Z)")
    p.add_argument("-N", dest="docs", type=float, metavar="NUM",
                   help="the number of documents in the collection (trec_eval's -N; utility's d term)")
    p.add_argument("-R", dest="rel_format", choices=("qrels", "prefs", "qrels_prefs", "qrels_jg"), default="qrels",
                   help="with --format trec, the format of QRELS (trec_eval's -R): qrels (default), prefs (preference "
                        "judgements: qid jg jsg docno rel_level), qrels_prefs (preferences from qrels) or qrels_jg "
                        "(judgement groups in the qrels' second column); the last three take trec_eval's prefs_* "
                        "and *_avgjg measures (-m all_prefs, -m qrels_jg)")
    p.set_defaults(func=_cmd_eval)


def _demo_parser(commands):
    p = commands.add_parser(
        "demo",
        help="Chen & Sakai's 39 metrics on the built-in synthetic collection",
        description="Build the synthetic collection (cwla.synthetic) in memory and print the per-run means "
                    "of Chen & Sakai's 39 C/W/L/A metrics. Reads no file.",
    )
    p.add_argument("--topics", type=int, default=30, metavar="N", help="number of topics (default 30)")
    p.add_argument("--runs", type=int, default=12, metavar="N", help="number of runs (default 12)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    add_quiet_argument(p)
    p.set_defaults(func=_cmd_demo)


# ---------------------------------------------------------------------------
# cwla eval
# ---------------------------------------------------------------------------


def _cmd_eval(args) -> int:
    from ..scoring.evaluator import evaluate

    if args.format == "trec":
        return _cmd_trec_prefs(args) if args.rel_format != "qrels" else _cmd_trec_eval(args)
    for flag, value in (("-Z", args.zscores), ("-N", args.docs), ("-R", None if args.rel_format == "qrels" else 1)):
        if value is not None:
            raise CwlaError(f"{flag} is trec_eval's: it applies with --format trec")
    metrics, options = scoring_options(args)
    labels, parsed = list(metrics), list(metrics.values())
    given = {"gain": args.gain, "cutoff": args.cutoff, "depth": args.depth, "stop": options["stop"],
             "rel": options["rel"], "judged_only": options["judged_only"]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qrels, read_as = _qrels_read_as(args.qrels, parsed)
        ev = evaluate(qrels, args.runs, metrics, **options)
    sys.stdout.write(_eval_report(args, ev, given, read_as))
    sys.stdout.flush()
    _print_warnings(caught)
    for line in _option_notes(given, parsed, labels) + topic_notes(ev):
        print(line, file=sys.stderr)
    return 0


def _qrels_read_as(path: str, parsed: list) -> tuple[object, str]:
    """The qrels an evaluation reads, and how, in words: subtopic qrels (read here, once) when a metric is
    intent-aware (:mod:`cwla.metrics.intents`), else the path as it is (ordinary qrels)."""
    from ..data.subtopics import Subtopics
    from ..metrics.summary import scored

    intents = [getattr(scored(m), "intents", None) is not None for m in parsed]
    if any(intents):
        subtopics = Subtopics.of(path)
        others = "; the other metrics read each document's largest grade" if not all(intents) else ""
        return subtopics, f"{path} (read as {subtopics.described()}{others})"
    return path, path


def _cmd_trec_prefs(args) -> int:
    """``cwla eval --format trec -R prefs|qrels_prefs|qrels_jg``: trec_eval's preference and judgement-group
    measures (:mod:`cwla.bridges.trec_prefs`)."""
    from .trec_prefs import trec_prefs_lines

    refused = [flag for flag, given in (("-n", args.nosummary), ("-Z", args.zscores), ("-N", args.docs),
                                         ("--gain", args.gain),
                                         ("--cutoff", args.cutoff), ("--depth", args.depth), ("--stop", args.stop))
               if given]
    if refused:
        raise CwlaError(f"{', '.join(refused)} do not apply to -R {args.rel_format} (trec_eval's preference and "
                         f"judgement-group measures)")
    convention = args.trec_eval or 9
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = trec_prefs_lines(args.qrels, args.runs, rel_format=args.rel_format, measures=args.metrics,
                                per_topic=args.per_topic, complete=args.complete, max_docs=args.max_docs,
                                rel_level=1 if args.rel is None else (int(args.rel) if float(args.rel).is_integer()
                                                                      else args.rel), judged_only=args.judged_only,
                                convention=convention)
    sys.stdout.write(text)
    sys.stdout.flush()
    _print_warnings(caught)
    return 0


def _cmd_trec_eval(args) -> int:
    """``cwla eval --format trec``: trec_eval's measure selection, output and options (:mod:`cwla.bridges.trec_eval`)."""
    from ..data.collection import prepare
    from ..scoring.evaluator import as_metrics, evaluate
    from .trec_eval import read_zscores, relstrings, run_tag, trec_eval_lines, trec_measures

    convention = args.trec_eval or 9
    if args.docs is not None and not (math.isfinite(args.docs) and args.docs >= 0):
        raise CwlaError(f"-N must be a number of documents >= 0, got {args.docs:g}")
    names, length = trec_measures(args.metrics, convention, docs=args.docs or 0.0)
    measures = {name: text for name, text in names.items() if text is not None}
    options = evaluation_options(args)
    options["trec_eval"] = convention
    zscores = read_zscores(args.zscores) if args.zscores else None
    as_metrics(measures or {"num_q": "num_q"})  # the measures are checked before any file is read
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if length is None:
            ev, strings = evaluate(args.qrels, args.runs, measures or {"num_q": "num_q"}, **options), None
        else:  # relstring reads the rankings: one join serves it and the measures
            ties = options["ties"] or ("float64" if convention == 10 else "float32")
            col = prepare(args.qrels, args.runs, order=options["order"], ties=ties)
            ev = evaluate(col, metrics=measures or {"num_q": "num_q"}, **options)
            if options["max_docs"] is not None:
                col = col.truncated(options["max_docs"])
            strings = relstrings(col.judged_only() if options["judged_only"] else col, length)
    tags = [run_tag(path) for path in args.runs]
    sys.stdout.write(trec_eval_lines(ev, names, tags=tags, per_topic=args.per_topic, complete=args.complete,
                                     convention=convention, zscores=zscores, relstring=strings,
                                     summary=not args.nosummary))
    sys.stdout.flush()
    _print_warnings(caught)
    for line in topic_notes(ev):
        print(line, file=sys.stderr)
    return 0


def _option_notes(given: dict, parsed, labels) -> list[str]:
    """One line per command-line option that some metric overrides with its own setting (a binary
    --gain is not overridden by the binary measures without a level: it gives them their level)."""
    from ..metrics.counting import CountingMeasure
    from ..metrics.gains import Binary
    from ..metrics.text import parse_gain

    lines = []
    flags = {"rel": "-l", "judged_only": "-J"}
    for option, value in given.items():
        if value is None:
            continue
        if option in flags:
            lines += _level_notes(flags[option], option, value, given.get("gain"), parsed, labels)
            continue
        binary = option == "gain" and isinstance(parse_gain(value), Binary)
        cwl = [(label, m) for label, m in zip(labels, parsed) if not isinstance(m, CountingMeasure)]
        own = [label for label, m in cwl if getattr(m, option) is not None
               and not (binary and m.gain == Binary())]
        other = [label for label, m in zip(labels, parsed) if isinstance(m, CountingMeasure) and not binary]
        flag = f"--{option}" + ("" if option == "stop" else f" {value}")
        lines += _not_applied(flag, own, f"set{'s' if len(own) == 1 else ''} {option} itself")
        lines += _not_applied(flag, other, f"not C/W/L/A metrics: they have no {option}")
    return lines


def _not_applied(flag: str, labels: list, why: str) -> list[str]:
    """The note that ``flag`` does not reach the measures ``labels`` (none if there are none), and why."""
    return [f"{PROG}: note: {flag} not applied to {', '.join(map(repr, labels))} ({why})"] if labels else []


def _level_notes(flag, option, value, gain_text, parsed, labels) -> list[str]:
    """Notes for -l and -J: the measures that give their own relevance level or judged_only, and (for -l)
    the graded C/W/L/A metrics, which have no relevance level."""
    import attrs

    from ..metrics.counting import CountingMeasure
    from ..metrics.gains import Binary
    from ..metrics.text import parse_gain

    gain = parse_gain(gain_text) if gain_text is not None else None
    own, graded = [], []
    for label, m in zip(labels, parsed):
        if isinstance(m, CountingMeasure):
            fields = attrs.fields_dict(type(m))
            if option in fields and getattr(m, option) is not None:
                own.append(label)
        elif option == "judged_only":
            if m.judged_only is not None:
                own.append(label)
        elif isinstance(m.gain, Binary) and m.gain.threshold is not None:
            own.append(label)
        elif not (m.gain == Binary() or (m.gain is None and isinstance(gain, Binary))):
            graded.append(label)
    shown = flag if option == "judged_only" else f"{flag} {fmt(value)}"
    return (_not_applied(shown, own, f"set{'s' if len(own) == 1 else ''} {option} itself")
            + _not_applied(shown, graded, "graded gains: no relevance level"))


def _eval_report(args, ev, given: dict, read_as: str) -> str:
    """``cwla eval``'s output in ``--format`` tsv / wide / jsonl / markdown (:mod:`cwla.bridges.report`)."""
    from .report import Report, render

    wide = args.format in ("wide", "markdown")
    if wide and (args.per_topic or args.nosummary):
        raise CwlaError(f"--format {args.format} prints the runs x metrics table of the means; for the value of "
                         f"every topic use -q{' -n' if args.nosummary else ''} with --format tsv, jsonl or trec")
    if wide:
        means = ev.means()
        table = means.reset_index()
        caption = "each run's value over the topics"
    else:
        table = ev.to_frame(per_topic=args.per_topic, means=not args.nosummary)
        caption = "values"
    n_topics = len(ev.topics)
    options = ", ".join(f"{flag} {fmt(value) if isinstance(value, float) else value}".rstrip()
                        for flag, value in _given_flags(args, given)) or "none (the defaults)"
    facts = [("qrels", read_as), ("runs", f"{len(ev.runs)} ({_names(ev.runs)})"),
             ("topics", f"{n_topics} (the qrels topics; a topic missing from a run scores 0)")]
    facts += [(f"metric {label}", str(metric)) for label, metric in zip(ev.labels, ev.metrics)]
    facts.append(("options", options))
    glossary = [("value", f"the metric's value; topic 'all' (and --format wide): the mean over the {n_topics} "
                          f"topics, the sum for counts (num_ret, num_rel, ...)")]
    if not wide:
        glossary.append(("residual", "what the unjudged documents the metric reads could change in its value "
                                     "(docs/metrics.md states each metric's residual exactly)"))
    report = Report(f"cwla eval: {count_text(len(ev.labels), 'metric')} x {count_text(len(ev.runs), 'run')} x "
                    f"{count_text(n_topics, 'topic')}",
                    facts=facts, glossary=glossary, tables=[(caption, table)])
    if args.format in ("tsv", "wide"):
        return render(report, "tsv", header=not args.no_header)
    return render(report, args.format)


def _given_flags(args, given: dict) -> list[tuple[str, object]]:
    """The scoring options given on the command line, as flag and value."""
    flags = {"gain": "--gain", "cutoff": "--cutoff", "depth": "--depth", "stop": "--stop", "rel": "-l",
             "judged_only": "-J"}
    out = [(flags[k], "" if v is True else v) for k, v in given.items() if v is not None and k in flags]
    for flag, value in (("-M", args.max_docs), ("--ties", args.ties), ("--trec-eval", args.trec_eval)):
        if value is not None:
            out.append((flag, value))
    if args.order != "trec_eval":
        out.append(("--order", args.order))
    return out


def _names(names, limit: int = 4) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")


def _count(n: int, singular: str, plural: str) -> str:
    return f"{n} {singular if n == 1 else plural}"


def topic_notes(ev, prog: str = PROG) -> list[str]:
    """One line per run with qrels topics missing or run topics ignored."""
    lines = []
    for run in ev.runs:
        missing, ignored = len(ev.missing_topics.get(run, ())), len(ev.ignored_topics.get(run, ()))
        parts = []
        if missing:
            parts.append(_count(missing, "qrels topic", "qrels topics") + " missing (scored 0)")
        if ignored:
            parts.append(_count(ignored, "run topic", "run topics") + " not in qrels (ignored)")
        if parts:
            lines.append(f"{prog}: run {run!r}: " + ", ".join(parts))
    return lines


# ---------------------------------------------------------------------------
# cwla demo
# ---------------------------------------------------------------------------


def _cmd_demo(args) -> int:
    from ..data import synthetic
    from ..data.collection import prepare
    from ..metrics.gains import Linear
    from ..metrics.grid import chen_sakai_metrics, chen_sakai_names
    from ..scoring.evaluator import evaluate

    compile_s = _warm_kernels()
    qrels, runs = synthetic.collection(n_topics=args.topics, n_runs=args.runs, seed=args.seed)
    t0 = time.perf_counter()
    col = prepare(qrels, runs)
    t1 = time.perf_counter()
    metrics = chen_sakai_metrics(cutoff=10, depth=10, stop=True)
    ev = evaluate(col, metrics=metrics, gain=Linear())
    t2 = time.perf_counter()
    means = ev.means()
    means.columns = chen_sakai_names()

    width = _width()
    print(_demo_header(args, qrels, col, width))
    print()
    print(_demo_reading(means, width))
    print()
    for title, columns in _demo_blocks(means.columns):
        print(title)
        print(_block(means, columns, width))
        print()
    print(_demo_next(width, args, means, col))
    print()
    print(f"time: prepare {t1 - t0:.3f} s + evaluate {t2 - t1:.3f} s for {len(metrics)} metrics x "
          f"{len(col.runs)} runs x {len(col.topics)} topics; one-off kernel compile/load {compile_s:.2f} s "
          f"(cwla.warmup())")
    return 0


def _demo_reading(means, width) -> str:
    """How to read the blocks: the names, the scales, and why ETG is not in [0, 1] (with the printed values)."""
    import textwrap

    run = means.index[0]
    erg, etg = means.at[run, "Precision_ERG"], means.at[run, "Precision_ETG"]
    text = (
        "How to read it: each row is a run, each column a metric MODEL_AGGREGATION: the browsing model says "
        "how far down the ranking the user reads, the aggregation what the user takes away. ERG (the rate of "
        "gain per document read), avg, max, fin, PE and ERR lie in [0, 1]. ETG is the expected total gain, in "
        "gain units: up to the number of documents read, so it is not in [0, 1]. For a browsing model that does "
        "not look at the gains, ETG = E x ERG with E the expected number of documents read; Precision@10 reads "
        f"exactly E = 10, so {run}'s Precision_ETG {etg:.3f} = 10 x its Precision_ERG {erg:.3f}: of the 10 "
        f"documents it shows, the user collects {etg:.2f} units of gain (a grade-3 document is one unit)."
    )
    return textwrap.fill(text, width=width)


def _demo_next(width, args=None, means=None, col=None) -> str:
    """What to run next: the demo's own numbers from the shell (its collection written as TREC files, its
    metrics at its setting, with the values they print), how a paper name alone differs, and the commands
    for the user's runs."""
    import textwrap

    lines = []
    if args is not None and means is not None:
        from ..scoring.evaluator import evaluate

        run = means.index[0]
        sizes = "".join(f"{name}={value}, " for name, value, default in
                        (("n_topics", args.topics, 30), ("n_runs", args.runs, 12)) if value != default)
        folder = "cwla-demo"
        files = f"{folder}/qrels.txt {folder}/{run}"
        alone = evaluate(col, metrics={"RBP_PE": "RBP_PE"}).means().at[run, "RBP_PE"]
        lines += textwrap.wrap("Next: the demo's numbers from the shell -- its collection as TREC files, then "
                               "its metrics at its setting (cutoff 10, depth 10, stop):", width=width)
        lines += [
            f"  python -c \"import cwla; cwla.synthetic.write_trec(*cwla.synthetic.collection({sizes}seed="
            f"{args.seed}), '{folder}')\"",
            f"  cwla eval {files} -m 'INST_PE[cutoff=10, depth=10, stop=true]'     {run}'s INST_PE "
            f"{means.at[run, 'INST_PE']:.3f}",
            f"  cwla eval --cutoff 10 --depth 10 --stop {files} -m RBP_PE -m AP_ERG     "
            f"{means.at[run, 'RBP_PE']:.3f}, {means.at[run, 'AP_ERG']:.3f}",
        ]
        lines += textwrap.wrap(
            f"A paper name alone is scored at cwla eval's defaults (no cutoff, depth 1000, no stop): "
            f"'-m RBP_PE' gives {run} {alone:.3f}, not {means.at[run, 'RBP_PE']:.3f}.", width=width)
        lines.append("Your runs:")
    else:
        lines.append("Next:")
    lines += [
        "  cwla eval QRELS RUN [RUN ...] -m nDCG@10 -m 'P(rel=2)@10' -m map -m INST_PE     your runs, TSV",
        "  cwla eval -q -l 2 -m map -m P.10 -m ndcg_cut.10 --format trec QRELS RUN       trec_eval's output",
        "  discpower meta QRELS RUN [RUN ...] -m RBP_ERG -m INST_PE -m AP_ERG             discriminative power",
    ]
    names = textwrap.fill("Metric names: ir_measures' (nDCG@10, P(rel=2)@10, RR@10, R@1000, Judged@10), "
                          "trec_eval's (map, P_10, ndcg_cut_10, recip_rank, bpref), Chen & Sakai's (RBP_ERG) or "
                          "your own composition ('RBP(p=0.9)+PE(beta=0.3)[cutoff=20]'); the catalogue is "
                          "docs/metrics.md.", width=width)
    return "\n".join(lines) + "\n" + names


def _warm_kernels() -> float:
    """Compile (or load from numba's cache) the scoring and preparation kernels; seconds taken."""
    from ..scoring.warmup import warmup

    return warmup()


def _demo_header(args, qrels, col, width) -> str:
    import textwrap

    from ..data.synthetic import POOL_DEPTH

    n_rel = int((qrels["grade"] > 0).sum())
    max_grade = int(qrels["grade"].max())
    missing = sum(1 for r in col.runs if col.missing_topics[r])
    data = (
        f"Data: the built-in synthetic TREC collection (cwla.synthetic.collection, seed {args.seed}; no NIST "
        f"data): {len(col.topics)} topics, {len(qrels)} judgements on grades 0-{max_grade} from a "
        f"depth-{POOL_DEPTH} pool ({n_rel} relevant; one topic has none), {len(col.runs)} runs of decreasing "
        f"latent quality (run01 is the best) with exact score ties, unjudged documents, short rankings, "
        f"{_count(missing, 'run', 'runs')} missing a topic (scored 0) and one extra unjudged topic (ignored)."
    )
    grid = (
        "Metrics: Chen & Sakai's (2023) grid of C/W/L/A metrics, 6 browsing models C(i) x 7 gain aggregations "
        "A(i) minus the 3 constant combinations = 39, with the paper's parameters (Precision and DCG k=10, "
        "RBP p=0.8, INST T=2.5, AP R=retrieved (cwl_eval's), PE beta=0.5) and setting: cutoff 10, depth H=10, stop at H, "
        f"linear gains (grade/{max_grade}). One block per browsing model; values are means over the "
        f"{len(col.topics)} topics."
    )
    text = data + " " + grid
    return textwrap.fill(text, width=width)


def _demo_blocks(names) -> list[tuple[str, list[str]]]:
    """(title, column names) per browsing model, in the paper's order."""
    from ..metrics.browsing import BROWSING_MODELS
    from ..metrics.text import CHEN_SAKAI_DEFAULTS

    blocks = []
    for model in BROWSING_MODELS:
        columns = [n for n in names if n.split("_", 1)[0] == model]
        blocks.append((f"{model}: C(i) = {CHEN_SAKAI_DEFAULTS[model]}", columns))
    return blocks


def _width() -> int:
    return max(60, min(120, shutil.get_terminal_size((80, 24)).columns))


def _block(means, columns, width) -> str:
    """Runs as rows, ``columns`` as columns (3 decimals); columns wrapped in balanced chunks to fit ``width``."""
    run_w = max(len("run"), *(len(r) for r in means.index))
    col_w = [max(6, len(c)) for c in columns]
    per_line = max(1, (width - run_w) // (max(col_w) + 2))
    n_chunks = -(-len(columns) // per_line)
    size = -(-len(columns) // n_chunks)
    out = []
    for start in range(0, len(columns), size):
        chunk = list(zip(columns, col_w))[start:start + size]
        out.append("  ".join(["run".ljust(run_w)] + [c.rjust(w) for c, w in chunk]))
        for run in means.index:
            cells = [f"{means.at[run, c]:.3f}".rjust(w) for c, w in chunk]
            out.append("  ".join([run.ljust(run_w)] + cells))
        if start + size < len(columns):
            out.append("")
    return "\n".join(out)
