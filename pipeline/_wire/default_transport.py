"""The transport of the client an ``AsyncController`` makes for itself.

A controller given neither a client nor a transport makes its own client,
and chooses what it sends on:

- **aiohttp's pool** (:func:`~restwire.fast_transport`) when aiohttp is
  installed (``pip install "restwire[fast]"``): httpx's own async pool
  slows down as calls queue for its connections (encode/httpx#3215);
- **the library's own transport** (``httpx.AsyncHTTPTransport()``, or
  httpx2's) otherwise, and, call by call, whenever aiohttp's pool cannot or
  must not serve the call:

  - the call runs outside asyncio (trio: aiohttp runs on asyncio only);
  - a mock has replaced the library's transport or its connection pool
    (pytest-httpx and httpx2-pytest patch the transport class, respx the
    pool classes of httpcore): the mock sees every call, as it would
    without aiohttp installed.

A package that is installed but fails to import costs one warning and the
library's own transport. A client or transport the user gives is used as
given: nothing here applies to it.

Either pool belongs to the event loop it was made in: a controller used
from another loop (a program that runs ``asyncio.run`` more than once)
gets a pool of that loop, its old one let go (:class:`PerLoop`).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import ssl
from importlib.util import find_spec
from types import ModuleType
from typing import Any

from .._base import library as _library
from .._base.errors import MissingExtra
from .fast_transport import fast_transport
from .library_pool import PerLoop, per_loop

__all__ = ["Fallback", "own_async_transport"]

_log = logging.getLogger("restwire")

#: Each library's connection-pool module, whose classes respx patches.
_POOLS = {"httpx": "httpcore", "httpx2": "httpcore2"}

#: Per library installed: each class whose ``handle_async_request`` mocks
#: replace, with the function found there as restwire is imported (before a
#: test starts a mock).
_PATCH_POINTS: dict[ModuleType, tuple[tuple[Any, Any], ...]] = {}


def own_async_transport(library: ModuleType) -> Any:
    """The transport of an ``AsyncClient`` of ``library`` that restwire
    makes for itself: aiohttp's pool with a :class:`Fallback` to the
    library's own transport, or the library's own when aiohttp is not
    installed (or cannot be imported: one warning)."""
    if find_spec("aiohttp") is None:
        return per_loop(library)
    try:
        transport = fast_transport(library=library)
    except MissingExtra as error:
        _log.warning("%s; sending on %s's own pool", error, library.__name__)
        return per_loop(library)
    transport.fallback = Fallback(library, transport.ssl_context)
    return transport


class Fallback:
    """When, and on what, aiohttp's pool passes a call to the library's own
    transport (made at the first such call, with the same TLS settings)."""

    __slots__ = ("_own", "_points")

    def __init__(self, library: ModuleType, context: ssl.SSLContext) -> None:
        self._own = PerLoop(library, context)
        self._points = _PATCH_POINTS[library]

    def applies(self) -> bool:
        """Whether this call goes to the library's own transport: outside
        asyncio, or with its transport or pool patched by a mock."""
        if asyncio._get_running_loop() is None:
            return True
        for owner, found in self._points:
            if owner.handle_async_request is not found:
                return True
        return False

    async def send(self, request: Any) -> Any:
        """``request`` sent on the library's own transport (of this loop)."""
        return await self._own.handle_async_request(request)

    async def aclose(self) -> None:
        await self._own.aclose()


def _patch_points(library: ModuleType) -> tuple[tuple[Any, Any], ...]:
    """The classes of ``library``'s transport and pool whose
    ``handle_async_request`` mocks replace, each with the function found
    there now, or ``None`` where a mock holds
    it already (restwire then always falls back: it cannot know the
    library's own). A mock is told by its module (pytest-httpx's function
    is its own) or by its ``mock`` attribute (``unittest.mock``'s
    ``autospec``, as respx patches, copies the function's module)."""
    owners: list[tuple[Any, str]] = [(library.AsyncHTTPTransport, library.__name__)]
    pool_module = _POOLS.get(library.__name__)
    if pool_module is not None:
        try:
            pool = importlib.import_module(pool_module)
        except ImportError:
            pass
        else:
            owners.append((pool.AsyncConnectionPool, pool_module))
    points = []
    for owner, root in owners:
        function = owner.handle_async_request
        module = getattr(function, "__module__", None) or ""
        own = module.partition(".")[0] == root and not hasattr(function, "mock")
        points.append((owner, function if own else None))
    return tuple(points)


for _installed in _library.LIBRARIES:
    _PATCH_POINTS[_installed] = _patch_points(_installed)
