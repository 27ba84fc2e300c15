"""SharedToken: AccessToken's slot and refresh lock in a real Redis.

Every test runs under both drivers (the ``controller`` fixture) against a
redis-server the suite started; the HTTP side is pytest-httpx. The
four-process promise is in ``tests/processes/test_many_processes.py``.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from typing import Any

import anyio
import httpx
import pytest
import redis
from pytest_httpx import HTTPXMock

from restwire import NetworkError, RestEndpoint, RestwireError
from restwire.middlewares import AccessToken, SharedToken
from restwire.middlewares.redis_breaker import BACKOFF_FIRST
from tests.conftest import (
    FakeClock,
    fetch_together,
    no_collection_pauses,
    restwire_records,
)
from tests.redis_server import RedisServer
from tests.waiting import HANG, cancel_once, until, wait_until

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


#: Redis's timeout where Redis is frozen: long enough that one wait for it
#: stands apart from none on a busy machine (where a call alone can take 1 s).
REDIS_TIMEOUT = 2.0


def tokens_sent(httpx_mock: HTTPXMock) -> list[str | None]:
    return [
        request.headers.get("access-token") for request in httpx_mock.get_requests()
    ]


async def test_a_worker_with_no_token_starts_with_the_one_in_the_slot(
    controller: Any, httpx_mock: HTTPXMock, redis_url: str
) -> None:
    shared = SharedToken(redis_url, name="api")
    redis.Redis.from_url(redis_url).set("api:token", "from-another-worker")
    httpx_mock.add_response(json={})
    auth = AccessToken(shared=shared)
    await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(auth))
    assert tokens_sent(httpx_mock) == ["from-another-worker"]
    assert auth.token == "from-another-worker"


async def test_a_newer_token_in_the_slot_is_used_without_refreshing(
    controller: Any, httpx_mock: HTTPXMock, redis_url: str
) -> None:
    redis.Redis.from_url(redis_url).set("api:token", "refreshed-elsewhere")
    httpx_mock.add_response(status_code=401, match_headers={"Access-Token": "old"})
    httpx_mock.add_response(
        json={"ok": True}, match_headers={"Access-Token": "refreshed-elsewhere"}
    )
    refreshes: list[int] = []

    def refresh() -> str:
        refreshes.append(1)
        return "mine"

    auth = AccessToken("old", refresh=refresh, shared=SharedToken(redis_url, "api"))
    value = await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(auth))
    assert value == {"ok": True}
    assert refreshes == []
    assert tokens_sent(httpx_mock) == ["old", "refreshed-elsewhere"]


async def test_a_refresh_writes_the_slot_for_the_other_workers(
    controller: Any, httpx_mock: HTTPXMock, redis_url: str
) -> None:
    httpx_mock.add_response(status_code=401, match_headers={"Access-Token": "old"})
    httpx_mock.add_response(json={"ok": True}, match_headers={"Access-Token": "new"})
    auth = AccessToken(
        "old", refresh=lambda: "new", shared=SharedToken(redis_url, "api")
    )
    await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(auth))
    assert redis.Redis.from_url(redis_url).get("api:token") == b"new"
    assert tokens_sent(httpx_mock) == ["old", "new"]
    assert redis.Redis.from_url(redis_url).get("api:lock") is None  # given back


async def test_a_lock_held_elsewhere_ends_the_refresh_within_wait(
    controller: Any, httpx_mock: HTTPXMock, redis_url: str
) -> None:
    held = redis.Redis.from_url(redis_url).lock("api:lock", timeout=30)
    assert held.acquire()
    httpx_mock.add_response(status_code=401)
    shared = SharedToken(redis_url, "api", wait=0.3)
    auth = AccessToken("old", refresh=lambda: "new", shared=shared)
    started = time.monotonic()
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(auth))
    assert caught.value.status == 401
    cause = caught.value.__cause__
    assert isinstance(cause, RestwireError)  # never a bare redis-py error
    assert str(cause) == (
        "GET https://api.example.com/x: the shared refresh lock 'api' was not "
        "free within 0.3 s; the token was not refreshed"
    )
    assert time.monotonic() - started < 5
    held.release()


async def test_unreachable_redis_refreshes_this_process_s_own_token(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """Redis down is no reason to fail the call: the token is refreshed as
    if unshared (the breaker said so once)."""
    unreachable = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    httpx_mock.add_response(status_code=401, match_headers={"Access-Token": "old"})
    httpx_mock.add_response(json={"ok": True}, match_headers={"Access-Token": "new"})
    auth = AccessToken(
        "old", refresh=lambda: "new", shared=SharedToken(unreachable, "api")
    )
    value = await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(auth))
    assert value == {"ok": True}
    assert auth.token == "new"


async def test_unreachable_redis_at_start_sends_without_a_token(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    auth = AccessToken(shared=SharedToken("redis://127.0.0.1:1/0", "api"))
    await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(auth))
    assert tokens_sent(httpx_mock) == [None]


def test_reprs_show_no_token(redis_url: str) -> None:
    shared = SharedToken(redis_url, "api")
    auth = AccessToken("secret-value", shared=shared)
    assert "secret-value" not in repr(auth)
    assert "SharedToken(name='api'" in repr(auth)
    assert repr(SharedToken(redis_url)) == (
        "SharedToken(a slot per origin and holder, lease=30.0, wait=30.0)"
    )


async def test_a_silent_redis_costs_the_refresh_one_timeout(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A Redis that accepts the connection and never answers: the refresh
    goes on without it after ``timeout``, it does not hang the call."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
        httpx_mock.add_response(status_code=401)
        httpx_mock.add_response(json={"ok": True})
        shared = SharedToken(url, "api", timeout=0.3)
        auth = AccessToken("old", refresh=lambda: "new", shared=shared)
        started = time.monotonic()
        value = await controller.fetch(
            RestEndpoint(url_prefix=API, path="/x").use(auth)
        )
        assert time.monotonic() - started < 3
    assert value == {"ok": True}
    assert tokens_sent(httpx_mock) == ["old", "new"]


async def test_a_lock_that_cannot_be_given_back_leaves_the_refresh_standing(
    controller: Any,
    httpx_mock: HTTPXMock,
    redis_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Redis fails just as the lock is given back: the lease frees it later,
    the call goes on with the token it refreshed, and the breaker says so
    in one line."""
    shared = SharedToken(redis_url, "api", lease=0.5)

    def fails(**options: object) -> None:
        raise redis.ConnectionError("gone just now")

    shared._release = fails  # type: ignore[assignment]
    httpx_mock.add_response(status_code=401, match_headers={"Access-Token": "old"})
    httpx_mock.add_response(json={"ok": True}, match_headers={"Access-Token": "new"})
    auth = AccessToken("old", refresh=lambda: "new", shared=shared)
    with caplog.at_level(logging.WARNING, logger="restwire"):
        value = await controller.fetch(
            RestEndpoint(url_prefix=API, path="/x").use(auth)
        )
    assert value == {"ok": True}
    store = redis.Redis.from_url(redis_url)
    assert store.get("api:token") == b"new"
    assert store.get("api:lock") is not None  # not given back: its lease frees it
    assert 0 < store.pttl("api:lock") <= 500
    assert len(caplog.records) == 1
    assert "is unreachable (ConnectionError)" in caplog.records[0].getMessage()


