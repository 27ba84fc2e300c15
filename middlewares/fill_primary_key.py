"""``FillPrimaryKey``: a primary key the body lacks, taken from the call's params.

When the response value lacks ``field`` (absent or ``None``), it is set from
the call's param ``param`` (default: the same name), so the entity can be
normalized. The recipes' Stream takes ``username`` from ``:username``;
their Ticker takes ``product_id`` from ``:productId``. A list of values is
filled item by item. A key the server sent is never overwritten; a call without the
param leaves the value as it is.

With no ``param`` given, a param in the wire's case names the field too,
through the endpoint's key casing (``RestEndpoint.param_fields``): under
``PascalCaseKeys`` or ``SnakeCaseKeys``, ``FillPrimaryKey("sid")`` fills
``sid`` from the path's ``:Sid``.

When the endpoint's schema is an entity (or a list of one) whose ``field`` is
annotated ``str``, ``int`` or ``float`` (``| None`` allowed), the param is
given that type: ``{"username": 42}`` fills ``"42"`` into a ``str`` field,
``"7"`` fills ``7`` into an ``int`` one. A param that does not convert is
filled as it is, for the entity to judge.
"""

from __future__ import annotations

import typing
from collections.abc import Hashable
from functools import lru_cache
from typing import Any, cast

from restwire import Entity, Exchange, SettingError

from ._checks import check_text

__all__ = ["FillPrimaryKey"]

#: What ``FillPrimaryKey._typed`` holds before its first response.
_NOT_YET = object()


class FillPrimaryKey:
    """Sets a missing primary key field from a path parameter."""

    #: Never changes the credentials a call sends (see ``restwire.Stack``).
    sends_credentials = False

    def __init__(self, field: str, param: str | None = None) -> None:
        check_text("FillPrimaryKey", "field", field)
        check_text("FillPrimaryKey", "param", param, optional=True)
        if not field or param == "":
            raise SettingError("FillPrimaryKey: field and param are names, not ''")
        self.field = field
        self.param = param or field
        #: Whether a param in the wire's case may name the field.
        self._through_casing = param is None
        # the last entity class a schema named, and the type its field
        # takes (worked out once per class: a class's annotations are
        # read once, as ``_field_type`` caches them)
        self._typed: tuple[Any, type | None] = (_NOT_YET, None)

    def _fill(self, value: Any, key: Any) -> Any:
        if isinstance(value, dict) and value.get(self.field) is None:
            return {**value, self.field: key}
        return value

    def on_response(self, exchange: Exchange) -> None:
        params = exchange.params
        key = params.get(self.param)
        if key is None and self._through_casing:
            key = exchange.endpoint.param_fields(params).get(self.field)
        if key is None:
            return
        schema = exchange.endpoint.schema
        typed = self._typed
        if typed[0] is not schema:
            entity = cast(Hashable, _entity_of(schema))  # a class is
            kind = _field_type(entity, self.field)
            if entity is schema and kind is not None:
                # (a class: the same object, the same annotation; a type
                # not found is asked again, as an annotation may resolve
                # once a name it refers to is defined)
                self._typed = (schema, kind)
        else:
            kind = typed[1]
        key = _as(kind, key)
        value = exchange.value
        if isinstance(value, list):
            exchange.value = [self._fill(item, key) for item in value]
        else:
            exchange.value = self._fill(value, key)

    def __repr__(self) -> str:
        return f"FillPrimaryKey({self.field!r}, param={self.param!r})"


def _entity_of(schema: Any) -> type[Entity] | None:
    """The entity a schema's value is (or is a list of), if any."""
    if isinstance(schema, list) and len(schema) == 1:
        schema = schema[0]
    if isinstance(schema, type) and issubclass(schema, Entity):
        return schema
    return None


@lru_cache(maxsize=256)
def _field_type(entity: Any, field: str) -> type | None:
    """``str``, ``int`` or ``float`` when ``entity.field`` is annotated so."""
    if entity is None:
        return None
    try:
        hint = typing.get_type_hints(entity).get(field)
    except Exception:  # an annotation that does not resolve: no conversion
        return None
    choices = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    if choices and len(choices) == 1:
        hint = choices[0]
    return hint if hint in (str, int, float) else None


def _as(kind: type | None, key: Any) -> Any:
    """``key`` as a ``kind``, if it is not one and converts; else as it is."""
    if kind is None or isinstance(key, kind):
        return key
    try:
        return kind(key)
    except (TypeError, ValueError):
        return key
