"""Load: many calls, pollers coming and going, a reset in the middle.

Slow, so not in the default run: ``pytest -m slow``. The server runs in its
own process, so the memory measured is the client's alone.
"""

from __future__ import annotations

import asyncio
import gc
import random
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from restwire import AsyncController, Controller, RestEndpoint, RestwireError
from tests.benchmarks.server import BenchServer

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server() -> Iterator[BenchServer]:
    with BenchServer() as running:
        yield running


def rss() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def test_twenty_thousand_calls_from_two_hundred_tasks(server: BenchServer) -> None:
    total, concurrency, batch = 20_000, 200, 5_000
    items = RestEndpoint(
        url_prefix=server.origin, path="/item/:id", data_expiry_length=5
    )
    outcomes: dict[str, int] = {"value": 0, "error": 0}
    memory: list[int] = []

    async def main() -> None:
        limits = httpx.Limits(max_connections=concurrency)
        async with (
            httpx.AsyncClient(limits=limits, timeout=30) as client,
            AsyncController(client) as controller,
        ):
            counter = iter(range(total))
            subscriptions: list[Any] = []
            polled = 0

            def on_poll(value: Any) -> None:
                nonlocal polled
                polled += 1

            async def worker() -> None:
                for index in counter:
                    try:
                        value = await controller.fetch(items, {"id": index % 500})
                    except RestwireError:
                        outcomes["error"] += 1
                    else:
                        assert value["title"].startswith(f"item {index % 500} ")
                        outcomes["value"] += 1
                    done = outcomes["value"] + outcomes["error"]
                    if index % 97 == 0:  # pollers come and go
                        subscriptions.append(
                            controller.subscribe(
                                items, {"id": index % 7}, on_poll, frequency=0.05
                            )
                        )
                        if len(subscriptions) > 5:
                            subscriptions.pop(
                                random.randrange(len(subscriptions))
                            ).cancel()
                    if index == total // 2:
                        controller.reset()
                    if done % batch == 0:
                        gc.collect()
                        memory.append(rss())

            await asyncio.gather(*(worker() for _ in range(concurrency)))
            for subscription in subscriptions:
                subscription.cancel()
            assert polled > 0
        leftover = [
            task for task in asyncio.all_tasks() if task is not asyncio.current_task()
        ]
        assert leftover == []

    asyncio.run(main())
    assert outcomes["value"] + outcomes["error"] == total  # no call lost
    assert outcomes["error"] == 0
    assert len(memory) >= 4
    growth = memory[-1] - memory[1]
    assert growth < 8 * 1024 * 1024, (
        f"grew {growth / 1e6:.1f} MB between 5,000 and 20,000"
    )


def test_threads_on_the_sync_controller(server: BenchServer) -> None:
    total = 3_000
    items = RestEndpoint(url_prefix=server.origin, path="/item/:id")
    seen: list[Any] = []
    lock = threading.Lock()
    before = threading.active_count()
    limits = httpx.Limits(max_connections=20)
    with (
        httpx.Client(timeout=30, limits=limits) as client,
        Controller(client) as controller,
    ):
        subscription = controller.subscribe(
            items, {"id": 1}, lambda value: None, frequency=0.05
        )

        def call(index: int) -> None:
            value = controller.get(items, {"id": index % 300})
            if index == total // 2:
                controller.reset()
            with lock:
                seen.append(value)

        with ThreadPoolExecutor(20) as pool:
            list(pool.map(call, range(total)))
        subscription.cancel()
    assert len(seen) == total
    assert threading.active_count() == before  # no poller thread left
