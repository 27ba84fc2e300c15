"""Redirects over real sockets: two servers on 127.0.0.1 are two origins.

Every test runs under both drivers. Each asserts which hop saw which
credential, from what the servers recorded.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from restwire import (
    Exchange,
    InvalidRequest,
    NetworkError,
    RequestBodyError,
    RestEndpoint,
    TooManyRedirects,
)
from restwire._base.library import LIBRARIES
from restwire._controller.sender import _REDIRECT_STATUSES
from restwire._wire.adapter import cookie_for
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

REDIRECTS = [301, 302, 303, 307, 308]


class SensitiveHeaders:
    """Sets an Access-Token and a trace header; marks only the token sensitive."""

    def on_request(self, exchange: Exchange) -> None:
        exchange.headers["Access-Token"] = "tok-123"
        exchange.headers["Authorization"] = "Bearer auth-456"
        exchange.headers["X-Trace"] = "trace-1"
        exchange.mark_sensitive("Access-Token")


class Mode:
    def __init__(self, mode: Any) -> None:
        self.mode = mode

    def on_request(self, exchange: Exchange) -> None:
        exchange.credentials = self.mode


def redirect(server: RecordingServer, status: int, to: str) -> str:
    return f"/redirect/{status}?to={quote(to, safe='')}"


def endpoint(server: RecordingServer, path: str, **options: Any) -> RestEndpoint:
    return RestEndpoint(
        url_prefix=server.origin, path=path.replace(":", "\\:"), **options
    ).use(SensitiveHeaders())


CREDENTIALS = ("access-token", "authorization", "cookie")


def credentials_seen(server: RecordingServer) -> list[set[str]]:
    return [
        {name for name in CREDENTIALS if name in request.headers}
        for request in server.requests
    ]


@pytest.mark.parametrize("status", REDIRECTS)
async def test_same_origin_redirect_keeps_every_credential(
    controller_factory: Any, origin_a: RecordingServer, status: int
) -> None:
    controller = controller_factory(cookies={"session": "s3"})
    call = endpoint(origin_a, redirect(origin_a, status, origin_a.url("/echo")))
    value = await controller.fetch(call)
    assert value["path"] == "/echo"
    assert credentials_seen(origin_a) == [set(CREDENTIALS), set(CREDENTIALS)]
    assert origin_a.requests[1].headers["x-trace"] == "trace-1"


@pytest.mark.parametrize("status", REDIRECTS)
async def test_cross_origin_redirect_drops_every_credential(
    controller_factory: Any,
    origin_a: RecordingServer,
    origin_b: RecordingServer,
    status: int,
) -> None:
    controller = controller_factory(cookies={"session": "s3"}, auth=("user", "pw"))
    call = endpoint(origin_a, redirect(origin_a, status, origin_b.url("/echo")))
    await controller.fetch(call)
    assert credentials_seen(origin_a) == [set(CREDENTIALS)]
    assert credentials_seen(origin_b) == [set()]
    # deny by default: a header not known to say nothing of the caller
    # stays home too; the public ones travel on
    assert origin_a.requests[0].headers["x-trace"] == "trace-1"
    assert "x-trace" not in origin_b.requests[0].headers
    assert origin_b.requests[0].headers["accept"] == "application/json"


@pytest.mark.parametrize("status", REDIRECTS)
async def test_once_the_origin_is_left_credentials_stay_off_even_back_home(
    controller_factory: Any,
    origin_a: RecordingServer,
    origin_b: RecordingServer,
    status: int,
) -> None:
    controller = controller_factory(cookies={"session": "s3"}, auth=("user", "pw"))
    back_home = origin_b.url(redirect(origin_b, status, origin_a.url("/echo")))
    await controller.fetch(endpoint(origin_a, redirect(origin_a, status, back_home)))
    assert credentials_seen(origin_a) == [set(CREDENTIALS), set()]
    assert credentials_seen(origin_b) == [set()]


async def test_bare_httpx_would_leak_the_custom_header(
    origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    # The reason restwire scopes hops itself: httpx forwards custom headers
    # and domain-less jar cookies across origins.
    with httpx.Client(cookies={"session": "s3"}, follow_redirects=True) as client:
        client.get(
            origin_a.url(redirect(origin_a, 302, origin_b.url("/echo"))),
            headers={"Access-Token": "tok-123"},
        )
    assert credentials_seen(origin_b) == [{"access-token", "cookie"}]


@pytest.mark.parametrize(
    ("status", "method", "body_kept"),
    [
        (301, "GET", False),
        (302, "GET", False),
        (303, "GET", False),
        (307, "POST", True),
        (308, "POST", True),
    ],
)
async def test_redirect_method_and_body_rules(
    controller: Any,
    origin_a: RecordingServer,
    status: int,
    method: str,
    body_kept: bool,
) -> None:
    call = RestEndpoint(
        url_prefix=origin_a.origin,
        path=redirect(origin_a, status, origin_a.url("/echo")),
        method="POST",
    )
    value = await controller.fetch(call, body={"title": "t"})
    assert value["method"] == method
    assert json.loads(value["body"] or "null") == (
        {"title": "t"} if body_kept else None
    )
    second = origin_a.requests[1]
    assert ("content-length" in second.headers) == body_kept


async def test_a_one_shot_body_cannot_be_replayed_on_307(
    controller_factory: Any, origin_a: RecordingServer, mode: str
) -> None:
    controller = controller_factory()
    call = RestEndpoint(
        url_prefix=origin_a.origin,
        path=redirect(origin_a, 307, origin_a.url("/echo")),
        method="POST",
    )

    def chunks() -> Any:
        yield b"one-"
        yield b"shot"

    async def achunks() -> Any:
        yield b"one-"
        yield b"shot"

    with pytest.raises(RequestBodyError, match="one-shot"):
        await controller.fetch(call, body=chunks() if mode == "sync" else achunks())
    # refused before anything reached the redirect's target
    assert [request.path.split("?")[0] for request in origin_a.requests] == [
        "/redirect/307"
    ]


async def test_a_redirect_loop_ends_at_max_redirects(
    controller: Any, origin_a: RecordingServer
) -> None:
    looping = RestEndpoint(url_prefix=origin_a.origin, path="/loop", max_redirects=5)
    with pytest.raises(TooManyRedirects, match="more than 5 redirects"):
        await controller.fetch(looping)
    assert [request.path for request in origin_a.requests] == ["/loop"] * 6


async def test_too_many_redirects_is_a_clear_error(
    controller: Any, origin_a: RecordingServer
) -> None:
    url = origin_a.url("/echo")
    for _ in range(4):
        url = origin_a.url(redirect(origin_a, 302, url))
    call = RestEndpoint(path=url.replace(":", "\\:"), max_redirects=3)
    with pytest.raises(TooManyRedirects, match="more than 3 redirects"):
        await controller.fetch(call)
    assert len(origin_a.requests) == 4


async def test_redirects_can_be_left_unfollowed(
    controller: Any, origin_a: RecordingServer
) -> None:
    call = endpoint(
        origin_a, redirect(origin_a, 302, origin_a.url("/echo")), follow_redirects=False
    )
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(call)
    assert caught.value.status == 302
    assert caught.value.response.headers["location"] == origin_a.url("/echo")
    assert len(origin_a.requests) == 1


@pytest.mark.parametrize("target", ["ftp://127.0.0.1/file", "file:///etc/passwd"])
async def test_a_redirect_to_a_non_http_url_is_refused(
    controller: Any, origin_a: RecordingServer, target: str
) -> None:
    with pytest.raises(InvalidRequest, match="not an http"):
        await controller.fetch(endpoint(origin_a, redirect(origin_a, 302, target)))


async def test_cookies_set_by_another_origin_are_not_stored(
    controller: Any, origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    await controller.fetch(
        endpoint(
            origin_a, redirect(origin_a, 302, origin_b.url("/set-cookie?tracker=b"))
        )
    )
    await controller.fetch(endpoint(origin_a, "/set-cookie?session=a"))
    assert dict(controller.client.cookies) == {"session": "a"}


async def test_omit_sends_and_stores_no_cookie(
    controller_factory: Any, origin_a: RecordingServer
) -> None:
    controller = controller_factory(cookies={"session": "s3"})
    omit = endpoint(origin_a, "/set-cookie?new=1").use(Mode("omit"))
    await controller.fetch(omit)
    assert origin_a.requests[0].cookies is None
    assert dict(controller.client.cookies) == {"session": "s3"}


async def test_include_sends_and_stores_cookies_on_every_hop(
    controller_factory: Any, origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    controller = controller_factory(cookies={"session": "s3"})
    include = endpoint(
        origin_a, redirect(origin_a, 302, origin_b.url("/set-cookie?other=b"))
    ).use(Mode("include"))
    await controller.fetch(include)
    assert origin_b.requests[0].cookies == "session=s3"
    assert "access-token" not in origin_b.requests[0].headers
    assert dict(controller.client.cookies) == {"session": "s3", "other": "b"}


async def test_same_origin_cookies_set_on_a_hop_are_sent_on_the_next(
    controller: Any, origin_a: RecordingServer
) -> None:
    # A redirect response that sets a cookie: the follow-up hop carries it.
    await controller.fetch(endpoint(origin_a, "/set-cookie?step=1"))
    await controller.fetch(
        endpoint(origin_a, redirect(origin_a, 302, origin_a.url("/echo")))
    )
    assert origin_a.requests[-1].cookies == "step=1"


async def test_the_client_keeps_its_own_jar_rules_outside_restwire(
    origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    from restwire import Controller

    with Controller() as controller:
        controller.fetch(
            endpoint(origin_a, redirect(origin_a, 302, origin_b.url("/set-cookie?t=b")))
        )
        assert dict(controller.client.cookies) == {}
        controller.client.get(origin_b.url("/set-cookie?direct=1"))
        assert dict(controller.client.cookies) == {"direct": "1"}


async def test_hops_are_recorded_on_the_exchange(
    controller: Any, origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    seen: list[str] = []

    class Hops:
        def on_response(self, exchange: Exchange) -> None:
            seen.extend(str(url) for url in exchange.hops)

    start = redirect(origin_a, 307, origin_b.url("/echo"))
    await controller.fetch(endpoint(origin_a, start).use(Hops()))
    assert seen == [origin_a.url(start), origin_b.url("/echo")]


async def test_url_credentials_go_as_basic_auth_and_stay_home(
    controller: Any, origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    import base64

    prefix = f"http://us%40er:p%20w@127.0.0.1:{origin_a.port}"
    call = RestEndpoint(
        url_prefix=prefix,
        path=redirect(origin_a, 302, origin_b.url("/echo")).replace(":", "\\:"),
    )
    await controller.fetch(call)
    expected = "Basic " + base64.b64encode(b"us@er:p w").decode()
    assert origin_a.requests[0].headers["authorization"] == expected
    assert "authorization" not in origin_b.requests[0].headers


async def test_http_to_https_on_the_same_host_is_another_origin(
    controller_factory: Any, httpx_mock: Any
) -> None:
    # No TLS server here, so on pytest-httpx: the origin rule, not the socket.
    # httpx alone keeps Authorization on this upgrade; restwire, like the
    # Fetch standard, counts a scheme change as another origin.
    httpx_mock.add_response(
        url="http://api.example.com/x",
        status_code=301,
        headers={"location": "https://api.example.com/x"},
    )
    httpx_mock.add_response(url="https://api.example.com/x", json={})
    controller = controller_factory(cookies={"session": "s3"})
    endpoint = RestEndpoint(url_prefix="http://api.example.com", path="/x").use(
        SensitiveHeaders()
    )
    await controller.fetch(endpoint)
    first, second = httpx_mock.get_requests()
    assert {"access-token", "authorization", "cookie"} <= set(first.headers)
    assert not {"access-token", "authorization", "cookie"} & set(second.headers)


def test_the_most_specific_cookie_wins() -> None:
    cookies = httpx.Cookies()
    cookies.set("csrftoken", "anywhere")
    cookies.set("csrftoken", "parent", domain=".example.com")
    url = httpx.URL("https://api.example.com/app/form")
    assert cookie_for(cookies, "csrftoken", url) == "parent"
    cookies.set("csrftoken", "host", domain="api.example.com")
    assert cookie_for(cookies, "csrftoken", url) == "host"
    cookies.set("csrftoken", "app-path", domain="api.example.com", path="/app")
    assert cookie_for(cookies, "csrftoken", url) == "app-path"
    assert (
        cookie_for(cookies, "csrftoken", httpx.URL("https://other.org/")) == "anywhere"
    )
    assert cookie_for(cookies, "missing", url) is None


class PlainHeaders:
    """Sets credential-named headers without marking them: the name says."""

    def on_request(self, exchange: Exchange) -> None:
        exchange.headers["X-Api-Key"] = "key-789"
        exchange.headers["X-Session-Id"] = "session-1"
        exchange.headers["Idempotency-Key"] = "once-1"


@pytest.mark.parametrize("status", [302, 307])
async def test_credentials_from_every_source_stay_home(
    controller_factory: Any,
    origin_a: RecordingServer,
    origin_b: RecordingServer,
    status: int,
) -> None:
    """The endpoint's headers option, the client's default headers and a
    middleware's unmarked writes: every header not on the public list stays
    at origin A, whatever its name; the public ones travel on."""
    controller = controller_factory(
        headers={"Authorization": "Bearer client-default", "X-Client": "tests"}
    )
    call = RestEndpoint(
        url_prefix=origin_a.origin,
        path=redirect(origin_a, status, origin_b.url("/echo")).replace(":", "\\:"),
        headers={"Access-Token": "s3cret", "X-Client-Version": "7"},
    ).use(PlainHeaders())
    await controller.fetch(call)
    (first,) = origin_a.requests
    (second,) = origin_b.requests
    for name in (
        "access-token",
        "authorization",
        "x-api-key",
        "x-session-id",
        "x-client-version",
        "x-client",
    ):
        assert name in first.headers
        assert name not in second.headers, name
    for name in ("idempotency-key", "accept", "user-agent"):
        assert first.headers[name] == second.headers[name], name


def test_which_names_are_credentials() -> None:
    from restwire._base.credentials import is_credential

    for name in (
        "authorization",
        "proxy-authorization",
        "cookie",
        "access-token",
        "x-api-key",
        "apikey",
        "x-auth-user",
        "x-csrftoken",
        "x-xsrf-token",
        "x-amz-security-token",
        "x-session-id",
        "x-client-secret",
        "x-signature",
        "x-password",
    ):
        assert is_credential(name), name
    for name in (
        "accept",
        "content-type",
        "user-agent",
        "traceparent",
        "idempotency-key",
    ):
        assert not is_credential(name), name
    # deny by default: a name not on the public list is a credential
    for name in ("x-request-id", "x-client-version", "accept-language", "x-tenant"):
        assert is_credential(name), name
    assert not is_credential("x-request-id", public={"x-request-id"})
    assert is_credential("accept", marked={"accept"})


@pytest.mark.parametrize("library", LIBRARIES, ids=lambda library: library.__name__)
def test_every_status_a_library_redirects_on_is_one_restwire_asks_about(
    library: Any,
) -> None:
    """restwire asks a response's ``has_redirect_location`` only for the
    statuses of ``_REDIRECT_STATUSES`` (any other is no redirect, known
    without the property): each status the library's property is true of,
    with a ``Location``, is among them."""
    request = library.Request("GET", "https://a.example/x")
    true_of = {
        status
        for status in range(100, 600)
        if library.Response(
            status, headers={"Location": "/y"}, request=request
        ).has_redirect_location
    }
    assert true_of == _REDIRECT_STATUSES
