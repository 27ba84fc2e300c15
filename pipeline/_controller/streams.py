"""Server-sent event streams, as a controller opens and reads them.

``controller.stream(endpoint, params)`` opens the endpoint as a stream of
events: its body read as it arrives, never whole, nothing of it kept as a
result or shared with another call. What a driver needs besides its read
loop is here, written once for both:

- :func:`stream_endpoint`: the endpoint as a stream calls it (checked,
  ``content`` an event stream);
- :func:`open_connection`: each connection's request headers
  (``Cache-Control: no-cache``, ``Last-Event-ID`` once an event had one);
- :func:`pushed`: what the stream yields for an event (the event, or its
  data typed by the endpoint's schema and merged into the store).

The parser, the reader and the reconnection rules are ``_wire.sse``'s.
"""

from __future__ import annotations

from typing import Any

from .._base.errors import InvalidRequest, SettingError, UsageError
from .._base.library import Response
from .._endpoints.endpoint import RestEndpoint
from .._wire.sse import EVENT_STREAM, MAX_RETRY_DELAY, EventDataError, ServerSentEvent
from .calls import Job
from .store_access import StoreAccess

__all__ = ["open_connection", "pushed", "stream_endpoint"]


def stream_endpoint(
    endpoint: RestEndpoint,
    max_event_size: int | None,
    max_reconnects: int,
    retry: float,
) -> RestEndpoint:
    """The endpoint as ``stream`` calls it (its body an event stream, read
    as it comes), once its options are checked."""
    if not isinstance(endpoint, RestEndpoint):
        raise UsageError(f"expected a RestEndpoint, got {endpoint!r}")
    if endpoint.side_effect:
        raise InvalidRequest(
            f"{endpoint.label}: stream() opens an event stream with a read "
            f"(GET), which it may send again to reconnect; not a {endpoint.method}"
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


def pushed(
    store: StoreAccess, job: Job[Any], response: Response, event: ServerSentEvent
) -> Any:
    """What ``stream`` yields for ``event``: the event itself, or, when the
    endpoint has a schema, its JSON data validated and normalized into the
    store (see :meth:`StoreAccess.pushed`)."""
    if job.exchange.endpoint.schema is None:
        return event
    try:
        data = event.json()
    except (ValueError, RecursionError):
        raise EventDataError(job.label, response, event) from None
    return store.pushed(job, data)
