"""What the store keeps: results in expiry order and within a byte bound.

A store holds each result in a *slot* (its identity, request key and value
shape). :class:`Retention` decides which slots go, at a cost that does not
grow with what is held:

- **Expiry** is a heap by expiry time: each change pops the results whose
  time has passed (each result is pushed once and popped once, so the work
  is constant per stored result, never a walk of the store).
- **A byte bound** (``max_bytes``): past it, the least recently used
  results go, oldest first, expired ones before anything (they were popped
  already). A result read since it was stored gets a second chance (the
  CLOCK approximation of LRU: a read costs one ``set.add``, no lock).
- **Sizes** are estimates of the memory a result holds (its normalized
  value, and the records it brought that its identity did not hold),
  measured on a sample of large containers, so that measuring costs a
  bounded number of objects however long a list is. They are close to what
  ``tracemalloc`` sees for JSON values and entity records (see
  ``tests/pipeline/test_retention.py``), erring on the large side.
  Measuring a value still walks a few dozen objects, the largest part of
  restwire's own work per call; so :class:`Sizes` measures only the first
  results of each endpoint and one in 16 after, and sizes the others by
  the length of the body they were read from, at the bytes per body byte
  that endpoint's measured results held.

The store calls it under its lock, except :meth:`Retention.touch`.
"""

from __future__ import annotations

import heapq
import itertools
import sys
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from itertools import repeat
from typing import Any

from msgspec.structs import astuple as _astuple

from .._base.errors import SettingError

__all__ = ["DEFAULT_MAX_BYTES", "Retention", "Sizes", "Slot", "size_of"]

#: The store's bound when a controller is given none.
DEFAULT_MAX_BYTES = 64 * 1024 * 1024

#: (identity, request key, value shape): where one result is kept.
Slot = tuple[Hashable, str, Hashable]

#: What keeping a result costs besides its value: the slot's dict entries,
#: the ``Result`` tuple, its params, identity and key text, its bookkeeping
#: here, as tracemalloc measures them (the measurement: docs/performance.md).
OVERHEAD = 2000

#: Containers longer than this are measured on a sample of this many items
#: (a few objects each: measuring costs a few microseconds per result).
_SAMPLE = 4

_getsizeof = sys.getsizeof
_ATOMS = (str, bytes, int, float, bool, type(None))


def size_of(value: Any) -> int:
    """Roughly how many bytes ``value`` holds, its contents included: every
    object of a small value, a sample of a large container's items (scaled
    to its length). An object met twice (JSON keys, small ints) counts
    once; one shared with other values counts in each."""
    total = 0.0
    seen: set[int] = set()
    mark = seen.add
    getsizeof = _getsizeof
    atoms = _ATOMS
    stack: list[tuple[Any, float]] = [(value, 1.0)]
    pop = stack.pop
    push = stack.extend
    while stack:
        item, weight = pop()
        ident = id(item)
        if ident in seen:
            continue  # shared (a parsed JSON's keys, small ints): once
        mark(ident)
        total += getsizeof(item) * weight
        kind = type(item)
        if kind in atoms:
            continue
        if kind is dict:
            children: Any = [*item.keys(), *item.values()]
        elif kind is list or kind is tuple:
            children = item
        elif hasattr(kind, "__struct_fields__"):  # an entity record
            children = _astuple(item)
        elif hasattr(item, "__dict__") and (
            hasattr(kind, "__pydantic_fields__")
            or hasattr(kind, "__dataclass_fields__")
        ):  # a model's instance (a value, or a record): its attributes
            children = list(vars(item).values())
        elif isinstance(item, dict | list | tuple | set | frozenset):
            children = list(item.items()) if isinstance(item, dict) else list(item)
        else:
            continue  # another object: its own size only
        count = len(children)
        if count > _SAMPLE:
            step = count / _SAMPLE
            sample = [children[int(index * step)] for index in range(_SAMPLE)]
            push(zip(sample, repeat(weight * count / _SAMPLE)))
        else:
            push(zip(children, repeat(weight)))
    return int(total)


class Sizes:
    """The sizes of kept values, as :func:`size_of` measures them, most of
    them estimated from the length of the body they were read from.

    Per *kind* of result (an endpoint and the shape of its value), the
    first ``_MEASURED`` values are measured, then one in ``_EVERY``; each
    measurement updates the kind's bytes per body byte (a running mean
    that leans to the larger: a new ratio above it is taken at once, one
    below it moves it a quarter of the way), and the rest are that ratio
    times their body's length. A value with no body (kept by ``set``, or
    pushed) is always measured. At most ``_KINDS`` kinds are remembered
    (the oldest forgotten first): endpoints made per call cost a bounded
    table and measure again.
    """

    __slots__ = ("_kinds",)

    def __init__(self) -> None:
        #: kind -> [bytes per body byte, values seen]
        self._kinds: OrderedDict[Hashable, list[float]] = OrderedDict()

    def size(self, kind: Hashable, value: Any, body_bytes: int | None) -> int:
        """About how many bytes ``value`` holds (see the class)."""
        if not body_bytes:
            return size_of(value)
        kinds = self._kinds
        seen = kinds.get(kind)
        if seen is None:
            if len(kinds) >= _KINDS:
                kinds.popitem(last=False)
            seen = kinds[kind] = [0.0, 0]
        count = int(seen[1])
        seen[1] = count + 1
        if count >= _MEASURED and count % _EVERY:
            return int(seen[0] * body_bytes)
        measured = size_of(value)
        ratio = measured / body_bytes
        mean = seen[0]
        seen[0] = ratio if ratio > mean else mean + (ratio - mean) / 4
        return measured


