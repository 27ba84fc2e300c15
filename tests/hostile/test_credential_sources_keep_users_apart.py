"""Every source of a credential crossed with every path a response is
shared by, under both controllers: user B never receives user A's value,
and a single user still gets the hits each path promises.

Sources: a middleware header, the endpoint's ``headers=``, the client's
default headers and query params, a request event hook (with ``identity=`` naming the
caller; without it nothing is shared, checked apart), a custom
``httpx.Auth``, a cookie, the URL's userinfo, a query token, a header whose
name says nothing of a credential. Paths: calls in flight, ``get`` from the
store, the HTTP cache on SQLite and on Redis, a shared poller.

The "server" is a transport that answers whoever the request says it is
(its every header, cookie, userinfo and query), privately cacheable.
"""

from __future__ import annotations

import base64
import contextvars
import inspect
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from restwire import AsyncController, Controller, HttpCache, RestEndpoint
from restwire.middlewares import ContextToken
from tests.waiting import HANG

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
user: contextvars.ContextVar[str] = contextvars.ContextVar("user", default="ann")


def who(request: httpx.Request) -> str:
    """Whoever the request says it is, by every means the matrix uses."""
    signs = [
        request.headers.get("x-token"),
        request.headers.get("x-endpoint-user"),
        request.headers.get("x-client-user"),
        request.headers.get("x-hook-user"),
        request.headers.get("authorization"),
        request.headers.get("cookie"),
        request.headers.get("x-tenant"),
        request.url.params.get("access_token"),
    ]
    return "|".join(sign for sign in signs if sign)


@dataclass
class Server:
    """A transport answering ``who`` the caller is; counts the requests."""

    delay: float = 0.0
    seen: list[str] = field(default_factory=list)

    def answer(self, request: httpx.Request) -> httpx.Response:
        if self.delay:
            time.sleep(self.delay)
        caller = who(request)
        self.seen.append(caller)
        return httpx.Response(
            200,
            json={"who": caller},
            headers={"cache-control": "private, max-age=60"},
        )

    def transport(self, mode: str) -> httpx.MockTransport:
        if mode == "sync":
            return httpx.MockTransport(self.answer)

        async def answer(request: httpx.Request) -> httpx.Response:
            if self.delay:
                await anyio.sleep(self.delay)
            saved, self.delay = self.delay, 0.0
            try:
                return self.answer(request)
            finally:
                self.delay = saved

        return httpx.MockTransport(answer)


class ContextAuth(httpx.Auth):
    """Signs as whoever is current: one object for every user."""

    def auth_flow(self, request: httpx.Request) -> Any:
        request.headers["Authorization"] = f"Bearer {user.get()}"
        yield request


def hook(request: httpx.Request) -> None:
    request.headers["X-Hook-User"] = user.get()


async def async_hook(request: httpx.Request) -> None:
    hook(request)


@dataclass
class Source:
    """How one kind of credential reaches the wire."""

    name: str
    client: Callable[[str], dict[str, Any]] = lambda mode: {}
    endpoint: Callable[[RestEndpoint], RestEndpoint] = lambda base: base
    #: (endpoint, params, client) for the current user
    per_user: Callable[[RestEndpoint, Any], tuple[RestEndpoint, dict[str, Any]]] = (
        lambda endpoint, client: (endpoint, {})
    )
    identity: Callable[[], str] | None = None


def _userinfo(
    endpoint: RestEndpoint, client: Any
) -> tuple[RestEndpoint, dict[str, Any]]:
    return endpoint.extend(url_prefix=f"https://{user.get()}:pw@api.example.com"), {}


def _client_header(
    endpoint: RestEndpoint, client: Any
) -> tuple[RestEndpoint, dict[str, Any]]:
    client.headers["X-Client-User"] = user.get()
    return endpoint, {}


def _client_param(
    endpoint: RestEndpoint, client: Any
) -> tuple[RestEndpoint, dict[str, Any]]:
    client.params = {"access_token": user.get()}
    return endpoint, {}


def _cookie(endpoint: RestEndpoint, client: Any) -> tuple[RestEndpoint, dict[str, Any]]:
    client.cookies.set("session", user.get(), domain="api.example.com")
    return endpoint, {}


