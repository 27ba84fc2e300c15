"""The Slack recipe against Slack's own OpenAPI description of its Web
API (``slackapi/slack-api-specs``, Swagger 2.0), served by Stoplight
Prism, as ``test_prism.py`` does for Stripe and GitHub.

Slack's description is the last one Slack published (October 2020; the
repository is archived) and it does not describe the call the recipe
makes to post: it gives ``chat.postMessage`` as a form only, with the
token in a required ``token`` header, where Slack's own documentation
asks for JSON bodies with the token as ``Authorization: Bearer``
(which ``slackapi/slack-api-specs#58`` reports the description gets
wrong). Prism refuses the recipe's post on exactly those two counts, and
:func:`test_slack_refuses_the_recipes_json_post_on_two_counts` holds that
(should a description or the recipe change, it says so); the same message
as the form the description asks for is accepted and read as the recipe
reads it. ``conversations.list`` is checked as the recipe sends it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl

import pytest

from recipes import slack
from recipes.slack import SLACK_TOKEN
from restwire import Form, RestEndpoint, RestwireError
from tests.prism import Prism, mounted, require
from tests.recipes.test_prism import Wire, _AsyncRecording, _pages, _Recording
from tests.vectors.openapi import OPERATIONS, load
from tests.vectors.openapi.extract import cut

pytestmark = pytest.mark.anyio

prism = pytest.mark.prism

LIST = "/api/conversations.list"
POST = "/api/chat.postMessage"
MESSAGE = {"channel": "C0001", "text": "Deployed 1.4"}


@pytest.fixture(scope="module")
def served() -> Iterator[Prism]:
    require()
    with Prism(mounted(load("slack")), "slack") as server:
        yield server


@pytest.fixture
def wire(served: Prism) -> Wire:
    return Wire({served.origin: mounted(load("slack"))})


@pytest.fixture
def on_prism(controller_factory: Any, mode: str, wire: Wire) -> Any:
    if mode == "sync":
        return controller_factory(transport=_Recording(wire))
    return controller_factory(transport=_AsyncRecording(wire))


@prism
async def test_slack_lists_channels_by_next_cursor_as_described(
    on_prism: Any, wire: Wire, served: Prism
) -> None:
    api = slack.slack_api(served.origin, SLACK_TOKEN)
    with wire.checking():
        pages = [
            page
            async for page in _pages(
                on_prism.paginate(slack.list_channels(api), {"limit": 2})
            )
        ]
    # Prism answers every page with Slack's example, the same next_cursor
    # each time: the second page asks for it, and names it again, which
    # paginate's cycle guard stops at
    sent = wire.sent(LIST)
    assert len(sent) == len(pages) == 2
    first = wire.exchanges[0].json()
    assert [dict(parse_qsl(r.url.query.decode())) for r in sent] == [
        {"limit": "2"},
        {"limit": "2", "cursor": first["response_metadata"]["next_cursor"]},
    ]
    for request in sent:
        assert request.headers["authorization"] == f"Bearer {SLACK_TOKEN}"
    for page, response in zip(pages, wire.exchanges, strict=True):
        body = response.json()
        assert body["ok"] is True
        assert len(page["results"]) == len(body["channels"]) >= 1
        for channel, data in zip(page["results"], body["channels"], strict=True):
            assert isinstance(channel, slack.Channel)
            assert (channel.id, channel.name) == (data["id"], data["name"])
            assert isinstance(channel.id, str)
            assert isinstance(channel.name, str)


@prism
async def test_slack_refuses_the_recipes_json_post_on_two_counts(
    on_prism: Any, wire: Wire, served: Prism
) -> None:
    """The recipe's ``chat.postMessage`` (JSON, a bearer token) is not a
    request Slack's description allows: see the module's docstring."""
    api = slack.slack_api(served.origin, SLACK_TOKEN)
    with pytest.raises(RestwireError):
        await on_prism.fetch(slack.post_message(api), body=MESSAGE)
    (response,) = wire.exchanges
    assert json.loads(response.request.read()) == MESSAGE
    assert response.request.headers["content-type"].startswith("application/json")
    assert wire.refused() == [
        f"POST {POST}: request: Supported content types: "
        "application/x-www-form-urlencoded",
        f"POST {POST}: header: Request header must have required property 'token'",
    ]
    assert response.status_code == 415


@prism
async def test_slack_posts_the_form_its_description_asks_for(
    on_prism: Any, wire: Wire, served: Prism
) -> None:
    """The recipe's endpoint, sending the message as the description asks
    (a form, and the token in a ``token`` header too): accepted, and
    Slack's ``ok: true`` answer read as the recipe reads it."""
    api = slack.slack_api(served.origin, SLACK_TOKEN)
    # Slack's example of this answer breaks Slack's schema (an attachment
    # with a "text"), which Prism refuses to send: an answer made from
    # the schema instead
    as_described = slack.post_message(api).extend(
        headers={"token": SLACK_TOKEN, "Prefer": "dynamic=true"}
    )
    with wire.checking():
        sent = await on_prism.fetch(as_described, body=Form(MESSAGE))
    (response,) = wire.exchanges
    assert parse_qsl(response.request.read().decode()) == list(MESSAGE.items())
    assert response.request.headers["authorization"] == f"Bearer {SLACK_TOKEN}"
    body = response.json()
    assert sent == body
    assert sent["ok"] is True
    assert isinstance(sent["ts"], str)


