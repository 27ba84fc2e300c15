"""LogoutManager and managers in general, under both controllers."""

from __future__ import annotations

import contextvars
from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    Exchange,
    LogoutManager,
    NetworkError,
    RestEndpoint,
    RestwireError,
)
from restwire.middlewares import ContextToken
from tests.pipeline.entities import Post

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
get_post = RestEndpoint(url_prefix=API, path="/posts/:id", schema=Post)
get_mine = RestEndpoint(url_prefix=API, path="/my/:id", schema=Post)


async def test_a_401_resets_the_store_and_still_reaches_the_caller(
    controller_factory: Any, httpx_mock: HTTPXMock
) -> None:
    controller = controller_factory(managers=(LogoutManager(),))
    httpx_mock.add_response(url=f"{API}/posts/1", json={"id": "1"})
    httpx_mock.add_response(url=f"{API}/my/1", status_code=401)
    await controller.get(get_post, {"id": "1"})
    assert controller.store.records
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(get_mine, {"id": "1"})
    assert caught.value.status == 401
    assert controller.store.records == {}
    assert controller.store.results == {}


user: contextvars.ContextVar[str | None] = contextvars.ContextVar("user")


async def test_a_401_logs_out_the_refused_caller_alone(
    controller_factory: Any, httpx_mock: HTTPXMock
) -> None:
    """One controller shared by two users: ann's 401 forgets ann's results
    and records; bob keeps his, and is answered from the store."""
    controller = controller_factory(managers=(LogoutManager(),))
    mine = get_mine.use(ContextToken(user))
    posts = get_post.use(ContextToken(user))
    httpx_mock.add_response(
        url=f"{API}/posts/1", match_headers={"Access-Token": "bob"}, json={"id": "1"}
    )
    httpx_mock.add_response(
        url=f"{API}/posts/1", match_headers={"Access-Token": "ann"}, json={"id": "1"}
    )
    httpx_mock.add_response(
        url=f"{API}/my/1", match_headers={"Access-Token": "ann"}, status_code=401
    )
    user.set("bob")
    bobs = await controller.get(posts, {"id": "1"})
    user.set("ann")
    await controller.get(posts, {"id": "1"})
    assert len(controller.store.partitions) == 2
    with pytest.raises(NetworkError):
        await controller.fetch(mine, {"id": "1"})
    assert len(controller.store.partitions) == 1  # ann's gone
    user.set("bob")
    assert await controller.get(posts, {"id": "1"}) is bobs  # no request
    assert len(httpx_mock.get_requests()) == 3


def test_a_forgotten_callers_call_in_flight_does_not_write_back() -> None:
    from restwire._store.schemas import Batch, plan_of
    from restwire._store.store import Result, Store

    store = Store()
    began = store.generation  # ann's call begins
    store.forget("ann")  # ann is logged out meanwhile
    result = Result(plan_of(None), {"a": 1}, 0.0, 10.0, None, None)
    assert not store.commit("ann", Batch(), "GET /x", None, result, began)
    assert store.commit("bob", Batch(), "GET /x", None, result, began)
    assert store.result("bob", "GET /x", None) is result
    assert store.result("ann", "GET /x", None) is None
    assert store.commit("ann", Batch(), "GET /x", None, result, store.generation)


async def test_without_a_manager_a_401_keeps_the_store(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=f"{API}/posts/1", json={"id": "1"})
    httpx_mock.add_response(url=f"{API}/my/1", status_code=401)
    await controller.get(get_post, {"id": "1"})
    with pytest.raises(NetworkError):
        await controller.fetch(get_mine, {"id": "1"})
    assert list(controller.store.records) == [("Post", "1")]


async def test_other_errors_do_not_log_out(
    controller_factory: Any, httpx_mock: HTTPXMock
) -> None:
    controller = controller_factory(managers=(LogoutManager(),))
    httpx_mock.add_response(url=f"{API}/posts/1", json={"id": "1"})
    httpx_mock.add_response(url=f"{API}/my/1", status_code=403)
    await controller.get(get_post, {"id": "1"})
    with pytest.raises(NetworkError):
        await controller.fetch(get_mine, {"id": "1"})
    assert list(controller.store.records) == [("Post", "1")]


async def test_both_hooks_can_be_replaced(
    controller_factory: Any, httpx_mock: HTTPXMock
) -> None:
    logged_out: list[Any] = []

    def expired(error: RestwireError) -> bool:
        return isinstance(error, NetworkError) and error.status == 419

    manager = LogoutManager(should_logout=expired, handle_logout=logged_out.append)
    controller = controller_factory(managers=(manager,))
    httpx_mock.add_response(status_code=401)
    httpx_mock.add_response(status_code=419)
    for _ in range(2):
        with pytest.raises(NetworkError):
            await controller.fetch(get_mine, {"id": "1"})
    assert len(logged_out) == 1
    assert getattr(logged_out[0], "controller", logged_out[0]) is not None


