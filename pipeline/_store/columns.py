"""Normalizing a list of flat entities column by column.

A list of objects of one entity type with no nested entities (a page of
prices, of users, of items) is the bulk of what a REST client reads. Built
one record at a time, every record runs a few dozen bytecodes around a
handful of C calls; built column by column, each step is one C loop over
the whole list (``map``, ``zip``, ``dict`` updates), and the interpreter
runs a few dozen bytecodes per *list*. Each field is one column, taken from
the items, deserialized in one ``map``; the records are then made from the
columns, one C call each (entities are compiled records), with no dict
per record in between.

:func:`records_by_column` makes exactly what the record path
(``schemas.EntityListPlan``) makes one record at a time: the same records,
under the same references, and the same :class:`EntityError` for bad data;
the plan then files them in its batch. Keys that are not fields are kept
apart in each record's ``extra_fields``, as the record path keeps them. It
declines (returns ``None``, having changed nothing) whatever it does not
handle: items that are not plain ``dict``\\ s, an item with none of the
class's fields, anything that makes a record's primary key unusable, any
value not of its field's type (checked first, one C call for the list or
for each column: ``typed_fields``), and any value a deserializer refuses.
The record path then does the work and raises the error of the first item
that has one (so on the way to an error, a deserializer may see a value
twice: deserializers are conversions, not side effects). Repeated primary
keys, fields some items lack, ``None`` and values that already have a
deserializer's type are handled here, the way the record path handles them.
"""

from __future__ import annotations

import copy
import datetime
import uuid
from collections.abc import Callable
from decimal import Decimal
from itertools import compress, repeat, starmap
from operator import contains, countOf, is_, itemgetter
from types import BuiltinMethodType, MappingProxyType
from typing import Any, NamedTuple

from .entity import (
    _MUTABLE,
    Entity,
    EntityKey,
    _force_setattr,
    _maker,
    data_check,
    deserializer_failed,
)

__all__ = ["SMALLEST", "ColumnRecords", "records_by_column", "records_from_columns"]

#: Below this many items, the record path is as fast: columns cost a few
#: list allocations each.
SMALLEST = 8

_NONE = type(None)


#: Deserializers that make every value of one exact class (constructors
#: and parsers of the standard library, in C or closed to subclasses): a
#: column they made whole needs no pass to learn its values' class.
_MAKES: dict[Any, type] = {
    Decimal: Decimal,
    uuid.UUID: uuid.UUID,
    datetime.datetime.fromisoformat: datetime.datetime,
    datetime.date.fromisoformat: datetime.date,
    datetime.time.fromisoformat: datetime.time,
}

#: Each column's class, when every value of it is of that one exact class
#: (a store counts such a column's bytes with no pass to group it by
#: class); ``None`` where unknown or mixed.
Kinds = list[type | None]


class ColumnRecords(NamedTuple):
    """What :func:`records_by_column` made of a list: the records, their
    references in the same order, and, when every item held every field
    of the class and nothing else (then a store may take the list whole),
    the columns the records were made of (each field's values, as the
    records hold them: a store counts their bytes from them) and their
    :data:`Kinds`, else ``None``."""

    instances: list[Entity]
    keys: list[EntityKey]
    columns: list[list[Any]] | None
    kinds: Kinds | None = None


def one_class(column: list[Any] | tuple[Any, ...]) -> type | None:
    """The class of every value of ``column``, if they are all of one
    (exactly, by identity: a subclass is another class, and a class whose
    metaclass says it equals another is not that one); else ``None``."""
    if not column:
        return None
    first = type(column[0])
    return first if all(map(is_, map(type, column), repeat(first))) else None


