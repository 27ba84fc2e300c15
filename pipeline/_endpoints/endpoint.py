"""``RestEndpoint``: what to call and how, as an immutable value.

An endpoint is built from keyword options, each with a default that a
subclass may change as a class attribute::

    class MyApi(RestEndpoint):
        url_prefix = "https://api.example.com"
        middleware = Stack(AccessToken(token_holder))

    get_post = MyApi(path="/posts/:id", schema=Post)

``extend(**options)`` and ``use(*middleware)`` return changed copies; nothing
changes an endpoint in place, so one base can be shared by every resource of
an API. ``process`` and ``parse_response`` may be given as options or
overridden as methods, as in the seed.

A call's URL is written from its params by ``_wire.params``: the path
template filled, the rest as the query in the endpoint's param style.
"""

from __future__ import annotations

import sys
import threading
import weakref
from collections.abc import Hashable, Mapping
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Self, Unpack, overload

from .._base.library import DEFAULT, Headers, Response, Timeout

if TYPE_CHECKING:
    # A default for the value type (PEP 696), so a bare ``RestEndpoint`` is
    # ``RestEndpoint[Any]`` even under mypy --strict; typing has it from 3.13.
    from typing_extensions import TypeVar
else:
    from typing import TypeVar

from .._base.errors import REDACTED, UsageError, redact_url
from .._base.forks import renewed_in_child
from .._base.http import SAFE_METHODS
from .._chain.exchange import CALL_HEADERS, call_headers
from .._chain.stack import Middleware, Stack
from .._store.entity import Entity
from .._store.schemas import Plan, plan_of
from .._wire.content import ContentKind, JsonContent, content_kind, is_json_body
from .._wire.params import (
    ParamStyle,
    PathTemplate,
    as_params,
    encode_query,
    join_url,
    query_pairs,
    styled_query,
)
from .events import EventSchemas
from .options import (
    CarriedOver,
    EndpointOptions,
    checked_options,
    merge_headers,
    merge_sensitive,
    warn_about_milliseconds,
)
from .pages import Page, PageSchema

__all__ = ["RestEndpoint", "not_an_endpoint"]

if TYPE_CHECKING:
    #: The value a call of the endpoint returns, given by its schema.
    ValueT = TypeVar("ValueT", covariant=True, default=Any)
else:
    ValueT = TypeVar("ValueT", covariant=True)
ItemT = TypeVar("ItemT")


class _Shape:
    """An endpoint's value shape. Equal parts make one shape object (see
    :func:`_shape_of`), so a shape compares and hashes by identity, in C:
    it keys every read from the store."""

    __slots__ = ("__weakref__", "parts")

    def __init__(self, parts: tuple[Any, ...]) -> None:
        self.parts = parts

    def __repr__(self) -> str:
        return f"<shape of {self.parts[0].__name__}>"


#: Every shape in use, by its parts: one object for equal parts (a shape no
#: endpoint or stored result holds any more goes).
_SHAPES: weakref.WeakValueDictionary[tuple[Any, ...], _Shape] = (
    weakref.WeakValueDictionary()
)
_SHAPES_LOCK = threading.Lock()
renewed_in_child(sys.modules[__name__], "_SHAPES_LOCK")


def _shape_of(parts: tuple[Any, ...]) -> _Shape:
    """The one shape of ``parts``."""
    with _SHAPES_LOCK:
        shape = _SHAPES.get(parts)
        if shape is None:
            shape = _SHAPES[parts] = _Shape(parts)
        return shape


def _frozen(schema: Any) -> Hashable:
    """``schema`` as a hashable value: lists and dicts as tuples."""
    if isinstance(schema, list):
        return ("list", *(_frozen(item) for item in schema))
    if isinstance(schema, Mapping):
        return (
            "dict",
            frozenset((name, _frozen(inner)) for name, inner in schema.items()),
        )
    try:
        hash(schema)
    except TypeError:
        return ("object", id(schema))
    return schema  # type: ignore[no-any-return]


