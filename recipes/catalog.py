"""The recipes, in the order the tour runs them.

A recipe that imports a module one of restwire's extras brings (pydantic
for ``restwire[models]``, say) cannot be imported without it. The catalog
still lists it: as a stand-in module with its ``TITLE`` (read
from its source) and ``NEEDS`` naming the extra, which the tour skips in
one line saying what to install.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

__all__ = ["EXTRA_OF", "RECIPES", "find", "name_of"]

_NAMES = (
    "posts",
    "auth_token",
    "auth_cookie",
    "auth_context",
    "signing",
    "logout",
    "redirects",
    "casing",
    "renaming",
    "stream",
    "exchange_price",
    "ticker",
    "live_prices",
    "openai_chat",
    "anthropic_messages",
    "pagination",
    "body_pagination",
    "download",
    "http_cache",
    "many_workers",
    "stripe",
    "github",
    "slack",
    "twilio",
    "fastapi_oauth",
)

#: The top-level modules restwire's extras bring: module -> extra.
EXTRA_OF = {
    "pydantic": "models",
    "hishel": "cache",
    "redis": "redis",
    "opentelemetry": "otel",
    "aiohttp": "fast",
}


def _metadata(name: str) -> dict[str, Any]:
    """The module-level ``TITLE`` of ``recipes/NAME.py``, read
    from its source without importing it."""
    source = (Path(__file__).parent / f"{name}.py").read_text(encoding="utf-8")
    found: dict[str, Any] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == "TITLE":
                    found[target.id] = ast.literal_eval(node.value)
    return found


def _stand_in(name: str, missing: ModuleNotFoundError, extra: str) -> ModuleType:
    """A module in place of recipe ``name``, which could not be imported
    for want of ``missing.name`` (brought by ``extra``)."""
    module = ModuleType(f"{__package__}.{name}")

    def run(base_url: str, tour: object) -> NoReturn:
        raise missing

    vars(module).update(_metadata(name), NEEDS={str(missing.name): extra}, run=run)
    return module


def _load(name: str) -> ModuleType:
    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ModuleNotFoundError as missing:
        extra = EXTRA_OF.get((missing.name or "").partition(".")[0])
        if extra is None:
            raise
        return _stand_in(name, missing, extra)


RECIPES: tuple[ModuleType, ...] = tuple(_load(name) for name in _NAMES)


def name_of(recipe: ModuleType) -> str:
    """A recipe's name: the last part of its module's name."""
    return recipe.__name__.rsplit(".", 1)[-1]


def find(name: str) -> ModuleType:
    """The recipe called ``name``; ``KeyError`` if there is none."""
    for recipe in RECIPES:
        if name_of(recipe) == name:
            return recipe
    raise KeyError(name)
