"""``fast_transport(verify=SSL_CONTEXT)``: restwire's transport on aiohttp's pool, over real
sockets, with restwire's rules intact: no cookie jar of aiohttp's own,
bodies decoded (and bounded) by restwire, redirects followed by restwire;
requests on the wire as httpx's own transport sends them; small bodies read
whole, others streamed; httpx's errors; no connection kept by a read that
failed, was cancelled or was closed early."""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import httpx2
import pytest

pytest.importorskip(
    "aiohttp", reason="fast_transport(verify=SSL_CONTEXT) needs restwire[fast]"
)

from restwire import (
    AsyncController,
    BodyTooLarge,
    RestEndpoint,
    TransportError,
    fast_transport,
)
from restwire._wire.fast_transport import WHOLE_BODY
from restwire.middlewares import CookieCredentials
from tests.conftest import SSL_CONTEXT
from tests.servers import RecordingServer, WireServer, ok_answer
from tests.waiting import HANG

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # aiohttp runs on asyncio alone


async def test_a_fetch_goes_through_aiohttp_and_back(origin_a: RecordingServer) -> None:
    endpoint = RestEndpoint(url_prefix=origin_a.origin, path="/echo")
    async with AsyncController(
        transport=fast_transport(verify=SSL_CONTEXT)
    ) as controller:
        value = await controller.fetch(endpoint, {"q": "1"})
    assert value["method"] == "GET"
    assert [request.path for request in origin_a.requests] == ["/echo?q=1"]


async def test_aiohttp_keeps_no_cookie_of_its_own(origin_a: RecordingServer) -> None:
    """A cookie a response set is sent only as restwire's jar and rules say:
    with ``credentials="omit"`` it is not sent (aiohttp's own jar would)."""
    # (by name: aiohttp's jar takes no cookie from an IP address)
    named = origin_a.origin.replace("127.0.0.1", "localhost")
    setting = RestEndpoint(url_prefix=named, path="/set-cookie")
    omitting = RestEndpoint(url_prefix=named, path="/echo").use(
        CookieCredentials("omit")
    )
    async with AsyncController(
        transport=fast_transport(verify=SSL_CONTEXT)
    ) as controller:
        await controller.fetch_response(setting, {"session": "alice"})
        await controller.fetch(omitting)
    assert "cookie" not in origin_a.requests[-1].headers


async def test_bodies_are_decoded_and_bounded_by_restwire(
    origin_a: RecordingServer,
) -> None:
    """aiohttp hands the body over as sent: restwire decodes it, and stops
    a bomb at ``max_body_size`` counted in decoded bytes."""
    gzipped = RestEndpoint(url_prefix=origin_a.origin, path="/gzip")
    bomb = RestEndpoint(url_prefix=origin_a.origin, path="/bomb", max_body_size=1 << 20)
    small_bomb = bomb.extend(max_body_size=1024)
    async with AsyncController(
        transport=fast_transport(verify=SSL_CONTEXT)
    ) as controller:
        assert await controller.fetch(gzipped) == {"compressed": True}
        with pytest.raises(BodyTooLarge):
            await controller.fetch(bomb, {"coding": "gzip", "size": 64 << 20})
        # one read whole by the transport (a few KB sent): bounded all the same
        with pytest.raises(BodyTooLarge):
            await controller.fetch(small_bomb, {"coding": "gzip", "size": 1 << 20})


async def test_a_plain_body_read_whole_is_bounded_all_the_same(
    origin_a: RecordingServer,
) -> None:
    """A body sent as it is, read whole by the transport, is taken as it is
    (restwire reads it without its driver) and still refused past
    ``max_body_size``."""
    file = RestEndpoint(url_prefix=origin_a.origin, path="/file", max_body_size=1000)
    async with AsyncController(
        transport=fast_transport(verify=SSL_CONTEXT)
    ) as controller:
        response = await controller.fetch_response(file, {"size": 1000})
        assert len(response.content) == response.num_bytes_downloaded == 1000
        with pytest.raises(BodyTooLarge):
            await controller.fetch_response(file, {"size": 1001})


