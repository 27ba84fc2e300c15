"""``AccessToken.basic``: HTTP Basic credentials (RFC 7617) on a stack.

Against real servers on 127.0.0.1 (``tests/servers.py``), under both
drivers: the header as RFC 7617 spells it, UTF-8 beyond ASCII, kept to the
call's origin, refreshed after a 401, shared through a real Redis.
"""

from __future__ import annotations

import base64
import logging
from typing import Any
from urllib.parse import quote

import pytest
import redis

from restwire import NetworkError, RestEndpoint, RestwireError, SettingError, UsageError
from restwire.middlewares import AccessToken, SharedToken
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio


def decoded(header: str | None) -> str:
    """The ``user:password`` an ``Authorization: Basic`` header carries."""
    assert header is not None
    assert header.startswith("Basic ")
    return base64.b64decode(header.removeprefix("Basic ")).decode("utf-8")


def authorizations(server: RecordingServer) -> list[str | None]:
    return [request.headers.get("authorization") for request in server.requests]


async def test_basic_sends_user_and_password_as_rfc_7617_says(
    controller: Any, origin_a: RecordingServer
) -> None:
    auth = AccessToken.basic("AC0123", "auth-token")
    api = RestEndpoint(url_prefix=origin_a.url(""), path="/echo").use(auth)
    await controller.fetch(api)
    (sent,) = authorizations(origin_a)
    # RFC 7617 §2's own example: Aladdin / open sesame
    assert sent == "Basic " + base64.b64encode(b"AC0123:auth-token").decode()
    assert AccessToken.basic("Aladdin", "open sesame").token == (
        "QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
    )


async def test_text_beyond_ascii_is_sent_as_utf_8_normalized_to_nfc(
    controller: Any, origin_a: RecordingServer
) -> None:
    # "é" written as e + combining acute (NFD) is sent as the one code
    # point U+00E9, in UTF-8 (RFC 7617 §2.1, its "test" / "123£" example)
    auth = AccessToken.basic("Jose\u0301", "123\u00a3")
    await controller.fetch(
        RestEndpoint(url_prefix=origin_a.url(""), path="/echo").use(auth)
    )
    (sent,) = authorizations(origin_a)
    raw = base64.b64decode(sent.removeprefix("Basic ")) if sent else b""
    assert raw == b"Jos\xc3\xa9:123\xc2\xa3"
    assert AccessToken.basic("test", "123\u00a3").token == "dGVzdDoxMjPCow=="


@pytest.mark.parametrize(
    ("user", "password", "kind", "says"),
    [
        ("secret-us:er", "secret-pw", SettingError, "colon"),
        ("user", "secret\r\nX-Injected: 1", SettingError, "control character"),
        ("secret\x00user", "secret-pw", SettingError, "control character"),
        ("user", "secret\x85pw", SettingError, "control character"),
        (b"user", "secret-pw", UsageError, "user must be text"),
        ("user", None, UsageError, "password must be text"),
    ],
)
def test_credentials_basic_cannot_carry_are_refused_where_given(
    user: Any, password: Any, kind: type[Exception], says: str
) -> None:
    with pytest.raises(kind, match=says) as refused:
        AccessToken.basic(user, password)
    assert "AccessToken.basic(user=..., password=...)" in str(refused.value)
    assert "secret" not in str(refused.value)


