"""The exchange: one call in flight, as every middleware sees it.

| field                | at request time                         | at response time                  |
|----------------------|-----------------------------------------|-----------------------------------|
| ``endpoint``         | the :class:`RestEndpoint` called (read through :class:`EndpointView`) | same |
| ``params``           | the call's params (read-only mapping)   | same                              |
| ``body``             | the Python body, before encoding        | same                              |
| ``content``          | the body's bytes, once encoded for a middleware that ``requires_request_body``; else ``None`` | same |
| ``method``           | the HTTP method                         | same                              |
| ``url``              | the absolute URL (``httpx.URL``)        | same (the first hop's URL)        |
| ``headers``          | ``httpx.Headers`` to send; change them  | same                              |
| ``credentials``      | ``"omit"``, ``"same-origin"``, ``"include"`` | same                         |
| ``sensitive``        | header names kept to the first origin   | same                              |
| ``response``         | ``None``                                | the final ``httpx.Response``      |
| ``hops``             | ``[]``                                  | the URL of every hop, in order    |
| ``value``            | ``None``                                | the parsed value; replace it (an ``Unparsed`` body where every layer ``takes_unparsed``) |
| ``parse``            | ``False`` for ``fetch_response``        | same                              |
| ``page``             | under ``paginate``, the page number (1, 2, ...); else ``None`` | same           |
| ``home``             | the URL whose origin the call's credentials belong to: ``None`` (its own); under ``paginate``, the first page's | same |
| ``shared_with``      | credential header names the user let a page on another origin carry (``paginate(cross_origin={...})``) | same |
| ``state``            | a dict for middleware of this call      | same                              |
| ``identity``         | ``None`` (set as the first hop is built) | who the call says it is (never shown) |
| ``watchers``         | ``()``; :meth:`watch` adds one          | same                              |

Every header but the public ones (``_base.credentials``), and one named in
``sensitive``, is a credential: sent only on hops at the origin the call
started at (its ``home``'s, for a later page of a listing), until a
redirect first leaves that origin (``_controller.sender``); its value
is never shown in a repr. ``set_credential`` sets such a header; ``cookie(name)``
reads the client's cookie jar as the server would for this URL.

**The body's bytes.** A middleware that signs a request (an HMAC, AWS
SigV4) needs the bytes that will be sent. One that says
``requires_request_body = True`` (as httpx's ``Auth`` does) finds them in
``exchange.content``: the body is encoded by the endpoint's content kind
just before its request side runs, and from then on the body cannot change
(a middleware inside it that tries gets a :class:`RequestBodyError`), so
what it signed is what is sent. Place it innermost, after the middleware
that transform the body.

The exchange carries no client: a middleware asks for I/O only through the
effects it yields (``_base.effects``), so it runs the same under both drivers.

**Watching the wire.** A middleware runs per pass through the chain; one
that must see every request the call actually sends (redirect hops
included, answers without sending excluded) and the call's end registers
a :class:`~restwire.CallWatcher` with :meth:`watch` (``_chain.watchers``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Mapping
from types import MappingProxyType, ModuleType
from typing import Any, Literal, Protocol

from .._base.credentials import (
    ALWAYS_SENSITIVE,
    CREDENTIALS,
    Credentials,
    is_credential,
    splits_header,
)
from .._base.effects import Flow
from .._base.errors import (
    InvalidRequest,
    RequestBodyError,
    SettingError,
    header_names,
    redact_url,
)
from .._base.http import (
    BODYLESS_METHODS,
    HEADER_NAME_RULE,
    Origin,
    is_token,
    origin_of,
)
from .._base.library import URL, Cookies, Headers, Response, Timeout
from .._wire.adapter import LOWER_NAME, fields_kept, own_headers_class
from .._wire.adapter import cookie_for as _cookie_for
from .._wire.content import ContentKind, replayable, styled_body

__all__ = [
    "CALL_HEADERS",
    "Answered",
    "CallNext",
    "CallWatcher",
    "EndpointView",
    "Exchange",
    "Handler",
    "HeaderNameRefused",
    "call_headers",
    "run_exchange",
]


class EndpointView(Protocol):
    """What a call's endpoint is to its middleware and to the steps that
    send it: the options they read. :class:`~restwire.RestEndpoint` is one."""

    @property
    def method(self) -> str: ...
    @property
    def label(self) -> str:
        """The endpoint's name for messages: its method and URL, redacted."""
        ...

    @property
    def schema(self) -> Any: ...
    @property
    def plan(self) -> Any:
        """How a value is normalized into the store and read back."""
        ...

    @property
    def error_schema(self) -> Any:
        """What a 4xx or 5xx body is validated into, as ``error.data``."""
        ...

    @property
    def content(self) -> ContentKind: ...
    @property
    def data_expiry_length(self) -> float: ...
    @property
    def error_expiry_length(self) -> float: ...
    @property
    def follow_redirects(self) -> bool: ...
    @property
    def max_redirects(self) -> int: ...
    @property
    def max_body_size(self) -> int | None: ...
    @property
    def sensitive_headers(self) -> frozenset[str]: ...
    @property
    def param_style(self) -> str:
        """How lists and dicts of a ``Form`` body are written (see
        ``RestEndpoint.param_style``)."""
        ...

    @property
    def timeout(self) -> Timeout | None: ...
    @property
    def side_effect(self) -> bool:
        """Whether the method changes data (never de-duplicated)."""
        ...

    @property
    def shape(self) -> Hashable:
        """What a call's value depends on besides the response."""
        ...

    @property
    def route(self) -> Hashable:
        """Method, URL prefix and path template: the endpoint whatever its
        params (``invalidate_all``)."""
        ...

    @property
    def adds_to(self) -> tuple[Any, str] | None:
        """For a create: the list endpoint its record joins, and where."""
        ...

    @property
    def expires(self) -> tuple[Any, ...] | None:
        """For a mutation: the reads whose results of its caller it expires."""
        ...

    @property
    def defers_parse(self) -> bool:
        """Whether a 2xx body may reach the store unparsed, read straight
        into entities."""
        ...

    def parse_response(self, response: Response) -> Any:
        """The value of a 2xx response."""
        ...

    def param_fields(self, params: Mapping[str, Any]) -> Mapping[str, Any]:
        """``params`` named as the schema's fields, through the middleware
        that rename response keys (``RestEndpoint.param_fields``)."""
        ...

    def process(self, value: Any, params: Mapping[str, Any]) -> Any:
        """The value, transformed after every middleware."""
        ...


