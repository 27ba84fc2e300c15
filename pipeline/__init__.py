"""restwire's pipeline: endpoints, the middleware chain, and controllers.

Trace one call in a handful of files: ``_controller`` makes an ``_exchange``
for it, ``_chain`` runs it through the endpoint's ``_stack`` of middleware to
the ``_terminal``, which sends it hop by hop (``_redirects``), and a driver in
``_drivers`` performs the I/O the flow asks for (``_effects``).
"""

from ._body import Form
from ._content import Blob, Content
from ._controller import AsyncController, Controller
from ._disposition import filename_from, parse_content_disposition, safe_filename
from ._effects import (
    Acquire,
    Call,
    Close,
    Effect,
    Flow,
    FlowLock,
    Read,
    Release,
    Send,
    Sleep,
)
from ._endpoint import RestEndpoint
from ._entity import Entity, EntityError
from ._errors import (
    BodyTooLarge,
    ContentError,
    InvalidRequest,
    NetworkError,
    ParameterError,
    RequestBodyError,
    RestwireError,
    TooManyRedirects,
    TransportError,
)
from ._exchange import Credentials, Exchange
from ._links import Link, links_by_rel, parse_link_header
from ._managers import LogoutManager, Manager
from ._polling import Subscription
from ._resource import HookifiedResource, Resource, hookify_resource, resource
from ._schema import Invalidate
from ._stack import CallNext, FlowMiddleware, Stack

__all__ = [
    "Acquire",
    "AsyncController",
    "Blob",
    "BodyTooLarge",
    "Call",
    "CallNext",
    "Close",
    "Content",
    "ContentError",
    "Controller",
    "Credentials",
    "Effect",
    "Entity",
    "EntityError",
    "Exchange",
    "Flow",
    "FlowLock",
    "FlowMiddleware",
    "Form",
    "HookifiedResource",
    "InvalidRequest",
    "Invalidate",
    "Link",
    "LogoutManager",
    "Manager",
    "NetworkError",
    "ParameterError",
    "Read",
    "Release",
    "RequestBodyError",
    "Resource",
    "RestEndpoint",
    "RestwireError",
    "Send",
    "Sleep",
    "Stack",
    "Subscription",
    "TooManyRedirects",
    "TransportError",
    "filename_from",
    "hookify_resource",
    "links_by_rel",
    "parse_content_disposition",
    "parse_link_header",
    "resource",
    "safe_filename",
]
