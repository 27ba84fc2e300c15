"""What a credential is: restwire's one rule for request headers.

A header is a credential when its name is ``Authorization``,
``Proxy-Authorization`` or ``Cookie``; when it was set with
``exchange.set_credential`` or marked with ``exchange.mark_sensitive`` (or
is in an endpoint's ``sensitive_headers``); or when its name says it is one:
it contains ``auth``, ``token``, ``key`` (but not ``Idempotency-Key``),
``secret``, ``passw``, ``session``, ``cookie``, ``csrf``, ``xsrf``,
``signature`` or ``credential``. The same test serves wherever the header
was set: the endpoint's ``headers`` option, ``hookify_resource``, a
middleware, or the client's default headers.

A credential is never shown (reprs, errors, logs), never kept in an HTTP
cache's storage, and sent only on hops at the call's own origin (``_hops``).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache

__all__ = [
    "ALWAYS_SENSITIVE",
    "RAW_NAMES",
    "check_credential",
    "is_credential",
    "is_credential_raw",
    "learn",
]

#: Headers that carry a credential whatever a middleware says.
ALWAYS_SENSITIVE = frozenset({"authorization", "proxy-authorization", "cookie"})

_CREDENTIAL_WORDS = re.compile(
    r"auth|token|key|secret|passw|session|cookie|csrf|xsrf|signature|credential"
)
#: Names that contain a credential word but name no credential: a per-request
#: Idempotency-Key must neither be kept from a redirect's target nor tell
#: callers apart.
_NOT_CREDENTIALS = frozenset({"idempotency-key"})


@lru_cache(maxsize=4096)
def _credential_name(name: str) -> bool:
    return name not in _NOT_CREDENTIALS and (
        name in ALWAYS_SENSITIVE or _CREDENTIAL_WORDS.search(name) is not None
    )


def is_credential(name: str, marked: Collection[str] = ()) -> bool:
    """Whether the header ``name`` (lower case) carries a credential: one of
    ``marked`` (set with ``set_credential`` or marked sensitive), or a name
    that says so (see the module)."""
    return name in marked or _credential_name(name)


#: Raw header name -> (its lower-case text, whether the name says credential);
#: one dictionary look-up per header on the hot path (``_identity`` reads it
#: in place, :func:`learn` fills it).
RAW_NAMES: dict[bytes, tuple[str, bool]] = {}


def learn(raw_name: bytes) -> tuple[str, bool]:
    """What a header name as it is on the wire is: its lower-case text, and
    whether it says credential (remembered, for at most 4,096 names)."""
    name = raw_name.decode("latin-1").lower()
    seen = (name, _credential_name(name))
    if len(RAW_NAMES) < 4096:  # a bound: names are few, but not trusted
        RAW_NAMES[raw_name] = seen
    return seen


def is_credential_raw(raw_name: bytes, marked: Collection[str] = ()) -> bool:
    """:func:`is_credential` for a header name as it is on the wire."""
    seen = RAW_NAMES.get(raw_name) or learn(raw_name)
    return seen[1] or seen[0] in marked


# Control characters but tab: a CR or LF in a value could split the header
# and inject another.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def check_credential(header: str, value: str) -> None:
    """Refuse a credential value that could split its header (a line break
    or another control character); the message never shows the value."""
    if _CONTROL.search(value) is not None:
        raise ValueError(
            f"the {header} value has a control character; refusing to send it"
        )
