"""The documentation site's build: an MkDocs hook and a griffe extension.

The hook: a line ``<!-- recipe-source: NAME -->`` in a page becomes a
Python block holding ``recipes/NAME.py``, less its module docstring (the
page explains the recipe) and its tour metadata (``TITLE``). The
recipes are run by ``tests/recipes/``, so the source shown is code that
runs.

The griffe extension (``PublicReference``, named in ``mkdocs.yml``): the
API reference shows what a user can name. Sphinx roles in docstrings
(``:class:`~restwire.Form```) become links to the public name they mean, or
code when that name is not in the reference; a base class that is not
public is left out of a class's bases; an attribute whose value names
private objects is shown without its value, and a signature without
private parameters or types. ``tests/test_docs.py`` builds
the site and fails on a role or a private name left in the reference.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path
from typing import Any

import griffe

ROOT = Path(__file__).resolve().parent
MARKER = re.compile(r"^<!-- recipe-source: (\w+) -->$", re.MULTILINE)
#: Module-level names the tour reads, not part of a recipe's lesson.
TOUR_METADATA = {"TITLE"}


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


#: The modules whose ``__all__`` is the public API the reference shows.
PUBLIC_MODULES = ("restwire", "restwire.middlewares", "restwire.extension")
#: A Sphinx cross-reference role: ``:class:`~restwire.Form```, ``:meth:`fetch```.
ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|exc|data|obj|const|mod):`([^`]+)`")
#: A private name: a leading underscore, not a dunder.
PRIVATE = re.compile(r"(?<![\w.])_(?!_)\w+|\b\w+\._(?!_)\w+")


class PublicReference(griffe.Extension):
    """Render restwire's docstrings for its public reference (see the
    module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        #: A canonical path (``restwire._store.forms.Form``) -> its public
        #: path (``restwire.Form``), for the objects the reference renders.
        self.public: dict[str, str] = {}
        #: A short name (``Form``) -> its public path.
        self.by_name: dict[str, str] = {}

    def on_package(self, *, pkg: griffe.Module, **_: Any) -> None:
        if pkg.name != "restwire":
            return
        for module_name in PUBLIC_MODULES:
            module = importlib.import_module(module_name)
            holder = pkg if module_name == "restwire" else pkg[module_name[9:]]
            for name in module.__all__:
                public = f"{module_name}.{name}"
                target = holder[name]
                canonical = target.final_target.path if target.is_alias else target.path
                self.public.setdefault(canonical, public)
                self.by_name.setdefault(name, public)
        self.package = pkg
        # Dataclasses' __init__ made now (griffe's own extension may run
        # after this one; it leaves a class with an __init__ as it is), so
        # their private fields are left out of the signatures below.
        griffe.DataclassesExtension().on_package(pkg=pkg)
        classes: list[griffe.Class] = []
        self._walk(pkg, set(), classes)
        # What a class inherits from a base the reference does not show
        # (Controller's invalidate, from a private base) becomes its own.
        inherited = [(cls, dict(cls.inherited_members)) for cls in classes]
        for cls, members in inherited:
            for name, member in members.items():
                cls.set_member(name, member)
        for cls in classes:
            cls.bases = [base for base in cls.bases if self._shown_base(base)]

    def _walk(
        self, obj: griffe.Object, seen: set[str], classes: list[griffe.Class]
    ) -> None:
        if obj.path in seen:
            return
        seen.add(obj.path)
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(
                lambda match: self._role(match[1], obj), obj.docstring.value
            )
        if isinstance(obj, griffe.Class):
            classes.append(obj)
        if isinstance(obj, griffe.Attribute) and PRIVATE.search(str(obj.value or "")):
            obj.value = None
        if isinstance(obj, griffe.Function):
            self._public_signature(obj)
        for member in list(obj.members.values()):
            if not member.is_alias:
                self._walk(member, seen, classes)  # type: ignore[arg-type]

    @staticmethod
    def _public_signature(function: griffe.Function) -> None:
        """A dataclass's private field (``init=True`` by default) is not a
        parameter to show; a parameter typed with a private protocol is shown
        without its type."""
        for parameter in list(function.parameters):
            if parameter.name.startswith("_") and parameter.default is not None:
                del function.parameters[parameter.name]
            elif PRIVATE.search(str(parameter.annotation or "")):
                parameter.annotation = None

    def _shown_base(self, base: str | griffe.Expr) -> bool:
        path = getattr(base, "canonical_path", str(base))
        if not path.startswith("restwire."):
            return True  # a base from elsewhere: Exception, Protocol, httpx's
        return path.split("[")[0] in self.public

    def _role(self, text: str, where: griffe.Object) -> str:
        """A role's target as a link to its public name, else as code."""
        title, _, bracketed = text.partition(" <")
        target = bracketed.rstrip(">") if bracketed else title
        short = target.startswith("~")
        target = target.lstrip("~")
        shown = title if bracketed else (target.rsplit(".", 1)[-1] if short else target)
        identifier = self._resolve(target, where)
        return f"[`{shown}`][{identifier}]" if identifier else f"`{shown}`"

    def _resolve(self, target: str, where: griffe.Object) -> str | None:
        """The public path of what ``target`` names from ``where``, if the
        reference renders it."""
        parts = target.removeprefix("restwire.").split(".")
        for module in ("middlewares", "extension"):
            if parts[0] == module and len(parts) > 1:
                parts = [f"restwire.{module}.{parts[1]}", *parts[2:]]
        head = self.by_name.get(parts[0]) or (parts[0] if "." in parts[0] else None)
        if head is not None and head in self.by_name.values():
            return self._member(head, parts[1:])
        owner = where if isinstance(where, griffe.Class) else where.parent
        if isinstance(owner, griffe.Class) and owner.path in self.public:
            return self._member(self.public[owner.path], parts)
        return None

    def _member(self, public: str, names: list[str]) -> str | None:
        obj: griffe.Object | griffe.Alias = self.package[
            public.removeprefix("restwire.")
        ]
        for name in names:
            if name.startswith("_") or name not in obj.all_members:
                return None
            obj = obj.all_members[name]
            if obj.docstring is None:  # not rendered: nothing to link to
                return None
        return ".".join([public, *names])
