"""``python -m discpower``: the ``discpower`` command (see :mod:`discpower.reports.cli`)."""

import sys

from .reports.cli import program

if __name__ == "__main__":
    sys.exit(program())
