"""Server-sent events: the events, their parser, and a stream's reconnection
rules, all sans-I/O (``async_controller`` runs the loop that reads and waits).

The parser follows the WHATWG HTML standard's event stream interpretation
(https://html.spec.whatwg.org/multipage/server-sent-events.html):
lines end at CRLF, LF or CR; a leading byte order mark is dropped; a line
starting with ``:`` is a comment; ``data`` lines are joined with LF; an
``id`` holding NULL is ignored; ``retry`` is taken only when it is all ASCII
digits; a blank line dispatches the event, unless it has no data; an event
not ended by a blank line when the stream ends is dropped.

It is restwire's own rather than ``httpx-sse``'s: that package's line parser
is reachable only through a private module, its public ``EventSource``
reads ``response.iter_text()`` with no bound on a line, and it dispatches an
event with no data, which the standard does not.

**Bounded.** :class:`EventParser` counts the decoded bytes it holds for the
event being read (its data, type, id and the line not yet ended) and raises
:class:`BodyTooLarge` past ``max_event_size``: a stream with no newline, or
an endless ``data:`` block, never grows memory past that. :class:`EventReader`
undoes the body's ``Content-Encoding`` in pieces first (``_wire.content.Decoder``),
so a compressed stream is bounded as it inflates.

**Reconnecting** (:class:`Reconnection`): a stream that drops (the server
hangs up, a read fails or times out, a connection is refused) is opened
again after the server's ``retry:`` delay (or the caller's default), capped
at :data:`MAX_RETRY_DELAY`, sending ``Last-Event-ID``; at most
``max_reconnects`` times in a row without an event in between. A 204 ends
the stream (the server's way to say "do not reconnect"); another status
that is not 200, or a content type that is not ``text/event-stream``,
fails it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

from .._base.errors import BodyTooLarge, ContentError, RestwireError, TransportError
from .._base.library import DECODING_ERRORS, DEFAULT, URL, Response
from .content import Content, Decoder

__all__ = [
    "DEFAULT_RETRY",
    "EVENT_STREAM",
    "MAX_EVENT_SIZE",
    "MAX_RETRY_DELAY",
    "EventDataError",
    "EventParser",
    "EventReader",
    "EventStreamContent",
    "Reconnection",
    "ServerSentEvent",
    "is_event_stream",
]

#: The largest event read, in decoded bytes (``stream(max_event_size=...)``).
MAX_EVENT_SIZE = 1024 * 1024
#: Seconds before reconnecting when the server gave no ``retry:``.
DEFAULT_RETRY = 3.0
#: The longest wait before reconnecting, whatever ``retry:`` says.
MAX_RETRY_DELAY = 60.0

_BOM = b"\xef\xbb\xbf"


@dataclasses.dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One event of a stream, as the standard dispatches it.

    ``event`` is its type (``"message"`` unless the server named one),
    ``data`` its data lines joined by LF, ``id`` the stream's last event ID
    when it was dispatched (``""`` for none), ``retry`` the reconnection
    time in milliseconds the server set in this event's block, if it did.
    """

    event: str = "message"
    data: str = ""
    id: str = ""
    retry: int | None = None

    def json(self) -> Any:
        """``data`` parsed as JSON (a ``ValueError`` if it is not)."""
        return json.loads(self.data)