# -- fenced writes, and a lock given back when its refresh is cancelled ------------


class Interrupt(BaseException):
    """What an interrupted sync caller meets: not an ``Exception``."""


async def test_a_refresh_that_outlived_its_lease_writes_no_older_token(
    controller: Any, mode: str, httpx_mock: HTTPXMock, redis_url: str
) -> None:
    """The refresh outlives its lock's lease; the next holder takes the
    lock and writes a newer token. The late refresh must not write its
    older token over it (nor give back the next holder's lock): it uses
    the newer one."""
    store = redis.Redis.from_url(redis_url)

    def answer(request: httpx.Request) -> httpx.Response:
        ok = request.headers.get("access-token") in ("older", "newer")
        return httpx.Response(200 if ok else 401, json={})

    def next_holder() -> None:
        # the lease ran out: the lock is free for the next holder
        assert store.set("api:lock", "next-holder", px=30_000, nx=True)
        store.set("api:token", "newer")

    def refresh() -> str:
        time.sleep(0.4)
        next_holder()
        return "older"

    async def refresh_async() -> str:
        await anyio.sleep(0.4)
        next_holder()
        return "older"

    httpx_mock.add_callback(answer, is_reusable=True)
    shared = SharedToken(redis_url, "api", lease=0.2)
    auth = AccessToken(
        "stale", refresh=refresh if mode == "sync" else refresh_async, shared=shared
    )
    await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(auth))
    assert store.get("api:token") == b"newer"
    assert store.get("api:lock") == b"next-holder"
    assert tokens_sent(httpx_mock) == ["stale", "newer"]
    assert auth.token == "newer"


