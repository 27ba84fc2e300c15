"""What a long-running controller keeps: nothing grows without bound.

Stored errors are raised as fresh copies (their tracebacks do not grow on
every ``get``); records no stored result reaches are reclaimed; a schema that
refers to itself meets deep data with a typed error, not a ``RecursionError``.
Each runs under both controllers.
"""

from __future__ import annotations

import json
import traceback
from typing import Any, ClassVar

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import Entity, EntityError, Middleware, NetworkError, RestEndpoint
from tests.conftest import FakeClock
from tests.pipeline.entities import Post

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


def echo_id(request: httpx.Request) -> httpx.Response:
    """The record whose id is the last segment of the path."""
    return httpx.Response(200, json={"id": request.url.path.rsplit("/", 1)[1]})


class Undeclared:
    """A middleware that does not say it leaves credentials alone: get()
    runs the chain up to the innermost step, and the store answers there."""

    def on_request(self, exchange: Any) -> None:
        pass


@pytest.mark.parametrize("middleware", [(), (Undeclared(),)], ids=["direct", "chain"])
async def test_a_stored_error_is_raised_fresh_each_time(
    controller_factory: Any,
    httpx_mock: HTTPXMock,
    clock: FakeClock,
    middleware: tuple[Middleware, ...],
) -> None:
    controller = controller_factory(clock=clock)
    httpx_mock.add_response(status_code=503)
    failing = RestEndpoint(
        url_prefix=API, path="/down", error_expiry_length=60, middleware=middleware
    )
    raised: list[NetworkError] = []
    for _ in range(200):
        with pytest.raises(NetworkError) as caught:
            await controller.get(failing)
        raised.append(caught.value)
    assert len(httpx_mock.get_requests()) == 1
    assert len({id(error) for error in raised}) == len(raised)
    depths = [len(traceback.extract_tb(error.__traceback__)) for error in raised]
    assert max(depths[1:]) == min(depths[1:])  # no growth from one get to the next
    assert all(error.status == 503 for error in raised)
    assert str(raised[-1]) == str(raised[0])
    # what the store answered carries nothing of how it was answered
    assert all(error.__context__ is None for error in raised[1:])


async def test_records_no_result_reaches_are_reclaimed(
    controller_factory: Any, httpx_mock: HTTPXMock, clock: FakeClock
) -> None:
    """A poller of ever-new ids: once their results expire, their records go."""
    controller = controller_factory(clock=clock)
    httpx_mock.add_callback(echo_id, is_reusable=True)
    get_post = RestEndpoint(
        url_prefix=API, path="/posts/:id", schema=Post, data_expiry_length=1
    )
    peak = 0
    for index in range(2048):
        await controller.fetch(get_post, {"id": index})
        clock.advance(0.01)
        peak = max(peak, len(controller.store.records))
        assert len(controller.store) <= 101  # what 1 s holds: results expire at once
    # records of expired results go once as many bytes were dropped as are
    # held (and 256 KiB): a few hundred records at most, never the 2,048
    assert peak <= 600
    assert len(controller.store.records) <= 600


async def test_invalidated_results_release_their_records(
    controller_factory: Any, httpx_mock: HTTPXMock, clock: FakeClock
) -> None:
    controller = controller_factory(clock=clock)
    httpx_mock.add_callback(echo_id, is_reusable=True)
    get_post = RestEndpoint(url_prefix=API, path="/posts/:id", schema=Post)
    for index in range(1024):
        await controller.fetch(get_post, {"id": index})
        controller.invalidate(get_post, {"id": index})
    assert len(controller.store.records) < 512
    assert controller.store.results == {}


async def test_records_a_live_result_reaches_through_nesting_stay(
    controller_factory: Any, httpx_mock: HTTPXMock, clock: FakeClock
) -> None:
    controller = controller_factory(clock=clock)
    httpx_mock.add_response(
        url=f"{API}/nodes/root",
        json={"id": "root", "child": {"id": "a", "child": {"id": "b"}}},
    )
    httpx_mock.add_callback(echo_id, is_reusable=True)
    get_node = RestEndpoint(url_prefix=API, path="/nodes/:id", schema=Node)
    root = await controller.fetch(get_node, {"id": "root"})
    passing = get_node.extend(data_expiry_length=0.5)
    for index in range(2048):  # many reclaims of the records that expired
        await controller.fetch(passing, {"id": f"n{index}"})
        clock.advance(0.01)
    assert {"root", "a", "b"} <= {pk for _, pk in controller.store.records}
    again = await controller.get(get_node, {"id": "root"})
    assert again == root
    assert again.child.child.id == "b"


class Node(Entity):
    id: str = ""
    child: Any = None

    schema: ClassVar[dict[str, Any]] = {}


Node.schema = {"child": Node}


def nested(depth: int) -> str:
    """A node holding a node, ``depth`` times, as JSON text."""
    return (
        "".join(f'{{"id": "{level}", "child": ' for level in range(depth))
        + f'{{"id": "{depth}"}}'
        + "}" * depth
    )


async def test_deep_data_for_a_self_referencing_schema_is_a_typed_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    body = nested(600)  # (two frames a level: more than Python's 1,000)
    assert json.loads(body)  # the JSON parser itself reads it
    httpx_mock.add_response(
        content=body.encode(), headers={"content-type": "application/json"}
    )
    get_node = RestEndpoint(url_prefix=API, path="/nodes/:id", schema=Node)
    with pytest.raises(EntityError) as caught:
        await controller.fetch(get_node, {"id": "0"})
    message = str(caught.value)
    assert message.startswith(f"GET {API}/nodes/0: Node: nested too deeply")
    assert message.count(f"{API}/nodes/0") == 1  # (the request named once)
