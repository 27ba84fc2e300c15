"""Tokens refused cleanly, and secrets kept out of OAuth2's words (issue 41,
finding 8, the token part).

- A token outside printable ASCII (``AccessToken("tök")``, a
  ``ContextToken``'s, a ``refresh()``'s, a token endpoint's answer) is a
  ``RestwireError`` naming the setting or the call, never a bare
  ``UnicodeEncodeError``, and never shows the token.
- ``OAuth2Error`` messages and the grants' reprs redact the token URL's
  userinfo and credential query params, and the secret, the password and
  the refresh token in every encoding a provider may quote them in: as
  they are, form-encoded, Basic credentials, JSON.
- Wrong options of the token middleware are refused where they are given
  (``OAuth2ClientCredentials(early="30")``), naming the option.

Real servers on 127.0.0.1 (a ``RecordingServer``, a token server, and a
provider that quotes the request it got back in its error), both drivers.
"""

from __future__ import annotations

import base64
import contextvars
import html
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, urlencode

import pytest

from recipes.demo_api import QuietHandler, QuietServer, read_body
from restwire import (
    InvalidRequest,
    NetworkError,
    RestEndpoint,
    RestwireError,
    SettingError,
    UsageError,
)
from restwire.middlewares import (
    AccessToken,
    ContextToken,
    OAuth2ClientCredentials,
    OAuth2Error,
    OAuth2Password,
    SharedToken,
)
from tests.oauth_server import CLIENT_ID, CLIENT_SECRET, PASSWORD
from tests.servers import RecordingServer, ServedInThread

pytestmark = pytest.mark.anyio

UNSENDABLE = "tök-SECRET"


def _no_unsendable(text: str) -> None:
    assert UNSENDABLE not in text, text
    assert "SECRET" not in text, text


# -- tokens outside ASCII --------------------------------------------------------------


def test_an_access_token_outside_ascii_is_refused_where_given() -> None:
    with pytest.raises(SettingError, match=r"AccessToken\(token=\.\.\.\)") as caught:
        AccessToken(UNSENDABLE)
    _no_unsendable(str(caught.value))
    auth = AccessToken.bearer()
    with pytest.raises(SettingError, match=r"AccessToken\.token") as set_later:
        auth.token = UNSENDABLE
    _no_unsendable(str(set_later.value))
    assert auth.token is None
    with pytest.raises(SettingError, match=r"header="):
        AccessToken("t", header="Äccess-Token")
    with pytest.raises(SettingError, match=r"header="):
        AccessToken("t", header="Access Token")  # a space: not a header name
    with pytest.raises(SettingError, match=r"prefix="):
        AccessToken("t", prefix="Bärer ")


async def test_a_context_token_outside_ascii_fails_its_call_naming_it(
    controller: Any, origin_a: RecordingServer
) -> None:
    var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
        "user_token", default=None
    )
    endpoint = RestEndpoint(url_prefix=origin_a.url(""), path="/echo").use(
        ContextToken(var)
    )
    var.set(UNSENDABLE)
    with pytest.raises(InvalidRequest, match="'user_token'") as caught:
        await controller.fetch(endpoint)
    assert f"GET {origin_a.url('/echo')}" in str(caught.value)
    _no_unsendable(str(caught.value))
    assert origin_a.requests == []  # nothing sent
    var.set("plain-token")
    assert (await controller.fetch(endpoint))["headers"]["access-token"] == (
        "plain-token"
    )


def test_a_context_token_s_settings_are_checked_where_given() -> None:
    with pytest.raises(UsageError, match="ContextVar"):
        ContextToken("user_token")  # type: ignore[arg-type]
    var: contextvars.ContextVar[str] = contextvars.ContextVar("t")
    with pytest.raises(SettingError, match="header="):
        ContextToken(var, header="X Token")


async def test_a_refresh_that_gives_a_token_outside_ascii_is_the_401_s_cause(
    controller: Any, origin_a: RecordingServer
) -> None:
    auth = AccessToken("old", refresh=lambda: UNSENDABLE)
    endpoint = RestEndpoint(url_prefix=origin_a.url(""), path="/status/401").use(auth)
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(endpoint)
    assert caught.value.status == 401
    cause = caught.value.__cause__
    assert isinstance(cause, RestwireError)
    assert "refresh() gave a token that is not printable ASCII" in str(cause)
    _no_unsendable(str(cause))
    assert auth.token == "old"
    assert len(origin_a.requests) == 1  # not sent again with a broken token


