"""Pagination in the body: a cursor, offset paging, and Stripe's list.

For APIs that say where the next page is in the body rather than in a
``Link`` header.

- A cursor feed (``{"items": [...], "next_cursor": "e3"}``):
  ``BodyPagination(results="items", next="next_cursor", param="cursor")``
  sends the cursor back as ``?cursor=e3`` until it is null. For a next URL
  in the body (Django REST framework's ``"next"``), ``BodyPagination()``
  alone.
- Offset paging (``?offset=0&limit=3`` answering ``{"total", "items"}``),
  which names no next page: ``BodyPagination.offsets(results="items")``
  works the next offset out (this page's offset plus its items) and stops
  at the ``total``.
- A resource whose list comes in Stripe's envelope (``{"object": "list",
  "data", "has_more"}``): ``resource(..., pagination=BodyPagination.cursor())``
  sends the last customer's ``id`` back as ``starting_after``.

To use it: name your API's fields in ``BodyPagination`` and give the schema
as ``paged(YourEntity)``; ``controller.paginate(..., items=True)`` is then
typed by your entity.
"""

from __future__ import annotations

from typing import Any

from restwire import Controller, Entity, Page, RestEndpoint, paged, resource
from restwire.middlewares import BodyPagination

from .tour import Tour

TITLE = "follow a cursor, offsets, and Stripe's list, from the body"


class Event(Entity):
    id: str = ""
    kind: str = ""


class Product(Entity):
    id: str = ""
    name: str = ""


class Customer(Entity):
    id: str = ""
    name: str = ""


def feed(base_url: str) -> RestEndpoint[Page[Event]]:
    return RestEndpoint(url_prefix=base_url, path="/feed/", schema=paged(Event)).use(
        BodyPagination(results="items", next="next_cursor", param="cursor")
    )


def catalog(base_url: str) -> RestEndpoint[Page[Product]]:
    return RestEndpoint(
        url_prefix=base_url, path="/catalog/", schema=paged(Product)
    ).use(BodyPagination.offsets(results="items", offset="offset"))


def stripe_customers(base_url: str) -> RestEndpoint[Page[Customer]]:
    customers = resource(
        path="/stripe/customers/:id",
        schema=Customer,
        endpoint=RestEndpoint(url_prefix=base_url),
        pagination=BodyPagination.cursor(
            results="data", more="has_more", cursor_from="id", param="starting_after"
        ),
    )
    return customers.get_list


def run(base_url: str, tour: Tour) -> Any:
    with tour.client() as client:
        controller = Controller(client)
        events = [event.id for event in controller.paginate(feed(base_url), items=True)]
        tour.say(f"feed, by cursor: {events}")
        products = controller.paginate(catalog(base_url), {"limit": 3}, items=True)
        names = [product.name for product in products]
        tour.say(f"catalog, by offset: {names}")
        customers = controller.paginate(
            stripe_customers(base_url), {"limit": 3}, items=True
        )
        ids = [customer.id for customer in customers]
        tour.say(f"Stripe's customers, by starting_after: {ids}")
        return {"events": events, "products": names, "customers": ids}
