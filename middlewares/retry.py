"""``Retry``: send again after a transient failure, without sending twice
what must not be.

What is retried: transport failures (connect, read, timeouts) and the
statuses in ``statuses`` (429, 502, 503, 504 by default), for idempotent
methods (GET, HEAD, OPTIONS, TRACE, PUT, DELETE) only; a POST or PATCH only
when the request carries an idempotency key (an ``Idempotency-Key`` header,
or the header ``IdempotencyKey`` put its key in) or ``methods`` names it. A one-shot (iterator) body is never retried: it cannot be sent again
as it was.

How long it waits: ``Retry-After`` when the response has one (seconds as a
whole number, or an HTTP-date); otherwise exponential backoff with full
jitter, ``random() * min(max_backoff, backoff * 2 ** attempt)``. A
malformed, negative or fractional ``Retry-After`` is ignored.

When it gives up: ``budget`` is the seconds the whole call may take from its
first send, attempts and waits together (two 1 s timeouts spend 2 s of it);
a wait that would end past it is not taken. Then, or when ``attempts`` are
spent, the last failure is raised (a ``NetworkError`` or ``TransportError``,
the same type either way), as a fresh copy whose message says how many
attempts were made and why retrying stopped; ``error.attempts`` is that
count and ``error.retry_wait`` the wait it did not take (``None`` when the
attempts ran out). A failure that is not retried at all is raised as it
came.

Waits are ``Sleep`` effects: they never block an event loop. Each attempt
builds the request again from the call's Python body, so the bytes replayed
are exactly those first sent; discarded responses are read and closed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Collection

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
from restwire.extension import Response, retry_after_seconds

from ._checks import (
    check_callable,
    check_count,
    check_each,
    check_seconds,
    method_names,
    status_codes,
)
from .idempotency_key import KEY_HEADER

__all__ = ["Retry", "retry_after_seconds"]


def _carries_key(exchange: Exchange) -> bool:
    """Whether the call carries an idempotency key: the ``Idempotency-Key``
    header, or the header ``IdempotencyKey`` says it put its key in."""
    headers = exchange.headers
    named = exchange.state.get(KEY_HEADER)
    return "idempotency-key" in headers or (named is not None and named in headers)


def _gave_up(
    error: NetworkError | TransportError, made: int, wait: float | None, why: str
) -> NetworkError | TransportError:
    """The error a call ends with when retrying stops: the last failure, its
    message saying how many attempts were made and why."""
    noun = "attempt" if made == 1 else "attempts"
    final = error.annotated(f"gave up after {made} {noun}: {why}")
    final.attempts = made
    final.retry_wait = wait
    return final


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
        check_count("Retry", "attempts", attempts, 1)  # (the first try counts)
        check_each(
            check_seconds,
            "Retry",
            backoff=backoff,
            max_backoff=max_backoff,
            budget=budget,
        )
        check_each(check_callable, "Retry", clock=clock, jitter=jitter)
        self.attempts = attempts
        self.statuses = status_codes("Retry", statuses, "(502, 503)")
        self.methods = method_names("Retry", methods, "('GET', 'PUT')")
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.budget = budget
        self.clock = clock
        self.jitter = jitter

    def retries(self, exchange: Exchange, error: RestwireError) -> bool:
        """Whether ``error`` on this call may be retried at all."""
        if not exchange.replayable:
            return False
        if exchange.method not in self.methods and not _carries_key(exchange):
            return False
        if isinstance(error, NetworkError):
            return error.status in self.statuses
        return isinstance(error, TransportError)

    def delay(self, error: RestwireError, attempt: int) -> float:
        """The wait before retry number ``attempt + 1``."""
        if isinstance(error, NetworkError) and error.retry_after is not None:
            return error.retry_after  # read by restwire's one Retry-After parser
        return float(self.jitter() * min(self.max_backoff, self.backoff * 2**attempt))

    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        started = self.clock()
        attempt = 0
        while True:
            try:
                return (yield from call_next(exchange))
            except (NetworkError, TransportError) as error:
                if not self.retries(exchange, error):
                    raise
                made = attempt + 1
                if made >= self.attempts:
                    final = _gave_up(error, made, None, "no attempts left")
                    raise final from final.__cause__
                wait = self.delay(error, attempt)
                remaining = self.budget - (self.clock() - started)
                if wait > remaining:
                    why = (
                        f"the next wait of {wait:.3g} s would pass the {self.budget:.3g} s"
                        f" retry budget ({max(remaining, 0):.3g} s left)"
                    )
                    final = _gave_up(error, made, wait, why)
                    raise final from final.__cause__
                exchange.state.setdefault("retry_waits", []).append(wait)
                attempt = made
                yield Sleep(wait)

    def __repr__(self) -> str:
        return f"Retry(attempts={self.attempts}, statuses={sorted(self.statuses)})"
