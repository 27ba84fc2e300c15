"""``RateLimit``: stay under an API's rate limit, in one process or many.

Two sources of waiting, both taken before a request is sent::

    RateLimit(10, per=1.0)                       # 10 a second per origin
    RateLimit(10, per=1.0, redis="redis://...")  # shared by every process
    RateLimit()                                  # only what the server says

- **A configured rate**, per origin (``scope="origin"``, the default), per
  endpoint (``scope="endpoint"``) or per any key a function of the exchange
  gives. No more than ``limit`` calls reach the server within any ``per``
  seconds, as the server counts them: a call holds its slot from the moment
  it is let go until its response has come, and ``per`` seconds more. (A
  log of admission times, as rate-limit libraries keep, lets a call that
  was let go early but arrived late share a server's window with the
  ``limit``-th after it: four processes on a shared pyrate-limiter log put
  21 calls into one second of a server limited to 20; see
  ``tests/benchmarks/rate_limit_options.py``.)
  In this process by default; with ``redis=``, every process shares the
  log, kept by two short atomic scripts on Redis's own clock, so processes
  on machines whose clocks differ still agree. A slot in Redis is taken as
  a ``TakeLease``: a call cancelled or interrupted gives it back at once
  (the driver does; it is logged as done then), and a call that never
  completes (its process died) gives it back after ``lease`` seconds.
  A scope function's keys name Redis keys and this process's records:
  return an id (a user's, a tenant's), never a credential; the records of
  keys no call has used for a while are dropped.
- **What the server says**, read from every response of that scope:
  ``Retry-After`` on a 429 or 503 (which takes precedence, as the drafts
  say), and a quota announced as spent (remaining 0), the wait being
  until it resets:

  | fields | reset |
  |---|---|
  | ``RateLimit`` (IETF draft-11: ``"policy";r=0;t=5``; draft-07: ``limit=10, remaining=0, reset=5``) | ``t`` (``reset``) seconds; an item with no ``t``: its policy's window ``w`` in ``RateLimit-Policy`` |
  | ``RateLimit-Remaining``/``-Reset`` | seconds, or an epoch time |
  | ``X-RateLimit-Remaining``/``-Reset`` (GitHub, Twitter) | seconds, or epoch seconds |
  | ``x-ratelimit-remaining-requests``/``-tokens`` and ``x-ratelimit-reset-requests``/``-tokens`` (OpenAI) | a duration as Go writes it: ``6m0s``, ``1.5s``, ``20ms`` |
  | ``anthropic-ratelimit-<requests, tokens, input-tokens, output-tokens>-remaining``/``-reset`` (Anthropic) | an RFC 3339 time |

  Every call of that scope **and caller** then waits that long before it
  is sent (not after a 429), but never more than ``max_pause`` seconds
  (300 by default: ``Retry-After: 999999999999`` pauses five minutes, not
  millennia; a longer ask is capped and said in one warning naming the
  call); with Redis, every process does. The caller is the credentials a
  call carries when it reaches ``RateLimit`` (every header marked
  sensitive: ``Authorization``, ``Cookie``, those ``set_credential`` set),
  as a SHA-256 digest: one API key's spent quota pauses that key's calls
  alone, and calls with no credentials share the pauses of their scope.
  Put ``RateLimit`` after the middleware that sets the credentials.
  Pause records expire with their pause: in Redis by their time to live,
  in this process by a sweep. A response served from an HTTP cache is not
  read (its fields are not current). Malformed fields are ignored. A rate
  advertised in ``RateLimit-Policy`` alone (quota left) asks for no wait:
  it belongs in ``RateLimit(q, per=w)``.

Guarantees:

- Waiting is a ``Sleep`` effect: one definition for both drivers, never
  blocking an event loop; Redis commands are ``Blocking`` effects.
- Nothing waits without bound: a call that would wait past ``max_wait``
  seconds in all (60 by default) raises :class:`RateLimited` at once,
  naming the URL and the wait, without sending. Nothing is dropped: every
  call is sent or gets that error.
- A dead Redis costs one log line, not a wait per call. Redis down, or
  silent past ``redis_timeout``, trips a breaker (``redis_breaker``): one
  warning naming its address, then for a back-off (5 s, doubling to 30 s
  while it stays down) no call uses Redis: each process keeps the limit on
  its own, in its in-process window (so N processes together may send up
  to N times ``limit`` within a window meanwhile), and the server's pauses
  in it. One line again when Redis answers. Every error raised is a
  ``RateLimited`` naming the call.
- The 429 itself still reaches the caller (or a ``Retry`` outside this
  middleware, which then finds the pause in place).
"""

