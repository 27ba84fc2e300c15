"""CsrfToken: the cookie's value in a header, on unsafe methods only."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import RestEndpoint
from restwire.middlewares import CookieCredentials, CsrfToken

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
base = RestEndpoint(url_prefix=API).use(CookieCredentials("same-origin"), CsrfToken())


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
async def test_unsafe_methods_carry_the_token(
    controller_factory: Any, httpx_mock: HTTPXMock, method: str
) -> None:
    controller = controller_factory(cookies={"csrftoken": "tok-1"})
    httpx_mock.add_response(json={})
    await controller.fetch(base.extend(path="/posts/1", method=method), body={"a": 1})
    request = httpx_mock.get_request()
    assert request is not None
    assert request.headers["x-csrftoken"] == "tok-1"


@pytest.mark.parametrize("method", ["GET", "HEAD", "OPTIONS", "TRACE"])
async def test_safe_methods_do_not(
    controller_factory: Any, httpx_mock: HTTPXMock, method: str
) -> None:
    controller = controller_factory(cookies={"csrftoken": "tok-1"})
    httpx_mock.add_response(json={} if method != "HEAD" else None)
    await controller.fetch_response(base.extend(path="/posts/1", method=method))
    request = httpx_mock.get_request()
    assert request is not None
    assert "x-csrftoken" not in request.headers


async def test_the_token_is_read_when_sent_so_rotation_at_login_is_seen(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        url=f"{API}/login",
        json={},
        headers={"set-cookie": "csrftoken=after-login; Path=/"},
    )
    httpx_mock.add_response(url=f"{API}/posts/", json={})
    controller.client.cookies.set("csrftoken", "before-login")
    await controller.fetch(base.extend(path="/login", method="POST"), body={})
    await controller.fetch(base.extend(path="/posts/", method="POST"), body={})
    first, second = httpx_mock.get_requests()
    assert first.headers["x-csrftoken"] == "before-login"
    assert second.headers["x-csrftoken"] == "after-login"


async def test_only_a_cookie_for_this_url_is_used(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    controller.client.cookies.set("csrftoken", "other-site", domain="other.example")
    httpx_mock.add_response(json={})
    await controller.fetch(base.extend(path="/posts/", method="POST"), body={})
    request = httpx_mock.get_request()
    assert request is not None
    assert "x-csrftoken" not in request.headers


async def test_custom_names(controller_factory: Any, httpx_mock: HTTPXMock) -> None:
    controller = controller_factory(cookies={"XSRF-TOKEN": "angular"})
    httpx_mock.add_response(json={})
    endpoint = RestEndpoint(url_prefix=API, path="/x", method="POST").use(
        CsrfToken(cookie="XSRF-TOKEN", header="X-XSRF-TOKEN")
    )
    await controller.fetch(endpoint, body={})
    request = httpx_mock.get_request()
    assert request is not None
    assert request.headers["x-xsrf-token"] == "angular"
