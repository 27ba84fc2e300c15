"""In-flight de-duplication: identical concurrent reads share one request.

The first caller of a request key becomes the leader and sends; callers that
arrive while it is in flight wait for its outcome instead of sending their
own. The waiting is the only part that differs between threads and tasks, so
the event is made by the caller (``threading.Event`` or ``anyio.Event``), and
only when a second caller actually waits: the usual, uncontended call pays
for no event at all.
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
    """One request in flight; ``event`` exists once somebody waits for it."""

    __slots__ = ("error", "event", "finished", "value")

    def __init__(self) -> None:
        self.event: EventT | None = None
        self.finished = False
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

    def join(self, key: str) -> tuple[Flight[EventT], EventT | None]:
        """The flight for ``key``, and ``None`` if this caller leads it, else
        the event to wait on (already set if the flight has just landed)."""
        with self._lock:
            flight = self._flights.get(key)
            if flight is None:
                flight = Flight()
                self._flights[key] = flight
                return flight, None
            if flight.event is None:
                flight.event = self._make_event()
            return flight, flight.event

    def land(
        self, key: str, flight: Flight[EventT], set_event: Callable[[EventT], None]
    ) -> None:
        """Finish a flight: later calls send again; waiting callers wake."""
        with self._lock:
            if self._flights.get(key) is flight:
                del self._flights[key]
            flight.finished = True
            event = flight.event
        if event is not None:
            set_event(event)

    def clear(self) -> None:
        """Forget every flight: later calls send their own requests."""
        with self._lock:
            self._flights.clear()
