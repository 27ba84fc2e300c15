"""Key casing vectors published by pyhumps and inflection.

Sources:

- nficano/humps (pyhumps): ``tests/test_camelize.py`` at commit
  d71bf416de81b9d2f6ae16230556f121c6b3c46c and ``tests/test_decamelize.py``
  at commit 1958e3fb514ddfc9de884f87fef3b6ea228c437a,
  https://github.com/nficano/humps;
- jpvanhal/inflection: ``test_inflection.py`` at commit
  610a890f9bfe60e2da8186db2cabee73fd6263c2 (``CAMEL_TO_UNDERSCORE`` and
  ``CAMEL_TO_UNDERSCORE_WITHOUT_REVERSE``),
  https://github.com/jpvanhal/inflection.

inflection's camelize gives UpperCamelCase; restwire's ``to_camel`` gives
lowerCamelCase (JSON's), so its expectations are compared with the first
letter lower-cased.
"""

from __future__ import annotations

SOURCES = (
    "nficano/humps@d71bf416de81b9d2f6ae16230556f121c6b3c46c (camelize)",
    "nficano/humps@1958e3fb514ddfc9de884f87fef3b6ea228c437a (decamelize)",
    "jpvanhal/inflection@610a890f9bfe60e2da8186db2cabee73fd6263c2",
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
