"""``CamelCaseKeys``, ``SnakeCaseKeys``, ``PascalCaseKeys``: key case
conversion, both ways.

A recursive function visits every key of an object or array, nested ones
included, and converts it; values are copied as they are; an array stays an
array.

A request body is converted when it is a dict, list or tuple, or a
:class:`~restwire.Form` (its field names, and its files' names). With
``params=True`` (off by default) the names of the query parameters are
converted too, so ``{"author_name": "x"}`` reaches a camelCase API as
``authorName`` instead of being ignored by it; values are never touched.

| middleware | response keys | request body keys |
|---|---|---|
| ``CamelCaseKeys`` (snake_case wire, camelCase client) | to camelCase | to snake_case |
| ``SnakeCaseKeys`` (a camelCase API, Python code) | to snake_case | to camelCase |
| ``PascalCaseKeys`` (a PascalCase API: Twilio's forms and queries, Azure, .NET) | to snake_case | to PascalCase |

Word rules: :func:`to_camel`, :func:`to_snake` and :func:`to_pascal` (each
converts one key, as the middlewares do). Besides:

- Only ``str`` keys change; other keys (ints, tuples) are left as they are,
  never stringified. Values are never touched; dicts, lists and tuples are
  walked to any depth.
- If two keys of one object become the same key, :class:`KeyCollision`
  names both: nothing is silently dropped.

Styles. The rules above are the default, ``style="roundtrip"``. Two more
give exactly what a library on the other side of the wire computes, so
keys match the aliases a server was written with:

- ``style="pydantic"``: pydantic's ``pydantic.alias_generators.to_camel``,
  ``to_pascal`` and ``to_snake`` (FastAPI and pydantic models with
  ``alias_generator=to_camel``): ``address_line_1`` <-> ``addressLine1``.
- ``style="humps"``: pyhumps' ``humps.camelize``, ``humps.pascalize`` and
  ``humps.decamelize``
  (``APIResponse`` -> ``api_response``, ``whatever_10`` -> ``whatever10``,
  and whitespace inside a key dropped, as pyhumps drops it).

Neither library is imported: each rule is written here and proved equal
to the library's own function by tests (``tests/middlewares/
test_key_casing_styles.py``, over a generated key set and the libraries'
published test vectors). Neither round-trips every key as the default does
(``addressLine1`` and ``address_line1`` differ under pyhumps); every style
keeps :class:`KeyCollision` and ``params=True``.

Each distinct key is converted once and cached (up to ``CACHE_SIZE`` keys
per direction and style, so hostile payloads cannot grow memory without
bound).

**Field names.** Each casing middleware says how it names a response key
(``field_name``), so the params of a call in the wire's case name the
record's fields through it: a delete's ``{"Sid": ...}`` (Twilio's
``:Sid``) is the ``sid`` of the record it removes (see
``RestEndpoint.param_fields``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from itertools import chain, repeat
from operator import itemgetter
from typing import Any, cast
from urllib.parse import quote, unquote

from restwire import Exchange, Form, RestwireError, SettingError, Unparsed

__all__ = [
    "PASCAL",
    "STYLES",
    "CamelCaseKeys",
    "KeyCollision",
    "PascalCaseKeys",
    "SnakeCaseKeys",
    "convert_keys",
    "humps_camel",
    "humps_pascal",
    "humps_snake",
    "pydantic_camel",
    "pydantic_pascal",
    "pydantic_snake",
    "to_camel",
    "to_pascal",
    "to_snake",
]

CACHE_SIZE = 65_536

_ACRONYM_END = re.compile(r"([A-Z]+)([A-Z][a-z])")
_WORD_START = re.compile(r"([a-z0-9])([A-Z])")


class KeyCollision(RestwireError, ValueError):
    """Two keys of one object convert to the same key: in a request body
    (raised before anything is sent) or in a response. ``where`` names the
    call and the side."""

    def __init__(
        self, first: str, second: str, converted: str, where: str | None = None
    ) -> None:
        self.keys = (first, second)
        self.converted = converted
        self.where = where
        prefix = f"{where}: " if where else ""
        super().__init__(
            f"{prefix}keys {first!r} and {second!r} both become {converted!r}; "
            "converting would lose one of them"
        )

    def at(self, where: str) -> KeyCollision:
        """This collision, naming the call and side it happened in."""
        return KeyCollision(*self.keys, self.converted, where)


def _to_camel(key: str) -> str:
    stripped = key.strip("_")
    if "_" not in stripped:
        return key
    lead = key[: len(key) - len(key.lstrip("_"))]
    trail = key[len(key.rstrip("_")) :]
    parts = re.split(r"(_+)", stripped)
    out = [parts[0]]
    for index in range(1, len(parts), 2):
        underscores, word = parts[index], parts[index + 1]
        if word[:1].isalpha():
            out.append(underscores[:-1] + word[0].upper() + word[1:])
        else:
            out.append(underscores + word)
    return lead + "".join(out) + trail


def _upper_first(key: str) -> str:
    """``key`` with its first character after any leading underscores
    upper-cased."""
    lead = len(key) - len(key.lstrip("_"))
    return key[:lead] + key[lead : lead + 1].upper() + key[lead + 1 :]


def _to_pascal(key: str) -> str:
    return _upper_first(_to_camel(key))


def _to_snake(key: str) -> str:
    if key.islower() or not any(char.isupper() for char in key):
        return key
    return _WORD_START.sub(r"\1_\2", _ACRONYM_END.sub(r"\1_\2", key)).lower()


def _cached(convert: Callable[[str], str]) -> Callable[[str], str]:
    cache: dict[str, str] = {}

    def cached(key: str) -> str:
        try:
            return cache[key]
        except KeyError:
            converted = convert(key)
            if len(cache) >= CACHE_SIZE:
                cache.clear()
            cache[key] = converted
            return converted

    cached.__doc__ = convert.__doc__
    cached.cache = cache  # type: ignore[attr-defined]
    return cached


_camel = _cached(_to_camel)
_snake = _cached(_to_snake)
_pascal = _cached(_to_pascal)


def to_camel(key: str) -> str:
    """``key`` from snake_case to camelCase, as ``CamelCaseKeys()`` and
    ``SnakeCaseKeys()`` convert keys (``style="roundtrip"``).

    An underscore followed by a letter is dropped and the letter
    upper-cased (``current_viewers`` -> ``currentViewers``, ``user_id`` ->
    ``userId``; of a run, ``a__b``, only the last goes: ``a_B``). Every other
    underscore is kept: leading and trailing ones (``__dunder__``), and one
    before a digit (``line_1`` stays ``line_1``).
    So a snake_case key of lowercase words comes back exactly through
    :func:`to_snake`, except two one-letter words in a row (``a_b_c``
    becomes ``aBC``, which reads as an acronym)."""
    return _camel(key)


def to_snake(key: str) -> str:
    """``key`` from camelCase (or PascalCase) to snake_case, as the casing
    middlewares convert keys (``style="roundtrip"``).

    A new word starts at an upper-case letter after a lower-case letter or
    digit (``userID`` -> ``user_id``), and at the last capital of a run
    followed by a lower-case letter (``HTTPResponse`` -> ``http_response``);
    everything is lower-cased; underscores are kept."""
    return _snake(key)


def to_pascal(key: str) -> str:
    """``key`` from snake_case to PascalCase, as ``PascalCaseKeys()``
    converts keys (``style="roundtrip"``): :func:`to_camel`, then the first
    letter after any leading underscores upper-cased (``account_sid`` ->
    ``AccountSid``, ``to`` -> ``To``)."""
    return _pascal(key)


# -- style="pydantic": pydantic.alias_generators, rule for rule -----------------

_PD_CAMEL_ALREADY = re.compile("^[a-z]+[A-Za-z0-9]*$")
_PD_DIGIT_THEN_LOWER = re.compile(r"\d[a-z]")
_PD_UNDERSCORE_BEFORE_WORD = re.compile("([0-9A-Za-z])_(?=[0-9A-Z])")
_PD_FIRST_CAPITAL = re.compile("(^_*[A-Z])")
_PD_SNAKE_STEPS = (
    re.compile("([A-Z]+)([A-Z][a-z])"),  # the end of an acronym
    re.compile("([a-z])([A-Z])"),
    re.compile("([0-9])([A-Z])"),
    re.compile("([a-z])([0-9])"),
)


def _pydantic_camel(key: str) -> str:
    """pydantic's ``to_camel``: a key that already looks camelCase (and has
    no digit before a lower-case letter) is kept; otherwise every word is
    title-cased (``str.title``), the underscores before a capital or digit
    dropped, and the first capital after any leading underscores lowered."""
    if _PD_CAMEL_ALREADY.match(key) and not _PD_DIGIT_THEN_LOWER.search(key):
        return key
    pascal = _PD_UNDERSCORE_BEFORE_WORD.sub(r"\1", key.title())
    return _PD_FIRST_CAPITAL.sub(lambda match: match.group(1).lower(), pascal)


def _pydantic_pascal(key: str) -> str:
    """pydantic's ``to_pascal``: every word title-cased (``str.title``), the
    underscores before a capital or digit dropped."""
    return _PD_UNDERSCORE_BEFORE_WORD.sub(r"\1", key.title())


def _pydantic_snake(key: str) -> str:
    """pydantic's ``to_snake``: an underscore at an acronym's end, between a
    lower-case letter or digit and a capital, and between a lower-case
    letter and a digit; dashes become underscores; all lower-cased."""
    for step in _PD_SNAKE_STEPS:
        key = step.sub(r"\1_\2", key)
    return key.replace("-", "_").lower()


# -- style="humps": pyhumps' camelize and decamelize, rule for rule --------------

_HUMPS_SPACE = re.compile(r"\s+")
_HUMPS_SEPARATED = re.compile(r"(?<=[^\-_])[\-_]+[^\-_]")
_HUMPS_ACRONYM = re.compile(r"([A-Z\d]+)(?=[A-Z\d]|$)")
_HUMPS_WORD = re.compile(r"([\-_]*[A-Z][^A-Z]*[\-_]*)")


def _humps_camel(key: str) -> str:
    """pyhumps' ``camelize``: whitespace dropped; a key all upper-case or
    numeric kept as given; else the first letter lowered (unless the first
    two are capitals) and each run of ``_``/``-`` after a character dropped,
    the character after it upper-cased."""
    text = _HUMPS_SPACE.sub("", key)
    if text.isupper() or text.isnumeric():
        return key
    if text and not text[:2].isupper():
        text = text[0].lower() + text[1:]
    return _HUMPS_SEPARATED.sub(lambda match: match.group(0)[-1].upper(), text)


_HUMPS_WORDS = re.compile(r"([^\-_]+)")


def _humps_pascal(key: str) -> str:
    """pyhumps' ``pascalize``: a key all upper-case or numeric (whitespace
    dropped) kept as given; else each run of characters between ``_`` and
    ``-`` has its first one upper-cased, the whole camelized, and its
    first character upper-cased."""
    text = _HUMPS_SPACE.sub("", key)
    if text.isupper() or text.isnumeric():
        return key
    text = _humps_camel(
        _HUMPS_WORDS.sub(lambda match: match[1][0].upper() + match[1][1:], text)
    )
    return text[0].upper() + text[1:] if text else text


def _humps_snake(key: str) -> str:
    """pyhumps' ``decamelize``: whitespace dropped; a key all upper-case or
    numeric kept as given; else acronyms title-cased (``API`` -> ``Api``),
    split before each capital (with the separators around it), joined by
    ``_`` and lower-cased."""
    text = _HUMPS_SPACE.sub("", key)
    if text.isupper() or text.isnumeric():
        return key
    text = _HUMPS_ACRONYM.sub(lambda match: match.group(0).title(), text)
    return "_".join(word for word in _HUMPS_WORD.split(text) if word).lower()


pydantic_camel = _cached(_pydantic_camel)
pydantic_pascal = _cached(_pydantic_pascal)
pydantic_snake = _cached(_pydantic_snake)
humps_camel = _cached(_humps_camel)
humps_pascal = _cached(_humps_pascal)
humps_snake = _cached(_humps_snake)

#: Each ``style=`` of the casing middlewares (``"roundtrip"``, the
#: default; ``"pydantic"``; ``"humps"``), as its two conversions of one key:
#: (snake_case to camelCase, camelCase to snake_case).
STYLES: dict[str, tuple[Callable[[str], str], Callable[[str], str]]] = {
    "roundtrip": (_camel, _snake),
    "pydantic": (pydantic_camel, pydantic_snake),
    "humps": (humps_camel, humps_snake),
}


#: Each ``style=``'s conversion of one key from snake_case to PascalCase
#: (``PascalCaseKeys``; back to snake_case is the style's second in
#: :data:`STYLES`).
PASCAL: dict[str, Callable[[str], str]] = {
    "roundtrip": _pascal,
    "pydantic": pydantic_pascal,
    "humps": humps_pascal,
}


def _collision(source: dict[Any, Any], convert: Callable[[str], str]) -> KeyCollision:
    seen: dict[Any, Any] = {}
    for key in source:
        new = convert(key) if type(key) is str else key
        if new in seen:
            return KeyCollision(seen[new], key, new)
        seen[new] = key
    raise AssertionError("no collision found")  # pragma: no cover


#: Looks nothing up: the cache of a converter that keeps none.
_NO_CACHE: dict[str, str] = {}


def _converter(
    convert: Callable[[str], str], cache: dict[str, str] | None = None
) -> Callable[[Any], Any]:
    """A recursive key converter; the fast path for ordinary payloads.
    ``cache``: what ``convert`` gives for the keys it holds, when it is
    one of the module's own converters (``_cached``): a key it holds is
    read from it in C, with no call of the converter."""
    known = (_NO_CACHE if cache is None else cache).get

    def walk(value: Any) -> Any:
        kind = type(value)
        if kind is dict:
            out = {
                ((known(key) or convert(key)) if type(key) is str else key): (
                    walk(item) if type(item) in _CONTAINERS else item
                )
                for key, item in value.items()
            }
            if len(out) != len(value):
                raise _collision(value, convert)
            return out
        if kind is list:
            if len(value) >= _ROWS and type(value[0]) is dict:
                rows = _convert_rows(value, convert, walk)
                if rows is not None:
                    return rows
            return [walk(item) if type(item) in _CONTAINERS else item for item in value]
        if kind is tuple:
            return tuple(
                walk(item) if type(item) in _CONTAINERS else item for item in value
            )
        return value

    return walk


_CONTAINERS = frozenset((dict, list, tuple))

#: From this many objects, a list is converted as rows (see ``_convert_rows``).
_ROWS = 8


def _convert_rows(
    rows: list[Any], convert: Callable[[str], str], walk: Callable[[Any], Any]
) -> list[Any] | None:
    """A list of objects that all have the same keys in the same order (a
    page of records, what most lists are) converted as a table: the keys
    once, every object in one C loop (``dict(zip(keys, row.values()))``),
    then only the columns that hold containers walked. ``None`` when the
    list is not such a table, or two keys become one (the object by object
    walk then names the collision)."""
    if set(map(type, rows)) != {dict} or len(set(map(tuple, rows))) != 1:
        return None
    keys = [convert(key) if type(key) is str else key for key in rows[0]]
    if len(set(keys)) != len(keys):
        return None
    build = _row_builder(tuple(rows[0]), keys, len(rows))
    out: list[dict[Any, Any]] = (
        list(map(dict, map(zip, repeat(keys), map(dict.values, rows))))
        if build is None
        else list(map(build, rows))
    )
    values = chain.from_iterable(map(dict.values, out))
    if _CONTAINERS.isdisjoint(set(map(type, values))):
        return out  # flat records: nothing below to convert
    for key in keys:
        if not _CONTAINERS.isdisjoint(set(map(type, map(itemgetter(key), out)))):
            for row in out:
                item = row[key]
                if type(item) in _CONTAINERS:
                    row[key] = walk(item)
    return out


#: From this many rows, a table's rows are built by a function made for its
#: keys (see ``_row_builder``); below, making one costs more than it saves.
_BUILT_ROWS = 256
#: Wider rows are built by ``zip``: the function would grow with them.
_BUILT_WIDTH = 64
#: Functions kept, by the keys they read and write; emptied when full, so
#: a hostile stream of shapes cannot grow memory.
_BUILDERS_KEPT = 256
_builders: dict[tuple[tuple[Any, ...], ...], Callable[[dict[Any, Any]], Any]] = {}


def _row_builder(
    old: tuple[Any, ...], new: list[Any], count: int
) -> Callable[[dict[Any, Any]], Any] | None:
    """A function making one converted row, ``{new[0]: row[old[0]], ...}``,
    for ``count`` rows whose keys are ``old`` in that order; or ``None``
    when ``zip`` should do it.

    A dict display builds a row in less time than ``dict(zip(...))`` takes
    (the figures: docs/performance.md): the dict is made at its size with
    every item at once. The function is made once per key set, as
    ``collections.namedtuple`` makes its methods: each key is written into
    the source as ``repr`` of a ``str``, which is always a string literal,
    never code; keys of any other type are not written.
    """
    cache_key = (old, tuple(new))
    build = _builders.get(cache_key)
    if build is not None:
        return build
    if (
        count < _BUILT_ROWS
        or len(old) > _BUILT_WIDTH
        or not all(type(key) is str for key in chain(old, new))
    ):
        return None
    items = ", ".join(
        f"{to!r}: row[{source!r}]" for to, source in zip(new, old, strict=True)
    )
    source = compile(f"lambda row: {{{items}}}", "<key_casing rows>", "eval")
    build = cast("Callable[[dict[Any, Any]], Any]", eval(source, {}))
    if len(_builders) >= _BUILDERS_KEPT:
        _builders.clear()
    _builders[cache_key] = build
    return build


def _deep_convert(value: Any, convert: Callable[[str], str]) -> Any:
    """The same conversion, post-order on an explicit stack: for nesting
    deeper than Python's recursion limit (10,000 levels of JSON are legal)."""
    done: list[Any] = []
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, children_done = stack.pop()
        kind = type(node)
        if kind not in _CONTAINERS:
            done.append(node)
        elif not children_done:
            stack.append((node, True))
            children = list(node.values() if kind is dict else node)
            stack.extend((child, False) for child in reversed(children))
        else:
            count = len(node)
            items = done[len(done) - count :] if count else []
            del done[len(done) - count :]
            if kind is dict:
                built: Any = {}
                for key, item in zip(node, items, strict=True):
                    new = convert(key) if type(key) is str else key
                    if new in built:
                        raise _collision(node, convert)
                    built[new] = item
            else:
                built = items if kind is list else tuple(items)
            done.append(built)
    return done[0]


