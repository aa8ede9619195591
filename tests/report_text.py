"""Reading the commands' reports in tests: the '# ' header (what was computed) apart from the table."""

from __future__ import annotations


def split_report(out: str) -> tuple[list[str], str]:
    """(the leading '# ' lines without their '# ', the rest of the output)."""
    lines = out.splitlines(keepends=True)
    k = 0
    while k < len(lines) and lines[k].startswith("# "):
        k += 1
    return [line[2:].rstrip("\n") for line in lines[:k]], "".join(lines[k:])


def without_header(out: str) -> str:
    """The output after the report's leading '# ' lines (the header tests pin those)."""
    return split_report(out)[1]


def header_facts(out: str) -> dict[str, str]:
    """The header's ``name: value`` lines as a dict (the first line, the title, is left out)."""
    head, _ = split_report(out)
    return dict(line.split(": ", 1) for line in head[1:] if ": " in line)
