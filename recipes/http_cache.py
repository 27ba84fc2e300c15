"""HTTP caching: an unchanged resource costs a 304, not a body and a parse.

``data_expiry_length`` is how long fetched data stays valid. When it runs
out, ``get`` fetches again; with ``HttpCache`` under
the controller, that fetch goes through an RFC 9111 cache (hishel's) which
answers from its entry while the server's ``Cache-Control`` says it is
fresh, and otherwise asks with ``If-None-Match``: a 304 costs no body, and
restwire, seeing the very body its stored value came from, keeps the value
instead of parsing it again.

To use it against your API: ``pip install "restwire[cache]"``, change
``base_url`` and the path, and keep the cache file where your processes
share it (every process of the service on one machine: one SQLite file; on
several machines: ``HttpCache.redis("redis://host:6379/0")``, with
``pip install "restwire[cache,redis]"``). A response is shared only between
calls that send the same credentials.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from restwire import Controller, HttpCache, RestEndpoint

from .tour import Tour

TITLE = "an HTTP cache under the store: 304s instead of bodies"
#: What this recipe needs beyond restwire itself: module -> the extra that brings it.
NEEDS = {"hishel": "cache"}


def how_answered(response: Any) -> str:
    """What the cache did for ``response`` (an ``httpx.Response``, or
    httpx2's for a controller on an httpx2 client), in words."""
    status = response.extensions.get("caching") or {}
    if status.get("revalidated"):
        return "the server said 304 Not Modified; the cached body was used"
    if status.get("from_cache"):
        return "answered from the cache, nothing sent"
    return f"{response.status_code} with its body, now cached"


def run(base_url: str, tour: Tour) -> Any:
    rates = RestEndpoint(
        url_prefix=base_url, path="/rates/:base", data_expiry_length=0.2
    )
    answers = []
    with tempfile.TemporaryDirectory() as folder:
        cache = HttpCache.sqlite(Path(folder) / "api-cache.db")
        with tour.client() as client:
            controller = Controller(client, cache=cache)
            first = controller.get(rates, {"base": "EUR"})
            tour.say(f"get: {first['rates']}")
            # past the store's expiry (0.2 s), not max-age (2 s: an age counts
            # from the response's Date, in whole seconds); then past max-age
            for pause in (0.3, 2.0):
                time.sleep(pause)
                response = controller.fetch_response(rates, {"base": "EUR"})
                answers.append(how_answered(response))
                tour.say(f"after {pause} s, fetch_response: {answers[-1]}")
            again = controller.get(rates, {"base": "EUR"})
            tour.say(f"get again: the same value object: {again is first}")
    return {"answers": answers, "same value": again is first}
