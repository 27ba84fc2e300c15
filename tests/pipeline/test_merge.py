"""``_store.store._merge``: a list the batch took whole (``Batch.complete``) merges
into records that already hold its keys exactly as record by record does.

Each case normalizes the same response twice, merges one batch as it is
and the other with its ``complete`` lists forgotten (the record-by-record
loop), each into its own copy of the same stored records, and compares.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar

import pytest

from restwire import Entity, Invalidate
from restwire._store.entity import EntityKey
from restwire._store.schemas import Batch, normalize, plan_of
from restwire._store.store import Result, Store, _merge
from tests.pipeline.test_columns import assert_same_records
from tests.pipeline.test_store_counts import counted_as_held


# Classes of this module only: whether a class has ever been built with extra
# keys is remembered per class, for the whole process.
class Tick(Entity):
    id: str = ""
    price: Decimal = Decimal(0)
    volume: int = 0

    schema: ClassVar[dict[str, Any]] = {"price": Decimal}


class Noted(Entity):
    """A tick that some response sent with a key that is not a field."""

    id: str = ""
    price: Decimal = Decimal(0)
    volume: int = 0

    schema: ClassVar[dict[str, Any]] = {"price": Decimal}


class OtherTick(Entity):
    """Another class stored under the same key name."""

    key = "Tick"
    id: str = ""
    label: str = ""


def ticks(count: int, cents: int) -> list[dict[str, Any]]:
    return [
        {"id": str(index), "price": f"{index}.{cents:02d}", "volume": index + cents}
        for index in range(count)
    ]


def stored(schema: Any, value: Any) -> dict[EntityKey, Entity]:
    """The records a first response leaves in a store."""
    batch = Batch()
    normalize(schema, value, batch, {})
    records: dict[EntityKey, Entity] = {}
    _merge(records, batch)
    return records


def merged_both_ways(
    before: dict[EntityKey, Entity], schema: Any, value: Any
) -> tuple[dict[EntityKey, Entity], dict[EntityKey, Entity], Batch]:
    """``before`` after merging ``value`` taken whole, and record by record."""
    whole, one_by_one = Batch(), Batch()
    normalize(schema, value, whole, {})
    normalize(schema, value, one_by_one, {})
    one_by_one.complete.clear()
    mine, theirs = dict(before), dict(before)
    _merge(mine, whole)
    _merge(theirs, one_by_one)
    return mine, theirs, whole


def test_a_refetched_list_replaces_its_records_at_once() -> None:
    before = stored([Tick], ticks(20, 0))
    mine, theirs, batch = merged_both_ways(before, [Tick], ticks(20, 25))
    assert "_extras_made" not in Tick.__dict__
    assert batch.complete  # the list was taken whole
    # each record is the batch's own instance, not rebuilt by a merge
    assert all(mine[key] is batch.records[key] for key in batch.records)
    assert_same_records(mine, theirs)
    assert mine[("Tick", "3")] == Tick(id="3", price=Decimal("3.25"), volume=28)


def test_records_outside_the_list_are_left_as_they_are() -> None:
    before = stored([Tick], ticks(30, 0))
    mine, theirs, _ = merged_both_ways(before, [Tick], ticks(12, 50))
    assert_same_records(mine, theirs)
    assert mine[("Tick", "25")] is before[("Tick", "25")]
    assert mine[("Tick", "5")] == Tick(id="5", price=Decimal("5.50"), volume=55)


def test_extra_keys_a_stored_record_keeps_survive_a_list_without_them() -> None:
    first = {"id": "4", "price": "1.00", "volume": 1, "note": "kept"}
    before = stored(Noted, first)
    assert before[("Noted", "4")].extra_fields == {"note": "kept"}
    mine, theirs, batch = merged_both_ways(before, [Noted], ticks(12, 75))
    assert batch.complete
    assert_same_records(mine, theirs)
    assert mine[("Noted", "4")].extra_fields == {"note": "kept"}
    assert mine[("Noted", "4")].to_dict()["price"] == Decimal("4.75")


def test_a_record_of_another_class_under_the_key_is_replaced() -> None:
    before = stored(OtherTick, {"id": "2", "label": "other"})
    mine, theirs, _ = merged_both_ways(before, [Tick], ticks(12, 10))
    assert_same_records(mine, theirs)
    assert type(mine[("Tick", "2")]) is Tick


def test_a_key_the_same_response_deletes_is_merged_as_by_record() -> None:
    before = stored([Tick], ticks(12, 0))
    schema = {"items": [Tick], "deleted": Invalidate(Tick)}
    value = {"items": ticks(12, 60), "deleted": {"id": "7"}}
    mine, theirs, batch = merged_both_ways(before, schema, value)
    assert ("Tick", "7") in batch.deleted
    assert ("Tick", "7") not in batch.records
    assert_same_records(mine, theirs)
    assert mine[("Tick", "6")] == Tick(id="6", price=Decimal("6.60"), volume=66)


@pytest.mark.parametrize("times", [1, 8])  # by record, and by column
def test_a_key_repeated_by_a_later_list_merges_as_by_record(times: int) -> None:
    before = stored([Tick], ticks(12, 0))
    schema = {"first": [Tick], "again": [Tick]}
    again = [{"id": "3", "volume": 999}] * times  # partial, and repeated
    mine, theirs, _ = merged_both_ways(
        before, schema, {"first": ticks(12, 40), "again": again}
    )
    assert_same_records(mine, theirs)
    assert mine[("Tick", "3")] == Tick(id="3", price=Decimal("3.40"), volume=999)


class Annotated(Entity):
    """A record one answer sends with a key that is not a field."""

    id: str = ""
    title: str = ""


def stored_again(store: Store, data: dict[str, Any]) -> Any:
    """``data`` answered to ``GET /one`` and kept, as a fetch keeps it; the
    record read back."""
    plan = plan_of(Annotated)
    batch = Batch()
    value = plan.normalize(data, batch, {})
    result = Result(plan, value, 0.0, 1e9)
    store.commit("me", batch, "GET /one", None, result, store.generation)
    return store.read("me", plan, value)


def test_one_record_stored_again_keeps_the_extra_keys_it_had() -> None:
    """Equal fields, but the stored record keeps a key the new answer
    lacks: the two merge (entity equality leaves extra keys aside)."""
    store = Store(max_bytes=None)
    first = stored_again(store, {"id": "1", "title": "t", "note": "kept"})
    assert first.extra_fields == {"note": "kept"}
    again = stored_again(store, {"id": "1", "title": "t"})
    assert again.extra_fields == {"note": "kept"}
    changed = stored_again(store, {"id": "1", "title": "new"})
    assert (changed.title, changed.extra_fields) == ("new", {"note": "kept"})


def test_one_record_stored_again_equal_counts_its_extra_keys_as_held() -> None:
    """Equal fields, every extra key the stored record keeps sent again:
    the new record is stored as it came (no merge), and its extra keys,
    which equality leaves aside, are counted out and in as they are now
    (``1 == 1.0``, yet they take other bytes; a key that grew; one more)."""
    store = Store(max_bytes=None)
    answers: list[dict[str, Any]] = [
        {"id": "1", "title": "t", "note": 1},
        {"id": "1", "title": "t", "note": 1.0},
        {"id": "1", "title": "t", "note": "n" * 5_000},
        {"id": "1", "title": "t", "note": ["a"], "more": {"k": [1, 2]}},
        {"id": "1", "title": "t", "note": 1, "more": True},
    ]
    for data in answers:
        read = stored_again(store, data)
        assert read.extra_fields == {
            key: value for key, value in data.items() if key not in ("id", "title")
        }
        counted_as_held(store)
    after_one = Store(max_bytes=None)
    stored_again(after_one, answers[-1])
    assert store.size_bytes == after_one.size_bytes


def test_one_record_stored_again_unchanged_counts_nothing_more() -> None:
    store = Store(max_bytes=None)
    plan = plan_of(Tick)
    held: list[int] = []
    for _ in range(3):
        batch = Batch()
        value = plan.normalize({"id": "7", "price": "1.5", "volume": 2}, batch, {})
        store.commit("me", batch, "GET /t", None, Result(plan, value, 0.0, 1e9), 0)
        held.append(store.size_bytes)
        assert store.read("me", plan, value) == Tick(
            id="7", price=Decimal("1.5"), volume=2
        )
    assert held[0] == held[1] == held[2]
    counted_as_held(store)


class SameById(Entity):
    """An entity whose own == says "the same record" by primary key."""

    id: str = ""
    name: str = ""
    email: str = ""

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.pk() == self.pk()

    __hash__ = Entity.__hash__


def test_a_partial_answer_equal_by_the_class_s_own_eq_is_merged() -> None:
    store = Store(max_bytes=None)
    plan = plan_of(SameById)
    for data in (
        {"id": "1", "name": "Ann", "email": "ann@example.com"},
        {"id": "1", "name": "Ann B"},
    ):
        batch = Batch()
        value = plan.normalize(data, batch, {})
        store.commit("me", batch, "GET /u", None, Result(plan, value, 0.0, 1e9), 0)
    got = store.read("me", plan, value)
    assert (got.name, got.email) == ("Ann B", "ann@example.com")
