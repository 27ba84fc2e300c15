"""A caller's wrong input: a typed RestwireError naming the endpoint or URL,
raised before anything is sent wherever it can be known then; or a safe
result. Never a TypeError from inside httpx, never a socket left open."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from multidict import MultiDict
from pytest_httpx import HTTPXMock

from restwire import (
    Entity,
    ParameterError,
    RequestBodyError,
    RestEndpoint,
)

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
upload = RestEndpoint(url_prefix=API, path="/upload", method="POST")


async def test_an_iterator_body_yielding_text_is_a_request_body_error(
    controller: Any, mode: str, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(is_optional=True)
    if mode == "sync":
        body: Any = (part for part in (b"bytes, ", "then text"))
    else:

        async def parts() -> Any:
            yield b"bytes, "
            yield "then text"

        body = parts()
    with pytest.raises(RequestBodyError, match="yielded a str") as caught:
        await controller.fetch(upload, body=body)
    assert f"POST {API}/upload" in str(caught.value)


async def test_a_body_for_the_other_driver_is_refused_before_sending(
    controller: Any, mode: str, httpx_mock: HTTPXMock
) -> None:
    if mode == "sync":

        async def parts() -> Any:
            yield b"x"

        body: Any = parts()
        expected = "an async iterator body needs AsyncController"
    else:
        body = iter([b"x"])
        expected = "a sync iterator body needs Controller"
    with pytest.raises(RequestBodyError, match=expected) as caught:
        await controller.fetch(upload, body=body)
    assert f"POST {API}/upload" in str(caught.value)
    assert httpx_mock.get_requests() == []
    if mode == "sync":
        await body.aclose()


async def test_params_as_pairs_are_taken_like_httpx_takes_them(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=[])
    search = RestEndpoint(url_prefix=API, path="/items/:kind")
    await controller.fetch(search, [("kind", "book"), ("tag", "a"), ("tag", "b")])
    request = httpx_mock.get_request()
    assert request is not None
    assert str(request.url) == f"{API}/items/book?tag=a&tag=b"


@pytest.mark.parametrize("params", ["id=1", 7, [("id",)], [1, 2]])
async def test_params_of_no_known_form_are_a_parameter_error(
    controller: Any, httpx_mock: HTTPXMock, params: Any
) -> None:
    with pytest.raises(ParameterError, match="params must be"):
        await controller.fetch(RestEndpoint(url_prefix=API, path="/items"), params)
    assert httpx_mock.get_requests() == []


async def test_httpx_query_params_keep_every_value(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=[])
    params = httpx.QueryParams([("tag", "a"), ("tag", "b")])
    await controller.fetch(RestEndpoint(url_prefix=API, path="/items"), params)
    request = httpx_mock.get_request()
    assert request is not None
    assert request.url.query == b"tag=a&tag=b"


async def test_a_bytes_path_param_is_a_parameter_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    with pytest.raises(ParameterError, match="'id' is bytes"):
        await controller.fetch(
            RestEndpoint(url_prefix=API, path="/items/:id"), {"id": b"abc"}
        )
    assert httpx_mock.get_requests() == []


@pytest.mark.parametrize(
    "schema", [123, "Post", [int, str], [], {"results": [1, 2]}, Entity, print]
)
def test_a_schema_that_is_not_one_is_refused_when_the_endpoint_is_made(
    schema: Any,
) -> None:
    with pytest.raises(TypeError, match="not a schema"):
        RestEndpoint(url_prefix=API, path="/posts/", method="POST", schema=schema)


def test_a_multidict_is_still_accepted() -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/items")
    assert endpoint.url(MultiDict([("a", "1"), ("a", "2")])) == f"{API}/items?a=1&a=2"


@pytest.mark.parametrize("where", ["path", "query"])
async def test_an_object_with_no_text_form_is_a_parameter_error(
    controller: Any, httpx_mock: HTTPXMock, where: str
) -> None:
    """``object()`` used to reach the URL as ``<object object at 0x...>``."""
    params = {"id": "1", "q": object()} if where == "query" else {"id": object()}
    name = "q" if where == "query" else "id"
    with pytest.raises(ParameterError, match=f"'{name}' is a object with no text form"):
        await controller.fetch(RestEndpoint(url_prefix=API, path="/items/:id"), params)
    assert httpx_mock.get_requests() == []


class Cursor:
    """A value with a text form of its own is welcome."""

    def __str__(self) -> str:
        return "c-7"


def test_a_value_with_its_own_text_form_is_taken() -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/items/:id")
    assert endpoint.url({"id": Cursor(), "after": Cursor()}) == (
        f"{API}/items/c-7?after=c-7"
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"method": None}, "method must be an HTTP method name"),
        ({"method": "GET /x"}, "method must be an HTTP method name"),
        ({"method": 3}, "method must be an HTTP method name"),
        ({"max_redirects": "3"}, "max_redirects must be int"),
        ({"max_redirects": True}, "max_redirects must be int"),
        ({"max_redirects": -1}, "max_redirects must not be negative"),
        ({"max_body_size": "1MB"}, "max_body_size must be int or None"),
        ({"follow_redirects": "no"}, "follow_redirects must be bool"),
        ({"path": 5}, "path must be str"),
    ],
)
def test_a_wrong_option_is_refused_where_the_endpoint_is_written(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises((TypeError, ValueError), match=message):
        RestEndpoint(url_prefix=API, **options)


def test_a_method_is_taken_in_any_case() -> None:
    assert RestEndpoint(url_prefix=API, method="patch").method == "PATCH"
