"""The casing styles: pydantic's and pyhumps' rules, exactly, as middleware.

Each style's two functions are compared with the library they promise to
equal, over a generated key set (every short key over an alphabet of the
characters the rules look at, and random longer ones with Unicode,
whitespace and digits); the libraries' own published test cases run from
``tests/test_published_vectors.py``.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import Form, RestEndpoint
from restwire.middlewares import (
    CamelCaseKeys,
    KeyCollision,
    PascalCaseKeys,
    SnakeCaseKeys,
    key_casing,
)
from restwire.middlewares.key_casing import (
    CACHE_SIZE,
    PASCAL,
    STYLES,
    convert_keys,
    humps_camel,
    humps_pascal,
    humps_snake,
    pydantic_camel,
    pydantic_pascal,
    pydantic_snake,
    to_pascal,
)
from restwire.middlewares.key_casing import to_snake as roundtrip_snake

pytestmark = pytest.mark.anyio

API = "https://api.example.com"

#: The characters the rules look at: cases, digits, separators, space,
#: letters whose title case differs (ǆ, ß, sigma), a Unicode digit (٣).
_SHORT_ALPHABET = "aZ1_- "
_ALPHABET = "abcxyzABCXYZ0129_-_- .\t\néßǆİΣ\u03c3٣[]"  # \u03c3: small sigma


def generated_keys() -> list[str]:
    keys = [
        "".join(chars)
        for size in range(6)
        for chars in itertools.product(_SHORT_ALPHABET, repeat=size)
    ]
    rng = random.Random(32)
    for _ in range(20_000):
        keys.append("".join(rng.choices(_ALPHABET, k=rng.randrange(1, 16))))
    words = ["address", "line", "1", "ID", "url", "HTTP", "api", "v2", "x"]
    for _ in range(5_000):
        parts = rng.choices(words, k=rng.randrange(1, 5))
        keys.append(rng.choice(["_", "", "-"]).join(parts))
        keys.append("".join(part.capitalize() for part in parts))
    return keys


KEYS = generated_keys()


def test_the_key_set_is_large() -> None:
    assert len(set(KEYS)) > 30_000


def test_pydantic_style_is_pydantics_alias_generators() -> None:
    alias_generators = pytest.importorskip("pydantic.alias_generators")
    for key in KEYS:
        assert pydantic_camel(key) == alias_generators.to_camel(key), key
        assert pydantic_snake(key) == alias_generators.to_snake(key), key


def test_humps_style_is_pyhumps() -> None:
    humps = pytest.importorskip("humps")
    for key in KEYS:
        assert humps_camel(key) == humps.camelize(key), key
        assert humps_snake(key) == humps.decamelize(key), key


def test_pascal_case_under_each_style_is_the_library_s() -> None:
    alias_generators = pytest.importorskip("pydantic.alias_generators")
    humps = pytest.importorskip("humps")
    for key in KEYS:
        assert pydantic_pascal(key) == alias_generators.to_pascal(key), key
        assert humps_pascal(key) == humps.pascalize(key), key


@pytest.mark.parametrize(
    ("snake", "pascal"),
    [
        ("account_sid", "AccountSid"),
        ("to", "To"),
        ("status_callback", "StatusCallback"),
        ("date_sent>", "DateSent>"),
        ("page_size", "PageSize"),
        ("_private", "_Private"),
        ("line_1", "Line_1"),
        ("AccountSid", "AccountSid"),
    ],
)
def test_snake_to_pascal_and_back(snake: str, pascal: str) -> None:
    assert to_pascal(snake) == pascal
    if snake.islower() or snake.startswith("_"):
        assert roundtrip_snake(pascal) == snake  # round trip, as camelCase's


def test_every_style_has_its_pascal_case() -> None:
    assert set(PASCAL) == set(STYLES)
    for style, convert in PASCAL.items():
        assert convert("account_sid") == "AccountSid", style


@pytest.mark.parametrize(
    ("key", "style", "camel"),
    [
        ("address_line_1", "roundtrip", "addressLine_1"),
        ("address_line_1", "pydantic", "addressLine1"),
        ("address_line_1", "humps", "addressLine1"),
    ],
)
def test_the_fastapi_key_under_each_style(key: str, style: str, camel: str) -> None:
    to_camel, to_snake = STYLES[style]
    assert to_camel(key) == camel
    back = {"roundtrip": "address_line_1", "pydantic": "address_line_1"}
    assert to_snake(camel) == back.get(style, "address_line1")


async def test_snake_case_keys_in_pydantic_style_meets_a_fastapi_server(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"addressLine1": "1 Main St", "userId": 7})
    update = RestEndpoint(url_prefix=API, path="/me", method="PATCH").use(
        SnakeCaseKeys(style="pydantic", params=True)
    )
    value = await controller.fetch(
        update, {"dry_run_2": True}, {"address_line_1": "1 Main St"}
    )
    assert value == {"address_line_1": "1 Main St", "user_id": 7}
    request = httpx_mock.get_request()
    assert request is not None
    assert request.content == b'{"addressLine1":"1 Main St"}'
    assert request.url.query == b"dryRun2=true"


async def test_camel_case_keys_in_humps_style(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"api_response": {"whatever_10": 1}})
    call = RestEndpoint(url_prefix=API, path="/x", method="POST").use(
        CamelCaseKeys(style="humps")
    )
    value = await controller.fetch(call, body=Form({"APIResponse": "a"}))
    assert value == {"apiResponse": {"whatever10": 1}}
    request = httpx_mock.get_request()
    assert request is not None
    assert request.content == b"api_response=a"


async def test_params_true_renames_bracket_names_part_by_part(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={})
    listing = RestEndpoint(url_prefix=API, path="/x", param_style="brackets").use(
        SnakeCaseKeys(style="pydantic", params=True)
    )
    await controller.fetch(
        listing, {"line_items": [{"price_data": 1}], "created_at": {"gte_2": 3}}
    )
    request = httpx_mock.get_request()
    assert request is not None
    assert request.url.params.multi_items() == [
        ("createdAt[gte2]", "3"),
        ("lineItems[0][priceData]", "1"),
    ]


@pytest.mark.parametrize("style", sorted(STYLES))
async def test_every_style_names_a_collision_before_sending(
    controller: Any, httpx_mock: HTTPXMock, style: str
) -> None:
    call = RestEndpoint(url_prefix=API, path="/x", method="POST").use(
        SnakeCaseKeys(style=style)
    )
    with pytest.raises(KeyCollision, match="the request body"):
        await controller.fetch(call, body={"user_id": 1, "userId": 2})
    assert httpx_mock.get_requests() == []


@pytest.mark.parametrize("style", sorted(STYLES))
async def test_pascal_case_keys_sends_pascal_and_reads_snake(
    controller: Any, httpx_mock: HTTPXMock, style: str
) -> None:
    """Twilio's convention: PascalCase forms and queries, snake_case JSON
    (left as it is), camelCase JSON (made snake_case) alike."""
    httpx_mock.add_response(json={"account_sid": "AC1", "numSegments": "1"})
    call = RestEndpoint(url_prefix=API, path="/Messages.json", method="POST").use(
        PascalCaseKeys(style=style, params=True)
    )
    value = await controller.fetch(
        call,
        {"status_callback": "https://example.com/hook"},
        Form({"to": "+15558675310", "from": "+15017122661", "body": "Hi"}),
    )
    assert value == {"account_sid": "AC1", "num_segments": "1"}
    request = httpx_mock.get_request()
    assert request is not None
    assert request.content == b"To=%2B15558675310&From=%2B15017122661&Body=Hi"
    assert request.url.params.multi_items() == [
        ("StatusCallback", "https://example.com/hook")
    ]


@pytest.mark.parametrize("style", sorted(STYLES))
async def test_every_style_renames_params_with_params_true(
    controller: Any, httpx_mock: HTTPXMock, style: str
) -> None:
    httpx_mock.add_response(json={})
    call = RestEndpoint(url_prefix=API, path="/x").use(
        SnakeCaseKeys(style=style, params=True)
    )
    await controller.fetch(call, {"author_name": "a_b"})
    request = httpx_mock.get_request()
    assert request is not None
    assert request.url.query == b"authorName=a_b"


def test_a_response_collision_is_named_under_every_style() -> None:
    for style, (_, to_snake) in STYLES.items():
        with pytest.raises(KeyCollision) as caught:
            convert_keys({"userId": 1, "user_id": 2}, to_snake)
        assert caught.value.keys == ("userId", "user_id"), style
        assert caught.value.converted == "user_id", style


def test_each_style_keeps_a_bounded_cache_per_direction(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert CACHE_SIZE == 65_536
    monkeypatch.setattr(key_casing, "CACHE_SIZE", 100)  # read at each miss
    caches = set()
    for to_camel, to_snake in STYLES.values():
        for index in range(250):
            to_camel(f"key_{index}_x")
            to_snake(f"key{index}X")
        assert 0 < len(to_camel.cache) <= 100  # type: ignore[attr-defined]
        assert 0 < len(to_snake.cache) <= 100  # type: ignore[attr-defined]
        caches |= {id(to_camel.cache), id(to_snake.cache)}  # type: ignore[attr-defined]
    assert len(caches) == 2 * len(STYLES)


def test_a_style_that_is_not_one_is_refused() -> None:
    with pytest.raises(ValueError, match="style must be one of"):
        SnakeCaseKeys(style="camel")
    with pytest.raises(ValueError, match="PascalCaseKeys: style must be one of"):
        PascalCaseKeys(style="pascal")


def test_the_repr_shows_the_style() -> None:
    assert repr(SnakeCaseKeys()) == "SnakeCaseKeys()"
    assert (
        repr(CamelCaseKeys(style="humps", params=True))
        == "CamelCaseKeys(style='humps', params=True)"
    )
