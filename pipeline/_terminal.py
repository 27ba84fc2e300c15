"""The end of every chain: build the request, send it hop by hop, read, parse.

A controller makes one :class:`Terminal` for its client and gives it to
every chain it runs as the innermost step. It is the only code that sends:
each hop goes out as a ``_Send`` effect after the credential policy
(``_hops.HopPolicy``) has fitted it, so no middleware can send around it.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import httpx

from ._content import BodyReader, Discard, body_arguments
from ._effects import Flow, _Close, _Read, _Send
from ._errors import (
    BodyTooLarge,
    InvalidRequest,
    NetworkError,
    RequestBodyError,
    TooManyRedirects,
    TransportError,
    redact_url,
)
from ._exchange import Exchange
from ._hops import HopPolicy, redirect_request, userinfo_as_basic
from ._http_cache import CACHE_TICKET, Ticket, body_digest
from ._unparsed import Unparsed
from ._wire import build_request

__all__ = ["UNCHANGED", "Terminal"]

logger = logging.getLogger("restwire")


class _Unchanged:
    def __repr__(self) -> str:
        return "UNCHANGED"


#: ``exchange.value`` when the body came from the HTTP cache and is the one
#: the caller's stored value was read from: not parsed again.
UNCHANGED: object = _Unchanged()


class Terminal:
    """Sends an exchange on ``client``: the innermost step of a chain."""

    __slots__ = ("client",)

    def __init__(self, client: httpx.Client | httpx.AsyncClient) -> None:
        self.client = client

    def __call__(
        self,
        exchange: Exchange,
        ticket: Ticket | None = None,
        unchanged: bytes | None = None,
    ) -> Flow[httpx.Response]:
        """Send the exchange's request, follow redirects, read and parse the body.

        With ``ticket``, the first hop may be answered by the client's HTTP
        cache (``_http_cache``); with ``unchanged`` too, a body the cache
        gives whose digest is ``unchanged`` is not parsed: the value is
        :data:`UNCHANGED`, and the caller keeps what it has.
        """
        endpoint = exchange.endpoint
        exchange.response = None
        exchange.value = None
        exchange.hops = []
        request = self._first_request(exchange)
        if ticket is not None:
            request.extensions[CACHE_TICKET] = ticket
        response = yield from self._follow(exchange, request)
        exchange.response = response
        if not endpoint.content.streamed or not response.is_success:
            yield from _read(response, endpoint.max_body_size)
        unfollowed = response.has_redirect_location and not endpoint.follow_redirects
        if not response.is_success and not (unfollowed and not exchange.parse):
            # A redirect the endpoint was told not to follow is what
            # fetch_response returns; a value needs a 2xx.
            raise NetworkError(response)
        if exchange.parse:
            if (
                unchanged is not None
                and _from_cache(response)
                and body_digest(response.content) == unchanged
            ):
                exchange.value = UNCHANGED
                return response
            exchange.value = (
                Unparsed(endpoint, response)
                if endpoint.defers_parse
                else endpoint.parse_response(response)
            )
        return response

    def _first_request(self, exchange: Exchange) -> httpx.Request:
        endpoint = exchange.endpoint
        headers = exchange.headers
        body = exchange.body
        arguments: dict[str, Any] = {}
        if body is not None:  # (most calls have none: nothing to look up)
            arguments, content_type = body_arguments(
                body,
                exchange.method,
                headers.get("content-type"),
                exchange.label,  # names the call in the body's errors
                asynchronous=isinstance(self.client, httpx.AsyncClient),
            )
            if content_type is not None and "content-type" not in headers:
                headers["content-type"] = content_type
        url = userinfo_as_basic(exchange.url, headers)
        try:
            return build_request(
                self.client, exchange.method, url, headers, endpoint.timeout, arguments
            )
        except httpx.InvalidURL as error:
            raise InvalidRequest(f"{endpoint.label}: invalid URL: {error}") from None

    def _follow(
        self, exchange: Exchange, request: httpx.Request
    ) -> Flow[httpx.Response]:
        endpoint = exchange.endpoint
        policy = HopPolicy(exchange.origin, exchange.credentials, exchange.sensitive)
        jar = self.client.cookies
        history: list[httpx.Response] = []
        redirects = 0
        while True:
            store_cookies = policy.prepare(request, jar)
            exchange.hops.append(request.url)
            try:
                response: httpx.Response = yield _Send(
                    request,
                    with_client_auth=policy.with_client_auth,
                    store_cookies=store_cookies,
                )
            except httpx.StreamConsumed:
                raise RequestBodyError(
                    f"{request.method} {redact_url(request.url)}: a redirect asked for "
                    "the body again, but it was a one-shot iterator; send bytes to "
                    "allow it"
                ) from None
            except httpx.RequestError as error:
                raise TransportError(request.method, request.url, error) from error
            except httpx.InvalidURL as error:
                # httpx reads a redirect's Location while sending, and a Location
                # such as "javascript:..." fails there, outside RequestError.
                raise InvalidRequest(
                    f"{request.method} {redact_url(request.url)}: the response's "
                    f"Location is not a URL to follow ({error})"
                ) from None
            if logger.isEnabledFor(logging.DEBUG):
                logger.debug(
                    "%s %s -> %s",
                    request.method,
                    redact_url(request.url),
                    response.status_code,
                )
            if not (endpoint.follow_redirects and response.has_redirect_location):
                response.history = history  # the hops before it, in order
                return response
            if redirects >= endpoint.max_redirects:
                yield _Close(response)
                raise TooManyRedirects(
                    exchange.method, exchange.url, endpoint.max_redirects
                )
            yield from _discard(response)
            history.append(response)
            request = redirect_request(request, response)
            if CACHE_TICKET in request.extensions:
                # the ticket says who the first hop's caller is: later hops
                # (another URL, maybe another origin) pass by the cache
                request.extensions = {
                    name: value
                    for name, value in request.extensions.items()
                    if name != CACHE_TICKET
                }
            redirects += 1


def _from_cache(response: httpx.Response) -> bool:
    """Whether the HTTP cache answered with a body it holds (fresh, or
    revalidated with a 304)."""
    status = response.extensions.get("caching")
    return isinstance(status, dict) and bool(
        status.get("from_cache") or status.get("revalidated")
    )


#: A redirect body read (and dropped) to keep its connection: at most this.
REDIRECT_BODY = 64 * 1024


def _read(response: httpx.Response, limit: int | None) -> Flow[None]:
    """Read ``response``'s body, decoded and bounded by ``limit``; it becomes
    ``response.content``."""
    if response.is_stream_consumed:
        # A transport that built the response in memory (httpx.MockTransport)
        # hands it over already read: only the limit is left to apply.
        if limit is not None and len(response.content) > limit:
            request = response.request
            raise BodyTooLarge(request.method, request.url, limit)
        return
    reader = BodyReader(response, limit)
    declared = response.headers.get("content-length", "")
    identity = reader.decoder.identity  # then the wire length is the body's
    if limit is not None and identity and declared.isdigit() and int(declared) > limit:
        yield _Close(response)  # refused before reading a byte of it
        request = response.request
        raise BodyTooLarge(request.method, request.url, limit)
    try:
        yield _Read(response, reader)
        body = reader.finish()
    except httpx.RequestError as error:
        request = response.request
        raise TransportError(request.method, request.url, error) from error
    response._content = body


def _discard(response: httpx.Response) -> Flow[None]:
    """Drop a redirect's own body: read (to reuse the connection) when it
    says it is short, else close without reading; never kept, never waited
    for without bound."""
    if response.is_stream_consumed:
        return  # built in memory by the transport: nothing to drop
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) <= REDIRECT_BODY:
        with contextlib.suppress(httpx.RequestError):
            yield _Read(response, Discard(REDIRECT_BODY))
    else:
        yield _Close(response)
