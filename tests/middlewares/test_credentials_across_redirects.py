"""Which hop sees which credential, over real sockets, for every credential
middleware and cookie mode: redirect status x same or cross origin x driver.

Two servers on 127.0.0.1 are two origins. Each cell asserts, from what the
servers recorded, the credential on the first hop and on the second.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest

from restwire import Middleware, RestEndpoint
from restwire.middlewares import AccessToken, ContextToken, CookieCredentials, CsrfToken
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

REDIRECTS = [301, 302, 303, 307, 308]
token_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "matrix", default=None
)

# name -> (middleware, header the server sees, its value)
HEADER_CREDENTIALS: dict[str, tuple[Callable[[], Middleware], str, str]] = {
    "access-token": (lambda: AccessToken("tok-1"), "access-token", "tok-1"),
    "authorization": (
        lambda: AccessToken("jwt-2", header="Authorization", prefix="Bearer "),
        "authorization",
        "Bearer jwt-2",
    ),
    "context-token": (lambda: ContextToken(token_var), "access-token", "ctx-3"),
    "csrf": (lambda: CsrfToken(), "x-csrftoken", "csrf-4"),
}


def redirect_to(server: RecordingServer, status: int, target: str) -> str:
    return f"/redirect/{status}?to={quote(target, safe='')}"


PATTERNS = ["same-origin", "cross-origin", "cross-then-back"]


def target(
    pattern: str, first: RecordingServer, second: RecordingServer, status: int
) -> str:
    """Where the first hop redirects to, per hop pattern."""
    if pattern == "same-origin":
        return first.url("/echo")
    if pattern == "cross-origin":
        return second.url("/echo")
    return second.url(redirect_to(second, status, first.url("/echo")))


def hops(first: RecordingServer, second: RecordingServer, pattern: str) -> list[Any]:
    """The requests in the order the hops were made."""
    if pattern == "same-origin":
        return first.requests
    if pattern == "cross-origin":
        return first.requests + second.requests
    return [first.requests[0], second.requests[0], first.requests[1]]


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("status", REDIRECTS)
@pytest.mark.parametrize("credential", list(HEADER_CREDENTIALS))
async def test_header_credentials(
    controller_factory: Any,
    origin_a: RecordingServer,
    origin_b: RecordingServer,
    credential: str,
    status: int,
    pattern: str,
) -> None:
    make, header, value = HEADER_CREDENTIALS[credential]
    controller = controller_factory(cookies={"csrftoken": "csrf-4"})
    token_var.set("ctx-3")
    endpoint = RestEndpoint(
        url_prefix=origin_a.origin,
        path=redirect_to(origin_a, status, target(pattern, origin_a, origin_b, status)),
        method="POST",
    ).use(CookieCredentials("omit"), make())
    await controller.fetch(endpoint, body={"a": 1})
    seen = [
        request.headers.get(header) for request in hops(origin_a, origin_b, pattern)
    ]
    # the first hop, and only hops before the chain first leaves the origin
    expected = {
        "same-origin": [value, value],
        "cross-origin": [value, None],
        "cross-then-back": [value, None, None],
    }
    assert seen == expected[pattern]


COOKIE_EXPECTATIONS = {
    # mode -> pattern -> did each hop carry the cookie?
    "omit": {
        "same-origin": [False, False],
        "cross-origin": [False, False],
        "cross-then-back": [False, False, False],
    },
    "same-origin": {
        "same-origin": [True, True],
        "cross-origin": [True, False],
        "cross-then-back": [True, False, False],
    },
    "include": {
        "same-origin": [True, True],
        "cross-origin": [True, True],
        "cross-then-back": [True, True, True],
    },
}


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("status", REDIRECTS)
@pytest.mark.parametrize("cookie_mode", list(COOKIE_EXPECTATIONS))
async def test_cookie_modes(
    controller_factory: Any,
    origin_a: RecordingServer,
    origin_b: RecordingServer,
    cookie_mode: Any,
    status: int,
    pattern: str,
) -> None:
    controller = controller_factory(cookies={"session": "s-5"})
    endpoint = RestEndpoint(
        url_prefix=origin_a.origin,
        path=redirect_to(origin_a, status, target(pattern, origin_a, origin_b, status)),
    ).use(CookieCredentials(cookie_mode))
    await controller.fetch(endpoint)
    seen = [
        request.cookies == "session=s-5"
        for request in hops(origin_a, origin_b, pattern)
    ]
    assert seen == COOKIE_EXPECTATIONS[cookie_mode][pattern]


@pytest.mark.parametrize("cookie_mode", list(COOKIE_EXPECTATIONS))
async def test_cookies_set_on_the_way_are_stored_per_mode(
    controller: Any,
    origin_a: RecordingServer,
    origin_b: RecordingServer,
    cookie_mode: Any,
) -> None:
    endpoint = RestEndpoint(
        url_prefix=origin_a.origin,
        path=redirect_to(origin_a, 302, origin_b.url("/set-cookie?tracker=b")),
    ).use(CookieCredentials(cookie_mode))
    await controller.fetch(endpoint)
    stored = dict(controller.client.cookies)
    assert stored == ({"tracker": "b"} if cookie_mode == "include" else {})
