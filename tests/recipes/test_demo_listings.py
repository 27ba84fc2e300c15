"""Each pagination kind, and resources in envelopes, against the demo API's
real server (recipes/demo_listings.py), under both drivers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from recipes.demo_api import DemoApi
from restwire import Entity, RestEndpoint, paged, resource
from restwire.middlewares import BodyPagination
from tests.conftest import collect

pytestmark = pytest.mark.anyio

SEVEN = [f"cus_{n}" for n in range(1, 8)]


class Customer(Entity):
    id: str = ""
    name: str = ""


@pytest.fixture
def api() -> Iterator[DemoApi]:
    with DemoApi() as demo:  # its own: these tests create and delete customers
        yield demo


def customers(api: DemoApi, path: str, kind: BodyPagination) -> Any:
    return RestEndpoint(url_prefix=api.origin, path=path, schema=paged(Customer)).use(
        kind
    )


async def ids(controller: Any, endpoint: Any, params: Any = None) -> list[str]:
    found = await collect(controller.paginate(endpoint, params, items=True))
    return [customer.id for customer in found]


@pytest.mark.parametrize(
    ("path", "kind", "params", "pages"),
    [
        (
            "/stripe/customers",
            BodyPagination.cursor(
                results="data",
                more="has_more",
                cursor_from="id",
                param="starting_after",
            ),
            {"limit": 3},
            3,
        ),
        ("/drf/customers/", BodyPagination(), {"limit": 3}, 3),
        ("/drf/customers/", BodyPagination.offsets(count="count"), {"limit": 9}, 2),
        (
            "/fastapi/customers",
            BodyPagination.pages(results="items", page="page", pages="pages"),
            {"size": 3},
            3,
        ),
        ("/fastapi/customers", BodyPagination.pages(size="size"), {"size": 4}, 2),
        (
            "/jsonapi/customers",
            BodyPagination(results="data", next="links.next"),
            None,
            3,
        ),
        (
            "/json-server/customers",
            BodyPagination.offsets(results=None, offset="_start"),
            {"_limit": 2},
            4,
        ),
    ],
)
async def test_each_kind_lists_every_customer_once(
    controller: Any,
    api: DemoApi,
    path: str,
    kind: BodyPagination,
    params: Any,
    pages: int,
) -> None:
    endpoint = customers(api, path, kind)
    assert await ids(controller, endpoint, params) == SEVEN
    assert len([r for r in api.requests if r.path == path]) == pages


async def test_a_stripe_resource_lists_creates_and_deletes_in_its_envelope(
    controller: Any, api: DemoApi
) -> None:
    stripe = resource(
        path="/stripe/customers/:id",
        schema=Customer,
        endpoint=RestEndpoint(url_prefix=api.origin),
        pagination=BodyPagination.cursor(),
    )
    assert await ids(controller, stripe.get_list, {"limit": 2}) == SEVEN
    page = await controller.fetch(stripe.get_list)  # Stripe's default limit: 10
    assert (page["object"], page["has_more"], len(page["results"])) == (
        "list",
        False,
        7,
    )
    created = await controller.fetch(stripe.create, body={"name": "New"})
    assert created.id == "cus_8"
    await controller.fetch(stripe.delete, {"id": "cus_1"})
    served = len(api.requests)
    page = await controller.get(stripe.get_list)  # the store's
    assert len(api.requests) == served
    assert [customer.id for customer in page["results"]] == [*SEVEN[1:], "cus_8"]
    assert await ids(controller, stripe.get_list, {"limit": 3}) == [*SEVEN[1:], "cus_8"]


async def test_a_fastapi_pagination_resource_pages_through_its_items(
    controller: Any, api: DemoApi
) -> None:
    listed = resource(
        path="/fastapi/customers/:id",
        schema=Customer,
        endpoint=RestEndpoint(url_prefix=api.origin),
        pagination=BodyPagination.pages(results="items", pages="pages"),
    )
    pages = await collect(controller.paginate(listed.get_list, {"size": 5}))
    assert [[c.id for c in page["results"]] for page in pages] == [SEVEN[:5], SEVEN[5:]]
    assert [(page["page"], page["pages"], page["total"]) for page in pages] == [
        (1, 2, 7),
        (2, 2, 7),
    ]
