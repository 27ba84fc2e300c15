"""What an error body says: the server's reason for a status error, in one
short line, and the body as JSON.

A 4xx or 5xx says why in its body, in one of a few shapes; the status
error's message quotes the short text of the first that fits
(:func:`reason_of`), in this order:

| shape | who sends it | the reason |
|---|---|---|
| ``{"title": ..., "detail": ...}`` | RFC 9457 problem details | ``title: detail`` (the title left out when it is the status's own phrase) |
| ``{"detail": "..."}`` | FastAPI's ``HTTPException``, Django REST framework | the text |
| ``{"detail": [{"loc": [...], "msg": ...}, ...]}`` | FastAPI's 422 | ``body.name: Field required; ...`` |
| ``{"error": {"message": ...}}`` | Google, OpenAI, Stripe | the message |
| ``{"error": "...", "message": "..."}`` | Spring Boot, NestJS | ``error: message`` |
| ``{"error": "...", "error_description": "..."}`` | OAuth 2.0 (RFC 6749, 5.2) | ``error: error_description`` |
| ``{"error": "..."}`` | many | the text |
| ``{"message": "..."}`` | GitHub, many | the text (or texts, ``; ``-joined) |
| ``{"errors": [...]}`` | JSON:API, GraphQL, Rails | each error's ``detail``, ``message`` or ``title`` (or the text), ``; ``-joined; an object of field names to texts as ``name: text``; after the ``message``, if any |
| ``{"name": ["..."], "non_field_errors": ["..."]}``, in a 400 or a 422 | Django REST framework's field errors (Django's forms') | ``name: text; text`` (a field's sentences a space apart, nested fields dotted: ``address.city``, ``items.1.qty``); read first when the body has more than one key (a form's field may be named ``message``) |
| a JSON string, or a ``text/plain`` body | plain servers | the text |

Anything else (an HTML page, a JSON shape not above) gives no reason: the
message says the status alone. The reason is made one line (control
characters and line breaks become spaces, runs of spaces one), cut to
:data:`REASON_LIMIT` characters, and redacted by the caller (``errors``):
no credential the call sent appears in it, even when the server echoes
one back. Reading is bounded: the body was read within the endpoint's
``max_body_size``, at most :data:`_MOST_ITEMS` entries of a list are
looked at, and a body nested past Python's stack is no reason.

:func:`json_document` is the body as JSON, whatever its shape (a status
error's ``data`` when no ``error_schema`` reads it), or :data:`NOT_JSON`.
Nothing here runs unless a call failed.
"""

from __future__ import annotations

import json
from itertools import islice
from typing import Any

from .http import is_json_type
from .library import Response

__all__ = ["NOT_JSON", "REASON_LIMIT", "json_document", "one_line", "reason_of"]

#: The most characters of a server's reason a message quotes.
REASON_LIMIT = 300
#: The most entries of a list of errors (or of a ``loc``) looked at.
_MOST_ITEMS = 20


class _NotJson:
    def __repr__(self) -> str:
        return "NOT_JSON"


#: What :func:`json_document` gives for a body that is not JSON.
NOT_JSON: Any = _NotJson()


def json_document(response: Response) -> Any:
    """The body of ``response`` (read) as JSON, whatever its shape, or
    :data:`NOT_JSON`: a body that does not parse, an empty one, or one
    whose content type names something else (an HTML page) and that does
    not start as a JSON object or array does."""
    content = response.content
    if not content:
        return NOT_JSON
    content_type = response.headers.get("content-type")
    if content_type and not is_json_type(content_type):
        start = content.lstrip()[:1]
        if start not in (b"{", b"["):
            return NOT_JSON
    try:
        return json.loads(content)
    except (ValueError, RecursionError):  # not JSON, or nested past the stack
        return NOT_JSON


def reason_of(response: Response, document: Any) -> str | None:
    """What the error body of ``response`` says (see the module), as the
    server wrote it (not yet one line, nor redacted); ``None`` for no
    reason, or one that only repeats the status's phrase. ``document``:
    the body as :func:`json_document` read it."""
    if document is NOT_JSON:
        said = _plain_text(response)
    else:
        try:
            said = _said(document, response.status_code in _FIELD_ERROR_STATUSES)
        except RecursionError:  # a list of lists of lists ...
            said = None
    if not said:
        return None
    phrase = response.reason_phrase.strip().lower()
    if phrase and said[: len(phrase) + 2].lower() == f"{phrase}: ":
        said = said[len(phrase) + 2 :]  # ("Not Found: no post 999")
    if not said.strip() or said.strip().lower() == phrase:
        return None
    return said


