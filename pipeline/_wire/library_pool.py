"""The HTTP library's own async pool (httpcore's), one per event loop.

A pool's connections belong to the event loop that opened them: used from
another loop (a program that runs ``asyncio.run`` more than once, or trio
runs one after another) they fail. :class:`PerLoop` keeps a transport of the
library's own per loop: a request from another loop gets one of that loop.
It serves the client an ``AsyncController`` makes for itself when aiohttp is
not there, and what aiohttp's pool passes on (``fast_transport``,
``default_transport``).

A pool made for a loop is closed with the loop (:func:`closed_with_loop`):
``asyncio.run`` finalizes the async generators still open before it closes
its loop, and one held for the pool closes it then, while the loop still
runs, so its connections are closed, not left to the garbage collector.
"""

from __future__ import annotations

import asyncio
import ssl
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable
from types import ModuleType
from typing import Any

__all__ = ["PerLoop", "closed_with_loop", "per_loop"]


async def _closing(
    close: Callable[[], Awaitable[object]],
) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        await close()


async def closed_with_loop(
    close: Callable[[], Awaitable[object]],
) -> AsyncGenerator[None, None]:
    """An async generator, started, that awaits ``close()`` when it is
    finalized: by ``asyncio.run`` as it ends the running loop (or by an
    ``aclose()``, to close earlier). Hold it: it is finalized only while held."""
    guard = _closing(close)
    await anext(guard)
    return guard


def per_loop(library: ModuleType, context: ssl.SSLContext | None = None) -> Any:
    """The library's own async transport, one per event loop (see
    :class:`PerLoop`), as a transport of the library's own base class."""
    kind = _PER_LOOP_KINDS.get(library)
    if kind is None:
        kind = _PER_LOOP_KINDS[library] = type(
            "PerLoopTransport",
            (PerLoop, library.AsyncBaseTransport),
            {"__module__": __name__, "__doc__": PerLoop.__doc__},
        )
    return kind(library, context)


class PerLoop:
    """The library's own async transport (httpcore's pool), one per event
    loop: its connections belong to the loop that opened them, so a request
    from another loop gets a transport of that loop, and the old one is let
    go once its loop has closed (its connections went with it)."""

    def __init__(self, library: ModuleType, context: ssl.SSLContext | None) -> None:
        self._library = library
        self._context = context
        self._transport: Any = None
        self._loop: Any = None
        #: Closes the current pool with its loop (see the module).
        self._guard: AsyncGenerator[None, None] | None = None

    async def _current(self) -> Any:
        loop = _running_loop()
        if self._transport is None or loop is not self._loop:
            # (a pool of another loop is dropped: its loop closed it as it
            # ended, or it serves that loop's calls no more)
            options = {} if self._context is None else {"verify": self._context}
            transport = self._library.AsyncHTTPTransport(**options)
            self._transport, self._loop = transport, loop
            self._guard = (
                await closed_with_loop(transport.aclose)
                if isinstance(loop, asyncio.AbstractEventLoop)
                else None
            )
        return self._transport

    async def handle_async_request(self, request: Any) -> Any:
        transport = self._transport
        if transport is None or _running_loop() is not self._loop:
            transport = await self._current()
        return await transport.handle_async_request(request)

    async def aclose(self) -> None:
        if self._transport is not None and self._loop is _running_loop():
            if self._guard is not None:
                await self._guard.aclose()  # (closes the pool)
            else:
                await self._transport.aclose()
        self._transport = self._loop = self._guard = None


_PER_LOOP_KINDS: dict[ModuleType, type[PerLoop]] = {}


def _running_loop() -> Any:
    """What identifies the running event loop: asyncio's loop, or trio's
    run (its token)."""
    loop = asyncio._get_running_loop()
    if loop is not None:
        return loop
    trio = sys.modules.get("trio")
    return None if trio is None else trio.lowlevel.current_trio_token()