async def test_basic_credentials_stay_at_their_origin(
    controller: Any, origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    away = quote(origin_b.url("/echo"), safe="")
    api = RestEndpoint(url_prefix=origin_a.url(""), path=f"/redirect/307?to={away}")
    await controller.fetch(api.use(AccessToken.basic("user", "pw")))
    assert decoded(authorizations(origin_a)[0]) == "user:pw"
    assert authorizations(origin_b) == [None]


async def test_a_401_refreshes_the_password_and_sends_again(
    controller: Any, origin_a: RecordingServer, mode: str
) -> None:
    async def new_password() -> str:
        return "rotated"

    refresh: Any = (lambda: "rotated") if mode == "sync" else new_password
    auth = AccessToken.basic("AC1", "expired", refresh=refresh)
    api = RestEndpoint(url_prefix=origin_a.url(""), path="/steps/basic?do=401,200")
    await controller.fetch(api.use(auth))
    assert [decoded(sent) for sent in authorizations(origin_a)] == [
        "AC1:expired",
        "AC1:rotated",
    ]


async def test_a_refresh_may_give_a_new_user_and_password(
    controller: Any, origin_a: RecordingServer
) -> None:
    auth = AccessToken.basic("SK-old", "secret", refresh=lambda: ("SK-new", "other"))
    api = RestEndpoint(url_prefix=origin_a.url(""), path="/steps/pair?do=401,200,200")
    await controller.fetch(api.use(auth))
    await controller.fetch(api.use(auth))
    assert [decoded(sent) for sent in authorizations(origin_a)] == [
        "SK-old:secret",
        "SK-new:other",
        "SK-new:other",
    ]


@pytest.mark.parametrize("given", [42, ("a:b", "pw"), ("user", "pw\n")])
async def test_a_refresh_that_gives_no_basic_credentials_is_the_401(
    controller: Any,
    origin_a: RecordingServer,
    given: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    auth = AccessToken.basic("user", "first-pw", refresh=lambda: given)
    api = RestEndpoint(url_prefix=origin_a.url(""), path="/status/401")
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(api.use(auth))
    assert caught.value.status == 401
    cause = caught.value.__cause__
    assert isinstance(cause, RestwireError)
    assert "refresh() of a Basic AccessToken" in str(cause) or "refresh() gave" in str(
        cause
    )
    assert "GET http://127.0.0.1" in str(cause)  # names the call
    assert "pw" not in str(cause)
    assert len(origin_a.requests) == 1  # not sent again


def test_the_credentials_never_show_in_a_repr() -> None:
    auth = AccessToken.basic("AC-user-id", "hunter2-pw", refresh=lambda: "x")
    endpoint = RestEndpoint(url_prefix="https://api.example.com").use(auth)
    for text in (repr(auth), repr(endpoint)):
        assert "AC-user-id" not in text
        assert "hunter2" not in text
        assert auth.token is not None
        assert auth.token not in text
    assert repr(auth) == "AccessToken.basic(credentials=set, refresh=...)"


async def test_processes_share_one_refresh_of_named_basic_credentials(
    controller: Any, origin_a: RecordingServer, redis_url: str
) -> None:
    """Two workers (two instances, one slot): the first refreshes after
    its 401, the second finds the rotated credentials in the slot."""
    refreshes: list[str] = []

    def refresh() -> str:
        refreshes.append("x")
        return "rotated"

    def worker() -> AccessToken:
        return AccessToken.basic(
            "AC1", "expired", refresh=refresh, shared=SharedToken(redis_url, "twilio")
        )

    first, second = worker(), worker()
    api = RestEndpoint(url_prefix=origin_a.url(""), path="/steps/shared?do=401,200")
    await controller.fetch(api.use(first))
    again = RestEndpoint(url_prefix=origin_a.url(""), path="/steps/again?do=401,200")
    await controller.fetch(again.use(second))
    assert refreshes == ["x"]
    assert [decoded(sent) for sent in authorizations(origin_a)] == [
        "AC1:expired",
        "AC1:rotated",
        "AC1:expired",
        "AC1:rotated",
    ]
    slot = redis.Redis.from_url(redis_url).get("twilio:token")
    assert slot is not None
    assert base64.b64decode(slot) == b"AC1:rotated"


def test_an_unnamed_shared_slot_is_refused(redis_url: str) -> None:
    with pytest.raises(SettingError, match="give the SharedToken a name"):
        AccessToken.basic("AC1", "pw", shared=SharedToken(redis_url))


async def test_a_failing_refresh_logs_no_credential(
    controller: Any, origin_a: RecordingServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)

    def refresh() -> str:
        raise RuntimeError("vault said no to AC1:first-pw")  # a careless message

    auth = AccessToken.basic("AC1", "first-pw", refresh=refresh)
    api = RestEndpoint(url_prefix=origin_a.url(""), path="/status/401")
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(api.use(auth))
    shown = [str(caught.value), repr(caught.value), repr(auth)]
    shown.extend(record.getMessage() for record in caplog.records)
    text = "\n".join(shown)
    assert "first-pw" not in text
    assert auth.token is not None
    assert auth.token not in text
