"""The store counts what it holds, as it holds it (``_store.store``,
``_store.retention``): a record goes with the last result (or held record)
using it, its bytes with it; what a change counts in is what it counts out
again, so ``size_bytes`` never drifts from what is held, through
replacements, merges, deletions, creates, ``set``, nested entities and
evictions. Under both drivers."""

from __future__ import annotations

import datetime
import json
import sys
from collections import Counter
from decimal import Decimal
from typing import Any, ClassVar, cast

import httpx
import msgspec
import pydantic
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    AsyncController,
    Controller,
    Entity,
    Invalidate,
    RestEndpoint,
    Unparsed,
    resource,
)
from restwire._store.columns import records_by_column
from restwire._store.retention import (
    OVERHEAD,
    columns_size,
    records_size,
    size_of,
    text_size,
)
from restwire._store.schemas import Batch, normalize, plan_of
from restwire._store.store import Result, Store, _nested_refs
from tests.pipeline.entities import Article, Post, User

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
posts = resource(path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=API))
posts_at = RestEndpoint(url_prefix=API, path="/posts/:page", schema=[Post])


def counted_as_held(store: Store) -> None:
    """Each partition's record bytes are what its records hold now, as if
    counted afresh, and its tables' bytes what its tables take: nothing
    counted in went uncounted out."""
    total = 0
    for partition in store.partitions.values():
        assert partition.record_bytes == records_size(list(partition.records.values()))
        results = [
            result
            for by_shape in partition.results.values()
            for result in by_shape.values()
        ]
        assert partition.bytes >= OVERHEAD * len(results)
        # a receipt is of the result kept at its slot: none outlives it
        for (key, shape), receipt in partition.receipts.items():
            assert partition.results[key][shape] is receipt[0]
        # each record's uses are the references the kept results and the
        # held records' nested fields make to it, counted afresh
        refs: list[Any] = []
        for result in results:
            if result.error is None:
                result.plan.refs(result.value, refs)
        refs.extend(_nested_refs(list(partition.records.values())))
        assert partition.uses == dict(Counter(refs))
        total += partition.bytes + partition.record_bytes + partition.table_bytes
    assert store.size_bytes == total


async def test_a_record_goes_with_the_last_result_that_uses_it(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=f"{API}/posts/", json=[{"id": "1"}, {"id": "2"}])
    httpx_mock.add_response(url=f"{API}/posts/1", json={"id": "1", "title": "one"})
    await controller.get(posts.get_list)
    await controller.get(posts.get, {"id": 1})
    store = controller.store
    assert set(store.records) == {("Post", "1"), ("Post", "2")}
    controller.invalidate(posts.get_list)
    # post 2 no result uses: gone at once; post 1 the item still uses
    assert set(store.records) == {("Post", "1")}
    counted_as_held(store)
    controller.invalidate(posts.get, {"id": 1})
    assert store.partitions == {}
    assert store.size_bytes == 0


