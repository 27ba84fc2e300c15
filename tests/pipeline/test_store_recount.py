"""The store's count of records stored again equal (``_store.store``,
``_store.retention``): one record, a list's, or records nesting another
class's, their extra keys counted out and in, one record's fields walked
one object at a time. Each test drives a store or a controller through
random or hostile sequences meant to make its count drift from a fresh
recount (``counted_as_held``), or to store other records than merging
would; under both drivers where a controller is used."""

from __future__ import annotations

import enum
import json
import random
from typing import Any, ClassVar

import httpx
import pytest

from restwire import Entity, RestEndpoint
from restwire._store import retention
from restwire._store.retention import records_size
from restwire._store.schemas import Batch, plan_of
from restwire._store.store import Store
from tests.pipeline.test_store_counts import commit, counted_as_held

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


def spare_list() -> list[int]:
    """``[0, 1, 2]`` with spare slots (made by appending)."""
    made: list[int] = []
    for item in range(3):
        made.append(item)
    return made


def holey_dict() -> dict[str, int]:
    """``{"k9": 9}`` in a table that held ten keys (deleted slots)."""
    made = {f"k{n}": n for n in range(10)}
    for n in range(9):
        del made[f"k{n}"]
    return made


def self_holding() -> list[Any]:
    made: list[Any] = [1]
    made.append(made)
    return made


# equal values of other sizes, in groups (each group's values are ==)
EQUAL_GROUPS: list[list[Any]] = [
    [1, 1.0, True],
    [[1], [1.0], [True]],
    [[0, 1, 2], [0.0, 1, 2], "spare"],
    [{"k9": 9}, {"k9": 9.0}, "holey"],
    [(1, "a"), (1.0, "a"), (True, "a")],
    [[[1]], [[1.0]]],
    ["é" * 3, "\ud800", "\U0001f600"],
    [10**40, float(10**40)],
]


def made(value: Any) -> Any:
    if value == "spare":
        return spare_list()
    if value == "holey":
        return holey_dict()
    return value


def fresh_classes() -> dict[str, type[Entity]]:
    """Classes new to the process (``_extras_made`` is per class, for good)."""

    class Child(Entity):
        key = "Child"
        id: str = ""
        v: Any = None

    class Flat(Entity):
        id: str = ""
        a: Any = None
        f: float = 0.0
        n: int = 0

    class Nest(Entity):
        id: str = ""
        a: Any = None
        child: Child | None = None

        schema: ClassVar[dict[str, Any]] = {"child": Child}

    class ByPk(Entity):
        id: str = ""
        a: Any = None

        def __eq__(self, other: object) -> bool:
            return type(other) is type(self) and self.id == other.id

        __hash__ = Entity.__hash__

    class SubFlat(Flat):
        pass

    return {
        "Child": Child,
        "Flat": Flat,
        "Nest": Nest,
        "ByPk": ByPk,
        "SubFlat": SubFlat,
    }


def a_value(rng: random.Random, group: list[Any] | None = None) -> Any:
    if group is not None:
        return made(rng.choice(group))
    if rng.random() < 0.05:
        return self_holding()
    return made(rng.choice(rng.choice(EQUAL_GROUPS)))


def a_record(
    rng: random.Random, cls: type[Entity], pk: str, group: list[Any]
) -> dict[str, Any]:
    data: dict[str, Any] = {"id": pk}
    for name in cls._fields:
        if name == "id" or rng.random() < 0.1:  # (a partial answer at times)
            continue
        if name == "f":
            data[name] = rng.choice([1.0, 2.5])
        elif name == "n":
            data[name] = rng.choice([1, 10**30])
        elif name == "child":
            data[name] = (
                None
                if rng.random() < 0.2
                else {"id": rng.choice("12"), "v": a_value(rng, group)}
            )
        else:
            data[name] = a_value(rng, group)
    for extra in ("x", "y"):
        if rng.random() < 0.4:
            data[extra] = a_value(rng, group)
    return data


