"""``fast_transport()``: aiohttp's connection pool under an httpx client.

httpx's own async pool (httpcore) slows down as calls queue for its
connections (encode/httpx#3215; the figures: docs/performance.md).
aiohttp's pool does not. ``fast_transport()`` is an
``httpx.AsyncBaseTransport`` that sends each request with an aiohttp
session, made the way restwire needs it:

- **No cookie jar of its own.** aiohttp's session keeps the cookies every
  response sets and sends them on every later request, whoever makes it:
  one caller's session cookie would reach another's requests, past the
  identity rule. The session here has aiohttp's ``DummyCookieJar``; the
  httpx client's jar (which restwire reads and keys by) stays the only one.
- **Bodies as sent**: no decompression by aiohttp (restwire decodes, within
  ``max_body_size``), no redirect followed by aiohttp (restwire's hops do).
- **Requests as httpx sends them**: the method, the path and query as the
  httpx URL encodes them, its headers in its order (aiohttp adds none of its
  defaults the request does not carry), its body with httpx's framing (a
  bodiless request carries no ``Content-Length`` that httpx would not send,
  and an in-memory body is never chunked). aiohttp writes header text as
  UTF-8 (a value that is not UTF-8 goes as its Latin-1, re-encoded).
- **No request on a dead connection**: a pooled connection the server has
  closed (its socket readable before anything is sent on it, as httpcore
  checks) is closed and another one taken, for every method. aiohttp's own
  resending of an idempotent request whose connection drops is turned off
  (the one switch of aiohttp's that is not public, checked where it is
  set): restwire's sender does that, once, on every path alike.
- **The limits httpx takes**: ``max_connections`` is aiohttp's ``limit``,
  ``keepalive_expiry`` its ``keepalive_timeout``; TLS is httpx's
  ``create_ssl_context(verify=...)``; a request's ``connect``, ``read`` and
  ``pool`` timeouts are aiohttp's ``sock_connect``, ``sock_read`` and
  ``connect``, and its ``write`` timeout bounds each piece of a body larger
  than :data:`WHOLE_BODY` (or streamed) the connection takes. A response's
  header lines may be as long as httpx takes them (100 KiB), its header
  block longer (:data:`MOST_HEAD`; httpx's depends on how the head arrives,
  164 KiB at most), and past that it is refused as httpx refuses it.
- **One event loop at a time**: a session belongs to the loop it was made
  in; a request from another loop (a program that runs ``asyncio.run``
  twice) gets a session of its own.
- **httpx's errors**, with the request attached: ``ConnectError``,
  ``ConnectTimeout``, ``PoolTimeout``, ``ReadTimeout``, ``ReadError`` (a
  body cut short), ``RemoteProtocolError`` (no response, or not HTTP),
  ``UnsupportedProtocol``, ``LocalProtocolError`` (a header it refuses).
  Their text never holds the URL (aiohttp's does, query and all).

A response body that says it is at most :data:`WHOLE_BODY` bytes long is
read whole before the response is handed over (its connection back in the
pool at once); a longer one, or one of unknown length, comes in chunks as
it arrives. Either way the connection is released however the read ends:
finished, failed, closed early or cancelled.

An ``AsyncController`` that makes its own client sends on it whenever
aiohttp is installed (``pip install "restwire[fast]"``), falling back to
httpx's own transport call by call under trio or a mock of httpx's
transport (``_wire.default_transport``). Give it to your own client
(``httpx.AsyncClient(transport=fast_transport())``) for the same speed.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import select
import ssl
import weakref
from collections.abc import AsyncIterator, Iterator
from itertools import chain
from types import ModuleType
from typing import Any

from .._base import library as _library
from .._base.errors import SettingError, UsageError, require
from .._base.library import ByteStreams
from .library_pool import PerLoop, closed_with_loop

__all__ = ["WHOLE_BODY", "WholeBody", "fast_transport"]

#: A response body whose ``Content-Length`` is at most this many bytes (as
#: sent, before any decoding) is read whole by the transport.
WHOLE_BODY = 64 * 1024

#: The headers aiohttp adds to a request that lacks them (its defaults): a
#: request without them is sent without them, as httpx sends it.
_AUTO_HEADERS = (
    ("Accept", b"accept"),
    ("Accept-Encoding", b"accept-encoding"),
    ("User-Agent", b"user-agent"),
)
#: The methods aiohttp gives a default ``Content-Type`` when they carry none,
#: and the ones httpx gives ``Content-Length: 0`` when they carry no body.
_TYPED_METHODS = frozenset({"POST", "PUT", "PATCH"})
#: A response's whole header block, at most. httpx's h11 refuses a head still
#: incomplete past 100 KiB, so, read 64 KiB at a time, it takes one of up to
#: 164 KiB at most; this is more, never less.
MOST_HEAD = 256 * 1024
#: Each header line, and how many header fields, aiohttp reads at most: a
#: line as long as httpx takes, fields many times more than real servers send.
_MOST_LINE = 100 * 1024
_MOST_FIELDS = 1024
#: How many pooled connections one request may find closed before it opens
#: its own (each found closed is closed for good).
_MOST_STALE = 64
#: Distinct timeouts kept as aiohttp ``ClientTimeout`` objects.
_TIMEOUTS_KEPT = 64


def fast_transport(
    *,
    max_connections: int | None = 100,
    keepalive_expiry: float | None = 5.0,
    verify: ssl.SSLContext | str | bool = True,
    library: ModuleType | None = None,
) -> Any:
    """An ``httpx.AsyncBaseTransport`` on aiohttp's pool, for an
    ``AsyncController`` (or your own ``httpx.AsyncClient``); see the module.
    ``max_connections``: connections open at once (``None``: no limit);
    ``keepalive_expiry``: seconds an idle connection is kept. ``library``:
    the module whose clients it serves, ``httpx`` or ``httpx2`` (by default
    httpx if it is installed, else httpx2). Without the ``fast`` extra, a
    :class:`~restwire.MissingExtra` naming it."""
    _check_limits(max_connections, keepalive_expiry)
    aiohttp: Any = require("aiohttp", "fast_transport()")
    if library is None:
        library = _library.DEFAULT
    elif library not in _library.LIBRARIES:
        names = " or ".join(module.__name__ for module in _library.LIBRARIES)
        raise UsageError(
            f"fast_transport(library=...) takes the module {names}, not {library!r}"
        )
    kind = _KINDS.get(library)
    if kind is None:
        # a transport of that library's own base class: clients of the
        # library take it, and restwire sends with that library on it
        kind = _KINDS[library] = type(
            "AiohttpTransport",
            (_Transport, library.AsyncBaseTransport),
            {"__module__": __name__, "__doc__": _Transport.__doc__},
        )
    transport: _Transport = kind(
        aiohttp,
        library,
        max_connections,
        keepalive_expiry,
        library.create_ssl_context(verify=verify),
    )
    return transport


def _check_limits(max_connections: object, keepalive_expiry: object) -> None:
    """Refuse, where ``fast_transport`` is called, limits aiohttp would take
    wrong or fail on at the first request: ``max_connections`` is a whole
    number of connections (1 or more) or ``None``, ``keepalive_expiry``
    seconds (0 or more) or ``None``."""
    if max_connections is not None and (
        not isinstance(max_connections, int)
        or isinstance(max_connections, bool)
        or max_connections < 1
    ):
        raise SettingError(
            "fast_transport(max_connections=...) takes a number of "
            f"connections, 1 or more, or None for no limit; not {max_connections!r}"
        )
    if keepalive_expiry is not None and (
        not isinstance(keepalive_expiry, int | float)
        or isinstance(keepalive_expiry, bool)
        or not keepalive_expiry >= 0
    ):
        raise SettingError(
            "fast_transport(keepalive_expiry=...) takes seconds, 0 or more, "
            f"or None; not {keepalive_expiry!r}"
        )


class _Transport:
    """An httpx transport that sends with an aiohttp session (one per event
    loop, made in it by its first request; closed by ``aclose``)."""

    def __init__(
        self,
        aiohttp: Any,
        library: ModuleType,
        max_connections: int | None,
        keepalive_expiry: float | None,
        context: ssl.SSLContext,
    ) -> None:
        self._aiohttp = aiohttp
        self._library = library
        self._limit = max_connections or 0
        self._keepalive_expiry = keepalive_expiry
        self._context = context
        #: The session of the loop last seen, and that loop.
        self._session: Any = None
        self._loop: Any = None
        #: The sessions of other loops still open (``aclose`` closes them).
        self._others: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
        #: Each open session's guard, which closes it with its loop.
        self._guards: dict[Any, Any] = {}
        #: When set (restwire's own client), the calls that go to the
        #: library's own transport instead (``_wire.default_transport.Fallback``).
        self.fallback: Any = None
        #: The library's own pool (one per loop), for a request aiohttp
        #: cannot send as httpx would (header bytes that are not UTF-8).
        self._own = PerLoop(library, context)
        import yarl  # (aiohttp's own dependency: installed if it imported)

        self._build = yarl.URL.build
        #: aiohttp's ``ClientTimeout`` of each (connect, read, pool) seen.
        self._timeouts: dict[tuple[Any, Any, Any], Any] = {}
        #: Requests sent whose connection is not released yet.
        self.busy = 0

    async def _session_of(self, loop: Any) -> Any:
        """This loop's session: the one last used if it is this loop's, else
        another made (or kept) for it, closed with the loop (``library_pool.
        closed_with_loop``); a session of a closed loop is let go (its loop
        closed it as it ended)."""
        session = self._others.pop(loop, None)
        if session is None or session.closed:
            session = self._open()
            self._guards[session] = await closed_with_loop(session.close)
        if self._session is not None and self._loop is not None:
            if self._loop.is_closed():
                self._let_go(self._session)
            else:
                self._others[self._loop] = self._session
        self._session, self._loop = session, loop
        return session

    async def _close(self, session: Any) -> None:
        """Close ``session`` (of the running loop), through its guard."""
        guard = self._guards.pop(session, None)
        if guard is not None:
            await guard.aclose()  # (closes the session)
        else:
            await session.close()

    def _let_go(self, session: Any) -> None:
        """Forget a session whose loop has closed (and closed it, when
        ``asyncio.run`` ended it; else marked closed, see :func:`_let_go`)."""
        self._guards.pop(session, None)
        if not session.closed:
            _let_go(session)

    def _open(self) -> Any:
        aiohttp = self._aiohttp
        connector = aiohttp.TCPConnector(
            limit=self._limit,
            keepalive_timeout=self._keepalive_expiry,
            ssl=self._context,
        )
        session = aiohttp.ClientSession(
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),
            auto_decompress=False,
            request_class=_request_class(aiohttp),
            max_line_size=_MOST_LINE,
            max_field_size=_MOST_LINE,
            max_headers=_MOST_FIELDS,
        )
        # aiohttp resends an idempotent request whose connection drops, on
        # any connection; httpx's pool never does. restwire's sender resends
        # once on every path, so aiohttp's is off (a bool it keeps privately
        # since 3.10: its name and type checked before it is set).
        if isinstance(getattr(session, "_retry_connection", None), bool):
            session._retry_connection = False
        return session

    def _timeout(self, extension: dict[str, Any] | None) -> Any:
        if not extension:
            key: tuple[Any, Any, Any] = (None, None, None)
        else:
            get = extension.get
            key = (get("connect"), get("read"), get("pool"))
        timeouts = self._timeouts
        timeout = timeouts.get(key)
        if timeout is None:
            if len(timeouts) >= _TIMEOUTS_KEPT:
                timeouts.clear()
            connect, read, pool = key
            timeout = timeouts[key] = self._aiohttp.ClientTimeout(
                total=None, connect=pool, sock_connect=connect, sock_read=read
            )
        return timeout

    @property
    def ssl_context(self) -> ssl.SSLContext:
        """The TLS settings every connection is opened with."""
        return self._context

    async def handle_async_request(self, request: Any) -> Any:
        fallback = self.fallback
        if fallback is not None and fallback.applies():
            return await fallback.send(request)
        loop = asyncio.get_running_loop()
        session = self._session
        if loop is not self._loop:
            session = await self._session_of(loop)
        url = request.url
        path, _, query = url.raw_path.decode("ascii").partition("?")
        host = url.raw_host.decode("ascii")
        if ":" in host:  # an IPv6 address
            host = f"[{host}]"
        target = self._build(
            scheme=url.scheme,
            host=host,
            port=url.port,
            path=path,
            query_string=query,
            encoded=True,
        )
        data = _body_of(request, self._library)
        converted = _headers(request.headers.raw, data)
        if converted is None:  # header bytes aiohttp would send otherwise
            _say_library_pool("a header value that is not UTF-8")
            return await self._own.handle_async_request(request)
        headers, names = converted
        method = request.method
        skip: list[str] | None = None
        for name, lowered in _AUTO_HEADERS:
            if lowered not in names:
                skip = [name] if skip is None else [*skip, name]
        if b"content-type" not in names and (
            data is not None or method in _TYPED_METHODS
        ):
            skip = ["Content-Type"] if skip is None else [*skip, "Content-Type"]
        extensions = request.extensions
        timeouts = extensions.get("timeout")
        timeout = self._timeout(timeouts)
        server_hostname = extensions.get("sni_hostname")
        write = timeouts.get("write") if timeouts else None
        self.busy += 1
        try:
            response = None
            if (
                write is None
                or data is None
                or (isinstance(data, bytes) and len(data) <= WHOLE_BODY)
            ):  # the usual request: straight to aiohttp
                try:  # (not contextlib.suppress: a try costs nothing)  # noqa: SIM105
                    response = await session.request(
                        method,
                        target,
                        headers=headers,
                        data=data,
                        skip_auto_headers=skip,
                        allow_redirects=False,
                        timeout=timeout,
                        server_hostname=server_hostname,
                    )
                except _Stale:
                    pass  # a pooled connection the server closed: others below
            if response is None:  # a body to write within the write timeout
                response = await _Sending(
                    session,
                    method,
                    target,
                    headers,
                    data,
                    skip,
                    timeout,
                    server_hostname,
                ).send(write)
        except BaseException as error:
            self.busy -= 1
            _raise_mapped(self, error, request)
            raise
        raw = response.raw_headers
        if sum(map(len, chain.from_iterable(raw))) > MOST_HEAD:
            self.busy -= 1
            response.close()
            raise self._library.RemoteProtocolError(
                f"the response's header block is larger than {MOST_HEAD} bytes",
                request=request,
            )
        length = response.headers.get("Content-Length")
        if length is not None and length.isdigit() and int(length) <= WHOLE_BODY:
            try:
                body = await response.read()  # the connection goes back
            except BaseException as error:
                response.close()
                _raise_mapped(self, error, request)
                raise
            finally:
                self.busy -= 1
            stream: Any = WholeBody(body)
        else:
            stream = _Chunks(self, response, request)
        extras = {"http_version": _VERSIONS.get(response.version, b"HTTP/1.1")}
        reason = response.reason
        if reason:
            extras["reason_phrase"] = reason.encode("utf-8", "surrogateescape")
        return self._library.Response(
            response.status,
            headers=raw,
            stream=stream,
            request=request,
            extensions=extras,
        )

    async def aclose(self) -> None:
        """Close this loop's session; let go of those of closed loops (a
        loop still running closes its own when it uses the transport next).
        A request after this makes a new session."""
        loop = asyncio._get_running_loop()  # (None under trio)
        if self._session is not None and self._loop is not None:
            if self._loop is loop:
                await self._close(self._session)
            elif self._loop.is_closed():
                self._let_go(self._session)
            else:
                self._others[self._loop] = self._session
            self._loop = None  # (the closed session stays, for inspection)
        for other_loop, session in list(self._others.items()):
            if other_loop is loop:
                del self._others[other_loop]
                await self._close(session)
            elif other_loop.is_closed():
                del self._others[other_loop]
                self._let_go(session)
        await self._own.aclose()
        if self.fallback is not None:
            await self.fallback.aclose()


def _let_go(session: Any) -> None:
    """Mark closed a session whose event loop has closed: its connections
    went with the loop, so closing them needs no loop (aiohttp's close then
    has nothing to wait for), and nothing warns that it was left open."""
    connector = session.connector
    session.detach()
    if connector is not None:
        for _ in connector.close().__await__():  # (a no-op: nothing to wait for)
            pass


#: Whether the line saying a call went to the library's pool was logged.
_SAID: set[str] = set()


def _say_library_pool(why: str) -> None:
    """Say once per reason that aiohttp's pool passed a call to the
    library's own, which sends it as httpx does."""
    if why not in _SAID:
        _SAID.add(why)
        logging.getLogger("restwire").info(
            "restwire: fast_transport() sends a request with %s on the HTTP "
            "library's own pool, which sends it as httpx does (aiohttp "
            "would not)",
            why,
        )


