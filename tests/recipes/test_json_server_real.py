"""A resource and both pagination middlewares against a real json-server
(typicode's fake REST backend, 0.17: ``tests.json_server``).

json-server answers as many small Express APIs do: a create's 201 with
the record and its new numeric ``id``, ``PUT`` replacing and ``PATCH``
merging, a delete's ``200 {}``, a missing record's ``404 {}``, and lists
paged by ``_page``/``_limit`` (a ``Link`` header with ``first``, ``next``,
``last``) or ``_start``/``_limit``, the total in ``X-Total-Count``. The
demo API imitates the last (``/json-server/customers``); this checks the
imitation's clients against the real thing. Skipped, saying so, when node
or the pinned json-server is missing (``.ci/install-node-tools``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from recipes.demo_api import DemoApi
from restwire import Entity, NotFoundError, RestEndpoint, paged, resource
from restwire.middlewares import BodyPagination, LinkPagination
from tests.conftest import collect
from tests.json_server import JsonServer, missing

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(missing() is not None, reason=str(missing())),
]


class Post(Entity):
    id: int = 0
    title: str = ""
    author: str = ""


class Customer(Entity):
    id: str = ""
    name: str = ""


CUSTOMERS = [{"id": f"cus_{n}", "name": f"Customer {n}"} for n in range(1, 8)]


@pytest.fixture
def origin() -> Iterator[str]:
    """A fresh json-server (it writes each change to its file) per test."""
    database = {"posts": [{"id": 1, "title": "one", "author": "ada"}]}
    with JsonServer({**database, "customers": CUSTOMERS}) as server:
        yield server.origin


async def test_a_resource_creates_reads_updates_and_deletes(
    controller: Any, origin: str
) -> None:
    posts = resource(
        path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=origin)
    )
    assert await controller.fetch(posts.get_list) == [
        Post(id=1, title="one", author="ada")
    ]

    made = await controller.fetch(posts.create, body={"title": "two", "author": "ada"})
    assert made == Post(id=2, title="two", author="ada")  # json-server's next id
    # (someone else adds a post: the list read next is the store's, which
    # took in this caller's create, not a new request)
    httpx.post(f"{origin}/posts", json={"title": "three", "author": "bob"})
    stored = await controller.get(posts.get_list)
    assert [post.id for post in stored] == [1, 2]

    replaced = await controller.fetch(
        posts.update, {"id": 2}, body={"title": "deux", "author": "ada"}
    )
    assert replaced == Post(id=2, title="deux", author="ada")
    merged = await controller.fetch(
        posts.partial_update, {"id": 2}, body={"author": "grace"}
    )
    assert merged == Post(id=2, title="deux", author="grace")
    assert (await controller.get(posts.get, {"id": 2})) == merged

    await controller.fetch(posts.delete, {"id": 2})  # json-server: 200 {}
    assert [post.id for post in await controller.get(posts.get_list)] == [1]
    with pytest.raises(NotFoundError) as gone:
        await controller.fetch(posts.get, {"id": 2})
    assert str(gone.value) == f"GET {origin}/posts/2: 404 Not Found"
    assert [post["id"] for post in httpx.get(f"{origin}/posts").json()] == [1, 3]


async def test_link_header_pages_are_followed_with_their_total(
    controller: Any, origin: str
) -> None:
    listing = RestEndpoint(
        url_prefix=origin, path="/customers", schema=paged(Customer)
    ).use(LinkPagination())
    pages = await collect(controller.paginate(listing, {"_page": 1, "_limit": 3}))
    assert [len(page["results"]) for page in pages] == [3, 3, 1]
    assert {page["total"] for page in pages} == {7}  # X-Total-Count
    assert sorted(pages[0]["links"]) == ["first", "last", "next"]
    found = await collect(
        controller.paginate(listing, {"_page": 1, "_limit": 3}, items=True)
    )
    assert [customer.id for customer in found] == [f"cus_{n}" for n in range(1, 8)]


async def test_start_and_limit_offsets_stop_at_the_total(
    controller: Any, origin: str
) -> None:
    listing = RestEndpoint(
        url_prefix=origin, path="/customers", schema=paged(Customer)
    ).use(BodyPagination.offsets(results=None, offset="_start"))
    pages = await collect(controller.paginate(listing, {"_limit": 3}))
    # (stopped by X-Total-Count: no empty page asked for)
    assert [len(page["results"]) for page in pages] == [3, 3, 1]
    found = [customer for page in pages for customer in page["results"]]
    assert [customer.id for customer in found] == [f"cus_{n}" for n in range(1, 8)]


async def test_the_demo_api_imitates_json_server_start_and_limit(
    controller: Any, origin: str
) -> None:
    """The demo's ``/json-server/customers`` answers as json-server does to
    ``_start``/``_limit``: a bare list of the rows, the total in
    ``X-Total-Count``."""
    params = {"_start": 2, "_limit": 2}
    with DemoApi() as demo:
        imitation = await controller.fetch_response(
            RestEndpoint(url_prefix=demo.origin, path="/json-server/customers"), params
        )
    real = await controller.fetch_response(
        RestEndpoint(url_prefix=origin, path="/customers"), params
    )
    for response in (imitation, real):
        rows = response.json()
        assert isinstance(rows, list)
        assert len(rows) == 2
        assert set(rows[0]) >= {"id", "name"}
        assert response.headers["x-total-count"].isdigit()
    assert real.headers["x-total-count"] == "7"
