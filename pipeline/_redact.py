"""Redaction of credentials in anything restwire shows: errors, reprs, logs.

Header values are never shown at all; these helpers cover the places where a
credential can hide inside a value that is shown, such as a URL's userinfo.
"""

from __future__ import annotations

from collections.abc import Iterable

import httpx

REDACTED = "[redacted]"

#: Headers that carry a credential whatever a middleware says.
ALWAYS_SENSITIVE = frozenset({"authorization", "proxy-authorization", "cookie"})


def redact_url(url: httpx.URL | str) -> str:
    """The URL as text with any password in its userinfo replaced."""
    if isinstance(url, str):
        try:
            url = httpx.URL(url)
        except httpx.InvalidURL:
            return "<invalid URL>"
    text = str(url)
    if not url.password:
        return text
    userinfo = url.userinfo.decode("ascii")
    user = userinfo.split(":", 1)[0]
    return text.replace(f"{userinfo}@", f"{user}:{REDACTED}@", 1)


def header_names(headers: httpx.Headers, sensitive: Iterable[str] = ()) -> str:
    """Header names with values shown only for headers that are not credentials."""
    hidden = ALWAYS_SENSITIVE.union(name.lower() for name in sensitive)
    shown = []
    for name, value in headers.items():
        shown.append(f"{name}: {REDACTED if name in hidden else value}")
    return "{" + ", ".join(shown) + "}"
