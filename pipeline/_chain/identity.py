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
- the client's mark, for a client restwire cannot see whole (below).

A controller that names its callers (``Controller(identity=...)``, the
function returning a name) says who is calling: then the name and the
credentials mode alone are the identity (:func:`named`), not the
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

import hashlib
import logging
import secrets
import sys
import threading
import urllib.request
import weakref
from collections.abc import Callable, Collection, Hashable, Iterable
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from typing import Any, Protocol

from .._base.credentials import (
    CREDENTIAL_PARAMS,
    PUBLIC_HEADERS,
    RAW_NAMES,
    STICKY_COOKIES,
    is_sticky,
    learn,
    may_name_credential,
    names_credential,
)
from .._base.errors import (
    SettingError,
    UsageError,
    declare_credential_params,
    redact_params,
)
from .._base.forks import renewed_in_child
from .._base.library import URL, AsyncClient, Auth, Client, Headers, Request, library_of
from .._base.settings import names_of
from .._wire.adapter import cookie_header, fields_kept, jar_headers, merged_headers
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
    "client_mark",
    "credential_headers",
    "credential_params",
    "identity_digest",
    "identity_of",
    "is_named",
    "named",
    "plain_url",
    "sent_host",
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
renewed_in_child(sys.modules[__name__], "_MARKS_LOCK")


def _object_mark(thing: Any) -> ClientMark:
    """The mark of ``thing`` (a client, an auth), made once per object."""
    with _MARKS_LOCK:
        mark = _MARKS.get(thing)
        if mark is None:
            mark = _MARKS[thing] = ClientMark()
        return mark


def client_mark(client: Client | AsyncClient, own_transport: bool) -> ClientMark | None:
    """The mark of ``client`` (made once per client), or ``None`` when
    restwire sees it whole: it made the client on a transport of its own
    (``own_transport``: no certificate, nothing added) and no proxy of the
    environment carries credentials."""
    if own_transport and not _proxy_credentials():
        return None
    return _object_mark(client)


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
        default_factory=dict, compare=False, repr=False, init=False
    )

    def __post_init__(self) -> None:
        public = frozenset(
            name.lower()
            for name in names_of(
                "Sharing(public_headers=...)",
                self.public_headers,
                "PUBLIC_HEADERS | {'x-request-id'}",
            )
        )
        said = sorted(name for name in public if names_credential(name))
        if said:
            raise SettingError(
                f"{', '.join(said)} cannot be public: the name says credential"
            )
        params = names_of(
            "Sharing(credential_params=...)",
            self.credential_params,
            "CREDENTIAL_PARAMS | {'sig'}",
        )
        sticky = names_of(
            "Sharing(sticky_cookies=...)",
            self.sticky_cookies,
            "('BIGipServer*', 'AWSALB')",
        )
        if "*" in sticky or "" in sticky:
            # ("*" matches every cookie: none would tell callers apart)
            raise SettingError(
                "Sharing(sticky_cookies=...): "
                + (
                    "'*' would make every cookie sticky, so no cookie would "
                    "tell callers apart"
                    if "*" in sticky
                    else "'' names no cookie"
                )
                + "; name the load balancer's cookies, like 'BIGipServer*'"
            )
        credentials = sorted(name for name in sticky if may_name_credential(name))
        if credentials:
            # (a session cookie taken for a load balancer's: no cookie would
            # tell callers apart, and one user's answers would reach another)
            raise SettingError(
                f"Sharing(sticky_cookies=...): {', '.join(map(repr, credentials))} "
                "could name a session or credential cookie, which says who is "
                "calling; name the load balancer's cookies, like 'BIGipServer*'"
            )
        object.__setattr__(self, "public_headers", public)
        object.__setattr__(
            self, "credential_params", frozenset(name.lower() for name in params)
        )
        object.__setattr__(self, "sticky_cookies", sticky)
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
    (the name ``identity=`` gave, or the client's :class:`ClientMark`); and
    a ``Host`` header that names another host than the URL's
    (:func:`sent_host`)."""
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


def sent_host(
    headers: Iterable[tuple[bytes, bytes]], url: URL | None
) -> tuple[tuple[bytes, bytes], ...]:
    """``headers``' ``Host``, as an identity part, when it names another
    host than ``url``'s own authority (virtual hosts, a tenant per host on
    one address): two calls to one URL that ask for different hosts get
    different answers, so nothing is shared between them. ``()`` when
    there is none, or it is the URL's own (the one every request carries)."""
    for name, value in headers:
        if len(name) == 4 and name.lower() == b"host":
            if url is not None and value == url.netloc:
                return ()
            return ((b"Host", value),)
    return ()


