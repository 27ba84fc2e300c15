"""Fill locks: one process fills a cache entry while the others wait for it.

Ten workers starting cold all ask for the same URL at once: an HTTP cache
alone lets each of them miss and fetch the full body. :class:`FileLocks`
(beside a SQLite cache: processes on one machine) and :class:`RedisLocks`
(processes on many machines) make the second one wait until the first has
stored the entry, then find it there (fresh, or to revalidate with a 304).

Guarantees:

- A lock is taken per cache key (file locks: one of 64 stripes, so
  unrelated keys rarely meet) and held until the response body has been
  stored, then given back, however the call ends (a cancelled call's
  driver gives it back: it holds the lease from the moment it exists).
- Nothing waits without bound: the cache step tries a lock, sleeps a
  little, and tries again for at most ``fill_wait`` seconds, then goes on
  without it; a lock Redis cannot give is no lock. A process that dies
  holding one frees it (the OS closes its file; a Redis lock has a lease).
- Waiting never holds a thread: under the async driver only each short
  try runs in a worker thread.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ._effects import Lease

if TYPE_CHECKING:
    import redis

__all__ = ["FileLocks", "FillLocks", "RedisLocks"]

logger = logging.getLogger("restwire")


class FillLocks(Protocol):
    """Where fill locks are kept: one lock per cache key, tried without
    waiting (the cache step waits between tries, in short sleeps)."""

    def try_acquire(self, key: str) -> Lease | None:
        """The lock of ``key`` if it is free now, else ``None``. A store of
        locks that cannot answer gives a lease that locks nothing: the call
        goes on as it would without the lock."""
        ...


class _Unlocked:
    """A lease that locks nothing (the lock store could not be reached)."""

    __slots__ = ()

    def release(self) -> None:
        pass


class _FileLease:
    """A ``flock``-ed file; closing it gives the lock back."""

    __slots__ = ("_fd",)

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def release(self) -> None:
        os.close(self._fd)


class FileLocks:
    """Locks as ``flock``-ed files in ``folder``: for processes sharing one
    machine (a SQLite cache). Where ``fcntl`` is missing (Windows), nothing
    is locked."""

    STRIPES = 64

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def try_acquire(self, key: str) -> Lease | None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return _Unlocked()
        self.folder.mkdir(parents=True, exist_ok=True)
        stripe = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % self.STRIPES
        fd = os.open(self.folder / f"{stripe:02d}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        return _FileLease(fd)


class _RedisLease:
    __slots__ = ("_lock",)

    def __init__(self, lock: Any) -> None:
        self._lock = lock

    def release(self) -> None:
        import redis as redis_module

        try:
            self._lock.release()
        except redis_module.exceptions.LockError:
            pass  # its lease ran out: it is not ours to give back any more
        except redis_module.RedisError as error:  # its lease frees it
            logger.warning("cache fill lock not given back (%s)", type(error).__name__)


class RedisLocks:
    """redis-py's ``Lock`` (a key set only if absent, with a lease, given
    back only by its owner): for processes on several machines."""

    def __init__(self, client: redis.Redis, prefix: str, lease: float):
        self.client = client
        self.prefix = prefix
        self.lease = lease

    def try_acquire(self, key: str) -> Lease | None:
        import redis as redis_module

        lock = self.client.lock(
            f"{self.prefix}:fill:{key}",
            timeout=self.lease,
            # given back from whichever worker thread finishes the call
            thread_local=False,
        )
        try:
            return _RedisLease(lock) if lock.acquire(blocking=False) else None
        except redis_module.RedisError as error:  # no lock: go on without
            logger.warning("cache fill lock unavailable (%s)", type(error).__name__)
            return _Unlocked()
