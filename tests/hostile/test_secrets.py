"""No token or cookie value in any repr, error message or log record, at any
log level, whatever the call went through: redirects, errors, retries,
refreshes, polling."""

from __future__ import annotations

import base64
import contextvars
import dataclasses
import logging
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    Controller,
    Entity,
    EntityError,
    Exchange,
    Middleware,
    NetworkError,
    RestEndpoint,
    RestwireError,
)
from restwire._base.errors import redact_secrets
from restwire.extension import redact_url
from restwire.middlewares import (
    AccessToken,
    ContextToken,
    CookieCredentials,
    CsrfToken,
    Retry,
)
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

TOKEN = "tok-SECRET-1"
BEARER = "jwt-SECRET-2"
CONTEXT = "ctx-SECRET-3"
CSRF = "csrf-SECRET-4"
SESSION = "session-SECRET-5"
PASSWORD = "pw-SECRET-6"
BASIC_USER = "AC-basic-user-SECRET-7"
BASIC_PASSWORD = "basic-SECRET-8"
#: What the Basic header carries: the pair in base64 (and the pair itself).
BASIC = base64.b64encode(f"{BASIC_USER}:{BASIC_PASSWORD}".encode()).decode()
SECRETS = (
    TOKEN,
    BEARER,
    CONTEXT,
    CSRF,
    SESSION,
    PASSWORD,
    BASIC_USER,
    BASIC_PASSWORD,
    BASIC,
)

context_token: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "t", default=None
)


def assert_no_secret(text: str) -> None:
    leaked = [secret for secret in SECRETS if secret in text]
    assert not leaked, f"leaked {leaked} in: {text[:500]}"


def stack() -> list[Middleware]:
    return [
        CookieCredentials("include"),
        CsrfToken(),
        AccessToken(TOKEN),
        AccessToken(BEARER, header="Authorization", prefix="Bearer "),
        ContextToken(context_token, header="X-Context-Token"),
        Retry(attempts=2, backoff=0.001),
    ]


@dataclasses.dataclass
class ErrorBody:
    code: str


