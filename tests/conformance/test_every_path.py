"""One corpus of calls through every path a call can take: the same bytes
on the wire, the same value or the same error.

Each case of :data:`CASES` is one call (an endpoint, params, a body, how it
is called), made against the scripted server (``server``) once through
each path of ``paths.PATHS``: httpx's pool, httpx2's, aiohttp's under
``fast_transport()``, each with restwire's shortcuts on and off, under
``Controller`` and ``AsyncController``, one controller per path for the
whole corpus. What every path sent (each request's line, header fields,
framing and body) and what the call gave (its value, or its error's class)
must equal what its library's own pool sent and gave under ``Controller``
(httpx2's paths are held to httpx2's pool: the two libraries' own defaults
differ, in ``Accept-Encoding`` for one), and what it gave must be the same
whichever library sent it. Two things are made
equal before comparing the bytes, and only these: the ``User-Agent`` value
(each library names itself), and a multipart body's boundary (random per
request).
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import re
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from restwire import Form, RestEndpoint, RestwireError
from tests.conformance.paths import PATHS, CallPath, opened
from tests.conformance.server import ScriptedServer

pytestmark = pytest.mark.anyio


@dataclasses.dataclass(frozen=True)
class Case:
    """One call: ``endpoint(origin, other_origin)`` its endpoint, ``params``,
    ``body(asynchronous)`` its body, and whether it is a
    ``fetch_response`` (the raw response's status and body are its value)."""

    name: str
    endpoint: Callable[[str, str], RestEndpoint]
    params: Any = None
    body: Callable[[bool], Any] = lambda asynchronous: None
    raw: bool = False

    def __str__(self) -> str:
        return self.name


def _ep(
    path: str, method: str = "GET", **options: Any
) -> Callable[[str, str], RestEndpoint]:
    def make(origin: str, other: str) -> RestEndpoint:
        options.setdefault("timeout", 5)
        return RestEndpoint(
            url_prefix=origin,
            path=path.replace("{other}", other),
            method=method,
            **options,
        )

    return make


def _json(value: Any) -> Callable[[bool], Any]:
    return lambda asynchronous: value


def _streamed(asynchronous: bool) -> Any:
    pieces = [b'{"a":', b' 1, "b": ', b"2}"]
    if not asynchronous:
        return iter(pieces)

    async def chunks() -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece

    return chunks()


def _redirects() -> Iterator[Case]:
    for status in (301, 302, 303, 307, 308):
        for where in ("same", "cross"):
            to = "/json" if where == "same" else "{other}/json"
            path = f"/redirect/{status}?to={to}"
            yield Case(f"GET after {status}, {where}-origin", _ep(path))
            yield Case(
                f"POST with a body after {status}, {where}-origin",
                _ep(path, "POST"),
                body=_json({"x": 1}),
            )
    yield Case("HEAD after 302", _ep("/redirect/302?to=/json", "HEAD"), raw=True)


def _param_styles() -> Iterator[Case]:
    listed = {"a": [1, 2], "b": "x y", "c": None, "d": True}
    nested = {"m": {"k": "v", "n": [1, 2]}, "a": [3, 4]}
    yield Case("list params, repeat", _ep("/json"), params=listed)
    for style in ("brackets", "indexed", "comma"):
        yield Case(
            f"list params, {style}", _ep("/json", param_style=style), params=listed
        )
        if style != "comma":
            yield Case(
                f"nested params, {style}",
                _ep("/json", param_style=style),
                params=nested,
            )
    yield Case(
        "form body, brackets",
        _ep("/json", "POST", param_style="brackets"),
        body=_json(Form({"a": ["1", "2"], "m": {"k": "v"}})),
    )


class BadHeader:
    """A middleware that sets a header field HTTP cannot carry."""

    def __init__(self, name: str, value: str) -> None:
        self.name, self.value = name, value

    def on_request(self, exchange: Any) -> None:
        exchange.headers[self.name] = self.value


CASES: tuple[Case, ...] = (
    *(
        Case(f"{method}, no body", _ep("/json", method))
        for method in ("GET", "DELETE", "OPTIONS", "POST", "PUT", "PATCH")
    ),
    Case("HEAD", _ep("/json", "HEAD"), raw=True),
    Case("POST, JSON body", _ep("/json", "POST"), body=_json({"x": [1, "é"]})),
    Case("PUT, JSON body", _ep("/json", "PUT"), body=_json({"x": 1})),
    Case("PATCH, JSON body", _ep("/json", "PATCH"), body=_json({"x": 1})),
    Case("DELETE, JSON body", _ep("/json", "DELETE"), body=_json({"x": 1})),
    Case(
        "POST, form body", _ep("/json", "POST"), body=_json(Form({"a": "1", "b": "é"}))
    ),
    Case(
        "POST, multipart",
        _ep("/json", "POST"),
        body=_json(Form({"a": "1"}, files={"f": ("a.txt", b"hi", "text/plain")})),
    ),
    Case("POST, streamed", _ep("/json", "POST", content="bytes"), body=_streamed),
    Case("POST, bytes", _ep("/json", "POST", content="bytes"), body=_json(b"\x00\x01")),
    *_param_styles(),
    *_redirects(),
    Case(
        "multipart after 307",
        _ep("/redirect/307?to=/json", "POST"),
        body=_json(Form({"a": "1"}, files={"f": ("a.txt", b"hi")})),
    ),
    Case("204", _ep("/status/204")),
    Case("304", _ep("/status/304"), raw=True),
    Case("404", _ep("/status/404")),
    Case("500", _ep("/status/500")),
    Case("gzip", _ep("/gzip")),
    Case("br", _ep("/br")),
    Case("zstd", _ep("/zstd")),
    Case("chunked response", _ep("/chunked")),
    Case("a 9 KB header line", _ep("/big-header")),
    Case("150 header fields", _ep("/many-headers")),
    Case("a header block of 80 KiB", _ep("/huge-head?kib=80")),
    Case("a header block of 400 KiB", _ep("/huge-head?kib=400")),
    Case("a header line of 200 KiB", _ep("/secret-line")),
    Case("a connection closed after the answer", _ep("/close", "POST"), body=_json({})),
    Case("a silent server", _ep("/silent", timeout=0.5)),
    Case("GET, the connection dropped", _ep("/drop")),
    Case("POST, the connection dropped", _ep("/drop", "POST"), body=_json({})),
    Case(
        "a stalled upload",
        _ep("/stall", "POST", timeout=0.5, content="bytes"),
        body=_json(b"x" * (16 << 20)),
    ),
    *(
        Case(f"header name {name!r}", _ep("/json", middleware=[BadHeader(name, "1")]))
        for name in ("X Forwarded", "X-Tenant: 7", "")
    ),
    Case(
        "a header value with a line break",
        _ep("/json", middleware=[BadHeader("x-a", "1\r\nx-b: 2")]),
    ),
    Case(
        "a header value with spaces at its ends",
        _ep("/json", middleware=[BadHeader("x-a", " 1 ")]),
    ),
)

_BOUNDARY = re.compile(rb"boundary=([0-9A-Za-z'()+_,./:=?-]+)")
_AGENT = re.compile(rb"(?im)^(user-agent:)[^\r\n]*")


def normalized(request: bytes) -> bytes:
    """``request`` with what may differ between paths made equal: the
    ``User-Agent`` value, and a multipart boundary."""
    request = _AGENT.sub(rb"\1 <agent>", request)
    found = _BOUNDARY.search(request)
    if found is not None:
        request = request.replace(found.group(1), b"<boundary>")
    return request


async def outcome(
    controller: Any, path: CallPath, endpoint: RestEndpoint, case: Case
) -> Any:
    """What the call gives: its value, or its error's class (a restwire
    error; anything else is a failure of its own)."""
    body = case.body(path.asynchronous)
    method = controller.fetch_response if case.raw else controller.fetch
    arguments = (
        (endpoint, case.params) if body is None else (endpoint, case.params, body)
    )
    try:
        result = await method(*arguments) if path.asynchronous else method(*arguments)
    except RestwireError as error:
        return ("error", type(error).__name__)
    if case.raw:
        return ("response", result.status_code, result.content)
    return ("value", result)


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[ScriptedServer, ScriptedServer]]:
    with ScriptedServer() as one, ScriptedServer() as other:
        yield one, other


