"""One auth base shared by several resources, and a second API with another
stack in the same program (seed section 5, rule 3)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import Entity, RestEndpoint, resource
from restwire.middlewares import AccessToken, CookieCredentials, CsrfToken

pytestmark = pytest.mark.anyio

APP = "https://app.example.com"
PARTNER = "https://partner.example.org"


class Post(Entity):
    id: str = ""
    title: str = ""


class Comment(Entity):
    id: str = ""
    body: str = ""


class Invoice(Entity):
    id: str = ""
    total: str = "0"


app = RestEndpoint(url_prefix=APP).use(CookieCredentials("same-origin"), CsrfToken())
partner_auth = AccessToken("partner-key", header="Authorization", prefix="Bearer ")
partner = RestEndpoint(url_prefix=PARTNER).use(partner_auth)

posts = resource(path="/posts/:id", schema=Post, endpoint=app)
comments = resource(path="/comments/:id", schema=Comment, endpoint=app)
invoices = resource(path="/invoices/:id", schema=Invoice, endpoint=partner)


def answer(request: httpx.Request) -> httpx.Response:
    return httpx.Response(201 if request.method == "POST" else 200, json={"id": "1"})


async def test_each_api_gets_its_own_credentials_and_no_other(
    controller_factory: Any, httpx_mock: HTTPXMock
) -> None:
    controller = controller_factory()
    controller.client.cookies.set("sessionid", "sess", domain="app.example.com")
    controller.client.cookies.set("csrftoken", "csrf", domain="app.example.com")
    httpx_mock.add_callback(answer, is_reusable=True)
    await controller.fetch(posts.create, body={"title": "t"})
    await controller.fetch(comments.create, body={"body": "b"})
    await controller.fetch(invoices.create, body={"total": "9"})
    await controller.fetch(posts.get, {"id": "1"})
    sent = {
        (request.method, request.url.path): (
            request.headers.get("cookie"),
            request.headers.get("x-csrftoken"),
            request.headers.get("authorization"),
        )
        for request in httpx_mock.get_requests()
    }
    assert sent == {
        ("POST", "/posts/"): ("sessionid=sess; csrftoken=csrf", "csrf", None),
        ("POST", "/comments/"): ("sessionid=sess; csrftoken=csrf", "csrf", None),
        ("POST", "/invoices/"): (None, None, "Bearer partner-key"),
        ("GET", "/posts/1"): ("sessionid=sess; csrftoken=csrf", None, None),
    }


def test_every_member_shares_the_base_stack() -> None:
    for member in (posts.get, posts.delete, comments.update):
        assert member.middleware == app.middleware
    assert invoices.get.middleware == partner.middleware
