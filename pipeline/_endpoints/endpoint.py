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

import datetime
import re
from collections.abc import Hashable, Mapping
from contextvars import ContextVar
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Self, overload

from .._base.library import DEFAULT, Headers, Response, Timeout

if TYPE_CHECKING:
    # A default for the value type (PEP 696), so a bare ``RestEndpoint`` is
    # ``RestEndpoint[Any]`` even under mypy --strict; typing has it from 3.13.
    from typing_extensions import TypeVar
else:
    from typing import TypeVar

from .._base.durations import check_seconds
from .._base.errors import REDACTED, SettingError, UsageError, redact_url
from .._base.http import SAFE_METHODS
from .._chain.stack import Middleware, Stack
from .._store.entity import Entity
from .._store.store import Invalidate, check_schema
from .._wire.content import ContentKind, JsonContent, content_kind, is_json_body
from .._wire.header_merge import merge_headers, merge_sensitive, plain_headers
from .._wire.params import (
    ParamStyle,
    PathTemplate,
    as_params,
    check_param_style,
    encode_query,
    join_url,
    query_pairs,
    styled_query,
)
from .page import Page, PageSchema

__all__ = ["RestEndpoint"]

Seconds = float | int | datetime.timedelta

if TYPE_CHECKING:
    #: The value a call of the endpoint returns, given by its schema.
    ValueT = TypeVar("ValueT", covariant=True, default=Any)
else:
    ValueT = TypeVar("ValueT", covariant=True)
ItemT = TypeVar("ItemT")


#: The duration options, checked for values that look like milliseconds.
_DURATIONS = ("data_expiry_length", "error_expiry_length", "poll_frequency", "timeout")
#: The options an endpoint being made by ``extend`` takes from its original
#: unchanged: checked when the original was made, not again.
_INHERITED: ContextVar[frozenset[str]] = ContextVar(
    "restwire_inherited_options", default=frozenset()
)


