"""The two drivers: run a chain's flow on ``httpx.Client`` or ``httpx.AsyncClient``.

These are the only functions in restwire written once for each kind of
client; everything they drive is written once for both. A driver sends each
value the flow yields to :func:`perform` (blocking or awaited), sends the
result back, and throws any exception back in, so a middleware can catch a
failed send the same way under both.

If the flow is abandoned (the caller is interrupted or its task cancelled),
the driver closes the generator, and a response being read is closed.
"""

from __future__ import annotations

import time
from typing import Any, TypeVar

import anyio
import httpx

from ._cookies import cookie_storing
from ._effects import Close, Effect, Flow, Read, Send, Sleep

__all__ = ["run_async", "run_sync"]

T = TypeVar("T")


def _auth(effect: Send) -> Any:
    return httpx.USE_CLIENT_DEFAULT if effect.with_client_auth else None


def perform_sync(effect: Effect, client: httpx.Client) -> Any:
    """Carry out one effect with blocking I/O."""
    if isinstance(effect, Send):
        with cookie_storing(client, effect.store_cookies):
            return client.send(
                effect.request, stream=True, follow_redirects=False, auth=_auth(effect)
            )
    if isinstance(effect, Read):
        try:
            return effect.response.read()
        except BaseException:
            effect.response.close()
            raise
    if isinstance(effect, Close):
        effect.response.close()
        return None
    if isinstance(effect, Sleep):
        time.sleep(max(effect.seconds, 0.0))
        return None
    raise TypeError(f"a flow yielded {effect!r}, which is not an effect")


async def perform_async(effect: Effect, client: httpx.AsyncClient) -> Any:
    """Carry out one effect with awaited I/O."""
    if isinstance(effect, Send):
        with cookie_storing(client, effect.store_cookies):
            return await client.send(
                effect.request, stream=True, follow_redirects=False, auth=_auth(effect)
            )
    if isinstance(effect, Read):
        try:
            return await effect.response.aread()
        except BaseException:
            with anyio.CancelScope(shield=True):
                await effect.response.aclose()
            raise
    if isinstance(effect, Close):
        await effect.response.aclose()
        return None
    if isinstance(effect, Sleep):
        await anyio.sleep(max(effect.seconds, 0.0))
        return None
    raise TypeError(f"a flow yielded {effect!r}, which is not an effect")


def run_sync(flow: Flow[T], client: httpx.Client) -> T:
    """Run ``flow`` to its end with blocking I/O on ``client``; return its result."""
    result: Any = None
    error: Exception | None = None
    try:
        while True:
            try:
                effect = flow.send(result) if error is None else flow.throw(error)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            result, error = None, None
            try:
                result = perform_sync(effect, client)
            except Exception as exc:
                error = exc
    finally:
        flow.close()


async def run_async(flow: Flow[T], client: httpx.AsyncClient) -> T:
    """Run ``flow`` to its end with awaited I/O on ``client``; return its result."""
    result: Any = None
    error: Exception | None = None
    try:
        while True:
            try:
                effect = flow.send(result) if error is None else flow.throw(error)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            result, error = None, None
            try:
                result = await perform_async(effect, client)
            except Exception as exc:
                error = exc
    finally:
        flow.close()
