"""A delete answered with a status body (``{"deleted": true}``, as real
servers answer) removes the record the call's params name; one whose
params and body name no record is an ``EntityError`` naming the call.
Under both drivers."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import EntityError, RestEndpoint, resource
from tests.pipeline.entities import Post

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


async def test_a_delete_with_a_status_body_removes_the_record_by_params(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    posts = resource(
        path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=API)
    )
    httpx_mock.add_response(method="GET", url=f"{API}/posts/1", json={"id": "1"})
    httpx_mock.add_response(method="GET", url=f"{API}/posts/", json=[{"id": "1"}])
    httpx_mock.add_response(method="DELETE", json={"deleted": True})
    assert await controller.get(posts.get, {"id": "1"}) == Post(id="1")
    assert await controller.get(posts.get_list) == [Post(id="1")]
    await controller.fetch(posts.delete, {"id": "1"})
    assert await controller.get(posts.get_list) == []
    assert ("Post", "1") not in controller.store.records


async def test_a_delete_that_names_no_record_anywhere_is_an_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    removal = RestEndpoint(
        url_prefix=API,
        path="/posts/current",
        method="DELETE",
        schema=resource(path="/posts/:id", schema=Post).delete.schema,
    )
    httpx_mock.add_response(json={"deleted": True})
    with pytest.raises(EntityError, match="no primary key") as caught:
        await controller.fetch(removal)
    assert f"DELETE {API}/posts/current" in str(caught.value)
