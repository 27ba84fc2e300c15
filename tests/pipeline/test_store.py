"""The store through the controller: normalization, expiry, reset, invalidate.

Every test runs under both controllers, with a fake clock for expiry.
"""

from __future__ import annotations

import datetime
import operator
from decimal import Decimal
from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    EntityError,
    Invalidate,
    NetworkError,
    RestEndpoint,
    resource,
)
from restwire._store import store as _store
from restwire._store.schemas import (
    MISSING,
    Batch,
    Ref,
    denormalize,
    normalize,
    plan_of,
)
from restwire._store.store import Store
from restwire._wire.content import ContentName
from restwire.middlewares import LinkPagination
from tests.conftest import FakeClock
from tests.pipeline.entities import Article, ExchangePrice, Post, Stream, User

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
get_price = RestEndpoint(
    url_prefix=API, path="/price/:exchange_pair", schema=ExchangePrice
)
PRICE = {
    "exchange_pair": "BTC-USD",
    "price": "100.50",
    "updated_at": "2024-05-01T12:00:00Z",
}


async def test_fetch_returns_typed_values_not_wire_strings(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=PRICE)
    price = await controller.fetch(get_price, {"exchange_pair": "BTC-USD"})
    assert price.price == Decimal("100.50")
    assert price.updated_at == datetime.datetime(2024, 5, 1, 12, tzinfo=datetime.UTC)


