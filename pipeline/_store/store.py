"""The normalized store: values normalized by a schema into records, results
kept by request key, and read back.

A schema is one of:

| schema                 | value                | normalized as                              |
|------------------------|----------------------|--------------------------------------------|
| ``None``               | anything             | itself                                     |
| an ``Entity`` class    | an object            | a reference ``(key, pk)`` to one record    |
| ``[schema]``           | a list               | a list of normalized items                 |
| ``{name: schema}``     | an object            | a copy, the named keys normalized; a name  |
|                        |                      | whose schema is a literal (``"link": ""``, |
|                        |                      | as data-client writes it) passes as it is  |
| ``Invalidate(Entity)`` | an object, or nothing| a deletion of that entity                  |
| a model (pydantic,     | what it validates    | an instance, validated (see ``_models``):  |
| dataclass, TypedDict)  |                      | a value, not a record                      |
| a record model (one    | an object            | a reference ``(key, pk)`` to one record:   |
| with ``__restwire_pk__``)|                    | the validated instance (``_model_records``)|
| ``Invalidate(model)``  | an object, or nothing| a deletion of that record model's record   |

Normalization walks the schema, not the value: data outside the schema is
never visited, however deep. Reading back (``denormalize``) replaces each
reference with the current record, so the same entity fetched by two
endpoints reads the same everywhere. A deleted record drops out of lists; in
any other place it makes the whole result unreadable (``MISSING``), and
``get`` fetches it again.

The :class:`Store` keeps, for each identity, entities by type and primary
key and results by request key and value shape, with when each was fetched
and when it expires; a result holds references to records, never copies, so
an entity updated by any fetch reads updated everywhere that identity looks.
Errors are kept too (for ``error_expiry_length``), so a failing ``get`` is
not retried in a loop. Every change takes one lock: a sync controller's
threads can share a store. Sweeps drop what expired and what nothing reaches
any more, so the store holds what is fresh, not everything ever fetched.
``reset()`` empties it and starts a new generation; a fetch that began in an
older generation does not write its result back.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any, NamedTuple, NoReturn

from .._base.errors import SettingError, UsageError
from .batch import Batch, EntityKey
from .columns import entities_by_column
from .entity import Entity, EntityError, _astuple, _force_setattr, _restore, build
from .model_records import model_pk_in, model_record, model_records, record_of
from .models import is_model, validate, validator
from .retention import DEFAULT_MAX_BYTES, OVERHEAD, Retention, Sizes, Slot, size_of

__all__ = [
    "EVERYONE",
    "MISSING",
    "Batch",
    "Invalidate",
    "Partition",
    "Ref",
    "Result",
    "Store",
    "check_schema",
    "denormalize",
    "normalize",
]


# -- normalizing by a schema -------------------------------------------------


class Ref(NamedTuple):
    """A reference to one entity record in a store: equal to its ``(key, pk)``."""

    key: str
    pk: str


@dataclass(frozen=True, slots=True)
class Invalidate:
    """The seed's deletion schema: the response (or the call's params, when the
    response has no body) names an entity to remove from the store: an
    ``Entity`` subclass's, or a record model's (``_model_records``)."""

    entity: type[Any]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

_NONE = type(None)


def normalize(schema: Any, value: Any, batch: Batch, params: Mapping[str, Any]) -> Any:
    """``value`` with every entity the schema names replaced by a :class:`Ref`."""
    if isinstance(schema, Invalidate):
        return _invalidate(schema.entity, value, batch, params)
    if schema is None or value is None:
        return value
    if isinstance(schema, type):
        if issubclass(schema, Entity):
            return _entity(schema, value, batch, params)
        record = record_of(schema)
        if record is not None:
            return model_record(schema, record, value, batch)
        return validate(schema, value)
    if isinstance(schema, list):
        if len(schema) != 1:
            raise UsageError(f"a list schema has one item schema, got {schema!r}")
        if not isinstance(value, list | tuple):
            raise EntityError(_label(schema), None, value, "expected a list")
        item_schema = schema[0]
        if isinstance(item_schema, type):
            if issubclass(item_schema, Entity):
                return _entities(item_schema, value, batch, params)
            record = record_of(item_schema)
            if record is not None:
                return model_records(item_schema, record, value, batch)
            return validate(item_schema, value, many=True)
        return [normalize(item_schema, item, batch, params) for item in value]
    if isinstance(schema, Mapping):
        if not isinstance(value, Mapping):
            raise EntityError(_label(schema), None, value, "expected an object")
        out = dict(value)
        for name, inner in schema.items():
            if name in out and not _literal(inner):
                out[name] = normalize(inner, out[name], batch, params)
        return out
    raise UsageError(f"not a schema: {schema!r}")


_LITERALS = (str, int, float, bool, type(None))


def _literal(schema: Any) -> bool:
    """Whether ``schema``, found in an object schema, is a literal (a JSON
    scalar) that passes the value through rather than a schema."""
    return isinstance(schema, _LITERALS)


def check_schema(schema: Any, where: str = "schema") -> None:
    """Refuse, with a ``TypeError`` naming the place, what is not a schema:
    an ``Entity`` subclass, a model (pydantic, dataclass, TypedDict),
    ``[schema]``, ``{name: schema or literal}``, ``Invalidate(Entity)`` or
    ``None``. Run when an endpoint is made, so a wrong schema fails there,
    not after a request was sent; a model's validator is built then too."""
    if schema is None:
        return
    if isinstance(schema, Invalidate):
        entity = schema.entity
        if not (
            isinstance(entity, type) and issubclass(entity, Entity)
        ) and not _is_record_model(entity):
            raise UsageError(
                f"not a schema: {where}.entity {entity!r}; Invalidate "
                "removes records, so it takes an Entity subclass or a model "
                "that declares its primary key (__restwire_pk__)"
            )
        check_schema(entity, f"{where}.entity")
        return
    if isinstance(schema, type) and issubclass(schema, Entity) and schema is not Entity:
        return
    if is_model(schema):
        record_of(schema)  # a wrong __restwire_pk__ fails here
        validator(schema)
        return
    if isinstance(schema, list):
        if len(schema) != 1:
            raise UsageError(
                f"not a schema: {where} {schema!r}; a list schema has exactly one "
                "item schema"
            )
        check_schema(schema[0], f"{where}[0]")
        if is_model(schema[0]):
            validator(schema[0], many=True)  # what a list of them is read with
        return
    if isinstance(schema, Mapping):
        for name, inner in schema.items():
            if not _literal(inner):
                check_schema(inner, f"{where}[{name!r}]")
        return
    raise UsageError(
        f"not a schema: {where} {schema!r}; use an Entity subclass, a model "
        "(pydantic, dataclass, TypedDict), [schema], {name: schema}, "
        "Invalidate(Entity) or None"
    )


