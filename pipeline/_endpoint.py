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
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, ClassVar

import httpx

from ._content import CONTENTS, Content, parse_content
from ._paths import Params, PathTemplate, encode_query, join_url, query_pairs
from ._redact import REDACTED, redact_url
from ._stack import Stack

__all__ = ["RestEndpoint"]

Seconds = float | int | datetime.timedelta
_SAFE_METHODS = frozenset(("GET", "HEAD", "OPTIONS", "TRACE"))


def _seconds(name: str, value: Seconds | None, *, allow_none: bool) -> float | None:
    if value is None:
        if allow_none:
            return None
        raise ValueError(f"{name} must be a number of seconds, not None")
    if isinstance(value, datetime.timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    else:
        raise TypeError(f"{name} must be seconds or a timedelta, not {value!r}")
    if seconds < 0:
        raise ValueError(f"{name} must not be negative, got {seconds}")
    return seconds


class RestEndpoint:
    """An HTTP endpoint of a remote API: path template, options, middleware."""

    #: The names ``__init__`` and ``extend`` accept.
    OPTIONS: ClassVar[frozenset[str]] = frozenset(
        (
            "path",
            "url_prefix",
            "method",
            "schema",
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
        )
    )

    path: str = ""
    url_prefix: str = ""
    method: str = "GET"
    schema: Any = None
    content: Content = "json"
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

    def __init__(self, **options: Any) -> None:
        unknown = set(options) - self.OPTIONS
        if unknown:
            raise TypeError(
                f"{type(self).__name__} got unknown option(s) {sorted(unknown)}; "
                f"options are {sorted(self.OPTIONS)}"
            )
        values = dict(options)
        if "method" in values:
            values["method"] = str(values["method"]).upper()
        if "content" in values and values["content"] not in CONTENTS:
            raise ValueError(
                f"content must be one of {sorted(CONTENTS)}, not {values['content']!r}"
            )
        for name in ("data_expiry_length", "error_expiry_length"):
            if name in values:
                values[name] = _seconds(name, values[name], allow_none=False)
        if "poll_frequency" in values:
            frequency = _seconds(
                "poll_frequency", values["poll_frequency"], allow_none=True
            )
            if frequency == 0:
                raise ValueError("poll_frequency must be more than 0 seconds")
            values["poll_frequency"] = frequency
        if "middleware" in values and not isinstance(values["middleware"], Stack):
            middleware = values["middleware"]
            layers = (
                middleware if isinstance(middleware, list | tuple) else (middleware,)
            )
            values["middleware"] = Stack(*layers)
        if "sensitive_headers" in values:
            values["sensitive_headers"] = frozenset(
                name.lower() for name in values["sensitive_headers"]
            )
        if "headers" in values and values["headers"] is not None:
            values["headers"] = dict(httpx.Headers(values["headers"]).multi_items())
        self.__dict__.update(values)
        self.__dict__["_options"] = options
        self.__dict__["template"] = PathTemplate.parse(self.path)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"an endpoint is immutable; use extend({name}=...)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("an endpoint is immutable")

    # -- building new endpoints ------------------------------------------------

    def extend(self, **options: Any) -> RestEndpoint:
        """A copy with ``options`` changed; the same class, so its defaults hold."""
        merged = {**self.__dict__["_options"], **options}
        return type(self)(**merged)

    def use(self, *middleware: object) -> RestEndpoint:
        """A copy with ``middleware`` added inside the current stack."""
        return self.extend(middleware=self.middleware.use(*middleware))

    # -- the seed's overridable steps -----------------------------------------

    def parse_response(self, response: httpx.Response) -> Any:
        """The value of a 2xx response (body read), per ``content``."""
        return parse_content(response, self.content)

    def process(self, value: Any, params: Mapping[str, Any]) -> Any:
        """Transform the parsed value; runs after every middleware. Default: as is."""
        return value

    # -- what a call will send ------------------------------------------------

    template: PathTemplate

    @property
    def label(self) -> str:
        """The endpoint's name for errors and reprs."""
        return (
            self.name
            or f"{self.method} {redact_url(join_url(self.url_prefix, self.path))}"
        )

    @property
    def side_effect(self) -> bool:
        """True for methods that change data: these are never de-duplicated."""
        return self.method not in _SAFE_METHODS

    def url(self, params: Params | None = None) -> str:
        """The URL of a call with ``params``: path filled, the rest as query."""
        params = params or {}
        template = self.template
        path = join_url(self.url_prefix, template.fill(params, self.label))
        if params.keys() <= template.names:
            return path  # every param fills the path: no query to build
        query = encode_query(query_pairs(params, template.names, self.label))
        if not query:
            return path
        return f"{path}{'&' if '?' in path else '?'}{query}"

    def initial_headers(self, body: Any) -> httpx.Headers:
        """The headers a call starts with: the ``headers`` option and, for a
        ``"json"`` endpoint, ``accept: application/json`` and, when the body is
        JSON or absent, ``content-type: application/json``. Middleware may
        change or remove them. Built once per endpoint; each call gets a copy.
        """
        json_body = body is None or isinstance(body, Mapping | list | tuple)
        cache = "_json_headers" if json_body else "_plain_headers"
        prebuilt = self.__dict__.get(cache)
        if prebuilt is None:
            prebuilt = httpx.Headers(self.headers or {})
            if self.content == "json":
                prebuilt.setdefault("accept", "application/json")
                if json_body:
                    prebuilt.setdefault("content-type", "application/json")
            self.__dict__[cache] = prebuilt
        return httpx.Headers(prebuilt)

    def key(self, params: Params | None = None) -> str:
        """A stable key for a call with ``params``: ``"GET https://host/path?a=1"``."""
        return f"{self.method} {self.url(params)}"

    def __repr__(self) -> str:
        parts = [f"{self.method} {redact_url(join_url(self.url_prefix, self.path))}"]
        if self.name:
            parts.append(f"name={self.name!r}")
        if self.content != "json":
            parts.append(f"content={self.content!r}")
        if self.schema is not None:
            parts.append(f"schema={getattr(self.schema, '__name__', self.schema)!r}")
        if self.headers:
            parts.append(
                "headers={" + ", ".join(f"{k}: {REDACTED}" for k in self.headers) + "}"
            )
        if len(self.middleware):
            parts.append(f"middleware={self.middleware!r}")
        return f"{type(self).__name__}({', '.join(parts)})"
