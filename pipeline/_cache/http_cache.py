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
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._base.effects import Blocking, Flow, Lease, ReleaseLease, Sleep, TakeLease, _Read
from .._base.errors import redis_address, require
from .._base.library import Request, Response
from .backends import redis_connector, redis_storage, sqlite_storage
from .conversion import (
    RawBody,
    decoded_headers,
    drained,
    from_entry,
    from_upstream,
    hishel_request,
    hishel_response,
    with_changes,
)
from .fill_locks import FileLocks, FillLocks, RedisLocks
from .keys import Ticket
from .storage_access import Found, StorageAccess

if TYPE_CHECKING:
    import hishel

__all__ = ["HttpCache"]


#: The methods whose misses are filled by one process at a time.
_FILLED = frozenset({"GET", "HEAD"})
#: How long a process waiting for another's fill sleeps between tries:
#: first, and at most (seconds); each pause is half again the last.
_FIRST_POLL = 0.005
_LAST_POLL = 0.05


def _since(started: float) -> datetime.timedelta:
    return datetime.timedelta(seconds=time.perf_counter() - started)


# -- the cache --------------------------------------------------------------------


class HttpCache:
    """An RFC 9111 HTTP cache for controllers: hishel, on SQLite (a file,
    nothing to run) or on Redis (shared by processes on many machines).

    Give it to ``Controller(cache=...)`` or ``AsyncController(cache=...)``;
    any number of controllers (sync and async), threads and processes may
    share one, and share its entries.

    **Faults are misses.** A storage that fails (Redis gone, even halfway
    through a body; a SQLite file locked, unreadable or not a cache) makes
    the call go to the server as if nothing were stored, never fail: one
    warning says so, the cache leaves the storage alone (calls go straight
    to the server, storing nothing) and lets one call try it again after
    ``recheck_after`` seconds, doubling up to ``recheck_most`` while it
    keeps failing; one line says when it answers again. An entry that
    cannot be read (malformed, written by something else) is removed and
    the call goes to the server; one warning says so the first time. No
    exception of hishel, SQLite or redis-py reaches a caller, and the
    faults hishel would log on each call are counted in those lines
    instead.
    """

    #: Seconds a storage that failed is left alone before a call tries it
    #: again (then doubled each time it fails again, up to ``recheck_most``).
    recheck_after: float = 1.0
    recheck_most: float = 30.0

    def __init__(
        self,
        storage: Callable[[], hishel.BaseStorage],
        *,
        where: str,
        locks: FillLocks,
        fill_wait: float = 10.0,
        options: hishel.CacheOptions | None = None,
    ) -> None:
        require("hishel", "HttpCache")
        self.where = where
        self.locks = locks
        self.fill_wait = fill_wait
        # A private cache per identity: the key keeps identities apart.
        self.options: hishel.CacheOptions = (
            options if options is not None else {"shared": False}
        )
        # Reads where and the recheck pauses from this cache at each use.
        self._access = StorageAccess(storage, self)

    @classmethod
    def sqlite(
        cls,
        path: str | Path = "restwire-cache.db",
        *,
        fill_wait: float = 10.0,
        **storage_options: Any,
    ) -> HttpCache:
        """Entries in the SQLite file ``path`` and fill locks in the folder
        ``path.locks`` beside it, nothing anywhere else: the file (and the
        ``-wal`` and ``-shm`` files SQLite keeps beside it) readable by its
        owner alone (0600), and each folder restwire makes too (0700);
        ``storage_options`` go to hishel's ``SqliteStorage`` (``max_size``,
        ``default_ttl``, ...). ``fill_wait``: seconds a process waits for
        another that is filling the same entry before it goes to the server
        itself."""
        require("hishel", "HttpCache.sqlite()")
        location = Path(path)
        return cls(
            sqlite_storage(location, storage_options),
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
        require("hishel", "HttpCache.redis()")
        require("redis", "HttpCache.redis()")
        client = redis_connector(url, timeout)
        locks = client()
        return cls(
            redis_storage(client, key_prefix, storage_options),
            where=f"redis:{redis_address(locks)} {key_prefix!r}",
            locks=RedisLocks(locks, key_prefix, fill_lease),
            fill_wait=fill_wait,
        )

    # -- who uses it ---------------------------------------------------------------

    def attach(self) -> None:
        """A controller starts using the cache."""
        self._access.attach()

    def detach(self) -> None:
        """A controller closed: the last one closes the storage (a later
        user opens it again)."""
        self._access.detach()

    def storage(self) -> hishel.BaseStorage:
        """The storage, opened on first use (blocking: in a worker thread)."""
        return self._access.storage()

    # -- one hop through it -----------------------------------------------------------

    def exchange(
        self,
        request: Request,
        ticket: Ticket,
        send: Callable[[Request], Flow[Response]],
        limit: int | None,
        encoding: str,
    ) -> Flow[Response]:
        """The first hop of a call: answered from storage, revalidated, or
        sent with ``send`` and stored, as RFC 9111 says; the response, with
        its raw body in memory and ``extensions["caching"]`` telling what
        the cache did.

        A fresh entry answers at once, without a lock. A GET or HEAD that
        must go to the server takes its key's fill lock (waiting in short
        sleeps while another process fills that key, up to ``fill_wait``),
        looks again under it, and gives it back once its response is
        stored. One worker-thread hop looks up (and locks); one stores (and
        unlocks). A storage that fails makes it a miss (see the class)."""
        started = time.perf_counter()
        stored_request = hishel_request(request, ticket)
        key = ticket.key
        start = _Start()
        fill: _Fill | None = None
        if not self._access.usable():
            start.state = (
                _hishel().IdleClient(options=self.options).next(stored_request, [])
            )
        elif request.method in _FILLED:
            fill, start = yield from self._start_fill(key, stored_request)
        else:
            yield Blocking(self._begin, (key, stored_request, start, True, False))
        try:
            response = yield from self._answer(
                request, stored_request, key, start, fill, send, limit, encoding
            )
        except Exception:
            if fill is not None:
                yield ReleaseLease(fill)
            raise
        if fill is not None:
            yield ReleaseLease(fill)  # what it filled stored, then the key freed
        response.elapsed = _since(started)
        return response

    def _start_fill(self, key: str, request: Any) -> Flow[tuple[_Fill | None, _Start]]:
        """Look ``key`` up, and if the call must go to the server, take its
        fill lock: while another process holds it, look again in sleeps
        that grow from 5 to 50 ms (a waiter costs a worker thread only for
        each short try), until the entry it fills is found, the lock is
        free, or ``fill_wait`` has passed (then the call goes on without)."""
        deadline = time.monotonic() + self.fill_wait
        pause = _FIRST_POLL
        first = True
        while True:
            start = _Start()
            fill: _Fill | None = yield TakeLease(
                self._begin, (key, request, start, first, True)
            )
            first = False
            left = deadline - time.monotonic()
            if not start.busy or left <= 0:
                return fill, start
            yield Sleep(min(pause, left))
            pause = min(pause * 1.5, _LAST_POLL)

    def _answer(
        self,
        request: Request,
        stored_request: Any,
        key: str,
        start: _Start,
        fill: _Fill | None,
        send: Callable[[Request], Flow[Response]],
        limit: int | None,
        encoding: str,
    ) -> Flow[Response]:
        """Run hishel's state machine from where ``start`` left it: the
        response. Storage is written only if it answered this call (what
        it found is not ``None``); with a ``fill``, as the lock is given
        back."""
        hishel = _hishel()
        state, found = start.state, start.found
        revalidated = False
        upstream: Response | None = None
        raw = b""
        while True:
            if isinstance(state, hishel.CacheMiss | hishel.NeedRevalidation):
                revalidated = isinstance(state, hishel.NeedRevalidation)
                upstream = yield from send(with_changes(request, state.request.headers))
                if upstream.is_stream_consumed:
                    # built in memory by the transport (a mock), and so already
                    # decoded: kept as it is, its Content-Encoding dropped
                    raw = upstream.content
                    upstream.headers = decoded_headers(upstream.headers, raw)
                else:
                    sink = RawBody(request, limit)
                    yield _Read(upstream, sink)
                    raw = b"".join(sink.chunks)
                try:
                    state = state.next(hishel_response(upstream, raw))
                except Exception as error:  # on the stored entries it compared
                    self._access.entry_fault(error)
                    if found is not None:
                        for each in found.entries:
                            yield from self._write(
                                fill, found.storage, found.storage.remove_entry, each.id
                            )
                    return from_upstream(request, upstream, raw, False, False, encoding)
            elif isinstance(state, hishel.StoreAndUse):
                assert upstream is not None
                stored = found is not None
                if found is not None:
                    yield from self._write(
                        fill,
                        found.storage,
                        _store,
                        found.storage,
                        stored_request,
                        state.response,
                        key,
                    )
                return from_upstream(
                    request, upstream, raw, revalidated, stored, encoding
                )
            elif isinstance(state, hishel.CouldNotBeStored):
                assert upstream is not None
                return from_upstream(
                    request, upstream, raw, revalidated, False, encoding
                )
            elif isinstance(state, hishel.FromCache):
                return from_entry(request, state.entry, revalidated, encoding)
            elif isinstance(state, hishel.NeedToBeUpdated):
                if found is not None:
                    for updating in state.updating_entries:
                        yield from self._write(
                            fill,
                            found.storage,
                            found.storage.update_headers,
                            updating.id,
                            updating.response.headers,
                        )
                state = state.next()
            elif isinstance(state, hishel.InvalidateEntries):
                if found is not None:
                    for entry_id in state.entry_ids:
                        yield from self._write(
                            fill, found.storage, found.storage.remove_entry, entry_id
                        )
                state = state.next()
            else:  # pragma: no cover - hishel's states are closed
                raise TypeError(f"unknown cache state {state!r}")

    def _write(
        self,
        fill: _Fill | None,
        storage: Any,
        function: Callable[..., Any],
        *args: Any,
    ) -> Flow[None]:
        """Write to ``storage`` with ``function(*args)``: as ``fill`` is
        given back (before its key is free), or now."""
        if fill is not None:
            fill.writes.append((storage, function, args))
        else:
            yield Blocking(self._access.call, (storage, function, *args))

    # -- storage calls: in worker threads, faults counted, never raised ----------------

    def _begin(
        self, key: str, request: Any, start: _Start, first: bool, lock: bool
    ) -> _Fill | None:
        """Look ``key`` up and put hishel's first state for ``request`` in
        ``start``; with ``lock``, under the key's fill lock, tried first
        (so no other process can have filled the entry between the look
        and the lock). The fill, if the call must go to the server and
        holds the lock; else ``None``: no lock needed (the entry answers,
        or the storage failed: nothing will be stored), or ``start.busy``
        (another process is filling it: the caller waits and tries again;
        the entry is looked up all the same, so a fresh one answers at
        once). ``first``: the call's first look (the one that may try a
        storage after a pause)."""
        lease: Lease | None = None
        if lock:
            try:
                lease = self.locks.try_acquire(key)
            except Exception as error:  # go on unlocked
                self._access.lock_fault(error, self.locks)
                lock = False
        try:
            start.found, start.state = self._state(
                request, self._access.look(key, first)
            )
        except BaseException:
            if lease is not None:
                self._give_back(lease)
            raise
        if start.found is None or _answers(start.state) or not lock:
            if lease is not None:
                self._give_back(lease)  # nothing to fill, or to store
            return None
        if lease is None:
            start.busy = True
            return None
        return _Fill(self, lease)

    def _give_back(self, lease: Lease) -> None:
        """Give a fill lock back; a fault is counted, never raised."""
        try:
            lease.release()
        except Exception as error:
            self._access.lock_fault(error, self.locks)

    def _state(self, request: Any, found: Found | None) -> tuple[Found | None, Any]:
        """hishel's first state for ``request`` and the entries ``found``.
        Entries it cannot handle are removed, and it starts without them."""
        idle = _hishel().IdleClient(options=self.options)
        if found is None or not found.entries:
            return found, idle.next(request, [])
        try:
            return found, idle.next(request, found.entries)
        except Exception as error:
            self._access.entry_fault(error)
            for entry in found.entries:
                self._access.call(found.storage, found.storage.remove_entry, entry.id)
            return Found(found.storage, []), idle.next(request, [])

    def __repr__(self) -> str:
        return f"HttpCache({self.where})"


@dataclass(slots=True)
class _Start:
    """How a call through the cache starts (see ``HttpCache._begin``):
    what storage holds under its key (``None``: the storage failed, or is
    left alone), hishel's first state, and whether another process holds
    the key's fill lock."""

    found: Found | None = None
    state: Any = None
    busy: bool = False


def _answers(state: Any) -> bool:
    """Whether hishel's ``state`` answers from storage (fresh)."""
    return isinstance(state, _hishel().FromCache)


def _store(storage: Any, request: Any, response: Any, key: str) -> None:
    """Store ``response`` for ``request`` under ``key``."""
    entry = storage.create_entry(request, response, key)
    drained(entry.response.stream)  # saving as it is read


class _Fill:
    """A key's fill lock as the cache step holds it, with the writes the
    fill makes. Giving it back writes them first (the entry
    stored, or its headers renewed by a 304), so that the key is free only
    once a waiter can find what was filled. However the call ends it is
    given back (the driver holds it), and giving it back never raises."""

    __slots__ = ("_cache", "_lease", "writes")

    def __init__(self, cache: HttpCache, lease: Lease) -> None:
        self._cache = cache
        self._lease: Lease | None = lease
        self.writes: list[tuple[Any, Callable[..., Any], tuple[Any, ...]]] = []

    def release(self) -> None:
        writes, self.writes = self.writes, []
        try:
            for storage, function, args in writes:
                self._cache._access.call(storage, function, *args)
        finally:
            lease, self._lease = self._lease, None
            if lease is not None:
                self._cache._give_back(lease)


def _hishel() -> Any:
    import hishel

    return hishel
