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
- Instances are read-only, compare by value and have a readable repr; a
  copy or a pickle keeps the extra keys.
- Each subclass is a compiled record (a ``msgspec.Struct``, made by
  ``_EntityMeta``): an instance is made from its values in one C call, its
  fields are slots, and equality and repr run in C. msgspec only holds the
  values: the fields, defaults, deserializers and checks are the seed's
  rules, as above, and no conversion of msgspec's is applied.
- The constructor is checked, by a type checker and at runtime alike
  (``typing.dataclass_transform``): ``Post(id=1)`` for a ``str`` field is a
  mypy error and, at runtime, an :class:`EntityError` naming the field;
  an unknown field, or a missing one that has no default, is a ``TypeError``
  as for any Python call.
- Data from a server is checked too: each field ``schema`` does not name
  must hold a value of its annotated type, by msgspec's rules with no
  conversion (``typed_fields``); a value of another type is an
  :class:`EntityError` naming the entity, the field and the two types,
  never the value. An entity whose data is known to be clean says
  ``check_types = False``.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    NamedTuple,
    Self,
    TypeVar,
    dataclass_transform,
    get_origin,
)

import msgspec

from .._base.errors import RestwireError, UsageError
from .typed_fields import (
    FieldCheck,
    failed_field,
    field_check,
    isinstance_check,
    resolved_annotations,
)

__all__ = [
    "Entity",
    "EntityError",
    "EntityKey",
    "build",
    "check_data",
    "data_check",
    "deserializer_failed",
]

#: An entity record's place in the store: its class's ``key`` and its ``pk()``
#: (a record model's too: its ``__restwire_key__`` and primary key as text).
EntityKey = tuple[str, str]

EntityT = TypeVar("EntityT", bound="Entity")

_RESERVED = frozenset(("key", "schema", "check_types"))
#: A plan's data check, before it is first worked out.
_PENDING: Any = object()
_MUTABLE = (list, dict, set)
_NO_EXTRA: Mapping[str, Any] = MappingProxyType({})
#: A record's fields as a dict, and as a tuple in field order (C, shallow).
_asdict: Callable[[Any], dict[str, Any]] = msgspec.structs.asdict
_astuple: Callable[[Any], tuple[Any, ...]] = msgspec.structs.astuple


class _Plan(NamedTuple):
    schema: Mapping[str, Any]
    #: (field, deserializer, the class whose instances pass as they are, or None)
    deserializers: tuple[tuple[str, Callable[[Any], Any], type | None], ...]
    #: the fields a deserializer converts (those of ``deserializers``)
    converted: frozenset[str]
    nested: dict[str, Any]
    field_names: frozenset[str]
    #: each field's default, in field order (a list, dict or set is copied
    #: for each record that takes it)
    defaults: dict[str, Any]
    #: where ``id`` is among the fields, in order; -1 if it is not a field
    id_column: int
    #: each field's place in field order
    field_index: dict[str, int]
    #: how data is checked against the annotations, worked out at the
    #: first record (names are resolved by then): a one-item list holding
    #: a ``FieldCheck``, ``None`` (nothing to check) or ``_PENDING``
    check: list[Any]


class EntityError(RestwireError):
    """Data cannot become an entity: a value of the wrong type, a
    deserializer that failed, or data of the wrong shape.

    ``value`` is the value at fault, shown in the message; ``None`` for
    an error that names the value's type instead (``show_value=False``:
    data from a server may hold what is not for a log)."""

    def __init__(
        self,
        entity: str,
        field: str | None,
        value: Any,
        problem: str,
        *,
        show_value: bool = True,
    ) -> None:
        self.entity = entity
        self.field = field
        self.value = value if show_value else None
        self.request: str | None = None
        where = f"{entity}.{field}" if field else entity
        self.detail = f"{where}: {problem}"
        if show_value:
            shown = repr(value)
            if len(shown) > 120:
                shown = shown[:117] + "..."
            self.detail += f" (value {shown})"
        super().__init__(self.detail)

    def from_request(self, request: str) -> EntityError:
        """This error, naming the request (``"GET https://..."``) it came from."""
        self.request = request
        self.args = (f"{request}: {self.detail}",)
        return self


