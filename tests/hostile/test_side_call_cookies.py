"""A middleware's side call shares no cookie between callers: the cookie a
token endpoint set while granting one user's token is not sent with
another user's grant. Under both drivers."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import RestEndpoint

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
TOKEN_URL = "https://auth.example.com/oauth/token"


def me(auth: Any) -> RestEndpoint[Any]:
    return RestEndpoint(url_prefix=API, path="/me").use(auth)


async def test_review_oauth2_password_token_request_carries_another_user_s_cookie(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A ``SideCall`` is sent on the controller's client with the client's
    cookie jar, and its response's ``Set-Cookie`` is stored there
    (``BaseController._side_call`` builds the exchange with
    ``self._client.cookies``; the terminal's first hop keeps cookies). With
    one ``OAuth2Password`` per user on one controller (the documented way
    to serve many users), the session cookie the token endpoint set while
    granting ann's token is sent with bob's password grant: a credential
    of one caller shared with another, to a server that may well key its
    session on it."""
    from restwire.middlewares import OAuth2Password

    httpx_mock.add_response(
        url=TOKEN_URL,
        json={"access_token": "ann-tok", "token_type": "Bearer"},
        headers={"set-cookie": "sid=ann-session; Path=/"},
    )
    httpx_mock.add_response(
        url=TOKEN_URL, json={"access_token": "bob-tok", "token_type": "Bearer"}
    )
    httpx_mock.add_response(url=f"{API}/me", json={}, is_reusable=True)
    ann = OAuth2Password(TOKEN_URL, "ann", "ann-pw", client_id="app")
    bob = OAuth2Password(TOKEN_URL, "bob", "bob-pw", client_id="app")
    await controller.fetch(me(ann))
    await controller.fetch(me(bob))
    grants = [r for r in httpx_mock.get_requests() if str(r.url) == TOKEN_URL]
    assert len(grants) == 2
    assert "ann-session" not in grants[1].headers.get("cookie", "")
