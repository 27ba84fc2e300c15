"""``AccessToken``: one token every request carries, with optional refresh.

One instance holds the token and is shared by every endpoint that uses it;
a login handler sets ``.token`` after its login call, and every later
request carries the header::

    auth = AccessToken()
    api = RestEndpoint(url_prefix="https://api.example.com").use(auth)
    auth.token = controller.fetch(login, body=credentials)["accessToken"]

``AccessToken.bearer(...)`` sends ``Authorization: Bearer <token>`` (RFC
6750), as OAuth2 APIs expect: the same as ``header="Authorization",
prefix="Bearer "``. ``AccessToken.basic(user, password)`` sends
``Authorization: Basic <base64 of user:password>`` (RFC 7617), as Twilio
and many internal APIs expect, on the endpoints that use it alone (the
client's ``auth=`` would sign every call the client makes): a user with a
colon or a control character is refused where it is given, text beyond
ASCII is sent as UTF-8 (NFC), as RFC 7617 §2.1 says (see ``_basic``). The OAuth2 grants (``oauth2``) are subclasses that ask
a token endpoint themselves, before the token expires.

Guarantees:

- With no token, the headers pass unchanged.
- The header (``Access-Token``, or any name, with an optional ``prefix``
  such as ``"Bearer "``) is sensitive: never sent to another origin, never
  shown in a repr, log line or error.
- With ``refresh``, a 401 calls ``refresh()`` once (a function returning the
  new token; a coroutine function under ``AsyncController``), stores the
  token and sends the request once more. Requests that hit 401 together
  cause one refresh: those that were sent with an older token than the
  current one just send again. If ``refresh`` raises or returns nothing, the
  401 reaches the caller (and a ``LogoutManager`` runs), with the refresh's
  exception as its ``__cause__``.
- A failed refresh is tried once for all its waiters: the calls whose 401
  came while it ran get the same failure (their own 401, the same
  ``__cause__``) without calling ``refresh`` again. A 401 that comes after
  that round ended refreshes again.
- A refresh may call endpoints that use this same ``AccessToken`` (the
  refresh endpoint on the shared base): a 401 of the refresh's own call
  ends the refresh at once (that is the refresh failing), never waits for
  it, and the middleware stays usable.
- A one-shot body (a generator, an open file) is never sent twice: after a
  401 the token is still refreshed for later calls, but the call raises
  :class:`RequestBodyError`, its ``__cause__`` the 401.
- One instance serves any number of threads and event loops (asyncio or
  trio), and sync and async controllers together.
- With ``shared=SharedToken(...)``, processes refresh once between them:
  the refresh runs under a lock in Redis, a process that finds a newer
  token in the shared slot uses it instead of refreshing, one that waited
  behind a refresh that failed fails the same way, and a process holding
  no token reads the slot first. The ``SharedToken`` needs a name of this
  token's own (``SharedToken(redis, name=...)``): restwire cannot tell
  whose token ``refresh`` returns, so a slot with no name is refused with
  a ``SettingError`` (an OAuth2 grant can say, and keys its slot itself).
  While Redis is down, each process refreshes its own token (see
  ``shared_token``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from restwire import (
    Acquire,
    Call,
    CallNext,
    Exchange,
    Flow,
    FlowLock,
    NetworkError,
    Release,
    RequestBodyError,
    RestwireError,
    SettingError,
    UsageError,
)
from restwire.extension import Response, renewed_in_child

from ._basic import basic_token, refreshed_basic_token
from ._checks import check_header_name, check_header_text, sendable
from .shared_token import SharedToken

__all__ = ["AccessToken"]

logger = logging.getLogger("restwire")

Refresh = Callable[[], str | Awaitable[str | None] | None]
#: A Basic token's refresh: the new password, or a ``(user, password)`` pair.
BasicRefresh = Callable[
    [],
    str | tuple[str, str] | Awaitable[str | tuple[str, str] | None] | None,
]

#: After an early renewal of a still-valid token fails, no caller tries
#: again for this long (seconds), doubling each time it fails again, up to
#: ``RENEW_BACKOFF_MOST``; meanwhile the valid token is sent.
RENEW_BACKOFF_FIRST = 1.0
RENEW_BACKOFF_MOST = 30.0

#: The AccessTokens whose refresh is running in this context (this thread, or
#: this task): a call made by a refresh sees its own token holder here.
_refreshing: ContextVar[frozenset[int]] = ContextVar(
    "restwire_refreshing", default=frozenset()
)


class AccessToken:
    """Sends a token held by this one shared instance."""

    #: It sets headers and reads a response's status, never its value: a
    #: list of entities may go from the body's bytes to the store.
    takes_unparsed = True

    def __init__(
        self,
        token: str | None = None,
        *,
        header: str = "Access-Token",
        prefix: str = "",
        refresh: Refresh | None = None,
        shared: SharedToken | None = None,
    ) -> None:
        owner = type(self).__name__
        check_header_text(owner, "token", token, optional=True)
        check_header_name(owner, "header", header)
        check_header_text(owner, "prefix", prefix, secret=False)
        if refresh is not None and not callable(refresh):
            raise UsageError(
                f"{owner}(refresh=...) must be a function returning the new "
                f"token, not {type(refresh).__name__}"
            )
        self.header = header
        self.prefix = prefix
        self.refresh = refresh
        self.shared = shared  # checked: see the property
        #: (token, version, what came with the token: ``None`` here; an
        #: OAuth2 grant keeps its expiry there), replaced whole under
        #: ``_guard``: a call reads them in one attribute load, without
        #: taking the lock.
        self._state: tuple[str | None, int, Any] = (token or None, 0, None)
        self._guard = threading.Lock()
        renewed_in_child(self, "_guard")
        self._refreshing = FlowLock()
        #: Refresh rounds ended so far, and whether the last one failed
        #: (with its cause): changed only under ``_refreshing``.
        self._rounds = 0
        self._failure: tuple[BaseException | None] | None = None
        #: Early renewal (``_renew_early``): whether a caller is renewing
        #: the usable token, when one may try after a failure, and the
        #: back-offs (changed under ``_guard``).
        self._early_busy = False
        self._early_retry_at = 0.0
        self._early_retry_in = 0.0
        self._early_backoff = RENEW_BACKOFF_FIRST

    @classmethod
    def bearer(
        cls,
        token: str | None = None,
        *,
        refresh: Refresh | None = None,
        shared: SharedToken | None = None,
    ) -> AccessToken:
        """An ``AccessToken`` sending ``Authorization: Bearer <token>``
        (RFC 6750), as ``header="Authorization", prefix="Bearer "`` does."""
        return AccessToken(
            token,
            header="Authorization",
            prefix="Bearer ",
            refresh=refresh,
            shared=shared,
        )

    @classmethod
    def basic(
        cls,
        user: str,
        password: str,
        *,
        refresh: BasicRefresh | None = None,
        shared: SharedToken | None = None,
    ) -> AccessToken:
        """An ``AccessToken`` sending ``Authorization: Basic`` of ``user``
        and ``password`` (RFC 7617), kept to the call's origin and never
        shown, as every token is.

        A ``user`` with a colon, or either with a control character, is a
        ``SettingError`` here (naming neither); text beyond ASCII is sent
        as UTF-8, normalized to NFC (RFC 7617 §2.1). ``refresh`` (after a
        401) returns the new password for the same user, or a ``(user,
        password)`` pair; ``shared`` shares the credentials between
        processes under a name of their own, as for any token."""
        return _BasicToken(user, password, refresh=refresh, shared=shared)

    @property
    def shared(self) -> SharedToken | None:
        """The ``SharedToken`` processes share this token through, if any.
        One with no name keys its slot by whose token this is (an
        ``OAuth2ClientCredentials``' grant, token URL, client and scope); a
        holder that cannot say (a ``refresh`` callable, a user's password
        grant) refuses it with a ``SettingError`` asking for a name."""
        return self._shared

    @shared.setter
    def shared(self, shared: SharedToken | None) -> None:
        holder = None
        if shared is not None:
            if not isinstance(shared, SharedToken):
                raise SettingError(
                    f"{type(self).__name__}(shared=...) takes a SharedToken, not "
                    f"{type(shared).__name__}"
                )
            if shared.name is None:
                holder = self._holder()
                if holder is None:
                    raise SettingError(
                        f"{type(self).__name__}: give the SharedToken a name of "
                        "this token's own (SharedToken(redis, name=...)): restwire "
                        "cannot tell whose token refresh() returns, and a slot per "
                        "origin would share one holder's token with every other "
                        "holder of that origin"
                    )
        self._shared, self._holder_key = shared, holder

    @property
    def token(self) -> str | None:
        """The current token; ``None`` sends no header."""
        return self._state[0]

    @token.setter
    def token(self, value: str | None) -> None:
        check_header_text(f"{type(self).__name__}.token", "value", value, optional=True)
        with self._guard:
            self._state = (value or None, self._state[1] + 1, None)

    @property
    def _version(self) -> int:
        """How many times the token was set (a refresh compares it)."""
        return self._state[1]

    # -- what a subclass (an OAuth2 grant) changes -----------------------------

    def _holder(self) -> str | None:
        """What says whose token this is, for the slot of a ``SharedToken``
        with no name: text that is the same in every process for the same
        holder and differs between holders; ``None`` (here) when restwire
        cannot tell (a ``refresh`` callable: whose token it returns is its
        own business), and then such a ``SharedToken`` is refused."""
        return None

    def _slot_text(self, state: tuple[str | None, int, Any]) -> str | None:
        """What stands for ``state``'s token in a shared slot: the token."""
        return state[0]

    def _from_text(self, text: str) -> tuple[str, Any]:
        """The token, and what came with it, that a refresh's result or a
        shared slot's ``text`` stands for."""
        return text, None

    def _refreshes(self) -> bool:
        """Whether a 401 renews the token."""
        return self.refresh is not None

    def _due(self) -> bool:
        """Whether the token must be renewed before this call is sent
        (never, here: only a 401 renews it)."""
        return False

    def _usable(self) -> bool:
        """Whether the token, due, may still be sent if renewing it fails."""
        return False

    def _now(self) -> float:
        """The time back-offs are counted on (seconds)."""
        return time.monotonic()

    def _obtain(self, label: str) -> Flow[str | None]:
        """A new token (as ``_from_text`` reads it): ``refresh()``'s."""
        refresh = self.refresh
        if refresh is None:
            return None
        token = yield Call(refresh)
        if not token:
            return None
        text = str(token)
        if not sendable(text):
            raise RestwireError(
                f"{label}: refresh() gave a token that is not printable ASCII, "
                "which is all a header can carry; encode it first"
            )
        return text

    def _waited_failure(self, failure: BaseException | None, label: str) -> Exception:
        """What a call that renewed early (no 401) raises when the renewal
        it waited behind failed with ``failure``."""
        if isinstance(failure, RestwireError):
            return failure.annotated(f"the token renewal {label} waited for")
        return RestwireError(f"{label}: the token renewal it waited for failed")

    # -- the flow ----------------------------------------------------------------

    def _install(self, text: str, version: int | None = None) -> None:
        """Hold the token ``text`` stands for; with ``version``, only if
        the token did not change here since."""
        token, details = self._from_text(text)
        with self._guard:
            current = self._state[1]
            if version is None or current == version:
                self._state = (token, current + 1, details)

    def _send_with(self, exchange: Exchange) -> tuple[int, str | None]:
        """Set the header for the current token; the token's version and
        the token itself (as a shared slot holds it)."""
        state = self._state
        token = state[0]
        if token is not None:
            exchange.set_credential(self.header, f"{self.prefix}{token}")
        else:
            exchange.headers.pop(self.header, None)
        return state[1], self._slot_text(state)

    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        if self._state[0] is None and self.shared is not None:
            # No token here yet: another process may have one in the slot.
            version = self._version
            current = yield from self.shared.current(
                exchange.origin, exchange.label, self._holder_key
            )
            if current:
                self._install(current, version)
        if self._due():
            yield from self._renew_early(exchange)
        version, sent = self._send_with(exchange)
        if not self._refreshes() or id(self) in _refreshing.get():
            # No refresh, or this call is a refresh's own: its 401 is the
            # refresh failing, which waiting for the refresh cannot fix.
            return (yield from call_next(exchange))
        try:
            return (yield from call_next(exchange))
        except NetworkError as error:
            if error.status != 401:
                raise
            seen = self._rounds  # a round that ends from now on is one it waited for
            yield from self._refreshed(version, sent, error, seen, exchange)
            if not exchange.replayable:
                raise RequestBodyError(
                    f"{exchange.method} {error.url}: 401; the token was refreshed, "
                    "but the body was a one-shot iterator the first send consumed; "
                    "send bytes to let it be sent again"
                ) from error
        self._send_with(exchange)
        return (yield from call_next(exchange))

    def _renew_early(self, exchange: Exchange) -> Flow[None]:
        """Renew a token that is due before the call is sent.

        While the token is still usable, one caller renews it and the
        others send it meanwhile, waiting for nothing; a renewal that fails
        is logged, and tried again by one caller once a back-off has passed
        (:data:`RENEW_BACKOFF_FIRST`, doubling to :data:`RENEW_BACKOFF_MOST`);
        when shared, a renewal another process holds the lock for is not
        waited for either. Once the token is no longer usable, every call
        that finds it due waits for one renewal, whose failure is its error.
        """
        state = self._state
        seen = self._rounds
        usable = self._usable()
        if usable and not self._claim_early():
            return  # another caller renews, or a failed renewal backs off
        try:
            yield from self._refreshed(
                state[1], self._slot_text(state), None, seen, exchange, usable
            )
        except RestwireError as failure:
            if usable:
                self._early_failed()
            if self._state[1] != state[1]:
                return  # a token was set meanwhile: it is sent
            if not self._usable():
                raise
            logger.warning(
                "%s: renewing the token early failed (%s); the current one "
                "is sent until it expires, and renewing it is tried again "
                "in %g s",
                exchange.label,
                type(failure).__name__,
                self._early_retry_in,
            )
        else:
            if usable:
                self._early_ended(renewed=self._state[1] != state[1])
        finally:
            if usable:
                self._early_busy = False

    def _claim_early(self) -> bool:
        """Whether this caller renews the usable token early: no other is
        renewing it, and no failed renewal's back-off is running."""
        now = self._now()
        with self._guard:
            if self._early_busy or now < self._early_retry_at:
                return False
            self._early_busy = True
            return True

    def _early_failed(self) -> None:
        """An early renewal failed: none is tried before the back-off has
        passed, and the next back-off is twice as long."""
        with self._guard:
            self._early_retry_in = self._early_backoff
            self._early_retry_at = self._now() + self._early_backoff
            self._early_backoff = min(self._early_backoff * 2, RENEW_BACKOFF_MOST)

    def _early_ended(self, renewed: bool) -> None:
        """An early renewal ended without failing: the token ``renewed``,
        or not (another process holds the shared lock: this one asks again
        after the first back-off, not on every call)."""
        with self._guard:
            self._early_backoff = RENEW_BACKOFF_FIRST
            self._early_retry_at = 0.0 if renewed else self._now() + RENEW_BACKOFF_FIRST

    def _refreshed(
        self,
        version: int,
        sent: str | None,
        error: NetworkError | None,
        seen: int,
        exchange: Exchange,
        early: bool = False,
    ) -> Flow[None]:
        """Renew the token (``version``, ``sent``, when ``seen`` rounds had
        ended) after ``error`` (a 401), or with no error before sending,
        unless another call (or, when shared, another process) already did.
        If the renewal fails, or the round this call waited behind failed,
        raise ``error`` from why (without one: the failure itself).
        ``early``: the token is still usable, so another process's renewal
        (the shared lock taken) is not waited for.
        (Abandoned midway, the driver releases the lock.)"""
        yield Acquire(self._refreshing)
        try:
            if self._version == version:
                failure = self._failure
                if self._rounds != seen and failure is not None:
                    # queued behind a refresh that failed: its failure, not
                    # another try
                    if error is None:
                        raise self._waited_failure(failure[0], exchange.label)
                    raise error from failure[0]
                try:
                    text: str | None
                    if self.shared is None:
                        text = yield from self._run(error, exchange.label)
                    else:
                        text = yield from self._shared_run(sent, error, exchange, early)
                except Exception as failed:  # ``error`` from why, or why itself
                    why = failed.__cause__ if failed is error else failed
                    self._rounds, self._failure = self._rounds + 1, (why,)
                    raise
                if text is not None:  # (None: another process renews it)
                    self._rounds, self._failure = self._rounds + 1, None
                    self._install(text)
        except Exception:
            yield Release(self._refreshing)
            raise
        yield Release(self._refreshing)

    def _shared_run(
        self,
        sent: str | None,
        error: NetworkError | None,
        exchange: Exchange,
        early: bool = False,
    ) -> Flow[str | None]:
        """The new token by way of the shared slot; a failure of the shared
        part (the lock not free in time, the refresh failed in another
        process) is the refresh failing: ``error`` is raised from it
        (without one, that failure itself). ``early``: a lock another
        process holds is not waited for (``None``: the token stays)."""
        assert self.shared is not None
        try:
            return (
                yield from self.shared.refreshed(
                    exchange.origin,
                    exchange.label,
                    sent,
                    lambda: self._run(error, exchange.label),
                    self._holder_key,
                    patient=not early,
                )
            )
        except NetworkError:
            raise  # the refresh itself failed: _run raised the 401 already
        except Exception as failure:
            if error is None:
                raise  # _run's own failure, or a SharedTokenError naming the call
            logger.warning(
                "shared token refresh failed (%s); the 401 goes to the caller",
                type(failure).__name__,
            )
            raise error from failure

    def _run(self, error: NetworkError | None, label: str) -> Flow[str]:
        """Obtain a new token with this token holder marked as refreshing
        in the current context, so the calls it makes do not refresh
        again; a failure raises ``error`` from it (without ``error``, the
        failure itself)."""
        marked = _refreshing.set(_refreshing.get() | {id(self)})
        try:
            text = yield from self._obtain(label)
        except Exception as failure:
            if error is None:
                raise
            logger.warning(
                "token refresh failed (%s); the 401 goes to the caller",
                type(failure).__name__,
            )
            raise error from failure
        finally:
            _refreshing.reset(marked)
        if not text:
            if error is None:
                raise RestwireError(f"{label}: the token renewal gave no token")
            raise error
        return text

    def __repr__(self) -> str:
        state = "set" if self._state[0] else "unset"
        refresh = ", refresh=..." if self.refresh else ""
        shared = f", shared={self.shared!r}" if self.shared else ""
        return f"AccessToken(header={self.header!r}, token={state}{refresh}{shared})"


class _BasicToken(AccessToken):
    """``AccessToken.basic``'s: the token is the Basic credentials, and a
    refresh's result is read as a password or a ``(user, password)`` pair."""

    def __init__(
        self,
        user: str,
        password: str,
        *,
        refresh: BasicRefresh | None = None,
        shared: SharedToken | None = None,
    ) -> None:
        token = basic_token("AccessToken.basic", user, password)
        super().__init__(
            token,
            header="Authorization",
            prefix="Basic ",
            refresh=refresh,  # type: ignore[arg-type]  # read by _obtain below
            shared=shared,
        )
        self._user = user

    def _obtain(self, label: str) -> Flow[str | None]:
        refresh = self.refresh
        if refresh is None:
            return None
        result = yield Call(refresh)
        token = refreshed_basic_token(label, self._user, result)
        if isinstance(result, tuple) and token is not None:
            self._user = result[0]
        return token

    def __repr__(self) -> str:
        state = "set" if self._state[0] else "unset"
        refresh = ", refresh=..." if self.refresh else ""
        shared = f", shared={self.shared!r}" if self.shared else ""
        return f"AccessToken.basic(credentials={state}{refresh}{shared})"