def _is_record_model(schema: Any) -> bool:
    """Whether ``schema`` is a model that declares its primary key."""
    return is_model(schema) and getattr(schema, "__restwire_pk__", None) is not None


def _entity(
    cls: type[Entity], value: Any, batch: Batch, params: Mapping[str, Any]
) -> EntityKey:
    return _entities(cls, (value,), batch, params)[0]


def _entities(
    cls: type[Entity], values: Iterable[Any], batch: Batch, params: Mapping[str, Any]
) -> list[EntityKey]:
    """Each value as a record of ``cls`` in ``batch``; their references
    (``(key, pk)`` tuples, equal to :class:`Ref`).

    The hot path of normalization: a list goes column by column where it
    can (``_columns``); one record at a time, everything per class is looked
    up once.
    """
    if type(values) is list:
        by_column = entities_by_column(cls, values, batch)
        if by_column is not None:
            return by_column
    plan = cls._plan()
    nested = plan.nested
    key_name = cls.key
    records, seen, deleted = batch.records, batch.data, batch.deleted
    refs: list[EntityKey] = []
    for value in values:
        if type(value) is not dict and not isinstance(value, Mapping):
            raise EntityError(cls.__name__, None, value, "expected an object")
        data = value
        if nested:
            data = dict(value)
            for name, inner in nested.items():
                if name in data:
                    data[name] = normalize(inner, data[name], batch, params)
        instance = build(cls, data, plan)
        pk = instance.pk()
        if type(pk) is not str or not pk:
            _bad_pk(cls, pk, value)
        key = (key_name, pk)  # equal to Ref(key_name, pk); a plain tuple is cheaper
        earlier = seen.get(key)
        if earlier is None:
            records[key] = instance
            seen[key] = data  # never mutated: a repeat makes a merged copy
        else:
            merged = {**earlier, **data}
            seen[key] = merged
            records[key] = build(cls, merged, plan)
        if deleted:
            deleted.discard(key)
        refs.append(key)
    return refs


def _bad_pk(cls: type[Entity], pk: Any, value: Any) -> NoReturn:
    if pk is None or pk == "":
        raise EntityError(cls.__name__, None, _preview(value), "has no primary key")
    raise EntityError(
        cls.__name__, None, pk, f"pk() must return text, not {type(pk).__name__}"
    )


