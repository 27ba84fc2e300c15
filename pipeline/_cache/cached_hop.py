"""One call's first hop through the HTTP cache: looked up (its key locked
if it must be filled), hishel's RFC 9111 state machine run to the
response, and what it filled stored (then the key freed).

hishel's core is sans-I/O: each of its states says what to do next (send
the request, or a revalidation; store the response; answer from storage;
renew or remove entries). :class:`CachedHop` does it, reaching the storage
through ``Blocking`` effects and the fill lock through ``TakeLease``, so
one definition serves both drivers. Guarantees:

- A fresh entry answers at once, without a lock.
- A GET or HEAD miss is filled by one process at a time: the call takes
  its key's fill lock and looks again under it; while another process
  holds it, the call waits without a thread, in sleeps from 5 to 50 ms,
  and looks again, until it finds the entry, gets the lock, or
  ``fill_wait`` has passed (then it goes on without the lock).
- Storage is written only by a call whose lookup it answered (a storage
  that failed, or is left alone, is not written); a call holding the
  fill lock writes as it gives the lock back, so that the key is free
  only once a waiter can find what was filled.
- The lock is given back however the call ends (the driver holds it from
  the moment it is taken), and giving it back never raises.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._base.effects import Blocking, Flow, Lease, ReleaseLease, Sleep, TakeLease, _Read
from .._base.library import DefaultEncoding, Request, Response
from .conversion import (
    RawBody,
    decoded_headers,
    drained,
    from_entry,
    from_upstream,
    hishel_request,
    hishel_response,
    with_changes,
)
from .fill_locks import FillLocks
from .keys import Ticket
from .storage_access import Found, StorageAccess

if TYPE_CHECKING:
    import hishel

__all__ = ["CachedHop"]

#: The methods whose misses are filled by one process at a time.
_FILLED = frozenset({"GET", "HEAD"})
#: How long a process waiting for another's fill sleeps between tries:
#: first, and at most (seconds); each pause is half again the last.
_FIRST_POLL = 0.005
_LAST_POLL = 0.05


class CachedHop:
    """One call's first hop through a cache (``HttpCache.exchange``): made
    for the call, run once (:meth:`run`)."""

    __slots__ = (
        "access",
        "encoding",
        "fill",
        "fill_wait",
        "found",
        "key",
        "limit",
        "locks",
        "options",
        "raw",
        "request",
        "revalidated",
        "send",
        "stored_request",
        "ticket",
        "upstream",
    )

    def __init__(
        self,
        access: StorageAccess,
        locks: FillLocks,
        fill_wait: float,
        options: hishel.CacheOptions,
        request: Request,
        ticket: Ticket,
        send: Callable[[Request], Flow[Response]],
        limit: int | None,
        encoding: DefaultEncoding,
    ) -> None:
        self.access = access
        self.locks = locks
        self.fill_wait = fill_wait
        self.options = options
        #: The call's request and ticket, and the request as hishel sees
        #: and stores it (made as the hop starts).
        self.request = request
        self.ticket = ticket
        self.key = ticket.key
        self.stored_request: Any = None
        self.send = send
        self.limit = limit
        self.encoding = encoding
        #: What the lookup found (``None``: nothing may be written), and
        #: the fill lock, if this call fills the entry.
        self.found: Found | None = None
        self.fill: _Fill | None = None
        #: What the server sent, its body as read, and whether it answered
        #: a revalidation.
        self.upstream: Response | None = None
        self.raw = b""
        self.revalidated = False

    def run(self) -> Flow[Response]:
        """The response: see ``HttpCache.exchange``."""
        started = time.perf_counter()
        self.stored_request = hishel_request(self.request, self.ticket)
        start = _Start()
        if not self.access.usable():
            start.state = self._idle().next(self.stored_request, [])
        elif self.request.method in _FILLED:
            start = yield from self._start_fill()
        else:
            yield Blocking(self._begin, (start, True, False))
        fill = self.fill
        self.found = start.found
        try:
            response = yield from self._answer(start.state)
        except Exception:
            if fill is not None:
                yield ReleaseLease(fill)
            raise
        if fill is not None:
            yield ReleaseLease(fill)  # what it filled stored, then the key freed
        response.elapsed = datetime.timedelta(seconds=time.perf_counter() - started)
        return response

    # -- the start: a lookup, and the fill lock -------------------------------------------

    def _start_fill(self) -> Flow[_Start]:
        """Look the key up, and if the call must go to the server, take its
        fill lock: while another process holds it, look again in sleeps
        that grow from 5 to 50 ms (a waiter costs a worker thread only for
        each short try), until the entry it fills is found, the lock is
        free, or ``fill_wait`` has passed (then the call goes on without)."""
        deadline = time.monotonic() + self.fill_wait
        pause = _FIRST_POLL
        first = True
        while True:
            start = _Start()
            fill: _Fill | None = yield TakeLease(self._begin, (start, first, True))
            first = False
            left = deadline - time.monotonic()
            if not start.busy or left <= 0:
                self.fill = fill
                return start
            yield Sleep(min(pause, left))
            pause = min(pause * 1.5, _LAST_POLL)

    def _begin(self, start: _Start, first: bool, lock: bool) -> _Fill | None:
        """Look the key up and put hishel's first state in ``start`` (in a
        worker thread); with ``lock``, under the key's fill lock, tried
        first (so no other process can have filled the entry between the
        look and the lock). The fill, if the call must go to the server
        and holds the lock; else ``None``: no lock needed (the entry
        answers, or the storage failed: nothing will be stored), or
        ``start.busy`` (another process is filling it: the caller waits
        and tries again; the entry is looked up all the same, so a fresh
        one answers at once). ``first``: the call's first look (the one
        that may try a storage after a pause)."""
        lease: Lease | None = None
        if lock:
            try:
                lease = self.locks.try_acquire(self.key)
            except Exception as error:  # go on unlocked
                if self.access.lock_fault(error, self.locks, first):
                    # the storage's own server failed (a silent Redis): it
                    # was this call's try, and its lookup would wait again
                    first = False
                lock = False
        try:
            start.found, start.state = self._state(self.access.look(self.key, first))
        except BaseException:
            if lease is not None:
                _give_back(self.access, self.locks, lease)
            raise
        if start.found is None or _answers(start.state) or not lock:
            if lease is not None:  # nothing to fill, or to store
                _give_back(self.access, self.locks, lease)
            return None
        if lease is None:
            start.busy = True
            return None
        return _Fill(self.access, self.locks, lease)

    def _state(self, found: Found | None) -> tuple[Found | None, Any]:
        """hishel's first state for the request and the entries ``found``.
        Entries it cannot handle are removed, and it starts without them."""
        idle = self._idle()
        if found is None or not found.entries:
            return found, idle.next(self.stored_request, [])
        try:
            return found, idle.next(self.stored_request, found.entries)
        except Exception as error:
            self.access.entry_fault(error)
            for entry in found.entries:
                self.access.call(found.storage, found.storage.remove_entry, entry.id)
            return Found(found.storage, []), idle.next(self.stored_request, [])

    def _idle(self) -> Any:
        return _hishel().IdleClient(options=self.options)

    # -- the state machine, to the response ---------------------------------------------

    def _answer(self, state: Any) -> Flow[Response]:
        """Run hishel's state machine from ``state``: the response. Storage
        is written only if it answered this call's lookup; with a fill, as
        the lock is given back."""
        hishel = _hishel()
        while True:
            if isinstance(state, hishel.CacheMiss | hishel.NeedRevalidation):
                state = yield from self._fetch(state)
                if state is None:  # hishel failed on the entries it compared
                    return self._from_upstream(revalidated=False, stored=False)
            elif isinstance(state, hishel.StoreAndUse):
                found = self.found
                if found is not None:
                    yield from self._write(
                        found.storage,
                        _store,
                        found.storage,
                        self.stored_request,
                        state.response,
                        self.key,
                    )
                return self._from_upstream(self.revalidated, found is not None)
            elif isinstance(state, hishel.CouldNotBeStored):
                return self._from_upstream(self.revalidated, stored=False)
            elif isinstance(state, hishel.FromCache):
                return from_entry(
                    self.request, state.entry, self.revalidated, self.encoding
                )
            elif isinstance(state, hishel.NeedToBeUpdated):
                yield from self._renew(state.updating_entries)
                state = state.next()
            elif isinstance(state, hishel.InvalidateEntries):
                yield from self._remove(state.entry_ids)
                state = state.next()
            else:  # pragma: no cover - hishel's states are closed
                raise TypeError(f"unknown cache state {state!r}")

    def _fetch(self, state: Any) -> Flow[Any]:
        """Send the request ``state`` asks for (the call's, or its
        revalidation) and read the body as it comes: hishel's next state;
        ``None`` if hishel failed on the stored entries it compared them
        with (they are removed)."""
        self.revalidated = isinstance(state, _hishel().NeedRevalidation)
        request = self.request
        upstream = yield from self.send(with_changes(request, state.request.headers))
        self.upstream = upstream
        if upstream.is_stream_consumed:
            # built in memory by the transport (a mock), and so already
            # decoded: kept as it is, its Content-Encoding dropped
            raw = upstream.content
            upstream.headers = decoded_headers(upstream.headers, raw)
        else:
            sink = RawBody(request, self.limit)
            yield _Read(upstream, sink)
            raw = b"".join(sink.chunks)
        self.raw = raw
        try:
            return state.next(hishel_response(upstream, raw, time.time()))
        except Exception as error:  # on the stored entries it compared
            self.access.entry_fault(error)
            if self.found is not None:
                yield from self._remove([each.id for each in self.found.entries])
            return None

    def _from_upstream(self, revalidated: bool, stored: bool) -> Response:
        assert self.upstream is not None
        return from_upstream(
            self.request, self.upstream, self.raw, revalidated, stored, self.encoding
        )

    # -- writes: now, or as the fill lock is given back -------------------------------------

    def _renew(self, entries: Iterable[Any]) -> Flow[None]:
        """Renew the headers of the stored ``entries`` (a 304's)."""
        found = self.found
        if found is not None:
            for updating in entries:
                yield from self._write(
                    found.storage,
                    found.storage.update_headers,
                    updating.id,
                    updating.response.headers,
                )

    def _remove(self, entry_ids: Iterable[Any]) -> Flow[None]:
        """Remove the stored entries ``entry_ids``."""
        found = self.found
        if found is not None:
            for entry_id in entry_ids:
                yield from self._write(
                    found.storage, found.storage.remove_entry, entry_id
                )

    def _write(
        self, storage: Any, function: Callable[..., Any], *args: Any
    ) -> Flow[None]:
        """Write to ``storage`` with ``function(*args)``: as the fill lock
        is given back (before its key is free), or now."""
        if self.fill is not None:
            self.fill.writes.append((storage, function, args))
        else:
            yield Blocking(self.access.call, (storage, function, *args))


@dataclass(slots=True)
class _Start:
    """How a call through the cache starts (see ``CachedHop._begin``):
    what storage holds under its key (``None``: the storage failed, or is
    left alone), hishel's first state, and whether another process holds
    the key's fill lock."""

    found: Found | None = None
    state: Any = None
    busy: bool = False


class _Fill:
    """A key's fill lock as the cache step holds it, with the writes the
    fill makes. Giving it back writes them first (the entry
    stored, or its headers renewed by a 304), so that the key is free only
    once a waiter can find what was filled. However the call ends it is
    given back (the driver holds it), and giving it back never raises."""

    __slots__ = ("_access", "_lease", "_locks", "writes")

    def __init__(self, access: StorageAccess, locks: FillLocks, lease: Lease) -> None:
        self._access = access
        self._locks = locks
        self._lease: Lease | None = lease
        self.writes: list[tuple[Any, Callable[..., Any], tuple[Any, ...]]] = []

    def release(self) -> None:
        writes, self.writes = self.writes, []
        try:
            for storage, function, args in writes:
                self._access.call(storage, function, *args)
        finally:
            lease, self._lease = self._lease, None
            if lease is not None:
                _give_back(self._access, self._locks, lease)


def _give_back(access: StorageAccess, locks: FillLocks, lease: Lease) -> None:
    """Give a fill lock of ``locks`` back; a fault is counted, never raised."""
    try:
        lease.release()
    except Exception as error:
        access.lock_fault(error, locks)


def _answers(state: Any) -> bool:
    """Whether hishel's ``state`` answers from storage (fresh)."""
    return isinstance(state, _hishel().FromCache)


def _store(storage: Any, request: Any, response: Any, key: str) -> None:
    """Store ``response`` for ``request`` under ``key``."""
    entry = storage.create_entry(request, response, key)
    drained(entry.response.stream)  # saving as it is read


def _hishel() -> Any:
    import hishel

    return hishel
