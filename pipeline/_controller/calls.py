"""One call a controller makes: where it goes, what it asked for, and what
it has become; and identical calls that share one request.

:class:`Targets` works out where a call goes: its absolute URL (the
endpoint's path template filled, the other params as the query string, on
the client's ``base_url`` when the endpoint has no prefix) and the request
key it is kept by, both remembered from a URL's second call on
(``httpx.URL`` is immutable): polling and re-reading, the common case of
calls to one URL, parse it twice, and calls that each go to a URL of their
own keep no URL.

A :class:`Job` is made before the chain runs (its URL, request key and
exchange); after every middleware has set the request up, the controller's
innermost steps run on it (``controller``). It carries what they learn: who the call says it is, the flight it
leads, whether it was sent.

**Calls in flight** (:class:`Flights`). A read (no side effect, no body, content read whole) that finds another
call of the same request key, identity and value shape already in flight
waits for it and takes its value, instead of sending its own request. If
the leader is cancelled, or fails outside restwire, or was finally sent as
another identity (a middleware changed its credentials after it joined),
one of its waiters sends instead: no patient caller is failed by an
impatient one. A restwire error is every waiter's error too.

Written once for both drivers: a waiter yields ``_Await(event)`` (what
:meth:`Flights.join` hands it), and the
driver waits on it (a ``threading.Event`` or an ``anyio.Event``: the
controller says which with ``new_event``). Closing the controller wakes
every waiter.
"""

from __future__ import annotations

import datetime
import decimal
import threading
import uuid
from collections.abc import Callable, Collection, Hashable, Mapping
from typing import Any, Generic, Protocol, TypeVar

from .._base.credentials import CREDENTIAL_PARAMS
from .._base.effects import _Answer, _Await
from .._base.errors import InvalidRequest, RestwireError, fresh_error, redact_url
from .._base.forks import renewed_in_child
from .._base.library import INVALID_URL, URL, AsyncClient, Client, library_of
from .._chain.exchange import Answered, Exchange, Handler
from .._chain.identity import plain_url
from .._endpoints.endpoint import RestEndpoint
from .._wire.params import join_url
from .._wire.shortcuts import parse_url

__all__ = [
    "BOTH",
    "FETCH",
    "GET",
    "PENDING",
    "PROBE",
    "RAW",
    "Flight",
    "Flights",
    "Job",
    "Targets",
    "remember",
]

#: What a call is for: ``fetch`` (send, keep), ``get`` (the store first),
#: ``fetch_response`` (the response, nothing kept), ``fetch_with_response``
#: (send, keep, the value and its own response: it joins no other call),
#: or finding the identity a call would have, sending nothing.
FETCH, GET, RAW, BOTH, PROBE = "fetch", "get", "raw", "both", "probe"


class _Event(Protocol):
    """What ``threading.Event`` and ``anyio.Event`` both are to a flight."""

    def set(self) -> None: ...


#: A flight's value before its leader lands.
PENDING: Any = object()

#: The event a call in flight is waited for with (the controller's kind).
EventT = TypeVar("EventT", bound=_Event)


