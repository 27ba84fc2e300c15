"""``RenameKeys``: keys named one way in the client, another on the wire.

``mapping`` is client name -> wire name:
``{"carrotsUsed": "carrotsUsedIsThisNameTooLong"}``. A request body's client
key is sent under its wire name; a response's wire key comes back under its
client name. Bodies and values without those keys pass unchanged. A body or
value that holds both names is an error, never a silent overwrite. Only the
top level is renamed, unless ``nested=True``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from restwire import (
    ContentError,
    Exchange,
    RequestBodyError,
    SettingError,
    Unparsed,
    UsageError,
)

__all__ = ["RenameKeys"]


class _BothNames(ValueError):
    pass


def _rename(value: Any, names: Mapping[str, str], nested: bool) -> Any:
    if isinstance(value, list):
        return [_rename(item, names, nested) for item in value] if nested else value
    if not isinstance(value, dict):
        return value
    if not nested:
        if names.keys().isdisjoint(value):
            return value
        # the top level alone: one C loop; two keys that become one shrink it
        get = names.get
        renamed = {get(key, key): item for key, item in value.items()}
        if len(renamed) == len(value):
            return renamed
    out: dict[Any, Any] = {}
    for key, item in value.items():
        new = names.get(key, key) if isinstance(key, str) else key
        if new in out or (new != key and new in value):
            raise _BothNames(f"holds both {key!r} and {new!r}")
        out[new] = _rename(item, names, nested) if nested else item
    return out


def _unchanged(value: Any) -> Any:
    return value


class RenameKeys:
    """Renames keys between their client and wire names."""

    #: Never changes the credentials a call sends (see ``restwire.Stack``).
    sends_credentials = False
    #: Records its renaming on an unparsed body (see ``restwire.Unparsed``).
    takes_unparsed = True

    def __init__(self, mapping: Mapping[str, str], *, nested: bool = False) -> None:
        if not isinstance(mapping, Mapping):
            raise UsageError(
                "RenameKeys(mapping) takes a mapping of client names to wire "
                "names, like {'carrotsUsed': 'carrotsUsedIsThisNameTooLong'}, "
                f"not {type(mapping).__name__}"
            )
        for client, wire in mapping.items():
            if not isinstance(client, str) or not isinstance(wire, str):
                raise UsageError(
                    f"RenameKeys(mapping) takes names as text, not {client!r}: {wire!r}"
                )
        if not isinstance(nested, bool):
            raise UsageError(
                f"RenameKeys(nested=...) takes True or False, not {nested!r}"[:120]
            )
        self.to_wire = dict(mapping)
        self.to_client = {wire: client for client, wire in mapping.items()}
        if len(self.to_client) != len(self.to_wire):
            raise SettingError("two client names map to one wire name")
        self.nested = nested
        # Names that are both a client name and a wire name (a swap, a
        # chain): an object holding one of them may hold both names of a
        # key, which nested=True refuses, so no field is read from the
        # bytes under such a name (its round trip fails: declined).
        self._both = self.to_wire.keys() & self.to_client.keys()

    def on_request(self, exchange: Exchange) -> None:
        try:
            exchange.body = _rename(exchange.body, self.to_wire, self.nested)
        except _BothNames as error:
            raise RequestBodyError(
                f"{exchange.label}: the request body {error}"
            ) from None

    def on_response(self, exchange: Exchange) -> None:
        value = exchange.value
        if type(value) is Unparsed:
            # the body is read later, maybe straight into entities (a list
            # of objects): say how its keys are renamed. Without nested=True
            # the items of a list are left as they are, and so is what they
            # hold; with it, each item's keys and what they hold.
            rename = functools.partial(self._response_value, exchange)
            if self.nested:
                value.rename_keys(rename, self.field_name, self.wire_name, rename)
            else:
                value.rename_keys(rename, _unchanged, _unchanged, _unchanged)
            return
        exchange.value = self._response_value(exchange, value)

    def _response_value(self, exchange: Exchange, value: Any) -> Any:
        """``value`` (a response's, or a value inside it) renamed."""
        try:
            return _rename(value, self.to_client, self.nested)
        except _BothNames as error:
            assert exchange.response is not None
            raise ContentError(exchange.response, f"the response {error}") from None

    def wire_name(self, key: str) -> str:
        """The wire name of the client key ``key`` (itself, for a name that
        is both a client and a wire name, as in a swap or a chain)."""
        return key if key in self._both else self.to_wire.get(key, key)

    def field_name(self, key: str) -> str:
        """The client name of the wire key ``key`` (a param in the wire's
        name names the field it is renamed to)."""
        return self.to_client.get(key, key)

    def __repr__(self) -> str:
        return f"RenameKeys({self.to_wire!r}{', nested=True' if self.nested else ''})"
