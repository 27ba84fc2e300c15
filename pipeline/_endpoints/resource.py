"""``resource()`` and ``hookify_resource()``: the endpoints of one kind of record.

``resource(path="/posts/:id", schema=Post, endpoint=base)`` builds six
endpoints from ``base``, so a middleware stack shared by ``base`` reaches all
of them:

| member | method | path | schema |
|---|---|---|---|
| ``get`` | GET | ``/posts/:id`` | ``Post`` |
| ``get_list`` | GET | ``/posts/`` (the item taken out: :func:`list_path`) | ``[Post]`` |
| ``create`` | POST | ``/posts/`` | ``Post`` |
| ``update`` | PUT | ``/posts/:id`` | ``Post`` |
| ``partial_update`` | PATCH | ``/posts/:id`` | ``Post`` |
| ``delete`` | DELETE | ``/posts/:id`` | ``Invalidate(Post)`` |

The item is the path's last placeholder, or its last optional group
holding one; what follows it in its segment stays on the list's path, so
``/Messages{/:Sid}.json`` and ``/Messages/:Sid.json`` list and create at
``/Messages.json`` and get at ``/Messages/SM1.json``.

The writes of one record need its params even where ``path`` makes them
optional (``/posts{/:id}``: their path is ``/posts/:id``), so a write
called without them is a ``ParameterError`` before anything is sent, not
a write to the whole collection; a call meant for the collection is an
endpoint of its own.

The schema is a **record** type (an ``Entity``, or a pydantic model or
dataclass that declares ``__restwire_pk__``: see ``_store.models``), or a
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

A list wrapped in an envelope (Stripe's ``{"object": "list", "data": [...],
"has_more": true}``, Django REST framework's ``{"count", "next",
"previous", "results"}``, fastapi-pagination's ``{"items", "total", ...}``)
is said with ``results="data"``: ``get_list`` then gives a page, as
``controller.paginate`` does (``restwire.Page``: the items under
``results``, the envelope's other fields beside them), and its schema is
``paged(Post)``. ``pagination=`` (a ``BodyPagination``) also says where the
next page is, so ``paginate(posts.get_list)`` follows it. Creates join the
page's items, deletes leave them, as they do a bare list.

A resource is typed by its schema: ``resource(path=..., schema=Post)`` is a
``Resource[Post]``, whose ``get`` is a ``RestEndpoint[Post]`` and whose
``get_list`` is a ``RestEndpoint[list[Post]]``; with ``results=`` (or
``pagination=``) it is a ``Resource[Post, Page[Post]]``, whose ``get_list``
is a ``RestEndpoint[Page[Post]]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Generic, Literal, Unpack, overload

from .._base.errors import SettingError, UsageError
from .._chain.stack import Stack
from .._store.entity import Entity
from .._store.models import record_of
from .._store.schemas import Invalidate
from .._wire.params import PathTemplate
from .endpoint import RestEndpoint
from .options import ResourceOptions
from .pages import Envelope, Page, paged

__all__ = ["HookifiedResource", "Resource", "hookify_resource", "resource"]

if TYPE_CHECKING:
    from typing_extensions import TypeVar

    #: The record type; a bare ``Resource`` is ``Resource[Any]`` (PEP 696).
    ItemT = TypeVar("ItemT", default=Any)
    #: What ``get_list`` gives: a list of records unless an envelope
    #: wraps it (then a ``Page`` of them).
    ListT = TypeVar("ListT", default=list[ItemT])
else:
    from typing import TypeVar

    ItemT = TypeVar("ItemT")
    ListT = TypeVar("ListT")

#: What names the item in a path: an optional group holding a placeholder
#: (``{/:id}``), or a bare placeholder; a ``\\:`` (a literal colon) is
#: matched first so that it is never taken for one.
_ITEM = re.compile(r"\\:|\{[^{}]*\}|:[A-Za-z_][A-Za-z0-9_]*")
_PLACEHOLDER = re.compile(r"(?<!\\):[A-Za-z_]")
#: An optional group, ``{...}``.
_GROUP = re.compile(r"\{[^{}]*\}")


def item_path(path: str) -> str:
    """``path`` with its last optional group made required, for the writes
    of one record: ``/posts{/:id}`` -> ``/posts/:id``, so an ``update``,
    ``partial_update`` or ``delete`` called without the item's params is
    a ``ParameterError`` before anything is sent, never a write to the
    whole collection."""
    groups = list(_GROUP.finditer(path))
    if not groups or not _PLACEHOLDER.search(groups[-1].group()):
        return path
    last = groups[-1]
    return path[: last.start()] + last.group()[1:-1] + path[last.end() :]


def list_path(path: str) -> str:
    """``path`` without the item: the last placeholder, or the last group
    that holds one, taken out, keeping what follows it in its own segment.

    ``/posts/:id`` -> ``/posts/``; ``/posts{/:id}`` -> ``/posts``;
    ``/Messages{/:Sid}.json`` and ``/Messages/:Sid.json`` ->
    ``/Messages.json``. A bare placeholder that starts its segment and is
    followed by text in the same segment (a suffix such as ``.json``) goes
    with the slash before it; text after a slash (``/:username/``) goes
    with the placeholder, as the list of ``/posts/:id/`` is ``/posts/``.
    """
    PathTemplate.parse(path)  # a malformed template: the parser's error
    item: re.Match[str] | None = None
    for match in _ITEM.finditer(path):
        token = match.group(0)
        if token == "\\:" or (
            token.startswith("{") and _PLACEHOLDER.search(token) is None
        ):
            continue  # a literal colon, or a group with no placeholder
        item = match
    if item is None:
        raise SettingError(f"resource path {path!r} has no placeholder for the item")
    head, rest = path[: item.start()], path[item.end() :]
    if item.group(0).startswith("{"):
        return head + rest
    if rest and not rest.startswith("/") and (head == "" or head.endswith("/")):
        return head[:-1] + rest  # the item's segment, its suffix kept
    return head


@dataclass(frozen=True)
class Resource(Generic[ItemT, ListT]):
    """The six endpoints of one resource."""

    get: RestEndpoint[ItemT]
    get_list: RestEndpoint[ListT]
    create: RestEndpoint[ItemT]
    update: RestEndpoint[ItemT]
    partial_update: RestEndpoint[ItemT]
    delete: RestEndpoint[Any]

    @property
    def endpoints(self) -> tuple[RestEndpoint[Any], ...]:
        """The six endpoints, in the order above."""
        return tuple(getattr(self, field.name) for field in fields(self))

    if not TYPE_CHECKING:

        def __class_getitem__(cls, params):
            return super().__class_getitem__(_padded(params))


def _padded(params: Any) -> Any:
    """A resource's type arguments at run time, where ``TypeVar`` has no
    default before Python 3.13: ``Resource[Post]`` is
    ``Resource[Post, list[Post]]``."""
    return params if isinstance(params, tuple) else (params, list[params])


NewItems = Literal["end", "start"] | None


@overload
def resource(
    *,
    path: str,
    schema: type[ItemT],
    endpoint: RestEndpoint[Any] | None = None,
    new_items: NewItems = "end",
    results: None = None,
    pagination: None = None,
    **options: Unpack[ResourceOptions],
) -> Resource[ItemT]: ...
@overload
def resource(
    *,
    path: str,
    schema: type[ItemT],
    endpoint: RestEndpoint[Any] | None = None,
    new_items: NewItems = "end",
    results: str,
    pagination: Envelope | None = None,
    **options: Unpack[ResourceOptions],
) -> Resource[ItemT, Page[ItemT]]: ...
@overload
def resource(
    *,
    path: str,
    schema: type[ItemT],
    endpoint: RestEndpoint[Any] | None = None,
    new_items: NewItems = "end",
    results: str | None = None,
    pagination: Envelope,
    **options: Unpack[ResourceOptions],
) -> Resource[ItemT, Page[ItemT]]: ...
@overload
def resource(
    *,
    path: str,
    schema: Any,
    endpoint: RestEndpoint[Any] | None = None,
    new_items: NewItems = "end",
    results: str | None = None,
    pagination: Envelope | None = None,
    **options: Unpack[ResourceOptions],
) -> Resource[Any, Any]: ...
def resource(
    *,
    path: str,
    schema: Any,
    endpoint: RestEndpoint[Any] | None = None,
    new_items: NewItems = "end",
    results: str | None = None,
    pagination: Envelope | None = None,
    **options: Unpack[ResourceOptions],
) -> Resource[Any, Any]:
    """The endpoints of the records at ``path``, built from ``endpoint``.

    ``options`` (expiry, poll frequency, middleware, ...) go to every
    member: any of :class:`~restwire.EndpointOptions` but those ``resource``
    sets itself (``path``, ``method``, ``name``, ``adds_to``, ``expires``).

    ``new_items``: where a record ``create`` made joins the stored
    ``get_list`` results of the caller's identity whose params all match
    the create's params, body or the record the server answered (a list
    fetched with ``{"user_id": 1}`` gains a post created with ``user_id``
    1; one fetched with no params gains every created post): ``"end"``
    (the default) or ``"start"``; ``None`` leaves stored lists as they
    are. Only records join (an ``Entity``, or a model that declares
    ``__restwire_pk__``); with any other schema, a value, each mutation
    expires the caller's stored ``get`` and ``get_list`` results instead.
    A page joins only where the listing ends (``"end"``: a page with no
    next page) or starts (``"start"``: not a later page of ``paginate``).

    ``results``: the envelope's field that holds a list's items (``"data"``,
    ``"results"``, ``"items"``); ``None`` (the default) for a bare list.
    ``pagination``: a ``BodyPagination`` saying where the next page is
    (its ``results`` is the envelope's; give ``results=`` too only if it
    agrees). Either makes ``get_list`` give a page; the envelope is read
    outermost on ``get_list``'s stack, so its fields are named as the
    other middleware (key casing, say) leave them.
    """
    if new_items not in ("end", "start", None):
        raise SettingError(
            f"new_items must be 'end', 'start' or None, not {new_items!r}"
        )
    base = endpoint if endpoint is not None else RestEndpoint()
    items, item = list_path(path), item_path(path)
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
    envelope = _envelope(results, pagination)
    if envelope is None:
        get_list = member("get_list", "GET", items, [schema])
    else:
        get_list = member("get_list", "GET", items, paged(schema))
        get_list = get_list.extend(middleware=Stack(envelope, get_list.middleware))
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
        update=member("update", "PUT", item, schema, **expires),
        partial_update=member("partial_update", "PATCH", item, schema, **expires),
        delete=member(
            "delete", "DELETE", item, Invalidate(schema) if records else None, **expires
        ),
    )


def _envelope(results: str | None, pagination: Envelope | None) -> Envelope | None:
    """The middleware that unwraps ``get_list``'s envelope, if it has one;
    a ``ValueError`` for options that do not agree."""
    if pagination is None:
        return None if results is None else Envelope(results)
    if not isinstance(pagination, Envelope):
        raise UsageError(
            f"pagination must be a BodyPagination (an Envelope), not {pagination!r}"
        )
    if results is not None and results != pagination.results:
        raise SettingError(
            f"results={results!r} disagrees with the pagination's "
            f"results={pagination.results!r}; give one of them"
        )
    return pagination


RequestInit = Mapping[str, Any]


EndpointT = TypeVar("EndpointT", bound=RestEndpoint[Any])


def with_init(endpoint: EndpointT, init: RequestInit) -> EndpointT:
    """``endpoint`` extended with request options, as ``extend`` takes them:
    ``headers`` merged by the one rule (``options``: added, overriding
    name by name, ``None`` removing one) and, being the caller's, kept to
    the call's origin as credentials; any other endpoint option replaces
    the endpoint's."""
    if not isinstance(init, Mapping):
        raise UsageError(f"use_init() must return a mapping, got {init!r}")
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


class HookifiedResource(Generic[ItemT, ListT]):
    """A resource whose each ``use_*()`` calls ``use_init()`` then and
    there, and returns the member with the options it returned.

    Call ``use_*()`` where ``use_init`` can see its source, for example
    inside the ``contextvars`` context that holds the current user's token.
    """

    if not TYPE_CHECKING:

        def __class_getitem__(cls, params):
            return super().__class_getitem__(_padded(params))

    def __init__(
        self, resource: Resource[ItemT, ListT], use_init: Callable[[], RequestInit]
    ) -> None:
        self.resource = resource
        self.use_init = use_init

    def _use(self, endpoint: EndpointT) -> EndpointT:
        return with_init(endpoint, self.use_init())

    def use_get(self) -> RestEndpoint[ItemT]:
        return self._use(self.resource.get)

    def use_get_list(self) -> RestEndpoint[ListT]:
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
    resource: Resource[ItemT, ListT], use_init: Callable[[], RequestInit]
) -> HookifiedResource[ItemT, ListT]:
    """A resource whose members are taken with ``use_get()``, ``use_create()``..."""
    return HookifiedResource(resource, use_init)