SOURCES = [
    Source(
        "middleware header",
        endpoint=lambda base: base.use(ContextToken(user, header="X-Token")),
    ),
    Source(
        "endpoint headers",
        per_user=lambda endpoint, client: (
            endpoint.extend(headers={"X-Endpoint-User": user.get()}),
            {},
        ),
    ),
    Source("client default header", per_user=_client_header),
    # (get() read the identity without the client's params: bob's get
    # returned ann's value)
    Source("client default query token", per_user=_client_param),
    Source(
        "event hook, caller named",
        client=lambda mode: {
            "event_hooks": {"request": [hook if mode == "sync" else async_hook]}
        },
        identity=lambda: user.get(),
    ),
    Source("custom httpx.Auth", client=lambda mode: {"auth": ContextAuth()}),
    Source("cookie", per_user=_cookie),
    Source("userinfo", per_user=_userinfo),
    Source(
        "query token",
        per_user=lambda endpoint, client: (endpoint, {"access_token": user.get()}),
    ),
    Source(
        "unlisted header name",
        per_user=lambda endpoint, client: (
            endpoint.extend(headers={"X-Tenant": user.get()}),
            {},
        ),
    ),
]

PATHS = ["in flight", "store", "cache sqlite", "cache redis", "poller"]


@contextmanager
def as_user(name: str) -> Iterator[None]:
    token = user.set(name)
    try:
        yield
    finally:
        user.reset(token)


class Kit:
    """One driver's controller for one source and path."""

    def __init__(
        self, mode: str, source: Source, path: str, cache: HttpCache | None
    ) -> None:
        self.mode = mode
        self.server = Server(delay=0.05 if path == "in flight" else 0.0)
        options = source.client(mode)
        kwargs: dict[str, Any] = {"cache": cache}
        if source.identity is not None:
            kwargs["identity"] = source.identity
        transport = self.server.transport(mode)
        if mode == "sync":
            self.controller: Any = Controller(
                httpx.Client(transport=transport, **options), **kwargs
            )
        else:
            self.controller = AsyncController(
                httpx.AsyncClient(transport=transport, **options), **kwargs
            )
        self.source = source
        # the store and cache paths keep a value; the others refetch
        expiry = 60 if path in ("store", "cache sqlite", "cache redis") else 0
        self.base = source.endpoint(
            RestEndpoint(url_prefix=API, path="/me", data_expiry_length=expiry)
        )

    def call(self) -> tuple[RestEndpoint, dict[str, Any]]:
        return self.source.per_user(self.base, self.controller.client)

    async def get(self) -> Any:
        endpoint, params = self.call()
        if self.mode == "sync":
            return await anyio.to_thread.run_sync(
                contextvars.copy_context().run, self.controller.get, endpoint, params
            )
        return await self.controller.get(endpoint, params)

    async def close(self) -> None:
        if self.mode == "sync":
            self.controller.close()
            self.controller.client.close()
        else:
            await self.controller.close()
            await self.controller.client.aclose()


@pytest.fixture
def cache_for(
    tmp_path: Path, request: pytest.FixtureRequest
) -> Callable[[str], HttpCache | None]:
    def make(path: str) -> HttpCache | None:
        if path == "cache sqlite":
            return HttpCache.sqlite(tmp_path / "cache.db")
        if path == "cache redis":
            return HttpCache.redis(request.getfixturevalue("redis_url"))
        return None

    return make


#: A client's default headers and its cookie jar are one state for every
#: caller of that client: two callers cannot send different ones at the same
#: time, so those sources meet the concurrent paths only one after the other
#: (the store and cache rows).
_ONE_CLIENT_STATE = {"client default header", "client default query token", "cookie"}
CELLS = [
    (source, path)
    for source in SOURCES
    for path in PATHS
    if not (source.name in _ONE_CLIENT_STATE and path in ("in flight", "poller"))
]


@pytest.mark.parametrize(
    ("source", "path"), CELLS, ids=[f"{source.name}-{path}" for source, path in CELLS]
)
async def test_b_never_gets_as_value_and_one_user_gets_hits(
    mode: str, source: Source, path: str, cache_for: Callable[[str], HttpCache | None]
) -> None:
    kit = Kit(mode, source, path, cache_for(path))
    try:
        values = await _run(kit, path)
    finally:
        await kit.close()
    ann, bob = values["ann"], values["bob"]
    assert _says(ann, "ann", source), (ann, kit.server.seen)
    assert _says(bob, "bob", source), (bob, kit.server.seen)
    if path in ("store", "cache sqlite", "cache redis"):
        # ann asked twice more: the store (or the cache) answered both
        assert kit.server.seen.count(kit.server.seen[0]) == 1, kit.server.seen
    if path == "in flight":
        assert values["twice"] == 1, kit.server.seen  # ann's two calls: one request


