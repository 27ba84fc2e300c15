"""README: its two commands, and every Python example in it runs as written.

The examples call the demo API at ``http://127.0.0.1:8000``, as a reader who
started ``python -m recipes serve --port 8000`` would; the test starts the
demo API on a free port and swaps that one origin in, nothing else. No mock:
each example meets the real server, in order, and what its comments say it
prints is checked against what it printed.
"""

from __future__ import annotations

import io
import re
import tokenize
import tomllib
from pathlib import Path
from typing import Any

import pytest

from recipes.demo_api import DemoApi

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", README, flags=re.DOTALL)
EXAMPLES = [code for language, code in BLOCKS if language == "python"]
#: Where README tells a reader to start the demo API.
README_ORIGIN = "http://127.0.0.1:8000"


def test_the_first_screen_has_exactly_two_commands() -> None:
    first_screen = README.split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)```", first_screen, flags=re.DOTALL)
    assert len(commands) == 2
    tour, tests = (command.strip() for command in commands)
    assert "\n" not in tour
    assert "\n" not in tests
    assert tour.endswith("python -m recipes")
    assert tests.endswith("pytest")


def test_ci_runs_the_readme_test_command() -> None:
    commands = re.findall(r"```sh\n(.*?)```", README, flags=re.DOTALL)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert commands[1].strip() in ci


def test_readme_tells_how_to_start_the_api_its_examples_call() -> None:
    assert "`python -m recipes serve --port 8000`" in README
    prefixes = re.findall(r'url_prefix ?= ?"([^"]*)"', "".join(EXAMPLES))
    # partner.example.org stands for another API; no example calls it.
    called = {prefix for prefix in prefixes if "example.org" not in prefix}
    assert called == {README_ORIGIN}


def printed_comments(code: str) -> list[str]:
    """What a block's ``print(...)  # ...`` calls say they print: the
    comment right after the parenthesis that closes a ``print(``, on one
    line or after several (as a formatter splits a long call); ``...``
    stands for the rest of a line."""
    found: list[str] = []
    opened: list[bool] = []  # (each open bracket: whether a print's)
    closed_print = 0  # (the line whose last token closed a print's parenthesis)
    previous = ""
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        kind, text, line = token.type, token.string, token.start[0]
        if kind == tokenize.COMMENT:
            if closed_print == line and text.startswith("# "):
                found.append(text[2:])
            closed_print = 0
        elif kind == tokenize.OP and text in ")]}":
            closed_print = line if opened and opened.pop() else 0
        elif kind == tokenize.OP and text in "([{":
            opened.append(text == "(" and previous == "print")
            closed_print = 0
        elif kind not in (tokenize.NL, tokenize.NEWLINE):
            closed_print = 0
        if kind not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            previous = text
    return found


def shows(output: str, comment: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in comment.split("..."))
    return any(re.fullmatch(pattern, line) for line in output.splitlines())


def run_example(code: str, namespace: dict[str, Any]) -> None:
    """Run ``code`` as printed, as a module runs: an ``await`` outside a
    function is the ``SyntaxError`` a reader who copies it would get."""
    exec(compile(code, "README.md", "exec"), namespace)


def test_every_python_example_runs_against_the_demo_api(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each block, in order, in one namespace, against the demo API; what
    each ``print(...)  # ...`` says it prints is what it prints. (The full
    story, and its examples, are in ``docs/``: ``tests/test_docs.py``.)"""
    monkeypatch.chdir(tmp_path)  # a reader's own folder
    assert EXAMPLES
    namespace: dict[str, Any] = {"__name__": "readme"}
    with DemoApi() as api:
        for code in EXAMPLES:
            run_example(code.replace(README_ORIGIN, api.origin), namespace)
            output = capsys.readouterr().out
            for comment in printed_comments(code):
                assert shows(output, comment), f"{comment!r} not in:\n{output}"
        tokens = [request.headers.get("access-token") for request in api.requests]
    assert any(map(printed_comments, EXAMPLES)), "no print is checked"
    assert "my-key" in tokens  # the shared stack's credential was sent


def test_the_readme_stays_short_and_links_into_the_docs() -> None:
    """The front door: one or two screens, every link to a docs page that
    exists, by an absolute URL into the project's source (a package index
    shows README alone, where a relative link leads nowhere)."""
    assert len(README.splitlines()) <= 200
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    blob = options["project"]["urls"]["Source"] + "/blob/main/"
    links = re.findall(r"\]\(([^)#]+)[^)]*\)", README)
    relative = [link for link in links if not link.startswith("https://")]
    assert relative == []
    docs = [link.removeprefix(blob) for link in links if link.startswith(blob)]
    assert len(docs) >= 15
    for link in docs:
        assert link.startswith("docs/"), link
        assert (ROOT / link).is_file(), link


def test_the_readme_says_the_tests_need_a_redis_server() -> None:
    """Some tests start a real ``redis-server``: README's test command says
    so, and how to get one, before a reader wonders why they skip."""
    tests_section = " ".join(
        README.split("and the tests:", 1)[1].split("##")[0].split()
    )
    assert "start their own `redis-server`" in tests_section
    assert "apt-get install redis-server" in tests_section
    assert "brew install redis" in tests_section
