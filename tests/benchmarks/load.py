"""Issue 31's load benchmark: async calls at concurrency 1, 16 and 64, every
call to its own path, against a fast local server in its own process.

``python -m tests.benchmarks.load [--quick] [--same-records]`` prints
requests per second of each client, and its ratio to aiohttp's
``ClientSession`` (the fastest Python client, the yardstick) and to bare
httpx on the same transport:

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

Each client runs in a process of its own, alone: rounds are interleaved
(each client once per round, in turn, the others waiting) and the median of
each is kept. (In one process, the restwire clients' stores at their bound
made the garbage-collector passes of every client beside them longer, so
that one of two restwire rows that take the same path read 0.16-0.17x
aiohttp at c=64, the other 0.24-0.27x, which one depending on the run.
``--quick`` runs too few calls to fill a store to its bound.) The server
answers every ``GET /item/<n>`` with
a 2 KB JSON list of 16 records whose ids are that URL's own, keep-alive,
from an ``asyncio`` protocol (on uvloop when installed), so that it is
never the bottleneck. With ``--same-records`` every URL answers the same
16 records instead (a listing read through many filters or pages of one
set): the store then holds one copy of them, updated by every answer,
and only the results grow.

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
import contextlib
import functools
import importlib.util
import json
import multiprocessing
import operator
import signal
import socket
import statistics
import subprocess
import sys
import time
import traceback
from collections.abc import Awaitable, Callable
from multiprocessing.connection import Connection
from multiprocessing.context import SpawnProcess
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


def answer_to(number: bytes, same_records: bool = False) -> bytes:
    """The whole answer (head and body) to ``GET /item/<number>``: its own
    records, or, ``same_records``, those of ``/item/0``."""
    body = TEMPLATE.replace(b"@", b"0" if same_records else number)
    return (
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )


class _Answer(asyncio.Protocol):
    """Answers each request (no body expected) with :func:`answer_to` its
    path's number, keep-alive."""

    def __init__(self, same_records: bool) -> None:
        self.same_records = same_records

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
            self.transport.write(answer_to(number, self.same_records))


def _serve(port: int, same_records: bool) -> None:
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover - the bench extra brings it
        pass

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(
            functools.partial(_Answer, same_records), "127.0.0.1", port, backlog=1024
        )
        async with server:
            await server.serve_forever()

    asyncio.run(main())


