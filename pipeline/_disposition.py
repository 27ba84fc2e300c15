"""File names from ``Content-Disposition`` (RFC 6266, RFC 8187), made safe.

``filename*`` (UTF-8 or ISO-8859-1, percent-encoded) wins over ``filename``;
a ``filename*`` that does not decode falls back to ``filename``; parameter
names are case-insensitive; quotes are optional and escaped quotes handled.

:func:`safe_filename` then makes the name safe to join to a folder before
anyone can use it as a path: only its last path segment (``/`` and ``\\``),
no control, bidi-override or NUL characters, no ``.`` or ``..``, Windows'
reserved characters replaced and reserved names (``CON``, ``LPT1``, ...)
prefixed, leading dots and trailing dots and spaces trimmed, at most 255
bytes in UTF-8 with the extension kept. Nothing usable left gives the
fallback.
"""

from __future__ import annotations

import re
import unicodedata

from ._header_params import decode_extended, read_params

__all__ = ["filename_from", "parse_content_disposition", "safe_filename"]

MAX_BYTES = 255
_WINDOWS_CHARS = re.compile(r'[<>:"|?*]')
_WINDOWS_NAMES = frozenset(
    ["CON", "PRN", "AUX", "NUL"]
    + [f"COM{n}" for n in range(1, 10)]
    + [f"LPT{n}" for n in range(1, 10)]
    + ["COM¹", "COM²", "COM³", "LPT¹", "LPT²", "LPT³", "CONIN$", "CONOUT$"]
)
_INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2066\u2067\u2068\u2069\u061c\ufeff"
)


def parse_content_disposition(value: str | None) -> tuple[str, dict[str, str]]:
    """The disposition type (lower-cased) and its parameters."""
    if not value:
        return "", {}
    head, _, _ = value.partition(";")
    kind = head.strip().lower()
    params, _ = read_params(value, len(head), stop_at_comma=False)
    return kind, params


def filename_from(value: str | None, fallback: str = "download") -> str:
    """The safe file name a ``Content-Disposition`` value names, else ``fallback``."""
    _, params = parse_content_disposition(value)
    name = None
    if "filename*" in params:
        name = decode_extended(params["filename*"])
    if name is None:
        name = params.get("filename")
    return safe_filename(name or "", fallback)


def safe_filename(name: str, fallback: str = "download") -> str:
    """``name`` made safe to use as a file name in a folder (see module)."""
    name = re.split(r"[/\\]", name)[-1]
    name = "".join(
        char
        for char in name
        if char not in _INVISIBLE
        and unicodedata.category(char) not in ("Cc", "Cf", "Cs")
    )
    name = _WINDOWS_CHARS.sub("_", name).strip()
    name = name.lstrip(".").rstrip(". ")
    if not name:
        return fallback
    stem = name.split(".", 1)[0]
    if stem.upper() in _WINDOWS_NAMES:
        name = f"_{name}"
    return _fit(name)


def _fit(name: str) -> str:
    encoded = name.encode("utf-8")
    if len(encoded) <= MAX_BYTES:
        return name
    stem, dot, extension = name.rpartition(".")
    if not dot or not stem or len(extension.encode("utf-8")) > 32:
        stem, extension = name, ""
    tail = f".{extension}" if extension else ""
    room = MAX_BYTES - len(tail.encode("utf-8"))
    cut = stem.encode("utf-8")[:room].decode("utf-8", "ignore").rstrip(". ")
    return f"{cut}{tail}"
