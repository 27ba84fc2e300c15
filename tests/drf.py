"""Django REST framework (``tests.drf_app``) under gunicorn on 127.0.0.1:
a real server nobody here wrote, started as :class:`tests.httpbin.Httpbin`
starts httpbin (the test makes the listening socket; gunicorn's threaded
worker), its SQLite database in a temporary folder of its own."""

from __future__ import annotations

import os
from typing import Any

from tests.server_process import GunicornServer

__all__ = ["USER", "Drf"]

#: The one user ``tests.drf_app`` signs in: (username, password).
USER = ("ada", "correct horse battery staple")


class Drf(GunicornServer):
    """One DRF origin; a context manager that starts and stops it."""

    name = "Django REST framework"
    app = "tests.drf_app:application"
    ready = "/api/customers/"

    def launch(self, **options: Any) -> None:
        database = str(self.folder / "db.sqlite3")
        super().launch(env={**os.environ, "RESTWIRE_DRF_DB": database}, **options)
