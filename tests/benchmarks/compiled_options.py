"""The compiled options for the read path, measured on case 6's data:
``python -m tests.benchmarks.compiled_options``.

Issue 15 asks to measure msgspec, orjson (and mypyc) before choosing. This
times, on the 20,000 prices of case 6 (camelCase on the wire): parsing with
``json``, orjson and msgspec; restwire's casing and normalization as they
are; pydantic's validation (case 6a's baseline); and msgspec turning the
same data into typed structs, from parsed dicts and straight from the bytes
with the camelCase renaming done while decoding. Needs the ``bench`` extra.
Not part of the test run.
"""

from __future__ import annotations

import datetime
import json
import timeit
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import msgspec
import orjson
import pydantic

from restwire.middlewares.key_casing import convert_keys, to_camel, to_snake

from .cases import normalize_and_read, price_payload


class PriceModel(pydantic.BaseModel):
    id: str
    pair: str
    price: Decimal
    updated_at: datetime.datetime
    volume: int


class PriceStruct(msgspec.Struct):
    id: str
    pair: str
    price: Decimal
    updated_at: datetime.datetime
    volume: int


class WirePriceStruct(msgspec.Struct, rename="camel"):
    id: str
    pair: str
    price: Decimal
    updated_at: datetime.datetime
    volume: int


def _best_ms(run: Callable[[], Any], repeat: int = 7) -> float:
    return min(timeit.repeat(run, number=1, repeat=repeat)) * 1e3


def main() -> None:
    data = price_payload(20_000)
    wire = json.dumps(convert_keys(data, to_camel)).encode()
    parsed = json.loads(wire)
    snake = convert_keys(parsed, to_snake)
    models = pydantic.TypeAdapter(list[PriceModel])
    typed_decoder = msgspec.json.Decoder(list[WirePriceStruct])
    rows = [
        ("parse: json.loads", lambda: json.loads(wire)),
        ("parse: orjson.loads", lambda: orjson.loads(wire)),
        ("parse: msgspec.json.decode", lambda: msgspec.json.decode(wire)),
        ("restwire: casing (to_snake)", lambda: convert_keys(parsed, to_snake)),
        ("restwire: normalize + read back", lambda: normalize_and_read(snake)),
        (
            "pydantic: validate_python (6a baseline)",
            lambda: models.validate_python(snake),
        ),
        (
            "msgspec: convert dicts to structs",
            lambda: msgspec.convert(snake, list[PriceStruct]),
        ),
        (
            "msgspec: bytes to structs, camelCase renamed",
            lambda: typed_decoder.decode(wire),
        ),
    ]
    took = [(name, _best_ms(run)) for name, run in rows]
    baseline = took[0][1]
    print(f"{'step (20,000 prices)':<48} {'best of 7':>10} {'vs json.loads':>14}")
    for name, milliseconds in took:
        print(f"{name:<48} {milliseconds:>7.1f} ms {milliseconds / baseline:>13.2f}x")


if __name__ == "__main__":
    main()
