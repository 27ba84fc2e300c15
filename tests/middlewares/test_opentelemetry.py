"""OpenTelemetry: a call span, a send span per request sent, under both
controllers, read back from the SDK's in-memory exporter."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextvars import Token
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from opentelemetry import baggage, context, trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)
from opentelemetry.trace import SpanKind, StatusCode
from pytest_httpx import HTTPXMock

from restwire import (
    PUBLIC_HEADERS,
    AsyncController,
    Controller,
    HttpCache,
    NotFoundError,
    RestEndpoint,
    RestwireError,
    Sharing,
    TransportError,
)
from restwire.middlewares import AccessToken, OpenTelemetry, Retry
from tests.servers import RecordingServer
from tests.waiting import HANG, cancel_once

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


class Traces:
    """A tracer provider of the test's own, and the spans it ended."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))

    def middleware(self) -> OpenTelemetry:
        return OpenTelemetry(tracer_provider=self.provider)

    @property
    def spans(self) -> tuple[ReadableSpan, ...]:
        return self.exporter.get_finished_spans()

    def calls(self) -> list[ReadableSpan]:
        return [span for span in self.spans if span.kind is SpanKind.INTERNAL]

    def sends(self, call: ReadableSpan | None = None) -> list[ReadableSpan]:
        """The send spans (of ``call``), in the order they started."""
        sends = [span for span in self.spans if span.kind is SpanKind.CLIENT]
        if call is not None:
            assert call.context is not None
            sends = [
                span
                for span in sends
                if span.parent is not None
                and span.parent.span_id == call.context.span_id
            ]
        return sorted(sends, key=lambda span: span.start_time or 0)

    def one_call(self) -> tuple[ReadableSpan, list[ReadableSpan]]:
        (call,) = self.calls()
        return call, self.sends(call)

    def attribute_text(self) -> str:
        """Every attribute of every span, as one text."""
        return repr([attrs(span) for span in self.spans])


@pytest.fixture
def traces() -> Iterator[Traces]:
    made = Traces()
    yield made
    made.provider.shutdown()


def attrs(span: ReadableSpan) -> dict[str, Any]:
    """A span's attributes, as a plain dict."""
    return dict(span.attributes or {})


def trace_id(span: ReadableSpan) -> int:
    assert span.context is not None
    return int(span.context.trace_id)


def traceparent_of(span: ReadableSpan) -> str:
    assert span.context is not None
    ids = span.context
    return f"00-{ids.trace_id:032x}-{ids.span_id:016x}-{int(ids.trace_flags):02x}"


# -- names and attributes ------------------------------------------------------------


async def test_a_call_span_and_a_send_span_follow_the_conventions(
    controller_factory: Any, httpx_mock: HTTPXMock, traces: Traces
) -> None:
    controller = controller_factory()
    get_post = RestEndpoint(url_prefix=API, path="/posts/:id").use(traces.middleware())
    httpx_mock.add_response(url=f"{API}/posts/1?q=x", json={"id": "1"})
    assert await controller.fetch(get_post, {"id": "1", "q": "x"}) == {"id": "1"}
    call, (send,) = traces.one_call()
    assert call.name == send.name == "GET /posts/:id"
    assert call.parent is None  # parented on the caller's context: none here
    expected = {
        "http.request.method": "GET",
        "url.full": f"{API}/posts/1?q=x",
        "url.template": "/posts/:id",
        "server.address": "api.example.com",
        "server.port": 443,
        "http.response.status_code": 200,
    }
    assert attrs(send) == expected
    assert attrs(call) == {**expected, "restwire.cache_hit": False}
    assert call.status.status_code is send.status.status_code is StatusCode.UNSET
    # The trace context sent is the send span's.
    (request,) = httpx_mock.get_requests()
    assert request.headers["traceparent"] == traceparent_of(send)


async def test_a_method_the_conventions_do_not_know_is_other(
    controller_factory: Any, httpx_mock: HTTPXMock, traces: Traces
) -> None:
    controller = controller_factory()
    purge = RestEndpoint(url_prefix=f"{API}/v1", path="/cache", method="PURGE").use(
        traces.middleware()
    )
    httpx_mock.add_response(url=f"{API}/v1/cache", method="PURGE", json={})
    await controller.fetch(purge)
    call, (send,) = traces.one_call()
    assert call.name == send.name == "HTTP /v1/cache"
    for span in (call, send):
        attributes = span.attributes or {}
        assert attributes["http.request.method"] == "_OTHER"
        assert attributes["http.request.method_original"] == "PURGE"
        assert attributes["url.template"] == "/v1/cache"


# -- one send span per request sent ------------------------------------------------


