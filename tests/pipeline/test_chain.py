"""The chain: order, both middleware forms, short-circuit, re-send, waits.

Every test here runs under Controller and AsyncController (the ``controller``
fixture): the same middleware objects serve both.
"""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    Blocking,
    Call,
    CallNext,
    Exchange,
    Flow,
    Middleware,
    NetworkError,
    RestEndpoint,
    RestwireError,
    Sleep,
    Stack,
    UsageError,
    resource,
)
from restwire._base.library import Response
from restwire.middlewares import Retry, SnakeCaseKeys

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


class Recorder:
    """A simple-form middleware that logs when it runs."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name, self.log = name, log

    def on_request(self, exchange: Exchange) -> None:
        self.log.append(f"{self.name}>")
        exchange.headers[f"x-{self.name}"] = "1"

    def on_response(self, exchange: Exchange) -> None:
        self.log.append(f"<{self.name}")
        exchange.value = {**exchange.value, self.name: True}


async def test_first_middleware_is_outermost(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"id": "1"})
    log: list[str] = []
    endpoint = RestEndpoint(
        url_prefix=API,
        path="/my/:id",
        middleware=[Recorder("a", log), Recorder("b", log)],
    )
    value = await controller.fetch(endpoint, {"id": "1"})
    assert log == ["a>", "b>", "<b", "<a"]
    assert value == {"id": "1", "a": True, "b": True}
    request = httpx_mock.get_request()
    assert request is not None
    assert request.headers["x-a"] == request.headers["x-b"] == "1"


async def test_the_exchange_carries_the_call(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"ok": True})
    seen: dict[str, Any] = {}

    class Inspect:
        def on_request(self, exchange: Exchange) -> None:
            seen["request"] = (
                exchange.endpoint,
                dict(exchange.params),
                exchange.body,
                exchange.method,
                str(exchange.url),
                exchange.response,
            )

        def on_response(self, exchange: Exchange) -> None:
            assert exchange.response is not None
            seen["response"] = (exchange.response.status_code, exchange.value)
            seen["hops"] = [str(url) for url in exchange.hops]

    endpoint = RestEndpoint(
        url_prefix=API, path="/posts/:id", method="PUT", middleware=[Inspect()]
    )
    await controller.fetch(endpoint, {"id": 5, "v": 2}, {"title": "t"})
    assert seen["request"] == (
        endpoint,
        {"id": 5, "v": 2},
        {"title": "t"},
        "PUT",
        f"{API}/posts/5?v=2",
        None,
    )
    assert seen["response"] == (200, {"ok": True})
    assert seen["hops"] == [f"{API}/posts/5?v=2"]


async def test_a_full_form_middleware_can_answer_without_sending(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    class Canned:
        def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
            exchange.value = {"canned": True}
            return httpx.Response(200, request=httpx.Request("GET", str(exchange.url)))
            yield  # makes this a generator: it never sends

    endpoint = RestEndpoint(url_prefix=API, path="/x", middleware=[Canned()])
    assert await controller.fetch(endpoint) == {"canned": True}
    assert httpx_mock.get_requests() == []


async def test_a_full_form_middleware_can_send_again_after_waiting(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=503)
    httpx_mock.add_response(json={"second": True})
    waits: list[float] = []
    discarded: list[Response] = []

    class Again:
        def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
            try:
                return (yield from call_next(exchange))
            except NetworkError as error:
                discarded.append(error.response)
                waits.append(0.001)
                yield Sleep(0.001)
                exchange.headers["x-attempt"] = "2"
                return (yield from call_next(exchange))

    endpoint = RestEndpoint(url_prefix=API, path="/x", middleware=[Again()])
    assert await controller.fetch(endpoint) == {"second": True}
    first, second = httpx_mock.get_requests()
    assert "x-attempt" not in first.headers
    assert second.headers["x-attempt"] == "2"
    assert waits == [0.001]
    assert [response.is_closed for response in discarded] == [True]


async def test_on_error_sees_the_error_and_it_still_reaches_the_caller(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=401, json={"detail": "expired"})
    errors: list[RestwireError] = []

    class Watch:
        def on_error(self, exchange: Exchange, error: RestwireError) -> None:
            errors.append(error)

        def on_response(self, exchange: Exchange) -> None:
            raise AssertionError("on_response must not run for an error")

    endpoint = RestEndpoint(url_prefix=API, path="/my/1", middleware=[Watch()])
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(endpoint)
    assert errors == [caught.value]
    assert caught.value.status == 401


async def test_process_runs_after_every_middleware(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"title": "t"})
    log: list[str] = []

    def process(value: Any, params: Any) -> Any:
        log.append("process")
        return {**value, "username": params["username"]}

    endpoint = RestEndpoint(
        url_prefix=API,
        path="/:username/",
        process=process,
        middleware=[Recorder("a", log)],
    )
    value = await controller.fetch(endpoint, {"username": "sky"})
    assert log == ["a>", "<a", "process"]
    assert value == {"title": "t", "a": True, "username": "sky"}


async def test_parse_response_option_replaces_parsing(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(content=b"a,b", headers={"content-type": "text/csv"})

    def csv(response: httpx.Response) -> list[str]:
        return response.text.split(",")

    endpoint = RestEndpoint(url_prefix=API, path="/x.csv", parse_response=csv)
    assert await controller.fetch(endpoint) == ["a", "b"]


async def test_one_middleware_instance_serves_concurrent_calls_and_both_drivers(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"n": 1}, is_reusable=True)
    log: list[str] = []
    shared = Stack(Recorder("s", log))
    first = RestEndpoint(url_prefix=API, path="/a", middleware=shared)
    second = RestEndpoint(url_prefix=API, path="/b", middleware=shared)
    assert await controller.fetch(first) == {"n": 1, "s": True}
    assert await controller.fetch(second) == {"n": 1, "s": True}
    assert log == ["s>", "<s", "s>", "<s"]


class Layer:
    """A simple-form layer that can fail in either hook and logs what it sees."""

    def __init__(self, name: str, log: list[str], fail_in: str = "") -> None:
        self.name, self.log, self.fail_in = name, log, fail_in

    def on_request(self, exchange: Exchange) -> None:
        if self.fail_in == "request":
            raise RestwireError(f"{self.name} request")

    def on_response(self, exchange: Exchange) -> None:
        if self.fail_in == "response":
            raise RestwireError(f"{self.name} response")

    def on_error(self, exchange: Exchange, error: RestwireError) -> None:
        self.log.append(f"{self.name} saw {error}")


class Full:
    """A full-form layer between simple ones, so the stack has several runs."""

    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        return (yield from call_next(exchange))


@pytest.mark.parametrize(
    ("failing", "fail_in", "seen_by"),
    [
        ("b", "request", ["a"]),  # raised before b wraps the rest: a sees it
        ("c", "request", ["b", "a"]),
        ("c", "response", ["b", "a"]),  # after c's own call: the outer ones see it
        ("a", "response", []),
        ("d", "request", ["c", "b", "a"]),
    ],
)
async def test_errors_reach_exactly_the_layers_they_pass(
    controller: Any,
    httpx_mock: HTTPXMock,
    failing: str,
    fail_in: str,
    seen_by: list[str],
) -> None:
    httpx_mock.add_response(json={}, is_optional=True)
    log: list[str] = []
    layers = {
        name: Layer(name, log, fail_in if name == failing else "") for name in "abcd"
    }
    stack: list[Middleware | Stack] = [
        layers["a"],
        layers["b"],
        layers["c"],
        Full(),
        layers["d"],
    ]
    endpoint = RestEndpoint(url_prefix=API, path="/x", middleware=stack)
    with pytest.raises(RestwireError, match=f"{failing} {fail_in}"):
        await controller.fetch(endpoint)
    assert log == [f"{name} saw {failing} {fail_in}" for name in seen_by]


class Watcher:
    """A simple-form layer with ``on_error`` alone: no request side."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name, self.log = name, log

    def on_error(self, exchange: Exchange, error: RestwireError) -> None:
        self.log.append(f"{self.name} saw {error}")


