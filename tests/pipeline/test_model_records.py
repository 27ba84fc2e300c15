"""Models as records (``_store.models``): a pydantic model or a dataclass
that declares ``__restwire_pk__`` is kept and merged like an ``Entity``; a
model without one stays a value, and a mutation through its ``resource()``
expires the caller's stored results. Each test under both drivers."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import pydantic
import pytest
from pytest_httpx import HTTPXMock

from restwire import Entity, EntityError, Invalidate, RestEndpoint, resource
from restwire._store.models import record_of

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
api = RestEndpoint(url_prefix=API)


class Article(pydantic.BaseModel):
    __restwire_pk__ = "id"

    id: int
    title: str
    user_id: int = 0


@dataclasses.dataclass
class Memo:
    __restwire_pk__: ClassVar[str] = "id"

    id: int
    title: str
    user_id: int = 0


class Draft(pydantic.BaseModel):
    """A model that declares no primary key: a value."""

    id: int
    title: str


RECORDS = [Article, Memo]
ITEMS = [{"id": 1, "title": "a", "user_id": 1}, {"id": 2, "title": "b", "user_id": 2}]


def records(schema: Any, **options: Any) -> Any:
    return resource(path="/items/:id", schema=schema, endpoint=api, **options)


def answer_list(httpx_mock: HTTPXMock, items: Any = None, **options: Any) -> None:
    httpx_mock.add_response(
        method="GET",
        url=f"{API}/items/",
        json=ITEMS if items is None else items,
        **options,
    )


def titles(values: Any) -> list[str]:
    return [value.title for value in values]


@pytest.mark.parametrize("schema", RECORDS)
async def test_an_update_shows_in_the_stored_item_and_list_with_no_request(
    controller: Any, httpx_mock: HTTPXMock, schema: Any
) -> None:
    items = records(schema)
    answer_list(httpx_mock)
    httpx_mock.add_response(method="GET", url=f"{API}/items/1", json=ITEMS[0])
    listed = await controller.get(items.get_list)
    assert [type(value) for value in listed] == [schema, schema]
    one = await controller.get(items.get, {"id": 1})
    assert one == listed[0]
    # one record: the newer fetch replaced it in the stored list, and reads
    # give the instance validated once, never validated again
    assert (await controller.get(items.get_list))[0] is one
    assert await controller.get(items.get, {"id": 1}) is one
    httpx_mock.add_response(
        method="PATCH", url=f"{API}/items/1", json={**ITEMS[0], "title": "a2"}
    )
    updated = await controller.fetch(items.partial_update, {"id": 1}, {"title": "a2"})
    assert updated == schema(id=1, title="a2", user_id=1)
    assert await controller.get(items.get, {"id": 1}) is updated
    assert titles(await controller.get(items.get_list)) == ["a2", "b"]
    httpx_mock.add_response(
        method="PUT", url=f"{API}/items/2", json={"id": 2, "title": "b2"}
    )
    await controller.fetch(items.update, {"id": 2}, {"title": "b2"})
    after = await controller.get(items.get_list)
    assert titles(after) == ["a2", "b2"]
    assert after[1].user_id == 0  # replaced whole, not merged field by field
    assert len(httpx_mock.get_requests()) == 4  # no read after a mutation


@pytest.mark.parametrize("schema", RECORDS)
@pytest.mark.parametrize("body", [None, {"id": 1}])
async def test_a_delete_removes_the_record_from_stored_lists(
    controller: Any, httpx_mock: HTTPXMock, schema: Any, body: Any
) -> None:
    """Named by the params (a 204) or by the response body."""
    items = records(schema)
    answer_list(httpx_mock)
    httpx_mock.add_response(method="GET", url=f"{API}/items/1", json=ITEMS[0])
    await controller.get(items.get_list)
    await controller.get(items.get, {"id": 1})
    if body is None:
        httpx_mock.add_response(method="DELETE", url=f"{API}/items/1", status_code=204)
    else:
        httpx_mock.add_response(method="DELETE", url=f"{API}/items/1", json=body)
    await controller.fetch(items.delete, {"id": 1})
    assert titles(await controller.get(items.get_list)) == ["b"]  # no request
    assert len(httpx_mock.get_requests()) == 3
    httpx_mock.add_response(method="GET", url=f"{API}/items/1", status_code=404)
    with pytest.raises(Exception, match="404"):
        await controller.get(items.get, {"id": 1})  # gone: fetched again


async def test_a_delete_finds_a_pydantic_pk_by_its_alias(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    class Aliased(pydantic.BaseModel):
        __restwire_pk__ = "item_id"

        item_id: int = pydantic.Field(alias="itemId")
        title: str

    items = resource(path="/items/:ref", schema=Aliased, endpoint=api)
    answer_list(httpx_mock, [{"itemId": 1, "title": "a"}, {"itemId": 2, "title": "b"}])
    await controller.get(items.get_list)
    httpx_mock.add_response(method="DELETE", url=f"{API}/items/1", json={"itemId": 1})
    await controller.fetch(items.delete, {"ref": 1})
    assert titles(await controller.get(items.get_list)) == ["b"]


@pytest.mark.parametrize("schema", RECORDS)
@pytest.mark.parametrize(
    ("new_items", "expected"),
    [("end", ["a", "b", "c"]), ("start", ["c", "a", "b"]), (None, ["a", "b"])],
)
async def test_a_created_record_joins_the_stored_lists(
    controller: Any, httpx_mock: HTTPXMock, schema: Any, new_items: Any, expected: Any
) -> None:
    items = records(schema, new_items=new_items)
    answer_list(httpx_mock)
    answer_list(httpx_mock, ITEMS[1:], match_params={"user_id": "2"})
    await controller.get(items.get_list)
    await controller.get(items.get_list, {"user_id": 2})
    httpx_mock.add_response(
        method="POST", url=f"{API}/items/", json={"id": 3, "title": "c", "user_id": 1}
    )
    created = await controller.fetch(items.create, body={"title": "c"})
    assert titles(await controller.get(items.get_list)) == expected
    if new_items is not None:
        assert (await controller.get(items.get_list))[expected.index("c")] is created
    # the server made it for user 1: user 2's list does not take it
    assert titles(await controller.get(items.get_list, {"user_id": 2})) == ["b"]
    assert len(httpx_mock.get_requests()) == 3


@pytest.mark.parametrize("schema", RECORDS)
async def test_one_callers_update_never_shows_in_anothers_stored_list(
    controller: Any, httpx_mock: HTTPXMock, schema: Any
) -> None:
    answer_list(httpx_mock, is_reusable=True)
    alice = records(schema, headers={"Authorization": "Bearer alice"})
    bob = records(schema, headers={"Authorization": "Bearer bob"})
    await controller.get(alice.get_list)
    await controller.get(bob.get_list)
    httpx_mock.add_response(
        method="PATCH", url=f"{API}/items/1", json={**ITEMS[0], "title": "alice's"}
    )
    await controller.fetch(alice.partial_update, {"id": 1}, {"title": "alice's"})
    assert titles(await controller.get(alice.get_list)) == ["alice's", "b"]
    assert titles(await controller.get(bob.get_list)) == ["a", "b"]
    assert len(httpx_mock.get_requests()) == 3


async def test_a_record_whose_pk_is_missing_names_the_url_and_model(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    class Loose(pydantic.BaseModel):
        __restwire_pk__ = "id"

        id: int | None = None
        title: str = ""

    answer_list(httpx_mock, [{"id": 1, "title": "a"}, {"title": "no id"}])
    with pytest.raises(EntityError) as caught:
        await controller.fetch(api.extend(path="/items/", schema=[Loose]))
    message = str(caught.value)
    assert message.startswith(f"GET {API}/items/: Loose.id: has no primary key")


async def test_a_record_model_nested_in_an_object_schema_is_a_record(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    items = records(Article)
    httpx_mock.add_response(
        method="GET", url=f"{API}/page", json={"results": ITEMS, "next": None}
    )
    page = api.extend(path="/page", schema={"results": [Article], "next": ""})
    await controller.get(page)
    httpx_mock.add_response(method="DELETE", url=f"{API}/items/2", status_code=204)
    await controller.fetch(items.delete, {"id": 2})
    assert titles((await controller.get(page))["results"]) == ["a"]


def test_a_wrong_declaration_is_refused_where_the_endpoint_is_written() -> None:
    class Misnamed(pydantic.BaseModel):
        __restwire_pk__ = "uuid"

        id: int

    @dataclasses.dataclass
    class Unkeyed:
        __restwire_pk__: ClassVar[str] = "id"
        __restwire_key__: ClassVar[Any] = 7

        id: int

    with pytest.raises(TypeError, match=r"Misnamed.__restwire_pk__ must name one of"):
        resource(path="/m/:id", schema=Misnamed, endpoint=api)
    with pytest.raises(TypeError, match=r"Unkeyed.__restwire_key__ must be text"):
        RestEndpoint(path="/u", schema=[Unkeyed])
    with pytest.raises(TypeError, match="Invalidate removes records"):
        RestEndpoint(path="/d", schema=Invalidate(Draft))


def test_members_of_a_record_model_resource() -> None:
    items = records(Article)
    assert items.delete.schema == Invalidate(Article)
    assert items.create.adds_to is not None
    assert items.partial_update.expires is None
    assert record_of(Article) is not None
    assert record_of(Draft) is None
    assert record_of(None) is None


class Keyed(pydantic.BaseModel):
    __restwire_pk__ = "id"
    __restwire_key__ = "Article"

    id: int
    title: str


async def test_the_key_names_the_record_across_models(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """Two models with one ``__restwire_key__`` share records: a delete
    through one drops the record from the other's lists."""
    answer_list(httpx_mock)
    await controller.get(records(Article).get_list)
    httpx_mock.add_response(method="DELETE", url=f"{API}/items/1", status_code=204)
    await controller.fetch(records(Keyed).delete, {"id": 1})
    assert titles(await controller.get(records(Article).get_list)) == ["b"]


