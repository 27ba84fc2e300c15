"""``Retry-After`` (RFC 9110, section 10.2.3) read as seconds to wait.

One parser for every reader of the header: ``Retry`` and ``RateLimit``
decide their waits by it, and every ``NetworkError`` carries its reading
as ``retry_after``. It sits at the bottom, importing nothing of restwire,
and never raises on malformed text.
"""

from __future__ import annotations

import datetime
import email.utils
import re
from collections.abc import Callable

__all__ = ["retry_after_seconds"]

_SECONDS = re.compile(r"[0-9]+")


def retry_after_seconds(
    value: str | None, now: Callable[[], datetime.datetime] | None = None
) -> float | None:
    """Seconds to wait per a ``Retry-After`` value; ``None`` if it has none.

    Whole seconds or an HTTP-date in any of the three forms RFC 9110 allows
    (IMF-fixdate, RFC 850, asctime; a date in the past is 0). Anything else,
    including negative or fractional numbers, is ``None``.
    """
    if value is None:
        return None
    text = value.strip()
    if _SECONDS.fullmatch(text):
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        # asctime ("Sun Nov  6 08:49:37 1994") carries no zone: HTTP-dates
        # are all UTC (RFC 9110, section 5.6.7).
        when = when.replace(tzinfo=datetime.UTC)
    current = now() if now is not None else datetime.datetime.now(datetime.UTC)
    return max((when - current).total_seconds(), 0.0)
