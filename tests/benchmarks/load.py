"""Issue 31's load benchmark: async calls at concurrency 1, 16 and 64, every
call to its own path, against a fast local server in its own process.

``python -m tests.benchmarks.load [--quick]`` prints requests per second of
each client, and its ratio to aiohttp's ``ClientSession`` (the fastest
Python client, the yardstick) and to bare httpx on the same transport:

- aiohttp ``ClientSession()``;
- httpx ``AsyncClient()`` and httpx2 ``AsyncClient()`` (their own pools);
- httpx on ``restwire.fast_transport()`` (restwire's transport on an
  aiohttp session, with no cookie jar of aiohttp's own);
- restwire ``AsyncController()`` reading an ``Entity`` list, installed as
  the docs tell a user who wants speed (``restwire[fast]``: the client it
  makes sends on aiohttp's pool);
- restwire ``AsyncController(transport=fast_transport())``, against bare
  httpx on the same transport (same connection limit): restwire's own cost;
- restwire ``AsyncController(httpx.AsyncClient(transport=fast_transport()))``,
  a client the user gives, against the same.

Under the tables, issue 44's ratios at each concurrency, with their goals
at c=64.

Rounds are interleaved (each client once per round, in turn) and the
median of each is kept. The server answers every ``GET /item/<n>`` with
a 2 KB JSON list of 16 records whose ids are that URL's own, keep-alive,
from an ``asyncio`` protocol (on uvloop when installed), so that it is
never the bottleneck.

The engines (issue 44's study, so the next choice of engine is a
measurement): pyreqwest (Rust) raw, bare httpx on its httpx transport, and
restwire on that transport, beside aiohttp, httpx and httpx2 above; the
rows are left out when pyreqwest is not installed.

Also: the memory the store holds over 30,000 URLs of distinct records,
with no bound, the default bound and a 16 MiB one (``tracemalloc``, at
the end and at its peak, in a child process).

Needs the ``bench`` extra (aiohttp, httpx2, uvloop, pyreqwest).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import operator
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

#: The body of every answer: a list of 16 small records, about 2 KB, whose
#: ids name the URL (``@`` stands for its number): each URL's records are
#: its own, as a listing's are, so a store holds distinct records.
TEMPLATE = json.dumps(
    [
        {
            "id": f"@.{index}",
            "name": f"record {index}",
            "score": index * 7,
            "tags": ["a"],
        }
        for index in range(16)
    ]
).encode()
TEMPLATE = TEMPLATE + b" " * max(0, 2048 - len(TEMPLATE))


def answer_to(number: bytes) -> bytes:
    """The whole answer (head and body) to ``GET /item/<number>``."""
    body = TEMPLATE.replace(b"@", number)
    return (
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )


class _Answer(asyncio.Protocol):
    """Answers each request (no body expected) with :func:`answer_to` its
    path's number, keep-alive."""

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            line = self.buffer[: self.buffer.find(b"\r\n")]
            self.buffer = self.buffer[end + 4 :]
            number = line.split(b" ", 2)[1].rpartition(b"/")[2]
            self.transport.write(answer_to(number))


def _serve(port: int) -> None:
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover - the bench extra brings it
        pass

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(
            _Answer, "127.0.0.1", port, backlog=1024
        )
        async with server:
            await server.serve_forever()

    asyncio.run(main())


class LoadServer:
    """The server process; ``origin`` is its base URL."""

    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.origin = f"http://127.0.0.1:{port}"
        self.port = port
        self.process = multiprocessing.get_context("spawn").Process(
            target=_serve, args=(port,), daemon=True
        )

    def __enter__(self) -> LoadServer:
        self.process.start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("the load server did not start")

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.join(5)


# -- the clients ---------------------------------------------------------------------

Call = Callable[[int], Awaitable[Any]]


async def _drive(call: Call, total: int, concurrency: int, start: int) -> float:
    """Requests per second of ``total`` calls, ``concurrency`` at a time,
    each to its own path."""
    numbers = iter(range(start, start + total))

    async def worker() -> None:
        for number in numbers:
            await call(number)

    began = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return total / (time.perf_counter() - began)