#: How many values of a kind :class:`Sizes` measures before it estimates.
_MEASURED = 8
#: Past those, one value in this many is measured.
_EVERY = 16
#: How many kinds of result :class:`Sizes` remembers.
_KINDS = 1024


class Retention:
    """Which of a store's results to drop: the expired, then (past
    ``max_bytes``) the least recently used. Tells the store which slots to
    drop; the store drops them (see the module)."""

    __slots__ = ("_expiry", "_order", "_sequence", "_touched", "bytes", "max_bytes")

    def __init__(self, max_bytes: int | None) -> None:
        if max_bytes is not None and (
            not isinstance(max_bytes, int)
            or isinstance(max_bytes, bool)
            or max_bytes < 0
        ):
            raise SettingError(
                f"max_store_bytes must be a number of bytes or None, not {max_bytes!r}"
            )
        self.max_bytes = max_bytes
        #: The bytes of every kept result, as estimated when it was kept.
        self.bytes = 0
        #: slot -> (its size, the sequence number it was kept under, the id
        #: of its result), oldest first
        self._order: OrderedDict[Slot, tuple[int, int, int]] = OrderedDict()
        #: (expires at, sequence number, slot): the next to expire first
        self._expiry: list[tuple[float, int, Slot]] = []
        self._sequence = itertools.count()
        #: ids of results read since they were kept (a second chance)
        self._touched: set[int] = set()

    def __len__(self) -> int:
        return len(self._order)

    def touch(self, result: object) -> None:
        """``result`` was read: it is used (no lock needed)."""
        self._touched.add(id(result))

    def kept(self, slot: Slot, result: object, expires_at: float, size: int) -> int:
        """``result`` is now kept at ``slot`` (replacing what was there);
        the size of what it replaced (0 if nothing)."""
        previous = self._order.pop(slot, None)
        replaced = 0
        if previous is not None:
            replaced = previous[0]
            self.bytes -= replaced
            self._touched.discard(previous[2])
        sequence = next(self._sequence)
        self._order[slot] = (size, sequence, id(result))
        self.bytes += size
        heapq.heappush(self._expiry, (expires_at, sequence, slot))
        return replaced

    def grew(self, slot: Slot, size: int) -> None:
        """``slot`` holds ``size`` more bytes (records kept with no result):
        used now, never expiring, dropped only past the bound."""
        previous = self._order.pop(slot, None)
        self._order[slot] = ((previous[0] if previous else 0) + size, -1, -1)
        self.bytes += size

    def dropped(self, slot: Slot) -> int:
        """``slot`` no longer holds a result; the bytes it held."""
        previous = self._order.pop(slot, None)
        if previous is None:
            return 0
        self.bytes -= previous[0]
        self._touched.discard(previous[2])
        return previous[0]

    def expired(self, now: float) -> Iterator[Slot]:
        """The slots whose result has expired by ``now`` (each once)."""
        heap = self._expiry
        order = self._order
        while heap and heap[0][0] <= now:
            _, sequence, slot = heapq.heappop(heap)
            kept = order.get(slot)
            if kept is not None and kept[1] == sequence:
                yield slot  # (else replaced or dropped since: not this one)
        if len(heap) > 2 * len(order) + 1024:
            # entries of replaced and dropped results pile up: keep only
            # the live ones (amortized: the heap has doubled since)
            live = [
                entry
                for entry in heap
                if order.get(entry[2], (0, -1, -1))[1] == entry[1]
            ]
            heapq.heapify(live)
            self._expiry = live

    def over(self) -> Iterator[Slot]:
        """While past ``max_bytes``: the least recently used slot (a read
        one gets a second chance: moved back, once). The caller drops each
        slot before asking for the next."""
        if self.max_bytes is None:
            return
        order = self._order
        touched = self._touched
        chances = len(order)
        while self.bytes > self.max_bytes and order:
            slot, (_, _, result_id) = next(iter(order.items()))
            if result_id in touched and chances > 0:
                chances -= 1
                touched.discard(result_id)
                order.move_to_end(slot)
                continue
            yield slot
            if slot in order:  # not dropped by the caller: drop it here
                self.dropped(slot)