async def test_redirects_are_followed_by_restwire(origin_a: RecordingServer) -> None:
    target = origin_a.url("/echo")
    endpoint = RestEndpoint(
        url_prefix=origin_a.origin, path=f"/redirect/302?to={target}"
    )
    async with AsyncController(
        transport=fast_transport(verify=SSL_CONTEXT)
    ) as controller:
        response = await controller.fetch_response(endpoint)
    assert [hop.status_code for hop in response.history] == [302]
    assert response.json()["path"] == "/echo"


def test_without_the_extra_it_says_what_to_install(monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "aiohttp", None)
    with pytest.raises(ImportError, match=r'pip install "restwire\[fast\]"'):
        fast_transport()


# -- the request on the wire ---------------------------------------------------------


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


async def _body() -> AsyncIterator[bytes]:
    yield b"hello "
    yield b"world"


#: Requests as an application's client builds them, and as built by hand.
REQUESTS: dict[str, Callable[[httpx.AsyncClient, str], httpx.Request]] = {
    "GET with a query": lambda client, url: client.build_request(
        "GET", url, params={"q": "ü ?&", "page": "2"}
    ),
    "headers of the call": lambda client, url: client.build_request(
        "GET",
        url,
        headers=[("Authorization", "Bearer t"), ("X-Tag", "a"), ("x-tag", "b")],
    ),
    "a request built by hand": lambda client, url: httpx.Request("GET", url),
    "its own Host": lambda client, url: client.build_request(
        "GET", url, headers={"Host": "elsewhere.example"}
    ),
    "a UTF-8 header": lambda client, url: client.build_request(
        "GET", url, headers={b"X-Name": "café".encode()}
    ),
    "POST of JSON": lambda client, url: client.build_request(
        "POST", url, json={"a": 1}
    ),
    "POST of untyped bytes": lambda client, url: client.build_request(
        "POST", url, content=b"raw"
    ),
    "POST of nothing": lambda client, url: client.build_request("POST", url),
    "PUT of nothing": lambda client, url: client.build_request("PUT", url),
    "a form": lambda client, url: client.build_request("POST", url, data={"a": "1"}),
    "a stream": lambda client, url: client.build_request("POST", url, content=_body()),
    "a stream of a stated length": lambda client, url: client.build_request(
        "PATCH", url, content=_body(), headers={"Content-Length": "11"}
    ),
}


async def _sent(wire: WireServer, transport: Any, request: httpx.Request) -> bytes:
    response = await transport.handle_async_request(request)
    await response.aread()
    await transport.aclose()
    return wire.wire[-1]


@pytest.mark.parametrize("case", REQUESTS)
async def test_a_request_goes_out_as_httpx_sends_it(
    wire: WireServer, case: str
) -> None:
    """Byte for byte what httpx's own transport sends: method, path and
    query as the URL encodes them, headers in order, body and its framing;
    aiohttp adds none of its defaults (``Accept``, ``User-Agent``,
    ``Content-Type``) the request lacks."""
    url = wire.url("/a%20b/ü")
    async with httpx.AsyncClient() as client:
        httpx_sent = await _sent(
            wire,
            httpx.AsyncHTTPTransport(verify=SSL_CONTEXT),
            REQUESTS[case](client, url),
        )
        fast_sent = await _sent(
            wire, fast_transport(verify=SSL_CONTEXT), REQUESTS[case](client, url)
        )
    if case == "headers of the call":
        # a repeated name takes its first spelling (aiohttp would drop the
        # values of a name spelt another way): the same header to HTTP
        httpx_sent = httpx_sent.replace(b"\r\nx-tag: b", b"\r\nX-Tag: b")
    assert fast_sent == httpx_sent