class EventParser:
    """Decoded bytes of an event stream in, events out (see the module).

    ``max_event_size`` (``None``: no bound) bounds the bytes held for one
    event; ``where`` (method and URL) names the call in the error.
    """

    __slots__ = (
        "_after_cr",
        "_data",
        "_event",
        "_held",
        "_id",
        "_limit",
        "_line",
        "_retry",
        "_started",
        "last_event_id",
        "reconnection_time",
        "where",
    )

    def __init__(
        self,
        max_event_size: int | None = MAX_EVENT_SIZE,
        where: tuple[str, URL] = ("GET", DEFAULT.URL("http://stream.invalid/")),
        last_event_id: str = "",
    ) -> None:
        self._limit = max_event_size
        #: The call's method and URL, which its errors name.
        self.where = where
        self._line = bytearray()
        self._after_cr = False
        self._started = False
        self._data: list[str] = []
        self._event = ""
        self._id = last_event_id
        self._retry: int | None = None
        self._held = 0
        #: The ID a reconnection sends as ``Last-Event-ID`` (``""``: none).
        self.last_event_id = last_event_id
        #: The server's latest ``retry:``, in milliseconds (``None``: none).
        self.reconnection_time: int | None = None

    def connected(self, where: tuple[str, URL]) -> None:
        """A new connection (to ``where``) begins: what the last one left
        half-read (a line, an event not ended by a blank line) is dropped,
        as the standard says of each stream's buffers; the last event ID
        and the server's reconnection time are kept."""
        self.where = where
        self._line = bytearray()
        self._after_cr = False
        self._started = False
        self._data, self._event, self._retry, self._held = [], "", None, 0
        self._id = self.last_event_id

    def feed(self, data: bytes) -> Iterator[ServerSentEvent]:
        """The events ``data`` completes, in order."""
        if not self._started:
            self._line += data
            if len(self._line) < len(_BOM) and _BOM.startswith(bytes(self._line)):
                self._check()
                return  # maybe the start of a byte order mark: wait
            self._started = True
            data = bytes(self._line)
            self._line.clear()
            if data.startswith(_BOM):
                data = data[len(_BOM) :]
        if not data:
            return
        start = 0
        if self._after_cr and data[:1] == b"\n":
            start = 1  # the LF of a CRLF split between two pieces
        self._after_cr = False
        size = len(data)
        while start < size:
            lf = data.find(b"\n", start)
            cr = data.find(b"\r", start, lf if lf >= 0 else size)
            end = cr if cr >= 0 else lf
            if end < 0:
                self._line += data[start:]
                self._check()
                return
            self._line += data[start:end]
            self._check()
            if end == cr:
                if end + 1 == size:
                    self._after_cr = True
                elif data[end + 1 : end + 2] == b"\n":
                    end += 1
            start = end + 1
            line = bytes(self._line)
            self._line.clear()
            event = self._process(line)
            if event is not None:
                yield event

    def _check(self) -> None:
        """Raise if the event being read holds more than the limit."""
        limit = self._limit
        if limit is not None and self._held + len(self._line) > limit:
            method, url = self.where
            raise BodyTooLarge(
                method,
                url,
                limit,
                option="max_event_size",
                advice="an event (or a line) that long is refused; raise "
                "stream(max_event_size=...) if it is expected",
            )

    def _process(self, line: bytes) -> ServerSentEvent | None:
        """One line, as the standard processes it; the event it dispatches."""
        if not line:
            return self._dispatch()
        if line[:1] == b":":
            return None
        name, colon, raw = line.partition(b":")
        if colon and raw[:1] == b" ":
            raw = raw[1:]
        value = raw.decode("utf-8", "replace")
        if name == b"data":
            self._data.append(value)
            self._held += len(line)  # (counted as held, whatever replaces it)
        elif name == b"event":
            self._event = value
            self._held += len(line)
        elif name == b"id":
            if "\0" not in value:
                self._id = value
                self._held += len(line)
        elif name == b"retry" and raw.isdigit():  # ASCII digits only (bytes)
            # (capped before int(): past 4,300 digits int() refuses the text,
            # and a wait is capped far below 10**9 ms anyway)
            self._retry = self.reconnection_time = (
                int(raw) if len(raw) <= 9 else 999_999_999
            )
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        self.last_event_id = self._id
        data, event, retry = self._data, self._event, self._retry
        self._data, self._event, self._retry, self._held = [], "", None, 0
        if not data:
            return None
        return ServerSentEvent(event or "message", "\n".join(data), self._id, retry)


