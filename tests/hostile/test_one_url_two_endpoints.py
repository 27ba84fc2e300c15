"""One URL read through two endpoints of different shape (a raw dict, a
typed entity) gives each its own value: one after the other, from the
store, and in flight at once."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import AsyncController, RestEndpoint
from restwire.middlewares import SnakeCaseKeys
from tests.pipeline.entities import Post

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


raw = RestEndpoint(url_prefix=API, path="/posts/:id")
typed = RestEndpoint(url_prefix=API, path="/posts/:id", schema=Post).use(
    SnakeCaseKeys()
)


async def test_one_url_through_two_endpoints_gives_each_its_own_value(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"id": "1", "title": "T"}, is_reusable=True)
    assert await controller.fetch(raw, {"id": "1"}) == {"id": "1", "title": "T"}
    assert await controller.get(typed, {"id": "1"}) == Post(id="1", title="T")
    assert await controller.get(raw, {"id": "1"}) == {"id": "1", "title": "T"}


async def test_two_endpoints_in_flight_at_once_each_get_their_own_value(
    httpx_mock: HTTPXMock,
) -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(0.02)
        return httpx.Response(200, json={"id": "1", "title": "T"})

    httpx_mock.add_callback(slow, is_reusable=True)
    values: dict[str, Any] = {}
    async with AsyncController() as controller:

        async def read(name: str, endpoint: RestEndpoint) -> None:
            values[name] = await controller.fetch(endpoint, {"id": "1"})

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read, "raw", raw)
            tasks.start_soon(read, "typed", typed)
    assert values == {
        "raw": {"id": "1", "title": "T"},
        "typed": Post(id="1", title="T"),
    }
