"""Hops, and which credentials each may carry: restwire's credential policy.

**What a credential is.** A header is a credential when its name is
``Authorization``, ``Proxy-Authorization`` or ``Cookie``, when it was set with
``exchange.set_credential`` or marked with ``exchange.mark_sensitive`` (or is
in an endpoint's ``sensitive_headers``), or when its name says it is one: it
contains ``auth``, ``token``, ``key`` (but not ``Idempotency-Key``),
``secret``, ``passw``, ``session``, ``cookie``, ``csrf``, ``xsrf``,
``signature`` or ``credential``. The same test serves wherever the header was
set: the endpoint's ``headers`` option, ``hookify_resource``, a middleware,
or the client's default headers. Other headers (``Accept``,
``X-Client-Version``) describe the request, not the caller: they go on every
hop, as with httpx.

**Per hop.** Every redirect is a hop of its own, sent by the terminal.
Whatever httpx would do, a call's credentials are scoped per hop from the
origin (scheme, host, port) the call started at:

- until a redirect first leaves that origin, every header is sent;
- from then on, for the rest of the chain (even back at the first origin),
  no credential header is sent, and the client's own ``auth`` does not apply;
- cookies from the client's jar are sent, and cookies a response sets are
  stored, as the call's credentials mode says: never (``"omit"``), on those
  first hops only (``"same-origin"``, the default), or on every hop
  (``"include"``, the jar's own domain rules applying).

**Identity.** :func:`identity_of` is what a call would send that says who
is calling: its credential headers (the client's defaults included), the
cookies the client holds unless the call omits them, and the client's own
``auth``. A controller shares a response (in flight, from its store, through
a poller) only between calls of equal identity.

Also here: the values a credential header may hold, the cookie a server
reads for a URL (for CSRF tokens), URL userinfo sent as the Basic header it
stands for, the jar policy that lets one hop refuse the cookies it is set,
and how a redirect's next request is built.
"""

from __future__ import annotations

import base64
import http.cookiejar
import re
from collections.abc import Collection, Iterable
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from functools import lru_cache
from typing import Any, Literal, cast

import httpx

from ._errors import InvalidRequest, TransportError, redact_url
from ._wire import add_cookie_header

__all__ = [
    "ALWAYS_SENSITIVE",
    "CREDENTIALS",
    "Credentials",
    "HopPolicy",
    "Identity",
    "Origin",
    "check_credential",
    "cookie_for",
    "cookie_scope",
    "identity_of",
    "is_credential",
    "origin_of",
    "redirect_request",
    "userinfo_as_basic",
]

#: An origin: scheme, host and port (default ports made explicit).
Origin = tuple[str, str, int | None]

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def origin_of(url: httpx.URL) -> Origin:
    """A URL's origin (scheme, host, port), default ports made explicit."""
    return (url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme))


Credentials = Literal["omit", "same-origin", "include"]
CREDENTIALS: frozenset[str] = frozenset(("omit", "same-origin", "include"))

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


#: Raw header name -> (its lower-case text, whether the name says credential);
#: one dictionary look-up per header on the hot path.
_RAW_NAMES: dict[bytes, tuple[str, bool]] = {}


def _learn(raw_name: bytes) -> tuple[str, bool]:
    """Remember what a raw header name is (at most 4,096 names)."""
    name = raw_name.decode("latin-1").lower()
    seen = (name, _credential_name(name))
    if len(_RAW_NAMES) < 4096:
        _RAW_NAMES[raw_name] = seen
    return seen


def is_credential(name: str, marked: Collection[str] = ()) -> bool:
    """Whether the header ``name`` (lower case) carries a credential: one of
    ``marked`` (set with ``set_credential`` or marked sensitive), or a name
    that says so (see the module)."""
    return name in marked or _credential_name(name)


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


# -- which hops carry what ---------------------------------------------------------


class HopPolicy:
    """The credential policy of one call, applied to each of its hops."""

    __slots__ = ("_hops", "left_origin", "mode", "sensitive", "start")

    def __init__(self, start: Origin, mode: Credentials, sensitive: Iterable[str]):
        self.start = start
        self.mode = mode
        self.sensitive = frozenset(sensitive)
        #: Whether a redirect has left the start origin (it never comes back).
        self.left_origin = False
        self._hops = 0

    @property
    def cookies_allowed(self) -> bool:
        """Whether the current hop sends and stores cookies."""
        mode = self.mode
        return mode == "include" or (mode == "same-origin" and not self.left_origin)

    def prepare(self, request: httpx.Request, jar: httpx.Cookies) -> bool:
        """Fit ``request``, the next hop, to the policy; return whether the
        response may store the cookies it sets."""
        if self._hops and not self.left_origin:
            self.left_origin = origin_of(request.url) != self.start
        if self.left_origin:
            headers = request.headers
            for name in [
                name for name in headers if is_credential(name, self.sensitive)
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
        return not self.left_origin


class Identity(tuple[object, ...]):
    """Who a call says it is (see :func:`identity_of`): compared exactly, and
    never shown, since it holds credential values."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Identity([redacted])"


def identity_of(
    headers: httpx.Headers,
    marked: Collection[str],
    mode: Credentials,
    userinfo: bytes,
    client: httpx.Client | httpx.AsyncClient,
) -> Identity:
    """The identity of a call about to send ``headers`` on ``client``: every
    credential header it and the client's defaults carry (by ``marked`` and
    by name), the URL's ``userinfo``, the client's cookies unless ``mode`` is
    ``"omit"`` (all of them, so calls that might send different cookies
    never compare equal), and the client's ``auth``."""
    credentials = []
    known = _RAW_NAMES
    for source in (client.headers, headers):
        for name, _, value in source._list:  # (``raw`` would copy the list)
            seen = known.get(name)
            if seen is None:
                seen = _learn(name)
            if seen[1] or seen[0] in marked:
                credentials.append((name, value))
    cookies: tuple[tuple[str, str, str, str | None], ...] = ()
    jar = client.cookies.jar
    # CookieJar keeps its cookies in ``_cookies`` (since Python 2): an empty
    # one, the usual case, is seen without walking it.
    if mode != "omit" and getattr(jar, "_cookies", True):
        cookies = tuple(
            (cookie.domain, cookie.path, cookie.name, cookie.value) for cookie in jar
        )
    return Identity((tuple(credentials), userinfo, cookies, mode, client.auth))


