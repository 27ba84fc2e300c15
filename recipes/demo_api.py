"""The embedded demo API: the seed's remote API, served on 127.0.0.1.

A real HTTP server (the standard library's threading server, HTTP/1.1 with
keep-alive) on a free port, plus a second server on another port that plays
"another origin" for redirect demos. The tour and the integration tests run
against it; nothing here is imported by ``pipeline`` or ``middlewares``.

Routes (seed sections 4 and 5):

| route                 | answer                                                      |
|-----------------------|-------------------------------------------------------------|
| ``POST /login``       | sets a ``sessionid`` cookie; JSON ``{"accessToken": ...}``   |
| ``GET /my/<id>``      | ``{"id", "title"}`` for a caller with the session cookie or |
|                       | the ``Access-Token``; 401 otherwise                         |
| ``GET /posts/``       | every Post, a JSON list                                     |
| ``GET /posts/<id>``   | a Post ``{"id", "title"}``                                  |
| ``POST /posts/``      | creates a Post from a JSON body; 201 with the Post          |
| ``DELETE /posts/<id>``| deletes it; 204                                             |
| ``GET /streams/<name>``| a Stream in snake_case, without its username               |
| ``GET /articles/``    | 8 articles, 3 a page, with ``Link: <...>; rel="next"``      |
| ``GET /files/<id>/download`` | 1 MiB, ``Content-Disposition`` with ``filename*``     |
| ``GET /away``         | a 302 to the other origin's ``/echo``                        |
| other origin ``/echo``| JSON: which credentials arrived                             |
"""

from __future__ import annotations

import json
import secrets
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

__all__ = ["DemoApi", "read_body"]

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


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    api: DemoApi

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (a timeout, a reset) is not a server error."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        return

    def _body(self) -> Any:
        raw = read_body(self)
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return None

    def _send(
        self, status: int, value: Any, headers: dict[str, str] | None = None
    ) -> None:
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        for name, header in (headers or {}).items():
            self.send_header(name, header)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _authenticated(self) -> bool:
        api = self.server.api
        token = self.headers.get("access-token")
        cookie = self.headers.get("cookie") or ""
        session = f"sessionid={api.session_id}"
        return token == api.access_token or session in cookie.split("; ")

    def do_GET(self) -> None:
        api = self.server.api
        parts = self.path.split("?", 1)[0].strip("/").split("/")
        if self.server is api.other:
            seen = [name for name in _CREDENTIAL_HEADERS if name in self.headers]
            self._send(200, {"origin": "other", "credentials": seen})
        elif parts[0] == "my" and len(parts) == 2:
            if not self._authenticated():
                self._send(401, {"detail": "not signed in"})
            else:
                self._send(200, {"id": parts[1], "title": f"My item {parts[1]}"})
        elif parts == ["posts"]:
            with api.lock:
                self._send(200, list(api.posts.values()))
        elif parts[0] == "posts" and len(parts) == 2:
            post = api.posts.get(parts[1])
            if post is None:
                self._send(404, {"detail": f"no post {parts[1]}"})
            else:
                self._send(200, post)
        elif parts[0] == "streams" and len(parts) == 2:
            viewers = 1000 + sum(map(ord, parts[1]))
            self._send(
                200,
                {
                    "title": f"{parts[1]} plays",
                    "game": "chess",
                    "current_viewers": viewers,
                    "live": True,
                },
            )
        elif parts == ["articles"]:
            self._articles()
        elif parts[0] == "files" and len(parts) == 3 and parts[2] == "download":
            self._file(parts[1])
        elif parts[0] == "away":
            self._send(302, {}, {"location": api.other_origin + "/echo"})
        else:
            self._send(404, {"detail": "no such route"})

    def _articles(self) -> None:
        query = dict(parse_qsl(urlsplit(self.path).query))
        page = max(int(query.get("page", "1") or 1), 1)
        size, total = 3, 8
        start = (page - 1) * size
        items = [
            {"id": str(n), "title": f"Article {n}"}
            for n in range(start + 1, min(start + size, total) + 1)
        ]
        links = ['</articles/?page=1>; rel="first"']
        if start + size < total:
            links.append(f'</articles/?page={page + 1}>; rel="next"')
        body = json.dumps(items).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("link", ", ".join(links))
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _file(self, file_id: str) -> None:
        body = DemoApi.file_body(file_id)
        self.send_response(200)
        self.send_header("content-type", "application/pdf")
        self.send_header(
            "content-disposition",
            f"attachment; filename=\"report-{file_id}.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9-{file_id}.pdf",
        )
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        for start in range(0, len(body), 65536):
            self.wfile.write(body[start : start + 65536])

    def do_DELETE(self) -> None:
        api = self.server.api
        parts = self.path.split("?", 1)[0].strip("/").split("/")
        if parts[0] == "posts" and len(parts) == 2:
            with api.lock:
                found = api.posts.pop(parts[1], None)
            if found is None:
                self._send(404, {"detail": f"no post {parts[1]}"})
            else:
                self.send_response(204)
                self.send_header("content-length", "0")
                self.end_headers()
        else:
            self._send(404, {"detail": "no such route"})

    def do_POST(self) -> None:
        api = self.server.api
        parts = self.path.split("?", 1)[0].strip("/").split("/")
        body = self._body()
        if parts[0] == "login":
            cookie = f"sessionid={api.session_id}; Path=/; HttpOnly"
            self._send(200, {"accessToken": api.access_token}, {"set-cookie": cookie})
        elif parts[0] == "posts" and isinstance(body, dict):
            with api.lock:
                api.next_id += 1
                post_id = str(api.next_id)
                api.posts[post_id] = {**body, "id": post_id}
            self._send(201, api.posts[post_id])
        else:
            self._send(400, {"detail": "bad request"})


class DemoApi:
    """Both demo servers; a context manager that starts and stops them."""

    def __init__(self) -> None:
        self.session_id = secrets.token_hex(8)
        self.access_token = secrets.token_hex(16)
        self.lock = threading.Lock()
        self.posts: dict[str, dict[str, Any]] = {
            "1": {"id": "1", "title": "Hello, restwire"},
        }
        self.next_id = len(self.posts)
        self.main = _Server(("127.0.0.1", 0), _Handler)
        self.other = _Server(("127.0.0.1", 0), _Handler)
        self.main.api = self.other.api = self
        self.origin = f"http://127.0.0.1:{self.main.server_address[1]}"
        self.other_origin = f"http://127.0.0.1:{self.other.server_address[1]}"
        self._threads = [
            threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
            for server in (self.main, self.other)
        ]

    @staticmethod
    def file_body(file_id: str) -> bytes:
        """The bytes ``/files/<id>/download`` serves: 1 MiB of a repeated header."""
        return (f"%PDF-1.4 file {file_id}\n".encode() * 65536)[: 1 << 20]

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
