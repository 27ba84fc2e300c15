"""The effects a chain yields: the only I/O a middleware ever asks for.

A chain is a generator. It never touches the network or the clock itself; it
yields one of these values and a driver (``pipeline._drivers``) performs it,
with ``httpx.Client`` and blocking calls, or with ``httpx.AsyncClient`` and
awaits, and sends the result back in. That is how one definition of every
middleware serves both.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

__all__ = ["Close", "Effect", "Flow", "Read", "Send", "Sleep"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Send:
    """Send ``request`` as one hop (no redirects followed); result: the response
    with its body not yet read.

    ``with_client_auth`` lets the client's own ``auth`` apply to this hop;
    ``store_cookies`` lets the client's jar keep the cookies the response sets.
    """

    request: httpx.Request
    with_client_auth: bool = True
    store_cookies: bool = True


@dataclass(frozen=True, slots=True)
class Read:
    """Read ``response``'s whole body (and so release its connection); result:
    the bytes."""

    response: httpx.Response


@dataclass(frozen=True, slots=True)
class Close:
    """Close ``response`` without reading the rest of its body; result: None."""

    response: httpx.Response


@dataclass(frozen=True, slots=True)
class Sleep:
    """Wait ``seconds`` without blocking an event loop; result: None."""

    seconds: float


Effect = Send | Read | Close | Sleep

#: A generator that yields effects and returns a ``T``.
Flow = Generator[Effect, Any, T]