def _body_of(request: Any, library: ModuleType) -> Any:
    """A request's body as aiohttp takes it: ``None`` for none, its bytes
    when they are in memory (read now, if not yet), else its stream (sent
    as it comes)."""
    stream = request.stream
    if isinstance(stream, library.ByteStream):
        return request.read() or None
    try:
        return request.content or None
    except library.RequestNotRead:  # a stream: sent as it comes
        return stream


#: Where :class:`_Request` puts the transport of the connection a paced
#: upload went out on (``None``: nobody asks), to abort it if the upload fails.
_TRANSPORT: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "restwire_connection_transport", default=None
)


class _Stale(Exception):
    """A pooled connection was found closed by the server before anything
    was written on it: it is closed, and the request takes another."""


class _Sending:
    """One request as aiohttp sends it, past what the usual one meets: a
    body to write within the write timeout, and pooled connections the
    server has closed (each given up, another taken)."""

    __slots__ = (
        "data",
        "headers",
        "method",
        "server_hostname",
        "session",
        "skip",
        "target",
        "timeout",
    )

    def __init__(
        self,
        session: Any,
        method: str,
        target: Any,
        headers: list[tuple[str, str]],
        data: Any,
        skip: list[str] | None,
        timeout: Any,
        server_hostname: Any,
    ) -> None:
        self.session = session
        self.method = method
        self.target = target
        self.headers = headers
        self.data = data
        self.skip = skip
        self.timeout = timeout
        self.server_hostname = server_hostname

    async def send(self, write: float | None) -> Any:
        """The response (its head), the request sent on a live connection:
        a pooled one the server has closed is given up before anything is
        written on it, and another taken."""
        for _ in range(_MOST_STALE):
            try:
                return await self._once(write)
            except _Stale:
                continue  # nothing was written: any method may go again
        return await self._once(write)

    async def _once(self, write: float | None) -> Any:
        data = self.data
        paced = write is not None and (
            (isinstance(data, bytes) and len(data) > WHOLE_BODY)
            or (data is not None and not isinstance(data, bytes))
        )
        if not paced:
            return await self._request(data)
        assert write is not None
        loop = asyncio.get_running_loop()
        holder: list[Any] = []
        token = _TRANSPORT.set(holder)
        try:
            async with asyncio.timeout(None) as deadline:
                return await self._request(_paced(data, deadline, write, loop))
        except BaseException as error:
            # A body cut off mid-way: its connection is aborted, not closed
            # (closing would wait, for ever, for the unsent rest to drain).
            for transport in holder:
                if transport is not None:
                    transport.abort()
            if isinstance(error, TimeoutError) and deadline.expired():
                raise _WriteTimedOut from None
            raise
        finally:
            _TRANSPORT.reset(token)

    def _request(self, data: Any) -> Any:
        return self.session.request(
            self.method,
            self.target,
            headers=self.headers,
            data=data,
            skip_auto_headers=self.skip,
            allow_redirects=False,
            timeout=self.timeout,
            server_hostname=self.server_hostname,
        )


