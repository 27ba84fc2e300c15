"""``fast_transport()``: aiohttp's connection pool under an httpx client.

httpx's own async pool (httpcore) slows down as calls queue for its
connections: on one machine, 1,600 requests a second at one call at a time,
290 at 64 (encode/httpx#3215). aiohttp's pool does not. ``fast_transport()``
is an ``httpx.AsyncBaseTransport`` that sends each request with an aiohttp
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
  defaults the request does not carry), its body. Unlike httpx, aiohttp
  gives a bodiless DELETE (or other method outside GET, HEAD, OPTIONS,
  TRACE, POST, PUT, PATCH) ``Content-Length: 0``, and writes header text
  as UTF-8 (a value that is not UTF-8 goes as its Latin-1, re-encoded).
- **The limits httpx takes**: ``max_connections`` is aiohttp's ``limit``,
  ``keepalive_expiry`` its ``keepalive_timeout``; TLS is httpx's
  ``create_ssl_context(verify=...)``; a request's ``connect``, ``read`` and
  ``pool`` timeouts are aiohttp's ``sock_connect``, ``sock_read`` and
  ``connect`` (aiohttp has no write timeout).
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

import os
import ssl
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from .._base import library as _library
from .._base.errors import SettingError, UsageError, require
from .._base.library import ByteStreams

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
#: The methods aiohttp gives a default ``Content-Type`` when they carry none.
_TYPED_METHODS = frozenset({"POST", "PUT", "PATCH"})
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
    """An httpx transport that sends with an aiohttp session (made in the
    running loop by the first request; closed by ``aclose``)."""

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
        self._session: Any = None
        #: When set (restwire's own client), the calls that go to the
        #: library's own transport instead (``_wire.default_transport.Fallback``).
        self.fallback: Any = None
        import yarl  # (aiohttp's own dependency: installed if it imported)

        self._build = yarl.URL.build
        #: aiohttp's ``ClientTimeout`` of each (connect, read, pool) seen.
        self._timeouts: dict[tuple[Any, Any, Any], Any] = {}
        #: Requests sent whose connection is not released yet.
        self.busy = 0

    def _open(self) -> Any:
        aiohttp = self._aiohttp
        connector = aiohttp.TCPConnector(
            limit=self._limit,
            keepalive_timeout=self._keepalive_expiry,
            ssl=self._context,
        )
        self._session = session = aiohttp.ClientSession(
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),
            auto_decompress=False,
        )
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
        session = self._session or self._open()
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
        try:
            data = request.content or None
        except self._library.RequestNotRead:  # a stream: sent as it comes
            data = request.stream
        headers, names = _headers(request.headers.raw, data)
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
        self.busy += 1
        try:
            response = await session.request(
                method,
                target,
                headers=headers,
                data=data,
                skip_auto_headers=skip,
                allow_redirects=False,
                timeout=self._timeout(extensions.get("timeout")),
                server_hostname=extensions.get("sni_hostname"),
            )
        except BaseException as error:
            self.busy -= 1
            _raise_mapped(self, error, request)
            raise
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
            headers=response.raw_headers,
            stream=stream,
            request=request,
            extensions=extras,
        )

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
        if self.fallback is not None:
            await self.fallback.aclose()


_KINDS: dict[ModuleType, type[_Transport]] = {}

_VERSIONS = {(1, 1): b"HTTP/1.1", (1, 0): b"HTTP/1.0"}


def _text(raw: bytes) -> str:
    # What aiohttp encodes back to the same bytes (UTF-8), else Latin-1
    # (whose upper half it then sends as UTF-8: it takes text only).
    try:
        return raw.decode()
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _headers(
    raw: list[tuple[bytes, bytes]], data: Any
) -> tuple[list[tuple[str, str]], set[bytes]]:
    """The request's headers as aiohttp takes them, and their lower-case
    names; a streamed body's ``Transfer-Encoding`` left to aiohttp, which
    chunks it (it refuses the header beside its own chunking). A list, which
    aiohttp makes its ``CIMultiDict`` of: no second one made here."""
    try:
        pairs = [(name.decode(), value.decode()) for name, value in raw]
    except UnicodeDecodeError:
        pairs = [(_text(name), _text(value)) for name, value in raw]
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
    if isinstance(error, aiohttp.ConnectionTimeoutError):
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
        kind, text = library.RemoteProtocolError, f"invalid response: {error.message}"
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
        kind, text, cause = library.LocalProtocolError, str(error), error
    else:
        return
    raise kind(text, request=request) from cause