class LoadServer:
    """The server process; ``origin`` is its base URL. ``same_records``:
    every URL answers the same records (see the module)."""

    def __init__(self, same_records: bool = False) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.origin = f"http://127.0.0.1:{port}"
        self.port = port
        self.process = multiprocessing.get_context("spawn").Process(
            target=_serve, args=(port, same_records), daemon=True
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
#: A client under test: its call, and what closes it.
Client = tuple[Call, Callable[[], Awaitable[Any]]]


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


#: The clients under test, in the tables' order (pyreqwest's are added by
#: :func:`client_names` when it is installed).
CLIENTS = (
    "aiohttp ClientSession()",
    "httpx AsyncClient()",
    "httpx2 AsyncClient()",
    "httpx on fast_transport()",
    "restwire AsyncController() [Entity]",
    "restwire on fast_transport() [Entity]",
    "restwire, given client on fast_transport() [Entity]",
)
PYREQWEST_CLIENTS = (
    "pyreqwest Client()",
    "httpx on pyreqwest HttpxTransport",
    "restwire on pyreqwest HttpxTransport [Entity]",
)


def client_names() -> tuple[str, ...]:
    """Every client measured here: :data:`CLIENTS`, and pyreqwest's when it
    is installed with its httpx transport (found, not imported)."""
    try:
        found = importlib.util.find_spec("pyreqwest.compatibility.httpx")
    except ImportError:  # (no pyreqwest at all)
        found = None
    return CLIENTS if found is None else CLIENTS + PYREQWEST_CLIENTS


def _restwire_call(controller: Any, origin: str) -> Call:
    """A fetch of an ``Entity`` list from ``GET /item/<n>`` on ``controller``."""
    from restwire import Entity, RestEndpoint

    class Record(Entity):
        id: str = ""
        name: str = ""
        score: int = 0
        tags: list[str] = []  # noqa: RUF012

    endpoint = RestEndpoint(url_prefix=origin, path="/item/:n", schema=[Record])

    async def call(n: int) -> Any:
        return await controller.fetch(endpoint, {"n": n})

    return call


def _bare_call(client: Any, origin: str) -> Call:
    """``client.get(url).json()`` of ``GET /item/<n>``."""

    async def call(n: int) -> Any:
        return (await client.get(f"{origin}/item/{n}")).json()

    return call


async def _make_client(
    name: str, origin: str, concurrency: int, **controller_options: Any
) -> Client:
    """The client ``name`` (one of :func:`client_names`), made for
    ``concurrency`` calls at a time (its pool as large), in the running
    event loop; ``controller_options`` (``max_store_bytes``) go to a
    controller restwire's rows make."""
    import httpx

    from restwire import AsyncController, fast_transport

    limits = {"max_connections": concurrency, "max_keepalive_connections": concurrency}
    if name == "aiohttp ClientSession()":
        import aiohttp

        session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=concurrency)
        )

        async def with_aiohttp(n: int) -> Any:
            async with session.get(f"{origin}/item/{n}") as response:
                return json.loads(await response.read())

        return with_aiohttp, session.close
    if name == "httpx AsyncClient()":
        plain = httpx.AsyncClient(limits=httpx.Limits(**limits))
        return _bare_call(plain, origin), plain.aclose
    if name == "httpx2 AsyncClient()":
        import httpx2

        plain2 = httpx2.AsyncClient(limits=httpx2.Limits(**limits))
        return _bare_call(plain2, origin), plain2.aclose
    if name == "httpx on fast_transport()":
        on_aiohttp = httpx.AsyncClient(
            transport=fast_transport(max_connections=concurrency)
        )
        return _bare_call(on_aiohttp, origin), on_aiohttp.aclose
    if name == "restwire AsyncController() [Entity]":
        # the client restwire makes (aiohttp's pool)
        own = AsyncController(**controller_options)
        return _restwire_call(own, origin), own.close
    if name == "restwire on fast_transport() [Entity]":
        fast = AsyncController(
            transport=fast_transport(max_connections=concurrency), **controller_options
        )
        return _restwire_call(fast, origin), fast.close
    if name == "restwire, given client on fast_transport() [Entity]":
        given = AsyncController(
            httpx.AsyncClient(transport=fast_transport(max_connections=concurrency)),
            **controller_options,
        )

        async def close_given() -> None:
            await given.close()
            await given.client.aclose()

        return _restwire_call(given, origin), close_given
    if name not in PYREQWEST_CLIENTS:
        raise ValueError(f"no client named {name!r}")
    return _pyreqwest_client(name, origin, concurrency)


def _pyreqwest_client(name: str, origin: str, concurrency: int) -> Client:
    """pyreqwest's rows: raw, bare httpx on its httpx transport, and
    restwire on that transport."""
    import httpx
    from pyreqwest.client import ClientBuilder
    from pyreqwest.compatibility.httpx import HttpxTransport

    from restwire import AsyncController

    def built() -> Any:
        return (
            ClientBuilder().max_connections(concurrency).error_for_status(False).build()
        )

    if name == "pyreqwest Client()":
        raw = built()

        async def with_pyreqwest(n: int) -> Any:
            response = await raw.get(f"{origin}/item/{n}").build().send()
            return json.loads(bytes(await response.bytes()))

        return with_pyreqwest, raw.close
    if name == "httpx on pyreqwest HttpxTransport":
        on_rust = httpx.AsyncClient(transport=HttpxTransport(built()))
        return _bare_call(on_rust, origin), on_rust.aclose
    controller = AsyncController(transport=HttpxTransport(built()))
    return _restwire_call(controller, origin), controller.close


