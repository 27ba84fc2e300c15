"""Models as records: a pydantic model or a dataclass that names its primary key.

A model (see ``_models``) is a value unless its class says which field is
its primary key, with the class attribute ``__restwire_pk__``::

    class Post(pydantic.BaseModel):
        __restwire_pk__ = "id"

        id: int
        title: str


    @dataclasses.dataclass
    class Point:
        __restwire_pk__: ClassVar[str] = "name"

        name: str
        x: float

Such a model is a **record**, kept like an ``Entity``: once per caller
identity under ``(key, pk)`` (``key`` is ``__restwire_key__``, default the
class name; ``pk`` the field's value as text), so every stored result that
holds it reads the newest instance, a delete (``Invalidate(Post)``) drops
it from stored lists, and a create joins them (``resource(new_items=)``).

Why a dunder class attribute naming a field:

- It reads the same in a pydantic model and a dataclass, and changes
  neither: pydantic and ``dataclasses`` both leave a dunder (or
  ``ClassVar``) attribute out of the fields, so the constructor, the JSON
  and the types are the model's own, and ``resource(schema=Post)`` is still
  a ``Resource[Post]`` whose values are ``Post`` instances.
- A field name, not a ``pk()`` method as ``Entity`` has: restwire reads the
  key from data that is not a whole model (a DELETE's params, a status
  body), which no model validates; and ``pk`` is a name APIs use for a field.
- Explicit: a model with an ``id`` field stays a value until it says
  otherwise (an embedded snapshot with an id is not a record).

What a record model guarantees, and what it does not:

- The instance stored is the one validated from the response: reading it
  back validates nothing again, and one read gives one instance per record.
  Instances are shared; treat them as read-only, as every stored value.
- A newer response **replaces** the whole record (a model is validated from
  a whole object; no partial instance exists to merge field by field). An
  API whose PATCH answers only the changed fields wants an ``Entity``.
- A response whose pk field is ``None`` or empty is an ``EntityError``
  naming the model (the controller adds the URL).
- Only the value itself, a list's items and the models an object schema
  names (``{"results": [Post]}``) are records. A record model held in a
  field of another model is part of that model's value, not a record of
  its own (normalizing inside a validated instance would mean rebuilding
  it on every read).
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Mapping
from typing import Any, NamedTuple, NoReturn

from .._base.errors import UsageError
from .batch import Batch, EntityKey
from .entity import EntityError
from .models import is_model, validate

__all__ = [
    "ModelRecord",
    "model_pk_in",
    "model_record",
    "model_records",
    "record_fields",
    "record_of",
]

_NONE = type(None)


class ModelRecord(NamedTuple):
    """How a record model is kept: its ``key`` in the store, the field that
    is its primary key, the names that field may have in data (the field's
    own, and a pydantic alias), and every field name."""

    key: str
    pk: str
    wire_names: tuple[str, ...]
    fields: frozenset[str]


def record_of(schema: Any) -> ModelRecord | None:
    """The record declaration of ``schema``, if it is a model that declares a
    primary key (``__restwire_pk__``); ``None`` for any other schema.

    A declaration that is not a text naming a field, or a ``__restwire_key__``
    that is not text, is a ``TypeError`` naming the class: raised where an
    endpoint is made (``check_schema``). Worked out once per class."""
    return _record_of(schema) if isinstance(schema, type) else None


@functools.cache
def _record_of(schema: type) -> ModelRecord | None:
    if not is_model(schema):
        return None
    pk = getattr(schema, "__restwire_pk__", None)
    if pk is None:
        return None
    name = schema.__name__
    if dataclasses.is_dataclass(schema):
        fields = frozenset(field.name for field in dataclasses.fields(schema))
        aliases: tuple[str, ...] = ()
    elif "pydantic" in sys.modules and hasattr(schema, "model_fields"):
        model_fields = schema.model_fields
        fields = frozenset(model_fields)
        info = model_fields.get(pk)
        aliases = tuple(
            {
                alias: None
                for alias in (
                    getattr(info, "validation_alias", None),
                    getattr(info, "alias", None),
                )
                if isinstance(alias, str) and alias != pk
            }
        )
    else:  # a TypedDict cannot carry the attribute; nothing else is a model
        raise UsageError(f"{name}.__restwire_pk__: a TypedDict cannot be a record")
    if type(pk) is not str or pk not in fields:
        raise UsageError(
            f"{name}.__restwire_pk__ must name one of its fields "
            f"{sorted(fields)}, not {pk!r}"
        )
    key = getattr(schema, "__restwire_key__", name)
    if type(key) is not str or not key:
        raise UsageError(f"{name}.__restwire_key__ must be text, not {key!r}")
    return ModelRecord(key, pk, (pk, *aliases), fields)


def model_record(
    schema: type, record: ModelRecord, value: Any, batch: Batch
) -> EntityKey:
    """``value`` validated into ``schema`` and kept as a record in ``batch``;
    its reference."""
    return _keep(schema, record, validate(schema, value), value, batch)


def model_records(
    schema: type, record: ModelRecord, values: Any, batch: Batch
) -> list[EntityKey]:
    """``values`` (a list) validated into ``schema`` in one call and kept as
    records in ``batch``; their references, in order. A pk repeated in one
    response keeps the last instance."""
    instances = validate(schema, values, many=True)
    return [
        _keep(schema, record, instance, raw, batch)
        for instance, raw in zip(instances, values, strict=True)
    ]


def _keep(
    schema: type, record: ModelRecord, instance: Any, raw: Any, batch: Batch
) -> EntityKey:
    pk = getattr(instance, record.pk)
    if pk is None or pk == "":
        _no_pk(schema, record, raw)
    ref = (record.key, pk if type(pk) is str else str(pk))
    batch.records[ref] = instance
    if batch.deleted:
        batch.deleted.discard(ref)
    return ref


def _no_pk(schema: type, record: ModelRecord, raw: Any) -> NoReturn:
    shown = raw
    if isinstance(raw, Mapping) and len(raw) > 6:
        shown = {name: raw[name] for name in list(raw)[:6]}
    raise EntityError(
        schema.__name__, record.pk, shown, "has no primary key (__restwire_pk__)"
    )


def model_pk_in(record: ModelRecord, source: Mapping[str, Any]) -> str | None:
    """The primary key ``source`` (a response body, or a call's params) gives
    a record of this model, as text, by the field's name or alias; ``None``
    if it gives none."""
    for name in record.wire_names:
        pk = source.get(name)
        if pk is not None and pk != "":
            return pk if type(pk) is str else str(pk)
    return None


def record_fields(cls: type) -> frozenset[str]:
    """The field names of a record class: an ``Entity``'s or a record model's."""
    record = record_of(cls)
    if record is not None:
        return record.fields
    plan = getattr(cls, "_plan", None)
    return plan().field_names if plan is not None else frozenset()
