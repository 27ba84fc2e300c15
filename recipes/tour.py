"""What the tour gives each recipe: clients that log the wire, and a voice.

Every recipe module has ``TITLE`` (what it shows) and
``run(base_url, tour)``, which makes its calls with ``tour.client()`` (or
``tour.async_client()``) so the tour can show each request as it leaves,
credentials redacted, and returns the typed result to show.
"""

from __future__ import annotations

from typing import Any, TextIO

import httpx

__all__ = ["Tour", "Unavailable", "check_redis"]

_REDACTED = ("access-token", "authorization", "cookie", "x-csrftoken", "x-signature")
_SHOWN = (
    "content-type",
    "last-event-id",
    "idempotency-key",
    "stripe-version",
    "x-github-api-version",
    "if-none-match",
    *_REDACTED,
)


class Unavailable(Exception):
    """A service a recipe was asked to use is not there (a Redis that does
    not answer): the message is one line saying what is needed. The tour
    skips the recipe; run alone, the recipe served nothing and the run
    exits non-zero."""


def check_redis(url: str, variable: str, needed_for: str) -> None:
    """An :class:`Unavailable` naming the Redis at ``url`` (its address, no
    password) if it does not answer a PING within 2 s, or if redis-py is not
    installed; ``variable`` is where the URL came from, ``needed_for`` what
    to do without it."""
    from restwire import MissingExtra
    from restwire.extension import redis_address, require

    try:
        redis = require("redis", f"a Redis ({variable})")
    except MissingExtra as missing:
        raise Unavailable(f"{missing}; or unset {variable} {needed_for}") from None
    client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as error:
        raise Unavailable(
            f"needs the Redis at {redis_address(client)} ({variable}), which "
            f"does not answer ({type(error).__name__}): start it "
            f"(redis-server), or unset {variable} {needed_for}"
        ) from None
    finally:
        client.close()


class Tour:
    """Logs each request a recipe's clients send; shows progress and notes."""

    def __init__(self, out: TextIO | None = None, fast: bool = False) -> None:
        self.lines: list[str] = []
        self.out = out
        #: True in tests: recipes shorten their waits (polling every 2 s).
        self.fast = fast
        self._terminal = out is not None and out.isatty()
        self._last_progress = -1

    def record(self, request: httpx.Request) -> None:
        shown = [
            f"{name}: {'[redacted]' if name in _REDACTED else request.headers[name]}"
            for name in _SHOWN
            if name in request.headers
        ]
        # host, and port only when not the scheme's default; never userinfo
        where = (request.url.netloc + request.url.raw_path).decode("ascii")
        line = f"{request.method} {where}  " + "  ".join(shown)
        self.lines.append(line.rstrip())
        self.say(f"> {line.rstrip()}")

    def say(self, text: str) -> None:
        """A line of the recipe's account."""
        if self.out is not None:
            if self._last_progress >= 0 and self._terminal:
                self.out.write("\n")
            self._last_progress = -1
            self.out.write(f"  {text}\n")
            self.out.flush()

    def progress(self, done: int, total: int | None) -> None:
        """Progress of long work: a bar in a terminal, a few lines when piped."""
        if self.out is None:
            return
        if total:
            percent = min(100, done * 100 // total)
            if self._terminal:
                bar = "#" * (percent // 4)
                self.out.write(
                    f"\r  [{bar:<25}] {percent:3d}%  {done:,} of {total:,} bytes"
                )
                self.out.flush()
                self._last_progress = percent
            elif (
                percent // 25 > self._last_progress // 25
                or percent == 100 > self._last_progress
            ):
                self._last_progress = percent
                self.out.write(f"  ... {percent}% ({done:,} of {total:,} bytes)\n")
        elif self._terminal:
            self.out.write(f"\r  {done:,} bytes")
            self._last_progress = 0

    def client(self, **options: Any) -> httpx.Client:
        """An ``httpx.Client`` whose requests the tour shows, as they leave:
        its transport records each one. (An event hook would too, but a
        controller cannot see what a hook does to a request, so it would
        share nothing between calls: see "Sharing a controller".)"""
        return httpx.Client(transport=_Recording(self), **options)

    def async_client(self, **options: Any) -> httpx.AsyncClient:
        """An ``httpx.AsyncClient`` whose requests the tour shows."""
        return httpx.AsyncClient(transport=_AsyncRecording(self), **options)


class _Recording(httpx.BaseTransport):
    """httpx's own transport, telling the tour of each request it sends."""

    def __init__(self, tour: Tour) -> None:
        self.tour = tour
        self.inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.tour.record(request)
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


class _AsyncRecording(httpx.AsyncBaseTransport):
    def __init__(self, tour: Tour) -> None:
        self.tour = tour
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.tour.record(request)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()
