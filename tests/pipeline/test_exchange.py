"""The exchange's body bytes: a middleware that ``requires_request_body``
signs exactly what is sent, under both drivers, and nothing inside it can
change the body after. And a credential a middleware sets: the call's
headers as the library's own ``[name] =`` makes them."""

from __future__ import annotations

import hashlib
import hmac
import json
import types
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    CallNext,
    Exchange,
    Flow,
    Form,
    RequestBodyError,
    RestEndpoint,
)
from restwire._base.library import LIBRARIES, Response
from restwire._chain.exchange import HeaderNameRefused, call_headers
from restwire.middlewares import Retry, SnakeCaseKeys

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
KEY = b"k"


def signature(body: bytes) -> str:
    return hmac.new(KEY, body, hashlib.sha256).hexdigest()


class Signer:
    """Signs the body's bytes; remembers what it saw."""

    requires_request_body = True

    def __init__(self) -> None:
        self.seen: list[bytes | None] = []

    def on_request(self, exchange: Exchange) -> None:
        self.seen.append(exchange.content)
        exchange.set_credential("X-Signature", signature(exchange.encode()))


class FlowSigner:
    """The same, as a flow middleware."""

    requires_request_body = True

    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        exchange.set_credential("X-Signature", signature(exchange.encode()))
        return (yield from call_next(exchange))


class Edit:
    def on_request(self, exchange: Exchange) -> None:
        exchange.body = {"edited": True}


def sent(httpx_mock: HTTPXMock) -> list[httpx.Request]:
    return httpx_mock.get_requests()


@pytest.mark.parametrize("signer", [Signer, FlowSigner])
async def test_the_signer_signs_the_bytes_that_are_sent(
    controller: Any, httpx_mock: HTTPXMock, signer: type[Any]
) -> None:
    httpx_mock.add_response(json={"ok": True})
    endpoint = RestEndpoint(url_prefix=API, path="/orders", method="POST").use(
        SnakeCaseKeys(), signer()
    )
    await controller.fetch(endpoint, body={"item_id": 7})
    (request,) = sent(httpx_mock)
    assert json.loads(request.content) == {"itemId": 7}  # cased before signing
    assert request.headers["x-signature"] == signature(request.content)
    assert request.headers["content-type"] == "application/json"


