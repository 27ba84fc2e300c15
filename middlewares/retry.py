"""``Retry``: send again after a transient failure, without sending twice
what must not be.

What is retried: transport failures (connect, read, timeouts) and the
statuses in ``statuses`` (429, 502, 503, 504 by default), for idempotent
methods (GET, HEAD, OPTIONS, TRACE, PUT, DELETE) only; a POST or PATCH only
when the request carries an ``Idempotency-Key`` header or ``methods`` names
it. A one-shot (iterator) body is never retried: it cannot be sent again
as it was.

How long it waits: ``Retry-After`` when the response has one (seconds as a
whole number, or an HTTP-date); otherwise exponential backoff with full
jitter, ``random() * min(max_backoff, backoff * 2 ** attempt)``. A
malformed, negative or fractional ``Retry-After`` is ignored. All waits of
one call share a ``budget`` of seconds: a wait that would pass it ends the
retries with :class:`RetryBudgetExceeded`, which carries the delay and the
last error, instead of sleeping.

Waits are ``Sleep`` effects: they never block an event loop. Each attempt
builds the request again from the call's Python body, so the bytes replayed
are exactly those first sent; discarded responses are read and closed.
"""

from __future__ import annotations

import datetime
import email.utils
import random
import re
import time
from collections.abc import Callable, Collection

import httpx

from restwire import (
    IDEMPOTENT_METHODS,
    CallNext,
    Exchange,
    Flow,
    NetworkError,
    RestwireError,
    Sleep,
    TransportError,
)

__all__ = ["Retry", "RetryBudgetExceeded", "retry_after_seconds"]

_SECONDS = re.compile(r"[0-9]+")


class RetryBudgetExceeded(RestwireError):
    """The next wait would pass the retry budget; ``delay`` is how long it
    was, ``error`` the failure it would have retried (also ``__cause__``)."""

    def __init__(self, error: RestwireError, delay: float, remaining: float) -> None:
        self.error = error
        self.delay = delay
        self.remaining = remaining
        super().__init__(
            f"{error} (not retried: the next wait of {delay:.3g} s is more than "
            f"the {max(remaining, 0):.3g} s left of the retry budget)"
        )


def retry_after_seconds(
    value: str | None, now: Callable[[], datetime.datetime] | None = None
) -> float | None:
    """Seconds to wait per a ``Retry-After`` value; ``None`` if it has none.

    Whole seconds or an HTTP-date (a date in the past is 0). Anything else,
    including negative or fractional numbers, is ``None``.
    """
    if value is None:
        return None
    text = value.strip()
    if _SECONDS.fullmatch(text):
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    current = now() if now is not None else datetime.datetime.now(datetime.UTC)
    return max((when - current).total_seconds(), 0.0)


class Retry:
    """Retries transient failures of the calls through it (see the module)."""

    #: Never changes the credentials a call sends (see ``restwire.Stack``).
    sends_credentials = False

    def __init__(
        self,
        attempts: int = 3,
        *,
        statuses: Collection[int] = (429, 502, 503, 504),
        methods: Collection[str] = IDEMPOTENT_METHODS,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        budget: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        if attempts < 1:
            raise ValueError("attempts counts the first try too: at least 1")
        self.attempts = attempts
        self.statuses = frozenset(statuses)
        self.methods = frozenset(method.upper() for method in methods)
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.budget = budget
        self.clock = clock
        self.jitter = jitter

    def retries(self, exchange: Exchange, error: RestwireError) -> bool:
        """Whether ``error`` on this call may be retried at all."""
        if not exchange.replayable:
            return False
        if (
            exchange.method not in self.methods
            and "idempotency-key" not in exchange.headers
        ):
            return False
        if isinstance(error, NetworkError):
            return error.status in self.statuses
        return isinstance(error, TransportError)

    def delay(self, error: RestwireError, attempt: int) -> float:
        """The wait before retry number ``attempt + 1``."""
        if isinstance(error, NetworkError):
            after = retry_after_seconds(error.response.headers.get("retry-after"))
            if after is not None:
                return after
        return float(self.jitter() * min(self.max_backoff, self.backoff * 2**attempt))

    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[httpx.Response]:
        started = self.clock()
        attempt = 0
        while True:
            try:
                return (yield from call_next(exchange))
            except (NetworkError, TransportError) as error:
                if attempt + 1 >= self.attempts or not self.retries(exchange, error):
                    raise
                wait = self.delay(error, attempt)
                remaining = self.budget - (self.clock() - started)
                if wait > remaining:
                    raise RetryBudgetExceeded(error, wait, remaining) from error
                exchange.state.setdefault("retry_waits", []).append(wait)
                attempt += 1
                yield Sleep(wait)

    def __repr__(self) -> str:
        return f"Retry(attempts={self.attempts}, statuses={sorted(self.statuses)})"
