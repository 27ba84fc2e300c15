"""An endpoint's options: what each accepts (:class:`EndpointOptions`),
how each is checked and converted where the endpoint is written, and how
``extend`` combines headers.

``RestEndpoint(...)``, ``extend(...)`` and ``resource(...)`` declare their
options with these ``TypedDict`` classes (PEP 692), so a type checker refuses a
misspelt option or a value of the wrong type; at run time an option not
named here is a ``UsageError`` all the same.

Every option is checked when the endpoint is made (``RestEndpoint(...)``,
``extend``, ``resource``), so a wrong value fails at the line that wrote
it, not at the first call: a duration must be seconds (a number or a
``timedelta``), a method a method name, ``max_redirects="3"`` is refused,
``adds_to`` and ``expires`` must name reads. Each is then kept in one
form: durations as ``float`` seconds, ``timeout`` as an ``httpx.Timeout``,
``content`` as a content kind, ``middleware`` as a ``Stack``, header
names lower-cased. A plain number that looks like milliseconds is warned
about (``_base.durations``), once: ``extend`` does not warn again about
the options it carries over unchanged.

Headers combine by one rule, which ``extend(headers=...)``,
``resource(..., headers=...)`` and ``hookify_resource``'s ``use_init`` all
follow:

- Names compare case-insensitively (as HTTP's do): a header given again,
  in any case, replaces the base's value; one not given is kept; a new one
  is added after the base's.
- A name given with the value ``None`` removes that header
  (``extend(headers={"X-Old": None})``); removing one the base lacks is
  no error.
- Names are kept lower-cased (as ``httpx.Headers`` gives them), so the
  result is the same whatever case either side used.
- ``sensitive_headers`` only accumulate: a name marked a credential by the
  base stays one in everything built from it.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from functools import partial
from typing import Any, Literal, TypedDict

from .._base.durations import check_seconds
from .._base.errors import SettingError, UsageError
from .._base.http import HEADER_NAME_RULE, is_token
from .._base.library import DEFAULT, ResponseParser, Timeout
from .._chain.exchange import EndpointView
from .._chain.stack import Middleware, Stack
from .._store.schemas import Invalidate, check_schema
from .._wire.adapter import header_problem
from .._wire.content import ContentKind, ContentName, content_kind
from .._wire.params import ParamStyle, check_param_style
from .events import EventSchemas

__all__ = [
    "CarriedOver",
    "EndpointOptions",
    "ResourceOptions",
    "Seconds",
    "checked_options",
    "merge_headers",
    "merge_sensitive",
    "plain_headers",
    "warn_about_milliseconds",
]

#: A duration as an option takes it.
Seconds = float | int | datetime.timedelta


# -- what each option accepts ------------------------------------------------


class ResourceOptions(TypedDict, total=False):
    """The options :func:`~restwire.resource` gives every endpoint it makes:
    those of :class:`EndpointOptions` but the ones it sets itself (``path``,
    ``method``, ``name``, ``adds_to``, ``expires``)."""

    url_prefix: str
    """Joined to ``path`` with exactly one slash. Default ``""``: the path
    alone, for the client's ``base_url`` to complete."""

    error_schema: Any
    """What a 4xx or 5xx body is validated into, as ``error.data``: an
    ``Entity``, a model (pydantic, dataclass, ``TypedDict``) or any schema
    ``schema`` takes but ``Invalidate``; a body that does not validate
    leaves ``data`` ``None``. Default ``None``: none."""

    content: ContentKind | ContentName
    """How the response body is read: a :class:`~restwire.Content`, or the
    name of a built-in one: ``"json"``, ``"text"``, ``"blob"`` (a ``Blob``:
    bytes and content type), ``"bytes"`` or ``"stream"`` (the open
    response, body unread). Default ``"json"``."""

    data_expiry_length: Seconds
    """Seconds (a number or a ``timedelta``) a fetched value stays fresh.
    Default ``60``."""

    error_expiry_length: Seconds
    """Seconds an error stays cached before a ``get`` tries again.
    Default ``1``."""

    poll_frequency: Seconds | None
    """Seconds between polls, more than 0. Default ``None``: a ``poll``
    must say its ``frequency``."""

    process: Callable[[Any, Mapping[str, Any]], Any]
    """``process(value, params)``: the last step of a call, after every
    middleware; what it returns is the call's value. Default: the value as
    it is (a subclass may override the method instead)."""

    parse_response: ResponseParser
    """``parse_response(response)``: the value of a 2xx response, its body
    read, in place of ``content``'s reading. Default: ``content``'s (a
    subclass may override the method instead)."""

    middleware: (
        Stack | Middleware | list[Middleware | Stack] | tuple[Middleware | Stack, ...]
    )
    """The middleware, outermost first: a :class:`~restwire.Stack`, one
    middleware, or a list or tuple of them. Default: none."""

    headers: Mapping[str, str | None] | None
    """Headers every call sends (values never shown in a repr); a credential
    among them stays at the call's origin. ``extend`` merges them into the
    endpoint's, name by name whatever the case; a name given ``None`` is
    removed, and ``headers=None`` removes them all. Default ``None``."""

    sensitive_headers: Iterable[str]
    """More header names to treat as credentials: kept to the call's
    origin, never shown, and part of who the caller is; ``extend`` adds
    them to the endpoint's. Default: none."""

    follow_redirects: bool
    """Whether a redirect is followed. Default ``True``."""

    max_redirects: int
    """Redirects followed at most in one call; one more is a
    ``TooManyRedirects``. Default ``20``."""

    max_body_size: int | None
    """Largest body read into memory (every content but ``"stream"``), in
    decoded bytes; more is a ``BodyTooLarge``, not exhausted memory.
    ``None`` for no limit. Default 100 MiB."""

    timeout: Seconds | Timeout | None
    """This endpoint's timeouts: seconds (a number or a ``timedelta``) for
    each of httpx's four, or an ``httpx.Timeout``. Default ``None``: the
    client's."""

    param_style: ParamStyle
    """How lists and dicts are written in the query and in ``Form`` bodies:
    ``"repeat"`` (``a=1&a=2``), ``"brackets"`` (``a[]=1``, ``m[k]=v``),
    ``"indexed"`` (``a[0]=1``) or ``"comma"`` (``a=1,2``). Default
    ``"repeat"``."""


