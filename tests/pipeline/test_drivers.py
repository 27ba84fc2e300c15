"""The driver contract: the same scenarios through both drivers.

``Controller`` runs ``sync_controller.run_sync`` (generated from ``async_controller``),
``AsyncController`` runs ``async_controller.run_async``. Each scenario here runs
under both, and holds what a driver promises:

- every lock and lease a flow holds is given back however the flow ends:
  finished, failed, answered without sending, cancelled;
- an error is thrown back into the flow where it can be caught;
- a flow may send again, and sleep between;
- closing the controller ends every wait (a sleep, a poll) at once;
- a manager that heard ``on_call`` hears ``on_done``, cancelled or not.

Planting a bug in a driver's release, its throw-back or its closing fails
a test here.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable
from typing import Any

import anyio
import httpx
import pytest

from restwire import (
    Acquire,
    AsyncController,
    CallNext,
    Controller,
    ControllerClosed,
    Exchange,
    Flow,
    FlowLock,
    NetworkError,
    Release,
    RestEndpoint,
    Sleep,
    TransportError,
)
from restwire._base.effects import TakeLease
from restwire._base.library import Response
from tests.waiting import HANG, cancel_once, until, wait_until

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


class Interrupt(BaseException):
    """What a cancelled sync caller meets: not an ``Exception``."""


def replies(*statuses: int) -> Callable[[httpx.Request], httpx.Response]:
    """A handler answering with ``statuses`` in turn, then 200s."""
    left = list(statuses)

    def answer(request: httpx.Request) -> httpx.Response:
        status = left.pop(0) if left else 200
        return httpx.Response(status, json={"path": request.url.path})

    return answer


class Kit:
    """One driver's controller, and how to cancel a call under it."""

    def __init__(self, mode: str, handler: Callable[..., Any]) -> None:
        self.mode = mode
        self.handler = handler

    def controller(self, **options: Any) -> Any:
        if self.mode == "sync":
            return Controller(transport=httpx.MockTransport(self.handler), **options)

        async def answer(request: httpx.Request) -> httpx.Response:
            result = self.handler(request)
            if inspect.isawaitable(result):
                result = await result  # a handler that takes its time
            return result  # type: ignore[no-any-return]

        return AsyncController(transport=httpx.MockTransport(answer), **options)

    async def fetch(self, controller: Any, endpoint: RestEndpoint, **kw: Any) -> Any:
        if self.mode == "sync":
            return controller.fetch(endpoint, **kw)
        return await controller.fetch(endpoint, **kw)

    async def get(self, controller: Any, endpoint: RestEndpoint) -> Any:
        if self.mode == "sync":
            return controller.get(endpoint)
        return await controller.get(endpoint)

    async def close(self, controller: Any) -> None:
        if self.mode == "sync":
            controller.close()
        else:
            await controller.close()


@pytest.fixture
def kit(mode: str) -> Callable[..., Kit]:
    def make(handler: Callable[..., Any] | None = None) -> Kit:
        return Kit(mode, handler or replies())

    return make


class Locking:
    """Takes a lock around the rest of the chain, and leaves its release to
    the driver when the flow ends early (as a middleware may)."""

    def __init__(self) -> None:
        self.lock = FlowLock()

    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        yield Acquire(self.lock)
        response = yield from call_next(exchange)
        yield Release(self.lock)
        return response

    @property
    def free(self) -> bool:
        if self.lock.thread_lock.acquire(blocking=False):
            self.lock.thread_lock.release()
            return True
        return False


class Leases:
    """A store of leases: counts what is held."""

    def __init__(self) -> None:
        self.held = 0

    def take(self) -> Leases:
        self.held += 1
        return self

    def release(self) -> None:
        self.held -= 1


class Leasing:
    """Takes a lease and keeps it for the rest of the call."""

    def __init__(self, leases: Leases) -> None:
        self.leases = leases

    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        yield TakeLease(self.leases.take)
        return (yield from call_next(exchange))


async def _slowly(response: httpx.Response) -> httpx.Response:
    await anyio.sleep(HANG)  # cancelled long before
    return response


# -- locks and leases, on every path ----------------------------------------------------


async def test_a_lock_is_given_back_when_the_call_succeeds_or_fails(
    kit: Callable[..., Kit],
) -> None:
    driver = kit(replies(200, 500))
    locking = Locking()
    endpoint = RestEndpoint(url_prefix=API, path="/a").use(locking)
    controller = driver.controller()
    await driver.fetch(controller, endpoint)
    assert locking.free
    with pytest.raises(NetworkError):
        await driver.fetch(controller, endpoint)
    assert locking.free  # the error unwound past the Release: the driver did it
    await driver.close(controller)


async def test_locks_and_leases_are_given_back_when_a_call_is_cancelled(
    kit: Callable[..., Kit], mode: str
) -> None:
    started = threading.Event()
    leases = Leases()
    locking = Locking()

    def stuck(request: httpx.Request) -> Any:
        started.set()
        if mode == "sync":
            raise Interrupt  # a sync caller is interrupted mid-send
        return _slowly(httpx.Response(200, json={}))

    driver = kit(stuck)
    endpoint = RestEndpoint(url_prefix=API, path="/a").use(locking, Leasing(leases))
    controller = driver.controller()
    if mode == "sync":
        with pytest.raises(Interrupt):
            controller.fetch(endpoint)
    else:

        class SlowSleep:
            def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
                yield Sleep(HANG)
                return (yield from call_next(exchange))

        slow = endpoint.use(SlowSleep())
        # cancelled in its sleep, the lease taken just before it
        await cancel_once(lambda: controller.fetch(slow), lambda: leases.held > 0)
    assert locking.free
    assert leases.held == 0
    await driver.close(controller)