@pytest.mark.parametrize("order", ["retry-outside", "retry-inside"])
async def test_each_retry_is_a_send_span_with_its_resend_count(
    controller_factory: Any, httpx_mock: HTTPXMock, traces: Traces, order: str
) -> None:
    controller = controller_factory()
    retry, otel = Retry(attempts=3, backoff=0), traces.middleware()
    layers = (retry, otel) if order == "retry-outside" else (otel, retry)
    flaky = RestEndpoint(url_prefix=API, path="/flaky").use(*layers)
    httpx_mock.add_response(url=f"{API}/flaky", status_code=503)
    httpx_mock.add_response(url=f"{API}/flaky", status_code=502)
    httpx_mock.add_response(url=f"{API}/flaky", json={"ok": True})
    await controller.fetch(flaky)
    call, sends = traces.one_call()  # one call span, wherever it sits
    assert [attrs(s).get("http.request.resend_count") for s in sends] == [
        None,
        1,
        2,
    ]
    assert [attrs(s)["http.response.status_code"] for s in sends] == [
        503,
        502,
        200,
    ]
    assert [attrs(s).get("error.type") for s in sends] == ["503", "502", None]
    assert [s.status.status_code for s in sends] == [
        StatusCode.ERROR,
        StatusCode.ERROR,
        StatusCode.UNSET,
    ]
    assert "error.type" not in attrs(call)
    assert call.status.status_code is StatusCode.UNSET
    # each send carried its own span's trace context
    sent = [request.headers["traceparent"] for request in httpx_mock.get_requests()]
    assert sent == [traceparent_of(span) for span in sends]


async def test_a_token_refresh_resends_and_no_token_reaches_a_span(
    controller_factory: Any, httpx_mock: HTTPXMock, traces: Traces
) -> None:
    controller = controller_factory()
    auth = AccessToken("secret-old-token", refresh=lambda: "secret-new-token")
    mine = RestEndpoint(url_prefix=API, path="/me").use(auth, traces.middleware())
    httpx_mock.add_response(url=f"{API}/me", status_code=401)
    httpx_mock.add_response(url=f"{API}/me", json={"id": "me"})
    await controller.fetch(mine)
    call, sends = traces.one_call()
    assert [attrs(s).get("http.request.resend_count") for s in sends] == [None, 1]
    assert [attrs(s).get("error.type") for s in sends] == ["401", None]
    assert attrs(call)["http.response.status_code"] == 200
    assert "secret" not in traces.attribute_text()
    assert all("secret" not in repr(span.events) for span in traces.spans)


async def test_redirect_hops_are_send_spans_and_the_trace_context_stays_home(
    controller_factory: Any,
    origin_a: RecordingServer,
    origin_b: RecordingServer,
    traces: Traces,
) -> None:
    controller = controller_factory()
    hop = RestEndpoint(url_prefix=origin_a.origin, path="/redirect/:status").use(
        traces.middleware()
    )
    home, away = f"{origin_a.origin}/echo", f"{origin_b.origin}/echo"
    # same origin, then another: 302 home -> /echo; 302 away -> origin_b
    await controller.fetch(hop, {"status": "302", "to": home})
    await controller.fetch(hop, {"status": "307", "to": away})
    first, second = traces.calls()
    (redirect, landed) = traces.sends(first)
    (leaving, abroad) = traces.sends(second)
    assert redirect.name == "GET /redirect/:status"
    assert landed.name == abroad.name == "GET"  # another URL: no template
    assert "url.template" not in attrs(abroad)
    assert attrs(landed)["http.request.resend_count"] == 1
    assert attrs(abroad)["url.full"] == away
    assert attrs(abroad)["server.port"] == origin_b.port
    at_a = [request.headers.get("traceparent") for request in origin_a.requests]
    assert at_a == [
        traceparent_of(redirect),
        traceparent_of(landed),
        traceparent_of(leaving),
    ]
    # the hop to the other origin carries no trace context at all
    (at_b,) = origin_b.requests
    assert "traceparent" not in at_b.headers
    assert "tracestate" not in at_b.headers


# -- errors ------------------------------------------------------------------------


async def test_a_404_is_error_type_404_on_both_spans(
    controller_factory: Any, httpx_mock: HTTPXMock, traces: Traces
) -> None:
    controller = controller_factory()
    missing = RestEndpoint(url_prefix=API, path="/posts/:id").use(traces.middleware())
    httpx_mock.add_response(url=f"{API}/posts/9", status_code=404)
    with pytest.raises(NotFoundError):
        await controller.fetch(missing, {"id": "9"})
    call, (send,) = traces.one_call()
    for span in (call, send):
        assert attrs(span)["error.type"] == "404"
        assert attrs(span)["http.response.status_code"] == 404
        assert span.status.status_code is StatusCode.ERROR
        assert span.status.description is None  # the status code says it