class EndpointOptions(ResourceOptions, total=False):
    """The keyword options of :class:`~restwire.RestEndpoint` and of its
    ``extend``, each with what it accepts and its default; a subclass of
    ``RestEndpoint`` may change a default as a class attribute. ``schema``
    is a keyword of its own, as it gives the endpoint's type. Any other
    name is a ``UsageError``."""

    path: str
    """The path template: ``/posts/:id``, an optional group
    ``/posts{/:id}``, ``\\:`` for a literal colon. Default ``""``."""

    method: str
    """The HTTP method, in any case (kept upper case). Default ``"GET"``."""

    name: str | None
    """The endpoint's name in reprs and errors. Default ``None``: its
    method and URL."""

    adds_to: tuple[EndpointView, Literal["end", "start"]] | None
    """For a create: the list endpoint whose stored results the created
    record joins, and where (``"end"``, or ``"start"`` to prepend), in the
    caller's identity, for each stored list whose params the create's
    params, body or record all match. ``resource()`` sets it on its
    ``create``. Default ``None``: none."""

    expires: tuple[EndpointView, ...] | list[EndpointView] | None
    """For a mutation: the reads whose stored results a successful call
    expires, whatever their params, for the caller's identity only; the
    next ``get`` of each fetches. ``resource()`` sets it on the mutations
    of a resource of values. Default ``None``: none."""


#: The duration options, checked for values that look like milliseconds.
_DURATIONS = ("data_expiry_length", "error_expiry_length", "poll_frequency", "timeout")
#: The options an endpoint being made by ``extend`` takes from its original
#: unchanged: checked when the original was made, not again.
_INHERITED: ContextVar[frozenset[str]] = ContextVar(
    "restwire_inherited_options", default=frozenset()
)


# -- checking and converting the options given --------------------------------


