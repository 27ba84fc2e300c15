"""The tour's recipes: each a small, complete use of restwire.

Every recipe is a function of the running :class:`DemoApi` and a :class:`Wire`
(an httpx event hook that records each request as it leaves, credentials
redacted) returning the value to show.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import httpx

from middlewares import (
    AccessToken,
    CamelCaseKeys,
    CookieCredentials,
    FillPrimaryKey,
    LinkPagination,
)
from pipeline import (
    AsyncController,
    Controller,
    Entity,
    NetworkError,
    RestEndpoint,
    resource,
)

from .demo_api import DemoApi

__all__ = ["RECIPES", "Recipe", "Wire"]

_SHOWN = ("content-type", "access-token", "authorization", "cookie", "x-csrftoken")
_REDACTED = frozenset(("access-token", "authorization", "cookie", "x-csrftoken"))


class Wire:
    """Records every request a client sends, one line each, credentials redacted."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def record(self, request: httpx.Request) -> None:
        shown = [
            f"{name}: {'[redacted]' if name in _REDACTED else request.headers[name]}"
            for name in _SHOWN
            if name in request.headers
        ]
        where = f"{request.url.host}:{request.url.port}{request.url.raw_path.decode()}"
        self.lines.append(f"{request.method} {where}  " + "  ".join(shown))

    def client(self) -> httpx.Client:
        return httpx.Client(event_hooks={"request": [self.record]})

    def async_client(self) -> httpx.AsyncClient:
        async def record(request: httpx.Request) -> None:
            self.record(request)

        return httpx.AsyncClient(event_hooks={"request": [record]})


@dataclass(frozen=True)
class Recipe:
    name: str
    title: str
    seed_rule: str
    run: Callable[[DemoApi, Wire], Any]


def _endpoint(api: DemoApi, wire: Wire) -> Any:
    get_post = RestEndpoint(url_prefix=api.origin, path="/posts/:id")
    with wire.client() as client:
        return Controller(client).fetch(get_post, {"id": 1})


def _middleware(api: DemoApi, wire: Wire) -> Any:
    auth = AccessToken()  # one holder, shared by every endpoint that uses it
    base = RestEndpoint(url_prefix=api.origin).use(CookieCredentials("omit"), auth)
    login = base.extend(path="/login", method="POST")
    with wire.client() as client:
        controller = Controller(client)
        auth.token = controller.fetch(login, body={"username": "demo"})["accessToken"]
        return controller.fetch(base.extend(path="/my/:id"), {"id": "42"})


def _async(api: DemoApi, wire: Wire) -> Any:
    get_post = RestEndpoint(url_prefix=api.origin, path="/posts/:id")

    async def main() -> Any:
        async with wire.async_client() as client:
            controller = AsyncController(client)
            create = get_post.extend(path="/posts/", method="POST")
            created = await controller.fetch(create, body={"title": "Made async"})
            return await controller.fetch(get_post, {"id": created["id"]})

    return anyio.run(main)


def _redirect(api: DemoApi, wire: Wire) -> Any:
    away = RestEndpoint(url_prefix=api.origin, path="/away").use(AccessToken("tok"))
    with wire.client() as client:
        return Controller(client).fetch(away)


class Post(Entity):
    """The seed's Post: ``id`` and ``title``."""

    id: str = ""
    title: str = ""


def _store(api: DemoApi, wire: Wire) -> Any:
    posts = resource(
        path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=api.origin)
    )
    with wire.client() as client:
        controller = Controller(client)
        created = controller.fetch(posts.create, body={"title": "Normalized"})
        first = controller.get(posts.get, {"id": created.id})  # fetched
        again = controller.get(
            posts.get, {"id": created.id}
        )  # from the store: no request
        assert first is again
        listed = controller.get(posts.get_list)
        controller.fetch(posts.delete, {"id": created.id})
        after = controller.get(posts.get_list)  # from the store, the deleted post gone
        return {"created": created, "listed": len(listed), "after delete": len(after)}


