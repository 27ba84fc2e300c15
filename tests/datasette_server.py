"""Datasette on 127.0.0.1: Simon Willison's JSON API over SQLite, a real
server nobody here wrote, started in a process of its own on a database
the test describes (each table a list of rows, made with ``sqlite3``).

Datasette pages a table three ways, each a kind restwire reads: the next
page's URL in the body (``next_url``), a token to send back as ``_next``
(``next``), and, for ``?_shape=array``, a ``Link`` header. Its errors are
``{"ok": false, "error": "...", "status": 404}``.
"""

from __future__ import annotations

import socket
import sqlite3
import sys
from typing import Any

import httpx

from tests.server_process import ServerProcess

__all__ = ["Datasette"]


class Datasette(ServerProcess):
    """Datasette serving one database, ``shop``, of ``tables`` (a table's
    name to its rows, each a dict of the same keys, the first one its
    primary key); a context manager."""

    name = "Datasette"

    def __init__(self, tables: dict[str, list[dict[str, Any]]]) -> None:
        super().__init__()
        self.database = self.folder / "shop.db"
        made = sqlite3.connect(self.database)
        try:
            with made:
                for table, rows in tables.items():
                    columns = list(rows[0])
                    made.execute(
                        f"create table {table} ("
                        + ", ".join([f"{columns[0]} primary key", *columns[1:]])
                        + ")"
                    )
                    made.executemany(
                        f"insert into {table} values ({', '.join('?' * len(columns))})",
                        [tuple(row[column] for column in columns) for row in rows],
                    )
        finally:
            made.close()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self.origin = f"http://127.0.0.1:{self.port}"

    def launch(self) -> None:
        self.start(
            [
                sys.executable,
                "-m",
                "datasette",
                "serve",
                str(self.database),
                "--host=127.0.0.1",
                f"--port={self.port}",
            ],
            f"{self.origin}/-/databases.json",
        )

    def answers_as_itself(self, response: httpx.Response) -> bool:
        found = response.json()
        return isinstance(found, list) and [
            each.get("path") if isinstance(each, dict) else None for each in found
        ] == [str(self.database)]
