"""The suite's waits bound hangs, generously (``tests/waiting.py``).

A wait with a small literal bound (an event's wait of 2 s, a thread's
join of 10 s) is a measurement in disguise: it holds on a quiet
machine and fails on a busy one. Such a bound is ``HANG``, or at least
``FLOOR`` seconds; a timeout that is itself under test (an endpoint's, a
pool's) is an option, not one of these calls, and is left alone.
"""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
#: The least a literal bound on a hang may be, in seconds.
FLOOR = 30
#: A wait whose argument is the bound on a hang: ``fail_after(N)``,
#: ``event.wait(N)``, ``thread.join(N)``, ``future.result(N)``,
#: ``process.communicate(timeout=N)``, ``queue.get(timeout=N)``.
HANG_BOUND = re.compile(
    r"(?:\bfail_after|\.wait|\.join|\.result|\.communicate|\.get)"
    r"\((?:timeout=)?([0-9][0-9.]*)\)"
)


def test_no_wait_in_the_tests_is_a_measurement() -> None:
    small = [
        f"{path.relative_to(TESTS)}:{number}: {line.strip()}"
        for path in sorted(TESTS.rglob("*.py"))
        if "benchmarks" not in path.parts
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        for bound in HANG_BOUND.findall(line)
        if float(bound) < FLOOR
    ]
    assert small == [], "\n".join(small)
