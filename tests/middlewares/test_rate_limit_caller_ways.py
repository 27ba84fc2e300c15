"""More ways callers differ, for RateLimit's pauses (beside
``test_rate_limit_callers.py``). RateLimit keeps a server's pause per caller, told apart as restwire tells
callers apart everywhere (issue 41): every header that is not public, the
cookies, query tokens, userinfo, the client's own auth, the client's mark,
the caller ``identity=`` names. One caller's 429 never pauses another;
the calls of one caller share their pause; calls that carry nothing share
the origin's. In this process and in a real redis-server, both drivers,
against the counting server on 127.0.0.1 (``/busy``: a 429 asking for a
minute)."""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from restwire import RestEndpoint, RestwireError
from restwire.middlewares import RateLimit, RateLimited
from tests.counting_server import CountingServer

pytestmark = pytest.mark.anyio

Make = Callable[..., Any]
#: What ``/busy`` is asked: a 429 asking for a minute.
AFTER = {"after": "60"}
#: A way callers are told apart: for a caller's name, that caller's call.
Way = Callable[[Make, CountingServer, RateLimit, str], Callable[[str], Awaitable[Any]]]


@pytest.fixture(params=["process", "redis"])
def window(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def limit_of(window: str, request: pytest.FixtureRequest) -> RateLimit:
    if window == "redis":
        return RateLimit(max_wait=1, redis=request.getfixturevalue("redis_url"))
    return RateLimit(max_wait=1)


def busy(prefix: str, limit: RateLimit, **options: Any) -> RestEndpoint:
    return RestEndpoint(url_prefix=prefix, path="/busy", **options).use(limit)


def by_endpoint_header(
    make: Make, server: CountingServer, limit: RateLimit, mode: str
) -> Callable[[str], Awaitable[Any]]:
    controller, endpoint = make(), busy(server.origin, limit)
    return lambda who: controller.fetch(
        endpoint.extend(headers={"X-Api-Key": f"key-of-{who}"}), AFTER
    )


def by_client_authorization(
    make: Make, server: CountingServer, limit: RateLimit, mode: str
) -> Callable[[str], Awaitable[Any]]:
    controller, endpoint = make(), busy(server.origin, limit)

    def call(who: str) -> Any:
        controller.client.headers["Authorization"] = f"Bearer {who}-token"
        return controller.fetch(endpoint, AFTER)

    return call


def by_cookie(
    make: Make, server: CountingServer, limit: RateLimit, mode: str
) -> Callable[[str], Awaitable[Any]]:
    controller, endpoint = make(), busy(server.origin, limit)

    def call(who: str) -> Any:
        controller.client.cookies.set("session", f"{who}-session")
        return controller.fetch(endpoint, AFTER)

    return call


def by_query_token(
    make: Make, server: CountingServer, limit: RateLimit, mode: str
) -> Callable[[str], Awaitable[Any]]:
    controller, endpoint = make(), busy(server.origin, limit)
    return lambda who: controller.fetch(
        endpoint, {**AFTER, "access_token": f"{who}-token"}
    )


def by_userinfo(
    make: Make, server: CountingServer, limit: RateLimit, mode: str
) -> Callable[[str], Awaitable[Any]]:
    controller = make()
    return lambda who: controller.fetch(
        busy(server.origin.replace("://", f"://{who}:pw@"), limit), AFTER
    )


def by_client_auth(
    kind: Callable[[str, str], httpx.Auth],
) -> Way:
    """The client's own ``auth``, one client: Basic adds a header; Digest
    adds nothing before a challenge, so the auth object tells apart."""

    def way(
        make: Make, server: CountingServer, limit: RateLimit, mode: str
    ) -> Callable[[str], Any]:
        controller, endpoint = make(), busy(server.origin, limit)
        auths: dict[str, httpx.Auth] = {}

        def call(who: str) -> Any:
            controller.client.auth = auths.setdefault(who, kind(who, "pw"))
            return controller.fetch(endpoint, AFTER)

        return call

    way.__name__ = f"by_client_auth_{kind.__name__}"
    return way


def by_name(
    make: Make, server: CountingServer, limit: RateLimit, mode: str
) -> Callable[[str], Awaitable[Any]]:
    user: contextvars.ContextVar[str] = contextvars.ContextVar("user")
    controller, endpoint = make(identity=user.get), busy(server.origin, limit)

    def call(who: str) -> Any:
        user.set(who)
        return controller.fetch(endpoint, AFTER)

    return call


def by_client(
    make: Make, server: CountingServer, limit: RateLimit, mode: str
) -> Callable[[str], Awaitable[Any]]:
    """Clients of the user's, each a caller of its own (its mark), with no
    credential restwire can see (a certificate, a transport adding one)."""
    controllers: dict[str, Any] = {}
    endpoint = busy(server.origin, limit)

    def call(who: str) -> Any:
        if who not in controllers:
            controllers[who] = make()
        return controllers[who].fetch(endpoint, AFTER)

    return call


WAYS: list[Any] = [
    by_endpoint_header,
    by_client_authorization,
    by_cookie,
    by_query_token,
    by_userinfo,
    by_client_auth(httpx.BasicAuth),
    by_client_auth(httpx.DigestAuth),
    by_name,
    by_client,
]


async def sent(call: Awaitable[Any]) -> None:
    """The call reached the server (its 429), not paused."""
    with pytest.raises(RestwireError) as raised:
        await call
    assert not isinstance(raised.value, RateLimited), raised.value


async def paused(call: Awaitable[Any]) -> None:
    with pytest.raises(RateLimited, match="asks to wait"):
        await call


@pytest.mark.parametrize("way", WAYS, ids=lambda way: getattr(way, "__name__", ""))
async def test_one_caller_s_429_never_pauses_another(
    controller_factory: Make,
    counting_server: CountingServer,
    window: str,
    request: pytest.FixtureRequest,
    mode: str,
    way: Way,
) -> None:
    call = way(controller_factory, counting_server, limit_of(window, request), mode)
    await sent(call("alice"))
    await sent(call("bob"))  # alice's spent quota is hers
    await paused(call("alice"))  # her calls share her pause
    await paused(call("bob"))
    assert counting_server.counts["busy"] == 2


async def test_calls_with_no_identity_share_the_origin_s_pause(
    own_controller_factory: Make,
    counting_server: CountingServer,
    window: str,
    request: pytest.FixtureRequest,
) -> None:
    endpoint = busy(counting_server.origin, limit_of(window, request))
    await sent(own_controller_factory().fetch(endpoint, AFTER))
    await paused(own_controller_factory().fetch(endpoint, AFTER))
    assert counting_server.counts["busy"] == 1


async def test_a_credential_is_one_caller_wherever_it_is_set(
    controller_factory: Make,
    counting_server: CountingServer,
    window: str,
    request: pytest.FixtureRequest,
) -> None:
    limit = limit_of(window, request)
    controller = controller_factory(headers={"Authorization": "Bearer alice-token"})
    await sent(controller.fetch(busy(counting_server.origin, limit), AFTER))
    del controller.client.headers["Authorization"]
    header = {"Authorization": "Bearer alice-token"}
    await paused(
        controller.fetch(busy(counting_server.origin, limit, headers=header), AFTER)
    )
    other = {"Authorization": "Bearer bob-token"}
    await sent(
        controller.fetch(busy(counting_server.origin, limit, headers=other), AFTER)
    )


async def test_a_caller_s_pause_in_redis_holds_it_in_every_process(
    own_controller_factory: Make, counting_server: CountingServer, redis_url: str
) -> None:
    """Two controllers and two limits on one Redis, as two processes: the
    caller's digest is the same in both; another caller's is not."""
    alice = {"X-Api-Key": "key-of-alice"}
    one, two = (
        RateLimit(max_wait=1, redis=redis_url),
        RateLimit(max_wait=1, redis=redis_url),
    )
    await sent(
        own_controller_factory().fetch(
            busy(counting_server.origin, one, headers=alice), AFTER
        )
    )
    there = own_controller_factory()
    await paused(there.fetch(busy(counting_server.origin, two, headers=alice), AFTER))
    bob = {"X-Api-Key": "key-of-bob"}
    await sent(there.fetch(busy(counting_server.origin, two, headers=bob), AFTER))
