"""The normalized store: records and results, kept per identity, and read back.

A value is normalized by its schema's plan (``schemas``) into a batch of
records and a value that refers to them; the store merges the batch and
keeps the value as a result, and reads it back with the records as they are
now.

The :class:`Store` keeps, for each identity, entities by type and primary
key and results by request key and value shape, with when each was fetched
and when it expires; a result holds references to records, never copies, so
an entity updated by any fetch reads updated everywhere that identity looks.
Errors are kept too (for ``error_expiry_length``), so a failing ``get`` is
not retried in a loop. Every change takes one lock: a sync controller's
threads can share a store. Sweeps drop what expired and what nothing reaches
any more, so the store holds what is fresh, not everything ever fetched.
``reset()`` empties it and starts a new generation; a fetch that began in an
older generation does not write its result back.
"""

from __future__ import annotations

import sys
import threading
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from functools import partial
from itertools import chain, compress, filterfalse, repeat
from operator import attrgetter, is_, is_not, le, methodcaller, ne, not_
from typing import Any, NamedTuple

from msgspec.structs import astuple

from .._base.forks import renewed_in_child
from .entity import Entity, EntityKey
from .retention import (
    DEFAULT_MAX_BYTES,
    OVERHEAD,
    SAME_SIZE_VALUES,
    Retention,
    Slot,
    column_growth,
    column_size,
    extras_growth,
    records_size,
    size_of,
)
from .schemas import (
    MISSING,
    Batch,
    EntityListPlan,
    EntityPlan,
    Plan,
    RecordModelListPlan,
    RecordModelPlan,
    entity_plan,
)
from .write_order import EVERYONE, WriteOrder

__all__ = ["EVERYONE", "Partition", "Result", "Store"]


# -- the store --------------------------------------------------------------


class Result(NamedTuple):
    """One stored response: its normalized value, or the error it raised.
    (A named tuple: immutable, and made in a fraction of a frozen
    dataclass's time, once per call.)"""

    #: The plan of the schema ``value`` was normalized by (``schemas``).
    plan: Plan
    value: Any
    fetched_at: float
    expires_at: float
    error: Exception | None = None
    #: The digest of the body the value was read from, when an HTTP cache
    #: served it: a later identical body need not be parsed again.
    digest: bytes | None = None
    #: The endpoint's ``route`` and the call's params: which endpoint, with
    #: which params, this is a result of (``invalidate_all``, ``adds_to``).
    route: Hashable = None
    params: Mapping[str, Any] | None = None
    #: Which page of ``controller.paginate`` this is (``None``: a plain
    #: call), so a created record joins the first page of a listing only.
    page: int | None = None

    def fresh(self, now: float) -> bool:
        return now < self.expires_at


#: How many record keys a store shares between its results before it
#: starts over.
_KEYS_SHARED = 1 << 16


class Partition:
    """What one identity has fetched: its entity records, and its results by
    request key and value shape.

    Each record is held while something uses it: a kept result whose value
    refers to it, or a held record whose nested entity field does
    (``uses`` counts both, by key). A record no result uses yet (a
    mutation's answer, a pushed event) is *loose*: held until the
    identity's slot for such records is the least recently used one past
    the bound, or a result takes it up. The bytes of the records held are
    ``record_bytes``, counted in when each is stored and out when it goes
    (``retention.records_size``)."""

    __slots__ = (
        "bytes",
        "dropped",
        "identity",
        "loose",
        "nested",
        "receipts",
        "record_bytes",
        "records",
        "replaced",
        "results",
        "table_bytes",
        "uses",
    )

    def __init__(self, identity: Hashable) -> None:
        #: The identity, as the object the store keys it by: its results'
        #: slots hold this one, not each call's equal copy.
        self.identity = identity
        self.records: dict[EntityKey, Entity] = {}
        self.results: dict[str, dict[Hashable, Result]] = {}
        #: How many references to each record key the kept results and the
        #: held records make (none: not in it). A plain dict, counted into
        #: by :func:`_count_uses`: the first list's uses are one table made
        #: from its keys', not a copy of it.
        self.uses: dict[EntityKey, int] = {}
        #: Records held that nothing uses yet (see the class).
        self.loose: dict[EntityKey, None] = {}
        #: Whether a record with nested entity fields was ever held: then
        #: records may reach each other in a cycle, which counting uses
        #: never frees (``Store._collect`` does).
        self.nested = False
        #: Bytes its kept results' values hold (``bytes``), its records
        #: (``record_bytes``), and those of the results dropped since the
        #: cycles were last collected (``dropped``).
        self.bytes = 0
        self.record_bytes = 0
        self.dropped = 0
        #: Bytes its tables of records, uses and loose keys take (a dict's
        #: table does not shrink as keys go: ``Store._tables``).
        self.table_bytes = 0
        #: How many commits have replaced or deleted a record it held: a
        #: record held since a receipt was written is the one it counted
        #: while this has not moved.
        self.replaced = 0
        #: By result slot (request key, shape): the result whose records
        #: were all new when stored (or all replaced by its own), what
        #: ``replaced`` was then, the bytes counted in for them, and their
        #: class when they were made from one list of one class. When that
        #: result goes with all its records, or a poll of it replaces them
        #: all, and no record was replaced since, those bytes are what goes:
        #: counted out without walking the records again.
        self.receipts: dict[
            tuple[str, Hashable], tuple[Result, int, int, type | None]
        ] = {}


