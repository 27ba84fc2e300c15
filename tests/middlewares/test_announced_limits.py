"""RateLimit reads the limits providers announce, and waits before the 429.

Against a real server on 127.0.0.1 that keeps a quota per caller and
announces it as OpenAI, GitHub and the IETF draft do
(``tests/counting_server.py``, ``/quota/<style>``), under both drivers:
a caller that keeps to what it is told never gets a 429; one caller's
spent quota pauses that caller alone, in one process and through a real
Redis; an absurd reset is capped at ``max_pause`` and said in a log line.
The fields themselves are in ``tests/vectors/rate_limit.py``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest

from restwire import RestEndpoint
from restwire.middlewares import AccessToken, RateLimit, RateLimited
from tests.counting_server import CountingServer

pytestmark = pytest.mark.anyio

#: Each style, the window its quota is counted in (GitHub's reset is in
#: whole epoch seconds, the draft's ``t`` in whole seconds).
STYLES = [("openai", 0.6), ("github", 1.0), ("ietf", 1.0)]


def quota(
    server: CountingServer, style: str, window: float, *middleware: Any, limit: int = 2
) -> RestEndpoint[Any]:
    return RestEndpoint(
        url_prefix=server.url(""),
        path=f"/quota/{style}?limit={limit}&window={window}",
    ).use(*middleware)


@pytest.mark.parametrize(("style", "window"), STYLES)
async def test_calls_wait_for_the_announced_reset_and_never_get_a_429(
    controller: Any, counting_server: CountingServer, style: str, window: float
) -> None:
    """Two calls a window: the second says no quota is left, so the third
    waits for the reset the server announced rather than being refused."""
    endpoint = quota(
        counting_server,
        style,
        window,
        AccessToken.bearer("user-a"),
        RateLimit(max_wait=10),
    )
    started = time.monotonic()
    for _ in range(5):
        await controller.fetch(endpoint)
    assert counting_server.counts["quota:Bearer user-a:200"] == 5
    assert counting_server.counts["quota:Bearer user-a:429"] == 0
    assert time.monotonic() - started >= 2 * window * 0.9  # two resets waited


@pytest.mark.parametrize(("style", "window"), STYLES)
async def test_one_caller_s_spent_quota_pauses_that_caller_alone(
    controller: Any, counting_server: CountingServer, style: str, window: float
) -> None:
    limit = RateLimit(max_wait=0)  # a wait is an error: nothing is timed
    ann = quota(
        counting_server, style, window, AccessToken.bearer("ann"), limit, limit=1
    )
    bob = quota(
        counting_server, style, window, AccessToken.bearer("bob"), limit, limit=1
    )
    await controller.fetch(ann)
    with pytest.raises(RateLimited) as caught:
        await controller.fetch(ann)  # ann's quota is spent: not sent
    assert "GET http://127.0.0.1" in str(caught.value)
    assert "ann" not in str(caught.value)
    await controller.fetch(bob)  # bob's is not: sent at once
    assert counting_server.counts["quota:Bearer ann:200"] == 1
    assert counting_server.counts["quota:Bearer bob:200"] == 1
    assert counting_server.counts["quota:Bearer ann:429"] == 0


@pytest.mark.parametrize(("style", "window"), STYLES)
async def test_processes_sharing_redis_pause_the_spent_caller_alone(
    controller: Any,
    counting_server: CountingServer,
    redis_url: str,
    style: str,
    window: float,
) -> None:
    """Two workers (two RateLimits on one Redis): what the first learns of
    ann's quota holds the second's ann, not its bob."""
    first = RateLimit(max_wait=0, redis=redis_url)
    second = RateLimit(max_wait=0, redis=redis_url)

    def call(who: str, limit: RateLimit) -> RestEndpoint[Any]:
        token = AccessToken.bearer(who)
        return quota(counting_server, style, window, token, limit, limit=1)

    await controller.fetch(call("ann", first))
    with pytest.raises(RateLimited):
        await controller.fetch(call("ann", second))
    await controller.fetch(call("bob", second))
    assert counting_server.counts["quota:Bearer ann:200"] == 1
    assert counting_server.counts["quota:Bearer bob:200"] == 1


@pytest.mark.parametrize(
    ("style", "reset"),
    [("openai", "999999h"), ("github", "99999999999"), ("ietf", "999999999999")],
)
async def test_an_absurd_reset_is_capped_at_max_pause_and_said(
    controller: Any,
    counting_server: CountingServer,
    caplog: pytest.LogCaptureFixture,
    style: str,
    reset: str,
) -> None:
    caplog.set_level(logging.WARNING, logger="restwire")
    endpoint = RestEndpoint(
        url_prefix=counting_server.url(""),
        path=f"/quota/{style}?limit=1&window=1&reset={reset}",
    ).use(AccessToken.bearer("ann-token"), RateLimit(max_wait=0, max_pause=3))
    await controller.fetch(endpoint)
    with pytest.raises(RateLimited) as caught:
        await controller.fetch(endpoint)
    assert caught.value.wait is not None
    assert 0 < caught.value.wait <= 3  # capped, not years
    (line,) = [r.getMessage() for r in caplog.records if "max_pause" in r.getMessage()]
    assert line.startswith("GET http://127.0.0.1")
    assert "waiting max_pause (3 s) instead" in line
    assert "ann-token" not in line
