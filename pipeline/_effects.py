"""The effects a chain yields: the only I/O a middleware ever asks for.

A chain is a generator. It never touches the network or the clock itself; it
yields one of these values and a driver (``pipeline._drivers``) performs it,
with ``httpx.Client`` and blocking calls, or with ``httpx.AsyncClient`` and
awaits, and sends the result back in. That is how one definition of every
middleware serves both.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

__all__ = [
    "Acquire",
    "Call",
    "Close",
    "Drain",
    "Effect",
    "Flow",
    "FlowLock",
    "Read",
    "Release",
    "Send",
    "Sleep",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Send:
    """Send ``request`` as one hop (no redirects followed); result: the response
    with its body not yet read.

    ``with_client_auth`` lets the client's own ``auth`` apply to this hop;
    ``store_cookies`` lets the client's jar keep the cookies the response sets.
    """

    request: httpx.Request
    with_client_auth: bool = True
    store_cookies: bool = True


@dataclass(frozen=True, slots=True)
class Read:
    """Read ``response``'s whole body (and so release its connection); result:
    the bytes."""

    response: httpx.Response


@dataclass(frozen=True, slots=True)
class Drain:
    """Read ``response``'s body chunk by chunk into ``write(chunk)``, in
    constant memory, calling ``progress(bytes_received, total_or_None)``
    after each chunk; result: None."""

    response: httpx.Response
    write: Callable[[bytes], object]
    progress: Callable[[int, int | None], object] | None = None


@dataclass(frozen=True, slots=True)
class Close:
    """Close ``response`` without reading the rest of its body; result: None."""

    response: httpx.Response


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


class FlowLock:
    """A lock a flow takes with ``Acquire`` and gives back with ``Release``.

    The sync driver holds a ``threading.Lock``, the async driver an
    ``anyio.Lock``; a driver releases what a flow still holds when the flow
    ends, however it ends.
    """

    __slots__ = ("_async", "thread_lock")

    def __init__(self) -> None:
        self.thread_lock = threading.Lock()
        self._async: Any = None

    def async_lock(self) -> Any:
        """The ``anyio.Lock`` (made on first use, inside an event loop)."""
        if self._async is None:
            import anyio

            self._async = anyio.Lock()
        return self._async


@dataclass(frozen=True, slots=True)
class Acquire:
    """Wait for ``lock`` and take it; result: None."""

    lock: FlowLock


@dataclass(frozen=True, slots=True)
class Release:
    """Give ``lock`` back; result: None."""

    lock: FlowLock


Effect = Send | Read | Drain | Close | Sleep | Call | Acquire | Release

#: A generator that yields effects and returns a ``T``.
Flow = Generator[Effect, Any, T]
