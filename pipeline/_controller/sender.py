"""The end of every chain: build the request, send it hop by hop under the
credential policy, read, parse.

A controller makes one :class:`Sender` for its client (and its HTTP
cache, if any) and gives it to every chain it runs as the innermost step.
It is the only code that sends: each hop goes out as a ``_Send`` effect
after the credential policy (:class:`HopPolicy`) has fitted it, so no
middleware can send around it. A call with a cache ticket sends its first
hop through the cache (``_cache.http_cache``), which may answer it from
storage.

**The credential policy of each hop.** Every redirect is a hop of its own,
sent here. Whatever httpx would do, a call's credentials
(``_base.credentials``: every header but the public ones) are scoped per
hop from the origin (scheme, host, port) the call started at:

- until a redirect first leaves that origin, every header is sent (a
  later page of a listing started at the first page's origin: one on
  another origin is sent as such a redirect is, but for the credentials
  the user named for it, ``paginate(cross_origin={...})``);
- from then on, for the rest of the chain (even back at the first origin),
  only public headers are sent, and the client's own ``auth`` does not apply;
- cookies from the client's jar are sent, and cookies a response sets are
  stored, as the call's credentials mode says: never (``"omit"``), on those
  first hops only (``"same-origin"``, the default), or on every hop
  (``"include"``, the jar's own domain rules applying).

URL userinfo is sent as the Basic header it stands for
(:func:`userinfo_as_basic`), so it is scoped like every credential.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import logging
from collections.abc import Collection, Iterable
from typing import Any, NamedTuple

from .._base.credentials import PUBLIC_HEADERS, Credentials, is_credential
from .._base.effects import Flow, _Close, _Load, _Read, _Send
from .._base.errors import (
    BodyTooLarge,
    InvalidRequest,
    RequestBodyError,
    RestwireError,
    TooManyRedirects,
    TransportError,
    redact_url,
)
from .._base.http import IDEMPOTENT_METHODS, origin_of
from .._base.library import (
    INVALID_URL,
    LIBRARIES,
    REQUEST_ERRORS,
    STREAM_CONSUMED,
    URL,
    Cookies,
    Headers,
    Request,
    Response,
)
from .._cache.conversion import from_cache
from .._cache.http_cache import HttpCache
from .._cache.keys import Ticket, body_digest
from .._chain.exchange import Exchange
from .._chain.watchers import watched_send
from .._endpoints.status_errors import status_error
from .._store.deferred_parse import Unparsed
from .._wire.adapter import (
    Adapter,
    add_cookie_header,
    build_request,
    redirect_request,
)
from .._wire.content import BodyReader, Discard, body_arguments
from .._wire.fast_transport import WholeBody
from .._wire.shortcuts import take_whole_body

__all__ = [
    "UNCHANGED",
    "FirstHop",
    "HopPolicy",
    "Sender",
    "read_body",
    "userinfo_as_basic",
]

logger = logging.getLogger("restwire")

#: The statuses a library's ``has_redirect_location`` can be true of (it
#: asks for one of these, then a ``Location``): any other is no redirect,
#: known without the property's frame (the usual answer, a 2xx).
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


class _Unchanged:
    def __repr__(self) -> str:
        return "UNCHANGED"


#: ``exchange.value`` when the body came from the HTTP cache and is the one
#: the caller's stored value was read from: not parsed again.
UNCHANGED: object = _Unchanged()


# -- the credential policy of each hop ---------------------------------------------


class HopPolicy:
    """The credential policy of one call, applied to each of its hops."""

    __slots__ = (
        "_compare_first",
        "_hops",
        "_shared_with",
        "client_auth",
        "left_origin",
        "mode",
        "public",
        "sensitive",
        "start",
    )

    def __init__(
        self,
        start: URL,
        mode: Credentials,
        sensitive: Iterable[str],
        public: Collection[str] = PUBLIC_HEADERS,
        home: URL | None = None,
        shared_with: Collection[str] = (),
    ):
        #: The URL the call started at (or, for a later page of a listing,
        #: ``home``: the first page's): its origin is worked out only when
        #: a hop needs comparing with it (most calls have none).
        self.start = start if home is None else home
        self.mode = mode
        self.sensitive = frozenset(sensitive)
        self.public = public
        #: Whether a redirect has left the start origin (it never comes back).
        self.left_origin = False
        #: Whether the client's own ``auth`` may apply at all (not to a
        #: middleware's side call: see ``BaseController._side_call``).
        self.client_auth = True
        #: A page on another origin than ``home`` is a hop away from it,
        #: as a redirect is; and the credentials the user let it carry.
        self._compare_first = home is not None
        self._shared_with = frozenset(shared_with)
        self._hops = 0

    @property
    def cookies_allowed(self) -> bool:
        """Whether the current hop sends and stores cookies."""
        mode = self.mode
        return mode == "include" or (mode == "same-origin" and not self.left_origin)

    def prepare(self, request: Request, jar: Cookies) -> bool:
        """Fit ``request``, the next hop, to the policy; return whether the
        response may store the cookies it sets."""
        if (self._hops or self._compare_first) and not self.left_origin:
            self.left_origin = origin_of(request.url) != origin_of(self.start)
        # what the user let a page on another origin carry (its first hop)
        shared = self._shared_with if not self._hops else frozenset()
        if self.left_origin:
            headers = request.headers
            for name in [
                name
                for name in headers
                if is_credential(name, self.sensitive, self.public)
                and name.lower() not in shared
            ]:
                headers.pop(name, None)
        allowed = self.cookies_allowed or ("cookie" in shared and self.mode != "omit")
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


# -- sending -----------------------------------------------------------------------


class FirstHop(NamedTuple):
    """A call's first hop, built and fitted to the credential policy: the
    request that will be sent, as the identity is read from it."""

    request: Request
    policy: HopPolicy
    store_cookies: bool


class Sender:
    """Sends an exchange through ``adapter`` (and ``cache``): the innermost
    step of a chain, in two parts: :meth:`first_hop` builds the request
    (the controller reads the call's identity from it), then calling the
    sender sends it."""

    __slots__ = ("adapter", "cache", "public")

    def __init__(
        self,
        adapter: Adapter,
        cache: HttpCache | None = None,
        public: frozenset[str] = PUBLIC_HEADERS,
    ) -> None:
        self.adapter = adapter
        self.cache = cache
        #: The headers a redirect to another origin may carry.
        self.public = public

    def first_hop(self, exchange: Exchange, client_params: bool = True) -> FirstHop:
        """The request of the call's first hop, fitted to its credential
        policy (cookies sent or not): exactly what would go out.
        ``client_params``: whether the client's default params may go with
        it (not with a middleware's side call)."""
        request = self._first_request(exchange, client_params)
        policy = HopPolicy(
            exchange.url,
            exchange.credentials,
            exchange.sensitive,
            self.public,
            exchange.home,
            exchange.shared_with,
        )
        store_cookies = policy.prepare(request, self.adapter.client.cookies)
        return FirstHop(request, policy, store_cookies)

    def __call__(
        self,
        exchange: Exchange,
        first: FirstHop,
        ticket: Ticket | None = None,
        unchanged: bytes | None = None,
    ) -> Flow[Response]:
        """Send ``first``, follow redirects, read and parse the body.

        With ``ticket``, the first hop goes through the HTTP cache
        (``_cache``); with ``unchanged`` too, a body the cache gives whose
        digest is ``unchanged`` is not parsed: the value is
        :data:`UNCHANGED`, and the caller keeps what it has.
        """
        endpoint = exchange.endpoint
        exchange.response = None
        exchange.value = None
        exchange.hops = []
        # Each hop: fitted to the policy, sent (the first through the HTTP
        # cache, with a ticket), and followed while it redirects.
        request, policy, store_cookies = first
        history: list[Response] = []
        while True:
            if history:  # (the first hop came prepared)
                store_cookies = policy.prepare(request, self.adapter.client.cookies)
            exchange.hops.append(request.url)
            with_auth = policy.with_client_auth
            cached = ticket if not history and self.cache is not None else None
            if cached is not None or exchange.watchers:
                response = yield from self._send_seen(
                    exchange, request, with_auth, store_cookies, cached
                )
            else:  # the usual hop: no generator of its own
                try:
                    response = yield _Send(request, with_auth, store_cookies)
                except _HOP_ERRORS as error:
                    if not _may_send_again(request, error):
                        raise _hop_error(request, error) from _cause(error)
                    response = yield from _send(
                        request, with_auth, store_cookies, again=False
                    )
            if logger.isEnabledFor(logging.DEBUG):
                logger.debug(
                    "%s %s -> %s",
                    request.method,
                    redact_url(request.url),
                    response.status_code,
                )
            if not (
                endpoint.follow_redirects
                and response.status_code in _REDIRECT_STATUSES
                and response.has_redirect_location
            ):
                response.history = history  # type: ignore[assignment]  # the hops before it
                break
            yield from _leave(exchange, response, len(history))
            history.append(response)
            request = redirect_request(request, response)
        # The last hop's body: read (bounded) and parsed.
        exchange.response = response
        if not endpoint.content.streamed or not response.is_success:
            yield from read_body(response, endpoint.max_body_size)
        _parse(exchange, response, unchanged, self.public)
        return response

    def _send_seen(
        self,
        exchange: Exchange,
        request: Request,
        with_client_auth: bool,
        store_cookies: bool,
        ticket: Ticket | None,
    ) -> Flow[Response]:
        """Send a hop that something sees besides the wire: the HTTP cache
        (with ``ticket``), which may answer it from storage, and the call's
        watchers (``_chain.watchers``), told before and after."""
        send = functools.partial(
            _send, with_client_auth=with_client_auth, store_cookies=store_cookies
        )
        watchers = exchange.watchers
        if watchers:
            send = functools.partial(
                watched_send, watchers, exchange, send=send, public=self.public
            )
        if ticket is None or self.cache is None:
            response: Response = yield from send(request)
            return response
        return (
            yield from self.cache.exchange(
                request,
                ticket,
                send,
                exchange.endpoint.max_body_size,
                self.adapter.default_encoding,
            )
        )

    def side_call(self, exchange: Exchange) -> Flow[Response]:
        """The innermost step of a middleware's ``SideCall`` (a token
        request, say): it carries only what its own endpoint and middleware
        set. Made on behalf of one caller, it sends no credential among the
        client's default headers, none of its default params (an
        ``api_key`` of the API is not the token server's) and not the
        client's own ``auth``."""
        first = self.first_hop(exchange, client_params=False)
        own = {name.lower() for name in exchange.headers}
        headers = first.request.headers
        for name in [name for name in headers if name.lower() not in own]:
            if is_credential(name, exchange.sensitive, self.public):
                del headers[name]  # a client default: who, for whom?
        first.policy.client_auth = False
        return self(exchange, first)

    def _first_request(self, exchange: Exchange, client_params: bool = True) -> Request:
        endpoint = exchange.endpoint
        headers = exchange.headers
        body = exchange.body
        arguments: dict[str, Any] = {}
        content = exchange.content
        if content is not None:  # encoded for a middleware that read it
            arguments = {"content": content}
        elif body is not None:  # (most calls have none: nothing to look up)
            arguments, content_type = body_arguments(
                body,
                endpoint.content,
                exchange.method,
                headers.get("content-type"),
                exchange.label,  # names the call in the body's errors
                asynchronous=self.adapter.asynchronous,
                param_style=endpoint.param_style,
            )
            if content_type is not None and "content-type" not in headers:
                headers["content-type"] = content_type
        url = userinfo_as_basic(exchange.url, headers)
        home = exchange.home
        try:
            request = build_request(
                self.adapter.client,
                exchange.method,
                url,
                headers,
                endpoint.timeout,
                arguments,
                library=self.adapter.library,
                checked=self.adapter.checked,
                jar_headers=self.adapter.jar_headers,
                # (a page on another origin is sent as a redirect there
                # is: its link as it is, none of the client's default
                # params, which may carry its credential: api_key)
                client_params=client_params
                and (home is None or origin_of(url) == origin_of(home)),
            )
        except INVALID_URL as error:
            raise InvalidRequest(f"{endpoint.label}: invalid URL: {error}") from None
        return request


def _send(
    request: Request, with_client_auth: bool, store_cookies: bool, again: bool = True
) -> Flow[Response]:
    """Send one hop (as the HTTP cache and the watchers ask); its failures
    as restwire's. One whose connection dropped before any answer is sent
    once more when it may be (:func:`_may_send_again`), unless ``again`` is
    false (it is that once more)."""
    try:
        response: Response = yield _Send(request, with_client_auth, store_cookies)
    except _HOP_ERRORS as error:
        if again and _may_send_again(request, error):
            return (yield from _send(request, with_client_auth, store_cookies, False))
        raise _hop_error(request, error) from _cause(error)
    return response


#: What sending a hop can fail with, besides restwire's own errors.
_HOP_ERRORS = (*STREAM_CONSUMED, *REQUEST_ERRORS, *INVALID_URL)
#: A hop's failures that say its connection dropped before any answer came:
#: the libraries' own "disconnected without sending a response", and an
#: error of the connection itself (a reset, a broken pipe) while sending.
_NO_ANSWER = tuple(library.RemoteProtocolError for library in LIBRARIES)
_CONNECTION_FAILED = tuple(
    kind for library in LIBRARIES for kind in (library.ReadError, library.WriteError)
)
#: The streams of a body in memory, which can be sent again as they are.
_IN_MEMORY = tuple(library.ByteStream for library in LIBRARIES)


def _may_send_again(request: Request, error: Exception) -> bool:
    """Whether a hop that failed with ``error`` is sent once more: its
    connection dropped before any answer came (RFC 9112, 9.3.1: a client
    may retry an idempotent request then; aiohttp and urllib3 do), its
    method is idempotent, and its body is in memory. Every path alike: a
    POST or a streamed body is never sent twice."""
    if request.method not in IDEMPOTENT_METHODS or not isinstance(
        request.stream, _IN_MEMORY
    ):
        return False
    if isinstance(error, _CONNECTION_FAILED):
        return True
    return isinstance(error, _NO_ANSWER) and "without sending a response" in str(error)


def _hop_error(request: Request, error: Exception) -> RestwireError:
    """A failed hop's error, as restwire's."""
    if isinstance(error, STREAM_CONSUMED):
        # (a redirect's is refused before it is sent: ``redirect_request``)
        return RequestBodyError(
            f"{request.method} {redact_url(request.url)}: the client's auth "
            "asked to send the body again, but it was a one-shot iterator; "
            "send bytes to allow it"
        )
    if isinstance(error, REQUEST_ERRORS):
        return TransportError(request.method, request.url, error)
    # httpx reads a redirect's Location while sending, and a Location such
    # as "javascript:..." fails there, outside RequestError.
    return InvalidRequest(
        f"{request.method} {redact_url(request.url)}: the response's "
        f"Location is not a URL to follow ({error})"
    )


def _cause(error: Exception) -> Exception | None:
    """What a hop's error is raised from: httpx's own, when it says more."""
    return error if isinstance(error, REQUEST_ERRORS) else None


def _leave(exchange: Exchange, response: Response, redirects: int) -> Flow[None]:
    """Leave a redirect's ``response`` for its next hop: drop its body, or,
    past the endpoint's ``max_redirects`` (``redirects`` followed so far),
    close it and raise :class:`TooManyRedirects`."""
    limit = exchange.endpoint.max_redirects
    if redirects >= limit:
        yield _Close(response)
        raise TooManyRedirects(exchange.method, exchange.url, limit)
    yield from _discard(response)


def _parse(
    exchange: Exchange,
    response: Response,
    unchanged: bytes | None,
    public: Collection[str] = PUBLIC_HEADERS,
) -> None:
    """The value of the last hop's ``response`` (body read) into
    ``exchange.value``: a 4xx or 5xx raised as its status error, a body the
    HTTP cache gave unchanged left :data:`UNCHANGED`, a list of entities
    left unparsed for the store when the endpoint allows it."""
    endpoint = exchange.endpoint
    unfollowed = (
        response.status_code in _REDIRECT_STATUSES
        and response.has_redirect_location
        and not endpoint.follow_redirects
    )
    if not response.is_success and not (unfollowed and not exchange.parse):
        # A redirect the endpoint was told not to follow is what
        # fetch_response returns; a value needs a 2xx.
        raise status_error(
            response, endpoint.error_schema, exchange.params, exchange.sensitive, public
        )
    if not exchange.parse:
        return
    if (
        unchanged is not None
        and from_cache(response)
        and body_digest(response.content) == unchanged
    ):
        exchange.value = UNCHANGED
        return
    exchange.value = (
        Unparsed(endpoint, response)
        if endpoint.defers_parse
        else endpoint.parse_response(response)
    )


#: A redirect body read (and dropped) to keep its connection: at most this.
REDIRECT_BODY = 64 * 1024


def read_body(response: Response, limit: int | None) -> Flow[None]:
    """Read ``response``'s body, decoded and bounded by ``limit``; it becomes
    ``response.content``."""
    # Read whole by fast_transport(), sent as it is: already in memory with
    # nothing to undo, so read here, not through the driver's _Load (its
    # decoding wrapper and reader): then bounded as below.
    if type(response.stream) is WholeBody:
        take_whole_body(response)
    if response.is_stream_consumed:
        # A transport that built the response in memory (httpx.MockTransport)
        # hands it over already read: only the limit is left to apply.
        if limit is not None and len(response.content) > limit:
            request = response.request
            raise BodyTooLarge(request.method, request.url, limit)
        return
    reader = BodyReader(response, limit)
    declared = response.headers.get("content-length", "")
    identity = reader.identity  # then the wire length is the body's
    if limit is not None and identity and declared.isdigit() and int(declared) > limit:
        yield _Close(response)  # refused before reading a byte of it
        request = response.request
        raise BodyTooLarge(request.method, request.url, limit)
    try:
        yield _Load(response, reader)
    except REQUEST_ERRORS as error:
        request = response.request
        raise TransportError(request.method, request.url, error) from error


def _discard(response: Response) -> Flow[None]:
    """Drop a redirect's own body: read (to reuse the connection) when it
    says it is short, else close without reading; never kept, never waited
    for without bound."""
    if response.is_stream_consumed:
        return  # built in memory by the transport: nothing to drop
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) <= REDIRECT_BODY:
        with contextlib.suppress(*REQUEST_ERRORS):
            yield _Read(response, Discard(REDIRECT_BODY))
    else:
        yield _Close(response)
