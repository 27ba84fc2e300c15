"""The Twilio recipe's stack, under both drivers, against the demo API's
Twilio (recipes/demo_twilio.py): Basic credentials, PascalCase forms and
queries, paths ending in .json, next_page_uri pages, and the ``Sid``
param naming the ``sid`` field."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest

from recipes import twilio
from recipes.demo_api import DemoApi
from recipes.demo_twilio import TWILIO_ACCOUNT, TWILIO_FROM, TWILIO_TOKEN
from restwire import (
    BadRequestError,
    Form,
    NotFoundError,
    RestEndpoint,
    UnauthorizedError,
)
from restwire.middlewares import AccessToken
from tests.conftest import collect

pytestmark = pytest.mark.anyio

ACCOUNT_PATH = f"/2010-04-01/Accounts/{TWILIO_ACCOUNT}"
BASIC = (
    "Basic " + base64.b64encode(f"{TWILIO_ACCOUNT}:{TWILIO_TOKEN}".encode()).decode()
)


@pytest.fixture
def api() -> Iterator[DemoApi]:
    with DemoApi() as demo:  # its own: these tests send and delete messages
        yield demo


def sms(api: DemoApi) -> Any:
    return twilio.messages(twilio.twilio_api(api.origin, TWILIO_ACCOUNT, TWILIO_TOKEN))


async def test_pages_follow_next_page_uri_with_pascal_case_queries(
    controller: Any, api: DemoApi
) -> None:
    messages = sms(api)
    found = await collect(
        controller.paginate(
            messages.get_list, {"page_size": 2, "from": TWILIO_FROM}, items=True
        )
    )
    assert [m.body for m in found] == [f"Message {n}" for n in range(5, 0, -1)]
    assert all(isinstance(m, twilio.Message) for m in found)
    assert {m.from_ for m in found} == {TWILIO_FROM}
    assert found[0].date_created is not None
    assert found[0].date_created.year == 2023
    sent = [r for r in api.requests if r.path == f"{ACCOUNT_PATH}/Messages.json"]
    assert [r.query for r in sent] == [
        {"From": TWILIO_FROM, "PageSize": "2"},
        {
            "From": TWILIO_FROM,
            "PageSize": "2",
            "Page": "1",
            "PageToken": f"PA{found[1].sid}",
        },
        {
            "From": TWILIO_FROM,
            "PageSize": "2",
            "Page": "2",
            "PageToken": f"PA{found[3].sid}",
        },
    ]
    assert {r.headers["authorization"] for r in sent} == {BASIC}


async def test_a_message_is_sent_read_redacted_and_deleted(
    controller: Any, api: DemoApi
) -> None:
    messages = sms(api)
    redact = messages.update.extend(method="POST")
    sent = await controller.fetch(
        messages.create,
        body=Form({"to": "+15558675310", "from": TWILIO_FROM, "body": "Hi"}),
    )
    assert (sent.to, sent.from_, sent.body, sent.status) == (
        "+15558675310",
        TWILIO_FROM,
        "Hi",
        "queued",
    )
    one = {"Sid": sent.sid}
    assert (await controller.fetch(messages.get, one)).body == "Hi"
    redacted = await controller.fetch(redact, one, Form({"body": ""}))
    assert redacted.body == ""
    assert await controller.fetch(messages.delete, one) is None
    assert ("Message", sent.sid) not in controller.store.records
    with pytest.raises(NotFoundError) as gone:
        await controller.fetch(messages.get, one)
    assert gone.value.json()["code"] == 20404

    wire = [(r.method, r.path, r.body) for r in api.requests][-5:]
    item = f"{ACCOUNT_PATH}/Messages/{sent.sid}.json"
    assert wire == [
        (
            "POST",
            f"{ACCOUNT_PATH}/Messages.json",
            b"To=%2B15558675310&From=%2B15017122661&Body=Hi",
        ),
        ("GET", item, b""),
        ("POST", item, b"Body="),
        ("DELETE", item, b""),
        ("GET", item, b""),
    ]
    assert all(r.headers["authorization"] == BASIC for r in list(api.requests)[-5:])


async def test_the_demo_refuses_what_twilio_refuses(
    controller: Any, api: DemoApi
) -> None:
    """The checks the recipe passes can fail: snake_case forms, the wrong
    token, no credentials."""
    base = RestEndpoint(url_prefix=f"{api.origin}{ACCOUNT_PATH}")
    snake = base.extend(path="/Messages.json", method="POST").use(
        AccessToken.basic(TWILIO_ACCOUNT, TWILIO_TOKEN)
    )
    with pytest.raises(BadRequestError) as no_to:
        await controller.fetch(snake, body=Form({"to": "+1555", "body": "x"}))
    assert no_to.value.json()["code"] == 21604
    wrong = twilio.messages(twilio.twilio_api(api.origin, TWILIO_ACCOUNT, "nope"))
    with pytest.raises(UnauthorizedError) as refused:
        await controller.fetch(wrong.get_list)
    assert refused.value.json()["code"] == 20003
    assert "nope" not in str(refused.value)
    with pytest.raises(UnauthorizedError):
        await controller.fetch(base.extend(path="/Messages.json"))


async def test_an_api_key_is_the_user_and_the_account_names_the_path(
    controller: Any, api: DemoApi
) -> None:
    """With an API key, the key's SID is the Basic user and the account SID
    stays in the path (the demo knows no key: its 401 shows what went)."""
    keyed = twilio.messages(
        twilio.twilio_api(api.origin, "SK-key", "secret", account=TWILIO_ACCOUNT)
    )
    with pytest.raises(UnauthorizedError):
        await controller.fetch(keyed.get_list)
    (last,) = [r for r in api.requests if r.path.endswith("/Messages.json")]
    assert last.path == f"{ACCOUNT_PATH}/Messages.json"
    pair = base64.b64decode(last.headers["authorization"].split()[1]).decode()
    assert pair == "SK-key:secret"
