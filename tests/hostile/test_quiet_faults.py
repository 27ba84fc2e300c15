"""What a call shows and waits for when things go wrong quietly (issue 41,
finding 9): restwire's own request log line keeps a query credential out
as its DEBUG line does, and a silent Redis costs a call one timeout at most.

Real sockets throughout: a :class:`RecordingServer` on 127.0.0.1 and a real
``redis-server`` frozen with ``SIGSTOP`` (it accepts connections, and never
answers), under both drivers.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from restwire import AsyncController, Controller, RestEndpoint
from tests.conftest import Awaitable
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

SECRET = "q-SECRET-77"

Make = Callable[..., Any]


@pytest.fixture
async def make(mode: str) -> AsyncIterator[Make]:
    """A controller of this test's driver on a client restwire makes (the
    direct send, which writes httpx's line itself), closed after."""
    made: list[Any] = []

    def build(**options: Any) -> Any:
        if mode == "sync":
            controller = Controller(**options)
            made.append(controller)
            return Awaitable(controller)
        async_controller = AsyncController(**options)
        made.append(async_controller)
        return async_controller

    yield build
    for controller in made:
        if isinstance(controller, Controller):
            controller.close()
        else:
            await controller.close()


async def test_the_request_log_line_redacts_query_credentials(
    make: Make, origin_a: RecordingServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The INFO line in httpx's format (logger ``httpx``) that restwire
    writes for a client it sends on directly shows the call's URL with
    ``access_token`` and ``sig`` redacted, the other params as they are."""
    endpoint = RestEndpoint(url_prefix=origin_a.url(""), path="/echo")
    controller = make()
    with caplog.at_level(logging.DEBUG):
        await controller.fetch(
            endpoint, {"access_token": SECRET, "page": "2", "sig": SECRET + "x"}
        )
    assert origin_a.requests[-1].path.count(SECRET) == 2  # sent as given
    lines = [
        record.getMessage()
        for record in caplog.records
        if record.name == httpx.__name__ and "HTTP Request" in record.getMessage()
    ]
    assert len(lines) == 1, caplog.messages
    assert "access_token=[redacted]" in lines[0]
    assert "sig=[redacted]" in lines[0]
    assert "page=2" in lines[0]
    assert SECRET not in caplog.text
