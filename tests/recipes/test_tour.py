"""The tour: ``python -m recipes`` runs every recipe against the demo API."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from recipes.__main__ import main
from recipes.demo_api import DemoApi
from recipes.tour import RECIPES, Wire

ROOT = Path(__file__).resolve().parents[2]


def test_python_m_recipes_runs_every_recipe_and_exits_zero() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "recipes"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for number, recipe in enumerate(RECIPES, start=1):
        assert f"[{number}/{len(RECIPES)}] {recipe.name}: {recipe.title}" in done.stdout
    assert f"tour: {len(RECIPES)} of {len(RECIPES)} recipes ran" in done.stdout
    assert "\x1b[" not in done.stdout  # plain when piped


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda recipe: recipe.name)
def test_each_recipe_runs_and_shows_the_wire(recipe: object) -> None:
    assert hasattr(recipe, "run")
    wire = Wire()
    with DemoApi() as api:
        result = recipe.run(api, wire)  # type: ignore[attr-defined]
    assert result is not None
    assert wire.lines, "every recipe sends at least one request"


def test_the_token_never_reaches_the_other_origin() -> None:
    redirect = next(recipe for recipe in RECIPES if recipe.name == "redirect")
    with DemoApi() as api:
        assert redirect.run(api, Wire()) == {"origin": "other", "credentials": []}


def test_the_wire_log_redacts_credentials() -> None:
    middleware = next(recipe for recipe in RECIPES if recipe.name == "middleware")
    wire = Wire()
    with DemoApi() as api:
        middleware.run(api, wire)
        secrets = (api.access_token, api.session_id)
    text = "\n".join(wire.lines)
    assert "access-token: [redacted]" in text
    assert all(secret not in text for secret in secrets)


def test_list_and_run_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in listed] == [recipe.name for recipe in RECIPES]
    assert main(["run", "endpoint"]) == 0
    out = capsys.readouterr().out
    assert "[1/1] endpoint" in out
    assert "tour: 1 of 1 recipes ran" in out


def test_a_failing_recipe_makes_the_tour_fail(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from recipes import __main__ as tour_main
    from recipes.tour import Recipe

    def broken(api: DemoApi, wire: Wire) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(tour_main, "RECIPES", (Recipe("broken", "b", "none", broken),))
    assert tour_main.main([]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out
    assert "RuntimeError: boom" in out
    assert "1 failed" in out
