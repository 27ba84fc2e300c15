"""Awaited I/O: the async driver, and ``AsyncController``.

The twin of ``_sync``: :func:`run_async` runs a flow on an
``httpx.AsyncClient`` with awaits (asyncio or trio, through anyio), and
``AsyncController`` has ``Controller``'s surface, awaited. ``subscribe`` runs
pollers in the controller's task group, which exists inside
``async with AsyncController(...)``.
"""

from __future__ import annotations

import inspect
import os
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self, TypeVar, cast, overload

import anyio
import anyio.abc
import httpx

from ._chain import run_exchange
from ._controller import GET, RAW, BaseController, Job, Params, logger
from ._download import Download, Progress, filename_from
from ._effects import (
    Acquire,
    Blocking,
    Call,
    Effect,
    Flow,
    FlowLock,
    Release,
    Sleep,
    _Await,
    _Close,
    _Read,
    _Send,
    blocking_result,
    not_an_effect,
    progress_report,
)
from ._endpoint import RestEndpoint
from ._hops import cookie_scope
from ._http_cache import HttpCache
from ._page import Page
from ._polling import ErrorCallback, Poller, Subscription, Wait
from ._store import MISSING
from ._wire import direct_transport, now, received

__all__ = ["AsyncController", "run_async"]

T = TypeVar("T")
ValueT = TypeVar("ValueT")
ItemT = TypeVar("ItemT")


async def _perform(
    effect: Effect, client: httpx.AsyncClient, held: list[FlowLock]
) -> Any:
    """Carry out one effect with awaited I/O."""
    match effect:
        case _Send():
            request = effect.request
            transport = direct_transport(client, request, effect.with_client_auth)
            if transport is None:
                auth = httpx.USE_CLIENT_DEFAULT if effect.with_client_auth else None
                with cookie_scope(client, effect.store_cookies):
                    return await client.send(
                        request, stream=True, follow_redirects=False, auth=auth
                    )
            assert isinstance(transport, httpx.AsyncBaseTransport)
            started = now()
            try:
                response = await transport.handle_async_request(request)
            except httpx.RequestError as error:
                error.request = request  # as httpx's own send does
                raise
            return received(client, request, response, started, effect.store_cookies)
        case _Read():
            response, progress = effect.response, effect.progress
            chunks = cast(AsyncGenerator[bytes, None], response.aiter_raw())
            reported = False
            try:
                async for chunk in chunks:
                    if not effect.sink.feed(chunk):
                        break
                    if progress is not None:
                        await _awaited(progress(*progress_report(response)))
                        reported = True
                if progress is not None and not reported:
                    await _awaited(progress(*progress_report(response)))
            finally:
                with anyio.CancelScope(shield=True):
                    await chunks.aclose()
                    await response.aclose()
            return None
        case _Close():
            await effect.response.aclose()
            return None
        case _Await():
            await effect.event.wait()
            return None
        case Sleep():
            await anyio.sleep(max(effect.seconds, 0.0))
            return None
        case Call():
            return await _awaited(effect.function(*effect.args))
        case Blocking():
            result = await anyio.to_thread.run_sync(effect.function, *effect.args)
            return blocking_result(effect.function, result)
        case Acquire():
            pause = 0.001
            while not effect.lock.thread_lock.acquire(blocking=False):
                await anyio.sleep(pause)
                pause = min(pause * 2, 0.02)
            held.append(effect.lock)
            return None
        case Release():
            held.remove(effect.lock)
            effect.lock.thread_lock.release()
            return None
        case _:
            raise not_an_effect(effect)


async def _awaited(result: Any) -> Any:
    """``result``, awaited if it is awaitable (a coroutine function's call)."""
    return await result if inspect.isawaitable(result) else result


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
                result = await _perform(effect, client, held)
            except Exception as exc:
                error = exc
    finally:
        flow.close()
        for lock in held:
            lock.thread_lock.release()


