"""Polling: subscribers to one request share one poller.

A poller fetches at once, then again each time the shortest interval any of
its subscribers asked for has passed since the last fetch; it recomputes the
wait whenever a subscriber comes or goes, and ends when the last one leaves
or the controller closes. Its timing is written once, as a generator of
:class:`Wait` and ``FETCH`` steps; the sync controller runs it on a thread,
the async one in a task. :class:`Pollers` is a controller's set of them,
one per request key, identity and value shape.
"""

from __future__ import annotations

import datetime
import logging
import math
import threading
from collections.abc import Callable, Generator, Hashable, Mapping
from dataclasses import dataclass
from itertools import count
from typing import Any

from multidict import MultiDict, MultiMapping

from .._base.durations import check_seconds
from .._base.errors import SettingError, UsageError
from .._base.forks import renewed_in_child
from .._endpoints.endpoint import RestEndpoint

__all__ = [
    "FETCH",
    "Poller",
    "Pollers",
    "Subscriber",
    "Subscription",
    "Wait",
    "deliveries",
    "frequency_of",
]

logger = logging.getLogger("restwire")

Callback = Callable[[Any], Any]
ErrorCallback = Callable[[Exception], Any]


@dataclass(frozen=True, slots=True)
class Wait:
    """Wait this long, or until woken by a change of subscribers."""

    seconds: float


FETCH = "fetch"

_ids = count()


@dataclass(frozen=True, slots=True)
class Subscriber:
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
        self.subscribers: dict[int, Subscriber] = {}
        self.lock = threading.Lock()
        self.stopped = False
        self.wake: Callable[[], None] = lambda: None
        #: When the value was last fetched (or set: see :meth:`answered`).
        self.last: float | None = None

    def add(
        self, frequency: float, callback: Callback, on_error: ErrorCallback | None
    ) -> int:
        with self.lock:
            ident = next(_ids)
            self.subscribers[ident] = Subscriber(frequency, callback, on_error)
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
        while True:
            interval = self.interval()
            if interval is None:
                return
            last = self.last
            if last is not None:
                remaining = last + interval - self.clock()
                if remaining > 0:
                    yield Wait(remaining)
                    continue
            self.last = self.clock()
            yield FETCH

    def answered(self) -> None:
        """A value came without a fetch (``controller.set``): the next fetch
        is a whole interval from now."""
        self.last = self.clock()
        self.wake()

    def listeners(self) -> list[Subscriber]:
        with self.lock:
            return list(self.subscribers.values())


