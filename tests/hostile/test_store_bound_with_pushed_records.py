"""The store's byte bound (``max_store_bytes``) holds for records a
stream pushes with no result of their own. Under both drivers."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from pytest_httpx import HTTPXMock

from restwire import Entity, RestEndpoint
from tests.pipeline.test_stream import events_of

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
STREAM = {"content-type": "text/event-stream"}

live = RestEndpoint(url_prefix=API, path="/live")


class Tick(Entity):
    id: str = ""
    value: int = 0
    note: str = ""

    schema: ClassVar[dict[str, Any]] = {}


async def test_review_pushed_entities_grow_the_store_past_max_store_bytes(
    make: Any, httpx_mock: HTTPXMock
) -> None:
    """The store's byte bound (``max_store_bytes``) counts results only:
    ``Store._commit`` adds a record's size only when a result is kept with
    it, and records are reclaimed only when a *result* is dropped. A
    stream with a schema (``StoreAccess.pushed``) commits records with no
    result, so a server pushing entities with new primary keys grows that
    identity's partition without bound, while ``size_bytes`` says 0 and
    no eviction ever runs (the same holds for a side-effect create with a
    schema). A partition with no result is never dropped either."""
    limit = 20_000
    controller = make(max_store_bytes=limit)
    body = b"".join(
        b'data: {"id": "t%d", "value": %d, "note": "%s"}\n\n' % (n, n, b"x" * 200)
        for n in range(3000)
    )
    httpx_mock.add_response(headers=STREAM, content=body)
    got = await events_of(controller, live.extend(schema=Tick), 3000)
    assert len(got) == 3000
    held = len(controller.store.records)
    # each record holds well over 200 bytes: past the bound many times over
    assert held * 200 <= limit, (
        f"{held} records held, size_bytes={controller.store.size_bytes}"
    )
