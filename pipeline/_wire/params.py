"""How a call's params are written: path segments, query pairs in a param
style, form fields.

**Path templates.** A path with ``:name`` placeholders (``/posts/:id``) and
optional groups in braces (``/posts{/:id}``, ``/files/:name{.:ext}``): a group
is left out whole when any placeholder in it has no value. ``\\:`` is a
literal colon (``/v1/items\\:batchGet``). Guarantees:

- A placeholder's value is percent-encoded as one path segment: ``/``, ``?``,
  ``#``, ``%`` and spaces cannot change the path's structure, and a value of
  ``.`` or ``..`` is encoded so no client or server folds it away.
- A required placeholder with no value (missing, ``None`` or empty text) is a
  :class:`ParameterError` naming the endpoint and the placeholder.
- Every other param goes to the query string, sorted by name; a list or tuple
  becomes repeated keys (a ``MultiDict`` gives each of its values); ``None`` is
  left out; ``True``/``False`` are sent as ``true``/``false``. Equal params
  give equal URLs, whatever their order. That is the default param style;
  the others follow.

**Parameter styles.** An endpoint's ``param_style`` option says how the
server reads lists and nested objects, for the query string and for
:class:`~restwire.Form` bodies alike (``extend`` and ``use`` keep it).
``None`` is left out everywhere; ``True``/``False`` are ``true``/``false``;
anything else is its ``str``.

| style | ``{"a": [1, 2]}`` | ``{"m": {"k": "v"}}`` | who reads it |
|---|---|---|---|
| ``"repeat"`` (default) | ``a=1&a=2`` | a :class:`ParameterError` | most frameworks (FastAPI, Flask, Django's ``getlist``) |
| ``"brackets"`` | ``a[]=1&a[]=2`` | ``m[k]=v`` | Rails, PHP, Stripe, npm ``qs`` |
| ``"indexed"`` | ``a[0]=1&a[1]=2`` | ``m[k]=v`` | ``qs``'s default, PHP, Stripe |
| ``"comma"`` | ``a=1,2`` | a :class:`ParameterError` | OpenAPI's ``style: form, explode: false`` |

The exact rules (guaranteed, and checked by tests):

- Nesting is recursive in ``"brackets"`` and ``"indexed"``:
  ``{"created": {"gte": 1}}`` is ``created[gte]=1``,
  ``{"metadata": {"plan": "pro"}}`` is ``metadata[plan]=pro``.
- ``"brackets"`` writes a list of plain values with empty brackets
  (``a[]=1``), as Rails and PHP read them; a list holding a dict or a list
  has every item numbered instead (``items[0][price]=x&items[1][price]=y``),
  as Stripe reads lists of objects: empty brackets cannot say which fields
  belong to one object. npm ``qs`` writes ``items[][price]=x`` there; that
  is the one place restwire departs from it.
- ``"indexed"`` numbers every list item from 0.
- ``"repeat"`` repeats the name for each item; a list inside a list is
  flattened into the same name (as restwire always did); a dict has no
  form, and says which style would send it.
- ``"comma"`` joins a list's items with ``,`` (in a query, a comma inside
  an item is sent as ``%2C``, the joining comma as it is, so the two can
  be told apart); a dict or a list inside the list has no form.
- ``None`` items of a list are left out before numbering, so indices run
  0, 1, 2 with no gap; an empty list or dict sends nothing (as ``qs``).
- In a query, names are sorted at the top and at every level of a dict,
  so equal params make equal URLs (the store's key); each name and value
  is percent-encoded whole, brackets included (``m%5Bk%5D=v``, as ``qs``
  and browsers send them; every server decodes them). A form keeps its
  fields in the order given, and is encoded as httpx encodes forms.
- A set (no order), bytes in a query, an object with no text form of
  its own, an iterator (a generator: read once, where a retry reads the
  params again), a collection whose text is its repr (a ``range``, a dict
  view), or a name that is not text is a :class:`ParameterError` naming
  the parameter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, Literal
from urllib.parse import quote

from multidict import MultiDict

from .._base.errors import ParameterError, SettingError
from .._base.library import QueryParams

__all__ = [
    "MAX_DEPTH",
    "PARAM_STYLES",
    "ParamStyle",
    "Params",
    "PathTemplate",
    "as_params",
    "check_param_style",
    "check_text_form",
    "encode_query",
    "encode_segment",
    "form_fields",
    "join_url",
    "query_pairs",
    "styled_query",
    "value_text",
]

#: A call's params, as :func:`as_params` gives them.
Params = Mapping[str, Any]

ParamStyle = Literal["repeat", "brackets", "indexed", "comma"]
PARAM_STYLES: Final = ("repeat", "brackets", "indexed", "comma")

#: A flattened value: one text, or a comma style's items to join.
_Flat = str | bytes | tuple[str, ...]
_Emit = Callable[[str, _Flat], None]


def check_param_style(value: Any) -> ParamStyle:
    """``value`` if it names a style; else an error where the endpoint is written."""
    if value not in PARAM_STYLES:
        raise SettingError(
            f"param_style must be one of {', '.join(map(repr, PARAM_STYLES))}, "
            f"not {value!r}"
        )
    style: ParamStyle = value
    return style


def value_text(value: Any) -> str:
    """A param value as the URL says it: ``true``/``false`` for booleans,
    else its ``str``."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def check_text_form(value: Any, name: str, endpoint: str) -> None:
    """Refuse a value that is no single value with a text of its own: one
    whose text is only Python's default repr (``<object at 0x...>``); an
    iterator (a generator, ``map``: read once, where a call's params are
    read again, by a retry, a redirect, the store's key); a collection
    other than a list or tuple whose text is its repr (a ``range``, a dict
    view, a ``deque``), which would reach the URL as garbage. A collection
    with a text of its own (an ``ipaddress`` network) is that text."""
    if isinstance(value, str | int | float):
        return  # (the most of values: no check more)
    kind: Any = type(value)
    if isinstance(value, Iterator) or (
        isinstance(value, Iterable) and kind.__str__ is object.__str__
    ):
        raise ParameterError(
            endpoint,
            name,
            f"is a {kind.__name__}, "
            + (
                "which can be read only once"
                if isinstance(value, Iterator)
                else "not a single value"
            )
            + "; pass a list or a tuple of its values",
        )
    if kind.__str__ is object.__str__ and kind.__repr__ is object.__repr__:
        raise ParameterError(
            endpoint,
            name,
            f"is a {kind.__name__} with no text form (no __str__); pass its "
            "id or a str",
        )


