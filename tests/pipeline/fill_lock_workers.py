"""What the processes of ``test_fill_lock.py`` do.

Each is a plain function a process forked from the fork server runs
(``tests/forkserver.py``: a clean, single-threaded process, so that
``os.fork`` in it is safe), reporting on a queue.
"""

from __future__ import annotations

import multiprocessing.sharedctypes
import multiprocessing.synchronize
import os
import time
from multiprocessing import Queue
from pathlib import Path
from typing import Any

import redis

from restwire._cache.fill_locks import FileLocks, FillLocks, RedisLocks

__all__ = [
    "contend",
    "fork_and_die",
    "fork_then_child_releases",
    "fork_then_parent_releases",
    "locks_of",
]


def locks_of(kind: str, where: str) -> FillLocks:
    """Fill locks of ``kind`` (``"file"``: in the folder ``where``;
    ``"redis"``: in the Redis at the URL ``where``)."""
    if kind == "file":
        return FileLocks(Path(where))
    return RedisLocks(redis.Redis.from_url(where), "restwire-test", 60.0)


def fork_and_die(
    folder: str, key: str, queue: Queue[Any], let_go: multiprocessing.synchronize.Event
) -> None:
    """Take the file lock of ``key``, fork a child that lives on until
    ``let_go`` is set (30 s at most), put the child's pid on ``queue``, and
    die without giving the lock back, as a crashed process would."""
    lease = FileLocks(Path(folder)).try_acquire(key)
    assert lease is not None
    pid = os.fork()
    if pid == 0:  # the child: alive, doing nothing with the lock
        let_go.wait(30)
        os._exit(0)
    queue.put(pid)
    queue.close()
    queue.join_thread()  # the pid written before this process ends
    os._exit(0)  # the lock is never given back


def fork_then_child_releases(
    kind: str, where: str, key: str, queue: Queue[Any]
) -> None:
    """Take the lock of ``key`` and fork; the child gives its copy of the
    lease back and then tries the key itself. Put on ``queue``: the child's
    exit code (0: it found the key still taken), whether a third party finds
    it taken while this process holds it, and whether it is free once this
    process gives it back."""
    lease = locks_of(kind, where).try_acquire(key)
    assert lease is not None
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            lease.release()  # the child's copy: not the child's to give back
            again = locks_of(kind, where).try_acquire(key)
            code = 0 if again is None else 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    taken = locks_of(kind, where).try_acquire(key) is None
    lease.release()
    free = locks_of(kind, where).try_acquire(key) is not None
    queue.put((os.waitstatus_to_exitcode(status), taken, free))


def fork_then_parent_releases(folder: str, key: str, queue: Queue[Any]) -> None:
    """Take the file lock of ``key`` and fork; the child tries the key while
    this process holds it, then again once this process gave it back (each
    step told through a pipe). Put on ``queue`` what the child saw: whether
    the key was taken, then whether it was free."""
    lease = FileLocks(Path(folder)).try_acquire(key)
    assert lease is not None
    to_child_read, to_child_write = os.pipe()
    to_parent_read, to_parent_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            locks = FileLocks(Path(folder))
            taken = locks.try_acquire(key) is None
            os.write(to_parent_write, b"tried")
            os.read(to_child_read, 1)  # given back
            again = locks.try_acquire(key)
            os.write(to_parent_write, bytes([taken, again is not None]))
            code = 0
        finally:
            os._exit(code)
    assert os.read(to_parent_read, 5) == b"tried"
    lease.release()
    os.write(to_child_write, b"x")
    saw = os.read(to_parent_read, 2)
    os.waitpid(pid, 0)
    queue.put((bool(saw[0]), bool(saw[1])))


def contend(
    folder: str,
    key: str,
    rounds: int,
    inside: multiprocessing.sharedctypes.Synchronized[int],
    overlaps: multiprocessing.sharedctypes.Synchronized[int],
    barrier: multiprocessing.synchronize.Barrier,
    queue: Queue[Any],
) -> None:
    """Take and give back the lock of ``key`` ``rounds`` times, counting in
    ``overlaps`` each time another process was inside at the same time."""
    locks = FileLocks(Path(folder))
    barrier.wait()
    done = 0
    deadline = time.monotonic() + 60
    while done < rounds and time.monotonic() < deadline:
        lease = locks.try_acquire(key)
        if lease is None:
            time.sleep(0.0001)
            continue
        with inside.get_lock():
            inside.value += 1
            if inside.value != 1:
                overlaps.value += 1
        time.sleep(0.0002)
        with inside.get_lock():
            inside.value -= 1
        lease.release()
        done += 1
    queue.put(done)