async def test_a_transport_error_names_its_class(
    controller_factory: Any, httpx_mock: HTTPXMock, traces: Traces
) -> None:
    controller = controller_factory()
    down = RestEndpoint(url_prefix=API, path="/down").use(traces.middleware())
    httpx_mock.add_exception(httpx.ConnectError("refused"))
    with pytest.raises(TransportError):
        await controller.fetch(down)
    call, (send,) = traces.one_call()
    # the library's own class, named as that library names it (in the
    # httpx2-only run, tests' httpx is httpx2 under its alias)
    assert attrs(send)["error.type"] == f"{httpx.__name__}.ConnectError"
    assert attrs(call)["error.type"] == "restwire.TransportError"
    for span in (call, send):
        assert "http.response.status_code" not in attrs(span)
        assert span.status.status_code is StatusCode.ERROR


async def test_a_cancelled_call_ends_its_spans_with_the_cancellation(
    origin_a: RecordingServer, traces: Traces
) -> None:
    slow = RestEndpoint(url_prefix=origin_a.origin, path="/slow").use(
        traces.middleware()
    )
    async with AsyncController() as controller:
        await cancel_once(
            lambda: controller.fetch(slow, {"seconds": "30"}),
            lambda: bool(origin_a.requests),  # sent: cancelled in its send
        )
    call, (send,) = traces.one_call()
    assert attrs(send)["error.type"] == "GeneratorExit"  # the flow was closed
    assert attrs(call)["error.type"] == "asyncio.CancelledError"
    assert call.status.status_code is send.status.status_code is StatusCode.ERROR


# -- url.full ----------------------------------------------------------------------


async def test_url_full_has_its_credentials_redacted(
    controller_factory: Any, httpx_mock: HTTPXMock, traces: Traces
) -> None:
    controller = controller_factory()
    signed = RestEndpoint(
        url_prefix="https://ann:hunter2@api.example.com", path="/files/:name"
    ).use(traces.middleware())
    httpx_mock.add_response(json={})
    params = {
        "name": "a.txt",
        "access_token": "tok123",
        "Signature": "sig456",
        "api_key": "key789",
        "page": "2",
    }
    await controller.fetch(signed, params)
    call, (send,) = traces.one_call()
    assert attrs(call)["url.full"] == (
        "https://REDACTED:REDACTED@api.example.com/files/a.txt"
        "?Signature=REDACTED&access_token=REDACTED&api_key=REDACTED&page=2"
    )
    # the hop itself went without userinfo (it became a Basic header)
    assert attrs(send)["url.full"] == (
        "https://api.example.com/files/a.txt"
        "?Signature=REDACTED&access_token=REDACTED&api_key=REDACTED&page=2"
    )
    text = traces.attribute_text()
    for secret in ("ann", "hunter2", "tok123", "sig456", "key789"):
        assert secret not in text


# -- answers without sending ----------------------------------------------------------


async def test_an_answer_from_the_store_is_a_cache_hit_without_a_send(
    controller_factory: Any, httpx_mock: HTTPXMock, traces: Traces
) -> None:
    controller = controller_factory()
    get_post = RestEndpoint(url_prefix=API, path="/posts/:id").use(traces.middleware())
    httpx_mock.add_response(url=f"{API}/posts/1", json={"id": "1"})
    first = await controller.get(get_post, {"id": "1"})
    assert await controller.get(get_post, {"id": "1"}) is first
    sent, stored = traces.calls()
    assert len(traces.sends(sent)) == 1
    assert traces.sends(stored) == []
    assert attrs(sent)["restwire.cache_hit"] is False
    assert attrs(stored)["restwire.cache_hit"] is True
    assert "http.response.status_code" not in attrs(stored)


async def test_an_http_cache_answer_is_a_cache_hit_without_a_send(
    mode: str, origin_a: RecordingServer, traces: Traces, tmp_path: Path
) -> None:
    cache = HttpCache.sqlite(tmp_path / "cache.db")
    rates = RestEndpoint(url_prefix=origin_a.origin, path="/status/:code").use(
        traces.middleware()
    )
    params = {"code": "200", "cache-control": "max-age=60"}
    if mode == "sync":
        with Controller(cache=cache) as controller:
            controller.fetch(rates, params)
            answer = controller.fetch_response(rates, params)
    else:
        async with AsyncController(cache=cache) as async_controller:
            await async_controller.fetch(rates, params)
            answer = await async_controller.fetch_response(rates, params)
    assert answer.extensions["caching"]["from_cache"] is True
    assert len(origin_a.requests) == 1
    filled, hit = traces.calls()
    assert len(traces.sends(filled)) == 1
    assert traces.sends(hit) == []
    assert attrs(filled)["restwire.cache_hit"] is False
    assert attrs(hit)["restwire.cache_hit"] is True
    assert attrs(hit)["http.response.status_code"] == 200