def _invalidate(
    cls: type[Any], value: Any, batch: Batch, params: Mapping[str, Any]
) -> Any:
    """Delete the record the response names; when it names none (a 204, or a
    status body such as ``{"deleted": true}``), the one the call's params
    name; when neither does, an error, never a silent no-op."""
    record = None if issubclass(cls, Entity) else record_of(cls)
    if record is None:
        key_name = cls.key
        pk = _pk_in(cls, value) if isinstance(value, Mapping) else None
        if pk is None:
            pk = _pk_in(cls, params)
    else:
        key_name = record.key
        pk = model_pk_in(record, value) if isinstance(value, Mapping) else None
        if pk is None:
            pk = model_pk_in(record, params)
    if pk is None:
        shown = value if isinstance(value, Mapping) and value else dict(params)
        raise EntityError(cls.__name__, None, _preview(shown), "has no primary key")
    key = (key_name, pk)
    batch.deleted.add(key)
    batch.records.pop(key, None)
    batch.data.pop(key, None)
    return value


def _pk_in(cls: type[Entity], source: Mapping[str, Any]) -> str | None:
    """The primary key ``source`` gives an entity of ``cls``, if any."""
    fields = {name: value for name, value in source.items() if name in cls._fields}
    if not fields:
        return None
    pk = cls.from_data(fields).pk()
    return pk or None


def denormalize(
    schema: Any,
    value: Any,
    records: Mapping[EntityKey, Entity],
    _memo: dict[EntityKey, Entity] | None = None,
) -> Any:
    """``value`` with every :class:`Ref` replaced by its record; ``MISSING`` if
    a record it needs (outside a list) is gone."""
    if schema is None or value is None:
        return value
    if isinstance(schema, type):
        if issubclass(schema, Entity):
            return _record(value, records, _memo)
        if type(value) is tuple:  # a record model's reference
            return records.get(value, MISSING)
        return value  # a model: a value, kept as it was validated
    if isinstance(schema, Invalidate):
        return value
    if isinstance(schema, list):
        item_schema = schema[0]
        if isinstance(item_schema, type) and not issubclass(item_schema, Entity):
            if value and type(value[0]) is tuple:  # record models' references
                get = records.get
                return [record for ref in value if (record := get(ref)) is not None]
            return value  # models: values, kept as they were validated
        if isinstance(item_schema, type) and issubclass(item_schema, Entity):
            if not item_schema._plan().nested:
                get = records.get
                return [record for ref in value if (record := get(ref)) is not None]
            items = (_record(ref, records, _memo) for ref in value)
        else:
            items = (denormalize(item_schema, item, records, _memo) for item in value)
        return [item for item in items if item is not MISSING]
    out_map = dict(value)
    for name, inner in schema.items():
        if name in out_map and not _literal(inner):
            read = denormalize(inner, out_map[name], records, _memo)
            if read is MISSING:
                return MISSING
            out_map[name] = read
    return out_map


def _record(
    ref: Any, records: Mapping[EntityKey, Entity], memo: dict[EntityKey, Entity] | None
) -> Any:
    if not isinstance(ref, tuple):
        return ref
    key = ref
    record = records.get(key)
    if record is None:
        return MISSING
    nested = type(record)._plan().nested
    if not nested:
        return record
    if memo is None:
        memo = {}
    done = memo.get(key)
    if done is not None:
        return done
    # made first and filled after, so a record that reaches itself resolves
    # to itself (the cycle is the collector's to reclaim)
    resolved = _restore(type(record), _astuple(record), record.extra_fields)
    memo[key] = resolved
    for name, inner in nested.items():
        read = denormalize(inner, getattr(record, name), records, memo)
        _force_setattr(resolved, name, None if read is MISSING else read)
    return resolved


def _label(schema: Any) -> str:
    return f"schema {schema!r}"


def _preview(value: Any) -> Any:
    if isinstance(value, Mapping) and len(value) > 6:
        return {k: value[k] for k in list(value)[:6]}
    return value


# -- the store --------------------------------------------------------------


class Result(NamedTuple):
    """One stored response: its normalized value, or the error it raised.
    (A named tuple: immutable, and made in a fraction of a frozen
    dataclass's time, once per call.)"""

    schema: Any
    value: Any
    fetched_at: float
    expires_at: float
    error: Exception | None = None
    #: The digest of the body the value was read from, when an HTTP cache
    #: served it: a later identical body need not be parsed again.
    digest: bytes | None = None
    #: The endpoint's ``route`` and the call's params: which endpoint, with
    #: which params, this is a result of (``invalidate_all``, ``adds_to``).
    route: Hashable = None
    params: Mapping[str, Any] | None = None
    #: Which page of ``controller.paginate`` this is (``None``: a plain
    #: call), so a created record joins the first page of a listing only.
    page: int | None = None

    def fresh(self, now: float) -> bool:
        return now < self.expires_at


