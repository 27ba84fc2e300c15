"""``Unparsed``: a JSON body the chain let through without parsing it.

A list of 20,000 records read the usual way is built three times over:
the parser makes a dict per item, key casing makes a new dict per item, and
normalization takes each dict apart into columns. When nothing between the
wire and the store needs those dicts, restwire skips them: msgspec decodes
the body straight into one small struct per item, the wire's key names
mapped to the entity's fields (the casing undone by name), and the records
are made from its columns.

That holds for an endpoint (:meth:`RestEndpoint.defers_parse`) whose
content is JSON, whose ``parse_response`` and ``process`` are the
defaults, whose schema is a list of one entity class, and whose every
middleware says ``takes_unparsed = True``: it leaves ``exchange.value``
alone, or, like key casing, records on an :class:`Unparsed` what it would
do to the value (:meth:`Unparsed.rename_keys`).

Guarantees:

- The result is the one the usual path gives: the same records, batch and
  references. The shortcut is taken only when the body is exactly what it
  handles: a JSON array of objects, each with every field of the entity
  under the wire name the renamings map to it and no other key, whose
  primary keys are usable text and all different, and whose values are
  of their fields' types (checked as msgspec decodes them:
  ``typed_fields``). Anything else (an extra or missing key, another
  spelling, JSON msgspec refuses, a value of another type, a bad
  deserializer value) makes it decline, having changed nothing, and the
  body is parsed and renamed as usual (:meth:`Unparsed.value`), so errors
  are the usual ones, word for word.
- Such an error is raised when the value is read, after the chain, so a
  middleware's ``on_error`` does not see it; a middleware that needs to
  says nothing (``takes_unparsed`` is ``False`` unless set).
- Values inside a field that hold objects or arrays have their keys
  renamed by the middleware's own conversion (``within``), as the usual
  path renames them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import repeat
from operator import attrgetter
from typing import Any, Protocol

import msgspec

from .._base.http import is_json_type
from .._base.library import Response
from .columns import SMALLEST, one_class, records_from_columns
from .entity import Entity, EntityKey, data_check
from .schemas import Batch
from .typed_fields import FieldCheck

__all__ = ["Unparsed"]

#: Renames a value's keys the way a middleware does (key casing,
#: ``RenameKeys``; its own errors included); renames one key; renames a
#: key back.
Apply = Callable[[Any], Any]
Convert = Callable[[str], str]

_UNSET_TYPE = type(msgspec.UNSET)
_CONTAINERS = frozenset((dict, list))

#: A decoder per entity class and wire names, at most this many kept.
_DECODERS_KEPT = 256
#: Decoders by entity, wire names and the struct of checked fields.
_decoders: dict[tuple[type[Entity], tuple[str, ...], Any], Callable[[bytes], Any]] = {}


class _Parses(Protocol):
    """What an :class:`Unparsed` body is read with when it must be parsed as
    usual: its endpoint (a ``RestEndpoint``)."""

    def parse_response(self, response: Response) -> Any: ...


class Unparsed:
    """A 2xx JSON response's body, not parsed yet, and the key renamings the
    chain's middleware asked for on its way out, innermost first."""

    __slots__ = ("_renames", "endpoint", "response")

    def __init__(self, endpoint: _Parses, response: Response) -> None:
        self.endpoint = endpoint
        self.response = response
        self._renames: list[tuple[Apply, Convert, Convert, Apply]] = []

    def rename_keys(
        self,
        apply: Apply,
        convert: Convert,
        inverse: Convert,
        within: Apply | None = None,
    ) -> None:
        """Renames the value's keys when it is read: ``apply`` does it to a
        parsed value; ``convert`` maps one wire key, ``inverse`` maps a key
        back to the wire's spelling (checked against ``convert``);
        ``within`` does it to a value held in a field of an item (an
        object or array inside one), which the renaming of the item's own
        keys does not reach: by default ``apply`` (key casing renames every
        level alike)."""
        self._renames.append((apply, convert, inverse, within or apply))

    def value(self) -> Any:
        """The value the usual path gives: parsed, then each renaming."""
        value = self.endpoint.parse_response(self.response)
        for apply, _, _, _ in self._renames:
            value = apply(value)
        return value

    def entities(self, cls: type[Entity], batch: Batch) -> list[EntityKey] | None:
        """The references of the body's records of ``cls``, made straight
        from the bytes into ``batch`` (which must be empty); or ``None``,
        ``batch`` untouched, when the usual path must do it."""
        if batch.records or batch.deleted or cls._plan().nested:
            return None
        response = self.response
        content_type = response.headers.get("content-type")
        if content_type is not None and not is_json_type(content_type):
            return None
        plan = cls._plan()
        check = data_check(cls, plan)
        if check is not None and check.python:
            return None  # fields checked in Python: the usual path checks them
        fields = tuple(plan.defaults)
        names = self._wire_names(fields)
        if names is None:
            return None
        try:
            items = _decoder(cls, fields, names, check)(response.content)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            return None  # not an array of such objects: the usual path says why
        if type(items) is not list or len(items) < SMALLEST:
            return None
        try:
            return self._file(cls, fields, items, batch)
        except Exception:
            # (a deserializer's or a casing's error: the usual path raises it)
            batch.records.clear()
            return None

    def _wire_names(self, fields: tuple[str, ...]) -> tuple[str, ...] | None:
        """Each field's name on the wire: the renamings undone, last first,
        and checked forwards; ``None`` if one does not come back."""
        renames = self._renames
        if not renames:
            return fields  # (no casing: the wire names are the fields')
        names = []
        for field in fields:
            name = field
            for _, _, inverse, _ in reversed(renames):
                name = inverse(name)
            back = name
            for _, convert, _, _ in renames:
                back = convert(back)
            if back != field:
                return None
            names.append(name)
        return tuple(names)

    def _file(
        self,
        cls: type[Entity],
        fields: tuple[str, ...],
        items: list[Any],
        batch: Batch,
    ) -> list[EntityKey] | None:
        columns = [list(map(attrgetter(name), items)) for name in fields]
        classes: list[type | None] = []
        for column in columns:
            kinds = set(map(type, column))
            if _UNSET_TYPE in kinds:
                return None  # an item lacks a field: the usual path fills defaults
            if not _CONTAINERS.isdisjoint(kinds) and self._renames:
                for _, _, _, within in self._renames:
                    column[:] = map(within, column)
                kinds = set(map(type, column))
            # each column's class, where its values have one (by identity:
            # ``one_class``), so that counting its bytes groups no values
            classes.append(one_class(column) if len(kinds) == 1 else None)
        # the items' values as they came: a column a deserializer converts
        # in place is copied first, the others are shared (nothing else
        # changes a column)
        converted = cls._plan().converted
        raw = [
            list(column) if name in converted else column
            for name, column in zip(fields, columns, strict=True)
        ]
        made = records_from_columns(cls, columns, len(items), kinds=classes)
        if made is None:
            return None
        instances, keys, classes = made
        records = batch.records
        records.update(zip(keys, instances, strict=True))
        if len(records) != len(keys):
            records.clear()
            return None  # a repeated key: the usual path merges the repeats
        batch.defer(keys, _Rows(fields, raw))
        # (the columns are the records' values now: deserialized in place)
        batch.took_whole(cls, keys, instances, columns, classes)
        return keys


