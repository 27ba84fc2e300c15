"""resource() and hookify_resource()."""

from __future__ import annotations

import contextvars
import json
from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    Entity,
    Exchange,
    Invalidate,
    ParameterError,
    Resource,
    RestEndpoint,
    hookify_resource,
    resource,
)
from restwire._endpoints.resource import item_path, list_path
from tests.pipeline.entities import Post

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


class Tag:
    def on_request(self, exchange: Exchange) -> None:
        exchange.headers["x-tag"] = "shared"


@pytest.mark.parametrize(
    ("path", "items"),
    [
        ("/posts/:id", "/posts/"),
        ("/users/:user/posts/:id", "/users/:user/posts/"),
        ("/posts{/:id}", "/posts"),
        ("/:username/", "/"),
        # a suffix after the item stays: Twilio's paths end in .json
        (
            "/Accounts/:AccountSid/Messages{/:Sid}.json",
            "/Accounts/:AccountSid/Messages.json",
        ),
        (
            "/Accounts/:AccountSid/Messages/:Sid.json",
            "/Accounts/:AccountSid/Messages.json",
        ),
        ("/posts{/:id}/", "/posts/"),
        ("/posts/:id/", "/posts/"),
        ("/v1/items\\:batch/:id", "/v1/items\\:batch/"),
        ("/v1/items{/:id}\\:export", "/v1/items\\:export"),
    ],
)
def test_list_path_drops_the_last_placeholder(path: str, items: str) -> None:
    assert list_path(path) == items


@pytest.mark.parametrize(
    "path",
    ["/Messages{/:Sid}.json", "/Messages/:Sid.json"],
)
async def test_a_suffix_after_the_item_is_kept_on_every_member(
    controller: Any, httpx_mock: HTTPXMock, path: str
) -> None:
    """Lists and creates at ``Messages.json``; gets, updates and deletes at
    ``Messages/SM1.json``: the suffix is part of every URL."""
    messages = resource(
        path="/2010-04-01/Accounts/:AccountSid" + path,
        schema=Post,
        endpoint=RestEndpoint(url_prefix=API),
    )
    account = {"AccountSid": "AC1"}
    item = {**account, "Sid": "SM1"}
    httpx_mock.add_response(json=[])
    for _ in range(4):
        httpx_mock.add_response(json={"id": "SM1", "title": "t"})
    httpx_mock.add_response(status_code=204)
    await controller.fetch(messages.get_list, account)
    await controller.fetch(messages.create, account, {"title": "t"})
    await controller.fetch(messages.get, item)
    await controller.fetch(messages.update, item, {"title": "u"})
    await controller.fetch(messages.partial_update, item, {"title": "v"})
    await controller.fetch(messages.delete, {**item, "id": "SM1"})
    sent = [(r.method, r.url.path) for r in httpx_mock.get_requests()]
    listed, one = (
        "/2010-04-01/Accounts/AC1/Messages.json",
        "/2010-04-01/Accounts/AC1/Messages/SM1.json",
    )
    assert sent == [
        ("GET", listed),
        ("POST", listed),
        ("GET", one),
        ("PUT", one),
        ("PATCH", one),
        ("DELETE", one),
    ]


def test_a_resource_path_needs_an_item_placeholder() -> None:
    with pytest.raises(ValueError, match="no placeholder"):
        list_path("/posts/")


def test_members_methods_paths_and_schemas() -> None:
    base = RestEndpoint(url_prefix=API, middleware=[Tag()])
    posts = resource(
        path="/posts/:id", schema=Post, endpoint=base, data_expiry_length=5
    )
    members = {
        "get": ("GET", "/posts/:id", Post),
        "get_list": ("GET", "/posts/", [Post]),
        "create": ("POST", "/posts/", Post),
        "update": ("PUT", "/posts/:id", Post),
        "partial_update": ("PATCH", "/posts/:id", Post),
        "delete": ("DELETE", "/posts/:id", Invalidate(Post)),
    }
    for name, (method, path, schema) in members.items():
        endpoint = getattr(posts, name)
        assert (endpoint.method, endpoint.path, endpoint.schema) == (
            method,
            path,
            schema,
        )
        assert endpoint.url_prefix == API
        assert endpoint.middleware == base.middleware
        assert endpoint.data_expiry_length == 5
        assert endpoint.name == f"Post.{name}"


