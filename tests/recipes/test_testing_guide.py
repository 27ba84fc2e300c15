"""How to test code that uses restwire: the docs' testing guide, run.

The code under test is a ``posts`` resource defined here as a project would
define it. The guide (``docs/guides/testing.md``) shows blocks of this file
and of ``test_testing_guide_httpx2.py`` verbatim (``tests/test_docs.py``
checks they are still here), so it cannot drift from what runs.
"""

from __future__ import annotations

import json

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    AsyncController,
    Controller,
    Entity,
    NetworkError,
    Resource,
    RestEndpoint,
    resource,
)

API = "https://api.example.com"


class Post(Entity):
    id: str = ""
    title: str = ""


def posts(base_url: str) -> Resource[Post]:
    """The code under test (in your project, imported from where it is)."""
    return resource(
        path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=base_url)
    )


# -- pytest-httpx ---------------------------------------------------------------
def test_create_then_list(httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(
        method="POST", url=f"{API}/posts/", json={"id": "7", "title": "Hi"}
    )
    httpx_mock.add_response(url=f"{API}/posts/", json=[{"id": "7", "title": "Hi"}])
    api = posts(API)
    with Controller() as controller:  # a fresh controller, so a fresh store
        created = controller.fetch(api.create, body={"title": "Hi"})
        assert created == Post(id="7", title="Hi")
        assert controller.get(api.get_list) == [created]
        assert controller.get(api.get_list) == [created]  # the store: no request
    assert len(httpx_mock.get_requests()) == 2
    sent = httpx_mock.get_request(method="POST")
    assert sent is not None
    assert json.loads(sent.content) == {"title": "Hi"}


@pytest.mark.anyio
async def test_create_awaited(httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(json={"id": "7", "title": "Hi"})
    async with AsyncController() as controller:
        created = await controller.fetch(posts(API).create, body={"title": "Hi"})
    assert created.title == "Hi"


def test_a_refusal_reads_as_a_network_error(httpx_mock: HTTPXMock) -> None:
    detail = [{"loc": ["title"], "msg": "field required"}]
    httpx_mock.add_response(status_code=422, json={"detail": detail})
    with Controller() as controller, pytest.raises(NetworkError) as caught:
        controller.fetch(posts(API).create, body={"title": ""})
    assert caught.value.status == 422
    assert caught.value.json()["detail"][0]["msg"] == "field required"


# -- httpx.MockTransport ---------------------------------------------------------
def test_with_a_mock_transport() -> None:
    stored: dict[str, dict[str, str]] = {}

    def fake_api(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            post = {**json.loads(request.content), "id": str(len(stored) + 1)}
            stored[post["id"]] = post
            return httpx.Response(201, json=post)
        return httpx.Response(200, json=list(stored.values()))

    client = httpx.Client(transport=httpx.MockTransport(fake_api))
    with Controller(client) as controller:
        api = posts(API)
        controller.fetch(api.create, body={"title": "a"})
        controller.fetch(api.create, body={"title": "b"})
        assert [post.title for post in controller.fetch(api.get_list)] == ["a", "b"]


# -- time: a clock the test moves ------------------------------------------------
def test_a_stored_value_expires(httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(json={"id": "1", "title": "Hi"}, is_reusable=True)
    now = [0.0]
    with Controller(clock=lambda: now[0]) as controller:
        controller.get(posts(API).get, {"id": "1"})
        controller.get(posts(API).get, {"id": "1"})  # fresh: from the store
        now[0] += 61  # past data_expiry_length (60 s)
        controller.get(posts(API).get, {"id": "1"})  # stale: fetched again
    assert len(httpx_mock.get_requests()) == 2
