"""Keeping a call's outcome: normalized into the store, and read back.

After a 2xx, a call's value is normalized by the endpoint's schema (entities
merged into the caller's identity's records), written as that identity's
result for the request key, and read back, so the caller gets the records
as they are now. A read's error is kept too, for ``error_expiry_length``,
so a failing ``get`` is not retried in a loop. Binary content is never
normalized or kept; an endpoint with ``data_expiry_length=0`` keeps nothing.

A value may come without a response: :meth:`StoreAccess.put` keeps one as an
identity's answer (``controller.set``), and :meth:`StoreAccess.pushed` merges
the entities of an event a stream pushed (no result kept).

The other way round, :meth:`StoreAccess.answer` is the store's answer to a call
of an identity that holds a fresh result, and :meth:`StoreAccess.renew` keeps a
stale result for another expiry length when the HTTP cache gave the very
body it was read from.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

from .._base.effects import _Answer
from .._base.errors import InvalidRequest, RestwireError, fresh_error
from .._cache.keys import body_digest
from .._chain.exchange import EndpointView, Exchange
from .._chain.identity import Identity, Unshared
from .._endpoints.endpoint import RestEndpoint, not_an_endpoint
from .._endpoints.pages import PAGING_PARAMS
from .._store.deferred_parse import Unparsed
from .._store.entity import EntityError, EntityKey
from .._store.models import plain_body, record_fields
from .._store.schemas import MISSING, Batch, keyed
from .._store.store import Result, Store
from .._wire.params import value_text
from .calls import Job

__all__ = ["StoreAccess", "check_settable"]

#: The methods of an update: an answer that names no record is the one
#: its URL's params name (``_store.schemas.keyed``).
_UPDATES = frozenset({"PUT", "PATCH"})


def check_settable(endpoint: RestEndpoint, identity: Hashable = None) -> None:
    """Refuse, where ``set`` is called, what it cannot keep: anything but an
    endpoint, one that changes data (its answer is not what a read gives),
    binary content (never stored); given the ``identity`` its call would be
    sent as, one that is no :class:`Identity` (no ``get`` could read the
    value back)."""
    if identity is not None and not isinstance(identity, Identity):
        raise InvalidRequest(
            f"{endpoint.label}: set() cannot tell who this call would be "
            "sent as without sending it (a middleware waits on the way, "
            "or the client changes requests restwire cannot see), so no "
            "get could read the value back; name the caller with "
            "identity=, or fetch instead"
        )
    if not isinstance(endpoint, RestEndpoint):
        raise not_an_endpoint("set()", endpoint)
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


def _item_params(exchange: Exchange) -> Mapping[str, Any]:
    """The params of a call that fill its path (the item its URL names),
    named as fields."""
    endpoint = exchange.endpoint
    names = endpoint.template.names if isinstance(endpoint, RestEndpoint) else ()
    path = {name: value for name, value in exchange.params.items() if name in names}
    return endpoint.param_fields(path)


class StoreAccess:
    """A controller's store, as its calls write and read it."""

    __slots__ = ("clock", "store")

    def __init__(self, store: Store, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock

    def answer(self, identity: Hashable, key: str, shape: Hashable) -> _Answer | None:
        """The store's answer to a call, if ``identity`` holds a fresh
        result for ``key`` and ``shape`` (a value, or a kept error)."""
        store = self.store
        result = store.result(identity, key, shape)
        if result is None or not result.fresh(self.clock()):
            return None
        if result.error is not None:
            return _Answer(error=fresh_error(result.error))
        value = store.read(identity, result.plan, result.value)
        return None if value is MISSING else _Answer(value)

    def stored(self, identity: Hashable, key: str, shape: Hashable) -> Any:
        """:meth:`answer` for ``get``'s shortcut, with nothing made: the
        fresh value, or ``MISSING``; a kept error is raised (a fresh copy)."""
        store = self.store
        result = store.result(identity, key, shape)
        if result is None or not result.fresh(self.clock()):
            return MISSING
        if result.error is not None:
            raise fresh_error(result.error)
        return store.read(identity, result.plan, result.value)

    def value(self, job: Job[Any]) -> Any:
        """The value of a 2xx, normalized, kept, read back, typed."""
        exchange = job.exchange
        endpoint = exchange.endpoint
        if endpoint.expires is not None:
            self.expire(job)  # first: a body that fails to read expires too
        value = exchange.value
        if endpoint.content.binary:
            return value  # binary content is never normalized or kept
        keeps = endpoint.data_expiry_length > 0
        if endpoint.schema is None and not keeps:
            return value
        params = exchange.params
        if endpoint.side_effect:  # params in the wire's case name the record
            params = endpoint.param_fields(params)
            if exchange.method in _UPDATES and type(value) is not Unparsed:
                value = keyed(endpoint.plan, value, _item_params(exchange))
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
                else endpoint.plan.normalize(value, batch, params)
            )
        except EntityError as error:
            raise error.from_request(job.label) from error.__cause__
        except RecursionError:
            raise _too_deep(endpoint).from_request(job.label) from None
        if not keeps or type(job.identity) is Unshared:
            return endpoint.plan.read(normalized, batch.records)
        result = None
        if not endpoint.side_effect:
            if read is not None:  # a list of references, straight from the bytes
                self.store.share_keys(read, job.identity, job.key)
            now = self.clock()
            expires = now + endpoint.data_expiry_length
            digest = None
            response = exchange.response
            if response is not None and "caching" in response.extensions:
                digest = body_digest(response.content)  # see renew()
            result = Result(
                endpoint.plan,
                normalized,
                now,
                expires,
                None,
                digest,
                endpoint.route,
                exchange.params,
                exchange.page,
            )
        store, identity, shape = self.store, job.identity, endpoint.shape
        read = store.commit_and_read(
            identity,
            batch,
            job.key,
            shape,
            result,
            job.generation,
            endpoint.plan,
            normalized,
        )
        if endpoint.adds_to is not None and type(normalized) is tuple:
            self._add_to_lists(job, normalized, batch)
        if read is not MISSING:
            return read
        return endpoint.plan.read(normalized, batch.records)

    def _add_to_lists(self, job: Job[Any], ref: EntityKey, batch: Batch) -> None:
        """A create's record joins the stored lists its endpoint
        ``adds_to`` names (see ``RestEndpoint.adds_to``)."""
        exchange = job.exchange
        adds_to = exchange.endpoint.adds_to
        assert adds_to is not None
        lists, where = adds_to
        record = batch.records.get(ref)
        fields = record_fields(type(record)) if record is not None else ()
        params, body = exchange.params, job.body

        def joins(wanted: Mapping[str, Any] | None) -> bool | None:
            """Whether a list fetched with params ``wanted`` holds the
            record: each of them said alike by the create's params, its
            body, or the record the server answered. ``None`` for one whose
            other params all are, but which is a page (a paging param,
            :data:`PAGING_PARAMS`, the create does not say): the record may
            be on it or not, so it is read again."""
            paged = False
            for name, value in (wanted or {}).items():
                if name in params:
                    have = params[name]
                elif isinstance(body, Mapping) and name in body:
                    have = body[name]
                elif name in fields:
                    have = getattr(record, name)
                elif name in PAGING_PARAMS:
                    paged = True
                    continue
                else:
                    return False
                if value_text(have) != value_text(value):
                    if name not in PAGING_PARAMS:
                        return False
                    paged = True
            return None if paged else True

        self.store.add_to_lists(
            job.identity, lists.route, ref, joins, where == "start", job.generation
        )

    def expire(self, job: Job[Any]) -> None:
        """A successful mutation expires the stored results of the reads its
        endpoint ``expires`` names (a resource whose values are not records),
        whatever their params, for its caller's identity only: the next
        ``get`` of each fetches, so no stale value is returned."""
        exchange = job.exchange
        expires = exchange.endpoint.expires
        response = exchange.response
        if (
            expires is None
            or type(job.identity) is Unshared  # keeps nothing to expire
            or (response is not None and not response.is_success)
        ):
            return
        self.store.invalidate_routes(
            {endpoint.route for endpoint in expires}, job.identity
        )

    def put(
        self,
        identity: Hashable,
        key: str,
        endpoint: RestEndpoint,
        value: Any,
        params: Mapping[str, Any],
    ) -> Any:
        """``value`` kept as ``identity``'s fresh answer to the request
        ``key`` of ``endpoint`` (``controller.set``): normalized by its
        schema, entities merged, read back. An endpoint that keeps nothing
        (``data_expiry_length=0``) keeps nothing of it either. Its errors
        name the call by ``key``."""
        batch = Batch()
        normalized = _normalized(endpoint, key, value, batch, params)
        if endpoint.data_expiry_length <= 0:
            return endpoint.plan.read(normalized, batch.records)
        now = self.clock()
        result = Result(
            endpoint.plan,
            normalized,
            now,
            now + endpoint.data_expiry_length,
            None,
            None,
            endpoint.route,
            params,
        )
        return self._kept(
            identity,
            batch,
            key,
            endpoint,
            result,
            self.store.generation,
            normalized,
            newest=True,
        )

    def pushed(
        self, job: Job[Any], value: Any, endpoint: EndpointView | None = None
    ) -> Any:
        """The value of an event ``job``'s stream pushed (its JSON data):
        normalized (by ``endpoint``'s schema: by default the job's), its
        entities merged into the records of the identity the stream was
        opened as, read back. No result is kept: what a stream says is
        seen through the results that hold its entities."""
        if endpoint is None:
            endpoint = job.exchange.endpoint
        batch = Batch()
        normalized = _normalized(endpoint, job.label, value, batch, job.exchange.params)
        if endpoint.data_expiry_length > 0 and type(job.identity) is not Unshared:
            return self._kept(
                job.identity, batch, None, endpoint, None, job.generation, normalized
            )
        return endpoint.plan.read(normalized, batch.records)

    def _kept(
        self,
        identity: Hashable,
        batch: Batch,
        key: str | None,
        endpoint: EndpointView,
        result: Result | None,
        generation: int,
        normalized: Any,
        *,
        newest: bool = False,
    ) -> Any:
        """``batch`` merged into ``identity``'s records (and ``result`` kept
        under ``key``), then ``normalized`` read back with them; read from
        the batch alone if nothing was written. ``newest``: a value set, not
        read (see ``Store._commit``)."""
        read = self.store.commit_and_read(
            identity,
            batch,
            key,
            endpoint.shape,
            result,
            generation,
            endpoint.plan,
            normalized,
            newest=newest,
        )
        if read is not MISSING:
            return read
        return endpoint.plan.read(normalized, batch.records)

    def error(self, job: Job[Any], error: RestwireError) -> None:
        """Keep a sent read's error for its ``error_expiry_length``."""
        endpoint = job.exchange.endpoint
        if (
            job.sent
            and type(job.identity) is not Unshared
            and job.exchange.parse
            and not endpoint.side_effect
            and endpoint.error_expiry_length > 0
        ):
            now = self.clock()
            result = Result(
                endpoint.plan,
                None,
                now,
                now + endpoint.error_expiry_length,
                error,
                None,
                endpoint.route,
                job.exchange.params,
            )
            self.store.commit(
                job.identity, Batch(), job.key, endpoint.shape, result, job.generation
            )

    def stale(self, job: Job[Any]) -> Result | None:
        """The result ``job``'s identity holds for it, fresh or not."""
        return self.store.result(job.identity, job.key, job.exchange.endpoint.shape)

    def renew(self, job: Job[Any], stale: Result) -> _Answer | None:
        """The stored value of ``job``, kept fresh for another expiry
        length since the HTTP cache gave the very body it was read from;
        ``None`` if it can no longer be read (its records were reclaimed)."""
        endpoint = job.exchange.endpoint
        value = self.store.read(job.identity, stale.plan, stale.value)
        if value is MISSING:
            return None
        now = self.clock()
        renewed = stale._replace(
            fetched_at=now, expires_at=now + endpoint.data_expiry_length
        )
        self.store.commit(
            job.identity, Batch(), job.key, endpoint.shape, renewed, job.generation
        )
        return _Answer(value)


def _too_deep(endpoint: RestEndpoint | EndpointView) -> EntityError:
    """The error for data nested deeper than ``endpoint``'s schema can be
    followed (a schema that names itself), naming the schema: the request
    is named by ``from_request``."""
    schema = endpoint.schema
    if isinstance(schema, list) and len(schema) == 1:
        schema = schema[0]
    name = schema.__name__ if isinstance(schema, type) else "the response"
    return EntityError(name, None, "...", "nested too deeply to normalize")


def _normalized(
    endpoint: RestEndpoint | EndpointView,
    label: str,
    value: Any,
    batch: Batch,
    params: Mapping[str, Any],
) -> Any:
    """``value`` (an entity or model given as itself, or JSON) normalized by
    ``endpoint``'s schema into ``batch``; its errors name ``label``."""
    try:
        return endpoint.plan.normalize(plain_body(value), batch, params)
    except EntityError as error:
        raise error.from_request(label) from error.__cause__
    except RecursionError:
        raise _too_deep(endpoint).from_request(label) from None
