"""``resource()`` and ``hookify_resource()``: the endpoints of one kind of record.

``resource(path="/posts/:id", schema=Post, endpoint=base)`` builds six
endpoints from ``base``, so a middleware stack shared by ``base`` reaches all
of them:

| member | method | path | schema |
|---|---|---|---|
| ``get`` | GET | ``/posts/:id`` | ``Post`` |
| ``get_list`` | GET | ``/posts/`` (the last placeholder removed) | ``[Post]`` |
| ``create`` | POST | ``/posts/`` | ``Post`` |
| ``update`` | PUT | ``/posts/:id`` | ``Post`` |
| ``partial_update`` | PATCH | ``/posts/:id`` | ``Post`` |
| ``delete`` | DELETE | ``/posts/:id`` | ``Invalidate(Post)`` |

The schema is a **record** type (an ``Entity``, or a pydantic model or
dataclass that declares ``__restwire_pk__``: see ``_model_records``), or a
value type (any other model, or schema).

With records, mutations update the stored record; ``delete`` removes it, so
no later read of an item or a list shows it; a record ``create`` made joins
the stored lists it belongs in (``new_items``: see :func:`resource`); no
request is needed to see any of it.

With values, which the store cannot update, ``delete`` has no schema, and
every mutation (``create``, ``update``, ``partial_update``, ``delete``)
that succeeds expires the stored results of ``get`` and ``get_list``,
whatever their params, for the caller's identity (``RestEndpoint.expires``):
the next read fetches, so nothing stale is returned; other callers keep
theirs.

A resource is typed by its schema: ``resource(path=..., schema=Post)`` is a
``Resource[Post]``, whose ``get`` is a ``RestEndpoint[Post]`` and whose
``get_list`` is a ``RestEndpoint[list[Post]]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, overload

from ._endpoint import RestEndpoint
from ._entity import Entity
from ._model_records import record_of
from ._store import Invalidate

__all__ = ["HookifiedResource", "Resource", "hookify_resource", "resource"]

if TYPE_CHECKING:
    from typing_extensions import TypeVar

    #: The record type; a bare ``Resource`` is ``Resource[Any]`` (PEP 696).
    ItemT = TypeVar("ItemT", default=Any)
else:
    from typing import TypeVar

    ItemT = TypeVar("ItemT")

_LAST_GROUP = re.compile(r"\{[^{}]*\}\s*$")
_PLACEHOLDER = re.compile(r"(?<!\\):[A-Za-z_][A-Za-z0-9_]*")


def list_path(path: str) -> str:
    """``path`` without its last placeholder: ``/posts/:id`` -> ``/posts/``."""
    if _LAST_GROUP.search(path):
        return _LAST_GROUP.sub("", path)
    matches = list(_PLACEHOLDER.finditer(path))
    if not matches:
        raise ValueError(f"resource path {path!r} has no placeholder for the item")
    return path[: matches[-1].start()]


@dataclass(frozen=True)
class Resource(Generic[ItemT]):
    """The six endpoints of one resource."""

    get: RestEndpoint[ItemT]
    get_list: RestEndpoint[list[ItemT]]
    create: RestEndpoint[ItemT]
    update: RestEndpoint[ItemT]
    partial_update: RestEndpoint[ItemT]
    delete: RestEndpoint[Any]


NewItems = Literal["end", "start"] | None


@overload
def resource(
    *,
    path: str,
    schema: type[ItemT],
    endpoint: RestEndpoint[Any] | None = None,
    new_items: NewItems = "end",
    **options: Any,
) -> Resource[ItemT]: ...
@overload
def resource(
    *,
    path: str,
    schema: Any,
    endpoint: RestEndpoint[Any] | None = None,
    new_items: NewItems = "end",
    **options: Any,
) -> Resource[Any]: ...
def resource(
    *,
    path: str,
    schema: Any,
    endpoint: RestEndpoint[Any] | None = None,
    new_items: NewItems = "end",
    **options: Any,
) -> Resource[Any]:
    """The endpoints of the records at ``path``, built from ``endpoint``.

    ``options`` (expiry, poll frequency, middleware, ...) go to every member.

    ``new_items``: where a record ``create`` made joins the stored
    ``get_list`` results of the caller's identity whose params all match
    the create's params, body or the record the server answered (a list
    fetched with ``{"user_id": 1}`` gains a post created with ``user_id``
    1; one fetched with no params gains every created post): ``"end"``
    (the default) or ``"start"``; ``None`` leaves stored lists as they
    are. Only records join (an ``Entity``, or a model that declares
    ``__restwire_pk__``); with any other schema, a value, each mutation
    expires the caller's stored ``get`` and ``get_list`` results instead.
    """
    if new_items not in ("end", "start", None):
        raise ValueError(f"new_items must be 'end', 'start' or None, not {new_items!r}")
    base = endpoint if endpoint is not None else RestEndpoint()
    items = list_path(path)
    name = getattr(schema, "__name__", "resource")

    def member(
        member_name: str, method: str, member_path: str, shape: Any, **more: Any
    ) -> RestEndpoint[Any]:
        return base.extend(
            path=member_path,
            method=method,
            schema=shape,
            name=f"{name}.{member_name}",
            **options,
            **more,
        )

    get = member("get", "GET", path, schema)
    get_list = member("get_list", "GET", items, [schema])
    entity = isinstance(schema, type) and issubclass(schema, Entity)
    records = entity or record_of(schema) is not None
    if records:
        joins = {"adds_to": (get_list, new_items)} if new_items else {}
        expires: dict[str, Any] = {}
    else:
        joins, expires = {}, {"expires": (get, get_list)}
    return Resource(
        get=get,
        get_list=get_list,
        create=member("create", "POST", items, schema, **joins, **expires),
        update=member("update", "PUT", path, schema, **expires),
        partial_update=member("partial_update", "PATCH", path, schema, **expires),
        delete=member(
            "delete", "DELETE", path, Invalidate(schema) if records else None, **expires
        ),
    )


RequestInit = Mapping[str, Any]


EndpointT = TypeVar("EndpointT", bound=RestEndpoint[Any])


def with_init(endpoint: EndpointT, init: RequestInit) -> EndpointT:
    """``endpoint`` extended with request options, as ``extend`` takes them:
    ``headers`` merged by the one rule (``_header_merge``: added, overriding
    name by name, ``None`` removing one) and, being the caller's, kept to
    the call's origin as credentials; any other endpoint option replaces
    the endpoint's."""
    if not isinstance(init, Mapping):
        raise TypeError(f"use_init() must return a mapping, got {init!r}")
    options = dict(init)
    headers = options.pop("headers", None)
    if headers:
        options["headers"] = headers  # extend merges them
        options["sensitive_headers"] = (
            *options.get("sensitive_headers", ()),
            *(name for name, value in headers.items() if value is not None),
        )
    extended: EndpointT = endpoint.extend(**options)
    return extended


