"""How many library modules one plain ``Controller.fetch`` passes through.

    python -m tests.benchmarks.trace_modules

A dev script, not a test: it measures how the code is cut, not whether it
works. A profiler hook (``sys.setprofile``) follows one warm call of a plain
endpoint (a ``url_prefix``, no middleware, no schema) on a
``httpx.MockTransport``, and records the module of every Python frame of the
library that runs. It prints the modules in the order the call first enters
them, how many there are, and how many times execution switches from one
library module to another (a call into, or a return to, a frame of another
module; frames of httpx and the standard library in between are skipped).
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

import httpx

import restwire
import restwire.middlewares

#: The folders whose modules are the library's.
LIBRARY = tuple(
    str(Path(package.__file__).resolve().parent)
    for package in (restwire, restwire.middlewares)
    if package.__file__ is not None
)


def _module(frame: FrameType) -> str | None:
    """The library module ``frame`` runs in, or ``None`` for any other code."""
    filename = str(Path(frame.f_code.co_filename).resolve())
    if not filename.startswith(LIBRARY):
        return None
    name = frame.f_globals.get("__name__")
    return name if isinstance(name, str) else filename


def trace(call: Any) -> tuple[list[str], int]:
    """The library modules ``call()`` runs in (first-entry order), and the
    number of switches between them."""
    order: list[str] = []
    switches = 0
    current: str | None = None

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal switches, current
        if event == "call":
            entered = _module(frame)
        elif event == "return" and frame.f_back is not None:
            entered = _module(frame.f_back)
        else:
            return
        if entered is None:
            return
        if entered not in order:
            order.append(entered)
        if current is not None and entered != current:
            switches += 1
        current = entered

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return order, switches


def main() -> int:
    def respond(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"id": "1", "title": "hello"})

    endpoint = restwire.RestEndpoint(
        url_prefix="https://api.example.com", path="/posts/:id"
    )
    with restwire.Controller(
        httpx.Client(transport=httpx.MockTransport(respond))
    ) as controller:
        controller.fetch(endpoint, {"id": 1})  # warm: caches filled, imports done
        modules, switches = trace(lambda: controller.fetch(endpoint, {"id": 1}))
    for name in modules:
        print(f"  {name}")
    print(f"{len(modules)} library modules, {switches} switches between them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
