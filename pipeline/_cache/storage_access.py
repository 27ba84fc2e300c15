"""The cache's storage as calls reach it: opened on first use, closed by
its last user, called in worker threads, and never a reason for a call to
fail.

- **A storage that fails is a miss.** A lookup or a write that fails
  (Redis gone, even halfway through a body; a SQLite file locked,
  unreadable or not a cache) is as if nothing were stored. One warning
  says so, and the storage is left alone: calls go to the server, storing
  nothing, until one call tries it again, ``recheck_after`` seconds later,
  then twice as long each time it fails again, up to ``recheck_most``.
  One line says when it answers again.
- **An entry that cannot be read is removed.** A malformed entry (or one
  written by something else) is removed and the call goes to the server;
  one warning says so the first time, later ones are debug lines.
- **One line per kind of fault.** hishel's storages swallow some faults
  and log each with its traceback, on every call; the records they log in
  a thread where restwire is calling them are taken (``_Swallowed``) and
  counted with the rest.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .._base.forks import renewed_in_child
from .backends import storage_errors
from .conversion import readable

if TYPE_CHECKING:
    import hishel

__all__ = ["Found", "Settings", "StorageAccess"]

logger = logging.getLogger("restwire")


@dataclass(slots=True)
class Found:
    """What storage held under a key: its entries (bodies read, for one run
    of the state machine), and the storage they came from."""

    storage: Any
    entries: list[Any]


class Settings(Protocol):
    """What the cache that owns a storage says of it, read at each use (so
    that a change made on the cache applies at once): its name in log
    lines, and how long a storage that failed is left alone."""

    where: str
    recheck_after: float
    recheck_most: float


class StorageAccess:
    """A cache's storage, as its calls reach it: see the module. Every
    method may block (it runs in a worker thread) and none raises a fault
    of the storage."""

    def __init__(
        self, new_storage: Callable[[], hishel.BaseStorage], settings: Settings
    ) -> None:
        self._new_storage = new_storage
        self._settings = settings
        self._storage: hishel.BaseStorage | None = None
        self._lock = threading.Lock()
        renewed_in_child(self, "_lock")
        self._users = 0
        self._storage_errors = storage_errors()
        # The circuit breaker: whether the storage fails, when a call may
        # try it next, and the pause until then.
        self._down = False
        self._retry_at = 0.0
        self._pause = 0.0
        self._said: set[str] = set()

    # -- who uses it ---------------------------------------------------------------

    def attach(self) -> None:
        """A user (a controller) starts using the storage."""
        with self._lock:
            self._users += 1

    def detach(self) -> None:
        """A user closed: the last one closes the storage (a later user
        opens it again)."""
        with self._lock:
            self._users -= 1
            storage = self._storage if self._users <= 0 else None
            if storage is not None:
                self._storage = None
        if storage is not None:
            try:
                storage.close()
            except Exception as error:  # closing: nothing left to lose
                logger.debug(
                    "HTTP cache %s not closed cleanly: %r", self._settings.where, error
                )

    def storage(self) -> hishel.BaseStorage:
        """The storage, opened on first use."""
        with self._lock:
            if self._storage is None:
                self._storage = self._new_storage()
                _SWALLOWED.watch(self._storage)
            return self._storage

    # -- looking up and writing ----------------------------------------------------------

    def look(self, key: str, first: bool) -> Found | None:
        """The entries under ``key``; ``None`` if the storage fails (or,
        unless this is the ``first`` look of a call, is known to be down)."""
        if self._down and not first:
            return None
        with _SWALLOWED.catching() as caught:
            try:
                storage = self.storage()
                entries = storage.get_entries(key)
            except Exception as error:
                self._failed(error, first)
                return None
            kept: list[Any] = []
            for entry in entries:
                try:
                    kept.append(readable(entry))
                except Exception as error:
                    if isinstance(error, self._storage_errors):
                        self._failed(error, first)  # (Redis gone mid-body)
                        return None
                    self.entry_fault(error)
                    self.call(storage, storage.remove_entry, entry.id)
        if self._swallowed(caught, first, storage):
            return None
        self._answered(first)
        return Found(storage, kept)

    def call(self, storage: Any, function: Callable[..., Any], *args: Any) -> None:
        """``function(*args)``, a write to ``storage``, unless it is known
        to be down; a fault it raises or hishel swallows is counted."""
        if self._down:
            return
        with _SWALLOWED.catching() as caught:
            try:
                function(*args)
            except Exception as error:
                if storage is self._storage:  # (else closed meanwhile: no fault)
                    if isinstance(error, self._storage_errors):
                        self._failed(error, False)
                    else:
                        self.entry_fault(error)
                return
        self._swallowed(caught, False, storage)

    # -- faults: one line each, and the circuit breaker -----------------------------------

    def _swallowed(
        self, caught: list[logging.LogRecord], first: bool, storage: Any
    ) -> bool:
        """Count the faults hishel swallowed (``caught``); whether the
        storage itself failed."""
        failed = False
        for record in caught:
            error = _fault_of(record)
            if storage is not self._storage:
                continue  # closed meanwhile: not a fault
            if isinstance(error, self._storage_errors):
                failed = True
                self._failed(error, first)
            else:
                self.entry_fault(error)
        return failed

    def usable(self) -> bool:
        """Whether this call may use the storage: yes, unless it failed
        lately; once each pause has passed, one call tries it again."""
        if not self._down:
            return True
        with self._lock:
            if not self._down:
                return True
            now = time.monotonic()
            if now < self._retry_at:
                return False
            self._retry_at = now + self._pause  # the others wait for this try
            return True

    def _failed(self, error: BaseException, first: bool) -> None:
        """The storage failed (in a call's ``first`` look: the one that may
        be a try after a pause)."""
        settings = self._settings
        with self._lock:
            if self._down:
                if first:  # a try after a pause: pause longer
                    self._pause = min(self._pause * 2, settings.recheck_most)
                    self._retry_at = time.monotonic() + self._pause
                return
            self._down = True
            self._pause = settings.recheck_after
            self._retry_at = time.monotonic() + self._pause
        logger.warning(
            "restwire: HTTP cache %s unavailable (%s): calls go to the server, "
            "uncached, until it answers again",
            settings.where,
            type(error).__name__,
        )

    def _answered(self, first: bool) -> None:
        """A call's ``first`` look went through: the storage is back, if it
        was down."""
        if not (self._down and first):
            return
        with self._lock:
            if not self._down:
                return
            self._down = False
        logger.warning("restwire: HTTP cache %s answers again", self._settings.where)

    def entry_fault(self, error: BaseException) -> None:
        """An entry could not be read (it is removed, by the caller)."""
        self._say_once(
            "entry",
            "restwire: HTTP cache %s: an entry it could not read (%s) was "
            "removed, and the call went to the server (said once)",
            type(error).__name__,
        )

    def lock_fault(
        self, error: BaseException, locks: object, first: bool = False
    ) -> bool:
        """The store of fill locks ``locks`` failed (in a call's ``first``
        look: then it counts as that look's try): a storage fault where it
        is the storage's own server (Redis), and then ``True`` (the storage
        is left alone: the call looks no further); else said once."""
        if getattr(locks, "shares_storage", False):
            self._failed(error, first)
            return True
        self._say_once(
            "lock",
            "restwire: HTTP cache %s: fill locks unavailable (%s): entries are "
            "filled without them (said once)",
            type(error).__name__,
        )
        return False

    def _say_once(self, kind: str, message: str, *args: object) -> None:
        with self._lock:
            first = kind not in self._said
            self._said.add(kind)
        logger.log(
            logging.WARNING if first else logging.DEBUG,
            message,
            self._settings.where,
            *args,
        )


class _Swallowed(logging.Filter):
    """Takes the records hishel's storages log, in the thread where restwire
    is calling one, about the faults they swallow (they answer as if
    nothing were stored, and log each fault with its traceback, on every
    call): restwire counts those faults itself, in one line per kind.
    Records logged anywhere else pass untouched."""

    def __init__(self) -> None:
        super().__init__()
        self._local = threading.local()

    def filter(self, record: logging.LogRecord) -> bool:
        caught: list[logging.LogRecord] | None = getattr(self._local, "caught", None)
        if caught is None or record.levelno < logging.WARNING:
            return True
        caught.append(record)
        return False

    @contextlib.contextmanager
    def catching(self) -> Iterator[list[logging.LogRecord]]:
        """The records taken in this thread until the block ends."""
        outer = getattr(self._local, "caught", None)
        caught: list[logging.LogRecord] = []
        self._local.caught = caught
        try:
            yield caught
        finally:
            self._local.caught = outer

    def watch(self, storage: object) -> None:
        """Take the records of the modules ``storage``'s class is made in."""
        for kind in type(storage).__mro__:
            if kind.__module__.split(".")[0] not in ("builtins", "abc"):
                logging.getLogger(kind.__module__).addFilter(self)  # once


_SWALLOWED = _Swallowed()


def _fault_of(record: logging.LogRecord) -> BaseException:
    """The exception a swallowed fault's record was logged with."""
    if record.exc_info and record.exc_info[1] is not None:
        return record.exc_info[1]
    return RuntimeError(record.getMessage())
