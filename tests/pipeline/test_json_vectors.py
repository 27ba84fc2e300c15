"""JSON bodies against JSONTestSuite's published vectors.

restwire parses JSON with msgspec and hands what msgspec refuses to
``json.loads`` (see ``_wire.content._strict_json``). For every vector the result
must be what ``json.loads`` alone gives: the same value, or a
:class:`ContentError` where it raises. Every ``y_`` vector must parse.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from restwire import ContentError, JsonContent
from tests.vectors.json_test_suite import CASES

URL = "https://api.example.com/vectors"


def _response(body: bytes) -> httpx.Response:
    return httpx.Response(
        200,
        content=body,
        headers={"content-type": "application/json"},
        request=httpx.Request("GET", URL),
    )


def _same(left: Any, right: Any) -> bool:
    """Equal values, types included (``1`` is not ``1.0``, ``true`` not
    ``1``), NaN equal to NaN: compared as the text ``json.dumps`` makes."""
    return json.dumps(left) == json.dumps(right)


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_reads_what_the_standard_library_reads(name: str) -> None:
    body = CASES[name]
    try:
        expected = json.loads(body)
    except (ValueError, RecursionError):
        expected = ContentError
    if not body or body.isspace():
        expected = None  # an empty body is no content, not an error
    if expected is ContentError:
        with pytest.raises(ContentError) as caught:
            JsonContent().parse(_response(body))
        assert caught.value.url == URL
        return
    assert _same(JsonContent().parse(_response(body)), expected)
    if name.startswith("y_"):
        assert expected is not None or body.strip() == b"null"


def test_every_vector_the_suite_says_must_parse_parses() -> None:
    accepted = [name for name in CASES if name.startswith("y_")]
    assert len(accepted) == 95
    for name in accepted:
        JsonContent().parse(_response(CASES[name]))


def test_every_vector_the_suite_says_must_be_refused_is_refused() -> None:
    """Except the few that json.loads itself accepts (NaN, Infinity and
    -Infinity spelled out), and the empty and blank bodies, which are a
    response with no content (``None``), not a broken one."""
    accepted_anyway = set()
    for name, body in CASES.items():
        if not name.startswith("n_"):
            continue
        try:
            JsonContent().parse(_response(body))
        except ContentError:
            continue
        accepted_anyway.add(name)
    assert accepted_anyway == {
        "n_number_NaN.json",
        "n_number_infinity.json",
        "n_number_minus_infinity.json",
        "n_single_space.json",
        "n_structure_no_data.json",
    }
