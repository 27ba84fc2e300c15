"""A cache hit and a 304 on every path: the value the network gave.

With an ``HttpCache``, a call may end without a response of its own (a
fresh entry) or with a revalidation answered ``304 Not Modified``. Through
every path of ``paths.PATHS``: a hit sends nothing and gives what the call
that filled the entry gave; a revalidation sends what its library's own
pool sends (``If-None-Match`` included) and gives the stored value.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from restwire import HttpCache, RestEndpoint
from tests.conformance.paths import PATHS, CallPath, opened
from tests.conformance.server import ScriptedServer
from tests.conformance.test_every_path import normalized

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as scripted:
        yield scripted


async def _call(controller: Any, path: CallPath, endpoint: RestEndpoint) -> Any:
    if path.asynchronous:
        return await controller.fetch(endpoint)
    return controller.fetch(endpoint)


Run = tuple[list[Any], list[int], bytes]


async def cached_calls(
    path: CallPath,
    server: ScriptedServer,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Run:
    """Two calls of a fresh entry and two of one to revalidate, on
    ``path`` with a cache of its own in ``folder``: the four values, the
    requests each pair sent, and the revalidation's bytes."""
    fresh = RestEndpoint(url_prefix=server.origin, path="/fresh", timeout=60)
    etag = RestEndpoint(url_prefix=server.origin, path="/etag", timeout=60)
    server.requests()
    cache = HttpCache.sqlite(folder / "cache.db")
    # (named: a client with an event hook shares nothing, not even between
    # one caller's calls, unless ``identity=`` names its caller)
    named = {"cache": cache, "identity": lambda: "one caller"}
    async with opened(path, monkeypatch, **named) as controller:
        values = [await _call(controller, path, fresh)]
        values.append(await _call(controller, path, fresh))
        counts = [len(server.requests())]
        values.append(await _call(controller, path, etag))
        values.append(await _call(controller, path, etag))
        sent = server.requests()
    counts.append(len(sent))
    return values, counts, normalized(sent[-1])


@pytest.fixture(scope="module")
def references(
    server: ScriptedServer, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Run]:
    """Each library's own sync pool's run, by library."""
    found: dict[str, Run] = {}
    with pytest.MonkeyPatch.context() as monkeypatch:
        for library in ("httpx", "httpx2"):
            path = next(path for path in PATHS if path.library == library)
            folder = tmp_path_factory.mktemp(library)
            found[library] = asyncio.run(
                cached_calls(path, server, folder, monkeypatch)
            )
    return found


@pytest.mark.parametrize("path", PATHS, ids=str)
async def test_a_hit_and_a_304_give_what_the_network_gave(
    path: CallPath,
    server: ScriptedServer,
    references: dict[str, Run],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    values, counts, revalidation = await cached_calls(
        path, server, tmp_path, monkeypatch
    )
    assert values == [{"route": "fresh"}] * 2 + [{"route": "etag"}] * 2
    assert counts == [1, 2]  # the hit sent nothing; the 304 came to a request
    assert b'\r\nif-none-match: "v1"\r\n' in revalidation.lower()
    assert (values, counts, revalidation) == references[path.library]