class _WriteTimedOut(Exception):
    """A body's piece was not taken by the connection within the write timeout."""


async def _paced(
    data: Any, deadline: asyncio.Timeout, seconds: float, loop: Any
) -> AsyncIterator[bytes]:
    """``data`` (bytes, or an async stream) in pieces, each to be taken by
    the connection within ``seconds`` (``deadline`` moves with each one;
    it is lifted once the last one was taken)."""
    if isinstance(data, bytes):
        for start in range(0, len(data), WHOLE_BODY):
            deadline.reschedule(loop.time() + seconds)
            yield data[start : start + WHOLE_BODY]
    else:
        async for chunk in data:
            deadline.reschedule(loop.time() + seconds)
            yield chunk
    deadline.reschedule(None)


#: Each aiohttp module's request class (see :func:`_request_class`).
_REQUEST_CLASSES: dict[Any, type] = {}
#: The connections (aiohttp's protocol objects) a request went out on
#: already, and each one's socket: a reused one is checked before it is
#: written on. Held weakly: an entry goes with its connection (keyed by
#: ``id`` instead, a new connection given a dead one's ``id`` was taken
#: for that dead one, closed, and refused).
_USED: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
#: A connection with no socket to look at (another transport's).
_NO_SOCKET: Any = object()
#: The methods for which aiohttp adds no ``Content-Length`` httpx would not.
_AS_HTTPX = frozenset({"GET", "HEAD", "OPTIONS", "TRACE", "POST", "PUT", "PATCH"})