#: The walker of each style's conversions, made once (each of them one of
#: the module's own converters, made by ``_cached``: its cache is read).
_WALKERS = {
    convert: _converter(convert, convert.cache)  # type: ignore[attr-defined]
    for convert in (*(c for pair in STYLES.values() for c in pair), *PASCAL.values())
}


def convert_keys(value: Any, convert: Callable[[str], str]) -> Any:
    """``value`` with every ``str`` key converted, at any depth."""
    walk = _WALKERS.get(convert)
    if walk is None:
        walk = _converter(convert)
    try:
        return walk(value)
    except RecursionError:
        return _deep_convert(value, convert)


_NAME_PART = re.compile(r"[^\[\]]+")


def _param_name(name: str, convert: Callable[[str], str]) -> str:
    """A query parameter's name converted; one written by a bracket
    ``param_style`` part by part (``line_items[0][price_data]`` ->
    ``lineItems[0][priceData]``), its indices and ``[]`` kept."""
    if "[" not in name:
        return convert(name)
    return _NAME_PART.sub(
        lambda match: match[0] if match[0].isdigit() else convert(match[0]), name
    )


def _query_renamed(query: bytes, convert: Callable[[str], str]) -> bytes:
    """The query ``query`` with each parameter's name converted (its value,
    and a name that does not change, kept byte for byte); a
    :class:`KeyCollision` if two names become one."""
    names: dict[str, str] = {}
    parts = []
    for part in query.split(b"&"):
        raw, equals, value = part.partition(b"=")
        name = unquote(raw.decode("ascii"))
        new = _param_name(name, convert)
        if names.setdefault(new, name) != name:
            raise KeyCollision(names[new], name, new)
        if new != name:
            raw = quote(new, safe="").encode("ascii")
        parts.append(raw + equals + value)
    return b"&".join(parts)


