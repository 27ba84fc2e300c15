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
- ``/quota/<style>?limit=<n>&window=<s>[&reset=<text>]``: a quota of ``n``
  calls per caller (its ``Authorization``) in a fixed window of ``s``
  seconds from the caller's first call, announced as a provider does
  (``style``: ``openai``, ``x-ratelimit-remaining-requests`` and
  ``x-ratelimit-reset-requests`` in milliseconds, ``<ms>ms``; ``github``,
  ``x-ratelimit-remaining`` and ``x-ratelimit-reset`` in epoch seconds;
  ``ietf``, ``RateLimit: "default";r=<left>;t=<s>`` and
  ``RateLimit-Policy: "default";q=<n>;w=<s>``), ``reset`` replacing the
  reset field's text. A call past the quota gets a 429 with
  ``Retry-After``; counted per caller as ``quota:<caller>:<status>``.
"""

from __future__ import annotations

import json
import math
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
        elif route == "host":  # a virtual host per tenant: answers with its Host
            host = self.headers.get("host", "")
            owner.count(f"host:{host}")
            headers = {"cache-control": query.get("cc", "private, max-age=60")}
            self._json(200, json.dumps({"host": host}).encode(), headers)
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
        elif route == "quota":
            status, headers = owner.quota(
                parts[1], self.headers.get("authorization", ""), query
            )
            self._json(status, b"{}", headers)
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
        #: Per caller of ``/quota``: (its window's start, calls in it).
        self.windows: dict[str, tuple[float, int]] = {}
        server = _Server(("127.0.0.1", 0), _Handler)
        server.owner = self
        super().__init__(server)

    def count(self, what: str) -> None:
        with self.lock:
            self.counts[what] += 1

    def quota(
        self, style: str, caller: str, query: dict[str, str]
    ) -> tuple[int, dict[str, str | list[str]]]:
        """The status and the fields of a call to ``/quota/<style>``."""
        limit, window = int(query.get("limit", "2")), float(query.get("window", "1"))
        now = time.time()
        with self.lock:
            start, used = self.windows.get(caller, (now, 0))
            if now >= start + window:
                start, used = now, 0
            used += 1
            self.windows[caller] = (start, used)
        status = 200 if used <= limit else 429
        self.count(f"quota:{caller}:{status}")
        left, ends = max(0, limit - used), start + window
        headers: dict[str, str | list[str]]
        if style == "openai":
            reset = f"{math.ceil((ends - now) * 1000)}ms"
            headers = {"x-ratelimit-remaining-requests": str(left)}
            headers["x-ratelimit-reset-requests"] = query.get("reset", reset)
        elif style == "github":
            headers = {"x-ratelimit-remaining": str(left)}
            headers["x-ratelimit-reset"] = query.get("reset", str(math.ceil(ends)))
        else:
            seconds = query.get("reset", str(math.ceil(ends - now)))
            headers = {
                "ratelimit": f'"default";r={left};t={seconds}',
                "ratelimit-policy": f'"default";q={limit};w={math.ceil(window)}',
            }
        if status == 429:
            headers["retry-after"] = str(math.ceil(ends - now))
        return status, headers

    def most_in_any_window(self, seconds: float) -> int:
        """The most requests to ``/limited`` that arrived within any span of
        ``seconds``."""
        return most_in_any_window(self.arrivals, seconds)
