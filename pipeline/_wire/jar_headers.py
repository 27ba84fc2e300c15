"""The ``Cookie`` header a jar gives a request, worked out once per state.

``http.cookiejar`` works the header out afresh for every request: each
cookie of the jar is put through its policy's checks (domain, path,
port, ``Secure``, expiry), some 25 us for a jar of two cookies, a quarter
of a signed-in call. Nothing in that answer changes while the jar, its
policy and the request's URL stay as they are, until a cookie expires.

:class:`JarHeaders` keeps the answers for one jar with the state they
were worked out in: every cookie's fields, the policy's settings, the
earliest expiry. A request is answered from what is kept when that state
is the jar's now; the key is what the policy reads of a request: its
scheme, its authority, and which of the jar's cookie paths its path
matches (so calls to ``/items/1``, ``/items/2`` share one answer). Any
change (a cookie set, changed in place, or past its expiry; a policy
setting) works the answer out with the jar again, under the jar's own
lock.

Kept only for the standard library's ``CookieJar`` under its
``DefaultCookiePolicy`` (which httpx's clients have), without RFC 2965
and without the module's debug logging; every other jar or policy is
asked each time, as before.
"""

from __future__ import annotations

import copy
import http.cookiejar
import time
import urllib.parse
from collections.abc import Callable
from operator import attrgetter
from typing import Any, NamedTuple

__all__ = ["JarHeaders"]

#: A cookie's fields that its policy and the header read.
_FIELDS = attrgetter(
    "version",
    "name",
    "value",
    "port",
    "port_specified",
    "domain",
    "domain_specified",
    "domain_initial_dot",
    "path",
    "path_specified",
    "secure",
    "expires",
)
#: The standard library's cookie module, for what its stubs leave out: its
#: debug switch, and how it escapes a request's path.
_COOKIEJAR: dict[str, Any] = vars(http.cookiejar)
_escape_path: Callable[[str], str] = _COOKIEJAR["escape_path"]
#: How many requests' answers one state keeps.
_KEPT = 256
#: No cookie expires.
_NEVER = float("inf")


class _State(NamedTuple):
    """What the answers kept were worked out in, and the answers."""

    #: The jar (its lock guards ``answers``).
    jar: http.cookiejar.CookieJar
    #: Each cookie as (domain key, path key, its fields), in the jar's order.
    cookies: list[tuple[Any, ...]]
    #: The policy's settings as they were (a deep copy).
    policy: dict[str, Any]
    #: The jar's cookie paths, each once.
    paths: tuple[str, ...]
    #: The earliest expiry of a cookie held (compared with the time as the
    #: jar clears expired cookies: to the fraction of a second).
    until: float
    #: (scheme, authority, the paths matched) -> the header, or None
    answers: dict[tuple[Any, ...], str | None]


class JarHeaders:
    """The ``Cookie`` header one jar gives each request (see the module).

    ``inner_policy`` gives the policy a jar's policy stands for (a wrapper
    that defers to the jar's own, as restwire installs it). The state is
    one tuple, replaced whole, and its answers are written under its own
    jar's lock: threads asking about one jar wait for each other there,
    and a jar replaced while calls are in flight starts a state of its own
    (no lock of this object's, so none a fork could inherit held)."""

    __slots__ = ("_inner_policy", "_state")

    def __init__(self, inner_policy: Callable[[Any], Any]) -> None:
        self._inner_policy = inner_policy
        self._state: _State | None = None

    def cookie(
        self, jar: http.cookiejar.CookieJar, url: object, ask: Callable[[], str | None]
    ) -> str | None:
        """The ``Cookie`` header ``jar`` gives a request to ``url`` (that sets
        neither ``Cookie`` nor ``Cookie2``; ``url`` as text, or an object
        whose ``str`` is that text): what was worked out in the jar's
        present state, else ``ask()`` (the jar's own answer, which may clear
        expired cookies), under the jar's lock."""
        if type(jar) is not http.cookiejar.CookieJar:
            return ask()
        if not jar._cookies:  # type: ignore[attr-defined]
            return None  # (an empty jar adds nothing, and clears nothing)
        policy = self._inner_policy(getattr(jar, "_policy", None))
        if (
            type(policy) is not http.cookiejar.DefaultCookiePolicy
            or policy.rfc2965
            or _COOKIEJAR.get("debug")  # (its log lines come from each check)
        ):
            return ask()
        with jar._cookies_lock:  # type: ignore[attr-defined]
            cookies = _cookies(jar)
            if not cookies:
                return None  # (an empty jar adds nothing, and clears nothing)
            parts = urllib.parse.urlsplit(str(url))
            state = self._state
            if (
                state is not None
                and state.jar is jar
                and state.cookies == cookies
                and _same_settings(state.policy, policy)
                and time.time() < state.until
            ):
                key = (parts.scheme, parts.netloc, _matched(state.paths, parts.path))
                if key in state.answers:
                    return state.answers[key]
            # (the settings as they were before the jar was asked: a setter
            # takes no lock, and one changed meanwhile then differs from them)
            settings = copy.deepcopy(vars(policy))
            answer = ask()
            after = _cookies(jar)  # (expired ones cleared)
            if state is None or state.jar is not jar or state.cookies != after:
                paths = tuple(dict.fromkeys(path for _, path, _ in after))
                until = min(
                    (fields[11] for _, _, fields in after if fields[11] is not None),
                    default=_NEVER,
                )
                state = self._state = _State(jar, after, settings, paths, until, {})
            elif (
                not _same_settings(state.policy, policy) or len(state.answers) >= _KEPT
            ):
                state = self._state = state._replace(policy=settings, answers={})
            if after == cookies:  # (else the answer is of the jar before)
                key = (parts.scheme, parts.netloc, _matched(state.paths, parts.path))
                state.answers[key] = answer
            return answer


def _same_settings(kept: dict[str, Any], policy: Any) -> bool:
    """Whether ``policy``'s settings are ``kept`` (a deep copy: a list it
    was given and then changed in place shows), the clock the jar writes
    on it (``_now``) aside."""
    live: dict[str, Any] = vars(policy)
    if "_now" in live:
        kept["_now"] = live["_now"]
    return kept == live


def _cookies(jar: http.cookiejar.CookieJar) -> list[tuple[Any, ...]]:
    """Each cookie of ``jar`` as (domain key, path key, its fields), in the
    order the jar asks its policy about them."""
    found = []
    for domain, by_path in jar._cookies.items():  # type: ignore[attr-defined]
        for path, by_name in by_path.items():
            for cookie in by_name.values():
                found.append((domain, path, _FIELDS(cookie)))
    return found


def _matched(paths: tuple[str, ...], url_path: str) -> tuple[bool, ...]:
    """Which of ``paths`` a request's path matches, as
    ``DefaultCookiePolicy.path_return_ok`` decides (the request's path
    escaped as ``http.cookiejar.request_path`` escapes it)."""
    wanted = _escape_path(url_path)
    if not wanted.startswith("/"):
        wanted = "/" + wanted
    return tuple(
        wanted == path
        or (
            wanted.startswith(path)
            and (path.endswith("/") or wanted[len(path) : len(path) + 1] == "/")
        )
        for path in paths
    )
