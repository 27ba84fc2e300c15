"""Polling: subscribers to one request share one poller.

A poller fetches at once, then again each time the shortest interval any of
its subscribers asked for has passed since the last fetch; it recomputes the
wait whenever a subscriber comes or goes, and ends when the last one leaves.
Its timing is written once, as a generator of :class:`Wait` and ``FETCH``
steps; the sync controller runs it on a thread, the async one in a task.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Hashable
from dataclasses import dataclass
from itertools import count
from typing import Any

from ._endpoint import RestEndpoint

__all__ = ["FETCH", "Poller", "Subscription", "Wait"]

Callback = Callable[[Any], Any]
ErrorCallback = Callable[[Exception], Any]


@dataclass(frozen=True, slots=True)
class Wait:
    """Wait this long, or until woken by a change of subscribers."""

    seconds: float


FETCH = "fetch"

_ids = count()


@dataclass(frozen=True, slots=True)
class _Subscriber:
    frequency: float
    callback: Callback
    on_error: ErrorCallback | None


class Poller:
    """The subscribers of one request key, and the timing of their poller."""

    def __init__(
        self,
        key: Hashable,
        request_key: str,
        endpoint: RestEndpoint,
        params: Any,
        clock: Callable[[], float],
    ) -> None:
        #: Request key, identity and shape: subscribers share a poller only
        #: when all three are equal.
        self.key = key
        #: The request key alone, for names and messages.
        self.request_key = request_key
        self.endpoint = endpoint
        self.params = params
        self.clock = clock
        self.subscribers: dict[int, _Subscriber] = {}
        self.lock = threading.Lock()
        self.stopped = False
        self.wake: Callable[[], None] = lambda: None

    def add(
        self, frequency: float, callback: Callback, on_error: ErrorCallback | None
    ) -> int:
        with self.lock:
            ident = next(_ids)
            self.subscribers[ident] = _Subscriber(frequency, callback, on_error)
        self.wake()
        return ident

    def remove(self, ident: int) -> None:
        with self.lock:
            self.subscribers.pop(ident, None)
        self.wake()

    def interval(self) -> float | None:
        """The shortest interval asked for; ``None`` once nobody listens."""
        with self.lock:
            if self.stopped or not self.subscribers:
                return None
            return min(s.frequency for s in self.subscribers.values())

    def steps(self) -> Generator[Wait | str, None, None]:
        """The poller's timing: ``FETCH`` now, or ``Wait(seconds)``."""
        last: float | None = None
        while True:
            interval = self.interval()
            if interval is None:
                return
            if last is not None:
                remaining = last + interval - self.clock()
                if remaining > 0:
                    yield Wait(remaining)
                    continue
            last = self.clock()
            yield FETCH

    def listeners(self) -> list[_Subscriber]:
        with self.lock:
            return list(self.subscribers.values())


class Subscription:
    """A handle to one subscriber; ``cancel()`` (or leaving a ``with``) ends it."""

    def __init__(self, poller: Poller, ident: int) -> None:
        self._poller = poller
        self._ident = ident
        self.active = True

    def cancel(self) -> None:
        """Stop delivering to this subscriber; idempotent."""
        if self.active:
            self.active = False
            self._poller.remove(self._ident)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()

    def __repr__(self) -> str:
        state = "active" if self.active else "cancelled"
        return f"<Subscription {self._poller.request_key} {state}>"
