"""``EventSchemas``: a stream whose events each have a type of their own,
chosen by the event's name.

An event stream names its events (``event: message_start``), and an API
such as Anthropic's messages sends a different shape under each name. An
endpoint says which schema reads which name::

    messages = api.extend(
        path="/v1/messages",
        method="POST",
        schema=EventSchemas(
            {
                "message_start": MessageStart,
                "content_block_delta": ContentBlockDelta,
                "message_stop": MessageStop,
            }
        ),
    )

``controller.stream(messages, body=...)`` then yields a ``MessageStart``,
the deltas and a ``MessageStop``, each the JSON data of its event read by
its schema. An event whose name is not mapped is left out (``others="skip"``,
the default: providers add event types, and a client written before them
goes on working) or yielded as the :class:`~restwire.ServerSentEvent` it
is (``others="event"``). The endpoint is ``RestEndpoint[T]``, ``T`` the
types of the mapping: a type checker infers their common base, and
``EventSchemas[A | B]({...})`` names the union.

Only ``stream()`` reads such an endpoint: ``fetch`` and ``get`` read one
body, with one schema, and are refused.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Generic, Literal, TypeVar, overload

from .._base.errors import UsageError
from .._store.schemas import check_schema
from .._wire.sse import ServerSentEvent

__all__ = ["EventSchemas", "Others"]

T = TypeVar("T")

#: What a stream does with an event whose name is not mapped.
Others = Literal["skip", "event"]


class EventSchemas(Generic[T]):
    """Each event name's schema, for an endpoint's ``schema=`` (see the
    module). Immutable and hashable; ``schemas`` maps the names."""

    __slots__ = ("_hash", "others", "schemas")

    schemas: Mapping[str, Any]
    """Event name -> the schema its data is read with."""
    _hash: int
    others: Others
    """``"skip"``: an event of another name is left out; ``"event"``: it is
    yielded as its :class:`~restwire.ServerSentEvent`."""

    @overload
    def __init__(
        self: EventSchemas[T],
        schemas: Mapping[str, type[T]],
        others: Literal["skip"] = "skip",
    ) -> None: ...
    @overload
    def __init__(
        self: EventSchemas[T | ServerSentEvent],
        schemas: Mapping[str, type[T]],
        others: Literal["event"],
    ) -> None: ...
    def __init__(self, schemas: Mapping[str, Any], others: Others = "skip") -> None:
        if not isinstance(schemas, Mapping) or not schemas:
            raise UsageError(
                "EventSchemas() takes a mapping of event names to schemas, "
                f"like {{'message_start': MessageStart}}, not {schemas!r}"
            )
        for name, schema in schemas.items():
            if not isinstance(name, str) or not name or "\n" in name or "\r" in name:
                raise UsageError(
                    f"EventSchemas(): {name!r} is not an event name (a "
                    "non-empty text on one line, as a stream's 'event:' field)"
                )
            check_schema(schema, f"EventSchemas[{name!r}]")
        if others not in ("skip", "event"):
            raise UsageError(
                f"EventSchemas(others=...) is 'skip' or 'event', not {others!r}"
            )
        made = object.__setattr__
        made(self, "schemas", dict(schemas))
        made(self, "others", others)
        made(self, "_hash", hash((tuple(self.schemas), others)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("EventSchemas is immutable")

    def __iter__(self) -> Iterator[str]:
        return iter(self.schemas)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EventSchemas):
            return NotImplemented
        return self.schemas == other.schemas and self.others == other.others

    def __repr__(self) -> str:
        names = ", ".join(
            f"{name!r}: {getattr(schema, '__name__', schema)}"
            for name, schema in self.schemas.items()
        )
        return f"EventSchemas({{{names}}}, others={self.others!r})"
