"""Key casing vectors published by pyhumps, inflection and pydantic.

Sources:

- pydantic/pydantic: ``tests/test_utils.py`` at commit
  870db009b43517e0a4c7e20be3502f1f1ac25ada (``test_on_lower_camel_*``,
  ``test_snake2camel_start_lower``, ``test_snake2camel`` (of
  ``to_pascal``) and ``test_camel2snake``, the tests of
  ``pydantic.alias_generators``), https://github.com/pydantic/pydantic;

- nficano/humps (pyhumps): ``tests/test_camelize.py`` at commit
  d71bf416de81b9d2f6ae16230556f121c6b3c46c, ``tests/test_decamelize.py``
  at commit 1958e3fb514ddfc9de884f87fef3b6ea228c437a and
  ``tests/test_pascalize.py`` at commit
  4fb900709bc338e5de4e42653c95fa5087862b64,
  https://github.com/nficano/humps;
- jpvanhal/inflection: ``test_inflection.py`` at commit
  610a890f9bfe60e2da8186db2cabee73fd6263c2 (``CAMEL_TO_UNDERSCORE`` and
  ``CAMEL_TO_UNDERSCORE_WITHOUT_REVERSE``),
  https://github.com/jpvanhal/inflection.

inflection's camelize gives UpperCamelCase; restwire's ``to_camel`` gives
lowerCamelCase (JSON's), so its expectations are compared with the first
letter lower-cased, and with ``to_pascal`` as they are.
"""

from __future__ import annotations

SOURCES = (
    "nficano/humps@d71bf416de81b9d2f6ae16230556f121c6b3c46c (camelize)",
    "nficano/humps@1958e3fb514ddfc9de884f87fef3b6ea228c437a (decamelize)",
    "nficano/humps@4fb900709bc338e5de4e42653c95fa5087862b64 (pascalize)",
    "jpvanhal/inflection@610a890f9bfe60e2da8186db2cabee73fd6263c2",
    "pydantic/pydantic@870db009b43517e0a4c7e20be3502f1f1ac25ada (alias_generators)",
)

#: snake_case -> camelCase (pyhumps.camelize)
PYHUMPS_CAMELIZE: list[tuple[str, str]] = [
    ("fallback_url", "fallbackUrl"),
    ("scrubber_media_url", "scrubberMediaUrl"),
    ("dash_url", "dashUrl"),
    ("_fallback_url", "_fallbackUrl"),
    ("__scrubber_media___url_", "__scrubberMediaUrl_"),
    ("_url__", "_url__"),
    ("API", "API"),
    ("_API_", "_API_"),
    ("__API__", "__API__"),
    ("APIResponse", "APIResponse"),
    ("_APIResponse_", "_APIResponse_"),
    ("__APIResponse__", "__APIResponse__"),
    ("whatever_10", "whatever10"),
    ("test-1-2-3-4-5-6", "test123456"),
    ("test_n_test", "testNTest"),
    ("field_value_2_type", "fieldValue2Type"),
]

#: camelCase -> snake_case (pyhumps.decamelize)
PYHUMPS_DECAMELIZE: list[tuple[str, str]] = [
    ("symbol", "symbol"),
    ("lastPrice", "last_price"),
    ("changePct", "change_pct"),
    ("impliedVolatility", "implied_volatility"),
    ("_symbol", "_symbol"),
    ("changePct_", "change_pct_"),
    ("_lastPrice__", "_last_price__"),
    ("__impliedVolatility_", "__implied_volatility_"),
    ("API", "API"),
    ("_API_", "_API_"),
    ("__API__", "__API__"),
    ("APIResponse", "api_response"),
    ("_APIResponse_", "_api_response_"),
    ("__APIResponse__", "__api_response__"),
    ("_itemID", "_item_id"),
    ("memMB", "mem_mb"),
    ("sizeX", "size_x"),
    ("aB", "a_b"),
    ("testNTest", "test_n_test"),
]