#: ``Store.invalidate_routes``' identity for "every identity".
EVERYONE: Any = object()

#: How many forgotten identities a store remembers, for calls in flight.
_FORGOTTEN = 4096
#: How many record keys a store shares between its results before it
#: starts over.
_KEYS_SHARED = 1 << 16


class Partition:
    """What one identity has fetched: its entity records, and its results by
    request key and value shape."""

    __slots__ = ("bytes", "dropped", "identity", "records", "results")

    def __init__(self, identity: Hashable) -> None:
        #: The identity, as the object the store keys it by: its results'
        #: slots hold this one, not each call's equal copy.
        self.identity = identity
        self.records: dict[EntityKey, Entity] = {}
        self.results: dict[str, dict[Hashable, Result]] = {}
        #: Bytes its kept results hold, and those of the results dropped
        #: since its records were last reclaimed (``Store._drop``).
        self.bytes = 0
        self.dropped = 0


class Store:
    """Entities and results of one controller, kept apart per identity.

    Each identity (who a call says it is: see ``_hops.identity_of``) has a
    :class:`Partition` of its own: a result is read back only by calls of
    the same identity, against that identity's records, so one user's
    version of a record never shows in another's result. A deletion removes
    the record from every partition (forgetting reveals nothing).

    Memory follows what is fresh and stays within ``max_bytes``
    (``_retention``): each change drops the results that have expired, then,
    past the bound, the least recently used; a partition's records that no
    remaining result reaches (directly or through nested entities) are
    reclaimed once its dropped results add up to half of what it holds,
    and a partition with no result left goes whole. No step walks the
    whole store.
    """

    def __init__(self, max_bytes: int | None = DEFAULT_MAX_BYTES) -> None:
        if max_bytes is not None and (
            not isinstance(max_bytes, int)
            or isinstance(max_bytes, bool)
            or max_bytes < 0
        ):
            raise SettingError(
                f"max_store_bytes must be a number of bytes or None, not {max_bytes!r}"
            )
        self.partitions: dict[Hashable, Partition] = {}
        self.retention = Retention(max_bytes)
        self._sizes = Sizes()
        #: A clock of resets and forgettings: a call notes it when it begins
        #: and writes back only if nothing forgot its identity since.
        self.generation = 0
        self._reset_at = 0
        #: identity -> the generation it was last forgotten at (bounded).
        self._forgotten: dict[Hashable, int] = {}
        #: What was invalidated -> the generation it was invalidated at
        #: (bounded): ``("key", key)``, ``("route", route, identity)``
        #: (``EVERYONE`` for every identity's). A read that began before
        #: does not write back the older result it got.
        self._invalidated: dict[Hashable, int] = {}
        #: identity -> (record key -> the generation a write that was not
        #: a read's gave it: a mutation's answer, a pushed event). A read
        #: that began before keeps the newer record (bounded in all).
        self._written: dict[Hashable, dict[EntityKey, int]] = {}
        self._stamps = 0
        self.lock = threading.Lock()
        self._now = float("-inf")
        #: Each record key seen lately, as the one key object results share
        #: (``share_keys``; bounded).
        self._keys: dict[EntityKey, EntityKey] = {}

    def share_keys(self, keys: list[EntityKey], identity: Hashable, key: str) -> None:
        """Put in ``keys``, in place, for each key the equal key object
        the store already shares, when they are to be kept under a request
        ``key`` new to ``identity``: a list read at another URL keeps no
        new key tuples, each one memory and one more object for the cyclic
        garbage collector to walk (which then runs less often). A list read
        again at its own URL replaces its result, whose keys go with it."""
        partition = self.partitions.get(identity)
        if partition is not None and key in partition.results:
            return
        shared = self._keys
        if len(shared) > _KEYS_SHARED:
            shared.clear()  # (a bound, not an LRU: a later list shares anew)
        keys[:] = map(shared.setdefault, keys, keys)

    def commit(
        self,
        identity: Hashable,
        batch: Batch,
        key: str | None,
        shape: Hashable,
        result: Result | None,
        generation: int,
        *,
        body_bytes: int | None = None,
    ) -> bool:
        """Merge ``batch``'s entities into ``identity``'s records and keep
        ``result`` under ``key`` and ``shape``.

        Nothing is written if the store was reset, or ``identity``
        forgotten, since ``generation``; the return value says whether it
        was written. ``body_bytes``: the length of the body ``result`` was
        read from, if it was (its size is then mostly estimated from it:
        ``_retention.Sizes``).
        """
        with self.lock:
            written = self._commit(
                identity, batch, key, shape, result, generation, body_bytes
            )
            return written > 0

    def commit_and_read(
        self,
        identity: Hashable,
        batch: Batch,
        key: str | None,
        shape: Hashable,
        result: Result | None,
        generation: int,
        schema: Any,
        value: Any,
        *,
        body_bytes: int | None = None,
        newest: bool = False,
    ) -> Any:
        """:meth:`commit`, then ``value`` (normalized by ``schema``: what
        the batch was made from) read with ``identity``'s records as they are now, as :meth:`read`
        gives it; ``MISSING`` if nothing was written or a record is gone.

        Read in the same hold of the lock. A response that is one list of
        flat entities (``schema`` is ``[Entity]``: nothing else of the
        batch can have touched its records), which the batch took whole and
        the store took whole too, reads back as the records the batch made,
        with no lookup per item."""
        with self.lock:
            written = self._commit(
                identity, batch, key, shape, result, generation, body_bytes, newest
            )
            if not written:
                return MISSING
            if written == _WHOLE and type(schema) is list and type(value) is list:
                made = batch.made.get(id(value))
                if made is not None and made[0] is value:
                    return made[1]
            return self.read(identity, schema, value)

    def _commit(
        self,
        identity: Hashable,
        batch: Batch,
        key: str | None,
        shape: Hashable,
        result: Result | None,
        generation: int,
        body_bytes: int | None = None,
        newest: bool = False,
    ) -> int:
        """:meth:`commit`, under the lock: 0 if nothing was written,
        ``_WHOLE`` if every record of the batch was stored as it was made
        (none merged with what was there, none deleted), else 1. Records
        that come with no result (a mutation's answer, a pushed event), or
        with ``newest`` (a value ``set``), are newer than any read of them
        in flight: such a read keeps them (``_keep_newer``)."""
        if generation < self._reset_at or generation < self._forgotten.get(identity, 0):
            return 0
        if (
            result is not None
            and self._invalidated
            and generation
            < max(
                self._invalidated.get(("key", key), 0),
                self._invalidated.get(("route", result.route, EVERYONE), 0),
                self._invalidated.get(("route", result.route, identity), 0),
            )
        ):
            return 0  # invalidated while it was in flight: older than what forgot it
        partition = self.partitions.get(identity)
        if partition is None:
            partition = self.partitions[identity] = Partition(identity)
        if result is None or newest:
            if batch.records:
                self._stamp_records(identity, batch)
        elif self._written and batch.records:
            self._keep_newer(identity, partition, batch, generation)
        held = len(partition.records)
        if not partition.records and batch.committed is None:
            # the identity's first records: the batch's own, taken as they are
            # (a batch is committed once, and never changed after)
            partition.records = batch.records
            whole = True
        else:
            whole = _merge(partition.records, batch)
        batch.committed = True
        for entity_key in batch.deleted:
            whole = False
            for each in self.partitions.values():
                each.records.pop(entity_key, None)
        if key is not None and result is not None:
            partition.results.setdefault(key, {})[shape] = result
            value_size = self._sizes.size(
                (result.route, shape), result.value, body_bytes
            )
            size = OVERHEAD + len(key) + value_size
            brought = len(partition.records) - held
            if brought > 0:
                size += brought * _record_size(batch)
            slot = (partition.identity, key, shape)
            partition.bytes += size - self.retention.kept(
                slot, result, result.expires_at, size
            )
            self._changed(result.fetched_at)
        elif len(partition.records) > held:
            # records with no result of their own (pushed events, a create):
            # counted too, in the identity's slot for them, so they are
            # bounded like the rest (evicted, they go with the records no
            # result reaches)
            size = (len(partition.records) - held) * _record_size(batch)
            self.retention.grew((identity, "", _RECORDS), size)
            partition.bytes += size
            self._changed(self._now)
        return _WHOLE if whole else 1

    def result(self, identity: Hashable, key: str, shape: Hashable) -> Result | None:
        """The result ``identity`` keeps under ``key`` and ``shape``, if any."""
        partition = self.partitions.get(identity)
        if partition is None:
            return None
        by_shape = partition.results.get(key)
        if by_shape is None:
            return None
        result = by_shape.get(shape)
        if result is not None:
            self.retention.touch(result)
        return result

    def read(self, identity: Hashable, schema: Any, value: Any) -> Any:
        """``value`` (normalized by ``schema``) with ``identity``'s entities
        as they are now."""
        partition = self.partitions.get(identity)
        records = partition.records if partition is not None else {}
        return denormalize(schema, value, records)

    def invalidate(self, key: str) -> None:
        """Forget every result under ``key``, whoever fetched it; reads of
        it already in flight do not write theirs back."""
        with self.lock:
            self._stamp(("key", key))
            for identity, partition in list(self.partitions.items()):
                by_shape = partition.results.get(key)
                for shape in list(by_shape or ()):
                    self._drop((identity, key, shape))
            self._changed(self._now)

    def invalidate_routes(
        self, routes: Collection[Hashable], identity: Hashable = EVERYONE
    ) -> int:
        """Forget every result of the endpoints whose ``route`` is in
        ``routes``, whatever their params, that ``identity`` fetched
        (``EVERYONE``, the default: whoever fetched them); how many. Reads
        of them already in flight do not write theirs back."""
        with self.lock:
            for route in routes:
                self._stamp(("route", route, identity))
            partitions: Iterable[tuple[Hashable, Partition]]
            if identity is EVERYONE:
                partitions = self.partitions.items()
            else:
                own = self.partitions.get(identity)
                partitions = () if own is None else ((identity, own),)
            slots = [
                (who, key, shape)
                for who, partition in partitions
                for key, by_shape in partition.results.items()
                for shape, result in by_shape.items()
                if result.route in routes
            ]
            for slot in slots:
                self._drop(slot)
            self._changed(self._now)
        return len(slots)

    def add_to_lists(
        self,
        identity: Hashable,
        route: Hashable,
        ref: EntityKey,
        joins: Callable[[Mapping[str, Any] | None], bool],
        at_start: bool,
        generation: int,
    ) -> int:
        """Add the record ``ref`` to every list result of ``route`` that
        ``identity`` holds, whose params ``joins`` accepts and which does
        not hold it yet: first if ``at_start``, else last. Nothing is
        changed if the store was reset, or ``identity`` forgotten, since
        ``generation``; how many lists took it.

        A list result is a list, or a page (``paged()``: its ``results``
        list; see :func:`_joined`)."""
        added = 0
        with self.lock:
            if generation < self._reset_at or generation < self._forgotten.get(
                identity, 0
            ):
                return 0
            partition = self.partitions.get(identity)
            if partition is None or ref not in partition.records:
                return 0
            for by_shape in partition.results.values():
                for shape, result in by_shape.items():
                    if (
                        result.route != route
                        or result.error is not None
                        or not joins(result.params)
                    ):
                        continue
                    value = _joined(result, ref, at_start)
                    if value is not None:
                        by_shape[shape] = result._replace(value=value, digest=None)
                        added += 1
        return added

    def reset(self) -> int:
        """Empty the store; return the new generation."""
        with self.lock:
            self.partitions = {}
            self.retention = Retention(self.retention.max_bytes)
            self.generation += 1
            self._reset_at = self.generation
            self._forgotten.clear()
            self._invalidated.clear()
            self._written.clear()
            self._stamps = 0
            return self.generation

    def forget(self, identity: Hashable) -> None:
        """Forget every result and record ``identity`` holds; calls of that
        identity already in flight do not write theirs back (other
        identities' do)."""
        with self.lock:
            self._stamps -= len(self._written.pop(identity, ()))
            partition = self.partitions.pop(identity, None)
            if partition is not None:
                for key, by_shape in partition.results.items():
                    for shape in by_shape:
                        self.retention.dropped((identity, key, shape))
                self.retention.dropped((identity, "", _RECORDS))
            _remember_at(self._forgotten, identity, self._next_generation())

    def _stamp_records(self, identity: Hashable, batch: Batch) -> None:
        """``batch``'s records, written with no result (a mutation's
        answer, a pushed event), are newer than any read of them in flight."""
        generation = self._next_generation()
        records = batch.records
        stamps = self._written.setdefault(identity, {})
        self._stamps += len(records)
        # (a dict made from a dict, or merged into one, reuses its keys'
        # hashes: none is hashed again, however many records)
        if self._stamps <= _STAMPS:
            if stamps and not stamps.keys().isdisjoint(records):
                for entity_key in stamps.keys() & records.keys():
                    del stamps[entity_key]  # (stamped again below: the newest)
            stamps.update(dict.fromkeys(records, generation))
            return
        # the oldest half of each identity's go: a read older than that many
        # writes is long finished. (This identity's are its older marks of
        # other records, then ``records``: only those that stay are made.)
        kept: dict[Hashable, dict[EntityKey, int]] = {}
        for who, each in self._written.items():
            if each is not stamps:
                oldest = len(each) // 2 + 1
                kept_part = dict(itertools.islice(each.items(), oldest, None))
            else:
                older = list(itertools.filterfalse(records.__contains__, each))
                oldest = (len(older) + len(records)) // 2 + 1
                if oldest >= len(older):
                    kept_part = dict.fromkeys(
                        itertools.islice(records, oldest - len(older), None),
                        generation,
                    )
                else:
                    del older[:oldest]
                    kept_part = dict(
                        zip(older, map(each.__getitem__, older), strict=True)
                    )
                    kept_part.update(dict.fromkeys(records, generation))
            if kept_part:
                kept[who] = kept_part
        self._written = kept
        self._stamps = sum(map(len, kept.values()))

    def _keep_newer(
        self, identity: Hashable, partition: Partition, batch: Batch, generation: int
    ) -> None:
        """A read that began at ``generation`` keeps, of its records, the
        ones written since (by a mutation or a pushed event) as they are
        now, not as it read them."""
        stamps = self._written.get(identity)
        if not stamps:
            return
        records, held = batch.records, partition.records
        if len(stamps) <= len(records):
            newer = [k for k, at in stamps.items() if at > generation and k in records]
        else:
            newer = [k for k in records if stamps.get(k, 0) > generation]
        if not newer:
            return
        data = batch.data
        for entity_key in newer:
            current = held.get(entity_key)
            if current is not None:
                records[entity_key] = current
                data.pop(entity_key, None)  # (nothing of the older data merges)

    def _next_generation(self) -> int:
        self.generation += 1
        return self.generation

    def _stamp(self, what: Hashable) -> None:
        """``what`` was invalidated now (under the lock)."""
        _remember_at(self._invalidated, what, self._next_generation())

    @property
    def records(self) -> dict[EntityKey, Entity]:
        """Every record, for inspection (of a key held by several
        identities, one of them)."""
        with self.lock:
            return {
                key: record
                for partition in self.partitions.values()
                for key, record in partition.records.items()
            }

    @property
    def results(self) -> dict[str, Result]:
        """Every result by request key, for inspection (of a key held by
        several identities or shapes, one of them)."""
        with self.lock:
            return {
                key: result
                for partition in self.partitions.values()
                for key, by_shape in partition.results.items()
                for result in by_shape.values()
            }

    @property
    def size_bytes(self) -> int:
        """About how many bytes the kept results hold (see ``_retention``)."""
        return self.retention.bytes

    @property
    def max_bytes(self) -> int | None:
        """The bound of ``size_bytes``; ``None`` for none."""
        return self.retention.max_bytes

    def __len__(self) -> int:
        """How many results are kept."""
        return len(self.retention)

    def _changed(self, now: float) -> None:
        """After a change (the lock is held): drop what has expired by
        ``now``, then, past the bound, the least recently used."""
        self._now = max(self._now, now)
        retention = self.retention
        for slot in list(retention.expired(self._now)):
            self._drop(slot)
        for slot in retention.over():
            self._drop(slot)

    def _drop(self, slot: Slot) -> None:
        """Forget the result at ``slot`` (the lock is held); reclaim its
        partition's records once enough is dropped, or the partition whole
        once it keeps no result."""
        identity, key, shape = slot
        size = self.retention.dropped(slot)
        partition = self.partitions.get(identity)
        if partition is None:
            return
        results = partition.results
        by_shape = results.get(key)
        if by_shape is not None:
            by_shape.pop(shape, None)
            if not by_shape:
                del results[key]
        if not results:
            del self.partitions[identity]
            return
        partition.bytes -= size
        partition.dropped += size
        if partition.dropped > partition.bytes + _RECLAIM_FLOOR:
            # as much dropped as is held: a walk of what is held is paid
            # for by what was dropped (constant work per dropped byte)
            partition.records = _reachable(partition)
            partition.dropped = 0


