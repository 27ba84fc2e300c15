"""BodyStatus: a 2xx whose body says the call failed (Slack's ``ok: false``,
GraphQL's ``errors``) raised as a NetworkError naming the call and the
body's error, under both drivers. The Slack recipe runs it against the
demo API on 127.0.0.1 (tests/recipes)."""

from __future__ import annotations

import logging
import pickle
from typing import Any

import httpx
import pydantic
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    Controller,
    Exchange,
    NetworkError,
    RestEndpoint,
    RestwireError,
    SettingError,
)
from restwire.middlewares import AccessToken, BodyStatus, BodyStatusError

pytestmark = pytest.mark.anyio

SLACK = "https://slack.example.com/api"
TOKEN = "xoxb-secret-4711"


class SlackError(pydantic.BaseModel):
    ok: bool
    error: str
    needed: str | None = None


def post_message(**options: Any) -> RestEndpoint[Any]:
    return RestEndpoint(
        url_prefix=SLACK, path="/chat.postMessage", method="POST", **options
    ).use(AccessToken.bearer(TOKEN), BodyStatus())


async def test_ok_false_is_raised_naming_the_call_and_the_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    body = {"ok": False, "error": "channel_not_found", "warning": "superfluous"}
    httpx_mock.add_response(json=body, headers={"x-slack-req-id": "r-1"})
    with pytest.raises(BodyStatusError) as raised:
        await controller.fetch(post_message(), body={"channel": "C1", "text": "hi"})
    error = raised.value
    assert isinstance(error, NetworkError)
    assert str(error) == (
        f"POST {SLACK}/chat.postMessage: 200 OK: channel_not_found "
        "(the body of this 2xx says the call failed)"
    )
    assert error.code == "channel_not_found"
    assert error.status == 200
    assert error.data == body
    assert error.json() == body
    assert TOKEN not in str(error)
    assert TOKEN not in repr(error)
    arrived = pickle.loads(pickle.dumps(error))  # a worker's error travels
    assert type(arrived) is BodyStatusError
    assert (str(arrived), arrived.code, arrived.data) == (str(error), error.code, body)


async def test_ok_true_and_other_bodies_are_values(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"ok": True, "ts": "1.2"})
    httpx_mock.add_response(json=[{"ok": False}])  # not an object: left alone
    httpx_mock.add_response(json={"id": 1})  # no "ok": left alone
    endpoint = post_message()
    assert await controller.fetch(endpoint, body={}) == {"ok": True, "ts": "1.2"}
    assert await controller.fetch(endpoint, body={}) == [{"ok": False}]
    assert await controller.fetch(endpoint, body={}) == {"id": 1}


async def test_a_graphql_errors_list_is_raised_with_its_first_message(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    graphql = RestEndpoint(
        url_prefix="https://api.example.com", path="/graphql", method="POST"
    ).use(BodyStatus(ok=None, errors="errors"))
    errors = [{"message": "Field 'nme' doesn't exist"}, {"message": "second"}]
    httpx_mock.add_response(json={"data": None, "errors": errors})
    httpx_mock.add_response(json={"data": {"name": "Ada"}, "errors": []})
    with pytest.raises(BodyStatusError) as raised:
        await controller.fetch(graphql, body={"query": "{ nme }"})
    assert str(raised.value) == (
        "POST https://api.example.com/graphql: 200 OK: Field 'nme' doesn't "
        "exist; second (the body of this 2xx says the call failed)"
    )
    assert raised.value.code == "Field 'nme' doesn't exist"
    value = await controller.fetch(graphql, body={"query": "{ name }"})
    assert value == {"data": {"name": "Ada"}, "errors": []}


async def test_the_body_is_typed_by_the_error_schema(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"ok": False, "error": "missing_scope", "needed": "x"})
    httpx_mock.add_response(json={"ok": False, "error": 42})  # does not validate
    endpoint = post_message(error_schema=SlackError)
    with pytest.raises(BodyStatusError) as raised:
        await controller.fetch(endpoint, body={})
    assert raised.value.data == SlackError(ok=False, error="missing_scope", needed="x")
    with pytest.raises(BodyStatusError, match="says the call failed") as raised:
        await controller.fetch(endpoint, body={})
    assert raised.value.data == {"ok": False, "error": 42}  # as it came
    assert raised.value.code is None


class Seen:
    def __init__(self) -> None:
        self.errors: list[RestwireError] = []

    def on_error(self, exchange: Exchange, error: RestwireError) -> None:
        self.errors.append(error)


async def test_an_outer_middleware_sees_the_error_and_a_long_one_is_cut(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    seen = Seen()
    endpoint = RestEndpoint(url_prefix=SLACK, path="/auth.test").use(seen, BodyStatus())
    httpx_mock.add_response(json={"ok": False, "error": "x" * 500})
    with pytest.raises(BodyStatusError) as raised:
        await controller.fetch(endpoint)
    assert seen.errors == [raised.value]
    assert "x" * 301 not in str(raised.value)  # cut, as a 4xx's reason
    assert str(raised.value).endswith("(the body of this 2xx says the call failed)")


def test_bad_settings_are_refused_where_written() -> None:
    with pytest.raises(SettingError, match=r"BodyStatus\(ok=\.\.\.\)"):
        BodyStatus(ok="")
    with pytest.raises(SettingError, match=r"BodyStatus\(errors=\.\.\.\)"):
        BodyStatus(errors=3)  # type: ignore[arg-type]
    with pytest.raises(SettingError, match="give ok"):
        BodyStatus(ok=None)
    assert repr(BodyStatus(errors="errors")) == (
        "BodyStatus(ok='ok', error='error', errors='errors')"
    )


async def test_a_header_the_endpoint_marks_sensitive_is_redacted_when_echoed(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """As in a 4xx's message: a header the endpoint marks sensitive (here
    one otherwise public) that the body quotes back is never shown."""
    secret = "tenant-secret-4711"
    httpx_mock.add_response(json={"ok": False, "error": f"bad agent {secret}"})
    endpoint = RestEndpoint(
        url_prefix=SLACK,
        path="/auth.test",
        headers={"User-Agent": secret},
        sensitive_headers={"user-agent"},
    ).use(BodyStatus())
    with pytest.raises(BodyStatusError) as raised:
        await controller.fetch(endpoint)
    assert secret not in str(raised.value)
    assert "[redacted]" in str(raised.value)
    assert secret not in repr(raised.value)


def test_an_error_body_not_fitting_error_schema_logs_no_marked_header(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The debug line saying why the body did not fit quotes no header the
    endpoint marks sensitive, even one the body echoes."""
    secret = "marked-value-5566"
    caplog.set_level(logging.DEBUG, logger="restwire")
    body = {"ok": False, "error": "bad", "code": f"no {secret}"}
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=body))

    class Failure(pydantic.BaseModel):
        code: int

    endpoint = RestEndpoint(
        url_prefix="https://api.example.com",
        path="/x",
        headers={"User-Agent": secret},  # public, unless marked
        sensitive_headers={"User-Agent"},
        error_schema=Failure,
    ).use(BodyStatus())
    with (
        Controller(httpx.Client(transport=transport)) as controller,
        pytest.raises(BodyStatusError),
    ):
        controller.fetch(endpoint)
    lines = [each.getMessage() for each in caplog.records]
    assert any("does not validate as error_schema" in line for line in lines)
    assert secret not in "\n".join(lines)
