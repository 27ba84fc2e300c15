"""The Stripe, GitHub and FastAPI recipes' stacks, under both drivers,
against the demo API's providers (recipes/demo_providers.py): what goes
over the wire is what each provider expects."""

from __future__ import annotations

import importlib.util
import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest

from recipes import (
    anthropic_messages,
    fastapi_oauth,
    github,
    openai_chat,
    slack,
    stripe,
)
from recipes.demo_api import DemoApi
from recipes.demo_llm import ANTHROPIC_KEY, OPENAI_KEY
from recipes.demo_providers import FASTAPI_USER, GITHUB_TOKEN, SLACK_TOKEN, STRIPE_KEY
from restwire import (
    AsyncController,
    BadRequestError,
    Controller,
    Form,
    HttpCache,
    UnauthorizedError,
    UnprocessableEntityError,
    resource,
)
from restwire.middlewares import BodyPagination, BodyStatusError
from tests.conftest import collect

pytestmark = pytest.mark.anyio

REPO = {"owner": "octo", "repo": "hello"}
UUID4 = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
)


@pytest.fixture
def api() -> Iterator[DemoApi]:
    with DemoApi() as demo:  # its own: these tests create customers and items
        yield demo


# -- Stripe ----------------------------------------------------------------------


async def test_stripe_lists_in_brackets_with_its_key_and_version(
    controller: Any, api: DemoApi
) -> None:
    customers = stripe.customers(stripe.stripe_api(api.origin, STRIPE_KEY))
    query = {"limit": 2, "created": {"gte": 1700003000}, "expand": ["default_source"]}
    found = await collect(controller.paginate(customers.get_list, query, items=True))
    assert [c.id for c in found] == ["cus_D003", "cus_D004", "cus_D005"]
    assert all(
        c.default_source == {"id": "card_demo", "object": "card", "last4": "4242"}
        for c in found
    )
    sent = [r for r in api.requests if r.path == "/v1/customers"]
    assert len(sent) == 2
    assert sent[1].query == {
        "created[gte]": "1700003000",
        "expand[]": "default_source",
        "limit": "2",
        "starting_after": "cus_D004",
    }
    for request in sent:
        assert request.headers["authorization"] == f"Bearer {STRIPE_KEY}"
        assert request.headers["stripe-version"] == "2024-06-20"


async def test_stripe_gives_a_source_as_its_id_unless_expanded(
    controller: Any, api: DemoApi
) -> None:
    customers = stripe.customers(stripe.stripe_api(api.origin, STRIPE_KEY))
    plain = await controller.fetch(customers.get, {"id": "cus_D001"})
    assert plain.default_source == "card_demo"  # Stripe's anyOf: the ID, or
    assert stripe.last4(plain) is None
    controller.reset()
    query = {"id": "cus_D001", "expand": ["default_source"]}
    expanded = await controller.fetch(customers.get, query)  # ...the card
    assert expanded.default_source == {
        "id": "card_demo",
        "object": "card",
        "last4": "4242",
    }
    assert stripe.last4(expanded) == "4242"


async def test_stripe_creates_from_a_form_under_a_fresh_idempotency_key(
    controller: Any, api: DemoApi
) -> None:
    customers = stripe.customers(stripe.stripe_api(api.origin, STRIPE_KEY))
    form = Form({"name": "Ada", "metadata": {"plan": "pro", "seats": 3}})
    ada = await controller.fetch(customers.create, body=form)
    assert (ada.name, ada.metadata) == ("Ada", {"plan": "pro", "seats": "3"})
    posted = api.requests[-1]
    assert parse_qsl(posted.body.decode()) == [
        ("name", "Ada"),
        ("metadata[plan]", "pro"),
        ("metadata[seats]", "3"),
    ]
    assert UUID4.fullmatch(posted.headers["idempotency-key"])
    await controller.fetch(customers.create, body=Form({"name": "Bo"}))
    assert (
        api.requests[-1].headers["idempotency-key"] != posted.headers["idempotency-key"]
    )


