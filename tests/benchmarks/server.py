"""A local HTTP server for the socket benchmarks, in its own process.

Its own process so that its CPU time is not counted against either client,
and so the GIL it holds does not slow the client being measured.

Routes: ``/item/<id>`` (a 1 KB JSON object, snake_case), ``/bytes/<n>``
(``n`` bytes, streamed in 1 MiB writes), ``/prices/<n>`` (``n`` prices as
case 6 has them, with an ``ETag`` and ``Cache-Control: max-age=0``: every
read after the first is revalidated, and a matching ``If-None-Match`` gets
a 304).
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import socket
import time

from recipes.demo_api import QuietHandler, QuietServer

ITEM = {
    "title": "x" * 100,
    "user_name": "ann",
    "created_at": "2024-01-01T00:00:00+00:00",
    "tags": ["a", "b", "c"],
    "body_text": "y" * 700,
    "carrots_used": 3,
}


def item_body(item_id: str) -> bytes:
    return json.dumps({**ITEM, "title": f"item {item_id} " + "x" * 92}).encode()


@functools.lru_cache(maxsize=4)
def prices_body(count: int) -> bytes:
    return json.dumps(
        [
            {
                "id": str(index),
                "pair": f"PAIR-{index % 97}",
                "price": f"{index}.{index % 100:02d}",
                "updated_at": f"2024-05-01T12:{index % 60:02d}:00+00:00",
                "volume": index,
            }
            for index in range(count)
        ]
    ).encode()


class _Handler(QuietHandler):
    def do_GET(self) -> None:
        parts = self.path.split("?")[0].strip("/").split("/")
        if parts[0] == "bytes":
            size = int(parts[1])
            self.send_response(200)
            self.send_header("content-type", "application/octet-stream")
            self.send_header("content-disposition", 'attachment; filename="big.bin"')
            self.send_header("content-length", str(size))
            self.end_headers()
            chunk = b"\x5a" * (1 << 20)
            sent = 0
            while sent < size:
                piece = chunk[: min(len(chunk), size - sent)]
                self.wfile.write(piece)
                sent += len(piece)
            return
        if parts[0] == "prices":
            headers: dict[str, str | list[str]] = {
                "etag": f'"prices-{parts[1]}"',
                "cache-control": "max-age=0",
            }
            if self.headers.get("if-none-match") == headers["etag"]:
                self.answer(304, b"", headers)
                return
            body = prices_body(int(parts[1]))
            self.answer(200, body, {**headers, "content-type": "application/json"})
            return
        self.answer(200, item_body(parts[-1]), {"content-type": "application/json"})


class _Server(QuietServer):
    request_queue_size = 512


def _serve(port: int) -> None:
    _Server(("127.0.0.1", port), _Handler).serve_forever()


class BenchServer:
    """The server process; ``origin`` is its base URL."""

    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.origin = f"http://127.0.0.1:{port}"
        self.process = multiprocessing.get_context("spawn").Process(
            target=_serve, args=(port,), daemon=True
        )

    def __enter__(self) -> BenchServer:
        self.process.start()
        port = self.origin.rsplit(":", 1)[1]
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", int(port)), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("the benchmark server did not start")

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.join(5)