class ResponseOnly:
    """A simple-form layer with ``on_response`` alone, failing in it."""

    def on_response(self, exchange: Exchange) -> None:
        raise RestwireError("r response")


@pytest.mark.parametrize(
    ("failing", "fail_in", "seen_by"),
    [
        ("b", "request", ["w", "a"]),  # w has no request side, yet it was passed
        ("b", "response", ["w", "a"]),
        ("r", "response", ["b", "w", "a"]),  # r is innermost: its hook runs first
        ("a", "response", []),
    ],
)
async def test_a_layer_without_hooks_of_a_side_still_sees_errors_it_passed(
    controller: Any,
    httpx_mock: HTTPXMock,
    failing: str,
    fail_in: str,
    seen_by: list[str],
) -> None:
    # one run of simple layers (one fused frame): a, a watcher, b, and a
    # layer with a response side alone
    httpx_mock.add_response(json={}, is_optional=True)
    log: list[str] = []
    a = Layer("a", log, fail_in if failing == "a" else "")
    b = Layer("b", log, fail_in if failing == "b" else "")
    stack: list[Middleware | Stack] = [a, Watcher("w", log), b]
    if failing == "r":
        stack.append(ResponseOnly())
    assert len(Stack(*stack).handlers) == 1
    endpoint = RestEndpoint(url_prefix=API, path="/x", middleware=stack)
    with pytest.raises(RestwireError, match=f"{failing} {fail_in}"):
        await controller.fetch(endpoint)
    assert log == [f"{name} saw {failing} {fail_in}" for name in seen_by]


