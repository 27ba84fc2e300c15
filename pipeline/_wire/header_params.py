"""Header parameters, as ``Link`` (RFC 8288) and ``Content-Disposition``
(RFC 6266) write them, and the two headers read with them.

The shared scanner reads ``; name=token`` or ``; name="quoted \\" string"``
and RFC 8187 extended values (``name*=UTF-8''caf%C3%A9``). Names are
lower-cased; the first occurrence of a name wins; a header folded over lines
(CR, LF) reads as if it were one. An extended value is strict where RFC 8187
is: quoted, or with a ``%`` not followed by two hex digits, or in a charset
other than UTF-8 and ISO-8859-1, it is malformed and ignored (a plain
``filename`` beside it is used instead). Nothing here raises on malformed
text: it gives what could be read. The ``tests/vectors`` sets of other
projects hold these parsers to their published cases.

``Link``: httpx's ``Response.links`` reads ``rel`` case-sensitively, keys a
link by its whole ``rel`` text (``"next alternate"``), leaves relative targets
unresolved and ignores ``title*``. :func:`parse_link_header` handles several
links, commas and semicolons inside quoted values and inside ``<...>``,
several space-separated ``rel`` values, ``rel`` case-insensitive, the first
``rel`` parameter of a link (later ones are ignored), ``title*`` (preferred to
``title``), and resolves each target against the URL of the response; a
malformed link is skipped.

``Content-Disposition``: :func:`parse_content_disposition` gives the type and
the parameters; turning ``filename`` into a name safe to save under is
``_wire.downloads.filename_from``'s business.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote_to_bytes

from .._base.library import DEFAULT, INVALID_URL, URL

__all__ = [
    "Link",
    "decode_extended",
    "links_by_rel",
    "parse_content_disposition",
    "parse_link_header",
    "read_params",
]

# -- the parameter scanner ----------------------------------------------------

_SEPARATORS = ";,"


def read_quoted(text: str, position: int) -> tuple[str, int]:
    """The quoted string starting at ``text[position] == '"'``, unescaped,
    and the position after its closing quote (the end if unterminated)."""
    out: list[str] = []
    position += 1
    while position < len(text):
        char = text[position]
        if char == "\\" and position + 1 < len(text):
            out.append(text[position + 1])
            position += 2
            continue
        if char == '"':
            return "".join(out), position + 1
        out.append(char)
        position += 1
    return "".join(out), position


_SPACE = " \t\r\n"


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in _SPACE:
        position += 1
    return position


def read_params(
    text: str, position: int, stop_at_comma: bool
) -> tuple[dict[str, str], int]:
    """Parameters from ``position`` (at a ``;`` or spaces before one) to the
    end, or to the next top-level comma when ``stop_at_comma``; and where
    reading stopped (at that comma)."""
    params: dict[str, str] = {}
    length = len(text)
    while True:
        position = _skip_space(text, position)
        if position >= length or (stop_at_comma and text[position] == ","):
            return params, position
        if text[position] != ";":
            # junk (or, when commas do not end the value, a comma): skip it and
            # up to the next separator; always advance, or this loops for ever
            position += 1
            while position < length and text[position] not in _SEPARATORS:
                position += 1
            continue
        position = _skip_space(text, position + 1)
        start = position
        while position < length and text[position] not in "=;, \t\r\n":
            position += 1
        name = text[start:position].lower()
        position = _skip_space(text, position)
        value = ""
        if position < length and text[position] == "=":
            position = _skip_space(text, position + 1)
            if position < length and text[position] == '"':
                value, position = read_quoted(text, position)
                if name.endswith("*"):
                    continue  # an extended value is never quoted: malformed
            else:
                start = position
                stops = ";," if stop_at_comma else ";"
                while position < length and text[position] not in stops:
                    position += 1
                value = text[start:position].strip()
        if name and name not in params:
            params[name] = value


#: RFC 8187 value-chars: percent-encoded octets and attr-chars; a ``%`` not
#: followed by two hex digits makes the value malformed.
_VALUE_CHARS = re.compile(r"(?:%[0-9A-Fa-f]{2}|[^%])*")
_CHARSETS = {"utf-8": "utf-8", "utf8": "utf-8", "iso-8859-1": "iso-8859-1"}


def decode_extended(value: str) -> str | None:
    """An RFC 8187 ``charset'language'percent-encoded`` value, decoded;
    ``None`` if it is malformed (a bad percent escape, bytes that are not
    the charset's) or its charset is neither UTF-8 nor ISO-8859-1."""
    parts = value.split("'", 2)
    if len(parts) != 3:
        return None
    charset = _CHARSETS.get(parts[0].strip().lower())
    if charset is None or not _VALUE_CHARS.fullmatch(parts[2]):
        return None
    try:
        return unquote_to_bytes(parts[2]).decode(charset)
    except (UnicodeDecodeError, ValueError):
        return None


# -- Link (RFC 8288) ----------------------------------------------------------


@dataclass(frozen=True)
class Link:
    """One link: absolute ``url``, its ``rel`` values, ``title``, parameters."""

    url: str
    rel: tuple[str, ...] = ()
    title: str | None = None
    params: Mapping[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.url


def parse_link_header(value: str | None, base: URL | str | None = None) -> list[Link]:
    """Every well-formed link in ``value``, targets resolved against ``base``."""
    if not value:
        return []
    base_url: URL | None = DEFAULT.URL(base) if isinstance(base, str) else base
    links: list[Link] = []
    position, length = 0, len(value)
    while position < length:
        while position < length and value[position] in " \t\r\n,":
            position += 1
        if position >= length:
            break
        if value[position] != "<":
            position = _next_link(value, position)
            continue
        end = value.find(">", position + 1)
        if end < 0:
            break
        target = value[position + 1 : end].strip()
        params, position = read_params(value, end + 1, stop_at_comma=True)
        link = _link(target, params, base_url)
        if link is not None:
            links.append(link)
    return links


def _next_link(value: str, position: int) -> int:
    """Skip malformed text up to the next top-level comma."""
    quoted = False
    while position < len(value):
        char = value[position]
        if char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            return position + 1
        position += 1
    return position


def _link(target: str, params: dict[str, str], base: URL | None) -> Link | None:
    try:
        url = base.join(target) if base is not None else DEFAULT.URL(target)
    except INVALID_URL:
        return None
    rel = tuple(dict.fromkeys(params.get("rel", "").lower().split()))
    title = params.get("title")
    if "title*" in params:
        title = decode_extended(params["title*"]) or title
    return Link(str(url), rel, title, params)


def links_by_rel(links: Iterable[Link]) -> dict[str, Link]:
    """The links by each of their ``rel`` values; for a repeated rel, the first."""
    by_rel: dict[str, Link] = {}
    for link in links:
        for rel in link.rel:
            by_rel.setdefault(rel, link)
    return by_rel


# -- Content-Disposition (RFC 6266) ------------------------------------------


def parse_content_disposition(value: str | None) -> tuple[str, dict[str, str]]:
    """The disposition type (lower-cased) and its parameters."""
    if not value:
        return "", {}
    head, _, _ = value.partition(";")
    kind = head.strip().lower()
    params, _ = read_params(value, len(head), stop_at_comma=False)
    return kind, params
