"""HTTP caching for a controller (RFC 9111), by hishel; a response is shared
only between calls of one identity.

``Controller(cache=HttpCache.sqlite("api-cache.db"))`` makes the first hop
of every call a step through hishel's RFC 9111 state machine (its sans-I/O
core), with the storage reached through ``Blocking`` effects: one
definition for both drivers, one storage for sync and async controllers,
and nothing installed on the client. Then:

- Each call's first hop carries a :class:`Ticket`: its cache key, a digest
  of the call's identity (its credentials, the URL's userinfo, the cookies
  it may send, its credentials mode) and URL, never of the method, so that
  an unsafe request finds and invalidates the entries of its URL, as RFC
  9111 section 4.4 asks. Calls of different identities never share an
  entry, whatever ``Vary`` the server sends; within one identity the cache
  is a private cache (``Cache-Control: private`` is stored, for that
  identity alone; ``no-store`` never is).
- A hop without a ticket (a redirect's later hops, a client with its own
  ``auth``, a streamed body, a request the user sends on the client
  outside restwire) never meets the cache.
- Nothing credential-bearing is stored: hishel sees the request without
  its credential headers (the same rule as everywhere: ``_credentials``),
  and the stored response has no ``Set-Cookie`` (nor any header whose name
  says credential). The live response keeps them. A SQLite file or a Redis
  shared by machines holds bodies and the key's digest, no token or cookie.
- A GET or HEAD miss is filled by one process at a time (``_fill_lock``);
  the others wait (without a thread, in short sleeps) up to ``fill_wait``
  and then find the entry.

The controller spares the parse too: a stale ``get`` goes through the
cache, and when the body it gets is the one its stored value was read from
(a 304, or a fresh entry another process stored), the stored value is kept
and renewed rather than parsed again (``_controller``).

hishel is an optional dependency (``pip install "restwire[cache]"``),
imported when a cache is made.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import httpx

from ._credentials import PUBLIC_HEADERS, is_credential, names_credential
from ._effects import Blocking, Flow, Lease, ReleaseLease, Sleep, TakeLease, _Read
from ._errors import BodyTooLarge, redact_url
from ._fill_lock import FileLocks, FillLocks, RedisLocks
from ._identity import Identity

if TYPE_CHECKING:
    import hishel
    import redis

__all__ = ["HttpCache", "Ticket", "body_digest", "cache_key", "from_cache"]

#: The methods whose misses are filled by one process at a time.
_FILLED = frozenset({"GET", "HEAD"})
#: How often a process waiting for another's fill looks again (seconds).
_POLL = 0.01
#: Response headers never stored (besides those whose name says credential).
_NOT_STORED = frozenset({"set-cookie", "set-cookie2", "transfer-encoding"})


@dataclass(frozen=True, slots=True)
class Ticket:
    """What lets a hop into the cache: its key, and the header names that
    are credentials for this call (besides those the rule names)."""

    key: str
    marked: frozenset[str]
    public: frozenset[str] = PUBLIC_HEADERS

    def __repr__(self) -> str:
        return "Ticket([redacted])"


def cache_key(identity: Identity, url: str) -> str:
    """The cache key of a call: a SHA-256 digest of its identity and ``url``
    (without userinfo). Equal for equal credentials in every process (no
    per-process salt), so processes sharing a storage share entries; the
    key shows neither."""
    credentials, params, mode, auth, caller = cast(_IdentityParts, identity)
    digest = hashlib.sha256(b"restwire-cache-3\0")
    signed = auth[1] if isinstance(auth, tuple) else ()  # what the client's auth added
    for name, value in (*credentials, *signed):
        digest.update(b"h\0" + name.lower() + b"\0" + value + b"\0")
    for param, text in params:
        digest.update(b"q\0" + param.encode() + b"\0" + text.encode() + b"\0")
    if caller is not None:  # the name a controller gave its caller
        digest.update(b"c\0" + repr(caller).encode() + b"\0")
    digest.update(b"m\0" + mode.encode() + b"\0" + url.encode())
    return digest.hexdigest()


#: What ``_identity.identity_of`` puts in an identity.
_IdentityParts = tuple[
    tuple[tuple[bytes, bytes], ...], tuple[tuple[str, str], ...], str, object, object
]


def body_digest(content: bytes) -> bytes:
    """A body's fingerprint, to know a cached body for the one a stored
    value was read from."""
    return hashlib.blake2b(content, digest_size=16).digest()


def from_cache(response: httpx.Response) -> bool:
    """Whether the cache answered with a body it holds (fresh, or
    revalidated with a 304)."""
    status = response.extensions.get("caching")
    return isinstance(status, dict) and bool(
        status.get("from_cache") or status.get("revalidated")
    )


# -- between httpx and hishel --------------------------------------------------------


def _stored_request(request: httpx.Request, ticket: Ticket) -> Any:
    """``request`` as hishel sees and stores it: public headers only, and
    its URL's credential params redacted."""
    import hishel

    grouped: dict[str, list[str]] = {}
    for name, value in request.headers.multi_items():
        if not is_credential(name, ticket.marked, ticket.public):
            grouped.setdefault(name, []).append(value)
    return hishel.Request(
        method=request.method,
        url=redact_url(request.url),
        headers=hishel.Headers(grouped),
    )


