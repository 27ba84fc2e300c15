"""Running an exchange through its endpoint's middleware to the terminal.

``run_exchange`` is the whole call as one flow: each handler of the stack in
order, outermost first, then the terminal; after all of them the endpoint's
own ``process`` step. Drivers in ``pipeline._drivers`` run the flow.
"""

from __future__ import annotations

import httpx

from ._effects import Flow
from ._exchange import Exchange
from ._stack import Handler
from ._terminal import terminal

__all__ = ["run_exchange"]


class _Next:
    """``call_next`` for the handler at ``index``: the rest of the chain."""

    __slots__ = ("handlers", "index")

    def __init__(self, handlers: tuple[Handler, ...], index: int) -> None:
        self.handlers = handlers
        self.index = index

    def __call__(self, exchange: Exchange) -> Flow[httpx.Response]:
        if self.index == len(self.handlers):
            return terminal(exchange)
        handler = self.handlers[self.index]
        return handler(exchange, _Next(self.handlers, self.index + 1))


def run_exchange(exchange: Exchange) -> Flow[httpx.Response]:
    """The flow of one call: middleware, terminal, then ``process``."""
    endpoint = exchange.endpoint
    response = yield from _Next(endpoint.middleware.handlers, 0)(exchange)
    if exchange.parse:
        exchange.value = endpoint.process(exchange.value, exchange.params)
    return response
