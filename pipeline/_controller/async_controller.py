"""The driver and the controller, written once: awaited I/O.

:func:`run_async` runs a flow: it performs each effect the flow yields,
sends the result back, and throws any exception back in, so a middleware
catches a failed send the same way under both drivers. However the flow
ends (finished, answered without sending, failed, cancelled), it is closed,
and every lock and lease it still holds is given back.

``AsyncController`` has this surface (``Controller`` the same, not awaited):

| member | does |
|---|---|
| ``fetch(endpoint, params, body)`` | always sends; stores; returns the typed value |
| ``get(endpoint, params)`` | the stored value while fresh, else a ``fetch`` (the seed's ``useSuspense``) |
| ``fetch_response(...)`` | the raw ``httpx.Response`` after the same chain |
| ``fetch_with_response(...)`` | ``(value, response)``: ``fetch``'s value and the response it came from |
| ``poll(endpoint, params)`` | an iterator of fresh values, ``poll_frequency`` apart |
| ``paginate(endpoint, params)`` | an iterator of pages (or items), following ``rel="next"`` |
| ``download(endpoint, params, to=folder)`` | the body streamed to a file; its path |
| ``subscribe(endpoint, params, callback)`` | shared polling; returns a ``Subscription`` |
| ``set(endpoint, value, params)`` | ``value`` kept as this caller's answer, as if the endpoint had sent it; subscribers told |
| ``stream(endpoint, params, body)`` | an iterator of server-sent events (or, with a schema, their typed values); a GET reconnects, a POST is sent once |

and the members of :class:`~restwire._controller.BaseController`. Given no
client, a controller makes one (on ``transport``, if given) and closes it
on ``close()`` or at the end of its ``with`` block; a client it was given
stays open. Closing ends every poll, poller, stream and wait at once.

This file is the source of ``sync_controller``: ``.ci/unasync.py`` writes that one
from this one, and the tests fail when the two differ.
"""

from __future__ import annotations

import datetime
import functools
import os
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Hashable, Iterable
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Protocol, Self, TypeVar, overload

from .._base.concurrency import (
    AsyncBackground,
    AsyncClosing,
    AsyncEvent,
    AsyncReaders,
    AsyncWaker,
    aacquire,
    ablocking,
    acall,
    ashielded,
    asleep_or_close,
)
from .._base.effects import (
    Acquire,
    Blocking,
    Call,
    Effect,
    Flow,
    FlowLock,
    Lease,
    Release,
    ReleaseLease,
    SideCall,
    Sleep,
    TakeLease,
    _Answer,
    _Await,
    _Close,
    _Load,
    _Read,
    _Send,
    not_an_effect,
)
from .._base.errors import (
    ContentError,
    ControllerClosed,
    RestwireError,
    TransportError,
    UsageError,
)
from .._base.library import AsyncBaseTransport, AsyncClient, Response
from .._cache.http_cache import HttpCache
from .._chain.identity import Sharing
from .._endpoints.endpoint import RestEndpoint, not_an_endpoint
from .._endpoints.pages import (
    CrossOrigin,
    CrossOriginOption,
    Page,
    check_paging,
    next_page,
    page_items,
)
from .._store.retention import DEFAULT_MAX_BYTES
from .._store.schemas import MISSING
from .._wire.adapter import Adapter
from .._wire.downloads import Download, Progress, filename_from
from .._wire.sse import (
    DEFAULT_RETRY,
    MAX_EVENT_SIZE,
    EventParser,
    EventReader,
    Reconnection,
    is_event_stream,
)
from .calls import BOTH, GET, RAW, Job
from .controller import BaseController, Params, check_download, logger
from .managers import Manager
from .polling import ErrorCallback, Poller, Subscription, Wait, deliveries, frequency_of
from .sender import read_body
from .streams import (
    DONE,
    END,
    SKIP,
    EventStream,
    no_resend,
    open_connection,
    stream_endpoint,
)

__all__ = ["AsyncController", "run_async"]

