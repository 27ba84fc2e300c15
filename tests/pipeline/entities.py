"""The seed's entities (section 2.2), in Python, shared by the tests."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any, ClassVar

from pipeline import Entity


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


class Stream(Entity):
    username: str = ""
    title: str = ""
    game: str = ""
    current_viewers: int = 0
    live: bool = False

    def pk(self) -> str:
        return self.username


class Ticker(Entity):
    product_id: str = ""
    trade_id: int = 0
    price: float = 0.0
    size: str = "0"
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


class Post(Entity):
    id: str = ""
    title: str = ""


class User(Entity):
    id: int = 0
    name: str = ""
    posts: list[Any] = []  # noqa: RUF012 (a field default, copied per instance)


class Article(Entity):
    id: int = 0
    title: str = ""
    author: User | None = None

    schema: ClassVar[dict[str, Any]] = {"author": User}


User.schema = {"posts": [Article]}