def _is_classvar(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return get_origin(annotation) is ClassVar


def _own_annotations(namespace: dict[str, Any]) -> dict[str, Any]:
    """The annotations a class body declares, from its namespace.

    From Python 3.14 annotations are evaluated lazily (PEP 649, 749): a body
    without ``from __future__ import annotations`` holds an annotate
    function instead of ``__annotations__``. It is called for references
    (``annotationlib``'s documented way for a metaclass) and then dropped,
    so that the class, and msgspec, see the ``__annotations__`` the caller
    puts in its place. (Not run here: CI runs Python 3.11.)
    """
    if "__annotations__" in namespace:
        return dict(namespace["__annotations__"])
    try:
        import annotationlib  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return {}
    annotate = annotationlib.get_annotate_from_class_namespace(namespace)
    if annotate is None:
        return {}
    for name in ("__annotate_func__", "__annotate__"):
        namespace.pop(name, None)
    return dict(
        annotationlib.call_annotate_function(annotate, annotationlib.Format.FORWARDREF)
    )


_convert = msgspec.convert
_ValidationError = msgspec.ValidationError
_StructMeta = msgspec.StructMeta
#: Makes an instance from values in ``__struct_fields__`` order (or by
#: keyword) in C, past the checks of :meth:`_EntityMeta.__call__`: for data
#: the record path and the column path have already checked.
_make: Callable[..., Any] = _StructMeta.__call__
#: Sets a field, or an instance's ``_extra``, past the read-only ``__setattr__``.
_force_setattr: Callable[[Any, str, Any], None] = msgspec.structs.force_setattr


#: What an ``Entity`` has under these names, which a field would hide.
_ENTITY_OWN = {
    "pk": "the method that gives its primary key",
    "extra_fields": "its undeclared keys",
}


def _check_definition(
    name: str, namespace: Mapping[str, Any], annotations: Mapping[str, Any]
) -> None:
    """An ``Entity`` subclass's own definition, checked where it is written:
    no field hides ``pk()`` or ``extra_fields`` (a DRF ``pk`` field made
    every call fail with ``'int' object is not callable``), ``pk`` is a
    method, ``schema`` a mapping, ``key`` text and ``check_types`` a bool."""
    for field, what in _ENTITY_OWN.items():
        if field in annotations and not _is_classvar(annotations[field]):
            raise UsageError(
                f"{name}: a field cannot be named {field!r}: it is {what}; name "
                f"the field otherwise and rename the wire's key with "
                f"RenameKeys, like RenameKeys({{'id': {field!r}}})"
            )
    if "pk" in namespace and not callable(namespace["pk"]):
        raise UsageError(
            f"{name}: pk is the method that gives the primary key "
            f"(def pk(self) -> str: return self.{namespace['pk']!s:.40}), "
            f"not {type(namespace['pk']).__name__}"
        )
    checks = (
        ("schema", Mapping, "a mapping of field names to deserializers"),
        ("key", str, "the type's name in the store, as text"),
        ("check_types", bool, "True or False"),
    )
    for attribute, kind, what in checks:
        if attribute in namespace and not isinstance(namespace[attribute], kind):
            raise UsageError(
                f"{name}: {attribute} is {what}, not "
                f"{type(namespace[attribute]).__name__}"
            )


def _maker(cls: type[EntityT]) -> Callable[..., EntityT]:
    """``_make`` bound to ``cls``: called with a record's values in field
    order (a tuple, through ``itertools.starmap``, is passed on as it is)."""
    return _StructMeta.__call__.__get__(cls, type(cls))  # type: ignore[no-any-return]


class _EntityMeta(_StructMeta):
    """Makes each ``Entity`` subclass a compiled record (a ``msgspec.Struct``).

    It works out the fields the seed's rules give (annotated, not private,
    not ``key`` or ``schema``, not ``ClassVar``; a field redeclared without a
    default keeps the inherited one) and hands msgspec exactly those, each
    with a default: a required field's is ``None`` (its absence is checked
    by the constructor, and data lacking it reads ``None``, as before), a
    mutable one's a factory copying it. Every record can so be made from its
    values in field order by one C call.
    """

    def __new__(
        mcls,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        **kwargs: Any,
    ) -> Any:
        inherited: dict[str, Any] = {}
        required: set[str] = set()
        for base in reversed(bases):
            inherited.update(getattr(base, "_fields", {}))
            required.update(getattr(base, "_required", ()))
        own = _own_annotations(namespace)
        _check_definition(name, namespace, own)
        declared: dict[str, Any] = {}
        for field, annotation in own.items():
            if field.startswith("_") or field in _RESERVED or _is_classvar(annotation):
                continue
            declared[field] = annotation
            if field in namespace:
                required.discard(field)
                default = namespace[field]
            elif field in inherited:
                default = inherited[field]
            else:
                required.add(field)
                default = None
            if isinstance(default, _MUTABLE):
                namespace[field] = msgspec.field(
                    default_factory=functools.partial(copy.copy, default)
                )
            else:
                namespace[field] = default
            inherited[field] = default
        # msgspec sees the fields alone; the rest stays plain class attributes
        namespace["__annotations__"] = declared
        cls: Any = super().__new__(mcls, name, bases, namespace, **kwargs)
        if not hasattr(cls, "_plan"):
            return cls  # the compiled base itself
        if "key" not in namespace:
            cls.key = name
        cls._fields = MappingProxyType(
            {field: inherited[field] for field in cls.__struct_fields__}
        )
        cls._required = frozenset(required)
        cls._checks = None  # worked out at the first construction
        cls._plan()
        return cls

    def __call__(self, *args: Any, **fields: Any) -> Any:
        """The checked constructor: keywords only, every field known, the
        required ones given, each value of its annotated type."""
        cls: Any = self
        if args:
            raise UsageError(
                f"{cls.__name__}() takes keyword arguments only "
                f"({len(args)} positional given)"
            )
        unknown = fields.keys() - cls._fields.keys()
        if unknown:
            raise UsageError(f"{cls.__name__} has no field(s) {sorted(unknown)}")
        missing = cls._required - fields.keys()
        if missing:
            raise UsageError(f"{cls.__name__} needs field(s) {sorted(missing)}")
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
        return _make(cls, **fields)


if TYPE_CHECKING:
    # What type checkers see: a plain class whose fields ``dataclass_transform``
    # reads (keyword-only, read-only), as it always was.
    class _Record:
        pass

else:

    class _Record(msgspec.Struct, metaclass=_EntityMeta, dict=True):
        """The compiled base: ``dict=True`` holds an instance's extra keys."""

        _fields = MappingProxyType({})
        _required = frozenset()


@dataclass_transform(kw_only_default=True, frozen_default=True)
class Entity(_Record):
    """Base class of typed records kept once in a controller's store.

    Each subclass is a compiled record (a ``msgspec.Struct``): made, read,
    compared and shown in C, with restwire's rules (fields, defaults,
    deserializers, checks) on top.
    """

    #: The type's name in the store. Default: the class name.
    key: ClassVar[str] = "Entity"
    #: Field name to deserializer (callable or class), nested entity class, or
    #: ``[EntityClass]`` for a list of them.
    schema: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    #: Whether data from a server is checked against the fields'
    #: annotations (the fields ``schema`` does not name). ``False`` for data
    #: known to be clean: its records are made without the check.
    check_types: ClassVar[bool] = True

    _fields: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    _required: ClassVar[frozenset[str]] = frozenset()
    _compiled: ClassVar[_Plan | None] = None
    _checks: ClassVar[dict[str, tuple[Callable[[Any], bool], str]] | None] = None
    #: Set on a class (in its own ``__dict__``) once an instance of it is
    #: built with ``extra_fields``: until then none has any, and the store
    #: need not ask each record (see ``_store.store._merge``).
    _extras_made: ClassVar[bool] = False
    #: The keys that are not fields (see extra_fields): this, unless an
    #: instance has its own. Not annotated, so not a field.
    _extra = _NO_EXTRA

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
                raise UsageError(
                    f"{cls.__name__}.schema names {name!r}, which is not a field"
                )
            if _is_entity_schema(target):
                nested[name] = target
            elif callable(target):
                kind = target if isinstance(target, type) else None
                deserializers.append((name, target, kind))
            else:
                raise UsageError(
                    f"{cls.__name__}.schema[{name!r}] must be callable or an entity, "
                    f"not {target!r}"
                )
        fields = cls._fields
        plan = _Plan(
            schema,
            tuple(deserializers),
            frozenset(name for name, _, _ in deserializers),
            nested,
            frozenset(fields),
            dict(fields),
            list(fields).index("id") if "id" in fields else -1,
            {name: index for index, name in enumerate(fields)},
            [_PENDING],
        )
        cls._compiled = plan
        return plan

    @classmethod
    def from_data(cls, data: Mapping[str, Any], base: Self | None = None) -> Self:
        """An instance from parsed data, deserializers applied.

        With ``base``, fields missing from ``data`` keep ``base``'s values:
        a newer, partial fetch is merged over an older one field by field.
        Nested entity fields take the value ``data`` has (see the store).
        """
        if not isinstance(data, dict | Mapping):
            raise EntityError(
                cls.__name__,
                None,
                None,
                f"expected an object, got {type(data).__name__}",
                show_value=False,
            )
        plan = cls._plan()
        check_data(cls, plan, data)
        return build(cls, data, plan, base)

    def pk(self) -> str | None:
        """The primary key as text; default: the ``id`` field."""
        value = self.id if "id" in self._fields else None  # type: ignore[attr-defined]
        return None if value is None else str(value)

    @property
    def extra_fields(self) -> Mapping[str, Any]:
        """Keys of the data this entity was built from that are not fields."""
        return self._extra

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict (nested entities as dicts too)."""
        return {name: _plain(value) for name, value in _asdict(self).items()}

    def to_json(self) -> dict[str, Any]:
        """The fields, so an entity can be sent as a JSON body."""
        return self.to_dict()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __hash__(self) -> int:
        return hash((type(self), self.pk()))

    def __reduce__(self) -> tuple[Any, ...]:
        # msgspec's own passes the fields by position, which the checked
        # constructor refuses; this also keeps the extra keys
        return (_restore, (type(self), _astuple(self), dict(self._extra)))

    def __copy__(self) -> Self:
        return _restore(type(self), _astuple(self), self._extra)

    # Equality (same class, equal fields; extra keys aside) and the repr
    # (``Price(id='1', ...)``) are msgspec's, in C.
    if TYPE_CHECKING:

        def __eq__(self, other: object) -> bool: ...


def _restore(
    cls: type[EntityT], values: tuple[Any, ...], extra: Mapping[str, Any]
) -> EntityT:
    """An instance of ``cls`` from its field values and extra keys (a
    record's own read-only view is shared as it is; anything else, such as
    a pickle's dict, is copied into one)."""
    instance: EntityT = _make(cls, *values)
    if extra:
        if type(extra) is not MappingProxyType:
            extra = MappingProxyType(dict(extra))
        _force_setattr(instance, "_extra", extra)
    return instance


def data_check(cls: type[Entity], plan: _Plan) -> FieldCheck | None:
    """How data for ``cls`` is checked (worked out once per plan)."""
    check = plan.check[0]
    if check is _PENDING:
        check = plan.check[0] = (
            field_check(
                cls,
                plan.field_names - plan.schema.keys(),
                _entity_classes(cls),
            )
            if cls.check_types
            else None
        )
    return check  # type: ignore[no-any-return]


def check_data(cls: type[Entity], plan: _Plan, data: Mapping[str, Any]) -> None:
    """Refuse ``data`` whose values are not of ``cls``'s fields' types
    (those ``schema`` does not name): an :class:`EntityError` naming the
    entity, the field, and the types expected and given."""
    check = plan.check[0]
    if check is None:
        return
    if check is _PENDING:
        check = data_check(cls, plan)
        if check is None:
            return
    struct = check.struct
    if struct is not None:
        # (inline, not check.check(): a warm call stays in this file)
        try:
            _convert(data if type(data) is dict else dict(data), struct)
        except (_ValidationError, UnicodeEncodeError):
            pass  # (check.check names the field)
        else:
            if not check.python:
                return
    wrong = check.check(data)
    if wrong is not None:
        raise wrong_type(cls, check, wrong, data[wrong])


def wrong_type(
    cls: type[Entity], check: FieldCheck, name: str, value: Any
) -> EntityError:
    """The error for ``value``, not of the type of ``cls.name``."""
    return EntityError(
        cls.__name__,
        name,
        None,
        failed_field(check, cls.__name__, name, value),
        show_value=False,
    )


def build(
    cls: type[EntityT],
    data: Mapping[str, Any],
    plan: _Plan,
    base: EntityT | None = None,
) -> EntityT:
    """``cls.from_data`` without its checks, for callers that made them."""
    extra: Mapping[str, Any] = _NO_EXTRA if base is None else base._extra
    if data.keys() <= plan.field_names:
        if base is None:
            if not plan.deserializers:
                return _make(cls, **data)  # type: ignore[no-any-return]
            values = dict(data)
        else:
            values = {**_asdict(base), **data}
    else:
        values = {} if base is None else _asdict(base)
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
    instance: EntityT = _make(cls, **values)
    if extra:
        _force_setattr(instance, "_extra", extra)
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


def _annotation_checks(
    cls: type[Entity],
) -> dict[str, tuple[Callable[[Any], bool], str]]:
    """For each field whose annotation can be checked with ``isinstance``
    (classes, unions, ``Optional``, ``Literal``, generics by their origin), a
    test of a value and the annotation as text. Annotations that cannot be
    resolved or checked (``Any``, type variables, names not yet defined)
    check nothing."""
    checks: dict[str, tuple[Callable[[Any], bool], str]] = {}
    annotations = resolved_annotations(_entity_classes(cls), frozenset(cls._fields))
    for name, (annotation, text) in annotations.items():
        check = isinstance_check(annotation)
        if check is not None:
            checks[name] = (check, text)
    return checks


def _entity_classes(cls: type[Entity]) -> list[type]:
    """The entity classes ``cls`` is made of, base first."""
    return [
        klass
        for klass in reversed(cls.__mro__)
        if isinstance(klass, type) and issubclass(klass, Entity)
    ]


def _is_entity_schema(target: Any) -> bool:
    if isinstance(target, list) and len(target) == 1:
        target = target[0]
    return isinstance(target, type) and issubclass(target, Entity)


def _name(function: Callable[[Any], Any]) -> str:
    return getattr(function, "__qualname__", None) or repr(function)


def _plain(value: Any) -> Any:
    if isinstance(value, Entity):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value
