"""``CsrfToken``: CSRF protection for cookie sessions, as Django expects it.

On unsafe methods (not GET, HEAD, OPTIONS or TRACE) the token is read from
the client's cookie jar when the request is sent (it rotates at login): the
cookie that most specifically matches the URL, as the server reads it. The header is
sensitive: only the origin the call started at receives it. With no token
cookie for the URL, the request goes unchanged.
"""

from __future__ import annotations

import httpx

from restwire import Exchange

from ._headers import send_credential

__all__ = ["CsrfToken"]

_SAFE = frozenset(("GET", "HEAD", "OPTIONS", "TRACE"))


def _domain_rank(cookie_domain: str, host: str) -> int:
    """2 for the host's own cookie, 1 for a parent domain's, 0 for a cookie
    set with no domain (it matches anywhere), -1 for no match."""
    if not cookie_domain:
        return 0
    hosts = (host, f"{host}.local") if "." not in host else (host,)
    if cookie_domain in hosts:
        return 2
    if cookie_domain.startswith(".") and any(
        name == cookie_domain[1:] or name.endswith(cookie_domain) for name in hosts
    ):
        return 1
    return -1


def cookie_for(cookies: httpx.Cookies, name: str, url: httpx.URL) -> str | None:
    """The value of the cookie ``name`` that most specifically matches ``url``.

    Domain, path, expiry and ``Secure`` rules apply; of several matches the
    one for this very host wins over a parent domain's, and that over one
    set with no domain, then the longest path: the cookie a server reads.
    """
    best: tuple[int, int] | None = None
    value: str | None = None
    path = url.path or "/"
    for cookie in cookies.jar:
        if cookie.name != name or cookie.value is None or cookie.is_expired():
            continue
        if cookie.secure and url.scheme != "https":
            continue
        rank = _domain_rank(cookie.domain, url.host)
        if rank < 0 or not path.startswith(cookie.path or "/"):
            continue
        if best is None or (rank, len(cookie.path)) > best:
            best, value = (rank, len(cookie.path)), cookie.value.strip('"')
    return value or None


class CsrfToken:
    """Copies the CSRF cookie into a header on unsafe requests."""

    def __init__(self, cookie: str = "csrftoken", header: str = "X-CSRFToken") -> None:
        self.cookie = cookie
        self.header = header

    def on_request(self, exchange: Exchange) -> None:
        if exchange.method in _SAFE:
            return
        token = cookie_for(exchange.client.cookies, self.cookie, exchange.url)
        if token is not None:
            send_credential(exchange, self.header, token)

    def __repr__(self) -> str:
        return f"CsrfToken(cookie={self.cookie!r}, header={self.header!r})"
