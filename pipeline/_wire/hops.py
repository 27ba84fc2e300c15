"""Hops, and which credentials each may carry: restwire's credential policy.

Every redirect is a hop of its own, sent by the terminal. Whatever httpx
would do, a call's credentials (``_credentials``: every header but the
public ones) are scoped per hop from the origin (scheme, host, port) the
call started at:

- until a redirect first leaves that origin, every header is sent;
- from then on, for the rest of the chain (even back at the first origin),
  only public headers are sent, and the client's own ``auth`` does not apply;
- cookies from the client's jar are sent, and cookies a response sets are
  stored, as the call's credentials mode says: never (``"omit"``), on those
  first hops only (``"same-origin"``, the default), or on every hop
  (``"include"``, the jar's own domain rules applying).

Also here: URL userinfo sent as the Basic header it stands for, so it is
scoped like every credential.
"""

from __future__ import annotations

import base64
from collections.abc import Collection, Iterable
from typing import Literal

from .._base.credentials import PUBLIC_HEADERS, is_credential
from .._base.http import Origin, origin_of
from .._base.library import URL, Cookies, Headers, Request
from .adapter import add_cookie_header

__all__ = [
    "CREDENTIALS",
    "Credentials",
    "HopPolicy",
    "userinfo_as_basic",
]

Credentials = Literal["omit", "same-origin", "include"]
CREDENTIALS: frozenset[str] = frozenset(("omit", "same-origin", "include"))


class HopPolicy:
    """The credential policy of one call, applied to each of its hops."""

    __slots__ = (
        "_hops",
        "client_auth",
        "left_origin",
        "mode",
        "public",
        "sensitive",
        "start",
    )

    def __init__(
        self,
        start: Origin,
        mode: Credentials,
        sensitive: Iterable[str],
        public: Collection[str] = PUBLIC_HEADERS,
    ):
        self.start = start
        self.mode = mode
        self.sensitive = frozenset(sensitive)
        self.public = public
        #: Whether a redirect has left the start origin (it never comes back).
        self.left_origin = False
        #: Whether the client's own ``auth`` may apply at all (not to a
        #: middleware's side call: see ``Controller._side_call``).
        self.client_auth = True
        self._hops = 0

    @property
    def cookies_allowed(self) -> bool:
        """Whether the current hop sends and stores cookies."""
        mode = self.mode
        return mode == "include" or (mode == "same-origin" and not self.left_origin)

    def prepare(self, request: Request, jar: Cookies) -> bool:
        """Fit ``request``, the next hop, to the policy; return whether the
        response may store the cookies it sets."""
        if self._hops and not self.left_origin:
            self.left_origin = origin_of(request.url) != self.start
        if self.left_origin:
            headers = request.headers
            for name in [
                name
                for name in headers
                if is_credential(name, self.sensitive, self.public)
            ]:
                headers.pop(name, None)
        allowed = self.cookies_allowed
        if self._hops and allowed:
            add_cookie_header(jar.jar, request)
        elif not allowed:
            request.headers.pop("cookie", None)
        self._hops += 1
        return allowed

    @property
    def with_client_auth(self) -> bool:
        """Whether the client's own ``auth`` applies to the current hop."""
        return self.client_auth and not self.left_origin


def userinfo_as_basic(url: URL, headers: Headers) -> URL:
    """``url`` without its userinfo, which goes into ``headers`` as the Basic
    ``Authorization`` httpx would derive from it (unless one is set): so it is
    scoped like every credential, and the URL httpx logs carries no password."""
    if not url.userinfo:
        return url
    if "authorization" not in headers:
        pair = f"{url.username}:{url.password}".encode()
        headers["authorization"] = f"Basic {base64.b64encode(pair).decode('ascii')}"
    return url.copy_with(userinfo=b"")