T = TypeVar("T")
ValueT = TypeVar("ValueT")
ItemT = TypeVar("ItemT")


class Named(Protocol):
    """What names a call in the driver's errors (worked out only for one)."""

    @property
    def label(self) -> str: ...


#: What a flow holds, given back when it ends: ``FlowLock``s and leases.
Held = list[FlowLock | Lease]

#: How a controller turns a ``SideCall`` into a flow of its own.
SideCalls = Callable[[SideCall], Flow[Any]]


async def _perform(
    effect: Effect,
    adapter: Adapter,
    closing: AsyncClosing,
    held: Held,
    job: Named,
    side: SideCalls | None,
) -> Any:
    """Carry out one effect (``job`` names the call in an error)."""
    match effect:
        case _Send():
            return await adapter.asend(
                effect.request, effect.with_client_auth, effect.store_cookies
            )
        case _Load():
            return await adapter.aload(effect.response, effect.reader)
        case _Read():
            return await adapter.aread_into(
                effect.response, effect.sink, effect.progress
            )
        case _Close():
            return await adapter.aclose(effect.response)
        case _Await():
            if not closing.is_set():
                await effect.event.wait()
            return None
        case Sleep():
            if await asleep_or_close(closing, effect.seconds):
                raise ControllerClosed(job.label)
            return None
        case Call():
            return await acall(effect.function, *effect.args)
        case Blocking():
            return await ablocking(effect.function, *effect.args)
        case Acquire():
            await aacquire(effect.lock)
            held.append(effect.lock)
            return None
        case Release():
            held.remove(effect.lock)
            effect.lock.thread_lock.release()
            return None
        case TakeLease():
            with ashielded():  # a lease taken is held, even if cancelled now
                lease = await ablocking(effect.take, *effect.args)
                if lease is not None:
                    held.append(lease)
            return lease
        case ReleaseLease():
            held.remove(effect.lease)
            with ashielded():
                await ablocking(effect.lease.release)
            return None
        case SideCall():
            if side is None:
                raise UsageError(f"{job.label}: a SideCall is for a call's chain")
            outcome = await run_async(side(effect), adapter, closing, job, side)
            if isinstance(outcome, _Answer):  # a side call is never answered
                return outcome.outcome()
            return outcome
        case _Answer():
            raise TypeError("an answer ends a flow; it is not performed")
        case _:
            raise not_an_effect(effect)


async def _give_back(held: Held) -> None:
    """Give back what a flow still holds: locks at once, leases (which may
    block) in a worker thread, cancellation or not."""
    with ashielded():
        for each in held:
            if isinstance(each, FlowLock):
                each.thread_lock.release()
            else:
                await ablocking(each.release)


async def run_async(
    flow: Flow[T],
    adapter: Adapter,
    closing: AsyncClosing,
    job: Named,
    side: SideCalls | None = None,
) -> T | _Answer:
    """Run ``flow`` to its end; its result, or the ``_Answer`` that ended it.
    ``job`` names the call in the errors the driver raises; ``side`` runs
    the ``SideCall``s it yields (a call's chain, not a download's save)."""
    result: Any = None
    error: Exception | None = None
    held: Held = []
    try:
        while True:
            try:
                effect = flow.send(result) if error is None else flow.throw(error)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            if type(effect) is _Answer:
                return effect
            result, error = None, None
            try:
                if type(effect) is _Send:  # the usual effect: no frame of its own
                    result = await adapter.asend(
                        effect.request, effect.with_client_auth, effect.store_cookies
                    )
                else:
                    result = await _perform(effect, adapter, closing, held, job, side)
            except Exception as exc:
                error = exc
    finally:
        try:
            flow.close()
        finally:
            if held:
                await _give_back(held)