class Store:
    """Entities and results of one controller, kept apart per identity.

    Each identity (who a call says it is: ``_chain.identity``) has a
    :class:`Partition` of its own: a result is read back only by calls of
    the same identity, against that identity's records, so one user's
    version of a record never shows in another's result. A deletion (a
    delete's answer, a value ``set`` or an event pushed with an
    ``Invalidate`` schema) removes the record from its caller's partition
    alone: the same key in another identity's partition names that
    identity's record (the same id at another tenant), which stays.

    Memory follows what is fresh and stays within ``max_bytes``
    (``retention``), counted as it is held: each change drops the results
    that have expired, then, past the bound, the least recently used; a
    record goes as the last result (or held record) using it goes, and its
    bytes with it, so no record outlives what counted it; a partition with
    no result left goes whole. Records that use each other in a cycle
    (nested entities) are collected once a partition's dropped results add
    up to half of what it holds. No step walks the whole store.
    """

    def __init__(self, max_bytes: int | None = DEFAULT_MAX_BYTES) -> None:
        self.partitions: dict[Hashable, Partition] = {}
        self.retention = Retention(max_bytes)
        #: Which write wins against a read in flight (``write_order``).
        self.order = WriteOrder()
        self.lock = threading.Lock()
        renewed_in_child(self, "lock")
        self._now = float("-inf")
        #: Each record key seen lately, as the one key object results share
        #: (``share_keys``; bounded).
        self._keys: dict[EntityKey, EntityKey] = {}
        #: How many it shares at most: keys it shares outlive the records
        #: they name until it starts over, so at most 1/32 of the bound's
        #: worth (~128 bytes each).
        self._keys_bound = (
            _KEYS_SHARED if max_bytes is None else min(_KEYS_SHARED, max_bytes >> 12)
        )

    @property
    def generation(self) -> int:
        """The store's clock (``write_order``): a call notes it when it
        begins, and writes back only if nothing since forbids it."""
        return self.order.generation

    def share_keys(self, keys: list[EntityKey], identity: Hashable, key: str) -> None:
        """Put in ``keys``, in place, for each key the equal key object
        the store already shares, when they are to be kept under a request
        ``key`` new to ``identity``: a list read at another URL keeps no
        new key tuples, each one memory and one more object for the cyclic
        garbage collector to walk (which then runs less often). A list read
        again at its own URL replaces its result, whose keys go with it."""
        partition = self.partitions.get(identity)
        if partition is not None and key in partition.results:
            return
        shared = self._keys
        if len(shared) > self._keys_bound:
            shared.clear()  # (a bound, not an LRU: a later list shares anew)
        keys[:] = map(shared.setdefault, keys, keys)

    def commit(
        self,
        identity: Hashable,
        batch: Batch,
        key: str | None,
        shape: Hashable,
        result: Result | None,
        generation: int,
    ) -> bool:
        """Merge ``batch``'s entities into ``identity``'s records and keep
        ``result`` under ``key`` and ``shape``.

        Nothing is written if the store was reset, or ``identity``
        forgotten, since ``generation``; the return value says whether it
        was written.
        """
        with self.lock:
            written = self._commit(identity, batch, key, shape, result, generation)
            return written > 0

    def commit_and_read(
        self,
        identity: Hashable,
        batch: Batch,
        key: str | None,
        shape: Hashable,
        result: Result | None,
        generation: int,
        plan: Plan,
        value: Any,
        *,
        newest: bool = False,
    ) -> Any:
        """:meth:`commit`, then ``value`` (normalized by ``plan``: what
        the batch was made from) read with ``identity``'s records as they are now, as :meth:`read`
        gives it; ``MISSING`` if nothing was written or a record is gone.

        Read in the same hold of the lock. A response that is one list of
        flat entities (``plan`` is ``[Entity]``'s: nothing else of the
        batch can have touched its records), which the batch took whole and
        the store took whole too, reads back as the records the batch made,
        with no lookup per item."""
        with self.lock:
            written = self._commit(
                identity, batch, key, shape, result, generation, newest
            )
            if not written:
                return MISSING
            if (
                written == _WHOLE
                and type(plan) is EntityListPlan
                and type(value) is list
            ):
                made = batch.made.get(id(value))
                if made is not None and made[0] is value:
                    return made[1]
            return self.read(identity, plan, value)

    def _commit(
        self,
        identity: Hashable,
        batch: Batch,
        key: str | None,
        shape: Hashable,
        result: Result | None,
        generation: int,
        newest: bool = False,
    ) -> int:
        """:meth:`commit`, under the lock: 0 if nothing was written,
        ``_WHOLE`` if every record of the batch was stored as it was made
        (none merged with what was there, none deleted), else 1. Records
        that come with no result (a mutation's answer, a pushed event), or
        with ``newest`` (a value ``set``), are newer than any read of them
        in flight: such a read keeps them (``WriteOrder.keep_newer``)."""
        order = self.order
        if generation < order.reset_at or generation < order.forgotten.get(identity, 0):
            return 0
        if (
            result is not None
            and order.invalidated
            and order.invalidated_since(generation, key, result.route, identity)
        ):
            return 0  # invalidated while it was in flight: older than what forgot it
        partition = self.partitions.get(identity)
        if partition is None:
            partition = self.partitions[identity] = Partition(identity)
        if result is None or newest:
            if batch.records:
                order.mark_written(identity, batch)
        elif order.written and batch.records:
            order.keep_newer(identity, partition.records, batch, generation)
        prior = None
        if key is not None and result is not None and partition.receipts:
            prior = _prior(partition, key, shape)
        whole, counted = self._take_records(partition, batch, prior)
        if key is not None and result is not None:
            # (its value refers to every record of its batch, directly or
            # through nested fields: normalizing made the batch so)
            if not (
                counted is not None
                and type(result.plan) is EntityListPlan
                and type(result.value) is list
                # (each record of the batch once: its value's references
                # are the records counted, none twice)
                and len(result.value) == len(batch.records)
            ):
                counted = None
            self._keep_result(
                partition,
                key,
                shape,
                result,
                None if counted is None else (batch.records, *counted),
            )
        elif batch.records:
            # no result uses these: a mutation's answer, an event (a C loop
            # over the batch, not the partition)
            idle = list(filterfalse(partition.uses.__contains__, batch.records))
            if idle:
                partition.loose.update(dict.fromkeys(idle))
                self.retention.placed((partition.identity, "", _RECORDS))
        self._tables(partition)
        if key is None or result is None:
            self._changed(self._now)
        return _WHOLE if whole else 1

    def _take_records(
        self,
        partition: Partition,
        batch: Batch,
        prior: tuple[list[EntityKey], int, type] | None = None,
    ) -> tuple[bool, tuple[int, type | None] | None]:
        """``batch``'s records merged into ``partition``'s, and its deletions
        applied; whether every record was stored as it was made, and, when
        every one was new to the partition (or ``prior``'s) and none nests
        another, the bytes counted in for them and their class if one list
        of one class made them (else ``None``). ``prior``: the records a
        receipt holds for the result this batch's replaces (``_prior``).
        The bytes
        of the records stored are counted in, those of the records they
        replace or delete out, and the uses their nested entity fields make
        counted (``Partition``). (Every step is a C loop over the batch, and
        a key is looked up at most twice: a key is a tuple, hashed again at
        each look-up.)"""
        records = partition.records
        new = batch.records
        if len(new) == 1 and records and not batch.deleted:
            # One record (the usual answer) stored again as it was: merging
            # it would give an equal record, and nothing is counted in or
            # out but what may differ (as below, without the lists).
            ((entity_key, instance),) = new.items()
            existing = records.get(entity_key)
            kind = type(instance)
            extras = "_extras_made" in kind.__dict__
            if existing is not None and (
                existing is instance
                or (
                    type(existing) is kind
                    and _equal_means_same(kind)
                    # (data with every field, and every extra key the record
                    # held kept: a partial answer is merged, whatever the
                    # class's own == says)
                    and (
                        (raw := batch.data.get(entity_key)) is None
                        or (
                            raw.keys() >= kind._fields.keys()
                            and (
                                not extras or raw.keys() >= existing.extra_fields.keys()
                            )
                        )
                    )
                    and existing == instance
                )
            ):
                # (== passes 1 and 1.0, and leaves extra keys aside: what the
                # fields that may differ so hold now is counted, and the
                # extra keys counted in and out)
                grown = _one_resized(existing, instance)
                if extras:
                    grown += extras_growth([existing], [instance])
                self._count_bytes(partition, grown)
                records[entity_key] = instance
                partition.replaced += 1
                batch.committed = True
                return False, None
        if prior is not None and not batch.deleted:
            polled = self._poll(partition, batch, prior)
            if polled is not None:
                return True, polled
        # the versions held before (None: a new key): what a changed record
        # counts out
        before = list(map(records.get, new)) if records and new else None
        if before is not None and before.count(None) == len(before):
            before = None  # every key new to the partition: nothing to compare
        deleted = (
            [records[key] for key in batch.deleted if key in records]
            if batch.deleted
            else []
        )
        whole = self._merge_records(partition, batch, before)
        records = partition.records
        stored: list[Any] = (
            list(new.values())
            if whole or records is new
            else list(map(records.__getitem__, new))
        )
        gone: list[Any] = deleted
        if before is not None:
            # a record stored again as it was (a poll's unchanged rows) is
            # neither counted out nor in: one C comparison each (by identity
            # where == may pass records that hold other values)
            classes = set(map(type, stored))
            same = ne if all(map(_equal_means_same, classes)) else is_not
            changed = list(map(same, before, stored))
            if not all(changed):
                if same is ne:  # (== passes 1 and 1.0: see _resized)
                    unchanged = list(map(not_, changed))
                    again = list(compress(stored, unchanged))
                    held = list(compress(before, unchanged))
                    grown = _resized(held, again, batch.made_columns(again))
                    if any("_extras_made" in kind.__dict__ for kind in classes):
                        # (== leaves extra keys aside: counted out and in)
                        grown += extras_growth(held, again)
                    self._count_bytes(partition, grown)
                stored = list(compress(stored, changed))
            gone = [*filter(_held, compress(before, changed)), *deleted]
        if before is not None or batch.deleted:
            partition.replaced += 1  # (a record held may be another one now)
        size = batch.records_bytes(stored)
        kinds = None
        if size is None:
            size = records_size(stored)
        else:  # (the records of the lists taken whole: each list one class)
            kinds = {cls for cls, _ in batch.complete}
        nested = self._count_in(partition, stored, size, kinds)
        self._count_out(partition, gone)
        if before is not None or deleted or nested or not stored:
            return whole, None
        return whole, (size, next(iter(kinds)) if kinds and len(kinds) == 1 else None)

    def _poll(
        self,
        partition: Partition,
        batch: Batch,
        prior: tuple[list[EntityKey], int, type],
    ) -> tuple[int, type] | None:
        """A list read again (a poll) whose records replace, key for key and
        in order, those a receipt counted for the result it replaces:
        stored, their bytes counted in from the columns they were made of
        and the receipt's counted out, with no record compared or walked;
        the bytes and class of its own receipt. ``None`` (nothing done)
        when it is not that: one list of the receipt's class, of exactly
        its keys, taken whole."""
        keys_before, counted, cls = prior
        complete = batch.complete
        new = batch.records
        if (
            len(complete) != 1
            or complete[0][0] is not cls
            or "_extras_made" in cls.__dict__
            or len(new) != len(keys_before)
            or complete[0][1] != keys_before
        ):
            return None
        size = batch.records_bytes(list(new.values()))
        if size is None:
            return None
        partition.records.update(new)  # (each key held: replaced in place)
        batch.committed = True
        partition.replaced += 1
        self._count_bytes(partition, size - counted)
        return size, cls

    def _merge_records(
        self, partition: Partition, batch: Batch, before: list[Any] | None = None
    ) -> bool:
        """``batch``'s records merged into ``partition``'s, and its deletions
        applied; whether every record was stored as it was made. ``before``:
        what the partition held under each of the batch's keys, if looked
        up already."""
        if not partition.records and batch.committed is None:
            # the identity's first records: the batch's own, taken as they are
            # (a batch is committed once, and never changed after)
            partition.records = batch.records
            whole = True
        else:
            whole = _merge(partition.records, batch, before)
        batch.committed = True
        if batch.deleted:
            # the caller's deletion, of the caller's records: another
            # identity's record of the same key is its own (another
            # tenant's post 2), never touched
            whole = False
            records = partition.records
            loose = partition.loose
            for entity_key in batch.deleted:
                records.pop(entity_key, None)
                if loose:
                    loose.pop(entity_key, None)
        return whole

    def _count_bytes(self, partition: Partition, size: int) -> None:
        """``size`` bytes more (or fewer) held in ``partition``'s records."""
        if size:
            partition.record_bytes += size
            self.retention.records_changed(size)

    def _count_in(
        self,
        partition: Partition,
        stored: list[Any],
        size: int | None = None,
        kinds: set[type] | None = None,
    ) -> bool:
        """``stored`` (records now held) counted in: their bytes (``size``
        when known: ``Batch.records_bytes``), and the uses their nested
        entity fields make; whether they hold any. ``kinds``: their
        classes, when known."""
        if not stored:
            return False
        if size is None:
            size = records_size(stored)
        partition.record_bytes += size
        self.retention.records_changed(size)
        nested = _nested_refs(stored, kinds)
        if not nested:
            return False
        partition.nested = True
        _count_uses(partition.uses, nested)
        if partition.loose:
            for entity_key in partition.loose.keys() & set(nested):
                del partition.loose[entity_key]
        return True

    def _count_out(self, partition: Partition, gone: list[Any]) -> None:
        """``gone`` (records no longer held: replaced, deleted, let go)
        counted out: their bytes, and the uses their nested fields made
        (a record that loses its last use goes too)."""
        if not gone:
            return
        size = records_size(gone)
        partition.record_bytes -= size
        self.retention.records_changed(-size)
        nested = _nested_refs(gone)
        if nested:
            self._release(partition, nested)

    def _release(
        self, partition: Partition, refs: list[EntityKey], counted: int | None = None
    ) -> None:
        """One use of each of ``refs`` ended; a record left with none goes
        (unless it is loose: then it waits with the loose ones). ``counted``:
        the bytes counted in for the records of ``refs``, if they are the
        ones held (a receipt: see ``Partition.receipts``)."""
        uses = partition.uses
        drop = uses.pop
        unused: list[EntityKey]
        if len(refs) > 1 and all(map((1).__eq__, map(uses.get, refs))):
            # each the last use of its record (a list that goes with its
            # own records, the usual): C loops (a ref met twice is dropped
            # once, then found gone, as below)
            unused = refs
            list(map(drop, refs, repeat(None)))
            if counted is not None:
                gone = list(
                    filter(_held, map(partition.records.pop, refs, repeat(None)))
                )
                if len(gone) == len(refs):
                    # every record the receipt counted in goes, as it came
                    partition.record_bytes -= counted
                    self.retention.records_changed(-counted)
                else:
                    self._count_out(partition, gone)
                return
        else:
            unused = []
            for ref in refs:
                left = uses.get(ref, 0) - 1
                if left > 0:
                    uses[ref] = left
                else:
                    drop(ref, None)
                    unused.append(ref)
        if unused:
            gone = list(filter(_held, map(partition.records.pop, unused, repeat(None))))
            self._count_out(partition, gone)

    def _keep_result(
        self,
        partition: Partition,
        key: str,
        shape: Hashable,
        result: Result,
        counted: tuple[dict[EntityKey, Any], int, type | None] | None = None,
    ) -> None:
        """``result`` kept under ``key`` and ``shape``, its value's size
        counted against the bound and its references as uses of their
        records (those of the result it replaces let go). ``counted``:
        the records its references name, each once, all new to the
        partition, and the bytes counted in for them (its receipt)."""
        by_shape = partition.results.setdefault(key, {})
        previous = by_shape.get(shape)
        by_shape[shape] = result
        slot = (partition.identity, key, shape)
        if previous is not None and previous.value is result.value:
            size = self.retention.held(slot)  # (renewed: the same value)
        else:
            size = OVERHEAD + len(key) + _value_size(result.plan, result.value)
        partition.bytes += size - self.retention.kept(
            slot, result, result.expires_at, size
        )
        self._use(partition, previous, result, key, shape, counted and counted[0])
        if counted is not None:
            partition.receipts[key, shape] = (
                result,
                partition.replaced,
                counted[1],
                counted[2],
            )
        elif partition.receipts:
            partition.receipts.pop((key, shape), None)  # (of the result it replaced)
        self._changed(result.fetched_at)

    def _use(
        self,
        partition: Partition,
        previous: Result | None,
        result: Result,
        key: str,
        shape: Hashable,
        named: dict[EntityKey, Any] | None = None,
    ) -> None:
        """The records ``result``'s value refers to are used by it, and no
        longer by ``previous`` (the result it replaces, if any). ``named``:
        the keys its references name, each once, when known."""
        if (
            previous is not None
            and previous.error is None
            and result.error is None
            and (
                previous.value is result.value
                or (
                    # (references only: tuples of texts, compared safely)
                    type(previous.plan) is type(result.plan)
                    and type(result.plan) in _REFS_ONLY
                    and previous.value == result.value
                )
            )
        ):
            return  # (renewed, or the same answer again: the same references)
        if previous is None and named is not None:
            # a list of records all new to the partition, each named once:
            # its references are ``named``'s keys (no list of them made)
            uses = partition.uses
            if uses:
                _count_uses(uses, named.keys())
            else:
                # the first uses: one table made from the keys' (no key
                # hashed again), taken as it is
                partition.uses = dict.fromkeys(named, 1)
            loose = partition.loose
            if loose:
                for entity_key in loose.keys() & named.keys():
                    del loose[entity_key]
            return
        refs: list[EntityKey] = []
        if result.error is None:
            result.plan.refs(result.value, refs)
        before: list[EntityKey] = []
        if previous is not None and previous.error is None:
            previous.plan.refs(previous.value, before)
        if refs == before:
            return  # (none, or a poll's same list)
        if refs:
            uses = partition.uses
            if len(refs) == 1:
                ref = refs[0]
                uses[ref] = uses.get(ref, 0) + 1
            else:
                _count_uses(uses, refs)
            loose = partition.loose
            if loose:
                for entity_key in loose.keys() & set(refs):
                    del loose[entity_key]
        if before:
            self._release(partition, before, _receipt(partition, key, shape, previous))

    def result(self, identity: Hashable, key: str, shape: Hashable) -> Result | None:
        """The result ``identity`` keeps under ``key`` and ``shape``, if any."""
        partition = self.partitions.get(identity)
        if partition is None:
            return None
        by_shape = partition.results.get(key)
        if by_shape is None:
            return None
        result = by_shape.get(shape)
        if result is not None:
            self.retention.touch_id(id(result))
        return result

    def read(self, identity: Hashable, plan: Plan, value: Any) -> Any:
        """``value`` (normalized by ``plan``) with ``identity``'s entities
        as they are now."""
        partition = self.partitions.get(identity)
        records = partition.records if partition is not None else {}
        return plan.read(value, records)

    def invalidate(self, key: str) -> None:
        """Forget every result under ``key``, whoever fetched it; reads of
        it already in flight do not write theirs back."""
        with self.lock:
            self.order.invalidate(("key", key))
            for identity, partition in list(self.partitions.items()):
                by_shape = partition.results.get(key)
                for shape in list(by_shape or ()):
                    self._drop((identity, key, shape))
            self._changed(self._now)

    def invalidate_routes(
        self, routes: Collection[Hashable], identity: Hashable = EVERYONE
    ) -> int:
        """Forget every result of the endpoints whose ``route`` is in
        ``routes``, whatever their params, that ``identity`` fetched
        (``EVERYONE``, the default: whoever fetched them); how many. Reads
        of them already in flight do not write theirs back."""
        with self.lock:
            for route in routes:
                self.order.invalidate(("route", route, identity))
            partitions: Iterable[tuple[Hashable, Partition]]
            if identity is EVERYONE:
                partitions = self.partitions.items()
            else:
                own = self.partitions.get(identity)
                partitions = () if own is None else ((identity, own),)
            slots = [
                (who, key, shape)
                for who, partition in partitions
                for key, by_shape in partition.results.items()
                for shape, result in by_shape.items()
                if result.route in routes
            ]
            for slot in slots:
                self._drop(slot)
            self._changed(self._now)
        return len(slots)

    def add_to_lists(
        self,
        identity: Hashable,
        route: Hashable,
        ref: EntityKey,
        joins: Callable[[Mapping[str, Any] | None], bool | None],
        at_start: bool,
        generation: int,
    ) -> int:
        """Add the record ``ref`` to every list result of ``route`` that
        ``identity`` holds, whose params ``joins`` accepts (``True``) and
        which does not hold it yet: first if ``at_start``, else last; forget
        those it answers ``None`` for (a page of the listing the record may
        or may not be on: read again, never stale). Nothing is changed if
        the store was reset, or ``identity`` forgotten, since
        ``generation``; how many lists took it.

        A list result is a list, or a page (``paged()``: its ``results``
        list; see :func:`_joined`)."""
        added = 0
        with self.lock:
            if self.order.too_old(identity, generation):
                return 0
            partition = self.partitions.get(identity)
            if partition is None or ref not in partition.records:
                return 0
            stale: list[Slot] = []
            for key, by_shape in partition.results.items():
                for shape, result in by_shape.items():
                    if result.route != route or result.error is not None:
                        continue
                    verdict = joins(result.params)
                    if verdict is None:
                        stale.append((identity, key, shape))
                        continue
                    if not verdict:
                        continue
                    value = _joined(result, ref, at_start)
                    if value is not None:
                        grown = by_shape[shape] = result._replace(
                            value=value, digest=None
                        )
                        slot = (identity, key, shape)
                        size = OVERHEAD + len(key) + _value_size(grown.plan, value)
                        partition.bytes += size - self.retention.held(slot)
                        self.retention.grown(slot, grown, size)
                        partition.receipts.pop((key, shape), None)  # (of the old one)
                        added += 1
            if added:
                partition.uses[ref] = partition.uses.get(ref, 0) + added
                partition.loose.pop(ref, None)
                self._tables(partition)  # (the uses table may have grown)
            for slot in stale:
                self.order.invalidate(("key", slot[1]))  # reads in flight too
                self._drop(slot)
            if stale or added:
                self._changed(self._now)  # (a list grown: the bound still holds)
        return added

    def reset(self) -> int:
        """Empty the store; return the new generation."""
        with self.lock:
            self.partitions = {}
            self._keys = {}
            self.retention = Retention(self.retention.max_bytes)
            return self.order.reset()

    def forget(self, identity: Hashable) -> None:
        """Forget every result and record ``identity`` holds; calls of that
        identity already in flight do not write theirs back (other
        identities' do)."""
        with self.lock:
            partition = self.partitions.pop(identity, None)
            if partition is not None:
                for key, by_shape in partition.results.items():
                    for shape in by_shape:
                        self.retention.dropped((identity, key, shape))
                self.retention.dropped((identity, "", _RECORDS))
                self.retention.records_changed(
                    -partition.record_bytes - partition.table_bytes
                )
            self.order.forget(identity)

    @property
    def records(self) -> dict[EntityKey, Entity]:
        """Every record, for inspection (of a key held by several
        identities, one of them)."""
        with self.lock:
            return {
                key: record
                for partition in self.partitions.values()
                for key, record in partition.records.items()
            }

    @property
    def results(self) -> dict[str, Result]:
        """Every result by request key, for inspection (of a key held by
        several identities or shapes, one of them)."""
        with self.lock:
            return {
                key: result
                for partition in self.partitions.values()
                for key, by_shape in partition.results.items()
                for result in by_shape.values()
            }

    @property
    def size_bytes(self) -> int:
        """About how many bytes the kept results hold (see ``_store.retention``)."""
        return self.retention.bytes

    @property
    def max_bytes(self) -> int | None:
        """The bound of ``size_bytes``; ``None`` for none."""
        return self.retention.max_bytes

    def __len__(self) -> int:
        """How many results are kept."""
        return len(self.retention)

    def _changed(self, now: float) -> None:
        """After a change (the lock is held): drop what has expired by
        ``now``, then, past the bound, the least recently used."""
        self._now = max(self._now, now)
        retention = self.retention
        for slot in retention.expired(self._now):
            self._drop(slot)
        if retention.past_bound():
            for slot in retention.over():
                self._drop(slot)

    def _drop(self, slot: Slot) -> None:
        """Forget the result at ``slot`` (the lock is held), and the records
        only it used; the partition whole once it keeps no result. (The
        identity's slot for loose records: those that are still loose go.)"""
        identity, key, shape = slot
        size = self.retention.dropped(slot)
        partition = self.partitions.get(identity)
        if partition is None:
            return
        if shape == _RECORDS and key == "":
            self._let_loose_go(partition)
            if partition.results or partition.records:
                self._tables(partition)
                return
        results = partition.results
        by_shape = results.get(key)
        result = None
        if by_shape is not None:
            result = by_shape.pop(shape, None)
            if not by_shape:
                del results[key]
        if not results:
            del self.partitions[identity]
            self.retention.dropped((identity, "", _RECORDS))
            self.retention.records_changed(
                -partition.record_bytes - partition.table_bytes
            )
            return
        partition.bytes -= size
        if result is not None and result.error is None:
            refs: list[EntityKey] = []
            result.plan.refs(result.value, refs)
            if refs:
                self._release(partition, refs, _receipt(partition, key, shape, result))
        if partition.receipts:
            partition.receipts.pop((key, shape), None)
        if partition.nested:
            partition.dropped += size
            if partition.dropped > partition.bytes + _RECLAIM_FLOOR:
                # as much dropped as is held: a walk of what is held is paid
                # for by what was dropped (constant work per dropped byte)
                self._collect(partition)
        self._tables(partition)

    def _let_loose_go(self, partition: Partition) -> None:
        """The records of ``partition`` that no result has taken up since
        they came go (their slot was the least recently used)."""
        loose, partition.loose = partition.loose, {}
        uses, records = partition.uses, partition.records
        gone = [
            records.pop(entity_key)
            for entity_key in loose
            if entity_key not in uses and entity_key in records
        ]
        self._count_out(partition, gone)

    def _tables(self, partition: Partition) -> None:
        """Count the bytes ``partition``'s tables take now; a table left
        mostly empty by records that went is made again at its size (a
        dict's table never shrinks as keys go). (A partition dropped whole
        meanwhile counts nothing.)"""
        if self.partitions.get(partition.identity) is not partition:
            return
        records, uses = partition.records, partition.uses
        size = _getsizeof(records) + _getsizeof(uses) + _getsizeof(partition.loose)
        if size > _TABLE_SLACK * (len(records) + len(uses)) + _SMALL_TABLES:
            partition.records = records = dict(records)
            partition.uses = uses = dict(uses)
            size = _getsizeof(records) + _getsizeof(uses)
            size += _getsizeof(partition.loose)
        if size != partition.table_bytes:
            self.retention.records_changed(size - partition.table_bytes)
            partition.table_bytes = size

    def _collect(self, partition: Partition) -> None:
        """Keep only the records of ``partition`` that some result reaches,
        directly or through nested entities (records that use each other in
        a cycle keep their uses when nothing else does); count uses again
        from what stays."""
        reached = _reachable(partition)
        records = partition.records
        gone = [record for key, record in records.items() if key not in reached]
        partition.records = reached
        partition.loose = {}
        uses: dict[EntityKey, int] = {}
        for by_shape in partition.results.values():
            for result in by_shape.values():
                if result.error is None:
                    refs: list[EntityKey] = []
                    result.plan.refs(result.value, refs)
                    _count_uses(uses, refs)
        _count_uses(uses, _nested_refs(list(reached.values())))
        partition.uses = uses
        partition.dropped = 0
        size = records_size(gone)
        partition.record_bytes -= size
        self.retention.records_changed(-size)


