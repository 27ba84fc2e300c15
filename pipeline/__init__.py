"""restwire: a REST client layer on httpx where every concern is a middleware.

Trace one call in a handful of modules, top to bottom:

| module | concept |
|---|---|
| ``_sync`` / ``_async`` | ``Controller`` / ``AsyncController`` and their driver: the only I/O code, once per kind of client |
| ``_controller`` | what both controllers share: the call, the store's keys, in-flight sharing, managers, pollers' bookkeeping |
| ``_endpoint`` | ``RestEndpoint``: options, path template, query string |
| ``_exchange`` | the call in flight, as middleware sees it |
| ``_chain`` | the middleware stack, and one call run through it |
| ``_terminal`` | the innermost step: build, send hop by hop, read, parse |
| ``_hops`` | which credentials each hop may carry; redirects; cookies |
| ``_content`` | bodies both ways: content kinds, request encoding |
| ``_store`` | normalizing by schema, the store, reading back |

With ``cache=``, ``_http_cache`` puts hishel under the client's transports
(``_fill_lock`` lets one process fill an entry while others wait).

Beside them: ``_effects`` (what a flow may ask a driver to do), ``_entity``,
``_resource``, ``_managers``, ``_polling``, ``_download``, ``_header_params``
(``Link`` and ``Content-Disposition``), ``_http`` (method classes, origins),
and ``_errors`` (exceptions and redaction) at the bottom.
"""

from ._async import AsyncController
from ._chain import (
    CallNext,
    ErrorMiddleware,
    FlowMiddleware,
    Middleware,
    RequestMiddleware,
    ResponseMiddleware,
    Stack,
)
from ._content import (
    Blob,
    BlobContent,
    BytesContent,
    Content,
    Form,
    JsonContent,
    StreamContent,
    TextContent,
)
from ._download import filename_from, safe_filename
from ._effects import (
    Acquire,
    Blocking,
    Call,
    Effect,
    Flow,
    FlowLock,
    Release,
    Sleep,
)
from ._endpoint import RestEndpoint
from ._entity import Entity, EntityError
from ._errors import (
    BodyTooLarge,
    ContentError,
    ControllerClosed,
    InvalidRequest,
    NetworkError,
    ParameterError,
    RequestBodyError,
    RestwireError,
    TooManyRedirects,
    TransportError,
)
from ._exchange import EndpointView, Exchange
from ._header_params import (
    Link,
    links_by_rel,
    parse_content_disposition,
    parse_link_header,
)
from ._hops import Credentials
from ._http import IDEMPOTENT_METHODS, SAFE_METHODS
from ._http_cache import HttpCache
from ._managers import LogoutManager, Manager
from ._page import Page, paged
from ._polling import Subscription
from ._resource import HookifiedResource, Resource, hookify_resource, resource
from ._store import Invalidate
from ._sync import Controller
from ._unparsed import Unparsed

__all__ = [
    "IDEMPOTENT_METHODS",
    "SAFE_METHODS",
    "Acquire",
    "AsyncController",
    "Blob",
    "BlobContent",
    "Blocking",
    "BodyTooLarge",
    "BytesContent",
    "Call",
    "CallNext",
    "Content",
    "ContentError",
    "Controller",
    "ControllerClosed",
    "Credentials",
    "Effect",
    "EndpointView",
    "Entity",
    "EntityError",
    "ErrorMiddleware",
    "Exchange",
    "Flow",
    "FlowLock",
    "FlowMiddleware",
    "Form",
    "HookifiedResource",
    "HttpCache",
    "InvalidRequest",
    "Invalidate",
    "JsonContent",
    "Link",
    "LogoutManager",
    "Manager",
    "Middleware",
    "NetworkError",
    "Page",
    "ParameterError",
    "Release",
    "RequestBodyError",
    "RequestMiddleware",
    "Resource",
    "ResponseMiddleware",
    "RestEndpoint",
    "RestwireError",
    "Sleep",
    "Stack",
    "StreamContent",
    "Subscription",
    "TextContent",
    "TooManyRedirects",
    "TransportError",
    "Unparsed",
    "filename_from",
    "hookify_resource",
    "links_by_rel",
    "paged",
    "parse_content_disposition",
    "parse_link_header",
    "resource",
    "safe_filename",
]
