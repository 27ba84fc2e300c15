"""Pagination in the body: a cursor, and offset paging with no next at all.

Seed: section 2.3, rule 6 (pagination), for APIs that say where the next
page is in the body rather than in a ``Link`` header.

- A cursor feed (``{"items": [...], "next_cursor": "e3"}``):
  ``BodyPagination(results="items", next="next_cursor", param="cursor")``
  sends the cursor back as ``?cursor=e3`` until it is null. For a next URL
  in the body (Django REST framework's ``"next"``), ``BodyPagination()``
  alone.
- Offset paging (``?offset=0&limit=3`` answering ``{"total", "items"}``),
  which names no next page: a three-line middleware, ``NextOffset``, works
  the next offset out from ``total``, and ``BodyPagination`` follows it.

To use it: name your API's fields in ``BodyPagination`` and give the schema
as ``paged(YourEntity)``; ``controller.paginate(..., items=True)`` is then
typed by your entity.
"""

from __future__ import annotations

from typing import Any

from restwire import Controller, Entity, Exchange, Page, RestEndpoint, paged
from restwire.middlewares import BodyPagination

from .tour import Tour

TITLE = "follow a cursor, and offsets, named in the body"
SEED = "section 2.3, rule 6: pagination (the next page in the body)"


class Event(Entity):
    id: str = ""
    kind: str = ""


class Product(Entity):
    id: str = ""
    name: str = ""


class NextOffset:
    """Adds ``next`` (the next page's offset) to an offset-paged body that
    has ``total``; none after the last page."""

    sends_credentials = False  # changes no credential (see restwire.Stack)

    def on_response(self, exchange: Exchange) -> None:
        body, query = exchange.value, exchange.url.params  # this page's URL
        following = int(query.get("offset", 0)) + int(query["limit"])
        if isinstance(body, dict) and following < int(body.get("total", 0)):
            exchange.value = {**body, "next": following}


def feed(base_url: str) -> RestEndpoint[Page[Event]]:
    return RestEndpoint(url_prefix=base_url, path="/feed/", schema=paged(Event)).use(
        BodyPagination(results="items", next="next_cursor", param="cursor")
    )


def catalog(base_url: str) -> RestEndpoint[Page[Product]]:
    # BodyPagination runs last on the response (it is outermost), after
    # NextOffset has added "next".
    return RestEndpoint(
        url_prefix=base_url, path="/catalog/", schema=paged(Product)
    ).use(BodyPagination(results="items", param="offset"), NextOffset())


def run(base_url: str, tour: Tour) -> Any:
    with tour.client() as client:
        controller = Controller(client)
        events = [event.id for event in controller.paginate(feed(base_url), items=True)]
        tour.say(f"feed, by cursor: {events}")
        products = controller.paginate(catalog(base_url), {"limit": 3}, items=True)
        return {"events": events, "products": [product.name for product in products]}
