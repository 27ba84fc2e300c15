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
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple, Self, TypeVar, get_origin

from ._errors import RestwireError

__all__ = ["Entity", "EntityError", "build"]

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


class Entity:
    """Base class of typed records kept once in a controller's store."""

    #: The type's name in the store. Default: the class name.
    key: ClassVar[str] = "Entity"
    #: Field name to deserializer (callable or class), nested entity class, or
    #: ``[EntityClass]`` for a list of them.
    schema: ClassVar[Mapping[str, Any]] = MappingProxyType({})

    _fields: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    _compiled: ClassVar[_Plan | None] = None

    __slots__ = ("__dict__", "_extra")
    _extra: Mapping[str, Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "key" not in cls.__dict__:
            cls.key = cls.__name__
        fields: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            for name, annotation in inspect.get_annotations(klass).items():
                if (
                    name.startswith("_")
                    or name in _RESERVED
                    or _is_classvar(annotation)
                ):
                    continue
                fields[name] = klass.__dict__.get(name, fields.get(name))
        cls._fields = MappingProxyType(fields)
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
        unknown = set(fields) - set(self._fields)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field(s) {sorted(unknown)}")
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
    for name, deserialize, kind in plan.deserializers:
        if name not in data:
            continue
        value = values[name]
        if value is None or (kind is not None and type(value) is kind):
            continue
        try:
            values[name] = deserialize(value)
        except Exception as error:
            raise EntityError(
                cls.__name__,
                name,
                value,
                f"{_name(deserialize)} failed: {type(error).__name__}: {error}",
            ) from error
    instance = object.__new__(cls)
    _set_fields(instance, values)
    if extra:
        object.__setattr__(instance, "_extra", extra)
    return instance


#: Sets an instance's ``__dict__`` past the read-only ``__setattr__``.
_set_fields: Callable[[Entity, dict[str, Any]], None] = Entity.__dict__[
    "__dict__"
].__set__


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
