"""Encoding a call's body for httpx.

| body                                   | sent as                                            |
|----------------------------------------|----------------------------------------------------|
| ``None``                               | no body                                            |
| ``dict``, ``list``, ``tuple``          | JSON, ``content-type: application/json``, unless a |
|                                        | middleware set ``application/x-www-form-urlencoded``|
|                                        | (a dict is then form-encoded)                      |
| ``bytes``, ``str``, an (async) iterator| as httpx sends it, never turned into JSON          |
| :class:`Form`                          | multipart (with ``files``) or urlencoded form      |

JSON encoding also takes ``datetime``/``date``/``time`` (ISO 8601),
``Decimal`` and ``UUID`` (as strings) and enums (their value); NaN and
infinity are refused, since JSON has no form for them. GET and HEAD take no
body: giving one is a :class:`RequestBodyError`, not a silent drop.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import uuid
from collections.abc import AsyncIterable, Iterable, Mapping
from decimal import Decimal
from typing import Any

from ._errors import RequestBodyError

__all__ = ["Form", "body_arguments", "json_default"]

_NO_BODY_METHODS = frozenset(("GET", "HEAD"))
_FORM_TYPE = "application/x-www-form-urlencoded"


@dataclasses.dataclass(frozen=True, slots=True)
class Form:
    """Form fields, and files for a multipart upload, as httpx's ``data=`` and
    ``files=`` take them."""

    data: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    files: Any = None


def json_default(value: Any) -> Any:
    """Encode the values JSON has no type for, as APIs commonly expect them."""
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, Decimal | uuid.UUID):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return to_json()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def encode_json(value: Any, where: str) -> bytes:
    """``value`` as compact UTF-8 JSON; a :class:`RequestBodyError` if it has none."""
    try:
        return json.dumps(
            value,
            default=json_default,
            ensure_ascii=False,
            allow_nan=False,
            separators=(",", ":"),
        ).encode("utf-8")
    except (TypeError, ValueError, RecursionError) as error:
        raise RequestBodyError(
            f"{where}: the body cannot be sent as JSON: {error}"
        ) from None


def body_arguments(
    body: Any, method: str, content_type: str | None, where: str
) -> tuple[dict[str, Any], str | None]:
    """httpx keyword arguments for ``body``, and the content type to set if any."""
    if body is None:
        return {}, None
    if method in _NO_BODY_METHODS:
        raise RequestBodyError(f"{where}: {method} takes no body, but one was given")
    if isinstance(body, Form):
        return {"data": dict(body.data), "files": body.files}, None
    if isinstance(body, bytes | bytearray | memoryview | str):
        return {"content": bytes(body) if not isinstance(body, str) else body}, None
    if isinstance(body, Mapping | list | tuple):
        mime = (content_type or "").split(";", 1)[0].strip().lower()
        if mime == _FORM_TYPE and isinstance(body, Mapping):
            return {"data": dict(body)}, None
        if mime and mime != "application/json" and not mime.endswith("+json"):
            raise RequestBodyError(
                f"{where}: a {type(body).__name__} body cannot be sent as "
                f"{content_type!r}; encode it to bytes first"
            )
        return {"content": encode_json(body, where)}, "application/json"
    if isinstance(body, Iterable | AsyncIterable):
        return {"content": body}, None
    raise RequestBodyError(
        f"{where}: a {type(body).__name__} body has no wire form; send a dict, "
        "list, bytes, str, an iterator of bytes or a Form"
    )