# -- path templates --------------------------------------------------------

_TOKEN = re.compile(r"\\:|:([A-Za-z_][A-Za-z0-9_]*)|\{|\}")
# RFC 3986 pchar minus nothing: unreserved, sub-delims, ":" and "@" stay as they are.
_SEGMENT_SAFE = "-._~!$&'()*+,;=:@"


@dataclass(frozen=True, slots=True)
class _Placeholder:
    name: str


@dataclass(frozen=True, slots=True)
class _Group:
    parts: tuple[str | _Placeholder, ...]


_Part = str | _Placeholder | _Group


def encode_segment(value: Any) -> str:
    """One path segment, percent-encoded so it cannot leave its place."""
    text = quote(value_text(value), safe=_SEGMENT_SAFE)
    if text in (".", ".."):
        return text.replace(".", "%2E")
    return text


class PathTemplate:
    """A parsed path template. Build one with :meth:`parse` (cached)."""

    __slots__ = ("names", "parts", "required", "source")

    def __init__(self, source: str, parts: tuple[_Part, ...]) -> None:
        self.source = source
        self.parts = parts
        required: list[str] = []
        names: list[str] = []
        for part in parts:
            if isinstance(part, _Placeholder):
                required.append(part.name)
                names.append(part.name)
            elif isinstance(part, _Group):
                names.extend(p.name for p in part.parts if isinstance(p, _Placeholder))
        self.required = frozenset(required)
        self.names = frozenset(names)

    @staticmethod
    @lru_cache(maxsize=1024)
    def parse(source: str) -> PathTemplate:
        """Parse ``source``; a malformed template is a ``ValueError`` naming it."""
        parts: list[_Part] = []
        group: list[str | _Placeholder] | None = None
        literal = ""
        position = 0
        for match in _TOKEN.finditer(source):
            literal += source[position : match.start()]
            position = match.end()
            token = match.group(0)
            if token == "\\:":
                literal += ":"
                continue
            target: list[Any] = parts if group is None else group
            if literal:
                target.append(literal)
                literal = ""
            if token == "{":
                if group is not None:
                    raise SettingError(f"path {source!r}: groups cannot nest")
                group = []
            elif token == "}":
                if group is None:
                    raise SettingError(f"path {source!r}: '}}' without '{{'")
                parts.append(_Group(tuple(group)))
                group = None
            else:
                target.append(_Placeholder(match.group(1)))
        if group is not None:
            raise SettingError(f"path {source!r}: '{{' is never closed")
        literal += source[position:]
        if literal:
            parts.append(literal)
        return PathTemplate(source, tuple(parts))

    def fill(self, params: Params, endpoint: str) -> str:
        """The path with every placeholder filled from ``params``."""
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, _Placeholder):
                out.append(self._required_value(params, part.name, endpoint))
            else:
                filled = self._group(part, params, endpoint)
                if filled is not None:
                    out.append(filled)
        return "".join(out)

    @staticmethod
    def _required_value(params: Params, name: str, endpoint: str) -> str:
        if name not in params:
            raise ParameterError(endpoint, name, "is missing")
        value = params[name]
        if value is None or value == "":
            raise ParameterError(endpoint, name, f"is {value!r}, a segment needs text")
        return _segment(value, name, endpoint)

    @staticmethod
    def _group(group: _Group, params: Params, endpoint: str) -> str | None:
        out: list[str] = []
        for part in group.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            value = params.get(part.name)
            if value is None or value == "":
                return None
            out.append(_segment(value, part.name, endpoint))
        return "".join(out)

    def __repr__(self) -> str:
        return f"PathTemplate({self.source!r})"


