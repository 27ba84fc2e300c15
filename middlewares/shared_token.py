"""``SharedToken``: one token, and one refresh of it, for many processes.

Ten workers of one service each hold an ``AccessToken``; when the token
expires, all ten see 401 within a few milliseconds. Given the same
``SharedToken``, they refresh once between them::

    shared = SharedToken("redis://127.0.0.1:6379/0", name="billing-api")
    auth = AccessToken(refresh=refresh_token, shared=shared)

Guarantees:

- A refresh runs under a Redis lock (redis-py's ``Lock``, with a lease so a
  process that dies holding it frees it after ``lease`` seconds). Inside
  it, the slot is read first: if it holds a token other than the one the
  401 was sent with, another process refreshed already, and that token is
  used without calling ``refresh``. Else ``refresh`` runs and its token is
  written to the slot before the lock is given back.
- A process whose ``AccessToken`` holds no token reads the slot on its
  first call, so a worker started after a refresh uses the current token.
- A lock not free within ``wait`` seconds, or Redis unreachable or silent
  past ``timeout`` seconds (for a URL; a client you pass keeps its own
  settings), is the refresh failing: the 401 reaches the caller with that error as its
  ``__cause__``, as for any failed refresh. Nothing waits without bound.
- Every Redis command is a ``Blocking`` effect: the same object serves
  ``Controller`` and ``AsyncController`` (in a worker thread there), never
  blocking an event loop. The token is kept in Redis as it is sent, so the
  Redis server is as trusted as the token itself; the repr never shows it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from restwire import Blocking, Flow

if TYPE_CHECKING:
    import redis

__all__ = ["SharedToken"]


class SharedToken:
    """A token slot and a refresh lock that processes share through Redis."""

    def __init__(
        self,
        redis_client: str | redis.Redis,
        name: str = "restwire:token",
        *,
        lease: float = 30.0,
        wait: float = 30.0,
        timeout: float = 5.0,
    ) -> None:
        if isinstance(redis_client, str):
            import redis as redis_module

            redis_client = redis_module.Redis.from_url(
                redis_client, socket_timeout=timeout, socket_connect_timeout=timeout
            )
        self.redis = redis_client
        self.name = name
        self.lease = lease
        self.wait = wait

    @property
    def _slot(self) -> str:
        return f"{self.name}:token"

    def read(self) -> str | None:
        """The token in the slot, if any (a blocking Redis command)."""
        value = self.redis.get(self._slot)
        if value is None:
            return None
        return value.decode() if isinstance(value, bytes) else str(value)

    def _write(self, token: str) -> None:
        self.redis.set(self._slot, token)

    def _lock(self) -> Any:
        # thread_local=False: under AsyncController the lock is taken and
        # given back from worker threads that need not be the same one.
        lock = self.redis.lock(
            f"{self.name}:lock",
            timeout=self.lease,
            blocking_timeout=self.wait,
            thread_local=False,
        )
        if not lock.acquire():
            raise TimeoutError(
                f"the shared refresh lock {self.name!r} was not free within "
                f"{self.wait} s"
            )
        return lock

    @staticmethod
    def _release(lock: Any) -> None:
        import redis as redis_module

        # A LockError: the lease ran out, and Redis freed the lock already.
        # Any other failure (Redis down just now): the lease will free it,
        # and the token, refreshed and written, is good all the same.
        with contextlib.suppress(redis_module.RedisError):
            lock.release()

    def refreshed(
        self, sent: str | None, refresh: Callable[[], Flow[str]]
    ) -> Flow[str]:
        """The token to use after a 401 sent with ``sent``: another process's
        newer one from the slot, or ``refresh``'s, which is then written to
        the slot. Runs under the shared lock."""
        lock = yield Blocking(self._lock)
        try:
            current = yield Blocking(self.read)
            if current is not None and current != sent:
                token: str = current
            else:
                token = yield from refresh()
                yield Blocking(self._write, (token,))
        except GeneratorExit:
            raise  # abandoned: the lease frees the lock; a flow cannot yield now
        except BaseException:
            yield Blocking(self._release, (lock,))
            raise
        yield Blocking(self._release, (lock,))
        return token

    def __repr__(self) -> str:
        return f"SharedToken(name={self.name!r}, lease={self.lease}, wait={self.wait})"
