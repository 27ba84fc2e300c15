"""In-flight de-duplication: identical concurrent reads share one request.

The first caller of a request key becomes the leader and sends; callers that
arrive while it is in flight wait for its outcome instead of sending their
own. The waiting is the only part that differs between threads and tasks, so
the event is made by the caller (``threading.Event`` or ``anyio.Event``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ._errors import RestwireError

__all__ = ["Flight", "Flights"]

EventT = TypeVar("EventT")

_PENDING: Any = object()


class Flight(Generic[EventT]):
    """One request in flight; ``done`` is set when it has an outcome."""

    __slots__ = ("done", "error", "value")

    def __init__(self, done: EventT) -> None:
        self.done = done
        self.value: Any = _PENDING
        self.error: BaseException | None = None

    def outcome(self, key: str) -> Any:
        """The leader's value, or its error raised; for a waiting caller."""
        if self.error is not None:
            raise self.error
        if self.value is _PENDING:
            raise RestwireError(
                f"{key}: the request this call was sharing was abandoned"
            )
        return self.value


class Flights(Generic[EventT]):
    """The flights of one controller, by request key."""

    def __init__(self, make_event: Callable[[], EventT]) -> None:
        self._make_event = make_event
        self._flights: dict[str, Flight[EventT]] = {}
        self._lock = threading.Lock()

    def join(self, key: str) -> tuple[Flight[EventT], bool]:
        """The flight for ``key``, and whether this caller leads it."""
        with self._lock:
            flight = self._flights.get(key)
            if flight is not None:
                return flight, False
            flight = Flight(self._make_event())
            self._flights[key] = flight
            return flight, True

    def land(self, key: str, flight: Flight[EventT]) -> None:
        """Remove a finished flight, so later calls send again."""
        with self._lock:
            if self._flights.get(key) is flight:
                del self._flights[key]

    def clear(self) -> None:
        """Forget every flight: later calls send their own requests."""
        with self._lock:
            self._flights.clear()

    def __len__(self) -> int:
        return len(self._flights)