def _request_class(aiohttp: Any) -> type:
    """aiohttp's ``ClientRequest``, as the session's ``request_class``: it
    sends no ``Content-Length: 0`` that httpx would not send (a bodiless
    DELETE), and refuses a pooled connection the server has closed before
    writing on it (:class:`_Stale`)."""
    kind = _REQUEST_CLASSES.get(aiohttp)
    if kind is not None:
        return kind
    base: Any = aiohttp.ClientRequest

    class _Request(base):  # type: ignore[misc]
        def update_body_from_data(self, body: Any, *args: Any, **kwargs: Any) -> None:
            if body is not None or self.method in _AS_HTTPX:
                super().update_body_from_data(body, *args, **kwargs)
                return
            declared = "Content-Length" in self.headers
            super().update_body_from_data(body, *args, **kwargs)
            if not declared:  # (aiohttp's "0" for a DELETE, say)
                self.headers.popall("Content-Length", None)

        async def send(self, conn: Any) -> Any:
            protocol = conn.protocol
            sock = _USED.get(protocol)
            if sock is not None:
                if _closed_by_peer(sock):
                    conn.close()
                    raise _Stale
            elif protocol is not None:
                transport = conn.transport
                _USED[protocol] = (
                    transport.get_extra_info("socket")
                    if transport is not None
                    else None
                ) or _NO_SOCKET
            holder = _TRANSPORT.get()
            if holder is not None:
                holder.append(conn.transport)
            return await super().send(conn)

    kind = _REQUEST_CLASSES[aiohttp] = _Request
    return kind


