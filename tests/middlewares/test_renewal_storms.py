"""Early renewal without storms (issue 41, finding 7).

An OAuth2 token is renewed ``early`` seconds before it expires. While the
token endpoint was down, every call inside that window asked it again and
waited for it (10 calls: 10 token requests); with a hung endpoint, every
call waited its timeout, though the token it held was still valid. Now,
while the token is valid, one caller renews it and the others send it
meanwhile; a failed renewal is tried again by one caller after a back-off
(1 s, doubling to 30 s); only an expired token makes callers wait.

A real token server on 127.0.0.1 (``tests/oauth_server.py``: a status to
fail with, a pause to hang for), a real redis-server for two processes'
holders, both drivers. Expiry is on a fake clock; waits are timed for real.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

import pytest

from restwire import RestEndpoint
from restwire.middlewares import OAuth2ClientCredentials, OAuth2Error, SharedToken
from tests.conftest import FakeClock, fetch_together, no_collection_pauses
from tests.oauth_server import CLIENT_ID, CLIENT_SECRET, TokenServer

pytestmark = pytest.mark.anyio

#: The token's lifetime, and when a call finds it due (the default
#: ``early``: 30 s before it expires).
LIFETIME = 3600
IN_THE_WINDOW = LIFETIME - 20
#: The client's timeout where a token endpoint hangs: long enough that one
#: wait for it stands apart from none, or from five, on a busy machine.
TIMEOUT = 2.0


@pytest.fixture
def token_server() -> Iterator[TokenServer]:
    with TokenServer() as server:
        server.expires_in = LIFETIME
        yield server


def grant(
    server: TokenServer, clock: FakeClock, **options: Any
) -> OAuth2ClientCredentials:
    return OAuth2ClientCredentials(
        server.url("/token"), CLIENT_ID, CLIENT_SECRET, clock=clock, **options
    )


def me(server: TokenServer, auth: Any, n: int = 0) -> RestEndpoint[Any]:
    return RestEndpoint(
        url_prefix=server.origin, path="/me", headers={"X-N": str(n)}
    ).use(auth)


async def test_a_down_endpoint_is_asked_once_per_back_off_while_the_token_is_valid(
    controller: Any,
    token_server: TokenServer,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    auth = grant(token_server, clock)
    assert await controller.fetch(me(token_server, auth)) == {"token": "tok-1"}
    clock.advance(IN_THE_WINDOW)
    token_server.failing = 503
    with caplog.at_level(logging.WARNING, logger="restwire"):
        for n in range(10):  # inside the window, the endpoint down
            assert await controller.fetch(me(token_server, auth, n)) == {
                "token": "tok-1"
            }
    assert token_server.counts["client_credentials"] == 2  # the first, one retry
    assert len([r for r in caplog.records if r.name == "restwire"]) == 1
    clock.advance(1.1)  # the first back-off has passed: one caller tries again
    for n in range(5):
        await controller.fetch(me(token_server, auth, n))
    assert token_server.counts["client_credentials"] == 3
    clock.advance(1.1)  # the back-off doubled: 2 s, not over yet
    await controller.fetch(me(token_server, auth))
    assert token_server.counts["client_credentials"] == 3
    token_server.failing = None
    clock.advance(1.0)  # back up, and the back-off over: renewed
    assert await controller.fetch(me(token_server, auth)) == {"token": "tok-2"}
    assert token_server.counts["client_credentials"] == 4


async def test_only_one_call_waits_for_a_hung_renewal_while_the_token_is_valid(
    controller_factory: Any, mode: str, token_server: TokenServer, clock: FakeClock
) -> None:
    """The endpoint hangs past the client's timeout: the call that renews
    waits for it; the four calls made together with it, and the calls
    after it, send the valid token without waiting."""
    # The timeout long enough that one stands apart from none, or five, on
    # a busy machine; the endpoint hangs well past it.
    controller = controller_factory(timeout=TIMEOUT)
    auth = grant(token_server, clock)
    await controller.fetch(me(token_server, auth))
    clock.advance(IN_THE_WINDOW)
    token_server.pause = 5 * TIMEOUT
    took: list[float] = []

    async def timed(n: int) -> None:
        started = time.monotonic()
        assert await controller.fetch(me(token_server, auth, n)) == {"token": "tok-1"}
        took.append(time.monotonic() - started)

    with no_collection_pauses():
        started = time.monotonic()
        outcomes = await fetch_together(
            controller, mode, [me(token_server, auth, n) for n in range(5)]
        )
        together = time.monotonic() - started
        for n in range(5):
            await timed(n)
    assert outcomes == [{"token": "tok-1"}] * 5
    assert token_server.counts["client_credentials"] == 2  # one renewal tried
    assert together < 3 * TIMEOUT  # one timeout, not five in a row
    assert max(took) < TIMEOUT / 2, took  # backing off: nobody waits


async def test_an_expired_token_makes_every_caller_wait_for_one_renewal(
    controller: Any, mode: str, token_server: TokenServer, clock: FakeClock
) -> None:
    auth = grant(token_server, clock)
    await controller.fetch(me(token_server, auth))
    clock.advance(LIFETIME + 1)
    token_server.failing = 503
    with pytest.raises(OAuth2Error):  # no valid token: the failure is the call's
        await controller.fetch(me(token_server, auth))
    token_server.failing = None
    token_server.pause = 0.2
    outcomes = await fetch_together(
        controller, mode, [me(token_server, auth, n) for n in range(5)]
    )
    assert outcomes == [{"token": "tok-2"}] * 5  # all waited, for one renewal
    assert token_server.counts["client_credentials"] == 3


async def test_another_process_s_renewal_is_not_waited_for_while_the_token_is_valid(
    controller_factory: Any,
    mode: str,
    token_server: TokenServer,
    clock: FakeClock,
    redis_url: str,
) -> None:
    """Two processes' holders on one shared slot, the token due in both:
    one takes the shared lock and waits for a hung endpoint; the other
    finds the lock taken and sends its valid token at once, rather than
    waiting for the lock."""
    controller = controller_factory(timeout=TIMEOUT)
    first = grant(token_server, clock, shared=SharedToken(redis_url))
    second = grant(token_server, clock, shared=SharedToken(redis_url))
    await controller.fetch(me(token_server, first))
    await controller.fetch(me(token_server, second))  # adopted from the slot
    assert token_server.counts["client_credentials"] == 1
    clock.advance(IN_THE_WINDOW)
    token_server.pause = 5 * TIMEOUT
    took: dict[int, float] = {}

    async def timed(index: int, auth: Any) -> None:
        started = time.monotonic()
        assert await controller.fetch(me(token_server, auth)) == {"token": "tok-1"}
        took[index] = time.monotonic() - started

    endpoints = [me(token_server, first, 1), me(token_server, second, 2)]
    with no_collection_pauses():
        outcomes = await fetch_together(controller, mode, endpoints)
        await timed(1, first)
        await timed(2, second)
    assert outcomes == [{"token": "tok-1"}] * 2
    assert token_server.counts["client_credentials"] == 2  # one of them tried
    assert max(took.values()) < TIMEOUT / 2, took  # then both back off