class Job(Generic[EventT]):
    """One call, as the controller's steps see it."""

    __slots__ = (
        "answered",
        "body",
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
        #: The body as the caller gave it (middleware may rewrite the
        #: exchange's: casing, renaming).
        self.body = exchange.body
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
        #: Whether the call went to the sender (and the managers heard).
        self.sent = False
        #: How the call was answered without sending (``"store"``,
        #: ``"flight"``), and the error that answer raises: told to its
        #: watchers (``_chain.watchers``).
        self.answered: tuple[Answered, BaseException | None] = (None, None)

    def rekey(
        self, exchange: Exchange, credential_params: Collection[str] = CREDENTIAL_PARAMS
    ) -> None:
        """Follow a middleware that re-routed the call (a tenant's host,
        say): it is keyed by what it sends, not by where it started."""
        self.url, self.method = exchange.url, exchange.method
        self.key = f"{exchange.method} {plain_url(exchange.url, credential_params)}"

    def land(
        self,
        flights: Flights[Any],
        value: Any = PENDING,
        error: BaseException | None = None,
    ) -> None:
        """Land the flight this job leads, if it leads one: identical calls
        waiting for it are woken to its ``value`` (or ``error``)."""
        flight = self.flight
        if flight is not None:
            self.flight = None
            flights.land(self.flight_key, flight, self.identity, value, error)

    @property
    def label(self) -> str:
        """``"GET https://host/path"`` for messages: credentials in the URL redacted."""
        return self.exchange.label

    @property
    def shared(self) -> bool:
        """Whether identical concurrent calls may share this one's request
        (not a ``fetch_with_response``: its response must be its own)."""
        exchange = self.exchange
        endpoint = exchange.endpoint
        return (
            exchange.parse
            and self.mode != BOTH
            and exchange.body is None
            and not endpoint.side_effect
            and not endpoint.content.streamed
        )


# -- where a call goes ---------------------------------------------------------

#: How many entries each cache holds before it is emptied (a bound, not an
#: LRU: refilling is cheap).
_CACHE_SIZE = 1024

#: Param types whose text never changes: their URLs are remembered.
_REMEMBERED = frozenset(
    (str, int, float, bool, type(None), decimal.Decimal, uuid.UUID, datetime.date)
) | {datetime.datetime, datetime.time}

KeyT = TypeVar("KeyT", bound=Hashable)
ValT = TypeVar("ValT")


def remember(cache: dict[KeyT, ValT], key: KeyT, value: ValT) -> ValT:
    """``cache[key] = value``, the cache emptied first when full; ``value``."""
    if len(cache) >= _CACHE_SIZE:
        cache.clear()
    cache[key] = value
    return value


class Targets:
    """The URLs of one client's calls."""

    __slots__ = ("_client", "_library", "_names", "_parsed", "_seen", "_targets")

    def __init__(
        self,
        client: Client | AsyncClient,
        credential_params: Collection[str] = CREDENTIAL_PARAMS,
    ) -> None:
        self._client = client
        #: The params whose values request keys leave out (the identity
        #: holds them): the controller's ``Sharing.credential_params``.
        self._names = credential_params
        #: The client's library (httpx or httpx2), whose URLs it makes.
        self._library = library_of(client)
        #: URL text -> (parsed URL, its text without userinfo)
        self._parsed: dict[str, tuple[URL, str]] = {}
        #: (endpoint, params) -> the same, skipping the template (bounded)
        self._targets: dict[Hashable, tuple[URL, str]] = {}
        #: The hashes of the URL texts and calls seen lately (bounded): only
        #: one seen before is remembered, so calls that each go to a URL of
        #: their own keep nothing (a URL object kept is several objects more
        #: for the cyclic garbage collector, for nothing).
        self._seen: set[int] = set()

    def __call__(
        self, endpoint: RestEndpoint, params: Mapping[str, Any]
    ) -> tuple[URL, str]:
        """The absolute URL of a call, and its text without userinfo, for
        the request key."""
        # Remembered only for params of immutable scalar types, whose text
        # cannot change, keyed with their types ({"id": 1} and {"id": True}
        # are equal tuples but different URLs); others are worked out each time.
        call: Hashable = None
        items = []
        for name, value in params.items():
            kind = type(value)
            if kind not in _REMEMBERED:
                break
            items.append((name, kind, value))
        else:
            call = (endpoint, tuple(items))
            kept = self._targets.get(call)
            if kept is not None:
                return kept
        text = endpoint.url(params)
        kept = self._parsed.get(text)
        if kept is None:
            url = self._parse(endpoint, text)
            kept = (url, plain_url(url, self._names))
            if self._again(text):
                remember(self._parsed, text, kept)
        if call is not None and self._again(call):
            remember(self._targets, call, kept)
        return kept

    def _again(self, key: Hashable) -> bool:
        """Whether ``key`` was seen lately (by its hash: a collision only
        remembers a URL for nothing); it is noted as seen."""
        seen = self._seen
        marker = hash(key)
        if marker in seen:
            return True
        if len(seen) >= _CACHE_SIZE * 4:
            seen.clear()
        seen.add(marker)
        return False

    def _parse(self, endpoint: RestEndpoint, text: str) -> URL:
        base = self._client.base_url
        try:
            url = parse_url(self._library, text)
            if url.is_relative_url and base.host:
                url = parse_url(self._library, join_url(str(base), text))
        except INVALID_URL as error:
            shown = redact_url(text)
            # (the library's reason quotes parts of the URL: a password's,
            # when the URL holds one)
            reason = (
                f": {error}"
                if shown == text
                else " (the reason is not shown: it could quote a credential)"
            )
            raise InvalidRequest(
                f"{endpoint.label}: invalid URL {shown!r}{reason}"
            ) from None
        if url.is_relative_url or url.scheme not in ("http", "https"):
            raise InvalidRequest(
                f"{endpoint.label}: {redact_url(text)!r} is not an http(s) URL; give "
                "the endpoint a url_prefix or the client a base_url"
            )
        return url


# -- calls in flight ------------------------------------------------------------


class Flight(Generic[EventT]):
    """One request in flight; ``event`` exists once somebody waits for it."""

    __slots__ = ("error", "event", "identity", "value")

    def __init__(self) -> None:
        self.event: EventT | None = None
        self.value: Any = PENDING
        self.error: RestwireError | None = None
        #: The identity of the request the leader finally sent.
        self.identity: Hashable = None

    def answer_for(self, identity: Hashable) -> _Answer | None:
        """A waiter's answer, once the flight landed: its error (a fresh
        copy) or its value; ``None`` when the waiter must join again (the
        leader was sent as another identity after all, or was cancelled,
        or failed outside restwire)."""
        if self.identity != identity:
            return None  # sent as another identity after all: not ours
        if self.error is not None:
            return _Answer(error=fresh_error(self.error))
        if self.value is PENDING:
            return None  # its leader was cancelled, or failed outside restwire
        return _Answer(self.value)


class Flights(Generic[EventT]):
    """The flights of one controller, by (request key, identity, shape)."""

    __slots__ = ("__weakref__", "_flights", "_lock", "_new_event")

    def __init__(self, new_event: Callable[[], EventT]) -> None:
        self._flights: dict[Hashable, Flight[EventT]] = {}
        self._lock = threading.Lock()
        self._new_event = new_event
        renewed_in_child(self, "_lock", abandon="_abandon")

    def _abandon(self) -> None:
        """In a forked child: the parent's flights, whose leaders are
        threads the child does not have, never land; later calls send."""
        self._flights = {}

    def join(self, key: Hashable) -> tuple[Flight[EventT], _Await | None]:
        """The flight of ``key``, and ``None`` if the caller leads it (it is
        new), else what to yield to wait for it to land (then look at its
        outcome, and join again if it has none for you)."""
        with self._lock:
            flight = self._flights.get(key)
            if flight is None:
                flight = self._flights[key] = Flight()
                return flight, None
            if flight.event is None:
                flight.event = self._new_event()
            return flight, _Await(flight.event)

    def land(
        self,
        key: Hashable,
        flight: Flight[EventT],
        identity: Hashable,
        value: Any = PENDING,
        error: BaseException | None = None,
    ) -> None:
        """Finish ``flight``, so later calls send again, and wake its
        waiters. A ``RestwireError`` is theirs too; any other ending (a
        cancellation, a bug) leaves them to send for themselves."""
        with self._lock:
            if self._flights.get(key) is flight:
                del self._flights[key]
            flight.identity = identity
            flight.value = value
            if isinstance(error, RestwireError):
                flight.error = error
            event = flight.event
        if event is not None:
            event.set()

    def clear(self) -> None:
        """Forget every flight: calls already in the air finish, and later
        ones send again (their waiters are woken too)."""
        with self._lock:
            flights = list(self._flights.values())
            self._flights.clear()
        for flight in flights:
            if flight.event is not None:
                flight.event.set()