def one_line(text: str, limit: int = REASON_LIMIT) -> str:
    """``text`` on one line (every character that is not printable a space,
    runs of spaces one), at most ``limit`` characters (``...`` ends a text
    cut short)."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else " " for c in text)
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 3].rstrip() + "..."
    return text


def _plain_text(response: Response) -> str | None:
    """A ``text/plain`` body's text (at most a few times what is shown)."""
    content_type = response.headers.get("content-type", "")
    if content_type.partition(";")[0].strip().lower() != "text/plain":
        return None
    return response.content[: REASON_LIMIT * 8].decode("utf-8", "replace")


def _said(document: Any, fields: bool = False) -> str | None:
    """The reason a JSON ``document`` gives (see the module's table);
    ``fields``: whether it may be Django REST framework's field errors
    (a 400 or a 422)."""
    if isinstance(document, str):
        return document
    if isinstance(document, list):
        return _each(document)
    if not isinstance(document, dict):
        return None
    if fields and len(document) > 1:
        # (first: a form may well have a field named message, detail or
        # errors; no other shape below is of field errors whole)
        texts = _field_errors(document)
        if texts:
            return "; ".join(texts)
    title = _text(document.get("title"))
    detail = document.get("detail")
    if isinstance(detail, list):
        return _joined(title, _each(detail))
    if title is not None or isinstance(detail, str):
        return _joined(title, _text(detail))
    error = document.get("error")
    message = _message(document.get("message"))
    if isinstance(error, dict):
        inner = error.get("message")
        if not isinstance(inner, str):
            inner = error.get("detail")
        return _message(inner) or _message(error.get("errors")) or message
    if isinstance(error, str):
        description = _text(document.get("error_description"))
        return _joined(error, message or description)
    errors = document.get("errors")
    if isinstance(errors, list):
        return _joined(message, _each(errors))
    if isinstance(errors, dict):
        return _joined(message, _fields(errors))
    if fields and message is None and len(document) == 1:
        texts = _field_errors(document)
        return "; ".join(texts) if texts else None
    return message


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _message(value: Any) -> str | None:
    """A ``message``: a text, or a list of them (NestJS's validation)."""
    if isinstance(value, list):
        return _each(value)
    return _text(value)


def _joined(title: str | None, detail: str | None) -> str | None:
    """``title: detail``, or whichever there is."""
    if title and detail and title.strip() != detail.strip():
        return f"{title}: {detail}"
    return detail or title


def _each(items: list[Any]) -> str | None:
    """The errors of a list, ``; ``-joined: each a text, or an object's
    ``msg`` (FastAPI, after its ``loc``), ``detail``, ``message`` or
    ``title``."""
    texts: list[str] = []
    for item in items[:_MOST_ITEMS]:
        if isinstance(item, str):
            if item.strip():
                texts.append(item)
        elif isinstance(item, dict):
            text = next(
                (
                    value
                    for name in ("msg", "detail", "message", "title")
                    if (value := _text(item.get(name))) is not None
                ),
                None,
            )
            if text is None:
                continue
            where = _where(item.get("loc"))
            texts.append(f"{where}: {text}" if where else text)
    return "; ".join(texts) or None


def _where(loc: Any) -> str | None:
    """FastAPI's ``loc`` (``["body", "name"]``) as ``body.name``."""
    if not isinstance(loc, list) or not loc:
        return None
    return ".".join(str(part) for part in loc[:_MOST_ITEMS])


def _fields(errors: dict[Any, Any]) -> str | None:
    """Rails' ``{"errors": {"name": ["can't be blank"]}}``: ``name: can't
    be blank``, ``; ``-joined."""
    texts: list[str] = []
    for name, value in list(errors.items())[:_MOST_ITEMS]:
        said = _message(value)
        if said:
            texts.append(f"{name}: {said}")
    return "; ".join(texts) or None


