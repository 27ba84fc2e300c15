"""HttpCache: RFC 9111 caching under both controllers, the identity rule
through it, credentials kept out of storage, and no parse for an unchanged
body.

Every test talks to the counting server on 127.0.0.1 over a real socket
(revalidation and ``Cache-Control`` come from a server, not a mock), under
both drivers; the storages are a SQLite file in a temporary folder and a
real redis-server. The four-process promise is in
``tests/processes/test_many_processes.py``.
"""

from __future__ import annotations

import contextvars
import logging
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import msgpack
import pytest
import redis

from restwire import (
    AsyncController,
    Controller,
    ControllerClosed,
    HttpCache,
    Lease,
    RestEndpoint,
    RestwireError,
)
from restwire._cache.fill_locks import FileLocks
from restwire.middlewares import AccessToken, ContextToken
from tests.benchmarks.server import BenchServer
from tests.conftest import FakeClock
from tests.counting_server import CountingServer
from tests.pipeline.test_fill_lock import stripe_mate
from tests.redis_server import REDIS_SERVER, RedisServer
from tests.waiting import HANG, until

pytestmark = pytest.mark.anyio

Make = Callable[..., Any]


@pytest.fixture
def make(own_controller_factory: Make) -> Make:
    """``make(cache=..., clock=...)``: a controller of this test's driver
    that owns its client (and so closes its cache storage)."""
    return own_controller_factory


def resource(server: CountingServer, name: str, **options: Any) -> RestEndpoint:
    return RestEndpoint(url_prefix=server.origin, path=f"/resource/{name}", **options)


async def test_a_stale_get_costs_a_304_and_no_parse(
    make: Make, cache: HttpCache, counting_server: CountingServer
) -> None:
    clock = FakeClock()
    parsed: list[int] = []

    def parse(response: httpx.Response) -> Any:
        parsed.append(1)
        return response.json()

    endpoint = resource(
        counting_server, "a", data_expiry_length=10, parse_response=parse
    )
    controller = make(cache=cache, clock=clock)
    first = await controller.get(endpoint, {"max_age": 1})
    # the store's value stale, and the HTTP entry too (its age counts from
    # the response's Date, whole seconds: fresh for at most 1 s): a 304
    time.sleep(1.1)
    clock.advance(11)
    assert await controller.get(endpoint, {"max_age": 1}) is first
    assert counting_server.counts["a:full"] == 1
    assert counting_server.counts["a:not_modified"] == 1
    assert parsed == [1]  # the body was parsed once, for the first get
    clock.advance(5)  # renewed by the 304: fresh in the store again
    assert await controller.get(endpoint, {"max_age": 1}) is first
    assert counting_server.counts["a:not_modified"] == 1


async def test_without_a_cache_every_refetch_is_a_full_body(
    make: Make, counting_server: CountingServer
) -> None:
    clock = FakeClock()
    endpoint = resource(counting_server, "b", data_expiry_length=10)
    controller = make(clock=clock)
    for _ in range(3):
        await controller.get(endpoint, {"max_age": 60})
        clock.advance(11)
    assert counting_server.counts["b:full"] == 3
    assert counting_server.counts["b:not_modified"] == 0


async def test_no_store_is_never_kept(
    make: Make, cache: HttpCache, counting_server: CountingServer
) -> None:
    endpoint = resource(counting_server, "c", data_expiry_length=0)
    controller = make(cache=cache)
    for _ in range(3):
        await controller.fetch(endpoint, {"max_age": 60, "cc": "no-store"})
    assert counting_server.counts["c:full"] == 3


