"""What case 1's call is made of: ``python -m tests.benchmarks.breakdown``.

Times a fetch with each part of case 1's stack alone (no middleware, the
entity with FillPrimaryKey, AccessToken, CamelCaseKeys, the three other
simple middleware, all six) against bare ``client.get(url).json()`` on the
same MockTransport, rounds interleaved, medians. The differences from the
"no middleware" row are what each part costs; the performance page
quotes them. ``--instructions`` counts each part's CPU instructions per
call under callgrind instead (``tests.benchmarks.instructions``), which
the machine's load does not move. Not part of the test run.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import httpx

from restwire import Controller, Entity, RestEndpoint
from restwire.middlewares import (
    AccessToken,
    CamelCaseKeys,
    CookieCredentials,
    CsrfToken,
    FillPrimaryKey,
)

from .cases import SAME_REQUEST, mock_transport, six_middleware_endpoint


class SnakeItem(Entity):
    """Case 1's item as the wire names it (no casing middleware here)."""

    id: str = ""
    title: str = ""
    user_name: str = ""
    created_at: str = ""
    tags: list[str] = []  # noqa: RUF012
    body_text: str = ""
    carrots_used: int = 0


def _per_call(run: Callable[[], Any], number: int) -> float:
    started = time.perf_counter()
    for _ in range(number):
        run()
    return (time.perf_counter() - started) / number


#: The bare call each part is measured against.
BARE = "bare httpx get().json()"


def parts() -> dict[str, RestEndpoint[Any]]:
    """Case 1's parts, each alone on an endpoint of its own, then all six."""
    base = RestEndpoint(url_prefix="http://api.test", path="/item/:id")
    return {
        "no middleware, no schema": base,
        "entity (+ FillPrimaryKey)": base.extend(schema=SnakeItem).use(
            FillPrimaryKey("id")
        ),
        "AccessToken": base.use(AccessToken("token-value")),
        "CamelCaseKeys": base.use(CamelCaseKeys()),
        "CookieCredentials, CsrfToken, FillPrimaryKey": base.use(
            CookieCredentials(), CsrfToken(), FillPrimaryKey("id")
        ),
        "all six + entity (case 1)": six_middleware_endpoint("http://api.test"),
    }


def part_calls(index: int, count: int) -> None:
    """``count`` fetches of part ``index`` of :func:`parts` (a warm-up
    first), for ``python -m tests.benchmarks.instructions``."""
    endpoint = list(parts().values())[index]
    controller = Controller(transport=mock_transport())
    for _ in range(200 + count):
        controller.fetch(endpoint, {"id": "1"})


def counted() -> None:
    """Each part's CPU instructions per call (callgrind: the machine's load
    does not move them) against bare httpx sending case 1's request."""
    from .instructions import per_call

    bare = per_call("six-bare")
    floor = 0.0
    print(f"{'part':<48} {'per call':>10} {'vs bare':>8} {'adds':>8}")
    print(f"{BARE:<48} {bare / 1e3:>8.0f}k {1:>7.2f}x")
    for index, name in enumerate(parts()):
        each = per_call(f"part{index}")
        if index == 0:
            floor = each
        adds = "" if index == 0 else f"{(each - floor) / 1e3:+.0f}k"
        print(f"{name:<48} {each / 1e3:>8.0f}k {each / bare:>7.2f}x {adds:>8}")


def main(rounds: int = 11, number: int = 300) -> None:
    if sys.argv[1:] == ["--instructions"]:
        counted()
        return
    transport = mock_transport()
    bare = httpx.Client(transport=transport, headers=SAME_REQUEST)
    controller = Controller(transport=transport)
    endpoints = parts()
    runs: dict[str, Callable[[], Any]] = {
        BARE: lambda: bare.get("http://api.test/item/1").json()
    }
    for name, endpoint in endpoints.items():

        def call(endpoint: RestEndpoint[Any] = endpoint) -> Any:
            return controller.fetch(endpoint, {"id": "1"})

        runs[name] = call
    times: dict[str, list[float]] = {name: [] for name in runs}
    for run in runs.values():
        _per_call(run, 100)
    for _ in range(rounds):
        for name, run in runs.items():
            times[name].append(_per_call(run, number))
    medians = {name: statistics.median(each) for name, each in times.items()}
    bare_time = medians[BARE]
    floor = medians["no middleware, no schema"]
    print(f"{'part':<48} {'per call':>10} {'vs bare':>8} {'adds':>9}")
    for name, seconds in medians.items():
        adds = (
            ""
            if name.startswith(("bare", "no middleware"))
            else (f"{(seconds - floor) * 1e6:+.1f} us")
        )
        print(
            f"{name:<48} {seconds * 1e6:>7.1f} us {seconds / bare_time:>7.2f}x {adds:>9}"
        )


if __name__ == "__main__":
    main()
