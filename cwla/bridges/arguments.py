"""The options the ``cwla`` and ``discpower`` commands share, declared once: the qrels and runs, ``-m``,
the options of :func:`cwla.evaluate` (``--gain``, ``--cutoff``, ``--depth``, ``--stop``, ``--order``, trec_eval's
``-l``, ``-M``, ``-J``, ``--ties``) and ``--quiet``; and what the parsed flags give: the metrics (trec_eval's
``-m P.5,10`` and nicknames expanded) and the options of :func:`cwla.evaluate`, checked.
"""

from __future__ import annotations

import argparse

from .._validate import NONE, check, fmt
from ..errors import CwlaError
from ..data.runset import ORDERS, TIES
from ..metrics.gains import GAIN_MAPS

__all__ = ["DEFAULT_METRIC", "add_scoring_arguments", "add_option_arguments", "add_quiet_argument",
           "add_trec_eval_arguments", "depth_value", "metric_texts", "scoring_options", "evaluation_options"]

#: the metric of a command given none
DEFAULT_METRIC = "nDCG@10"


def add_scoring_arguments(p: argparse.ArgumentParser, default_metric: str | None = DEFAULT_METRIC) -> None:
    """QRELS RUN... -m METRIC --gain --cutoff --depth --stop --order (shared with the discpower command)."""
    p.add_argument("qrels", metavar="QRELS", help="qrels file (qid iter docno grade), plain or gzip")
    p.add_argument("runs", metavar="RUN", nargs="+",
                   help="run files (qid Q0 docno rank score tag); the run name is the file name without .gz")
    p.add_argument("-m", "--metric", dest="metrics", metavar="METRIC", action="append",
                   help="a metric text, repeatable" + (f" (default: {default_metric})" if default_metric else "")
                        + "; ir_measures' names (nDCG@10, 'P(rel=2)@10', RR@10, R@1000, Bpref), trec_eval's (map, "
                          "P.10, ndcg_cut.10, recip_rank; -m P.5,10 and -m P expand as in trec_eval), Chen & "
                          "Sakai's (INST_PE) or canonical texts ('RBP(p=0.8)+ERG[cutoff=5]'); see docs/metrics.md")
    add_option_arguments(p)


def add_option_arguments(p: argparse.ArgumentParser) -> None:
    """--gain --cutoff --depth --stop --order and trec_eval's -l -M -J --ties: the options of :func:`cwla.evaluate`
    a command takes (shared with the discpower command)."""
    p.add_argument("--gain", metavar="GAIN",
                   help="gain map: " + ", ".join(f"{n}:{c.params[0].upper()}" for n, c in GAIN_MAPS.items()
                                                 if len(c.params) == 1) + " or a canonical gain text "
                        "(default: linear, gmax = the largest qrels grade)")
    p.add_argument("--cutoff", metavar="K", type=int, help="keep the first K documents of each ranking")
    p.add_argument("--depth", metavar="H", type=depth_value,
                   help="the user model's horizon H (default 1000), or 'all': the whole of each ranking")
    p.add_argument("--stop", action="store_true", help="the user surely stops at H: C(H) = 0")
    p.add_argument("--order", choices=ORDERS, default="trec_eval",
                   help="document order: trec_eval (score descending, ties by docno descending; default) "
                        "or file (the order of the lines)")
    add_trec_eval_arguments(p)
    add_quiet_argument(p)


def add_quiet_argument(p: argparse.ArgumentParser) -> None:
    """--quiet: no progress bars nor compile notice on stderr (they are drawn only on a terminal anyway)."""
    p.add_argument("--quiet", action="store_true",
                   help="no progress on stderr (drawn only when stderr is a terminal: never into a pipe or file)")


