"""Calls in flight: identical reads share one request.

A read (no side effect, no body, content read whole) that finds another
call of the same request key, identity and value shape already in flight
waits for it and takes its value, instead of sending its own request. If
the leader is cancelled, or fails outside restwire, or was finally sent as
another identity (a middleware changed its credentials after it joined),
one of its waiters sends instead: no patient caller is failed by an
impatient one. A restwire error is every waiter's error too.

Written once for both drivers: a waiter yields ``_Await(event)`` (what
:meth:`Flights.join` hands it), and the
driver waits on it (a ``threading.Event`` or an ``anyio.Event``: the
controller says which with ``new_event``). Closing the controller wakes
every waiter.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, Generic, Protocol, TypeVar

from .._base.effects import _Await
from .._base.errors import RestwireError

__all__ = ["PENDING", "Flight", "Flights"]


class _Event(Protocol):
    """What ``threading.Event`` and ``anyio.Event`` both are to a flight."""

    def set(self) -> None: ...


EventT = TypeVar("EventT", bound=_Event)

#: A flight's value before its leader lands.
PENDING: Any = object()


class Flight(Generic[EventT]):
    """One request in flight; ``event`` exists once somebody waits for it."""

    __slots__ = ("error", "event", "identity", "value")

    def __init__(self) -> None:
        self.event: EventT | None = None
        self.value: Any = PENDING
        self.error: RestwireError | None = None
        #: The identity of the request the leader finally sent.
        self.identity: Hashable = None


class Flights(Generic[EventT]):
    """The flights of one controller, by (request key, identity, shape)."""

    __slots__ = ("_flights", "_lock", "_new_event")

    def __init__(self, new_event: Callable[[], EventT]) -> None:
        self._flights: dict[Hashable, Flight[EventT]] = {}
        self._lock = threading.Lock()
        self._new_event = new_event

    def join(self, key: Hashable) -> tuple[Flight[EventT], _Await | None]:
        """The flight of ``key``, and ``None`` if the caller leads it (it is
        new), else what to yield to wait for it to land (then look at its
        outcome, and join again if it has none for you)."""
        with self._lock:
            flight = self._flights.get(key)
            if flight is None:
                flight = self._flights[key] = Flight()
                return flight, None
            if flight.event is None:
                flight.event = self._new_event()
            return flight, _Await(flight.event)

    def land(
        self,
        key: Hashable,
        flight: Flight[EventT],
        identity: Hashable,
        value: Any = PENDING,
        error: BaseException | None = None,
    ) -> None:
        """Finish ``flight``, so later calls send again, and wake its
        waiters. A ``RestwireError`` is theirs too; any other ending (a
        cancellation, a bug) leaves them to send for themselves."""
        with self._lock:
            if self._flights.get(key) is flight:
                del self._flights[key]
            flight.identity = identity
            flight.value = value
            if isinstance(error, RestwireError):
                flight.error = error
            event = flight.event
        if event is not None:
            event.set()

    def clear(self) -> None:
        """Forget every flight: calls already in the air finish, and later
        ones send again (their waiters are woken too)."""
        with self._lock:
            flights = list(self._flights.values())
            self._flights.clear()
        for flight in flights:
            if flight.event is not None:
                flight.event.set()
