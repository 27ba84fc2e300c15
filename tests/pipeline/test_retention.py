"""``_store.retention``: the store's results expire in time order and stay within
a byte bound, least recently used first; sizes are close to what
``tracemalloc`` sees; what a caller holds, and records a kept result
reaches, are never lost."""

from __future__ import annotations

import dataclasses
import json
import sys
import tracemalloc
from typing import Any

import httpx
import pydantic
import pytest

from restwire import Controller, Entity, RestEndpoint
from restwire._store import retention
from restwire._store.entity import _force_setattr
from restwire._store.retention import ENTRY, Retention, records_size, size_of
from restwire._store.schemas import Batch, normalize
from tests.conftest import FakeClock
from tests.pipeline.entities import Pretender

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
        # (each from a parse of its own, as a store's records are: text
        # shared between records is counted in each)
        lambda: [Record(**item) for _ in range(20) for item in json.loads(BODY)],
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


def test_records_are_counted_out_as_they_were_counted_in() -> None:
    """A record's bytes are its own, whichever records it is counted with:
    what a batch counts in is what its records count out one by one (and
    close to what tracemalloc sees them take, their places in the store
    aside)."""
    data = json.loads(BODY) * 20
    rows = [
        Record.from_data({**row, "id": f"{n}", "extra": "e" * n})
        for n, row in enumerate(data)
    ]
    together = records_size(rows)
    assert together == sum(records_size([row]) for row in rows)
    assert together == records_size(rows[:7]) + records_size(rows[7:])
    held, allocated = measured(
        lambda: [
            Record.from_data({**json.loads(json.dumps(row)), "extra": "e" * n})
            for n, row in enumerate(data)
        ]
    )
    own = together - ENTRY * len(rows)
    assert 0.9 * allocated <= own <= 1.5 * allocated, (own, allocated)
    assert len(held) == len(rows)


@pytest.mark.parametrize("long", [False, True])
@pytest.mark.parametrize("wide_at", [None, 0, 350, 699])
@pytest.mark.parametrize("wide", ["\xe9t\xe9", "\u65e5\u672c", "\U0001f600", "\ud800"])
def test_a_column_of_texts_counts_as_each_text_alone(
    wide_at: int | None, wide: str, long: bool
) -> None:
    """Short texts are asked at once whether all are ASCII, long ones
    each (no copy of them made): either way the sum is each text's own
    size, wherever a wider one sits (or none)."""
    texts = [f"id-{n}" * (n % 5) + ("x" * 2_000 if long else "") for n in range(700)]
    if wide_at is not None:
        texts[wide_at] = wide + texts[wide_at]
    each = sum(map(retention.text_size, texts))
    assert retention.column_size(texts) == each
    fresh = "".join(["a", "b"])  # (made here: no UTF-8 copy attached)
    assert retention.text_size(fresh) == sys.getsizeof(fresh)


def test_a_value_is_counted_whole_however_it_is_shaped() -> None:
    """Every item of a long list is counted, not a sample of them: big
    items where a sampler does not look count all the same."""
    small, big = 0, "x" * 20_000
    shaped = [small if n % 50 == 0 else big + str(n) for n in range(400)]
    value, allocated = measured(lambda: json.loads(json.dumps(shaped)))
    assert 0.95 * allocated <= size_of(value) <= 1.2 * allocated


def by_levels(value: Any) -> int:
    """``size_of``'s count the way it counts a large value: level by level."""
    total = 0
    seen: set[int] = set()
    keys_met: set[int] = set()
    level = [value]
    while level:
        size, level = retention._level(level, seen, keys_met)
        total += size
    return total


@dataclasses.dataclass
class Point:
    x: Any
    y: Any


class Model(pydantic.BaseModel):
    name: str
    tags: list[str]


def small_values() -> list[Any]:
    """Values of every shape a store may keep, each of a few objects."""
    shared_key, shared_list = "shared", ["a", "é" * 5]
    looping: list[Any] = [1, "x"]
    looping.append(looping)
    return [
        json.loads(json.dumps({"id": "1", "tags": ["a", "b"], "n": 10**30})),
        [{shared_key: 1}, {shared_key: 2}, shared_list, shared_list],
        looping,
        {("a", "b"): {"k": None}, frozenset({"x"}): (True, 1.5, b"raw")},
        [Record(id="1", name="é" * 3, tags=["t"]), Point(x=[1], y={"z": "w"})],
        Model(name="n", tags=["a"]),
        {"nested": {"deeper": {"deepest": ["x" * 100]}}},
        [],
        "text",
        None,
    ]


