"""Controller and AsyncController: calls, errors, owned clients; in-flight
de-duplication and reset races, with real concurrency (asyncio tasks on
AsyncController, threads on Controller)."""

from __future__ import annotations

import json
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    AsyncController,
    ContentError,
    Controller,
    Form,
    InvalidRequest,
    NetworkError,
    NotFoundError,
    ParameterError,
    RequestBodyError,
    RestEndpoint,
    TransportError,
)
from tests.pipeline.entities import Post
from tests.waiting import HANG

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
get_item = RestEndpoint(url_prefix=API, path="/my/:id")


async def test_a_json_endpoint_sends_accept_and_content_type_without_a_body(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"id": "1", "title": "t"})
    assert await controller.fetch(get_item, {"id": "1"}) == {"id": "1", "title": "t"}
    request = httpx_mock.get_request()
    assert request is not None
    assert request.url == f"{API}/my/1"
    assert request.headers["accept"] == "application/json"
    assert request.headers["content-type"] == "application/json"
    assert request.content == b""


async def test_a_dict_body_is_sent_as_json(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=201, json={"id": "9"})
    create = RestEndpoint(url_prefix=API, path="/posts/", method="POST")
    assert await controller.fetch(create, body={"title": "new"}) == {"id": "9"}
    request = httpx_mock.get_request()
    assert request is not None
    assert json.loads(request.content) == {"title": "new"}
    assert request.headers["content-type"] == "application/json"


