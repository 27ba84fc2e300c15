"""The chain: a stack of middleware, and one call run through it.

A middleware is any object with one or more of:

- ``on_request(exchange)``: change the call before it is sent;
- ``on_response(exchange)``: change ``exchange.value`` after a 2xx response;
- ``on_error(exchange, error)``: see a :class:`RestwireError` on its way out
  (it is re-raised after);
- ``on_event(exchange, event)``: see each event of a stream
  (``controller.stream``) as it arrives, before it is typed and yielded,
  and raise to end the stream with an error (a stream's body is read
  after the chain, so ``on_response`` never sees it);
- ``handle(exchange, call_next)``, the full form: a generator that runs
  ``response = yield from call_next(exchange)`` zero times (to answer
  itself), once, or several times (to retry or refresh), and may
  ``yield Sleep(seconds)``. When ``handle`` exists, the other three are not
  called. It must close nothing it did not open: a response it discards has
  already had its body read.

The first middleware in a stack is the outermost: it sees the request first
and the response last. A :class:`Stack` is an immutable value; adding to one
gives a new one, so a stack can be shared by any number of endpoints.

A middleware may also have ``check_endpoint(endpoint)``: called when an
endpoint that uses it is made, it raises (a ``TypeError``) to refuse an
endpoint it cannot serve, so the mistake shows where it is written, not at
the first response.

A middleware that reads the body's final bytes (to sign them) says
``requires_request_body = True``, as httpx's ``Auth`` does: the body is
encoded just before its request side runs (``exchange.content``), and
cannot change after (see ``_chain.exchange``).

A middleware that leaves ``exchange.value`` alone, or that handles an
:class:`~restwire.Unparsed` one (key casing records its renaming
on it), may say so with ``takes_unparsed = True``. When every layer says so,
a list of entities may go from the body's bytes to the store without a dict
per item (``_store.deferred_parse``); such a body's parse errors are then raised after
the chain, where no ``on_error`` sees them.

A middleware that never changes what a call sends as credentials (headers,
cookies, the credentials mode) may say so with a class attribute
``sends_credentials = False``. When every layer says so, a controller's
``get`` knows the caller's identity without running the chain, and answers
from its store in a few microseconds. Without it, a layer is assumed to send
credentials: the chain runs up to the innermost step first (always safe).

A middleware that renames a response's keys (key casing, ``RenameKeys``)
may say how with a method ``field_name(key) -> str``: the name a response
key ``key`` has once it is done. The stack composes them (innermost
first, as a response passes them) into :attr:`Stack.field_name`, so a
call's params in the wire's case (Twilio's ``Sid``) can name the fields
of the record they stand for (``sid``): a delete, an update and
``FillPrimaryKey`` read them so (``RestEndpoint.param_fields``).

A stack is built once, where an endpoint is made; each call runs through
its handlers with :func:`~restwire._chain.exchange.run_exchange`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, Protocol, runtime_checkable

from .._base.effects import Flow
from .._base.errors import RestwireError, UsageError
from .._base.library import Response
from .._wire.sse import ServerSentEvent
from .exchange import CallNext, Exchange, Handler

__all__ = [
    "CallNext",
    "ErrorMiddleware",
    "EventMiddleware",
    "FlowMiddleware",
    "Handler",
    "Middleware",
    "RequestMiddleware",
    "ResponseMiddleware",
    "Stack",
    "compile_handlers",
]

_HOOKS = ("handle", "on_request", "on_response", "on_error", "on_event")


@runtime_checkable
class RequestMiddleware(Protocol):
    """A middleware that changes a call before it is sent."""

    def on_request(self, exchange: Exchange) -> object:
        """Change ``exchange`` (headers, body, params read, URL) in place."""
        ...


@runtime_checkable
class ResponseMiddleware(Protocol):
    """A middleware that changes the value of a 2xx response."""

    def on_response(self, exchange: Exchange) -> object:
        """Change or replace ``exchange.value``."""
        ...


@runtime_checkable
class ErrorMiddleware(Protocol):
    """A middleware that sees the errors on their way out (re-raised after)."""

    def on_error(self, exchange: Exchange, error: RestwireError) -> object:
        """React to ``error``; it is raised on after."""
        ...


@runtime_checkable
class EventMiddleware(Protocol):
    """A middleware that sees each event of a stream as it arrives."""

    def on_event(self, exchange: Exchange, event: ServerSentEvent) -> object:
        """Look at ``event`` (its ``data`` not yet parsed); raise a
        :class:`RestwireError` to end the stream with it."""
        ...


@runtime_checkable
class FlowMiddleware(Protocol):
    """The full form of a middleware (see the module docstring)."""

    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        """Run the rest of the chain zero, one or more times."""
        ...


#: A middleware: an object with one or more of the hooks above (no base
#: class needed). A type checker accepts any object that has one.
Middleware = (
    RequestMiddleware
    | ResponseMiddleware
    | ErrorMiddleware
    | EventMiddleware
    | FlowMiddleware
)


class _Hooks(NamedTuple):
    on_request: Callable[[Exchange], Any] | None
    on_response: Callable[[Exchange], Any] | None
    on_error: Callable[[Exchange, RestwireError], Any] | None
    #: The body is encoded before this layer's request side runs.
    needs_body: bool


def _hooks(middleware: Middleware) -> _Hooks:
    return _Hooks(
        getattr(middleware, "on_request", None),
        getattr(middleware, "on_response", None),
        getattr(middleware, "on_error", None),
        _needs_body(middleware),
    )


def _needs_body(middleware: Middleware) -> bool:
    return bool(getattr(middleware, "requires_request_body", False))


def _with_body(handle: Handler) -> Handler:
    """``handle``, the body encoded before it runs."""

    def encoded(exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        exchange.encode()
        return (yield from handle(exchange, call_next))

    return encoded


def _simple_layers(layers: tuple[_Hooks, ...]) -> Handler:
    """One handler for consecutive simple-form layers.

    It behaves exactly as if each layer wrapped the next: ``on_request`` in
    order, ``on_response`` in reverse, and an error raised anywhere is seen
    by the ``on_error`` of every layer it passes on its way out (those whose
    ``on_request`` had run, and, for an error from a layer's own
    ``on_response``, only the layers outside it). One generator frame instead
    of one per layer: every effect of the call passes through each frame.
    """
    count = len(layers)
    watched = any(layer.on_error is not None for layer in layers)
    # (worked out once: the request side's steps, each with the number of
    # layers before it, and the response hooks, innermost first, each with
    # its layer's place; a layer with neither does nothing in a call)
    requests = tuple(
        (index, layer.needs_body, layer.on_request)
        for index, layer in enumerate(layers)
        if layer.needs_body or layer.on_request is not None
    )
    responses = tuple(
        (index, hook)
        for index in range(count - 1, -1, -1)
        if (hook := layers[index].on_response) is not None
    )

    def handle(exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        # how many layers' request sides ran: their on_error see an error
        entered = 0
        try:
            for entered, needs_body, on_request in requests:  # noqa: B007
                if needs_body:
                    exchange.encode()
                if on_request is not None:
                    on_request(exchange)
            entered = count
            response = yield from call_next(exchange)
            if exchange.parse:
                for entered, on_response in responses:  # noqa: B007
                    on_response(exchange)
            return response
        except RestwireError as error:
            if watched:
                for index in range(entered - 1, -1, -1):
                    on_error = layers[index].on_error
                    if on_error is not None:
                        on_error(exchange, error)
            raise

    return handle


def compile_handlers(layers: tuple[Middleware, ...]) -> tuple[Handler, ...]:
    """The stack's handlers, consecutive simple-form layers fused into one."""
    handlers: list[Handler] = []
    run: list[_Hooks] = []
    for layer in layers:
        handle = getattr(layer, "handle", None)
        if handle is None:
            run.append(_hooks(layer))
            continue
        if run:
            handlers.append(_simple_layers(tuple(run)))
            run = []
        handlers.append(_with_body(handle) if _needs_body(layer) else handle)
    if run:
        handlers.append(_simple_layers(tuple(run)))
    return tuple(handlers)


