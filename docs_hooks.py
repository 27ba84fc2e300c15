"""MkDocs hook: the recipes page shows each recipe's source as it is.

A line ``<!-- recipe-source: NAME -->`` in a page becomes a Python block
holding ``recipes/NAME.py``, less its module docstring (the page explains
the recipe) and its tour metadata (``TITLE``, ``SEED``). The recipes are
run by ``tests/recipes/``, so the source shown is code that runs.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
MARKER = re.compile(r"^<!-- recipe-source: (\w+) -->$", re.MULTILINE)
#: Module-level names the tour reads, not part of a recipe's lesson.
TOUR_METADATA = {"TITLE", "SEED"}


def recipe_source(name: str) -> str:
    """``recipes/NAME.py`` without its docstring and tour metadata."""
    source = (ROOT / "recipes" / f"{name}.py").read_text(encoding="utf-8")
    lines = source.splitlines()
    drop: set[int] = set()
    for node in ast.parse(source).body:
        docstring = (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            and node.lineno == 1
        )
        metadata = isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id in TOUR_METADATA
            for target in node.targets
        )
        if docstring or metadata:
            assert node.end_lineno is not None
            drop.update(range(node.lineno - 1, node.end_lineno))
    kept = [line for number, line in enumerate(lines) if number not in drop]
    return re.sub(r"\n{3,}", "\n\n\n", "\n".join(kept)).strip() + "\n"


def on_page_markdown(markdown: str, **_: Any) -> str:
    return MARKER.sub(
        lambda match: f"```python\n{recipe_source(match.group(1))}```", markdown
    )
