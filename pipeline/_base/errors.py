"""What restwire shows: its exceptions, and credentials redacted from them.

Every error a caller can meet derives from :class:`RestwireError`, names the
URL (credentials in it redacted) and says what was wrong. An error that comes
from httpx keeps the httpx exception as its ``__cause__``. No message, repr or
attribute shown by default carries a header value, so tokens and cookies never
reach a log through an exception (a ``NetworkError`` keeps, as attributes,
only what the server said: its request id, ``Retry-After`` and problem
details). The redaction helpers below serve every repr and log line too
(:func:`redact_url`, :func:`redact_params`, :func:`redis_address`).

**Optional dependencies.** restwire's own dependencies are few (httpx,
multidict, anyio, msgspec, sniffio); each feature that needs more names an
*extra* in ``pyproject.toml`` (``pip install "restwire[cache]"``). A
feature imports its package with :func:`require` when the user makes it
(``HttpCache.sqlite()``, ``RateLimit(redis=...)``, an endpoint with a model
schema), so a missing package is a :class:`MissingExtra` there, naming the
feature, the package and the command that installs it, rather than a bare
``ModuleNotFoundError`` at the first call, deep inside a request. A package
that is installed but fails to import (a broken install, one of its own
dependencies missing) is a :class:`MissingExtra` too, saying so, with the
import's error as its ``__cause__``.

**Errors that travel.** Every restwire error pickles and copies (a
failing call in a ``ProcessPoolExecutor``, ``multiprocessing.Pool``,
Celery, joblib): :meth:`RestwireError.__reduce__` carries the class, the
message and every attribute a caller reads, never the ``__init__``
arguments (which a subclass takes as live objects). What is live or says
who called does not travel: a response goes as a detached copy (status,
reason, the body, the response headers but ``Set-Cookie`` and any whose
name says credential; its request has the method and URL only, no
header), a URL with its userinfo dropped and its credential params
redacted, the message and text attributes redacted as every message is
(:func:`redact_url`: a message made before its credentials were known
to be credentials is redacted on the way); an attribute that cannot
be pickled (a model class defined inside a function) is left ``None``,
and a note says so. ``copy.copy`` shares the attributes, as a shallow
copy does; ``copy.deepcopy`` gives the detached error a pickle would.

It imports only ``credentials`` (what names a credential), ``http`` (the
parsers a ``NetworkError`` reads its response with) and ``library``.
"""

from __future__ import annotations

import base64
import binascii
import copy as _copy
import html
import importlib
import json
import pickle
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from types import ModuleType
from typing import Any, Self, TypeVar
from urllib.parse import quote, quote_plus, unquote_plus

from .credentials import (
    CREDENTIAL_PARAMS,
    PUBLIC_HEADERS,
    is_credential,
    names_credential,
)
from .error_bodies import NOT_JSON, REASON_LIMIT, json_document, one_line, reason_of
from .http import problem_of, retry_after_seconds
from .library import (
    DEFAULT,
    LIBRARIES,
    TIMEOUT_KINDS,
    URL,
    Headers,
    Request,
    Response,
)

__all__ = [
    "EXTRAS",
    "REDACTED",
    "REQUEST_ID_HEADERS",
    "BodyTooLarge",
    "ContentError",
    "ControllerClosed",
    "DownloadError",
    "InvalidRequest",
    "MissingExtra",
    "NetworkError",
    "ParameterError",
    "RequestBodyError",
    "RestwireError",
    "RestwireWarning",
    "SettingError",
    "TooManyRedirects",
    "TransportError",
    "UsageError",
    "fresh_error",
    "header_names",
    "not_a_redis_url",
    "quoted_forms",
    "redact_error",
    "redact_params",
    "redact_secrets",
    "redact_url",
    "redis_address",
    "require",
    "sent_secrets",
]

REDACTED = "[redacted]"

#: Userinfo: an authority's text up to its last ``@`` (a password may hold
#: an ``@`` of its own, which httpx takes as part of it).
_USERINFO = re.compile(r"//[^/?#]*@")
#: Userinfo whose password holds a ``/``, ``?`` or ``#`` (a base64 token):
#: what stands before that reads as a host with a port that is not a
#: number, and an ``@`` follows. No URL parses so, but its error quotes it:
#: all up to the text's last ``@`` goes (the password may hold ``@`` too).
_SLASHED_USERINFO = re.compile(
    r"//(?!\[)[^/?#@:]*:(?![0-9]*(?:[/?#]|$))[^/?#@]*[/?#].*@"
)