@pytest.mark.parametrize(
    "value", small_values(), ids=lambda value: type(value).__name__
)
def test_a_small_value_walked_object_by_object_counts_as_by_levels(value: Any) -> None:
    """A small value is counted one object at a time (fewer steps than the
    levels' C loops for a few objects); the count is the levels' count,
    whatever the value holds: shared and self-holding containers, keys that
    are containers, records, models."""
    assert retention._small_size(value) == by_levels(value)
    assert size_of(value) == by_levels(value)


def each_reference_by_levels(level: list[Any], depth: int) -> int:
    """``records_size``'s count of ``level`` (every reference counted, no
    object remembered, ``depth`` levels down) the way it counts many
    objects: level by level."""
    total = 0
    while level and depth > 0:
        depth -= 1
        size, level = retention._level(level, None)
        total += size
    return total


def reached(level: list[Any], depth: int) -> int:
    """How many references a walk of ``level`` meets, ``depth`` levels down."""
    count = 0
    while level and depth > 0:
        depth -= 1
        count += len(level)
        level = retention._level(level, None)[1]
    return count


@pytest.mark.parametrize("depth", [1, 2, 3, 64])
@pytest.mark.parametrize(
    "value", small_values(), ids=lambda value: type(value).__name__
)
def test_a_few_objects_walked_one_at_a_time_count_as_by_levels(
    value: Any, depth: int
) -> None:
    """One record's fields and extra keys are walked one object at a time
    (a third of the time of the levels' C loops for a few objects); the
    count is the levels' count, every reference counted (a list held twice
    counts twice, one that holds itself until the depth runs out), down to
    the same depth; past the few objects it walks, it gives way."""
    few = retention._few_walked([value, value], depth)
    if few is None:  # (a list that holds itself, walked 64 levels down)
        assert reached([value, value], depth) > retention._SMALL
    else:
        assert few == each_reference_by_levels([value, value], depth)
    many = [value] * (retention._SMALL + 1)
    assert retention._few_walked(many, depth) is None
    for level in ([value, value], many):
        counted = each_reference_by_levels(level, retention._RECORD_DEPTH)
        assert retention._mixed_walked(level) == counted


def test_one_record_counts_as_it_does_among_others() -> None:
    """A record alone (a fetch of one item: its fields walked one object at
    a time) counts what it counts among a list's records (a column at a
    time), with a list field, extra keys, or neither."""
    rows = [
        Record.from_data({"id": "1", "name": "n", "score": 1, "tags": ["a", "é"]}),
        Record.from_data({"id": "2", "name": "n", "score": 2, "tags": []}),
        Record.from_data({"id": "3", "tags": ["x"] * 3, "extra": {"k": [1, 2.5]}}),
        Record.from_data({"id": "4", "name": "\U0001f600", "score": 10**40}),
    ]
    assert rows[2].extra_fields == {"extra": {"k": [1, 2.5]}}
    for row in rows:
        assert records_size([row]) * 9 == records_size([row] * 9)
        assert records_size([row]) * 2 == records_size([row, row])
    assert records_size(rows) == sum(records_size([row]) for row in rows)


def test_a_list_a_created_record_joined_is_counted_grown_and_keeps_its_read() -> None:
    """A create joins a kept list: the list kept is a new result, of its
    new size, in the old one's place, read if the old one was; when it
    goes, nothing of it is left behind in what was read."""
    from restwire._store.schemas import Batch, plan_of
    from restwire._store.store import Result, Store

    class Row(Entity):
        id: str = ""

    store = Store(max_bytes=None)
    plan = plan_of([Row])
    batch = Batch()
    value = plan.normalize([{"id": "1"}], batch, {})
    result = Result(plan, value, 0.0, 1e9, route="rows")
    store.commit("me", batch, "GET /rows", None, result, 0)
    slot = ("me", "GET /rows", None)
    before = store.retention.held(slot)
    assert store.result("me", "GET /rows", None) is result  # read: a second chance
    one = Batch()
    plan_of(Row).normalize({"id": "2"}, one, {})
    store.commit("me", one, None, None, None, store.generation)
    joined_in = store.add_to_lists(
        "me", "rows", ("Row", "2"), lambda params: True, False, store.generation
    )
    assert joined_in == 1
    joined = store.partitions["me"].results["GET /rows"][None]
    assert joined.value == [("Row", "1"), ("Row", "2")]
    assert store.retention.held(slot) > before  # (one reference more)
    assert store.retention._touched == {id(joined)}
    total = sum(
        each.bytes + each.record_bytes + each.table_bytes
        for each in store.partitions.values()
    )
    assert store.size_bytes == total
    store.invalidate("GET /rows")
    assert store.retention._touched == set()


