"""Key casing both ways: a camelCase client, and the Python-native one.

snake_case on the wire, camelCase in the client (``current_viewers`` ->
``currentViewers``); request bodies go back to snake_case.

For Python code, the natural mirror is a camelCase API read into snake_case:
``SnakeCaseKeys``. To use either, add it to your base endpoint's stack.
"""

from __future__ import annotations

from typing import Any

from restwire import Controller, RestEndpoint
from restwire.middlewares import CamelCaseKeys, SnakeCaseKeys

from .tour import Tour

TITLE = "snake_case wire to camelCase client, and camelCase wire to snake_case"


def run(base_url: str, tour: Tour) -> Any:
    api = RestEndpoint(url_prefix=base_url)
    camel_way = api.extend(path="/streams/:username/").use(CamelCaseKeys())
    python_way = api.extend(path="/price/:pair").use(SnakeCaseKeys())
    with tour.client() as client:
        controller = Controller(client)
        return {
            "CamelCaseKeys": controller.fetch(camel_way, {"username": "sky"}),
            "SnakeCaseKeys": controller.fetch(python_way, {"pair": "BTC-USD"}),
        }
