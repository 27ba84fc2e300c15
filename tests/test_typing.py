"""A user's program, as mypy --strict sees it: results typed by their schema.

``.ci/run`` type-checks this file with ``mypy --strict`` (under
``warn_unused_ignores``): each ``assert_type`` is a promise about the types
users get, and each ``# type: ignore[...]`` pins a misuse mypy must keep
catching (if it stops, the ignore is unused and mypy fails). The same
functions also run here, against pytest-httpx, so the types describe the
values users really get.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator
from typing import Any, ClassVar, TypedDict, assert_type

import httpx
import pydantic
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    AsyncController,
    ClientError,
    Controller,
    EndpointOptions,
    Entity,
    EntityError,
    NotFoundError,
    Page,
    Problem,
    Resource,
    RestEndpoint,
    UsageError,
    hookify_resource,
    paged,
    resource,
)
from restwire._base.library import Response
from restwire.middlewares import BodyPagination, LinkPagination

API = "https://api.example.com"


class Post(Entity):
    id: str = ""
    title: str = ""


class Author(pydantic.BaseModel):
    id: int
    name: str


@dataclasses.dataclass
class Point:
    x: float
    y: float


class Tag(TypedDict):
    name: str


class Article(pydantic.BaseModel):
    """A record model: a pydantic model that declares its primary key."""

    __restwire_pk__ = "id"

    id: int
    title: str


@dataclasses.dataclass
class Memo:
    """A record model: a dataclass that declares its primary key."""

    __restwire_pk__: ClassVar[str] = "id"

    id: int
    text: str = ""


api = RestEndpoint(url_prefix=API)
get_post = api.extend(path="/posts/:id", schema=Post)
list_posts = api.extend(path="/posts/", schema=[Post])
get_author = api.extend(path="/authors/:id", schema=Author)
get_point = api.extend(path="/points/:id", schema=Point)
list_tags = api.extend(path="/tags/", schema=[Tag])
listing = api.extend(path="/articles/", schema=paged(Post)).use(LinkPagination())
untyped = api.extend(path="/anything")
posts = resource(path="/posts/:id", schema=Post, endpoint=api)
articles = resource(path="/articles/:id", schema=Article, endpoint=api)
memos = resource(path="/memos/:id", schema=Memo, endpoint=api)
wrapped = resource(path="/posts/:id", schema=Post, endpoint=api, results="data")
stripe_posts = resource(
    path="/posts/:id", schema=Post, endpoint=api, pagination=BodyPagination.cursor()
)


def endpoints_are_typed_by_their_schema() -> None:
    assert_type(RestEndpoint(path="/posts/:id", schema=Post), RestEndpoint[Post])
    assert_type(RestEndpoint(path="/posts/", schema=[Post]), RestEndpoint[list[Post]])
    assert_type(RestEndpoint(path="/x"), RestEndpoint[Any])
    assert_type(RestEndpoint(path="/x", schema={"results": [Post]}), RestEndpoint[Any])
    assert_type(get_post, RestEndpoint[Post])
    assert_type(list_posts, RestEndpoint[list[Post]])
    assert_type(get_author, RestEndpoint[Author])
    assert_type(get_point, RestEndpoint[Point])
    assert_type(list_tags, RestEndpoint[list[Tag]])
    assert_type(listing, RestEndpoint[Page[Post]])
    assert_type(untyped, RestEndpoint[Any])
    assert_type(get_post.extend(name="post"), RestEndpoint[Post])  # schema kept


def endpoint_options_are_checked() -> None:
    """Each option is typed (``EndpointOptions``): a misspelt option or a
    value of the wrong type fails mypy, and, at run time, raises."""
    options: EndpointOptions = {"url_prefix": API, "timeout": 5, "method": "post"}
    assert_type(RestEndpoint(**options), RestEndpoint[Any])
    assert_type(get_post.extend(**options), RestEndpoint[Post])
    RestEndpoint(timeout=datetime.timedelta(seconds=5), param_style="brackets")
    with pytest.raises(UsageError, match="unknown option"):
        RestEndpoint(url_prefx="http://x")  # type: ignore[call-overload]
    with pytest.raises(UsageError, match="timeout must be seconds"):
        RestEndpoint(timeout="soon")  # type: ignore[call-overload]
    with pytest.raises(UsageError, match="unknown option"):
        get_post.extend(url_prefx="http://x")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="got multiple values"):
        resource(path="/p/:id", schema=Post, method="POST")  # type: ignore[call-overload]


def resources_are_typed() -> None:
    assert_type(posts, Resource[Post])
    assert_type(posts.get, RestEndpoint[Post])
    assert_type(posts.get_list, RestEndpoint[list[Post]])
    assert_type(posts.create, RestEndpoint[Post])
    assert_type(posts.update, RestEndpoint[Post])
    assert_type(posts.partial_update, RestEndpoint[Post])
    hooked = hookify_resource(posts, lambda: {"headers": {"Access-Token": "t"}})
    assert_type(hooked.use_get(), RestEndpoint[Post])
    assert_type(hooked.use_get_list(), RestEndpoint[list[Post]])
    # a list in an envelope: get_list gives a page of the records
    assert_type(wrapped, Resource[Post, Page[Post]])
    assert_type(wrapped.get_list, RestEndpoint[Page[Post]])
    assert_type(wrapped.get, RestEndpoint[Post])
    assert_type(stripe_posts.get_list, RestEndpoint[Page[Post]])
    assert_type(
        hookify_resource(wrapped, dict).use_get_list(), RestEndpoint[Page[Post]]
    )


def record_model_resources_are_typed() -> None:
    """Declaring ``__restwire_pk__`` changes neither the model nor its types."""
    assert_type(articles, Resource[Article])
    assert_type(articles.get, RestEndpoint[Article])
    assert_type(articles.get_list, RestEndpoint[list[Article]])
    assert_type(articles.create, RestEndpoint[Article])
    assert_type(articles.partial_update, RestEndpoint[Article])
    assert_type(memos, Resource[Memo])
    assert_type(memos.get_list, RestEndpoint[list[Memo]])
    assert_type(memos.update, RestEndpoint[Memo])
    Article(id=1, title="the constructor is the model's own")
    Memo(1, "a dataclass's too")
    with pytest.raises(pydantic.ValidationError):
        Article(id=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Memo(text="no id")  # type: ignore[call-arg]


def record_model_results(controller: Controller) -> None:
    listed = controller.get(articles.get_list)
    assert_type(listed, list[Article])
    changed = controller.fetch(articles.partial_update, {"id": 1}, {"title": "b"})
    assert_type(changed, Article)
    assert_type(controller.get(articles.get_list)[0], Article)
    assert_type(controller.get(memos.get_list), list[Memo])


async def async_record_model_results(controller: AsyncController) -> None:
    assert_type(await controller.get(articles.get_list), list[Article])
    assert_type(await controller.fetch(memos.create, body=Memo(0)), Memo)


def sync_results(controller: Controller) -> None:
    post = controller.fetch(get_post, {"id": 1})
    assert_type(post, Post)
    assert_type(controller.get(get_post, {"id": 1}), Post)
    assert_type(controller.fetch(list_posts), list[Post])
    assert_type(controller.fetch(get_author, {"id": 7}), Author)
    assert_type(controller.fetch(untyped), Any)
    assert_type(controller.fetch(posts.create, body=Post(title="hi")), Post)
    pages = controller.paginate(listing)
    assert_type(pages, Iterator[Page[Post]])
    items = controller.paginate(listing, items=True)
    assert_type(items, Iterator[Post])
    assert_type(controller.paginate(list_posts, items=True), Iterator[Post])
    authors = api.extend(path="/authors/", schema=paged(Author))
    assert_type(controller.paginate(authors, items=True), Iterator[Author])
    assert_type(controller.fetch(wrapped.get_list), Page[Post])
    assert_type(controller.paginate(stripe_posts.get_list, items=True), Iterator[Post])
    assert_type(controller.poll(get_post, {"id": 1}), Iterator[Post])
    assert_type(
        controller.fetch_with_response(get_post, {"id": 1}),
        tuple[Post, Response],
    )
    assert_type(controller.fetch_with_response(untyped), tuple[Any, Response])
    assert_type(controller.stream(get_post), Generator[Post, None])
    assert_type(controller.set(get_post, {"id": "1"}, {"id": 1}), Post)


async def async_results(controller: AsyncController) -> None:
    assert_type(await controller.fetch(get_post, {"id": 1}), Post)
    assert_type(await controller.get(list_posts), list[Post])
    assert_type(await controller.fetch(get_author, {"id": 7}), Author)
    items = controller.paginate(listing, items=True)
    assert_type(items, AsyncIterator[Post])
    assert_type(controller.poll(get_post, {"id": 1}), AsyncIterator[Post])
    assert_type(controller.stream(list_posts), AsyncGenerator[list[Post], None])
    assert_type(await controller.set(list_posts, []), list[Post])
    assert_type(
        await controller.fetch_with_response(list_posts),
        tuple[list[Post], Response],
    )


def status_errors_are_typed(controller: Controller) -> None:
    with_errors = get_post.extend(error_schema=Author)
    assert_type(with_errors, RestEndpoint[Post])  # error_schema keeps the type
    assert_type(with_errors.error_schema, Any)
    with pytest.raises(NotFoundError) as caught:
        controller.fetch(with_errors, {"id": 2})
    error = caught.value
    assert_type(error.status, int)
    assert_type(error.request_id, str | None)
    assert_type(error.retry_after, float | None)
    assert_type(error.problem, Problem | None)
    assert_type(error.data, Any)
    assert isinstance(error, ClientError)
    assert isinstance(error.problem, Problem)
    assert_type(error.problem.extensions, dict[str, Any])
    assert error.data == Author(id=7, name="Ann")
    assert error.request_id is None
    assert error.retry_after is None
    value, response = controller.fetch_with_response(get_post, {"id": 1})
    assert isinstance(value, Post)
    assert isinstance(response, httpx.Response)


def entity_constructors_are_checked() -> None:
    Post(id="1", title="hi")
    with pytest.raises(EntityError, match=r"Post\.id: expected str, got int"):
        Post(id=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="no field"):
        Post(idd="1")  # type: ignore[call-arg]
    post = Post(id="1")
    with pytest.raises(AttributeError, match="read-only"):
        post.title = "changed"  # type: ignore[misc]


def test_the_types_describe_the_values(httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(url=f"{API}/posts/1", json={"id": "1", "title": "a"})
    httpx_mock.add_response(url=f"{API}/authors/7", json={"id": "7", "name": "Ann"})
    httpx_mock.add_response(
        url=f"{API}/articles/",
        json=[{"id": "2", "title": "b"}],
        headers={"link": f'<{API}/articles/?page=2>; rel="next"'},
    )
    httpx_mock.add_response(url=f"{API}/articles/?page=2", json=[{"id": "3"}])
    httpx_mock.add_response(url=f"{API}/posts/1", json={"id": "1", "title": "b"})
    httpx_mock.add_response(
        url=f"{API}/posts/2",
        status_code=404,
        json={"title": "No such post", "id": 7, "name": "Ann"},
        headers={"content-type": "application/problem+json"},
    )
    with Controller(httpx.Client()) as controller:
        assert isinstance(controller.fetch(get_post, {"id": 1}), Post)
        assert controller.fetch(get_author, {"id": 7}) == Author(id=7, name="Ann")
        assert [post.id for post in controller.paginate(listing, items=True)] == [
            "2",
            "3",
        ]
        status_errors_are_typed(controller)
    endpoints_are_typed_by_their_schema()
    endpoint_options_are_checked()
    resources_are_typed()
    entity_constructors_are_checked()


def test_record_models_are_typed_and_kept(httpx_mock: HTTPXMock) -> None:
    """The types hold for the values: a record model's PATCH shows in the
    stored list, as ``Article`` instances, with no request."""
    httpx_mock.add_response(
        method="GET", url=f"{API}/articles/", json=[{"id": 1, "title": "a"}]
    )
    httpx_mock.add_response(
        method="PATCH", url=f"{API}/articles/1", json={"id": 1, "title": "b"}
    )
    httpx_mock.add_response(method="GET", url=f"{API}/memos/", json=[{"id": 1}])
    with Controller(httpx.Client()) as controller:
        record_model_results(controller)
        assert controller.get(articles.get_list) == [Article(id=1, title="b")]
        assert controller.get(memos.get_list) == [Memo(1)]
    assert len(httpx_mock.get_requests()) == 3
    record_model_resources_are_typed()
