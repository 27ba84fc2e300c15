"""Who a call says it is: the one place a call's identity is worked out.

A controller shares a response (in flight, from its store, through the
HTTP cache, through a poller) only between calls of equal identity and
equal value shape. The identity is read from the request of the call's
first hop, built after every middleware has set the call up and fitted to
the credential policy, so it is what would be sent, deny by default
(``_base.credentials`` has the lists):

- every header of that request but the public ones: the client's default
  headers and the call's alike, with the ``Cookie`` the jar gives that URL
  (less a load balancer's stickiness cookies) and the ``Authorization`` the
  URL's userinfo stands for;
- the query parameters that carry credentials;
- the call's credentials mode;
- the client's own ``auth``: the object, and the headers its flow puts on
  the request (so an ``httpx.Auth`` that signs as the current user tells
  users apart);
- the client's mark, for a client restwire cannot see whole (below);
- the ``Host`` that request names when it is not its URL's own authority
  (a virtual host, a tenant per host): what it reaches, as much as its URL.

A controller that names its callers (``Controller(identity=...)``, the
function returning a name) says who is calling: then the name and the
credentials mode alone are the identity (:func:`named`), with the
``Host`` it names if not its URL's own, not the
credentials sent now, so a caller keeps what it shares across its rotating
tokens (an OAuth2 refresh, a login of its own in each process); callers
named apart share nothing. A call the function names ``None`` is told
apart by its credentials, as above.

What restwire cannot see, it does not share:

- a client with request event hooks may change a request after it was
  keyed, so each of its calls is an identity of its own (and a warning
  says so, once), unless the controller names its callers with
  ``identity=``;
- a client whose transport, mounts or SSL context restwire did not make
  (any client a user gives, or one made on a user's transport) may present
  a certificate or add a credential restwire cannot read: it is an
  identity of its own, a :class:`ClientMark` made once per client. Its
  calls share among themselves (they all go out through that one client),
  but nothing they leave in a shared HTTP cache answers another client's
  calls, in this process or another, unless ``identity=`` names the caller
  (then the name says who, and replaces the mark). So does a client whose
  proxies come from the environment with credentials in them.

An :class:`Identity` compares exactly and is never shown: it holds
credential values.

A controller works identities out with its :class:`Identities`: from the
request of a call's first hop (:meth:`Identities.of`), or, for a call
whose middleware all say they send no credential, from the headers that
request would carry, without running the chain
(:meth:`Identities.without_chain`: a ``get`` answered from the store in a
few microseconds).
"""

from __future__ import annotations

import logging
import secrets
import threading
import urllib.request
import weakref
from collections.abc import Callable, Collection, Hashable, Iterable
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from typing import Any, Protocol, cast

from .._base.credentials import (
    CREDENTIAL_PARAMS,
    PUBLIC_HEADERS,
    RAW_NAMES,
    STICKY_COOKIES,
    caller_hash,
    is_sticky,
    learn,
    names_credential,
)
from .._base.errors import (
    SettingError,
    UsageError,
    declare_credential_params,
    redact_params,
)
from .._base.library import URL, AsyncClient, Auth, Client, Headers, Request, library_of
from .._wire.adapter import cookie_header, merged_headers
from .exchange import Exchange

