"""Lists of flat entities normalized column by column (``_store.columns``).

Each test normalizes the same list twice: as a list (the column path) and
item by item (the record path, which builds one record at a time), and
finds the same references, records (fields, types, extra keys) and batch.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, ClassVar

import pytest

from restwire import Entity, EntityError
from restwire._store.columns import SMALLEST, records_by_column
from restwire._store.entity import EntityKey
from restwire._store.schemas import Batch, entities_by_column, normalize
from tests.pipeline.entities import Pretender


class Quote(Entity):
    id: str = ""
    price: Decimal = Decimal(0)
    at: datetime.datetime | None = None
    tags: list[str] = []  # noqa: RUF012 (a field default, copied per instance)

    schema: ClassVar[dict[str, Any]] = {
        "price": Decimal,
        "at": datetime.datetime.fromisoformat,
    }


class Pair(Entity):
    base: str = ""
    quote: str = ""
    rate: float = 0.0

    schema: ClassVar[dict[str, Any]] = {"rate": float}

    def pk(self) -> str:
        return f"{self.base}-{self.quote}"


def quotes(count: int = 12) -> list[dict[str, Any]]:
    return [
        {
            "id": str(index),
            "price": f"{index}.5",
            "at": f"2024-05-01T12:00:{index % 60:02d}+00:00",
            "tags": [f"t{index}"],
        }
        for index in range(count)
    ]


def both_ways(schema: type[Entity], items: list[Any]) -> tuple[Batch, Batch, Any]:
    """Normalize ``items`` as a list and one by one; the batches and the
    list's references, after checking the references agree."""
    by_column = Batch()
    refs = normalize([schema], items, by_column, {})
    by_record = Batch()
    one_by_one = [normalize(schema, item, by_record, {}) for item in items]
    assert refs == one_by_one
    return by_column, by_record, refs


def record(batch: Batch, key: tuple[str, str]) -> Any:
    """The record ``batch`` holds under ``key``, typed loosely for reading."""
    return batch.records[key]


def assert_same_records(
    mine: Mapping[EntityKey, Entity], theirs: Mapping[EntityKey, Entity]
) -> None:
    """The same records under the same keys: class, fields, the type of
    each value, and extra keys."""
    assert mine.keys() == theirs.keys()
    for key, record in theirs.items():
        ours = mine[key]
        assert type(ours) is type(record)
        assert ours == record
        # (field order is the class's: records are compiled structs)
        for name in type(record)._fields:
            assert type(getattr(ours, name)) is type(getattr(record, name))
        assert ours.extra_fields == record.extra_fields
        assert list(ours.extra_fields) == list(record.extra_fields)  # (order)
        assert type(ours.extra_fields) is type(record.extra_fields)  # (read-only)


def assert_same(by_column: Batch, by_record: Batch) -> None:
    assert_same_records(by_column.records, by_record.records)
    assert by_column.data == by_record.data
    assert by_column.deleted == by_record.deleted


def test_a_list_is_built_by_column_as_by_record() -> None:
    items = quotes()
    by_column, by_record, _ = both_ways(Quote, items)
    assert_same(by_column, by_record)
    assert record(by_column, ("Quote", "3")).price == Decimal("3.5")


def test_the_column_path_is_the_one_taken() -> None:
    batch = Batch()
    refs = entities_by_column(Quote, quotes(), batch)
    assert refs == [("Quote", str(index)) for index in range(12)]
    assert len(batch.records) == 12


def test_short_lists_and_nested_entities_take_the_record_path() -> None:
    assert entities_by_column(Quote, quotes(SMALLEST - 1), Batch()) is None
    from tests.pipeline.entities import Article

    articles = [{"id": index, "author": {"id": 1}} for index in range(SMALLEST)]
    assert entities_by_column(Article, articles, Batch()) is None


def test_missing_fields_keep_defaults_and_are_not_deserialized() -> None:
    items = quotes()
    del items[2]["price"], items[5]["at"], items[7]["tags"]
    by_column, by_record, _ = both_ways(Quote, items)
    assert_same(by_column, by_record)
    assert record(by_column, ("Quote", "2")).price == Decimal(0)
    assert record(by_column, ("Quote", "5")).at is None
    # a missing mutable field gets its own copy of the default
    assert record(by_column, ("Quote", "7")).tags == []
    assert record(by_column, ("Quote", "7")).tags is not Quote._fields["tags"]


