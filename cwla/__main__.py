"""``python -m cwla``: the ``cwla`` command (see :mod:`cwla.bridges.cli`)."""

import sys

from .bridges.cli import program

if __name__ == "__main__":
    sys.exit(program())
