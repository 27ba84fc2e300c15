"""``SharedToken``: one token, and one refresh of it, for many processes.

Ten workers of one service each hold an ``AccessToken``; when the token
expires, all ten see 401 within a few milliseconds. Given the same
``SharedToken``, they refresh once between them::

    shared = SharedToken("redis://127.0.0.1:6379/0", name="my-api")
    auth = AccessToken(refresh=refresh_token, shared=shared)

Guarantees:

- **One slot per origin and holder.** Unnamed, the token slot (and its
  lock) is that of the origin (scheme, host, port) of the call that reads
  or refreshes it and of whose token it is, as the token holder says:
  ``restwire:token:<origin>:<holder>``, where an OAuth2 grant's holder is
  a digest of its grant type, token URL, client id, scope and extra form
  fields (the same in every process, so one client's processes share one
  token, and two clients, two tenants or two scopes never do). A holder
  that cannot say whose its token is (an ``AccessToken`` whose
  ``refresh`` restwire cannot read, an ``OAuth2Password``: a user's) is
  refused an unnamed ``SharedToken`` with a ``SettingError`` asking for a
  name. With ``name=``, one slot of that name serves every origin and
  holder given it: give each token its own name.
- **One refresh.** A refresh runs under a lock in Redis with a lease
  (``lease`` seconds), so a process that dies holding it frees it then.
  The lock is taken as a ``TakeLease``: a call cancelled or interrupted
  while it holds it gives it back at once (the driver does). The slot is
  read in the same atomic step that takes the lock: if it holds a token
  other than the one the 401 was sent with, another process refreshed
  already, and that token is used without calling ``refresh``. Else
  ``refresh`` runs and its token is written to the slot before the lock is
  given back.
- **Fenced writes.** The token is written only if the lock is still this
  refresh's, checked and written in one Lua script: a refresh that
  outlived its lease never writes its older token over the one the next
  holder wrote; it uses that newer one (and says so in one warning).
- **A failure, once.** A refresh that fails records it in Redis (for
  ``wait`` seconds and one more), under the same fence. A process that was
  waiting for the lock behind it finds the record when it gets the lock
  and fails the same way without calling ``refresh``: its 401's cause is a
  :class:`SharedTokenError` naming its call. A 401 that comes after that
  round ended refreshes again.
- **Bounded waits.** Waiting for the lock is a ``Sleep`` between short
  tries (no thread held), for at most ``wait`` seconds; a lock not free
  by then is the refresh failing (a :class:`SharedTokenError` as the
  401's cause). A Redis command waits at most ``timeout`` seconds (for a
  URL; a client you pass keeps its own settings).
- **A dead Redis costs one line.** A Redis that is down, or silent past
  ``timeout``, trips a breaker (``redis_breaker``): one warning naming its
  address, then for a back-off (5 s, doubling to 30 s while it stays
  down) no call waits for Redis: each process reads no slot and refreshes
  its own token, as without a ``SharedToken``. One line again when Redis
  answers.
- Every Redis command is a ``Blocking`` or ``TakeLease`` effect: the same
  object serves ``Controller`` and ``AsyncController`` (in a worker thread
  there), never blocking an event loop. Every error a call raises here is
  a ``RestwireError`` naming the call. The token is kept in Redis as it is
  sent, so the Redis server is as trusted as the token itself; no repr,
  log line or error shows it.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from restwire import (
    Blocking,
    Flow,
    NetworkError,
    ReleaseLease,
    RestwireError,
    SettingError,
    Sleep,
    TakeLease,
    UsageError,
)

from ._checks import check_each, check_positive
from ._checks import redis_client as redis_of
from .redis_breaker import RedisBreaker

if TYPE_CHECKING:
    import redis

    from restwire.extension import Origin

__all__ = ["SharedToken", "SharedTokenError"]

logger = logging.getLogger("restwire")

#: The prefix of the default slots: ``restwire:token:<origin>``.
DEFAULT_PREFIX = "restwire:token"

#: The first pause between tries of a busy lock, and the longest.
_FIRST_PAUSE, _LONGEST_PAUSE = 0.005, 0.1

#: Take the lock if it is free; in any case read the slot and the last
#: failure record. KEYS = lock, slot, failed; ARGV = owner, lease ms.
_TAKE = """
local taken = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
return {taken and 1 or 0, redis.call('GET', KEYS[2]), redis.call('GET', KEYS[3])}
"""

#: Write the token if the lock is still ours; else the slot as it is.
#: KEYS = lock, slot; ARGV = owner, token. Returns {written, slot}.
_WRITE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[2], ARGV[2])
  return {1, ARGV[2]}
end
return {0, redis.call('GET', KEYS[2])}
"""