from __future__ import annotations

import collections
import datetime
import itertools
import logging
import math
import re
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from restwire import (
    Blocking,
    CallNext,
    Exchange,
    Flow,
    NetworkError,
    ReleaseLease,
    RestwireError,
    SettingError,
    Sleep,
    TakeLease,
)
from restwire.extension import Headers, Response, renewed_in_child

from ._checks import (
    check_count,
    check_each,
    check_positive,
    check_seconds,
    check_text,
    redis_client,
)
from .redis_breaker import RedisBreaker
from .retry import retry_after_seconds

if TYPE_CHECKING:
    import redis

__all__ = ["RateLimit", "RateLimited", "rate_limit_wait"]

logger = logging.getLogger("restwire")

Scope = Literal["origin", "endpoint"] | Callable[[Exchange], str]

#: Admissions and pauses between two sweeps of an in-process window's records.
SWEEP_EVERY = 1024

#: An epoch time rather than a delay: X-RateLimit-Reset is either.
_EPOCH = 1_000_000_000
_INTEGER = re.compile(r"\d{1,12}")


class RateLimited(RestwireError):
    """A call was not sent: it would have waited longer than ``max_wait``
    for its rate limit (``wait``, the seconds it would have waited), or
    the shared limit in Redis failed in a way that is no outage (``wait``
    is ``None``; an outage is not an error: see the module)."""

    def __init__(self, message: str, wait: float | None) -> None:
        super().__init__(message)
        self.wait = wait

    @classmethod
    def too_long(
        cls, label: str, scope: str, wait: float, max_wait: float
    ) -> RateLimited:
        return cls(
            f"{label}: the rate limit for {scope} asks to wait {wait:.1f} s, "
            f"more than max_wait ({max_wait:g} s); not sent",
            wait,
        )

    @classmethod
    def unreachable(cls, label: str, error: Exception) -> RateLimited:
        return cls(
            f"{label}: the shared rate limit in Redis could not be used "
            f"({type(error).__name__}); not sent",
            None,
        )


def rate_limit_wait(
    headers: Headers, status: int, now: Callable[[], float] = time.time
) -> float | None:
    """Seconds the server asks a client to wait before its next request, by
    these response ``headers`` (of a ``status`` response); ``None`` when
    they ask for no wait, or say nothing readable."""
    if status in (429, 503):
        after = retry_after_seconds(headers.get("retry-after"))
        if after is not None:
            return after  # takes precedence over the RateLimit fields
    waits = [
        wait
        for wait in (
            _structured(
                headers.get_list("ratelimit", split_commas=False),
                headers.get_list("ratelimit-policy", split_commas=False),
            ),
            _remaining_reset(
                headers.get("ratelimit-remaining"), headers.get("ratelimit-reset"), now
            ),
            _remaining_reset(
                headers.get("x-ratelimit-remaining"),
                headers.get("x-ratelimit-reset"),
                now,
            ),
            *(
                _remaining_duration(
                    headers.get(f"x-ratelimit-remaining-{what}"),
                    headers.get(f"x-ratelimit-reset-{what}"),
                )
                for what in _OPENAI
            ),
            *(
                _remaining_moment(
                    headers.get(f"anthropic-ratelimit-{what}-remaining"),
                    headers.get(f"anthropic-ratelimit-{what}-reset"),
                    now,
                )
                for what in _ANTHROPIC
            ),
        )
        if wait is not None
    ]
    return max(waits) if waits else None


