"""Controller and AsyncController: calls, errors, owned clients."""

from __future__ import annotations

import json
from typing import Any

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
    ParameterError,
    RequestBodyError,
    RestEndpoint,
    TransportError,
)

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
    assert str(error) == f"GET {API}/my/1: 422 Unprocessable Entity"
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