# -- models without a pk: mutations expire the caller's results ---------------


@pytest.mark.parametrize(
    ("member", "method", "params"),
    [
        ("partial_update", "PATCH", {"id": 1}),
        ("update", "PUT", {"id": 1}),
        ("create", "POST", None),
        ("delete", "DELETE", {"id": 1}),
    ],
)
async def test_a_mutation_of_a_value_resource_expires_its_callers_reads(
    controller: Any,
    httpx_mock: HTTPXMock,
    member: str,
    method: str,
    params: Any,
) -> None:
    alice = resource(
        path="/items/:id",
        schema=Draft,
        endpoint=api,
        headers={"Authorization": "Bearer alice"},
    )
    bob = resource(
        path="/items/:id",
        schema=Draft,
        endpoint=api,
        headers={"Authorization": "Bearer bob"},
    )
    answer_list(httpx_mock, is_reusable=True)
    httpx_mock.add_response(
        method="GET", url=f"{API}/items/1", json=ITEMS[0], is_reusable=True
    )
    for caller in (alice, bob):
        await controller.get(caller.get_list)
        await controller.get(caller.get, {"id": 1})
    assert len(httpx_mock.get_requests()) == 4
    httpx_mock.add_response(method=method, json={"id": 1, "title": "a2"})
    await controller.fetch(getattr(alice, member), params, {"title": "a2"})
    assert len(httpx_mock.get_requests()) == 5
    await controller.get(alice.get_list)  # expired: fetched
    await controller.get(alice.get, {"id": 1})  # expired: fetched
    assert len(httpx_mock.get_requests()) == 7
    await controller.get(bob.get_list)  # bob's own stay
    await controller.get(bob.get, {"id": 1})
    assert len(httpx_mock.get_requests()) == 7


