"""The Twilio recipe against Twilio's own OpenAPI description (its
2010-04-01 API), served by Stoplight Prism, as ``test_prism.py`` does for
Stripe and GitHub: Prism checks each request the recipe's endpoints send
(PascalCase form fields and query parameters, Basic credentials, paths
ending in ``.json``), and restwire reads Prism's answers, made from
Twilio's schemas, into the recipe's ``Message``.

Prism answers from the schemas (``Prefer: dynamic=true``): Twilio's
description has no examples, and the answers Prism makes without them
break its own patterns. The response side gets the shapes Twilio sends
(``tests.prism_twilio.twilio_shapes``); the request side is Twilio's text.
"""

from __future__ import annotations

import base64
import datetime
import email.utils
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import parse_qsl

import pytest

from recipes import twilio
from recipes.demo_twilio import TWILIO_ACCOUNT, TWILIO_FROM, TWILIO_TOKEN
from restwire import Form, RestEndpoint
from restwire.middlewares import AccessToken
from tests.prism import Prism, require
from tests.prism_twilio import RFC_2822, twilio_shapes
from tests.recipes.test_prism import (
    Wire,
    _AsyncRecording,
    _pages,
    _Recording,
    _request_side,
)
from tests.vectors.openapi import OPERATIONS, load
from tests.vectors.openapi.extract import cut

pytestmark = pytest.mark.anyio

prism = pytest.mark.prism

BASIC = (
    "Basic " + base64.b64encode(f"{TWILIO_ACCOUNT}:{TWILIO_TOKEN}".encode()).decode()
)
MESSAGES = f"/2010-04-01/Accounts/{TWILIO_ACCOUNT}/Messages"
#: A message SID of the form Twilio's description asks for.
SID = "SM" + "0123456789abcdef" * 2


@pytest.fixture(scope="module")
def served() -> Iterator[Prism]:
    require()
    with Prism(twilio_shapes(load("twilio")), "twilio") as server:
        yield server


@pytest.fixture
def wire(served: Prism) -> Wire:
    return Wire({served.origin: load("twilio")})


@pytest.fixture
def on_prism(controller_factory: Any, mode: str, wire: Wire) -> Any:
    if mode == "sync":
        return controller_factory(transport=_Recording(wire))
    return controller_factory(transport=_AsyncRecording(wire))


def messages(served: Prism) -> Any:
    base = twilio.twilio_api(served.origin, TWILIO_ACCOUNT, TWILIO_TOKEN)
    return twilio.messages(base.extend(headers={"Prefer": "dynamic=true"}))


def assert_message(message: Any, data: Mapping[str, Any]) -> None:
    """``message`` holds what ``data`` (the body it was read from) says,
    each field of the type the recipe declares."""
    assert isinstance(message, twilio.Message)
    assert message.sid == data["sid"]
    for field in ("account_sid", "to", "body", "status", "num_segments", "price"):
        assert getattr(message, field) == data[field], field
        assert isinstance(getattr(message, field), str | None), field
    assert message.from_ == data["from"]
    created = data["date_created"]
    assert message.date_created == (
        None if created is None else email.utils.parsedate_to_datetime(created)
    )
    assert isinstance(message.date_created, datetime.datetime | None)


@prism
async def test_twilio_lists_in_pascal_case_and_pages_by_next_page_uri(
    on_prism: Any, wire: Wire, served: Prism
) -> None:
    listing = messages(served).get_list
    query = {"page_size": 2, "to": "+15558675310", "date_sent>": "2023-08-01"}
    pages = []
    with wire.checking():
        async for page in _pages(on_prism.paginate(listing, query)):
            pages.append(page)
            if len(pages) == 2:
                break
    sent = [r.request for r in wire.exchanges]
    assert len(sent) == 2
    first = wire.exchanges[0].json()
    assert sent[0].url.path == f"{MESSAGES}.json"
    assert dict(parse_qsl(sent[0].url.query.decode())) == {
        "PageSize": "2",
        "To": "+15558675310",
        "DateSent>": "2023-08-01",
    }
    # the second page is the first's next_page_uri, on Prism's origin
    assert sent[1].url.raw_path.decode() == first["next_page_uri"]
    for request in sent:
        assert request.headers["authorization"] == BASIC
    for page, response in zip(pages, wire.exchanges, strict=True):
        body = response.json()
        assert len(page["results"]) == len(body["messages"])
        for message, data in zip(page["results"], body["messages"], strict=True):
            assert_message(message, data)


