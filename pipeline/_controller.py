"""What both controllers are and do without I/O: one base class.

``Controller`` (``_sync``) and ``AsyncController`` (``_async``) derive from
:class:`BaseController` and add only what waits: running a flow, waiting for
a shared request, sleeping between polls. Everything here is theirs alike:

| member | does |
|---|---|
| ``client`` | the ``httpx`` client every call is sent with |
| ``store`` | entities and results (``_store``) |
| ``key(endpoint, params)`` | the request key the store and in-flight sharing use |
| ``invalidate(endpoint, params)`` | forget one stored result |
| ``reset()`` | empty the store; fetches already in flight do not write back |
| ``poll_interval(endpoint, params)`` | the interval a shared poller runs at |

In-flight sharing: identical concurrent reads (same request key, a method
without side effects, a content that is read whole) share one request,
across threads or tasks; mutations are never shared. The first caller of a
key leads and sends; callers that arrive while it is in flight wait for its
outcome. The event they wait on is made by the subclass (``threading.Event``
or ``anyio.Event``), and only when a second caller actually waits: the
usual, uncontended call pays for no event at all.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import httpx

from ._endpoint import RestEndpoint, join_url
from ._entity import EntityError
from ._errors import InvalidRequest, RestwireError, redact_url
from ._exchange import Exchange
from ._header_params import links_by_rel, parse_link_header
from ._hops import origin_of
from ._managers import ManagerHooks, run_hooks
from ._polling import Poller
from ._store import MISSING, Batch, Result, Store, denormalize, normalize
from ._terminal import Terminal

__all__ = ["BaseController", "Flight", "Job", "Params"]

logger = logging.getLogger("restwire")

Params = Mapping[str, Any] | None
ClientT = TypeVar("ClientT", httpx.Client, httpx.AsyncClient)
EventT = TypeVar("EventT")

_PENDING: Any = object()


@dataclass(slots=True)
class Job:
    """One call a controller sends: its exchange, request key, and the store
    generation it began in."""

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
        return not endpoint.side_effect and not endpoint.content.streamed


class Flight(Generic[EventT]):
    """One request in flight; ``event`` exists once somebody waits for it."""

    __slots__ = ("error", "event", "finished", "value")

    def __init__(self) -> None:
        self.event: EventT | None = None
        self.finished = False
        self.value: Any = _PENDING
        self.error: BaseException | None = None

    def outcome(self, label: str) -> Any:
        """The leader's value, or its error raised; for a waiting caller."""
        if self.error is not None:
            raise self.error
        if self.value is _PENDING:
            raise RestwireError(
                f"{label}: the request this call was sharing was abandoned"
            )
        return self.value


