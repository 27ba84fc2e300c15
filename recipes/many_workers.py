"""Many workers, one API: a shared rate limit and one token refresh.

A login hands out an access token; when it expires, the server answers
401. A real API also has rate limits. Three workers call the demo API at once.
Their ``RateLimit(4, per=1)`` keeps them under the server's 5 a second,
and ``RateLimit`` also reads what the server says (``Retry-After``, the
``RateLimit`` fields). Then the session expires; the three see 401
together, and one ``AccessToken(refresh=...)`` refreshes the token once
for all of them.

Here the workers are threads of one process, sharing one ``RateLimit`` and
one ``AccessToken``. To use it across processes (a service's workers, on
one machine or many), give both a Redis, ``pip install "restwire[redis]"``::

    RateLimit(4, per=1, redis="redis://127.0.0.1:6379/0")
    AccessToken(refresh=refresh, shared=SharedToken("redis://...", name="my-api"))

and run each worker in its own process; set ``RESTWIRE_REDIS_URL`` to run
this recipe's workers that way (a local Redis: ``apt-get install
redis-server``, or ``redis-server --port 6379``). A Redis it cannot reach is
one line naming its address; the tour skips the recipe, and ``python -m
recipes run many_workers`` exits non-zero. To use it against your
API, change ``base_url``, the paths and the rate.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from restwire import Controller, RestEndpoint, RestwireError
from restwire.middlewares import AccessToken, RateLimit, SharedToken

from .tour import Tour, check_redis

TITLE = "three workers under one rate limit, and one token refresh"

WORKERS = 3
CALLS = 4  # each worker's calls to /quota


def run(base_url: str, tour: Tour) -> Any:
    redis_url = os.environ.get("RESTWIRE_REDIS_URL")
    if redis_url:  # asked for: one line, not a warning per component, if gone
        check_redis(
            redis_url, "RESTWIRE_REDIS_URL", "to run the workers in this process"
        )
    refreshes = 0
    lock = threading.Lock()
    base = RestEndpoint(url_prefix=base_url)
    login = base.extend(path="/login", method="POST")

    def refresh() -> str:
        nonlocal refreshes
        with lock:
            refreshes += 1
        with tour.client() as client:
            return str(Controller(client).fetch(login, body={})["accessToken"])

    shared = SharedToken(redis_url, name="recipes:token") if redis_url else None
    auth = AccessToken(refresh=refresh, shared=shared)
    limit = RateLimit(4, per=1.0, redis=redis_url, name="recipes:rate")
    api = base.use(limit, auth)
    quota = api.extend(path="/quota")
    mine = api.extend(path="/my/:id")
    outcomes: list[str] = []
    barrier = threading.Barrier(WORKERS)

    def worker(number: int) -> None:
        with tour.client() as client:
            controller = Controller(client)
            barrier.wait()
            for call in range(CALLS):
                try:
                    controller.fetch(quota, {"worker": number, "call": call})
                    outcomes.append("served")
                except RestwireError as error:
                    outcomes.append(f"refused: {error}")
            barrier.wait()
            if number == 0:
                controller.fetch(base.extend(path="/sessions/expire", method="POST"))
            barrier.wait()
            controller.fetch(mine, {"id": number})  # 401, then the new token
            outcomes.append("signed in again")

    with tour.client() as client:
        auth.token = Controller(client).fetch(login, body={})["accessToken"]
    where = "Redis" if redis_url else "this process"
    tour.say(f"{WORKERS} workers, {CALLS} calls each, 4 a second shared in {where}")
    threads = [threading.Thread(target=worker, args=(n,)) for n in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    served = outcomes.count("served")
    tour.say(f"{served} of {WORKERS * CALLS} calls served, none refused by the server")
    tour.say(f"after the session expired: {refreshes} refresh for {WORKERS} workers")
    return {
        "served": served,
        "refused": [each for each in outcomes if each.startswith("refused")],
        "signed in again": outcomes.count("signed in again"),
        "refreshes": refreshes,
    }