@prism
async def test_twilio_sends_updates_and_deletes_a_message_as_described(
    on_prism: Any, wire: Wire, served: Prism
) -> None:
    sms = messages(served)
    redact = sms.update.extend(method="POST")
    with wire.checking():
        sent = await on_prism.fetch(
            sms.create,
            body=Form({"to": "+15558675310", "from": TWILIO_FROM, "body": "Hi"}),
        )
        one = await on_prism.fetch(sms.get, {"Sid": SID})
        redacted = await on_prism.fetch(redact, {"Sid": SID}, Form({"body": ""}))
        # the SID of the message Prism made up, to see the store let go of it
        await on_prism.fetch(sms.delete, {"Sid": one.sid})
    requests = [r.request for r in wire.exchanges]
    assert [(r.method, r.url.path) for r in requests] == [
        ("POST", f"{MESSAGES}.json"),
        ("GET", f"{MESSAGES}/{SID}.json"),
        ("POST", f"{MESSAGES}/{SID}.json"),
        ("DELETE", f"{MESSAGES}/{one.sid}.json"),
    ]
    assert parse_qsl(requests[0].read().decode()) == [
        ("To", "+15558675310"),
        ("From", TWILIO_FROM),
        ("Body", "Hi"),
    ]
    assert requests[0].headers["content-type"] == "application/x-www-form-urlencoded"
    assert requests[2].read() == b"Body="
    assert wire.exchanges[3].status_code == 204
    for message, response in zip(
        (sent, one, redacted), wire.exchanges[:3], strict=True
    ):
        assert_message(message, response.json())
    # the delete's 204 removed the record its Sid param names (as ``sid``)
    assert one.sid != SID
    assert ("Message", SID) not in on_prism.store.records  # (Prism's SIDs)
    assert ("Message", one.sid) not in on_prism.store.records


@prism
async def test_prism_refuses_what_twilios_description_does_not_allow(
    on_prism: Any, wire: Wire, served: Prism
) -> None:
    """The checks above can fail: without the casing, the key or the
    ``.json``, each request breaks Twilio's description."""
    sms = messages(served)
    base = RestEndpoint(
        url_prefix=f"{served.origin}/2010-04-01/Accounts/{TWILIO_ACCOUNT}",
        headers={"Prefer": "dynamic=true"},
    )
    snake = base.extend(path="/Messages.json", method="POST").use(
        AccessToken.basic(TWILIO_ACCOUNT, TWILIO_TOKEN)  # only the casing is wrong
    )
    wrong = [
        (sms.get_list, {"page_size": "two"}, None),
        (snake, None, Form({"To": "+15558675310", "body": "Hi"})),
        (base.extend(path="/Messages.json"), None, None),  # no credentials
        (sms.get.extend(path="/Messages/:Sid"), {"Sid": SID}, None),  # no .json
    ]
    for endpoint, params, body in wrong:
        try:
            await on_prism.fetch(endpoint, params, body=body)
        except Exception:  # each is refused: the wire says how
            continue
    with pytest.raises(AssertionError) as refused:
        wire.assert_accepted()
    lines = str(refused.value).splitlines()[1:]
    path = f"{MESSAGES}.json"
    assert lines == [
        f"GET {path}?PageSize=two: 422 Invalid request: Your request is not valid "
        "and no HTTP validation response was found in the spec, so Prism is "
        "generating this error for you.",
        f"POST {path}: form field 'body' is not in the description",
        f"GET {path}: 401 Invalid security scheme used: Your request does not "
        "fullfil the security requirements and no HTTP unauthorized response "
        "was found in the spec, so Prism is generating this error for you.",
        f"GET {MESSAGES}/{SID}: 404 Route not resolved, no path matched: The "
        f"route {MESSAGES}/{SID} hasn't been found in the specification file",
        f"GET {MESSAGES}/{SID}: no operation of the description has this path "
        "and method",
    ]
    # what Prism's 422 names (in its body: the description has no 422)
    assert wire.exchanges[0].json()["validation"] == [
        {
            "location": ["query", "pagesize"],
            "severity": "Error",
            "code": "type",
            "message": "Request query parameter pagesize must be integer",
        }
    ]


# -- the description, and the step Prism needs (no Prism) ---------------------------


def test_the_description_is_its_operations_and_what_they_reference() -> None:
    spec = load("twilio")
    assert cut(spec, OPERATIONS["twilio"]) == spec
    assert {
        path: tuple(m for m in item if m in ("get", "post", "delete"))
        for path, item in spec["paths"].items()
    } == OPERATIONS["twilio"]
    assert spec["components"]["securitySchemes"] == {
        "accountSid_authToken": {"scheme": "basic", "type": "http"}
    }


def test_what_prism_is_given_of_twilio_checks_requests_as_twilio_wrote() -> None:
    spec = load("twilio")
    derived = twilio_shapes(spec)
    assert _request_side(derived) == _request_side(spec)
    message = derived["components"]["schemas"]["api.v2010.account.message"]
    assert message["properties"]["date_created"]["pattern"] == RFC_2822
    listing = derived["paths"]["/2010-04-01/Accounts/{AccountSid}/Messages.json"]
    envelope = listing["get"]["responses"]["200"]["content"]["application/json"]
    assert envelope["schema"]["properties"]["next_page_uri"]["format"] == (
        "uri-reference"
    )
    assert spec == load("twilio")  # a copy was changed, not the original
