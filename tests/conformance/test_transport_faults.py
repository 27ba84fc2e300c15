"""Faults of the wire, on every path: what each one does, and how fast.

``test_every_path`` compares what the paths send and give; these pin the
faults one by one, with the figures the guarantees page quotes: redirects
against Python's own ``http.server``, back-to-back requests on a server
that closes every connection after its answer, a stalled upload, proxies
from the environment, a header that must not show in an error, a second
event loop, and a request on a reused connection that drops.
"""

from __future__ import annotations

import asyncio
import gc
import http.server
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from restwire import (
    AsyncController,
    Controller,
    Form,
    InvalidRequest,
    RestEndpoint,
    RestwireError,
    SettingError,
    TransportError,
)
from tests.conformance.paths import PATHS, CallPath, opened
from tests.conformance.server import ScriptedServer
from tests.servers import WireServer

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as scripted:
        yield scripted


async def call(controller: Any, path: CallPath, *arguments: Any) -> Any:
    method = controller.fetch
    return await method(*arguments) if path.asynchronous else method(*arguments)


class _Redirecting(http.server.BaseHTTPRequestHandler):
    """``/a`` is a 302 (or 307) to ``/b``, ``/b`` a JSON 200: keep-alive."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith(("/302", "/307")):
            self.send_response(int(self.path[1:4]))
            self.send_header("Location", "/b")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")


@pytest.mark.parametrize("status", [302, 307])
async def test_fifty_redirects_against_http_server_all_succeed(status: int) -> None:
    """Python's ``http.server`` reads a bodiless hop's stray chunked body
    as its next request line: the hop a redirect makes carries no body and
    no ``Transfer-Encoding`` (35 of 50 failed that way)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Redirecting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        origin = f"http://127.0.0.1:{server.server_port}"
        endpoint = RestEndpoint(url_prefix=origin, path=f"/{status}", timeout=10)
        async with AsyncController() as controller:
            for number in range(50):
                assert await controller.fetch(endpoint, {"n": number}) == {}
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("path", PATHS, ids=str)
async def test_back_to_back_posts_on_a_server_that_closes_each_connection(
    path: CallPath, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every one of 100 POSTs succeeds, each sent once: a pooled connection
    the server closed is never handed to a request (50 of 100 failed)."""
    endpoint = RestEndpoint(url_prefix=server.origin, path="/close", method="POST")
    server.requests()
    async with opened(path, monkeypatch) as controller:
        for number in range(100):
            assert await call(controller, path, endpoint, None, {"n": number}) == {
                "route": "close"
            }
    assert len(server.requests()) == 100


@pytest.mark.parametrize("path", PATHS, ids=str)
async def test_a_stalled_upload_fails_within_its_timeout(
    path: CallPath, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that stops reading a 16 MB body: a ``TransportError`` once
    the write timeout passed (1 s), not a wait of 40 s and more."""
    endpoint = RestEndpoint(
        url_prefix=server.origin,
        path="/stall",
        method="POST",
        timeout=1,
        content="bytes",
    )
    async with opened(path, monkeypatch) as controller:
        started = time.monotonic()
        with pytest.raises(TransportError, match="timeout"):
            await call(controller, path, endpoint, None, b"x" * (16 << 20))
        waited = time.monotonic() - started
    assert waited < 15, waited  # (1 s, and room for a busy machine)


class _Proxy:
    """A forward proxy on 127.0.0.1 that answers every request itself."""

    def __init__(self) -> None:
        self.server = WireServer(self._answer)

    @staticmethod
    def _answer(connection: Any) -> None:
        connection.sendall(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
            b'content-length: 17\r\n\r\n{"proxied": true}'
        )


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[WireServer]:
    with _Proxy().server as server:
        for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTP_PROXY", server.origin)
        monkeypatch.setenv("http_proxy", server.origin)
        yield server


async def test_proxies_from_the_environment_carry_the_own_clients_calls(
    proxy: WireServer,
) -> None:
    """``HTTP_PROXY`` is honoured by the client a controller makes itself,
    sync and async (its calls bypassed the proxy)."""
    endpoint = RestEndpoint(url_prefix="http://api.example.invalid", path="/x")
    with Controller() as controller:
        assert controller.fetch(endpoint) == {"proxied": True}
    async with AsyncController() as async_controller:
        assert await async_controller.fetch(endpoint) == {"proxied": True}
    assert len(proxy.wire) == 2
    for request in proxy.wire:
        assert request.startswith(b"GET http://api.example.invalid/x HTTP/1.1\r\n")


@pytest.mark.parametrize("path", PATHS, ids=str)
async def test_no_error_shows_a_header_it_refused(
    path: CallPath, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 200 KiB ``Set-Cookie`` line is refused; the error names no part of it."""
    endpoint = RestEndpoint(url_prefix=server.origin, path="/secret-line")
    async with opened(path, monkeypatch) as controller:
        with pytest.raises(TransportError) as caught:
            await call(controller, path, endpoint)
    shown = f"{caught.value} {caught.value.__cause__}"
    assert "SECRET-COOKIE" not in shown
    assert "sss" not in shown


def test_one_async_controller_serves_one_event_loop_after_another(
    server: ScriptedServer,
) -> None:
    """A controller used from a second event loop (``asyncio.run`` twice)
    gets a pool of that loop: no ``Event loop is closed`` on every call."""
    endpoint = RestEndpoint(url_prefix=server.origin, path="/json")
    controller = AsyncController()
    try:
        for number in range(3):
            assert asyncio.run(controller.fetch(endpoint, {"n": number})) == {
                "route": "json"
            }
    finally:
        asyncio.run(controller.close())


def test_a_given_clients_pool_of_a_closed_loop_is_a_clear_error(
    server: ScriptedServer,
) -> None:
    """A client the user gave is theirs (restwire makes it no new pool): a
    call whose pooled connection belongs to a closed loop is a
    ``TransportError`` that says what to do, not a bare ``RuntimeError``."""
    endpoint = RestEndpoint(url_prefix=server.origin, path="/json")
    with warnings.catch_warnings():
        # the connection the first loop left in the user's pool is theirs to
        # close, and no loop can close it now: it warns as it goes
        warnings.simplefilter("ignore", ResourceWarning)
        client = httpx.AsyncClient()
        controller = AsyncController(client)
        assert asyncio.run(controller.fetch(endpoint, {"n": 1})) == {"route": "json"}
        with pytest.raises(TransportError, match="event loop that has closed"):
            asyncio.run(controller.fetch(endpoint, {"n": 2}))
        del client, controller
        gc.collect()


@pytest.mark.parametrize("path", PATHS, ids=str)
async def test_an_idempotent_request_whose_connection_drops_goes_once_more(
    path: CallPath, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GET whose reused connection drops before any answer is sent once
    more, on a new one, on every path; a POST is never sent twice."""
    reading = RestEndpoint(url_prefix=server.origin, path="/drop-second")
    writing = reading.extend(method="POST")
    server.requests()
    async with opened(path, monkeypatch) as controller:
        assert await call(controller, path, reading, {"n": 1}) == {"route": "other"}
        assert await call(controller, path, reading, {"n": 2}) == {"route": "other"}
    assert len(server.requests()) == 3  # the second GET, twice
    async with opened(path, monkeypatch) as controller:
        await call(controller, path, writing, None, {"n": 3})
        with pytest.raises(TransportError):
            await call(controller, path, writing, None, {"n": 4})
    assert len(server.requests()) == 2  # each POST once


@pytest.mark.parametrize("path", PATHS, ids=str)
async def test_a_multipart_upload_follows_a_307(
    path: CallPath, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files in memory are sent again to where a 307 points, byte for byte
    (every path refused them as a one-shot body)."""
    endpoint = RestEndpoint(
        url_prefix=server.origin, path="/redirect/307?to=/json", method="POST"
    )
    form = Form({"a": "1"}, files={"f": ("a.txt", b"hi")})
    server.requests()
    async with opened(path, monkeypatch) as controller:
        assert await call(controller, path, endpoint, None, form) == {"route": "json"}
    first, second = server.requests()
    assert first.partition(b"\r\n\r\n")[2] == second.partition(b"\r\n\r\n")[2]
    assert b'filename="a.txt"' in second


@pytest.mark.parametrize(
    ("headers", "wrong"),
    [
        ({"X-Name": "café"}, "not ASCII"),
        ({"X Forwarded": "1"}, "'X Forwarded' cannot be sent"),
        ({"X-Tenant: 7": "1"}, "'X-Tenant: 7' cannot be sent"),
        ({"X-Token": "a\r\nb"}, "not one HTTP can carry"),
    ],
)
def test_a_header_http_cannot_carry_is_refused_where_it_is_written(
    headers: dict[str, str], wrong: str
) -> None:
    """Where the endpoint is written, naming the header, never its value."""
    with pytest.raises(SettingError, match=wrong) as caught:
        RestEndpoint(url_prefix="http://x.invalid", headers=headers)
    for value in headers.values():
        if len(value) > 2:
            assert value not in str(caught.value)


@pytest.mark.parametrize("path", PATHS, ids=str)
async def test_a_header_a_middleware_set_wrong_is_refused_before_sending(
    path: CallPath, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On every path the same ``InvalidRequest``, and nothing sent (one
    path's writer refused it, another sent it)."""

    class Tenant:
        def on_request(self, exchange: Any) -> None:
            exchange.headers["X Tenant"] = "7"

    endpoint = RestEndpoint(
        url_prefix=server.origin, path="/json", middleware=[Tenant()]
    )
    server.requests()
    async with opened(path, monkeypatch) as controller:
        with pytest.raises(InvalidRequest, match="X Tenant") as caught:
            await call(controller, path, endpoint)
    assert isinstance(caught.value, RestwireError)
    assert server.requests() == []
