"""Every contact restwire has with the HTTP library, in one module.

Only public names of httpx (or httpx2: ``_base.library``) are used, and a
client a user gives is used as given: restwire never replaces its transports, mounts or state. (One
exception, behaviour-neutral: the first time a hop must refuse the cookies
it is set, the jar is given a cookie policy that defers to its own policy in
everything, and refuses only inside restwire's refusing hops; see
:func:`cookie_scope`.)

| what | here |
|---|---|
| a controller's client, and how a hop reaches it | :class:`Adapter`: ``send`` / ``asend`` |
| the request of a call's first hop | :func:`build_request` |
| the request of a redirect's next hop | :func:`redirect_request` |
| which header fields HTTP/1.1 can carry (as httpx's h11 checks them) | :func:`header_problem` |
| reading a body | ``load`` / ``aload`` (whole, decoded, into ``response.content``), ``read_into`` / ``aread_into`` (raw chunks into a sink), ``iter_raw`` / ``aiter_raw`` (raw chunks as they come: event streams), ``interrupt``, ``close`` / ``aclose`` |
| cookies | :func:`add_cookie_header`, :func:`cookie_for`, :func:`cookie_scope` |

**Two ways to send.** A client the user gives is sent on with
``client.send``: its auth, event hooks and cookie jar do what the user set
them up to do. A client restwire makes for itself (``Controller()``, or
``Controller(transport=...)``) is sent on straight through the transport
restwire made it with, doing what ``client.send`` would do to the response
(timing, cookies, encoding, httpx's log line) and skipping what a single
hop without auth or hooks does not need (what that saves a call:
docs/performance.md). If such a client is given ``auth`` or event hooks
later, or proxies come from the environment, its hops go through
``client.send`` too.

**Which library.** An adapter sends with the library of the client or
transport it is given (``_base.library``), chosen once when it is made: the
requests it builds, the responses it hands on and the errors it raises are
that library's, and restwire's own streams are ones both libraries accept.

Sync and async members come in pairs (``send`` / ``asend``, as httpx has
``read`` / ``aread``); the driver calls the async member, and the generated
sync driver the other.
"""

from __future__ import annotations

import contextlib
import datetime
import http.cookiejar
import logging
import re
import socket
import time
import urllib.request
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from functools import partial
from http import HTTPStatus
from operator import itemgetter
from types import ModuleType
from typing import Any

from .._base import library as _library
from .._base.concurrency import acall, call
from .._base.effects import Progress, Reader, Sink
from .._base.errors import (
    InvalidRequest,
    RequestBodyError,
    TransportError,
    UsageError,
    redact_url,
)
from .._base.http import origin_of
from .._base.library import (
    INVALID_URL,
    REQUEST_ERRORS,
    URL,
    AsyncBaseTransport,
    BaseTransport,
    ByteStreams,
    Cookies,
    DefaultEncoding,
    Headers,
    QueryParams,
    Request,
    Response,
    Timeout,
    host_checked,
    library_of,
)
from .default_transport import own_async_transport
from .fast_transport import WholeBody
from .jar_headers import JarHeaders

__all__ = [
    "LOWER_NAME",
    "Adapter",
    "HeadersSeen",
    "add_cookie_header",
    "build_request",
    "cookie_for",
    "cookie_header",
    "cookie_scope",
    "empty_request",
    "fields_kept",
    "form_bytes",
    "header_problem",
    "merged_headers",
    "own_headers_class",
    "progress_report",
    "redirect_request",
]


#: The response headers a cookie jar reads.
_SET_COOKIE = frozenset({b"set-cookie", b"set-cookie2"})

Client = _library.Client | _library.AsyncClient


