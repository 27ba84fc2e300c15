"""Per-request tokens in ``contextvars``: ContextToken and hookify_resource.

In Python the context is a ``contextvars.ContextVar``: each task or thread
sends its own token. Prefer ``AccessToken`` when the token is the same for
every request; a context suits a server that calls an API for each of its
own users. To use it: set the variable where your request handling starts.

One controller is shared by both users here, at the same moment, on the
same URLs: restwire shares a response (in flight or from its store) only
between calls that send the same credentials, so the forged token gets its
own 401, never ann's data.
"""

from __future__ import annotations

import contextvars
from typing import Any

import anyio

from restwire import AsyncController, NetworkError, RestEndpoint, hookify_resource
from restwire.middlewares import ContextToken

from .posts import posts
from .tour import Tour

TITLE = "each task sends its own token: ContextToken and hookify_resource"

current_token: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "current_token", default=None
)


def api(base_url: str) -> RestEndpoint:
    """Every request sends the token of the context it runs in."""
    return RestEndpoint(url_prefix=base_url).use(ContextToken(current_token))


def use_init() -> dict[str, Any]:
    """``use_init``: the request options read from the context."""
    return {"headers": {"Access-Token": current_token.get() or ""}}


def run(base_url: str, tour: Tour) -> Any:
    get_mine = api(base_url).extend(path="/my/:id")
    hooked_posts = hookify_resource(posts(base_url), use_init)
    results: dict[str, Any] = {}

    async def main() -> None:
        async with tour.async_client() as client:
            controller = AsyncController(client)
            login = RestEndpoint(url_prefix=base_url, path="/login", method="POST")
            good = (await controller.fetch(login, body={"username": "demo"}))[
                "accessToken"
            ]
            client.cookies.clear()  # only the tokens below may sign a request in

            async def as_user(name: str, token: str) -> None:
                current_token.set(token)  # this task's context only
                try:
                    results[name] = await controller.fetch(get_mine, {"id": name})
                except NetworkError as error:
                    results[name] = f"{error.status}: {error.json()['detail']}"
                post = await controller.fetch(hooked_posts.use_get(), {"id": "1"})
                results[f"{name} via hook"] = post.title

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(as_user, "ann", good)
                tasks.start_soon(as_user, "bob", "not-a-valid-token")

    anyio.run(main)
    return results