def test_subscribe_traces_its_polls_and_its_probe_makes_no_span(
    httpx_mock: HTTPXMock, traces: Traces
) -> None:
    ticker = RestEndpoint(url_prefix=API, path="/ticker").use(traces.middleware())
    httpx_mock.add_response(url=f"{API}/ticker", json={"price": 1}, is_reusable=True)
    seen = threading.Event()
    with Controller() as controller:
        controller.subscribe(ticker, None, lambda value: seen.set(), frequency=60)
        assert seen.wait(HANG)
    (call,) = traces.calls()  # the first poll; the identity probe sent nothing
    assert len(traces.sends(call)) == 1


# -- sharing ----------------------------------------------------------------------


def _as(user: str) -> Token[Context]:
    """A context of a caller of its own: its own parent span and baggage."""
    parent = trace.NonRecordingSpan(
        trace.SpanContext(
            trace_id=0x1000 + len(user),
            span_id=0x2000 + len(user),
            is_remote=True,
            trace_flags=trace.TraceFlags(1),
        )
    )
    return context.attach(
        baggage.set_baggage("user", user, trace.set_span_in_context(parent))
    )


async def _together(controller: Any, mode: str, call: Callable[[Any], Any]) -> None:
    """Two callers at once, each in a trace and with baggage of its own."""
    users = ["ann", "bobby"]
    if mode == "sync":
        barrier = threading.Barrier(len(users))

        def one(user: str) -> None:
            token = _as(user)
            try:
                barrier.wait()
                call(controller.controller)
            finally:
                context.detach(token)

        with ThreadPoolExecutor(len(users)) as pool:
            list(pool.map(one, users))
        return

    async def one_async(user: str) -> None:
        token = _as(user)
        try:
            await call(controller)
        finally:
            context.detach(token)

    async with anyio.create_task_group() as tasks:
        for user in users:
            tasks.start_soon(one_async, user)


async def test_tracing_keeps_calls_of_one_identity_sharing(
    controller_factory: Any, mode: str, origin_a: RecordingServer, traces: Traces
) -> None:
    """Two callers in different traces, with different baggage, make one
    request: the trace context is added after the identity is read, and
    baggage (not a public header) is never added."""
    controller = controller_factory()
    slow = RestEndpoint(url_prefix=origin_a.origin, path="/slow").use(
        traces.middleware()
    )
    await _together(controller, mode, lambda c: c.fetch(slow, {"seconds": "0.3"}))
    (request,) = origin_a.requests
    assert "baggage" not in request.headers
    led, joined = sorted(
        traces.calls(), key=lambda s: "restwire.shared_request" in attrs(s)
    )
    (send,) = traces.sends(led)
    assert traces.sends(joined) == []
    assert attrs(joined)["restwire.shared_request"] is True
    assert request.headers["traceparent"] == traceparent_of(send)
    # each call span is in its caller's own trace
    assert {trace_id(span) for span in traces.calls()} == {
        0x1000 + 3,
        0x1000 + 5,
    }
    # and the store answers both callers after
    await controller.get(slow, {"seconds": "0.3"})
    assert len(origin_a.requests) == 1


def test_baggage_is_sent_when_the_controller_makes_it_public(
    origin_a: RecordingServer, traces: Traces
) -> None:
    echo = RestEndpoint(url_prefix=origin_a.origin, path="/echo").use(
        traces.middleware()
    )
    token = context.attach(baggage.set_baggage("tenant", "acme"))
    try:
        with Controller() as plain:
            plain.fetch(echo)
        public = Sharing(public_headers=PUBLIC_HEADERS | {"baggage"})
        with Controller(sharing=public) as relaxed:
            relaxed.fetch(echo)
    finally:
        context.detach(token)
    first, second = origin_a.requests
    assert "baggage" not in first.headers
    assert second.headers["baggage"] == "tenant=acme"


# -- installing --------------------------------------------------------------------


def test_without_opentelemetry_api_making_it_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry", None)
    with pytest.raises(RestwireError, match=r'pip install "restwire\[otel\]"'):
        OpenTelemetry()
    with pytest.raises(ImportError):
        OpenTelemetry()


def test_a_call_without_it_makes_no_span(httpx_mock: HTTPXMock, traces: Traces) -> None:
    httpx_mock.add_response(json={})
    with Controller() as controller:
        controller.fetch(RestEndpoint(url_prefix=API, path="/plain"))
    assert traces.spans == ()
    assert "traceparent" not in httpx_mock.get_requests()[0].headers
