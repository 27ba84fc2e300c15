"""``pipeline/`` is built in layers, and imports point one way: down.

Each private sub-package of ``pipeline/`` is a layer. Its ``__init__``
docstring says what it holds and, on a line of its own, which layers it
may import (``May import: _base, _wire.``); these tests hold the code to
what the docstrings say, and the docstrings to the one order below:

- an import from one layer to another goes only where the importing
  layer's docstring allows, imports made for type checking included (a
  type-only import upwards still ties two layers into one);
- the layers' own allowances form no circle, and match :data:`LAYERS`;
- no two modules import each other, directly or through others, type-only
  imports included;
- ``middlewares/`` uses only what a user's own middleware may use:
  ``restwire``, ``restwire.middlewares`` and ``restwire.extension``.
"""

from __future__ import annotations

import ast
import graphlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIPELINE = ROOT / "pipeline"
MIDDLEWARES = ROOT / "middlewares"

#: Each layer, and the layers below it that it may import: the architecture
#: the concepts page draws (docs/concepts/architecture.md).
LAYERS: dict[str, frozenset[str]] = {
    "_base": frozenset(),
    "_wire": frozenset({"_base"}),
    "_store": frozenset({"_base"}),
    "_chain": frozenset({"_base", "_wire"}),
    "_endpoints": frozenset({"_base", "_wire", "_store", "_chain"}),
    "_cache": frozenset({"_base", "_chain"}),
    "_controller": frozenset(
        {"_base", "_wire", "_store", "_chain", "_endpoints", "_cache"}
    ),
}

_MAY_IMPORT = re.compile(r"^May import: (.+?)\.$", re.MULTILINE)


def module_name(path: Path) -> str:
    """``_wire.adapter`` for ``pipeline/_wire/adapter.py``; a package by its
    folder; the top-level modules by their stem (``__init__``, ``extension``)."""
    parts = path.relative_to(PIPELINE).with_suffix("").parts
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def imports(path: Path) -> set[str]:
    """The restwire modules ``path`` imports, type-only imports included,
    as :func:`module_name` names them (``from ..x import y`` names the
    module ``x`` when it is one, else ``y`` in the package ``x``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
        target = [*base, *(node.module.split(".") if node.module else [])]
        if node.module is None:  # from . import module
            found.update(".".join([*target, alias.name]) for alias in node.names)
        else:
            found.add(".".join(target))
    return found


def layer_of(module: str) -> str | None:
    first = module.split(".")[0]
    return first if first in LAYERS else None


def declared(layer: str) -> frozenset[str]:
    """The layers ``layer``'s docstring says it may import."""
    doc = ast.get_docstring(ast.parse((PIPELINE / layer / "__init__.py").read_text()))
    assert doc, f"{layer}/__init__.py has no docstring saying what it holds"
    found = _MAY_IMPORT.search(doc)
    assert found, f"{layer}/__init__.py's docstring has no 'May import: ...' line"
    text = found.group(1)
    if text == "nothing of restwire":
        return frozenset()
    return frozenset(name.strip() for name in text.split(","))


def test_the_layers_are_the_folders_of_pipeline() -> None:
    folders = {
        path.name for path in PIPELINE.iterdir() if (path / "__init__.py").exists()
    }
    assert folders == set(LAYERS)


def test_each_layer_says_what_it_may_import_as_the_architecture_does() -> None:
    for layer, allowed in LAYERS.items():
        assert declared(layer) == allowed, layer
    order = list(graphlib.TopologicalSorter(dict(LAYERS)).static_order())
    assert order[0] == "_base"
    assert order[-1] == "_controller"


def test_imports_between_layers_point_down_type_only_ones_included() -> None:
    wrong = []
    for path in sorted(PIPELINE.rglob("*.py")):
        source = layer_of(module_name(path))
        for target in sorted(imports(path)):
            other = layer_of(target)
            if source is None or other is None or other == source:
                continue
            if other not in LAYERS[source]:
                wrong.append(f"{module_name(path)} -> {target}")
    assert wrong == []


def test_no_module_imports_itself_through_others() -> None:
    modules = {module_name(path): path for path in PIPELINE.rglob("*.py")}
    graph = {
        name: {target for target in imports(path) if target in modules}
        for name, path in modules.items()
    }
    assert len(graph) >= 30
    graphlib.TopologicalSorter(graph).prepare()  # raises CycleError on a circle
    # The chain is given its innermost step rather than importing it, and the
    # controller's steps never reach up to a driver.
    assert not any(target.startswith("_controller") for target in graph["_chain.stack"])
    assert "_controller.async_controller" not in graph["_controller.controller"]


def test_middlewares_use_only_what_a_users_middleware_may() -> None:
    allowed = {"restwire", "restwire.middlewares", "restwire.extension"}
    wrong = []
    for path in sorted(MIDDLEWARES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.startswith("restwire") and node.module not in allowed:
                    wrong.append(f"{path.name}: {node.module}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("restwire") and alias.name not in allowed:
                        wrong.append(f"{path.name}: {alias.name}")
    assert wrong == []


def test_a_warm_fetch_passes_through_few_rooms() -> None:
    """A warm ``controller.fetch(posts.get, {"id": 1})`` of an ``Entity``
    resource enters few files in few layers (``tests/benchmarks/
    trace_modules.py`` prints them): each step of a call is in one place."""
    from tests.benchmarks.trace_modules import (
        MOST_FILES,
        MOST_LAYERS,
        layer,
        warm_calls,
    )

    modules, _ = warm_calls()["fetch"]
    assert len(modules) <= MOST_FILES, modules
    assert len({layer(name) for name in modules}) <= MOST_LAYERS, modules