class AsyncController(BaseController[httpx.AsyncClient, anyio.Event]):
    """Makes calls with awaited I/O on an ``httpx.AsyncClient``.

    ``subscribe`` runs pollers in the controller's task group, which exists
    inside ``async with AsyncController(...)``.
    """

    def __init__(
        self,
        client: httpx.AsyncClient | None = None,
        *,
        managers: Iterable[object] = (),
        clock: Callable[[], float] = time.monotonic,
        cache: HttpCache | None = None,
    ) -> None:
        super().__init__(client, httpx.AsyncClient, anyio.Event, managers, clock, cache)
        self._tasks: anyio.abc.TaskGroup | None = None
        self._closed = False

    async def fetch(
        self, endpoint: RestEndpoint[ValueT], params: Params = None, body: Any = None
    ) -> ValueT:
        """Call ``endpoint`` and return its value, from the network (or from a
        call of the same identity already in flight)."""
        value: ValueT = await self._send(self._job(endpoint, params, body))
        return value

    async def get(
        self, endpoint: RestEndpoint[ValueT], params: Params = None
    ) -> ValueT:
        """The value this caller's identity has stored, while fresh; else a
        fetch."""
        value: ValueT = self._from_store(endpoint, params)
        if value is not MISSING:
            return value
        fetched: ValueT = await self._send(self._job(endpoint, params, None, GET))
        return fetched

    async def _send(self, job: Job[anyio.Event]) -> Any:
        with self._settling(job) as settled:
            flow = run_exchange(job.exchange, job)
            response = await run_async(flow, self._client)
            settled.value = self._finish(job, response)
        return settled.result()

    async def fetch_response(
        self, endpoint: RestEndpoint, params: Params = None, body: Any = None
    ) -> httpx.Response:
        """Call ``endpoint`` through the same chain; return the raw response."""
        job = self._job(endpoint, params, body, RAW)
        response: httpx.Response = await self._send(job)
        return response

    @overload
    def paginate(
        self,
        endpoint: RestEndpoint[Page[ItemT]],
        params: Params = None,
        *,
        items: Literal[True],
        max_pages: int = 100,
        cross_origin: bool = False,
    ) -> AsyncIterator[ItemT]: ...
    @overload
    def paginate(
        self,
        endpoint: RestEndpoint[list[ItemT]],
        params: Params = None,
        *,
        items: Literal[True],
        max_pages: int = 100,
        cross_origin: bool = False,
    ) -> AsyncIterator[ItemT]: ...
    @overload
    def paginate(
        self,
        endpoint: RestEndpoint[ValueT],
        params: Params = None,
        *,
        items: Literal[False] = False,
        max_pages: int = 100,
        cross_origin: bool = False,
    ) -> AsyncIterator[ValueT]: ...
    @overload
    def paginate(
        self,
        endpoint: RestEndpoint[Any],
        params: Params = None,
        *,
        items: bool,
        max_pages: int = 100,
        cross_origin: bool = False,
    ) -> AsyncIterator[Any]: ...
    async def paginate(
        self,
        endpoint: RestEndpoint,
        params: Params = None,
        *,
        items: bool = False,
        max_pages: int = 100,
        cross_origin: bool = False,
    ) -> AsyncIterator[Any]:
        """Each page (or each item) of a listing, following ``rel="next"``;
        see :meth:`Controller.paginate`."""
        job = self._job(endpoint, params, None)
        seen: set[str] = set()
        for page in range(1, max_pages + 1):
            job.exchange.page = page
            seen.add(str(job.exchange.url))
            value = await self._send(job)
            for each in self._page_items(job, value) if items else (value,):
                yield each
            following = self._next_page(job, seen, cross_origin)
            if following is None:
                return
            job = self._job(endpoint, params, None, url=following)

    async def download(
        self,
        endpoint: RestEndpoint,
        params: Params = None,
        *,
        to: str | os.PathLike[str],
        overwrite: bool = False,
        progress: Progress | None = None,
        fallback: str = "download",
    ) -> Path:
        """Stream the body to a file in ``to``; see :meth:`Controller.download`."""
        target = Download(to)
        try:
            job = self._job(self._download_endpoint(endpoint), params, None, RAW)
            response = await self._send(job)
            await run_async(target.save(response, progress), self._client)
        except BaseException:
            target.discard()
            raise
        name = filename_from(response.headers.get("content-disposition"), fallback)
        return target.finish(name, overwrite)

    async def poll(
        self,
        endpoint: RestEndpoint[ValueT],
        params: Params = None,
        *,
        frequency: float | None = None,
    ) -> AsyncIterator[ValueT]:
        """Fresh values, one each ``frequency`` (default: ``poll_frequency``)
        seconds, until the controller closes. Errors are raised."""
        interval = self._frequency(endpoint, frequency)
        while not self._closed:
            started = self._clock()
            yield await self.fetch(endpoint, params)
            remaining = started + interval - self._clock()
            if remaining > 0:
                await anyio.sleep(remaining)

    def subscribe(
        self,
        endpoint: RestEndpoint[ValueT],
        params: Params = None,
        callback: Callable[[ValueT], object] | None = None,
        *,
        frequency: float | None = None,
        on_error: ErrorCallback | None = None,
    ) -> Subscription:
        """Call ``callback(value)`` (a function or a coroutine function) with a
        fresh value at once and every ``frequency`` seconds, from one poller
        task shared by every subscriber to the same request."""
        if callback is None:
            raise TypeError("subscribe() needs a callback")
        if self._closed:
            raise RuntimeError("this controller is closed")
        if self._tasks is None:
            raise RuntimeError("subscribe() needs `async with AsyncController(...)`")
        seconds = self._frequency(endpoint, frequency)
        identity = self._probe(endpoint, params)
        with self._pollers_lock:
            poller, new = self._poller(endpoint, params, identity)
            ident = poller.add(seconds, callback, on_error)
        if new:
            # The task runs in a copy of this (the first subscriber's)
            # context: the one whose identity keys the poller.
            self._tasks.start_soon(
                self._run_poller, poller, name=f"restwire poll {poller.request_key}"
            )
        return Subscription(poller, ident)

    async def _run_poller(self, poller: Poller) -> None:
        while True:
            for step in poller.steps():
                if isinstance(step, Wait):
                    woken = anyio.Event()
                    poller.wake = woken.set
                    with anyio.move_on_after(step.seconds):
                        await woken.wait()
                    continue
                try:
                    value = await self.fetch(poller.endpoint, poller.params)
                except Exception as error:
                    returned = self._deliver(poller, None, error)
                else:
                    returned = self._deliver(poller, value, None)
                for result in returned:
                    if inspect.isawaitable(result):
                        try:
                            await result
                        except Exception:
                            logger.exception(
                                "subscriber of %s failed", poller.request_key
                            )
            if self._poller_done(poller):
                return

    async def close(self) -> None:
        """Stop every poller, then close the client if this controller made it.

        Pollers end at their next step; inside ``async with`` the block's end
        waits for (and, past a poll in progress, cancels) them first.
        """
        self._closed = True
        self._stop_pollers()
        if self._owns_client and self._tasks is None:
            await self._client.aclose()

    async def __aenter__(self) -> Self:
        self._tasks = anyio.create_task_group()
        await self._tasks.__aenter__()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        tasks = self._tasks
        try:
            self._closed = True
            self._stop_pollers()
            if tasks is not None:
                tasks.cancel_scope.cancel()
                # The task group only runs the pollers: it ends them here, and
                # an error raised in the block reaches the caller as itself,
                # not wrapped in the group's ExceptionGroup.
                await tasks.__aexit__(None, None, None)
        finally:
            self._tasks = None
            await self.close()
