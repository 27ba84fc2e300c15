"""FastAPI: its tutorial's OAuth2 password flow, camelCase models, pages, 422s.

An access token, key casing and pagination, against an app written the
way FastAPI's documentation teaches. Each choice, and why:

- ``OAuth2Password(f"{app}/token", username, password)``: FastAPI's
  ``OAuth2PasswordBearer(tokenUrl="token")`` with ``OAuth2PasswordRequestForm``
  takes ``username`` and ``password`` as a form and answers
  ``{"access_token", "token_type": "bearer"}``. restwire asks for the token
  before the first call, sends ``Authorization: Bearer``, and asks again
  after a 401; the password goes to ``/token`` alone and is shown nowhere.
- ``SnakeCaseKeys(style="pydantic")``: models declared with
  ``alias_generator=to_camel`` travel in camelCase, by pydantic's own
  rule (``address_line_1`` is ``addressLine1``, which the default rule
  would give back as ``address_line1``). Your code reads and writes
  snake_case.
- ``resource(path="/items{/:id}", ...)``: FastAPI's routes usually end
  without a slash, and FastAPI answers ``/items/`` with a 307 to ``/items``
  (a round trip per call). ``{/:id}`` lists and creates at ``/items`` and
  reads ``/items/3``.
- ``pagination=BodyPagination.pages(results="items", page="page",
  pages="pages")``: fastapi-pagination's ``Page`` (``{"items", "total",
  "page", "size", "pages"}``); ``paginate`` asks for each page in turn,
  ``size`` riding along.
- ``error_schema=HTTPValidationError``: FastAPI answers a request it cannot
  validate with 422 and ``{"detail": [{"type", "loc", "msg", "input"}]}``;
  ``UnprocessableEntityError.data`` holds it, typed (``error.problem`` is
  ``None``: FastAPI does not send ``application/problem+json``).

To use it against your app: its URL for ``app_url``, a user's name and
password (or ``OAuth2Password(..., client_id=..., client_secret=...)`` if
your ``/token`` checks a client), and your model's fields on ``Item``.
"""

from __future__ import annotations

from typing import Any

import pydantic

from restwire import (
    Controller,
    Entity,
    Page,
    Resource,
    RestEndpoint,
    UnprocessableEntityError,
    resource,
)
from restwire.middlewares import BodyPagination, OAuth2Password, SnakeCaseKeys

from .tour import Tour

TITLE = "FastAPI: OAuth2 password flow, camelCase aliases, pages, 422 details"
#: What this recipe needs beyond restwire itself: module -> the extra that brings it.
NEEDS = {"pydantic": "models"}

#: The demo app's user (FastAPI's tutorial's): your user's name and password.
FASTAPI_USER = ("johndoe", "secret")


class ValidationIssue(pydantic.BaseModel):
    type: str
    loc: list[str | int]
    msg: str
    input: Any = None


class HTTPValidationError(pydantic.BaseModel):
    """FastAPI's 422 body, as its OpenAPI schema names it."""

    detail: list[ValidationIssue]


class Item(Entity):
    id: int = 0
    name: str = ""
    unit_price: float = 0.0
    in_stock: bool = False
    address_line_1: str = ""


def fastapi_app(app_url: str, username: str, password: str) -> RestEndpoint[Any]:
    """The base every endpoint of the app extends."""
    return RestEndpoint(url_prefix=app_url, error_schema=HTTPValidationError).use(
        SnakeCaseKeys(style="pydantic"),
        OAuth2Password(f"{app_url}/token", username, password),
    )


def items(app: RestEndpoint[Any]) -> Resource[Item, Page[Item]]:
    return resource(
        path="/items{/:id}",
        schema=Item,
        endpoint=app,
        pagination=BodyPagination.pages(results="items", page="page", pages="pages"),
    )


def run(base_url: str, tour: Tour) -> Any:
    store = items(fastapi_app(f"{base_url}/fastapi", *FASTAPI_USER))
    with tour.client() as client:
        controller = Controller(client)
        every = list(controller.paginate(store.get_list, {"size": 2}, items=True))
        tour.say(f"{len(every)} items, two a page: {[item.name for item in every]}")
        third = controller.fetch(store.get, {"id": 3})
        tour.say(f"item 3: {third}")
        body = {"name": "Lamp", "unit_price": 12.5, "address_line_1": "Aisle 4"}
        lamp = controller.fetch(store.create, body=body)
        tour.say(f"created (sent as unitPrice, addressLine1): {lamp}")
        try:
            controller.fetch(store.create, body={"name": "No price"})
            missing: list[Any] = []
        except UnprocessableEntityError as error:
            invalid: HTTPValidationError = error.data  # None if it was not one
            missing = [issue.loc for issue in invalid.detail]
            tour.say(f"422: {[(issue.loc, issue.msg) for issue in invalid.detail]}")
    return {
        "names": [item.name for item in every],
        "address": third.address_line_1,
        "created": (lamp.name, lamp.unit_price, lamp.address_line_1),
        "missing": missing,
    }