class Adapter:
    """A controller's HTTP client, and the way each hop reaches it.

    ``transport``: the transport a hop may be sent on directly, as
    ``client.send`` would send it: the one restwire made ``client`` with,
    or a given client's own when restwire can honour that client exactly
    (``_why_not_direct``); ``None``: every hop goes through
    ``client.send``. A hop that needs the client's auth, or a client with
    event hooks, goes through ``client.send`` whatever ``transport`` is.
    ``library``: the module (httpx or httpx2) ``client`` is of.
    """

    __slots__ = (
        "asynchronous",
        "checked",
        "client",
        "default_encoding",
        "jar_headers",
        "library",
        "logger",
        "own_transport",
        "owned",
        "said_why",
        "transport",
    )

    def __init__(
        self,
        client: Client,
        transport: BaseTransport | AsyncBaseTransport | None = None,
        *,
        owned: bool = False,
        library: ModuleType | None = None,
        own_transport: bool = False,
    ) -> None:
        self.client = client
        self.transport = transport
        #: Whether restwire made the client's transport too (its defaults:
        #: no certificate, nothing added to a request); ``False`` for a
        #: client or a transport the user gave (``_chain.identity``).
        self.own_transport = own_transport
        #: httpx or httpx2: what every request, response and error is of.
        self.library = library = library or library_of(client)
        #: Whether ``client`` is an ``AsyncClient`` (of ``library``).
        self.asynchronous = isinstance(client, library.AsyncClient)
        #: The logger of the library, for its one line per request.
        self.logger = logging.getLogger(library.__name__)
        #: Whether restwire made the client (and so closes it).
        self.owned = owned
        #: The text encoding of a response whose content type names none: the
        #: client's own (a text, or a function of the body).
        self.default_encoding: DefaultEncoding = getattr(
            client, "_default_encoding", "utf-8"
        )
        #: Whether the log line saying why a hop of a given client goes
        #: through ``client.send`` was written (once per controller).
        self.said_why = False
        #: The client's default headers and a call's own as last found fit to
        #: send, and what they were made into (``build_request``).
        self.checked = HeadersSeen()
        #: The ``Cookie`` header the client's jar gives each request, kept
        #: per state of the jar (``build_request``).
        self.jar_headers = jar_headers()

    @classmethod
    def of(
        cls, client: Client | None, transport: Any, *, asynchronous: bool
    ) -> Adapter:
        """The adapter of a controller given ``client`` (used as given) or
        ``transport`` (restwire makes the client on it; neither: on the
        default library's own transport, or for ``AsyncController`` on
        aiohttp's pool when installed, ``_wire.default_transport``). The library is
        the one ``client`` or ``transport`` is of (an httpx2 transport gets
        an httpx2 client); given neither, ``_base.library.DEFAULT``."""
        controller = "AsyncController" if asynchronous else "Controller"
        if client is not None:
            if transport is not None:
                raise UsageError(
                    f"{controller}() takes a client or a transport, not both: "
                    "give the transport to your client instead"
                )
            library = library_of(client)
            kind = library.AsyncClient if asynchronous else library.Client
            if not isinstance(client, kind):
                raise UsageError(_not_a_client(client, asynchronous))
            why = _why_not_direct(client)
            direct = None if why else client._transport  # type: ignore[union-attr]
            adapter = cls(client, direct, library=library)
            if why:
                adapter.say_why(why)
            return adapter
        if transport is not None:  # the user's: its requests may say who calls
            _check_transport(transport, asynchronous)
            library = library_of(transport)
            kind = library.AsyncClient if asynchronous else library.Client
            return cls(
                kind(transport=transport), transport, owned=True, library=library
            )
        library = library_of(None)
        if urllib.request.getproxies():
            # Proxies from the environment (HTTP_PROXY, NO_PROXY, ...) are
            # mounts httpx makes only for a client made without a transport:
            # such a client sends every hop itself, on its own pools.
            _say_proxied(controller, library, asynchronous)
            kind = library.AsyncClient if asynchronous else library.Client
            return cls(kind(), None, owned=True, library=library, own_transport=True)
        own: Any
        made: Client
        if asynchronous:
            own = own_async_transport(library)
            made = library.AsyncClient(transport=own)
        else:
            own = library.HTTPTransport()
            made = library.Client(transport=own)
        return cls(made, own, owned=True, library=library, own_transport=True)

    def _direct(self, with_client_auth: bool) -> Any:
        """The transport to send a hop on directly, or ``None`` for
        ``client.send`` (a client the user gave, or one with hooks or, for
        this hop, auth)."""
        transport = self.transport
        if transport is None:
            return None
        client = self.client
        hooks = client.event_hooks
        if hooks["request"] or hooks["response"]:
            if not self.said_why:
                self.say_why("it has event hooks")
            return None
        if with_client_auth and client.auth is not None:
            if not self.said_why:
                self.say_why("its auth signs the request")
            return None
        if client.is_closed:
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        return transport

    def say_why(self, why: str) -> None:
        """Say, once per controller, why its client's hops go through
        ``client.send`` (httpx's whole client path, slower than its
        transport: docs/performance.md)."""
        self.said_why = True
        logging.getLogger("restwire").info(
            "restwire: %s %s sends through %s.send(), as %s",
            "the controller's" if self.owned else "the given",
            type(self.client).__name__,
            type(self.client).__name__,
            why,
        )

    def send(
        self, request: Request, with_client_auth: bool, store_cookies: bool
    ) -> Response:
        """Send one hop (redirects not followed); the response, body unread."""
        client: Any = self.client  # a Client of self.library, as request is
        transport = self._direct(with_client_auth)
        if transport is None:
            auth = self.library.USE_CLIENT_DEFAULT if with_client_auth else None
            with cookie_scope(client, store_cookies):
                response: Response = client.send(
                    request, stream=True, follow_redirects=False, auth=auth
                )
            return response
        started = time.perf_counter()
        try:
            response = transport.handle_request(request)
        except REQUEST_ERRORS as error:
            error.request = request  # type: ignore[attr-defined]  # as httpx's send does
            raise
        return self._received(request, response, started, store_cookies)

    async def asend(
        self, request: Request, with_client_auth: bool, store_cookies: bool
    ) -> Response:
        """Send one hop (redirects not followed); the response, body unread.
        A pool whose connections belong to an event loop that has closed is
        a :class:`TransportError` that says what to do (a client the user
        gave is theirs: restwire makes no new pool for it)."""
        client: Any = self.client  # an AsyncClient of self.library
        transport = self._direct(with_client_auth)
        try:
            if transport is None:
                auth = self.library.USE_CLIENT_DEFAULT if with_client_auth else None
                with cookie_scope(client, store_cookies):
                    response: Response = await client.send(
                        request, stream=True, follow_redirects=False, auth=auth
                    )
                    return response
            started = time.perf_counter()
            try:
                response = await transport.handle_async_request(request)
            except REQUEST_ERRORS as error:
                error.request = request  # type: ignore[attr-defined]
                raise
        except RuntimeError as error:
            if "loop" not in str(error).lower():
                raise
            raise TransportError(
                request.method, request.url, EventLoopClosed()
            ) from error
        return self._received(request, response, started, store_cookies)

    def _received(
        self,
        request: Request,
        response: Response,
        started: float,
        store_cookies: bool,
    ) -> Response:
        """``response`` as ``client.send(..., stream=True)`` returns it: its
        request set, ``elapsed`` timed to its close, cookies handed to the
        jar (only a response that sets one changes a jar), default encoding
        set, logged as httpx logs (its URL's credential params redacted, as
        in restwire's own lines)."""
        response.request = request
        if response.is_stream_consumed or type(response.stream) is WholeBody:
            # built in memory, or read whole by fast_transport(): complete
            response.elapsed = datetime.timedelta(seconds=time.perf_counter() - started)
        else:
            response.stream = _Timed(response.stream, response, started)
        if store_cookies:
            received = response.headers
            if fields_kept(type(received)):  # (lower-case names kept: in C)
                sets = not _SET_COOKIE.isdisjoint(map(LOWER_NAME, received._list))
            else:
                sets = any(name.lower() in _SET_COOKIE for name, _ in received.raw)
            if sets:  # else the jar would not change
                self.client.cookies.extract_cookies(response)  # type: ignore[arg-type]
        response.default_encoding = self.default_encoding
        logger = self.logger
        if logger.isEnabledFor(logging.INFO):
            logger.info(  # httpx's line, the URL redacted as restwire's own are
                'HTTP Request: %s %s "%s %d %s"',
                request.method,
                redact_url(request.url),
                response.http_version,
                response.status_code,
                response.reason_phrase,
            )
        return response

    # -- reading bodies ------------------------------------------------------------

    @staticmethod
    def load(response: Response, reader: Reader) -> None:
        """Read the whole body, decoded by ``reader``, into ``response.content``."""
        with _Decoding(response, reader):
            try:
                response.read()
            finally:
                response.close()

    @staticmethod
    async def aload(response: Response, reader: Reader) -> None:
        """Read the whole body, decoded by ``reader``, into ``response.content``
        (one already in memory, as ``fast_transport()`` reads a short one,
        without awaiting: less work than httpx's ``aread``, as
        docs/performance.md measures it)."""
        in_memory = type(response.stream) is WholeBody
        with _Decoding(response, reader):
            try:
                if in_memory:
                    response.read()
                else:
                    await response.aread()
            finally:
                await response.aclose()

    @staticmethod
    def read_into(response: Response, sink: Sink, progress: Progress | None) -> None:
        """Feed the raw body to ``sink`` until it ends or the sink stops;
        close the response."""
        chunks = response.iter_raw()
        reported = False
        try:
            for chunk in chunks:
                if not sink.feed(chunk):
                    break
                if progress is not None:
                    call(progress, *progress_report(response))
                    reported = True
            if progress is not None and not reported:
                call(progress, *progress_report(response))
        finally:
            chunks.close()  # type: ignore[attr-defined,union-attr]
            response.close()

    @staticmethod
    async def aread_into(
        response: Response, sink: Sink, progress: Progress | None
    ) -> None:
        """Feed the raw body to ``sink`` until it ends or the sink stops;
        close the response."""
        chunks = response.aiter_raw()
        reported = False
        try:
            async for chunk in chunks:
                if not sink.feed(chunk):
                    break
                if progress is not None:
                    await acall(progress, *progress_report(response))
                    reported = True
            if progress is not None and not reported:
                await acall(progress, *progress_report(response))
        finally:
            await chunks.aclose()  # type: ignore[attr-defined]
            await response.aclose()

    @staticmethod
    def iter_raw(response: Response) -> Generator[bytes, None, None]:
        """The raw body chunk by chunk as it arrives, for a body read while it
        is still coming (an event stream); a failed read is a restwire
        ``TransportError``. Close it, then the response, when done."""
        request = response.request
        if response.is_stream_consumed:  # built in memory: read (and decoded)
            yield response.content
            return
        try:
            yield from response.iter_raw()
        except REQUEST_ERRORS as error:
            raise TransportError(request.method, request.url, error) from error

    @staticmethod
    async def aiter_raw(response: Response) -> AsyncGenerator[bytes, None]:
        """The raw body chunk by chunk as it arrives, for a body read while it
        is still coming (an event stream); a failed read is a restwire
        ``TransportError``. Close it, then the response, when done."""
        request = response.request
        if response.is_stream_consumed:  # built in memory: read (and decoded)
            yield response.content
            return
        chunks = response.aiter_raw()
        try:
            async for chunk in chunks:
                yield chunk
        except REQUEST_ERRORS as error:
            raise TransportError(request.method, request.url, error) from error
        finally:
            await chunks.aclose()  # type: ignore[attr-defined]

    @staticmethod
    def interrupt(response: Response) -> None:
        """End at once a read of ``response`` blocked in another thread: its
        socket (httpcore's ``network_stream`` extension) is shut down, so the
        read returns; the reader then closes the response. Without such a
        socket (another transport), the read ends when data or its timeout
        comes."""
        stream = response.extensions.get("network_stream")
        sock = None if stream is None else stream.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    @staticmethod
    def close(response: Response) -> None:
        response.close()

    @staticmethod
    async def aclose(response: Response) -> None:
        await response.aclose()