class AsyncController(BaseController[AsyncClient, AsyncEvent]):
    """Makes calls on an ``httpx.AsyncClient`` (see the module).

    ``identity``: a function naming the caller (a user id, say; a server
    knows it anyway), which every call's identity then holds: calls of one
    caller share, of two never do, whatever the client does to a request.
    ``sharing``: what may tell callers apart (``restwire.Sharing``).
    """

    def __init__(
        self,
        client: AsyncClient | None = None,
        *,
        transport: AsyncBaseTransport | None = None,
        managers: Iterable[Manager] = (),
        clock: Callable[[], float] = time.monotonic,
        cache: HttpCache | None = None,
        identity: Callable[[], Hashable] | None = None,
        sharing: Sharing | None = None,
        max_store_bytes: int | None = DEFAULT_MAX_BYTES,
    ) -> None:
        adapter = Adapter.of(client, transport, asynchronous=True)
        super().__init__(
            adapter,
            AsyncEvent,
            managers,
            clock,
            cache,
            identity,
            sharing,
            max_store_bytes,
        )
        self._closing = AsyncClosing()
        self._background = AsyncBackground()
        self._readers = AsyncReaders()

    async def fetch(
        self, endpoint: RestEndpoint[ValueT], params: Params = None, body: Any = None
    ) -> ValueT:
        """Call ``endpoint`` and return its value, from the network (or from a
        call of the same identity already in flight)."""
        value: ValueT = await self._run(self._job(endpoint, params, body))
        return value

    async def get(
        self, endpoint: RestEndpoint[ValueT], params: Params = None
    ) -> ValueT:
        """The value this caller's identity has stored, while fresh; else a
        fetch."""
        value: ValueT = self._from_store(endpoint, params)
        if value is not MISSING:
            return value
        fetched: ValueT = await self._run(self._job(endpoint, params, None, GET))
        return fetched

    async def fetch_response(
        self, endpoint: RestEndpoint, params: Params = None, body: Any = None
    ) -> Response:
        """Call ``endpoint`` through the same chain; return the raw response.

        The body is read unless the endpoint's content is ``"stream"``; a
        4xx or 5xx raises :class:`NetworkError` as ``fetch`` does, and a 3xx
        not followed (``follow_redirects=False``) is returned. A followed
        chain lists its hops in ``response.history``.
        """
        job = self._job(endpoint, params, body, RAW)
        response: Response = await self._run(job)
        return response

    async def fetch_with_response(
        self, endpoint: RestEndpoint[ValueT], params: Params = None, body: Any = None
    ) -> tuple[ValueT, Response]:
        """Call ``endpoint``; return its value, typed and kept as ``fetch``
        keeps it, and the response it came from (for headers the value does
        not carry: an ``ETag``, a rate limit, a ``Location``).

        Always sends its own request (it joins no identical call in flight,
        so the response is this call's); errors are ``fetch``'s.
        """
        job = self._job(endpoint, params, body, BOTH)
        both: tuple[ValueT, Response] = await self._run(job)
        return both

    async def _run(self, job: Job[AsyncEvent]) -> Any:
        try:
            outcome = await run_async(
                self._flow(job), self._adapter, self._closing, job, self._side_call
            )
            value = (
                outcome if isinstance(outcome, _Answer) else self._finish(job, outcome)
            )
        except BaseException as error:
            self._ended(job, None, error)
            raise
        if isinstance(value, _Answer):
            # answered without sending: an error raised here is not this
            # call's own (it was kept, or was another call's)
            self._ended(job, None, None)
            return value.outcome()
        self._ended(job, value, None)
        return value

    @overload
    def paginate(
        self,
        endpoint: RestEndpoint[Page[ItemT]],
        params: Params = None,
        *,
        items: Literal[True],
        max_pages: int = 100,
        cross_origin: CrossOriginOption = False,
    ) -> AsyncIterator[ItemT]: ...
    @overload
    def paginate(
        self,
        endpoint: RestEndpoint[list[ItemT]],
        params: Params = None,
        *,
        items: Literal[True],
        max_pages: int = 100,
        cross_origin: CrossOriginOption = False,
    ) -> AsyncIterator[ItemT]: ...
    @overload
    def paginate(
        self,
        endpoint: RestEndpoint[ValueT],
        params: Params = None,
        *,
        items: Literal[False] = False,
        max_pages: int = 100,
        cross_origin: CrossOriginOption = False,
    ) -> AsyncIterator[ValueT]: ...
    @overload
    def paginate(
        self,
        endpoint: RestEndpoint[Any],
        params: Params = None,
        *,
        items: bool,
        max_pages: int = 100,
        cross_origin: CrossOriginOption = False,
    ) -> AsyncIterator[Any]: ...
    def paginate(
        self,
        endpoint: RestEndpoint,
        params: Params = None,
        *,
        items: bool = False,
        max_pages: int = 100,
        cross_origin: CrossOriginOption = False,
    ) -> AsyncIterator[Any]:
        """Each page (or, with ``items``, each item) of a listing, following
        ``rel="next"`` links until there is none, for at most ``max_pages``
        pages; a next link back to a page already fetched ends it, and one to
        another origin is refused unless ``cross_origin``. Wrong options are
        refused here, before the first page is asked for.

        A page on another origin than the first is sent as a redirect there
        would be (public headers only, no jar cookie, not the client's
        auth), unless ``cross_origin`` maps that origin to the credential
        headers it may see: ``{"https://eu.api.example.com":
        ["authorization"]}`` (``"cookie"``: the jar's cookies)."""
        if not isinstance(endpoint, RestEndpoint):
            raise not_an_endpoint("paginate()", endpoint)
        check_paging(items, max_pages)
        return self._pages(endpoint, params, items, max_pages, cross_origin)

    async def _pages(
        self,
        endpoint: RestEndpoint,
        params: Params,
        items: bool,
        max_pages: int,
        cross_origin: CrossOriginOption,
    ) -> AsyncIterator[Any]:
        """:meth:`paginate`, its options checked."""
        job = self._job(endpoint, params, None)
        home = job.exchange.url
        allowed = CrossOrigin(cross_origin, job.label, type(home))
        seen: set[str] = set()
        for page in range(1, max_pages + 1):
            job.exchange.page = page
            seen.add(str(job.exchange.url))
            value = await self._run(job)
            for each in page_items(job.label, value) if items else (value,):
                yield each
            following = next_page(job.exchange, job.label, seen, allowed.follow)
            if following is None:
                return
            job = self._job(endpoint, params, None, url=following)
            job.exchange.home = home  # its credentials are the first page's
            job.exchange.shared_with = allowed.shared_with(following)

    async def download(
        self,
        endpoint: RestEndpoint,
        params: Params = None,
        *,
        to: str | os.PathLike[str],
        overwrite: bool = False,
        progress: Progress | None = None,
        fallback: str = "download",
        max_size: int | Literal["endpoint"] | None = "endpoint",
    ) -> Path:
        """Stream the body to a file in the folder ``to``, named by the
        response's ``Content-Disposition`` (else ``fallback``); return its path.

        Constant memory; the file appears under its final name only when the
        body is complete; an existing file is not replaced unless
        ``overwrite`` (a numbered name instead); ``progress(done, total)``
        is called as bytes arrive. ``max_size``: the most bytes written,
        counted decoded, so a small compressed body cannot fill the disk
        (default: the endpoint's ``max_body_size``, 100 MiB unless set;
        ``None`` for no limit); past it a :class:`BodyTooLarge` and no file.
        """
        check_download(endpoint, to, overwrite, progress, fallback, max_size)
        target = Download(to, endpoint.label)
        try:
            streamed = (
                endpoint
                if endpoint.content.streamed
                else endpoint.extend(content="stream")
            )
            job = self._job(streamed, params, None, RAW)
            response = await self._run(job)
            limit = endpoint.max_body_size if max_size == "endpoint" else max_size
            await run_async(
                target.save(response, progress, limit),
                self._adapter,
                self._closing,
                job,
            )
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
        frequency: float | datetime.timedelta | None = None,
    ) -> AsyncIterator[ValueT]:
        """Fresh values, one each ``frequency`` (default: ``poll_frequency``)
        seconds, until the controller closes. Errors are raised."""
        if not isinstance(endpoint, RestEndpoint):
            raise not_an_endpoint("poll()", endpoint)
        interval = frequency_of(endpoint, frequency)
        while not self._closing.is_set():
            started = self._clock()
            yield await self.fetch(endpoint, params)
            remaining = started + interval - self._clock()
            if await asleep_or_close(self._closing, remaining):
                return

    def subscribe(
        self,
        endpoint: RestEndpoint[ValueT],
        params: Params = None,
        callback: Callable[[ValueT], object] | None = None,
        *,
        frequency: float | datetime.timedelta | None = None,
        on_error: ErrorCallback | None = None,
    ) -> Subscription:
        """Call ``callback(value)`` with a fresh value at once and every
        ``frequency`` seconds, from one poller shared by every subscriber to
        the same request and identity (it polls at the shortest interval
        asked for). The poller fetches in the first subscriber's context."""
        subscription, poller = self._subscribe(
            endpoint, params, frequency, callback, on_error
        )
        if poller is not None:
            self._background.start(
                functools.partial(_run_poller, self, poller),
                name=f"restwire poll {poller.request_key}",
            )
        return subscription

    async def set(
        self, endpoint: RestEndpoint[ValueT], value: Any, params: Params = None
    ) -> ValueT:
        """Keep ``value`` as if ``endpoint`` had answered it to this caller:
        normalized by its schema, its entities merged, fresh for
        ``data_expiry_length`` (a ``get`` then returns it without a
        request); the subscribers to this request and identity are called
        with it, and their poller's next fetch is a whole interval away.
        Returns the value as a ``get`` would.

        ``value`` is what ``fetch`` returns (after middleware and
        ``process``): JSON, or entities and models as themselves. The
        caller is the identity a call of the endpoint would be sent as,
        worked out without sending; only that identity sees the value. A
        side-effect endpoint (POST, ...) is refused (``InvalidRequest``).
        """
        stored, told = self._set(endpoint, value, params)
        await _deliver(told, endpoint.label)
        value_set: ValueT = stored
        return value_set

    async def stream(
        self,
        endpoint: RestEndpoint[ValueT],
        params: Params = None,
        body: Any = None,
        *,
        done: str | None = DONE,
        max_event_size: int | None = MAX_EVENT_SIZE,
        max_reconnects: int = 5,
        retry: float = DEFAULT_RETRY,
    ) -> AsyncGenerator[ValueT, None]:
        """The server-sent events of ``endpoint``, as they come: each a
        :class:`ServerSentEvent`, or, when the endpoint has a schema, its
        JSON data validated, normalized into the store (a ``get`` of any
        endpoint holding its entities shows it) and typed; with
        :class:`EventSchemas`, by the schema of the event's name.

        The request goes through the endpoint's middleware (credentials,
        casing, an idempotency key, refresh on 401) with ``Accept:
        text/event-stream``, and ``body`` with it (a POST stream, as LLM
        APIs answer); the body is read as it arrives, never whole, and
        nothing of the stream is kept as a result or shared with another
        call. An event whose data is ``done`` (OpenAI's ``[DONE]``; ``None``
        for none) ends the stream and is not yielded. Each middleware's
        ``on_event(exchange, event)`` sees every event first.

        A GET stream that drops (the server hangs up, a read fails or
        times out: the endpoint's read timeout is the longest silence
        allowed) is opened again after the server's ``retry:`` (else
        ``retry`` seconds; at most 60), sending ``Last-Event-ID``;
        ``max_reconnects`` in a row with no event in between, then the
        last error is raised. A stream of another method (a POST) is
        never sent again by itself: when it drops, the caller has had
        every event that came, then gets the :class:`TransportError`; the
        end of its body ends it. A 204 ends the stream; a 4xx or 5xx
        raises its status error, and a response that is not
        ``text/event-stream`` a :class:`ContentError`. An event larger
        than ``max_event_size`` decoded bytes (a line too, ended or not)
        is a :class:`BodyTooLarge`.

        ``aclose()`` on the iterator (or ``contextlib.aclosing``) closes
        the connection at once, and so does closing the controller, which
        ends the iteration, in a read or in a wait to reconnect. Leaving
        the loop with ``break`` leaves closing to the generator's clean-up
        (at once in CPython, once nothing refers to the iterator).
        """
        streamed = stream_endpoint(
            endpoint, max_event_size, max_reconnects, retry, done
        )
        events = EventStream(streamed, done)
        reconnects = not streamed.side_effect  # a POST is never sent again
        parser = EventParser(max_event_size)
        reconnection = Reconnection(parser, retry, max_reconnects)
        while not self._closing.is_set():
            job = open_connection(
                self._job(streamed, params, body, RAW), parser.last_event_id
            )
            try:
                response = await self._run(job)
            except TransportError as error:
                if self._closing.is_set():
                    return
                if not reconnects:
                    raise
                if await asleep_or_close(self._closing, reconnection.delay(error)):
                    return
                continue
            except RestwireError:
                if self._closing.is_set():
                    return
                raise
            request = response.request
            parser.connected((request.method, request.url))
            received = 0
            try:
                if response.status_code == 204:
                    return  # the server says: no more, do not reconnect
                if not is_event_stream(response):
                    await run_async(
                        read_body(response, streamed.max_body_size),
                        self._adapter,
                        self._closing,
                        job,
                    )
                    raise ContentError(
                        response,
                        "expected an event stream (a 200 of type text/event-stream)",
                    )
                reader = EventReader(response, parser, max_event_size)
                interrupt = functools.partial(self._adapter.interrupt, response)
                chunks = self._adapter.aiter_raw(response)
                try:
                    while True:
                        chunk = None
                        with self._readers.reading(interrupt):
                            chunk = await anext(chunks, None)
                        if self._closing.is_set():
                            return
                        for event in (
                            reader.end() if chunk is None else reader.events(chunk)
                        ):
                            reconnection.received()
                            received += 1
                            value = events.value(
                                self._store_access, job, response, event
                            )
                            if value is END:
                                return
                            if value is not SKIP:
                                yield value
                        if chunk is None:
                            break
                finally:
                    with ashielded():
                        await chunks.aclose()
                if not reconnects:
                    return  # the whole answer came
                dropped = Reconnection.ended(request.method, request.url)
            except TransportError as error:
                if self._closing.is_set():
                    return
                if not reconnects:
                    raise no_resend(
                        error, request.method, received
                    ) from error.__cause__
                dropped = error
            finally:
                with ashielded():
                    await self._adapter.aclose(response)
            if await asleep_or_close(self._closing, reconnection.delay(dropped)):
                return

    async def close(self) -> None:
        """Stop every poller, poll and stream, wake every wait, then close the
        client if this controller made it."""
        self._closing.set()
        self._readers.close()
        self._stopping()
        await self._background.stop()
        self._let_go()
        if self._adapter.owned:
            await self._client.aclose()

    async def __aenter__(self) -> Self:
        await self._background.__aenter__()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()


async def _run_poller(controller: AsyncController, poller: Poller) -> None:
    """The task of one poller (``subscribe``): fetch at its steps and tell
    its subscribers, until none is left or the controller closes."""
    waker = AsyncWaker()
    poller.wake = waker.wake
    while True:
        for step in poller.steps():
            if isinstance(step, Wait):
                await waker.wait(step.seconds)
                continue
            try:
                value = await controller.fetch(poller.endpoint, poller.params)
            except Exception as error:
                told = deliveries(poller, None, error)
            else:
                told = deliveries(poller, value, None)
            await _deliver(told, poller.request_key)
        if controller._pollers.done(poller):
            return


async def _deliver(told: list[tuple[Callable[[Any], object], Any]], what: str) -> None:
    """Hand each subscriber its value or error (a coroutine function is
    awaited); one that raises is logged, and the others are still told."""
    for function, argument in told:
        try:
            await acall(function, argument)
        except Exception:
            logger.exception("subscriber of %s failed", what)
