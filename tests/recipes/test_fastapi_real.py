"""The FastAPI recipe's stack against a real FastAPI app under uvicorn.

The app is written as FastAPI's tutorial teaches ("Simple OAuth2 with
Password and Bearer"): ``OAuth2PasswordBearer(tokenUrl=...)`` and
``OAuth2PasswordRequestForm``, pydantic models aliased with ``to_camel``,
a fastapi-pagination-shaped ``Page``, routes without a trailing slash, and
FastAPI's own 422s. The demo API imitates these conventions; this test
checks the imitation against the real thing. Skipped, saying so, when
fastapi, uvicorn or python-multipart is not installed.
"""

import secrets
import socket
import threading
import time
from collections.abc import Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi", reason="needs fastapi (pip install fastapi)")
uvicorn = pytest.importorskip("uvicorn", reason="needs uvicorn (pip install uvicorn)")
pytest.importorskip(
    "python_multipart",
    reason="needs python-multipart for OAuth2PasswordRequestForm",
)

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query  # noqa: E402
from fastapi.security import (  # noqa: E402
    OAuth2PasswordBearer,
    OAuth2PasswordRequestForm,
)
from pydantic import BaseModel, ConfigDict  # noqa: E402
from pydantic.alias_generators import to_camel  # noqa: E402

from recipes import fastapi_oauth  # noqa: E402
from recipes.demo_providers import FASTAPI_USER  # noqa: E402
from recipes.tour import Tour  # noqa: E402
from restwire import UnauthorizedError, UnprocessableEntityError  # noqa: E402
from tests.conftest import collect  # noqa: E402
from tests.waiting import HANG  # noqa: E402

pytestmark = pytest.mark.anyio


class CamelModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class ItemIn(CamelModel):
    name: str
    unit_price: float
    in_stock: bool = True
    address_line_1: str = ""


class ItemOut(ItemIn):
    id: int


class ItemPage(BaseModel):
    """fastapi-pagination's ``Page[ItemOut]``, its fields as it names them."""

    items: list[ItemOut]
    total: int
    page: int
    size: int
    pages: int


def make_app() -> FastAPI:
    tokens: set[str] = set()
    items = {
        n: ItemOut(
            id=n,
            name=f"Item {n}",
            unit_price=10.5 * n,
            in_stock=n % 2 == 1,
            address_line_1=f"Shelf {n}",
        )
        for n in range(1, 6)
    }
    router = APIRouter(prefix="/fastapi")
    oauth2_scheme = OAuth2PasswordBearer(tokenUrl="fastapi/token")

    @router.post("/token")
    def login(
        form_data: Annotated[OAuth2PasswordRequestForm, Depends()],
    ) -> dict[str, str]:
        if (form_data.username, form_data.password) != FASTAPI_USER:
            raise HTTPException(400, "Incorrect username or password")
        token = secrets.token_hex(16)
        tokens.add(token)
        return {"access_token": token, "token_type": "bearer"}

    def current_user(token: Annotated[str, Depends(oauth2_scheme)]) -> str:
        if token not in tokens:
            raise HTTPException(
                401, "Invalid token", headers={"WWW-Authenticate": "Bearer"}
            )
        return FASTAPI_USER[0]

    User = Annotated[str, Depends(current_user)]

    @router.get("/items")
    def list_items(
        user: User,
        page: Annotated[int, Query(ge=1)] = 1,
        size: Annotated[int, Query(ge=1, le=100)] = 50,
    ) -> ItemPage:
        rows = list(items.values())
        return ItemPage(
            items=rows[(page - 1) * size : page * size],
            total=len(rows),
            page=page,
            size=size,
            pages=-(-len(rows) // size),
        )

    @router.get("/items/{item_id}")
    def read_item(user: User, item_id: int) -> ItemOut:
        if item_id not in items:
            raise HTTPException(404, "Item not found")
        return items[item_id]

    @router.post("/items", status_code=201)
    def create_item(user: User, item: ItemIn) -> ItemOut:
        made = ItemOut(id=max(items) + 1, **item.model_dump())
        items[made.id] = made
        return made

    app = FastAPI()
    app.include_router(router)
    return app


@pytest.fixture
def origin() -> Iterator[str]:
    """A fresh app under uvicorn on 127.0.0.1, in a thread."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(make_app(), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]})
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(HANG)
        sock.close()


def test_the_recipe_runs_against_real_fastapi(origin: str) -> None:
    result = fastapi_oauth.run(origin, Tour())
    assert result == {
        "names": [f"Item {n}" for n in range(1, 6)],
        "address": "Shelf 3",
        "created": ("Lamp", 12.5, "Aisle 4"),
        "missing": [["body", "unitPrice"]],
    }


async def test_the_stack_under_both_drivers(controller: Any, origin: str) -> None:
    items = fastapi_oauth.items(
        fastapi_oauth.fastapi_app(f"{origin}/fastapi", *FASTAPI_USER)
    )
    found = await collect(controller.paginate(items.get_list, {"size": 3}, items=True))
    assert [(item.id, item.address_line_1) for item in found] == [
        (n, f"Shelf {n}") for n in range(1, 6)
    ]
    body = {"name": "Desk", "unit_price": 99.0, "address_line_1": "Back"}
    desk = await controller.fetch(items.create, body=body)
    assert (desk.id, desk.address_line_1) == (6, "Back")
    with pytest.raises(UnprocessableEntityError) as invalid:
        await controller.fetch(items.get_list, {"page": 0})
    data = invalid.value.data
    assert isinstance(data, fastapi_oauth.HTTPValidationError)
    assert [(issue.loc, issue.type) for issue in data.detail] == [
        (["query", "page"], "greater_than_equal")
    ]


async def test_a_wrong_password_is_refused_at_the_token_endpoint(
    controller: Any, origin: str
) -> None:
    from restwire.middlewares import OAuth2Error

    items = fastapi_oauth.items(
        fastapi_oauth.fastapi_app(f"{origin}/fastapi", FASTAPI_USER[0], "wrong")
    )
    with pytest.raises((OAuth2Error, UnauthorizedError)) as refused:
        await controller.fetch(items.get, {"id": 1})
    assert "wrong" not in str(refused.value)
