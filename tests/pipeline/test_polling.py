"""Polling: iterators, shared pollers, frequency changes, clean shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import logging
import threading
import time
from typing import Any

import anyio
import httpx
import pytest
from multidict import MultiDict
from pytest_httpx import HTTPXMock

from restwire import AsyncController, Controller, RestEndpoint
from tests.pipeline.entities import Ticker
from tests.waiting import HANG

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
ticker = RestEndpoint(
    url_prefix=API,
    path="/products/:product_id/ticker",
    schema=Ticker,
    poll_frequency=0.01,
)
PARAMS = {"product_id": "BTC-USD"}


def moving_price(httpx_mock: HTTPXMock) -> None:
    prices = itertools.count(100)

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, json={"product_id": "BTC-USD", "price": str(next(prices))}
        )

    httpx_mock.add_callback(answer, is_reusable=True)


def poller_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("restwire poll")]


def test_poll_yields_fresh_values_sync(httpx_mock: HTTPXMock) -> None:
    moving_price(httpx_mock)
    with Controller() as controller:
        prices = [t.price for t in itertools.islice(controller.poll(ticker, PARAMS), 3)]
    assert prices == [100.0, 101.0, 102.0]


async def test_poll_yields_fresh_values_async(httpx_mock: HTTPXMock) -> None:
    moving_price(httpx_mock)
    prices = []
    async with AsyncController() as controller:
        async for value in controller.poll(ticker, PARAMS):
            prices.append(value.price)
            if len(prices) == 3:
                break
    assert prices == [100.0, 101.0, 102.0]


def test_poll_waits_the_frequency_between_values(httpx_mock: HTTPXMock) -> None:
    moving_price(httpx_mock)
    with Controller() as controller:
        started = time.monotonic()
        list(itertools.islice(controller.poll(ticker, PARAMS, frequency=0.05), 3))
        assert time.monotonic() - started >= 0.1


def test_polling_needs_a_frequency() -> None:
    with (
        Controller() as controller,
        pytest.raises(ValueError, match="no poll frequency"),
    ):
        controller.subscribe(ticker.extend(poll_frequency=None), PARAMS, print)


def test_subscribers_share_one_poller_at_the_shortest_interval(
    httpx_mock: HTTPXMock,
) -> None:
    moving_price(httpx_mock)
    first: list[float] = []
    second: list[float] = []
    with Controller() as controller:
        slow = controller.subscribe(
            ticker, PARAMS, lambda t: first.append(t.price), frequency=10
        )
        assert controller.poll_interval(ticker, PARAMS) == 10
        fast = controller.subscribe(
            ticker, PARAMS, lambda t: second.append(t.price), frequency=0.01
        )
        assert controller.poll_interval(ticker, PARAMS) == 0.01
        deadline = time.monotonic() + 2
        while len(second) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(poller_threads()) == 1
        fast.cancel()
        assert controller.poll_interval(ticker, PARAMS) == 10
        slow.cancel()
        deadline = time.monotonic() + 2
        while poller_threads() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert controller.poll_interval(ticker, PARAMS) is None
        assert poller_threads() == []
    assert len(second) >= 3
    assert first[0] == 100.0  # the first subscriber got the first poll at once
    assert first == sorted(first)
    requests = len(httpx_mock.get_requests())
    assert requests == len(set(first) | set(second))  # every poll served both


def test_close_stops_every_poller_thread(httpx_mock: HTTPXMock) -> None:
    moving_price(httpx_mock)
    seen = threading.Event()
    controller = Controller()
    controller.subscribe(ticker, PARAMS, lambda t: seen.set())
    controller.subscribe(ticker, {"product_id": "ETH-USD"}, lambda t: None)
    assert seen.wait(HANG)
    controller.close()
    assert poller_threads() == []
    with pytest.raises(RuntimeError, match="closed"):
        controller.subscribe(ticker, PARAMS, print)


def test_poll_errors_go_to_on_error_and_polling_goes_on(httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(status_code=503)
    httpx_mock.add_response(
        json={"product_id": "BTC-USD", "price": 1}, is_reusable=True
    )
    errors: list[Exception] = []
    values: list[Any] = []
    done = threading.Event()

    def got(value: Any) -> None:
        values.append(value)
        done.set()

    with Controller() as controller:
        endpoint = ticker.extend(error_expiry_length=0)
        controller.subscribe(endpoint, PARAMS, got, on_error=errors.append)
        assert done.wait(HANG)
    assert [type(e).__name__ for e in errors] == ["ServerError"]
    assert values[0].price == 1.0


def test_a_failing_callback_does_not_stop_the_poller(httpx_mock: HTTPXMock) -> None:
    moving_price(httpx_mock)
    calls: list[int] = []
    enough = threading.Event()

    def flaky(value: Any) -> None:
        calls.append(1)
        if len(calls) >= 3:
            enough.set()
        raise RuntimeError("subscriber bug")

    with Controller() as controller:
        controller.subscribe(ticker, PARAMS, flaky)
        assert enough.wait(HANG)


async def test_async_subscribers_share_one_task_and_stop_on_exit(
    httpx_mock: HTTPXMock,
) -> None:
    moving_price(httpx_mock)
    first: list[float] = []
    second: list[float] = []
    async with AsyncController() as controller:

        async def record(value: Any) -> None:
            second.append(value.price)

        one = controller.subscribe(
            ticker, PARAMS, lambda t: first.append(t.price), frequency=5
        )
        two = controller.subscribe(ticker, PARAMS, record, frequency=0.01)
        assert controller.poll_interval(ticker, PARAMS) == 0.01
        with anyio.fail_after(HANG):
            while len(second) < 3:
                await anyio.sleep(0.01)
        two.cancel()
        assert controller.poll_interval(ticker, PARAMS) == 5
        one.cancel()
        with anyio.fail_after(HANG):
            while controller.poll_interval(ticker, PARAMS) is not None:
                await anyio.sleep(0.01)
        controller.subscribe(
            ticker, {"product_id": "ETH-USD"}, lambda t: None, frequency=5
        )
    # leaving the block stopped the remaining poller without waiting 5 s
    assert first[0] == 100.0


async def test_async_subscribe_needs_the_controller_entered() -> None:
    controller = AsyncController()
    with pytest.raises(RuntimeError, match="async with"):
        controller.subscribe(ticker, PARAMS, print)
    await controller.close()


async def test_async_subscribe_after_close_is_refused(httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(json={}, is_optional=True, is_reusable=True)
    async with AsyncController() as controller:
        await controller.close()
        with pytest.raises(RuntimeError, match="closed"):
            controller.subscribe(ticker, PARAMS, print, frequency=0.01)
        await anyio.sleep(0.05)
    assert httpx_mock.get_requests() == []


def test_sync_subscribe_after_close_is_refused() -> None:
    controller = Controller()
    controller.close()
    with pytest.raises(RuntimeError, match="closed"):
        controller.subscribe(ticker, PARAMS, print, frequency=0.01)


TAGGED = RestEndpoint(url_prefix=API, path="/items", poll_frequency=0.01)
TAGS = MultiDict([("tag", "a"), ("tag", "b")])


def test_a_poller_keeps_every_value_of_a_repeated_param_sync(
    httpx_mock: HTTPXMock,
) -> None:
    httpx_mock.add_response(json=[], is_reusable=True)
    seen = threading.Event()
    with (
        Controller() as controller,
        controller.subscribe(TAGGED, TAGS, lambda value: seen.set()),
    ):
        assert seen.wait(HANG)
    assert httpx_mock.get_requests()[0].url.query == b"tag=a&tag=b"


async def test_a_poller_keeps_every_value_of_a_repeated_param_async(
    httpx_mock: HTTPXMock,
) -> None:
    httpx_mock.add_response(json=[], is_reusable=True)
    seen = anyio.Event()
    async with AsyncController() as controller:
        with controller.subscribe(TAGGED, TAGS, lambda value: seen.set()):
            with anyio.fail_after(HANG):
                await seen.wait()
    assert httpx_mock.get_requests()[0].url.query == b"tag=a&tag=b"


async def test_a_query_token_shows_in_no_poll_log_repr_or_thread_name(
    controller_factory: Any, httpx_mock: HTTPXMock, caplog: pytest.LogCaptureFixture
) -> None:
    """A poll's request key holds its query (it keys what is stored), with
    a credential param's value redacted (the caller's identity holds it):
    so its log line, its subscription's repr and its thread's or task's
    name show none."""
    caplog.set_level(logging.DEBUG)
    secret = "query-key-31337"
    httpx_mock.add_response(status_code=503, is_reusable=True)
    controller = controller_factory()
    async with contextlib.AsyncExitStack() as stack:
        if isinstance(controller, AsyncController):  # pollers need its task group
            await stack.enter_async_context(controller)
        made = controller.subscribe(
            ticker, {**PARAMS, "api_key": secret}, print, frequency=60
        )
        subscription = await made if inspect.isawaitable(made) else made
        names = [
            *(thread.name for thread in threading.enumerate()),
            *(task.get_name() for task in asyncio.all_tasks()),
        ]
        deadline = time.monotonic() + HANG
        while not any("poll of" in each.getMessage() for each in caplog.records):
            assert time.monotonic() < deadline, "the poll never failed"
            await anyio.sleep(0.01)
        subscription.cancel()
    shown = "\n".join(
        [repr(subscription), *names, *(each.getMessage() for each in caplog.records)]
    )
    assert "restwire poll GET https://api.example.com/products/BTC-USD/ticker" in shown
    assert "api_key=[redacted]" in shown
    assert secret not in shown