async def test_a_private_response_is_kept_for_its_identity_alone(
    make: Make, cache: HttpCache, counting_server: CountingServer
) -> None:
    """One controller shared by two users: each user's cached answer is
    served to that user only, with no Vary, with Vary on something else,
    and with Vary naming the credential."""
    user: contextvars.ContextVar[str | None] = contextvars.ContextVar("user")
    whoami = RestEndpoint(
        url_prefix=counting_server.origin, path="/whoami", data_expiry_length=0
    ).use(ContextToken(user, header="Access-Token"))
    controller = make(cache=cache)
    for vary in ("", "Accept-Language", "Access-Token"):
        params = {"vary": vary} if vary else {}
        for name in ("ann", "bob", "ann", "bob"):
            user.set(name)
            assert await controller.fetch(whoami, params) == {"user": name}
    assert counting_server.counts["whoami:ann"] == 3  # once per Vary, not twice
    assert counting_server.counts["whoami:bob"] == 3


async def test_a_shared_response_is_not_shared_between_identities_either(
    make: Make, cache: HttpCache, counting_server: CountingServer
) -> None:
    auth = AccessToken("ann-token")
    whoami = RestEndpoint(
        url_prefix=counting_server.origin, path="/whoami", data_expiry_length=0
    ).use(auth)
    controller = make(cache=cache)
    public = {"cc": "public, max-age=60"}
    assert await controller.fetch(whoami, public) == {"user": "ann-token"}
    auth.token = "bob-token"
    assert await controller.fetch(whoami, public) == {"user": "bob-token"}
    auth.token = "ann-token"
    assert await controller.fetch(whoami, public) == {"user": "ann-token"}
    assert counting_server.counts["whoami:ann-token"] == 1
    assert counting_server.counts["whoami:bob-token"] == 1


async def test_no_credential_reaches_the_storage(
    make: Make, tmp_path: Path, counting_server: CountingServer
) -> None:
    path = tmp_path / "cache.db"
    whoami = RestEndpoint(
        url_prefix=counting_server.origin, path="/whoami", data_expiry_length=0
    ).use(AccessToken("secret-token-value"))
    controller = make(cache=HttpCache.sqlite(path))
    client = controller.client
    client.cookies.set("sessionid", "secret-cookie-value", domain="127.0.0.1")
    for _ in range(2):
        await controller.fetch(whoami, {"vary": "Access-Token, Cookie"})
    # served from the cache the second time, credentials back on the wire
    assert counting_server.counts["whoami:secret-token-value"] == 1
    with sqlite3.connect(path) as db:
        stored = b"".join(
            bytes(row[0]) for row in db.execute("SELECT data FROM entries")
        )
    assert stored
    assert b"secret-token-value" not in stored
    assert b"secret-cookie-value" not in stored


async def test_an_unsafe_request_invalidates_the_entries_of_its_url(
    make: Make, cache: HttpCache, counting_server: CountingServer
) -> None:
    endpoint = resource(counting_server, "d", data_expiry_length=0)
    change = resource(counting_server, "d", method="POST")
    controller = make(cache=cache)
    await controller.fetch(endpoint, {"max_age": 60})
    await controller.fetch(endpoint, {"max_age": 60})
    assert counting_server.counts["d:full"] == 1
    await controller.fetch(change, {"max_age": 60}, body={"x": 1})
    await controller.fetch(endpoint, {"max_age": 60})
    assert counting_server.counts["d:full"] == 3  # the POST, and a refetch


async def test_requests_without_a_ticket_pass_by_the_cache(
    mode: str, cache: HttpCache, counting_server: CountingServer
) -> None:
    """The user's own requests on the client never meet the cache, and a
    client auth that puts no credential on the first hop (Digest answers a
    challenge) passes by it: nothing is kept under a key that does not say
    who asked. A Basic auth is cached under its own credentials."""
    url = counting_server.url("/resource/e?max_age=60")
    endpoint = RestEndpoint(url_prefix=url, data_expiry_length=0)
    clients: list[tuple[Any, int]] = [
        (httpx.DigestAuth("u", "p"), 4),  # 2 direct + 2 through restwire
        (httpx.BasicAuth("u", "p"), 3),  # 2 direct + 1: the second from the cache
    ]
    for auth, full in clients:
        counting_server.counts.clear()
        if mode == "sync":
            with httpx.Client(auth=auth) as client:
                controller = Controller(client, cache=cache)
                client.get(url)
                client.get(url)
                controller.fetch(endpoint)
                controller.fetch(endpoint)
                controller.close()
        else:
            async with httpx.AsyncClient(auth=auth) as async_client:
                async_controller = AsyncController(async_client, cache=cache)
                await async_client.get(url)
                await async_client.get(url)
                await async_controller.fetch(endpoint)
                await async_controller.fetch(endpoint)
                await async_controller.close()
        assert counting_server.counts["e:full"] == full, type(auth).__name__


