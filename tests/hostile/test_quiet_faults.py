"""What a call shows and waits for when things go wrong quietly (issue 41,
finding 9): restwire's own request log line keeps a query credential out
as its DEBUG line does, and a silent Redis costs a call one timeout at most.

Real sockets throughout: a :class:`RecordingServer` on 127.0.0.1 and a real
``redis-server`` frozen with ``SIGSTOP`` (it accepts connections, and never
answers), under both drivers.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from restwire import HttpCache, RestEndpoint
from restwire.middlewares import AccessToken, RateLimit, SharedToken
from tests.conftest import no_collection_pauses
from tests.redis_server import RedisServer
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

SECRET = "q-SECRET-77"

Make = Callable[..., Any]


@pytest.fixture
def make(own_controller_factory: Make) -> Make:
    """A controller of this test's driver on a client restwire makes."""
    return own_controller_factory


async def test_the_request_log_line_redacts_query_credentials(
    make: Make, origin_a: RecordingServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The INFO line in httpx's format (logger ``httpx``) that restwire
    writes for a client it sends on directly shows the call's URL with
    ``access_token`` and ``sig`` redacted, the other params as they are."""
    endpoint = RestEndpoint(url_prefix=origin_a.url(""), path="/echo")
    controller = make()
    with caplog.at_level(logging.DEBUG):
        await controller.fetch(
            endpoint, {"access_token": SECRET, "page": "2", "sig": SECRET + "x"}
        )
    assert origin_a.requests[-1].path.count(SECRET) == 2  # sent as given
    lines = [
        record.getMessage()
        for record in caplog.records
        if record.name == httpx.__name__ and "HTTP Request" in record.getMessage()
    ]
    assert len(lines) == 1, caplog.messages
    assert "access_token=[redacted]" in lines[0]
    assert "sig=[redacted]" in lines[0]
    assert "page=2" in lines[0]
    assert SECRET not in caplog.text


# -- a silent Redis: one timeout a call, whoever uses it -----------------------------

#: Redis's timeout: long enough that one wait for it stands apart from
#: none, or from two, on a busy machine (where a call alone can take 1 s).
TIMEOUT = 3.0


def _cache(url: str) -> dict[str, Any]:
    return {"cache": HttpCache.redis(url, timeout=TIMEOUT)}


def _endpoint_plain(url: str) -> Callable[[RestEndpoint], RestEndpoint]:
    return lambda endpoint: endpoint


def _endpoint_limited(url: str) -> Callable[[RestEndpoint], RestEndpoint]:
    limit = RateLimit(100, per=1, redis=url, redis_timeout=TIMEOUT)
    return lambda endpoint: endpoint.use(limit)


def _endpoint_shared(url: str) -> Callable[[RestEndpoint], RestEndpoint]:
    shared = SharedToken(url, "quiet", timeout=TIMEOUT)
    auth = AccessToken(refresh=lambda: "t", shared=shared)
    return lambda endpoint: endpoint.use(auth)


#: Each component that reaches Redis: the controller options and the
#: middleware it needs.
COMPONENTS = {
    "HttpCache.redis": (_cache, _endpoint_plain),
    "RateLimit": (lambda url: {}, _endpoint_limited),
    "SharedToken": (lambda url: {}, _endpoint_shared),
}


@pytest.mark.parametrize("component", sorted(COMPONENTS))
async def test_a_silent_redis_costs_a_call_one_timeout_at_most(
    make: Make,
    origin_a: RecordingServer,
    own_redis: RedisServer,
    component: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Redis frozen: the first call waits for it at most one ``timeout``
    (the HTTP cache used to wait twice: for the fill lock, then for the
    lookup), the calls after it not at all; one warning."""
    options, wrap = COMPONENTS[component]
    controller = make(**options(own_redis.url))
    endpoint = wrap(own_redis.url)(
        RestEndpoint(url_prefix=origin_a.url(""), path="/echo")
    )
    own_redis.freeze()
    took: list[float] = []
    with caplog.at_level(logging.WARNING, logger="restwire"), no_collection_pauses():
        for n in range(3):
            started = time.monotonic()
            await controller.get(endpoint, {"n": n})
            took.append(time.monotonic() - started)
    own_redis.thaw()
    assert took[0] < TIMEOUT * 1.8, took  # one timeout and the call, not two
    assert max(took[1:]) < TIMEOUT / 2, took  # no timeout
    warnings = [r for r in caplog.records if r.name == "restwire"]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert len(origin_a.requests) == 3  # every call went to the server
