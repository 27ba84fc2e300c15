"""How an endpoint's headers combine with more headers: the one rule that
``extend(headers=...)``, ``resource(..., headers=...)`` and
``hookify_resource``'s ``use_init`` all follow.

- Names compare case-insensitively (as HTTP's do): a header given again,
  in any case, replaces the base's value; one not given is kept; a new one
  is added after the base's.
- A name given with the value ``None`` removes that header
  (``extend(headers={"X-Old": None})``); removing one the base lacks is
  no error.
- Names are kept lower-cased (as ``httpx.Headers`` gives them), so the
  result is the same whatever case either side used.
- ``sensitive_headers`` only accumulate: a name marked a credential by the
  base stays one in everything built from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._base.errors import UsageError

__all__ = ["merge_headers", "merge_sensitive", "plain_headers"]


def _name(name: Any) -> str:
    if isinstance(name, bytes):
        name = name.decode("ascii")
    if not isinstance(name, str):
        raise UsageError(f"a header name must be text, not {name!r}")
    return name.lower()


def _value(name: str, value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if not isinstance(value, str):
        raise UsageError(
            f"header {name!r} must be text (or None to remove it), not {value!r}"
        )
    return value


def plain_headers(headers: Mapping[str, Any] | None) -> dict[str, str] | None:
    """``headers`` as an endpoint keeps them: lower-cased names, text values,
    ``None`` values (nothing to remove from) left out; ``None`` for none."""
    if headers is None:
        return None
    return merge_headers(None, headers)


def merge_headers(
    base: Mapping[str, str] | None, changes: Mapping[str, Any] | None
) -> dict[str, str]:
    """``base`` with ``changes`` applied by the module's rule: a new dict,
    neither argument changed. A value that is neither text nor ``None`` is
    a ``TypeError``, raised where the endpoint is written."""
    merged: dict[str, str] = {}
    for name, value in (base or {}).items():
        merged[_name(name)] = _value(name, value)
    if changes is None:
        return merged
    if not isinstance(changes, Mapping):
        raise UsageError(
            f"headers must be a mapping of names to values, not {changes!r}"
        )
    for name, value in changes.items():
        key = _name(name)
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = _value(name, value)
    return merged


def merge_sensitive(base: Iterable[str], more: Iterable[str]) -> frozenset[str]:
    """The names of both, lower-cased: sensitive headers only accumulate."""
    if isinstance(more, str):
        raise UsageError(
            f"sensitive_headers must be a collection of names, not the text {more!r}"
        )
    return frozenset(_name(name) for name in base) | frozenset(
        _name(name) for name in more
    )