async def test_two_basic_auths_never_share_an_entry(
    mode: str, cache: HttpCache, counting_server: CountingServer
) -> None:
    url = counting_server.url("/resource/f2?max_age=60")
    endpoint = RestEndpoint(url_prefix=url, data_expiry_length=0)
    for name in ("ann", "bob", "ann", "bob"):
        # clients restwire makes (a user's own would share nothing at all),
        # each given its caller's auth
        if mode == "sync":
            with Controller(cache=cache) as each:
                each.client.auth = (name, "pw")
                each.fetch(endpoint)
        else:
            async with AsyncController(cache=cache) as async_each:
                async_each.client.auth = (name, "pw")
                await async_each.fetch(endpoint)
    assert counting_server.counts["f2:full"] == 2  # once for ann, once for bob


async def test_one_cache_serves_both_kinds_of_controller_and_any_client(
    cache: HttpCache, counting_server: CountingServer
) -> None:
    """The cache is a step of the call, not a part of a client: a sync and an
    async controller, each on a client restwire made, share its entries,
    and two controllers on one client of the user's share theirs (a client
    restwire cannot see whole answers no other client's calls: its
    transport may present a certificate of its own)."""
    endpoint = resource(counting_server, "g", data_expiry_length=0)
    with httpx.Client() as client:
        first = Controller(client, cache=cache)
        second = Controller(client, cache=cache)
        assert first.fetch(endpoint, {"max_age": 60})["name"] == "g"
        assert second.fetch(endpoint, {"max_age": 60})["name"] == "g"
        first.close()
        second.close()
    assert counting_server.counts["g:full"] == 1
    with Controller(cache=cache) as sync_controller:
        assert sync_controller.fetch(endpoint, {"max_age": 60})["name"] == "g"
    async with AsyncController(cache=cache) as async_controller:
        value = await async_controller.fetch(endpoint, {"max_age": 60})
        assert value["name"] == "g"
    assert counting_server.counts["g:full"] == 2  # one for the user's client
    assert repr(cache).startswith("HttpCache(")


async def test_a_redis_that_is_down_is_a_cache_miss_not_a_failed_call(
    make: Make, counting_server: CountingServer
) -> None:
    cache = HttpCache.redis("redis://127.0.0.1:1/0", timeout=0.5)
    controller = make(cache=cache)
    endpoint = resource(counting_server, "f", data_expiry_length=0)
    for _ in range(2):
        value = await controller.fetch(endpoint, {"max_age": 60})
        assert value["name"] == "f"
    assert counting_server.counts["f:full"] == 2


async def test_a_redis_that_is_down_is_one_line_naming_its_address(
    make: Make, counting_server: CountingServer, caplog: pytest.LogCaptureFixture
) -> None:
    cache = HttpCache.redis("redis://ann:s3cret@127.0.0.1:1/2", timeout=0.5)
    controller = make(cache=cache)
    endpoint = resource(counting_server, "g", data_expiry_length=0)
    caplog.set_level(logging.DEBUG, logger="restwire")
    for _ in range(5):
        await controller.fetch(endpoint, {"max_age": 60})
    said = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage() for r in said] == [
        "restwire: HTTP cache redis:127.0.0.1:1/2 'restwire-cache' unavailable "
        "(ConnectionError): calls go to the server, uncached, until it answers again"
    ]
    assert said[0].exc_info is None
    assert "s3cret" not in caplog.text


# -- fill locks: per key, and a wait closing ends ---------------------------------------


