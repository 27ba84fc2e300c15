"""The settings of the middlewares, checked where they are given.

A wrong kind of value is a :class:`~restwire.UsageError`, a value of the
right kind that cannot work a :class:`~restwire.SettingError`; each names
the middleware and the setting (``OAuth2ClientCredentials(early=...)``),
so the mistake shows at the line that made it, not at the first call.

A token travels in a header, whose value is bytes: HTTP has no encoding
for text beyond ASCII (RFC 9110 §5.5 leaves other octets opaque), and
httpx refuses such a value with a bare ``UnicodeEncodeError``. A token, a
prefix or a header name outside printable ASCII is refused here instead;
the message never shows the token.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection
from typing import Any

from restwire import SettingError, UsageError
from restwire.extension import is_token, names_of, not_a_redis_url, require

__all__ = [
    "check_callable",
    "check_count",
    "check_each",
    "check_header_name",
    "check_header_text",
    "check_positive",
    "check_seconds",
    "check_text",
    "method_names",
    "redis_client",
    "sendable",
    "status_codes",
]

#: A header name as RFC 9110 §5.6.2 has it (a ``token``).
_FIELD_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


def sendable(value: str) -> bool:
    """Whether ``value`` can go in a header as it is: printable ASCII
    (tab allowed)."""
    return value.isascii() and all(c == "\t" or " " <= c <= "~" for c in value)


def check_text(
    owner: str, name: str, value: Any, *, optional: bool = False, secret: bool = False
) -> None:
    """``value`` is text (or ``None`` when ``optional``); ``secret``: the
    message names its type alone."""
    if value is None and optional:
        return
    if not isinstance(value, str):
        kind = "text or None" if optional else "text"
        shown = type(value).__name__ if secret else _kind(value)
        raise UsageError(f"{owner}({name}=...) must be {kind}, not {shown}")


def check_header_name(owner: str, name: str, value: Any) -> None:
    """``value`` is a header name: text, a token of RFC 9110 §5.6.2."""
    check_text(owner, name, value)
    if not _FIELD_NAME.fullmatch(value):
        raise SettingError(
            f"{owner}({name}={value!r}): not a header name (ASCII letters, "
            "digits and !#$%&'*+-.^_`|~ only)"
        )


def check_header_text(
    owner: str, name: str, value: Any, *, optional: bool = False, secret: bool = True
) -> None:
    """``value`` can be (part of) a header value: text in printable ASCII.
    ``secret``: the message does not show it."""
    check_text(owner, name, value, optional=optional, secret=secret)
    if value is None or sendable(value):
        return
    shown = "the value given" if secret else repr(value)
    raise SettingError(
        f"{owner}({name}=...): {shown} is not printable ASCII, which is all "
        "a header can carry; encode it first (percent-encoding, base64)"
    )


def check_seconds(owner: str, name: str, value: Any, *, optional: bool = False) -> None:
    """``value`` is a number of seconds, finite and not negative (or
    ``None`` when ``optional``)."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        kind = "a number of seconds or None" if optional else "a number of seconds"
        raise UsageError(f"{owner}({name}=...) must be {kind}, not {_kind(value)}")
    if not math.isfinite(value) or value < 0:
        raise SettingError(
            f"{owner}({name}={value!r}): must be 0 or more seconds, and finite"
        )


def check_count(owner: str, name: str, value: Any, least: int) -> None:
    """``value`` is a whole number (not a ``bool``), at least ``least``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(
            f"{owner}({name}=...) must be a whole number, not {_kind(value)}"
        )
    if value < least:
        raise SettingError(f"{owner}({name}={value!r}): must be at least {least}")


def check_positive(owner: str, name: str, value: Any) -> None:
    """``value`` is a number of seconds, finite and more than 0."""
    check_seconds(owner, name, value)
    if not value:
        raise SettingError(f"{owner}({name}=0): must be more than 0 seconds")


def redis_client(owner: str, value: Any, timeout: float) -> Any:
    """A Redis client for ``owner``'s ``redis=``: a ``redis://`` URL made a
    client (``timeout`` seconds for its connects and reads), or a client
    given (anything with redis-py's ``pipeline`` and ``register_script``).
    A URL redis-py cannot read is a :class:`SettingError` whose message
    never shows its password."""
    if isinstance(value, str):
        require("redis", owner)
        import redis

        try:
            return redis.Redis.from_url(
                value, socket_timeout=timeout, socket_connect_timeout=timeout
            )
        except ValueError:
            raise not_a_redis_url(owner, value) from None
    if not (hasattr(value, "pipeline") and hasattr(value, "register_script")):
        raise UsageError(
            f"{owner} takes a Redis URL or a redis-py client, not {_kind(value)}"
        )
    return value


def check_each(
    check: Callable[[str, str, Any], None], owner: str, **values: Any
) -> None:
    """``check(owner, name, value)`` of each option ``values`` names."""
    for name, value in values.items():
        check(owner, name, value)


def check_callable(owner: str, name: str, value: Any) -> None:
    """``value`` can be called."""
    if not callable(value):
        raise UsageError(f"{owner}({name}=...) must be a function, not {_kind(value)}")


def method_names(owner: str, value: Any, example: str) -> frozenset[str]:
    """``value``, given as ``owner(methods=...)``, as the upper-case method
    names it holds: a collection of names HTTP can send as a method."""
    names = names_of(f"{owner}(methods=...)", value, example)
    for method in names:
        if not is_token(method):
            raise SettingError(
                f"{owner}(methods=...) takes method names like 'POST'; "
                f"{method!r} is not one"
            )
    return frozenset(method.upper() for method in names)


def status_codes(owner: str, value: Any, example: str) -> frozenset[int]:
    """``value``, given as ``owner(statuses=...)``: a collection of HTTP
    status codes (whole numbers from 100 to 599)."""
    if isinstance(value, str | bytes) or not isinstance(value, Collection):
        raise UsageError(
            f"{owner}(statuses=...) takes a collection of status codes, like "
            f"{example}, not {_kind(value)}"
        )
    for status in value:
        if isinstance(status, bool) or not isinstance(status, int):
            raise UsageError(
                f"{owner}(statuses=...) takes status codes as whole numbers, "
                f"not {_kind(status)}"
            )
        if not 100 <= status <= 599:
            raise SettingError(
                f"{owner}(statuses=...): {status} is not an HTTP status (100-599)"
            )
    return frozenset(value)


def _kind(value: Any) -> str:
    """``value`` named for a message: its type, and itself when short and
    harmless (a number, a short string)."""
    if isinstance(value, int | float | str) and len(repr(value)) <= 40:
        return f"{type(value).__name__} {value!r}"
    return type(value).__name__