async def test_a_bytes_body_is_never_forced_to_json(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    upload = RestEndpoint(url_prefix=API, path="/upload", method="PUT")
    await controller.fetch(upload, body=b"\x89PNG")
    request = httpx_mock.get_request()
    assert request is not None
    assert request.content == b"\x89PNG"
    assert "content-type" not in request.headers


async def test_a_form_with_files_is_multipart(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    create = RestEndpoint(url_prefix=API, path="/posts/", method="POST")
    await controller.fetch(
        create, body=Form({"title": "t"}, files={"file": ("a.txt", b"hello")})
    )
    request = httpx_mock.get_request()
    assert request is not None
    assert request.headers["content-type"].startswith("multipart/form-data; boundary=")
    assert b'name="title"' in request.content
    assert b"hello" in request.content


async def test_a_middleware_content_type_wins(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})

    class FormEncoded:
        def on_request(self, exchange: Any) -> None:
            exchange.headers["content-type"] = "application/x-www-form-urlencoded"

    login = RestEndpoint(
        url_prefix=API, path="/login", method="POST", middleware=[FormEncoded()]
    )
    await controller.fetch(login, body={"user": "a", "pass": "b"})
    request = httpx_mock.get_request()
    assert request is not None
    assert request.content == b"user=a&pass=b"


async def test_the_headers_option_is_sent(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    await controller.fetch(get_item.extend(headers={"X-Api-Version": "2"}), {"id": 1})
    request = httpx_mock.get_request()
    assert request is not None
    assert request.headers["x-api-version"] == "2"


async def test_missing_param_fails_before_anything_is_sent(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    with pytest.raises(ParameterError, match="'id' is missing"):
        await controller.fetch(get_item, {})
    assert httpx_mock.get_requests() == []


async def test_a_get_with_a_body_fails_before_sending(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    with pytest.raises(RequestBodyError, match="GET takes no body"):
        await controller.fetch(get_item, {"id": 1}, {"a": 1})
    assert httpx_mock.get_requests() == []


async def test_a_non_2xx_status_is_a_network_error_with_its_body(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    problems = {"detail": [{"loc": ["title"], "msg": "field required"}]}
    httpx_mock.add_response(status_code=422, json=problems)
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(get_item, {"id": 1})
    error = caught.value
    assert error.status == 422
    assert error.url == f"{API}/my/1"
    assert error.json() == problems
    assert "field required" in error.text
    # the reason phrase is the library's (httpx2 says RFC 9110's "Content")
    phrase = httpx.codes.get_reason_phrase(422)
    assert phrase in ("Unprocessable Entity", "Unprocessable Content")
    # the server's reason ends the message
    assert str(error) == f"GET {API}/my/1: 422 {phrase}: title: field required"
    assert error.response.is_closed


async def test_a_non_json_error_body_is_a_clear_error_from_json(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=502, text="Bad gateway")
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(get_item, {"id": 1})
    assert caught.value.text == "Bad gateway"
    with pytest.raises(ContentError, match="Bad gateway"):
        caught.value.json()


async def test_a_transport_failure_keeps_the_httpx_error_as_cause(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_exception(httpx.ConnectError("connection refused"))
    with pytest.raises(TransportError) as caught:
        await controller.fetch(get_item, {"id": 1})
    assert isinstance(caught.value.__cause__, httpx.ConnectError)
    assert f"GET {API}/my/1: ConnectError: connection refused" == str(caught.value)


async def test_fetch_response_returns_the_raw_response_through_the_chain(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        json=[1, 2], headers={"link": '<https://x/?page=2>; rel="next"'}
    )
    seen: list[str] = []

    class Mark:
        def on_request(self, exchange: Any) -> None:
            seen.append("request")
            exchange.headers["x-mark"] = "1"

    response = await controller.fetch_response(get_item.use(Mark()), {"id": 1})
    assert isinstance(response, httpx.Response)
    assert response.headers["link"] == '<https://x/?page=2>; rel="next"'
    assert response.json() == [1, 2]
    assert seen == ["request"]
    request = httpx_mock.get_request()
    assert request is not None
    assert request.headers["x-mark"] == "1"


async def test_fetch_response_raises_network_error_too(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=404)
    with pytest.raises(NetworkError):
        await controller.fetch_response(get_item, {"id": 1})


async def test_fetch_with_response_gives_the_value_and_its_response(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        json={"id": "1", "title": "Hello"}, headers={"etag": '"v1"'}
    )
    seen: list[Any] = []

    class Seen:
        def on_response(self, exchange: Any) -> None:
            seen.append(exchange.value)

    get_post = RestEndpoint(url_prefix=API, path="/posts/:id", schema=Post).use(Seen())
    post, response = await controller.fetch_with_response(get_post, {"id": 1})
    assert post == Post(id="1", title="Hello")  # typed by the schema, as fetch
    assert isinstance(response, httpx.Response)
    assert response.headers["etag"] == '"v1"'
    assert response.request.url == f"{API}/posts/1"
    assert len(seen) == 1  # the chain ran once, as for fetch
    assert await controller.get(get_post, {"id": 1}) == post  # kept, as fetch keeps
    assert len(httpx_mock.get_requests()) == 1


async def test_fetch_with_response_sends_a_body_and_raises_as_fetch(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=201, json={"id": "9"})
    httpx_mock.add_response(status_code=404)
    create = RestEndpoint(url_prefix=API, path="/posts/", method="POST")
    value, response = await controller.fetch_with_response(create, body={"t": 1})
    assert (value, response.status_code) == ({"id": "9"}, 201)
    assert httpx_mock.get_requests()[0].content == b'{"t":1}'
    with pytest.raises(NotFoundError):
        await controller.fetch_with_response(get_item, {"id": 1})


async def test_fetch_with_response_never_takes_another_calls_response(
    controller: Any, origin_a: Any, mode: str
) -> None:
    slow = RestEndpoint(url_prefix=origin_a.origin, path="/slow?seconds=0.3")
    outcomes: list[Any] = []
    if mode == "sync":
        sync = controller.controller
        with ThreadPoolExecutor(2) as pool:
            fetched = pool.submit(sync.fetch, slow)
            time.sleep(0.1)  # the fetch is in flight
            outcomes = [fetched, pool.submit(sync.fetch_with_response, slow)]
            outcomes = [each.result() for each in outcomes]
    else:

        async def both() -> None:
            outcomes.append(await controller.fetch_with_response(slow))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(controller.fetch, slow)
            await anyio.sleep(0.1)
            tasks.start_soon(both)
    assert len(origin_a.requests) == 2  # its own request, not a join
    value, response = outcomes[-1]
    assert value == {}
    assert response.status_code == 200


async def test_a_relative_endpoint_uses_the_client_base_url(
    controller_factory: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    controller = controller_factory(base_url="https://h.example/api/v1")
    await controller.fetch(RestEndpoint(path="/posts/:id"), {"id": 3})
    request = httpx_mock.get_request()
    assert request is not None
    assert request.url == "https://h.example/api/v1/posts/3"


async def test_a_relative_endpoint_without_base_url_is_a_clear_error(
    controller: Any,
) -> None:
    with pytest.raises(InvalidRequest, match="give the endpoint a url_prefix"):
        await controller.fetch(RestEndpoint(path="/posts/:id"), {"id": 3})


def test_a_controller_closes_only_the_client_it_made() -> None:
    with Controller() as owned:
        client = owned.client
    assert client.is_closed
    given = httpx.Client()
    with Controller(given):
        pass
    assert not given.is_closed
    given.close()


async def test_an_async_controller_closes_only_the_client_it_made() -> None:
    async with AsyncController() as owned:
        client = owned.client
    assert client.is_closed
    given = httpx.AsyncClient()
    async with AsyncController(given):
        pass
    assert not given.is_closed
    await given.aclose()


def test_fetch_refuses_what_is_not_an_endpoint() -> None:
    with Controller() as controller, pytest.raises(TypeError, match="RestEndpoint"):
        controller.fetch("/posts/1")  # type: ignore[arg-type]


API = "https://api.example.com"
get_post = RestEndpoint(url_prefix=API, path="/posts/:id", schema=Post)
create_post = RestEndpoint(url_prefix=API, path="/posts/", method="POST", schema=Post)


async def test_fifty_concurrent_gets_make_one_request_async(
    httpx_mock: HTTPXMock,
) -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(0.05)
        return httpx.Response(200, json={"id": "1", "title": "t"})

    httpx_mock.add_callback(slow)
    results: list[Any] = []
    async with AsyncController() as controller:

        async def one() -> None:
            results.append(await controller.get(get_post, {"id": "1"}))

        async with anyio.create_task_group() as tasks:
            for _ in range(50):
                tasks.start_soon(one)
    assert len(httpx_mock.get_requests()) == 1
    assert results == [Post(id="1", title="t")] * 50


def test_fifty_concurrent_gets_make_one_request_threads(httpx_mock: HTTPXMock) -> None:
    started = threading.Barrier(50)

    def slow(request: httpx.Request) -> httpx.Response:
        time.sleep(0.1)
        return httpx.Response(200, json={"id": "1", "title": "t"})

    httpx_mock.add_callback(slow)
    with Controller() as controller:

        def one(_: int) -> Any:
            started.wait()
            return controller.get(get_post, {"id": "1"})

        with ThreadPoolExecutor(50) as pool:
            results = list(pool.map(one, range(50)))
    assert len(httpx_mock.get_requests()) == 1
    assert results == [Post(id="1", title="t")] * 50


async def test_waiting_callers_get_their_own_list(httpx_mock: HTTPXMock) -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(0.02)
        return httpx.Response(200, json=[{"id": "1"}])

    httpx_mock.add_callback(slow)
    listing = RestEndpoint(url_prefix=API, path="/posts/", schema=[Post])
    results: list[Any] = []
    async with AsyncController() as controller:

        async def one() -> None:
            results.append(await controller.fetch(listing))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(one)
            tasks.start_soon(one)
    assert results[0] == results[1]
    assert results[0] is not results[1]


async def test_mutations_are_never_shared(httpx_mock: HTTPXMock) -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(0.02)
        return httpx.Response(201, json={"id": "9", "title": "t"})

    httpx_mock.add_callback(slow, is_reusable=True)
    async with AsyncController() as controller, anyio.create_task_group() as tasks:
        for _ in range(5):
            tasks.start_soon(controller.fetch, create_post, None, {"title": "t"})
    assert len(httpx_mock.get_requests()) == 5


async def test_every_waiting_caller_gets_the_leaders_error(
    httpx_mock: HTTPXMock,
) -> None:
    async def failing(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(0.02)
        return httpx.Response(500)

    httpx_mock.add_callback(failing)
    errors: list[BaseException] = []
    async with AsyncController() as controller:

        async def one() -> None:
            try:
                await controller.fetch(get_post, {"id": "1"})
            except NetworkError as error:
                errors.append(error)

        async with anyio.create_task_group() as tasks:
            for _ in range(10):
                tasks.start_soon(one)
    assert len(errors) == 10
    assert len(httpx_mock.get_requests()) == 1


async def test_a_cancelled_leader_hands_the_request_to_a_follower(
    httpx_mock: HTTPXMock,
) -> None:
    arrived = anyio.Event()
    calls = 0

    async def slow_then_quick(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls == 1:
            arrived.set()
            await anyio.sleep(5)
        return httpx.Response(200, json={"id": "1", "title": "t"})

    httpx_mock.add_callback(slow_then_quick, is_reusable=True)
    outcomes: list[Any] = []
    leader_scope = anyio.CancelScope()
    async with AsyncController() as controller:

        async def leader() -> None:
            with leader_scope:
                await controller.fetch(get_post, {"id": "1"})

        async def follower() -> None:
            outcomes.append(await controller.fetch(get_post, {"id": "1"}))

        with anyio.fail_after(HANG):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(leader)
                await arrived.wait()
                tasks.start_soon(follower)
                await anyio.sleep(0.01)
                leader_scope.cancel()
    assert outcomes == [Post(id="1", title="t")]
    assert leader_scope.cancelled_caught
    assert len(httpx_mock.get_requests()) == 2


async def test_a_fetch_in_flight_at_reset_does_not_write_back_async(
    httpx_mock: HTTPXMock,
) -> None:
    arrived, release = anyio.Event(), anyio.Event()

    async def held(request: httpx.Request) -> httpx.Response:
        arrived.set()
        await release.wait()
        return httpx.Response(200, json={"id": "1", "title": "before reset"})

    httpx_mock.add_callback(held)
    values: list[Any] = []
    async with AsyncController() as controller:
        async with anyio.create_task_group() as tasks:

            async def fetch() -> None:
                values.append(await controller.fetch(get_post, {"id": "1"}))

            tasks.start_soon(fetch)
            await arrived.wait()
            controller.reset()
            release.set()
        assert values == [Post(id="1", title="before reset")]
        assert controller.store.records == {}
        assert controller.store.results == {}


def test_a_fetch_in_flight_at_reset_does_not_write_back_threads(
    httpx_mock: HTTPXMock,
) -> None:
    arrived, release = threading.Event(), threading.Event()

    def held(request: httpx.Request) -> httpx.Response:
        arrived.set()
        release.wait(HANG)
        return httpx.Response(200, json={"id": "1", "title": "before reset"})

    httpx_mock.add_callback(held)
    with Controller() as controller, ThreadPoolExecutor(1) as pool:
        future = pool.submit(controller.fetch, get_post, {"id": "1"})
        assert arrived.wait(HANG)
        controller.reset()
        release.set()
        assert future.result(HANG) == Post(id="1", title="before reset")
        assert controller.store.records == {}
        assert controller.store.results == {}


def test_a_call_after_reset_does_not_join_a_stale_flight(httpx_mock: HTTPXMock) -> None:
    arrived, release = threading.Event(), threading.Event()
    titles = iter(["stale", "fresh"])

    def held(request: httpx.Request) -> httpx.Response:
        title = next(titles)
        if title == "stale":
            arrived.set()
            release.wait(HANG)
        return httpx.Response(200, json={"id": "1", "title": title})

    httpx_mock.add_callback(held, is_reusable=True)
    with Controller() as controller, ThreadPoolExecutor(1) as pool:
        stale = pool.submit(controller.fetch, get_post, {"id": "1"})
        assert arrived.wait(HANG)
        controller.reset()
        assert controller.fetch(get_post, {"id": "1"}).title == "fresh"
        release.set()
        assert stale.result(HANG).title == "stale"
        assert controller.get(get_post, {"id": "1"}).title == "fresh"


async def test_impatient_callers_never_fail_patient_ones(httpx_mock: HTTPXMock) -> None:
    """1,000 tasks read 10 overlapping posts; one in ten gives up at a random
    moment, leaders included. Every caller that did not give up gets its post."""

    async def slow(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(random.random() * 0.02)
        return httpx.Response(200, json={"id": request.url.path.rsplit("/", 1)[1]})

    httpx_mock.add_callback(slow, is_reusable=True)
    got: list[tuple[str, Post]] = []
    cancelled = 0
    async with AsyncController() as controller:

        async def patient(post_id: str) -> None:
            got.append((post_id, await controller.fetch(get_post, {"id": post_id})))

        async def impatient(post_id: str) -> None:
            nonlocal cancelled
            with anyio.move_on_after(random.random() * 0.02) as scope:
                await controller.fetch(get_post, {"id": post_id})
            cancelled += scope.cancelled_caught

        with anyio.fail_after(HANG):
            async with anyio.create_task_group() as tasks:
                for index in range(1000):
                    post_id = str(index % 10)
                    tasks.start_soon(impatient if index % 10 == 3 else patient, post_id)
                    if index % 50 == 0:
                        await anyio.sleep(0.001)
    assert len(got) == 900
    assert all(post == Post(id=post_id) for post_id, post in got)
    assert cancelled > 0


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_an_error_in_the_async_with_block_reaches_the_caller_as_itself(
    backend: str,
) -> None:
    def refused(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401)

    async def main() -> None:
        client = httpx.AsyncClient(transport=httpx.MockTransport(refused))
        async with client, AsyncController(client) as controller:
            await controller.fetch(get_post, {"id": "1"})

    with pytest.raises(NetworkError) as caught:
        anyio.run(main, backend=backend)
    assert caught.value.status == 401


# -- remembered URLs -----------------------------------------------------------


def test_remembered_urls_tell_param_types_apart() -> None:
    """{"id": 1} and {"id": True} are equal tuples but different URLs."""
    items = RestEndpoint(url_prefix=API, path="/items/:id")
    with Controller() as controller:
        assert controller.key(items, {"id": 1}) == f"GET {API}/items/1"
        assert controller.key(items, {"id": True}) == f"GET {API}/items/true"
        assert controller.key(items, {"id": 1.0}) == f"GET {API}/items/1.0"


def test_a_param_whose_text_can_change_is_never_remembered() -> None:
    class Cursor:
        def __init__(self) -> None:
            self.at = 1

        def __str__(self) -> str:
            return str(self.at)

    cursor = Cursor()
    listing = RestEndpoint(url_prefix=API, path="/items")
    with Controller() as controller:
        assert controller.key(listing, {"after": cursor}) == f"GET {API}/items?after=1"
        cursor.at = 2
        assert controller.key(listing, {"after": cursor}) == f"GET {API}/items?after=2"


def test_remembered_urls_are_bounded() -> None:
    from restwire._controller.calls import _CACHE_SIZE

    items = RestEndpoint(url_prefix=API, path="/items/:id")
    with Controller() as controller:
        for number in range(_CACHE_SIZE + 10):
            assert controller.key(items, {"id": number}).endswith(f"/items/{number}")
        assert len(controller._targets._targets) <= _CACHE_SIZE
        assert len(controller._targets._parsed) <= _CACHE_SIZE


def test_a_url_is_remembered_from_its_second_call() -> None:
    items = RestEndpoint(url_prefix=API, path="/items/:id")
    with Controller() as controller:
        targets = controller._targets
        first = targets(items, {"id": 1})[0]
        second = targets(items, {"id": 1})[0]
        third = targets(items, {"id": 1})[0]
        assert first == second == third
        assert second is not first  # the first call keeps nothing
        assert third is second
        for number in range(2, 50):  # each a URL of its own
            targets(items, {"id": number})
        assert len(targets._targets) == len(targets._parsed) == 1


class _Elementwise:
    def __bool__(self) -> bool:
        raise ValueError("the truth value of an array is ambiguous")


class _Frame:
    """A value whose == answers element by element (numpy, pandas)."""

    def __init__(self, rows: object) -> None:
        self.rows = rows

    def __eq__(self, other: object) -> bool:
        return _Elementwise()  # type: ignore[return-value]

    __hash__ = None  # type: ignore[assignment]


class _AsFrame(RestEndpoint[Any]):
    def process(self, value: Any, params: Any) -> Any:
        return _Frame(value)


def test_a_value_whose_eq_is_not_a_bool_is_kept_again() -> None:
    """A processed value is never compared with the one it replaces: an
    array-like ``==`` cannot fail the second fetch."""
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=[1, 2]))
    endpoint = _AsFrame(url_prefix="http://api.test", path="/x")
    with Controller(transport=transport) as controller:
        for _ in range(2):
            assert controller.fetch(endpoint).rows == [1, 2]
