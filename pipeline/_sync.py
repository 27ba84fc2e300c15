"""Blocking I/O: the sync driver, and ``Controller``.

With ``_async`` beside it, the only code written for one kind of client.
:func:`run_sync` runs a flow on an ``httpx.Client``: it performs each effect
the flow yields with blocking calls, sends the result back, and throws any
exception back in, so a middleware catches a failed send the same way under
both drivers. If the flow is abandoned (the caller is interrupted), it closes
the generator, closes a response being read, and releases every lock the
flow still holds.

``Controller`` has the surface ``AsyncController`` has, not awaited:

| member | does |
|---|---|
| ``fetch(endpoint, params, body)`` | always sends; stores; returns the typed value |
| ``get(endpoint, params)`` | the stored value while fresh, else a ``fetch`` (the seed's ``useSuspense``) |
| ``fetch_response(...)`` | the raw ``httpx.Response`` after the same chain |
| ``poll(endpoint, params)`` | an iterator of fresh values, ``poll_frequency`` apart |
| ``paginate(endpoint, params)`` | an iterator of pages (or items), following ``rel="next"`` |
| ``download(endpoint, params, to=folder)`` | the body streamed to a file; its path |
| ``subscribe(endpoint, params, callback)`` | shared polling; returns a ``Subscription`` |

and the members of :class:`~restwire._controller.BaseController`. Given no
client, a controller makes one and closes it on ``close()`` or at the end of
its ``with`` block; a client it was given stays open. Closing stops every
poller.
"""

from __future__ import annotations

import contextvars
import os
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self, TypeVar, cast, overload

import httpx

from ._chain import run_exchange
from ._controller import GET, RAW, BaseController, Job, Params
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
    not_awaitable,
    progress_report,
)
from ._endpoint import RestEndpoint
from ._hops import cookie_scope
from ._http_cache import HttpCache
from ._page import Page
from ._polling import ErrorCallback, Poller, Subscription, Wait
from ._store import MISSING
from ._wire import direct_transport, now, received

__all__ = ["Controller", "run_sync"]

T = TypeVar("T")
ValueT = TypeVar("ValueT")
ItemT = TypeVar("ItemT")


def _perform(effect: Effect, client: httpx.Client, held: list[FlowLock]) -> Any:
    """Carry out one effect with blocking I/O."""
    match effect:
        case _Send():
            request = effect.request
            transport = direct_transport(client, request, effect.with_client_auth)
            if transport is None:
                auth = httpx.USE_CLIENT_DEFAULT if effect.with_client_auth else None
                with cookie_scope(client, effect.store_cookies):
                    return client.send(
                        request, stream=True, follow_redirects=False, auth=auth
                    )
            assert isinstance(transport, httpx.BaseTransport)
            started = now()
            try:
                response = transport.handle_request(request)
            except httpx.RequestError as error:
                error.request = request  # as httpx's own send does
                raise
            return received(client, request, response, started, effect.store_cookies)
        case _Read():
            response, progress = effect.response, effect.progress
            chunks = cast(Generator[bytes, None, None], response.iter_raw())
            reported = False
            try:
                for chunk in chunks:
                    if not effect.sink.feed(chunk):
                        break
                    if progress is not None:
                        not_awaitable(progress, progress(*progress_report(response)))
                        reported = True
                if progress is not None and not reported:
                    not_awaitable(progress, progress(*progress_report(response)))
            finally:
                chunks.close()
                response.close()
            return None
        case _Close():
            effect.response.close()
            return None
        case _Await():
            effect.event.wait()
            return None
        case Sleep():
            time.sleep(max(effect.seconds, 0.0))
            return None
        case Call():
            return not_awaitable(effect.function, effect.function(*effect.args))
        case Blocking():
            return blocking_result(effect.function, effect.function(*effect.args))
        case Acquire():
            effect.lock.thread_lock.acquire()
            held.append(effect.lock)
            return None
        case Release():
            held.remove(effect.lock)
            effect.lock.thread_lock.release()
            return None
        case _:
            raise not_an_effect(effect)


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
                result = _perform(effect, client, held)
            except Exception as exc:
                error = exc
    finally:
        flow.close()
        for lock in held:
            lock.thread_lock.release()