async def test_two_endpoints_share_one_record_and_the_newer_fetch_wins(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    one = RestEndpoint(url_prefix=API, path="/streams/:username", schema=Stream)
    listed = RestEndpoint(url_prefix=API, path="/streams/", schema=[Stream])
    httpx_mock.add_response(
        url=f"{API}/streams/sky", json={"username": "sky", "title": "old", "game": "go"}
    )
    httpx_mock.add_response(
        url=f"{API}/streams/", json=[{"username": "sky", "title": "new", "live": True}]
    )
    await controller.fetch(one, {"username": "sky"})
    await controller.fetch(listed)
    merged = Stream(username="sky", title="new", game="go", live=True)
    assert await controller.get(one, {"username": "sky"}) == merged
    assert await controller.get(listed) == [merged]
    assert len(controller.store.records) == 1


async def test_get_serves_fresh_data_and_refetches_at_expiry(
    controller_factory: Any, httpx_mock: HTTPXMock, clock: FakeClock
) -> None:
    controller = controller_factory(clock=clock)
    endpoint = get_price.extend(data_expiry_length=10)
    httpx_mock.add_response(json=PRICE)
    httpx_mock.add_response(json={**PRICE, "price": "101"})
    params = {"exchange_pair": "BTC-USD"}
    assert (await controller.get(endpoint, params)).price == Decimal("100.50")
    clock.advance(9.999)
    assert (await controller.get(endpoint, params)).price == Decimal("100.50")
    assert len(httpx_mock.get_requests()) == 1
    clock.advance(0.001)
    assert (await controller.get(endpoint, params)).price == Decimal("101")
    assert len(httpx_mock.get_requests()) == 2


async def test_fetch_always_goes_to_the_network(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=PRICE, is_reusable=True)
    params = {"exchange_pair": "BTC-USD"}
    await controller.fetch(get_price, params)
    await controller.fetch(get_price, params)
    assert len(httpx_mock.get_requests()) == 2


async def test_result_keeps_fetched_and_expiry_times(
    controller_factory: Any, httpx_mock: HTTPXMock, clock: FakeClock
) -> None:
    controller = controller_factory(clock=clock)
    httpx_mock.add_response(json=PRICE)
    await controller.fetch(get_price, {"exchange_pair": "BTC-USD"})
    (result,) = controller.store.results.values()
    assert result.fetched_at == clock.now
    assert result.expires_at == clock.now + 60


async def test_zero_expiry_keeps_nothing(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=PRICE, is_reusable=True)
    endpoint = get_price.extend(data_expiry_length=0)
    price = await controller.fetch(endpoint, {"exchange_pair": "BTC-USD"})
    assert price.price == Decimal("100.50")
    assert controller.store.results == {}
    assert controller.store.records == {}
    await controller.get(endpoint, {"exchange_pair": "BTC-USD"})
    assert len(httpx_mock.get_requests()) == 2


@pytest.mark.parametrize("content", ["blob", "bytes"])
async def test_binary_content_is_never_normalized_or_kept(
    controller: Any, httpx_mock: HTTPXMock, content: ContentName
) -> None:
    httpx_mock.add_response(content=b"\x00binary")
    download = RestEndpoint(url_prefix=API, path="/files/:id/download", content=content)
    await controller.fetch(download, {"id": 1})
    assert controller.store.results == {}


async def test_errors_are_kept_for_error_expiry_length(
    controller_factory: Any, httpx_mock: HTTPXMock, clock: FakeClock
) -> None:
    controller = controller_factory(clock=clock)
    httpx_mock.add_response(status_code=503)
    httpx_mock.add_response(json=PRICE)
    params = {"exchange_pair": "BTC-USD"}
    with pytest.raises(NetworkError):
        await controller.get(get_price, params)
    with pytest.raises(NetworkError):
        await controller.get(get_price, params)  # the kept error, no request
    assert len(httpx_mock.get_requests()) == 1
    clock.advance(1)
    assert (await controller.get(get_price, params)).pk() == "BTC-USD"


async def test_invalidate_forgets_one_result(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=PRICE, is_reusable=True)
    params = {"exchange_pair": "BTC-USD"}
    await controller.get(get_price, params)
    controller.invalidate(get_price, params)
    await controller.get(get_price, params)
    assert len(httpx_mock.get_requests()) == 2


async def test_reset_empties_the_store(controller: Any, httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(json=PRICE, is_reusable=True)
    params = {"exchange_pair": "BTC-USD"}
    await controller.get(get_price, params)
    controller.reset()
    assert controller.store.records == {}
    await controller.get(get_price, params)
    assert len(httpx_mock.get_requests()) == 2


async def test_a_delete_removes_the_record_from_items_and_lists(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    posts = resource(
        path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=API)
    )
    httpx_mock.add_response(
        method="GET", url=f"{API}/posts/", json=[{"id": "1"}, {"id": "2"}]
    )
    httpx_mock.add_response(method="GET", url=f"{API}/posts/1", json={"id": "1"})
    httpx_mock.add_response(method="DELETE", url=f"{API}/posts/1", status_code=204)
    httpx_mock.add_response(method="GET", url=f"{API}/posts/1", status_code=404)
    await controller.get(posts.get_list)
    await controller.get(posts.get, {"id": "1"})
    await controller.fetch(posts.delete, {"id": "1"})
    assert await controller.get(posts.get_list) == [Post(id="2")]
    with pytest.raises(NetworkError):  # the item is gone: get asks the server again
        await controller.get(posts.get, {"id": "1"})


async def test_an_update_changes_the_record_everywhere(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    posts = resource(
        path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=API)
    )
    httpx_mock.add_response(method="GET", json=[{"id": "1", "title": "old"}])
    httpx_mock.add_response(method="PATCH", json={"id": "1", "title": "new"})
    await controller.get(posts.get_list)
    updated = await controller.fetch(
        posts.partial_update, {"id": "1"}, {"title": "new"}
    )
    assert updated == Post(id="1", title="new")
    assert await controller.get(posts.get_list) == [Post(id="1", title="new")]


async def test_a_malformed_entity_is_a_clear_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={**PRICE, "price": "lots"})
    with pytest.raises(EntityError, match=r"ExchangePrice\.price"):
        await controller.fetch(get_price, {"exchange_pair": "BTC-USD"})


async def test_get_is_for_reads(controller: Any) -> None:
    with pytest.raises(TypeError, match="use fetch"):
        await controller.get(get_price.extend(method="POST"), {"exchange_pair": "x"})


async def test_expired_results_go_at_the_next_change(
    controller_factory: Any, httpx_mock: HTTPXMock, clock: FakeClock
) -> None:
    controller = controller_factory(clock=clock)
    httpx_mock.add_response(json={"ok": True}, is_reusable=True)
    endpoint = RestEndpoint(url_prefix=API, path="/items/:id", data_expiry_length=1)
    for index in range(300):
        await controller.fetch(endpoint, {"id": index})
    assert len(controller.store.results) == 300
    clock.advance(2)  # every one of them has expired
    await controller.fetch(endpoint, {"id": "last"})
    assert list(controller.store.results) == [f"GET {API}/items/last"]
    assert len(controller.store) == 1


def roundtrip(schema: Any, value: Any) -> tuple[Any, Batch, Any]:
    batch = Batch()
    normalized = normalize(schema, value, batch, {})
    return normalized, batch, denormalize(schema, normalized, batch.records)


def test_an_entity_becomes_a_reference_and_reads_back() -> None:
    normalized, batch, read = roundtrip(Post, {"id": "1", "title": "t"})
    assert normalized == Ref("Post", "1")
    assert batch.records == {("Post", "1"): Post(id="1", title="t")}
    assert read == Post(id="1", title="t")


def test_lists_and_objects_nest_to_any_depth() -> None:
    value = {"link": "<x>", "results": [{"id": "1"}, {"id": "2"}], "meta": {"n": 2}}
    normalized, _, read = roundtrip({"results": [Post]}, value)
    assert normalized == {
        "link": "<x>",
        "results": [Ref("Post", "1"), Ref("Post", "2")],
        "meta": {"n": 2},
    }
    assert read == {
        "link": "<x>",
        "results": [Post(id="1"), Post(id="2")],
        "meta": {"n": 2},
    }
    page = {"page": {"items": [[{"id": "3"}]]}}
    assert roundtrip({"page": {"items": [[Post]]}}, page)[2] == {
        "page": {"items": [[Post(id="3")]]}
    }


def test_the_same_entity_twice_in_one_response_is_one_merged_record() -> None:
    value = [{"username": "sky", "title": "a"}, {"username": "sky", "game": "go"}]
    _, batch, read = roundtrip([Stream], value)
    assert len(batch.records) == 1
    merged = Stream(username="sky", title="a", game="go")
    assert read == [merged, merged]


def test_nested_entities_are_normalized_into_their_own_records() -> None:
    value = {"id": 1, "title": "t", "author": {"id": 9, "name": "ann"}}
    normalized, batch, read = roundtrip(Article, value)
    article = batch.records[("Article", "1")]
    assert isinstance(article, Article)
    assert article.author == Ref("User", "9")
    assert normalized == Ref("Article", "1")
    assert set(batch.records) == {("Article", "1"), ("User", "9")}
    assert read.author == User(id=9, name="ann")


def test_entities_that_refer_to_each_other_read_back_without_looping() -> None:
    value = {
        "id": 9,
        "name": "ann",
        "posts": [{"id": 1, "title": "t", "author": {"id": 9}}],
    }
    _, _, user = roundtrip(User, value)
    assert user.posts[0].title == "t"
    assert user.posts[0].author is user


def test_a_deleted_record_drops_out_of_lists_and_invalidates_elsewhere() -> None:
    batch = Batch()
    listed = normalize([Post], [{"id": "1"}, {"id": "2"}], batch, {})
    single = normalize({"post": Post}, {"post": {"id": "1"}}, batch, {})
    records = dict(batch.records)
    del records[("Post", "1")]
    assert denormalize([Post], listed, records) == [Post(id="2")]
    assert denormalize({"post": Post}, single, records) is MISSING
    assert denormalize(Post, Ref("Post", "1"), records) is MISSING


def test_invalidate_takes_the_pk_from_the_body_or_the_params() -> None:
    batch = Batch()
    normalize(Invalidate(Post), None, batch, {"id": 5})
    normalize(Invalidate(Post), {"id": "6", "title": "gone"}, batch, {"id": 7})
    assert batch.deleted == {("Post", "5"), ("Post", "6")}


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        (Post, ["x"], "Post: expected an object"),
        ([Post], {"id": "1"}, "expected a list"),
        ({"results": [Post]}, [1], "expected an object"),
        (Post, {"title": "no id"}, "Post: has no primary key"),
        (Post, 7, "Post: expected an object"),
    ],
)
def test_data_of_the_wrong_shape_is_a_clear_error(
    schema: Any, value: Any, message: str
) -> None:
    with pytest.raises(EntityError, match=message):
        normalize(schema, value, Batch(), {})


