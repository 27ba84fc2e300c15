"""Which library files one warm call passes through, and in how many of
``pipeline/``'s layers.

    python -m tests.benchmarks.trace_modules

It measures how the code is cut, not whether it works or how fast. A
profiler hook (``sys.setprofile``) follows one warm
``controller.fetch(posts.get, {"id": 1})`` of a ``resource()`` of an
``Entity`` on an ``httpx.MockTransport`` (warm: the same call made a few
times first, so every cache of the steps is filled), and records the module
of every Python frame of the library that runs. It prints the modules in
the order the call first enters them, their layers (``_controller``,
``_chain``, ...), and how many times execution switches from one library
module to another (a call into, or a return to, a frame of another module;
frames of httpx and the standard library in between are skipped). Then the
same for a ``get`` answered from the store.

``tests/test_layers.py`` holds a warm fetch to at most :data:`MOST_FILES`
files in at most :data:`MOST_LAYERS` layers.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import httpx

import restwire
import restwire.middlewares

#: What a warm fetch may enter: files, and layers of ``pipeline/``.
MOST_FILES = 14
MOST_LAYERS = 6

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


def trace(call: Callable[[], Any]) -> tuple[list[str], int]:
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


def layer(module: str) -> str:
    """The layer of ``module`` (``restwire._chain.exchange`` is in
    ``_chain``); ``restwire.middlewares`` is one of its own."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else module


def warm_calls() -> dict[str, tuple[list[str], int]]:
    """The modules and switches of a warm fetch and of a ``get`` answered
    from the store."""

    class Post(restwire.Entity):
        id: str = ""
        title: str = ""

    def respond(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"id": "1", "title": "hello"})

    api = restwire.RestEndpoint(url_prefix="https://api.example.com")
    posts = restwire.resource(path="/posts/:id", schema=Post, endpoint=api)
    client = httpx.Client(transport=httpx.MockTransport(respond))
    with restwire.Controller(client) as controller:
        for _ in range(3):  # warm: every cache of the steps filled
            controller.fetch(posts.get, {"id": 1})
        return {
            "fetch": trace(lambda: controller.fetch(posts.get, {"id": 1})),
            "get": trace(lambda: controller.get(posts.get, {"id": 1})),
        }


def main() -> int:
    for kind, (modules, switches) in warm_calls().items():
        layers = sorted({layer(name) for name in modules})
        print(f"a warm {kind}:")
        for name in modules:
            print(f"  {name}")
        print(
            f"{len(modules)} library modules in {len(layers)} layers "
            f"({', '.join(layers)}), {switches} switches between them\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
