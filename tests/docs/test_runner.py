"""The snippet runner itself: parsing, output patterns, and that a broken
snippet fails."""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import snippets  # noqa: E402

PAGE = Path("page.md")


def parse(text):
    return snippets.parse(PAGE, text)


def run(text, tmp_path):
    (snippet,) = parse(text)
    outcome = snippets.run(snippet, tmp_path, dict(os.environ), timeout=30)
    return snippets.failure(snippet, outcome)


def test_blocks_outputs_and_skips():
    found = parse(
        "Intro.\n\n```sh\necho hi\n```\n\n```output\nhi\n```\n\n"
        "<!-- snippet: skip needs a cluster -->\n```python\nprint(1)\n```\n\n"
        "```text\nneardup dedup [OPTIONS]\n```\n"
    )
    assert [(s.language, s.line, s.expected, s.skip) for s in found] == [
        ("sh", 3, "hi\n", None),
        ("python", 12, None, "needs a cluster"),
    ]


@pytest.mark.parametrize("text, why", [
    ("```\necho hi\n```\n", "name one of the languages"),
    ("```sh\necho hi\n", "never closed"),
    ("Text.\n\n```output\nhi\n```\n", "must follow a run block"),
    ("<!-- snippet: skip why -->\nText.\n```sh\necho\n```\n", "right before a block"),
    ("<!-- snippet: skip why -->\n```text\nx\n```\n", "only a run block"),
])
def test_rule_breaks_are_errors(text, why):
    with pytest.raises(snippets.SnippetError, match=why):
        parse(text)


def test_prose_between_detaches_an_output_block():
    with pytest.raises(snippets.SnippetError, match="must follow"):
        parse("```sh\necho hi\n```\nIt prints:\n```output\nhi\n```\n")


@pytest.mark.parametrize("expected, actual, ok", [
    ("a\nb\n", "a\nb\n", True),
    ("a\nb\n", "a\nc\n", False),
    ("a\n", "a\nb\n", False),
    ("a\n...\n", "a\nb\nc\n", True),
    ("...\nc\n", "a\nb\nc\n", True),
    ("...\nb\n...\n", "a\nb\nc\n", True),
    ("...\nd\n", "a\nb\nc\n", False),
    ("took [..] s\n", "took 1.25 s\n", True),
    ("took [..] s\n", "took 1.25 ms\n", False),
    ("a  \n", "a\n", True),
    ("", "", True),
])
def test_output_patterns(expected, actual, ok):
    assert snippets.output_matches(expected, actual) is ok


def test_a_passing_snippet_passes(tmp_path):
    assert run("```sh\necho hi >&2\n```\n```output\nhi\n```\n", tmp_path) is None


def test_a_failing_command_fails(tmp_path):
    why = run("```sh\nfalse\necho never\n```\n", tmp_path)
    assert "exited with status 1" in why


def test_a_failing_pipeline_fails(tmp_path):
    assert "status" in run("```sh\nfalse | cat\n```\n", tmp_path)


def test_other_output_fails(tmp_path):
    why = run("```python\nprint('hello')\n```\n\n```output\nhullo\n```\n", tmp_path)
    assert "printed something else" in why and "hello" in why


def test_background_processes_are_killed(tmp_path):
    marker = tmp_path / "alive"
    assert run(f"```sh\n(sleep 2; touch {marker}) &\necho started\n```\n", tmp_path) is None
    import time

    time.sleep(3)
    assert not marker.exists()