def test_none_and_values_of_the_deserializers_class_pass_as_they_are() -> None:
    items = quotes()
    items[1]["price"] = None
    items[4]["price"] = Decimal("9.25")
    items[6]["at"] = None
    by_column, by_record, _ = both_ways(Quote, items)
    assert_same(by_column, by_record)
    assert record(by_column, ("Quote", "4")).price == Decimal("9.25")


def test_extra_keys_are_kept_apart_as_by_record() -> None:
    items = quotes()
    items[3]["note"] = "kept"
    by_column, by_record, _ = both_ways(Quote, items)
    assert_same(by_column, by_record)
    assert record(by_column, ("Quote", "3")).extra_fields == {"note": "kept"}


def test_an_extra_key_in_place_of_a_field_is_kept_apart_as_by_record() -> None:
    items = quotes()
    del items[3]["tags"]
    items[3]["note"] = "kept"  # as many keys as fields, one not a field
    by_column, by_record, _ = both_ways(Quote, items)
    assert_same(by_column, by_record)
    assert record(by_column, ("Quote", "3")).extra_fields == {"note": "kept"}
    assert record(by_column, ("Quote", "3")).tags == []


def test_a_list_with_extra_keys_is_made_by_column_as_by_record() -> None:
    """Most answers hold keys the entity does not declare: the column path
    takes them, each record keeping its own in the order they came."""
    items = quotes()
    for index, item in enumerate(items):
        item["zone"] = f"z{index}"
        if index % 3 == 0:
            item["added"] = {"by": index}  # a second one, on some items
    del items[4]["tags"]  # (and a field some item lacks)
    assert entities_by_column(Quote, [dict(item) for item in items], Batch())
    by_column, by_record, _ = both_ways(Quote, items)
    assert_same(by_column, by_record)
    assert list(record(by_column, ("Quote", "3")).extra_fields) == ["zone", "added"]
    assert record(by_column, ("Quote", "4")).extra_fields == {"zone": "z4"}
    assert record(by_column, ("Quote", "4")).tags == []


class Slugged(Entity):
    """A primary key read from a key the class does not declare."""

    title: str = ""

    def pk(self) -> str:
        return str(self.extra_fields.get("slug", ""))


def test_a_primary_key_may_read_the_extra_keys() -> None:
    items = [{"title": f"t{index}", "slug": f"s-{index}"} for index in range(10)]
    assert entities_by_column(Slugged, [dict(item) for item in items], Batch())
    by_column, by_record, refs = both_ways(Slugged, items)
    assert_same(by_column, by_record)
    assert refs[2] == ("Slugged", "s-2")


def test_an_item_of_extra_keys_alone_is_the_record_paths_error() -> None:
    items: list[Any] = quotes()
    items[5] = {"zone": "z5"}  # none of the class's fields
    assert entities_by_column(Quote, items, Batch()) is None
    with pytest.raises(EntityError) as by_column:
        normalize([Quote], items, Batch(), {})
    with pytest.raises(EntityError) as by_record:
        normalize(Quote, items[5], Batch(), {})
    assert str(by_column.value) == str(by_record.value)


def test_extra_keys_of_every_kind_keep_their_order_and_values() -> None:
    names = ["zeta", "alpha", "mid", "beta", "omega", "gamma", "kappa", "eta"]
    items = quotes()
    for index, item in enumerate(items):
        for offset, name in enumerate(names):
            item[name] = None if offset == 2 else [index, offset]
    by_column, by_record, _ = both_ways(Quote, items)
    assert_same(by_column, by_record)
    assert list(record(by_column, ("Quote", "5")).extra_fields) == names
    assert record(by_column, ("Quote", "5")).extra_fields["mid"] is None


def test_an_item_of_extra_keys_alone_is_refused_whatever_the_key() -> None:
    """An item with none of the class's fields is refused, even when the
    class's primary key would find one among its extra keys."""
    items: list[Any] = [{"title": f"t{n}", "slug": f"s-{n}"} for n in range(10)]
    items[4] = {"slug": "s-4"}
    assert entities_by_column(Slugged, items, Batch()) is None
    with pytest.raises(EntityError, match="none of"):
        normalize([Slugged], items, Batch(), {})


