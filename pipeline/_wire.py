"""What restwire asks of httpx for each hop, done in as few steps as httpx's
own outcome allows.

httpx's ``Client.build_request`` and ``Client.send`` are general: they merge
params, base URL, headers and cookies for any caller, copy the cookie jar
twice to add one header, run auth and redirect machinery, event hooks, and
hand every response to the jar, whether it sets a cookie or not. restwire
has already done most of that (absolute URLs, its own redirects and
credential policy), so for each request it does only what is left:

- :func:`build_request` makes the request in one step, from one header
  list (the client's, then the call's, as ``Headers.update`` orders them),
  reading the client's cookie jar in place rather than copying it; a client
  with default ``params`` goes through ``build_request`` as before. A
  request without a body (most calls) is put together from the headers'
  own normalized items, not encoded and lowered again twice by
  ``httpx.Request``: about 10 us of the 13 ``build_request`` took.
- :func:`direct_transport` says when a request may go straight to the
  client's transport: no event hooks, and no client ``auth`` for this hop.
  :func:`received` then does what ``Client.send`` does to the response:
  binds its stream (``elapsed``), sets its request and default encoding,
  logs as httpx logs, and gives it to the jar only when it sets a cookie (a
  response without ``Set-Cookie`` leaves a jar unchanged) and the policy lets
  it store.

Both read the client's attributes on every call, never a copy made earlier,
so a user's ``client.cookies = ...``, ``client.headers[...] = ...`` or a new
event hook takes effect at once. ``tests/pipeline/test_wire.py`` holds the
one-step request equal to ``client.build_request``'s over a matrix of
headers, cookies, params, bodies, base URLs and auth, and the direct send
equal to ``client.send``'s outcome. This module uses httpx internals
(``_transport_for_url``, the bound streams, the client state,
``Headers._list``), pinned by httpx's ``<0.29`` requirement and by those
tests.
"""

from __future__ import annotations

import logging
import time
import urllib.request
from http.cookiejar import CookieJar
from typing import Any

import httpx
from httpx._client import BoundAsyncStream, BoundSyncStream, ClientState

__all__ = [
    "add_cookie_header",
    "build_request",
    "direct_transport",
    "now",
    "received",
]

_httpx_logger = logging.getLogger("httpx")


def build_request(
    client: httpx.Client | httpx.AsyncClient,
    method: str,
    url: httpx.URL,
    headers: httpx.Headers,
    timeout: httpx.Timeout | None,
    arguments: dict[str, Any],
) -> httpx.Request:
    """The request ``client.build_request`` would make for an absolute
    ``url``, made in one step."""
    if client.params:
        return client.build_request(
            method,
            url,
            headers=headers,
            timeout=httpx.USE_CLIENT_DEFAULT if timeout is None else timeout,
            **arguments,
        )
    extensions = {"timeout": (client.timeout if timeout is None else timeout).as_dict()}
    # One header list, from ``Headers``' own items (already encoded and
    # lowered): the client's headers the call does not set, then the call's.
    own = headers._list
    names = {lowered for _, lowered, _ in own}
    items = [item for item in client.headers._list if item[1] not in names]
    items.extend(own)
    if arguments:
        return httpx.Request(
            method,
            url,
            headers=_headers_of(items),
            # The jar itself, not httpx.Cookies: httpx wraps a CookieJar without
            # copying it, and an empty one adds nothing.
            cookies=client.cookies.jar,
            extensions=extensions,
            **arguments,
        )
    return _bodiless_request(client, method, url, names, items, extensions)


def _headers_of(items: list[tuple[bytes, bytes, bytes]]) -> httpx.Headers:
    """``Headers`` holding ``items`` as they are: no name or value is
    encoded or lowered again."""
    headers = httpx.Headers()
    headers._list = items
    return headers


#: The body of every bodiless request: a stream of no bytes, which both kinds
#: of client read, and which nothing changes (shared, as an immutable value).
_EMPTY = httpx.ByteStream(b"")
#: The methods httpx gives ``Content-Length: 0`` when they carry no body.
_EMPTY_BODY_LENGTH = frozenset({"POST", "PUT", "PATCH"})
_HOST = b"host"
_LENGTH_NAMES = frozenset({b"content-length", b"transfer-encoding"})
#: The headers a cookie jar reads from a response (lower-case, as ``Headers``
#: keeps names for lookup).
_SET_COOKIE = frozenset({b"set-cookie", b"set-cookie2"})


