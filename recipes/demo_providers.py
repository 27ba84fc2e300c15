"""The demo API taught three providers' conventions, for the provider recipes.

Each route checks what the real provider checks, so a recipe that gets a
convention wrong fails here as it would there:

| route | conventions |
|---|---|
| ``GET /v1/customers``, ``GET /v1/customers/<id>``, ``POST /v1/customers`` | Stripe: ``Authorization: Bearer`` the secret key ``STRIPE_KEY``; ``Stripe-Version`` echoed back (a version it does not know is a 400); queries and form bodies in brackets (``expand[]=``, ``created[gte]=``, ``created[lte]=``, ``metadata[plan]=``); a customer's ``default_source`` is the card's ID unless ``expand[]`` names it; a POST's ``Idempotency-Key`` replays the first answer; errors as ``{"error": {"type", "code", "message", "param"}}`` |
| ``GET /repos/<owner>/<repo>/issues``, ``GET /repos/<owner>/<repo>/issues/<n>`` | GitHub: ``Authorization: Bearer GITHUB_TOKEN``; ``X-GitHub-Api-Version: 2022-11-28`` (another is a 400); ``per_page``/``page`` with ``Link`` pages; an ``ETag`` per answer and 304 for a matching ``If-None-Match`` (not counted against the rate limit, as GitHub's); ``x-ratelimit-limit``/``remaining``/``used``/``reset``; ``Accept: application/vnd.github.html+json`` adds ``body_html`` |
| ``POST /api/chat.postMessage``, ``GET /api/conversations.list`` | Slack's Web API: ``Authorization: Bearer SLACK_TOKEN``; every answer a 200 whose body says ``"ok": true`` or ``"ok": false`` with an ``error`` code (``not_authed``, ``invalid_auth``, ``channel_not_found``, ``no_text``); a message's body JSON or form; channels listed ``limit`` at a time, the next page's ``cursor`` in ``response_metadata.next_cursor`` (``""`` on the last) |
| ``POST /fastapi/token``, ``GET /fastapi/items``, ``GET /fastapi/items/<id>``, ``POST /fastapi/items`` | FastAPI's tutorial: ``OAuth2PasswordRequestForm`` (form ``username``/``password``) answering ``{"access_token", "token_type": "bearer"}``; items in camelCase (pydantic's ``to_camel`` aliases); fastapi-pagination's ``Page``; no trailing slash (``/items/`` is a 307 to ``/items``); 401 ``{"detail": "Not authenticated"}``; 422 ``{"detail": [{"type", "loc", "msg", "input"}]}`` |
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
from typing import Any
from urllib.parse import parse_qsl

from .demo_api import Answer, Request, Route

__all__ = [
    "FASTAPI_USER",
    "GITHUB_TOKEN",
    "SLACK_TOKEN",
    "STRIPE_KEY",
    "STRIPE_VERSION",
    "Providers",
]

#: The test-mode secret key the Stripe-like routes accept.
STRIPE_KEY = "sk_test_demo"
STRIPE_VERSION = "2024-06-20"
#: The token the GitHub-like routes accept.
GITHUB_TOKEN = "ghp_demo"
#: The bot token the Slack-like routes accept.
SLACK_TOKEN = "xoxb-demo"
#: The Slack-like workspace's channels, in the order they are listed.
SLACK_CHANNELS = ("general", "random", "releases", "support", "design")
#: The one user of the FastAPI-like app: name and password.
FASTAPI_USER = ("johndoe", "secret")

_Headers = dict[str, str | list[str]]


def _stripe_error(status: int, kind: str, message: str, **more: str) -> Answer:
    return Answer(status, {"error": {"type": kind, "message": message, **more}})


def _unknown_parameter(name: str) -> Answer:
    """Stripe's answer to a query or form field it does not know."""
    return _stripe_error(
        400,
        "invalid_request_error",
        f"Received unknown parameter: {name}",
        code="parameter_unknown",
        param=name,
    )


