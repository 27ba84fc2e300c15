"""A list of entities read straight from the body's bytes (``_store.deferred_parse``).

Every case fetches the same response through an endpoint that defers its
parse and through the same endpoint made to parse as usual (a ``process``
option of its own), under both controllers, and holds the two to the same
value, the same stored records, or the same error word for word. The spy
says which cases the shortcut took, so a case that should take it cannot
pass by declining.
"""

from __future__ import annotations

import datetime
import json
from decimal import Decimal
from typing import Any, ClassVar

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    ContentError,
    Entity,
    JsonContent,
    RestEndpoint,
    RestwireError,
    Unparsed,
)
from restwire._store.schemas import Batch, entities_by_column
from restwire.middlewares import (
    AccessToken,
    CamelCaseKeys,
    CookieCredentials,
    CsrfToken,
    FillPrimaryKey,
    RenameKeys,
    SnakeCaseKeys,
)
from restwire.middlewares.key_casing import convert_keys, to_camel

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


class Tick(Entity):
    id: str = ""
    last_price: Decimal = Decimal(0)
    traded_at: datetime.datetime | None = None
    venue: dict[str, Any] | None = None

    schema: ClassVar[dict[str, Any]] = {
        "last_price": Decimal,
        "traded_at": datetime.datetime.fromisoformat,
    }


def ticks(count: int = 12) -> list[dict[str, Any]]:
    """Ticks as a snake_case client sees them."""
    return [
        {
            "id": str(index),
            "last_price": f"{index}.25",
            "traded_at": f"2024-05-01T12:00:{index:02d}+00:00",
            "venue": {
                "venue_name": f"v{index % 3}",
                "open_hours": [{"day_of_week": 1}],
            },
        }
        for index in range(count)
    ]


def camel(items: Any) -> Any:
    return convert_keys(items, to_camel)


DEFERRING = RestEndpoint(
    url_prefix=API, path="/ticks", schema=[Tick], middleware=[SnakeCaseKeys()]
)
#: The same endpoint, parsed as usual: a ``process`` of its own keeps the
#: value from being deferred.
USUAL = DEFERRING.extend(process=lambda value, params: value)


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each read of an ``Unparsed`` took the shortcut."""
    outcomes: list[bool] = []
    entities = Unparsed.entities

    def spy(self: Unparsed, cls: type[Entity], batch: Batch) -> Any:
        keys = entities(self, cls, batch)
        outcomes.append(keys is not None)
        return keys

    monkeypatch.setattr(Unparsed, "entities", spy)
    return outcomes


async def outcome(controller: Any, endpoint: RestEndpoint[Any]) -> Any:
    """The fetch's value and the records it stored, or its error."""
    try:
        value = await controller.fetch(endpoint)
    except RestwireError as error:
        return (type(error), str(error))
    return value, controller.store.records


async def both_ways(
    controller_factory: Any, httpx_mock: HTTPXMock, **response: Any
) -> tuple[Any, Any]:
    httpx_mock.add_response(url=f"{API}/ticks", **response)
    httpx_mock.add_response(url=f"{API}/ticks", **response)
    deferred = await outcome(controller_factory(), DEFERRING)
    usual = await outcome(controller_factory(), USUAL)
    return deferred, usual


def test_which_endpoints_defer_their_parse() -> None:
    assert DEFERRING.defers_parse
    assert not USUAL.defers_parse
    assert RestEndpoint(url_prefix=API, path="/t", schema=[Tick]).defers_parse
    assert DEFERRING.extend(middleware=[CamelCaseKeys()]).defers_parse
    # a layer that reads the value, one entity, no schema, other content
    assert not DEFERRING.extend(middleware=[FillPrimaryKey("id")]).defers_parse
    assert not DEFERRING.use(FillPrimaryKey("id")).defers_parse
    assert not DEFERRING.extend(schema=Tick).defers_parse
    assert not DEFERRING.extend(schema=None).defers_parse
    assert not DEFERRING.extend(schema={"results": [Tick]}).defers_parse
    assert not DEFERRING.extend(content="text").defers_parse
    assert not DEFERRING.extend(parse_response=JsonContent().read).defers_parse


