"""HTTP caching under a controller (RFC 9111), by hishel; a response is
shared only between calls of one identity.

``Controller(cache=HttpCache.sqlite("api-cache.db"))`` puts hishel's cache
between the client and its transports. Then:

- Each call's first hop carries a :class:`Ticket` (the request extension
  ``restwire.cache``): its cache key, a digest of the call's identity (its
  credentials, the URL's userinfo, the cookies it may send, its credentials
  mode) and URL, never of the method, so that an unsafe request finds and
  invalidates the entries of its URL, as RFC 9111 section 4.4 asks. Calls
  of different identities never share an entry, whatever ``Vary`` the
  server sends; within one identity the cache is a private cache
  (``Cache-Control: private`` is stored, for that identity alone;
  ``no-store`` never is).
- A request without a ticket (a redirect's later hops, a client with its
  own ``auth``, a request the user sends on the same client outside
  restwire) passes by the cache untouched: nothing is cached under a key
  that does not say who asked.
- Credentials are kept out of storage: hishel is handed the request without
  its credential headers (the same rule as everywhere: ``_hops``), and they
  are put back just before it goes to the network. A SQLite file or a Redis
  shared by machines holds bodies and the key's digest, no token or cookie.

The controller then spares the parse too: a stale ``get`` goes through the
cache, and when the body it gets is the one its stored value was read from
(a 304, or a fresh entry another process stored), the stored value is kept
and renewed rather than parsed again (``_controller``).

hishel is an optional dependency (``pip install "restwire[cache]"``),
imported when a cache is made.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import anyio
import anyio.to_thread
import httpx

from ._fill_lock import FileLocks, FillLocks, Once, RedisLocks
from ._hops import Identity, is_credential

if TYPE_CHECKING:
    import hishel
    import redis

__all__ = ["CACHE_TICKET", "HttpCache", "Ticket", "body_digest", "cache_key"]

#: The request extension that carries a call's :class:`Ticket`.
CACHE_TICKET = "restwire.cache"
#: The extension the credential headers travel in past the cache.
_CREDENTIALS = "restwire.credentials"
#: The methods whose misses are filled by one process at a time.
_FILLED = frozenset({"GET", "HEAD"})


@dataclass(frozen=True, slots=True)
class Ticket:
    """What lets a request into the cache: its key, and the header names
    that are credentials for this call (besides those the rule names)."""

    key: str
    marked: frozenset[str]

    def __repr__(self) -> str:
        return "Ticket([redacted])"


def cache_key(identity: Identity, url: str) -> str:
    """The cache key of a call: a SHA-256 digest of its identity and ``url``
    (without userinfo). Equal for equal credentials in every process (no
    per-process salt), so processes sharing a storage share entries; the
    key shows neither."""
    credentials, userinfo, cookies, mode, _auth = cast(_IdentityParts, identity)
    digest = hashlib.sha256(b"restwire-cache-1\0")
    for name, value in credentials:
        digest.update(b"h\0" + name.lower() + b"\0" + value + b"\0")
    digest.update(b"u\0" + userinfo + b"\0")
    for cookie in cookies:
        digest.update(b"c\0" + "\0".join(map(str, cookie)).encode() + b"\0")
    digest.update(b"m\0" + mode.encode() + b"\0" + url.encode())
    return digest.hexdigest()


#: What ``_hops.identity_of`` puts in an identity.
_IdentityParts = tuple[
    tuple[tuple[bytes, bytes], ...], bytes, tuple[tuple[object, ...], ...], str, object
]


def body_digest(content: bytes) -> bytes:
    """A body's fingerprint, to know a cached body for the one a stored
    value was read from."""
    return hashlib.blake2b(content, digest_size=16).digest()


def _split(request: httpx.Request, marked: Collection[str]) -> httpx.Request:
    """``request`` as the cache sees it: without credential headers, which
    travel in an extension to :func:`_restored`."""
    kept: list[tuple[bytes, bytes]] = []
    held: list[tuple[bytes, bytes]] = []
    for name, value in request.headers.raw:
        target = held if is_credential(name.decode("latin-1").lower(), marked) else kept
        target.append((name, value))
    ticket: Ticket = request.extensions[CACHE_TICKET]
    extensions = {**request.extensions, _CREDENTIALS: held}
    extensions["caching"] = {"key": ticket.key}
    return httpx.Request(
        request.method,
        request.url,
        headers=kept,
        stream=request.stream,
        extensions=extensions,
    )


def _restored(request: httpx.Request) -> httpx.Request:
    """The request hishel sends, with its credentials back."""
    held = request.extensions.get(_CREDENTIALS)  # kept: hishel may send twice
    if held:
        request.headers = httpx.Headers([*request.headers.raw, *held])
    return request


class _Releasing(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A response body that gives its fill lock back once it has been read
    (and so stored by the cache) or closed, whichever comes first."""

    def __init__(self, inner: Any, release: Once) -> None:
        self.inner, self.release = inner, release

    def __iter__(self) -> Iterator[bytes]:
        yield from self.inner
        self.release()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            yield chunk
        await anyio.to_thread.run_sync(self.release)

    def close(self) -> None:
        try:
            self.inner.close()
        finally:
            self.release()

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self.release)