#: Record a failed refresh if the lock is still ours. KEYS = lock,
#: failed; ARGV = owner, record, time to live in ms.
_FAILED = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
"""

#: Give the lock back if it is still ours. KEYS = lock; ARGV = owner.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class SharedTokenError(RestwireError):
    """A refresh through a :class:`SharedToken` failed for a shared reason,
    which the message says, naming the call: the lock was not free within
    ``wait``, or the refresh the call waited behind failed in another
    process. The 401 the call raises has it as its ``__cause__``."""


def _text(value: Any) -> str | None:
    """A Redis reply as text (bytes decoded; a client may decode itself)."""
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass(frozen=True, slots=True)
class _Keys:
    """One slot's Redis keys, and its name for messages."""

    name: str
    lock: str
    slot: str
    failed: str

    @classmethod
    def of(cls, prefix: str) -> _Keys:
        return cls(prefix, f"{prefix}:lock", f"{prefix}:token", f"{prefix}:failed")


@dataclass(slots=True)
class _Found:
    """What the last try of the lock found: the slot's token and the last
    failure record (written by the blocking try, read by the flow)."""

    slot: str | None = None
    failed: str | None = None


class _Lock:
    """The refresh lock, held: a lease the driver gives back however the
    flow ends. Giving it back deletes it only if it is still ours."""

    __slots__ = ("keys", "owner", "shared")

    def __init__(self, shared: SharedToken, keys: _Keys, owner: str) -> None:
        self.shared, self.keys, self.owner = shared, keys, owner

    def release(self) -> None:
        try:
            self.shared._release(keys=[self.keys.lock], args=[self.owner])
        except Exception as error:  # its lease frees it
            self.shared._failed_quietly(error, "give the refresh lock back")