async def test_the_bytes_are_ready_before_the_signer_runs(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    seen = Signer()
    endpoint = RestEndpoint(url_prefix=API, path="/orders", method="POST").use(seen)
    await controller.fetch(endpoint, body=b"raw bytes")
    assert seen.seen == [b"raw bytes"]


async def test_a_form_and_no_body_are_signed_as_sent(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    httpx_mock.add_response(json={})
    base = RestEndpoint(url_prefix=API, path="/orders").use(Signer())
    await controller.fetch(base.extend(method="POST"), body=Form({"a": "1"}))
    await controller.fetch(base)  # a GET: no body, an empty one is signed
    form, bodiless = sent(httpx_mock)
    assert form.content == b"a=1"
    assert form.headers["content-type"] == "application/x-www-form-urlencoded"
    assert form.headers["x-signature"] == signature(b"a=1")
    assert bodiless.content == b""
    assert bodiless.headers["x-signature"] == signature(b"")


async def test_a_body_change_inside_the_signer_is_refused_before_sending(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/orders", method="POST").use(
        Signer(), Edit()
    )
    with pytest.raises(RequestBodyError, match=r"POST https://api.example.com/orders"):
        await controller.fetch(endpoint, body={"a": 1})
    assert sent(httpx_mock) == []


async def test_a_body_change_outside_the_signer_is_signed(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    endpoint = RestEndpoint(url_prefix=API, path="/orders", method="POST").use(
        Edit(), Signer()
    )
    await controller.fetch(endpoint, body={"a": 1})
    (request,) = sent(httpx_mock)
    assert json.loads(request.content) == {"edited": True}
    assert request.headers["x-signature"] == signature(request.content)


async def test_an_iterator_body_cannot_be_signed(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    def chunks() -> Iterator[bytes]:
        yield b"a"

    endpoint = RestEndpoint(url_prefix=API, path="/orders", method="POST").use(Signer())
    with pytest.raises(RequestBodyError, match="iterator body is streamed"):
        await controller.fetch(endpoint, body=chunks())
    assert sent(httpx_mock) == []


async def test_a_retry_sends_the_signed_bytes_again(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=503)
    httpx_mock.add_response(json={"ok": True})
    endpoint = RestEndpoint(url_prefix=API, path="/orders/1", method="PUT").use(
        Retry(attempts=2, backoff=0), Signer()
    )
    assert await controller.fetch(endpoint, body={"a": 1}) == {"ok": True}
    first, second = sent(httpx_mock)
    assert first.content == second.content == b'{"a":1}'
    assert first.headers["x-signature"] == second.headers["x-signature"]


def test_encode_says_what_it_encoded() -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/x", method="POST")
    exchange = Exchange(
        endpoint, {}, {"a": 1}, httpx.URL(f"{API}/x"), httpx.Headers(), httpx.Cookies()
    )
    assert exchange.content is None
    assert exchange.encode() == b'{"a":1}'
    assert exchange.content == b'{"a":1}'
    assert exchange.headers["content-type"] == "application/json"
    with pytest.raises(RequestBodyError, match="body changed after it was encoded"):
        exchange.body = {"b": 2}
    assert exchange.body == {"a": 1}


# -- a credential set ------------------------------------------------------------


@pytest.mark.parametrize("library", LIBRARIES, ids=lambda library: library.__name__)
def test_a_credential_is_set_as_the_library_sets_a_header(
    library: types.ModuleType,
) -> None:
    """``set_credential`` appends the field of a name the call does not
    send yet itself (a name checked before, on headers that keep their
    fields as httpx does) and leaves any other to the library: either way
    the headers come out as the library's own ``[name] =`` makes them,
    a repeated name replaced once, and every name marked sensitive."""
    start = [(b"Accept", b"*/*"), (b"X-Token", b"old"), (b"x-token", b"older")]
    steps = [("X-Key", "1"), ("X-Key", "2"), ("X-Token", "new"), ("x-other", "3")]
    # twice, on new headers: the second time every name has been checked
    # once, and X-Key and x-other are new to the headers
    for _ in range(2):
        ours: Any = types.SimpleNamespace(
            headers=call_headers(library)(start), sensitive=set(), label="GET /x"
        )
        theirs = library.Headers(start)
        for name, value in steps:
            Exchange.set_credential(ours, name, value)
            theirs[name] = value
            assert ours.headers._list == theirs._list
            assert ours.headers.raw == theirs.raw
        assert ours.sensitive == {"x-key", "x-token", "x-other"}


@pytest.mark.parametrize("library", LIBRARIES, ids=lambda library: library.__name__)
def test_a_credential_under_a_name_http_cannot_send_is_refused_each_time(
    library: types.ModuleType,
) -> None:
    ours: Any = types.SimpleNamespace(
        headers=call_headers(library)(), sensitive=set(), label="GET /x"
    )
    for _ in range(2):  # (a name refused is never taken as checked)
        with pytest.raises(HeaderNameRefused, match="X Token"):
            Exchange.set_credential(ours, "X Token", "t")
    assert ours.headers.raw == []


@pytest.mark.parametrize("library", LIBRARIES, ids=lambda library: library.__name__)
def test_a_credential_on_headers_of_another_encoding_is_set_the_librarys_way(
    library: types.ModuleType,
) -> None:
    """Headers a middleware gave another encoding encode the credential
    as the library does (not as the ASCII it is)."""
    for encoding in ("utf-16", "utf-8"):
        ours: Any = types.SimpleNamespace(
            headers=call_headers(library)(), sensitive=set(), label="GET /x"
        )
        theirs = library.Headers()
        ours.headers.encoding = theirs.encoding = encoding
        for _ in range(2):
            Exchange.set_credential(ours, "X-Key", "k")
            theirs["X-Key"] = "k"
            assert ours.headers._list == theirs._list


class BodyOnly:
    """A layer that needs the body encoded and has no request side."""

    requires_request_body = True

    def on_response(self, exchange: Exchange) -> None:
        return None


async def test_a_body_change_inside_a_layer_that_needs_the_body_is_refused(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """The body is encoded before a layer that needs it, whether or not
    it has a request side of its own: a layer inside it changing the body
    is refused before anything is sent."""
    endpoint = RestEndpoint(url_prefix=API, path="/orders", method="POST").use(
        BodyOnly(), Edit()
    )
    with pytest.raises(RequestBodyError, match=r"POST https://api.example.com/orders"):
        await controller.fetch(endpoint, body={"a": 1})
    assert sent(httpx_mock) == []
