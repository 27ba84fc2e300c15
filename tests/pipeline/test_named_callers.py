"""Named callers share across rotating tokens (issue 42, item 5): with
``identity=`` given, the caller's name, not the token it sends now, keys
what is shared (the store, calls in flight, the HTTP cache, pollers), in
one process and across processes on one cache (a SQLite file, a real
redis-server); callers named apart share nothing, and calls named by
nobody are told apart by their credentials, deny by default. Against the
counting server on 127.0.0.1, whose ``/whoami`` answers with the token it
was sent (``private, max-age=60``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from restwire import AsyncController, Controller, HttpCache, RestEndpoint
from restwire.middlewares import AccessToken
from tests.counting_server import CountingServer

pytestmark = pytest.mark.anyio

Make = Callable[..., Any]


def whoami(server: CountingServer, auth: AccessToken, expiry: float) -> RestEndpoint:
    return RestEndpoint(
        url_prefix=server.origin, path="/whoami", data_expiry_length=expiry
    ).use(auth)


async def test_a_named_caller_keeps_its_store_when_its_token_rotates(
    own_controller_factory: Make, counting_server: CountingServer
) -> None:
    auth = AccessToken("tok-1")
    endpoint = whoami(counting_server, auth, expiry=60)
    controller = own_controller_factory(identity=lambda: "alice")
    first = await controller.fetch(endpoint)
    assert first == {"user": "tok-1"}
    auth.token = "tok-2"  # a new token for the same caller
    assert await controller.get(endpoint) is first
    assert dict(counting_server.counts) == {"whoami:tok-1": 1}


async def test_callers_not_named_alike_share_nothing_whatever_the_token(
    own_controller_factory: Make, counting_server: CountingServer
) -> None:
    """Two names, one token: apart. No name, two tokens: apart."""
    auth = AccessToken("tok-1")
    endpoint = whoami(counting_server, auth, expiry=60)
    user = {"name": "alice"}
    named = own_controller_factory(identity=lambda: user["name"])
    await named.fetch(endpoint)
    user["name"] = "bob"
    assert await named.get(endpoint) == {"user": "tok-1"}  # asked again
    assert counting_server.counts["whoami:tok-1"] == 2
    unnamed = own_controller_factory()
    await unnamed.get(endpoint)
    auth.token = "tok-2"
    assert await unnamed.get(endpoint) == {"user": "tok-2"}
    assert counting_server.counts["whoami:tok-2"] == 1


async def test_a_named_caller_keeps_its_cache_entries_when_its_token_rotates(
    own_controller_factory: Make, cache: HttpCache, counting_server: CountingServer
) -> None:
    """Kept in the store for no time, so every call reaches the HTTP cache:
    the entry a caller filled with one token answers it with the next;
    another name on the same cache is not answered from it."""
    auth = AccessToken("tok-1")
    endpoint = whoami(counting_server, auth, expiry=0)
    alice = own_controller_factory(cache=cache, identity=lambda: "alice")
    assert await alice.fetch(endpoint) == {"user": "tok-1"}
    auth.token = "tok-2"
    assert await alice.fetch(endpoint) == {"user": "tok-1"}  # from the cache
    assert "whoami:tok-2" not in counting_server.counts
    bob = own_controller_factory(cache=cache, identity=lambda: "bob")
    assert await bob.fetch(endpoint) == {"user": "tok-2"}
    unnamed = own_controller_factory(cache=cache)
    assert await unnamed.fetch(endpoint) == {"user": "tok-2"}
    auth.token = "tok-3"
    assert await unnamed.fetch(endpoint) == {"user": "tok-3"}
    assert dict(counting_server.counts) == {
        "whoami:tok-1": 1,
        "whoami:tok-2": 2,
        "whoami:tok-3": 1,
    }


def naming(name: str | None) -> Callable[[], str | None]:
    return lambda: name


async def test_calls_in_flight_and_pollers_are_keyed_by_the_name() -> None:
    """What keys calls in flight and pollers is the identity a call's first
    hop gives (the store's and the cache's key too): under a name, equal
    across tokens; without one, apart. Both drivers."""
    auth = AccessToken("tok-1")
    endpoint = RestEndpoint(url_prefix="https://api.example.com", path="/x").use(auth)
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json={}))
    for name, shared in (("alice", True), (None, False)):
        controllers: list[Any] = [
            Controller(httpx.Client(transport=transport), identity=naming(name)),
            AsyncController(
                httpx.AsyncClient(transport=transport), identity=naming(name)
            ),
        ]
        for controller in controllers:
            auth.token = "tok-1"
            before = controller._probe(endpoint, {})
            auth.token = "tok-2"
            assert (controller._probe(endpoint, {}) == before) is shared
        controllers[0].close()
        controllers[0].client.close()
        await controllers[1].close()
        await controllers[1].client.aclose()


_CHILD = textwrap.dedent(
    """
    import sys

    import tests  # httpx is httpx2 where only httpx2 is installed
    from restwire import Controller, HttpCache, RestEndpoint
    from restwire.middlewares import AccessToken

    storage, origin, token, name = sys.argv[1:5]
    if storage.startswith("redis://"):
        cache = HttpCache.redis(storage)
    else:
        cache = HttpCache.sqlite(storage)
    with Controller(cache=cache, identity=(lambda: name) if name else None) as c:
        endpoint = RestEndpoint(
            url_prefix=origin, path="/whoami", data_expiry_length=0
        ).use(AccessToken(token))
        print(c.fetch(endpoint)["user"])
    """
)


@pytest.mark.parametrize("storage", ["sqlite", "redis"])
@pytest.mark.parametrize(
    ("names", "answers"),
    [
        (("alice", "alice"), ["tok-1", "tok-1"]),  # one caller: one request
        (("alice", "bob"), ["tok-1", "tok-2"]),
        (("", ""), ["tok-1", "tok-2"]),  # no name: each token its own
    ],
)
def test_processes_naming_one_caller_share_the_cache_across_tokens(
    request: pytest.FixtureRequest,
    counting_server: CountingServer,
    tmp_path: Path,
    storage: str,
    names: tuple[str, str],
    answers: list[str],
) -> None:
    """Each process logs in with a token of its own; two that name the same
    caller share the cache's entry, on SQLite and on Redis."""
    where = (
        request.getfixturevalue("redis_url")
        if storage == "redis"
        else str(tmp_path / "shared.db")
    )
    got = []
    for token, name in zip(("tok-1", "tok-2"), names, strict=True):
        child = subprocess.run(
            [sys.executable, "-c", _CHILD, where, counting_server.origin, token, name],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": os.getcwd()},
        )
        assert child.returncode == 0, child.stderr[-2000:]
        got.append(child.stdout.strip())
    assert got == answers
    assert sum(counting_server.counts.values()) == len(set(answers))