@pytest.mark.parametrize("seed", range(30))
def test_random_commits_keep_the_count_as_held(seed: int) -> None:
    """Records, lists (1 to 70 records), mutations' answers and deletions
    of classes flat, nesting, with their own ``==``, subclassed; values and
    extra keys equal across sizes (``1``/``1.0``/``True``, spare slots,
    deleted slots, tuples, surrogates, a list holding itself); a bound that
    evicts at times."""
    rng = random.Random(seed)
    classes = fresh_classes()
    kinds = [classes[name] for name in ("Flat", "Nest", "ByPk", "SubFlat")]
    store = Store(max_bytes=rng.choice([None, None, 8000]))
    for _ in range(50):
        group = rng.choice(EQUAL_GROUPS)
        cls = rng.choice(kinds)
        op = rng.random()
        if op < 0.45:
            pk = rng.choice("123")
            key = None if rng.random() < 0.15 else f"GET /{cls.__name__}/{pk}"
            commit(store, plan_of(cls), a_record(rng, cls, pk, group), key)
        elif op < 0.9:
            count = rng.choice([1, 2, 3, 4, 5, 8, 17, 63, 64, 65, 70])
            rows = [
                a_record(rng, cls, str(rng.randrange(max(3, count))), group)
                for _ in range(count)
            ]
            commit(store, plan_of([cls]), rows, f"GET /list{rng.randrange(3)}")
        else:
            batch = Batch()
            batch.delete((cls.key, rng.choice("123")))
            store.commit("me", batch, None, None, None, store.generation)
        counted_as_held(store)


def test_one_record_counts_as_among_others_and_few_as_levels() -> None:
    rng = random.Random(7)
    classes = fresh_classes()
    for _ in range(300):
        group = rng.choice(EQUAL_GROUPS)
        records = [
            cls.from_data(a_record(rng, cls, str(n), group))
            for n, cls in enumerate(
                rng.choice([classes["Flat"], classes["SubFlat"], classes["ByPk"]])
                for _ in range(rng.choice([1, 2, 4, 5, 17, 65]))
            )
        ]
        assert records_size(records) == sum(records_size([each]) for each in records)
        values = [value for each in records for value in each.extra_fields.values()]
        few = retention._few_walked(values, retention._RECORD_DEPTH)
        if few is not None:
            assert few == retention._walked(list(values))


JSON_VALUES: list[Any] = [
    1,
    1.0,
    True,
    [1],
    [1.0],
    {"k": 1},
    {"k": 1.0},
    "é",
    "\ud800",
    "\U0001f600",
    [[1, "a"]],
    None,
]


@pytest.mark.parametrize("seed", range(20))
async def test_fetches_keep_the_count_and_the_extra_keys(
    controller_factory: Any, seed: int
) -> None:
    """Through a controller (both drivers, httpx's MockTransport): an item,
    a list and a list nesting another class, fetched again and again with
    equal fields and extra keys that come, go and change type; each record
    read back keeps every extra key it was sent (the last value of each),
    and the store counts what it holds."""
    rng = random.Random(seed)
    classes = fresh_classes()
    flat, nest = classes["Flat"], classes["Nest"]
    bodies: dict[str, Any] = {}

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            content=json.dumps(bodies[request.url.path]).encode(),
            headers={"content-type": "application/json"},
        )

    controller = controller_factory(transport=httpx.MockTransport(answer))
    item = RestEndpoint(url_prefix=API, path="/flat/:id", schema=flat)
    listing = RestEndpoint(url_prefix=API, path="/flats", schema=[flat])
    nesting = RestEndpoint(url_prefix=API, path="/nests", schema=[nest])
    extras: dict[tuple[str, str], dict[str, Any]] = {}

    def row(cls: type[Entity], pk: str) -> dict[str, Any]:
        data: dict[str, Any] = {"id": pk, "a": 1, "f": 1.0, "n": 1}
        if cls is nest:
            data = {"id": pk, "a": [1], "child": {"id": "1", "v": 1.0}}
            if rng.random() < 0.5:
                data["child"]["w"] = rng.choice(JSON_VALUES)
                extras.setdefault(("Child", "1"), {})["w"] = data["child"]["w"]
        for name in ("x", "y"):
            if rng.random() < 0.4:
                data[name] = rng.choice(JSON_VALUES)
                extras.setdefault((cls.key, pk), {})[name] = data[name]
        return data

    for _ in range(25):
        choice = rng.random()
        if choice < 0.4:
            pk = rng.choice("12")
            bodies[f"/flat/{pk}"] = row(flat, pk)
            got = [await controller.fetch(item, {"id": pk})]
        elif choice < 0.7:
            bodies["/flats"] = [row(flat, str(n)) for n in range(rng.choice([1, 3, 6]))]
            got = await controller.fetch(listing)
        else:
            bodies["/nests"] = [row(nest, str(n)) for n in range(rng.choice([1, 3, 6]))]
            got = await controller.fetch(nesting)
        for record in got:
            assert dict(record.extra_fields) == extras.get((record.key, record.id), {})
            child = getattr(record, "child", None)
            if child is not None:
                assert dict(child.extra_fields) == extras.get(("Child", "1"), {})
        counted_as_held(controller.store)
        held = controller.store.records
        for gone in [key for key in extras if key not in held]:
            del extras[gone]  # (no result uses it: it went, its keys too)


