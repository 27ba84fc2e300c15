"""Many processes sharing one API through Redis (issue 16): each promise is
held with 4 worker processes, a real redis-server and a counting server on
127.0.0.1 (no mock stands in for Redis or the network).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.counting_server import CountingServer
from tests.forkserver import FORKSERVER
from tests.oauth_server import TokenServer
from tests.processes import workers

WORKERS = 4


def run_all(job: Callable[..., Any], *args: Any) -> list[Any]:
    """Run ``job`` in ``WORKERS`` processes at once (a barrier of that many
    is added to its arguments); their results, in worker order.

    The processes are forked from the fork server (``tests/forkserver.py``:
    one clean process, started once, with restwire and the workers
    imported): separate processes with nothing inherited from the test
    process's threads, each started in milliseconds instead of a fresh
    interpreter's second or two."""
    context = FORKSERVER
    queue = context.Queue()
    barrier = context.Barrier(WORKERS)
    processes = [
        context.Process(
            target=workers.run_worker, args=(job, index, queue, *args, barrier)
        )
        for index in range(WORKERS)
    ]
    for process in processes:
        process.start()
    results = dict(queue.get(timeout=60) for _ in processes)
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0
    return [results[index] for index in range(WORKERS)]


def test_four_processes_seeing_401_together_refresh_once(
    counting_server: CountingServer, redis_url: str
) -> None:
    results = run_all(workers.refresh_together, counting_server.origin, redis_url)
    assert results == [{"ok": True}] * WORKERS
    assert counting_server.counts["token"] == 1
    # each worker: its 401, then one call with the new token
    assert counting_server.counts["me"] == 2 * WORKERS


def test_a_failed_refresh_is_tried_once_by_four_processes(
    counting_server: CountingServer, redis_url: str
) -> None:
    """The processes that waited on the shared lock behind a refresh that
    failed get its failure (a 401 whose cause says so) without calling
    ``refresh`` again."""
    results = run_all(workers.fail_refresh_together, counting_server.origin, redis_url)
    assert sorted(results) == sorted(
        [[401, "RuntimeError"]] + [[401, "SharedTokenError"]] * (WORKERS - 1)
    ), results
    assert redis.Redis.from_url(redis_url).get(workers.REFRESHES) == b"1"
    assert counting_server.counts["me"] == WORKERS  # none sent again


#: A token record as an OAuth2 grant keeps it in the shared slot, by when
#: it is renewed: ``"expired"`` (tok-old, which the server never issued,
#: renewed at once), ``"valid"`` (tok-old, not due: each process sends it,
#: gets 401, and they renew once between them).
SEEDS = {
    "expired": {"access_token": "tok-old", "expires_at": 1.0, "renew_at": 0.0},
    "valid": {"access_token": "tok-old", "expires_at": 4e9, "renew_at": 4e9},
}


@pytest.mark.parametrize(
    "slot",
    [
        "empty",
        # the same single flight from a seeded slot: under -m slow (4 more
        # processes each, 8 s of the default run's time)
        pytest.param("expired", marks=pytest.mark.slow),
        pytest.param("valid", marks=pytest.mark.slow),
    ],
)
def test_four_processes_make_one_oauth2_token_request(
    redis_url: str, slot: str
) -> None:
    """Four processes with no token of their own, an OAuth2 grant shared
    through Redis: one token request between them, whether the slot is
    empty, holds a token due for renewal, or one the API refuses."""
    if slot in SEEDS:
        record = {"refresh_token": None, "scope": None, **SEEDS[slot]}
        redis.Redis.from_url(redis_url).set(
            "oauth2-test:token", json.dumps(record, sort_keys=True)
        )
    with TokenServer() as server:
        server.pause = 0.2  # so the others come while it runs
        results = run_all(workers.oauth2_together, server.origin, redis_url)
        assert results == [{"token": "tok-1"}] * WORKERS, results
        assert server.counts["client_credentials"] == 1
        expected_me = 2 * WORKERS if slot == "valid" else WORKERS
        assert server.counts["me"] == expected_me
    stored = json.loads(redis.Redis.from_url(redis_url).get("oauth2-test:token") or "")
    assert stored["access_token"] == "tok-1"
    assert stored["expires_at"] > stored["renew_at"] > 0


def test_four_processes_sharing_a_rate_in_redis_never_exceed_it(
    counting_server: CountingServer, redis_url: str
) -> None:
    rate, calls = 20, 15  # 60 calls at 20 a second: three seconds or so
    results = run_all(
        workers.limited_together, counting_server.origin, redis_url, rate, calls
    )
    # nothing lost: every call of every worker completed
    assert results == [["ok"] * calls] * WORKERS
    assert len(counting_server.arrivals) == WORKERS * calls
    assert counting_server.most_in_any_window(1.0) <= rate


@pytest.mark.parametrize(
    "storage",
    # (with no cache, every round fetches in full: the baseline, -m slow)
    ["sqlite", "redis", pytest.param("none", marks=pytest.mark.slow)],
)
def test_four_processes_share_one_http_cache(
    storage: str, counting_server: CountingServer, tmp_path: Path, request: Any
) -> None:
    """Each URL is fetched with its full body once, then revalidated (304)
    once a freshness window (1 s) has passed, or served from the cache; the
    stored values are read again only through the cache. With no cache,
    every worker fetches every URL in full each round, as before."""
    where = ""
    if storage == "sqlite":
        where = str(tmp_path / "shared.db")
    elif storage == "redis":
        where = request.getfixturevalue("redis_url")
    results = run_all(workers.cached_together, counting_server.origin, storage, where)
    expected = list(workers.NAMES) * workers.ROUNDS
    assert results == [expected] * WORKERS
    counts = counting_server.counts
    for name in workers.NAMES:
        if storage == "none":
            assert counts[f"{name}:full"] == WORKERS * workers.ROUNDS
            assert counts[f"{name}:not_modified"] == 0
        else:
            # one full body in all; rounds at about 0, 0.7 and 1.4 s span
            # two freshness windows: at most one revalidation each after
            # the first
            assert counts[f"{name}:full"] == 1, (name, dict(counts))
            assert counts[f"{name}:not_modified"] <= 2, (name, dict(counts))
