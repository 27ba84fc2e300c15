"""How much bytecode one call makes the interpreter read:
``python -m tests.benchmarks.footprint``.

A dev script, not a test. Case 1's call (six middleware and an entity,
the user's own client on a MockTransport, as ``instructions six`` runs
it) takes fewer CPU instructions than bare httpx's
``client.get(url).json()`` on the same mock, yet more wall-clock time.
The difference is in the memory the interpreter reads: under
cachegrind (``python -m tests.benchmarks.instructions --cache six
six-bare``) restwire's call misses the first-level data cache more often.
Part of what the interpreter reads is the bytecode it runs, with the
inline caches CPython 3.11 keeps beside each instruction; this script
counts that part for one call of each, by tracing it opcode by opcode: the
Python function calls, the distinct functions run, and the 64-byte blocks
of their bytecode the executed instructions (with their caches) lie in.
The count is exact and the machine's load does not move it; fewer blocks
is less for the cache to hold.
"""

from __future__ import annotations

import dis
import sys
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any, NamedTuple

import httpx

from restwire import Controller

from .cases import SAME_REQUEST, mock_transport, six_middleware_endpoint

#: Bytes of one block of bytecode: a cache line on the usual machine.
BLOCK = 64
#: Calls before the traced one (URLs parsed, caches filled, code specialized).
WARM = 200


class Footprint(NamedTuple):
    """What one call ran: Python function calls, distinct functions, and
    the blocks of bytecode its executed instructions lie in."""

    calls: int
    functions: int
    blocks: int


def footprint(call: Callable[[], Any]) -> Footprint:
    """Trace one ``call`` (after :data:`WARM` untraced ones): opcode by
    opcode on Python 3.11 (``sys.settrace``), instruction by instruction
    from 3.12 (``sys.monitoring``; a trace started at a frame's call no
    longer gets its opcodes there). A traced call that ran Python but
    reported no instruction is an error, not a count of nothing."""
    for _ in range(WARM):
        call()
    blocks: dict[CodeType, set[int]] = {}
    codes: dict[CodeType, bytes] = {}
    calls = 0

    def entered(code: CodeType) -> None:
        nonlocal calls
        if code.co_filename == __file__:
            return  # (this module's own frames: the tracer, not the call)
        calls += 1
        if code not in codes:
            codes[code] = code.co_code
            blocks[code] = set()

    def ran(code: CodeType, offset: int) -> None:
        known = codes.get(code)
        if known is None:
            return
        end = offset + 2 * (1 + _cache_units(known[offset]))
        blocks[code].update(range(offset // BLOCK, (end - 1) // BLOCK + 1))

    if sys.version_info >= (3, 12):
        _monitored(call, entered, ran)
    else:
        _traced(call, entered, ran)
    counted = Footprint(calls, len(blocks), sum(map(len, blocks.values())))
    if counted.calls and not counted.blocks:
        raise RuntimeError(
            "the trace saw calls but no instruction: this Python reports them "
            "some other way"
        )
    return counted


def _cache_units(opcode: int) -> int:
    """How many inline cache units follow an instruction of ``opcode``
    (a list by opcode in 3.11 and 3.12, a dict by name from 3.13)."""
    entries: Any = getattr(dis, "_inline_cache_entries", ())
    if isinstance(entries, dict):
        return int(entries.get(dis.opname[opcode], 0))
    return int(entries[opcode]) if opcode < len(entries) else 0


def _traced(
    call: Callable[[], Any],
    entered: Callable[[CodeType], None],
    ran: Callable[[CodeType, int], None],
) -> None:
    """``call`` under ``sys.settrace`` with opcode events (Python 3.11)."""

    def step(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "opcode":
            ran(frame.f_code, frame.f_lasti)  # (in bytes: two per code unit)
        return step

    def enter(frame: FrameType, event: str, arg: Any) -> Any:
        entered(frame.f_code)
        frame.f_trace_opcodes = True
        return step

    sys.settrace(enter)
    try:
        call()
    finally:
        sys.settrace(None)


def _monitored(
    call: Callable[[], Any],
    entered: Callable[[CodeType], None],
    ran: Callable[[CodeType, int], None],
) -> None:
    """``call`` under ``sys.monitoring``'s start, resume and instruction
    events (Python 3.12 and later)."""
    monitoring: Any = getattr(sys, "monitoring")  # noqa: B009 - 3.12+
    events = monitoring.events
    tool = next((each for each in range(6) if monitoring.get_tool(each) is None), None)
    if tool is None:
        raise RuntimeError("every sys.monitoring tool id is taken")
    monitoring.use_tool_id(tool, "footprint")
    try:
        monitoring.register_callback(tool, events.PY_START, lambda c, o: entered(c))
        monitoring.register_callback(tool, events.PY_RESUME, lambda c, o: entered(c))
        monitoring.register_callback(tool, events.INSTRUCTION, ran)
        monitoring.set_events(
            tool, events.PY_START | events.PY_RESUME | events.INSTRUCTION
        )
        call()
    finally:
        monitoring.set_events(tool, 0)
        monitoring.free_tool_id(tool)


def main() -> int:
    transport = mock_transport()
    endpoint = six_middleware_endpoint("http://api.test")
    bare = httpx.Client(transport=transport, headers=SAME_REQUEST)
    with Controller(httpx.Client(transport=transport)) as controller:
        rows = {
            "six": footprint(lambda: controller.fetch(endpoint, {"id": "1"})),
            "six-bare": footprint(lambda: bare.get("http://api.test/item/1").json()),
        }
    print(f"{'case':8}  {'calls':>5}  {'functions':>9}  {'blocks':>6}  bytes")
    for case, row in rows.items():
        print(
            f"{case:8}  {row.calls:5}  {row.functions:9}  {row.blocks:6}  "
            f"{row.blocks * BLOCK:,}"
        )
    ours, theirs = rows["six"], rows["six-bare"]
    print(f"six / six-bare: {ours.blocks / theirs.blocks:.2f} of the blocks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