async def test_a_stripe_post_whose_answer_is_lost_is_retried_and_done_once(
    controller: Any, api: DemoApi
) -> None:
    customers = stripe.customers(stripe.stripe_api(api.origin, STRIPE_KEY))
    before = len(api.providers.stripe)
    api.providers.lost_answers = 1
    ada = await controller.fetch(customers.create, body=Form({"name": "Ada"}))
    posts = [r for r in api.requests if r.method == "POST"]
    assert len(posts) == 2  # the 503, then the retry
    assert posts[0].headers["idempotency-key"] == posts[1].headers["idempotency-key"]
    assert len(api.providers.stripe) == before + 1  # created once
    assert api.providers.stripe[ada.id]["name"] == "Ada"


async def test_stripe_errors_are_typed_and_carry_its_error_object(
    controller: Any, api: DemoApi
) -> None:
    wrong = stripe.customers(stripe.stripe_api(api.origin, "sk_test_wrong"))
    with pytest.raises(UnauthorizedError) as refused:
        await controller.fetch(wrong.get_list)
    assert refused.value.json()["error"]["type"] == "invalid_request_error"
    assert "sk_test_wrong" not in str(refused.value)
    customers = stripe.customers(stripe.stripe_api(api.origin, STRIPE_KEY))
    with pytest.raises(BadRequestError) as unknown:
        await controller.fetch(customers.get_list, {"colour": "red"})
    assert unknown.value.json()["error"]["param"] == "colour"
    old = customers.get_list.extend(headers={"Stripe-Version": "2011-01-01"})
    with pytest.raises(BadRequestError) as version:
        await controller.fetch(old)
    assert version.value.json()["error"]["code"] == "api_version_invalid"


# -- GitHub ------------------------------------------------------------------------


async def test_github_pages_by_link_with_its_media_type_and_version(
    controller: Any, api: DemoApi
) -> None:
    base = github.github_api(api.origin, GITHUB_TOKEN)
    issues = await collect(
        controller.paginate(
            github.list_issues(base), {**REPO, "per_page": 2}, items=True
        )
    )
    assert [issue.number for issue in issues] == [1, 2, 3, 4, 5]
    sent = [r for r in api.requests if r.path == "/repos/octo/hello/issues"]
    assert [r.query.get("page") for r in sent] == [None, "2", "3"]
    for request in sent:
        assert request.headers["accept"] == "application/vnd.github+json"
        assert request.headers["x-github-api-version"] == "2022-11-28"
        assert request.headers["authorization"] == f"Bearer {GITHUB_TOKEN}"


async def test_an_extended_accept_keeps_the_bases_version_and_token(
    controller: Any, api: DemoApi
) -> None:
    base = github.github_api(api.origin, GITHUB_TOKEN)
    issue, response = await controller.fetch_with_response(
        github.get_issue_html(base), {**REPO, "number": 2}
    )
    assert issue.body_html == "<p><em>2</em></p>"
    sent = api.requests[-1].headers
    assert sent["accept"] == "application/vnd.github.html+json"
    assert sent["x-github-api-version"] == "2022-11-28"
    assert sent["authorization"] == f"Bearer {GITHUB_TOKEN}"
    left, reset = github.rate_limit(response)
    assert left == 5000 - api.providers.rate_used
    assert reset.year == 2030


async def test_github_refuses_a_version_it_does_not_know(
    controller: Any, api: DemoApi
) -> None:
    base = github.github_api(api.origin, GITHUB_TOKEN).extend(
        headers={"X-GitHub-Api-Version": "1999-01-01"}
    )
    with pytest.raises(BadRequestError) as refused:
        await controller.fetch(github.list_issues(base), REPO)
    assert "not supported" in refused.value.json()["message"]


