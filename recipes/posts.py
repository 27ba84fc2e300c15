"""A Post resource: create, get, list, delete, and a 422 you can read.

``resource(path=..., schema=Post)`` gives the endpoints; ``get`` answers
from the store once a post is fetched, ``create`` adds to it, and a
422's error body says which field was wrong.

To use it against your API: change ``base_url`` and the fields of ``Post``;
a different path is the ``path=`` of :func:`posts`.
"""

from __future__ import annotations

from typing import Any

from restwire import (
    Controller,
    Entity,
    Resource,
    RestEndpoint,
    UnprocessableEntityError,
    resource,
)

from .tour import Tour

TITLE = "the Post resource: create, get from the store, list, delete"


class Post(Entity):
    """A post: ``id`` and ``title``."""

    id: str = ""
    title: str = ""


def posts(base_url: str) -> Resource[Post]:
    """The six endpoints of ``/posts/:id``."""
    return resource(
        path="/posts/:id", schema=Post, endpoint=RestEndpoint(url_prefix=base_url)
    )


def run(base_url: str, tour: Tour) -> Any:
    api = posts(base_url)
    with tour.client() as client:
        controller = Controller(client)
        created = controller.fetch(api.create, body={"title": "Normalized"})
        tour.say(f"created {created!r}")
        again = controller.get(api.get, {"id": created.id})  # fetched: no result yet
        assert (
            controller.get(api.get, {"id": created.id}) is again
        )  # the store: no request
        listed = controller.get(api.get_list)
        controller.fetch(api.delete, {"id": created.id})
        after = controller.get(api.get_list)  # from the store: the post is gone
        try:
            controller.fetch(api.create, body={"title": ""})
        except UnprocessableEntityError as error:  # a NetworkError, typed by status
            tour.say(f"a 422 says why: {error.json()['detail'][0]['msg']}")
        return {"listed": len(listed), "after delete": len(after)}