#: OpenAI's quotas: ``x-ratelimit-remaining-<what>`` and
#: ``x-ratelimit-reset-<what>`` (a duration: ``6m0s``, ``20ms``).
_OPENAI = ("requests", "tokens")
#: Anthropic's: ``anthropic-ratelimit-<what>-remaining`` and ``-reset``
#: (an RFC 3339 time).
_ANTHROPIC = ("requests", "tokens", "input-tokens", "output-tokens")

#: A duration as Go writes them (OpenAI's resets): ``1h2m3.5s``, ``20ms``.
_DURATION = re.compile(r"(?:\d{1,12}(?:\.\d{1,9})?(?:ns|us|\u00b5s|ms|s|m|h))+")
_DURATION_PART = re.compile(r"(\d{1,12}(?:\.\d{1,9})?)(ns|us|\u00b5s|ms|s|m|h)")
_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "\u00b5s": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}


def duration_seconds(text: str) -> float | None:
    """The seconds of a duration as Go's ``time.Duration`` writes it
    (``6m0s``, ``1.5s``, ``20ms``, ``1h2m3s``: OpenAI's reset fields), or a
    plain number of seconds; ``None`` for anything else."""
    text = text.strip()
    if _INTEGER.fullmatch(text):
        return float(text)
    if not _DURATION.fullmatch(text):
        return None
    return sum(
        float(number) * _UNITS[unit] for number, unit in _DURATION_PART.findall(text)
    )


def _exhausted(remaining: str | None) -> bool:
    """Whether a ``remaining`` field says no quota is left."""
    text = (remaining or "").strip()
    return bool(_INTEGER.fullmatch(text)) and int(text) == 0


def _remaining_duration(remaining: str | None, reset: str | None) -> float | None:
    """OpenAI's pair: no quota left, and the duration until it resets."""
    if reset is None or not _exhausted(remaining):
        return None
    return duration_seconds(reset)


