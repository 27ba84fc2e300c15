"""RateLimit: a configured rate, what the server says, bounded waits.

Each test runs under both drivers (the ``controller`` fixture). The shared
(Redis) tests use a real redis-server; the four-process promise is in
``tests/processes/test_many_processes.py``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import anyio
import httpx
import pytest
import redis
from pytest_httpx import HTTPXMock

from restwire import Call, CallNext, Exchange, Flow, NetworkError, RestEndpoint
from restwire._base.library import Response
from restwire.middlewares import RateLimit, RateLimited, Retry, rate_limit_wait
from restwire.middlewares.rate_limit import SWEEP_EVERY, _Asked, _Window
from restwire.middlewares.redis_breaker import BACKOFF_FIRST
from tests.conftest import FakeClock, no_collection_pauses, restwire_records
from tests.counting_server import most_in_any_window
from tests.redis_server import RedisServer
from tests.waiting import HANG, cancel_once

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
OTHER = "https://other.example.com"


#: Redis's timeout where Redis is frozen: long enough that one wait for it
#: stands apart from none on a busy machine (where a call alone can take 1 s).
REDIS_TIMEOUT = 2.0


def arrivals(httpx_mock: HTTPXMock, status: int = 200) -> list[float]:
    """Record when each request reaches the mock transport."""
    seen: list[float] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(time.monotonic())
        return httpx.Response(status, json={})

    httpx_mock.add_callback(answer, is_reusable=True)
    return seen


async def test_no_more_than_limit_in_any_window(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    seen = arrivals(httpx_mock)
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(RateLimit(3, per=0.2))
    started = time.monotonic()
    for _ in range(7):
        await controller.fetch(endpoint)
    assert len(seen) == 7
    assert most_in_any_window(seen, 0.2) == 3
    assert time.monotonic() - started >= 0.4  # two full windows waited


async def test_each_origin_has_its_own_window_unless_scoped_by_endpoint(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    arrivals(httpx_mock)
    limit = RateLimit(1, per=10, max_wait=0)
    await controller.fetch(RestEndpoint(url_prefix=API, path="/a").use(limit))
    await controller.fetch(RestEndpoint(url_prefix=OTHER, path="/a").use(limit))
    with pytest.raises(
        RateLimited, match=r"the rate limit for https://api\.example\.com asks"
    ):
        await controller.fetch(RestEndpoint(url_prefix=API, path="/b").use(limit))
    by_endpoint = RateLimit(1, per=10, scope="endpoint", max_wait=0)
    await controller.fetch(RestEndpoint(url_prefix=API, path="/a").use(by_endpoint))
    await controller.fetch(RestEndpoint(url_prefix=API, path="/b").use(by_endpoint))


async def test_a_wait_past_max_wait_fails_at_once_without_sending(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    seen = arrivals(httpx_mock)
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(
        RateLimit(1, per=30, max_wait=10)
    )
    await controller.fetch(endpoint)
    started = time.monotonic()
    with pytest.raises(RateLimited) as caught:
        await controller.fetch(endpoint)
    assert time.monotonic() - started < 5  # at once, not after max_wait (10 s)
    assert len(seen) == 1
    wait = caught.value.wait
    assert wait is not None
    assert 20 < wait <= 30.01  # 30 s after the first completed (a while ago)
    message = str(caught.value)
    assert "GET https://api.example.com/x" in message
    assert "more than max_wait (10 s); not sent" in message


async def test_a_429_with_retry_after_pauses_the_calls_that_follow(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=429, headers={"Retry-After": "120"})
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(RateLimit(max_wait=5))
    with pytest.raises(NetworkError) as first:
        await controller.fetch(endpoint)
    assert first.value.status == 429  # the 429 itself reaches the caller
    with pytest.raises(RateLimited, match=r"asks to wait 1[12][0-9]\.[0-9] s"):
        await controller.fetch(endpoint)
    assert len(httpx_mock.get_requests()) == 1


async def test_quota_at_zero_waits_the_window_then_sends(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(headers={"RateLimit": '"default";r=0;t=1'}, json={})
    httpx_mock.add_response(json={"second": True})
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(RateLimit())
    await controller.fetch(endpoint)
    started = time.monotonic()
    assert await controller.fetch(endpoint) == {"second": True}
    assert time.monotonic() - started >= 0.95


async def test_x_ratelimit_reset_as_an_epoch_time(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    reset = str(int(time.time()) + 300)
    headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}
    httpx_mock.add_response(headers=headers, json={})
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(RateLimit(max_wait=10))
    await controller.fetch(endpoint)
    with pytest.raises(RateLimited) as caught:
        await controller.fetch(endpoint)
    wait = caught.value.wait
    assert wait is not None
    assert 295 <= wait <= 301


async def test_retry_outside_finds_the_pause_and_sends_after_it(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=429, headers={"Retry-After": "1"})
    httpx_mock.add_response(json={"ok": True})
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(
        Retry(attempts=2, backoff=0), RateLimit()
    )
    started = time.monotonic()
    assert await controller.fetch(endpoint) == {"ok": True}
    assert time.monotonic() - started >= 0.95
    assert len(httpx_mock.get_requests()) == 2


def test_the_fields_of_a_cached_response_are_not_read() -> None:
    limit = RateLimit()
    stale = httpx.Response(
        200,
        headers={"RateLimit": '"default";r=0;t=60'},
        extensions={"caching": {"from_cache": True}},
    )
    flow = limit._learn("k", stale, "GET https://api.example.com/x")
    with pytest.raises(StopIteration):
        next(flow)
    window = limit._window
    assert isinstance(window, _Window)
    assert window.pauses == {}


def test_malformed_fields_are_ignored() -> None:
    for fields in (
        {"RateLimit": '"default";r=zero;t=10'},
        {"RateLimit": '"default";r=0;t=-5'},
        {"RateLimit": "limit=10, remaining=0, reset=soon"},
        {"RateLimit-Remaining": "0", "RateLimit-Reset": "1e9"},
        {"X-RateLimit-Remaining": "none", "X-RateLimit-Reset": "10"},
        {"X-RateLimit-Remaining": "0"},
        {"RateLimit": "\x00;;;==,,"},
    ):
        assert rate_limit_wait(httpx.Headers(fields), 200) is None, fields
    assert rate_limit_wait(httpx.Headers({"Retry-After": "soon"}), 429) is None


def test_a_definition_that_cannot_work_is_refused_where_it_is_written() -> None:
    with pytest.raises(ValueError, match=r"RateLimit\(limit=0\): must be at least 1"):
        RateLimit(0)
    with pytest.raises(ValueError, match=r"RateLimit\(per=0\): must be more than 0"):
        RateLimit(1, per=0)
    with pytest.raises(ValueError, match=r"RateLimit\(lease=0\): must be more than 0"):
        RateLimit(1, lease=0)
    with pytest.raises(
        ValueError, match=r"RateLimit\(max_wait=-1\): must be 0 or more"
    ):
        RateLimit(1, max_wait=-1)
    with pytest.raises(ValueError, match="scope must be"):
        RateLimit(1, scope="host")  # type: ignore[arg-type]
    assert repr(RateLimit(5, per=2)) == "RateLimit(5/2s, scope='origin', in process)"


async def test_a_pause_in_redis_holds_every_process_that_shares_it(
    controller: Any, httpx_mock: HTTPXMock, redis_url: str
) -> None:
    httpx_mock.add_response(status_code=429, headers={"Retry-After": "60"})
    one = RateLimit(redis=redis_url, max_wait=5)  # as two processes would
    two = RateLimit(redis=redis_url, max_wait=5)
    with pytest.raises(NetworkError):
        await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(one))
    with pytest.raises(RateLimited, match=r"asks to wait (59|60)\.[0-9] s"):
        await controller.fetch(RestEndpoint(url_prefix=API, path="/y").use(two))


async def test_a_window_in_redis_is_shared(
    controller: Any, httpx_mock: HTTPXMock, redis_url: str
) -> None:
    arrivals(httpx_mock)
    one = RateLimit(2, per=30, redis=redis_url, max_wait=0)
    two = RateLimit(2, per=30, redis=redis_url, max_wait=0)
    await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(one))
    await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(two))
    with pytest.raises(RateLimited):
        await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(one))
    assert repr(one) == "RateLimit(2/30s, scope='origin', in redis)"


async def test_a_slot_is_held_while_its_call_is_in_flight(
    httpx_mock: HTTPXMock,
) -> None:
    """Three calls at once under a limit of 2: the third is let go only
    after one of the first two has its response (and its window passed)."""
    import anyio

    from restwire import AsyncController

    sent: list[float] = []

    async def answer(request: httpx.Request) -> httpx.Response:
        sent.append(time.monotonic())
        await anyio.sleep(0.3)
        return httpx.Response(200, json={})

    httpx_mock.add_callback(answer, is_reusable=True)
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(RateLimit(2, per=0.1))
    async with AsyncController() as controller, anyio.create_task_group() as tasks:
        for n in range(3):
            tasks.start_soon(controller.fetch, endpoint, {"n": n})
    sent.sort()
    assert sent[1] - sent[0] < 0.1  # two let go together
    assert sent[2] - sent[0] >= 0.4  # the third: 0.3 s in flight, then 0.1 s


async def test_a_slot_whose_call_never_completed_is_freed_by_its_lease(
    controller: Any, httpx_mock: HTTPXMock, redis_url: str
) -> None:
    arrivals(httpx_mock)
    limit = RateLimit(1, per=0.05, redis=redis_url, lease=0.3, max_wait=5)
    # a process that took the only slot and died: admitted, never completed
    assert limit._redis is not None
    asked = _Asked()
    assert limit._redis.take("https://api.example.com", asked) is not None
    assert asked.wait == 0.0
    started = time.monotonic()
    await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(limit))
    assert 0.2 <= time.monotonic() - started < 2


async def test_an_unreachable_shared_limit_is_kept_by_this_process(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """Redis down: the call is sent under this process's own window, which
    still holds the limit here."""
    arrivals(httpx_mock)
    limit = RateLimit(1, per=30, redis="redis://127.0.0.1:1/0", max_wait=0)
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(limit)
    await controller.fetch(endpoint)
    with pytest.raises(RateLimited, match="more than max_wait"):
        await controller.fetch(endpoint)
    assert len(httpx_mock.get_requests()) == 1


def test_an_in_process_window_forgets_keys_no_call_uses() -> None:
    """A scope function with ever-new keys (a user id per call) keeps the
    records of the keys in use, not of every key ever seen."""
    limit = RateLimit(10**6, per=0.01, scope=lambda exchange: "unused")
    window = limit._window
    assert isinstance(window, _Window)
    for n in range(5000):
        wait, ident = window.admit(f"user-{n}")
        assert wait == 0.0
        window.complete(f"user-{n}", ident)
        if n % 1000 == 0:
            window.pause(f"user-{n}", 0.001)
    time.sleep(0.02)  # every user's window and pause has passed
    for _ in range(1024):  # enough admissions for a sweep to come round
        wait, ident = window.admit("steady")
        window.complete("steady", ident)
    assert set(window.done) == {"steady"}
    assert window.pauses == {}


async def test_a_scope_function_s_key_is_not_shown_in_errors(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    arrivals(httpx_mock)
    limit = RateLimit(1, per=30, scope=lambda exchange: "user-secret-id", max_wait=0)
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(limit)
    await controller.fetch(endpoint)
    with pytest.raises(RateLimited) as caught:
        await controller.fetch(endpoint)
    assert "user-secret-id" not in str(caught.value)
    assert "the rate limit for its scope asks to wait" in str(caught.value)


async def test_a_call_whose_end_redis_cannot_log_still_returns(
    controller: Any,
    httpx_mock: HTTPXMock,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Redis fails after the call was let go: the answer stands, the slot's
    lease frees it, the breaker says so in one line, and the server's pause
    that could not be shared holds this process: its next call waits for
    it (here: longer than max_wait, so it is not sent)."""
    from restwire.middlewares.rate_limit import _RedisWindow

    def fails(*args: object) -> None:
        raise redis.ConnectionError("gone just now")

    monkeypatch.setattr(_RedisWindow, "complete", fails)
    monkeypatch.setattr(_RedisWindow, "pause", fails)
    httpx_mock.add_response(json={"ok": True}, headers={"RateLimit": '"d";r=0;t=5'})
    limit = RateLimit(5, redis=redis_url, lease=0.2, max_wait=1)
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(limit)
    with caplog.at_level(logging.WARNING, logger="restwire"):
        assert await controller.fetch(endpoint) == {"ok": True}
        with pytest.raises(RateLimited, match=r"asks to wait [45]\.[0-9] s"):
            await controller.fetch(endpoint)
    messages = [record.getMessage() for record in caplog.records]
    assert len(messages) == 1
    assert "is unreachable (ConnectionError): RateLimit 'restwire:rate'" in messages[0]
    assert len(httpx_mock.get_requests()) == 1


