"""A header that is marked is a credential, even one on the public list.

``exchange.set_credential``, ``exchange.mark_sensitive``, an endpoint's
``sensitive_headers`` and a ``Sharing`` that made a name public all meet
here: a public header (``User-Agent``, ``X-Client-Id`` made public) that a
call marks must stay at the call's origin and tell callers apart. Other
tests mark names that are credentials anyway (``X-Api``); these are the
ones where only the marking keeps the header in, so a rule that forgets
what was marked (issue 41, finding 10: ``python .ci/mutants.py``) fails
here. Two real servers on 127.0.0.1, both drivers.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest

from restwire import (
    PUBLIC_HEADERS,
    Exchange,
    RestEndpoint,
    Sharing,
)
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

SECRET = "ua-SECRET-1"


#: The caller's value of the marked header (each test sets it).
who: contextvars.ContextVar[str] = contextvars.ContextVar("who", default=SECRET)


class SetsPublicCredential:
    """``set_credential`` on a name the public list holds."""

    def on_request(self, exchange: Exchange) -> None:
        exchange.set_credential("User-Agent", who.get())


class MarksPublicHeader:
    """Sets a public header, then marks it."""

    def on_request(self, exchange: Exchange) -> None:
        exchange.headers["User-Agent"] = who.get()
        exchange.mark_sensitive("User-Agent")


class SetsPublicHeader:
    """Sets a public header, unmarked (an endpoint's ``sensitive_headers``
    marks it)."""

    def on_request(self, exchange: Exchange) -> None:
        exchange.headers["User-Agent"] = who.get()


class MarksMadePublic:
    """Marks a header the controller's ``Sharing`` made public."""

    def on_request(self, exchange: Exchange) -> None:
        exchange.headers["X-Client-Id"] = who.get()
        exchange.mark_sensitive("x-client-id")


#: way -> (the endpoint's options, the header, the controller's options)
WAYS: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "set_credential": ({"middleware": [SetsPublicCredential()]}, "user-agent", {}),
    "mark_sensitive": ({"middleware": [MarksPublicHeader()]}, "user-agent", {}),
    "sensitive_headers": (
        {"middleware": [SetsPublicHeader()], "sensitive_headers": ["User-Agent"]},
        "user-agent",
        {},
    ),
    "made public, then marked": (
        {"middleware": [MarksMadePublic()]},
        "x-client-id",
        {"sharing": Sharing(public_headers=PUBLIC_HEADERS | {"x-client-id"})},
    ),
}

Make = Callable[..., Any]


@pytest.fixture
def make(own_controller_factory: Make) -> Make:
    """A controller of this test's driver on a client restwire makes."""
    return own_controller_factory


@pytest.mark.parametrize("way", list(WAYS))
async def test_a_marked_public_header_stays_at_its_origin(
    make: Make, origin_a: RecordingServer, origin_b: RecordingServer, way: str
) -> None:
    options, header, controller_options = WAYS[way]
    controller = make(**controller_options)
    away = quote(origin_b.url("/echo"), safe="")
    endpoint = RestEndpoint(
        url_prefix=origin_a.origin, path=f"/redirect/302?to={away}", **options
    )
    await controller.fetch(endpoint)
    assert origin_a.requests[0].headers[header] == SECRET  # sent at home
    (elsewhere,) = origin_b.requests
    assert elsewhere.headers.get(header) != SECRET, elsewhere.headers


@pytest.mark.parametrize("way", list(WAYS))
async def test_a_marked_public_header_tells_callers_apart(
    make: Make, origin_a: RecordingServer, way: str
) -> None:
    """Two callers whose marked header differs never share a stored result;
    one caller's second ``get`` is answered from the store."""
    options, header, controller_options = WAYS[way]
    controller = make(**controller_options)
    endpoint = RestEndpoint(url_prefix=origin_a.origin, path="/echo", **options)
    first = await controller.get(endpoint)
    assert first["headers"][header] == SECRET
    token = who.set("another-caller")
    try:
        assert (await controller.get(endpoint))["headers"][header] == "another-caller"
    finally:
        who.reset(token)
    assert await controller.get(endpoint) is first
    assert len(origin_a.requests) == 2


@pytest.mark.parametrize("way", ["set_credential", "mark_sensitive"])
async def test_a_marked_public_header_is_never_shown(
    make: Make, origin_a: RecordingServer, way: str
) -> None:
    options, _, _ = WAYS[way]
    shown: list[str] = []

    class Shows:
        def on_request(self, exchange: Exchange) -> None:
            shown.append(repr(exchange))

    endpoint = RestEndpoint(url_prefix=origin_a.origin, path="/echo", **options)
    await make().fetch(endpoint.use(Shows()))
    (text,) = shown
    assert "user-agent" in text.lower()
    assert SECRET not in text