class Pollers:
    """A controller's pollers, by request key, identity and value shape:
    subscribers share a poller only when all three are equal."""

    def __init__(self) -> None:
        self._pollers: dict[Hashable, Poller] = {}
        self._lock = threading.Lock()
        self._stopped = False
        renewed_in_child(self, "_lock", abandon="_abandon")

    def _abandon(self) -> None:
        """In a forked child: the parent's pollers run on threads the child
        does not have. Each is stopped (its lock made new: a thread of the
        parent may have held it), and a later subscription makes its own."""
        for poller in self._pollers.values():
            poller.lock = threading.Lock()
            poller.stopped = True
        self._pollers = {}

    def add(
        self,
        key: Hashable,
        make: Callable[[], Poller],
        frequency: float,
        callback: Callback,
        on_error: ErrorCallback | None,
    ) -> tuple[Subscription, Poller | None]:
        """Subscribe to the poller of ``key`` (made with ``make`` if there is
        none); the subscription, and the poller if it is new and needs
        running."""
        with self._lock:
            if self._stopped:
                raise RuntimeError("this controller is closed")
            poller = self._pollers.get(key)
            new = poller is None
            if poller is None:
                poller = self._pollers[key] = make()
            ident = poller.add(frequency, callback, on_error)
        return Subscription(poller, ident), poller if new else None

    def subscribe(
        self,
        key: tuple[str, Hashable, Hashable],
        endpoint: RestEndpoint,
        params: Mapping[str, Any],
        clock: Callable[[], float],
        subscriber: tuple[float, Callback, ErrorCallback | None],
    ) -> tuple[Subscription, Poller | None]:
        """Subscribe ``subscriber`` (its interval, callback and ``on_error``)
        to the poller of ``key`` (request key, identity, shape), made for
        ``endpoint`` with ``params`` (kept as they are now) when there is
        none; the subscription, and the poller if it is new and needs
        running."""
        kept: Mapping[str, Any] = (
            MultiDict(params) if isinstance(params, MultiMapping) else dict(params)
        )

        def make() -> Poller:
            return Poller(key, key[0], endpoint, kept, clock)

        return self.add(key, make, *subscriber)

    def find(self, key: Hashable) -> Poller | None:
        """The poller of ``key`` (request key, identity, shape), if one runs."""
        with self._lock:
            return self._pollers.get(key)

    def answered(
        self, key: Hashable, value: Any
    ) -> list[tuple[Callable[[Any], object], Any]]:
        """``value`` came for ``key`` without a fetch (``controller.set``):
        the calls that hand it to the subscribers of its poller, if one
        runs, whose next fetch is then a whole interval away."""
        poller = self.find(key)
        if poller is None:
            return []
        poller.answered()
        return deliveries(poller, value, None)

    def done(self, poller: Poller) -> bool:
        """True if ``poller`` may end (nobody listens); then it is forgotten."""
        with self._lock:
            if poller.interval() is not None:
                return False
            if self._pollers.get(poller.key) is poller:
                del self._pollers[poller.key]
            return True

    def stop(self) -> None:
        """Stop every poller at its next step; no new one starts."""
        with self._lock:
            self._stopped = True
            pollers = list(self._pollers.values())
            self._pollers.clear()
        for poller in pollers:
            with poller.lock:
                poller.stopped = True
            poller.wake()

    def interval(self, request_key: str) -> float | None:
        """The shortest interval any poller of ``request_key`` runs at."""
        with self._lock:
            intervals = [
                interval
                for poller in self._pollers.values()
                if poller.request_key == request_key
                and (interval := poller.interval()) is not None
            ]
        return min(intervals, default=None)


def frequency_of(
    endpoint: RestEndpoint, frequency: float | datetime.timedelta | None
) -> float:
    """The seconds between polls of ``endpoint``: ``frequency`` if given,
    else its ``poll_frequency``; a :class:`SettingError` if neither says."""
    if isinstance(frequency, datetime.timedelta):  # (as poll_frequency takes it)
        frequency = frequency.total_seconds()
    if frequency is not None:
        if isinstance(frequency, bool) or not isinstance(frequency, int | float):
            raise UsageError(
                f"{endpoint.label}: frequency= takes a number of seconds, not "
                f"{type(frequency).__name__}"
            )
        if not math.isfinite(frequency):
            # (NaN compares false with everything: a poller on it never waits)
            raise SettingError(
                f"{endpoint.label}: frequency= takes a finite number of seconds, "
                f"not {frequency}"
            )
        check_seconds("frequency", frequency)
    chosen = frequency if frequency is not None else endpoint.poll_frequency
    if chosen is None or chosen <= 0:
        raise SettingError(
            f"{endpoint.label}: no poll frequency; set poll_frequency on the "
            "endpoint or pass frequency="
        )
    return float(chosen)


def deliveries(
    poller: Poller, value: Any, error: Exception | None
) -> list[tuple[Callable[[Any], object], Any]]:
    """The calls that hand a poll's outcome to its subscribers: each
    one's callback with the value, or its ``on_error`` with the error
    (an error nobody hears is logged)."""
    listeners = poller.listeners()
    if error is None:
        return [(each.callback, value) for each in listeners]
    calls = [(each.on_error, error) for each in listeners if each.on_error]
    if not calls:
        logger.warning("poll of %s failed: %s", poller.request_key, error)
    return calls


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