async def test_a_failed_mutation_expires_nothing(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    drafts = resource(path="/items/:id", schema=Draft, endpoint=api)
    answer_list(httpx_mock)
    await controller.get(drafts.get_list)
    httpx_mock.add_response(method="PATCH", status_code=409)
    with pytest.raises(Exception, match="409"):
        await controller.fetch(drafts.partial_update, {"id": 1}, {"title": "x"})
    await controller.get(drafts.get_list)  # still stored
    assert len(httpx_mock.get_requests()) == 2


async def test_fetch_response_of_a_mutation_expires_only_on_success(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """The raw response keeps nothing, but a 2xx expires; a 3xx returned
    unfollowed did not change anything, and expires nothing."""
    drafts = resource(
        path="/items/:id", schema=Draft, endpoint=api, follow_redirects=False
    )
    answer_list(httpx_mock, is_reusable=True)
    await controller.get(drafts.get_list)
    httpx_mock.add_response(
        method="PATCH", status_code=303, headers={"Location": f"{API}/elsewhere"}
    )
    await controller.fetch_response(drafts.partial_update, {"id": 1}, {"title": "x"})
    await controller.get(drafts.get_list)  # still stored
    assert len(httpx_mock.get_requests()) == 2
    httpx_mock.add_response(method="PATCH", json={"id": 1, "title": "x"})
    await controller.fetch_response(drafts.partial_update, {"id": 1}, {"title": "x"})
    await controller.get(drafts.get_list)  # expired: fetched
    assert len(httpx_mock.get_requests()) == 4


async def test_invalidate_all_for_one_identity(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """``invalidate_all(target, identity=...)`` forgets what one caller
    fetched (``exchange.identity`` names a call's); others keep theirs."""
    seen: dict[str, Any] = {}

    class Who:
        def on_response(self, exchange: Any) -> None:
            seen[exchange.headers["Authorization"]] = exchange.identity

    answer_list(httpx_mock, is_reusable=True)
    alice, bob = (
        resource(
            path="/items/:id",
            schema=Draft,
            endpoint=api.use(Who()),
            headers={"Authorization": f"Bearer {name}"},
        )
        for name in ("alice", "bob")
    )
    await controller.get(alice.get_list)
    await controller.get(bob.get_list)
    assert controller.invalidate_all(alice, identity=seen["Bearer alice"]) == 1
    assert controller.invalidate_all(alice, identity=seen["Bearer alice"]) == 0
    await controller.get(bob.get_list)  # kept
    assert len(httpx_mock.get_requests()) == 2
    await controller.get(alice.get_list)  # fetched
    assert len(httpx_mock.get_requests()) == 3
    assert controller.invalidate_all(bob.get_list) == 2  # everyone's


def test_expires_takes_read_endpoints() -> None:
    with pytest.raises(TypeError, match="expires must be a tuple of endpoints"):
        api.extend(method="POST", expires="items")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="which is not a read"):
        api.extend(method="POST", expires=(api.extend(method="DELETE"),))
    drafts = resource(path="/items/:id", schema=Draft, endpoint=api)
    assert drafts.create.expires == (drafts.get, drafts.get_list)
    assert drafts.get.expires is None


# -- a read in flight when its results are forgotten ---------------------------


class HeldReads:
    """A transport whose GETs wait until ``release`` (counted in
    ``gets``), answering the list as it is then; other methods answer at
    once, changing the first item's title."""

    def __init__(self, size: int = 1) -> None:
        import anyio

        self.release = anyio.Event()
        self.started = anyio.Event()
        self.gets = 0
        self.title = "a"
        #: How many items the list holds (from 8, it is made by column).
        self.size = size

    async def __call__(self, request: Any) -> Any:
        import httpx

        if request.method != "GET":
            self.title = "a2"
            return httpx.Response(200, json={"id": 1, "title": "a2"})
        self.gets += 1
        title = self.title  # what the server read when the request came
        self.started.set()
        await self.release.wait()
        rest = [{"id": n, "title": "x"} for n in range(2, self.size + 1)]
        return httpx.Response(200, json=[{"id": 1, "title": title}, *rest])


@pytest.mark.parametrize("forget", ["mutation", "invalidate", "invalidate_all"])
async def test_a_read_in_flight_when_its_results_are_forgotten_keeps_nothing(
    forget: str,
) -> None:
    """A read that began before a mutation expired its endpoint (or before
    ``invalidate``) returns what it got to its caller, but does not keep
    that older value: the next ``get`` fetches."""
    import anyio
    import httpx

    from restwire import AsyncController

    drafts = resource(path="/items/:id", schema=Draft, endpoint=api)
    server = HeldReads()
    got: list[Any] = []
    async with AsyncController(transport=httpx.MockTransport(server)) as controller:

        async def read() -> None:
            got.append(await controller.get(drafts.get_list))

        async with anyio.create_task_group() as group:
            group.start_soon(read)
            await server.started.wait()
            if forget == "mutation":
                await controller.fetch(
                    drafts.partial_update, {"id": 1}, {"title": "a2"}
                )
            elif forget == "invalidate":
                controller.invalidate(drafts.get_list)
            else:
                controller.invalidate_all(drafts)
            server.release.set()
        assert [item.title for item in got[0]] == ["a"]  # its caller's answer
        again = await controller.get(drafts.get_list)
        assert server.gets == 2  # the older value was not kept
        assert [item.title for item in again] == [server.title]
        await controller.get(drafts.get_list)
        assert server.gets == 2  # the new one is


class Post(Entity):
    id: int = 0
    title: str = ""


@pytest.mark.parametrize("size", [1, 10], ids=["one item", "a list made by column"])
@pytest.mark.parametrize("write", ["mutation", "set"])
async def test_a_read_in_flight_does_not_undo_a_record_written_since(
    write: str, size: int
) -> None:
    """An entity read that began before a mutation answered (or before a
    value was ``set``) keeps the record as the mutation left it, not as
    the older read saw it: the newest write wins, as its list shows, the
    list the read returns as well as the one kept."""
    import anyio
    import httpx

    from restwire import AsyncController

    posts = resource(path="/items/:id", schema=Post, endpoint=api)
    server = HeldReads(size)
    async with AsyncController(transport=httpx.MockTransport(server)) as controller:
        got: list[Any] = []

        async def read() -> None:
            got.append(await controller.get(posts.get_list))

        async with anyio.create_task_group() as group:
            group.start_soon(read)
            await server.started.wait()
            if write == "mutation":
                changed = await controller.fetch(
                    posts.partial_update, {"id": 1}, {"title": "a2"}
                )
            else:
                changed = await controller.set(
                    posts.get, {"id": 1, "title": "a2"}, {"id": 1}
                )
            assert changed.title == "a2"
            server.release.set()
        titles = ["a2"] + ["x"] * (size - 1)
        assert [post.title for post in got[0]] == titles
        assert [post.title for post in await controller.get(posts.get_list)] == titles
        assert server.gets == 1  # the list was kept, with the newer record
