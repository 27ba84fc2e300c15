"""Waiting in tests: a bound on a hang, never a measurement.

The suite runs on busy machines (two cores shared with other jobs), where
a step that takes a millisecond when the machine is quiet can take
seconds. A test that waits for something to happen waits for that thing,
with ``HANG`` as the bound on a hang; it never sleeps a guess and hopes
the thing happened meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import anyio

#: Seconds a test waits for what must happen before calling it a hang:
#: generous, so that a slow machine is never taken for a broken test.
HANG = 120.0


async def cancel_once(
    call: Callable[[], Awaitable[object]], reached: Callable[[], bool]
) -> None:
    """Run ``call`` and cancel it once ``reached()`` says it got where the
    test cancels it (a slot taken, a request on the server), however long
    that took; a ``TimeoutError`` after ``HANG`` seconds if it never does."""

    async def run() -> None:
        await call()

    async with anyio.create_task_group() as group:
        group.start_soon(run)
        await until(reached)
        group.cancel_scope.cancel()


def wait_until(condition: Callable[[], bool]) -> None:
    """Block until ``condition()`` holds (a thread's view of ``until``); an
    ``AssertionError`` after ``HANG`` seconds if it never does."""
    deadline = time.monotonic() + HANG
    while not condition():
        assert time.monotonic() < deadline, "a hang: it never happened"
        time.sleep(0.005)


async def until(condition: Callable[[], bool]) -> None:
    """Wait until ``condition()`` holds; a ``TimeoutError`` after ``HANG``
    seconds if it never does."""
    with anyio.fail_after(HANG):
        while not condition():
            await anyio.sleep(0.005)