async def read_both_ways(
    controller_factory: Any,
    httpx_mock: HTTPXMock,
    endpoint: RestEndpoint[Any],
    body: Any,
) -> tuple[Any, Any]:
    """:func:`outcome` of ``endpoint`` answered ``body``, then of the same
    endpoint with the shortcut off (a ``process`` of its own), each on a
    new controller."""
    url = f"{endpoint.url_prefix}{endpoint.path}"
    httpx_mock.add_response(url=url, json=body)
    httpx_mock.add_response(url=url, json=body)
    deferred = await outcome(controller_factory(), endpoint)
    usual = await outcome(
        controller_factory(), endpoint.extend(process=lambda value, params: value)
    )
    return deferred, usual


async def test_a_cased_list_is_read_straight_from_the_bytes(
    controller_factory: Any, httpx_mock: HTTPXMock, taken: list[bool]
) -> None:
    deferred, usual = await both_ways(
        controller_factory, httpx_mock, json=camel(ticks())
    )
    assert taken == [True]
    assert deferred == usual
    values, records = deferred
    first = values[1]
    assert first.last_price == Decimal("1.25")
    assert first.traded_at == datetime.datetime(
        2024, 5, 1, 12, 0, 1, tzinfo=datetime.UTC
    )
    # nested keys cased by the middleware's own conversion
    assert first.venue == {"venue_name": "v1", "open_hours": [{"day_of_week": 1}]}
    assert len(records) == 12


async def test_request_side_middleware_leave_a_list_to_be_read_from_the_bytes(
    controller_factory: Any, httpx_mock: HTTPXMock, taken: list[bool]
) -> None:
    """AccessToken, CookieCredentials and CsrfToken set what a call sends
    and never read its value: an endpoint with them (and casing) still reads
    a list straight from the bytes, with the value and records the usual
    parse gives; a 401 refreshed is sent again and read so too."""
    tokens = iter(["refreshed"])
    signed = RestEndpoint(url_prefix=API, path="/ticks", schema=[Tick]).use(
        AccessToken("stale", refresh=lambda: next(tokens)),
        CookieCredentials(),
        CsrfToken(),
        SnakeCaseKeys(),
    )
    assert signed.defers_parse
    httpx_mock.add_response(url=f"{API}/ticks", status_code=401)
    httpx_mock.add_response(url=f"{API}/ticks", json=camel(ticks()))
    httpx_mock.add_response(url=f"{API}/ticks", json=camel(ticks()))
    deferred = await outcome(controller_factory(), signed)
    assert taken == [True]
    sent = httpx_mock.get_requests()
    assert [request.headers["Access-Token"] for request in sent] == [
        "stale",
        "refreshed",
    ]
    usual = await outcome(
        controller_factory(), signed.extend(process=lambda value, params: value)
    )
    assert taken == [True]  # (the usual path: no shortcut asked)
    assert deferred == usual
    assert len(deferred[1]) == 12


def _renamed_ticks(nested_names: bool) -> list[dict[str, Any]]:
    """Ticks as a server that renames ``last_price`` (and, inside a venue,
    ``venue_name``) sends them."""
    items = ticks()
    for item in items:
        item["price_now"] = item.pop("last_price")
        if nested_names:
            item["venue"]["name_of_venue"] = item["venue"].pop("venue_name")
    return items


class Pair(Entity):
    """An entity whose fields a swap or a chain of renamings names."""

    id: str = ""
    a: Any = None
    b: Any = None


@pytest.mark.parametrize(
    ("mapping", "items"),
    [
        ({"a": "b", "b": "a"}, {"a": 1, "b": 2}),  # a swap
        ({"a": "b", "b": "c"}, {"b": 1, "c": 2}),  # a chain
    ],
)
async def test_a_swap_or_a_chain_of_names_is_read_as_usual(
    controller_factory: Any,
    httpx_mock: HTTPXMock,
    taken: list[bool],
    mapping: dict[str, str],
    items: dict[str, int],
) -> None:
    """With ``nested=True`` an object holding both names of a key is
    refused; under a swap or a chain each object holds both: the shortcut
    declines, and the usual path's error is raised."""
    body = [{"id": str(n), **items} for n in range(12)]
    renamed = RestEndpoint(url_prefix=API, path="/pairs", schema=[Pair]).use(
        RenameKeys(mapping, nested=True)
    )
    deferred, usual = await read_both_ways(
        controller_factory, httpx_mock, renamed, body
    )
    assert taken == [False]
    assert deferred == usual
    assert deferred[0] is ContentError