def redact_url(url: URL | str) -> str:
    """The URL as text with its userinfo replaced, user name and password
    alike (either can be a token: ``https://TOKEN@host``), and the values of
    its query parameters that carry credentials (``access_token``,
    ``api_key``, ``X-Amz-Signature``, ...: ``CREDENTIAL_PARAMS``).

    Works on text that is not a valid URL too (a path template with
    ``:name`` placeholders, say, or a password holding ``@`` or ``/``), so
    an error about a bad URL cannot show its credentials.
    """
    text = _USERINFO.sub(f"//{REDACTED}@", str(url))
    text = _SLASHED_USERINFO.sub(f"//{REDACTED}@", text)
    return redact_params(text)


#: Every credential param a ``Sharing`` of this process names, besides the
#: default list: redacted from every message, whichever controller made it
#: (redacting one more value from a message is harmless; request keys use
#: each controller's own list, see ``_chain.identity.plain_url``).
_DECLARED: set[str] = set()


def declare_credential_params(names: Iterable[str]) -> None:
    """Redact the params ``names`` (lower case) from messages from now on."""
    _DECLARED.update(name for name in names if name not in CREDENTIAL_PARAMS)


def redact_params(
    text: str, placeholder: str = REDACTED, names: Collection[str] | None = None
) -> str:
    """``text`` (a URL) with the values of its credential query parameters
    (``names``; by default the default list and every one a ``Sharing``
    named) replaced by ``placeholder``; the parameters stay, in their
    order."""
    if names is None:
        names = CREDENTIAL_PARAMS | _DECLARED if _DECLARED else CREDENTIAL_PARAMS
    start = text.find("?")
    if start < 0:
        return text
    end = text.find("#", start)
    if end < 0:
        end = len(text)
    parts = text[start + 1 : end].split("&")
    changed = False
    for index, part in enumerate(parts):
        name, equals, value = part.partition("=")
        if equals and value and unquote_plus(name).lower() in names:
            parts[index] = f"{name}={placeholder}"
            changed = True
    if not changed:
        return text
    return f"{text[: start + 1]}{'&'.join(parts)}{text[end:]}"


def quoted_forms(secret: str) -> set[str]:
    """``secret`` as a server may quote it back: as it is, form-encoded
    (``quote_plus``), percent-encoded (``/`` escaped or not, hex digits in
    either case), the form quoted in a URL, JSON-escaped (ASCII or not,
    with ``/`` escaped or not), HTML-escaped."""
    escaped = json.dumps(secret)[1:-1]
    forms = {
        secret,
        quote_plus(secret),
        quote(secret, safe=""),
        quote(secret),  # ("/" left as it is, as urllib's default)
        quote(quote_plus(secret), safe=""),  # the form, quoted in a URL
        escaped,
        escaped.replace("/", "\\/"),
        json.dumps(secret, ensure_ascii=False)[1:-1],
        html.escape(secret),  # (an HTML or Spring error page: &amp; &lt;)
        html.escape(secret, quote=False),
    }
    # percent-encoding with lower-case hex digits (%2f), as some servers echo
    forms |= {_LOWER_HEX.sub(_lowered, each) for each in forms if "%" in each}
    return {each for each in forms if each}


#: A percent-escape, and the same with its hex digits lower-cased.
_LOWER_HEX = re.compile(r"%[0-9A-F]{2}")


def _lowered(match: re.Match[str]) -> str:
    return match.group(0).lower()


def redact_secrets(text: str, secrets: Iterable[str], end: int | None = None) -> str:
    """``text`` with each of ``secrets`` replaced, in every form a server may
    quote it in (:func:`quoted_forms`), the longest first where two start
    alike. With ``end``, only the text before ``end`` is kept, and a secret
    that starts before ``end`` is replaced whole even where it runs past it
    (so no part of one is left at the cut)."""
    forms: set[str] = set()
    for secret in secrets:
        forms.update(quoted_forms(secret))
    if not forms:
        return text if end is None else text[:end]
    longest = max(map(len, forms))
    pattern = _secrets_pattern(forms)
    if end is None or len(text) <= end:
        text = pattern.sub(REDACTED, text)
        return _redact_cuts(text, forms) if _CUT in text else text
    parts: list[str] = []
    at = 0
    for match in pattern.finditer(text[: end + longest]):
        if match.start() >= end:
            break
        parts += (text[at : match.start()], REDACTED)
        at = match.end()
    if at < end:
        parts.append(text[at:end])
    shown = "".join(parts)
    return _redact_cuts(shown, forms) if _CUT in shown else shown


