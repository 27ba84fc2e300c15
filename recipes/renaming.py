"""Key renaming: ``carrotsUsed`` and its too-long wire name.

A body's ``carrotsUsed`` goes out as
``carrotsUsedIsThisNameTooLong``; a response's long name comes back as
``carrotsUsed``; values without those keys pass unchanged.

To use it: ``RenameKeys({client_name: wire_name, ...})`` in your stack.
"""

from __future__ import annotations

from typing import Any

from restwire import Controller, RestEndpoint
from restwire.middlewares import RenameKeys

from .tour import Tour

TITLE = "carrotsUsed in the client, carrotsUsedIsThisNameTooLong on the wire"

RENAMES = {"carrotsUsed": "carrotsUsedIsThisNameTooLong"}


def run(base_url: str, tour: Tour) -> Any:
    rabbit = RestEndpoint(url_prefix=base_url, path="/rabbits/:id").use(
        RenameKeys(RENAMES)
    )
    with tour.client() as client:
        controller = Controller(client)
        before = controller.fetch(rabbit, {"id": 1})
        after = controller.fetch(
            rabbit.extend(method="PUT"), {"id": 1}, {"carrotsUsed": 20}
        )
        return {"before": before, "after": after}