def _closed_by_peer(sock: Any) -> bool:
    """Whether the server has closed (or written unasked on) an idle
    connection: its socket reads without waiting, as httpcore checks
    before it reuses one."""
    if sock is _NO_SOCKET:
        return False
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


_KINDS: dict[ModuleType, type[_Transport]] = {}

_VERSIONS = {(1, 1): b"HTTP/1.1", (1, 0): b"HTTP/1.0"}


def _headers(
    raw: list[tuple[bytes, bytes]], data: Any
) -> tuple[list[tuple[str, str]], set[bytes]] | None:
    """The request's headers as aiohttp takes them, and their lower-case
    names; ``None`` when one is not UTF-8 (aiohttp takes text and writes it
    as UTF-8: it cannot send those bytes as they are). A streamed body's
    ``Transfer-Encoding`` is left to aiohttp, which chunks it (it refuses
    the header beside its own chunking). A list, which aiohttp makes its
    ``CIMultiDict`` of: no second one made here."""
    try:
        pairs = [(name.decode(), value.decode()) for name, value in raw]
    except UnicodeDecodeError:
        return None
    names = {name.lower() for name, _ in raw}
    if len(names) < len(raw):
        # A name repeated: aiohttp keeps only the last of those spelt
        # differently ("X-Tag", "x-tag"), so all take the first's spelling.
        spelling: dict[str, str] = {}
        pairs = [(spelling.setdefault(n.lower(), n), value) for n, value in pairs]
    if (
        data is not None
        and not isinstance(data, bytes)
        and b"transfer-encoding" in names
    ):
        pairs = [(n, v) for n, v in pairs if n.lower() != "transfer-encoding"]
    return pairs, names


