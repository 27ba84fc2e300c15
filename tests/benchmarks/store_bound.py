"""What a controller's store holds under its bound, shape by shape:
``python -m tests.benchmarks.store_bound [--bound MiB] [--calls N]``.

A dev script, not a test (``tests/hostile/test_store_bound.py`` checks the
same shapes at 2 MiB). Each shape of ``test_store_bound.SHAPES`` is
fetched at ``--calls`` new URLs through a ``Controller`` with
``max_store_bytes`` of ``--bound`` MiB (4 by default, the figure of issue
41); the table says what the store then held, as tracemalloc sees the
memory ``reset()`` gives back, what ``size_bytes`` said, and the held
bytes over the bound.
"""

from __future__ import annotations

import argparse
import sys

from tests.hostile.test_store_bound import SHAPES, run_shape


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.benchmarks.store_bound", description=__doc__
    )
    parser.add_argument("--bound", type=float, default=4.0, help="MiB (default 4)")
    parser.add_argument("--calls", type=int, default=100, help="default 100")
    arguments = parser.parse_args(argv)
    bound = int(arguments.bound * (1 << 20))
    mib = 1 << 20
    print(f"{'shape':32} {'held MiB':>9} {'size_bytes MiB':>15} {'held/bound':>10}")
    for shape in sorted(SHAPES):
        held, counted = run_shape(shape, "sync", bound, arguments.calls)
        print(
            f"{shape:32} {held / mib:9.2f} {counted / mib:15.2f} {held / bound:10.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
