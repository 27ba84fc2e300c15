"""What both controllers are and do without I/O: one base class.

``Controller`` (``_sync``) and ``AsyncController`` (``_async``) derive from
:class:`BaseController` and add only what waits: running a flow, sleeping
between polls, closing. Everything here is theirs alike:

| member | does |
|---|---|
| ``client`` | the ``httpx`` client every call is sent with |
| ``store`` | entities and results (``_store``), kept apart per identity |
| ``key(endpoint, params)`` | the request key a call has: ``"GET https://host/path"`` |
| ``invalidate(endpoint, params)`` | forget the stored results of one request, whoever fetched them |
| ``reset()`` | empty the store; fetches already in flight do not write back |
| ``poll_interval(endpoint, params)`` | the interval a shared poller runs at |

**Who may share a response.** A call's :class:`Job` is the innermost step of
its own chain: it runs after every middleware has set the request up, so it
sees exactly what would be sent. There it works out the call's identity
(``_hops.identity_of``: its credential headers, the URL's userinfo, the
cookies it may send, the client's auth) and the endpoint's value shape
(schema, middleware, processing), and only a call of the same request key,
identity and shape may answer it:

- ``get`` answers from the store when that identity holds a fresh result;
- a read (no side effect, no body, content read whole) joins another call
  of the same key, identity and shape already in flight and takes its value;
  if that call is cancelled or fails outside restwire, one of its waiters
  sends instead, so no patient caller is failed by an impatient one;
- otherwise it sends, through the controller's :class:`Terminal`.

An answer that was not sent unwinds the chain with ``_Served``, a private
``BaseException``: no middleware's response side runs twice on one value.
Working out an identity costs about 2 us. A ``get`` whose middleware all say
``sends_credentials = False`` knows it without running the chain at all
(:meth:`BaseController._from_store`).
"""

from __future__ import annotations

import datetime
import decimal
import logging
import threading
import uuid
from collections.abc import (
    Callable,
    Hashable,
    Iterable,
    Mapping,
    Sequence,
)
from types import TracebackType
from typing import Any, Generic, Protocol, Self, TypeVar

import httpx
from multidict import MultiDict, MultiMapping

from ._chain import run_exchange
from ._effects import Flow, _Await
from ._endpoint import RestEndpoint, as_params, join_url
from ._entity import EntityError
from ._errors import InvalidRequest, RestwireError, fresh_error, redact_url
from ._exchange import Exchange
from ._header_params import links_by_rel, parse_link_header
from ._hops import identity_of, origin_of
from ._http_cache import HttpCache, Ticket, body_digest, cache_key
from ._managers import ManagerHooks, run_hooks
from ._models import plain_body
from ._polling import Poller
from ._store import MISSING, Batch, Result, Store, denormalize, normalize
from ._terminal import UNCHANGED, Terminal
from ._unparsed import Unparsed

__all__ = ["BaseController", "Flight", "Job", "Params"]

logger = logging.getLogger("restwire")

#: What a call's params may be: a mapping (a ``MultiDict`` for repeated
#: names), httpx's ``QueryParams``, or ``(name, value)`` pairs.
Params = Mapping[str, Any] | Sequence[tuple[str, Any]] | httpx.QueryParams | None

#: How many entries each of a controller's URL caches holds before it is
#: emptied (a bound, not an LRU: refilling is cheap).
_CACHE_SIZE = 4096

KeyT = TypeVar("KeyT", bound=Hashable)
ValT = TypeVar("ValT")


def _remember(cache: dict[KeyT, ValT], key: KeyT, value: ValT) -> ValT:
    """``cache[key] = value``, the cache emptied first when full; ``value``."""
    if len(cache) >= _CACHE_SIZE:
        cache.clear()
    cache[key] = value
    return value


