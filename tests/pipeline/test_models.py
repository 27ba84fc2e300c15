"""Models users already have (pydantic, dataclasses, TypedDicts) as schemas
and as bodies, and entities as bodies; each under both drivers."""

from __future__ import annotations

import dataclasses
import datetime
import json
import sys
from typing import Annotated, Any, NotRequired, TypedDict

import pydantic
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    Entity,
    EntityError,
    MissingExtra,
    RestEndpoint,
    paged,
    resource,
)
from restwire._store.models import _adapter
from restwire.middlewares import BodyPagination, SnakeCaseKeys
from tests.conftest import collect

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


class Author(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(populate_by_name=True)

    id: int
    name: str
    joined: datetime.date | None = None
    nick_name: str = pydantic.Field(default="", alias="nickName")


@dataclasses.dataclass
class Point:
    x: float
    y: float
    label: str = ""


class Address(TypedDict):
    city: str


class Person(TypedDict):
    name: str
    address: Address
    email: NotRequired[str]
    home: NotRequired[Annotated[Address | None, "a note pydantic ignores"]]


class Post(Entity):
    id: str = ""
    first_name: str = ""
    published: datetime.date | None = None


api = RestEndpoint(url_prefix=API)


async def test_a_pydantic_model_alone_in_a_list_and_in_an_object(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        url=f"{API}/authors/1", json={"id": "1", "name": "Ann", "joined": "2024-05-01"}
    )
    httpx_mock.add_response(
        url=f"{API}/authors/", json=[{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bo"}]
    )
    httpx_mock.add_response(
        url=f"{API}/page", json={"results": [{"id": 3, "name": "Cy"}], "count": 1}
    )
    one = await controller.fetch(
        api.extend(path="/authors/:id", schema=Author), {"id": 1}
    )
    assert one == Author(id=1, name="Ann", joined=datetime.date(2024, 5, 1))
    many = await controller.fetch(api.extend(path="/authors/", schema=[Author]))
    assert many == [Author(id=1, name="Ann"), Author(id=2, name="Bo")]
    page = await controller.fetch(
        api.extend(path="/page", schema={"results": [Author], "count": 0})
    )
    assert page == {"results": [Author(id=3, name="Cy")], "count": 1}


async def test_a_dataclass_alone_and_in_a_list(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=f"{API}/points/1", json={"x": 1, "y": 2.5})
    httpx_mock.add_response(url=f"{API}/points/", json=[{"x": 0, "y": 0, "label": "o"}])
    point = await controller.fetch(
        api.extend(path="/points/:id", schema=Point), {"id": 1}
    )
    assert point == Point(1.0, 2.5)
    points = await controller.fetch(api.extend(path="/points/", schema=[Point]))
    assert points == [Point(0.0, 0.0, "o")]


async def test_a_typed_dict_nested_and_in_a_list(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    ann = {"name": "Ann", "address": {"city": "Oslo"}}
    httpx_mock.add_response(url=f"{API}/people/1", json=ann)
    httpx_mock.add_response(
        url=f"{API}/people/",
        json=[ann, {**ann, "email": "a@b", "home": {"city": "Bergen"}}],
    )
    person = await controller.fetch(
        api.extend(path="/people/:id", schema=Person), {"id": 1}
    )
    assert person == ann
    people = await controller.fetch(api.extend(path="/people/", schema=[Person]))
    assert people[1]["email"] == "a@b"
    assert "email" not in people[0]  # not required, and absent
    assert people[1]["home"] == {"city": "Bergen"}
    httpx_mock.add_response(url=f"{API}/people/2", json={"name": "Bo", "address": {}})
    with pytest.raises(EntityError, match=r"Person\.address\.city: Field required"):
        await controller.fetch(api.extend(path="/people/:id", schema=Person), {"id": 2})


async def test_a_value_that_does_not_validate_names_the_url_and_the_field(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        url=f"{API}/authors/", json=[{"id": 1, "name": "Ann"}, {"id": "x"}]
    )
    with pytest.raises(EntityError) as caught:
        await controller.fetch(api.extend(path="/authors/", schema=[Author]))
    message = str(caught.value)
    assert message.startswith(f"GET {API}/authors/: Author.1.id: Input should be")
    assert "(and 1 more)" in message  # name is missing too
    assert caught.value.field == "1.id"


async def test_a_model_result_is_kept_but_not_normalized(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """Models are values: kept by request, not merged as records."""
    httpx_mock.add_response(url=f"{API}/authors/1", json={"id": 1, "name": "Ann"})
    httpx_mock.add_response(url=f"{API}/me", json={"id": 1, "name": "Ann B."})
    by_id = api.extend(path="/authors/:id", schema=Author)
    first = await controller.get(by_id, {"id": 1})
    assert await controller.get(by_id, {"id": 1}) is first  # from the store
    me = await controller.fetch(api.extend(path="/me", schema=Author))
    assert me.name == "Ann B."
    assert (await controller.get(by_id, {"id": 1})).name == "Ann"  # not merged
    assert len(httpx_mock.get_requests()) == 2


async def test_entities_and_models_are_sent_as_json_bodies(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(method="POST", json={}, is_reusable=True)
    create = api.extend(path="/things/", method="POST")
    await controller.fetch(
        create, body=Post(id="1", first_name="Ann", published=datetime.date(2024, 5, 1))
    )
    await controller.fetch(create, body=Author(id=2, name="Bo", nickName="b"))
    await controller.fetch(create, body=Point(1, 2))
    await controller.fetch(create, body=[Post(id="1"), Post(id="2")])
    await controller.fetch(create.use(SnakeCaseKeys()), body=Post(first_name="Cy"))
    sent = [json.loads(request.content) for request in httpx_mock.get_requests()]
    assert sent[0] == {"id": "1", "first_name": "Ann", "published": "2024-05-01"}
    assert sent[1] == {"id": 2, "name": "Bo", "joined": None, "nickName": "b"}
    assert sent[2] == {"x": 1, "y": 2, "label": ""}
    assert [item["id"] for item in sent[3]] == ["1", "2"]
    assert sent[4] == {"id": "", "firstName": "Cy", "published": None}  # cased
    for request in httpx_mock.get_requests():
        assert request.headers["content-type"] == "application/json"


def test_a_resource_of_a_model_has_a_delete_without_a_schema() -> None:
    authors = resource(path="/authors/:id", schema=Author, endpoint=api)
    assert authors.get.schema is Author
    assert authors.get_list.schema == [Author]
    assert authors.delete.schema is None


@pytest.mark.parametrize("schema", [Point, [Person], {"results": [Point]}])
def test_without_pydantic_a_model_schema_is_refused_when_made(
    monkeypatch: pytest.MonkeyPatch, schema: Any
) -> None:
    _adapter.cache_clear()
    monkeypatch.setitem(sys.modules, "pydantic", None)
    try:
        with pytest.raises(MissingExtra, match=r'pip install "restwire\[models\]"'):
            RestEndpoint(path="/x", schema=schema)
    finally:
        _adapter.cache_clear()


def test_a_model_pydantic_cannot_take_is_refused_when_made() -> None:
    with pytest.raises(TypeError, match="schema Holder: Unable to generate"):
        RestEndpoint(path="/x", schema=Holder)
    with pytest.raises(
        TypeError, match="schema Dangling: name 'NotDefinedAnywhere' is not defined"
    ):
        RestEndpoint(path="/x", schema=Dangling)


class Opaque:
    """A class pydantic has no schema for."""


@dataclasses.dataclass
class Holder:
    thing: Opaque


@dataclasses.dataclass
class Dangling:
    thing: NotDefinedAnywhere  # type: ignore[name-defined]  # noqa: F821


async def test_pages_of_models_through_body_pagination(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        url=f"{API}/authors/",
        json={"results": [{"id": 1, "name": "Ann"}], "next": "/authors/?page=2"},
    )
    httpx_mock.add_response(
        url=f"{API}/authors/?page=2",
        json={"results": [{"id": 2, "name": "Bo"}], "next": None},
    )
    listing = api.extend(path="/authors/", schema=paged(Author)).use(BodyPagination())
    authors = await collect(controller.paginate(listing, items=True))
    assert authors == [Author(id=1, name="Ann"), Author(id=2, name="Bo")]
