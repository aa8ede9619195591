"""``python -m cwla``: the ``cwla`` command (see :mod:`cwla.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
