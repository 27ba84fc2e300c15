"""In-flight de-duplication and reset races, with real concurrency:
asyncio tasks on AsyncController, threads on Controller."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    AsyncController,
    Controller,
    NetworkError,
    RestEndpoint,
    RestwireError,
)
from tests.pipeline.entities import Post

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
get_post = RestEndpoint(url_prefix=API, path="/posts/:id", schema=Post)
create_post = RestEndpoint(url_prefix=API, path="/posts/", method="POST", schema=Post)


async def test_fifty_concurrent_gets_make_one_request_async(
    httpx_mock: HTTPXMock,
) -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(0.05)
        return httpx.Response(200, json={"id": "1", "title": "t"})

    httpx_mock.add_callback(slow)
    results: list[Any] = []
    async with AsyncController() as controller:

        async def one() -> None:
            results.append(await controller.get(get_post, {"id": "1"}))

        async with anyio.create_task_group() as tasks:
            for _ in range(50):
                tasks.start_soon(one)
    assert len(httpx_mock.get_requests()) == 1
    assert results == [Post(id="1", title="t")] * 50


def test_fifty_concurrent_gets_make_one_request_threads(httpx_mock: HTTPXMock) -> None:
    started = threading.Barrier(50)

    def slow(request: httpx.Request) -> httpx.Response:
        time.sleep(0.1)
        return httpx.Response(200, json={"id": "1", "title": "t"})

    httpx_mock.add_callback(slow)
    with Controller() as controller:

        def one(_: int) -> Any:
            started.wait()
            return controller.get(get_post, {"id": "1"})

        with ThreadPoolExecutor(50) as pool:
            results = list(pool.map(one, range(50)))
    assert len(httpx_mock.get_requests()) == 1
    assert results == [Post(id="1", title="t")] * 50


async def test_waiting_callers_get_their_own_list(httpx_mock: HTTPXMock) -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(0.02)
        return httpx.Response(200, json=[{"id": "1"}])

    httpx_mock.add_callback(slow)
    listing = RestEndpoint(url_prefix=API, path="/posts/", schema=[Post])
    results: list[Any] = []
    async with AsyncController() as controller:

        async def one() -> None:
            results.append(await controller.fetch(listing))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(one)
            tasks.start_soon(one)
    assert results[0] == results[1]
    assert results[0] is not results[1]


async def test_mutations_are_never_shared(httpx_mock: HTTPXMock) -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(0.02)
        return httpx.Response(201, json={"id": "9", "title": "t"})

    httpx_mock.add_callback(slow, is_reusable=True)
    async with AsyncController() as controller, anyio.create_task_group() as tasks:
        for _ in range(5):
            tasks.start_soon(controller.fetch, create_post, None, {"title": "t"})
    assert len(httpx_mock.get_requests()) == 5


async def test_every_waiting_caller_gets_the_leaders_error(
    httpx_mock: HTTPXMock,
) -> None:
    async def failing(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(0.02)
        return httpx.Response(500)

    httpx_mock.add_callback(failing)
    errors: list[BaseException] = []
    async with AsyncController() as controller:

        async def one() -> None:
            try:
                await controller.fetch(get_post, {"id": "1"})
            except NetworkError as error:
                errors.append(error)

        async with anyio.create_task_group() as tasks:
            for _ in range(10):
                tasks.start_soon(one)
    assert len(errors) == 10
    assert len(httpx_mock.get_requests()) == 1


async def test_a_cancelled_leader_does_not_strand_its_followers(
    httpx_mock: HTTPXMock,
) -> None:
    arrived = anyio.Event()

    async def slow(request: httpx.Request) -> httpx.Response:
        arrived.set()
        await anyio.sleep(5)
        return httpx.Response(200, json={"id": "1"})

    httpx_mock.add_callback(slow)
    outcomes: list[BaseException] = []
    leader_scope = anyio.CancelScope()
    async with AsyncController() as controller:

        async def leader() -> None:
            with leader_scope:
                await controller.fetch(get_post, {"id": "1"})

        async def follower() -> None:
            try:
                await controller.fetch(get_post, {"id": "1"})
            except RestwireError as error:
                outcomes.append(error)

        with anyio.fail_after(3):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(leader)
                await arrived.wait()
                tasks.start_soon(follower)
                await anyio.sleep(0.01)
                leader_scope.cancel()
    assert [str(error) for error in outcomes] == [
        f"GET {API}/posts/1: the request this call was sharing was abandoned"
    ]
    assert len(httpx_mock.get_requests()) == 1


async def test_a_fetch_in_flight_at_reset_does_not_write_back_async(
    httpx_mock: HTTPXMock,
) -> None:
    arrived, release = anyio.Event(), anyio.Event()

    async def held(request: httpx.Request) -> httpx.Response:
        arrived.set()
        await release.wait()
        return httpx.Response(200, json={"id": "1", "title": "before reset"})

    httpx_mock.add_callback(held)
    values: list[Any] = []
    async with AsyncController() as controller:
        async with anyio.create_task_group() as tasks:

            async def fetch() -> None:
                values.append(await controller.fetch(get_post, {"id": "1"}))

            tasks.start_soon(fetch)
            await arrived.wait()
            controller.reset()
            release.set()
        assert values == [Post(id="1", title="before reset")]
        assert controller.store.records == {}
        assert controller.store.results == {}


def test_a_fetch_in_flight_at_reset_does_not_write_back_threads(
    httpx_mock: HTTPXMock,
) -> None:
    arrived, release = threading.Event(), threading.Event()

    def held(request: httpx.Request) -> httpx.Response:
        arrived.set()
        release.wait(5)
        return httpx.Response(200, json={"id": "1", "title": "before reset"})

    httpx_mock.add_callback(held)
    with Controller() as controller, ThreadPoolExecutor(1) as pool:
        future = pool.submit(controller.fetch, get_post, {"id": "1"})
        assert arrived.wait(5)
        controller.reset()
        release.set()
        assert future.result(5) == Post(id="1", title="before reset")
        assert controller.store.records == {}
        assert controller.store.results == {}


def test_a_call_after_reset_does_not_join_a_stale_flight(httpx_mock: HTTPXMock) -> None:
    arrived, release = threading.Event(), threading.Event()
    titles = iter(["stale", "fresh"])

    def held(request: httpx.Request) -> httpx.Response:
        title = next(titles)
        if title == "stale":
            arrived.set()
            release.wait(5)
        return httpx.Response(200, json={"id": "1", "title": title})

    httpx_mock.add_callback(held, is_reusable=True)
    with Controller() as controller, ThreadPoolExecutor(1) as pool:
        stale = pool.submit(controller.fetch, get_post, {"id": "1"})
        assert arrived.wait(5)
        controller.reset()
        assert controller.fetch(get_post, {"id": "1"}).title == "fresh"
        release.set()
        assert stale.result(5).title == "stale"
        assert controller.get(get_post, {"id": "1"}).title == "fresh"