def test_a_pk_that_is_not_text_is_an_error() -> None:
    class NumericPk(Post):
        def pk(self) -> Any:
            return 5

    with pytest.raises(EntityError, match="pk\\(\\) must return text, not int"):
        normalize(NumericPk, {"id": "5"}, Batch(), {})


def test_no_schema_means_the_value_as_it_is() -> None:
    value = {"a": [1, {"b": 2}]}
    assert roundtrip(None, value)[2] is value


def test_data_outside_the_schema_is_never_walked() -> None:
    deep: Any = []
    for _ in range(10_000):
        deep = [deep]
    value = {"results": [{"id": "1"}], "deep": deep}
    assert roundtrip({"results": [Post]}, value)[2]["deep"] is deep


class Counting:
    """A middleware that counts the calls whose request side it saw."""

    def __init__(self, sends_credentials: bool | None) -> None:
        self.calls = 0
        if sends_credentials is not None:
            self.sends_credentials = sends_credentials

    def on_request(self, exchange: Any) -> None:
        self.calls += 1


async def test_a_credential_free_stack_answers_get_without_running_the_chain(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"id": "1"})
    counting = Counting(sends_credentials=False)
    endpoint = RestEndpoint(url_prefix=API, path="/posts/:id", schema=Post).use(
        counting
    )
    assert not endpoint.middleware.sends_credentials
    first = await controller.fetch(endpoint, {"id": "1"})
    assert await controller.get(endpoint, {"id": "1"}) == first
    assert counting.calls == 1  # the get read the store directly


