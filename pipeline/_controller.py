"""``Controller`` and ``AsyncController``: where calls are made.

Both have the same surface (the async one awaited) and share one
:class:`~pipeline._core.Core`; they differ only in how they wait:

| member | does |
|---|---|
| ``fetch(endpoint, params, body)`` | always sends; stores; returns the typed value |
| ``get(endpoint, params)`` | the stored value while fresh, else a ``fetch`` (the seed's ``useSuspense``) |
| ``fetch_response(...)`` | the raw ``httpx.Response`` after the same chain |
| ``invalidate(endpoint, params)`` | forget one stored result |
| ``reset()`` | empty the store; fetches already in flight do not write back |
| ``poll(endpoint, params)`` | an (async) iterator of fresh values, ``poll_frequency`` apart |
| ``paginate(endpoint, params)`` | an (async) iterator of pages (or items), following ``rel="next"`` |
| ``download(endpoint, params, to=folder)`` | the body streamed to a file; its path |
| ``subscribe(endpoint, params, callback)`` | shared polling; returns a ``Subscription`` |

Identical concurrent reads (same request key, method without side effects)
share one request, across threads or tasks; mutations are never shared.
Given no client, a controller makes one and closes it on ``close()`` or at
the end of its ``with`` block; a client it was given stays open. Closing
stops every poller.
"""

from __future__ import annotations

import inspect
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

import anyio
import anyio.abc
import httpx

from ._chain import run_exchange
from ._core import Call, Core, logger
from ._disposition import filename_from
from ._download import Download, Progress
from ._drivers import run_async, run_sync
from ._endpoint import RestEndpoint
from ._errors import RestwireError
from ._inflight import Flights
from ._managers import Manager
from ._polling import Callback, ErrorCallback, Poller, Subscription, Wait
from ._schema import MISSING

__all__ = ["AsyncController", "Controller"]

Params = Mapping[str, Any] | None
ClientT = TypeVar("ClientT", httpx.Client, httpx.AsyncClient)
EventT = TypeVar("EventT", threading.Event, anyio.Event)


def _set(event: threading.Event | anyio.Event) -> None:
    event.set()


class _Controllers(Generic[ClientT, EventT]):
    """What both controllers share that does no I/O."""

    _core: Core[ClientT]
    _flights: Flights[EventT]

    @property
    def client(self) -> ClientT:
        """The client every call is sent with."""
        return self._core.client

    @property
    def store(self) -> Any:
        """The store (entities and results); for inspection."""
        return self._core.store

    def invalidate(self, endpoint: RestEndpoint, params: Params = None) -> None:
        """Forget the stored result of this call; the next ``get`` fetches."""
        self._core.invalidate(endpoint, params)

    def reset(self) -> None:
        """Empty the store; fetches in flight will not write their results."""
        self._core.reset()
        self._flights.clear()

    def poll_interval(
        self, endpoint: RestEndpoint, params: Params = None
    ) -> float | None:
        """The interval the poller of this request runs at; ``None`` if none runs."""
        return self._core.poll_interval(endpoint, params)


