"""Both libraries in one process: httpx's and httpx2's clients side by side.

A controller sends with the library of the client (or transport) it is
given, and everything a caller gets back is of that library: the response,
its request, the exchange's headers and URL, the ``__cause__`` of an error.
Each test runs under both drivers, with each library, against the real
servers of ``tests/servers.py`` where a socket matters (redirects, a coded
body, a refused connection) and a ``MockTransport`` where it does not.

The tests need httpx and httpx2 both installed (the first CI venv); in the
venv with httpx2 alone they are skipped, and the whole suite runs on httpx2
there instead (``tests/conftest.py``).
"""

from __future__ import annotations

import importlib.util
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from restwire import (
    AsyncController,
    Controller,
    Exchange,
    HttpCache,
    NetworkError,
    RestEndpoint,
    TransportError,
)
from restwire._base.library import DEFAULT, LIBRARIES, library_of
from tests.conftest import Awaitable
from tests.counting_server import CountingServer
from tests.servers import RecordingServer

BOTH = importlib.util.find_spec("httpx") is not None and len(LIBRARIES) == 2
pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        not BOTH,
        reason="needs httpx and httpx2 both installed (here only one is); "
        "the suite itself runs on httpx2 in this venv",
    ),
]

if BOTH:
    import httpx
    import httpx2

    KINDS: list[ModuleType] = [httpx, httpx2]
else:
    KINDS = list(LIBRARIES)


@pytest.fixture(params=KINDS, ids=lambda module: module.__name__)
def library(request: pytest.FixtureRequest) -> ModuleType:
    module: ModuleType = request.param
    return module


Make = Callable[..., Any]


@pytest.fixture
async def make(mode: str, library: ModuleType) -> AsyncIterator[Make]:
    """``make(client_options..., controller_options=...)``: a controller of
    this test's driver on a client of this test's library."""
    made: list[Any] = []

    def build(cache: HttpCache | None = None, **client_options: Any) -> Any:
        if mode == "sync":
            controller = Controller(library.Client(**client_options), cache=cache)
            made.append(controller)
            return Awaitable(controller)
        async_controller = AsyncController(
            library.AsyncClient(**client_options), cache=cache
        )
        made.append(async_controller)
        return async_controller

    yield build
    for controller in made:
        if isinstance(controller, Controller):
            controller.client.close()
            controller.close()
        else:
            await controller.client.aclose()
            await controller.close()


class Seen:
    """A middleware that keeps the types of what the exchange holds."""

    def __init__(self) -> None:
        self.types: dict[str, type] = {}

    def on_request(self, exchange: Exchange) -> None:
        self.types["headers"] = type(exchange.headers)
        self.types["url"] = type(exchange.url)

    def on_response(self, exchange: Exchange) -> None:
        self.types["response"] = type(exchange.response)


def test_library_of_follows_the_class_and_its_bases() -> None:
    class Transport(httpx2.BaseTransport):
        pass

    assert library_of(httpx.Client()) is httpx
    assert library_of(httpx2.AsyncClient()) is httpx2
    assert library_of(Transport()) is httpx2
    assert library_of(httpx2.URL("https://a.example/")) is httpx2
    assert library_of(object()) is DEFAULT is httpx
    assert library_of(object(), default=httpx2) is httpx2


async def test_what_a_call_gives_back_is_of_its_clients_library(
    make: Make, library: ModuleType, origin_a: RecordingServer
) -> None:
    seen = Seen()
    echo = RestEndpoint(url_prefix=origin_a.url(""), path="/echo").use(seen)
    controller = make()
    value = await controller.fetch(echo)
    assert value["method"] == "GET"
    # a call's headers are its library's (a subclass that checks the names
    # a middleware sets: ``_endpoints.options.call_headers``)
    headers = seen.types.pop("headers")
    assert [m for m in LIBRARIES if issubclass(headers, m.Headers)] == [library]
    assert seen.types == {"url": library.URL, "response": library.Response}
    response = await controller.fetch_response(echo)
    assert type(response) is library.Response
    assert type(response.request) is library.Request
    assert type(response.headers) is library.Headers


