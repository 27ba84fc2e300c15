"""``BodyPagination``: listings whose body says where the next page is.

Many APIs put the next page in the body, not in a ``Link`` header: Django
REST framework's ``{"count", "next", "previous", "results"}``, or a cursor
(``{"items": [...], "next_cursor": "abc"}``). ``BodyPagination`` reads it:

- ``results`` names the field that holds the items; ``next`` the field that
  says where the next page is.
- With ``param=None`` (the default), ``next`` is the next page's URL,
  resolved against the page's own URL (so ``"/items?page=2"`` works too).
- With ``param="cursor"``, ``next`` is a cursor: the next page is this
  page's URL with the query parameter ``cursor`` set to it.
- A ``next`` that is ``null``, missing or empty ends the listing.

The value becomes the same shape ``LinkPagination`` gives, so one schema
(``{"results": [Article]}`` or ``paged(Article)``) and one ``paginate``
serve both: ``{"results": <items>, "link": <Link header or None>,
"links": {"next": Link, ...}, "total": <count or None>}`` beside the
body's other fields (``total``: see ``restwire.page_total``). A body
that is not an object with a ``results`` list is left as it is (an error
page, say). ``controller.paginate`` follows ``links["next"]`` with the same
cycle guard, ``max_pages`` and origin check as ``Link`` headers.
"""

from __future__ import annotations

from collections.abc import Mapping

from restwire import (
    ContentError,
    Exchange,
    Link,
    links_by_rel,
    page_total,
    parse_link_header,
)
from restwire._library import INVALID_URL, URL, Response

__all__ = ["BodyPagination"]


class BodyPagination:
    """Pages whose body names the next page, by URL or by cursor."""

    #: Never changes the credentials a call sends (see ``restwire.Stack``).
    sends_credentials = False

    def __init__(
        self, results: str = "results", next: str = "next", param: str | None = None
    ) -> None:
        if not results or not next or param == "":
            raise ValueError("results, next and param must be non-empty names")
        self.results = results
        self.next = next
        self.param = param

    def on_response(self, exchange: Exchange) -> None:
        response = exchange.response
        assert response is not None
        body = exchange.value
        if not isinstance(body, Mapping) or not isinstance(
            body.get(self.results), list
        ):
            return
        header = response.headers.get("link")
        links = links_by_rel(parse_link_header(header, response.request.url))
        following = body.get(self.next)
        if following is not None and following != "":
            target = self._next_url(response, following)
            links["next"] = Link(str(target), ("next",))
        page = {name: value for name, value in body.items() if name != self.results}
        page.update(
            {
                "results": body[self.results],
                "link": header,
                "links": links,
                "total": page_total(response, body),
            }
        )
        exchange.state["links"] = links
        exchange.value = page

    def _next_url(self, response: Response, following: object) -> URL:
        """The next page's URL; a :class:`ContentError` if ``following``
        names none: a URL that is not text or does not parse, a cursor that
        is neither text nor a whole number."""
        current = response.request.url
        if self.param is not None:
            if isinstance(following, bool) or not isinstance(following, str | int):
                raise self._unusable(response, following, "a cursor (text or a number)")
            # Sorted by name, as restwire builds every query: the same page
            # always has the same URL (the cycle guard compares URLs).
            params = current.params.set(self.param, str(following))
            return current.copy_with(params=sorted(params.multi_items()))
        if not isinstance(following, str):
            raise self._unusable(
                response, following, "a URL (for a cursor, set param=)"
            )
        try:
            return current.join(following)
        except INVALID_URL as error:
            raise ContentError(
                response, f"the body's {self.next!r} is not a URL ({error})"
            ) from None

    def _unusable(
        self, response: Response, following: object, expected: str
    ) -> ContentError:
        return ContentError(
            response,
            f"the body's {self.next!r} should be {expected}, "
            f"but it is a {type(following).__name__}",
        )

    def __repr__(self) -> str:
        shown = [f"results={self.results!r}", f"next={self.next!r}"]
        if self.param is not None:
            shown.append(f"param={self.param!r}")
        return f"BodyPagination({', '.join(shown)})"
