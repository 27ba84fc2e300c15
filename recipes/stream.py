"""A Stream: ``username`` is not in the body; the path has it.

Its primary key is ``username``: ``FillPrimaryKey("username")`` sets it
from the ``:username`` path parameter.

To use it against your API: change ``base_url`` and the path; the wire here
is snake_case, as the entity's fields, so no casing is needed.
"""

from __future__ import annotations

from typing import Any

from restwire import Controller, Entity, RestEndpoint
from restwire.middlewares import FillPrimaryKey

from .tour import Tour

TITLE = "the Stream entity, its username filled from the path"


class Stream(Entity):
    username: str = ""
    title: str = ""
    game: str = ""
    current_viewers: int = 0
    live: bool = False

    def pk(self) -> str:
        return self.username


def get_stream(base_url: str) -> RestEndpoint:
    return RestEndpoint(
        url_prefix=base_url, path="/streams/:username/", schema=Stream
    ).use(FillPrimaryKey("username"))


def run(base_url: str, tour: Tour) -> Any:
    with tour.client() as client:
        return Controller(client).fetch(get_stream(base_url), {"username": "sky"})
