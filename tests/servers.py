"""Real HTTP servers on 127.0.0.1 for tests that must cross a socket.

Each :class:`RecordingServer` is one origin (its own port). It records every
request it receives (method, path, headers, body) and answers a few routes
that tests combine:

- ``/echo``: 200, JSON of what was received;
- ``/redirect/<status>?to=<url>``: a redirect with that status to ``to``;
- ``/loop``: a 302 to itself;
- ``/set-cookie?name=value``: 200, ``Set-Cookie: name=value; Path=/``;
- ``/status/<code>[?body=<text>&type=<content-type>&<header>=<value>...]``:
  that status, a JSON body ``{"status": code}`` (or ``body``, of ``type``);
  every other query parameter is sent back as a response header;
- ``/steps/<name>?do=<step>,<step>,...``: the n-th request to ``name``
  takes the n-th step (the last one repeats): a status code answers with
  that status and ``{"status": code, "sent": n}``; ``drop`` reads the
  request and closes the connection without a word;
- ``/json?body=<text>&type=<content-type>``: 200 with that body and type;
- ``/slow?seconds=<s>``: waits, then 200 (for timeouts);
- ``/pages?page=<n>&last=<m>[&next=<url>][&cycle=<c>]``: a JSON list, and a
  ``Link`` to the next page while ``n < m`` (``next`` overrides its target;
  with ``cycle``, page n links to page n % c + 1, for ever);
- ``/file?size=<n>[&cd=<Content-Disposition>]``: ``n`` bytes;
- ``/broken?size=<n>``: promises ``n`` bytes, sends half, hangs up;
- ``/gzip``: a gzip-encoded JSON body;
- ``/bomb?coding=<gzip|deflate|br|zstd>&size=<n>``: ``n`` zero bytes,
  encoded (a few hundred bytes on the wire per megabyte decoded);
- ``/redirect-body?to=<url>&size=<n|endless>``: a 302 whose own body is
  ``n`` bytes (declared), or endless (chunked), streamed;
- ``/raw?case=<stall|short|huge-header|bad-status|garbage|declared-huge>``:
  responses no well-behaved server sends;
- ``/sse/<name>?do=<step>,...&events=<n>&then=<end|drop|hold>``: an event
  stream (chunked). The n-th request to ``name`` takes the n-th step (the
  last repeats): a status code, ``drop``, ``json`` (a 200 of JSON), or
  ``sse``: ``retry: <retry>`` if given, then ``events`` events with IDs
  following the request's ``Last-Event-ID`` (``event: price``, data
  ``{"id": <entity>, "price": <its ID>}``), then ``big`` bytes of data in
  one event (``noline``: with no newline at all), then ``end`` (the last
  chunk), ``drop`` (hang up mid-body), ``hold`` (a comment every 20 ms
  until the client goes away: ``hung_up[name]`` is set then) or
  ``silent`` (nothing, until the client goes away: the same).

A :class:`WireServer` is lower still: it keeps the exact bytes of every
request, and answers with whatever bytes a test writes to the socket.
"""

from __future__ import annotations

import functools
import gzip
import json
import select
import socket
import threading
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Self, cast
from urllib.parse import parse_qsl, urlsplit

from recipes.demo_api import QuietHandler, QuietServer, read_body


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes = b""
    cookies: str | None = field(default=None)


