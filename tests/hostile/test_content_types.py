"""What a response's content type means, as real servers send it (found
against httpbin under gunicorn), under both drivers:

- an empty 2xx on a JSON endpoint (Flask's ``return "", 201`` says
  ``text/html``) is ``None``;
- a body labelled JSON that does not parse is blamed on the body, a body of
  another type on its content type;
- a content kind whose ``request_type`` is ``None`` sends no
  ``Content-Type`` on a call without a body, and a kind takes only the
  options it can change.
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import ContentError, JsonContent, RestEndpoint

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
