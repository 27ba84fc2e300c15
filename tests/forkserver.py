"""One fork server for the tests that run their code in other processes.

A ``spawn`` process is a fresh interpreter that imports restwire, redis and
its job's module before it does anything: half a second to a second or two
each, on a busy machine. The fork server is one such process, started once
per test process with those imports done (its preload); each process a test
starts is forked from it. That child is as clean as a spawned one (single-
threaded, nothing inherited from the test process, its threads or its
locks), so ``os.fork`` in it is as safe, and it is ready in milliseconds.
"""

from __future__ import annotations

import multiprocessing

__all__ = ["FORKSERVER"]

#: The context whose ``Process``, ``Queue``, ``Barrier``, ``Value`` and
#: ``Event`` the tests use.
FORKSERVER = multiprocessing.get_context("forkserver")
FORKSERVER.set_forkserver_preload(
    ["tests.processes.workers", "tests.pipeline.fill_lock_workers"]
)
