"""Retry-After vectors published by urllib3.

Source: urllib3/urllib3, ``test/test_retry.py`` at commit
00b2d87b2c113d22a8b77c0a13ef0e1da80d22b8
(``test_parse_retry_after_invalid``, ``test_parse_retry_after`` and
``test_respect_retry_after_header_sleep``, whose clock reads 2019-06-03
11:00:00 UTC), https://github.com/urllib3/urllib3. The dates cover the three
HTTP-date forms of RFC 9110 section 5.6.7 (IMF-fixdate, RFC 850, asctime).

Each vector is a header value and the seconds to wait, or ``None`` for a
value that is not a Retry-After (urllib3 raises InvalidHeader for those).
"""

from __future__ import annotations

import datetime

SOURCE = "urllib3/urllib3@00b2d87b2c113d22a8b77c0a13ef0e1da80d22b8"

NOW = datetime.datetime(2019, 6, 3, 11, tzinfo=datetime.UTC)

VECTORS: list[tuple[str, float | None]] = [
    ("-1", None),
    ("+1", None),
    ("1.0", None),
    ("\xb2", None),  # superscript two: a digit to str.isdigit, not to HTTP
    ("0", 0),
    ("1000", 1000),
    ("\t42 ", 42),
    ("3600", 3600),
    ("Mon, 3 Jun 2019 12:00:00 UTC", 3600),
    ("Mon, 3 Jun 2019 11:00:00 UTC", 0),  # the moment itself: no wait
    ("Mon, 03 Jun 2019 11:30:12 GMT", 1812),
    ("Monday, 03-Jun-19 11:30:12 GMT", 1812),
    ("Mon Jun  3 11:30:12 2019", 1812),
]