def _joined(result: Result, ref: EntityKey, at_start: bool) -> Any:
    """``result``'s list value with ``ref`` added (first if ``at_start``),
    or ``None`` if it takes no record: it is no list, holds ``ref``
    already, or is a page that is not where the listing starts (a later
    page of ``paginate``) or ends (one with a next page). The page's
    other fields (``total`` among them) stay as the server sent them, as
    they do when a record is deleted."""
    value = result.value
    if type(value) is list:
        items = value
    elif type(value) is dict and type(value.get("results")) is list:
        items = value["results"]
        links = value.get("links")
        if (
            result.page not in (None, 1)
            if at_start
            else isinstance(links, Mapping) and links.get("next") is not None
        ):
            return None
    else:
        return None
    if ref in items:
        return None
    items = [ref, *items] if at_start else [*items, ref]
    return items if type(value) is list else {**value, "results": items}


#: The shape of an identity's slot for records that came with no result.
_RECORDS = "(records without a result)"

#: Bytes a partition drops before its records are first reclaimed.
_RECLAIM_FLOOR = 256 * 1024


def _record_size(batch: Batch) -> int:
    """About how many bytes one record of ``batch`` holds (a few measured)."""
    records = batch.records
    if not records:
        return 0
    sample = list(itertools.islice(records.values(), 2))
    return sum(map(size_of, sample)) // len(sample) + 100  # (+ its dict entry)


