"""Managers: controller-wide reactions around every call.

A manager is any object with one or more of these hooks, which a controller
calls, for each of its managers in order, around every call it sends (a
``get`` answered from the store sends nothing, and neither does a caller
that shares another's request in flight):

| hook | when |
|---|---|
| ``on_call(controller, exchange)`` | before the chain runs |
| ``on_value(controller, exchange, value)`` | after it succeeded, with the value the caller gets |
| ``on_error(controller, exchange, error)`` | after it raised a :class:`RestwireError`, before the caller sees it |

Logout, logging and metrics are managers, not edits to the controller
(``exchange.state`` carries what a manager needs from one hook to the next,
a start time, say). A manager that raises is logged and skipped: the call
goes on, and the caller gets its own value or error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Protocol

from ._errors import NetworkError, RestwireError
from ._exchange import Exchange

__all__ = ["LogoutManager", "Manager", "ManagerHooks", "run_hooks"]

logger = logging.getLogger("restwire")


class Manager(Protocol):
    """The hooks a manager may have (every one optional; see the module)."""

    def on_error(
        self, controller: Any, exchange: Exchange, error: RestwireError
    ) -> None:
        """React to an error a call of ``controller`` raised."""
        ...


class ManagerHooks(NamedTuple):
    """A controller's managers, sorted once by the hooks they have."""

    on_call: tuple[Callable[[Any, Exchange], object], ...]
    on_value: tuple[Callable[[Any, Exchange, Any], object], ...]
    on_error: tuple[Callable[[Any, Exchange, RestwireError], object], ...]

    @classmethod
    def of(cls, managers: Iterable[object]) -> ManagerHooks:
        managers = tuple(managers)

        def hooks(name: str) -> tuple[Any, ...]:
            return tuple(
                hook
                for manager in managers
                if (hook := getattr(manager, name, None)) is not None
            )

        return cls(hooks("on_call"), hooks("on_value"), hooks("on_error"))


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


def _reset(controller: Any) -> None:
    controller.reset()


class LogoutManager:
    """The seed's de-authorization cleanup.

    When ``should_logout(error)`` is true (default: a 401), calls
    ``handle_logout(controller)`` (default: ``controller.reset()``, which
    empties the store so no signed-in data outlives the session).
    """

    def __init__(
        self,
        should_logout: Callable[[RestwireError], bool] | None = None,
        handle_logout: Callable[[Any], Any] | None = None,
    ) -> None:
        self.should_logout = should_logout or _unauthorized
        self.handle_logout = handle_logout or _reset

    def on_error(
        self, controller: Any, exchange: Exchange, error: RestwireError
    ) -> None:
        if self.should_logout(error):
            self.handle_logout(controller)

    def __repr__(self) -> str:
        return "LogoutManager()"