__all__ = [
    "DEFAULT",
    "ClientMark",
    "Identities",
    "Identity",
    "Sharing",
    "Unshared",
    "auth_part",
    "auth_signs",
    "caller_digest",
    "client_mark",
    "credential_headers",
    "credential_params",
    "host_part",
    "hosts_named",
    "identity_of",
    "is_named",
    "named",
    "plain_url",
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


class ClientMark:
    """The caller part of the identity of a client restwire cannot see
    whole (see the module): one per client, equal to itself alone. Its
    ``text``, random, keys the HTTP cache in its place, so no other client
    (another controller's, another process's) finds what it left there."""

    __slots__ = ("text",)

    def __init__(self) -> None:
        self.text = secrets.token_hex(16)

    def __repr__(self) -> str:
        return "ClientMark()"


#: Each client restwire cannot see whole, and its mark (as long as it lives).
_MARKS: weakref.WeakKeyDictionary[Any, ClientMark] = weakref.WeakKeyDictionary()
_MARKS_LOCK = threading.Lock()


def client_mark(client: Client | AsyncClient, own_transport: bool) -> ClientMark | None:
    """The mark of ``client`` (made once per client), or ``None`` when
    restwire sees it whole: it made the client on a transport of its own
    (``own_transport``: no certificate, nothing added) and no proxy of the
    environment carries credentials."""
    if own_transport and not _proxy_credentials():
        return None
    with _MARKS_LOCK:
        mark = _MARKS.get(client)
        if mark is None:
            mark = _MARKS[client] = ClientMark()
        return mark


def _proxy_credentials() -> bool:
    """Whether a proxy the environment names carries a user or password."""
    return any("@" in url for url in urllib.request.getproxies().values())


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
    credentials mode ``mode``, the client's ``auth`` part, the ``caller``
    (the name ``identity=`` gave, or the client's :class:`ClientMark`), and
    the ``Host`` it names if not its URL's own (:func:`host_part`)."""
    if isinstance(request, Request):
        headers: Iterable[tuple[bytes, bytes]] = request.headers.raw
        url = request.url
    else:
        headers = request
    return Identity(
        (
            credential_headers(headers, marked, sharing, url),
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
    url: URL | None = None,
) -> tuple[tuple[bytes, bytes], ...]:
    """The headers of ``headers`` that are identity: every one not public,
    and those ``marked``; a ``Cookie`` without its stickiness cookies. Given
    the ``url`` they go to, first the ``Host`` they name if it is not that
    URL's own authority (:func:`host_part`)."""
    public = sharing.public_headers
    known = RAW_NAMES
    credentials: list[tuple[bytes, bytes]] = []
    hosts: list[bytes] = []
    for name, value in headers:
        lowered = known.get(name) or learn(name)
        if lowered == "host":
            hosts.append(value)
        if lowered in public and lowered not in marked:
            continue
        if lowered == "cookie":
            value = _without_sticky(value, sharing)
        credentials.append((name, value))
    if url is not None and hosts and _names_another(hosts, url):
        return host_part(hosts, url) + tuple(credentials)
    return tuple(credentials)


def _names_another(hosts: list[bytes], url: URL) -> bool:
    """Whether ``hosts`` (a request's ``Host`` values) name other than
    ``url``'s own authority; the usual one, set from the URL, is told
    cheaply (a port-less host first: ``netloc`` is built on each read)."""
    if len(hosts) > 1:
        return True
    host = hosts[0]
    return host != url.raw_host and host != url.netloc


def host_part(
    hosts: Iterable[bytes], url: URL | None
) -> tuple[tuple[bytes, bytes], ...]:
    """The identity part of the ``Host`` values ``hosts`` a request to
    ``url`` names: each that is not the URL's own authority (case aside),
    as ``(b"host", value)``; ``()`` for a request that names its URL's own.
    Two calls to one address for two virtual hosts reach two origins."""
    own = url.netloc.lower() if url is not None else b""
    return tuple((b"host", host.lower()) for host in hosts if host.lower() != own)


def hosts_named(headers: Iterable[tuple[bytes, bytes]]) -> tuple[bytes, ...]:
    """The values of the ``Host`` headers among ``headers``."""
    return tuple(value for name, value in headers if name.lower() == b"host")


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


def plain_url(url: URL, credential_params: Collection[str] = CREDENTIAL_PARAMS) -> str:
    """``url`` as request-key text: userinfo left out and the values of
    ``credential_params`` (the controller's: part of the identity instead)
    redacted."""
    if url.userinfo:
        url = url.copy_with(userinfo=b"")
    text = str(url)
    return redact_params(text, names=credential_params) if url.query else text


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


def named(
    mode: str, caller: Hashable, host: tuple[tuple[bytes, bytes], ...] = ()
) -> Identity:
    """The identity of a call whose controller names its ``caller``
    (``identity=``): the name, not the credentials sent now, says who, so
    a caller's calls share across its rotating tokens (and across
    processes, through a cache); its credentials mode ``mode`` kept, and
    the ``host`` it reaches if not its URL's own (:func:`host_part`)."""
    return Identity((host, (), mode, None, caller))


def is_named(identity: Hashable) -> bool:
    """Whether ``identity`` is a named caller's (:func:`named`)."""
    if type(identity) is not Identity:
        return False
    caller = identity[4]
    return caller is not None and type(caller) is not ClientMark


def auth_signs(identity: Hashable) -> bool:
    """Whether the client's auth put a credential on the first hop (a
    Bearer or Basic header), which then keys the HTTP cache; an auth that
    adds none at first (Digest answers a challenge) passes by the cache."""
    part = identity[3] if isinstance(identity, tuple) else None
    return isinstance(part, tuple) and bool(part[1])


def caller_digest(identity: Hashable) -> str | None:
    """Who ``identity`` says is calling, as text to keep something per
    caller by (``Exchange.caller``): a SHA-256 hex digest of its credential
    headers (sorted: the same wherever they were set), credential params,
    what the client's auth adds (or, for an auth that adds nothing first,
    that auth object's own mark), and its caller (the random text of a
    :class:`ClientMark`, or the name ``identity=`` gave); its credentials
    mode left out. Equal in every process for equal credentials, showing
    none. ``None`` for an identity with nothing in it (callers that cannot
    be told apart); an :class:`Unshared` one has none of its own (the
    caller gives its client's)."""
    if type(identity) is not Identity:
        return None
    parts = cast(
        tuple[
            tuple[tuple[bytes, bytes], ...],
            tuple[tuple[str, str], ...],
            str,
            object,
            object,
        ],
        identity,
    )
    credentials, params, _, auth, caller = parts
    signed: tuple[tuple[bytes, bytes], ...] = ()
    if isinstance(auth, tuple):
        signed = auth[1]
    if not (credentials or params or auth is not None or caller is not None):
        return None
    digest = caller_hash((*credentials, *signed), params)
    if isinstance(auth, tuple) and not signed:  # the auth object tells apart
        digest.update(b"a\0" + _mark_of(auth[0]).encode() + b"\0")
    if type(caller) is ClientMark:
        digest.update(b"u\0" + caller.text.encode() + b"\0")
    elif caller is not None:
        digest.update(b"c\0" + repr(caller).encode() + b"\0")
    return digest.hexdigest()


def _mark_of(thing: object) -> str:
    """A random text standing for ``thing`` as long as it lives (its
    :class:`ClientMark`'s)."""
    try:
        with _MARKS_LOCK:
            mark = _MARKS.get(thing)
            if mark is None:
                mark = _MARKS[thing] = ClientMark()
            return mark.text
    except TypeError:  # not weakly referable: its id, in this process
        return f"id-{id(thing)}"


# -- a controller's identities ----------------------------------------------------


class Endpoint(Protocol):
    """What an endpoint is to :meth:`Identities.without_chain`: a
    ``RestEndpoint``."""

    @property
    def method(self) -> str: ...
    @property
    def sensitive_headers(self) -> frozenset[str]: ...
    def shared_headers(self, body: Any) -> Headers: ...


#: Headers an endpoint may set that change how the jar gives cookies: then
#: only the full path can tell the identity.
_SET_BY_CALL = frozenset({b"host", b"cookie", b"cookie2"})
#: How many endpoints' credentials :meth:`Identities.without_chain` keeps.
_KEPT = 1024


def _empty(jar: CookieJar) -> bool:
    """Whether ``jar`` holds no cookie: for the standard library's own jar
    (httpx's), its domains looked at (``len`` walks every cookie); any
    other jar, which may keep its cookies elsewhere, counted."""
    if type(jar) is CookieJar and not getattr(jar, "_cookies", True):
        return True
    return not len(jar)


class Identities:
    """Who the calls of one controller are (see the module).

    ``caller``: a function naming the caller (``Controller(identity=...)``),
    which every identity then holds; ``sharing``: what may tell callers
    apart; ``own_transport``: whether restwire made the client's transport
    (else the client's :class:`ClientMark` stands for a caller not named).
    """

    __slots__ = ("_caller", "_client", "_mark", "_plain", "_urls", "_warned", "sharing")

    def __init__(
        self,
        client: Client | AsyncClient,
        caller: Callable[[], Hashable] | None,
        sharing: Sharing,
        own_transport: bool = False,
    ) -> None:
        if caller is not None and not callable(caller):
            raise UsageError(
                f"identity= takes a function naming the caller (a user id, say), "
                f"not {type(caller).__name__}"
            )
        self._client = client
        self._caller = caller
        #: What names the caller when nothing else does: the client's mark,
        #: or ``None`` for a client restwire sees whole.
        self._mark = client_mark(client, own_transport)
        self.sharing = sharing
        self._warned = False
        #: endpoint -> (the client's headers, the credentials of a call of
        #: it with those and no cookie, the ``Host`` values it names),
        #: bounded
        self._plain: dict[
            Any,
            tuple[list[tuple[bytes, bytes]], tuple[Any, ...], tuple[bytes, ...]],
        ] = {}
        #: id(url) -> (the URL, kept alive by the entry so that no other
        #: URL takes its id while it is there; whether it has userinfo; its
        #: credential params), bounded: the
        #: URLs the controller's ``Targets`` remembers come again whole
        self._urls: dict[int, tuple[URL, bool, tuple[tuple[str, str], ...]]] = {}

    def of(self, request: Request, exchange: Exchange) -> Hashable:
        """Who the call whose first hop is ``request`` says it is."""
        caller = self._caller() if self._caller is not None else None
        if caller is not None:
            host = host_part(hosts_named(request.headers.raw), request.url)
            return named(exchange.credentials, caller, host)
        client = self._client
        if client.event_hooks["request"]:
            return self.unseen("request event hooks, which may change a request")
        caller = self._mark
        auth = auth_part(client.auth, request) if client.auth is not None else None
        if type(auth) is Unshared:
            return self.unseen("an auth whose flow restwire cannot run")
        return identity_of(
            request,
            exchange.sensitive,
            exchange.credentials,
            auth,
            self.sharing,
            caller=caller,
        )

    def caller(self, request: Request, exchange: Exchange) -> str | None:
        """Who the call whose first hop would be ``request`` is, as text
        (:func:`caller_digest`); a call restwire cannot see whole
        (:class:`Unshared`) is its client's own caller, equal to no other
        client's."""
        identity = self.of(request, exchange)
        if type(identity) is Unshared:
            return caller_digest(Identity(((), (), "", None, self._own_mark())))
        return caller_digest(identity)

    def _own_mark(self) -> ClientMark:
        """The mark standing for this controller's client (its own)."""
        with _MARKS_LOCK:
            mark = _MARKS.get(self._client)
            if mark is None:
                mark = _MARKS[self._client] = ClientMark()
            return mark

    def unseen(self, what: str) -> Unshared:
        """A call restwire cannot see whole: shared with nobody (said once)."""
        if not self._warned:
            self._warned = True
            logger.warning(
                "restwire: this controller's client has %s after restwire keyed "
                "it, so its calls share nothing (store, calls in flight, HTTP "
                "cache, pollers); pass Controller(identity=...) to name the "
                "caller, and they are shared between calls of one caller",
                what,
            )
        return Unshared()

    def without_chain(self, endpoint: Endpoint, url: URL) -> Identity | None:
        """The identity of a call of ``endpoint`` to ``url`` whose middleware
        add no credential, read from the headers its first hop would carry;
        ``None`` where only the full path can tell (userinfo in the URL, a
        ``Host`` or ``Cookie`` the endpoint sets itself with cookies in the
        jar, the client's auth or request hooks)."""
        client = self._client
        caller = self._caller() if self._caller is not None else None
        if caller is not None:
            hosts = self._plain_of(endpoint, client.headers.raw)[2]
            return named("same-origin", caller, host_part(hosts, url) if hosts else ())
        if client.auth is not None or client.event_hooks["request"]:
            return None
        facts = self._urls.get(id(url))
        if facts is None:
            facts = (url, bool(url.userinfo), credential_params(url, self.sharing))
            if len(self._urls) >= _KEPT:
                self._urls.clear()
            self._urls[id(url)] = facts
        if facts[1]:
            return None
        caller = self._mark
        raw = client.headers.raw
        jar = client.cookies.jar
        if _empty(jar):
            # the common case, worked out once per endpoint while the
            # client's headers stay as they were (compared whole each time)
            kept = self._plain.get(endpoint)
            if kept is None or kept[0] != raw:
                kept = self._plain_of(endpoint, raw)
            credentials = kept[1]
            if kept[2]:  # a Host named: part of the identity unless the URL's own
                credentials = host_part(kept[2], url) + credentials
            return Identity(
                (
                    credentials,
                    facts[2],
                    "same-origin",
                    None,
                    caller,
                )
            )
        headers, names = merged_headers(raw, endpoint.shared_headers(None).raw)
        if not names.isdisjoint(_SET_BY_CALL):
            return None
        cookie = cookie_header(jar, endpoint.method, url)
        if cookie is not None:
            headers.append((b"Cookie", cookie))
        return identity_of(
            headers,
            endpoint.sensitive_headers,
            "same-origin",
            None,
            self.sharing,
            url=url,
            caller=caller,
        )

    def _plain_of(
        self, endpoint: Endpoint, raw: list[tuple[bytes, bytes]]
    ) -> tuple[list[tuple[bytes, bytes]], tuple[Any, ...], tuple[bytes, ...]]:
        """The kept ``_plain`` entry of ``endpoint`` on a client sending the
        headers ``raw``, worked out again if they changed."""
        kept = self._plain.get(endpoint)
        if kept is not None and kept[0] == raw:
            return kept
        headers, _ = merged_headers(raw, endpoint.shared_headers(None).raw)
        credentials = credential_headers(
            headers, endpoint.sensitive_headers, self.sharing
        )
        if len(self._plain) >= _KEPT:
            self._plain.clear()
        kept = self._plain[endpoint] = (raw, credentials, hosts_named(headers))
        return kept