@prism
async def test_prism_refuses_what_slacks_description_does_not_allow(
    on_prism: Any, wire: Wire, served: Prism
) -> None:
    """The checks above can fail: each of these breaks Slack's
    description, and the failure says how."""
    api = slack.slack_api(served.origin, SLACK_TOKEN)
    listing = slack.list_channels(api)
    keyless = RestEndpoint(url_prefix=served.origin, path=LIST)
    wrong = [
        (listing, {"limit": "two"}),
        (listing, {"colour": "red"}),
        (keyless, None),
        (listing.extend(path="/conversations.list"), None),  # without /api
    ]
    for endpoint, params in wrong:
        try:
            await on_prism.fetch(endpoint, params)
        except RestwireError:
            continue
    with pytest.raises(AssertionError) as refused:
        wire.assert_accepted()
    lines = str(refused.value).splitlines()[1:]
    assert lines == [
        f"GET {LIST}?limit=two: query.limit: Request query parameter limit "
        "must be integer",
        f"GET {LIST}?colour=red: query parameter 'colour' is not in the description",
        f"GET {LIST}: request: Invalid security scheme used",
        "GET /conversations.list: 404 Route not resolved, no path matched: The "
        "route /conversations.list hasn't been found in the specification file",
        "GET /conversations.list: no operation of the description has this path "
        "and method",
    ]


# -- the description, and the step Prism needs (no Prism) ---------------------------


def test_the_description_is_its_operations_and_what_they_reference() -> None:
    spec = load("slack")
    assert spec["swagger"] == "2.0"
    assert cut(spec, OPERATIONS["slack"]) == spec
    assert {path: tuple(item) for path, item in spec["paths"].items()} == (
        OPERATIONS["slack"]
    )
    assert spec["basePath"] == "/api"
    assert set(spec["securityDefinitions"]) == {"slackAuth"}


def test_what_prism_is_given_of_slack_is_slacks_text_under_api() -> None:
    spec = load("slack")
    derived = mounted(spec)
    assert "basePath" not in derived
    assert derived["paths"] == {
        POST: spec["paths"]["/chat.postMessage"],
        LIST: spec["paths"]["/conversations.list"],
    }
    assert {key: value for key, value in derived.items() if key != "paths"} == {
        key: value for key, value in spec.items() if key not in ("paths", "basePath")
    }
