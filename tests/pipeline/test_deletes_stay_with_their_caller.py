"""A deletion is its caller's: ann deleting her record 2 takes it out of
her stored lists and items, and never out of bob's, whose record 2 (same
key, another tenant's) is his own. Through each way a deletion reaches the
store (a ``resource().delete``, ``controller.set`` and a stream's events,
both with an ``Invalidate`` schema), for entities and for record models
(pydantic and dataclass), under both drivers."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import Entity, Invalidate, RestEndpoint, resource
from tests.pipeline.test_model_records import Article, Memo
from tests.pipeline.test_stream import events_of

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
api = RestEndpoint(url_prefix=API)


class Post(Entity):
    id: int = 0
    title: str = ""


RECORDS = [Post, Article, Memo]

#: Each tenant's posts: the same ids, their own titles.
POSTS = {
    who: [{"id": 1, "title": f"{who} 1"}, {"id": 2, "title": f"{who} 2"}]
    for who in ("ann", "bob")
}


def as_caller(who: str) -> dict[str, str]:
    return {"authorization": f"Bearer {who}"}  # (as sent: pytest-httpx matches raw)


def answer_each_caller(httpx_mock: HTTPXMock) -> None:
    """``GET /items/`` and ``GET /items/2``, answered by who asks."""
    for who, posts in POSTS.items():
        httpx_mock.add_response(
            method="GET",
            url=f"{API}/items/",
            match_headers=as_caller(who),
            json=posts,
            is_reusable=True,
        )
        httpx_mock.add_response(
            method="GET",
            url=f"{API}/items/2",
            match_headers=as_caller(who),
            json=posts[1],
            is_reusable=True,
        )


def anns_deletions(path: str, schema: Any) -> RestEndpoint[Any]:
    """A read endpoint whose value deletes a record, called as ann."""
    return RestEndpoint(
        url_prefix=API, path=path, schema=Invalidate(schema), headers=as_caller("ann")
    )


def titles(values: Any) -> list[str]:
    return [value.title for value in values]


async def stored_by_both(
    controller: Any, httpx_mock: HTTPXMock, schema: Any
) -> dict[str, Any]:
    """Each caller's resource, with its list and item 2 stored."""
    answer_each_caller(httpx_mock)
    mine = {
        who: resource(
            path="/items/:id", schema=schema, endpoint=api, headers=as_caller(who)
        )
        for who in POSTS
    }
    for who, items in mine.items():
        assert titles(await controller.get(items.get_list)) == [f"{who} 1", f"{who} 2"]
        assert (await controller.get(items.get, {"id": 2})).title == f"{who} 2"
    return mine


async def assert_only_ann_lost_record_2(
    controller: Any, httpx_mock: HTTPXMock, mine: dict[str, Any]
) -> None:
    sent = len(httpx_mock.get_requests())
    bob = mine["bob"]
    assert titles(await controller.get(bob.get_list)) == ["bob 1", "bob 2"]
    assert (await controller.get(bob.get, {"id": 2})).title == "bob 2"
    assert titles(await controller.get(mine["ann"].get_list)) == ["ann 1"]
    assert len(httpx_mock.get_requests()) == sent  # all from the store
    # ann's item 2 is gone: her get asks the server again
    assert (await controller.get(mine["ann"].get, {"id": 2})).title == "ann 2"
    assert len(httpx_mock.get_requests()) == sent + 1


@pytest.mark.parametrize("schema", RECORDS)
async def test_a_resource_delete_leaves_another_callers_record(
    controller: Any, httpx_mock: HTTPXMock, schema: Any
) -> None:
    mine = await stored_by_both(controller, httpx_mock, schema)
    httpx_mock.add_response(
        method="DELETE",
        url=f"{API}/items/2",
        match_headers=as_caller("ann"),
        status_code=204,
    )
    await controller.fetch(mine["ann"].delete, {"id": 2})
    await assert_only_ann_lost_record_2(controller, httpx_mock, mine)


@pytest.mark.parametrize("schema", RECORDS)
async def test_a_deletion_set_leaves_another_callers_record(
    controller: Any, httpx_mock: HTTPXMock, schema: Any
) -> None:
    mine = await stored_by_both(controller, httpx_mock, schema)
    await controller.set(anns_deletions("/gone/:id", schema), {"id": 2}, {"id": 2})
    await assert_only_ann_lost_record_2(controller, httpx_mock, mine)


@pytest.mark.parametrize("schema", RECORDS)
async def test_a_streamed_deletion_leaves_another_callers_record(
    controller: Any, httpx_mock: HTTPXMock, schema: Any
) -> None:
    mine = await stored_by_both(controller, httpx_mock, schema)
    httpx_mock.add_response(
        method="GET",
        url=f"{API}/deletions",
        match_headers=as_caller("ann"),
        headers={"content-type": "text/event-stream"},
        content=b'event: deleted\ndata: {"id": 2}\n\n',
    )
    deletions = anns_deletions("/deletions", schema)
    assert await events_of(controller, deletions, 1) == [{"id": 2}]
    await assert_only_ann_lost_record_2(controller, httpx_mock, mine)


@pytest.mark.parametrize("schema", RECORDS)
async def test_a_callers_own_delete_shows_in_all_its_lists(
    controller: Any, httpx_mock: HTTPXMock, schema: Any
) -> None:
    """Kept to one caller, the deletion still reaches every list of that
    caller's, whichever endpoint stored it."""
    mine = await stored_by_both(controller, httpx_mock, schema)
    ann = mine["ann"]
    other_list = api.extend(path="/mine/", schema=[schema], headers=as_caller("ann"))
    httpx_mock.add_response(
        method="GET",
        url=f"{API}/mine/",
        match_headers=as_caller("ann"),
        json=POSTS["ann"],
    )
    assert titles(await controller.get(other_list)) == ["ann 1", "ann 2"]
    httpx_mock.add_response(
        method="DELETE",
        url=f"{API}/items/2",
        match_headers=as_caller("ann"),
        json={"id": 2},
    )
    await controller.fetch(ann.delete, {"id": 2})
    sent = len(httpx_mock.get_requests())
    assert titles(await controller.get(other_list)) == ["ann 1"]
    assert titles(await controller.get(ann.get_list)) == ["ann 1"]
    assert len(httpx_mock.get_requests()) == sent