class RestEndpoint(Generic[ValueT]):
    """An HTTP endpoint of a remote API: path template, options, middleware.

    Generic in the value a call returns, which its ``schema`` gives:
    ``schema=Post`` makes a ``RestEndpoint[Post]``, ``schema=[Post]`` a
    ``RestEndpoint[list[Post]]``, ``schema=paged(Post)`` a
    ``RestEndpoint[Page[Post]]``; no schema (or an object schema) a
    ``RestEndpoint[Any]``. Controllers return that type.

    Its other options, with their types and defaults, are those of
    :class:`~restwire.EndpointOptions`; a subclass may change a default as
    a class attribute.
    """

    #: The names ``__init__`` and ``extend`` accept: ``schema`` and those of
    #: :class:`~restwire.EndpointOptions`, which says what each takes.
    OPTIONS: ClassVar[frozenset[str]] = frozenset(
        {
            "schema",
            *EndpointOptions.__required_keys__,
            *EndpointOptions.__optional_keys__,
        }
    )

    path: str = ""
    url_prefix: str = ""
    method: str = "GET"
    schema: Any = None
    #: What a 4xx or 5xx body is validated into, as ``error.data``: an
    #: ``Entity``, a model (pydantic, dataclass, TypedDict) or any schema
    #: ``schema`` takes but ``Invalidate``; ``None`` (the default) for none.
    #: A body that does not validate leaves ``data`` ``None``.
    error_schema: Any = None
    #: How the response body is read: a :class:`Content`, or the name of a
    #: built-in one (``"json"``, ``"text"``, ``"blob"``, ``"bytes"``,
    #: ``"stream"``), resolved to the kind when the endpoint is made.
    content: ContentKind = content_kind("json")
    #: Seconds a fetched value stays fresh: ``get`` answers from the store
    #: until then.
    data_expiry_length: float = 60.0
    #: Seconds an error stays cached before a ``get`` tries again.
    error_expiry_length: float = 1.0
    #: Seconds between polls of ``subscribe``, or ``None``.
    poll_frequency: float | None = None
    middleware: Stack = Stack()
    name: str | None = None
    #: Headers every call sends (values never shown in a repr).
    headers: Mapping[str, str] | None = None
    follow_redirects: bool = True
    max_redirects: int = 20
    #: Largest body read into memory (every content but ``"stream"``), in
    #: bytes; more is a ``BodyTooLarge`` error, not exhausted memory. ``None``
    #: for no limit. Stream or ``download`` larger bodies.
    max_body_size: int | None = 100 * 1024 * 1024
    #: Header names kept to the call's origin (see ``Exchange.mark_sensitive``).
    sensitive_headers: frozenset[str] = frozenset()
    #: This endpoint's timeouts: seconds (a number or a ``timedelta``) for
    #: each of httpx's four, or an ``httpx.Timeout``; ``None``, the default,
    #: keeps the client's.
    timeout: Timeout | None = None
    #: For a create: the list endpoint whose stored results the created
    #: record joins, and where (``(posts.get_list, "end")``; ``"start"``
    #: prepends), in the caller's identity, for each stored list whose
    #: params the create's params, body or record all match. ``resource()``
    #: sets it on its ``create`` (``new_items=``); ``None`` for none.
    adds_to: tuple[RestEndpoint[Any], str] | None = None
    #: For a mutation: the reads whose stored results a successful call
    #: expires, whatever their params, for the caller's identity only (other
    #: callers' results stay); the next ``get`` of each fetches. ``resource()``
    #: sets it on the mutations of a resource whose values are not records
    #: (a model without ``__restwire_pk__``); ``None`` for none.
    expires: tuple[RestEndpoint[Any], ...] | None = None
    #: How lists and dicts in the query and in ``Form`` bodies are written:
    #: ``"repeat"`` (``a=1&a=2``), ``"brackets"`` (``a[]=1``, ``m[k]=v``),
    #: ``"indexed"`` (``a[0]=1``) or ``"comma"`` (``a=1,2``).
    param_style: ParamStyle = "repeat"

    @overload
    def __init__(
        self: RestEndpoint[Any],
        *,
        schema: None = None,
        **options: Unpack[EndpointOptions],
    ) -> None: ...
    @overload
    def __init__(
        self: RestEndpoint[Page[ItemT]],
        *,
        schema: PageSchema[ItemT],
        **options: Unpack[EndpointOptions],
    ) -> None: ...
    @overload
    def __init__(
        self: RestEndpoint[ItemT],
        *,
        schema: EventSchemas[ItemT],
        **options: Unpack[EndpointOptions],
    ) -> None: ...
    @overload
    def __init__(
        self: RestEndpoint[list[ItemT]],
        *,
        schema: list[type[ItemT]],
        **options: Unpack[EndpointOptions],
    ) -> None: ...
    @overload
    def __init__(
        self: RestEndpoint[ItemT],
        *,
        schema: type[ItemT],
        **options: Unpack[EndpointOptions],
    ) -> None: ...
    @overload
    def __init__(
        self: RestEndpoint[Any], *, schema: object, **options: Unpack[EndpointOptions]
    ) -> None: ...
    def __init__(self, **options: Any) -> None:
        unknown = set(options) - self.OPTIONS
        if unknown:
            raise UsageError(
                f"{type(self).__name__} got unknown option(s) {sorted(unknown)}; "
                f"options are {sorted(self.OPTIONS)}"
            )
        values = checked_options(
            options, defaults=type(self), endpoint_class=RestEndpoint
        )
        self.__dict__.update(values)
        self.__dict__["_options"] = options
        self.__dict__["template"] = PathTemplate.parse(self.path)
        for layer in self.middleware:
            check = getattr(layer, "check_endpoint", None)
            if check is not None:
                check(self)  # a middleware refusing an endpoint it cannot serve

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        warn_about_milliseconds(cls.__dict__)  # defaults set as class attributes

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"an endpoint is immutable; use extend({name}=...)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("an endpoint is immutable")

    # -- building new endpoints ------------------------------------------------

    @overload
    def extend(
        self, *, schema: PageSchema[ItemT], **options: Unpack[EndpointOptions]
    ) -> RestEndpoint[Page[ItemT]]: ...
    @overload
    def extend(
        self, *, schema: EventSchemas[ItemT], **options: Unpack[EndpointOptions]
    ) -> RestEndpoint[ItemT]: ...
    @overload
    def extend(
        self, *, schema: list[type[ItemT]], **options: Unpack[EndpointOptions]
    ) -> RestEndpoint[list[ItemT]]: ...
    @overload
    def extend(
        self, *, schema: type[ItemT], **options: Unpack[EndpointOptions]
    ) -> RestEndpoint[ItemT]: ...
    @overload
    def extend(
        self, *, schema: Mapping[str, Any] | None, **options: Unpack[EndpointOptions]
    ) -> RestEndpoint[Any]: ...
    @overload
    def extend(self, **options: Unpack[EndpointOptions]) -> Self: ...
    def extend(self, **options: Any) -> RestEndpoint[Any]:
        """A copy with ``options`` changed; the same class, so its defaults hold.

        Every option replaces this endpoint's, except two that accumulate
        (the same rule everywhere options meet): ``headers`` are added to this endpoint's
        and override them name by name, case-insensitively (a name given
        ``None`` is removed; ``headers=None`` removes them all), and
        ``sensitive_headers`` are added to this endpoint's."""
        original = self.__dict__["_options"]
        merged = {**original, **options}
        if options.get("headers") is not None:
            merged["headers"] = merge_headers(self.headers, options["headers"])
        if "sensitive_headers" in options:
            merged["sensitive_headers"] = merge_sensitive(
                self.sensitive_headers, options["sensitive_headers"]
            )
        with CarriedOver(frozenset(original.keys() - options.keys())):
            return type(self)(**merged)

    def use(self, *middleware: Middleware | Stack) -> Self:
        """A copy with ``middleware`` added inside the current stack."""
        return self.extend(middleware=self.middleware.use(*middleware))

    # -- the seed's overridable steps -----------------------------------------

    def parse_response(self, response: Response) -> Any:
        """The value of a 2xx response (body read), per ``content``."""
        return self.content.read(response)

    def process(self, value: Any, params: Mapping[str, Any]) -> Any:
        """Transform the parsed value; runs after every middleware. Default: as is."""
        return value

    # -- what a call will send ------------------------------------------------

    template: PathTemplate

    @cached_property
    def label(self) -> str:
        """The endpoint's name for errors and reprs (worked out once)."""
        return self.name or (
            f"{self.method} {redact_url(join_url(self.url_prefix, self.path))}"
        )

    @cached_property
    def route(self) -> tuple[str, str, str]:
        """Method, URL prefix and path template: what every call of this
        endpoint (and of any endpoint extended from it with no new path)
        has in common, whatever its params; stored results carry it, for
        ``invalidate_all`` and ``adds_to``."""
        return (self.method, self.url_prefix, self.path)

    @cached_property
    def shape(self) -> Hashable:
        """What the value of a call depends on besides the response: class,
        schema and error schema (what its error holds), content kind,
        middleware, ``process``, ``parse_response`` and the reading limits.
        Two endpoints of equal shape make equal values (and errors) of one
        response, so they may share it; worked out once."""
        kind = type(self)
        return _shape_of(
            (
                kind,
                _frozen(self.schema),
                _frozen(self.error_schema),
                self.content,
                self.middleware,
                self.__dict__.get("process", kind.process),
                self.__dict__.get("parse_response", kind.parse_response),
                self.follow_redirects,
                self.max_redirects,
                self.max_body_size,
            )
        )

    @cached_property
    def plan(self) -> Plan:
        """How a value of this endpoint is normalized into the store and read
        back: its ``schema``'s plan, made once."""
        if isinstance(self.schema, EventSchemas):
            raise UsageError(
                f"{self.label}: its schema reads a stream's events by "
                "their names (EventSchemas); call it with stream(), "
                "not fetch() or get(), which read one body"
            )
        return plan_of(self.schema)

    @cached_property
    def defers_parse(self) -> bool:
        """Whether a 2xx body may be left unparsed for the store to read
        straight into entities: JSON content, the default
        ``parse_response`` and ``process``, a schema of one entity class in
        a list, and middleware that all take an unparsed value. Worked out
        once."""
        kind = type(self)
        schema = self.schema
        return (
            type(self.content) is JsonContent
            and "parse_response" not in self.__dict__
            and kind.parse_response is RestEndpoint.parse_response
            and "process" not in self.__dict__
            and kind.process is RestEndpoint.process
            and type(schema) is list
            and len(schema) == 1
            and isinstance(schema[0], type)
            and issubclass(schema[0], Entity)
            and self.middleware.takes_unparsed
        )

    @cached_property
    def stored_read(self) -> tuple[bool, str, Hashable] | None:
        """What ``get`` needs to answer a call of this endpoint from the
        store without running its chain: whether its middleware may add a
        credential (then it cannot), the request key's method part, and its
        :attr:`shape`; ``None`` for a method that changes data. Worked out
        once."""
        if self.side_effect:
            return None
        return (self.middleware.sends_credentials, f"{self.method} ", self.shape)

    @cached_property
    def side_effect(self) -> bool:
        """True for methods that change data: these are never de-duplicated."""
        return self.method not in SAFE_METHODS

    def param_fields(self, params: Mapping[str, Any]) -> Mapping[str, Any]:
        """``params`` named as the fields of the records this endpoint
        gives: each name as its middleware name a response key (key
        casing, ``RenameKeys``: ``Sid`` is ``sid`` under ``PascalCaseKeys``
        or ``SnakeCaseKeys``), beside the names as given (which win). A
        delete finds the record it removes so, an update the key its
        answer leaves out, ``FillPrimaryKey`` its param. ``params`` as they
        are when no middleware renames keys."""
        rename = self.middleware.field_name
        if rename is None or not params:
            return params
        fields = {
            rename(name): value for name, value in params.items() if type(name) is str
        }
        fields.update(params.items())  # a name as given wins
        return fields

    def url(self, params: Any = None) -> str:
        """The URL of a call with ``params``: path filled, the rest as query."""
        params = as_params(params, self.label)
        template = self.template
        path = join_url(self.url_prefix, template.fill(params, self.label))
        if params.keys() <= template.names:
            return path  # every param fills the path: no query to build
        if self.param_style == "repeat":
            query = encode_query(query_pairs(params, template.names, self.label))
        else:
            query = styled_query(params, template.names, self.param_style, self.label)
        if not query:
            return path
        return f"{path}{'&' if '?' in path else '?'}{query}"

    def initial_headers(self, body: Any, library: ModuleType = DEFAULT) -> Headers:
        """The headers a call starts with: the ``headers`` option, the content
        kind's ``accept`` and, when the body is JSON or absent, its
        ``request_type`` (for ``"json"``: ``application/json`` both). Middleware
        may change or remove them. Built once per endpoint (and ``library``,
        httpx or httpx2: the controller's); each call gets a copy.
        """
        shared = self.shared_headers(body, library)
        # The copy takes the encoding the shared headers worked out once;
        # a new Headers would work it out again at its first use. A name a
        # middleware sets is checked as it is set (``exchange.call_headers``).
        kind = CALL_HEADERS.get(library) or call_headers(library)
        headers: Headers = kind(shared, encoding=shared.encoding)
        return headers

    def shared_headers(self, body: Any, library: ModuleType = DEFAULT) -> Headers:
        """What :meth:`initial_headers` copies: built once (per library),
        shared by every call of the endpoint, so never to be changed."""
        json_body = body is None or is_json_body(body)
        built = self.__dict__.get("_shared_headers")
        if built is None:
            built = self.__dict__["_shared_headers"] = {}
        prebuilt: Headers | None = built.get((json_body, library))
        if prebuilt is None:
            if isinstance(self.schema, EventSchemas) and not self.content.streamed:
                self.plan  # noqa: B018 - refused before the first request is built
            prebuilt = library.Headers(self.headers or {})
            kind = self.content
            if kind.accept is not None:
                prebuilt.setdefault("accept", kind.accept)
            if json_body and kind.request_type is not None:
                prebuilt.setdefault("content-type", kind.request_type)
            built[(json_body, library)] = prebuilt
        return prebuilt

    def __repr__(self) -> str:
        parts = [f"{self.method} {redact_url(join_url(self.url_prefix, self.path))}"]
        if self.name:
            parts.append(f"name={self.name!r}")
        if self.content.name != "json":
            parts.append(f"content={self.content.name!r}")
        if self.schema is not None:
            parts.append(f"schema={getattr(self.schema, '__name__', self.schema)!r}")
        if self.headers:
            parts.append(
                "headers={" + ", ".join(f"{k}: {REDACTED}" for k in self.headers) + "}"
            )
        if len(self.middleware):
            parts.append(f"middleware={self.middleware!r}")
        return f"{type(self).__name__}({', '.join(parts)})"


def not_an_endpoint(method: str, thing: object) -> UsageError:
    """The error of ``method`` (``"fetch()"``) given ``thing`` where a
    :class:`RestEndpoint` is needed. It names ``thing``'s type, never its
    value: the usual mistake is a URL, whose text may hold a password or a
    token."""
    hint = (
        ": a URL is made an endpoint with RestEndpoint(url_prefix=..., path=...)"
        if isinstance(thing, str)
        else ""
    )
    return UsageError(
        f"{method} takes a RestEndpoint, not {type(thing).__name__}{hint}"
    )
