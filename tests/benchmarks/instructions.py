"""CPU instructions per call, counted by callgrind: the cost of a call that
the machine's load does not move.

    python -m tests.benchmarks.instructions            # every case
    python -m tests.benchmarks.instructions sync       # one of them
    python -m tests.benchmarks.instructions --cache six six-bare

A dev script, not a test. Wall-clock rates swing with whatever else the
machine runs; instruction counts do not (the same binary, inputs and
environment give the same count twice). Each case runs twice under
``valgrind --tool=callgrind``, once making no call and once making ``N``,
and the difference over ``N`` is one call's instructions (imports, setup
and warm-up cancel out). ``PYTHONHASHSEED=0`` keeps both runs alike.

- ``sync``: ``Controller(httpx.Client(transport=MockTransport))`` fetching
  ``resource.get`` of an ``Entity``, each call to its own id, so no URL is
  remembered (the cost of a call that a cache of URLs does not hide);
- ``bare``: what ``sync`` is measured against: bare httpx, the same
  client and mock, ``client.get(url).json()``;
- ``stored``: ``controller.get`` of that ``Entity``, fresh in the store
  (one id, fetched once before counting: the cost of a cached read);
- ``socket``: what ``stored`` is measured against (issue 44 asks a fresh
  ``get`` to cost at most 0.02 of it): one bare httpx request on a real
  socket, ``httpx.Client().get(url).json()`` to the load benchmark's server
  in another process (the client's instructions only: the server's, the
  kernel's and the wait are not counted, so the ratio printed errs high);
- ``six`` and ``six-bare``: the benchmarks' case 1 on a client the user
  made, ``Controller(httpx.Client(transport=MockTransport))`` fetching
  through six middleware into an ``Entity``, and bare httpx sending the
  same request on the same mock;
- ``six-extra``: ``six`` with an entity that declares one field fewer than
  the body sends (kept as an extra key: what most APIs' answers are to
  the entity a user writes);
- ``list``, ``list-extra`` and ``nested``: a list of sixteen records
  fetched again (a poll) on a mock: records with every field their class
  declares, with one key more, and each nesting a record of another class;
  ``floats``: one record of three ``float`` fields fetched again;
- ``normalize`` and ``pydantic``: the benchmarks' case 6a, 20,000
  ``Price`` records normalized and read back into a new store, and
  pydantic's ``TypeAdapter`` validating the same list (one call is one
  list of 20,000);
- ``part0`` to ``part5``: the parts of case 1 alone, as
  ``python -m tests.benchmarks.breakdown`` times them (``--instructions``
  there prints them as a table);
- ``async``: ``AsyncController()`` as ``restwire[fast]`` installs it
  (aiohttp's pool) fetching a list of sixteen ``Entity`` records, 64 calls at
  a time, from the load benchmark's server in another process (its CPU is
  not counted);
- ``load`` and ``load-bare``: issue 44's third load row, 64 calls at a
  time: ``AsyncController(transport=fast_transport())`` fetching that
  list of sixteen records, its store at its bound (``LOAD_STORE_BYTES``,
  which the warm-up fills: each call also drops what it pushes out), and
  bare httpx on the same transport, ``client.get(url).json()``.

``--cache`` runs the cases under cachegrind with its caches and branch
predictor simulated instead, and prints per call the instructions, the
first-level data cache's read and write misses, the instruction cache's
misses and the mispredicted conditional and indirect branches (by
default for ``six`` against ``six-bare``): where the instructions of two
calls compare one way and their times the other, these are where to look
(``tests.benchmarks.footprint`` counts the bytecode a call runs).

Needs valgrind (Debian's package); the figures go on the performance page.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

T = TypeVar("T")

#: Calls per case (the second run); the first makes none.
CALLS = {
    "sync": 2000,
    "bare": 2000,
    "stored": 5000,
    "socket": 1000,
    "six": 2000,
    "six-bare": 2000,
    "six-extra": 2000,
    "list": 1000,
    "list-extra": 1000,
    "nested": 1000,
    "floats": 2000,
    "async": 2000,
    "load": 2000,
    "load-bare": 2000,
    "normalize": 4,
    "pydantic": 4,
    **{f"part{index}": 2000 for index in range(6)},
}
#: The cases that send to the load benchmark's server.
SERVED = ("socket", "async", "load", "load-bare")
#: Calls before counting starts in both runs (caches filled, imports done).
WARM = 200


def _respond(request: Any) -> Any:
    import httpx

    return httpx.Response(
        200, json={"id": request.url.path.rsplit("/", 1)[1], "title": "t"}
    )


def _sync_calls(count: int, case: str) -> None:
    import httpx

    from restwire import Controller, Entity, RestEndpoint, resource

    class Post(Entity):
        id: str = ""
        title: str = ""
        user_id: int = 0

    client = httpx.Client(transport=httpx.MockTransport(_respond))
    if case == "bare":
        for number in range(-WARM, count):
            client.get(f"https://api.example.com/posts/{number}").json()
        return
    api = RestEndpoint(url_prefix="https://api.example.com")
    posts = resource(path="/posts/:id", schema=Post, endpoint=api)
    with Controller(client) as controller:
        if case == "stored":
            controller.fetch(posts.get, {"id": 1})
            for _ in range(WARM + count):
                controller.get(posts.get, {"id": 1})
            return
        for number in range(WARM):
            controller.fetch(posts.get, {"id": -number - 1})
        for number in range(count):
            controller.fetch(posts.get, {"id": number})


def _socket_calls(count: int, origin: str) -> None:
    import httpx

    with httpx.Client() as client:
        for number in range(-WARM, count):
            client.get(f"{origin}/item/{number}").json()


def _six_calls(count: int, case: str) -> None:
    import httpx

    from restwire import Controller
    from tests.benchmarks.cases import (
        SAME_REQUEST,
        mock_transport,
        six_middleware_endpoint,
    )

    transport = mock_transport()
    if case == "six-bare":
        bare = httpx.Client(transport=transport, headers=SAME_REQUEST)
        for _ in range(-WARM, count):
            bare.get("http://api.test/item/1").json()
        return
    endpoint = six_middleware_endpoint("http://api.test")
    if case == "six-extra":
        endpoint = endpoint.extend(schema=_fewer_fields())
    with Controller(httpx.Client(transport=transport)) as controller:
        for _ in range(-WARM, count):
            controller.fetch(endpoint, {"id": "1"})


def _fewer_fields() -> type[Any]:
    """Case 1's entity without one of the fields the body sends: the body's
    ``bodyText`` is an extra key of each record (most APIs send more than
    an entity declares)."""
    from restwire import Entity

    class FewerFields(Entity):
        id: str = ""
        title: str = ""
        userName: str = ""
        createdAt: str = ""
        tags: list[str] = []  # noqa: RUF012
        carrots: int = 0

    return FewerFields


def _list_calls(count: int, case: str) -> None:
    """A list of sixteen records fetched again and again (a poll): each
    record has every field its class declares (``list``), one key more
    (``list-extra``), or nests a record of another class (``nested``); or
    one record of three float fields fetched again (``floats``)."""
    import httpx

    from restwire import Controller, Entity, RestEndpoint

    class Author(Entity):
        id: str = ""
        name: str = ""

    class Row(Entity):
        id: str = ""
        name: str = ""
        score: int = 0
        tags: list[str] = []  # noqa: RUF012

    class FewerRow(Entity):
        id: str = ""
        name: str = ""
        score: int = 0

    class Story(Entity):
        id: str = ""
        title: str = ""
        author: Author | None = None

        schema: ClassVar[dict[str, Any]] = {"author": Author}

    class Quote(Entity):
        id: str = ""
        bid: float = 0.0
        ask: float = 0.0
        last: float = 0.0

    if case == "floats":
        rows: Any = {"id": "1", "bid": 1.25, "ask": 1.5, "last": 1.375}
        schema: Any = Quote
    elif case == "nested":
        rows = [
            {"id": str(n), "title": f"t{n}", "author": {"id": str(n % 3), "name": "a"}}
            for n in range(16)
        ]
        schema = [Story]
    else:
        rows = [
            {"id": str(n), "name": f"r{n}", "score": n, "tags": ["a", "b"]}
            for n in range(16)
        ]
        schema = [FewerRow] if case == "list-extra" else [Row]
    body = json.dumps(rows).encode()
    transport = httpx.MockTransport(
        lambda request: httpx.Response(
            200, content=body, headers={"content-type": "application/json"}
        )
    )
    endpoint = RestEndpoint(url_prefix="http://api.test", path="/rows", schema=schema)
    with Controller(httpx.Client(transport=transport)) as controller:
        for _ in range(-WARM, count):
            controller.fetch(endpoint)


def _normalize_calls(count: int, case: str) -> None:
    from tests.benchmarks.cases import (
        normalize_and_read,
        price_payload,
        pydantic_prices,
    )

    adapter = pydantic_prices()
    data = price_payload(20_000)
    run: Any = adapter.validate_python if case == "pydantic" else normalize_and_read
    for _ in range(-2, count):  # (two to warm: a list is many calls' worth)
        run(data)


def _async_calls(count: int, origin: str) -> None:
    from restwire import AsyncController, Entity, RestEndpoint

    class Record(Entity):
        id: str = ""
        name: str = ""
        score: int = 0
        tags: list[str] = []  # noqa: RUF012

    endpoint = RestEndpoint(url_prefix=origin, path="/item/:n", schema=[Record])

    async def main() -> None:
        async with AsyncController() as controller:
            numbers = iter(range(-WARM, count))

            async def worker() -> None:
                for number in numbers:
                    await controller.fetch(endpoint, {"n": number})

            await asyncio.gather(*(worker() for _ in range(64)))

    asyncio.run(main())


#: The store's bound in the ``load`` case: small enough that the warm-up
#: fills it (about 12 KB a call), so each counted call also drops what it
#: pushes out, as every call does at the load benchmark's steady state.
LOAD_STORE_BYTES = 1 << 20


def _load_calls(count: int, origin: str, case: str) -> None:
    from tests.benchmarks.load import _drive, _make_client

    name = (
        "httpx on fast_transport()"
        if case == "load-bare"
        else "restwire on fast_transport() [Entity]"
    )

    async def main() -> None:
        options = {} if case == "load-bare" else {"max_store_bytes": LOAD_STORE_BYTES}
        call, close = await _make_client(name, origin, 64, **options)
        await _drive(call, WARM + count, 64, -WARM)
        await close()

    asyncio.run(main())


def _child(case: str, count: int, origin: str) -> None:
    if case == "async":
        _async_calls(count, origin)
    elif case.startswith("load"):
        _load_calls(count, origin, case)
    elif case == "socket":
        _socket_calls(count, origin)
    elif case.startswith("six"):
        _six_calls(count, case)
    elif case in ("list", "list-extra", "nested", "floats"):
        _list_calls(count, case)
    elif case in ("normalize", "pydantic"):
        _normalize_calls(count, case)
    elif case.startswith("part"):
        from tests.benchmarks.breakdown import part_calls

        part_calls(int(case[4:]), count)
    else:
        _sync_calls(count, case)


_TOTAL = re.compile(r"^(?:summary|totals): (\d+)", re.MULTILINE)
_EVENTS = re.compile(r"^events: (.+)$", re.MULTILINE)
_SUMMARY = re.compile(r"^summary: (.+)$", re.MULTILINE)
#: What ``--cache`` prints of cachegrind's simulated caches and branch
#: predictor, per call: instructions, first-level data cache read and
#: write misses, first-level instruction cache misses, and mispredicted
#: conditional and indirect branches.
CACHE_EVENTS = ("Ir", "D1mr", "D1mw", "I1mr", "Bcm", "Bim")


def _run(tool: list[str], case: str, count: int, origin: str, out: Path) -> str:
    subprocess.run(
        [
            "valgrind",
            *tool,
            sys.executable,
            "-m",
            "tests.benchmarks.instructions",
            "--child",
            case,
            str(count),
            origin,
        ],
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    return out.read_text(errors="replace")


def _instructions(case: str, count: int, origin: str) -> int:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        text = _run(
            ["--tool=callgrind", f"--callgrind-out-file={out}"],
            case,
            count,
            origin,
            out,
        )
        found = _TOTAL.search(text)
        if found is None:
            raise RuntimeError("callgrind wrote no total")
        return int(found.group(1))


def _cache_events(case: str, count: int, origin: str) -> dict[str, int]:
    """Cachegrind's totals for ``count`` calls of ``case``, its caches
    simulated (the machine's own L1 and last-level sizes)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "cachegrind.out"
        text = _run(
            [
                "--tool=cachegrind",
                "--cache-sim=yes",
                "--branch-sim=yes",
                f"--cachegrind-out-file={out}",
            ],
            case,
            count,
            origin,
            out,
        )
        events, summary = _EVENTS.search(text), _SUMMARY.search(text)
        if events is None or summary is None:
            raise RuntimeError("cachegrind wrote no summary")
        return dict(
            zip(
                events.group(1).split(), map(int, summary.group(1).split()), strict=True
            )
        )


def per_call(case: str, origin: str = "") -> float:
    """One call's instructions in ``case`` (a key of :data:`CALLS`)."""
    calls = CALLS[case]
    return (_instructions(case, calls, origin) - _instructions(case, 0, origin)) / calls


def cache_per_call(case: str, origin: str = "") -> dict[str, float]:
    """One call's :data:`CACHE_EVENTS` in ``case``, as :func:`per_call`
    counts its instructions."""
    calls = CALLS[case]
    made, none = _cache_events(case, calls, origin), _cache_events(case, 0, origin)
    return {event: (made[event] - none[event]) / calls for event in CACHE_EVENTS}


def _measured(cases: list[str], measure: Callable[[str, str], T]) -> dict[str, T]:
    """``measure(case, origin)`` of each of ``cases``, in order; a case that
    sends to the load benchmark's server (:data:`SERVED`) gets one of its
    own, started for it."""
    found: dict[str, T] = {}
    for case in cases:
        if case in SERVED:
            from tests.benchmarks.load import LoadServer

            with LoadServer() as server:
                found[case] = measure(case, server.origin)
        else:
            found[case] = measure(case, "")
    return found


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        _child(argv[1], int(argv[2]), argv[3] if len(argv) > 3 else "")
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)")
        return 1
    if argv[:1] == ["--cache"]:
        return _print_cache(argv[1:] or ["six", "six-bare"])
    cases = argv or [case for case in CALLS if not case.startswith("part")]
    found = _measured(cases, per_call)
    for case, count in found.items():
        print(f"{case:10} {count / 1000:,.0f}k instructions per call")
    pairs = (
        ("sync", "bare"),
        ("six", "six-bare"),
        ("six-extra", "six-bare"),
        ("stored", "socket"),
        ("load", "load-bare"),
        ("normalize", "pydantic"),
    )
    for case, baseline in pairs:
        if case in found and baseline in found:
            print(f"{case} / {baseline}: {found[case] / found[baseline]:.3f}")
    return 0


def _print_cache(cases: list[str]) -> int:
    """``--cache``: :data:`CACHE_EVENTS` per call of each of ``cases``, and
    the first's against the others'."""
    rows = _measured(cases, cache_per_call)
    print(f"{'case':8}" + "".join(f"  {event:>9}" for event in CACHE_EVENTS))
    for case, row in rows.items():
        print(f"{case:8}" + "".join(f"  {row[event]:9,.0f}" for event in CACHE_EVENTS))
    first, *others = cases
    for other in others:
        print(
            f"{first} / {other}: "
            + ", ".join(
                f"{event} {rows[first][event] / rows[other][event]:.2f}"
                for event in CACHE_EVENTS
                if rows[other][event]
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
