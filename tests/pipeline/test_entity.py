from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any, ClassVar, Literal

import pytest

from restwire import Entity, EntityError
from tests.pipeline.entities import ExchangePrice, Post, Stream, Ticker, User


def test_key_defaults_to_the_class_name_and_can_be_set() -> None:
    class Named(Entity):
        id: str = ""
        key: ClassVar[str] = "custom"

    assert Post.key == "Post"
    assert Named.key == "custom"


def test_fields_come_from_annotations_with_their_defaults() -> None:
    assert Stream() == Stream(
        username="", title="", game="", current_viewers=0, live=False
    )
    assert list(Ticker._fields) == [
        "product_id",
        "trade_id",
        "price",
        "size",
        "time",
        "bid",
        "ask",
        "volume",
    ]


def test_fields_are_inherited() -> None:
    class Base(Entity):
        id: str = ""

    class Child(Base):
        name: str = "n"

    assert Child.from_data({"id": "1"}) == Child(id="1", name="n")


def test_exchange_price_as_the_seed_describes_it() -> None:
    price = ExchangePrice.from_data(
        {
            "exchange_pair": "BTC-USD",
            "price": "20012.3400",
            "updated_at": "2024-05-01T12:00:00Z",
        }
    )
    assert price.pk() == "BTC-USD"
    assert price.price == Decimal("20012.3400")
    assert price.updated_at == datetime.datetime(2024, 5, 1, 12, tzinfo=datetime.UTC)


@pytest.mark.parametrize("wire_price", [42.5, "42.5", 42])
def test_ticker_price_is_converted_with_float(wire_price: Any) -> None:
    ticker = Ticker.from_data(
        {
            "product_id": "BTC-USD",
            "price": wire_price,
            "time": "2024-05-01T12:00:00.123456Z",
        }
    )
    assert ticker.price == float(wire_price)
    assert isinstance(ticker.price, float)
    assert ticker.time is not None
    assert ticker.time.microsecond == 123456


def test_stream_pk_is_the_username() -> None:
    assert Stream.from_data({"username": "sky", "current_viewers": 3}).pk() == "sky"


def test_default_pk_is_the_id_as_text() -> None:
    class Numbered(Entity):
        id: int | None = 0

    assert Numbered.from_data({"id": 7}).pk() == "7"
    assert Post().pk() == ""
    assert Numbered.from_data({"id": None}).pk() is None


def test_unknown_keys_are_kept_apart_not_lost() -> None:
    post = Post.from_data({"id": "1", "title": "t", "likes": 3})
    assert post.extra_fields == {"likes": 3}
    assert not hasattr(post, "likes")
    assert post.to_dict() == {"id": "1", "title": "t"}


def test_a_failing_deserializer_names_entity_field_and_value() -> None:
    with pytest.raises(EntityError) as caught:
        ExchangePrice.from_data({"exchange_pair": "X", "price": "twelve"})
    error = caught.value
    assert error.entity == "ExchangePrice"
    assert error.field == "price"
    assert error.value == "twelve"
    assert "ExchangePrice.price" in str(error)
    assert "'twelve'" in str(error)
    assert "Decimal" in str(error)


def test_none_and_values_of_the_right_type_are_not_deserialized() -> None:
    when = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
    price = ExchangePrice.from_data(
        {"exchange_pair": "X", "price": Decimal("1"), "updated_at": None}
    )
    assert price.price == Decimal("1")
    assert price.updated_at is None
    assert ExchangePrice(exchange_pair="X", updated_at=when).updated_at is when


def test_data_that_is_not_an_object_is_an_entity_error() -> None:
    with pytest.raises(EntityError, match="Post: expected an object"):
        Post.from_data(["not", "an", "object"])  # type: ignore[arg-type]


def test_instances_are_read_only() -> None:
    post = Post(id="1")
    with pytest.raises(AttributeError, match="read-only"):
        post.title = "changed"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="read-only"):
        del post.title


def test_value_equality_hash_and_repr() -> None:
    assert Post(id="1", title="a") == Post(id="1", title="a")
    assert Post(id="1", title="a") != Post(id="1", title="b")
    assert Post(id="1") != Stream(username="1")
    assert len({Post(id="1", title="a"), Post(id="1", title="a")}) == 1
    assert repr(Post(id="1", title="a")) == "Post(id='1', title='a')"


def test_merging_over_a_base_keeps_fields_the_data_lacks() -> None:
    old = Stream.from_data({"username": "sky", "title": "old", "game": "chess"})
    new = Stream.from_data({"username": "sky", "title": "new"}, base=old)
    assert new == Stream(username="sky", title="new", game="chess")


