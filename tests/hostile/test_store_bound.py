"""The store's bound counts what is held, for any shape of result: a
server (hostile, or only odd) that shapes its answers against a sampler, a
ratio or a reclaim lag cannot make a controller hold more than
``max_store_bytes`` (+10%), and ``size_bytes`` says what is held. What the
store holds is measured with tracemalloc, as the memory ``reset()`` gives
back; each shape under both drivers.

Before, a list shaped for the size sampler held 24.8 MiB under a bound of
4 MiB while ``size_bytes`` said 0.45 MB: the sampler read 4 items of a long
list, most results were sized from their body's length at a ratio the
first ones had, a batch's records were sized from 2 of them, records
replaced in place or kept by another result were not counted again, and
records no result reached stayed until as much was dropped as was held.
"""

from __future__ import annotations

import gc
import json
import tracemalloc
from collections.abc import Callable
from typing import Any

import anyio
import httpx
import pytest

from restwire import AsyncController, Controller, Entity, RestEndpoint

BOUND = 2 << 20
API = "http://api.test"
BIG = "x" * 8_000


class Row(Entity):
    id: str = ""
    name: str = ""


class Wide(Entity):
    """Many fields whose default is a new list or dict for each record."""

    id: str = ""
    a: list[int] = []  # noqa: RUF012
    b: list[int] = []  # noqa: RUF012
    c: list[int] = []  # noqa: RUF012
    d: dict[str, int] = {}  # noqa: RUF012
    e: dict[str, int] = {}  # noqa: RUF012


def _sampled(count: int) -> set[int]:
    """Where the old sampler looked in a list of ``count`` items."""
    step = count / 4
    return {int(index * step) for index in range(4)}


def _ratio_trained(n: int) -> Any:
    """Small-per-byte answers wherever the old sizes were measured (the
    first 8 of an endpoint, then one in 16), many small objects between."""
    if n < 8 or n % 16 == 0:
        return {"text": "y" * 30_000}
    return [{} for _ in range(4_000)]  # (3 body bytes each: 72 held)


#: name -> (the body of call ``n``, the endpoint's schema)
SHAPES: dict[str, tuple[Callable[[int], Any], Any]] = {
    "list-against-the-sampler": (
        lambda n: [0 if i in _sampled(32) else BIG + str(n) for i in range(32)],
        None,
    ),
    "object-against-the-sampler": (
        lambda n: {f"k{i}": 0 if i in _sampled(32) else BIG for i in range(32)},
        None,
    ),
    "nested-against-the-sampler": (
        lambda n: [
            [0 if i in _sampled(8) else BIG for i in range(8)] if j % 2 else 0
            for j in range(8)
        ],
        None,
    ),
    "against-the-body-ratio": (_ratio_trained, None),
    "records-small-first": (
        lambda n: [{"id": f"{n}-{i}", "name": "" if i < 2 else BIG} for i in range(40)],
        [Row],
    ),
    "records-against-the-sampler": (
        lambda n: [
            {"id": f"{n}-{i}", "name": "" if i in _sampled(40) else BIG}
            for i in range(40)
        ],
        [Row],
    ),
    "records-in-their-extra-keys": (
        lambda n: [{"id": f"{n}-{i}", "blob": BIG} for i in range(40)],
        [Row],
    ),
    "records-of-wide-defaults": (
        lambda n: [{"id": f"{n}-{i}"} for i in range(600)],
        [Wide],
    ),
    "records-plainly-big": (
        lambda n: [{"id": f"{n}-{i}", "name": "n" * 2_000} for i in range(40)],
        [Row],
    ),
}


def served(make: Callable[[int], Any]) -> Callable[[httpx.Request], httpx.Response]:
    def answer(request: httpx.Request) -> httpx.Response:
        n = int(request.url.path.rsplit("/", 1)[1])
        body = json.dumps(make(n)).encode()
        return httpx.Response(
            200, content=body, headers={"content-type": "application/json"}
        )

    return answer


