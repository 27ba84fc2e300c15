"""The engines RateLimit could stand on, measured side by side:
``python -m tests.benchmarks.rate_limit_options``.

Issue 16 asks to measure pyrate-limiter and limits before choosing. For
each, and for the log RateLimit keeps itself, in-process and on a real
redis-server on 127.0.0.1 (started here), this times one admission (a
request under its limit, the common case) and one refusal that also says
how long to wait, and counts the most admissions four threads got within
any second at a limit of 200, by the clock of the moment each was let go.

What decided it is not in this table: the libraries log when a call was
let go, and a call let go early but arriving late then shares a server's
second with the 200th after it (four processes put 21 calls into one
second of a server limited to 20, tests/processes). RateLimit's own log
holds a slot until the response and logs the completion, which no library
offers atomically; it costs about what the libraries cost. Needs the
``bench`` extra and ``redis-server``. Not part of the test run.
"""

from __future__ import annotations

import functools
import threading
import time
import timeit
from collections.abc import Callable

import limits
import limits.storage
import limits.strategies
import pyrate_limiter
import redis

from restwire.middlewares.rate_limit import _Asked, _RedisWindow, _Window
from tests.redis_server import RedisServer


def _per_call_us(run: Callable[[], object], number: int) -> float:
    return min(timeit.repeat(run, number=number, repeat=5)) / number * 1e6


def _pyrate(bucket: pyrate_limiter.AbstractBucket) -> Callable[[str], float]:
    """One decision: 0.0 when admitted, else the seconds to wait."""

    def decide(_key: str) -> float:
        item = pyrate_limiter.RateItem("k", time.time_ns() // 1_000_000)
        decision = bucket.put_decision(item)
        assert isinstance(decision, pyrate_limiter.Decision)
        return 0.0 if decision.allowed else (decision.retry_after_ms or 0) / 1000

    return decide


def _limits(storage: limits.storage.Storage, rate: str) -> Callable[[str], float]:
    limiter = limits.strategies.MovingWindowRateLimiter(storage)
    item = limits.parse(rate)

    def decide(key: str) -> float:
        if limiter.hit(item, key):
            return 0.0
        # a second round trip: limits says when the window resets apart
        # from the decision
        reset = limiter.get_window_stats(item, key).reset_time
        return max(0.0, reset - time.time())

    return decide


def _restwire(window: _Window) -> Callable[[str], float]:
    """An admission and, at once, its completion (a call of no duration)."""

    def decide(key: str) -> float:
        wait, ident = window.admit(key)
        if wait <= 0:
            window.complete(key, ident)
        return wait

    return decide


def _restwire_redis(window: _RedisWindow) -> Callable[[str], float]:
    """The same in Redis: a slot taken, and given back at once."""

    def decide(key: str) -> float:
        asked = _Asked()
        slot = window.take(key, asked)
        if slot is not None:
            slot.release()
        return asked.wait

    return decide


def _most_in_a_second(decide: Callable[[str], float], admissions: int) -> int:
    """Four threads take ``admissions`` between them through ``decide``,
    sleeping as it says; the most admitted within any one second."""
    times: list[float] = []
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                if len(times) >= admissions:
                    return
            wait = decide("exact")
            if wait:
                time.sleep(wait)
                continue
            with lock:
                times.append(time.time())

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    times.sort()
    most, start = 0, 0
    for end, at in enumerate(times):
        while at - times[start] >= 1.0:
            start += 1
        most = max(most, end - start + 1)
    return most


def main() -> None:
    with RedisServer() as server:
        client = redis.Redis.from_url(server.url)
        big = pyrate_limiter.Rate(10**9, pyrate_limiter.Duration.SECOND)
        exact = pyrate_limiter.Rate(200, pyrate_limiter.Duration.SECOND)
        engines: dict[str, tuple[Callable[[str], float], Callable[[str], float]]] = {
            "pyrate-limiter, in process": (
                _pyrate(pyrate_limiter.InMemoryBucket([big])),
                _pyrate(pyrate_limiter.InMemoryBucket([exact])),
            ),
            "limits, in process": (
                _limits(limits.storage.MemoryStorage(), "1000000000/second"),
                _limits(limits.storage.MemoryStorage(), "200/second"),
            ),
            "pyrate-limiter, Redis": (
                _pyrate(pyrate_limiter.RedisBucket.init([big], client, "bench:a")),
                _pyrate(pyrate_limiter.RedisBucket.init([exact], client, "bench:b")),
            ),
            "limits, Redis": (
                _limits(limits.storage.RedisStorage(server.url), "1000000000/second"),
                _limits(limits.storage.RedisStorage(server.url), "200/second"),
            ),
            "restwire's log, in process": (
                _restwire(_Window(10**9, 1.0, 60.0)),
                _restwire(_Window(200, 1.0, 60.0)),
            ),
            "restwire's log, Redis": (
                _restwire_redis(_RedisWindow(10**9, 1.0, 60.0, client, "bench:c")),
                _restwire_redis(_RedisWindow(200, 1.0, 60.0, client, "bench:d")),
            ),
        }
        print(
            "| engine | admitted, per call | refused with its wait, per call "
            "| most in any second (limit 200) |\n|---|---|---|---|"
        )
        for name, (admit, limited) in engines.items():
            number = 20_000 if "process" in name else 2_000
            admitted = _per_call_us(functools.partial(admit, "k"), number)
            _most_in_a_second(limited, 250)  # fills the window
            refused = _per_call_us(functools.partial(limited, "exact"), number // 10)
            client.flushall()
            most = _most_in_a_second(limited, 1_000)
            print(f"| {name} | {admitted:.1f} us | {refused:.1f} us | {most} |")


if __name__ == "__main__":
    main()
