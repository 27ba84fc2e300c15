"""The models Python users already have, as schemas and as request bodies.

A **model** is a pydantic v2 ``BaseModel`` subclass, a dataclass, or a
``TypedDict``. As an endpoint's ``schema`` (alone, in ``[...]``, inside an
object schema, or as a field's deserializer in an ``Entity.schema``), the
value is validated into it by pydantic, through one ``TypeAdapter`` per type,
built when the endpoint is made and kept. A value that does not validate is
an :class:`EntityError` naming the model, the field's path (``items.0.title``)
and what was wrong; the controller adds the URL.

A model is a **value, not a record**, unless it declares its primary key
(``__restwire_pk__``: see below): a value is not normalized
into the store's records, so two endpoints returning the same object give
two instances. A result is still kept (``data_expiry_length``) and shared
like any other. A record model, or an :class:`Entity`, is kept once per
identity and updated by every response that holds it.

pydantic is optional (``pip install "restwire[models]"``) and imported only
when a model is used; dataclasses and TypedDicts go through it too, so every
model is validated by one engine, the same way.

As a request **body**, an ``Entity``, a pydantic model or a dataclass (or a
list of them) is sent as its JSON object, before any middleware runs, so key
casing and renaming apply to it as to a dict.

**Models as records.** A model is a value unless its class says which
field is its primary key, with the class attribute ``__restwire_pk__``::

    class Post(pydantic.BaseModel):
        __restwire_pk__ = "id"

        id: int
        title: str


    @dataclasses.dataclass
    class Point:
        __restwire_pk__: ClassVar[str] = "name"

        name: str
        x: float

Such a model is a **record**, kept like an ``Entity``: once per caller
identity under ``(key, pk)`` (``key`` is ``__restwire_key__``, default the
class name; ``pk`` the field's value as text), so every stored result that
holds it reads the newest instance, a delete (``Invalidate(Post)``) drops
it from stored lists, and a create joins them (``resource(new_items=)``).

Why a dunder class attribute naming a field:

- It reads the same in a pydantic model and a dataclass, and changes
  neither: pydantic and ``dataclasses`` both leave a dunder (or
  ``ClassVar``) attribute out of the fields, so the constructor, the JSON
  and the types are the model's own, and ``resource(schema=Post)`` is still
  a ``Resource[Post]`` whose values are ``Post`` instances.
- A field name, not a ``pk()`` method as ``Entity`` has: restwire reads the
  key from data that is not a whole model (a DELETE's params, a status
  body), which no model validates; and ``pk`` is a name APIs use for a field.
- Explicit: a model with an ``id`` field stays a value until it says
  otherwise (an embedded snapshot with an id is not a record).

What a record model guarantees, and what it does not:

- The instance stored is the one validated from the response: reading it
  back validates nothing again, and one read gives one instance per record.
  Instances are shared; treat them as read-only, as every stored value.
- A newer response **replaces** the whole record (a model is validated from
  a whole object; no partial instance exists to merge field by field). An
  API whose PATCH answers only the changed fields wants an ``Entity``.
- A response whose pk field is ``None`` or empty is an ``EntityError``
  naming the model (the controller adds the URL).
- Only the value itself, a list's items and the models an object schema
  names (``{"results": [Post]}``) are records. A record model held in a
  field of another model is part of that model's value, not a record of
  its own (normalizing inside a validated instance would mean rebuilding
  it on every read).
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import sys
import types
from collections.abc import Mapping
from typing import Any, NamedTuple, is_typeddict

from .._base.errors import UsageError, require
from .._base.http import Form
from .entity import Entity, EntityError

__all__ = [
    "ModelRecord",
    "is_model",
    "plain_body",
    "record_fields",
    "record_of",
    "validate",
    "validator",
]


def _is_pydantic_model(schema: type) -> bool:
    pydantic = sys.modules.get("pydantic")  # a BaseModel means it is imported
    return pydantic is not None and issubclass(schema, pydantic.BaseModel)


def is_model(schema: Any) -> bool:
    """Whether ``schema`` is a model class (not an ``Entity``)."""
    if not isinstance(schema, type) or issubclass(schema, Entity):
        return False
    return (
        is_typeddict(schema)
        or dataclasses.is_dataclass(schema)
        or _is_pydantic_model(schema)
    )


def _kind(schema: type) -> str:
    if is_typeddict(schema):
        return "TypedDict"
    if dataclasses.is_dataclass(schema):
        return "dataclass"
    return "pydantic model"


@functools.cache
def _adapter(schema: Any) -> Any:
    require("pydantic", f"the {_kind(schema)} schema {_name(schema)}")
    import pydantic

    if sys.version_info < (3, 12):
        schema = _portable(schema)
    try:
        adapter = pydantic.TypeAdapter(schema)
        if not getattr(adapter, "pydantic_complete", True):
            # A name in an annotation pydantic could not resolve: say so now,
            # not at the first response.
            adapter.rebuild(raise_errors=True)
    except (pydantic.PydanticUserError, pydantic.PydanticUndefinedAnnotation) as error:
        raise UsageError(f"schema {_name(schema)}: {error}") from None
    return adapter


def _name(schema: Any) -> str:
    return getattr(schema, "__name__", None) or repr(schema)


@functools.cache
def _portable(annotation: Any) -> Any:
    """``annotation`` with each ``typing.TypedDict`` in it (nested in
    fields, lists, unions) remade as a ``typing_extensions.TypedDict``, the
    only kind pydantic takes before Python 3.12; keys stay required or not
    as they were."""
    import typing

    import typing_extensions

    if is_typeddict(annotation):
        if type(annotation).__module__ != "typing":
            return annotation
        hints = typing.get_type_hints(annotation, include_extras=True)
        required = annotation.__required_keys__
        marks = (
            typing.Required,
            typing.NotRequired,
            typing_extensions.Required,
            typing_extensions.NotRequired,
        )
        fields = {}
        for name, hint in hints.items():
            # A key's own mark wins: with string annotations, Python 3.11
            # counts a NotRequired key among __required_keys__.
            is_required = name in required
            while (origin := typing.get_origin(hint)) in marks:
                is_required = origin in (typing.Required, typing_extensions.Required)
                hint = typing.get_args(hint)[0]
            mark = (
                typing_extensions.Required
                if is_required
                else typing_extensions.NotRequired
            )
            fields[name] = mark[_portable(hint)]
        remade = typing_extensions.TypedDict(annotation.__name__, fields)  # type: ignore[misc]
        remade.__module__ = annotation.__module__
        return remade
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is None or not arguments:
        return annotation
    converted = tuple(_portable(argument) for argument in arguments)
    if converted == arguments:
        return annotation
    if origin is typing.Annotated:
        return typing.Annotated[(converted[0], *annotation.__metadata__)]
    if origin is types.UnionType:
        return functools.reduce(operator.or_, converted)
    if origin is typing.Union:
        return typing.Union[converted]  # noqa: UP007
    return (
        annotation.copy_with(converted)
        if hasattr(annotation, "copy_with")
        else (origin[converted])
    )


def validator(schema: type, many: bool = False) -> Any:
    """The ``TypeAdapter`` for ``schema`` (``list[schema]`` if ``many``),
    built once; a ``MissingExtra`` if pydantic is missing, a ``TypeError``
    if it cannot take the schema."""
    return _adapter(list[schema] if many else schema)  # type: ignore[valid-type]


def validate(schema: type, value: Any, many: bool = False) -> Any:
    """``value`` validated into ``schema`` (a list of it if ``many``)."""
    import pydantic

    try:
        return validator(schema, many).validate_python(value)
    except pydantic.ValidationError as error:
        first = error.errors(include_url=False)[0]
        path = ".".join(str(part) for part in first["loc"])
        more = error.error_count() - 1
        problem = first["msg"] + (f" (and {more} more)" if more else "")
        raise EntityError(
            schema.__name__, path or None, first.get("input"), problem
        ) from None


def _plain(value: Any) -> Any:
    if isinstance(value, Entity):
        return value.to_json()
    if (
        dataclasses.is_dataclass(value)
        and not isinstance(value, type | Form)  # a Form is sent as a form
    ):
        return dataclasses.asdict(value)
    if _is_pydantic_model(type(value)):
        return value.model_dump(mode="json", by_alias=True)
    return value


def plain_body(body: Any) -> Any:
    """``body`` with an entity or model (or a list of them) as its JSON
    object; any other body as it is."""
    if body is None or isinstance(body, Mapping | bytes | str):
        return body
    if isinstance(body, list | tuple):
        return [_plain(item) for item in body] if body else body
    return _plain(body)


# -- models as records ------------------------------------------------------------


class ModelRecord(NamedTuple):
    """How a record model is kept: its ``key`` in the store, the field that
    is its primary key, the names that field may have in data (the field's
    own, and a pydantic alias), and every field name."""

    key: str
    pk: str
    wire_names: tuple[str, ...]
    fields: frozenset[str]


def record_of(schema: Any) -> ModelRecord | None:
    """The record declaration of ``schema``, if it is a model that declares a
    primary key (``__restwire_pk__``); ``None`` for any other schema.

    A declaration that is not a text naming a field, or a ``__restwire_key__``
    that is not text, is a ``TypeError`` naming the class: raised where an
    endpoint is made (``check_schema``). Worked out once per class."""
    return _record_of(schema) if isinstance(schema, type) else None


@functools.cache
def _record_of(schema: type) -> ModelRecord | None:
    if not is_model(schema):
        return None
    pk = getattr(schema, "__restwire_pk__", None)
    if pk is None:
        return None
    name = schema.__name__
    if dataclasses.is_dataclass(schema):
        fields = frozenset(field.name for field in dataclasses.fields(schema))
        aliases: tuple[str, ...] = ()
    elif "pydantic" in sys.modules and hasattr(schema, "model_fields"):
        model_fields = schema.model_fields
        fields = frozenset(model_fields)
        info = model_fields.get(pk)
        aliases = tuple(
            {
                alias: None
                for alias in (
                    getattr(info, "validation_alias", None),
                    getattr(info, "alias", None),
                )
                if isinstance(alias, str) and alias != pk
            }
        )
    else:  # a TypedDict cannot carry the attribute; nothing else is a model
        raise UsageError(f"{name}.__restwire_pk__: a TypedDict cannot be a record")
    if type(pk) is not str or pk not in fields:
        raise UsageError(
            f"{name}.__restwire_pk__ must name one of its fields "
            f"{sorted(fields)}, not {pk!r}"
        )
    key = getattr(schema, "__restwire_key__", name)
    if type(key) is not str or not key:
        raise UsageError(f"{name}.__restwire_key__ must be text, not {key!r}")
    return ModelRecord(key, pk, (pk, *aliases), fields)


def record_fields(cls: type) -> frozenset[str]:
    """The field names of a record class: an ``Entity``'s or a record model's."""
    record = record_of(cls)
    if record is not None:
        return record.fields
    plan = getattr(cls, "_plan", None)
    return plan().field_names if plan is not None else frozenset()
