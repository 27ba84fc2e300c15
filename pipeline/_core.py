"""What both controllers do without I/O: calls, the store, managers, pollers.

``Controller`` and ``AsyncController`` (``pipeline._controller``) hold one
``Core`` each and differ only in how they wait: a driver, an event, a sleep.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import httpx

from ._content import BINARY
from ._endpoint import RestEndpoint
from ._entity import EntityError
from ._errors import InvalidRequest, RestwireError
from ._exchange import Exchange, origin_of
from ._inflight import Flight
from ._links import links_by_rel, parse_link_header
from ._managers import Manager
from ._paths import join_url
from ._polling import Poller
from ._redact import redact_url
from ._schema import MISSING, Batch, denormalize, normalize
from ._store import Result, Store

__all__ = ["Call", "Core"]

logger = logging.getLogger("restwire")

ClientT = TypeVar("ClientT", httpx.Client, httpx.AsyncClient)


@dataclass(slots=True)
class Call:
    """One call: its exchange, request key, and the store generation it began in."""

    exchange: Exchange
    key: str
    generation: int

    @property
    def label(self) -> str:
        """``"GET https://host/path"`` for messages: credentials in the URL redacted."""
        return f"{self.exchange.method} {redact_url(self.exchange.url)}"

    @property
    def shared(self) -> bool:
        """Whether identical concurrent calls may share this one's request."""
        endpoint = self.exchange.endpoint
        return not endpoint.side_effect and endpoint.content != "stream"