def add_trec_eval_arguments(p: argparse.ArgumentParser) -> None:
    """-l, -M, -J and --ties: trec_eval's options that shape what is measured (shared with discpower)."""
    p.add_argument("-l", "--rel-level", dest="rel", type=float, metavar="LEVEL",
                   help="relevance level of the binary measures that do not give one (trec_eval's -l; default 1, "
                        "or the threshold of a binary --gain): grades >= LEVEL are relevant")
    p.add_argument("-M", "--max-docs", dest="max_docs", type=int, metavar="N",
                   help="keep only the first N documents of each ranking before anything is measured "
                        "(trec_eval's -M; not a cutoff: num_ret, map, Rprec, ... all see N documents)")
    p.add_argument("-J", "--judged-only", dest="judged_only", action="store_true",
                   help="drop the unjudged documents from every ranking first (trec_eval's -J)")
    p.add_argument("--ties", choices=TIES, default=None,
                   help="precision in which scores are compared: float32 (default; trec_eval 9.x, pytrec_eval, "
                        "NIST's official DL results) or float64 (trec_eval >= 10.0; cwla eval's default with --trec-eval 10)")


def depth_value(text: str):
    """--depth: an integer or ``all``."""
    if text == "all":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer or 'all', got {text!r}") from None


def metric_texts(args, default_metric: str | None = DEFAULT_METRIC) -> list[str]:
    """The -m texts, trec_eval's ``-m P.5,10`` and ``-m P`` expanded into one name per cutoff."""
    from ..metrics.text import expand_trec_names, trec_name

    texts = args.metrics or ([default_metric] if default_metric else None)
    if not texts:
        raise CwlaError("no metric given: add -m METRIC (e.g. -m nDCG@10)")
    names = {}  # a measure asked twice (-m map -m map, -m P.5,10 -m P.10) is evaluated once, as in trec_eval
    for name in (name for text in _nicknames_expanded(texts, args) for name in expand_trec_names(text)):
        names.setdefault(trec_name(name) or name.strip(), name)
    return list(names.values())


def _nicknames_expanded(texts: list[str], args) -> list[str]:
    """trec_eval's nicknames (``-m all_trec``, ``-m official``, ``-m set``) replaced by the measures they name,
    in trec_eval's order (runid and relstring, which are not measures, left out)."""
    from .trec_eval import NICKNAMES, trec_measures

    convention = getattr(args, "trec_eval", None) or 9
    out = []
    for text in texts:
        if text.strip() in NICKNAMES[convention]:
            names, _ = trec_measures([text.strip()], convention)
            out.extend(name for name, measure in names.items() if measure is not None)
        else:
            out.append(text)
    return out


def scoring_options(args, default_metric: str | None = DEFAULT_METRIC) -> tuple[dict, dict]:
    """From parsed scoring arguments: ``({label: Metric}, evaluate options)``, validated
    (metric syntax errors come before any file is read)."""
    from ..scoring.evaluator import as_metrics

    parsed, labels = as_metrics(metric_texts(args, default_metric))
    return dict(zip(labels, parsed)), evaluation_options(args)


def evaluation_options(args) -> dict:
    """The options of :func:`cwla.evaluate` from the flags :func:`add_option_arguments` declares, checked."""
    from ..metrics.gains import Binary
    from ..metrics.metric import METRIC_CONSTRAINTS
    from ..metrics.text import parse_gain
    from ..scoring.evaluator import OPTION_CONSTRAINTS

    declared = {**METRIC_CONSTRAINTS, **OPTION_CONSTRAINTS}
    for option in ("cutoff", "depth", "max_docs", "rel"):  # before any file is read (the flags name them)
        if getattr(args, option) is not None:
            check(getattr(args, option), option, *(c for c in declared[option] if c is not NONE))
    rel = args.rel
    gain = parse_gain(args.gain) if args.gain is not None else None
    if rel is not None and isinstance(gain, Binary) and gain.threshold is not None and gain.threshold != rel:
        raise CwlaError(f"-l {fmt(rel)} contradicts --gain {args.gain}: give one of them")
    return {"gain": gain, "cutoff": args.cutoff, "depth": args.depth, "stop": True if args.stop else None,
            "order": args.order, "rel": rel, "max_docs": args.max_docs,
            "judged_only": True if args.judged_only else None, "ties": args.ties,
            "trec_eval": getattr(args, "trec_eval", None)}
