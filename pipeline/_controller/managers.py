"""Managers: controller-wide reactions around every call.

A manager is any object with one or more of these hooks, which a controller
calls, for each of its managers in order, around every call it sends (a
``get`` answered from the store sends nothing, and neither does a caller
that shares another's request in flight):

| hook | when |
|---|---|
| ``on_call(controller, exchange)`` | when it is about to be sent (the chain has set it up) |
| ``on_value(controller, exchange, value)`` | after it succeeded, with the value the caller gets |
| ``on_error(controller, exchange, error)`` | after it raised a :class:`RestwireError`, before the caller sees it |
| ``on_done(controller, exchange)`` | last, once, however a call that ``on_call`` saw ended: a value, an error, a cancellation |

Logout, logging and metrics are managers, not edits to the controller
(``exchange.state`` carries what a manager needs from one hook to the next,
a start time, say). A manager that raises is logged and skipped: the call
goes on, and the caller gets its own value or error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Protocol

from .._base.errors import NetworkError, RestwireError, UsageError
from .._chain.exchange import Exchange

__all__ = [
    "CallManager",
    "ControllerView",
    "DoneManager",
    "ErrorManager",
    "LogoutManager",
    "Manager",
    "ManagerHooks",
    "ValueManager",
]

logger = logging.getLogger("restwire")


class ControllerView(Protocol):
    """What a manager may do with the controller that called it."""

    def reset(self) -> None:
        """Empty the store."""
        ...

    def invalidate(self, endpoint: Any, params: Any = None) -> None:
        """Forget the stored results of one request."""
        ...

    def forget(self, identity: Any) -> None:
        """Forget what one caller's identity holds."""
        ...


class CallManager(Protocol):
    """A manager that hears of every call about to be sent."""

    def on_call(self, controller: ControllerView, exchange: Exchange) -> object: ...


class ValueManager(Protocol):
    """A manager that hears of every value a sent call returns."""

    def on_value(
        self, controller: ControllerView, exchange: Exchange, value: Any
    ) -> object: ...


class ErrorManager(Protocol):
    """A manager that hears of every error a sent call raises."""

    def on_error(
        self, controller: ControllerView, exchange: Exchange, error: RestwireError
    ) -> object: ...


class DoneManager(Protocol):
    """A manager that hears when a sent call ends, however it ends."""

    def on_done(self, controller: ControllerView, exchange: Exchange) -> object: ...


#: A manager: an object with one or more of the four hooks.
Manager = CallManager | ValueManager | ErrorManager | DoneManager

_HOOKS = ("on_call", "on_value", "on_error", "on_done")


class ManagerHooks(NamedTuple):
    """A controller's managers, sorted once by the hooks they have."""

    on_call: tuple[Callable[[Any, Exchange], object], ...]
    on_value: tuple[Callable[[Any, Exchange, Any], object], ...]
    on_error: tuple[Callable[[Any, Exchange, RestwireError], object], ...]
    on_done: tuple[Callable[[Any, Exchange], object], ...]

    @classmethod
    def of(cls, managers: Iterable[Manager]) -> ManagerHooks:
        if (
            isinstance(managers, str | bytes)
            or not isinstance(managers, Iterable)
            or any(hasattr(managers, hook) for hook in _HOOKS)
        ):
            shown = type(managers).__name__
            raise UsageError(
                "managers= takes a list of managers, like [LogoutManager()], "
                f"not one {shown}"
                + (f" ({managers!r})" if len(repr(managers)) < 60 else "")
            )
        managers = tuple(managers)
        for manager in managers:
            if not any(hasattr(manager, hook) for hook in _HOOKS):
                raise UsageError(
                    f"{manager!r} is not a manager: it needs one of {', '.join(_HOOKS)}"
                )

        def hooks(name: str) -> tuple[Any, ...]:
            return tuple(
                hook
                for manager in managers
                if (hook := getattr(manager, name, None)) is not None
            )

        return cls(
            hooks("on_call"), hooks("on_value"), hooks("on_error"), hooks("on_done")
        )


def run_hooks(hooks: tuple[Callable[..., object], ...], what: str, *args: Any) -> None:
    """Call each hook with ``args``; one that raises is logged (as failing on
    ``what``) and skipped."""
    for hook in hooks:
        try:
            hook(*args)
        except Exception:
            owner = getattr(hook, "__self__", hook)
            logger.exception("manager %r failed on %s", owner, what)


def _unauthorized(error: RestwireError) -> bool:
    return isinstance(error, NetworkError) and error.status == 401


class LogoutManager:
    """Signs a caller out when the server refuses its credentials.

    When ``should_logout(error)`` is true (default: a 401), the caller the
    server refused is logged out: by default its identity's results and
    records are forgotten (``controller.forget(exchange.identity)``), so no
    signed-in data outlives its session, and other users sharing the
    controller keep theirs. ``handle_logout(controller)``, if given, runs
    instead (``controller.reset()`` empties the store for everybody).
    """

    def __init__(
        self,
        should_logout: Callable[[RestwireError], bool] | None = None,
        handle_logout: Callable[[ControllerView], object] | None = None,
    ) -> None:
        self.should_logout = should_logout or _unauthorized
        self.handle_logout = handle_logout

    def on_error(
        self, controller: ControllerView, exchange: Exchange, error: RestwireError
    ) -> None:
        if self.should_logout(error):
            if self.handle_logout is None:
                controller.forget(exchange.identity)
            else:
                self.handle_logout(controller)

    def __repr__(self) -> str:
        return "LogoutManager()"
