"""Twilio: Basic auth, PascalCase forms, paths ending in .json, URI pages.

Authentication through the endpoint's stack, key casing and pagination,
on Twilio's 2010-04-01 REST API. Each choice, and why:

- ``AccessToken.basic(account_sid, auth_token)``: Twilio authenticates
  with HTTP Basic, the account SID as the user and its auth token as the
  password (or an API key's SID and secret). On the stack, not the
  client's ``auth=``: kept to Twilio's origin and the endpoints built on
  this base, never in a repr, a log line or an error.
- ``url_prefix=.../2010-04-01/Accounts/<AccountSid>``: every path of the
  account's resources starts there, so a call names only its own item.
- ``resource(path="/Messages{/:Sid}.json", ...)``: Twilio's paths end in
  ``.json``. The suffix stays on every member: the list and creates go to
  ``/Messages.json``, one message to ``/Messages/SM....json``.
- ``PascalCaseKeys(params=True)``: Twilio reads forms and queries in
  PascalCase (``To``, ``From``, ``Body``, ``PageSize``) and answers JSON
  in snake_case. You write ``Form({"to": ..., "from": ..., "body": ...})``
  and ``{"page_size": 2}``; the fields come back as ``sid``,
  ``account_sid``. The item's param is Twilio's ``Sid``, and it names the
  ``sid`` field through the same casing: a delete's 204 removes the
  stored message with no request.
- ``RenameKeys({"from_": "from"}, nested=True)``: ``from`` is a Python
  keyword, so the field is ``from_``; ``nested``, to reach the messages
  inside a page.
- ``BodyPagination(results="messages", next="next_page_uri")``: a page's
  items are under the resource's own name, and ``next_page_uri`` is the
  next page's path and query (``PageToken`` included), ``null`` on the
  last page; ``paginate`` follows it on Twilio's origin.
- Updates are POSTs: ``messages.update.extend(method="POST")``. A
  message's ``Body`` can only be updated to ``""`` (redaction).
- Errors: a 4xx is raised as its status error, and ``error.json()`` is
  Twilio's ``{"code", "message", "more_info", "status"}`` (``21604``: no
  ``To``; ``20003``: wrong credentials; ``20404``: no such resource).

To use it against Twilio: ``twilio_api(TWILIO_API, os.environ["TWILIO_ACCOUNT_SID"],
os.environ["TWILIO_AUTH_TOKEN"])`` (or an API key's SID and secret as the
user and password, with ``account=`` the account SID), your own numbers,
and the fields you read on ``Message``.
"""

from __future__ import annotations

import datetime
import email.utils
from typing import Any, ClassVar

from restwire import (
    Controller,
    Entity,
    Form,
    NotFoundError,
    Page,
    Resource,
    RestEndpoint,
    UnauthorizedError,
    resource,
)
from restwire.middlewares import (
    AccessToken,
    BodyPagination,
    PascalCaseKeys,
    RenameKeys,
)

from .tour import Tour

TITLE = "Twilio: Basic auth, PascalCase forms, .json paths, next_page_uri pages"

TWILIO_API = "https://api.twilio.com"
#: Your account SID, its auth token and a number you send from (these are
#: the tour's demo account's: replace them with your own).
TWILIO_ACCOUNT = "AC" + "0123456789abcdef" * 2
TWILIO_TOKEN = "demo-auth-token"
TWILIO_FROM = "+15017122661"


def _rfc_2822(text: str) -> datetime.datetime:
    """Twilio's dates (``Thu, 24 Aug 2023 05:01:45 +0000``)."""
    return email.utils.parsedate_to_datetime(text)


class Message(Entity):
    """A message, the fields this recipe reads (Twilio's description lets
    every one of them be ``null``, but the SID)."""

    sid: str = ""
    account_sid: str | None = None
    to: str | None = None
    from_: str | None = None
    body: str | None = None
    status: str | None = None
    num_segments: str | None = None
    price: str | None = None
    date_created: datetime.datetime | None = None

    schema: ClassVar[dict[str, Any]] = {"date_created": _rfc_2822}

    def pk(self) -> str:
        return self.sid


def twilio_api(
    base_url: str, user: str, password: str, *, account: str | None = None
) -> RestEndpoint[Any]:
    """The base every endpoint of one account extends: ``user`` and
    ``password`` are the account SID and auth token (or an API key's SID
    and secret, with ``account`` the account SID)."""
    return RestEndpoint(
        url_prefix=f"{base_url}/2010-04-01/Accounts/{account or user}"
    ).use(
        AccessToken.basic(user, password),
        RenameKeys({"from_": "from"}, nested=True),
        PascalCaseKeys(params=True),
    )


def messages(api: RestEndpoint[Any]) -> Resource[Message, Page[Message]]:
    return resource(
        path="/Messages{/:Sid}.json",
        schema=Message,
        endpoint=api,
        pagination=BodyPagination(results="messages", next="next_page_uri"),
    )


def run(base_url: str, tour: Tour) -> Any:
    sms = messages(twilio_api(base_url, TWILIO_ACCOUNT, TWILIO_TOKEN))
    redact = sms.update.extend(method="POST")  # Twilio's updates are POSTs
    with tour.client() as client:
        controller = Controller(client)
        listed = controller.paginate(sms.get_list, {"page_size": 2}, items=True)
        bodies = [message.body for message in listed]
        tour.say(f"every message, two a page by next_page_uri: {bodies}")

        form = Form({"to": "+15558675310", "from": TWILIO_FROM, "body": "Hello!"})
        sent = controller.fetch(sms.create, body=form)
        tour.say(f"sent (To, From, Body): {sent.sid[:8]}... {sent.status}")
        one = controller.fetch(sms.get, {"Sid": sent.sid})
        tour.say(f"fetched at Messages/{{Sid}}.json: from {one.from_}")
        redacted = controller.fetch(redact, {"Sid": sent.sid}, Form({"body": ""}))
        tour.say(f"redacted: body {redacted.body!r}")
        controller.fetch(sms.delete, {"Sid": sent.sid})
        kept = ("Message", sent.sid) in controller.store.records
        tour.say(f"deleted: a 204, and the stored message went with it: {not kept}")
        try:
            controller.get(sms.get, {"Sid": sent.sid})  # not stored: asked again
            gone = None
        except NotFoundError as error:
            gone = error.json()["code"]
            tour.say(f"asked again: 404, Twilio's code {gone}")

        wrong = messages(twilio_api(base_url, TWILIO_ACCOUNT, "not-the-token"))
        try:
            controller.fetch(wrong.get_list)
            code = None
        except UnauthorizedError as error:
            code = error.json()["code"]
            tour.say(f"wrong token: 401, Twilio's code {code}")
    return {
        "bodies": bodies,
        "sent": (sent.to, sent.from_, sent.body, sent.status),
        "redacted": redacted.body,
        "gone from the store": not kept,
        "gone": gone,
        "error code": code,
    }
