"""One call a controller makes: what it asked for, and what it has become.

A :class:`Job` is made before the chain runs (its URL, request key and
exchange); after every middleware has set the request up, the controller's
innermost steps run on it (``_controller``). It carries what they learn: who the call says it is, the flight it
leads, whether it was sent.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Generic, TypeVar

import httpx

from ._chain import Handler
from ._exchange import Exchange
from ._flights import Flight

__all__ = ["FETCH", "GET", "PROBE", "RAW", "Job", "plain_url"]

#: What a call is for: ``fetch`` (send, keep), ``get`` (the store first),
#: ``fetch_response`` (the response, nothing kept), or finding the identity
#: a call would have, sending nothing.
FETCH, GET, RAW, PROBE = "fetch", "get", "raw", "probe"

EventT = TypeVar("EventT")


def plain_url(url: httpx.URL) -> str:
    """``url`` as request-key text: userinfo left out (it is a credential,
    part of the identity instead)."""
    if url.userinfo:
        url = url.copy_with(userinfo=b"")
    return str(url)


class Job(Generic[EventT]):
    """One call, as the controller's steps see it."""

    __slots__ = (
        "exchange",
        "flight",
        "flight_key",
        "generation",
        "handlers",
        "identity",
        "key",
        "method",
        "mode",
        "sent",
        "url",
    )

    def __init__(
        self,
        exchange: Exchange,
        handlers: tuple[Handler, ...],
        key: str,
        generation: int,
        mode: str,
    ) -> None:
        self.exchange = exchange
        #: The endpoint's middleware, as the chain runs them.
        self.handlers = handlers
        #: The request key: ``"GET https://host/path?q=1"``, userinfo left out;
        #: kept in step with ``method`` and ``url``, what the call sends.
        self.key = key
        self.method = exchange.method
        self.url = exchange.url
        #: The store's generation when the call began: a reset since then
        #: means its result is not written back.
        self.generation = generation
        self.mode = mode
        #: Who the call said it was when it was last sent (or looked up).
        self.identity: Hashable = None
        self.flight: Flight[Any] | None = None
        self.flight_key: Hashable = None
        #: Whether the call went to the terminal (and the managers heard).
        self.sent = False

    def rekey(self, exchange: Exchange) -> None:
        """Follow a middleware that re-routed the call (a tenant's host,
        say): it is keyed by what it sends, not by where it started."""
        self.url, self.method = exchange.url, exchange.method
        self.key = f"{exchange.method} {plain_url(exchange.url)}"

    @property
    def label(self) -> str:
        """``"GET https://host/path"`` for messages: credentials in the URL redacted."""
        return self.exchange.label

    @property
    def shared(self) -> bool:
        """Whether identical concurrent calls may share this one's request."""
        exchange = self.exchange
        endpoint = exchange.endpoint
        return (
            exchange.parse
            and exchange.body is None
            and not endpoint.side_effect
            and not endpoint.content.streamed
        )
