"""``ContextToken``: each request's token read from a ``contextvars.ContextVar``.

Reads a ``contextvars.ContextVar`` when each request is sent, so every
request uses the token of the context it runs in: a thread, an asyncio task,
a web request handler. Prefer :class:`AccessToken` when the token is not
per-request: each task or thread must set the variable, and forgetting to
sends no token.

The header is sensitive: kept to the call's origin and out of every repr.
Its settings are checked where given (``header`` a header name, ``prefix``
printable ASCII); a token the context holds that is not printable ASCII
(a header carries bytes) fails its call with an ``InvalidRequest`` naming
the call and the variable, never the token.
"""

from __future__ import annotations

from contextvars import ContextVar

from restwire import Exchange, InvalidRequest, UsageError

from ._checks import check_header_name, check_header_text, sendable

__all__ = ["ContextToken"]


class ContextToken:
    """Sends the token the current context holds, if any."""

    def __init__(
        self,
        var: ContextVar[str | None] | ContextVar[str],
        *,
        header: str = "Access-Token",
        prefix: str = "",
    ) -> None:
        if not isinstance(var, ContextVar):
            raise UsageError(
                f"ContextToken(var=...) must be a contextvars.ContextVar, not "
                f"{type(var).__name__}"
            )
        check_header_name("ContextToken", "header", header)
        check_header_text("ContextToken", "prefix", prefix, secret=False)
        self.var = var
        self.header = header
        self.prefix = prefix

    def on_request(self, exchange: Exchange) -> None:
        token = self.var.get(None)
        if token:
            if not isinstance(token, str) or not sendable(token):
                what = (
                    "is not text"
                    if not isinstance(token, str)
                    else ("is not printable ASCII, which is all a header can carry")
                )
                raise InvalidRequest(
                    f"{exchange.label}: the token ContextToken {self.var.name!r} "
                    f"holds {what}; set it encoded (percent-encoding, base64)"
                )
            exchange.set_credential(self.header, f"{self.prefix}{token}")

    def __repr__(self) -> str:
        return f"ContextToken({self.var.name!r}, header={self.header!r})"
