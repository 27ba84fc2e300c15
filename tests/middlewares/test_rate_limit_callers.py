"""RateLimit keeps a server's pause (a 429's ``Retry-After``) per caller,
read deny by default as the store reads callers (``Exchange.caller_key``):
one caller's spent quota never pauses another, whether its key travels in
a header nobody marked (``X-Api-Key``), in the client's default
``Authorization``, in the jar, or the controller names its callers with
``identity=``; one caller's calls keep their pause; calls that carry
nothing to tell them apart share it. In this process and in a real
redis-server; under both drivers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from restwire import RestEndpoint, TooManyRequestsError
from restwire.middlewares import RateLimit, RateLimited

pytestmark = pytest.mark.anyio

Make = Callable[..., Any]
API = "https://api.example.com"
SPENT = {"key-of-alice-123", "Bearer alice-token", "alice"}


def quota_server() -> httpx.MockTransport:
    """A 429 asking for two minutes to the caller whose quota is spent
    (alice, by key, token, cookie or name); 200 to every other."""

    def answer(request: httpx.Request) -> httpx.Response:
        sent = {
            request.headers.get("x-api-key"),
            request.headers.get("authorization"),
            request.headers.get("x-user"),
        }
        cookie = request.headers.get("cookie", "")
        if SPENT & sent or "session=alice" in cookie:
            return httpx.Response(429, headers={"Retry-After": "120"})
        return httpx.Response(200, json={"ok": True})

    return httpx.MockTransport(answer)


@pytest.fixture(params=["in this process", "in redis"])
def limit(request: pytest.FixtureRequest) -> RateLimit:
    if request.param == "in redis":
        return RateLimit(max_wait=1, redis=request.getfixturevalue("redis_url"))
    return RateLimit(max_wait=1)


async def spend(controller: Any, endpoint: RestEndpoint) -> None:
    """Alice's call: the 429 reaches her, and her next call is paused."""
    with pytest.raises(TooManyRequestsError):  # the 429 itself
        await controller.fetch(endpoint)
    with pytest.raises(RateLimited):
        await controller.fetch(endpoint)


async def test_a_key_in_a_header_nobody_marked_is_a_caller(
    own_controller_factory: Make, limit: RateLimit
) -> None:
    controller = own_controller_factory(transport=quota_server())
    base = RestEndpoint(url_prefix=API, path="/x").use(limit)
    await spend(controller, base.extend(headers={"X-Api-Key": "key-of-alice-123"}))
    bob = base.extend(headers={"X-Api-Key": "key-of-bob-456"})
    assert await controller.fetch(bob) == {"ok": True}


async def test_the_client_s_default_authorization_is_a_caller(
    own_controller_factory: Make, limit: RateLimit
) -> None:
    """One client (one controller), its default header changed between
    callers, as a per-user client factory would."""
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(limit)
    controller = own_controller_factory(transport=quota_server())
    controller.client.headers["Authorization"] = "Bearer alice-token"
    await spend(controller, endpoint)
    controller.client.headers["Authorization"] = "Bearer bob-token"
    assert await controller.fetch(endpoint) == {"ok": True}


async def test_the_jar_s_cookies_are_a_caller(
    own_controller_factory: Make, limit: RateLimit
) -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(limit)
    controller = own_controller_factory(transport=quota_server())
    controller.client.cookies.set("session", "alice", domain="api.example.com")
    await spend(controller, endpoint)
    controller.client.cookies.set("session", "bob", domain="api.example.com")
    assert await controller.fetch(endpoint) == {"ok": True}


async def test_a_named_caller_is_a_caller_whatever_it_sends(
    own_controller_factory: Make, limit: RateLimit
) -> None:
    """The server counts by the ``X-User`` a middleware would add; the
    controller names the same users: the name keys the pause."""
    user = {"name": "alice"}
    controller = own_controller_factory(
        transport=quota_server(), identity=lambda: user["name"]
    )
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(limit)
    alice = endpoint.extend(headers={"X-User": "alice"})
    await spend(controller, alice)
    user["name"] = "bob"
    assert await controller.fetch(endpoint.extend(headers={"X-User": "bob"})) == {
        "ok": True
    }


async def test_one_caller_by_client_default_or_endpoint_header_is_one(
    own_controller_factory: Make, limit: RateLimit
) -> None:
    """The same credential keys the same pause wherever it is set."""
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(limit)
    controller = own_controller_factory(transport=quota_server())
    controller.client.headers["Authorization"] = "Bearer alice-token"
    await spend(controller, endpoint)
    del controller.client.headers["Authorization"]
    with pytest.raises(RateLimited):
        await controller.fetch(
            endpoint.extend(headers={"Authorization": "Bearer alice-token"})
        )


async def test_calls_that_carry_nothing_share_the_server_s_pause(
    own_controller_factory: Make, limit: RateLimit
) -> None:
    answers = iter([429, 200])

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(next(answers), headers={"Retry-After": "120"})

    controller = own_controller_factory(transport=httpx.MockTransport(answer))
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(limit)
    with pytest.raises(TooManyRequestsError):
        await controller.fetch(endpoint)
    with pytest.raises(RateLimited):
        await controller.fetch(endpoint.extend(path="/y"))  # same origin, paused


async def test_a_client_with_request_hooks_is_a_caller_of_its_own(
    controller_factory: Make, mode: str, limit: RateLimit
) -> None:
    """A hook may add a token restwire never sees: its calls pause no one,
    not even each other."""
    statuses = iter([429, 200])

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(next(statuses), headers={"Retry-After": "120"}, json={})

    async def async_hook(request: httpx.Request) -> None:
        return None

    def hook(request: httpx.Request) -> None:
        return None

    controller = controller_factory(
        transport=httpx.MockTransport(answer),
        event_hooks={"request": [hook if mode == "sync" else async_hook]},
    )
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(limit)
    with pytest.raises(TooManyRequestsError):
        await controller.fetch(endpoint)
    assert await controller.fetch(endpoint) == {}
