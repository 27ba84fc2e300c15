"""The demo API taught Twilio's conventions, for the Twilio recipe.

Twilio's 2010-04-01 REST API, its Messages as Twilio serves them and
checks what Twilio checks, so a recipe that gets a convention wrong fails
here as it would there:

| route | conventions |
|---|---|
| ``GET``, ``POST /2010-04-01/Accounts/<AccountSid>/Messages.json`` | a page of messages, newest first (``To``, ``From`` filter; ``PageSize``, default 50, ``Page`` and ``PageToken``), in Twilio's envelope: ``{"messages": [...], "next_page_uri", "previous_page_uri", "first_page_uri", "uri", "page", "page_size", "start", "end"}``, ``next_page_uri`` a path with its query (``null`` on the last page); a new message from a form (``application/x-www-form-urlencoded``) in PascalCase: ``To`` (else 400, code 21604), ``From`` or ``MessagingServiceSid`` (21603), ``Body`` or ``MediaUrl`` (21602): 201 and the message, ``status`` ``queued`` |
| ``GET``, ``POST``, ``DELETE /2010-04-01/Accounts/<AccountSid>/Messages/<Sid>.json`` | the message; an update by form (``Body`` only to ``""``, to redact it, else 400 code 21609; ``Status=canceled``); a delete: 204; an unknown SID: 404, code 20404 |

Every route: ``Authorization: Basic`` of ``TWILIO_ACCOUNT`` and
``TWILIO_TOKEN`` (the account SID and its auth token), else 401 (code
20003) with ``WWW-Authenticate: Basic realm="Twilio API"``; an
``<AccountSid>`` in the path that is not the caller's: 404 (20404). JSON
answers in snake_case; errors as ``{"code", "message", "more_info",
"status"}``; dates as RFC 2822 (``Thu, 24 Aug 2023 05:01:45 +0000``); a
``Twilio-Request-Id`` header on every answer.
"""

from __future__ import annotations

import base64
import email.utils
import hashlib
import re
import threading
from typing import Any
from urllib.parse import parse_qsl, urlencode

from .demo_api import Answer, Request, Route

__all__ = [
    "TWILIO_ACCOUNT",
    "TWILIO_FROM",
    "TWILIO_TOKEN",
    "Twilio",
]

#: The account SID and auth token the demo accepts (Basic user and password).
TWILIO_ACCOUNT = "AC" + "0123456789abcdef" * 2
TWILIO_TOKEN = "demo-auth-token"
#: The demo account's phone number (a sender it may send from).
TWILIO_FROM = "+15017122661"

_MESSAGES = r"/2010-04-01/Accounts/(?P<account>[^/]+)/Messages"
_Headers = dict[str, str | list[str]]


def _sid(prefix: str, seed: str) -> str:
    """A SID as Twilio writes them: two letters and 32 hex digits."""
    return prefix + hashlib.sha256(seed.encode()).hexdigest()[:32]


def _error(status: int, code: int, message: str, **headers: str) -> Answer:
    """Twilio's error body."""
    body = {
        "code": code,
        "message": message,
        "more_info": f"https://www.twilio.com/docs/errors/{code}",
        "status": status,
    }
    return Answer(status, body, {"twilio-request-id": _sid("RQ", message), **headers})


def _date(moment: float) -> str:
    """An RFC 2822 date, as Twilio's JSON has them."""
    return email.utils.formatdate(moment, usegmt=False).replace("-0000", "+0000")