async def _clients(origin: str, concurrency: int) -> dict[str, tuple[Call, Any]]:
    """Each client under test: its call, and what closes it."""
    import aiohttp
    import httpx
    import httpx2

    from restwire import AsyncController, Entity, RestEndpoint, fast_transport

    class Record(Entity):
        id: str = ""
        name: str = ""
        score: int = 0
        tags: list[str] = []  # noqa: RUF012

    limits = {"max_connections": concurrency, "max_keepalive_connections": concurrency}
    endpoint = RestEndpoint(url_prefix=origin, path="/item/:n", schema=[Record])

    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency))
    plain = httpx.AsyncClient(limits=httpx.Limits(**limits))
    plain2 = httpx2.AsyncClient(limits=httpx2.Limits(**limits))
    on_aiohttp = httpx.AsyncClient(
        transport=fast_transport(max_connections=concurrency)
    )
    own = AsyncController()  # the client restwire makes (aiohttp's pool)
    fast = AsyncController(transport=fast_transport(max_connections=concurrency))
    given = AsyncController(
        httpx.AsyncClient(transport=fast_transport(max_connections=concurrency))
    )

    async def with_aiohttp(n: int) -> Any:
        async with session.get(f"{origin}/item/{n}") as response:
            return json.loads(await response.read())

    def bare(client: Any) -> Call:
        async def call(n: int) -> Any:
            return (await client.get(f"{origin}/item/{n}")).json()

        return call

    def restwire(controller: Any) -> Call:
        async def call(n: int) -> Any:
            return await controller.fetch(endpoint, {"n": n})

        return call

    async def close_given() -> None:
        await given.close()
        await given.client.aclose()

    clients: dict[str, tuple[Call, Any]] = {
        "aiohttp ClientSession()": (with_aiohttp, session.close),
        "httpx AsyncClient()": (bare(plain), plain.aclose),
        "httpx2 AsyncClient()": (bare(plain2), plain2.aclose),
        "httpx on fast_transport()": (bare(on_aiohttp), on_aiohttp.aclose),
        "restwire AsyncController() [Entity]": (restwire(own), own.close),
        "restwire on fast_transport() [Entity]": (restwire(fast), fast.close),
        "restwire, given client on fast_transport() [Entity]": (
            restwire(given),
            close_given,
        ),
    }
    clients.update(_pyreqwest_clients(origin, concurrency, restwire))
    return clients


def _pyreqwest_clients(
    origin: str, concurrency: int, restwire: Callable[[Any], Call]
) -> dict[str, tuple[Call, Any]]:
    """pyreqwest's rows, when it is installed: raw, bare httpx on its httpx
    transport, and restwire on that transport."""
    try:
        import httpx
        from pyreqwest.client import ClientBuilder
        from pyreqwest.compatibility.httpx import HttpxTransport
    except ImportError:
        return {}
    from restwire import AsyncController

    def builder() -> Any:
        return ClientBuilder().max_connections(concurrency).error_for_status(False)

    raw = builder().build()
    on_rust = httpx.AsyncClient(transport=HttpxTransport(builder().build()))
    controller = AsyncController(transport=HttpxTransport(builder().build()))

    async def with_pyreqwest(n: int) -> Any:
        response = await raw.get(f"{origin}/item/{n}").build().send()
        return json.loads(bytes(await response.bytes()))

    async def bare(n: int) -> Any:
        return (await on_rust.get(f"{origin}/item/{n}")).json()

    return {
        "pyreqwest Client()": (with_pyreqwest, raw.close),
        "httpx on pyreqwest HttpxTransport": (bare, on_rust.aclose),
        "restwire on pyreqwest HttpxTransport [Entity]": (
            restwire(controller),
            controller.close,
        ),
    }


#: Issue 44's ratios: the client, what it is compared to, how the ratio is
#: said, and its goal at c=64.
_RATIOS = (
    (
        "restwire AsyncController() [Entity]",
        "aiohttp ClientSession()",
        "restwire AsyncController() vs aiohttp: {:.2f}",
        "at least 0.50",
    ),
    (
        "restwire AsyncController() [Entity]",
        "httpx AsyncClient()",
        "restwire AsyncController() vs httpx AsyncClient(): {:.1f}x",
        "at least 5x",
    ),
    (
        "restwire on fast_transport() [Entity]",
        "httpx on fast_transport()",
        "restwire vs bare httpx, both on fast_transport(): {:.2f}",
        "at least 0.90",
    ),
    (
        "restwire, given client on fast_transport() [Entity]",
        "httpx on fast_transport()",
        "restwire on a given client vs bare httpx, both on fast_transport(): {:.2f}",
        "at least 0.90",
    ),
)


async def _measure(
    origin: str, concurrency: int, total: int, rounds: int
) -> tuple[dict[str, float], list[float]]:
    """Each client's median requests per second, and each of ``_RATIOS``
    as the median of its ratio within each round (the two measured a few
    seconds apart: a machine whose speed drifts between rounds moves both)."""
    clients = await _clients(origin, concurrency)
    runs: dict[str, list[float]] = {name: [] for name in clients}
    start = 0
    try:
        for call, _ in clients.values():  # warm: connections, imports
            await _drive(call, min(total, 4 * concurrency), concurrency, start)
            start += total
        for _ in range(rounds):
            for name, (call, _) in clients.items():
                runs[name].append(await _drive(call, total, concurrency, start))
                start += total
    finally:
        for _, close in clients.values():
            await close()
    ratios = [
        statistics.median(map(operator.truediv, runs[name], runs[other]))
        for name, other, _, _ in _RATIOS
    ]
    return {name: statistics.median(values) for name, values in runs.items()}, ratios