def _field_names(layers: list[Middleware]) -> Callable[[str], str] | None:
    """The layers' ``field_name`` methods as one, innermost first; ``None``
    when no layer has one."""
    renames: tuple[Callable[[str], str], ...] = tuple(
        rename
        for layer in reversed(layers)
        if callable(rename := getattr(layer, "field_name", None))
    )
    if not renames:
        return None
    if len(renames) == 1:
        return renames[0]

    def field_name(key: str) -> str:
        for rename in renames:
            key = rename(key)
        return key

    return field_name


def _check_middleware(layer: object) -> None:
    """Refuse, where a stack is made, what is not a middleware: an object
    with none of the hooks callable, or a middleware's class given in place
    of one of its instances (its hooks are then plain functions, which
    would fail at the first call with an unrelated ``TypeError``)."""
    if isinstance(layer, type):
        if any(callable(getattr(layer, hook, None)) for hook in _HOOKS):
            raise UsageError(
                f"{layer.__name__} is a middleware's class, not a middleware: "
                f"call it: `{layer.__name__}()`"
            )
        raise UsageError(
            f"{layer.__name__} is a class, not a middleware: a middleware is "
            f"an object with one of {', '.join(_HOOKS)}"
        )
    if not any(callable(getattr(layer, hook, None)) for hook in _HOOKS):
        raise UsageError(
            f"{_shown(layer)} is not a middleware: it needs one of {', '.join(_HOOKS)}"
        )


