"""A client's default query params (``httpx.Client(params=...)``) beside a
call's own: both are sent, the call's winning where both name a param.

httpx's and httpx2's ``build_request`` put a client's params in place of a
URL's whole query, so a call's ``{"q": ..., "page": 2}`` was sent as the
client's ``?api_key=...`` alone, and the answer was another query's. The
request is otherwise the one httpx builds (``test_adapter``), under both
drivers and both libraries, against a real server."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import httpx2
import pytest

from restwire import AsyncController, Controller, RestEndpoint
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

CLIENT_PARAMS = {"api_key": "param-SECRET-1", "format": "json", "page": "9"}


@pytest.mark.parametrize("library", [httpx, httpx2], ids=lambda module: module.__name__)
async def test_a_call_s_params_go_with_the_client_s_defaults(
    mode: str, library: Any, origin_a: RecordingServer
) -> None:
    endpoint = RestEndpoint(url_prefix=origin_a.origin, path="/echo")
    params = {"q": "a b", "tags": ["x", "y"], "page": 2}
    if mode == "sync":
        with Controller(library.Client(params=CLIENT_PARAMS)) as controller:
            controller.fetch(endpoint, params)
            controller.client.close()
    else:
        async with AsyncController(library.AsyncClient(params=CLIENT_PARAMS)) as actl:
            await actl.fetch(endpoint, params)
            await actl.client.aclose()
    (request,) = origin_a.requests
    sent = parse_qsl(urlsplit(request.path).query)
    own, defaults = sent[:4], sent[4:]  # (the call's own, in restwire's order)
    assert sorted(own) == [
        ("page", "2"),  # (the call's own, not the client's 9)
        ("q", "a b"),
        ("tags", "x"),
        ("tags", "y"),
    ]
    assert defaults == [("api_key", CLIENT_PARAMS["api_key"]), ("format", "json")]