def test_mutable_defaults_are_not_shared() -> None:
    class Tagged(Entity):
        id: str = ""
        tags: list[str] = []  # noqa: RUF012

    first, second = Tagged.from_data({"id": "1"}), Tagged.from_data({"id": "2"})
    assert first.tags is not second.tags


def test_a_schema_naming_no_field_is_refused() -> None:
    with pytest.raises(TypeError, match="'prize', which is not a field"):

        class Typo(Entity):
            price: Decimal = Decimal(0)
            schema: ClassVar[dict[str, Any]] = {"prize": Decimal}


def test_unknown_constructor_fields_are_refused() -> None:
    with pytest.raises(TypeError, match="no field"):
        Post(nope=1)  # type: ignore[call-arg]


def test_an_entity_is_a_json_body() -> None:
    assert Post(id="1", title="t").to_json() == {"id": "1", "title": "t"}


class Typed(Entity):
    id: str = ""
    count: int = 0
    ratio: float = 0.0
    when: datetime.date | None = None
    tags: list[str] = []  # noqa: RUF012 (a field default, copied per instance)
    kind: Literal["a", "b"] = "a"
    author: User | None = None
    anything: Any = None
    later: NotYetDefined | None = None  # type: ignore[name-defined]  # noqa: F821


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("id", 1, "str"),
        ("count", "1", "int"),
        ("ratio", "0.5", "float"),
        ("when", "2024-05-01", "datetime.date | None"),
        ("tags", ("a",), "list[str]"),
        ("kind", "c", "Literal['a', 'b']"),
        ("author", {"id": 1}, "User | None"),
    ],
)
def test_a_constructor_value_of_the_wrong_type_is_an_entity_error(
    field: str, value: Any, expected: str
) -> None:
    with pytest.raises(EntityError) as caught:
        Typed(**{field: value})
    assert caught.value.field == field
    assert str(caught.value).startswith(
        f"Typed.{field}: expected {expected}, got {type(value).__name__}"
    )


def test_a_constructor_takes_values_of_the_annotated_types() -> None:
    typed = Typed(
        id="1",
        count=2,
        ratio=1,  # an int is a float, as for the type checker
        when=None,
        tags=["x"],
        kind="b",
        author=User(id=1),
        anything=object(),
        later="not checked: the name does not resolve",
    )
    assert (typed.count, typed.ratio, typed.kind) == (2, 1, "b")


def test_a_field_without_a_default_is_required_by_the_constructor() -> None:
    class Named(Entity):
        id: str = ""
        name: str

    with pytest.raises(TypeError, match=r"Named needs field\(s\) \['name'\]"):
        Named(id="1")  # type: ignore[call-arg]
    assert Named(name="Ann").name == "Ann"
    assert Named.from_data({"id": "1"}).name is None  # wire data: as before


def test_a_non_empty_mutable_default_is_copied_for_each_record() -> None:
    class Tagged(Entity):
        id: str = ""
        tags: list[str] = ["new"]  # noqa: RUF012

    first, second = Tagged(id="1"), Tagged.from_data({"id": "2"})
    assert first.tags == second.tags == ["new"]
    assert first.tags is not second.tags
    assert Tagged._fields["tags"] == ["new"]


def test_private_and_reserved_annotations_are_not_fields() -> None:
    class Noted(Entity):
        id: str = ""
        _note: str = "kept on the class"
        key: str = "noted"  # type: ignore[misc]

    assert list(Noted._fields) == ["id"]
    assert Noted.key == "noted"
    assert Noted._note == "kept on the class"
    assert Noted.from_data({"id": "1", "_note": "x"}).extra_fields == {"_note": "x"}


def test_a_field_redeclared_without_a_default_keeps_the_inherited_one() -> None:
    class Base(Entity):
        id: str = ""
        name: str = "base"

    class Child(Base):
        name: str

    # (a type checker reads the redeclaration as required; at runtime it is not)
    assert Child(id="1").name == "base"  # type: ignore[call-arg]
    assert list(Child._fields) == ["id", "name"]


def test_constructor_arguments_are_keywords_only() -> None:
    with pytest.raises(TypeError, match="keyword arguments only"):
        Post("1")  # type: ignore[call-arg]


def test_a_copy_or_a_pickle_keeps_the_fields_and_the_extra_keys() -> None:
    import copy
    import pickle

    post = Post.from_data({"id": "1", "title": "t", "views": 3})
    for again in (
        copy.copy(post),
        copy.deepcopy(post),
        pickle.loads(pickle.dumps(post)),
    ):
        assert again == post
        assert again.extra_fields == {"views": 3}
    plain = pickle.loads(pickle.dumps(Post(id="2")))
    assert plain == Post(id="2")
    assert plain.extra_fields == {}