def _bodiless_request(
    client: httpx.Client | httpx.AsyncClient,
    method: str,
    url: httpx.URL,
    names: set[bytes],
    items: list[tuple[bytes, bytes, bytes]],
    extensions: dict[str, Any],
) -> httpx.Request:
    """A request without a body, as ``httpx.Request`` makes it from
    ``items`` (the merged headers; ``names``, the call's own, lower-case):
    the auto headers first (``Host``, and ``Content-Length: 0`` for the
    methods that take a body), then ``items``, then the jar's ``Cookie``.
    ``httpx.Request`` would encode and lower every name and value again,
    twice (``_prepare`` rebuilds them)."""
    auto: list[tuple[bytes, bytes, bytes]] = []
    if _HOST not in names and url.host:
        auto.append((b"Host", _HOST, url.netloc))
    method = method.upper()
    if method in _EMPTY_BODY_LENGTH and names.isdisjoint(_LENGTH_NAMES):
        auto.append((b"Content-Length", b"content-length", b"0"))
    merged = _headers_of(auto + items)
    request = httpx.Request(
        method, url, headers=merged, stream=_EMPTY, extensions=extensions
    )
    request.read()
    jar = client.cookies.jar
    # CookieJar keeps its cookies in ``_cookies``: an empty jar, the usual
    # case, is seen without walking it (``httpx.Request`` asks ``len``).
    if getattr(jar, "_cookies", True) and len(jar):
        add_cookie_header(jar, request)
    return request


#: The request headers ``CookieJar.add_cookie_header`` reads, by the
#: lower-case name ``Headers`` looks them up by, as ``urllib`` spells them.
_JAR_READS = {b"host": "Host", b"cookie": "Cookie", b"cookie2": "Cookie2"}


class _JarRequest(urllib.request.Request):
    """``request`` as ``http.cookiejar`` reads it: its URL, method, and the
    headers the jar's policy consults; the ``Cookie`` header the jar adds
    goes onto ``request``. (httpx's own wrapper copies every header into a
    dict first, each by a lookup that scans the list: a third of a call
    that sends two cookies.)"""

    def __init__(self, request: httpx.Request) -> None:
        headers = request.headers
        present = {name for _, name, _ in headers._list}.intersection(_JAR_READS)
        super().__init__(
            url=str(request.url),
            headers={_JAR_READS[name]: headers[_JAR_READS[name]] for name in present},
            method=request.method,
        )
        self.request = request

    def add_unredirected_header(self, key: str, val: str) -> None:
        super().add_unredirected_header(key, val)
        self.request.headers[key] = val


def add_cookie_header(jar: CookieJar, request: httpx.Request) -> None:
    """Add the ``Cookie`` header ``jar`` holds for ``request``, exactly as
    ``httpx.Cookies(jar).set_cookie_header(request)`` does."""
    jar.add_cookie_header(_JarRequest(request))


def direct_transport(
    client: httpx.Client | httpx.AsyncClient,
    request: httpx.Request,
    with_client_auth: bool,
) -> httpx.BaseTransport | httpx.AsyncBaseTransport | None:
    """The transport to send ``request`` on directly, or ``None`` when the
    client must send it (event hooks to run, or its ``auth`` to apply)."""
    hooks = client.event_hooks
    if hooks["request"] or hooks["response"]:
        return None
    if with_client_auth and client.auth is not None:
        return None
    if client.is_closed:
        raise RuntimeError("Cannot send a request, as the client has been closed.")
    client._state = ClientState.OPENED
    if "timeout" not in request.extensions:  # as Client.send does
        request.extensions["timeout"] = client.timeout.as_dict()
    transport: httpx.BaseTransport | httpx.AsyncBaseTransport = (
        client._transport_for_url(request.url)
    )
    return transport


def received(
    client: httpx.Client | httpx.AsyncClient,
    request: httpx.Request,
    response: httpx.Response,
    started: float,
    store_cookies: bool,
) -> httpx.Response:
    """``response`` as ``client.send(..., stream=True)`` would return it."""
    response.request = request
    if isinstance(client, httpx.AsyncClient):
        assert isinstance(response.stream, httpx.AsyncByteStream)
        response.stream = BoundAsyncStream(
            response.stream, response=response, start=started
        )
    else:
        assert isinstance(response.stream, httpx.SyncByteStream)
        response.stream = BoundSyncStream(
            response.stream, response=response, start=started
        )
    response.history = []
    if store_cookies and not _SET_COOKIE.isdisjoint(
        [name for _, name, _ in response.headers._list]
    ):
        client.cookies.extract_cookies(response)
    response.default_encoding = client._default_encoding
    if _httpx_logger.isEnabledFor(logging.INFO):
        _httpx_logger.info(
            'HTTP Request: %s %s "%s %d %s"',
            request.method,
            request.url,
            response.http_version,
            response.status_code,
            response.reason_phrase,
        )
    return response


def now() -> float:
    """The clock httpx times ``response.elapsed`` with."""
    return time.perf_counter()
