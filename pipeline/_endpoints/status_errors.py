"""The status errors: a ``NetworkError`` typed by the response's status.

| status | raised as |
|---|---|
| 400 | :class:`BadRequestError` |
| 401 | :class:`UnauthorizedError` |
| 403 | :class:`ForbiddenError` |
| 404 | :class:`NotFoundError` |
| 409 | :class:`ConflictError` |
| 422 | :class:`UnprocessableEntityError` |
| 429 | :class:`TooManyRequestsError` |
| any other 4xx | :class:`ClientError` (the base of the ones above) |
| any 5xx | :class:`ServerError` |
| anything else outside 2xx | :class:`NetworkError` |

Every one is a ``NetworkError``, so ``except NetworkError`` catches them all,
with its ``status``, ``request_id``, ``retry_after``, ``problem``, ``data``
(the body as JSON) and the server's reason in its message.
:func:`status_error` fills ``data`` with the body validated by the
endpoint's ``error_schema`` with the machinery of its ``schema``
(``_store.schemas``, read back, nothing kept), when it validates. A body
that does not leaves ``data`` the body as JSON (``None`` when it is not
JSON): the status error is raised all the same, never a validation error
in its place, so one ``error_schema`` for a service's 422s leaves its
404s readable too. The body was read with the endpoint's
``max_body_size``. Nothing here runs unless a call failed.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Mapping
from typing import Any

from .._base.credentials import PUBLIC_HEADERS
from .._base.errors import NetworkError, redact_secrets, redact_url, sent_secrets
from .._base.library import Response
from .._store.schemas import Batch, denormalize, normalize

__all__ = [
    "BadRequestError",
    "ClientError",
    "ConflictError",
    "ForbiddenError",
    "NotFoundError",
    "ServerError",
    "TooManyRequestsError",
    "UnauthorizedError",
    "UnprocessableEntityError",
    "error_data",
    "status_error",
    "typed_error_data",
]

logger = logging.getLogger("restwire")


class ClientError(NetworkError):
    """A 4xx: the server refused the request as sent."""


class BadRequestError(ClientError):
    """A 400 Bad Request."""


class UnauthorizedError(ClientError):
    """A 401 Unauthorized: no valid credentials were sent."""


class ForbiddenError(ClientError):
    """A 403 Forbidden: the credentials sent may not do this."""


class NotFoundError(ClientError):
    """A 404 Not Found."""


class ConflictError(ClientError):
    """A 409 Conflict with the current state of the resource."""


class UnprocessableEntityError(ClientError):
    """A 422 Unprocessable Content: the body was understood but refused
    (validation details are usually in ``problem``, ``data`` or ``json()``)."""


class TooManyRequestsError(ClientError):
    """A 429 Too Many Requests (``retry_after`` says how long to wait, when
    the server said)."""


class ServerError(NetworkError):
    """A 5xx: the server failed to answer."""


_BY_STATUS: dict[int, type[NetworkError]] = {
    400: BadRequestError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: TooManyRequestsError,
}


def error_class(status: int) -> type[NetworkError]:
    """The error a response of ``status`` (outside 2xx) is raised as."""
    kind = _BY_STATUS.get(status)
    if kind is not None:
        return kind
    if 400 <= status < 500:
        return ClientError
    if 500 <= status < 600:
        return ServerError
    return NetworkError


def status_error(
    response: Response,
    error_schema: Any = None,
    params: Mapping[str, Any] | None = None,
    marked: Collection[str] = (),
    public: Collection[str] = PUBLIC_HEADERS,
) -> NetworkError:
    """The error for ``response`` (body read), typed by its status, its
    ``data`` validated by ``error_schema`` when one is given and fits (else
    the body as JSON); ``marked`` and ``public`` say which of the request's
    headers are credentials, never shown in its message."""
    error = error_class(response.status_code)(response, marked, public)
    if error_schema is not None:
        typed = error_data(error_schema, response, params or {}, marked, public)
        if typed is not _UNREAD:
            error.data = typed
    return error


class _Unread:
    pass


#: How much of a validation error a debug line quotes (a model's error
#: lists every field at fault, each with its input).
_LOGGED = 2000


#: What :func:`error_data` gives for a body its schema cannot read.
_UNREAD: Any = _Unread()


def error_data(
    schema: Any,
    response: Response,
    params: Mapping[str, Any],
    marked: Collection[str] = (),
    public: Collection[str] = PUBLIC_HEADERS,
) -> Any:
    """The error body of ``response`` as ``schema`` reads it (entities built,
    models validated, not stored); ``_UNREAD`` when it does not validate,
    said in a debug line that quotes no credential the request carried
    (``marked`` and ``public`` as for the error), even one the body
    echoes."""
    try:
        document = json.loads(response.content)
        batch = Batch()
        return denormalize(
            schema, normalize(schema, document, batch, params), batch.records
        )
    except Exception as error:  # whatever a schema raises: the status error wins
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s", _not_validated(response, error, marked, public))
        return _UNREAD


def _not_validated(
    response: Response,
    error: Exception,
    marked: Collection[str],
    public: Collection[str],
) -> str:
    """The debug line saying why ``response``'s body did not validate:
    ``error``'s text with no credential the request carried, or only its
    type when its text cannot be had (its ``__str__`` failing, a response
    with no request)."""
    said = f"the {response.status_code} body does not validate as error_schema"
    try:
        request = response.request
        said = f"{request.method} {redact_url(request.url)}: {said}"
        text = redact_secrets(
            str(error), sent_secrets(request, marked, public), end=_LOGGED
        )
    except Exception:  # (the error is the schema's: anything may fail)
        return f"{said} ({type(error).__name__})"
    return f"{said} ({type(error).__name__}: {text})"


def typed_error_data(
    schema: Any,
    response: Response,
    params: Mapping[str, Any],
    marked: Collection[str] = (),
    public: Collection[str] = PUBLIC_HEADERS,
) -> Any:
    """The error body of ``response`` as ``schema`` reads it (entities
    built, models validated, not stored); ``None`` when it does not
    validate (``restwire.extension.error_data``). ``marked`` (the headers
    the endpoint marks sensitive: ``exchange.sensitive``) and ``public``
    say which of the request's headers are credentials, never quoted in
    the debug line that says why a body did not validate."""
    typed = error_data(schema, response, params, marked, public)
    return None if typed is _UNREAD else typed