def records_by_column(
    cls: type[Entity], values: list[Any] | tuple[Any, ...]
) -> ColumnRecords | None:
    """The records of ``values`` as ``cls``, made column by column, with
    their references and whether every item held every field and nothing
    else; or ``None`` when the record path must do it."""
    plan = cls._plan()
    count = len(values)
    defaults = plan.defaults
    if count < SMALLEST or plan.nested or not defaults:
        return None
    if one_class(values) is not dict:
        return None  # not plain objects: the record path checks each
    taken = _whole_columns(values, defaults)
    check = data_check(cls, plan)
    extras: list[dict[str, Any]] | None = None
    if taken is None:
        fields = plan.field_names
        if all(map(fields.issuperset, values)):
            if not all(values):
                return None  # an object with no field: the record path refuses it
        elif any(map(fields.isdisjoint, values)):
            return None  # an object with no field: the record path refuses it
        else:
            extras = _extras(values, fields)
        if check is not None and not check.check_items(values):
            return None  # a value of the wrong type: the record path names it
        columns, present = _columns_with_defaults(values, defaults)
        kinds = None
    else:
        # (each column's class, learnt once: it passes the check without
        # msgspec and says how to count bytes; a column a deserializer
        # makes, which ``schema`` names, has its class from that: the
        # plan has no nested entities here)
        kinds = [
            None if name in plan.schema else one_class(column)
            for name, column in zip(defaults, taken, strict=True)
        ]
        if check is not None and not check.check_columns(
            taken, plan.field_index, kinds
        ):
            return None  # a value of the wrong type: the record path names it
        columns, present = taken, [True] * len(taken)
    try:
        made = records_from_columns(cls, columns, count, values, present, kinds, extras)
    except Exception:
        # a value a deserializer refused: the record path, item by item,
        # raises the error of the first item that has one (its own columns
        # were deserialized in place; the data is as it came)
        return None
    if made is None:
        return None
    instances, keys, kinds = made
    if extras is not None and any(extras) and "_extras_made" not in cls.__dict__:
        # (marked once the records are made: a list declined to the record
        # path leaves the class as the record path leaves it)
        cls._extras_made = True
    # (the columns are the records' values now: deserialized in place)
    if taken is None:
        return ColumnRecords(instances, keys, None)
    return ColumnRecords(instances, keys, columns, kinds)


def _whole_columns(
    values: list[Any] | tuple[Any, ...], defaults: dict[str, Any]
) -> list[list[Any]] | None:
    """Each field's column, when every item has every field and nothing
    else (the usual case: as many keys as fields, and each field found in
    each item); ``None`` otherwise."""
    if countOf(map(len, values), len(defaults)) != len(values):
        return None
    try:
        return [list(map(itemgetter(name), values)) for name in defaults]
    except KeyError:  # a key that is not a field, in place of one
        return None


def _extras(
    values: list[Any] | tuple[Any, ...], fields: frozenset[str]
) -> list[dict[str, Any]]:
    """Each item's keys that are not ``fields``, with their values, in the
    item's order (empty for an item that has none), as the record path
    keeps them apart (``entity.build``)."""
    return [
        {name: value for name, value in item.items() if name not in fields}
        for item in values
    ]


def _keep_extras(instances: list[Entity], extras: list[dict[str, Any]]) -> None:
    """Give each record the extra keys of its item (``extras``, in order),
    read-only, as ``entity.build`` gives them; a record whose item had none
    keeps the shared empty mapping. (The class is marked as keeping extra
    keys by the caller, once the records are made.)"""
    keeping = list(compress(instances, extras))  # (C loops: a list of 16 or 20,000)
    if not keeping:
        return
    list(
        map(
            _force_setattr,
            keeping,
            repeat("_extra"),
            map(MappingProxyType, filter(None, extras)),
        )
    )


def _columns_with_defaults(
    values: list[Any] | tuple[Any, ...], defaults: dict[str, Any]
) -> tuple[list[list[Any]], list[bool]]:
    """Each field's column, its default where an item lacks it (a mutable
    default copied, as the record path does), and whether every item had it."""
    columns: list[list[Any]] = []
    present: list[bool] = []
    for name, default in defaults.items():
        column = list(map(dict.get, values, repeat(name), repeat(default)))
        everywhere = all(map(contains, values, repeat(name)))
        if not everywhere and isinstance(default, _MUTABLE):
            for index, value in enumerate(values):
                if name not in value:
                    column[index] = copy.copy(default)
        columns.append(column)
        present.append(everywhere)
    return columns, present