class Providers:
    """Stripe's customers, GitHub's issues, FastAPI's items."""

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock
        self.stripe: dict[str, dict[str, Any]] = {}
        for n in range(1, 6):
            self._stripe_add(
                {"name": f"Customer {n}", "default_source": "card_demo"},
                created=1700000000 + n * 1000,
            )
        #: Idempotency-Key -> the answer first given, as Stripe keeps them.
        self.replays: dict[str, dict[str, Any]] = {}
        #: How many of the next POSTs create the customer, then answer 503 as
        #: if the answer were lost on the way (set by tests of retries).
        self.lost_answers = 0
        self.issues = [
            {"number": n, "title": f"Issue {n}", "state": "open", "body": f"*{n}*"}
            for n in range(1, 6)
        ]
        self.rate_used = 0
        self.fastapi_tokens: set[str] = set()
        self.slack_ts = 0
        self.items: dict[int, dict[str, Any]] = {
            n: {
                "id": n,
                "name": f"Item {n}",
                "unitPrice": 10.5 * n,
                "inStock": n % 2 == 1,
                "addressLine1": f"Shelf {n}",
            }
            for n in range(1, 6)
        }

    def routes(self) -> list[tuple[str, re.Pattern[str], Route]]:
        repo = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/issues"
        return [
            ("GET", re.compile(r"/v1/customers"), self._stripe_list),
            ("POST", re.compile(r"/v1/customers"), self._stripe_create),
            ("GET", re.compile(r"/v1/customers/(?P<id>[^/]+)"), self._stripe_get),
            ("GET", re.compile(repo), self._issues),
            ("GET", re.compile(repo + r"/(?P<number>\d+)"), self._issue),
            ("POST", re.compile(r"/api/chat\.postMessage"), self._slack_post),
            ("GET", re.compile(r"/api/conversations\.list"), self._slack_channels),
            ("POST", re.compile(r"/fastapi/token"), self._fastapi_token),
            ("GET", re.compile(r"/fastapi/items"), self._items),
            ("POST", re.compile(r"/fastapi/items"), self._create_item),
            ("GET", re.compile(r"/fastapi/items/"), self._slash_redirect),
            ("GET", re.compile(r"/fastapi/items/(?P<id>[^/]+)"), self._item),
        ]

    # -- Slack -------------------------------------------------------------------

    @staticmethod
    def _slack_refused(request: Request) -> Answer | None:
        """Slack's answer to a call without its token: still a 200."""
        header = request.headers.get("authorization")
        if header is None:
            return Answer(200, {"ok": False, "error": "not_authed"})
        if header != f"Bearer {SLACK_TOKEN}":
            return Answer(200, {"ok": False, "error": "invalid_auth"})
        return None

    def _slack_post(self, request: Request, match: re.Match[str]) -> Answer:
        refused = self._slack_refused(request)
        if refused is not None:
            return refused
        if "form" in request.headers.get("content-type", ""):
            fields: Any = dict(parse_qsl(request.body.decode()))
        else:
            fields = request.json()
        if not isinstance(fields, dict):
            return Answer(200, {"ok": False, "error": "invalid_arguments"})
        channel = fields.get("channel")
        ids = {f"C{n:04d}": name for n, name in enumerate(SLACK_CHANNELS, 1)}
        if channel not in ids and channel not in SLACK_CHANNELS:
            return Answer(200, {"ok": False, "error": "channel_not_found"})
        if not fields.get("text"):
            return Answer(200, {"ok": False, "error": "no_text"})
        with self.lock:
            self.slack_ts += 1
            ts = f"1700000000.{self.slack_ts:06d}"
        message = {"type": "message", "text": fields["text"], "ts": ts}
        return Answer(
            200, {"ok": True, "channel": channel, "ts": ts, "message": message}
        )

    def _slack_channels(self, request: Request, match: re.Match[str]) -> Answer:
        refused = self._slack_refused(request)
        if refused is not None:
            return refused
        try:
            limit = int(request.query.get("limit", "100"))
            start = int(request.query.get("cursor") or "0")
        except ValueError:
            return Answer(200, {"ok": False, "error": "invalid_cursor"})
        if not 1 <= limit <= 1000 or not 0 <= start <= len(SLACK_CHANNELS):
            return Answer(200, {"ok": False, "error": "invalid_limit"})
        channels = [
            {"id": f"C{n:04d}", "name": name, "is_channel": True}
            for n, name in enumerate(SLACK_CHANNELS, 1)
        ][start : start + limit]
        end = start + limit
        following = str(end) if end < len(SLACK_CHANNELS) else ""
        return Answer(
            200,
            {
                "ok": True,
                "channels": channels,
                "response_metadata": {"next_cursor": following},
            },
        )

    # -- Stripe ------------------------------------------------------------------

    def _stripe_add(self, fields: dict[str, Any], created: int) -> dict[str, Any]:
        row = {
            "id": f"cus_D{len(self.stripe) + 1:03d}",
            "object": "customer",
            "created": created,
            "name": fields.get("name"),
            "metadata": fields.get("metadata", {}),
            "default_source": fields.get("default_source"),
        }
        self.stripe[row["id"]] = row
        return row

    def _stripe_check(self, request: Request) -> Answer | None:
        if request.headers.get("authorization") != f"Bearer {STRIPE_KEY}":
            return _stripe_error(
                401, "invalid_request_error", "Invalid API Key provided"
            )
        version = request.headers.get("stripe-version", STRIPE_VERSION)
        if version != STRIPE_VERSION:
            return _stripe_error(
                400,
                "invalid_request_error",
                f"Invalid Stripe API version: {version}",
                code="api_version_invalid",
            )
        return None

    def _expanded(self, row: dict[str, Any], expand: list[str]) -> dict[str, Any]:
        """``row`` with its default source, an ID, expanded into the card
        where the request asks (as Stripe expands what ``expand[]`` names)."""
        if row["default_source"] is None:
            return row
        if "default_source" in expand or "data.default_source" in expand:
            source = {"id": "card_demo", "object": "card", "last4": "4242"}
            return {**row, "default_source": source}
        return row

    def _stripe_headers(self) -> _Headers:
        return {"stripe-version": STRIPE_VERSION, "request-id": "req_demo"}

    def _stripe_list(self, request: Request, match: re.Match[str]) -> Answer:
        refused = self._stripe_check(request)
        if refused is not None:
            return refused
        known = {"limit", "starting_after", "expand[]", "created[gte]", "created[lte]"}
        for name in request.query:
            if name not in known:
                return _unknown_parameter(name)
        with self.lock:
            rows = list(self.stripe.values())
        since = int(request.query.get("created[gte]", "0"))
        until = int(request.query.get("created[lte]", str(2**62)))
        rows = [row for row in rows if since <= row["created"] <= until]
        after = request.query.get("starting_after")
        if after is not None:
            ids = [row["id"] for row in rows]
            if after not in ids:
                return _stripe_error(
                    404,
                    "invalid_request_error",
                    f"No such customer: '{after}'",
                    code="resource_missing",
                    param="starting_after",
                )
            rows = rows[ids.index(after) + 1 :]
        limit = int(request.query.get("limit", "10"))
        expand = [request.query.get("expand[]", "")]
        body = {
            "object": "list",
            "url": "/v1/customers",
            "has_more": len(rows) > limit,
            "data": [self._expanded(row, expand) for row in rows[:limit]],
        }
        return Answer(200, body, self._stripe_headers())

    def _stripe_get(self, request: Request, match: re.Match[str]) -> Answer:
        refused = self._stripe_check(request)
        if refused is not None:
            return refused
        row = self.stripe.get(match["id"])
        if row is None:
            return _stripe_error(
                404,
                "invalid_request_error",
                f"No such customer: '{match['id']}'",
                code="resource_missing",
                param="id",
            )
        expand = [request.query.get("expand[]", "")]
        return Answer(200, self._expanded(row, expand), self._stripe_headers())

    def _stripe_create(self, request: Request, match: re.Match[str]) -> Answer:
        refused = self._stripe_check(request)
        if refused is not None:
            return refused
        if not request.headers.get("content-type", "").startswith(
            "application/x-www-form-urlencoded"
        ):
            return _stripe_error(
                400, "invalid_request_error", "Stripe takes form-encoded bodies"
            )
        fields: dict[str, Any] = {"metadata": {}}
        for name, value in parse_qsl(request.body.decode()):
            field = re.fullmatch(r"metadata\[(\w+)\]", name)
            if field:
                fields["metadata"][field[1]] = value
            elif name == "name":
                fields["name"] = value
            else:
                return _unknown_parameter(name)
        key = request.headers.get("idempotency-key")
        with self.lock:
            if key is not None and key in self.replays:
                headers = {**self._stripe_headers(), "idempotent-replayed": "true"}
                return Answer(200, self.replays[key], headers)
            newest = max(row["created"] for row in self.stripe.values())
            row = self._stripe_add(fields, created=newest + 1000)
            if key is not None:
                self.replays[key] = row
            if self.lost_answers:
                self.lost_answers -= 1
                return _stripe_error(503, "api_error", "The answer was lost")
        return Answer(200, row, self._stripe_headers())

    # -- GitHub ------------------------------------------------------------------

    def _github_check(self, request: Request) -> Answer | None:
        docs = "https://docs.github.com/rest"
        if request.headers.get("authorization") != f"Bearer {GITHUB_TOKEN}":
            return Answer(
                401, {"message": "Bad credentials", "documentation_url": docs}
            )
        version = request.headers.get("x-github-api-version", "2022-11-28")
        if version != "2022-11-28":
            message = f"API version '{version}' is not supported."
            return Answer(400, {"message": message, "documentation_url": docs})
        return None

    def _github_answer(self, request: Request, value: Any, links: str) -> Answer:
        """``value`` with its ``ETag``, or a 304 that costs no rate limit."""
        etag = '"' + hashlib.sha256(json.dumps(value).encode()).hexdigest()[:16] + '"'
        headers: _Headers = {
            "etag": etag,
            "cache-control": "private, max-age=0, must-revalidate",
            "vary": "Accept, Authorization",
            "x-github-media-type": "github.v3; format=json",
        }
        if links:
            headers["link"] = links
        with self.lock:
            revalidated = request.headers.get("if-none-match") == etag
            if not revalidated:
                self.rate_used += 1
            headers.update(
                {
                    "x-ratelimit-limit": "5000",
                    "x-ratelimit-remaining": str(5000 - self.rate_used),
                    "x-ratelimit-used": str(self.rate_used),
                    "x-ratelimit-reset": "1893456000",
                    "x-ratelimit-resource": "core",
                }
            )
        if revalidated:
            return Answer(304, raw=b"", headers=headers)
        return Answer(200, value, headers)

    def _issues(self, request: Request, match: re.Match[str]) -> Answer:
        refused = self._github_check(request)
        if refused is not None:
            return refused
        per_page = int(request.query.get("per_page", "30"))
        page = int(request.query.get("page", "1"))
        last = max(-(-len(self.issues) // per_page), 1)
        here = f"/repos/{match['owner']}/{match['repo']}/issues?per_page={per_page}"
        links = []
        if page < last:
            links.append(f'<{here}&page={page + 1}>; rel="next"')
            links.append(f'<{here}&page={last}>; rel="last"')
        value = self.issues[(page - 1) * per_page : page * per_page]
        return self._github_answer(request, value, ", ".join(links))

    def _issue(self, request: Request, match: re.Match[str]) -> Answer:
        refused = self._github_check(request)
        if refused is not None:
            return refused
        number = int(match["number"])
        if not 1 <= number <= len(self.issues):
            return Answer(404, {"message": "Not Found"})
        issue = dict(self.issues[number - 1])
        if request.headers.get("accept") == "application/vnd.github.html+json":
            issue["body_html"] = f"<p><em>{number}</em></p>"
        return self._github_answer(request, issue, "")

    # -- FastAPI -----------------------------------------------------------------

    def _fastapi_token(self, request: Request, match: re.Match[str]) -> Answer:
        form = dict(parse_qsl(request.body.decode(errors="replace")))
        if (form.get("username"), form.get("password")) != FASTAPI_USER:
            return Answer(400, {"detail": "Incorrect username or password"})
        token = secrets.token_hex(16)
        with self.lock:
            self.fastapi_tokens.add(token)
        return Answer(200, {"access_token": token, "token_type": "bearer"})

    def _fastapi_check(self, request: Request) -> Answer | None:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or token not in self.fastapi_tokens:
            return Answer(
                401, {"detail": "Not authenticated"}, {"www-authenticate": "Bearer"}
            )
        return None

    def _items(self, request: Request, match: re.Match[str]) -> Answer:
        refused = self._fastapi_check(request)
        if refused is not None:
            return refused
        page, size = request.query.get("page", "1"), request.query.get("size", "50")
        if not (page.isdigit() and size.isdigit() and int(page) >= 1):
            problem = {
                "type": "int_parsing" if not page.isdigit() else "greater_than_equal",
                "loc": ["query", "page"],
                "msg": "Input should be a valid integer, greater than or equal to 1",
                "input": page,
            }
            return Answer(422, {"detail": [problem]})
        with self.lock:
            rows = list(self.items.values())
        at, per = int(page), int(size)
        body = {
            "items": rows[(at - 1) * per : at * per],
            "total": len(rows),
            "page": at,
            "size": per,
            "pages": -(-len(rows) // per),
        }
        return Answer(200, body)

    def _item(self, request: Request, match: re.Match[str]) -> Answer:
        refused = self._fastapi_check(request)
        if refused is not None:
            return refused
        if not match["id"].isdigit():
            problem = {
                "type": "int_parsing",
                "loc": ["path", "item_id"],
                "msg": "Input should be a valid integer, unable to parse string "
                "as an integer",
                "input": match["id"],
            }
            return Answer(422, {"detail": [problem]})
        item = self.items.get(int(match["id"]))
        if item is None:
            return Answer(404, {"detail": "Item not found"})
        return Answer(200, item)

    def _create_item(self, request: Request, match: re.Match[str]) -> Answer:
        refused = self._fastapi_check(request)
        if refused is not None:
            return refused
        body = request.json()
        if not isinstance(body, dict):
            body = {}
        missing = [
            {"type": "missing", "loc": ["body", name], "msg": "Field required"}
            | {"input": body}
            for name in ("name", "unitPrice")
            if name not in body
        ]
        if missing:
            return Answer(422, {"detail": missing})
        with self.lock:
            number = max(self.items) + 1
            item = {
                "id": number,
                "name": str(body["name"]),
                "unitPrice": float(body["unitPrice"]),
                "inStock": bool(body.get("inStock", True)),
                "addressLine1": str(body.get("addressLine1", "")),
            }
            self.items[number] = item
        return Answer(201, item)

    def _slash_redirect(self, request: Request, match: re.Match[str]) -> Answer:
        """FastAPI's ``redirect_slashes``: ``/items/`` is a 307 to ``/items``."""
        return Answer(307, {}, {"location": request.path.rstrip("/")})
