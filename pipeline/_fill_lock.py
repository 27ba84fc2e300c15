"""Fill locks: one process fills a cache entry while the others wait for it.

Ten workers starting cold all ask for the same URL at once: an HTTP cache
alone lets each of them miss and fetch the full body. :class:`FileLocks`
(beside a SQLite cache: processes on one machine) and :class:`RedisLocks`
(processes on many machines) make the second one wait until the first has
stored the entry, then find it there (fresh, or to revalidate with a 304).

Guarantees:

- A lock is taken per cache key (file locks: one of 64 stripes, so
  unrelated keys rarely meet) and held until the response body has been
  read into the cache, then given back, however the call ends.
- Nothing waits without bound: a lock not free within ``wait`` seconds is
  skipped (the call goes on as it would without a cache lock), and so is
  one Redis cannot give; a process that dies holding one frees it (the OS
  closes its file; a Redis lock has a lease).
- Taking a lock never blocks an event loop: the async cache transport asks
  from a worker thread.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import redis

__all__ = ["FileLocks", "FillLocks", "RedisLocks"]

logger = logging.getLogger("restwire")

#: How often a waiter looks again (seconds).
_POLL = 0.01


class FillLocks(Protocol):
    def acquire(self, key: str) -> Any:
        """Take the lock of ``key`` (waiting up to the locks' ``wait``);
        what to give :meth:`release`, or ``None`` if it was not free in time."""
        ...

    def release(self, held: Any) -> None: ...


class FileLocks:
    """Locks as ``flock``-ed files in ``folder``: for processes sharing one
    machine (a SQLite cache). Where ``fcntl`` is missing (Windows), nothing
    is locked."""

    STRIPES = 64

    def __init__(self, folder: Path, wait: float) -> None:
        self.folder = folder
        self.wait = wait

    def acquire(self, key: str) -> Any:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return None
        self.folder.mkdir(parents=True, exist_ok=True)
        stripe = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % self.STRIPES
        fd = os.open(self.folder / f"{stripe:02d}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + self.wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    return None
                time.sleep(_POLL)

    def release(self, held: Any) -> None:
        os.close(held)  # closing the file gives its lock back


class RedisLocks:
    """redis-py's ``Lock`` (a key set only if absent, with a lease, given
    back only by its owner): for processes on several machines."""

    def __init__(self, client: redis.Redis, prefix: str, wait: float, lease: float):
        self.client = client
        self.prefix = prefix
        self.wait = wait
        self.lease = lease

    def acquire(self, key: str) -> Any:
        import redis as redis_module

        lock = self.client.lock(
            f"{self.prefix}:fill:{key}",
            timeout=self.lease,
            blocking_timeout=self.wait,
            sleep=_POLL,
            # given back from whichever worker thread reads the body's end
            thread_local=False,
        )
        try:
            return lock if lock.acquire() else None
        except redis_module.RedisError as error:  # no lock: go on without
            logger.warning("cache fill lock unavailable (%s)", type(error).__name__)
            return None

    def release(self, held: Any) -> None:
        import redis as redis_module

        try:
            held.release()
        except redis_module.exceptions.LockError:
            pass  # its lease ran out: it is not ours to give back any more
        except redis_module.RedisError as error:  # its lease frees it
            logger.warning("cache fill lock not given back (%s)", type(error).__name__)


class Once:
    """Calls ``release(held)`` the first time it is called, from any thread."""

    __slots__ = ("_held", "_lock", "_locks")

    def __init__(self, locks: FillLocks, held: Any) -> None:
        self._locks, self._held = locks, held
        self._lock = threading.Lock()

    def __call__(self) -> None:
        with self._lock:
            held, self._held = self._held, None
        if held is not None:
            self._locks.release(held)
