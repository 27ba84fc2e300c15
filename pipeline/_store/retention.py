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
- **Sizes count what is held**, never a sample: a result's value is walked
  whole (:func:`size_of`), and each record the store holds is counted
  once, from when it is stored until it goes (:func:`records_size`, the
  store's ``record_bytes``), whichever result brought it. No shape of a
  value can hide bytes from either: not a list whose few sampled items are
  small, not a body that is small for what it parses into, not a record's
  extra keys. Both are close to what ``tracemalloc`` sees, erring on the
  large side (``tests/pipeline/test_retention.py``,
  ``tests/hostile/test_store_bound.py``).

The store calls it under its lock, except ``Retention.touch_id``.
"""

from __future__ import annotations

import dataclasses
import datetime
import gc
import heapq
import itertools
import sys
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from itertools import chain, repeat
from operator import attrgetter, countOf, is_
from types import (
    BuiltinFunctionType,
    FunctionType,
    MappingProxyType,
    MethodType,
    ModuleType,
)
from typing import Any, NamedTuple

import msgspec
from msgspec.structs import astuple

from .._base.errors import SettingError
from .entity import Entity

__all__ = [
    "DEFAULT_MAX_BYTES",
    "ENTRY",
    "SAME_SIZE_VALUES",
    "Retention",
    "Slot",
    "columns_size",
    "records_size",
    "size_of",
]

#: The store's bound when a controller is given none.
DEFAULT_MAX_BYTES = 64 * 1024 * 1024

#: (identity, request key, value shape): where one result is kept.
Slot = tuple[Hashable, str, Hashable]

#: What keeping a result costs besides its value: the slot's dict entries,
#: the ``Result`` tuple, its params, identity and key text, its bookkeeping
#: here, as tracemalloc measures them (the measurement: docs/performance.md).
OVERHEAD = 2000

#: What holding a record costs besides the record and its tables' slots
#: (counted as the tables are: ``Store._tables``): its key, a tuple and
#: the primary key's text, when no result's value holds them already.
ENTRY = 100

_getsizeof = sys.getsizeof
_OBJECT_SIZEOF: Any = object.__sizeof__

# -- sizes: every object counted -----------------------------------------------

#: How an object of each type is counted: not at all (a class, a function,
#: ``None``: shared, never held by a value), alone (text, a number: holds
#: nothing), with what it holds (a container, a record), or as a dict (its
#: keys too: a dict of text keys does not give its keys to the collector).
_SKIP, _ALONE, _HOLDS, _DICT = 0, 1, 2, 3
_SKIPPED = (
    type,
    ModuleType,
    FunctionType,
    BuiltinFunctionType,
    MethodType,
    type(None),
    bool,
)
_HOLDERS = (list, tuple, set, frozenset, MappingProxyType, msgspec.Struct)


class _Sizer(NamedTuple):
    """How the objects of one type are counted: ``kind`` (above), their
    own size (the type's ``__sizeof__``, called straight: a third of the
    work of ``sys.getsizeof``) and what ``getsizeof`` adds to it (the
    collector's header)."""

    kind: int
    sizeof: Callable[[Any], int]
    head: int


#: Each type met, and how its objects are counted (a bound: types are few,
#: but not trusted; past it, each is worked out again).
_SIZERS: dict[type, _Sizer] = {}


def _sizer(kind: type, example: Any) -> _Sizer:
    """How objects of ``kind`` (``example`` one of them) are counted:
    containers, entity records, model instances and dataclasses with what
    they hold; any other object alone (what it refers to may be shared: a
    client, a registry)."""
    found = _SIZERS.get(kind)
    if found is not None:
        return found
    if kind is str:
        found = _SIZERS[str] = _Sizer(_ALONE, text_size, 0)
        return found
    if issubclass(kind, _SKIPPED):
        how = _SKIP
    elif issubclass(kind, dict):
        how = _DICT
    elif (
        issubclass(kind, _HOLDERS)
        or hasattr(kind, "__pydantic_fields__")
        or dataclasses.is_dataclass(kind)
    ):
        how = _HOLDS
    else:
        how = _ALONE
    sizeof: Callable[[Any], int] = _getsizeof
    head = 0
    try:
        unbound: Callable[[Any], int] = kind.__sizeof__  # type: ignore[assignment]
        own = unbound(example)
        if isinstance(own, int):
            sizeof, head = unbound, _getsizeof(example) - own
    except Exception:  # a __sizeof__ of its own that fails: getsizeof's way
        sizeof, head = _getsizeof, 0
    found = _Sizer(how, sizeof, head)
    if len(_SIZERS) < 4096:
        _SIZERS[kind] = found
    return found


def _by_type(level: list[Any]) -> Iterable[tuple[type, list[Any]]]:
    """The objects of ``level`` in groups of one type (a level is most
    often of one: then the level itself, checked in C; else one pass)."""
    types = list(map(type, level))
    first = types[0]
    if all(map(is_, types, repeat(first))):  # (by identity: see columns.one_class)
        return ((first, level),)
    groups: dict[type, list[Any]] = {}
    for kind, each in zip(types, level, strict=True):
        group = groups.get(kind)
        if group is None:
            groups[kind] = [each]
        else:
            group.append(each)
    return groups.items()


#: What a text takes besides its characters: an ASCII one (one byte each,
#: and one for the end), and a wider one (``_WIDE_HEAD + (len + 1) * width``),
#: measured on texts made here (no cache attached).
_ASCII_HEAD = _getsizeof("")
_WIDE_HEAD = _getsizeof("".join(["\xe9", "\xe9"])) - 3


def text_size(text: str) -> int:
    """The bytes of ``text`` as CPython lays it out when it is made: each
    character at one, two or four bytes (as wide as its widest), and a
    fixed head. Not ``str.__sizeof__``, which counts the UTF-8 copy CPython
    attaches to a text once something asks for it (an encoder, a C library):
    so what a record counts in when stored is what it counts out when it
    goes, whatever was done with its texts meanwhile."""
    if text.isascii():
        return _ASCII_HEAD + len(text)
    try:
        text.encode("latin-1")
        width = 1
    except UnicodeEncodeError:
        # (a lone surrogate, which JSON may escape, is two bytes wide)
        wide = text.encode("utf-16-le", "surrogatepass")
        width = 2 if len(wide) == 2 * len(text) else 4
    return _WIDE_HEAD + (len(text) + 1) * width


#: The most characters :func:`_texts_size` joins to ask, in one C call,
#: whether a column of texts is all ASCII (the copy it makes: a few MB
#: at most). Past it, each text is asked (``str.isascii`` reads a flag).
_JOINED = 1 << 20


def _texts_size(texts: list[str]) -> int:
    """:func:`text_size` of each of ``texts`` (exact ``str``), summed.
    ASCII texts, the usual, take their length and a fixed head each; short
    ones are joined to ask whether all are ASCII at once (timeit, 20,000
    ids: 0.44 ms against 0.60 asking each text)."""
    characters = sum(map(len, texts))
    if characters <= _JOINED:
        ascii = "".join(texts).isascii()
    else:
        ascii = all(map(str.isascii, texts))
    if ascii:
        return characters + _ASCII_HEAD * len(texts)
    return sum(map(text_size, texts))


def _level(
    level: list[Any], seen: set[int] | None, keys_met: set[int] | None = None
) -> tuple[int, list[Any]]:
    """The bytes of the objects of ``level``, and what they hold (the
    next level). With ``seen``, a container already met is skipped (and
    then met), and with ``keys_met`` a dict's key; without, every reference
    counts."""
    total = 0
    below: list[Any] = []
    for kind, group in _by_type(level):
        total += _group(kind, group, below, seen, keys_met)
    return total, below


def _group(
    kind: type,
    group: list[Any],
    below: list[Any],
    seen: set[int] | None = None,
    keys_met: set[int] | None = None,
    apart: bool = False,
) -> int:
    """The bytes of ``group``, objects all of class ``kind`` (exactly), as
    :func:`_level` counts them; what they hold is added to ``below``, or,
    ``apart``, appended to it as lists of their own (a dict's keys apart
    from its values: each list then most often of one type)."""
    how, sizeof, head = _sizer(kind, group[0])
    if how == _SKIP:
        return 0
    if how != _ALONE and seen is not None:
        group = _unseen(group, seen)
        if not group:
            return 0  # (each met already, at a level above)
    if kind is str:
        total = _texts_size(group)
    elif sizeof is _OBJECT_SIZEOF and not kind.__itemsize__:
        # (one size for the type: a column of datetimes, of floats)
        total = (sizeof(group[0]) + head) * len(group)
    else:
        total = sum(map(sizeof, group)) + head * len(group)
    if how == _HOLDS:
        held = gc.get_referents(*group)
        if apart:
            below.append(held)
        else:
            below.extend(held)
    elif how == _DICT:
        keys = list(chain.from_iterable(map(dict.keys, group)))
        if keys_met is not None:
            keys = _unseen(keys, keys_met)
        values = chain.from_iterable(map(dict.values, group))
        if apart:
            below.append(keys)
            below.append(list(values))
        else:
            below.extend(keys)
            below.extend(values)
    return total


def size_of(value: Any) -> int:
    """How many bytes ``value`` holds, its contents included: every object
    it reaches. A container is counted once however often it is met, so a
    value that holds itself ends, and so is a dict's key (which a JSON parse
    shares between objects); text and numbers are counted at each place
    they are held (a small int shared by CPython is so counted more than
    once: erring large). Classes, functions, ``None`` and booleans are not
    counted (shared); an object that is no container, record or model
    counts alone.

    A small value (the usual answer: an object of a few fields) is walked
    one object at a time; a larger one level by level, each level's work
    done in C a type at a time. Both count the same."""
    small = _small_size(value)
    if small is not None:
        return small
    total = 0
    seen: set[int] = set()
    keys_met: set[int] = set()
    level = [value]
    while level:
        size, level = _level(level, seen, keys_met)
        total += size
    return total


#: The most objects :func:`_small_size` walks before it leaves a value to
#: the walk by levels (timeit, an object of ten fields, about fifteen
#: objects: 4.0 us one at a time, 9.0 us by levels; a level's C loops pay
#: off past a few dozen objects).
_SMALL = 64


def _small_size(value: Any) -> int | None:
    """:func:`size_of` of a value of at most :data:`_SMALL` objects,
    walked one object at a time; ``None`` for a larger one."""
    total = 0
    seen: set[int] = set()
    keys_met: set[int] = set()
    pending = [value]
    pop, push, extend = pending.pop, pending.append, pending.extend
    left = _SMALL
    sizers = _SIZERS
    while pending:
        left -= 1
        if left < 0:
            return None
        each = pop()
        kind = type(each)
        how, sizeof, head = sizers.get(kind) or _sizer(kind, each)
        if how == _ALONE:
            total += sizeof(each) + head
            continue
        if how == _SKIP or id(each) in seen:
            continue
        seen.add(id(each))
        total += sizeof(each) + head
        if how == _DICT:
            for key in each:
                if id(key) not in keys_met:
                    keys_met.add(id(key))
                    push(key)
            extend(each.values())
        else:
            extend(gc.get_referents(each))
    return total


def _unseen(objects: list[Any], seen: set[int]) -> list[Any]:
    """``objects`` not in ``seen`` (by identity), each once; now seen."""
    by_id = dict(zip(map(id, objects), objects, strict=True))
    if seen:
        for known in seen.intersection(by_id):
            del by_id[known]
    seen.update(by_id)
    return list(by_id.values())


#: Levels a record is walked down at most (a value that holds itself, which
#: no record from JSON does, is cut there rather than walked for ever).
_RECORD_DEPTH = 64


#: Records of one class sized together as one level rather than column by
#: column, at most (callgrind, records of four fields: four cost 81k
#: instructions as one level, 93k by column; sixteen 179k as one level,
#: 156k by column).
_FEW = 4


def records_size(records: list[Any]) -> int:
    """How many bytes ``records`` hold, each with its place in the store
    (:data:`ENTRY`): the sum of each record's own size, so that the bytes
    counted in for records stored together are the bytes counted out when
    they go, together or one by one. Nothing is counted once for several
    records: what two records share is counted in each (an overcount, and
    the same one in and out), and ``None`` not at all.

    Entity records (one class, the usual batch) are counted field by field:
    each field's values together, a type at a time (text, numbers, a list
    of them: a few C loops for the column), whatever a server put there,
    whatever the annotation says; an entity's extra keys too."""
    if not records:
        return 0
    total = ENTRY * len(records)
    if len(records) == 1:  # (one record, the usual answer: no columns made)
        record = records[0]
        kind = type(record)
        if issubclass(kind, msgspec.Struct):
            # (its fields' values as one level, and its extra keys: as
            # below, one object at a time for a few)
            own = _sizer(kind, record)
            return (
                total
                + own.sizeof(record)
                + own.head
                + _mixed_walked(astuple(record))
                + (extras_size(records) if "_extras_made" in kind.__dict__ else 0)
            )
    for kind, group in _by_type(records):
        if issubclass(kind, msgspec.Struct):
            # the walk sums per object (no object remembered): a column at a
            # time (one type each, a C loop) for many records; for a few,
            # every field's values in one level (fewer levels to walk)
            if len(group) > _FEW:
                # (a column a C loop; zip(*records) would make an iterator
                # per record: 20,000 records of five fields, 18 ms vs 2.5)
                columns = [
                    list(map(attrgetter(name), group))
                    for name in kind.__struct_fields__
                ]
                total += _struct_size(group, columns)
            else:
                own = _sizer(kind, group[0])  # the records themselves
                total += sum(map(own.sizeof, group)) + own.head * len(group)
                total += _mixed_walked(list(chain.from_iterable(map(astuple, group))))
            if "_extras_made" in kind.__dict__:  # (an Entity's extra keys)
                total += extras_size(group)
        else:
            total += _walked(group)
    return total


def extras_size(records: list[Any]) -> int:
    """The bytes the extra keys of ``records`` (entity records) hold, as
    :func:`records_size` counts them with the records (none for a record
    that keeps none): the read-only mapping each keeps, what it shows, and
    the record's own table holding it, counted as a table of that one key
    (:data:`_OWN_EXTRA`). A value a record keeps for itself beside them
    (as ``functools.cached_property`` does, at any time) is not counted:
    what is counted in for a record is what is counted out."""
    held = [
        each._extra
        for each in records
        if "_extras_made" in type(each).__dict__ and each.extra_fields
    ]
    if not held:
        return 0
    own = _OWN_EXTRA * len(held)
    if len(held) > 1:
        # (one type a level: the levels' C loops)
        return own + _walked(held, _RECORD_DEPTH - 1)
    return own + _mixed_walked(held, _RECORD_DEPTH - 1)


#: The types whose equal values always take the same bytes, asked of two
#: values of one type (``1 == 1.0 == True`` do not: 28, 24 and 0 bytes as
#: counted; nor does an ``IntEnum`` member equal to ``1``, a ``str`` enum's
#: equal to its text, which the field checks of ``int`` and ``str`` pass:
#: so every field is asked, whatever its annotation). Two floats take 24
#: bytes whatever they hold.
SAME_SIZE_VALUES = frozenset(
    {
        str,
        int,
        float,
        bool,
        type(None),
        datetime.datetime,
        datetime.date,
        datetime.time,
    }
)


def extras_growth(held: list[Any], again: list[Any]) -> int:
    """``extras_size(again) - extras_size(held)``, for records stored again
    (``again[i]`` replacing ``held[i]``): by :func:`_paired_growth` where it
    can tell, else each side counted whole."""
    grown = _paired_growth(held, again)
    if grown is None:
        return extras_size(again) - extras_size(held)
    return grown


def _paired_growth(held: list[Any], again: list[Any]) -> int | None:
    """:func:`extras_growth` when every record of both keeps extra keys,
    all the same number of keys, texts, each pair the same ones in the
    same order: only what may differ is counted, the dicts holding them
    and each key's values as a column, none of them when the two columns
    are equal value by value and of one type each value, of
    :data:`SAME_SIZE_VALUES`' types (the records' ``==`` leaves their
    extra keys aside). The rest (the records' own tables, the mappings,
    their keys) is the same on both sides. ``None`` otherwise."""
    pairs = len(again)
    if pairs < 2 or len(held) != pairs:
        return None
    kinds = set(map(type, held)) | set(map(type, again))
    extra_old = list(map(_EXTRA_OF, held))
    extra_new = list(map(_EXTRA_OF, again))
    width = len(extra_new[0])
    keys = list(chain.from_iterable(extra_new))
    if not (
        width
        and all(
            "_extras_made" in kind.__dict__
            and getattr(kind, "extra_fields", None) is _KEPT_EXTRA_FIELDS
            for kind in kinds
        )
        and countOf(map(len, extra_new), width) == pairs
        and countOf(map(len, extra_old), width) == pairs
        and all(map(is_, map(type, keys), repeat(str)))
        and keys == list(chain.from_iterable(extra_old))
    ):
        return None
    # (each record's extra keys: its own table for them, counted alike
    # each side, a read-only mapping, the dict it shows, its keys, equal
    # texts each pair, and their values)
    inner_old = gc.get_referents(*extra_old)
    inner_new = gc.get_referents(*extra_new)
    if not (
        len(inner_old) == pairs == len(inner_new)
        and all(map(is_, map(type, inner_old), repeat(dict)))
        and all(map(is_, map(type, inner_new), repeat(dict)))
    ):
        return None
    # (as many dicts each side: what getsizeof adds to each is the same)
    grown = sum(map(_DICT_SIZEOF, inner_new)) - sum(map(_DICT_SIZEOF, inner_old))
    values_old = list(chain.from_iterable(map(dict.values, inner_old)))
    values_new = list(chain.from_iterable(map(dict.values, inner_new)))
    for at in range(width):
        old, new = values_old[at::width], values_new[at::width]
        types = list(map(type, new))
        if (
            types == list(map(type, old))
            and SAME_SIZE_VALUES.issuperset(types)
            and new == old
        ):
            continue
        grown += _walked(new, _EXTRA_VALUES_DEPTH) - _walked(old, _EXTRA_VALUES_DEPTH)
    return grown


#: ``Entity.extra_fields`` as the base class says it (the mapping a record
#: keeps): a class that overrides it is counted by :func:`extras_size`.
_KEPT_EXTRA_FIELDS = Entity.__dict__["extra_fields"]

#: A dict's own bytes, without the collector's header ``getsizeof`` adds.
_DICT_SIZEOF: Callable[[dict[Any, Any]], int] = dict.__sizeof__

#: A record's mapping of extra keys, as its own attributes hold it (the
#: class's shared empty one when it keeps none).
_EXTRA_OF = attrgetter("_extra")

#: The depth of an extra key's value below a record's own attributes, as
#: :func:`extras_size` walks them (the attributes' table, the mapping, the
#: dict it shows, the value): the levels left to walk from it.
_EXTRA_VALUES_DEPTH = _RECORD_DEPTH - 3


def _own_table_size() -> int:
    """The bytes a record's own table takes holding its extra keys alone:
    measured on a compiled record of the same kind (a ``msgspec`` struct
    with a ``__dict__``), as an entity's is made."""

    class Own(msgspec.Struct, dict=True):
        pass

    record = Own()
    msgspec.structs.force_setattr(record, "_extra", None)
    return _getsizeof(vars(record))


#: A record's own table holding its extra keys, and that key, as
#: :func:`extras_size` counts them: a table of that one key.
_OWN_EXTRA = _own_table_size() + text_size("_extra")


def columns_size(
    records: list[Any],
    columns: list[list[Any]],
    kinds: list[type | None] | None = None,
) -> int:
    """What :func:`records_size` says of ``records`` (of one struct class,
    keeping no extra keys), whose fields' values are ``columns`` (each
    field's values, in field order): the same sum, from the columns that
    normalizing a list made already. ``kinds``: for each column, the class
    of every one of its values (exactly), where known: that column is then
    counted with no pass to group its values by class."""
    return ENTRY * len(records) + _struct_size(records, columns, kinds)


def column_size(values: list[Any]) -> int:
    """The bytes :func:`records_size` counts for one field's ``values``."""
    return _walked(values)


def column_growth(new: list[Any], old: list[Any]) -> int:
    """``column_size(new) - column_size(old)``, for two columns of values
    of one type, the same in both (decimals, ints): of a type that
    holds nothing, only the values' own sizes are summed."""
    kind = type(new[0])
    how, sizeof, _ = _SIZERS.get(kind) or _sizer(kind, new[0])
    if how == _ALONE and kind is not str:
        return sum(map(sizeof, new)) - sum(map(sizeof, old))
    return _walked(new) - _walked(old)


def _struct_size(
    records: list[Any],
    columns: list[list[Any]],
    kinds: list[type | None] | None = None,
) -> int:
    """The bytes of ``records`` (of one struct class) and of their fields'
    values, ``columns`` (of the classes ``kinds``, where known); extra keys
    apart. A struct's own size is the same for every record of its class,
    unless the class counts it otherwise."""
    first = records[0]
    kind = type(first)
    sizeof: Any = kind.__sizeof__
    if sizeof is _OBJECT_SIZEOF:
        own = _getsizeof(first) * len(records)
    else:
        sizer = _sizer(kind, first)
        own = sum(map(sizer.sizeof, records)) + sizer.head * len(records)
    if kinds is None:
        return own + sum(map(_walked, columns))
    return own + sum(map(_column_walked, columns, kinds))


def _column_walked(column: list[Any], kind: type | None) -> int:
    """:func:`_walked` of ``column``, whose values are all of class
    ``kind`` (exactly) when it is given: counted as one group."""
    if kind is None or not column:
        return _walked(column)
    parts: list[list[Any]] = []
    total = _group(kind, column, parts, apart=True)
    return total + _walked_parts(parts, _RECORD_DEPTH - 1) if parts else total


def _walked(level: list[Any], depth: int = _RECORD_DEPTH) -> int:
    """The bytes of the objects of ``level`` and everything they hold,
    down to ``depth`` levels, each reference counted (no object is
    remembered: the sum over a list is the sum of its items' sums).
    Each level's work is done in C a type at a time."""
    return _walked_parts([level], depth)


def _walked_parts(parts: list[list[Any]], depth: int) -> int:
    """:func:`_walked` of the objects of ``parts`` (one level, in lists).
    What a group of a level holds is walked in lists of its own (a dict's
    keys apart from its values, a group's items apart from another's), so
    that each list is most often of one type, grouped by a C check, not by
    a Python loop over a level that mixes them (the records' extra keys:
    texts beside the mappings they name). Each object is at the depth it
    would be at in one list per level, so the sum is the same."""
    total = 0
    while parts and depth > 0:
        depth -= 1
        below: list[list[Any]] = []
        for part in parts:
            if part:
                for kind, group in _by_type(part):
                    total += _group(kind, group, below, apart=True)
        parts = below
    return total


def _mixed_walked(level: Sequence[Any], depth: int = _RECORD_DEPTH) -> int:
    """:func:`_walked` of a few objects of mixed types (one record's
    fields, its extra keys): one object at a time when they reach at most
    :data:`_SMALL` objects, else level by level. (timeit, one record of
    seven fields, a list of three texts among them: 2 us against 5-7 us
    by levels, which group a level of mixed types in a Python loop; a
    column of one type is the levels' case: 5.6 us against 9.5 for 16
    lists of three texts.)"""
    few = _few_walked(level, depth)
    return _walked(list(level), depth) if few is None else few


def _few_walked(level: Iterable[Any], depth: int) -> int | None:
    """:func:`_walked` of ``level``, walked one object at a time, when it
    reaches at most :data:`_SMALL` objects (each reference one); else
    ``None``."""
    total = 0
    left = _SMALL
    sizers = _SIZERS
    referents = gc.get_referents
    # (objects, and how many levels they and what they hold may take)
    pending: list[tuple[Iterable[Any], int]] = [(level, depth)]
    while pending:
        objects, levels = pending.pop()
        if levels <= 0:
            continue
        for each in objects:
            left -= 1
            if left < 0:
                return None
            kind = type(each)
            if kind is str:  # (text_size's usual case, without its call)
                total += _ASCII_HEAD + len(each) if each.isascii() else text_size(each)
                continue
            how, sizeof, head = sizers.get(kind) or _sizer(kind, each)
            if how == _SKIP:
                continue
            total += sizeof(each) + head
            if how == _HOLDS:
                pending.append((referents(each), levels - 1))
            elif how == _DICT:
                pending.append((dict.keys(each), levels - 1))
                pending.append((dict.values(each), levels - 1))
    return total


class Retention:
    """Which of a store's results to drop: the expired, then (past
    ``max_bytes``) the least recently used. Tells the store which slots to
    drop; the store drops them (see the module)."""

    __slots__ = (
        "_expiry",
        "_order",
        "_sequence",
        "_touched",
        "bytes",
        "max_bytes",
        "touch_id",
    )

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
        #: The bytes of every kept result and every held record, as measured
        #: when each was kept.
        self.bytes = 0
        #: slot -> (its size, the sequence number it was kept under, the id
        #: of its result), oldest first
        self._order: OrderedDict[Slot, tuple[int, int, int]] = OrderedDict()
        #: (expires at, sequence number, slot): the next to expire first
        self._expiry: list[tuple[float, int, Slot]] = []
        self._sequence = itertools.count()
        #: ids of results read since they were kept (a second chance)
        self._touched: set[int] = set()
        #: a result was read (by its id): it is used; no lock needed, and
        #: no Python frame (a read from the store is the hot path)
        self.touch_id: Callable[[int], None] = self._touched.add

    def __len__(self) -> int:
        return len(self._order)

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
        self._compact()
        return replaced

    def _compact(self) -> None:
        """Entries of replaced and dropped results pile up in the expiry
        heap: past twice the slots (and a little), keep only the live ones
        (amortized: the heap has doubled since)."""
        heap, order = self._expiry, self._order
        if len(heap) > 2 * len(order) + 1024:
            live = [
                entry
                for entry in heap
                if order.get(entry[2], (0, -1, -1))[1] == entry[1]
            ]
            heapq.heapify(live)
            self._expiry = live

    def grown(self, slot: Slot, result: object, size: int) -> None:
        """The result kept at ``slot`` is now ``result``, of ``size`` (its
        value grown in place: a created record joined a list). It keeps
        its place in the order and its expiry, and a read of the one it
        replaces counts as a read of it."""
        kept = self._order.get(slot)
        if kept is None:
            return
        self.bytes += size - kept[0]
        self._order[slot] = (size, kept[1], id(result))
        if kept[2] in self._touched:
            self._touched.discard(kept[2])
            self._touched.add(id(result))

    def held(self, slot: Slot) -> int:
        """The size ``slot`` was kept at (0 if it holds nothing)."""
        kept = self._order.get(slot)
        return 0 if kept is None else kept[0]

    def placed(self, slot: Slot) -> None:
        """``slot`` (an identity's records that no result uses) is used now:
        the newest, never expiring, dropped only past the bound. Its records'
        bytes are counted by :meth:`records_changed`, not here."""
        self._order.pop(slot, None)
        self._order[slot] = (0, -1, -1)

    def records_changed(self, size: int) -> None:
        """The records the store holds now hold ``size`` more bytes (fewer,
        when negative)."""
        self.bytes += size

    def dropped(self, slot: Slot) -> int:
        """``slot`` no longer holds a result; the bytes it held."""
        previous = self._order.pop(slot, None)
        if previous is None:
            return 0
        self.bytes -= previous[0]
        self._touched.discard(previous[2])
        self._compact()
        return previous[0]

    def expired(self, now: float) -> list[Slot]:
        """The slots whose result has expired by ``now`` (each once)."""
        heap = self._expiry
        if not heap or heap[0][0] > now:
            return []  # (the usual case: one comparison)
        order = self._order
        slots: list[Slot] = []
        while heap and heap[0][0] <= now:
            _, sequence, slot = heapq.heappop(heap)
            kept = order.get(slot)
            if kept is not None and kept[1] == sequence:
                slots.append(slot)  # (else replaced or dropped since: not this one)
        return slots

    def past_bound(self) -> bool:
        """Whether what is kept holds more than ``max_bytes``."""
        return self.max_bytes is not None and self.bytes > self.max_bytes

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
