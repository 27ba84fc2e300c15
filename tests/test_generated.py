"""``pipeline/_controller/sync_controller.py`` is generated from
``pipeline/_controller/async_controller.py``: the two
drivers cannot drift, because this fails when the generated file is not
what ``.ci/unasync.py`` writes from the source."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_sync_driver_is_generated_from_the_async_one() -> None:
    done = subprocess.run(
        [sys.executable, ".ci/unasync.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_generated_driver_says_so() -> None:
    text = (ROOT / "pipeline" / "_controller" / "sync_controller.py").read_text(
        encoding="utf-8"
    )
    assert "generated, do not edit" in text.splitlines()[0]
    assert "async def" not in text
    assert "await " not in text
