"""The effects a flow yields: the only I/O a chain ever asks for.

A chain is a generator. It never touches the network or the clock itself; it
yields one of these values and a driver (``_sync.run_sync`` or
``_async.run_async``) performs it, with blocking calls or with awaits, and
sends the result back in. That is how one definition of every middleware
serves both controllers.

Two kinds:

- **Public** (``Sleep``, ``Call``, ``Blocking``, ``Acquire``, ``Release``):
  what a middleware may yield. Each means the same under both drivers.
- **Wire** (``_Send``, ``_Read``, ``_Close``, ``_Await``):
  private to the terminal, downloads and the controller's in-flight
  sharing. Only the terminal sends, so every hop passes the credential
  policy (``_hops``); a middleware that wants the network calls
  ``call_next``.

Both drivers match on the closed union :data:`Effect` with ``assert_never``,
so mypy proves they handle the same set.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Never, Protocol, TypeVar

import httpx

__all__ = [
    "Acquire",
    "Blocking",
    "Call",
    "Effect",
    "Flow",
    "FlowLock",
    "Release",
    "Sink",
    "Sleep",
]

T = TypeVar("T")


# -- public effects ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sleep:
    """Wait ``seconds`` without blocking an event loop; result: None."""

    seconds: float


@dataclass(frozen=True, slots=True)
class Call:
    """Call ``function(*args)``; result: what it returned. Under the async
    driver, an awaitable result is awaited, so ``function`` may be a
    coroutine function; under the sync driver it must not be."""

    function: Callable[..., Any]
    args: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class Blocking:
    """Call ``function(*args)``, a plain function that may block on I/O (a
    Redis command, a lock on another machine); result: what it returned.
    The sync driver calls it; the async driver runs it in a worker thread, so
    an event loop never waits on it. A middleware reaches a shared store
    this way and stays one definition for both drivers."""

    function: Callable[..., Any]
    args: tuple[Any, ...] = ()


class FlowLock:
    """A lock a flow takes with ``Acquire`` and gives back with ``Release``.

    One ``threading.Lock`` for every driver: the sync driver blocks on it,
    the async driver takes it without blocking, sleeping a little between
    tries (1 ms, doubling to 20 ms), so it never blocks an event loop and is
    bound to none. One lock therefore serves any number of threads and event
    loops (asyncio or trio), and sync and async controllers together. A
    driver releases what a flow still holds when the flow ends, however it
    ends.
    """

    __slots__ = ("thread_lock",)

    def __init__(self) -> None:
        self.thread_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Acquire:
    """Wait for ``lock`` and take it; result: None."""

    lock: FlowLock


@dataclass(frozen=True, slots=True)
class Release:
    """Give ``lock`` back; result: None."""

    lock: FlowLock


# -- wire effects: the terminal's and downloads' alone ---------------------------


@dataclass(frozen=True, slots=True)
class _Send:
    """Send ``request`` as one hop (no redirects followed); result: the response
    with its body not yet read.

    ``with_client_auth`` lets the client's own ``auth`` apply to this hop;
    ``store_cookies`` lets the client's jar keep the cookies the response sets.
    """

    request: httpx.Request
    with_client_auth: bool = True
    store_cookies: bool = True


class Sink(Protocol):
    """Where a ``_Read`` puts a body's raw bytes, chunk by chunk."""

    def feed(self, chunk: bytes) -> bool:
        """Take the next raw chunk; ``False`` stops reading (the rest of the
        body is never read)."""
        ...


Progress = Callable[[int, int | None], object]


@dataclass(frozen=True, slots=True)
class _Read:
    """Read ``response``'s raw body into ``sink`` until it ends or the sink
    says stop, then close the response; result: None.

    With ``progress``, call ``progress(bytes received, total or None)``
    after each chunk, and once at the end if no chunk came (so an empty body
    reports too), as a ``Call`` is called: awaited under the async driver if
    it returns an awaitable, refused under the sync one.
    """

    response: httpx.Response
    sink: Sink
    progress: Progress | None = None


@dataclass(frozen=True, slots=True)
class _Close:
    """Close ``response`` without reading the rest of its body; result: None."""

    response: httpx.Response


@dataclass(frozen=True, slots=True)
class _Await:
    """Wait until ``event`` (a ``threading.Event`` under the sync driver, an
    ``anyio.Event`` under the async one) is set; result: None."""

    event: Any


Effect = Sleep | Call | Blocking | Acquire | Release | _Send | _Read | _Close | _Await

#: A generator that yields effects and returns a ``T``.
Flow = Generator[Effect, Any, T]


def progress_report(response: httpx.Response) -> tuple[int, int | None]:
    """What a ``_Read`` reports: bytes of ``response`` received so far and,
    if the server said, how many in all."""
    length = response.headers.get("content-length")
    total = int(length) if length and length.isdigit() else None
    return response.num_bytes_downloaded, total


#: What to do instead, by where an awaitable was refused.
_SYNC_ONLY = "under a sync Controller give a plain function, or use AsyncController"
_BLOCKING_ONLY = (
    "Blocking takes a plain function (yield a Call for a coroutine function)"
)


def not_awaitable(function: Any, result: Any, instead: str = _SYNC_ONLY) -> Any:
    """``result`` of calling ``function`` where nothing can be awaited (the
    sync driver; a ``Blocking`` call under either): an awaitable is closed
    and refused with a ``TypeError`` saying what to do ``instead``."""
    if inspect.isawaitable(result):
        if inspect.iscoroutine(result):
            result.close()
        raise TypeError(f"{function!r} is async; {instead}")
    return result


def blocking_result(function: Any, result: Any) -> Any:
    """``result`` of a ``Blocking`` call, under either driver."""
    return not_awaitable(function, result, _BLOCKING_ONLY)


def not_an_effect(value: Never) -> TypeError:
    """The error a driver's last ``case`` raises. mypy proves that case
    unreachable (every effect is handled: ``value`` must be ``Never``); at run
    time a flow that yields anything else gets a clear error."""
    return TypeError(f"a flow yielded {value!r}, which is not an effect")
