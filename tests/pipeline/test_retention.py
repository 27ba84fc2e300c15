"""``_store.retention``: the store's results expire in time order and stay within
a byte bound, least recently used first; sizes are close to what
``tracemalloc`` sees; what a caller holds, and records a kept result
reaches, are never lost."""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import httpx
import pytest

from restwire import Controller, Entity, RestEndpoint
from restwire._store.retention import Retention, Sizes, size_of
from tests.conftest import FakeClock

API = "http://api.test"
BODY = json.dumps(
    [
        {"id": str(n), "name": f"record {n}", "score": n, "tags": ["a"]}
        for n in range(16)
    ]
).encode()


class Record(Entity):
    id: str = ""
    name: str = ""
    score: int = 0
    tags: list[str] = []  # noqa: RUF012


def answering(body: bytes = BODY) -> httpx.MockTransport:
    return httpx.MockTransport(
        lambda request: httpx.Response(
            200, content=body, headers={"content-type": "application/json"}
        )
    )


def measured(make: Any) -> tuple[Any, int]:
    """What ``make()`` returns, and the bytes it allocated and kept."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        value = make()
        return value, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "make",
    [
        # (each big enough that CPython's free lists, which tracemalloc does
        # not see, do not hide most of it)
        lambda: [json.loads(BODY) for _ in range(40)],  # a large list: sampled
        lambda: [Record(**item) for item in json.loads(BODY) * 20],
        lambda: {"text": "x" * 10_000, "numbers": list(range(1000))},
    ],
    ids=["json", "records", "mixed"],
)
def test_sizes_are_close_to_what_tracemalloc_sees(make: Any) -> None:
    value, allocated = measured(make)
    estimate = size_of(value)
    assert 0.8 * allocated <= estimate <= 2.0 * allocated, (estimate, allocated)


def body_of(count: int) -> bytes:
    """A JSON list of ``count`` records, as a server sends it."""
    return json.dumps(json.loads(BODY)[:1] * count).encode()


def test_sizes_are_measured_first_then_estimated_from_the_body() -> None:
    """The first values of a kind are measured; later ones are their
    body's length times the measured bytes per body byte, within a factor
    of what measuring them would say; a value with no body is measured."""
    sizes = Sizes()
    lengths = [3, 40, 7, 25, 1, 60, 12, 33] + [5, 64, 2, 48, 17] * 8
    for index, count in enumerate(lengths):
        body = body_of(count)
        value = json.loads(body)
        size = sizes.size("kind", value, len(body))
        if index < 8:
            assert size == size_of(value)
        else:
            assert 0.7 * size_of(value) <= size <= 1.6 * size_of(value), count
    value = json.loads(body_of(9))
    assert sizes.size("kind", value, None) == size_of(value)


def test_sizes_of_a_new_kind_of_value_are_measured_not_guessed() -> None:
    """An endpoint whose values hold far more per body byte than another's
    (records into many small objects vs one long string) is measured for
    itself: each kind has its own ratio."""
    sizes = Sizes()
    text = json.dumps({"text": "x" * 4000}).encode()
    for _ in range(40):
        sizes.size("text", json.loads(text), len(text))
    many = body_of(50)
    value = json.loads(many)
    for _ in range(20):
        sizes.size("records", value, len(many))
    assert sizes.size("records", value, len(many)) >= 0.7 * size_of(value)


@pytest.mark.parametrize("schema", [None, [Record]], ids=["json", "entities"])
def test_urls_whose_bodies_vary_in_length_stay_within_the_bound(schema: Any) -> None:
    """Sizes estimated from each body's length: a bound over results of 1
    to 64 records each holds as it does for results all alike (a bound
    large next to the controller's other caches, so that sizes off by half
    would show)."""
    bound = 2 << 20
    bodies = [body_of(1 + (n * 37) % 64) for n in range(64)]

    def answer(request: httpx.Request) -> httpx.Response:
        n = int(request.url.path.rsplit("/", 1)[1])
        return httpx.Response(
            200, content=bodies[n % 64], headers={"content-type": "application/json"}
        )

    endpoint = RestEndpoint(url_prefix=API, path="/item/:n", schema=schema)
    transport = httpx.MockTransport(answer)
    with Controller(transport=transport, max_store_bytes=bound) as controller:
        for n in range(-300, 0):
            controller.fetch(endpoint, {"n": -n})

        def many() -> None:
            for n in range(800):
                controller.fetch(endpoint, {"n": n})

        _, grown = measured(many)
        assert controller.store.size_bytes <= bound
        assert grown <= 1.1 * bound + (1 << 20)
        assert 0 < len(controller.store) < 800


@pytest.mark.parametrize("schema", [None, [Record]], ids=["json", "entities"])
def test_a_new_url_per_call_stays_within_the_bound(schema: Any) -> None:
    """A new URL per call, as a service fanning out does (800 here; the
    load benchmark runs 10,000 under 16 MiB): past the bound
    the oldest results go, and the memory the whole controller grew by
    stays within the bound (+10%)."""
    bound = 256 << 10
    endpoint = RestEndpoint(url_prefix=API, path="/item/:n", schema=schema)
    with Controller(transport=answering(), max_store_bytes=bound) as controller:
        for n in range(-300, 0):  # the controller's own caches warmed
            controller.fetch(endpoint, {"n": n})

        def many() -> None:
            for n in range(800):
                controller.fetch(endpoint, {"n": n})

        _, grown = measured(many)
        assert controller.store.size_bytes <= bound
        assert grown <= 1.1 * bound + (1 << 20)  # (+ its URL caches, bounded)
        assert 0 < len(controller.store) < 800
        # the newest are kept: a get of the last URL sends nothing
        assert controller.get(endpoint, {"n": 799}) is not None


def test_a_result_read_lately_outlives_older_unread_ones() -> None:
    """Second chance: the result read since it was kept stays; the oldest
    unread goes first."""
    retention = Retention(max_bytes=3_000)
    results = [object() for _ in range(4)]
    for index in range(3):
        retention.kept(("me", f"k{index}", None), results[index], 100.0, 1_000)
    retention.touch(results[0])
    retention.kept(("me", "k3", None), results[3], 100.0, 1_000)
    dropped = list(retention.over())
    assert dropped == [("me", "k1", None)]
    assert retention.bytes == 3_000


def test_expired_results_go_before_the_bound_is_consulted() -> None:
    retention = Retention(max_bytes=10_000)
    first, second = object(), object()
    retention.kept(("me", "old", None), first, 5.0, 1_000)
    retention.kept(("me", "new", None), second, 50.0, 1_000)
    assert list(retention.expired(10.0)) == [("me", "old", None)]
    # a slot kept again since it was pushed is not expired by its old entry
    retention.kept(("me", "new", None), object(), 500.0, 1_000)
    assert list(retention.expired(100.0)) == []


def test_what_a_caller_holds_and_records_a_kept_result_reaches_stay(
    clock: FakeClock,
) -> None:
    """Evicting a result takes nothing from a value already returned, nor
    a record another kept result still reaches."""
    bound = 200_000
    listing = RestEndpoint(url_prefix=API, path="/records/", schema=[Record])
    item = RestEndpoint(url_prefix=API, path="/other/:n", schema=[Record])
    with Controller(
        transport=answering(), max_store_bytes=bound, clock=clock
    ) as controller:
        held = controller.fetch(listing)
        for n in range(400):  # other URLs, bringing the same records
            controller.fetch(item, {"n": n})
            controller.get(listing)  # read: kept on a second chance
        assert controller.store.size_bytes <= bound
        assert [record.id for record in held] == [str(n) for n in range(16)]
        assert controller.get(listing) == held  # still stored: no request needed
        assert {
            ("Record", str(n)) for n in range(16)
        } <= controller.store.records.keys()


@pytest.mark.parametrize("bad", [-1, "64MB", 1.5, True])
def test_a_bound_that_is_no_number_of_bytes_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_store_bytes"):
        Controller(max_store_bytes=bad)


def test_no_bound_keeps_everything_fresh() -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/item/:n")
    with Controller(transport=answering(), max_store_bytes=None) as controller:
        for n in range(500):
            controller.fetch(endpoint, {"n": n})
        assert len(controller.store) == 500
        assert controller.store.max_bytes is None
