"""What waits, in two kinds: blocking (threads) and awaited (anyio).

The async driver (``async_controller``) is written once; the sync one (``sync_controller``) is
generated from it by ``.ci/unasync.py``, which renames ``AsyncX`` to ``X``,
``aname`` to ``name`` and drops ``await``. Everything that differs between
the two kinds below that rename lives here, as small pairs with one
behaviour each:

| blocking | awaited | does |
|---|---|---|
| :func:`sleep_or_close` / :func:`asleep_or_close` | | wait, ended at once by closing |
| :func:`acquire` / :func:`aacquire` | | take a :class:`FlowLock` |
| :func:`call` / :func:`acall` | | call a function; an awaitable result awaited (or refused) |
| :func:`blocking` / :func:`ablocking` | | run a blocking function (in a worker thread when awaited) |
| :func:`shielded` / :func:`ashielded` | | a scope cancellation does not reach (cleanup) |
| :class:`Closing` / :class:`AsyncClosing` | | the closed flag, and waits it cuts short |
| :class:`Waker` / :class:`AsyncWaker` | | a poller's wait, cut short when woken |
| :class:`Readers` / :class:`AsyncReaders` | | reads of a stream's body, ended at once by closing |
| :class:`Background` / :class:`AsyncBackground` | | where pollers run: threads, or a task group |
| :data:`Event` / :data:`AsyncEvent` | | what a waiter for a call in flight waits on |

Nothing here knows HTTP.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import threading
from collections.abc import Callable, Coroutine, Iterator
from types import TracebackType
from typing import Any, Self

import anyio
import anyio.abc
import anyio.to_thread

from .effects import FlowLock
from .errors import UsageError
from .forks import renewed_in_child

__all__ = [
    "AsyncBackground",
    "AsyncClosing",
    "AsyncEvent",
    "AsyncReaders",
    "AsyncWaker",
    "Background",
    "Closing",
    "Event",
    "Readers",
    "Waker",
    "aacquire",
    "ablocking",
    "acall",
    "acquire",
    "ashielded",
    "asleep_or_close",
    "blocking",
    "call",
    "not_awaitable",
    "shielded",
    "sleep_or_close",
]

#: What a waiter for a call in flight waits on.
Event = threading.Event
AsyncEvent = anyio.Event

# -- the closed flag ---------------------------------------------------------------


class Closing:
    """A controller's closed flag; waits on it end the moment it is set."""

    __slots__ = ("_event",)

    def __init__(self) -> None:
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Wait ``seconds``, or less if closed meanwhile; whether closed."""
        return self._event.wait(_at_least_zero(seconds))


class AsyncClosing:
    """:class:`Closing` for awaited waits: one ``anyio.Event`` per event loop
    that waits (made on first use, since it needs a running loop)."""

    __slots__ = ("_closed", "_events")

    def __init__(self) -> None:
        self._closed = False
        self._events: list[anyio.Event] = []

    def set(self) -> None:
        self._closed = True
        for event in self._events:
            event.set()

    def is_set(self) -> bool:
        return self._closed

    async def wait(self, seconds: float) -> bool:
        """Wait ``seconds``, or less if closed meanwhile; whether closed."""
        if self._closed:
            return True
        event = anyio.Event()
        self._events.append(event)
        try:
            with anyio.move_on_after(_at_least_zero(seconds)):
                await event.wait()
        finally:
            self._events.remove(event)
        return self._closed


def sleep_or_close(closing: Closing, seconds: float) -> bool:
    """Sleep ``seconds`` unless ``closing`` is set first; whether it was."""
    return closing.wait(seconds)


async def asleep_or_close(closing: AsyncClosing, seconds: float) -> bool:
    """Sleep ``seconds`` unless ``closing`` is set first; whether it was."""
    return await closing.wait(seconds)


class Waker:
    """A poller's wait between fetches, cut short by ``wake()`` (a
    subscriber came or went, or the controller closed)."""

    __slots__ = ("_event",)

    def __init__(self) -> None:
        self._event = threading.Event()

    def wake(self) -> None:
        self._event.set()

    def wait(self, seconds: float) -> None:
        self._event.wait(_at_least_zero(seconds))
        self._event.clear()


class AsyncWaker:
    """:class:`Waker`, awaited."""

    __slots__ = ("_event", "_woken")

    def __init__(self) -> None:
        self._event: anyio.Event | None = None
        self._woken = False

    def wake(self) -> None:
        self._woken = True
        if self._event is not None:
            self._event.set()

    async def wait(self, seconds: float) -> None:
        if not self._woken:
            self._event = anyio.Event()
            with anyio.move_on_after(_at_least_zero(seconds)):
                await self._event.wait()
            self._event = None
        self._woken = False


class Readers:
    """The reads of streamed bodies in progress (event streams), which
    closing the controller ends at once: a blocking read is ended by its
    ``interrupt`` (the adapter's: its socket shut down), called from the
    closing thread."""

    __slots__ = ("_closed", "_lock", "_reading")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reading: dict[int, Callable[[], None]] = {}
        self._closed = False

    @contextlib.contextmanager
    def reading(self, interrupt: Callable[[], None]) -> Iterator[None]:
        """The scope of one read, which ``close()`` ends by ``interrupt()``."""
        key = id(interrupt)
        with self._lock:
            closed = self._closed
            self._reading[key] = interrupt
        try:
            if closed:
                interrupt()
            yield
        finally:
            with self._lock:
                self._reading.pop(key, None)

    def close(self) -> None:
        """End every read in progress, and every later one at its start."""
        with self._lock:
            self._closed = True
            interrupts = list(self._reading.values())
        for interrupt in interrupts:
            interrupt()


class AsyncReaders:
    """:class:`Readers`, awaited: a read in progress is cancelled (its
    ``interrupt`` is not needed: the task stops waiting at once)."""

    __slots__ = ("_closed", "_reading")

    def __init__(self) -> None:
        self._reading: set[anyio.CancelScope] = set()
        self._closed = False

    @contextlib.contextmanager
    def reading(self, interrupt: Callable[[], None]) -> Iterator[None]:
        """The scope of one read, which ``close()`` cancels (the read then
        ends quietly, as if nothing came)."""
        with anyio.CancelScope() as scope:
            if self._closed:
                scope.cancel()
            self._reading.add(scope)
            try:
                yield
            finally:
                self._reading.discard(scope)

    def close(self) -> None:
        """Cancel every read in progress, and every later one at its start."""
        self._closed = True
        for scope in list(self._reading):
            scope.cancel()


# -- locks, calls, blocking functions -------------------------------------------------


def acquire(lock: FlowLock) -> None:
    """Wait for ``lock`` and take it."""
    lock.thread_lock.acquire()


async def aacquire(lock: FlowLock) -> None:
    """Take ``lock`` without blocking the event loop: try, then sleep a
    little (1 ms, doubling to 20 ms) and try again."""
    pause = 0.001
    while not lock.thread_lock.acquire(blocking=False):
        await anyio.sleep(pause)
        pause = min(pause * 2, 0.02)


#: What to do instead, by where an awaitable was refused.
_SYNC_ONLY = "under a sync Controller give a plain function, or use AsyncController"
_BLOCKING_ONLY = (
    "Blocking takes a plain function (yield a Call for a coroutine function)"
)


def not_awaitable(function: Any, result: Any, instead: str = _SYNC_ONLY) -> Any:
    """``result`` of calling ``function`` where nothing can be awaited: an
    awaitable is closed and refused with a ``TypeError`` saying what to do
    ``instead``."""
    if inspect.isawaitable(result):
        if inspect.iscoroutine(result):
            result.close()
        raise UsageError(f"{function!r} is async; {instead}")
    return result


def call(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)``; an awaitable result is refused (see above)."""
    return not_awaitable(function, function(*args))


async def acall(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)``, its result awaited if it is awaitable."""
    result = function(*args)
    return await result if inspect.isawaitable(result) else result


def blocking(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)``, a plain function that may block."""
    return not_awaitable(function, function(*args), _BLOCKING_ONLY)


async def ablocking(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` in a worker thread, so the event loop never waits
    on it."""
    result = await anyio.to_thread.run_sync(function, *args)
    return not_awaitable(function, result, _BLOCKING_ONLY)


def shielded() -> contextlib.nullcontext[None]:
    """Cleanup's scope: nothing cancels a blocking call midway."""
    return contextlib.nullcontext()


def ashielded() -> anyio.CancelScope:
    """Cleanup's scope: cancellation waits until it is done."""
    return anyio.CancelScope(shield=True)


# -- where pollers run ------------------------------------------------------------------


class Background:
    """Pollers on threads, each started in a copy of its starter's context
    (the context whose identity keys the poller)."""

    def __init__(self) -> None:
        self._threads: set[threading.Thread] = set()
        self._lock = threading.Lock()
        renewed_in_child(self, "_lock", abandon="_abandon")

    def _abandon(self) -> None:
        """In a forked child: the parent's threads are not there."""
        self._threads = set()

    def start(self, function: Callable[[], None], name: str) -> None:
        def run() -> None:
            try:
                function()
            finally:
                with self._lock:
                    self._threads.discard(thread)

        thread = threading.Thread(
            target=contextvars.copy_context().run, args=(run,), name=name
        )
        with self._lock:
            self._threads.add(thread)
        thread.start()

    def stop(self) -> None:
        """Wait for every poller (each ends at its next step once closed)."""
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            if thread is not threading.current_thread():
                thread.join()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


class AsyncBackground:
    """Pollers as tasks of a task group, which exists inside ``async with``
    the controller; each task runs in a copy of its starter's context."""

    def __init__(self) -> None:
        self._tasks: anyio.abc.TaskGroup | None = None

    def start(
        self, function: Callable[[], Coroutine[Any, Any, None]], name: str
    ) -> None:
        if self._tasks is None:
            raise RuntimeError(
                "subscribe() needs `async with AsyncController(...)`: its pollers "
                "run in the block's task group"
            )
        self._tasks.start_soon(function, name=name)

    async def stop(self) -> None:
        """End every poller now (a poll in progress is cancelled)."""
        tasks, self._tasks = self._tasks, None
        if tasks is not None:
            tasks.cancel_scope.cancel()
            # The group only runs pollers: an error raised in the block
            # reaches the caller as itself, not in an ExceptionGroup.
            await tasks.__aexit__(None, None, None)

    async def __aenter__(self) -> Self:
        tasks = anyio.create_task_group()
        await tasks.__aenter__()
        self._tasks = tasks
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()


def _at_least_zero(seconds: float) -> float:
    """``seconds``, or 0 for a negative wait or NaN (``max(nan, 0.0)`` is
    NaN, which a wait takes as no bound at all)."""
    return seconds if seconds > 0 else 0.0