class Twilio:
    """Twilio's Messages, for one account."""

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock
        #: The messages, oldest first (answers list them newest first).
        self.messages: dict[str, dict[str, Any]] = {}
        #: How many were ever made (each SID is new).
        self.made = 0
        for n in range(1, 6):
            self._add(
                to=f"+1555867531{n}",
                sender=TWILIO_FROM,
                body=f"Message {n}",
                moment=1_700_000_000 + n * 60,
                status="delivered",
            )

    def routes(self) -> list[tuple[str, re.Pattern[str], Route]]:
        one = _MESSAGES + r"/(?P<sid>[^/]+)\.json"
        return [
            ("GET", re.compile(_MESSAGES + r"\.json"), self._list),
            ("POST", re.compile(_MESSAGES + r"\.json"), self._create),
            ("GET", re.compile(one), self._get),
            ("POST", re.compile(one), self._update),
            ("DELETE", re.compile(one), self._delete),
        ]

    # -- what every route checks ---------------------------------------------------

    def _refused(self, request: Request, account: str) -> Answer | None:
        scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
        try:
            pair = base64.b64decode(encoded, validate=True).decode("utf-8")
        except ValueError:
            pair = ""
        if scheme.lower() != "basic" or pair != f"{TWILIO_ACCOUNT}:{TWILIO_TOKEN}":
            return _error(
                401,
                20003,
                "Authenticate",
                **{"www-authenticate": 'Basic realm="Twilio API"'},
            )
        if account != TWILIO_ACCOUNT:
            return self._missing(request)
        return None

    def _missing(self, request: Request) -> Answer:
        return _error(
            404, 20404, f"The requested resource {request.path} was not found"
        )

    def _form(self, request: Request) -> dict[str, str] | None:
        """The form body (``None``: it is not one)."""
        kind = request.headers.get("content-type", "")
        if not kind.startswith("application/x-www-form-urlencoded"):
            return None
        text = request.body.decode("utf-8", "replace")
        return dict(parse_qsl(text, keep_blank_values=True))

    def _answer(self, status: int, value: Any) -> Answer:
        return Answer(status, value, {"twilio-request-id": _sid("RQ", str(value))})

    # -- the messages ---------------------------------------------------------------

    def _add(
        self, *, to: str, sender: str, body: str, moment: float, status: str
    ) -> dict[str, Any]:
        self.made += 1
        sid = _sid("SM", f"{self.made}:{to}:{body}:{moment}")
        uri = f"/2010-04-01/Accounts/{TWILIO_ACCOUNT}/Messages/{sid}"
        message = {
            "account_sid": TWILIO_ACCOUNT,
            "api_version": "2010-04-01",
            "body": body,
            "date_created": _date(moment),
            "date_sent": _date(moment + 1) if status == "delivered" else None,
            "date_updated": _date(moment + 1),
            "direction": "outbound-api",
            "error_code": None,
            "error_message": None,
            "from": sender,
            "messaging_service_sid": None,
            "num_media": "0",
            "num_segments": "1",
            "price": "-0.00790" if status == "delivered" else None,
            "price_unit": "USD",
            "sid": sid,
            "status": status,
            "subresource_uris": {"media": f"{uri}/Media.json"},
            "to": to,
            "uri": f"{uri}.json",
        }
        self.messages[sid] = message
        return message

    def _list(self, request: Request, match: re.Match[str]) -> Answer:
        refused = self._refused(request, match["account"])
        if refused is not None:
            return refused
        query = request.query
        size_text, page_text = query.get("PageSize", "50"), query.get("Page", "0")
        if not (size_text.isdigit() and page_text.isdigit()):
            return _error(400, 20001, "Invalid PageSize or Page")
        size = max(1, min(int(size_text), 1000))
        with self.lock:
            rows = list(reversed(self.messages.values()))
        filters = {name: query[name] for name in ("To", "From") if name in query}
        rows = [
            row
            for row in rows
            if all(row[name.lower()] == value for name, value in filters.items())
        ]
        token = query.get("PageToken")
        if token is not None:  # "PA" and the SID the last page ended with
            sids = [row["sid"] for row in rows]
            after = token.removeprefix("PA")
            if after not in sids:
                return _error(400, 20001, f"Invalid PageToken {token}")
            rows = rows[sids.index(after) + 1 :]
        page = int(page_text)
        shown = rows[:size]
        here = f"/2010-04-01/Accounts/{TWILIO_ACCOUNT}/Messages.json"

        def uri(number: int, after: str | None = None) -> str:
            fields = [*filters.items(), ("PageSize", str(size)), ("Page", str(number))]
            if after is not None:
                fields.append(("PageToken", f"PA{after}"))
            return f"{here}?{urlencode(fields)}"

        more = len(rows) > size
        start = page * size
        body = {
            "messages": shown,
            "end": start + max(len(shown) - 1, 0),
            "first_page_uri": uri(0),
            "next_page_uri": uri(page + 1, shown[-1]["sid"]) if more else None,
            "page": page,
            "page_size": size,
            "previous_page_uri": uri(page - 1) if page > 0 else None,
            "start": start,
            "uri": uri(page, token.removeprefix("PA") if token else None),
        }
        return self._answer(200, body)

    def _create(self, request: Request, match: re.Match[str]) -> Answer:
        refused = self._refused(request, match["account"])
        if refused is not None:
            return refused
        form = self._form(request) or {}
        if not form.get("To"):
            return _error(400, 21604, "A 'To' phone number is required.")
        if not (form.get("From") or form.get("MessagingServiceSid")):
            return _error(400, 21603, "A 'From' phone number is required.")
        if not (form.get("Body") or form.get("MediaUrl")):
            return _error(400, 21602, "Message body is required.")
        with self.lock:
            message = self._add(
                to=form["To"],
                sender=form.get("From", TWILIO_FROM),
                body=form.get("Body", ""),
                moment=1_700_000_000 + (self.made + 1) * 60,
                status="queued",
            )
        return self._answer(201, message)

    def _message(
        self, request: Request, match: re.Match[str]
    ) -> tuple[dict[str, Any] | None, Answer | None]:
        refused = self._refused(request, match["account"])
        if refused is not None:
            return None, refused
        message = self.messages.get(match["sid"])
        if message is None:
            return None, self._missing(request)
        return message, None

    def _get(self, request: Request, match: re.Match[str]) -> Answer:
        message, refused = self._message(request, match)
        if message is None:
            assert refused is not None
            return refused
        return self._answer(200, message)

    def _update(self, request: Request, match: re.Match[str]) -> Answer:
        message, refused = self._message(request, match)
        if message is None:
            assert refused is not None
            return refused
        form = self._form(request) or {}
        if "Body" in form and form["Body"] != "":
            return _error(
                400, 21609, "Body can only be updated to an empty string (redaction)"
            )
        with self.lock:
            if "Body" in form:
                message["body"] = ""
            if form.get("Status") == "canceled":
                message["status"] = "canceled"
        return self._answer(200, message)

    def _delete(self, request: Request, match: re.Match[str]) -> Answer:
        message, refused = self._message(request, match)
        if message is None:
            assert refused is not None
            return refused
        with self.lock:
            self.messages.pop(match["sid"], None)
        return Answer(204, headers={"twilio-request-id": _sid("RQ", match["sid"])})
