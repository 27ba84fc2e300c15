"""Decompression bombs and redirect bodies, measured in peak RSS.

``max_body_size`` counts decoded bytes, enforced as they inflate, for every
coding httpx decodes (gzip, deflate, br, zstd); a redirect's own body is
never buffered, and an endless one does not hang the call. Each driver runs
in a child process (``bomb_child``), the only place a peak RSS reading is
clean; the whole run is bounded by a timeout.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from restwire._wire.content import ZSTD_WINDOW
from tests.hostile.bomb_child import CODINGS, LIMIT

ROOT = Path(__file__).resolve().parents[2]
#: Peak RSS growth allowed: a few times max_body_size, plus, for the codings
#: that keep one, the decoder's window (a fixed cost, whatever the body):
#: brotli's largest is 16 MiB; zstd's is capped at 8 MiB (RFC 9659).
BOUND = 4 * LIMIT
WINDOW = {"gzip": 0, "deflate": 0, "br": 16 << 20, "zstd": ZSTD_WINDOW}


@pytest.fixture(scope="module", params=["sync", "async"])
def report(request: pytest.FixtureRequest) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.hostile.bomb_child", request.param],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize("coding", CODINGS)
def test_a_bomb_is_refused_as_it_inflates(report: dict[str, Any], coding: str) -> None:
    case = report[f"{coding} bomb"]
    assert case["outcome"] == "BodyTooLarge"
    growth = case["growth"]
    assert growth <= BOUND + WINDOW[coding], f"peak RSS rose {growth / 2**20:.1f} MiB"


@pytest.mark.parametrize("size", ["a 300 MiB body", "an endless body"])
def test_a_redirects_own_body_is_never_buffered(
    report: dict[str, Any], size: str
) -> None:
    case = report[f"redirect with {size}"]
    assert case["outcome"].startswith("value {")  # the redirect was followed
    assert case["growth"] <= BOUND, f"peak RSS rose {case['growth'] / 2**20:.1f} MiB"
