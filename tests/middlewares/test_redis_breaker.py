"""RedisBreaker: back-offs, one probe at a time, one log line each way.

The breaker does no I/O: these tests give it real redis-py errors and a
fake clock. Its use by ``SharedToken`` and ``RateLimit`` against a frozen
and a stopped redis-server is tested with each of them.
"""

from __future__ import annotations

import logging
import socket as socket_module

import httpx
import pytest
import redis

from restwire import Controller, RestEndpoint
from restwire.middlewares import AccessToken, RateLimit, SharedToken
from restwire.middlewares.redis_breaker import (
    BACKOFF_FIRST,
    BACKOFF_MOST,
    RedisBreaker,
    is_outage,
    redis_address,
)
from tests.conftest import FakeClock

DOWN = redis.ConnectionError("Error 111 connecting to 127.0.0.1:6390.")


def breaker(clock: FakeClock) -> RedisBreaker:
    client = redis.Redis.from_url("redis://user:s3cret@127.0.0.1:6390/2")
    return RedisBreaker(client, "RateLimit 'r'", "this process's limit", clock=clock)


def messages(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [
        (record.levelno, record.getMessage())
        for record in caplog.records
        if record.name == "restwire"
    ]


def test_an_outage_opens_it_for_a_back_off_with_one_line(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    fuse = breaker(clock)
    assert fuse.allows()
    with caplog.at_level(logging.INFO, logger="restwire"):
        assert fuse.failed(DOWN)
        assert fuse.failed(redis.TimeoutError("Timeout reading from socket"))
        assert not fuse.allows()
        clock.advance(BACKOFF_FIRST - 0.1)
        assert not fuse.allows()
    assert messages(caplog) == [
        (
            logging.WARNING,
            "Redis at 127.0.0.1:6390/2 is unreachable (ConnectionError): "
            "RateLimit 'r' goes on without it (this process's limit), trying it "
            "again in 5 s, then less often while it stays down",
        )
    ]
    assert "s3cret" not in repr(fuse)
    assert caplog.records[0].exc_info is None


def test_after_the_back_off_one_call_probes_and_its_answer_closes_it(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    fuse = breaker(clock)
    with caplog.at_level(logging.INFO, logger="restwire"):
        fuse.failed(DOWN)
        clock.advance(BACKOFF_FIRST)
        assert fuse.allows()  # the probe
        assert not fuse.allows()  # the others wait for its answer
        fuse.succeeded()
        assert fuse.allows()
        assert not fuse.down
        fuse.succeeded()  # already closed: nothing more said
    assert messages(caplog)[1:] == [
        (
            logging.INFO,
            "Redis at 127.0.0.1:6390/2 answers again: RateLimit 'r' shares "
            "through it again",
        )
    ]


def test_a_failed_probe_doubles_the_back_off_up_to_its_most(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    fuse = breaker(clock)
    with caplog.at_level(logging.INFO, logger="restwire"):
        fuse.failed(DOWN)
        waits = []
        for _ in range(5):
            waited = 0.0
            while not fuse.allows():
                clock.advance(0.5)
                waited += 0.5
            waits.append(waited)
            fuse.failed(DOWN)  # the probe: still down
    assert waits == [BACKOFF_FIRST, 10.0, 20.0, BACKOFF_MOST, BACKOFF_MOST]
    assert len(messages(caplog)) == 1  # failed probes say nothing


def test_a_probe_abandoned_midway_lets_another_try_later(clock: FakeClock) -> None:
    fuse = breaker(clock)
    fuse.failed(DOWN)
    clock.advance(BACKOFF_FIRST)
    assert fuse.allows()  # a probe that is cancelled: it never reports
    assert not fuse.allows()
    clock.advance(BACKOFF_FIRST)
    assert fuse.allows()


def test_a_failure_that_is_not_an_outage_changes_nothing(clock: FakeClock) -> None:
    fuse = breaker(clock)
    assert not fuse.failed(ValueError("a bug, not Redis"))
    assert not fuse.failed(redis.exceptions.LockNotOwnedError("not ours"))
    assert fuse.allows()
    assert is_outage(redis.ResponseError("WRONGTYPE"))
    assert not is_outage(TimeoutError("not redis-py's"))


def test_the_address_never_shows_a_password() -> None:
    tcp = redis.Redis.from_url("redis://ann:s3cret@cache.internal:6380/3")
    assert redis_address(tcp) == "cache.internal:6380/3"
    socket = redis.Redis.from_url("unix://:s3cret@/run/redis.sock?db=1")
    assert redis_address(socket) == "unix:/run/redis.sock?db=1"
    assert redis_address(object()) == "(an unknown address)"


def _closed_port() -> int:
    """A port nothing listens on: bound, then let go."""
    with socket_module.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_closed_redis_port_costs_one_line_per_component_not_one_per_call(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every call of a session with Redis gone (connection refused) goes on
    without it; the log holds one warning for each component that shares
    through it, naming the address, and no traceback, however many calls."""
    url = f"redis://127.0.0.1:{_closed_port()}/0"
    answers = httpx.MockTransport(lambda request: httpx.Response(200, json={}))
    limit = RateLimit(100, per=1.0, redis=url, name="calls")
    auth = AccessToken(shared=SharedToken(url, name="token"))  # reads the slot
    endpoint = RestEndpoint(url_prefix="http://api.test", path="/x").use(limit, auth)
    caplog.set_level(logging.DEBUG, logger="restwire")
    with Controller(transport=answers) as controller:
        for _ in range(20):
            assert controller.fetch(endpoint) == {}
    said = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 2, [r.getMessage() for r in said]
    address = url.removeprefix("redis://")
    components = ("RateLimit 'calls'", "SharedToken 'token'")
    for record, component in zip(
        sorted(said, key=lambda r: r.getMessage()), components, strict=True
    ):
        text = record.getMessage()
        assert text.startswith(
            f"Redis at {address} is unreachable (ConnectionError): {component}"
        )
        assert "\n" not in text
        assert record.exc_info is None
        assert record.stack_info is None
