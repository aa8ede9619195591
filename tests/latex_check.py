"""The structural checker of every to_latex (balanced braces, escapes, cells per row, well-formed markup)
and, where pdflatex is installed, its compilation: shared by the LaTeX tests of both packages."""

import re
import shutil
import subprocess

import pytest

from cwla._latex import escape

_SPEC_COLUMN = re.compile(r"[lrc]|p\{[^}]*\}")


def _unescaped(text, ch):
    """Positions of ``ch`` in ``text`` not preceded by a backslash (an escaped backslash ``\\\\`` counts)."""
    out, k = [], 0
    while k < len(text):
        if text[k] == "\\":
            k += 2
            continue
        if text[k] == ch:
            out.append(k)
        k += 1
    return out


def _group(text, start):
    """The content of the brace group opening at ``text[start] == '{'`` and the index after it."""
    assert text[start] == "{", f"expected '{{' at {start}: {text[start:start + 20]!r}"
    depth, k = 0, start
    while k < len(text):
        if text[k] == "\\":
            k += 2
            continue
        depth += {"{": 1, "}": -1}.get(text[k], 0)
        if depth == 0:
            return text[start + 1:k], k + 1
        k += 1
    raise AssertionError(f"unclosed brace group at {start}")


def check_latex(tex, names=()):
    """Assert that ``tex`` (tables of cwla/discpower) is well formed LaTeX with its specials escaped.

    Braces balance; every ``_ % #`` is escaped; unescaped ``$`` come in pairs (inline math, and
    only with an ``\\alpha`` or digits inside); each ``names`` entry appears escaped and never raw;
    every tabular row has as many cells (unescaped ``&`` + 1) as the column spec has columns;
    ``\\textbf`` and ``\\textsuperscript`` take one non-empty brace group. Returns the number of
    rows checked. Comment lines (``% ...``) are left out.
    """
    tex = "\n".join(line for line in tex.splitlines() if not line.lstrip().startswith("%"))
    depth = 0
    opens, closes = _unescaped(tex, "{"), _unescaped(tex, "}")
    assert len(opens) == len(closes), f"{len(opens)} '{{' for {len(closes)} '}}'"
    events = sorted([(k, 1) for k in opens] + [(k, -1) for k in closes])
    for k, step in events:
        depth += step
        assert depth >= 0, f"'}}' without '{{' at {k}: {tex[max(0, k - 30):k + 1]!r}"
    for ch in "_%#":
        bad = _unescaped(tex, ch)
        assert not bad, f"unescaped {ch!r} at {bad[0]}: {tex[max(0, bad[0] - 30):bad[0] + 10]!r}"
    dollars = _unescaped(tex, "$")
    assert len(dollars) % 2 == 0, "an odd number of unescaped '$'"
    for a, b in zip(dollars[::2], dollars[1::2]):
        assert re.fullmatch(r"[\\a-z0-9 =.{},<>/]*", tex[a + 1:b]), f"unexpected math {tex[a:b + 1]!r}"
    for name in names:
        assert escape(name) in tex, f"{name!r} is not in the table escaped ({escape(name)!r})"
        if escape(name) != name:
            stripped = tex.replace(escape(name), "")
            assert name not in stripped, f"{name!r} appears unescaped"
    for command in ("\\textbf", "\\textsuperscript"):
        for match in re.finditer(re.escape(command) + r"(?![a-z])", tex):
            content, _ = _group(tex, match.end())
            assert content.strip(), f"{command} with empty content at {match.start()}"
    rows = 0
    for match in re.finditer(r"\\begin\{tabular\}", tex):
        spec, after = _group(tex, match.end())
        columns = _SPEC_COLUMN.findall(spec)
        assert "".join(columns) == spec.replace(" ", "").replace("|", ""), f"odd column spec {spec!r}"
        width = len(columns)
        end = tex.index("\\end{tabular}", after)
        for line in tex[after:end].splitlines():
            line = line.strip()
            if not line or line in ("\\hline", "\\toprule", "\\midrule", "\\bottomrule"):
                continue
            assert line.endswith("\\\\"), f"a tabular line that is no row: {line!r}"
            cells = len(_unescaped(line[:-2], "&")) + 1
            assert cells == width, f"{cells} cells for {width} columns ({spec!r}): {line!r}"
            rows += 1
    return rows


def compile_latex(tex, tmp_path, packages=()):
    """Compile ``tex`` (a fragment) in an article with pdflatex, ``packages`` (e.g. ``("booktabs",)``) in its
    preamble; skip without pdflatex or without one of the packages. Returns the log."""
    engine = shutil.which("pdflatex")
    if engine is None:
        pytest.skip("no pdflatex installed (the structural check still ran)")
    for package in packages:
        kpsewhich = shutil.which("kpsewhich")
        found = kpsewhich and subprocess.run([kpsewhich, f"{package}.sty"], capture_output=True, text=True)
        if not found or found.returncode != 0 or not found.stdout.strip():
            pytest.skip(f"the LaTeX package {package} is not installed (Debian: texlive-latex-recommended)")
    source = tmp_path / "doc.tex"
    preamble = "".join(f"\\usepackage{{{package}}}\n" for package in ("graphicx", *packages))
    source.write_text("\\documentclass{article}\n" + preamble + "\\begin{document}\n" + tex + "\n\\end{document}\n")
    out = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", source.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    log = (tmp_path / "doc.log").read_text(errors="replace") if (tmp_path / "doc.log").exists() else out.stdout
    assert out.returncode == 0, log[-3000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 0
    assert "Undefined control sequence" not in log and "Missing" not in log
    return log