async def test_an_undeclared_middleware_gets_the_chain_run_first(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"id": "1"})
    counting = Counting(sends_credentials=None)
    endpoint = RestEndpoint(url_prefix=API, path="/posts/:id", schema=Post).use(
        counting
    )
    assert endpoint.middleware.sends_credentials
    first = await controller.fetch(endpoint, {"id": "1"})
    assert await controller.get(endpoint, {"id": "1"}) == first
    assert counting.calls == 2  # run up to the innermost step: who is calling?
    assert len(httpx_mock.get_requests()) == 1


async def test_the_seeds_paginated_schema_with_a_literal_beside_schemas(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """data-client writes ``{results: [Article], link: ''}``: a literal beside
    the schemas, whose value passes as it is."""
    httpx_mock.add_response(
        json=[{"id": "1"}], headers={"link": f'<{API}/posts/?page=2>; rel="next"'}
    )
    listing = RestEndpoint(
        url_prefix=API, path="/posts/", schema={"results": [Post], "link": ""}
    ).use(LinkPagination())
    page = await controller.get(listing)
    assert page["results"] == [Post(id="1")]
    assert page["link"] == f'<{API}/posts/?page=2>; rel="next"'


def _streams(count: int, title: str, **more: Any) -> list[dict[str, Any]]:
    """``count`` streams, each with every field of ``Stream`` (a list the
    batch takes whole), and ``more``."""
    return [
        {
            "username": f"u{n}",
            "title": f"{title}{n}",
            "game": "go",
            "current_viewers": n,
            "live": True,
            **more,
        }
        for n in range(count)
    ]


@pytest.mark.parametrize(
    ("schema", "value", "before"),
    [
        # a list into an identity with no records (the store takes the batch's)
        ([Stream], _streams(20, "a"), None),
        # the same list again: every record replaced as it was made
        ([Stream], _streams(20, "b"), _streams(20, "a")),
        # stored records keep a key the new data lacks: merged, not replaced
        ([Stream], _streams(20, "c"), _streams(20, "a", rank=3)),
        # a list and one of its records again beside it: merged in the batch
        (
            {"items": [Stream], "top": Stream},
            {"items": _streams(20, "d"), "top": {"username": "u3", "title": "top"}},
            _streams(20, "a"),
        ),
        # a record deleted by the same response
        (
            {"items": [Stream], "gone": Invalidate(Stream)},
            {"items": _streams(20, "e"), "gone": {"username": "u4"}},
            None,
        ),
    ],
    ids=["first", "replaced", "merged", "repeated-in-batch", "deleted"],
)
def test_commit_and_read_gives_what_commit_then_read_gives(
    schema: Any, value: Any, before: list[dict[str, Any]] | None
) -> None:
    """``Store.commit_and_read`` (what a fetch uses: a list taken whole is
    read back without a lookup per item) gives exactly the value, and
    leaves exactly the records, that ``commit`` then ``read`` do."""
    outcomes = []
    for combined in (True, False):
        store = Store()
        if before is not None:
            batch = Batch()
            normalize([Stream], before, batch, {})
            store.commit("me", batch, None, None, None, store.generation)
        batch = Batch()
        normalized = normalize(schema, value, batch, {})
        if combined:
            read = store.commit_and_read(
                "me",
                batch,
                None,
                None,
                None,
                store.generation,
                plan_of(schema),
                normalized,
            )
        else:
            assert store.commit("me", batch, None, None, None, store.generation)
            read = store.read("me", plan_of(schema), normalized)
        outcomes.append((read, dict(store.partitions["me"].records)))
    assert outcomes[0] == outcomes[1]
    read, records = outcomes[0]
    items = read if isinstance(read, list) else read["items"]
    assert len(items) == (19 if "gone" in value else 20)
    # each item is the record the store holds now, merged where it had to be
    assert all(records[(type(item).key, item.pk())] is item for item in items)
    if "top" in value:
        top = records[("Stream", "u3")]
        assert isinstance(top, Stream)
        assert top.title == "top"


def test_what_marks_records_newer_than_reads_in_flight_is_bounded() -> None:
    """Every mutation's records are marked newer than the reads in flight
    (``WriteOrder.written``); a store that has seen many keeps a bounded
    number of marks, the newest, and forgetting a caller drops theirs."""
    from restwire._store.write_order import _MARKS as _STAMPS

    store = Store()
    for start in range(0, 40_000, 100):
        batch = Batch()
        items = [{"id": str(n), "title": "t"} for n in range(start, start + 100)]
        normalize([Post], items, batch, {})
        store.commit("me", batch, "POST /posts", None, None, store.generation)
    marks = store.order.written["me"]
    assert 0 < len(marks) <= _STAMPS
    assert ("Post", "39999") in marks  # the newest stay
    assert ("Post", "0") not in marks
    store.forget("me")
    assert "me" not in store.order.written
    assert store.order.marks == 0


def test_a_large_write_keeps_the_newest_half_of_the_marks() -> None:
    """Past the bound, each caller keeps the newer half of its marks, in
    the order written: a key written again is among the newest, and of a
    write larger than the bound only its later records stay marked."""

    def write(who: str, ids: range) -> None:
        batch = Batch()
        items = [{"id": str(n), "title": "t"} for n in ids]
        normalize([Post], items, batch, {})
        store.commit(who, batch, "POST /posts", None, None, store.generation)

    store = Store()
    write("me", range(100))
    write("you", range(10))
    write("me", range(50, 20_050))  # 50 older marks, then 20,000: 20,050
    last = store.generation
    mine = store.order.written["me"]
    assert list(mine) == [("Post", str(n)) for n in range(10_026, 20_050)]
    assert set(mine.values()) == {last}
    assert list(store.order.written["you"]) == [("Post", str(n)) for n in range(6, 10)]
    assert store.order.marks == len(mine) + 4

    store = Store()
    write("me", range(8_000))
    first = store.generation
    write("me", range(7_990, 8_300))  # 7,990 older marks, then 310: 8,300
    mine = store.order.written["me"]
    assert list(mine) == [("Post", str(n)) for n in range(4_151, 8_300)]
    assert {mine["Post", "4151"], mine["Post", "7989"]} == {first}
    assert {mine["Post", "7990"], mine["Post", "8299"]} == {store.generation}


async def test_lists_read_again_share_their_key_objects(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A list of entities read straight from the bytes, fetched at a second
    URL, keeps no new key tuples: its result holds the objects the first
    one holds (fewer objects kept, fewer for the garbage collector)."""
    page = RestEndpoint(url_prefix=API, path="/posts/:page", schema=[Post])
    items = [{"id": str(n), "title": f"post {n}"} for n in range(12)]
    httpx_mock.add_response(json=items, is_reusable=True)
    first = await controller.fetch(page, {"page": 1})
    second = await controller.fetch(page, {"page": 2})
    assert first == second
    (partition,) = controller.store.partitions.values()
    kept = [
        result.value
        for by_shape in partition.results.values()
        for result in by_shape.values()
    ]
    assert len(kept) == 2
    assert kept[0] == kept[1]
    assert all(map(operator.is_, kept[0], kept[1]))
    # and their slots hold the identity the store is keyed by, not each
    # call's equal copy of it
    slots = list(controller.store.retention._order)
    assert len(slots) == 2
    assert all(slot[0] is partition.identity for slot in slots)


def test_the_shared_keys_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_store, "_KEYS_SHARED", 8)
    store = Store()
    for start in range(0, 40, 4):
        keys = [("Post", str(n)) for n in range(start, start + 4)]
        store.share_keys(keys, None, f"GET /posts/{start}")
        assert keys == [("Post", str(n)) for n in range(start, start + 4)]
        assert len(store._keys) <= 8 + 4
    again = [("Post", "39")]
    store.share_keys(again, None, "GET /posts/last")
    assert again[0] is store._keys[("Post", "39")]