#: One more use of each key of an iterable, in a plain dict of counts (a key
#: met twice: two): ``Counter.update``'s C loop, which counts into any dict.
#: (Not a mapping: of one, it would add the values.)
_count_uses: Callable[[dict[EntityKey, int], Iterable[EntityKey]], None] = (
    Counter.update  # type: ignore[assignment]
)


def _prior(
    partition: Partition, key: str, shape: Hashable
) -> tuple[list[EntityKey], int, type] | None:
    """What the receipt of the result kept under ``key`` and ``shape``
    says, if it holds and its records were made of one class: their keys
    (the result's value), the bytes counted in for them, and the class."""
    by_shape = partition.results.get(key)
    previous = None if by_shape is None else by_shape.get(shape)
    counted = _receipt(partition, key, shape, previous)
    if previous is None or counted is None:
        return None
    cls = partition.receipts[key, shape][3]
    if cls is None or type(previous.value) is not list:
        return None
    return previous.value, counted, cls


def _receipt(
    partition: Partition, key: str, shape: Hashable, result: Result | None
) -> int | None:
    """The bytes counted in for the records of ``result`` (kept under
    ``key`` and ``shape``) when it was stored, if each is still the record
    counted: no record of ``partition`` replaced or deleted since, none
    nesting another. Else ``None``."""
    receipts = partition.receipts
    if result is None or not receipts or partition.nested:
        return None
    receipt = receipts.get((key, shape))
    if receipt is None or receipt[0] is not result or receipt[1] != partition.replaced:
        return None
    return receipt[2]


