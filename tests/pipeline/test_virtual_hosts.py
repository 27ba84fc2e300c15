"""Virtual hosts: two endpoints to one address that ask for different hosts
with a ``Host`` header (a tenant per host) get different answers, so
nothing is shared between them (``_chain.identity.sent_host``): not the
store, not a call in flight, not the HTTP cache, whether the ``Host`` comes
from the endpoint or the client, whether the jar is empty or not, whether
the controller names its callers or not. A ``Host`` that is the URL's own
changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from restwire import HttpCache, RestEndpoint

pytestmark = pytest.mark.anyio

Make = Callable[..., Any]
ADDRESS = "http://10.0.0.5"


def tenant_server(
    cache_control: str | None = None,
) -> tuple[httpx.MockTransport, list[str]]:
    """A server that answers each request with the host it asked for."""
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        host = request.headers["host"]
        asked.append(host)
        headers = {} if cache_control is None else {"Cache-Control": cache_control}
        return httpx.Response(200, json={"tenant": host}, headers=headers)

    return httpx.MockTransport(answer), asked


def tenant(host: str, **options: Any) -> RestEndpoint:
    return RestEndpoint(
        url_prefix=ADDRESS, path="/me", headers={"Host": host}, **options
    )


@pytest.mark.parametrize("jar", ["empty", "holding a cookie for another site"])
@pytest.mark.parametrize("named", [False, True])
async def test_a_tenant_is_never_answered_with_another_s_stored_value(
    controller_factory: Make, jar: str, named: bool
) -> None:
    transport, asked = tenant_server()
    controller = controller_factory(
        transport=transport, identity=(lambda: "alice") if named else None
    )
    if jar != "empty":
        controller.client.cookies.set("x", "1", domain="other.example")
    a, b = tenant("tenant-a.example"), tenant("tenant-b.example")
    assert await controller.fetch(a) == {"tenant": "tenant-a.example"}
    assert await controller.get(b) == {"tenant": "tenant-b.example"}
    assert await controller.get(a) == {"tenant": "tenant-a.example"}  # (kept)
    assert asked == ["tenant-a.example", "tenant-b.example"]


async def test_a_host_the_client_sets_keys_its_calls_too(
    controller_factory: Make,
) -> None:
    transport, _ = tenant_server()
    endpoint = RestEndpoint(url_prefix=ADDRESS, path="/me")
    first = controller_factory(
        transport=transport, headers={"Host": "tenant-a.example"}
    )
    assert await first.fetch(endpoint) == {"tenant": "tenant-a.example"}
    first.client.headers["Host"] = "tenant-b.example"
    assert await first.get(endpoint) == {"tenant": "tenant-b.example"}


async def test_the_url_s_own_host_shares_as_before(controller_factory: Make) -> None:
    """A ``Host`` naming the URL's own authority is what every request
    carries: it does not split callers."""
    transport, asked = tenant_server()
    controller = controller_factory(transport=transport)
    plain = RestEndpoint(url_prefix=ADDRESS, path="/me")
    first = await controller.fetch(plain)
    assert await controller.get(tenant("10.0.0.5")) is first
    assert asked == ["10.0.0.5"]


async def test_calls_in_flight_for_two_tenants_are_two_calls() -> None:
    """Six calls at once, three per tenant: each tenant's join one call of
    its own (the server holds the first answer until a second request
    arrives, so they overlap: one shared call would leave it waiting, then
    answer every caller with tenant a's value)."""
    import anyio

    from restwire import AsyncController

    asked: list[str] = []
    second = anyio.Event()

    async def answer(request: httpx.Request) -> httpx.Response:
        host = request.headers["host"]
        asked.append(host)
        if len(asked) == 1:
            with anyio.move_on_after(5):  # (bounds the wait without the fix)
                await second.wait()
        else:
            second.set()
        return httpx.Response(200, json={"tenant": host})

    found: list[tuple[str, Any]] = []
    async with AsyncController(
        httpx.AsyncClient(transport=httpx.MockTransport(answer))
    ) as controller:

        async def read(host: str) -> None:
            found.append((host, await controller.get(tenant(host))))

        async with anyio.create_task_group() as group:
            for host in ("tenant-a.example", "tenant-b.example") * 3:
                group.start_soon(read, host)
    assert len(found) == 6
    assert all(value == {"tenant": host} for host, value in found)
    assert sorted(asked) == ["tenant-a.example", "tenant-b.example"]


async def test_the_http_cache_keeps_each_tenant_s_entry_apart(
    controller_factory: Make, tmp_path: Path
) -> None:
    transport, asked = tenant_server("public, max-age=60")
    controller = controller_factory(
        transport=transport, cache=HttpCache.sqlite(tmp_path / "cache.db")
    )
    # (the store keeps nothing: every answer comes from the cache or the wire)
    a = tenant("tenant-a.example", data_expiry_length=0)
    b = tenant("tenant-b.example", data_expiry_length=0)
    assert await controller.fetch(a) == {"tenant": "tenant-a.example"}
    assert await controller.fetch(b) == {"tenant": "tenant-b.example"}
    assert await controller.fetch(a) == {"tenant": "tenant-a.example"}
    assert await controller.fetch(b) == {"tenant": "tenant-b.example"}
    assert asked == ["tenant-a.example", "tenant-b.example"]  # then cache hits
