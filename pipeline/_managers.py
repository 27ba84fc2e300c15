"""Managers: controller-wide reactions to what calls do.

A manager is any object with ``on_error(controller, error)``; a controller
calls each of its managers, in order, for every error a call raises after it
was sent, before the error reaches the caller. A manager that raises is
logged and skipped: the caller still gets the original error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ._errors import NetworkError, RestwireError

__all__ = ["LogoutManager", "Manager"]


class Manager(Protocol):
    def on_error(self, controller: Any, error: RestwireError) -> None:
        """React to an error a call of ``controller`` raised."""
        ...


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

    def on_error(self, controller: Any, error: RestwireError) -> None:
        if self.should_logout(error):
            self.handle_logout(controller)

    def __repr__(self) -> str:
        return "LogoutManager()"
