"""A host that is not a valid internationalized name (``xn--a.com``: its
punycode decodes to a control character) in a URL restwire is given or
told to follow: an endpoint's prefix, a redirect's ``Location``, a next
page's link, an origin ``cross_origin`` names. httpx decodes such a host
only when it is read, and the ``idna`` package's error surfaced from deep
inside the call; each is now restwire's error naming the call, under both
drivers, and nothing is sent to that host."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import InvalidRequest, RestEndpoint, SettingError, TransportError
from restwire.middlewares import LinkPagination
from tests.conftest import collect

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
BAD = "https://xn--a.com"


async def test_an_endpoint_on_such_a_host_is_refused_before_sending(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    with pytest.raises(InvalidRequest) as caught:
        await controller.fetch(RestEndpoint(url_prefix=BAD, path="/items"))
    assert str(caught.value).startswith(f"GET {BAD}/items: invalid URL")
    assert "Invalid IDNA hostname" in str(caught.value)
    assert httpx_mock.get_requests() == []


async def test_a_redirect_to_such_a_host_is_a_transport_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        url=f"{API}/r", status_code=302, headers={"Location": f"{BAD}/p"}
    )
    with pytest.raises(TransportError) as caught:
        await controller.fetch(RestEndpoint(url_prefix=API, path="/r"))
    assert str(caught.value).startswith(f"GET {API}/r: ")
    assert "Invalid URL in location header" in str(caught.value)
    assert len(httpx_mock.get_requests()) == 1


async def test_a_next_page_on_such_a_host_is_refused(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        url=f"{API}/items", json=[1], headers={"Link": f'<{BAD}/p2>; rel="next"'}
    )
    endpoint = RestEndpoint(url_prefix=API, path="/items").use(LinkPagination())
    with pytest.raises(InvalidRequest) as caught:
        await collect(controller.paginate(endpoint, cross_origin=True))
    assert str(caught.value).startswith(
        f"GET {API}/items: next link '{BAD}/p2' is not a URL that can be followed"
    )
    assert len(httpx_mock.get_requests()) == 1


async def test_such_an_origin_named_for_pages_is_refused(controller: Any) -> None:
    endpoint = RestEndpoint(url_prefix=API, path="/items").use(LinkPagination())
    with pytest.raises(SettingError) as caught:
        await collect(controller.paginate(endpoint, cross_origin={BAD: ()}))
    assert f"names '{BAD}', which is not an origin" in str(caught.value)


async def test_a_valid_internationalized_host_is_still_sent(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url="https://xn--bcher-kva.example/items", json={"ok": 1})
    endpoint = RestEndpoint(url_prefix="https://bücher.example", path="/items")
    assert await controller.fetch(endpoint) == {"ok": 1}
    assert httpx.URL(str(httpx_mock.get_requests()[0].url)).host == "bücher.example"
