"""The testing guide's tests on httpx2 (``docs/guides/testing.md`` shows
them verbatim): its own ``MockTransport``, and httpx2-pytest's fixture."""

from __future__ import annotations

import httpx2
from pytest_httpx2 import HTTPXMock as HTTPX2Mock

from restwire import Controller
from tests.recipes.test_testing_guide import API, Post, posts


def test_on_httpx2_with_its_mock_transport() -> None:
    def fake_api(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=[{"id": "1", "title": "Hi"}])

    client = httpx2.Client(transport=httpx2.MockTransport(fake_api))
    with Controller(client) as controller:
        assert controller.fetch(posts(API).get_list) == [Post(id="1", title="Hi")]
        response = controller.fetch_response(posts(API).get_list)
        assert isinstance(response, httpx2.Response)  # the client's library


def test_on_httpx2_with_httpx2_pytest(httpx2_mock: HTTPX2Mock) -> None:
    httpx2_mock.add_response(json={"id": "7", "title": "Hi"})
    with Controller(httpx2.Client()) as controller:
        created = controller.fetch(posts(API).create, body={"title": "Hi"})
    assert created.id == "7"