#: The shortest credential value looked for in what a server says (a
#: shorter one is no secret: any guess finds it, and every word would).
SHORTEST_SECRET = 4

#: Where a text was cut short (an entity error's value, pydantic's input).
_CUT = "..."


def _secrets_pattern(forms: set[str]) -> re.Pattern[str]:
    """What finds each of ``forms`` in a text, the longest first. (``re``
    keeps the patterns it compiled: the same secrets again cost no
    compiling.)"""
    return re.compile("|".join(map(re.escape, sorted(forms, key=len, reverse=True))))


def _redact_cuts(text: str, forms: Collection[str]) -> str:
    """``text`` with the start of any of ``forms`` just before a cut
    (``...``) and the end of one just after it replaced, each of at least
    :data:`SHORTEST_SECRET` characters: a text cut short shows only part of
    a secret there, and no part of one is shown.

    A run of more than three dots is a cut at each place in it (the dots
    may end or start a secret that has dots of its own).

    The work has a bound, whatever the text: the places a secret's first
    characters fall are found once for the whole text, a cut is compared
    only with those within a secret's length before it and with the
    secret's own characters after it, and past :data:`_CANDIDATES` places
    that start alike but do not match (a text built to repeat a secret's
    first characters) all a secret could cover at that cut is replaced.
    Past a budget of work in proportion to the text's length (a text of
    cuts and little else), all from the cut reached on is replaced."""
    afters = [match.start() + len(_CUT) for match in _CUTS.finditer(text)]
    spans: list[tuple[int, int]] = []
    budget = [_BUDGET_PER_CHARACTER * len(text) + _BUDGET_LEAST]
    for form in forms:
        _starts_at_cuts(text, form, afters, spans, budget)
        _ends_at_cuts(text, form, afters, spans, budget)
    if not spans:
        return text
    parts: list[str] = []
    at = 0
    for start, end in sorted(spans):
        if start >= at:
            parts += (text[at:start], REDACTED)
        at = max(at, end)  # (overlapping spans: one replacement)
    parts.append(text[at:])
    return "".join(parts)


#: Each cut: every place three dots stand, overlapping in a longer run.
_CUTS = re.compile(f"(?={re.escape(_CUT)})")
#: The work :func:`_redact_cuts` may do (a cut looked at, or sixteen
#: characters compared: one unit each), per character of the text and at
#: least.
_BUDGET_PER_CHARACTER = 2
_BUDGET_LEAST = 100_000

#: How many places that start (or end) like a secret are compared with it
#: at one cut before all it could cover there is replaced.
_CANDIDATES = 8


def _starts_at_cuts(
    text: str,
    form: str,
    afters: list[int],
    spans: list[tuple[int, int]],
    budget: list[int],
) -> None:
    """The longest start of ``form`` that ends at each cut (``afters``: where
    each cut ends) added to ``spans``. (The next place ``form``'s first
    characters fall is found once as the cuts go right, so the text is
    scanned for it once in all.)"""
    head = form[:SHORTEST_SECRET]
    found = text.find(head)
    for after in afters:
        if found < 0:
            return  # (none further on)
        cut = after - len(_CUT)
        lowest = max(0, cut - len(form) + 1)
        budget[0] -= 1
        if budget[0] <= 0:
            spans.append((lowest, len(text)))  # (out of budget: all from here)
            return
        if found < lowest:
            found = text.find(head, lowest)
            if found < 0:
                return
        start = found
        for _ in range(_CANDIDATES):
            if start < 0 or start > cut - SHORTEST_SECRET:
                break
            budget[0] -= 1 + (cut - start) // 16
            if form.startswith(text[start:cut]):
                spans.append((start, cut))
                break
            start = text.find(head, start + 1, cut)
        else:
            if 0 <= start <= cut - SHORTEST_SECRET:
                spans.append((lowest, cut))  # (all a start of it could be)


