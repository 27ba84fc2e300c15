"""Timing and reporting for the benchmarks: medians, rows, the table.

Every case measures restwire and its baseline in the same process and run,
warms both up, repeats each, and compares medians: the machines are noisy,
so only ratios mean anything from run to run.
"""

from __future__ import annotations

import gc
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass
class Row:
    """One line of the table."""

    case: str
    restwire: str
    baseline: str
    ratio: float | None
    target: str
    passed: bool
    note: str = ""


def median_seconds(
    run: Callable[[], Any], repeat: int, number: int = 1, warmup: int = 1
) -> float:
    """Median wall time of ``number`` calls of ``run``, over ``repeat`` rounds."""
    for _ in range(warmup):
        for _ in range(number):
            run()
    times = []
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        for _ in range(number):
            run()
        times.append((time.perf_counter() - started) / number)
    return statistics.median(times)


def paired(
    ours: Callable[[], Any], theirs: Callable[[], Any], repeat: int, number: int = 1
) -> tuple[float, float]:
    """Median times of ``ours`` and ``theirs``, rounds interleaved so that
    drift in the machine's speed falls on both alike."""
    ours()
    theirs()
    mine: list[float] = []
    baseline: list[float] = []
    for _ in range(repeat):
        for run, into in ((ours, mine), (theirs, baseline)):
            gc.collect()
            started = time.perf_counter()
            for _ in range(number):
                run()
            into.append((time.perf_counter() - started) / number)
    return statistics.median(mine), statistics.median(baseline)


def microseconds(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} us"


def milliseconds(seconds: float) -> str:
    return f"{seconds * 1e3:,.1f} ms"


def print_table(rows: list[Row]) -> None:
    header = ("case", "restwire", "baseline", "ratio", "target", "result")
    lines = [
        (
            row.case,
            row.restwire,
            row.baseline,
            "" if row.ratio is None else f"{row.ratio:.2f}",
            row.target,
            "pass" if row.passed else "FAIL",
        )
        for row in rows
    ]
    widths = [
        max(len(str(cell)) for cell in column)
        for column in zip(header, *lines, strict=True)
    ]

    def show(cells: tuple[str, ...]) -> str:
        return (
            "| "
            + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True))
            + " |"
        )

    print(show(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for line in lines:
        print(show(line))
    notes = [f"- {row.case}: {row.note}" for row in rows if row.note]
    if notes:
        print()
        print("\n".join(notes))


def to_json(rows: list[Row]) -> str:
    return json.dumps([asdict(row) for row in rows], indent=2)
