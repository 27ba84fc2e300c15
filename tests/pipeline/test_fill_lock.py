"""Fill locks: one lock per cache key, exclusive across processes, never
left behind (files removed, forked children holding nothing), private.

Real processes throughout (forked from the fork server, ``tests/forkserver.py``,
and ``os.fork`` inside such a clean, single-threaded one), and a real
redis-server for :class:`RedisLocks`.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from restwire._cache.fill_locks import FileLocks
from tests.forkserver import FORKSERVER
from tests.pipeline import fill_lock_workers


def striped(key: str) -> int:
    """The stripe ``key`` had when file locks were 64 stripes, by key hash."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 64


def stripe_mate(key: str) -> str:
    """Another key that shared ``key``'s stripe under 64 stripes."""
    return next(
        other
        for other in (f"other-{n}" for n in itertools.count())
        if striped(other) == striped(key)
    )


def test_a_held_key_never_blocks_another(tmp_path: Path) -> None:
    locks = FileLocks(tmp_path / "locks")
    held = locks.try_acquire("key-a")
    assert held is not None
    # the same key is taken (by a fresh open: even within one process) ...
    assert locks.try_acquire("key-a") is None
    # ... another key is free, even one that shared a stripe with it
    other = locks.try_acquire(stripe_mate("key-a"))
    assert other is not None
    other.release()
    held.release()
    again = locks.try_acquire("key-a")
    assert again is not None
    again.release()


def test_one_private_lock_file_whatever_the_number_of_keys(tmp_path: Path) -> None:
    folder = tmp_path / "made" / "locks"
    locks = FileLocks(folder)
    leases = [locks.try_acquire(f"key-{n}") for n in range(50)]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "made").stat().st_mode) == 0o700
    [only] = list(folder.iterdir())
    assert stat.S_IMODE(only.stat().st_mode) == 0o600
    # another FileLocks on the folder, in this process: the same locks
    assert FileLocks(folder).try_acquire("key-7") is None
    for lease in leases:
        assert lease is not None
        lease.release()
        lease.release()  # a second release is nothing
    again = FileLocks(folder).try_acquire("key-7")
    assert again is not None
    again.release()
    assert list(folder.iterdir()) == [only]


def test_processes_taking_one_key_never_overlap(tmp_path: Path) -> None:
    """Four processes take and give back one key 100 times each: never two
    inside at once."""
    workers, rounds = 4, 100
    inside = FORKSERVER.Value("i", 0)
    overlaps = FORKSERVER.Value("i", 0)
    barrier = FORKSERVER.Barrier(workers)
    queue: Any = FORKSERVER.Queue()
    folder = str(tmp_path / "locks")
    processes = [
        FORKSERVER.Process(
            target=fill_lock_workers.contend,
            args=(folder, "one-key", rounds, inside, overlaps, barrier, queue),
        )
        for _ in range(workers)
    ]
    for process in processes:
        process.start()
    done = [queue.get(timeout=90) for _ in processes]
    for process in processes:
        process.join(30)
    assert done == [rounds] * workers
    assert overlaps.value == 0


def test_a_forked_child_does_not_keep_a_dead_parents_lock(tmp_path: Path) -> None:
    """A process that holds a fill lock forks, then dies: the key is free,
    though the child (which inherited the lock's file) lives on."""
    folder = str(tmp_path / "locks")
    queue: Any = FORKSERVER.Queue()
    let_go = FORKSERVER.Event()
    parent = FORKSERVER.Process(
        target=fill_lock_workers.fork_and_die, args=(folder, "key", queue, let_go)
    )
    parent.start()
    try:
        child = queue.get(timeout=30)
        # (not join: the child holds the end of the pipe join waits on)
        deadline = time.monotonic() + 30
        while parent.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert parent.exitcode == 0
        os.kill(child, 0)  # the child is alive ...
        lease = FileLocks(Path(folder)).try_acquire("key")
        assert lease is not None  # ... and holds nothing
        lease.release()
    finally:
        let_go.set()


@pytest.mark.parametrize("kind", ["file", "redis"])
def test_a_forked_child_cannot_give_back_its_parents_lock(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    where = str(tmp_path / "locks")
    if kind == "redis":
        where = request.getfixturevalue("redis_url")
    queue: Any = FORKSERVER.Queue()
    process = FORKSERVER.Process(
        target=fill_lock_workers.fork_then_child_releases,
        args=(kind, where, "key", queue),
    )
    process.start()
    child_code, taken, free = queue.get(timeout=30)
    process.join(30)
    assert child_code == 0  # after its "release" the child still found it taken
    assert taken  # the parent's lock held
    assert free  # and given back by the parent


def test_a_forked_child_holds_nothing_its_parent_held(tmp_path: Path) -> None:
    """A child forked while its parent holds a key finds the key taken
    while the parent holds it, and free once the parent gives it back,
    though the child inherited the parent's lease."""
    queue: Any = FORKSERVER.Queue()
    process = FORKSERVER.Process(
        target=fill_lock_workers.fork_then_parent_releases,
        args=(str(tmp_path / "locks"), "key", queue),
    )
    process.start()
    taken_while_held, free_once_given_back = queue.get(timeout=30)
    process.join(30)
    assert taken_while_held
    assert free_once_given_back