class KeyRecorder:
    """Fill locks that note each key tried, over the cache's own."""

    def __init__(self, inner: FileLocks) -> None:
        self.inner = inner
        self.keys: list[str] = []

    def try_acquire(self, key: str) -> Lease | None:
        self.keys.append(key)
        return self.inner.try_acquire(key)


def recorded(cache: HttpCache) -> tuple[KeyRecorder, FileLocks]:
    """Record the keys ``cache`` locks; its file locks, to hold one."""
    assert isinstance(cache.locks, FileLocks)
    recorder = KeyRecorder(cache.locks)
    cache.locks = recorder
    return recorder, FileLocks(recorder.inner.folder)


async def test_a_held_fill_lock_never_delays_another_url(
    make: Make, tmp_path: Path, counting_server: CountingServer
) -> None:
    """Another process filling one entry (its lock held) delays no other
    entry, not even one whose key shared a lock stripe with it."""
    cache = HttpCache.sqlite(tmp_path / "cache.db", fill_wait=60)
    recorder, locks = recorded(cache)
    controller = make(cache=cache)
    endpoint = resource(counting_server, "b", data_expiry_length=0)
    await controller.fetch(endpoint, {"max_age": 0})  # stored, stale at once
    held = locks.try_acquire(stripe_mate(recorder.keys[-1]))
    assert held is not None
    try:
        started = time.monotonic()
        await controller.fetch(endpoint, {"max_age": 0})  # a revalidation
        assert time.monotonic() - started < 20  # not the fill_wait (60 s)
    finally:
        held.release()
    assert counting_server.counts["b:not_modified"] == 1


async def test_closing_ends_a_fill_lock_wait_at_once(
    mode: str, tmp_path: Path, counting_server: CountingServer
) -> None:
    cache = HttpCache.sqlite(tmp_path / "cache.db", fill_wait=HANG)
    recorder, locks = recorded(cache)
    endpoint = resource(counting_server, "w", data_expiry_length=0)
    params = {"max_age": 0}

    async def waiting(tries: int) -> None:
        """Until the call has tried the held lock and waits for it."""
        await until(lambda: len(recorder.keys) >= tries + 2)

    if mode == "sync":
        controller = Controller(cache=cache)
        controller.fetch(endpoint, params)
        held = locks.try_acquire(recorder.keys[-1])
        outcome: list[BaseException | None] = []

        def call() -> None:
            try:
                controller.fetch(endpoint, params)
                outcome.append(None)
            except BaseException as error:
                outcome.append(error)

        thread = threading.Thread(target=call)
        thread.start()
        await waiting(len(recorder.keys))
        started = time.monotonic()
        controller.close()
        thread.join(HANG)
        elapsed = time.monotonic() - started
        assert not thread.is_alive()
        error = outcome[0]
    else:
        async_controller = AsyncController(cache=cache)
        await async_controller.fetch(endpoint, params)
        held = locks.try_acquire(recorder.keys[-1])
        caught: list[BaseException] = []

        async def async_call() -> None:
            try:
                await async_controller.fetch(endpoint, params)
            except RestwireError as failure:
                caught.append(failure)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(async_call)
            await waiting(len(recorder.keys))
            started = time.monotonic()
            with anyio.fail_after(HANG):
                await async_controller.close()
        elapsed = time.monotonic() - started
        error = caught[0] if caught else None
    assert held is not None
    held.release()
    assert isinstance(error, ControllerClosed)
    assert isinstance(error, RestwireError)
    assert elapsed < HANG / 4  # at once, not after the fill_wait
    assert counting_server.counts["w:full"] == 1  # the wait sent nothing


# -- load: many cold fills at once --------------------------------------------------