class Controller(_Controllers[httpx.Client, threading.Event]):
    """Makes calls with blocking I/O on an ``httpx.Client``; thread-safe."""

    def __init__(
        self,
        client: httpx.Client | None = None,
        *,
        managers: Iterable[Manager] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._core: Core[httpx.Client] = Core(
            self, client, httpx.Client, managers, clock
        )
        self._flights: Flights[threading.Event] = Flights(threading.Event)
        self._threads: dict[Poller, threading.Thread] = {}
        self._closing = threading.Event()

    def fetch(
        self, endpoint: RestEndpoint, params: Params = None, body: Any = None
    ) -> Any:
        """Call ``endpoint`` and return its value, from the network."""
        call = self._core.call(endpoint, params, body)
        if not call.shared:
            return self._send(call)
        flight, waiting = self._flights.join(call.key)
        if waiting is not None:
            waiting.wait()
            return self._core.shared_value(call, flight)
        try:
            flight.value = self._send(call)
            return flight.value
        except Exception as error:
            flight.error = error
            raise
        finally:
            self._flights.land(call.key, flight, _set)

    def _send(self, call: Call) -> Any:
        try:
            run_sync(run_exchange(call.exchange), self.client)
            return self._core.finish(call)
        except RestwireError as error:
            self._core.failed(call, error)
            raise

    def get(self, endpoint: RestEndpoint, params: Params = None) -> Any:
        """The stored value while fresh, else a fetch."""
        value = self._core.cached(endpoint, params)
        return self.fetch(endpoint, params) if value is MISSING else value

    def fetch_response(
        self, endpoint: RestEndpoint, params: Params = None, body: Any = None
    ) -> httpx.Response:
        """Call ``endpoint`` through the same chain; return the raw response.

        The body is read unless the endpoint's content is ``"stream"``; a
        non-2xx status raises :class:`NetworkError` as ``fetch`` does.
        """
        return self._send_raw(self._core.call(endpoint, params, body, parse=False))

    def _send_raw(self, call: Call) -> httpx.Response:
        try:
            return run_sync(run_exchange(call.exchange), self.client)
        except RestwireError as error:
            self._core.failed(call, error)
            raise

    def paginate(
        self,
        endpoint: RestEndpoint,
        params: Params = None,
        *,
        items: bool = False,
        max_pages: int = 100,
        cross_origin: bool = False,
    ) -> Iterator[Any]:
        """Each page (or, with ``items``, each item) of a listing, following
        ``rel="next"`` links until there is none, for at most ``max_pages``
        pages; a next link back to a page already fetched ends it, and one to
        another origin is refused unless ``cross_origin``."""
        call = self._core.call(endpoint, params, None)
        seen: set[str] = set()
        for _ in range(max_pages):
            seen.add(str(call.exchange.url))
            value = self._send(call)
            if items:
                yield from self._core.page_items(call, value)
            else:
                yield value
            following = self._core.next_page(call, seen, cross_origin)
            if following is None:
                return
            call = self._core.call(endpoint, params, None, url=following)

    def download(
        self,
        endpoint: RestEndpoint,
        params: Params = None,
        *,
        to: str | os.PathLike[str],
        overwrite: bool = False,
        progress: Progress | None = None,
        fallback: str = "download",
    ) -> Path:
        """Stream the body to a file in the folder ``to``, named by the
        response's ``Content-Disposition`` (else ``fallback``); return its path.

        Constant memory; the file appears under its final name only when the
        body is complete; an existing file is not replaced unless
        ``overwrite`` (a numbered name instead); ``progress(done, total)``
        is called as bytes arrive.
        """
        target = Download(to)
        try:
            call = self._core.call(
                self._core.download_call_endpoint(endpoint), params, None
            )
            response = self._send_raw(call)
            run_sync(target.save(response, progress), self.client)
        except BaseException:
            target.discard()
            raise
        name = filename_from(response.headers.get("content-disposition"), fallback)
        return target.finish(name, overwrite)

    def poll(
        self,
        endpoint: RestEndpoint,
        params: Params = None,
        *,
        frequency: float | None = None,
    ) -> Iterator[Any]:
        """Fresh values, one each ``frequency`` (default: ``poll_frequency``)
        seconds, until the controller closes. Errors are raised."""
        interval = self._core.frequency(endpoint, frequency)
        while not self._closing.is_set():
            started = self._core.clock()
            yield self.fetch(endpoint, params)
            remaining = started + interval - self._core.clock()
            if remaining > 0 and self._closing.wait(remaining):
                return

    def subscribe(
        self,
        endpoint: RestEndpoint,
        params: Params = None,
        callback: Callback | None = None,
        *,
        frequency: float | None = None,
        on_error: ErrorCallback | None = None,
    ) -> Subscription:
        """Call ``callback(value)`` with a fresh value at once and every
        ``frequency`` seconds, on a poller thread shared by every subscriber
        to the same request (it polls at the shortest interval asked for)."""
        if callback is None:
            raise TypeError("subscribe() needs a callback")
        seconds = self._core.frequency(endpoint, frequency)
        with self._core.pollers_lock:
            if self._closing.is_set():
                raise RuntimeError("this controller is closed")
            poller, new = self._core.poller(endpoint, params)
            ident = poller.add(seconds, callback, on_error)
            if new:
                thread = threading.Thread(
                    target=self._run_poller,
                    args=(poller,),
                    name=f"restwire poll {poller.key}",
                )
                self._threads[poller] = thread
                thread.start()
        return Subscription(poller, ident)

    def _run_poller(self, poller: Poller) -> None:
        wake = threading.Event()
        poller.wake = wake.set
        try:
            while True:
                for step in poller.steps():
                    if isinstance(step, Wait):
                        wake.wait(step.seconds)
                        wake.clear()
                        continue
                    try:
                        value = self.fetch(poller.endpoint, poller.params)
                    except Exception as error:
                        self._core.deliver(poller, None, error)
                    else:
                        self._core.deliver(poller, value, None)
                if self._core.poller_done(poller):
                    return
        finally:
            self._threads.pop(poller, None)

    def close(self) -> None:
        """Stop every poller, then close the client if this controller made it."""
        self._closing.set()
        self._core.stop_pollers()
        for thread in list(self._threads.values()):
            if thread is not threading.current_thread():
                thread.join()
        if self._core.owns_client:
            self.client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class AsyncController(_Controllers[httpx.AsyncClient, anyio.Event]):
    """Makes calls with awaited I/O on an ``httpx.AsyncClient``.

    ``subscribe`` runs pollers in the controller's task group, which exists
    inside ``async with AsyncController(...)``.
    """

    def __init__(
        self,
        client: httpx.AsyncClient | None = None,
        *,
        managers: Iterable[Manager] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._core: Core[httpx.AsyncClient] = Core(
            self, client, httpx.AsyncClient, managers, clock
        )
        self._flights: Flights[anyio.Event] = Flights(anyio.Event)
        self._tasks: anyio.abc.TaskGroup | None = None
        self._closed = False

    async def fetch(
        self, endpoint: RestEndpoint, params: Params = None, body: Any = None
    ) -> Any:
        """Call ``endpoint`` and return its value, from the network."""
        call = self._core.call(endpoint, params, body)
        if not call.shared:
            return await self._send(call)
        flight, waiting = self._flights.join(call.key)
        if waiting is not None:
            await waiting.wait()
            return self._core.shared_value(call, flight)
        try:
            flight.value = await self._send(call)
            return flight.value
        except Exception as error:
            flight.error = error
            raise
        finally:
            self._flights.land(call.key, flight, _set)

    async def _send(self, call: Call) -> Any:
        try:
            await run_async(run_exchange(call.exchange), self.client)
            return self._core.finish(call)
        except RestwireError as error:
            self._core.failed(call, error)
            raise

    async def get(self, endpoint: RestEndpoint, params: Params = None) -> Any:
        """The stored value while fresh, else a fetch."""
        value = self._core.cached(endpoint, params)
        return await self.fetch(endpoint, params) if value is MISSING else value

    async def fetch_response(
        self, endpoint: RestEndpoint, params: Params = None, body: Any = None
    ) -> httpx.Response:
        """Call ``endpoint`` through the same chain; return the raw response."""
        return await self._send_raw(
            self._core.call(endpoint, params, body, parse=False)
        )

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
        call = self._core.call(endpoint, params, None)
        seen: set[str] = set()
        for _ in range(max_pages):
            seen.add(str(call.exchange.url))
            value = await self._send(call)
            for each in self._core.page_items(call, value) if items else (value,):
                yield each
            following = self._core.next_page(call, seen, cross_origin)
            if following is None:
                return
            call = self._core.call(endpoint, params, None, url=following)

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
            call = self._core.call(
                self._core.download_call_endpoint(endpoint), params, None
            )
            response = await self._send_raw(call)
            await run_async(target.save(response, progress), self.client)
        except BaseException:
            target.discard()
            raise
        name = filename_from(response.headers.get("content-disposition"), fallback)
        return target.finish(name, overwrite)

    async def _send_raw(self, call: Call) -> httpx.Response:
        try:
            return await run_async(run_exchange(call.exchange), self.client)
        except RestwireError as error:
            self._core.failed(call, error)
            raise

    async def poll(
        self,
        endpoint: RestEndpoint,
        params: Params = None,
        *,
        frequency: float | None = None,
    ) -> AsyncIterator[Any]:
        """Fresh values, one each ``frequency`` (default: ``poll_frequency``)
        seconds, until the controller closes. Errors are raised."""
        interval = self._core.frequency(endpoint, frequency)
        while not self._closed:
            started = self._core.clock()
            yield await self.fetch(endpoint, params)
            remaining = started + interval - self._core.clock()
            if remaining > 0:
                await anyio.sleep(remaining)

    def subscribe(
        self,
        endpoint: RestEndpoint,
        params: Params = None,
        callback: Callback | None = None,
        *,
        frequency: float | None = None,
        on_error: ErrorCallback | None = None,
    ) -> Subscription:
        """Call ``callback(value)`` (a function or a coroutine function) with a
        fresh value at once and every ``frequency`` seconds, from one poller
        task shared by every subscriber to the same request."""
        if callback is None:
            raise TypeError("subscribe() needs a callback")
        if self._tasks is None:
            raise RuntimeError("subscribe() needs `async with AsyncController(...)`")
        seconds = self._core.frequency(endpoint, frequency)
        with self._core.pollers_lock:
            poller, new = self._core.poller(endpoint, params)
            ident = poller.add(seconds, callback, on_error)
        if new:
            self._tasks.start_soon(
                self._run_poller, poller, name=f"restwire poll {poller.key}"
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
                    returned = self._core.deliver(poller, None, error)
                else:
                    returned = self._core.deliver(poller, value, None)
                for result in returned:
                    if inspect.isawaitable(result):
                        try:
                            await result
                        except Exception:
                            logger.exception("subscriber of %s failed", poller.key)
            if self._core.poller_done(poller):
                return

    async def close(self) -> None:
        """Stop every poller, then close the client if this controller made it.

        Pollers end at their next step; inside ``async with`` the block's end
        waits for (and, past a poll in progress, cancels) them first.
        """
        self._closed = True
        self._core.stop_pollers()
        if self._core.owns_client and self._tasks is None:
            await self.client.aclose()

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
            self._core.stop_pollers()
            if tasks is not None:
                tasks.cancel_scope.cancel()
                await tasks.__aexit__(kind, error, traceback)
        finally:
            self._tasks = None
            await self.close()
