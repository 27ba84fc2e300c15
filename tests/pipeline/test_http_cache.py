"""HttpCache: RFC 9111 caching under both controllers, the identity rule
through it, credentials kept out of storage, and no parse for an unchanged
body.

Every test talks to the counting server on 127.0.0.1 over a real socket
(revalidation and ``Cache-Control`` come from a server, not a mock), under
both drivers; the storages are a SQLite file in a temporary folder and a
real redis-server. The four-process promise is in
``tests/processes/test_many_processes.py``.
"""

from __future__ import annotations

import contextvars
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from restwire import AsyncController, Controller, HttpCache, RestEndpoint
from restwire.middlewares import AccessToken, ContextToken
from tests.conftest import Awaitable, FakeClock
from tests.counting_server import CountingServer

pytestmark = pytest.mark.anyio

Make = Callable[..., Any]


@pytest.fixture(params=["sqlite", "redis"])
def cache(request: pytest.FixtureRequest, tmp_path: Path) -> HttpCache:
    if request.param == "sqlite":
        return HttpCache.sqlite(tmp_path / "cache.db")
    redis_url: str = request.getfixturevalue("redis_url")
    return HttpCache.redis(redis_url)


@pytest.fixture
async def make(mode: str) -> AsyncIterator[Make]:
    """``make(cache=..., clock=...)``: a controller of this test's driver
    that owns its client (and so closes its cache storage)."""
    made: list[Any] = []

    def build(**options: Any) -> Any:
        controller: Any
        if mode == "sync":
            controller = Controller(**options)
            made.append(controller)
            return Awaitable(controller)
        controller = AsyncController(**options)
        made.append(controller)
        return controller

    yield build
    for controller in made:
        if isinstance(controller, Controller):
            controller.close()
        else:
            await controller.close()


def resource(server: CountingServer, name: str, **options: Any) -> RestEndpoint:
    return RestEndpoint(url_prefix=server.origin, path=f"/resource/{name}", **options)


async def test_a_stale_get_costs_a_304_and_no_parse(
    make: Make, cache: HttpCache, counting_server: CountingServer
) -> None:
    clock = FakeClock()
    parsed: list[int] = []

    def parse(response: httpx.Response) -> Any:
        parsed.append(1)
        return response.json()

    endpoint = resource(
        counting_server, "a", data_expiry_length=10, parse_response=parse
    )
    controller = make(cache=cache, clock=clock)
    first = await controller.get(endpoint, {"max_age": 1})
    # the store's value stale, and the HTTP entry too (its age counts from
    # the response's Date, whole seconds: fresh for at most 1 s): a 304
    time.sleep(1.1)
    clock.advance(11)
    assert await controller.get(endpoint, {"max_age": 1}) is first
    assert counting_server.counts["a:full"] == 1
    assert counting_server.counts["a:not_modified"] == 1
    assert parsed == [1]  # the body was parsed once, for the first get
    clock.advance(5)  # renewed by the 304: fresh in the store again
    assert await controller.get(endpoint, {"max_age": 1}) is first
    assert counting_server.counts["a:not_modified"] == 1


async def test_without_a_cache_every_refetch_is_a_full_body(
    make: Make, counting_server: CountingServer
) -> None:
    clock = FakeClock()
    endpoint = resource(counting_server, "b", data_expiry_length=10)
    controller = make(clock=clock)
    for _ in range(3):
        await controller.get(endpoint, {"max_age": 60})
        clock.advance(11)
    assert counting_server.counts["b:full"] == 3
    assert counting_server.counts["b:not_modified"] == 0


async def test_no_store_is_never_kept(
    make: Make, cache: HttpCache, counting_server: CountingServer
) -> None:
    endpoint = resource(counting_server, "c", data_expiry_length=0)
    controller = make(cache=cache)
    for _ in range(3):
        await controller.fetch(endpoint, {"max_age": 60, "cc": "no-store"})
    assert counting_server.counts["c:full"] == 3


async def test_a_private_response_is_kept_for_its_identity_alone(
    make: Make, cache: HttpCache, counting_server: CountingServer
) -> None:
    """One controller shared by two users: each user's cached answer is
    served to that user only, with no Vary, with Vary on something else,
    and with Vary naming the credential."""
    user: contextvars.ContextVar[str | None] = contextvars.ContextVar("user")
    whoami = RestEndpoint(
        url_prefix=counting_server.origin, path="/whoami", data_expiry_length=0
    ).use(ContextToken(user, header="Access-Token"))
    controller = make(cache=cache)
    for vary in ("", "Accept-Language", "Access-Token"):
        params = {"vary": vary} if vary else {}
        for name in ("ann", "bob", "ann", "bob"):
            user.set(name)
            assert await controller.fetch(whoami, params) == {"user": name}
    assert counting_server.counts["whoami:ann"] == 3  # once per Vary, not twice
    assert counting_server.counts["whoami:bob"] == 3


async def test_a_shared_response_is_not_shared_between_identities_either(
    make: Make, cache: HttpCache, counting_server: CountingServer
) -> None:
    auth = AccessToken("ann-token")
    whoami = RestEndpoint(
        url_prefix=counting_server.origin, path="/whoami", data_expiry_length=0
    ).use(auth)
    controller = make(cache=cache)
    public = {"cc": "public, max-age=60"}
    assert await controller.fetch(whoami, public) == {"user": "ann-token"}
    auth.token = "bob-token"
    assert await controller.fetch(whoami, public) == {"user": "bob-token"}
    auth.token = "ann-token"
    assert await controller.fetch(whoami, public) == {"user": "ann-token"}
    assert counting_server.counts["whoami:ann-token"] == 1
    assert counting_server.counts["whoami:bob-token"] == 1