async def test_a_shared_stack_reaches_every_member(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"id": "1", "title": "t"}, is_reusable=True)
    posts = resource(
        path="/posts/:id",
        schema=Post,
        endpoint=RestEndpoint(url_prefix=API, middleware=[Tag()]),
    )
    await controller.fetch(posts.get, {"id": "1"})
    await controller.fetch(posts.create, body={"title": "t"})
    await controller.fetch(posts.update, {"id": "1"}, {"title": "t"})
    assert [r.headers["x-tag"] for r in httpx_mock.get_requests()] == ["shared"] * 3


async def test_create_then_get_the_seed_post(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    posts = resource(
        path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=API)
    )
    httpx_mock.add_response(
        method="POST", url=f"{API}/posts/", json={"id": "5", "title": "t"}
    )
    created = await controller.fetch(posts.create, body={"title": "t"})
    assert created == Post(id="5", title="t")
    assert controller.store.records[("Post", "5")] == created
    request = httpx_mock.get_request()
    assert request is not None
    assert json.loads(request.content) == {"title": "t"}


current_token: contextvars.ContextVar[str] = contextvars.ContextVar("current_token")


def use_init() -> dict[str, Any]:
    return {"headers": {"Access-Token": current_token.get()}}


async def test_hookified_members_take_the_init_at_call_time(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"id": "1"}, is_reusable=True)
    posts = hookify_resource(
        resource(path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=API)),
        use_init,
    )
    for user in ("ann", "bob"):
        token = current_token.set(f"token-of-{user}")
        try:
            get = posts.use_get()
        finally:
            current_token.reset(token)
        await controller.fetch(get, {"id": "1"})
    sent = [request.headers["access-token"] for request in httpx_mock.get_requests()]
    assert sent == ["token-of-ann", "token-of-bob"]
    assert "token-of" not in repr(get)


def test_every_hook_member_exists_and_merges_headers() -> None:
    base = RestEndpoint(url_prefix=API, headers={"X-Client": "restwire"})
    posts = hookify_resource(
        resource(path="/posts/:id", schema=Post, endpoint=base),
        lambda: {"headers": {"Access-Token": "t"}, "data_expiry_length": 0},
    )
    for name in ("get", "get_list", "create", "update", "partial_update", "delete"):
        endpoint = getattr(posts, f"use_{name}")()
        assert endpoint.headers == {"x-client": "restwire", "access-token": "t"}
        assert "access-token" in endpoint.sensitive_headers
        assert endpoint.data_expiry_length == 0


def test_a_hook_that_returns_no_mapping_is_refused() -> None:
    posts = hookify_resource(
        resource(path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=API)),
        lambda: "token",  # type: ignore[arg-type, return-value]
    )
    with pytest.raises(TypeError, match="must return a mapping"):
        posts.use_get()


# -- lists that follow creates, and invalidate_all ------------------------------------


class Note(Entity):
    id: str = ""
    title: str = ""
    user_id: int = 0


def notes(**options: Any) -> Resource[Note]:
    return resource(
        path="/notes/:id", schema=Note, endpoint=RestEndpoint(url_prefix=API), **options
    )


LISTS: dict[str, list[dict[str, Any]]] = {
    "": [
        {"id": "1", "title": "a", "user_id": 1},
        {"id": "2", "title": "b", "user_id": 2},
    ],
    "?user_id=1": [{"id": "1", "title": "a", "user_id": 1}],
    "?user_id=2": [{"id": "2", "title": "b", "user_id": 2}],
    "?page=2": [],
}


def answer_lists(httpx_mock: HTTPXMock, *queries: str) -> None:
    """The server's lists (note 1 by user 1, note 2 by user 2), once each,
    for ``queries`` (all of them by default)."""
    for query in queries or LISTS:
        params = dict(pair.split("=") for pair in query[1:].split("&") if pair)
        httpx_mock.add_response(
            method="GET",
            url=f"{API}/notes/",
            match_params=params,
            json=LISTS[query],
        )


async def titles(controller: Any, listing: Any, params: Any = None) -> list[str]:
    """The titles of a stored list, read with ``get`` (no request is
    answered any more: a fetch would fail the test)."""
    return [note.title for note in await controller.get(listing, params)]