#: Param types whose text never changes: their URLs are remembered.
_REMEMBERED = frozenset(
    (str, int, float, bool, type(None), decimal.Decimal, uuid.UUID, datetime.date)
) | {datetime.datetime, datetime.time}
ClientT = TypeVar("ClientT", httpx.Client, httpx.AsyncClient)


class _Event(Protocol):
    """What ``threading.Event`` and ``anyio.Event`` both are to a flight."""

    def set(self) -> None: ...


EventT = TypeVar("EventT", bound=_Event)

_PENDING: Any = object()

#: What a job does at the innermost step (see :meth:`BaseController._front`).
FETCH, GET, RAW, PROBE = "fetch", "get", "raw", "probe"


class _Served(BaseException):
    """A call answered without being sent: from the store, or by another
    call's request in flight (or, probing, the call's identity). Raised at
    the innermost step, it unwinds every middleware without running its
    response side; a ``BaseException``, so no ``except Exception`` in a
    middleware swallows it."""

    def __init__(self, value: Any = None, error: BaseException | None = None):
        super().__init__()
        self.value = value
        self.error = error

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


class _Settling:
    """Around running a job's chain and finishing it: the one policy for how
    a call ends, under both drivers (``BaseController._settling``). A class,
    not a ``contextmanager`` generator: it is entered once per call."""

    __slots__ = ("controller", "job", "served", "value")

    def __init__(self, controller: BaseController[Any, Any], job: Job[Any]) -> None:
        self.controller = controller
        self.job = job
        self.value: Any = None
        self.served: _Served | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool:
        controller, job = self.controller, self.job
        if error is None:
            controller._land(job, self.value)
            return False
        if isinstance(error, _Served):
            self.served = error
            return True  # answered without sending: read by result()
        if isinstance(error, RestwireError):
            controller._failed(job, error)
        controller._land(job, error=error)
        return False

    def result(self) -> Any:
        """The call's value, or its answer from the store or a flight (an
        error raised here, outside any ``except``, carries no ``_Served``)."""
        return self.value if self.served is None else self.served.outcome()


class Flight(Generic[EventT]):
    """One request in flight; ``event`` exists once somebody waits for it."""

    __slots__ = ("error", "event", "identity", "value")

    def __init__(self) -> None:
        self.event: EventT | None = None
        self.value: Any = _PENDING
        self.error: RestwireError | None = None
        #: The identity of the request the leader finally sent.
        self.identity: Hashable = None


class Job(Generic[EventT]):
    """One call a controller makes, and the innermost step of its chain."""

    __slots__ = (
        "controller",
        "exchange",
        "flight",
        "flight_key",
        "generation",
        "identity",
        "key",
        "method",
        "mode",
        "sent",
        "url",
    )

    def __init__(
        self,
        controller: BaseController[Any, EventT],
        exchange: Exchange,
        key: str,
        generation: int,
        mode: str,
    ) -> None:
        self.controller = controller
        self.exchange = exchange
        #: The request key: ``"GET https://host/path?q=1"``, userinfo left out;
        #: kept in step with ``method`` and ``url``, what the call sends.
        self.key = key
        self.method = exchange.method
        self.url = exchange.url
        self.generation = generation
        self.mode = mode
        #: Who the call said it was when it was last sent (or looked up).
        self.identity: Hashable = None
        self.flight: Flight[EventT] | None = None
        self.flight_key: Hashable = None
        #: Whether the call went to the terminal (and the managers heard).
        self.sent = False

    def __call__(self, exchange: Exchange) -> Flow[httpx.Response]:
        return self.controller._front(self, exchange)

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