async def test_a_token_endpoint_answering_a_token_outside_ascii_is_an_oauth2_error(
    controller: Any, origin_a: RecordingServer
) -> None:
    answer = json.dumps({"access_token": UNSENDABLE, "token_type": "Bearer"})
    token_url = origin_a.url(
        "/json?" + urlencode({"body": answer, "type": "application/json"})
    )
    auth = OAuth2ClientCredentials(token_url, "app", "app-secret")
    endpoint = RestEndpoint(url_prefix=origin_a.url(""), path="/echo").use(auth)
    with pytest.raises(OAuth2Error, match="not printable ASCII") as caught:
        await controller.fetch(endpoint)
    assert caught.value.grant == "client_credentials"
    assert [r.path for r in origin_a.requests] == [token_url[len(origin_a.origin) :]]


# -- OAuth2's words: no secret in any encoding ------------------------------------------


class _QuotingHandler(QuietHandler):
    """A provider that refuses every token request and quotes what it got
    in its ``error_description``: the form as sent, the Basic credentials,
    the pair they encode, and the form as JSON (escaped and not)."""

    def do_POST(self) -> None:
        body = read_body(self).decode()
        form = dict(parse_qsl(body))
        authorization = self.headers.get("authorization", "")
        pair = ""
        if authorization.startswith("Basic "):
            pair = base64.b64decode(authorization[6:]).decode()
        said = (
            f"bad request: form {body}; header {authorization}; pair {pair}; "
            f"json {json.dumps(form)}; raw {json.dumps(form, ensure_ascii=False)}; "
            # (as Spring Security escapes a description: &amp; &lt;)
            f"html {html.escape(form.get('password', ''))}; "
            f"lower {re.sub('%[0-9A-F]{2}', lambda m: m.group(0).lower(), quote(body))}"
        )
        answer = {
            "error": "invalid_request",
            "error_description": said[:499],
            "error_uri": f"https://docs.example/e?req={quote(body)}",
        }
        self.answer(
            400, json.dumps(answer).encode(), {"content-type": "application/json"}
        )


@pytest.fixture
def quoting() -> Iterator[ServedInThread]:
    with ServedInThread(QuietServer(("127.0.0.1", 0), _QuotingHandler)) as server:
        yield server


def _encodings(secret: str) -> list[str]:
    quoted = quote(quote_plus(secret), safe="")  # the form, quoted in error_uri
    return [
        secret,
        quote_plus(secret),
        quote(secret, safe=""),
        quote(secret),
        json.dumps(secret)[1:-1],
        quoted,
        re.sub("%[0-9A-F]{2}", lambda match: match.group(0).lower(), quoted),
        html.escape(secret),
    ]


def _everything_said(error: OAuth2Error) -> str:
    """Every text an OAuth2Error offers: message, repr, attributes, chain."""
    said = [str(error), repr(error), *map(str, vars(error).values())]
    cause: BaseException | None = error.__cause__ or error.__context__
    while cause is not None:
        said += [str(cause), repr(cause)]
        cause = cause.__cause__ or cause.__context__
    return "\n".join(said)


@pytest.mark.parametrize("auth_method", ["client_secret_basic", "client_secret_post"])
async def test_a_provider_quoting_the_request_never_shows_the_secret(
    controller: Any, quoting: ServedInThread, auth_method: str
) -> None:
    grant = OAuth2ClientCredentials(
        quoting.url("/token"),
        CLIENT_ID,
        CLIENT_SECRET,
        auth_method=auth_method,  # type: ignore[arg-type]
        extra={"client_assertion": "assert-SECRET-9"},
    )
    endpoint = RestEndpoint(url_prefix=quoting.origin, path="/me").use(grant)
    with pytest.raises(OAuth2Error) as caught:
        await controller.fetch(endpoint)
    said = _everything_said(caught.value)
    assert "[redacted]" in said
    basic = base64.b64encode(
        f"{quote_plus(CLIENT_ID)}:{quote_plus(CLIENT_SECRET)}".encode()
    ).decode()
    for secret in (CLIENT_SECRET, "assert-SECRET-9"):
        for each in _encodings(secret):
            assert each not in said, (each, said)
    assert basic not in said
    assert "SECRET" not in said


