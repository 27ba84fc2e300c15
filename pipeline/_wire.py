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
  with default ``params`` goes through ``build_request`` as before.
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
(``_transport_for_url``, the bound streams, the client state), pinned by
httpx's ``<0.29`` requirement and by those tests.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import httpx
from httpx._client import BoundAsyncStream, BoundSyncStream, ClientState

__all__ = ["build_request", "direct_transport", "now", "received"]

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
    own = headers.raw
    names = {name.lower() for name, _ in own}
    merged = [item for item in client.headers.raw if item[0].lower() not in names]
    merged.extend(own)
    return httpx.Request(
        method,
        url,
        headers=merged,
        # The jar itself, not httpx.Cookies: httpx wraps a CookieJar without
        # copying it, and an empty one adds nothing.
        cookies=client.cookies.jar,
        extensions={
            "timeout": (client.timeout if timeout is None else timeout).as_dict()
        },
        **arguments,
    )


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
    if store_cookies and (
        "set-cookie" in response.headers or "set-cookie2" in response.headers
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