@pytest.mark.skipif(
    importlib.util.find_spec("hishel") is None, reason="needs restwire[cache]"
)
@pytest.mark.parametrize("driver", ["sync", "async"])
async def test_github_revalidates_with_its_etag_and_spends_no_rate_limit(
    api: DemoApi, driver: str
) -> None:
    base = github.github_api(api.origin, GITHUB_TOKEN)
    issue, params = github.get_issue_html(base), {**REPO, "number": 1}
    with tempfile.TemporaryDirectory() as folder:
        cache = HttpCache.sqlite(Path(folder) / "github.db")
        if driver == "sync":
            with (
                httpx.Client() as client,
                Controller(client, cache=cache) as controller,
            ):
                first = controller.fetch_response(issue, params)
                again = controller.fetch_response(issue, params)
        else:
            async with (
                httpx.AsyncClient() as aclient,
                AsyncController(aclient, cache=cache) as actrl,
            ):
                first = await actrl.fetch_response(issue, params)
                again = await actrl.fetch_response(issue, params)
    assert api.requests[-1].headers["if-none-match"] == first.headers["etag"]
    assert again.extensions["caching"]["revalidated"]
    assert github.rate_limit(again)[0] == github.rate_limit(first)[0]


# -- FastAPI -----------------------------------------------------------------------


def fastapi_items(api: DemoApi) -> Any:
    return fastapi_oauth.items(
        fastapi_oauth.fastapi_app(f"{api.origin}/fastapi", *FASTAPI_USER)
    )


async def test_fastapi_signs_in_once_and_pages_without_a_trailing_slash(
    controller: Any, api: DemoApi
) -> None:
    items = fastapi_items(api)
    found = await collect(controller.paginate(items.get_list, {"size": 2}, items=True))
    assert [item.id for item in found] == [1, 2, 3, 4, 5]
    assert found[0].address_line_1 == "Shelf 1"  # addressLine1, by pydantic's rule
    paths = [(r.method, r.path, r.query.get("page")) for r in api.requests]
    assert paths == [
        ("POST", "/fastapi/token", None),
        ("GET", "/fastapi/items", None),
        ("GET", "/fastapi/items", "2"),
        ("GET", "/fastapi/items", "3"),
    ]
    token_form = dict(parse_qsl(api.requests[0].body.decode()))
    assert token_form == {
        "grant_type": "password",
        "username": FASTAPI_USER[0],
        "password": FASTAPI_USER[1],
    }


async def test_the_seeds_trailing_slash_costs_fastapi_a_redirect(
    controller: Any, api: DemoApi
) -> None:
    slashed = resource(
        path="/items/:id",
        schema=fastapi_oauth.Item,
        endpoint=fastapi_oauth.fastapi_app(f"{api.origin}/fastapi", *FASTAPI_USER),
        pagination=BodyPagination.pages(results="items", pages="pages"),
    )
    await controller.fetch(slashed.get_list)
    listed = [r.path for r in api.requests if r.method == "GET"]
    assert listed == ["/fastapi/items/", "/fastapi/items"]  # a 307 first


async def test_fastapi_bodies_go_in_camel_case_and_422s_are_read(
    controller: Any, api: DemoApi
) -> None:
    items = fastapi_items(api)
    body = {"name": "Lamp", "unit_price": 12.5, "address_line_1": "Aisle 4"}
    lamp = await controller.fetch(items.create, body=body)
    assert api.requests[-1].json() == {
        "name": "Lamp",
        "unitPrice": 12.5,
        "addressLine1": "Aisle 4",
    }
    assert (lamp.id, lamp.unit_price) == (6, 12.5)
    with pytest.raises(UnprocessableEntityError) as invalid:
        await controller.fetch(items.create, body={"unit_price": 1})
    assert invalid.value.problem is None
    data = invalid.value.data
    assert isinstance(data, fastapi_oauth.HTTPValidationError)
    assert [(issue.loc, issue.type) for issue in data.detail] == [
        (["body", "name"], "missing")
    ]


# -- Slack -----------------------------------------------------------------------


