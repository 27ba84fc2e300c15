"""What both controllers are: a call's steps, wired together in one place.

``Controller`` (``_sync``) and ``AsyncController`` (``_async``) derive from
:class:`BaseController`; they add only what waits. A job goes through
these steps, each a module of its own:

| step | module | does |
|---|---|---|
| target | ``_job`` | the absolute URL and the request key (``"GET https://host/path"``) |
| chain | ``_chain`` | every middleware, outermost first, then the innermost steps below |
| identity | ``_identity`` | who the job says it is, from what it would send |
| store lookup | ``_keep`` | ``get``: a fresh result of that identity answers |
| in-flight join | ``_flights`` | a read joins an identical one in the air |
| notify | ``_managers`` | ``on_call``, then ``on_value`` / ``on_error``, ``on_done`` |
| HTTP cache | ``_http_cache`` | the first hop through RFC 9111 caching |
| the wire | ``_terminal`` | build, send hop by hop (``_hops``, ``_adapter``), read, parse |
| keep | ``_keep`` | normalize, write the store, read back |

``set`` takes only the identity step (worked out without sending) and the
keep step; each connection of a ``stream`` is a job that takes every step
but the store lookup and the join, and keeps the entities its events push.

A ``get`` whose middleware all say ``sends_credentials = False`` knows its
identity without running the chain, and takes only the first steps
(:meth:`BaseController._from_store`): a few microseconds.

**Who may share a response.** The innermost steps run after every
middleware has set the request up, so they see what would be sent: only a
job of the same request key, identity and value shape may answer another.
An answer that was not sent (from the store, from a flight) ends the flow
with ``_Answer``: the driver closes it, so every middleware unwinds as from
a cancellation, and no response side runs on a value twice.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import fields
from typing import Any, Generic, TypeVar

from multidict import MultiDict, MultiMapping

from .._base.credentials import is_credential
from .._base.durations import check_seconds
from .._base.effects import Flow, SideCall, _Answer, answered
from .._base.errors import (
    InvalidRequest,
    RestwireError,
    SettingError,
    UsageError,
    fresh_error,
    redact_url,
)
from .._base.http import origin_of
from .._base.library import URL, AsyncClient, Client, QueryParams, Request, Response
from .._cache.http_cache import HttpCache, Ticket, cache_key
from .._chain.exchange import Exchange, run_exchange
from .._chain.identity import (
    DEFAULT,
    Identity,
    Sharing,
    Unshared,
    auth_part,
    credential_headers,
    credential_params,
    identity_of,
)
from .._chain.watchers import tell_end
from .._endpoints.endpoint import RestEndpoint
from .._endpoints.resource import Resource
from .._store.models import plain_body
from .._store.retention import DEFAULT_MAX_BYTES
from .._store.store import EVERYONE, MISSING, Result, Store
from .._wire.adapter import Adapter, cookie_header, merged_headers
from .._wire.header_params import links_by_rel, parse_link_header
from .._wire.params import as_params
from .._wire.sse import EVENT_STREAM, MAX_RETRY_DELAY, EventDataError, ServerSentEvent
from .calls import (
    BOTH,
    FETCH,
    GET,
    PENDING,
    PROBE,
    RAW,
    EventT,
    Flight,
    Flights,
    Job,
    Targets,
    plain_url,
    remember,
)
from .managers import Manager, ManagerHooks, run_hooks
from .polling import Poller, Pollers, Subscription
from .sender import UNCHANGED, Sender
from .store_access import StoreAccess

__all__ = ["BOTH", "FETCH", "GET", "RAW", "BaseController", "Params"]

logger = logging.getLogger("restwire")

#: What a call's params may be: a mapping (a ``MultiDict`` for repeated
#: names), httpx's (or httpx2's) ``QueryParams``, or ``(name, value)`` pairs.
Params = Mapping[str, Any] | Sequence[tuple[str, Any]] | QueryParams | None

ClientT = TypeVar("ClientT", Client, AsyncClient)

#: Headers an endpoint may set that change how the jar gives cookies: then
#: ``get`` takes the full path.
_SET_BY_CALL = frozenset({b"host", b"cookie", b"cookie2"})


def _auth_signs(identity: Hashable) -> bool:
    """Whether the client's auth put a credential on the first hop (a
    Bearer or Basic header), which then keys the HTTP cache; an auth that
    adds none at first (Digest answers a challenge) passes by the cache."""
    part = identity[3] if isinstance(identity, tuple) else None
    return isinstance(part, tuple) and bool(part[1])


class BaseController(Generic[ClientT, EventT]):
    """The state of a controller, and the steps of its calls."""

    def __init__(
        self,
        adapter: Adapter,
        new_event: Callable[[], EventT],
        managers: Iterable[Manager],
        clock: Callable[[], float],
        cache: HttpCache | None = None,
        identity: Callable[[], Hashable] | None = None,
        sharing: Sharing | None = None,
        max_store_bytes: int | None = DEFAULT_MAX_BYTES,
    ) -> None:
        if identity is not None and not callable(identity):
            raise UsageError(
                f"identity= takes a function naming the caller (a user id, say), "
                f"not {type(identity).__name__}"
            )
        self._caller = identity
        self._sharing = sharing if sharing is not None else DEFAULT
        self._warned_unseen = False
        #: endpoint -> (the client's headers, the credentials of a call of
        #: it with those and no cookie): what ``_plain_identity`` worked out
        self._plain_headers: dict[
            RestEndpoint, tuple[list[tuple[bytes, bytes]], tuple[Any, ...]]
        ] = {}
        self._adapter = adapter
        self._client: ClientT = adapter.client  # type: ignore[assignment]
        self._cache = cache
        if cache is not None:
            cache.attach()
        self._sender = Sender(adapter, cache, self._sharing.public_headers)
        self._managers = ManagerHooks.of(managers)
        self._clock = clock
        self._store = Store(max_store_bytes)
        self._store_access = StoreAccess(self._store, clock)
        self._flights: Flights[Any] = Flights(new_event)
        self._pollers = Pollers()
        self._targets = Targets(adapter.client, self._sharing.credential_params)

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
        return f"{endpoint.method} {self._targets(endpoint, given)[1]}"

    def invalidate(self, endpoint: RestEndpoint, params: Params = None) -> None:
        """Forget the stored results of this request, whoever fetched them;
        the next ``get`` fetches."""
        self._store.invalidate(self.key(endpoint, params))

    def invalidate_all(
        self, target: RestEndpoint | Resource[Any], identity: Hashable = EVERYONE
    ) -> int:
        """Forget every stored result of ``target``, whatever its params,
        whoever fetched it (or, given ``identity``, what that one caller
        fetched: ``exchange.identity`` names a call's): an endpoint (and
        every endpoint extended from it with the same method, URL prefix and
        path), or every member of a ``resource()``. How many results were
        forgotten; the next ``get`` of each fetches."""
        if isinstance(target, Resource):
            members = [getattr(target, field.name) for field in fields(target)]
        elif isinstance(target, RestEndpoint):
            members = [target]
        else:
            raise UsageError(
                f"invalidate_all() takes an endpoint or a resource, not {target!r}"
            )
        return self._store.invalidate_routes(
            {member.route for member in members}, identity
        )

    def reset(self) -> None:
        """Empty the store; fetches in flight will not write their results."""
        self._store.reset()
        self._flights.clear()

    def forget(self, identity: Hashable) -> None:
        """Forget what one caller's identity holds (its results and records),
        and keep its calls in flight from writing theirs back; other callers
        keep theirs. ``exchange.identity`` names a call's identity (so a
        manager forgets the caller a 401 refused)."""
        if identity is not None:
            self._store.forget(identity)

    def poll_interval(
        self, endpoint: RestEndpoint, params: Params = None
    ) -> float | None:
        """The shortest interval a poller of this request runs at, for any
        caller; ``None`` if none runs."""
        return self._pollers.interval(self.key(endpoint, params))

    # -- a call: made, then run through its chain and these steps ----------------

    def _job(
        self,
        endpoint: RestEndpoint,
        params: Params,
        body: Any,
        mode: str = FETCH,
        *,
        url: URL | None = None,
    ) -> Job[EventT]:
        """A job ready to run; URL and param errors are raised here.

        ``url``, when given (the next page of a listing), replaces the URL
        the endpoint and params would make; the params still reach the
        middleware and ``process``.
        """
        if not isinstance(endpoint, RestEndpoint):
            raise UsageError(f"expected a RestEndpoint, got {endpoint!r}")
        if mode == GET and endpoint.side_effect:
            raise UsageError(f"{endpoint.label}: get() is for reads; use fetch()")
        exchange, plain = self._exchange(endpoint, params, body, url, mode != RAW)
        key = f"{endpoint.method} {plain}"
        return Job(
            exchange,
            endpoint.middleware.handlers,
            key,
            self._store.generation,
            mode,
        )

    def _flow(self, job: Job[EventT]) -> Flow[Response]:
        """The whole of ``job`` as one flow, for a driver to run."""
        return run_exchange(
            job.exchange, job.handlers, functools.partial(self._steps, job)
        )

    def _steps(self, job: Job[EventT], exchange: Exchange) -> Flow[Response]:
        """The innermost steps of ``job``'s chain, in order (see the module)."""
        first = self._sender.first_hop(exchange)
        identity = self._identity(first.request, exchange)
        if job.mode == PROBE:
            yield from answered(_Answer(identity))
        job.identity = exchange.identity = identity
        if exchange.url is not job.url or exchange.method != job.method:
            job.rekey(exchange, self._sharing.credential_params)  # re-routed
        if type(identity) is Unshared:
            job.sent = True  # nothing to share: straight to the wire
            if self._managers.on_call:
                run_hooks(self._managers.on_call, "the call", self, exchange)
        if not job.sent:
            shape = exchange.endpoint.shape
            if job.mode == GET:
                stored = self._store_access.answer(identity, job.key, shape)
                if stored is not None:
                    job.answered = ("store", stored.error)
                    yield from answered(stored)
            if job.shared:
                key = (job.key, identity, shape)
                while True:
                    flight, wait = self._flights.join(key)
                    if wait is None:  # it leads
                        job.flight, job.flight_key = flight, key
                        break
                    yield wait
                    joined = self._from_flight(job, flight, identity, shape)
                    if joined is not None:
                        job.answered = ("flight", joined.error)
                        yield from answered(joined)
            job.sent = True
            if self._managers.on_call:
                run_hooks(self._managers.on_call, "the call", self, exchange)
        ticket = stale = unchanged = None
        if self._cache is not None:
            ticket, stale = self._ticket(job, identity)
            unchanged = None if stale is None or stale.error else stale.digest
        response = yield from self._sender(exchange, first, ticket, unchanged)
        if exchange.value is UNCHANGED:
            assert stale is not None
            renewed = self._store_access.renew(job, stale)
            if renewed is None:  # its records are gone: read the body after all
                exchange.value = exchange.endpoint.parse_response(response)
            else:
                self._land(job, renewed.value)
                yield from answered(renewed)
        return response

    def _exchange(
        self,
        endpoint: RestEndpoint,
        params: Params,
        body: Any,
        url: URL | None = None,
        parse: bool = True,
    ) -> tuple[Exchange, str]:
        """A call's exchange, and its URL as request-key text; URL and param
        errors are raised here. ``url``, when given, replaces the one the
        endpoint and params make."""
        params = as_params(params, endpoint.label)
        if body is not None:
            body = plain_body(body)  # an entity or model as its JSON object
        if url is None:
            url, plain = self._targets(endpoint, params)
        else:
            plain = plain_url(url, self._sharing.credential_params)
        exchange = Exchange(
            endpoint,
            params,
            body,
            url,
            endpoint.initial_headers(body, self._adapter.library),
            self._client.cookies,
            parse=parse,
        )
        return exchange, plain

    def _side_call(self, call: SideCall) -> Flow[tuple[Any, Response]]:
        """A middleware's ``SideCall`` as a flow: the endpoint's own chain
        then the terminal, on this controller's client; no identity, store,
        flight, HTTP cache or manager (its value is the middleware's alone).

        It carries only what its own endpoint and middleware set: made on
        behalf of one caller (a token request for one user), it sends no
        cookie of the shared jar and stores none, no credential among the
        client's default headers, and not the client's own ``auth``."""
        endpoint = call.endpoint
        if not isinstance(endpoint, RestEndpoint):
            raise UsageError(f"a SideCall needs a RestEndpoint, got {endpoint!r}")
        exchange, _ = self._exchange(endpoint, call.params, call.body)
        exchange.credentials = "omit"
        sender = self._sender
        public = self._sharing.public_headers

        def send(exchange: Exchange) -> Flow[Response]:
            first = sender.first_hop(exchange)
            own = {name.lower() for name in exchange.headers}
            headers = first.request.headers
            for name in [name for name in headers if name.lower() not in own]:
                if is_credential(name, exchange.sensitive, public):
                    del headers[name]  # a client default: who, for whom?
            first.policy.client_auth = False
            return sender(exchange, first)

        response = yield from run_exchange(exchange, endpoint.middleware.handlers, send)
        return exchange.value, response

    def _from_flight(
        self, job: Job[EventT], flight: Flight[Any], identity: Hashable, shape: Hashable
    ) -> _Answer | None:
        """A waiter's answer from the flight it waited for; ``None`` when it
        must join again (see ``_flights``)."""
        if flight.identity != identity:
            return None  # sent as another identity after all: not ours
        if flight.error is not None:
            return _Answer(error=fresh_error(flight.error))
        if flight.value is PENDING:
            return None  # its leader was cancelled, or failed outside restwire
        stored = self._store_access.answer(identity, job.key, shape)
        return stored if stored is not None else _Answer(flight.value)

    def _ticket(
        self, job: Job[EventT], identity: Hashable
    ) -> tuple[Ticket | None, Result | None]:
        """The HTTP cache's ticket for ``job`` (``None``: it passes by), and
        the stale result a ``get`` may keep if the cache gives its body."""
        exchange = job.exchange
        if (
            type(identity) is Unshared
            or exchange.endpoint.content.streamed
            or (self._client.auth is not None and not _auth_signs(identity))
        ):
            return None, None
        plain = plain_url(exchange.url, self._sharing.credential_params)
        ticket = Ticket(
            cache_key(identity, plain),  # type: ignore[arg-type]
            frozenset(exchange.sensitive),
            self._sharing.public_headers,
        )
        stale = None
        if job.mode == GET and exchange.page is None:
            stale = self._store_access.stale(job)
        return ticket, stale

    def _finish(self, job: Job[EventT], outcome: Any) -> Any:
        """What the caller gets from a flow's ``outcome``: a response's value
        (normalized, kept, read back; for ``fetch_response`` the response
        itself; for ``fetch_with_response`` both), told to the managers."""
        if job.exchange.parse:
            value = self._store_access.value(job)
        else:
            value = outcome
            self._store_access.expire(job)  # fetch_response: nothing kept, but expired
        if self._managers.on_value:
            run_hooks(self._managers.on_value, "the value", self, job.exchange, value)
        if job.mode == BOTH:
            return value, outcome
        return value

    def _ended(self, job: Job[EventT], value: Any, error: BaseException | None) -> None:
        """The one policy for how a call ends, under both drivers, however it
        ends: a restwire error kept (reads) and told to the managers, the
        flight the call leads landed and its waiters woken, the managers
        that heard it begin told it ended, then the call's watchers."""
        if isinstance(error, RestwireError):
            self._store_access.error(job, error)
            if job.sent and self._managers.on_error:
                run_hooks(
                    self._managers.on_error,
                    type(error).__name__,
                    self,
                    job.exchange,
                    error,
                )
        self._land(job, PENDING if error is not None else value, error)
        if job.sent and self._managers.on_done:
            run_hooks(self._managers.on_done, "the end", self, job.exchange)
        if job.exchange.watchers:
            how, kept = job.answered
            tell_end(
                job.exchange.watchers,
                job.exchange,
                error if error is not None else kept,
                how,
            )

    def _land(
        self, job: Job[EventT], value: Any, error: BaseException | None = None
    ) -> None:
        flight = job.flight
        if flight is not None:
            job.flight = None
            self._flights.land(job.flight_key, flight, job.identity, value, error)

    # -- get, answered from the store alone --------------------------------------

    def _from_store(self, endpoint: RestEndpoint, params: Params) -> Any:
        """For ``get``: a fresh stored value found without running the chain,
        or ``MISSING``. Only when no middleware of the endpoint can change the
        credentials it sends (``Stack.sends_credentials``): then the call's
        first hop would carry the client's and the endpoint's own headers,
        and the jar's ``Cookie``, and its identity is read from those as the
        innermost step reads it from the request it builds."""
        if endpoint.side_effect:
            raise UsageError(f"{endpoint.label}: get() is for reads; use fetch()")
        if endpoint.middleware.sends_credentials:
            return MISSING
        url, plain = self._targets(endpoint, as_params(params, endpoint.label))
        identity = self._plain_identity(endpoint, url)
        if identity is None:
            return MISSING
        answer = self._store_access.answer(
            identity, f"{endpoint.method} {plain}", endpoint.shape
        )
        return MISSING if answer is None else answer.outcome()

    def _identity(self, request: Request, exchange: Exchange) -> Hashable:
        """Who the call whose first hop is ``request`` says it is (see
        ``_identity``)."""
        client = self._client
        caller = None
        if self._caller is not None:
            caller = self._caller()
        elif client.event_hooks["request"]:
            return self._unseen("request event hooks, which may change a request")
        auth = auth_part(client.auth, request) if client.auth is not None else None
        if type(auth) is Unshared:
            return self._unseen("an auth whose flow restwire cannot run")
        return identity_of(
            request,
            exchange.sensitive,
            exchange.credentials,
            auth,
            self._sharing,
            caller=caller,
        )

    def _unseen(self, what: str) -> Unshared:
        """A call restwire cannot see whole: shared with nobody (said once)."""
        if not self._warned_unseen:
            self._warned_unseen = True
            logger.warning(
                "restwire: this controller's client has %s after restwire keyed "
                "it, so its calls share nothing (store, calls in flight, HTTP "
                "cache, pollers); pass Controller(identity=...) to name the "
                "caller, and they are shared between calls of one caller",
                what,
            )
        return Unshared()

    def _plain_identity(self, endpoint: RestEndpoint, url: URL) -> Identity | None:
        """The identity of a call of ``endpoint`` to ``url`` whose middleware
        add no credential, read from the headers its first hop would carry;
        ``None`` where only the full path can tell (userinfo in the URL, a
        ``Host`` or ``Cookie`` the endpoint sets itself, the client's auth or
        request hooks)."""
        client = self._client
        if url.userinfo or client.auth is not None:
            return None
        caller = None
        if self._caller is not None:
            caller = self._caller()
        elif client.event_hooks["request"]:
            return None
        raw = client.headers.raw
        jar = client.cookies.jar
        if not len(jar):
            # the common case, worked out once per endpoint while the
            # client's headers stay as they were (compared whole each time)
            kept = self._plain_headers.get(endpoint)
            if kept is not None and kept[0] == raw:
                credentials = kept[1]
            else:
                headers, _ = merged_headers(raw, endpoint.shared_headers(None).raw)
                credentials = credential_headers(
                    headers, endpoint.sensitive_headers, self._sharing
                )
                remember(self._plain_headers, endpoint, (raw, credentials))
            return Identity(
                (
                    credentials,
                    credential_params(url, self._sharing),
                    "same-origin",
                    None,
                    caller,
                )
            )
        headers, names = merged_headers(raw, endpoint.shared_headers(None).raw)
        if not names.isdisjoint(_SET_BY_CALL):
            return None
        cookie = cookie_header(jar, endpoint.method, url)
        if cookie is not None:
            headers.append((b"Cookie", cookie))
        return identity_of(
            headers,
            endpoint.sensitive_headers,
            "same-origin",
            None,
            self._sharing,
            url=url,
            caller=caller,
        )

    def _probe(self, endpoint: RestEndpoint, params: Params) -> Hashable:
        """The identity a call would have, found by running its middleware up
        to the innermost step, sending nothing. A middleware that waits for
        I/O on the way (a sleep, a lock) makes it unknowable: then a fresh
        object, equal to no other identity."""
        flow = self._flow(self._job(endpoint, params, None, PROBE))
        try:
            effect = flow.send(None)
        finally:
            flow.close()
        return effect.value if isinstance(effect, _Answer) else object()

    # -- set, and event streams -----------------------------------------------------

    def _set(
        self, endpoint: RestEndpoint, value: Any, params: Params
    ) -> tuple[Any, list[tuple[Callable[[Any], object], Any]]]:
        """For ``set``: ``value`` kept as the caller's answer to this call,
        and the deliveries that hand it to the subscribers of that request
        and identity (their poller's next fetch is a whole interval away).

        The identity is the one the call would be sent as, worked out as
        ``get`` works it out (the headers its first hop would carry, or its
        middleware run up to the wire, sending nothing): never another's.
        """
        if not isinstance(endpoint, RestEndpoint):
            raise UsageError(f"expected a RestEndpoint, got {endpoint!r}")
        if endpoint.side_effect:
            raise InvalidRequest(
                f"{endpoint.label}: set() keeps what a read answers; a "
                f"{endpoint.method} changes data on the server and nothing of "
                "it is stored (set the read endpoint that returns the data)"
            )
        if endpoint.content.binary:
            raise InvalidRequest(
                f"{endpoint.label}: set() keeps what the store holds, and "
                f"{endpoint.content.name} content is never stored"
            )
        given = as_params(params, endpoint.label)
        url, plain = self._targets(endpoint, given)
        identity: Hashable = None
        if not endpoint.middleware.sends_credentials:
            identity = self._plain_identity(endpoint, url)
        if identity is None:
            identity = self._probe(endpoint, params)
        if not isinstance(identity, Identity):
            raise InvalidRequest(
                f"{endpoint.label}: set() cannot tell who this call would be "
                "sent as without sending it (a middleware waits on the way, "
                "or the client changes requests restwire cannot see), so no "
                "get could read the value back; name the caller with "
                "identity=, or fetch instead"
            )
        key = f"{endpoint.method} {plain}"
        stored = self._store_access.put(identity, key, endpoint, value, given)
        poller = self._pollers.find((key, identity, endpoint.shape))
        if poller is None:
            return stored, []
        poller.answered()
        return stored, self._deliveries(poller, stored, None)

    @staticmethod
    def _stream_endpoint(
        endpoint: RestEndpoint,
        max_event_size: int | None,
        max_reconnects: int,
        retry: float,
    ) -> RestEndpoint:
        """The endpoint as ``stream`` calls it (its body an event stream,
        read as it comes), once its options are checked."""
        if not isinstance(endpoint, RestEndpoint):
            raise UsageError(f"expected a RestEndpoint, got {endpoint!r}")
        if endpoint.side_effect:
            raise InvalidRequest(
                f"{endpoint.label}: stream() opens an event stream with a read "
                f"(GET), which it may send again to reconnect; not a {endpoint.method}"
            )
        if max_event_size is not None and (
            not isinstance(max_event_size, int) or max_event_size <= 0
        ):
            raise SettingError(
                f"{endpoint.label}: max_event_size must be a number of bytes "
                f"above 0 (or None), not {max_event_size!r}"
            )
        if not isinstance(max_reconnects, int) or max_reconnects < 0:
            raise SettingError(
                f"{endpoint.label}: max_reconnects must be 0 or more, "
                f"not {max_reconnects!r}"
            )
        if not isinstance(retry, int | float) or not 0 <= retry <= MAX_RETRY_DELAY:
            raise SettingError(
                f"{endpoint.label}: retry must be seconds between 0 and "
                f"{MAX_RETRY_DELAY:g}, not {retry!r}"
            )
        if endpoint.content is EVENT_STREAM:
            return endpoint
        return endpoint.extend(content=EVENT_STREAM)

    def _stream_job(
        self, endpoint: RestEndpoint, params: Params, last_event_id: str
    ) -> Job[EventT]:
        """One connection of a stream: never joined with another call,
        nothing kept; ``Last-Event-ID`` sent when an event had an ID."""
        job = self._job(endpoint, params, None, RAW)
        headers = job.exchange.headers
        headers["cache-control"] = "no-cache"
        # (an ID that is not printable ASCII is not sent: no header holds it)
        if last_event_id and last_event_id.isascii() and last_event_id.isprintable():
            headers["last-event-id"] = last_event_id
        return job

    def _pushed(
        self, job: Job[EventT], response: Response, event: ServerSentEvent
    ) -> Any:
        """What ``stream`` yields for ``event``: the event itself, or, when
        the endpoint has a schema, its JSON data validated and normalized
        into the store (see :meth:`StoreAccess.pushed`)."""
        if job.exchange.endpoint.schema is None:
            return event
        try:
            data = event.json()
        except (ValueError, RecursionError):
            raise EventDataError(job.label, response, event) from None
        return self._store_access.pushed(job, data)

    # -- pagination and downloads ---------------------------------------------------

    @staticmethod
    def _next_page(job: Job[Any], seen: set[str], cross_origin: bool) -> URL | None:
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
        url = type(job.exchange.url)(following.url)  # of the controller's library
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
        if frequency is not None:
            check_seconds("frequency", frequency)
        chosen = frequency if frequency is not None else endpoint.poll_frequency
        if chosen is None or chosen <= 0:
            raise SettingError(
                f"{endpoint.label}: no poll frequency; set poll_frequency on the "
                "endpoint or pass frequency="
            )
        return float(chosen)

    def _subscribe(
        self,
        endpoint: RestEndpoint,
        params: Params,
        frequency: float | None,
        callback: Callable[[Any], object] | None,
        on_error: Callable[[Exception], object] | None,
    ) -> tuple[Subscription, Poller | None]:
        """Join the poller of this request for the caller's identity (the
        subscription), and the poller if it is new and needs running."""
        if callback is None:
            raise UsageError("subscribe() needs a callback")
        seconds = self._frequency(endpoint, frequency)
        request_key = self.key(endpoint, params)
        key = (request_key, self._probe(endpoint, params), endpoint.shape)
        given = as_params(params, endpoint.label)
        kept: Mapping[str, Any] = (
            MultiDict(given) if isinstance(given, MultiMapping) else dict(given)
        )

        def make() -> Poller:
            return Poller(key, request_key, endpoint, kept, self._clock)

        return self._pollers.add(key, make, seconds, callback, on_error)

    @staticmethod
    def _deliveries(
        poller: Poller, value: Any, error: Exception | None
    ) -> list[tuple[Callable[[Any], object], Any]]:
        """The calls that hand a poll's outcome to its subscribers: each
        one's callback with the value, or its ``on_error`` with the error
        (an error nobody hears is logged)."""
        listeners = poller.listeners()
        if error is None:
            return [(each.callback, value) for each in listeners]
        calls = [(each.on_error, error) for each in listeners if each.on_error]
        if not calls:
            logger.warning("poll of %s failed: %s", poller.request_key, error)
        return calls

    def _stopping(self) -> None:
        """The first part of closing, under both kinds: pollers stop at their
        next step, and waiters for calls in flight wake."""
        self._pollers.stop()
        self._flights.clear()

    def _let_go(self) -> None:
        """The last part of closing, once nothing polls: the HTTP cache is
        let go (the last controller using it closes its storage)."""
        cache, self._cache = self._cache, None
        if cache is not None:
            self._sender.cache = None
            cache.detach()
