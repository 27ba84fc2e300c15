"""Watchers: what sees each request a call puts on the wire, and its end.

A middleware runs once per pass through the chain, but a call may send
more often than that (a redirect is a hop the sender follows on its own)
or not at all (an answer from the store, from the HTTP cache, or from an
identical call in flight). Something that must see every actual send, and
the call's end however it comes (tracing, a request log, a test's spy),
registers a :class:`CallWatcher` on the call with ``exchange.watch(...)``,
once, from its request side. Then:

- the sender calls ``on_send`` just before each hop goes out (retries,
  refreshes, redirects, a revalidation by the HTTP cache: every request,
  none answered without sending), and ``on_sent`` when its response
  headers arrived or its send failed;
- the controller calls ``on_end`` once, when the call ended (a value, an
  error, an answer without sending, a cancellation), after its managers.

Guarantees:

- Nothing here runs for a call with no watcher: the sender (before each
  send) and the controller (at the end) test one attribute of the call, an
  empty tuple, as they test for managers.
- ``on_send`` may return headers for that hop alone (a trace context).
  Only public headers (the controller's ``Sharing``) are added, and only
  when the request does not carry one of that name already; they go on a
  copy of the hop's request, which is what is sent (and what
  ``response.request`` is), so a redirect's next hop, built from the
  request the credential policy fitted, never inherits them. They are
  added after the call's identity was read and never reach the HTTP
  cache's storage, so they can never tell callers apart or stop two calls
  sharing a response.
- A watcher that raises is logged and skipped: the call goes on.
- A call worked out for its identity only (``subscribe`` probing who is
  calling) sends nothing and never ends: a watcher it registered hears
  nothing more.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping
from typing import Any

from .._base.credentials import splits_header
from .._base.effects import Flow
from .._base.library import Request, Response
from .exchange import Answered, CallWatcher, Exchange

__all__ = ["tell_end", "watched_send"]

logger = logging.getLogger("restwire")


def watched_send(
    watchers: tuple[CallWatcher, ...],
    exchange: Exchange,
    request: Request,
    send: Callable[[Request], Flow[Response]],
    public: Collection[str],
) -> Flow[Response]:
    """``send(request)`` with ``watchers`` told before and after; when they
    ask for headers, a copy of ``request`` carrying them is sent instead
    (``response.request`` shows them), and ``request`` itself, which a
    redirect's next hop is built from, is left as it was."""
    added: dict[str, str] = {}
    for watcher in watchers:
        try:
            extra = watcher.on_send(exchange, request)
        except Exception:
            logger.exception("call watcher %r failed before a send", watcher)
            continue
        for name, value in (extra or {}).items():
            lower = name.lower()
            if (
                lower in public
                and lower not in request.headers
                and not splits_header(value)
            ):
                added[lower] = value
    sent = _with_headers(request, added) if added else request
    try:
        response = yield from send(sent)
    except BaseException as error:
        _tell_sent(watchers, exchange, sent, None, error)
        raise
    _tell_sent(watchers, exchange, sent, response, None)
    return response


def _with_headers(request: Request, added: Mapping[str, str]) -> Request:
    """A copy of ``request`` with ``added`` headers (of the request's own
    types: the HTTP library's, whichever the adapter uses)."""
    headers = type(request.headers)(request.headers)
    for name, value in added.items():
        headers[name] = value
    kind: Any = type(request)  # (the request's own library)
    made: Request = kind(
        request.method,
        request.url,
        headers=headers,
        stream=request.stream,
        extensions=request.extensions,
    )
    return made


def _tell_sent(
    watchers: tuple[CallWatcher, ...],
    exchange: Exchange,
    request: Request,
    response: Response | None,
    error: BaseException | None,
) -> None:
    for watcher in watchers:
        try:
            watcher.on_sent(exchange, request, response, error)
        except Exception:
            logger.exception("call watcher %r failed after a send", watcher)


def tell_end(
    watchers: tuple[CallWatcher, ...],
    exchange: Exchange,
    error: BaseException | None,
    answered: Answered,
) -> None:
    """Tell each watcher the call ended; one that raises is logged."""
    for watcher in watchers:
        try:
            watcher.on_end(exchange, error, answered)
        except Exception:
            logger.exception("call watcher %r failed at the end of a call", watcher)
