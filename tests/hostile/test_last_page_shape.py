"""Under ``paginate``, every page has the same shape, the last one (with
no ``Link`` header) too. Under both drivers."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import RestEndpoint
from restwire.middlewares import LinkPagination
from tests.conftest import collect

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


async def test_every_page_has_the_same_shape_the_last_one_too(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """Pages are objects (``{"items": [...]}``); only the last one has no
    Link header, and it must come back wrapped like the others."""
    httpx_mock.add_response(
        url=f"{API}/items",
        json={"items": [1, 2]},
        headers={"link": f'<{API}/items?page=2>; rel="next"'},
    )
    httpx_mock.add_response(url=f"{API}/items?page=2", json={"items": [3]})
    listing = RestEndpoint(url_prefix=API, path="/items").use(LinkPagination())
    pages = await collect(controller.paginate(listing))
    assert [page["results"] for page in pages] == [{"items": [1, 2]}, {"items": [3]}]
    assert [page["link"] for page in pages] == [
        f'<{API}/items?page=2>; rel="next"',
        None,
    ]
