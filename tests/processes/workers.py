"""What each worker process does in ``test_many_processes.py``.

Each job is a plain function a process forked from the fork server
(``tests/forkserver.py``) runs: it builds its own controller, as a worker
of a real service would, waits at the barrier so the processes start
together, and puts what it saw on the queue. Half the
workers use ``Controller`` and half ``AsyncController``: the shared
middleware is one definition for both.
"""

from __future__ import annotations

import multiprocessing.synchronize
import time
import traceback
from collections.abc import Callable
from multiprocessing import Queue
from typing import Any

import anyio
import redis

from restwire import (
    AsyncController,
    Controller,
    HttpCache,
    NetworkError,
    RestEndpoint,
    RestwireError,
)
from restwire.middlewares import (
    AccessToken,
    OAuth2ClientCredentials,
    RateLimit,
    SharedToken,
)
from tests.oauth_server import CLIENT_ID, CLIENT_SECRET

__all__ = [
    "cached_together",
    "fail_refresh_together",
    "limited_together",
    "oauth2_together",
    "refresh_together",
    "run_worker",
]

Barrier = multiprocessing.synchronize.Barrier


def run_worker(
    job: Callable[..., Any], index: int, queue: Queue[Any], *args: Any
) -> None:
    """Run ``job`` under the driver this worker's index picks; put
    ``(index, result)`` or ``(index, "error: ...")`` on ``queue``."""
    try:
        result = job(index % 2 == 1, *args)
    except BaseException:
        result = "error: " + traceback.format_exc()
    queue.put((index, result))


def refresh_together(
    asynchronous: bool, origin: str, redis_url: str, barrier: Barrier
) -> Any:
    """Call ``/me`` with a stale token, all workers at once: each gets 401,
    and between them the token is refreshed once."""
    shared = SharedToken(redis_url, name="test-api")
    auth = AccessToken("stale", shared=shared)
    api = RestEndpoint(url_prefix=origin).use(auth)
    me = api.extend(path="/me")
    get_token = api.extend(path="/token", method="POST")

    if asynchronous:

        async def main() -> Any:
            async with AsyncController() as controller:

                async def refresh() -> str:
                    return str((await controller.fetch(get_token))["token"])

                auth.refresh = refresh
                barrier.wait()
                return await controller.fetch(me)

        return anyio.run(main)
    with Controller() as controller:
        auth.refresh = lambda: str(controller.fetch(get_token)["token"])
        barrier.wait()
        try:
            return controller.fetch(me)
        except RestwireError as error:
            return f"error: {error}"


#: The Redis counter of refreshes that ``fail_refresh_together`` calls.
REFRESHES = "test-refreshes"


def fail_refresh_together(
    asynchronous: bool, origin: str, redis_url: str, barrier: Barrier
) -> Any:
    """Call ``/me`` with a stale token, all workers at once: each gets 401,
    and the refresh fails (after a pause, so the others' 401s come while it
    runs). What the call raised: its status and its cause's type."""
    shared = SharedToken(redis_url, name="test-api")
    counter = redis.Redis.from_url(redis_url)
    me = RestEndpoint(url_prefix=origin, path="/me")

    def failed() -> RuntimeError:
        counter.incr(REFRESHES)
        return RuntimeError("refresh endpoint down")

    def outcome(error: NetworkError) -> list[Any]:
        return [error.status, type(error.__cause__).__name__]

    if asynchronous:

        async def refresh() -> str:
            error = failed()
            await anyio.sleep(0.5)
            raise error

        auth = AccessToken("stale", refresh=refresh, shared=shared)

        async def main() -> Any:
            async with AsyncController() as controller:
                barrier.wait()
                try:
                    return await controller.fetch(me.use(auth))
                except NetworkError as error:
                    return outcome(error)

        return anyio.run(main)

    def refresh_sync() -> str:
        error = failed()
        time.sleep(0.5)
        raise error

    auth = AccessToken("stale", refresh=refresh_sync, shared=shared)
    with Controller() as controller:
        barrier.wait()
        try:
            return controller.fetch(me.use(auth))
        except NetworkError as error:
            return outcome(error)