async def test_slack_ok_false_in_a_200_is_raised_with_its_code(
    controller: Any, api: DemoApi
) -> None:
    base = slack.slack_api(api.origin, SLACK_TOKEN)
    sent = await controller.fetch(
        slack.post_message(base), body={"channel": "general", "text": "hi"}
    )
    assert sent["ok"] is True
    with pytest.raises(BodyStatusError) as raised:
        await controller.fetch(slack.post_message(base), body={"channel": "general"})
    assert raised.value.code == "no_text"
    assert raised.value.data == slack.SlackError(ok=False, error="no_text")
    assert str(raised.value) == (
        f"POST {api.origin}/api/chat.postMessage: 200 OK: no_text "
        "(the body of this 2xx says the call failed)"
    )
    wrong = slack.slack_api(api.origin, "xoxb-not-the-token")
    with pytest.raises(BodyStatusError, match="invalid_auth") as raised:
        await controller.fetch(slack.list_channels(wrong))
    assert "xoxb-not-the-token" not in str(raised.value) + repr(raised.value)


async def test_slack_channels_page_by_next_cursor(
    controller: Any, api: DemoApi
) -> None:
    listing = slack.list_channels(slack.slack_api(api.origin, SLACK_TOKEN))
    pages = await collect(controller.paginate(listing, {"limit": 3}))
    assert [[c.id for c in page["results"]] for page in pages] == [
        ["C0001", "C0002", "C0003"],
        ["C0004", "C0005"],
    ]
    sent = [r for r in api.requests if r.path == "/api/conversations.list"]
    assert [r.query for r in sent] == [{"limit": "3"}, {"limit": "3", "cursor": "3"}]
    assert {r.headers["authorization"] for r in sent} == {f"Bearer {SLACK_TOKEN}"}


# -- OpenAI and Anthropic: POST streams ------------------------------------------


async def stream_of(controller: Any, endpoint: Any, body: Any) -> list[Any]:
    return await collect(controller.stream(endpoint, None, body))


async def test_openai_chat_streams_chunks_until_done(
    controller: Any, api: DemoApi
) -> None:
    chat = openai_chat.chat_endpoint(api.origin, OPENAI_KEY)
    body = {"model": "m", "messages": [{"role": "user", "content": "a b"}]}
    chunks = await stream_of(controller, chat, {**body, "stream": True})
    assert all(isinstance(chunk, openai_chat.ChatChunk) for chunk in chunks)
    text = "".join(chunk.choices[0].delta.content or "" for chunk in chunks)
    assert text == "You said: a b"
    assert chunks[-1].choices[0].finish_reason == "stop"  # [DONE] not yielded
    (sent,) = [r for r in api.requests if r.path == "/v1/chat/completions"]
    assert sent.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    assert sent.headers["accept"] == "text/event-stream"
    assert json.loads(sent.body) == {**body, "stream": True}
    wrong = openai_chat.chat_endpoint(api.origin, "sk-wrong")
    with pytest.raises(UnauthorizedError) as raised:
        await stream_of(controller, wrong, {**body, "stream": True})
    assert raised.value.json()["error"]["code"] == "invalid_api_key"
    assert "sk-wrong" not in str(raised.value)


async def test_anthropic_messages_are_typed_by_event_name(
    controller: Any, api: DemoApi
) -> None:
    messages = anthropic_messages.messages_endpoint(api.origin, ANTHROPIC_KEY)
    body = {
        "model": "claude",
        "max_tokens": 8,
        "messages": [{"role": "user", "content": "x"}],
        "stream": True,
    }
    events = await stream_of(controller, messages, body)
    assert [type(event).__name__ for event in events] == [
        "MessageStart",
        "ContentBlockDelta",
        "ContentBlockDelta",
        "ContentBlockDelta",
        "MessageStop",
    ]
    (sent,) = [r for r in api.requests if r.path == "/v1/messages"]
    assert sent.headers["x-api-key"] == ANTHROPIC_KEY
    assert sent.headers["anthropic-version"] == "2023-06-01"
