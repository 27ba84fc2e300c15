"""Header parameters, as ``Link`` (RFC 8288) and ``Content-Disposition``
(RFC 6266) write them: ``; name=token`` or ``; name="quoted \\" string"``,
and RFC 8187 extended values (``name*=UTF-8''caf%C3%A9``).

The scanner never raises: malformed text gives what could be read. Names are
lower-cased; the first occurrence of a name wins.
"""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

__all__ = ["decode_extended", "read_params", "read_quoted"]

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


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t":
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
        while position < length and text[position] not in "=;, \t":
            position += 1
        name = text[start:position].lower()
        position = _skip_space(text, position)
        value = ""
        if position < length and text[position] == "=":
            position = _skip_space(text, position + 1)
            if position < length and text[position] == '"':
                value, position = read_quoted(text, position)
            else:
                start = position
                stops = ";," if stop_at_comma else ";"
                while position < length and text[position] not in stops:
                    position += 1
                value = text[start:position].strip()
        if name and name not in params:
            params[name] = value


def decode_extended(value: str) -> str | None:
    """An RFC 8187 ``charset'language'percent-encoded`` value, decoded; ``None``
    if it is malformed or its charset is neither UTF-8 nor ISO-8859-1."""
    parts = value.split("'", 2)
    if len(parts) != 3:
        return None
    charset = parts[0].strip().lower()
    if charset not in ("utf-8", "iso-8859-1"):
        return None
    try:
        return unquote_to_bytes(parts[2]).decode(charset)
    except (UnicodeDecodeError, ValueError):
        return None