def _stored_response(response: httpx.Response, raw: bytes) -> Any:
    """``response`` as hishel stores it: its raw (still encoded) body, and no
    header that sets or carries a credential."""
    import hishel

    grouped: dict[str, list[str]] = {}
    for name, value in response.headers.multi_items():
        if name not in _NOT_STORED and not names_credential(name):
            grouped.setdefault(name, []).append(value)
    return hishel.Response(
        status_code=response.status_code,
        headers=hishel.Headers(grouped),
        stream=iter([raw]),
    )


def _decoded_headers(headers: httpx.Headers, body: bytes) -> httpx.Headers:
    """``headers`` of a body already decoded: no ``Content-Encoding``, and
    the length it now has."""
    if "content-encoding" not in headers:
        return headers
    kept = [
        (name, value)
        for name, value in headers.raw
        if name.lower() not in (b"content-encoding", b"content-length")
    ]
    return httpx.Headers([*kept, (b"Content-Length", str(len(body)).encode())])


def _with_changes(request: httpx.Request, wanted: Any) -> httpx.Request:
    """``request`` with the headers hishel changed (a revalidation's
    ``If-None-Match``): every other header as it was, credentials included."""
    changed = {
        name: value
        for name, value in wanted.items()
        if request.headers.get(name) != value
    }
    if not changed:
        return request
    headers = httpx.Headers(request.headers)
    for name, value in changed.items():
        headers[name] = value
    return httpx.Request(
        request.method,
        request.url,
        headers=headers,
        stream=request.stream,
        extensions=request.extensions,
    )


def _live(
    request: httpx.Request,
    status: int,
    headers: Any,
    raw: bytes,
    caching: dict[str, bool],
    started: float,
    encoding: str,
) -> httpx.Response:
    """The response a call gets: ``raw`` body (still encoded: the terminal
    decodes it, bounded), marked with what the cache did."""
    response = httpx.Response(
        status,
        headers=headers,
        stream=httpx.ByteStream(raw),
        request=request,
        extensions={"caching": caching},
    )
    response.default_encoding = encoding
    response.elapsed = _since(started)
    return response


def _since(started: float) -> datetime.timedelta:
    return datetime.timedelta(seconds=time.perf_counter() - started)


def _headers_list(headers: Any) -> list[tuple[str, str]]:
    return [(name, value) for name in headers for value in headers.get_list(name)]


class _RawBody:
    """A ``_Read`` sink that keeps a body as it came (still encoded), for
    storage; past ``limit`` bytes it is refused, as the body would be."""

    __slots__ = ("_limit", "_request", "chunks", "size")

    def __init__(self, request: httpx.Request, limit: int | None) -> None:
        self._request = request
        self._limit = limit
        self.chunks: list[bytes] = []
        self.size = 0

    def feed(self, chunk: bytes) -> bool:
        self.size += len(chunk)
        if self._limit is not None and self.size > self._limit:
            raise BodyTooLarge(self._request.method, self._request.url, self._limit)
        self.chunks.append(chunk)
        return True