def _joined(result: Result, ref: EntityKey, at_start: bool) -> Any:
    """``result``'s list value with ``ref`` added (first if ``at_start``),
    or ``None`` if it takes no record: it is no list, holds ``ref``
    already, or is a page that is not where the listing starts (a later
    page of ``paginate``) or ends (one with a next page). The page's
    other fields (``total`` among them) stay as the server sent them, as
    they do when a record is deleted."""
    value = result.value
    if type(value) is list:
        items = value
    elif type(value) is dict and type(value.get("results")) is list:
        items = value["results"]
        links = value.get("links")
        if (
            result.page not in (None, 1)
            if at_start
            else isinstance(links, Mapping) and links.get("next") is not None
        ):
            return None
    else:
        return None
    if ref in items:
        return None
    items = [ref, *items] if at_start else [*items, ref]
    return items if type(value) is list else {**value, "results": items}


#: The shape of an identity's slot for records that came with no result.
_RECORDS = "(records without a result)"

#: A partition's tables are made again when they take more than this many
#: bytes a key they hold (a full table takes 30 to 90), and more than
#: ``_SMALL_TABLES`` in all.
_TABLE_SLACK = 400
_SMALL_TABLES = 16 * 1024

#: Bytes a partition drops before its records are first reclaimed.
_RECLAIM_FLOOR = 256 * 1024


