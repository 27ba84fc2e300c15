"""The modules of ``pipeline/`` import one another one way: no cycle.

Imports made only for type checking (under ``if TYPE_CHECKING:``) do not
count: they never run. A cycle at run time means two concepts were cut in
the wrong place (the chain, for one, is given its terminal rather than
importing it).
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

PIPELINE = Path(__file__).resolve().parent.parent / "pipeline"


def runtime_imports(path: Path) -> set[str]:
    """The sibling modules ``path`` imports when it runs."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
        for inner in ast.walk(node)
    }
    return {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.level == 1
        and node.module
        and id(node) not in typing_only
    }


def test_the_modules_import_each_other_without_a_cycle() -> None:
    graph = {path.stem: runtime_imports(path) for path in PIPELINE.glob("*.py")}
    assert len(graph) >= 15
    order = list(graphlib.TopologicalSorter(graph).static_order())  # or CycleError
    assert order.index("_errors") < order.index("_hops") < order.index("_terminal")
    assert order.index("_terminal") < order.index("_controller")
    assert "_terminal" not in graph["_chain"]  # the chain is given its terminal
    assert {"_sync", "_async"} & graph["_controller"] == set()