def _client_process(connection: Connection, name: str, origin: str) -> None:
    """The process of one client: it makes the client (``("make",
    concurrency)``), drives it (``("run", total, concurrency, start)``:
    requests per second) and closes it (``("close",)``), one command at a
    time from ``connection``, answering each. Nothing else runs meanwhile
    in the process, so no other client's objects weigh on this one's
    (a store at its bound makes each pass of the garbage collector longer,
    for every client of its process). Ctrl-C is the parent's to handle:
    the parent then closes each child."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    async def serve() -> None:
        made: Client | None = None
        try:
            while True:
                command = connection.recv()
                if made is not None and command[0] != "run":
                    await made[1]()
                    made = None
                if command[0] == "make":
                    made = await _make_client(name, origin, command[1])
                    connection.send(("done", None))
                elif command[0] == "run" and made is not None:
                    _, total, concurrency, start = command
                    rate = await _drive(made[0], total, concurrency, start)
                    connection.send(("done", rate))
                elif command[0] == "close":
                    connection.send(("done", None))
                    return
                else:
                    raise ValueError(f"no command {command!r} now")
        except Exception:
            connection.send(("failed", traceback.format_exc()))
        finally:
            if made is not None:
                await made[1]()

    asyncio.run(serve())


class ClientProcesses:
    """One process per client (:func:`_client_process`), each asked in
    turn: only one client runs at a time, alone in its process. Leaving
    the ``with`` block closes each client and ends each process (one that
    does not end within a few seconds is terminated), however the block
    ends; a child that fails or dies is a ``RuntimeError`` naming its
    client, never a wait for ever."""

    def __init__(self, names: tuple[str, ...], origin: str) -> None:
        context = multiprocessing.get_context("spawn")
        self.connections: dict[str, Connection] = {}
        self.processes: dict[str, SpawnProcess] = {}
        self._their_ends: list[Connection] = []
        for name in names:
            ours, theirs = context.Pipe()
            self.processes[name] = context.Process(
                target=_client_process, args=(theirs, name, origin), daemon=True
            )
            self.connections[name] = ours
            self._their_ends.append(theirs)

    def __enter__(self) -> ClientProcesses:
        for process in self.processes.values():
            process.start()
        for theirs in self._their_ends:
            # (the child has its own copy: a child that dies then ends the
            # pipe, and waiting on it raises rather than hangs)
            theirs.close()
        return self

    def __exit__(self, *exc: object) -> None:
        for connection in self.connections.values():
            with contextlib.suppress(OSError):
                connection.send(("close",))
        deadline = time.monotonic() + 10
        for process in self.processes.values():
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.terminate()
                process.join()
        for connection in self.connections.values():
            connection.close()

    def ask_all(self, command: tuple[Any, ...]) -> None:
        """Send ``command`` to every client at once (they work in
        parallel: making the clients, their imports), then wait for each."""
        for name in self.connections:
            self._send(name, command)
        for name in self.connections:
            self._answer(name)

    def ask(self, name: str, command: tuple[Any, ...]) -> Any:
        """Send ``command`` to client ``name`` alone; its answer."""
        self._send(name, command)
        return self._answer(name)

    def _send(self, name: str, command: tuple[Any, ...]) -> None:
        try:
            self.connections[name].send(command)
        except OSError:
            raise self._ended(name) from None

    def _answer(self, name: str) -> Any:
        try:
            status, answer = self.connections[name].recv()
        except (EOFError, OSError):
            raise self._ended(name) from None
        if status != "done":
            raise RuntimeError(f"client {name!r} failed:\n{answer}")
        return answer

    def _ended(self, name: str) -> RuntimeError:
        process = self.processes[name]
        process.join(1)
        return RuntimeError(
            f"client {name!r} ended without answering "
            f"(its process's exit code: {process.exitcode})"
        )


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


def _measure(
    clients: ClientProcesses, concurrency: int, total: int, rounds: int
) -> tuple[dict[str, float], list[float]]:
    """Each client's median requests per second, and each of ``_RATIOS``
    as the median of its ratio within each round (the two measured a few
    seconds apart: a machine whose speed drifts between rounds moves both)."""
    clients.ask_all(("make", concurrency))
    names = list(clients.connections)
    runs: dict[str, list[float]] = {name: [] for name in names}
    start = 0
    for name in names:  # warm: connections, imports
        clients.ask(name, ("run", min(total, 4 * concurrency), concurrency, start))
        start += total
    for _ in range(rounds):
        for name in names:
            runs[name].append(clients.ask(name, ("run", total, concurrency, start)))
            start += total
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
    parser.add_argument(
        "--same-records",
        action="store_true",
        help="every URL answers the same 16 records (default: its own)",
    )
    arguments = parser.parse_args(argv)
    total = 600 if arguments.quick else 3_000
    rounds = 3 if arguments.quick else 5
    lines: list[str] = []
    with (
        LoadServer(arguments.same_records) as server,
        ClientProcesses(client_names(), server.origin) as clients,
    ):
        for concurrency in (1, 16, 64):
            calls = total // 4 if concurrency == 1 else total
            rates, ratios = _measure(clients, concurrency, calls, rounds)
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
