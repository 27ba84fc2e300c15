"""RenameKeys: the seed's carrotsUsed example, both ways."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import ContentError, RequestBodyError, RestEndpoint
from restwire.middlewares import RenameKeys

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
rename = RenameKeys({"carrotsUsed": "carrotsUsedIsThisNameTooLong"})
endpoint = RestEndpoint(url_prefix=API, path="/rabbits/1", method="PUT").use(rename)


async def test_the_body_goes_out_under_the_wire_name_and_comes_back_short(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"id": 1, "carrotsUsedIsThisNameTooLong": 9})
    value = await controller.fetch(endpoint, body={"id": 1, "carrotsUsed": 8})
    assert value == {"id": 1, "carrotsUsed": 9}
    request = httpx_mock.get_request()
    assert request is not None
    assert json.loads(request.content) == {"id": 1, "carrotsUsedIsThisNameTooLong": 8}


async def test_bodies_and_values_without_the_keys_pass_unchanged(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=[1, 2])
    assert await controller.fetch(endpoint, body={"other": 1}) == [1, 2]
    request = httpx_mock.get_request()
    assert request is not None
    assert json.loads(request.content) == {"other": 1}


async def test_a_body_with_both_names_is_an_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    with pytest.raises(RequestBodyError, match="both 'carrotsUsed'"):
        await controller.fetch(
            endpoint, body={"carrotsUsed": 1, "carrotsUsedIsThisNameTooLong": 2}
        )
    assert httpx_mock.get_requests() == []


async def test_a_response_with_both_names_is_an_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"carrotsUsed": 1, "carrotsUsedIsThisNameTooLong": 2})
    with pytest.raises(ContentError, match="rabbits/1"):
        await controller.fetch(endpoint, body={})


def test_top_level_by_default_nested_on_request() -> None:
    from restwire.middlewares.rename_keys import _rename

    value = {
        "carrotsUsedIsThisNameTooLong": 1,
        "inner": [{"carrotsUsedIsThisNameTooLong": 2}],
    }
    names = {"carrotsUsedIsThisNameTooLong": "carrotsUsed"}
    assert _rename(value, names, nested=False) == {
        "carrotsUsed": 1,
        "inner": [{"carrotsUsedIsThisNameTooLong": 2}],
    }
    assert _rename(value, names, nested=True) == {
        "carrotsUsed": 1,
        "inner": [{"carrotsUsed": 2}],
    }


def test_two_names_for_one_wire_key_are_refused() -> None:
    with pytest.raises(ValueError, match="two client names"):
        RenameKeys({"a": "x", "b": "x"})