def test_separate_remaining_and_reset_fields() -> None:
    """The draft-06 form (and X-RateLimit-*): a wait only when nothing is
    left, of the reset's seconds, or until its epoch time."""

    def wait(fields: dict[str, str]) -> float | None:
        return rate_limit_wait(httpx.Headers(fields), 200, now=lambda: 1_700_000_000)

    assert wait({"RateLimit-Remaining": "0", "RateLimit-Reset": "7"}) == 7
    assert wait({"RateLimit-Remaining": "3", "RateLimit-Reset": "7"}) is None
    assert wait({"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "12"}) == 12
    epoch = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000030"}
    assert wait(epoch) == 30
    past = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1699999990"}
    assert wait(past) == 0
    both = {"RateLimit": '"d";r=0;t=4', "X-RateLimit-Remaining": "0"}
    assert wait({**both, "X-RateLimit-Reset": "9"}) == 9  # the longest wait


# -- a cancelled call's shared slot -------------------------------------------------


class Interrupt(BaseException):
    """What an interrupted sync caller meets: not an ``Exception``."""


class Stuck:
    """Inside the rate limit: the call never gets its response (an
    interrupted sync caller; an async one waits until cancelled)."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.reached = False

    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        yield Call(self._stuck if self.mode == "sync" else self._stuck_async)
        return (yield from call_next(exchange))

    @staticmethod
    def _stuck() -> None:
        raise Interrupt

    async def _stuck_async(self) -> None:
        self.reached = True
        await anyio.sleep_forever()


async def test_a_cancelled_call_gives_its_shared_slot_back_at_once(
    controller: Any, mode: str, httpx_mock: HTTPXMock, redis_url: str
) -> None:
    """A call cancelled while it holds its slot in Redis (an async task
    cancelled, a sync caller interrupted) gives it back at once, logged as
    done now, not after its lease."""
    store = redis.Redis.from_url(redis_url)
    limit = RateLimit(1, per=0.05, redis=redis_url, lease=30, max_wait=1)
    inside = Stuck(mode)
    stuck = RestEndpoint(url_prefix=API, path="/x").use(limit, inside)
    if mode == "sync":
        with pytest.raises(Interrupt):
            controller.controller.fetch(stuck)
    else:
        await cancel_once(lambda: controller.fetch(stuck), lambda: inside.reached)
    assert store.zcard(f"restwire:rate:flight:{API}") == 0
    assert store.zcard(f"restwire:rate:log:{API}") == 1
    httpx_mock.add_response(json={"ok": True})
    with anyio.fail_after(HANG):  # its window (0.05 s), not its lease (30 s)
        endpoint = RestEndpoint(url_prefix=API, path="/x").use(limit)
        assert await controller.fetch(endpoint) == {"ok": True}


# -- a dead Redis: this process's own limit, one log line ----------------------------


@pytest.mark.parametrize("fault", ["frozen", "stopped"])
async def test_a_dead_redis_falls_back_to_this_process_s_limit(
    controller: Any,
    httpx_mock: HTTPXMock,
    own_redis: RedisServer,
    fault: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Redis frozen or stopped: the first call waits for it at most
    ``redis_timeout`` and trips the breaker (one log line naming the
    address); it and the calls after it go on under this process's own
    limit, without waiting for Redis."""
    seen = arrivals(httpx_mock)
    limit = RateLimit(
        3, per=30, redis=own_redis.url, redis_timeout=REDIS_TIMEOUT, max_wait=0
    )
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(limit)
    if fault == "frozen":
        own_redis.freeze()
    else:
        own_redis.stop()
    took: list[float] = []
    with caplog.at_level(logging.INFO, logger="restwire"), no_collection_pauses():
        for _ in range(3):
            started = time.monotonic()
            await controller.fetch(endpoint)
            took.append(time.monotonic() - started)
        with pytest.raises(RateLimited, match="more than max_wait"):
            await controller.fetch(endpoint)  # the limit still holds, here
    assert took[0] < REDIS_TIMEOUT * 1.8, took  # one wait for Redis at most
    assert max(took[1:]) < REDIS_TIMEOUT / 2, took  # then none
    assert len(seen) == 3
    records = restwire_records(caplog)
    assert len(records) == 1, [record.getMessage() for record in records]
    assert records[0].levelno == logging.WARNING
    assert records[0].exc_info is None
    assert f"127.0.0.1:{own_redis.port}" in records[0].getMessage()


async def test_redis_back_shares_the_limit_again(
    controller: Any,
    httpx_mock: HTTPXMock,
    own_redis: RedisServer,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    arrivals(httpx_mock)
    limit = RateLimit(10, per=30, redis=own_redis.url, redis_timeout=0.3)
    limit._breaker.clock = clock
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(limit)
    store = redis.Redis.from_url(own_redis.url)
    own_redis.freeze()
    with caplog.at_level(logging.INFO, logger="restwire"):
        await controller.fetch(endpoint)
        own_redis.thaw()
        await controller.fetch(endpoint)  # within the back-off: this process's
        assert store.zcard(f"restwire:rate:log:{API}") == 0
        clock.advance(BACKOFF_FIRST + 0.1)
        await controller.fetch(endpoint)
    assert store.zcard(f"restwire:rate:log:{API}") == 1
    records = restwire_records(caplog)
    assert [record.levelno for record in records] == [logging.WARNING, logging.INFO]
    assert f"127.0.0.1:{own_redis.port}" in records[1].getMessage()


# -- the server's pauses: capped, and swept -------------------------------------------

FOREVER = {"Retry-After": "999999999999"}


async def test_a_server_pause_is_capped_at_five_minutes_by_default(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=429, headers=FOREVER)
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(RateLimit(max_wait=5))
    with pytest.raises(NetworkError):
        await controller.fetch(endpoint)
    with pytest.raises(RateLimited) as caught:
        await controller.fetch(endpoint)
    wait = caught.value.wait
    assert wait is not None
    assert 299 < wait <= 300


async def test_max_pause_caps_what_the_server_asks(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=429, headers=FOREVER)
    httpx_mock.add_response(json={"ok": True})
    limit = RateLimit(max_pause=0.3, max_wait=5)
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(limit)
    with pytest.raises(NetworkError):
        await controller.fetch(endpoint)
    started = time.monotonic()
    assert await controller.fetch(endpoint) == {"ok": True}
    assert 0.25 <= time.monotonic() - started < 2


async def test_a_pause_in_redis_expires_within_max_pause(
    controller: Any, httpx_mock: HTTPXMock, redis_url: str
) -> None:
    httpx_mock.add_response(status_code=429, headers=FOREVER)
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(RateLimit(redis=redis_url))
    with pytest.raises(NetworkError):
        await controller.fetch(endpoint)
    client = redis.Redis.from_url(redis_url)
    # (kept under the caller: the test's client is one restwire did not make)
    [key] = client.keys(f"restwire:rate:pause:{API}:caller:*")
    left = client.pttl(key)
    assert 299_000 < left <= 300_000


def test_in_process_pauses_are_swept() -> None:
    """The server's pauses of keys no call uses again are dropped once
    over, under a limit of the server's word only as under a rate."""
    for limit in (RateLimit(scope=lambda e: "k"), RateLimit(10**6, scope="endpoint")):
        window = limit._window
        for n in range(5000):
            window.pause(f"user-{n}", 0.001)
        time.sleep(0.02)  # every pause is over
        for _ in range(SWEEP_EVERY):
            _, ident = window.admit("steady")
            window.complete("steady", ident)
        assert window.pauses == {}, len(window.pauses)
