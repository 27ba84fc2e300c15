"""Path templates and query strings: how a call's params become a URL.

A template is a path with ``:name`` placeholders (``/posts/:id``) and optional
groups in braces (``/posts{/:id}``, ``/files/:name{.:ext}``): a group is left
out whole when any placeholder in it has no value. ``\\:`` is a literal colon
(``/v1/items\\:batchGet``).

Guarantees:

- A placeholder's value is percent-encoded as one path segment: ``/``, ``?``,
  ``#``, ``%`` and spaces cannot change the path's structure, and a value of
  ``.`` or ``..`` is encoded so no client or server folds it away.
- A required placeholder with no value (missing, ``None`` or empty text) is a
  :class:`ParameterError` naming the endpoint and the placeholder.
- Every other param goes to the query string, sorted by name; a list or tuple
  becomes repeated keys; ``None`` is left out; ``True``/``False`` are sent as
  ``true``/``false``. Equal params give equal URLs, whatever their order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from multidict import MultiDict

from ._errors import ParameterError

__all__ = ["Params", "PathTemplate", "encode_query", "join_url", "query_pairs"]

Params = Mapping[str, Any]

_TOKEN = re.compile(r"\\:|:([A-Za-z_][A-Za-z0-9_]*)|\{|\}")
# RFC 3986 pchar minus nothing: unreserved, sub-delims, ":" and "@" stay as they are.
_SEGMENT_SAFE = "-._~!$&'()*+,;=:@"


@dataclass(frozen=True, slots=True)
class _Placeholder:
    name: str


@dataclass(frozen=True, slots=True)
class _Group:
    parts: tuple[str | _Placeholder, ...]


_Part = str | _Placeholder | _Group


def _value_text(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def encode_segment(value: Any) -> str:
    """One path segment, percent-encoded so it cannot leave its place."""
    text = quote(_value_text(value), safe=_SEGMENT_SAFE)
    if text in (".", ".."):
        return text.replace(".", "%2E")
    return text


class PathTemplate:
    """A parsed path template. Build one with :meth:`parse` (cached)."""

    __slots__ = ("names", "parts", "required", "source")

    def __init__(self, source: str, parts: tuple[_Part, ...]) -> None:
        self.source = source
        self.parts = parts
        required: list[str] = []
        names: list[str] = []
        for part in parts:
            if isinstance(part, _Placeholder):
                required.append(part.name)
                names.append(part.name)
            elif isinstance(part, _Group):
                names.extend(p.name for p in part.parts if isinstance(p, _Placeholder))
        self.required = frozenset(required)
        self.names = frozenset(names)

    @staticmethod
    @lru_cache(maxsize=1024)
    def parse(source: str) -> PathTemplate:
        """Parse ``source``; a malformed template is a ``ValueError`` naming it."""
        parts: list[_Part] = []
        group: list[str | _Placeholder] | None = None
        literal = ""
        position = 0
        for match in _TOKEN.finditer(source):
            literal += source[position : match.start()]
            position = match.end()
            token = match.group(0)
            if token == "\\:":
                literal += ":"
                continue
            target: list[Any] = parts if group is None else group
            if literal:
                target.append(literal)
                literal = ""
            if token == "{":
                if group is not None:
                    raise ValueError(f"path {source!r}: groups cannot nest")
                group = []
            elif token == "}":
                if group is None:
                    raise ValueError(f"path {source!r}: '}}' without '{{'")
                parts.append(_Group(tuple(group)))
                group = None
            else:
                target.append(_Placeholder(match.group(1)))
        if group is not None:
            raise ValueError(f"path {source!r}: '{{' is never closed")
        literal += source[position:]
        if literal:
            parts.append(literal)
        return PathTemplate(source, tuple(parts))

    def fill(self, params: Params, endpoint: str) -> str:
        """The path with every placeholder filled from ``params``."""
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, _Placeholder):
                out.append(self._required_value(params, part.name, endpoint))
            else:
                filled = self._group(part, params)
                if filled is not None:
                    out.append(filled)
        return "".join(out)

    @staticmethod
    def _required_value(params: Params, name: str, endpoint: str) -> str:
        if name not in params:
            raise ParameterError(endpoint, name, "is missing")
        value = params[name]
        if value is None or value == "":
            raise ParameterError(endpoint, name, f"is {value!r}, a segment needs text")
        if isinstance(value, Mapping | list | tuple | set):
            raise ParameterError(
                endpoint, name, f"is a {type(value).__name__}, not a single value"
            )
        return encode_segment(value)

    @staticmethod
    def _group(group: _Group, params: Params) -> str | None:
        out: list[str] = []
        for part in group.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            value = params.get(part.name)
            if value is None or value == "":
                return None
            out.append(encode_segment(value))
        return "".join(out)

    def __repr__(self) -> str:
        return f"PathTemplate({self.source!r})"


def query_pairs(
    params: Params, exclude: frozenset[str], endpoint: str
) -> MultiDict[str]:
    """Every param not in ``exclude``, as sorted query pairs."""
    pairs: MultiDict[str] = MultiDict()
    for name in sorted({name for name in params if name not in exclude}):
        values: Iterable[Any]
        if isinstance(params, MultiDict):
            values = params.getall(name)
        else:
            values = (params[name],)
        for value in values:
            _add_query_value(pairs, name, value, endpoint)
    return pairs


def _add_query_value(
    pairs: MultiDict[str], name: str, value: Any, endpoint: str
) -> None:
    if value is None:
        return
    if isinstance(value, list | tuple):
        for item in value:
            _add_query_value(pairs, name, item, endpoint)
        return
    if isinstance(value, Mapping | set | bytes):
        raise ParameterError(
            endpoint, name, f"is a {type(value).__name__}, which has no query form"
        )
    pairs.add(name, _value_text(value))


def encode_query(pairs: MultiDict[str]) -> str:
    """The query string of ``pairs`` (no leading ``?``), in their order."""
    return "&".join(
        f"{quote(name, safe='')}={quote(value, safe='')}"
        for name, value in pairs.items()
    )


def join_url(prefix: str, path: str) -> str:
    """``prefix`` and ``path`` joined by exactly one slash."""
    if not prefix:
        return path
    if not path:
        return prefix
    return prefix.rstrip("/") + "/" + path.lstrip("/")
