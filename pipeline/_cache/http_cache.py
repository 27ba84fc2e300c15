"""HTTP caching for a controller (RFC 9111), by hishel; a response is shared
only between calls of one identity.

``Controller(cache=HttpCache.sqlite("api-cache.db"))`` makes the first hop
of every call a step through hishel's RFC 9111 state machine (its sans-I/O
core), with the storage reached through ``Blocking`` effects: one
definition for both drivers, one storage for sync and async controllers,
and nothing installed on the client. Then:

- Each call's first hop carries a ``Ticket`` (``keys``): its cache key, a
  digest of the call's identity (its credentials, the URL's userinfo, the
  cookies it may send, its credentials mode) and URL, never of the method,
  so that an unsafe request finds and invalidates the entries of its URL,
  as RFC 9111 section 4.4 asks. Calls of different identities never share
  an entry, whatever ``Vary`` the server sends; within one identity the
  cache is a private cache (``Cache-Control: private`` is stored, for that
  identity alone; ``no-store`` never is).
- A hop without a ticket (a redirect's later hops, a client with its own
  ``auth``, a streamed body, a request the user sends on the client
  outside restwire) never meets the cache.
- Nothing credential-bearing is stored (``conversion``): hishel sees the
  request without its credential headers, and the stored response has no
  ``Set-Cookie`` (nor any header whose name says credential). The live
  response keeps them. A SQLite file or a Redis shared by machines holds
  bodies and the key's digest, no token or cookie.
- A GET or HEAD miss is filled by one process at a time (``cached_hop``,
  ``fill_locks``); the others wait (without a thread, in short sleeps) up
  to ``fill_wait`` and then find the entry.
- A storage that fails, or an entry that cannot be read, is a miss and one
  log line, never an error (``storage_access``).

The controller spares the parse too: a stale ``get`` goes through the
cache, and when the body it gets is the one its stored value was read from
(a 304, or a fresh entry another process stored), the stored value is kept
and renewed rather than parsed again (``_controller``).

hishel is an optional dependency (``pip install "restwire[cache]"``),
imported when a cache is made.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._base.effects import Flow
from .._base.errors import UsageError, not_a_redis_url, redis_address, require
from .._base.library import DefaultEncoding, Request, Response
from .backends import redis_connector, redis_storage, sqlite_storage
from .cached_hop import CachedHop
from .fill_locks import FileLocks, FillLocks, RedisLocks
from .keys import Ticket
from .storage_access import StorageAccess

if TYPE_CHECKING:
    import hishel

__all__ = ["HttpCache"]


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
        if not isinstance(path, str | os.PathLike):
            raise UsageError(
                f"HttpCache.sqlite() takes a file's path, not {type(path).__name__}"
            )
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
        if not isinstance(url, str):
            raise UsageError(
                f"HttpCache.redis() takes a Redis URL, not {type(url).__name__}"
            )
        require("hishel", "HttpCache.redis()")
        require("redis", "HttpCache.redis()")
        client = redis_connector(url, timeout)
        try:
            locks = client()
        except ValueError:
            raise not_a_redis_url("HttpCache.redis()", url) from None
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
        encoding: DefaultEncoding,
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
        hop = CachedHop(
            self._access,
            self.locks,
            self.fill_wait,
            self.options,
            request,
            ticket,
            send,
            limit,
            encoding,
        )
        return (yield from hop.run())

    def __repr__(self) -> str:
        return f"HttpCache({self.where})"
