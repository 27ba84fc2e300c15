"""``Entity``: a typed, read-only record with a primary key.

A subclass declares its fields as annotated class attributes with defaults,
and may set ``key`` (the type's name in the store; default: the class name),
``schema`` (field name to deserializer, nested entity, or ``[Entity]`` for a
list of them) and override ``pk()`` (default: the ``id`` field as text)::

    class ExchangePrice(Entity):
        exchange_pair: str = ""
        updated_at: datetime | None = None
        price: Decimal = Decimal(0)

        schema = {"updated_at": datetime.fromisoformat, "price": Decimal}

        def pk(self) -> str:
            return self.exchange_pair

Guarantees:

- Built from parsed data, declared fields are filled (defaults for the
  missing ones), deserializers applied to the fields the data has; a value
  whose type is exactly a class deserializer's, and ``None``, are kept as
  they are.
- Keys that are not fields are kept apart, in :attr:`Entity.extra_fields`,
  not silently dropped.
- A deserializer that fails raises :class:`EntityError` naming the entity, the
  field and the value.
- Instances are read-only, compare by value and have a readable repr.
- The constructor is checked, by a type checker and at runtime alike
  (``typing.dataclass_transform``): ``Post(id=1)`` for a ``str`` field is a
  mypy error and, at runtime, an :class:`EntityError` naming the field;
  an unknown field, or a missing one that has no default, is a ``TypeError``
  as for any Python call. Data from a server is read as the schema says
  (deserializers), not checked against the annotations.
"""

from __future__ import annotations

import copy
import inspect
import sys
import types
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import (
    Annotated,
    Any,
    ClassVar,
    Literal,
    NamedTuple,
    Self,
    TypeVar,
    Union,
    dataclass_transform,
    get_args,
    get_origin,
)

from ._errors import RestwireError

__all__ = ["Entity", "EntityError", "build", "deserializer_failed"]

EntityT = TypeVar("EntityT", bound="Entity")

_RESERVED = frozenset(("key", "schema"))
_MUTABLE = (list, dict, set)
_NO_EXTRA: Mapping[str, Any] = MappingProxyType({})


class _Plan(NamedTuple):
    schema: Mapping[str, Any]
    #: (field, deserializer, the class whose instances pass as they are, or None)
    deserializers: tuple[tuple[str, Callable[[Any], Any], type | None], ...]
    nested: dict[str, Any]
    field_names: frozenset[str]
    #: defaults that need no copy, and the fields whose default is copied
    defaults: dict[str, Any]
    mutable: tuple[str, ...]


class EntityError(RestwireError):
    """Data cannot become an entity: a deserializer failed, or it has no shape."""

    def __init__(
        self, entity: str, field: str | None, value: Any, problem: str
    ) -> None:
        self.entity = entity
        self.field = field
        self.value = value
        self.request: str | None = None
        where = f"{entity}.{field}" if field else entity
        shown = repr(value)
        if len(shown) > 120:
            shown = shown[:117] + "..."
        self.detail = f"{where}: {problem} (value {shown})"
        super().__init__(self.detail)

    def from_request(self, request: str) -> EntityError:
        """This error, naming the request (``"GET https://..."``) it came from."""
        self.request = request
        self.args = (f"{request}: {self.detail}",)
        return self