class Capture:
    """Keeps the exchange of the call, to check its repr."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def on_request(self, exchange: Exchange) -> None:
        self.seen.append(repr(exchange))

    def on_response(self, exchange: Exchange) -> None:
        self.seen.append(repr(exchange))

    def on_error(self, exchange: Exchange, error: RestwireError) -> None:
        self.seen.append(repr(exchange))


async def test_reprs_logs_and_errors_keep_secrets(
    controller_factory: Any,
    origin_a: RecordingServer,
    origin_b: RecordingServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, every level, httpx's too
    controller = controller_factory(
        cookies={"sessionid": SESSION, "csrftoken": CSRF}, auth=("user", PASSWORD)
    )
    context_token.set(CONTEXT)
    capture = Capture()
    base = RestEndpoint(
        url_prefix=f"http://user:{PASSWORD}@127.0.0.1:{origin_a.port}",
        headers={"X-Api-Key": TOKEN},
        sensitive_headers={"X-Api-Key"},
        middleware=[capture, *stack()],
        error_schema=ErrorBody,  # which the error bodies fail: a log line each
    )
    texts: list[str] = [repr(base), repr(base.middleware), *map(repr, stack())]
    away = origin_b.url("/status/500")
    calls = [
        base.extend(path="/json?body={}&type=application/json", method="POST"),
        base.extend(
            path=f"/redirect/307?to={quote(away, safe='')}".replace(":", "\\:"),
            method="POST",
        ),
        base.extend(path="/status/401"),
        base.extend(path="/json?body=<html>&type=text/html"),
    ]
    for call in calls:
        try:
            texts.append(
                repr(
                    await controller.fetch(
                        call, body={"a": 1} if call.method == "POST" else None
                    )
                )
            )
        except RestwireError as error:
            texts.extend([str(error), repr(error), repr(error.__cause__)])
            if isinstance(error, NetworkError):
                texts.append(repr(error.response))
                texts.extend(map(repr, (error.problem, error.data, error.request_id)))
    texts.extend(capture.seen)
    texts.extend(record.getMessage() for record in caplog.records)
    assert capture.seen  # the exchanges were seen
    assert any("[redacted]" in text for text in capture.seen)
    assert any("does not validate as error_schema" in text for text in texts)
    assert_no_secret("\n".join(texts))


def test_an_expired_session_logs_no_secret(
    httpx_mock: HTTPXMock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    httpx_mock.add_response(status_code=401)

    def refresh() -> str:
        raise RuntimeError(f"refresh failed for {TOKEN}")  # a careless message

    with Controller(httpx.Client(cookies={"sessionid": SESSION})) as controller:
        endpoint = RestEndpoint(url_prefix="https://api.example.com", path="/x").use(
            AccessToken(TOKEN, refresh=refresh)
        )
        with pytest.raises(NetworkError) as caught:
            controller.fetch(endpoint)
    assert_no_secret(str(caught.value))
    assert_no_secret("\n".join(record.getMessage() for record in caplog.records))


async def test_basic_credentials_never_show(
    controller_factory: Any,
    origin_a: RecordingServer,
    origin_b: RecordingServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``AccessToken.basic``'s user, password and header, through errors,
    a refresh that fails with a careless message, a redirect away, a body
    that fails its schema, at every log level."""
    caplog.set_level(logging.DEBUG)
    controller = controller_factory()

    def refresh() -> str:
        raise RuntimeError(f"vault: no new password for {BASIC_USER}:{BASIC_PASSWORD}")

    capture = Capture()
    auth = AccessToken.basic(BASIC_USER, BASIC_PASSWORD, refresh=refresh)
    base = RestEndpoint(
        url_prefix=f"http://127.0.0.1:{origin_a.port}",
        middleware=[capture, auth, Retry(attempts=2, backoff=0.001)],
        error_schema=ErrorBody,
    )
    texts: list[str] = [repr(auth), repr(base), repr(base.middleware)]
    away = quote(origin_b.url("/status/500"), safe="")
    calls = [
        base.extend(path="/status/401"),
        base.extend(path=f"/redirect/307?to={away}", method="POST"),
        base.extend(path="/status/500"),
        base.extend(path="/json?body={}&type=application/json", schema=Item),
    ]
    for call in calls:
        try:
            body = {"a": 1} if call.method == "POST" else None
            texts.append(repr(await controller.fetch(call, body=body)))
        except RestwireError as error:
            texts.extend([str(error), repr(error)])
            if isinstance(error.__cause__, RestwireError):  # (not refresh's own)
                texts.append(repr(error.__cause__))
            if isinstance(error, NetworkError):
                texts.append(repr(error.response))
    texts.extend(capture.seen)
    texts.extend(record.getMessage() for record in caplog.records)
    assert capture.seen
    assert any(
        request.headers.get("authorization") == f"Basic {BASIC}"
        for request in origin_a.requests
    )  # (sent where it belongs)
    assert all("authorization" not in request.headers for request in origin_b.requests)
    assert_no_secret("\n".join(texts))


def test_an_endpoint_with_credentials_in_its_url_hides_the_password() -> None:
    endpoint = RestEndpoint(
        url_prefix=f"https://user:{PASSWORD}@api.example.com", path="/x"
    )
    assert PASSWORD not in repr(endpoint)
    with pytest.raises(RestwireError) as caught:
        RestEndpoint(
            url_prefix=f"https://user:{PASSWORD}@api.example.com", path="/:id"
        ).url({})
    assert PASSWORD not in str(caught.value)


USER_TOKEN = "ghp_SECRETusername7"


