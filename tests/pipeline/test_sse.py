"""The event stream parser (``_wire.sse``), held to the WHATWG HTML standard.

The examples are the standard's own, from "9.2.5 Parsing an event stream"
and "9.2.6 Interpreting an event stream" of
https://html.spec.whatwg.org/multipage/server-sent-events.html (each test
says which); each is fed whole and also one byte at a time, since a line
may end in any chunk.
"""

from __future__ import annotations

import gzip
import json

import httpx
import pytest

from restwire import BodyTooLarge, ServerSentEvent, TransportError
from restwire._wire.sse import (
    DEFAULT_RETRY,
    MAX_RETRY_DELAY,
    EventParser,
    EventReader,
    Reconnection,
    is_event_stream,
)

WHERE = ("GET", httpx.URL("https://api.example.com/live"))


def parse(
    data: bytes, *, by_byte: bool = False, limit: int | None = 1024
) -> tuple[list[ServerSentEvent], EventParser]:
    parser = EventParser(limit, WHERE)
    pieces = [data[i : i + 1] for i in range(len(data))] if by_byte else [data]
    events = [event for piece in pieces for event in parser.feed(piece)]
    return events, parser


@pytest.fixture(params=[False, True], ids=["whole", "by-byte"])
def by_byte(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def test_the_stock_ticker_example_joins_data_lines(by_byte: bool) -> None:
    # 9.2.6: "data: YHOO / data: +2 / data: 10" is one message, lines joined by LF
    events, _ = parse(b"data: YHOO\ndata: +2\ndata: 10\n\n", by_byte=by_byte)
    assert events == [ServerSentEvent("message", "YHOO\n+2\n10", "", None)]


def test_the_test_stream_example_fires_three_events_and_resets_the_id(
    by_byte: bool,
) -> None:
    # 9.2.6: a comment fires nothing; "id" with no value resets the last ID;
    # only the first space after the colon is dropped
    stream = (
        b": test stream\n\n"
        b"data: first event\nid: 1\n\n"
        b"data:second event\nid\n\n"
        b"data:  third event\n\n"
    )
    events, parser = parse(stream, by_byte=by_byte)
    assert [(e.data, e.id) for e in events] == [
        ("first event", "1"),
        ("second event", ""),
        (" third event", ""),
    ]
    assert parser.last_event_id == ""


def test_empty_data_fires_and_the_unterminated_last_block_is_dropped(
    by_byte: bool,
) -> None:
    # 9.2.6: "data" alone is empty data; two of them a single newline; the
    # last block, not followed by a blank line, is discarded
    events, _ = parse(b"data\n\ndata\ndata\n\ndata:", by_byte=by_byte)
    assert [e.data for e in events] == ["", "\n"]


def test_a_space_after_the_colon_is_optional(by_byte: bool) -> None:
    # 9.2.6: "data:test" and "data: test" fire two identical events
    events, _ = parse(b"data:test\n\ndata: test\n\n", by_byte=by_byte)
    assert events == [ServerSentEvent(data="test"), ServerSentEvent(data="test")]


def test_lines_end_at_crlf_lf_or_cr_and_a_bom_is_dropped(by_byte: bool) -> None:
    # 9.2.5: end-of-line is CRLF, LF or CR; one leading U+FEFF is ignored
    stream = b"\xef\xbb\xbfevent: tick\r\ndata: a\rdata: b\ndata: c\r\n\r"
    events, _ = parse(stream, by_byte=by_byte)
    assert events == [ServerSentEvent("tick", "a\nb\nc", "", None)]


def test_a_block_without_data_fires_nothing_but_keeps_its_id_and_retry() -> None:
    # 9.2.6 dispatch: the last event ID is set first; empty data returns
    events, parser = parse(b"id: 7\nretry: 2500\nevent: ping\n\ndata: x\n\n")
    assert events == [ServerSentEvent("message", "x", "7", None)]
    assert parser.reconnection_time == 2500


def test_retry_takes_only_ascii_digits_and_id_never_holds_null() -> None:
    stream = (
        b"retry: 12a\nretry: -5\nretry: \xd9\xa3\nretry:\n"  # all ignored
        b"id: a\x00b\ndata: x\n\n"  # an id with NULL is ignored
    )
    events, parser = parse(stream)
    assert parser.reconnection_time is None
    assert events == [ServerSentEvent(data="x")]
    events, parser = parse(b"retry: 300\ndata: y\n\n")
    assert events == [ServerSentEvent(data="y", retry=300)]


def test_unknown_fields_and_comments_are_ignored_and_bad_utf8_is_replaced() -> None:
    events, _ = parse(b"foo: bar\n: keep-alive\ndata: caf\xc3\xa9 \xff\n\n")
    assert events == [ServerSentEvent(data="caf\u00e9 \ufffd")]


def test_json_parses_the_data() -> None:
    assert ServerSentEvent(data='{"a": [1]}').json() == {"a": [1]}
    with pytest.raises(json.JSONDecodeError):
        ServerSentEvent(data="not json").json()


def test_an_event_is_frozen() -> None:
    event = ServerSentEvent(data="x")
    with pytest.raises(AttributeError):
        event.data = "y"  # type: ignore[misc]


# -- bounds ------------------------------------------------------------------


def test_an_event_larger_than_the_limit_is_refused(by_byte: bool) -> None:
    with pytest.raises(
        BodyTooLarge, match=r"GET https://api.example.com/live.*max_event_size=100"
    ):
        parse(
            b"data: " + b"x" * 60 + b"\ndata: " + b"y" * 60 + b"\n\n",
            by_byte=by_byte,
            limit=100,
        )


def test_a_line_with_no_newline_is_refused_past_the_limit() -> None:
    parser = EventParser(100, WHERE)
    list(parser.feed(b"data: " + b"x" * 90))
    with pytest.raises(BodyTooLarge):
        list(parser.feed(b"x" * 20))


def test_the_count_starts_again_with_each_event() -> None:
    parser = EventParser(100, WHERE)
    for _ in range(50):
        assert len(list(parser.feed(b"data: " + b"x" * 80 + b"\n\n"))) == 1
    # comments are not held
    list(parser.feed(b": " + b"c" * 90 + b"\n" + b": " + b"c" * 90 + b"\n"))


def test_a_gzip_stream_is_decoded_in_pieces_and_bounded_as_it_inflates() -> None:
    body = gzip.compress(b"data: " + b"x" * 5000 + b"\n\n")
    request = httpx.Request("GET", "https://api.example.com/live")
    response = httpx.Response(
        200,
        headers={"content-encoding": "gzip", "content-type": "text/event-stream"},
        stream=httpx.ByteStream(body),
        request=request,
    )
    reader = EventReader(response, EventParser(10_000, WHERE), 10_000)
    assert [len(e.data) for e in reader.events(body)] == [5000]
    reader = EventReader(response, EventParser(1000, WHERE), 1000)
    with pytest.raises(BodyTooLarge):
        list(reader.events(body))
    corrupt = EventReader(response, EventParser(1000, WHERE), 1000)
    with pytest.raises(TransportError, match=r"GET https://api\.example\.com/live"):
        list(corrupt.events(b"\x1f\x8b not gzip"))


# -- what a response is, and when to reconnect ------------------------------------


@pytest.mark.parametrize(
    ("status", "content_type", "expected"),
    [
        (200, "text/event-stream", True),
        (200, "Text/Event-Stream; charset=utf-8", True),
        (200, "application/json", False),
        (200, "", False),
        (201, "text/event-stream", False),
    ],
)
def test_only_a_200_event_stream_is_read(
    status: int, content_type: str, expected: bool
) -> None:
    response = httpx.Response(status, headers={"content-type": content_type})
    assert is_event_stream(response) is expected


def test_the_wait_is_the_servers_retry_capped_else_the_default() -> None:
    parser = EventParser(100, WHERE)
    reconnection = Reconnection(parser, DEFAULT_RETRY, 3)
    dropped = Reconnection.ended(*WHERE)
    assert reconnection.delay(dropped) == DEFAULT_RETRY
    list(parser.feed(b"retry: 250\n\n"))
    assert reconnection.delay(dropped) == 0.25
    list(parser.feed(b"retry: 999999999\n\n"))
    assert reconnection.delay(dropped) == MAX_RETRY_DELAY


def test_tries_in_a_row_are_bounded_and_an_event_starts_the_count_again() -> None:
    reconnection = Reconnection(EventParser(100, WHERE), 0.0, 2)
    dropped = Reconnection.ended(*WHERE)
    reconnection.delay(dropped)
    reconnection.delay(dropped)
    reconnection.received()
    reconnection.delay(dropped)
    reconnection.delay(dropped)
    with pytest.raises(
        TransportError, match=r"live: EOFError.*gave up after 2 reconnections"
    ):
        reconnection.delay(dropped)