def credential_headers(
    headers: Iterable[tuple[bytes, bytes]],
    marked: Collection[str],
    sharing: Sharing = DEFAULT,
    url: URL | None = None,
) -> tuple[tuple[bytes, bytes], ...]:
    """The headers of ``headers`` that are identity: every one not public,
    and those ``marked``; a ``Cookie`` without its stickiness cookies; with
    ``url``, a ``Host`` that names another host than its own
    (:func:`sent_host`)."""
    public = sharing.public_headers
    known = RAW_NAMES
    credentials: list[tuple[bytes, bytes]] = []
    for name, value in headers:
        lowered = known.get(name) or learn(name)
        if lowered in public and lowered not in marked:
            if lowered == "host" and url is not None and value != url.netloc:
                credentials.append((b"Host", value))  # (a virtual host)
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
    the ``Host`` it asks for when not the URL's (``host``,
    :func:`sent_host`)."""
    return Identity((host, (), mode, None, caller))


def identity_digest(identity: Identity, salt: bytes, tail: bytes = b"") -> str:
    """A SHA-256 digest of ``identity`` (its credentials, what the client's
    auth added, its credential params, its caller: a named caller's name, or
    the random text of a client's :class:`ClientMark`; its credentials mode)
    under ``salt``, then ``tail``: equal for equal identities in every
    process (no per-process salt, so processes sharing a storage agree),
    and showing no credential."""
    credentials, params, mode, auth, caller = identity
    digest = hashlib.sha256(salt + b"\0")
    signed = auth[1] if isinstance(auth, tuple) else ()  # what the client's auth added
    for name, value in (*credentials, *signed):  # type: ignore[misc]
        digest.update(b"h\0" + name.lower() + b"\0" + value + b"\0")
    for param, text in params:  # type: ignore[attr-defined]
        digest.update(b"q\0" + param.encode() + b"\0" + text.encode() + b"\0")
    if type(caller) is ClientMark:  # a client restwire cannot see whole
        digest.update(b"u\0" + caller.text.encode() + b"\0")
    elif caller is not None:  # the name a controller gave its caller
        digest.update(b"c\0" + repr(caller).encode() + b"\0")
    digest.update(b"m\0" + str(mode).encode() + b"\0" + tail)
    return digest.hexdigest()


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


#: (headers class, URL class) -> whether :meth:`Identities.of` may compare
#: the header fields and URL parts they keep (absent until first met).
_KEPT_PARTS: dict[tuple[type, type], bool] = {}


def _kept_parts_agree(headers_class: type, url_class: type) -> bool:
    """Whether headers and URLs of these classes keep what an identity is
    read from as httpx and httpx2 do, so that :meth:`Identities.of` may
    compare what they keep: the header fields in a list whose equal
    contents mean equal ``raw`` headers, and URL parts whose equal host,
    port and query mean an equal ``netloc`` and ``query``. Checked once
    per pair of classes, on samples; any other pair is read the public way.
    """
    if not fields_kept(headers_class):
        return False
    try:
        texts = (
            "https://a.example/x?q=1",
            "https://a.example/y?q=1",
            "https://a.example:8443/x?q=1",
            "https://b.example/x?q=1",
            "https://a.example/x?q=2",
            "https://a.example/x",
            "http://[::1]:8080/x?q=1",
            "https://xn--bcher-kva.example/x?q=1",
        )
        urls = [url_class(text) for text in texts]
        for one in urls:
            for other in urls:
                ours = (one._uri_reference.host, one._uri_reference.port)
                theirs = (other._uri_reference.host, other._uri_reference.port)
                same = ours == theirs and (
                    one._uri_reference.query == other._uri_reference.query
                )
                if same != ((one.netloc, one.query) == (other.netloc, other.query)):
                    return False
        return True
    except Exception:  # not kept as expected: read the public way
        return False


class Identities:
    """Who the calls of one controller are (see the module).

    ``caller``: a function naming the caller (``Controller(identity=...)``),
    which every identity then holds; ``sharing``: what may tell callers
    apart; ``own_transport``: whether restwire made the client's transport
    (else the client's :class:`ClientMark` stands for a caller not named).
    """

    __slots__ = (
        "_caller",
        "_client",
        "_jar_headers",
        "_last",
        "_mark",
        "_plain",
        "_urls",
        "_warned",
        "sharing",
    )

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
        #: endpoint -> what ``without_chain`` needs of it
        #: (``_endpoint_facts``), bounded
        self._plain: dict[Any, tuple[Any, ...]] = {}
        #: id(url) -> (the URL, kept alive by the entry so that no other
        #: URL takes its id while it is there; whether it has userinfo; its
        #: credential params), bounded: the
        #: URLs the controller's ``Targets`` remembers come again whole
        self._urls: dict[int, tuple[URL, bool, tuple[tuple[str, str], ...]]] = {}
        #: The last identity :meth:`of` worked out, after what it was worked
        #: out of (the first hop's header fields, the marked names, the
        #: credentials mode, the auth part, the caller, the URL's authority
        #: and query): the same again is answered without reading them.
        self._last: tuple[Any, ...] = ()
        #: The ``Cookie`` header the client's jar gives each URL, kept per
        #: state of the jar.
        self._jar_headers = jar_headers()

    def of(self, request: Request, exchange: Exchange) -> Hashable:
        """Who the call whose first hop is ``request`` says it is."""
        caller = self._caller() if self._caller is not None else None
        if caller is not None:
            return named(
                exchange.credentials,
                caller,
                sent_host(request.headers.raw, request.url),
            )
        client = self._client
        if client.event_hooks["request"]:
            return self.unseen("request event hooks, which may change a request")
        caller = self._mark
        auth = auth_part(client.auth, request) if client.auth is not None else None
        if type(auth) is Unshared:
            return self.unseen("an auth whose flow restwire cannot run")
        headers, url = request.headers, request.url
        marked, mode = exchange.sensitive, exchange.credentials
        # What the identity is worked out of, read for less where the
        # library keeps it as httpx does: the header fields as a list (equal
        # lists, equal raw headers), the URL's authority and query as parsed
        # (equal parts, equal netloc and query).
        kinds = (type(headers), type(url))
        kept = _KEPT_PARTS.get(kinds)
        if kept is None:
            kept = _KEPT_PARTS[kinds] = _kept_parts_agree(*kinds)
        fields: list[Any]
        where: tuple[Any, ...]
        if kept:
            fields = headers._list
            parts = url._uri_reference
            where = (parts.host, parts.port, parts.query)
        else:
            fields, where = headers.raw, (url.netloc, url.query)
        last = self._last
        if (
            last
            and last[0] == fields
            and last[1] == marked
            and last[2] == mode
            and last[3] == auth
            and last[4] is caller
            and last[5] == where
        ):
            found: Identity = last[6]
            return found
        found = identity_of(
            headers.raw, marked, mode, auth, self.sharing, url=url, caller=caller
        )
        # (a copy of the fields: a header set on the request later is not
        # in what this identity was worked out of)
        self._last = (list(fields), frozenset(marked), mode, auth, caller, where, found)
        return found

    def caller_key(self, exchange: Exchange) -> str | None:
        """Who ``exchange``'s call says it is as it stands now (before its
        first hop is built: the headers middleware set so far, the client's
        defaults, the cookies the jar gives its URL, what the client's auth
        adds, the client's mark, or the caller ``identity=`` names), as a
        digest equal in every process; ``None`` when nothing in it tells
        callers apart. A call restwire cannot see whole (request hooks, an
        auth whose flow it cannot run) is a caller of its own: a key no
        other call has. For what keeps per caller besides the store
        (``RateLimit``'s pauses); shows no credential."""
        caller = self._caller() if self._caller is not None else None
        url = exchange.url
        headers, _ = merged_headers(self._client.headers.raw, exchange.headers.raw)
        if caller is not None:
            found = named(exchange.credentials, caller, sent_host(headers, url))
            return identity_digest(found, b"restwire-caller-1")
        client = self._client
        if client.event_hooks["request"]:
            return f"unseen:{secrets.token_hex(16)}"
        cookie = cookie_header(
            client.cookies.jar, exchange.method, url, self._jar_headers
        )
        if cookie is not None:
            headers.append((b"Cookie", cookie))
        if url.userinfo:  # (the Authorization it stands for, once sent)
            headers.append((b"X-Restwire-Userinfo", url.userinfo))
        auth: Hashable = None
        if client.auth is not None:
            library = library_of(client)
            probe = library.Request(exchange.method, url, headers=headers)
            auth = auth_part(client.auth, probe)
            if type(auth) is Unshared:
                return f"unseen:{secrets.token_hex(16)}"
            if not auth[1]:  # type: ignore[index]
                # an auth that adds nothing before a challenge (Digest):
                # the object says who, as a client's mark does
                mark = _object_mark(client.auth).text.encode()
                headers.append((b"X-Restwire-Auth", mark))
        found = identity_of(
            headers,
            exchange.sensitive,
            exchange.credentials,
            auth,
            self.sharing,
            url=url,
            caller=self._mark,
        )
        if found == Identity(((), (), exchange.credentials, None, None)):
            return None  # nothing tells this caller from another
        return identity_digest(found, b"restwire-caller-1")

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
        ``Host`` or ``Cookie`` the endpoint or the client sets itself, the
        client's auth, request hooks or default params, which the request
        is built with and may carry a credential: ``api_key``)."""
        client = self._client
        raw = client.headers.raw
        # worked out once per endpoint while the client's headers stay as
        # they were (compared whole each time)
        kept = self._plain.get(endpoint)
        if kept is None or kept[0] != raw:
            kept = self._endpoint_facts(endpoint, raw)
        caller = self._caller() if self._caller is not None else None
        if caller is not None:
            host = kept[2]
            return named(
                "same-origin",
                caller,
                () if host is None else sent_host(((b"Host", host),), url),
            )
        try:  # (the library's own table: a third of the property's cost)
            params: object = client._params._dict
        except AttributeError:
            params = client.params
        if (
            kept[3]
            or client.auth is not None
            or client.event_hooks["request"]
            or params
        ):
            return None
        facts = self._urls.get(id(url))
        if facts is None:
            facts = (url, bool(url.userinfo), credential_params(url, self.sharing))
            if len(self._urls) >= _KEPT:
                self._urls.clear()
            self._urls[id(url)] = facts
        if facts[1]:
            return None
        credentials = kept[1]
        jar = client.cookies.jar
        if not _empty(jar):
            cookie = cookie_header(jar, endpoint.method, url, self._jar_headers)
            if cookie is not None:  # (last, as the request carries it)
                credentials += credential_headers(
                    ((b"Cookie", cookie),), endpoint.sensitive_headers, self.sharing
                )
        return Identity((credentials, facts[2], "same-origin", None, self._mark))

    def _endpoint_facts(
        self, endpoint: Endpoint, raw: list[tuple[bytes, bytes]]
    ) -> tuple[Any, ...]:
        """What :meth:`without_chain` needs of ``endpoint`` on a client
        whose headers are ``raw``: ``raw``; the credentials of a call of it
        with those and no cookie; the ``Host`` it sets (``None``: the
        URL's); whether it sets a header only the full path can key
        (``Host``, ``Cookie``). Kept, a bounded number."""
        headers, names = merged_headers(raw, endpoint.shared_headers(None).raw)
        credentials = credential_headers(
            headers, endpoint.sensitive_headers, self.sharing
        )
        host = next((value for name, value in headers if name.lower() == b"host"), None)
        kept = (raw, credentials, host, not names.isdisjoint(_SET_BY_CALL))
        if len(self._plain) >= _KEPT:
            self._plain.clear()
        self._plain[endpoint] = kept
        return kept