def test_an_object_met_again_a_level_below_is_counted_once() -> None:
    """A value large enough to be walked by levels that reaches one object
    (a model instance, here a dataclass) a second time, a level below: that
    level's group of its type is then empty, and counts nothing."""

    @dataclasses.dataclass
    class Point:
        x: int = 0

    shared = Point(1)
    value = {"a": shared, "b": [shared], "rest": list(range(100))}
    once = {"a": shared, "b": [], "rest": list(range(100))}
    assert size_of(value) == size_of(once) + sys.getsizeof([shared]) - sys.getsizeof([])


def test_a_large_value_is_counted_by_levels_and_a_key_that_holds_is_counted() -> None:
    large = [{"id": str(n), ("pair", n): ["x" * n]} for n in range(100)]
    assert retention._small_size(large) is None  # past the walk's bound
    assert size_of(large) == by_levels(large)
    assert size_of(large) > sum(sys.getsizeof(("pair", n)) for n in range(100))
    key = ("a" * 500, "b" * 500)
    assert size_of({key: 1}) >= sys.getsizeof(key) + 1000


@pytest.mark.parametrize("schema", [None, [Record]], ids=["json", "entities"])
def test_urls_whose_bodies_vary_in_length_stay_within_the_bound(schema: Any) -> None:
    """A bound over results of 1 to 64 records each holds as it does for
    results all alike (a bound large next to the controller's other
    caches, so that sizes off by half would show)."""
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
    retention.touch_id(id(results[0]))
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


def test_a_result_renewed_again_and_again_leaves_no_pile_of_expiry_entries() -> None:
    """Each keep pushes an expiry entry; those of results kept again since
    are dropped as they pile up, whether or not anything expires, so the
    entries stay within twice the slots (and a little)."""
    retention = Retention(max_bytes=None)
    for number in range(10_000):
        retention.kept(("me", f"k{number % 3}", None), object(), 1e9 + number, 100)
        assert len(retention._expiry) <= 2 * len(retention) + 1024 + 1
    assert retention.expired(0.0) == []
    assert sorted(retention.expired(2e9)) == [("me", f"k{n}", None) for n in range(3)]
    assert not retention.past_bound()


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


def test_expiry_entries_of_dropped_results_do_not_outlive_them() -> None:
    """Results dropped (forgotten, invalidated) with none kept since leave
    no pile of expiry entries holding their slots."""
    retention = Retention(max_bytes=None)
    for number in range(5_000):
        retention.kept(("me", f"k{number}", None), object(), 1e9, 100)
    for number in range(5_000):
        retention.dropped(("me", f"k{number}", None))
    assert len(retention) == 0
    assert len(retention._expiry) <= 1024 + 1


class Loose(Entity):
    id: str = ""
    value: Any = None


def test_values_are_grouped_by_their_very_class() -> None:
    """A class that says it equals ``int`` is not counted as one."""
    rows = [Loose(id=str(n), value=n * 1000) for n in range(20)]
    rows[7] = Loose(id="7", value=Pretender())
    assert records_size(rows) == sum(records_size([row]) for row in rows)
    assert size_of([row.value for row in rows]) > 0


# -- extra keys of records stored again ------------------------------------------------


class Fewer(Entity):
    """Declares fewer fields than its data holds: the rest are extra keys."""

    id: str = ""


def fewer_records(extras: list[dict[str, Any]]) -> list[Any]:
    """Records of ``Fewer``, each keeping one item of ``extras``, made as a
    list is (by column)."""
    return list(
        normalize_records(
            Fewer, [{"id": str(n), **extra} for n, extra in enumerate(extras)]
        )
    )


def normalize_records(cls: type[Entity], items: list[dict[str, Any]]) -> Any:
    batch = Batch()
    refs = normalize([cls], items, batch, {})
    return [batch.records[ref] for ref in refs]


def chain_of(depth: int, text: str) -> Any:
    """A value nesting ``depth`` levels, a text at each."""
    value: Any = text
    for _ in range(depth):
        value = [text, value]
    return value


