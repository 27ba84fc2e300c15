"""``Envelope``: a listing's body unwrapped into a page.

Many APIs wrap a list in an object: Stripe's ``{"object": "list", "data":
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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .._base.errors import SettingError
from .._base.library import URL, Response
from .._wire.header_params import Link, links_by_rel, parse_link_header
from .page import page_total

if TYPE_CHECKING:
    from .._chain.exchange import Exchange

__all__ = ["Envelope", "NextPage"]


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