@dataclass_transform(kw_only_default=True, frozen_default=True)
class Entity:
    """Base class of typed records kept once in a controller's store."""

    #: The type's name in the store. Default: the class name.
    key: ClassVar[str] = "Entity"
    #: Field name to deserializer (callable or class), nested entity class, or
    #: ``[EntityClass]`` for a list of them.
    schema: ClassVar[Mapping[str, Any]] = MappingProxyType({})

    _fields: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    _required: ClassVar[frozenset[str]] = frozenset()
    _compiled: ClassVar[_Plan | None] = None
    _checks: ClassVar[dict[str, tuple[Callable[[Any], bool], str]] | None] = None
    #: Set on a class (in its own ``__dict__``) once an instance of it is
    #: built with ``extra_fields``: until then none has any, and the store
    #: need not ask each record (see ``_store._merge``).
    _extras_made: ClassVar[bool] = False

    # "_extra" holds the keys that are not fields (see extra_fields); it is
    # not annotated, so type checkers do not take it for a field.
    __slots__ = ("__dict__", "_extra")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "key" not in cls.__dict__:
            cls.key = cls.__name__
        fields: dict[str, Any] = {}
        required: set[str] = set()
        for klass in reversed(cls.__mro__):
            for name, annotation in inspect.get_annotations(klass).items():
                if (
                    name.startswith("_")
                    or name in _RESERVED
                    or _is_classvar(annotation)
                ):
                    continue
                if name in klass.__dict__:
                    required.discard(name)
                elif name not in fields:
                    required.add(name)
                fields[name] = klass.__dict__.get(name, fields.get(name))
        cls._fields = MappingProxyType(fields)
        cls._required = frozenset(required)
        cls._checks = None  # worked out at the first construction
        cls._plan()

    @classmethod
    def _plan(cls) -> _Plan:
        """The compiled schema: deserializers and nested entities by field.

        Compiled again when ``schema`` is reassigned, so two entities that
        name each other can be declared one after the other::

            User.schema = {"posts": [Article]}
        """
        plan = cls.__dict__.get("_compiled")
        schema = cls.schema
        if plan is not None and plan.schema is schema:
            return plan  # type: ignore[no-any-return]
        deserializers: list[tuple[str, Callable[[Any], Any], type | None]] = []
        nested: dict[str, Any] = {}
        for name, target in dict(schema).items():
            if name not in cls._fields:
                raise TypeError(
                    f"{cls.__name__}.schema names {name!r}, which is not a field"
                )
            if _is_entity_schema(target):
                nested[name] = target
            elif callable(target):
                kind = target if isinstance(target, type) else None
                deserializers.append((name, target, kind))
            else:
                raise TypeError(
                    f"{cls.__name__}.schema[{name!r}] must be callable or an entity, "
                    f"not {target!r}"
                )
        fields = cls._fields
        plan = _Plan(
            schema,
            tuple(deserializers),
            nested,
            frozenset(fields),
            dict(fields),
            tuple(
                name for name, value in fields.items() if isinstance(value, _MUTABLE)
            ),
        )
        cls._compiled = plan
        return plan

    def __init__(self, **fields: Any) -> None:
        cls = type(self)
        unknown = fields.keys() - cls._fields.keys()
        if unknown:
            raise TypeError(f"{cls.__name__} has no field(s) {sorted(unknown)}")
        missing = cls._required - fields.keys()
        if missing:
            raise TypeError(f"{cls.__name__} needs field(s) {sorted(missing)}")
        checks = cls._checks
        if checks is None:
            checks = cls._checks = _annotation_checks(cls)
        for name, value in fields.items():
            check = checks.get(name)
            if check is not None and not check[0](value):
                raise EntityError(
                    cls.__name__,
                    name,
                    value,
                    f"expected {check[1]}, got {type(value).__name__}",
                )
        values = {name: _fresh(default) for name, default in self._fields.items()}
        values.update(fields)
        self.__dict__.update(values)

    @classmethod
    def from_data(cls, data: Mapping[str, Any], base: Self | None = None) -> Self:
        """An instance from parsed data, deserializers applied.

        With ``base``, fields missing from ``data`` keep ``base``'s values:
        a newer, partial fetch is merged over an older one field by field.
        Nested entity fields take the value ``data`` has (see the store).
        """
        if not isinstance(data, dict | Mapping):
            raise EntityError(cls.__name__, None, data, "expected an object")
        return build(cls, data, cls._plan(), base)

    def pk(self) -> str | None:
        """The primary key as text; default: the ``id`` field."""
        value = self.__dict__.get("id")
        return None if value is None else str(value)

    @property
    def extra_fields(self) -> Mapping[str, Any]:
        """Keys of the data this entity was built from that are not fields."""
        return getattr(self, "_extra", _NO_EXTRA)

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict (nested entities as dicts too)."""
        return {name: _plain(value) for name, value in self.__dict__.items()}

    def to_json(self) -> dict[str, Any]:
        """The fields, so an entity can be sent as a JSON body."""
        return self.to_dict()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((type(self), self.pk()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self.__dict__.items())
        return f"{type(self).__name__}({shown})"


def build(
    cls: type[EntityT],
    data: Mapping[str, Any],
    plan: _Plan,
    base: EntityT | None = None,
) -> EntityT:
    """``cls.from_data`` without its checks, for callers that made them."""
    extra: Mapping[str, Any] = _NO_EXTRA if base is None else base.extra_fields
    if data.keys() <= plan.field_names:
        values = {**(plan.defaults if base is None else base.__dict__), **data}
        if base is None:
            for name in plan.mutable:
                if name not in data:
                    values[name] = copy.copy(values[name])
    else:
        values = dict(plan.defaults if base is None else base.__dict__)
        if base is None:
            for name in plan.mutable:
                values[name] = copy.copy(values[name])
        extra = dict(extra)
        for name, value in data.items():
            if name in plan.field_names:
                values[name] = value
            else:
                extra[name] = value
        extra = MappingProxyType(extra)
        if extra and "_extras_made" not in cls.__dict__:
            cls._extras_made = True
    for name, deserialize, kind in plan.deserializers:
        if name not in data:
            continue
        value = values[name]
        if value is None or (kind is not None and type(value) is kind):
            continue
        try:
            values[name] = deserialize(value)
        except Exception as error:
            raise deserializer_failed(cls, name, value, deserialize, error) from error
    instance = object.__new__(cls)
    _set_fields(instance, values)
    if extra:
        object.__setattr__(instance, "_extra", extra)
    return instance


def deserializer_failed(
    cls: type[Entity],
    name: str,
    value: Any,
    deserialize: Callable[[Any], Any],
    error: Exception,
) -> EntityError:
    """The error for ``deserialize`` refusing ``value`` of ``cls.name``."""
    return EntityError(
        cls.__name__,
        name,
        value,
        f"{_name(deserialize)} failed: {type(error).__name__}: {error}",
    )


#: Sets an instance's ``__dict__`` past the read-only ``__setattr__``.
_set_fields: Callable[[Entity, dict[str, Any]], None] = Entity.__dict__[
    "__dict__"
].__set__


def _annotation_checks(
    cls: type[Entity],
) -> dict[str, tuple[Callable[[Any], bool], str]]:
    """For each field whose annotation can be checked with ``isinstance``
    (classes, unions, ``Optional``, ``Literal``, generics by their origin), a
    test of a value and the annotation as text. Annotations that cannot be
    resolved or checked (``Any``, type variables, names not yet defined)
    check nothing."""
    checks: dict[str, tuple[Callable[[Any], bool], str]] = {}
    for klass in reversed(cls.__mro__):
        if not (isinstance(klass, type) and issubclass(klass, Entity)):
            continue
        module = sys.modules.get(klass.__module__)
        namespace = dict(vars(module)) if module is not None else {}
        for name, annotation in inspect.get_annotations(klass).items():
            if name not in cls._fields:
                continue
            try:
                resolved = (
                    eval(annotation, namespace, dict(vars(klass)))
                    if isinstance(annotation, str)
                    else annotation
                )
            except Exception:
                checks.pop(name, None)
                continue
            check = _check_for(resolved)
            if check is None:
                checks.pop(name, None)
            else:
                shown = annotation if isinstance(annotation, str) else repr(resolved)
                checks[name] = (check, shown.replace("typing.", ""))
    return checks


def _check_for(annotation: Any) -> Callable[[Any], bool] | None:
    """An ``isinstance`` test for ``annotation``, or ``None`` if it has none."""
    if annotation is Any or annotation is object:
        return None
    if annotation is None or annotation is type(None):
        return lambda value: value is None
    origin = get_origin(annotation)
    if origin is Annotated:
        return _check_for(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        parts = [_check_for(arg) for arg in get_args(annotation)]
        if any(part is None for part in parts):
            return None
        tests = [part for part in parts if part is not None]
        return lambda value: any(test(value) for test in tests)
    if origin is Literal:
        allowed = get_args(annotation)
        return lambda value: any(
            value == option and type(value) is type(option) for option in allowed
        )
    if origin is not None:
        return (
            (lambda value: isinstance(value, origin))
            if isinstance(origin, type)
            else None
        )
    if annotation is float:
        return lambda value: isinstance(value, int | float)
    if annotation is complex:
        return lambda value: isinstance(value, int | float | complex)
    if isinstance(annotation, type):
        return lambda value: isinstance(value, annotation)
    return None


def _is_classvar(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return get_origin(annotation) is ClassVar


def _is_entity_schema(target: Any) -> bool:
    if isinstance(target, list) and len(target) == 1:
        target = target[0]
    return isinstance(target, type) and issubclass(target, Entity)


def _name(function: Callable[[Any], Any]) -> str:
    return getattr(function, "__qualname__", None) or repr(function)


def _fresh(default: Any) -> Any:
    return copy.copy(default) if isinstance(default, _MUTABLE) else default


def _plain(value: Any) -> Any:
    if isinstance(value, Entity):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value
