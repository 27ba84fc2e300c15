"""What holding a full store costs under load: the load benchmark's third
row (restwire on ``fast_transport()`` against bare httpx on it, 64 calls at
a time, each to its own URL of 16 distinct records) at several store
bounds, with Python's cyclic garbage collector on and off.

    python -m tests.benchmarks.store_cost [--pairs N]

For each bound (1 MiB, 4 MiB, the default 64 MiB, none) and collector
setting, ``N`` pairs of runs (default 2): bare httpx, then restwire, each
in a process of its own, 12,000 calls to warm (the store fills to its
bound), then four rounds of 3,000 calls, the median kept. Each pair's
ratio is printed (restwire's calls a second over bare httpx's), and,
with the collector on, the share of each client's time its passes took
(``gc.callbacks``), and each client's passes by generation: how many ran
and how long each took on average (a young pass walks the objects made
since the last, a middle one those that survived the young passes since
its last, a full one every object tracked).

A dev script, not a test; the figures go on the performance page.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import multiprocessing
import statistics
import sys
import time
from multiprocessing.queues import Queue
from typing import Any

from tests.benchmarks.load import LoadServer, _drive, _make_client

#: The bounds measured: a label, and ``max_store_bytes`` (``"default"``:
#: none given).
BOUNDS: tuple[tuple[str, int | str | None], ...] = (
    ("1 MiB", 1 << 20),
    ("4 MiB", 4 << 20),
    ("the default, 64 MiB", "default"),
    ("none", None),
)
WARM, ROUNDS, CALLS = 12_000, 4, 3_000

#: A client's collector passes by generation (young, middle, full): how
#: many ran, and the seconds they took together.
Passes = dict[int, list[Any]]


def _passes(passes: Passes) -> str:
    """``passes`` as printed: each generation's count and milliseconds a
    pass (``-`` where none ran)."""
    return ", ".join(
        f"{count} x {1000 * seconds / count:.1f} ms" if count else "-"
        for count, seconds in passes.values()
    )


def _run(
    kind: str, bound: int | str | None, collector: bool, origin: str, out: Queue[Any]
) -> None:
    """One client in this process: its median calls a second, the seconds
    its collector passes took, and for each generation how many passes
    ran and the seconds they took."""
    passes = {0: [0, 0.0], 1: [0, 0.0], 2: [0, 0.0]}
    spent = [0.0, 0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            spent[1] = time.perf_counter()
        else:
            took = time.perf_counter() - spent[1]
            spent[0] += took
            generation = passes[info["generation"]]
            generation[0] += 1
            generation[1] += took

    async def main() -> tuple[float, float, float, Passes]:
        if kind == "bare":
            call, close = await _make_client("httpx on fast_transport()", origin, 64)
        else:
            options = {} if bound == "default" else {"max_store_bytes": bound}
            call, close = await _make_client(
                "restwire on fast_transport() [Entity]", origin, 64, **options
            )
        await _drive(call, WARM, 64, 0)
        if not collector:
            gc.disable()
        gc.callbacks.append(timed)
        began = time.perf_counter()
        rates = []
        for round_ in range(ROUNDS):
            rates.append(await _drive(call, CALLS, 64, WARM + round_ * CALLS))
        elapsed = time.perf_counter() - began
        gc.callbacks.remove(timed)
        gc.enable()
        await close()
        return statistics.median(rates), spent[0], elapsed, passes

    out.put(asyncio.run(main()))


def _measured(
    kind: str, bound: int | str | None, collector: bool, origin: str
) -> tuple[float, float, float, Passes]:
    context = multiprocessing.get_context("spawn")
    out: Queue[Any] = context.Queue()
    process = context.Process(target=_run, args=(kind, bound, collector, origin, out))
    process.start()
    found: tuple[float, float, float, Passes] = out.get(timeout=600)
    process.join()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.store_cost")
    parser.add_argument("--pairs", type=int, default=2, help="pairs of runs a cell")
    pairs = parser.parse_args(argv).pairs
    lines = [
        "| store bound | collector | restwire / bare httpx, each pair "
        "| collector's share of restwire's time (of bare httpx's) "
        "| restwire's passes: young, middle, full (bare httpx's) |",
        "|---|---|---|---|---|",
    ]
    with LoadServer() as server:
        for label, bound in BOUNDS:
            for collector in (True, False):
                ratios, shares, passes = [], [], []
                for _ in range(pairs):
                    bare = _measured("bare", bound, collector, server.origin)
                    ours = _measured("restwire", bound, collector, server.origin)
                    ratios.append(ours[0] / bare[0])
                    shares.append((ours[1] / ours[2], bare[1] / bare[2]))
                    passes.append(f"{_passes(ours[3])} ({_passes(bare[3])})")
                lines.append(
                    f"| {label} | {'on' if collector else 'off'} "
                    f"| {', '.join(f'{ratio:.2f}' for ratio in ratios)} "
                    + (
                        "| "
                        + ", ".join(
                            f"{mine:.0%} ({theirs:.0%})" for mine, theirs in shares
                        )
                        + " "
                        f"| {'; '.join(passes)} |"
                        if collector
                        else "| | |"
                    )
                )
                print(lines[-1], flush=True)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
