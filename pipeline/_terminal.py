"""The end of every chain: build the request, send it hop by hop, read, parse.

Each redirect is a hop of its own. The call's credentials are scoped per hop
from its origin (scheme, host, port), whatever httpx would do:

- until a redirect first leaves the origin, every header is sent;
- from then on, for the rest of the chain (even back at the first origin),
  the headers in ``exchange.sensitive`` are not sent (``Authorization``,
  ``Proxy-Authorization``, ``Cookie`` and any a middleware marked), and the
  client's own ``auth`` does not apply;
- cookies from the client's jar are sent, and cookies a response sets are
  stored, as ``exchange.credentials`` says: never (``omit``), on those first
  hops only (``same-origin``, the default), or on every hop (``include``).
"""

from __future__ import annotations

import base64
import contextlib
import logging

import httpx

from ._body import body_arguments
from ._content import LimitedStream
from ._effects import Close, Flow, Read, Send
from ._errors import (
    BodyTooLarge,
    InvalidRequest,
    NetworkError,
    RequestBodyError,
    TooManyRedirects,
    TransportError,
)
from ._exchange import Exchange, origin_of
from ._redact import redact_url
from ._redirects import redirect_request

__all__ = ["terminal"]

logger = logging.getLogger("restwire")


def terminal(exchange: Exchange) -> Flow[httpx.Response]:
    """Send the exchange's request, follow redirects, read and parse the body."""
    endpoint = exchange.endpoint
    exchange.response = None
    exchange.value = None
    exchange.hops = []
    response = yield from _follow(exchange, _first_request(exchange))
    exchange.response = response
    if endpoint.content != "stream" or not response.is_success:
        limit = endpoint.max_body_size
        if limit is not None:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                yield Close(response)  # refused before reading a byte of it
                raise BodyTooLarge(response.request.method, response.request.url, limit)
            response.stream = LimitedStream(response, limit)
        yield from _read(response)
    if not response.is_success:
        raise NetworkError(response)
    if exchange.parse:
        exchange.value = endpoint.parse_response(response)
    return response


def _first_request(exchange: Exchange) -> httpx.Request:
    endpoint = exchange.endpoint
    headers = exchange.headers
    arguments, content_type = body_arguments(
        exchange.body, exchange.method, headers.get("content-type"), endpoint.label
    )
    if content_type is not None and "content-type" not in headers:
        headers["content-type"] = content_type
    url = exchange.url
    if url.userinfo:
        # Credentials in the URL go as a Basic Authorization header, as httpx
        # would send them, so they are scoped like every credential and the
        # URL that httpx logs carries no password.
        if "authorization" not in headers:
            pair = f"{url.username}:{url.password}".encode()
            basic = base64.b64encode(pair).decode("ascii")
            headers["authorization"] = f"Basic {basic}"
        url = url.copy_with(userinfo=b"")
    try:
        return exchange.client.build_request(
            exchange.method, url, headers=headers, **arguments
        )
    except httpx.InvalidURL as error:
        raise InvalidRequest(f"{endpoint.label}: invalid URL: {error}") from None


def _cookies_allowed(exchange: Exchange, left_origin: bool) -> bool:
    mode = exchange.credentials
    return mode == "include" or (mode == "same-origin" and not left_origin)


def _follow(exchange: Exchange, request: httpx.Request) -> Flow[httpx.Response]:
    endpoint = exchange.endpoint
    start = exchange.origin
    left_origin = False
    redirects = 0
    while True:
        left_origin = left_origin or (redirects > 0 and origin_of(request.url) != start)
        cookies_allowed = _cookies_allowed(exchange, left_origin)
        if left_origin:
            for name in exchange.sensitive:
                request.headers.pop(name, None)
        if redirects and cookies_allowed:
            exchange.client.cookies.set_cookie_header(request)
        elif not cookies_allowed:
            request.headers.pop("cookie", None)
        exchange.hops.append(request.url)
        try:
            response: httpx.Response = yield Send(
                request, with_client_auth=not left_origin, store_cookies=cookies_allowed
            )
        except httpx.StreamConsumed:
            raise RequestBodyError(
                f"{request.method} {redact_url(request.url)}: a redirect asked for the "
                "body again, but it was a one-shot iterator; send bytes to allow it"
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
            return response
        if redirects >= endpoint.max_redirects:
            yield Close(response)
            raise TooManyRedirects(
                exchange.method, exchange.url, endpoint.max_redirects
            )
        with contextlib.suppress(httpx.RequestError):
            # A redirect's own body is not needed: read to reuse the connection.
            yield Read(response)
        request = redirect_request(request, response)
        redirects += 1


def _read(response: httpx.Response) -> Flow[bytes]:
    try:
        body: bytes = yield Read(response)
    except httpx.RequestError as error:
        request = response.request
        raise TransportError(request.method, request.url, error) from error
    return body