def test_a_token_in_the_url_user_name_never_shows() -> None:
    """``https://TOKEN@host`` is a common way to send a token: the user name
    is as secret as a password."""
    prefix = f"https://{USER_TOKEN}@api.example.com"
    endpoint = RestEndpoint(url_prefix=prefix, path="/items/:id", schema=Item)
    assert USER_TOKEN not in repr(endpoint)
    assert "[redacted]@api.example.com" in repr(endpoint)
    with pytest.raises(RestwireError) as missing:
        endpoint.url({})
    assert USER_TOKEN not in str(missing.value)
    bad = httpx.MockTransport(lambda request: httpx.Response(200, json={"no": "id"}))
    with Controller(httpx.Client(transport=bad)) as controller:
        with pytest.raises(EntityError) as entity:
            controller.fetch(endpoint, {"id": 1})
        controller.client.close()
    assert USER_TOKEN not in str(entity.value)
    assert "[redacted]@api.example.com/items/1" in str(entity.value)


class Item(Entity):
    id: str = ""


@pytest.mark.parametrize(
    ("prefix", "path"),
    [
        # (httpx sends a password that holds an "@" whole: the cut stopped
        # at the first one and showed the rest)
        (f"https://deploy:s3cr@t{PASSWORD}@api.example.com", "/x/:id"),
        # (a base64 token holds "/": no URL parses so, and its error quoted
        # it whole)
        (f"https://user:ab/{PASSWORD}==@api.example.com", "/x/:id"),
        # (a URL that does not parse: its text was quoted raw)
        (f"https://user:{PASSWORD}@api.example.com:abc", "/x"),
        (f"https://user:ab/{PASSWORD}@api.example.com", "/x"),
        # (a password holding ? or #, or / and @ both: shown whole or in part)
        (f"https://deploy:Xy?{PASSWORD}@api.example.com", "/x"),
        (f"https://deploy:Xy#{PASSWORD}@api.example.com", "/x"),
        (f"https://deploy:a/b@{PASSWORD}@api.example.com", "/x"),
        ("https://api.example.com:abc", f"/x?access_token={PASSWORD}"),
        (f"ftp://user:{PASSWORD}@api.example.com", "/x"),
    ],
)
def test_a_url_no_call_can_send_never_shows_its_credentials(
    prefix: str, path: str
) -> None:
    endpoint = RestEndpoint(url_prefix=prefix, path=path)
    assert PASSWORD not in repr(endpoint)
    texts = []
    with Controller(transport=httpx.MockTransport(lambda _: httpx.Response(200))) as c:
        with pytest.raises(RestwireError) as caught:
            c.fetch(endpoint)  # (a missing :id, or a URL that does not parse)
        texts.append(str(caught.value))
    assert PASSWORD not in "\n".join(texts)
    assert "[redacted]" in texts[0]


def test_a_bad_url_without_credentials_keeps_the_library_s_reason() -> None:
    endpoint = RestEndpoint(url_prefix="https://api.example.com:abc", path="/x")
    mock = httpx.MockTransport(lambda _: httpx.Response(200))
    with (
        Controller(transport=mock) as controller,
        pytest.raises(RestwireError, match="Invalid port: 'abc'"),
    ):
        controller.fetch(endpoint)


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.com/users/@me",
        "https://api.example.com:8443/users/@me",
        "https://[::1]:8080/users/@me",
        "https://api.example.com/a?b=c@d",
    ],
)
def test_an_at_sign_outside_the_userinfo_is_no_credential(url: str) -> None:
    assert redact_url(url) == url


@pytest.mark.parametrize(
    "quoted",
    [
        # (Spring Security HTML-escapes a description: &amp; &lt; &gt;)
        "Tr0ub4dor&amp;3&lt;x&gt;/+y",
        # (percent-encoded with "/" left as it is: urllib's quote())
        "Tr0ub4dor%263%3Cx%3E/%2By",
        # (percent-encoded with lower-case hex digits)
        "Tr0ub4dor%263%3cx%3e%2f%2by",
        "Tr0ub4dor%263%3cx%3e/%2by",
    ],
)
def test_a_password_quoted_in_another_encoding_is_redacted(quoted: str) -> None:
    said = redact_secrets(f"invalid_grant: bad password {quoted} for ann", [PASSWORD_Q])
    assert said == "invalid_grant: bad password [redacted] for ann"


PASSWORD_Q = "Tr0ub4dor&3<x>/+y"