def _table(concurrency: int, rates: dict[str, float], ratios: list[float]) -> list[str]:
    yardstick = rates["aiohttp ClientSession()"]
    same_transport = rates["httpx on fast_transport()"]
    lines = [
        f"\nconcurrency {concurrency}",
        "| client | req/s | vs aiohttp | vs httpx on the same transport |",
        "|---|---|---|---|",
    ]
    for name, rate in rates.items():
        versus = f"{rate / same_transport:.2f}" if "fast_transport" in name else ""
        lines.append(f"| {name} | {rate:,.0f} | {rate / yardstick:.2f} | {versus} |")
    lines += ["", "Issue 44's ratios (median of each round's):"]
    for (_, _, said, goal), ratio in zip(_RATIOS, ratios, strict=True):
        lines.append(f"- {said.format(ratio)} (goal at c=64: {goal})")
    return lines


# -- memory --------------------------------------------------------------------------

_MEMORY_CHILD = """
import asyncio, json, sys, tracemalloc
import httpx
from restwire import AsyncController, Entity, RestEndpoint
from tests.benchmarks.load import TEMPLATE
limit = {limit}
urls = {urls}
class Record(Entity):
    id: str = ""
    name: str = ""
    score: int = 0
    tags: list[str] = []
def answer(request):
    number = request.url.path.rsplit("/", 1)[1].encode()
    return httpx.Response(200, content=TEMPLATE.replace(b"@", number),
                          headers={{"content-type": "application/json"}})
async def main():
    options = {{}} if limit == "default" else {{"max_store_bytes": limit}}
    async with AsyncController(transport=httpx.MockTransport(answer), **options) as controller:
        endpoint = RestEndpoint(url_prefix="http://bench", path="/item/:n", schema=[Record])
        await controller.fetch(endpoint, {{"n": -1}})
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for n in range(urls):
            await controller.fetch(endpoint, {{"n": n}})
        held, peak = tracemalloc.get_traced_memory()
        print(json.dumps({{"held": held - before, "peak": peak - before,
                          "store": controller.store.size_bytes}}))
asyncio.run(main())
"""

#: The memory rows: URLs fetched, and each bound (``"default"``: none given).
MEMORY_URLS = 30_000
MEMORY_BOUNDS: tuple[int | str | None, ...] = (None, "default", 16 << 20)


def memory(limit: int | str | None, urls: int = MEMORY_URLS) -> dict[str, int]:
    """Memory the store holds after ``urls`` URLs of distinct records (an
    ``Entity`` list each) under the bound ``limit``, at the end and at its
    peak, and its own count of its bytes, in a fresh process."""
    source = _MEMORY_CHILD.format(limit=repr(limit), urls=urls)
    done = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, check=True
    )
    result: dict[str, int] = json.loads(done.stdout)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.load")
    parser.add_argument("--quick", action="store_true", help="fewer calls")
    parser.add_argument("--no-memory", action="store_true", help="skip memory")
    arguments = parser.parse_args(argv)
    total = 600 if arguments.quick else 3_000
    rounds = 3 if arguments.quick else 5
    lines: list[str] = []
    with LoadServer() as server:
        for concurrency in (1, 16, 64):
            calls = total // 4 if concurrency == 1 else total
            rates, ratios = asyncio.run(
                _measure(server.origin, concurrency, calls, rounds)
            )
            lines += _table(concurrency, rates, ratios)
    if not arguments.no_memory:
        lines.append(
            f"\nmemory of {MEMORY_URLS:,} URLs of distinct records "
            "(16 Entity records each, 2 KB bodies, kept 60 s)"
        )
        lines.append("| bound | held at the end | peak | the store's own count |")
        lines.append("|---|---|---|---|")
        for limit in MEMORY_BOUNDS:
            figures = memory(limit)
            if limit is None:
                label = "no bound (max_store_bytes=None)"
            elif limit == "default":
                label = "the default (64 MiB)"
            else:
                label = f"max_store_bytes={int(limit) >> 20} MiB"
            lines.append(
                f"| {label} | {figures['held'] / 2**20:.1f} MiB "
                f"| {figures['peak'] / 2**20:.1f} MiB "
                f"| {figures['store'] / 2**20:.1f} MiB |"
            )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
