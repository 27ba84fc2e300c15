"""A ``Host`` that is not the URL's own authority keys a call (issue 41):
two endpoints to one address told apart by ``Host`` alone (virtual hosts,
a tenant per host) reach two origins, so nothing one leaves (the store,
the HTTP cache on both storages, a poller) answers the other, on
``get``'s fast path (empty jar), its full path, and for named callers.
Against the counting server on 127.0.0.1, whose ``/host`` answers with
the ``Host`` it was sent; redirects against two recording servers."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest

from restwire import AsyncController, HttpCache, RestEndpoint
from tests.counting_server import CountingServer
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

Make = Callable[..., Any]


def tenant(server: CountingServer, host: str | None, **options: Any) -> RestEndpoint:
    headers = {"Host": host} if host is not None else {}
    return RestEndpoint(
        url_prefix=server.origin, path="/host", headers=headers, **options
    )


@pytest.mark.parametrize("jar", ["empty", "with a cookie"])
async def test_two_hosts_at_one_address_never_share_the_store(
    controller_factory: Make, counting_server: CountingServer, jar: str
) -> None:
    """``get`` reads the store as the call would be sent: the fast path
    (empty jar) and the full path key it as ``fetch`` kept it."""
    controller = controller_factory()
    if jar != "empty":
        controller.client.cookies.set("x", "1", domain="other.example")
    a = tenant(counting_server, "tenant-a.example")
    b = tenant(counting_server, "tenant-b.example")
    assert await controller.fetch(a) == {"host": "tenant-a.example"}
    assert await controller.get(b) == {"host": "tenant-b.example"}
    assert await controller.get(a) == {"host": "tenant-a.example"}
    assert await controller.get(b) == {"host": "tenant-b.example"}
    assert dict(counting_server.counts) == {
        "host:tenant-a.example": 1,
        "host:tenant-b.example": 1,
    }


async def test_a_host_set_on_the_client_keys_its_calls_too(
    controller_factory: Make, counting_server: CountingServer
) -> None:
    a = controller_factory(headers={"Host": "tenant-a.example"})
    endpoint = tenant(counting_server, None)
    assert await a.fetch(endpoint) == {"host": "tenant-a.example"}
    a.client.headers["Host"] = "tenant-b.example"
    assert await a.get(endpoint) == {"host": "tenant-b.example"}
    assert await a.get(endpoint) == {"host": "tenant-b.example"}
    assert counting_server.counts["host:tenant-b.example"] == 1


async def test_the_url_s_own_authority_as_host_is_the_same_call(
    controller_factory: Make, counting_server: CountingServer
) -> None:
    """A ``Host`` naming the URL's own authority (any case) changes nothing:
    the call without it is answered from the store."""
    controller = controller_factory()
    own = counting_server.origin.split("://", 1)[1].upper()
    plain = tenant(counting_server, None)
    assert await controller.fetch(tenant(counting_server, own)) == {"host": own}
    assert await controller.get(plain) == {"host": own}
    assert sum(counting_server.counts.values()) == 1


async def test_named_callers_are_told_apart_by_host_as_well(
    controller_factory: Make, counting_server: CountingServer
) -> None:
    controller = controller_factory(identity=lambda: "alice")
    a = tenant(counting_server, "tenant-a.example")
    b = tenant(counting_server, "tenant-b.example")
    assert await controller.fetch(a) == {"host": "tenant-a.example"}
    assert await controller.get(b) == {"host": "tenant-b.example"}
    assert await controller.get(b) == {"host": "tenant-b.example"}
    assert await controller.get(a) == {"host": "tenant-a.example"}
    assert counting_server.counts["host:tenant-b.example"] == 1


@pytest.mark.parametrize("named", [False, True])
async def test_the_http_cache_keeps_each_host_s_answer_for_it_alone(
    own_controller_factory: Make,
    counting_server: CountingServer,
    cache: HttpCache,
    named: bool,
) -> None:
    """A public answer cached for one virtual host never answers another
    (and still answers its own): the cache key holds the ``Host``."""
    options: dict[str, Any] = {"identity": lambda: "alice"} if named else {}
    controller = own_controller_factory(cache=cache, **options)
    public = {"cc": "public, max-age=60"}
    a = tenant(counting_server, "tenant-a.example", data_expiry_length=0)
    b = tenant(counting_server, "tenant-b.example", data_expiry_length=0)
    for _ in range(2):
        assert await controller.fetch(a, public) == {"host": "tenant-a.example"}
        assert await controller.fetch(b, public) == {"host": "tenant-b.example"}
    assert dict(counting_server.counts) == {
        "host:tenant-a.example": 1,
        "host:tenant-b.example": 1,
    }


async def test_a_poller_per_host(
    controller_factory: Make, counting_server: CountingServer
) -> None:
    controller = controller_factory()
    a = tenant(counting_server, "tenant-a.example")
    b = tenant(counting_server, "tenant-b.example")
    async with contextlib.AsyncExitStack() as stack:
        if isinstance(controller, AsyncController):  # pollers need its task group
            await stack.enter_async_context(controller)
        subscriptions = []
        for endpoint in (a, b, a):
            made = controller.subscribe(endpoint, callback=print, frequency=60)
            subscriptions.append(await made if inspect.isawaitable(made) else made)
        # one poller per request and identity: one per host
        pollers = {id(subscription._poller) for subscription in subscriptions}
        for subscription in subscriptions:
            subscription.cancel()
    assert len(pollers) == 2


def hop_to(server: RecordingServer, to: str) -> str:
    return f"/redirect/302?to={quote(to, safe='')}"


async def test_a_host_stays_with_its_origin_across_redirects(
    controller_factory: Make, origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    """Kept on a redirect within its origin (as httpx keeps it: the virtual
    host answers there too), never sent to another origin."""
    controller = controller_factory()
    onward = origin_a.url(hop_to(origin_a, origin_b.url("/echo")))
    call = RestEndpoint(
        url_prefix=origin_a.origin,
        path=hop_to(origin_a, onward).replace(":", "\\:"),
        headers={"Host": "tenant-a.example"},
    )
    await controller.fetch(call)
    seen_a = [request.headers["host"] for request in origin_a.requests]
    assert seen_a == ["tenant-a.example", "tenant-a.example"]
    own_b = origin_b.origin.split("://", 1)[1]
    assert [request.headers["host"] for request in origin_b.requests] == [own_b]