class _Cached(httpx.BaseTransport):
    """A client's transport, with hishel in front for requests that carry a
    ticket; a GET or HEAD is filled by one process at a time."""

    def __init__(
        self,
        inner: httpx.BaseTransport,
        storage: hishel.BaseStorage,
        options: Any,
        locks: FillLocks,
    ) -> None:
        from hishel.httpx import CacheTransport

        self.inner = inner
        self.locks = locks
        self.cached = CacheTransport(_Restoring(inner), storage, rfc=options)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        ticket = request.extensions.get(CACHE_TICKET)
        if ticket is None:
            return self.inner.handle_request(request)
        release = None
        if request.method in _FILLED:
            held = self.locks.acquire(ticket.key)
            release = None if held is None else Once(self.locks, held)
        try:
            response = self.cached.handle_request(_split(request, ticket.marked))
        except BaseException:
            if release is not None:
                release()
            raise
        if release is not None:
            response.stream = _Releasing(response.stream, release)
        return response

    def close(self) -> None:
        self.cached.close()  # the inner transport, and the storage


class _Restoring(httpx.BaseTransport):
    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.inner.handle_request(_restored(request))

    def close(self) -> None:
        self.inner.close()


class _AsyncCached(httpx.AsyncBaseTransport):
    """:class:`_Cached`, for an ``AsyncClient``: the fill lock is asked for
    from a worker thread."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        storage: hishel.AsyncBaseStorage,
        options: Any,
        locks: FillLocks,
    ) -> None:
        from hishel.httpx import AsyncCacheTransport

        self.inner = inner
        self.locks = locks
        self.cached = AsyncCacheTransport(_AsyncRestoring(inner), storage, rfc=options)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        ticket = request.extensions.get(CACHE_TICKET)
        if ticket is None:
            return await self.inner.handle_async_request(request)
        release = None
        if request.method in _FILLED:
            held = await anyio.to_thread.run_sync(self.locks.acquire, ticket.key)
            release = None if held is None else Once(self.locks, held)
        try:
            response = await self.cached.handle_async_request(
                _split(request, ticket.marked)
            )
        except BaseException:
            if release is not None:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(release)
            raise
        if release is not None:
            response.stream = _Releasing(response.stream, release)
        return response

    async def aclose(self) -> None:
        await self.cached.aclose()


class _AsyncRestoring(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.inner.handle_async_request(_restored(request))

    async def aclose(self) -> None:
        await self.inner.aclose()


class HttpCache:
    """An RFC 9111 HTTP cache for a controller: hishel, on SQLite (a file,
    nothing to run) or on Redis (shared by processes on many machines).

    Give it to ``Controller(cache=...)`` or ``AsyncController(cache=...)``;
    each client it is installed on gets storage of its own kind (sync or
    async) on the same file or Redis, so many controllers, threads and
    processes share the entries.
    """

    def __init__(
        self,
        storage: Callable[[], hishel.BaseStorage],
        async_storage: Callable[[], hishel.AsyncBaseStorage],
        *,
        where: str,
        locks: FillLocks,
        options: hishel.CacheOptions | None = None,
    ) -> None:
        self._storage = storage
        self._async_storage = async_storage
        self.where = where
        self.locks = locks
        # A private cache per identity: the key keeps identities apart.
        self.options: hishel.CacheOptions = (
            options if options is not None else {"shared": False}
        )

    @classmethod
    def sqlite(
        cls,
        path: str | Path = "restwire-cache.db",
        *,
        fill_wait: float = 10.0,
        **storage_options: Any,
    ) -> HttpCache:
        """Entries in the SQLite file ``path`` (made if missing), and fill
        locks in the folder ``path.locks`` beside it; ``storage_options`` go
        to hishel's ``SqliteStorage`` (``max_size``, ``default_ttl``, ...).
        ``fill_wait``: seconds a process waits for another that is filling
        the same entry before it goes to the server itself."""
        import hishel

        location = Path(path)
        return cls(
            lambda: hishel.SqliteStorage(database_path=location, **storage_options),
            lambda: hishel.AsyncSqliteStorage(
                database_path=location, **storage_options
            ),
            where=f"sqlite:{location}",
            locks=FileLocks(location.with_name(location.name + ".locks"), fill_wait),
        )

    @classmethod
    def redis(
        cls,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        key_prefix: str = "restwire-cache",
        fill_wait: float = 10.0,
        fill_lease: float = 60.0,
        timeout: float = 5.0,
        **storage_options: Any,
    ) -> HttpCache:
        """Entries, and fill locks, in the Redis at ``url``, for processes
        on several machines; ``storage_options`` go to hishel's
        ``RedisStorage`` (``default_ttl``, ``max_stream_size``, ...).
        ``fill_wait`` as for :meth:`sqlite`; ``fill_lease``: seconds after
        which the lock of a process that died frees itself; ``timeout``:
        seconds any Redis command may take (a Redis that fails is a cache
        miss, never a hung call)."""
        import hishel
        import redis as redis_module
        import redis.asyncio

        def sync_client() -> redis.Redis:
            return redis_module.Redis.from_url(
                url, socket_timeout=timeout, socket_connect_timeout=timeout
            )

        return cls(
            lambda: hishel.RedisStorage(
                sync_client(), key_prefix=key_prefix, **storage_options
            ),
            lambda: hishel.AsyncRedisStorage(
                redis.asyncio.Redis.from_url(
                    url, socket_timeout=timeout, socket_connect_timeout=timeout
                ),
                key_prefix=key_prefix,
                **storage_options,
            ),
            where=f"redis:{key_prefix}",
            locks=RedisLocks(sync_client(), key_prefix, fill_wait, fill_lease),
        )

    def install(self, client: httpx.Client | httpx.AsyncClient) -> None:
        """Put the cache in front of every transport of ``client`` (its
        default one and its mounts, proxies included). Requests sent on
        ``client`` without restwire's ticket pass by it."""
        if getattr(client, "_restwire_cache", None) is not None:
            raise ValueError(f"this client already has an HttpCache ({self.where})")
        if isinstance(client, httpx.AsyncClient):
            async_storage = self._async_storage()

            def wrap_async(transport: Any) -> Any:
                return _AsyncCached(transport, async_storage, self.options, self.locks)

            wrap: Callable[[Any], Any] = wrap_async
        else:
            storage = self._storage()

            def wrap_sync(transport: Any) -> Any:
                return _Cached(transport, storage, self.options, self.locks)

            wrap = wrap_sync
        # httpx keeps a client's transports in these two attributes (pinned,
        # like _wire's use of httpx internals, by httpx<0.29).
        client._transport = wrap(client._transport)
        client._mounts = {
            pattern: None if transport is None else wrap(transport)
            for pattern, transport in client._mounts.items()
        }
        client._restwire_cache = self  # type: ignore[union-attr]

    def __repr__(self) -> str:
        return f"HttpCache({self.where})"