class Stream(Entity):
    """The seed's Stream; ``username`` is not in the body, the path has it."""

    username: str = ""
    title: str = ""
    game: str = ""
    current_viewers: int = 0
    live: bool = False

    def pk(self) -> str:
        return self.username


def _casing(api: DemoApi, wire: Wire) -> Any:
    get_stream = RestEndpoint(url_prefix=api.origin, path="/streams/:username")
    with wire.client() as client:
        controller = Controller(client)
        return controller.fetch(get_stream.use(CamelCaseKeys()), {"username": "sky"})


def _stream(api: DemoApi, wire: Wire) -> Any:
    get_stream = RestEndpoint(
        url_prefix=api.origin, path="/streams/:username", schema=Stream
    ).use(FillPrimaryKey("username"))
    with wire.client() as client:
        return Controller(client).fetch(get_stream, {"username": "sky"})


class Article(Entity):
    id: str = ""
    title: str = ""


def _pagination(api: DemoApi, wire: Wire) -> Any:
    articles = RestEndpoint(
        url_prefix=api.origin, path="/articles/", schema={"results": [Article]}
    ).use(LinkPagination())
    with wire.client() as client:
        items = list(Controller(client).paginate(articles, items=True))
        return [article.id for article in items]


def _download(api: DemoApi, wire: Wire) -> Any:
    download = RestEndpoint(
        url_prefix=api.origin, path="/files/:id/download", content="blob"
    )
    seen: list[int] = []
    with wire.client() as client, tempfile.TemporaryDirectory() as folder:
        path = Controller(client).download(
            download,
            {"id": 7},
            to=folder,
            progress=lambda done, total: seen.append(done),
        )
        assert path.read_bytes() == DemoApi.file_body("7")
        return f"{path.name}: {path.stat().st_size} bytes, {len(seen)} progress reports"


def _errors(api: DemoApi, wire: Wire) -> Any:
    get_mine = RestEndpoint(url_prefix=api.origin, path="/my/:id")
    with wire.client() as client:
        try:
            Controller(client).fetch(get_mine, {"id": "42"})
        except NetworkError as error:
            return f"NetworkError {error.status}: {error.json()}"
    raise AssertionError("an unauthenticated call must fail with 401")


RECIPES: tuple[Recipe, ...] = (
    Recipe(
        "endpoint",
        "define an endpoint and fetch it",
        "section 4, 'Get a post': GET /posts/<id>, path /posts/:id",
        _endpoint,
    ),
    Recipe(
        "middleware",
        "log in, then AccessToken sends the token on every call",
        "section 5, access token: every request carries Access-Token",
        _middleware,
    ),
    Recipe(
        "async",
        "the same endpoints under AsyncController",
        "section 1, rule 6: calls go through a controller",
        _async,
    ),
    Recipe(
        "store",
        "entities live once in the store; get reads it, delete removes",
        "section 2.1: resource({path, schema}) and its Entity",
        _store,
    ),
    Recipe(
        "casing",
        "snake_case on the wire, camelCase in the client",
        "section 2.3, rules 1-3: key case conversion",
        _casing,
    ),
    Recipe(
        "stream",
        "the Stream entity, its username filled from the path",
        "section 2.3, rule 5: missing primary key",
        _stream,
    ),
    Recipe(
        "pagination",
        "follow Link: rel=next through every page",
        "section 2.3, rule 6: link-header pagination",
        _pagination,
    ),
    Recipe(
        "download",
        "stream a file to a folder, named by Content-Disposition",
        "section 4, file download rules",
        _download,
    ),
    Recipe(
        "redirect",
        "a redirect to another origin drops the token",
        "section 5: credentials stay with their origin",
        _redirect,
    ),
    Recipe(
        "errors",
        "a 401 is a NetworkError with its body",
        "section 7: authorization expired or invalid, 401",
        _errors,
    ),
)
