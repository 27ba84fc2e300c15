"""Fill locks: one process fills a cache entry while the others wait for it.

Ten workers starting cold all ask for the same URL at once: an HTTP cache
alone lets each of them miss and fetch the full body. :class:`FileLocks`
(beside a SQLite cache: processes on one machine) and :class:`RedisLocks`
(processes on many machines) make the second one wait until the first has
stored the entry, then find it there (fresh, or to revalidate with a 304).

Guarantees:

- A lock is taken per cache key, and only that key's fills wait for it:
  one long fill never delays another URL. It is held until the response
  body has been stored, then given back, however the call ends (a
  cancelled call's driver gives it back: it holds the lease from the
  moment it exists).
- Nothing waits without bound: the cache step tries a lock, sleeps a
  little, and tries again for at most ``fill_wait`` seconds, then goes on
  without it. A process that dies holding one frees it (the OS drops a
  dead process's file locks; a Redis lock has a lease).
- A lock is its taker's alone: a process forked while it holds one does
  not hold it, and gives back nothing it did not take (file locks are not
  inherited, a Redis lease checks the process), so a long-lived child
  never keeps a dead parent's key locked, nor frees its living parent's.
- Waiting never holds a thread: under the async driver only each short
  try runs in a worker thread.
- A lock store that fails raises from :meth:`FillLocks.try_acquire`; the
  cache (``storage_access``) counts the fault (one log line) and goes on
  without the lock.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .._base.effects import Lease

if TYPE_CHECKING:
    import redis

__all__ = ["FileLocks", "FillLocks", "RedisLocks", "private_folder"]


class FillLocks(Protocol):
    """Where fill locks are kept: one lock per cache key, tried without
    waiting (the cache step waits between tries, in short sleeps)."""

    def try_acquire(self, key: str) -> Lease | None:
        """The lock of ``key`` if it is free now, else ``None``; raises if
        the store of locks cannot answer (the caller goes on without)."""
        ...


class _Unlocked:
    """A lease that locks nothing (where ``fcntl`` is missing)."""

    __slots__ = ()

    def release(self) -> None:
        pass


# -- file locks ----------------------------------------------------------------------


class _LockFile:
    """This process's one descriptor on a lock file, and the keys (byte
    offsets) the process holds through it, each with its lease."""

    __slots__ = ("fd", "held", "lock")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.held: dict[int, _FileLease] = {}
        self.lock = threading.Lock()


#: Every lock file this process has open, by real path: one descriptor per
#: file, shared by every FileLocks on it (POSIX record locks belong to the
#: process, and closing any descriptor of the file would free them all).
_FILES: dict[str, _LockFile] = {}
_FILES_LOCK = threading.Lock()


class _FileLease:
    """One byte of a lock file, locked by this process for one fill."""

    __slots__ = ("_file", "_offset")

    def __init__(self, file: _LockFile, offset: int) -> None:
        self._file: _LockFile | None = file
        self._offset = offset

    def release(self) -> None:
        import fcntl

        file, self._file = self._file, None
        if file is None:
            return  # given back already, or inherited by a fork: not ours
        with file.lock:
            if file.held.get(self._offset) is self:
                del file.held[self._offset]
                fcntl.lockf(file.fd, fcntl.LOCK_UN, 1, self._offset)

    def disown(self) -> None:
        """This process did not take the lock (it was forked): forget it."""
        self._file = None


def _disown_in_child() -> None:
    """After a fork, in the child: hold nothing the parent held.

    POSIX record locks are not inherited: the child never holds its
    parent's locks, and the parent's stay the parent's (the OS frees them
    when the parent ends, whatever the child does). What the child did
    inherit is the parent's bookkeeping: each lease is disowned (giving it
    back does nothing), the tables of held keys are emptied, the locks
    guarding them made anew (a thread of the parent may have held one at
    the fork), and the descriptors closed, to be opened again on first use
    (closing them frees no lock of the parent's: the locks are per
    process)."""
    global _FILES_LOCK
    _FILES_LOCK = threading.Lock()
    for file in _FILES.values():
        for lease in file.held.values():
            lease.disown()
        file.held.clear()
        file.lock = threading.Lock()
        fd, file.fd = file.fd, -1
        with contextlib.suppress(OSError):
            os.close(fd)


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_disown_in_child)


def private_folder(folder: Path) -> None:
    """Make ``folder`` and any missing parents, each readable by its owner
    alone (0700, whatever the umask adds); folders that exist are left as
    they are."""
    missing: list[Path] = []
    for each in (folder, *folder.parents):
        if each.is_dir():
            break
        missing.append(each)
    for each in reversed(missing):
        try:
            each.mkdir(mode=0o700)
        except FileExistsError:  # made meanwhile by another process
            continue
        os.chmod(each, 0o700)  # exactly: whatever the umask took or left


class FileLocks:
    """Fill locks in one file, ``folder/fill.lock``, for processes sharing
    one machine (a SQLite cache): each cache key has its own lock, one byte
    of that file, at an offset given by a SHA-256 digest of the key, held
    by a POSIX record lock (``fcntl.lockf``).

    - Per key: only fills of the same key wait for each other. Two keys
      share a byte only if 62 bits of their digests agree (then one waits
      for the other; a wrong answer is impossible): for a thousand fills
      in flight at once, about one chance in 10^13.
    - Between processes, the OS keeps the locks: a process that dies, or
      is killed, holds none. Within a process (threads, calls on event
      loops), a table of the keys it holds keeps them apart, since record
      locks belong to a process, not to a descriptor.
    - Forks: record locks are not inherited, so a child never keeps a
      lock of its parent's, nor frees one; what it inherited of the
      parent's bookkeeping is dropped at once (``os.register_at_fork``).
    - Nothing grows and nothing is cleaned up: one empty file (0600) in a
      folder readable by its owner alone (0700), whatever the number of
      keys. Taking and giving back a lock is one system call each.

    Why not a file per key with ``flock``: creating and removing a file
    is file system work on every fill (its cost on a journaled file
    system: docs/performance.md), and a removal races with the next
    taker, which must check it still holds the file the path names;
    keeping the files makes the folder grow with every URL. Why not one
    file with ``flock`` stripes: unrelated keys would wait for each other.
    Record locks free every lock of the process on a file when any
    descriptor of that file closes: this module keeps one descriptor per
    file for the whole process, shared by every FileLocks, and closes it
    only in a forked child. Where ``fcntl`` is missing (Windows), nothing
    is locked.
    """

    #: The lock file in ``folder``.
    NAME = "fill.lock"
    #: A lock that fails (the folder unwritable) says nothing of the cache's
    #: storage: the cache goes on filling without locks.
    shares_storage = False

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._file: _LockFile | None = None

    @staticmethod
    def offset_of(key: str) -> int:
        """The byte of the lock file that locks ``key``."""
        return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8]) >> 2

    def try_acquire(self, key: str) -> Lease | None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return _Unlocked()
        file = self._open()
        offset = self.offset_of(key)
        with file.lock:
            if offset in file.held:
                return None  # held by another call of this process
            try:
                fcntl.lockf(file.fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset)
            except OSError as error:
                if error.errno in (errno.EACCES, errno.EAGAIN):
                    return None  # held by another process
                raise
            lease = _FileLease(file, offset)
            file.held[offset] = lease
            return lease

    def _open(self) -> _LockFile:
        """This process's descriptor on the lock file (opened, with its
        folder made, on first use)."""
        file = self._file
        if file is not None and file.fd >= 0:
            return file
        private_folder(self.folder)
        path = os.path.realpath(self.folder / self.NAME)
        with _FILES_LOCK:
            file = _FILES.get(path)
            if file is None:
                file = _FILES[path] = _LockFile(-1)
            if file.fd < 0:
                file.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        self._file = file
        return file


# -- Redis locks -----------------------------------------------------------------------


class _RedisLease:
    """A redis-py ``Lock`` held by the process that took it; in a process
    forked from it, giving it back does nothing (the parent still fills)."""

    __slots__ = ("_lock", "_pid")

    def __init__(self, lock: Any) -> None:
        self._lock = lock
        self._pid = os.getpid()

    def release(self) -> None:
        import redis as redis_module

        if self._pid != os.getpid():
            return  # inherited by a fork: the lock is the parent's
        self._pid = -1
        # a lease that ran out is not ours to give back any more
        with contextlib.suppress(redis_module.exceptions.LockError):
            self._lock.release()


class RedisLocks:
    """redis-py's ``Lock`` (a key set only if absent, with a lease, given
    back only by its owner): for processes on several machines. A Redis
    that fails raises (``redis.RedisError``); a lock not given back frees
    itself when its lease ends."""

    #: The locks live in the cache's own Redis: one that fails is the
    #: storage failing (the cache leaves it alone for a while).
    shares_storage = True

    def __init__(self, client: redis.Redis, prefix: str, lease: float):
        self.client = client
        self.prefix = prefix
        self.lease = lease

    def try_acquire(self, key: str) -> Lease | None:
        lock = self.client.lock(
            f"{self.prefix}:fill:{key}",
            timeout=self.lease,
            # given back from whichever worker thread finishes the call
            thread_local=False,
        )
        return _RedisLease(lock) if lock.acquire(blocking=False) else None