async def test_concurrent_cold_gets_each_fill_their_own_entry(
    tmp_path: Path,
) -> None:
    """100 concurrent cold GETs of 100 URLs through a SQLite cache, on an
    AsyncController: each is stored (one fill lock per key: none waits for
    another's), and a second round is answered from storage after a 304,
    its body not sent again. How fast, against no cache, is benchmark row 9b."""
    calls = 100
    limits = httpx.Limits(max_connections=calls, max_keepalive_connections=calls)
    caching: list[dict[str, bool]] = []

    async def one(controller: AsyncController, params: dict[str, str]) -> None:
        response = await controller.fetch_response(endpoint, params)
        caching.append(response.extensions["caching"])

    async def run(controller: AsyncController) -> None:
        async with anyio.create_task_group() as tasks:
            for n in range(calls):
                tasks.start_soon(one, controller, {"n": str(n)})

    with BenchServer() as server:
        # an ETag and max-age=0: every response is stored, then revalidated
        endpoint = RestEndpoint(
            url_prefix=server.origin, path="/prices/10", data_expiry_length=0
        )
        cache = HttpCache.sqlite(tmp_path / "cache.db")
        async with AsyncController(
            transport=httpx.AsyncHTTPTransport(limits=limits), cache=cache
        ) as cached:
            await run(cached)
            assert [each["stored"] for each in caching] == [True] * calls
            caching.clear()
            await run(cached)
    assert caching == [{"from_cache": True, "revalidated": True, "stored": False}] * (
        calls
    )


# -- cache files: private, and only where asked ---------------------------------------------


async def test_cache_files_are_private_and_only_where_asked(
    make: Make,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    counting_server: CountingServer,
) -> None:
    working = tmp_path / "working"
    working.mkdir()
    monkeypatch.chdir(working)
    previous = os.umask(0o022)  # a usual umask: files 0644, folders 0755
    try:
        path = tmp_path / "made" / "for" / "cache.db"
        cache = HttpCache.sqlite(path)
        controller = make(cache=cache)
        for name in ("p", "q"):
            await controller.fetch(resource(counting_server, name), {"max_age": 60})
        assert isinstance(cache.locks, FileLocks)
        held = cache.locks.try_acquire("a key")  # a lock file, while it is held
        assert held is not None
        made = {
            path: 0o600,
            path.with_name("cache.db-wal"): 0o600,
            path.with_name("cache.db-shm"): 0o600,
            cache.locks.folder: 0o700,
            tmp_path / "made": 0o700,
            tmp_path / "made" / "for": 0o700,
        }
        modes = {each: stat.S_IMODE(each.stat().st_mode) for each in made}
        lock_files = [
            stat.S_IMODE(each.stat().st_mode) for each in cache.locks.folder.iterdir()
        ]
        held.release()
    finally:
        os.umask(previous)
    assert modes == made
    assert lock_files == [0o600]
    assert list(working.iterdir()) == []  # no .cache/, no .gitignore
    assert sorted(each.name for each in path.parent.iterdir()) == [
        "cache.db",
        "cache.db-shm",
        "cache.db-wal",
        "cache.db.locks",
    ]


# -- storage faults: a miss, one line, never an error -------------------------------------


def cache_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What restwire and hishel logged (at WARNING and above)."""
    return [
        record.getMessage()
        for record in caplog.records
        if record.levelno >= logging.WARNING
        and record.name.split(".")[0] in ("restwire", "hishel")
    ]


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A redis-server of this test's own, to kill and start again."""
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed")
    with RedisServer() as server:
        yield server


