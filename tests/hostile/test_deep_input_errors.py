"""Input deep or long enough to trip a Python builtin gives a restwire
error, never a bare ``ValueError`` or ``RecursionError`` from inside: a
``retry:`` line of 5,000 digits in an event stream, a token answer of
60,000 nested brackets, params that hold themselves. Under both drivers."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import RestEndpoint, RestwireError
from restwire.middlewares import OAuth2ClientCredentials, OAuth2Error
from tests.pipeline.test_stream import events_of

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
STREAM = {"content-type": "text/event-stream"}
TOKEN_URL = "https://auth.example.com/oauth/token"

live = RestEndpoint(url_prefix=API, path="/live")


def me(auth: Any) -> RestEndpoint[Any]:
    return RestEndpoint(url_prefix=API, path="/me").use(auth)


async def test_review_sse_huge_retry_escapes_as_bare_value_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """``EventParser._process`` takes ``retry:`` with ``int(raw)`` once
    ``raw.isdigit()``. A server line of 5,000 digits (well within
    ``max_event_size``) makes Python's int-string limit raise a bare
    ``ValueError`` out of ``stream()``: not a ``RestwireError``, not naming
    the call. The standard says such a value is simply a (huge) delay,
    which restwire caps at 60 s anyway."""
    httpx_mock.add_response(
        headers=STREAM, content=b"retry: " + b"9" * 5000 + b"\n\ndata: x\n\n"
    )
    error: BaseException | None = None
    try:
        got = await events_of(controller, live, 1)
    except Exception as caught:
        error = caught
    assert error is None or isinstance(error, RestwireError), repr(error)
    assert [event.data for event in got] == ["x"]


async def test_review_oauth2_deeply_nested_token_answer_escapes_as_recursion_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """``_OAuth2Grant._json`` catches ``ValueError`` only; a token endpoint
    (or anything on its path) answering 60,000 ``[`` (under the 64 KiB
    bound) makes ``json.loads`` raise ``RecursionError``, which escapes the
    call bare instead of an ``OAuth2Error`` naming it. Same in
    ``_refused`` for a 4xx body. (``_base.http`` and ``_controller.streams.pushed``
    already catch ``RecursionError``.)"""
    httpx_mock.add_response(url=TOKEN_URL, content=b"[" * 60_000)
    auth = OAuth2ClientCredentials(TOKEN_URL, "client", "s3cret")
    error: BaseException | None = None
    try:
        await controller.fetch(me(auth))
    except BaseException as caught:
        error = caught
    assert isinstance(error, OAuth2Error), repr(error)


async def test_review_self_referencing_params_escape_as_recursion_error(
    controller: Any,
) -> None:
    """``_wire.params._Flattener`` walks nested params recursively with
    no depth bound or cycle check: a list that holds itself (under the
    default ``"repeat"`` style, which flattens nested lists) raises a bare
    ``RecursionError`` from ``fetch`` (after building ever longer names
    under ``"brackets"``), not a ``ParameterError`` naming the call and
    the parameter, as every other bad param does."""
    looped: list[Any] = [1]
    looped.append(looped)
    endpoint = RestEndpoint(url_prefix=API, path="/x")
    error: BaseException | None = None
    try:
        await controller.fetch(endpoint, {"ids": looped})
    except BaseException as caught:
        error = caught
    assert isinstance(error, RestwireError), repr(error)