async def test_a_password_quoted_back_is_never_shown(
    controller: Any, quoting: ServedInThread
) -> None:
    grant = OAuth2Password(
        quoting.url("/token"),
        "ann",
        PASSWORD,
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        auth_method="client_secret_post",
    )
    endpoint = RestEndpoint(url_prefix=quoting.origin, path="/me").use(grant)
    with pytest.raises(OAuth2Error) as caught:
        await controller.fetch(endpoint)
    said = _everything_said(caught.value)
    for secret in (PASSWORD, CLIENT_SECRET):
        for each in _encodings(secret):
            assert each not in said, (each, said)
    assert "ann" in said  # the user name is no secret


async def test_the_token_url_s_userinfo_and_credential_params_never_show(
    controller: Any, quoting: ServedInThread
) -> None:
    token_url = (
        f"http://svc:url-SECRET-1@127.0.0.1:{quoting.port}/token"
        "?api_key=key-SECRET-2&region=eu-1"
    )
    grant = OAuth2ClientCredentials(token_url, "app", "app-SECRET-3")
    assert "SECRET" not in repr(grant)
    assert "region=eu-1" in repr(grant)
    endpoint = RestEndpoint(url_prefix=quoting.origin, path="/me").use(grant)
    with pytest.raises(OAuth2Error) as caught:
        await controller.fetch(endpoint)
    said = _everything_said(caught.value)
    assert "SECRET" not in said, said
    assert f"127.0.0.1:{quoting.port}/token" in caught.value.token_url


# -- options, checked where given ----------------------------------------------------

TOKEN_URL = "https://auth.example.com/token"


@pytest.mark.parametrize(
    ("options", "kind", "named"),
    [
        ({"early": "30"}, UsageError, "early="),
        ({"early": True}, UsageError, "early="),
        ({"early": -1}, SettingError, "early="),
        ({"early": float("nan")}, SettingError, "early="),
        ({"scope": ["read"]}, UsageError, "scope="),
        ({"extra": {"audience": 1}}, UsageError, "extra="),
        ({"extra": [("a", "b")]}, UsageError, "extra="),
        ({"clock": 5}, UsageError, "clock="),
        ({"auth_method": "basic"}, SettingError, "auth_method="),
        ({"shared": "redis://127.0.0.1/0"}, SettingError, "shared="),
    ],
)
def test_wrong_grant_options_are_refused_where_given(
    options: dict[str, Any], kind: type[Exception], named: str
) -> None:
    with pytest.raises(kind, match=named) as caught:
        OAuth2ClientCredentials(TOKEN_URL, "app", "app-SECRET", **options)
    assert "OAuth2ClientCredentials" in str(caught.value)
    assert "SECRET" not in str(caught.value)


@pytest.mark.parametrize(
    ("arguments", "kind", "named"),
    [
        (("not a url", "app", "s"), SettingError, "token_url="),
        (("ftp://auth.example.com/t", "app", "s"), SettingError, "token_url="),
        ((None, "app", "s"), UsageError, "token_url="),
        ((TOKEN_URL, 42, "s"), UsageError, "client_id="),
        ((TOKEN_URL, "app", 12345678), UsageError, "client_secret="),
    ],
)
def test_wrong_grant_arguments_are_refused_where_given(
    arguments: tuple[Any, ...], kind: type[Exception], named: str
) -> None:
    with pytest.raises(kind, match=named) as caught:
        OAuth2ClientCredentials(*arguments)
    assert "12345678" not in str(caught.value)  # a secret's value is never shown


def test_a_token_url_with_credentials_is_refused_without_showing_them() -> None:
    with pytest.raises(SettingError, match="token_url=") as caught:
        OAuth2ClientCredentials("gopher://u:pw-SECRET@host/?token=t-SECRET", "a", "s")
    assert "SECRET" not in str(caught.value)


def test_wrong_password_and_shared_token_options_are_refused_where_given() -> None:
    with pytest.raises(UsageError, match="password=") as caught:
        OAuth2Password(TOKEN_URL, "ann", 1234567)  # type: ignore[arg-type]
    assert "1234567" not in str(caught.value)
    with pytest.raises(UsageError, match="username="):
        OAuth2Password(TOKEN_URL, None, "pw")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"SharedToken\(lease=\.\.\.\)"):
        SharedToken("redis://127.0.0.1:1/0", "n", lease="30")  # type: ignore[arg-type]
    with pytest.raises(SettingError, match=r"SharedToken\(wait=0\)"):
        SharedToken("redis://127.0.0.1:1/0", "n", wait=0)
    with pytest.raises(UsageError, match=r"SharedToken\(name=\.\.\.\)"):
        SharedToken("redis://127.0.0.1:1/0", name=7)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="refresh="):
        AccessToken(refresh="https://auth/refresh")  # type: ignore[arg-type]
