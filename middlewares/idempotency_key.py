"""``IdempotencyKey``: one key per call, the same on every re-send of it,
so the server can do a POST once however often it arrives.

On the methods listed (POST and PATCH by default) a call gets an
``Idempotency-Key`` header (the IETF httpapi draft's, as Stripe and others
read it) holding a new UUID4. Guarantees:

- One key per logical call: minted the first time the call's request side
  runs, and kept in the call's headers, so every re-send of that call
  carries the same key: a ``Retry`` (inside or outside this middleware), a
  token refresh (``AccessToken``, ``SharedToken``), a redirect that
  repeats the request. Two calls never share a key.
- A key the caller set (in the endpoint's ``headers``, or a middleware
  outside this one) is kept as it is.
- Other methods (GET, HEAD, PUT, ...) get none: a read's identity, and what
  it may share, never changes.
- ``Retry`` re-sends a POST or PATCH that carries the key after a failure
  it retries (a 503, a dropped connection), as it would a PUT; with the
  default header name it would anyway, and with another name this
  middleware tells it the call is safe to repeat.

Sharing: ``Idempotency-Key`` is a public header (``restwire.PUBLIC_HEADERS``):
no part of a call's identity, no credential, shown in reprs. A POST is
never shared anyway. Another header name is, like any header not public,
part of the call's identity and kept to the call's origin.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection

from restwire import PUBLIC_HEADERS, Exchange, SettingError
from restwire.extension import TOKEN_CHARACTERS, is_token

from ._checks import method_names

__all__ = ["KEY_HEADER", "IdempotencyKey"]

#: ``exchange.state`` entry naming (lower case) the header that carries the
#: call's idempotency key: ``Retry`` reads it to know the call may be re-sent.
KEY_HEADER = "idempotency_key_header"


class IdempotencyKey:
    """Sends one idempotency key per call on ``methods`` (see the module)."""

    #: Leaves the value alone: a body may reach the store unparsed.
    takes_unparsed = True

    def __init__(
        self,
        header: str = "Idempotency-Key",
        methods: Collection[str] = ("POST", "PATCH"),
    ) -> None:
        if not is_token(header):
            raise SettingError(
                f"IdempotencyKey(header=...) takes a header name HTTP can "
                f"send ({TOKEN_CHARACTERS}), not {header!r}"
            )
        self.header = header
        self.methods = method_names("IdempotencyKey", methods, "('POST', 'PATCH')")
        self._name = header.lower()
        #: The default header is public, no credential; another name may be
        #: identity (see ``restwire.Stack.sends_credentials``).
        self.sends_credentials = self._name not in PUBLIC_HEADERS

    def on_request(self, exchange: Exchange) -> None:
        if exchange.method not in self.methods:
            return
        headers = exchange.headers
        if self._name not in headers:  # a re-send keeps the key it was given
            headers[self.header] = str(uuid.uuid4())
        exchange.state[KEY_HEADER] = self._name

    def __repr__(self) -> str:
        return f"IdempotencyKey(header={self.header!r}, methods={sorted(self.methods)})"