class Controller(BaseController[httpx.Client, threading.Event]):
    """Makes calls with blocking I/O on an ``httpx.Client``; thread-safe."""

    def __init__(
        self,
        client: httpx.Client | None = None,
        *,
        managers: Iterable[object] = (),
        clock: Callable[[], float] = time.monotonic,
        cache: HttpCache | None = None,
    ) -> None:
        super().__init__(client, httpx.Client, threading.Event, managers, clock, cache)
        self._threads: dict[Poller, threading.Thread] = {}
        self._closing = threading.Event()

    def fetch(
        self, endpoint: RestEndpoint[ValueT], params: Params = None, body: Any = None
    ) -> ValueT:
        """Call ``endpoint`` and return its value, from the network (or from a
        call of the same identity already in flight)."""
        value: ValueT = self._send(self._job(endpoint, params, body))
        return value

    def get(self, endpoint: RestEndpoint[ValueT], params: Params = None) -> ValueT:
        """The value this caller's identity has stored, while fresh; else a
        fetch."""
        value: ValueT = self._from_store(endpoint, params)
        if value is not MISSING:
            return value
        fetched: ValueT = self._send(self._job(endpoint, params, None, GET))
        return fetched

    def _send(self, job: Job[threading.Event]) -> Any:
        with self._settling(job) as settled:
            response = run_sync(run_exchange(job.exchange, job), self._client)
            settled.value = self._finish(job, response)
        return settled.result()

    def fetch_response(
        self, endpoint: RestEndpoint, params: Params = None, body: Any = None
    ) -> httpx.Response:
        """Call ``endpoint`` through the same chain; return the raw response.

        The body is read unless the endpoint's content is ``"stream"``; a
        4xx or 5xx raises :class:`NetworkError` as ``fetch`` does, and a 3xx
        not followed (``follow_redirects=False``) is returned. A followed
        chain lists its hops in ``response.history``.
        """
        response: httpx.Response = self._send(self._job(endpoint, params, body, RAW))
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
    ) -> Iterator[ItemT]: ...
    @overload
    def paginate(
        self,
        endpoint: RestEndpoint[list[ItemT]],
        params: Params = None,
        *,
        items: Literal[True],
        max_pages: int = 100,
        cross_origin: bool = False,
    ) -> Iterator[ItemT]: ...
    @overload
    def paginate(
        self,
        endpoint: RestEndpoint[ValueT],
        params: Params = None,
        *,
        items: Literal[False] = False,
        max_pages: int = 100,
        cross_origin: bool = False,
    ) -> Iterator[ValueT]: ...
    @overload
    def paginate(
        self,
        endpoint: RestEndpoint[Any],
        params: Params = None,
        *,
        items: bool,
        max_pages: int = 100,
        cross_origin: bool = False,
    ) -> Iterator[Any]: ...
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
        job = self._job(endpoint, params, None)
        seen: set[str] = set()
        for page in range(1, max_pages + 1):
            job.exchange.page = page
            seen.add(str(job.exchange.url))
            value = self._send(job)
            if items:
                yield from self._page_items(job, value)
            else:
                yield value
            following = self._next_page(job, seen, cross_origin)
            if following is None:
                return
            job = self._job(endpoint, params, None, url=following)

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
            job = self._job(self._download_endpoint(endpoint), params, None, RAW)
            response = self._send(job)
            run_sync(target.save(response, progress), self._client)
        except BaseException:
            target.discard()
            raise
        name = filename_from(response.headers.get("content-disposition"), fallback)
        return target.finish(name, overwrite)

    def poll(
        self,
        endpoint: RestEndpoint[ValueT],
        params: Params = None,
        *,
        frequency: float | None = None,
    ) -> Iterator[ValueT]:
        """Fresh values, one each ``frequency`` (default: ``poll_frequency``)
        seconds, until the controller closes. Errors are raised."""
        interval = self._frequency(endpoint, frequency)
        while not self._closing.is_set():
            started = self._clock()
            yield self.fetch(endpoint, params)
            remaining = started + interval - self._clock()
            if remaining > 0 and self._closing.wait(remaining):
                return

    def subscribe(
        self,
        endpoint: RestEndpoint[ValueT],
        params: Params = None,
        callback: Callable[[ValueT], object] | None = None,
        *,
        frequency: float | None = None,
        on_error: ErrorCallback | None = None,
    ) -> Subscription:
        """Call ``callback(value)`` with a fresh value at once and every
        ``frequency`` seconds, on a poller thread shared by every subscriber
        to the same request (it polls at the shortest interval asked for)."""
        if callback is None:
            raise TypeError("subscribe() needs a callback")
        seconds = self._frequency(endpoint, frequency)
        identity = self._probe(endpoint, params)
        with self._pollers_lock:
            if self._closing.is_set():
                raise RuntimeError("this controller is closed")
            poller, new = self._poller(endpoint, params, identity)
            ident = poller.add(seconds, callback, on_error)
            if new:
                # The poller fetches in the first subscriber's context: the
                # one whose identity keys it (a token in a contextvar, say).
                thread = threading.Thread(
                    target=contextvars.copy_context().run,
                    args=(self._run_poller, poller),
                    name=f"restwire poll {poller.request_key}",
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
                        self._deliver(poller, None, error)
                    else:
                        self._deliver(poller, value, None)
                if self._poller_done(poller):
                    return
        finally:
            self._threads.pop(poller, None)

    def close(self) -> None:
        """Stop every poller, then close the client if this controller made it."""
        self._closing.set()
        self._stop_pollers()
        for thread in list(self._threads.values()):
            if thread is not threading.current_thread():
                thread.join()
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
