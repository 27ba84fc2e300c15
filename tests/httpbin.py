"""httpbin under gunicorn on 127.0.0.1: a real server nobody here wrote.

:class:`Httpbin` starts one origin in a child process. The test makes the
listening socket itself and hands gunicorn its file descriptor, so the port
is known before gunicorn starts and no other process can take it in between.
It uses gunicorn's threaded worker, so ``/delay`` does not hold up the
other tests' requests.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Callable
from types import TracebackType

import httpx

__all__ = ["Httpbin", "stop"]


def stop(process: subprocess.Popen[bytes]) -> None:
    """End a server the tests started: politely, then for sure after 30 s."""
    process.terminate()
    try:
        process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()


def wait_until_answers(
    process: subprocess.Popen[bytes],
    url: str,
    seconds: float,
    exited: Callable[[], str],
    late: Callable[[], str],
) -> None:
    """Wait until a server the tests started answers ``url`` over HTTP (any
    status), at most ``seconds``; a ``RuntimeError`` saying ``exited()``
    if the process ends first, ``late()`` if it never answers."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(exited())
        try:
            httpx.get(url, timeout=1.0)
        except httpx.TransportError:
            time.sleep(0.05)
        else:
            return
    raise RuntimeError(late())


class Httpbin:
    """One httpbin origin; a context manager that starts and stops it."""

    def __init__(self) -> None:
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(128)
        self._listener.set_inheritable(True)
        port = self._listener.getsockname()[1]
        self.origin = f"http://127.0.0.1:{port}"
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Httpbin:
        fd = self._listener.fileno()
        self._process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                f"--bind=fd://{fd}",
                "--worker-class=gthread",
                "--workers=1",
                "--threads=16",
                "--no-control-socket",
                "--log-level=warning",
                "httpbin:app",
            ],
            pass_fds=[fd],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self._listener.close()  # gunicorn holds it now
        self._wait_until_up()
        return self

    def _wait_until_up(self, seconds: float = 30.0) -> None:
        process = self._process
        assert process is not None

        def exited() -> str:
            _, errors = process.communicate()
            return f"httpbin did not start: {errors.decode()[-2000:]}"

        def late() -> str:
            self.__exit__(None, None, None)
            return f"httpbin at {self.origin} did not answer in {seconds} s"

        wait_until_answers(process, f"{self.origin}/get", seconds, exited, late)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._process is None:
            return
        stop(self._process)
        self._process = None