class BaseController(Generic[ClientT, EventT]):
    """The state and the I/O-free logic of a controller."""

    def __init__(
        self,
        client: ClientT | None,
        new_client: Callable[[], ClientT],
        new_event: Callable[[], EventT],
        managers: Iterable[object],
        clock: Callable[[], float],
    ) -> None:
        self._owns_client = client is None
        self._client: ClientT = client if client is not None else new_client()
        self._terminal = Terminal(self._client)
        self._hooks = ManagerHooks.of(managers)
        self._clock = clock
        self._store = Store()
        self._new_event = new_event
        self._flights: dict[str, Flight[EventT]] = {}
        self._flights_lock = threading.Lock()
        self._pollers: dict[str, Poller] = {}
        self._pollers_lock = threading.Lock()
        self._parsed: dict[str, httpx.URL] = {}

    # -- public, shared by both ------------------------------------------------

    @property
    def client(self) -> ClientT:
        """The client every call is sent with."""
        return self._client

    @property
    def store(self) -> Store:
        """The store (entities and results); for inspection."""
        return self._store

    def key(self, endpoint: RestEndpoint, params: Params = None) -> str:
        """The request key of a call, as the store and in-flight sharing know
        it: ``"GET https://host/path?a=1"``."""
        return f"{endpoint.method} {self._url(endpoint, params or {})}"

    def invalidate(self, endpoint: RestEndpoint, params: Params = None) -> None:
        """Forget the stored result of this call; the next ``get`` fetches."""
        self._store.invalidate(self.key(endpoint, params))

    def reset(self) -> None:
        """Empty the store; fetches in flight will not write their results."""
        self._store.reset()
        with self._flights_lock:
            self._flights.clear()

    def poll_interval(
        self, endpoint: RestEndpoint, params: Params = None
    ) -> float | None:
        """The interval the poller of this request runs at; ``None`` if none runs."""
        with self._pollers_lock:
            poller = self._pollers.get(self.key(endpoint, params))
            return None if poller is None else poller.interval()

    # -- a call, before and after the chain ----------------------------------------

    def _job(
        self,
        endpoint: RestEndpoint,
        params: Params,
        body: Any,
        *,
        parse: bool = True,
        url: httpx.URL | None = None,
    ) -> Job:
        """A call ready to send; URL and param errors are raised here.

        ``url``, when given (the next page of a listing), replaces the URL
        the endpoint and params would make; the params still reach the
        middleware and ``process``.
        """
        if not isinstance(endpoint, RestEndpoint):
            raise TypeError(f"expected a RestEndpoint, got {endpoint!r}")
        params = params if params is not None else {}
        if url is None:
            url = self._url(endpoint, params)
        exchange = Exchange(
            endpoint,
            params,
            body,
            url,
            endpoint.initial_headers(body),
            self._client.cookies,
            parse=parse,
        )
        return Job(exchange, f"{endpoint.method} {url}", self._store.generation)

    def _url(self, endpoint: RestEndpoint, params: Mapping[str, Any]) -> httpx.URL:
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
        base = self._client.base_url
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

    def _starting(self, job: Job) -> None:
        """Tell the managers a call is about to be sent."""
        if self._hooks.on_call:
            run_hooks(self._hooks.on_call, "the call", self, job.exchange)

    def _finish(self, job: Job) -> Any:
        """Normalize and store a call's value; return it read back, typed; tell
        the managers."""
        value = self._keep(job)
        if self._hooks.on_value:
            run_hooks(self._hooks.on_value, "the value", self, job.exchange, value)
        return value

    def _keep(self, job: Job) -> Any:
        exchange = job.exchange
        endpoint = exchange.endpoint
        value = exchange.value
        if endpoint.content.binary:
            return value  # binary content is never normalized or kept
        keeps = endpoint.data_expiry_length > 0
        if endpoint.schema is None and not keeps:
            return value
        batch = Batch()
        try:
            normalized = normalize(endpoint.schema, value, batch, exchange.params)
        except EntityError as error:
            raise error.from_request(job.label) from error.__cause__
        if not keeps:
            return denormalize(endpoint.schema, normalized, batch.records)
        now = self._clock()
        result = None
        if not endpoint.side_effect:
            expires = now + endpoint.data_expiry_length
            result = Result(endpoint.schema, normalized, now, expires)
        written = self._store.commit(batch, job.key, result, job.generation)
        if written:
            read = denormalize(endpoint.schema, normalized, self._store.records)
            if read is not MISSING:
                return read
        return denormalize(endpoint.schema, normalized, batch.records)

    def _failed(self, job: Job, error: RestwireError) -> None:
        """Keep a read's error for ``error_expiry_length``; tell the managers."""
        endpoint = job.exchange.endpoint
        if not endpoint.side_effect and endpoint.error_expiry_length > 0:
            now = self._clock()
            result = Result(
                endpoint.schema, None, now, now + endpoint.error_expiry_length, error
            )
            self._store.commit(Batch(), job.key, result, job.generation)
        if self._hooks.on_error:
            run_hooks(
                self._hooks.on_error, type(error).__name__, self, job.exchange, error
            )

    def _cached(self, endpoint: RestEndpoint, params: Params) -> Any:
        """A fresh stored value (or its error, raised); ``MISSING`` if none."""
        if endpoint.side_effect:
            raise TypeError(f"{endpoint.label}: get() is for reads; use fetch()")
        result = self._store.result(self.key(endpoint, params))
        if result is None or not result.fresh(self._clock()):
            return MISSING
        if result.error is not None:
            raise result.error
        return self._store.read(result)

    # -- in-flight sharing -----------------------------------------------------------

    def _join(self, key: str) -> tuple[Flight[EventT], EventT | None]:
        """The flight for ``key``, and ``None`` if this caller leads it, else
        the event to wait on (already set if the flight has just landed)."""
        with self._flights_lock:
            flight = self._flights.get(key)
            if flight is None:
                flight = Flight()
                self._flights[key] = flight
                return flight, None
            if flight.event is None:
                flight.event = self._new_event()
            return flight, flight.event

    def _land(self, key: str, flight: Flight[EventT]) -> EventT | None:
        """Finish a flight, so later calls send again; the event to set for
        the callers waiting on it, if any."""
        with self._flights_lock:
            if self._flights.get(key) is flight:
                del self._flights[key]
            flight.finished = True
            return flight.event

    def _shared_value(self, job: Job, flight: Flight[EventT]) -> Any:
        """A waiting caller's value: its own read of the store when stored."""
        value = flight.outcome(job.label)
        result = self._store.result(job.key)
        if result is not None and result.error is None and result.fresh(self._clock()):
            read = self._store.read(result)
            if read is not MISSING:
                return read
        return value

    # -- pagination and downloads ---------------------------------------------------

    @staticmethod
    def _next_page(job: Job, seen: set[str], cross_origin: bool) -> httpx.URL | None:
        """The ``rel="next"`` URL of a page just fetched; ``None`` at the end,
        or when it would revisit a page (a cycle of next links)."""
        response = job.exchange.response
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
                job.label,
                redact_url(url),
            )
            return None
        if not cross_origin and origin_of(url) != job.exchange.origin:
            raise InvalidRequest(
                f"{job.label}: next link {redact_url(url)} is on another origin; "
                "pass cross_origin=True to follow it"
            )
        return url

    @staticmethod
    def _page_items(job: Job, value: Any) -> list[Any]:
        """The items of a page: a list, or the ``results`` of a dict."""
        if isinstance(value, dict) and isinstance(value.get("results"), list):
            return list(value["results"])
        if isinstance(value, list):
            return value
        raise RestwireError(
            f"{job.label}: paginate(items=True) needs a list or a dict with a "
            f"'results' list, got {type(value).__name__}"
        )

    @staticmethod
    def _download_endpoint(endpoint: RestEndpoint) -> RestEndpoint:
        """The endpoint as ``download`` calls it: body streamed, nothing kept."""
        if endpoint.content.streamed:
            return endpoint
        return endpoint.extend(content="stream")

    # -- polling ----------------------------------------------------------------------

    def _frequency(self, endpoint: RestEndpoint, frequency: float | None) -> float:
        chosen = frequency if frequency is not None else endpoint.poll_frequency
        if chosen is None or chosen <= 0:
            raise ValueError(
                f"{endpoint.label}: no poll frequency; set poll_frequency on the "
                "endpoint or pass frequency="
            )
        return float(chosen)

    def _poller(self, endpoint: RestEndpoint, params: Params) -> tuple[Poller, bool]:
        """The poller of this request (caller holds ``_pollers_lock``), and
        whether it is new and needs running."""
        key = self.key(endpoint, params)
        poller = self._pollers.get(key)
        if poller is not None:
            return poller, False
        poller = Poller(key, endpoint, dict(params or {}), self._clock)
        self._pollers[key] = poller
        return poller, True

    def _poller_done(self, poller: Poller) -> bool:
        """True if ``poller`` may end (nobody listens); then it is forgotten."""
        with self._pollers_lock:
            if poller.interval() is not None:
                return False
            if self._pollers.get(poller.key) is poller:
                del self._pollers[poller.key]
            return True

    def _stop_pollers(self) -> list[Poller]:
        with self._pollers_lock:
            pollers = list(self._pollers.values())
            self._pollers.clear()
        for poller in pollers:
            with poller.lock:
                poller.stopped = True
            poller.wake()
        return pollers

    @staticmethod
    def _deliver(poller: Poller, value: Any, error: Exception | None) -> list[Any]:
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
