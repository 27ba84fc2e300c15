"""Normalizing values by an endpoint's schema, and reading them back.

A schema is one of:

| schema                 | value                | normalized as                              |
|------------------------|----------------------|--------------------------------------------|
| ``None``               | anything             | itself                                     |
| an ``Entity`` class    | an object            | a reference ``(key, pk)`` to one record    |
| ``[schema]``           | a list               | a list of normalized items                 |
| ``{name: schema}``     | an object            | a copy, the named keys normalized          |
| ``Invalidate(Entity)`` | an object, or nothing| a deletion of that entity                  |

Normalization walks the schema, not the value: data outside the schema is
never visited, however deep. Reading back (``denormalize``) replaces each
reference with the current record, so the same entity fetched by two
endpoints reads the same everywhere. A deleted record drops out of lists; in
any other place it makes the whole result unreadable (``MISSING``), and
``get`` fetches it again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, NoReturn

from ._entity import Entity, EntityError, build

__all__ = ["MISSING", "Batch", "Invalidate", "Ref", "denormalize", "normalize"]


class Ref(NamedTuple):
    """A reference to one entity record in a store: equal to its ``(key, pk)``."""

    key: str
    pk: str


@dataclass(frozen=True, slots=True)
class Invalidate:
    """The seed's deletion schema: the response (or the call's params, when the
    response has no body) names an entity to remove from the store."""

    entity: type[Entity]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

EntityKey = tuple[str, str]


class Batch:
    """What one response normalizes to: records to merge, and deletions."""

    __slots__ = ("data", "deleted", "records")

    def __init__(self) -> None:
        #: (key, pk) -> the instance built from this response alone
        self.records: dict[EntityKey, Entity] = {}
        #: (key, pk) -> the raw fields this response had, for merging
        self.data: dict[EntityKey, Mapping[str, Any]] = {}
        self.deleted: set[EntityKey] = set()


def normalize(schema: Any, value: Any, batch: Batch, params: Mapping[str, Any]) -> Any:
    """``value`` with every entity the schema names replaced by a :class:`Ref`."""
    if isinstance(schema, Invalidate):
        return _invalidate(schema.entity, value, batch, params)
    if schema is None or value is None:
        return value
    if isinstance(schema, type) and issubclass(schema, Entity):
        return _entity(schema, value, batch, params)
    if isinstance(schema, list):
        if len(schema) != 1:
            raise TypeError(f"a list schema has one item schema, got {schema!r}")
        if not isinstance(value, list | tuple):
            raise EntityError(_label(schema), None, value, "expected a list")
        item_schema = schema[0]
        if isinstance(item_schema, type) and issubclass(item_schema, Entity):
            return _entities(item_schema, value, batch, params)
        return [normalize(item_schema, item, batch, params) for item in value]
    if isinstance(schema, Mapping):
        if not isinstance(value, Mapping):
            raise EntityError(_label(schema), None, value, "expected an object")
        out = dict(value)
        for name, inner in schema.items():
            if name in out:
                out[name] = normalize(inner, out[name], batch, params)
        return out
    raise TypeError(f"not a schema: {schema!r}")


def _entity(
    cls: type[Entity], value: Any, batch: Batch, params: Mapping[str, Any]
) -> EntityKey:
    return _entities(cls, (value,), batch, params)[0]


def _entities(
    cls: type[Entity], values: Iterable[Any], batch: Batch, params: Mapping[str, Any]
) -> list[EntityKey]:
    """Each value as a record of ``cls`` in ``batch``; their references
    (``(key, pk)`` tuples, equal to :class:`Ref`).

    The hot path of normalization: everything per class is looked up once.
    """
    plan = cls._plan()
    nested = plan.nested
    default_pk = cls.pk is Entity.pk
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
        if default_pk:
            pk = instance.__dict__.get("id")
            pk = None if pk is None else str(pk)
        else:
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
    cls: type[Entity], value: Any, batch: Batch, params: Mapping[str, Any]
) -> Any:
    source = value if isinstance(value, Mapping) and value else params
    instance = cls.from_data({k: v for k, v in source.items() if k in cls._fields})
    pk = instance.pk()
    if pk is None:
        raise EntityError(cls.__name__, None, _preview(source), "has no primary key")
    key = (cls.key, pk)
    batch.deleted.add(key)
    batch.records.pop(key, None)
    batch.data.pop(key, None)
    return value


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
    if isinstance(schema, type) and issubclass(schema, Entity):
        return _record(value, records, _memo)
    if isinstance(schema, Invalidate):
        return value
    if isinstance(schema, list):
        item_schema = schema[0]
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
        if name in out_map:
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
    resolved = object.__new__(type(record))
    memo[key] = resolved
    fields = dict(record.__dict__)
    for name, inner in nested.items():
        read = denormalize(inner, fields.get(name), records, memo)
        fields[name] = None if read is MISSING else read
    resolved.__dict__.update(fields)
    if record.extra_fields:
        object.__setattr__(resolved, "_extra", record.extra_fields)
    return resolved


def _label(schema: Any) -> str:
    return f"schema {schema!r}"


def _preview(value: Any) -> Any:
    if isinstance(value, Mapping) and len(value) > 6:
        return {k: value[k] for k in list(value)[:6]}
    return value
