"""A Ticker, polled every 2 seconds.

``product_id`` comes from the ``:productId`` path parameter, ``price`` is
read as a number and ``time`` as an instant; ``poll_frequency=2``
seconds.

Its default ``url_prefix`` is the public API this Ticker follows:
``python -m recipes run ticker --base-url https://api.exchange.coinbase.com``
polls the real thing.
"""

from __future__ import annotations

import datetime
from typing import Any, ClassVar

from restwire import Controller, Entity, RestEndpoint
from restwire.middlewares import FillPrimaryKey

from .tour import Tour

TITLE = "the Ticker, polled every poll_frequency=2 seconds"

PUBLIC_API = "https://api.exchange.coinbase.com"


class Ticker(Entity):
    product_id: str = ""
    trade_id: int = 0
    price: float = 0.0
    size: str = ""
    time: datetime.datetime | None = None
    bid: str = ""
    ask: str = ""
    volume: str = ""

    schema: ClassVar[dict[str, Any]] = {
        "price": float,
        "time": datetime.datetime.fromisoformat,
    }

    def pk(self) -> str:
        return self.product_id


def get_ticker(base_url: str = PUBLIC_API) -> RestEndpoint:
    return RestEndpoint(
        url_prefix=base_url,
        path="/products/:productId/ticker",
        schema=Ticker,
        poll_frequency=2,
    ).use(FillPrimaryKey("product_id", param="productId"))


def run(base_url: str, tour: Tour, polls: int = 3) -> Any:
    endpoint = get_ticker(base_url)
    frequency = 0.05 if tour.fast else None
    prices = []
    with tour.client(headers={"user-agent": "restwire-recipes"}) as client:
        controller = Controller(client)
        for number, ticker in enumerate(
            controller.poll(endpoint, {"productId": "BTC-USD"}, frequency=frequency),
            start=1,
        ):
            tour.say(
                f"poll {number}/{polls}: {ticker.product_id} {ticker.price} at {ticker.time}"
            )
            prices.append(ticker.price)
            if number == polls:
                break
    return {"prices": prices, "moved": len(set(prices)) > 1}