def checked_options(
    options: Mapping[str, Any], *, defaults: type[Any], endpoint_class: type[Any]
) -> dict[str, Any]:
    """``options`` as an endpoint keeps them, each checked (see the module):
    a new dict. ``defaults`` is the class of the endpoint being made (its
    ``content``, ``schema`` and ``error_schema`` are checked even when not
    given); ``endpoint_class`` is what ``adds_to`` and ``expires`` must
    name."""
    values = dict(options)
    inherited = _INHERITED.get()
    if inherited:
        _INHERITED.set(frozenset())  # endpoints made while this one is: theirs
    warn_about_milliseconds(values, inherited)
    if "method" in values:
        values["method"] = _method(values["method"])
    _check_types(values)
    values["content"] = content_kind(values.get("content", defaults.content))
    schema = values.get("schema", defaults.schema)
    if not isinstance(schema, EventSchemas):  # (its schemas checked when made)
        check_schema(schema)
    _check_error_schema(values.get("error_schema", defaults.error_schema))
    for name, convert in _CONVERSIONS.items():
        if name in values:
            values[name] = convert(values[name])
    for name, check in (("adds_to", _adds_to), ("expires", _expires)):
        if values.get(name) is not None:
            values[name] = check(values[name], endpoint_class)
    if "sensitive_headers" in values:
        values["sensitive_headers"] = merge_sensitive((), values["sensitive_headers"])
    if values.get("headers") is not None:
        values["headers"] = _headers(values["headers"])
    return values


def warn_about_milliseconds(
    values: Mapping[str, Any], skip: frozenset[str] = frozenset()
) -> None:
    """Warn about each duration in ``values`` (but those in ``skip``) that
    looks like milliseconds; ``values`` may be a class's attributes."""
    for name in _DURATIONS:
        if name in values and name not in skip:
            check_seconds(name, values[name])


class CarriedOver:
    """``with CarriedOver(names):`` while ``extend`` makes an endpoint:
    ``names`` are the options it takes from its original unchanged, checked
    (and warned about) when the original was made, so not again."""

    __slots__ = ("names", "token")

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def __enter__(self) -> None:
        self.token = _INHERITED.set(self.names)

    def __exit__(self, *exc_info: object) -> None:
        _INHERITED.reset(self.token)


def _seconds(
    name: str, value: Seconds | None, *, allow_none: bool, finite: bool = False
) -> float | None:
    """``value`` as seconds: ``None`` when allowed, never negative and never
    NaN (every comparison with NaN is false: a poll loop on it never
    waits); ``finite``, not infinite either (a wait that never ends)."""
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
    if math.isnan(seconds) or (finite and math.isinf(seconds)):
        raise SettingError(f"{name} must be a finite number of seconds, not {seconds}")
    return seconds


def _poll_frequency(value: Any) -> float | None:
    frequency = _seconds("poll_frequency", value, allow_none=True, finite=True)
    if frequency == 0:
        raise SettingError("poll_frequency must be more than 0 seconds")
    return frequency


def _middleware(value: Any) -> Stack:
    """A stack, one middleware, or a list or tuple of them, as a stack."""
    if isinstance(value, Stack):
        return value
    layers = value if isinstance(value, list | tuple) else (value,)
    return Stack(*layers)


def _timeout(value: Any) -> Timeout | None:
    """An endpoint's ``timeout`` option as an ``httpx.Timeout`` (``None``:
    the client's own)."""
    if value is None or isinstance(value, Timeout):
        return value
    seconds = _seconds("timeout", value, allow_none=False, finite=True)
    if not seconds:
        raise SettingError("timeout must be more than 0 seconds")
    # Of the default library: a controller of the other converts it (_adapter).
    timeout: Timeout = DEFAULT.Timeout(seconds)
    return timeout


def _callable(name: str, value: Any) -> Any:
    """``value``, a function the endpoint calls (``process``,
    ``parse_response``): anything else fails at every call, so it is
    refused where the endpoint is written."""
    if not callable(value):
        raise UsageError(f"{name} must be a function, not {type(value).__name__}")
    return value


#: The options converted to the form an endpoint keeps, when given, in
#: this order.
_CONVERSIONS: dict[str, Callable[[Any], Any]] = {
    "data_expiry_length": partial(_seconds, "data_expiry_length", allow_none=False),
    "error_expiry_length": partial(_seconds, "error_expiry_length", allow_none=False),
    "poll_frequency": _poll_frequency,
    "middleware": _middleware,
    "timeout": _timeout,
    "param_style": check_param_style,
    "process": partial(_callable, "process"),
    "parse_response": partial(_callable, "parse_response"),
}


