"""``python -m recipes``: the tour of restwire against the embedded demo API.

    python -m recipes                          # every recipe, in order
    python -m recipes list                     # the recipes, one a line
    python -m recipes run NAME                 # one recipe, on the demo API
    python -m recipes run NAME --base-url URL  # one recipe, on another server

For each recipe it prints the seed rule it shows, every request that went
over the wire (credentials redacted) and the typed result, then a one-line
summary; it exits non-zero if any recipe failed. Colours and progress bars
only in a terminal; plain text when piped.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from types import ModuleType
from typing import TextIO

from .catalog import RECIPES, name_of
from .demo_api import DemoApi
from .tour import Tour


def _style(out: TextIO, text: str, code: str) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if out.isatty() else text


def run_one(
    recipe: ModuleType, base_url: str, number: int, total: int, out: TextIO
) -> bool:
    """Run ``recipe`` against ``base_url``, telling ``out``; True if it worked."""
    title = _style(out, f"[{number}/{total}] {name_of(recipe)}", "1")
    out.write(f"{title}: {recipe.TITLE}\n  seed: {recipe.SEED}\n")
    tour = Tour(out)
    try:
        result = recipe.run(base_url, tour)
    except Exception:
        out.write(_style(out, "  FAILED\n", "31"))
        out.write(
            "    " + traceback.format_exc().replace("\n", "\n    ").rstrip() + "\n"
        )
        return False
    tour.say(f"= {result!r}")
    return True


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(
        prog="python -m recipes",
        description="Run restwire's recipes against the embedded demo API.",
    )
    commands = parser.add_subparsers(dest="command", metavar="{list,run}")
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
    arguments = parser.parse_args(argv)

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
        ok = run_one(chosen[0], arguments.base_url.rstrip("/"), 1, 1, out)
        return 0 if ok else 1
    with DemoApi() as api:
        out.write(
            f"restwire tour: demo API at {api.origin} (another origin at {api.other_origin})\n\n"
        )
        results = [
            run_one(recipe, api.origin, number, len(chosen), out)
            for number, recipe in enumerate(chosen, start=1)
        ]
    failed = results.count(False)
    summary = f"\ntour: {len(results) - failed} of {len(results)} recipes ran"
    out.write(summary + (f", {failed} failed" if failed else "") + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