@pytest.mark.parametrize(
    ("nested", "body", "shortcut"),
    [
        # nested=True: each item's keys and what a field holds are renamed
        (True, _renamed_ticks(nested_names=True), True),
        # without it a list's items are left as they are: sent under the
        # client's names they are read from the bytes, under the wire's
        # the usual path reads them (and the entity keeps the extra key)
        (False, ticks(), True),
        (False, _renamed_ticks(nested_names=False), False),
        # a field holding both names of one key: the same error both ways
        (
            True,
            [
                {**item, "venue": {"venue_name": "a", "name_of_venue": "b"}}
                for item in _renamed_ticks(nested_names=False)
            ],
            False,
        ),
    ],
)
async def test_renamed_keys_are_read_from_the_bytes_as_they_are_read_as_usual(
    controller_factory: Any,
    httpx_mock: HTTPXMock,
    taken: list[bool],
    nested: bool,
    body: Any,
    shortcut: bool,
) -> None:
    """``RenameKeys`` records its renaming on an unparsed body: a list is
    read straight from the bytes, with the value, records and errors the
    usual parse and renaming give."""
    renamed = RestEndpoint(url_prefix=API, path="/ticks", schema=[Tick]).use(
        RenameKeys(
            {"last_price": "price_now", "venue_name": "name_of_venue"}, nested=nested
        )
    )
    assert renamed.defers_parse
    deferred, usual = await read_both_ways(
        controller_factory, httpx_mock, renamed, body
    )
    assert taken == [shortcut]
    assert deferred == usual
    if shortcut:
        values, _ = deferred
        assert values[1].last_price == Decimal("1.25")
        assert values[1].venue["venue_name"] == "v1"


@pytest.mark.parametrize(
    "case",
    [
        "extra key",
        "missing field",
        "another spelling",
        "not a list",
        "short list",
        "repeated key",
        "no primary key",
        "bad deserializer value",
        "nested collision",
        "byte order mark",
        "Infinity",
        "not JSON",
        "empty body",
        "items not objects",
    ],
)
async def test_anything_else_is_read_as_usual_with_the_same_result(
    controller_factory: Any, httpx_mock: HTTPXMock, taken: list[bool], case: str
) -> None:
    items = camel(ticks())
    body: bytes | None = None
    headers = {"content-type": "application/json"}
    if case == "extra key":
        items[3]["note"] = "kept apart"
    elif case == "missing field":
        del items[3]["venue"]
    elif case == "another spelling":
        items[3]["lastPRICE"] = items[3].pop("lastPrice")
    elif case == "not a list":
        items = {"results": items}
    elif case == "short list":
        items = items[:3]
    elif case == "repeated key":
        items[5]["id"] = "2"
    elif case == "no primary key":
        items[5]["id"] = None
    elif case == "bad deserializer value":
        items[5]["lastPrice"] = "twelve"
    elif case == "nested collision":
        items[5]["venue"] = {"openHours": 1, "open_hours": 2}
    elif case == "byte order mark":
        body = b"\xef\xbb\xbf" + json.dumps(items).encode()
    elif case == "Infinity":  # JSON msgspec refuses, json.loads reads
        items[5]["lastPrice"] = float("inf")
    elif case == "not JSON":
        body = b"<html>no</html>"
        headers = {"content-type": "text/html"}
    elif case == "empty body":
        body = b""
    elif case == "items not objects":
        items[5] = "tick"
    if body is None:
        body = json.dumps(items).encode()
    deferred, usual = await both_ways(
        controller_factory, httpx_mock, content=body, headers=headers
    )
    assert taken == [False]
    assert deferred == usual