class _KeyCasing:
    """Converts response keys one way and request body keys the other, and
    with ``params=True`` the query parameters' names as the body's."""

    response_keys: Callable[[str], str]
    body_keys: Callable[[str], str]
    #: Which of a style's two conversions the response keys get (0: to
    #: camelCase, 1: to snake_case); the request's get the other.
    _response_side: int

    def __init__(self, *, params: bool = False, style: str = "roundtrip") -> None:
        if style not in STYLES:
            raise SettingError(
                f"{type(self).__name__}: style must be one of "
                f"{', '.join(map(repr, STYLES))}, not {style!r}"
            )
        self.params = params
        self.style = style
        # per instance: the style's (cached) functions, not the class's
        self.response_keys, self.body_keys = self._conversions(style)

    def _conversions(
        self, style: str
    ) -> tuple[Callable[[str], str], Callable[[str], str]]:
        """The style's conversions of response keys and of request keys."""
        conversions = STYLES[style]
        return conversions[self._response_side], conversions[1 - self._response_side]

    def field_name(self, key: str) -> str:
        """The name a response's key ``key`` has once converted: how a
        param in the wire's case names a field (``Sid`` -> ``sid``)."""
        return self.response_keys(key)

    def on_request(self, exchange: Exchange) -> None:
        body = exchange.body
        convert = self.body_keys
        if self.params and exchange.url.query:
            try:
                query = _query_renamed(exchange.url.query, convert)
            except KeyCollision as error:
                raise error.at(f"{exchange.label}: the query") from None
            exchange.url = exchange.url.copy_with(query=query)
        try:
            if type(body) in _CONTAINERS:
                exchange.body = convert_keys(body, convert)
            elif isinstance(body, Form):
                # a form's field names are keys as well (its files' too)
                files = body.files
                if isinstance(files, Mapping):
                    files = convert_keys(dict(files), convert)
                exchange.body = Form(convert_keys(dict(body.data), convert), files)
        except KeyCollision as error:
            raise error.at(f"{exchange.label}: the request body") from None

    def on_response(self, exchange: Exchange) -> None:
        value = exchange.value
        if type(value) in _CONTAINERS:
            exchange.value = self._response_value(exchange, value)
        elif type(value) is Unparsed:
            # the body is read later, maybe straight into entities: say how
            # its keys are cased (and how a field's name is spelt on the wire)
            value.rename_keys(
                functools.partial(self._response_value, exchange),
                self.response_keys,
                self.body_keys,
            )

    def _response_value(self, exchange: Exchange, value: Any) -> Any:
        """``value`` with its keys cased for the client, if it has keys."""
        if type(value) not in _CONTAINERS:
            return value
        try:
            return convert_keys(value, self.response_keys)
        except KeyCollision as error:
            raise error.at(f"{exchange.label}: the response") from None

    def __repr__(self) -> str:
        shown = [f"style={self.style!r}"] if self.style != "roundtrip" else []
        if self.params:
            shown.append("params=True")
        return f"{type(self).__name__}({', '.join(shown)})"