def _method(value: Any) -> str:
    """An HTTP method, upper case; anything that is no method name (``None``,
    a number, text with spaces) is refused where the endpoint is written."""
    if not is_token(value):
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


def _adds_to(value: Any, endpoint_class: type[Any]) -> tuple[Any, str]:
    """``adds_to`` checked: a list endpoint and ``"end"`` or ``"start"``."""
    if (
        not isinstance(value, tuple)
        or len(value) != 2
        or not isinstance(value[0], endpoint_class)
        or value[1] not in ("end", "start")
    ):
        raise UsageError(
            f"adds_to must be (list endpoint, 'end' or 'start'), not {value!r}"
        )
    if value[0].side_effect:
        raise SettingError(f"adds_to names {value[0].label}, which is not a read")
    return value[0], value[1]


def _expires(value: Any, endpoint_class: type[Any]) -> tuple[Any, ...]:
    """``expires`` checked: a tuple (or list) of read endpoints."""
    if not isinstance(value, tuple | list) or not all(
        isinstance(each, endpoint_class) for each in value
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


def _headers(headers: Mapping[str, Any]) -> dict[str, str]:
    """The ``headers`` option validated as httpx would send them (names by
    :func:`plain_headers`; values ASCII, with nothing HTTP/1.1 cannot
    carry), then kept plain; a wrong one is a :class:`SettingError` naming
    the header, never showing its value."""
    plain = plain_headers(headers) or {}
    fields = []
    for name, value in plain.items():
        if not value.isascii():
            raise SettingError(
                f"headers: the value of {name!r} is not ASCII, and httpx sends "
                "header text as ASCII; encode it first (percent-encoding, or "
                "RFC 8187's UTF-8'' form for a parameter)"
            )
        fields.append((name.encode(), value.encode()))
    problem = header_problem(fields)
    if problem is not None:
        raise SettingError(f"headers: {problem}")
    return dict(DEFAULT.Headers(plain).multi_items())


# -- headers: the one rule (see the module) ----------------------------------


def _name(name: Any, option: str = "headers") -> str:
    """A header name as an endpoint keeps it: lower case; one HTTP cannot
    send (not ASCII, a space, a colon, empty) is refused, naming ``option``."""
    if isinstance(name, bytes):
        name = name.decode("latin-1")
    if not isinstance(name, str):
        raise UsageError(f"{option}: a header name must be text, not {name!r}")
    if not is_token(name):
        raise SettingError(
            f"{option}: the header name {name!r} cannot be sent: {HEADER_NAME_RULE}"
        )
    return name.lower()


def _value(name: str, value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if not isinstance(value, str):
        raise UsageError(
            f"header {name!r} must be text (or None to remove it), not {value!r}"
        )
    return value


def plain_headers(headers: Mapping[str, Any] | None) -> dict[str, str] | None:
    """``headers`` as an endpoint keeps them: lower-cased names, text values,
    ``None`` values (nothing to remove from) left out; ``None`` for none."""
    if headers is None:
        return None
    return merge_headers(None, headers)


def merge_headers(
    base: Mapping[str, str] | None, changes: Mapping[str, Any] | None
) -> dict[str, str]:
    """``base`` with ``changes`` applied by the module's rule: a new dict,
    neither argument changed. A value that is neither text nor ``None`` is
    a ``TypeError``, raised where the endpoint is written."""
    merged: dict[str, str] = {}
    for name, value in (base or {}).items():
        merged[_name(name)] = _value(name, value)
    if changes is None:
        return merged
    if not isinstance(changes, Mapping):
        raise UsageError(
            f"headers must be a mapping of names to values, not {changes!r}"
        )
    for name, value in changes.items():
        key = _name(name)
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = _value(name, value)
    return merged


def merge_sensitive(base: Iterable[str], more: Iterable[str]) -> frozenset[str]:
    """The names of both, lower-cased: sensitive headers only accumulate."""
    if isinstance(more, str):
        raise UsageError(
            f"sensitive_headers must be a collection of names, not the text {more!r}"
        )
    return frozenset(_name(name, "sensitive_headers") for name in base) | frozenset(
        _name(name, "sensitive_headers") for name in more
    )
