"""restwire's pipeline: endpoints, the middleware chain, and controllers.

Trace one call in a handful of files: ``_controller`` makes an ``_exchange``
for it, ``_chain`` runs it through the endpoint's ``_stack`` of middleware to
the ``_terminal``, which sends it hop by hop (``_redirects``), and a driver in
``_drivers`` performs the I/O the flow asks for (``_effects``).
"""

from ._body import Form
from ._content import Blob, Content
from ._controller import AsyncController, Controller
from ._effects import Close, Effect, Flow, Read, Send, Sleep
from ._endpoint import RestEndpoint
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
from ._stack import CallNext, FlowMiddleware, Stack

__all__ = [
    "AsyncController",
    "Blob",
    "BodyTooLarge",
    "CallNext",
    "Close",
    "Content",
    "ContentError",
    "Controller",
    "Credentials",
    "Effect",
    "Exchange",
    "Flow",
    "FlowMiddleware",
    "Form",
    "InvalidRequest",
    "NetworkError",
    "ParameterError",
    "Read",
    "RequestBodyError",
    "RestEndpoint",
    "RestwireError",
    "Send",
    "Sleep",
    "Stack",
    "TooManyRedirects",
    "TransportError",
]
