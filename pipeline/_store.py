"""The store: entities by type and primary key, results by request key.

A result is kept under its endpoint's request key with when it was fetched
and when it expires; it holds references to entity records, never copies, so
an entity updated by any fetch reads updated everywhere. Errors are kept too
(for ``error_expiry_length``), so a failing ``get`` is not retried in a loop.

Every change takes one lock: a sync controller's threads can share a store.
Every ``SWEEP_EVERY`` results stored, the expired ones are dropped, so the
store holds what is fresh, not everything ever fetched.
``reset()`` empties it and starts a new generation; a fetch that began in an
older generation does not write its result back.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from ._entity import Entity
from ._schema import Batch, EntityKey, denormalize

__all__ = ["Result", "Store"]

#: Results stored between two sweeps of the expired ones.
SWEEP_EVERY = 1024


@dataclass(frozen=True, slots=True)
class Result:
    """One stored response: its normalized value, or the error it raised."""

    schema: Any
    value: Any
    fetched_at: float
    expires_at: float
    error: Exception | None = None

    def fresh(self, now: float) -> bool:
        return now < self.expires_at


class Store:
    """Entities and results of one controller."""

    def __init__(self) -> None:
        self.records: dict[EntityKey, Entity] = {}
        self.results: dict[str, Result] = {}
        self.generation = 0
        self.lock = threading.Lock()
        self._commits = 0

    def commit(
        self,
        batch: Batch,
        key: str | None,
        result: Result | None,
        generation: int,
    ) -> bool:
        """Merge ``batch``'s entities and keep ``result`` under ``key``.

        Nothing is written if the store was reset since ``generation``; the
        return value says whether it was written.
        """
        with self.lock:
            if generation != self.generation:
                return False
            records = self.records
            for entity_key, instance in batch.records.items():
                existing = records.get(entity_key)
                if (
                    existing is None
                    or type(existing) is not type(instance)
                    or (
                        # every field is new and the old record kept no
                        # extra keys: merging would only rebuild ``instance``
                        not existing.extra_fields
                        and batch.data[entity_key].keys()
                        >= type(instance)._fields.keys()
                    )
                ):
                    records[entity_key] = instance
                else:
                    records[entity_key] = type(instance).from_data(
                        batch.data[entity_key], base=existing
                    )
            for entity_key in batch.deleted:
                records.pop(entity_key, None)
            if key is not None and result is not None:
                self.results[key] = result
                self._commits += 1
                if self._commits % SWEEP_EVERY == 0:
                    self._sweep(result.fetched_at)
            return True

    def _sweep(self, now: float) -> None:
        """Forget expired results (the lock is held): a long-running program
        that reads many distinct URLs keeps only what is still fresh."""
        expired = [key for key, kept in self.results.items() if kept.expires_at <= now]
        for key in expired:
            del self.results[key]

    def result(self, key: str) -> Result | None:
        return self.results.get(key)

    def read(self, result: Result) -> Any:
        """The result's value with its entities as they are now."""
        return denormalize(result.schema, result.value, self.records)

    def invalidate(self, key: str) -> None:
        with self.lock:
            self.results.pop(key, None)

    def reset(self) -> int:
        """Empty the store; return the new generation."""
        with self.lock:
            self.records = {}
            self.results = {}
            self.generation += 1
            return self.generation
