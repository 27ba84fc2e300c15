"""``fast_transport()``: aiohttp's connection pool under an httpx client.

httpx's own async pool (httpcore) slows down as calls queue for its
connections: on one machine, 1,600 requests a second at one call at a time,
290 at 64 (encode/httpx#3215). aiohttp's pool does not, and
``httpx-aiohttp`` puts it under an ``httpx.AsyncClient`` as a transport.
``fast_transport()`` makes that transport the way restwire needs it:

- **No cookie jar of its own.** aiohttp's session keeps the cookies every
  response sets and sends them on every later request, whoever makes it:
  one caller's session cookie would reach another's requests, past the
  identity rule. The session here has aiohttp's ``DummyCookieJar``; the
  httpx client's jar (which restwire reads and keys by) stays the only one.
- **Bodies as sent**: no decompression by aiohttp (restwire decodes, within
  ``max_body_size``), no redirect followed by aiohttp (restwire's hops do).
- **The limits httpx takes**: ``max_connections`` is aiohttp's ``limit``,
  ``keepalive_expiry`` its ``keepalive_timeout``; TLS is httpx's
  ``create_ssl_context(verify=...)``.

It is not chosen for you: a controller that makes its own client keeps
httpx's transport, so that mocks of it (pytest-httpx, respx) see every call.
Give it where speed under concurrency matters:
``AsyncController(transport=fast_transport())``. Needs
``pip install "restwire[fast]"`` (httpx-aiohttp, aiohttp) and httpx.
"""

from __future__ import annotations

import ssl
from typing import Any

from ._extras import require

__all__ = ["fast_transport"]


def fast_transport(
    *,
    max_connections: int | None = 100,
    keepalive_expiry: float | None = 5.0,
    verify: ssl.SSLContext | str | bool = True,
) -> Any:
    """An ``httpx.AsyncBaseTransport`` on aiohttp's pool, for an
    ``AsyncController`` (or your own ``httpx.AsyncClient``); see the module.
    ``max_connections``: connections open at once (``None``: no limit);
    ``keepalive_expiry``: seconds an idle connection is kept. Without the
    ``fast`` extra, a :class:`~restwire.MissingExtra` naming it."""
    aiohttp: Any = require("aiohttp", "fast_transport()")
    transports: Any = require("httpx_aiohttp", "fast_transport()")
    import httpx  # (httpx-aiohttp needs httpx: installed if it imported)

    context = httpx.create_ssl_context(verify=verify)

    def session() -> Any:
        connector = aiohttp.TCPConnector(
            limit=max_connections or 0,
            keepalive_timeout=keepalive_expiry,
            ssl=context,
        )
        return aiohttp.ClientSession(
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),
            auto_decompress=False,
        )

    return transports.AiohttpTransport(
        limits=httpx.Limits(
            max_connections=max_connections, keepalive_expiry=keepalive_expiry
        ),
        verify=verify,
        client=session,
    )