def _drained(stream: Iterator[bytes] | AsyncIterator[bytes] | None) -> bytes:
    """A stored body, read (a sync storage's streams are sync iterators)."""
    if stream is None:
        return b""
    assert isinstance(stream, Iterator)
    return b"".join(stream)


def _entries(storage: Any, key: str) -> list[Any]:
    """The entries under ``key``, their bodies read (they are small: each
    was read whole, under an endpoint's ``max_body_size``)."""
    return [
        replace(
            entry,
            response=replace(
                entry.response, stream=iter([_drained(entry.response.stream)])
            ),
        )
        for entry in storage.get_entries(key)
    ]


def _store(storage: Any, request: Any, response: Any, key: str) -> None:
    entry = storage.create_entry(request, response, key)
    _drained(entry.response.stream)  # saving as it is read


# -- the cache --------------------------------------------------------------------


class HttpCache:
    """An RFC 9111 HTTP cache for controllers: hishel, on SQLite (a file,
    nothing to run) or on Redis (shared by processes on many machines).

    Give it to ``Controller(cache=...)`` or ``AsyncController(cache=...)``;
    any number of controllers (sync and async), threads and processes may
    share one, and share its entries.
    """

    def __init__(
        self,
        storage: Callable[[], hishel.BaseStorage],
        *,
        where: str,
        locks: FillLocks,
        fill_wait: float = 10.0,
        options: hishel.CacheOptions | None = None,
    ) -> None:
        self._new_storage = storage
        self._storage: hishel.BaseStorage | None = None
        self._lock = threading.Lock()
        self._users = 0
        self.where = where
        self.locks = locks
        self.fill_wait = fill_wait
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
        """Entries in the SQLite file ``path`` (made if missing, with its
        folders; readable by its owner alone), and fill locks in the folder
        ``path.locks`` beside it; ``storage_options`` go to hishel's
        ``SqliteStorage`` (``max_size``, ``default_ttl``, ...).
        ``fill_wait``: seconds a process waits for another that is filling
        the same entry before it goes to the server itself."""
        import hishel

        location = Path(path)

        def storage() -> hishel.BaseStorage:
            return hishel.SqliteStorage(
                connection=_private_sqlite(location), **storage_options
            )

        return cls(
            storage,
            where=f"sqlite:{location}",
            locks=FileLocks(location.with_name(location.name + ".locks")),
            fill_wait=fill_wait,
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

        def client() -> redis.Redis:
            return redis_module.Redis.from_url(
                url, socket_timeout=timeout, socket_connect_timeout=timeout
            )

        return cls(
            lambda: hishel.RedisStorage(
                client=client(), key_prefix=key_prefix, **storage_options
            ),
            where=f"redis:{key_prefix}",
            locks=RedisLocks(client(), key_prefix, fill_lease),
            fill_wait=fill_wait,
        )

    # -- who uses it ---------------------------------------------------------------

    def attach(self) -> None:
        """A controller starts using the cache."""
        with self._lock:
            self._users += 1

    def detach(self) -> None:
        """A controller closed: the last one closes the storage (a later
        user opens it again)."""
        with self._lock:
            self._users -= 1
            storage = self._storage if self._users <= 0 else None
            if storage is not None:
                self._storage = None
        if storage is not None:
            storage.close()

    def storage(self) -> hishel.BaseStorage:
        with self._lock:
            if self._storage is None:
                self._storage = self._new_storage()
            return self._storage

    # -- one hop through it -----------------------------------------------------------

    def exchange(
        self,
        request: httpx.Request,
        ticket: Ticket,
        send: Callable[[httpx.Request], Flow[httpx.Response]],
        limit: int | None,
        encoding: str,
    ) -> Flow[httpx.Response]:
        """The first hop of a call: answered from storage, revalidated, or
        sent with ``send`` and stored, as RFC 9111 says; the response, with
        its raw body in memory and ``extensions["caching"]`` telling what
        the cache did."""
        lease = None
        if request.method in _FILLED:
            lease = yield from self._fill_lock(ticket.key)
        try:
            response = yield from self._answer(request, ticket, send, limit, encoding)
        except Exception:
            if lease is not None:
                yield ReleaseLease(lease)
            raise
        if lease is not None:
            yield ReleaseLease(lease)
        return response

    def _fill_lock(self, key: str) -> Flow[Lease | None]:
        """The fill lock of ``key``, waited for in short sleeps up to
        ``fill_wait`` (then ``None``: the call goes on without it)."""
        deadline = time.monotonic() + self.fill_wait
        while True:
            lease: Lease | None = yield TakeLease(self.locks.try_acquire, (key,))
            if lease is not None or time.monotonic() >= deadline:
                return lease
            yield Sleep(_POLL)

    def _answer(
        self,
        request: httpx.Request,
        ticket: Ticket,
        send: Callable[[httpx.Request], Flow[httpx.Response]],
        limit: int | None,
        encoding: str,
    ) -> Flow[httpx.Response]:
        import hishel

        started = time.perf_counter()
        storage = yield Blocking(self.storage)
        stored_request = _stored_request(request, ticket)
        key = ticket.key
        state: Any = hishel.IdleClient(options=self.options)
        revalidated = False
        upstream: httpx.Response | None = None
        raw = b""
        while True:
            if isinstance(state, hishel.IdleClient):
                entries = yield Blocking(_entries, (storage, key))
                state = state.next(stored_request, entries)
            elif isinstance(state, hishel.CacheMiss | hishel.NeedRevalidation):
                revalidated = isinstance(state, hishel.NeedRevalidation)
                upstream = yield from send(
                    _with_changes(request, state.request.headers)
                )
                if upstream.is_stream_consumed:
                    # built in memory by the transport (a mock), and so already
                    # decoded: kept as it is, its Content-Encoding dropped
                    raw = upstream.content
                    upstream.headers = _decoded_headers(upstream.headers, raw)
                else:
                    sink = _RawBody(request, limit)
                    yield _Read(upstream, sink)
                    raw = b"".join(sink.chunks)
                state = state.next(_stored_response(upstream, raw))
            elif isinstance(state, hishel.StoreAndUse):
                yield Blocking(_store, (storage, stored_request, state.response, key))
                assert upstream is not None
                return _live(
                    request,
                    upstream.status_code,
                    upstream.headers.raw,
                    raw,
                    {"from_cache": False, "revalidated": revalidated, "stored": True},
                    started,
                    encoding,
                )
            elif isinstance(state, hishel.CouldNotBeStored):
                assert upstream is not None
                return _live(
                    request,
                    upstream.status_code,
                    upstream.headers.raw,
                    raw,
                    {"from_cache": False, "revalidated": revalidated, "stored": False},
                    started,
                    encoding,
                )
            elif isinstance(state, hishel.FromCache):
                entry = state.entry.response
                return _live(
                    request,
                    entry.status_code,
                    _headers_list(entry.headers),
                    _drained(entry.stream),
                    {"from_cache": True, "revalidated": revalidated, "stored": False},
                    started,
                    encoding,
                )
            elif isinstance(state, hishel.NeedToBeUpdated):
                for updating in state.updating_entries:
                    yield Blocking(
                        storage.update_headers, (updating.id, updating.response.headers)
                    )
                state = state.next()
            elif isinstance(state, hishel.InvalidateEntries):
                for entry_id in state.entry_ids:
                    yield Blocking(storage.remove_entry, (entry_id,))
                state = state.next()
            else:  # pragma: no cover - hishel's states are closed
                raise TypeError(f"unknown cache state {state!r}")

    def __repr__(self) -> str:
        return f"HttpCache({self.where})"


def _private_sqlite(path: Path) -> Any:
    """A connection to the SQLite file at ``path`` (folders made), the file
    readable and writable by its owner alone (SQLite gives its ``-wal`` and
    ``-shm`` files the same mode)."""
    import sqlite3

    path.parent.mkdir(parents=True, exist_ok=True)
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    return sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
