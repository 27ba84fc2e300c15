"""Pages of a listing: their one shape, envelopes unwrapped into it, and
how ``paginate`` goes from one to the next.

**The shape.** ``LinkPagination`` and ``BodyPagination`` make every page of
``controller.paginate`` the same dict: ``results`` (the items), ``link``
(the ``Link`` header, if any), ``links`` (its targets by ``rel``, the
next page's among them) and ``total`` (how many items the whole listing
holds, as the server reports it: :func:`page_total`), beside whatever else
the body held. As a schema,
``paged(Article)`` is ``{"results": [Article]}``, and types the endpoint as
``RestEndpoint[Page[Article]]``, so ``paginate(..., items=True)`` yields
``Article``::

    articles = api.extend(path="/articles/", schema=paged(Article))

**Envelopes.** Many APIs wrap a list in an object: Stripe's ``{"object": "list", "data":
[...], "has_more": true}``, Django REST framework's ``{"count", "next",
"previous", "results"}``, fastapi-pagination's ``{"items", "total", "page",
"size", "pages"}``. An ``Envelope`` middleware makes such a body the one
shape of a page (:class:`~restwire.Page`): the items under ``results``,
``link`` (the ``Link`` header, if any), ``links`` (its targets by ``rel``),
``total`` (:func:`~restwire.page_total`), beside the body's other fields.
``resource(..., results="data")`` puts one on its ``get_list``; the
middleware ``BodyPagination`` is an ``Envelope`` that also finds the next
page in the body (its ``kind``), so ``controller.paginate`` follows it.

A body that is not an object with a list at ``results`` (or, with
``results=None``, not a list) is left as it is: an error page, say.

**Following pages.** ``controller.paginate`` takes the ``rel="next"`` link
of each page (:func:`next_page`: from the links a pagination middleware
found, else from the ``Link`` header), refuses one to another origin
unless told, and stops at a link back to a page already fetched.

**Pages follow redirect rules.** A page is a hop the server chose, as a
redirect is: a page on another origin than the first page's is sent as a
redirect there would be (public headers only, no jar cookie in the
default credentials mode, not the client's ``auth``), unless the user
names what that origin may see: ``paginate(cross_origin={"https://
cdn.example.com": ["authorization"]})`` (:class:`CrossOrigin`, and the
call's ``exchange.home``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypedDict, TypeVar

from .._base.errors import (
    InvalidRequest,
    RestwireError,
    SettingError,
    UsageError,
    redact_url,
)
from .._base.http import Origin, origin_of
from .._base.library import INVALID_URL, URL, Response, host_checked
from .._wire.header_params import Link, links_by_rel, parse_link_header

if TYPE_CHECKING:
    from .._chain.exchange import Exchange

__all__ = [
    "PAGING_PARAMS",
    "CrossOrigin",
    "CrossOriginOption",
    "Envelope",
    "NextPage",
    "Page",
    "PageSchema",
    "check_paging",
    "next_page",
    "page_items",
    "page_total",
    "paged",
]

#: The query parameters that say which page of a listing a read is: those
#: the pagination kinds send (``BodyPagination``'s ``starting_after``,
#: ``page``, ``offset``, ``size``; a cursor) and the page sizes that ride
#: along (Stripe's ``limit``). A stored list read with one of them is a
#: page a created record may or may not be on: it is read again.
PAGING_PARAMS = frozenset(
    (
        "after",
        "before",
        "cursor",
        "ending_before",
        "limit",
        "offset",
        "page",
        "page_size",
        "per_page",
        "size",
        "starting_after",
    )
)

logger = logging.getLogger("restwire")

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


# -- envelopes -----------------------------------------------------------------------


class NextPage(Protocol):
    """How an envelope finds the next page of a listing."""

    def next_url(
        self, response: Response, body: Any, items: Sequence[Any]
    ) -> URL | None:
        """The next page's URL, from the page ``response`` answered (its
        parsed ``body``, its ``items``); ``None`` when the listing ends."""
        ...

    def options(self) -> list[str]:
        """Its options as ``name=value`` texts, for a repr."""
        ...


class Envelope:
    """Unwraps the list at the body's ``results`` into a page; with a
    ``kind``, also names the next page in ``links["next"]``."""

    #: Never changes the credentials a call sends (see ``restwire.Stack``).
    sends_credentials = False

    __slots__ = ("kind", "results")

    def __init__(
        self, results: str | None = "results", kind: NextPage | None = None
    ) -> None:
        if results == "" or not isinstance(results, str | None):
            raise SettingError(
                f"results must be a non-empty name or None, not {results!r}"
            )
        self.results = results
        self.kind = kind

    def on_response(self, exchange: Exchange) -> None:
        response = exchange.response
        assert response is not None
        body = exchange.value
        page: dict[str, Any] = {}
        if self.results is None:
            items = body
        elif isinstance(body, Mapping):
            items = body.get(self.results)
            page = {name: value for name, value in body.items() if name != self.results}
        else:
            return
        if type(items) is not list:
            return
        header = response.headers.get("link")
        links = links_by_rel(parse_link_header(header, response.request.url))
        if self.kind is not None:
            target = self.kind.next_url(response, body, items)
            if target is not None:
                links["next"] = Link(str(target), ("next",))
        page.update(
            {
                "results": items,
                "link": header,
                "links": links,
                "total": page_total(
                    response, body if isinstance(body, Mapping) else None
                ),
            }
        )
        exchange.state["links"] = links
        exchange.value = page

    def __repr__(self) -> str:
        shown = [f"results={self.results!r}"]
        if self.kind is not None:
            shown += self.kind.options()
        return f"{type(self).__name__}({', '.join(shown)})"


# -- from one page to the next -------------------------------------------------------


#: What ``paginate(cross_origin=...)`` takes: ``False``, ``True``, or each
#: other origin (``"https://host[:port]"``) the credential header names it
#: may see.
CrossOriginOption = bool | Mapping[str, Collection[str]]


class CrossOrigin:
    """What ``paginate(cross_origin=...)`` allows: whether a next link to
    another origin is followed at all (``False``: refused; ``True``: sent
    as a redirect there would be), and, given a mapping of origins to
    header names, which credentials each named origin may see besides
    (``"cookie"``: the jar's cookies, its domain rules applying)."""

    __slots__ = ("follow", "named")

    def __init__(self, value: object, label: str, url_type: type[URL]) -> None:
        self.named: dict[Origin, frozenset[str]] = {}
        if isinstance(value, bool):
            self.follow = value
            return
        if not isinstance(value, Mapping):
            raise UsageError(
                f"{label}: paginate(cross_origin=...) takes True, False or a "
                "mapping of origins to the credential header names each may "
                f"see, not {type(value).__name__}"
            )
        self.follow = True
        for origin, names in value.items():
            where = _origin(origin, label, url_type)
            if isinstance(names, str) or not all(
                isinstance(name, str) for name in _iterable(names, label)
            ):
                raise UsageError(
                    f"{label}: paginate(cross_origin=...) maps {origin!r} to "
                    f"{type(names).__name__}; give a list of header names"
                )
            self.named[where] = frozenset(name.lower() for name in names)

    def shared_with(self, url: URL) -> frozenset[str]:
        """The credential header names a page at ``url`` may carry to it,
        if it is on another origin than the first page (named by the user)."""
        return (
            self.named.get(origin_of(url), frozenset()) if self.named else frozenset()
        )


def _origin(text: object, label: str, url_type: type[URL]) -> Origin:
    """``text`` (``"https://host[:port]"``) as an origin."""
    url: URL | None = None
    if isinstance(text, str):
        try:
            url = host_checked(url_type(text))
        except INVALID_URL:
            url = None
    if url is None or url.scheme not in ("http", "https") or not url.host:
        raise SettingError(
            f"{label}: paginate(cross_origin=...) names {redact_url(str(text))!r}, "
            "which is not an origin (https://host or https://host:port)"
        )
    return origin_of(url)


def _iterable(names: object, label: str) -> list[object]:
    if not isinstance(names, Iterable):
        raise UsageError(
            f"{label}: paginate(cross_origin=...) needs a list of header names "
            f"for each origin, not {type(names).__name__}"
        )
    return list(names)


def next_page(
    exchange: Exchange, label: str, seen: set[str], cross_origin: bool
) -> URL | None:
    """The ``rel="next"`` URL of the page ``exchange`` just fetched (from the
    links a pagination middleware found, in the ``Link`` header or the body;
    else from the header); ``None`` at the end, or when it would revisit a
    page (a cycle of next links). One to another origin is an
    :class:`InvalidRequest` unless ``cross_origin``."""
    response = exchange.response
    if response is None:
        return None
    links = exchange.state.get("links")  # a pagination middleware's
    if links is None:
        links = links_by_rel(
            parse_link_header(response.headers.get("link"), response.request.url)
        )
    following = links.get("next")
    if following is None:
        return None
    try:
        # (of the controller's library)
        url: URL = host_checked(type(exchange.url)(following.url))
    except INVALID_URL as error:
        raise InvalidRequest(
            f"{label}: next link {redact_url(following.url)!r} is not a URL "
            f"that can be followed: {error}"
        ) from None
    if str(url) in seen:
        logger.warning(
            "%s: next link %s was already fetched; stopping", label, redact_url(url)
        )
        return None
    if not cross_origin and origin_of(url) != exchange.origin:
        raise InvalidRequest(
            f"{label}: next link {redact_url(url)} is on another origin; "
            "pass cross_origin=True to follow it"
        )
    return url


def check_paging(items: object, max_pages: object) -> None:
    """Refuse, where ``paginate`` is called, options it cannot follow: a
    ``max_pages`` that is no whole number of pages of at least 1 (``"5"``,
    ``2.5``, ``True``, ``0``), an ``items`` that is no ``bool``."""
    if not isinstance(max_pages, int) or isinstance(max_pages, bool) or max_pages < 1:
        raise SettingError(
            f"paginate(max_pages=...) takes a number of pages, 1 or more, "
            f"not {max_pages!r}"
        )
    if not isinstance(items, bool):
        raise UsageError(
            f"paginate(items=...) takes True (each item) or False (each "
            f"page), not {items!r}"
        )


def page_items(label: str, value: Any) -> list[Any]:
    """The items of a page: a list, or the ``results`` of a dict."""
    if isinstance(value, dict) and isinstance(value.get("results"), list):
        return list(value["results"])
    if isinstance(value, list):
        return value
    raise RestwireError(
        f"{label}: paginate(items=True) needs a list or a dict with a "
        f"'results' list, got {type(value).__name__}"
    )