def _segment(value: Any, name: str, endpoint: str) -> str:
    """A path param's value as one encoded segment; a value that is no
    single piece of text (bytes, a collection, an object with no text form
    of its own) is a :class:`ParameterError`."""
    if isinstance(value, bytes | bytearray | memoryview):
        raise ParameterError(
            endpoint, name, f"is {type(value).__name__}; decode it to text first"
        )
    if isinstance(value, Mapping | list | tuple | set):
        raise ParameterError(
            endpoint, name, f"is a {type(value).__name__}, not a single value"
        )
    check_text_form(value, name, endpoint)
    return encode_segment(value)


# -- the query in the default style, and the URL ----------------------------


def as_params(params: Any, endpoint: str) -> Params:
    """A call's params as a mapping: a mapping (a ``MultiDict`` keeps every
    value of a name) as it is, httpx's ``QueryParams`` and ``(name, value)``
    pairs (as httpx takes them) as a ``MultiDict``; anything else is a
    :class:`ParameterError`."""
    if type(params) is dict:
        return params
    if params is None:
        return {}
    if isinstance(params, Mapping) and not isinstance(params, QueryParams):
        return params
    if isinstance(params, QueryParams):
        return MultiDict(params.multi_items())
    if isinstance(params, list | tuple) and all(
        isinstance(pair, tuple | list) and len(pair) == 2 and isinstance(pair[0], str)
        for pair in params
    ):
        return MultiDict([(name, value) for name, value in params])
    raise ParameterError(
        endpoint,
        None,
        "params must be a mapping or (name, value) pairs, "
        f"not {type(params).__name__} {_preview(params)}",
    )


