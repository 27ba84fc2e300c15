"""Pagination and error reasons against a real Datasette (its JSON API
over SQLite: ``tests.datasette_server``).

Datasette pages a table by a next URL in the body (``next_url``), by a
token sent back as ``_next`` (``next``), and, for ``?_shape=array``, by a
``Link`` header; restwire's two pagination middlewares follow each to the
last row. Its errors (``{"ok": false, "error": "Table not found"}``) end
the status error's message. Skipped, saying so, when Datasette is not
installed, or cannot run (it needs httpx itself: the httpx2-only suite).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import pytest

from restwire import BadRequestError, Entity, NotFoundError, RestEndpoint, paged
from restwire.middlewares import BodyPagination, LinkPagination
from tests import HTTPX
from tests.conftest import collect
from tests.datasette_server import Datasette

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        importlib.util.find_spec("datasette") is None,
        reason="needs Datasette (pip install datasette)",
    ),
    pytest.mark.skipif(not HTTPX, reason="Datasette needs httpx itself"),
]


class Customer(Entity):
    id: str = ""
    name: str = ""


CUSTOMERS = [{"id": f"cus_{n}", "name": f"Customer {n}"} for n in range(1, 8)]


@pytest.fixture(scope="module")
def origin() -> Iterator[str]:
    with Datasette({"customers": CUSTOMERS}) as datasette:
        yield datasette.origin


@pytest.mark.parametrize(
    ("shape", "pagination"),
    [
        ("objects", BodyPagination(results="rows", next="next_url")),
        ("objects", BodyPagination(results="rows", next="next", param="_next")),
        ("array", LinkPagination()),
    ],
    ids=["next-url", "next-token", "link-header"],
)
async def test_each_datasette_paging_is_followed_to_the_last_row(
    controller: Any, origin: str, shape: str, pagination: Any
) -> None:
    table = RestEndpoint(
        url_prefix=origin, path="/shop/customers.json", schema=paged(Customer)
    ).use(pagination)
    pages = await collect(controller.paginate(table, {"_shape": shape, "_size": 3}))
    assert [len(page["results"]) for page in pages] == [3, 3, 1]
    found = [customer for page in pages for customer in page["results"]]
    assert [(each.id, each.name) for each in found] == [
        (row["id"], row["name"]) for row in CUSTOMERS
    ]


async def test_datasette_errors_end_the_message(controller: Any, origin: str) -> None:
    with pytest.raises(NotFoundError) as missing:
        await controller.fetch(
            RestEndpoint(url_prefix=origin, path="/shop/nothere.json")
        )
    assert str(missing.value) == (
        f"GET {origin}/shop/nothere.json: 404 Not Found: Table not found"
    )
    table = RestEndpoint(url_prefix=origin, path="/shop/customers.json")
    with pytest.raises(BadRequestError) as invalid:
        await controller.fetch(table, {"_size": "many"})
    assert str(invalid.value).endswith(
        ": 400 Bad Request: _size must be a positive integer"
    )
    assert invalid.value.data["ok"] is False
