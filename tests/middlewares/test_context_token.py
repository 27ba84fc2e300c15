"""ContextToken: each request sends the token of the context it runs in."""

from __future__ import annotations

import contextvars
import threading
from typing import Any

import anyio
import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import AsyncController, Controller, RestEndpoint
from restwire.middlewares import ContextToken

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
token_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "token", default=None
)
endpoint = RestEndpoint(url_prefix=API, path="/my/:id").use(ContextToken(token_var))


def echo_token(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"token": request.headers.get("access-token")})


async def test_no_token_in_context_sends_none(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_callback(echo_token)
    assert await controller.fetch(endpoint, {"id": 1}) == {"token": None}


async def test_tasks_send_their_own_tokens(httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_callback(echo_token, is_reusable=True)
    seen: dict[str, Any] = {}
    async with AsyncController() as controller:

        async def as_user(user: str) -> None:
            token_var.set(f"token-{user}")
            await anyio.sleep(0)
            seen[user] = await controller.fetch(endpoint, {"id": user})

        async with anyio.create_task_group() as tasks:
            for user in ("ann", "bob", "cy"):
                tasks.start_soon(as_user, user)
    assert seen == {user: {"token": f"token-{user}"} for user in ("ann", "bob", "cy")}


def test_threads_send_their_own_tokens(httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_callback(echo_token, is_reusable=True)
    seen: dict[str, Any] = {}
    with Controller() as controller:

        def as_user(user: str) -> None:
            token_var.set(f"token-{user}")
            seen[user] = controller.fetch(endpoint, {"id": user})

        threads = [threading.Thread(target=as_user, args=(u,)) for u in ("ann", "bob")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert seen == {user: {"token": f"token-{user}"} for user in ("ann", "bob")}


def test_repr_names_the_variable_not_its_value() -> None:
    was = token_var.set("s3cret")
    try:
        assert (
            repr(ContextToken(token_var))
            == "ContextToken('token', header='Access-Token')"
        )
    finally:  # the tests after this one, on this thread, see no token
        token_var.reset(was)