def _preview(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def query_pairs(
    params: Params, exclude: frozenset[str], endpoint: str
) -> MultiDict[str]:
    """Every param not in ``exclude``, as sorted query pairs, in the default
    ``"repeat"`` style (the hot path: the other styles are
    :func:`styled_query`, which gives the same for ``"repeat"``)."""
    pairs: MultiDict[str] = MultiDict()
    names = {name for name in params if name not in exclude}
    for name in names:
        if not isinstance(name, str):
            raise _name_not_text(name, endpoint)
    for name in sorted(names):
        values: Iterable[Any]
        if isinstance(params, MultiDict):
            values = params.getall(name)
        else:
            values = (params[name],)
        for value in values:
            _add_query_value(pairs, name, value, endpoint)
    return pairs


def _name_not_text(name: object, endpoint: str) -> ParameterError:
    """The error for a param named by something that is not text (an
    ``int``): a query's names are text, and equal params must sort alike."""
    return ParameterError(
        endpoint,
        None,
        f"a parameter is named by the {type(name).__name__} {name!r}; a "
        f"parameter's name is text (write {str(name)!r})",
    )


def _add_query_value(
    pairs: MultiDict[str], name: str, value: Any, endpoint: str, depth: int = 0
) -> None:
    if value is None:
        return
    if isinstance(value, list | tuple):
        if depth >= MAX_DEPTH:
            raise ParameterError(
                endpoint,
                name,
                f"nests lists more than {MAX_DEPTH} levels deep (or holds itself)",
            )
        for item in value:
            _add_query_value(pairs, name, item, endpoint, depth + 1)
        return
    if isinstance(value, Mapping | set | frozenset | bytes | bytearray | memoryview):
        # the one wording for what a style cannot send (styled_query)
        styled_query({name: value}, frozenset(), "repeat", endpoint)
        raise AssertionError(f"{name}: {value!r} has a query form")  # pragma: no cover
    check_text_form(value, name, endpoint)
    pairs.add(name, value_text(value))


def encode_query(pairs: MultiDict[str]) -> str:
    """The query string of ``pairs`` (no leading ``?``), in their order."""
    return "&".join(
        f"{quote(name, safe='')}={quote(value, safe='')}"
        for name, value in pairs.items()
    )


def join_url(prefix: str, path: str) -> str:
    """``prefix`` and ``path`` joined by exactly one slash."""
    if not prefix:
        return path
    if not path:
        return prefix
    return prefix.rstrip("/") + "/" + path.lstrip("/")


# -- parameter styles: lists and dicts in a query or a form ------------------


def grouped(params: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """Each name of ``params`` with its value; a ``MultiDict``'s repeated
    name once, its values as a list."""
    if isinstance(params, MultiDict):
        for name in dict.fromkeys(params):
            values = params.getall(name)
            yield name, values[0] if len(values) == 1 else list(values)
    else:
        yield from params.items()


#: How deep lists and objects may nest inside one parameter: deeper is an
#: error (a value that holds itself would otherwise recurse without end).
MAX_DEPTH = 32


class _Flattener:
    """One walk over a value, emitting ``(name, text)`` pairs in one style."""

    __slots__ = ("depth", "emit", "endpoint", "raw_bytes", "sort", "style")

    def __init__(
        self, style: str, endpoint: str, emit: _Emit, *, sort: bool, raw_bytes: bool
    ) -> None:
        self.style = style
        self.endpoint = endpoint
        self.emit = emit
        self.sort = sort
        self.raw_bytes = raw_bytes
        self.depth = 0

    def value(self, name: str, value: Any) -> None:
        if value is None:
            return
        if isinstance(value, list | tuple | Mapping):
            if self.depth >= MAX_DEPTH:
                raise ParameterError(
                    self.endpoint,
                    name.partition("[")[0],
                    f"nests lists and objects more than {MAX_DEPTH} levels "
                    "deep (or holds itself)",
                )
            self.depth += 1
            try:
                if isinstance(value, Mapping):
                    self.mapping(name, value)
                else:
                    self.sequence(name, value)
            finally:
                self.depth -= 1
        else:
            self.emit(name, self.scalar(name, value))

    def scalar(self, name: str, value: Any) -> str | bytes:
        if isinstance(value, bytes | bytearray | memoryview):
            if self.raw_bytes:  # a multipart field's own bytes
                return bytes(value)
            raise ParameterError(
                self.endpoint, name, f"is {type(value).__name__}; decode it to text"
            )
        if isinstance(value, set | frozenset):
            raise ParameterError(
                self.endpoint,
                name,
                f"is a {type(value).__name__}, which has no order to send it "
                "in; pass a sorted list",
            )
        check_text_form(value, name, self.endpoint)
        return value_text(value)

    def sequence(self, name: str, items: list[Any] | tuple[Any, ...]) -> None:
        present = [item for item in items if item is not None]
        style = self.style
        if style == "repeat":
            for item in present:
                if isinstance(item, Mapping):
                    self.no_form(name, item)
                self.value(name, item)
        elif style == "comma":
            texts: list[str] = []
            for item in present:
                if isinstance(item, list | tuple | Mapping):
                    raise ParameterError(
                        self.endpoint,
                        name,
                        f"holds a {type(item).__name__}, which a comma-separated "
                        'list cannot hold; param_style="brackets" or "indexed" '
                        "sends it",
                    )
                text = self.scalar(name, item)
                texts.append(text if isinstance(text, str) else text.decode())
            if texts:
                self.emit(name, tuple(texts))
        elif style == "indexed" or any(
            isinstance(item, list | tuple | Mapping) for item in present
        ):
            for index, item in enumerate(present):
                self.value(f"{name}[{index}]", item)
        else:  # brackets, plain values
            for item in present:
                self.value(f"{name}[]", item)

    def mapping(self, name: str, value: Mapping[Any, Any]) -> None:
        if self.style in ("repeat", "comma"):
            self.no_form(name, value)
        keys = list(value)
        for key in keys:
            if not isinstance(key, str | int) or isinstance(key, bool):
                raise ParameterError(
                    self.endpoint,
                    name,
                    f"has the key {key!r}; keys inside a parameter must be "
                    "text or integers",
                )
        if self.sort:
            keys.sort(key=str)
        for key in keys:
            self.value(f"{name}[{key}]", value[key])

    def no_form(self, name: str, value: Any) -> None:
        raise ParameterError(
            self.endpoint,
            name,
            f"is a {type(value).__name__}, which has no form under "
            f'param_style="{self.style}"; param_style="brackets" sends it as '
            f"{name}[key]=value",
        )


def styled_query(
    params: Mapping[str, Any], exclude: frozenset[str], style: str, endpoint: str
) -> str:
    """The query string (no ``?``) of every param not in ``exclude``, in
    ``style``: names sorted at every level, names and values
    percent-encoded whole (the comma style's joining commas kept)."""
    parts: list[str] = []

    def emit(name: str, value: _Flat) -> None:
        if isinstance(value, tuple):
            text = ",".join(quote(item, safe="") for item in value)
        else:
            text = quote(value, safe="")
        parts.append(f"{quote(name, safe='')}={text}")

    walk = _Flattener(style, endpoint, emit, sort=True, raw_bytes=False)
    for name in params:
        if not isinstance(name, str):
            raise _name_not_text(name, endpoint)
    for name, value in sorted(grouped(params), key=lambda pair: pair[0]):
        if name not in exclude:
            walk.value(name, value)
    return "&".join(parts)


def form_fields(
    data: Mapping[str, Any], style: str, endpoint: str, *, multipart: bool
) -> dict[str, Any]:
    """A form's fields flattened in ``style``, in the order given, as
    httpx's ``data=`` takes them (a name sent several times has a list);
    bytes stay bytes in a ``multipart`` form."""
    fields: dict[str, Any] = {}

    def emit(name: str, value: _Flat) -> None:
        if isinstance(value, tuple):
            value = ",".join(value)
        have = fields.get(name)
        if have is None:
            fields[name] = value
        elif isinstance(have, list):
            have.append(value)
        else:
            fields[name] = [have, value]

    walk = _Flattener(style, endpoint, emit, sort=False, raw_bytes=multipart)
    for name, value in grouped(data):
        if not isinstance(name, str):
            raise ParameterError(
                endpoint, repr(name), "is a form field name that is not text"
            )
        walk.value(name, value)
    return fields