async def test_what_aiohttp_would_send_otherwise_is_sent_as_httpx_sends_it(
    wire: WireServer,
) -> None:
    """aiohttp gives a bodiless DELETE ``Content-Length: 0`` and writes a
    header value that is not UTF-8 as UTF-8: the first goes without it, as
    httpx sends it; the second on the library's own pool, byte for byte."""
    async with httpx.AsyncClient() as client:
        deleting = client.build_request("DELETE", wire.url("/x"))
        sent = await _sent(wire, fast_transport(verify=SSL_CONTEXT), deleting)
        assert b"content-length" not in sent.lower()
        naming = client.build_request(
            "GET", wire.url("/x"), headers={b"X-Name": "café".encode("latin-1")}
        )
        sent = await _sent(wire, fast_transport(verify=SSL_CONTEXT), naming)
        assert b"\r\nX-Name: caf\xe9\r\n" in sent


# -- bodies read whole, or as they come -----------------------------------------------


class Scripted:
    """A response of ``length`` bytes written in two parts: the head and the
    ``first`` bytes of the body, then, once ``go`` is set (or after 10 s),
    the rest. ``rest_sent`` is set just before the rest goes out."""

    def __init__(self, length: int, first: int) -> None:
        self.body = bytes(index % 251 for index in range(length))
        self.first = first
        self.go = threading.Event()
        self.rest_sent = threading.Event()

    def __call__(self, connection: socket.socket) -> None:
        head = b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(self.body)
        connection.sendall(head + self.body[: self.first])
        self.go.wait(HANG)
        self.rest_sent.set()
        connection.sendall(self.body[self.first :])


async def test_a_small_body_is_read_whole(wire: WireServer) -> None:
    """A body of at most ``WHOLE_BODY`` bytes is in when the response is
    handed over, in one piece, and its connection back in the pool: with
    one connection, the next request goes out before this body is read."""
    script = wire.respond = Scripted(WHOLE_BODY, first=100)
    script.go.set()
    transport = fast_transport(max_connections=1, verify=SSL_CONTEXT)
    request = httpx.Request("GET", wire.url("/small"))
    response = await transport.handle_async_request(request)
    assert script.rest_sent.is_set()
    wire.respond = ok_answer
    other = await transport.handle_async_request(
        httpx.Request("GET", wire.url("/next"), extensions=_timeout(pool=HANG))
    )
    assert await other.aread() == b"ok"
    assert [chunk async for chunk in response.aiter_raw()] == [script.body]
    assert response.num_bytes_downloaded == WHOLE_BODY
    await transport.aclose()


async def test_a_large_body_comes_as_it_arrives(wire: WireServer) -> None:
    """A longer body is handed over before it is all in, read in chunks."""
    script = wire.respond = Scripted(WHOLE_BODY + 1, first=1000)
    transport = fast_transport(verify=SSL_CONTEXT)
    response = await asyncio.wait_for(
        transport.handle_async_request(httpx.Request("GET", wire.url("/large"))), HANG
    )
    assert not script.rest_sent.is_set()
    script.go.set()
    chunks = [chunk async for chunk in response.aiter_raw()]
    assert len(chunks) > 1
    assert b"".join(chunks) == script.body
    await transport.aclose()


async def test_a_body_of_unknown_length_comes_as_it_arrives(
    origin_a: RecordingServer,
) -> None:
    url = origin_a.url("/sse/feed?do=sse&events=3&then=end")
    async with httpx.AsyncClient(
        transport=fast_transport(verify=SSL_CONTEXT)
    ) as client:
        response = await client.get(url)
    assert response.text.count("event: price") == 3


# -- errors ------------------------------------------------------------------------------


def _timeout(**seconds: float) -> dict[str, Any]:
    return {"timeout": httpx.Timeout(5.0, **seconds).as_dict()}


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _send_and_read(transport: Any, request: httpx.Request) -> None:
    response = await transport.handle_async_request(request)
    try:
        await response.aread()
    finally:
        await response.aclose()


async def _failure(transport: Any, request: httpx.Request) -> httpx.RequestError:
    """The error of sending ``request`` and reading its body."""
    with pytest.raises(httpx.RequestError) as caught:
        await _send_and_read(transport, request)
    await transport.aclose()
    return caught.value


