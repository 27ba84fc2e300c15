"""Responses real servers send, found by running restwire against httpbin
under gunicorn: each a test under both drivers.

- an empty 2xx on a JSON endpoint (Flask's ``return "", 201`` says
  ``text/html``) is ``None``;
- a delete answered with a status body removes the record by the call's
  params;
- under ``paginate``, every page has the same shape, the last one too;
- with ``follow_redirects=False``, ``fetch_response`` returns the 3xx, and a
  followed chain lists its hops in ``response.history``;
- one URL read through two endpoints of different shape gives each its own
  value.
"""

from __future__ import annotations

import datetime
from typing import Any
from urllib.parse import quote

import anyio
import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    AsyncController,
    ContentError,
    EntityError,
    JsonContent,
    NetworkError,
    RestEndpoint,
    TransportError,
    resource,
)
from restwire.middlewares import LinkPagination, SnakeCaseKeys
from tests.conftest import collect
from tests.pipeline.entities import Post
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


@pytest.mark.parametrize(
    "content_type", ["text/html; charset=utf-8", None, "text/plain"]
)
async def test_an_empty_2xx_is_none_whatever_its_content_type(
    controller: Any, httpx_mock: HTTPXMock, content_type: str | None
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    httpx_mock.add_response(status_code=201, content=b"", headers=headers)
    created = RestEndpoint(url_prefix=API, path="/status/201", method="POST")
    assert await controller.fetch(created, body={}) is None


async def test_a_delete_with_a_status_body_removes_the_record_by_params(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    posts = resource(
        path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=API)
    )
    httpx_mock.add_response(method="GET", url=f"{API}/posts/1", json={"id": "1"})
    httpx_mock.add_response(method="GET", url=f"{API}/posts/", json=[{"id": "1"}])
    httpx_mock.add_response(method="DELETE", json={"deleted": True})
    assert await controller.get(posts.get, {"id": "1"}) == Post(id="1")
    assert await controller.get(posts.get_list) == [Post(id="1")]
    await controller.fetch(posts.delete, {"id": "1"})
    assert await controller.get(posts.get_list) == []
    assert ("Post", "1") not in controller.store.records


async def test_a_delete_that_names_no_record_anywhere_is_an_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    removal = RestEndpoint(
        url_prefix=API,
        path="/posts/current",
        method="DELETE",
        schema=resource(path="/posts/:id", schema=Post).delete.schema,
    )
    httpx_mock.add_response(json={"deleted": True})
    with pytest.raises(EntityError, match="no primary key") as caught:
        await controller.fetch(removal)
    assert f"DELETE {API}/posts/current" in str(caught.value)


async def test_every_page_has_the_same_shape_the_last_one_too(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """Pages are objects (``{"items": [...]}``); only the last one has no
    Link header, and it must come back wrapped like the others."""
    httpx_mock.add_response(
        url=f"{API}/items",
        json={"items": [1, 2]},
        headers={"link": f'<{API}/items?page=2>; rel="next"'},
    )
    httpx_mock.add_response(url=f"{API}/items?page=2", json={"items": [3]})
    listing = RestEndpoint(url_prefix=API, path="/items").use(LinkPagination())
    pages = await collect(controller.paginate(listing))
    assert [page["results"] for page in pages] == [{"items": [1, 2]}, {"items": [3]}]
    assert [page["link"] for page in pages] == [
        f'<{API}/items?page=2>; rel="next"',
        None,
    ]


async def test_fetch_response_returns_the_redirect_it_was_told_not_to_follow(
    controller: Any, origin_a: RecordingServer
) -> None:
    target = origin_a.url("/echo")
    endpoint = RestEndpoint(
        url_prefix=origin_a.origin,
        path=f"/redirect/302?to={quote(target, safe='')}".replace(":", "\\:"),
        follow_redirects=False,
    )
    response = await controller.fetch_response(endpoint)
    assert response.status_code == 302
    assert response.headers["location"] == target
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(endpoint)  # a value needs a 2xx
    assert caught.value.status == 302


async def test_a_followed_chain_lists_its_hops_in_history(
    controller: Any, origin_a: RecordingServer
) -> None:
    last = origin_a.url("/echo")
    middle = origin_a.url(f"/redirect/307?to={quote(last, safe='')}")
    endpoint = RestEndpoint(
        url_prefix=origin_a.origin,
        path=f"/redirect/302?to={quote(middle, safe='')}".replace(":", "\\:"),
    )
    response = await controller.fetch_response(endpoint)
    assert response.status_code == 200
    assert [hop.status_code for hop in response.history] == [302, 307]
    assert str(response.url) == last


raw = RestEndpoint(url_prefix=API, path="/posts/:id")
typed = RestEndpoint(url_prefix=API, path="/posts/:id", schema=Post).use(
    SnakeCaseKeys()
)


async def test_one_url_through_two_endpoints_gives_each_its_own_value(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"id": "1", "title": "T"}, is_reusable=True)
    assert await controller.fetch(raw, {"id": "1"}) == {"id": "1", "title": "T"}
    assert await controller.get(typed, {"id": "1"}) == Post(id="1", title="T")
    assert await controller.get(raw, {"id": "1"}) == {"id": "1", "title": "T"}


async def test_two_endpoints_in_flight_at_once_each_get_their_own_value(
    httpx_mock: HTTPXMock,
) -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(0.02)
        return httpx.Response(200, json={"id": "1", "title": "T"})

    httpx_mock.add_callback(slow, is_reusable=True)
    values: dict[str, Any] = {}
    async with AsyncController() as controller:

        async def read(name: str, endpoint: RestEndpoint) -> None:
            values[name] = await controller.fetch(endpoint, {"id": "1"})

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read, "raw", raw)
            tasks.start_soon(read, "typed", typed)
    assert values == {
        "raw": {"id": "1", "title": "T"},
        "typed": Post(id="1", title="T"),
    }