_REF_LISTS = (EntityListPlan, RecordModelListPlan)
_REF_PLANS = (EntityPlan, RecordModelPlan)
#: Plans whose values are references alone (tuples of texts, in a list).
_REFS_ONLY = (*_REF_PLANS, *_REF_LISTS)
#: What a reference to a record takes: a tuple of two.
_REF_SIZE = sys.getsizeof(("key", "pk"))
#: Whether a record was held before (``None``: it was not).
_held = partial(is_not, None)
_getsizeof = sys.getsizeof


#: msgspec's field-by-field equality, an entity class's unless it has its own.
_FIELDWISE: Any = Entity.__eq__


def _equal_means_same(kind: type) -> bool:
    """Whether two records of ``kind`` that are ``==`` hold equal values
    field by field, so that one stored again equal to the one held need not
    be counted again but for :func:`_resized` and its extra keys (which
    its equality leaves aside: ``retention.extras_size``): an entity
    compared field by field (no ``__eq__`` of its own). Any other class
    (an ``__eq__`` of its own, by primary key say; a model, whose == may
    pass values of other sizes too) is compared by identity instead."""
    equal: Any = kind.__eq__
    return equal is _FIELDWISE


def _resized(
    before: list[Any], stored: list[Any], columns: list[list[Any]] | None = None
) -> int:
    """How many bytes more ``stored`` holds than ``before`` (records ``==``
    pairwise, of one class each pair): counted in the fields whose equal
    values may differ in size, 0 when there are none. ``columns``: the
    fields' values of ``stored``, in field order, when known."""
    if len(stored) == 1:
        return _one_resized(before[0], stored[0])
    kinds = set(map(type, stored))
    if len(kinds) == 1:
        kind = kinds.pop()
        fields: tuple[str, ...] = getattr(kind, "__struct_fields__", ())
        # (every field's values' types at once, in C: a field whose values
        # are of one type each side, of those alike by type, is not asked)
        count = len(fields)
        types_now = list(map(type, chain.from_iterable(map(astuple, stored))))
        types_held = list(map(type, chain.from_iterable(map(astuple, before))))
        return sum(
            _column_resized(
                before,
                stored,
                name,
                None if columns is None else columns[index],
            )
            for index, name in enumerate(fields)
            if not (
                (column := types_now[index::count]) == types_held[index::count]
                and SAME_SIZE_VALUES.issuperset(column)
            )
        )
    # (records of several classes, a list's and those it nests: each class's
    # pairs as one class's)
    pairs: dict[type, tuple[list[Any], list[Any]]] = {}
    for old, new in zip(before, stored, strict=True):
        olds, news = pairs.setdefault(type(new), ([], []))
        olds.append(old)
        news.append(new)
    return sum(_resized(olds, news) for olds, news in pairs.values())


