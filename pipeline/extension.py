"""What an extension author may use besides restwire's top-level names.

A middleware needs nothing but ``restwire``'s public names to read and
change a call (``Exchange``, the effects, the errors). One that goes
further, a pagination kind, a tracer, a limit shared through Redis, needs
a few of the tools restwire's own middlewares are built with. They are
here, under names that stay: every middleware in ``restwire.middlewares``
imports only ``restwire``, ``restwire.middlewares`` and this module, as
yours can.

| name | for |
|---|---|
| ``Request``, ``Response``, ``Headers``, ``URL`` | annotating with the HTTP library's types: httpx's or httpx2's, whichever the controller sends with (to a type checker, either) |
| ``INVALID_URL`` | the exception classes a URL that cannot be parsed raises, in every installed library: ``except INVALID_URL`` |
| ``Origin``, ``origin_of`` | a URL's origin (scheme, host, port), as restwire's credential policy compares them |
| ``redact_url``, ``redact_params`` | a URL as text for a message or a span, its userinfo and credential params redacted |
| ``quoted_forms`` | the forms a server may quote a secret back in (form-, percent- and JSON-encoded), to redact them all from a message |
| ``not_a_redis_url`` | the ``SettingError`` of an option given a URL redis-py cannot read, the URL shown redacted |
| ``redis_address`` | where a redis-py client connects, for a log line, without its password |
| ``names_of`` | a setting that takes a collection of names (``methods=``), refused with a ``UsageError`` naming it when it is one text, which would be taken letter by letter |
| ``renewed_in_child`` | a lock your middleware keeps, made new in a process forked while another thread held it (and what it was doing dropped) |
| ``require`` | an optional package imported where your feature is made, or a ``MissingExtra`` naming what to install |
| ``retry_after_seconds`` | a ``Retry-After`` value read as seconds to wait (RFC 9110) |
| ``is_token``, ``TOKEN_CHARACTERS`` | whether a text is a header name or a method HTTP can send (an RFC 9110 token), and what one may hold, for a message |
| ``error_data`` | an error body read by an endpoint's ``error_schema``, as a status error's ``data`` (``None`` when it does not validate) |
| ``Envelope``, ``NextPage`` | the middleware that unwraps a listing's body into a ``Page``, and the protocol of a way to find the next page in it |
"""

from ._base.errors import (
    not_a_redis_url,
    quoted_forms,
    redact_params,
    redact_url,
    redis_address,
    require,
)
from ._base.forks import renewed_in_child
from ._base.http import (
    TOKEN_CHARACTERS,
    Origin,
    is_token,
    origin_of,
    retry_after_seconds,
)
from ._base.library import INVALID_URL, URL, Headers, Request, Response
from ._base.settings import names_of
from ._endpoints.pages import Envelope, NextPage
from ._endpoints.status_errors import typed_error_data as error_data

__all__ = [
    "INVALID_URL",
    "TOKEN_CHARACTERS",
    "URL",
    "Envelope",
    "Headers",
    "NextPage",
    "Origin",
    "Request",
    "Response",
    "error_data",
    "is_token",
    "names_of",
    "not_a_redis_url",
    "origin_of",
    "quoted_forms",
    "redact_params",
    "redact_url",
    "redis_address",
    "renewed_in_child",
    "require",
    "retry_after_seconds",
]
