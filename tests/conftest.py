"""Fixtures shared by the whole suite.

``controller_factory`` gives tests one body for both drivers: under ``sync``
it wraps a :class:`Controller` so its methods can be awaited, under ``async``
it is an :class:`AsyncController`. Every test that takes it runs twice.
"""

from __future__ import annotations

import contextlib
import gc
import inspect
import logging
import os
import ssl
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from restwire import AsyncController, Controller, HttpCache, RestEndpoint
from tests import HTTPX
from tests.counting_server import CountingServer
from tests.redis_server import REDIS_SERVER, RedisServer
from tests.servers import RecordingServer

if not HTTPX:  # httpx2 alone: httpx2-pytest's fixture, by pytest-httpx's name

    @pytest.fixture
    def httpx_mock(httpx2_mock: Any) -> Any:
        return httpx2_mock


def pytest_addoption(
    parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager
) -> None:
    """With pytest-xdist off (``-p no:xdist``, or not installed), the options
    ``addopts`` gives it (``--numprocesses=3 --dist=loadfile``) are still
    accepted, and the tests run in this process, as with ``-n 0``."""
    if pluginmanager.has_plugin("xdist"):
        return
    off = parser.getgroup("xdist", "pytest-xdist is off: tests run in this process")
    off.addoption("--numprocesses", help="ignored: pytest-xdist is off")
    off.addoption("--dist", help="ignored: pytest-xdist is off")


#: Building an SSL context costs ~40 ms; clients made by tests share one.
SSL_CONTEXT = ssl.create_default_context()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Awaitable:
    """A sync controller whose methods can be awaited, for shared test bodies."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self.client = controller.client
        self.store = controller.store

    def reset(self) -> None:
        self.controller.reset()

    def invalidate(self, *args: Any) -> None:
        self.controller.invalidate(*args)

    def invalidate_all(self, *args: Any, **kwargs: Any) -> int:
        return self.controller.invalidate_all(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.controller, name)
        if not callable(attribute):
            return attribute

        async def call(*args: Any, **kwargs: Any) -> Any:
            return attribute(*args, **kwargs)

        return call


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def controller_factory(mode: str) -> AsyncIterator[Callable[..., Any]]:
    """``make(clock=, managers=, cache=, identity=, **client_options)``
    returns a controller of this test's mode, on a client of the user's
    made with ``client_options``."""
    made: list[Any] = []

    def make(
        clock: Callable[[], float] | None = None,
        managers: tuple[Any, ...] = (),
        cache: HttpCache | None = None,
        identity: Callable[[], Any] | None = None,
        **client_options: Any,
    ) -> Any:
        client_options.setdefault("verify", SSL_CONTEXT)
        options: dict[str, Any] = {"managers": managers}
        if clock is not None:
            options["clock"] = clock
        if cache is not None:
            options["cache"] = cache
        if identity is not None:
            options["identity"] = identity
        if mode == "sync":
            controller = Controller(httpx.Client(**client_options), **options)
            made.append(controller)
            return Awaitable(controller)
        async_controller = AsyncController(
            httpx.AsyncClient(**client_options), **options
        )
        made.append(async_controller)
        return async_controller

    yield make
    for controller in made:
        if isinstance(controller, Controller):
            controller.close()  # (a client it was given stays open)
            controller.client.close()
        else:
            await controller.close()
            await controller.client.aclose()


@pytest.fixture
async def controller(controller_factory: Callable[..., Any]) -> Any:
    return controller_factory()


@pytest.fixture
async def own_controller_factory(mode: str) -> AsyncIterator[Callable[..., Any]]:
    """``make(**controller_options)`` returns a controller of this test's
    mode that makes its own client (and so closes it, and its HTTP cache's
    storage, when the test ends)."""
    made: list[Any] = []

    def make(**options: Any) -> Any:
        if mode == "sync":
            controller = Controller(**options)
            made.append(controller)
            return Awaitable(controller)
        async_controller = AsyncController(**options)
        made.append(async_controller)
        return async_controller

    yield make
    for controller in made:
        if isinstance(controller, Controller):
            controller.close()
        else:
            await controller.close()


async def collect(iterable: Any) -> list[Any]:
    """Every item of what ``paginate`` or ``poll`` returned, under either
    driver: the sync controller's iterator comes back awaited (see
    :class:`Awaitable`), the async one's is an async iterator."""
    if inspect.isawaitable(iterable):
        iterable = await iterable
    if hasattr(iterable, "__aiter__"):
        return [each async for each in iterable]
    return list(iterable)