async def test_a_call_answered_from_the_store_gives_back_what_its_chain_took(
    kit: Callable[..., Kit],
) -> None:
    """An answer ends the flow at the innermost step: the driver closes it
    (middleware unwind as from a cancellation) and releases what it holds."""
    driver = kit()
    locking = Locking()
    leases = Leases()
    endpoint = RestEndpoint(url_prefix=API, path="/a").use(locking, Leasing(leases))
    controller = driver.controller()
    first = await driver.get(controller, endpoint)
    assert await driver.get(controller, endpoint) is first  # from the store
    assert locking.free
    assert leases.held == 0
    await driver.close(controller)


# -- errors, re-sends and sleeps -----------------------------------------------------------


class Recovering:
    """Catches a failed send and sends again after a short sleep."""

    def __init__(self) -> None:
        self.caught: list[str] = []

    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        try:
            return (yield from call_next(exchange))
        except (NetworkError, TransportError) as error:
            self.caught.append(type(error).__name__)
        yield Sleep(0.01)
        return (yield from call_next(exchange))


async def test_an_error_is_thrown_back_into_the_flow_and_it_may_send_again(
    kit: Callable[..., Kit],
) -> None:
    calls: list[int] = []

    def flaky(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200, json={"n": len(calls)})

    driver = kit(flaky)
    recovering = Recovering()
    controller = driver.controller()
    endpoint = RestEndpoint(url_prefix=API, path="/a").use(recovering)
    assert await driver.fetch(controller, endpoint) == {"n": 2}
    assert recovering.caught == ["TransportError"]
    assert len(calls) == 2
    await driver.close(controller)


# -- closing ends every wait ---------------------------------------------------------------


class Waiting:
    def __init__(self) -> None:
        self.reached = threading.Event()

    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        self.reached.set()
        yield Sleep(30)
        return (yield from call_next(exchange))


def _close_when(controller: Any, reached: Callable[[], bool]) -> threading.Thread:
    """A thread that closes ``controller`` once ``reached()``, started."""

    def close() -> None:
        wait_until(reached)
        controller.close()

    closer = threading.Thread(target=close)
    closer.start()
    return closer


async def _close_when_async(controller: Any, reached: Callable[[], bool]) -> None:
    await until(reached)
    await controller.close()


async def test_closing_ends_a_call_that_waits_at_once(
    kit: Callable[..., Kit], mode: str
) -> None:
    driver = kit()
    controller = driver.controller()
    waiting = Waiting()
    endpoint = RestEndpoint(url_prefix=API, path="/a").use(waiting)
    started = time.monotonic()
    errors: list[BaseException] = []
    if mode == "sync":
        closer = _close_when(controller, waiting.reached.is_set)
        try:
            controller.fetch(endpoint)
        except ControllerClosed as error:
            errors.append(error)
        closer.join()
    else:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_close_when_async, controller, waiting.reached.is_set)
            try:
                await controller.fetch(endpoint)
            except ControllerClosed as error:
                errors.append(error)
    assert [str(error) for error in errors] == [
        "GET https://api.example.com/a: the controller was closed while the call waited"
    ]
    assert time.monotonic() - started < 15  # not the 30 s of its wait


async def test_closing_ends_a_poll_at_once(kit: Callable[..., Kit], mode: str) -> None:
    driver = kit()
    controller = driver.controller()
    endpoint = RestEndpoint(url_prefix=API, path="/a", poll_frequency=30)
    started = time.monotonic()
    values: list[Any] = []
    if mode == "sync":
        closer = _close_when(controller, lambda: bool(values))  # the first poll
        for value in controller.poll(endpoint):
            values.append(value)
        closer.join()
    else:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_close_when_async, controller, lambda: bool(values))
            async for value in controller.poll(endpoint):
                values.append(value)
    assert values == [{"path": "/a"}]
    assert time.monotonic() - started < 15  # not the 30 s poll interval


# -- managers hear the end of every call they heard begin -------------------------------------


class Tally:
    def __init__(self) -> None:
        self.events: list[str] = []

    def on_call(self, controller: Any, exchange: Exchange) -> None:
        self.events.append("call")

    def on_value(self, controller: Any, exchange: Exchange, value: Any) -> None:
        self.events.append("value")

    def on_error(self, controller: Any, exchange: Exchange, error: Exception) -> None:
        self.events.append("error")

    def on_done(self, controller: Any, exchange: Exchange) -> None:
        self.events.append("done")


async def test_on_done_follows_every_on_call_however_the_call_ends(
    kit: Callable[..., Kit], mode: str
) -> None:
    sent_stuck = threading.Event()

    def answer(request: httpx.Request) -> Any:
        if request.url.path == "/stuck":
            sent_stuck.set()
            if mode == "sync":
                raise Interrupt
            return _slowly(httpx.Response(200, json={}))
        status = 500 if request.url.path == "/bad" else 200
        return httpx.Response(status, json={})

    driver = kit(answer)
    tally = Tally()
    controller = driver.controller(managers=[tally])
    await driver.fetch(controller, RestEndpoint(url_prefix=API, path="/ok"))
    with pytest.raises(NetworkError):
        await driver.fetch(controller, RestEndpoint(url_prefix=API, path="/bad"))
    stuck = RestEndpoint(url_prefix=API, path="/stuck")
    if mode == "sync":
        with pytest.raises(Interrupt):
            controller.fetch(stuck)
    else:
        await cancel_once(lambda: controller.fetch(stuck), sent_stuck.is_set)
    assert tally.events == [
        "call",
        "value",
        "done",
        "call",
        "error",
        "done",
        "call",
        "done",
    ]
    await driver.close(controller)