#: How a call was answered without sending a request of its own: from the
#: store, or by an identical call in flight (``None``: it was not).
Answered = Literal["store", "flight"] | None


class CallWatcher(Protocol):
    """Sees each request one call sends, and the call's end (see the module)."""

    def on_send(self, exchange: Exchange, request: Any) -> Mapping[str, str] | None:
        """``request`` (an ``httpx.Request``, or httpx2's: the client's
        library), one hop of the call, is about to be sent; return headers
        to add to it alone (public ones only), or ``None``."""
        ...

    def on_sent(
        self,
        exchange: Exchange,
        request: Any,
        response: Any,
        error: BaseException | None,
    ) -> None:
        """The hop was sent: ``response`` has its headers (its body not yet
        read), or the send failed with ``error`` (restwire's: a
        :class:`~restwire.TransportError` has httpx's own as its
        ``__cause__``; a ``GeneratorExit`` when the call was cancelled while
        it waited)."""
        ...

    def on_end(
        self, exchange: Exchange, error: BaseException | None, answered: Answered
    ) -> None:
        """The call ended: ``error`` is what the caller gets raised (``None``
        for a value), ``answered`` how it was answered without sending."""
        ...


class Exchange:
    """One call of an endpoint, carried through its middleware chain."""

    __slots__ = (
        "_body",
        "_caller_key",
        "_content",
        "_credentials",
        "_encoded",
        "_jar",
        "endpoint",
        "headers",
        "home",
        "hops",
        "identity",
        "method",
        "page",
        "params",
        "parse",
        "response",
        "sensitive",
        "shared_with",
        "state",
        "url",
        "value",
        "watchers",
    )

    def __init__(
        self,
        endpoint: EndpointView,
        params: Mapping[str, Any],
        body: Any,
        url: URL,
        headers: Headers,
        cookies: Cookies,
        *,
        parse: bool = True,
        caller_key: Callable[[Exchange], str | None] | None = None,
    ) -> None:
        self.endpoint = endpoint
        self._caller_key = caller_key
        self.params: Mapping[str, Any] = MappingProxyType(dict(params))
        self._body = body
        self._content: bytes | None = None
        self._encoded = False
        self.method = endpoint.method
        self.url = url
        self.headers = headers
        self._jar = cookies
        self.parse = parse
        self.page: int | None = None
        #: The URL whose origin the call's credentials belong to, when it
        #: is not the call's own (a later page of a listing: the first
        #: page's); and the credential names the user let this call carry
        #: to its own origin all the same (``paginate(cross_origin=...)``).
        self.home: URL | None = None
        self.shared_with: frozenset[str] = frozenset()
        self._credentials: Credentials = "same-origin"
        self.sensitive: set[str] = set(ALWAYS_SENSITIVE)
        self.sensitive.update(endpoint.sensitive_headers)
        self.response: Response | None = None
        self.hops: list[URL] = []
        self.value: Any = None
        self.state: dict[str, Any] = {}
        #: Who the call says it is, once its first hop is built (``None``
        #: before): compared, never shown (``LogoutManager`` forgets it).
        self.identity: Any = None
        #: What is told of each send and of the call's end (``_chain.watchers``).
        self.watchers: tuple[CallWatcher, ...] = ()

    def caller_key(self) -> str | None:
        """Who this call says it is, as it stands now, as a digest equal in
        every process (a SHA-256; it shows no credential), for what a
        middleware keeps per caller: ``None`` when nothing the call carries
        tells callers apart. Read deny by default, as the store reads it:
        every header not public that middleware set so far and the client
        sends by default, the cookies the jar gives the URL, credential
        query params, what the client's ``auth`` adds, a client restwire
        cannot see whole, or the caller ``Controller(identity=...)`` names;
        a call whose client has request hooks is a caller of its own.
        (An exchange made outside a controller reads its own headers.)"""
        if self._caller_key is not None:
            return self._caller_key(self)
        credentials = sorted(
            (name.lower(), value)
            for name, value in self.headers.items()
            if is_credential(name.lower(), self.sensitive)
        )
        if not credentials:
            return None
        digest = hashlib.sha256(b"restwire-caller-headers-1\0")
        for name, value in credentials:
            digest.update(f"{name}\0{value}\0".encode())
        return digest.hexdigest()

    @property
    def credentials(self) -> Credentials:
        """Which hops carry cookies and store the cookies they are sent:
        ``"omit"`` none, ``"same-origin"`` (the default) those before the chain
        first leaves the call's origin, ``"include"`` all (the jar's own
        domain rules still apply)."""
        return self._credentials

    @credentials.setter
    def credentials(self, mode: Credentials) -> None:
        if mode not in CREDENTIALS:
            raise SettingError(
                f"credentials must be one of {sorted(CREDENTIALS)}, not {mode!r}"
            )
        self._credentials = mode

    def watch(self, watcher: CallWatcher) -> None:
        """Have ``watcher`` told of each request this call sends and of the
        call's end (``restwire.CallWatcher``). Register it once per call:
        a middleware's request side runs again on every retry."""
        self.watchers = (*self.watchers, watcher)

    def mark_sensitive(self, *names: str) -> None:
        """Keep these headers to the call's origin and out of every repr."""
        self.sensitive.update(name.lower() for name in names)

    def set_credential(self, header: str, value: str) -> None:
        """Send ``header: value`` as a credential: kept to the call's origin
        and out of every repr. A value with a line break or another control
        character (which could inject a header) is refused, and so is one
        outside ASCII (a header carries bytes: encode such a token first),
        with an :class:`InvalidRequest` naming the call and the header, not
        the value."""
        if splits_header(value):
            raise InvalidRequest(
                f"{self.label}: the {header} value has a line break or another "
                "control character; refusing to send it"
            )
        if not value.isascii() or not header.isascii():
            what = (
                f"the {header} value"
                if header.isascii()
                else f"the header name {header!r}"
            )
            raise InvalidRequest(
                f"{self.label}: {what} is not ASCII, which is all a header can "
                "carry; encode the token first (percent-encoding, base64)"
            )
        headers = self.headers
        if (
            header in _NAMES_SEEN
            and fields_kept(type(headers))
            and headers._encoding in _ASCII_ENCODINGS
        ):
            # (a name checked before, both ASCII, on headers of restwire's
            # class encoding ASCII as ASCII: a name the call does not send
            # yet is appended as the library appends it)
            name = header.encode("ascii")
            lower = name.lower()
            fields = headers._list
            if lower not in map(LOWER_NAME, fields):
                fields.append((name, lower, value.encode("ascii")))
            else:
                headers[header] = value
        else:
            headers[header] = value
        self.sensitive.add(header.lower())

    @property
    def body(self) -> Any:
        """The Python body, before encoding (``None``: no body)."""
        return self._body

    @body.setter
    def body(self, value: Any) -> None:
        if self._encoded:
            raise RequestBodyError(
                f"{self.label}: the body changed after it was encoded for a "
                "middleware that reads its bytes (requires_request_body): what "
                "it read would not be what is sent; change the body in a "
                "middleware outside that one"
            )
        self._body = value

    @property
    def content(self) -> bytes | None:
        """The body's bytes, once :meth:`encode` made them (a middleware that
        ``requires_request_body`` has them before its request side runs);
        ``None`` before, and for a call with no body."""
        return self._content

    def encode(self) -> bytes:
        """Encode the body now, by the endpoint's content kind, setting its
        ``Content-Type`` unless one is set; its bytes (empty for no body).
        From now on the body cannot change. An iterator body is streamed
        and cannot be encoded ahead: a :class:`RequestBodyError`."""
        if not self._encoded:
            body = self._body
            if body is not None:
                if self.method in BODYLESS_METHODS:
                    raise RequestBodyError(
                        f"{self.label}: {self.method} takes no body, but one was given"
                    )
                content_type = self.headers.get("content-type")
                body = styled_body(
                    body, content_type, self.endpoint.param_style, self.label
                )
                content, declared = self.endpoint.content.encode(
                    body, content_type, self.label
                )
                if declared is not None and "content-type" not in self.headers:
                    self.headers["content-type"] = declared
                self._content = content
            self._encoded = True
        return self._content if self._content is not None else b""

    @property
    def replayable(self) -> bool:
        """Whether ``call_next`` can send this call's body again (for a
        retry or a refresh): not when it is a one-shot iterator that the
        first send consumed."""
        return replayable(self._body)

    def cookie(self, name: str) -> str | None:
        """The value of the client's cookie ``name`` that the server at this
        call's URL reads (the most specific match), or ``None``."""
        return _cookie_for(self._jar, name, self.url)

    @property
    def label(self) -> str:
        """``"GET https://host/path"``, for messages: the URL's userinfo
        redacted."""
        return f"{self.method} {redact_url(self.url)}"

    @property
    def origin(self) -> Origin:
        """The call's origin: scheme, host and port."""
        return origin_of(self.url)

    def __repr__(self) -> str:
        status = f" -> {self.response.status_code}" if self.response is not None else ""
        marked = self.sensitive

        def hidden(name: str) -> bool:
            return is_credential(name, marked)

        return (
            f"<Exchange {self.method} {redact_url(self.url)}{status} "
            f"headers={header_names(self.headers, hidden)}>"
        )


