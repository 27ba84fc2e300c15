"""``Page`` and ``paged``: the one shape of a page of a listing, typed.

``LinkPagination`` and ``BodyPagination`` make every page of
``controller.paginate`` the same dict: ``results`` (the items), ``link``
(the ``Link`` header, if any), ``links`` (its targets by ``rel``, the
next page's among them) and ``total`` (how many items the whole listing
holds, as the server reports it: :func:`page_total`), beside whatever else
the body held. As a schema,
``paged(Article)`` is ``{"results": [Article]}``, and types the endpoint as
``RestEndpoint[Page[Article]]``, so ``paginate(..., items=True)`` yields
``Article``::

    articles = api.extend(path="/articles/", schema=paged(Article))
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Generic, TypedDict, TypeVar

from .._base.library import Response
from .._wire.header_params import Link

__all__ = ["Page", "PageSchema", "page_total", "paged"]

ItemT = TypeVar("ItemT")


class Page(TypedDict, Generic[ItemT]):
    """A page: its items, and how to reach the others."""

    results: list[ItemT]
    link: str | None
    links: dict[str, Link]
    total: int | None


class PageSchema(dict[str, Any], Generic[ItemT]):
    """``{"results": [item]}``, remembering ``item`` for the type checker."""


def paged(item: type[ItemT]) -> PageSchema[ItemT]:
    """The schema of a page whose ``results`` are ``item``s."""
    schema: PageSchema[ItemT] = PageSchema(results=[item])
    return schema


#: ``Content-Range`` of items: an optional unit, then ``first-last/total``
#: or ``*/total`` (``items 0-24/319``, PostgREST's ``0-24/3573``).
_CONTENT_RANGE = re.compile(r"^\s*(?:([A-Za-z][\w-]*)\s+)?(?:\d+-\d+|\*)/(\d+|\*)\s*$")


def page_total(response: Response, body: Any = None) -> int | None:
    """How many items a listing holds, as the server reports it: the
    ``X-Total-Count`` header (json-server, many Rails and Express APIs), a
    ``Content-Range`` of items (not bytes; PostgREST, react-admin), or the
    body's ``count`` (Django REST framework) or ``total``
    (fastapi-pagination); ``None`` when none says it, or says it wrongly
    (not a whole number, negative, ``*``)."""
    headers = response.headers
    stated = headers.get("x-total-count")
    if stated is not None:
        stated = stated.strip()
        if stated.isascii() and stated.isdigit():
            return int(stated)
    content_range = headers.get("content-range")
    if content_range is not None:
        match = _CONTENT_RANGE.match(content_range)
        if match is not None and (match[1] or "").lower() != "bytes":
            return None if match[2] == "*" else int(match[2])
    if isinstance(body, Mapping):
        for name in ("count", "total"):
            value = body.get(name)
            if type(value) is int and value >= 0:
                return value
    return None
