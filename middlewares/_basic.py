"""HTTP Basic credentials (RFC 7617), as ``AccessToken.basic`` sends them.

``Authorization: Basic <base64 of user-id ":" password>``. The rules,
checked where the credentials are given (and on what a refresh returns),
with messages that never show them:

- the user-id and the password are text (``str``); the user-id may not
  hold a colon, which would end it early (RFC 7617 §2: "a user-id
  containing a colon character is invalid"), and neither may hold a
  control character (§2: the user-pass "MUST NOT contain any control
  characters");
- text beyond ASCII is sent as UTF-8, normalized to NFC first: what §2.1
  asks of a client whose server announced ``charset="UTF-8"``, the only
  encoding the RFC names, and what httpx's ``BasicAuth`` and browsers send.
  A server that decodes the pair in another encoding (Latin-1) reads such
  a password differently: keep to ASCII for one.
"""

from __future__ import annotations

import base64
import unicodedata
from typing import Any

from restwire import RestwireError, SettingError, UsageError

__all__ = ["basic_token", "refreshed_basic_token"]


def _control(text: str) -> bool:
    """Whether ``text`` holds a control character (C0, DEL or C1)."""
    return any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in text)


def _problem(user: Any, password: Any) -> str | None:
    """What is wrong with ``user`` and ``password`` as Basic credentials
    (never showing them), or ``None``."""
    for name, value in (("user", user), ("password", password)):
        if not isinstance(value, str):
            return f"{name} must be text, not {type(value).__name__}"
    if ":" in user:
        return (
            "the user holds a colon, which would end it early "
            "(RFC 7617 §2: a user-id containing a colon is invalid)"
        )
    for name, value in (("user", user), ("password", password)):
        if _control(value):
            return f"the {name} holds a control character (RFC 7617 §2 forbids them)"
    return None


def _encoded(user: str, password: str) -> str:
    pair = unicodedata.normalize("NFC", f"{user}:{password}")
    return base64.b64encode(pair.encode("utf-8")).decode("ascii")


def basic_token(owner: str, user: Any, password: Any) -> str:
    """The Basic credentials of ``user`` and ``password`` (the text after
    ``Basic ``); a ``UsageError`` (not text) or ``SettingError`` (a rule
    above) naming ``owner``'s setting, never the values."""
    problem = _problem(user, password)
    if problem is None:
        return _encoded(user, password)
    kind = UsageError if "must be text" in problem else SettingError
    raise kind(f"{owner}(user=..., password=...): {problem}")


def refreshed_basic_token(label: str, user: str, result: Any) -> str | None:
    """The Basic credentials a refresh's ``result`` stands for: a new
    password for ``user``, or a ``(user, password)`` pair; ``None`` for
    no result. Anything else is a ``RestwireError`` naming the call
    ``label`` (and never the values)."""
    if result is None or result == "":
        return None
    if isinstance(result, tuple) and len(result) == 2:
        user, password = result
    elif isinstance(result, str):
        password = result
    else:
        raise RestwireError(
            f"{label}: refresh() of a Basic AccessToken must return the new "
            f"password or a (user, password) pair, not {type(result).__name__}"
        )
    problem = _problem(user, password)
    if problem is not None:
        raise RestwireError(
            f"{label}: refresh() gave Basic credentials where {problem}"
        )
    return _encoded(user, password)