class Named:
    def __init__(self, name: str) -> None:
        self.name = name

    def on_request(self, exchange: Any) -> None:
        return None

    def __repr__(self) -> str:
        return f"Named({self.name!r})"


def test_a_stack_lists_its_layers_outermost_first() -> None:
    a, b, c = Named("a"), Named("b"), Named("c")
    stack = Stack(a, Stack(b, c))
    assert stack.layers == (a, b, c)
    assert list(stack) == [a, b, c]
    assert repr(stack) == "Stack(Named('a'), Named('b'), Named('c'))"
    assert len(stack.handlers) == 1  # consecutive simple layers share a frame


def test_adding_gives_a_new_stack() -> None:
    a, b = Named("a"), Named("b")
    base = Stack(a)
    assert (base + [b]).layers == (a, b)  # noqa: RUF005 (tests Stack.__add__)
    assert base.use(b).layers == (a, b)
    assert base.layers == (a,)
    assert base.use(b) == Stack(a, b)
    assert base.use(b) != Stack(b, a)


def test_a_stack_is_immutable() -> None:
    with pytest.raises(AttributeError, match="immutable"):
        Stack().layers = ()


def test_an_object_without_hooks_is_not_a_middleware() -> None:
    with pytest.raises(TypeError, match="is not a middleware"):
        Stack(object())  # type: ignore[arg-type]


class Hookless:
    on_request = None  # a name that is no hook: not callable


@pytest.mark.parametrize(
    ("given", "named"),
    [
        (object(), "an object is not a middleware"),
        (Hookless(), "a Hookless is not a middleware"),
        (print, "print is not a middleware"),
        ("SnakeCaseKeys", "a str is not a middleware"),
        (Exchange, "Exchange is a class, not a middleware"),
    ],
)
def test_what_is_no_middleware_is_refused_where_it_is_given_naming_it(
    given: Any, named: str
) -> None:
    """Everywhere middleware is taken: Stack, use(), middleware= (one or a
    list), extend() and resource(); at once, before any call."""
    endpoint = RestEndpoint(url_prefix=API, path="/x")
    for add in (
        lambda: Stack(given),
        lambda: Stack().use(given),
        lambda: endpoint.use(given),
        lambda: RestEndpoint(path="/x", middleware=given),
        lambda: RestEndpoint(path="/x", middleware=[Recorder("a", []), given]),
        lambda: endpoint.extend(middleware=(given,)),
        lambda: resource(path="/x/:id", schema=None, middleware=[given]),
    ):
        with pytest.raises(UsageError) as caught:
            add()
        assert str(caught.value).startswith(named)


