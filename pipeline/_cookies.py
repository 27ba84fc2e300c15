"""Which hops of a call may store the cookies a response sets.

httpx stores every ``Set-Cookie`` of every response a client receives, redirect
hops to other hosts included. restwire decides per hop (the credentials mode
of the call, see ``pipeline._hops``), so the jar's policy is wrapped once with
one that asks a context variable: a hop that may not store cookies runs with
the variable off, and the jar refuses the cookie. Code that uses the same
client outside restwire runs with the variable on and sees no change.
"""

from __future__ import annotations

import http.cookiejar
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from typing import Any, cast

import httpx

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
