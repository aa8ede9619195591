"""A command run with stderr on a pseudo-terminal, as a person at a terminal runs it; and the screen it leaves."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import time

import pytest

pty = pytest.importorskip("pty")  # POSIX only


def run(argv, *, terminal: bool = True, env=None, timeout: float = 600, interrupt_after: float | None = None,
        interrupt_on: str | None = None) -> tuple[int, str, str, float | None]:
    """(exit code, stdout, stderr, seconds from SIGINT to exit) of ``argv``, with stderr a pseudo-terminal
    (``terminal``) or a pipe; ``interrupt_after``: send SIGINT (Ctrl-C) that many seconds after the start;
    ``interrupt_on``: send it as soon as stderr so far matches this regular expression (what a person sees
    before pressing Ctrl-C, whatever the machine's load made of the time before)."""
    env = {**os.environ, "CWLA_PROGRESS_DELAY": "0", **(env or {})}
    if not terminal:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)
        return done.returncode, done.stdout, done.stderr, None
    master, slave = pty.openpty()
    # as a shell starts a command: SIGINT at its default (a test runner's worker may ignore it, and an ignored
    # signal stays ignored across exec, so Python would not turn it into KeyboardInterrupt)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=slave, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(slave)
    chunks = []
    start = time.monotonic()
    sent = None
    while True:
        wait = timeout if sent is not None or interrupt_after is None else max(0.0, start + interrupt_after
                                                                                - time.monotonic())
        ready, _, _ = select.select([master], [], [], min(wait, timeout))
        if not ready:
            if sent is None and interrupt_after is not None and time.monotonic() - start >= interrupt_after:
                proc.send_signal(signal.SIGINT)
                sent = time.monotonic()
                continue
            proc.kill()
            raise TimeoutError(argv)
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
        due = interrupt_after is not None and time.monotonic() - start >= interrupt_after
        seen = interrupt_on is not None and re.search(interrupt_on, b"".join(chunks).decode(errors="replace"))
        if sent is None and (due or seen):
            proc.send_signal(signal.SIGINT)
            sent = time.monotonic()
    code = proc.wait(timeout=timeout)
    after = None if sent is None else time.monotonic() - sent
    out = proc.stdout.read().decode()
    os.close(master)
    return code, out, b"".join(chunks).decode(errors="replace"), after


def screen(text: str) -> list[str]:
    """The lines a terminal shows after ``text`` (carriage returns move to the line's start, ``ESC[K``
    erases to its end, newlines start a line); the last line is kept even when empty."""
    lines = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        line: list[str] = []
        cursor = 0
        k = 0
        while k < len(raw):
            if raw[k] == "\r":
                cursor = 0
            elif raw.startswith("\x1b[K", k):
                del line[cursor:]
                k += 3
                continue
            else:
                if cursor < len(line):
                    line[cursor] = raw[k]
                else:
                    line.append(raw[k])
                cursor += 1
            k += 1
        lines.append("".join(line))
    return lines


_PROGRESS = re.compile(r"\[[#.]+\] \d|compiling kernels")


def progress_lines(text: str) -> list[str]:
    """The progress lines (bars, the compile notice) a terminal shows after ``text``."""
    return [line for line in screen(text) if _PROGRESS.search(line)]
