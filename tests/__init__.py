"""The test suite, on httpx or, where httpx is not installed, on httpx2.

``.ci/run`` runs the suite twice: in a venv with httpx (and httpx2, for
``tests/pipeline/test_library.py``), and in one with httpx2 alone. There,
this switch (run before any test module, in every process that imports
``tests``) imports restwire first, so restwire finds httpx2 by itself with
no help, and then makes the suite's own ``import httpx`` give httpx2
(``httpx2.alias_httpx()``, meant for applications, which a test suite is)
and ``pytest_httpx`` give its fork ``pytest_httpx2`` (httpx2-pytest), so
each test runs unchanged on httpx2's classes. ``tests/conftest.py`` gives
the fork's fixture the name ``httpx_mock``.
"""

from __future__ import annotations

import importlib.util
import sys

#: Whether httpx itself is installed (else the suite runs on httpx2).
HTTPX = importlib.util.find_spec("httpx") is not None

if not HTTPX and "httpx" not in sys.modules:
    import httpx2
    import pytest_httpx2

    import restwire  # noqa: F401 - first: it must find httpx2 on its own

    httpx2.alias_httpx()
    sys.modules["pytest_httpx"] = pytest_httpx2
