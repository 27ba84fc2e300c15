"""A server on 127.0.0.1 that counts what it is asked, for the tests where
many processes share one API (issue 16): HTTP caching, rate limits, one
token refresh.

Routes:

- ``/resource/<name>?max_age=<s>[&cc=<extra Cache-Control>]``: a JSON body
  naming the resource, with an ``ETag`` and ``Cache-Control: max-age``; a
  matching ``If-None-Match`` gets a 304 with no body. Counted per name as
  ``full`` (a 200 with its body) and ``not_modified`` (a 304); with
  ``no_date=1``, neither has a ``Date`` header.
- ``/whoami``: 200 ``{"user": <Access-Token>}``, ``Cache-Control:
  private, max-age=60`` (and ``Vary`` as ``?vary=`` says), for the identity
  rule through the cache.
- ``/token`` (POST): a refresh: counted, answers ``{"token": "fresh"}``
  after a short pause (so refreshes that overlap would be seen).
- ``/me``: 401 unless ``Access-Token: fresh``; counted.
- ``/limited``: 200, its arrival time (``time.monotonic()``) recorded.
- ``/busy?after=<s>``: 429 with ``Retry-After: <s>``, counted.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from urllib.parse import parse_qsl, urlsplit

from recipes.demo_api import QuietHandler, QuietServer, read_body
from tests.servers import ServedInThread

__all__ = ["CountingServer", "most_in_any_window"]


def most_in_any_window(times: list[float], seconds: float) -> int:
    """The most of ``times`` that fall within any span of ``seconds``."""
    ordered = sorted(times)
    most, start = 0, 0
    for end, at in enumerate(ordered):
        while at - ordered[start] >= seconds:
            start += 1
        most = max(most, end - start + 1)
    return most


class _Handler(QuietHandler):
    server: _Server

    def _answer(self) -> None:
        read_body(self)
        owner = self.server.owner
        split = urlsplit(self.path)
        query = dict(parse_qsl(split.query, keep_blank_values=True))
        self.no_date = bool(query.get("no_date"))
        parts = split.path.strip("/").split("/")
        route = parts[0]
        headers: dict[str, str | list[str]]
        if route == "resource":
            name = parts[1]
            etag = f'"{name}-v1"'
            cache_control = f"max-age={query.get('max_age', '0')}"
            if query.get("cc"):
                cache_control += f", {query['cc']}"
            headers = {"etag": etag, "cache-control": cache_control}
            if self.headers.get("if-none-match") == etag:
                owner.count(f"{name}:not_modified")
                self.answer(304, b"", headers)
                return
            owner.count(f"{name}:full")
            body = json.dumps({"name": name, "padding": "x" * 512}).encode()
            self._json(200, body, headers)
        elif route == "whoami":
            user = self.headers.get("access-token", "")
            owner.count(f"whoami:{user}")
            headers = {"cache-control": query.get("cc", "private, max-age=60")}
            if query.get("vary"):
                headers["vary"] = query["vary"]
            self._json(200, json.dumps({"user": user}).encode(), headers)
        elif route == "token":
            owner.count("token")
            time.sleep(0.2)
            self._json(200, b'{"token": "fresh"}')
        elif route == "me":
            owner.count("me")
            if self.headers.get("access-token") == "fresh":
                self._json(200, b'{"ok": true}')
            else:
                self._json(401, b'{"detail": "expired"}')
        elif route == "limited":
            with owner.lock:
                owner.arrivals.append(time.monotonic())
            self._json(200, b"{}")
        elif route == "busy":
            owner.count("busy")
            self._json(429, b"{}", {"retry-after": query.get("after", "1")})
        else:
            self._json(404, b"{}")

    def _json(
        self,
        status: int,
        body: bytes,
        headers: dict[str, str | list[str]] | None = None,
    ) -> None:
        self.answer(
            status, body, {"content-type": "application/json", **(headers or {})}
        )

    do_GET = do_POST = do_HEAD = _answer

    #: Whether this answer leaves out ``Date`` (``no_date=1``), as some
    #: servers and proxies do.
    no_date = False

    def send_header(self, keyword: str, value: str) -> None:
        if not (self.no_date and keyword.lower() == "date"):
            super().send_header(keyword, value)


class _Server(QuietServer):
    owner: CountingServer


class CountingServer(ServedInThread):
    """A server on a free port of 127.0.0.1 that counts each route."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: Counter[str] = Counter()
        self.arrivals: list[float] = []
        server = _Server(("127.0.0.1", 0), _Handler)
        server.owner = self
        super().__init__(server)

    def count(self, what: str) -> None:
        with self.lock:
            self.counts[what] += 1

    def most_in_any_window(self, seconds: float) -> int:
        """The most requests to ``/limited`` that arrived within any span of
        ``seconds``."""
        return most_in_any_window(self.arrivals, seconds)
