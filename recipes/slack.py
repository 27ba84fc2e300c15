"""Slack's Web API: a bot token, failures inside a 200, cursor pages.

An access token, pagination and errors, on an API that answers nearly
every failure with ``200 OK``. Each choice, and why:

- ``AccessToken.bearer(token)``: Slack takes a bot token (``xoxb-...``) as
  ``Authorization: Bearer``. It is a credential: kept to Slack's origin,
  never in a repr, a log line or an error. (Slack also reads a ``token``
  form field; a header keeps it out of bodies and logs.)
- ``BodyStatus()``: Slack says ``{"ok": false, "error":
  "channel_not_found"}`` with a 200. ``BodyStatus`` raises that as a
  ``BodyStatusError`` (a ``NetworkError``) naming the call and the error
  code, ``error.code`` the code and ``error.data`` the body, read by the
  base's ``error_schema`` (``SlackError``) into a typed value. An
  ``ok: true`` body is the value, as usual.
- ``BodyPagination(results="channels", next="response_metadata.next_cursor",
  param="cursor")``: Slack's lists put the next page's cursor in the body;
  ``""`` on the last page ends the listing. ``limit`` rides along on every
  page.
- The methods are paths (``/api/chat.postMessage``), ``POST`` with a JSON
  body (``application/json; charset=utf-8``, as Slack accepts it with a
  bearer token), ``GET`` with a query for reads.

To use it against Slack: ``slack_api(SLACK_API, os.environ["SLACK_BOT_TOKEN"])``,
and the channels and fields your app reads.
"""

from __future__ import annotations

from typing import Any

import pydantic

from restwire import Controller, Entity, Page, RestEndpoint, paged
from restwire.middlewares import (
    AccessToken,
    BodyPagination,
    BodyStatus,
    BodyStatusError,
)

from .tour import Tour

#: The demo API's key: yours comes from the environment (see above).
SLACK_TOKEN = "xoxb-demo"

TITLE = "Slack: a bot token, ok: false raised from a 200, next_cursor pages"

SLACK_API = "https://slack.com"


class SlackError(pydantic.BaseModel):
    """Slack's failure body: ``ok`` false, the ``error`` code, and for a
    missing scope which one was ``needed``."""

    ok: bool
    error: str
    needed: str | None = None


class Channel(Entity):
    id: str = ""
    name: str = ""


def slack_api(base_url: str, token: str) -> RestEndpoint[Any]:
    """The base every Slack method extends."""
    return RestEndpoint(url_prefix=base_url, error_schema=SlackError).use(
        AccessToken.bearer(token), BodyStatus()
    )


def post_message(api: RestEndpoint[Any]) -> RestEndpoint[Any]:
    return api.extend(path="/api/chat.postMessage", method="POST")


def list_channels(api: RestEndpoint[Any]) -> RestEndpoint[Page[Channel]]:
    return api.extend(path="/api/conversations.list", schema=paged(Channel)).use(
        BodyPagination(
            results="channels", next="response_metadata.next_cursor", param="cursor"
        )
    )


def run(base_url: str, tour: Tour) -> Any:
    api = slack_api(base_url, SLACK_TOKEN)
    with tour.client() as client, Controller(client) as controller:
        pages = controller.paginate(list_channels(api), {"limit": 2})
        names = [channel.name for page in pages for channel in page["results"]]
        tour.say(f"channels, two a page by next_cursor: {names}")

        sent = controller.fetch(
            post_message(api), body={"channel": "C0001", "text": "Deployed 1.4"}
        )
        tour.say(f"posted: ts {sent['ts']}")

        try:
            controller.fetch(post_message(api), body={"channel": "nope", "text": "x"})
            code, typed = None, False
        except BodyStatusError as error:
            code = error.code
            tour.say(f"a 200 saying ok: false, raised: {error}")
            tour.say(f"error.data: {error.data!r}")
            typed = isinstance(error.data, SlackError)

        try:
            controller.fetch(post_message(slack_api(base_url, "xoxb-wrong")), body={})
            wrong = None
        except BodyStatusError as error:
            wrong = error.code
            tour.say(f"a wrong token: {wrong}")
    return {
        "channels": names,
        "posted": sent["ok"],
        "error code": code,
        "typed": typed,
        "wrong token": wrong,
    }