def test_a_list_declined_leaves_the_class_unmarked() -> None:
    """A list the column path declines (an empty primary key) leaves the
    class as the record path leaves it: the record path fails on the first
    item, before any with extra keys, so none was kept."""

    class Marked(Entity):
        id: str = ""

    items = [{"id": ""}] + [{"id": str(n)} for n in range(1, 8)]
    items[7]["note"] = "x"
    with pytest.raises(EntityError):
        normalize([Marked], items, Batch(), {})
    assert "_extras_made" not in Marked.__dict__


def test_a_class_made_with_extra_keys_by_column_says_so() -> None:
    """The store asks ``_extras_made`` whether a class's records may hold
    extra keys (then ``==`` alone does not say two records are the same)."""

    class Fresh(Entity):
        id: str = ""

    items = [{"id": str(index), "note": index} for index in range(10)]
    assert "_extras_made" not in Fresh.__dict__
    assert entities_by_column(Fresh, items, Batch())
    assert Fresh.__dict__["_extras_made"] is True


def test_a_repeated_key_merges_over_the_earlier_item() -> None:
    items = quotes()
    items[9] = {"id": "2", "price": "77"}  # repeats 2, without "at" or "tags"
    by_column, by_record, refs = both_ways(Quote, items)
    assert_same(by_column, by_record)
    merged = record(by_column, ("Quote", "2"))
    assert merged.price == Decimal(77)
    assert merged.at == datetime.datetime.fromisoformat("2024-05-01T12:00:02+00:00")
    assert refs.count(("Quote", "2")) == 2


def test_a_key_an_earlier_list_of_the_response_holds_is_merged() -> None:
    by_column, by_record = Batch(), Batch()
    first = [{"id": "1", "price": "1", "tags": ["a"]}]
    for batch in (by_column, by_record):
        normalize([Quote], first, batch, {})
    items = quotes()
    del items[1]["tags"]
    normalize([Quote], items, by_column, {})
    for item in items:
        normalize(Quote, item, by_record, {})
    assert_same(by_column, by_record)
    assert record(by_column, ("Quote", "1")).tags == ["a"]


def test_raw_data_is_filed_in_the_order_it_came() -> None:
    """A list's raw items are filed when the batch's data is first asked
    for, and once: by then in the same order, and the same data, as record
    by record, a later repeat's merge included."""
    first = quotes(12)
    repeat = {"id": "5", "price": "2"}  # a short list: the record path
    lists = [first, [repeat], [{**item, "id": f"1{item['id']}"} for item in first]]
    by_column, by_record = Batch(), Batch()
    for items in lists:
        normalize([Quote], items, by_column, {})
        for item in items:
            normalize(Quote, item, by_record, {})
    assert list(by_column.data) == list(by_record.data)
    assert by_column.data[("Quote", "5")] == {**first[5], **repeat}
    assert by_column.data[("Quote", "6")] is first[6]  # filed as it came
    assert_same(by_column, by_record)


def test_a_deleted_key_normalized_again_is_no_longer_deleted() -> None:
    batch = Batch()
    batch.deleted.update({("Quote", "3"), ("Quote", "99")})
    normalize([Quote], quotes(), batch, {})
    assert batch.deleted == {("Quote", "99")}


def test_a_custom_primary_key() -> None:
    items = [
        {"base": f"B{index}", "quote": "USD", "rate": str(index)} for index in range(10)
    ]
    by_column, by_record, refs = both_ways(Pair, items)
    assert_same(by_column, by_record)
    assert refs[0] == ("Pair", "B0-USD")
    assert record(by_column, ("Pair", "B3-USD")).rate == 3.0


class NumberedQuote(Quote):
    id: int = 0  # type: ignore[assignment]


def test_numeric_ids_are_keyed_as_text() -> None:
    items = quotes()
    for index, item in enumerate(items):
        item["id"] = index
    by_column, by_record, refs = both_ways(NumberedQuote, items)
    assert_same(by_column, by_record)
    assert refs[5] == ("NumberedQuote", "5")


@pytest.mark.parametrize(
    ("bad", "error"),
    [("", "has no primary key"), (None, "Quote.id: expected str, got None")],
)
def test_an_item_without_a_primary_key_is_the_record_paths_error(
    bad: Any, error: str
) -> None:
    items = quotes()
    items[8]["id"] = bad
    with pytest.raises(EntityError, match=error):
        normalize([Quote], items, Batch(), {})


