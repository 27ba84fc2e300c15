"""HTTP method classes restwire decides by: which methods are safe, which
idempotent, which take no body. One definition each, for the endpoint, the
body encoder and the middlewares alike."""

from __future__ import annotations

__all__ = ["BODYLESS_METHODS", "IDEMPOTENT_METHODS", "SAFE_METHODS"]

#: Methods that only read (RFC 9110, 9.2.1): never de-duplicated against a
#: write, and no CSRF token needed.
SAFE_METHODS = frozenset(("GET", "HEAD", "OPTIONS", "TRACE"))
#: Methods whose repetition has the effect of one request (RFC 9110, 9.2.2):
#: the ones ``Retry`` may send again.
IDEMPOTENT_METHODS = SAFE_METHODS | {"PUT", "DELETE"}
#: Methods that take no request body: giving one is an error, not a silent drop.
BODYLESS_METHODS = frozenset(("GET", "HEAD"))