#: Record class -> the types of the field values of the last record of it
#: stored again, and the indexes of those fields whose equal values may
#: differ in size (the others, texts, numbers, dates, take the same bytes).
_LOOSE_FIELDS: dict[type, tuple[tuple[type, ...], tuple[int, ...]]] = {}


def _one_resized(before: Any, stored: Any) -> int:
    """:func:`_resized` of one record (the usual answer): a field whose
    values are alike in type, and in their items' types, takes the same
    bytes; only one that is not is walked. Which fields to ask is worked
    out once for the types a class's records usually hold."""
    held, now = astuple(before), astuple(stored)
    types = tuple(map(type, now))
    if types != tuple(map(type, held)):
        asked: Iterable[int] = range(len(now))
    else:
        kind = type(stored)
        known = _LOOSE_FIELDS.get(kind)
        if known is None or known[0] != types:
            loose = tuple(
                index
                for index, value_type in enumerate(types)
                if value_type not in SAME_SIZE_VALUES
            )
            known = (types, loose)
            if len(_LOOSE_FIELDS) < 4096:  # a bound: classes are few
                _LOOSE_FIELDS[kind] = known
        asked = known[1]
    grown = 0
    for index in asked:
        old, new = held[index], now[index]
        if not _alike(old, new):
            grown += _grown(old, new)
    return grown


