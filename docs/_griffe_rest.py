"""A griffe extension for the API reference: the docstrings' reST markup as Markdown, and the
annotations as written.

cwla's docstrings are written for ``help()`` and Sphinx habits: ``:func:`cwla.evaluate```,
``:class:`Metric```, ````literal````. mkdocstrings renders Markdown, so the roles become code
spans (the target's name, without a leading ``~``) and double backticks single ones.

Under ``force_inspection`` griffe evaluates an annotation such as ``QrelsLike | Collection`` and shows
the alias's value (``Union``); every cwla module uses ``from __future__ import annotations``, so the
text as written is in the function's ``__annotations__``, and that is what the reference shows.
"""

from __future__ import annotations

import inspect
import re

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|obj|exc|const|ref|doc):`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def markdown(text: str) -> str:
    """``text`` with reST roles and double-backtick literals as Markdown code spans."""
    return _LITERAL.sub(r"`\1`", _ROLE.sub(r"`\1`", text))


class RestToMarkdown(griffe.Extension):
    """Rewrites every docstring griffe loads (see :func:`markdown`) and restores written annotations."""

    def on_attribute_instance(self, *, node: object, attr: griffe.Attribute, **kwargs: object) -> None:
        # inspection gives a class attribute such as ``code = 2`` the docstring of int itself
        value = getattr(node, "obj", None)
        if attr.docstring is not None and attr.docstring.value == inspect.getdoc(type(value)):
            attr.docstring = None

    def on_function_instance(self, *, node: object, func: griffe.Function, **kwargs: object) -> None:
        written = getattr(getattr(node, "obj", None), "__annotations__", None) or {}
        for parameter in func.parameters:
            if isinstance(written.get(parameter.name), str):
                parameter.annotation = written[parameter.name]
        if isinstance(written.get("return"), str):
            func.returns = written["return"]

    def on_instance(self, *, obj: griffe.Object, **kwargs: object) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
