"""AccessToken: the shared token holder, and refresh on 401."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    AsyncController,
    Controller,
    LogoutManager,
    NetworkError,
    RestEndpoint,
)
from restwire.middlewares import AccessToken

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


def sent_tokens(
    httpx_mock: HTTPXMock, header: str = "access-token"
) -> list[str | None]:
    return [request.headers.get(header) for request in httpx_mock.get_requests()]


async def test_no_token_sends_no_header(controller: Any, httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(json={})
    await controller.fetch(
        RestEndpoint(url_prefix=API, path="/my/1").use(AccessToken())
    )
    assert sent_tokens(httpx_mock) == [None]


async def test_a_login_sets_the_token_for_every_later_request(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=f"{API}/login", json={"accessToken": "jwt-1"})
    httpx_mock.add_response(url=f"{API}/my/1", json={"id": "1"})
    httpx_mock.add_response(url=f"{API}/posts/2", json={"id": "2"})
    auth = AccessToken()
    base = RestEndpoint(url_prefix=API).use(auth)
    login = base.extend(path="/login", method="POST")
    auth.token = (await controller.fetch(login, body={"user": "u"}))["accessToken"]
    await controller.fetch(base.extend(path="/my/1"))
    await controller.fetch(base.extend(path="/posts/2"))
    assert sent_tokens(httpx_mock) == [None, "jwt-1", "jwt-1"]


async def test_header_name_and_prefix(controller: Any, httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(json={})
    bearer = AccessToken("abc", header="Authorization", prefix="Bearer ")
    await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(bearer))
    assert sent_tokens(httpx_mock, "authorization") == ["Bearer abc"]


def test_the_token_never_shows_in_reprs() -> None:
    auth = AccessToken("s3cret-token", refresh=lambda: "new")
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(auth)
    assert "s3cret" not in repr(auth)
    assert "s3cret" not in repr(endpoint)
    assert repr(auth) == "AccessToken(header='Access-Token', token=set, refresh=...)"


async def test_a_token_with_a_line_break_is_refused(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    auth = AccessToken("abc\r\nX-Injected: 1")
    with pytest.raises(ValueError, match="control character"):
        await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(auth))
    assert httpx_mock.get_requests() == []


async def test_a_401_refreshes_once_and_sends_again(
    controller: Any, httpx_mock: HTTPXMock, mode: str
) -> None:
    httpx_mock.add_response(status_code=401)
    httpx_mock.add_response(json={"id": "1"})
    calls: list[str] = []

    def refresh() -> str:
        calls.append("refresh")
        return "fresh"

    async def refresh_async() -> str:
        return refresh()

    auth = AccessToken("stale", refresh=refresh if mode == "sync" else refresh_async)
    value = await controller.fetch(RestEndpoint(url_prefix=API, path="/my/1").use(auth))
    assert value == {"id": "1"}
    assert calls == ["refresh"]
    assert sent_tokens(httpx_mock) == ["stale", "fresh"]
    assert auth.token == "fresh"


async def test_a_second_401_reaches_the_caller(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=401, is_reusable=True)
    auth = AccessToken("stale", refresh=lambda: "still-bad")
    with pytest.raises(NetworkError):
        await controller.fetch(RestEndpoint(url_prefix=API, path="/my/1").use(auth))
    assert sent_tokens(httpx_mock) == ["stale", "still-bad"]


@pytest.mark.parametrize("outcome", ["raises", "empty"])
async def test_a_failed_refresh_lets_the_401_through_and_logs_out(
    controller_factory: Any, httpx_mock: HTTPXMock, outcome: str
) -> None:
    httpx_mock.add_response(status_code=401)
    logged_out: list[Any] = []
    controller = controller_factory(
        managers=(LogoutManager(handle_logout=logged_out.append),)
    )

    def refresh() -> str | None:
        if outcome == "raises":
            raise RuntimeError("refresh endpoint down")
        return None

    auth = AccessToken("stale", refresh=refresh)
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(RestEndpoint(url_prefix=API, path="/my/1").use(auth))
    assert caught.value.status == 401
    assert len(logged_out) == 1
    assert len(httpx_mock.get_requests()) == 1


async def test_other_statuses_do_not_refresh(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=403)
    auth = AccessToken("t", refresh=lambda: pytest.fail("must not refresh"))
    with pytest.raises(NetworkError):
        await controller.fetch(RestEndpoint(url_prefix=API, path="/my/1").use(auth))


async def test_concurrent_401s_cause_one_refresh_async(httpx_mock: HTTPXMock) -> None:
    refreshes: list[int] = []

    async def answer(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(0.01)
        if request.headers.get("access-token") != "fresh":
            return httpx.Response(401)
        return httpx.Response(200, json={"path": request.url.path})

    async def refresh() -> str:
        refreshes.append(1)
        await anyio.sleep(0.02)
        return "fresh"

    httpx_mock.add_callback(answer, is_reusable=True)
    auth = AccessToken("stale", refresh=refresh)
    base = RestEndpoint(url_prefix=API).use(auth)
    results: list[Any] = []
    async with AsyncController() as controller:

        async def one(index: int) -> None:
            results.append(await controller.fetch(base.extend(path=f"/items/{index}")))

        async with anyio.create_task_group() as tasks:
            for index in range(20):
                tasks.start_soon(one, index)
    assert len(refreshes) == 1
    assert len(results) == 20


def test_concurrent_401s_cause_one_refresh_threads(httpx_mock: HTTPXMock) -> None:
    refreshes: list[int] = []
    barrier = threading.Barrier(10)

    def answer(request: httpx.Request) -> httpx.Response:
        if request.headers.get("access-token") != "fresh":
            return httpx.Response(401)
        return httpx.Response(200, json={})

    def refresh() -> str:
        refreshes.append(1)
        return "fresh"

    httpx_mock.add_callback(answer, is_reusable=True)
    auth = AccessToken("stale", refresh=refresh)
    base = RestEndpoint(url_prefix=API).use(auth)
    with Controller() as controller, ThreadPoolExecutor(10) as pool:

        def one(index: int) -> Any:
            barrier.wait()
            return controller.fetch(base.extend(path=f"/items/{index}"))

        assert len(list(pool.map(one, range(10)))) == 10
    assert len(refreshes) == 1


def test_an_async_refresh_under_a_sync_controller_says_so(
    httpx_mock: HTTPXMock, caplog: pytest.LogCaptureFixture
) -> None:
    httpx_mock.add_response(status_code=401)

    async def refresh() -> str:
        return "fresh"

    auth = AccessToken("stale", refresh=refresh)
    with Controller() as controller, pytest.raises(NetworkError) as caught:
        controller.fetch(RestEndpoint(url_prefix=API, path="/my/1").use(auth))
    assert isinstance(caught.value.__cause__, TypeError)
    assert "use AsyncController" in str(caught.value.__cause__)
    assert "token refresh failed (TypeError)" in caplog.text
