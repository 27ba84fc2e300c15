"""A child process for ``test_bombs``: ``python -m tests.hostile.bomb_child MODE``.

A clean reading of what one fetch holds needs a process of its own: this
one starts a server, warms a controller (``MODE``: ``sync`` or ``async``) on
a small body of each kind, then runs each hostile case and prints, as JSON,
how far its peak RSS rose above its RSS just before, and what the call gave.

Peak RSS is ``VmHWM`` from ``/proc/self/status``, reset before each case by
writing 5 to ``/proc/self/clear_refs`` (Linux 4.0+). Not ``ru_maxrss``: Linux
carries the parent's peak across ``exec`` into it, so under a large pytest
it reads the parent and every case looks free.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from typing import Any
from urllib.parse import quote

import anyio

from restwire import AsyncController, Controller, RestEndpoint
from tests.servers import RecordingServer, bomb

LIMIT = 1 << 20  # max_body_size: 1 MiB
BOMB = 200 << 20  # what each bomb inflates to: 200 MiB
CODINGS = ("gzip", "deflate", "br", "zstd")


def _status(field: str) -> int:
    """A ``kB`` field of ``/proc/self/status``, in bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise LookupError(field)


def reset_peak() -> int:
    """Reset this process's peak RSS to its RSS now; return that RSS."""
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    return _status("VmRSS")


def peak() -> int:
    """This process's peak RSS since the last reset, in bytes."""
    return _status("VmHWM")


def cases(server: RecordingServer) -> list[tuple[str, str]]:
    home = quote(server.url("/echo"), safe="")
    return [
        *(
            (f"{coding} bomb", f"/bomb?coding={coding}&size={BOMB}")
            for coding in CODINGS
        ),
        ("redirect with a 300 MiB body", f"/redirect-body?size={300 << 20}&to={home}"),
        ("redirect with an endless body", f"/redirect-body?size=endless&to={home}"),
    ]


def outcome(call: Any) -> str:
    try:
        value = call()
    except Exception as error:  # reported to the parent, not judged here
        return type(error).__name__
    return f"value {str(value)[:40]}"


async def outcome_async(call: Any) -> str:
    try:
        value = await call()
    except Exception as error:
        return type(error).__name__
    return f"value {str(value)[:40]}"


def main(mode: str) -> None:
    server = RecordingServer()
    for coding in CODINGS:
        bomb(coding, BOMB)  # built before the baseline: the server's own memory
    api = RestEndpoint(url_prefix=server.origin, max_body_size=LIMIT)
    warm = [api.extend(path=f"/bomb?coding={coding}&size=1000") for coding in CODINGS]
    report: dict[str, Any] = {}
    if mode == "sync":
        with Controller() as controller:
            for endpoint in warm:
                controller.fetch_response(endpoint)
            for name, path in cases(server):
                endpoint = api.extend(path=path)
                before = reset_peak()
                result = outcome(partial(controller.fetch, endpoint))
                report[name] = {"outcome": result, "growth": peak() - before}
    else:

        async def run() -> None:
            async with AsyncController() as controller:
                for endpoint in warm:
                    await controller.fetch_response(endpoint)
                for name, path in cases(server):
                    endpoint = api.extend(path=path)
                    before = reset_peak()
                    result = await outcome_async(partial(controller.fetch, endpoint))
                    report[name] = {"outcome": result, "growth": peak() - before}

        anyio.run(run)
    server.close()
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1])