EXTRA_SHAPES: list[tuple[Any, Any]] = [
    (["a", "b"], ["a", "b"]),  # equal lists, walked each side
    ("ab", "ab" * 50),  # a text grown
    ("ab", "\xe9\xe9"),  # as long, wider
    (1, 10**30),  # an int grown
    (1, 1.0),  # equal, of another type
    (True, 1),
    (None, {"nested": [1, 2.5, "x"]}),
    ({"a": 1}, {"a": 1, "b": 2}),  # a dict grown
    (2.5, 2.5),  # the same size, skipped
    (chain_of(70, "a"), chain_of(70, "aaaa")),  # past the depth walked
]


@pytest.mark.parametrize(("old", "new"), EXTRA_SHAPES)
def test_extras_growth_is_the_difference_of_the_extras_sizes(
    old: Any, new: Any
) -> None:
    held = fewer_records([{"tag": old, "n": 1}] * 12)
    again = fewer_records([{"tag": new, "n": 1}] * 12)
    expected = retention.extras_size(again) - retention.extras_size(held)
    assert retention.extras_growth(held, again) == expected


class Hiding(Entity):
    """Says its records keep no extra keys, whatever they hold."""

    id: str = ""

    @property
    def extra_fields(self) -> Any:
        return {}


def test_extras_growth_of_a_class_that_says_otherwise_counts_as_it_says() -> None:
    held = list(normalize_records(Hiding, [{"id": str(n), "x": "a"} for n in range(9)]))
    again = list(
        normalize_records(Hiding, [{"id": str(n), "x": "a" * 90} for n in range(9)])
    )
    expected = retention.extras_size(again) - retention.extras_size(held)
    assert retention.extras_growth(held, again) == expected


@pytest.mark.parametrize(
    "change",
    ["other keys", "other order", "none on one side", "one pair", "own attribute"],
)
def test_extras_growth_counts_what_it_cannot_pair_whole(change: str) -> None:
    held = fewer_records([{"tag": "x", "n": 1}] * 12)
    items = [{"tag": "x", "n": 1}] * 12
    if change == "other keys":
        items = [{"tag": "x", "m": 1}] * 12
    elif change == "other order":
        items = [{"n": 1, "tag": "x"}] * 12
    elif change == "none on one side":
        items = [{"tag": "x", "n": 1}] * 11 + [{}]
    again = fewer_records(items)
    if change == "one pair":
        held, again = held[:1], again[:1]
    elif change == "own attribute":
        # (an attribute of a record's own besides its extra keys, as a
        # cached property keeps one: counted on neither side)
        _force_setattr(again[3], "cached", "a" * 100)
    expected = retention.extras_size(again) - retention.extras_size(held)
    assert retention.extras_growth(held, again) == expected


def test_a_poll_with_extras_that_change_keeps_the_count_as_held() -> None:
    """A list polled whose records' extra keys change size each time (== of
    the records leaves them aside): the store's count stays what it holds."""
    from tests.pipeline.test_store_counts import counted_as_held

    bodies = [
        json.dumps(
            [{"id": str(n), "tag": tag, "more": [1] * size} for n in range(12)]
        ).encode()
        for tag, size in (("a", 1), ("a" * 300, 1), ("a", 40), (1, 1), (1.0, 2))
    ]
    answers = iter(bodies)
    transport = httpx.MockTransport(
        lambda request: httpx.Response(
            200, content=next(answers), headers={"content-type": "application/json"}
        )
    )
    endpoint = RestEndpoint(url_prefix=API, path="/fewer", schema=[Fewer])
    with Controller(transport=transport) as controller:
        for _ in bodies:
            controller.fetch(endpoint)
            counted_as_held(controller.store)
        assert controller.store.size_bytes > 0


def test_levels_walked_in_parts_count_what_one_list_a_level_counts() -> None:
    """The walk that keeps a dict's keys apart from its values counts each
    object at the depth one list a level puts it (the depth bound too)."""
    values: list[Any] = [
        {"a": [1, "x", {"b": (2.5, None)}], "c": "y"},
        ["z", {"d": 1}],
        "text",
        10**40,
    ]
    deep: Any = "leaf"
    for _ in range(70):
        deep = {"k": [deep, 1]}
    values.append(deep)
    for depth in (1, 2, 3, 5, 64):
        total = 0
        level = list(values)
        for _ in range(depth):
            if not level:
                break
            size, level = retention._level(level, None)
            total += size
        assert retention._walked(list(values), depth) == total