async def test_a_json_lines_body_blames_the_body_not_its_content_type(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        content=b'{"a": 1}\n{"a": 2}\n', headers={"content-type": "application/json"}
    )
    with pytest.raises(ContentError) as caught:
        await controller.fetch(RestEndpoint(url_prefix=API, path="/events"))
    message = str(caught.value)
    assert message.startswith(f"GET {API}/events: the body is not valid JSON")
    assert "Extra data" in message
    assert "content type is not" not in message
    assert "content-type 'application/json'" in message


async def test_a_wrong_content_type_is_named_as_the_problem(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        content=b"<html>hi</html>", headers={"content-type": "text/html"}
    )
    with pytest.raises(ContentError) as caught:
        await controller.fetch(RestEndpoint(url_prefix=API, path="/page"))
    assert str(caught.value).startswith(
        f"GET {API}/page: expected JSON, but the content type is 'text/html'"
    )


async def test_a_timeout_is_named_and_reads_the_same_under_both_drivers(
    controller_factory: Any, origin_a: RecordingServer
) -> None:
    controller = controller_factory(timeout=httpx.Timeout(5.0, read=0.05))
    slow = RestEndpoint(url_prefix=origin_a.origin, path="/slow")
    with pytest.raises(TransportError) as caught:
        await controller.fetch(slow, {"seconds": 0.3})
    assert str(caught.value) == (
        f"GET {origin_a.origin}/slow?seconds=0.3: ReadTimeout: nothing came for "
        "0.05 s (the read timeout)"
    )


@pytest.mark.parametrize("timeout", [0.05, httpx.Timeout(5.0, read=0.05)])
async def test_an_endpoint_sets_its_own_timeout(
    controller: Any, origin_a: RecordingServer, timeout: Any
) -> None:
    slow = RestEndpoint(url_prefix=origin_a.origin, path="/slow", timeout=timeout)
    with pytest.raises(TransportError) as caught:
        await controller.fetch(slow, {"seconds": 0.5})
    # the read timeout, as a rule; on a loaded machine a plain 0.05 (all
    # four timeouts) may run out while connecting: the endpoint's either way
    assert "0.05 s (the " in str(caught.value)
    if isinstance(timeout, httpx.Timeout):
        assert "nothing came for 0.05 s (the read timeout)" in str(caught.value)
    patient = slow.extend(timeout=datetime.timedelta(seconds=2))
    assert await controller.fetch(patient, {"seconds": 0.1}) == {}
    assert slow.extend(timeout=None).timeout is None  # back to the client's


@pytest.mark.parametrize("bad", [-1, 0, "5"])
def test_a_timeout_of_no_known_form_is_refused(bad: Any) -> None:
    with pytest.raises((TypeError, ValueError), match="timeout"):
        RestEndpoint(path="/x", timeout=bad)


async def test_json_without_a_content_type_on_bodiless_calls(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={}, is_reusable=True)
    quiet = RestEndpoint(
        url_prefix=API, path="/x", content=JsonContent(request_type=None)
    )
    await controller.fetch(quiet)
    await controller.fetch(quiet.extend(method="POST"), body={"a": 1})
    get, post = httpx_mock.get_requests()
    assert "content-type" not in get.headers
    assert get.headers["accept"] == "application/json"
    assert post.headers["content-type"] == "application/json"
    default = RestEndpoint(url_prefix=API, path="/x")
    await controller.fetch(default)
    assert httpx_mock.get_requests()[-1].headers["content-type"] == "application/json"


def test_a_content_kind_takes_only_what_it_can_change() -> None:
    with pytest.raises(TypeError, match="binary"):
        JsonContent(binary=True)  # type: ignore[arg-type]