def _column_resized(
    before: list[Any], stored: list[Any], name: str, new: list[Any] | None = None
) -> int:
    """How many bytes more ``stored``'s field ``name`` holds than
    ``before``'s (records ``==`` pairwise): 0 when the two columns' values
    are alike in type, one by one, and of types whose equal values take
    the same bytes (a column of datetimes); else both columns counted.
    ``new``: ``stored``'s values of the field, when known."""
    field = attrgetter(name)
    old = list(map(field, before))
    if new is None:
        new = list(map(field, stored))
    kinds = list(map(type, new))
    if kinds == list(map(type, old)):
        if SAME_SIZE_VALUES.issuperset(kinds):
            return 0
        if kinds.count(tuple) == len(kinds):
            # (references to nested records: equal tuples, as long, whose
            # items are alike type by type, take the same bytes)
            inside = list(map(type, chain.from_iterable(new)))
            if inside == list(
                map(type, chain.from_iterable(old))
            ) and SAME_SIZE_VALUES.issuperset(inside):
                return 0
        if kinds.count(kinds[0]) == len(kinds):
            return column_growth(new, old)  # (one type: no level to walk)
    return column_size(new) - column_size(old)


def _grown(old: Any, new: Any) -> int:
    """How many bytes more ``new`` (one field's value) holds than ``old``:
    of one type, as ``column_growth`` counts a column (a decimal, which
    holds nothing, by its size alone), else each walked."""
    if type(old) is type(new):
        return column_growth([new], [old])
    return column_size([new]) - column_size([old])


def _alike(old: Any, new: Any) -> bool:
    """Whether ``old`` and ``new`` (equal) surely take the same bytes: of one
    type whose equal values do, or tuples (a reference to a nested record)
    or lists of as many slots (a list made by appending holds spare ones)
    whose items are such, type by type."""
    kind = type(old)
    if kind is not type(new):
        return False
    if kind in SAME_SIZE_VALUES:
        return True
    if kind is tuple or (kind is list and old.__sizeof__() == new.__sizeof__()):
        kinds = list(map(type, old))
        return kinds == list(map(type, new)) and SAME_SIZE_VALUES.issuperset(kinds)
    return False


def _value_size(plan: Plan, value: Any) -> int:
    """The bytes of a result's normalized ``value``: :func:`size_of`, but
    for the references a record plan makes, which take a fixed size each
    (a tuple of two texts: the class's key, shared, and the primary key,
    the record's own, counted with it: ``retention.ENTRY``)."""
    kind = type(value)
    if kind is tuple and type(plan) in _REF_PLANS:
        return _REF_SIZE
    if kind is list and type(plan) in _REF_LISTS:
        return _getsizeof(value) + _REF_SIZE * len(value)
    return size_of(value)