#: The statuses whose body may be field errors (Django REST framework's
#: validation errors are 400s; some services answer them with a 422).
_FIELD_ERROR_STATUSES = frozenset((400, 422))
#: The names under which Django REST framework (``NON_FIELD_ERRORS_KEY``'s
#: default) and Django's forms (``form.errors``) put the errors of no one
#: field: their texts are quoted with no name.
_NO_FIELD = frozenset(("non_field_errors", "__all__"))
#: The most characters of field errors gathered (the rest of the body is
#: still checked for the shape, never joined into text).
_FIELD_TEXT = REASON_LIMIT * 4
#: The most entries of field errors looked at in all (a wide tree of them
#: is read no further: what was gathered is the reason).
_FIELD_VISITS = 2_000


class _Walk:
    """What a walk of field errors has gathered: ``texts``, the names of
    where it is (``path``, a stack joined only for a text gathered), the
    characters gathered and the entries it may still look at."""

    __slots__ = ("chars", "left", "path", "texts")

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.path: list[str] = []
        self.chars = 0
        self.left = _FIELD_VISITS


def _field_errors(errors: dict[Any, Any]) -> list[str] | None:
    """Django REST framework's field errors, ``{"name": ["This field is
    required."], "address": {"city": [...]}, "lines": [{}, {"qty":
    [...]}]}``: ``["name: This field is required.", "address.city: ...",
    "lines.1.qty: ..."]``; an error may also be an object of its
    ``message`` and ``code`` (DRF's ``get_full_details()``, Django's
    ``errors.get_json_data()``). ``None`` when ``errors`` is not of that
    shape (each value a list of such errors, an object of the same shape,
    or a list of such objects), so that no other body is read as one.

    Bounded: the first :data:`_MOST_ITEMS` entries of each object and list
    are looked at, :data:`_FIELD_VISITS` in all (past it, what was
    gathered is the reason), texts are gathered up to :data:`_FIELD_TEXT`
    characters, and a body nested past Python's stack is not of the shape
    (the other shapes are tried)."""
    walk = _Walk()
    try:
        fits = _walk_fields(errors, walk)
    except RecursionError:
        return None
    return walk.texts if fits else None


def _walk_fields(errors: dict[Any, Any], walk: _Walk) -> bool:
    """:func:`_field_errors` of ``errors``, found where ``walk`` is:
    whether it is of the shape (as far as it is looked at)."""
    if not errors:
        return False
    for name, value in islice(errors.items(), _MOST_ITEMS):
        walk.left -= 1
        if walk.left < 0:
            return True  # (looked at enough: the rest is not read)
        # (a nested object's own errors are its name's: ``address: ...``)
        named = name not in _NO_FIELD
        if named:
            walk.path.append(str(name))
        if isinstance(value, dict):
            fits = _walk_fields(value, walk)
        elif isinstance(value, list) and value:
            fits = _walk_list(value[:_MOST_ITEMS], walk)
        else:
            fits = False
        if named:
            walk.path.pop()
        if not fits:
            return False
    return True


def _walk_list(items: list[Any], walk: _Walk) -> bool:
    """A field's list: its errors (texts, or ``message``/``code`` objects),
    or its items' (objects of the field errors' shape, ``{}`` for an item
    with none)."""
    said = [_error_text(each) for each in items]
    if all(text is not None for text in said):
        if walk.chars < _FIELD_TEXT:
            joined = _joined_texts([text for text in said if text and text.strip()])
            if joined:
                where = ".".join(walk.path)
                walk.texts.append(f"{where}: {joined}" if where else joined)
                walk.chars += len(walk.texts[-1])
        return True
    if not all(isinstance(each, dict) for each in items):
        return False
    for index, each in enumerate(items):
        if each:
            walk.path.append(str(index))
            fits = _walk_fields(each, walk)
            walk.path.pop()
            if not fits:
                return False
    return True


def _joined_texts(texts: list[str]) -> str:
    """One field's errors: sentences (DRF's, each ending ``.``, ``!`` or
    ``?``) a space apart, fragments (``can't be blank``) ``; ``-joined."""
    if all(text.rstrip().endswith((".", "!", "?")) for text in texts):
        return " ".join(texts)
    return "; ".join(texts)


def _error_text(error: Any) -> str | None:
    """One error of a field: a text, or ``{"message": ..., "code": ...}``."""
    if isinstance(error, str):
        return error
    if (
        isinstance(error, dict)
        and isinstance(error.get("message"), str)
        and error.keys() <= {"message", "code"}
    ):
        return str(error["message"])
    return None