#: The rest of the chain, as a flow middleware is given it. Its response is
#: of the controller's library: to a type checker, httpx's or httpx2's.
CallNext = Callable[[Exchange], Flow[Response]]
Handler = Callable[[Exchange, CallNext], Flow[Response]]


# -- running a call ----------------------------------------------------------------


class _Next:
    """``call_next`` for the handler at ``index``: the rest of the chain.
    (Nothing public on it: a middleware reaches the rest of the chain by
    calling it, never the controller or its client.)"""

    __slots__ = ("_handlers", "_index", "_innermost")

    def __init__(
        self, handlers: tuple[Handler, ...], index: int, innermost: CallNext
    ) -> None:
        self._handlers = handlers
        self._index = index
        self._innermost = innermost

    def __call__(self, exchange: Exchange) -> Flow[Response]:
        handlers, index = self._handlers, self._index
        if index == len(handlers):
            return self._innermost(exchange)
        return handlers[index](exchange, _Next(handlers, index + 1, self._innermost))


def run_exchange(
    exchange: Exchange, handlers: tuple[Handler, ...], innermost: CallNext
) -> Flow[Response]:
    """The flow of one call: ``handlers`` (a stack's), ``innermost`` (the
    steps that send), then the endpoint's ``process``. A header name a
    middleware set that HTTP cannot send is refused naming the call."""
    try:
        if handlers:
            response = yield from handlers[0](exchange, _Next(handlers, 1, innermost))
        else:
            response = yield from innermost(exchange)
    except HeaderNameRefused as refused:
        raise InvalidRequest(f"{exchange.label}: {refused}") from None
    if exchange.parse:
        exchange.value = exchange.endpoint.process(exchange.value, exchange.params)
    return response


