"""CookieCredentials: the mode reaches the exchange; bad modes are refused.

Hop-by-hop behaviour over real sockets is in test_credentials_across_redirects.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import RestEndpoint
from restwire.middlewares import CookieCredentials

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


@pytest.mark.parametrize(
    ("cookie_mode", "sent"),
    [("omit", None), ("same-origin", "s=1"), ("include", "s=1")],
)
async def test_the_mode_decides_the_cookie_header(
    controller_factory: Any, httpx_mock: HTTPXMock, cookie_mode: Any, sent: str | None
) -> None:
    controller = controller_factory(cookies={"s": "1"})
    httpx_mock.add_response(json={})
    await controller.fetch(
        RestEndpoint(url_prefix=API, path="/x").use(CookieCredentials(cookie_mode))
    )
    request = httpx_mock.get_request()
    assert request is not None
    assert request.headers.get("cookie") == sent


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="'same_origin'"):
        CookieCredentials("same_origin")  # type: ignore[arg-type]


def test_repr() -> None:
    assert repr(CookieCredentials("include")) == "CookieCredentials(mode='include')"
