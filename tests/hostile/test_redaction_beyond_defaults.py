"""Credentials beyond the default lists are redacted too: a refresh token
a provider quotes back in its refusal, and a query parameter that
``Sharing(credential_params=...)`` names, are never shown in an error, a
request key or a log record. Under both drivers."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import CREDENTIAL_PARAMS, NotFoundError, RestEndpoint, Sharing
from restwire.middlewares import OAuth2ClientCredentials, OAuth2Error
from tests.conftest import FakeClock

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
TOKEN_URL = "https://auth.example.com/oauth/token"


def me(auth: Any) -> RestEndpoint[Any]:
    return RestEndpoint(url_prefix=API, path="/me").use(auth)


async def test_review_oauth2_refresh_token_quoted_by_the_provider_is_shown(
    controller: Any,
    httpx_mock: HTTPXMock,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``_scrub`` replaces the client secret and the password in what the
    provider says, but not the refresh token the refused request carried
    (nor an access token). A provider whose ``error_description`` echoes
    the refresh token it refused puts a live credential into the
    ``OAuth2Error``'s message, its ``error_description`` and every log or
    trace that prints the error."""
    httpx_mock.add_response(
        url=TOKEN_URL,
        json={
            "access_token": "t1",
            "token_type": "Bearer",
            "expires_in": 60,
            "refresh_token": "RT-very-secret-42",
        },
    )
    httpx_mock.add_response(
        url=TOKEN_URL,
        status_code=400,
        json={
            "error": "invalid_request",
            "error_description": "refresh_token RT-very-secret-42 is malformed",
        },
    )
    httpx_mock.add_response(url=f"{API}/me", json={})
    auth = OAuth2ClientCredentials(TOKEN_URL, "client", "s3cret", clock=clock)
    await controller.fetch(me(auth))
    clock.advance(61)  # expired: the refusal is the call's error
    with caplog.at_level(logging.DEBUG), pytest.raises(OAuth2Error) as caught:
        await controller.fetch(me(auth))
    shown = f"{caught.value} {caught.value!r} {caught.value.error_description} {caplog.text}"
    assert "RT-very-secret-42" not in shown


async def test_review_custom_credential_param_shown_in_errors_and_keys(
    make: Any, httpx_mock: HTTPXMock
) -> None:
    """``Sharing(credential_params=...)`` makes a query parameter identity,
    but every place that *shows* a URL redacts only the module constant
    ``CREDENTIAL_PARAMS`` (``_base.errors.redact_params``, used by
    ``redact_url``, ``_chain.identity.plain_url`` and OpenTelemetry's ``url.full``):
    the status error's message and the request key (what logs, reprs,
    the store and OTel spans show) carry the caller's token in clear."""
    assert "x-tenant-token" not in CREDENTIAL_PARAMS
    controller = make(
        sharing=Sharing(credential_params=CREDENTIAL_PARAMS | {"x-tenant-token"})
    )
    endpoint = RestEndpoint(url_prefix=API, path="/x")
    params = {"x-tenant-token": "ann-secret-token"}
    httpx_mock.add_response(status_code=404)
    with pytest.raises(NotFoundError) as caught:
        await controller.fetch(endpoint, params)
    key = getattr(controller, "controller", controller).key(endpoint, params)
    assert "ann-secret-token" not in f"{caught.value} {key}"
