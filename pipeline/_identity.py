"""Who a call says it is: the one place a call's identity is worked out.

A controller shares a response (in flight, from its store, through the
HTTP cache, through a poller) only between calls of equal identity and
equal value shape. The identity of a call about to be sent is what it
sends that says who is calling:

- every credential header it carries, the client's default headers
  included (``_credentials`` says which headers are credentials);
- the URL's userinfo;
- the cookies the client holds, unless the call omits cookies (all of them,
  so calls that might send different cookies never compare equal);
- the call's credentials mode, and the client's own ``auth``.

An :class:`Identity` compares exactly and is never shown: it holds
credential values.
"""

from __future__ import annotations

from collections.abc import Collection

import httpx

from ._credentials import is_credential_raw

__all__ = ["Identity", "identity_of"]


class Identity(tuple[object, ...]):
    """Who a call says it is (see the module): compared exactly, and never
    shown, since it holds credential values."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Identity([redacted])"


def identity_of(
    headers: httpx.Headers,
    marked: Collection[str],
    mode: str,
    userinfo: bytes,
    client: httpx.Client | httpx.AsyncClient,
) -> Identity:
    """The identity of a call about to send ``headers`` (its credential
    headers by ``marked`` and by name) on ``client`` with credentials mode
    ``mode`` and URL userinfo ``userinfo``."""
    credentials = [
        (name, value)
        for source in (client.headers, headers)
        for name, value in source.raw
        if is_credential_raw(name, marked)
    ]
    cookies: tuple[tuple[str, str, str, str | None], ...] = ()
    if mode != "omit":
        cookies = tuple(
            (cookie.domain, cookie.path, cookie.name, cookie.value)
            for cookie in client.cookies.jar
        )
    return Identity((tuple(credentials), userinfo, cookies, mode, client.auth))