def _ends_at_cuts(
    text: str,
    form: str,
    afters: list[int],
    spans: list[tuple[int, int]],
    budget: list[int],
) -> None:
    """The longest end of ``form`` that starts after each cut (``afters``)
    added to ``spans``. (Many cuts look their text up in a set of the
    secret's own four characters at each place, not in the secret itself.)"""
    inner = (
        {
            form[at : at + SHORTEST_SECRET]
            for at in range(1, len(form) - SHORTEST_SECRET + 1)
        }
        if len(afters) > _CANDIDATES
        else None  # (a few cuts: a find in the secret each)
    )
    for after in afters:
        budget[0] -= 1
        if budget[0] <= 0:
            spans.append((after, len(text)))  # (out of budget: all from here)
            return
        tail = text[after : after + SHORTEST_SECRET]
        if len(tail) < SHORTEST_SECRET or (inner is not None and tail not in inner):
            continue
        at = form.find(tail, 1)
        for _ in range(_CANDIDATES):
            if at < 0:
                break
            budget[0] -= 1 + (len(form) - at) // 16
            if text.startswith(form[at:], after):
                spans.append((after, after + len(form) - at))
                break
            at = form.find(tail, at + 1)
        else:
            if at >= 0:
                spans.append((after, after + len(form) - 1))  # (all an end could be)


def sent_secrets(
    request: Request,
    marked: Collection[str] = (),
    public: Collection[str] = PUBLIC_HEADERS,
) -> list[str]:
    """The credential values ``request`` carried, as a server may echo them:
    the value of each header that is a credential (every one not
    ``public``, and those ``marked``) and, after a scheme
    (``Bearer abc``), its credentials; a Basic pair decoded, and each of
    its halves; each cookie's value; the credential query params' values
    and the URL's userinfo. Those of at least :data:`SHORTEST_SECRET`
    characters."""
    found: list[str] = []
    for name, value in request.headers.multi_items():
        if not is_credential(name, marked, public):
            continue
        found.append(value)
        if name == "cookie":
            found.extend(pair.partition("=")[2].strip() for pair in value.split(";"))
            continue
        scheme, space, rest = value.strip().partition(" ")
        if space:
            found.append(rest.strip())
            if scheme.lower() == "basic":
                found.extend(_basic_pair(rest.strip()))
    url = request.url
    found.extend(
        value
        for name, value in url.params.multi_items()
        if name.lower() in CREDENTIAL_PARAMS or name.lower() in _DECLARED
    )
    if url.userinfo:
        found.extend((url.username, url.password or ""))
    return [each for each in found if len(each) >= SHORTEST_SECRET]