@pytest.mark.parametrize(
    ("new_items", "everyone", "mine"),
    [
        ("end", ["a", "b", "new"], ["a", "new"]),
        ("start", ["new", "a", "b"], ["new", "a"]),
        (None, ["a", "b"], ["a"]),
    ],
)
async def test_a_created_record_joins_the_stored_lists_it_belongs_in(
    controller: Any,
    httpx_mock: HTTPXMock,
    new_items: Any,
    everyone: list[str],
    mine: list[str],
) -> None:
    """A list fetched with no params gains every created record; one
    fetched with ``user_id`` 1 gains a record created with ``user_id`` 1,
    not one with 2; a list whose params the create does not say (``page``)
    gains nothing, but is a page: it is read again."""
    api = notes(new_items=new_items)
    answer_lists(httpx_mock)
    for params in (None, {"user_id": 1}, {"user_id": 2}, {"page": 2}):
        await controller.fetch(api.get_list, params)
    httpx_mock.add_response(
        method="POST",
        url=f"{API}/notes/",
        json={"id": "9", "title": "new", "user_id": 1},
    )
    await controller.fetch(api.create, body={"title": "new", "user_id": 1})
    assert await titles(controller, api.get_list) == everyone
    assert await titles(controller, api.get_list, {"user_id": 1}) == mine
    assert await titles(controller, api.get_list, {"user_id": 2}) == ["b"]
    if new_items is not None:  # a page the record may be on: read again
        answer_lists(httpx_mock, "?page=2")
    assert await titles(controller, api.get_list, {"page": 2}) == []


PAGINGS = [{"limit": 50}, {"page": 1}, {"starting_after": "0"}, {"cursor": "c1"}]


@pytest.mark.parametrize("paging", PAGINGS)
async def test_a_paged_list_is_read_again_after_a_create(
    controller: Any, httpx_mock: HTTPXMock, paging: dict[str, Any]
) -> None:
    """A list read with a paging param (Stripe always sends ``limit``) is
    a page the created record may be on: the next read fetches it, never
    the page as it was. A page of another user's notes is left as it is."""
    api = notes()
    first = {"id": "1", "title": "a", "user_id": 1}
    made = {"id": "9", "title": "new", "user_id": 1}
    mine = {**paging, "user_id": 1}
    theirs = {**paging, "user_id": 2}
    for params, items in ((paging, [first]), (mine, [first]), (theirs, [])):
        httpx_mock.add_response(
            method="GET",
            url=f"{API}/notes/",
            match_params={name: str(value) for name, value in params.items()},
            json=items,
        )
        await controller.fetch(api.get_list, params)
    httpx_mock.add_response(method="POST", url=f"{API}/notes/", json=made)
    await controller.fetch(api.create, body={"title": "new"})
    for params in (paging, mine):
        httpx_mock.add_response(
            method="GET",
            url=f"{API}/notes/",
            match_params={name: str(value) for name, value in params.items()},
            json=[first, made],
        )
        assert await titles(controller, api.get_list, params) == ["a", "new"]
    assert await titles(controller, api.get_list, theirs) == []
    gets = [r for r in httpx_mock.get_requests() if r.method == "GET"]
    assert len(gets) == 5


@pytest.mark.parametrize("member", ["update", "partial_update", "delete"])
@pytest.mark.parametrize("schema", [Note, None])
@pytest.mark.parametrize(
    ("params", "problem"),
    [
        (None, "is missing"),
        ({"note_id": "1"}, "is missing"),
        ({"id": None}, "is None, a segment needs text"),
    ],
)
async def test_a_write_without_its_items_params_is_refused_before_sending(
    controller_factory: Any, member: str, schema: Any, params: Any, problem: str
) -> None:
    """``/notes{/:id}`` lists at ``/notes``; its writes of one record need
    ``id``: without it, nothing is sent (not a write to the collection)."""
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"id": "1", "title": "t"})

    controller = controller_factory(transport=httpx.MockTransport(answer))
    api = resource(
        path="/notes{/:id}", schema=schema, endpoint=RestEndpoint(url_prefix=API)
    )
    write = getattr(api, member)
    body = None if member == "delete" else {"title": "t"}
    with pytest.raises(ParameterError, match=f"parameter 'id' {problem}") as caught:
        await controller.fetch(write, params, body=body)
    assert str(caught.value).startswith(f"{write.name}: ")
    assert sent == []
    await controller.fetch(write, {"id": "1"}, body=body)
    assert [(r.method, str(r.url)) for r in sent] == [(write.method, f"{API}/notes/1")]


