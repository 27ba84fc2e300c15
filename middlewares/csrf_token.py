"""``CsrfToken``: CSRF protection for cookie sessions, as Django expects it.

On unsafe methods (not GET, HEAD, OPTIONS or TRACE) the token is read from
the client's cookie jar when the request is sent (it rotates at login):
``exchange.cookie(name)``, the cookie that most specifically matches the URL,
as the server reads it. The header is sensitive: only the origin the call
started at receives it. With no token cookie for the URL, the request goes
unchanged.
"""

from __future__ import annotations

from restwire import SAFE_METHODS, Exchange, SettingError

from ._checks import check_header_name, check_text

__all__ = ["CsrfToken"]


class CsrfToken:
    """Copies the CSRF cookie into a header on unsafe requests."""

    #: It sets a header and never reads the value: a list of entities may
    #: go from the body's bytes to the store.
    takes_unparsed = True

    def __init__(self, cookie: str = "csrftoken", header: str = "X-CSRFToken") -> None:
        check_text("CsrfToken", "cookie", cookie)
        if not cookie:
            raise SettingError("CsrfToken(cookie=''): name the cookie")
        check_header_name("CsrfToken", "header", header)
        self.cookie = cookie
        self.header = header

    def on_request(self, exchange: Exchange) -> None:
        if exchange.method in SAFE_METHODS:
            return
        token = exchange.cookie(self.cookie)
        if token is not None:
            exchange.set_credential(self.header, token)

    def __repr__(self) -> str:
        return f"CsrfToken(cookie={self.cookie!r}, header={self.header!r})"