async def fetch_together(
    controller: Any, mode: str, endpoints: list[RestEndpoint[Any]]
) -> list[Any]:
    """Fetch every endpoint at once (threads under the sync driver, tasks
    under the async one); each one's value or the exception it raised."""
    if mode == "sync":
        barrier = threading.Barrier(len(endpoints))

        def one(endpoint: RestEndpoint[Any]) -> Any:
            barrier.wait()
            try:
                return controller.controller.fetch(endpoint)
            except Exception as error:
                return error

        with ThreadPoolExecutor(len(endpoints)) as pool:
            return list(pool.map(one, endpoints))
    outcomes: list[Any] = [None] * len(endpoints)

    async def one_async(index: int) -> None:
        try:
            outcomes[index] = await controller.fetch(endpoints[index])
        except Exception as error:
            outcomes[index] = error

    async with anyio.create_task_group() as tasks:
        for index in range(len(endpoints)):
            tasks.start_soon(one_async, index)
    return outcomes


class FakeClock:
    """A clock tests move by hand: expiry boundaries without sleeping."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(scope="session")
def _servers() -> Iterator[tuple[RecordingServer, RecordingServer]]:
    first, second = RecordingServer(), RecordingServer()
    yield first, second
    first.close()
    second.close()


@pytest.fixture
def origin_a(_servers: tuple[RecordingServer, RecordingServer]) -> RecordingServer:
    """A real server: one origin. Its record (and its ``/steps`` counts) is
    empty at the start of a test."""
    _servers[0].requests.clear()
    _servers[0].steps_taken.clear()
    _servers[0].hung_up.clear()
    return _servers[0]


@pytest.fixture
def origin_b(_servers: tuple[RecordingServer, RecordingServer]) -> RecordingServer:
    """A second real server on another port: another origin."""
    _servers[1].requests.clear()
    _servers[1].steps_taken.clear()
    _servers[1].hung_up.clear()
    return _servers[1]


@pytest.fixture(scope="session")
def _redis_server() -> Iterator[RedisServer]:
    if REDIS_SERVER is None:
        if os.environ.get("CI"):  # CI promises these tests: never skip them there
            pytest.fail("redis-server is not installed; .ci/run installs it")
        pytest.skip(
            "redis-server is not installed (Debian: apt-get install redis-server; "
            ".ci/run installs it)"
        )
    with RedisServer() as server:
        yield server


@pytest.fixture(params=["sqlite", "redis"])
def cache(request: pytest.FixtureRequest, tmp_path: Path) -> HttpCache:
    """An ``HttpCache`` on each storage: a SQLite file of this test's, and
    the shared real redis-server (emptied for this test)."""
    if request.param == "sqlite":
        return HttpCache.sqlite(tmp_path / "cache.db")
    return HttpCache.redis(request.getfixturevalue("redis_url"))


@pytest.fixture
def redis_url(_redis_server: RedisServer) -> str:
    """The URL of a real redis-server on 127.0.0.1, emptied for this test."""
    _redis_server.flush()
    return _redis_server.url


@pytest.fixture
def own_redis(_redis_server: RedisServer) -> Iterator[RedisServer]:
    """A redis-server of this test's own, which it may freeze or stop
    (``RedisServer.freeze``, ``.stop``): the shared one stays up."""
    with RedisServer() as server:
        yield server


@pytest.fixture
def counting_server() -> Iterator[CountingServer]:
    """A real server that counts what each route is asked (see
    ``tests/counting_server.py``); a new one, with zero counts, per test."""
    with CountingServer() as server:
        yield server


@contextlib.contextmanager
def no_collection_pauses() -> Iterator[None]:
    """No garbage collection inside, for a test that times calls: a full
    collection of a test process's heap takes 0.15 to 0.4 s (more on a busy
    machine), a pause that is none of the timed calls' doing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def restwire_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What restwire logged (its own logger's records) in a test."""
    return [record for record in caplog.records if record.name == "restwire"]
