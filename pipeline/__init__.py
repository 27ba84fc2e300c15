"""restwire: a REST client layer on httpx where every concern is a middleware.

The package is built in layers, each a private sub-package that imports
only the ones below it (its docstring says what it holds; the docs'
architecture page draws them; ``tests/test_layers.py`` holds the code to
them):

| layer | holds |
|---|---|
| ``_controller`` | ``Controller`` / ``AsyncController`` and their driver (the sync one generated from the async); a call's steps, wired in one place |
| ``_endpoints`` | what users define: endpoints and their options, resources, pages, status errors |
| ``_cache`` | HTTP caching (RFC 9111), fill locks |
| ``_chain`` | the exchange (one call in flight), the middleware stack, identity |
| ``_wire`` | the HTTP library behind one adapter, content kinds, params, SSE, downloads |
| ``_store`` | entities, schemas as plans, the normalized store |
| ``_base`` | errors, HTTP's standards, credentials, effects, concurrency |

One call, top to bottom: ``_controller.sync_controller`` (``fetch``) ->
``_controller.controller`` (the steps) -> ``_chain.exchange`` (each
middleware) -> ``_controller.sender`` (build, send hop by hop, read,
parse) -> ``_wire.adapter`` (httpx) -> back up through ``_controller.
store_access`` into ``_store``.
"""

from importlib.metadata import PackageNotFoundError as _NotInstalled
from importlib.metadata import version as _version

from ._base.credentials import (
    CREDENTIAL_PARAMS,
    PUBLIC_HEADERS,
    STICKY_COOKIES,
    Credentials,
)
from ._base.effects import (
    Acquire,
    Blocking,
    Call,
    Effect,
    Flow,
    FlowLock,
    Lease,
    Release,
    ReleaseLease,
    SideCall,
    Sleep,
    TakeLease,
)
from ._base.errors import (
    BodyTooLarge,
    ContentError,
    ControllerClosed,
    DownloadError,
    InvalidRequest,
    MissingExtra,
    NetworkError,
    ParameterError,
    RequestBodyError,
    RestwireError,
    RestwireWarning,
    SettingError,
    TooManyRedirects,
    TransportError,
    UsageError,
)
from ._base.http import IDEMPOTENT_METHODS, SAFE_METHODS, Form, Problem
from ._cache.http_cache import HttpCache
from ._chain.exchange import CallNext, CallWatcher, EndpointView, Exchange
from ._chain.identity import Sharing
from ._chain.stack import (
    ErrorMiddleware,
    EventMiddleware,
    FlowMiddleware,
    Middleware,
    RequestMiddleware,
    ResponseMiddleware,
    Stack,
)
from ._controller.async_controller import AsyncController
from ._controller.managers import LogoutManager, Manager
from ._controller.polling import Subscription
from ._controller.sync_controller import Controller
from ._endpoints.endpoint import RestEndpoint
from ._endpoints.events import EventSchemas
from ._endpoints.options import EndpointOptions
from ._endpoints.pages import Page, page_total, paged
from ._endpoints.resource import HookifiedResource, Resource, hookify_resource, resource
from ._endpoints.status_errors import (
    BadRequestError,
    ClientError,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    ServerError,
    TooManyRequestsError,
    UnauthorizedError,
    UnprocessableEntityError,
)
from ._store.deferred_parse import Unparsed
from ._store.entity import Entity, EntityError
from ._store.schemas import Invalidate
from ._wire.content import (
    Blob,
    BlobContent,
    BytesContent,
    Content,
    JsonContent,
    StreamContent,
    TextContent,
)
from ._wire.downloads import filename_from, safe_filename
from ._wire.fast_transport import fast_transport
from ._wire.header_params import (
    Link,
    links_by_rel,
    parse_content_disposition,
    parse_link_header,
)
from ._wire.sse import ServerSentEvent

try:
    #: The installed distribution's version (``pyproject.toml`` sets it).
    __version__: str = _version("restwire")
except _NotInstalled:  # pragma: no cover - imported without installing
    __version__ = "0+unknown"

__all__ = [
    "CREDENTIAL_PARAMS",
    "IDEMPOTENT_METHODS",
    "PUBLIC_HEADERS",
    "SAFE_METHODS",
    "STICKY_COOKIES",
    "Acquire",
    "AsyncController",
    "BadRequestError",
    "Blob",
    "BlobContent",
    "Blocking",
    "BodyTooLarge",
    "BytesContent",
    "Call",
    "CallNext",
    "CallWatcher",
    "ClientError",
    "ConflictError",
    "Content",
    "ContentError",
    "Controller",
    "ControllerClosed",
    "Credentials",
    "DownloadError",
    "Effect",
    "EndpointOptions",
    "EndpointView",
    "Entity",
    "EntityError",
    "ErrorMiddleware",
    "EventMiddleware",
    "EventSchemas",
    "Exchange",
    "Flow",
    "FlowLock",
    "FlowMiddleware",
    "ForbiddenError",
    "Form",
    "HookifiedResource",
    "HttpCache",
    "InvalidRequest",
    "Invalidate",
    "JsonContent",
    "Lease",
    "Link",
    "LogoutManager",
    "Manager",
    "Middleware",
    "MissingExtra",
    "NetworkError",
    "NotFoundError",
    "Page",
    "ParameterError",
    "Problem",
    "Release",
    "ReleaseLease",
    "RequestBodyError",
    "RequestMiddleware",
    "Resource",
    "ResponseMiddleware",
    "RestEndpoint",
    "RestwireError",
    "RestwireWarning",
    "ServerError",
    "ServerSentEvent",
    "SettingError",
    "Sharing",
    "SideCall",
    "Sleep",
    "Stack",
    "StreamContent",
    "Subscription",
    "TakeLease",
    "TextContent",
    "TooManyRedirects",
    "TooManyRequestsError",
    "TransportError",
    "UnauthorizedError",
    "Unparsed",
    "UnprocessableEntityError",
    "UsageError",
    "fast_transport",
    "filename_from",
    "hookify_resource",
    "links_by_rel",
    "page_total",
    "paged",
    "parse_content_disposition",
    "parse_link_header",
    "resource",
    "safe_filename",
]
