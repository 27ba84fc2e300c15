"""``tests.benchmarks.footprint``: what one traced call ran."""

from __future__ import annotations

from tests.benchmarks.footprint import BLOCK, footprint


def _leaf(value: int) -> int:
    return value + 1


def _short() -> int:
    return _leaf(1)


def _long() -> int:
    total = 0
    for value in range(3):
        total += _leaf(value) * 2 - 1
        total ^= value << 3
        total -= value // 2
        total += (value * 7) % 5
    return total + _leaf(total)


def test_a_call_counts_its_frames_functions_and_bytecode_blocks() -> None:
    short = footprint(_short)
    # the traced call: _short, then _leaf
    assert short.calls == 2
    assert short.functions == 2
    assert short.blocks >= 2  # (each function's instructions lie in a block at least)


def test_more_bytecode_run_is_more_blocks() -> None:
    short, long = footprint(_short), footprint(_long)
    assert long.calls == 1 + 4  # _long, and _leaf four times
    assert long.functions == 2
    assert long.blocks > short.blocks
    assert long.blocks * BLOCK >= len(_long.__code__.co_code) // 2