async def test_a_redirect_and_a_coded_body_on_either_library(
    make: Make, library: ModuleType, origin_a: RecordingServer
) -> None:
    controller = make()
    gzip_url = origin_a.url("/gzip")
    endpoint = RestEndpoint(url_prefix=origin_a.url(""), path="/redirect/307")
    response = await controller.fetch_response(endpoint, {"to": gzip_url})
    assert response.status_code == 200
    assert type(response) is library.Response
    assert [type(hop) for hop in response.history] == [library.Response]
    assert type(response.history[0].request) is library.Request
    assert response.json()  # decoded by restwire's stream, which both accept


async def test_an_error_keeps_its_clients_librarys_cause(
    make: Make, library: ModuleType
) -> None:
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    controller = make()
    refused = RestEndpoint(url_prefix=f"http://127.0.0.1:{port}", path="/x")
    with pytest.raises(TransportError, match=r"GET http://127\.0\.0\.1") as caught:
        await controller.fetch(refused)
    assert isinstance(caught.value.__cause__, library.ConnectError)


async def test_a_timeout_is_named_by_its_setting_on_either_library(
    make: Make, library: ModuleType
) -> None:
    def too_slow(request: Any) -> Any:
        raise library.ReadTimeout("timed out", request=request)

    controller = make(transport=library.MockTransport(too_slow))
    endpoint = RestEndpoint(url_prefix="https://api.example", timeout=3)
    with pytest.raises(TransportError, match=r"nothing came for 3 s") as caught:
        await controller.fetch(endpoint)
    assert type(caught.value.__cause__) is library.ReadTimeout


async def test_a_status_error_carries_its_clients_response(
    make: Make, library: ModuleType, origin_a: RecordingServer
) -> None:
    controller = make()
    missing = RestEndpoint(url_prefix=origin_a.url(""), path="/status/404")
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(missing)
    assert caught.value.status == 404
    assert type(caught.value.response) is library.Response


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_transport_picks_the_library_of_the_client_restwire_makes(
    library: ModuleType, asynchronous: bool
) -> None:
    def answer(request: Any) -> Any:
        return library.Response(200, json={"ok": True})

    transport = library.MockTransport(answer)
    controller: Any = (
        AsyncController(transport=transport)
        if asynchronous
        else Controller(transport=transport)
    )
    kind = library.AsyncClient if asynchronous else library.Client
    assert type(controller.client) is kind
    if not asynchronous:
        with controller:
            response = controller.fetch_response(
                RestEndpoint(url_prefix="https://a.example")
            )
        assert type(response) is library.Response
        assert response.json() == {"ok": True}


def test_the_wrong_kind_of_client_is_refused_by_name(library: ModuleType) -> None:
    with pytest.raises(
        TypeError,
        match=rf"^Controller takes an httpx\.Client .*, not {library.__name__}\."
        r"AsyncClient; for that client use AsyncController$",
    ):
        Controller(library.AsyncClient())
    with pytest.raises(TypeError, match=r"for that client use Controller"):
        AsyncController(library.Client())


async def test_controllers_of_both_libraries_run_side_by_side(
    origin_a: RecordingServer,
) -> None:
    echo = RestEndpoint(url_prefix=origin_a.url(""), path="/echo")
    with httpx.Client() as one, httpx2.Client() as two:
        first, second = Controller(one), Controller(two)
        assert type(first.fetch_response(echo)) is httpx.Response
        assert type(second.fetch_response(echo)) is httpx2.Response
        assert type(first.fetch_response(echo)) is httpx.Response
    async with httpx2.AsyncClient() as three, httpx.AsyncClient() as four:
        third, fourth = AsyncController(three), AsyncController(four)
        assert type(await third.fetch_response(echo)) is httpx2.Response
        assert type(await fourth.fetch_response(echo)) is httpx.Response


async def test_http_cache_on_either_library(
    make: Make,
    library: ModuleType,
    tmp_path: Path,
    counting_server: CountingServer,
) -> None:
    cache = HttpCache.sqlite(tmp_path / "cache.db")
    controller = make(cache=cache)
    endpoint = RestEndpoint(
        url_prefix=counting_server.origin, path="/resource/lib", data_expiry_length=0
    )
    first = await controller.fetch_response(endpoint, {"max_age": 60})
    again = await controller.fetch_response(endpoint, {"max_age": 60})
    assert type(first) is type(again) is library.Response
    assert type(again.request) is library.Request
    assert again.extensions["caching"]["from_cache"] is True
    assert again.json() == first.json()
    assert counting_server.counts["lib:full"] == 1
