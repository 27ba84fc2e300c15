"""restwire's parsers against other projects' published test vectors.

The vector sets live in ``tests/vectors/``, each naming its source and
commit. Every vector must give what its source says, or be listed in
``DEPARTURES`` below with what restwire gives instead and why (a decision,
documented where the parser is). A departure that is not listed fails, and
so does a listed one that no longer departs: the next divergence, either
way, is caught here.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import httpx
import pytest

from restwire import (
    ParameterError,
    RestEndpoint,
    filename_from,
    parse_link_header,
    safe_filename,
)
from restwire._wire.params import check_param_style
from restwire.middlewares import rate_limit_wait, retry_after_seconds
from restwire.middlewares.key_casing import (
    humps_camel,
    humps_pascal,
    humps_snake,
    pydantic_camel,
    pydantic_pascal,
    pydantic_snake,
    to_camel,
    to_pascal,
    to_snake,
)
from tests.vectors import (
    content_disposition,
    key_casing,
    link_header,
    qs_stringify,
    rate_limit,
    retry_after,
)

#: (parser, input) -> (what restwire gives, why)
DEPARTURES: dict[tuple[str, str], tuple[Any, str]] = {
    ("content-disposition", 'attachment; filename="bar'): (
        "bar",
        "a quoted name cut short still names the file it began to name; the "
        "scanner reads what it can, and the name is made safe all the same",
    ),
    ("camelize", "__scrubber_media___url_"): (
        "__scrubberMedia__Url_",
        "of a run of underscores only the last goes, so nothing is lost and "
        "the key converts back (key_casing's word rules)",
    ),
    ("camelize", "whatever_10"): (
        "whatever_10",
        "an underscore before a digit is kept, so the server gets back the key it sent",
    ),
    ("camelize", "field_value_2_type"): (
        "fieldValue_2Type",
        "an underscore before a digit is kept, so the key converts back",
    ),
    ("camelize", "test-1-2-3-4-5-6"): (
        "test-1-2-3-4-5-6",
        "only underscores separate words; a dash is part of the key",
    ),
    ("decamelize", "API"): (
        "api",
        "snake_case is lower case throughout (inflection agrees: HTML -> html)",
    ),
    ("decamelize", "_API_"): ("_api_", "snake_case is lower case throughout"),
    ("decamelize", "__API__"): ("__api__", "snake_case is lower case throughout"),
    ("qs", "indexed {'a': None, 'b': None}"): (
        "",
        "None is left out, in every style, as restwire always left it out of "
        "a query (qs's skipNulls); send '' for an empty value",
    ),
    ("qs", "indexed {'a': None, 'b': ''}"): ("b=", "None is left out (as above)"),
    ("qs", "brackets {'a': [], 'b': [None], 'c': 'c'}"): (
        "c=c",
        "a None item is left out of its list, so the list sends nothing",
    ),
    ("qs", "brackets {'a': [{'b': 'c'}]}"): (
        "a[0][b]=c",
        "a list holding objects numbers its items in the brackets style, as "
        "Stripe reads lists of objects: a[][b] cannot say which fields belong "
        "to one object (_wire.params)",
    ),
    ("qs", "brackets {'a': [{'b': {'c': [1]}}]}"): (
        "a[0][b][c][]=1",
        "objects in a list are numbered (as above); the plain list inside "
        "keeps its empty brackets",
    ),
    ("qs", "comma {'a': {'b': ['c', 'd']}}"): (
        "ParameterError",
        'a dict has no form under param_style="comma", and the error says '
        'param_style="brackets" sends it: one style per endpoint, so a '
        "reader of the endpoint knows what is sent",
    ),
    ("qs", "brackets {'a': {'b': [{'c': 'd', 'e': 'f'}]}}"): (
        "a[b][0][c]=d&a[b][0][e]=f",
        "objects in a list are numbered (as above)",
    ),
}


def qs_output(params: dict[str, Any], style: str, shown: str) -> str:
    """What restwire sends for ``params`` in ``style``, shown as the qs
    vector shows its output (see ``tests/vectors/qs_stringify``)."""
    try:
        url = RestEndpoint(param_style=check_param_style(style)).url(params)
    except ParameterError:
        return "ParameterError"
    query = url.removeprefix("?")
    if shown == "decoded":
        return unquote(query)
    if shown == "values":
        return "&".join(
            unquote(name) + equals + value
            for name, equals, value in (
                pair.partition("=") for pair in query.split("&")
            )
        )
    return query


def outcomes() -> list[tuple[str, str, Any, Any]]:
    """Every vector as (parser, input, what its source says, what restwire gives)."""
    rows: list[tuple[str, str, Any, Any]] = []
    for header, name in content_disposition.VECTORS:
        expected = safe_filename(name) if name else "download"
        rows.append(("content-disposition", header, expected, filename_from(header)))
    for header, links in link_header.VECTORS:
        parsed = [
            (link.url, link.rel, link.title) for link in parse_link_header(header)
        ]
        rows.append(("link", header, links, parsed))
    for snake, camel in key_casing.PYHUMPS_CAMELIZE:
        rows.append(("camelize", snake, camel, to_camel(snake)))
    for camel, snake in key_casing.PYHUMPS_DECAMELIZE:
        rows.append(("decamelize", camel, snake, to_snake(camel)))
    for camel, snake in (
        key_casing.INFLECTION_ROUND_TRIP + key_casing.INFLECTION_ONE_WAY
    ):
        rows.append(("underscore", camel, snake, to_snake(camel)))
    for camel, snake in key_casing.INFLECTION_ROUND_TRIP:
        lower_camel = camel[0].lower() + camel[1:]
        rows.append(("camelize", snake, lower_camel, to_camel(snake)))
        rows.append(("pascalize", snake, camel, to_pascal(snake)))
    # the casing styles that promise a library's exact results: no departures
    for snake, camel in key_casing.PYHUMPS_CAMELIZE:
        rows.append(("humps camelize", snake, camel, humps_camel(snake)))
    for camel, snake in key_casing.PYHUMPS_DECAMELIZE:
        rows.append(("humps decamelize", camel, snake, humps_snake(camel)))
    for snake, camel in key_casing.PYDANTIC_TO_CAMEL:
        rows.append(("pydantic to_camel", snake, camel, pydantic_camel(snake)))
    for snake, pascal in key_casing.PYHUMPS_PASCALIZE:
        rows.append(("humps pascalize", snake, pascal, humps_pascal(snake)))
    for snake, pascal in key_casing.PYDANTIC_TO_PASCAL:
        rows.append(("pydantic to_pascal", snake, pascal, pydantic_pascal(snake)))
    for camel, snake in key_casing.PYDANTIC_TO_SNAKE:
        rows.append(("pydantic to_snake", camel, snake, pydantic_snake(camel)))
    for params, style, expected, how in qs_stringify.VECTORS:
        given = f"{style} {params!r}"
        rows.append(("qs", given, expected, qs_output(params, style, how)))
    for value, seconds in retry_after.VECTORS:
        got = retry_after_seconds(value, now=lambda: retry_after.NOW)
        rows.append(("retry-after", value, seconds, got))
    for fields, status, wait in rate_limit.VECTORS:
        shown = f"{status} " + "; ".join(f"{k}: {v}" for k, v in fields.items())
        got = rate_limit_wait(httpx.Headers(fields), status)
        rows.append(("ratelimit", shown, wait, got))
    for fields, status, wait in rate_limit.PROVIDER_VECTORS:
        shown = f"{status} " + "; ".join(f"{k}: {v}" for k, v in fields.items())
        got = rate_limit_wait(httpx.Headers(fields), status, now=lambda: rate_limit.NOW)
        rows.append(("ratelimit (providers)", shown, wait, got))
    return rows


@pytest.mark.parametrize(
    ("parser", "given", "expected", "got"),
    outcomes(),
    ids=lambda value: str(value)[:40] if isinstance(value, str) else "",
)
def test_vector(parser: str, given: str, expected: Any, got: Any) -> None:
    departure = DEPARTURES.get((parser, given))
    if departure is None:
        assert got == expected
    else:
        gives, why = departure
        assert got != expected, f"no longer departs (remove it): {why}"
        assert got == gives


def test_every_departure_is_a_vector() -> None:
    known = {(parser, given) for parser, given, _, _ in outcomes()}
    assert set(DEPARTURES) <= known


def test_each_set_names_its_source_and_commit() -> None:
    sources = [
        content_disposition.SOURCE,
        *link_header.SOURCES,
        *key_casing.SOURCES,
        retry_after.SOURCE,
        *rate_limit.SOURCES,
        qs_stringify.SOURCE,
    ]
    for source in sources:
        if source.startswith("RFC"):
            continue
        repository, _, commit = source.partition("@")
        assert "/" in repository, source
        assert len(commit.split()[0]) == 40, source


def test_the_sets_are_not_small() -> None:
    assert len(content_disposition.VECTORS) >= 100
    assert len(link_header.VECTORS) >= 25
    assert len(retry_after.VECTORS) >= 10
    assert len(rate_limit.VECTORS) >= 10
    assert len(rate_limit.PROVIDER_VECTORS) >= 15
    assert len(rate_limit.PROVIDER_SOURCES) == 4
    assert len(qs_stringify.VECTORS) >= 35
