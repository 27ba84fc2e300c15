"""Link-header pagination: every article, page after page.

A response with a ``Link`` header, or a list, becomes ``{link, results}``;
here ``controller.paginate`` then follows ``rel="next"`` until there is
none.

To use it: add ``LinkPagination()`` and give the schema as
``{"results": [YourEntity]}``.
"""

from __future__ import annotations

from typing import Any

from restwire import Controller, Entity, RestEndpoint
from restwire.middlewares import LinkPagination

from .tour import Tour

TITLE = "follow Link: rel=next through every page"


class Article(Entity):
    id: str = ""
    title: str = ""


def list_articles(base_url: str) -> RestEndpoint:
    return RestEndpoint(
        url_prefix=base_url, path="/articles/", schema={"results": [Article]}
    ).use(LinkPagination())


def run(base_url: str, tour: Tour) -> Any:
    with tour.client() as client:
        controller = Controller(client)
        first = next(controller.paginate(list_articles(base_url)))
        tour.say(f"page 1 links: {sorted(first['links'])}")
        items = list(controller.paginate(list_articles(base_url), items=True))
        return [article.id for article in items]
