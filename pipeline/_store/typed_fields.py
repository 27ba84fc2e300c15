"""Checking the values data gives an entity's fields against their
annotations, in C.

A record made from a server's data holds each value as it came (or as its
deserializer made it): ``name: str`` given ``42``, or ``unit_price: float``
given ``"cheap"``, would be a record whose fields are not what they say.
:func:`field_check` works out, once per entity class (and again when its
``schema`` changes), a :class:`FieldCheck`: a ``msgspec`` struct of the
checked fields that ``msgspec.convert`` validates a record's data against
in one C call (a list of them in one call too), its result thrown away.

Which fields are checked, and how:

- every field but those ``schema`` names: a deserializer is the field's
  conversion (what it makes is the field's value), and a nested entity is
  checked as an object, or a list, where it is normalized;
- by msgspec's rules, with no conversion: a value must already be of the
  declared type. JSON's types are checked as msgspec checks them (``str``,
  ``int`` (not ``bool``), ``bool``, ``None``, lists, dicts and their
  items, ``Literal``, unions, ``Annotated`` constraints); an ``int`` is a
  ``float`` (and stays an ``int``); any other class (``datetime``,
  ``Decimal``, an ``Enum``, another entity, a dataclass) is checked with
  ``isinstance``, since text is not a date until a deserializer makes it
  one. A ``TypedDict`` is a dict;
- ``Any``, ``object``, type variables and names that cannot be resolved
  (a class not defined yet) check nothing; an annotation msgspec cannot
  take (a union of two classes) is checked with ``isinstance``, in Python.

An entity whose data is known to be clean says ``check_types = False`` and
is not checked (the constructor still checks its arguments).
"""

from __future__ import annotations

import collections.abc
import inspect
import re
import sys
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import (
    Annotated,
    Any,
    Literal,
    NamedTuple,
    TypeVar,
    Union,
    get_args,
    get_origin,
    is_typeddict,
)

import msgspec

__all__ = [
    "FieldCheck",
    "failed_field",
    "field_check",
    "isinstance_check",
    "resolved_annotations",
    "without_surrogates",
]

#: An annotation that could not be resolved (a name not defined yet).
UNRESOLVED: Any = object()

#: Containers msgspec checks item by item, kept as they are.
_CONTAINERS = frozenset(
    (
        list,
        tuple,
        set,
        frozenset,
        dict,
        collections.abc.Sequence,
        collections.abc.MutableSequence,
        collections.abc.Set,
        collections.abc.MutableSet,
        collections.abc.Mapping,
        collections.abc.MutableMapping,
    )
)
_NUMBER = Union[int, float]  # noqa: UP007 (a value, not an annotation)
_convert = msgspec.convert
_ValidationError = msgspec.ValidationError


class FieldCheck(NamedTuple):
    """How one entity class's data is checked (see the module)."""

    #: A struct of the fields msgspec checks (each defaulting to ``UNSET``,
    #: so a field the data lacks is not checked), or ``None`` for none.
    struct: Any
    #: The same fields and their msgspec types, for a column at a time.
    types: tuple[tuple[str, Any], ...]
    #: Fields checked in Python: (name, test of a value).
    python: tuple[tuple[str, Callable[[Any], bool]], ...]
    #: Each checked field's annotation as text, for errors.
    shown: Mapping[str, str]
    #: ``types`` as lists of each, and ``list[struct]``: made once, as
    #: msgspec works out a generic type again each time it is made.
    column_types: tuple[tuple[str, Any], ...]
    items: Any
    #: For each field msgspec checks, the classes whose values pass its
    #: check as they are (``str`` for ``str``; ``int`` and ``float`` for
    #: ``float``; ...): a column all of one of them needs no check.
    passing: Mapping[str, frozenset[type]]

    def check(self, data: Mapping[str, Any], *, again: bool = False) -> str | None:
        """The first field of ``data`` of the wrong type, or ``None``.
        ``again``: ``data`` is a copy with lone surrogates replaced."""
        struct = self.struct
        if struct is not None:
            try:
                _convert(data if type(data) is dict else dict(data), struct)
            except _ValidationError as error:
                return _field_of(error, data, self.types)
            except UnicodeEncodeError:
                # (msgspec cannot read a text holding a lone surrogate,
                # which JSON may escape: checked with it replaced, once)
                if again:
                    return _field_of(None, data, self.types)
                return self.check(without_surrogates(data), again=True)
        for name, test in self.python:
            if name in data and not test(data[name]):
                return name
        return None

    def check_columns(
        self,
        columns: list[list[Any]],
        index: Mapping[str, int],
        kinds: Sequence[type | None] | None = None,
    ) -> bool:
        """Whether every value of the checked fields' ``columns`` (each
        field's values, every item having the field) is of its type.
        ``kinds``: for each column, the class of every one of its values
        (exactly), where known."""
        passing = self.passing
        try:
            for name, kind in self.column_types:
                at = index[name]
                if kinds is not None and any(
                    kinds[at] is passes for passes in passing[name]
                ):
                    continue  # (all of a class that passes: nothing to ask)
                _convert(columns[at], kind)
        except (_ValidationError, UnicodeEncodeError):
            return False  # (the record path checks each value)
        return all(all(map(test, columns[index[name]])) for name, test in self.python)

    def check_items(self, values: Sequence[Any]) -> bool:
        """Whether every item of ``values`` (plain dicts) is of the types."""
        if self.struct is not None:
            try:
                _convert(values, self.items)
            except (_ValidationError, UnicodeEncodeError):
                return False  # (the record path checks each value)
        for name, test in self.python:
            for value in values:
                if name in value and not test(value[name]):
                    return False
        return True