def test_an_item_that_is_not_an_object_is_the_record_paths_error() -> None:
    items: list[Any] = quotes()
    items[4] = "4"
    with pytest.raises(EntityError, match="expected an object"):
        normalize([Quote], items, Batch(), {})


def test_a_failing_deserializer_names_the_value_it_refused() -> None:
    items = quotes()
    items[6]["price"] = "six"
    batch = Batch()
    with pytest.raises(EntityError) as caught:
        normalize([Quote], items, batch, {})
    assert caught.value.field == "price"
    assert caught.value.value == "six"
    assert "Quote.price: Decimal failed" in str(caught.value)


def test_of_many_bad_values_the_first_items_error_is_raised() -> None:
    """Made column by column, the records meet their bad values field by
    field; the error is still the record path's: the first item's."""
    items = quotes()
    items[2]["at"] = "not a time"  # the second deserialized field, item 2
    items[6]["price"] = "six"  # the first deserialized field, item 6
    items[9]["id"] = ""

    def one_by_one() -> None:
        for item in items:
            normalize(Quote, item, Batch(), {})

    with pytest.raises(EntityError) as as_list:
        normalize([Quote], items, Batch(), {})
    with pytest.raises(EntityError) as by_record:
        one_by_one()
    assert str(as_list.value) == str(by_record.value)
    assert as_list.value.field == "at"


class _LooksLikeDecimal:
    """A deserializer that says it is ``Decimal`` (equal, same hash) and
    makes text."""

    def __eq__(self, other: object) -> bool:
        return other is Decimal or other is self

    def __hash__(self) -> int:
        return hash(Decimal)

    def __call__(self, text: str) -> str:
        return text


class Stamp(Entity):
    id: str = ""
    day: Any = None


@pytest.mark.parametrize(
    ("deserialize", "raw", "makes"),
    [
        (datetime.date.fromisoformat, "2024-05-01", datetime.date),
        (Decimal, "1.25", Decimal),
        (lambda text: datetime.date.fromisoformat(text), "2024-05-01", None),
        (type("Dated", (Decimal,), {}), "1.25", None),  # a subclass makes its own
        ({"x": 1}.get, "x", None),  # (a method of what cannot be hashed)
        (_LooksLikeDecimal(), "1.25", None),  # (equal to Decimal, not it)
    ],
)
def test_each_column_says_the_one_class_of_its_values(
    deserialize: Any, raw: str, makes: type | None
) -> None:
    """A column's class is said only when every value is of it, exactly:
    learnt in one pass, or known from a deserializer of the standard
    library that makes nothing else."""

    class Text(str):
        pass

    items = [
        {"id": Text(index) if index == 3 else str(index), "day": raw}
        for index in range(10)
    ]
    Stamp.schema = {"day": deserialize}
    made = records_by_column(Stamp, items)
    assert made is not None
    assert made.kinds == [None, makes]  # (a subclass among the ids: no one class)
    items[3]["id"] = "3"
    again = records_by_column(Stamp, items)
    assert again is not None
    assert again.columns is not None
    assert again.kinds == [str, makes]
    for column, kind in zip(again.columns, again.kinds, strict=True):
        if kind is not None:
            assert {type(value) for value in column} == {kind}


class Counted(Entity):
    id: str = ""
    volume: int = 0
    rate: float = 0.0


@pytest.mark.parametrize(
    ("field", "value", "refused"),
    [
        ("volume", True, True),  # bool is no int, even a whole column of them
        ("volume", 1.5, True),
        ("rate", 2, False),  # an int is a float
        ("id", 5, True),
    ],
)
def test_a_column_of_one_class_is_checked_as_any_other(
    field: str, value: Any, refused: bool
) -> None:
    items = [{"id": str(index), "volume": index, "rate": 0.5} for index in range(10)]
    for item in items:
        item[field] = value
    if field == "id":
        items = [{**item, "id": index} for index, item in enumerate(items)]
    batch = Batch()
    if refused:
        with pytest.raises(EntityError) as caught:
            normalize([Counted], items, batch, {})
        assert caught.value.field == field
    else:
        refs = normalize([Counted], items, batch, {})
        assert len(refs) == 10