# -- a field checked as ``int`` or ``str`` admits a subclass ---------------
#
# The check of an ``int`` field passes an ``IntEnum`` member, and of a
# ``str`` field a ``str`` enum's (Python data: ``controller.set``, an
# endpoint's ``process``, a pushed event). Equal to the ``1`` or ``"admin"``
# a later answer sends, they take other bytes: every field is asked, by the
# types of its two values, whatever its annotation.


class Level(enum.IntEnum):
    LOW = 1


class Role(enum.StrEnum):
    ADMIN = "admin"


class Member(Entity):
    """Its answers keep an extra key (``note``)."""

    id: str = ""
    level: int = 0
    role: str = ""


@pytest.mark.parametrize("many", [False, True], ids=["one record", "a list"])
@pytest.mark.parametrize(
    "first",
    [{"level": Level.LOW, "role": "admin"}, {"level": 1, "role": Role.ADMIN}],
    ids=["IntEnum", "str enum"],
)
def test_an_enum_member_then_its_value_with_extra_keys(
    first: dict[str, Any], many: bool
) -> None:
    store = Store(max_bytes=None)
    plan = plan_of([Member] if many else Member)
    for fields in (first, {"level": 1, "role": "admin"}):
        rows = [{"id": str(n), **fields, "note": 1} for n in range(3)]
        commit(store, plan, rows if many else rows[0], "GET /members")
    counted_as_held(store)


async def test_a_value_set_with_an_enum_then_fetched(controller_factory: Any) -> None:
    """Both drivers: ``set`` keeps a record holding ``Level.LOW``; the
    server's answer, equal, holds ``1``."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, json={"id": "1", "level": 1, "role": "admin", "note": "n"}
        )

    controller = controller_factory(transport=httpx.MockTransport(answer))
    member = RestEndpoint(url_prefix=API, path="/members/:id", schema=Member)
    await controller.set(
        member,
        {"id": "1", "level": Level.LOW, "role": "admin", "note": "n"},
        {"id": "1"},
    )
    await controller.fetch(member, {"id": "1"})
    counted_as_held(controller.store)


class Plain(Entity):
    """As ``Member``, never sent an extra key."""

    id: str = ""
    level: int = 0
    role: str = ""


@pytest.mark.parametrize("many", [False, True], ids=["one record", "a list"])
def test_an_enum_member_then_its_value_without_extra_keys(many: bool) -> None:
    """The same, records that keep no extra key."""
    store = Store(max_bytes=None)
    plan = plan_of([Plain] if many else Plain)
    for level in (Level.LOW, 1):
        rows = [{"id": str(n), "level": level, "role": "admin"} for n in range(3)]
        commit(store, plan, rows if many else rows[0], "GET /plain")
    counted_as_held(store)
