"""``fast_transport()``: aiohttp's pool under an httpx client, over real
sockets, with restwire's rules intact: no cookie jar of aiohttp's own,
bodies decoded (and bounded) by restwire, redirects followed by restwire."""

from __future__ import annotations

import sys
from typing import Any

import pytest

pytest.importorskip("httpx_aiohttp", reason="fast_transport() needs restwire[fast]")

from restwire import AsyncController, BodyTooLarge, RestEndpoint, fast_transport
from restwire.middlewares import CookieCredentials
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # aiohttp runs on asyncio alone


async def test_a_fetch_goes_through_aiohttp_and_back(origin_a: RecordingServer) -> None:
    endpoint = RestEndpoint(url_prefix=origin_a.origin, path="/echo")
    async with AsyncController(transport=fast_transport()) as controller:
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
    async with AsyncController(transport=fast_transport()) as controller:
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
    async with AsyncController(transport=fast_transport()) as controller:
        assert await controller.fetch(gzipped) == {"compressed": True}
        with pytest.raises(BodyTooLarge):
            await controller.fetch(bomb, {"coding": "gzip", "size": 64 << 20})


async def test_redirects_are_followed_by_restwire(origin_a: RecordingServer) -> None:
    target = origin_a.url("/echo")
    endpoint = RestEndpoint(
        url_prefix=origin_a.origin, path=f"/redirect/302?to={target}"
    )
    async with AsyncController(transport=fast_transport()) as controller:
        response = await controller.fetch_response(endpoint)
    assert [hop.status_code for hop in response.history] == [302]
    assert response.json()["path"] == "/echo"


def test_without_the_extra_it_says_what_to_install(monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "httpx_aiohttp", None)
    with pytest.raises(ImportError, match=r'pip install "restwire\[fast\]"'):
        fast_transport()
