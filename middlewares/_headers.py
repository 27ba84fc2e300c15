"""Setting a credential header: one helper for the token middlewares."""

from __future__ import annotations

import re

from restwire import Exchange

# Control characters but tab: a CR or LF in a value could split the header
# and inject another.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def send_credential(exchange: Exchange, header: str, value: str) -> None:
    """Set ``header`` and keep it to the call's origin and out of reprs.

    A value with a line break or other control character is refused.
    """
    if _CONTROL.search(value) is not None:
        raise ValueError(
            f"the {header} value has a control character; refusing to send it"
        )
    exchange.headers[header] = value
    exchange.mark_sensitive(header)