def redact_error(error: BaseException, secrets: Collection[str]) -> None:
    """``error`` with each of ``secrets`` (what the call sent:
    :func:`sent_secrets`) replaced, in every form a server may quote it,
    wherever it shows text a server sent: its message, its text attributes
    (an entity's value at fault), and the same of each error it was raised
    from or during (a traceback prints them). For errors built from what a
    server answered: a 2xx body or event that echoes the call's token. What
    an error holds for a program to read (a status error's ``data`` and
    ``response``, an event) stays as the server sent it, as a response
    does."""
    forms: set[str] = set()
    for secret in secrets:
        forms.update(quoted_forms(secret))
    if not forms:
        return
    pattern = _secrets_pattern(forms)

    def clean(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        value = pattern.sub(REDACTED, value)
        return _redact_cuts(value, forms) if _CUT in value else value

    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        current.args = tuple(map(clean, current.args))
        attributes = getattr(current, "__dict__", None)
        if attributes is not None:
            for name, value in list(attributes.items()):
                if isinstance(value, str):
                    attributes[name] = clean(value)
        current = current.__cause__ or current.__context__


def _basic_pair(encoded: str) -> list[str]:
    """A Basic credential decoded (``user:password``), and each half."""
    try:
        pair = base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return []
    user, _, password = pair.partition(":")
    return [pair, user, password]


def header_names(headers: Headers, hidden: Callable[[str], bool]) -> str:
    """The headers as text, the values of those ``hidden(name)`` says are
    credentials replaced."""
    shown = []
    for name, value in headers.items():
        shown.append(f"{name}: {REDACTED if hidden(name) else value}")
    return "{" + ", ".join(shown) + "}"


class RestwireError(Exception):
    """Base class of every error restwire raises."""

    #: How many times the call was sent before this error (``Retry`` sets it
    #: when it gives up; otherwise 1).
    attempts: int = 1
    #: The wait ``Retry`` would have taken next, when its budget stopped it.
    retry_wait: float | None = None

    def annotated(self, text: str) -> Self:
        """A fresh copy of this error (same type, attributes and cause, no
        traceback of its own) whose message ends with ``(text)``."""
        copy = fresh_error(self)
        copy.args = (f"{self} ({text})", *self.args[1:])
        return copy

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as what a caller reads, detached (see the module): not
        through ``__init__``, whose arguments a subclass takes as live
        objects (a response, a cause) that the message was made from."""
        args = tuple(map(_detached, self.args))
        return (_arrived, (type(self), args, _travelling(self, _pickles)))

    def __copy__(self) -> Self:
        copy = fresh_error(self)
        copy.__context__ = self.__context__
        copy.__traceback__ = self.__traceback__
        return copy

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        def copies(value: Any) -> Any:
            return _copy.deepcopy(value, memo)

        state = _travelling(self, copies)
        return _arrived(type(self), copies(tuple(map(_detached, self.args))), state)


class UsageError(RestwireError, TypeError):
    """restwire was handed something of the wrong kind (not an endpoint
    where one is needed, ``get`` for a write, an async function where a
    plain one is): a mistake in the calling code, raised at once, before
    anything is sent. Also a ``TypeError``."""


class SettingError(RestwireError, ValueError):
    """A setting or definition restwire cannot work with (a negative
    expiry, a path whose ``{`` is never closed, ``attempts=0``): raised
    where it is given, before any call. Also a ``ValueError``."""


class RestwireWarning(UserWarning):
    """Something restwire accepted but that is likely a mistake (a duration
    that looks like milliseconds): the message says what to write instead.
    Filter it as any warning (``warnings.filterwarnings("ignore",
    category=RestwireWarning)``)."""


E = TypeVar("E", bound=BaseException)


def fresh_error(error: E) -> E:
    """A new exception equal to ``error``, with no traceback of its own.

    What a stored or shared error raises each time: raising one object again
    and again would grow its traceback on every raise (and share it between
    threads). The cause is kept.
    """
    copy = type(error).__new__(type(error))
    copy.__dict__.update(error.__dict__)
    copy.args = error.args
    copy.__cause__ = error.__cause__
    copy.__suppress_context__ = error.__suppress_context__
    for name in _slotted(error):
        setattr(copy, name, getattr(error, name))
    return copy


#: What a built-in exception keeps in slots of its own, not in ``vars()``:
#: copied and sent by name (``MissingExtra``'s ``name``, ``DownloadError``'s
#: ``errno``).
_SLOTTED: tuple[tuple[type[BaseException], tuple[str, ...]], ...] = (
    (ImportError, ("name", "path")),
    (OSError, ("errno", "strerror")),
)


def _slotted(error: BaseException) -> Iterator[str]:
    """The names of the slot attributes ``error`` keeps (:data:`_SLOTTED`)."""
    for kind, names in _SLOTTED:
        if isinstance(error, kind):
            yield from names


# -- errors that travel ------------------------------------------------------------

#: Response headers that carry no credential though their name says
#: ``auth``: the challenges of a 401 and a 407.
_CHALLENGES = frozenset({"www-authenticate", "proxy-authenticate"})
#: Response headers that describe the body as it was on the wire: a detached
#: response holds it decoded, whole.
_WIRE_FRAMING = frozenset({"content-encoding", "content-length", "transfer-encoding"})


def _pickles(value: Any) -> Any:
    """``value``, if it pickles (else the error ``pickle`` raised)."""
    pickle.dumps(value)
    return value


def _travelling(error: RestwireError, keep: Callable[[Any], Any]) -> dict[str, Any]:
    """What of ``error`` travels (see the module), each attribute passed
    through ``keep`` (a check that it pickles, or a deep copy); one that
    ``keep`` refuses is ``None``, and a note says so."""
    state: dict[str, Any] = {}
    left_out: list[str] = []
    for name, value in vars(error).items():
        detached = _detached(value)
        try:
            state[name] = keep(detached)
        except Exception as refusal:  # whatever pickling an object raises
            state[name] = None
            left_out.append(f"{name} ({type(refusal).__name__})")
    for name in _slotted(error):
        state[name] = getattr(error, name)
    if left_out:
        notes = list(state.get("__notes__") or ())
        notes.append(f"left out when it was copied: {', '.join(left_out)}")
        state["__notes__"] = notes
    return state


#: A URL in a text: with a scheme, or a path with a query.
_URL_IN_TEXT = re.compile(
    r"""[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'"<>]+|/[^\s'"<>]*\?[^\s'"<>]+"""
)


def _redacted_text(text: str) -> str:
    """``text`` with each URL in it redacted (:func:`redact_url`), the
    punctuation that ends a sentence after one left as it is."""

    def redacted(match: re.Match[str]) -> str:
        url = match.group()
        core = url.rstrip(".,;:)}")
        return redact_url(core) + url[len(core) :]

    return _URL_IN_TEXT.sub(redacted, text)


def _detached(value: Any) -> Any:
    """``value`` as it travels: a response detached, a URL or a text
    without its credentials, anything else as it is."""
    if isinstance(value, str):
        return _redacted_text(value)
    for library in LIBRARIES:
        if isinstance(value, library.URL):
            return library.URL(_USERINFO.sub("//", redact_url(value)))
        if isinstance(value, library.Response):
            return _detached_response(library, value)
    return value


def _detached_response(library: Any, response: Any) -> Any:
    """A copy of ``response`` (its body read) that holds nothing live and
    says nothing of who called: status, reason, the body, the headers but
    credentials; its request, the method and the URL without credentials."""
    request = response.request
    headers = [
        (name, value)
        for name, value in response.headers.multi_items()
        if name not in _WIRE_FRAMING
        and (name in _CHALLENGES or not names_credential(name))
    ]
    return library.Response(
        response.status_code,
        headers=headers,
        content=response.content,
        request=library.Request(request.method, _detached(request.url)),
        extensions={
            "http_version": response.extensions.get("http_version", b"HTTP/1.1"),
            "reason_phrase": response.reason_phrase.encode("ascii", "replace"),
        },
    )


def _arrived(cls: type[E], args: tuple[Any, ...], state: dict[str, Any]) -> E:
    """An error of ``cls`` made from what travelled, not through its
    ``__init__``."""
    error = cls.__new__(cls)
    error.args = args
    for name in _slotted(error):
        setattr(error, name, state.pop(name, None))
    error.__dict__.update(state)
    return error


class InvalidRequest(RestwireError):
    """A call cannot be sent as given: raised before anything is sent."""


class ControllerClosed(RestwireError):
    """The controller was closed while a call waited (a retry's pause, a
    rate limit's wait): the call ends at once instead of waiting on."""

    def __init__(self, label: str | None = None) -> None:
        where = f"{label}: " if label else ""
        super().__init__(f"{where}the controller was closed while the call waited")


class ParameterError(InvalidRequest):
    """A call's params cannot fill the endpoint's URL: raised before sending."""

    def __init__(self, endpoint: str, name: str | None, problem: str) -> None:
        self.endpoint = endpoint
        self.name = name
        where = f"parameter {name!r} " if name is not None else ""
        super().__init__(f"{endpoint}: {where}{problem}")


class RequestBodyError(InvalidRequest):
    """The body given to a call cannot be sent (or sent again on a redirect)."""


class TransportError(RestwireError):
    """The request did not get a complete response: connect, read or timeout.

    ``__cause__`` is the httpx exception; ``url`` is where it happened.
    """

    def __init__(self, method: str, url: URL | str, cause: Exception) -> None:
        self.method = method
        self.url: URL = DEFAULT.URL(url) if isinstance(url, str) else url
        kind = type(cause).__name__
        detail = _timed_out(cause) or str(cause) or "no detail"
        super().__init__(f"{method} {redact_url(self.url)}: {kind}: {detail}")


#: What each of httpx's timeouts waited for.
_WAITED = {
    "connect": "no connection within",
    "read": "nothing came for",
    "write": "could not send for",
    "pool": "no free connection within",
}


def _timed_out(cause: Exception) -> str | None:
    """A timeout named by the request's own setting (``"nothing came for
    5 s (the read timeout)"``), the same under both drivers (httpx's own
    text is "timed out" under one and empty under the other)."""
    name = TIMEOUT_KINDS.get(type(cause))
    if name is None:
        return None
    waited = _WAITED[name]
    try:
        seconds = cause.request.extensions.get("timeout", {}).get(name)  # type: ignore[attr-defined]
    except RuntimeError:  # an httpx error made without its request
        seconds = None
    if not isinstance(seconds, int | float):
        return None
    return f"{waited} {seconds:g} s (the {name} timeout)"


class TooManyRedirects(RestwireError):
    """A redirect chain went on past the endpoint's ``max_redirects``."""

    def __init__(self, method: str, url: URL, limit: int) -> None:
        self.method = method
        self.url = url
        self.limit = limit
        super().__init__(
            f"{method} {redact_url(url)}: more than {limit} redirects; "
            "raise max_redirects if the chain is expected"
        )


class ContentError(RestwireError):
    """A response body is not what the endpoint's ``content`` expects.

    Says what is wrong (``problem``: the body, or its content type), then
    quotes the content type (unless the problem already names it) and the
    start of the body, so the cause (an HTML error page, a proxy's login
    form, truncated JSON, JSON lines) is visible at once.
    """

    SNIPPET = 200

    def __init__(
        self, response: Response, problem: str, *, names_type: bool = False
    ) -> None:
        self.response = response
        self.url = response.request.url
        self.content_type = response.headers.get("content-type")
        self.problem = problem
        body = response.content[: self.SNIPPET].decode("utf-8", "replace")
        more = "..." if len(response.content) > self.SNIPPET else ""
        shown_type = "" if names_type else f" (content-type {self.content_type!r})"
        super().__init__(
            f"{response.request.method} {redact_url(self.url)}: {problem}"
            f"{shown_type}; body starts {body!r}{more}"
        )


class BodyTooLarge(RestwireError):
    """A response body is larger than the endpoint's ``max_body_size``.

    Raised while reading, as soon as the limit is passed: the rest of the
    body is never read into memory.
    """

    def __init__(
        self,
        method: str,
        url: URL,
        limit: int,
        option: str = "max_body_size",
        advice: str = "use content='stream' for large bodies",
    ) -> None:
        self.method = method
        self.url = url
        self.limit = limit
        super().__init__(
            f"{method} {redact_url(url)}: response body is larger than "
            f"{option}={limit} bytes (counted decoded); {advice}"
        )


#: Response headers that carry the server's id of a request, in the order
#: they are looked for.
REQUEST_ID_HEADERS = (
    "x-request-id",
    "request-id",
    "x-amzn-requestid",
    "x-correlation-id",
)


class DownloadError(RestwireError, OSError):
    """A download's file could not be written: its folder is gone or cannot
    be written to, or the disk is full. Nothing is left behind, under its
    name or a temporary one. Also an ``OSError``, with the system's
    ``errno`` and ``strerror``; ``folder`` is the folder it was to go in."""

    def __init__(self, label: str, folder: str, error: OSError) -> None:
        reason = error.strerror or str(error) or type(error).__name__
        super().__init__(f"{label}: cannot write the download in {folder!r}: {reason}")
        self.errno = error.errno
        self.strerror = error.strerror
        self.folder = folder

    def __str__(self) -> str:
        # (the message, not OSError's "[Errno 28] ..." made of errno and
        # strerror alone)
        return str(self.args[0]) if self.args else ""


class NetworkError(RestwireError):
    """The server answered with a status outside 2xx.

    It carries ``status``, ``url`` and the ``response`` (its
    body already read), plus ``text`` and :meth:`json` so a 422's validation
    details are one call away. Read from the response when the error is
    made (on the error path only), never shown in its message:

    - ``request_id``: the server's id of the request (the first of
      :data:`REQUEST_ID_HEADERS` it sent), to quote to its operators;
    - ``retry_after``: the seconds its ``Retry-After`` asks to wait (whole
      seconds or an HTTP-date, never negative); ``None`` when absent or
      malformed;
    - ``problem``: the body as a :class:`~restwire.Problem` when it is
      ``application/problem+json`` (RFC 9457), else ``None``;
    - ``data``: the body validated by the endpoint's ``error_schema``; when
      there is none, or the body does not validate, the body as JSON,
      whatever its shape (``None`` when it is not JSON).

    The message ends with what the server said of its reason, when its body
    says it in one of the common shapes (see the errors page): one line,
    at most 300 characters, with no credential the request carried
    (:func:`sent_secrets`: every header not ``public``, and those
    ``marked``), even one the server echoes back.

    A 4xx or 5xx is raised as one of its subclasses (``ClientError``,
    ``NotFoundError``, ``ServerError``, ...), chosen by its status.
    """

    #: The body validated by the endpoint's ``error_schema``, or as JSON.
    data: Any = None

    def __init__(
        self,
        response: Response,
        marked: Collection[str] = (),
        public: Collection[str] = PUBLIC_HEADERS,
    ) -> None:
        self.response = response
        self.status = response.status_code
        self.url = response.request.url
        self.method = response.request.method
        headers = response.headers
        self.request_id: str | None = next(
            (headers[name] for name in REQUEST_ID_HEADERS if headers.get(name)), None
        )
        self.retry_after = retry_after_seconds(headers.get("retry-after"))
        self.problem = problem_of(response)
        document = json_document(response)
        if document is not NOT_JSON:
            self.data = document
        reason = reason_of(response, document)
        said = ""
        if reason is not None:
            secrets = sent_secrets(response.request, marked, public)
            # Redacted before it is cut (a secret at the cut is replaced
            # whole), and read no further than a few times what is shown.
            shown = redact_secrets(reason, secrets, end=REASON_LIMIT * 4)
            said = one_line(_redacted_text(shown))
            said = f": {said}" if said else ""
        super().__init__(
            f"{self.method} {redact_url(self.url)}: "
            f"{self.status} {response.reason_phrase}{said}"
        )

    @property
    def text(self) -> str:
        """The body of the error response, decoded."""
        return self.response.text

    def json(self) -> Any:
        """The body parsed as JSON; a :class:`ContentError` if it is not JSON."""
        try:
            return json.loads(self.response.content)
        except ValueError as error:
            raise ContentError(
                self.response, f"the error body is not valid JSON ({error})"
            ) from None


# -- optional dependencies ---------------------------------------------------------

#: Each extra of ``pyproject.toml`` that brings a module restwire imports
#: lazily, and that module's distribution name (the package pip installs).
EXTRAS: dict[str, tuple[str, str]] = {
    "hishel": ("cache", "hishel"),
    "redis": ("redis", "redis"),
    "pydantic": ("models", "pydantic"),
    "opentelemetry": ("otel", "opentelemetry-api"),
    "httpx2": ("httpx2", "httpx2"),
    "aiohttp": ("fast", "aiohttp"),
}


class MissingExtra(RestwireError, ImportError):
    """A feature needs a package that is not installed (or cannot be
    imported): the message names the feature, the package and the extra
    to install. ``feature``, ``package`` and ``extra`` say the same as
    attributes; ``name`` (``ImportError``'s) is the module."""

    def __init__(
        self, feature: str, module: str, *, broken: ImportError | None = None
    ) -> None:
        extra, package = EXTRAS[module]
        self.feature = feature
        self.package = package
        self.extra = extra
        install = f'pip install "restwire[{extra}]"'
        if broken is None:
            text = f"{feature} needs {package}, which is not installed: {install}"
        else:
            text = (
                f"{feature} needs {package}, which is installed but cannot be "
                f"imported ({broken}); reinstall it: {install}"
            )
        super().__init__(text, name=module)


def require(
    module: str, feature: str, *, error: type[MissingExtra] = MissingExtra
) -> ModuleType:
    """``module`` (a key of :data:`EXTRAS`), imported; a :class:`MissingExtra`
    (or the subclass ``error``) naming ``feature`` (what the user made:
    ``"HttpCache.sqlite()"``) if it is not installed or cannot be imported."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as failure:
        if failure.name is not None and failure.name.partition(".")[0] == module:
            raise error(feature, module) from None
        raise error(feature, module, broken=failure) from failure
    except ImportError as failure:
        raise error(feature, module, broken=failure) from failure


# -- Redis, said without its credentials ---------------------------------------------


def not_a_redis_url(owner: str, url: str) -> SettingError:
    """The error of ``owner`` given ``url`` that redis-py cannot read as a
    Redis URL: the URL shown redacted, and the forms it takes."""
    return SettingError(
        f"{owner}: {redact_url(url)!r} is not a Redis URL "
        "(redis://[:password@]host[:port][/db], rediss:// or unix://)"
    )


def redis_address(client: Any) -> str:
    """Where ``client`` connects, for a log line: ``host:port/db`` or the
    socket path; never a user name or password."""
    try:
        options = client.connection_pool.connection_kwargs
    except AttributeError:
        return "(an unknown address)"
    database = options.get("db", 0)
    if options.get("path"):
        return f"unix:{options['path']}?db={database}"
    return f"{options.get('host', 'localhost')}:{options.get('port', 6379)}/{database}"
