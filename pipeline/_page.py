"""``Page`` and ``paged``: the one shape of a page of a listing, typed.

``LinkPagination`` and ``BodyPagination`` make every page of
``controller.paginate`` the same dict: ``results`` (the items), ``link``
(the ``Link`` header, if any) and ``links`` (its targets by ``rel``, the
next page's among them), beside whatever else the body held. As a schema,
``paged(Article)`` is ``{"results": [Article]}``, and types the endpoint as
``RestEndpoint[Page[Article]]``, so ``paginate(..., items=True)`` yields
``Article``::

    articles = api.extend(path="/articles/", schema=paged(Article))
"""

from __future__ import annotations

from typing import Any, Generic, TypedDict, TypeVar

from ._header_params import Link

__all__ = ["Page", "PageSchema", "paged"]

ItemT = TypeVar("ItemT")


class Page(TypedDict, Generic[ItemT]):
    """A page: its items, and how to reach the others."""

    results: list[ItemT]
    link: str | None
    links: dict[str, Link]


class PageSchema(dict[str, Any], Generic[ItemT]):
    """``{"results": [item]}``, remembering ``item`` for the type checker."""


def paged(item: type[ItemT]) -> PageSchema[ItemT]:
    """The schema of a page whose ``results`` are ``item``s."""
    schema: PageSchema[ItemT] = PageSchema(results=[item])
    return schema
