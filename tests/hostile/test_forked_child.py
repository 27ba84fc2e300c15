"""A process forked while another of its threads was inside a call.

``os.fork()`` copies every lock as it is and only the forking thread: a
call in flight on another thread never lands in the child, and a lock that
thread held (a token refresh's) stays held there. The child's next call of
the same request waited without end on the one, or on the other
(``_base.forks`` renews both). Each test forks for real (POSIX); the child
answers through its exit code, and a watchdog in it bounds a hang.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from restwire import Controller, RestEndpoint
from restwire.middlewares import AccessToken
from tests.waiting import HANG

#: How long the child's call may take (its own request, answered at once).
CHILD_BOUND = 20.0

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or sys.platform == "darwin", reason="needs os.fork"
)

API = "http://api.example.com"
#: The child's exit codes.
DONE, HUNG, FAILED = 0, 3, 4


def in_child(call: Callable[[], Any]) -> int:
    """Fork; in the child, run ``call`` under a watchdog and exit with
    ``DONE``, ``HUNG`` (still waiting after ``CHILD_BOUND`` seconds) or
    ``FAILED``;
    in the parent, the child's exit code."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child process
        finished = threading.Event()

        def watchdog() -> None:
            if not finished.wait(CHILD_BOUND):
                os._exit(HUNG)

        threading.Thread(target=watchdog, daemon=True).start()
        try:
            call()
        except BaseException:
            os._exit(FAILED)
        finished.set()
        os._exit(DONE)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def test_a_call_in_flight_on_another_thread_does_not_hold_the_child() -> None:
    parent = os.getpid()
    sent = threading.Event()
    release = threading.Event()

    def answer(request: httpx.Request) -> httpx.Response:
        if os.getpid() == parent:
            sent.set()
            release.wait(HANG)  # (in flight until the child has forked)
        return httpx.Response(200, json={"pid": os.getpid()})

    endpoint = RestEndpoint(url_prefix=API, path="/me")
    with Controller(transport=httpx.MockTransport(answer)) as controller:
        leader = threading.Thread(target=controller.fetch, args=(endpoint,))
        leader.start()
        assert sent.wait(HANG)

        def same_call() -> None:
            assert controller.fetch(endpoint)["pid"] == os.getpid()

        try:
            assert in_child(same_call) == DONE
        finally:
            release.set()
            leader.join(HANG)


def test_a_refresh_under_way_on_another_thread_does_not_hold_the_child() -> None:
    parent = os.getpid()
    refreshing = threading.Event()
    release = threading.Event()

    def refresh() -> str:
        if os.getpid() == parent:
            refreshing.set()
            release.wait(HANG)  # (holds the refresh lock until the fork)
        return "new-token"

    auth = AccessToken("old", refresh=refresh)

    def answer(request: httpx.Request) -> httpx.Response:
        fresh = request.headers.get("access-token") == "new-token"
        return httpx.Response(200 if fresh else 401, json={})

    endpoint = RestEndpoint(url_prefix=API, path="/me", middleware=[auth])
    with Controller(transport=httpx.MockTransport(answer)) as controller:
        parent_call = threading.Thread(target=controller.fetch, args=(endpoint,))
        parent_call.start()
        assert refreshing.wait(HANG)
        other = endpoint.extend(path="/other")
        try:
            assert in_child(lambda: controller.fetch(other)) == DONE
        finally:
            release.set()
            parent_call.join(HANG)


def test_a_subscription_in_the_child_gets_values_of_its_own() -> None:
    """The parent's poller runs on a thread the child does not have: the
    child joined it and never heard a value, not even the first."""
    endpoint = RestEndpoint(url_prefix=API, path="/me")
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json={}))
    with Controller(transport=transport) as controller:
        heard = threading.Event()
        subscription = controller.subscribe(
            endpoint, None, lambda value: heard.set(), frequency=60
        )
        assert heard.wait(HANG)

        def subscribe_again() -> None:
            again = threading.Event()
            controller.subscribe(
                endpoint, None, lambda value: again.set(), frequency=60
            )
            if not again.wait(CHILD_BOUND):
                os._exit(HUNG)

        try:
            assert in_child(subscribe_again) == DONE
        finally:
            subscription.cancel()