def test_prices_made_in_one_call_are_what_decimal_makes_of_each_text() -> None:
    """A column of texts for a ``Decimal`` field is made in one call: each
    value is ``Decimal(text)``, exponent, sign and trailing zeros kept."""
    texts = [" 1.5 ", "1_000", "1E+2", "-0", "1e-7", "\u0663", "NaN", "-Infinity"]
    texts += ["0.10", "9" * 100, "1.", ".5"]
    items = quotes(len(texts))
    for item, text in zip(items, texts, strict=True):
        item["price"] = text
    batch = Batch()
    normalize([Quote], items, batch, {})
    prices = [record(batch, ("Quote", str(index))).price for index in range(12)]
    assert [str(price) for price in prices] == [str(Decimal(text)) for text in texts]
    assert {type(price) for price in prices} == {Decimal}


class CountWithPrice(Entity):
    id: str = ""
    n: int = 0
    v: Any = None

    schema: ClassVar[dict[str, Any]] = {"v": Decimal}


def test_a_class_that_says_it_equals_another_is_not_taken_for_it() -> None:
    """Classes are compared by identity: a value whose class claims to be
    ``int`` is refused as the record path refuses it; one among nulls is
    not handed to a deserializer with them."""
    items = [{"id": str(index), "n": index, "v": "1.5"} for index in range(10)]
    items[3]["n"] = Pretender()
    by_column = Batch()
    with pytest.raises(EntityError) as caught:
        normalize([CountWithPrice], items, by_column, {})
    assert caught.value.field == "n"
    items[3]["n"] = 3
    for index, item in enumerate(items):
        item["v"] = None if index % 2 else "2.5"
    items[0]["v"] = Decimal("1")  # (a value of the deserializer's class)
    by_column, by_record, _ = both_ways(CountWithPrice, items)
    assert_same(by_column, by_record)


class Counts(Entity):
    id: str = ""
    n: int = 0
    name: str = ""


def test_a_lone_surrogate_in_a_text_of_a_subclass_is_checked_once() -> None:
    class Text(str):
        pass

    for count in (2, 10):
        items = [{"id": str(index), "n": index} for index in range(count)]
        items[1]["n"] = Text("a\ud800")
        with pytest.raises(EntityError) as caught:
            normalize([Counts], items, Batch(), {})
        assert caught.value.field == "n"
        items[1]["n"] = 1
        items[1]["name"] = Text("a\ud800")
        batch = Batch()
        normalize([Counts], items, batch, {})
        assert batch.records[("Counts", "1")].name == "a\ud800"  # type: ignore[attr-defined]


class Library(Entity):
    id: str = ""
    v: Any = None


@pytest.mark.parametrize(
    ("deserialize", "raw", "odd"),
    [
        (Decimal, "1.5", [None, 2, Decimal("3"), type("D", (Decimal,), {})("4")]),
        (uuid.UUID, str(uuid.UUID(int=5)), [None, uuid.UUID(int=6)]),
        (datetime.date.fromisoformat, "2024-05-01", [None]),
        (datetime.datetime.fromisoformat, "2024-05-01T12:00:00+00:00", [None]),
    ],
)
def test_a_library_deserializer_is_handed_what_the_record_path_hands_it(
    deserialize: Any, raw: str, odd: list[Any]
) -> None:
    """A column for one of the standard library's deserializers is handed
    to it whole; a refusal (a null, a value of its class) takes the path
    that hands it only the others: the same records as one by one."""
    Library.schema = {"v": deserialize}
    items = [{"id": str(index), "v": raw} for index in range(12)]
    assert_same(*both_ways(Library, items)[:2])
    for index, value in enumerate(odd):
        items[2 * index + 1]["v"] = value
    by_column, by_record, _ = both_ways(Library, items)
    assert_same(by_column, by_record)
    for index, value in enumerate(odd):
        kept = record(by_column, ("Library", str(2 * index + 1))).v
        assert kept is value or type(value) not in (type(None), uuid.UUID)


class PosesAsInt(type):
    """Says it equals ``int`` and hashes as ``int`` does."""

    def __eq__(cls, other: object) -> bool:
        return other is int or other is cls

    def __hash__(cls) -> int:
        return hash(int)


class Impostor(metaclass=PosesAsInt):
    pass


def test_a_whole_column_of_a_class_posing_as_int_is_checked() -> None:
    items = [{"id": str(index), "n": Impostor(), "v": None} for index in range(10)]
    with pytest.raises(EntityError) as caught:
        normalize([CountWithPrice], items, Batch(), {})
    assert caught.value.field == "n"