class BaseController(Generic[ClientT, EventT]):
    """The state and the I/O-free logic of a controller."""

    def __init__(
        self,
        client: ClientT | None,
        new_client: Callable[[], ClientT],
        new_event: Callable[[], EventT],
        managers: Iterable[object],
        clock: Callable[[], float],
        cache: HttpCache | None = None,
    ) -> None:
        self._owns_client = client is None
        self._client: ClientT = client if client is not None else new_client()
        self._cache = cache
        if cache is not None:
            cache.install(self._client)
        self._terminal = Terminal(self._client)
        self._hooks = ManagerHooks.of(managers)
        self._clock = clock
        self._store = Store()
        self._new_event = new_event
        self._flights: dict[Hashable, Flight[EventT]] = {}
        self._flights_lock = threading.Lock()
        self._pollers: dict[Hashable, Poller] = {}
        self._pollers_lock = threading.Lock()
        #: URL text -> (parsed URL, its text without userinfo)
        self._parsed: dict[str, tuple[httpx.URL, str]] = {}
        #: (endpoint, params) -> the same, skipping the template (bounded)
        self._targets: dict[Hashable, tuple[httpx.URL, str]] = {}

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
        """The request key of a call: ``"GET https://host/path?a=1"``, on the
        client's ``base_url`` when the endpoint has no prefix, any userinfo
        left out. With the caller's identity and the endpoint's value shape,
        it keys what the store keeps and what calls in flight share."""
        given = as_params(params, endpoint.label)
        return f"{endpoint.method} {self._target(endpoint, given)[1]}"

    def invalidate(self, endpoint: RestEndpoint, params: Params = None) -> None:
        """Forget the stored results of this request, whoever fetched them;
        the next ``get`` fetches."""
        self._store.invalidate(self.key(endpoint, params))

    def reset(self) -> None:
        """Empty the store; fetches in flight will not write their results."""
        self._store.reset()
        with self._flights_lock:
            self._flights.clear()

    def poll_interval(
        self, endpoint: RestEndpoint, params: Params = None
    ) -> float | None:
        """The shortest interval a poller of this request runs at, for any
        caller; ``None`` if none runs."""
        key = self.key(endpoint, params)
        with self._pollers_lock:
            intervals = [
                interval
                for poller in self._pollers.values()
                if poller.request_key == key
                and (interval := poller.interval()) is not None
            ]
        return min(intervals, default=None)

    # -- a call, before the chain -----------------------------------------------

    def _job(
        self,
        endpoint: RestEndpoint,
        params: Params,
        body: Any,
        mode: str = FETCH,
        *,
        url: httpx.URL | None = None,
    ) -> Job[EventT]:
        """A call ready to send; URL and param errors are raised here.

        ``url``, when given (the next page of a listing), replaces the URL
        the endpoint and params would make; the params still reach the
        middleware and ``process``.
        """
        if not isinstance(endpoint, RestEndpoint):
            raise TypeError(f"expected a RestEndpoint, got {endpoint!r}")
        if mode == GET and endpoint.side_effect:
            raise TypeError(f"{endpoint.label}: get() is for reads; use fetch()")
        params = as_params(params, endpoint.label)
        if body is not None:
            body = plain_body(body)  # an entity or model as its JSON object
        if url is None:
            url, plain = self._target(endpoint, params)
        else:
            plain = _plain(url)
        exchange = Exchange(
            endpoint,
            params,
            body,
            url,
            endpoint.initial_headers(body),
            self._client.cookies,
            parse=mode != RAW,
        )
        key = f"{endpoint.method} {plain}"
        return Job(self, exchange, key, self._store.generation, mode)

    def _target(
        self, endpoint: RestEndpoint, params: Mapping[str, Any]
    ) -> tuple[httpx.URL, str]:
        """The absolute URL of a call (the endpoint's, else on the client's
        base_url), and its text without userinfo, for the request key.

        Both are kept (``httpx.URL`` is immutable): calls to the same URL, the
        common case of polling and re-reading, parse it once.
        """
        # Remembered only for params of immutable scalar types, whose text
        # cannot change, keyed with their types ({"id": 1} and {"id": True}
        # are equal tuples but different URLs); others are worked out each time.
        items = tuple((name, type(value), value) for name, value in params.items())
        call: Hashable = None
        if all(kind in _REMEMBERED for _, kind, _ in items):
            call = (endpoint, items)
            kept = self._targets.get(call)
            if kept is not None:
                return kept
        text = endpoint.url(params)
        kept = self._parsed.get(text)
        if kept is None:
            url = self._parse(endpoint, text)
            kept = _remember(self._parsed, text, (url, _plain(url)))
        if call is not None:
            _remember(self._targets, call, kept)
        return kept

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

    # -- a call, at the innermost step ----------------------------------------------

    def _front(self, job: Job[EventT], exchange: Exchange) -> Flow[httpx.Response]:
        """The innermost step of ``job``'s chain: answer from the store or a
        flight of the same identity and shape, or send (see the module)."""
        identity = identity_of(
            exchange.headers,
            exchange.sensitive,
            exchange.credentials,
            exchange.url.userinfo,
            self._client,
        )
        if job.mode == PROBE:
            raise _Served(identity)
        job.identity = identity
        if exchange.url is not job.url or exchange.method != job.method:
            # A middleware re-routed the call (a tenant's host, say): it is
            # keyed by what it sends, not by where it started.
            job.url, job.method = exchange.url, exchange.method
            job.key = f"{exchange.method} {_plain(exchange.url)}"
        if not job.sent:
            if job.mode == GET:
                stored = self._stored(job, identity)
                if stored is not None:
                    raise stored
            if job.shared:
                key = (job.key, identity, exchange.endpoint.shape)
                while True:
                    flight, waiting = self._join(key)
                    if waiting is None:
                        job.flight, job.flight_key = flight, key
                        break
                    yield _Await(waiting)
                    served = self._from_flight(job, flight, identity)
                    if served is not None:
                        raise served
            job.sent = True
            if self._hooks.on_call:
                run_hooks(self._hooks.on_call, "the call", self, exchange)
        if self._cache is None or self._client.auth is not None:
            # (a client's own auth is applied after the identity is known:
            # such calls pass by the HTTP cache)
            return (yield from self._terminal(exchange))
        ticket = Ticket(
            cache_key(identity, _plain(exchange.url)), frozenset(exchange.sensitive)
        )
        stale = None
        if job.mode == GET and exchange.page is None:
            stale = self._store.result(identity, job.key, exchange.endpoint.shape)
        unchanged = None if stale is None or stale.error else stale.digest
        response = yield from self._terminal(exchange, ticket, unchanged)
        if exchange.value is UNCHANGED:
            assert stale is not None
            served = self._renewed(job, stale)
            if served is None:  # its records are gone: read the body after all
                exchange.value = exchange.endpoint.parse_response(response)
            else:
                self._land(job, served.value)
                raise served
        return response

    def _renewed(self, job: Job[EventT], stale: Result) -> _Served | None:
        """The stored value of ``job``, kept fresh for another expiry length
        since the HTTP cache gave the very body it was read from; ``None``
        if it can no longer be read (its records were reclaimed)."""
        endpoint = job.exchange.endpoint
        value = self._store.read(job.identity, stale.schema, stale.value)
        if value is MISSING:
            return None
        now = self._clock()
        renewed = stale._replace(
            fetched_at=now, expires_at=now + endpoint.data_expiry_length
        )
        self._store.commit(
            job.identity, Batch(), job.key, endpoint.shape, renewed, job.generation
        )
        return _Served(value)

    def _from_store(self, endpoint: RestEndpoint, params: Params) -> Any:
        """For ``get``: a fresh stored value found without running the chain,
        or ``MISSING``. Only when no middleware of the endpoint can change the
        credentials it sends (``Stack.sends_credentials``): then the call's
        identity is known from the endpoint's own headers, and it equals the
        one the innermost step would work out."""
        if endpoint.side_effect:
            raise TypeError(f"{endpoint.label}: get() is for reads; use fetch()")
        if endpoint.middleware.sends_credentials:
            return MISSING
        url, plain = self._target(endpoint, as_params(params, endpoint.label))
        identity = identity_of(
            endpoint.shared_headers(None),
            endpoint.sensitive_headers,
            "same-origin",
            url.userinfo,
            self._client,
        )
        result = self._store.result(
            identity, f"{endpoint.method} {plain}", endpoint.shape
        )
        if result is None or not result.fresh(self._clock()):
            return MISSING
        if result.error is not None:
            raise fresh_error(result.error)
        return self._store.read(identity, result.schema, result.value)

    def _stored(self, job: Job[EventT], identity: Hashable) -> _Served | None:
        """The store's answer to ``job``, if its identity holds a fresh one."""
        result = self._store.result(identity, job.key, job.exchange.endpoint.shape)
        if result is None or not result.fresh(self._clock()):
            return None
        if result.error is not None:
            return _Served(error=fresh_error(result.error))
        value = self._store.read(identity, result.schema, result.value)
        return None if value is MISSING else _Served(value)

    def _from_flight(
        self, job: Job[EventT], flight: Flight[EventT], identity: Hashable
    ) -> _Served | None:
        """A waiting caller's answer from the flight it waited on; ``None``
        when it must send itself (the leader was cancelled, failed outside
        restwire, or was finally sent as another identity)."""
        if flight.identity != identity:
            return None
        if flight.error is not None:
            return _Served(error=fresh_error(flight.error))
        if flight.value is _PENDING:
            return None
        stored = self._stored(job, identity)
        return stored if stored is not None else _Served(flight.value)

    def _join(self, key: Hashable) -> tuple[Flight[EventT], EventT | None]:
        """The flight for ``key``, and ``None`` if this caller leads it, else
        the event to wait on."""
        with self._flights_lock:
            flight = self._flights.get(key)
            if flight is None:
                flight = Flight()
                self._flights[key] = flight
                return flight, None
            if flight.event is None:
                flight.event = self._new_event()
            return flight, flight.event

    def _land(
        self,
        job: Job[EventT],
        value: Any = _PENDING,
        error: BaseException | None = None,
    ) -> None:
        """Finish the flight ``job`` leads, if any, so later calls send again,
        and wake its waiters. A ``RestwireError`` is theirs too; any other
        ending (a cancellation, a bug) leaves them to send for themselves."""
        flight = job.flight
        if flight is None:
            return
        job.flight = None
        with self._flights_lock:
            if self._flights.get(job.flight_key) is flight:
                del self._flights[job.flight_key]
            flight.identity = job.identity
            flight.value = value
            if isinstance(error, RestwireError):
                flight.error = error
            event = flight.event
        if event is not None:
            event.set()

    # -- a call, after the chain -----------------------------------------------------

    def _settling(self, job: Job[EventT]) -> _Settling:
        """Around running ``job``'s chain and finishing it: the one policy for
        how a call ends, under both drivers. Answered without sending: the
        answer is read after the block. A ``RestwireError``: kept (reads) and
        told to the managers. However it ends, the flight ``job`` leads lands
        and its waiters wake."""
        return _Settling(self, job)

    def _finish(self, job: Job[EventT], response: httpx.Response) -> Any:
        """What the caller gets: for ``fetch_response``, the response; else
        the value, normalized, stored and read back, typed. The managers
        hear it."""
        value = self._keep(job) if job.exchange.parse else response
        if self._hooks.on_value:
            run_hooks(self._hooks.on_value, "the value", self, job.exchange, value)
        return value

    def _keep(self, job: Job[EventT]) -> Any:
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
            read = None
            if type(value) is Unparsed:
                # a list of entities read straight from the bytes, if it can be
                read = value.entities(endpoint.schema[0], batch)
                if read is None:
                    exchange.value = value = value.value()  # parsed as usual
            normalized = (
                read
                if read is not None
                else normalize(endpoint.schema, value, batch, exchange.params)
            )
        except EntityError as error:
            raise error.from_request(job.label) from error.__cause__
        except RecursionError:
            raise EntityError(
                endpoint.label, None, "...", "nested too deeply to normalize"
            ).from_request(job.label) from None
        if not keeps:
            return denormalize(endpoint.schema, normalized, batch.records)
        now = self._clock()
        result = None
        if not endpoint.side_effect:
            expires = now + endpoint.data_expiry_length
            digest = None
            response = exchange.response
            if response is not None and "caching" in response.extensions:
                digest = body_digest(response.content)  # see _front
            result = Result(endpoint.schema, normalized, now, expires, None, digest)
        store, identity, shape = self._store, job.identity, endpoint.shape
        if store.commit(identity, batch, job.key, shape, result, job.generation):
            read = store.read(identity, endpoint.schema, normalized)
            if read is not MISSING:
                return read
        return denormalize(endpoint.schema, normalized, batch.records)

    def _failed(self, job: Job[EventT], error: RestwireError) -> None:
        """Keep a read's error for ``error_expiry_length``; tell the managers."""
        endpoint = job.exchange.endpoint
        if (
            job.sent
            and job.exchange.parse
            and not endpoint.side_effect
            and endpoint.error_expiry_length > 0
        ):
            now = self._clock()
            result = Result(
                endpoint.schema, None, now, now + endpoint.error_expiry_length, error
            )
            self._store.commit(
                job.identity, Batch(), job.key, endpoint.shape, result, job.generation
            )
        if job.sent and self._hooks.on_error:
            run_hooks(
                self._hooks.on_error, type(error).__name__, self, job.exchange, error
            )

    def _probe(self, endpoint: RestEndpoint, params: Params) -> Hashable:
        """The identity a call would have, found by running its middleware up
        to the innermost step, sending nothing. A middleware that waits for
        I/O on the way (a sleep, a lock) makes it unknowable: then a fresh
        object, equal to no other identity."""
        job = self._job(endpoint, params, None, PROBE)
        flow = run_exchange(job.exchange, job)
        try:
            flow.send(None)
        except _Served as served:
            return served.value  # type: ignore[no-any-return]
        finally:
            flow.close()
        return object()

    # -- pagination and downloads ---------------------------------------------------

    @staticmethod
    def _next_page(
        job: Job[Any], seen: set[str], cross_origin: bool
    ) -> httpx.URL | None:
        """The ``rel="next"`` URL of a page just fetched (from the links a
        pagination middleware found, in the ``Link`` header or the body; else
        from the header); ``None`` at the end, or when it would revisit a page
        (a cycle of next links)."""
        response = job.exchange.response
        if response is None:
            return None
        links = job.exchange.state.get("links")  # a pagination middleware's
        if links is None:
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
    def _page_items(job: Job[Any], value: Any) -> list[Any]:
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

    def _poller(
        self, endpoint: RestEndpoint, params: Params, identity: Hashable
    ) -> tuple[Poller, bool]:
        """The poller of this request for callers of ``identity`` (caller
        holds ``_pollers_lock``), and whether it is new and needs running."""
        request_key = self.key(endpoint, params)
        key = (request_key, identity, endpoint.shape)
        poller = self._pollers.get(key)
        if poller is not None:
            return poller, False
        given = as_params(params, endpoint.label)
        kept: Mapping[str, Any] = (
            MultiDict(given) if isinstance(given, MultiMapping) else dict(given)
        )
        poller = Poller(key, request_key, endpoint, kept, self._clock)
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
                logger.exception("subscriber of %s failed", poller.request_key)
        if error is not None and not any(s.on_error for s in poller.listeners()):
            logger.warning("poll of %s failed: %s", poller.request_key, error)
        return returned


def _plain(url: httpx.URL) -> str:
    """``url`` as request-key text: userinfo left out (it is a credential,
    part of the identity instead)."""
    if url.userinfo:
        url = url.copy_with(userinfo=b"")
    return str(url)
