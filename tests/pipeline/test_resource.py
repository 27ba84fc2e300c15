"""resource() and hookify_resource()."""

from __future__ import annotations

import contextvars
import json
from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import Exchange, Invalidate, RestEndpoint, hookify_resource, resource
from restwire._resource import list_path
from tests.pipeline.entities import Post

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


class Tag:
    def on_request(self, exchange: Exchange) -> None:
        exchange.headers["x-tag"] = "shared"


@pytest.mark.parametrize(
    ("path", "items"),
    [
        ("/posts/:id", "/posts/"),
        ("/users/:user/posts/:id", "/users/:user/posts/"),
        ("/posts{/:id}", "/posts"),
        ("/:username/", "/"),
    ],
)
def test_list_path_drops_the_last_placeholder(path: str, items: str) -> None:
    assert list_path(path) == items


def test_a_resource_path_needs_an_item_placeholder() -> None:
    with pytest.raises(ValueError, match="no placeholder"):
        list_path("/posts/")


def test_members_methods_paths_and_schemas() -> None:
    base = RestEndpoint(url_prefix=API, middleware=[Tag()])
    posts = resource(
        path="/posts/:id", schema=Post, endpoint=base, data_expiry_length=5
    )
    members = {
        "get": ("GET", "/posts/:id", Post),
        "get_list": ("GET", "/posts/", [Post]),
        "create": ("POST", "/posts/", Post),
        "update": ("PUT", "/posts/:id", Post),
        "partial_update": ("PATCH", "/posts/:id", Post),
        "delete": ("DELETE", "/posts/:id", Invalidate(Post)),
    }
    for name, (method, path, schema) in members.items():
        endpoint = getattr(posts, name)
        assert (endpoint.method, endpoint.path, endpoint.schema) == (
            method,
            path,
            schema,
        )
        assert endpoint.url_prefix == API
        assert endpoint.middleware == base.middleware
        assert endpoint.data_expiry_length == 5
        assert endpoint.name == f"Post.{name}"


async def test_a_shared_stack_reaches_every_member(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"id": "1", "title": "t"}, is_reusable=True)
    posts = resource(
        path="/posts/:id",
        schema=Post,
        endpoint=RestEndpoint(url_prefix=API, middleware=[Tag()]),
    )
    await controller.fetch(posts.get, {"id": "1"})
    await controller.fetch(posts.create, body={"title": "t"})
    await controller.fetch(posts.update, {"id": "1"}, {"title": "t"})
    assert [r.headers["x-tag"] for r in httpx_mock.get_requests()] == ["shared"] * 3


async def test_create_then_get_the_seed_post(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    posts = resource(
        path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=API)
    )
    httpx_mock.add_response(
        method="POST", url=f"{API}/posts/", json={"id": "5", "title": "t"}
    )
    created = await controller.fetch(posts.create, body={"title": "t"})
    assert created == Post(id="5", title="t")
    assert controller.store.records[("Post", "5")] == created
    request = httpx_mock.get_request()
    assert request is not None
    assert json.loads(request.content) == {"title": "t"}


current_token: contextvars.ContextVar[str] = contextvars.ContextVar("current_token")


def use_init() -> dict[str, Any]:
    return {"headers": {"Access-Token": current_token.get()}}


async def test_hookified_members_take_the_init_at_call_time(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"id": "1"}, is_reusable=True)
    posts = hookify_resource(
        resource(path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=API)),
        use_init,
    )
    for user in ("ann", "bob"):
        token = current_token.set(f"token-of-{user}")
        try:
            get = posts.use_get()
        finally:
            current_token.reset(token)
        await controller.fetch(get, {"id": "1"})
    sent = [request.headers["access-token"] for request in httpx_mock.get_requests()]
    assert sent == ["token-of-ann", "token-of-bob"]
    assert "token-of" not in repr(get)


def test_every_hook_member_exists_and_merges_headers() -> None:
    base = RestEndpoint(url_prefix=API, headers={"X-Client": "restwire"})
    posts = hookify_resource(
        resource(path="/posts/:id", schema=Post, endpoint=base),
        lambda: {"headers": {"Access-Token": "t"}, "data_expiry_length": 0},
    )
    for name in ("get", "get_list", "create", "update", "partial_update", "delete"):
        endpoint = getattr(posts, f"use_{name}")()
        assert endpoint.headers == {"x-client": "restwire", "access-token": "t"}
        assert "access-token" in endpoint.sensitive_headers
        assert endpoint.data_expiry_length == 0


def test_a_hook_that_returns_no_mapping_is_refused() -> None:
    posts = hookify_resource(
        resource(path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=API)),
        lambda: "token",  # type: ignore[arg-type, return-value]
    )
    with pytest.raises(TypeError, match="must return a mapping"):
        posts.use_get()
