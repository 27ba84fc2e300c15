"""GitHub: its media type and API version, Link pages, ETags, its rate limit.

Pagination, how long fetched data stays valid (``data_expiry_length``)
and an access token, on GitHub's REST API. Each choice, and why:

- ``headers={"Accept": "application/vnd.github+json", "X-GitHub-Api-Version":
  "2022-11-28"}`` on the base: GitHub's documented media type, and the API
  version pinned, so a new version cannot change what your code reads.
- ``AccessToken.bearer(token)``: a fine-grained token (or an app's) as
  ``Authorization: Bearer``; kept to GitHub's origin, never shown.
- ``LinkPagination()`` and ``controller.paginate``: GitHub says where the
  next page is in a ``Link`` header (``rel="next"``, ``rel="last"``);
  ``per_page`` rides along in every next URL.
- ``HttpCache`` (``pip install "restwire[cache]"``): GitHub sends an
  ``ETag`` on every answer and ``Cache-Control: private, max-age=60``; the
  cache asks again with ``If-None-Match`` and a 304 costs no body, and,
  on GitHub, nothing of your rate limit. Without hishel the recipe runs
  uncached and says so.
- ``controller.fetch_with_response``: the value and the response it came
  from, for ``x-ratelimit-remaining`` and ``x-ratelimit-reset`` (an epoch
  time), which the value does not carry. Slow down before it reaches 0.
- ``extend(headers={"Accept": "application/vnd.github.html+json"})``: one
  endpoint asks for the issue's body rendered as HTML. ``extend`` merges
  headers name by name, so it keeps the base's API version and token and
  replaces the ``Accept`` alone.

To use it against GitHub: ``github_api(GITHUB_API, os.environ["GITHUB_TOKEN"])``,
your owner and repository, and your fields on ``Issue``; keep the cache
file where your processes share it.
"""

from __future__ import annotations

import datetime
import importlib.util
import tempfile
from pathlib import Path
from typing import Any

from restwire import Controller, Entity, HttpCache, Page, RestEndpoint, paged
from restwire.middlewares import AccessToken, LinkPagination

from .http_cache import how_answered
from .tour import Tour

TITLE = "GitHub: media type, API version, Link pages, ETags, rate-limit headers"

#: The token the demo accepts: yours is ``os.environ["GITHUB_TOKEN"]``.
GITHUB_TOKEN = "ghp_demo"

GITHUB_API = "https://api.github.com"


class Issue(Entity):
    number: int = 0
    title: str = ""
    state: str = ""
    body: str | None = None
    body_html: str | None = None

    def pk(self) -> str:
        return str(self.number)


def github_api(base_url: str, token: str) -> RestEndpoint[Any]:
    """The base every GitHub endpoint extends."""
    return RestEndpoint(
        url_prefix=base_url,
        headers={
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
        },
    ).use(AccessToken.bearer(token))


def list_issues(api: RestEndpoint[Any]) -> RestEndpoint[Page[Issue]]:
    return api.extend(path="/repos/:owner/:repo/issues", schema=paged(Issue)).use(
        LinkPagination()
    )


def get_issue_html(api: RestEndpoint[Any]) -> RestEndpoint[Issue]:
    return api.extend(
        path="/repos/:owner/:repo/issues/:number",
        schema=Issue,
        headers={"Accept": "application/vnd.github.html+json"},
    )


def rate_limit(response: Any) -> tuple[int, datetime.datetime]:
    """What is left of the rate limit, and when it starts again."""
    reset = int(response.headers["x-ratelimit-reset"])
    return (
        int(response.headers["x-ratelimit-remaining"]),
        datetime.datetime.fromtimestamp(reset, datetime.UTC),
    )


def run(base_url: str, tour: Tour) -> Any:
    api = github_api(base_url, GITHUB_TOKEN)
    repo = {"owner": "octo", "repo": "hello"}
    with tempfile.TemporaryDirectory() as folder:
        cache = None
        if importlib.util.find_spec("hishel") is not None:
            cache = HttpCache.sqlite(Path(folder) / "github-cache.db")
        else:
            tour.say('no hishel: uncached (pip install "restwire[cache]" for 304s)')
        with tour.client() as client:
            controller = Controller(client, cache=cache)
            pages = controller.paginate(list_issues(api), {**repo, "per_page": 2})
            numbers = [issue.number for page in pages for issue in page["results"]]
            tour.say(f"issues, two a page by Link: {numbers}")

            issue = get_issue_html(api)
            params = {**repo, "number": 1}
            first, response = controller.fetch_with_response(issue, params)
            left, reset = rate_limit(response)
            tour.say(f"issue 1 as HTML: {first.body_html}; {left} calls left")
            tour.say(f"the rate limit starts again at {reset:%Y-%m-%d %H:%M} UTC")
            again = controller.fetch_response(issue, params)
            answered = how_answered(again) if cache else "no cache"
            tour.say(f"again: {answered}")
            left_after, _ = rate_limit(again)
            tour.say(f"calls left after it: {left_after}")
    return {
        "issues": numbers,
        "html": first.body_html,
        "answered": answered,
        "rate limit spent by the revalidation": left - left_after,
    }
