"""An ExchangePrice: a ``Decimal`` price and an instant ``updated_at``.

Its primary key is ``exchange_pair``; the price is an arbitrary-precision
decimal sent as a string, ``updated_at`` an ISO 8601 string; the entity's
``schema`` of deserializers turns each into its Python type.

The wire is camelCase; ``SnakeCaseKeys`` gives Python names. To use it:
change ``base_url``; any callable can be a deserializer.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any, ClassVar

from restwire import Controller, Entity, RestEndpoint
from restwire.middlewares import SnakeCaseKeys

from .tour import Tour

TITLE = "ExchangePrice: Decimal and datetime, never wire strings"


class ExchangePrice(Entity):
    exchange_pair: str = ""
    updated_at: datetime.datetime | None = None
    price: Decimal = Decimal(0)

    schema: ClassVar[dict[str, Any]] = {
        "updated_at": datetime.datetime.fromisoformat,
        "price": Decimal,
    }

    def pk(self) -> str:
        return self.exchange_pair


def get_price(base_url: str) -> RestEndpoint:
    return RestEndpoint(
        url_prefix=base_url, path="/price/:exchange_pair", schema=ExchangePrice
    ).use(SnakeCaseKeys())


def run(base_url: str, tour: Tour) -> Any:
    with tour.client() as client:
        price = Controller(client).fetch(
            get_price(base_url), {"exchange_pair": "BTC-USD"}
        )
        assert isinstance(price.price, Decimal)
        tour.say(f"price * 3 = {price.price * 3} (exact)")
        return price