@pytest.mark.parametrize(
    ("path", "item"),
    [
        ("/notes/:id", "/notes/:id"),
        ("/notes{/:id}", "/notes/:id"),
        ("/notes{/:id}.json", "/notes/:id.json"),
        ("/users/:user/notes{/:id}", "/users/:user/notes/:id"),
    ],
)
def test_item_path_makes_the_items_group_required(path: str, item: str) -> None:
    assert item_path(path) == item


def test_the_writes_of_an_optional_item_path_require_it() -> None:
    api = resource(path="/notes{/:id}", schema=Note)
    assert (api.get.path, api.get_list.path) == ("/notes{/:id}", "/notes")
    assert {api.update.path, api.partial_update.path, api.delete.path} == {"/notes/:id"}


async def test_a_created_record_matched_by_what_the_server_answered(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """The body need not say a list's param: the record the server made
    does (the server set ``user_id`` from the caller's session)."""
    api = notes()
    answer_lists(httpx_mock, "?user_id=2")
    await controller.fetch(api.get_list, {"user_id": 2})
    httpx_mock.add_response(
        method="POST",
        url=f"{API}/notes/",
        json={"id": "9", "title": "new", "user_id": 2},
    )
    await controller.fetch(api.create, body={"title": "new"})
    assert await titles(controller, api.get_list, {"user_id": 2}) == ["b", "new"]


async def test_a_created_record_joins_its_callers_lists_only(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """Two callers hold the same list; the one who created sees the record
    join it, the other's stored list is left as the server sent it."""
    first = {"id": "1", "title": "a", "user_id": 1}
    httpx_mock.add_response(
        method="GET", url=f"{API}/notes/", json=[first], is_reusable=True
    )
    alice = notes(headers={"Authorization": "Bearer alice"})
    bob = notes(headers={"Authorization": "Bearer bob"})
    await controller.fetch(alice.get_list)
    await controller.fetch(bob.get_list)
    httpx_mock.add_response(
        method="POST",
        url=f"{API}/notes/",
        json={"id": "9", "title": "new", "user_id": 1},
    )
    await controller.fetch(alice.create, body={"title": "new"})
    assert await titles(controller, alice.get_list) == ["a", "new"]
    assert await titles(controller, bob.get_list) == ["a"]


async def test_a_record_already_listed_is_not_added_twice(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    api = notes()
    answer_lists(httpx_mock, "")
    await controller.fetch(api.get_list)
    httpx_mock.add_response(
        method="POST",
        url=f"{API}/notes/",
        json={"id": "2", "title": "b2", "user_id": 2},
    )
    await controller.fetch(api.create, body={"title": "b2"})
    assert await titles(controller, api.get_list) == ["a", "b2"]


async def test_invalidate_all_forgets_every_params_of_an_endpoint_or_resource(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    api = notes()
    answer_lists(httpx_mock, "", "?user_id=1", "?user_id=2", "?page=2")
    httpx_mock.add_response(url=f"{API}/notes/1", json={"id": "1", "title": "a"})
    for params in (None, {"user_id": 1}, {"user_id": 2}):
        await controller.fetch(api.get_list, params)
    await controller.fetch(api.get, {"id": "1"})
    assert controller.invalidate_all(api.get_list) == 3
    assert await titles(controller, api.get_list, {"page": 2}) == []  # fetched
    assert controller.invalidate_all(api) == 2  # the page, and the item
    answer_lists(httpx_mock, "")  # fetched again
    assert await titles(controller, api.get_list) == ["a", "b"]
    with pytest.raises(TypeError, match="an endpoint or a resource"):
        controller.invalidate_all("notes")


def test_new_items_takes_end_start_or_none() -> None:
    with pytest.raises(ValueError, match="new_items"):
        notes(new_items="middle")
    assert notes().create.adds_to is not None
    assert notes(new_items=None).create.adds_to is None
    assert resource(path="/p/:id", schema=None).create.adds_to is None  # values
