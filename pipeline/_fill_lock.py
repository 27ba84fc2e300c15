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
import uuid
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
    """Locks in Redis, with a lease: for processes on several machines."""

    def __init__(self, client: redis.Redis, prefix: str, wait: float, lease: float):
        self.client = client
        self.prefix = prefix
        self.wait = wait
        self.lease_ms = max(1, round(lease * 1000))

    def acquire(self, key: str) -> Any:
        import redis as redis_module

        name = f"{self.prefix}:fill:{key}"
        token = uuid.uuid4().hex
        deadline = time.monotonic() + self.wait
        try:
            while not self.client.set(name, token, nx=True, px=self.lease_ms):
                if time.monotonic() >= deadline:
                    return None
                time.sleep(_POLL)
        except redis_module.RedisError as error:  # no lock: go on without
            logger.warning("cache fill lock unavailable (%s)", type(error).__name__)
            return None
        return name, token

    def release(self, held: Any) -> None:
        import redis as redis_module

        name, token = held
        # only our own lock: after a lease ran out another may hold it
        try:
            self.client.eval(_RELEASE, 1, name, token)
        except redis_module.RedisError as error:  # its lease frees it
            logger.warning("cache fill lock not given back (%s)", type(error).__name__)


_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


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