def _seconds(name: str, value: Seconds | None, *, allow_none: bool) -> float | None:
    if value is None:
        if allow_none:
            return None
        raise SettingError(f"{name} must be a number of seconds, not None")
    if isinstance(value, datetime.timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    else:
        raise UsageError(f"{name} must be seconds or a timedelta, not {value!r}")
    if seconds < 0:
        raise SettingError(f"{name} must not be negative, got {seconds}")
    return seconds


class _Shape:
    """An endpoint's value shape: compared by its parts, hashed once."""

    __slots__ = ("_hash", "parts")

    def __init__(self, parts: tuple[Any, ...]) -> None:
        self.parts = parts
        self._hash = hash(parts)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return isinstance(other, _Shape) and self.parts == other.parts

    def __repr__(self) -> str:
        return f"<shape of {self.parts[0].__name__}>"


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


_TOKEN_CHARS = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


def _method(value: Any) -> str:
    """An HTTP method, upper case; anything that is no method name (``None``,
    a number, text with spaces) is refused where the endpoint is written."""
    if not isinstance(value, str) or not _TOKEN_CHARS.fullmatch(value):
        raise UsageError(
            f"method must be an HTTP method name like 'GET', not {value!r}"
        )
    return value.upper()


#: Options whose values must be of these types (``None`` allowed where listed).
_OPTION_TYPES: dict[str, tuple[type, ...]] = {
    "path": (str,),
    "url_prefix": (str,),
    "name": (str, type(None)),
    "follow_redirects": (bool,),
    "max_redirects": (int,),
    "max_body_size": (int, type(None)),
}


def _check_types(values: Mapping[str, Any]) -> None:
    """Refuse an option of the wrong type where the endpoint is written
    (``max_redirects="3"`` would fail only at the first redirect)."""
    for name, kinds in _OPTION_TYPES.items():
        if name not in values:
            continue
        value = values[name]
        wrong = not isinstance(value, kinds) or (
            isinstance(value, bool) and bool not in kinds
        )
        if wrong:
            expected = " or ".join(
                "None" if k is type(None) else k.__name__ for k in kinds
            )
            raise UsageError(f"{name} must be {expected}, not {value!r}")
        if (
            name in ("max_redirects", "max_body_size")
            and value is not None
            and value < 0
        ):
            raise SettingError(f"{name} must not be negative, got {value}")


def _adds_to(value: Any) -> tuple[RestEndpoint[Any], str]:
    """``adds_to`` checked: a list endpoint and ``"end"`` or ``"start"``."""
    if (
        not isinstance(value, tuple)
        or len(value) != 2
        or not isinstance(value[0], RestEndpoint)
        or value[1] not in ("end", "start")
    ):
        raise UsageError(
            f"adds_to must be (list endpoint, 'end' or 'start'), not {value!r}"
        )
    if value[0].side_effect:
        raise SettingError(f"adds_to names {value[0].label}, which is not a read")
    return value[0], value[1]


def _expires(value: Any) -> tuple[RestEndpoint[Any], ...]:
    """``expires`` checked: a tuple (or list) of read endpoints."""
    if not isinstance(value, tuple | list) or not all(
        isinstance(each, RestEndpoint) for each in value
    ):
        raise UsageError(f"expires must be a tuple of endpoints, not {value!r}")
    for each in value:
        if each.side_effect:
            raise SettingError(f"expires names {each.label}, which is not a read")
    return tuple(value)


def _check_error_schema(schema: Any) -> None:
    """Refuse, where the endpoint is written, an ``error_schema`` that is no
    schema, or one that would delete records (``Invalidate``): an error body
    is read, never stored."""
    if isinstance(schema, Invalidate):
        raise UsageError(
            "error_schema cannot be Invalidate(...): an error body is read "
            "into error.data, never applied to the store"
        )
    check_schema(schema, "error_schema")


def _timeout(value: Any) -> Timeout | None:
    """An endpoint's ``timeout`` option as an ``httpx.Timeout`` (``None``:
    the client's own)."""
    if value is None or isinstance(value, Timeout):
        return value
    seconds = _seconds("timeout", value, allow_none=False)
    if not seconds:
        raise SettingError("timeout must be more than 0 seconds")
    # Of the default library: a controller of the other converts it (_adapter).
    timeout: Timeout = DEFAULT.Timeout(seconds)
    return timeout


class RestEndpoint(Generic[ValueT]):
    """An HTTP endpoint of a remote API: path template, options, middleware.

    Generic in the value a call returns, which its ``schema`` gives:
    ``schema=Post`` makes a ``RestEndpoint[Post]``, ``schema=[Post]`` a
    ``RestEndpoint[list[Post]]``, ``schema=paged(Post)`` a
    ``RestEndpoint[Page[Post]]``; no schema (or an object schema) a
    ``RestEndpoint[Any]``. Controllers return that type.
    """

    #: The names ``__init__`` and ``extend`` accept.
    OPTIONS: ClassVar[frozenset[str]] = frozenset(
        (
            "path",
            "url_prefix",
            "method",
            "schema",
            "error_schema",
            "content",
            "data_expiry_length",
            "error_expiry_length",
            "poll_frequency",
            "process",
            "parse_response",
            "middleware",
            "name",
            "headers",
            "follow_redirects",
            "max_redirects",
            "max_body_size",
            "sensitive_headers",
            "timeout",
            "adds_to",
            "expires",
            "param_style",
        )
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
    #: Seconds a fetched value stays fresh (the seed's ``dataExpiryLength``).
    data_expiry_length: float = 60.0
    #: Seconds an error stays cached before a ``get`` tries again.
    error_expiry_length: float = 1.0
    #: Seconds between polls (the seed's ``pollFrequency``), or ``None``.
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
    #: ``"indexed"`` (``a[0]=1``) or ``"comma"`` (``a=1,2``); see
    #: ``_wire.params``.
    param_style: ParamStyle = "repeat"

    @overload
    def __init__(
        self: RestEndpoint[Any], *, schema: None = None, **options: Any
    ) -> None: ...
    @overload
    def __init__(
        self: RestEndpoint[Page[ItemT]], *, schema: PageSchema[ItemT], **options: Any
    ) -> None: ...
    @overload
    def __init__(
        self: RestEndpoint[list[ItemT]], *, schema: list[type[ItemT]], **options: Any
    ) -> None: ...
    @overload
    def __init__(
        self: RestEndpoint[ItemT], *, schema: type[ItemT], **options: Any
    ) -> None: ...
    @overload
    def __init__(
        self: RestEndpoint[Any], *, schema: object, **options: Any
    ) -> None: ...
    def __init__(self, **options: Any) -> None:
        unknown = set(options) - self.OPTIONS
        if unknown:
            raise UsageError(
                f"{type(self).__name__} got unknown option(s) {sorted(unknown)}; "
                f"options are {sorted(self.OPTIONS)}"
            )
        values = dict(options)
        inherited = _INHERITED.get()
        if inherited:
            _INHERITED.set(frozenset())  # endpoints made while this one is: theirs
        for name in _DURATIONS:
            if name in values and name not in inherited:
                check_seconds(name, values[name])
        if "method" in values:
            values["method"] = _method(values["method"])
        _check_types(values)
        values["content"] = content_kind(values.get("content", type(self).content))
        check_schema(values.get("schema", type(self).schema))
        _check_error_schema(values.get("error_schema", type(self).error_schema))
        for name in ("data_expiry_length", "error_expiry_length"):
            if name in values:
                values[name] = _seconds(name, values[name], allow_none=False)
        if "poll_frequency" in values:
            frequency = _seconds(
                "poll_frequency", values["poll_frequency"], allow_none=True
            )
            if frequency == 0:
                raise SettingError("poll_frequency must be more than 0 seconds")
            values["poll_frequency"] = frequency
        if "middleware" in values and not isinstance(values["middleware"], Stack):
            middleware = values["middleware"]
            layers = (
                middleware if isinstance(middleware, list | tuple) else (middleware,)
            )
            values["middleware"] = Stack(*layers)
        if "timeout" in values:
            values["timeout"] = _timeout(values["timeout"])
        if "param_style" in values:
            values["param_style"] = check_param_style(values["param_style"])
        if values.get("adds_to") is not None:
            values["adds_to"] = _adds_to(values["adds_to"])
        if values.get("expires") is not None:
            values["expires"] = _expires(values["expires"])
        if "sensitive_headers" in values:
            values["sensitive_headers"] = merge_sensitive(
                (), values["sensitive_headers"]
            )
        if "headers" in values and values["headers"] is not None:
            # validated as httpx would send them (text, ASCII), then kept plain
            plain = plain_headers(values["headers"])
            values["headers"] = dict(DEFAULT.Headers(plain).multi_items())
        self.__dict__.update(values)
        self.__dict__["_options"] = options
        self.__dict__["template"] = PathTemplate.parse(self.path)
        for layer in self.middleware:
            check = getattr(layer, "check_endpoint", None)
            if check is not None:
                check(self)  # a middleware refusing an endpoint it cannot serve

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in _DURATIONS:  # a default set as a class attribute
            if name in cls.__dict__:
                check_seconds(name, cls.__dict__[name])

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"an endpoint is immutable; use extend({name}=...)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("an endpoint is immutable")

    # -- building new endpoints ------------------------------------------------

    @overload
    def extend(
        self, *, schema: PageSchema[ItemT], **options: Any
    ) -> RestEndpoint[Page[ItemT]]: ...
    @overload
    def extend(
        self, *, schema: list[type[ItemT]], **options: Any
    ) -> RestEndpoint[list[ItemT]]: ...
    @overload
    def extend(self, *, schema: type[ItemT], **options: Any) -> RestEndpoint[ItemT]: ...
    @overload
    def extend(
        self, *, schema: Mapping[str, Any] | None, **options: Any
    ) -> RestEndpoint[Any]: ...
    @overload
    def extend(self, **options: Any) -> Self: ...
    def extend(self, **options: Any) -> RestEndpoint[Any]:
        """A copy with ``options`` changed; the same class, so its defaults hold.

        Every option replaces this endpoint's, except two that accumulate
        (see ``_header_merge``): ``headers`` are added to this endpoint's
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
        # the options carried over were checked (and warned about) already
        token = _INHERITED.set(frozenset(original.keys() - options.keys()))
        try:
            return type(self)(**merged)
        finally:
            _INHERITED.reset(token)

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

    @property
    def label(self) -> str:
        """The endpoint's name for errors and reprs (worked out once)."""
        label: str | None = self.__dict__.get("_label")
        if label is None:
            label = self.name or (
                f"{self.method} {redact_url(join_url(self.url_prefix, self.path))}"
            )
            self.__dict__["_label"] = label
        return label

    @property
    def route(self) -> tuple[str, str, str]:
        """Method, URL prefix and path template: what every call of this
        endpoint (and of any endpoint extended from it with no new path)
        has in common, whatever its params; stored results carry it, for
        ``invalidate_all`` and ``adds_to``."""
        route: tuple[str, str, str] | None = self.__dict__.get("_route")
        if route is None:
            route = (self.method, self.url_prefix, self.path)
            self.__dict__["_route"] = route
        return route

    @property
    def shape(self) -> Hashable:
        """What the value of a call depends on besides the response: class,
        schema and error schema (what its error holds), content kind,
        middleware, ``process``, ``parse_response`` and the reading limits.
        Two endpoints of equal shape make equal values (and errors) of one
        response, so they may share it; worked out once."""
        shape: _Shape | None = self.__dict__.get("_shape")
        if shape is None:
            kind = type(self)
            shape = _Shape(
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
            self.__dict__["_shape"] = shape
        return shape

    @property
    def defers_parse(self) -> bool:
        """Whether a 2xx body may be left unparsed for the store to read
        straight into entities (``_unparsed``): JSON content, the default
        ``parse_response`` and ``process``, a schema of one entity class in
        a list, and middleware that all take an unparsed value. Worked out
        once."""
        defers: bool | None = self.__dict__.get("_defers")
        if defers is None:
            kind = type(self)
            schema = self.schema
            defers = (
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
            self.__dict__["_defers"] = defers
        return defers

    @property
    def side_effect(self) -> bool:
        """True for methods that change data: these are never de-duplicated."""
        return self.method not in SAFE_METHODS

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
        # a new Headers would work it out again at its first use.
        headers: Headers = library.Headers(shared, encoding=shared.encoding)
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
