"""The public surface, pinned: what ``restwire`` and ``restwire.middlewares``
export, in the style of httpx's ``tests/test_exported_members.py``.

A name added to or removed from either ``__all__`` fails here until this list
says so: the surface changes on purpose, never by accident.
"""

from __future__ import annotations

from types import ModuleType

import pytest

import restwire
import restwire.middlewares

RESTWIRE = [
    "IDEMPOTENT_METHODS",
    "SAFE_METHODS",
    # who may share what
    "PUBLIC_HEADERS",
    "CREDENTIAL_PARAMS",
    "STICKY_COOKIES",
    "Sharing",
    # endpoints and resources
    "RestEndpoint",
    "EndpointOptions",
    "Stack",
    "Resource",
    "resource",
    "HookifiedResource",
    "hookify_resource",
    # entities and schemas
    "Entity",
    "EntityError",
    "Invalidate",
    "Page",
    "page_total",
    "paged",
    # controllers
    "Controller",
    "AsyncController",
    "Subscription",
    "ServerSentEvent",
    "EventSchemas",
    "HttpCache",
    "Manager",
    "LogoutManager",
    # writing middleware
    "Middleware",
    "RequestMiddleware",
    "ResponseMiddleware",
    "ErrorMiddleware",
    "EventMiddleware",
    "EndpointView",
    "Exchange",
    "Unparsed",
    "Credentials",
    "CallNext",
    "FlowMiddleware",
    "CallWatcher",
    "Flow",
    "Effect",
    "Sleep",
    "Call",
    "Blocking",
    "Acquire",
    "Release",
    "FlowLock",
    "TakeLease",
    "ReleaseLease",
    "Lease",
    "SideCall",
    # bodies
    "Content",
    "JsonContent",
    "TextContent",
    "BlobContent",
    "BytesContent",
    "StreamContent",
    "Blob",
    "Form",
    # header parsers and file names
    "Link",
    "parse_link_header",
    "links_by_rel",
    "parse_content_disposition",
    "fast_transport",
    "filename_from",
    "safe_filename",
    # errors
    "RestwireError",
    "UsageError",
    "SettingError",
    "InvalidRequest",
    "ParameterError",
    "RequestBodyError",
    "TransportError",
    "TooManyRedirects",
    "ControllerClosed",
    "ContentError",
    "BodyTooLarge",
    "DownloadError",
    "NetworkError",
    "ClientError",
    "BadRequestError",
    "UnauthorizedError",
    "ForbiddenError",
    "NotFoundError",
    "ConflictError",
    "UnprocessableEntityError",
    "TooManyRequestsError",
    "ServerError",
    "Problem",
    "MissingExtra",
    "RestwireWarning",
]

MIDDLEWARES = [
    "AccessToken",
    "ContextToken",
    "CookieCredentials",
    "CsrfToken",
    "CamelCaseKeys",
    "SnakeCaseKeys",
    "PascalCaseKeys",
    "KeyCollision",
    # the casing middlewares' conversions of one key, by style
    "to_camel",
    "to_snake",
    "to_pascal",
    "STYLES",
    "PASCAL",
    "RenameKeys",
    "FillPrimaryKey",
    "LinkPagination",
    "BodyPagination",
    "BodyStatus",
    "BodyStatusError",
    "FileDownload",
    "Retry",
    "retry_after_seconds",
    "IdempotencyKey",
    "OpenTelemetry",
    "SharedToken",
    "SharedTokenError",
    "OAuth2ClientCredentials",
    "OAuth2Password",
    "OAuth2Error",
    "RateLimit",
    "RateLimited",
    "rate_limit_wait",
]

#: What DESIGN.md names as the public surface: each must be exported.
DESIGN = {
    restwire: [
        "RestEndpoint",
        "resource",
        "hookify_resource",
        "Entity",
        "Blob",
        "Invalidate",
        "Controller",
        "AsyncController",
        "LogoutManager",
        "RestwireError",
        "NetworkError",
        "ClientError",
        "BadRequestError",
        "UnauthorizedError",
        "ForbiddenError",
        "NotFoundError",
        "ConflictError",
        "UnprocessableEntityError",
        "TooManyRequestsError",
        "ServerError",
        "Problem",
    ],
    restwire.middlewares: [
        "CookieCredentials",
        "AccessToken",
        "ContextToken",
        "CsrfToken",
        "CamelCaseKeys",
        "SnakeCaseKeys",
        "RenameKeys",
        "FillPrimaryKey",
        "LinkPagination",
        "FileDownload",
        "Retry",
        "KeyCollision",
        "IdempotencyKey",
        "OpenTelemetry",
    ],
}


@pytest.mark.parametrize(
    ("module", "expected"),
    [(restwire, RESTWIRE), (restwire.middlewares, MIDDLEWARES)],
    ids=["restwire", "restwire.middlewares"],
)
def test_all_is_pinned_and_every_public_name_is_in_it(
    module: ModuleType, expected: list[str]
) -> None:
    assert sorted(module.__all__) == sorted(expected)
    assert len(set(module.__all__)) == len(module.__all__)
    public = {
        name
        for name in dir(module)
        if not name.startswith("_")
        and not isinstance(getattr(module, name), ModuleType)
        and name != "annotations"
    }
    assert public == set(module.__all__)
    for name in module.__all__:
        member = getattr(module, name)
        owner = getattr(member, "__module__", None)
        if owner is not None and isinstance(member, type):
            assert owner.startswith(module.__name__), (name, owner)


def test_what_design_names_is_exported() -> None:
    for module, names in DESIGN.items():
        assert set(names) <= set(module.__all__), module.__name__


def test_wire_effects_are_not_exported() -> None:
    for name in ("Send", "Read", "Drain", "Close", "_Send", "_Read"):
        assert not hasattr(restwire, name)
