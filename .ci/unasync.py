"""Write ``pipeline/_controller/sync_controller.py`` from ``pipeline/_controller/async_controller.py``: one driver source.

    python .ci/unasync.py           # write pipeline/_controller/sync_controller.py
    python .ci/unasync.py --check   # exit 1 (with a diff) if it is not up to date

The async driver and ``AsyncController`` are the source. The sync ones are
the same text with each name below replaced by its blocking twin (whole
words only), ``await`` and ``async`` dropped, then imports sorted and the
file formatted by ruff, so the generated file passes the same checks as
any other. What differs below these names is written once per kind in
``pipeline/_base/concurrency.py`` and ``pipeline/_wire/adapter.py``.
"""

from __future__ import annotations

import difflib
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "pipeline" / "_controller" / "async_controller.py"
TARGET = ROOT / "pipeline" / "_controller" / "sync_controller.py"

#: (async, sync), applied in order, each to whole words.
SUBSTITUTIONS = [
    ("AsyncController", "Controller"),
    ("AsyncClosing", "Closing"),
    ("AsyncBackground", "Background"),
    ("AsyncEvent", "Event"),
    ("AsyncWaker", "Waker"),
    ("AsyncReaders", "Readers"),
    ("AsyncIterator", "Iterator"),
    ("AsyncGenerator", "Generator"),
    ("AsyncClient", "Client"),
    ("AsyncBaseTransport", "BaseTransport"),
    ("async def", "def"),
    ("async for", "for"),
    ("async with", "with"),
    ("await ", ""),
    ("__aenter__", "__enter__"),
    ("__aexit__", "__exit__"),
    ("run_async", "run_sync"),
    ("asend", "send"),
    ("aload", "load"),
    ("aread_into", "read_into"),
    ("aiter_raw", "iter_raw"),
    ("anext", "next"),
    ("aclose", "close"),
    ("acall", "call"),
    ("ablocking", "blocking"),
    ("aacquire", "acquire"),
    ("ashielded", "shielded"),
    ("asleep_or_close", "sleep_or_close"),
    ("asynchronous=True", "asynchronous=False"),
]

COMPILED = [
    (
        re.compile(r"(?<!\w)" + re.escape(old) + (r"(?!\w)" if old[-1] != " " else "")),
        new,
    )
    for old, new in SUBSTITUTIONS
]

DOCSTRING = '''"""The driver and the controller, blocking I/O: generated, do not edit.

``.ci/unasync.py`` writes this file from ``async_controller.py``, the one source of
both drivers, and the tests fail when the two differ: change ``async_controller.py``
and run ``python .ci/unasync.py``. ``async_controller``'s docstring says what is here.
"""'''


def generated() -> str:
    """The text ``sync_controller.py`` should have."""
    source = SOURCE.read_text(encoding="utf-8")
    start = source.index('"""')
    end = source.index('"""', start + 3) + 3
    text = source[:start] + DOCSTRING + source[end:]
    for pattern, replacement in COMPILED:
        text = pattern.sub(replacement, text)
    return _ruff(
        ["format"], _ruff(["check", "--fix", "--select", "I", "--quiet"], text)
    )


def _ruff(arguments: list[str], text: str) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            *arguments,
            "--stdin-filename",
            str(TARGET),
            "-",
        ],
        input=text,
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise SystemExit(
            f"ruff {' '.join(arguments)} failed on the generated file:\n{done.stderr}"
        )
    return done.stdout


def main(argv: list[str]) -> int:
    text = generated()
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current == text:
            return 0
        sys.stdout.writelines(
            difflib.unified_diff(
                current.splitlines(keepends=True),
                text.splitlines(keepends=True),
                "pipeline/_controller/sync_controller.py (as it is)",
                "pipeline/_controller/sync_controller.py (generated from async_controller.py)",
            )
        )
        print(
            "pipeline/_controller/sync_controller.py is out of date: run python .ci/unasync.py"
        )
        return 1
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
