"""Reads the fenced code blocks of the user documentation and runs them.

The rules, which `docs/README.md` states for writers:

- A block whose info string is `sh` or `bash` runs in bash (`-e -o pipefail`)
  from the repository root; `python` runs in the test's Python interpreter
  (the virtualenv that has neardup installed). Nothing else runs: `text`
  (synopses, configuration files), `output`, `json`, `toml`.
- Every fence names its language: a bare fence is an error, so that no
  snippet escapes the test by accident.
- A block tagged `output` right after a run block (blank lines only
  between) is what that block prints, standard output and standard error
  together. Lines are compared with trailing spaces removed; a line `...`
  stands for any number of lines, and `[..]` inside a line for any text.
- `<!-- snippet: skip REASON -->` right before a run block (blank lines only
  between) marks a block that cannot run on this machine; REASON is
  required and shown in the test's name.

Everything a block writes in the repository root is removed after its
page; background processes a block starts are killed when it ends.
"""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUN_LANGUAGES = {"sh": "sh", "bash": "sh", "python": "python"}
QUIET_LANGUAGES = {"text", "output", "json", "toml", "yaml", "html", "rust", "csv"}
SKIP = re.compile(r"<!--\s*snippet:\s*skip\s+(?P<why>\S.*?)\s*-->")
FENCE = re.compile(r"^(?P<fence>```+)(?P<info>[^`\n]*)$")


class SnippetError(Exception):
    """A page's blocks break the rules above (not a failed run)."""


@dataclasses.dataclass
class Snippet:
    """One run block of a page, with what it must print."""

    page: Path
    line: int
    language: str
    code: str
    expected: str | None = None
    skip: str | None = None

    @property
    def name(self) -> str:
        return f"{self.page.name}:{self.line}"


def parse(page: Path, text: str | None = None) -> list[Snippet]:
    """The run blocks of one Markdown page, in order."""
    if text is None:
        text = page.read_text(encoding="utf-8")
    lines = text.split("\n")
    snippets: list[Snippet] = []
    pending_skip: str | None = None
    last_run: Snippet | None = None  # a run block that an `output` may follow
    i = 0
    while i < len(lines):
        line = lines[i]
        skip = SKIP.fullmatch(line.strip())
        if skip:
            pending_skip = skip.group("why")
            i += 1
            continue
        fence = FENCE.match(line)
        if not fence:
            if line.strip():
                last_run = None
                if pending_skip is not None:
                    raise SnippetError(f"{page}:{i + 1}: a skip mark must stand right before a block")
            i += 1
            continue
        info = fence.group("info").strip()
        language = info.split()[0] if info else ""
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != fence.group("fence"):
            end += 1
        if end == len(lines):
            raise SnippetError(f"{page}:{i + 1}: fence never closed")
        body = "\n".join(lines[i + 1 : end]) + "\n"
        if language in RUN_LANGUAGES:
            snippet = Snippet(page, i + 1, RUN_LANGUAGES[language], body, skip=pending_skip)
            snippets.append(snippet)
            last_run = snippet
        elif language == "output":
            if last_run is None:
                raise SnippetError(f"{page}:{i + 1}: an output block must follow a run block")
            last_run.expected = body
            last_run = None
        elif language in QUIET_LANGUAGES:
            if pending_skip is not None:
                raise SnippetError(f"{page}:{i + 1}: only a run block can be skipped")
            last_run = None
        else:
            raise SnippetError(f"{page}:{i + 1}: a fence must name one of the languages "
                               f"{sorted(set(RUN_LANGUAGES) | QUIET_LANGUAGES)}, not {info!r}")
        pending_skip = None
        i = end + 1
    return snippets


def _line_matches(pattern: str, line: str) -> bool:
    parts = [re.escape(p) for p in pattern.split("[..]")]
    return re.fullmatch(".*".join(parts), line, flags=re.S) is not None


def output_matches(expected: str, actual: str) -> bool:
    """Whether `actual` is what `expected` shows (`...` lines, `[..]` text)."""
    def lines(text: str) -> list[str]:
        return [l.rstrip() for l in text.rstrip("\n").split("\n")] if text.strip() else []

    want, got = lines(expected), lines(actual)

    # reach[g]: the lines of `want` seen so far can match got[:g] exactly.
    reach = [True] + [False] * len(got)
    for pattern in want:
        if pattern == "...":
            for g in range(1, len(got) + 1):
                reach[g] = reach[g] or reach[g - 1]
            continue
        reach = [False] + [reach[g] and _line_matches(pattern, got[g]) for g in range(len(got))]
    return reach[len(got)]


@dataclasses.dataclass
class Outcome:
    """What running one snippet gave."""

    status: int
    output: str
    seconds: float


def run(snippet: Snippet, cwd: Path, env: dict[str, str], timeout: float) -> Outcome:
    """Runs one snippet in its own process group; kills what it left behind."""
    if snippet.language == "sh":
        argv = ["bash", "-e", "-o", "pipefail", "-c", snippet.code]
    else:
        argv = [sys.executable, "-c", snippet.code]
    start = time.monotonic()
    # A file, not a pipe: a server left running in the background keeps a
    # pipe open, and the block is over when its shell ends.
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        note = ""
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            note = f"\n[snippet test: killed after {timeout:.0f} s]"
        finally:
            _kill_group(proc.pid)
            proc.wait()
        log.seek(0)
        out = log.read() + note
    return Outcome(proc.returncode, out, time.monotonic() - start)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def failure(snippet: Snippet, outcome: Outcome) -> str | None:
    """Why the outcome fails the snippet, or None when it passes."""
    if outcome.status != 0:
        return f"{snippet.name} exited with status {outcome.status}:\n{outcome.output}"
    if snippet.expected is not None and not output_matches(snippet.expected, outcome.output):
        return (f"{snippet.name} printed something else than its output block.\n"
                f"--- shown\n{snippet.expected}--- printed\n{outcome.output}")
    return None


def pages(repo: Path) -> list[Path]:
    """README.md, then every page of docs/, in name order."""
    return [repo / "README.md"] + sorted((repo / "docs").rglob("*.md"))