def _nested_refs(records: list[Any], kinds: set[type] | None = None) -> list[EntityKey]:
    """The references the nested entity fields of ``records`` (of the
    classes ``kinds``, when known) hold (none, for classes without: the
    usual case, decided once per class and ``schema``)."""
    refs: list[EntityKey] = []
    if kinds is None:
        kinds = {type(records[0])} if len(records) == 1 else set(map(type, records))
    for kind in kinds:
        if _nests(kind):
            plan = entity_plan(kind)
            for record in records:
                if type(record) is kind:
                    plan.record_refs(record, refs)
    return refs


#: Record class -> (its ``schema`` when asked, whether that nests entities).
_NESTING: dict[type, tuple[Any, bool]] = {}


def _nests(kind: type) -> bool:
    """Whether records of ``kind`` may hold references to others: an
    ``Entity`` class whose ``schema`` names nested entities."""
    schema = getattr(kind, "schema", None)
    known = _NESTING.get(kind)
    if known is not None and known[0] is schema:
        return known[1]
    nests = issubclass(kind, Entity) and bool(kind._plan().nested)
    if len(_NESTING) < 4096:  # a bound: classes are few
        _NESTING[kind] = (schema, nests)
    return nests


#: What ``Store._commit`` says when it stored every record as it was made.
_WHOLE = 2

_NONE = type(None)


def _merge(
    records: dict[EntityKey, Entity], batch: Batch, before: list[Any] | None = None
) -> bool:
    """Merge ``batch``'s records into ``records``, field by field; whether
    every one was stored as it was made (none merged with a stored one).

    A record whose data has every field replaces the one stored, unless
    that one is of another class or keeps extra keys the data lacks (then
    the two merge). For a list the batch took whole (``Batch.complete``),
    that is decided for the list at once: the stored records' classes in
    one C loop, their extra keys by the class's mark (``Entity._extras_made``);
    polling a page of 20,000 records no longer asks each one.
    """
    new = batch.records
    if records.keys().isdisjoint(new):
        records.update(new)  # nothing to merge with: one C loop
        return True
    # (a key leaves the batch's records only when deleted, and a deletion
    # stays in ``batch.deleted`` unless the key is made again)
    deleted = batch.deleted
    if (
        before is not None
        and len(batch.complete) == 1
        and len(batch.complete[0][1]) == len(new)
        and not deleted
    ):
        # one list, the whole batch (a poll's page): what is held under its
        # keys was looked up already (``before``, in the batch's order)
        cls = batch.complete[0][0]
        if "_extras_made" not in cls.__dict__ and set(map(type, before)) <= {
            cls,
            _NONE,
        }:
            records.update(new)
            return True
    taken = [
        keys
        for cls, keys in batch.complete
        if "_extras_made" not in cls.__dict__
        and (not deleted or all(map(new.__contains__, keys)))  # (not deleted since)
        and set(map(type, map(records.get, keys))) <= {cls, _NONE}
    ]  # (the others are asked record by record below)
    if sum(map(len, taken)) == len(new):
        # Every record taken whole: the lists' keys are the batch's (no key
        # is in two of them: a repeat is merged, and its list not taken).
        records.update(new)
        return True
    raw = batch.data
    if not taken and not deleted and _replaces_each(before, new, raw):
        records.update(new)  # (a poll's page whose records keep extra keys)
        return False
    for keys in taken:
        records.update(zip(keys, map(new.__getitem__, keys), strict=True))
    replaced = set(chain.from_iterable(taken))
    for entity_key, instance in new.items():
        if entity_key in replaced:
            continue
        existing = records.get(entity_key)
        if (
            existing is None
            or type(existing) is not type(instance)
            # a record model's instance (no raw data kept): replaced whole
            or (data := raw.get(entity_key)) is None
            or (
                # the new data has every field and every extra key the old
                # record kept: merging would only rebuild ``instance``
                data.keys() >= type(instance)._fields.keys()
                and data.keys() >= existing.extra_fields.keys()
            )
        ):
            records[entity_key] = instance
        else:
            records[entity_key] = type(instance).from_data(
                raw[entity_key], base=existing
            )
    return False


def _replaces_each(
    before: list[Any] | None,
    new: dict[EntityKey, Entity],
    raw: Mapping[EntityKey, Mapping[str, Any]],
) -> bool:
    """Whether each of the records ``new`` replaces the one held before it
    (``before``, in the batch's order), as :func:`_merge` asks record by
    record: all of one entity class, each held one too, and each one's
    data holding every field and every extra key the held one kept. Asked
    in C loops over the list (a poll of a page whose records keep extra
    keys, which the batch does not take whole)."""
    if not before or len(before) != len(new):
        return False
    instances = list(new.values())
    kind = type(instances[0])
    if not (
        "_extras_made" in kind.__dict__
        and all(map(is_, map(type, instances), repeat(kind)))
        and all(map(is_, map(type, before), repeat(kind)))
    ):
        return False
    data: list[Any] = list(map(raw.get, new))
    if not all(map(is_, map(type, data), repeat(dict))):
        return False  # (no raw data, or not a plain dict: asked one by one)
    keys = list(map(dict.keys, data))
    return all(map(kind._fields.keys().__le__, keys)) and all(
        map(le, map(_KEYS, map(_EXTRA_FIELDS, before)), keys)
    )


#: The keys of a mapping; a record's extra keys, as the record says them
#: (``extra_fields``, which a class may override: what the loop asks).
_KEYS = methodcaller("keys")
_EXTRA_FIELDS = attrgetter("extra_fields")


def _reachable(partition: Partition) -> dict[EntityKey, Entity]:
    """The records some result of ``partition`` reaches, directly or through
    nested entities."""
    records = partition.records
    pending: list[EntityKey] = []
    for by_shape in partition.results.values():
        for result in by_shape.values():
            if result.error is None:
                result.plan.refs(result.value, pending)
    reached: dict[EntityKey, Entity] = {}
    while pending:
        key = pending.pop()
        if key in reached:
            continue
        record = records.get(key)
        if record is None:
            continue
        reached[key] = record
        if not isinstance(record, Entity):
            continue  # a record model's instance holds no reference
        entity_plan(type(record)).record_refs(record, pending)
    return reached
