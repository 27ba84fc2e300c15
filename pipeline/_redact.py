"""Redaction of credentials in anything restwire shows: errors, reprs, logs.

Header values are never shown at all; these helpers cover the places where a
credential can hide inside a value that is shown, such as a URL's userinfo.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import httpx

REDACTED = "[redacted]"

#: Headers that carry a credential whatever a middleware says.
ALWAYS_SENSITIVE = frozenset({"authorization", "proxy-authorization", "cookie"})


_USERINFO_PASSWORD = re.compile(r"(//[^/?#@:]*):[^/?#@]*@")


def redact_url(url: httpx.URL | str) -> str:
    """The URL as text with any password in its userinfo replaced.

    Works on text that is not a valid URL too (a path template with
    ``:name`` placeholders, say), so an error about a bad URL cannot show
    its password.
    """
    return _USERINFO_PASSWORD.sub(rf"\1:{REDACTED}@", str(url))


def header_names(headers: httpx.Headers, sensitive: Iterable[str] = ()) -> str:
    """Header names with values shown only for headers that are not credentials."""
    hidden = ALWAYS_SENSITIVE.union(name.lower() for name in sensitive)
    shown = []
    for name, value in headers.items():
        shown.append(f"{name}: {REDACTED if name in hidden else value}")
    return "{" + ", ".join(shown) + "}"