async def test_a_failing_manager_does_not_hide_the_error(
    controller_factory: Any, httpx_mock: HTTPXMock, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(controller: Any) -> None:
        raise RuntimeError("cleanup failed")

    controller = controller_factory(managers=(LogoutManager(handle_logout=broken),))
    httpx_mock.add_response(status_code=401)
    with pytest.raises(NetworkError):
        await controller.fetch(get_mine, {"id": "1"})
    assert "manager LogoutManager() failed on UnauthorizedError" in caplog.text


async def test_fetch_response_runs_the_managers_too(
    controller_factory: Any, httpx_mock: HTTPXMock
) -> None:
    calls: list[Any] = []
    controller = controller_factory(
        managers=(LogoutManager(handle_logout=calls.append),)
    )
    httpx_mock.add_response(status_code=401)
    with pytest.raises(NetworkError):
        await controller.fetch_response(get_mine, {"id": "1"})
    assert len(calls) == 1


class Recording:
    """A manager with every hook: logs what it saw, times calls in state."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def on_call(self, controller: Any, exchange: Exchange) -> None:
        exchange.state["started"] = True
        self.log.append(f"call {exchange.method} {exchange.url.path}")

    def on_value(self, controller: Any, exchange: Exchange, value: Any) -> None:
        assert exchange.state["started"]
        self.log.append(f"value {type(value).__name__}")

    def on_error(
        self, controller: Any, exchange: Exchange, error: RestwireError
    ) -> None:
        assert exchange.state["started"]
        self.log.append(f"error {type(error).__name__} {exchange.url.path}")


async def test_managers_see_every_outcome_of_every_call_in_order(
    controller_factory: Any, httpx_mock: HTTPXMock
) -> None:
    first: list[str] = []
    second: list[str] = []
    controller = controller_factory(managers=(Recording(first), Recording(second)))
    httpx_mock.add_response(url=f"{API}/posts/1", json={"id": "1"})
    httpx_mock.add_response(url=f"{API}/my/1", status_code=500)
    await controller.fetch(get_post, {"id": "1"})
    await controller.get(get_post, {"id": "1"})  # from the store: no call
    with pytest.raises(NetworkError):
        await controller.fetch(get_mine, {"id": "1"})
    assert first == [
        "call GET /posts/1",
        "value Post",
        "call GET /my/1",
        "error ServerError /my/1",
    ]
    assert second == first


async def test_a_raw_call_and_a_page_are_calls_too(
    controller_factory: Any, httpx_mock: HTTPXMock
) -> None:
    log: list[str] = []
    controller = controller_factory(managers=(Recording(log),))
    httpx_mock.add_response(url=f"{API}/posts/1", json={"id": "1"}, is_reusable=True)
    await controller.fetch_response(get_post, {"id": "1"})
    pages = [page async for page in aiter_pages(controller, get_post, {"id": "1"})]
    assert len(pages) == 1
    assert log == [
        "call GET /posts/1",
        "value Response",
        "call GET /posts/1",
        "value Post",
    ]


async def aiter_pages(controller: Any, endpoint: Any, params: Any) -> Any:
    """``paginate`` under either controller (the sync one's is a plain iterator)."""
    pages = controller.paginate(endpoint, params)
    if hasattr(pages, "__aiter__"):
        async for page in pages:
            yield page
    else:
        for page in await pages:
            yield page


class Broken:
    def on_call(self, controller: Any, exchange: Exchange) -> None:
        raise RuntimeError("metrics backend down")

    def on_value(self, controller: Any, exchange: Exchange, value: Any) -> None:
        raise RuntimeError("metrics backend down")

    def __repr__(self) -> str:
        return "Broken()"


async def test_a_manager_that_raises_is_logged_and_the_call_goes_on(
    controller_factory: Any, httpx_mock: HTTPXMock, caplog: pytest.LogCaptureFixture
) -> None:
    log: list[str] = []
    controller = controller_factory(managers=(Broken(), Recording(log)))
    httpx_mock.add_response(url=f"{API}/posts/1", json={"id": "1"})
    post = await controller.fetch(get_post, {"id": "1"})
    assert post == Post(id="1")
    assert log == ["call GET /posts/1", "value Post"]
    assert "manager Broken() failed on the call" in caplog.text
    assert "manager Broken() failed on the value" in caplog.text
