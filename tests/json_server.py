"""json-server on 127.0.0.1: the fake REST backend many front ends are
built against, a real server nobody here wrote (typicode/json-server 0.17,
the version ``.ci/json-server/``'s lock pins; ``.ci/install-node-tools``
installs it into ``.cache/json-server``).

:class:`JsonServer` serves a database (a dict of collections) from a JSON
file of its own in a temporary folder, on a port the OS just handed out,
and stops it; :func:`missing` says, in one line, why it cannot run here
when it cannot.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.httpbin import stop, wait_until_answers

__all__ = ["JSON_SERVER", "JsonServer", "missing"]

ROOT = Path(__file__).resolve().parent.parent
#: Where ``.ci/install-node-tools`` puts the json-server command.
JSON_SERVER = ROOT / ".cache" / "json-server" / "node_modules" / ".bin" / "json-server"
_MANIFEST = ROOT / ".ci" / "json-server" / "package.json"
#: The version ``.ci/json-server/package.json`` pins.
VERSION: str = json.loads(_MANIFEST.read_text(encoding="utf-8"))["dependencies"][
    "json-server"
]


def missing() -> str | None:
    """Why json-server cannot run here (one line saying how to get it), or
    ``None`` when the pinned version is installed and node is there."""
    if shutil.which("node") is None:
        return "node is not installed, so json-server cannot run"
    installed = JSON_SERVER.parent.parent / "json-server" / "package.json"
    if not JSON_SERVER.exists() or not installed.exists():
        return f"json-server is not installed in {JSON_SERVER.parent.parent.parent} (run .ci/install-node-tools)"
    version = json.loads(installed.read_text(encoding="utf-8"))["version"]
    if version != VERSION:
        return f"json-server {version} is installed, not {VERSION} (run .ci/install-node-tools)"
    return None


class JsonServer:
    """One json-server serving ``database``; a context manager."""

    def __init__(self, database: dict[str, Any]) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="restwire-json-server-")
        self.database = Path(self._folder.name) / "db.json"
        self.database.write_text(json.dumps(database), encoding="utf-8")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self.origin = f"http://127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> JsonServer:
        reason = missing()
        if reason is not None:
            raise RuntimeError(reason)
        self._process = subprocess.Popen(
            [
                str(JSON_SERVER),
                "--host=127.0.0.1",
                f"--port={self.port}",
                "--quiet",
                str(self.database),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        process = self._process

        def exited() -> str:
            _, errors = process.communicate()
            return f"json-server did not start: {errors.decode()[-2000:]}"

        def late() -> str:
            self.__exit__(None, None, None)
            return f"json-server at {self.origin} did not answer in 60 s"

        wait_until_answers(process, f"{self.origin}/db", 60, exited, late)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._process is not None:
            stop(self._process)
            self._process = None
        self._folder.cleanup()