class Core(Generic[ClientT]):
    """The state and logic of one controller."""

    def __init__(
        self,
        owner: Any,
        client: ClientT | None,
        new_client: type[ClientT],
        managers: Iterable[Manager],
        clock: Callable[[], float],
    ) -> None:
        self.owner = owner
        self.owns_client = client is None
        self.client: ClientT = client if client is not None else new_client()
        self.managers = tuple(managers)
        self.clock = clock
        self.store = Store()
        self.pollers: dict[str, Poller] = {}
        self._parsed: dict[str, httpx.URL] = {}
        self.pollers_lock = threading.Lock()

    # -- calls ---------------------------------------------------------------

    def call(
        self,
        endpoint: RestEndpoint,
        params: Mapping[str, Any] | None,
        body: Any,
        *,
        parse: bool = True,
        url: httpx.URL | None = None,
    ) -> Call:
        """A call ready to send; URL and param errors are raised here.

        ``url``, when given (the next page of a listing), replaces the URL
        the endpoint and params would make; the params still reach the
        middleware and ``process``.
        """
        if not isinstance(endpoint, RestEndpoint):
            raise TypeError(f"expected a RestEndpoint, got {endpoint!r}")
        params = params if params is not None else {}
        if url is None:
            url = self.url(endpoint, params)
        headers = endpoint.initial_headers(body)
        exchange = Exchange(
            endpoint, params, body, url, headers, self.client, parse=parse
        )
        return Call(exchange, f"{endpoint.method} {url}", self.store.generation)

    def url(self, endpoint: RestEndpoint, params: Mapping[str, Any]) -> httpx.URL:
        """The absolute URL of a call: the endpoint's, else on the client's base_url.

        Parsed URLs are kept (``httpx.URL`` is immutable): calls to the same
        URL, the common case of polling and re-reading, parse it once.
        """
        text = endpoint.url(params)
        parsed = self._parsed.get(text)
        if parsed is not None:
            return parsed
        url = self._parse(endpoint, text)
        if len(self._parsed) >= 4096:
            self._parsed.clear()
        self._parsed[text] = url
        return url

    def _parse(self, endpoint: RestEndpoint, text: str) -> httpx.URL:
        base = self.client.base_url
        try:
            url = httpx.URL(text)
            if url.is_relative_url and base.host:
                url = httpx.URL(join_url(str(base), text))
        except httpx.InvalidURL as error:
            raise InvalidRequest(
                f"{endpoint.label}: invalid URL {text!r}: {error}"
            ) from None
        if url.is_relative_url or url.scheme not in ("http", "https"):
            raise InvalidRequest(
                f"{endpoint.label}: {text!r} is not an http(s) URL; give the endpoint "
                "a url_prefix or the client a base_url"
            )
        return url

    def key(self, endpoint: RestEndpoint, params: Mapping[str, Any] | None) -> str:
        """The request key of a call, as the store knows it."""
        return f"{endpoint.method} {self.url(endpoint, params or {})}"

    # -- after the chain -----------------------------------------------------

    def finish(self, call: Call) -> Any:
        """Normalize and store a call's value; return it read back, typed."""
        exchange = call.exchange
        endpoint = exchange.endpoint
        value = exchange.value
        if endpoint.content in BINARY:
            return value  # binary content is never normalized or kept
        keeps = endpoint.data_expiry_length > 0
        if endpoint.schema is None and not keeps:
            return value
        batch = Batch()
        try:
            normalized = normalize(endpoint.schema, value, batch, exchange.params)
        except EntityError as error:
            raise error.from_request(call.label) from error.__cause__
        if not keeps:
            return denormalize(endpoint.schema, normalized, batch.records)
        now = self.clock()
        result = None
        if not endpoint.side_effect:
            expires = now + endpoint.data_expiry_length
            result = Result(endpoint.schema, normalized, now, expires)
        written = self.store.commit(batch, call.key, result, call.generation)
        if written:
            read = denormalize(endpoint.schema, normalized, self.store.records)
            if read is not MISSING:
                return read
        return denormalize(endpoint.schema, normalized, batch.records)

    def failed(self, call: Call, error: RestwireError) -> None:
        """Keep a read's error for ``error_expiry_length``; tell the managers."""
        endpoint = call.exchange.endpoint
        if not endpoint.side_effect and endpoint.error_expiry_length > 0:
            now = self.clock()
            result = Result(
                endpoint.schema, None, now, now + endpoint.error_expiry_length, error
            )
            self.store.commit(Batch(), call.key, result, call.generation)
        for manager in self.managers:
            try:
                manager.on_error(self.owner, error)
            except Exception:
                logger.exception(
                    "manager %r failed on %s", manager, type(error).__name__
                )

    def cached(self, endpoint: RestEndpoint, params: Mapping[str, Any] | None) -> Any:
        """A fresh stored value (or its error, raised); ``MISSING`` if none."""
        if endpoint.side_effect:
            raise TypeError(f"{endpoint.label}: get() is for reads; use fetch()")
        result = self.store.result(self.key(endpoint, params))
        if result is None or not result.fresh(self.clock()):
            return MISSING
        if result.error is not None:
            raise result.error
        return self.store.read(result)

    def shared_value(self, call: Call, flight: Flight[Any]) -> Any:
        """A waiting caller's value: its own read of the store when stored."""
        value = flight.outcome(call.label)
        result = self.store.result(call.key)
        if result is not None and result.error is None and result.fresh(self.clock()):
            read = self.store.read(result)
            if read is not MISSING:
                return read
        return value

    # -- pagination and downloads ----------------------------------------------

    @staticmethod
    def next_page(call: Call, seen: set[str], cross_origin: bool) -> httpx.URL | None:
        """The ``rel="next"`` URL of a page just fetched; ``None`` at the end,
        or when it would revisit a page (a cycle of next links)."""
        response = call.exchange.response
        if response is None:
            return None
        links = links_by_rel(
            parse_link_header(response.headers.get("link"), response.request.url)
        )
        following = links.get("next")
        if following is None:
            return None
        url = httpx.URL(following.url)
        if str(url) in seen:
            logger.warning(
                "%s: next link %s was already fetched; stopping",
                call.label,
                redact_url(url),
            )
            return None
        if not cross_origin and origin_of(url) != call.exchange.origin:
            raise InvalidRequest(
                f"{call.label}: next link {redact_url(url)} is on another origin; "
                "pass cross_origin=True to follow it"
            )
        return url

    @staticmethod
    def page_items(call: Call, value: Any) -> list[Any]:
        """The items of a page: a list, or the ``results`` of a dict."""
        if isinstance(value, dict) and isinstance(value.get("results"), list):
            return list(value["results"])
        if isinstance(value, list):
            return value
        raise RestwireError(
            f"{call.label}: paginate(items=True) needs a list or a dict with a "
            f"'results' list, got {type(value).__name__}"
        )

    @staticmethod
    def download_call_endpoint(endpoint: RestEndpoint) -> RestEndpoint:
        """The endpoint as ``download`` calls it: body streamed, nothing kept."""
        if endpoint.content == "stream":
            return endpoint
        return endpoint.extend(content="stream")

    # -- lifecycle -------------------------------------------------------------

    def reset(self) -> None:
        self.store.reset()

    def invalidate(
        self, endpoint: RestEndpoint, params: Mapping[str, Any] | None
    ) -> None:
        self.store.invalidate(self.key(endpoint, params))

    # -- polling -----------------------------------------------------------------

    def frequency(self, endpoint: RestEndpoint, frequency: float | None) -> float:
        chosen = frequency if frequency is not None else endpoint.poll_frequency
        if chosen is None or chosen <= 0:
            raise ValueError(
                f"{endpoint.label}: no poll frequency; set poll_frequency on the "
                "endpoint or pass frequency="
            )
        return float(chosen)

    def poller(
        self, endpoint: RestEndpoint, params: Mapping[str, Any] | None
    ) -> tuple[Poller, bool]:
        """The poller of this request (caller holds ``pollers_lock``), and
        whether it is new and needs running."""
        key = self.key(endpoint, params)
        poller = self.pollers.get(key)
        if poller is not None:
            return poller, False
        poller = Poller(key, endpoint, dict(params or {}), self.clock)
        self.pollers[key] = poller
        return poller, True

    def poller_done(self, poller: Poller) -> bool:
        """True if ``poller`` may end (nobody listens); then it is forgotten."""
        with self.pollers_lock:
            if poller.interval() is not None:
                return False
            if self.pollers.get(poller.key) is poller:
                del self.pollers[poller.key]
            return True

    def poll_interval(
        self, endpoint: RestEndpoint, params: Mapping[str, Any] | None = None
    ) -> float | None:
        with self.pollers_lock:
            poller = self.pollers.get(self.key(endpoint, params))
            return None if poller is None else poller.interval()

    def stop_pollers(self) -> list[Poller]:
        with self.pollers_lock:
            pollers = list(self.pollers.values())
            self.pollers.clear()
        for poller in pollers:
            with poller.lock:
                poller.stopped = True
            poller.wake()
        return pollers

    @staticmethod
    def deliver(poller: Poller, value: Any, error: Exception | None) -> list[Any]:
        """Hand a poll's outcome to every subscriber; return what they returned."""
        returned = []
        for subscriber in poller.listeners():
            try:
                if error is None:
                    returned.append(subscriber.callback(value))
                elif subscriber.on_error is not None:
                    returned.append(subscriber.on_error(error))
            except Exception:
                logger.exception("subscriber of %s failed", poller.key)
        if error is not None and not any(s.on_error for s in poller.listeners()):
            logger.warning("poll of %s failed: %s", poller.key, error)
        return returned