class _Handler(QuietHandler):
    server: _Server

    def _answer(self) -> None:
        body = read_body(self)
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.server.owner.requests.append(
            Received(self.command, self.path, headers, body, headers.get("cookie"))
        )
        split = urlsplit(self.path)
        query = dict(parse_qsl(split.query, keep_blank_values=True))
        parts = split.path.strip("/").split("/")
        if parts[0] == "loop":
            self._send(302, b"", {"location": "/loop"})
        elif parts[0] == "redirect":
            self._send(int(parts[1]), b"moved", {"location": query["to"]})
        elif parts[0] == "set-cookie":
            cookies = [f"{k}={v}; Path=/" for k, v in query.items()]
            self._send(200, b'{"ok": true}', {"set-cookie": cookies})
        elif parts[0] == "status":
            code = int(parts[1])
            text = query.pop("body", json.dumps({"status": code}))
            headers = {"content-type": query.pop("type", "application/json")}
            headers.update(query)  # the rest: response headers
            self._send(code, text.encode(), headers)
        elif parts[0] == "steps":
            self._step(parts[1], query.get("do", "200").split(","))
        elif parts[0] == "json":
            self._send(
                200,
                query.get("body", "").encode(),
                {"content-type": query.get("type", "")},
            )
        elif parts[0] == "pages":
            page, last = int(query.get("page", "1")), int(query.get("last", "3"))
            items = [{"id": f"{page}-{n}", "title": f"item {n}"} for n in (1, 2)]
            headers = {}
            if "cycle" in query:  # page n links to n % cycle + 1: 1 -> 2 -> 1
                cycle = int(query["cycle"])
                following = f"/pages?cycle={cycle}&last={last}&page={page % cycle + 1}"
                headers["link"] = f'<{following}>; rel="next"'
            elif page < last:
                following = query.get("next") or f"/pages?page={page + 1}&last={last}"
                headers["link"] = f'<{following}>; rel="next"'
            self._send(200, json.dumps(items).encode(), headers)
        elif parts[0] == "file":
            size = int(query.get("size", "0"))
            headers = {"content-type": "application/octet-stream"}
            if "cd" in query:
                headers["content-disposition"] = query["cd"]
            self._send(200, bytes(index % 251 for index in range(size)), headers)
        elif parts[0] == "broken":
            size = int(query.get("size", "1000"))
            self.send_response(200)
            self.send_header("content-length", str(size))
            self.send_header("content-disposition", 'attachment; filename="broken.bin"')
            self.end_headers()
            self.wfile.write(b"x" * (size // 2))
            self.wfile.flush()
            self.close_connection = True
        elif parts[0] == "gzip":
            packed = gzip.compress(b'{"compressed": true}')
            self._send(200, packed, {"content-encoding": "gzip"})
        elif parts[0] == "bomb":
            coding = query.get("coding", "gzip")
            packed = bomb(coding, int(query.get("size", "0")))
            self._send(200, packed, {"content-encoding": coding})
        elif parts[0] == "redirect-body":
            self._redirect_body(query["to"], query.get("size", "endless"))
        elif parts[0] == "raw":
            self._raw(query.get("case", ""))
        elif parts[0] == "sse":
            self._sse(parts[1], query)
        elif parts[0] == "slow":
            time.sleep(float(query.get("seconds", "1")))
            self._send(200, b"{}")
        else:
            echo = {"method": self.command, "path": self.path, "headers": headers}
            echo["body"] = body.decode("utf-8", "replace")
            self._send(200, json.dumps(echo).encode())

    def _step(self, name: str, steps: list[str]) -> None:
        """The next of ``steps`` for the requests to ``name``."""
        sent = self.server.owner.steps_taken.get(name, 0) + 1
        self.server.owner.steps_taken[name] = sent
        step = steps[min(sent, len(steps)) - 1]
        if step == "drop":  # no status line, nothing: the socket closes
            self.close_connection = True
            return
        code = int(step)
        self._send(code, json.dumps({"status": code, "sent": sent}).encode())

    def _sse(self, name: str, query: dict[str, str]) -> None:
        """An event stream, as the module says."""
        owner = self.server.owner
        sent = owner.steps_taken.get(name, 0) + 1
        owner.steps_taken[name] = sent
        steps = query.get("do", "sse").split(",")
        step = steps[min(sent, len(steps)) - 1]
        if step == "drop":
            self.close_connection = True
            return
        if step == "json":
            self._send(200, b'{"not": "a stream"}')
            return
        if step != "sse":
            self._send(int(step), json.dumps({"status": int(step)}).encode())
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        last = int(self.headers.get("last-event-id") or 0)
        entity = query.get("entity", "p1")
        blocks = []
        if "retry" in query:
            blocks.append(f"retry: {query['retry']}\n\n".encode())
        for n in range(last + 1, last + 1 + int(query.get("events", "2"))):
            data = json.dumps({"id": entity, "price": n})
            blocks.append(f"id: {n}\nevent: price\ndata: {data}\n\n".encode())
        if "big" in query:
            blocks.append(b"data: " + b"x" * int(query["big"]) + b"\n\n")
        if "noline" in query:
            blocks.append(b"data: " + b"x" * int(query["noline"]))
        try:
            for block in blocks:
                self._chunk(block)
            then = query.get("then", "end")
            if then == "end":
                self.wfile.write(b"0\r\n\r\n")
            elif then == "hold":
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    self._chunk(b": ping\n")
                    time.sleep(0.02)
            elif then == "silent" and self._wait_for_hang_up(10):
                raise ConnectionResetError
        except OSError:
            owner.hung_up.setdefault(name, threading.Event()).set()
        self.close_connection = True

    def _wait_for_hang_up(self, seconds: float) -> bool:
        """Send nothing, and watch the socket: whether the client hung up
        within ``seconds``."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            readable, _, _ = select.select([self.connection], [], [], 0.02)
            if readable and not self.connection.recv(1, socket.MSG_PEEK):
                return True
        return False

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _redirect_body(self, to: str, size: str) -> None:
        """A 302 with a body nobody needs: declared and large, or endless."""
        self.send_response(302)
        self.send_header("location", to)
        block = b"\0" * 65536
        if size == "endless":
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            try:
                while True:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
            except OSError:
                return  # the client hung up, as it should
        self.send_header("content-length", size)
        self.end_headers()
        left = int(size)
        try:
            while left > 0:
                self.wfile.write(block[: min(left, len(block))])
                left -= len(block)
        except OSError:
            return

    def _raw(self, case: str) -> None:
        """Responses no well-behaved server sends, written byte by byte."""
        head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
        if case == "stall":  # half the body, then silence
            self.wfile.write(head + b'content-length: 20\r\n\r\n{"a": ')
            self.wfile.flush()
            time.sleep(2)
        elif case == "short":  # promises more than it sends, then hangs up
            self.wfile.write(head + b'content-length: 50\r\n\r\n{"a": 1}')
        elif case == "huge-header":
            self.wfile.write(head + b"x-big: " + b"a" * 200_000 + b"\r\n\r\n")
        elif case == "bad-status":
            self.wfile.write(b"HTTP/1.1 TWO HUNDRED\r\n\r\n")
        elif case == "garbage":
            self.wfile.write(b"\x00\x01\x02 not http at all\r\n\r\n")
        elif case == "declared-huge":  # says 10 GB, sends a little
            self.wfile.write(head + b"content-length: 10000000000\r\n\r\n{}")
        self.wfile.flush()
        self.close_connection = True

    def _send(
        self,
        status: int,
        body: bytes,
        headers: Mapping[str, str | list[str]] | None = None,
    ) -> None:
        self.answer(
            status, body, {"content-type": "application/json", **(headers or {})}
        )

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _answer


@functools.lru_cache(maxsize=16)
def bomb(coding: str, size: int) -> bytes:
    """``size`` zero bytes encoded with ``coding``, built in constant memory."""
    zeros = bytes(1 << 20)
    if coding in ("gzip", "deflate"):
        # run-length matching only: as small as level 9's search on zeros,
        # and 200 MiB in a third of its time (0.4 s, not 1.1 s)
        packer = zlib.compressobj(
            9, zlib.DEFLATED, 31 if coding == "gzip" else 15, 9, zlib.Z_RLE
        )
        out = [
            packer.compress(zeros[: min(size - done, len(zeros))])
            for done in range(0, size, len(zeros))
        ]
        return b"".join(out) + packer.flush()
    if coding == "br":
        import brotli

        compressor = brotli.Compressor(quality=5)
        out = [
            compressor.process(zeros[: min(size - done, len(zeros))])
            for done in range(0, size, len(zeros))
        ]
        return b"".join(out) + cast(bytes, compressor.finish())
    if coding == "zstd":
        import zstandard

        writer = zstandard.ZstdCompressor(level=3).compressobj()
        out = [
            writer.compress(zeros[: min(size - done, len(zeros))])
            for done in range(0, size, len(zeros))
        ]
        return b"".join(out) + writer.flush()
    raise ValueError(f"no bomb for coding {coding!r}")


class _Server(QuietServer):
    owner: RecordingServer


class ServedInThread:
    """A server already bound (on a free port), served by a thread of the
    test process until :meth:`close`; ``url(path)`` gives full URLs."""

    def __init__(self, server: QuietServer, host: str = "127.0.0.1") -> None:
        self._server = server
        self.host = host
        self.port = int(server.server_address[1])
        self.origin = f"http://{host}:{self.port}"
        self._thread = threading.Thread(
            target=server.serve_forever, args=(0.05,), daemon=True
        )
        self._thread.start()

    def url(self, path: str) -> str:
        return self.origin + path

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RecordingServer(ServedInThread):
    """A server on a free port of 127.0.0.1 that records what it receives."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.requests: list[Received] = []
        #: ``/steps/<name>``: how many requests each name has had.
        self.steps_taken: dict[str, int] = {}
        #: ``/sse/<name>?then=hold``: set when the client went away.
        self.hung_up: dict[str, threading.Event] = {}
        server = _Server((host, 0), _Handler)
        server.owner = self
        super().__init__(server, host)


def ok_answer(connection: socket.socket) -> None:
    """A 200 of ``ok``, the connection kept for the next request."""
    connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")


class WireServer:
    """A server on a free port of 127.0.0.1 that keeps the exact bytes of
    every request it receives (``wire``: head and body, chunk framing and
    all) and answers each with ``respond(connection)``, which writes what
    it likes to the socket (by default :func:`ok_answer`); then it reads
    the next request on the same connection, until the client hangs up."""

    def __init__(self, respond: Callable[[socket.socket], None] = ok_answer) -> None:
        self.wire: list[bytes] = []
        self.respond = respond
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self.port = int(self._listener.getsockname()[1])
        self.origin = f"http://127.0.0.1:{self.port}"
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        return self.origin + path

    def _serve(self) -> None:
        while not self._closed.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(
                target=self._handle, args=(connection,), daemon=True
            ).start()

    def _handle(self, connection: socket.socket) -> None:
        connection.settimeout(None)
        with connection, connection.makefile("rb") as reader:
            try:
                while self._one(connection, reader):
                    pass
            except OSError:
                return

    def _one(self, connection: socket.socket, reader: Any) -> bool:
        """Read one request and answer it; ``False`` once the client is gone."""
        head = reader.readline()
        while head and not head.endswith(b"\r\n\r\n"):
            line = reader.readline()
            if not line:
                return False
            head += line
        if not head:
            return False
        fields = [line.lower() for line in head.split(b"\r\n")]
        body = b""
        if b"transfer-encoding: chunked" in fields:
            while True:
                size_line = reader.readline()
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
                body += size_line + reader.read(size + 2)
                if size == 0:
                    break
        else:
            for line in fields:
                if line.startswith(b"content-length:"):
                    body = reader.read(int(line.partition(b":")[2]))
        self.wire.append(head + body)
        self.respond(connection)
        return True

    def close(self) -> None:
        self._closed.set()
        self._listener.close()
        self._thread.join()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
