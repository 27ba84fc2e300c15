"""Fixtures the hostile tests share."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from restwire import AsyncController, Controller


@pytest.fixture
async def make(mode: str) -> AsyncIterator[Any]:
    """``make(**controller_options)``: a controller of this test's mode (the
    sync one through ``tests.conftest.Awaitable``)."""
    from tests.conftest import Awaitable

    made: list[Any] = []

    def build(**options: Any) -> Any:
        if mode == "sync":
            controller = Controller(httpx.Client(), **options)
            made.append(controller)
            return Awaitable(controller)
        async_controller = AsyncController(httpx.AsyncClient(), **options)
        made.append(async_controller)
        return async_controller

    yield build
    for controller in made:
        if isinstance(controller, Controller):
            controller.client.close()
        else:
            await controller.client.aclose()