async def test_a_redis_killed_mid_read_is_a_miss_and_one_line_each_way(
    make: Make,
    own_redis: RedisServer,
    counting_server: CountingServer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Redis dies while a cached body is read from it: that call goes to
    the server, and so do the next ones, with no Redis command tried until
    a back-off has passed (one line); then it answers again (one line)
    and the cache fills again."""
    caplog.set_level(logging.WARNING)
    armed = threading.Event()
    read = redis.Redis.lindex

    def lindex(self: redis.Redis, name: str, index: int) -> Any:
        if armed.is_set():
            armed.clear()
            own_redis.kill()
        return read(self, name, index)

    monkeypatch.setattr(redis.Redis, "lindex", lindex)
    cache = HttpCache.redis(own_redis.url, timeout=1.0)
    cache.recheck_after = 0.3
    controller = make(cache=cache)
    endpoint = resource(counting_server, "k", data_expiry_length=0)
    params = {"max_age": 60}
    await controller.fetch(endpoint, params)  # stored
    await controller.fetch(endpoint, params)  # from Redis
    assert counting_server.counts["k:full"] == 1
    armed.set()
    for _ in range(3):  # killed as the body is read, then left alone
        assert (await controller.fetch(endpoint, params))["name"] == "k"
    assert counting_server.counts["k:full"] == 4
    [down] = cache_lines(caplog)
    assert "unavailable" in down
    own_redis.restart()
    time.sleep(0.4)  # the back-off
    for _ in range(3):  # answers again: stored anew, then served
        assert (await controller.fetch(endpoint, params))["name"] == "k"
    assert counting_server.counts["k:full"] == 5
    [_, back] = cache_lines(caplog)
    assert "again" in back


def corrupt_header(data: bytes) -> bytes:
    """A stored entry whose Cache-Control value is a number: it unpacks,
    and hishel's state machine raises a TypeError on it."""
    entry = msgpack.unpackb(data)
    entry["response"]["headers"]["cache-control"] = [60]
    return bytes(msgpack.packb(entry))


def corrupt_status(data: bytes) -> bytes:
    """A stored entry whose status code is a word."""
    entry = msgpack.unpackb(data)
    entry["response"]["status_code"] = "OK"
    return bytes(msgpack.packb(entry))


#: SQL that corrupts every stored entry, each a way the tests have seen.
SQLITE_CORRUPTIONS: dict[str, Callable[[sqlite3.Connection], object]] = {
    "undecodable": lambda db: db.execute("UPDATE entries SET data = X'C1'"),
    "body missing": lambda db: db.execute("DELETE FROM streams"),
    "body as text": lambda db: db.execute("UPDATE streams SET chunk_data = 'text'"),
    "header type": lambda db: [
        db.execute(
            "UPDATE entries SET data = ? WHERE id = ?",
            (corrupt_header(bytes(data)), entry),
        )
        for entry, data in db.execute("SELECT id, data FROM entries").fetchall()
    ],
    "status word": lambda db: [
        db.execute(
            "UPDATE entries SET data = ? WHERE id = ?",
            (corrupt_status(bytes(data)), entry),
        )
        for entry, data in db.execute("SELECT id, data FROM entries").fetchall()
    ],
}


@pytest.mark.parametrize("corruption", list(SQLITE_CORRUPTIONS))
async def test_a_malformed_sqlite_entry_is_a_miss_and_is_removed(
    corruption: str,
    make: Make,
    tmp_path: Path,
    counting_server: CountingServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    path = tmp_path / "cache.db"
    controller = make(cache=HttpCache.sqlite(path))
    for round_, name in enumerate(("m", "n")):
        endpoint = resource(counting_server, name, data_expiry_length=0)
        await controller.fetch(endpoint, {"max_age": 60})
        with sqlite3.connect(path) as db:
            SQLITE_CORRUPTIONS[corruption](db)
        for _ in range(2):  # a miss, stored anew; then served from it
            assert (await controller.fetch(endpoint, {"max_age": 60}))["name"] == name
        assert counting_server.counts[f"{name}:full"] == 2
        # one line for this kind of fault, however often it happens
        assert len(cache_lines(caplog)) == 1, (round_, cache_lines(caplog))
    with sqlite3.connect(path) as db:
        # (hishel hides a removed entry at once: expires_at 0; the row goes later)
        [[visible]] = db.execute(
            "SELECT count(*) FROM entries WHERE expires_at IS NULL OR expires_at > 0"
        )
    assert visible == 2  # the malformed ones gone, the new ones kept


async def test_a_malformed_redis_entry_is_a_miss_and_is_removed(
    make: Make,
    redis_url: str,
    counting_server: CountingServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    client = redis.Redis.from_url(redis_url)
    controller = make(cache=HttpCache.redis(redis_url))
    for name, corrupt in (("m", corrupt_header), ("n", lambda data: b"\xc1")):
        endpoint = resource(counting_server, name, data_expiry_length=0)
        await controller.fetch(endpoint, {"max_age": 60})
        for key in client.scan_iter("restwire-cache:entry:*"):
            stored = client.get(key)
            assert isinstance(stored, bytes)
            client.set(key, corrupt(stored))
        for _ in range(2):
            assert (await controller.fetch(endpoint, {"max_age": 60}))["name"] == name
        assert counting_server.counts[f"{name}:full"] == 2
    assert len(cache_lines(caplog)) == 1, cache_lines(caplog)


def not_a_database(path: Path) -> None:
    path.write_bytes(b"this is not a database" * 100)


def foreign_table(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE entries (name TEXT)")


def a_folder(path: Path) -> None:
    path.mkdir()


@pytest.mark.parametrize("damage", [not_a_database, foreign_table, a_folder])
async def test_a_sqlite_file_that_fails_is_a_miss_and_one_line(
    damage: Callable[[Path], None],
    make: Make,
    tmp_path: Path,
    counting_server: CountingServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    path = tmp_path / "cache.db"
    damage(path)
    controller = make(cache=HttpCache.sqlite(path))
    endpoint = resource(counting_server, "s", data_expiry_length=0)
    for _ in range(3):
        assert (await controller.fetch(endpoint, {"max_age": 60}))["name"] == "s"
    assert counting_server.counts["s:full"] == 3
    [line] = cache_lines(caplog)
    assert "unavailable" in line


async def test_a_304_keeps_the_stored_object_for_fetch_too(
    make: Make, cache: HttpCache, counting_server: CountingServer
) -> None:
    """``fetch`` always asks, but a body the cache gives unchanged (fresh,
    or after a 304) is the body its stored value was read from: the same
    object comes back, renewed, and nothing is parsed again."""
    parsed: list[int] = []

    def parse(response: httpx.Response) -> Any:
        parsed.append(1)
        return response.json()

    endpoint = resource(
        counting_server, "f", data_expiry_length=60, parse_response=parse
    )
    controller = make(cache=cache)
    first = await controller.fetch(endpoint, {"max_age": 1})
    # fresh (or, on a machine slow enough to pass the second, a 304): the
    # same object either way
    assert await controller.fetch(endpoint, {"max_age": 1}) is first
    time.sleep(1.1)  # the entry stale (its age in whole seconds): a 304
    assert await controller.fetch(endpoint, {"max_age": 1}) is first
    assert counting_server.counts["f:full"] == 1
    assert counting_server.counts["f:not_modified"] in (1, 2)
    assert parsed == [1]
    assert await controller.get(endpoint, {"max_age": 1}) is first  # renewed


async def test_a_response_without_a_date_still_expires(
    make: Make, cache: HttpCache, counting_server: CountingServer
) -> None:
    """A server that sends no ``Date``: the entry is stamped with the time
    it came, so ``max-age=1`` ends after a second and the next call asks
    with ``If-None-Match`` (hishel alone takes its age for 0, forever)."""
    clock = FakeClock()
    endpoint = resource(counting_server, "d", data_expiry_length=10)
    controller = make(cache=cache, clock=clock)
    query = {"max_age": 1, "no_date": 1}
    first = await controller.get(endpoint, query)
    time.sleep(2.1)  # the stamp is in whole seconds
    clock.advance(11)  # the stored value stale too
    # (the 304's stamp, in whole seconds, made early in a second: made
    # late in one, it would read nearly a second old at once, and the
    # call below could find it stale on a slow machine)
    time.sleep(1.0 - time.time() % 1.0 + 0.01)
    assert await controller.get(endpoint, query) is first
    assert counting_server.counts["d:full"] == 1
    assert counting_server.counts["d:not_modified"] == 1
    # renewed by the 304, which had no Date either: fresh again
    assert await controller.fetch(endpoint, query) is first
    assert counting_server.counts["d:not_modified"] == 1