def _says(value: Any, name: str, source: Source) -> bool:
    """Whether the server's answer ``value`` was given to ``name`` alone."""
    text = value["who"]
    other = "bob" if name == "ann" else "ann"
    if source.name == "userinfo":
        sign = base64.b64encode(f"{name}:pw".encode()).decode()
        wrong = base64.b64encode(f"{other}:pw".encode()).decode()
        return sign in text and wrong not in text
    return name in text and other not in text


async def _run(kit: Kit, path: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if path == "in flight":
        results: dict[str, Any] = {}

        async def one(name: str, slot: str) -> None:
            with as_user(name):
                results[slot] = await kit.get()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(one, "ann", "ann")
            tasks.start_soon(one, "bob", "bob")
        values.update(results)
        before = len(kit.server.seen)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(one, "ann", "a1")
            tasks.start_soon(one, "ann", "a2")
        values["twice"] = len(kit.server.seen) - before
        return values
    if path == "poller":
        got: dict[str, list[Any]] = {"ann": [], "bob": []}
        if kit.mode == "sync":
            subscriptions = []
            for name in ("ann", "bob"):
                with as_user(name):
                    endpoint, params = kit.call()
                    subscriptions.append(
                        kit.controller.subscribe(
                            endpoint, params, got[name].append, frequency=60
                        )
                    )
            deadline = time.monotonic() + 5
            while not (got["ann"] and got["bob"]) and time.monotonic() < deadline:
                time.sleep(0.01)
            for subscription in subscriptions:
                subscription.cancel()
        else:
            async with kit.controller:
                for name in ("ann", "bob"):
                    with as_user(name):
                        endpoint, params = kit.call()
                        kit.controller.subscribe(
                            endpoint, params, got[name].append, frequency=60
                        )
                with anyio.fail_after(HANG):
                    while not (got["ann"] and got["bob"]):
                        await anyio.sleep(0.01)
        return {"ann": got["ann"][0], "bob": got["bob"][0]}
    for name in ("ann", "bob", "ann", "ann"):
        with as_user(name):
            value = await kit.get()
        values.setdefault(name, value)
        if kit.controller.store is not None and path.startswith("cache"):
            kit.controller.store.reset()  # only the HTTP cache can answer now
    return values


def test_a_hook_without_a_named_caller_shares_nothing() -> None:
    server = Server()
    client = httpx.Client(
        transport=server.transport("sync"), event_hooks={"request": [hook]}
    )
    endpoint = RestEndpoint(url_prefix=API, path="/me")
    with Controller(client) as controller:
        for name in ("ann", "bob", "ann"):
            with as_user(name):
                assert name in controller.get(endpoint)["who"]
    assert len(server.seen) == 3  # no store hit: restwire cannot see the hook


@pytest.mark.parametrize(
    "source",
    [source for source in SOURCES if source.name in _ONE_CLIENT_STATE],
    ids=lambda source: source.name,
)
async def test_a_value_one_user_set_is_never_another_s(
    mode: str, source: Source
) -> None:
    """``set`` keeps a value for its caller, as a fetch would: a user of
    the client's other credentials never gets it. (``set`` and ``get`` read
    the caller without the middleware chain, and left the client's default
    params out: bob's ``get`` returned what ann had set.)"""
    kit = Kit(mode, source, "store", None)
    try:
        with as_user("ann"):
            endpoint, params = kit.call()
            await _maybe_awaited(
                kit.controller.set(endpoint, {"who": "ann set"}, params)
            )
            assert (await kit.get()) == {"who": "ann set"}
        with as_user("bob"):
            value = await kit.get()
    finally:
        await kit.close()
    assert _says(value, "bob", source), (value, kit.server.seen)
    (asked,) = kit.server.seen  # (bob's get alone was sent)
    assert "bob" in asked


async def _maybe_awaited(result: Any) -> Any:
    return (await result) if inspect.isawaitable(result) else result