class SharedToken:
    """A token slot and a refresh lock that processes share through Redis."""

    def __init__(
        self,
        redis_client: str | redis.Redis,
        name: str | None = None,
        *,
        lease: float = 30.0,
        wait: float = 30.0,
        timeout: float = 5.0,
    ) -> None:
        if name is not None and not isinstance(name, str):
            raise UsageError(
                f"SharedToken(name=...) must be text or None, not {type(name).__name__}"
            )
        check_each(
            check_positive, "SharedToken", lease=lease, wait=wait, timeout=timeout
        )
        client: redis.Redis = redis_of("SharedToken", redis_client, timeout)
        self.redis = client
        #: The slot's name; ``None``: one slot per origin and holder.
        self.name = name
        self.lease = lease
        self.wait = wait
        self._lease_ms = max(1, round(lease * 1000))
        self._failed_ms = max(1, round((wait + 1.0) * 1000))
        self._take = client.register_script(_TAKE)
        self._write = client.register_script(_WRITE)
        self._record = client.register_script(_FAILED)
        self._release = client.register_script(_RELEASE)
        shown = f"SharedToken {name!r}" if name is not None else "SharedToken"
        self._breaker = RedisBreaker(
            client, shown, "each process refreshes its own token"
        )

    def _keys(self, origin: Origin, holder: str | None) -> _Keys:
        """The keys of the slot of ``origin`` and ``holder`` (whose token:
        see the module), or of this one's name."""
        if self.name is not None:
            return _Keys.of(self.name)
        if holder is None:
            raise SettingError(
                "SharedToken: a slot with no name needs a holder that says whose "
                "token it is; give the SharedToken a name (SharedToken(redis, "
                "name=...))"
            )
        scheme, host, port = origin
        where = f"{scheme}://{host}:{port}" if port else f"{scheme}://{host}"
        return _Keys.of(f"{DEFAULT_PREFIX}:{where}:{holder}")

    # -- blocking steps (each run by a driver: Blocking, TakeLease) --------------

    def read(self, origin: Origin, holder: str | None = None) -> str | None:
        """The token in the slot of ``origin`` and ``holder``, if any (a
        blocking Redis command)."""
        return _text(self.redis.get(self._keys(origin, holder).slot))

    def _try_lock(self, keys: _Keys, found: _Found) -> _Lock | None:
        """The lock if it is free now, else ``None``; ``found`` gets the
        slot's token and the last failure record, read in the same step."""
        owner = uuid.uuid4().hex
        taken, slot, failed = self._take(
            keys=[keys.lock, keys.slot, keys.failed], args=[owner, self._lease_ms]
        )
        found.slot, found.failed = _text(slot), _text(failed)
        return _Lock(self, keys, owner) if int(taken) else None

    def _write_fenced(self, lock: _Lock, token: str) -> tuple[bool, str | None]:
        """Write ``token`` if ``lock`` is still held; whether it was, and
        the slot's token after."""
        written, slot = self._write(
            keys=[lock.keys.lock, lock.keys.slot], args=[lock.owner, token]
        )
        return bool(int(written)), _text(slot)

    def _record_failure(self, lock: _Lock, record: str) -> None:
        self._record(
            keys=[lock.keys.lock, lock.keys.failed],
            args=[lock.owner, record, self._failed_ms],
        )

    def _failed_quietly(self, error: Exception, doing: str) -> None:
        """A step whose failure the call survives: an outage trips the
        breaker (its one line); anything else is one line of its own."""
        if not self._breaker.failed(error):
            logger.warning(
                "shared token: could not %s (%s)", doing, type(error).__name__
            )

    # -- flows ---------------------------------------------------------------------

    def current(
        self, origin: Origin, label: str, holder: str | None = None
    ) -> Flow[str | None]:
        """The token in the slot of ``origin`` and ``holder``, if any, for
        the call ``label``; ``None`` too while Redis is down (nothing waits
        for it)."""
        if not self._breaker.allows():
            return None
        try:
            token: str | None = yield Blocking(self.read, (origin, holder))
        except Exception as error:
            if self._breaker.failed(error):
                return None
            raise SharedTokenError(
                f"{label}: the shared token could not be read ({type(error).__name__})"
            ) from error
        self._breaker.succeeded()
        return token

    def refreshed(
        self,
        origin: Origin,
        label: str,
        sent: str | None,
        refresh: Callable[[], Flow[str]],
        holder: str | None = None,
        *,
        patient: bool = True,
    ) -> Flow[str | None]:
        """The token to use after the call ``label`` to ``origin`` got a 401
        sent with ``sent``: another process's newer one from the slot (of
        ``origin`` and ``holder``), or ``refresh``'s, then written to the
        slot; all under the shared lock.

        ``refresh`` raises the error the call is to raise when it fails
        (its ``__cause__``, if any, says why). While Redis is down,
        ``refresh`` runs alone. Raises :class:`SharedTokenError` for a lock
        not free within ``wait``, or a refresh failed in another process.
        Not ``patient`` (an early renewal of a token still valid): a lock
        another process holds is not waited for, and the result is the
        slot's newer token if it has one, else ``None`` (keep yours).
        """
        keys = self._keys(origin, holder)
        if not self._breaker.allows():
            return (yield from refresh())
        taken = yield from self._locked(keys, label, patient)
        if taken is None:  # Redis down: this process's own token
            return (yield from refresh())
        lock, before, found = taken
        if lock is None:  # another process renews it: not waited for
            return found.slot if found.slot is not None and found.slot != sent else None
        try:
            if found.slot is not None and found.slot != sent:
                token = found.slot  # another process refreshed already
            elif found.failed is not None and found.failed != before:
                kind = found.failed.partition(" ")[2][:100] or "an error"
                raise SharedTokenError(
                    f"{label}: the token refresh this call waited for failed in "
                    f"another process ({kind}); not tried again"
                )
            else:
                token = yield from self._refresh_under(lock, refresh)
        except GeneratorExit:
            raise  # abandoned: the driver gives the lock back
        except Exception:
            yield ReleaseLease(lock)
            raise
        yield ReleaseLease(lock)
        return token

    def _locked(
        self, keys: _Keys, label: str, patient: bool = True
    ) -> Flow[tuple[_Lock | None, str | None, _Found] | None]:
        """Take the lock of ``keys``, trying for at most ``wait`` seconds
        (not ``patient``: once; then a lock held elsewhere is ``None``):
        the lock, the failure record found at the first try, and what the
        try that took it found. ``None``: Redis is down."""
        found = _Found()
        started = time.monotonic()
        pause = _FIRST_PAUSE
        before: str | None = None
        first = True
        while True:
            try:
                lock: _Lock | None = yield TakeLease(self._try_lock, (keys, found))
            except Exception as error:
                if self._breaker.failed(error):
                    return None
                raise SharedTokenError(
                    f"{label}: the shared refresh lock {keys.name!r} could not be "
                    f"taken ({type(error).__name__}); the token was not refreshed"
                ) from error
            self._breaker.succeeded()
            if first:
                before, first = found.failed, False
            if lock is not None or not patient:
                return lock, before, found
            left = started + self.wait - time.monotonic()
            if left <= 0:
                raise SharedTokenError(
                    f"{label}: the shared refresh lock {keys.name!r} was not free "
                    f"within {self.wait:g} s; the token was not refreshed"
                )
            yield Sleep(min(pause, left))
            pause = min(pause * 2, _LONGEST_PAUSE)

    def _refresh_under(
        self, lock: _Lock, refresh: Callable[[], Flow[str]]
    ) -> Flow[str]:
        """Run ``refresh`` holding ``lock``; write its token, fenced, or
        record its failure for the processes waiting behind it."""
        try:
            token = yield from refresh()
        except Exception as failure:
            cause = failure.__cause__
            if cause is None and not isinstance(failure, NetworkError):
                cause = failure  # a renewal's own error, with no 401 behind it
            kind = type(cause).__name__ if cause is not None else "no token"
            try:
                yield Blocking(
                    self._record_failure, (lock, f"{uuid.uuid4().hex} {kind}")
                )
            except Exception as error:
                self._failed_quietly(error, "record a failed refresh")
            raise
        written: bool
        current: str | None
        try:
            written, current = yield Blocking(self._write_fenced, (lock, token))
        except Exception as error:  # the token is good all the same
            self._failed_quietly(error, "write the refreshed token")
            return token
        if not written:
            logger.warning(
                "shared token: a refresh outlived its lock's lease (%g s); its "
                "token was not written over the next holder's",
                self.lease,
            )
            if current is not None:
                return current  # the next holder's, newer
        return token

    def __repr__(self) -> str:
        name = (
            f"name={self.name!r}"
            if self.name is not None
            else "a slot per origin and holder"
        )
        return f"SharedToken({name}, lease={self.lease}, wait={self.wait})"
