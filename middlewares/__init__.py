"""restwire's middlewares: one concern per file, each a plain object that
runs unchanged under ``Controller`` and ``AsyncController``."""

from .access_token import AccessToken
from .context_token import ContextToken
from .cookie_credentials import CookieCredentials
from .csrf_token import CsrfToken
from .retry import Retry, RetryBudgetExceeded, retry_after_seconds

__all__ = [
    "AccessToken",
    "ContextToken",
    "CookieCredentials",
    "CsrfToken",
    "Retry",
    "RetryBudgetExceeded",
    "retry_after_seconds",
]
