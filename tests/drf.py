"""Django REST framework (``tests.drf_app``) under gunicorn on 127.0.0.1:
a real server nobody here wrote, started as :class:`tests.httpbin.Httpbin`
starts httpbin (the test makes the listening socket; gunicorn's threaded
worker), its SQLite database in a temporary folder of its own."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from types import TracebackType

from tests.httpbin import stop, wait_until_answers

__all__ = ["USER", "Drf"]

#: The one user ``tests.drf_app`` signs in: (username, password).
USER = ("ada", "correct horse battery staple")


class Drf:
    """One DRF origin; a context manager that starts and stops it."""

    def __init__(self) -> None:
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(128)
        self._listener.set_inheritable(True)
        port = self._listener.getsockname()[1]
        self.origin = f"http://127.0.0.1:{port}"
        self._folder = tempfile.TemporaryDirectory(prefix="restwire-drf-")
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Drf:
        fd = self._listener.fileno()
        self._process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                f"--bind=fd://{fd}",
                "--worker-class=gthread",
                "--workers=1",
                "--threads=8",
                "--no-control-socket",
                "--log-level=warning",
                "tests.drf_app:application",
            ],
            pass_fds=[fd],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={
                **os.environ,
                "RESTWIRE_DRF_DB": os.path.join(self._folder.name, "db.sqlite3"),
            },
        )
        self._listener.close()  # gunicorn holds it now
        process = self._process

        def exited() -> str:
            _, errors = process.communicate()
            return f"Django REST framework did not start: {errors.decode()[-2000:]}"

        def late() -> str:
            self.__exit__(None, None, None)
            return f"Django REST framework at {self.origin} did not answer in 60 s"

        wait_until_answers(process, f"{self.origin}/api/customers/", 60, exited, late)
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
