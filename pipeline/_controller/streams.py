"""Server-sent event streams, as a controller opens and reads them.

``controller.stream(endpoint, params, body)`` opens the endpoint as a
stream of events: its body read as it arrives, never whole, nothing of it
kept as a result or shared with another call. What a driver needs besides
its read loop is here, written once for both:

- :func:`stream_endpoint`: the endpoint as a stream calls it (checked,
  ``content`` an event stream);
- :func:`open_connection`: each connection's request headers
  (``Cache-Control: no-cache``, ``Last-Event-ID`` once an event had one);
- :class:`EventStream`: what the stream does with each event: the end
  (``data: [DONE]``), the middleware's ``on_event``, then the event
  itself or its data typed by the endpoint's schema (by the event's name
  with :class:`~restwire.EventSchemas`), merged into the store.

**Reads reconnect; other methods never re-send.** A GET stream that drops
is opened again with ``Last-Event-ID`` (``_wire.sse.Reconnection``). A
POST (any method but the safe ones) carries a body that asked for
something to be done, an answer to be generated, say: sent again, it
would be done again. So a POST stream is sent once: when it drops, the
caller has every event that came, then the ``TransportError``; a clean
end of its body ends it.

The parser, the reader and the reconnection rules are ``_wire.sse``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._base.errors import (
    RestwireError,
    SettingError,
    TransportError,
    redact_error,
    sent_secrets,
)
from .._base.library import Response
from .._chain.exchange import Exchange
from .._endpoints.endpoint import RestEndpoint, not_an_endpoint
from .._endpoints.events import EventSchemas
from .._wire.sse import EVENT_STREAM, MAX_RETRY_DELAY, EventDataError, ServerSentEvent
from .calls import Job
from .store_access import StoreAccess

__all__ = [
    "DONE",
    "END",
    "SKIP",
    "EventStream",
    "no_resend",
    "open_connection",
    "stream_endpoint",
]

#: The data of the event that ends a stream by default: OpenAI's last
#: event, ``data: [DONE]``, never yielded (``stream(done=...)``).
DONE = "[DONE]"
#: What :meth:`EventStream.value` returns for the event that ends the stream.
END: Any = object()
#: What it returns for an event the caller does not see.
SKIP: Any = object()


def stream_endpoint(
    endpoint: RestEndpoint,
    max_event_size: int | None,
    max_reconnects: int,
    retry: float,
    done: str | None = DONE,
) -> RestEndpoint:
    """The endpoint as ``stream`` calls it (its body an event stream, read
    as it comes), once its options are checked."""
    if not isinstance(endpoint, RestEndpoint):
        raise not_an_endpoint("stream()", endpoint)
    if done is not None and (not isinstance(done, str) or not done):
        raise SettingError(
            f"{endpoint.label}: done is the data of the event that ends the "
            f"stream (OpenAI's '[DONE]'), or None for none; not {done!r}"
        )
    if max_event_size is not None and (
        not isinstance(max_event_size, int) or max_event_size <= 0
    ):
        raise SettingError(
            f"{endpoint.label}: max_event_size must be a number of bytes "
            f"above 0 (or None), not {max_event_size!r}"
        )
    if not isinstance(max_reconnects, int) or max_reconnects < 0:
        raise SettingError(
            f"{endpoint.label}: max_reconnects must be 0 or more, "
            f"not {max_reconnects!r}"
        )
    if not isinstance(retry, int | float) or not 0 <= retry <= MAX_RETRY_DELAY:
        raise SettingError(
            f"{endpoint.label}: retry must be seconds between 0 and "
            f"{MAX_RETRY_DELAY:g}, not {retry!r}"
        )
    if endpoint.content is EVENT_STREAM:
        return endpoint
    return endpoint.extend(content=EVENT_STREAM)


def open_connection(job: Job[Any], last_event_id: str) -> Job[Any]:
    """``job`` (a ``fetch_response`` of the stream's endpoint: never joined
    with another call, nothing kept) as one connection of a stream: no
    cache's answer, and ``Last-Event-ID`` when an event had an ID (one that
    is not printable ASCII is not sent: no header holds it)."""
    headers = job.exchange.headers
    headers["cache-control"] = "no-cache"
    if last_event_id and last_event_id.isascii() and last_event_id.isprintable():
        headers["last-event-id"] = last_event_id
    return job


def no_resend(error: TransportError, method: str, received: int) -> TransportError:
    """``error``, which dropped a stream that is not sent again (a POST),
    saying so and how many events came first."""
    came = f"{received} event{'s' if received != 1 else ''}"
    return error.annotated(
        f"the stream dropped after {came}; a {method} stream is not sent "
        "again by itself, as that would ask for its work once more"
    )


class EventStream:
    """What one stream does with each event, in order (see the module):

    1. an event whose data is ``done`` ends the stream, not yielded;
    2. each middleware's ``on_event(exchange, event)``, innermost first,
       may raise to end the stream with an error;
    3. with no schema, the event is yielded; with one, its JSON data,
       validated, normalized into the store and typed; with
       :class:`~restwire.EventSchemas`, by the schema of the event's name
       (an event of another name is left out, or yielded as it is).
    """

    __slots__ = ("by_name", "done", "hooks", "others", "typed")

    def __init__(self, endpoint: RestEndpoint, done: str | None) -> None:
        self.done = done
        #: The layers' ``on_event``, innermost first (as responses go).
        self.hooks: tuple[Callable[[Exchange, ServerSentEvent], Any], ...] = tuple(
            hook
            for layer in reversed(endpoint.middleware.layers)
            if (hook := getattr(layer, "on_event", None)) is not None
        )
        schema = endpoint.schema
        #: Event name -> the endpoint that reads its data (its schema's).
        self.by_name: dict[str, RestEndpoint] | None = None
        self.others = "event"
        if isinstance(schema, EventSchemas):
            self.by_name = {
                name: endpoint.extend(schema=each)
                for name, each in schema.schemas.items()
            }
            self.others = schema.others
        self.typed = schema is not None

    def value(
        self,
        store: StoreAccess,
        job: Job[Any],
        response: Response,
        event: ServerSentEvent,
    ) -> Any:
        """What the stream yields for ``event``: a value, :data:`END` or
        :data:`SKIP`."""
        if event.data == self.done:
            return END
        try:
            for hook in self.hooks:
                hook(job.exchange, event)
            if not self.typed:
                return event
            reader = None  # the stream's own endpoint
            if self.by_name is not None:
                reader = self.by_name.get(event.event)
                if reader is None:
                    return SKIP if self.others == "skip" else event
            try:
                data = event.json()
            except (ValueError, RecursionError):
                raise EventDataError(job.label, response, event) from None
            return store.pushed(job, data, reader)
        except RestwireError as error:
            # (an event may echo what the call sent: its token)
            redact_error(error, sent_secrets(response.request, job.exchange.sensitive))
            raise
