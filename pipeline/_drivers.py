"""The two drivers: run a chain's flow on ``httpx.Client`` or ``httpx.AsyncClient``.

These are the only functions in restwire written once for each kind of
client; everything they drive is written once for both. A driver sends each
value the flow yields to :func:`perform` (blocking or awaited), sends the
result back, and throws any exception back in, so a middleware can catch a
failed send the same way under both.

If the flow is abandoned (the caller is interrupted or its task cancelled),
the driver closes the generator, closes a response being read, and releases
every lock the flow still holds.
"""

from __future__ import annotations

import inspect
import time
from typing import Any, TypeVar

import anyio
import httpx

from ._cookies import cookie_scope
from ._effects import (
    Acquire,
    Call,
    Close,
    Drain,
    Effect,
    Flow,
    FlowLock,
    Read,
    Release,
    Send,
    Sleep,
)

__all__ = ["run_async", "run_sync"]

T = TypeVar("T")


def _progress(response: httpx.Response) -> tuple[int, int | None]:
    """Bytes received so far and, if the server said, how many in all."""
    length = response.headers.get("content-length")
    total = int(length) if length and length.isdigit() else None
    return response.num_bytes_downloaded, total


def _auth(effect: Send) -> Any:
    return httpx.USE_CLIENT_DEFAULT if effect.with_client_auth else None


def perform_sync(effect: Effect, client: httpx.Client, held: list[FlowLock]) -> Any:
    """Carry out one effect with blocking I/O."""
    if isinstance(effect, Send):
        with cookie_scope(client, effect.store_cookies):
            return client.send(
                effect.request, stream=True, follow_redirects=False, auth=_auth(effect)
            )
    if isinstance(effect, Read):
        try:
            return effect.response.read()
        except BaseException:
            effect.response.close()
            raise
    if isinstance(effect, Drain):
        try:
            for chunk in effect.response.iter_bytes():
                effect.write(chunk)
                if effect.progress is not None:
                    effect.progress(*_progress(effect.response))
        finally:
            effect.response.close()
        return None
    if isinstance(effect, Close):
        effect.response.close()
        return None
    if isinstance(effect, Sleep):
        time.sleep(max(effect.seconds, 0.0))
        return None
    if isinstance(effect, Call):
        result = effect.function(*effect.args)
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()
            raise TypeError(
                f"{effect.function!r} is async; under a sync Controller give a "
                "plain function, or use AsyncController"
            )
        return result
    if isinstance(effect, Acquire):
        effect.lock.thread_lock.acquire()
        held.append(effect.lock)
        return None
    if isinstance(effect, Release):
        held.remove(effect.lock)
        effect.lock.thread_lock.release()
        return None
    raise TypeError(f"a flow yielded {effect!r}, which is not an effect")


async def perform_async(
    effect: Effect, client: httpx.AsyncClient, held: list[FlowLock]
) -> Any:
    """Carry out one effect with awaited I/O."""
    if isinstance(effect, Send):
        with cookie_scope(client, effect.store_cookies):
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
    if isinstance(effect, Drain):
        try:
            async for chunk in effect.response.aiter_bytes():
                effect.write(chunk)
                if effect.progress is not None:
                    effect.progress(*_progress(effect.response))
        finally:
            with anyio.CancelScope(shield=True):
                await effect.response.aclose()
        return None
    if isinstance(effect, Close):
        await effect.response.aclose()
        return None
    if isinstance(effect, Sleep):
        await anyio.sleep(max(effect.seconds, 0.0))
        return None
    if isinstance(effect, Call):
        result = effect.function(*effect.args)
        if inspect.isawaitable(result):
            result = await result
        return result
    if isinstance(effect, Acquire):
        await effect.lock.async_lock().acquire()
        held.append(effect.lock)
        return None
    if isinstance(effect, Release):
        held.remove(effect.lock)
        effect.lock.async_lock().release()
        return None
    raise TypeError(f"a flow yielded {effect!r}, which is not an effect")


def run_sync(flow: Flow[T], client: httpx.Client) -> T:
    """Run ``flow`` to its end with blocking I/O on ``client``; return its result."""
    result: Any = None
    error: Exception | None = None
    held: list[FlowLock] = []
    try:
        while True:
            try:
                effect = flow.send(result) if error is None else flow.throw(error)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            result, error = None, None
            try:
                result = perform_sync(effect, client, held)
            except Exception as exc:
                error = exc
    finally:
        flow.close()
        for lock in held:
            lock.thread_lock.release()


async def run_async(flow: Flow[T], client: httpx.AsyncClient) -> T:
    """Run ``flow`` to its end with awaited I/O on ``client``; return its result."""
    result: Any = None
    error: Exception | None = None
    held: list[FlowLock] = []
    try:
        while True:
            try:
                effect = flow.send(result) if error is None else flow.throw(error)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            result, error = None, None
            try:
                result = await perform_async(effect, client, held)
            except Exception as exc:
                error = exc
    finally:
        flow.close()
        for lock in held:
            lock.async_lock().release()
