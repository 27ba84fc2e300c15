"""The embedded demo API: the API the recipes call, served on 127.0.0.1.

A real HTTP server (the standard library's threading HTTP/1.1 server, with
keep-alive) on a free port, plus a second one on another port that plays
"another origin" for redirects. The tour and the integration tests run
against it; nothing in ``restwire`` imports it.

| route | answer |
|---|---|
| ``POST /login`` | sets ``sessionid`` and ``csrftoken`` cookies; ``{"accessToken": ...}`` |
| ``POST /sessions/expire`` | signs everybody out: later calls get 401 |
| ``POST /oauth/token`` | OAuth2 client credentials (RFC 6749 §4.4) for ``OAUTH_CLIENT``: ``{"access_token", "token_type": "Bearer", "expires_in": 3600}``; another client gets 401 ``invalid_client`` |
| ``GET /my/<id>`` | ``{"id", "title"}`` for a signed-in caller (cookie or ``Access-Token``) or an OAuth2 ``Authorization: Bearer`` token it issued, else 401 |
| ``POST /my/notes/`` | cookie session only, and ``X-CSRFToken`` must match the cookie, else 403 |
| ``GET /posts/``, ``GET /posts/<id>``, ``POST /posts/``, ``DELETE /posts/<id>`` | Posts |
| ``PATCH /posts/<id>`` | the body's fields set on the post; the whole post (models as records) |
| ``GET /price/<pair>`` | ``{"exchangePair", "price", "updatedAt"}``, camelCase |
| ``GET /streams/<name>/`` | a Stream in snake_case, without its username |
| ``GET /products/<id>/ticker`` | a Ticker without ``product_id``; the price moves on every call |
| ``GET /rabbits/<id>``, ``PUT /rabbits/<id>`` | ``carrotsUsedIsThisNameTooLong`` |
| ``GET /articles/?page=<n>`` | 8 articles, 3 a page, ``Link: <...>; rel="next"`` |
| ``GET /feed/?cursor=<c>`` | 7 events, 3 a page: ``{"items", "next_cursor"}`` (a cursor in the body) |
| ``GET /catalog/?offset=<n>&limit=<m>`` | 8 products: ``{"total", "items"}`` (offset paging, no next) |
| ``/stripe/customers``, ``/drf/customers/``, ``/fastapi/customers``, ``/jsonapi/customers``, ``/json-server/customers`` | customers, listed as Stripe, Django REST framework, fastapi-pagination, JSON:API and json-server list things (``demo_listings``) |
| ``/v1/customers``, ``/repos/<owner>/<repo>/issues``, ``/fastapi/token`` and ``/fastapi/items`` | Stripe's, GitHub's and FastAPI's conventions, checked as they check them (``demo_providers``) |
| ``POST /v1/chat/completions``, ``POST /v1/messages`` | OpenAI's and Anthropic's chat answers, streamed as server-sent events in each one's shape (``demo_llm``) |
| ``/2010-04-01/Accounts/<AccountSid>/Messages.json``, ``.../Messages/<Sid>.json`` | Twilio's: Basic auth, PascalCase forms, ``next_page_uri`` pages (``demo_twilio``) |
| ``GET /files/<id>/download`` | 1 MiB, ``Content-Disposition`` with ``filename*`` |
| ``GET /events`` | three events as JSON lines, ``application/x-ndjson`` (a custom content kind) |
| ``GET /quotes/`` | two Quotes, ``{"pair", "price"}`` |
| ``GET /quotes/live`` | server-sent events: ``retry: 100``, then the quotes moving, ``id`` numbered; six in all, three a connection (the first hangs up mid-stream, the next resumes after the ``Last-Event-ID`` it sends), then 204 |
| ``GET /away`` | 302 to the other origin's ``/echo``, which reports the credentials it got |
| ``GET /rates/<base>`` | exchange rates with an ``ETag`` and ``Cache-Control: max-age=2``; a matching ``If-None-Match`` gets 304 (HTTP caching) |
| ``GET /quota`` | at most 5 calls in any second, from everybody: past that 429 with ``Retry-After``; every answer says the quota left in ``RateLimit`` (rate limits) |
| ``POST /orders/`` | a signed request: ``X-Signature`` must be the HMAC-SHA256, under ``SIGNING_KEY``, of the method, path, ``X-Timestamp`` and body bytes (one a line), else 401; the order it read (signing) |

A login after ``/sessions/expire`` issues a new access token, as a refresh
would. ``DemoApi.served`` counts the full bodies and 304s ``/rates`` sent,
and the 200s and 429s of ``/quota``.

``DemoApi.requests`` holds the last 256 requests the API origin answered, so
a test can see what went over the wire.
"""