class EventReader:
    """One response's raw body in, events out: decoded (bounded), then
    parsed. A body that cannot be decoded is a :class:`TransportError`, as
    when a whole body is read."""

    __slots__ = ("_decoder", "_request", "parser")

    def __init__(
        self, response: Response, parser: EventParser, limit: int | None
    ) -> None:
        self._request = response.request
        # A body a transport built in memory (httpx.MockTransport) comes
        # decoded already: nothing to undo.
        self._decoder = (
            None if response.is_stream_consumed else Decoder(response, limit)
        )
        self.parser = parser

    def events(self, chunk: bytes) -> Iterator[ServerSentEvent]:
        """The events the next raw chunk completes."""
        if self._decoder is None:
            yield from self.parser.feed(chunk)
            return
        try:
            for piece in self._decoder.decode(chunk):
                yield from self.parser.feed(piece)
        except DECODING_ERRORS as error:
            raise TransportError(
                self._request.method, self._request.url, error
            ) from error

    def end(self) -> Iterator[ServerSentEvent]:
        """The events the end of the body completes (an event not ended by a
        blank line is dropped, as the standard says)."""
        if self._decoder is None:
            return
        try:
            for piece in self._decoder.flush():
                yield from self.parser.feed(piece)
        except DECODING_ERRORS as error:
            raise TransportError(
                self._request.method, self._request.url, error
            ) from error


class EventStreamContent(Content):
    """``text/event-stream``: what ``stream()`` asks for; the body is read
    as it comes, never whole."""

    name = "event-stream"
    accept = "text/event-stream"
    binary = True
    streamed = True

    def parse(self, response: Response) -> Any:
        return response


EVENT_STREAM = EventStreamContent()


def is_event_stream(response: Response) -> bool:
    """Whether a 2xx ``response`` is an event stream (a 200 of type
    ``text/event-stream``): else it is refused (a 204 ends instead)."""
    kind = response.headers.get("content-type", "").split(";", 1)[0]
    return response.status_code == 200 and kind.strip().lower() == "text/event-stream"


class EventDataError(ContentError):
    """An event's data is not the JSON its endpoint's schema reads."""

    def __init__(self, label: str, response: Response, event: ServerSentEvent) -> None:
        self.response = response
        self.url = response.request.url
        self.content_type = response.headers.get("content-type")
        self.problem = "an event's data is not JSON"
        self.event = event
        start = event.data[: self.SNIPPET]
        more = "..." if len(event.data) > self.SNIPPET else ""
        RestwireError.__init__(
            self,
            f"{label}: the data of event {event.event!r} (id {event.id!r}) is not "
            f"JSON, which the endpoint's schema needs; it starts {start!r}{more}",
        )


class Reconnection:
    """When a stream opens again, and what it sends: the last event ID, the
    wait (``retry:`` or ``default`` seconds, capped), and how many tries
    are left (``max_reconnects`` in a row without an event)."""

    __slots__ = ("attempts", "default", "max_reconnects", "parser")

    def __init__(
        self, parser: EventParser, default: float, max_reconnects: int
    ) -> None:
        self.parser = parser
        self.default = default
        self.max_reconnects = max_reconnects
        #: Reconnections since the last event.
        self.attempts = 0

    @property
    def last_event_id(self) -> str:
        return self.parser.last_event_id

    def received(self) -> None:
        """An event came: the count of tries starts again."""
        self.attempts = 0

    def delay(self, error: RestwireError) -> float:
        """The wait before the next try after the stream dropped with
        ``error``; ``error`` itself (noting the tries) when none is left."""
        if self.attempts >= self.max_reconnects:
            tries = self.attempts
            raise error.annotated(
                f"gave up after {tries} reconnection{'s' if tries != 1 else ''} "
                "with no event; stream(max_reconnects=...) sets how many"
            ) from error.__cause__
        self.attempts += 1
        milliseconds = self.parser.reconnection_time
        seconds = self.default if milliseconds is None else milliseconds / 1000
        return min(seconds, MAX_RETRY_DELAY)

    @staticmethod
    def ended(method: str, url: URL) -> TransportError:
        """The error of a stream the server ended (a reconnect may follow)."""
        return TransportError(
            method, url, EOFError("the server ended the event stream")
        )
