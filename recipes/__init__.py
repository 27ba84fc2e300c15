"""The tour's recipes: one small file each, written against httpx.

With httpx2 alone installed, the tour (an application, which httpx2 allows
to) makes ``import httpx`` give httpx2 (``httpx2.alias_httpx()``), so every
recipe runs on httpx2's classes unchanged. restwire is imported first: it
finds httpx2 by itself, with no alias.
"""

from __future__ import annotations

import importlib.util
import sys

if importlib.util.find_spec("httpx") is None and "httpx" not in sys.modules:
    import httpx2

    import restwire  # noqa: F401 - first: it must find httpx2 on its own

    httpx2.alias_httpx()