async def test_what_a_change_counts_in_it_counts_out(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """Every way a record comes, changes and goes, and then every result
    forgotten: the store counts 0 bytes, nothing drifting on the way."""
    store = controller.store
    httpx_mock.add_response(
        url=f"{API}/posts/1", json=[{"id": str(n), "title": "a"} for n in range(5)]
    )
    httpx_mock.add_response(  # the same records at another URL, changed
        url=f"{API}/posts/2", json=[{"id": str(n), "title": "b" * n} for n in range(5)]
    )
    await controller.fetch(posts_at, {"page": 1})
    counted_as_held(store)
    await controller.fetch(posts_at, {"page": 2})
    counted_as_held(store)
    httpx_mock.add_response(  # a partial answer: merged field by field
        method="PATCH", url=f"{API}/posts/3", json={"id": "3", "title": "patched"}
    )
    await controller.fetch(posts.partial_update, {"id": 3}, {"title": "patched"})
    httpx_mock.add_response(method="DELETE", url=f"{API}/posts/4", status_code=204)
    await controller.fetch(posts.delete, {"id": 4})
    httpx_mock.add_response(  # no list takes it: a record no result uses
        method="POST", url=f"{API}/posts/", json={"id": "9", "title": "new"}
    )
    await controller.fetch(posts.create, body={"title": "new"})
    counted_as_held(store)
    await controller.set(posts.get, {"id": "1", "title": "set"}, {"id": "1"})
    users = RestEndpoint(url_prefix=API, path="/users/", schema=[User])
    httpx_mock.add_response(
        url=f"{API}/users/",
        json=[
            {
                "id": 1,
                "name": "ann",
                "posts": [{"id": 7, "title": "t", "author": {"id": 1}}],
            }
        ],
    )
    await controller.fetch(users)
    assert ("Article", "7") in store.records  # held through ann's posts
    counted_as_held(store)
    for target in (posts, posts_at, users):
        controller.invalidate_all(target)
    assert store.partitions == {}
    assert store.size_bytes == 0


async def test_nested_records_go_with_the_record_that_holds_them(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    articles = RestEndpoint(url_prefix=API, path="/articles/:n", schema=[Article])
    httpx_mock.add_response(
        url=f"{API}/articles/1",
        json=[{"id": 1, "title": "a", "author": {"id": 5, "name": "bo"}}],
    )
    httpx_mock.add_response(url=f"{API}/articles/2", json=[{"id": 2, "title": "b"}])
    await controller.fetch(articles, {"n": 1})
    await controller.fetch(articles, {"n": 2})
    store = controller.store
    assert ("User", "5") in store.records  # used by article 1
    controller.invalidate(articles, {"n": 1})
    assert set(store.records) == {("Article", "2")}
    counted_as_held(store)


def make(mode: str, handler: Any, bound: int) -> Any:
    transport = httpx.MockTransport(handler)
    if mode == "sync":
        return Controller(httpx.Client(transport=transport), max_store_bytes=bound)
    return AsyncController(
        httpx.AsyncClient(transport=transport), max_store_bytes=bound
    )


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_result_past_the_whole_bound_keeps_nothing_and_counts_nothing(
    mode: str,
) -> None:
    big = [{"id": str(n), "title": "x" * 1_000} for n in range(40)]
    controller = make(mode, lambda request: httpx.Response(200, json=big), 20_000)
    try:
        fetch = controller.fetch(posts_at, {"page": 1})
        got = await fetch if mode == "async" else fetch
        assert len(got) == 40  # the caller gets it all the same
        assert controller.store.partitions == {}
        assert controller.store.size_bytes == 0
    finally:
        if mode == "async":
            await controller.close()
        else:
            controller.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_records_no_result_uses_go_when_their_slot_is_least_recent(
    mode: str,
) -> None:
    """Created records no list takes are held, counted, until their slot
    is the least recently used past the bound; then they go too."""

    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(200, json={"id": "c", "title": "x" * 4_000})
        return httpx.Response(
            200, json=[{"id": request.url.path, "title": "y" * 2_000}]
        )

    controller = make(mode, answer, 60_000)
    try:

        async def call(*args: Any, **kwargs: Any) -> Any:
            result = controller.fetch(*args, **kwargs)
            return await result if mode == "async" else result

        await call(posts.create, body={"title": "c"})
        store = controller.store
        assert ("Post", "c") in store.records
        counted_as_held(store)
        assert store.size_bytes > 4_000
        for page in range(40):  # newer results, past the bound
            await call(posts_at, {"page": page})
            counted_as_held(store)
        assert ("Post", "c") not in store.records
        assert store.size_bytes <= 60_000
    finally:
        if mode == "async":
            await controller.close()
        else:
            controller.close()


def test_a_record_bigger_than_it_was_is_counted_at_its_new_size() -> None:
    """Stored again changed (another URL's answer, a merge), a record counts
    out as it was and in as it is."""
    store = Store(max_bytes=None)
    first = Post(id="1", title="a")
    grown = Post(id="1", title="a" * 10_000)
    for version, key in ((first, "GET /a"), (grown, "GET /b")):
        batch = Batch()
        plan = plan_of(Post)
        value = plan.normalize(version.to_dict(), batch, {})
        result = Result(plan, value, 0.0, 1e9, None, None, None, None)
        store.commit("me", batch, key, None, result, store.generation)
    (partition,) = store.partitions.values()
    assert partition.record_bytes == records_size([partition.records[("Post", "1")]])
    assert partition.record_bytes > 10_000
    counted_as_held(store)


class SameByKey(Entity):
    """An entity whose own == says "the same record" by primary key alone."""

    id: str = ""
    title: str = ""

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.pk() == self.pk()

    __hash__ = Entity.__hash__


@pytest.mark.parametrize("many", [False, True], ids=["one record", "a list"])
def test_a_record_grown_but_equal_by_its_class_s_own_eq_is_counted_again(
    many: bool,
) -> None:
    """A class whose own == compares keys alone says a grown record is the
    same: the store counts it at its new size all the same (the count never
    rests on what a class's == says)."""
    store = Store(max_bytes=None)
    schema: Any = [SameByKey] if many else SameByKey
    plan = plan_of(schema)
    for title in ("a", "a" * 10_000):
        rows = [{"id": str(index), "title": title} for index in range(20)]
        batch = Batch()
        value = plan.normalize(rows if many else rows[0], batch, {})
        result = Result(plan, value, 0.0, 1e9, None, None, None, None)
        store.commit("me", batch, "GET /a", None, result, store.generation)
    (partition,) = store.partitions.values()
    assert partition.record_bytes > 10_000
    counted_as_held(store)


def test_a_delete_counts_the_record_out() -> None:
    store = Store(max_bytes=None)
    plan = plan_of([Post])
    batch = Batch()
    value = plan.normalize([{"id": "1", "title": "a" * 5_000}], batch, {})
    store.commit("me", batch, "GET /l", None, Result(plan, value, 0.0, 1e9), 0)
    gone = Batch()
    plan_of(Invalidate(Post)).normalize(None, gone, {"id": "1"})
    store.commit("me", gone, None, None, None, store.generation)
    (partition,) = store.partitions.values()
    assert partition.records == {}
    assert partition.record_bytes == 0
    counted_as_held(store)


class Mixed(Entity):
    id: str = ""
    title: str = ""
    n: int = 0
    f: float = 0.0
    ok: bool = False
    x: str | None = None
    tags: list[str] = []  # noqa: RUF012


def test_a_records_bytes_are_its_own_alone_or_with_others() -> None:
    """One record counted alone (the single record's quick way) is what it
    counts for among others (a column at a time): what goes out one by one
    is what came in together, whatever its fields hold."""
    rows = [
        Mixed(
            id=str(n),
            title="é" * n if n % 3 else "t" * n,
            n=n * 1_000,
            f=n / 3,
            ok=bool(n % 2),
            x=None if n % 2 else "x",
            tags=["a", "bc" * n] if n % 4 else [],
        )
        for n in range(50)
    ]
    plain = [Post(id=str(n), title="t" * n) for n in range(50)]
    for records in (rows, plain):
        assert records_size(records) == sum(records_size([each]) for each in records)
        assert records_size(records) == records_size(records[:13]) + records_size(
            records[13:]
        )


class Priced(Mixed):
    """Every kind of value a column may hold: text in and out of ASCII,
    numbers of any size, ``None``, lists, and deserialized values."""

    price: Decimal = Decimal(0)
    at: datetime.datetime | None = None

    schema: ClassVar[dict[str, Any]] = {
        "price": Decimal,
        "at": datetime.datetime.fromisoformat,
    }


def priced(count: int) -> list[dict[str, Any]]:
    return [
        {
            "id": str(n),
            "title": "é" * n if n % 3 else "t" * n,
            "n": n**40,
            "f": n / 3,
            "ok": bool(n % 2),
            "x": None if n % 2 else "x" * n,
            "tags": ["a", "bc" * n] if n % 4 else [],
            "price": "1" * (n + 1) + ".5",
            "at": f"2024-05-01T12:00:{n % 60:02d}+0{n % 10}:00",
        }
        for n in range(count)
    ]


@pytest.mark.parametrize("count", [8, 9, 40])
def test_a_list_made_by_column_is_counted_as_its_records_are(count: int) -> None:
    """What a list normalized column by column says its records hold (no
    record looked at) is what counting the records says."""
    made = records_by_column(Priced, priced(count))
    assert made is not None
    assert made.columns is not None
    assert made.kinds is not None
    size = columns_size(made.instances, made.columns)
    assert size == records_size(made.instances)
    assert size == sum(records_size([each]) for each in made.instances)
    # counted with the columns' classes (no pass to learn them): the same
    assert columns_size(made.instances, made.columns, made.kinds) == size
    learnt = dict(zip(Priced._fields, made.kinds, strict=True))
    assert learnt["id"] is str
    assert learnt["price"] is Decimal
    assert learnt["at"] is datetime.datetime
    assert learnt["x"] is None  # (None and text: no one class)


def test_a_list_read_from_the_bytes_is_counted_as_its_records_are() -> None:
    body = json.dumps(priced(30)).encode()
    response = httpx.Response(
        200, content=body, headers={"content-type": "application/json"}
    )
    batch = Batch()
    keys = Unparsed(RestEndpoint(url_prefix=API, schema=[Priced]), response).entities(
        Priced, batch
    )
    assert keys is not None
    ((_, instances, _, _),) = batch.made.values()
    assert batch.records_bytes(instances) == records_size(instances)
    assert batch.records_bytes(instances[1:]) is None  # not the very list


def test_a_list_whose_record_a_later_one_replaced_is_counted_afresh() -> None:
    """Two lists of one response sharing a key: the second's record is
    merged over the first's, so the first list's count no longer says
    what is held; the store counts the records themselves."""
    plan = plan_of({"a": [Priced], "b": [Priced]})
    data = priced(20)
    later = [{**each, "title": "longer " * 50} for each in data[5:15]]
    batch = Batch()
    value = plan.normalize({"a": data, "b": later}, batch, {})
    assert batch.records_bytes(list(batch.records.values())) is None
    store = Store(max_bytes=None)
    store.commit("me", batch, "GET /two", None, Result(plan, value, 0.0, 1e9), 0)
    counted_as_held(store)


async def test_a_fetched_list_is_counted_as_held(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=f"{API}/priced/", json=priced(30))
    httpx_mock.add_response(url=f"{API}/priced/", json=priced(12))
    listed = RestEndpoint(url_prefix=API, path="/priced/", schema=[Priced])
    await controller.fetch(listed)
    counted_as_held(controller.store)
    await controller.fetch(listed)
    counted_as_held(controller.store)


@pytest.mark.parametrize("character", ["a", "é", "€", "😀"])
def test_a_text_counts_as_it_was_made_whatever_is_done_with_it(character: str) -> None:
    """A text counts its characters at its width and a fixed head, what
    ``getsizeof`` says of it when it is made; not the UTF-8 copy CPython
    attaches later (an encoder asks for it), which would make a record
    count out more than it counted in."""
    text = json.loads(json.dumps(character * 40))  # made as a parse makes it
    made = sys.getsizeof(text)
    assert text_size(text) == made
    msgspec.json.encode(text)  # attaches the UTF-8 copy to a text that is not ASCII
    assert text_size(text) == made
    assert size_of({"k": text}) == size_of({"k": character * 40})


async def test_records_whose_texts_were_encoded_count_out_what_they_counted_in(
    controller_factory: Any,
) -> None:
    pages = [
        [{"id": str(n), "title": text * 50} for n in range(10)] for text in ("é", "e")
    ]
    controller = controller_factory(
        transport=httpx.MockTransport(
            lambda request: httpx.Response(200, json=pages.pop(0))
        )
    )
    listed = RestEndpoint(url_prefix=API, path="/p/:n", schema=[Post])
    got = await controller.fetch(listed, {"n": 1})
    msgspec.json.encode(got)  # the caller encodes the entities it was given
    counted_as_held(controller.store)
    await controller.fetch(listed, {"n": 2})  # the same ids again: each replaced
    counted_as_held(controller.store)
    controller.invalidate_all(listed)
    assert controller.store.size_bytes == 0


def test_a_text_with_a_lone_surrogate_is_counted() -> None:
    """JSON may escape a lone surrogate (``"\\ud800"``); a text holding one
    is counted (two bytes a character), never an error."""
    text = json.loads('"broken \\ud800 pair \\u00e9"')
    assert text_size(text) == sys.getsizeof(text)


priced_pages = RestEndpoint(url_prefix=API, path="/priced/:page", schema=[Priced])
priced_one = RestEndpoint(url_prefix=API, path="/priced/one/:id", schema=Priced)


def priced_page(page: int, count: int = 30) -> list[dict[str, Any]]:
    """``priced(count)``, its ids the page's own."""
    return [{**each, "id": f"{page}-{each['id']}"} for each in priced(count)]


def walks_counted_out(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many records each walk of the store's count-out looks at."""
    import restwire._store.store as store_module

    walked: list[int] = []

    def walk(records: list[Any]) -> int:
        walked.append(len(records))
        return records_size(records)

    monkeypatch.setattr(store_module, "records_size", walk)
    return walked


async def test_a_list_that_goes_with_its_records_counts_out_what_it_counted_in(
    controller: Any, httpx_mock: HTTPXMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The usual eviction: a list whose records only it uses goes, and the
    bytes counted in for them when it came go with it, the records not
    walked again (its receipt)."""
    for page in (1, 2):
        httpx_mock.add_response(url=f"{API}/priced/{page}", json=priced_page(page))
        await controller.fetch(priced_pages, {"page": page})
    walked = walks_counted_out(monkeypatch)
    controller.invalidate(priced_pages, {"page": 1})
    assert walked == []
    assert len(controller.store.records) == 30
    counted_as_held(controller.store)
    controller.invalidate(priced_pages, {"page": 2})
    assert walked == []
    assert controller.store.size_bytes == 0


async def test_a_list_whose_record_was_replaced_since_counts_what_is_held(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A record of the list replaced after the list came (by an item read
    of it, now gone): what the list counted in for it is no longer what
    is held, so the records that go are counted as they are."""
    httpx_mock.add_response(url=f"{API}/priced/1", json=priced_page(1))
    changed = {**priced_page(1)[5], "title": "longer " * 40}
    httpx_mock.add_response(url=f"{API}/priced/one/1-5", json=changed)
    httpx_mock.add_response(url=f"{API}/priced/2", json=priced_page(2))
    await controller.fetch(priced_pages, {"page": 1})
    await controller.fetch(priced_one, {"id": "1-5"})
    controller.invalidate(priced_one, {"id": "1-5"})
    await controller.fetch(priced_pages, {"page": 2})  # (the partition stays)
    controller.invalidate(priced_pages, {"page": 1})
    assert len(controller.store.records) == 30
    counted_as_held(controller.store)


async def test_a_polled_list_equal_but_longer_is_counted_as_held(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A page polled again whose records are equal to those held, some
    prices now written with many more digits (``Decimal('1.5') ==
    Decimal('1.50...0')``, a larger record past 76 digits): the new
    records' columns are counted from the columns they were made of, the
    right one each."""
    page = priced_page(1)
    longer = [
        {**each, "price": each["price"] + "0" * (100 * (index % 3))}
        for index, each in enumerate(page)
    ]
    httpx_mock.add_response(url=f"{API}/priced/1", json=page)
    httpx_mock.add_response(url=f"{API}/priced/one/1-3", json=page[3])
    httpx_mock.add_response(url=f"{API}/priced/1", json=longer)
    first = await controller.fetch(priced_pages, {"page": 1})
    # (a record read again alone: the page's receipt no longer holds, so
    # the poll compares its records with those held)
    await controller.fetch(priced_one, {"id": "1-3"})
    again = await controller.fetch(priced_pages, {"page": 1})
    assert again == first  # equal records, some of them larger
    counted_as_held(controller.store)


def changed_page(page: int) -> list[dict[str, Any]]:
    """``priced_page(page)`` as a later read gives it: some records
    longer, some shorter, some equal but written with more digits."""
    return [
        {
            **each,
            "title": each["title"] * 3 if index % 3 == 0 else each["title"][:1],
            "price": each["price"] + "0" * (index % 2),
        }
        for index, each in enumerate(priced_page(page))
    ]


async def test_a_polled_page_counts_out_what_its_receipt_counted_in(
    controller: Any, httpx_mock: HTTPXMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page read again whose records replace those it counted in, key
    for key: the new records' bytes are counted in from their columns and
    the receipt's out, no record compared or walked."""
    import restwire._store.store as store_module

    httpx_mock.add_response(url=f"{API}/priced/1", json=priced_page(1))
    httpx_mock.add_response(url=f"{API}/priced/1", json=changed_page(1))
    await controller.fetch(priced_pages, {"page": 1})
    walked = walks_counted_out(monkeypatch)
    resized: list[int] = []
    real_resized = store_module._resized

    def counting_resized(*args: Any) -> int:
        resized.append(1)
        return real_resized(*args)

    monkeypatch.setattr(store_module, "_resized", counting_resized)
    again = await controller.fetch(priced_pages, {"page": 1})
    assert (walked, resized) == ([], [])
    assert [each.title for each in again] == [each["title"] for each in changed_page(1)]
    counted_as_held(controller.store)
    controller.invalidate(priced_pages, {"page": 1})  # (the new receipt)
    assert walked == []
    assert controller.store.size_bytes == 0


@pytest.mark.parametrize("change", ["a record read alone", "one more record"])
async def test_a_polled_page_its_receipt_no_longer_holds_for_is_compared(
    controller: Any, httpx_mock: HTTPXMock, change: str
) -> None:
    """A poll whose page's receipt no longer says what is held (a record
    replaced since), or whose keys are not the receipt's: its records are
    compared with those held and counted as they are."""
    httpx_mock.add_response(url=f"{API}/priced/1", json=priced_page(1))
    later = changed_page(1)
    if change == "one more record":
        later.append({**priced_page(3, 1)[0]})
    else:
        changed = {**priced_page(1)[4], "title": "longer " * 40}
        httpx_mock.add_response(url=f"{API}/priced/one/1-4", json=changed)
    httpx_mock.add_response(url=f"{API}/priced/1", json=later)
    await controller.fetch(priced_pages, {"page": 1})
    if change == "a record read alone":
        await controller.fetch(priced_one, {"id": "1-4"})
    again = await controller.fetch(priced_pages, {"page": 1})
    assert [each.id for each in again] == [each["id"] for each in later]
    counted_as_held(controller.store)


async def test_a_list_a_created_record_joined_keeps_no_receipt_of_what_it_was(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A create joins the list: the list kept is a new result, and the
    receipt of the old one goes (it would hold the old result alive)."""
    prices = resource(
        path="/prices/:id", schema=Priced, endpoint=RestEndpoint(url_prefix=API)
    )
    httpx_mock.add_response(url=f"{API}/prices/", json=priced_page(1))
    created = {**priced_page(2, 1)[0]}
    httpx_mock.add_response(url=f"{API}/prices/", method="POST", json=created)
    await controller.fetch(prices.get_list)
    (partition,) = controller.store.partitions.values()
    assert len(partition.receipts) == 1
    await controller.fetch(prices.create, body=created)
    assert len(await controller.get(prices.get_list)) == 31
    assert partition.receipts == {}
    counted_as_held(controller.store)
    controller.invalidate(prices.get_list)
    counted_as_held(controller.store)


async def test_a_created_record_a_list_took_counts_the_tables_it_grew(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A create joins a kept list: the use it adds may grow the caller's
    table of uses, and the bytes the tables take are counted again."""
    listed = resource(
        path="/tabled{/:id}", schema=Post, endpoint=RestEndpoint(url_prefix=API)
    )
    httpx_mock.add_response(
        url=f"{API}/tabled", json=[{"id": str(number)} for number in range(10)]
    )
    httpx_mock.add_response(url=f"{API}/tabled", method="POST", json={"id": "new"})
    await controller.fetch(listed.get_list)
    await controller.fetch(listed.create, body={})
    (partition,) = controller.store.partitions.values()
    assert len(partition.uses) == 11  # (the list took the new record)
    tables = (
        sys.getsizeof(partition.records)
        + sys.getsizeof(partition.uses)
        + sys.getsizeof(partition.loose)
    )
    assert partition.table_bytes == tables
    counted_as_held(controller.store)


async def test_a_created_record_another_result_uses_keeps_both_uses(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A create whose record a kept result uses already (an upsert of a
    record read before) joins a kept list: the record is used twice, and
    stays while either result does."""
    upserted = resource(
        path="/upserted{/:id}", schema=Post, endpoint=RestEndpoint(url_prefix=API)
    )
    httpx_mock.add_response(url=f"{API}/upserted", json=[{"id": "1"}, {"id": "2"}])
    httpx_mock.add_response(url=f"{API}/upserted/9", json={"id": "9", "title": "a"})
    httpx_mock.add_response(
        url=f"{API}/upserted", method="POST", json={"id": "9", "title": "b"}
    )
    await controller.fetch(upserted.get_list)
    await controller.fetch(upserted.get, {"id": 9})
    await controller.fetch(upserted.create, body={"title": "b"})
    (partition,) = controller.store.partitions.values()
    assert partition.uses[("Post", "9")] == 2
    counted_as_held(controller.store)
    controller.invalidate(upserted.get, {"id": 9})
    listed = await controller.get(upserted.get_list)
    assert [post.id for post in listed] == ["1", "2", "9"]  # (the list kept it)
    assert listed[2].title == "b"
    assert len(httpx_mock.get_requests(url=f"{API}/upserted", method="GET")) == 1
    counted_as_held(controller.store)


async def test_a_list_read_and_dropped_again_and_again_leaves_no_record_behind(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A list whose records only it uses goes with them, each time: no use
    of theirs is left counted, so a record is never kept by a use that
    ended (while another result keeps the identity's records alive)."""
    listing = [{"id": str(number), "title": f"t{number}"} for number in range(1, 6)]
    httpx_mock.add_response(url=f"{API}/posts/9", json={"id": "9"}, is_reusable=True)
    httpx_mock.add_response(url=f"{API}/posts/", json=listing, is_reusable=True)
    await controller.get(posts.get, {"id": 9})
    store = controller.store
    for _ in range(3):
        await controller.get(posts.get_list)
        controller.invalidate(posts.get_list)
        assert set(store.records) == {("Post", "9")}
        (partition,) = store.partitions.values()
        assert dict(partition.uses) == {("Post", "9"): 1}
        counted_as_held(store)


class Reading(Entity):
    """Values that compare equal across JSON types: 1 == 1.0 == True."""

    id: str = ""
    level: float = 0.0
    values: Any = None


class ReadingModel(pydantic.BaseModel):
    __restwire_pk__: ClassVar[str] = "id"

    id: str
    level: float = 0.0
    values: Any = None


@pytest.mark.parametrize("schema", [Reading, ReadingModel])
@pytest.mark.parametrize("many", [False, True], ids=["one record", "a list"])
def test_a_record_equal_but_of_other_sizes_is_counted_as_it_is_held(
    schema: Any, many: bool
) -> None:
    """``[True] * 1000 == [1.0] * 1000`` and ``1 == 1.0``, yet they take other
    bytes: a record stored again equal to the one held is counted as it is
    held, and a delete then counts out what was counted in (the count never
    drifts, however often the answer flips)."""
    store = Store(max_bytes=None)
    plan = plan_of([schema] if many else schema)
    for _ in range(3):  # (the answer flips, again and again)
        for level, values in ((1, [True] * 1000), (1.0, [1.0] * 1000)):
            rows = [{"id": str(n), "level": level, "values": values} for n in range(3)]
            batch = Batch()
            value = plan.normalize(rows if many else rows[0], batch, {})
            result = Result(plan, value, 0.0, 1e9, None, None, None, None)
            store.commit("me", batch, "GET /a", None, result, store.generation)
            counted_as_held(store)
    batch = Batch()
    batch.delete((schema.__name__, "0"))
    store.commit("me", batch, None, None, None, store.generation)
    counted_as_held(store)
    assert store.size_bytes > 0


class Tagged(Entity):
    """Nests a reading: a list of these batches records of two classes."""

    id: str = ""
    pair: Any = None
    reading: Reading | None = None

    schema: ClassVar[dict[str, Any]] = {"reading": Reading}


@pytest.mark.parametrize("many", [False, True], ids=["one record", "a list"])
def test_equal_tuples_and_references_are_counted_as_held(many: bool) -> None:
    """A tuple equal to the one held may hold ``1.0`` where it held ``1``
    (other bytes), and a reference to a nested record is a tuple of texts
    (the same bytes when equal): a record, or a list nesting records of
    another class, stored again equal is counted as it is held."""
    store = Store(max_bytes=None)
    plan = plan_of([Tagged] if many else Tagged)
    for pair, level in [((1, "a"), 1), ((1.0, "a"), 1.0), ((1, "a"), 1)] * 2:
        rows = [
            {"id": str(n), "pair": pair, "reading": {"id": str(n % 2), "level": level}}
            for n in range(3)
        ]
        batch = Batch()
        value = plan.normalize(rows if many else rows[0], batch, {})
        result = Result(plan, value, 0.0, 1e9, None, None, None, None)
        store.commit("me", batch, "GET /a", None, result, store.generation)
        counted_as_held(store)
        assert store.read("me", plan, value) is not None


class Noted(Entity):
    """Records sent with a key this class does not declare (``note``)."""

    id: str = ""
    title: str = ""


def test_a_list_stored_again_equal_counts_its_extra_keys_as_held() -> None:
    """A list whose records keep keys their class does not declare, stored
    again with equal fields: its extra keys, which equality leaves aside,
    are counted out and in as they are now (``1 == 1.0``, a key that grew,
    one more)."""
    store = Store(max_bytes=None)
    plan = plan_of([Noted])
    for note in (1, 1.0, "n" * 5_000, {"k": [1, 2]}, 1):
        rows = [{"id": str(n), "title": "t", "note": note} for n in range(12)]
        batch = Batch()
        value = plan.normalize(rows, batch, {})
        result = Result(plan, value, 0.0, 1e9, None, None, None, None)
        store.commit("me", batch, "GET /a", None, result, store.generation)
        counted_as_held(store)
        assert [row.extra_fields for row in store.read("me", plan, value)] == [
            {"note": note}
        ] * 12


class Digits(Entity):
    """A decimal field: equal decimals may hold other numbers of digits."""

    id: str = ""
    price: Decimal = Decimal(0)

    schema: ClassVar[dict[str, Any]] = {"price": Decimal}


@pytest.mark.parametrize("many", [False, True], ids=["one record", "a list"])
def test_an_equal_decimal_of_more_digits_is_counted_as_held(many: bool) -> None:
    """``Decimal("1.5") == Decimal("1.50...0")``, yet the second holds more
    digits: a record stored again equal is counted at its decimal's size
    now, each time the answer flips."""
    store = Store(max_bytes=None)
    plan = plan_of([Digits] if many else Digits)
    for price in ["1.5", "1." + "5" + "0" * 200, "1.5"] * 2:
        rows = [{"id": str(n), "price": price} for n in range(3)]
        batch = Batch()
        value = plan.normalize(rows if many else rows[0], batch, {})
        result = Result(plan, value, 0.0, 1e9, None, None, None, None)
        store.commit("me", batch, "GET /a", None, result, store.generation)
        counted_as_held(store)


def test_an_equal_list_with_spare_slots_is_counted_as_it_is_held() -> None:
    """A list made by appending holds spare slots: equal to one parsed whole,
    it takes more bytes, and the record holding it is counted so."""
    store = Store(max_bytes=None)
    plan = plan_of(Reading)
    grown: list[int] = []
    for number in range(5):
        grown.append(number)
    for values in ([0, 1, 2, 3, 4], grown):
        batch = Batch()
        value = plan.normalize({"id": "1", "values": values}, batch, {})
        # (the record holds the list as given: normalizing copies it)
        batch.records[("Reading", "1")] = Reading(id="1", values=values)
        result = Result(plan, value, 0.0, 1e9, None, None, None, None)
        store.commit("me", batch, "GET /a", None, result, store.generation)
        counted_as_held(store)


class Tag(pydantic.BaseModel, frozen=True):
    name: str = "none"


class Node(pydantic.BaseModel):
    id: int
    tag: Tag = Tag()  # frozen, so hashable: pydantic shares it, not copied
    child: Node | None = None


async def test_a_model_list_sharing_a_default_at_two_depths_is_kept(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A model (not a record) whose frozen default pydantic shares between
    instances, met at two depths of a response of more than a few dozen
    objects: the value is counted and kept, not an error."""
    nodes = RestEndpoint(url_prefix=API, path="/nodes", schema=[Node])
    rows = [{"id": n, "child": {"id": 100 + n}} for n in range(30)]
    httpx_mock.add_response(url=f"{API}/nodes", json=rows)
    got = await controller.get(nodes)
    assert got[0].tag is got[0].child.tag
    assert len(controller.store) == 1
    counted_as_held(controller.store)


# -- a poll of a page whose records keep extra keys --------------------------------


def commit(store: Store, plan: Any, data: Any, key: str | None) -> Any:
    """``data`` normalized by ``plan`` and committed for the caller "me",
    kept under ``key`` (none: a mutation's answer); the value normalized."""
    batch = Batch()
    value = plan.normalize(data, batch, {})
    result = None if key is None else Result(plan, value, 0.0, 1e9)
    store.commit("me", batch, key, None, result, store.generation)
    return value


def commit_list(store: Store, cls: type[Entity], rows: list[dict[str, Any]]) -> None:
    """``rows`` committed as a page of ``cls`` kept under one key."""
    commit(store, plan_of([cls]), rows, "GET /page")


def test_a_partial_page_with_extra_keys_merges_into_what_is_held() -> None:
    """Polled again with a field missing from every item, a page whose
    records keep extra keys merges: the held field stays."""

    class Tagged(Entity):
        id: str = ""
        name: str = ""

    store = Store()
    commit_list(
        store, Tagged, [{"id": str(n), "name": f"n{n}", "x": n} for n in range(10)]
    )
    commit_list(store, Tagged, [{"id": str(n), "x": n + 1} for n in range(10)])
    held: Any = store.partitions["me"].records[("Tagged", "3")]
    assert held.name == "n3"
    assert held.extra_fields == {"x": 4}
    counted_as_held(store)


def test_a_poll_asks_the_extra_keys_a_class_says_its_records_keep() -> None:
    """A class may say its records keep more extra keys than the data gave
    (``extra_fields`` overridden): the data lacks those, so each record is
    merged, in the order the held one kept its keys, as record by record."""

    class Sourced(Entity):
        id: str = ""

        @property
        def extra_fields(self) -> Any:
            return {**self._extra, "source": "api"}

    store = Store()
    commit_list(store, Sourced, [{"id": str(n), "x": 1, "y": 2} for n in range(8)])
    commit_list(store, Sourced, [{"id": str(n), "y": 2, "x": 1} for n in range(8)])
    held: Any = store.partitions["me"].records[("Sourced", "0")]
    assert list(held._extra) == ["x", "y"]
    counted_as_held(store)


def test_a_column_of_lists_nested_past_the_depth_counts_as_its_records() -> None:
    """A list taken whole counts its bytes from its columns; a column of
    values nested past the depth the count walks counts what its records
    count, to the same depth."""

    class Deep(Entity):
        id: str = ""
        tree: list[Any] = []  # noqa: RUF012

    def nested(depth: int) -> Any:
        value: Any = ["leaf" * 3]
        for _ in range(depth):
            value = ["x", value]
        return value

    batch = Batch()
    normalize(
        [Deep], [{"id": str(n), "tree": nested(70)} for n in range(10)], batch, {}
    )
    records = list(batch.records.values())
    assert batch.records_bytes(records) == records_size(records)


def test_uses_counted_again_after_evictions_hold_the_nested_references(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Results of records that nest others, evicted at a bound until the
    store walks what it holds again (``Store._collect``): the uses it
    counts afresh include the held records' nested references."""
    from restwire._store import store as store_module

    collected: list[int] = []
    original = store_module.Store._collect

    def collect(self: Store, partition: Any) -> None:
        collected.append(1)
        original(self, partition)

    monkeypatch.setattr(store_module.Store, "_collect", collect)

    class Kid(Entity):
        id: str = ""

    class Dad(Entity):
        id: str = ""
        kid: Kid | None = None
        schema: ClassVar[dict[str, Any]] = {"kid": Kid}

    store = Store(max_bytes=40_000)
    plan = plan_of([Dad])
    for number in range(600):
        batch = Batch()
        rows = [
            {"id": str(number % 40 + i), "kid": {"id": str(i % 3)}} for i in range(8)
        ]
        value = plan.normalize(rows, batch, {})
        store.commit(
            "me", batch, f"GET /d{number}", None, Result(plan, value, 0.0, 1e9), 0
        )
        counted_as_held(store)
    assert collected


def test_a_value_a_record_caches_for_itself_is_not_counted() -> None:
    """A record of a class that keeps extra keys may keep a value of its
    own past them (``functools.cached_property`` sets one): what the store
    counted in for it is what it counts out, whatever was cached since."""
    import functools

    class Cached(Entity):
        id: str = ""

        @functools.cached_property
        def label(self) -> str:
            return "label " * 50

    rows = [{"id": str(n), "x": n} for n in range(10)]
    store = Store()
    commit_list(store, Cached, rows)
    for record in store.partitions["me"].records.values():
        assert cast(Any, record).label
    counted_as_held(store)
    commit_list(store, Cached, [{"id": str(n), "x": n + 1} for n in range(10)])
    counted_as_held(store)
    store.reset()
    assert store.size_bytes == 0
