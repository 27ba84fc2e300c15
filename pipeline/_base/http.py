"""What HTTP's standards define and every layer of restwire decides by.

One definition each, at the bottom (importing nothing of restwire but the
library's names), for the endpoint, the body encoder, the controller, the
errors and the middlewares alike:

| what | standard | here |
|---|---|---|
| which methods are safe, idempotent, bodiless | RFC 9110, 9.2 | :data:`SAFE_METHODS`, :data:`IDEMPOTENT_METHODS`, :data:`BODYLESS_METHODS` |
| a token: what a header name and a method are made of | RFC 9110, 5.1 and 9.1 | :func:`is_token` |
| an origin: scheme, host, port | RFC 6454 | :func:`origin_of` |
| a media type that names JSON | RFC 8259, RFC 6838 (``+json``) | :func:`is_json_type` |
| form fields and files | HTML forms | :class:`Form` |
| ``Retry-After`` as seconds to wait | RFC 9110, 10.2.3 | :func:`retry_after_seconds` |
| problem details of an error body | RFC 9457 | :class:`Problem`, :func:`problem_of` |

**Retry-After.** One parser for every reader of the header: ``Retry`` and
``RateLimit`` decide their waits by it, and every ``NetworkError`` carries
its reading as ``retry_after``. It never raises on malformed text.

**Problem details.** :func:`problem_of` reads a response's body (already
read, and so already bounded by the endpoint's ``max_body_size``) into a
:class:`Problem` when its content type is ``application/problem+json`` and
the body is a JSON object; anything else is ``None``, never an exception.
As RFC 9457 (section 3.1) says, a standard member of the wrong JSON type is
ignored, as if absent: a ``status`` of ``"404"`` leaves ``status`` ``None``.
``type`` is ``"about:blank"`` when absent (section 3.1.1). ``type`` and
``instance`` are kept as the server wrote them (relative references are not
resolved). Every other member is an extension, in ``extensions``.
"""

from __future__ import annotations

import dataclasses
import datetime
import email.utils
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from .library import URL, Response

__all__ = [
    "BODYLESS_METHODS",
    "HEADER_NAME_RULE",
    "IDEMPOTENT_METHODS",
    "PROBLEM_TYPE",
    "SAFE_METHODS",
    "TOKEN_CHARACTERS",
    "Form",
    "Origin",
    "Problem",
    "is_json_type",
    "is_token",
    "origin_of",
    "problem_of",
    "retry_after_seconds",
]

# -- methods -------------------------------------------------------------------

#: Methods that only read (RFC 9110, 9.2.1): never de-duplicated against a
#: write, and no CSRF token needed.
SAFE_METHODS = frozenset(("GET", "HEAD", "OPTIONS", "TRACE"))
#: Methods whose repetition has the effect of one request (RFC 9110, 9.2.2):
#: the ones ``Retry`` may send again.
IDEMPOTENT_METHODS = SAFE_METHODS | {"PUT", "DELETE"}
#: Methods that take no request body: giving one is an error, not a silent drop.
BODYLESS_METHODS = frozenset(("GET", "HEAD"))

# -- tokens --------------------------------------------------------------------

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")

#: What a token may hold, said for a message.
TOKEN_CHARACTERS = "ASCII letters, digits and !#$%&'*+-.^_`|~"
#: What a header name may hold, said for a message.
HEADER_NAME_RULE = f"a header name is {TOKEN_CHARACTERS}, at least one (RFC 9110)"


def is_token(text: object) -> TypeGuard[str]:
    """Whether ``text`` is an RFC 9110 token: a header name or a method
    HTTP can send (ASCII letters, digits and ``!#$%&'*+-.^_`|~``, at least
    one). ``"Nämé"``, ``"X Name"`` and ``""`` are not."""
    return isinstance(text, str) and _TOKEN.fullmatch(text) is not None


# -- origins -------------------------------------------------------------------

#: An origin: scheme, host and port (default ports made explicit).
Origin = tuple[str, str, int | None]

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def origin_of(url: URL) -> Origin:
    """A URL's origin (scheme, host, port), default ports made explicit."""
    return (url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme))


# -- media types and bodies ----------------------------------------------------


def is_json_type(content_type: str) -> bool:
    """Whether a ``content-type`` value names JSON (``+json`` types too)."""
    mime = content_type.split(";", 1)[0].strip().lower()
    return mime in ("application/json", "text/json") or mime.endswith("+json")


@dataclasses.dataclass(frozen=True, slots=True)
class Form:
    """Form fields, and files for a multipart upload, as httpx's ``data=`` and
    ``files=`` take them."""

    data: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    files: Any = None


# -- Retry-After -----------------------------------------------------------------

_SECONDS = re.compile(r"[0-9]+")


def retry_after_seconds(
    value: str | None, now: Callable[[], datetime.datetime] | None = None
) -> float | None:
    """Seconds to wait per a ``Retry-After`` value; ``None`` if it has none.

    Whole seconds or an HTTP-date in any of the three forms RFC 9110 allows
    (IMF-fixdate, RFC 850, asctime; a date in the past is 0). Anything else,
    including negative or fractional numbers, is ``None``.
    """
    if value is None:
        return None
    text = value.strip()
    if _SECONDS.fullmatch(text):
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        # asctime ("Sun Nov  6 08:49:37 1994") carries no zone: HTTP-dates
        # are all UTC (RFC 9110, section 5.6.7).
        when = when.replace(tzinfo=datetime.UTC)
    current = now() if now is not None else datetime.datetime.now(datetime.UTC)
    return max((when - current).total_seconds(), 0.0)


# -- problem details -------------------------------------------------------------

#: The media type of a problem details body in JSON.
PROBLEM_TYPE = "application/problem+json"

#: The members RFC 9457 defines, and the JSON type each must have.
_MEMBERS: dict[str, type] = {
    "type": str,
    "title": str,
    "status": int,
    "detail": str,
    "instance": str,
}


@dataclass(frozen=True, slots=True)
class Problem:
    """An RFC 9457 problem details object (see the module).

    ``extensions``: every member besides the five standard ones, as the
    server sent it.
    """

    type: str = "about:blank"
    title: str | None = None
    status: int | None = None
    detail: str | None = None
    instance: str | None = None
    extensions: dict[str, Any] = field(default_factory=dict)


def problem_of(response: Response) -> Problem | None:
    """The problem details of ``response`` (body read), or ``None`` when it
    has none: another content type, a body that is not a JSON object."""
    content_type = response.headers.get("content-type", "")
    media = content_type.partition(";")[0].strip().lower()
    if media != PROBLEM_TYPE:
        return None
    try:
        document = json.loads(response.content)
    except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
        return None
    if not isinstance(document, dict):
        return None
    members: dict[str, Any] = {}
    extensions: dict[str, Any] = {}
    for name, value in document.items():
        kind = _MEMBERS.get(name)
        if kind is None:
            extensions[name] = value
        elif isinstance(value, kind) and not isinstance(value, bool):
            members[name] = value
    return Problem(**members, extensions=extensions)
