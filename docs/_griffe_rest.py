"""A griffe extension for the API reference: the docstrings' reST markup as Markdown.

cwla's docstrings are written for ``help()`` and Sphinx habits: ``:func:`cwla.evaluate```,
``:class:`Metric```, ````literal````. mkdocstrings renders Markdown, so the roles become code
spans (the target's name, without a leading ``~``) and double backticks single ones.
"""

from __future__ import annotations

import re

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|obj|exc|const|ref|doc):`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def markdown(text: str) -> str:
    """``text`` with reST roles and double-backtick literals as Markdown code spans."""
    return _LITERAL.sub(r"`\1`", _ROLE.sub(r"`\1`", text))


class RestToMarkdown(griffe.Extension):
    """Rewrites every docstring griffe loads (see :func:`markdown`)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: object) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
