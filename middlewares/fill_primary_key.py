"""``FillPrimaryKey``: the seed's missing primary key (section 2.3, rule 5).

When the response value lacks ``field`` (absent or ``None``), it is set from
the call's param ``param`` (default: the same name), so the entity can be
normalized. The seed's Stream takes ``username`` from ``:username``; its
Ticker takes ``product_id`` from ``:productId``. A list of values is filled
item by item. A key the server sent is never overwritten; a call without the
param leaves the value as it is.
"""

from __future__ import annotations

from typing import Any

from restwire import Exchange

__all__ = ["FillPrimaryKey"]


class FillPrimaryKey:
    """Sets a missing primary key field from a path parameter."""

    #: Never changes the credentials a call sends (see ``restwire.Stack``).
    sends_credentials = False

    def __init__(self, field: str, param: str | None = None) -> None:
        self.field = field
        self.param = param or field

    def _fill(self, value: Any, key: Any) -> Any:
        if isinstance(value, dict) and value.get(self.field) is None:
            return {**value, self.field: key}
        return value

    def on_response(self, exchange: Exchange) -> None:
        key = exchange.params.get(self.param)
        if key is None:
            return
        value = exchange.value
        if isinstance(value, list):
            exchange.value = [self._fill(item, key) for item in value]
        else:
            exchange.value = self._fill(value, key)

    def __repr__(self) -> str:
        return f"FillPrimaryKey({self.field!r}, param={self.param!r})"
