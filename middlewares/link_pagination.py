"""``LinkPagination``: the pages of a listing, found in its ``Link`` header.

When the response has a ``Link`` header, or the parsed value is a list, or
the call is a page of ``controller.paginate`` (so every page has one shape,
the last one too), the value becomes ``{"link": <Link header or None>,
"results": <parsed value>, "links": {rel: Link}, "total": <count or None>}``;
otherwise it passes
unchanged. ``link`` and
``results`` are the listing's page; ``links`` adds the header parsed per RFC
8288 (``restwire.parse_link_header``), targets resolved against the
response's URL, so ``value["links"]["next"].url`` is the next page. The same
mapping is on ``exchange.state["links"]``. Use ``{"results": [Entity]}`` as
the endpoint's schema, and ``controller.paginate`` to follow ``next``.
"""

from __future__ import annotations

from restwire import Exchange, links_by_rel, page_total, parse_link_header

__all__ = ["LinkPagination"]


class LinkPagination:
    """Wraps list responses and responses with a ``Link`` header."""

    #: Never changes the credentials a call sends (see ``restwire.Stack``).
    sends_credentials = False

    def on_response(self, exchange: Exchange) -> None:
        response = exchange.response
        assert response is not None
        header = response.headers.get("link")
        links = links_by_rel(parse_link_header(header, response.request.url))
        exchange.state["links"] = links
        if (
            header is not None
            or isinstance(exchange.value, list)
            or exchange.page is not None
        ):
            exchange.value = {
                "link": header,
                "results": exchange.value,
                "links": links,
                "total": page_total(response),
            }

    def __repr__(self) -> str:
        return "LinkPagination()"