def userinfo_as_basic(url: httpx.URL, headers: httpx.Headers) -> httpx.URL:
    """``url`` without its userinfo, which goes into ``headers`` as the Basic
    ``Authorization`` httpx would derive from it (unless one is set): so it is
    scoped like every credential, and the URL httpx logs carries no password."""
    if not url.userinfo:
        return url
    if "authorization" not in headers:
        pair = f"{url.username}:{url.password}".encode()
        headers["authorization"] = f"Basic {base64.b64encode(pair).decode('ascii')}"
    return url.copy_with(userinfo=b"")


# -- cookies -------------------------------------------------------------------------


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


# httpx stores every Set-Cookie of every response a client receives, redirect
# hops to other hosts included. The jar's policy is wrapped once with one that
# asks this variable: a hop that may not store cookies runs with it off, and
# the jar refuses the cookie. Code that uses the same client outside restwire
# runs with it on and sees no change.
_storing_allowed: ContextVar[bool] = ContextVar(
    "restwire_storing_cookies", default=True
)


class _ScopedPolicy:
    """A cookie policy that defers to the jar's own, unless storing is off."""

    def __init__(self, inner: http.cookiejar.CookiePolicy) -> None:
        self.__dict__["_inner"] = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def __setattr__(self, name: str, value: Any) -> None:
        # CookieJar writes the current time onto its policy (``_now``).
        setattr(self._inner, name, value)

    def set_ok(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
        return _storing_allowed.get() and bool(self._inner.set_ok(cookie, request))


def _install(jar: http.cookiejar.CookieJar) -> None:
    current = getattr(jar, "_policy", None)
    if isinstance(current, _ScopedPolicy):
        return
    inner = current if current is not None else http.cookiejar.DefaultCookiePolicy()
    jar.set_policy(cast(http.cookiejar.CookiePolicy, _ScopedPolicy(inner)))


class _Refusing:
    """The scope of a hop that may not store cookies."""

    __slots__ = ("_token",)

    def __init__(self, client: httpx.Client | httpx.AsyncClient) -> None:
        _install(client.cookies.jar)

    def __enter__(self) -> None:
        self._token = _storing_allowed.set(False)

    def __exit__(self, *exc: object) -> None:
        _storing_allowed.reset(self._token)


_STORING = nullcontext()


def cookie_scope(
    client: httpx.Client | httpx.AsyncClient, store: bool
) -> AbstractContextManager[None]:
    """The scope to send a hop in: the client's jar keeps the cookies the
    response sets only if ``store``. Storing is what the jar does anyway, so
    that scope does nothing, and costs nothing on the usual path."""
    return _STORING if store else _Refusing(client)


# -- the next hop of a redirect ---------------------------------------------------------

_BODY_HEADERS = ("content-length", "content-type", "transfer-encoding")


def _method(request: httpx.Request, status: int) -> str:
    method = request.method
    if status == httpx.codes.SEE_OTHER and method != "HEAD":
        return "GET"
    if status == httpx.codes.FOUND and method != "HEAD":
        return "GET"
    if status == httpx.codes.MOVED_PERMANENTLY and method == "POST":
        return "GET"
    return method


def _location(request: httpx.Request, response: httpx.Response) -> httpx.URL:
    location = response.headers["location"]
    try:
        url = request.url.join(location)
    except httpx.InvalidURL as error:
        # The server broke the protocol: the error httpx's own redirect
        # handling raises, so the call ends the same whichever way it was sent.
        cause = httpx.RemoteProtocolError(
            f"Invalid URL in location header: {error}.", request=request
        )
        raise TransportError(request.method, request.url, cause) from cause
    if url.scheme not in ("http", "https") or not url.host:
        raise InvalidRequest(
            f"{request.method} {redact_url(request.url)}: redirect to "
            f"{redact_url(url)!r}, which is not an http(s) URL"
        )
    if request.url.fragment and not url.fragment:
        url = url.copy_with(fragment=request.url.fragment)
    return url


def redirect_request(request: httpx.Request, response: httpx.Response) -> httpx.Request:
    """The request that follows ``response``'s redirect, built as browsers and
    httpx build it (303 becomes GET except for HEAD, 301 and 302 turn a POST
    into a GET, 307 and 308 keep method and body), its ``Cookie`` header
    dropped to be worked out again for the new URL. Which other credentials
    it carries is :meth:`HopPolicy.prepare`'s to decide.

    A ``Location`` that is not an http(s) URL is an error, never followed.
    A 307 or 308 after a one-shot (iterator) body cannot send it again:
    httpx raises ``StreamConsumed``, which the terminal reports as a
    ``RequestBodyError``.
    """
    method = _method(request, response.status_code)
    url = _location(request, response)
    headers = httpx.Headers(request.headers)
    headers["host"] = url.netloc.decode("ascii")
    headers.pop("cookie", None)
    stream: httpx.SyncByteStream | httpx.AsyncByteStream | None = request.stream
    if method != request.method and method == "GET":
        stream = None
        for name in _BODY_HEADERS:
            headers.pop(name, None)
    return httpx.Request(
        method, url, headers=headers, stream=stream, extensions=request.extensions
    )