async def test_no_credential_reaches_the_storage(
    make: Make, tmp_path: Path, counting_server: CountingServer
) -> None:
    path = tmp_path / "cache.db"
    whoami = RestEndpoint(
        url_prefix=counting_server.origin, path="/whoami", data_expiry_length=0
    ).use(AccessToken("secret-token-value"))
    controller = make(cache=HttpCache.sqlite(path))
    client = controller.client
    client.cookies.set("sessionid", "secret-cookie-value", domain="127.0.0.1")
    for _ in range(2):
        await controller.fetch(whoami, {"vary": "Access-Token, Cookie"})
    # served from the cache the second time, credentials back on the wire
    assert counting_server.counts["whoami:secret-token-value"] == 1
    with sqlite3.connect(path) as db:
        stored = b"".join(
            bytes(row[0]) for row in db.execute("SELECT data FROM entries")
        )
    assert stored
    assert b"secret-token-value" not in stored
    assert b"secret-cookie-value" not in stored


async def test_an_unsafe_request_invalidates_the_entries_of_its_url(
    make: Make, cache: HttpCache, counting_server: CountingServer
) -> None:
    endpoint = resource(counting_server, "d", data_expiry_length=0)
    change = resource(counting_server, "d", method="POST")
    controller = make(cache=cache)
    await controller.fetch(endpoint, {"max_age": 60})
    await controller.fetch(endpoint, {"max_age": 60})
    assert counting_server.counts["d:full"] == 1
    await controller.fetch(change, {"max_age": 60}, body={"x": 1})
    await controller.fetch(endpoint, {"max_age": 60})
    assert counting_server.counts["d:full"] == 3  # the POST, and a refetch


async def test_requests_without_a_ticket_pass_by_the_cache(
    mode: str, cache: HttpCache, counting_server: CountingServer
) -> None:
    """The user's own requests on the client never meet the cache, and a
    client auth that puts no credential on the first hop (Digest answers a
    challenge) passes by it: nothing is kept under a key that does not say
    who asked. A Basic auth is cached under its own credentials."""
    url = counting_server.url("/resource/e?max_age=60")
    endpoint = RestEndpoint(url_prefix=url, data_expiry_length=0)
    clients: list[tuple[Any, int]] = [
        (httpx.DigestAuth("u", "p"), 4),  # 2 direct + 2 through restwire
        (httpx.BasicAuth("u", "p"), 3),  # 2 direct + 1: the second from the cache
    ]
    for auth, full in clients:
        counting_server.counts.clear()
        if mode == "sync":
            with httpx.Client(auth=auth) as client:
                controller = Controller(client, cache=cache)
                client.get(url)
                client.get(url)
                controller.fetch(endpoint)
                controller.fetch(endpoint)
                controller.close()
        else:
            async with httpx.AsyncClient(auth=auth) as async_client:
                async_controller = AsyncController(async_client, cache=cache)
                await async_client.get(url)
                await async_client.get(url)
                await async_controller.fetch(endpoint)
                await async_controller.fetch(endpoint)
                await async_controller.close()
        assert counting_server.counts["e:full"] == full, type(auth).__name__


async def test_two_basic_auths_never_share_an_entry(
    mode: str, cache: HttpCache, counting_server: CountingServer
) -> None:
    url = counting_server.url("/resource/f2?max_age=60")
    endpoint = RestEndpoint(url_prefix=url, data_expiry_length=0)
    for name in ("ann", "bob", "ann", "bob"):
        if mode == "sync":
            with Controller(httpx.Client(auth=(name, "pw")), cache=cache) as each:
                each.fetch(endpoint)
                each.client.close()
        else:
            async with AsyncController(
                httpx.AsyncClient(auth=(name, "pw")), cache=cache
            ) as async_each:
                await async_each.fetch(endpoint)
                await async_each.client.aclose()
    assert counting_server.counts["f2:full"] == 2  # once for ann, once for bob


async def test_one_cache_serves_both_kinds_of_controller_and_any_client(
    cache: HttpCache, counting_server: CountingServer
) -> None:
    """The cache is a step of the call, not a part of a client: a sync and an
    async controller, each on its own client, share its entries, and two
    controllers on one client each use it."""
    endpoint = resource(counting_server, "g", data_expiry_length=0)
    with httpx.Client() as client:
        first = Controller(client, cache=cache)
        second = Controller(client, cache=cache)
        assert first.fetch(endpoint, {"max_age": 60})["name"] == "g"
        assert second.fetch(endpoint, {"max_age": 60})["name"] == "g"
        first.close()
        second.close()
    async with AsyncController(cache=cache) as async_controller:
        value = await async_controller.fetch(endpoint, {"max_age": 60})
        assert value["name"] == "g"
    assert counting_server.counts["g:full"] == 1
    assert repr(cache).startswith("HttpCache(")


async def test_a_redis_that_is_down_is_a_cache_miss_not_a_failed_call(
    make: Make, counting_server: CountingServer
) -> None:
    cache = HttpCache.redis("redis://127.0.0.1:1/0", timeout=0.5)
    controller = make(cache=cache)
    endpoint = resource(counting_server, "f", data_expiry_length=0)
    for _ in range(2):
        value = await controller.fetch(endpoint, {"max_age": 60})
        assert value["name"] == "f"
    assert counting_server.counts["f:full"] == 2
