"""The node tools some tests run (Stoplight Prism, json-server), as
``.ci/install-node-tools`` installs them: the exact version each
``.ci/<tool>/package.json`` pins, into ``.cache/<tool>``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

__all__ = ["command", "missing", "pinned"]

ROOT = Path(__file__).resolve().parent.parent


def command(tool: str) -> Path:
    """Where ``.ci/install-node-tools`` puts ``tool``'s command."""
    return ROOT / ".cache" / tool / "node_modules" / ".bin" / tool


def pinned(tool: str, package: str) -> str:
    """The version of ``package`` that ``.ci/<tool>/package.json`` pins."""
    manifest = ROOT / ".ci" / tool / "package.json"
    version: str = json.loads(manifest.read_text(encoding="utf-8"))["dependencies"][
        package
    ]
    return version


def missing(tool: str, package: str, title: str) -> str | None:
    """Why ``tool`` (npm's ``package``, called ``title``) cannot run here,
    in one line saying how to get it; ``None`` when node is there and the
    pinned version is installed."""
    if shutil.which("node") is None:
        return f"node is not installed, so {title} cannot run"
    path = command(tool)
    installed = path.parent.parent / package / "package.json"
    if not path.exists() or not installed.exists():
        return f"{title} is not installed in {path.parent.parent.parent} (run .ci/install-node-tools)"
    version = json.loads(installed.read_text(encoding="utf-8"))["version"]
    if version != pinned(tool, package):
        return f"{title} {version} is installed, not {pinned(tool, package)} (run .ci/install-node-tools)"
    return None
