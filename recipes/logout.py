"""LogoutManager: a 401 empties the store, and the error still reaches you.

When authorization expires the server answers 401, and
``LogoutManager`` runs the sign-out cleanup.

To use it: give ``Controller(managers=[LogoutManager()])``; replace
``handle_logout`` to also clear your token holder or redirect to a login.
"""

from __future__ import annotations

from typing import Any

from restwire import Controller, LogoutManager, NetworkError, RestEndpoint
from restwire.middlewares import AccessToken

from .tour import Tour

TITLE = "a 401 logs out: the store is emptied, the caller still sees it"


def run(base_url: str, tour: Tour) -> Any:
    auth = AccessToken()

    def forget_everything(controller: Any) -> None:
        controller.reset()
        auth.token = None
        tour.say("LogoutManager ran: store reset, token forgotten")

    base = RestEndpoint(url_prefix=base_url).use(auth)
    get_mine = base.extend(path="/my/:id")
    with tour.client() as client:
        controller = Controller(
            client, managers=[LogoutManager(handle_logout=forget_everything)]
        )
        auth.token = controller.fetch(
            base.extend(path="/login", method="POST"), body={}
        )["accessToken"]
        controller.get(get_mine, {"id": "1"})
        stored_before = len(controller.store.results)
        controller.fetch(base.extend(path="/sessions/expire", method="POST"))
        try:
            controller.fetch(get_mine, {"id": "2"})
        except NetworkError as error:
            status = error.status
        return {
            "results stored before": stored_before,
            "error": status,
            "results stored after": len(controller.store.results),
            "token": auth.token,
        }
