"""Between httpx (or httpx2) and hishel: what hishel sees and stores of a
call's request and response, and the response a call gets back.

- Nothing credential-bearing is stored: hishel sees the request without
  its credential headers (the same rule as everywhere: ``_base.credentials``)
  and with its URL's credential params redacted, and the stored response
  has no ``Set-Cookie`` (nor any header whose name says credential). The
  live response keeps them.
- A stored body is the body as the server sent it (still encoded), read
  under the endpoint's ``max_body_size``; a response the call gets is of
  its request's library, its raw body decoded by the sender, and says
  what the cache did in ``extensions["caching"]`` (:func:`from_cache`).
- A stored entry is checked for what a live response needs before the
  state machine sees it (:func:`readable`): one that is not raises.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from email.utils import formatdate
from typing import Any

from .._base.credentials import is_credential, names_credential
from .._base.errors import BodyTooLarge, redact_url
from .._base.library import DefaultEncoding, Headers, Request, Response, library_of
from .keys import Ticket

__all__ = [
    "RawBody",
    "decoded_headers",
    "drained",
    "from_cache",
    "from_entry",
    "from_upstream",
    "hishel_request",
    "hishel_response",
    "readable",
    "with_changes",
]

#: Response headers never stored (besides those whose name says credential).
_NOT_STORED = frozenset({"set-cookie", "set-cookie2", "transfer-encoding"})


def from_cache(response: Response) -> bool:
    """Whether the cache answered with a body it holds (fresh, or
    revalidated with a 304)."""
    status = response.extensions.get("caching")
    return isinstance(status, dict) and bool(
        status.get("from_cache") or status.get("revalidated")
    )


# -- what hishel sees and stores ----------------------------------------------------


def hishel_request(request: Request, ticket: Ticket) -> Any:
    """``request`` as hishel sees and stores it: public headers only, and
    its URL's credential params redacted."""
    import hishel

    grouped: dict[str, list[str]] = {}
    for name, value in request.headers.multi_items():
        if not is_credential(name, ticket.marked, ticket.public):
            grouped.setdefault(name, []).append(value)
    return hishel.Request(
        method=request.method,
        url=redact_url(request.url),
        headers=hishel.Headers(grouped),
    )


def hishel_response(response: Response, raw: bytes, received: float) -> Any:
    """``response`` as hishel stores it: its raw (still encoded) body, and no
    header that sets or carries a credential. A response without ``Date``
    is given the time it was ``received`` (RFC 9110, 6.6.1: a recipient
    with a clock adds one): hishel counts the age of an entry from its
    ``Date``, and would take one without for age 0 forever, never stale."""
    import hishel

    grouped: dict[str, list[str]] = {}
    for name, value in response.headers.multi_items():
        if name not in _NOT_STORED and not names_credential(name):
            grouped.setdefault(name, []).append(value)
    if "date" not in grouped:
        grouped["date"] = [formatdate(received, usegmt=True)]
    return hishel.Response(
        status_code=response.status_code,
        headers=hishel.Headers(grouped),
        stream=iter([raw]),
    )


class RawBody:
    """A ``_Read`` sink that keeps a body as it came (still encoded), for
    storage; past ``limit`` bytes it is refused, as the body would be."""

    __slots__ = ("_limit", "_request", "chunks", "size")

    def __init__(self, request: Request, limit: int | None) -> None:
        self._request = request
        self._limit = limit
        self.chunks: list[bytes] = []
        self.size = 0

    def feed(self, chunk: bytes) -> bool:
        self.size += len(chunk)
        if self._limit is not None and self.size > self._limit:
            raise BodyTooLarge(self._request.method, self._request.url, self._limit)
        self.chunks.append(chunk)
        return True


def decoded_headers(headers: Headers, body: bytes) -> Headers:
    """``headers`` of a body already decoded: no ``Content-Encoding``, and
    the length it now has."""
    if "content-encoding" not in headers:
        return headers
    kept = [
        (name, value)
        for name, value in headers.raw
        if name.lower() not in (b"content-encoding", b"content-length")
    ]
    return type(headers)([*kept, (b"Content-Length", str(len(body)).encode())])


# -- what the server is sent ------------------------------------------------------------


def with_changes(request: Request, wanted: Any) -> Request:
    """``request`` with the headers hishel changed (a revalidation's
    ``If-None-Match``): every other header as it was, credentials included."""
    changed = {
        name: value
        for name, value in wanted.items()
        if request.headers.get(name) != value
    }
    if not changed:
        return request
    headers = type(request.headers)(request.headers)
    for name, value in changed.items():
        headers[name] = value
    changed_request: Request = type(request)(
        request.method,
        request.url,  # type: ignore[arg-type]
        headers=headers,
        stream=request.stream,  # type: ignore[arg-type]
        extensions=request.extensions,
    )
    return changed_request


# -- stored entries, read back ------------------------------------------------------


def drained(stream: Iterator[bytes] | AsyncIterator[bytes] | None) -> bytes:
    """A stored body, read (a sync storage's streams are sync iterators)."""
    if stream is None:
        return b""
    if not isinstance(stream, Iterator):
        raise TypeError("a stored body is not a sync stream")
    return b"".join(stream)


def readable(entry: Any) -> Any:
    """``entry`` with its body read (it is small: each was read whole, under
    an endpoint's ``max_body_size``), checked for what a live response
    needs; raises if it is malformed."""
    response = entry.response
    status = response.status_code
    if type(status) is not int or not 100 <= status <= 599:
        raise ValueError("a stored status code is not one")
    for name, value in _headers_list(response.headers):
        if not (isinstance(name, str) and isinstance(value, str)):
            raise TypeError("a stored header is not text")
    body = drained(response.stream)
    return replace(entry, response=replace(response, stream=iter([body])))


def _headers_list(headers: Any) -> list[tuple[str, str]]:
    return [(name, value) for name in headers for value in headers.get_list(name)]


# -- the response a call gets -------------------------------------------------------


def from_entry(
    request: Request, entry: Any, revalidated: bool, encoding: DefaultEncoding
) -> Response:
    """The response a call gets from a stored ``entry`` (one of
    :func:`readable`), fresh or ``revalidated`` by a 304."""
    response = entry.response
    return _live(
        request,
        response.status_code,
        _headers_list(response.headers),
        drained(response.stream),
        {"from_cache": True, "revalidated": revalidated, "stored": False},
        encoding,
    )


def from_upstream(
    request: Request,
    upstream: Response,
    raw: bytes,
    revalidated: bool,
    stored: bool,
    encoding: DefaultEncoding,
) -> Response:
    """The response a call gets from what the server sent (``raw``, its body
    as read), saying whether it revalidated an entry and was stored."""
    return _live(
        request,
        upstream.status_code,
        upstream.headers.raw,
        raw,
        {"from_cache": False, "revalidated": revalidated, "stored": stored},
        encoding,
    )


def _live(
    request: Request,
    status: int,
    headers: Any,
    raw: bytes,
    caching: dict[str, bool],
    encoding: DefaultEncoding,
) -> Response:
    """The response a call gets: ``raw`` body (still encoded: the sender
    decodes it, bounded), marked with what the cache did; of ``request``'s
    library (httpx or httpx2)."""
    library = library_of(request)
    response: Response = library.Response(
        status,
        headers=headers,
        stream=library.ByteStream(raw),
        request=request,
        extensions={"caching": caching},
    )
    response.default_encoding = encoding
    return response
