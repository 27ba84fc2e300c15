"""Who a call says it is: the one place a call's identity is worked out.

A controller shares a response (in flight, from its store, through the
HTTP cache, through a poller) only between calls of equal identity and
equal value shape. The identity is read from the request of the call's
first hop, built after every middleware has set the call up and fitted to
the credential policy, so it is what would be sent, deny by default
(``_credentials`` has the lists):

- every header of that request but the public ones: the client's default
  headers and the call's alike, with the ``Cookie`` the jar gives that URL
  (less a load balancer's stickiness cookies) and the ``Authorization`` the
  URL's userinfo stands for;
- the query parameters that carry credentials;
- the call's credentials mode;
- the client's own ``auth``: the object, and the headers its flow puts on
  the request (so an ``httpx.Auth`` that signs as the current user tells
  users apart);
- the caller named by ``Controller(identity=...)``, if given.

What restwire cannot see, it does not share: a client with request event
hooks may change a request after it was keyed, so each of its calls is an
identity of its own (and a warning says so, once), unless the controller
names its callers with ``identity=``. A transport is trusted to add no
caller's credential (give the caller's name with ``identity=`` otherwise).

An :class:`Identity` compares exactly and is never shown: it holds
credential values.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .._base.credentials import (
    CREDENTIAL_PARAMS,
    PUBLIC_HEADERS,
    RAW_NAMES,
    STICKY_COOKIES,
    is_sticky,
    learn,
    names_credential,
)
from .._base.errors import SettingError, declare_credential_params
from .._base.library import URL, Auth, Request, library_of

__all__ = [
    "DEFAULT",
    "Identity",
    "Sharing",
    "Unshared",
    "auth_part",
    "credential_headers",
    "credential_params",
    "identity_of",
]

logger = logging.getLogger("restwire")


class Identity(tuple[object, ...]):
    """Who a call says it is (see the module): compared exactly, and never
    shown, since it holds credential values."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Identity([redacted])"


class Unshared:
    """The identity of a call restwire cannot see whole: equal to no other."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Unshared()"


@dataclass(frozen=True)
class Sharing:
    """What may tell callers apart, for a controller: ``Controller(sharing=
    Sharing(...))``. Each list replaces the default, so extend it:
    ``Sharing(public_headers=PUBLIC_HEADERS | {"x-request-id"})``.

    - ``public_headers``: request headers that say nothing about the caller
      (lower case); a name that says credential cannot be one.
    - ``credential_params``: query parameters that carry a credential.
    - ``sticky_cookies``: cookie names (``*`` ends a prefix) that pin a
      client to a server and are not identity.
    """

    public_headers: frozenset[str] = PUBLIC_HEADERS
    credential_params: frozenset[str] = CREDENTIAL_PARAMS
    sticky_cookies: tuple[str, ...] = STICKY_COOKIES
    _sticky_cache: dict[str, bool] = field(
        default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        public = frozenset(name.lower() for name in self.public_headers)
        said = sorted(name for name in public if names_credential(name))
        if said:
            raise SettingError(
                f"{', '.join(said)} cannot be public: the name says credential"
            )
        object.__setattr__(self, "public_headers", public)
        object.__setattr__(
            self,
            "credential_params",
            frozenset(name.lower() for name in self.credential_params),
        )
        object.__setattr__(self, "sticky_cookies", tuple(self.sticky_cookies))
        declare_credential_params(self.credential_params)  # never in a message

    def sticky(self, name: str) -> bool:
        """Whether the cookie ``name`` is a stickiness cookie (remembered)."""
        known = self._sticky_cache.get(name)
        if known is None:
            known = is_sticky(name, self.sticky_cookies)
            if len(self._sticky_cache) < 4096:
                self._sticky_cache[name] = known
        return known


#: The policy of a controller given none.
DEFAULT = Sharing()


def identity_of(
    request: Request | Iterable[tuple[bytes, bytes]],
    marked: Collection[str],
    mode: str,
    auth: Hashable,
    sharing: Sharing = DEFAULT,
    url: URL | None = None,
    caller: Hashable = None,
) -> Identity:
    """The identity of a call whose first hop is ``request`` (or sends the
    raw ``headers`` to ``url``): its credential headers (every one not
    public, and ``marked``), the credential params of its URL, its
    credentials mode ``mode``, the client's ``auth`` part, the ``caller``."""
    if isinstance(request, Request):
        headers: Iterable[tuple[bytes, bytes]] = request.headers.raw
        url = request.url
    else:
        headers = request
    return Identity(
        (
            credential_headers(headers, marked, sharing),
            credential_params(url, sharing),
            mode,
            auth,
            caller,
        )
    )


def credential_headers(
    headers: Iterable[tuple[bytes, bytes]],
    marked: Collection[str],
    sharing: Sharing = DEFAULT,
) -> tuple[tuple[bytes, bytes], ...]:
    """The headers of ``headers`` that are identity: every one not public,
    and those ``marked``; a ``Cookie`` without its stickiness cookies."""
    public = sharing.public_headers
    known = RAW_NAMES
    credentials: list[tuple[bytes, bytes]] = []
    for name, value in headers:
        lowered = known.get(name) or learn(name)
        if lowered in public and lowered not in marked:
            continue
        if lowered == "cookie":
            value = _without_sticky(value, sharing)
        credentials.append((name, value))
    return tuple(credentials)


def credential_params(
    url: URL | None, sharing: Sharing = DEFAULT
) -> tuple[tuple[str, str], ...]:
    """The query parameters of ``url`` that carry a credential."""
    if url is None or not url.query:
        return ()
    wanted = sharing.credential_params
    return tuple(
        (name, value)
        for name, value in url.params.multi_items()
        if name.lower() in wanted
    )


def _without_sticky(value: bytes, sharing: Sharing) -> bytes:
    """A ``Cookie`` header's value without the stickiness cookies."""
    if not sharing.sticky_cookies:
        return value
    pairs = value.split(b";")
    kept = [
        pair
        for pair in pairs
        if not sharing.sticky(pair.split(b"=", 1)[0].strip().decode("latin-1"))
    ]
    return value if len(kept) == len(pairs) else b";".join(kept).strip()


def auth_part(auth: Auth | None, request: Request) -> Hashable:
    """What the client's own ``auth`` makes of ``request``, for the
    identity: the object, and the headers its flow's first step sets or
    changes. ``None`` for no auth; an :class:`Unshared` when the flow
    cannot be run here (an async-only ``Auth``, a body to read first)."""
    if auth is None:
        return None
    try:
        library = library_of(request)  # the auth's client's, as the request
        probe = library.Request(
            request.method,
            request.url,
            headers=request.headers,
            stream=library.ByteStream(b""),
        )
        flow: Any = auth.sync_auth_flow(probe)  # auth and probe: one library
        try:
            sent: Request = next(flow)
        finally:
            flow.close()
    except Exception:
        return Unshared()
    before = set(request.headers.raw)
    changed = tuple(item for item in sent.headers.raw if item not in before)
    return (auth, changed)
