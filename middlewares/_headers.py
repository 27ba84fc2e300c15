"""Setting a credential header: one helper for the token middlewares."""

from __future__ import annotations

from pipeline import Exchange


def send_credential(exchange: Exchange, header: str, value: str) -> None:
    """Set ``header`` and keep it to the call's origin and out of reprs.

    A value with a line break or other control character is refused: it
    could split the header and inject another.
    """
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in value if char != "\t"):
        raise ValueError(
            f"the {header} value has a control character; refusing to send it"
        )
    exchange.headers[header] = value
    exchange.mark_sensitive(header)