def held_by_the_store(
    mode: str, handler: Any, calls: Callable[..., Any], bound: int = BOUND
) -> tuple[int, int]:
    """Run ``calls(fetch, get)`` on a controller of ``mode`` bounded by
    ``bound``; what its store then held (the memory ``reset()`` gives
    back, as tracemalloc sees it) and what ``size_bytes`` said."""
    transport = httpx.MockTransport(handler)
    tracemalloc.start()
    try:
        if mode == "sync":
            client = httpx.Client(transport=transport)
            with Controller(client, max_store_bytes=bound) as controller:
                calls(controller.fetch, controller.get)
                return _held(controller)

        async def run() -> tuple[int, int]:
            client = httpx.AsyncClient(transport=transport)
            async with AsyncController(client, max_store_bytes=bound) as controller:
                pending: list[Any] = []
                calls(
                    lambda *args: pending.append(("fetch", args)),
                    lambda *args: pending.append(("get", args)),
                )
                for method, args in pending:
                    await getattr(controller, method)(*args)
                return _held(controller)

        return anyio.run(run)
    finally:
        tracemalloc.stop()


def _held(controller: Any) -> tuple[int, int]:
    gc.collect()
    counted = controller.store.size_bytes
    assert len(controller.store) > 0  # (it keeps something: a bound, not a void)
    before = tracemalloc.get_traced_memory()[0]
    controller.store.reset()
    gc.collect()
    return before - tracemalloc.get_traced_memory()[0], counted


def within_the_bound(held: int, counted: int) -> None:
    mib = 1 << 20
    assert held <= 1.1 * BOUND, f"held {held / mib:.1f} MiB under {BOUND / mib} MiB"
    assert counted <= BOUND
    # size_bytes says what is held (erring large, never small)
    assert held <= 1.1 * counted, (held, counted)


def run_shape(
    shape: str, mode: str, bound: int = BOUND, count: int = 40
) -> tuple[int, int]:
    """``count`` calls of the shape ``shape`` (a new URL each) on a store
    bounded by ``bound``: what it held, and what it said it held."""
    make, schema = SHAPES[shape]
    endpoint = RestEndpoint(url_prefix=API, path="/item/:n", schema=schema)

    def calls(fetch: Any, get: Any) -> None:
        for n in range(count):
            fetch(endpoint, {"n": n})

    return held_by_the_store(mode, served(make), calls, bound)


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_no_shape_of_result_holds_more_than_the_bound(shape: str, mode: str) -> None:
    within_the_bound(*run_shape(shape, mode))


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_records_grown_by_one_result_and_kept_by_another_are_counted(
    mode: str,
) -> None:
    """A listing of small records, read again and again (so kept), and each
    record fetched on its own with a big field: the item results go, the
    records they grew stay, reached by the listing. (They were counted with
    the item results, and no longer once those went: 7.7x the bound.)"""
    listing = RestEndpoint(url_prefix=API, path="/items/:page", schema=[Row])
    item = RestEndpoint(url_prefix=API, path="/item/:page/:id", schema=Row)

    def answer(request: httpx.Request) -> httpx.Response:
        parts = request.url.path.strip("/").split("/")
        if parts[0] == "items":
            body: Any = [{"id": f"{parts[1]}-{i}", "name": ""} for i in range(50)]
        else:
            body = {"id": f"{parts[1]}-{parts[2]}", "name": BIG}
        return httpx.Response(200, json=body)

    def calls(fetch: Any, get: Any) -> None:
        for page in range(12):
            fetch(listing, {"page": page})
            for i in range(50):
                fetch(item, {"page": page, "id": i})
                for earlier in range(page + 1):
                    get(listing, {"page": earlier})

    within_the_bound(*held_by_the_store(mode, answer, calls))


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_records_replaced_bigger_in_place_are_counted(mode: str) -> None:
    """The same records read again at another URL, bigger: what they grew
    by is counted (it was not: they were not new)."""
    small = RestEndpoint(url_prefix=API, path="/small/:n", schema=[Row])
    grown = RestEndpoint(url_prefix=API, path="/grown/:n", schema=[Row])

    def answer(request: httpx.Request) -> httpx.Response:
        kind, n = request.url.path.strip("/").split("/")
        name = "" if kind == "small" else BIG
        return httpx.Response(
            200, json=[{"id": f"{n}-{i}", "name": name} for i in range(50)]
        )

    def calls(fetch: Any, get: Any) -> None:
        for n in range(20):
            fetch(small, {"n": n})
            fetch(grown, {"n": n})
            get(small, {"n": n})

    within_the_bound(*held_by_the_store(mode, answer, calls))
