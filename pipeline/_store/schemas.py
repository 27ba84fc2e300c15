"""Schemas, decided once: each kind of schema is a plan that normalizes a
value into records, reads it back, and finds the records it holds.

A schema is one of:

| schema | value | normalized as | plan |
|---|---|---|---|
| ``None`` | anything | itself | :class:`PlainPlan` |
| an ``Entity`` class | an object | a reference ``(key, pk)`` to one record | :class:`EntityPlan` |
| ``[Entity]`` | a list | a list of references | :class:`EntityListPlan` |
| a record model (one with ``__restwire_pk__``) | an object | a reference to one record: the validated instance (``models``) | :class:`RecordModelPlan` |
| ``[record model]`` | a list | a list of references, validated in one call | :class:`RecordModelListPlan` |
| a model (pydantic, dataclass, TypedDict) | what it validates | an instance, validated (``models``): a value, not a record | :class:`ModelPlan` |
| ``[model]`` | a list | a list of instances, validated in one call | :class:`ModelListPlan` |
| ``[schema]`` | a list | a list of normalized items | :class:`ListPlan` |
| ``{name: schema}`` | an object | a copy, the named keys normalized; a name whose schema is a literal (``"link": ""``, as data-client writes it) passes as it is | :class:`ObjectPlan` |
| ``Invalidate(Entity)``, ``Invalidate(record model)`` | an object, or nothing | a deletion of that record | :class:`InvalidatePlan` |

:func:`plan_of` looks at a schema once, where an endpoint is made (a
wrong one is a ``TypeError`` naming the place), and gives the plan of its
kind; from then on each call runs that kind's code, with nothing asked of
the schema again. Plans are values, shared by every endpoint of an equal
schema.

Normalization walks the schema, not the value: data outside the schema is
never visited, however deep. Reading back replaces each reference with the
current record, so the same entity fetched by two endpoints reads the same
everywhere. A deleted record drops out of lists; in any other place it
makes the whole value unreadable (:data:`MISSING`), and ``get`` fetches it
again.

One response normalizes into a :class:`Batch`: the records it brings and
the ones it deletes, for the store to merge.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from itertools import compress, islice
from operator import is_
from typing import Any, NamedTuple, NoReturn

from .._base.errors import UsageError
from .columns import ColumnRecords, Kinds, records_by_column
from .entity import (
    Entity,
    EntityError,
    EntityKey,
    _astuple,
    _force_setattr,
    _restore,
    build,
    check_data,
)
from .models import ModelRecord, is_model, record_of, validate, validator
from .retention import columns_size

__all__ = [
    "MISSING",
    "Batch",
    "EntityKey",
    "EntityListPlan",
    "EntityPlan",
    "Invalidate",
    "InvalidatePlan",
    "ListPlan",
    "ModelListPlan",
    "ModelPlan",
    "ObjectPlan",
    "PlainPlan",
    "Plan",
    "RecordModelListPlan",
    "RecordModelPlan",
    "Ref",
    "check_schema",
    "denormalize",
    "entities_by_column",
    "keyed",
    "normalize",
    "plan_of",
]


class Ref(NamedTuple):
    """A reference to one entity record in a store: equal to its ``(key, pk)``."""

    key: str
    pk: str


@dataclass(frozen=True, slots=True)
class Invalidate:
    """A deletion schema: the response (or the call's params, when the
    response has no body) names an entity to remove from the store: an
    ``Entity`` subclass's, or a record model's (``models``)."""

    entity: type[Any]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: What reading back gives when a record the value needs (outside a list)
#: is gone.
MISSING: Any = _Missing()

_NONE = type(None)
_IS_TUPLE = partial(is_, tuple)

#: Records by reference, as a store or a batch holds them.
Records = Mapping[EntityKey, Any]


# -- what one response normalizes to ----------------------------------------------


class Batch:
    """What one response normalizes to: records to merge, and deletions."""

    __slots__ = (
        "_data",
        "_pending",
        "committed",
        "complete",
        "deleted",
        "made",
        "records",
    )

    def __init__(self) -> None:
        #: (key, pk) -> the instance built from this response alone
        self.records: dict[EntityKey, Entity] = {}
        self._data: dict[EntityKey, Mapping[str, Any]] = {}
        #: Lists' keys and raw items not yet in ``_data`` (see ``data``).
        self._pending: list[tuple[list[EntityKey], Iterable[Any]]] = []
        self.deleted: set[EntityKey] = set()
        #: Lists of keys whose data held every field of their entity class
        #: (and nothing else), by class: merged in one step (``store._merge``).
        self.complete: list[tuple[type[Entity], list[EntityKey]]] = []
        #: For each list of ``complete``: ``id`` of its keys -> the keys, the
        #: records made for them, in order (what reading the list back
        #: gives, while the store holds these very records: ``Store.commit``),
        #: the columns they were made of and those columns' classes, where
        #: known (``records_bytes``).
        self.made: dict[
            int,
            tuple[list[EntityKey], list[Entity], list[list[Any]], Kinds | None],
        ] = {}
        #: Set once a store has taken the batch (it may then hold ``records``
        #: itself: the batch is not to be changed, nor committed again).
        self.committed: bool | None = None

    def took_whole(
        self,
        cls: type[Entity],
        keys: list[EntityKey],
        instances: list[Entity],
        columns: list[list[Any]],
        kinds: Kinds | None = None,
    ) -> None:
        """``keys`` (new to this batch) are a list whose data held every
        field of ``cls`` and nothing else, made into ``instances`` from
        ``columns`` (each field's values, as the records hold them, of the
        classes ``kinds`` where known: ``columns.Kinds``)."""
        self.complete.append((cls, keys))
        self.made[id(keys)] = (keys, instances, columns, kinds)

    def records_bytes(self, records: list[Any]) -> int | None:
        """The bytes ``records`` hold (``retention.records_size``'s count),
        counted from the columns they were made of, when they are the very
        records the lists taken whole made, in order (a list's records,
        filed and stored as they were made); else ``None``: counting them
        is the store's work."""
        made = self.made
        if not made or len(records) != sum(len(each[1]) for each in made.values()):
            return None
        at = 0
        for _, instances, _, _ in made.values():
            if not all(map(is_, islice(records, at, at + len(instances)), instances)):
                return None
            at += len(instances)
        return sum(
            columns_size(instances, columns, kinds)
            for _, instances, columns, kinds in made.values()
        )

    def made_columns(self, records: list[Any]) -> list[list[Any]] | None:
        """The columns ``records`` were made of (each field's values, in
        field order), when they are the very records of one list taken
        whole, in order; else ``None``."""
        for _, instances, columns, _ in self.made.values():
            if len(instances) == len(records) and all(map(is_, records, instances)):
                return columns
        return None

    @property
    def data(self) -> dict[EntityKey, Mapping[str, Any]]:
        """(key, pk) -> the raw fields this response had, for merging.

        A list normalized by column hands over its keys and items as they
        are (:meth:`defer`); they are filed here the first time anything
        asks, in the order they came. A response merged in one step, or
        into a store that holds none of its keys, never asks.
        """
        pending = self._pending
        if pending:
            data = self._data
            for keys, items in pending:
                data.update(zip(keys, items, strict=True))
            pending.clear()
        return self._data

    def defer(self, keys: list[EntityKey], items: Iterable[Any]) -> None:
        """``items`` are the raw fields of ``keys`` (new to this batch);
        file them when ``data`` is first asked for."""
        self._pending.append((keys, items))

    def add(self, key: EntityKey, record: Any) -> None:
        """Keep ``record`` (a record model's instance) under ``key``: the
        last one of a key wins, and it is deleted no more."""
        self.records[key] = record
        if self.deleted:
            self.deleted.discard(key)

    def delete(self, key: EntityKey) -> None:
        """The record ``key`` is deleted (and none of this response's kept)."""
        self.deleted.add(key)
        self.records.pop(key, None)
        self.data.pop(key, None)


# -- plans ---------------------------------------------------------------------


class Plan:
    """How one kind of schema normalizes a value, reads it back, and finds
    the records it holds. ``schema`` is the schema as it was given."""

    __slots__ = ("schema",)

    def __init__(self, schema: Any) -> None:
        self.schema = schema

    def normalize(self, value: Any, batch: Batch, params: Mapping[str, Any]) -> Any:
        """``value`` with every record the schema names replaced by its
        reference, the records kept in ``batch``."""
        return value

    def read(
        self, value: Any, records: Records, memo: dict[EntityKey, Any] | None = None
    ) -> Any:
        """``value`` (normalized) with every reference replaced by its record
        in ``records``; :data:`MISSING` if one it needs (outside a list) is
        gone. ``memo`` holds the nested entities resolved so far."""
        return value

    def refs(self, value: Any, out: list[EntityKey]) -> None:
        """Append every reference ``value`` (normalized) holds to ``out``."""

    def ready(self) -> None:
        """Make sure what the plan reads with is there, where an endpoint is
        made: a model's validator (and so pydantic) built, or the error
        that says what to install."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.schema!r})"


class PlainPlan(Plan):
    """No schema, a model's value, or a deletion: the value as it is."""

    __slots__ = ()


class EntityPlan(Plan):
    """An ``Entity`` class: an object becomes one record."""

    __slots__ = ("_compiled", "_nested", "cls")

    def __init__(self, cls: type[Entity]) -> None:
        super().__init__(cls)
        self.cls = cls
        self._compiled: Any = None
        self._nested: dict[str, Plan] = {}

    def nested(self) -> dict[str, Plan]:
        """The plans of the class's nested entity fields (worked out again
        when its ``schema`` is reassigned)."""
        compiled = self.cls._plan()
        if compiled is not self._compiled:
            self._nested = {
                name: plan_of(inner) for name, inner in compiled.nested.items()
            }
            self._compiled = compiled
        return self._nested

    def normalize(self, value: Any, batch: Batch, params: Mapping[str, Any]) -> Any:
        if value is None:
            return None
        return self.records_of((value,), batch, params)[0]

    def records_of(
        self, values: Iterable[Any], batch: Batch, params: Mapping[str, Any]
    ) -> list[EntityKey]:
        """Each value as a record of the class in ``batch``; their references
        (``(key, pk)`` tuples, equal to :class:`Ref`).

        The hot path of normalization, one record at a time: everything per
        class is looked up once.
        """
        cls = self.cls
        compiled = cls._plan()
        nested = self.nested() if compiled.nested else None
        key_name = cls.key
        records, seen, deleted = batch.records, batch.data, batch.deleted
        refs: list[EntityKey] = []
        fields = compiled.field_names
        for value in values:
            if type(value) is not dict and not isinstance(value, Mapping):
                raise _not_an_object(cls, value)
            if fields and fields.isdisjoint(value):
                raise _no_field(cls, value)
            check_data(cls, compiled, value)
            data = value
            if nested:
                data = dict(value)
                for name, inner in nested.items():
                    if name in data:
                        data[name] = inner.normalize(data[name], batch, params)
            instance = build(cls, data, compiled)
            pk = instance.pk()
            if type(pk) is not str or not pk:
                _bad_pk(cls, pk, value)
            key = (key_name, pk)  # equal to Ref(key_name, pk); a tuple is cheaper
            earlier = seen.get(key)
            if earlier is None:
                records[key] = instance
                seen[key] = data  # never mutated: a repeat makes a merged copy
            else:
                merged = {**earlier, **data}
                seen[key] = merged
                records[key] = build(cls, merged, compiled)
            if deleted:
                deleted.discard(key)
            refs.append(key)
        return refs

    def read(
        self, value: Any, records: Records, memo: dict[EntityKey, Any] | None = None
    ) -> Any:
        if type(value) is not tuple and not isinstance(value, tuple):
            return value  # None, or a value stored as it was
        record = records.get(value)
        if record is None:
            return MISSING
        if not type(record)._plan().nested:
            return record
        return self.resolved(value, record, records, memo)

    def resolved(
        self,
        key: EntityKey,
        record: Entity,
        records: Records,
        memo: dict[EntityKey, Any] | None,
    ) -> Entity:
        """``record`` with its nested entities read back: made first and
        filled after, so a record that reaches itself resolves to itself
        (the cycle is the collector's to reclaim)."""
        if memo is None:
            memo = {}
        done = memo.get(key)
        if done is not None:
            return done  # type: ignore[no-any-return]
        resolved = _restore(type(record), _astuple(record), record.extra_fields)
        memo[key] = resolved
        for name, inner in entity_plan(type(record)).nested().items():
            read = inner.read(getattr(record, name), records, memo)
            _force_setattr(resolved, name, None if read is MISSING else read)
        return resolved

    def refs(self, value: Any, out: list[EntityKey]) -> None:
        if isinstance(value, tuple):
            out.append(value)

    def record_refs(self, record: Any, out: list[EntityKey]) -> None:
        """Append the references ``record``'s nested entity fields hold."""
        for name, inner in self.nested().items():
            inner.refs(getattr(record, name), out)


class EntityListPlan(Plan):
    """``[Entity]``: a list becomes records, column by column where it can
    (``columns``), else one record at a time."""

    __slots__ = ("item",)

    def __init__(self, item: EntityPlan) -> None:
        super().__init__([item.cls])
        self.item = item

    def normalize(self, value: Any, batch: Batch, params: Mapping[str, Any]) -> Any:
        if value is None:
            return None
        _check_list(self.schema, value)
        if type(value) is list:
            refs = entities_by_column(self.item.cls, value, batch)
            if refs is not None:
                return refs
        return self.item.records_of(value, batch, params)

    def read(
        self, value: Any, records: Records, memo: dict[EntityKey, Any] | None = None
    ) -> Any:
        if value is None:
            return None
        item = self.item
        if not item.cls._plan().nested:
            get = records.get
            return [record for ref in value if (record := get(ref)) is not None]
        items = (item.read(ref, records, memo) for ref in value)
        return [each for each in items if each is not MISSING]

    def refs(self, value: Any, out: list[EntityKey]) -> None:
        if value is not None:  # (its references: each a tuple; C loops)
            out.extend(compress(value, map(_IS_TUPLE, map(type, value))))


def entities_by_column(
    cls: type[Entity], values: list[Any], batch: Batch
) -> list[EntityKey] | None:
    """The references of ``values`` as records of ``cls`` in ``batch``, made
    column by column (``columns``) and filed as the record path files them;
    or ``None`` (``batch`` untouched) when the record path must do it."""
    made: ColumnRecords | None = records_by_column(cls, values)
    if made is None:
        return None
    instances, keys, columns, kinds = made
    records, deleted = batch.records, batch.deleted
    before = len(records)
    records.update(zip(keys, instances, strict=True))
    if len(records) == before + len(keys):
        # every key new to the batch and none repeated (the usual case):
        # the items are its raw data, never mutated (a repeat makes a copy)
        batch.defer(keys, values)
        if columns is not None:
            batch.took_whole(cls, keys, instances, columns, kinds)
    else:
        # Rewrite every one of these records the record path's way: the
        # first of a key as it is, a repeat merged over what came before
        # (``seen``: the raw data of what earlier lists put in the batch).
        seen = batch.data
        compiled = cls._plan()
        for key, instance, value in zip(keys, instances, values, strict=True):
            earlier = seen.get(key)
            if earlier is None:
                records[key] = instance
                seen[key] = value
            else:
                merged = {**earlier, **value}
                seen[key] = merged
                records[key] = build(cls, merged, compiled)
    if deleted:
        deleted.difference_update(keys)
    return keys


class RecordModelPlan(Plan):
    """A model that declares its primary key: an object becomes one record,
    the validated instance (``models``)."""

    __slots__ = ("record",)

    def __init__(self, model: type, record: ModelRecord) -> None:
        super().__init__(model)
        self.record = record

    def ready(self) -> None:
        validator(self.schema)

    def normalize(self, value: Any, batch: Batch, params: Mapping[str, Any]) -> Any:
        if value is None:
            return None
        return self.kept(validate(self.schema, value), value, batch)

    def kept(self, instance: Any, raw: Any, batch: Batch) -> EntityKey:
        """``instance`` kept as a record in ``batch``; its reference."""
        record = self.record
        pk = getattr(instance, record.pk)
        if pk is None or pk == "":
            raise EntityError(
                self.schema.__name__,
                record.pk,
                _preview(raw),
                "has no primary key (__restwire_pk__)",
            )
        ref = (record.key, pk if type(pk) is str else str(pk))
        batch.add(ref, instance)
        return ref

    def read(
        self, value: Any, records: Records, memo: dict[EntityKey, Any] | None = None
    ) -> Any:
        if type(value) is not tuple:
            return value
        return records.get(value, MISSING)

    def refs(self, value: Any, out: list[EntityKey]) -> None:
        if isinstance(value, tuple):
            out.append(value)


class RecordModelListPlan(Plan):
    """``[record model]``: a list validated in one call, each item a record
    (a primary key repeated in one response keeps the last instance)."""

    __slots__ = ("item",)

    def __init__(self, item: RecordModelPlan) -> None:
        super().__init__([item.schema])
        self.item = item

    def ready(self) -> None:
        validator(self.item.schema)
        validator(self.item.schema, many=True)  # what a list of them is read with

    def normalize(self, value: Any, batch: Batch, params: Mapping[str, Any]) -> Any:
        if value is None:
            return None
        _check_list(self.schema, value)
        instances = validate(self.item.schema, value, many=True)
        kept = self.item.kept
        return [
            kept(instance, raw, batch)
            for instance, raw in zip(instances, value, strict=True)
        ]

    def read(
        self, value: Any, records: Records, memo: dict[EntityKey, Any] | None = None
    ) -> Any:
        if not value:
            return value
        get = records.get
        return [record for ref in value if (record := get(ref)) is not None]

    def refs(self, value: Any, out: list[EntityKey]) -> None:
        if value is not None:
            out.extend(value)


class ModelPlan(Plan):
    """A model: a value validated into its instance, not a record."""

    __slots__ = ()

    def ready(self) -> None:
        validator(self.schema)

    def normalize(self, value: Any, batch: Batch, params: Mapping[str, Any]) -> Any:
        return None if value is None else validate(self.schema, value)


class ModelListPlan(Plan):
    """``[model]``: a list validated in one call into instances."""

    __slots__ = ("model",)

    def __init__(self, model: type) -> None:
        super().__init__([model])
        self.model = model

    def ready(self) -> None:
        validator(self.model)
        validator(self.model, many=True)

    def normalize(self, value: Any, batch: Batch, params: Mapping[str, Any]) -> Any:
        if value is None:
            return None
        _check_list(self.schema, value)
        return validate(self.model, value, many=True)


class ListPlan(Plan):
    """``[schema]`` of any other item: each item by its own plan."""

    __slots__ = ("item",)

    def __init__(self, schema: list[Any], item: Plan) -> None:
        super().__init__(schema)
        self.item = item

    def ready(self) -> None:
        self.item.ready()

    def normalize(self, value: Any, batch: Batch, params: Mapping[str, Any]) -> Any:
        if value is None:
            return None
        _check_list(self.schema, value)
        item = self.item
        return [item.normalize(each, batch, params) for each in value]

    def read(
        self, value: Any, records: Records, memo: dict[EntityKey, Any] | None = None
    ) -> Any:
        if value is None:
            return None
        item = self.item
        items = (item.read(each, records, memo) for each in value)
        return [each for each in items if each is not MISSING]

    def refs(self, value: Any, out: list[EntityKey]) -> None:
        if value is not None:
            for each in value:
                self.item.refs(each, out)


class ObjectPlan(Plan):
    """``{name: schema}``: a copy of an object, the named keys by their
    plans; a name whose schema is a literal passes as it is."""

    __slots__ = ("fields",)

    def __init__(self, schema: Mapping[str, Any], fields: dict[str, Plan]) -> None:
        super().__init__(schema)
        #: The names whose schema is not a literal, and their plans.
        self.fields = fields

    def ready(self) -> None:
        for plan in self.fields.values():
            plan.ready()

    def normalize(self, value: Any, batch: Batch, params: Mapping[str, Any]) -> Any:
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise EntityError(
                _label(self.schema),
                None,
                None,
                f"expected an object, got {type(value).__name__}",
                show_value=False,
            )
        out = dict(value)
        for name, inner in self.fields.items():
            if name in out:
                out[name] = inner.normalize(out[name], batch, params)
        return out

    def read(
        self, value: Any, records: Records, memo: dict[EntityKey, Any] | None = None
    ) -> Any:
        if value is None:
            return None
        out = dict(value)
        for name, inner in self.fields.items():
            if name in out:
                read = inner.read(out[name], records, memo)
                if read is MISSING:
                    return MISSING
                out[name] = read
        return out

    def refs(self, value: Any, out: list[EntityKey]) -> None:
        if isinstance(value, Mapping):
            for name, inner in self.fields.items():
                if name in value:
                    inner.refs(value[name], out)


class InvalidatePlan(Plan):
    """``Invalidate(Entity or record model)``: deletes the record the
    response names; when it names none (a 204, or a status body such as
    ``{"deleted": true}``), the one the call's params name; when neither
    does, an error, never a silent no-op."""

    __slots__ = ("cls", "deleted", "record")

    def __init__(self, schema: Invalidate, deleted: Plan) -> None:
        super().__init__(schema)
        self.cls = schema.entity
        #: The plan of the record deleted (a model's validator is built too).
        self.deleted = deleted
        entity = isinstance(self.cls, type) and issubclass(self.cls, Entity)
        self.record: ModelRecord | None = None if entity else record_of(self.cls)

    def ready(self) -> None:
        self.deleted.ready()

    def normalize(self, value: Any, batch: Batch, params: Mapping[str, Any]) -> Any:
        pk = self._pk_in(value) if isinstance(value, Mapping) else None
        if pk is None:
            pk = self._pk_in(params)
        if pk is None:
            shown = value if isinstance(value, Mapping) and value else dict(params)
            raise EntityError(
                self.cls.__name__, None, _preview(shown), "has no primary key"
            )
        key_name = self.cls.key if self.record is None else self.record.key
        batch.delete((key_name, pk))
        return value

    def _pk_in(self, source: Mapping[str, Any]) -> str | None:
        """The primary key ``source`` (a body, or the call's params) gives
        the record, as text; ``None`` if it gives none."""
        record = self.record
        if record is not None:
            for name in record.wire_names:
                pk = source.get(name)
                if pk is not None and pk != "":
                    return pk if type(pk) is str else str(pk)
            return None
        cls = self.cls
        fields = {name: value for name, value in source.items() if name in cls._fields}
        if not fields:
            return None
        # (not checked: a call's params say the key as text, whatever its type)
        pk = build(cls, fields, cls._plan()).pk()
        return pk or None


def keyed(plan: Plan, value: Any, params: Mapping[str, Any]) -> Any:
    """An update's answer ``value`` that names no record (a ``PATCH``
    answering only the fields it changed), given its key from ``params``
    (the item's path params, named as fields): the fields of a record
    ``Entity`` it lacks, or a record model's primary key; ``value`` as it
    is when it names its record, or ``params`` do not."""
    if not isinstance(value, Mapping) or not params:
        return value
    if isinstance(plan, EntityPlan):
        cls = plan.cls
        fields = cls._plan().field_names
        given = {
            name: key
            for name, key in params.items()
            if name in fields and value.get(name) is None
        }
        if not given:
            return value
        try:
            named = cls.from_data(value).pk()
        except EntityError:
            return value  # normalizing says what is wrong with it
        return value if named else {**value, **given}
    if isinstance(plan, RecordModelPlan):
        names = plan.record.wire_names
        if any(value.get(name) not in (None, "") for name in names):
            return value
        for name in names:
            key = params.get(name)
            if key is not None and key != "":
                return {**value, name: key}
    return value


# -- from a schema to its plan -------------------------------------------------------

_LITERALS = (str, int, float, bool, type(None))

#: Plans made so far, by the schema's hashable form (a bound, not an LRU).
_PLANS: dict[Hashable, Plan] = {}
_PLANS_KEPT = 1024
#: Each entity class's plan (nested fields ask for theirs on every record).
_ENTITY_PLANS: dict[type, EntityPlan] = {}


def _literal(schema: Any) -> bool:
    """Whether ``schema``, found in an object schema, is a literal (a JSON
    scalar) that passes the value through rather than a schema."""
    return isinstance(schema, _LITERALS)


def entity_plan(cls: type[Entity]) -> EntityPlan:
    """The plan of the entity class ``cls``."""
    plan = _ENTITY_PLANS.get(cls)
    if plan is None:
        plan = _ENTITY_PLANS[cls] = EntityPlan(cls)
    return plan


def plan_of(schema: Any, where: str = "schema") -> Plan:
    """The plan of ``schema``, made once per schema; what is not a schema is
    refused with a ``TypeError`` naming the place (``where``): an
    ``Entity`` subclass, a model (pydantic, dataclass, TypedDict),
    ``[schema]``, ``{name: schema or literal}``, ``Invalidate(Entity)`` or
    ``None``. A model's validator is built here too, so a missing pydantic
    or a model it cannot take fails where the endpoint is written."""
    try:
        key = _key(schema)
    except TypeError:
        return _compile(schema, where)  # not a schema: it says why
    plan = _PLANS.get(key)
    if plan is None:
        plan = _compile(schema, where)
        if len(_PLANS) >= _PLANS_KEPT:
            _PLANS.clear()
        _PLANS[key] = plan
    plan.ready()  # (each time: what it reads with may have gone since)
    return plan


def check_schema(schema: Any, where: str = "schema") -> None:
    """Refuse, with a ``TypeError`` naming the place, what is not a schema
    (see :func:`plan_of`)."""
    plan_of(schema, where)


def _key(schema: Any) -> Hashable:
    """``schema`` as a hashable value (lists and dicts as tuples); a
    ``TypeError`` for what cannot be one (no schema can't)."""
    if isinstance(schema, list):
        return ("list", *(_key(item) for item in schema))
    if isinstance(schema, Mapping):
        return (
            "dict",
            frozenset((name, _key(inner)) for name, inner in schema.items()),
        )
    hash(schema)
    return (type(schema), schema)


def _compile(schema: Any, where: str) -> Plan:
    if schema is None:
        return PlainPlan(None)
    if isinstance(schema, Invalidate):
        return _invalidate_plan(schema, where)
    if isinstance(schema, type) and issubclass(schema, Entity) and schema is not Entity:
        return entity_plan(schema)
    if is_model(schema):
        record = record_of(schema)  # a wrong __restwire_pk__ fails here
        if record is not None:
            return RecordModelPlan(schema, record)
        return ModelPlan(schema)
    if isinstance(schema, list):
        return _list_plan(schema, where)
    if isinstance(schema, Mapping):
        fields = {
            name: plan_of(inner, f"{where}[{name!r}]")
            for name, inner in schema.items()
            if not _literal(inner)
        }
        return ObjectPlan(schema, fields)
    raise UsageError(
        f"not a schema: {where} {schema!r}; use an Entity subclass, a model "
        "(pydantic, dataclass, TypedDict), [schema], {name: schema}, "
        "Invalidate(Entity) or None"
    )


def _list_plan(schema: list[Any], where: str) -> Plan:
    if len(schema) != 1:
        raise UsageError(
            f"not a schema: {where} {schema!r}; a list schema has exactly one "
            "item schema"
        )
    item = plan_of(schema[0], f"{where}[0]")
    if type(item) is EntityPlan:
        return EntityListPlan(item)
    if type(item) is RecordModelPlan:
        return RecordModelListPlan(item)
    if type(item) is ModelPlan:
        return ModelListPlan(item.schema)
    return ListPlan(schema, item)


def _invalidate_plan(schema: Invalidate, where: str) -> Plan:
    entity = schema.entity
    is_entity = isinstance(entity, type) and issubclass(entity, Entity)
    if not is_entity and not (
        is_model(entity) and getattr(entity, "__restwire_pk__", None) is not None
    ):
        raise UsageError(
            f"not a schema: {where}.entity {entity!r}; Invalidate "
            "removes records, so it takes an Entity subclass or a model "
            "that declares its primary key (__restwire_pk__)"
        )
    return InvalidatePlan(schema, plan_of(entity, f"{where}.entity"))


# -- by schema, for callers that hold no plan ------------------------------------


def normalize(schema: Any, value: Any, batch: Batch, params: Mapping[str, Any]) -> Any:
    """``value`` with every record ``schema`` names replaced by its reference."""
    return plan_of(schema).normalize(value, batch, params)


def denormalize(schema: Any, value: Any, records: Records) -> Any:
    """``value`` (normalized by ``schema``) with every reference replaced by
    its record; :data:`MISSING` if a record it needs (outside a list) is gone."""
    return plan_of(schema).read(value, records)


# -- errors -------------------------------------------------------------------


def _check_list(schema: Any, value: Any) -> None:
    if not isinstance(value, list | tuple):
        if isinstance(value, Mapping):
            got = f"an object ({_keys(value)})"
            hint = (
                "; a list wrapped in an object takes the schema "
                "{'results': [...]} (paged()), or resource(..., results=...)"
            )
        else:
            got, hint = type(value).__name__, ""
        raise EntityError(
            _label(schema),
            None,
            None,
            f"expected a list, got {got}{hint}",
            show_value=False,
        )


def _not_an_object(cls: type[Entity], value: Any) -> EntityError:
    """The error for ``value``, which is no object, given as a ``cls``."""
    if isinstance(value, list | tuple):
        got = f"a list of {len(value)}"
        hint = f"; a list takes the schema [{cls.__name__}]"
    else:
        got, hint = type(value).__name__, ""
    return EntityError(
        cls.__name__,
        None,
        None,
        f"expected an object, got {got}{hint}",
        show_value=False,
    )


def _no_field(cls: type[Entity], value: Mapping[str, Any]) -> EntityError:
    """The error for an object that has none of ``cls``'s fields: a page
    or a list's envelope, or an error, where one record was expected (a
    record made of defaults alone would be made up)."""
    return EntityError(
        cls.__name__,
        None,
        None,
        f"the object has none of {cls.__name__}'s fields ({_keys(value)}): "
        f"a list or a page, not one {cls.__name__}? A list takes the schema "
        f"[{cls.__name__}]; a call for one record must name its params",
        show_value=False,
    )


def _keys(value: Mapping[str, Any]) -> str:
    """An object's keys, for an error (never their values)."""
    if not value:
        return "it is empty"
    names = [repr(name) for name in list(value)[:6]]
    more = f" and {len(value) - 6} more" if len(value) > 6 else ""
    return f"its keys: {', '.join(names)}{more}"


def _bad_pk(cls: type[Entity], pk: Any, value: Any) -> NoReturn:
    if pk is None or pk == "":
        raise EntityError(cls.__name__, None, _preview(value), "has no primary key")
    raise EntityError(
        cls.__name__, None, pk, f"pk() must return text, not {type(pk).__name__}"
    )


def _label(schema: Any) -> str:
    return f"schema {schema!r}"


def _preview(value: Any) -> Any:
    if isinstance(value, Mapping) and len(value) > 6:
        return {k: value[k] for k in list(value)[:6]}
    return value