class _Rows:
    """The raw items of a list made from its columns: each a dict of the
    fields, made only when a merge asks for them (``Batch.data``)."""

    __slots__ = ("columns", "fields")

    def __init__(self, fields: tuple[str, ...], columns: list[list[Any]]) -> None:
        self.fields = fields
        self.columns = columns

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return map(dict, map(zip, repeat(self.fields), zip(*self.columns, strict=True)))


def _decoder(
    cls: type[Entity],
    fields: tuple[str, ...],
    names: tuple[str, ...],
    check: FieldCheck | None,
) -> Callable[[bytes], Any]:
    """Decodes a JSON array of objects of exactly ``cls``'s fields, under
    their wire ``names``, into structs whose values are as the JSON has
    them, each checked field of its type (``check``: no conversion, an int
    for a float stays an int), the others typed ``Any``. A missing field
    reads ``UNSET``; an unknown key, or a value of another type, is an
    error."""
    key = (cls, names, None if check is None else check.struct)
    decode = _decoders.get(key)
    if decode is None:
        kinds: dict[str, Any] = {} if check is None else dict(check.types)
        wire = msgspec.defstruct(
            f"{cls.__name__}Wire",
            [(field, kinds.get(field, Any), msgspec.UNSET) for field in fields],
            rename=dict(zip(fields, names, strict=True)),
            forbid_unknown_fields=True,
            gc=False,  # decoded JSON is a tree: no cycles to collect
        )
        decode = msgspec.json.Decoder(list[wire]).decode  # type: ignore[valid-type]
        if len(_decoders) >= _DECODERS_KEPT:
            _decoders.clear()
        _decoders[key] = decode
    return decode