#: CamelCase -> snake_case, and back (inflection.underscore / camelize)
INFLECTION_ROUND_TRIP: list[tuple[str, str]] = [
    ("Product", "product"),
    ("SpecialGuest", "special_guest"),
    ("ApplicationController", "application_controller"),
    ("Area51Controller", "area51_controller"),
]

#: CamelCase -> snake_case only (inflection.underscore)
INFLECTION_ONE_WAY: list[tuple[str, str]] = [
    ("HTMLTidy", "html_tidy"),
    ("HTMLTidyGenerator", "html_tidy_generator"),
    ("FreeBSD", "free_bsd"),
    ("HTML", "html"),
]

#: snake_case -> camelCase (pydantic.alias_generators.to_camel)
#: snake_case -> PascalCase (pyhumps.pascalize)
PYHUMPS_PASCALIZE: list[tuple[str, str]] = [
    ("fallback_url", "FallbackUrl"),
    ("scrubber_media_url", "ScrubberMediaUrl"),
    ("dash_url", "DashUrl"),
    ("_fallback_url", "_FallbackUrl"),
    ("__scrubber_media___url_", "__ScrubberMediaUrl_"),
    ("_url__", "_Url__"),
    ("API", "API"),
    ("_API_", "_API_"),
    ("__API__", "__API__"),
    ("APIResponse", "APIResponse"),
    ("_APIResponse_", "_APIResponse_"),
    ("__APIResponse__", "__APIResponse__"),
]

#: snake_case -> PascalCase (pydantic.alias_generators.to_pascal, its
#: ``test_snake2camel``)
PYDANTIC_TO_PASCAL: list[tuple[str, str]] = [
    ("snake_to_camel", "SnakeToCamel"),
    ("snake_2_camel", "Snake2Camel"),
    ("snake2camel", "Snake2Camel"),
    ("_snake_to_camel", "_SnakeToCamel"),
    ("snake_to_camel_", "SnakeToCamel_"),
    ("__snake_to_camel__", "__SnakeToCamel__"),
    ("snake_2", "Snake2"),
    ("_snake_2", "_Snake2"),
    ("snake_2_", "Snake2_"),
]

PYDANTIC_TO_CAMEL: list[tuple[str, str]] = [
    ("", ""),
    ("a", "a"),
    ("i_like_turtles", "iLikeTurtles"),
    ("snake_to_camel", "snakeToCamel"),
    ("snake_2_camel", "snake2Camel"),
    ("snake2camel", "snake2Camel"),
    ("_snake_to_camel", "_snakeToCamel"),
    ("snake_to_camel_", "snakeToCamel_"),
    ("__snake_to_camel__", "__snakeToCamel__"),
    ("snake_2", "snake2"),
    ("_snake_2", "_snake2"),
    ("snake_2_", "snake2_"),
]

#: camelCase -> snake_case (pydantic.alias_generators.to_snake)
PYDANTIC_TO_SNAKE: list[tuple[str, str]] = [
    ("camel_to_snake", "camel_to_snake"),
    ("camelToSnake", "camel_to_snake"),
    ("camel2Snake", "camel_2_snake"),
    ("_camelToSnake", "_camel_to_snake"),
    ("camelToSnake_", "camel_to_snake_"),
    ("__camelToSnake__", "__camel_to_snake__"),
    ("CamelToSnake", "camel_to_snake"),
    ("Camel2Snake", "camel_2_snake"),
    ("_CamelToSnake", "_camel_to_snake"),
    ("CamelToSnake_", "camel_to_snake_"),
    ("CAMELToSnake", "camel_to_snake"),
    ("__CamelToSnake__", "__camel_to_snake__"),
    ("Camel2", "camel_2"),
    ("Camel2_", "camel_2_"),
    ("_Camel2", "_camel_2"),
    ("camel2", "camel_2"),
    ("camel2_", "camel_2_"),
    ("_camel2", "_camel_2"),
]
