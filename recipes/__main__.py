"""``python -m recipes``: the tour of restwire against the embedded demo API.

With no arguments, starts the demo API on 127.0.0.1, runs every recipe in
order and prints, for each, the seed rule it shows, every request that went
over the wire (credentials redacted) and the typed result. Exits non-zero if
any recipe failed.

    python -m recipes            # the whole tour
    python -m recipes list       # the recipes, one a line
    python -m recipes run NAME   # one recipe
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence

from .demo_api import DemoApi
from .tour import RECIPES, Recipe, Wire

_TERMINAL = sys.stdout.isatty()


def _style(text: str, code: str) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if _TERMINAL else text


def _run(recipe: Recipe, api: DemoApi, number: int, total: int) -> bool:
    print(_style(f"[{number}/{total}] {recipe.name}", "1") + f": {recipe.title}")
    print(f"  seed: {recipe.seed_rule}")
    wire = Wire()
    try:
        result = recipe.run(api, wire)
    except Exception:
        for line in wire.lines:
            print(f"  > {line}")
        print(_style("  FAILED", "31"))
        print("    " + traceback.format_exc().replace("\n", "\n    ").rstrip())
        return False
    for line in wire.lines:
        print(f"  > {line}")
    print(f"  = {result}")
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m recipes",
        description="Run restwire's recipes against the embedded demo API.",
    )
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("list", help="list the recipes")
    run = commands.add_parser("run", help="run one recipe")
    run.add_argument("name", choices=[recipe.name for recipe in RECIPES])
    arguments = parser.parse_args(argv)

    if arguments.command == "list":
        for recipe in RECIPES:
            print(f"{recipe.name:<12} {recipe.title}")
        return 0
    chosen = [
        r for r in RECIPES if arguments.command != "run" or r.name == arguments.name
    ]
    with DemoApi() as api:
        print(
            f"restwire tour: demo API at {api.origin} (other origin {api.other_origin})\n"
        )
        results = [
            _run(recipe, api, number, len(chosen))
            for number, recipe in enumerate(chosen, start=1)
        ]
        print()
    failed = results.count(False)
    summary = f"tour: {len(results) - failed} of {len(results)} recipes ran"
    print(summary + (f", {failed} failed" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
