"""A metric: one browsing model C(i) composed with one aggregation A(i).

score = sum_{i<=H} L(i) A(i)  (Moffat, Mackenzie, Thomas & Azzopardi, SIGIR 2022),
optionally divided by the same metric on the ideal ranking.

A :class:`Metric` is an immutable value: equal metrics compare and hash equal,
``attrs.evolve`` (or :meth:`Metric.with_options`) makes changed copies, ``str``
prints the canonical text that :func:`cwla.parse_metric` reads back.

The options ``gain``, ``cutoff``, ``depth``, ``stop``, ``normalize`` and
``judged_only`` may be left unset (None): the evaluation then supplies them (see
:data:`DEFAULTS`), so one list of metrics can be evaluated under several settings.
"""

from __future__ import annotations

import warnings
from types import MappingProxyType

import attrs

from .aggregations import Aggregation
from .._validate import FLAG, NONE, Instance, Interval, Options, check
from ..errors import ConstantMetricWarning, CwlaWarning
from .aggregations import ERG
from .browsing import RBP, BrowsingModel
from .gains import Binary, GainMap, Linear
from .intents import IntentAware, Intents

__all__ = ["Metric", "DEFAULTS", "METRIC_OPTIONS", "METRIC_CONSTRAINTS", "RELEVANCE_LEVEL", "ALL", "at_level", "format_metric"]


#: the largest depth H a metric may model (the kernels keep O(H) scratch space per ranking)
MAX_DEPTH = 1_000_000

#: ``depth=ALL``: the user model's horizon is the whole (cut) ranking, H = its length (and at
#: least Precision's or DCG's k); the trec_eval names use it, so runs deeper than 1000 are scored whole
ALL = "all"

#: what a metric's fields may be, declared once: :class:`Metric` checks its fields with them, :func:`cwla.evaluate`
#: its options of the same names, and the metric text its ``[...]`` options (None: the evaluation decides)
METRIC_CONSTRAINTS = MappingProxyType({
    "browsing": (Instance(BrowsingModel, "a browsing model", sample=RBP()),),
    "aggregation": (Instance(Aggregation, "an aggregation", sample=ERG()),),
    "gain": (Instance(GainMap, "a gain map", sample=Linear()), NONE),
    "cutoff": (Interval("int", 1, None, whole=True), NONE),
    "depth": (Interval("int", 1, MAX_DEPTH, whole=True, text=f"an integer >= 1 (at most {MAX_DEPTH:,})"),
              Options((ALL,)), NONE),
    "stop": (FLAG, NONE),
    "normalize": (Options(("ideal", "full", "none")), NONE),
    "judged_only": (FLAG, NONE),
    "intents": (Instance(Intents, "intents (Novelty or IntentAware)", sample=IntentAware()), NONE),
})


#: a relevance level (``rel=``, trec_eval's ``-l``): the lowest grade that counts as relevant
RELEVANCE_LEVEL = Interval("real", 0, None, closed="neither", text="a number > 0 (the lowest relevant grade)")


def _declared(name: str):
    """The converter of field ``name``: its value as :data:`METRIC_CONSTRAINTS` accepts it, or the value objects'
    message (``'depth' of a metric must be ...: 0``)."""
    constraints = METRIC_CONSTRAINTS[name]

    def convert(value: object) -> object:
        return check(value, name, *constraints, message=lambda rule: f"{name!r} of a metric must be {rule}: {value!r}")

    return convert


