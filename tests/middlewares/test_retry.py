"""Retry: what is retried, how long it waits, and what it never does."""

from __future__ import annotations

import datetime
import email.utils
import re
import time
from typing import Any

import anyio
import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import Exchange, NetworkError, RestEndpoint, TransportError
from restwire.middlewares import Retry, retry_after_seconds
from tests.conftest import FakeClock

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
NOW = datetime.datetime(2024, 5, 1, 12, 0, 0, tzinfo=datetime.UTC)


def fast(**options: Any) -> Retry:
    return Retry(backoff=0.001, max_backoff=0.002, jitter=lambda: 1.0, **options)


class WaitsSeen:
    """Outside Retry: collects the waits it chose for a call."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def on_response(self, exchange: Exchange) -> None:
        self.waits.extend(exchange.state["retry_waits"])


def endpoint(method: str = "GET", **options: Any) -> RestEndpoint:
    return RestEndpoint(url_prefix=API, path="/items/1", method=method).use(
        fast(**options)
    )


@pytest.mark.parametrize("status", [429, 502, 503, 504])
async def test_transient_statuses_are_retried(
    controller: Any, httpx_mock: HTTPXMock, status: int
) -> None:
    httpx_mock.add_response(status_code=status)
    httpx_mock.add_response(json={"ok": True})
    assert await controller.fetch(endpoint()) == {"ok": True}
    assert len(httpx_mock.get_requests()) == 2


@pytest.mark.parametrize("status", [400, 401, 404, 500])
async def test_other_statuses_are_not(
    controller: Any, httpx_mock: HTTPXMock, status: int
) -> None:
    httpx_mock.add_response(status_code=status)
    with pytest.raises(NetworkError):
        await controller.fetch(endpoint())
    assert len(httpx_mock.get_requests()) == 1


async def test_connection_failures_are_retried(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_exception(httpx.ConnectError("refused"))
    httpx_mock.add_exception(httpx.ReadTimeout("slow"))
    httpx_mock.add_response(json={"ok": True})
    assert await controller.fetch(endpoint()) == {"ok": True}


async def test_attempts_are_bounded(controller: Any, httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(status_code=503, is_reusable=True)
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(endpoint(attempts=4))
    assert len(httpx_mock.get_requests()) == 4
    assert caught.value.status == 503
    assert caught.value.attempts == 4
    assert caught.value.retry_wait is None
    assert str(caught.value).endswith("(gave up after 4 attempts: no attempts left)")
    assert caught.value.__suppress_context__  # the traceback shows it once


@pytest.mark.parametrize("method", ["POST", "PATCH"])
async def test_non_idempotent_methods_are_never_sent_twice(
    controller: Any, httpx_mock: HTTPXMock, method: str
) -> None:
    httpx_mock.add_response(status_code=503)
    with pytest.raises(NetworkError):
        await controller.fetch(endpoint(method), body={"a": 1})
    httpx_mock.add_exception(httpx.ReadTimeout("timed out after sending"))
    with pytest.raises(TransportError):
        await controller.fetch(endpoint(method), body={"a": 1})
    assert len(httpx_mock.get_requests()) == 2


async def test_a_post_with_an_idempotency_key_is_retried_with_the_same_bytes(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=503)
    httpx_mock.add_response(status_code=201, json={"id": "1"})

    class Key:
        def on_request(self, exchange: Exchange) -> None:
            exchange.headers["Idempotency-Key"] = "k-1"

    create = RestEndpoint(url_prefix=API, path="/items/", method="POST").use(
        Key(), fast()
    )
    await controller.fetch(create, body={"title": "t", "n": [1, 2]})
    first, second = httpx_mock.get_requests()
    assert first.content == second.content == b'{"title":"t","n":[1,2]}'
    assert second.headers["idempotency-key"] == "k-1"


async def test_a_post_can_be_opted_in(controller: Any, httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(status_code=502)
    httpx_mock.add_response(json={})
    await controller.fetch(endpoint("POST", methods={"POST"}), body={})
    assert len(httpx_mock.get_requests()) == 2


async def test_a_one_shot_body_is_not_retried(
    controller: Any, httpx_mock: HTTPXMock, mode: str
) -> None:
    httpx_mock.add_response(status_code=503)

    def chunks() -> Any:
        yield b"x"

    async def achunks() -> Any:
        yield b"x"

    with pytest.raises(NetworkError):
        await controller.fetch(
            endpoint("PUT"), body=chunks() if mode == "sync" else achunks()
        )
    assert len(httpx_mock.get_requests()) == 1


async def test_retry_after_seconds_is_honoured(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=503, headers={"retry-after": "0"})
    httpx_mock.add_response(json={})
    watch = WaitsSeen()
    await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(watch, fast()))
    assert watch.waits == [0.0]


async def test_a_wait_past_the_budget_ends_with_the_same_error_type(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=429, headers={"retry-after": "120"})
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(endpoint(budget=10))
    assert caught.value.status == 429
    assert caught.value.attempts == 1
    assert caught.value.retry_wait == 120
    # (what is left of the budget is read off the real clock: 10 s, or a
    # hair under it on a loaded machine)
    assert re.search(
        r"\(gave up after 1 attempt: the next wait of 120 s would pass the 10 s "
        r"retry budget \((10|9\.9\d?) s left\)\)$",
        str(caught.value),
    ), str(caught.value)
    assert len(httpx_mock.get_requests()) == 1


async def test_request_time_counts_against_the_budget(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """The budget is the whole call's: time spent sending counts, so two
    slow attempts can spend it before any long wait."""
    clock = FakeClock()

    def slow_failure(request: httpx.Request) -> httpx.Response:
        clock.advance(1.0)  # each attempt takes a second
        return httpx.Response(503)

    httpx_mock.add_callback(slow_failure, is_reusable=True)
    retry = Retry(attempts=5, budget=1.5, backoff=0.1, clock=clock, jitter=lambda: 1.0)
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(retry))
    assert len(httpx_mock.get_requests()) == 2
    assert caught.value.attempts == 2
    assert "retry budget" in str(caught.value)


async def test_a_transport_failure_keeps_its_cause_when_retries_end(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_exception(httpx.ConnectError("refused"), is_reusable=True)
    with pytest.raises(TransportError) as caught:
        await controller.fetch(endpoint(attempts=2))
    assert isinstance(caught.value.__cause__, httpx.ConnectError)
    assert caught.value.attempts == 2
    assert "gave up after 2 attempts" in str(caught.value)


async def test_malformed_retry_after_falls_back_to_backoff(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=503, headers={"retry-after": "soon"})
    httpx_mock.add_response(json={})
    watch = WaitsSeen()
    await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(watch, fast()))
    assert watch.waits == [0.001]


def test_backoff_is_exponential_capped_full_jitter() -> None:
    retry = Retry(backoff=1, max_backoff=5, jitter=lambda: 0.5)
    error = TransportError("GET", f"{API}/x", httpx.ConnectError("refused"))
    assert [retry.delay(error, attempt) for attempt in range(5)] == [
        0.5,
        1,
        2,
        2.5,
        2.5,
    ]
    assert Retry(backoff=1, jitter=lambda: 0.0).delay(error, 3) == 0.0


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("0", 0.0),
        ("120", 120.0),
        (" 7 ", 7.0),
        ("-5", None),
        ("1.5", None),
        ("", None),
        ("soon", None),
        ("Wed, 01 May 2024 12:00:30 GMT", 30.0),
        ("Wed, 01 May 2024 11:00:00 GMT", 0.0),
        ("Wednesday, 01-May-24 12:00:10 GMT", 10.0),
        ("Wed May  1 12:00:05 2024", 5.0),  # asctime: UTC (RFC 9110 5.6.7)
        (None, None),
    ],
)
def test_retry_after_values(value: str | None, seconds: float | None) -> None:
    assert retry_after_seconds(value, now=lambda: NOW) == seconds


def test_an_http_date_retry_after_is_parsed_against_now() -> None:
    later = email.utils.format_datetime(
        datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=60),
        usegmt=True,
    )
    assert 55 <= (retry_after_seconds(later) or 0) <= 60


def test_attempts_count_the_first_try() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Retry(attempts=0)


async def test_a_real_read_timeout_is_retried_then_reported(
    controller_factory: Any, origin_a: Any
) -> None:
    # only the read may time out: a connect slowed by a busy machine must not
    controller = controller_factory(timeout=httpx.Timeout(5.0, read=0.05))
    slow = RestEndpoint(url_prefix=origin_a.origin, path="/slow", max_redirects=0).use(
        fast(attempts=2)
    )
    with pytest.raises(TransportError) as caught:
        await controller.fetch(slow, {"seconds": 0.3})
    assert isinstance(caught.value.__cause__, httpx.ReadTimeout)
    assert str(caught.value).startswith(
        f"GET {origin_a.origin}/slow?seconds=0.3: ReadTimeout"
    )
    # the server records a request when its thread reads it, which on a busy
    # machine may come after the client's 0.05 s read timeout: wait for it
    deadline = time.monotonic() + 5
    while len(origin_a.requests) < 2 and time.monotonic() < deadline:
        await anyio.sleep(0.01)
    assert [request.path for request in origin_a.requests] == ["/slow?seconds=0.3"] * 2
