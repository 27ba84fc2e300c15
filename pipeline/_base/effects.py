"""The effects a flow yields: the only I/O a chain ever asks for.

A chain is a generator. It never touches the network or the clock itself; it
yields one of these values and a driver (``sync_controller.run_sync`` or
``async_controller.run_async``) performs it, with blocking calls or with awaits, and
sends the result back in. That is how one definition of every middleware
serves both controllers.

Two kinds:

- **Public** (``Sleep``, ``Call``, ``Blocking``, ``Acquire``, ``Release``,
  ``TakeLease``, ``ReleaseLease``, ``SideCall``):
  what a middleware may yield. Each means the same under both drivers.
- **Wire** (``_Send``, ``_Read``, ``_Load``, ``_Close``, ``_Await``,
  ``_Answer``): private to the sender, the HTTP
  cache, downloads and the controller's steps. Only the sender sends, so
  every hop passes the credential policy (``_controller.sender``); a middleware that
  wants the network calls ``call_next``.

Both drivers match on the closed union :data:`Effect` with ``assert_never``,
so mypy proves they handle the same set.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Never, NoReturn, Protocol, TypeVar

from .forks import renewed_in_child
from .library import Request, Response

__all__ = [
    "Acquire",
    "Blocking",
    "Call",
    "Effect",
    "Flow",
    "FlowLock",
    "Lease",
    "Progress",
    "Reader",
    "Release",
    "ReleaseLease",
    "SideCall",
    "Sink",
    "Sleep",
    "TakeLease",
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

    __slots__ = ("__weakref__", "thread_lock")

    def __init__(self) -> None:
        self.thread_lock = threading.Lock()
        # (a lock a thread of the parent held is free in a forked child)
        renewed_in_child(self, "thread_lock")


@dataclass(frozen=True, slots=True)
class Acquire:
    """Wait for ``lock`` and take it; result: None."""

    lock: FlowLock


@dataclass(frozen=True, slots=True)
class Release:
    """Give ``lock`` back; result: None."""

    lock: FlowLock


class Called(Protocol):
    """What a :class:`SideCall` calls, as the effects see it: an endpoint
    (a ``RestEndpoint``; the controller refuses anything else), named in
    messages by its label."""

    @property
    def label(self) -> str: ...


@dataclass(frozen=True, slots=True)
class SideCall:
    """Call ``endpoint`` (with ``params`` and ``body``) on the controller
    running this flow, as a call of its own, for what a middleware needs
    before it can send (an OAuth2 token); result: ``(value, response)``.

    It runs ``endpoint``'s own middleware (not the calling endpoint's: no
    recursion) and is sent by the controller's sender on its client (or
    transport): every hop passes the credential policy, and the client's
    proxies, certificates and timeouts apply. Its value is never stored nor
    shared with another call, and no manager hears of it (a token response
    is a credential). A 4xx or 5xx raises as ``fetch`` does; the caller
    turns it into its own error."""

    endpoint: Called
    params: Mapping[str, Any] | None = None
    body: Any = None


# -- wire effects: the sender's, the HTTP cache's and the controller's ------------


@dataclass(frozen=True, slots=True)
class _Send:
    """Send ``request`` as one hop (no redirects followed); result: the response
    with its body not yet read.

    ``with_client_auth`` lets the client's own ``auth`` apply to this hop;
    ``store_cookies`` lets the client's jar keep the cookies the response sets.
    """

    request: Request
    with_client_auth: bool = True
    store_cookies: bool = True


class Sink(Protocol):
    """Where a ``_Read`` puts a body's raw bytes, chunk by chunk."""

    def feed(self, chunk: bytes) -> bool:
        """Take the next raw chunk; ``False`` stops reading (the rest of the
        body is never read)."""
        ...


class Reader(Protocol):
    """What a ``_Load`` decodes a whole body with: raw chunks in, decoded
    pieces out (bounded: it raises past its limit)."""

    @property
    def identity(self) -> bool:
        """Whether the body is sent as it is (nothing to decode)."""
        ...

    def pieces(self, chunk: bytes) -> Iterable[bytes]:
        """The decoded pieces of the next raw chunk."""
        ...

    def rest(self) -> Iterable[bytes]:
        """The pieces held back until the body ended."""
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

    response: Response
    sink: Sink
    progress: Progress | None = None


@dataclass(frozen=True, slots=True)
class _Load:
    """Read ``response``'s whole body, decoded by ``reader``, so that it
    becomes ``response.content``; result: None. The response is closed
    however it ends."""

    response: Response
    reader: Reader


@dataclass(frozen=True, slots=True)
class _Close:
    """Close ``response`` without reading the rest of its body; result: None."""

    response: Response


@dataclass(frozen=True, slots=True)
class _Await:
    """Wait until ``event`` (a ``threading.Event`` under the sync driver, an
    ``anyio.Event`` under the async one) is set, or the controller closes;
    result: None."""

    event: Any


@dataclass(frozen=True, slots=True)
class _Answer:
    """The call is answered without being sent (from the store, by another
    call in flight, or, probing, with its identity): the driver closes the
    flow, so every middleware unwinds as from a cancellation (a
    ``GeneratorExit``, no response side run), and hands ``value`` (or
    raises ``error``) to the controller."""

    value: Any = None
    error: BaseException | None = None

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


def answered(answer: _Answer) -> Flow[NoReturn]:
    """End the flow with ``answer``: the driver never resumes it."""
    yield answer
    raise AssertionError("a driver resumed a flow after its answer")


class Lease(Protocol):
    """Something a flow holds that must be given back (a lock in Redis, a
    rate-limit slot, a cache fill lock): see :class:`TakeLease`."""

    def release(self) -> None:
        """Give it back; may block briefly (a file closed, a Redis command)."""
        ...


@dataclass(frozen=True, slots=True)
class TakeLease:
    """Call ``take(*args)``, a blocking function that returns a
    :class:`Lease` (a Redis lock, a rate-limit slot, a file lock) or
    ``None``; result: what it returned. The driver holds a lease from the
    moment it exists, so it is given back however the flow ends, a
    cancellation included: a middleware never leaves one behind."""

    take: Callable[..., Lease | None]
    args: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class ReleaseLease:
    """Give ``lease`` back now (blocking; in a worker thread when awaited);
    result: None."""

    lease: Lease


Effect = (
    Sleep
    | Call
    | Blocking
    | Acquire
    | Release
    | _Send
    | _Read
    | _Load
    | _Close
    | _Await
    | _Answer
    | TakeLease
    | ReleaseLease
    | SideCall
)

#: A generator that yields effects and returns a ``T``.
Flow = Generator[Effect, Any, T]


def progress_report(response: Response) -> tuple[int, int | None]:
    """What a ``_Read`` reports: bytes of ``response`` received so far and,
    if the server said, how many in all."""
    length = response.headers.get("content-length")
    total = int(length) if length and length.isdigit() else None
    return response.num_bytes_downloaded, total


def not_an_effect(value: Never) -> TypeError:
    """The error a driver's last ``case`` raises. mypy proves that case
    unreachable (every effect is handled: ``value`` must be ``Never``); at run
    time a flow that yields anything else gets a clear error."""
    return TypeError(f"a flow yielded {value!r}, which is not an effect")
