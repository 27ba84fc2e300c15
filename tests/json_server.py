"""json-server on 127.0.0.1: the fake REST backend many front ends are
built against, a real server nobody here wrote (typicode/json-server 0.17,
the version ``.ci/json-server/``'s lock pins; ``.ci/install-node-tools``
installs it into ``.cache/json-server``).

:class:`JsonServer` serves a database (a dict of collections) from a JSON
file of its own, on a port the OS just handed out, and stops it;
:func:`missing` says, in one line, why it cannot run here when it cannot.
"""

from __future__ import annotations

import json
import socket
from typing import Any

import httpx

from tests import node_tools
from tests.server_process import ServerProcess

__all__ = ["JsonServer", "missing"]


def missing() -> str | None:
    """Why json-server cannot run here (one line saying how to get it), or
    ``None`` when the pinned version is installed and node is there."""
    return node_tools.missing("json-server", "json-server", "json-server")


class JsonServer(ServerProcess):
    """One json-server serving ``database``; a context manager."""

    name = "json-server"

    def __init__(self, database: dict[str, Any]) -> None:
        super().__init__()
        self.database = self.folder / "db.json"
        self.database.write_text(json.dumps(database), encoding="utf-8")
        self._served = database
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self.origin = f"http://127.0.0.1:{self.port}"

    def launch(self) -> None:
        reason = missing()
        if reason is not None:
            self.close()
            raise RuntimeError(reason)
        self.start(
            [
                str(node_tools.command("json-server")),
                "--host=127.0.0.1",
                f"--port={self.port}",
                "--quiet",
                str(self.database),
            ],
            f"{self.origin}/db",
        )

    def answers_as_itself(self, response: httpx.Response) -> bool:
        return bool(response.json() == self._served)
