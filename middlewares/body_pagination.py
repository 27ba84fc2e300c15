"""``BodyPagination``: listings whose body holds the items and says (or lets
you work out) where the next page is.

Many APIs put pagination in the body, not in a ``Link`` header. One
middleware says the common shapes, each with no code of your own:

| API | ``BodyPagination`` |
|---|---|
| a next URL (Django REST framework's ``next``), or one deeper (``links.next``) | ``BodyPagination()``, ``BodyPagination(next="links.next")`` |
| a cursor in the body (``{"items", "next_cursor"}``) | ``BodyPagination(results="items", next="next_cursor", param="cursor")`` |
| Stripe's ``{"data", "has_more"}``, the last item's ``id`` sent as ``starting_after`` | ``BodyPagination.cursor(results="data", more="has_more", cursor_from="id", param="starting_after")`` |
| page numbers up to a count of pages (fastapi-pagination's ``{"items", "total", "page", "size", "pages"}``) | ``BodyPagination.pages(results="items", page="page", pages="pages")`` |
| page numbers up to a total of items, ``size`` a page | ``BodyPagination.pages(page="page", size=25)`` |
| offset and limit up to a count (DRF's LimitOffsetPagination; json-server's ``_start``/``_limit`` with ``X-Total-Count``) | ``BodyPagination.offsets(offset="offset", count="count")``, ``BodyPagination.offsets(results=None, offset="_start")`` |

``results`` names the body's field that holds the items (``None``: the body
is the list). Field names in the body may be dotted paths into nested
objects; ``param``, ``page`` and ``offset`` are query parameters, set on
this page's URL to make the next one (the caller's other params, a limit
or page size among them, ride along). See ``_page_kinds`` for each kind's
rule; every kind ends the listing when no next page can be formed, and
raises a :class:`~restwire.ContentError` naming the call on a page that
says something unusable (a flag that is not a bool, a cursor field missing
on the last item, a count that is not a whole number).

The value becomes the same shape ``LinkPagination`` gives, so one schema
(``paged(Article)``) and one ``paginate`` serve both: ``{"results":
<items>, "link": <Link header or None>, "links": {"next": Link, ...},
"total": <count or None>}`` beside the body's other fields (``total``: see
``restwire.page_total``; ``links`` replaces a body field of that name, its
next URL among them). A body that is not an object with a ``results`` list
(or, with ``results=None``, not a list) is left as it is (an error page,
say). ``controller.paginate`` follows ``links["next"]`` with the same cycle
guard, ``max_pages`` and origin check as ``Link`` headers.
"""

from __future__ import annotations

import functools

from restwire import SettingError
from restwire.extension import Envelope, NextPage

from ._checks import check_each, check_text
from ._page_kinds import (
    CursorFrom,
    NextAt,
    Offsets,
    PageNumbers,
    check_name,
    check_path,
)

__all__ = ["BodyPagination"]


class BodyPagination(Envelope):
    """Pages whose body holds the items, and the way to the next page."""

    __slots__ = ()

    def __init__(
        self,
        results: str | None = "results",
        next: str | None = "next",
        param: str | None = None,
        *,
        more: str | None = None,
        cursor_from: str | None = None,
    ) -> None:
        """The next page's URL at the body's ``next`` (``None``: the body
        never names one, only a ``Link`` header can), or with ``param``
        the cursor to send back as that query parameter. With
        ``cursor_from``, :meth:`cursor`'s kind instead (``more=None``:
        while a page has items; ``param`` defaults to ``starting_after``)."""
        check_each(
            functools.partial(check_text, optional=True),
            "BodyPagination",
            results=results,
            next=next,
            param=param,
            more=more,
            cursor_from=cursor_from,
        )
        if results == "" or next == "" or param == "":
            raise SettingError("results, next and param must be non-empty names")
        if cursor_from is not None or more is not None:
            if cursor_from is None or next != "next":
                raise SettingError(
                    "BodyPagination: more= goes with cursor_from= (a cursor from "
                    "the last item), which takes no next="
                )
            made = type(self).cursor(
                results,
                more=more,
                cursor_from=cursor_from,
                param=param or "starting_after",
            )
            super().__init__(results, made.kind)
            return
        if next is not None:
            check_path("__init__", "next", next)
        super().__init__(results, NextAt(next, param) if next is not None else None)

    @classmethod
    def cursor(
        cls,
        results: str | None = "data",
        *,
        more: str | None = "has_more",
        cursor_from: str = "id",
        param: str = "starting_after",
    ) -> BodyPagination:
        """Stripe's cursor: while the body's ``more`` flag is true (with
        ``more=None``: while a page has items), the next page is this one's
        URL with ``param`` set to the last item's ``cursor_from`` field."""
        if more is not None:
            check_path("cursor", "more", more)
        check_path("cursor", "cursor_from", cursor_from)
        check_name("cursor", "param", param)
        return cls._of(results, CursorFrom(more, cursor_from, param))

    @classmethod
    def pages(
        cls,
        results: str | None = "items",
        *,
        page: str = "page",
        pages: str | None = None,
        total: str | None = None,
        size: int | str | None = None,
        first: int = 1,
    ) -> BodyPagination:
        """Numbered pages (this page's number is its URL's ``page``, else
        ``first``): up to the count of pages at the body's ``pages``
        (fastapi-pagination), or up to a total of items (the body's
        ``total``, else as ``page_total`` reads it) at ``size`` a page: a
        number, or the query parameter that says it."""
        check_name("pages", "page", page)
        if pages is not None:
            check_path("pages", "pages", pages)
        elif size is None:
            raise SettingError(
                "BodyPagination.pages: give pages= (the body's count of pages), "
                "or size= (items a page, or its query parameter) to count up "
                "to a total of items"
            )
        if total is not None:
            check_path("pages", "total", total)
        if isinstance(size, bool) or (isinstance(size, int) and size < 1):
            raise SettingError(
                f"BodyPagination.pages: size must be at least 1, not {size!r}"
            )
        if isinstance(size, str):
            check_name("pages", "size", size)
        if isinstance(first, bool) or not isinstance(first, int) or first < 0:
            raise SettingError(
                f"BodyPagination.pages: first must be 0 or more, not {first!r}"
            )
        return cls._of(results, PageNumbers(page, pages, total, size, first))

    @classmethod
    def offsets(
        cls,
        results: str | None = "results",
        *,
        offset: str = "offset",
        count: str | None = None,
    ) -> BodyPagination:
        """Offset paging: the next page starts (query parameter ``offset``)
        after this page's items, while that is below the count of items at
        the body's ``count`` (else as ``page_total`` reads it: ``count``,
        ``total``, ``X-Total-Count``...; none stated: until an empty page).
        The limit is the caller's param, and rides along."""
        check_name("offsets", "offset", offset)
        if count is not None:
            check_path("offsets", "count", count)
        return cls._of(results, Offsets(offset, count))

    @classmethod
    def _of(cls, results: str | None, kind: NextPage) -> BodyPagination:
        made = cls.__new__(cls)
        Envelope.__init__(made, results, kind)
        return made

    def __repr__(self) -> str:
        if self.kind is None:
            return f"BodyPagination(results={self.results!r}, next=None)"
        return super().__repr__()
