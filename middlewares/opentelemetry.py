"""``OpenTelemetry``: a span per call, a child span per request it sends.

::

    api = RestEndpoint(url_prefix="https://api.example.com").use(OpenTelemetry())

Needs ``opentelemetry-api`` (``pip install "restwire[otel]"``); without it,
making the middleware raises a :class:`RestwireError` saying so. Spans go to
``tracer_provider``, or to the global one (``opentelemetry.trace``).

**The call span** (kind ``INTERNAL``), named ``{method} {url.template}``
(``GET /posts/:id``; ``HTTP /posts/:id`` for a method the conventions do
not know), with the HTTP client attributes of the semantic conventions:
``http.request.method`` (``_OTHER`` and ``http.request.method_original``
for an unknown method; ``OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS`` replaces
the list), ``url.full``, ``url.template`` (the endpoint's path template,
with its ``url_prefix``'s path), ``server.address``, ``server.port``; at
the end ``http.response.status_code`` (the final response's, if one came),
``error.type`` and status ``ERROR`` if the call raised, and
``restwire.cache_hit``: ``true`` when the value came from the store or from
the HTTP cache's storage (fresh, or revalidated by a 304), else ``false``.
A call that shared the request of an identical call in flight
(``restwire.shared_request = true``) has no send span of its own: the call
it joined has.

**A send span** (kind ``CLIENT``, a child of the call span) for each request
actually sent: the first, each retry and re-send after a token refresh
(whichever side of this middleware ``Retry`` or ``AccessToken`` sits), each
redirect hop, an HTTP cache's revalidation; none for an answer from the
store or the HTTP cache. Same attributes, for that hop (a redirect hop to
another URL has no ``url.template`` and is named ``{method}``), plus
``http.request.resend_count`` (1, 2, ... on every send after the first) and
``http.response.status_code``. It ends when the response headers arrive
(the body is read after). Status ``ERROR`` from 400 up.

**error.type**: the status code as text (``"404"``) for a 4xx or 5xx; else
the exception's class by its public name: ``restwire.TransportError``,
``restwire.ContentError``, ... on the call span, httpx's own on a send span
(``httpx.ConnectError``, ``httpx.ReadTimeout``), ``asyncio.CancelledError``
or ``GeneratorExit`` for a cancelled call.

**What never reaches a span**: headers (so no token or cookie), bodies,
error messages (a ``ContentError`` quotes the body). ``url.full`` has its
userinfo as ``REDACTED:REDACTED`` and the values of the query parameters in
``restwire.CREDENTIAL_PARAMS`` as ``REDACTED``: those the conventions name
(``AWSAccessKeyId``, ``Signature``, ``sig``, ``X-Goog-Signature``) and
tokens such as ``access_token`` and ``api_key``.

**Trace context.** Each send to the call's origin (scheme, host, port)
carries what the global propagator injects for its send span: ``traceparent``
and ``tracestate`` with the default one. A hop to another origin (a
redirect) carries none. The headers are added to that hop's request alone,
after the call's identity was read, so calls of one identity still share
one request in flight, the store and the HTTP cache. Only public headers
are added (the controller's ``Sharing``): ``baggage`` is not, since it may
carry who is calling; list it in ``Sharing(public_headers=...)`` to send it.

**Where it sits.** Anywhere in a stack: it starts the call span when its
request side first runs (put it first to time the other middleware's waits
too), registers once per call however often ``Retry`` or ``AccessToken``
run it again, and the span ends when the call ends. Spans are parented on
the context current when the call starts.

**Answers from the store.** The middleware does not say
``sends_credentials = False``, on purpose: a ``get`` of an endpoint that
uses it runs the chain, so its answers from the store are traced too (a call
span, ``restwire.cache_hit = true``, no send span), at the cost of the few
microseconds the store-only path would save. (A ``subscribe`` working out
who is calling sends nothing and makes no span.)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from restwire import Exchange, MissingExtra, NetworkError, RestwireError, UsageError
from restwire.extension import URL, Request, Response, origin_of, redact_params, require

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer, TracerProvider

__all__ = ["OpenTelemetry"]

#: The methods the semantic conventions know (RFC 9110 and PATCH).
KNOWN_METHODS = frozenset(
    ("CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE")
)
#: What a redacted part of ``url.full`` reads, as the conventions spell it.
REDACTED = "REDACTED"
_DEFAULT_PORTS = {"http": 80, "https": 443}


class MissingOpenTelemetry(MissingExtra):
    """opentelemetry-api is not installed (the ``otel`` extra)."""


def _opentelemetry() -> Any:
    """The ``opentelemetry`` modules this middleware uses, imported."""
    require("opentelemetry", "OpenTelemetry()", error=MissingOpenTelemetry)
    from opentelemetry import propagate, trace

    return trace, propagate


def _known_methods() -> frozenset[str]:
    """The known methods: the conventions' list, or the one the environment
    gives (``OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS``, a full override)."""
    given = os.environ.get("OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS")
    if not given:
        return KNOWN_METHODS
    return frozenset(method.strip() for method in given.split(",") if method.strip())


class OpenTelemetry:
    """Traces the calls through it (see the module)."""

    #: Leaves the value alone: a body may reach the store unparsed.
    takes_unparsed = True

    def __init__(self, tracer_provider: TracerProvider | None = None) -> None:
        if tracer_provider is not None and not hasattr(tracer_provider, "get_tracer"):
            raise UsageError(
                "OpenTelemetry(tracer_provider=...) takes a TracerProvider, not "
                f"{type(tracer_provider).__name__}"
            )
        trace, propagate = _opentelemetry()
        self._trace = trace
        self._propagate = propagate
        self.tracer_provider = tracer_provider
        self._tracer: Tracer = trace.get_tracer(
            "restwire", tracer_provider=tracer_provider
        )
        self._known = _known_methods()
        #: ``exchange.state`` entry: this middleware watches that call.
        self._key = f"opentelemetry-{id(self)}"

    def on_request(self, exchange: Exchange) -> None:
        if self._key in exchange.state:
            return  # run again (a retry, a refresh): the call is watched
        exchange.state[self._key] = True
        exchange.watch(_CallSpans(self, exchange))

    def __repr__(self) -> str:
        provider = "global" if self.tracer_provider is None else "given"
        return f"OpenTelemetry(tracer_provider={provider})"


class _CallSpans:
    """The spans of one call: its own, and one per send (a ``CallWatcher``)."""

    __slots__ = ("_call", "_hop", "_otel", "_sends", "_template", "span")

    def __init__(self, otel: OpenTelemetry, exchange: Exchange) -> None:
        self._otel = otel
        self._template = _template(exchange.endpoint)
        self._call = exchange.url.copy_with(userinfo=b"", fragment=None)
        self._sends = 0
        self._hop: Span | None = None
        name, attributes = self._describe(exchange.method, exchange.url, True)
        self.span: Span = otel._tracer.start_span(
            name, kind=otel._trace.SpanKind.INTERNAL, attributes=attributes
        )

    def _describe(
        self, method: str, url: URL, templated: bool
    ) -> tuple[str, dict[str, Any]]:
        """A span's name and its attributes at start, for ``method`` on
        ``url`` (``templated``: ``url`` is the call's own)."""
        known = method in self._otel._known
        attributes: dict[str, Any] = {
            "http.request.method": method if known else "_OTHER",
            "url.full": full_url(url),
            "server.address": url.host,
            "server.port": url.port or _DEFAULT_PORTS.get(url.scheme, 0),
        }
        if not known:
            attributes["http.request.method_original"] = method
        name = method if known else "HTTP"
        if templated and self._template is not None:
            attributes["url.template"] = self._template
            name = f"{name} {self._template}"
        return name, attributes

    # -- CallWatcher ---------------------------------------------------------

    def on_send(self, exchange: Exchange, request: Request) -> Mapping[str, str] | None:
        otel = self._otel
        trace = otel._trace
        url = request.url
        own = url.copy_with(fragment=None) == self._call
        name, attributes = self._describe(request.method, url, own)
        if self._sends:
            attributes["http.request.resend_count"] = self._sends
        self._sends += 1
        parent = trace.set_span_in_context(self.span)
        hop: Span = otel._tracer.start_span(
            name, context=parent, kind=trace.SpanKind.CLIENT, attributes=attributes
        )
        self._hop = hop
        if origin_of(url) != exchange.origin:
            return None  # never a trace context to another origin
        carrier: dict[str, str] = {}
        otel._propagate.inject(carrier, context=trace.set_span_in_context(hop))
        return carrier

    def on_sent(
        self,
        exchange: Exchange,
        request: Request,
        response: Response | None,
        error: BaseException | None,
    ) -> None:
        hop, self._hop = self._hop, None
        if hop is None:
            return
        if response is not None:
            self._ended(hop, response.status_code, None)
        else:
            # restwire's TransportError says less than the httpx error it is from
            cause = error.__cause__ if isinstance(error, RestwireError) else None
            self._ended(hop, None, cause or error)

    def on_end(
        self, exchange: Exchange, error: BaseException | None, answered: str | None
    ) -> None:
        span = self.span
        response = exchange.response
        status = None
        if isinstance(error, NetworkError):
            status = error.status
        elif response is not None and answered is None:
            status = response.status_code
        caching = response.extensions.get("caching") if response is not None else None
        span.set_attribute(
            "restwire.cache_hit",
            answered == "store"
            or (isinstance(caching, dict) and caching.get("from_cache") is True),
        )
        if answered == "flight":
            span.set_attribute("restwire.shared_request", True)
        self._ended(span, status, error)

    def _ended(
        self, span: Span, status: int | None, error: BaseException | None
    ) -> None:
        """End ``span`` with the status code it got and the error it met."""
        if status is not None:
            span.set_attribute("http.response.status_code", status)
        failed = error_type(status, error)
        if failed is not None:
            span.set_attribute("error.type", failed)
            span.set_status(self._otel._trace.StatusCode.ERROR)
        span.end()


def error_type(status: int | None, error: BaseException | None) -> str | None:
    """``error.type``: the status code as text from 400 up, else the error's
    class by its public name (``None``: no error)."""
    if status is not None and status >= 400:
        return str(status)
    if error is None:
        return None
    return public_name(type(error))


def public_name(kind: type) -> str:
    """A class's name as its package exports it (``restwire.TransportError``,
    not ``restwire._base.errors.TransportError``); a builtin's bare name."""
    module = kind.__module__
    if module == "builtins":
        return kind.__qualname__
    top = module.partition(".")[0]
    if getattr(sys.modules.get(top), kind.__name__, None) is kind:
        return f"{top}.{kind.__name__}"
    return f"{module}.{kind.__qualname__}"


def full_url(url: URL) -> str:
    """``url.full``: userinfo as ``REDACTED:REDACTED``, the values of
    credential query parameters (``restwire.CREDENTIAL_PARAMS``) as
    ``REDACTED``, as the conventions ask."""
    if url.userinfo:
        text = str(url.copy_with(userinfo=b""))
        scheme, _, rest = text.partition("://")
        text = f"{scheme}://{REDACTED}:{REDACTED}@{rest}"
    else:
        text = str(url)
    return redact_params(text, REDACTED) if url.query else text


def _template(endpoint: Any) -> str | None:
    """``url.template``: the endpoint's path template as an absolute path
    (its ``url_prefix``'s path before it); ``None`` when it has none."""
    prefix = getattr(endpoint, "url_prefix", "")
    path = getattr(endpoint, "path", "")
    if not isinstance(prefix, str) or not isinstance(path, str):
        return None
    joined = f"{prefix.rstrip('/')}/{path.lstrip('/')}" if prefix else path
    if "://" in joined:
        after = joined.partition("://")[2]
        slash = after.find("/")
        joined = after[slash:] if slash >= 0 else "/"
    joined = joined.split("?", 1)[0].split("#", 1)[0]
    if not joined.startswith("/"):
        joined = f"/{joined}"
    return joined
