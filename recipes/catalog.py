"""The recipes, in the order the tour runs them."""

from __future__ import annotations

from types import ModuleType

from . import (
    anthropic_messages,
    auth_context,
    auth_cookie,
    auth_token,
    body_pagination,
    casing,
    download,
    exchange_price,
    fastapi_oauth,
    github,
    http_cache,
    live_prices,
    logout,
    many_workers,
    openai_chat,
    pagination,
    posts,
    redirects,
    renaming,
    signing,
    slack,
    stream,
    stripe,
    ticker,
    twilio,
)

__all__ = ["RECIPES", "find", "name_of"]

RECIPES: tuple[ModuleType, ...] = (
    posts,
    auth_token,
    auth_cookie,
    auth_context,
    signing,
    logout,
    redirects,
    casing,
    renaming,
    stream,
    exchange_price,
    ticker,
    live_prices,
    openai_chat,
    anthropic_messages,
    pagination,
    body_pagination,
    download,
    http_cache,
    many_workers,
    stripe,
    github,
    slack,
    twilio,
    fastapi_oauth,
)


def name_of(recipe: ModuleType) -> str:
    """A recipe's name: the last part of its module's name."""
    return recipe.__name__.rsplit(".", 1)[-1]


def find(name: str) -> ModuleType:
    """The recipe called ``name``; ``KeyError`` if there is none."""
    for recipe in RECIPES:
        if name_of(recipe) == name:
            return recipe
    raise KeyError(name)