ERRORS: dict[str, tuple[str, dict[str, float], type[httpx.RequestError]]] = {
    "nobody listening": ("http://127.0.0.1:{closed}/x", {}, httpx.ConnectError),
    "TLS to a plain server": ("https://{a_host}/x", {}, httpx.ConnectError),
    "no answer in time": ("{a}/slow?seconds=1", {"read": 0.2}, httpx.ReadTimeout),
    "a body that stops coming": (
        "{a}/raw?case=stall",
        {"read": 0.2},
        httpx.ReadTimeout,
    ),
    "hung up with no answer": ("{a}/steps/gone?do=drop", {}, httpx.RemoteProtocolError),
    "not HTTP": ("{a}/raw?case=bad-status", {}, httpx.RemoteProtocolError),
    "a short body cut": ("{a}/raw?case=short", {}, httpx.ReadError),
    "a long body cut": ("{a}/broken?size=1000000", {}, httpx.ReadError),
    "not an http URL": ("ftp://127.0.0.1/x", {}, httpx.UnsupportedProtocol),
}


@pytest.mark.parametrize("case", ERRORS)
async def test_errors_are_httpx_errors_with_their_request(
    origin_a: RecordingServer, case: str
) -> None:
    """Each failure is the httpx error httpx's own transport raises for it,
    with the request attached, and no text of it (nor of its causes) holds
    the URL's query."""
    template, seconds, expected = ERRORS[case]
    url = template.format(
        a=origin_a.origin, a_host=origin_a.origin[7:], closed=_closed_port()
    )
    request = httpx.Request(
        "GET", f"{url}&token=secret", extensions=_timeout(**seconds)
    )
    error = await _failure(fast_transport(verify=SSL_CONTEXT), request)
    assert type(error) is expected
    assert error.request is request
    chain: BaseException | None = error
    while chain is not None:  # as a traceback shows it
        assert "secret" not in str(chain)
        suppressed = chain.__suppress_context__
        chain = chain.__cause__ or (None if suppressed else chain.__context__)


async def test_each_request_has_its_own_timeouts(origin_a: RecordingServer) -> None:
    """One transport, two read timeouts: each request waits as long as its
    own says (aiohttp's timeouts are kept per distinct set, at most 64)."""
    transport = fast_transport(verify=SSL_CONTEXT)
    url = origin_a.url("/slow?seconds=0.5")
    hasty = httpx.Request("GET", url, extensions=_timeout(read=0.1))
    patient = httpx.Request("GET", url, extensions=_timeout(read=5.0))
    with pytest.raises(httpx.ReadTimeout):
        await transport.handle_async_request(hasty)
    response = await transport.handle_async_request(patient)
    assert await response.aread() == b"{}"
    for tenths in range(100):
        transport._timeout({"read": tenths / 10})
    assert len(transport._timeouts) <= 64
    await transport.aclose()


async def test_a_header_aiohttp_refuses_is_a_local_protocol_error(
    wire: WireServer,
) -> None:
    request = httpx.Request("GET", wire.url("/x"), headers={"X-Bad": "a\nb"})
    error = await _failure(fast_transport(verify=SSL_CONTEXT), request)
    assert type(error) is httpx.LocalProtocolError
    assert wire.wire == []


async def test_no_free_connection_in_time_is_a_pool_timeout(wire: WireServer) -> None:
    """With every connection taken (by a body still being read), a request
    waits for one as long as its pool timeout says; one comes free as
    soon as the body is closed."""
    script = wire.respond = Scripted(WHOLE_BODY * 4, first=1000)
    transport = fast_transport(max_connections=1, verify=SSL_CONTEXT)
    taking = await transport.handle_async_request(httpx.Request("GET", wire.url("/1")))
    waiting = httpx.Request("GET", wire.url("/2"), extensions=_timeout(pool=0.2))
    with pytest.raises(httpx.PoolTimeout) as caught:
        await transport.handle_async_request(waiting)
    assert caught.value.request is waiting
    await taking.aclose()  # before its end: the connection is closed
    script.go.set()
    answer = await transport.handle_async_request(
        httpx.Request("GET", wire.url("/3"), extensions=_timeout(pool=HANG))
    )
    assert len(await answer.aread()) == len(script.body)
    await transport.aclose()