def records_from_columns(
    cls: type[Entity],
    columns: list[list[Any]],
    count: int,
    values: list[Any] | tuple[Any, ...] = (),
    present: list[bool] | None = None,
    kinds: Kinds | None = None,
    extras: list[dict[str, Any]] | None = None,
) -> tuple[list[Entity], list[EntityKey], Kinds] | None:
    """Records of ``cls`` made from ``columns`` (each field's values, in
    field order; deserialized here, in place), their references and the
    columns' :data:`Kinds` as the records hold them; or ``None`` if a
    primary key is unusable (the record path says which).

    ``present[i]`` is false when some item lacks field ``i`` (its column
    then holds the default there, which is not deserialized: ``values``,
    the items, say which); by default every item has every field.
    ``kinds``: the columns' :data:`Kinds` as given, if known. ``extras``:
    each item's keys that are not fields (:func:`_extras`), kept apart in
    its record before its primary key is asked (a ``pk`` may read them).
    """
    plan = cls._plan()
    kinds = [None] * len(columns) if kinds is None else kinds
    for name, deserialize, kind in plan.deserializers:
        index = plan.field_index[name]
        kinds[index] = _deserialize_column(
            cls,
            name,
            deserialize,
            kind,
            columns[index],
            values,
            True if present is None else present[index],
        )
    # one C call per record: the values in field order, as one tuple (zip
    # hands the same tuple over again once the record is made)
    rows = zip(*columns, strict=True) if columns else repeat((), count)
    instances: list[Entity] = list(starmap(_maker(cls), rows))
    if extras is not None:
        _keep_extras(instances, extras)
    ids = None
    if plan.id_column >= 0:
        ids = columns[plan.id_column]
        kinds[plan.id_column] = kinds[plan.id_column] or one_class(ids)
    pks = _primary_keys(
        cls, instances, ids, None if ids is None else kinds[plan.id_column]
    )
    if pks is None:
        return None
    keys: list[EntityKey] = list(zip(repeat(cls.key), pks))
    return instances, keys, kinds


def _deserialize_column(
    cls: type[Entity],
    name: str,
    deserialize: Callable[[Any], Any],
    kind: type | None,
    column: list[Any],
    values: list[Any] | tuple[Any, ...],
    present: bool,
) -> type | None:
    """Apply one field's deserializer down ``column``, in place; the class
    of every value now, if one and known (:data:`_MAKES`).

    Values that are ``None``, already of the deserializer's class, or absent
    from the data (a default) are kept, as the record path keeps them. When
    every value is to be converted, that is one ``map``; otherwise a loop.
    """
    if present and column:
        made = _made_class(deserialize)
        if made is not None:
            # (each of these refuses None, and keeps or refuses a value of
            # its own class: every value may be handed to it, and a refusal
            # takes the path below, which hands it only the others)
            try:
                column[:] = map(deserialize, column)
            except Exception:
                pass
            else:
                return made
        first = one_class(column)
        if first is not None:  # (one class: the usual)
            every = first is not _NONE and first is not kind
        else:
            kinds = set(map(type, column))
            every = _NONE not in kinds and (kind is None or kind not in kinds)
        if every:
            try:
                column[:] = map(deserialize, column)
            except Exception:
                _raise_first_failure(cls, name, deserialize, column)
                raise  # the deserializer failed once only: let it show as it is
            return made
    for index, item in enumerate(column):
        if not present and name not in values[index]:
            continue  # (absent from the item: the default, kept)
        if item is None or (kind is not None and type(item) is kind):
            continue
        try:
            column[index] = deserialize(item)
        except Exception as error:
            raise deserializer_failed(cls, name, item, deserialize, error) from error
    return None


def _made_class(deserialize: Callable[[Any], Any]) -> type | None:
    """The class :data:`_MAKES` says ``deserialize`` makes, if it is one of
    them (a class, or a method of one, as it is: not something that only
    compares equal to one)."""
    if type(deserialize) is not type and type(deserialize) is not BuiltinMethodType:
        return None
    try:
        return _MAKES.get(deserialize)
    except TypeError:  # (a method of an object that cannot be hashed)
        return None


def _raise_first_failure(
    cls: type[Entity],
    name: str,
    deserialize: Callable[[Any], Any],
    column: list[Any],
) -> None:
    """Raise the record path's error for the first value of ``column`` the
    deserializer refuses: the value is named, not just the column."""
    for item in column:
        try:
            deserialize(item)
        except Exception as error:
            raise deserializer_failed(cls, name, item, deserialize, error) from error


def _primary_keys(
    cls: type[Entity],
    instances: list[Entity],
    ids: list[Any] | None,
    kind: type | None = None,
) -> list[str] | None:
    """Each record's primary key as text, or ``None`` if any is unusable
    (the record path then raises the error naming it). ``ids`` is the
    ``id`` column, if the class has that field, and ``kind`` the class of
    every id, if one."""
    if cls.pk is Entity.pk:
        if ids is None:
            return None
        pks: list[Any] = ids
        if kind is not str:  # (text ids need no change)
            if kind is _NONE or (kind is None and countOf(map(type, ids), _NONE)):
                return None
            pks = list(map(str, ids))
    else:
        pks = list(map(cls.pk, instances))
        if one_class(pks) is not str:
            return None
    if not all(pks):  # (an empty text)
        return None
    return pks