class WholeBody(ByteStreams):
    """A body read whole: handed over in one piece, to either kind of read."""

    __slots__ = ("_body",)

    def __init__(self, body: bytes) -> None:
        self._body: bytes | None = body

    def __iter__(self) -> Iterator[bytes]:
        body, self._body = self._body, None
        if body:
            yield body

    def __aiter__(self) -> WholeBody:
        return self

    async def __anext__(self) -> bytes:
        body = self._body
        if not body:
            raise StopAsyncIteration
        self._body = None
        return body

    def take(self) -> bytes:
        """The whole body, in one piece; the stream is empty after."""
        body, self._body = self._body, None
        return body or b""


class _Chunks(ByteStreams):
    """A body read as it comes; its connection released when it ends, fails
    or is closed (closing early closes the connection)."""

    __slots__ = ("_open", "_request", "_response", "_transport")

    def __init__(self, transport: _Transport, response: Any, request: Any) -> None:
        self._transport = transport
        self._response = response
        self._request = request
        self._open = True

    def __aiter__(self) -> _Chunks:
        return self

    async def __anext__(self) -> bytes:
        try:
            chunk: bytes = await self._response.content.readany()
        except BaseException as error:
            self._release()
            _raise_mapped(self._transport, error, self._request)
            raise
        if not chunk:
            self._release()
            raise StopAsyncIteration
        return chunk

    def _release(self) -> None:
        if self._open:
            self._open = False
            self._transport.busy -= 1
            self._response.release()

    async def aclose(self) -> None:
        self._release()