class CamelCaseKeys(_KeyCasing):
    """snake_case on the wire, camelCase in the client (a JavaScript-style
    client of a Python API)."""

    #: Never changes the credentials a call sends (see ``restwire.Stack``).
    sends_credentials = False
    #: Records its casing on an unparsed body (see ``restwire.Unparsed``).
    takes_unparsed = True

    _response_side = 0
    response_keys = staticmethod(_camel)
    body_keys = staticmethod(_snake)


class SnakeCaseKeys(_KeyCasing):
    """The mirror: a camelCase API, snake_case in Python code."""

    #: Never changes the credentials a call sends (see ``restwire.Stack``).
    sends_credentials = False
    #: Records its casing on an unparsed body (see ``restwire.Unparsed``).
    takes_unparsed = True

    _response_side = 1
    response_keys = staticmethod(_snake)
    body_keys = staticmethod(_camel)


class PascalCaseKeys(_KeyCasing):
    """A PascalCase API (``AccountSid``, ``StatusCallback``: Twilio's forms
    and queries), snake_case in Python code: request keys to PascalCase,
    response keys to snake_case (which leaves snake_case ones, as Twilio
    answers, as they are)."""

    #: Never changes the credentials a call sends (see ``restwire.Stack``).
    sends_credentials = False
    #: Records its casing on an unparsed body (see ``restwire.Unparsed``).
    takes_unparsed = True

    _response_side = 1
    response_keys = staticmethod(_snake)
    body_keys = staticmethod(_pascal)

    def _conversions(
        self, style: str
    ) -> tuple[Callable[[str], str], Callable[[str], str]]:
        return STYLES[style][1], PASCAL[style]
