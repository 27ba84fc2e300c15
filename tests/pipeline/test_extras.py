"""A feature whose extra is not installed says what to install, where it is
made: ``MissingExtra`` names the feature, the package and the extra."""

from __future__ import annotations

import importlib.abc
import re
import sys
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from restwire import HttpCache, MissingExtra, RestEndpoint, RestwireError
from restwire._base.errors import EXTRAS, require
from restwire._store.models import _adapter
from restwire.middlewares import OpenTelemetry, RateLimit, SharedToken
from tests.pipeline.test_models import Point

ROOT = Path(__file__).resolve().parent.parent.parent


def _sqlite(tmp_path: Path) -> object:
    return HttpCache.sqlite(tmp_path / "cache.db")


def _redis_cache(tmp_path: Path) -> object:
    return HttpCache.redis("redis://127.0.0.1:1/0")


def _bare_cache(tmp_path: Path) -> object:
    return HttpCache(lambda: None, where="mine", locks=None)  # type: ignore[arg-type, return-value]


def _rate_limit(tmp_path: Path) -> object:
    return RateLimit(5, redis="redis://127.0.0.1:1/0")


def _shared_token(tmp_path: Path) -> object:
    return SharedToken("redis://127.0.0.1:1/0")


def _model_schema(tmp_path: Path) -> object:
    _adapter.cache_clear()
    try:
        return RestEndpoint(path="/points/:id", schema=Point)
    finally:
        _adapter.cache_clear()


def _otel(tmp_path: Path) -> object:
    return OpenTelemetry()


#: What a user makes, the module it needs hidden, the feature named and the
#: extra to install.
CASES: Sequence[tuple[Callable[[Path], object], str, str, str]] = [
    (_sqlite, "hishel", "HttpCache.sqlite()", "cache"),
    (_redis_cache, "hishel", "HttpCache.redis()", "cache"),
    (_redis_cache, "redis", "HttpCache.redis()", "redis"),
    (_bare_cache, "hishel", "HttpCache", "cache"),
    (_rate_limit, "redis", "RateLimit(redis=...)", "redis"),
    (_shared_token, "redis", "SharedToken", "redis"),
    (_model_schema, "pydantic", "the dataclass schema Point", "models"),
    (_otel, "opentelemetry", "OpenTelemetry()", "otel"),
]


@pytest.mark.parametrize(
    ("make", "module", "feature", "extra"),
    CASES,
    ids=[f"{make.__name__.strip('_')}-{module}" for make, module, _, _ in CASES],
)
def test_a_missing_extra_is_named_where_the_feature_is_made(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    make: Callable[[Path], object],
    module: str,
    feature: str,
    extra: str,
) -> None:
    # The other packages these features use are imported first, as they are
    # by any earlier test: one imported for the first time while ``module``
    # is hidden keeps the gap for the rest of the process (hishel, imported
    # while redis is hidden, stubs out its Redis storage, and every later
    # HttpCache.redis() in that process fails with ImportError).
    for other in {each for _, each, _, _ in CASES} - {module}:
        importlib.import_module(other)
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    with pytest.raises(MissingExtra) as caught:
        make(tmp_path)
    error = caught.value
    package = EXTRAS[module][1]
    assert str(error) == (
        f"{feature} needs {package}, which is not installed: "
        f'pip install "restwire[{extra}]"'
    )
    assert (error.feature, error.package, error.extra) == (feature, package, extra)
    assert isinstance(error, RestwireError)
    assert isinstance(error, ImportError)
    assert error.name == module
    assert error.__cause__ is None  # nothing to show but the line
    assert error.__suppress_context__


def test_the_same_things_are_made_when_the_extras_are_installed(
    tmp_path: Path,
) -> None:
    for make, *_ in CASES:
        assert make(tmp_path) is not None


class _Broken(importlib.abc.MetaPathFinder):
    """Makes importing ``module`` fail as a broken install does: one of its
    own dependencies is missing."""

    def __init__(self, module: str) -> None:
        self.module = module

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name == self.module:
            raise ModuleNotFoundError("No module named 'anyio_gone'", name="anyio_gone")
        return None


def test_an_extra_installed_but_broken_says_so_and_keeps_the_cause(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # (raising=False: in a process where nothing imported hishel yet, this
    # test alone, say, there is nothing to take out)
    monkeypatch.delitem(sys.modules, "hishel", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_Broken("hishel"), *sys.meta_path])
    with pytest.raises(MissingExtra) as caught:
        HttpCache.sqlite(tmp_path / "cache.db")
    assert str(caught.value) == (
        "HttpCache.sqlite() needs hishel, which is installed but cannot be "
        "imported (No module named 'anyio_gone'); reinstall it: "
        'pip install "restwire[cache]"'
    )
    assert isinstance(caught.value.__cause__, ModuleNotFoundError)


def test_require_gives_the_module_when_it_is_there() -> None:
    assert isinstance(require("redis", "SharedToken"), ModuleType)


def _requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert match is not None, requirement
    return match.group(0).lower()


def test_every_extra_named_is_one_pyproject_defines_with_that_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    extras: dict[str, list[str]] = project["optional-dependencies"]
    for module, (extra, package) in EXTRAS.items():
        assert extra in extras, (module, extra)
        assert package in {_requirement_name(each) for each in extras[extra]}, module
