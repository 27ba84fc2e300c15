"""A scripted HTTP/1.1 server in a process of its own, that keeps the exact
bytes of every request and misbehaves on cue.

Its own process, so that what it does (closing a connection, holding one)
happens when a real server would do it, not when the test's interpreter
lets a thread run. Each request's bytes (head and body, chunk framing and
all) go back to the test through a pipe (:meth:`ScriptedServer.requests`),
written before the request is answered: once a call has its answer, what
it sent is there to read.
The path says what the answer is:

| path | answer |
|---|---|
| ``/json`` | 200, ``{"route": "json"}`` |
| ``/status/<code>`` | that status; a JSON body but for 204 and 304 |
| ``/redirect/<code>?to=<url or path>`` | that redirect |
| ``/etag`` | 200 with ``ETag: "v1"``; 304 to ``If-None-Match: "v1"`` |
| ``/fresh`` | 200, fresh for a minute (``Cache-Control: max-age=60``) |
| ``/gzip``, ``/br``, ``/zstd`` | a JSON body in that coding |
| ``/chunked`` | a JSON body in three chunks |
| ``/big-header`` | 200 with a 9 KB header line |
| ``/many-headers`` | 200 with 150 header fields |
| ``/close`` | 200, then the connection closed without a word |
| ``/huge-head?kib=<n>`` | 200 with a header block of ``n`` KiB, in 1 KiB fields |
| ``/secret-line`` | a header line of 200 KiB that ends in ``SECRET-COOKIE`` |
| ``/silent`` | nothing, ever (the connection held) |
| ``/drop`` | the request read, then the connection closed without a word |
| ``/drop-second`` | 200 to a connection's first request; its second is read, then the connection closed without a word |
| ``/stall`` | the head read, the body never: the connection held |

Every other path: 200, ``{"route": "other"}``. A ``HEAD`` gets the head of
what a ``GET`` would. Answers keep the connection
open unless the route says otherwise. Written for the tests, not as a
general server: it reads ``Content-Length`` and chunked bodies, nothing else.
"""

from __future__ import annotations

import gzip
import io
import json
import multiprocessing
import socket
import threading
import time
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

from tests.waiting import HANG

#: How long ``/silent`` and ``/stall`` hold a connection.
HOLD = 20.0

_JSON = b"content-type: application/json\r\n"


def _answer(status: int, body: bytes = b"", extra: bytes = b"") -> bytes:
    reason = {200: b"OK", 204: b"No Content", 304: b"Not Modified"}.get(status, b"X")
    head = b"HTTP/1.1 %d %s\r\n" % (status, reason) + extra
    if status in (204, 304):
        return head + b"\r\n"
    return head + b"content-length: %d\r\n\r\n" % len(body) + body


def _json(status: int, value: Any, extra: bytes = b"") -> bytes:
    return _answer(status, json.dumps(value).encode(), _JSON + extra)


def _encoded(coding: str) -> bytes:
    body = json.dumps({"route": coding}).encode()
    if coding == "gzip":
        data = gzip.compress(body)
    elif coding == "br":
        import brotli

        data = brotli.compress(body)
    else:
        import zstandard

        data = zstandard.ZstdCompressor().compress(body)
    return _answer(200, data, _JSON + b"content-encoding: %s\r\n" % coding.encode())


