"""OAuth2 grants: the token request on the wire (RFC 6749 §2.3.1, §4.3,
§4.4, §6), renewal before expiry, single flight, the provider's errors.

Every test runs under both drivers (the ``controller`` fixture). The first
half answers with pytest-httpx; the second half meets a real token server
on 127.0.0.1 (``tests/oauth_server.py``). The processes sharing a token
through Redis are in ``tests/processes/test_many_processes.py``.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import LogoutManager, NetworkError, RestEndpoint, RestwireError
from restwire.middlewares import (
    OAuth2ClientCredentials,
    OAuth2Error,
    OAuth2Password,
    SharedToken,
)
from tests.conftest import FakeClock, fetch_together
from tests.oauth_server import CLIENT_ID, CLIENT_SECRET, PASSWORD, TokenServer

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
TOKEN_URL = "https://auth.example.com/oauth/token"

#: RFC 6749 §2.3.1: id and secret each form-urlencoded, joined by ":",
#: then Base64 ("my+client%3A1:s3cr%25t%2F%2B%26%3A%C3%A9"), written out
#: by hand so that a wrong encoding fails.
BASIC = "Basic bXkrY2xpZW50JTNBMTpzM2NyJTI1dCUyRiUyQiUyNiUzQSVDMyVBOQ=="
CLIENT_FORM = "client_id=my+client%3A1&client_secret=s3cr%25t%2F%2B%26%3A%C3%A9"


def token_response(
    token: str = "tok-1", *, expires_in: Any = 3600, **more: Any
) -> dict[str, Any]:
    answer = {"access_token": token, "token_type": "Bearer", **more}
    if expires_in is not None:
        answer["expires_in"] = expires_in
    return answer


def client_credentials(**options: Any) -> OAuth2ClientCredentials:
    return OAuth2ClientCredentials(TOKEN_URL, CLIENT_ID, CLIENT_SECRET, **options)


def me(auth: Any) -> RestEndpoint[Any]:
    return RestEndpoint(url_prefix=API, path="/me").use(auth)


def token_requests(httpx_mock: HTTPXMock) -> list[httpx.Request]:
    return [r for r in httpx_mock.get_requests() if str(r.url) == TOKEN_URL]


def bearers(httpx_mock: HTTPXMock) -> list[str | None]:
    """The Authorization each call to the API carried."""
    return [
        r.headers.get("authorization")
        for r in httpx_mock.get_requests()
        if str(r.url).startswith(API)
    ]


# -- the token request on the wire ------------------------------------------------


async def test_client_credentials_with_basic_auth(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=TOKEN_URL, json=token_response())
    httpx_mock.add_response(url=f"{API}/me", json={"ok": True})
    auth = client_credentials(scope="read write")
    assert await controller.fetch(me(auth)) == {"ok": True}
    (request,) = token_requests(httpx_mock)
    assert request.method == "POST"
    assert request.content == b"grant_type=client_credentials&scope=read+write"
    assert request.headers["authorization"] == BASIC
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert request.headers["accept"] == "application/json"
    assert bearers(httpx_mock) == ["Bearer tok-1"]


async def test_the_token_request_carries_none_of_the_client_s_params(
    controller_factory: Any, httpx_mock: HTTPXMock
) -> None:
    """A client's default params are the API's (its ``api_key``), not the
    token server's: a side call carries none of them, as it carries none
    of the client's default credential headers. The API's call has them."""
    controller = controller_factory(params={"api_key": "api-SECRET-1"})
    httpx_mock.add_response(url=TOKEN_URL, json=token_response())
    httpx_mock.add_response(url=f"{API}/me?api_key=api-SECRET-1", json={"ok": True})
    assert await controller.fetch(me(client_credentials())) == {"ok": True}
    (request,) = token_requests(httpx_mock)
    assert request.url.query == b""


async def test_client_credentials_with_the_secret_in_the_body(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=TOKEN_URL, json=token_response())
    httpx_mock.add_response(url=f"{API}/me", json={})
    auth = client_credentials(auth_method="client_secret_post")
    await controller.fetch(me(auth))
    (request,) = token_requests(httpx_mock)
    assert request.content == f"grant_type=client_credentials&{CLIENT_FORM}".encode()
    assert "authorization" not in request.headers


async def test_password_grant(controller: Any, httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(url=TOKEN_URL, json=token_response("user-tok"))
    httpx_mock.add_response(url=f"{API}/me", json={})
    auth = OAuth2Password(TOKEN_URL, "ann", PASSWORD, client_id="app", scope="profile")
    await controller.fetch(me(auth))
    (request,) = token_requests(httpx_mock)
    # a public client (no secret): its id in the form, no Basic
    assert request.content == (
        b"grant_type=password&username=ann&password=pa+ss%26word%25"
        b"&scope=profile&client_id=app"
    )
    assert "authorization" not in request.headers
    assert bearers(httpx_mock) == ["Bearer user-tok"]


async def test_extra_fields_go_in_the_form(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=TOKEN_URL, json=token_response())
    httpx_mock.add_response(url=f"{API}/me", json={})
    await controller.fetch(me(client_credentials(extra={"audience": "https://api"})))
    (request,) = token_requests(httpx_mock)
    assert request.content == (
        b"grant_type=client_credentials&audience=https%3A%2F%2Fapi"
    )


async def test_the_token_request_runs_none_of_the_endpoint_s_middleware(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    class Tag:
        def on_request(self, exchange: Any) -> None:
            exchange.headers["X-Api-Layer"] = "1"

    httpx_mock.add_response(url=TOKEN_URL, json=token_response())
    httpx_mock.add_response(url=f"{API}/me", json={})
    await controller.fetch(me(client_credentials()).use(Tag()))
    (request,) = token_requests(httpx_mock)
    assert "x-api-layer" not in request.headers
    assert httpx_mock.get_requests()[-1].headers["x-api-layer"] == "1"


def test_an_unknown_auth_method_is_refused() -> None:
    with pytest.raises(ValueError, match="auth_method"):
        client_credentials(auth_method="private_key_jwt")


# -- renewal ---------------------------------------------------------------------------


async def test_a_token_is_renewed_before_it_expires(
    controller: Any, httpx_mock: HTTPXMock, clock: FakeClock
) -> None:
    """expires_in 100 s: renewed 10 s before (a tenth of its life, under
    the 30 s cap), with no 401 seen."""
    httpx_mock.add_response(url=TOKEN_URL, json=token_response("t1", expires_in=100))
    httpx_mock.add_response(url=TOKEN_URL, json=token_response("t2", expires_in=100))
    httpx_mock.add_response(url=f"{API}/me", json={}, is_reusable=True)
    auth = client_credentials(clock=clock)
    await controller.fetch(me(auth))
    clock.advance(89.9)
    await controller.fetch(me(auth))
    assert len(token_requests(httpx_mock)) == 1
    clock.advance(0.1)
    await controller.fetch(me(auth))
    assert len(token_requests(httpx_mock)) == 2
    assert bearers(httpx_mock) == ["Bearer t1", "Bearer t1", "Bearer t2"]


async def test_early_is_at_most_30_seconds_and_can_be_set(
    controller: Any, httpx_mock: HTTPXMock, clock: FakeClock
) -> None:
    for token in ("t1", "t2", "t3", "t4"):
        httpx_mock.add_response(url=TOKEN_URL, json=token_response(token))
    httpx_mock.add_response(url=f"{API}/me", json={}, is_reusable=True)
    auth = client_credentials(clock=clock)  # an hour: renewed 30 s before
    await controller.fetch(me(auth))
    clock.advance(3569.5)
    await controller.fetch(me(auth))
    clock.advance(0.5)
    await controller.fetch(me(auth))
    chosen = client_credentials(clock=clock, early=5)
    await controller.fetch(me(chosen))
    clock.advance(3594.5)
    await controller.fetch(me(chosen))
    clock.advance(0.5)
    await controller.fetch(me(chosen))
    assert bearers(httpx_mock) == [
        "Bearer t1",
        "Bearer t1",
        "Bearer t2",
        "Bearer t3",
        "Bearer t3",
        "Bearer t4",
    ]


async def test_the_refresh_token_grant_then_the_original_when_refused(
    controller: Any, httpx_mock: HTTPXMock, clock: FakeClock
) -> None:
    httpx_mock.add_response(
        url=TOKEN_URL, json=token_response("t1", expires_in=60, refresh_token="r1")
    )
    # a refresh that gives no new refresh token keeps the old one (§6)
    httpx_mock.add_response(url=TOKEN_URL, json=token_response("t2", expires_in=60))
    httpx_mock.add_response(
        url=TOKEN_URL,
        status_code=400,
        json={"error": "invalid_grant", "error_description": "refresh token expired"},
    )
    httpx_mock.add_response(url=TOKEN_URL, json=token_response("t3", expires_in=60))
    httpx_mock.add_response(url=f"{API}/me", json={}, is_reusable=True)
    auth = client_credentials(clock=clock)
    await controller.fetch(me(auth))
    clock.advance(60)
    await controller.fetch(me(auth))
    clock.advance(60)
    await controller.fetch(me(auth))
    forms = [request.content for request in token_requests(httpx_mock)]
    assert forms == [
        b"grant_type=client_credentials",
        b"grant_type=refresh_token&refresh_token=r1",
        b"grant_type=refresh_token&refresh_token=r1",
        b"grant_type=client_credentials",
    ]
    assert all(r.headers["authorization"] == BASIC for r in token_requests(httpx_mock))
    assert bearers(httpx_mock) == ["Bearer t1", "Bearer t2", "Bearer t3"]


async def test_a_refresh_refused_otherwise_is_the_call_s_error(
    controller: Any, httpx_mock: HTTPXMock, clock: FakeClock
) -> None:
    httpx_mock.add_response(
        url=TOKEN_URL, json=token_response("t1", expires_in=60, refresh_token="r1")
    )
    httpx_mock.add_response(
        url=TOKEN_URL, status_code=401, json={"error": "invalid_client"}
    )
    httpx_mock.add_response(url=f"{API}/me", json={})
    auth = client_credentials(clock=clock)
    await controller.fetch(me(auth))
    clock.advance(61)  # expired: nothing left to send
    with pytest.raises(OAuth2Error) as caught:
        await controller.fetch(me(auth))
    assert caught.value.error == "invalid_client"
    assert caught.value.grant == "refresh_token"
    assert len(token_requests(httpx_mock)) == 2  # no fallback for this error


async def test_a_failed_early_renewal_still_sends_the_valid_token(
    controller: Any,
    httpx_mock: HTTPXMock,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    httpx_mock.add_response(url=TOKEN_URL, json=token_response("t1", expires_in=100))
    httpx_mock.add_response(url=TOKEN_URL, status_code=503)
    httpx_mock.add_response(url=f"{API}/me", json={}, is_reusable=True)
    auth = client_credentials(clock=clock)
    await controller.fetch(me(auth))
    clock.advance(95)  # due (renew at 90), not expired (100)
    with caplog.at_level(logging.WARNING, logger="restwire"):
        await controller.fetch(me(auth))
    assert bearers(httpx_mock) == ["Bearer t1", "Bearer t1"]
    assert "renewing the token early failed (OAuth2Error)" in caplog.text


async def test_a_401_renews_once_and_sends_again(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=TOKEN_URL, json=token_response("t1"))
    httpx_mock.add_response(url=TOKEN_URL, json=token_response("t2"))
    httpx_mock.add_response(url=f"{API}/me", status_code=401)
    httpx_mock.add_response(url=f"{API}/me", json={"ok": True})
    auth = client_credentials()
    assert await controller.fetch(me(auth)) == {"ok": True}
    assert bearers(httpx_mock) == ["Bearer t1", "Bearer t2"]
    assert len(token_requests(httpx_mock)) == 2


async def test_a_401_whose_renewal_is_refused_reaches_the_caller_with_why(
    controller_factory: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=TOKEN_URL, json=token_response("t1"))
    httpx_mock.add_response(
        url=TOKEN_URL,
        status_code=400,
        json={"error": "invalid_scope", "error_description": "scope revoked"},
    )
    httpx_mock.add_response(url=f"{API}/me", status_code=401)
    logged_out: list[Any] = []
    controller = controller_factory(
        managers=(LogoutManager(handle_logout=logged_out.append),)
    )
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(me(client_credentials()))
    assert caught.value.status == 401
    cause = caught.value.__cause__
    assert isinstance(cause, OAuth2Error)
    assert (cause.error, cause.error_description) == ("invalid_scope", "scope revoked")
    assert len(logged_out) == 1


# -- the provider's errors, and no secret anywhere ------------------------------------


def every_text(error: BaseException) -> str:
    """Everything an error could show: message, repr, formatted chain."""
    return "\n".join(
        [str(error), repr(error), "".join(traceback.format_exception(error))]
    )


@pytest.mark.parametrize("auth_method", ["client_secret_basic", "client_secret_post"])
async def test_a_refusal_names_the_endpoint_and_the_provider_s_words_not_the_secret(
    controller: Any,
    httpx_mock: HTTPXMock,
    caplog: pytest.LogCaptureFixture,
    auth_method: str,
) -> None:
    httpx_mock.add_response(
        url=TOKEN_URL,
        status_code=401,
        json={
            "error": "invalid_client",
            # a provider that quotes the secret back
            "error_description": f"bad secret {CLIENT_SECRET}",
            "error_uri": "https://auth.example.com/docs/errors",
        },
    )
    auth = client_credentials(auth_method=auth_method)
    with caplog.at_level(logging.DEBUG), pytest.raises(OAuth2Error) as caught:
        await controller.fetch(me(auth))
    error = caught.value
    assert isinstance(error, RestwireError)
    assert str(error) == (
        f"GET {API}/me: the token endpoint {TOKEN_URL} refused the token request "
        "with 401: invalid_client (bad secret [redacted]) "
        "(grant_type=client_credentials)"
    )
    assert (error.status, error.error, error.grant) == (
        401,
        "invalid_client",
        "client_credentials",
    )
    assert error.error_uri == "https://auth.example.com/docs/errors"
    assert error.__cause__ is None
    assert error.__context__ is None  # (the request, with its body, is not kept)
    shown = every_text(error) + caplog.text + repr(auth)
    for secret in (CLIENT_SECRET, "s3cr%25t", BASIC.split()[1]):
        assert secret not in shown
    assert bearers(httpx_mock) == []  # the call was never sent


async def test_a_password_never_shows(
    controller: Any, httpx_mock: HTTPXMock, caplog: pytest.LogCaptureFixture
) -> None:
    httpx_mock.add_response(
        url=TOKEN_URL,
        status_code=400,
        json={"error": "invalid_grant", "error_description": f"no {PASSWORD}"},
    )
    auth = OAuth2Password(TOKEN_URL, "ann", PASSWORD, client_id="app")
    with caplog.at_level(logging.DEBUG), pytest.raises(OAuth2Error) as caught:
        await controller.fetch(me(auth))
    assert caught.value.error == "invalid_grant"
    assert PASSWORD not in every_text(caught.value) + caplog.text + repr(auth)
    assert "ann" not in repr(auth)


async def test_no_token_shows_in_reprs_or_logs(
    controller: Any, httpx_mock: HTTPXMock, caplog: pytest.LogCaptureFixture
) -> None:
    httpx_mock.add_response(
        url=TOKEN_URL, json=token_response("secret-tok", refresh_token="secret-ref")
    )
    httpx_mock.add_response(url=f"{API}/me", status_code=403)
    auth = client_credentials()
    with caplog.at_level(logging.DEBUG), pytest.raises(NetworkError) as caught:
        await controller.fetch(me(auth))
    shown = every_text(caught.value) + caplog.text + repr(auth)
    assert "secret-tok" not in shown
    assert "secret-ref" not in shown
    assert repr(auth) == (
        f"OAuth2ClientCredentials(token_url={TOKEN_URL!r}, "
        f"client_id={CLIENT_ID!r}, token=set)"
    )


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (token_response(token_type="mac"), "a token of type 'mac', not Bearer"),
        ({"access_token": "t"}, "a token of type missing, not Bearer"),
        ({"token_type": "Bearer"}, "answered with no access_token"),
    ],
)
async def test_what_is_not_a_bearer_token_is_refused(
    controller: Any, httpx_mock: HTTPXMock, answer: dict[str, Any], said: str
) -> None:
    httpx_mock.add_response(url=TOKEN_URL, json=answer)
    with pytest.raises(OAuth2Error, match=said) as caught:
        await controller.fetch(me(client_credentials()))
    assert str(caught.value).startswith(f"GET {API}/me: the token endpoint {TOKEN_URL}")
    assert "'t'" not in str(caught.value)
    assert bearers(httpx_mock) == []


async def test_bearer_is_matched_in_any_case(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=TOKEN_URL, json=token_response(token_type="bEaReR"))
    httpx_mock.add_response(url=f"{API}/me", json={})
    await controller.fetch(me(client_credentials()))
    assert bearers(httpx_mock) == ["Bearer tok-1"]


@pytest.mark.parametrize(
    ("response", "said"),
    [
        ({"status_code": 200, "content": b"<html>"}, "answered 200 with a body that"),
        (
            {"status_code": 502, "content": b"<html>"},
            "refused the token request with 502",
        ),
        (
            {"status_code": 302, "headers": {"location": "https://evil.example/"}},
            "refused the token request with 302",
        ),
    ],
)
async def test_what_is_not_json_or_redirects_is_an_oauth2_error(
    controller: Any, httpx_mock: HTTPXMock, response: dict[str, Any], said: str
) -> None:
    httpx_mock.add_response(url=TOKEN_URL, **response)
    with pytest.raises(OAuth2Error, match=said):
        await controller.fetch(me(client_credentials()))
    assert len(httpx_mock.get_requests()) == 1  # no redirect followed


async def test_an_unreachable_token_endpoint_is_an_oauth2_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_exception(httpx.ConnectError("connection refused"), url=TOKEN_URL)
    with pytest.raises(OAuth2Error, match="could not be reached") as caught:
        await controller.fetch(me(client_credentials()))
    assert caught.value.status is None
    assert CLIENT_SECRET not in every_text(caught.value)


async def test_users_tokens_never_share_stored_results(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=TOKEN_URL, json=token_response("ann-tok"))
    httpx_mock.add_response(url=TOKEN_URL, json=token_response("bob-tok"))
    httpx_mock.add_response(url=f"{API}/me", json={"user": "ann"})
    httpx_mock.add_response(url=f"{API}/me", json={"user": "bob"})
    ann = OAuth2Password(TOKEN_URL, "ann", "a", client_id="app")
    bob = OAuth2Password(TOKEN_URL, "bob", "b", client_id="app")
    assert await controller.get(me(ann)) == {"user": "ann"}
    assert await controller.get(me(bob)) == {"user": "bob"}  # not ann's
    assert await controller.get(me(ann)) == {"user": "ann"}  # ann's, stored
    assert bearers(httpx_mock) == ["Bearer ann-tok", "Bearer bob-tok"]


def test_a_password_grant_refuses_a_slot_shared_by_every_user() -> None:
    shared = SharedToken("redis://127.0.0.1:1/0")
    with pytest.raises(ValueError, match="name of this user's own"):
        OAuth2Password(TOKEN_URL, "ann", "a", shared=shared)


# -- a real token server ----------------------------------------------------------------


@pytest.fixture
def token_server() -> Iterator[TokenServer]:
    with TokenServer() as server:
        yield server


def real(server: TokenServer, **options: Any) -> OAuth2ClientCredentials:
    return OAuth2ClientCredentials(
        server.url("/token"), CLIENT_ID, CLIENT_SECRET, **options
    )


@pytest.mark.parametrize("auth_method", ["client_secret_basic", "client_secret_post"])
async def test_a_real_token_server_accepts_both_client_authentications(
    controller: Any, token_server: TokenServer, auth_method: str
) -> None:
    auth = real(token_server, auth_method=auth_method)
    endpoint = RestEndpoint(url_prefix=token_server.origin, path="/me").use(auth)
    assert await controller.fetch(endpoint) == {"token": "tok-1"}
    assert token_server.counts["client_credentials"] == 1


async def test_a_real_password_grant_with_refresh_and_fallback(
    controller: Any, token_server: TokenServer, clock: FakeClock
) -> None:
    token_server.refresh_tokens = True
    token_server.expires_in = 60
    auth = OAuth2Password(
        token_server.url("/token"),
        "ann",
        PASSWORD,
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        clock=clock,
    )
    endpoint = RestEndpoint(url_prefix=token_server.origin, path="/me").use(auth)
    assert await controller.fetch(endpoint) == {"token": "tok-1"}
    clock.advance(60)
    assert await controller.fetch(endpoint) == {"token": "tok-2"}  # by ref-1
    token_server._refresh.clear()  # the refresh token is revoked
    clock.advance(60)
    assert await controller.fetch(endpoint) == {"token": "tok-3"}  # password again
    grants = [form["grant_type"] for form in token_server.forms]
    assert grants == ["password", "refresh_token", "refresh_token", "password"]


async def test_twenty_calls_together_make_one_token_request(
    controller: Any, mode: str, token_server: TokenServer
) -> None:
    token_server.pause = 0.1  # so the calls overlap it
    auth = real(token_server)
    base = RestEndpoint(url_prefix=token_server.origin).use(auth)
    endpoints = [base.extend(path="/me", headers={"X-N": str(n)}) for n in range(20)]
    outcomes = await fetch_together(controller, mode, endpoints)
    assert outcomes == [{"token": "tok-1"}] * 20
    assert token_server.counts["client_credentials"] == 1


async def test_twenty_calls_that_get_401_together_renew_once(
    controller: Any, mode: str, token_server: TokenServer
) -> None:
    auth = real(token_server)
    base = RestEndpoint(url_prefix=token_server.origin).use(auth)
    assert await controller.fetch(base.extend(path="/me")) == {"token": "tok-1"}
    token_server.revoke()
    token_server.pause = 0.1
    endpoints = [base.extend(path="/me", headers={"X-N": str(n)}) for n in range(20)]
    outcomes = await fetch_together(controller, mode, endpoints)
    assert outcomes == [{"token": "tok-2"}] * 20
    assert token_server.counts["client_credentials"] == 2


async def test_calls_waiting_behind_a_refused_request_fail_with_it(
    controller: Any, mode: str, token_server: TokenServer
) -> None:
    token_server.pause = 0.1
    auth = OAuth2ClientCredentials(token_server.url("/token"), CLIENT_ID, "wrong")
    base = RestEndpoint(url_prefix=token_server.origin).use(auth)
    endpoints = [base.extend(path="/me", headers={"X-N": str(n)}) for n in range(5)]
    outcomes = await fetch_together(controller, mode, endpoints)
    assert all(isinstance(each, OAuth2Error) for each in outcomes), outcomes
    assert {each.error for each in outcomes} == {"invalid_client"}
    assert all(
        str(each).startswith(f"GET {token_server.origin}/me") for each in outcomes
    )
    assert token_server.counts["client_credentials"] == 1
    assert token_server.counts["me"] == 0


# -- a token shared through Redis (one process; four are in tests/processes) ----


async def test_a_second_holder_adopts_the_shared_token_and_its_renewal(
    controller: Any, httpx_mock: HTTPXMock, clock: FakeClock, redis_url: str
) -> None:
    """Two holders stand for two processes: the second takes the first's
    token from the slot, with its expiry; when both find it due, one token
    request renews it for both."""
    httpx_mock.add_response(url=TOKEN_URL, json=token_response("t1", expires_in=100))
    httpx_mock.add_response(url=TOKEN_URL, json=token_response("t2", expires_in=100))
    httpx_mock.add_response(url=f"{API}/me", json={}, is_reusable=True)
    first, second = (
        client_credentials(clock=clock, shared=SharedToken(redis_url, name="api"))
        for _ in range(2)
    )
    await controller.fetch(me(first))
    await controller.fetch(me(second))
    clock.advance(90)
    await controller.fetch(me(first))
    await controller.fetch(me(second))
    assert len(token_requests(httpx_mock)) == 2
    assert bearers(httpx_mock) == ["Bearer t1", "Bearer t1", "Bearer t2", "Bearer t2"]
