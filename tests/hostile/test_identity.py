"""One controller shared by many users: no user's data reaches another.

A response is shared, in flight or from the store, only between calls that
send the same credentials; entity records are kept apart the same way. Each
scenario runs on one ``AsyncController`` with tasks and on one ``Controller``
with threads, the way a server shares a controller between its users.
"""

from __future__ import annotations

import contextvars
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    AsyncController,
    Controller,
    Entity,
    NetworkError,
    RestEndpoint,
    hookify_resource,
    resource,
)
from restwire.middlewares import ContextToken
from tests.waiting import HANG

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
TOKENS = {f"token-{n}": f"user-{n}" for n in range(50)}
ANN, BOB = "token-0", "token-1"

current_token: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "current_token", default=None
)


class Profile(Entity):
    id: str = ""
    name: str = ""
    email: str = ""


base = RestEndpoint(url_prefix=API).use(ContextToken(current_token))
get_me = base.extend(path="/me")
get_profile = base.extend(path="/profiles/:id", schema=Profile)
list_profiles = base.extend(path="/profiles/", schema=[Profile])


def whose(request: httpx.Request) -> str | None:
    return TOKENS.get(request.headers.get("access-token", ""))


def answer(request: httpx.Request) -> httpx.Response:
    """The API: ``/me`` is the caller's own profile; ``/profiles/1`` shows its
    email to its owner only; the list never shows emails."""
    user = whose(request)
    if user is None:
        return httpx.Response(401, json={"detail": "who are you?"})
    path = request.url.path
    if path == "/me":
        return httpx.Response(200, json={"name": user, "secret": f"{user}'s secret"})
    if path == "/profiles/":
        return httpx.Response(200, json=[{"id": "1", "name": "user-0"}])
    email = "user-0@example.com" if user == "user-0" else ""
    return httpx.Response(200, json={"id": "1", "name": "user-0", "email": email})


async def slow_async(request: httpx.Request) -> httpx.Response:
    await anyio.sleep(0.05)
    return answer(request)


def slow_sync(request: httpx.Request) -> httpx.Response:
    time.sleep(0.05)
    return answer(request)


def in_context(token: str | None, call: Callable[[], Any]) -> Any:
    """``call()`` in a context whose token is ``token`` (a thread's own)."""
    context = contextvars.copy_context()
    context.run(current_token.set, token)
    return context.run(call)


async def outcome_async(controller: AsyncController, token: str | None) -> Any:
    current_token.set(token)  # this task's context only
    try:
        return await controller.fetch(get_me)
    except NetworkError as error:
        return error.status


def outcome_sync(controller: Controller, token: str | None) -> Any:
    try:
        return in_context(token, lambda: controller.fetch(get_me))
    except NetworkError as error:
        return error.status


# -- in flight -------------------------------------------------------------------


async def test_a_forged_token_never_gets_the_response_in_flight_async(
    httpx_mock: HTTPXMock,
) -> None:
    httpx_mock.add_callback(slow_async, is_reusable=True)
    outcomes: dict[str, Any] = {}
    async with AsyncController() as controller:

        async def call(name: str, token: str | None) -> None:
            outcomes[name] = await outcome_async(controller, token)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(call, "ann", ANN)
            tasks.start_soon(call, "forger", "forged")
            tasks.start_soon(call, "nobody", None)
    assert outcomes == {
        "ann": {"name": "user-0", "secret": "user-0's secret"},
        "forger": 401,
        "nobody": 401,
    }


def test_a_forged_token_never_gets_the_response_in_flight_threads(
    httpx_mock: HTTPXMock,
) -> None:
    httpx_mock.add_callback(slow_sync, is_reusable=True)
    with Controller() as controller, ThreadPoolExecutor(3) as pool:
        futures = {
            name: pool.submit(outcome_sync, controller, token)
            for name, token in (("ann", ANN), ("forger", "forged"), ("nobody", None))
        }
        outcomes = {name: future.result(HANG) for name, future in futures.items()}
    assert outcomes == {
        "ann": {"name": "user-0", "secret": "user-0's secret"},
        "forger": 401,
        "nobody": 401,
    }


# -- from the store ----------------------------------------------------------------