class EventLoopClosed(RuntimeError):
    """What a pool of a closed event loop is, said with what to do."""

    def __str__(self) -> str:
        return (
            "the client's connections belong to an event loop that has closed; "
            "make the client (and its controller) in the event loop that uses "
            "it, or let AsyncController() make its own"
        )


#: Whether the one line saying a controller sends through proxies was logged.
_SAID_PROXIED = False


def _why_not_direct(client: Client) -> str | None:
    """Why a hop of the user's ``client`` cannot be sent on its transport
    directly, as ``client.send`` would send it; ``None``: it can. restwire
    builds the request from the client's headers, cookies, params, base URL
    and timeout, and does what ``client.send`` does after the transport
    answers (``Adapter._received``). What it cannot honour is a client
    that picks a transport by URL (mounts, as proxies from the environment
    are), and, per hop, event hooks and auth (``Adapter._direct``). Read
    from httpx's private ``_transport``, ``_mounts`` and
    ``_default_encoding`` (httpx2 keeps the same): one missing, the client
    takes ``client.send``."""
    mounts = getattr(client, "_mounts", None)
    if mounts is None or not hasattr(client, "_transport"):
        return "its library keeps its transport where restwire cannot see it"
    if not hasattr(client, "_default_encoding"):
        return "its library keeps its default encoding where restwire cannot see it"
    if mounts:
        return "it picks a transport by URL (mounts, or proxies from the environment)"
    return None


def _say_proxied(controller: str, library: ModuleType, asynchronous: bool) -> None:
    """Say once that the controllers of this process send through the
    environment's proxies, and on which pool."""
    global _SAID_PROXIED
    if _SAID_PROXIED:
        return
    _SAID_PROXIED = True
    pool = (
        f"{library.__name__}'s own pool (aiohttp's pool cannot use them)"
        if asynchronous
        else f"{library.__name__}'s own pool"
    )
    logging.getLogger("restwire").info(
        "restwire: the environment names proxies (HTTP_PROXY, HTTPS_PROXY, "
        "ALL_PROXY, NO_PROXY): %s sends through them, on %s",
        controller,
        pool,
    )