@pytest.mark.parametrize("middleware", [SnakeCaseKeys, Recorder, Retry])
def test_a_middlewares_class_given_for_an_instance_says_call_it(
    middleware: Any,
) -> None:
    """``.use(SnakeCaseKeys)``: the class has the hooks, as functions; it
    is refused at once, not by a TypeError at the first call."""
    name = middleware.__name__
    for add in (
        lambda: RestEndpoint(path="/x").use(middleware),
        lambda: RestEndpoint(path="/x", middleware=middleware),
        lambda: resource(path="/x/:id", schema=None, middleware=[middleware]),
    ):
        with pytest.raises(UsageError, match=f"call it: `{name}\\(\\)`"):
            add()


class Snooper:
    """Looks for a way around the chain on the exchange."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def on_request(self, exchange: Exchange) -> None:
        self.seen = [name for name in dir(exchange) if not name.startswith("__")]


async def test_the_exchange_offers_no_client_to_send_around_the_chain(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    snooper = Snooper()
    await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(snooper))
    assert snooper.seen
    assert not [name for name in snooper.seen if "client" in name]
    assert not any(
        isinstance(getattr(Exchange, name, None), httpx.Client | httpx.AsyncClient)
        for name in snooper.seen
    )


class YieldsJunk:
    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        yield "GET https://elsewhere.example/"  # type: ignore[misc]
        return (yield from call_next(exchange))


async def test_yielding_what_is_not_an_effect_is_a_clear_error(
    controller: Any,
) -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(YieldsJunk())
    with pytest.raises(TypeError, match="which is not an effect"):
        await controller.fetch(endpoint)


async def _lookup() -> str:
    return "from a coroutine"


class CallsACoroutine:
    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        exchange.state["looked up"] = yield Call(_lookup)
        return (yield from call_next(exchange))


async def test_a_coroutine_is_awaited_by_the_async_driver_and_refused_by_the_sync(
    controller: Any, mode: str, httpx_mock: HTTPXMock
) -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(CallsACoroutine())
    if mode == "sync":
        with pytest.raises(TypeError, match="is async; under a sync Controller"):
            await controller.fetch(endpoint)
        return
    httpx_mock.add_response(json={})
    response = await controller.fetch_response(endpoint)
    assert response.status_code == 200


class LooksUpInAThread:
    """Yields a blocking call and records the thread that ran it."""

    def __init__(self) -> None:
        self.ran_in: threading.Thread | None = None

    def _lookup(self, word: str) -> str:
        self.ran_in = threading.current_thread()
        return word.upper()

    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        exchange.headers["x-looked-up"] = yield Blocking(self._lookup, ("shared",))
        return (yield from call_next(exchange))


async def test_a_blocking_call_runs_off_the_event_loop_and_inline_when_sync(
    controller: Any, mode: str, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    middleware = LooksUpInAThread()
    await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(middleware))
    request = httpx_mock.get_request()
    assert request is not None
    assert request.headers["x-looked-up"] == "SHARED"
    same_thread = middleware.ran_in is threading.current_thread()
    assert same_thread == (mode == "sync")


async def test_a_blocking_call_refuses_a_coroutine_function_under_both_drivers(
    controller: Any,
) -> None:
    class BlocksOnACoroutine:
        def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
            yield Blocking(_lookup)
            return (yield from call_next(exchange))

    endpoint = RestEndpoint(url_prefix=API, path="/x").use(BlocksOnACoroutine())
    with pytest.raises(TypeError, match="is async"):
        await controller.fetch(endpoint)
