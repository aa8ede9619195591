"""The wording of metric texts' errors (:mod:`cwla.metrics.text`): names near a misspelt word (the "did you
mean ...?" of every parse error), how much of a text a message repeats, the longest number a text may hold.
"""

from __future__ import annotations

__all__ = ["distance", "close", "did_you_mean", "clipped", "SHOWN", "LONGEST_NUMBER"]

#: the longest number a metric text may hold (no parameter needs more digits than a double carries)
LONGEST_NUMBER = 40


def distance(a: str, b: str) -> int:
    """The optimal-string-alignment edit distance of ``a`` and ``b``: insertions, deletions, substitutions
    and transpositions of two neighbours count 1 each (``RPB`` -> ``RBP``: 1)."""
    prev2, prev = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if prev2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[len(b)]


#: the longest text a message repeats whole
SHOWN = 120


def clipped(text: str) -> str:
    """``repr(text)``, or for a text longer than :data:`SHOWN` its start, elided, and its length: a message
    stays short whatever was given."""
    if len(text) <= SHOWN:
        return repr(text)
    return f"{text[:SHOWN - 20]!r}... ({len(text):,} characters)"


def close(word: str, names) -> list[str]:
    """The names near ``word``, case-insensitively, best first: those that differ from it in case only (if
    any, just those), else those within 1 edit (2 for words longer than 4 characters; :func:`distance`) or
    of difflib ratio >= 0.8."""
    import difflib

    low = word.lower()
    scored = []
    for name in dict.fromkeys(names):
        name_low = str(name).lower()
        if name == word:
            continue
        # bounds that need no search: the distance is at least the difference in length, and difflib's ratio
        # 2 M / (la + lb) at most 2 min(la, lb) / (la + lb) -- so a long word costs nothing against short names
        la, lb = len(low), len(name_low)
        if abs(la - lb) > 2 and 2 * min(la, lb) < 0.8 * (la + lb):
            continue
        d = distance(low, name_low)
        ratio = difflib.SequenceMatcher(None, low, name_low).ratio()
        if d <= (1 if len(low) <= 4 else 2) or ratio >= 0.8:
            scored.append((d, -ratio, name))
    scored.sort(key=lambda s: s[:2])
    if scored and scored[0][0] == 0:
        scored = [s for s in scored if s[0] == 0]
    return [name for *_, name in scored]


def did_you_mean(names) -> str:
    """`` (did you mean 'a' or 'b'?)`` for the first two of ``names`` (one per spelling ignoring case), or
    nothing."""
    names = list({str(n).lower(): n for n in reversed(list(dict.fromkeys(names)))}.values())[::-1][:2]
    return f" (did you mean {' or '.join(map(repr, names))}?)" if names else ""