#: How many record stamps a store keeps, in all (see ``Store._written``).
_STAMPS = 8192


def _remember_at(stamps: dict[Hashable, int], what: Hashable, generation: int) -> None:
    """``stamps[what] = generation``, the oldest half dropped when full: a
    call older than that many forgettings is long finished."""
    stamps.pop(what, None)  # (re-inserted: the newest)
    if len(stamps) >= _FORGOTTEN:
        for old in list(stamps)[: _FORGOTTEN // 2]:
            del stamps[old]
    stamps[what] = generation


#: What ``Store._commit`` says when it stored every record as it was made.
_WHOLE = 2


def _merge(records: dict[EntityKey, Entity], batch: Batch) -> bool:
    """Merge ``batch``'s records into ``records``, field by field; whether
    every one was stored as it was made (none merged with a stored one).

    A record whose data has every field replaces the one stored, unless
    that one is of another class or keeps extra keys the data lacks (then
    the two merge). For a list the batch took whole (``Batch.complete``),
    that is decided for the list at once: the stored records' classes in
    one C loop, their extra keys by the class's mark (``Entity._extras_made``);
    polling a page of 20,000 records no longer asks each one.
    """
    new = batch.records
    if records.keys().isdisjoint(new):
        records.update(new)  # nothing to merge with: one C loop
        return True
    # (a key leaves the batch's records only when deleted, and a deletion
    # stays in ``batch.deleted`` unless the key is made again)
    deleted = batch.deleted
    taken = [
        keys
        for cls, keys in batch.complete
        if "_extras_made" not in cls.__dict__
        and (not deleted or all(map(new.__contains__, keys)))  # (not deleted since)
        and set(map(type, map(records.get, keys))) <= {cls, _NONE}
    ]  # (the others are asked record by record below)
    if sum(map(len, taken)) == len(new):
        # Every record taken whole: the lists' keys are the batch's (no key
        # is in two of them: a repeat is merged, and its list not taken).
        records.update(new)
        return True
    for keys in taken:
        records.update(zip(keys, map(new.__getitem__, keys), strict=True))
    replaced = set(chain.from_iterable(taken))
    raw = batch.data
    for entity_key, instance in new.items():
        if entity_key in replaced:
            continue
        existing = records.get(entity_key)
        if (
            existing is None
            or type(existing) is not type(instance)
            # a record model's instance (no raw data kept): replaced whole
            or (data := raw.get(entity_key)) is None
            or (
                # the new data has every field and every extra key the old
                # record kept: merging would only rebuild ``instance``
                data.keys() >= type(instance)._fields.keys()
                and data.keys() >= existing.extra_fields.keys()
            )
        ):
            records[entity_key] = instance
        else:
            records[entity_key] = type(instance).from_data(
                raw[entity_key], base=existing
            )
    return False


def _reachable(partition: Partition) -> dict[EntityKey, Entity]:
    """The records some result of ``partition`` reaches, directly or through
    nested entities."""
    records = partition.records
    pending: list[EntityKey] = []
    for by_shape in partition.results.values():
        for result in by_shape.values():
            if result.error is None:
                _refs(result.schema, result.value, pending)
    reached: dict[EntityKey, Entity] = {}
    while pending:
        key = pending.pop()
        if key in reached:
            continue
        record = records.get(key)
        if record is None:
            continue
        reached[key] = record
        if not isinstance(record, Entity):
            continue  # a record model's instance holds no reference
        for name, inner in type(record)._plan().nested.items():
            _refs(inner, getattr(record, name), pending)
    return reached


def _refs(schema: Any, value: Any, out: list[EntityKey]) -> None:
    """Append every reference ``value`` (normalized by ``schema``) holds."""
    if schema is None or value is None or isinstance(schema, Invalidate):
        return
    if isinstance(schema, type):
        if isinstance(value, tuple):
            out.append(value)
        return  # an entity's or record model's reference, or a model's value
    if isinstance(schema, list):
        for item in value:
            _refs(schema[0], item, out)
        return
    if isinstance(schema, Mapping) and isinstance(value, Mapping):
        for name, inner in schema.items():
            if name in value and not _literal(inner):
                _refs(inner, value[name], out)
