"""controller.paginate over a real socket: pages, items, limits, cycles."""

from __future__ import annotations

from typing import Any

import pytest

from restwire import Entity, InvalidRequest, RestEndpoint
from restwire.middlewares import LinkPagination
from tests.conftest import collect
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio


class Item(Entity):
    id: str = ""
    title: str = ""


def listing(server: RecordingServer, **options: Any) -> RestEndpoint:
    return RestEndpoint(
        url_prefix=server.origin,
        path="/pages",
        schema={"results": [Item]},
        **options,
    ).use(LinkPagination())


async def test_pages_follow_next_until_the_end(
    controller: Any, origin_a: RecordingServer
) -> None:
    pages = await collect(controller.paginate(listing(origin_a), {"last": 3}))
    assert [[item.id for item in page["results"]] for page in pages] == [
        ["1-1", "1-2"],
        ["2-1", "2-2"],
        ["3-1", "3-2"],
    ]
    assert [request.path for request in origin_a.requests] == [
        "/pages?last=3",
        "/pages?page=2&last=3",
        "/pages?page=3&last=3",
    ]


async def test_items_flattens_the_pages(
    controller: Any, origin_a: RecordingServer
) -> None:
    items = await collect(
        controller.paginate(listing(origin_a), {"last": 2}, items=True)
    )
    assert items == [
        Item(id="1-1", title="item 1"),
        Item(id="1-2", title="item 2"),
        Item(id="2-1", title="item 1"),
        Item(id="2-2", title="item 2"),
    ]


async def test_items_work_without_link_pagination_on_a_plain_list(
    controller: Any, origin_a: RecordingServer
) -> None:
    plain = RestEndpoint(url_prefix=origin_a.origin, path="/pages", schema=[Item])
    items = await collect(controller.paginate(plain, {"last": 2}, items=True))
    assert len(items) == 4


async def test_max_pages_bounds_the_walk(
    controller: Any, origin_a: RecordingServer
) -> None:
    pages = await collect(
        controller.paginate(listing(origin_a), {"last": 50}, max_pages=4)
    )
    assert len(pages) == 4
    assert len(origin_a.requests) == 4


async def test_a_cycle_of_next_links_ends(
    controller: Any, origin_a: RecordingServer
) -> None:
    params = {"cycle": 2, "last": 3, "page": 1}
    pages = await collect(controller.paginate(listing(origin_a), params))
    assert [page["results"][0].id for page in pages] == ["1-1", "2-1"]
    assert [request.path for request in origin_a.requests] == [
        "/pages?cycle=2&last=3&page=1",
        "/pages?cycle=2&last=3&page=2",
    ]


async def test_a_next_link_to_another_origin_is_refused(
    controller: Any, origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    elsewhere = origin_b.url("/pages?page=2&last=2")
    with pytest.raises(InvalidRequest, match="another origin"):
        await collect(
            controller.paginate(listing(origin_a), {"last": 2, "next": elsewhere})
        )
    assert origin_b.requests == []


async def test_cross_origin_can_be_allowed(
    controller: Any, origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    elsewhere = origin_b.url("/pages?page=2&last=2")
    pages = await collect(
        controller.paginate(
            listing(origin_a), {"last": 2, "next": elsewhere}, cross_origin=True
        )
    )
    assert len(pages) == 2
    assert len(origin_b.requests) == 1