@attrs.frozen(repr=False)
class Metric:
    """A C/W/L/A metric.

    Parameters
    ----------
    browsing : BrowsingModel
        C(i): ``Precision(k)``, ``DCG(k)``, ``RBP(p)``, ``INST(T)``, ``AP(R)`` or ``ERR()``.
    aggregation : Aggregation
        A(i): ``ERG()``, ``ETG()``, ``Avg()``, ``Max()``, ``Fin()``, ``PE(beta)`` or ``ERRAgg()``.
    gain : GainMap or None
        Grade -> gain map; None: the evaluation's (default ``linear``).
    cutoff : int or None
        Keep only the first ``cutoff`` documents of each ranking (trec_eval's @k).
    depth : int, "all" or None
        H, the user model's horizon; ranks past the (cut) ranking carry gain 0. Default 1000.
        ``"all"``: H = the length of each (cut) ranking, at least Precision's or DCG's k
        (the trec_eval names: a run deeper than 1000 is scored whole, as trec_eval does);
        the residual then counts only the unjudged documents of the ranking.
    stop : bool or None
        True: C(H) := 0, the user surely stops at H (sum L = 1). Default False
        (mass continuing past H is dropped, as in cwl_eval).
    normalize : {"ideal", "full", "none"} or None
        "ideal" divides by the metric on the ideal ranking (0 where that is 0); "full" by the metric on a
        ranking of H documents of gain 1 (with novelty gains: each relevant to every subtopic, r_i =
        (1 - alpha)^{i-1}), the most any ranking could score.
    judged_only : bool or None
        True: drop the unjudged documents from each ranking before anything else
        (ir_measures' ``judged_only``, trec_eval's ``-J``). Default False.
    intents : Novelty, IntentAware or None
        How the metric reads subtopic qrels (:mod:`cwla.metrics.intents`): novelty-discounted gains
        (``novelty(alpha=0.5)``) or the mean over the topic's subtopics (``ia``). None: ordinary qrels.

    Examples
    --------
    >>> from cwla import Metric, INST, PE
    >>> m = Metric(INST(T=2.5), PE(beta=0.5), cutoff=10, depth=10, stop=True)
    >>> str(m)
    'INST(T=2.5)+PE(beta=0.5)[cutoff=10, depth=10, stop=true]'
    """

    browsing: BrowsingModel = attrs.field(converter=_declared("browsing"))
    aggregation: Aggregation = attrs.field(converter=_declared("aggregation"))
    gain: GainMap | None = attrs.field(default=None, converter=_declared("gain"))
    cutoff: int | None = attrs.field(default=None, converter=_declared("cutoff"))
    depth: int | str | None = attrs.field(default=None, converter=_declared("depth"))
    stop: bool | None = attrs.field(default=None, converter=_declared("stop"))
    normalize: str | None = attrs.field(default=None, converter=_declared("normalize"))
    judged_only: bool | None = attrs.field(default=None, converter=_declared("judged_only"))
    intents: Intents | None = attrs.field(default=None, converter=_declared("intents"))

    @property
    def is_constant(self) -> bool:
        """True when neither C nor A depends on the gains (Chen & Sakai's 'x' cells:
        Precision, DCG and RBP with the ERR aggregation). Such a metric scores every
        ranking alike and cannot rank systems."""
        return self.browsing.gain_free and self.aggregation.gain_free

    def with_options(self, **options: object) -> Metric:
        """A copy with the given options set (``gain``, ``cutoff``, ``depth``, ``stop``, ``normalize``,
        ``judged_only``, ``intents``)."""
        return attrs.evolve(self, **options)

    def resolve(self, gain: GainMap | None = None, cutoff: int | None = None, depth: int | str | None = None,
                stop: bool | None = None, normalize: str | None = None, judged_only: bool | None = None,
                rel: float | None = None, trec_eval: int | None = None, intents: Intents | None = None) -> Metric:
        """A copy whose unset options take the given values, then :data:`DEFAULTS`; binary gains
        without a threshold take the relevance level ``rel`` (default 1). (trec_eval's convention,
        ``trec_eval``, changes no C/W/L/A metric: the measures where 9.0 and 10 differ are counting ones.)"""
        given = dict(gain=gain, cutoff=cutoff, depth=depth, stop=stop, normalize=normalize,
                     judged_only=judged_only, intents=intents)
        values = {}
        for name, value in given.items():
            own = getattr(self, name)
            values[name] = own if own is not None else (value if value is not None else DEFAULTS[name])
        values["gain"] = at_level(values["gain"], rel)
        return attrs.evolve(self, **values)

    @property
    def aggregate(self) -> str:
        """How per-topic values combine into a run's value: ``"mean"``."""
        return "mean"

    def warn_if_truncated(self, label: str | None = None, stacklevel: int = 3) -> None:
        """Warn when Precision@k or DCG@k reaches past the depth H without ``stop``: the mass
        past H is dropped, so every score would be 0 (Precision) or truncated (DCG)."""
        k = getattr(self.browsing, "k", None)
        if k is not None and isinstance(self.depth, int) and k > self.depth and not self.stop:
            warnings.warn(
                f"{label or self}: k = {k} exceeds the depth H = {self.depth} and stop is off, so the user "
                f"model's mass past rank {self.depth} is dropped; raise depth or set stop=true",
                CwlaWarning,
                stacklevel=stacklevel,
            )

    def warn_if_constant(self, label: str | None = None, stacklevel: int = 3) -> None:
        """Warn (:class:`~cwla.errors.ConstantMetricWarning`) if the metric is constant."""
        if self.is_constant:
            warnings.warn(
                f"{label or self} is constant: {type(self.browsing).__name__} with the ERR aggregation does not "
                f"depend on the gains (Chen & Sakai's invalid combination); it cannot rank systems",
                ConstantMetricWarning,
                stacklevel=stacklevel,
            )

    def __str__(self) -> str:
        return format_metric(self)

    def __repr__(self) -> str:
        """``<Metric INST(T=2.5)+PE(beta=0.5)>``: the canonical text, which :func:`cwla.parse_metric` reads back."""
        return f"<Metric {format_metric(self)}>"


def at_level(gain: GainMap, rel: float | None = None) -> GainMap:
    """``gain``, with binary gains that have no threshold set to the relevance level ``rel`` (default 1)."""
    if isinstance(gain, Binary) and gain.threshold is None:
        return Binary(1 if rel is None else rel)
    return gain


#: What an evaluation uses for options that neither the metric nor the call sets.
DEFAULTS = {"gain": Linear(), "cutoff": None, "depth": 1000, "stop": False, "normalize": "none",
            "judged_only": False, "intents": None}
#: the options a metric may set itself (its ``[...]`` in the text), in the grammar's order
METRIC_OPTIONS = tuple(DEFAULTS)


def _option_text(value: object) -> str:
    """An option's value as the grammar writes it: ``true``/``false`` for a flag, else its own text."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def format_metric(metric: Metric) -> str:
    """The canonical text of ``metric``: ``MODEL+AGGREGATION[options]``, every model parameter and only the
    options that are set, in the grammar's order (:mod:`cwla.metrics.text` parses it back)."""
    options = [f"{name}={_option_text(value)}" for name in METRIC_OPTIONS if (value := getattr(metric, name)) is not None]
    head = f"{metric.browsing}+{metric.aggregation}"
    return head + (f"[{', '.join(options)}]" if options else "")
