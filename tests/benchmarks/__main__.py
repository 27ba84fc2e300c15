"""Run the benchmarks: ``python -m tests.benchmarks [--quick] [--json] [--only N ...]``.

Prints a table of case, restwire, baseline, ratio, target and pass/fail;
``--json`` prints the rows as JSON instead; ``--quick`` runs smaller sizes
(a smoke run, not the figures to quote); ``--only 1 5`` runs those cases.
Not part of the test suite: benchmarks measure, tests check. Needs the
``bench`` extra (``pip install -e ".[bench]"``) for pyhumps and pydantic.
"""

from __future__ import annotations

import argparse
import sys

from . import cases
from .harness import Row, print_table, to_json
from .server import BenchServer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.benchmarks", description=__doc__
    )
    parser.add_argument(
        "--quick", action="store_true", help="smaller sizes: a smoke run"
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument(
        "--only", nargs="*", type=int, default=None, help="case numbers to run"
    )
    arguments = parser.parse_args(argv)
    chosen = set(arguments.only or range(1, 12))
    quick = arguments.quick
    rows: list[Row] = []
    if chosen & {1, 8}:
        rows += cases.chain_overhead(quick)
    if chosen & {5, 8}:
        rows += cases.key_casing(quick)
    if chosen & {6, 8}:
        rows += cases.normalization(quick)
    if 10 in chosen:
        rows += cases.decoding(quick)
    if 11 in chosen:
        rows += cases.identity_cost(quick)
    if chosen & {2, 3, 4, 7, 9}:
        with BenchServer() as server:
            if 2 in chosen:
                rows += cases.real_socket(server, quick)
            if 3 in chosen:
                rows += cases.async_throughput(server, quick)
            if 4 in chosen:
                rows += cases.deduplication(server, quick)
            if 7 in chosen:
                rows += cases.download(server, quick)
            if 9 in chosen:
                rows += cases.http_cache(server, quick)
                rows += cases.cold_fills(server, quick)
    rows.sort(key=lambda row: row.case)
    if arguments.json:
        print(to_json(rows))
    else:
        print_table(rows)
    return 0 if all(row.passed for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
