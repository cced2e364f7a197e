"""Every shell and Python snippet of README.md and docs/ runs as written.

Run from the virtualenv that has neardup installed (scripts/test.sh does):

    target/pyenv/bin/python -m pytest tests/docs

The rules for writers are in snippets.py's docstring and docs/README.md.
The release binary is built once (`cargo build --release -p neardup-cli`)
and `target/release` put first on PATH, beside the virtualenv's bin/.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import snippets  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
PAGES = snippets.pages(REPO)
# A block that builds with cargo may take a full release build.
TIMEOUT_S = 600
CARGO_TIMEOUT_S = 1800


def _all_snippets() -> list[snippets.Snippet]:
    found = []
    for page in PAGES:
        found.extend(snippets.parse(page))
    return found


ALL = _all_snippets()


@pytest.fixture(scope="session")
def env() -> dict[str, str]:
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    if not target.is_absolute():
        target = REPO / target
    subprocess.run(["cargo", "build", "--release", "--locked", "-p", "neardup-cli"],
                   cwd=REPO, check=True)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(target / "release"), str(Path(sys.executable).parent),
                                   env.get("PATH", "")])
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    return env


class Root:
    """Removes what a page's snippets wrote at the top of the repository
    once the next page starts, and at the end."""

    def __init__(self):
        self.page = None
        self.before = set(os.listdir(REPO))

    def enter(self, page: Path) -> None:
        if page != self.page:
            self.tidy()
            self.page = page

    def tidy(self) -> None:
        for name in set(os.listdir(REPO)) - self.before:
            path = REPO / name
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()


@pytest.fixture(scope="module")
def root():
    r = Root()
    yield r
    r.tidy()


def test_every_page_shows_a_command():
    for page in PAGES:
        if page != REPO / "docs" / "README.md":
            assert snippets.parse(page), f"{page} shows no command"


def test_readme_fits_a_few_screens():
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 250, f"README.md has {lines} lines; the manual belongs in docs/"


def test_every_doc_page_is_linked_from_the_guide_index():
    index = (REPO / "docs" / "README.md").read_text(encoding="utf-8")
    for page in PAGES:
        if page.parent == REPO / "docs" and page.name != "README.md":
            assert f"({page.name})" in index, f"docs/README.md does not link {page.name}"


def test_relative_links_resolve():
    import re

    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target or target.startswith("mailto:"):
                continue
            assert (page.parent / target).exists(), f"{page.name}: broken link {target}"


@pytest.mark.parametrize("snippet", ALL, ids=[s.name for s in ALL])
def test_snippet(snippet: snippets.Snippet, env, root):
    root.enter(snippet.page)
    if snippet.skip:
        pytest.skip(snippet.skip)
    timeout = CARGO_TIMEOUT_S if "cargo " in snippet.code else TIMEOUT_S
    outcome = snippets.run(snippet, REPO, env, timeout)
    why = snippets.failure(snippet, outcome)
    assert why is None, why
