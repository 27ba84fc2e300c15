"""Hostile and broken responses: each gets a typed restwire error that names
the URL, or a documented safe result; never a crash from deep inside, never
a hang. Every case runs under both drivers.

``CASES`` are answered by pytest-httpx; ``SOCKET_CASES`` need a real server
(stalls, resets, malformed HTTP). README's Guarantees section counts both.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar

import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    BodyTooLarge,
    ContentError,
    Entity,
    EntityError,
    InvalidRequest,
    NetworkError,
    RestEndpoint,
    RestwireError,
    TooManyRedirects,
    TransportError,
)
from restwire.middlewares import (
    FileDownload,
    LinkPagination,
    Retry,
)
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
URL = f"{API}/things/1"


class Thing(Entity):
    id: str = ""
    price: Decimal = Decimal(0)
    seen: Any = None

    schema: ClassVar[dict[str, Any]] = {"price": Decimal}


class NumberPk(Entity):
    id: int = 0

    def pk(self) -> Any:
        return self.id


class Dated(Entity):
    id: str = ""
    at: Any = None

    schema: ClassVar[dict[str, Any]] = {
        "at": __import__("datetime").datetime.fromisoformat
    }


@dataclass
class Case:
    """A response, the endpoint options it meets, and what must come of it."""

    name: str
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(
        default_factory=lambda: {"content-type": "application/json"}
    )
    options: dict[str, Any] = field(default_factory=dict)
    middleware: tuple[Any, ...] = ()
    #: an error type (whose message must name the URL), or a check of the value
    expect: type[RestwireError] | Callable[[Any], bool] = ContentError


JSON = {"content-type": "application/json"}
NONE = None.__class__

CASES: list[Case] = [
    # -- bodies that are not the JSON they claim --------------------------------
    Case("truncated object", b'{"a": '),
    Case("truncated array", b"[1, 2"),
    Case("unterminated string", b'"abc'),
    Case("trailing comma", b'{"a": 1,}'),
    Case("single quotes", b"{'a': 1}"),
    Case("trailing garbage", b"{} and more"),
    Case("invalid utf-8", b'{"a": "\xff\xfe"}'),
    Case("binary garbage", bytes(range(256))),
    Case(
        "html with 200",
        b"<html><body>Sign in</body></html>",
        headers={"content-type": "text/html"},
    ),
    Case(
        "json-looking text/plain", b'{"a": 1}', headers={"content-type": "text/plain"}
    ),
    Case("garbage content type", b'{"a": 1}', headers={"content-type": ";;;"}),
    Case("html, no content type", b"<html>oops</html>", headers={}),
    Case("too many digits", b"9" * 5000),
    Case("deep arrays", b"[" * 100_000 + b"]" * 100_000),
    Case("deep objects", b'{"a":' * 100_000 + b"1" + b"}" * 100_000),
    Case(
        "corrupt gzip",
        b"\x1f\x8b\x08\x00not gzip at all",
        headers={"content-type": "application/json", "content-encoding": "gzip"},
        expect=TransportError,
    ),
    # -- bodies with a documented safe result -----------------------------------
    Case("json with a BOM", b'\xef\xbb\xbf{"a": 1}', expect=lambda v: v == {"a": 1}),
    Case("utf-16 json", '{"a": 1}'.encode("utf-16"), expect=lambda v: v == {"a": 1}),
    Case(
        "no content type, valid json",
        b'{"a": 1}',
        headers={},
        expect=lambda v: v == {"a": 1},
    ),
    Case("empty 200", b"", expect=lambda v: v is None),
    Case("whitespace 200", b" \r\n\t", expect=lambda v: v is None),
    Case("204 with a body", b'{"a": 1}', status=204, expect=lambda v: v is None),
    Case("205", b"", status=205, expect=lambda v: v is None),
    Case("NaN", b"NaN", expect=lambda v: math.isnan(v)),
    Case("huge exponent", b"1e999999", expect=lambda v: v == math.inf),
    Case(
        "duplicate keys: last wins", b'{"a": 1, "a": 2}', expect=lambda v: v == {"a": 2}
    ),
    Case(
        "charset that lies",
        '{"é": 1}'.encode(),
        headers={"content-type": "application/json; charset=latin-1"},
        expect=lambda v: v == {"é": 1},
    ),
    Case(
        "problem+json",
        b'{"title": "x"}',
        headers={"content-type": "application/problem+json"},
        expect=lambda v: v == {"title": "x"},
    ),
    # -- shapes that are not the entity expected ----------------------------------
    Case("scalar for an entity", b"42", options={"schema": Thing}, expect=EntityError),
    Case("string for an entity", b'"x"', options={"schema": Thing}, expect=EntityError),
    Case("list for an entity", b"[{}]", options={"schema": Thing}, expect=EntityError),
    Case(
        "object for a list",
        b'{"id": "1"}',
        options={"schema": [Thing]},
        expect=EntityError,
    ),
    Case(
        "no primary key",
        b'{"price": "1"}',
        options={"schema": Thing},
        expect=EntityError,
    ),
    Case(
        "null primary key",
        b'{"id": null}',
        options={"schema": Thing},
        expect=EntityError,
    ),
    Case(
        "empty primary key",
        b'{"id": ""}',
        options={"schema": Thing},
        expect=EntityError,
    ),
    Case(
        "primary key not text",
        b'{"id": 5}',
        options={"schema": NumberPk},
        expect=EntityError,
    ),
    Case(
        "decimal that is not",
        b'{"id": "1", "price": "lots"}',
        options={"schema": Thing},
        expect=EntityError,
    ),
    Case(
        "price of the wrong type",
        b'{"id": "1", "price": [1]}',
        options={"schema": Thing},
        expect=EntityError,
    ),
    Case(
        "date that is not",
        b'{"id": "1", "at": "yesterday"}',
        options={"schema": Dated},
        expect=EntityError,
    ),
    Case(
        "results not a list",
        b'{"results": 5}',
        options={"schema": {"results": [Thing]}},
        expect=EntityError,
    ),
    Case(
        "null for an entity",
        b"null",
        options={"schema": Thing},
        expect=lambda v: v is None,
    ),
    Case(
        "unknown keys kept apart",
        b'{"id": "1", "__class__": "x", "pk": 1}',
        options={"schema": Thing},
        expect=lambda v: v.id == "1" and v.extra_fields == {"__class__": "x", "pk": 1},
    ),
    # -- headers ----------------------------------------------------------------
    Case(
        "malformed Link",
        b"[]",
        headers={"content-type": "application/json", "link": "<<<;;;,,,>"},
        middleware=(LinkPagination(),),
        expect=lambda v: v["results"] == [] and v["links"] == {},
    ),
    Case(
        "Link with no target",
        b"[]",
        headers={"content-type": "application/json", "link": 'rel="next"'},
        middleware=(LinkPagination(),),
        expect=lambda v: v["links"] == {},
    ),
    Case(
        "a thousand links",
        b"[]",
        headers={
            "content-type": "application/json",
            "link": ", ".join(f"</p{n}>; rel=r{n}" for n in range(1000)),
        },
        middleware=(LinkPagination(),),
        expect=lambda v: len(v["links"]) == 1000,
    ),
    Case(
        "Content-Disposition escaping the folder",
        b"x",
        headers={"content-disposition": 'attachment; filename="../../../etc/cron.d/x"'},
        options={"content": "blob"},
        middleware=(FileDownload(),),
        expect=lambda v: v["filename"] == "x",
    ),
    Case(
        "Content-Disposition with bad percent-encoding",
        b"x",
        headers={"content-disposition": "attachment; filename*=UTF-8''%ZZ%00.txt"},
        options={"content": "blob"},
        middleware=(FileDownload(),),
        expect=lambda v: "/" not in v["filename"] and "\x00" not in v["filename"],
    ),
    Case(
        "Content-Disposition of only junk",
        b"x",
        headers={"content-disposition": ';;;=;="\\'},
        options={"content": "blob"},
        middleware=(FileDownload(),),
        expect=lambda v: v["filename"] == "download",
    ),
    Case(
        "Retry-After far in the future",
        b"",
        status=503,
        headers={"retry-after": "Fri, 31 Dec 9999 23:59:59 GMT"},
        middleware=(Retry(),),
        expect=NetworkError,
    ),
    Case(
        "Retry-After of 500 digits",
        b"",
        status=429,
        headers={"retry-after": "9" * 500},
        middleware=(Retry(),),
        expect=NetworkError,
    ),
    Case(
        "malformed Set-Cookie",
        b"{}",
        headers={
            "content-type": "application/json",
            "set-cookie": ";;;=; Expires=never; Max-Age=abc",
        },
        expect=lambda v: v == {},
    ),
    Case(
        "Set-Cookie for another domain",
        b"{}",
        headers={
            "content-type": "application/json",
            "set-cookie": "evil=1; Domain=evil.example",
        },
        expect=lambda v: v == {},
    ),
    # -- statuses and redirects ---------------------------------------------------
    Case(
        "500 with an html body",
        b"<h1>boom</h1>",
        status=500,
        headers={"content-type": "text/html"},
        expect=NetworkError,
    ),
    Case("302 without Location", b"", status=302, expect=NetworkError),
    Case(
        "redirect to javascript:",
        b"",
        status=302,
        headers={"location": "javascript:alert(1)"},
        expect=InvalidRequest,
    ),
    Case(
        "redirect to a malformed URL",
        b"",
        status=302,
        headers={"location": "http://[::1"},
        expect=TransportError,  # httpx: RemoteProtocolError, invalid Location
    ),
    Case(
        "redirect to itself",
        b"",
        status=302,
        headers={"location": URL},
        options={"max_redirects": 3},
        expect=TooManyRedirects,
    ),
    Case(
        "body past max_body_size",
        b"x" * 2048,
        options={"max_body_size": 1024},
        expect=BodyTooLarge,
    ),
    Case(
        "error body past max_body_size",
        b"x" * 2048,
        status=500,
        options={"max_body_size": 1024},
        expect=BodyTooLarge,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
async def test_hostile_response(
    controller: Any, httpx_mock: HTTPXMock, case: Case
) -> None:
    httpx_mock.add_response(
        status_code=case.status,
        content=case.body,
        headers=case.headers,
        is_reusable=True,
    )
    endpoint = RestEndpoint(url_prefix=API, path="/things/:id", **case.options).use(
        *case.middleware
    )
    if isinstance(case.expect, type):
        with pytest.raises(case.expect) as caught:
            await controller.fetch(endpoint, {"id": 1})
        assert URL in str(caught.value), f"the error must name the URL: {caught.value}"
    else:
        value = await controller.fetch(endpoint, {"id": 1})
        assert case.expect(value), value


def test_the_cases_have_distinct_names() -> None:
    names = [case.name for case in CASES + SOCKET_CASES]
    assert len(names) == len(set(names))
    assert len(names) >= 60


SOCKET_CASES: list[Case] = [
    Case(
        "server stalls mid-body",
        expect=TransportError,
        options={"path": "/raw?case=stall"},
    ),
    Case(
        "connection reset mid-body",
        expect=TransportError,
        options={"path": "/broken?size=100000"},
    ),
    Case(
        "Content-Length longer than the body",
        expect=TransportError,
        options={"path": "/raw?case=short"},
    ),
    Case(
        "a 200 KB header",
        expect=TransportError,
        options={"path": "/raw?case=huge-header"},
    ),
    Case(
        "a malformed status line",
        expect=TransportError,
        options={"path": "/raw?case=bad-status"},
    ),
    Case(
        "not HTTP at all", expect=TransportError, options={"path": "/raw?case=garbage"}
    ),
    Case(
        "10 GB declared",
        expect=BodyTooLarge,
        options={"path": "/raw?case=declared-huge"},
    ),
    Case("a redirect loop", expect=TooManyRedirects, options={"path": "/loop"}),
]


@pytest.mark.parametrize("case", SOCKET_CASES, ids=lambda case: case.name)
async def test_hostile_server(
    controller_factory: Any, origin_a: RecordingServer, case: Case
) -> None:
    controller = controller_factory(timeout=0.3)
    path = case.options["path"]
    endpoint = RestEndpoint(
        url_prefix=origin_a.origin, path=path.replace(":", "\\:"), content="bytes"
    )
    assert isinstance(case.expect, type)
    with pytest.raises(case.expect) as caught:
        await controller.fetch(endpoint)
    assert origin_a.origin in str(caught.value)


async def test_nothing_is_left_half_read(
    controller_factory: Any, origin_a: RecordingServer
) -> None:
    controller = controller_factory(timeout=0.3)
    broken = RestEndpoint(url_prefix=origin_a.origin, path="/broken", content="bytes")
    healthy = RestEndpoint(url_prefix=origin_a.origin, path="/echo")
    for _ in range(3):
        with pytest.raises(TransportError):
            await controller.fetch(broken, {"size": 1000})
        assert (await controller.fetch(healthy))["path"] == "/echo"


async def test_a_gzipped_body_is_read(
    controller: Any, origin_a: RecordingServer
) -> None:
    # Over a real socket: pytest-httpx cannot serve a compressed body (bare
    # httpx fails on it the same way there).
    endpoint = RestEndpoint(url_prefix=origin_a.origin, path="/gzip")
    assert await controller.fetch(endpoint) == {"compressed": True}
