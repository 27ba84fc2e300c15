"""``python -m recipes``: the tour of restwire against the embedded demo API.

    python -m recipes                          # every recipe, in order
    python -m recipes list                     # the recipes, one a line
    python -m recipes run NAME                 # one recipe, on the demo API
    python -m recipes run NAME --base-url URL  # one recipe, on another server
    python -m recipes serve [--port PORT]      # the demo API alone, until Ctrl-C

For each recipe it prints what it shows, every request that went
over the wire (credentials redacted) and the typed result, then a one-line
summary counting the recipes that ran, were skipped and failed; it exits
non-zero if any recipe failed. A recipe that fails with a
``RestwireError`` (a server that cannot be reached, an answer it did not
expect) is told in one line, its message; anything else is a bug in the
recipe and shows its traceback. A recipe whose extra is not installed, or
whose service (a Redis named by ``RESTWIRE_REDIS_URL``) does not answer, is
skipped in one line saying what it needs (the extra to install); run alone, a recipe whose service
does not answer served nothing and fails. Colours and progress bars only in a
terminal; plain text when piped.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import signal
import sys
import threading
import traceback
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Literal, TextIO

from restwire import RestwireError

from .catalog import RECIPES, name_of
from .demo_api import DemoApi
from .tour import Tour, Unavailable

#: What became of a recipe in the tour.
Outcome = Literal["ran", "skipped", "failed"]


def _style(out: TextIO, text: str, code: str) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if out.isatty() else text


def missing_extra(recipe: ModuleType) -> str | None:
    """The extra of restwire that ``recipe`` needs and that is not installed
    (``NEEDS`` maps a module to the extra that brings it), or ``None``."""
    needs: dict[str, str] = getattr(recipe, "NEEDS", {})
    for module, extra in needs.items():
        if importlib.util.find_spec(module) is None:
            return extra
    return None


def run_one(
    recipe: ModuleType,
    base_url: str,
    number: int,
    total: int,
    out: TextIO,
    *,
    alone: bool = False,
) -> Outcome:
    """Run ``recipe`` against ``base_url``, telling ``out``: ``"ran"``, or
    ``"skipped"`` in one line for an extra that is not installed (or, in the
    tour, for a service it was asked to use that is not there: run
    ``alone``, that recipe served nothing and has ``"failed"``)."""
    title = _style(out, f"[{number}/{total}] {name_of(recipe)}", "1")
    out.write(f"{title}: {recipe.TITLE}\n")
    extra = missing_extra(recipe)
    if extra is not None:
        out.write(
            f"  skipped: needs restwire[{extra}]; install it with "
            f'pip install -e ".[{extra}]"\n'
        )
        return "skipped"
    tour = Tour(out)
    try:
        result = recipe.run(base_url, tour)
    except Unavailable as reason:
        if alone:
            out.write(_style(out, f"  FAILED: {reason}\n", "31"))
            return "failed"
        out.write(f"  skipped: {reason}\n")
        return "skipped"
    except RestwireError as error:
        out.write(_style(out, f"  FAILED: {error}\n", "31"))
        return "failed"
    except Exception:
        out.write(_style(out, "  FAILED\n", "31"))
        out.write(
            "    " + traceback.format_exc().replace("\n", "\n    ").rstrip() + "\n"
        )
        return "failed"
    tour.say(f"= {result!r}")
    return "ran"


def _route_text(pattern: str) -> str:
    """``/posts/(?P<id>[^/]+)`` as ``/posts/<id>``, for people."""
    text = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"<\1>", pattern).replace("/?", "/")
    return re.sub(r"\\(.)", r"\1", text)  # (an escaped character, as a URL has it)


def serve(port: int, out: TextIO, stop: threading.Event | None = None) -> int:
    """Serve the demo API until Ctrl-C (or SIGTERM, or ``stop`` is set)."""
    stop = stop or threading.Event()
    try:
        api = DemoApi(port=port)
    except OSError as error:
        out.write(f"cannot serve the demo API on port {port}: {error.strerror}\n")
        return 1
    on_main_thread = threading.current_thread() is threading.main_thread()
    before: dict[signal.Signals, Any] = {}
    if on_main_thread:
        # Ctrl-C and SIGTERM set ``stop`` rather than raise where the main
        # thread happens to be: a KeyboardInterrupt inside a lock's wait or
        # the servers' shutdown could leave them half done (and the process
        # hanging on exit)
        for number in (signal.SIGINT, signal.SIGTERM):
            before[number] = signal.signal(number, lambda *_: stop.set())
    try:
        return _serving(api, stop, out)
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)  # the caller's, as it was


def _serving(api: DemoApi, stop: threading.Event, out: TextIO) -> int:
    with api:
        out.write(
            f"restwire demo API at {api.origin}\n"
            f"another origin (for redirects) at {api.other_origin}\n\n"
        )
        for method, pattern, _ in api.routes:
            out.write(f"  {method:<6} {api.origin}{_route_text(pattern.pattern)}\n")
        out.write(
            f"\ntry: python -m recipes run posts --base-url {api.origin}\n"
            "Ctrl-C stops it.\n"
        )
        out.flush()
        while not stop.wait(0.5):
            pass
    out.write("demo API stopped\n")
    return 0


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(
        prog="python -m recipes",
        description="Run restwire's recipes against the embedded demo API.",
    )
    commands = parser.add_subparsers(dest="command", metavar="{list,run,serve}")
    commands.add_parser(
        "list", help="list the recipes", description="List the recipes."
    )
    run = commands.add_parser(
        "run",
        help="run one recipe",
        description="Run one recipe, on the demo API or on another server.",
    )
    run.add_argument("name", choices=[name_of(recipe) for recipe in RECIPES])
    run.add_argument(
        "--base-url",
        help="a server to run against instead of the demo API "
        "(for example https://api.exchange.coinbase.com for ticker)",
    )
    serve_command = commands.add_parser(
        "serve",
        help="start the demo API alone",
        description="Start the demo API on 127.0.0.1 and print its URLs; "
        "Ctrl-C stops it. Point `run NAME --base-url URL` or your own code at it.",
    )
    serve_command.add_argument(
        "--port",
        type=int,
        default=0,
        help="the port to listen on (default: a free one)",
    )
    arguments = parser.parse_args(argv)

    if arguments.command == "serve":
        return serve(arguments.port, out)

    if arguments.command == "list":
        for recipe in RECIPES:
            out.write(f"{name_of(recipe):<15} {recipe.TITLE}\n")
        return 0
    chosen = [
        recipe
        for recipe in RECIPES
        if arguments.command != "run" or name_of(recipe) == arguments.name
    ]
    if arguments.command == "run" and arguments.base_url:
        results = [
            run_one(chosen[0], arguments.base_url.rstrip("/"), 1, 1, out, alone=True)
        ]
    else:
        with DemoApi() as api:
            out.write(
                f"restwire tour: demo API at {api.origin} "
                f"(another origin at {api.other_origin})\n\n"
            )
            alone = arguments.command == "run"
            results = [
                run_one(recipe, api.origin, number, len(chosen), out, alone=alone)
                for number, recipe in enumerate(chosen, start=1)
            ]
    ran, skipped, failed = (
        results.count(each) for each in ("ran", "skipped", "failed")
    )
    summary = f"\ntour: {ran} of {len(results)} recipes ran"
    summary += f", {skipped} skipped" if skipped else ""
    summary += f", {failed} failed" if failed else ""
    out.write(summary + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
