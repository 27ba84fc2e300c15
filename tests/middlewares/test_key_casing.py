"""Key casing: the word rules, the walk, collisions, depth, both middlewares."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import Form, RestEndpoint, RestwireError
from restwire.middlewares import CamelCaseKeys, KeyCollision, SnakeCaseKeys, key_casing
from restwire.middlewares.key_casing import (
    _BUILT_ROWS,
    _ROWS,
    CACHE_SIZE,
    STYLES,
    _deep_convert,
    convert_keys,
    to_camel,
    to_snake,
)

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


@pytest.mark.parametrize(
    ("snake", "camel"),
    [
        ("current_viewers", "currentViewers"),
        ("user_id", "userId"),
        ("exchange_pair", "exchangePair"),
        ("updated_at", "updatedAt"),
        ("carrots_used_is_this_name_too_long", "carrotsUsedIsThisNameTooLong"),
        ("x_coordinate", "xCoordinate"),
        ("point_x", "pointX"),
        ("title", "title"),
        ("_private", "_private"),
        ("__dunder__", "__dunder__"),
        ("trailing_", "trailing_"),
        ("_lead_word", "_leadWord"),
        ("line_1", "line_1"),
        ("address_line_2_extra", "addressLine_2Extra"),
        ("", ""),
    ],
)
def test_snake_to_camel(snake: str, camel: str) -> None:
    assert to_camel(snake) == camel


@pytest.mark.parametrize(
    ("camel", "snake"),
    [
        ("currentViewers", "current_viewers"),
        ("userId", "user_id"),
        ("userID", "user_id"),
        ("HTTPResponse", "http_response"),
        ("getHTTPResponseCode", "get_http_response_code"),
        ("getHTTP2Response", "get_http2_response"),
        ("ID", "id"),
        ("version2Beta", "version2_beta"),
        ("_privateThing", "_private_thing"),
        ("already_snake", "already_snake"),
        ("ABC", "abc"),
    ],
)
def test_camel_to_snake(camel: str, snake: str) -> None:
    assert to_snake(camel) == snake


@pytest.mark.parametrize(
    "key",
    [
        "current_viewers",
        "a",
        "user_id",
        "x_coordinate",
        "point_x",
        "_private",
        "__dunder__",
        "line_1",
        "the_quick_brown_fox_jumps",
        "a_bb_c",
    ],
)
def test_lowercase_snake_keys_round_trip(key: str) -> None:
    assert to_snake(to_camel(key)) == key


def test_two_one_letter_words_in_a_row_read_as_an_acronym() -> None:
    assert to_camel("a_b_c") == "aBC"
    assert to_snake("aBC") == "a_bc"  # documented: not a canonical key


def test_the_walk_reaches_every_key_and_touches_no_value() -> None:
    value = {
        "user_id": 1,
        "nested_list": [{"inner_key": "snake_value"}, ["not_a_key"], 3],
        "a_tuple": ({"deep_key": None},),
        7: {"int_key_parent": True},
        (1, 2): "tuple key",
    }
    assert convert_keys(value, to_camel) == {
        "userId": 1,
        "nestedList": [{"innerKey": "snake_value"}, ["not_a_key"], 3],
        "aTuple": ({"deepKey": None},),
        7: {"intKeyParent": True},
        (1, 2): "tuple key",
    }


def test_colliding_keys_raise_naming_both() -> None:
    with pytest.raises(KeyCollision) as caught:
        convert_keys({"user_id": 1, "userId": 2}, to_camel)
    assert caught.value.keys == ("user_id", "userId")
    assert "'user_id' and 'userId' both become 'userId'" in str(caught.value)


def test_ten_thousand_levels_convert_without_recursion_error() -> None:
    deep: Any = {"leaf_key": 1}
    for _ in range(10_000):
        deep = {"next_level": [deep]}
    out = convert_keys(deep, to_camel)
    for _ in range(10_000):
        out = out["nextLevel"][0]
    assert out == {"leafKey": 1}


def test_deep_collisions_are_still_found() -> None:
    deep: Any = {"a_b": 1, "aB": 2}
    for _ in range(5_000):
        deep = [deep]
    with pytest.raises(KeyCollision):
        convert_keys(deep, to_camel)


def test_the_cache_is_bounded() -> None:
    roundtrip_camel = STYLES["roundtrip"][0]  # (to_camel's cached conversion)
    for index in range(CACHE_SIZE + 10):
        assert to_camel(f"key_{index}_x") == f"key_{index}X"
    assert len(roundtrip_camel.cache) <= CACHE_SIZE  # type: ignore[attr-defined]
    assert len(roundtrip_camel.cache) > 0  # type: ignore[attr-defined]


async def test_camel_case_keys_the_seed_direction(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"current_viewers": 3, "game": "go"})
    endpoint = RestEndpoint(url_prefix=API, path="/streams/", method="POST").use(
        CamelCaseKeys()
    )
    value = await controller.fetch(
        endpoint, body={"currentViewers": 2, "userName": "sky"}
    )
    assert value == {"currentViewers": 3, "game": "go"}
    request = httpx_mock.get_request()
    assert request is not None
    assert json.loads(request.content) == {"current_viewers": 2, "user_name": "sky"}


async def test_snake_case_keys_the_python_direction(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=[{"exchangePair": "BTC-USD", "updatedAt": "x"}])
    endpoint = RestEndpoint(url_prefix=API, path="/prices/", method="PUT").use(
        SnakeCaseKeys()
    )
    value = await controller.fetch(endpoint, body={"exchange_pair": "BTC-USD"})
    assert value == [{"exchange_pair": "BTC-USD", "updated_at": "x"}]
    request = httpx_mock.get_request()
    assert request is not None
    assert json.loads(request.content) == {"exchangePair": "BTC-USD"}


async def test_no_body_no_change(controller: Any, httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(json={"a_b": 1})
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(CamelCaseKeys())
    assert await controller.fetch(endpoint) == {"aB": 1}
    request = httpx_mock.get_request()
    assert request is not None
    assert request.content == b""


async def test_a_colliding_response_is_a_key_collision_naming_the_url(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"user_id": 1, "userId": 2})
    endpoint = RestEndpoint(url_prefix=API, path="/users/1").use(CamelCaseKeys())
    with pytest.raises(KeyCollision) as caught:
        await controller.fetch(endpoint)
    assert str(caught.value).startswith(f"GET {API}/users/1: the response: ")
    assert "'user_id' and 'userId'" in str(caught.value)
    assert caught.value.keys == ("user_id", "userId")


async def test_a_colliding_body_is_a_key_collision_before_sending(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/users/", method="POST").use(
        CamelCaseKeys()
    )
    with pytest.raises(KeyCollision, match="both become 'user_id'") as caught:
        await controller.fetch(endpoint, body={"userId": 1, "user_id": 2})
    assert str(caught.value).startswith(f"POST {API}/users/: the request body: ")
    assert isinstance(caught.value, RestwireError)
    assert httpx_mock.get_requests() == []


async def test_a_form_body_is_key_cased_too(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    endpoint = RestEndpoint(url_prefix=API, path="/users/", method="POST").use(
        CamelCaseKeys()
    )
    await controller.fetch(endpoint, body=Form({"firstName": "Ann", "lastName": "Lee"}))
    request = httpx_mock.get_request()
    assert request is not None
    assert request.content == b"first_name=Ann&last_name=Lee"


# -- lists of same-shaped objects, converted as rows ------------------------------


def rows(count: int = _ROWS) -> list[Any]:
    return [
        {
            "userId": index,
            "displayName": f"user {index}",
            "lastSeen": None,
            "homeTown": {"cityName": "Oslo", "zipCodes": [{"zipCode": "0150"}]},
            "petNames": ["Rex"] if index % 2 else [],
        }
        for index in range(count)
    ]


@pytest.mark.parametrize(
    "value",
    [
        rows(),
        rows(50),
        [{"aB": index, "cD": str(index)} for index in range(20)],  # flat rows
        [*rows(), {"userId": 99}],  # one object of another shape
        [{"aB": 1, "cD": 2}] * 4 + [{"cD": 2, "aB": 1}] * 4,  # keys in another order
        [*rows(), "not an object"],
        [{1: "int key", "aB": 2}] * 10,
        # from _BUILT_ROWS rows on, each row is built by a function made for
        # its keys: nested, flat, keys that look like code, int keys
        rows(_BUILT_ROWS),
        [{"aB": index, "cD": str(index)} for index in range(_BUILT_ROWS + 1)],
        [{"it's": 1, 'say "x"': 2, "a\\b\n": 3, "}]); import os #": 4}] * _BUILT_ROWS,
        [{1: "int key", "aB": 2}] * _BUILT_ROWS,
        [{"aB": 1, "cD": 2}] * _BUILT_ROWS + [{"cD": 2, "aB": 1}],
    ],
)
def test_a_list_of_objects_converts_as_object_by_object(value: Any) -> None:
    """The rows path against the explicit-stack walk, an independent
    implementation of the same rule."""
    converted = convert_keys(value, to_snake)
    expected = _deep_convert(value, to_snake)
    assert converted == expected
    assert json.dumps(converted, sort_keys=False) == json.dumps(expected)
    assert convert_keys(converted, to_camel) == value


def test_row_builders_kept_are_bounded_and_reused() -> None:
    key_casing._builders.clear()
    table = [{"aB": index, "cD": index} for index in range(_BUILT_ROWS)]
    convert_keys(table, to_snake)
    ((shape, build),) = key_casing._builders.items()
    built: list[Any] = []

    def counted(row: dict[Any, Any]) -> Any:
        built.append(row)
        return build(row)

    key_casing._builders[shape] = counted
    short = table[:_ROWS]  # too short to make a builder for, but one is kept
    assert convert_keys(short, to_snake) == _deep_convert(short, to_snake)
    assert built == short
    for number in range(key_casing._BUILDERS_KEPT + 5):
        convert_keys([{f"k{number}X": 1}] * _BUILT_ROWS, to_snake)
    assert 0 < len(key_casing._builders) <= key_casing._BUILDERS_KEPT


def test_rows_are_new_objects_not_the_parsed_ones() -> None:
    value = rows()
    converted = convert_keys(value, to_snake)
    assert all(new is not old for new, old in zip(converted, value, strict=True))
    assert value[0]["homeTown"]["zipCodes"][0] == {"zipCode": "0150"}
    assert converted[0]["home_town"]["zip_codes"][0] == {"zip_code": "0150"}


def test_a_collision_in_rows_is_named_as_anywhere() -> None:
    value = [{"userId": index, "user_id": index} for index in range(_ROWS * 2)]
    with pytest.raises(KeyCollision, match="userId"):
        convert_keys(value, to_snake)


# -- params=True: the query's names too ------------------------------------------------


async def test_params_true_renames_query_names_to_the_wires_casing(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """``{"author_name": "x"}`` reaches a camelCase API as ``authorName``;
    values (even ones that look like names) and path params are untouched,
    and a value's encoding is kept byte for byte."""
    httpx_mock.add_response(json=[])
    endpoint = RestEndpoint(url_prefix=API, path="/users/:user_id/posts").use(
        SnakeCaseKeys(params=True)
    )
    await controller.fetch(
        endpoint, {"user_id": 7, "author_name": "first_name", "q": "a b&c"}
    )
    request = httpx_mock.get_request()
    assert request is not None
    assert request.url.path == "/users/7/posts"
    assert request.url.params.multi_items() == [
        ("authorName", "first_name"),
        ("q", "a b&c"),
    ]


