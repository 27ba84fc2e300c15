"""Params in the wire's case name the record's fields through the
endpoint's key casing: Twilio's ``:Sid`` is the ``sid`` field.

A delete that gets its 204 removes the record its params name, an update
whose answer leaves its key out keys it by its URL's params, and
``FillPrimaryKey("sid")`` reads ``Sid``: under ``PascalCaseKeys`` and
``SnakeCaseKeys``, and through ``RenameKeys``, under both drivers.
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import Entity, EntityError, RestEndpoint, resource
from restwire.middlewares import (
    CamelCaseKeys,
    FillPrimaryKey,
    PascalCaseKeys,
    RenameKeys,
    SnakeCaseKeys,
)

pytestmark = pytest.mark.anyio

API = "https://api.twilio.example"
ITEM = "/2010-04-01/Accounts/:AccountSid/Messages{/:Sid}.json"


class Message(Entity):
    sid: str = ""
    account_sid: str = ""
    body: str = ""
    status: str = ""

    def pk(self) -> str:
        return self.sid


def messages(*middleware: Any) -> Any:
    return resource(
        path=ITEM,
        schema=Message,
        endpoint=RestEndpoint(url_prefix=API, middleware=list(middleware)),
    )


MESSAGE = {"sid": "SM1", "account_sid": "AC1", "body": "Hi", "status": "queued"}
ONE = {"AccountSid": "AC1", "Sid": "SM1"}


@pytest.mark.parametrize("casing", [PascalCaseKeys, SnakeCaseKeys])
async def test_a_delete_by_wire_case_params_removes_the_record(
    controller: Any, httpx_mock: HTTPXMock, casing: Any
) -> None:
    httpx_mock.add_response(json=MESSAGE)
    httpx_mock.add_response(status_code=204)
    sms = messages(casing())
    stored = await controller.fetch(sms.get, ONE)
    assert stored.sid == "SM1"
    assert await controller.fetch(sms.delete, ONE) is None  # the 204, no error
    assert ("Message", "SM1") not in controller.store.records


async def test_without_a_casing_the_wire_name_names_no_field(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """The match is the casing's, not a guess: camelCase leaves ``Sid``."""
    httpx_mock.add_response(status_code=204)
    with pytest.raises(EntityError, match="has no primary key"):
        await controller.fetch(messages(CamelCaseKeys()).delete, ONE)


async def test_an_update_whose_answer_leaves_the_key_out_is_keyed_by_its_url(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=MESSAGE)
    httpx_mock.add_response(json={"body": ""})  # only what changed
    sms = messages(PascalCaseKeys())
    await controller.fetch(sms.get, ONE)
    redacted = await controller.fetch(sms.partial_update, ONE, {"body": ""})
    assert redacted == Message(sid="SM1", account_sid="AC1", body="", status="queued")
    assert controller.store.records[("Message", "SM1")].body == ""
    sent = httpx_mock.get_requests()[-1]
    assert sent.url.path == "/2010-04-01/Accounts/AC1/Messages/SM1.json"
    assert sent.content == b'{"Body":""}'


async def test_an_update_answer_that_names_its_record_is_kept_as_it_is(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """The URL's params never overwrite what the server answered."""
    httpx_mock.add_response(json={**MESSAGE, "account_sid": "AC-server"})
    updated = await controller.fetch(
        messages(PascalCaseKeys()).update, ONE, {"body": "x"}
    )
    assert updated.account_sid == "AC-server"


async def test_an_update_without_the_item_in_its_params_stays_an_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"body": ""})
    update = RestEndpoint(
        url_prefix=API, path="/messages/latest", method="PATCH", schema=Message
    ).use(PascalCaseKeys())
    with pytest.raises(EntityError, match="has no primary key"):
        await controller.fetch(update, {"Sid": "SM1"}, {"body": ""})  # a query param


async def test_fill_primary_key_reads_the_wire_case_param(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"body": "Hi", "status": "sent"})
    get = RestEndpoint(url_prefix=API, path="/Messages/:Sid.json", schema=Message).use(
        FillPrimaryKey("sid"), PascalCaseKeys()
    )
    message = await controller.fetch(get, {"Sid": "SM9"})
    assert message.sid == "SM9"


async def test_fill_primary_key_with_a_param_named_reads_that_one_only(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"body": "Hi", "sid": None})
    get = RestEndpoint(url_prefix=API, path="/Messages/:Sid.json").use(
        FillPrimaryKey("sid", param="MessageSid"), PascalCaseKeys()
    )
    assert (await controller.fetch(get, {"Sid": "SM9"}))["sid"] is None


async def test_a_renamed_key_names_its_field_too(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"MessageSid": "SM1", "Body": "Hi"})
    httpx_mock.add_response(status_code=204)
    sms = resource(
        path="/Messages/:MessageSid",
        schema=Message,
        endpoint=RestEndpoint(url_prefix=API).use(
            RenameKeys({"sid": "message_sid"}), SnakeCaseKeys()
        ),
    )
    await controller.fetch(sms.get, {"MessageSid": "SM1"})
    await controller.fetch(sms.delete, {"MessageSid": "SM1"})
    assert ("Message", "SM1") not in controller.store.records


def test_the_stack_names_a_field_innermost_first() -> None:
    endpoint = RestEndpoint(url_prefix=API).use(
        RenameKeys({"sid": "message_sid"}), SnakeCaseKeys()
    )
    # a response key passes SnakeCaseKeys (inner) then RenameKeys (outer)
    assert endpoint.param_fields({"MessageSid": 1, "To": 2}) == {
        "sid": 1,
        "to": 2,
        "MessageSid": 1,
        "To": 2,
    }
    assert endpoint.middleware.field_name is not None
    plain = RestEndpoint(url_prefix=API)
    params = {"Sid": 1}
    assert plain.param_fields(params) is params  # nothing renames: as they are
