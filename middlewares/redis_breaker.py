"""``RedisBreaker``: a Redis that is down or silent is left alone for a while.

``SharedToken`` and ``RateLimit(redis=...)`` share state through Redis.
When Redis stops answering, each call would wait its timeout for it (a
silent Redis: seconds per command) and fail or log. Each of them holds a
breaker instead, and asks it before using Redis:

- **Closed** (Redis answers): every call uses Redis.
- **Open**, after an outage (a connection refused or lost, a timeout, or
  any error Redis answers with): no call uses Redis for a back-off of
  :data:`BACKOFF_FIRST` seconds (5), doubling each time Redis is tried
  and is still down, to at most :data:`BACKOFF_MOST` (30). Calls go on
  without Redis, in the degraded mode their component documents (a rate
  limit kept by this process alone, a token refreshed by this process
  alone); none waits for Redis.
- Once a back-off has passed, **one** call tries Redis (the probe); the
  others stay degraded until it answers. Redis answering any call closes
  the breaker. A probe abandoned midway (cancelled) lets another call try
  once the next back-off has passed: nothing is stuck open.

Guarantees:

- An outage costs one log line: a warning when the breaker opens, naming
  the Redis address (host, port and database, or socket path: never a
  user name or password), the error's type and what the component does
  meanwhile, with no traceback; and one INFO line when Redis answers
  again. Failed probes log nothing.
- The breaker does no I/O and never blocks but for a lock held a few
  instructions: its owner's flows call it directly. One breaker serves any
  number of threads and event loops.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from restwire.extension import redis_address, renewed_in_child

__all__ = [
    "BACKOFF_FIRST",
    "BACKOFF_MOST",
    "RedisBreaker",
    "is_outage",
    "redis_address",
]

logger = logging.getLogger("restwire")

#: Seconds Redis is left alone after it is first found down.
BACKOFF_FIRST = 5.0
#: The longest back-off: it doubles from ``BACKOFF_FIRST`` while Redis
#: stays down, to this.
BACKOFF_MOST = 30.0


def is_outage(error: BaseException) -> bool:
    """Whether ``error`` means Redis cannot serve: any redis-py error (a
    connection refused or lost, a timeout, an error reply) but a lock's
    (``LockError``: a lock not ours, which says nothing of Redis)."""
    try:
        import redis
    except ImportError:  # pragma: no cover - redis is what raised it
        return False
    return isinstance(error, redis.RedisError) and not isinstance(
        error, redis.exceptions.LockError
    )


class RedisBreaker:
    """Whether a component may use Redis now (see the module)."""

    __slots__ = (
        "__weakref__",
        "_backoff",
        "_down",
        "_lock",
        "_probing",
        "_until",
        "address",
        "clock",
        "component",
        "degraded",
    )

    def __init__(
        self,
        client: Any,
        component: str,
        degraded: str,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        #: Where Redis is, as the log lines name it.
        self.address = redis_address(client)
        #: Who uses it (``"RateLimit 'restwire:rate'"``), and what it does
        #: without it, for the log lines.
        self.component, self.degraded = component, degraded
        #: The clock back-offs are counted on (tests move a fake one).
        self.clock = clock
        self._lock = threading.Lock()
        renewed_in_child(self, "_lock")
        self._down = False  # open: Redis found down, not yet seen answering
        self._probing = False  # a call was let through to try Redis
        self._until = 0.0  # no call tries Redis before this
        self._backoff = BACKOFF_FIRST

    @property
    def down(self) -> bool:
        """Whether the breaker is open (Redis last found down)."""
        return self._down

    def allows(self) -> bool:
        """Whether this call may use Redis: always while Redis answers;
        while it is down, only the one call (the probe) that comes first
        after a back-off has passed."""
        if not self._down:
            return True
        with self._lock:
            if not self._down:
                return True
            now = self.clock()
            if now < self._until:
                return False
            # the probe's own window: the others stay off Redis meanwhile
            self._until = now + self._backoff
            self._probing = True
            return True

    def succeeded(self) -> None:
        """Redis answered a call: close the breaker (one line if it was
        open)."""
        if not self._down:
            return
        with self._lock:
            if not self._down:
                return
            self._down = self._probing = False
            self._backoff = BACKOFF_FIRST
        logger.info(
            "Redis at %s answers again: %s shares through it again",
            self.address,
            self.component,
        )

    def failed(self, error: BaseException) -> bool:
        """Redis failed a call with ``error``: if that is an outage
        (:func:`is_outage`), open the breaker (or, after a failed probe,
        double the back-off) and return ``True``; else change nothing and
        return ``False`` (the error is the caller's to raise)."""
        if not is_outage(error):
            return False
        with self._lock:
            now = self.clock()
            if not self._down:
                self._down, self._probing = True, False
                self._backoff = BACKOFF_FIRST
                self._until = now + self._backoff
                opened = True
            else:
                opened = False
                if self._probing:  # the probe found it down still
                    self._probing = False
                    self._backoff = min(self._backoff * 2, BACKOFF_MOST)
                    self._until = now + self._backoff
        if opened:
            logger.warning(
                "Redis at %s is unreachable (%s): %s goes on without it (%s), "
                "trying it again in %g s, then less often while it stays down",
                self.address,
                type(error).__name__,
                self.component,
                self.degraded,
                BACKOFF_FIRST,
            )
        return True

    def __repr__(self) -> str:
        state = "down" if self._down else "up"
        return f"RedisBreaker({self.address}, {state})"