def limited_together(
    asynchronous: bool,
    origin: str,
    redis_url: str,
    rate: int,
    calls: int,
    barrier: Barrier,
) -> Any:
    """Make ``calls`` calls to ``/limited`` under a rate shared through
    Redis; how many completed, and the error of each that did not."""
    limit = RateLimit(rate, per=1.0, redis=redis_url, name="test-rate")
    endpoint = RestEndpoint(url_prefix=origin, path="/limited").use(limit)
    outcomes: list[str] = []

    if asynchronous:

        async def main() -> None:
            async with AsyncController() as controller:
                barrier.wait()
                async with anyio.create_task_group() as tasks:
                    for n in range(calls):
                        tasks.start_soon(one_async, controller, n)

        async def one_async(controller: AsyncController, n: int) -> None:
            try:
                # distinct params: identical concurrent reads would share
                # one request, and the server would see fewer
                await controller.fetch(endpoint, {"n": n})
                outcomes.append("ok")
            except RestwireError as error:
                outcomes.append(f"error: {error}")

        anyio.run(main)
    else:
        with Controller() as controller:
            barrier.wait()
            for n in range(calls):
                try:
                    controller.fetch(endpoint, {"n": n})
                    outcomes.append("ok")
                except RestwireError as error:
                    outcomes.append(f"error: {error}")
    return outcomes


#: The resources each worker reads, and how many rounds.
NAMES = ("x", "y", "z")
ROUNDS = 3


def cached_together(
    asynchronous: bool, origin: str, storage: str, where: str, barrier: Barrier
) -> Any:
    """Read each of ``NAMES`` (fresh for 1 s by HTTP, 0.3 s in the store)
    ``ROUNDS`` times, 0.7 s apart, through an HTTP cache on ``storage``
    (``"sqlite"`` at the path ``where``, ``"redis"`` at the URL ``where``)
    or none (``"none"``); the values read."""
    cache = None
    if storage == "sqlite":
        cache = HttpCache.sqlite(where)
    elif storage == "redis":
        cache = HttpCache.redis(where)
    endpoints = [
        RestEndpoint(
            url_prefix=origin, path=f"/resource/{name}", data_expiry_length=0.3
        )
        for name in NAMES
    ]
    params = {"max_age": 1}
    read: list[Any] = []

    if asynchronous:

        async def main() -> None:
            async with AsyncController(cache=cache) as controller:
                barrier.wait()
                for round_ in range(ROUNDS):
                    for endpoint in endpoints:
                        read.append((await controller.get(endpoint, params))["name"])
                    if round_ < ROUNDS - 1:
                        await anyio.sleep(0.7)

        anyio.run(main)
    else:
        with Controller(cache=cache) as controller:
            barrier.wait()
            for round_ in range(ROUNDS):
                for endpoint in endpoints:
                    read.append(controller.get(endpoint, params)["name"])
                if round_ < ROUNDS - 1:
                    time.sleep(0.7)
    return read


def oauth2_together(
    asynchronous: bool, origin: str, redis_url: str, barrier: Barrier
) -> Any:
    """Call the token server's ``/me`` through an OAuth2 client-credentials
    grant whose token is shared in Redis, all workers at once, starting
    with no token of their own: what ``/me`` answered."""
    shared = SharedToken(redis_url, name="oauth2-test")
    auth = OAuth2ClientCredentials(
        f"{origin}/token", CLIENT_ID, CLIENT_SECRET, shared=shared
    )
    me = RestEndpoint(url_prefix=origin, path="/me").use(auth)
    if asynchronous:

        async def main() -> Any:
            async with AsyncController() as controller:
                barrier.wait()
                return await controller.fetch(me)

        return anyio.run(main)
    with Controller() as controller:
        barrier.wait()
        return controller.fetch(me)