def progress_report(response: Response) -> tuple[int, int | None]:
    """Bytes of ``response`` received so far and, if the server said, how
    many in all."""
    length = response.headers.get("content-length")
    total = int(length) if length and length.isdigit() else None
    return response.num_bytes_downloaded, total


class _Timed(ByteStreams):
    """A response's stream that sets ``response.elapsed`` when it closes,
    as a client's own send does (the response held weakly: no cycle)."""

    __slots__ = ("_inner", "_response", "_started")

    def __init__(self, inner: Any, response: Response, started: float) -> None:
        self._inner = inner
        self._response = weakref.ref(response)
        self._started = started

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._inner)  # (the inner stream's own: no layer added)

    def __aiter__(self) -> AsyncIterator[bytes]:
        return aiter(self._inner)

    def _timed(self) -> None:
        response = self._response()
        if response is not None:
            elapsed = time.perf_counter() - self._started
            response.elapsed = datetime.timedelta(seconds=elapsed)

    def close(self) -> None:
        self._timed()
        self._inner.close()

    async def aclose(self) -> None:
        self._timed()
        await self._inner.aclose()


class _Decoded(ByteStreams):
    """A response's stream as ``reader`` decodes it."""

    __slots__ = ("_inner", "_reader")

    def __init__(self, inner: Any, reader: Reader) -> None:
        self._inner = inner
        self._reader = reader

    def __iter__(self) -> Iterator[bytes]:
        reader = self._reader
        for chunk in self._inner:
            yield from reader.pieces(chunk)
        yield from reader.rest()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        reader = self._reader
        async for chunk in self._inner:
            for piece in reader.pieces(chunk):
                yield piece
        for piece in reader.rest():
            yield piece

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Decoding:
    """Within it, ``response`` reads through ``reader``: its stream decoded
    by restwire, and, when there is a coding to undo, its
    ``Content-Encoding`` hidden so httpx does not undo it a second time."""

    __slots__ = ("_reader", "_response", "_saved")

    def __init__(self, response: Response, reader: Reader) -> None:
        self._response = response
        self._reader = reader
        self._saved: Headers | None = None

    def __enter__(self) -> None:
        response = self._response
        response.stream = _Decoded(response.stream, self._reader)
        if not self._reader.identity:
            self._saved = headers = response.headers
            response.headers = type(headers)(
                [(n, v) for n, v in headers.raw if n.lower() != b"content-encoding"]
            )

    def __exit__(self, *exc: object) -> None:
        if self._saved is not None:
            self._response.headers = self._saved


# -- requests ------------------------------------------------------------------------

#: The body of every bodiless request, per library: a stream of no bytes,
#: which both kinds of client read, and which nothing changes (shared, as an
#: immutable value).
_EMPTY = {library: library.ByteStream(b"") for library in _library.LIBRARIES}
#: The methods httpx gives ``Content-Length: 0`` when they carry no body.
_EMPTY_BODY_LENGTH = frozenset({"POST", "PUT", "PATCH"})
_LENGTH_NAMES = frozenset({b"content-length", b"transfer-encoding"})


def merged_headers(
    client: list[tuple[bytes, bytes]], own: list[tuple[bytes, bytes]]
) -> tuple[list[tuple[bytes, bytes]], set[bytes]]:
    """One header list, as ``Headers.update`` orders it: the ``client``'s
    headers the call does not set (its own repeats kept), then the call's
    (``own``); and the lower-case names of them all."""
    names = {name.lower() for name, _ in own}
    items = []
    kept = []
    for name, value in client:
        lowered = name.lower()
        if lowered not in names:
            items.append((name, value))
            kept.append(lowered)
    items.extend(own)
    names.update(kept)
    return items, names


#: Header fields as ``Headers`` keeps them: (name, lower-case name, value).
Fields = list[tuple[bytes, bytes, bytes]]


def as_fields(items: list[tuple[bytes, bytes]]) -> Fields:
    """Raw header ``items`` (normalized bytes, as ``Headers.raw`` gives
    them) as ``Headers`` keeps them: each with its lower-case name."""
    return [(name, name.lower(), value) for name, value in items]


#: Headers class -> (the class, whether it keeps its fields as httpx does:
#: ``fields_kept``); the class is kept to be compared by identity.
_FIELDS_KEPT: dict[type, tuple[type, bool]] = {}
#: A kept field's lower-case name (of headers :func:`fields_kept` vouches for).
LOWER_NAME = itemgetter(1)
#: The headers classes whose fields restwire may read and set itself: the
#: libraries' own, and those restwire makes of them (``own_headers_class``).
#: Any other (a subclass of yours, which may do more when a header is set)
#: is read and set the public way, and never probed.
_OWN_HEADERS: list[type] = [library.Headers for library in _library.LIBRARIES]


def own_headers_class(headers_class: type) -> None:
    """Let :func:`fields_kept` consider ``headers_class``, a class restwire
    made of a library's ``Headers`` that sets a field as the library does
    (``_chain.exchange.call_headers``)."""
    if not _is_own(headers_class):
        _OWN_HEADERS.append(headers_class)


def _is_own(headers_class: type) -> bool:
    """Whether ``headers_class`` is one of :data:`_OWN_HEADERS` (by
    identity: a metaclass's ``==`` could say otherwise)."""
    return any(headers_class is own for own in _OWN_HEADERS)


def fields_kept(headers_class: type) -> bool:
    """Whether headers of ``headers_class`` keep their fields as httpx and
    httpx2 do, so that what they keep may be read in place of ``raw``: a
    list ``_list`` of (name, lower-case name, value) bytes, whose equal
    contents mean equal raw headers, and to which a new name set is one
    field appended. Only a library's own class, or one restwire made of
    it, and only once a sample of it, checked once, says so; any other
    class is read, and set, the public way."""
    known = _FIELDS_KEPT.get(headers_class)
    if known is not None and known[0] is headers_class:
        return known[1]
    kept = _is_own(headers_class) and _keeps_fields(headers_class)
    if len(_FIELDS_KEPT) < 256:  # a bound: classes are few
        _FIELDS_KEPT[headers_class] = (headers_class, kept)
    return kept