# -- a call's headers --------------------------------------------------------------


class HeaderNameRefused(InvalidRequest):
    """A middleware set a header name HTTP cannot send (not ASCII, a space,
    a colon, empty): raised where it was set, and raised on by
    :func:`run_exchange` as an ``InvalidRequest`` naming the call."""


def call_headers(library: ModuleType) -> type[Any]:
    """``library.Headers`` as a call's headers (``exchange.headers``): a
    name HTTP cannot send, set by a middleware (``[name] =``,
    ``setdefault``, ``update``, ``set_credential``), is refused where it
    is set, instead of failing inside the library (a bare
    ``UnicodeEncodeError``) or going to the wire. Values are the library's
    to encode. Still the library's class: ``isinstance(headers,
    httpx.Headers)``."""
    made = CALL_HEADERS.get(library)
    if made is None:
        made = CALL_HEADERS[library] = type(
            "Headers",
            (_NamesChecked, library.Headers),
            {
                "__module__": library.Headers.__module__,
                "__slots__": (),
                "_plain": library.Headers,
            },
        )
        # (it sets a field as the library does, once the name is checked)
        own_headers_class(made)
    return made


class _NamesChecked:
    """The check of :func:`call_headers`, before the library's own methods."""

    __slots__ = ()
    #: The library's own class, which a copy or a pickle is.
    _plain: Any = None

    def __reduce__(self) -> tuple[Any, ...]:
        items: Any = self.multi_items()  # type: ignore[attr-defined]
        return (self._plain, (items,))

    def __setitem__(self, key: str, value: str) -> None:
        if key not in _NAMES_SEEN:
            _check_name(key)
        super().__setitem__(key, value)  # type: ignore[misc]

    def setdefault(self, key: str, default: str) -> str:
        if key not in _NAMES_SEEN:
            _check_name(key)
        return super().setdefault(key, default)  # type: ignore[misc,no-any-return]

    def update(self, headers: Any = None) -> None:
        if headers:
            names = (
                headers.keys()
                if isinstance(headers, Mapping)
                else (pair[0] for pair in headers)
            )
            for key in names:
                if key not in _NAMES_SEEN:
                    _check_name(key)
        super().update(headers)  # type: ignore[misc]


#: Each library's :func:`call_headers` class, once made (read on the hot
#: path: one dictionary look-up, no call).
CALL_HEADERS: dict[ModuleType, type[Any]] = {}
#: Header names a middleware set that were checked (a bound: names are few).
_NAMES_SEEN: set[str] = set()
#: The encodings a library's headers may have worked out (``None``: not
#: yet), each of which encodes ASCII text as its ASCII bytes.
_ASCII_ENCODINGS = (None, "ascii", "utf-8", "iso-8859-1")


def _check_name(name: Any) -> None:
    if isinstance(name, bytes):
        name = name.decode("latin-1")
    if not is_token(name):
        raise HeaderNameRefused(
            f"a middleware set the header name {name!r}, which cannot be "
            f"sent: {HEADER_NAME_RULE}"
        )
    if len(_NAMES_SEEN) < 4096:
        _NAMES_SEEN.add(name)