class HookifiedResource(Generic[ItemT]):
    """The seed's ``hookifyResource``: each ``use_*()`` calls ``use_init()``
    then and there, and returns the member with the options it returned.

    The seed's hooks must run during a render; the Python counterpart is to
    call ``use_*()`` where ``use_init`` can see its source, for example
    inside the ``contextvars`` context that holds the current user's token.
    """

    def __init__(
        self, resource: Resource[ItemT], use_init: Callable[[], RequestInit]
    ) -> None:
        self.resource = resource
        self.use_init = use_init

    def _use(self, endpoint: EndpointT) -> EndpointT:
        return with_init(endpoint, self.use_init())

    def use_get(self) -> RestEndpoint[ItemT]:
        return self._use(self.resource.get)

    def use_get_list(self) -> RestEndpoint[list[ItemT]]:
        return self._use(self.resource.get_list)

    def use_create(self) -> RestEndpoint[ItemT]:
        return self._use(self.resource.create)

    def use_update(self) -> RestEndpoint[ItemT]:
        return self._use(self.resource.update)

    def use_partial_update(self) -> RestEndpoint[ItemT]:
        return self._use(self.resource.partial_update)

    def use_delete(self) -> RestEndpoint[Any]:
        return self._use(self.resource.delete)


def hookify_resource(
    resource: Resource[ItemT], use_init: Callable[[], RequestInit]
) -> HookifiedResource[ItemT]:
    """A resource whose members are taken with ``use_get()``, ``use_create()``..."""
    return HookifiedResource(resource, use_init)