from __future__ import annotations

import base64
import collections
import datetime
import hashlib
import hmac
import json
import re
import secrets
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote_plus, urlsplit

__all__ = [
    "OAUTH_CLIENT",
    "SIGNING_KEY",
    "DemoApi",
    "QuietHandler",
    "QuietServer",
    "read_body",
]

#: The key the demo API checks request signatures with (``POST /orders/``).
SIGNING_KEY = b"demo-signing-key"

#: The one OAuth2 client ``POST /oauth/token`` knows: id and secret.
OAUTH_CLIENT = ("demo-client", "demo-secret")

_CREDENTIAL_HEADERS = ("access-token", "authorization", "cookie", "x-csrftoken")


def read_body(handler: BaseHTTPRequestHandler) -> bytes:
    """The request body, whether sized by Content-Length or sent chunked.

    A server that skipped a chunked body would read it as the next request
    on a kept-alive connection.
    """
    if handler.headers.get("transfer-encoding", "").lower() == "chunked":
        chunks: list[bytes] = []
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(chunks)
            chunks.append(handler.rfile.read(size))
            handler.rfile.readline()
    length = int(handler.headers.get("content-length") or 0)
    return handler.rfile.read(length) if length else b""


class Answer:
    """What a route returns: a status, a JSON (or raw) body, headers."""

    def __init__(
        self,
        status: int = 200,
        value: Any = None,
        headers: dict[str, str | list[str]] | None = None,
        raw: bytes | None = None,
    ) -> None:
        self.status = status
        self.body = (
            raw
            if raw is not None
            else (b"" if status == 204 else json.dumps(value).encode())
        )
        self.headers = headers or {}
        if raw is None and status != 204:
            self.headers.setdefault("content-type", "application/json")
        #: A body sent piece by piece, chunked, a little apart (an event
        #: stream); with ``hang_up``, the connection then drops mid-body.
        self.chunks: list[bytes] | None = None
        self.hang_up = False

    @classmethod
    def streamed(
        cls, chunks: list[bytes], content_type: str, *, hang_up: bool = False
    ) -> Answer:
        answer = cls(200, raw=b"", headers={"content-type": content_type})
        answer.chunks = chunks
        answer.hang_up = hang_up
        return answer


class QuietServer(ThreadingHTTPServer):
    """A threading HTTP server for demos and tests: a thread per connection,
    and a client that went away (a timeout, a reset) is not a server error."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 with keep-alive, no access log, and :meth:`answer`."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: without this, Nagle's
    # algorithm meets the client's delayed ACK and every response waits 40 ms.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:
        return

    def answer(
        self,
        status: int,
        body: bytes,
        headers: dict[str, str | list[str]] | None = None,
    ) -> None:
        """Send a whole response; a list of values sends the header repeatedly."""
        self.send_response(status)
        for name, value in (headers or {}).items():
            for item in value if isinstance(value, list) else [value]:
                if item:
                    self.send_header(name, item)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            for start in range(0, len(body), 65536):
                self.wfile.write(body[start : start + 65536])


class _Server(QuietServer):
    api: DemoApi


class _Handler(QuietHandler):
    server: _Server

    def _answer(self) -> None:
        api = self.server.api
        split = urlsplit(self.path)
        request = Request(
            self.command,
            split.path,
            dict(parse_qsl(split.query)),
            {k.lower(): v for k, v in self.headers.items()},
            read_body(self),
        )
        if self.server is api.other:
            seen = [name for name in _CREDENTIAL_HEADERS if name in request.headers]
            answer = Answer(200, {"origin": "other", "credentials": seen})
        else:
            api.requests.append(request)
            answer = api.route(request)
        if answer.chunks is not None:
            self.stream(answer)
            return
        self.answer(answer.status, answer.body, answer.headers)

    def stream(self, answer: Answer) -> None:
        """Send ``answer``'s chunks as they would come, 20 ms apart."""
        self.send_response(answer.status)
        for name, value in answer.headers.items():
            self.send_header(name, value if isinstance(value, str) else value[0])
        self.send_header("transfer-encoding", "chunked")
        self.send_header("cache-control", "no-cache")
        self.end_headers()
        try:
            for chunk in answer.chunks or ():
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
                time.sleep(0.02)
            if not answer.hang_up:
                self.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass  # the client left: its stream ended
        self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _answer