def field_check(
    cls: type, checked: Iterable[str], owners: Iterable[type]
) -> FieldCheck | None:
    """The check of ``cls``'s ``checked`` fields, whose annotations the
    classes ``owners`` declare (base first); ``None`` if none is checked."""
    annotations = resolved_annotations(owners, frozenset(checked))
    fields: list[tuple[str, Any]] = []
    python: list[tuple[str, Callable[[Any], bool]]] = []
    shown: dict[str, str] = {}
    for name, (annotation, text) in annotations.items():
        if annotation is UNRESOLVED:
            continue
        kind = _checked_type(annotation)
        if kind is Any:
            continue
        shown[name] = text
        try:
            _convert([], _list_of(kind))  # msgspec refuses what it cannot check
        except TypeError:
            test = isinstance_check(annotation)
            if test is not None:
                python.append((name, test))
            continue
        fields.append((name, kind))
    if not fields and not python:
        return None
    struct = (
        msgspec.defstruct(
            f"{cls.__name__}Fields",
            [(name, kind, msgspec.UNSET) for name, kind in fields],
            gc=False,  # made and dropped at once: nothing for the collector
        )
        if fields
        else None
    )
    return FieldCheck(
        struct,
        tuple(fields),
        tuple(python),
        shown,
        tuple((name, _list_of(kind)) for name, kind in fields),
        None if struct is None else _list_of(struct),
        {name: _passing(kind) for name, kind in fields},
    )


def _passing(kind: Any) -> frozenset[type]:
    """The classes whose every value msgspec's check of ``kind`` passes as
    it is (none where the check asks more than the class: a ``Literal``,
    a constraint, a container's items)."""
    if kind in (str, int, float, bool, type(None)):
        return frozenset((kind,))
    if get_origin(kind) is Union:  # (``float``'s int | float, an Optional)
        return frozenset().union(*map(_passing, get_args(kind)))
    return frozenset()


def _list_of(kind: Any) -> Any:
    """``list[kind]``, for a ``kind`` known only at run time."""
    return types.GenericAlias(list, (kind,))


def resolved_annotations(
    owners: Iterable[type], names: frozenset[str]
) -> dict[str, tuple[Any, str]]:
    """Each of ``names``' annotation, resolved (a string one evaluated in
    its class's module and body), and as text; :data:`UNRESOLVED` for one
    that names what is not defined. A class later in ``owners`` redeclares
    what an earlier one did."""
    found: dict[str, tuple[Any, str]] = {}
    for klass in owners:
        module = sys.modules.get(klass.__module__)
        namespace = dict(vars(module)) if module is not None else {}
        for name, annotation in inspect.get_annotations(klass).items():
            if name not in names:
                continue
            if isinstance(annotation, str):
                text = annotation
                try:
                    annotation = eval(annotation, namespace, dict(vars(klass)))
                except Exception:
                    annotation = UNRESOLVED
            else:
                text = (
                    repr(annotation)
                    if not isinstance(annotation, type)
                    else (annotation.__name__)
                )
            found[name] = (annotation, text.replace("typing.", ""))
    return found


def _checked_type(annotation: Any) -> Any:
    """What msgspec checks a value of ``annotation`` as: JSON's types as
    they are, ``float`` as ``int | float`` (an int is kept, not made a
    float), any other class as an ``isinstance`` test; ``Any`` for what
    checks nothing."""
    if annotation is Any or annotation is object or isinstance(annotation, TypeVar):
        return Any
    if annotation is None or annotation is type(None):
        return type(None)
    if annotation is float:
        return _NUMBER
    if annotation in (str, int, bool):
        return annotation
    origin = get_origin(annotation)
    if origin is Annotated:
        inner, *extras = get_args(annotation)
        kind = _checked_type(inner)
        constraints = [meta for meta in extras if isinstance(meta, msgspec.Meta)]
        if kind is Any or not constraints:
            return kind
        return Annotated[(kind, *constraints)]
    if origin is Union or origin is types.UnionType:
        parts = [_checked_type(arg) for arg in get_args(annotation)]
        if any(part is Any for part in parts):
            return Any
        return Union[tuple(parts)]  # noqa: UP007
    if origin is Literal:
        return annotation
    if origin in _CONTAINERS:
        arguments = get_args(annotation)
        if not arguments:
            return origin
        return origin[
            tuple(
                argument if argument is Ellipsis else _checked_type(argument)
                for argument in arguments
            )
        ]
    if is_typeddict(annotation):
        return dict[str, Any]
    if isinstance(origin, type):
        return _instance_of(origin)  # a generic class: by its origin
    if isinstance(annotation, type):
        return _instance_of(annotation)
    return Any