def _shown(layer: object) -> str:
    """How a non-middleware is named in an error: a function by its name,
    anything else by its type (not its repr, which may hold a secret)."""
    name = getattr(layer, "__qualname__", None)
    if isinstance(name, str):
        return name
    kind = type(layer).__name__
    return f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"


class Stack:
    """An immutable, ordered sequence of middleware; the first is outermost.

    What a call reads of it (its handlers, whether a layer may send
    credentials) is worked out once, when the stack is made, and read as
    plain attributes.
    """

    __slots__ = (
        "_hash",
        "field_name",
        "handlers",
        "layers",
        "sends_credentials",
        "takes_unparsed",
    )

    layers: tuple[Middleware, ...]
    """The middleware, outermost first."""
    handlers: tuple[Handler, ...]
    """The layers as full-form handlers, outermost first (consecutive
    simple-form layers share one)."""
    sends_credentials: bool
    """Whether some layer may change what a call sends as credentials
    (every layer that does not say ``sends_credentials = False``)."""
    takes_unparsed: bool
    """Whether every layer says ``takes_unparsed = True``."""
    field_name: Callable[[str], str] | None
    """The name a response key has once every layer that renames keys
    has renamed it (innermost first); ``None`` when no layer does."""
    _hash: int

    def __init__(self, *layers: Middleware | Stack) -> None:
        flat: list[Middleware] = []
        for layer in layers:
            if isinstance(layer, Stack):
                flat.extend(layer.layers)
            else:
                _check_middleware(layer)
                flat.append(layer)
        made = object.__setattr__
        made(self, "layers", tuple(flat))
        made(self, "handlers", compile_handlers(tuple(flat)))
        made(
            self,
            "sends_credentials",
            any(getattr(layer, "sends_credentials", True) for layer in flat),
        )
        made(
            self,
            "takes_unparsed",
            all(getattr(layer, "takes_unparsed", False) for layer in flat),
        )
        made(self, "field_name", _field_names(flat))
        made(self, "_hash", hash(tuple(id(layer) for layer in flat)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Stack is immutable; use + or use() for a new one")

    def use(self, *middleware: Middleware | Stack) -> Stack:
        """A new stack with ``middleware`` added inside the current layers."""
        return Stack(self, *middleware)

    def __add__(self, other: object) -> Stack:
        if isinstance(other, Stack | list | tuple):
            return Stack(self, *other)
        return NotImplemented

    def __iter__(self) -> Iterator[Middleware]:
        return iter(self.layers)

    def __len__(self) -> int:
        return len(self.layers)

    def __getitem__(self, index: int) -> Middleware:
        return self.layers[index]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Stack):
            return NotImplemented
        return len(self.layers) == len(other.layers) and all(
            a is b for a, b in zip(self.layers, other.layers, strict=True)
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Stack({', '.join(repr(layer) for layer in self.layers)})"
