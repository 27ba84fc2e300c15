"""Normalizing and reading back 20,000 entities, against pydantic v2.

    python -m tests.benchmarks.bench_normalize [--count N] [--repeat R]

Both sides start from the same list of dicts (the parsed JSON): restwire
normalizes it into a fresh store and reads it back as typed entities;
pydantic runs ``TypeAdapter(list[Model]).validate_python``. Medians of R runs
after a warm-up, and the ratio restwire / pydantic (at most 1.0 is the target).
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any, ClassVar

from pipeline import Entity
from pipeline._schema import Batch, denormalize, normalize
from pipeline._store import Store


class Price(Entity):
    id: str = ""
    pair: str = ""
    price: Decimal = Decimal(0)
    updated_at: datetime.datetime | None = None
    volume: int = 0

    schema: ClassVar[dict[str, Any]] = {
        "price": Decimal,
        "updated_at": datetime.datetime.fromisoformat,
    }


def payload(count: int) -> list[dict[str, Any]]:
    return [
        {
            "id": str(i),
            "pair": f"PAIR-{i % 97}",
            "price": f"{i}.{i % 100:02d}",
            "updated_at": f"2024-05-01T12:{i % 60:02d}:{i % 60:02d}+00:00",
            "volume": i,
        }
        for i in range(count)
    ]


def restwire_round(data: list[dict[str, Any]]) -> Any:
    store = Store()
    batch = Batch()
    normalized = normalize([Price], data, batch, {})
    store.commit(batch, None, None, store.generation)
    return denormalize([Price], normalized, store.records)


def median_seconds(run: Callable[[], Any], repeat: int) -> float:
    run()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    arguments = parser.parse_args()
    data = payload(arguments.count)
    ours = median_seconds(lambda: restwire_round(data), arguments.repeat)
    print(f"restwire normalize+read {arguments.count} entities: {ours * 1000:8.1f} ms")
    try:
        import pydantic
    except ImportError:
        print("pydantic not installed: pip install -e '.[bench]' for the baseline")
        return

    class Model(pydantic.BaseModel):
        id: str
        pair: str
        price: Decimal
        updated_at: datetime.datetime
        volume: int

    adapter = pydantic.TypeAdapter(list[Model])
    theirs = median_seconds(lambda: adapter.validate_python(data), arguments.repeat)
    print(f"pydantic TypeAdapter.validate_python:     {theirs * 1000:8.1f} ms")
    print(f"ratio restwire / pydantic: {ours / theirs:.2f} (target <= 1.0)")


if __name__ == "__main__":
    main()