class _InstanceOf(type):
    """The metaclass of a stand-in msgspec checks with ``isinstance``
    (as it does any class it does not know): an instance of the stand-in
    is an instance of the class it stands for."""

    target: type

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, cls.target)


_STAND_INS: dict[type, type] = {}


def _instance_of(target: type) -> type:
    """A class msgspec takes as a custom type whose instances are
    ``target``'s: never converted to, from text or an object."""
    stand_in = _STAND_INS.get(target)
    if stand_in is None:
        stand_in = _InstanceOf(target.__name__, (), {"target": target})
        _STAND_INS[target] = stand_in
    return stand_in


_AT_FIELD = re.compile(r" - at `\$\.([^.\[`]+)")


def _field_of(
    error: msgspec.ValidationError | None,
    data: Mapping[str, Any],
    fields: tuple[tuple[str, Any], ...],
) -> str:
    """The field msgspec's ``error`` is about (its message says where);
    without one, the first field msgspec refuses or cannot read."""
    found = None if error is None else _AT_FIELD.search(str(error))
    if found is not None and found.group(1) in data:
        return found.group(1)
    for name, kind in fields:  # (a message of another form: ask each field)
        if name in data:
            try:
                _convert(data[name], kind)
            except (_ValidationError, UnicodeEncodeError):
                return name
    return next(iter(data))


def failed_field(check: FieldCheck, entity: str, name: str, value: Any) -> str:
    """What is wrong with ``value`` for the field ``name`` of ``entity``:
    the type expected and the type given, and where inside it, never the
    value; for a class made from text or an object (a date, an enum, an
    entity), where its conversion goes."""
    problem = f"expected {check.shown.get(name, '?')}, got {_type_name(value)}"
    kind = dict(check.types).get(name)
    if kind is not None and isinstance(value, list | dict):
        try:
            _convert(without_surrogates(value), kind)
        except UnicodeEncodeError:
            pass  # (a text msgspec cannot read, in a container of a subclass)
        except _ValidationError as error:
            message, at, where = str(error).rpartition(" - at `$")
            if at and message.startswith("Expected"):
                detail = message.replace("`", "")
                problem += f" (at {where.rstrip('`')}: e{detail[1:]})"
    if kind is None or _converts_to(kind):
        problem += (
            f"; to convert it, name a deserializer (or a nested entity) for "
            f"{name!r} in {entity}.schema"
        )
    return problem


#: A lone surrogate (a text holds one when JSON escapes it alone).
_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(value: Any) -> Any:
    """``value`` with each lone surrogate in its texts (keys too) replaced
    by U+FFFD, for msgspec to check: it cannot read one. The same types
    (a text of a subclass of ``str`` made a plain one), and texts of the
    same lengths."""
    if isinstance(value, str):  # (a subclass's text too: made a plain one)
        return _SURROGATE.sub("\ufffd", value)
    kind = type(value)
    if kind is list or kind is tuple or kind is set or kind is frozenset:
        return kind(map(without_surrogates, value))
    if isinstance(value, Mapping):
        return {
            without_surrogates(key): without_surrogates(item)
            for key, item in value.items()
        }
    return value


def _converts_to(kind: Any) -> bool:
    """Whether ``kind`` (a checked type) holds a class that data must be
    converted to: a stand-in for ``isinstance``."""
    if isinstance(kind, _InstanceOf):
        return True
    return any(_converts_to(argument) for argument in get_args(kind))


def _type_name(value: Any) -> str:
    return "None" if value is None else type(value).__name__


def isinstance_check(annotation: Any) -> Callable[[Any], bool] | None:
    """An ``isinstance`` test for ``annotation`` (generics by their origin;
    an int is a float), or ``None`` if it checks nothing."""
    if annotation is Any or annotation is object:
        return None
    if annotation is None or annotation is type(None):
        return lambda value: value is None
    origin = get_origin(annotation)
    if origin is not None:
        return _generic_check(annotation, origin)
    if annotation is float:
        return lambda value: isinstance(value, int | float)
    if annotation is complex:
        return lambda value: isinstance(value, int | float | complex)
    if isinstance(annotation, type):
        return lambda value: isinstance(value, annotation)
    return None


def _generic_check(annotation: Any, origin: Any) -> Callable[[Any], bool] | None:
    """The test of an annotation with an origin: ``Annotated``, a union,
    ``Literal``, or a generic class checked by its origin."""
    if origin is Annotated:
        return isinstance_check(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        parts = [isinstance_check(arg) for arg in get_args(annotation)]
        if any(part is None for part in parts):
            return None
        tests = [part for part in parts if part is not None]
        return lambda value: any(test(value) for test in tests)
    if origin is Literal:
        allowed = get_args(annotation)
        return lambda value: any(
            value == option and type(value) is type(option) for option in allowed
        )
    if isinstance(origin, type):
        return lambda value: isinstance(value, origin)
    return None