def _raise_mapped(transport: _Transport, error: BaseException, request: Any) -> None:
    """Raise ``error`` as the httpx error it is (or return, for one that is
    none: a cancellation, a bug), with ``request`` attached. aiohttp's own
    error is its cause only when its text holds no URL."""
    aiohttp = transport._aiohttp
    library = transport._library
    cause: BaseException | None = None
    kind: Any
    if isinstance(error, _WriteTimedOut):
        kind, text = library.WriteTimeout, "timed out writing"
    elif isinstance(error, aiohttp.ConnectionTimeoutError):
        # aiohttp's one timeout for waiting for a connection and opening it
        limit = transport._limit
        if limit and transport.busy >= limit:
            kind, text = library.PoolTimeout, "timed out waiting for a connection"
        else:
            kind, text = library.ConnectTimeout, "timed out connecting"
    elif isinstance(error, aiohttp.ServerTimeoutError):
        kind, text = library.ReadTimeout, "timed out reading"
    elif isinstance(error, aiohttp.ClientConnectorError):
        kind, text, cause = library.ConnectError, str(error), error
    elif isinstance(error, aiohttp.ServerDisconnectedError):
        kind = library.RemoteProtocolError
        text, cause = "Server disconnected without sending a response.", error
    elif isinstance(error, aiohttp.ClientPayloadError):
        kind, text, cause = library.ReadError, str(error), error
    elif isinstance(error, aiohttp.ClientResponseError):
        # (aiohttp's text may quote the header it refused: never shown)
        kind = library.RemoteProtocolError
        text = f"invalid response: {_unquoted(str(error.message))}"
    elif isinstance(error, aiohttp.InvalidURL | aiohttp.NonHttpUrlClientError):
        kind, text = (
            library.UnsupportedProtocol,
            "not an http(s) URL aiohttp can send to",
        )
    elif isinstance(error, aiohttp.ClientConnectionError):
        errno = getattr(error, "errno", None)
        detail = os.strerror(errno) if isinstance(errno, int) else type(error).__name__
        kind, text = library.ReadError, f"the connection failed: {detail}"
    elif isinstance(error, ValueError):  # a header or method aiohttp refuses
        kind = library.LocalProtocolError
        text = f"aiohttp cannot send the request: {_unquoted(str(error))}"
    else:
        return
    raise kind(text, request=request) from cause


def _unquoted(text: str) -> str:
    """An error's text up to the first thing it quotes (a header's name or
    value, a line of the response), so no credential is shown."""
    cut = min(
        (index for index in map(text.find, (":", "'", '"', "b'")) if index >= 0),
        default=len(text),
    )
    return text[:cut].strip() or "refused"
