"""``python -m discpower``: the ``discpower`` command (see :mod:`discpower.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
