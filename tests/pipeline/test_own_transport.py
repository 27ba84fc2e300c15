"""The client an ``AsyncController`` makes for itself sends on aiohttp's pool
when aiohttp is installed, and on the library's own transport for a call
that runs outside asyncio or that a mock of that transport (or of its
pool) is to see; without aiohttp, or with a broken one, on the library's
own transport from the start."""

from __future__ import annotations

import importlib
import logging
import sys
from typing import Any
from unittest import mock

import httpx
import pytest
from pytest_httpx import HTTPXMock

pytest.importorskip("aiohttp", reason="aiohttp's pool needs restwire[fast]")

from restwire import AsyncController, MissingExtra, RestEndpoint
from restwire._wire import default_transport as _own_transport
from restwire._wire.fast_transport import _Transport
from restwire._wire.library_pool import PerLoop
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio


def _transport(controller: AsyncController) -> Any:
    return controller._adapter.transport


def _on_the_library_pool(transport: Any) -> bool:
    """Whether ``transport`` is httpx's own (one per event loop)."""
    return isinstance(transport, PerLoop) and (transport._library is httpx)


@pytest.fixture
def imported_under_a_mock(
    httpx_mock: HTTPXMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The library's functions as restwire takes them when it is imported
    while pytest-httpx's mock is in place (given back after the test)."""
    points = _own_transport._patch_points(httpx)
    monkeypatch.setitem(_own_transport._PATCH_POINTS, httpx, points)


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_own_client_sends_on_aiohttp(origin_a: RecordingServer) -> None:
    endpoint = RestEndpoint(url_prefix=origin_a.origin, path="/echo")
    async with AsyncController() as controller:
        transport = _transport(controller)
        assert isinstance(transport, _Transport)
        value = await controller.fetch(endpoint, {"q": "1"})
        assert value["path"] == "/echo?q=1"
        assert transport._session is not None  # aiohttp's pool sent it
        assert transport.fallback._own._transport is None  # not httpx's
    assert transport._session.closed


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_under_trio_the_library_transport_sends(
    origin_a: RecordingServer,
) -> None:
    endpoint = RestEndpoint(url_prefix=origin_a.origin, path="/echo")
    async with AsyncController() as controller:
        transport = _transport(controller)
        value = await controller.fetch(endpoint, {"q": "2"})
        assert value["path"] == "/echo?q=2"
        assert transport._session is None  # aiohttp's pool was never opened
        own = transport.fallback._own._transport
        assert isinstance(own, httpx.AsyncHTTPTransport)
    assert own._pool.connections == []  # closed with the controller


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_pytest_httpx_sees_every_call(httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(url="https://api.test/users/1", json={"id": 1})
    endpoint = RestEndpoint(url_prefix="https://api.test", path="/users/:id")
    async with AsyncController() as controller:
        assert await controller.fetch(endpoint, {"id": 1}) == {"id": 1}
        assert _transport(controller)._session is None
    assert httpx_mock.get_request() is not None


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_controller_made_before_the_mock_still_sends_to_it(
    httpx_mock: HTTPXMock,
) -> None:
    """The choice is made per call: a controller made at import time (a
    module's global) is mocked as well in a test that mocks."""
    httpx_mock.add_response(json=[])
    endpoint = RestEndpoint(url_prefix="https://api.test", path="/users")
    controller = AsyncController()
    try:
        assert await controller.fetch(endpoint) == []
    finally:
        await controller.close()


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_mock_of_the_pool_sees_every_call() -> None:
    """respx patches httpcore's pool (httpx2's is httpcore2) with
    ``autospec``, whose function carries the pool's own module name: the
    function itself is compared."""
    pool = importlib.import_module(_own_transport._POOLS[httpx.__name__])
    answers: list[str] = []

    async def answer(connections: Any, request: Any) -> Any:
        answers.append(bytes(request.url.target).decode())
        return pool.Response(
            200,
            headers=[(b"content-type", b"application/json")],
            content=b'{"ok": true}',
        )

    endpoint = RestEndpoint(url_prefix="https://api.test", path="/ping")
    with mock.patch.object(
        pool.AsyncConnectionPool,
        "handle_async_request",
        autospec=True,
        side_effect=answer,
    ):
        async with AsyncController() as controller:
            assert await controller.fetch(endpoint) == {"ok": True}
    assert answers == ["/ping"]


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_mock_in_place_at_the_first_choice_is_never_bypassed(
    httpx_mock: HTTPXMock, imported_under_a_mock: None
) -> None:
    """restwire takes the library's own functions as it is imported; if a
    mock held their place then, it cannot know them: every call goes to the
    library's transport, mocked or not (slower, never past a mock)."""
    httpx_mock.add_response(url="https://api.test/a", json={"mocked": True})
    async with AsyncController() as controller:
        endpoint = RestEndpoint(url_prefix="https://api.test", path="/a")
        assert await controller.fetch(endpoint) == {"mocked": True}
    [(transport, found), *_] = _own_transport._PATCH_POINTS[httpx]
    assert transport is httpx.AsyncHTTPTransport
    assert found is None


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_without_aiohttp_the_library_transport(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_own_transport, "find_spec", lambda name: None)
    async with AsyncController() as controller:
        assert _on_the_library_pool(_transport(controller))


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_blocked_aiohttp_the_library_transport(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``sys.modules["aiohttp"] = None`` (how a program forbids an import)
    counts as not installed, with no attempt to import it."""
    monkeypatch.setitem(sys.modules, "aiohttp", None)
    async with AsyncController() as controller:
        assert _on_the_library_pool(_transport(controller))


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_broken_aiohttp_costs_a_warning_and_the_library_transport(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(**options: Any) -> Any:
        raise MissingExtra("fast_transport()", "aiohttp", broken=ImportError("no yarl"))

    monkeypatch.setattr(_own_transport, "fast_transport", broken)
    with caplog.at_level(logging.WARNING, logger="restwire"):
        async with AsyncController() as controller:
            assert _on_the_library_pool(_transport(controller))
    [record] = caplog.records
    assert "cannot be imported (no yarl)" in record.getMessage()
    assert f"sending on {httpx.__name__}'s own pool" in record.getMessage()


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_given_transport_is_used_as_given(httpx_mock: HTTPXMock) -> None:
    """A user's transport is not second-guessed, even under a mock."""
    httpx_mock.add_response(json={"from": "mock"})
    given = httpx.AsyncHTTPTransport()
    async with AsyncController(transport=given) as controller:
        assert _transport(controller) is given
        endpoint = RestEndpoint(url_prefix="https://api.test", path="/x")
        assert await controller.fetch(endpoint) == {"from": "mock"}