class Request:
    """One request as a route sees it."""

    def __init__(
        self,
        method: str,
        path: str,
        query: dict[str, str],
        headers: dict[str, str],
        body: bytes,
    ) -> None:
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None

    def cookie(self, name: str) -> str | None:
        for pair in self.headers.get("cookie", "").split(";"):
            key, _, value = pair.strip().partition("=")
            if key == name:
                return value
        return None


Route = Callable[[Request, "re.Match[str]"], Answer]


class DemoApi:
    """Both demo servers; a context manager that starts and stops them."""

    def __init__(self, port: int = 0) -> None:
        """Bind both servers (the API on ``port``, 0 for a free one; the other
        origin on a free one); ``with`` starts and stops them."""
        self.lock = threading.Lock()
        self.session_id = secrets.token_hex(8)
        self.csrf_token = secrets.token_hex(8)
        self.access_token = secrets.token_hex(16)
        #: The OAuth2 tokens ``/oauth/token`` issued.
        self.oauth_tokens: set[str] = set()
        self.signed_in = True
        self.posts: dict[str, dict[str, Any]] = {
            "1": {"id": "1", "title": "Hello, restwire"}
        }
        self.next_id = len(self.posts)
        self.rabbits: dict[str, int] = {"1": 12}
        self.ticks = 0
        #: What /rates and /quota answered, and logins after expiry.
        self.served: collections.Counter[str] = collections.Counter()
        self.quota_times: collections.deque[float] = collections.deque()
        #: The last requests the API origin answered, newest last.
        self.requests: collections.deque[Request] = collections.deque(maxlen=256)
        self.routes: list[tuple[str, re.Pattern[str], Route]] = [
            ("POST", re.compile(r"/login"), self._login),
            ("POST", re.compile(r"/sessions/expire"), self._expire),
            ("POST", re.compile(r"/oauth/token"), self._oauth_token),
            ("POST", re.compile(r"/my/notes/"), self._note),
            ("GET", re.compile(r"/my/(?P<id>[^/]+)"), self._mine),
            ("GET", re.compile(r"/posts/"), self._posts),
            ("POST", re.compile(r"/posts/"), self._create_post),
            ("GET", re.compile(r"/posts/(?P<id>[^/]+)"), self._post),
            ("PATCH", re.compile(r"/posts/(?P<id>[^/]+)"), self._patch_post),
            ("DELETE", re.compile(r"/posts/(?P<id>[^/]+)"), self._delete_post),
            ("GET", re.compile(r"/price/(?P<pair>[^/]+)"), self._price),
            ("GET", re.compile(r"/streams/(?P<name>[^/]+)/?"), self._stream),
            ("GET", re.compile(r"/products/(?P<id>[^/]+)/ticker"), self._ticker),
            ("GET", re.compile(r"/rabbits/(?P<id>[^/]+)"), self._rabbit),
            ("PUT", re.compile(r"/rabbits/(?P<id>[^/]+)"), self._feed_rabbit),
            ("GET", re.compile(r"/articles/?"), self._articles),
            ("GET", re.compile(r"/feed/?"), self._feed),
            ("GET", re.compile(r"/catalog/?"), self._catalog),
            ("GET", re.compile(r"/files/(?P<id>[^/]+)/download"), self._file),
            ("GET", re.compile(r"/events"), self._events),
            ("GET", re.compile(r"/quotes/"), self._quotes),
            ("GET", re.compile(r"/quotes/live"), self._live_quotes),
            ("GET", re.compile(r"/away"), self._away),
            ("GET", re.compile(r"/rates/(?P<base>[A-Z]{3})"), self._rates),
            ("GET", re.compile(r"/quota"), self._quota),
            ("POST", re.compile(r"/orders/"), self._order),
        ]
        # (imported here: demo_listings, demo_providers and demo_twilio
        # build on Answer)
        from .demo_listings import Customers
        from .demo_providers import Providers
        from .demo_twilio import Twilio

        self.customers = Customers(self.lock)
        self.routes += self.customers.routes()
        self.providers = Providers(self.lock)
        self.routes += self.providers.routes()
        from .demo_llm import Llm

        self.routes += Llm().routes()
        self.twilio = Twilio(self.lock)
        self.routes += self.twilio.routes()
        self.main = _Server(("127.0.0.1", port), _Handler)
        try:
            self.other = _Server(("127.0.0.1", 0), _Handler)
        except OSError:
            self.main.server_close()
            raise
        self.main.api = self.other.api = self
        self.origin = f"http://127.0.0.1:{self.main.server_address[1]}"
        self.other_origin = f"http://127.0.0.1:{self.other.server_address[1]}"
        self._threads = [
            threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
            for server in (self.main, self.other)
        ]

    def route(self, request: Request) -> Answer:
        for method, pattern, handler in self.routes:
            match = pattern.fullmatch(request.path)
            if match is not None and method == request.method:
                return handler(request, match)
        return Answer(404, {"detail": f"no route for {request.method} {request.path}"})

    # -- auth ------------------------------------------------------------------

    def _signed_in(self, request: Request) -> bool:
        scheme, _, bearer = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and bearer in self.oauth_tokens:
            return True
        if not self.signed_in:
            return False
        by_token = request.headers.get("access-token") == self.access_token
        return by_token or request.cookie("sessionid") == self.session_id

    def _login(self, request: Request, match: re.Match[str]) -> Answer:
        with self.lock:
            if not self.signed_in:  # after expiry: a new token, as a refresh
                self.access_token = secrets.token_hex(16)
                self.served["logins after expiry"] += 1
            self.signed_in = True
            self.csrf_token = secrets.token_hex(8)  # rotates at login, as Django's
        cookies = [
            f"sessionid={self.session_id}; Path=/; HttpOnly",
            f"csrftoken={self.csrf_token}; Path=/",
        ]
        return Answer(200, {"accessToken": self.access_token}, {"set-cookie": cookies})

    def _oauth_token(self, request: Request, match: re.Match[str]) -> Answer:
        """RFC 6749 §4.4, the client authenticated by Basic (§2.3.1: id and
        secret form-urlencoded, then Base64) or in the form."""
        form = dict(parse_qsl(request.body.decode(errors="replace")))
        client = (form.get("client_id", ""), form.get("client_secret", ""))
        scheme, _, basic = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "basic":
            try:
                pair = base64.b64decode(basic).decode()
            except ValueError:
                pair = ""
            name, _, secret = pair.partition(":")
            client = (unquote_plus(name), unquote_plus(secret))
        if client != OAUTH_CLIENT:
            failed = {
                "error": "invalid_client",
                "error_description": "Client authentication failed",
            }
            return Answer(401, failed, {"www-authenticate": "Basic"})
        if form.get("grant_type") != "client_credentials":
            return Answer(400, {"error": "unsupported_grant_type"})
        token = secrets.token_hex(16)
        with self.lock:
            self.oauth_tokens.add(token)
        issued = {"access_token": token, "token_type": "Bearer", "expires_in": 3600}
        return Answer(200, issued, {"cache-control": "no-store"})

    def _expire(self, request: Request, match: re.Match[str]) -> Answer:
        self.signed_in = False
        return Answer(204)

    def _mine(self, request: Request, match: re.Match[str]) -> Answer:
        if not self._signed_in(request):
            return Answer(401, {"detail": "not signed in"})
        return Answer(200, {"id": match["id"], "title": f"My item {match['id']}"})

    def _note(self, request: Request, match: re.Match[str]) -> Answer:
        if request.cookie("sessionid") != self.session_id or not self.signed_in:
            return Answer(401, {"detail": "not signed in"})
        if request.headers.get("x-csrftoken") != request.cookie("csrftoken"):
            return Answer(403, {"detail": "CSRF verification failed"})
        return Answer(201, {"saved": request.json()})

    # -- posts -------------------------------------------------------------------

    def _posts(self, request: Request, match: re.Match[str]) -> Answer:
        with self.lock:
            return Answer(200, list(self.posts.values()))

    def _post(self, request: Request, match: re.Match[str]) -> Answer:
        post = self.posts.get(match["id"])
        if post is None:  # RFC 9457 problem details, as many APIs answer
            problem = {"title": "Not Found", "status": 404}
            problem["detail"] = f"no post {match['id']}"
            headers: dict[str, str | list[str]] = {
                "content-type": "application/problem+json",
                "x-request-id": f"req-{secrets.token_hex(4)}",
            }
            return Answer(404, problem, headers)
        return Answer(200, post)

    def _create_post(self, request: Request, match: re.Match[str]) -> Answer:
        body = request.json()
        if not isinstance(body, dict) or not body.get("title"):
            return Answer(
                422, {"detail": [{"loc": ["title"], "msg": "field required"}]}
            )
        with self.lock:
            self.next_id += 1
            post = {**body, "id": str(self.next_id)}
            self.posts[post["id"]] = post
        return Answer(201, post)

    def _patch_post(self, request: Request, match: re.Match[str]) -> Answer:
        body = request.json()
        if not isinstance(body, dict):
            return Answer(422, {"detail": "a JSON object of fields to change"})
        with self.lock:
            post = self.posts.get(match["id"])
            if post is None:
                return Answer(404, {"detail": f"no post {match['id']}"})
            post = self.posts[match["id"]] = {**post, **body, "id": post["id"]}
        return Answer(200, post)

    def _delete_post(self, request: Request, match: re.Match[str]) -> Answer:
        with self.lock:
            found = self.posts.pop(match["id"], None)
        return (
            Answer(204) if found else Answer(404, {"detail": f"no post {match['id']}"})
        )

    # -- market data -------------------------------------------------------------

    def _price(self, request: Request, match: re.Match[str]) -> Answer:
        return Answer(
            200,
            {
                "exchangePair": match["pair"],
                "price": "20012.3400",
                "updatedAt": "2024-05-01T12:00:00.123456Z",
            },
        )

    def _stream(self, request: Request, match: re.Match[str]) -> Answer:
        name = match["name"]
        viewers = 1000 + sum(map(ord, name))
        value = {
            "title": f"{name} plays",
            "game": "chess",
            "current_viewers": viewers,
            "live": True,
        }
        return Answer(200, value)

    def _ticker(self, request: Request, match: re.Match[str]) -> Answer:
        with self.lock:
            self.ticks += 1
            tick = self.ticks
        price = 64000 + (tick * 37) % 500
        now = datetime.datetime(
            2024, 5, 1, 12, tzinfo=datetime.UTC
        ) + datetime.timedelta(seconds=tick)
        return Answer(
            200,
            {
                "trade_id": 1000 + tick,
                "price": f"{price}.25",
                "size": "0.01",
                "time": now.isoformat().replace("+00:00", "Z"),
                "bid": f"{price}.00",
                "ask": f"{price}.50",
                "volume": "1234.5",
            },
        )

    # -- renaming, pages, files, redirects ----------------------------------------

    def _rabbit(self, request: Request, match: re.Match[str]) -> Answer:
        used = self.rabbits.get(match["id"], 0)
        return Answer(200, {"id": match["id"], "carrotsUsedIsThisNameTooLong": used})

    def _feed_rabbit(self, request: Request, match: re.Match[str]) -> Answer:
        body = request.json()
        if not isinstance(body, dict) or "carrotsUsedIsThisNameTooLong" not in body:
            return Answer(422, {"detail": "carrotsUsedIsThisNameTooLong is required"})
        self.rabbits[match["id"]] = int(body["carrotsUsedIsThisNameTooLong"])
        return self._rabbit(request, match)

    def _articles(self, request: Request, match: re.Match[str]) -> Answer:
        page = max(int(request.query.get("page", "1") or 1), 1)
        size, total = 3, 8
        start = (page - 1) * size
        items = [
            {"id": str(n), "title": f"Article {n}"}
            for n in range(start + 1, min(start + size, total) + 1)
        ]
        links = ['</articles/?page=1>; rel="first"']
        if start + size < total:
            links.append(f'</articles/?page={page + 1}>; rel="next"')
        return Answer(200, items, {"link": ", ".join(links)})

    def _feed(self, request: Request, match: re.Match[str]) -> Answer:
        cursor = request.query.get("cursor") or "e0"
        if not re.fullmatch(r"e\d+", cursor):
            return Answer(400, {"detail": f"bad cursor {cursor!r}"})
        start, size, total = int(cursor[1:]), 3, 7
        items = [
            {"id": f"e{n}", "kind": "tick"}
            for n in range(start, min(start + size, total))
        ]
        following = f"e{start + size}" if start + size < total else None
        return Answer(200, {"items": items, "next_cursor": following})

    def _catalog(self, request: Request, match: re.Match[str]) -> Answer:
        try:
            offset = int(request.query.get("offset", "0"))
            limit = int(request.query.get("limit", "3"))
        except ValueError:
            return Answer(400, {"detail": "offset and limit are numbers"})
        total = 8
        items = [
            {"id": str(n), "name": f"Product {n}"}
            for n in range(offset + 1, min(offset + limit, total) + 1)
        ]
        return Answer(200, {"total": total, "items": items})

    @staticmethod
    def file_body(file_id: str) -> bytes:
        """The bytes ``/files/<id>/download`` serves: 1 MiB."""
        return (f"%PDF-1.4 file {file_id}\n".encode() * 65536)[: 1 << 20]

    def _file(self, request: Request, match: re.Match[str]) -> Answer:
        file_id = match["id"]
        disposition = (
            f'attachment; filename="report-{file_id}.pdf"; '
            f"filename*=UTF-8''r%C3%A9sum%C3%A9-{file_id}.pdf"
        )
        headers: dict[str, str | list[str]] = {
            "content-type": "application/pdf",
            "content-disposition": disposition,
        }
        return Answer(200, raw=self.file_body(file_id), headers=headers)

    def _events(self, request: Request, match: re.Match[str]) -> Answer:
        events = [{"type": kind} for kind in ("signed_in", "posted", "signed_out")]
        lines = "".join(json.dumps(event) + "\n" for event in events)
        return Answer(
            200, raw=lines.encode(), headers={"content-type": "application/x-ndjson"}
        )

    QUOTES: tuple[tuple[str, int], ...] = (("BTC-USD", 64000), ("ETH-USD", 3100))
    #: How many quote events ``/quotes/live`` sends in all, and per connection.
    LIVE_QUOTES, LIVE_PER_CONNECTION = 6, 3

    def _quotes(self, request: Request, match: re.Match[str]) -> Answer:
        return Answer(
            200, [{"pair": pair, "price": f"{price}.00"} for pair, price in self.QUOTES]
        )

    def _live_quotes(self, request: Request, match: re.Match[str]) -> Answer:
        last = request.headers.get("last-event-id", "0")
        start = int(last) if last.isdigit() else 0
        if start >= self.LIVE_QUOTES:
            return Answer(204)  # the feed is over: do not reconnect
        chunks = [b"retry: 100\n\n"]
        end = min(start + self.LIVE_PER_CONNECTION, self.LIVE_QUOTES)
        for n in range(start + 1, end + 1):
            pair, base = self.QUOTES[n % len(self.QUOTES)]
            quote = {"pair": pair, "price": f"{base + n * 7}.25"}
            chunks.append(f"id: {n}\ndata: {json.dumps(quote)}\n\n".encode())
        return Answer.streamed(
            chunks, "text/event-stream", hang_up=end < self.LIVE_QUOTES
        )

    def _away(self, request: Request, match: re.Match[str]) -> Answer:
        return Answer(302, {}, {"location": f"{self.other_origin}/echo"})

    # -- caching and rate limits -------------------------------------------------

    def _rates(self, request: Request, match: re.Match[str]) -> Answer:
        base = match["base"]
        headers: dict[str, str | list[str]] = {
            "etag": f'"{base}-2024-05-01"',
            "cache-control": "max-age=2",
        }
        if request.headers.get("if-none-match") == headers["etag"]:
            with self.lock:
                self.served["rates 304"] += 1
            return Answer(304, raw=b"", headers=headers)
        with self.lock:
            self.served["rates full"] += 1
        rates = {"USD": "1.0842", "GBP": "0.8531", "JPY": "169.12"}
        return Answer(200, {"base": base, "rates": rates}, headers)

    QUOTA = 5

    def _quota(self, request: Request, match: re.Match[str]) -> Answer:
        now = time.monotonic()
        with self.lock:
            times = self.quota_times
            while times and times[0] <= now - 1.0:
                times.popleft()
            if len(times) >= self.QUOTA:
                self.served["quota 429"] += 1
                return Answer(
                    429, {"detail": "too many requests"}, {"retry-after": "1"}
                )
            times.append(now)
            self.served["quota 200"] += 1
            left = self.QUOTA - len(times)
        fields: dict[str, str | list[str]] = {
            "ratelimit": f'"default";r={left};t=1',
            "ratelimit-policy": f'"default";q={self.QUOTA};w=1',
        }
        return Answer(200, {"served": True}, fields)

    # -- lifecycle -----------------------------------------------------------------

    def _order(self, request: Request, match: re.Match[str]) -> Answer:
        message = b"\n".join(
            [
                request.method.encode(),
                request.path.encode(),
                request.headers.get("x-timestamp", "").encode(),
                request.body,
            ]
        )
        expected = hmac.new(SIGNING_KEY, message, hashlib.sha256).hexdigest()
        given = request.headers.get("x-signature", "")
        if not hmac.compare_digest(expected, given):
            return Answer(401, {"error": "bad signature"})
        return Answer(201, {"verified": True, "order": request.json()})

    def __enter__(self) -> DemoApi:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for server in (self.main, self.other):
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join()
