"""Which write wins: a read in flight against what happened since it began.

A read takes time; while it is in the air, the store may be reset, its
caller forgotten (logged out), its results invalidated, or the records it
will bring written by something newer (a mutation's answer, a pushed event,
a value ``set``). :class:`WriteOrder` keeps a clock of such events, a
*generation*: a call notes the generation when it begins, and when it
lands the store asks here whether it may still write, and which of its
records are older than what the store holds:

- nothing is written after a reset, or after its identity was forgotten;
- a result is not written when its request key, or its endpoint's route
  (for its identity, or for everyone), was invalidated since;
- a record written since by something newer is kept as it is now, not as
  the read had it.

Every table here is bounded: a call older than thousands of such events is
long finished, so the oldest marks go first. The store holds its lock
around every use; nothing here locks.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable
from typing import Any

from .entity import EntityKey
from .schemas import Batch

__all__ = ["EVERYONE", "WriteOrder"]

#: ``Store.invalidate_routes``' identity for "every identity".
EVERYONE: Any = object()

#: How many forgotten identities and invalidations are remembered.
_FORGOTTEN = 4096
#: How many record marks are kept, in all (see ``WriteOrder.written``).
_MARKS = 8192


class WriteOrder:
    """The generations of one store (see the module)."""

    __slots__ = (
        "forgotten",
        "generation",
        "invalidated",
        "marks",
        "reset_at",
        "written",
    )

    def __init__(self) -> None:
        #: The clock: it moves at each reset, forgetting, invalidation and
        #: newer write.
        self.generation = 0
        #: The generation of the last reset.
        self.reset_at = 0
        #: identity -> the generation it was last forgotten at (bounded).
        self.forgotten: dict[Hashable, int] = {}
        #: What was invalidated -> the generation it was invalidated at
        #: (bounded): ``("key", key)``, ``("route", route, identity)``
        #: (``EVERYONE`` for every identity's).
        self.invalidated: dict[Hashable, int] = {}
        #: identity -> (record key -> the generation a write that was not a
        #: read's gave it), bounded in all by :data:`_MARKS`.
        self.written: dict[Hashable, dict[EntityKey, int]] = {}
        #: How many marks ``written`` holds.
        self.marks = 0

    def too_old(self, identity: Hashable, generation: int) -> bool:
        """Whether a call of ``identity`` that began at ``generation`` may
        write nothing: the store was reset, or ``identity`` forgotten, since."""
        return generation < self.reset_at or generation < self.forgotten.get(
            identity, 0
        )

    def invalidated_since(
        self, generation: int, key: str | None, route: Hashable, identity: Hashable
    ) -> bool:
        """Whether a result of request ``key`` and ``route``, for
        ``identity``, read since ``generation``, was invalidated meanwhile."""
        seen = self.invalidated
        return generation < max(
            seen.get(("key", key), 0),
            seen.get(("route", route, EVERYONE), 0),
            seen.get(("route", route, identity), 0),
        )

    def invalidate(self, what: Hashable) -> None:
        """``what`` (``("key", key)`` or ``("route", route, identity)``) was
        invalidated now."""
        _remember_at(self.invalidated, what, self._next())

    def forget(self, identity: Hashable) -> None:
        """``identity`` was forgotten now: its calls in flight write nothing."""
        self.marks -= len(self.written.pop(identity, ()))
        _remember_at(self.forgotten, identity, self._next())

    def reset(self) -> int:
        """The store was emptied: every call in flight writes nothing; the
        new generation."""
        self.reset_at = self._next()
        self.forgotten.clear()
        self.invalidated.clear()
        self.written.clear()
        self.marks = 0
        return self.generation

    def mark_written(self, identity: Hashable, batch: Batch) -> None:
        """``batch``'s records, written with no result (a mutation's answer,
        a pushed event) or set, are newer than any read of them in flight."""
        generation = self._next()
        records = batch.records
        marks = self.written.setdefault(identity, {})
        self.marks += len(records)
        # (a dict made from a dict, or merged into one, reuses its keys'
        # hashes: none is hashed again, however many records)
        if self.marks <= _MARKS:
            if marks and not marks.keys().isdisjoint(records):
                for entity_key in marks.keys() & records.keys():
                    del marks[entity_key]  # (marked again below: the newest)
            marks.update(dict.fromkeys(records, generation))
            return
        self._halve(marks, records, generation)

    def _halve(
        self,
        marks: dict[EntityKey, int],
        records: dict[EntityKey, Any],
        generation: int,
    ) -> None:
        """Past the bound, the oldest half of each identity's marks go: a
        read older than that many writes is long finished. (This identity's
        are its older marks of other records, then ``records``: only those
        that stay are made.)"""
        kept: dict[Hashable, dict[EntityKey, int]] = {}
        for who, each in self.written.items():
            if each is not marks:
                oldest = len(each) // 2 + 1
                kept_part = dict(itertools.islice(each.items(), oldest, None))
            else:
                older = list(itertools.filterfalse(records.__contains__, each))
                oldest = (len(older) + len(records)) // 2 + 1
                if oldest >= len(older):
                    kept_part = dict.fromkeys(
                        itertools.islice(records, oldest - len(older), None),
                        generation,
                    )
                else:
                    del older[:oldest]
                    kept_part = dict(
                        zip(older, map(each.__getitem__, older), strict=True)
                    )
                    kept_part.update(dict.fromkeys(records, generation))
            if kept_part:
                kept[who] = kept_part
        self.written = kept
        self.marks = sum(map(len, kept.values()))

    def keep_newer(
        self,
        identity: Hashable,
        held: dict[EntityKey, Any],
        batch: Batch,
        generation: int,
    ) -> None:
        """A read of ``identity`` that began at ``generation`` keeps, of its
        records, the ones written since (by a mutation or a pushed event) as
        ``held`` has them now, not as it read them."""
        marks = self.written.get(identity)
        if not marks:
            return
        records = batch.records
        if len(marks) <= len(records):
            newer = [k for k, at in marks.items() if at > generation and k in records]
        else:
            newer = [k for k in records if marks.get(k, 0) > generation]
        if not newer:
            return
        data = batch.data
        kept = False
        for entity_key in newer:
            current = held.get(entity_key)
            if current is not None:
                records[entity_key] = current
                data.pop(entity_key, None)  # (nothing of the older data merges)
                kept = True
        if kept:
            # the lists this batch made hold the older records: they are
            # no longer what it stores, to read back or count from
            batch.made.clear()

    def _next(self) -> int:
        self.generation += 1
        return self.generation


def _remember_at(stamps: dict[Hashable, int], what: Hashable, generation: int) -> None:
    """``stamps[what] = generation``, the oldest half dropped when full: a
    call older than that many forgettings is long finished."""
    stamps.pop(what, None)  # (re-inserted: the newest)
    if len(stamps) >= _FORGOTTEN:
        for old in list(stamps)[: _FORGOTTEN // 2]:
            del stamps[old]
    stamps[what] = generation
