"""``tests.benchmarks.footprint``: what one traced call ran."""

from __future__ import annotations

import math

from tests.benchmarks.footprint import BLOCK, footprint


def _leaf(value: int) -> int:
    return value + 1


def _short() -> int:
    return _leaf(1)


def _straight() -> int:
    """No branch and no call: every instruction of it runs."""
    a = 0
    a += 1
    a += 2
    a += 3
    a += 4
    a += 5
    a += 6
    a += 7
    a += 8
    a += 9
    a += 10
    a += 11
    a += 12
    a += 13
    a += 14
    a += 15
    a += 16
    a += 17
    a += 18
    a += 19
    a += 20
    a += 21
    a += 22
    a += 23
    a += 24
    a += 25
    a += 26
    a += 27
    a += 28
    a += 29
    a += 30
    return a * 2


def _mostly_skipped(skip: bool) -> int:
    """Returns at once when ``skip``: the rest of its bytecode never runs."""
    if skip:
        return 0
    return _straight() + _straight()


def test_a_call_counts_its_frames_and_functions() -> None:
    short = footprint(_short)
    # the traced call: _short, then _leaf
    assert short.calls == 2
    assert short.functions == 2
    assert short.blocks >= 2  # (each function's instructions lie in a block at least)


def test_a_function_run_whole_counts_every_block_of_its_bytecode() -> None:
    size = len(_straight.__code__.co_code)
    assert size > 3 * BLOCK  # (long enough for a miscount to show)
    assert tuple(footprint(_straight)) == (1, 1, math.ceil(size / BLOCK))


def test_only_the_bytecode_that_runs_is_counted() -> None:
    skipped = footprint(lambda: _mostly_skipped(True))
    run = footprint(lambda: _mostly_skipped(False))
    assert (skipped.calls, skipped.functions) == (2, 2)  # the lambda and it
    assert skipped.blocks <= 3  # (a block or two of each: not the rest)
    assert (run.calls, run.functions) == (4, 3)  # and _straight twice
    # _straight's blocks once (one function), and the lambda's and its own
    assert run.blocks >= footprint(_straight).blocks + 2
