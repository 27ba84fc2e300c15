"""A live price feed over server-sent events, updating a stored list.

Entities are normalized into one store, so every result that holds a
record shows its newest version; here the server pushes each change
instead of being polled.

``controller.stream(live)`` reads ``GET /quotes/live`` as an event stream:
each event's JSON data is a Quote, merged into the store as it comes, so
the list fetched before the stream (``controller.get(quotes)``) shows the
pushed prices afterwards without another request. The demo feed hangs up
half way; restwire waits the ``retry:`` it asked for and resumes with
``Last-Event-ID``, and the feed's final 204 ends the loop.

To use it with your API: change ``Quote`` (its fields and ``pk``) and the
two paths; ``max_reconnects`` and ``retry`` set how hard it tries after a
drop, and the endpoint's read ``timeout`` is the longest silence allowed.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar

from restwire import Controller, Entity, RestEndpoint

from .tour import Tour

TITLE = "a live price feed (server-sent events) updating a stored list"


class Quote(Entity):
    pair: str = ""
    price: Decimal = Decimal(0)

    schema: ClassVar[dict[str, Any]] = {"price": Decimal}

    def pk(self) -> str:
        return self.pair


def endpoints(base_url: str) -> tuple[RestEndpoint[list[Quote]], RestEndpoint[Quote]]:
    """The listing, and the feed of its changes."""
    api = RestEndpoint(url_prefix=base_url)
    return (
        api.extend(path="/quotes/", schema=[Quote]),
        api.extend(path="/quotes/live", schema=Quote),
    )


def run(base_url: str, tour: Tour) -> Any:
    quotes, live = endpoints(base_url)
    with tour.client() as client, Controller(client) as controller:
        before = controller.get(quotes)
        tour.say("listed: " + ", ".join(f"{q.pair} {q.price}" for q in before))
        pushed = 0
        for quote in controller.stream(live):
            pushed += 1
            tour.say(f"pushed: {quote.pair} {quote.price}")
        sent = len(tour.lines)
        after = controller.get(quotes)  # the same list, from the store
        assert len(tour.lines) == sent, "the list came from the store"
        tour.say("listed: " + ", ".join(f"{q.pair} {q.price}" for q in after))
    return {
        "pushed": pushed,
        "before": {q.pair: str(q.price) for q in before},
        "after": {q.pair: str(q.price) for q in after},
    }
