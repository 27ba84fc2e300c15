"""``BodyStatus``: a 2xx whose body says the call failed, raised as an error.

Some APIs answer a failure with a success status and say so in the body.
Slack's Web API answers ``200 OK`` with ``{"ok": false, "error":
"channel_not_found"}``; a GraphQL server answers ``200 OK`` with ``{"data":
null, "errors": [{"message": "..."}]}``. Without a middleware restwire
returns such a body as the value. With one:

| API | ``BodyStatus`` |
|---|---|
| ``{"ok": false, "error": "<code>"}`` (Slack) | ``BodyStatus()`` (``ok="ok", error="error"``) |
| ``{"errors": [{"message": ...}, ...]}`` (GraphQL) | ``BodyStatus(ok=None, errors="errors")`` |
| both | ``BodyStatus(errors="errors")`` |

A body whose ``ok`` field is ``false``, or whose ``errors`` field is a
non-empty list, is raised as a :class:`BodyStatusError`: a
:class:`~restwire.NetworkError` (``except NetworkError`` catches it, with
``status``, ``response``, ``json()``, ``request_id``) whose message names
the call and the body's error (the ``error`` field; for an ``errors``
list, its first item's ``message``) as a 4xx's does (one line, cut at 300
characters, no credential the request carried), ``code`` that error, and
``data`` the body, validated by the endpoint's ``error_schema`` where it
has one and fits, else the JSON as it came. A body that is not a JSON
object, or has no such field, or says ``ok: true``, is left as it is. An
``on_error`` outside this middleware sees the error, as it would a 4xx's.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from restwire import Exchange, NetworkError, SettingError
from restwire.extension import Response, error_data

__all__ = ["BodyStatus", "BodyStatusError"]


class BodyStatusError(NetworkError):
    """A 2xx whose body says the call failed (see :class:`BodyStatus`).

    ``code`` is the body's error (``"channel_not_found"``), or ``None``
    when it gave none; ``data`` the body, typed by the endpoint's
    ``error_schema`` where it has one."""

    def __init__(
        self,
        response: Response,
        code: str | None,
        data: Any,
        marked: Collection[str] = (),
    ) -> None:
        # the body's reason, every credential the call sent redacted (the
        # headers the endpoint marks sensitive too)
        super().__init__(response, marked)
        self.code = code
        if data is not None:
            self.data = data
        self.args = (f"{self} (the body of this 2xx says the call failed)",)


class BodyStatus:
    """Raise a 2xx whose body says it failed (see the module)."""

    sends_credentials = False

    __slots__ = ("error", "errors", "ok")

    def __init__(
        self,
        ok: str | None = "ok",
        error: str | None = "error",
        errors: str | None = None,
    ) -> None:
        for name, value in (("ok", ok), ("error", error), ("errors", errors)):
            if value is not None and (not isinstance(value, str) or not value):
                raise SettingError(
                    f"BodyStatus({name}=...) is the name of a body field, or "
                    f"None, not {value!r}"
                )
        if ok is None and errors is None:
            raise SettingError(
                "BodyStatus(): give ok (a field that is false on a failure) or "
                "errors (a list of errors, empty on a success), or both"
            )
        self.ok = ok
        self.error = error
        self.errors = errors

    def on_response(self, exchange: Exchange) -> None:
        body = exchange.value
        if type(body) is not dict:  # (fast: most bodies pass untouched)
            return
        failed = self.ok is not None and body.get(self.ok) is False
        errors = body.get(self.errors) if self.errors is not None else None
        if isinstance(errors, list) and errors:
            failed = True
        if not failed:
            return
        code = body.get(self.error) if self.error is not None else None
        if not isinstance(code, str):
            code = None
            if isinstance(errors, list) and errors:
                code = _message(errors[0])
        response = exchange.response
        if response is None:  # (an on_response always has its response)
            return
        schema = exchange.endpoint.error_schema
        data = (
            None
            if schema is None
            else error_data(schema, response, exchange.params, exchange.sensitive)
        )
        raise BodyStatusError(response, code, data, exchange.sensitive)

    def __repr__(self) -> str:
        return (
            f"BodyStatus(ok={self.ok!r}, error={self.error!r}, errors={self.errors!r})"
        )


def _message(error: Any) -> str | None:
    """A GraphQL-style error's text: its ``message``, or itself if text."""
    text = error.get("message") if isinstance(error, dict) else error
    return text if isinstance(text, str) else None
