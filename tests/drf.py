"""Django REST framework (``tests/drf_service``) under gunicorn on 127.0.0.1:
a real server nobody here wrote, started as :class:`tests.httpbin.Httpbin`
starts httpbin (the test makes the listening socket; gunicorn's threaded
worker), its SQLite database in a temporary folder of its own."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.server_process import GunicornServer

__all__ = ["USER", "Drf"]

#: The one user the DRF service signs in: (username, password).
USER = ("ada", "correct horse battery staple")


class Drf(GunicornServer):
    """One DRF origin; a context manager that starts and stops it. The app
    is imported as ``drf_app``, from ``tests/drf_service`` alone: nothing
    else of the test suite is on the server's path."""

    name = "Django REST framework"
    app = "drf_app:application"
    pythonpath = str(Path(__file__).resolve().parent / "drf_service")
    ready = "/api/customers/"

    def launch(self, **options: Any) -> None:
        given = {
            "RESTWIRE_DRF_DB": str(self.folder / "db.sqlite3"),
            "RESTWIRE_DRF_USER": ":".join(USER),
        }
        super().launch(env={**os.environ, **given}, **options)
