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
import subprocess
import sys
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.httpbin import stop, wait_until_answers

__all__ = ["Datasette"]


class Datasette:
    """Datasette serving one database, ``shop``, of ``tables`` (a table's
    name to its rows, each a dict of the same keys, the first one its
    primary key); a context manager."""

    def __init__(self, tables: dict[str, list[dict[str, Any]]]) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="restwire-datasette-")
        self.database = Path(self._folder.name) / "shop.db"
        with sqlite3.connect(self.database) as made:
            for table, rows in tables.items():
                columns = list(rows[0])
                made.execute(
                    f"create table {table} ({columns[0]} primary key, "
                    + ", ".join(columns[1:])
                    + ")"
                )
                made.executemany(
                    f"insert into {table} values ({', '.join('?' * len(columns))})",
                    [tuple(row[column] for column in columns) for row in rows],
                )
        made.close()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self.origin = f"http://127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Datasette:
        self._process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "datasette",
                "serve",
                str(self.database),
                "--host=127.0.0.1",
                f"--port={self.port}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        process = self._process

        def exited() -> str:
            _, errors = process.communicate()
            return f"Datasette did not start: {errors.decode()[-2000:]}"

        def late() -> str:
            self.__exit__(None, None, None)
            return f"Datasette at {self.origin} did not answer in 60 s"

        wait_until_answers(process, f"{self.origin}/-/versions.json", 60, exited, late)
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
