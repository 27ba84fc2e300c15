"""httpbin under gunicorn on 127.0.0.1: a real server nobody here wrote.

:class:`Httpbin` starts one origin in a child process. The test makes the
listening socket itself and hands gunicorn its file descriptor, so the port
is known before gunicorn starts and no other process can take it in between.
It uses gunicorn's threaded worker, so ``/delay`` does not hold up the
other tests' requests.
"""

from __future__ import annotations

from tests.server_process import GunicornServer

__all__ = ["Httpbin"]


class Httpbin(GunicornServer):
    """One httpbin origin; a context manager that starts and stops it."""

    name = "httpbin"
    app = "httpbin:app"
    ready = "/get"
    threads = 16
    seconds = 30.0
