"""Exceptions and warnings raised by cwla.

Every error names what was wrong, where (file and line, parameter, metric) and
what is accepted instead.
"""


class CwlaError(ValueError):
    """Base class of cwla's errors about values the user passed in."""


class ParameterError(CwlaError, TypeError):
    """A parameter outside what a function accepts, or of a type it does not take: a ValueError and a TypeError
    both (as scikit-learn's InvalidParameterError), whichever its caller catches. The parameter checks give it
    one message template; every error of a wrong type that cwla and discpower raise is one."""


class InputError(CwlaError):
    """Malformed qrels or run input (file, DataFrame or dict)."""


class MetricSyntaxError(CwlaError):
    """A metric text that does not parse."""


class GainRangeError(CwlaError):
    """A gain map that sends a grade outside [0, 1]."""


class UserFunctionError(CwlaError):
    """A user's function (a browsing model registered with :func:`cwla.register_model`) raised while cwla
    called it -- the message names the model, its parameters and the function's exception, which is also
    this error's ``__cause__`` -- or returned a continuation probability C(i) outside [0, 1]."""


class CwlaWarning(UserWarning):
    """Something legal but probably not what was meant (results are still returned)."""


class ConstantMetricWarning(CwlaWarning):
    """A metric whose score does not depend on the gains (Chen & Sakai's 'x')."""


class EmptyRunWarning(CwlaWarning):
    """A run with no documents (an empty file, frame or dict): every topic scores 0, as in pytrec_eval and
    ir_measures."""
