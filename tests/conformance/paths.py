"""Every path a call can take to the wire, as a controller to make.

A call's bytes go out through one of: httpx's own pool (a client the user
gives, or the one ``Controller()`` makes), httpx2's, or aiohttp's pool
under ``fast_transport()`` (the one ``AsyncController()`` makes for
itself, or one the user gives an httpx2 client); sent on the client's
transport directly, or through ``client.send`` (a client with an event
hook); and, on each, with restwire's two shortcuts (``_wire.shortcuts``)
or without them. The suite runs its corpus through all of them and
compares what each sent and returned.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import httpx2
import pytest

from restwire import AsyncController, Controller, fast_transport
from restwire._wire import shortcuts


@dataclasses.dataclass(frozen=True)
class CallPath:
    """One way a call goes out: ``make(**options)`` gives its controller
    (``options``: the controller's, such as ``cache=``), of the
    ``asynchronous`` kind, sending with ``library`` (httpx or httpx2, whose
    own defaults differ: ``Accept-Encoding`` names zstd for one only);
    ``shortcuts``: whether restwire's shortcuts are on."""

    name: str
    asynchronous: bool
    make: Callable[..., Any]
    library: str = "httpx"
    shortcuts: bool = True

    def __str__(self) -> str:
        return self.name


def _noted(request: Any) -> None:
    """An event hook that does nothing: a client with one takes httpx's
    whole client path, ``client.send``."""


async def _noted_async(request: Any) -> None:
    """:func:`_noted`, for an ``AsyncClient``."""


_HOOKS: dict[str, list[Callable[..., Any]]] = {"request": [_noted]}
_ASYNC_HOOKS: dict[str, list[Callable[..., Any]]] = {"request": [_noted_async]}

PATHS = (
    CallPath(
        "httpx pool, sync",
        False,
        lambda **options: Controller(httpx.Client(), **options),
    ),
    CallPath("own client, sync", False, Controller),
    CallPath(
        "httpx2 pool, sync",
        False,
        lambda **options: Controller(httpx2.Client(), **options),
        "httpx2",
    ),
    CallPath(
        "httpx pool, async",
        True,
        lambda **options: AsyncController(httpx.AsyncClient(), **options),
    ),
    CallPath(
        "httpx2 pool, async",
        True,
        lambda **options: AsyncController(httpx2.AsyncClient(), **options),
        "httpx2",
    ),
    CallPath("own client, aiohttp pool", True, AsyncController),
    CallPath(
        "httpx2 on fast_transport()",
        True,
        lambda **options: AsyncController(
            httpx2.AsyncClient(transport=fast_transport(library=httpx2)), **options
        ),
        "httpx2",
    ),
    CallPath(
        "httpx pool via client.send, sync",
        False,
        lambda **options: Controller(httpx.Client(event_hooks=_HOOKS), **options),
    ),
    CallPath(
        "httpx2 pool via client.send, async",
        True,
        lambda **options: AsyncController(
            httpx2.AsyncClient(event_hooks=_ASYNC_HOOKS), **options
        ),
        "httpx2",
    ),
    CallPath("httpx pool, sync, no shortcuts", False, Controller, shortcuts=False),
    CallPath("aiohttp pool, no shortcuts", True, AsyncController, shortcuts=False),
)


def turn_off_shortcuts(monkeypatch: pytest.MonkeyPatch) -> None:
    """restwire's two shortcuts turned off (until ``monkeypatch`` undoes
    it): each library's URLs and bodies made the public way, as when the
    check of each finds them differing."""
    for library in (httpx, httpx2):
        monkeypatch.setitem(shortcuts._origins, library, None)
        monkeypatch.setitem(shortcuts._bodies, library.Response, False)


@asynccontextmanager
async def opened(
    path: CallPath, monkeypatch: pytest.MonkeyPatch, **options: Any
) -> AsyncIterator[Any]:
    """``path``'s controller (given ``options``), open; closed (and the
    shortcuts given back) after."""
    with monkeypatch.context() as patches:
        if not path.shortcuts:
            turn_off_shortcuts(patches)
        controller = path.make(**options)
        try:
            yield controller
        finally:  # (a client the path gave is closed too)
            if path.asynchronous:
                await controller.close()
                await controller.client.aclose()
            else:
                controller.close()
                controller.client.close()