Seen = dict[str, tuple[Any, list[bytes]]]


async def run_corpus(
    path: CallPath,
    servers: tuple[ScriptedServer, ScriptedServer],
    monkeypatch: pytest.MonkeyPatch,
) -> Seen:
    """What each case sent and gave on ``path``, by case (one controller
    for the whole corpus, as a program keeps one)."""
    one, other = servers
    seen: Seen = {}
    async with opened(path, monkeypatch) as controller:
        for case in CASES:
            one.requests()
            other.requests()
            endpoint = case.endpoint(one.origin, other.origin)
            result = await outcome(controller, path, endpoint, case)
            sent = [normalized(each) for each in one.requests() + other.requests()]
            seen[case.name] = (result, sent)
    gc.collect()  # a connection the path left open warns here, in its test
    return seen


@pytest.fixture(scope="module")
def references(
    servers: tuple[ScriptedServer, ScriptedServer],
) -> dict[str, Seen]:
    """Each library's own pool's sends and values (a sync path each: no
    event loop needed), by library."""
    found: dict[str, Seen] = {}
    with pytest.MonkeyPatch.context() as monkeypatch:
        for library in ("httpx", "httpx2"):
            path = next(path for path in PATHS if path.library == library)
            found[library] = asyncio.run(run_corpus(path, servers, monkeypatch))
    return found


@pytest.mark.parametrize("path", PATHS, ids=str)
async def test_every_path_sends_and_gives_what_the_librarys_pool_does(
    path: CallPath,
    servers: tuple[ScriptedServer, ScriptedServer],
    references: dict[str, Seen],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = await run_corpus(path, servers, monkeypatch)
    reference = references[path.library]
    differing = [name for name in reference if seen[name] != reference[name]]
    assert not differing, "\n\n".join(
        f"{name}\n  {path.library} pool: {_shown(reference[name])}\n"
        f"  {path}: {_shown(seen[name])}"
        for name in differing
    )
    # and what a call gives is the same whichever library sent it
    other = references["httpx2" if path.library == "httpx" else "httpx"]
    assert {name: seen[name][0] for name in seen} == {
        name: other[name][0] for name in other
    }


def _shown(found: tuple[Any, list[bytes]]) -> str:
    result, sent = found
    return f"{result!r:.300}\n    sent: {[each[:600] for each in sent]!r}"