# -- cancelled reads ---------------------------------------------------------------------


@pytest.mark.parametrize("length", [WHOLE_BODY, WHOLE_BODY * 4])
async def test_a_read_cancelled_midway_gives_its_connection_back(
    wire: WireServer, length: int
) -> None:
    """A call cancelled while its body is coming (read whole by the
    transport, or in chunks by restwire) leaves no connection taken: with
    one connection, the next call goes through."""
    wire.respond = Scripted(length, first=1000)  # the rest never comes
    endpoint = RestEndpoint(url_prefix=wire.origin, path="/stalled")
    transport = fast_transport(max_connections=1, verify=SSL_CONTEXT)
    async with AsyncController(transport=transport) as controller:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(controller.fetch(endpoint), 0.3)
        assert transport.busy == 0
        wire.respond = ok_answer
        following = RestEndpoint(url_prefix=wire.origin, path="/next")
        answer = await controller.fetch_response(following)
    assert answer.content == b"ok"


async def test_a_stream_closed_early_gives_its_connection_back(
    wire: WireServer,
) -> None:
    wire.respond = Scripted(WHOLE_BODY * 4, first=WHOLE_BODY)
    transport = fast_transport(max_connections=1, verify=SSL_CONTEXT)

    async def read_for_a_while(client: httpx.AsyncClient) -> None:
        async with client.stream("GET", wire.url("/1")) as response:
            async with asyncio.timeout(0.3):
                async for _ in response.aiter_raw():
                    pass

    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(TimeoutError):
            await read_for_a_while(client)
        wire.respond = ok_answer
        answer = await client.get(wire.url("/2"), timeout=httpx.Timeout(5, pool=2))
    assert answer.content == b"ok"


async def test_restwire_reads_a_whole_body_as_a_response_of_its_own(
    origin_a: RecordingServer,
) -> None:
    """A body the transport read whole is read by restwire without a
    wait, and the response is as from any transport: content, timing,
    closed; a streamed one is timed when it closes."""
    short = RestEndpoint(url_prefix=origin_a.origin, path="/file?size=100")
    long = RestEndpoint(url_prefix=origin_a.origin, path="/file?size=100000")
    async with AsyncController(
        transport=fast_transport(verify=SSL_CONTEXT)
    ) as controller:
        for endpoint, size in [(short, 100), (long, 100_000)]:
            response = await controller.fetch_response(endpoint)
            assert response.content == bytes(index % 251 for index in range(size))
            assert response.is_closed
            assert response.elapsed.total_seconds() > 0


async def test_restwire_sees_its_own_transport_error(origin_a: RecordingServer) -> None:
    endpoint = RestEndpoint(url_prefix=origin_a.origin, path="/raw?case=short")
    async with AsyncController(
        transport=fast_transport(verify=SSL_CONTEXT)
    ) as controller:
        with pytest.raises(TransportError) as caught:
            await controller.fetch(endpoint)
    assert isinstance(caught.value.__cause__, httpx.ReadError)


# -- httpx2 ------------------------------------------------------------------------------


async def test_it_serves_httpx2_clients(origin_a: RecordingServer) -> None:
    transport = fast_transport(library=httpx2, verify=SSL_CONTEXT)
    assert isinstance(transport, httpx2.AsyncBaseTransport)
    endpoint = RestEndpoint(url_prefix=origin_a.origin, path="/echo")
    async with AsyncController(transport=transport) as controller:
        response = await controller.fetch_response(endpoint)
        assert isinstance(response, httpx2.Response)
        assert response.json()["path"] == "/echo"
    async with httpx2.AsyncClient(
        transport=fast_transport(library=httpx2, verify=SSL_CONTEXT)
    ) as client:
        with pytest.raises(httpx2.ReadError):
            await client.get(origin_a.url("/raw?case=short"))


def test_it_serves_the_libraries_restwire_knows() -> None:
    with pytest.raises(TypeError, match="takes the module"):
        fast_transport(library=sys)
