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
from types import TracebackType

import httpx

__all__ = ["Httpbin", "stop"]


def stop(process: subprocess.Popen[bytes]) -> None:
    """End a server the tests started: politely, then for sure after 10 s."""
    process.terminate()
    try:
        process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()


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
        assert self._process is not None
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                _, errors = self._process.communicate()
                raise RuntimeError(f"httpbin did not start: {errors.decode()[-2000:]}")
            try:
                httpx.get(f"{self.origin}/get", timeout=1.0)
            except httpx.TransportError:
                time.sleep(0.05)
            else:
                return
        self.__exit__(None, None, None)
        raise RuntimeError(f"httpbin at {self.origin} did not answer in {seconds} s")

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