async def test_a_cancelled_refresh_gives_its_lock_back_at_once(
    controller: Any, mode: str, httpx_mock: HTTPXMock, redis_url: str
) -> None:
    """A refresh cancelled midway (an async task cancelled, a sync caller
    interrupted) gives the shared lock back at once, not after its lease."""
    store = redis.Redis.from_url(redis_url)
    httpx_mock.add_response(status_code=401)
    started = threading.Event()

    def refresh() -> str:
        started.set()
        raise Interrupt

    async def refresh_async() -> str:
        started.set()
        await anyio.sleep_forever()
        return "never"

    shared = SharedToken(redis_url, "api", lease=30)
    auth = AccessToken(
        "stale", refresh=refresh if mode == "sync" else refresh_async, shared=shared
    )
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(auth)
    if mode == "sync":
        with pytest.raises(Interrupt):
            controller.controller.fetch(endpoint)
    else:
        await cancel_once(lambda: controller.fetch(endpoint), started.is_set)
    assert started.is_set()
    assert store.get("api:lock") is None
    # and the token holder is usable at once: the next refresh takes the lock
    httpx_mock.add_response(status_code=401)
    httpx_mock.add_response(json={"ok": True})
    auth.refresh = lambda: "new"
    with anyio.fail_after(HANG):
        assert await controller.fetch(endpoint) == {"ok": True}


# -- a dead Redis: one wait, one log line, then the local token --------------------