async def test_params_are_left_alone_by_default(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=[])
    endpoint = RestEndpoint(url_prefix=API, path="/posts").use(SnakeCaseKeys())
    await controller.fetch(endpoint, {"author_name": "x"})
    request = httpx_mock.get_request()
    assert request is not None
    assert request.url.params.multi_items() == [("author_name", "x")]


async def test_params_true_keeps_repeated_names_and_refuses_two_that_become_one(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=[])
    endpoint = RestEndpoint(url_prefix=API, path="/posts").use(
        SnakeCaseKeys(params=True)
    )
    await controller.fetch(endpoint, [("tag_name", "a"), ("tag_name", "b")])
    request = httpx_mock.get_request()
    assert request is not None
    assert request.url.params.multi_items() == [("tagName", "a"), ("tagName", "b")]
    with pytest.raises(KeyCollision, match="the query: keys 'tagName' and 'tag_name'"):
        await controller.fetch(endpoint, {"tag_name": "a", "tagName": "b"})


async def test_params_true_results_are_stored_and_shared_under_the_wire_url(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A ``get`` after a fetch is answered from the store: the call is kept
    under the URL it sent."""
    httpx_mock.add_response(json=[{"postId": 1}])
    endpoint = RestEndpoint(url_prefix=API, path="/posts").use(
        SnakeCaseKeys(params=True)
    )
    first = await controller.fetch(endpoint, {"author_name": "x"})
    assert first == [{"post_id": 1}]
    assert await controller.get(endpoint, {"author_name": "x"}) == first
    assert len(httpx_mock.get_requests()) == 1
    assert repr(SnakeCaseKeys(params=True)) == "SnakeCaseKeys(params=True)"


class _ReverseMap:
    """A converter of its own that keeps a ``cache`` of another kind: each
    result mapped back to the key it came from."""

    def __init__(self) -> None:
        self.cache: dict[str, str] = {}

    def __call__(self, key: str) -> str:
        out = to_camel(key)
        self.cache[out] = key
        return out


@pytest.mark.parametrize("rows", [1, 3, 8])
def test_a_converter_of_your_own_is_called_whatever_its_attributes(rows: int) -> None:
    convert = _ReverseMap()
    convert("user_name")  # its cache now maps "userName" back to "user_name"
    out = convert_keys([{"userName": index} for index in range(rows)], convert)
    assert {key for row in out for key in row} == {"userName"}
