"""How ``BodyPagination`` finds the next page: one small class per kind.

Each kind (a :class:`restwire.extension.NextPage`) reads one page (the response, its parsed body, its items) and
answers the next page's URL, or ``None`` when the listing ends. The next
page is always a URL, so ``controller.paginate`` keeps its cycle guard,
``max_pages`` and origin check whatever the kind. A page that says
something no next page can be made of (a flag that is not a bool, a cursor
field missing on the last item, a count that is not a whole number) is a
:class:`~restwire.ContentError` naming the call; a page with no items never
has a next one (so a total that lies cannot make a listing endless).

| kind | reads | next page |
|---|---|---|
| :class:`NextAt` | a URL or cursor at a dotted path (``links.next``) | the URL, or this URL with ``param`` set to the cursor |
| :class:`CursorFrom` | a flag (``has_more``), the last item's field (``id``) | this URL with ``param`` (``starting_after``) set to it |
| :class:`PageNumbers` | this URL's page number, a page count or a total of items | this URL with the page number plus one |
| :class:`Offsets` | this URL's offset, a count of items | this URL with the offset plus this page's items |
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from restwire import ContentError, SettingError, page_total
from restwire.extension import INVALID_URL, URL, Response

__all__ = [
    "CursorFrom",
    "NextAt",
    "Offsets",
    "PageNumbers",
    "dig",
    "with_param",
]

#: What :func:`dig` gives for a path the body does not have.
ABSENT: Any = object()


def dig(body: Any, path: str) -> Any:
    """The value at the dotted ``path`` of ``body`` (``"links.next"``), or
    :data:`ABSENT` when some step of it is missing or not an object."""
    value = body
    for name in path.split("."):
        if not isinstance(value, Mapping) or name not in value:
            return ABSENT
        value = value[name]
    return value


def with_param(url: URL, name: str, value: object) -> URL:
    """``url`` with the query parameter ``name`` set to ``value`` (replacing
    it, never repeating it), sorted by name as restwire builds every query:
    the same page always has the same URL (the cycle guard compares URLs)."""
    params = url.params.set(name, str(value))
    return url.copy_with(params=sorted(params.multi_items()))


def check_path(kind: str, name: str, path: object) -> None:
    """Refuse, where the middleware is written, a field name or dotted path
    that names nothing (``""``, ``"a..b"``, not text)."""
    if not isinstance(path, str) or not all(path.split(".")):
        raise SettingError(
            f"BodyPagination.{kind}: {name} must be a field name or dotted path, not {path!r}"
        )


def check_name(kind: str, name: str, param: object) -> None:
    """Refuse a query parameter name that is empty or not text."""
    if not isinstance(param, str) or not param:
        raise SettingError(
            f"BodyPagination.{kind}: {name} must be a non-empty name, not {param!r}"
        )


def shown(value: object) -> str:
    """How an unusable value is named in an error: its type, or missing."""
    return "missing" if value is ABSENT else f"a {type(value).__name__}"


def whole_number(response: Response, what: str, value: object) -> int:
    """``value`` as a count (a whole number, not negative), else a
    :class:`ContentError` saying ``what`` it should have been."""
    if type(value) is not int or value < 0:
        raise ContentError(
            response, f"{what} should be a whole number, but it is {shown(value)}"
        )
    return value


def url_number(response: Response, param: str, default: int) -> int:
    """The whole number this page's URL gives the query parameter ``param``
    (``default`` when it gives none)."""
    stated = response.request.url.params.get(param)
    if stated is None:
        return default
    if not (stated.isascii() and stated.isdigit()):
        raise ContentError(
            response,
            f"this page's URL says {param}={stated!r}, which is not a whole number",
        )
    return int(stated)


@dataclass(frozen=True, slots=True)
class NextAt:
    """The body names the next page at ``path`` (dotted): a URL, resolved
    against this page's (``param=None``), or a cursor sent back as the
    query parameter ``param``. ``null``, missing or ``""`` ends the listing."""

    path: str
    param: str | None

    def next_url(
        self, response: Response, body: Any, items: Sequence[Any]
    ) -> URL | None:
        following = dig(body, self.path)
        if following is ABSENT or following is None or following == "":
            return None
        current = response.request.url
        if self.param is not None:
            if isinstance(following, bool) or not isinstance(following, str | int):
                raise self._unusable(response, following, "a cursor (text or a number)")
            return with_param(current, self.param, following)
        if not isinstance(following, str):
            raise self._unusable(
                response, following, "a URL (for a cursor, set param=)"
            )
        try:
            return current.join(following)
        except INVALID_URL as error:
            raise ContentError(
                response, f"the body's {self.path!r} is not a URL ({error})"
            ) from None

    def _unusable(
        self, response: Response, following: object, expected: str
    ) -> ContentError:
        return ContentError(
            response,
            f"the body's {self.path!r} should be {expected}, "
            f"but it is {shown(following)}",
        )

    def options(self) -> list[str]:
        shown = [f"next={self.path!r}"]
        if self.param is not None:
            shown.append(f"param={self.param!r}")
        return shown


@dataclass(frozen=True, slots=True)
class CursorFrom:
    """Stripe's cursor: while the flag at ``more`` is true, the next page is
    this URL with ``param`` set to the last item's ``field``. With
    ``more=None``, every page with items has a next one."""

    more: str | None
    field: str
    param: str

    def next_url(
        self, response: Response, body: Any, items: Sequence[Any]
    ) -> URL | None:
        if self.more is not None:
            flag = dig(body, self.more)
            if type(flag) is not bool:
                raise ContentError(
                    response,
                    f"the body's {self.more!r} should be true or false, "
                    f"but it is {shown(flag)}",
                )
            if not flag:
                return None
        if not items:
            return None
        cursor = dig(items[-1], self.field)
        if (
            isinstance(cursor, bool)
            or not isinstance(cursor, str | int)
            or cursor == ""
        ):
            raise ContentError(
                response,
                f"the last item's {self.field!r} should be a cursor (text or a "
                f"number), but it is {shown(cursor)}",
            )
        return with_param(response.request.url, self.param, cursor)

    def options(self) -> list[str]:
        return [
            f"more={self.more!r}",
            f"cursor_from={self.field!r}",
            f"param={self.param!r}",
        ]


@dataclass(frozen=True, slots=True)
class PageNumbers:
    """Numbered pages: this page's number is its URL's ``param`` (``first``
    when it has none); there is a next while that is below the count of
    pages at ``pages`` or, failing that, while the pages so far hold fewer
    items than the total (at ``total``, else as :func:`~restwire.page_total`
    reads it) at ``size`` items a page: a number, or the query parameter
    that says it (absent, this page's own count of items)."""

    param: str
    pages: str | None
    total: str | None
    size: int | str | None
    first: int

    def next_url(
        self, response: Response, body: Any, items: Sequence[Any]
    ) -> URL | None:
        if not items:
            return None
        current = url_number(response, self.param, self.first)
        if self.pages is not None:
            count = whole_number(
                response, f"the body's {self.pages!r}", dig(body, self.pages)
            )
            more = current - self.first + 1 < count
        else:
            more = (current - self.first + 1) * self._size(response, items) < (
                self._total(response, body)
            )
        return (
            with_param(response.request.url, self.param, current + 1) if more else None
        )

    def _size(self, response: Response, items: Sequence[Any]) -> int:
        if isinstance(self.size, int):
            return self.size
        assert self.size is not None
        return url_number(response, self.size, len(items)) or len(items)

    def _total(self, response: Response, body: Any) -> int:
        if self.total is not None:
            return whole_number(
                response, f"the body's {self.total!r}", dig(body, self.total)
            )
        total = page_total(response, body if isinstance(body, Mapping) else None)
        if total is None:
            raise ContentError(
                response,
                "the page states no total of items (X-Total-Count, Content-Range, "
                "or the body's count or total; name it with total=)",
            )
        return total

    def options(self) -> list[str]:
        shown = [f"page={self.param!r}"]
        for name in ("pages", "total", "size"):
            value = getattr(self, name)
            if value is not None:
                shown.append(f"{name}={value!r}")
        if self.first != 1:
            shown.append(f"first={self.first!r}")
        return shown


@dataclass(frozen=True, slots=True)
class Offsets:
    """Offset paging: this page starts at its URL's ``param`` (0 when it has
    none); the next starts after this page's items (so a server that sends
    fewer than the limit asked skips nothing), while that is below the
    count of items at ``count`` (else as :func:`~restwire.page_total` reads
    it; when none is stated, until a page with no items)."""

    param: str
    count: str | None

    def next_url(
        self, response: Response, body: Any, items: Sequence[Any]
    ) -> URL | None:
        if not items:
            return None
        following = url_number(response, self.param, 0) + len(items)
        if self.count is not None:
            total: int | None = whole_number(
                response, f"the body's {self.count!r}", dig(body, self.count)
            )
        else:
            total = page_total(response, body if isinstance(body, Mapping) else None)
        if total is not None and following >= total:
            return None
        return with_param(response.request.url, self.param, following)

    def options(self) -> list[str]:
        shown = [f"offset={self.param!r}"]
        if self.count is not None:
            shown.append(f"count={self.count!r}")
        return shown
