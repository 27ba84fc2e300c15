"""What both controllers are: a call's steps, wired together in one place.

``Controller`` (``sync_controller``) and ``AsyncController``
(``async_controller``) derive from :class:`BaseController`; they add only
what waits. A call (a job) goes through these steps, each a module of its
own:

| step | module | does |
|---|---|---|
| target | ``calls`` | the absolute URL and the request key (``"GET https://host/path"``) |
| chain | ``_chain.exchange`` | every middleware, outermost first, then the innermost steps below |
| identity | ``_chain.identity`` | who the job says it is, from what it would send |
| store lookup | ``store_access`` | ``get``: a fresh result of that identity answers |
| in-flight join | ``calls`` | a read joins an identical one in the air |
| notify | ``managers`` | ``on_call``, then ``on_value`` / ``on_error``, ``on_done`` |
| HTTP cache | ``_cache`` | the first hop through RFC 9111 caching |
| the wire | ``sender`` | build, send hop by hop under the credential policy, read, parse |
| keep | ``store_access`` | normalize, write the store, read back |

Each feature's own glue is in its module: ``set`` in ``store_access``
(with its identity worked out here, sending nothing), streams in
``streams``, polling in ``polling``, pages in ``_endpoints.pages``, a
middleware's side call in ``sender``.

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

import datetime
import functools
import logging
import os
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from .._base.effects import Flow, SideCall, _Answer, answered
from .._base.errors import (
    RestwireError,
    SettingError,
    UsageError,
    redact_error,
    sent_secrets,
)
from .._base.library import URL, AsyncClient, Client, QueryParams, Response
from .._cache.http_cache import HttpCache
from .._cache.keys import Ticket, ticket_for
from .._chain.exchange import Exchange, run_exchange
from .._chain.identity import (
    DEFAULT,
    Identities,
    Sharing,
    Unshared,
    plain_url,
)
from .._chain.watchers import tell_end
from .._endpoints.endpoint import RestEndpoint, not_an_endpoint
from .._endpoints.resource import Resource
from .._store.models import plain_body
from .._store.retention import DEFAULT_MAX_BYTES
from .._store.schemas import MISSING
from .._store.store import EVERYONE, Result, Store
from .._wire.adapter import Adapter
from .._wire.params import as_params
from .calls import (
    BOTH,
    FETCH,
    GET,
    PENDING,
    PROBE,
    RAW,
    EventT,
    Flights,
    Job,
    Targets,
)
from .managers import Manager, ManagerHooks, run_hooks
from .polling import Poller, Pollers, Subscription, frequency_of
from .sender import UNCHANGED, Sender
from .store_access import StoreAccess, check_settable

__all__ = ["BOTH", "FETCH", "GET", "RAW", "BaseController", "Params"]

#: The calls that keep their stored value when the HTTP cache gives the very
#: body it was read from (fresh, or after a 304): renewed, not parsed again.
_KEEPS = frozenset({GET, FETCH})

logger = logging.getLogger("restwire")

#: What a call's params may be: a mapping (a ``MultiDict`` for repeated
#: names), httpx's (or httpx2's) ``QueryParams``, or ``(name, value)`` pairs.
Params = Mapping[str, Any] | Sequence[tuple[str, Any]] | QueryParams | None

ClientT = TypeVar("ClientT", Client, AsyncClient)


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
        self._sharing = sharing if sharing is not None else DEFAULT
        self._identities = Identities(
            adapter.client, identity, self._sharing, adapter.own_transport
        )
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
        if not isinstance(endpoint, RestEndpoint):
            raise not_an_endpoint("key()", endpoint)
        given = as_params(params, endpoint.label)
        return f"{endpoint.method} {self._targets(endpoint, given)[1]}"

    def invalidate(self, endpoint: RestEndpoint, params: Params = None) -> None:
        """Forget the stored results of this request, whoever fetched them;
        the next ``get`` fetches."""
        if not isinstance(endpoint, RestEndpoint):
            raise not_an_endpoint("invalidate()", endpoint)
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
            members = target.endpoints
        elif isinstance(target, RestEndpoint):
            members = (target,)
        else:
            raise UsageError(
                "invalidate_all() takes an endpoint or a resource, not "
                f"{type(target).__name__}"
            )
        if identity is not EVERYONE:
            _check_identity(identity, "invalidate_all")
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
            _check_identity(identity, "forget")
            self._store.forget(identity)

    def poll_interval(
        self, endpoint: RestEndpoint, params: Params = None
    ) -> float | None:
        """The shortest interval a poller of this request runs at, for any
        caller; ``None`` if none runs."""
        if not isinstance(endpoint, RestEndpoint):
            raise not_an_endpoint("poll_interval()", endpoint)
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
            raise not_an_endpoint(_METHODS.get(mode, "a call"), endpoint)
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
        identity = self._identities.of(first.request, exchange)
        if job.mode == PROBE:
            yield from answered(_Answer(identity))
        job.identity = exchange.identity = identity
        if exchange.url is not job.url or exchange.method != job.method:
            job.rekey(exchange, self._sharing.credential_params)  # re-routed
        if type(identity) is Unshared:  # nothing to share: straight to the wire
            job.sent = True
            self._calling(exchange)
        elif not job.sent:
            yield from self._share(job, identity)
            job.sent = True
            self._calling(exchange)
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
                job.land(self._flights, renewed.value)
                yield from answered(renewed)
        return response

    def _share(self, job: Job[EventT], identity: Hashable) -> Flow[None]:
        """A read answered by a fresh stored result (``get``) or by an
        identical call in flight, which ends the flow; or, when neither
        answers, the flight this job leads."""
        shape = job.exchange.endpoint.shape
        if job.mode == GET:
            stored = self._store_access.answer(identity, job.key, shape)
            if stored is not None:
                job.answered = ("store", stored.error)
                yield from answered(stored)
        if not job.shared:
            return
        key = (job.key, identity, shape)
        while True:
            flight, wait = self._flights.join(key)
            if wait is None:  # it leads
                job.flight, job.flight_key = flight, key
                return
            yield wait
            joined = flight.answer_for(identity)  # None: it must join again
            if joined is not None:
                if joined.error is None:  # read as this caller's store has it
                    stored = self._store_access.answer(identity, job.key, shape)
                    joined = stored if stored is not None else joined
                job.answered = ("flight", joined.error)
                yield from answered(joined)

    def _calling(self, exchange: Exchange) -> None:
        """The call is about to be sent: its managers hear it."""
        if self._managers.on_call:
            run_hooks(self._managers.on_call, "the call", self, exchange)

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
        if type(params) is not dict:  # (a dict, the usual params, as it is)
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
            caller_key=self._identities.caller_key,
        )
        return exchange, plain

    def _side_call(self, call: SideCall) -> Flow[tuple[Any, Response]]:
        """A middleware's ``SideCall`` as a flow: the endpoint's own chain
        then the sender's side-call step (``Sender.side_call``), on this
        controller's client; no identity, store, flight, HTTP cache or
        manager (its value is the middleware's alone), no cookie of the
        shared jar sent or stored."""
        endpoint = call.endpoint
        if not isinstance(endpoint, RestEndpoint):
            raise not_an_endpoint("SideCall", endpoint)
        exchange, _ = self._exchange(endpoint, call.params, call.body)
        exchange.credentials = "omit"
        response = yield from run_exchange(
            exchange, endpoint.middleware.handlers, self._sender.side_call
        )
        return exchange.value, response

    def _ticket(
        self, job: Job[EventT], identity: Hashable
    ) -> tuple[Ticket | None, Result | None]:
        """The HTTP cache's ticket for ``job`` (``None``: it passes by), and
        the stale result a ``get`` or ``fetch`` keeps if the cache gives its
        body."""
        exchange = job.exchange
        ticket = ticket_for(identity, exchange, self._client.auth, self._sharing)
        stale = None
        if ticket is not None and job.mode in _KEEPS and exchange.page is None:
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
            response = job.exchange.response
            if response is not None:  # (what it says may echo what was sent)
                redact_error(
                    error,
                    sent_secrets(
                        response.request,
                        job.exchange.sensitive,
                        self._sharing.public_headers,
                    ),
                )
            self._store_access.error(job, error)
            if job.sent and self._managers.on_error:
                run_hooks(
                    self._managers.on_error,
                    type(error).__name__,
                    self,
                    job.exchange,
                    error,
                )
        job.land(self._flights, PENDING if error is not None else value, error)
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

    # -- get, answered from the store alone --------------------------------------

    def _from_store(self, endpoint: RestEndpoint, params: Params) -> Any:
        """For ``get``: a fresh stored value found without running the chain,
        or ``MISSING``. Only when no middleware of the endpoint can change the
        credentials it sends (``Stack.sends_credentials``): then the call's
        first hop would carry the client's and the endpoint's own headers,
        and the jar's ``Cookie``, and its identity is read from those as the
        innermost step reads it from the request it builds."""
        try:
            read = endpoint.stored_read
        except AttributeError:
            raise not_an_endpoint("get()", endpoint) from None
        if read is None:
            raise UsageError(f"{endpoint.label}: get() is for reads; use fetch()")
        sends_credentials, method, shape = read
        if sends_credentials:
            return MISSING
        given = params if type(params) is dict else as_params(params, endpoint.label)
        url, plain = self._targets(endpoint, given)
        identity = self._identities.without_chain(endpoint, url)
        if identity is None:
            return MISSING
        return self._store_access.stored(identity, method + plain, shape)

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

    # -- set, subscriptions -----------------------------------------------------

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
        check_settable(endpoint)
        given = as_params(params, endpoint.label)
        url, plain = self._targets(endpoint, given)
        identity: Hashable = None
        if not endpoint.middleware.sends_credentials:
            identity = self._identities.without_chain(endpoint, url)
        if identity is None:
            identity = self._probe(endpoint, params)
        check_settable(endpoint, identity)
        key = f"{endpoint.method} {plain}"
        stored = self._store_access.put(identity, key, endpoint, value, given)
        return stored, self._pollers.answered((key, identity, endpoint.shape), stored)

    def _subscribe(
        self,
        endpoint: RestEndpoint,
        params: Params,
        frequency: float | datetime.timedelta | None,
        callback: Callable[[Any], object] | None,
        on_error: Callable[[Exception], object] | None,
    ) -> tuple[Subscription, Poller | None]:
        """Join the poller of this request for the caller's identity (the
        subscription), and the poller if it is new and needs running."""
        if not isinstance(endpoint, RestEndpoint):
            raise not_an_endpoint("subscribe()", endpoint)
        if callback is None:
            raise UsageError("subscribe() needs a callback")
        seconds = frequency_of(endpoint, frequency)
        request_key = self.key(endpoint, params)
        identity = self._probe(endpoint, params)
        given = as_params(params, endpoint.label)
        return self._pollers.subscribe(
            (request_key, identity, endpoint.shape),
            endpoint,
            given,
            self._clock,
            (seconds, callback, on_error),
        )

    # -- closing ----------------------------------------------------------------

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


def check_download(
    endpoint: object,
    to: object,
    overwrite: object,
    progress: object,
    fallback: object,
    max_size: object,
) -> None:
    """``download``'s arguments, checked before anything is sent or made:
    a wrong one is a :class:`UsageError` (a wrong kind) or a
    :class:`SettingError` naming it. (``overwrite="no"`` was true, and
    replaced the file it was meant to keep.)"""
    if not isinstance(endpoint, RestEndpoint):
        raise not_an_endpoint("download()", endpoint)
    label = endpoint.label
    if not isinstance(to, str | os.PathLike):
        raise UsageError(
            f"{label}: download(to=...) takes a folder's path, not {type(to).__name__}"
        )
    if not isinstance(overwrite, bool):
        raise UsageError(
            f"{label}: download(overwrite=...) takes True or False, not "
            f"{type(overwrite).__name__} {overwrite!r}"[:200]
        )
    if progress is not None and not callable(progress):
        raise UsageError(
            f"{label}: download(progress=...) takes a function of (done, total), "
            f"not {type(progress).__name__}"
        )
    if not isinstance(fallback, str) or not fallback:
        raise UsageError(
            f"{label}: download(fallback=...) takes a file name, not {fallback!r}"[:200]
        )
    if max_size is None or max_size == "endpoint":
        return
    if isinstance(max_size, bool) or not isinstance(max_size, int):
        raise UsageError(
            f"{label}: download(max_size=...) takes a number of bytes, None or "
            f"'endpoint', not {type(max_size).__name__}"
        )
    if max_size < 0:
        raise SettingError(
            f"{label}: download(max_size={max_size}): a number of bytes, 0 or more"
        )


#: The method a call's mode stands for, in an error about what it was given.
_METHODS = {
    FETCH: "fetch()",
    GET: "get()",
    RAW: "fetch_response()",
    BOTH: "fetch_with_response()",
    PROBE: "download()",
}


def _check_identity(identity: object, method: str) -> None:
    """Refuse, where ``method`` is called, an ``identity`` that cannot be
    one: what names a caller (``exchange.identity``, or the value given
    to ``identity=``) is hashable, as the store keys its partitions by it."""
    try:
        hash(identity)
    except TypeError:
        raise UsageError(
            f"{method}(identity=...) takes a caller's identity (a call's "
            "exchange.identity, or what identity= named: hashable), not a "
            f"{type(identity).__name__} (not shown: it may hold a credential)"
        ) from None
