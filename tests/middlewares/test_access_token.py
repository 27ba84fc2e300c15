"""AccessToken: the shared token holder, and refresh on 401."""

from __future__ import annotations

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
    Controller,
    Exchange,
    InvalidRequest,
    LogoutManager,
    NetworkError,
    RequestBodyError,
    RestEndpoint,
    SettingError,
)
from restwire.middlewares import AccessToken
from tests.conftest import fetch_together
from tests.waiting import HANG, until, wait_until

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


async def test_bearer_is_one_word(controller: Any, httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(status_code=401)
    httpx_mock.add_response(json={})
    bearer = AccessToken.bearer("abc", refresh=lambda: "def")
    await controller.fetch(RestEndpoint(url_prefix=API, path="/x").use(bearer))
    assert sent_tokens(httpx_mock, "authorization") == ["Bearer abc", "Bearer def"]
    assert sent_tokens(httpx_mock) == [None, None]  # no Access-Token besides


def test_the_token_never_shows_in_reprs() -> None:
    auth = AccessToken("s3cret-token", refresh=lambda: "new")
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(auth)
    assert "s3cret" not in repr(auth)
    assert "s3cret" not in repr(endpoint)
    assert repr(auth) == "AccessToken(header='Access-Token', token=set, refresh=...)"


async def test_a_token_with_a_line_break_is_refused(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    # refused where it is given (the token is a setting) ...
    with pytest.raises(SettingError, match="not printable ASCII") as refused:
        AccessToken("abc\r\nX-Injected: 1")
    assert "AccessToken(token=...)" in str(refused.value)
    assert "abc" not in str(refused.value)  # never shows the token

    # ... and where a middleware sets it as a call's credential
    class Injects:
        def on_request(self, exchange: Exchange) -> None:
            exchange.set_credential("Access-Token", "abc\r\nX-Injected: 1")

    endpoint = RestEndpoint(url_prefix=API, path="/x", middleware=[Injects()])
    with pytest.raises(InvalidRequest, match="control character") as caught:
        await controller.fetch(endpoint)
    assert "GET https://api.example.com/x" in str(caught.value)  # names the call
    assert "abc" not in str(caught.value)  # never shows the token
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
    assert "token refresh failed (UsageError)" in caplog.text


# -- one-shot bodies, failing refreshes, many event loops --------------------------


def one_shot_body(mode: str) -> Any:
    """A body that can be sent once: a generator (an async one under the
    async driver, as httpx.AsyncClient wants)."""
    if mode == "sync":
        return (chunk for chunk in (b"part one, ", b"part two"))

    async def chunks() -> Any:
        for chunk in (b"part one, ", b"part two"):
            yield chunk

    return chunks()


async def test_a_refresh_never_resends_a_consumed_body(
    controller: Any, mode: str, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=f"{API}/upload", status_code=401)
    refreshed: list[str] = []

    def refresh() -> str:
        refreshed.append("new")
        return "new"

    async def refresh_async() -> str:
        return refresh()

    auth = AccessToken("old", refresh=refresh if mode == "sync" else refresh_async)
    upload = RestEndpoint(url_prefix=API, path="/upload", method="POST").use(auth)
    with pytest.raises(RequestBodyError, match="one-shot") as caught:
        await controller.fetch(upload, body=one_shot_body(mode))
    assert f"POST {API}/upload" in str(caught.value)
    assert isinstance(caught.value.__cause__, NetworkError)
    assert refreshed == ["new"]
    assert auth.token == "new"  # the refresh stands for the calls that follow
    assert [request.content for request in httpx_mock.get_requests()] == [
        b"part one, part two"
    ]


async def test_a_refresh_that_gets_401_itself_ends_and_the_token_stays_usable(
    controller: Any, mode: str, httpx_mock: HTTPXMock
) -> None:
    """README's pattern: the refresh endpoint is built on the base that
    carries the AccessToken. When the refresh token has expired too, the
    refresh's own 401 must end the refresh, not wait for it."""

    def answer(request: httpx.Request) -> httpx.Response:
        if request.headers.get("access-token") == "good":
            return httpx.Response(200, json={"id": "1"})
        return httpx.Response(401)

    httpx_mock.add_callback(answer, is_reusable=True)
    auth = AccessToken("expired")
    base = RestEndpoint(url_prefix=API).use(auth)
    refresh_call = base.extend(path="/refresh", method="POST")

    def refresh() -> str:
        return str(controller.controller.fetch(refresh_call)["accessToken"])

    async def refresh_async() -> str:
        return str((await controller.fetch(refresh_call))["accessToken"])

    auth.refresh = refresh if mode == "sync" else refresh_async
    mine = base.extend(path="/my/1")
    with anyio.fail_after(HANG):
        if mode == "sync":
            with ThreadPoolExecutor(1) as pool:
                future = pool.submit(controller.controller.fetch, mine)
                with pytest.raises(NetworkError) as caught:
                    future.result(HANG)
        else:
            with pytest.raises(NetworkError) as caught:
                await controller.fetch(mine)
    assert caught.value.status == 401
    assert isinstance(caught.value.__cause__, NetworkError)  # the refresh's 401
    auth.token = "good"
    with anyio.fail_after(HANG):
        assert await controller.fetch(mine) == {"id": "1"}


def refreshing_api(httpx_mock: HTTPXMock) -> RestEndpoint:
    """An API whose tokens expire after one use: every call after the first
    is a 401, a refresh and a second send, through one shared AccessToken."""
    used: set[str] = set()
    issued = iter(range(1_000_000))
    lock = threading.Lock()

    def answer(request: httpx.Request) -> httpx.Response:
        token = request.headers.get("access-token", "")
        with lock:
            if token in used:
                return httpx.Response(401)
            used.add(token)
        return httpx.Response(200, json={"token": token})

    def refresh() -> str:
        with lock:
            return f"t{next(issued)}"

    httpx_mock.add_callback(answer, is_reusable=True)
    return RestEndpoint(url_prefix=API, path="/my/1").use(
        AccessToken("t-start", refresh=refresh)
    )


def test_one_access_token_serves_loops_one_after_another(
    httpx_mock: HTTPXMock,
) -> None:
    mine = refreshing_api(httpx_mock)

    async def twice() -> None:
        async with AsyncController() as controller:
            await controller.fetch(mine)
            await controller.fetch(mine)  # a 401, then a refresh in this loop

    anyio.run(twice, backend="asyncio")
    anyio.run(twice, backend="trio")
    anyio.run(twice, backend="asyncio")
    assert len(httpx_mock.get_requests()) == 11


def test_one_access_token_serves_threads_with_loops_and_sync_controllers(
    httpx_mock: HTTPXMock,
) -> None:
    """Two asyncio loops, a trio loop and a sync controller, each on its own
    thread, share one AccessToken while the server keeps expiring the
    current token (every 7th request): refreshes take one lock from all of
    them. None hangs or fails on the lock; a call fails only the documented
    way (a second 401, when the fresh token expired before its resend)."""
    current, issued = ["t0"], iter(range(1, 1_000_000))
    refreshes: list[str] = []
    served = 0
    lock = threading.Lock()

    def answer(request: httpx.Request) -> httpx.Response:
        nonlocal served
        with lock:
            if request.headers.get("access-token") != current[0]:
                return httpx.Response(401)
            served += 1
            if served % 7 == 0:
                current[0] = "expired"
        return httpx.Response(200, json={})

    def refresh() -> str:
        with lock:
            current[0] = f"t{next(issued)}"
            refreshes.append(threading.current_thread().name)
            return current[0]

    httpx_mock.add_callback(answer, is_reusable=True)
    mine = RestEndpoint(url_prefix=API, path="/my/1").use(
        AccessToken("t0", refresh=refresh)
    )
    outcomes: list[str] = []

    def record(call: Any) -> None:
        try:
            call()
            outcomes.append("ok")
        except NetworkError as error:
            outcomes.append(f"status {error.status}")
        except BaseException as error:
            outcomes.append(repr(error))

    async def many() -> None:
        async with AsyncController() as controller:
            for _ in range(25):
                await controller.fetch(mine)

    def sync_calls() -> None:
        with Controller() as controller:
            for _ in range(25):
                controller.fetch(mine)

    threads = [
        threading.Thread(target=record, args=(lambda: anyio.run(many),)),
        threading.Thread(target=record, args=(lambda: anyio.run(many),)),
        threading.Thread(
            target=record, args=(lambda: anyio.run(many, backend="trio"),)
        ),
        threading.Thread(target=record, args=(sync_calls,)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG)
    assert not any(thread.is_alive() for thread in threads), "a refresh hung"
    assert len(outcomes) == 4
    assert set(outcomes) <= {"ok", "status 401"}, outcomes
    assert len(refreshes) >= 3


# -- a failed refresh, once for all its waiters ----------------------------------------


async def test_a_failed_refresh_is_tried_once_for_all_its_waiters(
    controller: Any, mode: str, httpx_mock: HTTPXMock
) -> None:
    """Ten calls meet 401 together and the refresh fails: the nine that
    queued behind it get its failure (the 401, its error as the cause)
    without calling ``refresh`` again. A 401 after that round ended
    refreshes again."""
    httpx_mock.add_response(status_code=401, is_reusable=True)
    refreshes: list[RuntimeError] = []

    def failed() -> RuntimeError:
        refreshes.append(RuntimeError("refresh endpoint down"))
        return refreshes[-1]

    def all_refused() -> bool:
        return len(httpx_mock.get_requests()) >= 10

    def refresh() -> str:
        wait_until(all_refused)  # every other call's 401 has come
        time.sleep(0.2)  # and they are on their way to wait for this one
        raise failed()

    async def refresh_async() -> str:
        await until(all_refused)
        await anyio.sleep(0.2)
        raise failed()

    auth = AccessToken("stale", refresh=refresh if mode == "sync" else refresh_async)
    base = RestEndpoint(url_prefix=API).use(auth)
    endpoints = [base.extend(path=f"/items/{n}") for n in range(10)]
    with anyio.fail_after(HANG):
        outcomes = await fetch_together(controller, mode, endpoints)
    assert len(refreshes) == 1
    assert all(isinstance(each, NetworkError) for each in outcomes), outcomes
    assert {each.status for each in outcomes} == {401}
    assert all(each.__cause__ is refreshes[0] for each in outcomes)
    assert len(httpx_mock.get_requests()) == 10  # none sent again
    with pytest.raises(NetworkError) as later:
        await controller.fetch(base.extend(path="/later"))
    assert len(refreshes) == 2  # a new round: refreshed again
    assert later.value.__cause__ is refreshes[1]