def _remaining_moment(
    remaining: str | None, reset: str | None, now: Callable[[], float]
) -> float | None:
    """Anthropic's pair: no quota left, and the RFC 3339 time it resets at."""
    if reset is None or not _exhausted(remaining):
        return None
    try:
        moment = datetime.datetime.fromisoformat(reset.strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None  # a time with no offset names no moment
    return max(0.0, moment.timestamp() - now())


def _windows(policies: list[str]) -> dict[str, int]:
    """The window (``w``) of each named policy of ``RateLimit-Policy``
    fields (draft-08+: ``"default";q=100;w=60``)."""
    windows: dict[str, int] = {}
    for value in policies:
        for member in value.split(","):
            name, _, rest = member.strip().partition(";")
            if len(name) > 1 and name.startswith('"') and name.endswith('"'):
                window = _parameters(rest.split(";")).get("w")
                if window is not None:
                    windows[name[1:-1]] = window
    return windows


def _structured(values: list[str], policies: list[str] | None = None) -> float | None:
    """The wait a ``RateLimit`` field asks for: the draft-08+ list of items
    (``"default";r=0;t=30``) or the draft-07 dictionary (``limit=10,
    remaining=0, reset=30``). Exhausted quota with a window: that window;
    a draft-08+ item with no ``t``: the window ``w`` of its policy in
    ``RateLimit-Policy`` (``policies``), the longest it can take."""
    waits: list[float] = []
    for value in values:
        for member in value.split(","):
            member = member.strip()
            if not member:
                continue
            if member.startswith('"'):  # an item with parameters: draft-08+
                name, *parts = member.split(";")
                params = _parameters(parts)
                left, window = params.get("r"), params.get("t")
                if left == 0 and window is None:
                    window = _windows(policies or []).get(name.strip().strip('"'))
            else:  # draft-07: one dictionary over the members
                params = _parameters(value.split(","))
                left, window = params.get("remaining"), params.get("reset")
                if left == 0 and window is not None:
                    waits.append(float(window))
                break
            if left == 0 and window is not None:
                waits.append(float(window))
    return max(waits) if waits else None


def _parameters(parts: list[str]) -> dict[str, int]:
    """``name=integer`` pairs; anything else (strings, byte sequences,
    malformed) is left out."""
    out: dict[str, int] = {}
    for part in parts:
        name, _, value = part.strip().partition("=")
        if _INTEGER.fullmatch(value.strip()):
            out[name.strip().lower()] = int(value.strip())
    return out


def _remaining_reset(
    remaining: str | None, reset: str | None, now: Callable[[], float]
) -> float | None:
    if remaining is None or reset is None:
        return None
    if not (_INTEGER.fullmatch(remaining.strip()) and int(remaining) == 0):
        return None
    text = reset.strip()
    if not _INTEGER.fullmatch(text):
        return None
    value = int(text)
    if value >= _EPOCH:  # an epoch time (GitHub, Twitter): the wait until it
        return max(0.0, value - now())
    return float(value)


class _Window:
    """The log of one process: per key, when each recent call completed,
    and the calls in flight; and the server's pauses."""

    def __init__(self, limit: int | None, window: float, lease: float) -> None:
        self.limit, self.window, self.lease = limit, window, lease
        self.lock = threading.Lock()
        renewed_in_child(self, "lock")
        self.done: dict[str, collections.deque[float]] = {}
        self.flying: dict[str, dict[int, float]] = {}  # key -> {id: lease end}
        self.pauses: dict[str, float] = {}  # key -> until
        self.ids = itertools.count()
        self.steps = itertools.count(1)  # admissions and pauses: sweeps come round

    def admit(self, key: str, paused_as: str | None = None) -> tuple[float, int]:
        """``(0, id)`` if a call of ``key`` may go now (its slot taken until
        :meth:`complete`), else ``(seconds to wait, -1)``. The server's
        pauses are looked up as ``paused_as`` (the key and the caller's
        credentials: see ``RateLimit``), ``key`` if not given."""
        now = time.monotonic()
        pause_key = key if paused_as is None else paused_as
        with self.lock:
            if next(self.steps) % SWEEP_EVERY == 0:
                self._sweep(now)
            paused = self.pauses.get(pause_key, now) - now
            if paused > 0:
                return paused, -1
            self.pauses.pop(pause_key, None)
            if self.limit is None:
                return 0.0, -1
            done = self.done.get(key)
            if done is None:
                done = self.done[key] = collections.deque()
            while done and done[0] <= now - self.window:
                done.popleft()
            flying = self.flying.get(key)
            if flying is None:
                flying = self.flying[key] = {}
            for lost in [ident for ident, end in flying.items() if end <= now]:
                del flying[lost]  # a call that never completed: its lease ran out
            used = len(done) + len(flying)
            if used < self.limit:
                ident = next(self.ids)
                flying[ident] = now + self.lease
                return 0.0, ident
            return _wait(done, used - self.limit, now, self.window), -1

    def _sweep(self, now: float) -> None:
        """Drop the records of keys with nothing in their window, nothing in
        flight and no pause (the lock is held): memory follows the keys in
        use, whatever a scope function returns."""
        for key in [
            key
            for key, done in self.done.items()
            if not done or done[-1] <= now - self.window
        ]:
            if not self.flying.get(key):
                del self.done[key]
                self.flying.pop(key, None)
        for key in [key for key, until in self.pauses.items() if until <= now]:
            del self.pauses[key]

    def complete(self, key: str, ident: int) -> None:
        """The call ``ident`` of ``key`` is over: its slot is logged now."""
        with self.lock:
            self.flying.get(key, {}).pop(ident, None)
            self.done.setdefault(key, collections.deque()).append(time.monotonic())

    def pause(self, key: str, seconds: float) -> None:
        """No call of ``key`` goes for ``seconds`` (capped by the caller)."""
        now = time.monotonic()
        with self.lock:
            if next(self.steps) % SWEEP_EVERY == 0:
                self._sweep(now)
            self.pauses[key] = max(self.pauses.get(key, 0.0), now + seconds)


def _wait(
    done: collections.deque[float], over: int, now: float, window: float
) -> float:
    """Seconds until a slot frees: when the ``over``-th oldest logged call
    leaves the window; while every slot is in flight, a short poll."""
    if over < len(done):
        return max(done[over] + window - now, 0.001)
    return min(window, 0.05)


#: Admit a call in Redis, atomically, by Redis's clock: KEYS = log, flight,
#: pause; ARGV = window ms, limit, id, lease ms. Returns 0 (admitted), or
#: the milliseconds to wait.
_ADMIT = """
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) * 1000 + math.floor(tonumber(now_parts[2]) / 1000)
local window, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local paused = redis.call('PTTL', KEYS[3])
if paused > 0 then return paused end
if limit < 1 then return 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local logged = redis.call('ZCARD', KEYS[1])
local used = logged + redis.call('ZCARD', KEYS[2])
if used < limit then
  local lease = tonumber(ARGV[4])
  redis.call('ZADD', KEYS[2], now + lease, ARGV[3])
  redis.call('PEXPIRE', KEYS[2], lease + window)
  return 0
end
local over = used - limit
if over < logged then
  local oldest = redis.call('ZRANGE', KEYS[1], over, over, 'WITHSCORES')
  return math.max(tonumber(oldest[2]) + window - now, 1)
end
return math.min(window, 50)
"""

#: A call is over: KEYS = log, flight; ARGV = id, window ms.
_COMPLETE = """
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) * 1000 + math.floor(tonumber(now_parts[2]) / 1000)
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return 0
"""


@dataclass(slots=True)
class _Asked:
    """What a try for a slot in Redis answered besides the slot: the
    seconds to wait (0: let go)."""

    wait: float = 0.0


class _RedisSlot:
    """A call's slot in Redis, held: a lease the driver gives back however
    the call ends. Giving it back logs the call as done now."""

    __slots__ = ("ident", "key", "window")

    def __init__(self, window: _RedisWindow, key: str, ident: str) -> None:
        self.window, self.key, self.ident = window, key, ident

    def release(self) -> None:
        try:
            self.window.complete(self.key, self.ident)
        except Exception as error:  # the call is done; its lease frees the slot
            if not self.window.breaker.failed(error):
                logger.warning(
                    "could not log a call's end in the shared rate limit (%s)",
                    type(error).__name__,
                )


#: A call's slot: an id in this process's window (-1: none taken), or one
#: held in Redis (a lease), or none (no configured rate).
Slot = int | _RedisSlot | None


class _RedisWindow:
    """The same, kept in Redis (its clock, its atomic scripts) and shared by
    every process that uses it; its breaker says when to leave it alone."""

    def __init__(
        self,
        limit: int | None,
        window: float,
        lease: float,
        client: redis.Redis,
        name: str,
    ) -> None:
        self.limit, self.client, self.name = limit, client, name
        self.window_ms = max(1, round(window * 1000))
        self.lease_ms = max(1, round(lease * 1000))
        self._admit = client.register_script(_ADMIT)
        self._complete = client.register_script(_COMPLETE)
        self.breaker = RedisBreaker(
            client,
            f"RateLimit {name!r}",
            "each process keeps the limit on its own",
        )

    def _keys(self, key: str, paused_as: str | None = None) -> list[str]:
        pause = key if paused_as is None else paused_as
        return [
            f"{self.name}:log:{key}",
            f"{self.name}:flight:{key}",
            f"{self.name}:pause:{pause}",
        ]

    def take(
        self, key: str, asked: _Asked, paused_as: str | None = None
    ) -> _RedisSlot | None:
        """A slot for a call of ``key`` if it may go now (``None`` under no
        configured rate, which holds no slot); else ``None``, and
        ``asked.wait`` says how long to wait (a blocking Redis command).
        The server's pauses are read as ``paused_as``."""
        ident = uuid.uuid4().hex
        limit = 0 if self.limit is None else self.limit
        waited = self._admit(
            keys=self._keys(key, paused_as),
            args=[self.window_ms, limit, ident, self.lease_ms],
        )
        milliseconds = int(waited)
        if milliseconds > 0:
            asked.wait = milliseconds / 1000
            return None
        asked.wait = 0.0
        return _RedisSlot(self, key, ident) if self.limit is not None else None

    def complete(self, key: str, ident: str) -> None:
        self._complete(keys=self._keys(key)[:2], args=[ident, self.window_ms])

    def pause(self, key: str, seconds: float) -> None:
        """Every process pauses ``key`` for ``seconds`` (capped by the
        caller): a key that expires with the pause."""
        milliseconds = max(1, math.ceil(seconds * 1000))
        pause_key = self._keys(key)[2]
        # one round trip: made if absent, else only ever lengthened
        pipeline = self.client.pipeline()
        pipeline.set(pause_key, b"1", px=milliseconds, nx=True)
        pipeline.pexpire(pause_key, milliseconds, gt=True)
        pipeline.execute()


class RateLimit:
    """Waits before each call so it stays under a rate limit (see the module)."""

    sends_credentials = False

    def __init__(
        self,
        limit: int | None = None,
        per: float = 1.0,
        *,
        scope: Scope = "origin",
        redis: str | redis.Redis | None = None,
        name: str = "restwire:rate",
        max_wait: float = 60.0,
        lease: float = 60.0,
        redis_timeout: float = 5.0,
        max_pause: float = 300.0,
    ) -> None:
        if limit is not None:
            check_count("RateLimit", "limit", limit, 1)
        # (a NaN per spun a caller forever: no wait compares with it)
        check_each(
            check_positive,
            "RateLimit",
            per=per,
            lease=lease,
            max_pause=max_pause,
            redis_timeout=redis_timeout,
        )
        check_seconds("RateLimit", "max_wait", max_wait)
        check_text("RateLimit", "name", name)
        if not (callable(scope) or scope in ("origin", "endpoint")):
            raise SettingError(
                f"scope must be 'origin', 'endpoint' or a function, not {scope!r}"
            )
        self.limit, self.per, self.scope = limit, per, scope
        self.max_wait, self.lease, self.max_pause = max_wait, lease, max_pause
        #: This process's window: the limit, or, with Redis, while it is down.
        self._window = _Window(limit, per, lease)
        self._redis: _RedisWindow | None = None
        if redis is not None:
            client = redis_client("RateLimit(redis=...)", redis, redis_timeout)
            self._redis = _RedisWindow(limit, per, lease, client, name)

    @property
    def _breaker(self) -> RedisBreaker:
        """The Redis window's breaker (with a Redis only)."""
        assert self._redis is not None, "RateLimit without redis= has no breaker"
        return self._redis.breaker

    def _key(self, exchange: Exchange) -> str:
        if self.scope == "origin":
            url = exchange.url
            port = f":{url.port}" if url.port else ""  # None: the scheme's own
            return f"{url.scheme}://{url.host}{port}"
        if self.scope == "endpoint":
            return exchange.endpoint.label
        assert callable(self.scope)
        return str(self.scope(exchange))

    def _admit(self, key: str, paused_as: str, label: str) -> Flow[tuple[float, Slot]]:
        """``(0, slot)`` if the call may go now, else ``(seconds to wait,
        None)``: in Redis while it answers, else in this process."""
        shared = self._redis
        if shared is None or not shared.breaker.allows():
            return self._window.admit(key, paused_as)
        asked = _Asked()
        try:
            slot: _RedisSlot | None = yield TakeLease(
                shared.take, (key, asked, paused_as)
            )
        except Exception as error:
            if not shared.breaker.failed(error):
                raise RateLimited.unreachable(label, error) from error
            return self._window.admit(key, paused_as)  # Redis down: this process's
        shared.breaker.succeeded()
        return asked.wait, slot

    def _complete(self, key: str, slot: Slot) -> Flow[None]:
        """The call that took ``slot`` is over: it is logged done now."""
        if slot is None or slot == -1:
            return  # nothing was taken: no configured rate
        if isinstance(slot, int):
            self._window.complete(key, slot)
            return
        yield ReleaseLease(slot)

    @staticmethod
    def _caller(key: str, exchange: Exchange) -> str:
        """``key``, and who the call says it is (``Exchange.caller_key``:
        read deny by default, as the store reads it; every header not
        public, the client's defaults, its jar's cookies, its auth, a
        client restwire cannot see whole, or the caller ``identity=``
        names), under which the server's pauses are kept: one caller's
        spent quota never pauses another's. A SHA-256 digest, equal in
        every process, as the HTTP cache's keys are; it shows no
        credential. Calls that carry nothing to tell them apart share
        the server's pauses."""
        caller = exchange.caller_key()
        return key if caller is None else f"{key}:caller:{caller[:32]}"

    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        key = self._key(exchange)
        paused_as = self._caller(key, exchange)
        started = time.monotonic()
        while True:
            wait, slot = yield from self._admit(key, paused_as, exchange.label)
            if wait <= 0:
                break
            waited = time.monotonic() - started
            if waited + wait > self.max_wait:
                shown = key if isinstance(self.scope, str) else "its scope"
                raise RateLimited.too_long(
                    exchange.label, shown, waited + wait, self.max_wait
                )
            yield Sleep(wait)
        try:
            response = yield from call_next(exchange)
        except NetworkError as error:
            yield from self._complete(key, slot)
            yield from self._learn(paused_as, error.response, exchange.label)
            raise
        except GeneratorExit:
            # abandoned (cancelled): no effect can be yielded now; a slot in
            # this process is logged done here, one in Redis by the driver
            if isinstance(slot, int) and slot != -1:
                self._window.complete(key, slot)
            raise
        except BaseException:
            yield from self._complete(key, slot)
            raise
        yield from self._complete(key, slot)
        yield from self._learn(paused_as, response, exchange.label)
        return response

    def _learn(self, key: str, response: Response, label: str) -> Flow[None]:
        """Pause ``key`` as long as ``response`` asks, if it asks, for at
        most ``max_pause`` seconds (a longer ask is logged, capped)."""
        cached = response.extensions.get("caching")
        if isinstance(cached, dict) and cached.get("from_cache"):
            return  # a stored response's fields are not current
        wait = rate_limit_wait(response.headers, response.status_code)
        if wait is None or wait <= 0:
            return
        if wait > self.max_pause:
            logger.warning(
                "%s: the server asks to wait %.0f s before the next call; "
                "waiting max_pause (%g s) instead",
                label,
                wait,
                self.max_pause,
            )
            wait = self.max_pause
        shared = self._redis
        if shared is None or not shared.breaker.allows():
            self._window.pause(key, wait)
            return
        try:
            yield Blocking(shared.pause, (key, wait))
        except Exception as error:  # this process pauses all the same
            if not shared.breaker.failed(error):
                logger.warning(
                    "could not share the server's pause in Redis (%s)",
                    type(error).__name__,
                )
            self._window.pause(key, wait)
            return
        shared.breaker.succeeded()

    def __repr__(self) -> str:
        rate = "server's" if self.limit is None else f"{self.limit}/{self.per:g}s"
        where = "process" if self._redis is None else "redis"
        return f"RateLimit({rate}, scope={self.scope!r}, in {where})"
