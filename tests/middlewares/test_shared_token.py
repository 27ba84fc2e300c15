"""SharedToken: AccessToken's slot and refresh lock in a real Redis.

Every test runs under both drivers (the ``controller`` fixture) against a
redis-server the suite started; the HTTP side is pytest-httpx. The
four-process promise is in ``tests/processes/test_many_processes.py``.
"""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest
import redis
from pytest_httpx import HTTPXMock

from restwire import NetworkError, RestEndpoint
from restwire.middlewares import AccessToken, SharedToken

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


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
    assert isinstance(caught.value.__cause__, TimeoutError)
    assert "was not free within 0.3 s" in str(caught.value.__cause__)
    assert time.monotonic() - started < 5
    held.release()


async def test_unreachable_redis_is_the_refresh_failing_with_its_cause(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    unreachable = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    httpx_mock.add_response(status_code=401)
    auth = AccessToken("old", refresh=lambda: "new", shared=SharedToken(unreachable))
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(auth))
    assert caught.value.status == 401
    assert isinstance(caught.value.__cause__, redis.ConnectionError)


async def test_unreachable_redis_at_start_sends_without_a_token(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    auth = AccessToken(shared=SharedToken("redis://127.0.0.1:1/0"))
    await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(auth))
    assert tokens_sent(httpx_mock) == [None]


def test_reprs_show_no_token(redis_url: str) -> None:
    shared = SharedToken(redis_url, "api")
    auth = AccessToken("secret-value", shared=shared)
    assert "secret-value" not in repr(auth)
    assert "SharedToken(name='api'" in repr(auth)


async def test_a_silent_redis_ends_the_refresh_within_its_timeout(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A Redis that accepts the connection and never answers: the refresh
    fails after ``timeout``, it does not hang the call."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
        httpx_mock.add_response(status_code=401)
        shared = SharedToken(url, timeout=0.3)
        auth = AccessToken("old", refresh=lambda: "new", shared=shared)
        started = time.monotonic()
        with pytest.raises(NetworkError) as caught:
            await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(auth))
        assert time.monotonic() - started < 3
    assert caught.value.status == 401
    assert isinstance(caught.value.__cause__, redis.TimeoutError)


async def test_a_lock_that_cannot_be_given_back_leaves_the_refresh_standing(
    controller: Any,
    httpx_mock: HTTPXMock,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Redis fails just as the lock is given back: the lease frees it later,
    and the call goes on with the token it refreshed."""

    def fails(self: object) -> None:
        raise redis.ConnectionError("gone just now")

    monkeypatch.setattr(redis.lock.Lock, "release", fails)
    httpx_mock.add_response(status_code=401, match_headers={"Access-Token": "old"})
    httpx_mock.add_response(json={"ok": True}, match_headers={"Access-Token": "new"})
    auth = AccessToken(
        "old", refresh=lambda: "new", shared=SharedToken(redis_url, "api")
    )
    value = await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(auth))
    assert value == {"ok": True}
    assert redis.Redis.from_url(redis_url).get("api:token") == b"new"