async def test_a_null_in_a_converted_field_leaves_the_others_converted(
    controller_factory: Any, httpx_mock: HTTPXMock, taken: list[bool]
) -> None:
    # a null kept as it is, and every other value of its column still made
    # by the deserializer (before, the whole column stayed text)
    items = camel(ticks())
    items[3]["tradedAt"] = None
    items[4]["lastPrice"] = 7  # (a number among texts: converted alike)
    deferred, usual = await both_ways(controller_factory, httpx_mock, json=items)
    assert taken == [True]
    assert deferred == usual
    values, _ = deferred
    assert values[3].traded_at is None
    assert [type(each.traded_at) for each in values[:3] + values[4:]] == [
        datetime.datetime
    ] * 11
    assert [type(each.last_price) for each in values] == [Decimal] * 12
    assert values[4].last_price == Decimal(7)


async def test_records_kept_for_merging_are_the_items_as_read(
    controller_factory: Any, httpx_mock: HTTPXMock, taken: list[bool]
) -> None:
    """A record stored with extra keys is merged with the list's raw item
    (``Batch.data``): the shortcut files its items from the columns."""
    one = RestEndpoint(
        url_prefix=API, path="/ticks/:id", schema=Tick, middleware=[SnakeCaseKeys()]
    )
    single = {**camel(ticks()[2]), "lastPrice": "99.5", "exchangeNote": "kept"}
    results = []
    for endpoint in (DEFERRING, USUAL):
        controller = controller_factory()
        httpx_mock.add_response(url=f"{API}/ticks/2", json=single)
        httpx_mock.add_response(url=f"{API}/ticks", json=camel(ticks()))
        await controller.fetch(one, {"id": "2"})
        await controller.fetch(endpoint)
        record = controller.store.records[("Tick", "2")]
        results.append((record, dict(record.extra_fields)))
    assert taken == [True]
    assert results[0] == results[1]
    assert results[0][1] == {"exchange_note": "kept"}
    assert results[0][0].last_price == Decimal("2.25")  # the list's, merged over


def test_the_shortcut_files_the_columns_as_the_usual_path_does() -> None:
    """Read straight from the bytes (no casing here), a list is filed as the
    usual path files its parsed items: the same references and columns,
    each column with the class of all its values (so that counting their
    bytes groups no values), and, kept for merging, the items as the body
    had them, the columns a deserializer converted included."""
    body = ticks()
    plain = RestEndpoint(url_prefix=API, path="/ticks", schema=[Tick])
    shortcut, usual = Batch(), Batch()
    keys = Unparsed(plain, httpx.Response(200, json=body)).entities(Tick, shortcut)
    assert keys is not None
    assert keys == entities_by_column(Tick, json.loads(json.dumps(body)), usual)
    ((_, _, columns, kinds),) = shortcut.made.values()
    ((_, _, usual_columns, usual_kinds),) = usual.made.values()
    assert columns == usual_columns
    assert kinds == usual_kinds
    assert kinds is not None
    assert kinds[0] is str
    assert kinds[3] is dict
    assert [shortcut.data[key] for key in keys] == body
    # a column of values of two classes has none, both ways
    body[4]["venue"] = None
    mixed, usual = Batch(), Batch()
    again = Unparsed(plain, httpx.Response(200, json=body)).entities(Tick, mixed)
    assert again == entities_by_column(Tick, json.loads(json.dumps(body)), usual)
    ((_, _, _, mixed_kinds),) = mixed.made.values()
    ((_, _, _, usual_kinds),) = usual.made.values()
    assert mixed_kinds == usual_kinds
    assert mixed_kinds is not None
    assert mixed_kinds[3] is None


def test_a_decline_leaves_the_batch_untouched() -> None:
    items = camel(ticks())
    items[5]["id"] = "2"  # repeated: caught only after the records are filed
    response = httpx.Response(200, json=items)
    unparsed = Unparsed(DEFERRING, response)
    unparsed.rename_keys(lambda value: value, lambda key: key, lambda key: key)
    batch = Batch()
    assert unparsed.entities(Tick, batch) is None
    assert batch.records == {}
    assert batch.data == {}
    assert batch.complete == []


def test_renamings_that_do_not_come_back_decline() -> None:
    response = httpx.Response(200, json=ticks())
    unparsed = Unparsed(DEFERRING, response)
    unparsed.rename_keys(lambda value: value, str.upper, str.lower)
    assert unparsed.entities(Tick, Batch()) is None
