"""The seed's entities (section 2.2), shared by the tests.

ExchangePrice, Stream and Ticker are the recipes' own: the tests check the
definitions users copy. Post, User and Article add nesting and cycles.
"""

from __future__ import annotations

from typing import Any, ClassVar

from recipes.exchange_price import ExchangePrice
from recipes.stream import Stream
from recipes.ticker import Ticker
from restwire import Entity

__all__ = ["Article", "ExchangePrice", "Post", "Stream", "Ticker", "User"]


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


class SaysEqual(type):
    """A metaclass whose classes say they equal any class (as some
    expression-building libraries' classes do)."""

    def __eq__(cls, other: object) -> bool:
        return True

    __hash__ = type.__hash__


class Pretender(metaclass=SaysEqual):
    pass
