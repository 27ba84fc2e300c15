"""README: its two commands, and every Python example in it runs as written.

The examples call ``https://api.example.com``; pytest-httpx answers for it
(:func:`example_api`), so they run offline exactly as a reader would paste
them.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import anyio
import httpx
from pytest_httpx import HTTPXMock

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", README, flags=re.DOTALL)


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


def example_api(request: httpx.Request) -> httpx.Response:
    """What api.example.com answers in README's examples."""
    post = {"id": "1", "title": "Hi"}
    if request.url.path == "/login":
        return httpx.Response(200, json={"accessToken": "jwt-from-login"})
    if request.method == "DELETE":
        return httpx.Response(204)
    if request.url.path.startswith("/streams/"):
        return httpx.Response(200, json={"title": "t", "current_viewers": 3})
    if request.url.path == "/articles/":
        page = int(request.url.params.get("page", "1"))
        headers = {"link": '</articles/?page=2>; rel="next"'} if page == 1 else {}
        return httpx.Response(
            200, json=[{"id": str(page), "title": "a"}], headers=headers
        )
    if request.url.path.startswith("/files/"):
        disposition = 'attachment; filename="report.pdf"'
        return httpx.Response(
            200, content=b"%PDF", headers={"content-disposition": disposition}
        )
    if request.method == "GET" and request.url.path == "/posts/":
        return httpx.Response(200, json=[post])
    return httpx.Response(201 if request.method == "POST" else 200, json=post)


def test_every_python_example_runs(httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_callback(example_api, is_reusable=True)
    namespace: dict[str, Any] = {"__name__": "readme"}
    examples = [code for language, code in BLOCKS if language == "python"]
    assert len(examples) >= 8
    for code in examples:
        if re.search(r"^(async with|await )", code, flags=re.MULTILINE):
            wrapped = "async def _example():\n" + textwrap.indent(code, "    ")
            exec(compile(wrapped, "README.md", "exec"), namespace)
            anyio.run(namespace["_example"])
        else:
            exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["post"] == namespace["Post"](id="1", title="Hi")
    tokens = [
        request.headers.get("access-token") for request in httpx_mock.get_requests()
    ]
    assert tokens.count("token-of-this-request") == 1  # the hookified call
    assert tokens.count("jwt-from-login") == 1  # the call after logging in
    assert "my-key" in tokens