@pytest.mark.parametrize("fault", ["frozen", "stopped"])
async def test_a_dead_redis_costs_one_wait_and_one_log_line(
    controller: Any,
    httpx_mock: HTTPXMock,
    own_redis: RedisServer,
    fault: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Redis frozen (the kernel accepts, nothing answers) or stopped
    (refused): the first call waits for it at most ``timeout`` and trips
    the breaker, which logs one line naming the address; the calls after
    it do not wait for Redis, and each worker refreshes its own token as if
    unshared."""

    def answer(request: httpx.Request) -> httpx.Response:
        ok = request.headers.get("access-token") == "t0k3n-xyz"
        return httpx.Response(200 if ok else 401, json={"ok": ok})

    httpx_mock.add_callback(answer, is_reusable=True)
    shared = SharedToken(own_redis.url, "api", timeout=REDIS_TIMEOUT)
    if fault == "frozen":
        own_redis.freeze()
    else:
        own_redis.stop()
    took: list[float] = []
    with caplog.at_level(logging.INFO, logger="restwire"), no_collection_pauses():
        for n in range(5):
            # a worker starting with no token: it reads the slot first
            auth = AccessToken(refresh=lambda: "t0k3n-xyz", shared=shared)
            endpoint = RestEndpoint(url_prefix=API, path=f"/x/{n}").use(auth)
            started = time.monotonic()
            assert await controller.fetch(endpoint) == {"ok": True}
            took.append(time.monotonic() - started)
    assert took[0] < REDIS_TIMEOUT * 1.8, took  # one wait for Redis at most
    assert max(took[1:]) < REDIS_TIMEOUT / 2, took  # then none
    records = restwire_records(caplog)
    assert len(records) == 1, [record.getMessage() for record in records]
    assert records[0].levelno == logging.WARNING
    assert records[0].exc_info is None  # one line, no traceback
    assert f"127.0.0.1:{own_redis.port}" in records[0].getMessage()
    assert "t0k3n-xyz" not in caplog.text


async def test_redis_back_is_used_again_and_said_once(
    controller: Any,
    httpx_mock: HTTPXMock,
    own_redis: RedisServer,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """After its back-off, the breaker lets a call try Redis again: it
    answers, the slot is read again, and one line says Redis is back."""
    httpx_mock.add_response(json={}, is_reusable=True)
    shared = SharedToken(own_redis.url, "api", timeout=0.3)
    shared._breaker.clock = clock
    own_redis.freeze()
    with caplog.at_level(logging.INFO, logger="restwire"):
        endpoint = RestEndpoint(url_prefix=API, path="/x")
        await controller.fetch(endpoint.use(AccessToken(shared=shared)))
        own_redis.thaw()
        redis.Redis.from_url(own_redis.url).set("api:token", "from-the-slot")
        await controller.fetch(endpoint.use(AccessToken(shared=shared)))  # still off
        clock.advance(BACKOFF_FIRST + 0.1)
        await controller.fetch(endpoint.use(AccessToken(shared=shared)))
    assert tokens_sent(httpx_mock) == [None, None, "from-the-slot"]
    records = restwire_records(caplog)
    assert [record.levelno for record in records] == [logging.WARNING, logging.INFO]
    assert f"127.0.0.1:{own_redis.port}" in records[1].getMessage()
    assert "from-the-slot" not in caplog.text


# -- a failed refresh, once for the processes waiting behind it -----------------


async def test_a_process_waiting_behind_a_failed_refresh_fails_with_it(
    controller: Any, mode: str, httpx_mock: HTTPXMock, redis_url: str
) -> None:
    """Two processes' token holders (two SharedTokens on one slot) meet 401
    together; the refresh fails. The one that waited for the lock gets the
    failure, named for its call, without calling ``refresh``; a 401 that
    comes after that round ended refreshes again."""
    httpx_mock.add_response(status_code=401, is_reusable=True)
    refreshes: list[int] = []

    def both_refused() -> bool:
        return len(httpx_mock.get_requests()) >= 2

    def refresh() -> str:
        refreshes.append(1)
        wait_until(both_refused)  # the other's 401 has come
        time.sleep(0.3)  # and it is on its way to the lock
        raise RuntimeError("refresh endpoint down")

    async def refresh_async() -> str:
        refreshes.append(1)
        await until(both_refused)
        await anyio.sleep(0.3)
        raise RuntimeError("refresh endpoint down")

    chosen = refresh if mode == "sync" else refresh_async
    first = AccessToken("stale", refresh=chosen, shared=SharedToken(redis_url, "api"))
    second = AccessToken("stale", refresh=chosen, shared=SharedToken(redis_url, "api"))
    endpoints = [
        RestEndpoint(url_prefix=API, path="/a").use(first),
        RestEndpoint(url_prefix=API, path="/b").use(second),
    ]
    with anyio.fail_after(HANG):
        outcomes = await fetch_together(controller, mode, endpoints)
    assert len(refreshes) == 1
    assert all(isinstance(each, NetworkError) for each in outcomes), outcomes
    causes = {type(each.__cause__).__name__: each for each in outcomes}
    assert set(causes) == {"RuntimeError", "SharedTokenError"}
    waiter = causes["SharedTokenError"]
    path = waiter.url.path
    assert str(waiter.__cause__) == (
        f"GET {API}{path}: the token refresh this call waited for failed in "
        "another process (RuntimeError); not tried again"
    )
    assert isinstance(waiter.__cause__, RestwireError)
    with pytest.raises(NetworkError) as later:
        await controller.fetch(endpoints[0])
    assert len(refreshes) == 2
    assert isinstance(later.value.__cause__, RuntimeError)
