"""What one response normalizes to: a :class:`Batch` of records to merge
into the store, and deletions; entities are keyed by ``(key, pk)``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .entity import Entity

__all__ = ["Batch", "EntityKey"]

#: An entity record's place in the store: its class's ``key`` and its ``pk()``.
EntityKey = tuple[str, str]


class Batch:
    """What one response normalizes to: records to merge, and deletions."""

    __slots__ = (
        "_data",
        "_pending",
        "committed",
        "complete",
        "deleted",
        "made",
        "records",
    )

    def __init__(self) -> None:
        #: (key, pk) -> the instance built from this response alone
        self.records: dict[EntityKey, Entity] = {}
        self._data: dict[EntityKey, Mapping[str, Any]] = {}
        #: Lists' keys and raw items not yet in ``_data`` (see ``data``).
        self._pending: list[tuple[list[EntityKey], Iterable[Any]]] = []
        self.deleted: set[EntityKey] = set()
        #: Lists of keys whose data held every field of their entity class
        #: (and nothing else), by class: merged in one step (``_merge``).
        self.complete: list[tuple[type[Entity], list[EntityKey]]] = []
        #: For each list of ``complete``: ``id`` of its keys -> the keys and
        #: the records made for them, in order (what reading the list back
        #: gives, while the store holds these very records: ``Store.commit``).
        self.made: dict[int, tuple[list[EntityKey], list[Entity]]] = {}
        #: Set once a store has taken the batch (it may then hold ``records``
        #: itself: the batch is not to be changed, nor committed again).
        self.committed: bool | None = None

    def took_whole(
        self, cls: type[Entity], keys: list[EntityKey], instances: list[Entity]
    ) -> None:
        """``keys`` (new to this batch) are a list whose data held every
        field of ``cls`` and nothing else, made into ``instances``."""
        self.complete.append((cls, keys))
        self.made[id(keys)] = (keys, instances)

    @property
    def data(self) -> dict[EntityKey, Mapping[str, Any]]:
        """(key, pk) -> the raw fields this response had, for merging.

        A list normalized by column hands over its keys and items as they
        are (:meth:`defer`); they are filed here the first time anything
        asks, in the order they came. A response merged in one step, or
        into a store that holds none of its keys, never asks.
        """
        pending = self._pending
        if pending:
            data = self._data
            for keys, items in pending:
                data.update(zip(keys, items, strict=True))
            pending.clear()
        return self._data

    def defer(self, keys: list[EntityKey], items: Iterable[Any]) -> None:
        """``items`` are the raw fields of ``keys`` (new to this batch);
        file them when ``data`` is first asked for."""
        self._pending.append((keys, items))
