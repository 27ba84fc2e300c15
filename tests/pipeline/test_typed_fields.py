"""Data from a server is checked against an entity's annotated fields
(``_store.typed_fields``), under both drivers, on every path a record is
made by: one object, a short list (record by record), a long list (column
by column) and a long JSON array (decoded by msgspec in one pass)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import httpx
import pytest

from restwire import Entity, EntityError, RestEndpoint, resource

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


class Item(Entity):
    id: int = 0
    name: str = ""
    unit_price: float = 0.0
    tags: list[str] = []  # noqa: RUF012 (a field default, copied per instance)


class CleanItem(Item):
    check_types: ClassVar[bool] = False


class Serving(httpx.MockTransport):
    """A transport answering every request with ``body`` as JSON; the
    requests it saw are in ``seen``."""

    def __init__(self, body: Any) -> None:
        self.seen: list[httpx.Request] = []

        def answer(request: httpx.Request) -> httpx.Response:
            self.seen.append(request)
            return httpx.Response(200, json=body)

        super().__init__(answer)


serving = Serving


def items_of(schema: type[Entity]) -> Any:
    return resource(
        path="/items{/:id}", schema=schema, endpoint=RestEndpoint(url_prefix=API)
    )


GOOD = {"id": 1, "name": "pen", "unit_price": 2.5, "tags": ["office"]}


def many(count: int, **change: Any) -> list[dict[str, Any]]:
    """``count`` good records, the last one changed by ``change``."""
    out = [{**GOOD, "id": number} for number in range(count)]
    out[-1] = {**out[-1], **change}
    return out


@pytest.mark.parametrize(
    ("field", "value", "expected", "got"),
    [
        ("name", 42, "str", "int"),
        ("unit_price", "cheap", "float", "str"),
        ("id", True, "int", "bool"),
        ("tags", ["a", 3], "list[str]", "list"),
        ("name", None, "str", "None"),
    ],
)
async def test_a_value_of_the_wrong_type_names_entity_field_and_type(
    controller_factory: Callable[..., Any],
    field: str,
    value: Any,
    expected: str,
    got: str,
) -> None:
    controller = controller_factory(transport=serving({**GOOD, field: value}))
    with pytest.raises(EntityError) as caught:
        await controller.fetch(items_of(Item).get, {"id": 1})
    message = str(caught.value)
    assert message.startswith(f"GET {API}/items/1: Item.{field}: ")
    assert f"expected {expected}, got {got}" in message
    assert (caught.value.entity, caught.value.field) == ("Item", field)
    assert "cheap" not in message  # the type is named, never the value


@pytest.mark.parametrize("count", [2, 8, 40])
@pytest.mark.parametrize(
    "change", [{"name": 42}, {"unit_price": "cheap"}, {"tags": "office"}]
)
async def test_a_bad_record_in_a_list_is_an_error_however_the_list_is_read(
    controller_factory: Callable[..., Any], count: int, change: dict[str, Any]
) -> None:
    """2 items are made one by one, 8 column by column, 40 decoded by
    msgspec from the body: each way checks every value."""
    controller = controller_factory(transport=serving(many(count, **change)))
    field = next(iter(change))
    with pytest.raises(EntityError, match=f"Item\\.{field}: expected "):
        await controller.fetch(items_of(Item).get_list)


@pytest.mark.parametrize("count", [2, 8, 40])
async def test_good_lists_are_read_on_every_path(
    controller_factory: Callable[..., Any], count: int
) -> None:
    controller = controller_factory(transport=serving(many(count)))
    got = await controller.fetch(items_of(Item).get_list)
    assert [item.id for item in got] == list(range(count))


@pytest.mark.parametrize("count", [1, 8, 40])
async def test_an_int_where_a_float_is_declared_is_kept(
    controller_factory: Callable[..., Any], count: int
) -> None:
    controller = controller_factory(transport=serving(many(count, unit_price=3)))
    got = await controller.fetch(items_of(Item).get_list)
    assert got[-1].unit_price == 3
    assert type(got[-1].unit_price) is int


async def test_a_list_given_to_a_single_entity_schema_is_an_error(
    controller_factory: Callable[..., Any],
) -> None:
    controller = controller_factory(transport=serving([GOOD]))
    with pytest.raises(EntityError, match="Item: expected an object, got a list of 1"):
        await controller.fetch(items_of(Item).get, {"id": 1})


async def test_an_object_given_to_a_list_schema_is_an_error(
    controller_factory: Callable[..., Any],
) -> None:
    controller = controller_factory(transport=serving({"items": [GOOD], "total": 1}))
    with pytest.raises(EntityError, match="expected a list, got an object"):
        await controller.fetch(items_of(Item).get_list)


async def test_a_page_envelope_given_to_a_single_item_schema_is_an_error(
    controller_factory: Callable[..., Any],
) -> None:
    """A misnamed path param (``item_id`` for ``id``) reads the list's
    page, which has none of Item's fields: an error, not ``Item(id=0)``."""
    transport = serving({"items": [GOOD], "total": 1})
    controller = controller_factory(transport=transport)
    with pytest.raises(EntityError, match="the object has none of Item's fields"):
        await controller.fetch(items_of(Item).get, {"item_id": 1})
    assert [str(request.url) for request in transport.seen] == [
        f"{API}/items?item_id=1"
    ]


@pytest.mark.parametrize("count", [1, 2, 8, 40])
async def test_an_entity_known_clean_is_not_checked(
    controller_factory: Callable[..., Any], count: int
) -> None:
    controller = controller_factory(transport=serving(many(count, name=42)))
    got = await controller.fetch(items_of(CleanItem).get_list)
    assert got[-1].name == 42


def test_fields_named_in_schema_are_the_deserializers_to_check() -> None:
    """A field ``schema`` converts is its deserializer's business."""

    class Dated(Entity):
        id: int = 0
        price: float = 0.0
        schema: ClassVar[dict[str, Any]] = {"price": float}

    assert Dated.from_data({"id": 1, "price": "2.50"}).price == 2.5
    with pytest.raises(EntityError, match=r"Dated\.id: expected int, got str"):
        Dated.from_data({"id": "1", "price": "2.50"})


class Text(httpx.MockTransport):
    """A transport answering ``body`` (JSON text, sent as it is)."""

    def __init__(self, body: str) -> None:
        super().__init__(
            lambda request: httpx.Response(
                200, content=body.encode(), headers={"content-type": "application/json"}
            )
        )


@pytest.mark.parametrize("count", [2, 10])
async def test_a_lone_surrogate_is_checked_as_any_text(
    controller_factory: Callable[..., Any], count: int
) -> None:
    """JSON may escape a lone surrogate ("\\ud800"), which msgspec cannot
    read: a text holding one is still a text, kept in a ``str`` field and
    named in the error for a field of another type."""
    rows = ",".join(
        f'{{"id": {n}, "name": "a\\ud800b", "unit_price": "x\\udfff"}}'
        for n in range(count)
    )
    controller = controller_factory(transport=Text(f"[{rows}]"))
    with pytest.raises(EntityError) as caught:
        await controller.fetch(items_of(Item).get_list)
    assert caught.value.field == "unit_price"
    assert "expected float, got str" in str(caught.value)

    named = ",".join(f'{{"id": {n}, "name": "a\\ud800b"}}' for n in range(count))
    controller = controller_factory(transport=Text(f"[{named}]"))
    got = await controller.fetch(items_of(Item).get_list)
    assert [item.name for item in got] == ["a\ud800b"] * count