def _keeps_fields(headers_class: type) -> bool:
    """:func:`fields_kept`, worked out on a sample of ``headers_class``."""
    try:
        sample = [
            (b"Accept", b"*/*"),
            (b"X-A", b"1"),
            (b"x-a", b"2"),
            (b"Set-Cookie", b"a"),
        ]
        headers = headers_class(sample)
        fields = headers._list
        raw = headers.raw
        # a new name set the public way is one field appended (what
        # ``Exchange.set_credential`` does itself)
        public, direct = headers_class(sample), headers_class(sample)
        public["X-New"] = "1"
        direct._list.append((b"X-New", b"x-new", b"1"))
        return (
            type(fields) is list
            and all(type(field) is tuple and len(field) == 3 for field in fields)
            and raw == _raw_items(fields)
            and [lower for _, lower, _ in fields] == [name.lower() for name, _ in raw]
            and public._list == direct._list
            and public.raw == direct.raw
        )
    except Exception:  # not kept as expected: read the public way
        return False


def _raw_items(fields: list[Any]) -> list[tuple[bytes, bytes]]:
    """``Headers.raw`` of headers whose ``fields`` are these (kept as
    :func:`fields_kept` says)."""
    return [(name, value) for name, _, value in fields]


class HeadersSeen:
    """A client's default headers and a call's own as :func:`build_request`
    last found them fit to send, with what it made of them (merged, their
    names, their fields): the same headers call after call are checked,
    merged and lowered once. Kept as one tuple, replaced whole, so that
    threads sharing it each read one consistent whole."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        #: (the client's headers and the call's as compared, each a list
        #: of its own: copies of their fields where :func:`fields_kept`,
        #: else their raw items; merged, their lower-case names, the merged
        #: fields), or ``None`` before the first call.
        self.last: (
            tuple[
                list[Any],
                list[Any],
                list[tuple[bytes, bytes]],
                set[bytes],
                Fields,
            ]
            | None
        ) = None


def build_request(
    client: Client,
    method: str,
    url: URL,
    headers: Headers,
    timeout: Timeout | None,
    arguments: dict[str, Any],
    library: ModuleType | None = None,
    checked: HeadersSeen | None = None,
    jar_headers: JarHeaders | None = None,
    client_params: bool = True,
) -> Request:
    """The request ``client.build_request`` would make for the absolute
    ``url`` (the client's default params merged in, unless
    ``client_params`` is false): the client's headers the call does not
    set, then the call's, the auto headers (``Host``; ``Content-Length``
    for a body, or ``0`` for the methods that take one), the jar's
    ``Cookie``, the timeout. A header
    field HTTP/1.1 cannot carry is an :class:`InvalidRequest`; ``checked``
    holds the client's headers and the last call's own as last found good
    (each is checked again only when it differs: the same headers call
    after call are checked once). ``jar_headers`` answers the jar's
    ``Cookie`` for a request that sets none, from what it kept of the jar's
    present state (``_wire.jar_headers``).

    Built from the headers' raw items, normalized once by ``httpx.Headers``
    (its string operations would make each new ``Headers`` work out its
    encoding first, at a cost docs/performance.md gives).

    ``url``, ``headers`` and ``timeout`` are of ``client``'s library
    (``library``, when the caller knows it)."""
    if library is None:
        library = library_of(client)
    if client_params and client.params:
        url = with_client_params(url, client.params, library)
    extensions = {"timeout": (client.timeout if timeout is None else timeout).as_dict()}
    jar = client.cookies.jar
    client_headers = client.headers
    # (compared with the last call's as they are: the fields they keep,
    # where they keep them as httpx does, else their raw items, in one C
    # comparison each; when they differ, one copy of each is compared
    # again, merged and kept alike: another thread may change the
    # client's headers meanwhile, and a header set on either later is not
    # in what was made of them)
    default_key: Any
    own_key: Any
    kept = fields_kept(type(client_headers)) and fields_kept(type(headers))
    if kept:
        default_key, own_key = client_headers._list, headers._list
    else:
        default_key, own_key = client_headers.raw, headers.raw
    last = None if checked is None else checked.last
    same_own = last is not None and own_key == last[1]
    same_defaults = last is not None and default_key == last[0]
    if last is not None and same_own and same_defaults:
        items, names, fields = last[2], last[3], last[4]
    else:
        defaults: list[tuple[bytes, bytes]]
        own: list[tuple[bytes, bytes]]
        if kept:
            default_key, own_key = list(default_key), list(own_key)
            same_own = last is not None and own_key == last[1]
            same_defaults = last is not None and default_key == last[0]
            defaults, own = _raw_items(default_key), _raw_items(own_key)
        else:
            defaults, own = default_key, own_key
        if not same_own:
            _refuse_what_http_cannot_carry(method, url, own)
        if defaults and not same_defaults:
            _refuse_what_http_cannot_carry(method, url, defaults)
        items, names = merged_headers(defaults, own)
        fields = as_fields(items)
        if checked is not None:
            checked.last = (default_key, own_key, items, names, fields)
    if arguments:
        # The jar itself: httpx wraps a CookieJar without copying it, adds
        # its Cookie before the body's headers, and skips an empty one.
        with_body: Request = library.Request(
            method, url, headers=items, cookies=jar, extensions=extensions, **arguments
        )
        return with_body
    # Without a body, Request would normalize every header twice more
    # (its _prepare); given a stream, it takes the headers as they are, so
    # the auto headers go in front here, as it orders them.
    auto: Fields = []
    if b"host" not in names and url.host:
        auto.append((b"Host", b"host", url.netloc))
    method = method.upper()
    if method in _EMPTY_BODY_LENGTH and names.isdisjoint(_LENGTH_NAMES):
        auto.append((b"Content-Length", b"content-length", b"0"))
    request = empty_request(library, method, url, auto + fields, extensions)
    if (
        jar_headers is not None
        and type(jar) is http.cookiejar.CookieJar
        and names.isdisjoint(_JAR_SET)
    ):
        if jar._cookies:  # type: ignore[attr-defined]  # (else no domain: nothing)
            asked = partial(_asked, jar, method, url, request)
            cookie = jar_headers.cookie(jar, url, asked)
            if cookie is not None:
                request.headers["Cookie"] = cookie
    elif len(jar):
        add_cookie_header(jar, request)
    return request


#: library -> whether :func:`empty_request` makes its requests directly
#: (absent until its first use; ``False`` if the check found them unlike).
_DIRECT_REQUESTS: dict[ModuleType, bool] = {}


def empty_request(
    library: ModuleType,
    method: str,
    url: URL,
    fields: Fields,
    extensions: dict[str, Any],
) -> Request:
    """``library.Request(method, url, headers=<fields' names and values>,
    stream=<no bytes>, extensions=extensions)``, read: ``method``
    upper-case, ``fields`` as ``Headers`` keeps them (raw name, lower-case
    name, value: bytes, normalized already).

    Made directly, for less: ``Request.__init__`` would normalize each
    header again, one Python call each (timeit, eight headers: 2.7 us
    against 1.0).
    The attributes set are the library's private ones (``Headers._list``,
    ``Request._content``: httpx and httpx2 share them), so the way is
    checked at a library's first use, against the public way on a sample;
    a library whose requests come out otherwise gets the public way from
    then on (as ``shortcuts`` does for URLs and bodies)."""
    allowed = _DIRECT_REQUESTS.get(library)
    if allowed is None:
        allowed = _DIRECT_REQUESTS[library] = _direct_requests_agree(library)
    if allowed and type(url) is library.URL:
        # (a URL of another library, which a middleware may set, goes the
        # public way: refused there as it always was)
        direct: Request = _direct_request(library, method, url, fields, extensions)
        return direct
    public: Request = library.Request(
        method,
        url,
        headers=_raw_items(fields),
        stream=_EMPTY[library],
        extensions=extensions,
    )
    public.read()
    return public


def _direct_request(
    library: ModuleType,
    method: str,
    url: URL,
    fields: Fields,
    extensions: dict[str, Any],
) -> Any:
    """The request :func:`empty_request` makes, its attributes set as
    ``Request.__init__`` and ``read()`` set them (the one way both the
    shortcut and its check make it)."""
    request = library.Request.__new__(library.Request)
    request.method = method
    own_url = library.URL.__new__(library.URL)  # (a URL of its own, as URL(url))
    own_url._uri_reference = url._uri_reference
    request.url = own_url
    headers = library.Headers.__new__(library.Headers)
    headers._list = list(fields)  # (its own: a header set later is its alone)
    headers._encoding = None
    request.headers = headers
    request.extensions = dict(extensions)
    request.stream = _EMPTY[library]
    request._content = b""
    return request


def _direct_requests_agree(library: ModuleType) -> bool:
    """Whether requests :func:`_direct_request` makes are the ones
    ``library`` makes the public way: every attribute, of the request and
    of its URL and headers, alike on a sample."""
    try:
        url = library.URL("https://example.com:8443/a/b?q=1")
        headers = [
            (b"Host", b"example.com:8443"),
            (b"Accept", b"*/*"),
            (b"X-Thing", b"\xe9t\xe9"),
            (b"accept", b"application/json"),
        ]
        fields = as_fields(headers)
        extensions = {"timeout": {"connect": 5.0}}
        public = library.Request(
            "GET", url, headers=headers, stream=_EMPTY[library], extensions=extensions
        )
        public.read()
        direct = _direct_request(library, "GET", url, fields, extensions)
        return bool(
            type(direct) is type(public)
            and vars(direct).keys() == vars(public).keys()
            and direct.method == public.method
            and type(direct.url) is type(public.url)
            and vars(direct.url).keys() == vars(public.url).keys()
            and direct.url._uri_reference == public.url._uri_reference
            and direct.url is not url
            and type(direct.headers) is type(public.headers)
            and vars(direct.headers) == vars(public.headers)
            and direct.extensions == public.extensions
            and direct.extensions is not extensions
            and direct.stream is public.stream
            and direct.read() == public.read() == b""
            and direct.headers.encoding == public.headers.encoding
            and list(direct.headers.multi_items()) == list(public.headers.multi_items())
        )
    except Exception:  # internals not as expected: the public way only
        return False


def _refuse_what_http_cannot_carry(
    method: str, url: URL, fields: list[tuple[bytes, bytes]]
) -> None:
    """An :class:`InvalidRequest` for a header field HTTP/1.1 cannot carry,
    before any path sends it (one path's writer would refuse it, another's
    send it)."""
    problem = header_problem(fields)
    if problem is not None:
        raise InvalidRequest(f"{method} {redact_url(url)}: {problem}; not sent")


def form_bytes(data: dict[str, Any], files: Any) -> tuple[bytes, str]:
    """A form as httpx sends it (urlencoded, or multipart with ``files``):
    its bytes and its content type."""
    request = _library.DEFAULT.Request(
        "POST", "http://form.invalid/", data=data, files=files
    )
    return request.read(), request.headers["content-type"]


# -- header fields: what HTTP/1.1 can carry -------------------------------------

#: A field name: a token (RFC 9110, 5.1).
_FIELD_NAME = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: A field value: visible characters (and obs-text), spaces and tabs only
#: between them (RFC 9110, 5.5), as httpx's HTTP/1.1 writer (h11) checks it.
_FIELD_VALUE = re.compile(
    rb"(?:[\x21-\x7e\x80-\xff]+(?:[ \t]+[\x21-\x7e\x80-\xff]+)*)?"
)


def header_problem(fields: Iterable[tuple[bytes, bytes]]) -> str | None:
    """What is wrong with the first of ``fields`` (raw name and value) that
    HTTP/1.1 cannot carry, naming the field, never showing its value; or
    ``None`` when every one is fine."""
    is_name, is_value = _FIELD_NAME.fullmatch, _FIELD_VALUE.fullmatch
    for name, value in fields:
        if not is_name(name):
            shown = name.decode("latin-1")[:60]
            return (
                f"the header name {shown!r} is not one HTTP can carry (a token: "
                "letters, digits and !#$%&'*+-.^_`|~, no spaces or colons)"
            )
        if not is_value(value):
            return (
                f"the value of the header {name.decode('latin-1')!r} is not one "
                "HTTP can carry (text without line breaks or other control "
                "characters, nor spaces at its ends)"
            )
    return None


# -- redirects -------------------------------------------------------------------------

_BODY_HEADERS = ("content-length", "content-type", "transfer-encoding")


def _redirect_method(request: Request, status: int) -> str:
    method = request.method
    if status == HTTPStatus.SEE_OTHER and method != "HEAD":
        return "GET"
    if status == HTTPStatus.FOUND and method != "HEAD":
        return "GET"
    if status == HTTPStatus.MOVED_PERMANENTLY and method == "POST":
        return "GET"
    return method


def with_client_params(url: URL, params: QueryParams, library: ModuleType) -> URL:
    """``url`` with each of the client's default ``params`` whose name its
    query does not hold added after it: the call's own params, as the URL
    carries them, win, and none is lost. (httpx's and httpx2's
    ``build_request`` put the client's params in place of the URL's whole
    query: a call's ``?page=2`` was dropped.)"""
    own = url.params
    added = [(name, value) for name, value in params.multi_items() if name not in own]
    if not added:
        return url
    more = str(library.QueryParams(added)).encode("ascii")
    query = url.query
    with_params: URL = url.copy_with(query=query + b"&" + more if query else more)
    return with_params


def _location(request: Request, response: Response) -> URL:
    location = response.headers["location"]
    try:
        url = host_checked(request.url.join(location))
    except INVALID_URL as error:
        # The server broke the protocol: the error httpx's own redirect
        # handling raises, so the call ends the same whichever way it was sent.
        cause = library_of(request).RemoteProtocolError(
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


def redirect_request(request: Request, response: Response) -> Request:
    """The request that follows ``response``'s redirect, built as browsers and
    httpx build it (303 becomes GET except for HEAD, 301 and 302 turn a POST
    into a GET, 307 and 308 keep method and body), its ``Cookie`` header
    dropped to be worked out again for the new URL. Which other credentials
    it carries is the credential policy's to decide (``_controller.sender``).

    A ``Location`` that is not an http(s) URL is an error, never followed.
    A 307 or 308 after a one-shot (iterator) body cannot send it again: a
    ``RequestBodyError``, raised before anything reaches the next URL.
    """
    method = _redirect_method(request, response.status_code)
    url = _location(request, response)
    headers = type(request.headers)(request.headers)
    if origin_of(url) != origin_of(request.url):  # a Host set stays with its origin
        headers["host"] = url.netloc.decode("ascii")
    headers.pop("cookie", None)
    stream: Any = request.stream
    if method != request.method and method == "GET":
        stream = None
        for name in _BODY_HEADERS:
            headers.pop(name, None)
    elif stream is not None and not isinstance(stream, library_of(request).ByteStream):
        # an iterator, read once by the last hop: refused before anything
        # reaches the next URL (httpx would raise once the head had gone)
        raise RequestBodyError(
            f"{request.method} {redact_url(request.url)}: a redirect asked for "
            "the body again, but it was a one-shot iterator; send bytes to "
            "allow it"
        )
    following: Request = type(request)(
        method,
        url,  # type: ignore[arg-type]
        headers=headers,
        stream=stream,
        extensions=request.extensions,
    )
    return following


# -- cookies -------------------------------------------------------------------------

#: The request headers ``CookieJar.add_cookie_header`` reads, as ``urllib``
#: spells them.
_JAR_READS = (("host", "Host"), ("cookie", "Cookie"), ("cookie2", "Cookie2"))


class _JarRequest(urllib.request.Request):
    """``request`` as ``http.cookiejar`` reads it: its URL, method, and the
    headers the jar's policy consults; the ``Cookie`` header the jar adds
    goes onto ``request``. (httpx's own wrapper copies every header into a
    dict first, each by a look-up that scans the list.)"""

    def __init__(self, request: Request) -> None:
        super().__init__(**_jar_reads(request))
        self.request = request

    def add_unredirected_header(self, key: str, val: str) -> None:
        super().add_unredirected_header(key, val)
        self.request.headers[key] = val


def cookie_header(
    jar: http.cookiejar.CookieJar,
    method: str,
    url: URL,
    jar_headers: JarHeaders | None = None,
) -> bytes | None:
    """The ``Cookie`` header ``jar`` adds to a ``method`` request to ``url``
    that sets neither ``Host`` nor ``Cookie`` itself (as :func:`build_request`
    adds it), or ``None``; from what ``jar_headers`` kept of the jar's
    present state, when given."""
    ask = partial(_asked, jar, method, url)
    value = ask() if jar_headers is None else jar_headers.cookie(jar, url, ask)
    return None if value is None else value.encode("utf-8")


def jar_headers() -> JarHeaders:
    """A new memory of the ``Cookie`` header a client's jar gives each
    request (``_wire.jar_headers``), which sees through the policy wrapper
    restwire installs."""
    return JarHeaders(_inner_policy)


#: The headers that, set by a call, change what a jar adds.
_JAR_SET = frozenset({b"cookie", b"cookie2"})


def _jar_reads(request: Request) -> dict[str, Any]:
    """What ``http.cookiejar`` reads of ``request``, as a urllib request's
    arguments: its URL, its method, and the headers the jar's policy
    consults."""
    headers = request.headers
    return {
        "url": str(request.url),
        "headers": {
            spelt: headers[name] for name, spelt in _JAR_READS if name in headers
        },
        "method": request.method,
    }


def _asked(
    jar: http.cookiejar.CookieJar, method: str, url: URL, request: Request | None = None
) -> str | None:
    """The ``Cookie`` header ``jar`` itself adds to a ``method`` request to
    ``url`` (``request``, when there is one: what the jar reads of it,
    :func:`_jar_reads`), without touching any request."""
    reads = (
        {"url": str(url), "method": method} if request is None else _jar_reads(request)
    )
    asking = urllib.request.Request(**reads)
    jar.add_cookie_header(asking)
    value: str | None = asking.get_header("Cookie")
    return value


def add_cookie_header(jar: http.cookiejar.CookieJar, request: Request) -> None:
    """Add the ``Cookie`` header ``jar`` holds for ``request``, exactly as
    ``Cookies(jar).set_cookie_header(request)`` does."""
    jar.add_cookie_header(_JarRequest(request))


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


def cookie_for(cookies: Cookies, name: str, url: URL) -> str | None:
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


# A client stores every Set-Cookie of every response it receives. A hop that
# may not store cookies (credentials "omit", or past a redirect to another
# origin) is sent with this variable off, and the jar's policy, wrapped once
# by one that asks it, refuses the cookie. Code using the same client outside
# restwire runs with it on and sees no change.
_storing_allowed: ContextVar[bool] = ContextVar(
    "restwire_storing_cookies", default=True
)


class _ScopedPolicy(http.cookiejar.CookiePolicy):
    """A cookie policy that defers to the jar's own, unless storing is off.

    Each method of a policy is defined here, on the class (httpx2's jar looks
    ``domain_return_ok`` up on the policy's type); every other attribute is
    the inner policy's."""

    def __init__(self, inner: http.cookiejar.CookiePolicy) -> None:
        self.__dict__["_inner"] = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def __setattr__(self, name: str, value: Any) -> None:
        # CookieJar writes the current time onto its policy (``_now``).
        setattr(self._inner, name, value)

    def set_ok(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
        return _storing_allowed.get() and bool(self._inner.set_ok(cookie, request))

    def return_ok(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
        return bool(self._inner.return_ok(cookie, request))

    def domain_return_ok(self, domain: str, request: Any) -> bool:
        return bool(self._inner.domain_return_ok(domain, request))

    def path_return_ok(self, path: str, request: Any) -> bool:
        return bool(self._inner.path_return_ok(path, request))


def _inner_policy(policy: Any) -> Any:
    """The policy ``policy`` stands for: the jar's own, under the wrapper
    restwire installs."""
    if type(policy) is _ScopedPolicy:
        return vars(policy)["_inner"]
    return policy


def _install(jar: http.cookiejar.CookieJar) -> None:
    # The jar's policy is the standard library's ``CookieJar._policy`` (it
    # has no getter): read once, to defer to it.
    current = getattr(jar, "_policy", None)
    if isinstance(current, _ScopedPolicy):
        return
    inner = current if current is not None else http.cookiejar.DefaultCookiePolicy()
    jar.set_policy(_ScopedPolicy(inner))


class _Refusing:
    """The scope of a hop that may not store cookies."""

    __slots__ = ("_token",)

    def __init__(self, client: Client) -> None:
        _install(client.cookies.jar)

    def __enter__(self) -> None:
        self._token = _storing_allowed.set(False)

    def __exit__(self, *exc: object) -> None:
        _storing_allowed.reset(self._token)


_STORING = nullcontext()


def cookie_scope(client: Client, store: bool) -> AbstractContextManager[None]:
    """The scope to send a hop in: the client's jar keeps the cookies the
    response sets only if ``store``. Storing is what the jar does anyway, so
    that scope does nothing, and costs nothing on the usual path."""
    return _STORING if store else _Refusing(client)


# -- what a controller is given ---------------------------------------------------


def _kind_name(thing: object) -> str:
    kind = type(thing)
    return f"{kind.__module__}.{kind.__qualname__}"


def _not_a_client(thing: object, asynchronous: bool) -> str:
    """Why ``thing`` cannot be a controller's client, and what to give
    instead: the other controller for a client of the other kind, the
    ``transport=`` keyword for a transport, an httpx client for anything
    else (a URL, a ``requests.Session``)."""
    controller, other = (
        ("AsyncController", "Controller")
        if asynchronous
        else ("Controller", "AsyncController")
    )
    wanted = "AsyncClient" if asynchronous else "Client"
    accepted = (
        f"{controller} takes an httpx.{wanted} (or an httpx2.{wanted}), "
        f"or none (it makes one)"
    )
    given = _kind_name(thing)
    libraries = _library.LIBRARIES
    clients = tuple(lib.Client for lib in libraries) + tuple(
        lib.AsyncClient for lib in libraries
    )
    if isinstance(thing, clients):
        return f"{accepted}, not {given}; for that client use {other}"
    transports = tuple(
        getattr(lib, name)
        for lib in libraries
        for name in ("BaseTransport", "AsyncBaseTransport")
    )
    if isinstance(thing, transports):
        return (
            f"{accepted}, not {given}, which is a transport: "
            f"write {controller}(transport=...)"
        )
    if isinstance(thing, str | bytes):
        return (
            f"{accepted}, not {given} {thing!r}: a URL goes in "
            "RestEndpoint(url_prefix=...) or httpx.Client(base_url=...)"
        )
    return (
        f"{accepted}, not {given}: restwire sends with httpx or httpx2 only; "
        f"make an httpx.{wanted} with the settings you need"
    )


def _check_transport(transport: object, asynchronous: bool) -> None:
    """A ``TypeError`` if ``transport`` cannot serve the controller: one of
    the other kind (a sync transport under ``AsyncController``), or no
    transport at all. A transport written without httpx's base classes is
    taken if it has the method the controller calls."""
    controller = "AsyncController" if asynchronous else "Controller"
    method = "handle_async_request" if asynchronous else "handle_request"
    if callable(getattr(transport, method, None)):
        return
    wanted = "AsyncBaseTransport" if asynchronous else "BaseTransport"
    example = (
        "httpx.AsyncHTTPTransport(), httpx.MockTransport(handler)"
        if asynchronous
        else "httpx.HTTPTransport(), httpx.MockTransport(handler)"
    )
    other_method = "handle_request" if asynchronous else "handle_async_request"
    other = "Controller" if asynchronous else "AsyncController"
    hint = (
        f"; for that transport use {other}"
        if callable(getattr(transport, other_method, None))
        else ""
    )
    raise UsageError(
        f"{controller}(transport=...) takes an httpx.{wanted} (or an httpx2 "
        f"one: {example}), not {_kind_name(transport)}{hint}"
    )
