"""restwire's middlewares: one concern per file, each a plain object that
runs unchanged under ``Controller`` and ``AsyncController``."""

from .access_token import AccessToken
from .body_pagination import BodyPagination
from .body_status import BodyStatus, BodyStatusError
from .context_token import ContextToken
from .cookie_credentials import CookieCredentials
from .csrf_token import CsrfToken
from .file_download import FileDownload
from .fill_primary_key import FillPrimaryKey
from .idempotency_key import IdempotencyKey
from .key_casing import (
    PASCAL,
    STYLES,
    CamelCaseKeys,
    KeyCollision,
    PascalCaseKeys,
    SnakeCaseKeys,
    to_camel,
    to_pascal,
    to_snake,
)
from .link_pagination import LinkPagination
from .oauth2 import OAuth2ClientCredentials, OAuth2Error, OAuth2Password
from .opentelemetry import OpenTelemetry
from .rate_limit import RateLimit, RateLimited, rate_limit_wait
from .rename_keys import RenameKeys
from .retry import Retry, retry_after_seconds
from .shared_token import SharedToken, SharedTokenError

__all__ = [
    "PASCAL",
    "STYLES",
    "AccessToken",
    "BodyPagination",
    "BodyStatus",
    "BodyStatusError",
    "CamelCaseKeys",
    "ContextToken",
    "CookieCredentials",
    "CsrfToken",
    "FileDownload",
    "FillPrimaryKey",
    "IdempotencyKey",
    "KeyCollision",
    "LinkPagination",
    "OAuth2ClientCredentials",
    "OAuth2Error",
    "OAuth2Password",
    "OpenTelemetry",
    "PascalCaseKeys",
    "RateLimit",
    "RateLimited",
    "RenameKeys",
    "Retry",
    "SharedToken",
    "SharedTokenError",
    "SnakeCaseKeys",
    "rate_limit_wait",
    "retry_after_seconds",
    "to_camel",
    "to_pascal",
    "to_snake",
]