async def test_a_stored_response_goes_only_to_the_same_credentials(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_callback(answer, is_reusable=True)

    async def get_as(token: str | None) -> Any:
        current_token.set(token)
        try:
            return await controller.get(get_me)
        except NetworkError as error:
            return error.status

    assert (await get_as(ANN))["name"] == "user-0"
    assert await get_as(None) == 401
    assert await get_as("forged") == 401
    assert (await get_as(BOB))["name"] == "user-1"
    before = len(httpx_mock.get_requests())
    assert (await get_as(ANN))["name"] == "user-0"  # from the store
    assert (await get_as(BOB))["name"] == "user-1"  # from the store
    assert len(httpx_mock.get_requests()) == before


async def test_hookified_per_call_headers_keep_users_apart(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_callback(answer, is_reusable=True)
    profiles = resource(
        path="/profiles/:id", schema=Profile, endpoint=RestEndpoint(url_prefix=API)
    )
    hooked = hookify_resource(
        profiles, lambda: {"headers": {"Access-Token": current_token.get() or ""}}
    )
    current_token.set(ANN)
    mine = await controller.get(hooked.use_get(), {"id": "1"})
    current_token.set(BOB)
    theirs = await controller.get(hooked.use_get(), {"id": "1"})
    assert mine.email == "user-0@example.com"
    assert theirs.email == ""
    assert len(httpx_mock.get_requests()) == 2


async def test_one_users_version_of_a_record_never_shows_in_anothers_result(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """Ann's own profile has her email; Bob's list of profiles does not carry
    emails, so merging his list into Ann's record would show him her email."""
    httpx_mock.add_callback(answer, is_reusable=True)
    current_token.set(ANN)
    assert (await controller.get(get_profile, {"id": "1"})).email == (
        "user-0@example.com"
    )
    current_token.set(BOB)
    (listed,) = await controller.get(list_profiles)
    assert listed.email == ""
    assert (await controller.get(get_profile, {"id": "1"})).email == ""
    current_token.set(ANN)
    (listed,) = await controller.get(list_profiles)
    assert listed.email == "user-0@example.com"  # her own list reads her record


async def test_pollers_of_different_users_are_not_shared(
    httpx_mock: HTTPXMock,
) -> None:
    httpx_mock.add_callback(answer, is_reusable=True)
    seen: dict[str, list[Any]] = {"ann": [], "bob": []}
    polled = get_me.extend(poll_frequency=0.05)
    async with AsyncController() as controller:
        current_token.set(ANN)
        ann = controller.subscribe(polled, None, seen["ann"].append)
        current_token.set(BOB)
        bob = controller.subscribe(polled, None, seen["bob"].append)
        with anyio.fail_after(HANG):
            while not (seen["ann"] and seen["bob"]):
                await anyio.sleep(0.01)
        ann.cancel()
        bob.cancel()
    assert {value["name"] for value in seen["ann"]} == {"user-0"}
    assert {value["name"] for value in seen["bob"]} == {"user-1"}


# -- many users at once --------------------------------------------------------------

USERS = list(TOKENS)
PATHS = ["/me", "/profiles/1"]


def expected(token: str, path: str) -> Any:
    user = TOKENS[token]
    if path == "/me":
        return user
    return "user-0@example.com" if user == "user-0" else ""


def read(value: Any, path: str) -> Any:
    return value["name"] if path == "/me" else value.email


def endpoint_for(path: str) -> RestEndpoint:
    return get_me if path == "/me" else get_profile


async def test_fifty_users_a_thousand_tasks_no_value_to_the_wrong_user(
    httpx_mock: HTTPXMock,
) -> None:
    async def jittery(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(random.random() * 0.01)
        return answer(request)

    httpx_mock.add_callback(jittery, is_reusable=True)
    wrong: list[tuple[str, str, Any]] = []
    done = 0
    async with AsyncController() as controller:

        async def one(index: int) -> None:
            nonlocal done
            token = USERS[index % len(USERS)]
            path = PATHS[index % 2]
            current_token.set(token)
            get = controller.get if index % 3 else controller.fetch
            value = await get(endpoint_for(path), {"id": "1"})
            if read(value, path) != expected(token, path):
                wrong.append((token, path, value))
            done += 1

        async with anyio.create_task_group() as tasks:
            for index in range(1000):
                tasks.start_soon(one, index)
    assert done == 1000
    assert wrong == []
    assert len(httpx_mock.get_requests()) <= 1000


def test_fifty_users_on_threads_no_value_to_the_wrong_user(
    httpx_mock: HTTPXMock,
) -> None:
    def jittery(request: httpx.Request) -> httpx.Response:
        time.sleep(random.random() * 0.002)
        return answer(request)

    httpx_mock.add_callback(jittery, is_reusable=True)
    wrong: list[tuple[str, str, Any]] = []
    lock = threading.Lock()
    with Controller() as controller:

        def one(index: int) -> None:
            token = USERS[index % len(USERS)]
            path = PATHS[index % 2]
            get = controller.get if index % 3 else controller.fetch
            value = in_context(token, lambda: get(endpoint_for(path), {"id": "1"}))
            if read(value, path) != expected(token, path):
                with lock:
                    wrong.append((token, path, value))

        with ThreadPoolExecutor(32) as pool:
            list(pool.map(one, range(1000)))
    assert wrong == []


current_tenant: contextvars.ContextVar[str] = contextvars.ContextVar("tenant")


class TenantHost:
    """Routes each call to its tenant's host: no credential involved."""

    def on_request(self, exchange: Any) -> None:
        host = f"{current_tenant.get()}.api.example.com"
        exchange.url = exchange.url.copy_with(host=host)


async def test_a_middleware_that_rewrites_the_url_keys_the_call_by_it(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_callback(
        lambda request: httpx.Response(200, json={"tenant": request.url.host}),
        is_reusable=True,
    )
    settings = RestEndpoint(url_prefix=API, path="/settings").use(TenantHost())
    current_tenant.set("acme")
    assert (await controller.get(settings))["tenant"] == "acme.api.example.com"
    current_tenant.set("globex")
    assert (await controller.get(settings))["tenant"] == "globex.api.example.com"
    current_tenant.set("acme")
    assert (await controller.get(settings))["tenant"] == "acme.api.example.com"
    assert len(httpx_mock.get_requests()) == 2
