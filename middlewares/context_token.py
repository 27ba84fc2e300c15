"""``ContextToken``: the seed's token from React context, in ``contextvars``.

Reads a ``contextvars.ContextVar`` when each request is sent, so every
request uses the token of the context it runs in: a thread, an asyncio task,
a web request handler. Prefer :class:`AccessToken` when the token is not
per-request: the seed discourages keeping a non-displayed value in context
because every reader must be inside it; in Python the cost is that each
task or thread must set the variable, and forgetting to sends no token.

The header is sensitive: kept to the call's origin and out of every repr.
"""

from __future__ import annotations

from contextvars import ContextVar

from restwire import Exchange

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
        self.var = var
        self.header = header
        self.prefix = prefix

    def on_request(self, exchange: Exchange) -> None:
        token = self.var.get(None)
        if token:
            exchange.set_credential(self.header, f"{self.prefix}{token}")

    def __repr__(self) -> str:
        return f"ContextToken({self.var.name!r}, header={self.header!r})"