def _respond(
    method: str, target: str, fields: dict[bytes, bytes]
) -> tuple[bytes, bool]:
    """The bytes to send for a request, and whether to keep the connection."""
    parts = urlsplit(target)
    path, query = parts.path, parse_qs(parts.query)
    if path == "/json":
        return _json(200, {"route": "json"}), True
    if path.startswith("/status/"):
        status = int(path.rsplit("/", 1)[1])
        if status in (204, 304):
            return _answer(status), True
        return _json(status, {"status": status}), True
    if path.startswith("/redirect/"):
        status = int(path.rsplit("/", 1)[1])
        to = query["to"][0].encode()
        return _answer(status, b"", b"location: " + to + b"\r\n"), True
    if path == "/etag":
        if fields.get(b"if-none-match") == b'"v1"':
            return _answer(304, b"", b'etag: "v1"\r\n'), True
        extra = b'etag: "v1"\r\ncache-control: max-age=0\r\n'
        return _json(200, {"route": "etag"}, extra), True
    if path == "/fresh":
        return _json(200, {"route": "fresh"}, b"cache-control: max-age=60\r\n"), True
    if path in ("/gzip", "/br", "/zstd"):
        return _encoded(path[1:]), True
    if path == "/chunked":
        body = json.dumps({"route": "chunked"}).encode()
        pieces = [body[:5], body[5:11], body[11:]]
        chunked = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"
        head = b"HTTP/1.1 200 OK\r\n" + _JSON + b"transfer-encoding: chunked\r\n\r\n"
        return head + chunked, True
    if path == "/big-header":
        return _json(200, {"route": "big"}, b"x-big: " + b"a" * 9000 + b"\r\n"), True
    if path == "/many-headers":
        extra = b"".join(b"x-h%d: %d\r\n" % (n, n) for n in range(150))
        return _json(200, {"route": "many"}, extra), True
    if path == "/close":
        return _json(200, {"route": "close"}), False
    if path == "/huge-head":
        size = int(query["kib"][0])
        extra = b"".join(b"x-h%d: %s\r\n" % (n, b"v" * 1000) for n in range(size))
        return _json(200, {"route": "huge"}, extra), True
    if path == "/secret-line":
        line = b"set-cookie: session=" + b"s" * 200_000 + b"SECRET-COOKIE\r\n"
        return _json(200, {"route": "secret"}, line), True
    return _json(200, {"route": "other"}), True


def _read_head(reader: io.BufferedReader) -> bytes | None:
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        line = reader.readline(65536)
        if not line:
            return None
        head += line
    return head


def _fields(head: bytes) -> dict[bytes, bytes]:
    fields: dict[bytes, bytes] = {}
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name:
            fields[name.strip().lower()] = value.strip()
    return fields


def _read_body(reader: io.BufferedReader, fields: dict[bytes, bytes]) -> bytes:
    if fields.get(b"transfer-encoding", b"").lower() == b"chunked":
        body = b""
        while True:
            size_line = reader.readline(65536)
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            body += size_line + reader.read(size + 2)
            if size == 0:
                return body
    length = int(fields.get(b"content-length", b"0") or b"0")
    body = reader.read(length) if length else b""
    return bytes(body)


def _handle(connection: socket.socket, records: Any) -> None:
    served = 0  # requests of this connection so far
    with connection, connection.makefile("rb") as reader:
        while True:
            head = _read_head(reader)
            if head is None:
                return
            served += 1
            method, target, _ = (
                head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
            )
            fields = _fields(head)
            path = urlsplit(target).path
            if path == "/stall":
                records.put(head)
                time.sleep(HOLD)
                return
            body = _read_body(reader, fields)
            records.put(head + body)
            if path == "/silent":
                time.sleep(HOLD)
                return
            if path == "/drop" or (path == "/drop-second" and served > 1):
                return
            answer, keep = _respond(method, target, fields)
            if method == "HEAD":  # the head alone, as it would be for a GET
                answer = answer.partition(b"\r\n\r\n")[0] + b"\r\n\r\n"
            if keep:
                connection.sendall(answer)
                continue
            # The answer and the close in one segment (TCP_CORK holds the
            # data until the FIN joins it): the client has both at once, as
            # from a server that closes before the client could send again.
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
            connection.sendall(answer)
            connection.shutdown(socket.SHUT_WR)
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 0)
            return


def _serve(port: Any, records: Any) -> None:
    listener = socket.socket()
    # a small receive window (set before listening, so connections take
    # it), so that a body the server does not read stalls its sender soon
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port.put(listener.getsockname()[1])
    while True:
        connection, _ = listener.accept()
        threading.Thread(
            target=_handle, args=(connection, records), daemon=True
        ).start()


class ScriptedServer:
    """The server, in a process of its own (see the module)."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        port: Any = context.Queue()
        self._records: Any = context.SimpleQueue()  # (put writes at once)
        self._process = context.Process(
            target=_serve, args=(port, self._records), daemon=True
        )
        self._process.start()
        self.port = int(port.get(timeout=30))
        self.origin = f"http://127.0.0.1:{self.port}"

    def requests(self) -> list[bytes]:
        """The bytes of each request received since the last call."""
        found: list[bytes] = []
        while not self._records.empty():
            found.append(self._records.get())
        return found

    def close(self) -> None:
        self._process.terminate()
        self._process.join(HANG)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
